"""Plug-ins from outside the package (issue 25, item 3): entry points.

A tiny plug-in distribution is *installed without pip*: the test writes a
package ``myplug/`` (a scheduler, "largest job first, no backfilling",
written against :mod:`opt_sched.scheduling.base`, and an I/O policy) and a
``myplug-0.1.dist-info/`` folder (``METADATA``, ``entry_points.txt``) into
a folder that it puts on the ``PYTHONPATH`` of real ``python -m opt_sched``
subprocesses. Nothing in opt_sched names the plug-in: ``replay``,
``compare``, ``solve`` and ``sweep --workers 2`` (new worker processes, a
local pool or a Dask local cluster, which load the plug-in on their own)
reach it, and each of its schedules is validated. A
broken plug-in is a one-line error, exit status 2, naming the entry point,
its distribution and its group.

No test here pins a registry's full list.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from opt_sched import Instance, read_instance
from opt_sched.validation import assert_feasible

from .paths import FIXTURES, REPO
from .plugin_helpers import (
    head_instance,
    install,
    install_package,
    load_source,
    opt_sched,
)

SCHEDULER = "largest-first"
POLICY = "heaviest-job"

SCHEDULER_SOURCE = '''
"""Largest job first, no backfilling."""

from __future__ import annotations

import math
from collections.abc import Sequence

from opt_sched.scheduling.base import Cluster, JobTable, Start


class LargestFirst:
    """Waiting jobs by decreasing node count (ties: submission order); each
    pass starts them in that order and stops at the first that does not fit."""

    name = "largest-first"

    def attach(self, jobs: JobTable, cluster: Cluster) -> None:
        self._jobs = jobs
        self._cluster = cluster
        self._waiting: list[int] = []

    def submit(self, now: float, job: int) -> None:
        self._waiting.append(job)

    def complete(self, now: float, job: int, killed: bool) -> None:
        pass

    def decide(self, now: float) -> Sequence[Start]:
        order = sorted(self._waiting, key=lambda j: -int(self._jobs.nodes[j]))
        free = {k: self._cluster.free_count(k)
                for k in range(self._cluster.num_partitions)}
        starts = []
        for j in order:
            k = max(0, int(self._jobs.partition[j]))
            if free[k] < int(self._jobs.nodes[j]):
                break
            free[k] -= int(self._jobs.nodes[j])
            starts.append(Start(j, partition=k))
        started = {s.job for s in starts}
        self._waiting = [j for j in self._waiting if j not in started]
        return starts

    def next_wakeup(self, now: float) -> float:
        return math.inf
'''

POLICY_SOURCE = '''
"""The waiting phase of the job with the most I/O time first."""

from opt_sched.simulation.policies import MODE_STATIC, PhaseTable, Policy


def heaviest_job_key(phases: PhaseTable):
    return -phases.per_job(phases.d)


HEAVIEST_JOB = Policy("heaviest-job", MODE_STATIC, heaviest_job_key,
                      "the job with the most I/O time (sum_j d_ij) first")
'''

MODEL_SOURCE = '''
"""The exclusive model under another name, and its validator rule."""

from opt_sched.execution.exclusive import Exclusive
from opt_sched.validation.io_rules.exclusive import ExclusiveIo


class ExclusiveCopy(Exclusive):
    name = "exclusive-copy"


class CopyRule(ExclusiveIo):
    execution = "exclusive-copy"
    name = "exclusive-copy-io"


RULE = CopyRule()
'''

METHODS_SOURCE = '''
"""The plug-in scheduler as a method entry of its own."""

from opt_sched.methods.replayed import replayed_entry

LARGEST_FIRST_ONLINE = replayed_entry(
    "largest-first-online", "largest job first, no backfilling", "largest-first")
'''

EXACT_SOURCE = '''
"""The CP-SAT model of IO-SCHED under a second solver name."""

from opt_sched.exact.registry import ExactModel

MODEL = ExactModel("io-sched", ("cpsat-copy",), "opt_sched.exact.io_sched.cpsat")
'''

MODEL = "exclusive-copy"
METHOD = "largest-first-online"
SOLVER = "cpsat-copy"

ENTRY_POINTS = f"""
[opt_sched.schedulers]
{SCHEDULER} = myplug.scheduler:LargestFirst

