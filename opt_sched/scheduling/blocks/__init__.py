"""Building blocks for schedulers written in Python (API version
:data:`~opt_sched.scheduling.base.API_VERSION`; ``docs/write-a-scheduler.md``).

- :class:`Blocks` (:mod:`.toolkit`): the queue as arrays and the
  availability profile, with ``fits_now``, ``earliest_start``,
  ``first_fit``, ``shadow_time``/``reserve``, ``start``,
  ``start_in_order`` and ``start_fitting``, each one compiled call
  (:mod:`.kernel`, on the built-in backfilling schedulers' state and
  profile).
- :class:`BlockScheduler` (:mod:`.scheduler`): a Scheduler whose pass is
  one method, ``schedule(now, blocks)``.
"""

from .scheduler import BlockScheduler
from .toolkit import Blocks, Fit, Profile, QueueArrays

__all__ = ["BlockScheduler", "Blocks", "Fit", "Profile", "QueueArrays"]
