"""The tolerance is what floating point can lose at the times compared, no
more: it does not grow with the clock or the trace, never hides a phase,
and no time of the schedule can widen it for another comparison.

``tiny2`` (P = 4, b = 1; a: 2 x (w=2, v=3), b: 2 x (w=1, v=2), released at
0) has the instance scale D = 0 + (2*(2+3) + 2*(1+2)) = 16, so the
checkable range is |t| <= 2^52 * 1e-9 * 16 = 72,057,594.04
(4503599627370496 * 1.6e-8).
"""

from __future__ import annotations

import dataclasses
import json
import math
import subprocess
import sys

import numpy as np
import pytest

from opt_sched import (
    Instance,
    Job,
    JobSchedule,
    Partition,
    Platform,
    Schedule,
    read_instance,
    schedule_to_dict,
    write_instance,
)
from opt_sched.validation import validate
from opt_sched.validation.tolerance import (
    ULPS,
    Tolerance,
    checkable_time_limit,
    instance_scale,
)

from .conftest import INSTANCES, TINY2_FIFO
from .validation_helpers import broken_rules

TINY2 = INSTANCES / "tiny2.json"
A, B = TINY2_FIFO.jobs


def shifted(schedule: Schedule, delta: float) -> Schedule:
    return dataclasses.replace(schedule, jobs=tuple(dataclasses.replace(
        js, compute_starts=tuple(t + delta for t in js.compute_starts),
        io_starts=tuple(t + delta for t in js.io_starts)) for js in schedule.jobs))


def released_at(instance: Instance, release: float) -> Instance:
    return dataclasses.replace(instance, jobs=tuple(
        dataclasses.replace(job, release=release) for job in instance.jobs))


# -- the formula ----------------------------------------------------------------------


@pytest.mark.parametrize("t", [0.0, 3.0, 1e6 + 0.25, 3.2e7, 1e9, 1e14])
@pytest.mark.parametrize("length", [0.0, 1e-7, 0.24, 3.0, 1e5])
def test_tolerance_is_ulps_plus_a_relative_term_capped_at_half_the_phase(t, length):
    raw = ULPS * math.ulp(t) + 1e-10 * length
    expected = min(raw, length / 2) if length > 0 else raw
    assert float(Tolerance().end(t, length)) == expected
    assert float(Tolerance().times(t)) == ULPS * math.ulp(t)


def test_it_follows_the_resolution_not_the_clock():
    tol = Tolerance()
    # at 1e9 s the clock itself has a resolution of 1.2e-7 s
    assert float(tol.end(1e9, 0.5)) < 2e-6
    # at KTH-SP2's last submits (3.2e7 s) a quarter-second phase gets 3e-8 s
    assert float(tol.end(3.2e7, 0.24)) < 4e-8
    # and its longest I/O phase (1,954 s) less than a microsecond
    assert float(tol.end(3.2e7, 1954.2)) < 1e-6
    # exact comparisons when asked
    assert float(Tolerance(0.0, 0.0).end(1e9, 0.5)) == 0.0


def test_scale_of_tiny2_by_hand(tiny):
    assert instance_scale(tiny) == 16.0
    assert checkable_time_limit(16.0) == pytest.approx(72057594.04)


def test_scale_uses_the_last_release_and_the_slowest_admissible_bandwidth():
    # x is mapped to partition 0 (b = 2): T = 1 + 4/2 = 3; y is not mapped, so
    # the slowest bandwidth 0.5 counts: T = 1 + 1/0.5 = 3; last release 10.
    plat = Platform((Partition(4, 2.0), Partition(4, 0.5)))
    inst = Instance("scale", plat, (Job.periodic("x", 1, 1.0, 4.0, partition=0),
                                    Job.periodic("y", 1, 1.0, 1.0, release=10.0)))
    assert instance_scale(inst) == 10.0 + 3.0 + 3.0


# -- the same corruption, wherever the clock stands ------------------------------------


def overlapping(schedule: Schedule, overlap: float) -> Schedule:
    """tiny2's FIFO schedule with a's first I/O moved ``overlap`` into b's
    I/O [1, 3) (a computes [0, 2) and its next compute starts at 6, so only
    rule 5 breaks)."""
    a, b = schedule.jobs
    return dataclasses.replace(schedule, jobs=(dataclasses.replace(
        a, io_starts=(b.io_starts[0] + 2.0 - overlap, a.io_starts[1])), b))


@pytest.mark.parametrize("release", [0.0, 1e6, 1e9])
@pytest.mark.parametrize("overlap", [0.5, 1e-3, 1e-5])
def test_an_overlap_is_caught_at_any_release_time(tiny, release, overlap):
    instance = released_at(tiny, release)
    clean = shifted(TINY2_FIFO, release)
    assert validate(instance, clean).feasible
    report = validate(instance, overlapping(clean, overlap))
    assert broken_rules(report) == {5}, report.format()


