"""The independent validator (SPEC §3): one broken rule at a time, hand-built.

The reference schedule of ``tiny2`` (one partition, P = 4, b = 1;
a: Q=2, w=2, v=3, 2 iterations; b: Q=2, w=1, v=2, 2 iterations)::

    a: compute [0, 2)  io [3, 6)  compute [6, 8)  io [8, 11)
    b: compute [0, 1)  io [1, 3)  compute [3, 4)  io [6, 8)

I/O node: b0 [1,3) a0 [3,6) b1 [6,8) a1 [8,11), touching, never overlapping;
nodes: 2 + 2 = 4 <= 4. Every test below breaks it (or a tiny variant) in
exactly one way.
"""

from __future__ import annotations

import ast
import dataclasses
import itertools
import json
import math
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from opt_sched import (
    InfeasibleScheduleError,
    Instance,
    Job,
    JobSchedule,
    OptionError,
    Partition,
    Platform,
    Schedule,
    ScheduleFormatError,
    read_instance,
)
from opt_sched.validation import (
    RULES,
    ValidationReport,
    Violation,
    assert_feasible,
    validate,
)

from .conftest import INSTANCES, TINY2_FIFO, bundled_instance_paths
from .strategies import instances
from .validation_helpers import broken_rules, only_rule

A, B = TINY2_FIFO.jobs


def with_job(instance: Instance, job_id: str, **changes) -> Instance:
    return instance.with_jobs(dataclasses.replace(j, **changes) if j.id == job_id
                              else j for j in instance.jobs)


def only(report: ValidationReport, rule: int) -> Violation:
    """The report has exactly one violation and it is of ``rule``."""
    (violation,) = only_rule(report, rule)
    return violation


# -- the reference schedule ----------------------------------------------------
def test_hand_schedule_is_feasible(tiny, tiny2_fifo):
    report = validate(tiny, tiny2_fifo)
    assert report.feasible
    assert report.violations == ()
    assert report.by_rule() == dict.fromkeys(RULES, 0)
    assert report.horizon == 11.0
    # the instance scale bounds the checkable times: D = max r + sum T_i(b) =
    # 0 + (2*(2+3) + 2*(1+2)) = 16; the largest tolerance is that of the
    # longest phase end, a's last I/O [8, 11): 8 ulps of 11 + 1e-10 * 3
    assert report.scale == 16.0
    assert report.tolerance == 8 * math.ulp(11.0) + 1e-10 * 3
    assert "feasible" in str(report)
    assert assert_feasible(tiny, tiny2_fifo) is not None


def test_rules_table_matches_the_contract():
    assert RULES == {0: "job-coverage", 1: "release-and-dependencies",
                     2: "phase-lengths", 3: "phase-order", 4: "node-capacity",
                     5: "exclusive-io", 6: "pack-discipline", 7: "walltime-kill"}


# -- rule 1 --------------------------------------------------------------------
def test_rule1_start_before_release(tiny, tiny2_fifo):
    late_b = with_job(tiny, "b", release=0.5)
    v = only(validate(late_b, tiny2_fifo), 1)
    assert v.jobs == ("b",) and v.phases == ("b:compute[0]",) and v.time == 0.0
    assert "release 0.5" in v.message


def test_rule1_start_before_predecessor_completes(tiny, tiny2_fifo):
    b_after_a = with_job(tiny, "b", after=("a",))
    v = only(validate(b_after_a, tiny2_fifo), 1)
    assert v.jobs == ("b", "a") and v.time == 0.0
    assert "predecessor a completes at t=11" in v.message


def test_rule1_negative_start_time(tiny):
    solo = tiny.subset(["a"])
    shifted = Schedule((JobSchedule("a", 0, (-1.0, 4.0), (1.0, 6.0)),))
    v = only(validate(solo, shifted), 1)
    assert v.jobs == ("a",) and v.time == -1.0


