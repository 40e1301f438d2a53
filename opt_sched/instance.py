"""The data model: partitions, the platform, jobs and the instance (SPEC §1-2).

All records are frozen dataclasses that check themselves on construction and
raise :class:`~opt_sched.errors.InstanceError` with a one-line message naming
the field and the value. An :class:`Instance` is immutable; derive variants
with :meth:`Instance.replace`.

Notation (SPEC §2): job ``i`` has ``Q_i`` nodes, release ``r_i`` and
``n_i`` iterations; iteration ``j`` is a compute phase of length ``w_ij``
followed by an I/O phase of volume ``v_ij``. On a partition of bandwidth
``b`` its contention-free length is

.. math:: T_i(b) = \\sum_j \\left(w_{ij} + v_{ij} / b\\right).
"""

from __future__ import annotations

import dataclasses
import heapq
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from .errors import InstanceError
from .limits import (
    MAX_COUNT,
    MAX_ITERATIONS,
    MAX_PARTITIONS,
    MAX_VALUE,
    MIN_BANDWIDTH,
    MIN_NORMAL,
)

__all__ = ["Instance", "Job", "Partition", "Platform", "topological_order"]


def _shown(value: object) -> str:
    """``repr(value)``, shortened for absurd inputs (a 400-digit integer)."""
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:12]}...({len(text)} characters)"


def _check_number(where: str, name: str, value: object, *, low: float = 0.0,
                  strict: bool = False, high: float = MAX_VALUE,
                  smallest: float = MIN_NORMAL) -> float:
    """Return ``value`` as a float, or raise naming ``where`` and ``name``.

    Accepted: a finite number with ``low <= value`` (``<`` if ``strict``),
    ``value <= high``, and ``value == 0`` or ``|value| >= smallest`` (by
    default: no subnormal number); the limits are in :mod:`opt_sched.limits`.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InstanceError(f"{where}: {name}={_shown(value)} is not a number")
    try:
        number = float(value)
    except OverflowError:
        raise InstanceError(f"{where}: {name}={_shown(value)} exceeds the limit "
                            f"{high:g}") from None
    if math.isnan(number) or math.isinf(number):
        raise InstanceError(f"{where}: {name}={value!r} is not finite")
    if number < low or (strict and number == low):
        relation = ">" if strict else ">="
        raise InstanceError(f"{where}: {name}={value!r} must be {relation} {low:g}")
    if number > high:
        raise InstanceError(f"{where}: {name}={_shown(value)} exceeds the limit "
                            f"{high:g}")
    if number != 0 and abs(number) < smallest:
        raise InstanceError(f"{where}: {name}={value!r} is below the limit "
                            f"{smallest:g} (the smallest non-zero value allowed)")
    return number


def _check_int(where: str, name: str, value: object, *, low: int = 0,
               high: int = MAX_COUNT) -> int:
    """Return ``value`` as an int in ``[low, high]``, or raise naming it."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InstanceError(f"{where}: {name}={_shown(value)} is not an integer")
    if isinstance(value, float) and not value.is_integer():
        raise InstanceError(f"{where}: {name}={value!r} is not an integer")
    number = int(value)
    if number < low:
        raise InstanceError(f"{where}: {name}={_shown(value)} must be >= {low}")
    if number > high:
        raise InstanceError(f"{where}: {name}={_shown(value)} exceeds the limit "
                            f"{high:,}")
    return number


@dataclass(frozen=True)
class Partition:
    """A set of ``nodes`` compute nodes behind one I/O node of ``bandwidth``.

    Bandwidth is in volume units per second; an I/O phase of volume ``v``
    lasts ``v / bandwidth`` seconds on this partition.
    """

    nodes: int
    bandwidth: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "nodes",
                           _check_int("platform", "nodes", self.nodes, low=1))
        object.__setattr__(self, "bandwidth", _check_number(
            "platform", "bandwidth", self.bandwidth, strict=True,
            smallest=MIN_BANDWIDTH))


