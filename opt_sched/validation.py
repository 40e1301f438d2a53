"""The independent validator: is a timed schedule feasible? (SPEC §3)

Every method (simulator, heuristics, exact models) is judged here, so this
module shares no code with :mod:`opt_sched.simulation`: it never replays
events, it only checks the intervals a schedule states, with sorting and
sweep-line passes over half-open intervals ``[start, end)``.

Notation. Job ``i`` runs on partition ``k(i)`` of ``P_k`` nodes and I/O
bandwidth ``b_k``. Compute phase ``j`` occupies
``[c_ij, c_ij + w_ij)`` and I/O phase ``j`` occupies
``[o_ij, o_ij + v_ij / b_k(i))``, where the start times ``c_ij``, ``o_ij`` are
the schedule's and the lengths are the instance's (never the ends a schedule
may state; those are checked by rule 2 only). The job holds its nodes on
``[S_i, C_i)`` with ``S_i`` the earliest start and ``C_i`` the latest end of
its phases (for a schedule that obeys rule 3, ``S_i = c_i0`` and ``C_i`` is the
end of the last I/O phase, as in :meth:`Schedule.completion`).

With the horizon ``H = max_i |C_i|`` and the tolerance
``eps = rel_tol * max(1, H)``, the rules are:

1. release-and-dependencies: :math:`S_i \\ge r_i - \\varepsilon` (so also
   :math:`S_i \\ge -\\varepsilon`, releases being non-negative) and
   :math:`S_i \\ge C_p - \\varepsilon` for every predecessor ``p`` in
   ``job.after``.
2. phase-lengths: a stated end equals start plus length,
   :math:`|e^c_{ij} - (c_{ij} + w_{ij})| \\le \\varepsilon` and
   :math:`|e^o_{ij} - (o_{ij} + v_{ij}/b_{k(i)})| \\le \\varepsilon`; an I/O
   phase is a single interval, so a longer stated end is an interruption.
3. phase-order: :math:`c_{ij} + w_{ij} \\le o_{ij} + \\varepsilon` and
   :math:`o_{ij} + v_{ij}/b_{k(i)} \\le c_{i,j+1} + \\varepsilon`.
4. node-capacity: for every partition ``k`` and time ``t``,
   :math:`\\sum_{i: k(i)=k,\\ S_i \\le t < C_i} Q_i \\le P_k`; also
   :math:`Q_i \\le P_{k(i)}`, and a job the instance maps to a partition runs
   there. For every named resource ``r`` of the platform,
   :math:`\\sum_{i: S_i \\le t < C_i} d_{ir} \\le D_r` (all partitions
   together; ``d_ir`` from ``job.demands``).
5. exclusive-io: on each partition, I/O phases of positive length never
   overlap: sorted by start, each starts at or after the largest end before
   it, :math:`o_{(m)} \\ge \\max_{l < m} (o_{(l)} + \\ell_{(l)}) - \\varepsilon`.
   Zero-length phases never conflict.
6. pack-discipline (when ``schedule.packs`` is set, or ``check_packs=True``):
   the packs cover every job exactly once, on the job's partition; all jobs of
   a pack start together, :math:`|S_i - S_\\pi| \\le \\varepsilon` with
   :math:`S_\\pi = \\min_{i \\in \\pi} S_i`; and pack ``p+1`` of a partition
   starts after pack ``p`` has completed,
   :math:`S_{\\pi_{p+1}} \\ge \\max_{i \\in \\pi_p} C_i - \\varepsilon`
   (idle time between packs is allowed; empty packs are ignored).

Intervals are half-open: a phase ending at ``t`` and one starting at ``t``
never conflict. Node and resource sweeps shorten every job interval by
``eps`` at its end, so a job ending at ``t + eps/2`` does not collide with one
starting at ``t``.

The validator never stops at the first violation: every violation is
counted, and up to ``max_per_rule`` of each rule are stored with a message
naming the rule, the jobs or phases (``"a:io[3]"``) and the time. A
malformed schedule (missing job, wrong number of phases, non-finite time) is
bad input and raises :class:`~opt_sched.errors.ScheduleFormatError` instead.

Examples
--------
>>> from opt_sched import Instance, Job, JobSchedule, Platform, Schedule
>>> inst = Instance("two", Platform.homogeneous(1, nodes=4),
...                 (Job.periodic("a", 2, 2.0, 3.0), Job.periodic("b", 2, 1.0, 2.0)))
>>> sched = Schedule((JobSchedule("a", 0, (0.0,), (2.0,)),
...                   JobSchedule("b", 0, (0.0,), (1.0,))))
>>> report = validate(inst, sched)
>>> report.feasible
False
>>> print(report.violations[0].message)
rule 5 exclusive-io: b:io[0] [1, 3) overlaps a:io[0] [2, 5) on partition 0 at t=2
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .errors import InfeasibleScheduleError, OptionError, ScheduleFormatError
from .instance import Instance
from .schedule import Schedule

__all__ = [
    "MAX_PER_RULE",
    "RULES",
    "ValidationReport",
    "Violation",
    "assert_feasible",
    "validate",
]

RULES: dict[int, str] = {
    1: "release-and-dependencies",
    2: "phase-lengths",
    3: "phase-order",
    4: "node-capacity",
    5: "exclusive-io",
    6: "pack-discipline",
}
"""Rule number -> rule name (SPEC §3)."""

MAX_PER_RULE = 1000
"""Violations stored per rule by default (all of them are counted)."""

_LISTED_IN_ERROR = 10
_LISTED_IN_TEXT = 50
_NAMES_IN_MESSAGE = 12


def _t(value: float) -> str:
    """A time for a message: up to 10 significant digits, no trailing zeros."""
    return f"{value:.10g}"


def _names(items: Sequence[str]) -> str:
    shown = ", ".join(items[:_NAMES_IN_MESSAGE])
    more = len(items) - _NAMES_IN_MESSAGE
    return shown + (f", ... ({more} more)" if more > 0 else "")


# -- the report ----------------------------------------------------------------
@dataclass(frozen=True)
class Violation:
    """One broken rule: which rule, which jobs and phases, when.

    ``phases`` name phases as ``"<job>:compute[<j>]"`` or ``"<job>:io[<j>]"``;
    ``time`` is the moment the violation shows (``None`` when it has none,
    such as a job missing from the packs). ``message`` is one line that
    starts with ``"rule <n> <name>:"``.
    """

    rule: int
    name: str
    jobs: tuple[str, ...]
    phases: tuple[str, ...]
    time: float | None
    message: str

    def __str__(self) -> str:
        return self.message

    def to_dict(self) -> dict[str, Any]:
        return {"rule": self.rule, "name": self.name, "jobs": list(self.jobs),
                "phases": list(self.phases), "time": self.time,
                "message": self.message}


@dataclass(frozen=True)
class ValidationReport:
    """The verdict on one schedule.

    ``violations`` holds the stored violations (at most ``max_per_rule`` per
    rule, in rule order); ``counts`` maps every rule number to the number of
    violations *found*, stored or not. ``tolerance`` is the absolute ``eps``
    used and ``horizon`` the ``H`` it was derived from.
    """

    violations: tuple[Violation, ...]
    tolerance: float
    counts: Mapping[int, int] = field(default_factory=dict)
    horizon: float = 0.0
    instance: str = ""
    method: str = ""
    checked_packs: bool = False

    @property
    def feasible(self) -> bool:
        """No rule is broken."""
        return self.num_violations == 0

    @property
    def num_violations(self) -> int:
        """Every violation found (may exceed ``len(violations)``)."""
        return sum(self.counts.values()) if self.counts else len(self.violations)

    def by_rule(self) -> dict[int, int]:
        """Rule number -> violations found, for all six rules."""
        if self.counts:
            return {rule: int(self.counts.get(rule, 0)) for rule in RULES}
        out = dict.fromkeys(RULES, 0)
        for v in self.violations:
            out[v.rule] += 1
        return out

    def summary_line(self) -> str:
        """One line: verdict, count, and the counts of the broken rules."""
        what = f"{self.instance!r}" if self.instance else "schedule"
        if self.method:
            what += f" ({self.method})"
        if self.feasible:
            return f"{what}: feasible (tolerance {self.tolerance:.3g})"
        broken = ", ".join(f"rule {rule} {RULES[rule]}: {n}"
                           for rule, n in self.by_rule().items() if n)
        return (f"{what}: INFEASIBLE, {self.num_violations} violation"
                f"{'s' if self.num_violations != 1 else ''} ({broken}; "
                f"tolerance {self.tolerance:.3g})")

    def format(self, limit: int = _LISTED_IN_TEXT) -> str:
        """The summary line and the first ``limit`` violations, one per line."""
        lines = [self.summary_line()]
        lines += [f"  {v.message}" for v in self.violations[:limit]]
        hidden = self.num_violations - min(limit, len(self.violations))
        if hidden > 0:
            lines.append(f"  ... and {hidden} more")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.format()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"instance": self.instance, "method": self.method,
                "feasible": self.feasible, "num_violations": self.num_violations,
                "tolerance": self.tolerance, "horizon": self.horizon,
                "checked_packs": self.checked_packs,
                "counts": {RULES[r]: n for r, n in self.by_rule().items()},
                "violations": [v.to_dict() for v in self.violations]}


class _Collector:
    """Counts every violation and stores the first ``cap`` of each rule."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.counts = dict.fromkeys(RULES, 0)
        self.stored: dict[int, list[Violation]] = {rule: [] for rule in RULES}

    def room(self, rule: int) -> int:
        return max(0, self.cap - len(self.stored[rule]))

    def found(self, rule: int, count: int) -> None:
        """``count`` violations found (store the ones wanted with :meth:`add`)."""
        self.counts[rule] += int(count)

    def add(self, rule: int, text: str, jobs: Iterable[str] = (),
            phases: Iterable[str] = (), time: float | None = None) -> None:
        """Store one violation that :meth:`found` has already counted."""
        if len(self.stored[rule]) >= self.cap:
            return
        self.stored[rule].append(Violation(
            rule, RULES[rule], tuple(jobs), tuple(phases),
            None if time is None else float(time),
            f"rule {rule} {RULES[rule]}: {text}"))

    def one(self, rule: int, text: str, jobs: Iterable[str] = (),
            phases: Iterable[str] = (), time: float | None = None) -> None:
        self.found(rule, 1)
        self.add(rule, text, jobs, phases, time)

    def violations(self) -> tuple[Violation, ...]:
        return tuple(v for rule in RULES for v in self.stored[rule])


