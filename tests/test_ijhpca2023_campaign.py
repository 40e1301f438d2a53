"""Seed 000's campaign: the ``ijhpca2023`` generator source, the specs, and a
tiny sweep through the report (figures, certified gaps, curves)."""

from __future__ import annotations

import copy as copying
import math
from pathlib import Path

import pandas as pd
import pytest

from opt_sched.campaign import ResultStore, load_spec, parse_spec, run_sweep
from opt_sched.campaign.executors.local import LocalExecutor
from opt_sched.campaign.sources import build_instance, generator_source
from opt_sched.errors import InternalError, SpecError
from opt_sched.scheduling import SCHEDULERS
from opt_sched.studies.ijhpca2023.experiment import STRATEGY_SPECS, prefix_copy
from opt_sched.workloads.ijhpca2023 import generate_ijhpca2023

REPO = Path(__file__).resolve().parents[1]
HAS_IO_EASY = "io-easy" in SCHEDULERS


def test_generator_source_builds_the_workload_and_its_copy():
    source = generator_source("ijhpca2023", {"family": "uniform", "profile": "no",
                                             "alpha": 0.5, "seed": 2, "jobs": 9})
    assert dict(source.params) == {"family": "uniform", "profile": "no", "alpha": 0.5,
                                   "seed": 2, "jobs": 9, "variant": "calibrated",
                                   "copy_jobs": None, "copy_iterations": None}
    want = generate_ijhpca2023("uniform", "no", 0.5, 2, jobs=9).instance
    assert build_instance(source) == want
    cut = generator_source("ijhpca2023", {"family": "uniform", "profile": "no",
                                          "alpha": 0.5, "seed": 2, "jobs": 9,
                                          "copy_jobs": 4, "copy_iterations": 2})
    assert build_instance(cut) == prefix_copy(want, 4, 2)
    # an integer names the same source as the float (alpha is in (0, 1),
    # which holds no integer: the coercion is shown on tucan's batch)
    assert generator_source("tucan", {"batch": 1}).params == \
        generator_source("tucan", {"batch": 1.0}).params
    with pytest.raises(SpecError, match=r"instance.alpha=1.0 must be < 1"):
        generator_source("ijhpca2023", {"family": "mira", "profile": "bn",
                                        "alpha": 1, "seed": 0})


@pytest.mark.parametrize("params, fragment", [
    ({"family": "x", "profile": "bn", "alpha": 0.5, "seed": 0},
     "instance.family='x' must be one of mira, uniform"),
    ({"family": "mira", "profile": "bn", "alpha": 0.5, "seed": 0, "variant": 1},
     "instance.variant=1 must be one of calibrated, literal"),
    ({"family": "mira", "profile": "bn", "alpha": 0.5},
     "instance.seed is missing"),
    ({"family": "mira", "profile": "bn", "alpha": 0.5, "seed": 0, "copy_jobs": 2.5},
     "instance.copy_jobs=2.5 must be an integer"),
])
def test_generator_source_errors_name_the_key(params, fragment):
    with pytest.raises(SpecError, match=fragment.replace("(", r"\(")):
        generator_source("ijhpca2023", params)


def test_full_campaign_spec_has_the_documented_grid():
    spec = load_spec(REPO / "campaigns" / "ijhpca2023.toml")
    by_group = pd.Series([t.group for t in spec.tasks]).value_counts().to_dict()
    # 4 families x 7 alphas x 10 workloads x 5 strategies (calibrated), x 5
    # workloads (literal); copies: 4 families x 3 alphas x 10 workloads x 5
    assert by_group == {"calibrated": 1400, "literal": 700, "copies": 600}
    assert len({t.key for t in spec.tasks}) == 2700
    params = [dict(t.source.params) for t in spec.tasks]
    assert sorted({p["alpha"] for p in params}) == [0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]
    assert {p["seed"] for p in params} == set(range(10))
    assert {t.method for t in spec.tasks} == set(STRATEGY_SPECS.values())
    copies = [t for t in spec.tasks if t.group == "copies"]
    assert {(dict(t.source.params)["copy_jobs"], dict(t.source.params)[
        "copy_iterations"]) for t in copies} == {(10, 3)}
    assert {t.limits.time_limit for t in copies} == {3.0}
    assert all("lower_bound" in t.metrics for t in spec.tasks)
    assert spec.reports == ("ijhpca2023",)
    quick = load_spec(REPO / "campaigns" / "ijhpca2023-quick.toml")
    assert quick.reports == ("ijhpca2023",) and len(quick.tasks) < 300


