"""End-to-end tests of the ``opt-sched`` command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from opt_sched.cli import main

from .conftest import INSTANCES

TUCAN = str(INSTANCES / "tucan5.json")


def run_cli(*args: str) -> subprocess.CompletedProcess:
    """The real entry point in a fresh interpreter (``python -m opt_sched``)."""
    return subprocess.run([sys.executable, "-m", "opt_sched", *args],
                          capture_output=True, text=True, timeout=300)


def test_simulate_then_validate_then_corrupt(tmp_path):
    out = tmp_path / "s.json"
    done = run_cli("simulate", TUCAN, "--io-policy", "fifo", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert out.exists()
    done = run_cli("validate", TUCAN, str(out))
    assert done.returncode == 0, done.stdout + done.stderr

    # Corrupt one io_starts value so that two I/O phases overlap.
    data = json.loads(out.read_text())
    first, second = data["jobs"][0], data["jobs"][1]
    first["io_starts"][5] = second["io_starts"][3] + 0.5 * 5.0 / 1.0
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    done = run_cli("validate", TUCAN, str(bad))
    assert done.returncode == 1
    assert "exclusive-io" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr


def test_validate_json_lists_violations(tmp_path, capsys):
    out = tmp_path / "s.json"
    assert main(["simulate", str(INSTANCES / "tiny2.json"), "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    data["jobs"][1]["io_starts"][0] = data["jobs"][0]["io_starts"][0]
    out.write_text(json.dumps(data))
    capsys.readouterr()
    assert main(["validate", str(INSTANCES / "tiny2.json"), str(out), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["feasible"] is False
    assert any(v["rule"] == 5 for v in report["violations"])


@pytest.mark.parametrize("args,fragment", [
    (["simulate", "nope.json"], "nope.json: no such file"),
    (["simulate", TUCAN, "--io-policy", "random-walk"], "random-walk"),
    (["simulate", TUCAN, "--plan", "packs"], "--plan packs needs --plan-file"),
    (["simulate", TUCAN, "--plan", "teleport"], "unknown method 'teleport'"),
    (["simulate", TUCAN, "--plan", "make-pack(S=-1)+lpt"], "S='-1' must be > 0"),
    (["simulate", TUCAN, "--plan", "fcfs"], "online scheduler"),
    (["simulate", TUCAN, "--plan", "one-pack/fifo", "--io-policy", "lifo"],
     "leave out --io-policy"),
    (["validate", TUCAN, str(INSTANCES / "tiny2.json")], "schedule"),
    (["bounds"], "the following arguments are required"),
])
def test_bad_input_exits_2_with_one_line(args, fragment, capsys):
    with pytest.raises(SystemExit) as info:
        code = main(args)
        raise SystemExit(code)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert fragment in err
    assert "Traceback" not in err


def test_bad_instance_file_from_a_real_process(tmp_path):
    bad = tmp_path / "wide.json"
    bad.write_text(json.dumps({"platform": {"partitions": 1, "nodes": 2048},
                               "jobs": [{"id": "a7", "nodes": 4096, "compute": 1}]}))
    done = run_cli("bounds", str(bad))
    assert done.returncode == 2
    assert done.stderr.strip().endswith(
        "job 'a7': nodes=4096 exceeds every partition (max 2048)")
    assert "Traceback" not in done.stderr


def test_bounds_and_metrics_json(tmp_path, capsys):
    out = tmp_path / "s.json"
    assert main(["simulate", TUCAN, "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["bounds", TUCAN, "--json"]) == 0
    bounds = json.loads(capsys.readouterr().out)
    assert main(["metrics", TUCAN, str(out), "--json"]) == 0
    metrics = json.loads(capsys.readouterr().out)
    assert metrics["feasible"] is True
    assert bounds["best_makespan"] <= metrics["summary"]["makespan"] + 1e-6
    assert len(metrics["jobs"]) == 5


_ONE_SESSION = """
import sys
from opt_sched.cli import main
path = sys.argv[1]
for solver in sys.argv[2:]:
    code = main(["solve", path, "--solver", solver, "--time-limit", "20", "--json"])
    assert code == 0, (solver, code)
