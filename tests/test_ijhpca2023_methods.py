"""Seed 000's strategies as registry methods (``packs``, ``ls``), the
``online_entry`` helper, and the down-scaled copies of the certified gaps."""

from __future__ import annotations

import dataclasses
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from opt_sched import Instance, Job, Platform, methods
from opt_sched.errors import OptionError, SpecError
from opt_sched.methods.online import batch_reason, online_entry
from opt_sched.scheduling import SCHEDULERS, PackScheduling, replay
from opt_sched.studies.ijhpca2023.experiment import (
    STRATEGY_SPECS,
    certify_copy,
    prefix_copy,
    strategy_of,
)
from opt_sched.validation import assert_feasible, validate
from opt_sched.workloads.ijhpca2023 import generate_ijhpca2023

HAS_IO_EASY = "io-easy" in SCHEDULERS


def _batch(*jobs: Job, nodes: int = 4, partitions: int = 1) -> Instance:
    return Instance("b", Platform.homogeneous(partitions, nodes=nodes), tuple(jobs))


# -- the registry entries -----------------------------------------------------------
def test_specs_resolve_to_canonical_text_and_back():
    assert str(methods.method("packs")) == "packs(order=max)/fifo"
    m = methods.method("packs(order=char-dec, backfill=0)/stretch")
    assert m.spec == "packs(order=char-dec,backfill=0)/stretch"
    assert methods.method(m.spec) == m
    assert m.arg("order") == "char-dec" and m.arg("backfill") == 0
    assert str(methods.method("ls")) == "ls/fifo"
    assert {"packs", "ls"} <= set(methods.names())
    for strategy, spec in STRATEGY_SPECS.items():
        assert strategy_of(spec) == strategy
    assert strategy_of("packs(order=max,backfill=0)/fifo") is None
    assert strategy_of("make-pack(S=1)+lpt/fifo") is None


@pytest.mark.parametrize("text, fragment", [
    ("packs(order=min)", "order='min' is not one of random, max, char-dec, char-inc"),
    ("packs(backfill=2)", "backfill='2' is not 1 or 0"),
    ("packs(S=1)", "unknown parameter 'S'"),
    ("ls(order=fcfs)", "unknown parameter 'order'"),
    ("packs/nope", "unknown I/O policy 'nope'"),
])
def test_bad_specs_name_the_part(text, fragment):
    with pytest.raises(SpecError, match=re.escape(fragment)):
        methods.method(text)


def test_supports_says_why_not_a_batch():
    ok = Job.periodic("a", 2, 1.0, 1.0, 2)
    packs = methods.method("packs")
    assert packs.supports(_batch(ok)) is None
    cases = {
        "schedules one partition": _batch(ok, partitions=2),
        "released at 3": _batch(dataclasses.replace(ok, release=3.0)),
        "depends on 'a'": _batch(ok, Job.periodic("b", 1, 1.0, 1.0, after=("a",))),
        "named resources": Instance(
            "r", Platform((Platform.homogeneous(1, nodes=4).partitions[0],),
                          resources=(("bb", 2.0),)),
            (dataclasses.replace(ok, demands=(("bb", 1.0),)),)),
    }
    for fragment, inst in cases.items():
        reason = packs.supports(inst)
        assert reason is not None and fragment in reason, (fragment, reason)
        assert batch_reason(inst, "packs") == reason
        with pytest.raises(OptionError, match="not for instance"):
            packs.run(inst)


def test_ls_reports_a_missing_scheduler_instead_of_failing():
    reason = methods.method("ls").supports(_batch(Job.periodic("a", 1, 1.0, 1.0)))
    if HAS_IO_EASY:
        assert reason is None
    else:
        assert "scheduler 'io-easy' is not registered" in reason


def test_packs_method_is_the_pack_scheduler_replayed_with_exact_estimates():
    inst = generate_ijhpca2023("uniform", "bn", 0.6, 2, jobs=25).instance
    for order in ("random", "max", "char-dec", "char-inc"):
        for backfill in (0, 1):
            spec = f"packs(order={order},backfill={backfill})/fifo"
            got = methods.method(spec).run(inst, seed=5)
            want = replay(inst, PackScheduling(order, backfill=bool(backfill), seed=5),
                          "exclusive", policy="fifo", estimate="exact")
            assert got.method == methods.method(spec).spec
            assert [j.compute_starts for j in got.jobs] == [
                j.compute_starts for j in want.jobs]
            assert [j.io_starts for j in got.jobs] == [j.io_starts for j in want.jobs]


def test_random_order_follows_the_method_seed():
    inst = generate_ijhpca2023("uniform", "no", 0.5, 0, jobs=30).instance
    m = methods.method("packs(order=random)")
    starts = {seed: [j.start for j in m.run(inst, seed=seed).jobs] for seed in (0, 1)}
    assert starts[0] == [j.start for j in m.run(inst, seed=0).jobs]
    assert starts[0] != starts[1]


