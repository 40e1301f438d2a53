"""Starting orders for the searches: the eight list policies and the cyclic
steady state."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ....instance import Instance
from ..orders import NodeJobs, order_value, orders_from_schedule

__all__ = ["Seed", "best_seed", "cyclic_seeds", "policy_seeds"]


@dataclass(frozen=True)
class Seed:
    """One node order with its value and where it comes from."""

    name: str
    order: list[int]
    value: float


def policy_seeds(instance: Instance, nodes: Sequence[NodeJobs], objective: str
                 ) -> list[list[Seed]]:
    """Per node, the orders of the simulator's one-pack schedule under each
    of the eight I/O policies (seed 003 §5.1)."""
    from ....simulation import POLICY_NAMES, OnePackPlan, simulate

    out: list[list[Seed]] = [[] for _ in nodes]
    for policy in POLICY_NAMES:
        schedule = simulate(instance, OnePackPlan(), policy=policy)
        for slot, node, order in zip(out, nodes, orders_from_schedule(nodes, schedule)):
            slot.append(Seed(policy, order, order_value(node, order, objective)))
    return out


def cyclic_seeds(nodes: Sequence[NodeJobs], objective: str, time_limit: float, *,
                 num_workers: int = 2, seed: int = 0) -> list[list[Seed]]:
    """Per node, the unrolled cyclic order when the node is periodic
    (:mod:`opt_sched.exact.io_sched.cyclic`), with its period info in the name."""
    from ..cyclic import cyclic_node_order

    out: list[list[Seed]] = []
    share = time_limit / max(1, len(nodes))
    for node in nodes:
        answer = cyclic_node_order(node, objective, share, num_workers=num_workers,
                                   seed=seed)
        out.append([] if answer is None else
                   [Seed("cyclic", answer.order, answer.value)])
    return out


def best_seed(seeds: Sequence[Seed]) -> Seed:
    """The seed of smallest value (the first on ties)."""
    return min(seeds, key=lambda s: s.value)