# -- the phase table -----------------------------------------------------------
@dataclass(frozen=True)
class _Phases:
    """All phases of the schedule as flat arrays, job after job.

    ``first[i]:first[i+1]`` are the phases of job ``i`` (instance order).
    Lengths are the true ones: ``w_ij`` and ``v_ij / b_k(i)``.
    """

    ids: tuple[str, ...]
    first: np.ndarray          # (n+1,) offsets into the phase arrays
    job: np.ndarray            # (m,) job index of each phase
    iteration: np.ndarray      # (m,) j
    c_start: np.ndarray
    c_end: np.ndarray
    o_start: np.ndarray
    o_end: np.ndarray
    partition: np.ndarray      # (n,) k(i)
    nodes: np.ndarray          # (n,) Q_i
    start: np.ndarray          # (n,) S_i = earliest phase start
    end: np.ndarray            # (n,) C_i = latest phase end


def _as_times(values: Sequence[float], where: str) -> np.ndarray:
    array = np.asarray(values, dtype=float)
    if not np.all(np.isfinite(array)):
        j = int(np.flatnonzero(~np.isfinite(array))[0])
        raise ScheduleFormatError(f"schedule: {where}[{j}]={values[j]!r} is not a "
                                  "finite number")
    return array


def _phase_table(instance: Instance, schedule: Schedule) -> _Phases:
    parts = instance.platform.partitions
    c_start, c_len, o_start, o_len = [], [], [], []
    partition = np.empty(instance.num_jobs, dtype=np.int64)
    for i, job in enumerate(instance.jobs):
        js = schedule[job.id]
        partition[i] = js.partition
        c_start.append(_as_times(js.compute_starts,
                                 f"job {job.id!r}: compute_starts"))
        o_start.append(_as_times(js.io_starts, f"job {job.id!r}: io_starts"))
        c_len.append(job.compute_array)
        o_len.append(job.volume_array / parts[js.partition].bandwidth)
    sizes = np.array([job.iterations for job in instance.jobs], dtype=np.int64)
    first = np.concatenate(([0], np.cumsum(sizes)))
    job_of = np.repeat(np.arange(instance.num_jobs), sizes)
    cs = np.concatenate(c_start)
    ce = cs + np.concatenate(c_len)
    os_ = np.concatenate(o_start)
    oe = os_ + np.concatenate(o_len)
    lo = np.minimum(cs, os_)
    hi = np.maximum(ce, oe)
    return _Phases(
        ids=tuple(job.id for job in instance.jobs), first=first, job=job_of,
        iteration=np.arange(len(cs)) - first[job_of],
        c_start=cs, c_end=ce, o_start=os_, o_end=oe, partition=partition,
        nodes=np.array([job.nodes for job in instance.jobs], dtype=np.int64),
        start=np.minimum.reduceat(lo, first[:-1]),
        end=np.maximum.reduceat(hi, first[:-1]))


