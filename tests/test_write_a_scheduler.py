"""``docs/write-a-scheduler.md`` runs as written: its worked example is
``examples/easy_short_backfill.py`` word for word; run as the page says it
replays Batsim's medium_late and KTH-SP2 with ``--validate``; its schedule
never lets a job of one hour or more overtake another; it reaches
``compare`` in its own process, and every command as an entry-point
plug-in."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from opt_sched.errors import OptionError
from opt_sched.json_files import read_instance
from opt_sched.scheduling import get_scheduler, replay
from opt_sched.validation import assert_feasible

from .online_helpers import online_workloads
from .paths import REPO, shared_data_dir
from .plugin_helpers import head_instance, install_package, opt_sched
from .test_blocks import load_example

PAGE = REPO / "docs" / "write-a-scheduler.md"
EXAMPLE = REPO / "examples" / "easy_short_backfill.py"


def _code_blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, flags=re.S)


def test_the_page_shows_the_example_file_word_for_word():
    blocks = _code_blocks(PAGE.read_text(), "python")
    assert EXAMPLE.read_text() in blocks


def test_the_page_names_the_api_version():
    from opt_sched.scheduling import API_VERSION

    assert f"API_VERSION = \"{API_VERSION}\"" in PAGE.read_text() or \
        f"`{API_VERSION}`" in PAGE.read_text()
    assert f"## {API_VERSION}" in (REPO / "CHANGELOG.md").read_text()


def _run(*args: str, cwd) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, str(EXAMPLE), *args], cwd=cwd,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    assert "validated feasible" in done.stdout
    return done


def overtakers(instance, schedule, partition: int | None = None) -> list[int]:
    """The jobs that started before a job submitted strictly earlier was
    started, in one partition. A job is submitted when it is eligible: at
    its release and the completion of the jobs it depends on. (Jobs
    submitted at the same time are not compared: at one instant, the jobs
    whose predecessors end then, possibly after a zero-length run, are
    submitted after the others.)"""
    keep = [i for i, js in enumerate(schedule.jobs)
            if partition is None or js.partition == partition]
    submit = np.array([max([instance.jobs[i].release]
                           + [schedule.completion(instance, d)
                              for d in instance.jobs[i].after]) for i in keep])
    start = np.array([schedule.jobs[i].start for i in keep])
    order = np.argsort(submit, kind="stable")
    ordered = submit[order]
    before = np.maximum.accumulate(np.concatenate(([-np.inf], start[order][:-1])))
    before = before[np.searchsorted(ordered, ordered, side="left")]
    return [keep[i] for i in order[before > start[order]].tolist()]


@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(instance=online_workloads(max_jobs=14, partitions=2, unknown=True),
       limit=st.sampled_from([1.0, 3.0, 6.0]), kill=st.booleans())
def test_only_short_jobs_overtake_on_random_workloads(instance, limit, kill):
    example = load_example("easy_short_backfill").ShortBackfillEasy
    schedule = replay(instance, example(limit=limit), kill_at_walltime=kill)
    assert_feasible(instance, schedule)
    for k in range(instance.platform.num_partitions):
        for i in overtakers(instance, schedule, k):
            assert instance.jobs[i].walltime is not None
            assert instance.jobs[i].walltime < limit


@pytest.mark.parametrize("workload", ["batsim-medium_late", "KTH-SP2"])
def test_the_example_replays_validated_and_backfills_only_short_jobs(workload,
                                                                    tmp_path):
    data = shared_data_dir()
    if workload == "KTH-SP2":
        trace = data / "swf" / "KTH-SP2.swf.gz"
        extra: list[str] = []
    else:
        folder = data / workload
        trace = folder / "workload.json"
        extra = ["--platform", str(folder / "platform.xml"), "--mmax-workload"]
    if not trace.is_file():
        pytest.skip(f"{trace} absent")
    schedule_file, instance_file = tmp_path / "s.json", tmp_path / "i.json"
    _run("replay", str(trace), *extra, "--scheduler", "easy-short", "--validate",
         "--quiet", "--schedule", str(schedule_file), "--instance-out",
         str(instance_file), cwd=tmp_path)
    from opt_sched.json_files import read_schedule

    instance = read_instance(instance_file)
    schedule = read_schedule(schedule_file)
    assert_feasible(instance, schedule)
    jumped = overtakers(instance, schedule)
    estimates = {j.id: j.walltime for j in instance.jobs}
    assert all(estimates[instance.jobs[i].id] < 3600 for i in jumped)
    # EASY lets longer jobs overtake on this workload: the limit is what held
    # them back (and the example is not FCFS either)
    easy = replay(instance, get_scheduler("easy"))
    long_jumps = [i for i in overtakers(instance, easy)
                  if instance.jobs[i].walltime >= 3600]
    assert jumped and (long_jumps or workload != "KTH-SP2")


def test_without_a_limit_the_example_is_easy():
    """``limit=inf``: every job may backfill, so it is EASY (an independent
    check of the blocks: the built-in EASY is compiled code)."""
    from opt_sched.traces import read_batsim, trace_to_instance
    from opt_sched.traces.reading import TraceReading

    folder = shared_data_dir() / "batsim-medium_late"
    trace, _ = read_batsim(folder / "workload.json", folder / "platform.xml",
                           TraceReading(machines="workload"))
    instance = trace_to_instance(trace)
    example = load_example("easy_short_backfill").ShortBackfillEasy
    ours = replay(instance, example(limit=float("inf")))
    assert_feasible(instance, ours)
    theirs = replay(instance, get_scheduler("easy"))
    assert [js.start for js in ours.jobs] == [js.start for js in theirs.jobs]


@pytest.mark.parametrize("limit", [0, -5, "1h", None])
def test_a_bad_limit_is_one_option_error(limit):
    example = load_example("easy_short_backfill").ShortBackfillEasy
    with pytest.raises(OptionError, match=r"^limit="):
        example(limit=limit)


def test_compare_in_the_examples_own_process(tmp_path):
    """``python examples/easy_short_backfill.py compare ...``: registered in
    process, the scheduler is a method of ``compare``, validated."""
    path = head_instance(tmp_path)
    done = subprocess.run([sys.executable, str(EXAMPLE), "compare", str(path),
                           "--json", "--methods", "easy-short/fifo, easy/fifo"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    rows = {r["heuristic"]: r for r in json.loads(done.stdout)}
    assert set(rows) == {"easy-short", "easy"}
    example = load_example("easy_short_backfill").ShortBackfillEasy
    instance = read_instance(path)
    direct = replay(instance, example())
    assert_feasible(instance, direct)
    assert rows["easy-short"]["makespan"] == pytest.approx(direct.makespan(instance),
                                                           rel=1e-12)


def test_the_example_as_an_entry_point_plugin(tmp_path):
    """Installed as the page says (a package and one entry point), the
    scheduler reaches ``replay`` and ``compare`` in new processes."""
    site = install_package(tmp_path, "easyshort", "easy-short.",
                           {"scheduler": EXAMPLE.read_text()},
                           "[opt_sched.schedulers]\n"
                           "easy-short = easyshort.scheduler:ShortBackfillEasy\n")
    path = head_instance(tmp_path)
    done = opt_sched(site, "replay", str(path), "--scheduler", "easy-short",
                     "--validate", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    done = opt_sched(site, "compare", str(path), "--json", "--methods",
                     "easy-short/fifo", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert [r["heuristic"] for r in json.loads(done.stdout)] == ["easy-short"]
