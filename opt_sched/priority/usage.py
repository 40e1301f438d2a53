r"""Measured usage with exponential decay (Slurm's ``PriorityDecayHalfLife``).

Usage is node-seconds (one machine for one second), charged while a job
runs and weighted by its age: with half-life ``H`` a node-second consumed at
time ``tau`` counts ``2^{-(now - tau)/H}`` at ``now``. A job holding ``Q``
machines over ``[a, b)`` (``b = now`` while it runs) therefore contributes

.. math:: Q \int_a^{b} 2^{-(now - \tau)/H} d\tau
          = Q \frac{H}{\ln 2}\left(2^{-(now - b)/H} - 2^{-(now - a)/H}\right),

exactly (no periodic sampling as in Slurm's ``PriorityCalcPeriod``). The
default half-life is 14 days (seed 002's ScSF Slurm configuration,
``PriorityDecayHalfLife=14-00:00:00``); ``H = inf`` means no decay (plain
node-seconds). Only what a real scheduler knows is used: start times of
running jobs and the end times of finished ones.

Implementation: per key, ``done = sum Q H/ln2 2^{(b - T0)/H} - ...`` and,
for running jobs, ``sum Q`` and ``sum Q 2^{(a - T0)/H}``, all relative to a
reference time ``T0`` that moves forward (rebasing) before the powers grow
past ``2^{512}``.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Hashable

from ..errors import OptionError

__all__ = ["DEFAULT_HALF_LIFE", "DecayedUsage"]

DEFAULT_HALF_LIFE = 14 * 86400.0
"""14 days, in seconds."""

_REBASE_EXPONENT = 512.0


class DecayedUsage:
    """Decayed node-seconds per key (a user); see the module docstring."""

    def __init__(self, half_life: float = DEFAULT_HALF_LIFE) -> None:
        if isinstance(half_life, bool) or not isinstance(half_life, (int, float)) \
                or math.isnan(half_life) or not half_life > 0:
            raise OptionError(f"half_life={half_life!r} must be a number > 0 "
                              f"(seconds; inf for no decay)")
        self.half_life = float(half_life)
        self._decay = math.isfinite(self.half_life)
        self._ref = 0.0
        self._done: dict[Hashable, float] = defaultdict(float)
        self._run_nodes: dict[Hashable, float] = defaultdict(float)
        self._run_weight: dict[Hashable, float] = defaultdict(float)
        self._running: dict[int, tuple[Hashable, float, float]] = {}

    # -- events ----------------------------------------------------------------
    def start(self, now: float, job: int, key: Hashable, nodes: float) -> None:
        """``job`` of ``key`` started at ``now`` on ``nodes`` machines
        (ignored if it is already running: hooks may be called twice)."""
        if job in self._running:
            return
        self._rebase(now)
        self._running[job] = (key, float(nodes), now)
        self._run_nodes[key] += nodes
        self._run_weight[key] += nodes * self._power(now)

    def end(self, now: float, job: int) -> None:
        """``job`` ended at ``now`` (ignored if it was never started)."""
        entry = self._running.pop(job, None)
        if entry is None:
            return
        self._rebase(now)
        key, nodes, start = entry
        self._run_nodes[key] -= nodes
        self._run_weight[key] -= nodes * self._power(start)
        if not self._running:
            self._run_nodes.clear()
            self._run_weight.clear()
        self._done[key] += nodes * self._integral(start, now)

    # -- queries ---------------------------------------------------------------
    def value(self, key: Hashable, now: float) -> float:
        """The decayed usage of ``key`` at ``now`` (running jobs included)."""
        self._rebase(now)
        if not self._decay:
            nodes = self._run_nodes.get(key, 0.0)
            return self._done.get(key, 0.0) + nodes * now - self._run_weight.get(
                key, 0.0)
        scale = self.half_life / math.log(2.0)
        running = scale * (self._run_nodes.get(key, 0.0) * self._power(now)
                           - self._run_weight.get(key, 0.0))
        return (self._done.get(key, 0.0) + running) / self._power(now)

    def values(self, now: float) -> dict[Hashable, float]:
        """The usage of every key seen so far at ``now``."""
        keys = set(self._done) | set(self._run_nodes)
        return {key: max(0.0, self.value(key, now)) for key in keys}

    # -- internals ---------------------------------------------------------------
    def _power(self, time: float) -> float:
        """``2^{(time - T0)/H}``; without decay, ``time`` itself (so the
        same bookkeeping integrates plain node-seconds)."""
        if not self._decay:
            return time
        return math.exp2((time - self._ref) / self.half_life)

    def _integral(self, start: float, end: float) -> float:
        if not self._decay:
            return end - start
        scale = self.half_life / math.log(2.0)
        return scale * (self._power(end) - self._power(start))

    def _rebase(self, now: float) -> None:
        if not self._decay or (now - self._ref) / self.half_life < _REBASE_EXPONENT:
            return
        factor = math.exp2(-(now - self._ref) / self.half_life)
        for key in self._done:
            self._done[key] *= factor
        for key in self._run_weight:
            self._run_weight[key] *= factor
        self._ref = now
