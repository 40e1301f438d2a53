"""The building blocks of Python schedulers (``opt_sched.scheduling.blocks``):
each block on a small situation worked out by hand, EASY written on them
(``examples/python_easy.py``) against the built-in EASY (random workloads,
Batsim's medium_late through the command line and the shared comparison
tool, KTH-SP2), and the blocks' cost when a scheduler does not use them."""

from __future__ import annotations

import csv
import importlib.util
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from opt_sched import Instance, Job, Partition, Platform
from opt_sched.errors import OptionError
from opt_sched.scheduling import API_VERSION, get_scheduler, job_table, replay
from opt_sched.scheduling.blocks import Blocks, Fit
from opt_sched.scheduling.blocks import kernel as blocks_kernel
from opt_sched.validation import assert_feasible

from .online_helpers import online_workloads
from .order_helpers import ClusterView
from .paths import REPO, shared_data_dir

EXAMPLES = REPO / "examples"


def load_example(name: str):
    """The module ``examples/<name>.py`` (not a package: loaded by path)."""
    spec = importlib.util.spec_from_file_location(f"_example_{name}",
                                                  EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def python_easy():
    return load_example("python_easy").PythonEasy


# -- each block, by hand ---------------------------------------------------------------
def _blocks() -> tuple[Blocks, dict[str, int]]:
    """4 machines; A (2 machines, 10 s), B (3, 5 s), C (2, 5 s), D (2, 20 s),
    E (1, 20 s), all submitted at 0."""
    spec = {"A": (2, 10.0), "B": (3, 5.0), "C": (2, 5.0), "D": (2, 20.0),
            "E": (1, 20.0)}
    jobs = tuple(Job(name, q, (e,), (0.0,), release=0.0, walltime=e)
                 for name, (q, e) in spec.items())
    instance = Instance("blocks", Platform((Partition(4, 1.0),)), jobs)
    blocks = Blocks(job_table(instance), ClusterView(4))
    index = {name: i for i, name in enumerate(spec)}
    for i in index.values():
        blocks.submit(i)
    return blocks, index


def test_each_block_on_a_situation_worked_out_by_hand():
    """At t = 0, A starts on machines {0, 1} until 10. B (3 machines) fits
    first at 10, on {0, 1, 2} (machine 3 would do too: the lowest-numbered
    are taken). With B reserved there: C fits now on {2, 3} (it ends at 5,
    before B), not if it must end by 4; D (2 machines for 20 s) fits first
    at 15 (over [0, 20) only machine 3 stays free; at 10 only 3 is free);
    E fits now on {3}. Backfilling D, E, C in that order starts E only (C
    would need {2, 3} over [0, 5), 3 is E's)."""
    b, j = _blocks()
    b.begin(0.0)
    assert list(b.queue()) == [j["A"], j["B"], j["C"], j["D"], j["E"]]
    arrays = b.queue_arrays(0.0)
    assert list(arrays.nodes) == [2, 3, 2, 2, 1] and list(arrays.wait) == [0.0] * 5
    assert b.start(j["A"])
    assert list(b.queue()) == [j["B"], j["C"], j["D"], j["E"]]
    assert not b.fits_now(j["B"])
    assert b.first_fit(j["B"]) == Fit(10.0, b.first_fit(j["B"]).machines)
    assert tuple(b.first_fit(j["B"]).machines) == (0, 1, 2)
    assert b.earliest_start(j["B"]) == 10.0
    assert b.reservation(j["B"]) is None  # the queries changed nothing
    assert b.shadow_time(j["B"]) == 10.0
    assert b.reservation(j["B"]).start == 10.0
    assert tuple(b.reservation(j["B"]).machines) == (0, 1, 2)
    assert b.fits_now(j["C"]) and not b.fits_now(j["C"], before=4.0)
    assert not b.fits_now(j["D"])
    assert b.earliest_start(j["D"]) == 15.0
    assert tuple(b.first_fit(j["D"]).machines) == (0, 1)
    assert b.fits_now(j["E"])
    assert b.start_fitting(np.array([j["D"], j["E"], j["C"]])) == 1
    assert b.started() == [j["A"], j["E"]]
    profile = b.profile()
    # [0, 10): machine 2 free; [10, 15): B on 0-2, E on 3; [15, 20): E;
    # from 20: all four
    assert list(profile.times) == [0.0, 10.0, 15.0, 20.0]
    assert list(profile.free) == [1, 0, 3, 4]
    assert tuple(profile.machines(0)) == (2,) and profile.free_at(12.0) == 0
    starts = b.finish()
    assert [(s.job, tuple(s.machines)) for s in starts] == [(j["A"], (0, 1)),
                                                            (j["E"], (3,))]
    assert b.waiting == 3


def test_a_job_holding_a_reservation():
    """The queries leave a reservation as it was; ``start`` gives it up;
    ``start_fitting`` skips its holder; ``clear_reservations`` drops it."""
    b, j = _blocks()
    b.begin(0.0)
    assert b.start(j["A"])
    assert b.reserve(j["C"]) == 0.0  # C fits now: reserved at now, on {2, 3}
    assert b.fits_now(j["C"]) and b.first_fit(j["C"]).start == 0.0
    assert tuple(b.reservation(j["C"]).machines) == (2, 3)
    assert not b.fits_now(j["E"])  # 1 machine for 20 s: C holds 2 and 3 now
    assert b.start_fitting(np.array([j["C"]])) == 0
    assert b.clear_reservations() == 1 and b.reservation(j["C"]) is None
    assert b.reserve(j["C"]) == 0.0
    assert b.start(j["C"]) and b.reservation(j["C"]) is None
    assert b.started() == [j["A"], j["C"]]


def test_released_are_the_jobs_submitted_since_the_last_pass():
    """A pass sees as released the jobs submitted since the previous one
    that still wait; ``ended`` says whether a job ended since then."""
    b, j = _blocks()
    b.begin(0.0)
    assert list(b.released()) == [j["A"], j["B"], j["C"], j["D"], j["E"]]
    assert b.start(j["A"]) and not b.ended()
    assert list(b.released()) == [j["B"], j["C"], j["D"], j["E"]]
    assert [s.job for s in b.finish()] == [j["A"]]
    b.begin(1.0)
    assert len(b.released()) == 0 and list(b.queue()) == [j["B"], j["C"], j["D"],
                                                          j["E"]]
    b.finish()
    b.complete(j["A"])
    b.begin(10.0)
    assert b.ended() and not b.stale() and len(b.released()) == 0
    b.finish()
    b.begin(11.0)
    assert not b.ended()


def test_the_head_waits_for_machines_held_by_a_job_of_unknown_length():
    """A job without a requested time holds its machines for ever in the
    plan: a job needing them never fits (``inf``, no reservation)."""
    jobs = (Job("long", 2, (5.0,), (0.0,), release=0.0, walltime=None),
            Job("wide", 3, (5.0,), (0.0,), release=0.0, walltime=5.0))
    instance = Instance("unknown", Platform((Partition(4, 1.0),)), jobs)
    b = Blocks(job_table(instance), ClusterView(4))
    b.submit(0)
    b.submit(1)
    b.begin(0.0)
    assert b.start_in_order(b.queue()) == 1
    assert b.first_fit(1) == Fit(math.inf, b.first_fit(1).machines)
    assert len(b.first_fit(1).machines) == 0
    assert b.shadow_time(1) == math.inf and b.reservation(1) is None


def test_bad_rjms_delay_is_an_option_error():
    b, _ = _blocks()
    with pytest.raises(OptionError, match="rjms_delay=-1"):
        Blocks(b.jobs, b.cluster, rjms_delay=-1)


def test_api_version_is_major_minor():
    major, minor = API_VERSION.split(".")
    assert int(major) >= 1 and int(minor) >= 0


# -- what the blocks cost per event ----------------------------------------------------
def test_events_cost_no_compiled_call_until_a_pass_reads_the_profile(python_easy,
                                                                     monkeypatch):
    """Submissions and ends are noted in Python: no compiled call. The
    queue is read without one; the profile is brought up to date within the
    first block of a pass that reads it, and a pass with no waiting job
    costs nothing: EASY makes at most 3 compiled calls per pass (start from
    the head, reserve it, backfill) plus one per pass that starts a job
    (:func:`~opt_sched.scheduling.blocks.kernel.finish`: the machines)."""
    calls = []
    for name in blocks_kernel.__all__:
        real = getattr(blocks_kernel, name)
        monkeypatch.setattr(blocks_kernel, name,
                            lambda *a, _real=real, _name=name: (calls.append(_name),
                                                                _real(*a))[1])
    # one job at a time (each ends before the next arrives), then a burst of
    # ten that queue
    jobs = [Job(f"a{i}", 2, (1.0,), (0.0,), release=10.0 * i, walltime=2.0)
            for i in range(20)]
    jobs += [Job(f"b{i}", 3, (4.0,), (0.0,), release=500.0, walltime=5.0)
             for i in range(10)]
    instance = Instance("lazy", Platform((Partition(4, 1.0),)), tuple(jobs))
    scheduler = python_easy()
    passes, during_events = [], []
    inner = scheduler.schedule
    scheduler.schedule = lambda now, blocks: (passes.append(now), inner(now, blocks))
    for event in ("submit", "complete"):
        method = getattr(scheduler, event)

        def noted(*args, _method=method):
            before = len(calls)
            _method(*args)
            during_events.append(len(calls) - before)

        setattr(scheduler, event, noted)
    schedule = replay(instance, scheduler)
    assert_feasible(instance, schedule)
    assert len(during_events) == 2 * len(jobs) and set(during_events) == {0}
    # the lone jobs' ends find an empty queue: no pass; the burst's first
    # job starts at once, the others one per end
    assert len(passes) == 20 + 10
    # each pass starts one job
    assert calls.count("finish") == len(passes) == len(jobs)
    assert len(calls) - calls.count("finish") <= 3 * len(passes)


# -- EASY on the blocks = the built-in EASY ------------------------------------------
SETTINGS = settings(max_examples=120, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(instance=online_workloads(max_jobs=14, unknown=True), kill=st.booleans(),
       delay=st.sampled_from([0.0, 5.0]))
def test_python_easy_is_the_builtin_easy_on_random_workloads(python_easy, instance,
                                                             kill, delay):
    """One partition, with or without I/O, estimates shorter or longer than
    the run time (overruns), jobs without one, dependencies, kills."""
    ours = replay(instance, python_easy(rjms_delay=delay), kill_at_walltime=kill)
    theirs = replay(instance, get_scheduler("easy", rjms_delay=delay),
                    kill_at_walltime=kill)
    assert_feasible(instance, ours)
    assert [(js.start, tuple(js.machines)) for js in ours.jobs] == \
        [(js.start, tuple(js.machines)) for js in theirs.jobs]


@SETTINGS
@given(instance=online_workloads(max_jobs=14, partitions=2, unknown=True, wide=True),
       kill=st.booleans())
def test_python_easy_and_conservative_on_several_partitions_are_feasible(
        python_easy, instance, kill):
    """Several partitions (jobs pre-mapped, wide machine sets). The built-in
    schedulers make a pass only on the partitions where something happened,
    these on every partition at every pass: the same decisions except when
    a job runs past its estimate on a partition where nothing happened."""
    conservative = load_example("python_conservative").PythonConservative
    for scheduler in (python_easy(), conservative()):
        assert_feasible(instance, replay(instance, scheduler, kill_at_walltime=kill))


@pytest.mark.parametrize("kernels", ["compiled", "python"])
def test_python_easy_reproduces_batsim_through_the_command_line(tmp_path, kernels):
    """``python examples/python_easy.py replay workload.json --scheduler
    python-easy --validate --out out_jobs.csv``, then the shared comparison
    tool against Batsim's own EASY output; the blocks compiled, and run as
    Python (``NUMBA_DISABLE_JIT=1``)."""
    folder = shared_data_dir() / "batsim-medium_late"
    tool = folder.parent.parent / "tools" / "compare_out_jobs.py"
    if not tool.is_file():
        pytest.skip(f"{tool} absent")
    out = tmp_path / "out_jobs.csv"
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "python_easy.py"), "replay",
         str(folder / "workload.json"), "--platform", str(folder / "platform.xml"),
         "--mmax-workload", "--scheduler", "python-easy", "--validate", "--out",
         str(out)], capture_output=True, text=True, timeout=600,
        env=dict(os.environ, NUMBA_DISABLE_JIT="1" if kernels == "python" else "0"))
    assert done.returncode == 0, done.stderr
    assert "validated feasible" in done.stdout
    assert f"kernels {kernels}" in done.stdout
    result = subprocess.run([sys.executable, str(tool), str(out),
                             str(folder / "easy" / "out_jobs.csv"), "--machines"],
                            capture_output=True, text=True)
    assert result.stdout.strip() == "starts 801/801, machines 801/801", result
    assert result.returncode == 0


