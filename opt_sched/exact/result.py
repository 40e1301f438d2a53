"""What the exact layer returns: a backend's raw :class:`Outcome`, and the
certified :class:`Result` that :func:`opt_sched.solve` builds from it
(:mod:`opt_sched.exact.certify`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from ..objectives import relative_gap
from ..schedule import Schedule

__all__ = ["Outcome", "Result", "SolveStatus", "relative_gap"]


class SolveStatus(str, Enum):
    """What the solve proved.

    - ``OPTIMAL``: the validated objective meets the proven lower bound
      (within :data:`opt_sched.objectives.RTOL`).
    - ``FEASIBLE``: a schedule was found; ``lower_bound`` is proven.
    - ``INFEASIBLE``: the problem has no solution on this instance.
    - ``TIMEOUT_NO_SOLUTION``: the limit was hit before any schedule.
    """

    OPTIMAL = "optimal"
    FEASIBLE = "feasible"
    INFEASIBLE = "infeasible"
    TIMEOUT_NO_SOLUTION = "timeout-no-solution"

    def __str__(self) -> str:
        return self.value


@dataclass
class Outcome:
    """A backend's raw answer, before certification.

    ``status`` is the backend's own claim (``OPTIMAL`` when its model proved
    optimality, ``INFEASIBLE`` when its model has no solution, ...);
    ``schedule`` its schedule on the continuous instance, not yet validated;
    ``bound`` a lower bound it proved, already valid for the continuous
    problem (``None`` if none); ``info`` whatever it wants to report.
    """

    status: SolveStatus
    schedule: Schedule | None = None
    bound: float | None = None
    info: dict[str, Any] = field(default_factory=dict)


@dataclass
class Result:
    """What :func:`opt_sched.solve` returns.

    ``objective`` is recomputed from the validated schedule on the continuous
    instance, never read from the solver. ``lower_bound`` is a proven lower
    bound on the optimum of the problem (the best of the solver's bound and
    the combinatorial bounds of :mod:`opt_sched.bounds`). ``wall_time``
    counts everything from the call to the return (model building and
    certification included); ``info["overrun"]`` is the time beyond the
    limit.
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
        """``(objective - lower_bound) / lower_bound``
        (:func:`opt_sched.objectives.relative_gap`)."""
        return relative_gap(self.objective, self.lower_bound)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary (no schedule)."""
        return {"status": str(self.status), "objective": self.objective,
                "lower_bound": self.lower_bound, "gap": self.gap,
                "wall_time": self.wall_time, "problem": self.problem,
                "objective_name": self.objective_name, "solver": self.solver,
                **{k: v for k, v in self.info.items()
                   if isinstance(v, (str, int, float, bool)) or v is None}}
