"""Job priorities for the online schedulers (seed 002): queue orders that
plug into the ``QueueOrder`` seam of the backfilling schedulers
(``sort(queue, now) -> queue in priority order``, recomputed every pass).

>>> order = get_queue_order("fairshare:sigmoid-2")  # the scheduling front door
>>> order.name
'fairshare:sigmoid-2'

``--priority`` specs (:func:`get_queue_order`):

- ``fcfs`` -- submission order (:class:`opt_sched.scheduling.queue_order.FCFSOrder`);
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
(``observe_submit/start/end``, :mod:`.observers`) that the schedulers call
(the backfilling schedulers of :mod:`opt_sched.scheduling`, and
:class:`~.strict.StrictOrderScheduler`, Slurm's ``sched/builtin``, a
scheduler over any order); without them they infer the events from the
cluster (:mod:`.history`).

Every order is built through the one front door
:func:`opt_sched.scheduling.get_queue_order` (re-exported here), which
hands ``multifactor`` and ``fairshare:*`` to :func:`priority_order`.

:mod:`.resolution` reproduces Paper II's resolution study (bits a
2,000 core-hour job needs to change a priority).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import OptionError
from ..scheduling.queue_order import get_queue_order
from .fairshare import FairShareOrder
from .multifactor import MultifactorOrder
from .observers import QueueObserver, notify_end, notify_start, notify_submit
from .operators import OPERATOR_NAMES, Operator, get_operator
from .strict import StrictOrderScheduler
from .tree import TargetTree
from .usage import DEFAULT_HALF_LIFE, DecayedUsage

__all__ = [
    "DEFAULT_HALF_LIFE",
    "OPERATOR_NAMES",
    "PRIORITY_ORDERS",
    "DecayedUsage",
    "FairShareOrder",
    "MultifactorOrder",
    "Operator",
    "QueueObserver",
    "StrictOrderScheduler",
    "TargetTree",
    "get_operator",
    "get_queue_order",
    "notify_end",
    "notify_start",
    "notify_submit",
    "priority_names",
    "priority_order",
]

PRIORITY_ORDERS: dict[str, Callable[..., Any]] = {
    "multifactor": MultifactorOrder,
    "fairshare": FairShareOrder,
}
"""Spec head -> factory; ``fairshare`` takes the operator after ``:``."""


def priority_names() -> list[str]:
    """The ``--priority`` values, for help texts."""
    return ["fcfs", "multifactor"] + [f"fairshare:{name}" for name in OPERATOR_NAMES]


def priority_order(spec: str, **options: Any) -> Any:
    """A fresh ``multifactor`` or ``fairshare:OPERATOR`` order
    (``fairshare`` alone means ``fairshare:sigmoid-2``, Paper II's best
    operator); ``options`` go to the order's constructor (weights, tree,
    half_life, bits, ...). Reached through
    :func:`opt_sched.scheduling.get_queue_order`.

    Raises
    ------
    OptionError
        Unknown spec or option.
    """
    head, colon, arg = spec.strip().partition(":")
    head = head.lower()
    if colon and not arg.strip():
        raise OptionError(f"priority={spec!r}: no operator after ':' (give "
                          f"fairshare:OPERATOR, or fairshare alone for "
                          f"fairshare:sigmoid-2)")
    if head not in PRIORITY_ORDERS:
        raise OptionError(f"priority={spec!r} is unknown; choose one of "
                          f"multifactor, fairshare:OPERATOR")
    if arg and head != "fairshare":
        raise OptionError(f"priority={spec!r}: {head} takes no ':' argument")
    factory = PRIORITY_ORDERS[head]
    if head == "fairshare":
        options = {"operator": arg or "sigmoid-2", **options}
    try:
        return factory(**options)
    except TypeError as err:
        raise OptionError(f"priority {spec!r}: {err}") from None
