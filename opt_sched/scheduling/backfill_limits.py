"""Backfilling as Slurm configures it: a depth limit and an interval
(options ``bf_depth`` and ``bf_interval`` of the EASY and conservative
schedulers, :mod:`~opt_sched.scheduling.backfilling`).

Slurm's ``sched/backfill`` plugin tests at most ``bf_max_job_test`` jobs
per backfill pass (``max_job_bf`` in Slurm 14.03; seed 002's ScSF
configuration sets 50) and runs every ``bf_interval`` seconds (30); between
two backfill passes, its main scheduler only starts jobs from the head of
the queue while they fit. Neither limit exists in batsched, so both are off
by default and the schedulers stay exactly batsched's (the Batsim
conformance test). Slurm's values are :data:`SLURM_DEFAULTS`.

Depth ``D`` (``bf_depth``): a pass examines only the first ``D`` jobs of
the sorted queue, counting every job tested -- started, reserved or
skipped. The jobs behind are neither started nor reserved; conservative
backfilling drops their reservations.

Interval ``I`` (``bf_interval > 0``): with ``next_bf`` the time of the next
backfill pass (initially ``-inf``), a pass at ``now``

- is a *backfill* pass (:data:`~opt_sched.scheduling.backfill_kernel.SWEEP`)
  if ``now >= next_bf``; then ``next_bf = now + I``. Every lane with
  waiting jobs is passed; the whole queue (up to ``D``) is traversed: EASY
  places the head and backfills behind it, conservative rebuilds every
  reservation in queue order (Slurm's backfill plan, rebuilt from scratch
  at each pass);
- is otherwise the *FIFO part* only
  (:data:`~opt_sched.scheduling.backfill_kernel.FIFO`), on the lanes where
  something happened: jobs start from the head of the queue while they fit
  now, the first that does not fit stops it
  (:func:`~opt_sched.scheduling.backfill_kernel.fifo_part`).

While jobs wait, :meth:`BackfillLimits.next_wakeup` asks the engine for a
pass at ``next_bf`` (unless nothing runs and the last pass was a backfill
pass: nothing could change any more). A job submitted long after the last
backfill pass is therefore tried by a backfill pass at once, not on a fixed
30 s grid.

With ``I = 0`` every pass is batsched's event-driven pass
(:data:`~opt_sched.scheduling.backfill_kernel.EVENT`) on the first ``D``
jobs; without a depth limit either, the schedulers run their unlimited
passes unchanged.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from ..errors import OptionError
from . import backfill_kernel as bk

__all__ = ["SLURM_DEFAULTS", "BackfillLimits", "check_limits"]

SLURM_DEFAULTS = {"bf_depth": 50, "bf_interval": 30.0}
"""Seed 002's Slurm backfill settings (``bf_interval=30,max_job_bf=50``,
ScSF's ``slurm.conf`` for Edison; P-IV §4.1)."""


def check_limits(bf_depth: object, bf_interval: object) -> tuple[int | None, float]:
    """``(depth or None, interval)`` checked.

    Raises
    ------
    OptionError
        ``bf_depth`` is not ``None`` or an integer >= 1, or ``bf_interval``
        is not a finite number >= 0.
    """
    if bf_depth is not None and (isinstance(bf_depth, bool)
                                 or not isinstance(bf_depth, int) or bf_depth < 1):
        raise OptionError(f"bf_depth={bf_depth!r} must be an integer >= 1 "
                          "(or None: no limit)")
    if isinstance(bf_interval, bool) or not isinstance(bf_interval, (int, float)) \
            or not math.isfinite(bf_interval) or bf_interval < 0:
        raise OptionError(f"bf_interval={bf_interval!r} must be a finite number "
                          ">= 0 (seconds)")
    return bf_depth, float(bf_interval)


class BackfillLimits:
    """The depth and interval state of one scheduler (module docstring)."""

    def __init__(self, bf_depth: int | None, bf_interval: float) -> None:
        self.depth = bk.UNLIMITED_DEPTH if bf_depth is None else int(bf_depth)
        self.interval = float(bf_interval)
        self.next_bf = -math.inf
        self.last_full = False

    def mode(self, now: float) -> int:
        """The mode of the pass at ``now`` (moves ``next_bf`` on a backfill
        pass)."""
        if self.interval <= 0:
            return bk.EVENT
        if now >= self.next_bf:
            self.next_bf = now + self.interval
            self.last_full = True
            return bk.SWEEP
        self.last_full = False
        return bk.FIFO

    def lanes(self, mode: int, active: Iterable[int],
              queues: Sequence[dict[int, None]]) -> list[int]:
        """The lanes to pass: those where something happened, and on a
        backfill pass every lane with waiting jobs."""
        out = list(active)
        if mode == bk.SWEEP:
            seen = set(out)
            out += [k for k, queue in enumerate(queues) if queue and k not in seen]
        return out

    def next_wakeup(self, now: float, waiting: bool, running: bool) -> float:
        """``next_bf`` while jobs wait and something may still change."""
        if self.interval <= 0 or not waiting or not (running or not self.last_full):
            return math.inf
        return self.next_bf