def test_rule1_dependency_met_exactly_is_fine(tiny):
    chain = with_job(tiny, "b", after=("a",))
    # a alone [0, 10); b starts at its completion
    sched = Schedule((JobSchedule("a", 0, (0.0, 5.0), (2.0, 7.0)),
                      JobSchedule("b", 0, (10.0, 13.0), (11.0, 14.0))))
    assert validate(chain, sched).feasible


# -- rule 2 --------------------------------------------------------------------
def test_rule2_correct_stated_ends_are_fine(tiny):
    stated = dataclasses.replace(A, compute_ends=(2.0, 8.0), io_ends=(6.0, 11.0))
    assert validate(tiny, Schedule((stated, B))).feasible


def test_rule2_wrong_stated_compute_end(tiny):
    stated = dataclasses.replace(A, compute_ends=(2.0, 7.0))
    v = only(validate(tiny, Schedule((stated, B))), 2)
    assert v.jobs == ("a",) and v.phases == ("a:compute[1]",) and v.time == 6.0


def test_rule2_interrupted_io_phase(tiny):
    # a:io[0] stated [3, 7) but its volume 3 at bandwidth 1 lasts 3
    stated = dataclasses.replace(A, io_ends=(7.0, 11.0))
    v = only(validate(tiny, Schedule((stated, B))), 2)
    assert v.phases == ("a:io[0]",)
    assert "volume 3 at bandwidth 1" in v.message


def test_rule2_uses_the_partition_bandwidth():
    inst = Instance("fast", Platform((Partition(4, 2.0),)),
                    (Job.periodic("a", 1, 1.0, 4.0),))
    ok = JobSchedule("a", 0, (0.0,), (1.0,), io_ends=(3.0,))        # 4 / 2 = 2
    wrong = JobSchedule("a", 0, (0.0,), (1.0,), io_ends=(5.0,))     # 4 / 1
    assert validate(inst, Schedule((ok,))).feasible
    assert only(validate(inst, Schedule((wrong,))), 2).phases == ("a:io[0]",)


# -- rule 3 --------------------------------------------------------------------
def test_rule3_compute_before_previous_io_ends(tiny):
    early = JobSchedule("b", 0, (0.0, 2.5), (1.0, 6.0))      # b:io[0] ends at 3
    v = only(validate(tiny, Schedule((A, early))), 3)
    assert v.jobs == ("b",) and v.phases == ("b:io[0]", "b:compute[1]")
    assert v.time == 2.5
    assert v.message == ("rule 3 phase-order: b:compute[1] starts at t=2.5 before "
                         "b:io[0] ends at t=3")


def test_rule3_io_before_its_compute_ends(tiny):
    late = JobSchedule("a", 0, (0.0, 6.5), (3.0, 8.0))       # compute[1] ends 8.5
    v = only(validate(tiny, Schedule((late, B))), 3)
    assert v.phases == ("a:compute[1]", "a:io[1]") and v.time == 8.0


# -- rule 4 --------------------------------------------------------------------
def test_rule4_partition_overloaded(tiny, tiny2_fifo):
    small = tiny.replace(platform=Platform((Partition(3, 1.0),)),
                         jobs=[dataclasses.replace(j, nodes=2) for j in tiny.jobs])
    v = only(validate(small, tiny2_fifo), 4)
    # a holds [0, 11), b holds [0, 8): 4 > 3 nodes from t=0
    assert v.time == 0.0 and set(v.jobs) == {"a", "b"}
    assert "partition 0 has 4 of 3 nodes in use at t=0" in v.message


def test_rule4_job_wider_than_its_partition():
    plat = Platform((Partition(8, 1.0), Partition(4, 1.0)))
    inst = Instance("wide", plat, (Job.periodic("w", 6, 1.0, 1.0),))
    sched = Schedule((JobSchedule("w", 1, (0.0,), (1.0,)),))
    report = validate(inst, sched)
    assert broken_rules(report) == {4}
    # the static check and the sweep both see it
    assert report.num_violations == 2
    assert any("needs 6 nodes, more than the 4 of partition 1" in v.message
               for v in report.violations)
    assert validate(inst, Schedule((JobSchedule("w", 0, (0.0,), (1.0,)),))).feasible