@pytest.mark.parametrize("name", ["easy", "conservative"])
def test_python_schedulers_are_the_builtins_on_kth_sp2(name):
    from opt_sched.traces import convert_trace, read_swf

    path = shared_data_dir() / "swf" / "KTH-SP2.swf.gz"
    if not path.is_file():
        pytest.skip(f"{path} absent")
    trace, _ = read_swf(Path(path))
    instance = convert_trace(trace, "none").instance
    module = load_example(f"python_{name}")
    ours = replay(instance, getattr(module, f"Python{name.title()}")())
    theirs = replay(instance, get_scheduler(name))
    assert_feasible(instance, ours)
    same = sum(a.start == b.start and a.machines == b.machines
               for a, b in zip(ours.jobs, theirs.jobs))
    assert same == instance.num_jobs == 28481


def test_the_state_grows_when_many_jobs_start_at_once(python_easy):
    """90 one-machine jobs of distinct lengths start in one pass on 100
    machines, then 30 more queue: more allocations and profile slices than
    the state's first 64; the same schedule as the built-in EASY."""
    jobs = [Job(f"a{i}", 1, (10.0 + i,), (0.0,), release=0.0, walltime=10.0 + i)
            for i in range(90)]
    jobs += [Job(f"b{i}", 1 + i % 20, (5.0 + i,), (0.0,), release=1.0,
                 walltime=7.0 + i) for i in range(30)]
    instance = Instance("many", Platform((Partition(100, 1.0),)), tuple(jobs))
    scheduler = python_easy()
    ours = replay(instance, scheduler)
    assert_feasible(instance, ours)
    theirs = replay(instance, get_scheduler("easy"))
    assert [(js.start, tuple(js.machines)) for js in ours.jobs] == \
        [(js.start, tuple(js.machines)) for js in theirs.jobs]
    slices, slots = scheduler.blocks._st[6].shape[1], scheduler.blocks._st[2].shape[0]
    assert slices > 64 and slots > 64


