"""compare(): every heuristic x every I/O policy, validated; and a smoke run
of the seed 003 reproduction on a tiny subset."""

from __future__ import annotations

import math

import numpy as np
import pytest

from opt_sched import Instance, Job, OptionError, Platform
from opt_sched.errors import SpecError
from opt_sched.experiments.compare import COLUMNS, compare
from opt_sched.simulation import POLICY_NAMES
from opt_sched.workloads import generate_ics2020


def test_compare_tucan_has_one_pack_and_every_policy(tucan5):
    """The rows are the registry's defaults for tucan5: each policy-taking
    heuristic under every policy, each online method as its default spec
    names it (expectation computed from the registry, not pinned)."""
    from opt_sched import methods

    table = compare(tucan5)
    assert tuple(table.columns) == COLUMNS
    chosen, _ = methods.applicable(tucan5)
    crossed = list(dict.fromkeys(m.heuristic for m in chosen if not m.entry.online))
    online = list(dict.fromkeys((m.heuristic, m.policy) for m in chosen
                                if m.entry.online))
    heuristics = list(dict.fromkeys(table["heuristic"]))
    assert heuristics == crossed + [h for h, _ in online]
    # seed 003's heuristics are among them, in the registry's order
    assert [h for h in heuristics if h in ("one-pack", "first-fit+lpt",
                                           "make-pack(S=1)+lpt",
                                           "make-pack(S=alpha)+lpt")] == [
        "one-pack", "first-fit+lpt", "make-pack(S=1)+lpt", "make-pack(S=alpha)+lpt"]
    assert len(table) == len(crossed) * len(POLICY_NAMES) + len(online)
    for heuristic in crossed:
        rows = table[table["heuristic"] == heuristic]
        assert sorted(rows["policy"]) == sorted(POLICY_NAMES)
    assert [tuple(r) for r in table[table["heuristic"].isin(
        [h for h, _ in online])][["heuristic", "policy"]].to_numpy()] == online
    # the lower bound is valid: no schedule beats it
    assert (table["makespan"] >= table["lower_bound"] * (1 - 1e-9)).all()
    bound = table["lower_bound"]
    assert np.allclose(table["gap"], (table["makespan"] - bound) / bound)
    # 5 x 64 nodes fit one pack: first-fit is the one pack
    ff = table[table["heuristic"] == "first-fit+lpt"].set_index("policy")
    one = table[table["heuristic"] == "one-pack"].set_index("policy")
    assert (ff["num_packs"] == 1).all()
    assert np.allclose(ff["makespan"], one["makespan"])
    # node-time adds up: exec + delay + idle = N * C_max
    assert np.allclose(table["exec"] + table["delay"] + table["idle"],
                       2048 * table["makespan"])


def test_every_schedule_goes_through_the_validator(monkeypatch):
    import opt_sched.validation as validation

    calls = []
    real = validation.assert_feasible

    def spy(instance, schedule, *args, **kwargs):
        calls.append(schedule.method)
        return real(instance, schedule, *args, **kwargs)

    monkeypatch.setattr(validation, "assert_feasible", spy)
    inst = generate_ics2020(3.0, 0, n_jobs=8, io_nodes=2)
    table = compare(inst, policies=["fifo", "stretch"],
                    heuristics=["first-fit+lpt", "make-pack(S=1)+lpt",
                                "make-pack(S=2.5)+lpt"])
    assert len(calls) == len(table) == 3 * 2
    assert list(dict.fromkeys(table["heuristic"])) == [
        "first-fit+lpt", "make-pack(S=1)+lpt", "make-pack(S=2.5)+lpt"]
    assert calls == [f"{h}/{p}" for h in dict.fromkeys(table["heuristic"])
                     for p in ("fifo", "stretch")]
    assert table.loc[table["heuristic"] == "first-fit+lpt", "sensibility"].map(
        math.isinf).all()
    assert (table.loc[table["heuristic"] == "make-pack(S=2.5)+lpt",
                      "sensibility"] == 2.5).all()


def test_compare_io_nodes_uses_fewer_partitions():
    inst = generate_ics2020(3.0, 1, n_jobs=10, io_nodes=3)
    both = compare(inst, policies=["fifo"], io_nodes=1)
    three = compare(inst, policies=["fifo"])
    ff1 = both.loc[both["heuristic"] == "first-fit+lpt(R=1)", "makespan"].item()
    ff3 = three.loc[three["heuristic"] == "first-fit+lpt", "makespan"].item()
    assert ff3 <= ff1
    with pytest.raises(OptionError, match="io_nodes=4"):
        compare(inst, io_nodes=4)


