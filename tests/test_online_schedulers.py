"""Hand-checked examples of the online schedulers (worked out in the
comments), their options and their errors."""

from __future__ import annotations

import numpy as np
import pytest

import opt_sched.validation as validation
from opt_sched import Instance, Job, Platform
from opt_sched.errors import OptionError
from opt_sched.scheduling import SCHEDULERS, get_scheduler, replay
from opt_sched.scheduling import profile as pf
from opt_sched.scheduling.queue_order import SJFOrder, get_queue_order

J = Job.periodic


def _run(instance, name, kill=False, **options):
    schedule = replay(instance, get_scheduler(name, **options), kill_at_walltime=kill)
    if not schedule.info["killed"]:
        validation.assert_feasible(instance, schedule)
    return {js.id: (js.start, js.machines) for js in schedule.jobs}


def test_registry_names():
    for name in ("fcfs", "easy", "conservative", "io-easy", "herbein"):
        assert name in SCHEDULERS
        assert get_scheduler(name).name == name


# Three machines. a (1 node, 5 s) and y (2 nodes, 10 s) start at 0 on {0} and
# {1, 2}. At 5 a ends; b (2 nodes, 10 s) arrives at 6 with only machine 0
# free: it is the head, its first fit is at 10 (y's end) on the two lowest
# machines free then, {0, 1}. c (1 node, 50 s) arrives at 7: its window
# [7, 57) overlaps b's reservation [10, 20), so it may only use free
# machines outside {0, 1}; the only free machine, 0, is reserved: c waits.
# (A count-based EASY would start it: at 10 three machines are free, b
# needs two, one is "extra".) At 10 y ends: b starts on {0, 1} and c on {2}.
MACHINE_AWARE = Instance("machine-aware", Platform.homogeneous(1, nodes=3), (
    J("a", 1, 5.0, 0.0, release=0.0, walltime=5.0),
    J("y", 2, 10.0, 0.0, release=0.0, walltime=10.0),
    J("b", 2, 10.0, 0.0, release=6.0, walltime=10.0),
    J("c", 1, 50.0, 0.0, release=7.0, walltime=50.0)))


@pytest.mark.parametrize("name", ["easy", "conservative", "io-easy", "herbein"])
def test_a_backfill_may_not_use_a_machine_reserved_for_the_head(name):
    assert _run(MACHINE_AWARE, name) == {
        "a": (0.0, (0,)), "y": (0.0, (1, 2)), "b": (10.0, (0, 1)), "c": (10.0, (2,))}


# Four machines; all jobs run exactly their wall time.
# a (2 nodes, 10 s) starts at 0 on {0, 1}. h (3 nodes) arrives at 1: first fit
# at 10 on {0, 1, 2}. s (4 nodes) at 2, z (1 node, 30 s) at 3.
# EASY protects only the head h: z's window [3, 33) overlaps h's [10, 20),
# so z avoids {0, 1, 2} and starts at 3 on the free machine 3. At 10 h
# starts on {0, 1, 2}; s, now the head, needs all four machines: z holds
# machine 3 until 33, so s starts at 33.
# Conservative reserves for s too: s's first fit is [20, 30) on {0..3}, so z
# (whose window would overlap [20, 30)) fits first at 30, on machine 0.
HEAD_ONLY = Instance("head-only", Platform.homogeneous(1, nodes=4), (
    J("a", 2, 10.0, 0.0, release=0.0, walltime=10.0),
    J("h", 3, 10.0, 0.0, release=1.0, walltime=10.0),
    J("s", 4, 10.0, 0.0, release=2.0, walltime=10.0),
    J("z", 1, 30.0, 0.0, release=3.0, walltime=30.0)))


def test_easy_protects_only_the_head():
    assert _run(HEAD_ONLY, "easy") == {
        "a": (0.0, (0, 1)), "h": (10.0, (0, 1, 2)), "s": (33.0, (0, 1, 2, 3)),
        "z": (3.0, (3,))}


def test_conservative_protects_every_queued_job():
    assert _run(HEAD_ONLY, "conservative") == {
        "a": (0.0, (0, 1)), "h": (10.0, (0, 1, 2)), "s": (20.0, (0, 1, 2, 3)),
        "z": (30.0, (0,))}


