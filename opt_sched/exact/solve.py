"""``solve()``: the single entry point of the exact layer.

One path for every problem and backend:

1. the choices are checked and the model looked up in the registry
   (:mod:`opt_sched.exact.registry`, keyed by problem and solver); its
   options record is built (an unknown option is a one-line
   :class:`~opt_sched.errors.OptionError`);
2. the problem's rules are checked on the instance
   (:mod:`opt_sched.exact.problems`); an instance on which the problem has no
   solution is answered ``infeasible`` by every backend alike;
3. one :class:`~opt_sched.exact.deadline.Deadline` runs from then on (the
   one-time set-up of the backend -- importing ortools or PuLP, loading the
   simulator's compiled kernel, probing HiGHS -- is not counted): the
   combinatorial bound (at most a quarter of the time), the backend's warm
   starts, model building and search phases all draw on it, and a reserve
   is kept for certification;
4. the backend's raw outcome is certified (:func:`~.certify.certify`: the
   validator, the objective recomputed, the bounds merged, one tolerance);
5. the wall time is reported with the overrun beyond the limit
   (``info["overrun"]``), and a :class:`~opt_sched.errors.TimeLimitWarning`
   beyond :func:`~.deadline.tolerated_overrun`.

Ctrl-C during a CP-SAT search stops the search within a fraction of a
second and raises ``KeyboardInterrupt``
(:mod:`opt_sched.exact.cpsat.interrupt`).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from ..errors import OptionError, TimeLimitWarning
from ..instance import Instance
from ..objectives import OBJECTIVES, RTOL, check_objective
from .certify import certify
from .deadline import (
    SECONDS_PER_PHASE,
    Deadline,
    OutOfTimeError,
    certification_reserve,
    tolerated_overrun,
)
from .problems import (
    ReservedPlatform,
    check_instance,
    combinatorial_bound,
    infeasibility,
)
from .progress import SETUP, report
from .registry import (
    AUTO,
    build_options,
    lookup,
    prepare,
    problems,
    resolve_solver,
    solvers,
)
from .result import Outcome, Result, SolveStatus

__all__ = ["OBJECTIVES", "OPTIMAL_RTOL", "PROBLEMS", "SOLVERS", "solve"]

PROBLEMS = problems()
"""The problems of the registered models (see :func:`.registry.problems`)."""

SOLVERS = solvers()
"""The solvers of the registered models (see :func:`.registry.solvers`)."""

BOUND_SHARE = 0.25
"""The combinatorial bounds may take at most this share of the time; the
cheap ones are always computed, the others skipped beyond it."""

OPTIMAL_RTOL = RTOL
"""``optimal`` iff ``objective <= lower_bound * (1 + OPTIMAL_RTOL) + 1e-12``
(:func:`opt_sched.objectives.meets_bound`)."""


def solve(instance: Instance, problem: str = "io-sched", objective: str = "makespan",
          solver: str = "cpsat", time_limit: float = 60.0, seed: int = 0,
          num_workers: int = 2, resolution: float | None = None,
          export: str | None = None, **options: Any) -> Result:
    """Solve ``problem`` on ``instance`` exactly, or with a proven bound.

    Parameters
    ----------
    instance
        The instance.
    problem
        ``"io-sched"`` (mapped jobs, one pack per partition: order the I/O),
        ``"hpc-io"`` (map and schedule, rules 1-5), ``"packs"`` (rules 1-6),
        ``"planning"`` (the average-bandwidth model, executed) or
        ``"hpc-io-reserved"`` (HPC-IO on a partly reserved partition, a
        window: its options record's ``reserved`` is passed to the problem's
        rules and to certification, which validates with it;
        :mod:`opt_sched.exact.hpc_io.reserved_backend`).
    objective
        ``"makespan"`` or ``"max-stretch"`` (the pack MILP and the planning
        models: makespan only).
    solver
        ``"cpsat"`` (OR-Tools CP-SAT), ``"cbc"`` / ``"highs"`` (the MILP
        models, through PuLP), ``"portfolio"`` / ``"lns"`` (IO-SCHED), or
        ``"auto"``: the strongest solver of the problem that supports the
        objective (:func:`.registry.resolve_solver`; IO-SCHED: the
        portfolio). ``Result.solver`` names the solver that ran, and
        ``info["requested_solver"]`` is ``"auto"`` when it was chosen so.
    time_limit
        Wall-clock seconds for the whole solve: bounds, warm starts, model
        building, search and certification (not the one-time set-up of the
        backend: imports, the simulator's compiled kernel).
    seed, num_workers
        Random seed, CP-SAT worker threads.
    resolution
        Time units per integer tick (CP-SAT models, planning MILP; default:
        chosen from the data, exact when the data lie on a grid; see
        ``models/io-sched-cpsat.md``).
    export
        Write the model: ``.pb``/``.pbtxt`` for CP-SAT, ``.lp``/``.mps`` for
        the MILP solvers (planning: any of the four).
    **options
        The fields of the model's options record: for CP-SAT
        :class:`~opt_sched.exact.cpsat.settings.CpsatSettings` (``hints``,
        ``params``, ``subsolvers``, ``log``, ``lower_bounding``,
        ``ladder_share``, ...) and its extension per model (``symmetry``,
        ``warm``, ``stretch_scale``, ``search``; ``redundant`` for hpc-io;
        ``max_packs``, ``sensibility`` for packs; ``resource_precision``,
        ``no_overlap``, ``policy`` for planning; ``reserved``, ``incumbent``,
        ``known_bound``, ``search_share`` for hpc-io-reserved); for the MILP models
        :class:`~opt_sched.exact.milp.backend.MilpSettings` (``gap_rel``,
        ``threads``, ``warm_start``, ``presolve``, ``msg``) and its extension
        (``max_phases``, ``stop_at_bound``; ``io_nodes``, ``sensibility``,
        ``policy``).

    Returns
    -------
    Result
        Status, validated objective, proven lower bound, wall time (all of
        it), schedule; ``info["overrun"]`` the seconds beyond the limit.

    Raises
    ------
    OptionError
        Unknown problem, objective, solver or option, an unsupported
        combination, or an instance that does not pose the problem.
    InfeasibleScheduleError, BoundViolationError, SolverError
        A backend answered something wrong (a bug).
    KeyboardInterrupt
        Ctrl-C; a CP-SAT search in progress is stopped first.
    """
    if not isinstance(instance, Instance):
        raise OptionError(f"instance={type(instance).__name__} is not an Instance")
    check_objective(objective)
    requested = solver
    if solver == AUTO:
        solver = resolve_solver(problem, objective)
    model = lookup(problem, solver)
    backend = model.load()
    if objective not in backend.OBJECTIVES:
        raise OptionError(f"objective={objective!r} is not supported by "
                          f"{problem}/{solver} (supported: "
                          f"{', '.join(backend.OBJECTIVES)})")
    settings = build_options(
        backend.OPTIONS, f"{problem}/{solver}",
        {"time_limit": time_limit, "seed": seed, "num_workers": num_workers,
         "backend": solver, "resolution": resolution, "export": export}, options)
    reserved = getattr(settings, "reserved", None)  # a partly reserved platform
    check_instance(instance, problem, reserved)
    report(SETUP)
    prepare(backend, settings)
    deadline = Deadline(time_limit)
    outcome, combinatorial = _answer(instance, problem, objective, backend,
                                     settings, deadline, reserved)
    report("certify")
    result = certify(instance, problem, objective, solver, outcome,
                     combinatorial=combinatorial, reserved=reserved)
    if requested != solver:
        result.info["requested_solver"] = requested
    return _timed(result, deadline)


def _answer(instance: Instance, problem: str, objective: str, backend: Any,
            settings: Any, deadline: Deadline,
            reserved: ReservedPlatform | None = None
            ) -> tuple[Outcome, float | None]:
    """The backend's raw answer and the combinatorial bound, within
    ``deadline`` minus the certification reserve."""
    reason = infeasibility(instance, problem)
    if reason is not None:
        return Outcome(SolveStatus.INFEASIBLE, info={"reason": reason}), None
    phases = instance.num_io_phases
    limit = deadline.time_limit
    inner = deadline.earlier(certification_reserve(phases, limit))
    report(restart=True)
    report("bounds")
    combinatorial = combinatorial_bound(
        instance, problem, objective,
        expired=Deadline(BOUND_SHARE * inner.remaining()).expired,
        reserved=reserved)
    report("search", bound=combinatorial)
    if SECONDS_PER_PHASE * phases > limit:
        # no schedule of this size can be validated within the limit
        return Outcome(SolveStatus.TIMEOUT_NO_SOLUTION, info={
            "stopped": f"certifying a schedule of {phases} phases takes about "
                       f"{SECONDS_PER_PHASE * phases:.3g} s, more than "
                       f"time_limit={limit:g}"}), combinatorial
    try:
        outcome = backend.run(instance, objective, settings,
                              lower_bound=combinatorial, deadline=inner)
    except OutOfTimeError as exc:
        outcome = Outcome(SolveStatus.TIMEOUT_NO_SOLUTION, info={"stopped": str(exc)})
    return outcome, combinatorial


def _timed(result: Result, deadline: Deadline) -> Result:
    """Set the wall time and the overrun; warn beyond the tolerated one."""
    wall = deadline.elapsed()
    overrun = max(0.0, wall - deadline.time_limit)
    result.wall_time = wall
    result.info["time_limit"] = deadline.time_limit
    result.info["overrun"] = overrun
    if overrun > tolerated_overrun(deadline.time_limit) and math.isfinite(overrun):
        warnings.warn(TimeLimitWarning(
            f"{result.solver}/{result.problem}: {wall:.2f} s for "
            f"time_limit={deadline.time_limit:g} s (overrun {overrun:.2f} s)"),
            stacklevel=3)
    return result
