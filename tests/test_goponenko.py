"""Seed 001: throughput-limited (history estimates) and workload-adaptive
scheduling, their admission rules, the two-group approximation, the
workload generators, and the mechanism the slides report."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import opt_sched.validation as validation
from opt_sched import Instance, Job, Platform
from opt_sched.errors import OptionError
from opt_sched.execution import Shared
from opt_sched.scheduling import backfill_kernel as bk
from opt_sched.scheduling import get_scheduler, replay
from opt_sched.scheduling.adaptive import two_groups
from opt_sched.scheduling.pretrain import isolated_runs
from opt_sched.workloads.goponenko import EXECUTION, goponenko_workload

from .online_helpers import check_machines, online_workloads

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


# -- an independent look at what the scheduler saw ------------------------------------
class AdmissionLog:
    """Wraps a throughput-aware scheduler; keeps its own EWMA of every job
    group (the count-normalised form with decay 0.2, written here from the
    formula, not from the estimator) fed by the completions the engine
    reports, and at every start checks that the running jobs' estimated
    rates -- each capped at the limit, taken when the job was admitted --
    sum to at most the limit."""

    def __init__(self, scheduler, jobs, limit: float, prior=None) -> None:
        self.scheduler, self.limit = scheduler, limit
        self.jobs = jobs
        self.group: dict[tuple, tuple[float, float]] = {}  # C, S of the rate
        for j, (_, rate) in (prior or {}).items():
            self._add(self._key(j), rate)
        self.running: dict[int, float] = {}
        self.start: dict[int, float] = {}
        self.violations: list[tuple[float, float]] = []
        self.peak = 0.0
        inner_complete, inner_decide = scheduler.complete, scheduler.decide

        def complete(now, job, killed):
            self._add(self._key(job), self.jobs.volume[job] / (now - self.start[job])
                      if now > self.start[job] else None)
            self.running.pop(job)
            inner_complete(now, job, killed)

        def decide(now):
            starts = inner_decide(now)
            for s in starts:
                self.running[s.job] = min(self._rate(s.job), limit)
                self.start[s.job] = now
            total = sum(self.running.values())
            self.peak = max(self.peak, total)
            if starts and total > limit * (1 + 1e-9):
                self.violations.append((now, total))
            return starts

        scheduler.complete, scheduler.decide = complete, decide

    def _key(self, j):
        t = self.jobs
        return (t.users[j], t.groups[j], float(t.estimate[j]), int(t.nodes[j]))

    def _add(self, key, x):
        if x is None:
            return
        c, s = self.group.get(key, (0.0, 0.0))
        self.group[key] = (1 + 0.8 * c, x + 0.8 * s)

    def _rate(self, j):
        if self._key(j) in self.group:
            c, s = self.group[self._key(j)]
            return s / c
        return float(self.jobs.bandwidth[j])


def _attach_log(name, instance, limit, prior=None, **options):
    from opt_sched.scheduling import job_table

    sched = get_scheduler(name, limit=limit, prior=prior, **options)
    return sched, AdmissionLog(sched, job_table(instance), limit, prior)


def _check(instance, schedule, kill=False):
    assert [js.id for js in schedule.jobs] == [j.id for j in instance.jobs]
    for job, js in zip(instance.jobs, schedule.jobs):
        assert js.start >= job.release
        if js.killed_at is not None:
            assert kill
    check_machines(instance, schedule)
    validation.assert_feasible(instance, schedule)


MODELS = {
    "exclusive": lambda: "exclusive",
    "shared": lambda: Shared(),
    "shared-capped": lambda: Shared(share="nodes", node_rate=0.3, eta="1:1,3:0.7"),
}


@SETTINGS
@given(instance=online_workloads(partitions=2, unknown=True),
       name=st.sampled_from(["herbein", "workload-adaptive"]),
       model=st.sampled_from(sorted(MODELS)), fraction=st.sampled_from([0.5, 1.0]),
       pretrain=st.booleans(), kill=st.booleans())
def test_throughput_aware_schedulers_are_feasible_and_keep_the_hard_limit(
        instance, name, model, fraction, pretrain, kill):
    limit = fraction * min(p.bandwidth for p in instance.platform.partitions)
    prior = isolated_runs(instance, MODELS[model]) if pretrain else None
    options = {"estimates": "history"} if name == "herbein" else {}
    sched, log = _attach_log(name, instance, limit, prior, **options)
    schedule = replay(instance, sched, MODELS[model](), kill_at_walltime=kill)
    _check(instance, schedule, kill)
    assert schedule.execution == ("exclusive" if model == "exclusive" else "shared")
    if instance.platform.num_partitions == 1:  # the log sums over one I/O node
        assert log.violations == []


@SETTINGS
@given(instance=online_workloads(), model=st.sampled_from(sorted(MODELS)))
def test_history_estimates_are_declared_ones_until_a_job_completes(instance, model):
    """Before any completion, herbein with history estimates (cold start:
    the declared rate, capped at L = b) decides as with declared rates,
    which never exceed b."""
    declared = replay(instance, get_scheduler("herbein"), MODELS[model]())
    history = replay(instance, get_scheduler("herbein", estimates="history"),
                     MODELS[model]())
    first_end = min(declared.completion(instance, j.id) for j in instance.jobs)
    for a, b in zip(declared.jobs, history.jobs):
        if a.start < first_end or b.start < first_end:
            assert a.start == b.start


def test_declared_prior_and_reserving_rules_are_refused():
    with pytest.raises(OptionError, match="needs estimates='history'"):
        get_scheduler("herbein", prior={0: (1.0, 1.0)})
    with pytest.raises(OptionError, match="estimates='bogus'"):
        get_scheduler("herbein", estimates="bogus")
    from opt_sched.scheduling.bandwidth import ReservedBandwidth
    from opt_sched.scheduling.easy import EasyBackfilling

    with pytest.raises(OptionError, match="checked at start time"):
        EasyBackfilling(bandwidth=ReservedBandwidth(), estimates="history")


# -- the two-group approximation, by hand ---------------------------------------------
def test_two_groups_by_hand():
    """N = 10. Pending: a (u = r/n = 0/1, D 30), b (2/2 = 1, D 10),
    c (3/1 = 3, D 10). Running: d (r 1, n 1, 5 s left).
    rho = (0 + 20 + 30 + 5) / (30 + 20 + 10 + 5) = 55/65; area of the
    pending 60, half 30: a alone reaches it -> r* = 0, zero = {a},
    r_bar = 0 / 30 = 0, R*' = 10 rho; X = 1 - 0 * 1 = 1."""
    g = two_groups(10, np.array([0, 1, 2]), np.array([0.0, 2.0, 3.0]),
                   np.array([1.0, 2.0, 1.0]), np.array([30.0, 10.0, 10.0]),
                   np.array([1.0]), np.array([1.0]), np.array([5.0]))
    assert g.rho == pytest.approx(55 / 65)
    assert g.r_star == 0.0 and g.zero == frozenset({0}) and g.r_bar == 0.0
    assert g.reduced == pytest.approx(10 * 55 / 65) and g.excess == 1.0
    # a wider zero group: a's area is 5 only
    g = two_groups(10, np.array([0, 1, 2]), np.array([0.5, 2.0, 3.0]),
                   np.array([1.0, 2.0, 1.0]), np.array([5.0, 10.0, 10.0]),
                   np.zeros(0), np.zeros(0), np.zeros(0))
    # u = 0.5, 1, 3; areas 5, 20, 10 (total 35, half 17.5): r* = 1
    assert g.r_star == 1.0 and g.zero == frozenset({0, 1})
    # r_bar = (0.5*5 + 2*10) / (5 + 20) = 22.5 / 25
    assert g.r_bar == pytest.approx(0.9)
    rho = (0.5 * 5 + 20 + 30) / 35
    assert g.reduced == pytest.approx(10 * (rho - 0.9)) and g.excess == 0.0


