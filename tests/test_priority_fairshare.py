"""Fair-share priorities: decayed usage, the target tree, priority vectors at
a bit resolution, the fairshare queue order and the strict-order scheduler."""

from __future__ import annotations

import math

import numpy as np
import pytest

from opt_sched import Instance, Job, Platform
from opt_sched.errors import OptionError
from opt_sched.priority import (
    DecayedUsage,
    FairShareOrder,
    StrictOrderScheduler,
    TargetTree,
    get_queue_order,
)
from opt_sched.priority.fairshare import fairshare_vectors
from opt_sched.priority.operators import get_operator
from opt_sched.priority.vector import effective_priority, priority_key, scalar
from opt_sched.scheduling import FCFS, replay
from opt_sched.validation import assert_feasible

H = 14 * 86400.0


def test_usage_decay_closed_form() -> None:
    usage = DecayedUsage(H)
    usage.start(0.0, 1, "u", 2)
    # while running: 2 * int_0^H 2^{-(H - tau)/H} dtau = 2 H/ln2 (1 - 1/2)
    assert usage.value("u", H) == pytest.approx(H / math.log(2))
    usage.end(H, 1)
    assert usage.value("u", H) == pytest.approx(H / math.log(2))
    # one more half-life: half of it
    assert usage.value("u", 2 * H) == pytest.approx(H / math.log(2) / 2)


def test_usage_without_decay_is_node_seconds() -> None:
    usage = DecayedUsage(math.inf)
    usage.start(10.0, 1, "u", 3)
    usage.start(20.0, 2, "v", 1)
    assert usage.value("u", 30.0) == pytest.approx(60.0)
    usage.end(40.0, 1)
    assert usage.value("u", 100.0) == pytest.approx(90.0)
    assert usage.values(50.0) == {"u": pytest.approx(90.0), "v": pytest.approx(30.0)}


def test_usage_rebases_over_long_horizons() -> None:
    usage = DecayedUsage(1.0)
    usage.start(0.0, 1, "u", 1)
    usage.end(1.0, 1)
    value = usage.value("u", 2000.0)  # 2^-1999 of 1/ln2: underflows to ~0
    assert value >= 0.0 and value < 1e-300
    usage.start(2000.0, 2, "u", 1)
    usage.end(2001.0, 2)
    # the new job alone: 1/ln2 (1 - 1/2)
    assert usage.value("u", 2001.0) == pytest.approx(0.5 / math.log(2))
    with pytest.raises(OptionError):
        DecayedUsage(0.0)


def test_scalar_mapping_figure4() -> None:
    # r = 10000: -1 -> 0, 1 -> 9999 (Paper II Fig. 4)
    assert scalar(-1.0, 10000) == 0
    assert scalar(1.0, 10000) == 9999
    assert scalar(0.0, 10000) == 5000
    # P_4 = {-1, -0.5, 0, 0.5} (eq. 20)
    assert list(effective_priority(np.array([-1, -0.6, -0.5, 0.2, 0.99]), 4)) == \
        [-1.0, -1.0, -0.5, 0.0, 0.5]


def test_low_resolution_inverts_an_order() -> None:
    """Paper II Fig. 5: two first components that share a scalar let the
    second component decide, against the true order."""
    u1, u2 = (0.503, -0.9), (0.501, 0.9)
    assert priority_key(u1, None) > priority_key(u2, None)
    # 6 bits: both first components map to floor(1.50x / 2 * 64) = 48
    assert priority_key(u1, 6) < priority_key(u2, 6)
    # 10 bits: 769 vs 768
    assert priority_key(u1, 10) > priority_key(u2, 10)


def test_tree_targets_and_vectors() -> None:
    tree = TargetTree({"a": 3, "b": 1}, {"a": {"x": 1, "y": 1}, "b": {"z": 1}})
    assert tree.account_targets() == {"a": 0.75, "b": 0.25}
    assert tree.user_targets("a") == {"x": 0.5, "y": 0.5}
    assert tree.global_target("a", "x") == pytest.approx(0.375)
    op = get_operator("relative")
    usage = {("a", "x"): 60.0, ("a", "y"): 20.0, ("b", "z"): 20.0}
    v = fairshare_vectors(op, tree, usage, [("a", "x"), ("a", "y"), ("b", "z")])
    # s_a = 0.8 > t_a = 0.75: -(0.05)/0.8; s_x|a = 0.75 > 0.5: -0.25/0.75
    assert v[("a", "x")] == pytest.approx((-0.0625, -1 / 3))
    assert v[("a", "y")] == pytest.approx((-0.0625, 0.5))
    # s_b = 0.2 < 0.25: 0.05/0.25; z is alone: t = s = 1
    assert v[("b", "z")] == pytest.approx((0.2, 0.0))
    tree2 = TargetTree.from_mapping({"a": {"share": 2, "users": {"x": 1}}, "b": 1})
    assert tree2.account_targets() == {"a": 2 / 3, "b": 1 / 3}
    with pytest.raises(OptionError, match="share"):
        TargetTree({"a": -1})


def _instance(jobs) -> Instance:
    return Instance("fs", Platform.homogeneous(1, nodes=4), tuple(jobs))


def _job(job_id, nodes, run, release, user, group="g"):
    return Job(job_id, nodes, (run,), (0.0,), release=release, user=user,
               group=group, walltime=run)