def _label(table: _Phases, g: int, kind: str) -> str:
    return f"{table.ids[table.job[g]]}:{kind}[{table.iteration[g]}]"


# -- the rules -----------------------------------------------------------------
def _rule1_release_and_dependencies(instance: Instance, table: _Phases, eps: float,
                                    out: _Collector) -> None:
    """Rule 1: :math:`S_i \\ge r_i - \\varepsilon` and
    :math:`S_i \\ge C_p - \\varepsilon` for every predecessor ``p``."""
    release = np.array([job.release for job in instance.jobs])
    early = np.flatnonzero(table.start < release - eps)
    out.found(1, len(early))
    for i in early[:out.room(1)]:
        job = instance.jobs[i]
        what = "time 0" if job.release == 0 else f"its release {_t(job.release)}"
        out.add(1, f"job {job.id} starts at t={_t(table.start[i])} before {what}",
                jobs=(job.id,), phases=(_first_phase_label(table, i),),
                time=table.start[i])
    for i, job in enumerate(instance.jobs):
        for dep in job.after:
            p = instance.index[dep]
            if table.start[i] < table.end[p] - eps:
                out.one(1, f"job {job.id} starts at t={_t(table.start[i])} before "
                        f"its predecessor {dep} completes at t={_t(table.end[p])}",
                        jobs=(job.id, dep), phases=(_first_phase_label(table, i),),
                        time=table.start[i])


