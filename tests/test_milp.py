"""MILP models (PuLP; CBC and HiGHS): IO-SCHED against the brute-force referee,
level packing against an enumeration and the pack heuristics, export, the
backend's statuses and bounds, and ortools + highspy in one process."""

from __future__ import annotations

import importlib.util
import itertools
import json
import math
import os
import random
import subprocess
import sys
import textwrap

import pytest

from opt_sched import Instance, Job, OptionError, Partition, Platform, read_instance
from opt_sched.bounds import lower_bound
from opt_sched.exact.io_sched.milp import solve_io_sched
from opt_sched.exact.milp.backend import (
    MilpSettings,
    _relaxation_bound,
    export_model,
    load_pulp,
    parse_cbc_log,
    solve_milp,
)
from opt_sched.exact.packs.milp import planned_makespan, solve_packs
from opt_sched.exact.result import SolveStatus

from .milp_helpers import busy_io_sched, presolve_bug_problem

BACKENDS = ("cbc", "highs")
OBJECTIVES = ("makespan", "max-stretch")
REL = 1e-6
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=REL, abs_tol=REL)


def assert_valid(instance: Instance, schedule) -> None:
    import opt_sched.validation as validation
    validation.assert_feasible(instance, schedule)


# -- instances ---------------------------------------------------------------------
def random_io_sched(seed: int) -> Instance:
    """1-2 partitions, 2-3 jobs per partition, at most 6 I/O phases each;
    quarter-unit data, some releases and zero phases."""
    rng = random.Random(seed)
    count = rng.choice([1, 1, 2])
    platform = Platform(tuple(Partition(8, rng.choice([0.5, 1.0, 2.0]))
                              for _ in range(count)))
    jobs = []
    for k in range(count):
        phases = 0
        for _ in range(rng.randint(2, 3)):
            n = rng.randint(1, 3)
            compute = [rng.randint(0, 16) / 4 for _ in range(n)]
            volume = []
            for _ in range(n):
                v = rng.randint(0, 12) / 4 if phases < 6 else 0.0
                phases += v > 0
                volume.append(v)
            release = rng.choice([0.0, 0.0, rng.randint(1, 8) / 4])
            jobs.append(Job(f"j{len(jobs)}", rng.randint(1, 2), tuple(compute),
                            tuple(volume), release=release, partition=k))
    return Instance(f"random-io-sched-{seed}", platform, tuple(jobs))


def random_packs(seed: int, jobs: int = 6) -> Instance:
    """Unmapped jobs on 1-2 identical partitions of 8 nodes."""
    rng = random.Random(1000 + seed)
    platform = Platform.homogeneous(rng.choice([1, 2]), nodes=8,
                                    bandwidth=rng.choice([1.0, 2.0]))
    out = []
    for i in range(jobs):
        n = rng.randint(1, 3)
        out.append(Job(f"p{i}", rng.choice([1, 2, 3, 4, 5, 8]),
                       tuple(rng.randint(1, 20) for _ in range(n)),
                       tuple(rng.randint(0, 10) for _ in range(n))))
    return Instance(f"random-packs-{seed}", platform, tuple(out))


IO_SCHED_CASES = [pytest.param(random_io_sched(s), id=f"rand{s}") for s in range(6)]
IO_SCHED_CASES += [pytest.param(read_instance(os.path.join(ROOT, "instances", f)),
                                id=f.removesuffix(".json"))
                   for f in ("tiny2.json", "tiny5.json")]


