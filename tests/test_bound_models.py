"""Lower bounds know their execution model (issue 25, item 4).

- every bound a bound function returns is declared in its module's
  ``HOLDS_UNDER`` table, and a model no bound lists gets no bound;
- the bounds listed for ``shared`` hold for validated shared schedules
  (random small instances, share rules, caps and curves: hypothesis);
- the exclusive-only bounds (``propagated-edf``, the exact optimum) are
  beaten by a shared schedule: why they must not be applied to it;
- a zero-contention model registered by this test alone gives "no bound"
  rows in ``compare``, ``gap`` and ``bounds`` (exit 0), its schedules
  validated.
"""

from __future__ import annotations

import heapq
import json
import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import opt_sched.validation as validation
from opt_sched import (
    Instance,
    Job,
    Platform,
    bound_models,
    bounds,
    bounds_flow,
    bounds_shared,
    bounds_stretch,
)
from opt_sched.cli import main
from opt_sched.exact.brute_force import brute_force_io_sched
from opt_sched.execution import EXECUTION_MODELS, ExecutionSpec, JobPhases, Shared
from opt_sched.experiments.compare import compare
from opt_sched.experiments.gap import gap_table
from opt_sched.instance import Partition
from opt_sched.json_files import read_instance, write_instance
from opt_sched.objectives import objective_value, tolerance
from opt_sched.scheduling import FCFS, PlanScheduler, replay
from opt_sched.validation.io_rules import IO_RULES

from .conftest import INSTANCES

ZERO = "zero-contention"
TUCAN5 = INSTANCES / "tucan5.json"


# -- the declarations -------------------------------------------------------------
def _small() -> Instance:
    return Instance("s", Platform.homogeneous(1, nodes=8, bandwidth=2.0), (
        Job("a", 2, (1.0, 2.0), (4.0, 0.0), partition=0),
        Job("b", 3, (0.5,), (6.0,), release=1.0, partition=0),
        Job("c", 1, (3.0,), (0.0,), partition=0)))


def test_every_bound_returned_is_declared_in_its_module_table():
    inst = _small()
    assert set(bounds.makespan_bounds(inst)) <= set(bounds.HOLDS_UNDER)
    assert set(bounds.max_stretch_bounds(inst)) <= set(bounds.HOLDS_UNDER)
    assert set(bounds_shared.shared_makespan_bounds(inst)) <= set(
        bounds_shared.HOLDS_UNDER)
    assert set(bounds_stretch.stretch_bounds(inst)) <= (
        set(bounds.HOLDS_UNDER) | set(bounds_stretch.HOLDS_UNDER))
    for objective in ("max-flow-stretch", "mean-flow-time"):
        assert set(bounds_flow.flow_bounds(inst, objective)) <= set(
            bounds_flow.HOLDS_UNDER)
    listed = {info.name for info in bound_models.CATALOGUE}
    assert listed >= (set(bounds.HOLDS_UNDER) | set(bounds_shared.HOLDS_UNDER)
                      | set(bounds_stretch.HOLDS_UNDER) | set(bounds_flow.HOLDS_UNDER))


@pytest.mark.parametrize("objective", ["makespan", "max-stretch", "max-flow-stretch",
                                       "mean-flow-time"])
def test_a_model_no_bound_lists_gets_no_bound(objective):
    inst = _small()
    assert bound_models.bounds_under(inst, objective, "nobody-knows-me") == {}
    found = bound_models.best_bound_under(inst, objective, "nobody-knows-me")
    assert found.value is None and found.name is None
    assert found.note == "no bound holds under nobody-knows-me"
    assert not bound_models.exact_bound_holds("nobody-knows-me")


def test_exclusive_default_is_the_old_front_door():
    inst = read_instance(TUCAN5)
    found = bound_models.best_bound_under(inst, "makespan")
    assert found.value == bounds.lower_bound(inst, "makespan")
    assert found.note is None and found.model == "exclusive"
    assert bound_models.bounds_under(inst, "makespan", ExecutionSpec()) == \
        bounds.makespan_bounds(inst)