def test_rule4_job_moved_off_its_mapped_partition():
    plat = Platform.homogeneous(2, nodes=4)
    inst = Instance("mapped", plat, (Job.periodic("a", 1, 1.0, 1.0, partition=0),))
    v = only(validate(inst, Schedule((JobSchedule("a", 1, (0.0,), (1.0,)),))), 4)
    assert "maps it to partition 0" in v.message


def test_rule4_named_resource():
    plat = Platform.homogeneous(1, nodes=8)
    plat = dataclasses.replace(plat, resources=(("bb", 10.0),))
    jobs = (Job.periodic("a", 1, 4.0, 0.0, demands=(("bb", 6.0),)),
            Job.periodic("b", 1, 4.0, 0.0, demands=(("bb", 5.0),)),
            Job.periodic("c", 1, 4.0, 0.0))
    inst = Instance("bb", plat, jobs)
    together = Schedule(tuple(JobSchedule(j, 0, (0.0,), (4.0,)) for j in "abc"))
    v = only(validate(inst, together), 4)
    assert v.jobs == ("a", "b") and v.time == 0.0
    assert "resource bb has 11 of 10 in use at t=0" in v.message
    # b starts when a ends: half-open, fine
    touching = Schedule((JobSchedule("a", 0, (0.0,), (4.0,)),
                         JobSchedule("b", 0, (4.0,), (8.0,)),
                         JobSchedule("c", 0, (0.0,), (4.0,))))
    assert validate(inst, touching, rel_tol=0.0).feasible


def test_rule4_resource_sums_across_partitions():
    plat = dataclasses.replace(Platform.homogeneous(2, nodes=2),
                               resources=(("bandwidth", 1.0),))
    jobs = (Job.periodic("a", 2, 3.0, 0.0, demands=(("bandwidth", 0.6),)),
            Job.periodic("b", 2, 3.0, 0.0, demands=(("bandwidth", 0.6),)))
    inst = Instance("bw", plat, jobs)
    sched = Schedule((JobSchedule("a", 0, (0.0,), (3.0,)),
                      JobSchedule("b", 1, (1.0,), (4.0,))))
    v = only(validate(inst, sched), 4)
    assert v.time == 1.0 and v.jobs == ("a", "b")


# -- rule 5 --------------------------------------------------------------------
def test_rule5_overlapping_io(tiny):
    early = JobSchedule("a", 0, (0.0, 6.0), (2.5, 8.0))      # a:io[0] [2.5, 5.5)
    v = only(validate(tiny, Schedule((early, B))), 5)
    assert v.message == ("rule 5 exclusive-io: b:io[0] [1, 3) overlaps a:io[0] "
                         "[2.5, 5.5) on partition 0 at t=2.5")
    assert v.jobs == ("b", "a") and v.phases == ("b:io[0]", "a:io[0]")
    assert v.time == 2.5


def test_rule5_phase_inside_a_long_one_is_paired_with_it():
    inst = Instance("nest", Platform.homogeneous(1, nodes=3),
                    (Job.periodic("x", 1, 0.0, 10.0), Job.periodic("y", 1, 1.0, 1.0),
                     Job.periodic("z", 1, 3.0, 1.0)))
    sched = Schedule((JobSchedule("x", 0, (0.0,), (0.0,)),     # io [0, 10)
                      JobSchedule("y", 0, (0.0,), (1.0,)),     # io [1, 2)
                      JobSchedule("z", 0, (0.0,), (3.0,))))    # io [3, 4)
    report = validate(inst, sched)
    assert broken_rules(report) == {5} and report.num_violations == 2
    assert [v.phases for v in report.violations] == [("x:io[0]", "y:io[0]"),
                                                     ("x:io[0]", "z:io[0]")]