# Two machines. a (2 nodes, 10 s) runs [0, 10); b (1 node, 20 s) arrives at 1,
# c (2 nodes, 5 s) at 2.
# FCFS order: at 10 b (the head) starts on {0}; c needs both machines: 30.
# SJF order: c (estimate 5) is ahead of b (20): c starts at 10, b at 15.
# Conservative SJF: at 10 c is placed first, but b's old reservation
# [10, 30) on {0} still holds, so c's first fit is 30; then b starts at 10.
SJF = Instance("sjf", Platform.homogeneous(1, nodes=2), (
    J("a", 2, 10.0, 0.0, release=0.0, walltime=10.0),
    J("b", 1, 20.0, 0.0, release=1.0, walltime=20.0),
    J("c", 2, 5.0, 0.0, release=2.0, walltime=5.0)))


def test_queue_orders():
    fcfs = {"a": (0.0, (0, 1)), "b": (10.0, (0,)), "c": (30.0, (0, 1))}
    assert _run(SJF, "easy", order="fcfs") == fcfs
    assert _run(SJF, "conservative", order="fcfs") == fcfs
    assert _run(SJF, "easy", order="sjf") == {
        "a": (0.0, (0, 1)), "b": (15.0, (0,)), "c": (10.0, (0, 1))}
    assert _run(SJF, "conservative", order="sjf") == fcfs


# Four machines, one I/O node of bandwidth B = 1. beta = V / (W + V/B):
# a: W 6, V 2 -> 0.25 (I/O [6, 8)); h: W 3, V 3 -> 0.5 (I/O [3, 6));
# x: W 1, V 3 -> 0.75; y: W 6, V 2 -> 0.25. a and h start at 0 (0.75).
# io-easy: x (at 1) lacks bandwidth (0.25 left): head, reserved at h's end 6
# (bandwidth 0.75 then) on machine 1. y (at 2) would run [2, 10) across x's
# reservation, where a + x + y = 1.25 > 1: refused. At 6 h ends: x starts on
# {1}; y, now the head, fits at a's end 8 (bandwidth 0.25): starts at 8 on {0}.
# herbein (limit 1, nodes reserved, bandwidth only checked at start): x is
# refused at 1 (0.75 + 0.75) and holds machine 2 from now; y at 2 takes
# machine 3 (0.75 + 0.25 <= 1). At 6 (h ends) x is still refused
# (a + y + x = 1.25); at 8 a ends and x starts on the lowest free machine, 0.
# easy ignores bandwidth: x at 1 on {2}, y at 2 on {3}.
IO = Instance("io", Platform.homogeneous(1, nodes=4, bandwidth=1.0), (
    J("a", 1, 6.0, 2.0, release=0.0, walltime=8.0),
    J("h", 1, 3.0, 3.0, release=0.0, walltime=6.0),
    J("x", 1, 1.0, 3.0, release=1.0, walltime=4.0),
    J("y", 1, 6.0, 2.0, release=2.0, walltime=8.0)))


def test_io_aware_schedulers():
    first = {"a": (0.0, (0,)), "h": (0.0, (1,))}
    assert _run(IO, "io-easy") == {**first, "x": (6.0, (1,)), "y": (8.0, (0,))}
    assert _run(IO, "herbein") == {**first, "x": (8.0, (0,)), "y": (2.0, (3,))}
    assert _run(IO, "easy") == {**first, "x": (1.0, (2,)), "y": (2.0, (3,))}


def test_herbein_limit_below_b():
    # L = 0.75 on the same jobs: a + h = 0.75 <= L start at 0. At 1 x (0.75)
    # is refused and holds machine 2 from now. At 2 y (0.25) is refused
    # (0.75 + 0.25 > L). At 6 h ends: x is placed again from now, on the
    # lowest free machine 1, and refused (0.25 + 0.75 > L); y avoids machine 1
    # and starts on 2 (0.25 + 0.25 <= L): compute [6, 12), I/O [12, 14).
    # At 8 a ends: x still refused (0.25 + 0.75); at 14 y ends and x starts
    # on machine 0.
    got = _run(IO, "herbein", limit=0.75)
    assert got == {"a": (0.0, (0,)), "h": (0.0, (1,)), "x": (14.0, (0,)),
                   "y": (6.0, (2,))}


