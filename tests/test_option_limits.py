"""Issue 24, item 4: the limits checked before a generator or the gang
simulator allocates, and the generic "option does not apply" rule.

The bounds must refuse only what cannot run: the gang simulator's lower
bound on slices never exceeds the slices a real run takes, and the NERSC
generator's estimate of its jobs is not below what it really draws (so
that a workload under the limit is never refused for nothing).
"""

from __future__ import annotations

import argparse

import pytest

from opt_sched.cli.arguments import given_options, positive_float, rate, refuse_options
from opt_sched.errors import OptionError
from opt_sched.gang.jann import jann_workload
from opt_sched.gang.limits import MAX_MPL, check_run, min_slices
from opt_sched.gang.simulator import simulate_gang
from opt_sched.workloads.limits import MAX_GENERATED_JOBS, check_job_count


@pytest.mark.parametrize("quantum", [10.0, 200.0, 5000.0])
@pytest.mark.parametrize("scheduler", ["gs", "migrate-iogs"])
def test_min_slices_is_a_lower_bound_of_real_runs(quantum, scheduler):
    workload = jann_workload(40, 900.0, "mixed", 3, nodes=16)
    record = simulate_gang(workload, scheduler, mpl=3, quantum=quantum)
    assert len(record.slice_start) >= min_slices(workload, quantum) > 0


def test_check_run_names_the_limit():
    workload = jann_workload(5, 900.0, 0.5, 0, nodes=16)
    check_run(workload, MAX_MPL, 200.0, 20.0)
    with pytest.raises(OptionError, match=r"mpl=1001.*MAX_MPL"):
        check_run(workload, MAX_MPL + 1, 200.0)
    with pytest.raises(OptionError, match=r"quantum=1e-09.*MAX_SLICES"):
        check_run(workload, 5, 1e-9)
    with pytest.raises(OptionError, match="migration_cost=inf"):
        check_run(workload, 5, 200.0, float("inf"))


def test_check_job_count():
    check_job_count(MAX_GENERATED_JOBS, "--jobs")
    with pytest.raises(OptionError, match=r"about 2e\+06 jobs"):
        check_job_count(2 * MAX_GENERATED_JOBS, "--days=9", about=True)


def test_nersc_estimate_is_not_below_the_jobs_drawn(monkeypatch):
    from opt_sched.workloads import limits, nersc

    estimates = []

    def spy(count, what, *, about=False):
        estimates.append(count)

    monkeypatch.setattr(nersc, "check_job_count", spy)
    workload = nersc.generate_workload("nersc-edison", duration=nersc.DAY,
                                       nodes=500, seed=2)
    drawn = workload.fill_jobs + workload.regular_jobs
    assert estimates and estimates[0] >= drawn > 0
    assert drawn < limits.MAX_GENERATED_JOBS


def test_subnormal_and_tiny_rates_are_refused():
    assert positive_float("1e-300") == 1e-300
    with pytest.raises(argparse.ArgumentTypeError, match="MIN_NORMAL"):
        positive_float("1e-320")
    assert rate("1e-12") == 1e-12
    with pytest.raises(argparse.ArgumentTypeError, match="MIN_BANDWIDTH"):
        rate("1e-13")
    with pytest.raises(argparse.ArgumentTypeError, match="MAX_VALUE"):
        rate("1e16")


def _options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--mode", default="a", choices=("a", "b"))
    parser.add_argument("--count", type=int, default=None)
    parser.add_argument("--flag", action="store_true")
    parser.add_argument("--ratio", type=float, default="0.5")


def test_given_options_are_those_off_their_default():
    parser = argparse.ArgumentParser()
    _options(parser)
    assert given_options(parser.parse_args([]), _options) == set()
    args = parser.parse_args(["--mode", "a", "--count", "3", "--flag", "--ratio",
                              "0.5"])
    assert given_options(args, _options) == {"count", "flag"}


def test_refuse_options_names_the_option_and_its_users():
    refuse_options({"count"}, {"count", "flag"}, "mode a", lambda dest: "mode b")
    with pytest.raises(OptionError, match=r"^--count does not apply to mode a "
                                          r"\(it applies to: mode b\)$"):
        refuse_options({"count", "flag"}, {"flag"}, "mode a", lambda dest: "mode b")