# -- shared bounds against shared schedules ---------------------------------------
@st.composite
def shared_cases(draw):
    """A small instance, mapped jobs (one or two partitions; releases 0
    or not), and a shared spec with random share rule, caps and curve."""
    parts = draw(st.integers(1, 2))
    bands = [draw(st.sampled_from([0.5, 1.0, 2.0])) for _ in range(parts)]
    platform = Platform(tuple(Partition(8, b) for b in bands))
    released = draw(st.booleans())
    jobs = []
    for i in range(draw(st.integers(1, 5))):
        iters = draw(st.integers(1, 3))
        compute = tuple(draw(st.sampled_from([0.0, 0.5, 1.0, 3.0]))
                        for _ in range(iters))
        volume = tuple(draw(st.sampled_from([0.0, 1.0, 2.0, 5.0]))
                       for _ in range(iters))
        release = draw(st.sampled_from([0.0, 1.0, 4.0])) if released else 0.0
        jobs.append(Job(f"j{i}", draw(st.integers(1, 4)), compute, volume,
                        release=release, partition=draw(st.integers(0, parts - 1))))
    options = {"model": "shared", "share": draw(st.sampled_from(["equal", "nodes"]))}
    if draw(st.booleans()):
        options["max_rate"] = draw(st.sampled_from([0.25, 0.7, 1.0, 3.0]))
    if draw(st.booleans()):
        options["node_rate"] = draw(st.sampled_from([0.1, 0.3, 1.0]))
    if draw(st.booleans()):
        options["eta"] = draw(st.sampled_from(["1:1,3:0.6", "1:0.8", "2:1,4:0.5"]))
    inst = Instance("h", platform, tuple(jobs))
    fits = all(sum(j.nodes for j in jobs if j.partition == k) <= 8
               for k in range(parts))
    # one pack per partition when the jobs fit, else FCFS (several packs)
    return inst, ExecutionSpec.parse(options), not fits or draw(st.booleans())


def _at_least(value: float, bound: float) -> bool:
    return value >= bound - tolerance(bound) - 1e-9 * max(1.0, abs(bound))


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(shared_cases())
def test_no_validated_shared_schedule_goes_below_a_shared_bound(case):
    inst, spec, online = case
    scheduler = FCFS() if online else PlanScheduler(inst)
    schedule = replay(inst, scheduler, spec.build())
    validation.assert_feasible(inst, schedule)
    assert schedule.execution == "shared"
    makespan = schedule.makespan(inst)
    found = bound_models.bounds_under(inst, "makespan", spec)
    assert set(found) >= set(bounds_shared.HOLDS_UNDER) - {"rate-capped-io-node"}
    for name, value in found.items():
        assert _at_least(makespan, value), (name, value, makespan, spec.label)
    for objective in ("max-flow-stretch", "mean-flow-time"):
        value = objective_value(inst, schedule, objective)
        for name, bound in bound_models.bounds_under(inst, objective, spec).items():
            assert _at_least(value, bound), (objective, name, bound, value)
    if all(job.release == 0 for job in inst.jobs) and all(
            schedule.start(job.id) == 0 for job in inst.jobs):
        stretch = schedule.max_stretch(inst)  # fixed starts t_k = 0 hold
        for name, bound in bound_models.bounds_under(inst, "max-stretch", spec).items():
            assert _at_least(stretch, bound), (name, bound, stretch)


def test_caps_make_the_rate_capped_bounds_bite():
    """With a node cap, a job alone runs at ``Q node_rate``: the
    rate-capped job bound is its length at that rate, above the free
    bounds, and the shared schedule reaches it (one job, no contention)."""
    inst = Instance("one", Platform.homogeneous(1, nodes=4, bandwidth=1.0), (
        Job("a", 2, (1.0, 1.0), (3.0, 0.0), partition=0),))
    spec = ExecutionSpec.parse({"model": "shared", "node_rate": 0.25})
    schedule = replay(inst, PlanScheduler(inst), spec.build())
    validation.assert_feasible(inst, schedule)
    found = bound_models.bounds_under(inst, "makespan", spec)
    # alone, the phase runs at min(b, 2 * 0.25) = 0.5: 1 + 3 / 0.5 + 1
    assert found["rate-capped-job"] == pytest.approx(schedule.makespan(inst))
    assert found["rate-capped-job"] > found["longest-job"]


