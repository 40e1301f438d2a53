"""Queue orders: in which order a scheduler considers its waiting jobs.

A :class:`QueueOrder` is asked at every scheduling pass for the waiting
jobs in priority order (the first one is the *head*, the job EASY reserves
for). The order is recomputed at each pass, so that priorities that change
over time (fair-share, aging) are one more module here:

>>> order = get_queue_order("sjf")
>>> order.attach(jobs, cluster)                  # doctest: +SKIP
>>> order.sort([4, 7, 9], now=120.0)             # doctest: +SKIP
[9, 4, 7]

- ``fcfs``: submission order (ties at one instant: instance order).
- ``sjf``: shortest estimate first, ``e_i`` non-decreasing; equal estimates
  keep submission order. (batsched's ``asc_walltime`` breaks such ties by
  the job id string instead.)
- ``multifactor`` and ``fairshare[:OPERATOR]``: seed 002's priorities
  (Slurm's multifactor, Paper II's fair-share operators), built by
  :func:`opt_sched.priority.orders.priority_order`.

:func:`get_queue_order` is the one front door for every ``--order`` /
``--priority`` value.

An order may also follow the jobs' lives through three optional hooks,
``observe_submit(now, job)``, ``observe_start(now, job)`` and
``observe_end(now, job, killed)`` (:mod:`opt_sched.priority.observers`);
the backfilling schedulers call them.

An order whose priority of a job never changes may also give
``static_key(jobs)``: one number per job such that the queue is sorted by
``(key, submission order)``; the replay engine then runs compiled
(:mod:`~opt_sched.scheduling.fused`) without asking the order at each pass.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..errors import OptionError
from .base import Cluster, JobTable

__all__ = ["PRIORITY_HEADS", "QUEUE_ORDERS", "FCFSOrder", "QueueOrder", "SJFOrder",
           "get_queue_order", "order_names"]


@runtime_checkable
class QueueOrder(Protocol):
    """The priority order of the waiting queue.

    ``sort`` receives the waiting jobs of one partition in submission order
    and returns them in priority order (a new list, or the same one if the
    order is the submission order; the caller never mutates it). It is
    called once per scheduling pass, so it may depend on ``now``.
    """

    name: str

    def attach(self, jobs: JobTable, cluster: Cluster) -> None:
        """Start of the replay."""
        ...

    def sort(self, queue: Sequence[int], now: float) -> Sequence[int]:
        """The waiting jobs in priority order at ``now``."""
        ...


class FCFSOrder:
    """First come, first served: the submission order itself."""

    name = "fcfs"

    def attach(self, jobs: JobTable, cluster: Cluster) -> None:
        pass

    def sort(self, queue: Sequence[int], now: float) -> Sequence[int]:
        return queue

    def static_key(self, jobs: JobTable) -> np.ndarray:
        return np.zeros(len(jobs))


class SJFOrder:
    """Shortest job first by estimate: ``e_i`` non-decreasing, ties in
    submission order (a stable sort of the submission order)."""

    name = "sjf"

    def attach(self, jobs: JobTable, cluster: Cluster) -> None:
        self._key = jobs.estimate.tolist().__getitem__

    def sort(self, queue: Sequence[int], now: float) -> Sequence[int]:
        if len(queue) < 2:
            return queue
        return sorted(queue, key=self._key)

    def static_key(self, jobs: JobTable) -> np.ndarray:
        return np.asarray(jobs.estimate, float)


QUEUE_ORDERS: dict[str, Callable[[], QueueOrder]] = {
    "fcfs": FCFSOrder,
    "sjf": SJFOrder,
}
"""Queue order name -> factory."""


PRIORITY_HEADS = ("multifactor", "fairshare")
"""Spec heads delegated to :func:`opt_sched.priority.orders.priority_order`
(the keys of :data:`opt_sched.priority.orders.PRIORITY_ORDERS`)."""


def order_names() -> list[str]:
    """Every order name, for help texts."""
    from ..priority.operators import OPERATOR_NAMES

    return (sorted(QUEUE_ORDERS) + ["multifactor"]
            + [f"fairshare:{name}" for name in OPERATOR_NAMES])


def get_queue_order(order: str | QueueOrder, **options: Any) -> QueueOrder:
    """A fresh :class:`QueueOrder` for a spec (or ``order`` itself).

    ``fcfs`` and ``sjf`` are built here; ``multifactor`` and
    ``fairshare[:OPERATOR]`` by :func:`opt_sched.priority.orders.priority_order`,
    which takes ``options`` (weights, tree, half-life, bits, ...).

    Raises
    ------
    OptionError
        Unknown name, an option the order does not take, or ``order`` is
        not a queue order.
    """
    if not isinstance(order, str):
        if not isinstance(order, QueueOrder):
            raise OptionError(f"order={order!r} is not a queue order")
        if options:
            raise OptionError(f"order {order!r}: options {sorted(options)} need a "
                              f"spec string")
        return order
    head = order.strip().partition(":")[0].lower()
    if head in PRIORITY_HEADS:
        from ..priority.orders import priority_order

        return priority_order(order, **options)
    if order.strip().lower() in QUEUE_ORDERS and not options:
        return QUEUE_ORDERS[order.strip().lower()]()
    if order.strip().lower() in QUEUE_ORDERS:
        raise OptionError(f"order={order!r} takes no options "
                          f"({', '.join(sorted(options))})")
    raise OptionError(f"order={order!r} is unknown; choose one of fcfs, sjf, "
                      f"multifactor, fairshare:OPERATOR")
