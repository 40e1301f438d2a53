"""The tolerance comes from the instance, so no schedule can blind it.

``tiny2`` (P = 4, b = 1; a: 2 x (w=2, v=3), b: 2 x (w=1, v=2), released at
0) has the instance scale D = 0 + (2*(2+3) + 2*(1+2)) = 16, so with the
default rel_tol = 1e-9 the tolerance is eps = 1.6e-8 and the checkable range
is |t| <= 2^52 * 1.6e-8 = 72,057,594.04 (4503599627370496 * 1.6e-8).
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import pytest

from opt_sched import (
    Instance,
    Job,
    Partition,
    Platform,
    Schedule,
    read_instance,
    schedule_to_dict,
)
from opt_sched.validation import validate
from opt_sched.validation.tolerance import (
    checkable_time_limit,
    instance_scale,
    tolerance,
)

from .conftest import INSTANCES, TINY2_FIFO

TINY2 = INSTANCES / "tiny2.json"
A, B = TINY2_FIFO.jobs


def shifted(schedule: Schedule, delta: float) -> Schedule:
    return dataclasses.replace(schedule, jobs=tuple(dataclasses.replace(
        js, compute_starts=tuple(t + delta for t in js.compute_starts),
        io_starts=tuple(t + delta for t in js.io_starts)) for js in schedule.jobs))


def rules_of(report) -> set[int]:
    return {rule for rule, n in report.by_rule().items() if n}


def test_scale_of_tiny2_by_hand(tiny):
    assert instance_scale(tiny) == 16.0
    assert tolerance(tiny, 1e-9) == pytest.approx(1.6e-8)
    assert checkable_time_limit(1.6e-8, 16.0) == pytest.approx(72057594.04)


def test_scale_uses_the_last_release_and_the_slowest_admissible_bandwidth():
    # x is mapped to partition 0 (b = 2): T = 1 + 4/2 = 3; y is not mapped, so
    # the slowest bandwidth 0.5 counts: T = 1 + 1/0.5 = 3; last release 10.
    plat = Platform((Partition(4, 2.0), Partition(4, 0.5)))
    inst = Instance("scale", plat, (Job.periodic("x", 1, 1.0, 4.0, partition=0),
                                    Job.periodic("y", 1, 1.0, 1.0, release=10.0)))
    assert instance_scale(inst) == 10.0 + 3.0 + 3.0


def test_small_instances_get_at_least_rel_tol():
    inst = Instance("dust", Platform.homogeneous(1, nodes=1),
                    (Job.periodic("d", 1, 0.001, 0.0),))
    assert tolerance(inst, 1e-9) == 1e-9        # max(1, D) = 1


def test_tolerance_does_not_depend_on_the_schedule(tiny):
    near = validate(tiny, TINY2_FIFO)
    far = validate(tiny, shifted(TINY2_FIFO, 1e6))
    assert near.feasible and far.feasible
    assert near.tolerance == far.tolerance == pytest.approx(1.6e-8)
    assert far.horizon == 1e6 + 11


def test_one_absurd_start_cannot_widen_the_tolerance(tiny):
    a = dataclasses.replace(A, compute_starts=(0.0, 1e308))
    report = validate(tiny, Schedule((a, B)))
    assert report.tolerance == pytest.approx(1.6e-8)
    assert rules_of(report) == {2, 3}, report.format()
    (v2,) = [v for v in report.violations if v.rule == 2]
    assert v2.phases == ("a:compute[1]",) and v2.time == 1e308
    (v3,) = [v for v in report.violations if v.rule == 3]
    assert v3.phases == ("a:compute[1]", "a:io[1]")


def test_absurd_negative_start_breaks_rules_1_and_2(tiny):
    a = dataclasses.replace(A, compute_starts=(-1e308, 6.0))
    report = validate(tiny, Schedule((a, B)))
    assert rules_of(report) == {1, 2}, report.format()


def test_absurd_zero_length_io_phase_is_reported(tiny):
    # a's last I/O (volume 3) at 1e308: its length is lost in rounding
    a = dataclasses.replace(A, io_starts=(3.0, 1e308))
    report = validate(tiny, Schedule((a, B)))
    assert rules_of(report) == {2}, report.format()
    assert report.violations[0].phases == ("a:io[1]",)


def test_checkable_range_boundary(tiny):
    # 5e7 < 72,057,594 <= 1e8: the same feasible schedule, moved
    assert validate(tiny, shifted(TINY2_FIFO, 5e7)).feasible
    report = validate(tiny, shifted(TINY2_FIFO, 1e8))
    assert rules_of(report) == {2}
    assert report.num_violations == 8          # 2 jobs x 2 iterations x 2 phases


def test_exact_comparisons_keep_a_usable_range(tiny):
    # rel_tol = 0: T_max = 2^52 * 2^-40 * 16 = 4096 * 16 = 65536; integer times
    assert validate(tiny, shifted(TINY2_FIFO, 60000.0), rel_tol=0.0).feasible
    report = validate(tiny, shifted(TINY2_FIFO, 70000.0), rel_tol=0.0)
    assert rules_of(report) == {2}


@pytest.mark.parametrize("start,rule", [(1e308, "rule 2 phase-lengths"),
                                        (-1e308, "rule 1 release-and-dependencies")])
def test_cli_absurd_start_exits_1_naming_the_rule(start, rule, tmp_path):
    instance = read_instance(TINY2)
    data = schedule_to_dict(TINY2_FIFO, instance)
    data["jobs"][0]["compute_starts"][0] = start
    path = tmp_path / "absurd.json"
    path.write_text(json.dumps(data))
    done = subprocess.run([sys.executable, "-m", "opt_sched", "validate", str(TINY2),
                           str(path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stdout + done.stderr
    assert rule in done.stdout
    assert "tolerance 1.6e-08" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr
