"""gap_table: inputs checked before solving, rows written as they finish
(Ctrl-C keeps them), workers, skipped methods, and a gap never negative."""

from __future__ import annotations

import json
import math
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from opt_sched.errors import (
    BoundViolationError,
    InstanceError,
    OutputError,
    SpecError,
)
from opt_sched.experiments.gap import COLUMNS, gap_table
from opt_sched.objectives import RTOL
from opt_sched.objectives import gap_or_nan as relative_gap

from .conftest import INSTANCES, REPO

QUICK = ["tiny2", "tiny5", "deps5", "hetero6"]  # CP-SAT proves these optimal


def _copy(tmp_path: Path, names: list[str]) -> list[Path]:
    out = []
    for name in names:
        shutil.copy(INSTANCES / f"{name}.json", tmp_path / f"{name}.json")
        out.append(tmp_path / f"{name}.json")
    return out


@pytest.fixture
def no_solving(monkeypatch):
    """Fail the test if anything reaches the exact solver."""
    import opt_sched.exact as exact

    def refuse(*args, **kwargs):
        raise AssertionError("the solver was called before every input was checked")

    monkeypatch.setattr(exact, "solve", refuse)


def test_a_malformed_file_is_named_before_any_solving(tmp_path, no_solving):
    good = _copy(tmp_path, ["tiny2", "deps5"])
    bad = tmp_path / "broken.json"
    bad.write_text('{"name": "x", "platform": {"partitions": 1, "nodes": 4}, '
                   '"jobs": [{"id": "a", "nodes": 9, "compute": 1}]}')
    with pytest.raises(InstanceError) as info:
        gap_table([good[0], bad, good[1]], progress=False)
    message = str(info.value)
    assert message.startswith(str(bad)) and "nodes=9" in message
    assert "\n" not in message
    with pytest.raises(InstanceError, match=r"broken\.json"):
        gap_table([tmp_path], progress=False)  # the folder holds it too


def test_a_missing_file_and_a_bad_spec_are_named_before_any_solving(tmp_path,
                                                                    no_solving):
    good = _copy(tmp_path, ["tiny2"])
    with pytest.raises(InstanceError, match=r"nope\.json"):
        gap_table([good[0], tmp_path / "nope.json"], progress=False)
    with pytest.raises(SpecError, match="unknown method 'best-fit'"):
        gap_table(good, methods="one-pack/fifo,best-fit", progress=False)
    with pytest.raises(OutputError, match="cannot write"):
        gap_table(good, out=tmp_path / "no" / "such" / "dir.csv", progress=False)
    with pytest.raises(OutputError, match="is a folder"):
        gap_table(good, out=tmp_path, progress=False)