def _first_phase_label(table: _Phases, i: int) -> str:
    lo, hi = table.first[i], table.first[i + 1]
    g_c = lo + int(np.argmin(table.c_start[lo:hi]))
    g_o = lo + int(np.argmin(table.o_start[lo:hi]))
    if table.o_start[g_o] < table.c_start[g_c]:
        return _label(table, g_o, "io")
    return _label(table, g_c, "compute")


def _rule2_phase_lengths(instance: Instance, schedule: Schedule, table: _Phases,
                         eps: float, out: _Collector) -> None:
    """Rule 2: stated ends equal start + length within ``eps``:
    :math:`|e^c_{ij} - c_{ij} - w_{ij}| \\le \\varepsilon`,
    :math:`|e^o_{ij} - o_{ij} - v_{ij}/b_{k(i)}| \\le \\varepsilon`."""
    parts = instance.platform.partitions
    for i, job in enumerate(instance.jobs):
        js = schedule[job.id]
        lo, hi = table.first[i], table.first[i + 1]
        checks = (("compute", js.compute_ends, table.c_start, table.c_end),
                  ("io", js.io_ends, table.o_start, table.o_end))
        for kind, stated, starts, ends in checks:
            if stated is None:
                continue
            claimed = _as_times(stated, f"job {job.id!r}: {kind}_ends")
            bad = np.flatnonzero(np.abs(claimed - ends[lo:hi]) > eps)
            out.found(2, len(bad))
            for j in bad[:out.room(2)]:
                g = lo + j
                if kind == "compute":
                    why = f"w={_t(job.compute[j])}"
                else:
                    why = (f"volume {_t(job.io_volume[j])} at bandwidth "
                           f"{_t(parts[js.partition].bandwidth)}")
                out.add(2, f"{job.id}:{kind}[{j}] starts at t={_t(starts[g])} and is "
                        f"stated to end at t={_t(claimed[j])}, but it lasts "
                        f"{_t(ends[g] - starts[g])} ({why}) and ends at "
                        f"t={_t(ends[g])}",
                        jobs=(job.id,), phases=(f"{job.id}:{kind}[{j}]",),
                        time=starts[g])