def test_rule5_partitions_are_independent():
    inst = Instance("two", Platform.homogeneous(2, nodes=2),
                    (Job.periodic("a", 1, 1.0, 2.0), Job.periodic("b", 1, 1.0, 2.0)))
    apart = Schedule((JobSchedule("a", 0, (0.0,), (1.0,)),
                      JobSchedule("b", 1, (0.0,), (1.0,))))
    assert validate(inst, apart).feasible
    same = Schedule((JobSchedule("a", 0, (0.0,), (1.0,)),
                     JobSchedule("b", 0, (0.0,), (1.0,))))
    assert only(validate(inst, same), 5).time == 1.0


def test_rule5_zero_length_io_never_conflicts():
    inst = Instance("zero", Platform.homogeneous(1, nodes=2),
                    (Job.periodic("a", 1, 1.0, 4.0), Job.periodic("b", 1, 1.0, 0.0)))
    # b's empty I/O at the very start of a's I/O [1, 5), then inside it
    for t in (1.0, 3.0):
        sched = Schedule((JobSchedule("a", 0, (0.0,), (1.0,)),
                          JobSchedule("b", 0, (0.0,), (t,))))
        assert validate(inst, sched).feasible


# -- half-open intervals and tolerance -----------------------------------------
def half_open_case(shift: float) -> tuple[Instance, Schedule]:
    """x: [0, 3) of which I/O [1, 3); y: [3, 5) of which I/O [3, 5); both need
    the whole partition, so any real overlap breaks rules 4 and 5."""
    inst = Instance("touch", Platform.homogeneous(1, nodes=2),
                    (Job.periodic("x", 2, 1.0, 2.0), Job.periodic("y", 2, 0.0, 2.0)))
    return inst, Schedule((JobSchedule("x", 0, (0.0,), (1.0,)),
                           JobSchedule("y", 0, (3.0 + shift,), (3.0 + shift,))))


def test_touching_intervals_are_fine():
    inst, sched = half_open_case(0.0)
    assert validate(inst, sched).feasible
    assert validate(inst, sched, rel_tol=0.0).feasible      # no slack needed


@pytest.mark.parametrize("shift", [-1e-12, -1.9e-10])
def test_overlap_within_tolerance_is_fine(shift):
    # x's I/O [1, 3) ends with the tolerance 8 ulps of 3 + 1e-10 * 2 ~ 2.0e-10
    inst, sched = half_open_case(shift)
    assert validate(inst, sched).feasible


def test_overlap_beyond_tolerance_is_reported():
    inst, sched = half_open_case(-1e-6)
    report = validate(inst, sched)
    assert broken_rules(report) == {4, 5}
    # rel_tol 1e-6: x's I/O end gets 1e-6 * 2 = 2e-6, beyond the overlap
    assert validate(inst, sched, rel_tol=1e-6).feasible
    with pytest.raises(InfeasibleScheduleError):
        assert_feasible(inst, sched, rel_tol=0.0)
    assert not validate(inst, half_open_case(-1e-12)[1], rel_tol=0.0).feasible


def test_tolerance_follows_the_resolution_of_the_times_compared():
    inst, sched = half_open_case(0.0)
    far = Schedule(tuple(dataclasses.replace(
        js, compute_starts=tuple(t + 1e6 for t in js.compute_starts),
        io_starts=tuple(t + 1e6 for t in js.io_starts)) for js in sched.jobs))
    report = validate(inst, far)
    # the longest end is x's or y's I/O (length 2) near 1e6 + 5: 8 ulps there
    # plus 1e-10 * 2, not a fraction of the instance or of the clock
    assert report.feasible
    assert report.tolerance == 8 * math.ulp(1e6 + 5) + 1e-10 * 2
    assert report.horizon == 1e6 + 5


# -- rule 6 --------------------------------------------------------------------
def test_rule6_valid_packs(two_packs):
    inst, sched = two_packs
    report = validate(inst, sched)
    assert report.feasible and report.checked_packs