def _mix() -> Instance:
    """4 nodes, b = 1. Two write jobs W1, W2 (1 node, I/O 10: 10 s alone,
    declared rate 1), three sleep jobs Z1-Z3 (1 node, 30 s), all at 0, in
    that order; requests = real lengths."""
    jobs = [Job.periodic(f"W{i}", 1, 0.0, 10.0, walltime=10.0, group="w")
            for i in (1, 2)]
    jobs += [Job.periodic(f"Z{i}", 1, 30.0, 0.0, walltime=30.0, group="z")
             for i in (1, 2, 3)]
    return Instance("mix", Platform.homogeneous(1, nodes=4, bandwidth=1.0),
                    tuple(jobs))


def test_adaptive_keeps_every_node_busy_when_zero_jobs_can_run():
    """Declared estimates. At 0: rho = (10 + 10) / (10 + 10 + 90) = 2/11,
    R* = 8/11; the zero jobs hold 90 of the 110 area -> r* = 0, zero =
    {Z1, Z2, Z3}, r_bar = 0, R*' = 8/11, r'_W = 1. W1 starts (no regular job
    runs); W2 would bring X to 1 + 1/2 > 8/11: refused, and -- unlike a
    herbein head -- it reserves no machine, so Z1-Z3 take the three other
    nodes: all 4 busy at 0. At 10 W1 ends, no regular job runs: W2 starts
    (ends at 20). Makespan 30."""
    inst = _mix()
    sched = get_scheduler("workload-adaptive", limit=10.0, estimates="declared")
    seen = []
    inner = sched.decide

    def decide(now):
        starts = inner(now)
        seen.append((now, sched.groups.get(0)))
        return starts

    sched.decide = decide
    schedule = replay(inst, sched, Shared())
    validation.assert_feasible(inst, schedule)
    starts = {js.id: js.start for js in schedule.jobs}
    assert starts == {"W1": 0.0, "W2": 10.0, "Z1": 0.0, "Z2": 0.0, "Z3": 0.0}
    t0, g0 = seen[0]
    assert t0 == 0.0 and g0.target == pytest.approx(8 / 11)
    assert g0.r_star == 0.0 and g0.r_bar == 0.0
    assert g0.zero == frozenset({2, 3, 4})
    # herbein at L = 1 on the same jobs: W2 refused by the limit keeps a
    # machine reserved from 0, so only two sleep jobs start at 0
    herbein = replay(inst, get_scheduler("herbein", limit=1.0), Shared())
    at_zero = [js.id for js in herbein.jobs if js.start == 0.0]
    assert at_zero == ["W1", "Z1", "Z2"]


