"""The fused replay with an age-and-size priority (multifactor without
fair-share, WoAS over it) is the stepped replay of the Python orders: same
starts, same machines."""

from __future__ import annotations

import numpy as np
import pytest

from opt_sched import Instance, Job, Platform
from opt_sched.priority import MultifactorOrder
from opt_sched.scheduling import get_scheduler, replay
from opt_sched.validation import assert_feasible
from opt_sched.workflows import (
    WorkflowAwareOrder,
    build_workflow_workload,
    group_workflow,
)

from .order_helpers import Stepped


def _workload(seed: int, mode: str) -> Instance:
    """Random regular jobs (some at one instant, some zero-length) and
    workflows on 24 machines."""
    rng = np.random.default_rng(seed)
    jobs = []
    t = 0.0
    for k in range(int(rng.integers(10, 60))):
        if rng.random() < 0.7:
            t += float(rng.integers(0, 400))
        run = float(rng.choice([0.0, 30.0, 600.0, 3600.0,
                                float(rng.integers(1, 9000))]))
        jobs.append(Job(f"r{k}", int(rng.integers(1, 25)), (run,), (0.0,), release=t,
                        walltime=max(1.0, run * float(rng.choice([1.0, 1.5, 3.0])))))
    base = Instance("rand", Platform.homogeneous(1, nodes=24), tuple(jobs))
    flows = [group_workflow("A", 3), group_workflow("B", 2), group_workflow("C", 2),
             group_workflow("A", 2)]
    submits = sorted(float(x) for x in rng.integers(0, int(t) + 1, len(flows)))
    return build_workflow_workload(flows, mode, base, submits=submits,
                                   cores_per_node=24).instance


def _order(mode: str, weights: dict, stepped: bool):
    order = MultifactorOrder(cores_per_node=24, **weights)
    if mode == "woas":
        order = WorkflowAwareOrder(order)
    return Stepped(order) if stepped else order


WEIGHTS = [{}, {"weight_age": 1000.0, "weight_size": 3.0, "max_age": 4000.0},
           {"weight_age": 10.0, "weight_size": 0.0}]


@pytest.mark.parametrize("mode", ["chained", "woas"])
@pytest.mark.parametrize("name", ["easy", "conservative"])
@pytest.mark.parametrize("weights", WEIGHTS)
@pytest.mark.parametrize("limits", [{}, {"bf_depth": 3, "bf_interval": 30.0}])
def test_fused_equals_stepped(mode, name, weights, limits) -> None:
    for seed in range(6):
        inst = _workload(seed, mode)
        kill = seed % 2 == 0
        fast_sched = get_scheduler(name, order=_order(mode, weights, False), **limits)
        slow_sched = get_scheduler(name, order=_order(mode, weights, True), **limits)
        fast = replay(inst, fast_sched, kill_at_walltime=kill)
        slow = replay(inst, slow_sched, kill_at_walltime=kill)
        assert fast_sched.fused_priority() is not None
        assert slow_sched.fused_priority() is None
        assert fast.jobs == slow.jobs, seed
        assert_feasible(inst, fast)


def test_fair_share_weight_is_not_fused() -> None:
    order = MultifactorOrder(weight_fairshare=5.0)
    sched = get_scheduler("easy", order=order)
    inst = _workload(0, "chained")
    replay(inst, sched)
    assert sched.fused_priority() is None and sched.fused_spec() is None
