"""The reproduction grid of seed 004, as functions of parameters.

:func:`run_point` runs one scheduler on one ``jann`` workload and returns a
flat dict of metrics; a sweep spec (``opt-sched sweep``) or
``scripts/reproduce_gang.py`` calls it over the grid. :func:`run_trace_point`
does the same for an SWF log (KTH-SP2).

The seed's grid (§3.4.1): ``P = 320``, ``lambda^-1 = 583 s``, ``T = 200 s``,
MPL 5, 10,000 jobs, nine mean execution times per I/O class. The nine values
are only in the seed's figures; the text names 1800, 2000, 2500, 2600, 3000
and 3102 s. :data:`LOADS` is the digest's guess (nine equal steps up to the
3102 s of the Fig. 8 caption, ``1723 x {1.0, 1.1, ..., 1.8}``); 1800 s and
3000 s, where the seed counts local jobs, are run in addition
(:data:`TEXT_LOADS`).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from ..errors import InfeasibleScheduleError
from .jann import jann_workload
from .metrics import gang_summary
from .placement import place_files
from .record import GangRecord
from .simulator import simulate_gang
from .swf import swf_workload
from .validate import validate_gang
from .workload import GangWorkload

__all__ = [
    "INTENSITIES",
    "LOADS",
    "MIGRATION_BUDGETS",
    "MIGRATION_COSTS",
    "SCHEDULERS",
    "TEXT_LOADS",
    "jann_point_workload",
    "kth_point_workload",
    "kth_trace_path",
    "measure_schedule",
    "run_point",
    "run_trace_point",
    "run_workload",
]

SCHEDULERS = ("gs", "iogs", "adaptive-iogs", "migrate-iogs")
INTENSITIES: tuple[float | str, ...] = (0.5, 0.33, 0.1, "mixed")
LOADS = (1723.0, 1896.0, 2068.0, 2240.0, 2413.0, 2585.0, 2757.0, 2930.0, 3102.0)
TEXT_LOADS = (1800.0, 3000.0)
MIGRATION_COSTS = (0.0, 10.0, 20.0, 30.0)
MIGRATION_BUDGETS = (0, 16, 32, 64, 128, 256, 320)


def run_workload(workload: GangWorkload, scheduler: str, *, mpl: int = 5,
                 quantum: float = 200.0, migration_budget: int = 64,
                 migration_cost: float = 20.0, validate: bool = False
                 ) -> dict[str, Any]:
    """Simulate ``workload`` (with file nodes) and summarise; with
    ``validate`` the schedule must pass :func:`validate_gang`.

    Raises
    ------
    InfeasibleScheduleError
        ``validate`` and the schedule breaks a rule (a bug).
    """
    began = time.perf_counter()
    record = simulate_gang(workload, scheduler, mpl=mpl, quantum=quantum,
                           migration_budget=migration_budget,
                           migration_cost=migration_cost)
    elapsed = time.perf_counter() - began
    out = gang_summary(workload, record)
    out["sim_seconds"] = elapsed
    out["offered_load"] = workload.offered_load()
    out["placement"] = workload.placement
    out["migration_budget"] = migration_budget
    out["migration_cost"] = migration_cost
    if validate:
        violations = validate_gang(workload, record)
        if violations:
            raise InfeasibleScheduleError(
                f"{scheduler} on {workload.name}: {violations[0].message} "
                f"({len(violations)} violations)")
        out["validated"] = True
    return out


def jann_point_workload(io_intensity: float | str, mean_runtime: float,
                        seed: int = 0, *, jobs: int = 10_000,
                        placement: str = "random", mean_interarrival: float = 583.0,
                        nodes: int = 320) -> GangWorkload:
    """The ``jann`` workload of one grid point, with its file nodes drawn by
    ``placement`` from the same ``seed`` (what :func:`run_point` runs)."""
    return place_files(jann_workload(jobs, mean_runtime, io_intensity, seed,
                                     mean_interarrival=mean_interarrival,
                                     nodes=nodes), placement, seed)


def kth_trace_path() -> Path:
    """The KTH-SP2 log in the shared data folder
    (:func:`opt_sched.workloads.kth.shared_data_dir`).

    Raises
    ------
    OptionError
        The shared data folder was not found.
    """
    from ..workloads.kth import KTH_FILE, shared_data_dir

    return shared_data_dir() / KTH_FILE


def kth_point_workload(seed: int = 0, *, placement: str = "random",
                       jobs: int | None = None) -> GangWorkload:
    """KTH-SP2 as a gang workload (``r`` drawn per job from {0.1, 0.33, 0.5}
    with ``seed``), file nodes by ``placement`` (what
    :func:`run_trace_point` runs)."""
    return place_files(swf_workload(kth_trace_path(), seed=seed, jobs=jobs),
                       placement, seed)


def measure_schedule(workload: GangWorkload, schedule: Any) -> dict[str, Any]:
    """Validate a gang schedule against ``workload`` and summarise it.

    ``schedule`` is a :class:`~opt_sched.gang.record.GangRecord` or its
    generic :class:`~opt_sched.schedule.Schedule` form (what the registry
    methods return). The row: :func:`~opt_sched.gang.metrics.gang_summary`'s
    numbers (without the scheduler's name) and ``offered_load``.

    Raises
    ------
    InfeasibleScheduleError
        The schedule breaks a rule of :func:`validate_gang` (a bug).
    ScheduleFormatError
        ``schedule`` carries no gang record.
    """
    record = schedule if isinstance(schedule, GangRecord) else \
        GangRecord.from_schedule(schedule)
    violations = validate_gang(workload, record)
    if violations:  # one line: a campaign row keeps the first line of an error
        raise InfeasibleScheduleError(
            f"{record.scheduler} on {workload.name}: {violations[0].message} "
            f"({len(violations)} violations)")
    out = gang_summary(workload, record)
    del out["scheduler"]
    out["offered_load"] = workload.offered_load()
    return out


def run_point(scheduler: str, r: float | str, mean_runtime: float, seed: int = 0, *,
              jobs: int = 10_000, placement: str = "random", mpl: int = 5,
              quantum: float = 200.0, migration_budget: int = 64,
              migration_cost: float = 20.0, mean_interarrival: float = 583.0,
              nodes: int = 320, validate: bool = False) -> dict[str, Any]:
    """One point of the grid: ``scheduler`` on the ``jann`` workload with I/O
    intensity ``r`` (or ``"mixed"``) and mean all-local time
    ``mean_runtime``, file nodes by ``placement``; returns the parameters and
    :func:`~opt_sched.gang.metrics.gang_summary`'s metrics, plus
    ``offered_load`` and ``sim_seconds``."""
    workload = jann_point_workload(r, mean_runtime, seed, jobs=jobs,
                                   placement=placement,
                                   mean_interarrival=mean_interarrival, nodes=nodes)
    out = run_workload(workload, scheduler, mpl=mpl, quantum=quantum,
                       migration_budget=migration_budget,
                       migration_cost=migration_cost, validate=validate)
    return {"protocol": "jann", "r": r, "mean_runtime": mean_runtime, "seed": seed,
            "mean_interarrival": mean_interarrival, **out}


def run_trace_point(scheduler: str, path: str | Path, seed: int = 0, *,
                    placement: str = "random", jobs: int | None = None,
                    mpl: int = 5, quantum: float = 200.0, migration_budget: int = 64,
                    migration_cost: float = 20.0, validate: bool = False
                    ) -> dict[str, Any]:
    """``scheduler`` on an SWF log (``r`` drawn per job from {0.1, 0.33,
    0.5}, file nodes by ``placement``)."""
    workload = place_files(swf_workload(path, seed=seed, jobs=jobs), placement, seed)
    out = run_workload(workload, scheduler, mpl=mpl, quantum=quantum,
                       migration_budget=migration_budget,
                       migration_cost=migration_cost, validate=validate)
    return {"protocol": "swf", "trace": workload.name, "r": "mixed", "seed": seed,
            **out}
