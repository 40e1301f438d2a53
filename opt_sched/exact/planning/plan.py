"""From an instance to a solved plan, and from the plan to an executed
schedule with honest bounds: what the CP-SAT and the MILP planning backends
share (``models/planning.md``).

:func:`run_planning` builds the tick data (:mod:`.data`), takes the serial
SGS plan (:mod:`opt_sched.heuristics.serial_sgs`) as horizon and first
incumbent, lets the backend solve the plan, *executes* it under rules 1-5 by
the simulator (:func:`execute_plan`) and returns the executed schedule with
a bound valid for the executed problem: the resource-energy bound of the
hard resources, and the plan's proven bound when the average bandwidth can
never bind (the plan is then a relaxation). The front door adds the
combinatorial bound and certifies the schedule.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ...errors import OptionError, SolverError
from ...instance import Instance
from ...schedule import Schedule
from ..deadline import Deadline, Stopwatch
from ..result import Outcome, SolveStatus
from .data import PlanningData, PlanSolution, TickData, sgs_upper_bound

__all__ = ["PlanSolution", "execute_plan", "greedy_partitions", "run_planning"]


PlanSolver = Callable[[TickData, int, int, list[int]], PlanSolution]
"""``(ticks, horizon H, lower bound L, incumbent) -> PlanSolution``."""


def run_planning(instance: Instance, options: Any, solver: str,
                 solve_plan: PlanSolver, *, horizon_ticks: int,
                 lower_bound: float | None, deadline: Deadline) -> Outcome:
    """Plan, execute, bound (module doc).

    ``options`` is the backend's options record (``resolution``,
    ``resource_precision``, ``export``, ``policy``); ``horizon_ticks`` the
    backend's default time resolution target; ``lower_bound`` the
    combinatorial bound (only used to name the best bound).
    """
    clock = Stopwatch()
    data = PlanningData.from_instance(instance)
    ticks = data.to_ticks(options.resolution, options.resource_precision,
                          horizon_ticks)
    horizon, incumbent = sgs_upper_bound(ticks)
    tick_lb = ticks.resource_bound()
    if options.export is not None:
        export_plan_model(options.export, data, ticks, solver, options)
    deadline.check("the planning data")
    if tick_lb >= horizon:  # the serial SGS plan meets the bound: optimal
        solution = PlanSolution("optimal", incumbent, horizon, horizon, 0.0,
                                {"plan_source": "sgs"})
    else:
        solution = solve_plan(ticks, horizon, tick_lb, incumbent)
    if solution.starts is None:  # the solver found nothing: keep the SGS plan
        solution = dataclasses.replace(
            solution, starts=incumbent, objective=horizon,
            info={**solution.info, "plan_source": "sgs"})
    plan_time = clock()
    assert solution.starts is not None
    schedule = execute_plan(instance, data, ticks, solution.starts, options.policy,
                            method=f"planning/{solver}")
    plan_bound = _plan_bound(ticks, solution)
    plan_bound_valid = plan_bound is not None and not data.bandwidth_binds()
    bounds = {"resource-energy": data.energy_bound()}
    if plan_bound_valid:
        assert plan_bound is not None
        bounds["plan"] = plan_bound
    bound = max(bounds.values())
    source = max(bounds, key=bounds.__getitem__)
    if lower_bound is not None and lower_bound >= bound:
        source = "combinatorial"
    info: dict[str, Any] = {
        "planned_makespan": ticks.plan_makespan(solution.starts),
        "plan_status": solution.status,
        "plan_bound": plan_bound,
        "plan_bound_valid": plan_bound_valid,
        "bound_source": source,
        "resolution": ticks.delta,
        "exact_time": ticks.exact_time,
        "exact_resources": ticks.exact_resources,
        "plan_solve_time": solution.wall_time,
        "execute_time": clock() - plan_time,
        **solution.info,
    }
    # an optimal plan is not an optimal schedule: certification decides
    return Outcome(SolveStatus.FEASIBLE, schedule, bound, info)


def _plan_bound(ticks: TickData, solution: PlanSolution) -> float | None:
    """A proven lower bound of the continuous planning model, or ``None``.

    ``delta * L_tick`` when the tick model is exact; ``delta * (L_tick - n -
    1)`` when only time is rounded (see :mod:`.data`); ``None`` when resource
    amounts were rounded up (the tick model is then a restriction).
    """
    if solution.bound is None or not ticks.exact_resources:
        return None
    if ticks.exact_time:
        return ticks.delta * solution.bound
    return max(0.0, ticks.delta * (solution.bound - ticks.num_jobs - 1))


def execute_plan(instance: Instance, data: PlanningData, ticks: TickData,
                 starts: list[int], policy: str, method: str) -> Schedule:
    """Run the tick plan ``starts`` in the simulator (a
    :class:`~opt_sched.simulation.StartsPlan` with :func:`greedy_partitions`)
    under the I/O ``policy``; the schedule is not yet validated."""
    from ...simulation import StartsPlan, simulate

    start = {job.id: ticks.delta * s for job, s in zip(instance.jobs, starts)}
    partition = greedy_partitions(instance, data, start)
    schedule = simulate(instance, StartsPlan(start=start, partition=partition),
                        policy)
    return dataclasses.replace(schedule, method=method)


def greedy_partitions(instance: Instance, data: PlanningData,
                      start: dict[str, float]) -> dict[str, int]:
    """Map each job to a partition for the execution of a plan.

    Jobs are taken by planned start (ties by instance order). A job with an
    effective partition (:meth:`Instance.effective_partition`) keeps it; any
    other goes to the first partition (by index) whose free nodes cover
    ``Q_i`` during its whole planned box ``[S_i, S_i + T_i)``, counting the
    jobs mapped before it; if none does (the plan used the *aggregate* node
    capacity), to the partition with the most free nodes at ``S_i`` (ties by
    index). The simulator then delays the job until its nodes are free.
    """
    platform = instance.platform
    boxes: list[list[tuple[float, float, int]]] = [[] for _ in platform.partitions]
    out: dict[str, int] = {}
    order = sorted(range(instance.num_jobs),
                   key=lambda i: (start[instance.jobs[i].id], i))
    for i in order:
        job = instance.jobs[i]
        s, e = start[job.id], start[job.id] + data.durations[i]
        k = instance.effective_partition(job)
        if k is None:
            free = [_free_nodes(part.nodes, boxes[c], s, e)
                    for c, part in enumerate(platform.partitions)]
            fits = [c for c, f in enumerate(free) if f >= job.nodes]
            if fits:
                k = fits[0]
            else:
                at_start = [_free_nodes(part.nodes, boxes[c], s, math.nextafter(s, e))
                            for c, part in enumerate(platform.partitions)]
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


def export_plan_model(path: str, data: PlanningData, ticks: TickData, solver: str,
                      options: Any) -> None:
    """Write the planning model: ``.lp`` / ``.mps`` the MILP (at the MILP
    resolution), ``.pb`` / ``.pbtxt`` the CP-SAT model, whichever backend
    solves."""
    from .cpsat import PlanningCpsat
    from .data import DEFAULT_HORIZON_TICKS
    from .milp import DEFAULT_MILP_HORIZON_TICKS, PlanningMilp

    suffix = Path(path).suffix.lower()
    precision = options.resource_precision
    if suffix in (".lp", ".mps"):
        from ..milp.backend import export_model

        milp_ticks = ticks if solver != "cpsat" else data.to_ticks(
            options.resolution, precision, DEFAULT_MILP_HORIZON_TICKS)
        horizon, incumbent = sgs_upper_bound(milp_ticks)
        model = PlanningMilp(milp_ticks, horizon, milp_ticks.resource_bound(),
                             incumbent)
        export_model(model.prob, path)
    elif suffix in (".pb", ".pbtxt"):
        from ..cpsat.settings import PlanningCpsatSettings

        cp_ticks = ticks if solver == "cpsat" else data.to_ticks(
            options.resolution, precision, DEFAULT_HORIZON_TICKS)
        horizon, incumbent = sgs_upper_bound(cp_ticks)
        settings = options if isinstance(options, PlanningCpsatSettings) \
            else PlanningCpsatSettings(resolution=options.resolution,
                                       resource_precision=precision)
        cp = PlanningCpsat(cp_ticks, horizon, cp_ticks.resource_bound(), incumbent,
                           settings)
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        if not cp.model.export_to_file(str(path)):
            raise SolverError(f"export={path!r}: CP-SAT could not write the model")
    else:
        raise OptionError(f"export={path!r}: suffix {suffix or '(none)'!r} is not "
                          "one of .lp, .mps, .pb, .pbtxt")