# -- IO-SCHED ----------------------------------------------------------------------
@pytest.mark.parametrize("objective", OBJECTIVES)
@pytest.mark.parametrize("instance", IO_SCHED_CASES)
def test_io_sched_matches_brute_force(instance: Instance, objective: str) -> None:
    import opt_sched.exact.brute_force as brute
    import opt_sched.simulation as simulation
    optimum, _ = brute.brute_force_io_sched(instance, objective, max_phases=14)
    bound = lower_bound(instance, objective, fixed_start=True)
    fifo = simulation.simulate(instance, None, "fifo")
    heuristic = fifo.makespan(instance) if objective == "makespan" \
        else fifo.max_stretch(instance)
    assert heuristic >= optimum - REL >= bound - 2 * REL
    values = []
    for backend in BACKENDS:
        result = solve_io_sched(instance, objective, backend, time_limit=20.0,
                                stop_at_bound=False)
        assert "skipped" not in result.info
        assert result.status is SolveStatus.OPTIMAL, (backend, result.info)
        assert close(result.objective, optimum), (backend, result.objective, optimum)
        assert result.lower_bound <= result.objective
        assert result.lower_bound >= bound - REL
        assert close(result.lower_bound, result.objective)
        assert_valid(instance, result.schedule)
        recomputed = result.schedule.makespan(instance) if objective == "makespan" \
            else result.schedule.max_stretch(instance)
        assert recomputed == result.objective
        assert result.problem == "io-sched" and result.solver == backend
        values.append(result.objective)
    assert close(values[0], values[1])


def test_io_sched_time_limit_keeps_a_valid_bound() -> None:
    """5 jobs x 10 iterations (735 order binaries) is not closed in 1 s: an
    incumbent (at worst the warm start), a proven bound below it, a
    validated schedule."""
    instance = busy_io_sched()
    bound = lower_bound(instance, "makespan", fixed_start=True)
    for backend in BACKENDS:
        result = solve_io_sched(instance, "makespan", backend, time_limit=1.0)
        assert result.status in (SolveStatus.OPTIMAL, SolveStatus.FEASIBLE)
        assert bound - REL <= result.lower_bound <= result.objective
        assert result.objective <= result.info["heuristic_upper_bound"] + REL
        assert result.info["bound_source"] != "none"
        assert_valid(instance, result.schedule)


def test_io_sched_stops_when_the_heuristic_meets_the_bound() -> None:
    """Two jobs, FIFO meets the longest-job bound (b is never delayed)."""
    jobs = (Job("a", 1, (1.0, 1.0), (1.0, 1.0), partition=0),
            Job("b", 1, (3.0, 3.0), (1.0, 1.0), partition=0))
    instance = Instance("easy", Platform.homogeneous(1, nodes=2), jobs)
    result = solve_io_sched(instance, "makespan")
    assert result.info.get("skipped") and result.status is SolveStatus.OPTIMAL
    assert result.objective == result.lower_bound == 8.0
    assert_valid(instance, result.schedule)


def test_io_sched_options_are_checked(tmp_path) -> None:
    instance = random_io_sched(0)
    with pytest.raises(OptionError, match="max_phases"):
        solve_io_sched(instance, "makespan", max_phases=1)
    with pytest.raises(OptionError, match="'bogus'"):
        solve_io_sched(instance, "makespan", bogus=1)
    with pytest.raises(OptionError, match="backend"):
        solve_io_sched(instance, "makespan", "gurobi")
    with pytest.raises(OptionError, match="objective"):
        solve_io_sched(instance, "mean-stretch")
    with pytest.raises(OptionError, match="suffix"):
        solve_io_sched(instance, "makespan", export=str(tmp_path / "model.txt"))
    unmapped = Instance("u", Platform.homogeneous(2, nodes=4),
                        (Job("a", 1, (1.0,), (1.0,)),))
    with pytest.raises(OptionError, match="partition=None"):
        solve_io_sched(unmapped, "makespan")