[opt_sched.io_policies]
{POLICY} = myplug.policy:HEAVIEST_JOB

[opt_sched.execution_models]
{MODEL} = myplug.model:ExclusiveCopy

[opt_sched.io_rules]
{MODEL} = myplug.model:RULE

[opt_sched.methods]
{METHOD} = myplug.methods:LARGEST_FIRST_ONLINE

[opt_sched.exact_models]
{SOLVER} = myplug.exact:MODEL
"""

@pytest.fixture
def plugin(tmp_path: Path) -> Path:
    """The folder holding the installed ``myplug`` distribution."""
    return install_package(tmp_path, "myplug", "A tiny opt_sched plug-in.",
                           {"scheduler": SCHEDULER_SOURCE, "policy": POLICY_SOURCE,
                            "model": MODEL_SOURCE, "methods": METHODS_SOURCE,
                            "exact": EXACT_SOURCE}, ENTRY_POINTS)


def largest_first_violations(instance: Instance, schedule) -> list[str]:
    """The pairs that break "largest first, no backfilling": job ``j``
    started at ``t`` while job ``i`` was waiting (``r_i <= t < S_i``) though
    ``i`` comes first (more nodes, or as many and submitted earlier).
    One partition (the head's)."""
    order = {job.id: n for n, job in enumerate(instance.jobs)}
    out = []
    for j in instance.jobs:
        t = schedule[j.id].start
        for i in instance.jobs:
            if i.id == j.id or not i.release <= t < schedule[i.id].start:
                continue
            first = (i.nodes > j.nodes or (
                i.nodes == j.nodes
                and (i.release, order[i.id]) < (j.release, order[j.id])))
            if first:
                out.append(f"{j.id} started at {t} before waiting {i.id}")
    return out


# -- replay ------------------------------------------------------------------------
def test_replay_runs_the_plugin_scheduler(plugin, tmp_path):
    from opt_sched.json_files import read_schedule
    from opt_sched.scheduling import replay

    path = head_instance(tmp_path)
    out = tmp_path / "largest.json"
    done = opt_sched(plugin, "replay", str(path), "--scheduler", SCHEDULER,
                     "--validate", "--quiet", "--json", "--schedule", str(out),
                     cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["scheduler"] == SCHEDULER
    assert report["validated"] is True
    instance = read_instance(path)
    schedule = read_schedule(out)
    assert_feasible(instance, schedule)
    assert largest_first_violations(instance, schedule) == []
    # the check can fail: first come, first served breaks it on this workload
    fcfs = replay(instance, "fcfs")
    assert largest_first_violations(instance, fcfs) != []


def test_replay_takes_the_plugin_io_policy(plugin, tmp_path):
    path = head_instance(tmp_path)
    done = opt_sched(plugin, "replay", str(path), "--scheduler", SCHEDULER,
                     "--io-policy", POLICY, "--validate", "--quiet", "--json",
                     cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["validated"] is True


# -- compare -----------------------------------------------------------------------
def test_compare_lists_the_plugin_policy_rows(plugin, tmp_path):
    from opt_sched.simulation import OnePackPlan, simulate

    tiny = REPO / "instances" / "tiny5.json"
    done = opt_sched(plugin, "compare", str(tiny), "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    by_policy: dict[str, set[str]] = {}
    for row in rows:
        by_policy.setdefault(row["policy"], set()).add(row["heuristic"])
    # every heuristic that runs under every policy ("/*") runs under the plug-in's
    assert by_policy.get(POLICY), sorted(by_policy)
    assert by_policy[POLICY] == by_policy["lowest-id"]
    # one row recomputed here, from the plug-in's policy object, and validated
    policy = load_source(plugin / "myplug" / "policy.py").HEAVIEST_JOB
    instance = read_instance(tiny)
    direct = simulate(instance, OnePackPlan(), policy)
    assert_feasible(instance, direct)
    row = next(r for r in rows
               if r["heuristic"] == "one-pack" and r["policy"] == POLICY)
    assert row["makespan"] == pytest.approx(direct.makespan(instance), rel=1e-12)


def test_compare_runs_the_plugin_scheduler_as_a_method(plugin, tmp_path):
    """The scheduler reaches ``compare`` with no method registration; the
    method plug-in that wraps it gives the same schedule."""
    from opt_sched.scheduling import replay

    path = head_instance(tmp_path)
    done = opt_sched(plugin, "compare", str(path), "--json", "--methods",
                     f"{SCHEDULER}/fifo, {SCHEDULER}/{POLICY}, {METHOD}/fifo",
                     cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert {(r["heuristic"], r["policy"]) for r in rows} == {
        (SCHEDULER, "fifo"), (SCHEDULER, POLICY), (METHOD, "fifo")}
    scheduler = load_source(plugin / "myplug" / "scheduler.py").LargestFirst
    instance = read_instance(path)
    direct = replay(instance, scheduler())
    assert_feasible(instance, direct)
    assert largest_first_violations(instance, direct) == []
    for name in (SCHEDULER, METHOD):
        row = next(r for r in rows if r["heuristic"] == name and r["policy"] == "fifo")
        assert row["makespan"] == pytest.approx(direct.makespan(instance), rel=1e-12)


# -- an execution model, its validator rule, an exact model ---------------------------
def test_replay_under_the_plugin_execution_model(plugin, tmp_path):
    """The plug-in model (the exclusive model renamed) runs under ``replay``,
    and ``--validate`` finds its rule (the ``opt_sched.io_rules`` plug-in)."""
    from opt_sched.json_files import read_schedule
    from opt_sched.scheduling import replay

    path = head_instance(tmp_path)
    out = tmp_path / "copy.json"
    done = opt_sched(plugin, "replay", str(path), "--scheduler", "fcfs",
                     "--execution", MODEL, "--validate", "--quiet", "--json",
                     "--schedule", str(out), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["execution"] == MODEL and report["validated"] is True
    schedule = read_schedule(out)
    assert schedule.execution == MODEL
    instance = read_instance(path)
    # the same phases as the exclusive model's, checked by its own rule here
    assert_feasible(instance, dataclasses.replace(schedule, execution="exclusive"))
    direct = replay(instance, "fcfs")
    ours = [t for j in instance.jobs for t in schedule[j.id].io_starts]
    theirs = [t for j in instance.jobs for t in direct[j.id].io_starts]
    assert ours and ours == pytest.approx(theirs, rel=1e-12)


def test_solve_with_the_plugin_solver(plugin, tmp_path):
    from opt_sched import solve

    tiny = REPO / "instances" / "tiny5.json"
    done = opt_sched(plugin, "solve", str(tiny), "--solver", SOLVER, "--json",
                     "--time-limit", "20", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["solver"] == SOLVER and report["status"] == "optimal"
    direct = solve(read_instance(tiny), solver="cpsat", time_limit=20)
    assert direct.status == "optimal"
    assert report["objective"] == pytest.approx(direct.objective)


# -- sweep with worker processes ---------------------------------------------------
@pytest.mark.parametrize("executor", [("--workers", "2"),
                                      ("--dask", "local", "--workers", "2")],
                         ids=["process-pool", "dask-local"])
def test_sweep_workers_load_the_plugin(plugin, tmp_path, executor):
    if executor[0] == "--dask":
        pytest.importorskip("distributed",
                            reason="Dask is the optional extra opt_sched[dask]")
    from opt_sched.scheduling import replay

    path = head_instance(tmp_path)
    methods = [SCHEDULER, f"{SCHEDULER}/{POLICY}"]
    spec = tmp_path / "plug.toml"
    spec.write_text(f'name = "plug"\n\n[[groups]]\nname = "trace"\n'
                    f'instances = ["{path.name}"]\n'
                    f"methods = [{', '.join(json.dumps(m) for m in methods)}]\n")
    done = opt_sched(plugin, "sweep", str(spec), "--out", str(tmp_path / "out"),
                     *executor, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    with open(tmp_path / "out" / "tasks.csv", newline="") as handle:
        rows = {row["method"]: row for row in csv.DictReader(handle)}
    assert sorted(rows) == sorted(methods)
    # "ok": the worker validated the schedule before measuring it
    assert {row["status"] for row in rows.values()} == {"ok"}, rows
    # a worker process, not the driver, ran them (it loaded the plug-in itself)
    workers = {int(row["worker"].rsplit(":", 1)[1]) for row in rows.values()}
    assert done.pid not in workers, (done.pid, workers)  # type: ignore[attr-defined]
    scheduler = load_source(plugin / "myplug" / "scheduler.py").LargestFirst
    instance = read_instance(path)
    direct = replay(instance, scheduler())
    assert_feasible(instance, direct)
    assert float(rows[SCHEDULER]["makespan"]) == pytest.approx(
        direct.makespan(instance), rel=1e-12)
    assert int(rows[SCHEDULER]["num_jobs"]) == instance.num_jobs


# -- broken plug-ins ---------------------------------------------------------------
BROKEN_CASES = {
    "import-error": ("[opt_sched.schedulers]\nbad-sched = broken.sched:Nope\n",
                     "bad-sched", "opt_sched.schedulers",
                     ["replay", "{trace}", "--scheduler", "easy", "--quiet"],
                     "No module named 'no_such_module_xyz'"),
    "wrong-kind": ("[opt_sched.io_policies]\n"
                   "not-a-policy = broken.kinds:not_a_policy\n",
                   "not-a-policy", "opt_sched.io_policies",
                   ["compare", "{tiny}", "--methods", "one-pack/not-a-policy"],
                   "is not an opt_sched.simulation.policies.Policy"),
}


@pytest.mark.parametrize("case", sorted(BROKEN_CASES))
def test_a_broken_plugin_is_one_line_exit_2(tmp_path, case):
    entry_points, name, group, words, why = BROKEN_CASES[case]
    site = install(tmp_path / "site", "broken", "0.2", {
        "broken/__init__.py": "",
        "broken/sched.py": "import no_such_module_xyz\n",
        "broken/kinds.py": "def not_a_policy():\n    return None\n"}, entry_points)
    args = [w.format(trace=FIXTURES / "traces" / "kth-sp2-head.swf",
                     tiny=REPO / "instances" / "tiny5.json") for w in words]
    done = opt_sched(site, *args, cwd=tmp_path)
    assert done.returncode == 2, (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    line = lines[0]
    assert line.startswith("opt-sched: error: plug-in ")
    for part in (repr(name), "distribution broken 0.2", group, why):
        assert part in line, line


# -- when groups are scanned -------------------------------------------------------
SCANNED = """
import sys
{code}
from opt_sched import plugins
print(sorted(plugins._STATE))
"""


def scanned(site: Path, code: str, cwd: Path) -> list[str]:
    """The registries whose group a fresh process loaded after ``code``."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), str(REPO)]))
    done = subprocess.run([sys.executable, "-c", SCANNED.format(code=code)], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    last = done.stdout.strip().splitlines()[-1]
    return json.loads(last.replace("'", '"'))


def test_builtin_lookups_scan_nothing_and_unknown_names_scan_once(plugin, tmp_path):
    builtin = ("from opt_sched.scheduling import get_scheduler\n"
               "from opt_sched.simulation.policies import get_policy\n"
               "from opt_sched import methods\n"
               "get_scheduler('easy'); get_policy('fifo')\n"
               "methods.method('make-pack + lpt/stretch')\n")
    assert scanned(plugin, builtin, tmp_path) == []
    found = ("from opt_sched.scheduling import get_scheduler\n"
             f"assert get_scheduler({SCHEDULER!r}).name == {SCHEDULER!r}\n")
    assert scanned(plugin, found, tmp_path) == ["schedulers"]


def test_help_imports_no_entry_point_machinery(plugin, tmp_path):
    code = ("sys.argv = ['opt-sched', '--help']\n"
            "from opt_sched.cli import main\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "assert 'importlib.metadata' not in sys.modules\n"
            "assert 'myplug' not in sys.modules\n")
    assert scanned(plugin, code, tmp_path) == []


# -- in-process: the loader, and schedulers as methods --------------------------------
def test_load_group_loads_once_and_repeats_its_error(tmp_path, monkeypatch):
    from opt_sched import plugins

    site = install(tmp_path / "site", "things", "1.0", {
        "things/__init__.py": "GOOD = 1\nBAD = 'one'\n"},
        "[opt_sched_test.good]\ngood = things:GOOD\n\n"
        "[opt_sched_test.bad]\nbad = things:BAD\n")
    monkeypatch.syspath_prepend(str(site))
    for key in ("good", "bad"):
        monkeypatch.setitem(plugins.GROUPS, f"test-{key}", plugins.Group(
            f"test-{key}", f"opt_sched_test.{key}", "an int"))
    monkeypatch.setattr(plugins, "_STATE", {})
    added: list[tuple[str, object]] = []

    def add(name: str, value: object) -> None:
        if not isinstance(value, int):
            raise TypeError(f"{plugins.describe(value)} is not an int")
        added.append((name, value))

    plugins.load_group("test-good", add)
    plugins.load_group("test-good", add)  # once per process
    assert added == [("good", 1)]
    with pytest.raises(plugins.PluginError) as first:
        plugins.load_group("test-bad", add)
    message = str(first.value)
    for part in ("'bad'", "distribution things 1.0", "opt_sched_test.bad",
                 "a builtins.str object is not an int"):
        assert part in message, message
    assert "\n" not in message
    with pytest.raises(plugins.PluginError) as again:  # the same error, kept
        plugins.load_group("test-bad", add)
    assert str(again.value) == message
    assert added == [("good", 1)]


def test_a_registered_scheduler_is_a_method_with_no_second_registration():
    from opt_sched import methods
    from opt_sched.scheduling import SCHEDULERS, register_scheduler, replay
    from opt_sched.scheduling.fcfs import FCFS

    name = "test-plugin-fcfs-copy"
    register_scheduler(name, FCFS)
    try:
        instance = read_instance(REPO / "instances" / "tiny5.json")
        method = methods.method(f"{name}/fifo")
        assert method.entry.name == name and name in methods.names()
        schedule = method.run(instance)
        assert_feasible(instance, schedule)
        direct = replay(instance, "fcfs")
        assert schedule.makespan(instance) == pytest.approx(direct.makespan(instance))
        assert {j.id: schedule[j.id].start for j in instance.jobs} == {
            j.id: direct[j.id].start for j in instance.jobs}
    finally:
        del SCHEDULERS[name]
        methods.unregister(name)


def test_method_entries_do_not_import_the_registry():
    grimp = pytest.importorskip("grimp")
    graph = grimp.build_graph("opt_sched")
    imported = graph.find_modules_directly_imported_by("opt_sched.methods.entries")
    assert "opt_sched.methods.registry" not in imported
    assert graph.find_shortest_chain(importer="opt_sched.methods.entries",
                                     imported="opt_sched.methods.registry") is None