def _rule3_phase_order(table: _Phases, eps: float, out: _Collector) -> None:
    """Rule 3: :math:`c_{ij} + w_{ij} \\le o_{ij} + \\varepsilon` and
    :math:`o_{ij} + v_{ij}/b \\le c_{i,j+1} + \\varepsilon`."""
    io_early = np.flatnonzero(table.c_end > table.o_start + eps)
    same_job = table.job[1:] == table.job[:-1]
    next_early = np.flatnonzero(same_job & (table.o_end[:-1] > table.c_start[1:] + eps))
    # report in time order of the offending start
    found = [(table.o_start[g], 0, g) for g in io_early]
    found += [(table.c_start[g + 1], 1, g) for g in next_early]
    out.found(3, len(found))
    found.sort()
    for when, kind, g in found[:out.room(3)]:
        job = table.ids[table.job[g]]
        if kind == 0:
            later, earlier = _label(table, g, "io"), _label(table, g, "compute")
            ends = table.c_end[g]
        else:
            later, earlier = _label(table, g + 1, "compute"), _label(table, g, "io")
            ends = table.o_end[g]
        out.add(3, f"{later} starts at t={_t(when)} before {earlier} ends at "
                f"t={_t(ends)}", jobs=(job,), phases=(earlier, later), time=when)


def _overload_peaks(starts: np.ndarray, ends: np.ndarray, amounts: np.ndarray,
                    capacity: float, tol: float, limit: int
                    ) -> tuple[int, list[float]]:
    """Sweep the half-open intervals ``[starts, ends)`` weighted by ``amounts``.

    Returns the number of maximal episodes during which the load exceeds
    ``capacity + tol`` and, for the first ``limit`` ones, the time of each
    episode's peak load. At equal times ends are processed before starts, and
    the load is read after the last event of each time, so touching intervals
    never add up.
    """
    keep = (ends > starts) & (amounts > 0)
    if not keep.any():
        return 0, []
    times = np.concatenate((starts[keep], ends[keep]))
    delta = np.concatenate((amounts[keep], -amounts[keep]))
    order = np.lexsort((delta, times))
    times, load = times[order], np.cumsum(delta[order])
    last_of_time = np.append(times[1:] != times[:-1], True)
    times, load = times[last_of_time], load[last_of_time]
    over = np.flatnonzero(load > capacity + tol)
    if not len(over):
        return 0, []
    cut = np.flatnonzero(np.diff(over) > 1)
    run_lo = np.concatenate(([over[0]], over[cut + 1]))
    run_hi = np.concatenate((over[cut], [over[-1]]))
    peaks = [float(times[lo + int(np.argmax(load[lo:hi + 1]))])
             for lo, hi in zip(run_lo[:limit], run_hi[:limit])]
    return len(run_lo), peaks


