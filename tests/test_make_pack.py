"""Make-Pack and First-Fit (seed 003 Algorithm 1): eqs. 4-5, the pack order,
First-Fit vs Make-Pack pack counts, plans that pass the validator."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from opt_sched import Instance, Job, OptionError, Partition, PlanError, Platform
from opt_sched.heuristics import (
    first_fit,
    make_pack,
    make_packs,
    pack_classes,
    pack_plan,
)

from .strategies import instances

TOL = 1e-9


def _job(id_: str, nodes: int, compute: float, volume: float, n: int = 1,
         **kw) -> Job:
    return Job.periodic(id_, nodes, compute, volume, n, **kw)


@st.composite
def pack_instances(draw, *, powers_of_two: bool = False) -> Instance:
    """Unmapped jobs on one partition of P nodes, b in {0.5, 1, 2}."""
    nodes = 16 if powers_of_two else draw(st.integers(4, 20))
    band = draw(st.sampled_from([0.5, 1.0, 2.0]))
    n = draw(st.integers(1, 12))
    jobs = []
    for i in range(n):
        q = (2 ** draw(st.integers(0, 4)) if powers_of_two
             else draw(st.integers(1, nodes)))
        jobs.append(_job(f"j{i}", q, draw(st.integers(0, 20)) / 2,
                         draw(st.integers(0, 20)) / 2, draw(st.integers(1, 3))))
    return Instance("packs", Platform.homogeneous(1, nodes, band), tuple(jobs))


def check_eqs_4_5(instance: Instance, packs: list[tuple[str, ...]], s: float) -> None:
    """Independent check of the final packs: every job exactly once; eq. 5
    ``P^p <= P``; eq. 4 read on the finished pack, ``L^p <= S`` for every
    pack of >= 2 jobs (a lone job is always accepted)."""
    part = instance.platform.partitions[0]
    ids = [i for pack in packs for i in pack]
    assert sorted(ids) == sorted(j.id for j in instance.jobs)
    for pack in packs:
        jobs = [instance.job(i) for i in pack]
        assert sum(j.nodes for j in jobs) <= part.nodes
        if len(jobs) > 1 and not math.isinf(s):
            t_pack = max(j.length(part.bandwidth) for j in jobs)
            volume = sum(j.total_volume for j in jobs)
            assert volume <= s * part.bandwidth * t_pack * (1 + TOL) + TOL


@settings(max_examples=150, deadline=None)
@given(pack_instances(), st.sampled_from([0.25, 0.5, 1.0, 2.0, 5.0, math.inf]))
def test_make_pack_respects_eqs_4_and_5(instance, s):
    check_eqs_4_5(instance, make_pack(instance, s), s)


@settings(max_examples=150, deadline=None)
@given(pack_instances(), st.sampled_from([0.5, 1.0, 3.0]))
def test_first_job_of_each_pack_is_its_longest(instance, s):
    """Jobs are taken by decreasing T_i(b), so T^p is fixed at creation and
    the incremental eq. 4 is the same as L^p <= S on the final pack."""
    band = instance.platform.partitions[0].bandwidth
    for pack in make_pack(instance, s):
        lengths = [instance.job(i).length(band) for i in pack]
        assert lengths[0] == max(lengths)


def test_best_fit_goes_to_the_fullest_pack():
    """S_P is sorted by decreasing P^p: the job joins the fullest pack it fits
    (Best-Fit), not the oldest one (First-Fit order)."""
    jobs = (_job("a", 5, 10, 0), _job("b", 9, 9, 0), _job("c", 2, 8, 0))
    inst = Instance("bf", Platform.homogeneous(1, 10), jobs)
    # a -> p0 (5), b -> p1 (9), c fits p0 (7) and... p1 is full at 9 + 2 > 10
    assert make_pack(inst, 1.0) == [("a", "c"), ("b",)]
    jobs = (_job("a", 5, 10, 0), _job("b", 7, 9, 0), _job("c", 2, 8, 0))
    inst = Instance("bf", Platform.homogeneous(1, 10), jobs)
    # p0 has 5, p1 has 7: both fit c, the fullest (p1) is first in S_P
    assert make_pack(inst, 1.0) == [("a",), ("b", "c")]


def test_io_check_opens_packs_and_first_fit_ignores_it():
    # four jobs of T = 10 and V = 4 (L = 0.4 each): S = 1 fits two per pack
    jobs = tuple(_job(f"j{i}", 1, 6, 4) for i in range(4))
    inst = Instance("io", Platform.homogeneous(1, 8), jobs)
    assert make_pack(inst, 1.0) == [("j0", "j1"), ("j2", "j3")]
    assert make_pack(inst, 1.2) == [("j0", "j1", "j2"), ("j3",)]
    assert first_fit(inst) == [("j0", "j1", "j2", "j3")]


def test_ties_keep_instance_order_and_sort_is_by_length():
    jobs = (_job("short", 1, 1, 0), _job("long", 1, 5, 0), _job("tie", 1, 5, 0))
    inst = Instance("order", Platform.homogeneous(1, 1), jobs)
    assert make_pack(inst, 1.0) == [("long",), ("tie",), ("short",)]


@pytest.mark.parametrize("bad", [0, -1.0, math.nan, "1", True])
def test_sensibility_must_be_positive(bad):
    inst = Instance("s", Platform.homogeneous(1, 4), (_job("a", 1, 1, 1),))
    with pytest.raises(OptionError, match="sensibility"):
        make_pack(inst, bad)


def test_too_wide_job_is_a_plan_error():
    inst = Instance("w", Platform.homogeneous(1, 8), (_job("a", 8, 1, 1),))
    with pytest.raises(PlanError, match="'a'"):
        make_pack(inst, 1.0, nodes=4)


@settings(max_examples=200, deadline=None)
@given(pack_instances(powers_of_two=True), st.sampled_from([0.5, 1.0, 2.0]))
def test_first_fit_never_needs_more_packs_with_power_of_two_nodes(instance, s):
    """With ``Q_i`` powers of two and ``P`` a power of two (the seed's
    protocol), processor-only Best-Fit reaches ``ceil(sum Q / P)`` packs, which
    no packing beats, so First-Fit <= Make-Pack for every ``S``."""
    ff = first_fit(instance)
    width = sum(j.nodes for j in instance.jobs)
    assert len(ff) == math.ceil(width / instance.platform.partitions[0].nodes)
    assert len(ff) <= len(make_pack(instance, s))


def test_first_fit_can_need_more_packs_for_general_sizes():
    """For arbitrary ``Q_i`` the claim "First-Fit never needs more packs" is
    false: the I/O check may steer a job away and give a better bin packing.

    P = 10, jobs by decreasing T: A (4 nodes), B (3, I/O heavy), C (6), D (7).
    First-Fit: {A, B}, {C}, {D} = 3 packs. Make-Pack S = 1 keeps B out of A's
    pack (L would be (4 + 9.9) / 10 > 1); C then joins A and D joins B: 2
    packs.
    """
    jobs = (_job("A", 4, 6, 4), _job("B", 3, 0, 9.9), _job("C", 6, 9.8, 0),
            _job("D", 7, 9.7, 0))
    inst = Instance("anomaly", Platform.homogeneous(1, 10), jobs)
    assert first_fit(inst) == [("A", "B"), ("C",), ("D",)]
    assert make_pack(inst, 1.0) == [("A", "C"), ("B", "D")]


def test_pack_record_quantities():
    jobs = (_job("a", 2, 3, 1, 2), _job("b", 3, 1, 1, 1))
    (pack,) = make_packs(jobs, 5.0, 0.5, 8)
    assert pack.jobs == ("a", "b")
    assert pack.T_pack == pytest.approx(2 * (3 + 2))
    assert pack.P_pack == 5
    assert pack.L_pack == pytest.approx(3 / (0.5 * 10))


def test_dependencies_never_share_a_pack_and_run_in_order():
    jobs = (_job("pre", 1, 2, 0), _job("sim", 1, 9, 0, after=("pre",)),
            _job("post", 1, 1, 0, after=("sim",)), _job("x", 1, 5, 0))
    inst = Instance("dag", Platform.homogeneous(1, 8), jobs)
    packs = first_fit(inst)
    where = {i: p for p, pack in enumerate(packs) for i in pack}
    for job in inst.jobs:
        for dep in job.after:
            assert where[dep] < where[job.id]


def test_heterogeneous_size_classes():
    parts = (Partition(8, 1.0), Partition(4, 2.0))
    jobs = (_job("wide", 8, 1, 1), _job("a", 4, 1, 1), _job("b", 2, 1, 1))
    classes = pack_classes(parts, jobs)
    assert [(b, p, [j.id for j in js]) for b, p, js in classes] == [
        (1.0, 4, ["a", "b"]), (1.0, 8, ["wide"])]


def test_pack_plan_options():
    inst = Instance("o", Platform.homogeneous(2, 4), (_job("a", 1, 1, 1),))
    with pytest.raises(OptionError, match="method"):
        pack_plan(inst, "best-fit")
    with pytest.raises(OptionError, match="io_nodes=3"):
        pack_plan(inst, "make-pack", io_nodes=3)
    with pytest.raises(OptionError, match="sensibility"):
        pack_plan(inst, "make-pack", sensibility=0)
    plan = pack_plan(inst, "first-fit", sensibility=0)  # S ignored for first-fit
    assert plan.packs == ((("a",),), ())


def test_mapped_jobs_stay_on_their_partition(tucan5):
    plan = pack_plan(tucan5, "make-pack", 1.0)
    assert len(plan.packs) == 1
    assert sorted(i for pack in plan.packs[0] for i in pack) == sorted(
        j.id for j in tucan5.jobs)


@settings(max_examples=60, deadline=None)
@given(instances(max_jobs=6, mapped=False, max_partitions=3),
       st.sampled_from(["make-pack", "first-fit"]),
       st.sampled_from([0.5, 1.0, 4.0]),
       st.sampled_from(["fifo", "stretch", "longest-io"]))
def test_every_pack_schedule_passes_the_validator(instance, method, s, policy):
    import opt_sched.validation as validation
    from opt_sched.simulation import simulate

    plan = pack_plan(instance, method, s)
    schedule = simulate(instance, plan, policy)
    validation.assert_feasible(instance, schedule)


def test_lpt_pack_plan_takes_any_packer():
    """pack_plan is lpt_pack_plan with the Make-Pack packer; a packer sees
    each partition's mapped jobs with that partition's (b, P), and the free
    jobs per size class."""
    from opt_sched.heuristics import lpt_pack_plan, make_pack_packer
    from opt_sched.simulation import simulate
    from opt_sched.validation import assert_feasible

    parts = (Partition(8, 1.0), Partition(4, 2.0))
    inst = Instance("mixed", Platform(parts), (
        _job("m", 2, 3, 1, 2, partition=1), _job("a", 6, 1, 1), _job("b", 2, 4, 2),
        _job("c", 3, 2, 1, 3)))
    assert (lpt_pack_plan(inst, make_pack_packer(1.0)).packs
            == pack_plan(inst, "make-pack", 1.0).packs)
    seen = []

    def alone(jobs, bandwidth, nodes):
        seen.append((sorted(j.id for j in jobs), bandwidth, nodes))
        return [(j.id,) for j in jobs]

    plan = lpt_pack_plan(inst, alone)
    # m on its partition 1 (b=2, P=4); b (2 nodes) and c (3) fit both
    # partitions: packed with P=4 and the slower b=1 of the partitions with
    # >= 4 nodes; a (6 nodes) only fits partition 0: P=8, b=1
    assert seen == [(["m"], 2.0, 4), (["b", "c"], 1.0, 4), (["a"], 1.0, 8)]
    assert sorted(len(p) for row in plan.packs for p in row) == [1, 1, 1, 1]
    assert plan.packs[1][0] == ("m",)  # mapped packs run first
    assert_feasible(inst, simulate(inst, plan, "fifo"))
    with pytest.raises(OptionError, match="io_nodes=3"):
        lpt_pack_plan(inst, alone, io_nodes=3)
