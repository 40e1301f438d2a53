"""Experiment tasks in campaigns (``workflow-share``) and the
``rodrigo2017`` report, on a small machine."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from opt_sched.campaign import ResultStore, load_spec, parse_spec, run_sweep
from opt_sched.campaign.executors.local import LocalExecutor
from opt_sched.errors import SpecError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[1]

SPEC = """
name = "wf-small"
[[groups]]
name = "small"
experiment = { name = "workflow-share", workflow = ["cybershake", "sipht"], \
share = [0.0, 0.25], mode = ["chained", "pilot", "woas"], nodes = 96, \
duration = 43200.0, stabilisation = 10800.0, target_wait = 3600.0 }
seeds = [3, 4]

[outputs]
reports = ["rodrigo2017"]
"""


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    out = tmp_path_factory.mktemp("wf")
    spec_path = out / "spec.toml"
    spec_path.write_text(SPEC)
    spec = load_spec(spec_path)
    executor = LocalExecutor(1)
    try:
        result = run_sweep(spec, out / "run", executor=executor, progress=False)
    finally:
        executor.close()
    return spec, result, out / "run"


def test_the_group_expands_to_tasks(swept) -> None:
    spec, result, _ = swept
    # 2 workflows x 2 shares x 3 modes x 2 seeds
    assert len(spec.tasks) == 24 == result.total and result.ok == 24
    first = spec.tasks[0]
    assert first.method == "workflow-share" and first.seed == 3
    assert dict(first.source.params)["bf_depth"] == 50
    assert dict(first.source.params)["bf_interval"] == 30.0
    assert dict(first.source.params)["scheduler"] == "conservative"
    assert len({t.key for t in spec.tasks}) == 24


def test_tasks_table_has_scalars_only(swept) -> None:
    _, _, out = swept
    tasks = pd.read_csv(out / "tasks.csv")
    for column in ("workflow", "share", "mode", "turnaround_h", "slowdown_small",
                   "actual_utilisation", "window_start"):
        assert column in tasks.columns
    assert "turnarounds_h" not in tasks.columns
    base = tasks[tasks["share"] == 0.0]
    assert (base["workflows"] == 0).all()


def test_report_pools_the_first_m_workflows(swept) -> None:
    spec, _, out = swept
    table = pd.read_csv(out / "rodrigo2017-turnaround.csv")
    assert set(table["workflow"]) == {"cybershake", "sipht"}
    assert set(table["share"]) == {0.25}
    with ResultStore(out / "results.sqlite") as store:
        rows = store.rows()
    for wf in ("cybershake", "sipht"):
        pooled = {m: [] for m in ("chained", "pilot", "woas")}
        for seed in (3, 4):
            got = {}
            for task in spec.tasks:
                p = dict(task.source.params)
                if (p["workflow"], p["share"], task.seed) == (wf, 0.25, seed):
                    got[p["mode"]] = rows[task.key]["metrics"]["turnarounds_h"]
            m = min(len(v) for v in got.values())
            for mode, values in got.items():
                pooled[mode] += values[:m]
        r = table[table["workflow"] == wf].iloc[0]
        assert r["turnaround_h_woas"] == pytest.approx(np.median(pooled["woas"]))
        assert r["speedup_woas"] == pytest.approx(
            np.median(pooled["chained"]) / np.median(pooled["woas"]))
    slow = pd.read_csv(out / "rodrigo2017-slowdown.csv")
    assert not math.isnan(slow["baseline_slowdown_small"].iloc[0])
    util = pd.read_csv(out / "rodrigo2017-utilisation.csv")
    assert (util["actual_pilot"] < util["actual_woas"]).all()
    summary = (out / "rodrigo2017-summary.md").read_text()
    assert "| cybershake |" in summary and "≈2×" in summary
    assert (out / "rodrigo2017-speedup.png").stat().st_size > 0


def test_utilisation_gain_in_points_and_relative(swept) -> None:
    spec, _, out = swept
    util = pd.read_csv(out / "rodrigo2017-utilisation.csv")
    with ResultStore(out / "results.sqlite") as store:
        rows = store.rows()
    for wf in ("cybershake", "sipht"):
        actual = {m: [] for m in ("chained", "pilot", "woas")}
        for task in spec.tasks:
            p = dict(task.source.params)
            if p["workflow"] == wf and p["share"] == 0.25:
                actual[p["mode"]].append(
                    rows[task.key]["metrics"]["actual_utilisation"])
        woas, pilot = np.mean(actual["woas"]), np.mean(actual["pilot"])
        r = util[util["workflow"] == wf].iloc[0]
        assert r["gain_woas_over_pilot_points"] == pytest.approx(100 * (woas - pilot))
        assert r["gain_woas_over_pilot_pct"] == pytest.approx(100 * (woas / pilot - 1))
    summary = (out / "rodrigo2017-summary.md").read_text()
    assert "ours in points / ours relative (%) / thesis" in summary
    assert "ratio to no workflows" in summary


@pytest.mark.parametrize("experiment, needle", [
    ({"name": "nope"}, "experiment.name='nope' is unknown"),
    ({"name": "workflow-share", "share": 0.1, "mode": "woas"},
     "experiment.workflow is missing"),
    ({"name": "workflow-share", "workflow": "sipht", "share": "x", "mode": "woas"},
     "experiment.share='x' must be a number"),
    ({"name": "workflow-share", "workflow": "sipht", "share": 0.1, "mode": "woas",
      "colour": 1}, "experiment.colour=1 is not a parameter"),
])
def test_bad_experiment_groups(experiment, needle) -> None:
    with pytest.raises(SpecError) as info:
        parse_spec({"name": "x", "groups": [{"name": "g", "experiment": experiment}]})
    assert needle in str(info.value) and "\n" not in str(info.value)


def test_rodrigo2017_campaign_loads() -> None:
    spec = load_spec(REPO / "campaigns" / "rodrigo2017.toml")
    data = tomllib.loads((REPO / "campaigns" / "rodrigo2017.toml").read_text())
    assert data["outputs"]["reports"] == ["rodrigo2017"]
    groups = {t.group for t in spec.tasks}
    assert groups
    for task in spec.tasks:
        assert task.source.experiment == "workflow-share"


def test_rodrigo2017_quick_campaign_loads() -> None:
    spec = load_spec(REPO / "campaigns" / "rodrigo2017-quick.toml")
    # 1/8 machine, seeds 0-2: Sipht 5 shares x 3 modes, five other workflows
    # x 7 shares x 3 modes, one baseline: 3 x (15 + 105 + 1) = 363 tasks;
    # Edison, seed 0: 2 workflows x 3 shares x 3 modes + a baseline = 19
    assert len(spec.tasks) == 382
    by_group: dict[str, int] = {}
    for task in spec.tasks:
        assert task.source.experiment == "workflow-share"
        nodes = dict(task.source.params).get("nodes")
        assert nodes == (697 if task.group.startswith("eighth") else None)
        by_group[task.group] = by_group.get(task.group, 0) + 1
    assert by_group == {"eighth-sipht": 45, "eighth": 315, "eighth-baseline": 3,
                        "edison-check": 18, "edison-baseline": 1}
    sipht = {dict(t.source.params)["share"] for t in spec.tasks
             if t.group == "eighth-sipht"}
    assert max(sipht) == 0.5