# -- level packing -----------------------------------------------------------------
def enumerate_planned(instance: Instance, sensibility: float | None) -> float:
    """Best planned makespan over every set partition of the jobs into packs
    that fit the nodes (and Make-Pack's cap with ``S``), each pack placed on
    the best of the R identical I/O nodes (all assignments tried)."""
    part = instance.platform.partitions[0]
    big_r = instance.platform.num_partitions
    jobs = list(instance.jobs)
    best = math.inf

    def pack_ok(pack: list[Job]) -> bool:
        if sum(j.nodes for j in pack) > part.nodes:
            return False
        if sensibility is None or len(pack) == 1:
            return True
        length = max(j.length(part.bandwidth) for j in pack)
        return sum(j.total_volume for j in pack) <= sensibility * part.bandwidth \
            * length + 1e-9

    def partitions(items: list[Job]):
        if not items:
            yield []
            return
        first, rest = items[0], items[1:]
        for sub in partitions(rest):
            yield [[first], *sub]
            for n in range(len(sub)):
                yield [*sub[:n], [first, *sub[n]], *sub[n + 1:]]

    for packs in partitions(jobs):
        if not all(pack_ok(p) for p in packs):
            continue
        lengths = [max(j.length(part.bandwidth) for j in p) for p in packs]
        for assign in itertools.product(range(big_r), repeat=len(packs)):
            loads = [0.0] * big_r
            for t, r in zip(lengths, assign):
                loads[r] += t
            best = min(best, max(loads))
    return best


def check_caps(instance: Instance, rows, sensibility: float | None) -> None:
    part = instance.platform.partitions[0]
    seen = sorted(j for row in rows for pack in row for j in pack)
    assert seen == sorted(job.id for job in instance.jobs)
    for row in rows:
        for pack in row:
            members = [instance.job(j) for j in pack]
            assert sum(j.nodes for j in members) <= part.nodes
            if sensibility is not None and len(members) > 1:
                length = max(j.length(part.bandwidth) for j in members)
                volume = sum(j.total_volume for j in members)
                assert volume <= sensibility * part.bandwidth * length + 1e-9


@pytest.mark.parametrize("sensibility", [None, 1.0, 0.5])
@pytest.mark.parametrize("seed", range(4))
def test_level_packing_plans_optimally(seed: int, sensibility: float | None) -> None:
    import opt_sched.heuristics as heuristics
    instance = random_packs(seed)
    band = instance.platform.partitions[0].bandwidth
    expected = enumerate_planned(instance, sensibility)
    planned = []
    for backend in BACKENDS:
        result = solve_packs(instance, "makespan", backend, time_limit=20.0,
                             sensibility=sensibility)
        rows = [list(row) for row in result.schedule.packs]
        check_caps(instance, rows, sensibility)
        assert close(planned_makespan(instance, rows, band),
                     result.info["planned_makespan"])
        assert close(result.info["planned_makespan"], expected), (backend, seed)
        assert_valid(instance, result.schedule)
        assert result.objective == result.schedule.makespan(instance)
        assert result.objective >= result.info["planned_makespan"] - REL
        assert result.lower_bound <= result.objective
        assert result.lower_bound >= lower_bound(instance, "makespan") - REL
        if sensibility is None:  # the planned optimum bounds every pack schedule
            assert result.lower_bound >= expected - REL
        planned.append(result.info["planned_makespan"])
    assert close(planned[0], planned[1])
    methods = ["make-pack", "first-fit"] if sensibility is None else ["make-pack"]
    for method in methods:
        plan = heuristics.pack_plan(instance, method, sensibility or 1.0)
        heuristic = planned_makespan(instance, [list(r) for r in plan.packs], band)
        assert planned[0] <= heuristic + REL, (method, planned[0], heuristic)


def test_level_packing_respects_mapped_jobs_and_io_nodes() -> None:
    instance = random_packs(1, jobs=5)
    if instance.platform.num_partitions == 1:
        instance = instance.replace(platform=Platform.homogeneous(2, nodes=8))
    ids = [job.id for job in instance.jobs]
    instance = instance.mapped_to({ids[0]: 1, ids[1]: 0})
    result = solve_packs(instance, "makespan", "cbc", time_limit=10.0)
    packs = result.schedule.packs
    assert any(ids[0] in pack for pack in packs[1])
    assert any(ids[1] in pack for pack in packs[0])
    assert_valid(instance, result.schedule)
    one = solve_packs(random_packs(2).replace(
        platform=Platform.homogeneous(2, nodes=8)), "makespan", "cbc",
        time_limit=10.0, io_nodes=1)
    assert one.schedule.packs[1] == () if len(one.schedule.packs) > 1 else True
    assert one.info["planned_bound_is_lower_bound"] is False


