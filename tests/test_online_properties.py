"""Property tests of the online schedulers on random workloads: every
replayed schedule is feasible (validator, machines), no job is lost or
started twice, EASY never starts the head job after the reservation it got
when it became the head, conservative never starts a job after its first
reservation, and the I/O-aware scheduler keeps the strict bandwidth
constraint at every instant."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import opt_sched.validation as validation
from opt_sched.scheduling import get_scheduler, job_table, replay

from .online_helpers import (
    ReservationLog,
    check_machines,
    online_workloads,
    running_bandwidth_peaks,
)
from .order_helpers import Unkeyed
from .strategies import slow_settings

SETTINGS = slow_settings(80)

SCHEDULERS = ["fcfs", "easy", "conservative", "io-easy", "herbein"]
ORDERED = ["easy", "conservative", "io-easy", "herbein"]  # take order=


def _make(name: str, order: str):
    return get_scheduler(name, order=order) if name in ORDERED else get_scheduler(name)


def _check_basic(instance, schedule, kill: bool) -> None:
    assert [js.id for js in schedule.jobs] == [j.id for j in instance.jobs]
    for job, js in zip(instance.jobs, schedule.jobs):
        assert js.start >= job.release
        for dep in job.after:
            assert js.start >= schedule.completion(instance, dep) - 1e-9
        if js.killed_at is not None:
            assert kill and job.walltime is not None
            assert js.killed_at == pytest.approx(js.start + job.walltime)
    check_machines(instance, schedule)
    validation.assert_feasible(instance, schedule)


@SETTINGS
@given(instance=online_workloads(partitions=2, unknown=True),
       name=st.sampled_from(SCHEDULERS), order=st.sampled_from(["fcfs", "sjf"]),
       kill=st.booleans())
def test_every_scheduler_is_feasible_and_loses_nothing(instance, name, order, kill):
    schedule = replay(instance, _make(name, order), kill_at_walltime=kill)
    _check_basic(instance, schedule, kill)
    if not kill:
        assert schedule.info["killed"] == 0


@SETTINGS
@given(instance=online_workloads(), name=st.sampled_from(["easy", "io-easy"]),
       order=st.sampled_from(["fcfs", "sjf"]), delay=st.sampled_from([0.0, 1.5]))
def test_easy_never_starts_the_head_after_its_reservation(instance, name, order,
                                                          delay):
    # Jobs are killed at their wall time, so none runs past its estimate.
    sched = get_scheduler(name, order=order, rjms_delay=delay)
    log = ReservationLog(sched)
    schedule = replay(instance, sched, kill_at_walltime=True)
    _check_basic(instance, schedule, True)
    assert not log.later, log.later
    for j, reserved in log.as_head.items():
        assert schedule.jobs[j].start <= reserved + 1e-9, (j, reserved)


@SETTINGS
@given(instance=online_workloads(partitions=2), order=st.sampled_from(["fcfs", "sjf"]),
       delay=st.sampled_from([0.0, 1.5]))
def test_conservative_never_starts_a_job_after_its_first_reservation(
        instance, order, delay):
    sched = get_scheduler("conservative", order=order, rjms_delay=delay)
    log = ReservationLog(sched)
    schedule = replay(instance, sched, kill_at_walltime=True)
    _check_basic(instance, schedule, True)
    for j, reserved in log.first.items():
        assert schedule.jobs[j].start <= reserved + 1e-9, (j, reserved)


@SETTINGS
@given(instance=online_workloads(partitions=2), order=st.sampled_from(["fcfs", "sjf"]),
       kill=st.booleans())
def test_io_easy_keeps_the_strict_bandwidth_constraint(instance, order, kill):
    schedule = replay(instance, get_scheduler("io-easy", order=order),
                      kill_at_walltime=kill)
    _check_basic(instance, schedule, kill)
    beta = job_table(instance).bandwidth.tolist()
    for k, peak in running_bandwidth_peaks(instance, schedule, beta).items():
        cap = instance.platform.partitions[k].bandwidth
        assert peak <= cap * (1 + 1e-9), (k, peak, cap)


@SETTINGS
@given(instance=online_workloads(partitions=2), kill=st.booleans(),
       fraction=st.sampled_from([0.75, 1.0]))
def test_herbein_keeps_its_bandwidth_limit(instance, kill, fraction):
    beta = job_table(instance).bandwidth.tolist()
    limit = fraction * min(p.bandwidth for p in instance.platform.partitions)
    if max(beta) > limit:
        with pytest.raises(Exception, match="could never start"):
            replay(instance, get_scheduler("herbein", limit=limit))
        return
    schedule = replay(instance, get_scheduler("herbein", limit=limit),
                      kill_at_walltime=kill)
    _check_basic(instance, schedule, kill)
    for peak in running_bandwidth_peaks(instance, schedule, beta).values():
        assert peak <= limit * (1 + 1e-9)


@SETTINGS
@given(instance=online_workloads(io=False), order=st.sampled_from(["fcfs", "sjf"]),
       kill=st.booleans())
def test_io_aware_schedulers_are_easy_without_io(instance, order, kill):
    """With no I/O every beta is 0: io-easy and herbein are exactly easy."""
    easy = replay(instance, get_scheduler("easy", order=order), kill_at_walltime=kill)
    for name in ("io-easy", "herbein"):
        other = replay(instance, get_scheduler(name, order=order),
                       kill_at_walltime=kill)
        for a, b in zip(easy.jobs, other.jobs):
            assert (a.start, a.machines) == (b.start, b.machines)


@SETTINGS
@given(instance=online_workloads(io=False, partitions=2, unknown=True),
       name=st.sampled_from(ORDERED), order=st.sampled_from(["fcfs", "sjf"]),
       kill=st.booleans(), delay=st.sampled_from([0.0, 2.5]))
def test_the_fused_replay_is_the_stepped_replay(instance, name, order, kill, delay):
    """No I/O: replay() runs the compiled loop; with an unkeyed order it
    steps the same compiled passes from Python. Same schedule, same
    progress reports."""
    fused_calls, stepped_calls = [], []
    fused = replay(instance, get_scheduler(name, order=order, rjms_delay=delay),
                   kill_at_walltime=kill,
                   progress=lambda e, n: fused_calls.append((e, n)))
    stepped = replay(instance,
                     get_scheduler(name, order=Unkeyed(order), rjms_delay=delay),
                     kill_at_walltime=kill,
                     progress=lambda e, n: stepped_calls.append((e, n)))
    assert fused.jobs == stepped.jobs
    assert fused.info == stepped.info
    assert fused_calls == stepped_calls
    # a keyed order stepped from Python keeps its sorted queue between
    # passes (ProfileScheduler._sorted_queue): the same schedule again
    keyed = get_scheduler(name, order=order, rjms_delay=delay)
    keyed.fused_spec = lambda: None  # force the stepped engine
    kept = replay(instance, keyed, kill_at_walltime=kill)
    assert kept.jobs == fused.jobs
    _check_basic(instance, fused, kill)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instance=online_workloads(io=False, wide=True), name=st.sampled_from(ORDERED),
       kill=st.booleans())
def test_wide_partitions(instance, name, kill):
    """Machine sets over several 64-bit words (65-200 machines)."""
    fused = replay(instance, get_scheduler(name), kill_at_walltime=kill)
    stepped = replay(instance, get_scheduler(name, order=Unkeyed("fcfs")),
                     kill_at_walltime=kill)
    assert fused.jobs == stepped.jobs
    _check_basic(instance, fused, kill)