def _rule4_node_capacity(instance: Instance, table: _Phases, eps: float,
                         out: _Collector) -> None:
    """Rule 4: :math:`\\sum_{k(i)=k,\\ S_i \\le t < C_i} Q_i \\le P_k` for every
    ``k`` and ``t``; :math:`Q_i \\le P_{k(i)}`; a pre-mapped job runs on its
    partition; every named resource ``r`` holds
    :math:`\\sum_{S_i \\le t < C_i} d_{ir} \\le D_r`."""
    parts = instance.platform.partitions
    for i, job in enumerate(instance.jobs):
        k = int(table.partition[i])
        if job.partition is not None and job.partition != k:
            out.one(4, f"job {job.id} runs on partition {k} but the instance maps it "
                    f"to partition {job.partition}", jobs=(job.id,),
                    time=table.start[i])
        if job.nodes > parts[k].nodes:
            out.one(4, f"job {job.id} needs {job.nodes} nodes, more than the "
                    f"{parts[k].nodes} of partition {k}", jobs=(job.id,),
                    time=table.start[i])
    start, end = table.start, table.end - eps
    for k, part in enumerate(parts):
        mine = np.flatnonzero(table.partition == k)
        count, peaks = _overload_peaks(start[mine], end[mine],
                                       table.nodes[mine].astype(float),
                                       float(part.nodes), 0.5, out.room(4))
        out.found(4, count)
        for t in peaks[:out.room(4)]:
            running = mine[(start[mine] <= t) & (t < end[mine])]
            used = int(table.nodes[running].sum())
            jobs = [table.ids[i] for i in running]
            detail = [f"{table.ids[i]}: {table.nodes[i]}" for i in running]
            out.add(4, f"partition {k} has {used} of {part.nodes} nodes in use at "
                    f"t={_t(t)} ({_names(detail)})", jobs=jobs, time=t)
    capacity = instance.platform.resource_capacity
    names = sorted({name for job in instance.jobs for name, _ in job.demands})
    for name in names:
        amount = np.array([job.demand.get(name, 0.0) for job in instance.jobs])
        cap = capacity[name]
        tol = max(eps, 1e-12) * max(1.0, cap)
        count, peaks = _overload_peaks(start, end, amount, cap, tol, out.room(4))
        out.found(4, count)
        for t in peaks[:out.room(4)]:
            running = np.flatnonzero((start <= t) & (t < end) & (amount > 0))
            used = float(amount[running].sum())
            detail = [f"{table.ids[i]}: {amount[i]:.6g}" for i in running]
            out.add(4, f"resource {name} has {used:.6g} of {cap:.6g} in use at "
                    f"t={_t(t)} ({_names(detail)})",
                    jobs=[table.ids[i] for i in running], time=t)


