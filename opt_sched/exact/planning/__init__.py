"""The average-bandwidth planning model (SPEC §5; ``models/planning.md``).

Jobs are boxes of length ``T_i`` using ``Q_i`` nodes, ``beta_i = V_i / T_i``
bandwidth and their named resources (``demands``), under dependencies and
releases: a multi-resource project scheduling problem (RCPSP). The plan is
solved by CP-SAT (:mod:`.cpsat`) or a time-indexed MILP (:mod:`.milp`) and
then *executed* under rules 1-5 by the simulator, whose schedule the validator
accepts; that executed schedule is what :func:`solve_planning` returns.

- :mod:`.model` -- the shared data (:class:`PlanningData`, ticks, serial SGS);
- :mod:`.cpsat` -- :class:`PlanningCpSat`;
- :mod:`.milp` -- :class:`PlanningMilp`;
- :func:`solve_planning` -- the entry point used by ``opt_sched.solve``;
- :func:`bench_psplib` -- the PSPLIB benchmark table.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ...errors import OptionError
from ...instance import Instance
from ..cpsat.common import check_param_names
from ..result import Result, SolveStatus
from .cpsat import CpSatOptions, PlanningCpSat, PlanSolution
from .milp import DEFAULT_MILP_HORIZON_TICKS, PlanningMilp
from .model import (
    DEFAULT_HORIZON_TICKS,
    DEFAULT_RESOURCE_PRECISION,
    PlanningData,
    TickData,
    sgs_upper_bound,
)

__all__ = [
    "CpSatOptions",
    "PlanningCpSat",
    "PlanningData",
    "PlanningMilp",
    "bench_psplib",
    "greedy_partitions",
    "solve_planning",
]

SOLVERS = ("cpsat", "cbc", "highs")
OPTIMAL_RTOL = 1e-6
"""The executed makespan is optimal iff it is within this of the bound."""


def solve_planning(instance: Instance, objective: str = "makespan",
                   solver: str = "cpsat", time_limit: float = 60.0, seed: int = 0,
                   num_workers: int = 2, export: str | None = None, *,
                   resolution: float | None = None,
                   resource_precision: float = DEFAULT_RESOURCE_PRECISION,
                   no_overlap: bool = True, hints: bool = False,
                   params: dict[str, Any] | None = None,
                   subsolvers: Sequence[str] | None = None, log: bool = False,
                   policy: str = "fifo") -> Result:
    """Plan with the average-bandwidth model, execute the plan, validate it.

    Parameters
    ----------
    instance
        Any instance; jobs may have dependencies, releases, ``demands``.
    objective
        Only ``"makespan"``: in the planning model every job runs exactly
        ``T_i``, so its stretch is 1 and ``"max-stretch"`` is meaningless
        (:class:`OptionError`).
    solver
        ``"cpsat"``, or ``"cbc"`` / ``"highs"`` (time-indexed MILP).
    time_limit, seed, num_workers
        Solver limit (s), seed, CP-SAT workers.
    export
        Write the model: ``.lp`` / ``.mps`` (the MILP, at the MILP
        resolution) or ``.pb`` / ``.pbtxt`` (the CP-SAT model).
    resolution
        Seconds per tick (default: 1 for integer data, else a power of ten
        giving about 1e5 ticks for CP-SAT and 1e3 for the MILP). The tick
        optimum exceeds the continuous one by at most ``(n + 1) * resolution``.
    resource_precision
        Non-integer resource amounts are rounded up in units of this fraction
        of the capacity (CP-SAT only; the MILP uses the real amounts).
    no_overlap, hints, params, subsolvers, log
        CP-SAT: redundant no-overlap cliques, serial-SGS solution hint,
        extra ``SatParameters``, subsolver list, search log.
    policy
        The I/O policy of the execution (simulator).

    Returns
    -------
    Result
        ``schedule``: the executed, validated schedule; ``objective``: its
        makespan; ``lower_bound``: a bound valid for the *executed* problem
        (rules 1-5 with the named resources), see ``models/planning.md``;
        ``info``: ``planned_makespan``, ``plan_status``, ``plan_bound`` (a
        bound of the planning model, when one is proven), ``plan_bound_valid``
        (whether it also bounds the executed problem), ``resolution``, ...
    """
    began = time.perf_counter()
    if objective != "makespan":
        raise OptionError(f"objective={objective!r}: the planning model supports "
                          "only 'makespan' (every planned job has stretch 1)")
    if solver not in SOLVERS:
        raise OptionError(f"solver={solver!r} is not one of {', '.join(SOLVERS)}")
    if (isinstance(time_limit, bool) or not isinstance(time_limit, (int, float))
            or not time_limit > 0):
        raise OptionError(f"time_limit={time_limit!r} must be a number > 0")
    data = PlanningData.from_instance(instance)
    target = DEFAULT_HORIZON_TICKS if solver == "cpsat" else DEFAULT_MILP_HORIZON_TICKS
    ticks = data.to_ticks(resolution, resource_precision, target)
    horizon, incumbent = sgs_upper_bound(ticks)
    tick_lb = ticks.resource_bound()
    extra = dict(params or {})
    check_param_names(extra)
    if subsolvers is not None:
        extra["subsolvers"] = list(subsolvers)
    options = CpSatOptions(time_limit=float(time_limit), seed=int(seed),
                           num_workers=int(num_workers), no_overlap=no_overlap,
                           hint=hints, log=log, extra=extra)
    if export is not None:
        _export(export, data, ticks, solver, resolution, resource_precision,
                options)

    if tick_lb >= horizon:  # the serial SGS plan meets the bound: optimal
        solution = PlanSolution("optimal", incumbent, horizon, horizon, 0.0,
                                {"plan_source": "sgs"})
    elif solver == "cpsat":
        solution = PlanningCpSat(ticks, horizon, tick_lb, incumbent, options).solve()
    else:
        solution = PlanningMilp(ticks, horizon, tick_lb, incumbent).solve(
            solver, float(time_limit), int(seed))
    if solution.starts is None:  # the solver found nothing: keep the SGS plan
        solution = dataclasses.replace(
            solution, starts=incumbent, objective=horizon,
            info={**solution.info, "plan_source": "sgs"})
    return _execute(instance, data, ticks, solution, solver, policy,
                    time.perf_counter() - began)


def _execute(instance: Instance, data: PlanningData, ticks: TickData,
             solution: PlanSolution, solver: str, policy: str,
             solve_time: float) -> Result:
    """Run the plan in the simulator, validate it, and set honest bounds."""
    from ...bounds import best_makespan_bound
    from ...simulation import StartsPlan, simulate
    from ...validation import assert_feasible

    began = time.perf_counter()
    assert solution.starts is not None
    delta = ticks.delta
    start = {job.id: delta * s for job, s in zip(instance.jobs, solution.starts)}
    partition = greedy_partitions(instance, data, start)
    schedule = simulate(instance, StartsPlan(start=start, partition=partition),
                        policy)
    schedule = dataclasses.replace(schedule, method=f"planning/{solver}")
    assert_feasible(instance, schedule)
    executed = schedule.makespan(instance)

    plan_bound = _plan_bound(ticks, solution)
    plan_bound_valid = plan_bound is not None and not data.bandwidth_binds()
    combinatorial, name = best_makespan_bound(instance)
    bounds = {name: combinatorial, "resource-energy": data.energy_bound()}
    if plan_bound_valid:
        bounds["plan"] = plan_bound  # type: ignore[assignment]
    best = max(bounds, key=bounds.__getitem__)
    lower = bounds[best]
    if executed <= lower * (1 + OPTIMAL_RTOL) + 1e-12:
        status = SolveStatus.OPTIMAL
        lower = min(lower, executed)
    else:
        status = SolveStatus.FEASIBLE
    info: dict[str, Any] = {
        "planned_makespan": ticks.plan_makespan(solution.starts),
        "plan_status": solution.status,
        "plan_bound": plan_bound,
        "plan_bound_valid": plan_bound_valid,
        "bound_source": best,
        "combinatorial_bound": combinatorial,
        "resolution": delta,
        "exact_time": ticks.exact_time,
        "exact_resources": ticks.exact_resources,
        "plan_solve_time": solution.wall_time,
        "execute_time": time.perf_counter() - began,
        **solution.info,
    }
    return Result(status, executed, lower, solve_time + info["execute_time"],
                  schedule, "planning", "makespan", solver, info)


def _plan_bound(ticks: TickData, solution: PlanSolution) -> float | None:
    """A proven lower bound of the continuous planning model, or ``None``.

    ``delta * L_tick`` when the tick model is exact; ``delta * (L_tick - n -
    1)`` when only time is rounded (see :mod:`.model`); ``None`` when resource
    amounts were rounded up (the tick model is then a restriction).
    """
    if solution.bound is None or not ticks.exact_resources:
        return None
    if ticks.exact_time:
        return ticks.delta * solution.bound
    return max(0.0, ticks.delta * (solution.bound - ticks.num_jobs - 1))


def greedy_partitions(instance: Instance, data: PlanningData,
                      start: dict[str, float]) -> dict[str, int]:
    """Map each job to a partition for the execution of a plan.

    Jobs are taken by planned start (ties by instance order). A pre-mapped job
    keeps its partition; any other goes to the first partition (by index)
    whose free nodes cover ``Q_i`` during its whole planned box
    ``[S_i, S_i + T_i)``, counting the jobs mapped before it; if none does
    (the plan used the *aggregate* node capacity), to the partition with the
    most free nodes at ``S_i`` (ties by index). The simulator then delays the
    job until its nodes are free.
    """
    platform = instance.platform
    if platform.num_partitions == 1:
        return {job.id: 0 for job in instance.jobs}
    boxes: list[list[tuple[float, float, int]]] = [[] for _ in platform.partitions]
    out: dict[str, int] = {}
    order = sorted(range(instance.num_jobs),
                   key=lambda i: (start[instance.jobs[i].id], i))
    for i in order:
        job = instance.jobs[i]
        s, e = start[job.id], start[job.id] + data.durations[i]
        if job.partition is not None:
            k = job.partition
        else:
            free = [_free_nodes(part.nodes, boxes[k], s, e)
                    for k, part in enumerate(platform.partitions)]
            fits = [k for k, f in enumerate(free) if f >= job.nodes]
            if fits:
                k = fits[0]
            else:
                at_start = [_free_nodes(part.nodes, boxes[k], s, math.nextafter(s, e))
                            for k, part in enumerate(platform.partitions)]
                k = max(range(len(at_start)), key=lambda c: (at_start[c], -c))
        boxes[k].append((s, e, job.nodes))
        out[job.id] = k
    return out


def _free_nodes(capacity: int, boxes: list[tuple[float, float, int]], s: float,
                e: float) -> int:
    """``capacity`` minus the peak use of ``boxes`` over ``[s, e)``."""
    inside = [(a, b, q) for a, b, q in boxes if a < e and s < b and q > 0]
    points = [s] + [a for a, _, _ in inside if a > s]
    peak = max((sum(q for a, b, q in inside if a <= p < b) for p in points),
               default=0)
    return capacity - peak


def _export(path: str, data: PlanningData, ticks: TickData, solver: str,
            resolution: float | None, resource_precision: float,
            options: CpSatOptions) -> None:
    suffix = Path(path).suffix.lower()
    horizon_ticks = None
    if suffix in (".lp", ".mps"):
        from ..milp.backend import export_model

        milp_ticks = ticks if solver != "cpsat" else data.to_ticks(
            resolution, resource_precision, DEFAULT_MILP_HORIZON_TICKS)
        horizon_ticks, incumbent = sgs_upper_bound(milp_ticks)
        model = PlanningMilp(milp_ticks, horizon_ticks,
                             milp_ticks.resource_bound(), incumbent)
        export_model(model.prob, path)
    elif suffix in (".pb", ".pbtxt"):
        cp_ticks = ticks if solver == "cpsat" else data.to_ticks(
            resolution, resource_precision, DEFAULT_HORIZON_TICKS)
        horizon_ticks, incumbent = sgs_upper_bound(cp_ticks)
        cp = PlanningCpSat(cp_ticks, horizon_ticks, cp_ticks.resource_bound(),
                           incumbent, options)
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        if not cp.model.export_to_file(str(path)):
            raise OptionError(f"export={path!r}: CP-SAT could not write the model")
    else:
        raise OptionError(f"export={path!r}: suffix {suffix or '(none)'!r} is not "
                          "one of .lp, .mps, .pb, .pbtxt")


def bench_psplib(directory: str | Path, time_limit: float = 10.0,
                 limit: int | None = None, workers: int = 2,
                 solver: str = "cpsat", progress: bool = False) -> Any:
    """Solve the PSPLIB ``.sm`` files of ``directory`` with the planning model.

    Parameters
    ----------
    directory
        A folder of ``.sm`` files, optionally with ``optimum.csv``.
    time_limit, workers, solver
        Per-instance solver limit (s), CP-SAT workers, backend.
    limit
        Solve only the first ``limit`` files (sorted by name).
    progress
        Print one line per instance.

    Returns
    -------
    pandas.DataFrame
        One row per instance: ``instance``, ``status`` (of the executed
        schedule), ``makespan``, ``lower_bound``, ``plan_status``,
        ``optimum`` (from ``optimum.csv``, NaN if unknown), ``proven``
        (status optimal), ``matches`` (makespan equals the known optimum),
        ``wall_time`` (s, planning + execution + validation) and
        ``solver_time`` (s, the plan solve alone).
    """
    import pandas as pd

    from ...workloads.psplib import load_optimum_csv, read_psplib

    directory = Path(directory)
    files = sorted(directory.glob("*.sm"), key=_natural_key)
    if limit is not None:
        files = files[:limit]
    csv_path = directory / "optimum.csv"
    optimum = load_optimum_csv(csv_path) if csv_path.is_file() else {}
    rows = []
    for count, path in enumerate(files, start=1):
        instance = read_psplib(path)
        result = solve_planning(instance, solver=solver, time_limit=time_limit,
                                num_workers=workers)
        best = optimum.get(instance.name, math.nan)
        rows.append({
            "instance": instance.name, "status": str(result.status),
            "makespan": result.objective, "lower_bound": result.lower_bound,
            "plan_status": result.info["plan_status"], "optimum": best,
            "proven": result.status == SolveStatus.OPTIMAL,
            "matches": (not math.isnan(best)
                        and abs(result.objective - best) <= 1e-9 * max(1, best)),
            "wall_time": result.wall_time,
            "solver_time": result.info["plan_solve_time"]})
        if progress:
            row = rows[-1]
            print(f"[{count}/{len(files)}] {row['instance']}: {row['status']} "
                  f"{row['makespan']:g} (lb {row['lower_bound']:g}, opt {best:g}) "
                  f"{row['wall_time']:.2f} s", flush=True)
    return pd.DataFrame(rows)


def _natural_key(path: Path) -> list[Any]:
    import re

    return [int(part) if part.isdigit() else part
            for part in re.split(r"(\d+)", path.stem)]