def test_rule6_pack_starts_before_previous_completes(two_packs):
    inst, sched = two_packs
    roomy = inst.replace(platform=Platform.homogeneous(1, nodes=8))
    early = Schedule((*sched.jobs[:2], JobSchedule("c", 0, (5.5,), (6.5,))),
                     packs=sched.packs)
    v = only(validate(roomy, early), 6)
    assert v.jobs == ("c", "b") and v.time == 5.5
    assert "before pack 0 completes at t=6" in v.message
    assert validate(roomy, early, check_packs=False).feasible


def test_rule6_jobs_of_a_pack_start_together(two_packs):
    inst, sched = two_packs
    late_b = Schedule((sched.jobs[0], JobSchedule("b", 0, (0.5,), (4.0,)),
                       sched.jobs[2]), packs=sched.packs)
    v = only(validate(inst, late_b), 6)
    assert v.jobs == ("a", "b") and v.time == 0.0


def test_rule6_coverage(two_packs):
    inst, sched = two_packs
    missing = dataclasses.replace(sched, packs=((("a", "b"),),))
    assert "job c is in no pack" in only(validate(inst, missing), 6).message
    twice = dataclasses.replace(sched, packs=((("a", "b"), ("c", "a")),))
    assert "already in pack 0" in only(validate(inst, twice), 6).message
    unknown = dataclasses.replace(sched, packs=((("a", "b"), ("c", "zz")),))
    assert only(validate(inst, unknown), 6).jobs == ("zz",)
    elsewhere = dataclasses.replace(sched, packs=((("a", "b"),), (("c",),)))
    assert "does not exist" in only(validate(inst, elsewhere), 6).message


def test_rule6_pack_on_the_wrong_partition():
    inst = Instance("p2", Platform.homogeneous(2, nodes=2),
                    (Job.periodic("a", 2, 1.0, 1.0), Job.periodic("b", 2, 1.0, 1.0)))
    sched = Schedule((JobSchedule("a", 0, (0.0,), (1.0,)),
                      JobSchedule("b", 1, (0.0,), (1.0,))),
                     packs=((("a", "b"),), ()))
    v = only(validate(inst, sched), 6)
    assert v.jobs == ("b",) and "runs on partition 1" in v.message


def test_rule6_requested_without_packs(tiny, tiny2_fifo):
    assert validate(tiny, tiny2_fifo).checked_packs is False
    assert only(validate(tiny, tiny2_fifo, check_packs=True), 6).jobs == ()


# -- never stops at the first violation ----------------------------------------
def test_every_rule_broken_at_once(tiny):
    inst = with_job(tiny, "b", release=0.5, nodes=3)          # 5 > 4 nodes
    a = JobSchedule("a", 0, (0.0, 6.5), (2.5, 8.0), compute_ends=(2.0, 9.0))
    b = dataclasses.replace(B, killed_at=8.0)                 # b has no wall time
    stray = JobSchedule("zz", 0, (0.0,), (0.0,))              # not in the instance
    sched = Schedule((a, b, stray), packs=((("a",),),))       # b in no pack
    report = validate(inst, sched)
    assert broken_rules(report) == set(RULES), report.format()
    text = str(report)
    assert text.count("\n") == report.num_violations
    for rule, name in RULES.items():
        assert f"rule {rule} {name}" in text


def test_all_violations_counted_but_storage_is_capped():
    n, m = 30, 50
    jobs = tuple(Job.periodic(f"j{i}", 1, 1.0, 1.0, m) for i in range(n))
    inst = Instance("crowd", Platform.homogeneous(1, nodes=n), jobs)
    # every job does its I/O at the same times: n-1 conflicts per iteration
    sched = Schedule(tuple(JobSchedule(j.id, 0, tuple(2.0 * k for k in range(m)),
                                       tuple(2.0 * k + 1 for k in range(m)))
                           for j in jobs))
    report = validate(inst, sched, max_per_rule=100)
    assert report.by_rule()[5] == (n - 1) * m
    assert len(report.violations) == 100
    with pytest.raises(InfeasibleScheduleError) as info:
        assert_feasible(inst, sched)
    message = str(info.value)
    assert "\n" not in message
    assert message.count("rule 5 exclusive-io:") == 11      # summary + 10 listed
    assert f"and {(n - 1) * m - 10} more" in message


