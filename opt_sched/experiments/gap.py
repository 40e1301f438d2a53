"""The gap report: every heuristic against the best proven bound.

For each instance the exact layer (:func:`opt_sched.solve`) is run once with a
time limit; its proven lower bound is combined with the combinatorial bounds
of :mod:`opt_sched.bounds` into the best bound ``L``. Every heuristic schedule
is validated, and its gap is :func:`~opt_sched.objectives.relative_gap`

.. math:: \\text{gap} = (x - L) / L

(SPEC §7). When the exact solver proved optimality, ``L`` is the optimum and
the gap is the true optimality gap (``bound_is_optimum`` is true); otherwise
the gap is an upper bound on the true gap: the method is *at most* ``gap``
above the optimum. The other side: ``best_found`` ``B`` is the best value of
any validated schedule of the instance (the solver's incumbent included when
it is a schedule under the methods' model), and the method is *at least*
``at_least = (x - B) / B`` above the optimum
(:func:`~opt_sched.objectives.bracket`).

Which problem an instance poses is read off the instance: jobs with
named-resource ``demands`` -> ``planning``; jobs pre-mapped to partitions
-> ``io-sched`` (one pack per partition); otherwise ``hpc-io``. The
heuristics are method specs (:mod:`opt_sched.methods`): by default every
registered default spec whose method makes schedules of that problem and
supports the instance; a method that does not is skipped with its reason.

The run, in order:

1. every input is read and checked (instance files, method specs, options,
   the output path) before anything is solved: a bad one is one
   :class:`~opt_sched.errors.UserError` line naming it;
2. each instance is solved and its heuristics are run (in this process, or
   on ``workers`` processes), and its rows are written to ``out`` as soon as
   they are finished (:class:`~opt_sched.rows_file.RowsFile`: the file always holds
   a header and whole rows, so Ctrl-C keeps every finished row);
3. the table is put in its final order (instances as given, then the solver
   row, then the methods as listed) and written once more.
"""

from __future__ import annotations

import math
import os
import signal
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ..errors import InstanceError, OptionError, UserError
from ..instance import Instance
from ..objectives import BATCH_OBJECTIVES as OBJECTIVES
from ..objectives import objective_value

__all__ = ["COLUMNS", "expand_paths", "gap_table", "problem_of", "read_inputs"]

COLUMNS = ("instance", "problem", "objective", "method", "value", "best_found",
           "lower_bound", "bound_is_optimum", "at_least", "gap", "exact_status",
           "bound_note", "seconds")
def problem_of(instance: Instance) -> str:
    """The problem an instance poses (see the module docstring): planning
    with named-resource demands, IO-SCHED when every job's partition is
    fixed (:func:`opt_sched.operations.is_one_pack`), else HPC-IO."""
    from ..operations import is_one_pack

    if any(job.demands for job in instance.jobs):
        return "planning"
    if is_one_pack(instance):
        return "io-sched"
    return "hpc-io"


def expand_paths(items: Iterable[str | Path | Instance]) -> list[str | Path | Instance]:
    """Directories become their ``*.json`` instance files (schema files, named
    ``*schema.json``, excluded) and ``.sm`` files, sorted by name."""
    out: list[str | Path | Instance] = []
    for item in items:
        if isinstance(item, Instance) or not Path(item).is_dir():
            out.append(item)
            continue
        files = sorted(p for p in Path(item).iterdir()
                       if (p.suffix == ".json" and not p.name.endswith("schema.json"))
                       or p.suffix == ".sm")
        if not files:
            raise OptionError(f"{item}: no instance files (*.json, *.sm) in it")
        out.extend(files)
    return out


def read_inputs(items: Iterable[str | Path | Instance]) -> list[Instance]:
    """Every instance of ``items`` (files, folders, instances), all read and
    checked before any is used.

    Raises
    ------
    InstanceError
        One line naming the first file that cannot be read or is malformed.
    """
    from ..json_files import read_instance

    out = []
    for item in expand_paths(items):
        if isinstance(item, Instance):
            out.append(item)
            continue
        try:
            out.append(read_instance(item))
        except UserError as err:
            message = str(err)
            if not message.startswith(str(item)):
                message = f"{item}: {message}"
            raise InstanceError(message) from None
        except OSError as err:
            raise InstanceError(f"{item}: cannot read "
                                f"({err.strerror or type(err).__name__})") from None
    if not out:
        raise OptionError("gap: no instances given")
    return out


@dataclass(frozen=True)
class _Task:
    """One instance's work; picklable, so it can run in a worker process."""

    position: int
    instance: Instance
    problem: str
    objective: str
    specs: tuple[str, ...]
    solver: str
    time_limit: float
    num_workers: int
    seed: int
    execution: object = None


