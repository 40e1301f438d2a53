"""The eight I/O list policies: forced choices, ties, keys and the registry.

Each race puts a blocker ``x`` (index 0, ``w = 0``, one I/O phase of volume
``block``) on the I/O node during ``[0, block)`` while jobs ``a`` (index 1)
and ``b`` (index 2) request during that time; at ``t = block`` the policy
must pick one. The winner's I/O starts at ``block``, the loser's right after.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from opt_sched import Instance, Job, Partition, Platform
from opt_sched.errors import OptionError
from opt_sched.simulation import (
    POLICIES,
    POLICY_NAMES,
    StartsPlan,
    get_policy,
    simulate,
)
from opt_sched.simulation.policies import (
    PhaseTable,
    bandwidth_key,
    longest_remaining_key,
    lowest_id_key,
    shortest_remaining_key,
)
from tests.strategies import instances
from tests.test_simulator import check


def race(policy: str, a: Job, b: Job, block: float = 10.0) -> str:
    """Which of ``a`` and ``b`` gets the I/O node at ``t = block``."""
    x = Job.periodic("x", 1, 0, block)
    inst = Instance("race", Platform((Partition(8),)), (x, a, b))
    schedule = check(inst, simulate(inst, policy=policy))
    first = {job.id: schedule[job.id].io_starts[0] for job in (a, b)}
    assert sorted(first.values())[0] == block
    return min(first, key=first.get)


def job(name: str, w: float, v: float, iterations: int = 1) -> Job:
    return Job.periodic(name, 1, w, v, iterations)


def test_names_and_registry():
    assert POLICY_NAMES == ("lowest-id", "longest-io", "shortest-io",
                            "shortest-remaining", "longest-remaining", "fifo",
                            "bandwidth", "stretch")
    assert set(POLICIES) == set(POLICY_NAMES)
    for name in POLICY_NAMES:
        assert get_policy(name).name == name
        assert get_policy(name).summary


def test_unknown_policy():
    with pytest.raises(OptionError) as info:
        get_policy("random")
    message = str(info.value)
    assert message.startswith("policy='random' is unknown")
    assert all(name in message for name in POLICY_NAMES)


def test_lowest_id():
    """a (index 1) requests at 3, b (index 2) at 1: a despite FIFO."""
    a, b = job("a", 3, 1), job("b", 1, 1)
    assert race("lowest-id", a, b) == "a"
    assert race("fifo", a, b) == "b"


def test_fifo():
    """b requests at 1, a at 2: b first although a has the lower index."""
    a, b = job("a", 2, 1), job("b", 1, 1)
    assert race("fifo", a, b) == "b"
    assert race("lowest-id", a, b) == "a"


def test_longest_io():
    """d_b = 5 > d_a = 1, though a is first by index and by request."""
    a, b = job("a", 1, 1), job("b", 2, 5)
    assert race("longest-io", a, b) == "b"
    assert race("fifo", a, b) == "a"


def test_shortest_io():
    a, b = job("a", 1, 5), job("b", 2, 1)
    assert race("shortest-io", a, b) == "b"
    assert race("fifo", a, b) == "a"


def test_shortest_remaining():
    """a: d=1 then 2 more iterations of 1+1: remaining 5. b: remaining 2.
    Shortest-io would pick a (1 < 2)."""
    a, b = job("a", 1, 1, 3), job("b", 2, 2)
    assert race("shortest-remaining", a, b) == "b"
    assert race("shortest-io", a, b) == "a"


def test_longest_remaining():
    """a: remaining 2. b: 1 + 2 x (2 + 1) = 7. Longest-io would pick a."""
    a, b = job("a", 1, 2), job("b", 2, 1, 3)
    assert race("longest-remaining", a, b) == "b"
    assert race("longest-io", a, b) == "a"


def test_bandwidth():
    """I/O fraction of a: 1/2; of b: 2/11. Shortest-io and FIFO pick a."""
    a, b = job("a", 1, 1), job("b", 9, 2)
    assert race("bandwidth", a, b) == "b"
    assert race("shortest-io", a, b) == "a"
    assert race("fifo", a, b) == "a"


def test_stretch():
    """At t=10, started now: a ends with stretch (10+8-0)/(1+8) = 2,
    b with (10+1-0)/(2+1) = 3.67: b, although FIFO and lowest-id pick a."""
    a, b = job("a", 1, 8), job("b", 2, 1)
    assert race("stretch", a, b) == "b"
    assert race("fifo", a, b) == "a"


def test_stretch_uses_the_job_start():
    """Starts plan: x holds the node during [0, 20). a starts at 0 (w=10,
    v=2): (20+2-0)/(10+2) = 1.83. b starts at 12 (w=4, v=2): (20+2-12)/(4+2)
    = 1.67, so a goes first; measured from time 0, b would read 3.67."""
    x = Job.periodic("x", 1, 0, 20)
    a = Job.periodic("a", 1, 10, 2)
    b = Job.periodic("b", 1, 4, 2)
    inst = Instance("s", Platform((Partition(8),)), (x, b, a))
    schedule = check(inst, simulate(inst, StartsPlan({"x": 0, "a": 0, "b": 12}),
                                    "stretch"))
    assert schedule["a"].io_starts == (20.0,)
    assert schedule["b"].io_starts == (22.0,)
    # b has the lower index and its start-free key would be larger
    assert race("lowest-id", b, a) == "b"


def test_stretch_counts_the_work_done():
    """P_ij includes the earlier iterations. a (w=1, v=1, 2 iterations) does
    I/O [1,2) alone, computes [2,3) and requests again at 3; x holds the node
    during [2,12); b (w=2.5, v=1) requests at 2.5. At t=12:
    a: (12 + 1 - 0) / (1+1+1 + 1) = 3.25;  b: (12 + 1 - 0) / (2.5 + 1) = 3.71.
    So b first; with P_ij = w_ij only, a would read 13/2 = 6.5 and win."""
    x = Job.periodic("x", 1, 2, 10)
    a = Job.periodic("a", 1, 1, 1, 2)
    b = Job.periodic("b", 1, 2.5, 1)
    inst = Instance("w", Platform((Partition(8),)), (x, a, b))
    schedule = check(inst, simulate(inst, policy="stretch"))
    assert schedule["a"].io_starts[0] == 1.0
    assert schedule["x"].io_starts == (2.0,)
    assert schedule["b"].io_starts == (12.0,)
    assert schedule["a"].io_starts[1] == 13.0


@pytest.mark.parametrize("policy", POLICY_NAMES)
def test_full_tie_goes_to_instance_order(policy):
    """Identical a and b request at the same time: a (lower index) first."""
    assert race(policy, job("a", 1, 1), job("b", 1, 1)) == "a"


@pytest.mark.parametrize("policy", ["longest-io", "shortest-io", "bandwidth",
                                    "shortest-remaining", "longest-remaining"])
def test_key_tie_goes_to_earliest_request(policy):
    """Equal keys (same w + v and v), b requests first: b. (Equal w makes
    equal remaining work and equal I/O fraction too, so vary only the
    request time with a delayed start.)"""
    a = Job.periodic("a", 1, 2, 1)
    b = Job.periodic("b", 1, 2, 1)
    x = Job.periodic("x", 1, 0, 10)
    inst = Instance("t", Platform((Partition(8),)), (x, a, b))
    schedule = check(inst, simulate(inst, StartsPlan({"x": 0, "a": 1, "b": 0}),
                                    policy))
    assert schedule["b"].io_starts == (10.0,)
    assert schedule["a"].io_starts == (11.0,)


def test_policies_are_deterministic_and_differ(tucan5):
    makespans = {}
    for policy in POLICY_NAMES:
        first = simulate(tucan5, policy=policy)
        assert first == simulate(tucan5, policy=policy)
        makespans[policy] = first.makespan(tucan5)
    assert len(set(makespans.values())) > 1


def test_phase_keys():
    """Two jobs, (w, d) = [(1, 4), (2, 0), (3, 5)] and [(2, 2)]."""
    table = PhaseTable(np.array([0, 0, 0, 1]), np.array([0, 3, 4]),
                       np.array([1.0, 2.0, 3.0, 2.0]), np.array([4.0, 0.0, 5.0, 2.0]))
    # remaining from phase j: d_j + sum_{j'>j} (w + d)
    np.testing.assert_allclose(shortest_remaining_key(table), [4 + 2 + 8, 0 + 8, 5, 2])
    np.testing.assert_allclose(longest_remaining_key(table), [-14, -8, -5, -2])
    np.testing.assert_allclose(bandwidth_key(table), [9 / 15] * 3 + [0.5])
    np.testing.assert_allclose(lowest_id_key(table), [0, 0, 0, 1])
    # P_ij = work before phase j + w_j
    np.testing.assert_allclose(table.done(), [1, 5 + 2, 5 + 2 + 3, 2])


# -- every decision on random instances, against the definitions -------------
def reference_key(policy: str, inst: Instance, schedule, job_id: str, j: int,
                  t: float) -> tuple[float, float, int]:
    """``(key, request time, index)`` of phase ``j`` of ``job_id`` at ``t``,
    written from the definitions in ``opt_sched.simulation.policies``."""
    i = inst.index[job_id]
    job = inst.jobs[i]
    js = schedule[job_id]
    b = inst.platform.partitions[js.partition].bandwidth
    w = list(job.compute)
    d = [v / b for v in job.io_volume]
    request = js.compute_starts[j] + w[j]
    remaining = d[j] + sum(w[x] + d[x] for x in range(j + 1, len(w)))
    done = sum(w[x] + d[x] for x in range(j)) + w[j]
    key = {
        "lowest-id": float(i),
        "longest-io": -d[j],
        "shortest-io": d[j],
        "shortest-remaining": remaining,
        "longest-remaining": -remaining,
        "fifo": request,
        "bandwidth": sum(d) / (sum(w) + sum(d)),
        "stretch": -(t + d[j] - js.compute_starts[0]) / (done + d[j]),
    }[policy]
    return key, request, i


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(inst=instances(max_jobs=6, max_iterations=4),
       policy=st.sampled_from(POLICY_NAMES), data=st.data())
def test_every_io_decision_follows_the_policy(inst, policy, data):
    """Whenever a phase of positive duration starts on an I/O node at ``t``,
    it has the smallest ``(key, request, index)`` among the phases of that
    node requested by ``t`` and not started before ``t``."""
    start = {job.id: data.draw(st.integers(0, 8)) / 2 for job in inst.jobs}
    schedule = check(inst, simulate(inst, StartsPlan(start), policy))
    phases = []  # (partition, request, io start, job id, j)
    for job in inst.jobs:
        js = schedule[job.id]
        for j, v in enumerate(job.io_volume):
            if v > 0:
                phases.append((js.partition, js.compute_starts[j] + job.compute[j],
                               js.io_starts[j], job.id, j))
    for k, _, t, job_id, j in phases:
        rivals = [(i2, j2) for k2, r2, s2, i2, j2 in phases
                  if k2 == k and r2 <= t <= s2 and (i2, j2) != (job_id, j)]
        chosen = reference_key(policy, inst, schedule, job_id, j, t)
        for i2, j2 in rivals:
            assert chosen < reference_key(policy, inst, schedule, i2, j2, t), (
                f"{policy}: at t={t} {job_id}[{j}] chosen over {i2}[{j2}]")


def test_names_lists_the_builtins_first():
    from opt_sched.simulation.policies import names

    assert names()[:len(POLICY_NAMES)] == POLICY_NAMES
    assert set(names()) == set(POLICIES)
