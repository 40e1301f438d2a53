"""Metrics of a schedule (SPEC §4): per-job table, summary, curves over time.

Notation. Job ``i`` runs on partition ``k(i)`` (bandwidth ``b_k``) with
``Q_i`` nodes, release ``r_i``, start ``S_i`` (first compute phase) and
completion ``C_i`` (:meth:`Schedule.completion`). Its reference length is
``T_i = T_i(b)`` with ``b`` = :meth:`Instance.bandwidth_of` (the job's
partition bandwidth if the instance maps it, else the platform's largest),
exactly as :meth:`Schedule.stretches` uses. Its *execution time* on the
partition it got is

.. math:: E_i = \\sum_j w_{ij} + \\sum_j v_{ij} / b_{k(i)},

which equals ``T_i`` unless an unmapped job runs on a slower partition.

Per job:

- stretch :math:`(C_i - S_i) / T_i`, flow stretch :math:`(C_i - r_i) / T_i`
  (both 1 by convention when ``T_i = 0``, as in :meth:`Schedule.stretches`),
  bounded slowdown :math:`\\max(1, (C_i - r_i) / \\max(T_i, \\tau))`;
- wait :math:`S_i - r_i`; I/O wait
  :math:`\\sum_j \\max(0, o_{ij} - (c_{ij} + w_{ij}))`, the time spent between
  the end of a compute phase and the start of its I/O phase;
- delay :math:`C_i - S_i - E_i`, the time the job holds its nodes without
  computing or doing I/O (the I/O wait, plus any other gap the schedule
  leaves).

Node-time over the window ``[0, C_max]`` and all ``N = sum_k P_k`` nodes
(seed 003, Fig. 14): exec :math:`\\sum_i Q_i E_i`, delay
:math:`\\sum_i Q_i (C_i - S_i - E_i)`, idle :math:`N C_{max}` minus both, so
``exec + delay + idle = N * C_max``. Utilisation is the work executed per
node-second, :math:`\\sum_i Q_i E_i / (N C_{max})`; allocation counts the
delay too, :math:`\\sum_i Q_i (C_i - S_i) / (N C_{max})` (seed 000's
"utilisation" of allocated nodes). I/O occupancy is the time at least one
I/O phase of positive length is in progress, summed over the ``R`` I/O
nodes, over :math:`R C_{max}`.

Time origin. Every time-based figure and curve is measured from t = 0 of the
instance (the window ``[0, C_max]`` above). An instance built from a trace
starts at the trace's first submit (:func:`opt_sched.traces.convert_trace`
shifts the releases; :mod:`opt_sched.traces.time_origin`), so a log in Unix
epochs is measured from its first job, not from 1970.

The metrics do not judge feasibility (:mod:`opt_sched.validation` does); on
an infeasible schedule they are computed all the same, and idle node-time can
then be negative.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .errors import OptionError
from .instance import Instance
from .schedule import Schedule

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "io_occupancy_over_time",
    "job_columns",
    "job_table",
    "queue_over_time",
    "summary",
    "summary_values",
    "utilisation_over_time",
]

JOB_COLUMNS = ("partition", "nodes", "release", "start", "completion", "length",
               "exec_time", "stretch", "flow_stretch", "bounded_slowdown", "wait",
               "turnaround", "io_wait", "delay", "pack", "killed")
"""Columns of :func:`job_table`, in order."""


def _check_option(name: str, value: float) -> float:
    """``value`` as a float if it is a finite number >= 0, else OptionError."""
    if (isinstance(value, bool) or not isinstance(value, (int, float))
            or not math.isfinite(value) or value < 0):
        raise OptionError(f"metrics: {name}={value!r} must be a finite number >= 0")
    return float(value)


@dataclass(frozen=True)
class _Phases:
    """Every phase as flat arrays (job after job, instance order).

    Zero-length phases are kept; consumers drop them where it matters.
    """

    job: np.ndarray        # (m,) job index
    c_start: np.ndarray
    c_end: np.ndarray
    o_start: np.ndarray
    o_end: np.ndarray


def _phases(instance: Instance, schedule: Schedule) -> _Phases:
    """The phases as executed: I/O ends as the schedule's execution model
    defines them, phases of killed jobs cut at the kill (the validator's
    phase table, :mod:`opt_sched.validation.table`)."""
    from .validation.io_rules import io_rule
    from .validation.table import build_table

    by_id = schedule.by_id
    entries = [by_id.get(job.id) for job in instance.jobs]
    table = build_table(instance, schedule, entries, io_rule(schedule.execution))
    return _Phases(table.job, table.c_start, table.c_end, table.o_start, table.o_end)


def _pack_index(instance: Instance, schedule: Schedule) -> np.ndarray:
    """Index of each job's pack within its partition (NaN without packs)."""
    out = np.full(instance.num_jobs, np.nan)
    if schedule.packs is None:
        return out
    for row in schedule.packs:
        for p, pack in enumerate(row):
            for job_id in pack:
                if job_id in instance.index:
                    out[instance.index[job_id]] = p
    return out


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den``, and 1 where ``den == 0``."""
    safe = np.where(den > 0, den, 1.0)
    return np.where(den > 0, num / safe, 1.0)


def job_columns(instance: Instance, schedule: Schedule, *, tau: float = 10.0,
                phases: _Phases | None = None) -> dict[str, np.ndarray]:
    """The columns of :func:`job_table` as numpy arrays (instance order),
    without pandas (:func:`summary_values` and the replay need no more)."""
    tau = _check_option("tau", tau)
    if phases is None:  # else the validator built them from a checked schedule
        schedule.check_shape(instance)
        phases = _phases(instance, schedule)
    ph = phases
    bandwidths = [part.bandwidth for part in instance.platform.partitions]
    jobs = instance.jobs
    given = instance.job_arrays
    by_id = schedule.by_id
    entries = [by_id[j.id] for j in jobs]
    partition = np.fromiter((e.partition for e in entries), np.int64, len(jobs))
    nodes = given.nodes
    release = given.release
    start = np.fromiter((e.compute_starts[0] for e in entries), float, len(jobs))
    completion = np.fromiter((e.completion(j, bandwidths[e.partition])
                              for j, e in zip(jobs, entries)), float, len(jobs))
    length = given.length
    # T_i(b_k) on the partition k the job ran on (SPEC §2)
    exec_time = given.total_compute + given.total_volume / \
        np.asarray(bandwidths)[partition]
    killed = np.fromiter((e.killed_at is not None for e in entries), bool, len(jobs))
    if schedule.execution != "exclusive" or killed.any():
        # phases may last longer (shared I/O) or be cut (kills): sum them
        exec_time = np.bincount(ph.job, weights=(ph.c_end - ph.c_start)
                                + (ph.o_end - ph.o_start), minlength=len(jobs))
    io_wait = np.bincount(ph.job, weights=np.maximum(0.0, ph.o_start - ph.c_end),
                          minlength=len(jobs))
    flow = completion - release
    return {
        "partition": partition,
        "nodes": nodes,
        "release": release,
        "start": start,
        "completion": completion,
        "length": length,
        "exec_time": exec_time,
        "stretch": _ratio(completion - start, length),
        "flow_stretch": _ratio(flow, length),
        "bounded_slowdown": np.maximum(1.0, _ratio(flow, np.maximum(length, tau))),
        "wait": start - release,
        "turnaround": flow,
        "io_wait": io_wait,
        "delay": completion - start - exec_time,
        "pack": _pack_index(instance, schedule),
        "killed": killed,
    }


def job_table(instance: Instance, schedule: Schedule, *,
              tau: float = 10.0, phases: _Phases | None = None) -> pd.DataFrame:
    """One row per job, indexed by job id (instance order); see the module text.

    Columns: ``partition``, ``nodes`` (``Q_i``), ``release``, ``start``
    (``S_i``), ``completion`` (``C_i``), ``length`` (``T_i``), ``exec_time``
    (``E_i``), ``stretch``, ``flow_stretch`` (the slowdown of SPEC §9),
    ``bounded_slowdown`` (with ``tau``), ``wait``, ``turnaround``
    (``C_i - r_i``), ``io_wait``, ``delay``, ``pack`` (index of the job's
    pack on its partition, NaN when the schedule has no packs), ``killed``
    (killed at its wall time). ``phases``: the executed phases when the
    caller already has them from a checked schedule (:func:`summary`, the
    validator's phase table), else the schedule's shape is checked and they
    are built here.

    Examples
    --------
    >>> from opt_sched import Instance, Job, JobSchedule, Platform, Schedule
    >>> inst = Instance("one", Platform.homogeneous(1, nodes=2),
    ...                 (Job.periodic("a", 2, 4.0, 2.0, release=1.0),))
    >>> sched = Schedule((JobSchedule("a", 0, (3.0,), (10.0,)),))
    >>> job_table(inst, sched).loc["a", ["stretch", "wait", "io_wait"]].tolist()
    [1.5, 2.0, 3.0]
    """
    import pandas as pd

    columns = job_columns(instance, schedule, tau=tau, phases=phases)
    return pd.DataFrame(columns, index=pd.Index([j.id for j in instance.jobs],
                                                name="job"))


def _union_length(starts: np.ndarray, ends: np.ndarray) -> float:
    """Length of the union of the intervals ``[starts, ends)``."""
    keep = ends > starts
    s, e = starts[keep], ends[keep]
    if not len(s):
        return 0.0
    order = np.argsort(s, kind="stable")
    s, e = s[order], e[order]
    reach = np.concatenate(([-np.inf], np.maximum.accumulate(e)[:-1]))
    return float(np.sum(np.maximum(0.0, e - np.maximum(s, reach))))


def _io_busy_time(instance: Instance, partition: np.ndarray, ph: _Phases) -> float:
    """Sum over the I/O nodes of the time at least one I/O phase runs
    (``partition``: each job's)."""
    phase_part = partition[ph.job]
    return sum(_union_length(ph.o_start[phase_part == k], ph.o_end[phase_part == k])
               for k in range(instance.platform.num_partitions))


def summary(instance: Instance, schedule: Schedule, *,
            tau: float = 10.0, phase_table: Any = None) -> pd.Series:
    """The schedule in one row (SPEC §4); see the module text for the math.

    Entries: ``makespan``, ``max_stretch``, ``mean_stretch``,
    ``mean_pack_max_stretch`` (mean over packs of the pack's max stretch; a
    schedule without packs counts one pack per partition that runs jobs),
    ``max_flow_stretch``, ``mean_bounded_slowdown``, ``utilisation``,
    ``allocation``, ``exec_node_time``, ``delay_node_time``,
    ``idle_node_time``, ``io_occupancy``, ``io_load_alpha``
    (:meth:`Instance.io_load`), ``num_packs`` (as counted for
    ``mean_pack_max_stretch``), ``num_jobs``; for online use (SPEC §9)
    ``mean_wait``, ``max_wait``, ``mean_turnaround``, ``mean_slowdown``
    (mean flow stretch) and ``killed``.

    ``phase_table``: the validator's phase table of this schedule
    (:attr:`opt_sched.validation.ValidationReport.table` of a feasible
    report), so that measuring a validated schedule does not rebuild it.

    The Series has dtype ``object`` holding Python ``float`` and ``int``, so
    ``summary(...).to_dict()`` is JSON-ready. Ratios over a zero makespan are
    NaN.
    """
    import pandas as pd

    values = summary_values(instance, schedule, tau=tau, phase_table=phase_table)
    return pd.Series(values, dtype=object, name=schedule.method or instance.name)


def _group_max_stretch(partition: np.ndarray, pack: np.ndarray,
                       stretch: np.ndarray, by_pack: bool) -> np.ndarray:
    """The max stretch of each group of jobs: each (partition, pack) with
    packs (jobs in no pack left out), else each partition that runs jobs."""
    if by_pack:
        keep = ~np.isnan(pack)
        packs = pack[keep].astype(np.int64)
        values = stretch[keep]
        # one integer per (partition, pack), in the order of the pairs
        keys = partition[keep] * (int(packs.max()) + 1 if len(packs) else 1) + packs
    else:
        keys, values = partition, stretch
    if not len(values):
        return values
    _, group = np.unique(keys, return_inverse=True)
    out = np.full(int(group.max()) + 1, -np.inf)
    np.maximum.at(out, group, values)
    return out


def summary_values(instance: Instance, schedule: Schedule, *, tau: float = 10.0,
                   phase_table: Any = None) -> dict[str, float | int]:
    """:func:`summary` as a dict of Python numbers, computed with numpy only
    (the replay front door imports no pandas)."""
    pt = phase_table
    if pt is None:
        schedule.check_shape(instance)
        ph = _phases(instance, schedule)
    else:
        ph = _Phases(pt.job, pt.c_start, pt.c_end, pt.o_start, pt.o_end)
    table = job_columns(instance, schedule, tau=tau, phases=ph)
    makespan = float(table["completion"].max())
    total_nodes = instance.platform.total_nodes
    area = total_nodes * makespan
    exec_node = float(np.dot(table["nodes"], table["exec_time"]))
    held = float(np.dot(table["nodes"], table["completion"] - table["start"]))
    delay_node = held - exec_node
    groups = _group_max_stretch(table["partition"], table["pack"], table["stretch"],
                                schedule.packs is not None)
    io_busy = _io_busy_time(instance, table["partition"], ph)
    io_area = instance.platform.num_partitions * makespan

    def share(x: float, of: float) -> float:
        return x / of if of > 0 else math.nan

    values = {
        "makespan": makespan,
        "max_stretch": float(table["stretch"].max()),
        "mean_stretch": float(table["stretch"].mean()),
        "mean_pack_max_stretch": float(groups.mean()) if len(groups) else math.nan,
        "max_flow_stretch": float(table["flow_stretch"].max()),
        "mean_bounded_slowdown": float(table["bounded_slowdown"].mean()),
        "utilisation": share(exec_node, area),
        "allocation": share(held, area),
        "exec_node_time": exec_node,
        "delay_node_time": delay_node,
        "idle_node_time": area - held,
        "io_occupancy": share(io_busy, io_area),
        "io_load_alpha": float(instance.io_load()),
        "num_packs": len(groups),
        "num_jobs": int(instance.num_jobs),
        "mean_wait": float(table["wait"].mean()),
        "max_wait": float(table["wait"].max()),
        "mean_turnaround": float(table["turnaround"].mean()),
        "mean_slowdown": float(table["flow_stretch"].mean()),
        "killed": int(table["killed"].sum()),
    }
    return values


def _snap(times: np.ndarray, rel_tol: float) -> np.ndarray:
    """Each time replaced by the first of its cluster of nearly equal times.

    Sorted distinct times closer than ``rel_tol * max(1, max |t|)`` to their
    predecessor join its cluster, so floating-point noise (an I/O phase ending
    at ``10.1 + 1e-15`` and the next starting at ``10.1``) adds no step.
    """
    if not len(times):
        return times
    grid = np.unique(times)
    eps = rel_tol * max(1.0, float(np.max(np.abs(grid))))
    first = np.concatenate(([True], np.diff(grid) > eps))
    heads = grid[first]
    return heads[np.searchsorted(heads, times, side="right") - 1]


def _step(times: np.ndarray, deltas: np.ndarray, origin: float = 0.0
          ) -> tuple[np.ndarray, np.ndarray]:
    """Breakpoints and levels of the step function ``sum of deltas at t' <= t``.

    The level at ``times_out[m]`` holds on ``[times_out[m], times_out[m+1])``.
    ``origin`` is always a breakpoint; breakpoints where the level does not
    change are dropped (except the first).
    """
    grid, inverse = np.unique(np.concatenate((times, [origin])), return_inverse=True)
    net = np.bincount(inverse, weights=np.concatenate((deltas, [0.0])),
                      minlength=len(grid))
    level = np.cumsum(net)
    keep = np.concatenate(([True], np.abs(level[1:] - level[:-1]) > 1e-9))
    return grid[keep], level[keep]


def utilisation_over_time(instance: Instance, schedule: Schedule, *,
                          rel_tol: float = 1e-9) -> pd.DataFrame:
    """Node use as a step function of time.

    Row ``m`` holds on ``[time_m, time_{m+1})``; the last row (at ``C_max``)
    is zero. Columns: ``time``; ``busy_nodes``, the nodes of jobs computing or
    doing I/O, :math:`\\sum_i Q_i [t \\text{ in a phase of } i]`;
    ``allocated_nodes``, :math:`\\sum_i Q_i [S_i \\le t < C_i]`;
    ``utilisation = busy_nodes / N`` and ``allocation = allocated_nodes / N``.
    The time average of ``utilisation`` over ``[0, C_max]`` is
    :func:`summary`'s ``utilisation`` (likewise ``allocation``). Times closer
    than ``rel_tol * max(1, max |t|)`` are merged (floating-point noise).
    """
    import pandas as pd

    rel_tol = _check_option("rel_tol", rel_tol)
    table = job_table(instance, schedule)
    ph = _phases(instance, schedule)
    q = table["nodes"].to_numpy(dtype=float)
    qp = q[ph.job]
    busy_t = np.concatenate((ph.c_start, ph.c_end, ph.o_start, ph.o_end))
    live = np.concatenate((ph.c_end > ph.c_start,) * 2 + (ph.o_end > ph.o_start,) * 2)
    busy_d = np.concatenate((qp, -qp, qp, -qp))
    s, c = table["start"].to_numpy(), table["completion"].to_numpy()
    held_t = np.concatenate((s, c))
    held_d = np.concatenate((q, -q))
    snapped = _snap(np.concatenate((busy_t[live], held_t, [0.0])), rel_tol)
    busy_t, held_t = snapped[:int(live.sum())], snapped[int(live.sum()):-1]
    busy_d = busy_d[live]
    times = np.unique(snapped)
    busy = _level_at(busy_t, busy_d, times)
    held = _level_at(held_t, held_d, times)
    keep = np.concatenate(([True], (np.abs(busy[1:] - busy[:-1]) > 0.5)
                           | (np.abs(held[1:] - held[:-1]) > 0.5)))
    total = instance.platform.total_nodes
    return pd.DataFrame({"time": times[keep],
                         "busy_nodes": busy[keep].round().astype(np.int64),
                         "allocated_nodes": held[keep].round().astype(np.int64),
                         "utilisation": busy[keep] / total,
                         "allocation": held[keep] / total})


def _level_at(times: np.ndarray, deltas: np.ndarray, at: np.ndarray) -> np.ndarray:
    """The step function ``sum of deltas at times <= t``, evaluated at ``at``."""
    order = np.argsort(times, kind="stable")
    cum = np.concatenate(([0.0], np.cumsum(deltas[order])))
    return cum[np.searchsorted(times[order], at, side="right")]


def io_occupancy_over_time(instance: Instance, schedule: Schedule, *,
                           rel_tol: float = 1e-9) -> pd.DataFrame:
    """Whether each I/O node is busy, as a step function of time.

    Rows sorted by partition then time; ``busy`` (0 or 1) holds on
    ``[time, next time of the same partition)`` and the last row of each
    partition is 0 (or its only row, at ``t = 0``, when it does no I/O).
    ``active`` counts the I/O phases in progress (more than 1 only in an
    infeasible schedule). Phases of length zero are ignored, and times closer
    than ``rel_tol * max(1, max |t|)`` are merged (floating-point noise).
    """
    import pandas as pd

    rel_tol = _check_option("rel_tol", rel_tol)
    schedule.check_shape(instance)
    ph = _phases(instance, schedule)
    partition = np.array([schedule[j.id].partition for j in instance.jobs])
    phase_part = partition[ph.job]
    live = ph.o_end > ph.o_start
    frames = []
    for k in range(instance.platform.num_partitions):
        mine = live & (phase_part == k)
        ones = np.ones(int(mine.sum()))
        times, active = _step(_snap(np.concatenate((ph.o_start[mine], ph.o_end[mine])),
                                    rel_tol),
                              np.concatenate((ones, -ones)))
        frames.append(pd.DataFrame({"time": times, "partition": k,
                                    "busy": (active > 0.5).astype(np.int64),
                                    "active": active.round().astype(np.int64)}))
    return pd.concat(frames, ignore_index=True)


def io_concurrency(instance: Instance, schedule: Schedule) -> dict[str, float]:
    """How many I/O phases run at once, over all I/O nodes: ``peak_io_phases``
    (the most at any time on one node), ``mean_io_phases`` (the time average
    of the count on a node while it is busy, averaged over busy time), and
    ``io_throughput`` (total I/O volume over the makespan: the mean rate the
    file system delivered). Under the exclusive model the counts are 1."""
    occupancy = io_occupancy_over_time(instance, schedule)
    peak, weighted, busy = 0, 0.0, 0.0
    for _, part in occupancy.groupby("partition"):
        times = part["time"].to_numpy()
        active = part["active"].to_numpy()[:-1]
        spans = np.diff(times)
        if len(active):
            peak = max(peak, int(active.max()))
            weighted += float(np.dot(active, spans))
            busy += float(spans[active > 0].sum())
    makespan = schedule.makespan(instance)
    volume = math.fsum(job.total_volume for job in instance.jobs)
    return {"peak_io_phases": float(peak),
            "mean_io_phases": weighted / busy if busy > 0 else 0.0,
            "io_throughput": volume / makespan if makespan > 0 else math.nan}


def queue_over_time(instance: Instance, schedule: Schedule, *,
                    rel_tol: float = 1e-9) -> pd.DataFrame:
    """Waiting jobs as a step function of time (SPEC §9).

    ``queued`` counts the jobs released and not started,
    :math:`|\\{i : r_i \\le t < S_i\\}|`, and ``queued_nodes`` their nodes;
    row ``m`` holds on ``[time_m, time_{m+1})``. A job with dependencies
    counts from its release (it may wait for its predecessors there).
    """
    import pandas as pd

    rel_tol = _check_option("rel_tol", rel_tol)
    table = job_table(instance, schedule)
    release = table["release"].to_numpy()
    start = table["start"].to_numpy()
    q = table["nodes"].to_numpy(dtype=float)
    ones = np.ones(len(release))
    times = _snap(np.concatenate((release, start, [0.0])), rel_tol)
    r_t, s_t = times[:len(release)], times[len(release):-1]
    grid = np.unique(times)
    count = _level_at(np.concatenate((r_t, s_t)), np.concatenate((ones, -ones)), grid)
    nodes = _level_at(np.concatenate((r_t, s_t)), np.concatenate((q, -q)), grid)
    keep = np.concatenate(([True], np.abs(np.diff(count)) > 0.5))
    return pd.DataFrame({"time": grid[keep],
                         "queued": count[keep].round().astype(np.int64),
                         "queued_nodes": nodes[keep].round().astype(np.int64)})
