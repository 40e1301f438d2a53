"""``solve()``: the single entry point of the exact layer.

Every backend returns a schedule and a bound; this module certifies them
the same way for all: the schedule goes through the validator
(:func:`opt_sched.validation.assert_feasible`, a rejection is a bug and is
raised), the objective is recomputed from it on the continuous instance, the
lower bound is the best of the backend's (already converted to continuous
time) and the combinatorial bounds of :mod:`opt_sched.bounds`, and the status
is ``optimal`` only when the validated objective is within
:data:`OPTIMAL_RTOL` of that bound.
"""

from __future__ import annotations

import importlib
import inspect
import math
from typing import Any

from ..errors import OptionError, SolverError
from ..instance import Instance
from .result import Result, SolveStatus

__all__ = ["OBJECTIVES", "OPTIMAL_RTOL", "PROBLEMS", "SOLVERS", "solve"]

PROBLEMS = ("io-sched", "hpc-io", "packs", "planning")
OBJECTIVES = ("makespan", "max-stretch")
SOLVERS = ("cpsat", "cbc", "highs")

OPTIMAL_RTOL = 1e-6
"""``optimal`` iff ``objective <= lower_bound * (1 + OPTIMAL_RTOL) + 1e-12``."""

_CPSAT_OPTIONS = ("hints", "params", "subsolvers", "log", "stretch_scale", "search",
                  "symmetry", "warm", "redundant", "max_packs", "sensibility",
                  "lower_bounding", "ladder_share")


