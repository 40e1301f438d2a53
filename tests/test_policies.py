"""The eight I/O list policies: forced choices, ties, keys and the registry.

Each race puts a blocker ``x`` (index 0, ``w = 0``, one I/O phase of volume
``block``) on the I/O node during ``[0, block)`` while jobs ``a`` (index 1)
and ``b`` (index 2) request during that time; at ``t = block`` the policy
must pick one. The winner's I/O starts at ``block``, the loser's right after.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from opt_sched import Instance, Job, Partition, Platform, methods
from opt_sched.errors import OptionError
from opt_sched.simulation import (
    POLICIES,
    POLICY_NAMES,
    StartsPlan,
    get_policy,
    simulate,
)
from opt_sched.simulation.kernel import MODE_FIFO, MODE_STATIC, MODE_STRETCH
from opt_sched.simulation.policies import (
    PhaseTable,
    Policy,
    bandwidth_key,
    longest_remaining_key,
    lowest_id_key,
    names,
    register_policy,
    shortest_remaining_key,
    unregister_policy,
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


SEED_003_POLICIES = ("lowest-id", "longest-io", "shortest-io",
                     "shortest-remaining", "longest-remaining", "fifo",
                     "bandwidth", "stretch")
"""The eight policies of seed 003 §5.1, in its order (the registry may hold
more: this is what it must hold, not all it holds)."""


def check_policy_registry() -> None:
    """The registry's invariants, for whatever it holds: the seed's eight
    policies in the seed's order, every name unique, registered under its
    own name with a summary and a mode the kernel runs, and every name
    round-trips through a method spec's ``/policy`` part."""
    listed = names()
    assert len(set(listed)) == len(listed)
    assert set(listed) == set(POLICIES)
    assert [n for n in listed if n in SEED_003_POLICIES] == list(SEED_003_POLICIES)
    for name in listed:
        policy = get_policy(name)
        assert policy.name == name
        assert policy.summary
        assert policy.mode in (MODE_STATIC, MODE_FIFO, MODE_STRETCH)
        assert (policy.mode == MODE_STATIC) == callable(policy.phase_key)
        assert str(methods.method(f"one-pack/{name}")) == f"one-pack/{name}"


def test_names_and_registry():
    check_policy_registry()
    assert set(POLICY_NAMES) <= set(names())


def test_unknown_policy():
    with pytest.raises(OptionError) as info:
        get_policy("random")
    message = str(info.value)
    assert message.startswith("policy='random' is unknown")
    assert all(name in message for name in POLICY_NAMES)


# Each race: a and b (``job(name, w, v, iterations)``), then the winner
# under the policy tested and under policies that would pick otherwise.
RACES = [
    # a (index 1) requests at 3, b (index 2) at 1: a despite FIFO.
    pytest.param(job("a", 3, 1), job("b", 1, 1), {"lowest-id": "a", "fifo": "b"},
                 id="lowest-id"),
    # b requests at 1, a at 2: b first although a has the lower index.
    pytest.param(job("a", 2, 1), job("b", 1, 1), {"fifo": "b", "lowest-id": "a"},
                 id="fifo"),
    # d_b = 5 > d_a = 1, though a is first by index and by request.
    pytest.param(job("a", 1, 1), job("b", 2, 5), {"longest-io": "b", "fifo": "a"},
                 id="longest-io"),
    pytest.param(job("a", 1, 5), job("b", 2, 1), {"shortest-io": "b", "fifo": "a"},
                 id="shortest-io"),
    # a: d=1 then 2 more iterations of 1+1: remaining 5. b: remaining 2.
    # Shortest-io would pick a (1 < 2).
    pytest.param(job("a", 1, 1, 3), job("b", 2, 2),
                 {"shortest-remaining": "b", "shortest-io": "a"},
                 id="shortest-remaining"),
    # a: remaining 2. b: 1 + 2 x (2 + 1) = 7. Longest-io would pick a.
    pytest.param(job("a", 1, 2), job("b", 2, 1, 3),
                 {"longest-remaining": "b", "longest-io": "a"},
                 id="longest-remaining"),
    # I/O fraction of a: 1/2; of b: 2/11. Shortest-io and FIFO pick a.
    pytest.param(job("a", 1, 1), job("b", 9, 2),
                 {"bandwidth": "b", "shortest-io": "a", "fifo": "a"},
                 id="bandwidth"),
    # At t=10, started now: a ends with stretch (10+8-0)/(1+8) = 2,
    # b with (10+1-0)/(2+1) = 3.67: b, although FIFO and lowest-id pick a.
    pytest.param(job("a", 1, 8), job("b", 2, 1), {"stretch": "b", "fifo": "a"},
                 id="stretch"),
]


@pytest.mark.parametrize("a, b, winners", RACES)
def test_each_policy_picks_its_own_winner(a, b, winners):
    """The first entry of ``winners`` is the policy the race is for; the
    others show the race is not won the same way by every policy."""
    assert len(set(winners.values())) == 2
    for policy, winner in winners.items():
        assert race(policy, a, b) == winner, policy


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
def phase_table(inst: Instance, schedule) -> PhaseTable:
    """The phases of ``inst`` on the partitions ``schedule`` chose, built
    here from the jobs (not by the simulator)."""
    job_of, off, w, d = [], [0], [], []
    for i, job in enumerate(inst.jobs):
        b = inst.platform.partitions[schedule[job.id].partition].bandwidth
        job_of += [i] * len(job.compute)
        w += list(job.compute)
        d += [v / b for v in job.io_volume]
        off.append(len(w))
    return PhaseTable(np.array(job_of, np.int64), np.array(off, np.int64),
                      np.array(w, np.float64), np.array(d, np.float64))