@pytest.mark.parametrize("family", ["mira", "uniform"])
@pytest.mark.parametrize("profile", ["bn", "no"])
@pytest.mark.parametrize("variant", ["calibrated", "literal"])
def test_every_strategy_schedule_passes_the_validator(family, profile, variant):
    """Every registry strategy on a workload of each family and variant, at a
    low and a high load; the policy spec is honoured (``/stretch``). (Few
    jobs: a Mira replay numbers up to 49,152 machines per start.)"""
    for alpha in (0.2, 0.8):
        inst = generate_ijhpca2023(family, profile, alpha, 1, jobs=8,
                                   variant=variant).instance
        for strategy, spec in STRATEGY_SPECS.items():
            m = methods.method(spec)
            if m.supports(inst) is not None:
                assert strategy == "ls" and not HAS_IO_EASY
                continue
            report = validate(inst, m.run(inst, seed=alpha == 0.8))
            assert report.feasible, (spec, report.violations[:2])
        other = methods.method("packs(order=char-inc)/stretch")
        assert validate(inst, other.run(inst)).feasible


def test_online_entry_registers_another_scheduler_the_same_way():
    """The helper is what others use for easy, conservative, fcfs: here
    ``fcfs`` from outside the package, then removed again."""
    from opt_sched.methods.params import Param

    def no_big_jobs(instance, method):
        return "too big" if any(j.nodes > 3 for j in instance.jobs) else None

    entry = online_entry("fcfs-batch", "FCFS on a batch", "fcfs",
                         supports=no_big_jobs)
    methods.register(entry)
    try:
        inst = _batch(Job.periodic("a", 3, 2.0, 1.0, 2), Job.periodic("b", 2, 1.0, 1.0))
        m = methods.method("fcfs-batch/fifo")
        schedule = m.run(inst)
        assert_feasible(inst, schedule)
        # FCFS: b waits for a (3 + 2 > 4 nodes); a takes T = 2 * (2 + 1) = 6
        assert schedule["b"].start == 6.0 and schedule.makespan(inst) == 8.0
        assert m.supports(_batch(Job.periodic("c", 4, 1.0, 1.0))) == "too big"
        missing = online_entry("nope-batch", "x", "no-such-scheduler",
                               params=(Param("x", str, "1"),))
        assert "not registered" in missing.supports(inst, m)
    finally:
        methods.unregister("fcfs-batch")
    assert "fcfs-batch" not in methods.names()


# -- down-scaled copies ----------------------------------------------------------------
def test_prefix_copy_keeps_the_first_jobs_and_iterations():
    inst = generate_ijhpca2023("mira", "bn", 0.5, 0, jobs=20).instance
    copy = prefix_copy(inst, 6, 3)
    assert [j.id for j in copy.jobs] == [j.id for j in inst.jobs[:6]]
    for orig, cut in zip(inst.jobs, copy.jobs):
        assert cut.compute == orig.compute[:3] and cut.io_volume == orig.io_volume[:3]
        assert cut.nodes == orig.nodes
    assert copy.platform == inst.platform
    assert prefix_copy(inst).jobs == inst.jobs
    with pytest.raises(OptionError, match="copy_jobs=0"):
        prefix_copy(inst, 0, 3)


def _restrict(inst: Instance, copy: Instance, schedule):
    """The schedule of ``inst`` cut to ``copy``'s jobs and iterations."""
    from opt_sched import Schedule

    by_id = {js.id: js for js in schedule.jobs}
    out = []
    for job in copy.jobs:
        js = by_id[job.id]
        k = job.iterations
        out.append(dataclasses.replace(
            js, compute_starts=js.compute_starts[:k], io_starts=js.io_starts[:k],
            compute_ends=None if js.compute_ends is None else js.compute_ends[:k],
            io_ends=None if js.io_ends is None else js.io_ends[:k]))
    return Schedule(tuple(out), method="restricted", execution=schedule.execution)


@st.composite
def _workloads(draw):
    family = draw(st.sampled_from(["mira", "uniform"]))
    return (generate_ijhpca2023(family, draw(st.sampled_from(["bn", "no"])),
                                draw(st.sampled_from([0.2, 0.5, 0.8])),
                                draw(st.integers(0, 50)), jobs=8),
            draw(st.integers(1, 8)), draw(st.integers(1, 10)),
            draw(st.sampled_from([s for s in STRATEGY_SPECS if s != "ls"])))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=_workloads())
def test_a_copy_is_a_relaxation(case):
    """The step of the relaxation argument: a feasible schedule of the
    workload, cut to the copy, is a feasible schedule of the copy with a
    makespan no larger -- so OPT(copy) <= OPT(workload)."""
    gen, jobs, iters, strategy = case
    inst = gen.instance
    schedule = methods.method(STRATEGY_SPECS[strategy]).run(inst)
    copy = prefix_copy(inst, jobs, iters)
    cut = _restrict(inst, copy, dataclasses.replace(schedule, jobs=tuple(
        dataclasses.replace(js, machines=None) for js in schedule.jobs)))
    assert validate(copy, cut).feasible
    assert cut.makespan(copy) <= schedule.makespan(inst) + 1e-9


def test_certified_copy_bound_is_below_every_strategy_on_the_copy():
    inst = generate_ijhpca2023("uniform", "no", 0.8, 3, jobs=20).instance
    copy = prefix_copy(inst, 5, 2)
    result = certify_copy(copy, 5.0)
    assert result["cpsat_status"] in ("optimal", "feasible")
    assert result["cpsat_bound"] >= result["combinatorial_bound"] - 1e-9
    assert result["cpsat_makespan"] >= result["cpsat_bound"] - 1e-9
    for spec in [v for k, v in STRATEGY_SPECS.items() if k != "ls"]:
        made = methods.method(spec).run(copy)
        assert_feasible(copy, made)
        assert made.makespan(copy) >= result["cpsat_bound"] * (1 - 1e-9)
