"""The cyclic steady state as a method: pattern, period, unrolled schedule."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ....errors import OptionError
from ....instance import Instance
from ....schedule import Schedule
from ..orders import NodeJobs, node_jobs, orders_to_schedule
from .pattern import cyclic_pattern, is_periodic_node
from .period import PeriodSolution, solve_period
from .unroll import best_rotation

__all__ = ["CyclicNode", "cyclic_node_order", "cyclic_schedule"]


@dataclass(frozen=True)
class CyclicNode:
    """The cyclic answer of one node: its period and the unrolled order."""

    period: PeriodSolution
    order: list[int]
    value: float
    rotation: int

    def info(self) -> dict[str, Any]:
        p = self.period
        return {"partition": p.pattern.node.partition,
                "multiplicity": list(p.pattern.multiplicity),
                "period": p.period, "period_lower_bound": p.lower,
                "period_status": p.status, "steady_state_bound":
                p.pattern.period_lower_bound(), "tick": p.tick,
                "exact_grid": p.exact_grid, "rotation": self.rotation,
                "value": self.value, "period_seconds": round(p.seconds, 3)}


def default_rule(objective: str) -> str:
    """``completion`` multiplicities for the makespan, ``rate`` for the max
    stretch (:mod:`.pattern`)."""
    return "completion" if objective == "makespan" else "rate"


def cyclic_node_order(node: NodeJobs, objective: str = "makespan",
                      time_limit: float = 10.0, *, rule: str | None = None,
                      num_workers: int = 2, seed: int = 0,
                      cap: int | None = None) -> CyclicNode | None:
    """The cyclic order of one node, or ``None`` if the node is not periodic
    or no period was found in time."""
    if not is_periodic_node(node):
        return None
    pattern = cyclic_pattern(node, rule or default_rule(objective), cap=cap)
    period = solve_period(pattern, time_limit, num_workers=num_workers, seed=seed)
    if period is None:
        return None
    order, value, rotation = best_rotation(node, period.word, objective)
    return CyclicNode(period, order, value, rotation)


def cyclic_schedule(instance: Instance, objective: str = "makespan",
                    time_limit: float = 10.0, *, rule: str | None = None,
                    num_workers: int = 2, seed: int = 0
                    ) -> tuple[Schedule, dict[str, Any]]:
    """A full cyclic schedule of a periodic IO-SCHED instance.

    Each node's period is solved (``time_limit`` shared by the nodes), the
    best rotation unrolled with its ramp-up and ramp-down
    (:mod:`.unroll`); a node without periodic jobs keeps the round-robin
    order. The schedule is *not* validated here (the caller does it).

    Raises
    ------
    OptionError
        No node of the instance is periodic.
    """
    nodes = node_jobs(instance)
    share = time_limit / max(1, len(nodes))
    orders, infos = [], []
    for node in nodes:
        answer = cyclic_node_order(node, objective, share, rule=rule,
                                   num_workers=num_workers, seed=seed)
        if answer is None:
            orders.append(node.round_robin())
            infos.append({"partition": node.partition, "periodic": False})
        else:
            orders.append(answer.order)
            infos.append(answer.info())
    if all(not item.get("period") for item in infos):
        raise OptionError(f"cyclic: no partition of {instance.name!r} has periodic "
                          "jobs with I/O")
    schedule = orders_to_schedule(instance, nodes, orders, "cyclic",
                                  {"nodes": infos})
    return schedule, {"nodes": infos}