# -- why the exclusive-only bounds must not be applied -----------------------------
def test_a_shared_schedule_beats_the_exclusive_only_bounds():
    """``a``: I/O of 10; ``b``: compute 5, I/O of 1, compute 8 (b = 1, fixed
    start 0). Non-preemptive exclusive I/O cannot interleave them; sharing
    does, and beats the exclusive optimum (brute force) and
    ``propagated-edf`` -- while every bound listed for ``shared`` holds."""
    inst = Instance("x", Platform.homogeneous(1, nodes=8, bandwidth=1.0), (
        Job("a", 1, (0.0,), (10.0,), partition=0),
        Job("b", 1, (5.0, 8.0), (1.0, 0.0), partition=0)))
    schedule = replay(inst, PlanScheduler(inst), Shared())
    validation.assert_feasible(inst, schedule)
    makespan, stretch = schedule.makespan(inst), schedule.max_stretch(inst)
    best_makespan, _ = brute_force_io_sched(inst, "makespan")
    best_stretch, _ = brute_force_io_sched(inst, "max-stretch")
    assert makespan < best_makespan - 0.5  # the exclusive optimum is no bound
    assert stretch < best_stretch - 0.1
    propagated = bounds_stretch.propagated_edf_bound(inst)
    assert propagated > stretch + 0.1      # an exclusive-only bound, violated
    assert not bound_models.holds(bounds_stretch.HOLDS_UNDER, "propagated-edf",
                                  "shared")
    assert not bound_models.exact_bound_holds("shared")
    for name, value in bound_models.bounds_under(inst, "makespan", "shared").items():
        assert _at_least(makespan, value), name
    for name, value in bound_models.bounds_under(inst, "max-stretch", "shared").items():
        assert _at_least(stretch, value), name


# -- a model added from outside: zero contention ----------------------------------
class ZeroContention:
    """Every I/O phase runs at once at its node's full bandwidth, whatever
    else runs: a job lasts exactly ``T_i(b_k)`` from its start."""

    name = ZERO

    def __init__(self, policy: str = "fifo") -> None:
        self.policy = policy

    def attach(self, instance: Instance) -> None:
        self._jobs = instance.jobs
        self._bands = [p.bandwidth for p in instance.platform.partitions]
        self._start: dict[int, tuple[float, int]] = {}
        self._killed: dict[int, float] = {}
        self._heap: list[tuple[float, int]] = []

    def start(self, now: float, job: int, partition: int) -> None:
        self._start[job] = (now, partition)
        length = self._jobs[job].length(self._bands[partition])
        heapq.heappush(self._heap, (now + length, job))

    def _pop(self, t: float) -> list[int]:
        out = []
        while self._heap and self._heap[0][0] == t:
            _, job = heapq.heappop(self._heap)
            if job not in self._killed:
                out.append(job)
        return out

    def advance(self, until: float) -> tuple[float, Sequence[int]]:
        while self._heap and self._heap[0][1] in self._killed:
            heapq.heappop(self._heap)
        if self._heap and self._heap[0][0] <= until:
            t = self._heap[0][0]
            return t, self._pop(t)
        return until, ()

    def settle(self, now: float) -> Sequence[int]:
        return self._pop(now)

    def kill(self, now: float, job: int) -> None:
        self._killed[job] = now

    def next_time(self) -> float:
        return self._heap[0][0] if self._heap else math.inf

    def phases(self, job: int) -> JobPhases:
        start, k = self._start[job]
        spec = self._jobs[job]
        compute, io, t = [], [], start
        for w, v in zip(spec.compute, spec.io_volume):
            compute.append(t)
            io.append(t + w)
            t += w + v / self._bands[k]
        killed = self._killed.get(job)
        if killed is not None:
            compute = compute[:1] + [c for c in compute[1:] if c < killed]
            io = [o for o in io[:len(compute)] if o < killed]
        return JobPhases(tuple(compute), tuple(io))


class ZeroContentionIo:
    """The validator's side: an I/O phase lasts ``v / b``, never waits,
    and any number of them may overlap."""

    execution = ZERO
    name = "zero-contention-io"

    def io_ends(self, instance, schedule, phases) -> np.ndarray:
        return phases.start + phases.volume / phases.bandwidth

    def check(self, instance, schedule, table, tol, out) -> None:
        return None


@pytest.fixture
def zero_model(monkeypatch):
    monkeypatch.setitem(EXECUTION_MODELS, ZERO, ZeroContention)
    monkeypatch.setitem(IO_RULES, ZERO, ZeroContentionIo())
    return ZERO


def test_zero_contention_compare_has_no_bound_and_would_break_the_old_one(zero_model):
    inst = read_instance(TUCAN5)
    table = compare(inst, methods="one-pack/fifo", execution=zero_model)
    assert len(table) == 1
    row = table.iloc[0]
    assert row["lower_bound"] is None and row["gap"] is None
    assert row["bound_note"] == f"no bound holds under {ZERO}"
    # the exclusive bound would be violated: why it must not be applied
    assert row["makespan"] < bounds.lower_bound(inst, "makespan")