def _rule5_exclusive_io(instance: Instance, table: _Phases, eps: float,
                        out: _Collector) -> None:
    """Rule 5: per partition, sort the I/O phases of positive length by start;
    each must start no earlier than the largest end before it,
    :math:`o_{(m)} \\ge \\max_{l<m} (o_{(l)} + \\ell_{(l)}) - \\varepsilon`.

    One violation per phase that starts inside an earlier one; its partner is
    the earlier phase that ends last.
    """
    length = table.o_end - table.o_start
    live = np.flatnonzero(length > eps)
    if not len(live):
        return
    part = table.partition[table.job[live]]
    order = live[np.lexsort((table.o_start[live], part))]
    part_sorted = table.partition[table.job[order]]
    bounds = np.flatnonzero(np.diff(part_sorted)) + 1
    for group in np.split(order, bounds):
        if len(group) < 2:
            continue
        k = int(table.partition[table.job[group[0]]])
        s, e = table.o_start[group], table.o_end[group]
        reach = np.maximum.accumulate(e)
        holder = np.maximum.accumulate(np.where(e == reach, np.arange(len(e)), 0))
        bad = np.flatnonzero(s[1:] < reach[:-1] - eps) + 1
        out.found(5, len(bad))
        for m in bad[:out.room(5)]:
            a, b = group[holder[m - 1]], group[m]
            la, lb = _label(table, a, "io"), _label(table, b, "io")
            out.add(5, f"{la} [{_t(table.o_start[a])}, {_t(table.o_end[a])}) "
                    f"overlaps {lb} [{_t(table.o_start[b])}, {_t(table.o_end[b])}) "
                    f"on partition {k} at t={_t(table.o_start[b])}",
                    jobs=(table.ids[table.job[a]], table.ids[table.job[b]]),
                    phases=(la, lb), time=table.o_start[b])


def _rule6_pack_discipline(instance: Instance, schedule: Schedule, table: _Phases,
                           eps: float, out: _Collector) -> None:
    """Rule 6: the packs partition the jobs, each on its job's partition; all
    jobs of a pack start at :math:`S_\\pi = \\min_{i\\in\\pi} S_i` (within
    ``eps``); :math:`S_{\\pi_{p+1}} \\ge \\max_{i\\in\\pi_p} C_i - \\varepsilon`."""
    packs = schedule.packs
    if packs is None:
        out.one(6, "the schedule has no packs but pack discipline was requested")
        return
    count = instance.platform.num_partitions
    seen: dict[str, tuple[int, int]] = {}
    for k, row in enumerate(packs):
        for p, pack in enumerate(row):
            for job_id in pack:
                where = f"pack {p} of partition {k}"
                if job_id not in instance.index:
                    out.one(6, f"{where} names unknown job {job_id}", jobs=(job_id,))
                    continue
                if job_id in seen:
                    k0, p0 = seen[job_id]
                    out.one(6, f"job {job_id} is in {where} and already in pack "
                            f"{p0} of partition {k0}", jobs=(job_id,))
                    continue
                seen[job_id] = (k, p)
                if k >= count:
                    out.one(6, f"job {job_id} is in {where}, which does not exist "
                            f"(platform has {count} partitions)", jobs=(job_id,))
                elif table.partition[instance.index[job_id]] != k:
                    out.one(6, f"job {job_id} runs on partition "
                            f"{table.partition[instance.index[job_id]]} but is in "
                            f"{where}", jobs=(job_id,))
    for job in instance.jobs:
        if job.id not in seen:
            out.one(6, f"job {job.id} is in no pack", jobs=(job.id,))
    for k, row in enumerate(packs):
        previous: tuple[int, float, str] | None = None   # (pack, completion, job)
        for p, pack in enumerate(row):
            # timing is checked on the jobs validly placed here (first entry,
            # on their own partition); the others are coverage errors above
            members = [instance.index[j] for j in dict.fromkeys(pack)
                       if seen.get(j) == (k, p)
                       and table.partition[instance.index[j]] == k]
            if not members:
                continue
            starts = table.start[members]
            first = members[int(np.argmin(starts))]
            s_pack = float(table.start[first])
            late = [i for i in members if table.start[i] > s_pack + eps]
            if late:
                detail = [f"{table.ids[i]} at t={_t(table.start[i])}" for i in late]
                out.one(6, f"pack {p} of partition {k} starts at t={_t(s_pack)} "
                        f"({table.ids[first]}) but not all its jobs do: "
                        f"{_names(detail)}",
                        jobs=[table.ids[first], *(table.ids[i] for i in late)],
                        time=s_pack)
            if previous is not None and s_pack < previous[1] - eps:
                out.one(6, f"pack {p} of partition {k} starts at t={_t(s_pack)} "
                        f"({table.ids[first]}) before pack {previous[0]} completes "
                        f"at t={_t(previous[1])} ({previous[2]})",
                        jobs=(table.ids[first], previous[2]), time=s_pack)
            last = members[int(np.argmax(table.end[members]))]
            previous = (p, float(table.end[last]), table.ids[last])


