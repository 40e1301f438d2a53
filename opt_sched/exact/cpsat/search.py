"""The one solve loop of every CP-SAT model: ladder, optimise, bisect.

Every CP-SAT model of opt_sched minimises one integer variable ``z``
(makespan or max stretch in ticks, the planned makespan in ticks) and knows a
proven lower bound ``L`` of it and, usually, a heuristic incumbent ``U``.
:func:`minimise` spends the time left on the :class:`Deadline` in three
phases (``models/io-sched-cpsat.md``, "Solve phases"; ``models/planning.md``):

1. the *bound ladder* (with ``lower_bounding``, at most ``ladder_share`` of
   the time): "is there a solution with ``z <= T``?" for ``T = L, L + step -
   1, ...`` while the answers are *infeasible*, each question capped at
   ``max(0.5 s, 2 %)`` of the time (:meth:`.ObjectiveProbe.ladder`);
2. *optimisation* with ``z >= L`` (the bound the ladder proved) until
   ``lower_bounding_start`` of the time (all of it without lower bounding;
   longer while there is no incumbent at all);
3. *bisection* between the proven bound and the incumbent with the time left
   (:meth:`.ObjectiveProbe.bisect`).

Every proof is an *infeasible* answer of CP-SAT on an integer objective, or
CP-SAT's own bound. Every solve call goes through
:func:`~opt_sched.exact.cpsat.interrupt.run_solver` (Ctrl-C stops it).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ...errors import SolverError
from ..deadline import Deadline, Stopwatch
from ..progress import report
from .interrupt import run_solver
from .probing import BoundSearch, ObjectiveProbe
from .settings import CpsatSettings

__all__ = ["PROBE_PARAMS", "Search", "minimise"]

PROBE_PARAMS = {"use_strong_propagation_in_disjunctive": True}
"""Parameters of every "``z <= T``?" question: the deadline gives every task
a latest end, and strong disjunctive propagation uses those windows."""

SolverFactory = Callable[[float, Mapping[str, Any]], Any]
"""``(time_limit, phase_params) -> CpSolver``."""

Values = Callable[[BoundSearch], Mapping[str, float]]
"""The model's integer bound and incumbent in the objective's units, for
the progress reports: ``{"bound": ..., "incumbent": ...}`` (either may be
missing)."""


@dataclass
class Search:
    """What :func:`minimise` found: the bound search (proven bound, incumbent
    and the solver holding it, ``None`` for the caller's own incumbent), the
    solver of the optimisation phase (for its statistics), and ``info``."""

    bounds: BoundSearch
    solver: Any = None
    info: dict[str, Any] = field(default_factory=dict)


def minimise(model: Any, objective: Any, settings: CpsatSettings,
             deadline: Deadline, make_solver: SolverFactory, *, lower: int,
             incumbent: int | None = None, ladder_params: Mapping[str, Any]
             | None = None, values: Values | None = None) -> Search:
    """Run the three phases on ``model`` (module doc).

    Parameters
    ----------
    model, objective
        The ``CpModel`` and the integer variable it minimises. The domain of
        ``objective`` must start at ``lower``.
    settings
        Phase switches and shares (:class:`CpsatSettings`).
    deadline
        The time left for the whole search.
    make_solver
        A configured ``CpSolver`` for a time limit and phase parameters.
    lower
        A proven lower bound of ``objective``.
    incumbent
        The value of the caller's own solution (a heuristic), if any.
    ladder_params
        Extra parameters of the ladder's questions.
    values
        Converts the bound and the incumbent for the progress reports
        (:mod:`opt_sched.exact.progress`); without it the reports name the
        phases only.

    Returns
    -------
    Search
        ``bounds.infeasible`` when the model has no solution.

    Raises
    ------
    SolverError
        CP-SAT finds the model invalid.
    """
    total = deadline.remaining()
    clock = Stopwatch()
    bounds = BoundSearch(lower=lower)
    if incumbent is not None:
        bounds.offer(incumbent, None)
    step = max(1, math.floor(settings.ladder_step * bounds.lower))

    def tell(phase: str | None = None) -> None:
        report(phase, **(dict(values(bounds)) if values is not None else {}))

    probe = None
    if settings.lower_bounding:
        probe = ObjectiveProbe(model, objective.index, make_solver, PROBE_PARAMS)
        probe.on_answer = lambda _: tell()
        tell("cpsat: bound ladder")
        probe.ladder(bounds, settings.ladder_share * total,
                     probe_limit=max(0.5, 0.02 * total), step=step,
                     params=ladder_params, growth=settings.ladder_growth)
    search = Search(bounds, bounds.solver)
    if not bounds.closed:
        tell("cpsat: optimise")
        _optimise(model, objective, settings, make_solver, search, total, clock)
        tell()
    if probe is not None and not bounds.closed and not bounds.infeasible \
            and bounds.upper is not None:
        tell("cpsat: bisect")
        probe.bisect(bounds, total - clock(), step=step,
                     growth=settings.ladder_growth,
                     first_share=settings.incumbent_question_share)
    if bounds.rounds:
        search.info.update(lower_bounding_rounds=bounds.rounds, probes=bounds.answers)
    return search


def _optimise(model: Any, objective: Any, settings: CpsatSettings,
              make_solver: SolverFactory, search: Search, total: float,
              clock: Stopwatch) -> None:
    """Phase 2: minimise with ``objective >= L`` (the bound the ladder
    proved); updates ``search`` with the incumbent and CP-SAT's bound."""
    from ortools.sat.python import cp_model

    bounds = search.bounds
    domain = model.proto.variables[objective.index].domain
    if bounds.lower > domain[0]:
        model.add(objective >= bounds.lower)
    share = settings.lower_bounding_start if settings.lower_bounding else 1.0
    solver = make_solver(max(0.05, total * share - clock()), {})
    status = run_solver(solver, model)
    if status == cp_model.UNKNOWN and settings.lower_bounding \
            and bounds.upper is None and total - clock() > 0.05:
        # no incumbent at all (not even the caller's): keep optimising
        solver = make_solver(total - clock(), {})
        status = run_solver(solver, model)
    search.solver = solver
    search.info.update(branches=solver.num_branches, conflicts=solver.num_conflicts)
    if status == cp_model.MODEL_INVALID:
        raise SolverError(f"CP-SAT: model invalid ({model.validate()})")
    if status == cp_model.INFEASIBLE:
        bounds.infeasible = True
    else:
        bounds.record(solver, status)