def test_cli_gap_with_a_malformed_file_exits_2_with_one_line(tmp_path, no_solving,
                                                             capsys):
    from opt_sched.cli import main

    good = _copy(tmp_path, ["tiny2"])
    bad = tmp_path / "broken.json"
    bad.write_text("{not json")
    assert main(["gap", str(good[0]), str(bad), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "broken.json" in err


def _strip(table: pd.DataFrame) -> pd.DataFrame:
    return table.drop(columns=["seconds"]).reset_index(drop=True)


def test_rows_are_written_and_ordered_and_workers_agree(tmp_path):
    paths = _copy(tmp_path, QUICK)
    # the solver named: the default (``auto``) may pick another solver row
    serial = gap_table(paths, time_limit=10, solver="cpsat", progress=False,
                       out=tmp_path / "serial.csv")
    pooled = gap_table(list(reversed(paths)), time_limit=10, solver="cpsat",
                       progress=False, workers=2, out=tmp_path / "pooled.csv")
    assert tuple(serial.columns) == COLUMNS
    assert (serial["exact_status"] == "optimal").all()
    # the final order: instances as given, the solver row first
    assert list(dict.fromkeys(serial["instance"])) == QUICK
    assert list(dict.fromkeys(pooled["instance"])) == list(reversed(QUICK))
    firsts = serial.groupby("instance", sort=False)["method"].first()
    assert (firsts == "cpsat").all()
    by_name = pooled.set_index(["instance", "method"]).loc[
        list(zip(serial["instance"], serial["method"]))].reset_index()
    # seen twice under a load of 6+ (this session): the pooled exact row of
    # an HPC-IO instance at its warm start's value; say how it ended
    differ = by_name["value"].to_numpy() != serial["value"].to_numpy()
    shown = ["value", "exact_status", "seconds"]
    assert not differ.any(), pd.concat(
        [serial.loc[differ, ["instance", "method", *shown]],
         by_name.loc[differ, shown].add_prefix("pooled_")], axis=1).to_string()
    pd.testing.assert_frame_equal(_strip(by_name)[list(COLUMNS[:-1])],
                                  _strip(serial)[list(COLUMNS[:-1])])
    for name, table in (("serial.csv", serial), ("pooled.csv", pooled)):
        back = pd.read_csv(tmp_path / name)
        assert list(back["method"]) == list(table["method"])
        assert list(back["instance"]) == list(table["instance"])
        assert (back["value"] - table["value"]).abs().max() == 0  # full precision
    heur = serial[serial["method"] != "cpsat"]
    assert (heur["gap"] >= 0).all()
    assert (heur["value"] >= heur["lower_bound"]).all()


def test_ctrl_c_keeps_every_finished_row(tmp_path, monkeypatch):
    """The second solve is interrupted: the CSV holds the header and every
    row of the first instance, whole: the rows an uninterrupted run writes
    for it (whatever methods and policies are registered; ``one-pack/*``
    brings every I/O policy)."""
    import opt_sched.exact as exact
    from opt_sched.simulation.policies import names as policy_names

    alone = gap_table(_copy(tmp_path, ["tiny2"]), time_limit=10, progress=False,
                      out=tmp_path / "alone.csv")
    real = exact.solve
    calls = []

    def interrupted(instance, **kwargs):
        calls.append(instance.name)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(instance, **kwargs)

    monkeypatch.setattr(exact, "solve", interrupted)
    paths = _copy(tmp_path, ["tiny2", "deps5", "hetero6"])
    out = tmp_path / "rows.csv"
    with pytest.raises(KeyboardInterrupt):
        gap_table(paths, time_limit=10, progress=False, out=out)
    rows = pd.read_csv(out)
    assert set(rows["instance"]) == {"tiny2"}
    assert list(rows["method"]) == list(alone["method"])
    assert {f"one-pack/{p}" for p in policy_names()} <= set(rows["method"])
    pd.testing.assert_frame_equal(_strip(rows)[["method", "value", "gap"]],
                                  _strip(alone)[["method", "value", "gap"]],
                                  check_dtype=False)
    assert rows.notna()[["value", "gap"]].all().all()
    assert not list(tmp_path.glob(".*.tmp"))


_SIGINT_SCRIPT = """
import sys
from opt_sched.experiments.gap import gap_table
from opt_sched.workloads import generate_ics2020
instances = [generate_ics2020(3.0, seed, n_jobs=10, io_nodes=2) for seed in range(6)]
gap_table(instances, time_limit=float(sys.argv[2]), workers=2, out=sys.argv[1],
          progress=False)
"""


def test_sigint_stops_a_pooled_gap_and_keeps_finished_rows(tmp_path):
    """A real Ctrl-C (SIGINT to the process group) while the second pair of
    instances is solving: the run stops within a few seconds, and the CSV
    holds whole rows of the finished instances only."""
    out = tmp_path / "rows.csv"
    limit = 2.0
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.Popen([sys.executable, "-c", _SIGINT_SCRIPT, str(out),
                             str(limit)], cwd=REPO, env=env, start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if out.exists() and len(pd.read_csv(out)) > 0:
                break
            if proc.poll() is not None:
                pytest.fail(f"gap ended early: {proc.communicate()[1][-2000:]}")
            time.sleep(0.2)
        else:
            pytest.fail("no row was written within 120 s")
        os.killpg(proc.pid, signal.SIGINT)
        sent = time.monotonic()
        _, err = proc.communicate(timeout=30)
        stopped = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode != 0 and "KeyboardInterrupt" in err
    assert stopped < limit + 3, stopped  # did not wait for the running solves
    rows = pd.read_csv(out)
    assert len(rows) % 5 == 0  # whole instances: the solver and 4 pack rows
    assert 0 < rows["instance"].nunique() < 6
    assert rows[["value", "lower_bound"]].notna().all().all()


def test_no_applicable_method_is_said(capsys):
    from opt_sched import read_instance

    planning4 = read_instance(INSTANCES / "planning4.json")
    table = gap_table([planning4], time_limit=10)
    assert list(table["method"]) == ["cpsat"]
    err = capsys.readouterr().err
    assert ("planning4: no applicable method for planning (no registered method "
            "makes schedules of this problem)") in err
    table = gap_table([planning4], methods="make-pack(S=1)+lpt/fifo",
                      time_limit=10, progress=False)
    assert table.attrs["skipped"] == [
        ("planning4", "make-pack(S=1)+lpt/fifo",
         "make-pack makes schedules of hpc-io, packs; planning4 poses planning")]


def test_explicit_methods_run_where_they_apply(tmp_path):
    from opt_sched import read_instance

    tiny2 = read_instance(INSTANCES / "tiny2.json")
    deps5 = read_instance(INSTANCES / "deps5.json")
    table = gap_table([tiny2, deps5], methods=["one-pack/*", "first-fit"],
                      time_limit=10, solver="cpsat", progress=False)
    got = list(zip(table["instance"], table["method"]))
    assert got[:2] == [("tiny2", "cpsat"), ("tiny2", "one-pack/lowest-id")]
    assert ("deps5", "first-fit+lpt/fifo") in got
    assert not any(i == "deps5" and m.startswith("one-pack") for i, m in got)
    assert [s[:2] for s in table.attrs["skipped"]] == [
        ("tiny2", "first-fit+lpt/fifo"), ("deps5", "one-pack/*")]


def test_gap_options_are_checked(tmp_path, no_solving):
    from opt_sched.errors import OptionError

    path = _copy(tmp_path, ["tiny2"])
    for kwargs, fragment in (({"workers": 0}, "workers=0"), ({"seed": -1}, "seed=-1"),
                             ({"objective": "flow"}, "objective='flow'"),
                             ({"time_limit": 0}, "time_limit=0"),
                             ({"methods": " , "}, "names no method")):
        with pytest.raises(OptionError, match=fragment):
            gap_table(path, progress=False, **kwargs)


# -- the gap formula -------------------------------------------------------------------
def test_relative_gap_is_never_negative_by_rounding():
    assert relative_gap(12.0, 10.0) == pytest.approx(0.2)
    # a makespan 4.2e-14 relative below its bound (the 2,000-job case): 0
    bound = 13881.0
    assert relative_gap(bound * (1 - 4.2e-14), bound) == 0.0
    assert relative_gap(bound * (1 - 0.9 * RTOL), bound) == 0.0
    with pytest.raises(BoundViolationError, match="below the proven lower bound"):
        relative_gap(bound * (1 - 10 * RTOL), bound)
    for value, bnd in ((None, 1.0), (1.0, None), (1.0, 0.0), (math.nan, 1.0),
                       (math.inf, 1.0)):
        assert math.isnan(relative_gap(value, bnd))


def test_compare_gap_column_uses_the_same_formula(tucan5):
    from opt_sched.experiments.compare import compare

    table = compare(tucan5, policies=["fifo"])
    expected = [relative_gap(v, b) for v, b in zip(table["makespan"],
                                                   table["lower_bound"])]
    assert table["gap"].tolist() == expected
    assert json.dumps(table["gap"].tolist())  # plain floats
