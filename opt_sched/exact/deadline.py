"""One clock for a whole solve: the time limit is a limit.

:func:`opt_sched.solve` starts a :class:`Deadline` when it is called. Every
phase draws on it -- the combinatorial bounds, the heuristic warm starts,
the model building, the solver's search phases, re-timing the answer -- and
a part of the limit is set aside for certifying the answer (validating the
schedule), estimated from the instance size (:func:`certification_reserve`).
A phase that finds the deadline passed raises :class:`OutOfTimeError`; the
backend then answers with what it has (its best heuristic schedule, or no
schedule), and the front door reports the overrun
(``Result.info["overrun"]``), warning with
:class:`~opt_sched.errors.TimeLimitWarning` beyond :func:`tolerated_overrun`.
"""

from __future__ import annotations

import math
import time

__all__ = [
    "Deadline",
    "OutOfTimeError",
    "Stopwatch",
    "certification_reserve",
    "certification_time",
    "tolerated_overrun",
]

SECONDS_PER_PHASE = 2e-6
"""Measured cost of certifying one phase (validation, objective), seconds."""


class OutOfTimeError(Exception):
    """A phase found its deadline passed (caught inside the exact layer; never
    reaches the caller)."""

    def __init__(self, phase: str) -> None:
        super().__init__(f"time limit reached during {phase}")
        self.phase = phase


class Stopwatch:
    """Wall-clock seconds since creation."""

    def __init__(self) -> None:
        self._t0 = time.perf_counter()

    def __call__(self) -> float:
        return time.perf_counter() - self._t0


class Deadline:
    """``time_limit`` seconds from now (or from ``start``, a
    :func:`time.perf_counter` value).

    Examples
    --------
    >>> deadline = Deadline(60.0)
    >>> 59.0 < deadline.remaining() <= 60.0
    True
    """

    def __init__(self, time_limit: float, start: float | None = None) -> None:
        self.time_limit = float(time_limit)
        self.start = time.perf_counter() if start is None else start
        self.end = self.start + self.time_limit

    def elapsed(self) -> float:
        """Seconds since the start."""
        return time.perf_counter() - self.start

    def remaining(self) -> float:
        """Seconds left (``>= 0``)."""
        return max(0.0, self.end - time.perf_counter())

    def expired(self) -> bool:
        """Whether the deadline has passed."""
        return time.perf_counter() >= self.end

    def check(self, phase: str) -> None:
        """Raise :class:`OutOfTimeError` naming ``phase`` if the deadline has
        passed."""
        if self.expired():
            raise OutOfTimeError(phase)

    def earlier(self, seconds: float) -> Deadline:
        """The same clock, ending ``seconds`` earlier (never before now)."""
        out = Deadline(self.time_limit, self.start)
        out.end = max(time.perf_counter(), self.end - max(0.0, seconds))
        return out


def certification_time(num_phases: int) -> float:
    """Estimated seconds to certify a schedule of ``num_phases`` phases
    (validation and objective): :data:`SECONDS_PER_PHASE` each, plus 50 ms."""
    return 0.05 + SECONDS_PER_PHASE * num_phases


def certification_reserve(num_phases: int, time_limit: float) -> float:
    """Seconds set aside for certifying the answer
    (:func:`certification_time`), at most half of the limit."""
    return min(0.5 * time_limit, certification_time(num_phases))


def tolerated_overrun(time_limit: float) -> float:
    """The overrun beyond which a :class:`TimeLimitWarning` is issued:
    ``0.1 * time_limit + 0.5`` seconds."""
    return 0.1 * time_limit + 0.5 if math.isfinite(time_limit) else math.inf
