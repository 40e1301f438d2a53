"""The NERSC workload model: empirical sampler, Edison calibration (Paper I
Table 3 within 3 points), job pressure, fill, workflow shares, fit to an SWF
trace."""

from __future__ import annotations

import numpy as np
import pytest

from opt_sched.errors import OptionError
from opt_sched.priority import StrictOrderScheduler
from opt_sched.scheduling import replay
from opt_sched.validation import assert_feasible
from opt_sched.workflows import geometry
from opt_sched.workflows.catalog import catalog_workflow
from opt_sched.workloads.empirical import EmpiricalSampler
from opt_sched.workloads.nersc import (
    edison_model,
    fit_trace,
    generate_nersc,
    generate_workload,
)
from opt_sched.workloads.nersc_edison import anchors
from opt_sched.workloads.pressure import PressureControl, fill_plan

# Paper I Table 3 / §4 (Edison, 2014), percent
EDISON_TABLE3 = {"run < 2 h": 88.0, "cores <= 240": 69.0, "one node": 39.0,
                 "accuracy <= 0.5": 60.0}


def test_sampler_histogram_by_hand() -> None:
    """Digest B.1's example: a bin [10, 20) spanning the CDF 0.3 -> 0.8 maps
    every u in it to 15; u = 0.91 falls in [20, 30) -> 25."""
    data = [5.0] * 3 + [12.0] * 5 + [25.0] * 2   # bins 0, 10, 20 (width 10)
    s = EmpiricalSampler.from_values(data, 10.0, policy="midpoint", origin=0.0)
    assert list(s.values) == [0.0, 10.0, 20.0]
    assert list(s.cumulative) == pytest.approx([0.3, 0.8, 1.0])

    class U:
        def __init__(self, u):
            self.u = u

        def random(self, n):
            return np.full(n, self.u)

    assert s.sample(U(0.5)) == 15.0
    assert s.sample(U(0.91)) == 25.0
    assert s.sample(U(0.0)) == 5.0
    low = EmpiricalSampler.from_values(data, 10.0, policy="low", origin=0.0)
    assert low.sample(U(0.5)) == 10.0
    with pytest.raises(OptionError, match="increasing"):
        EmpiricalSampler([2.0, 1.0], [0.5, 0.5])
    with pytest.raises(OptionError, match="policy"):
        EmpiricalSampler([1.0], [1.0], policy="max")


@pytest.fixture(scope="module")
def edison_week():
    return generate_workload("nersc-edison", duration=5 * 86400.0, seed=11)


def test_generator_hits_the_edison_percentiles(edison_week) -> None:
    jobs = [j for j in edison_week.instance.jobs if not j.id.startswith("fill-")]
    assert len(jobs) > 10_000
    limits = np.array([j.walltime for j in jobs])
    runs = np.array([j.compute[0] for j in jobs])
    nodes = np.array([j.nodes for j in jobs])
    got = anchors(limits, runs, nodes)
    for key, target in EDISON_TABLE3.items():
        assert abs(got[key] - target) <= 3.0, (key, got[key], target)
    assert abs(got["overrun"] - 11.0) <= 3.0
    # overrunning jobs run at most one minute past their request
    assert np.all(runs <= limits + 60.0 + 1e-9)


def test_job_pressure_holds_between_thresholds(edison_week) -> None:
    t0, t1 = edison_week.start, edison_week.window[1]
    jobs = [j for j in edison_week.instance.jobs if not j.id.startswith("fill-")]
    work = sum(j.nodes * j.compute[0] for j in jobs)
    machines = edison_week.platform.total_nodes
    # at the last submission the rule left P >= 1.0 (and < 1.1 + one job)
    last = max(j.release for j in jobs)
    assert 1.0 <= work / (machines * (last - t0)) <= 1.1
    # over the whole window it may end a last gap below 1
    pressure = work / (machines * (t1 - t0))
    assert 0.99 <= pressure <= 1.1
    assert pressure == pytest.approx(edison_week.pressure)
    assert all(t0 <= j.release < t1 for j in jobs)


def test_pressure_rule() -> None:
    control = PressureControl(10, start=0.0)
    assert control.wants_more(5.0) and control.admits(5.0)
    control.add(10 * 5.0 * 1.05)     # P(5) = 1.05
    assert not control.wants_more(5.0) and control.admits(5.0)
    control.add(10 * 5.0 * 0.05)     # P(5) = 1.1
    assert not control.admits(5.0)
    assert control.admits(6.0)       # 55 / 60 < 1.1
    with pytest.raises(OptionError):
        PressureControl(10, 0.0, lower=1.2, upper=1.1)