def reference_key(policy: Policy, inst: Instance, schedule, table: PhaseTable,
                  job_id: str, j: int, t: float) -> tuple[float, float, int]:
    """``(key, request time, index)`` of phase ``j`` of ``job_id`` at ``t``
    under ``policy``: its own ``phase_key`` for a static policy, else the
    kernel mode's key (request time; stretch at the end of the phase)."""
    i = inst.index[job_id]
    p = int(table.off[i]) + j
    js = schedule[job_id]
    request = js.compute_starts[j] + float(table.w[p])
    if policy.mode == MODE_STATIC:
        key = float(policy.phase_key(table)[p])
    elif policy.mode == MODE_FIFO:
        key = request
    else:
        d = float(table.d[p])
        key = -(t + d - js.compute_starts[0]) / (float(table.done()[p]) + d)
    return key, request, i


def assert_io_decisions_follow(inst: Instance, name: str,
                               start: dict[str, float]) -> None:
    """Whenever a phase of positive duration starts on an I/O node at ``t``,
    it has the smallest ``(key, request, index)`` among the phases of that
    node requested by ``t`` and not started before ``t``."""
    policy = get_policy(name)
    schedule = check(inst, simulate(inst, StartsPlan(start), name))
    table = phase_table(inst, schedule)
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
        chosen = reference_key(policy, inst, schedule, table, job_id, j, t)
        for i2, j2 in rivals:
            assert chosen < reference_key(policy, inst, schedule, table, i2, j2, t), (
                f"{name}: at t={t} {job_id}[{j}] chosen over {i2}[{j2}]")


def draw_starts(inst: Instance, data) -> dict[str, float]:
    return {job.id: data.draw(st.integers(0, 8)) / 2 for job in inst.jobs}


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(inst=instances(max_jobs=6, max_iterations=4),
       policy=st.sampled_from(names()), data=st.data())
def test_every_io_decision_follows_the_policy(inst, policy, data):
    assert_io_decisions_follow(inst, policy, draw_starts(inst, data))


# seed 003 §5.1, written from the definitions in opt_sched.simulation.policies:
# (mode, key of phase j of job i from its w, d and instance index)
SEED_003_DEFINITIONS = {
    "lowest-id": (MODE_STATIC, lambda i, w, d, j: float(i)),
    "longest-io": (MODE_STATIC, lambda i, w, d, j: -d[j]),
    "shortest-io": (MODE_STATIC, lambda i, w, d, j: d[j]),
    "shortest-remaining": (MODE_STATIC, lambda i, w, d, j: d[j] + sum(
        w[x] + d[x] for x in range(j + 1, len(w)))),
    "longest-remaining": (MODE_STATIC, lambda i, w, d, j: -(d[j] + sum(
        w[x] + d[x] for x in range(j + 1, len(w))))),
    "fifo": (MODE_FIFO, None),
    "bandwidth": (MODE_STATIC, lambda i, w, d, j: sum(d) / (sum(w) + sum(d))
                  if sum(w) + sum(d) > 0 else 0.0),
    "stretch": (MODE_STRETCH, None),
}


@settings(max_examples=30, deadline=None)
@given(inst=instances(max_jobs=6, max_iterations=4),
       policy=st.sampled_from(SEED_003_POLICIES))
def test_seed_policies_follow_their_definitions(inst, policy):
    """The seed's eight keys are the seed's definitions: the mode, and for a
    static key every phase's value (so the decision property above checks
    the definitions, not only the keys' self-consistency)."""
    mode, definition = SEED_003_DEFINITIONS[policy]
    assert get_policy(policy).mode == mode
    if definition is None:
        return
    table = phase_table(inst, simulate(inst, policy="fifo"))
    expected = []
    for i in range(inst.num_jobs):
        w = table.w[table.off[i]:table.off[i + 1]].tolist()
        d = table.d[table.off[i]:table.off[i + 1]].tolist()
        expected += [definition(i, w, d, j) for j in range(len(w))]
    np.testing.assert_allclose(get_policy(policy).phase_key(table), expected)


# -- the checks above hold with one more policy registered -----------------
def most_compute_key(ph: PhaseTable) -> np.ndarray:
    """A throw-away static key: the job's longest compute phase first."""
    return -ph.per_job(ph.w)


@contextmanager
def throwaway_policy() -> Iterator[str]:
    """``test-most-compute`` registered as the docs' recipe says, removed
    afterwards."""
    name = "test-most-compute"
    register_policy(Policy(name, MODE_STATIC, most_compute_key,
                           "the job with the most compute first (test)"))
    try:
        yield name
    finally:
        unregister_policy(name)


def test_registry_checks_hold_with_an_extra_policy():
    with throwaway_policy() as name:
        assert name in names()
        check_policy_registry()
    assert name not in names()


@settings(max_examples=20, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(inst=instances(max_jobs=6, max_iterations=4), data=st.data())
def test_decisions_of_an_extra_policy_follow_its_key(inst, data):
    with throwaway_policy() as name:
        assert_io_decisions_follow(inst, name, draw_starts(inst, data))


def test_names_lists_the_builtins_first():
    assert names()[:len(POLICY_NAMES)] == POLICY_NAMES
    assert set(names()) == set(POLICIES)
