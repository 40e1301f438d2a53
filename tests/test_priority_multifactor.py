"""Slurm multifactor priority: factors by hand, age from eligibility (chained
jobs), job size relative to time, fair-share weight."""

from __future__ import annotations

import pytest

from opt_sched import Instance, Job, Platform
from opt_sched.errors import OptionError
from opt_sched.priority import MultifactorOrder, StrictOrderScheduler
from opt_sched.scheduling import job_table, replay
from opt_sched.validation import assert_feasible

from .order_helpers import ClusterView


def _job(job_id, nodes, run, release, walltime=None, after=(), user="u"):
    return Job(job_id, nodes, (run,), (0.0,), release=release, user=user,
               group="g", walltime=walltime or run, after=tuple(after))


def _inst(jobs, nodes=4) -> Instance:
    return Instance("mf", Platform.homogeneous(1, nodes=nodes), tuple(jobs))


def test_size_factor_by_hand() -> None:
    inst = _inst([_job("a", 2, 600.0, 0.0), _job("b", 4, 60.0, 0.0),
                  _job("c", 1, 3600.0, 0.0)])
    order = MultifactorOrder(cores_per_node=24)
    order.attach(job_table(inst), ClusterView(4))
    # a: 48 cores / 10 min / 96 cores = 0.05; b: 96 / 1 / 96 = 1; c: 24/60/96
    assert order.size_factor(0) == pytest.approx(0.95)
    assert order.size_factor(1) == pytest.approx(0.0)
    assert order.size_factor(2) == pytest.approx(1 - 24 / 60 / 96)
    plain = MultifactorOrder(relative_to_time=False)
    plain.attach(job_table(inst), ClusterView(4))
    assert plain.size_factor(0) == pytest.approx(0.5)   # (N - Q)/N
    large = MultifactorOrder(favor_small=False, relative_to_time=False)
    large.attach(job_table(inst), ClusterView(4))
    assert large.size_factor(1) == pytest.approx(1.0)
    # age: 7 days max
    assert order.age_factor(0, 3.5 * 86400) == pytest.approx(0.5)
    assert order.age_factor(0, 30 * 86400) == 1.0
    prio = order.priorities([0, 1, 2], 86400.0)
    # a: 5e7 / 7 + 6e8 * 0.95, floored
    assert prio[0] == float(int(5e7 / 7 + 6e8 * 0.95))


def test_edison_weights_favour_small_jobs() -> None:
    """A 1-node 1-hour job submitted later overtakes a full-machine 1-minute
    job: 6e8 * (1 - 24/60/96) = 597.5e6 against an age of 990 s,
    5e7 * 990 / 604800 = 81,845."""
    inst = _inst([_job("block", 4, 1000.0, 0.0), _job("big", 4, 60.0, 10.0),
                  _job("small", 1, 3600.0, 20.0)])
    sched = replay(inst, StrictOrderScheduler(MultifactorOrder(cores_per_node=24)))
    assert_feasible(inst, sched)
    assert sched["small"].start == 1000.0
    assert sched["big"].start == 4600.0
    age_only = replay(inst, StrictOrderScheduler(MultifactorOrder(weight_size=0)))
    assert age_only["big"].start == 1000.0


def test_chained_job_age_counts_from_its_dependencies() -> None:
    """c depends on p (ends at 500) and is released at 0; d is released at
    100. At t = 1000 both wait: d is older (age 900 vs 500), so d first --
    from the releases c would be first."""
    inst = _inst([
        _job("p", 1, 500.0, 0.0),
        _job("blocker", 3, 1000.0, 0.0),
        _job("c", 4, 10.0, 0.0, after=["p"]),
        _job("d", 4, 10.0, 100.0),
    ])
    sched = replay(inst, StrictOrderScheduler(MultifactorOrder(weight_size=0)))
    assert_feasible(inst, sched)
    assert sched["d"].start == 1000.0 and sched["c"].start == 1010.0


def test_fairshare_factor() -> None:
    """With only the fair-share weight (Slurm's 2^(-s/t) on global shares):
    after u used 100 node-s, v's job goes first."""
    inst = _inst([_job("u0", 4, 100.0, 0.0, user="u"),
                  _job("u1", 4, 10.0, 100.0, user="u"),
                  _job("v1", 4, 10.0, 100.0, user="v")])
    order = MultifactorOrder(weight_age=0, weight_size=0, weight_fairshare=1000,
                             half_life=float("inf"))
    sched = replay(inst, StrictOrderScheduler(order))
    assert sched["v1"].start == 100.0
    # the state at t = 100: u used 400 node-s, v nothing
    fresh = MultifactorOrder(weight_fairshare=1, half_life=float("inf"))
    fresh.attach(job_table(inst), ClusterView(4))
    fresh.observe_start(0.0, 0)
    fresh.observe_end(100.0, 0, False)
    # u: t = 0.5, s = 1 -> 2^-2 = 0.25; v: t = 0.5, s = 0 -> 1
    assert fresh.fairshare_factors([1, 2], 100.0) == {1: 0.25, 2: 1.0}


def test_options_are_checked() -> None:
    with pytest.raises(OptionError, match="weight_age"):
        MultifactorOrder(weight_age=-1)
    with pytest.raises(OptionError, match="max_age"):
        MultifactorOrder(max_age=0)
    with pytest.raises(OptionError, match="cores_per_node"):
        MultifactorOrder(cores_per_node=0)