# -- reports, errors, input checks ---------------------------------------------
def test_report_serialises(tiny):
    early = JobSchedule("a", 0, (0.0, 6.0), (2.5, 8.0))
    report = validate(tiny, Schedule((early, B), method="m"))
    data = json.loads(json.dumps(report.to_dict()))
    assert data["feasible"] is False and data["num_violations"] == 1
    assert data["counts"]["exclusive-io"] == 1
    assert data["violations"][0]["phases"] == ["b:io[0]", "a:io[0]"]
    assert "'tiny2' (m): INFEASIBLE, 1 violation" in str(report)


def test_malformed_schedules_are_format_errors(tiny):
    short = JobSchedule("b", 0, (0.0,), (1.0,))
    with pytest.raises(ScheduleFormatError, match="compute_starts has 1 entries"):
        validate(tiny, Schedule((A, short)))
    nan = JobSchedule("b", 0, (0.0, math.nan), (1.0, 6.0))
    with pytest.raises(ScheduleFormatError, match=r"compute_starts\[1\]=nan"):
        validate(tiny, Schedule((A, nan)))


@pytest.mark.parametrize("bad", [{"rel_tol": -1.0}, {"rel_tol": math.inf},
                                 {"max_per_rule": -1}, {"check_packs": "yes"}])
def test_bad_options(tiny, tiny2_fifo, bad):
    with pytest.raises(OptionError):
        validate(tiny, tiny2_fifo, **bad)


def test_validator_is_independent_of_the_simulator():
    package = Path(__file__).parents[1] / "opt_sched" / "validation"
    sources = sorted(package.rglob("*.py"))
    assert len(sources) >= 10          # one module per rule, and the seams
    imported = set()
    for source in sources:
        tree = ast.parse(source.read_text())
        imported |= {(node.module or "") for node in ast.walk(tree)
                     if isinstance(node, ast.ImportFrom)}
        imported |= {alias.name for node in ast.walk(tree)
                     if isinstance(node, ast.Import) for alias in node.names}
    assert not any("simulation" in name for name in imported), imported


def test_100_jobs_by_1000_iterations_is_fast(hundred_by_thousand):
    inst, sched = hundred_by_thousand
    began = time.perf_counter()
    report = validate(inst, sched)
    seconds = time.perf_counter() - began
    assert report.feasible, report.format(5)
    assert seconds < 2.0, seconds         # about 0.05 s on the reference machine


# -- brute force cross-check ---------------------------------------------------
def brute_force_rules(instance: Instance, schedule: Schedule) -> set[int]:
    """Rules 1, 3, 4, 5 checked the slow way: every quantity at the midpoint
    of every elementary interval between breakpoints (exact on a 1/4 grid)."""
    broken = set()
    phases = []  # (job, kind, start, end)
    for job in instance.jobs:
        js = schedule[job.id]
        b = instance.platform.partitions[js.partition].bandwidth
        for j in range(job.iterations):
            phases.append((job, "c", js.compute_starts[j],
                           js.compute_starts[j] + job.compute[j], js.partition))
            phases.append((job, "o", js.io_starts[j],
                           js.io_starts[j] + job.io_volume[j] / b, js.partition))
    span = {}
    for job in instance.jobs:
        mine = [p for p in phases if p[0] is job]
        span[job.id] = (min(p[2] for p in mine), max(p[3] for p in mine))
    for job in instance.jobs:
        js = schedule[job.id]
        b = instance.platform.partitions[js.partition].bandwidth
        if span[job.id][0] < job.release:
            broken.add(1)
        for j in range(job.iterations):
            if js.compute_starts[j] + job.compute[j] > js.io_starts[j]:
                broken.add(3)
            if (j + 1 < job.iterations and js.io_starts[j] + job.io_volume[j] / b
                    > js.compute_starts[j + 1]):
                broken.add(3)
    points = sorted({t for p in phases for t in p[2:4]})
    for lo, hi in itertools.pairwise(points):
        t = (lo + hi) / 2
        for k, part in enumerate(instance.platform.partitions):
            used = sum(job.nodes for job in instance.jobs
                       if schedule[job.id].partition == k
                       and span[job.id][0] <= t < span[job.id][1])
            if used > part.nodes:
                broken.add(4)
            busy = sum(1 for p in phases if p[1] == "o" and p[4] == k
                       and p[2] <= t < p[3])
            if busy > 1:
                broken.add(5)
    return broken


