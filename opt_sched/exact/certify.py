"""Certification: the one way a backend's answer becomes a :class:`Result`.

Every backend (CP-SAT, MILP, every problem) returns a raw
:class:`~opt_sched.exact.result.Outcome`. :func:`certify` judges it the same
way for all:

1. the schedule goes through the independent validator
   (:func:`opt_sched.validation.assert_feasible`; on a partly reserved
   platform, :class:`~opt_sched.exact.problems.ReservedPlatform`'s
   ``validate``, which checks it together with what holds the
   reservations); a rejection is a bug of the backend and is raised as
   :class:`~opt_sched.errors.InfeasibleScheduleError`;
2. the objective is recomputed from the validated schedule on the
   continuous instance (:func:`opt_sched.objectives.objective_value`);
3. the lower bound is the best of the backend's bound and the combinatorial
   bound of the problem (:func:`opt_sched.exact.problems.combinatorial_bound`);
4. value and bound are compared with the one tolerance of
   :mod:`opt_sched.objectives`: a bound above the value beyond it is a bug
   (:class:`~opt_sched.errors.BoundViolationError`); the status is
   ``optimal`` iff the value meets the bound, ``feasible`` otherwise.

A backend's own claim never makes a schedule optimal: it is kept as
``info["backend_status"]`` when it differs. Only ``infeasible`` is taken
from the backend (with no schedule: a model without solution).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ..errors import SolverError
from ..instance import Instance
from ..objectives import check_value_above_bound, meets_bound, objective_value
from .result import Outcome, Result, SolveStatus

if TYPE_CHECKING:
    from .problems import ReservedPlatform

__all__ = ["certify"]


def certify(instance: Instance, problem: str, objective: str, solver: str,
            outcome: Outcome, *, combinatorial: float | None,
            wall_time: float = 0.0,
            reserved: ReservedPlatform | None = None) -> Result:
    """Validate, recompute the objective, merge the bounds, set the status.

    Parameters
    ----------
    instance, problem, objective, solver
        What was solved, and by which backend.
    outcome
        The backend's raw answer.
    combinatorial
        The combinatorial lower bound of the problem (``None`` when it was
        not computed, e.g. for lack of time).
    wall_time
        Seconds so far (the caller updates it once certified).
    reserved
        The reserved platform of a problem posed on one
        (:data:`~opt_sched.exact.problems.RESERVED_PROBLEMS`): the schedule
        is validated by its ``validate``, with the reservations.

    Raises
    ------
    InfeasibleScheduleError
        The validator rejects the schedule (a bug of the backend).
    BoundViolationError
        A lower bound exceeds the validated objective (a bug of a bound).
    SolverError
        An inconsistent outcome: ``infeasible`` with a schedule, or
        ``optimal``/``feasible`` without one.
    """
    from ..validation import assert_feasible

    info = dict(outcome.info)
    info["combinatorial_bound"] = combinatorial
    where = f"{solver}/{problem}"
    if outcome.status is SolveStatus.INFEASIBLE:
        if outcome.schedule is not None:
            raise SolverError(f"{where}: status infeasible with a schedule")
        return Result(SolveStatus.INFEASIBLE, None, None, wall_time, None, problem,
                      objective, solver, info)
    bounds = [b for b in (outcome.bound, combinatorial)
              if b is not None and math.isfinite(b)]
    bound = max(bounds) if bounds else None
    schedule = outcome.schedule
    if schedule is None:
        if outcome.status in (SolveStatus.OPTIMAL, SolveStatus.FEASIBLE):
            raise SolverError(f"{where}: status {outcome.status} without a schedule")
        return Result(SolveStatus.TIMEOUT_NO_SOLUTION, None, bound, wall_time, None,
                      problem, objective, solver, info)
    if reserved is None:
        assert_feasible(instance, schedule)
    else:
        reserved.validate(schedule)
    value = objective_value(instance, schedule, objective)
    check_value_above_bound(value, bound, f"{where}: the validated objective")
    if meets_bound(value, bound):
        status = SolveStatus.OPTIMAL
        assert bound is not None
        bound = min(bound, value)
    else:
        status = SolveStatus.FEASIBLE
    if outcome.status is not status:
        info["backend_status"] = str(outcome.status)
    return Result(status, value, bound, wall_time, schedule, problem, objective,
                  solver, info)
