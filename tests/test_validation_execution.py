"""The execution-model seam of the validator (SPEC §10): rule 5 is chosen by
``schedule.execution`` from ``IO_RULES``; a model also gives the I/O ends the
other rules use.

A toy model registered from this file alone shows that adding a model is one
class plus one registry entry: under it, I/O phases may overlap and end
where the schedule states, no sooner than at full bandwidth.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import numpy as np
import pytest

from opt_sched import ScheduleFormatError, read_instance, schedule_to_dict
from opt_sched.validation import IO_RULES, IoPhases, IoRule, io_rule, validate
from opt_sched.validation.io_rules.exclusive import ExclusiveIo
from opt_sched.validation.report import IO_RULE, format_time
from opt_sched.validation.table import phase_label

from .conftest import INSTANCES, TINY2_FIFO

A, B = TINY2_FIFO.jobs


class StatedEndsIo:
    """Toy model: an I/O phase ends where stated, at least ``v / b`` later."""

    execution = "toy"
    name = "toy-io"

    def io_ends(self, instance, schedule, phases: IoPhases) -> np.ndarray:
        missing = phases.started & np.isnan(phases.stated_end)
        if missing.any():
            raise ScheduleFormatError("toy model: every I/O phase states its end")
        return np.where(phases.started, phases.stated_end, phases.start)

    def check(self, instance, schedule, table, tol, out) -> None:
        fastest = table.o_start + table.o_volume / table.o_bandwidth
        bad = np.flatnonzero(table.o_started & (table.o_end < fastest - tol.io))
        out.found(IO_RULE, len(bad))
        for g in bad[:out.room(IO_RULE)]:
            label = phase_label(table, g, "io")
            out.add(IO_RULE, f"{label} ends at t={format_time(table.o_end[g])}, "
                    f"faster than full bandwidth", jobs=(table.ids[table.job[g]],),
                    phases=(label,), time=table.o_end[g])


@pytest.fixture
def toy(monkeypatch):
    monkeypatch.setitem(IO_RULES, "toy", StatedEndsIo())


# tiny2 with a and b doing their first I/O together, each at half speed:
# a io[0] [2, 8) (volume 3), b io[0] [1, 5) (volume 2); then as FIFO shifted.
SHARED = (dataclasses.replace(A, compute_starts=(0.0, 8.0), io_starts=(2.0, 10.0),
                              io_ends=(8.0, 13.0)),
          dataclasses.replace(B, compute_starts=(0.0, 5.0), io_starts=(1.0, 6.0),
                              io_ends=(5.0, 8.0)))


def test_the_default_model_is_exclusive():
    assert io_rule("exclusive").name == "exclusive-io"
    assert isinstance(io_rule("exclusive"), ExclusiveIo)
    for name, rule in IO_RULES.items():
        assert isinstance(rule, IoRule) and rule.execution == name


def test_unknown_model_is_a_format_error_naming_it(tiny):
    with pytest.raises(ScheduleFormatError, match="execution='warp' is not a known"):
        validate(tiny, dataclasses.replace(TINY2_FIFO, execution="warp"))


def test_cli_unknown_model_exits_2_naming_it(tmp_path):
    path = INSTANCES / "tiny2.json"
    data = schedule_to_dict(TINY2_FIFO, read_instance(path))
    data["execution"] = "warp"
    schedule = tmp_path / "warp.json"
    schedule.write_text(json.dumps(data))
    done = subprocess.run([sys.executable, "-m", "opt_sched", "validate", str(path),
                           str(schedule)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "execution='warp'" in done.stderr and done.stderr.count("\n") == 1


def test_a_registered_model_replaces_rule_5(tiny, toy):
    sched = dataclasses.replace(TINY2_FIFO, jobs=SHARED, execution="toy")
    report = validate(tiny, sched)
    assert report.feasible, report.format()
    assert report.execution == "toy" and report.rule_names[5] == "toy-io"
    # completions follow the stated I/O ends: a ends at 13, b at 8
    assert report.horizon == 13.0 == sched.makespan(tiny)
    # the same phases under exclusive I/O: the stated ends are wrong (rule 2)
    # and the first I/O phases overlap (rule 5)
    exclusive = validate(tiny, dataclasses.replace(sched, execution="exclusive"))
    assert {r for r, n in exclusive.by_rule().items() if n} == {2, 5}


def test_the_model_reports_as_rule_5_under_its_name(tiny, toy):
    # b io[0] stated to end at 2: volume 2 at bandwidth 1 needs until 3
    fast = (SHARED[0], dataclasses.replace(SHARED[1], io_ends=(2.0, 8.0)))
    report = validate(tiny, dataclasses.replace(TINY2_FIFO, jobs=fast, execution="toy"))
    assert {r for r, n in report.by_rule().items() if n} == {5}
    (v,) = report.violations
    assert v.message.startswith("rule 5 toy-io: b:io[0] ends at t=2")
    assert "rule 5 toy-io: 1" in report.summary_line()


def test_other_rules_use_the_model_io_ends(tiny, toy):
    # a computes again at 7, before its stated I/O end 8 (but after 2 + 3 = 5)
    early = (dataclasses.replace(SHARED[0], compute_starts=(0.0, 7.0)), SHARED[1])
    report = validate(tiny, dataclasses.replace(TINY2_FIFO, jobs=early,
                                                execution="toy"))
    assert {r for r, n in report.by_rule().items() if n} == {3}
    assert report.violations[0].phases == ("a:io[0]", "a:compute[1]")