@dataclass(frozen=True)
class Platform:
    """``R`` partitions, each with its own I/O node (SPEC §1).

    ``resources`` optionally names extra renewable capacities for the
    average-bandwidth planning model (for instance ``{"bandwidth": 1.0,
    "burst_buffer": 100}``), stored as sorted ``(name, capacity)`` pairs.
    """

    partitions: tuple[Partition, ...]
    resources: tuple[tuple[str, float], ...] = ()

    def __post_init__(self) -> None:
        parts = tuple(self.partitions)
        if not parts:
            raise InstanceError("platform: partitions=0 must be >= 1")
        object.__setattr__(self, "partitions", parts)
        checked = []
        for name, cap in sorted(dict(self.resources).items()):
            if not isinstance(name, str) or not name:
                raise InstanceError(f"platform: resource name {name!r} is not a string")
            checked.append((name, _check_number("platform", f"resources.{name}", cap)))
        object.__setattr__(self, "resources", tuple(checked))

    @classmethod
    def homogeneous(cls, partitions: int = 1, nodes: int = 2048,
                    bandwidth: float = 1.0) -> Platform:
        """``partitions`` identical partitions of ``nodes`` and ``bandwidth``."""
        count = _check_int("platform", "partitions", partitions, low=1,
                           high=MAX_PARTITIONS)
        return cls(tuple(Partition(nodes, bandwidth) for _ in range(count)))

    @property
    def num_partitions(self) -> int:
        return len(self.partitions)

    @property
    def is_homogeneous(self) -> bool:
        first = self.partitions[0]
        return all(p == first for p in self.partitions)

    @property
    def total_nodes(self) -> int:
        return sum(p.nodes for p in self.partitions)

    @property
    def max_nodes(self) -> int:
        return max(p.nodes for p in self.partitions)

    @property
    def resource_capacity(self) -> dict[str, float]:
        return dict(self.resources)