# One machine. a runs 10 s but asked for 4; b (2 s, asks 3) arrives at 1, c
# (1 s) at 6. Killed at its wall time, a ends at 4: b starts at 4, ends at
# 6, and c starts at 6. Let run, a ends at 10: b (reserved from a's expected
# end 4) starts at 10 and c at 12 (at 6 a is past its estimate: expected to
# end any moment, it still holds the machine).
KILL = Instance("kill", Platform.homogeneous(1, nodes=1), (
    J("a", 1, 10.0, 0.0, release=0.0, walltime=4.0),
    J("b", 1, 2.0, 0.0, release=1.0, walltime=3.0),
    J("c", 1, 1.0, 0.0, release=6.0, walltime=1.0)))


@pytest.mark.parametrize("name", ["easy", "conservative", "io-easy", "herbein"])
def test_kill_at_walltime_and_overrun(name):
    schedule = replay(KILL, get_scheduler(name), kill_at_walltime=True)
    assert schedule["a"].killed_at == 4.0 and schedule.info["killed"] == 1
    assert [schedule[j].start for j in "abc"] == [0.0, 4.0, 6.0]
    assert _run(KILL, name) == {"a": (0.0, (0,)), "b": (10.0, (0,)),
                                "c": (12.0, (0,))}


# Three machines; a (2 nodes, 10 s) and b (3 nodes, 5 s) have no requested
# time (estimate inf), c (1 node, 3 s, asks 3) and d (1 node, 30 s) arrive at
# 2. b, the head at 1, has no first fit (a may hold {0, 1} forever): no
# reservation, so nothing is backfilled past it -- c waits although machine
# 2 is free. At 10 a ends: b starts on all three machines; c is now the head
# and has no first fit either (b's end is unknown). At 15 b ends: c starts
# on 0, then d on 1. Conservative places the later jobs anyway: c starts at
# 2 on machine 2 (fits [2, 5)), d (unknown end) is reserved from 5 on 2 and
# starts then; b, whose machines a then d hold, waits for d's end at 35.
# With estimate="exact" (clairvoyant lengths) c is backfilled at 2 on
# machine 2 by every scheduler.
UNKNOWN = Instance("unknown", Platform.homogeneous(1, nodes=3), (
    J("a", 2, 10.0, 0.0, release=0.0),
    J("b", 3, 5.0, 0.0, release=1.0),
    J("c", 1, 3.0, 0.0, release=2.0, walltime=3.0),
    J("d", 1, 30.0, 0.0, release=2.0)))


@pytest.mark.parametrize("name", ["easy", "conservative", "io-easy", "herbein"])
def test_jobs_without_requested_time(name):
    if name == "conservative":
        want = {"a": (0.0, (0, 1)), "b": (35.0, (0, 1, 2)), "c": (2.0, (2,)),
                "d": (5.0, (2,))}
    else:
        want = {"a": (0.0, (0, 1)), "b": (10.0, (0, 1, 2)), "c": (15.0, (0,)),
                "d": (15.0, (1,))}
    assert _run(UNKNOWN, name) == want
    schedule = replay(UNKNOWN, get_scheduler(name), estimate="exact")
    assert schedule["c"].start == 2.0 and schedule["c"].machines == (2,)


def test_rjms_delay_lengthens_estimates():
    # Two machines. a (1 node) runs [0, 10) asking 10; h (2 nodes) arrives at
    # 1: reserved at 10 (or 15 with a 5 s delay on a's estimate). b (1 node,
    # 9 s asked) at 1: ends by 10 <= 10 fits before h without delay; with the
    # delay its estimate is 14, ending at 15 <= 15: it still fits. c (1 node,
    # asks 12) at 2: [2, 14) overlaps h's [10, 20) without delay; with it,
    # c's estimate is 17, [2, 19) overlaps [15, 22): both refuse c.
    inst = Instance("d", Platform.homogeneous(1, nodes=3), (
        J("a", 1, 10.0, 0.0, release=0.0, walltime=10.0),
        J("h", 3, 5.0, 0.0, release=1.0, walltime=5.0),
        J("b", 1, 9.0, 0.0, release=1.0, walltime=9.0),
        J("c", 1, 12.0, 0.0, release=2.0, walltime=12.0)))
    for delay in (0.0, 5.0):
        got = _run(inst, "easy", rjms_delay=delay)
        assert got["b"] == (1.0, (1,)) and got["h"] == (10.0, (0, 1, 2))
        assert got["c"][0] == 15.0


