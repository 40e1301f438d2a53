"""Seed 000's pack scheduling with backfilling, on the Scheduler seam."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import opt_sched.validation as validation
from opt_sched import Instance, Job, Platform
from opt_sched.scheduling import PackScheduling, replay


def _batch(*jobs: Job, nodes: int = 4) -> Instance:
    return Instance("b", Platform.homogeneous(1, nodes=nodes), tuple(jobs))


def test_max_order_with_and_without_backfilling_hand_checked():
    """P = 4. Max order a(10), d(5), b(4), c(3) (lengths T_i). First fit:
    [a, b] (4 nodes), [d] (4 nodes alone), [c]. With backfilling, b ends at 4
    and c (2 nodes, predicted end 7 <= 10) joins pack 1; d starts when a ends,
    at 10: makespan 15. Without: [c] runs last, 15..18."""
    inst = _batch(Job.periodic("a", 2, 10.0, 0.0), Job.periodic("b", 2, 4.0, 0.0),
                  Job.periodic("c", 2, 3.0, 0.0), Job.periodic("d", 4, 5.0, 0.0))
    sched = PackScheduling("max")
    schedule = replay(inst, sched, estimate="exact")
    assert {j: schedule[j].start for j in "abcd"} == {"a": 0, "b": 0, "c": 4, "d": 10}
    assert schedule.makespan(inst) == 15.0
    assert [h["backfilled"] for h in sched.history] == [[2], []]
    plain = replay(inst, PackScheduling("max", backfill=False), estimate="exact")
    assert plain["c"].start == 15.0 and plain.makespan(inst) == 18.0


def test_the_average_constraint_opens_a_new_pack():
    """B = 1. a: compute 6, volume 4 (T = 10, I/O time 4); b: compute 1,
    volume 5 (T = 6). Together: I/O 9 <= max T = 10 -> one pack. c: volume 2
    (T = 2): 9 + 2 > 10 -> a new pack."""
    inst = _batch(Job.periodic("a", 1, 6.0, 4.0), Job.periodic("b", 1, 1.0, 5.0),
                  Job.periodic("c", 1, 0.0, 2.0))
    sched = PackScheduling("max", backfill=False)
    schedule = replay(inst, sched, estimate="exact")
    assert [sorted(h["jobs"]) for h in sched.history] == [[0, 1], [2]]
    validation.assert_feasible(inst, schedule)


@st.composite
def batches(draw):
    nodes = draw(st.integers(2, 12))
    n = draw(st.integers(1, 10))
    jobs = []
    for i in range(n):
        iters = draw(st.integers(1, 4))
        w = draw(st.integers(0, 10)) / 2
        v = draw(st.integers(0, 6)) / 2
        if w + v == 0:
            w = 1.0
        jobs.append(Job.periodic(f"j{i}", draw(st.integers(1, nodes)), w, v, iters))
    band = draw(st.sampled_from([0.5, 1.0, 2.0]))
    return Instance("batch", Platform.homogeneous(1, nodes=nodes, bandwidth=band),
                    tuple(jobs))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(inst=batches(), order=st.sampled_from(["random", "max", "char-dec", "char-inc"]),
       backfill=st.booleans(), seed=st.integers(0, 3))
def test_pack_schedules_are_feasible_and_keep_their_rules(inst, order, backfill, seed):
    sched = PackScheduling(order, backfill=backfill, seed=seed)
    schedule = replay(inst, sched, estimate="exact")
    validation.assert_feasible(inst, schedule)
    band = inst.platform.partitions[0].bandwidth
    length = {i: j.length(band) for i, j in enumerate(inst.jobs)}
    io = {i: j.total_volume / band for i, j in enumerate(inst.jobs)}
    done = set()
    for k, pack in enumerate(sched.history):
        members = pack["jobs"] + pack["backfilled"]
        done.update(members)
        # the average constraint on every pack, backfilled jobs included
        pack_len = max(length[i] for i in pack["jobs"])
        assert sum(io[i] for i in members) <= pack_len * (1 + 1e-9) + 1e-12
        assert sum(inst.jobs[i].nodes for i in pack["jobs"]) <= inst.platform.max_nodes
        # backfilled jobs are predicted to end by the pack's predicted end
        for i in pack["backfilled"]:
            assert schedule.jobs[i].start + length[i] <= pack["predicted_end"] + 1e-9
        # the next pack starts when every job of this one has completed
        if k + 1 < len(sched.history):
            end = max(schedule.completion(inst, inst.jobs[i].id) for i in members)
            assert sched.history[k + 1]["start"] >= end - 1e-9
        for i in pack["jobs"]:
            assert schedule.jobs[i].start == pack["start"]
    assert done == set(range(inst.num_jobs))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(inst=batches(), order=st.sampled_from(["random", "max", "char-dec", "char-inc"]),
       seed=st.integers(0, 3), io=st.booleans())
def test_backfilled_jobs_never_delay_the_next_pack_beyond_the_predicted_end(
        inst, order, seed, io):
    """Pack ``k + 1`` starts when the last job of pack ``k`` ends. A job
    backfilled into pack ``k`` is predicted to end by ``S_k + L_k``, with
    ``L_k`` the longest ``T_i(B)`` of the pack's own jobs, so it may push the
    next pack only by the time it lost to contention (its I/O waits,
    ``C_j - S_j - T_j(B)``), which the prediction ignores:

        S_{k+1} <= max(max_{own i} C_i, S_k + L_k + max_{backfilled j} wait_j).

    Without I/O (``io`` false: every volume set to 0) nothing waits, so every
    pack lasts exactly its predicted length: ``S_{k+1} = S_k + L_k``."""
    if not io:
        inst = Instance(inst.name, inst.platform, tuple(
            Job.periodic(j.id, j.nodes, j.length(1.0) / j.iterations, 0.0,
                         j.iterations) for j in inst.jobs))
    sched = PackScheduling(order, backfill=True, seed=seed)
    schedule = replay(inst, sched, estimate="exact")
    validation.assert_feasible(inst, schedule)
    band = inst.platform.partitions[0].bandwidth
    length = [j.length(band) for j in inst.jobs]
    end = [schedule.completion(inst, j.id) for j in inst.jobs]
    start = [s.start for s in schedule.jobs]
    for k, (pack, after) in enumerate(zip(sched.history, sched.history[1:])):
        predicted_end = pack["start"] + max(length[i] for i in pack["jobs"])
        own_end = max(end[i] for i in pack["jobs"])
        waits = [end[j] - start[j] - length[j] for j in pack["backfilled"]]
        assert all(w >= -1e-9 for w in waits)
        assert after["start"] <= max(own_end, predicted_end + max(waits, default=0.0)
                                     ) + 1e-9, k
        if not io:
            assert after["start"] == pytest.approx(predicted_end), k