TINY = """
name = "tiny"
[[groups]]
name = "calibrated"
instances = [{{ generator = "ijhpca2023", family = "uniform", profile = "no", \
alpha = 0.5, seed = 0, jobs = 8 }},
             {{ generator = "ijhpca2023", family = "mira", profile = "bn", \
alpha = 0.8, seed = 0, jobs = 8 }}]
methods = {methods}
metrics = ["lower_bound"]

[[groups]]
name = "literal"
instances = [{{ generator = "ijhpca2023", family = "uniform", profile = "no", \
alpha = 0.5, seed = 0, jobs = 8, variant = "literal" }}]
methods = {methods}
metrics = ["lower_bound"]

[[groups]]
name = "copies"
instances = [{{ generator = "ijhpca2023", family = "uniform", profile = "no", \
alpha = 0.5, seed = 0, jobs = 8, copy_jobs = 4, copy_iterations = 2 }}]
methods = {methods}
metrics = ["lower_bound"]
limits = {{ time_limit = 2 }}

[outputs]
tables = ["tasks"]
reports = ["ijhpca2023"]
"""


def _tiny_methods() -> list[str]:
    return [s for k, s in STRATEGY_SPECS.items() if k != "ls" or HAS_IO_EASY]


def _sweep(spec_path: Path, out: Path, resume: bool = False):
    executor = LocalExecutor(1)
    try:
        return run_sweep(load_spec(spec_path), out, executor=executor,
                         progress=False, resume=resume)
    finally:
        executor.close()


def test_tiny_sweep_runs_end_to_end_with_the_report(tmp_path):
    methods = _tiny_methods()
    spec_path = tmp_path / "tiny.toml"
    spec_path.write_text(TINY.format(methods=repr(methods).replace("'", '"')),
                         encoding="utf-8")
    out = tmp_path / "out"
    result = _sweep(spec_path, out)
    assert result.failed == 0 and result.ok == 4 * len(methods)
    for name in ("fig4_utilisation_mira", "fig5_utilisation_uniform",
                 "fig6_max_stretch", "fig7_mean_stretch", "fig9_stretch_vs_idle",
                 "fig6_max_stretch_literal", "fig8_usage_a0.8"):
        assert (out / f"{name}.png").read_bytes()[:4] == b"\x89PNG", name
        assert len(pd.read_csv(out / f"{name}.csv")) > 0, name

    tasks = pd.read_csv(out / "tasks.csv")
    points = pd.read_csv(out / "points.csv")
    assert len(points) == len(tasks) == 4 * len(methods)
    merged = points.merge(tasks, on=["method", "family", "profile", "alpha", "seed",
                                     "variant"], suffixes=("", "_task"))
    merged = merged[merged["copy"] == (merged["copy_jobs_task"].notna())]
    assert (merged["makespan"] == merged["makespan_task"]).all()
    assert (merged["idle_ratio"] == 1 - merged["allocation"]).all()

    # curves: 100 bins per calibrated run, utilisation a share of the nodes
    fig4 = pd.read_csv(out / "fig8_usage_a0.8.csv")
    assert len(fig4) == 100 * len(methods)
    assert fig4["allocation"].between(0, 1 + 1e-9).all()
    assert fig4["io_busy"].between(0, 1).all()

    # certified gaps: never below the proven bound; the copy's bound is CP-SAT's
    full = pd.read_csv(out / "gaps_full.csv")
    assert (full["certified_gap"] >= -1e-9).all()
    assert (full["best_bound"] >= full["lower_bound"] - 1e-9).all()
    copies = pd.read_csv(out / "gaps_copies.csv")
    assert len(copies) == len(methods)
    assert (copies["makespan"] >= copies["cpsat_bound"] * (1 - 1e-9)).all()
    assert (copies["certified_gap"] >= -1e-9).all()
    solved = pd.read_csv(out / "cpsat_copies.csv")
    assert len(solved) == 1 and solved["time_limit"].iloc[0] == 2.0
    rej = pd.read_csv(out / "rejections.csv")
    assert set(rej["variant"]) == {"calibrated", "literal"} and len(rej) == 3
    summary = pd.read_csv(out / "summary_table.csv")
    assert set(summary["family"]) == {"U-No", "M-BN"}
    assert set(summary["alpha"]) == {0.5, 0.8}
    assert "| family | alpha | strategy |" in (out / "summary_table.md").read_text()

    # a resume runs nothing and does not solve the copy again
    before = (out / "cpsat_copies.csv").read_bytes()
    again = _sweep(spec_path, out, resume=True)
    assert again.ran == 0
    assert (out / "cpsat_copies.csv").read_bytes() == before


def test_report_stops_when_a_replay_differs_from_the_store(tmp_path):
    from opt_sched.studies.ijhpca2023.report import write_report

    methods = _tiny_methods()[:1]
    text = TINY.format(methods=repr(methods).replace("'", '"'))
    spec = parse_spec(__import__("tomllib").loads(text), base=tmp_path)
    out = tmp_path / "out"
    executor = LocalExecutor(1)
    try:
        run_sweep(spec, out, executor=executor, progress=False)
    finally:
        executor.close()
    with ResultStore(out / "results.sqlite") as store:
        rows = store.rows()
    tampered = copying.deepcopy(rows)
    key = next(t.key for t in spec.tasks if t.group == "calibrated")
    tampered[key]["metrics"]["makespan"] *= 1 + 1e-6
    with pytest.raises(InternalError, match="not deterministic"):
        write_report(spec, tampered, out)
    assert math.isfinite(rows[key]["metrics"]["makespan"])
