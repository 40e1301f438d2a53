"""Every registered solver, and ``auto``, through ``solve`` and ``gap``.

``auto`` is resolved in the exact layer (:func:`opt_sched.exact.registry.
resolve_solver`); the command line reads its solver choices from the
registry. Nothing here lists the registry's solvers by hand.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

from opt_sched import read_instance, read_schedule
from opt_sched.errors import OptionError
from opt_sched.exact import registry
from opt_sched.exact.registry import (
    AUTO,
    EXACT_MODELS,
    ExactModel,
    resolve_solver,
    solver_choices,
    solvers,
)
from opt_sched.objectives import objective_value
from opt_sched.validation import assert_feasible

from .conftest import INSTANCES, REPO

TINY2 = INSTANCES / "tiny2.json"
HEAVY = ("ortools", "pandas", "numba", "matplotlib")


def opt_sched(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """``python -m opt_sched ARGS`` in a real process."""
    return subprocess.run([sys.executable, "-m", "opt_sched", *args],
                          capture_output=True, text=True, timeout=timeout,
                          cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)})


def problems_of(solver: str) -> list[str]:
    """The problems the registry has a model of ``solver`` for."""
    return [m.problem for m in EXACT_MODELS if solver in m.solvers]


def assert_validated(instance_path: Path, schedule_path: Path, value: float) -> None:
    """The written schedule passes the validator and has the reported value."""
    instance = read_instance(instance_path)
    schedule = read_schedule(schedule_path)
    assert_feasible(instance, schedule)
    assert objective_value(instance, schedule, "makespan") == pytest.approx(value)


# -- auto, in the exact layer ----------------------------------------------------


def test_auto_is_the_portfolio_for_io_sched_makespan():
    assert "makespan" in registry.lookup("io-sched", "portfolio").load().OBJECTIVES
    assert resolve_solver("io-sched", "makespan") == "portfolio"


@pytest.mark.parametrize("problem", [p for p in registry.problems()
                                     if "portfolio" not in
                                     [s for m in EXACT_MODELS if m.problem == p
                                      for s in m.solvers]])
def test_auto_without_a_portfolio_takes_the_first_registered_model(problem):
    first = next(s for m in EXACT_MODELS if m.problem == problem
                 for s in m.solvers if "makespan" in m.load().OBJECTIVES)
    assert resolve_solver(problem, "makespan") == first


def test_auto_skips_a_solver_without_the_objective(monkeypatch):
    """A preferred model that lacks the objective is passed over."""
    fake = types.ModuleType("fake_portfolio")
    fake.OBJECTIVES = ("max-stretch",)
    monkeypatch.setitem(sys.modules, "fake_portfolio", fake)
    models = [m for m in EXACT_MODELS
              if not (m.problem == "io-sched" and "portfolio" in m.solvers)]
    monkeypatch.setattr(registry, "EXACT_MODELS",
                        [ExactModel("io-sched", ("portfolio",), "fake_portfolio"),
                         *models])
    assert resolve_solver("io-sched", "max-stretch") == "portfolio"
    fallback = resolve_solver("io-sched", "makespan")
    assert fallback != "portfolio"
    assert "makespan" in registry.lookup("io-sched", fallback).load().OBJECTIVES


def test_auto_names_a_bad_problem():
    with pytest.raises(OptionError, match="problem='job-shop' is not one of"):
        resolve_solver("job-shop", "makespan")


def test_solve_reports_the_solver_auto_chose(tiny2):
    from opt_sched.exact import solve

    result = solve(tiny2, solver=AUTO, time_limit=5)
    assert result.solver == resolve_solver("io-sched", "makespan")
    assert result.info["requested_solver"] == AUTO
    assert_feasible(tiny2, result.schedule)
    assert "requested_solver" not in solve(tiny2, solver="cpsat",
                                           time_limit=5).info


# -- the command line ------------------------------------------------------------


def test_parsers_read_the_registry_without_heavy_imports():
    """``solve`` and ``gap`` build their parsers from the registry's names
    without importing a solver or a data library."""
    code = ("import argparse, sys\n"
            "from opt_sched.cli.commands import gap, solve\n"
            "for command in (solve, gap):\n"
            "    command.add_arguments(argparse.ArgumentParser())\n"
            f"print([m for m in {HEAVY!r} if m in sys.modules])\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True,
                          text=True, timeout=60, cwd=REPO)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize("command", ["solve", "gap"])
def test_help_offers_auto_and_every_registered_solver(command):
    done = opt_sched(command, "--help")
    assert done.returncode == 0, done.stderr
    assert "{" + ",".join(solver_choices()) + "}" in done.stdout
    assert solver_choices()[0] == AUTO and set(solvers()) < set(solver_choices())


@pytest.mark.parametrize("solver", solver_choices())
def test_solve_runs_every_solver_and_says_which_ran(solver, tmp_path):
    problem = "io-sched" if solver == AUTO or "io-sched" in problems_of(solver) \
        else problems_of(solver)[0]
    out = tmp_path / "schedule.json"
    done = opt_sched("solve", str(TINY2), "--problem", problem, "--solver", solver,
                     "--time-limit", "10", "--quiet", "--json", "--out", str(out))
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    ran = resolve_solver(problem, "makespan") if solver == AUTO else solver
    assert answer["solver"] == ran
    assert answer.get("requested_solver") == (AUTO if solver == AUTO else None)
    assert_validated(TINY2, out, answer["objective"])


def test_solve_is_auto_by_default_and_prints_the_choice(tmp_path):
    out = tmp_path / "schedule.json"
    done = opt_sched("solve", str(TINY2), "--time-limit", "10", "--quiet",
                     "--out", str(out))
    assert done.returncode == 0, done.stderr
    ran = resolve_solver("io-sched", "makespan")
    assert done.stdout.splitlines()[0] == f"tiny2: io-sched / makespan / auto -> {ran}"
    value = float(next(line.split()[1].replace(",", "")
                       for line in done.stdout.splitlines()
                       if line.split()[0] == "objective"))
    assert_validated(TINY2, out, value)


@pytest.mark.parametrize("solver", solver_choices())
def test_gap_runs_every_solver(solver):
    """Every choice, ``portfolio`` included, gives validated rows (the
    heuristics' schedules are validated by the gap table, the solver's by
    the exact layer's certification)."""
    done = opt_sched("gap", str(TINY2), "--solver", solver, "--time-limit", "5",
                     "--methods", "one-pack/fifo", "--quiet", "--json")
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    ran = resolve_solver("io-sched", "makespan") if solver == AUTO else solver
    assert [row["method"] for row in rows] == [ran, "one-pack/fifo"]
    for row in rows:
        assert row["value"] >= row["lower_bound"] * (1 - 1e-9)
        assert row["exact_status"] in ("optimal", "feasible")


def test_gap_refuses_a_solver_without_the_problem_before_solving():
    """``gap --solver S`` on an instance whose problem S has no model: one
    line, exit 2, nothing solved."""
    solver = next((s for s in solvers() if "hpc-io" not in problems_of(s)), None)
    if solver is None:
        pytest.skip("every registered solver runs hpc-io")
    deps5 = read_instance(INSTANCES / "deps5.json")
    from opt_sched.experiments.gap import problem_of

    assert problem_of(deps5) == "hpc-io"
    done = opt_sched("gap", str(TINY2), str(INSTANCES / "deps5.json"),
                     "--solver", solver, "--time-limit", "5")
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1
    assert f"solver={solver!r}" in done.stderr and "hpc-io" in done.stderr
    assert "deps5" in done.stderr


# -- the figure ------------------------------------------------------------


@pytest.mark.slow
def test_plain_solve_of_tucan5_is_within_13000(tmp_path):
    """Issue 25: a plain ``solve instances/tucan5.json --time-limit 60``
    (13,881 with CP-SAT as the default) gives a validated makespan <= 13,000."""
    path = INSTANCES / "tucan5.json"
    out = tmp_path / "schedule.json"
    done = opt_sched("solve", str(path), "--time-limit", "60", "--quiet", "--json",
                     "--out", str(out), timeout=300)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["objective"] <= 13_000
    assert_validated(path, out, answer["objective"])