@dataclass(frozen=True)
class Job:
    """A rigid job: ``nodes`` nodes and a sequence of (compute, I/O) iterations.

    ``compute[j]`` is ``w_ij`` in seconds and ``io_volume[j]`` is ``v_ij`` in
    bandwidth x seconds; both tuples have one entry per iteration.
    Online scheduling (SPEC §9) also reads ``walltime`` (the requested time
    ``e_i``, the only length a scheduler may see), ``user`` and ``group``
    (executable or account: the job group of history-based estimates and
    fair-share).
    """

    id: str
    nodes: int
    compute: tuple[float, ...]
    io_volume: tuple[float, ...]
    release: float = 0.0
    user: str | None = None
    walltime: float | None = None
    group: str | None = None
    after: tuple[str, ...] = ()
    partition: int | None = None
    demands: tuple[tuple[str, float], ...] = field(default=())

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id:
            raise InstanceError(f"job {self.id!r}: id must be a non-empty string")
        where = f"job {self.id!r}"
        set_ = object.__setattr__
        set_(self, "nodes", _check_int(where, "nodes", self.nodes, low=0))
        compute = tuple(self.compute)
        volume = tuple(self.io_volume)
        if not compute:
            raise InstanceError(f"{where}: iterations=0 must be >= 1")
        if len(compute) != len(volume):
            raise InstanceError(
                f"{where}: {len(compute)} compute phases but {len(volume)} I/O phases")
        set_(self, "compute", _check_phase_values(where, "compute", compute))
        set_(self, "io_volume", _check_phase_values(where, "io_volume", volume))
        set_(self, "release", _check_number(where, "release", self.release))
        if self.walltime is not None:
            set_(self, "walltime", _check_number(where, "walltime", self.walltime,
                                                 strict=True))
        if self.user is not None and not isinstance(self.user, str):
            raise InstanceError(f"{where}: user={self.user!r} is not a string")
        if self.group is not None and not isinstance(self.group, str):
            raise InstanceError(f"{where}: group={self.group!r} is not a string")
        after = tuple(self.after)
        for dep in after:
            if not isinstance(dep, str):
                raise InstanceError(f"{where}: after entry {dep!r} is not a job id")
        if len(set(after)) != len(after):
            raise InstanceError(f"{where}: after={list(after)!r} lists a job twice")
        if self.id in after:
            raise InstanceError(f"{where}: after lists the job itself")
        set_(self, "after", after)
        if self.partition is not None:
            set_(self, "partition",
                 _check_int(where, "partition", self.partition, low=0))
        demands = []
        for name, amount in sorted(dict(self.demands).items()):
            demands.append((name, _check_number(where, f"demands.{name}", amount)))
        set_(self, "demands", tuple(demands))

    # -- derived quantities (SPEC §2) ------------------------------------
    @property
    def iterations(self) -> int:
        """``n_i``."""
        return len(self.compute)

    @cached_property
    def total_compute(self) -> float:
        """``sum_j w_ij``."""
        return math.fsum(self.compute)

    @cached_property
    def total_volume(self) -> float:
        """``V_i = sum_j v_ij``."""
        return math.fsum(self.io_volume)

    @cached_property
    def is_periodic(self) -> bool:
        """All iterations have the same ``w`` and the same ``v``."""
        return (all(w == self.compute[0] for w in self.compute)
                and all(v == self.io_volume[0] for v in self.io_volume))

    def length(self, bandwidth: float) -> float:
        """``T_i(b) = sum_j (w_ij + v_ij / b)``, the contention-free length."""
        return self.total_compute + self.total_volume / bandwidth

    def io_time(self, bandwidth: float) -> float:
        """``V_i / b``, the time the job spends on the I/O node."""
        return self.total_volume / bandwidth

    def average_bandwidth(self, bandwidth: float) -> float:
        """``beta_i = V_i / T_i(b)`` (0 for a job of length 0)."""
        length = self.length(bandwidth)
        return self.total_volume / length if length > 0 else 0.0

    def io_fraction(self, bandwidth: float) -> float:
        """``(V_i / b) / T_i(b)``, the share of its time spent in I/O."""
        length = self.length(bandwidth)
        return self.io_time(bandwidth) / length if length > 0 else 0.0

    def characteristic_time(self, bandwidth: float) -> float:
        """The mean period ``T_i(b) / n_i`` (``w_i + v_i/b`` for a periodic job)."""
        return self.length(bandwidth) / self.iterations

    @cached_property
    def compute_array(self) -> np.ndarray:
        return np.asarray(self.compute, dtype=float)

    @cached_property
    def volume_array(self) -> np.ndarray:
        return np.asarray(self.io_volume, dtype=float)

    @property
    def demand(self) -> dict[str, float]:
        return dict(self.demands)

    @classmethod
    def periodic(cls, id: str, nodes: int, compute: float, io_volume: float,
                 iterations: int = 1, **kwargs: object) -> Job:
        """A job of ``iterations`` identical (compute, I/O) iterations."""
        count = _check_int(f"job {id!r}", "iterations", iterations, low=1,
                           high=MAX_ITERATIONS)
        return cls(id, nodes, (compute,) * count, (io_volume,) * count, **kwargs)


def _check_phase_values(where: str, name: str, values: tuple) -> tuple[float, ...]:
    """The values as floats, each checked by :func:`_check_number` (a long
    tuple of floats is checked at once with numpy; the first bad value then
    gets the same one-line message from the per-value path)."""
    if len(values) > MAX_ITERATIONS:
        raise InstanceError(f"{where}: iterations={len(values):,} exceeds the limit "
                            f"{MAX_ITERATIONS:,}")
    if len(values) >= 16 and all(type(v) is float for v in values):
        array = np.fromiter(values, float, len(values))
        if (np.isfinite(array).all() and array.min() >= 0.0
                and array.max() <= MAX_VALUE
                and not ((array != 0) & (array < MIN_NORMAL)).any()):
            return values
    out = []
    for index, value in enumerate(values):
        out.append(_check_number(where, f"{name}[{index}]", value))
    return tuple(out)


def _job_sums(values: np.ndarray, off: np.ndarray, jobs: Sequence[Job],
              total: str) -> np.ndarray:
    """Each job's sum of its phases' ``values`` (job ``i`` owns
    ``off[i]:off[i+1]``), equal to the job's own ``total`` (a
    :func:`math.fsum`): a one-phase job's sum is its one value, read from the
    array; a longer job's is its ``total``."""
    sums = values[off[:-1]] if len(values) else np.zeros(len(jobs))
    longer = np.flatnonzero(np.diff(off) > 1)
    if len(longer):
        sums = sums.copy()
        sums[longer] = [getattr(jobs[i], total) for i in longer.tolist()]
    return sums


