"""``solve_lns``: the LNS as a method (seeds, then window repairs)."""

from __future__ import annotations

from typing import Any

from ....instance import Instance
from ....schedule import Schedule

__all__ = ["lns_orders", "solve_lns"]


def solve_lns(instance: Instance, time_limit: float = 60.0, seed: int = 0, *,
              objective: str = "makespan", num_workers: int = 2,
              cyclic: bool = True, cyclic_share: float = 0.15
              ) -> tuple[Schedule, dict[str, Any]]:
    """LNS over the I/O orders of an IO-SCHED instance: the schedule (not
    validated here) and its info (:func:`lns_orders`). For a certified
    answer use ``opt_sched.solve(instance, "io-sched", solver="lns")``."""
    return lns_orders(instance, time_limit, seed, objective=objective,
                      num_workers=num_workers, cyclic=cyclic,
                      cyclic_share=cyclic_share)


def lns_orders(instance: Instance, time_limit: float = 60.0, seed: int = 0, *,
               objective: str = "makespan", num_workers: int = 2,
               cyclic: bool = True, cyclic_share: float = 0.15, window: int = 12,
               window_seconds: float = 2.0, lower: float = 0.0
               ) -> tuple[Schedule, dict[str, Any]]:
    """LNS over the I/O orders of an IO-SCHED instance.

    Seeds: the eight list policies and, for periodic nodes, the cyclic steady
    state (at most ``cyclic_share`` of the time); then
    :func:`.search.improve_order` on every node with the time left, split
    evenly. The schedule is the semi-active schedule of the final orders,
    never worse than the best seed (per node, hence overall); it is *not*
    validated here (the ``lns`` solver of :func:`opt_sched.solve` and the
    tests do it).

    Returns
    -------
    (Schedule, dict)
        The schedule and ``info``: per node the seed values, the best seed,
        the final value, windows tried and improvements.
    """
    from ....errors import OptionError
    from ...deadline import Stopwatch
    from ...progress import report
    from ..deadlines import node_grid
    from ..orders import node_jobs, orders_to_schedule
    from ..portfolio.seeds import best_seed, cyclic_seeds, policy_seeds
    from .search import improve_order

    if not (isinstance(time_limit, (int, float)) and time_limit > 0):
        raise OptionError(f"time_limit={time_limit!r} must be > 0")
    clock = Stopwatch()
    nodes = node_jobs(instance)
    report("lns: seeds")
    seeds = policy_seeds(instance, nodes, objective)
    if cyclic:
        report("lns: cyclic seeds")
        for slot, extra in zip(seeds, cyclic_seeds(
                nodes, objective, cyclic_share * time_limit,
                num_workers=num_workers, seed=seed)):
            slot.extend(extra)
    values = [best_seed(slot).value for slot in seeds]  # per node, as it goes
    orders, infos = [], []
    for rank, (node, slot) in enumerate(zip(nodes, seeds)):
        start = best_seed(slot)
        budget = (time_limit - clock()) / (len(nodes) - rank)
        report(f"lns: node {rank + 1}/{len(nodes)}",
               incumbent=max(values, default=None))

        def improved(_order: list[int], value: float, rank: int = rank) -> None:
            values[rank] = value
            report(incumbent=max(values, default=None))

        order, value, stats = improve_order(node_grid(node), objective, start.order,
                                            max(0.0, budget), seed=seed,
                                            window=window,
                                            window_seconds=window_seconds,
                                            lower=lower if len(nodes) == 1 else 0.0,
                                            num_workers=num_workers,
                                            on_improve=improved)
        orders.append(order)
        infos.append({"partition": node.partition,
                      "seeds": {s.name: s.value for s in slot},
                      "seed": start.name, "seed_value": start.value, "value": value,
                      "windows": stats.windows, "improvements": stats.improvements})
    info = {"nodes": infos, "seconds": round(clock(), 3)}
    return orders_to_schedule(instance, nodes, orders, "lns/io-sched", info), info