@settings(max_examples=150, deadline=None)
@given(instance=instances(max_jobs=4, max_iterations=3), data=st.data())
def test_agrees_with_brute_force_on_random_schedules(instance, data):
    quarter_times = st.integers(0, 60).map(lambda q: q / 4)
    jobs = []
    for job in instance.jobs:
        starts = sorted(data.draw(st.lists(quarter_times, min_size=2 * job.iterations,
                                           max_size=2 * job.iterations)))
        if data.draw(st.booleans()):        # sometimes scramble the order
            starts = data.draw(st.permutations(starts))
        jobs.append(JobSchedule(job.id, job.partition, tuple(starts[0::2]),
                                tuple(starts[1::2])))
    schedule = Schedule(tuple(jobs))
    report = validate(instance, schedule, rel_tol=0.0)
    expected = brute_force_rules(instance, schedule)
    assert broken_rules(report) == expected, report.format()


# -- simulated schedules of the bundled instances ------------------------------
def staggered_plan(instance: Instance, simulation):
    """Every job on the first partition that fits it (or its own); jobs with
    named-resource demands one after the other, the others at time 0."""
    parts = instance.platform.partitions
    partition, start, clock = {}, {}, 0.0
    for index in instance.topological_order():
        job = instance.jobs[index]
        partition[job.id] = (job.partition if job.partition is not None else
                             next(k for k, p in enumerate(parts)
                                  if p.nodes >= job.nodes))
        start[job.id] = clock if job.demands else 0.0
        if job.demands:
            clock += job.length(min(p.bandwidth for p in parts)) * 10
    return simulation.StartsPlan(start=start, partition=partition)


@pytest.mark.parametrize("path", bundled_instance_paths(), ids=lambda p: p.stem)
def test_simulated_schedules_of_bundled_instances_are_accepted(path):
    import opt_sched.simulation as simulation
    instance = read_instance(path)
    plans = [staggered_plan(instance, simulation)]
    if instance.is_mapped and not instance.has_dependencies:
        plans.append(simulation.OnePackPlan())
    for plan in plans:
        for policy in simulation.POLICY_NAMES:
            schedule = simulation.simulate(instance, plan, policy=policy)
            report = assert_feasible(instance, schedule)
            assert report.checked_packs == (schedule.packs is not None)


def test_shifting_one_simulated_io_phase_is_caught():
    import opt_sched.simulation as simulation
    instance = read_instance(INSTANCES / "tucan5.json")
    schedule = simulation.simulate(instance, simulation.OnePackPlan(), policy="fifo")
    assert_feasible(instance, schedule)
    # move the second I/O phase on the node to the middle of the first one
    io = sorted((js.io_starts[j], js.id, j) for js in schedule.jobs
                for j in range(len(js.io_starts))
                if instance.job(js.id).io_volume[j] > 0)
    (t0, id0, j0), (_, id1, j1) = io[0], io[1]
    length = instance.job(id0).io_volume[j0] / schedule.bandwidth(instance, id0)
    js = schedule[id1]
    moved = list(js.io_starts)
    moved[j1] = t0 + length / 2
    broken = Schedule(tuple(dataclasses.replace(x, io_starts=tuple(moved))
                            if x.id == id1 else x for x in schedule.jobs),
                      packs=schedule.packs)
    report = validate(instance, broken)
    assert 5 in broken_rules(report)
    assert any({f"{id0}:io[{j0}]", f"{id1}:io[{j1}]"} == set(v.phases)
               for v in report.violations if v.rule == 5)
    assert np.isfinite(report.tolerance)