@dataclass(frozen=True)
class JobArrays:
    """The jobs of an instance as arrays, one entry per job in instance
    order (:attr:`Instance.job_arrays`).

    ``walltime`` is ``inf`` for a job without one, ``partition`` ``-1`` for an
    unmapped job; ``bandwidth`` is ``b`` of :meth:`Instance.bandwidth_of`, so
    the contention-free length is :attr:`length`.
    """

    nodes: np.ndarray
    release: np.ndarray
    walltime: np.ndarray
    partition: np.ndarray
    iterations: np.ndarray
    total_compute: np.ndarray
    total_volume: np.ndarray
    bandwidth: np.ndarray

    @property
    def length(self) -> np.ndarray:
        """``T_i(b) = sum_j w_ij + V_i / b`` with each job's own ``b``."""
        return self.total_compute + self.total_volume / self.bandwidth


@dataclass(frozen=True)
class Instance:
    """A platform and a batch of jobs, checked for consistency.

    Checks: unique job ids; every ``after`` names a job of the instance and the
    dependencies form no cycle; every job fits some partition
    (``Q_i <= max_k P_k``) and, if it is pre-mapped, fits its partition;
    every demand names a platform resource and does not exceed its capacity.
    """

    name: str
    platform: Platform
    jobs: tuple[Job, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.name, str):
            raise InstanceError(f"instance: name={self.name!r} is not a string")
        jobs = tuple(self.jobs)
        object.__setattr__(self, "jobs", jobs)
        if not jobs:
            raise InstanceError("instance: jobs is empty")
        seen: dict[str, int] = {}
        for index, job in enumerate(jobs):
            if job.id in seen:
                raise InstanceError(f"job {job.id!r}: duplicate id "
                                    f"(jobs {seen[job.id]} and {index})")
            seen[job.id] = index
        self.__dict__["index"] = seen  # the cached :attr:`index`, built here
        widest = self.platform.max_nodes
        capacity = self.platform.resource_capacity
        for job in jobs:
            if job.nodes > widest:
                raise InstanceError(f"job {job.id!r}: nodes={job.nodes} exceeds every "
                                    f"partition (max {widest})")
            if job.partition is not None:
                if job.partition >= self.platform.num_partitions:
                    raise InstanceError(
                        f"job {job.id!r}: partition={job.partition} does not exist "
                        f"(platform has {self.platform.num_partitions})")
                size = self.platform.partitions[job.partition].nodes
                if job.nodes > size:
                    raise InstanceError(
                        f"job {job.id!r}: nodes={job.nodes} exceeds its partition "
                        f"{job.partition} ({size} nodes)")
            for dep in job.after:
                if dep not in seen:
                    raise InstanceError(
                        f"job {job.id!r}: after names unknown job {dep!r}")
            for name, amount in job.demands:
                if name not in capacity:
                    raise InstanceError(
                        f"job {job.id!r}: demands.{name} names no platform resource")
                if amount > capacity[name]:
                    raise InstanceError(
                        f"job {job.id!r}: demands.{name}={amount:g} exceeds the "
                        f"capacity {capacity[name]:g}")
        cycle = _find_cycle(jobs)
        if cycle:
            raise InstanceError("instance: dependency cycle " + " -> ".join(cycle))

    # -- lookups -----------------------------------------------------------
    @cached_property
    def index(self) -> dict[str, int]:
        """Job id -> position in :attr:`jobs`."""
        return {job.id: i for i, job in enumerate(self.jobs)}

    def job(self, job_id: str) -> Job:
        try:
            return self.jobs[self.index[job_id]]
        except KeyError:
            raise InstanceError(f"instance: no job {job_id!r}") from None

    @property
    def num_jobs(self) -> int:
        return len(self.jobs)

    @cached_property
    def phase_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(off, w, v)``: every phase of every job as flat read-only arrays,
        job after job; job ``i`` owns ``off[i]:off[i+1]``, ``w`` are the
        compute lengths ``w_ij`` and ``v`` the I/O volumes ``v_ij``."""
        jobs = self.jobs
        n = len(jobs)
        counts = np.fromiter((job.iterations for job in jobs), np.int64, n)
        off = np.zeros(n + 1, np.int64)
        np.cumsum(counts, out=off[1:])
        total = int(off[-1])
        if total > 8 * n:  # long jobs: concatenate their cached arrays
            w = np.concatenate([job.compute_array for job in jobs])
            v = np.concatenate([job.volume_array for job in jobs])
        else:
            w = np.fromiter((x for job in jobs for x in job.compute), float, total)
            v = np.fromiter((x for job in jobs for x in job.io_volume), float, total)
        for array in (off, w, v):
            array.setflags(write=False)
        return off, w, v

    def adopt_phase_arrays(self, off: np.ndarray, w: np.ndarray, v: np.ndarray
                           ) -> None:
        """Take ``(off, w, v)`` as :attr:`phase_arrays`, from a maker that
        built the jobs from these very arrays (the trace conversion: job
        ``i`` repeats ``w[off[i]]`` and ``v[off[i]]``), instead of walking
        the jobs again. Checked: the shapes, the first job's first compute
        length and the last job's last volume (a cheap guard against arrays
        of another instance, not a proof: the maker vouches for the rest,
        and ``tests/test_traces_convert.py`` compares them)."""
        off, w, v = (np.asarray(a) for a in (off, w, v))
        n = len(self.jobs)
        if (off.shape != (n + 1,) or w.shape != v.shape or w.shape != (int(off[-1]),)
                or (n and (self.jobs[0].compute[0] != w[0]
                           or self.jobs[-1].io_volume[-1] != v[-1]))):
            raise ValueError("adopt_phase_arrays: the arrays are not this "
                             "instance's phases")
        for array in (off, w, v):
            array.setflags(write=False)
        self.__dict__["phase_arrays"] = (off, w, v)

    @cached_property
    def job_arrays(self) -> JobArrays:
        """Every job's numbers as read-only arrays in instance order
        (:class:`JobArrays`), built in one pass: what the replay engine's job
        table, the metrics and :meth:`io_load` read instead of walking the
        jobs again."""
        jobs = self.jobs
        n = len(jobs)
        off, w, v = self.phase_arrays
        own = np.fromiter((self.bandwidth_of(job) for job in jobs), float, n)
        arrays = JobArrays(
            nodes=np.fromiter((job.nodes for job in jobs), np.int64, n),
            release=np.fromiter((job.release for job in jobs), float, n),
            walltime=np.fromiter((math.inf if job.walltime is None else job.walltime
                                  for job in jobs), float, n),
            partition=np.fromiter((-1 if job.partition is None else job.partition
                                   for job in jobs), np.int64, n),
            iterations=np.diff(off),
            total_compute=_job_sums(w, off, jobs, "total_compute"),
            total_volume=_job_sums(v, off, jobs, "total_volume"),
            bandwidth=own)
        for name in dataclasses.fields(arrays):
            getattr(arrays, name.name).setflags(write=False)
        return arrays

    @property
    def num_io_phases(self) -> int:
        return sum(job.iterations for job in self.jobs)

    @cached_property
    def has_dependencies(self) -> bool:
        return any(job.after for job in self.jobs)

    @cached_property
    def is_mapped(self) -> bool:
        """Every job names its partition (the IO-SCHED case)."""
        return all(job.partition is not None for job in self.jobs)

    def effective_partition(self, job: Job) -> int | None:
        """The partition ``job`` runs on whatever the schedule: its own
        (``job.partition``), partition 0 on a one-partition platform, else
        ``None`` (the schedule chooses). Every layer reads a job's mapping
        through this one rule."""
        if job.partition is not None:
            return job.partition
        return 0 if self.platform.num_partitions == 1 else None

    def topological_order(self, priority: Sequence[float] | None = None
                          ) -> list[int]:
        """Job indices such that every job comes after its predecessors;
        ties by smallest ``priority`` then index (see :func:`topological_order`)."""
        order = topological_order(self.jobs, priority)
        assert order is not None
        return order

    def bandwidth_of(self, job: Job) -> float:
        """The bandwidth ``b`` used to define the job's stretch and length.

        A pre-mapped job uses its partition's bandwidth. Otherwise the largest
        bandwidth of the platform (the seeds' ``b``, all partitions being
        equal there): the fastest the job could ever run.
        """
        if job.partition is not None:
            return self.platform.partitions[job.partition].bandwidth
        return self._widest_bandwidth

    @cached_property
    def _widest_bandwidth(self) -> float:
        return max(p.bandwidth for p in self.platform.partitions)

    def io_load(self) -> float:
        """I/O load ``alpha`` (seed 003 eq. 6, SPEC §4).

        .. math:: \\alpha = P \\sum_i (V_i / b) / \\sum_i Q_i T_i(b)

        with ``P`` the nodes and ``b`` the bandwidth of one partition (the
        largest ones on a heterogeneous platform).
        """
        nodes = self.platform.max_nodes
        band = max(p.bandwidth for p in self.platform.partitions)
        arrays = self.job_arrays
        work = math.fsum(arrays.nodes * (arrays.total_compute
                                         + arrays.total_volume / band))
        if work <= 0:
            return 0.0
        return nodes * math.fsum(arrays.total_volume / band) / work

    def replace(self, **changes: object) -> Instance:
        """A copy with some fields changed (checked again)."""
        return dataclasses.replace(self, **changes)

    def with_jobs(self, jobs: Iterable[Job]) -> Instance:
        return self.replace(jobs=tuple(jobs))

    def subset(self, job_ids: Sequence[str], name: str | None = None) -> Instance:
        """The instance restricted to ``job_ids`` (dependencies outside dropped)."""
        keep = set(job_ids)
        jobs = [dataclasses.replace(j, after=tuple(d for d in j.after if d in keep))
                for j in self.jobs if j.id in keep]
        return Instance(name or self.name, self.platform, tuple(jobs))

    def mapped_to(self, mapping: Mapping[str, int]) -> Instance:
        """A copy where each job of ``mapping`` is pre-mapped to a partition."""
        jobs = [dataclasses.replace(j, partition=mapping.get(j.id, j.partition))
                for j in self.jobs]
        return self.with_jobs(jobs)


def topological_order(jobs: Sequence[Job],
                      priority: Sequence[float] | None = None) -> list[int] | None:
    """Kahn's algorithm with a min-heap; ``None`` if the dependencies contain a
    cycle.

    Among the jobs whose predecessors are all placed, the one with the
    smallest ``(priority[i], i)`` comes next (default: the lowest index, so
    instance order when there are no dependencies). Dependencies on jobs not
    in ``jobs`` are ignored, so a subset can be ordered on its own.
    """
    index = {job.id: i for i, job in enumerate(jobs)}
    key = list(priority) if priority is not None else [0.0] * len(jobs)
    indegree = [0] * len(jobs)
    successors: list[list[int]] = [[] for _ in jobs]
    for i, job in enumerate(jobs):
        for dep in job.after:
            if dep in index:
                successors[index[dep]].append(i)
                indegree[i] += 1
    ready = [(key[i], i) for i, d in enumerate(indegree) if d == 0]
    heapq.heapify(ready)
    order: list[int] = []
    while ready:
        _, i = heapq.heappop(ready)
        order.append(i)
        for s in successors[i]:
            indegree[s] -= 1
            if indegree[s] == 0:
                heapq.heappush(ready, (key[s], s))
    return order if len(order) == len(jobs) else None


def _find_cycle(jobs: Sequence[Job]) -> list[str]:
    """The ids along one dependency cycle, or ``[]`` if there is none."""
    if not any(job.after for job in jobs) or topological_order(jobs) is not None:
        return []
    by_id = {job.id: job for job in jobs}
    state: dict[str, int] = {}
    for start in by_id:
        if start in state:
            continue
        stack = [(start, iter(by_id[start].after))]
        path = [start]
        state[start] = 1
        while stack:
            node, deps = stack[-1]
            nxt = next(deps, None)
            if nxt is None:
                state[node] = 2
                stack.pop()
                path.pop()
            elif state.get(nxt) == 1:
                return [*path[path.index(nxt):], nxt]
            elif nxt not in state and nxt in by_id:
                state[nxt] = 1
                stack.append((nxt, iter(by_id[nxt].after)))
                path.append(nxt)
    return ["?"]
