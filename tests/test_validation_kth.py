"""On the README's KTH-SP2 replay (EASY, ``darshan-cori`` I/O at alpha 0.5:
28,481 jobs, 1.57 M I/O phases, submits up to 2.9e7 s), every single-phase
overlap of at least a microsecond is caught.

The old tolerance, 1e-9 of the instance scale, was 0.28 s on this trace:
53 % of its I/O phases are shorter, and a 0.24 s phase placed entirely
inside another job's I/O was accepted.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from opt_sched import Instance, Schedule
from opt_sched.scheduling import replay
from opt_sched.validation import validate
from opt_sched.validation.tolerance import Tolerance

from .paths import shared_data_dir

OVERLAP = 1e-6


@pytest.fixture(scope="module")
def kth_easy():
    from opt_sched.traces import convert_trace, read_trace

    source = shared_data_dir() / "swf" / "KTH-SP2.swf.gz"
    if not source.is_file():
        pytest.skip(f"{source} is absent")
    trace, _ = read_trace(source)
    instance = convert_trace(trace, "darshan-cori", seed=0, alpha=0.5).instance
    return instance, replay(instance, "easy")


def io_phases(instance: Instance, schedule: Schedule) -> tuple[np.ndarray, ...]:
    """``(job index, iteration, start, length)`` of every I/O phase of
    positive length, ``length = v / b`` (one partition)."""
    b = instance.platform.partitions[0].bandwidth
    job, it, start, length = [], [], [], []
    for i, (spec, js) in enumerate(zip(instance.jobs, schedule.jobs)):
        lengths = spec.volume_array / b
        job.append(np.full(len(lengths), i))
        it.append(np.arange(len(lengths)))
        start.append(np.asarray(js.io_starts, dtype=float))
        length.append(lengths)
    arrays = tuple(np.concatenate(a) for a in (job, it, start, length))
    keep = arrays[3] > 0
    return tuple(a[keep] for a in arrays)


def pair(instance: Instance, schedule: Schedule, i: int, k: int) -> tuple:
    """The two jobs alone: a sub-schedule of a feasible one stays feasible."""
    return (dataclasses.replace(instance, jobs=(instance.jobs[i], instance.jobs[k])),
            dataclasses.replace(schedule, jobs=(schedule.jobs[i], schedule.jobs[k])))


def placed(schedule: Schedule, index: int, j: int, start: float) -> Schedule:
    """The job at ``index`` with its I/O phase ``j`` moved to ``start``."""
    js = schedule.jobs[index]
    starts = list(js.io_starts)
    starts[j] = start
    jobs = list(schedule.jobs)
    jobs[index] = dataclasses.replace(js, io_starts=tuple(starts))
    return dataclasses.replace(schedule, jobs=tuple(jobs))


def test_the_replay_is_feasible_with_a_tolerance_below_a_microsecond(kth_easy):
    instance, schedule = kth_easy
    report = validate(instance, schedule)
    assert report.feasible, report.format()
    # the largest tolerance of an I/O end: the latest time, the longest phase
    _, _, start, length = io_phases(instance, schedule)
    assert float(Tolerance().end((start + length).max(), length.max())) < OVERLAP


def test_every_overlap_of_a_microsecond_is_caught(kth_easy):
    instance, schedule = kth_easy
    job, it, start, length = io_phases(instance, schedule)
    rng = np.random.default_rng(2026)
    by_length = np.argsort(length)
    late = np.argsort(start)[-40:]
    # the longest phases (largest relative term), the latest (largest ulps),
    # the shortest of at least a microsecond, and a random sample
    shortest = by_length[np.searchsorted(length[by_length], OVERLAP):][:40]
    victims = np.unique(np.concatenate((by_length[-40:], late, shortest,
                                        rng.choice(len(job), 120, replace=False))))
    assert len(victims) >= 150
    missed = []
    for q in victims:
        # a phase of another job, at least a microsecond long, ends a
        # microsecond into q (it starts OVERLAP before q's end)
        p = int(rng.choice(np.flatnonzero((job != job[q]) & (length >= OVERLAP))))
        two, sub = pair(instance, schedule, int(job[p]), int(job[q]))
        end_q = start[q] + length[q]
        into = placed(sub, 0, int(it[p]), end_q - OVERLAP)
        report = validate(two, into)
        if not report.by_rule()[5]:
            missed.append((int(q), float(length[q]), float(end_q)))
    assert not missed, missed[:5]


def test_a_short_phase_inside_another_is_caught_in_the_whole_trace(kth_easy):
    """The issue's case: a 0.24 s phase placed entirely inside another job's
    I/O late in the trace, validated with all 28,481 jobs."""
    instance, schedule = kth_easy
    job, it, start, length = io_phases(instance, schedule)
    late = np.argsort(start)[::-1]
    q = next(int(x) for x in late if length[x] > 1.0)
    p = next(int(x) for x in np.argsort(np.abs(length - 0.24))
             if job[x] != job[q])
    inside = placed(schedule, int(job[p]), int(it[p]),
                    start[q] + (length[q] - length[p]) / 2)
    report = validate(instance, inside)
    assert report.by_rule()[5] >= 1, report.format()