# -- conservative backfilling on the blocks ------------------------------------------
@pytest.fixture(scope="module")
def python_conservative():
    return load_example("python_conservative").PythonConservative


def _a_job_that_never_fits() -> Instance:
    """Found by hypothesis: 6 machines, most jobs without a requested time
    (``inf``) and of length 0. At 5.5, j4 (5 machines for 0.5 s) never fits:
    j0 (4 machines, no requested time) is reserved on 0-3 from 7.5 for ever
    and j8 holds 0, 1 and 5 over [6.5, 7.5); so j4 has no reservation. At
    6.0 j5 is submitted and no job ended: batsched places only j5, and j4
    waits for the next end; placing every job without a reservation (this
    example's first version) started j4 first at 6.5, then j7 on machine 0
    instead of 5."""
    def job(i, nodes, compute=(0.0,), io=(0.0,), release=0.0, walltime=None,
            after=()):
        return Job(f"j{i}", nodes, compute, io, release=release, walltime=walltime,
                   after=after)

    jobs = (job(0, 4, release=1.0), job(1, 1), job(2, 3, release=0.5), job(3, 1),
            job(4, 5, release=1.0, walltime=0.5), job(5, 1, release=6.0), job(6, 1),
            job(7, 1, after=("j0",)),
            job(8, 3, (0.0, 0.0, 1.0), (0.0, 0.0, 0.0), release=1.0, walltime=1.0),
            job(9, 5, (1.0,), (2.0,)), job(10, 1, after=("j0",)), job(11, 1),
            job(12, 1, (0.5,), (0.5,)), job(13, 2, io=(0.5,), walltime=1.0))
    return Instance("online", Platform((Partition(6, 0.5),)), jobs)


