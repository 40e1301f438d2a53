"""The heuristic and exact-model recipes of docs/ARCHITECTURE.md, from outside
the package (issue 25, item 7), through every front door they apply to, as
real subprocesses: ``compare``, ``gap`` and ``sweep --workers 2`` for a
pack heuristic; ``gap --solver`` for an exact model; ``gap`` for an I/O
policy (its ``/*`` rows). The plug-in ``myheur`` is installed without pip
(:func:`tests.test_plugins.install`). Every schedule is validated by the
command that makes it, and each value checked is recomputed here.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from opt_sched import read_instance
from opt_sched.validation import assert_feasible

from .paths import REPO
from .plugin_helpers import install_package, load_source, opt_sched
from .test_plugins import POLICY, POLICY_SOURCE

HEURISTIC = "widest-first"

HEURISTIC_SOURCE = '''
"""Widest job first, first fit: a pack heuristic."""

from opt_sched.methods.packs import pack_entry


def widest_first(jobs, bandwidth, nodes):
    """Jobs by decreasing node count (ties: their order), each into the
    first pack it fits, else a new pack."""
    packs, widths = [], []
    for job in sorted(jobs, key=lambda j: -j.nodes):
        for k, width in enumerate(widths):
            if width + job.nodes <= nodes:
                packs[k].append(job.id)
                widths[k] += job.nodes
                break
        else:
            packs.append([job.id])
            widths.append(job.nodes)
    return packs


ENTRY = pack_entry("widest-first", "widest job first, first fit",
                   lambda instance, method: widest_first,
                   defaults=("widest-first+lpt/fifo",))
'''

EXACT_SOURCE = '''
from opt_sched.exact.registry import ExactModel

MODEL = ExactModel("io-sched", ("cpsat-mine",), "opt_sched.exact.io_sched.cpsat")
'''

ENTRY_POINTS = f"""
[opt_sched.methods]
{HEURISTIC} = myheur.heuristic:ENTRY

[opt_sched.exact_models]
cpsat-mine = myheur.exact:MODEL

[opt_sched.io_policies]
{POLICY} = myheur.policy:HEAVIEST_JOB
"""

TINY = REPO / "instances" / "tiny5.json"
HETERO = REPO / "instances" / "hetero6.json"
"""Two partitions, jobs not mapped: it poses HPC-IO, which pack heuristics
make schedules for (tiny5 poses IO-SCHED)."""


@pytest.fixture
def plugin(tmp_path: Path) -> Path:
    return install_package(tmp_path, "myheur", "Recipes from outside.",
                           {"heuristic": HEURISTIC_SOURCE, "exact": EXACT_SOURCE,
                            "policy": POLICY_SOURCE}, ENTRY_POINTS)


def direct_makespan(plugin: Path, spec: str, path: Path = TINY) -> float:
    """The heuristic's schedule on ``path``, made in this process from the
    plug-in's own entry (registered here, then removed), validated."""
    from opt_sched import methods

    entry = load_source(plugin / "myheur" / "heuristic.py").ENTRY
    methods.register(entry)
    try:
        instance = read_instance(path)
        schedule = methods.method(spec).run(instance)
        assert_feasible(instance, schedule)
        return schedule.makespan(instance)
    finally:
        methods.unregister(entry.name)


def test_a_heuristic_plugin_in_compare_by_default(plugin, tmp_path):
    """Its ``defaults`` make it a default of ``compare``, under every I/O
    policy (the policy plug-in's included)."""
    done = opt_sched(plugin, "compare", str(TINY), "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    rows = [r for r in json.loads(done.stdout)
            if r["heuristic"].startswith(HEURISTIC)]
    assert {r["policy"] for r in rows} >= {"fifo", POLICY}
    fifo = next(r for r in rows if r["policy"] == "fifo")
    assert fifo["makespan"] == pytest.approx(
        direct_makespan(plugin, f"{HEURISTIC}+lpt/fifo"), rel=1e-12)


def test_a_heuristic_plugin_is_a_plan_of_simulate(plugin, tmp_path):
    """``simulate --plan widest-first+lpt`` executes the plug-in's plan: the
    makespan of the method itself; under the plug-in's I/O policy too
    (``simulate`` validates every schedule it prints)."""
    spec = f"{HEURISTIC}+lpt"
    for policy in ("fifo", POLICY):
        done = opt_sched(plugin, "simulate", str(TINY), "--plan", spec,
                         "--io-policy", policy, "--json", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        row = json.loads(done.stdout)
        assert row["feasible"] is True and row["method"].endswith(policy)
    assert row["makespan"] > 0
    fifo = opt_sched(plugin, "simulate", str(TINY), "--plan", f"{spec}/fifo", "--json",
                     cwd=tmp_path)
    assert json.loads(fifo.stdout)["makespan"] == pytest.approx(
        direct_makespan(plugin, f"{spec}/fifo"), rel=1e-12)


def test_a_heuristic_and_an_exact_model_plugin_in_gap(plugin, tmp_path):
    """``gap`` runs the plug-in solver (IO-SCHED, tiny5) beside the policy
    plug-in's one-pack row, and the heuristic on an HPC-IO instance against
    the best proven bound."""
    from opt_sched import solve

    def gap_rows(path: Path, *args: str) -> dict[str, dict[str, str]]:
        out = tmp_path / f"{path.stem}.csv"
        done = opt_sched(plugin, "gap", str(path), *args, "--time-limit", "20",
                         "--out", str(out), "--quiet", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        with open(out, newline="") as handle:
            return {r["method"]: r for r in csv.DictReader(handle)}

    rows = gap_rows(TINY, "--solver", "cpsat-mine", "--methods",
                    f"one-pack/{POLICY}")
    assert "cpsat-mine" in rows and f"one-pack/{POLICY}" in rows, sorted(rows)
    exact = solve(read_instance(TINY), solver="cpsat", time_limit=20)
    assert exact.status == "optimal"
    assert float(rows["cpsat-mine"]["value"]) == pytest.approx(exact.objective)

    rows = gap_rows(HETERO, "--methods", f"{HEURISTIC}+lpt/fifo")
    ours = rows[f"{HEURISTIC}+lpt/fifo"]
    value = direct_makespan(plugin, f"{HEURISTIC}+lpt/fifo", HETERO)
    assert float(ours["value"]) == pytest.approx(value, rel=1e-12)
    bound = float(ours["lower_bound"])
    assert 0 < bound <= value
    assert float(ours["gap"]) == pytest.approx((value - bound) / bound, rel=1e-9,
                                               abs=1e-12)


def test_a_heuristic_plugin_in_sweep_workers(plugin, tmp_path):
    spec = tmp_path / "h.toml"
    spec.write_text(f'name = "h"\n\n[[groups]]\nname = "g"\n'
                    f'instances = ["{TINY}"]\n'
                    f'methods = ["{HEURISTIC}+lpt/fifo", "{HEURISTIC}+lpt/{POLICY}"]\n')
    done = opt_sched(plugin, "sweep", str(spec), "--out", str(tmp_path / "out"),
                     "--workers", "2", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    with open(tmp_path / "out" / "tasks.csv", newline="") as handle:
        rows = {r["method"]: r for r in csv.DictReader(handle)}
    assert {r["status"] for r in rows.values()} == {"ok"}, rows
    assert float(rows[f"{HEURISTIC}+lpt/fifo"]["makespan"]) == pytest.approx(
        direct_makespan(plugin, f"{HEURISTIC}+lpt/fifo"), rel=1e-12)
