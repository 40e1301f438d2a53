"""The vectorised sorts of the priority orders against their one-job-at-a-
time definitions, and the single front door of queue orders."""

from __future__ import annotations

import numpy as np
import pytest

from opt_sched import Instance, Job, Platform
from opt_sched.errors import OptionError
from opt_sched.priority import FairShareOrder, MultifactorOrder
from opt_sched.scheduling import get_queue_order, job_table
from opt_sched.scheduling.queue_order import FCFSOrder, SJFOrder
from opt_sched.workflows import WorkflowAwareOrder, build_workflow_workload

from .order_helpers import ClusterView


def _random_instance(seed: int, n: int = 60) -> Instance:
    rng = np.random.default_rng(seed)
    jobs = []
    for k in range(n):
        run = float(rng.integers(60, 20000))
        jobs.append(Job(f"r{k}", int(rng.integers(1, 40)), (run,), (0.0,),
                        release=float(rng.integers(0, 5000)), user=f"u{k % 3}",
                        group=f"a{k % 2}", walltime=run * float(rng.uniform(1, 3))))
    jobs.sort(key=lambda j: j.release)
    return Instance("rand", Platform.homogeneous(1, nodes=100), tuple(jobs))


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("weights", [{}, {"weight_age": 1000.0, "weight_size": 3.0},
                                     {"weight_fairshare": 1e6}])
def test_multifactor_sort_is_the_priority_order(seed, weights) -> None:
    inst = _random_instance(seed)
    order = MultifactorOrder(cores_per_node=24, **weights)
    order.attach(job_table(inst), ClusterView(100))
    rng = np.random.default_rng(seed + 10)
    for job in range(len(inst.jobs)):  # eligibility as the hooks record it
        order.observe_submit(float(inst.jobs[job].release) + float(rng.integers(0, 3)),
                             job)
    for now in (0.0, 4000.0, 9e5):
        queue = sorted(rng.choice(len(inst.jobs), 30, replace=False).tolist())
        prio = order.priorities(queue, now)
        expected = sorted(queue, key=lambda j: -prio[j])  # stable
        assert order.sort(queue, now) == expected


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("inner", ["fcfs", "multifactor", "fairshare:sigmoid-2"])
def test_woas_sort_is_the_reference_sort(seed, inner) -> None:
    base = _random_instance(seed, 40)
    built = build_workflow_workload(["cybershake", "sipht", "montage", "sipht"],
                                    "woas", base, submits=[0.0, 700.0, 1500.0, 1500.0],
                                    cores_per_node=24)
    jobs = job_table(built.instance)
    fast = WorkflowAwareOrder(get_queue_order(inner))
    slow = WorkflowAwareOrder(get_queue_order(inner))
    fast.attach(jobs, ClusterView(100))
    slow.attach(jobs, ClusterView(100))
    rng = np.random.default_rng(seed)
    n = len(jobs)
    for now in (100.0, 2000.0, 8000.0):
        queue = sorted(rng.choice(n, n // 2, replace=False).tolist())
        for order in (fast, slow):  # some eligibility known, some first seen
            for job in queue[::3]:
                order.observe_submit(now - 1.0, job)
        assert fast.sort(queue, now) == slow.sort_reference(queue, now)


def test_one_front_door() -> None:
    assert isinstance(get_queue_order("fcfs"), FCFSOrder)
    assert isinstance(get_queue_order(" SJF "), SJFOrder)
    assert isinstance(get_queue_order("multifactor", cores_per_node=24),
                      MultifactorOrder)
    order = get_queue_order("fairshare:relative-2", bits=8)
    assert isinstance(order, FairShareOrder) and order.name == "fairshare:relative-2"
    assert isinstance(get_queue_order("fairshare"), FairShareOrder)
    for bad, options in (("lottery", {}), ("sjf", {"bits": 3}),
                         ("multifactor:x", {}), ("multifactor", {"colour": 1})):
        with pytest.raises(OptionError):
            get_queue_order(bad, **options)
    with pytest.raises(OptionError, match="spec string"):
        get_queue_order(FCFSOrder(), bits=3)
    import opt_sched.priority as priority

    assert priority.get_queue_order is get_queue_order