def test_level_packing_options_are_checked() -> None:
    instance = random_packs(0)
    with pytest.raises(OptionError, match="objective"):
        solve_packs(instance, "max-stretch")
    with pytest.raises(OptionError, match="sensibility"):
        solve_packs(instance, sensibility=0)
    with pytest.raises(OptionError, match="io_nodes"):
        solve_packs(instance, io_nodes=5)
    hetero = Instance("h", Platform((Partition(8, 1.0), Partition(8, 2.0))),
                      instance.jobs)
    with pytest.raises(OptionError, match="heterogeneous"):
        solve_packs(hetero)


# -- export ------------------------------------------------------------------------
@pytest.mark.parametrize("suffix", [".lp", ".mps"])
def test_export_writes_a_readable_model(tmp_path, suffix: str) -> None:
    pulp = load_pulp()
    instance = random_io_sched(1)
    path = tmp_path / f"model{suffix}"
    result = solve_io_sched(instance, "makespan", "cbc", time_limit=10.0,
                            export=str(path), stop_at_bound=False)
    assert result.status is SolveStatus.OPTIMAL
    assert path.exists() and path.stat().st_size > 0
    assert result.info["export"] == str(path)
    if suffix == ".mps":
        _, prob = pulp.LpProblem.fromMPS(str(path))
        assert len(prob.variables()) == result.info["variables"]
        assert len(prob.constraints) == result.info["constraints"]
        solved = solve_milp(prob, MilpSettings("cbc", time_limit=10.0))
        assert close(solved.objective, result.objective)
    else:
        text = path.read_text()
        assert "Minimize" in text and "Binaries" in text
    packs = tmp_path / f"packs{suffix}"
    solve_packs(random_packs(0), export=str(packs), time_limit=10.0)
    assert packs.stat().st_size > 0


# -- backend -----------------------------------------------------------------------
def knapsack(pulp, weights, values, capacity):
    prob = pulp.LpProblem("knap", pulp.LpMinimize)
    x = [pulp.LpVariable(f"x{i}", cat="Binary") for i in range(len(weights))]
    prob += pulp.lpSum(-v * xi for v, xi in zip(values, x))
    prob += pulp.lpSum(w * xi for w, xi in zip(weights, x)) <= capacity
    return prob


@pytest.mark.parametrize("backend", BACKENDS)
def test_backend_statuses_and_relaxation(backend: str) -> None:
    pulp = load_pulp()
    weights, values, capacity = [5, 4, 3, 7], [10, 7, 5, 12], 10
    best = min(-sum(v for v, c in zip(values, pick) if c)
               for pick in itertools.product([0, 1], repeat=4)
               if sum(w for w, c in zip(weights, pick) if c) <= capacity)
    prob = knapsack(pulp, weights, values, capacity)
    out = solve_milp(prob, MilpSettings(backend, time_limit=10.0))
    assert out.status is SolveStatus.OPTIMAL
    assert close(out.objective, best) and out.bound <= best + REL
    # Dantzig's fractional knapsack: the LP relaxation value, by hand
    ratio = sorted(zip(values, weights), key=lambda p: -p[0] / p[1])
    room, lp = capacity, 0.0
    for v, w in ratio:
        take = min(1.0, room / w)
        lp -= v * take
        room -= w * take
    relaxed = _relaxation_bound(knapsack(pulp, weights, values, capacity),
                                MilpSettings(backend, time_limit=10.0))
    assert close(relaxed, lp) and relaxed <= best
    infeasible = knapsack(pulp, weights, values, capacity)
    infeasible += pulp.lpSum(infeasible.variables()) >= 5
    assert solve_milp(infeasible, MilpSettings(backend, time_limit=10.0)).status \
        is SolveStatus.INFEASIBLE