def test_the_cli_catches_it_at_1e9(tiny, tmp_path):
    instance = released_at(tiny, 1e9)
    write_instance(instance, tmp_path / "late.json")
    data = schedule_to_dict(overlapping(shifted(TINY2_FIFO, 1e9), 0.5), instance)
    (tmp_path / "s.json").write_text(json.dumps(data))
    done = subprocess.run([sys.executable, "-m", "opt_sched", "validate",
                           str(tmp_path / "late.json"), str(tmp_path / "s.json")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "rule 5 exclusive-io" in done.stdout


def test_a_short_phase_inside_a_long_one_is_caught_at_any_time():
    """The cap: a 1e-7 s phase entirely inside another job's I/O at 1e9 s,
    where 8 ulps are 9.5e-7 s, longer than the phase itself."""
    inst = Instance("short", Platform.homogeneous(1, nodes=2),
                    (Job.periodic("long", 1, 0.0, 10.0, release=1e9),
                     Job.periodic("short", 1, 0.0, 1e-7, release=1e9)))
    inside = Schedule((_entry("long", 1e9, 1e9), _entry("short", 1e9 + 5.0, 1e9 + 5.0)))
    report = validate(inst, inside)
    assert 5 in broken_rules(report), report.format()
    apart = Schedule((_entry("long", 1e9, 1e9), _entry("short", 1e9 + 10, 1e9 + 10)))
    assert validate(inst, apart).feasible


def _entry(job: str, compute: float, io: float) -> JobSchedule:
    return JobSchedule(job, 0, (compute,), (io,))


# -- no schedule can widen it --------------------------------------------------------


def test_tolerance_does_not_depend_on_the_other_times(tiny):
    near = validate(tiny, TINY2_FIFO)
    far = validate(tiny, shifted(TINY2_FIFO, 1e6))
    assert near.feasible and far.feasible
    # the largest tolerance: a's last I/O (length 3) ending at 11, or 1e6 + 11
    assert near.tolerance == ULPS * math.ulp(11.0) + 1e-10 * 3
    assert far.tolerance == ULPS * math.ulp(1e6 + 11) + 1e-10 * 3
    assert far.horizon == 1e6 + 11


def test_one_absurd_start_cannot_widen_the_tolerance(tiny):
    a = dataclasses.replace(A, compute_starts=(0.0, 1e308))
    report = validate(tiny, Schedule((a, B)))
    assert broken_rules(report) == {2, 3}, report.format()
    (v2,) = [v for v in report.violations if v.rule == 2]
    assert v2.phases == ("a:compute[1]",) and v2.time == 1e308
    (v3,) = [v for v in report.violations if v.rule == 3]
    assert v3.phases == ("a:compute[1]", "a:io[1]")
    # b's phases keep their own tolerance: an overlap of 1e-6 is still caught
    late_b = dataclasses.replace(B, io_starts=(1.0, 6.0 - 1e-6))
    report = validate(tiny, Schedule((a, late_b)))
    assert 5 in broken_rules(report), report.format()


def test_absurd_negative_start_breaks_rules_1_and_2(tiny):
    a = dataclasses.replace(A, compute_starts=(-1e308, 6.0))
    report = validate(tiny, Schedule((a, B)))
    assert broken_rules(report) == {1, 2}, report.format()


def test_absurd_zero_length_io_phase_is_reported(tiny):
    # a's last I/O (volume 3) at 1e308: its length is lost in rounding
    a = dataclasses.replace(A, io_starts=(3.0, 1e308))
    report = validate(tiny, Schedule((a, B)))
    assert broken_rules(report) == {2}, report.format()
    assert report.violations[0].phases == ("a:io[1]",)


def test_checkable_range_boundary(tiny):
    # 5e7 < 72,057,594 <= 1e8: the same feasible schedule, moved
    assert validate(tiny, shifted(TINY2_FIFO, 5e7)).feasible
    report = validate(tiny, shifted(TINY2_FIFO, 1e8))
    assert broken_rules(report) == {2}
    assert report.num_violations == 8          # 2 jobs x 2 iterations x 2 phases


def test_exact_comparisons(tiny):
    # rel_tol = 0 and ulps = 0: integer times touch exactly; one ulp overlaps
    assert validate(tiny, shifted(TINY2_FIFO, 60000.0), rel_tol=0.0, ulps=0).feasible
    a, b = shifted(TINY2_FIFO, 60000.0).jobs
    early = dataclasses.replace(a, io_starts=(math.nextafter(60003.0, 0.0),
                                              a.io_starts[1]))
    report = validate(tiny, Schedule((early, b)), rel_tol=0.0, ulps=0)
    assert broken_rules(report) == {5}
    assert validate(tiny, Schedule((early, b))).feasible


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
    assert "8 ulps + 1e-10 x length" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr


def test_report_states_how_the_tolerance_was_derived(tiny):
    data = validate(tiny, TINY2_FIFO).to_dict()
    assert data["tolerance_rule"] == {"ulps": ULPS, "rel_tol": 1e-10,
                                      "resolution": 0.0}
    assert np.isfinite(data["tolerance"])
