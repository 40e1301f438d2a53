"""Priorities through the backfilling schedulers' ``order=`` seam.

EASY and conservative call the order's optional hooks themselves; one test
checks the fallback of an order whose scheduler calls none (events
inferred from the cluster at each sort)."""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest

from opt_sched import Instance, Job, Platform
from opt_sched.priority import (
    FairShareOrder,
    MultifactorOrder,
    get_queue_order,
)
from opt_sched.scheduling import replay
from opt_sched.validation import assert_feasible
from opt_sched.workflows import WorkflowAwareOrder, build_workflow_workload

from .order_helpers import Unkeyed


def _takes_order(name: str) -> bool:
    from opt_sched.scheduling import SCHEDULERS

    factory = SCHEDULERS.get(name)
    return factory is not None and "order" in inspect.signature(factory).parameters


pytestmark = pytest.mark.skipif(
    not (_takes_order("easy") and _takes_order("conservative")),
    reason="enabled at merge: needs easy/conservative with order= (branch online)")

BACKFILLING = ["easy", "conservative"]


def _scheduler(name: str, order):
    from opt_sched.scheduling import get_scheduler

    return get_scheduler(name, order=order)


def _job(job_id, nodes, run, release, user="u", after=()):
    return Job(job_id, nodes, (run,), (0.0,), release=release, user=user,
               group="g", walltime=run, after=tuple(after))


@pytest.mark.parametrize("name", BACKFILLING)
def test_fairshare_through_backfilling(name) -> None:
    inst = Instance("fs", Platform.homogeneous(1, nodes=4), (
        _job("a0", 4, 100.0, 0.0, "a"),
        _job("a1", 4, 10.0, 100.0, "a"),
        _job("b1", 4, 10.0, 100.0, "b")))
    sched = replay(inst, _scheduler(name, FairShareOrder("relative")))
    assert_feasible(inst, sched)
    assert sched["b1"].start == 100.0 and sched["a1"].start == 110.0


@pytest.mark.parametrize("name", BACKFILLING)
def test_chained_age_through_backfilling(name) -> None:
    inst = Instance("mf", Platform.homogeneous(1, nodes=4), (
        _job("p", 1, 500.0, 0.0),
        _job("blocker", 3, 1000.0, 0.0),
        _job("c", 4, 10.0, 0.0, after=["p"]),
        _job("d", 4, 10.0, 100.0)))
    sched = replay(inst, _scheduler(name, MultifactorOrder(weight_size=0)))
    assert_feasible(inst, sched)
    assert sched["d"].start == 1000.0 and sched["c"].start == 1010.0


@pytest.mark.parametrize("name", BACKFILLING)
@pytest.mark.parametrize("priority", ["fcfs", "multifactor", "fairshare:sigmoid-2"])
def test_random_workloads_with_workflows_are_feasible(name, priority) -> None:
    rng = np.random.default_rng(5)
    jobs = sorted((_job(f"r{k}", int(rng.integers(1, 30)),
                        float(rng.integers(10, 5000)), float(rng.integers(0, 20000)),
                        f"u{k % 4}") for k in range(80)), key=lambda j: j.release)
    base = Instance("bg", Platform.homogeneous(1, nodes=1000), tuple(jobs))
    for mode in ("chained", "woas"):
        built = build_workflow_workload(["cybershake", "sipht", "floodplain"], mode,
                                        base, submits=[0.0, 500.0, 900.0])
        order = get_queue_order(priority)
        if mode == "woas":
            order = WorkflowAwareOrder(order)
        sched = replay(built.instance, _scheduler(name, order))
        assert_feasible(built.instance, sched)
        assert not math.isnan(sched.jobs[0].start)


def test_easy_without_hooks_uses_the_fallback() -> None:
    from opt_sched.scheduling import get_scheduler

    inst = Instance("fs", Platform.homogeneous(1, nodes=4), (
        _job("a0", 4, 100.0, 0.0, "a"),
        _job("a1", 4, 10.0, 100.0, "a"),
        _job("b1", 4, 10.0, 100.0, "b")))
    order = FairShareOrder("relative")
    sched = replay(inst, get_scheduler("easy", order=Unkeyed(order)))
    assert not order.history._hooked  # the events were inferred
    assert sched["b1"].start == 100.0


@pytest.mark.parametrize("name", BACKFILLING)
def test_backfilling_calls_the_hooks(name) -> None:
    from opt_sched.scheduling import get_scheduler

    inst = Instance("fs", Platform.homogeneous(1, nodes=4), (
        _job("a0", 4, 100.0, 0.0, "a"),
        _job("b1", 4, 10.0, 100.0, "b")))
    order = FairShareOrder("relative", half_life=math.inf)
    replay(inst, get_scheduler(name, order=order))
    assert order.history._hooked
    # usage in node-seconds, undecayed: 4 x 100 for a, 4 x 10 for b
    assert order.history.usage.values(1000.0) == pytest.approx(
        {("g", "a"): 400.0, ("g", "b"): 40.0})
