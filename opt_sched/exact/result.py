"""The outcome of an exact solve: status, value, proven bound, schedule."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from ..schedule import Schedule

__all__ = ["Result", "SolveStatus", "relative_gap"]


class SolveStatus(str, Enum):
    """What the solver proved.

    - ``OPTIMAL``: the schedule is optimal (objective == lower bound, within
      the solver's tolerance and the time resolution, see the model docs).
    - ``FEASIBLE``: a schedule was found; ``lower_bound`` is proven.
    - ``INFEASIBLE``: the model has no solution.
    - ``TIMEOUT_NO_SOLUTION``: the limit was hit before any schedule.
    """

    OPTIMAL = "optimal"
    FEASIBLE = "feasible"
    INFEASIBLE = "infeasible"
    TIMEOUT_NO_SOLUTION = "timeout-no-solution"

    def __str__(self) -> str:
        return self.value


def relative_gap(value: float | None, bound: float | None) -> float | None:
    """SPEC §7: ``(x - L) / L``; ``None`` when either side is unknown."""
    if value is None or bound is None or bound <= 0:
        return None
    return max(0.0, (value - bound) / bound)


@dataclass
class Result:
    """What :func:`opt_sched.solve` returns.

    ``objective`` is recomputed from the validated schedule on the continuous
    instance, never read from the solver. ``lower_bound`` is a proven lower
    bound on the optimum of the problem (the best of the solver's bound and
    the combinatorial bounds of :mod:`opt_sched.bounds`).
    """

    status: SolveStatus
    objective: float | None
    lower_bound: float | None
    wall_time: float
    schedule: Schedule | None
    problem: str
    objective_name: str
    solver: str
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def gap(self) -> float | None:
        return relative_gap(self.objective, self.lower_bound)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary (no schedule)."""
        return {"status": str(self.status), "objective": self.objective,
                "lower_bound": self.lower_bound, "gap": self.gap,
                "wall_time": self.wall_time, "problem": self.problem,
                "objective_name": self.objective_name, "solver": self.solver,
                **{k: v for k, v in self.info.items()
                   if isinstance(v, (str, int, float, bool)) or v is None}}