def test_adaptive_admission_rule_in_the_kernel():
    """CHECK_TARGET: with X = 1, R*' = 1.4, a regular job of excess 1 is
    refused (1 + 0.5 > 1.4), one of excess 0.8 admitted (1.4 <= 1.4); with no
    regular job running, any is admitted; a zero job always (hard limit
    permitting)."""
    st = bk.new_state(np.array([1, 1, 1]), np.array([5.0, 5.0, 5.0]),
                      np.array([0.0, 0.0, 0.0]), np.zeros(3, np.int64), [4], [1.0],
                      [math.nan], [10.0], bk.CHECK_TARGET, skip=True)
    ji, jf, li, lf = st[0], st[1], st[4], st[5]
    lf[0, bk.LF_EXCESS], lf[0, bk.LF_TARGET], li[0, bk.L_NREG] = 1.0, 1.4, 1
    ji[0, bk.J_REG], jf[0, bk.F_EXCESS] = 1, 1.0
    ji[1, bk.J_REG], jf[1, bk.F_EXCESS] = 1, 0.8
    ji[2, bk.J_REG], jf[2, bk.F_EXCESS] = 0, -5.0
    for j in range(3):
        ji[j, bk.J_STATE] = bk.WAITING
    assert not bk.fits_now(st, 0, 0.0)
    assert bk.fits_now(st, 1, 0.0) and bk.fits_now(st, 2, 0.0)
    assert bk.place(st, 0, 0.0) == bk.REFUSED and not ji[0, bk.J_RES]
    li[0, bk.L_NREG] = 0
    assert bk.fits_now(st, 0, 0.0)


