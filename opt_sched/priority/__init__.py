"""Job priorities for the online schedulers (seed 002): queue orders that
plug into the ``QueueOrder`` seam of the backfilling schedulers
(``sort(queue, now) -> queue in priority order``, recomputed every pass).

>>> order = get_queue_order("fairshare:sigmoid-2")
>>> order.name
'fairshare:sigmoid-2'

``--priority`` specs (:func:`get_queue_order`):

- ``fcfs`` -- submission order (:mod:`.submission`);
- ``multifactor`` -- Slurm's multifactor priority: age, job size favouring
  small jobs relative to their time, fair-share, with weights
  (:mod:`.multifactor`);
- ``fairshare:<operator>`` -- hierarchical fair-share priority vectors
  (accounts, then users) with one of Paper II's operators
  (:mod:`.operators`: ``absolute``, ``relative``, ``relative-N``,
  ``sigmoid``, ``sigmoid-N``, ``combined``, ``slurm``, ``slurm-original``),
  usage decayed with a half-life (14 days), components at an optional bit
  resolution (:mod:`.fairshare`, :mod:`.tree`, :mod:`.usage`,
  :mod:`.vector`).

History-aware orders follow the jobs through three optional hooks
(``observe_submit/start/end``, :mod:`.observers`) that a scheduler calls if
present; without them they infer the events from the cluster
(:mod:`.history`). :class:`~.strict.StrictOrderScheduler` (Slurm's
``sched/builtin``) is a scheduler over any order that calls the hooks;
:class:`~.observed.ObservedScheduler` adds the hooks around any scheduler
with an ``order`` (the backfilling ones).

:mod:`.resolution` reproduces Paper II's resolution study (bits a
2,000 core-hour job needs to change a priority).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import OptionError
from .fairshare import FairShareOrder
from .multifactor import MultifactorOrder
from .observed import ObservedScheduler
from .observers import QueueObserver, notify_end, notify_start, notify_submit
from .operators import OPERATOR_NAMES, Operator, get_operator
from .strict import StrictOrderScheduler
from .submission import SubmissionOrder
from .tree import TargetTree
from .usage import DEFAULT_HALF_LIFE, DecayedUsage

__all__ = [
    "DEFAULT_HALF_LIFE",
    "OPERATOR_NAMES",
    "PRIORITY_ORDERS",
    "DecayedUsage",
    "FairShareOrder",
    "MultifactorOrder",
    "ObservedScheduler",
    "Operator",
    "QueueObserver",
    "StrictOrderScheduler",
    "SubmissionOrder",
    "TargetTree",
    "get_operator",
    "get_queue_order",
    "notify_end",
    "notify_start",
    "notify_submit",
    "priority_names",
]

PRIORITY_ORDERS: dict[str, Callable[..., Any]] = {
    "fcfs": SubmissionOrder,
    "multifactor": MultifactorOrder,
    "fairshare": FairShareOrder,
}
"""Spec head -> factory; ``fairshare`` takes the operator after ``:``."""


def priority_names() -> list[str]:
    """The ``--priority`` values, for help texts."""
    return ["fcfs", "multifactor"] + [f"fairshare:{name}" for name in OPERATOR_NAMES]


def get_queue_order(spec: object, **options: Any) -> Any:
    """A fresh queue order for a ``--priority`` spec (or ``spec`` itself if
    it already is an order: an object with ``sort`` and ``attach``).

    ``fcfs``, ``multifactor`` or ``fairshare:OPERATOR`` (``fairshare``
    alone means ``fairshare:sigmoid-2``, Paper II's best operator);
    ``options`` go to the order's constructor (weights, tree, half_life,
    bits, ...).

    Raises
    ------
    OptionError
        Unknown spec or option.
    """
    if not isinstance(spec, str):
        if callable(getattr(spec, "sort", None)) and callable(getattr(spec, "attach",
                                                                       None)):
            if options:
                raise OptionError(f"priority {spec!r}: options {sorted(options)} "
                                  f"need a spec string")
            return spec
        raise OptionError(f"priority={spec!r} is not a queue order")
    head, _, arg = spec.strip().partition(":")
    head = head.lower()
    if head not in PRIORITY_ORDERS:
        other = _scheduling_order(spec, options)
        if other is not None:
            return other
        raise OptionError(f"priority={spec!r} is unknown; choose one of "
                          f"fcfs, multifactor, fairshare:OPERATOR")
    if arg and head != "fairshare":
        raise OptionError(f"priority={spec!r}: {head} takes no ':' argument")
    factory = PRIORITY_ORDERS[head]
    if head == "fairshare":
        options = {"operator": arg or "sigmoid-2", **options}
    try:
        return factory(**options)
    except TypeError as err:
        raise OptionError(f"priority {spec!r}: {err}") from None


def _scheduling_order(spec: str, options: dict[str, Any]) -> Any:
    """An order of :mod:`opt_sched.scheduling.queue_order` (e.g. ``sjf``)
    when that module exists and knows ``spec``; else ``None``."""
    try:
        from ..scheduling import queue_order  # type: ignore[attr-defined]
    except ImportError:
        return None
    if options or spec not in getattr(queue_order, "QUEUE_ORDERS", {}):
        return None
    return queue_order.get_queue_order(spec)
