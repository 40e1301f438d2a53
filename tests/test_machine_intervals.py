"""Machine sets stored as runs (Batsim's interval sets), issue 24 item 5.

A replay stores every job's machines as a :class:`MachineSet`: a Mira job of
49,152 machines is a few runs, not 49,152 Python ints. The set must behave
as the sequence of numbers it stands for, and a replay must hold exactly
the machines the engine's number-by-number path gives.
"""

from __future__ import annotations

import dataclasses
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from opt_sched.schedule import MachineSet
from opt_sched.scheduling import get_scheduler, replay
from opt_sched.scheduling.base import Start
from opt_sched.traces.out_jobs import interval_set, parse_interval_set
from opt_sched.validation import validate
from opt_sched.workloads.ijhpca2023 import generate_ijhpca2023

machine_numbers = st.sets(st.integers(0, 300), max_size=80)


def _runs_of(numbers: list[int]) -> list[tuple[int, int]]:
    """Maximal runs ``[low, high)`` of sorted distinct numbers, one by one."""
    runs: list[list[int]] = []
    for m in numbers:
        if runs and runs[-1][1] == m:
            runs[-1][1] += 1
        else:
            runs.append([m, m + 1])
    return [tuple(r) for r in runs]


@settings(max_examples=150, deadline=None)
@given(machine_numbers)
def test_interval_set_round_trips(numbers):
    """A set of numbers -> runs -> the same numbers, by every route."""
    expected = sorted(numbers)
    ms = MachineSet.from_machines(numbers)
    assert list(ms) == expected and len(ms) == len(expected)
    assert list(reversed(ms)) == expected[::-1]
    assert ms.runs == tuple(_runs_of(expected))
    assert ms == tuple(expected) and tuple(expected) == ms and ms == expected
    assert hash(ms) == hash(tuple(expected))
    assert [ms[i] for i in range(len(ms))] == expected
    assert [ms[-i - 1] for i in range(len(ms))] == expected[::-1]
    assert ms.interval_string() == interval_set(expected)
    assert parse_interval_set(ms.interval_string(7)) == tuple(m + 7 for m in expected)
    mask = sum(1 << m for m in expected)
    assert ms.mask() == mask
    assert MachineSet.from_mask(mask) == ms
    assert MachineSet(ms.runs) == ms
    assert pickle.loads(pickle.dumps(ms)) == ms
    assert all(m in ms for m in expected)
    assert all(m not in ms for m in range(-2, 305) if m not in numbers)


@settings(max_examples=100, deadline=None)
@given(machine_numbers, st.integers(0, 90))
def test_lowest_machines_of_a_bit_set(numbers, count):
    """``from_mask(mask, count)``: the ``count`` lowest set bits."""
    mask = sum(1 << m for m in numbers)
    assert list(MachineSet.from_mask(mask, count)) == sorted(numbers)[:count]


def test_runs_are_merged_and_checked():
    assert MachineSet([(5, 8), (0, 2), (2, 3), (7, 10), (4, 4)]).runs == ((0, 3),
                                                                         (5, 10))
    assert len(MachineSet()) == 0 and list(MachineSet()) == []
    with pytest.raises(ValueError, match="negative"):
        MachineSet([(-1, 3)])
    with pytest.raises(IndexError):
        MachineSet([(0, 2)])[2]


class _PlainEasy:
    """EASY whose starts name their machines as plain tuples of numbers: the
    engine then checks and stores them one number at a time (the path every
    replay took before machine sets were runs)."""

    def __init__(self) -> None:
        self._inner = get_scheduler("easy")
        self.name = "easy"

    def __getattr__(self, name: str):
        return getattr(self._inner, name)

    def decide(self, now: float) -> list[Start]:
        return [Start(s.job, tuple(int(m) for m in s.machines), s.partition)
                for s in self._inner.decide(now)]


@pytest.fixture(scope="module")
def mira():
    """A small Mira workload: 49,152 machines, jobs of 512 to 49,152."""
    return generate_ijhpca2023("mira", "bn", 0.5, 3, jobs=40).instance


def test_wide_replay_keeps_the_same_machine_sets(mira):
    """EASY on Mira: the machine sets stored as runs are the ones the
    number-by-number path gives, and the schedule validates (rule 4 checked
    per machine) with either representation."""
    ours = replay(mira, "easy")
    plain = replay(mira, _PlainEasy())
    assert all(isinstance(js.machines, MachineSet) for js in ours.jobs)
    assert max(len(js.machines.runs) for js in ours.jobs) <= 96
    for a, b in zip(ours.jobs, plain.jobs, strict=True):
        assert (a.id, a.start, list(a.machines)) == (b.id, b.start, list(b.machines))
    assert sum(len(js.machines) for js in ours.jobs) == sum(j.nodes for j in mira.jobs)
    assert validate(mira, ours).feasible
    as_lists = dataclasses.replace(ours, jobs=tuple(
        dataclasses.replace(js, machines=list(js.machines)) for js in ours.jobs))
    assert validate(mira, as_lists).feasible


def test_validator_finds_the_same_overlaps_for_runs_and_lists(mira):
    """Two jobs moved onto machines another job holds: the validator reports
    the same violations, word for word, whether the machine sets are runs or
    lists of numbers."""
    schedule = replay(mira, "easy")
    jobs = list(schedule.jobs)
    first = min(range(len(jobs)), key=lambda i: jobs[i].start)
    late = max(range(len(jobs)), key=lambda i: jobs[i].start)
    # the last job to start, moved onto the first job's lowest machines and
    # to its start: they share machines while both run
    width = len(jobs[late].machines)
    theirs = list(jobs[first].machines)[:width]
    if len(theirs) < width:
        theirs += [m for m in range(49152) if m not in jobs[first].machines][
            :width - len(theirs)]
    moved = dataclasses.replace(
        jobs[late], compute_starts=tuple(t - jobs[late].start + jobs[first].start
                                         for t in jobs[late].compute_starts),
        io_starts=tuple(t - jobs[late].start + jobs[first].start
                        for t in jobs[late].io_starts),
        io_ends=None if jobs[late].io_ends is None else tuple(
            t - jobs[late].start + jobs[first].start for t in jobs[late].io_ends))

    def report(machines):
        entries = list(jobs)
        entries[late] = dataclasses.replace(moved, machines=machines)
        return validate(mira, dataclasses.replace(schedule, jobs=tuple(entries)))

    as_runs = report(MachineSet.from_machines(theirs))
    as_list = report(tuple(theirs))
    messages = [v.message for v in as_runs.violations if v.rule == 4]
    assert messages and messages == [v.message for v in as_list.violations
                                     if v.rule == 4]


def test_validator_reports_outside_and_miscounted_runs(mira):
    """A run past the partition's last machine, and a set of the wrong size,
    are reported as for lists."""
    schedule = replay(mira, "easy")
    jobs = list(schedule.jobs)
    big = MachineSet([(49152 - 2, 49152 + 2)])
    small = MachineSet([(0, 1)])
    for machines in (big, small):
        entries = [dataclasses.replace(jobs[0], machines=machines), *jobs[1:]]
        as_runs = validate(mira, dataclasses.replace(schedule, jobs=tuple(entries)))
        entries[0] = dataclasses.replace(jobs[0], machines=tuple(machines))
        as_list = validate(mira, dataclasses.replace(schedule, jobs=tuple(entries)))
        runs_text = [v.message for v in as_runs.violations if v.rule == 4]
        assert runs_text and runs_text == [v.message for v in as_list.violations
                                           if v.rule == 4]