def test_options_are_checked():
    with pytest.raises(OptionError, match="order='lifo' is unknown"):
        get_scheduler("easy", order="lifo")
    with pytest.raises(OptionError, match="rjms_delay"):
        get_scheduler("conservative", rjms_delay=-1)
    with pytest.raises(OptionError, match="limit"):
        get_scheduler("herbein", limit=0.0)
    with pytest.raises(OptionError, match="bandwidth"):
        get_scheduler("io-easy", bandwidth=-2.0)
    with pytest.raises(OptionError, match="could never start"):
        replay(IO, get_scheduler("io-easy", bandwidth=0.5))


def test_queue_order_protocol():
    assert isinstance(get_queue_order("sjf"), SJFOrder)
    with pytest.raises(OptionError):
        get_queue_order(42)


def test_profile_first_fit_by_hand():
    # 4 machines; a job on {0, 1} until 10, a reservation on {2} over [5, 8).
    times, bw = np.zeros((1, 16)), np.zeros((1, 16))
    free = np.zeros((1, 16, 1), np.uint64)
    free[0, 0, 0] = 0b1111
    masks = np.array([[0b0011], [0b0100]], np.uint64)
    nsl = pf.add(times, free, bw, 0, 1, 0.0, 10.0, masks, 0, 0.0, False)
    nsl = pf.add(times, free, bw, 0, nsl, 5.0, 8.0, masks, 1, 0.0, False)
    assert times[0, :nsl].tolist() == [0.0, 5.0, 8.0, 10.0]
    assert free[0, :nsl, 0].tolist() == [0b1100, 0b1000, 0b1100, 0b1111]
    busy, scratch, out = (np.zeros((1, 1), np.uint64) for _ in range(3))

    def first_fit(nodes, length):
        a, now = pf.first_fit(times, free, bw, 0, nsl, busy, 0.0, nodes, length, 0.0,
                              False, 0.0, scratch, out, 0)
        return a, now, int(out[0, 0])

    # 2 machines for 5 s: [0, 5) has {2, 3}: starts now on {2, 3}
    assert first_fit(2, 5.0) == (0, True, 0b1100)
    # 2 machines for 6 s: [0, 6) crosses the reservation; at 5 only {3}; at 8
    # {2, 3} until 10, then all: at 8 on {2, 3}
    assert first_fit(2, 6.0) == (2, False, 0b1100)
    assert not pf.fit_now(times, free, bw, 0, nsl, busy, 0.0, 2, 6.0, 0.0, False, 0.0,
                          scratch, out, 0)
    # 1 machine for 20 s: {3} is free throughout, and the lowest one
    assert first_fit(1, 20.0) == (0, True, 0b1000)
    # 4 machines: at 10
    assert first_fit(4, 1.0) == (3, False, 0b1111)
    # machine 3 busy now (a job past its estimate): the 1-machine job is
    # placed from now on {3} but cannot start now
    busy[0, 0] = 0b1000
    assert first_fit(1, 20.0) == (0, False, 0b1000)
    nsl = pf.remove(times, free, bw, 0, nsl, 5.0, 8.0, masks, 1, 0.0, False)
    assert times[0, :nsl].tolist() == [0.0, 10.0]
    assert free[0, :nsl, 0].tolist() == [0b1100, 0b1111]
    nsl = pf.advance(times, free, bw, 0, nsl, 10.0)
    assert times[0, :nsl].tolist() == [10.0] and free[0, :nsl, 0].tolist() == [0b1111]


def test_bit_sets_over_several_words():
    rows = np.array([[0b1011, 0, 1 << 63]], np.uint64)
    assert pf.count_row(rows, 0) == 4
    out = np.zeros((2, 3), np.uint64)
    pf.lowest_row(rows, 0, 3, out, 1)
    assert out[1].tolist() == [0b1011, 0, 0]
    pf.lowest_row(rows, 0, 4, out, 1)
    assert out[1].tolist() == [0b1011, 0, 1 << 63]
    numbers = np.zeros(8, np.int64)
    count = pf.machines_of(rows, 0, numbers, 2)
    assert numbers[2:2 + count].tolist() == [0, 1, 3, 191]
    assert pf.words_for(64) == 1 and pf.words_for(65) == 2
