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
  (Slurm's multifactor, Paper II's fair-share operators,
  :mod:`opt_sched.priority`).

:data:`QUEUE_ORDERS` is the one registry of orders (plug-ins: the
entry-point group ``opt_sched.queue_orders``) and :func:`get_queue_order`
the one front door for every ``--order`` / ``--priority`` value. A spec is
``NAME`` or ``NAME:ARG``; the factory gets the options, and ``arg=ARG``
when the spec has one.

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
from ..plugins import PluginError, PluginMapping, describe
from .base import Cluster, JobTable

__all__ = ["QUEUE_ORDERS", "FCFSOrder", "QueueOrder", "SJFOrder", "get_queue_order",
           "order_names"]


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


def _plain(order: Callable[[], QueueOrder]) -> Callable[..., QueueOrder]:
    """The factory of an order that takes no option and no ``:ARG``."""
    def build(**options: Any) -> QueueOrder:
        if options:
            raise OptionError(f"order {order.name!r} takes no options "  # type: ignore[attr-defined]
                              f"({', '.join(sorted(options))})")
        return order()
    build.__doc__ = order.__doc__
    return build


def _multifactor(**options: Any) -> QueueOrder:
    """Slurm's multifactor priority (:mod:`opt_sched.priority.multifactor`)."""
    from ..priority.multifactor import MultifactorOrder

    if "arg" in options:
        raise OptionError(f"order 'multifactor:{options['arg']}': multifactor takes "
                          f"no ':' argument")
    return MultifactorOrder(**options)


def _fairshare(arg: str = "sigmoid-2", **options: Any) -> QueueOrder:
    """Fair share by an operator of Paper II, ``fairshare:OPERATOR``
    (``fairshare`` alone: ``sigmoid-2``, its best; :mod:`opt_sched.priority`)."""
    from ..priority.fairshare import FairShareOrder

    return FairShareOrder(operator=arg, **options)


def _check_order(name: str, value: object) -> None:
    if not callable(value):
        raise PluginError(f"queue order {name!r}: {describe(value)} is not a "
                          f"factory of queue orders")


QUEUE_ORDERS: PluginMapping[Callable[..., QueueOrder]] = PluginMapping("queue_orders", {
    "fcfs": _plain(FCFSOrder),
    "sjf": _plain(SJFOrder),
    "multifactor": _multifactor,
    "fairshare": _fairshare,
}, _check_order)
"""Order name -> factory ``(**options) -> QueueOrder`` (``arg=ARG`` for a
spec ``NAME:ARG``): the built-in orders, then the entry points of the group
``opt_sched.queue_orders``."""


def order_names() -> list[str]:
    """Every order name, for help texts (``fairshare:OPERATOR`` for each
    operator)."""
    from ..priority.operators import OPERATOR_NAMES

    names: list[str] = []
    for name in QUEUE_ORDERS:
        names += ([f"{name}:{op}" for op in OPERATOR_NAMES] if name == "fairshare"
                  else [name])
    return names


def get_queue_order(order: str | QueueOrder, **options: Any) -> QueueOrder:
    """A fresh :class:`QueueOrder` for a spec (or ``order`` itself).

    The factory of the spec's name in :data:`QUEUE_ORDERS` builds it, with
    ``options`` (multifactor and fair share: weights, tree, half-life,
    bits, ...) and ``arg`` for ``NAME:ARG``.

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
    head, colon, arg = order.strip().partition(":")
    head = head.lower()
    if colon and not arg.strip():
        raise OptionError(f"order={order!r}: no argument after ':' (give NAME:ARG, "
                          f"e.g. fairshare:OPERATOR with an operator such as "
                          f"sigmoid-2, or the name alone)")
    factory = QUEUE_ORDERS.get(head)
    if factory is None:
        raise OptionError(f"order={order!r} is unknown; choose one of "
                          f"{', '.join(QUEUE_ORDERS)}")
    if colon:
        options = {"arg": arg.strip(), **options}
    try:
        return factory(**options)
    except TypeError as err:
        raise OptionError(f"order {order!r}: {err}") from None
