"""What the CP-SAT scheduling models share: the time grid, the job data in
ticks, structures of schedules and the left-shift re-timer.

CP-SAT works on integers. Times are counted in *ticks* of ``tick`` time
units (the ``resolution``). Every duration is rounded **up** to whole ticks,
so an integer schedule stays feasible when its phases are re-timed at their
true, shorter lengths (see :func:`retime`). The errors this adds, and how the
solver's proven bound is turned into a valid bound of the continuous problem,
are derived in ``models/io-sched-cpsat.md`` ("Time scaling"); in short:

- the reported objective is always recomputed from the re-timed, validated
  schedule on the continuous instance;
- a tick lower bound ``LB`` of the rounded model gives the continuous bound
  ``LB * tick - E``, where ``E`` is the sum of the rounding errors of every
  item (compute lag, I/O phase, release) that one precedence path can visit;
- when every duration is a multiple of the tick (:func:`choose_grid` looks for
  such a grid first), ``E = 0`` and the scaled model is exact.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from ...errors import OptionError, SolverError
from ...instance import Instance
from ...operations import (
    JobOperations,
    allowed_partitions,
    job_operations,
    phase_starts,
)
from ...schedule import JobSchedule, Schedule
from ..deadline import Deadline

__all__ = [
    "MAX_TICKS",
    "MIN_TICKS_PER_DURATION",
    "ModelData",
    "Retimed",
    "Structure",
    "TimeGrid",
    "Timing",
    "choose_grid",
    "continuous_lengths",
    "fine_tick",
    "mapping_data",
    "one_job_per_pack",
    "retime",
    "structure_from_schedule",
    "tick_lengths",
    "to_schedule",
]

MAX_TICKS = 10**8
"""Largest horizon, in ticks, the default grid may use."""

MIN_TICKS_PER_DURATION = 1000
"""On an inexact grid, the shortest positive duration spans at least this many
ticks (unless that would exceed :data:`MAX_TICKS`)."""

_CLOSE = 1e-9
"""Relative tolerance for "this float is a whole number of ticks"."""

_CLOSE_TICKS = 1e-6
"""...capped at this many ticks: a relative tolerance alone grows with the
count (10 ticks at ``x / tick = 10^10``), and a rounded-down time counted as
the next whole tick would break a relaxation. Float noise in ``x / tick`` is
a few ulps (``2e-6`` at ``10^10``); missing it only rounds the safe way (one
tick up for :meth:`TimeGrid.up`, one down for :meth:`TimeGrid.down`)."""


# -- time grid ---
@dataclass(frozen=True)
class TimeGrid:
    """``tick`` time units per integer; ``exact`` if every duration of the
    instance is a whole number of ticks (then rounding adds no error)."""

    tick: float
    exact: bool

    def up(self, x: float) -> int:
        """``ceil(x / tick)``, with ``x`` within rounding noise of a multiple of
        the tick counted as that multiple."""
        return self._ticks(x, math.ceil)

    def down(self, x: float) -> int:
        """``floor(x / tick)`` with the same tolerance as :meth:`up`."""
        return self._ticks(x, math.floor)

    def _ticks(self, x: float, rounding: Callable[[float], int]) -> int:
        """``rounding(x / tick)``, or the nearest whole number of ticks if
        ``x / tick`` is within :data:`_CLOSE` (relative) of it and within
        :data:`_CLOSE_TICKS` ticks."""
        ratio = x / self.tick
        near = round(ratio)
        if abs(ratio - near) <= min(_CLOSE * max(1.0, abs(ratio)), _CLOSE_TICKS):
            return int(near)
        return rounding(ratio)

    def error(self, x: float) -> float:
        """``up(x) * tick - x >= 0``: what rounding ``x`` up adds."""
        return max(0.0, self.up(x) * self.tick - x)


def _as_fraction(x: float) -> Fraction | None:
    """``x`` as a fraction of denominator <= 10^4, if it is one (to 1e-12)."""
    frac = Fraction(x).limit_denominator(10**4)
    if abs(float(frac) - x) <= 1e-12 * max(1.0, abs(x)):
        return frac
    return None


def choose_grid(values: Sequence[float], horizon: float,
                resolution: float | None = None) -> TimeGrid:
    """The time grid for a model whose durations are ``values``.

    Parameters
    ----------
    values
        Every duration and release the model rounds (compute lags, I/O
        durations on every allowed partition, releases, pack starts).
    horizon
        An upper bound on the schedule length (a serial schedule).
    resolution
        Time units per tick, if the user fixes it (``> 0``).

    Notes
    -----
    Default: the largest tick ``g`` of which every value is a whole multiple
    (the gcd of the values as fractions of denominator ``<= 10^4``), if the
    horizon then spans at most :data:`MAX_TICKS`; the model is then exact.
    Otherwise ``tick = max(min positive value / MIN_TICKS_PER_DURATION,
    horizon / MAX_TICKS)`` and the model rounds up (inexact).
    """
    positive = sorted({float(v) for v in values if v > 0})
    if resolution is not None:
        if isinstance(resolution, bool) or not isinstance(resolution, (int, float)) \
                or not math.isfinite(resolution) or resolution <= 0:
            raise OptionError(f"resolution={resolution!r} must be a number > 0")
        grid = TimeGrid(float(resolution), True)
        exact = all(grid.error(v) == 0.0 for v in positive)
        return TimeGrid(float(resolution), exact)
    if not positive:
        return TimeGrid(1.0, True)
    fractions = [_as_fraction(v) for v in positive]
    if all(f is not None for f in fractions):
        g = Fraction(0)
        for f in fractions:
            assert f is not None
            g = Fraction(math.gcd(g.numerator * f.denominator,
                                  f.numerator * g.denominator),
                         g.denominator * f.denominator)
        if g > 0 and horizon / float(g) <= MAX_TICKS:
            return TimeGrid(float(g), True)
    tick = max(min(positive) / MIN_TICKS_PER_DURATION, horizon / MAX_TICKS)
    grid = TimeGrid(tick, False)
    return TimeGrid(tick, all(grid.error(v) == 0.0 for v in positive))


# -- job data ---
@dataclass
class ModelData:
    """An instance in ticks, for one problem (which partitions each job may use).

    Attributes
    ----------
    allowed
        ``allowed[i]``: the partitions job ``i`` may run on.
    lag, tail, release
        Rounded-up compute lags, tails and releases, in ticks.
    duration
        ``duration[i][q][k]``: ticks of operation ``q`` of job ``i`` on ``k``.
    length, length_ticks
        ``T_i`` (continuous, at :meth:`Instance.bandwidth_of`) and
        ``L_i = floor(T_i / tick)`` (``>= 1`` for a job of positive length).
    """

    instance: Instance
    grid: TimeGrid
    phases: list[JobOperations]
    allowed: list[tuple[int, ...]]
    lag: list[list[int]] = field(default_factory=list)
    tail: list[int] = field(default_factory=list)
    release: list[int] = field(default_factory=list)
    duration: list[list[dict[int, int]]] = field(default_factory=list)
    length: list[float] = field(default_factory=list)
    length_ticks: list[int] = field(default_factory=list)

    @classmethod
    def build(cls, instance: Instance, allowed: Sequence[tuple[int, ...]],
              resolution: float | None = None,
              extra_times: Sequence[float] = (), fine: float | None = None,
              deadline: Deadline | None = None) -> ModelData:
        """Choose the grid (:func:`choose_grid`) and round every duration.

        ``fine``: if the default grid's tick is larger, split it into the
        smallest whole number of parts that brings it to ``<= fine`` (within
        :data:`MAX_TICKS`); an exact grid stays exact. Used for max stretch
        with free starts, whose bound loses one tick per job start.

        Raises
        ------
        OutOfTimeError
            ``deadline`` passed while building.
        """
        phases = []
        for job in instance.jobs:
            if deadline is not None:
                deadline.check("the CP-SAT model data")
            phases.append(job_operations(job))
        parts = instance.platform.partitions
        values: list[float] = list(extra_times)
        serial = 0.0
        for job, ph, ks in zip(instance.jobs, phases, allowed):
            values.extend(ph.lags.tolist())
            values.append(ph.tail)
            values.append(job.release)
            values.append(job.length(instance.bandwidth_of(job)))
            for k in ks:
                values.extend((ph.volumes / parts[k].bandwidth).tolist())
            serial += max(job.length(parts[k].bandwidth) for k in ks)
        horizon = max(job.release for job in instance.jobs) + serial
        grid = choose_grid(values, max(horizon, 1e-300), resolution)
        if resolution is None and fine is not None and grid.tick > fine:
            parts_per_tick = min(math.ceil(grid.tick / fine),
                                 max(1, math.floor(MAX_TICKS * grid.tick / horizon)))
            grid = TimeGrid(grid.tick / parts_per_tick, grid.exact)
        data = cls(instance, grid, phases, [tuple(ks) for ks in allowed])
        for job, ph, ks in zip(instance.jobs, phases, allowed):
            if deadline is not None:
                deadline.check("the CP-SAT model data")
            data.lag.append([grid.up(x) for x in ph.lags.tolist()])
            data.tail.append(grid.up(ph.tail))
            data.release.append(grid.up(job.release))
            data.duration.append([{k: max(1, grid.up(v / parts[k].bandwidth))
                                   for k in ks} for v in ph.volumes.tolist()])
            length = job.length(instance.bandwidth_of(job))
            data.length.append(length)
            data.length_ticks.append(max(1, grid.down(length)) if length > 0 else 0)
        return data

    @property
    def num_jobs(self) -> int:
        return len(self.phases)

    def item_error(self, i: int) -> float:
        """Sum of the rounding errors of job ``i``'s lags, tail and operations
        (the worst partition for each operation)."""
        grid = self.grid
        parts = self.instance.platform.partitions
        ph = self.phases[i]
        total = math.fsum(grid.error(x) for x in ph.lags.tolist()) \
            + grid.error(ph.tail)
        for q, v in enumerate(ph.volumes.tolist()):
            total += max(self.duration[i][q][k] * grid.tick - v / parts[k].bandwidth
                         for k in self.allowed[i])
        return max(0.0, total)

    def serial_ticks(self, i: int) -> int:
        """Ticks of job ``i`` alone on its slowest allowed partition."""
        ops = max((sum(d[k] for d in self.duration[i]) for k in self.allowed[i]),
                  default=0)
        return sum(self.lag[i]) + self.tail[i] + ops


# -- structures and the re-timer ---
@dataclass(frozen=True)
class Structure:
    """The decisions of a schedule, without times.

    ``partition[i]`` for every job; ``io_order[k]``: the operations ``(i, q)``
    served by I/O node ``k``, in order; ``packs[k]``: the ordered packs (tuples
    of job indices) of partition ``k``, or ``None`` for a non-pack schedule,
    whose jobs then start at ``max(release, predecessors, not_before[i])``.
    """

    partition: tuple[int, ...]
    io_order: tuple[tuple[tuple[int, int], ...], ...]
    packs: tuple[tuple[tuple[int, ...], ...], ...] | None = None
    not_before: tuple[float, ...] | None = None


@dataclass(frozen=True)
class Timing:
    """Lengths used by :func:`retime`: exact (continuous) or in ticks."""

    lag: Callable[[int, int], float]
    duration: Callable[[int, int, int], float]
    tail: Callable[[int], float]
    release: Callable[[int], float]


def continuous_lengths(instance: Instance, phases: Sequence[JobOperations]
                       ) -> Timing:
    """True lengths: ``lags``, ``v / b_k``, ``tail``, ``r_i``."""
    parts = instance.platform.partitions
    return Timing(lag=lambda i, q: float(phases[i].lags[q]),
                  duration=lambda i, q, k: float(phases[i].volumes[q])
                  / parts[k].bandwidth,
                  tail=lambda i: phases[i].tail,
                  release=lambda i: instance.jobs[i].release)


def tick_lengths(data: ModelData) -> Timing:
    """Rounded lengths of :class:`ModelData`, in ticks."""
    return Timing(lag=lambda i, q: data.lag[i][q],
                  duration=lambda i, q, k: data.duration[i][q][k],
                  tail=lambda i: data.tail[i],
                  release=lambda i: data.release[i])


@dataclass(frozen=True)
class Retimed:
    """Earliest times found by :func:`retime`."""

    start: list[float]
    op_start: list[list[float]]
    completion: list[float]


def retime(instance: Instance, phases: Sequence[JobOperations],
           structure: Structure, timing: Timing,
           deadline: Deadline | None = None) -> Retimed:
    """Semi-active (left-shifted) times of ``structure`` with ``timing``.

    Every event starts as early as the structure allows: a longest-path
    computation over the precedence graph

    - job start ``>= r_i`` (and ``>= not_before[i]``), ``>= C_p`` for every
      predecessor ``p``; for packs, all jobs of a pack start together, after
      every job of the previous pack of the partition has completed;
    - operation ``q`` of job ``i`` ``>=`` end of operation ``q - 1`` (or the
      job start) ``+ lag_iq``, and ``>=`` the end of the operation served just
      before it on its I/O node;
    - ``C_i`` = end of the last operation ``+ tail_i``.

    If the structure came from a schedule that satisfies these precedences
    with lengths ``>=`` the ones of ``timing``, every time found here is
    ``<=`` the one of that schedule (longest paths are monotone in the
    lengths). This is the rounding argument of ``models/io-sched-cpsat.md``.

    Raises
    ------
    SolverError
        If the precedences contain a cycle (an inconsistent structure: a bug).
    OutOfTimeError
        ``deadline`` passed.
    """
    jobs = instance.jobs
    n = len(jobs)
    index = instance.index
    # nodes are integers: job (or pack) starts, then operations, completions
    lower: list[float] = []
    preds: list[list[tuple[int, float]]] = []

    def node(low: float = -math.inf) -> int:
        lower.append(low)
        preds.append([])
        return len(lower) - 1

    completion = [node() for _ in range(n)]
    op_node = []
    for i in range(n):
        _check(deadline)
        op_node.append([node() for _ in range(phases[i].count)])
    start_node: list[int] = [-1] * n
    if structure.packs is not None:
        for packs in structure.packs:
            previous: tuple[int, ...] = ()
            for pack in packs:
                low = max((timing.release(i) for i in pack), default=-math.inf)
                here = node(low)
                preds[here].extend((completion[m], 0.0) for m in previous)
                for i in pack:
                    start_node[i] = here
                    preds[here].extend((completion[index[d]], 0.0)
                                       for d in jobs[i].after)
                if pack:
                    previous = pack
        missing = [jobs[i].id for i in range(n) if start_node[i] < 0]
        if missing:
            raise SolverError(f"re-timer: job {missing[0]!r} is in no pack")
    else:
        for i, job in enumerate(jobs):
            low = timing.release(i)
            if structure.not_before is not None:
                low = max(low, structure.not_before[i])
            start_node[i] = node(low)
            preds[start_node[i]].extend((completion[index[d]], 0.0)
                                        for d in job.after)
    for i in range(n):
        _check(deadline)
        k = structure.partition[i]
        previous_node = start_node[i]
        previous_len = 0.0
        for q, here in enumerate(op_node[i]):
            preds[here].append((previous_node, previous_len + timing.lag(i, q)))
            previous_node = here
            previous_len = timing.duration(i, q, k)
        preds[completion[i]].append((previous_node, previous_len + timing.tail(i)))
    for k, order in enumerate(structure.io_order):
        for position, ((a, qa), (b, qb)) in enumerate(itertools.pairwise(order)):
            if position % _CHECK_EVERY == 0:
                _check(deadline)
            preds[op_node[b][qb]].append(
                (op_node[a][qa], timing.duration(a, qa, structure.partition[a])))
        for i, _ in order:
            if structure.partition[i] != k:
                raise SolverError(f"re-timer: job {jobs[i].id!r} has an operation "
                                  f"on I/O node {k} but runs on "
                                  f"{structure.partition[i]}")
    times = _longest_paths(lower, preds, deadline)
    return Retimed(
        start=[times[start_node[i]] for i in range(n)],
        op_start=[[times[v] for v in op_node[i]] for i in range(n)],
        completion=[times[completion[i]] for i in range(n)])


_CHECK_EVERY = 4096
"""Graph nodes between two deadline checks of the re-timer."""


def _check(deadline: Deadline | None) -> None:
    """Raise :class:`OutOfTimeError` if ``deadline`` has passed."""
    if deadline is not None:
        deadline.check("re-timing a schedule")


def _longest_paths(lower: Sequence[float], preds: Sequence[Sequence[tuple[int, float]]],
                   deadline: Deadline | None) -> list[float]:
    """``t_v = max(lower_v, max_{(u, w) in preds_v} t_u + w)`` in topological
    order (Kahn's algorithm).

    Raises
    ------
    SolverError
        The precedences contain a cycle (an inconsistent structure: a bug).
    """
    count = len(lower)
    missing = [len(p) for p in preds]
    # built in chunks that check the deadline: on a large graph (~10^6
    # nodes) one comprehension can outlast the limit, the more so when a
    # large heap makes each garbage collection it triggers slow
    succ: list[list[int]] = []
    for first in range(0, count, _CHECK_EVERY):
        _check(deadline)
        succ.extend([] for _ in range(min(_CHECK_EVERY, count - first)))
    for v, items in enumerate(preds):
        if v % _CHECK_EVERY == 0:
            _check(deadline)
        for u, _ in items:
            succ[u].append(v)
    ready = [v for v in range(count) if missing[v] == 0]
    times = [-math.inf] * count
    done = 0
    while ready:
        v = ready.pop()
        done += 1
        if done % _CHECK_EVERY == 0:
            _check(deadline)
        value = lower[v]
        for u, weight in preds[v]:
            if times[u] + weight > value:
                value = times[u] + weight
        times[v] = value
        for w in succ[v]:
            missing[w] -= 1
            if missing[w] == 0:
                ready.append(w)
    if done < count:
        raise SolverError(f"re-timer: cyclic precedences ({count - done} events "
                          "never become ready)")
    return times


def to_schedule(instance: Instance, phases: Sequence[JobOperations],
                structure: Structure, times: Retimed, method: str,
                info: Mapping[str, object] | None = None) -> Schedule:
    """The :class:`Schedule` of continuous re-timed ``times``.

    Compute phase ``j`` starts when I/O phase ``j - 1`` ends (at ``S_i`` for
    ``j = 0``); a zero-volume I/O phase starts and ends when its compute
    phase ends.
    """
    parts = instance.platform.partitions
    out = []
    for i, job in enumerate(instance.jobs):
        k = structure.partition[i]
        compute_starts, io_starts = phase_starts(job, times.start[i], times.op_start[i],
                                                 parts[k].bandwidth)
        out.append(JobSchedule(job.id, k, compute_starts, io_starts))
    packs = None
    if structure.packs is not None:
        ids = [job.id for job in instance.jobs]
        packs = tuple(tuple(tuple(ids[i] for i in pack) for pack in part if pack)
                      for part in structure.packs)
    return Schedule(tuple(out), packs=packs, method=method, info=dict(info or {}))


def structure_from_schedule(instance: Instance, phases: Sequence[JobOperations],
                            schedule: Schedule) -> Structure:
    """The decisions of a (validated) schedule: partitions, I/O orders, packs."""
    index = instance.index
    num = instance.platform.num_partitions
    partition = tuple(schedule[job.id].partition for job in instance.jobs)
    ops: list[list[tuple[float, int, int]]] = [[] for _ in range(num)]
    for i, job in enumerate(instance.jobs):
        js = schedule[job.id]
        for q, j in enumerate(phases[i].iterations.tolist()):
            ops[partition[i]].append((js.io_starts[j], i, q))
    order = tuple(tuple((i, q) for _, i, q in sorted(items)) for items in ops)
    packs = None
    if schedule.packs is not None:
        packs = tuple(tuple(tuple(index[x] for x in pack) for pack in part)
                      for part in schedule.packs)
        packs = packs + ((),) * (num - len(packs))
    return Structure(partition, order, packs)


# -- models that choose partitions ---
def fine_tick(instance: Instance, objective: str) -> float | None:
    """For max (flow) stretch with free starts: a tick of at most ``1e-7
    T_min``, so that the one tick a job start (or release) loses costs
    ``<= 1e-7`` in stretch."""
    if objective not in ("max-stretch", "max-flow-stretch"):
        return None
    lengths = [job.length(instance.bandwidth_of(job)) for job in instance.jobs]
    positive = [t for t in lengths if t > 0]
    return 1e-7 * min(positive) if positive else None


def mapping_data(instance: Instance, objective: str, resolution: float | None,
                 deadline: Deadline | None = None) -> ModelData:
    """Tick data for the models that choose partitions (HPC-IO, packs): every
    job may run on its allowed partitions
    (:func:`opt_sched.operations.allowed_partitions`)."""
    return ModelData.build(instance, allowed_partitions(instance), resolution,
                           fine=fine_tick(instance, objective), deadline=deadline)


def one_job_per_pack(data: ModelData) -> Structure:
    """Every job alone in its pack, on its fastest allowed partition, packs in
    topological order: always feasible (a job fits its partition). The
    fallback warm start of the models that choose partitions."""
    instance = data.instance
    parts = instance.platform.partitions
    partition = []
    for i, job in enumerate(instance.jobs):
        partition.append(min(data.allowed[i],
                             key=lambda k: (job.length(parts[k].bandwidth), k)))
    packs: list[list[tuple[int, ...]]] = [[] for _ in parts]
    io_order: list[list[tuple[int, int]]] = [[] for _ in parts]
    for i in instance.topological_order():
        k = partition[i]
        packs[k].append((i,))
        io_order[k].extend((i, q) for q in range(data.phases[i].count))
    return Structure(tuple(partition), tuple(tuple(o) for o in io_order),
                     packs=tuple(tuple(p) for p in packs))