@SETTINGS
@given(instance=online_workloads(max_jobs=14, unknown=True),
       kill=st.booleans(), delay=st.sampled_from([0.0, 5.0]))
@example(instance=_a_job_that_never_fits(), kill=False, delay=0.0)
def test_python_conservative_is_the_builtin_conservative(python_conservative,
                                                        instance, kill, delay):
    ours = replay(instance, python_conservative(rjms_delay=delay),
                  kill_at_walltime=kill)
    theirs = replay(instance, get_scheduler("conservative", rjms_delay=delay),
                    kill_at_walltime=kill)
    assert_feasible(instance, ours)
    assert [(js.start, tuple(js.machines)) for js in ours.jobs] == \
        [(js.start, tuple(js.machines)) for js in theirs.jobs]


def test_python_conservative_reproduces_batsim(python_conservative):
    from opt_sched.traces import parse_interval_set, read_batsim, trace_to_instance
    from opt_sched.traces.reading import TraceReading

    folder = shared_data_dir() / "batsim-medium_late"
    trace, _ = read_batsim(folder / "workload.json", folder / "platform.xml",
                           TraceReading(machines="workload"))
    instance = trace_to_instance(trace)
    schedule = replay(instance, python_conservative())
    assert_feasible(instance, schedule)
    ours = {js.id: js for js in schedule.jobs}
    with open(folder / "conservative" / "out_jobs.csv", newline="") as f:
        reference = list(csv.DictReader(f))
    assert len(reference) == 801
    same = sum(abs(ours[r["job_id"]].start - float(r["starting_time"])) <= 1e-6
               and frozenset(ours[r["job_id"]].machines)
               == frozenset(parse_interval_set(r["allocated_resources"]))
               for r in reference)
    assert same == 801