def _run_task(task: _Task) -> tuple[int, list[dict[str, object]]]:
    """Solve one instance and run its methods; its rows, solver row first."""
    from .. import methods, validation
    from ..bound_models import best_bound_under, exact_bound_holds
    from ..exact import solve
    from ..objectives import best_known, bracket, gap_or_nan

    instance = task.instance
    result = solve(instance, problem=task.problem, objective=task.objective,
                   solver=task.solver, time_limit=task.time_limit, seed=task.seed,
                   num_workers=task.num_workers)
    # only the bounds proven under the methods' execution model; the exact
    # layer's bound and optimum are exclusive-model facts (bound_models)
    found = best_bound_under(instance, task.objective, task.execution)
    bound, note = found.value, found.note
    exact = exact_bound_holds(task.execution)
    if exact and result.lower_bound is not None:
        bound = max(bound or -math.inf, result.lower_bound)
    optimal = exact and str(result.status) == "optimal"
    if optimal and result.objective is not None:
        bound = result.objective  # proven optimum (validated value)
    if bound is not None:
        note = None

    def row(method: str, value: float | None, seconds: float,
            comparable: bool = True) -> dict[str, object]:
        gap = gap_or_nan(value, bound) if comparable and bound is not None else None
        why = note if comparable else (
            f"the exact solver's schedule is exclusive, not {found.model}")
        return {"instance": instance.name, "problem": task.problem,
                "objective": task.objective, "method": method, "value": value,
                "lower_bound": bound, "bound_is_optimum": optimal,
                "gap": gap, "exact_status": str(result.status),
                "seconds": seconds, "bound_note": why}

    rows = [row(task.solver, result.objective, result.wall_time, comparable=exact)]
    for spec in task.specs:
        started = time.perf_counter()
        schedule = methods.method(spec).run(instance, seed=task.seed,
                                            execution=task.execution)
        validation.assert_feasible(instance, schedule)
        value = objective_value(instance, schedule, task.objective)
        rows.append(row(spec, value, time.perf_counter() - started))
    # the best validated schedule of any row: the other side of the optimum
    candidates = [r["value"] for r in rows[1:]]
    if exact:  # the solver's schedule is one under the methods' model
        candidates.append(rows[0]["value"])
    best = best_known(candidates)
    for r in rows:
        r["best_found"] = best
        r["at_least"] = bracket(r["value"], best, None)[0]
    return task.position, rows


