"""Objective values as deadlines, on a time grid.

On an exact grid every semi-active time is a whole number of ticks
(``models/bounds.md``), so a job's completion is ``C_j = c_j tick`` with an
integer ``c_j``. Then, for a value ``v``:

- makespan: ``max_j C_j <= v  <=>  c_j <= floor(v / tick)`` for all ``j``;
- max stretch (start ``t``): ``(C_j - t) / T_j <= v  <=>
  c_j <= floor((t + v T_j) / tick)``.

If no schedule meets the deadlines of ``v``, the optimum is at least the
smallest value a grid schedule can take above ``v``: ``(floor(v / tick) + 1)
tick`` for the makespan, ``min_j ((floor((t + v T_j)/tick) + 1) tick - t) /
T_j`` for the max stretch (:meth:`Targets.next_above`). "Strictly below
``U``" is ``c_j <= ceil(target / tick) - 1``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ....errors import OptionError
from .grid import NodeGrid

__all__ = ["Targets"]

_EPS = 1e-9


def _floor(x: float) -> int:
    near = round(x)
    return int(near) if abs(x - near) <= _EPS * max(1.0, abs(x)) else math.floor(x)


def _ceil(x: float) -> int:
    near = round(x)
    return int(near) if abs(x - near) <= _EPS * max(1.0, abs(x)) else math.ceil(x)


@dataclass(frozen=True)
class Targets:
    """Deadlines of objective values on one node's grid."""

    grid: NodeGrid
    objective: str

    def __post_init__(self) -> None:
        if self.objective not in ("makespan", "max-stretch"):
            raise OptionError(f"objective={self.objective!r} is not one of "
                              "makespan, max-stretch")

    def _limit(self, j: int, value: float) -> float:
        """``t + v T_j`` (stretch) or ``v`` (makespan), in ticks."""
        node = self.grid.node
        if self.objective == "makespan":
            return value / self.grid.tick
        length = node.lengths[j]
        if length <= 0:
            return math.inf
        return (node.start + value * length) / self.grid.tick

    def deadlines(self, value: float) -> list[int]:
        """``D_j``: completions (ticks) of the schedules of value ``<= value``."""
        big = self.grid.serial() * 4 + 1
        return [min(big, _floor(x)) if math.isfinite(x) else big
                for x in (self._limit(j, value) for j in range(self.grid.num_jobs))]

    def strictly_below(self, value: float) -> list[int]:
        """``D_j``: completions of the schedules of value ``< value``."""
        big = self.grid.serial() * 4 + 1
        return [min(big, _ceil(x) - 1) if math.isfinite(x) else big
                for x in (self._limit(j, value) for j in range(self.grid.num_jobs))]

    def next_above(self, value: float) -> float:
        """The smallest value above ``value`` that a grid schedule can have
        (a valid bound once ``value`` is refuted)."""
        tick = self.grid.tick
        if self.objective == "makespan":
            return (_floor(value / tick) + 1) * tick
        node = self.grid.node
        best = math.inf
        for j in range(self.grid.num_jobs):
            length = node.lengths[j]
            if length > 0:
                c = _floor((node.start + value * length) / tick) + 1
                best = min(best, (c * tick - node.start) / length)
        return best if math.isfinite(best) else value

    def snap(self, value: float) -> float:
        """The largest makespan grid value ``<= value`` (the value itself for
        the max stretch): a question at ``value`` asks the same as at
        ``snap(value)``."""
        if self.objective == "makespan":
            return _floor(value / self.grid.tick) * self.grid.tick
        return value

    def round_up(self, value: float) -> float:
        """The smallest value ``>= value`` that a grid schedule can have: a
        valid bound ``L`` (``OPT >= L``) may be raised to it, since the
        optimum is such a value."""
        tick = self.grid.tick
        if self.objective == "makespan":
            return _ceil(value / tick) * tick
        node = self.grid.node
        best = math.inf
        for j in range(self.grid.num_jobs):
            length = node.lengths[j]
            if length > 0:
                c = _ceil((node.start + value * length) / tick)
                best = min(best, (c * tick - node.start) / length)
        return max(value, best) if math.isfinite(best) else value