def test_compare_rejects_bad_sensibility():
    inst = Instance("x", Platform.homogeneous(1, 4),
                    generate_ics2020(1.0, 0, n_jobs=2, nodes=4).jobs)
    with pytest.raises(SpecError, match=r"make-pack: S='beta' is not") as info:
        compare(inst, heuristics=("make-pack(S=beta)+lpt",))
    assert "\n" not in str(info.value)
    with pytest.raises(SpecError, match="names a policy"):
        compare(inst, heuristics=("make-pack(S=1)+lpt/fifo",))
    with pytest.raises(OptionError, match="policy='nope'"):
        compare(inst, policies=["nope"])


def test_compare_skips_what_a_heuristic_does_not_support():
    """planning4 demands a named resource: no pack heuristic and no one-pack
    (the simulator would delay a pack's jobs, breaking rule 6); each is
    listed with its reason instead of failing."""
    from opt_sched import read_instance
    from tests.conftest import INSTANCES

    table = compare(read_instance(INSTANCES / "planning4.json"))
    assert table.empty and tuple(table.columns) == COLUMNS
    skipped = dict(table.attrs["skipped"])
    assert set(skipped) == {"one-pack", "first-fit+lpt", "make-pack(S=1)+lpt",
                            "make-pack(S=alpha)+lpt"}
    assert all("demands named resources (burst_buffer)" in r
               for r in skipped.values())


def test_compare_on_jobs_without_io_skips_only_s_alpha():
    """No job does I/O: alpha = 0, so S=alpha is not a valid sensibility;
    the other heuristics still run (every schedule validated)."""
    jobs = (Job.periodic("a", 2, 5.0, 0.0, 2), Job.periodic("b", 3, 4.0, 0.0))
    inst = Instance("noio", Platform.homogeneous(2, 4), jobs)
    table = compare(inst, policies=["fifo"])
    assert list(table["heuristic"]) == ["first-fit+lpt", "make-pack(S=1)+lpt"]
    skipped = dict(table.attrs["skipped"])
    assert "alpha > 0" in skipped["make-pack(S=alpha)+lpt"]
    assert "not mapped" in skipped["one-pack"]
    # two partitions of 4 nodes, jobs of 10 and 4 s: LPT puts them apart
    assert table["makespan"].tolist() == [10.0, 10.0]


def test_reproduction_smoke(tmp_path):
    """A tiny subset end to end: tables, relative values, plots (< 20 s)."""
    from opt_sched.studies.ics2020.experiment import (
        Campaign,
        derive_tables,
        plot_all,
        run_campaign,
        write_tables,
    )

    campaign = Campaign(alpha_gens=(2.0, 6.0), seeds=(0,), batches=(0.25,),
                        io_nodes=(1, 3), n_jobs=12)
    raw = run_campaign(campaign, workers=1)
    tables = derive_tables(raw)
    rel = tables["fig10_12_relative"]
    ff = rel[rel["heuristic"] == "first-fit"]
    assert np.allclose(ff["rel_makespan"], 1.0) and np.allclose(ff["pack_ratio"], 1)
    mp = rel[rel["heuristic"] == "make-pack(S=1)"]
    assert (mp["pack_ratio"] >= 1).all()  # powers of two: First-Fit is optimal
    fig14 = tables["fig14_node_time"].set_index("heuristic")
    ff_total = fig14.loc["first-fit", ["exec_norm", "delay_norm", "idle_norm"]].sum()
    assert ff_total == pytest.approx(1.0)
    assert set(tables["fig15_io_nodes"]["io_nodes"]) == {1, 3}
    tucan = tables["fig5_8_tucan"]
    assert np.allclose(tucan.loc[tucan["policy"] == "fifo", "rel_makespan"], 1.0)
    assert (raw["synthetic"]["gap"] >= -1e-9).all()
    csvs = write_tables(raw, tables, tmp_path)
    pngs = plot_all(tables, tmp_path)
    assert all(p.stat().st_size > 0 for p in csvs + pngs)
    assert len(pngs) == 10
    assert (rel["robustness"] >= 1 - 1e-9).all()  # contention only slows down


def test_quick_reproduction_script_runs(tmp_path):
    """``scripts/reproduce_ics2020.py --quick`` end to end, as a user runs it."""
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[1] / "scripts" / "reproduce_ics2020.py"
    done = subprocess.run([sys.executable, str(script), "--quick", "--out",
                           str(tmp_path), "--workers", "2"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    csvs = sorted(p.name for p in tmp_path.rglob("*.csv"))
    pngs = sorted(p.name for p in tmp_path.rglob("*.png"))
    assert any("fig15" in name for name in csvs), csvs
    assert len(pngs) >= 4, pngs