# -- front door ----------------------------------------------------------------
def validate(instance: Instance, schedule: Schedule, *, rel_tol: float = 1e-9,
             check_packs: bool | None = None,
             max_per_rule: int = MAX_PER_RULE) -> ValidationReport:
    """Check ``schedule`` against every rule of SPEC §3 (see the module text).

    Parameters
    ----------
    instance, schedule
        The instance and a schedule of it. The schedule's shape is checked
        first (:meth:`Schedule.check_shape`).
    rel_tol
        Relative tolerance; the absolute one is ``rel_tol * max(1, H)`` with
        ``H`` the largest absolute completion time.
    check_packs
        ``None``: check rule 6 iff ``schedule.packs`` is set. ``True``: always
        (a schedule without packs then violates it). ``False``: never.
    max_per_rule
        Violations stored per rule; all are counted.

    Returns
    -------
    ValidationReport
        Every violation found; ``report.feasible`` is the verdict.

    Raises
    ------
    ScheduleFormatError
        The schedule is malformed (not infeasible: unreadable).
    OptionError
        ``rel_tol`` or ``max_per_rule`` is out of range.
    """
    if (isinstance(rel_tol, bool) or not isinstance(rel_tol, (int, float))
            or not math.isfinite(rel_tol) or rel_tol < 0):
        raise OptionError(f"validate: rel_tol={rel_tol!r} must be a finite number >= 0")
    if isinstance(max_per_rule, bool) or not isinstance(max_per_rule, int) \
            or max_per_rule < 0:
        raise OptionError(f"validate: max_per_rule={max_per_rule!r} must be an "
                          "integer >= 0")
    if check_packs not in (None, True, False):
        raise OptionError(f"validate: check_packs={check_packs!r} must be None, "
                          "True or False")
    schedule.check_shape(instance)
    table = _phase_table(instance, schedule)
    horizon = float(np.max(np.abs(table.end)))
    eps = float(rel_tol) * max(1.0, horizon)
    out = _Collector(max_per_rule)
    _rule1_release_and_dependencies(instance, table, eps, out)
    _rule2_phase_lengths(instance, schedule, table, eps, out)
    _rule3_phase_order(table, eps, out)
    _rule4_node_capacity(instance, table, eps, out)
    _rule5_exclusive_io(instance, table, eps, out)
    packs = schedule.packs is not None if check_packs is None else check_packs
    if packs:
        _rule6_pack_discipline(instance, schedule, table, eps, out)
    return ValidationReport(out.violations(), eps, dict(out.counts), horizon,
                            instance.name, schedule.method, packs)


def assert_feasible(instance: Instance, schedule: Schedule,
                    **kwargs: Any) -> ValidationReport:
    """:func:`validate`, raising if the schedule is infeasible.

    Raises
    ------
    InfeasibleScheduleError
        One line: the verdict, then the first 10 violations separated by
        ``"; "`` and how many more there are.
    """
    report = validate(instance, schedule, **kwargs)
    if not report.feasible:
        listed = [v.message for v in report.violations[:_LISTED_IN_ERROR]]
        more = report.num_violations - len(listed)
        tail = f"; ... and {more} more" if more > 0 else ""
        raise InfeasibleScheduleError(
            f"{report.summary_line()}: {'; '.join(listed)}{tail}")
    return report
