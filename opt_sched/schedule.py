"""Timed schedules: what every method produces and the validator judges.

A :class:`Schedule` gives each job a partition ``k(i)`` and the start time of
every phase: ``compute_starts[j]`` for compute phase ``j`` and ``io_starts[j]``
for I/O phase ``j``. Phase lengths are not stored; they follow from the
instance (``w_ij`` and ``v_ij / b_k(i)``). A method may also state the end
times it believes (``compute_ends``, ``io_ends``); the validator then checks
them against the true lengths (SPEC §3 rule 2). A schedule makes no claim of
feasibility: :func:`opt_sched.validate` decides that.

``packs`` is set only by pack schedules: for every partition, its ordered
packs as tuples of job ids (SPEC §3 rule 6).

Online schedules (SPEC §9) may also give each job the ``machines`` it holds
(machine numbers ``0..P_k-1`` of its partition; rule 4 is then checked per
machine): any sequence of numbers, or a :class:`MachineSet` -- the machines
as sorted runs, Batsim's interval set, which is what the replay engine
stores (a job holding 49,152 machines is a few runs, not 49,152 numbers) --
and, for a job killed at its wall time, ``killed_at = S_i + e_i``:
its phase lists then stop at the last phase started before that instant, and
that phase may be cut there. ``execution`` names the execution model the
schedule was made under (SPEC §10); the validator applies that model's I/O
rule.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import chain
from typing import Any, overload

import numpy as np

from .errors import ScheduleFormatError
from .instance import Instance, Job

__all__ = ["JobSchedule", "MachineSet", "Packs", "Schedule"]

Packs = tuple[tuple[tuple[str, ...], ...], ...]
"""``packs[k][p]`` = the ids of pack ``p`` on partition ``k``, in order."""


class MachineSet(Sequence[int]):
    """Distinct machine numbers, increasing, stored as maximal runs
    ``[low, high)`` (Batsim's interval sets: ``"0-511 1024-1535"``).

    A read-only sequence of ints: ``len``, iteration (increasing), indexing,
    ``in`` and equality with any sequence of the same numbers in the same
    order (``MachineSet.from_machines([0, 1, 2]) == (0, 1, 2)``). Its size in
    memory follows the number of runs, not of machines.
    """

    __slots__ = ("_bounds", "_ends", "_hash")

    def __init__(self, runs: Iterable[tuple[int, int]] = ()) -> None:
        """From half-open runs ``(low, high)``: any order, overlapping or
        touching runs are merged; empty runs are dropped. Raises
        :class:`ValueError` on a negative number."""
        merged: list[list[int]] = []
        for low, high in sorted((int(lo), int(hi)) for lo, hi in runs if hi > lo):
            if low < 0:
                raise ValueError(f"machine set: run [{low}, {high}) has a negative "
                                 "machine number")
            if merged and low <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], high)
            else:
                merged.append([low, high])
        self._set_bounds(tuple(chain.from_iterable(merged)))

    def _set_bounds(self, bounds: tuple[int, ...]) -> None:
        self._bounds = bounds
        self._ends: tuple[int, ...] | None = None  # built on first need
        self._hash: int | None = None

    def _run_ends(self) -> tuple[int, ...]:
        """How many machines the runs hold up to the end of each run (for
        ``len`` and indexing); a replay builds tens of thousands of sets and
        reads few of them this way."""
        if self._ends is None:
            bounds = self._bounds
            total, ends = 0, []
            for low, high in zip(bounds[::2], bounds[1::2]):
                total += high - low
                ends.append(total)
            self._ends = tuple(ends)
        return self._ends

    @classmethod
    def _from_bounds(cls, bounds: tuple[int, ...]) -> MachineSet:
        """From already maximal, increasing flat bounds (no checks)."""
        out = cls.__new__(cls)
        out._set_bounds(bounds)
        return out

    @classmethod
    def from_machines(cls, machines: Iterable[int]) -> MachineSet:
        """The set of ``machines`` (any order; repeats count once)."""
        return cls.from_sorted_array(np.unique(np.fromiter(machines, np.int64)))

    @classmethod
    def from_sorted_array(cls, machines: np.ndarray) -> MachineSet:
        """From a strictly increasing integer array (not checked)."""
        if not len(machines):
            return cls._from_bounds(())
        if machines[0] < 0:
            raise ValueError(f"machine set: machine {int(machines[0])} is negative")
        cut = np.flatnonzero(np.diff(machines) != 1) + 1
        lows = machines[np.concatenate(([0], cut))]
        highs = machines[np.concatenate((cut - 1, [len(machines) - 1]))] + 1
        bounds = np.empty(2 * len(lows), np.int64)
        bounds[0::2], bounds[1::2] = lows, highs
        return cls._from_bounds(tuple(bounds.tolist()))

    @classmethod
    def parse(cls, text: str, limit: int = 2**63) -> MachineSet:
        """Batsim's interval set: ``"0-3 7"`` (commas also separate). Raises
        :class:`ValueError` naming the part that is not a number ``< limit``
        or a range ``a-b`` with ``a <= b``.

        >>> MachineSet.parse("0 4-6") == (0, 4, 5, 6)
        True
        """
        runs = []
        for part in str(text).replace(",", " ").split():
            low, dash, high = part.partition("-")
            try:
                first = int(low)
                last = int(high) if dash else first
            except ValueError:
                raise ValueError(f"interval set {text!r}: {part!r} is not a number "
                                 "or a range a-b") from None
            if not 0 <= first <= last < limit:
                raise ValueError(f"interval set {text!r}: {part!r} is not a range of "
                                 f"machine numbers in [0, {limit})")
            runs.append((first, last + 1))
        return cls(runs)

    @classmethod
    def from_mask(cls, mask: int, count: int | None = None) -> MachineSet:
        """The set bits of the non-negative int ``mask`` (only the ``count``
        lowest ones if given)."""
        bounds: list[int] = []
        left = mask.bit_count() if count is None else count
        while left > 0 and mask:
            low = (mask & -mask).bit_length() - 1
            rest = mask >> low
            length = min(((rest + 1) & ~rest).bit_length() - 1, left)
            bounds += (low, low + length)
            mask &= ~(((1 << length) - 1) << low)
            left -= length
        return cls._from_bounds(tuple(bounds))

    @property
    def runs(self) -> tuple[tuple[int, int], ...]:
        """The maximal runs ``(low, high)``, half-open, increasing."""
        b = self._bounds
        return tuple(zip(b[::2], b[1::2]))

    @property
    def end(self) -> int:
        """One past the largest machine number (0 when empty)."""
        return self._bounds[-1] if self._bounds else 0

    def mask(self) -> int:
        """The bit set of the machines (bit ``m`` set: machine ``m`` held)."""
        b = self._bounds
        out = 0
        for i in range(0, len(b), 2):
            out |= ((1 << (b[i + 1] - b[i])) - 1) << b[i]
        return out

    def interval_string(self, offset: int = 0) -> str:
        """Batsim's interval set, each number plus ``offset``: ``"0-3 7"``."""
        return " ".join(str(low + offset) if high - low == 1
                        else f"{low + offset}-{high - 1 + offset}"
                        for low, high in self.runs)

    def __len__(self) -> int:
        ends = self._run_ends()
        return ends[-1] if ends else 0

    def __iter__(self) -> Iterator[int]:
        return chain.from_iterable(range(low, high) for low, high in self.runs)

    def __reversed__(self) -> Iterator[int]:
        return chain.from_iterable(range(high - 1, low - 1, -1)
                                   for low, high in reversed(self.runs))

    @overload
    def __getitem__(self, index: int) -> int: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[int, ...]: ...

    def __getitem__(self, index: int | slice) -> int | tuple[int, ...]:
        if isinstance(index, slice):
            return tuple(self)[index]
        size = len(self)
        if index < 0:
            index += size
        if not 0 <= index < size:
            raise IndexError("machine set index out of range")
        ends = self._run_ends()
        run = bisect.bisect_right(ends, index)
        before = ends[run - 1] if run else 0
        return self._bounds[2 * run] + index - before

    def __contains__(self, machine: object) -> bool:
        if isinstance(machine, bool) or not isinstance(machine, (int, np.integer)):
            return False
        run = bisect.bisect_right(self._bounds[::2], int(machine)) - 1
        return run >= 0 and machine < self._bounds[2 * run + 1]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, MachineSet):
            return self._bounds == other._bounds
        if isinstance(other, (tuple, list)):
            return len(other) == len(self) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(tuple(self))
        return self._hash

    def __repr__(self) -> str:
        return f"MachineSet({self.interval_string()!r})"

    def __reduce__(self):
        return (MachineSet._from_bounds, (self._bounds,))