def test_cbc_log_bounds_are_rounded_down() -> None:
    log = ("Continuous objective value is 3.5 - 0.00 seconds\n"
           "Cbc0010I After 0 nodes, 1 on tree, 12 best solution, best possible 9.125 "
           "(0.01 seconds)\n")
    assert parse_cbc_log(log) == (9.1245, "cbc-log:best-possible")
    stopped = log + "Result - Stopped on time limit\n\nObjective value: 12\n" \
        "Lower bound:                    10.250\nGap: 0.17\n"
    value, source = parse_cbc_log(stopped)
    assert source == "cbc-log:lower-bound" and close(value, 10.2495)
    assert parse_cbc_log("Continuous objective value is 3.5 - 0 s") == \
        (3.45, "cbc-log:root-lp")
    assert parse_cbc_log("nothing") == (None, "none")


def test_settings_are_checked() -> None:
    with pytest.raises(OptionError, match="time_limit"):
        MilpSettings(time_limit=0)
    with pytest.raises(OptionError, match="gap_rel"):
        MilpSettings(gap_rel=2)
    with pytest.raises(OptionError, match="threads"):
        MilpSettings(threads=0)
    with pytest.raises(OptionError, match="suffix"):
        export_model(None, "model.json")


# -- ortools and highspy in one process --------------------------------------------
_SESSION = textwrap.dedent("""
    import json, sys
    from opt_sched.exact.milp.backend import (MilpSettings, highs_mode, load_pulp,
                                              solve_milp)
    from tests.milp_helpers import presolve_bug_problem

    def cpsat():
        from ortools.sat.python import cp_model
        model = cp_model.CpModel()
        x = model.new_int_var(0, 10, "x")
        y = model.new_int_var(0, 10, "y")
        model.add(x + 2 * y >= 7)
        model.minimize(3 * x + 4 * y)
        solver = cp_model.CpSolver()
        assert solver.solve(model) == cp_model.OPTIMAL
        return solver.objective_value

    def highs():
        prob = presolve_bug_problem(load_pulp())
        out = solve_milp(prob, MilpSettings("highs", time_limit=10.0))
        return out.objective, str(out.status), out.mode

    steps = {"cpsat": cpsat, "highs": highs}
    print(json.dumps({name: steps[name]() for name in sys.argv[1:]}))
""")


@pytest.mark.parametrize("mode", ["auto", "subprocess"])
@pytest.mark.parametrize("order", [("cpsat", "highs"), ("highs", "cpsat")])
def test_cpsat_and_highs_in_one_process(order: tuple[str, str], mode: str) -> None:
    # find_spec, not importorskip: importing highspy here would load it into
    # the test process, where a later first import of ortools may then fail.
    for package in ("ortools", "highspy"):
        if importlib.util.find_spec(package) is None:
            pytest.skip(f"{package} is not installed")
    if mode == "subprocess" and order == ("highs", "cpsat"):
        pytest.skip("one subprocess-mode order is enough (slow: fresh interpreters)")
    env = {**os.environ, "OPT_SCHED_HIGHS": mode}
    proc = subprocess.run([sys.executable, "-c", _SESSION, *order], env=env,
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["cpsat"] == 15.0   # x = 1, y = 3; x = 0, y = 4 costs 16
    objective, status, used = out["highs"]
    # x integer, y continuous: x = 0 -> 15; x = 1 -> 3 + 13 = 16; best 15
    assert status == "optimal" and close(objective, 15.0)
    if mode == "subprocess":
        assert used == "highs-subprocess"
    else:
        assert used in ("highs-in-process", "highs-subprocess")


@pytest.mark.parametrize("backend", BACKENDS)
def test_default_settings_avoid_the_highs_1_14_presolve_bug(backend: str) -> None:
    """The presolve-bug MILP (:func:`presolve_bug_problem`): 15, not 24."""
    prob = presolve_bug_problem(load_pulp())
    out = solve_milp(prob, MilpSettings(backend, time_limit=10.0))
    assert out.status is SolveStatus.OPTIMAL and close(out.objective, 15.0)
    assert out.bound <= 15.0 + REL
