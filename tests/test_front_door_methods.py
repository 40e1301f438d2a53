"""Every front door reads the method registry (issue 25, item 2).

Real subprocesses of ``python -m opt_sched``:

- ``compare`` on a generated seed 000 workload (``mira``/``bn``) lists
  seed 000's LS, Random, Max and Char beside seed 003's heuristics; the
  expected rows are computed from the registry (:func:`opt_sched.methods.
  applicable`), and each row's schedule is rebuilt here and validated;
- ``compare --methods`` runs only the specs given; a bad spec is exit 2
  with one line;
- the online schedulers ``fcfs``, ``easy``, ``conservative`` are compare
  defaults on a trace workload, not on the batch ``tucan5``;
- ``replay --methods`` replays several registry methods on one trace, one
  row each, equal to the method run directly (validated), and refuses
  outputs of one schedule with several methods;
- ``gap --methods`` and ``sweep --methods``.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from opt_sched import methods, read_instance
from opt_sched.metrics import summary
from opt_sched.validation import assert_feasible

from .paths import FIXTURES, INSTANCES, REPO

HEAD = FIXTURES / "traces" / "kth-sp2-head.swf"


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """``python -m opt_sched ARGS`` in a fresh interpreter."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, "-m", "opt_sched", *args], cwd=cwd or REPO,
                          env=env, capture_output=True, text=True, timeout=300)


def one_line_error(done: subprocess.CompletedProcess) -> str:
    """Exit 2 with exactly one stderr line, no traceback; that line."""
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    return lines[0]


@pytest.fixture(scope="module")
def mira(tmp_path_factory) -> Path:
    """A 20-job seed 000 workload (``generate --protocol mira --io-profile bn``)."""
    path = tmp_path_factory.mktemp("mira") / "w.json"
    done = cli("generate", "--protocol", "mira", "--io-profile", "bn", "--jobs", "20",
               "--out", str(path))
    assert done.returncode == 0, done.stderr
    return path


@pytest.fixture(scope="module")
def trace_instance(tmp_path_factory) -> Path:
    """The bundled KTH-SP2 head as an instance file (jobs released at their
    submission times: a trace workload)."""
    path = tmp_path_factory.mktemp("trace") / "head.json"
    done = cli("replay", str(HEAD), "--scheduler", "fcfs", "--quiet",
               "--instance-out", str(path))
    assert done.returncode == 0, done.stderr
    return path


def compare_rows(path: Path, *extra: str) -> list[dict]:
    done = cli("compare", str(path), "--json", *extra)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def expected_pairs(instance) -> list[tuple[str, str]]:
    """(heuristic, policy) of compare's default rows, from the registry: a
    policy-taking heuristic under every policy, an online method as its
    default spec names it."""
    from opt_sched.simulation.policies import names

    chosen, _ = methods.applicable(instance)
    out: list[tuple[str, str]] = []
    for m in chosen:
        if m.entry.online:
            out.append((m.heuristic, m.policy))
        else:
            out.extend((m.heuristic, p) for p in names())
    return list(dict.fromkeys(out))


def check_rows_rebuilt(instance, rows: list[dict]) -> None:
    """Each row's method run here gives a schedule the validator accepts,
    with the row's makespan."""
    for row in rows:
        method = methods.method(f"{row['heuristic']}/{row['policy']}")
        schedule = method.run(instance)
        assert_feasible(instance, schedule)
        assert row["makespan"] == pytest.approx(schedule.makespan(instance),
                                                rel=1e-12), row


def test_compare_on_mira_bn_lists_seed_000_strategies(mira):
    instance = read_instance(mira)
    rows = compare_rows(mira)
    pairs = [(r["heuristic"], r["policy"]) for r in rows]
    assert sorted(pairs) == sorted(expected_pairs(instance))
    heuristics = {h for h, _ in pairs}
    # seed 000's LS, Random, Max and Char beside seed 003's heuristics
    for wanted in ("ls", "packs(order=random)", "packs(order=max)",
                   "packs(order=char-dec)", "make-pack(S=1)+lpt",
                   "make-pack(S=alpha)+lpt"):
        assert wanted in heuristics, wanted
    assert [p for h, p in pairs if h == "ls"] == ["fifo"]
    # batch online schedulers of traces are not defaults on a batch
    assert not heuristics & {"fcfs", "easy", "conservative"}
    seed000 = [r for r in rows if not r["heuristic"].startswith(("make-pack",
                                                                 "first-fit"))]
    check_rows_rebuilt(instance, seed000)
    make_pack = [r for r in rows if r["heuristic"] == "make-pack(S=1)+lpt"][:2]
    check_rows_rebuilt(instance, make_pack)


def test_compare_methods_runs_only_the_specs_given(mira):
    instance = read_instance(mira)
    rows = compare_rows(mira, "--methods", "ls/fifo")
    assert [(r["heuristic"], r["policy"]) for r in rows] == [("ls", "fifo")]
    check_rows_rebuilt(instance, rows)
    from opt_sched.simulation.policies import names

    rows = compare_rows(mira, "--methods",
                        "packs(order=max)/fifo, make-pack(S=1)+lpt/*")
    assert [(r["heuristic"], r["policy"]) for r in rows] == (
        [("packs(order=max)", "fifo")]
        + [("make-pack(S=1)+lpt", p) for p in names()])


def test_compare_bad_spec_is_one_line_exit_2(mira):
    line = one_line_error(cli("compare", str(mira), "--methods",
                              "ls/fifo, packs(order=nope)/fifo"))
    assert "packs(order=nope)" in line and "nope" in line
    line = one_line_error(cli("compare", str(mira), "--methods", "no-such-method"))
    assert "no-such-method" in line


