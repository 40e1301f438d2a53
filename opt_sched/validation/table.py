r"""The phase table: every phase of a schedule as flat numpy arrays.

The rules never loop over phases in Python; they sort and sweep these
arrays. Job ``i`` (instance order) owns the slots ``first[i]:first[i+1]``,
one per listed iteration ``j``: compute phase ``j`` occupies
``[c_ij, c_ij + w_ij)`` and I/O phase ``j`` occupies ``[o_ij, e_ij)`` with
``e_ij`` given by the execution model's I/O rule (``o_ij + v_ij / b_k(i)``
under exclusive I/O). Start times are the schedule's; lengths are the
instance's, never the ends a schedule states (rule 2 checks those).

A job killed at its wall time (``killed_at`` = ``K_i``, SPEC §9) lists only
the phases it started; the last one it started is cut at ``K_i``:
its end becomes :math:`\max(\text{start}, \min(\text{end}, K_i))`. When the
job was killed before its last I/O phase started, that slot is marked not
started (``o_started``), begins and ends where its compute phase ends, and
is no phase.

The job holds its nodes on ``[S_i, C_i)``: ``S_i`` is the earliest start of
its phases and ``C_i`` the latest end, or ``K_i`` for a killed job. A job
the schedule does not list (rule 0) owns no slot; its ``S_i``, ``C_i`` and
``k(i)`` are NaN, NaN and -1.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import chain

import numpy as np

from ..errors import ScheduleFormatError
from ..instance import Instance
from ..schedule import JobSchedule, Schedule
from .io_rule import IoPhases, IoRule
from .phase_table import PhaseTable, phase_label

__all__ = ["PhaseTable", "build_table", "phase_label"]


def _not_finite(field: str, entries: Sequence[JobSchedule]) -> ScheduleFormatError:
    """The error naming the first value of ``field`` that is not finite."""
    for js in entries:
        values = getattr(js, field)
        for j, value in enumerate(values or ()):
            if (isinstance(value, bool) or not isinstance(value, (int, float))
                    or not math.isfinite(value)):
                return ScheduleFormatError(f"schedule: job {js.id!r}: {field}[{j}]="
                                           f"{value!r} is not a finite number")
    return ScheduleFormatError(f"schedule: {field} holds a value that is not a "
                               "finite number")


def _times(entries: Sequence[JobSchedule], field: str, total: int) -> np.ndarray:
    """``field`` of every entry, concatenated, as a float array."""
    try:
        array = np.fromiter(chain.from_iterable(getattr(js, field) for js in entries),
                            dtype=float, count=total)
    except (TypeError, ValueError):
        raise _not_finite(field, entries) from None
    if not np.isfinite(array).all():
        raise _not_finite(field, entries)
    return array


def _stated(entries: Sequence[JobSchedule], counts: np.ndarray, field: str
            ) -> np.ndarray:
    """The ends ``field`` states, one per slot (NaN where none is stated)."""
    if all(getattr(js, field) is None for js in entries):
        return np.full(int(counts.sum()), math.nan)
    parts = []
    for js, count in zip(entries, counts):
        values = getattr(js, field)
        try:
            array = np.full(int(count), math.nan)
            if values is not None:
                array[:len(values)] = np.asarray(values, dtype=float)
        except (TypeError, ValueError):
            raise _not_finite(field, entries) from None
        if values is not None and not np.isfinite(array[:len(values)]).all():
            raise _not_finite(field, entries)
        parts.append(array)
    return np.concatenate(parts)


def build_table(instance: Instance, schedule: Schedule,
                entries: Sequence[JobSchedule | None], rule: IoRule) -> PhaseTable:
    """The table of ``entries`` (one per instance job, ``None`` = unlisted),
    with the I/O ends of ``rule``. Shapes must already be checked
    (:meth:`Schedule.check_shape`).

    Raises
    ------
    ScheduleFormatError
        A time is not a finite number.
    """
    n = instance.num_jobs
    present = [js for js in entries if js is not None]
    listed = np.array([js is not None for js in entries], dtype=bool)
    counts = np.array([0 if js is None else len(js.compute_starts) for js in entries],
                      dtype=np.int64)
    io_counts = np.array([0 if js is None else len(js.io_starts) for js in entries],
                         dtype=np.int64)
    partition = np.array([-1 if js is None else js.partition for js in entries],
                         dtype=np.int64)
    killed_at = np.full(n, math.nan)
    for i, js in enumerate(entries):
        if js is not None and js.killed_at is not None:
            value = js.killed_at
            if (isinstance(value, bool) or not isinstance(value, (int, float))
                    or not math.isfinite(value)):
                raise ScheduleFormatError(f"schedule: job {js.id!r}: killed_at="
                                          f"{value!r} is not a finite number")
            killed_at[i] = value
    killed = ~np.isnan(killed_at)
    first = np.concatenate(([0], np.cumsum(counts)))
    slots = int(first[-1])
    job_of = np.repeat(np.arange(n), counts)
    iteration = np.arange(slots) - first[job_of]
    last_slot = first[1:] - 1                 # meaningful for listed jobs only

    c_start = _times(present, "compute_starts", slots)
    # the last I/O slot of a killed job that never started its last I/O phase
    started = np.ones(slots, dtype=bool)
    short = np.flatnonzero(io_counts < counts)
    started[last_slot[short]] = False
    io_listed = _times(present, "io_starts", int(io_counts.sum()))
    _, all_w, all_v = instance.phase_arrays
    if listed.all() and np.array_equal(counts, instance.job_arrays.iterations):
        c_len, volume = all_w, all_v.copy()  # every phase of every job
    else:
        c_len = np.concatenate([instance.jobs[i].compute_array[:counts[i]]
                                for i in np.flatnonzero(listed)] or [np.empty(0)])
        volume = np.concatenate([instance.jobs[i].volume_array[:counts[i]]
                                 for i in np.flatnonzero(listed)] or [np.empty(0)])
    volume[~started] = 0.0
    bandwidths = np.array([p.bandwidth for p in instance.platform.partitions])
    bandwidth = bandwidths[partition[job_of]]
    kill_of = killed_at[job_of] if killed.any() else None

    c_full_end = c_start + c_len
    c_end = c_full_end
    if len(short):
        # a killed job without its last I/O phase is cut during its last compute
        c_end = c_full_end.copy()
        cut = last_slot[short]
        c_end[cut] = np.maximum(c_start[cut],
                                np.minimum(c_full_end[cut], kill_of[cut]))
        o_start = np.empty(slots)
        o_start[started] = io_listed
        o_start[~started] = c_end[~started]
    else:
        o_start = io_listed

    c_stated = _stated(present, counts[listed], "compute_ends")
    o_stated = _stated(present, counts[listed], "io_ends")
    phases = IoPhases(job=job_of, iteration=iteration, partition=partition[job_of],
                      start=o_start, volume=volume, bandwidth=bandwidth,
                      stated_end=o_stated, started=started)
    o_full_end = np.asarray(rule.io_ends(instance, schedule, phases), dtype=float)
    if o_full_end.shape != o_start.shape:
        raise TypeError(f"I/O rule {rule.name}: io_ends returned shape "
                        f"{o_full_end.shape}, expected {o_start.shape}")
    if len(short):
        o_full_end = np.where(started, o_full_end, o_start)
    o_end = o_full_end
    cut = last_slot[np.flatnonzero(killed & (io_counts == counts))]
    if len(cut):
        # a killed job that started its last I/O phase is cut during it
        o_end = o_full_end.copy()
        o_end[cut] = np.maximum(o_start[cut],
                                np.minimum(o_full_end[cut], kill_of[cut]))

    start = np.full(n, math.nan)
    end = np.full(n, math.nan)
    if slots:
        offsets = first[:-1][listed]
        start[listed] = np.minimum.reduceat(np.minimum(c_start, o_start), offsets)
        end[listed] = np.maximum.reduceat(np.maximum(c_end, o_end), offsets)
    end[killed] = killed_at[killed]
    return PhaseTable(
        ids=tuple(job.id for job in instance.jobs), entries=tuple(entries),
        listed=listed, first=first, job=job_of, iteration=iteration,
        c_start=c_start, c_end=c_end, c_full_end=c_full_end, c_stated=c_stated,
        o_start=o_start, o_end=o_end, o_full_end=o_full_end, o_stated=o_stated,
        o_started=started, o_volume=volume, o_bandwidth=bandwidth,
        partition=partition,
        nodes=np.array([job.nodes for job in instance.jobs], dtype=np.int64),
        start=start, end=end, killed_at=killed_at)