def _ignore_sigint() -> None:
    """Worker initializer: Ctrl-C is the parent's to handle (it terminates
    the pool), so workers print no traceback of their own."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _say(progress: bool, message: str) -> None:
    if progress:
        print(message, file=sys.stderr, flush=True)


def _check_solver(solver: object) -> None:
    """``solver`` is ``auto`` or a registered solver."""
    from ..exact.registry import solver_choices

    if not isinstance(solver, str) or solver not in solver_choices():
        raise OptionError(f"gap: solver={solver!r} is not one of "
                          f"{', '.join(solver_choices())}")


def _solver_for(solver: str, instance: Instance, problem: str, objective: str) -> str:
    """The solver that runs ``instance``'s ``problem``: ``auto`` resolved
    (:func:`opt_sched.exact.registry.resolve_solver`), and a named one
    checked to have a model of the problem, both before anything is solved
    (an :class:`OptionError` naming the instance)."""
    from ..exact.registry import AUTO, lookup, resolve_solver

    try:
        if solver == AUTO:
            return resolve_solver(problem, objective)
        lookup(problem, solver)
    except OptionError as err:
        raise OptionError(f"gap: {instance.name}: {err}") from None
    return solver


def _check_options(objective: str, workers: object, seed: object, solver: object,
                   time_limit: object, num_workers: object) -> None:
    if objective not in OBJECTIVES:
        raise OptionError(f"gap: objective={objective!r} is not one of "
                          f"{', '.join(OBJECTIVES)}")
    for name, value, low in (("workers", workers, 1), ("num_workers", num_workers, 1),
                             ("seed", seed, 0)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise OptionError(f"gap: {name}={value!r} must be an integer >= {low}")
    _check_solver(solver)
    if (isinstance(time_limit, bool) or not isinstance(time_limit, (int, float))
            or not 0 < time_limit < math.inf):
        raise OptionError(f"gap: time_limit={time_limit!r} must be a number > 0")


def gap_table(instances: Iterable[str | Path | Instance], *,
              methods: str | Sequence[str] | None = None, time_limit: float = 10.0,
              solver: str = "auto", objective: str = "makespan",
              num_workers: int = 2, seed: int = 0, workers: int = 1,
              out: str | os.PathLike | None = None, progress: bool = True,
              on_row: Callable[[dict[str, object]], None] | None = None,
              execution: object = None) -> pd.DataFrame:
    """One row per instance x method (the exact solver included).

    Parameters
    ----------
    instances
        Instance files, folders of them, or :class:`Instance` objects.
    methods
        Method specs (a list, or one string with commas between specs;
        ``/*`` = every I/O policy). Default: every default spec that makes
        schedules of the instance's problem (see the module docstring).
    solver
        A registered solver (:func:`opt_sched.exact.registry.solvers`), or
        ``auto``: per instance, the strongest solver of its problem
        (:func:`opt_sched.exact.registry.resolve_solver`). The solver row is
        named after the solver that ran; a named solver with no model of an
        instance's problem is an :class:`OptionError` before any solving.
    time_limit, num_workers
        Passed to :func:`opt_sched.solve` (``num_workers``: its threads).
    objective
        ``makespan`` or ``max-stretch`` (``planning`` instances always use
        the makespan).
    seed
        Passed to the solver and to every method.
    workers
        Instances solved at once; more than 1 runs them on a process pool
        (forked, so methods and policies registered in this process exist
        there too). The final table is in the same order either way.
    out
        A CSV file, rewritten with every finished instance's rows (see the
        module docstring), then in the final order.
    progress
        Progress and skipped methods on stderr.
    on_row
        Called with every finished row, as soon as its instance is done (the
        command line keeps them for its Ctrl-C line).
    execution
        The execution model of the methods' schedules (an
        :class:`~opt_sched.execution.ExecutionSpec`, a name or a table;
        default ``exclusive``). Only the bounds that hold under it are used
        (:mod:`opt_sched.bound_models`); the exact layer's bound and optimum
        only under ``exclusive`` (its models are exclusive), and under
        another model the solver row has no gap. Under a model with no
        proven bound, ``lower_bound`` and ``gap`` are ``None`` and
        ``bound_note`` says "no bound holds under <model>".

    Returns
    -------
    pandas.DataFrame
        Columns :data:`COLUMNS`; ``attrs["skipped"]`` lists ``(instance,
        spec, reason)`` for every method left out.

    Raises
    ------
    UserError
        A bad input (before anything is solved).
    InternalError
        A schedule fails the validator or a bound exceeds a value (a bug).
    KeyboardInterrupt
        Ctrl-C: the worker processes are stopped; ``out`` keeps every
        finished row.
    """
    from .. import methods as registry
    from ..execution import ExecutionSpec
    from ..rows_file import RowsFile

    _check_options(objective, workers, seed, solver, time_limit, num_workers)
    execution = ExecutionSpec.parse(execution)  # a bad model: OptionError now
    wanted = None if methods is None else registry.split_specs(methods)
    if wanted is not None:
        if not wanted:
            raise OptionError(f"gap: methods={methods!r} names no method")
        registry.expand(wanted)  # bad specs fail here, before any reading
    loaded = read_inputs(instances)
    tasks: list[_Task] = []
    skipped: list[tuple[str, str, str]] = []
    for position, instance in enumerate(loaded):
        problem = problem_of(instance)
        chosen, left_out = registry.applicable(instance, wanted, problem)
        skipped.extend((instance.name, s.spec, s.reason) for s in left_out)
        if not chosen:
            why = "".join(f"\n    {s}" for s in left_out) or (
                " (no registered method makes schedules of this problem)")
            _say(progress, f"{instance.name}: no applicable method for {problem}"
                 f"{why}")
        else:
            for s in left_out:
                _say(progress, f"{instance.name}: skipped {s}")
        goal = objective if problem != "planning" else "makespan"
        tasks.append(_Task(position, instance, problem, goal,
                           tuple(m.spec for m in chosen),
                           _solver_for(solver, instance, problem, goal),
                           float(time_limit), num_workers, seed, execution))
    sink = RowsFile(out, COLUMNS) if out is not None else None
    finished: dict[int, list[dict[str, object]]] = {}

    def keep(position: int, rows: list[dict[str, object]]) -> None:
        finished[position] = rows
        if sink is not None:
            sink.add(rows)
        if on_row is not None:
            for row in rows:
                on_row(row)
        head = rows[0]
        value = "-" if head["value"] is None else f"{head['value']:.6g}"
        bound = ("no bound" if head["lower_bound"] is None
                 else f"{head['lower_bound']:.6g}")
        _say(progress, f"[{len(finished)}/{len(tasks)}] {head['instance']}: "
             f"{head['exact_status']}, value {value}, bound "
             f"{bound}, {head['seconds']:.1f} s, "
             f"{len(rows) - 1} method row(s)")

    if workers == 1 or len(tasks) == 1:
        for task in tasks:
            _say(progress, f"... {task.instance.name}: {task.problem}, "
                 f"{task.instance.num_jobs} jobs, {task.instance.num_io_phases} "
                 f"phases; {task.solver} for up to {time_limit:g} s")
            keep(*_run_task(task))
    else:
        _run_pool(tasks, workers, keep, progress)
    ordered = [row for position in sorted(finished) for row in finished[position]]
    if sink is not None:
        sink.replace(ordered)
    table = pd.DataFrame(ordered, columns=list(COLUMNS))
    table.attrs["skipped"] = skipped
    return table


def _run_pool(tasks: list[_Task], workers: int, keep, progress: bool) -> None:
    """Run ``tasks`` on ``workers`` processes (from the fork server:
    :mod:`opt_sched.worker_processes`); ``keep`` each result as it arrives.
    Ctrl-C or an error terminates the workers."""
    from ..worker_processes import worker_context

    context = worker_context()
    _say(progress, f"solving {len(tasks)} instances on {workers} processes ...")
    pool = context.Pool(processes=min(workers, len(tasks)), initializer=_ignore_sigint)
    try:
        for position, rows in pool.imap_unordered(_run_task, tasks, chunksize=1):
            keep(position, rows)
    except BaseException:
        pool.terminate()
        pool.join()
        raise
    pool.close()
    pool.join()
