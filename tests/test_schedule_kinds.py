"""A schedule kind from outside the package (:mod:`opt_sched.schedule_kinds`):
an execution model whose schedules are not HPC schedules brings its own
checker, and ``opt-sched validate`` reaches it through the entry-point group
``opt_sched.schedule_kinds`` alone, as it reaches seed 004's gang schedules.
The plug-in is installed without pip (:func:`tests.test_plugins.install`)
and run in a real process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from opt_sched.schedule_kinds import ScheduleKind, kind_of_file, kind_of_schedule

from .test_plugins import install, opt_sched

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


@pytest.fixture
def plugin(tmp_path: Path) -> Path:
    return install(tmp_path / "site", "tokenkind", "0.1",
                   {"tokenkind/__init__.py": '"""A schedule kind."""\n',
                    "tokenkind/kind.py": KIND_SOURCE},
                   "[opt_sched.schedule_kinds]\ntokens = tokenkind.kind:KIND\n")


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
