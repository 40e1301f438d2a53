"""A schedule kind from outside the package (:mod:`opt_sched.schedule_kinds`):
an execution model whose schedules are not HPC schedules brings its own
checker, and ``opt-sched validate`` reaches it through the entry-point group
``opt_sched.schedule_kinds`` alone, as it reaches seed 004's gang schedules;
its scheduler reaches ``opt-sched replay`` through a replay door
(:mod:`opt_sched.cli.replay_doors`, group ``opt_sched.replay_doors``). The
plug-in is installed without pip (:func:`tests.plugin_helpers.install`) and
run in real processes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from opt_sched.schedule_kinds import ScheduleKind, kind_of_file, kind_of_schedule

from .plugin_helpers import install, opt_sched

KIND_SOURCE = '''
"""Tokens: a workload lists tokens; a schedule must serve each exactly once."""

import json
from dataclasses import dataclass

from opt_sched.schedule_kinds import ScheduleKind


@dataclass
class Missing:
    token: str

    def to_dict(self):
        return {"rule": "served once", "token": self.token}

    def __str__(self):
        return f"token {self.token} not served exactly once"


def is_workload(path):
    try:
        return json.loads(path.read_text()).get("format") == "tokens"
    except (OSError, ValueError, AttributeError):
        return False


def validate_files(workload, schedule, rel_tol):
    tokens = json.loads(workload.read_text())["tokens"]
    served = json.loads(schedule.read_text())["served"]
    return [Missing(t) for t in tokens if served.count(t) != 1]


def measure(workload, schedule):
    return {"served": len(schedule)}


KIND = ScheduleKind("tokens", is_workload, validate_files, measure)
'''

DOOR_SOURCE = '''
"""A replay door: ``serve-all`` serves every token once, in the order asked."""

import json
from pathlib import Path

from opt_sched.cli.replay_doors import ReplayDoor


def add_options(group):
    group.add_argument("--token-order", choices=("given", "reverse"), default="given")


def run(args):
    tokens = json.loads(Path(args.trace).read_text())["tokens"]
    served = tokens if args.token_order == "given" else tokens[::-1]
    Path(args.schedule).write_text(json.dumps({"served": served}))
    print(json.dumps({"served": served}))
    return 0


DOOR = ReplayDoor("tokens", "token serving", "token", lambda: ("serve-all",),
                  add_options, frozenset({"token_order"}),
                  lambda name: frozenset({"token_order", "schedule", "quiet"}), run)
'''


@pytest.fixture
def plugin(tmp_path: Path) -> Path:
    return install(tmp_path / "site", "tokenkind", "0.1",
                   {"tokenkind/__init__.py": '"""A schedule kind."""\n',
                    "tokenkind/kind.py": KIND_SOURCE,
                    "tokenkind/door.py": DOOR_SOURCE},
                   "[opt_sched.schedule_kinds]\ntokens = tokenkind.kind:KIND\n"
                   "[opt_sched.replay_doors]\ntokens = tokenkind.door:DOOR\n")


@pytest.mark.parametrize("served, feasible", [(["a", "b"], True), (["a", "a"], False)])
def test_validate_reaches_a_plugin_kind(plugin: Path, tmp_path: Path,
                                        served: list[str], feasible: bool) -> None:
    workload = tmp_path / "w.json"
    workload.write_text(json.dumps({"format": "tokens", "tokens": ["a", "b"]}))
    schedule = tmp_path / "s.json"
    schedule.write_text(json.dumps({"served": served}))
    done = opt_sched(plugin, "validate", str(workload), str(schedule), "--json",
                     cwd=tmp_path)
    assert done.returncode == (0 if feasible else 1), done.stderr
    report = json.loads(done.stdout)
    assert report["feasible"] is feasible
    assert report["execution"] == "tokens"
    expected = [] if feasible else [{"rule": "served once", "token": t}
                                    for t in ("a", "b")]  # twice, never
    assert report["violations"] == expected


def test_an_hpc_file_and_schedule_have_no_kind(tmp_path: Path) -> None:
    from opt_sched import Schedule

    from .paths import REPO

    assert kind_of_file(REPO / "instances" / "tiny5.json") is None
    assert kind_of_schedule(Schedule(jobs=(), execution="exclusive")) is None


def test_gang_registers_through_the_group() -> None:
    from opt_sched.gang.serverless import EXECUTION

    class Record:
        execution = EXECUTION

    kind = kind_of_schedule(Record())
    assert isinstance(kind, ScheduleKind) and kind.name == EXECUTION


def test_replay_reaches_a_plugin_door(plugin: Path, tmp_path: Path) -> None:
    """The door's scheduler and option join ``replay``; its schedule passes
    the kind's validator; its option is refused for a space-sharing
    scheduler, and a space-sharing option for its scheduler, each naming who
    takes it."""
    workload = tmp_path / "w.json"
    workload.write_text(json.dumps({"format": "tokens", "tokens": ["a", "b", "c"]}))
    schedule = tmp_path / "s.json"
    done = opt_sched(plugin, "replay", str(workload), "--scheduler", "serve-all",
                     "--token-order", "reverse", "--schedule", str(schedule),
                     cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["served"] == ["c", "b", "a"]
    checked = opt_sched(plugin, "validate", str(workload), str(schedule), "--json",
                        cwd=tmp_path)
    assert checked.returncode == 0 and json.loads(checked.stdout)["feasible"]
    wrong = opt_sched(plugin, "replay", str(workload), "--scheduler", "easy",
                      "--token-order", "reverse", cwd=tmp_path)
    assert wrong.returncode == 2
    assert wrong.stderr.count("\n") == 1
    assert "the token scheduler serve-all" in wrong.stderr
    foreign = opt_sched(plugin, "replay", str(workload), "--scheduler", "serve-all",
                        "--io-profile", "bn", cwd=tmp_path)
    assert foreign.returncode == 2 and "space-sharing" in foreign.stderr
