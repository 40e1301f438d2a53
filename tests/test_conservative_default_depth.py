"""Conservative backfilling's default depth on large workloads (issue 24,
item 5): without ``bf_depth``, a workload of more than ``LARGE_WORKLOAD``
jobs is replayed with a depth of ``CONSERVATIVE_DEFAULT_DEPTH``; a smaller
one exactly as batsched does (no limit); ``bf_depth="all"`` never limits.
"""

from __future__ import annotations

import pytest

from opt_sched import Instance, Job, Platform
from opt_sched.errors import OptionError
from opt_sched.scheduling import get_scheduler, replay
from opt_sched.scheduling.backfill_limits import (
    CONSERVATIVE_DEFAULT_DEPTH,
    LARGE_WORKLOAD,
    SLURM_DEFAULTS,
    applied_depth,
    check_limits,
)
from opt_sched.scheduling.conservative import ConservativeBackfilling
from opt_sched.validation import assert_feasible

from .paths import shared_data_dir


def _job(name: str, nodes: int, walltime: float, release: float) -> Job:
    return Job(name, nodes, (walltime,), (0.0,), release=release, walltime=walltime)


def _queue(count: int) -> Instance:
    """``count`` jobs on 4 machines, all submitted at 0: a long queue whose
    reservations a depth limit changes (wide jobs ahead of narrow ones)."""
    jobs = tuple(_job(f"j{i}", 4 if i % 3 == 0 else 1, 10.0 + 7 * (i % 5), 0.0)
                 for i in range(count))
    return Instance("queue", Platform.homogeneous(1, nodes=4), jobs)


def _starts(schedule) -> dict[str, float]:
    return {js.id: js.start for js in schedule.jobs}


def test_the_default_depth_spares_the_batsim_conformance_workload():
    """The Batsim conformance workload (medium_late, 801 jobs) is replayed
    without any depth limit; the default is Slurm's depth."""
    assert LARGE_WORKLOAD >= 801
    assert SLURM_DEFAULTS["bf_depth"] == CONSERVATIVE_DEFAULT_DEPTH
    folder = shared_data_dir() / "batsim-medium_late"
    if not folder.is_dir():
        pytest.skip(f"{folder} not found")
    from opt_sched.traces import read_batsim, trace_to_instance

    trace, _ = read_batsim(folder / "workload.json", folder / "platform.xml")
    instance = trace_to_instance(trace, "none")
    sched = get_scheduler("conservative")
    schedule = replay(instance, sched)
    assert sched.applied_bf_depth is None and "bf_depth" not in schedule.info


def test_large_workloads_get_the_default_depth(monkeypatch):
    """With a depth of 5 above 10 jobs: 12 jobs are replayed as with
    ``bf_depth=5`` (and say so), which here differs from no limit; 10 jobs
    exactly as with no limit."""
    monkeypatch.setattr(ConservativeBackfilling, "default_depth", 5)
    monkeypatch.setattr(ConservativeBackfilling, "large_workload", 10)
    big = _queue(12)
    default = get_scheduler("conservative")
    schedule = replay(big, default)
    assert default.applied_bf_depth == 5 and schedule.info["bf_depth"] == 5
    assert _starts(schedule) == _starts(replay(big, get_scheduler(
        "conservative", bf_depth=5)))
    unlimited = get_scheduler("conservative", bf_depth="all")
    exact = replay(big, unlimited)
    assert unlimited.applied_bf_depth is None and "bf_depth" not in exact.info
    assert _starts(exact) != _starts(schedule)
    assert_feasible(big, schedule)
    small = _queue(10)
    assert _starts(replay(small, get_scheduler("conservative"))) == _starts(
        replay(small, get_scheduler("conservative", bf_depth="all")))


def test_easy_has_no_default_depth():
    sched = get_scheduler("easy")
    replay(_queue(30), sched)
    assert sched.applied_bf_depth is None


@pytest.mark.parametrize(("bf_depth", "jobs", "expected"), [
    (None, 100, None), (None, 101, 7), (3, 2, 3), ("all", 10**6, None)])
def test_applied_depth(bf_depth, jobs, expected):
    assert applied_depth(bf_depth, 7, jobs, large=100) == expected
    assert applied_depth(None, None, 10**6, large=100) is None


def test_all_is_the_only_word():
    assert check_limits("all", 0.0) == ("all", 0.0)
    with pytest.raises(OptionError, match="bf_depth='none'"):
        check_limits("none", 0.0)


def test_the_cli_says_when_the_default_depth_applies(monkeypatch, capsys):
    """The replay summary names the default depth in force; ``--bf-depth
    all`` lifts it, and a word other than ``all`` is refused."""
    from opt_sched.cli import main

    from .paths import FIXTURES

    trace = str(FIXTURES / "traces" / "kth-sp2-head.swf")
    monkeypatch.setattr(ConservativeBackfilling, "large_workload", 10)
    assert main(["replay", trace, "--scheduler", "conservative"]) == 0
    out = capsys.readouterr().out
    assert f"bf_depth {CONSERVATIVE_DEFAULT_DEPTH}: the default of conservative" in out
    assert main(["replay", trace, "--scheduler", "conservative", "--bf-depth",
                 "all"]) == 0
    assert "bf_depth" not in capsys.readouterr().out
    with pytest.raises(SystemExit) as refused:
        main(["replay", trace, "--scheduler", "conservative", "--bf-depth", "most"])
    assert refused.value.code == 2
    assert "'most' is not an integer >= 1 or 'all'" in capsys.readouterr().err