def _check_choice(name: str, value: object, valid: tuple[str, ...]) -> str:
    if value not in valid:
        raise OptionError(f"{name}={value!r} is not one of {', '.join(valid)}")
    return str(value)


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
        ``"hpc-io"`` (map and schedule, rules 1-5), ``"packs"`` (rules 1-6)
        or ``"planning"`` (average-bandwidth model, delegated to
        :mod:`opt_sched.exact.planning`).
    objective
        ``"makespan"`` or ``"max-stretch"``.
    solver
        ``"cpsat"`` (OR-Tools CP-SAT), or ``"cbc"`` / ``"highs"`` (MILP
        models of :mod:`opt_sched.exact.milp`, through PuLP).
    time_limit, seed, num_workers
        Solver wall-clock limit (s), random seed, worker threads.
    resolution
        Time units per integer tick of the CP-SAT models (default: chosen
        from the data, exact when the data lie on a grid; see
        ``models/io-sched-cpsat.md``).
    export
        Write the model: ``.pb``/``.pbtxt`` for CP-SAT, ``.lp``/``.mps`` for
        the MILP solvers.
    **options
        CP-SAT: ``hints`` (bool), ``params`` (dict of CP-SAT parameters),
        ``subsolvers`` (list), ``log`` (bool), ``stretch_scale`` (int),
        ``symmetry`` (bool), ``warm`` (bool: heuristic warm starts),
        ``redundant`` (bool, hpc-io: global cumulatives), ``max_packs`` and
        ``sensibility`` (packs), ``lower_bounding`` (bool: the "objective
        <= T?" questions, on by default) and ``ladder_share`` (share of the
        time limit for the bound ladder, 0.15). MILP backends receive them
        unchanged.

    Returns
    -------
    Result
        Status, validated objective, proven lower bound, wall time, schedule.

    Raises
    ------
    OptionError
        Unknown problem, objective, solver or option, or an unsupported
        combination.
    InfeasibleScheduleError
        A backend returned a schedule the validator rejects (a bug).
    """
    from .cpsat.common import Stopwatch

    problem = _check_choice("problem", problem, PROBLEMS)
    objective = _check_choice("objective", objective, OBJECTIVES)
    solver = _check_choice("solver", solver, SOLVERS)
    if not isinstance(instance, Instance):
        raise OptionError(f"instance={type(instance).__name__} is not an Instance")
    clock = Stopwatch()
    if problem == "planning":
        result = _solve_planning(instance, objective, solver, time_limit, seed,
                                 num_workers, export,
                                 {**options, "resolution": resolution})
    elif solver == "cpsat":
        result = _solve_cpsat(instance, problem, objective, time_limit, seed,
                              num_workers, resolution, export, options)
    else:
        result = _solve_milp(instance, problem, objective, solver, time_limit, seed,
                             num_workers, export, options)
    return _certify(instance, result, clock())


# -- backends ---
def _solve_cpsat(instance: Instance, problem: str, objective: str, time_limit: float,
                 seed: int, num_workers: int, resolution: float | None,
                 export: str | None, options: dict[str, Any]) -> Result:
    from ..bounds import lower_bound
    from .cpsat.common import CpsatSettings

    unknown = sorted(set(options) - set(_CPSAT_OPTIONS))
    if unknown:
        raise OptionError(f"option {unknown[0]!r} is not a CP-SAT option (known: "
                          f"{', '.join(_CPSAT_OPTIONS)})")
    settings = CpsatSettings(
        time_limit=time_limit, seed=seed, num_workers=num_workers,
        hints=bool(options.get("hints", False)), params=options.get("params") or {},
        subsolvers=options.get("subsolvers"), log=bool(options.get("log", False)),
        search=options.get("search", "auto"),
        lower_bounding=bool(options.get("lower_bounding", True)),
        **({"ladder_share": options["ladder_share"]}
           if "ladder_share" in options else {}),
        **({"stretch_scale": options["stretch_scale"]}
           if "stretch_scale" in options else {}))
    model_options = {k: options[k] for k in ("symmetry", "warm", "redundant",
                                            "max_packs", "sensibility")
                     if k in options}
    if problem == "io-sched":
        from .cpsat.io_sched import one_pack_partitions, solve_io_sched

        one_pack_partitions(instance)  # OptionError before any work
        bound = lower_bound(instance, objective, fixed_start=True)
        for name in ("redundant", "max_packs", "sensibility"):
            if name in model_options:
                raise OptionError(f"option {name!r} does not apply to problem="
                                  "'io-sched'")
        outcome = solve_io_sched(instance, objective, settings, lower_bound=bound,
                                 resolution=resolution, export=export,
                                 **model_options)
    elif problem == "hpc-io":
        from .cpsat.hpc_io import solve_hpc_io

        bound = lower_bound(instance, objective, fixed_start=False)
        for name in ("max_packs", "sensibility"):
            if name in model_options:
                raise OptionError(f"option {name!r} does not apply to problem="
                                  "'hpc-io'")
        outcome = solve_hpc_io(instance, objective, settings, lower_bound=bound,
                               resolution=resolution, export=export, **model_options)
    else:
        from .cpsat.packs import solve_packs

        bound = lower_bound(instance, objective, fixed_start=False)
        if "redundant" in model_options:
            raise OptionError("option 'redundant' does not apply to problem='packs'")
        outcome = solve_packs(instance, objective, settings, lower_bound=bound,
                              resolution=resolution, export=export, **model_options)
    status = {"optimal": SolveStatus.OPTIMAL, "feasible": SolveStatus.FEASIBLE,
              "infeasible": SolveStatus.INFEASIBLE}.get(
        outcome.status, SolveStatus.TIMEOUT_NO_SOLUTION)
    info = dict(outcome.info)
    info["combinatorial_bound"] = bound
    return Result(status, None, outcome.lower_bound, outcome.wall_time,
                  outcome.schedule, problem, objective, "cpsat", info)


def _solve_milp(instance: Instance, problem: str, objective: str, solver: str,
                time_limit: float, seed: int, num_workers: int, export: str | None,
                options: dict[str, Any]) -> Result:
    """Delegate to ``opt_sched.exact.milp.solve_<problem>(instance, objective,
    backend, time_limit, ..., export=None) -> Result``."""
    try:
        milp = importlib.import_module("opt_sched.exact.milp")
    except ImportError as exc:
        raise SolverError(f"solver={solver!r}: the MILP models are unavailable "
                          f"({exc})") from None
    function = getattr(milp, "solve_" + problem.replace("-", "_"), None)
    if function is None:
        raise OptionError(f"problem={problem!r} has no MILP model (solver={solver!r});"
                          " use solver='cpsat'")
    extra = _accepted(function, {"seed": seed, "num_workers": num_workers,
                                 "export": export, **options})
    return function(instance, objective, solver, time_limit, **extra)


def _solve_planning(instance: Instance, objective: str, solver: str,
                    time_limit: float, seed: int, num_workers: int,
                    export: str | None, options: dict[str, Any]) -> Result:
    """Delegate to ``opt_sched.exact.planning.solve_planning``."""
    try:
        planning = importlib.import_module("opt_sched.exact.planning")
        function = planning.solve_planning
    except (ImportError, AttributeError) as exc:
        raise SolverError(f"problem='planning': the planning model is unavailable "
                          f"({exc})") from None
    return function(instance, objective, solver, time_limit, seed, num_workers,
                    export, **_accepted(function, options))


def _accepted(function: Any, options: dict[str, Any]) -> dict[str, Any]:
    """The ``options`` that ``function`` accepts; an unknown one that is set is
    an :class:`OptionError` (``None`` values are dropped silently)."""
    parameters = inspect.signature(function).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return options
    out = {}
    for name, value in options.items():
        if name in parameters:
            out[name] = value
        elif value is not None and name not in ("seed", "num_workers"):
            raise OptionError(f"option {name!r} is not supported by "
                              f"{function.__module__}.{function.__name__}")
    return out


# -- certification ---
def _objective_of(instance: Instance, schedule: Any, objective: str) -> float:
    if objective == "makespan":
        return float(schedule.makespan(instance))
    return float(schedule.max_stretch(instance))


def _certify(instance: Instance, result: Result, wall_time: float) -> Result:
    """Validate, recompute the objective, merge bounds, set the status.

    Raises
    ------
    InfeasibleScheduleError
        The validator rejects the schedule (a bug of the backend).
    SolverError
        A lower bound exceeds the validated objective (a bug of a bound).
    """
    from ..bounds import lower_bound
    from ..validation import assert_feasible

    info = dict(result.info)
    bound = result.lower_bound
    if result.problem != "planning" and result.status != SolveStatus.INFEASIBLE:
        fixed = result.problem == "io-sched"
        combinatorial = info.get("combinatorial_bound")
        if combinatorial is None:
            combinatorial = lower_bound(instance, result.objective_name,
                                        fixed_start=fixed)
            info["combinatorial_bound"] = combinatorial
        bound = combinatorial if bound is None else max(bound, combinatorial)
    status = result.status
    objective = None
    schedule = result.schedule
    if schedule is not None:
        assert_feasible(instance, schedule)
        objective = _objective_of(instance, schedule, result.objective_name)
        if bound is not None and math.isfinite(bound):
            slack = OPTIMAL_RTOL * abs(bound) + 1e-12
            if bound > objective + slack and result.problem != "planning":
                raise SolverError(f"{result.solver}/{result.problem}: lower bound "
                                  f"{bound!r} exceeds the validated objective "
                                  f"{objective!r} (a bound is wrong)")
            if objective <= bound + slack:
                status = SolveStatus.OPTIMAL
                bound = min(bound, objective)
            else:
                status = SolveStatus.FEASIBLE
        elif status == SolveStatus.OPTIMAL:
            status = SolveStatus.FEASIBLE
        if result.status != status:
            info["backend_status"] = str(result.status)
    elif status in (SolveStatus.OPTIMAL, SolveStatus.FEASIBLE):
        raise SolverError(f"{result.solver}/{result.problem}: status {status} "
                          "without a schedule")
    return Result(status, objective, bound, wall_time, schedule, result.problem,
                  result.objective_name, result.solver, info)
