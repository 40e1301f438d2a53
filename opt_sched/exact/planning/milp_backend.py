"""The exact backends ``planning`` / ``cbc`` and ``highs``
(:mod:`opt_sched.exact.registry`): plan with
:class:`~opt_sched.exact.planning.milp.PlanningMilp`, execute the plan and
bound it (:func:`~opt_sched.exact.planning.plan.run_planning`).

The model (:mod:`.milp`) sits below :mod:`.plan`, which exports it; this
entry sits above both.
"""

from __future__ import annotations

from ...instance import Instance
from ..deadline import Deadline
from ..milp.backend import MilpSettings
from ..milp.backend import prepare as milp_prepare
from ..result import Outcome
from ..warm import prepare as warm_prepare
from .data import PlanSolution, TickData
from .milp import DEFAULT_MILP_HORIZON_TICKS, PlanningMilp, PlanningMilpSettings
from .plan import run_planning

__all__ = ["OBJECTIVES", "OPTIONS", "prepare", "run"]

OPTIONS = PlanningMilpSettings
"""The options record of this model (:mod:`opt_sched.exact.registry`)."""

OBJECTIVES = ("makespan",)
"""Every planned job has stretch 1: only the makespan is planned."""


def run(instance: Instance, objective: str, options: PlanningMilpSettings, *,
        lower_bound: float | None, deadline: Deadline) -> Outcome:
    """Plan with :class:`PlanningMilp`, execute the plan (see
    :func:`opt_sched.exact.planning.plan.run_planning`)."""

    def solve_plan(ticks: TickData, horizon: int, lower: int,
                   incumbent: list[int]) -> PlanSolution:
        return PlanningMilp(ticks, horizon, lower, incumbent).solve(options, deadline)

    return run_planning(instance, options, options.backend, solve_plan,
                        horizon_ticks=DEFAULT_MILP_HORIZON_TICKS,
                        lower_bound=lower_bound, deadline=deadline)


def prepare(options: MilpSettings) -> None:
    """One-time set-up before the time limit runs: PuLP, HiGHS' mode, the
    simulator's kernel."""
    milp_prepare(options.backend)
    warm_prepare()
