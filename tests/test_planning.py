"""The average-bandwidth planning model: CP-SAT and MILP against an
independent brute force, execution and validation, honest bounds."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest

from opt_sched import Instance, Job, Partition, Platform, read_instance
from opt_sched.errors import OptionError
from opt_sched.exact.planning import greedy_partitions, solve_planning
from opt_sched.exact.planning.data import PlanningData
from opt_sched.validation import validate

INSTANCES = Path(__file__).resolve().parents[1] / "instances"


def brute_force_rcpsp(inst: Instance) -> float:
    """Optimal makespan of a no-I/O, one-partition instance by enumerating
    every precedence-feasible job order through a continuous serial SGS (the
    active schedules, which contain an optimum for the makespan)."""
    jobs = inst.jobs
    caps = {"nodes": inst.platform.total_nodes, **inst.platform.resource_capacity}

    def use(job: Job) -> dict[str, float]:
        return {"nodes": job.nodes, **job.demand}

    best = float("inf")
    for order in itertools.permutations(range(len(jobs))):
        pos = {jobs[i].id: k for k, i in enumerate(order)}
        if any(pos[d] > pos[jobs[i].id] for i in order for d in jobs[i].after):
            continue
        placed: list[tuple[float, float, dict[str, float]]] = []
        end: dict[str, float] = {}
        for i in order:
            job = jobs[i]
            length = job.total_compute
            est = max([job.release] + [end[d] for d in job.after])
            for t in sorted({est} | {e for _, e, _ in placed if e > est}):
                points = [t] + [s for s, _, _ in placed if t < s < t + length]
                ok = all(sum(u.get(r, 0) for s, e, u in placed if s <= p < e)
                         + use(job).get(r, 0) <= caps[r]
                         for p in points for r in caps) if length > 0 else True
                if ok:
                    placed.append((t, t + length, use(job)))
                    end[job.id] = t + length
                    break
        best = min(best, max(end.values()))
    return best


def random_rcpsp(seed: int, n: int = 5) -> Instance:
    rng = random.Random(seed)
    plat = Platform((Partition(6, 1.0),), (("bb", 5.0),))
    jobs = []
    for i in range(n):
        after = [f"j{k}" for k in range(i) if rng.random() < 0.25]
        jobs.append(Job(f"j{i}", rng.randint(1, 5), (float(rng.randint(1, 6)),),
                        (0.0,), release=float(rng.choice([0, 0, 2])),
                        after=tuple(after),
                        demands=(("bb", float(rng.randint(0, 4))),)))
    return Instance(f"rcpsp{seed}", plat, tuple(jobs))


def test_planning4_all_solvers_agree_with_brute_force() -> None:
    inst = read_instance(INSTANCES / "planning4.json")
    # b and d do I/O, but the sum of all beta_i (1/3 + 1/4) is below B = 1,
    # so the bandwidth never binds: the plan is a relaxation of the execution.
    no_io = inst.with_jobs(Job(j.id, j.nodes, (j.length(1.0),), (0.0,),
                               after=j.after, demands=j.demands)
                           for j in inst.jobs)
    expected = brute_force_rcpsp(no_io)
    for solver in ("cpsat", "cbc", "highs"):
        result = solve_planning(inst, solver=solver, time_limit=10)
        assert validate(inst, result.schedule).feasible, solver
        assert result.info["planned_makespan"] == expected, solver
        assert result.info["plan_bound_valid"] is True
        assert result.objective >= result.lower_bound - 1e-9
        assert result.objective == expected  # I/O never waits here
        assert str(result.status) == "optimal"


@pytest.mark.parametrize("seed", range(4))
def test_random_rcpsp_matches_brute_force(seed: int) -> None:
    inst = random_rcpsp(seed)
    expected = brute_force_rcpsp(inst)
    for solver in ("cpsat", "cbc"):
        result = solve_planning(inst, solver=solver, time_limit=10)
        report = validate(inst, result.schedule)
        assert report.feasible, report.violations
        assert result.objective == pytest.approx(expected), solver
        assert str(result.status) == "optimal"


def test_binding_bandwidth_bound_is_not_claimed() -> None:
    # Three I/O-heavy jobs, B = 1: the average constraint serialises them in the
    # plan, but rules 1-5 allow them to overlap, so the plan optimum is no bound.
    plat = Platform((Partition(8, 1.0),))
    jobs = tuple(Job.periodic(f"a{i}", 2, 2.0, 2.0, 3) for i in range(3))
    inst = Instance("io3", plat, jobs)
    data = PlanningData.from_instance(inst)
    assert data.bandwidth_binds()
    result = solve_planning(inst, time_limit=10)
    assert validate(inst, result.schedule).feasible
    assert result.info["plan_bound_valid"] is False
    # T = 12, beta = 1/2: two jobs at a time in the plan, then the third
    assert result.info["planned_makespan"] == pytest.approx(24.0)
    assert result.lower_bound <= result.objective + 1e-9


def test_fractional_times_and_multi_partition() -> None:
    inst = read_instance(INSTANCES / "hetero6.json")
    for solver in ("cpsat", "cbc"):
        result = solve_planning(inst, solver=solver, time_limit=10)
        assert validate(inst, result.schedule).feasible
        assert result.lower_bound <= result.objective + 1e-9
    tiny5 = read_instance(INSTANCES / "tiny5.json")  # fractional lengths
    result = solve_planning(tiny5, time_limit=10)
    assert result.info["resolution"] < 1
    assert validate(tiny5, result.schedule).feasible


def test_named_resource_respected_when_io_delays_jobs() -> None:
    plat = Platform((Partition(8, 1.0),), (("bb", 10.0), ("bandwidth", 2.0)))
    jobs = (Job.periodic("A", 2, 2, 2, 2, demands=(("bb", 6.0),)),
            Job.periodic("B", 2, 2, 2, 2, demands=(("bb", 6.0),)),
            Job.periodic("C", 2, 1, 3, 3))
    inst = Instance("bbio", plat, jobs)
    result = solve_planning(inst, time_limit=10)
    assert validate(inst, result.schedule).feasible
    a, b = result.schedule["A"], result.schedule["B"]
    assert (b.start >= result.schedule.completion(inst, "A")
            or a.start >= result.schedule.completion(inst, "B"))


def test_greedy_partitions_first_fit() -> None:
    plat = Platform.homogeneous(2, nodes=4)
    jobs = tuple(Job(i, q, (5.0,), (0.0,)) for i, q in (("a", 3), ("b", 3), ("c", 1)))
    inst = Instance("gp", plat, jobs)
    data = PlanningData.from_instance(inst)
    mapping = greedy_partitions(inst, data, {"a": 0.0, "b": 0.0, "c": 0.0})
    assert mapping == {"a": 0, "b": 1, "c": 0}


def test_options_and_export(tmp_path: Path) -> None:
    inst = read_instance(INSTANCES / "planning4.json")
    with pytest.raises(OptionError, match="max-stretch"):
        solve_planning(inst, objective="max-stretch")
    with pytest.raises(OptionError, match="solver='gurobi'"):
        solve_planning(inst, solver="gurobi")
    with pytest.raises(OptionError, match="suffix"):
        solve_planning(inst, export=str(tmp_path / "m.txt"))
    for name in ("m.lp", "m.mps", "m.pbtxt"):
        solve_planning(inst, time_limit=5, export=str(tmp_path / name))
        assert (tmp_path / name).stat().st_size > 0


def test_front_door_dispatch() -> None:
    from opt_sched.exact.solve import solve
    inst = read_instance(INSTANCES / "planning4.json")
    result = solve(inst, problem="planning", time_limit=10)
    assert str(result.status) == "optimal"
    assert result.objective == result.info["planned_makespan"]


def test_two_full_searches_unless_the_user_picks_a_portfolio() -> None:
    """On 2 workers the planning model runs two full CDCL searches (CP-SAT's
    default gives the second thread to helpers that cannot prove); a user
    portfolio replaces ours, and the CP-SAT log confirms what runs."""
    from opt_sched.exact.cpsat.settings import PlanningCpsatSettings as CpSatOptions
    from opt_sched.exact.planning.cpsat import PlanningCpsat as PlanningCpSat
    from opt_sched.exact.planning.data import sgs_upper_bound

    inst = read_instance(INSTANCES / "planning4.json")
    ticks = PlanningData.from_instance(inst).to_ticks(None, 1e-3, 10**5)
    horizon, plan = sgs_upper_bound(ticks)
    ours = PlanningCpSat(ticks, horizon, 0, plan, CpSatOptions(time_limit=5))
    solver = ours._solver(1.0)
    assert list(solver.parameters.subsolvers) == ["max_lp", "no_lp"]
    assert solver.parameters.num_full_subsolvers == 2
    assert not solver.parameters.use_lns
    theirs = PlanningCpSat(ticks, horizon, 0, plan, CpSatOptions(
        time_limit=5, params={"subsolvers": ["default_lp"]}))
    solver = theirs._solver(1.0)
    assert list(solver.parameters.subsolvers) == ["default_lp"]
    assert solver.parameters.use_lns
    one = PlanningCpSat(ticks, horizon, 0, plan,
                        CpSatOptions(time_limit=5, num_workers=1))
    assert one.default_params() == {}


def test_unknown_cpsat_parameter_is_an_error_even_when_no_search_runs() -> None:
    # planning4's serial-SGS plan may meet its bound, so no solver is built
    inst = read_instance(INSTANCES / "planning4.json")
    with pytest.raises(OptionError, match="'no_such_parameter'"):
        solve_planning(inst, params={"no_such_parameter": 1})