def test_online_schedulers_are_defaults_on_traces_only(trace_instance):
    instance = read_instance(trace_instance)
    assert len({job.release for job in instance.jobs}) > 1
    rows = compare_rows(trace_instance)
    pairs = [(r["heuristic"], r["policy"]) for r in rows]
    assert sorted(pairs) == sorted(expected_pairs(instance))
    online = [r for r in rows if r["heuristic"] in ("fcfs", "easy", "conservative")]
    assert sorted(r["heuristic"] for r in online) == ["conservative", "easy", "fcfs"]
    check_rows_rebuilt(instance, online)
    tucan = compare_rows(INSTANCES / "tucan5.json")
    assert not {r["heuristic"] for r in tucan} & {"fcfs", "easy", "conservative"}
    # the registry's own predicate decides, for any entry
    tucan5 = read_instance(INSTANCES / "tucan5.json")
    for name in ("fcfs", "easy", "conservative"):
        entry = methods.get_entry(name)
        assert entry.default_for(tucan5) is not None
        assert entry.default_for(instance) is None


def test_replay_methods_one_row_each(tmp_path):
    inst = tmp_path / "inst.json"
    done = cli("replay", str(HEAD), "--methods", "fcfs, easy(order=sjf)",
               "--io-profile", "bn", "--alpha", "0.5", "--validate", "--json",
               "--instance-out", str(inst))
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    rows = report["rows"]
    assert [r["method"] for r in rows] == ["fcfs/fifo", "easy(order=sjf)/fifo"]
    assert all(r["validated"] for r in rows)
    instance = read_instance(inst)
    assert report["jobs"] == instance.num_jobs
    for row in rows:
        schedule = methods.method(row["method"]).run(instance)
        assert_feasible(instance, schedule)
        direct = summary(instance, schedule).to_dict()
        for key in ("makespan", "mean_wait", "max_wait"):
            assert row[key] == pytest.approx(direct[key], rel=1e-12), (row, key)
    # --methods fcfs and --scheduler fcfs replay the same schedule
    alone = cli("replay", str(HEAD), "--scheduler", "fcfs", "--io-profile", "bn",
                "--alpha", "0.5", "--json")
    assert alone.returncode == 0, alone.stderr
    assert json.loads(alone.stdout)["makespan"] == pytest.approx(
        rows[0]["makespan"], rel=1e-12)


def test_replay_methods_outputs_of_one_schedule(tmp_path):
    out = tmp_path / "jobs.csv"
    line = one_line_error(cli("replay", str(HEAD), "--methods", "fcfs, easy",
                              "--out", str(out)))
    assert "--out" in line and "2 methods" in line
    assert not out.exists()
    done = cli("replay", str(HEAD), "--methods", "easy", "--out", str(out), "--quiet")
    assert done.returncode == 0, done.stderr
    with open(out, newline="") as handle:
        assert len(list(csv.DictReader(handle))) == 40


def test_replay_methods_refuses_scheduler_options():
    line = one_line_error(cli("replay", str(HEAD), "--methods", "easy",
                              "--order", "sjf"))
    assert line.startswith("opt-sched: error: --order") and "easy(order=sjf)" in line
    line = one_line_error(cli("replay", str(HEAD), "--methods", "easy",
                              "--scheduler", "fcfs"))
    assert "--scheduler or --methods" in line
    line = one_line_error(cli("replay", str(HEAD), "--methods", "easy(order=nope)"))
    assert "nope" in line
    # ls replays seed 000's batch only: the reason, not a traceback
    line = one_line_error(cli("replay", str(HEAD), "--methods", "ls"))
    assert "ls" in line and "released" in line


def test_gap_methods_takes_specs():
    deps5 = INSTANCES / "deps5.json"
    specs = "first-fit+lpt/fifo, make-pack(S=1)+lpt/*"
    done = cli("gap", str(deps5), "--methods", specs, "--time-limit", "5", "--quiet",
               "--json")
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    wanted = [m.spec for m in methods.expand(specs)]
    assert [r["method"] for r in rows[1:]] == wanted
    instance = read_instance(deps5)
    for row in rows[1:3]:
        schedule = methods.method(row["method"]).run(instance)
        assert_feasible(instance, schedule)
        assert row["value"] == pytest.approx(schedule.makespan(instance), rel=1e-12)
    line = one_line_error(cli("gap", str(deps5), "--methods", "ls/nope",
                              "--time-limit", "1", "--quiet"))
    assert "ls/nope" in line


def test_sweep_methods_replaces_the_groups_methods(tmp_path, trace_instance):
    (tmp_path / "head.json").write_bytes(trace_instance.read_bytes())
    spec = tmp_path / "online.toml"
    spec.write_text('name = "online"\n\n[[groups]]\nname = "trace"\n'
                    'instances = ["head.json"]\nmethods = ["conservative"]\n')
    done = cli("sweep", str(spec), "--out", str(tmp_path / "out"), "--workers", "1",
               "--quiet", "--methods", "fcfs, easy(order=sjf)")
    assert done.returncode == 0, done.stderr
    with open(tmp_path / "out" / "tasks.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    instance = read_instance(trace_instance)
    assert sorted(methods.method(r["method"]).spec for r in rows) == sorted(
        m.spec for m in methods.expand("fcfs, easy(order=sjf)"))
    for row in rows:
        assert row["status"] == "ok", row
        schedule = methods.method(row["method"]).run(instance)
        assert_feasible(instance, schedule)
        assert float(row["makespan"]) == pytest.approx(schedule.makespan(instance),
                                                       rel=1e-12)
    line = one_line_error(cli("sweep", str(spec), "--out", str(tmp_path / "bad"),
                              "--workers", "1", "--methods", "fcfs(x=1)"))
    assert "fcfs(x=1)" in line or "x" in line
