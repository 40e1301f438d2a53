"""Slurm's backfilling limits (``bf_depth``, ``bf_interval``) of the EASY
and conservative schedulers, and the queue order's event hooks called by
the backfilling schedulers."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from opt_sched import Instance, Job, Platform
from opt_sched.errors import OptionError
from opt_sched.scheduling import get_scheduler, replay
from opt_sched.scheduling.backfill_limits import SLURM_DEFAULTS
from opt_sched.validation import assert_feasible

from .online_helpers import check_machines, online_workloads
from .order_helpers import Unkeyed
from .strategies import slow_settings

SETTINGS = slow_settings(60)
BACKFILLING = ["easy", "conservative"]
LIMITED = ["easy", "conservative", "io-easy", "herbein"]


def _job(job_id, nodes, run, release):
    return Job(job_id, nodes, (run,), (0.0,), release=release, walltime=run)


class _Recorder(Unkeyed):
    """An order with the three hooks; records every event."""

    def __init__(self, inner: str = "fcfs") -> None:
        super().__init__(inner)
        self.events: list[tuple[str, float, int]] = []

    def observe_submit(self, now, job):
        self.events.append(("submit", now, job))

    def observe_start(self, now, job):
        self.events.append(("start", now, job))

    def observe_end(self, now, job, killed):
        self.events.append(("end", now, job))


# r holds 3 of 4 machines until 100; h needs all 4 (the head from t=1);
# s (1 machine, 50 s) fits beside r and ends at 52 (or 80) < 100.
BASE = (_job("r", 3, 100.0, 0.0), _job("h", 4, 10.0, 1.0), _job("s", 1, 50.0, 2.0))


@pytest.mark.parametrize("name", BACKFILLING)
def test_depth_one_backfills_nothing(name) -> None:
    inst = Instance("depth", Platform.homogeneous(1, nodes=4), BASE)
    free = replay(inst, get_scheduler(name))
    assert free["s"].start == 2.0  # backfilled (no limit)
    for depth, expected in ((2, 2.0), (1, 110.0)):
        sched = replay(inst, get_scheduler(name, bf_depth=depth))
        assert_feasible(inst, sched)
        # depth 1: s (position 2) is never examined while h waits, and at
        # t=100 h (started) is the one job examined; s starts when h ends
        assert sched["s"].start == expected, depth
        assert sched["h"].start == 100.0


def _reservations_after_each_pass(inst, sched) -> dict[float, dict[int, float]]:
    seen = {}
    original = sched.decide

    def decide(now):
        starts = original(now)
        seen[now] = sched.reservations()
        return starts

    sched.decide = decide
    replay(inst, sched)
    return seen


def test_conservative_depth_drops_the_reservations_behind() -> None:
    inst = Instance("depth", Platform.homogeneous(1, nodes=4),
                    (*BASE, _job("t", 4, 10.0, 3.0)))
    limited = _reservations_after_each_pass(
        inst, get_scheduler("conservative", bf_depth=1, order=Unkeyed()))
    assert limited[1.0] == {1: 100.0}  # h reserved
    assert limited[3.0] == {1: 100.0}  # s and t (behind the depth) are not
    free = _reservations_after_each_pass(
        inst, get_scheduler("conservative", order=Unkeyed()))
    assert free[3.0] == {1: 100.0, 3: 110.0}


# Interval 30 s, by hand (EASY and conservative agree here):
# t=0 backfill pass: r starts; next at 30.  t=1, t=2: FIFO part only, h
# does not fit: s waits.  t=30 backfill pass: h reserved at 100, s starts
# (ends 80).  t=40 f arrives: FIFO part stops at h.  t=60 backfill pass:
# no machine is free now (s runs).  t=80 s ends: FIFO part stops at h.
# t=90 backfill pass: f starts (ends 95 <= 100).  t=100 r ends: h starts
# (FIFO part).  t=200: a backfill pass is due (last at 90): g starts, next
# at 230.  t=201: FIFO part, the queue is empty and g2 fits: it starts.
INTERVAL = (*BASE, _job("f", 1, 5.0, 40.0), _job("g", 1, 5.0, 200.0),
            _job("g2", 1, 5.0, 201.0))
INTERVAL_STARTS = {"r": 0.0, "h": 100.0, "s": 30.0, "f": 90.0, "g": 200.0,
                   "g2": 201.0}


@pytest.mark.parametrize("name", BACKFILLING)
@pytest.mark.parametrize("keyed", [True, False])
def test_interval_by_hand(name, keyed) -> None:
    inst = Instance("interval", Platform.homogeneous(1, nodes=4), INTERVAL)
    order = "fcfs" if keyed else Unkeyed()
    sched = replay(inst, get_scheduler(name, bf_interval=30.0, order=order))
    assert_feasible(inst, sched)
    assert {js.id: js.start for js in sched.jobs} == INTERVAL_STARTS
    # the same with Slurm's depth: 50 jobs is more than this queue holds
    sched = replay(inst, get_scheduler(name, order=order, **SLURM_DEFAULTS))
    assert {js.id: js.start for js in sched.jobs} == INTERVAL_STARTS


def test_bad_limits() -> None:
    for bad in ({"bf_depth": 0}, {"bf_depth": 2.5}, {"bf_depth": True},
                {"bf_interval": -1}, {"bf_interval": math.inf},
                {"bf_interval": "30"}):
        with pytest.raises(OptionError, match="bf_"):
            get_scheduler("easy", **bad)


@SETTINGS
@given(instance=online_workloads(io=False, partitions=2, unknown=True),
       name=st.sampled_from(BACKFILLING), order=st.sampled_from(["fcfs", "sjf"]),
       kill=st.booleans(), depth=st.sampled_from([None, 1, 2, 4]),
       interval=st.sampled_from([0.0, 1.5, 30.0]))
def test_fused_equals_stepped_under_limits(instance, name, order, kill, depth,
                                           interval):
    """The compiled loop and the Python-stepped engine apply the limits the
    same way (same starts, machines, kills)."""
    options = {"bf_depth": depth, "bf_interval": interval}
    fused = replay(instance, get_scheduler(name, order=order, **options),
                   kill_at_walltime=kill)
    stepped = replay(instance, get_scheduler(name, order=Unkeyed(order), **options),
                     kill_at_walltime=kill)
    assert fused.jobs == stepped.jobs
    check_machines(instance, fused)
    assert_feasible(instance, fused)


@SETTINGS
@given(instance=online_workloads(partitions=2, unknown=True),
       name=st.sampled_from(LIMITED), kill=st.booleans(),
       depth=st.sampled_from([None, 1, 3]), interval=st.sampled_from([0.0, 2.0]))
def test_limits_with_io_are_feasible(instance, name, kill, depth, interval):
    options = {"bf_depth": depth, "bf_interval": interval}
    if name == "herbein":
        options["limit"] = 10.0
    sched = replay(instance, get_scheduler(name, **options), kill_at_walltime=kill)
    assert [js.id for js in sched.jobs] == [j.id for j in instance.jobs]
    check_machines(instance, sched)
    assert_feasible(instance, sched)


@SETTINGS
@given(instance=online_workloads(io=False, partitions=2),
       name=st.sampled_from(BACKFILLING), order=st.sampled_from(["fcfs", "sjf"]))
def test_a_depth_beyond_the_queue_changes_nothing(instance, name, order):
    """With a depth larger than any queue and no interval, the limited pass
    is batsched's (conservative: with FCFS, where the jobs it places -- those
    without a reservation -- are exactly the ones just submitted)."""
    if name == "conservative" and order == "sjf":
        order = "fcfs"
    a = replay(instance, get_scheduler(name, order=order))
    b = replay(instance, get_scheduler(name, order=order, bf_depth=1000))
    assert a.jobs == b.jobs


@pytest.mark.parametrize("name", LIMITED)
@pytest.mark.parametrize("limits", [{}, {"bf_depth": 2, "bf_interval": 7.0}])
def test_hooks_see_every_event_once(name, limits) -> None:
    inst = Instance("hooks", Platform.homogeneous(1, nodes=4), (
        *INTERVAL, Job("d", 2, (5.0,), (0.0,), release=0.0, walltime=6.0,
                       after=("s",))))
    order = _Recorder()
    sched = replay(inst, get_scheduler(name, order=order, **limits))
    assert_feasible(inst, sched)
    index = {job.id: i for i, job in enumerate(inst.jobs)}
    for js in sched.jobs:
        j = index[js.id]
        mine = [(kind, t) for kind, t, job in order.events if job == j]
        end = sched.completion(inst, js.id)
        release = inst.job(js.id).release
        if js.id == "d":  # eligible when s ends
            release = sched.completion(inst, "s")
        assert mine == [("submit", release), ("start", js.start), ("end", end)]


def test_depth_one_does_not_strand_the_queue_behind_stale_reservations():
    """Found by hypothesis in CI: conservative backfilling, ``bf_depth=1``,
    SJF, jobs of unknown length (infinite estimates). The first job used to be
    placed *before* the reservations of the jobs behind were dropped; one of
    them held the machines for ever, the first job got neither a start nor a
    reservation, and with nothing running the replay stopped with 11 jobs
    waiting. Now every job runs, both engines agree, and the schedule is
    feasible."""
    from opt_sched.instance import Partition

    jobs = [Job(f"j{i}", 1, (0.0,), (0.0,)) for i in range(8)]
    jobs += [Job("j8", 2, (1.0,), (0.0,), walltime=1.0),
             Job("j9", 1, (0.0,), (0.0,), after=("j0",)),
             Job("j10", 2, (0.0,), (0.0,), walltime=0.5, after=("j8",)),
             Job("j11", 1, (0.0,), (0.0,), release=0.5)]
    instance = Instance("stranded", Platform((Partition(nodes=2, bandwidth=0.5),)),
                        tuple(jobs))
    options = {"bf_depth": 1, "bf_interval": 0.0}
    fused = replay(instance, get_scheduler("conservative", order="sjf", **options))
    stepped = replay(instance, get_scheduler("conservative", order=Unkeyed("sjf"),
                                             **options))
    assert [js.id for js in fused.jobs] == [j.id for j in instance.jobs]
    assert fused.jobs == stepped.jobs
    check_machines(instance, fused)
    assert_feasible(instance, fused)
    # j8 holds both nodes on [0, 1); nothing else fits before it ends
    assert {js.id: js.start for js in fused.jobs}["j8"] == 0.0
    assert all(js.start >= 1.0 for js in fused.jobs if js.id != "j8")


def test_fused_loop_is_specialised_on_what_it_uses(monkeypatch) -> None:
    """The compiled loop gets ``None`` for the limits without limits, and for
    the age-and-size arrays with a static order (numba then prunes those
    paths from what it compiles); the values when they are used."""
    import inspect

    import opt_sched.scheduling.fused as fused
    from opt_sched.priority import MultifactorOrder
    from opt_sched.scheduling.backfill_kernel import UNLIMITED_DEPTH

    seen = []
    original = fused.run

    def spy(*args):
        given = inspect.signature(original.py_func).bind(*args).arguments
        seen.append((given["limits"], given["darr"]))
        return original(*args)

    monkeypatch.setattr(fused, "run", spy)
    jobs = tuple(_job(f"j{i}", 1 + i % 3, 10.0 + i, float(i)) for i in range(6))
    inst = Instance("w", Platform.homogeneous(1, nodes=4), jobs)
    for options, limits, dynamic in [
        ({}, None, False),
        ({"bf_depth": 2}, (2, 0.0), False),
        ({"bf_interval": 30.0}, (UNLIMITED_DEPTH, 30.0), False),
        ({"order": MultifactorOrder(weight_age=1.0, weight_size=1.0)}, None, True),
    ]:
        seen.clear()
        sched = replay(inst, get_scheduler("easy", **options))
        assert_feasible(inst, sched)
        assert seen and all(s[0] == limits for s in seen), (options, seen)
        assert all((s[1] is not None) == dynamic for s in seen), options
