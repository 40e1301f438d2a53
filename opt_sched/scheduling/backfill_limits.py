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

Default depth of conservative backfilling on large workloads (issue 24):
its compression places every waiting job again after every job end, so a
pass costs the queue length times the profile size, and a replay of
100,000 jobs does not finish (NERSC-Edison, 45 days, 95,137 jobs: not in
600 s). Without ``bf_depth``, conservative backfilling therefore examines
at most :data:`CONSERVATIVE_DEFAULT_DEPTH` jobs per pass (Slurm's depth
of seed 002, :data:`SLURM_DEFAULTS`) -- but only on a workload of more
than :data:`LARGE_WORKLOAD` jobs. Every smaller workload (the Batsim
conformance workload has 801 jobs, KTH-SP2 28,481) is replayed exactly as
batsched does, as before; a larger one too as long as at most that depth
of jobs waits. The depth in force is the scheduler's ``applied_bf_depth``
after ``attach`` and the schedule's ``info["bf_depth"]``;
``bf_depth="all"`` asks for no limit on any workload (batsched's
behaviour, however long it takes).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from ..errors import OptionError

__all__ = ["CONSERVATIVE_DEFAULT_DEPTH", "LARGE_WORKLOAD", "NO_DEPTH_LIMIT",
           "SLURM_DEFAULTS", "BackfillLimits", "applied_depth", "check_limits"]

SLURM_DEFAULTS = {"bf_depth": 50, "bf_interval": 30.0}
"""Seed 002's Slurm backfill settings (``bf_interval=30,max_job_bf=50``,
ScSF's ``slurm.conf`` for Edison; P-IV §4.1)."""


CONSERVATIVE_DEFAULT_DEPTH = SLURM_DEFAULTS["bf_depth"]
"""The depth conservative backfilling uses without ``bf_depth`` on a
workload of more than :data:`LARGE_WORKLOAD` jobs (module docstring)."""

LARGE_WORKLOAD = 50_000
"""Workloads of more jobs than this get the schedulers' default depth."""

NO_DEPTH_LIMIT = "all"
"""``bf_depth`` asking for no depth limit on any workload."""


def check_limits(bf_depth: object, bf_interval: object
                 ) -> tuple[int | str | None, float]:
    """``(depth, interval)`` checked; the depth is an integer, ``None`` (not
    given: the scheduler's default) or :data:`NO_DEPTH_LIMIT`.

    Raises
    ------
    OptionError
        ``bf_depth`` is not ``None``, ``"all"`` or an integer >= 1, or
        ``bf_interval`` is not a finite number >= 0.
    """
    if bf_depth is not None and bf_depth != NO_DEPTH_LIMIT and (
            isinstance(bf_depth, bool) or not isinstance(bf_depth, int)
            or bf_depth < 1):
        raise OptionError(f"bf_depth={bf_depth!r} must be an integer >= 1, "
                          f"{NO_DEPTH_LIMIT!r} (no limit) or None (the default)")
    if isinstance(bf_interval, bool) or not isinstance(bf_interval, (int, float)) \
            or not math.isfinite(bf_interval) or bf_interval < 0:
        raise OptionError(f"bf_interval={bf_interval!r} must be a finite number "
                          ">= 0 (seconds)")
    return bf_depth, float(bf_interval)


def applied_depth(bf_depth: int | str | None, default: int | None, jobs: int,
                  large: int = LARGE_WORKLOAD) -> int | None:
    """The depth in force (``None``: no limit) for a requested ``bf_depth``
    (:func:`check_limits`) on a workload of ``jobs`` jobs: the scheduler's
    ``default`` depth (``None``: none) applies to workloads of more than
    ``large`` jobs."""
    if bf_depth == NO_DEPTH_LIMIT:
        return None
    if bf_depth is None:
        return default if jobs > large else None
    return int(bf_depth)


class BackfillLimits:
    """The depth and interval state of one scheduler (module docstring)."""

    def __init__(self, bf_depth: int | None, bf_interval: float) -> None:
        # the compiled kernel's constants, imported here so that the CLI can
        # read this module's defaults (``--help``) without loading numba
        from . import backfill_kernel as bk

        self._event, self._sweep, self._fifo = bk.EVENT, bk.SWEEP, bk.FIFO
        self.depth = bk.UNLIMITED_DEPTH if bf_depth is None else int(bf_depth)
        self.interval = float(bf_interval)
        self.next_bf = -math.inf
        self.last_full = False

    def mode(self, now: float) -> int:
        """The mode of the pass at ``now`` (moves ``next_bf`` on a backfill
        pass)."""
        if self.interval <= 0:
            return self._event
        if now >= self.next_bf:
            self.next_bf = now + self.interval
            self.last_full = True
            return self._sweep
        self.last_full = False
        return self._fifo

    def lanes(self, mode: int, active: Iterable[int],
              queues: Sequence[dict[int, None]]) -> list[int]:
        """The lanes to pass: those where something happened, and on a
        backfill pass every lane with waiting jobs."""
        out = list(active)
        if mode == self._sweep:
            seen = set(out)
            out += [k for k, queue in enumerate(queues) if queue and k not in seen]
        return out

    def next_wakeup(self, now: float, waiting: bool, running: bool) -> float:
        """``next_bf`` while jobs wait and something may still change."""
        if self.interval <= 0 or not waiting or not (running or not self.last_full):
            return math.inf
        return self.next_bf
