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
:func:`opt_sched.scheduling.get_queue_order` (re-exported here), from the
one registry :data:`opt_sched.scheduling.queue_order.QUEUE_ORDERS`, which
builds ``multifactor`` and ``fairshare:*`` from this package (imported one
way, inside its factories).

:mod:`.resolution` reproduces Paper II's resolution study (bits a
2,000 core-hour job needs to change a priority).
"""

from __future__ import annotations

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
]