def test_fill_plan_for_edison() -> None:
    """Digest B.1: 4 h at 10 s -> 1440 jobs of ceil(5576 / 1440) = 4 nodes,
    run 2 x 14400 + 120 = 28920 s, request one minute more, first submitted
    at start - 4 h - 120 s."""
    plan = fill_plan(5576, 4 * 3600.0, start=14520.0)
    assert (plan.count, plan.nodes, plan.runtime, plan.walltime, plan.first) == \
        (1440, 4, 28920.0, 28980.0, 0.0)
    small = fill_plan(64, 3600.0, start=3720.0)
    assert (small.count, small.nodes) == (64, 1)


def test_fill_makes_the_first_jobs_wait_about_the_target() -> None:
    wait = 3600.0
    load = generate_workload(nodes=64, duration=6 * 3600.0, stabilisation=0.0,
                             seed=3, target_wait=wait)
    inst = load.instance
    sched = replay(inst, StrictOrderScheduler("fcfs"))
    assert_feasible(inst, sched)
    # the fill jobs hold all 64 machines until the first ends at start + w
    free_from = load.start + wait
    early = [j for j in inst.jobs
             if not j.id.startswith("fill-") and j.release < free_from]
    assert len(early) >= 5
    assert all(sched[j.id].start >= free_from for j in early)
    assert sched[early[0].id].start - early[0].release >= wait - 600.0


def test_workflow_share_of_submitted_work() -> None:
    load = generate_workload(nodes=512, duration=2 * 86400.0, stabilisation=0.0,
                             seed=5, workflows=[("cybershake", 0.3)])
    wf_work = geometry(catalog_workflow("cybershake"), 24).work
    regular = sum(j.nodes * j.compute[0] for j in load.instance.jobs
                  if not j.id.startswith("fill-"))
    total = regular + wf_work * len(load.workflow_submissions)
    assert wf_work * len(load.workflow_submissions) / total == pytest.approx(
        0.3, abs=0.05)
    # the same seed gives the same regular jobs and submit times
    again = generate_workload(nodes=512, duration=2 * 86400.0, stabilisation=0.0,
                              seed=5, workflows=[("cybershake", 0.3)])
    assert [j.id for j in again.instance.jobs] == [j.id for j in load.instance.jobs]
    assert [t for t, _ in again.workflow_submissions] == \
        [t for t, _ in load.workflow_submissions]


def test_down_scaled_machine_and_users() -> None:
    inst = generate_nersc(nodes=32, duration=86400.0, stabilisation=0.0, seed=1,
                          fill=False, users=5, accounts=2)
    assert max(j.nodes for j in inst.jobs) <= 32
    assert {j.user for j in inst.jobs} <= {f"u{k}" for k in range(5)}
    assert {j.group for j in inst.jobs} <= {"a0", "a1"}
    with pytest.raises(OptionError, match="shares sum"):
        generate_workload(workflows=[("montage", 0.7), ("sipht", 0.5)])
    with pytest.raises(OptionError, match="protocol"):
        generate_nersc("nersc-hopper")


def test_edison_model_geometry() -> None:
    model = edison_model()
    assert (model.machines, model.cores_per_node) == (5576, 24)


@pytest.fixture(scope="module")
def kth(shared_data):
    path = shared_data / "swf" / "KTH-SP2.swf.gz"
    if not path.exists():
        pytest.skip("../shared/data/swf/KTH-SP2.swf.gz absent")
    return path


def test_fit_trace_reproduces_the_trace(kth) -> None:
    from opt_sched.traces import read_swf

    trace, _ = read_swf(kth, overrun="keep")
    model = fit_trace(kth)
    assert model.machines == 100
    rng = np.random.default_rng(0)
    limits, _runs, nodes = model.sample_jobs(rng, 50_000, model.machines)
    real_nodes = np.asarray(trace.nodes)
    real_limits = np.asarray(trace.walltime)
    for q in (1, 4, 16, 64):
        assert np.mean(nodes <= q) == pytest.approx(np.mean(real_nodes <= q),
                                                    abs=0.02)
    for hours in (0.5, 1, 4):
        assert np.mean(limits <= hours * 3600) == pytest.approx(
            np.mean(real_limits <= hours * 3600), abs=0.02)
    gaps = np.diff(np.asarray(trace.submit))
    assert model.interarrival.mean() == pytest.approx(gaps.mean(), rel=0.02)
    inst = generate_nersc(f"fit:{kth}", duration=86400.0, stabilisation=0.0,
                          seed=2, fill=False)
    assert inst.platform.total_nodes == 100 and inst.num_jobs > 10