def test_fairshare_orders_the_lighter_user_first() -> None:
    """User a used the whole machine for 100 s; at t = 100 a and b both
    submit: b (state 0, priority 1) starts before a, though a came first."""
    inst = _instance([
        _job("a0", 4, 100.0, 0.0, "a"),
        _job("a1", 4, 10.0, 100.0, "a"),
        _job("b1", 4, 10.0, 100.0, "b"),
    ])
    fcfs = replay(inst, "fcfs")
    assert fcfs["a1"].start < fcfs["b1"].start
    for name in ("relative", "sigmoid-2", "slurm", "absolute", "combined"):
        sched = replay(inst, StrictOrderScheduler(f"fairshare:{name}"))
        assert_feasible(inst, sched)
        assert sched["b1"].start == 100.0 and sched["a1"].start == 110.0, name


def test_fairshare_hierarchy_accounts_first() -> None:
    """Account level decides before users: x (account A, which used a lot)
    waits behind z (account B), although x itself used less than y."""
    inst = _instance([
        _job("y0", 4, 100.0, 0.0, "y", "A"),
        _job("z0", 2, 20.0, 100.0, "z", "B"),   # B uses 40 node-s
        _job("x0", 2, 20.0, 100.0, "x", "A"),   # A: 400 + 40
        _job("x1", 4, 10.0, 120.0, "x", "A"),
        _job("z1", 4, 10.0, 120.0, "z", "B"),
    ])
    order = FairShareOrder("relative", half_life=math.inf)
    sched = replay(inst, StrictOrderScheduler(order))
    assert_feasible(inst, sched)
    assert sched["z1"].start == 120.0 and sched["x1"].start == 130.0


def test_fairshare_bits_collapse_ties_to_submission_order() -> None:
    """Three users of one account (t = 1/3 each) used a = 100, b = 50,
    c = 600 node-s by t = 300. Relative: a (1/3 - 2/15)/(1/3) = 0.6, b 0.8:
    b first. At 1 bit every value in [0, 1) maps to scalar 1: a and b tie
    and submission order puts a first."""
    inst = _instance([
        _job("a0", 1, 100.0, 0.0, "a"),
        _job("b0", 1, 50.0, 0.0, "b"),
        _job("c0", 2, 300.0, 0.0, "c"),
        _job("a1", 4, 10.0, 300.0, "a"),
        _job("b1", 4, 10.0, 300.0, "b"),
    ])
    exact = replay(inst, StrictOrderScheduler(
        FairShareOrder("relative", half_life=math.inf)))
    assert exact["b1"].start == 300.0 and exact["a1"].start == 310.0
    coarse = replay(inst, StrictOrderScheduler(
        FairShareOrder("relative", half_life=math.inf, bits=1)))
    assert coarse["a1"].start == 300.0 and coarse["b1"].start == 310.0


def test_fallback_without_hooks_infers_usage_from_the_cluster() -> None:
    """An order driven by a scheduler that never calls the hooks (sort at
    every pass) infers starts and ends from the cluster view."""

    class PlainStrict(StrictOrderScheduler):
        def submit(self, now, job):
            self._queue[job] = None

        def complete(self, now, job, killed):
            pass

        def decide(self, now):
            starts = []
            free = self._cluster.free_count(0)
            for job in self.order.sort(list(self._queue), now):
                if self._nodes[job] > free:
                    break
                free -= self._nodes[job]
                starts.append(job)
            from opt_sched.scheduling import Start

            for j in starts:
                del self._queue[j]
            return [Start(j) for j in starts]

    inst = _instance([
        _job("a0", 4, 100.0, 0.0, "a"),
        _job("a1", 4, 10.0, 100.0, "a"),
        _job("b1", 4, 10.0, 100.0, "b"),
    ])
    sched = replay(inst, PlainStrict("fairshare:relative"))
    assert sched["b1"].start == 100.0


def test_strict_with_fcfs_order_is_fcfs() -> None:
    rng = np.random.default_rng(3)
    jobs = [_job(f"j{i}", int(rng.integers(1, 5)), float(rng.integers(1, 50)),
                 float(rng.integers(0, 100)), "u") for i in range(40)]
    jobs.sort(key=lambda j: j.release)
    inst = _instance(jobs)
    a = replay(inst, FCFS())
    b = replay(inst, StrictOrderScheduler("fcfs"))
    assert [js.start for js in a.jobs] == [js.start for js in b.jobs]
    assert_feasible(inst, b)


def test_get_queue_order_specs() -> None:
    assert get_queue_order("fcfs").name == "fcfs"
    assert get_queue_order("fairshare").name == "fairshare:sigmoid-2"
    assert get_queue_order("fairshare:Slurm-Original").name == \
        "fairshare:slurm-original"
    assert get_queue_order("multifactor", weight_fairshare=5).weight_fairshare == 5
    order = get_queue_order("fcfs")
    assert get_queue_order(order) is order
    with pytest.raises(OptionError, match="unknown"):
        get_queue_order("lottery")
    with pytest.raises(OptionError, match="takes no"):
        get_queue_order("multifactor:x")
    with pytest.raises(OptionError, match="unknown"):
        get_queue_order("fairshare:karma")
    with pytest.raises(OptionError):
        get_queue_order("fairshare", bits=0)
