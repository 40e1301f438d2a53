"""The gap report: every heuristic against the best proven bound.

For each instance the exact layer (:func:`opt_sched.solve`) is run once with a
time limit; its proven lower bound is combined with the combinatorial bounds
of :mod:`opt_sched.bounds` into the best bound ``L``. Every heuristic schedule
is validated, and its gap is

.. math:: \\text{gap} = (x - L) / L

(SPEC §7). When the exact solver proved optimality, ``L`` is the optimum and
the gap is the true optimality gap (``bound_is_optimum`` is true); otherwise
the gap is an upper bound on the true gap.

Which problem an instance poses is read off the instance: jobs pre-mapped to
partitions -> ``io-sched`` (one pack per partition); jobs with named-resource
``demands`` -> ``planning``; otherwise ``hpc-io``.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ..errors import OptionError
from ..instance import Instance
from ..schedule import Schedule

__all__ = ["Heuristic", "expand_paths", "gap_table", "heuristics_for", "problem_of"]


def problem_of(instance: Instance) -> str:
    """The problem an instance poses (see the module docstring)."""
    if any(job.demands for job in instance.jobs):
        return "planning"
    if instance.is_mapped:
        return "io-sched"
    return "hpc-io"


@dataclass(frozen=True)
class Heuristic:
    """A named practical method: ``run(instance)`` returns a schedule."""

    name: str
    run: Callable[[Instance], Schedule]


def _one_pack(policy: str) -> Heuristic:
    def run(instance: Instance) -> Schedule:
        from ..simulation import OnePackPlan, simulate

        return simulate(instance, OnePackPlan(), policy=policy)

    return Heuristic(f"one-pack/{policy}", run)


def _packs(method: str, sensibility: str | float, policy: str) -> Heuristic:
    label = "first-fit" if method == "first-fit" else f"make-pack(S={sensibility})"

    def run(instance: Instance) -> Schedule:
        from ..heuristics import pack_plan
        from ..simulation import simulate

        s = instance.io_load() if sensibility == "alpha" else float(sensibility)
        if method == "first-fit":
            s = math.inf
        plan = pack_plan(instance, method, sensibility=s,
                         io_nodes=instance.platform.num_partitions)
        return simulate(instance, plan, policy=policy)

    return Heuristic(f"{label}+lpt/{policy}", run)


def heuristics_for(instance: Instance) -> list[Heuristic]:
    """The heuristics that apply to ``instance`` (capability check)."""
    from ..simulation import POLICY_NAMES

    problem = problem_of(instance)
    if problem == "io-sched":
        return [_one_pack(policy) for policy in POLICY_NAMES]
    if problem == "hpc-io":
        return [_packs("first-fit", math.inf, "fifo"),
                _packs("make-pack", 1, "fifo"),
                _packs("make-pack", "alpha", "fifo"),
                _packs("make-pack", 1, "longest-remaining")]
    return []  # no heuristic of the seeds knows named resources


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


def _select(available: list[Heuristic], methods: str | Sequence[str] | None
            ) -> list[Heuristic]:
    if methods is None:
        return available
    wanted = [m.strip() for m in (methods.split(",") if isinstance(methods, str)
                                  else methods) if m.strip()]
    chosen = [h for h in available if any(h.name.startswith(w) for w in wanted)]
    return chosen


def _objective_value(instance: Instance, schedule: Schedule, objective: str) -> float:
    if objective == "makespan":
        return schedule.makespan(instance)
    return schedule.max_stretch(instance)


def gap_table(instances: Iterable[str | Path | Instance], *,
              methods: str | Sequence[str] | None = None, time_limit: float = 10.0,
              solver: str = "cpsat", objective: str = "makespan",
              num_workers: int = 2, seed: int = 0, progress: bool = True
              ) -> pd.DataFrame:
    """One row per instance x method (the exact solver included).

    Columns: ``instance``, ``problem``, ``method``, ``value`` (validated),
    ``lower_bound`` (best proven), ``bound_is_optimum``, ``gap``,
    ``exact_status``, ``seconds``.
    """
    from ..bounds import lower_bound
    from ..exact import solve
    from ..io import read_instance
    from ..validation import assert_feasible

    if objective not in ("makespan", "max-stretch"):
        raise OptionError(f"objective={objective!r} is not one of makespan, "
                          "max-stretch")
    items = expand_paths(instances)
    rows = []
    known = set()
    for position, item in enumerate(items, 1):
        instance = item if isinstance(item, Instance) else read_instance(item)
        problem = problem_of(instance)
        if progress:
            print(f"[{position}/{len(items)}] {instance.name}: {problem}, "
                  f"{instance.num_jobs} jobs, {instance.num_io_phases} phases; "
                  f"{solver} for up to {time_limit:g} s ...", file=sys.stderr,
                  flush=True)
        chosen = _select(heuristics_for(instance), methods)
        known.update(h.name for h in heuristics_for(instance))
        obj = objective if problem != "planning" else "makespan"
        result = solve(instance, problem=problem, objective=obj, solver=solver,
                       time_limit=time_limit, seed=seed, num_workers=num_workers)
        bound = lower_bound(instance, obj)
        if result.lower_bound is not None:
            bound = max(bound, result.lower_bound)
        optimal = str(result.status) == "optimal"
        if optimal and result.objective is not None:
            bound = result.objective  # proven optimum (validated value)

        def row(method: str, value: float | None, seconds: float,
                _bound: float = bound, _optimal: bool = optimal,
                _instance: Instance = instance, _problem: str = problem,
                _obj: str = obj, _status: str = str(result.status)) -> dict:
            gap = (None if value is None or _bound <= 0
                   else max(0.0, (value - _bound) / _bound))
            return {"instance": _instance.name, "problem": _problem,
                    "objective": _obj, "method": method, "value": value,
                    "lower_bound": _bound, "bound_is_optimum": _optimal,
                    "gap": gap, "exact_status": _status, "seconds": seconds}

        rows.append(row(solver, result.objective, result.wall_time))
        for heuristic in chosen:
            started = time.perf_counter()
            schedule = heuristic.run(instance)
            assert_feasible(instance, schedule)
            value = _objective_value(instance, schedule, obj)
            rows.append(row(heuristic.name, value, time.perf_counter() - started))
        if progress:
            gap = "-" if result.gap is None else f"{100 * result.gap:.2f} %"
            print(f"    {result.status}, value {result.objective}, bound "
                  f"{bound:.6g}, solver gap {gap}, {result.wall_time:.1f} s",
                  file=sys.stderr, flush=True)
    if methods is not None and not any(r["method"] != solver for r in rows) and known:
        raise OptionError(f"methods={methods!r} matches no heuristic "
                          f"(known: {', '.join(sorted(known))})")
    return pd.DataFrame(rows)