def test_zero_contention_through_the_command_line(zero_model, capsys, tmp_path):
    out = tmp_path / "rows.csv"
    code = main(["compare", str(TUCAN5), "--execution", ZERO, "--methods",
                 "one-pack/fifo, first-fit+lpt/fifo", "--json", "--out", str(out)])
    assert code == 0
    captured = capsys.readouterr()
    rows = json.loads(captured.out)
    assert rows and all(r["lower_bound"] is None and r["gap"] is None
                        and r["bound_note"] == f"no bound holds under {ZERO}"
                        for r in rows)
    assert f"no bound holds under {ZERO}" in captured.err
    csv = out.read_text().splitlines()
    assert "bound_note" in csv[0].split(",")
    assert all(line.endswith(f"no bound holds under {ZERO}") for line in csv[1:])
    assert main(["compare", str(TUCAN5), "--execution", ZERO, "--methods",
                 "one-pack/fifo", "--plain"]) == 0
    assert "no bound holds under" in capsys.readouterr().out
    assert main(["bounds", str(TUCAN5), "--execution", ZERO, "--json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    assert listing["best_makespan"] is None and listing["makespan"] == {}
    assert listing["bound_note"] == f"no bound holds under {ZERO}"
    assert {r["bound"] for r in listing["catalogue"]} >= {"jackson-preemptive",
                                                          "rate-capped-job"}
    assert not any(r["holds"] for r in listing["catalogue"])


@pytest.fixture
def two_io_jobs(tmp_path):
    """``(instance, path)``: jobs a and b (Q = 2, w = 1, v = 3) mapped on one
    partition of P = 4, b = 1, written to ``tmp_path/tiny.json``. Both
    compute at once; under exclusive I/O one waits: makespan 7."""
    inst = Instance("tiny", Platform.homogeneous(1, nodes=4, bandwidth=1.0), (
        Job("a", 2, (1.0,), (3.0,), partition=0),
        Job("b", 2, (1.0,), (3.0,), partition=0)))
    path = tmp_path / "tiny.json"
    write_instance(inst, path)
    return inst, path


def test_zero_contention_gap_has_no_bound(zero_model, two_io_jobs):
    _, path = two_io_jobs
    table = gap_table([path], methods="one-pack/fifo", time_limit=2.0,
                      progress=False, execution=zero_model)
    solver_row, method_row = table.iloc[0], table.iloc[1]
    assert method_row["lower_bound"] is None and method_row["gap"] is None
    assert method_row["bound_note"] == f"no bound holds under {ZERO}"
    # the method's zero-contention schedule (both jobs at once: 4) is below
    # the exclusive optimum (one I/O after the other: 7)
    assert method_row["value"] < solver_row["value"]
    assert solver_row["gap"] is None and not solver_row["bound_is_optimum"]


def test_gap_under_shared_keeps_only_shared_bounds(two_io_jobs):
    inst, path = two_io_jobs
    table = gap_table([path], methods="one-pack/fifo", time_limit=2.0,
                      progress=False, execution="shared")
    row = table.iloc[1]
    expected = bound_models.best_bound_under(inst, "makespan", "shared").value
    assert row["lower_bound"] == expected and pd.isna(row["bound_note"])
    assert not row["bound_is_optimum"]
    assert row["gap"] >= 0


def test_gap_command_line_under_a_model_with_no_bound(zero_model, two_io_jobs,
                                                       capsys):
    _, path = two_io_jobs
    code = main(["gap", str(path), "--methods", "one-pack/fifo", "--execution", ZERO,
                 "--time-limit", "2", "--json"])
    assert code == 0
    captured = capsys.readouterr()
    rows = json.loads(captured.out)
    method = [r for r in rows if r["method"] == "one-pack/fifo"]
    assert len(method) == 1 and method[0]["lower_bound"] is None
    assert method[0]["gap"] is None
    assert method[0]["bound_note"] == f"no bound holds under {ZERO}"
    assert "bound no bound" in captured.err  # the progress line


def test_campaign_lower_bound_metric_follows_the_task_model(zero_model):
    from opt_sched.campaign import execute
    from opt_sched.campaign.task import InstanceSource, Task

    def spec_of(execution: tuple) -> object:  # as a worker gets it
        return Task(InstanceSource(path="tucan5.json"), "one-pack/fifo",
                    execution=execution).execution_spec

    inst = read_instance(TUCAN5)
    exclusive = execute._makespan_bound("tucan5-test", inst, spec_of(()))
    assert exclusive == bounds.lower_bound(inst, "makespan")
    capped = (("model", "shared"), ("node_rate", 0.001))
    expected = bound_models.best_bound_under(
        inst, "makespan", {"model": "shared", "node_rate": 0.001}).value
    assert execute._makespan_bound("tucan5-test", inst, spec_of(capped)) == expected
    assert expected > exclusive  # the caps bite: a different cache entry
    assert math.isnan(execute._makespan_bound("tucan5-test", inst,
                                              spec_of((("model", ZERO),))))