# -- the generators -------------------------------------------------------------------
@pytest.mark.parametrize("workload,periods,block", [
    (1, 8, [("w8", 8, 80.0, 30), ("sleep", 1, 0.0, 60)]),
    (2, 5, [("w8", 8, 80.0, 30), ("w6", 6, 60.0, 30), ("w4", 4, 40.0, 30),
            ("w2", 2, 20.0, 70), ("w1", 1, 10.0, 120), ("sleep", 1, 0.0, 60)]),
])
def test_generators_match_the_documented_composition(workload, periods, block):
    """The block (the slides' list) repeated, in order; write x k = k nodes,
    10 GiB per node, no compute, request 300 s; sleep = 1 node, 600 s,
    request 660 s; all at time 0; 256 nodes at 20 GiB/s."""
    inst = goponenko_workload(workload)
    assert inst == goponenko_workload(workload)  # deterministic
    expected = []
    for _ in range(periods):
        for kind, nodes, volume, count in block:
            expected += [(kind, nodes, volume)] * count
    got = [(job.id.split("-")[1], job.nodes, job.io_volume[0]) for job in inst.jobs]
    assert got == expected
    for job in inst.jobs:
        assert job.release == 0.0 and job.iterations == 1 and job.user == "user"
        if job.group == "sleep":
            assert job.compute == (600.0,) and job.walltime == 660.0
        else:
            assert job.compute == (0.0,) and job.walltime == 300.0
            assert job.group == f"write{job.nodes}"
    assert inst.platform.partitions[0].nodes == 256
    assert inst.platform.partitions[0].bandwidth == 20.0
    assert goponenko_workload(workload, nodes=64, repeats=1).num_jobs == len(
        expected) // periods
    with pytest.raises(OptionError, match="workload=3"):
        goponenko_workload(3)
    with pytest.raises(OptionError, match="nodes=4"):
        goponenko_workload(1, nodes=4)


def test_a_write_job_alone_runs_20_seconds_at_its_node_cap():
    """Pre-training: write x 8 alone moves 80 GiB at 8 x 0.5 = 4 GiB/s (the
    file system's eta(1) b = 20 is not binding): 20 s; sleep 600 s, rate 0."""
    inst = goponenko_workload(1, repeats=1)
    prior = isolated_runs(inst, lambda: Shared(**EXECUTION))
    assert prior == {0: (20.0, 4.0), 30: (600.0, 0.0)}


def test_overscheduling_leads_to_further_overscheduling():
    """Workload 1 under the file-system model, herbein at L = 20 with the
    pre-trained history estimator: it starts with 20 / 4 = 5 write x 8 jobs
    at once (the pre-trained rate is 4 GiB/s); with 5 writers the file
    system delivers eta(5) b < 20 GiB/s, the measured rates fall, the
    estimates follow, and later more than 5 write at once (the slides saw
    up to 12)."""
    inst = goponenko_workload(1)
    prior = isolated_runs(inst, lambda: Shared(**EXECUTION))
    schedule = replay(inst, get_scheduler("herbein", limit=20.0, estimates="history",
                                          prior=prior), Shared(**EXECUTION))
    writes = [(js.start, schedule.completion(inst, js.id)) for js, job in
              zip(schedule.jobs, inst.jobs) if job.group == "write8"]
    first = [s for s, _ in writes if s == 0.0]
    assert len(first) == 5

    def concurrent(t):
        return sum(1 for s, e in writes if s <= t < e)

    assert max(concurrent(s) for s, _ in writes) > 5