@dataclass(frozen=True)
class JobSchedule:
    """Where and when the phases of one job run."""

    id: str
    partition: int
    compute_starts: tuple[float, ...]
    io_starts: tuple[float, ...]
    compute_ends: tuple[float, ...] | None = None
    io_ends: tuple[float, ...] | None = None
    machines: Sequence[int] | None = None
    """The machines held: a :class:`MachineSet` (what replays give) or any
    sequence of numbers (what a schedule file states, checked as given)."""
    killed_at: float | None = None

    @property
    def start(self) -> float:
        """``S_i``: the start of the first phase."""
        return self.compute_starts[0]

    def completion(self, job: Job, bandwidth: float) -> float:
        """``C_i``: the end of the last I/O phase (of the last compute if
        later); ``killed_at`` for a killed job; the stated end of the last
        I/O phase when the schedule states I/O ends (models where an I/O
        phase's length depends on the others, SPEC §10)."""
        if self.killed_at is not None:
            return self.killed_at
        if self.io_ends is not None:
            last_io = self.io_ends[-1]
        else:
            last_io = self.io_starts[-1] + job.io_volume[-1] / bandwidth
        last_compute = self.compute_starts[-1] + job.compute[-1]
        return max(last_io, last_compute)


@dataclass(frozen=True)
class Schedule:
    """A timed schedule of an instance, one :class:`JobSchedule` per job."""

    jobs: tuple[JobSchedule, ...]
    packs: Packs | None = None
    method: str = ""
    info: Mapping[str, object] = field(default_factory=dict, compare=False)
    execution: str = "exclusive"
    execution_record: Mapping[str, Any] | None = field(default=None, compare=False)
    """What the execution model's validator rule needs beyond the phase times
    (JSON-able once its numpy arrays are lists, as the writer makes them;
    e.g. the rate levels of ``shared``), or ``None``."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "jobs", tuple(self.jobs))
        if self.packs is not None:
            object.__setattr__(self, "packs", tuple(
                tuple(tuple(pack) for pack in part) for part in self.packs))

    @cached_property
    def by_id(self) -> dict[str, JobSchedule]:
        return {js.id: js for js in self.jobs}

    def __getitem__(self, job_id: str) -> JobSchedule:
        return self.by_id[job_id]

    def check_shape(self, instance: Instance, *, coverage: bool = True) -> None:
        """Raise :class:`ScheduleFormatError` unless every entry of an instance
        job has one start per phase on an existing partition and, with
        ``coverage``, the schedule has exactly one entry per job.

        A job that is not killed lists all ``n_i`` phases of each kind. A
        killed job (``killed_at`` set, SPEC §9) lists the ``m`` phases it
        started: ``1 <= m <= n_i`` compute starts and ``m`` or ``m - 1`` I/O
        starts. Stated ends, when given, are as many as their starts.

        This is a shape check only; feasibility is the validator's job. The
        validator passes ``coverage=False`` and reports a missing, unknown or
        repeated job as a violation (rule 0), since a schedule that loses a
        job is infeasible, not unreadable.
        """
        ids = [js.id for js in self.jobs]
        index = instance.index
        if coverage and not (len(ids) == len(index) and index.keys() == set(ids)):
            seen: set[str] = set()
            for job_id in ids:
                if job_id in seen:
                    raise ScheduleFormatError(f"schedule: job {job_id!r} appears "
                                              "twice")
                seen.add(job_id)
            for job_id in ids:
                if job_id not in instance.index:
                    raise ScheduleFormatError(f"schedule: job {job_id!r} is not in "
                                              f"the instance {instance.name!r}")
            for job in instance.jobs:
                if job.id not in self.by_id:
                    raise ScheduleFormatError(f"schedule: job {job.id!r} is missing")
        count = instance.platform.num_partitions
        jobs = instance.jobs
        for js in self.jobs:
            i = index.get(js.id)
            if i is None:
                continue
            job = jobs[i]
            part = js.partition
            not_int = type(part) is not int and (isinstance(part, bool)
                                                 or not isinstance(part, int))
            if not_int or not 0 <= part < count:
                raise ScheduleFormatError(
                    f"schedule: job {job.id!r}: partition={part!r} does not "
                    f"exist (platform has {count})")
            n = len(job.compute)
            if (js.killed_at is None and len(js.compute_starts) == n
                    and len(js.io_starts) == n
                    and (js.compute_ends is None or len(js.compute_ends) == n)
                    and (js.io_ends is None or len(js.io_ends) == n)):
                continue  # the common case, checked without building a dict
            _check_phase_counts(job, js)

    # -- derived times ---------------------------------------------------
    def bandwidth(self, instance: Instance, job_id: str) -> float:
        return instance.platform.partitions[self.by_id[job_id].partition].bandwidth

    def start(self, job_id: str) -> float:
        return self.by_id[job_id].start

    def completion(self, instance: Instance, job_id: str) -> float:
        js = self.by_id[job_id]
        bandwidth = instance.platform.partitions[js.partition].bandwidth
        return js.completion(instance.job(job_id), bandwidth)

    def completions(self, instance: Instance) -> dict[str, float]:
        return {job.id: self.completion(instance, job.id) for job in instance.jobs}

    def makespan(self, instance: Instance) -> float:
        """``C_max = max_i C_i``."""
        return max(self.completions(instance).values())

    def stretches(self, instance: Instance) -> dict[str, float]:
        """``(C_i - S_i) / T_i(b)`` per job, with ``b`` as in
        :meth:`Instance.bandwidth_of` (1 for a job of length 0)."""
        out = {}
        for job in instance.jobs:
            length = job.length(instance.bandwidth_of(job))
            span = self.completion(instance, job.id) - self.start(job.id)
            out[job.id] = span / length if length > 0 else 1.0
        return out

    def max_stretch(self, instance: Instance) -> float:
        return max(self.stretches(instance).values())


def _check_phase_counts(job: Job, js: JobSchedule) -> None:
    """The phase lists of one entry have the lengths :meth:`Schedule.check_shape`
    describes."""
    where = f"schedule: job {job.id!r}"
    sizes = {name: None if getattr(js, name) is None else len(getattr(js, name))
             for name in ("compute_starts", "io_starts", "compute_ends", "io_ends")}
    if js.killed_at is None:
        for name, got in sizes.items():
            if got is not None and got != job.iterations:
                raise ScheduleFormatError(f"{where}: {name} has {got} entries, "
                                          f"expected {job.iterations}")
        return
    started = sizes["compute_starts"]
    if not 1 <= started <= job.iterations:
        raise ScheduleFormatError(
            f"{where}: compute_starts has {started} entries; a killed job lists "
            f"the 1 to {job.iterations} phases it started")
    if sizes["io_starts"] not in (started - 1, started):
        raise ScheduleFormatError(
            f"{where}: io_starts has {sizes['io_starts']} entries; a killed job "
            f"with {started} compute starts lists {started - 1} or {started}")
    for name, starts in (("compute_ends", "compute_starts"), ("io_ends", "io_starts")):
        if sizes[name] is not None and sizes[name] != sizes[starts]:
            raise ScheduleFormatError(f"{where}: {name} has {sizes[name]} entries, "
                                      f"expected {sizes[starts]} (one per start)")
