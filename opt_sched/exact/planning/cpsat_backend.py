"""The exact backend ``planning`` / ``cpsat`` (:mod:`opt_sched.exact.registry`):
plan with :class:`~opt_sched.exact.planning.cpsat.PlanningCpsat`, execute
the plan and bound it (:func:`~opt_sched.exact.planning.plan.run_planning`).

The model (:mod:`.cpsat`) sits below :mod:`.plan`, which exports it; this
entry sits above both.
"""

from __future__ import annotations

from ...instance import Instance
from ..cpsat.settings import PlanningCpsatSettings
from ..deadline import Deadline
from ..result import Outcome
from ..warm import prepare as warm_prepare
from .cpsat import PlanningCpsat
from .data import DEFAULT_HORIZON_TICKS, PlanSolution, TickData
from .plan import run_planning

__all__ = ["OBJECTIVES", "OPTIONS", "prepare", "run"]

OPTIONS = PlanningCpsatSettings
"""The options record of this model (:mod:`opt_sched.exact.registry`)."""

OBJECTIVES = ("makespan",)
"""In the planning model every job runs exactly ``T_i``: its stretch is 1,
so only the makespan is planned."""


def run(instance: Instance, objective: str, options: PlanningCpsatSettings, *,
        lower_bound: float | None, deadline: Deadline) -> Outcome:
    """Plan with :class:`PlanningCpsat`, execute the plan (see
    :func:`opt_sched.exact.planning.plan.run_planning`)."""

    def solve_plan(ticks: TickData, horizon: int, lower: int,
                   incumbent: list[int]) -> PlanSolution:
        return PlanningCpsat(ticks, horizon, lower, incumbent, options).solve(deadline)

    return run_planning(instance, options, "cpsat", solve_plan,
                        horizon_ticks=DEFAULT_HORIZON_TICKS, lower_bound=lower_bound,
                        deadline=deadline)


def prepare(options: object) -> None:
    """One-time set-up before the time limit runs: the simulator's kernel
    (plan execution)."""
    warm_prepare()