"""


@pytest.mark.parametrize("order", [("cpsat", "highs"), ("highs", "cpsat")])
def test_cpsat_and_highs_in_one_cli_session(order):
    """ortools and highspy cannot always share a process (google/or-tools
    #5246); one CLI process must still run both backends, in either order."""
    done = subprocess.run([sys.executable, "-c", _ONE_SESSION,
                           str(INSTANCES / "tiny5.json"), *order],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    results = [json.loads(chunk) for chunk in
               done.stdout.replace("}\n{", "}\x00{").split("\x00")]
    assert [r["solver"] for r in results] == list(order)
    assert all(r["status"] == "optimal" for r in results)
    assert results[0]["objective"] == pytest.approx(results[1]["objective"])


# -- the command registry, --json, the version --------------------------------------
def _subcommands(parser):
    import argparse

    action = next(a for a in parser._actions
                  if isinstance(a, argparse._SubParsersAction))
    return action.choices


def test_every_command_takes_json():
    from opt_sched.cli import make_parser
    from opt_sched.cli.registry import COMMANDS

    commands = _subcommands(make_parser())
    assert list(commands) == list(COMMANDS)
    assert set(COMMANDS) >= {"simulate", "validate", "bounds", "metrics", "generate",
                             "compare", "solve", "gap"}
    for name, sub in commands.items():
        assert "--json" in sub._option_string_actions, name


def test_a_new_command_is_one_module_plus_one_registry_line(monkeypatch, capsys):
    """What ``replay``, ``sweep`` and ``plot`` will do: a module in
    ``opt_sched.cli.commands`` and its name in ``COMMANDS``."""
    import types

    from opt_sched.cli import registry

    module = types.ModuleType("opt_sched.cli.commands.hello")
    module.NAME, module.HELP = "hello", "say hello"
    module.add_arguments = lambda p: p.add_argument("who")
    module.run = lambda args: print({"hello": args.who, "json": args.json}) or 0
    monkeypatch.setitem(sys.modules, "opt_sched.cli.commands.hello", module)
    monkeypatch.setattr(registry, "COMMANDS", (*registry.COMMANDS, "hello"))
    assert main(["hello", "world", "--json"]) == 0
    assert capsys.readouterr().out.strip() == "{'hello': 'world', 'json': True}"


def test_version_has_one_source():
    import re

    import opt_sched

    pyproject = (INSTANCES.parent / "pyproject.toml").read_text()
    project = pyproject.split("[project]", 1)[1].split("\n[", 1)[0]
    assert re.search(r"^version\s*=", project, re.M) is None  # not written twice
    assert 'dynamic = ["version"]' in project
    assert 'version = { attr = "opt_sched.__version__" }' in pyproject
    done = run_cli("--version")
    assert done.returncode == 0
    assert done.stdout.strip() == f"opt-sched {opt_sched.__version__}"


def test_entry_point_is_the_package_main():
    import opt_sched.cli

    pyproject = (INSTANCES.parent / "pyproject.toml").read_text()
    assert 'opt-sched = "opt_sched.cli:main"' in pyproject
    assert callable(opt_sched.cli.main)


def test_gap_on_the_instances_glob():
    """``opt-sched gap instances/*.json`` (the README's first command, as a
    new user types it): the schemas no longer match the glob."""
    import glob

    paths = sorted(glob.glob(str(INSTANCES / "*.json")))
    done = run_cli("gap", *paths, "--time-limit", "1", "--quiet", "--json")
    assert done.returncode == 0, done.stderr[-2000:]
    rows = json.loads(done.stdout)
    names = {json.loads(Path(p).read_text()).get("name") for p in paths}
    assert {r["instance"] for r in rows} == names
    assert all(r["gap"] is None or r["gap"] >= 0 for r in rows)


# -- fixed on the 'registry' branch (heuristics declare what they support) ---------


def test_compare_on_a_planning_instance_skips_what_does_not_apply():
    done = run_cli("compare", str(INSTANCES / "planning4.json"), "--plain")
    assert done.returncode == 0, done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr


NO_IO = {"name": "noio", "platform": {"partitions": 1, "nodes": 4},
         "jobs": [{"id": "a", "nodes": 2, "compute": 3},
                  {"id": "b", "nodes": 2, "compute": 5}]}


@pytest.mark.parametrize("command", [["compare"], ["gap", "--time-limit", "5"]])
def test_an_instance_without_io_is_not_an_error(command, tmp_path):
    path = tmp_path / "noio.json"
    path.write_text(json.dumps(NO_IO))
    done = run_cli(command[0], str(path), *command[1:], "--plain")
    assert done.returncode == 0, done.stderr
    assert "sensibility" not in done.stderr
