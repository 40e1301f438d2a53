"""CP-SAT models: optimum against brute force, bounds, validator, time grid."""

from __future__ import annotations

import dataclasses
import math
import random

import pytest

import opt_sched.bounds as bounds
import opt_sched.validation as validation
from opt_sched import Instance, Job, Partition, Platform, read_instance
from opt_sched.errors import OptionError
from opt_sched.exact import solve
from opt_sched.exact.brute_force import brute_force_io_sched
from opt_sched.exact.cpsat.common import (
    ModelData,
    Structure,
    TimeGrid,
    choose_grid,
    continuous_lengths,
    retime,
    tick_lengths,
)
from opt_sched.operations import job_operations as job_phases

from .conftest import INSTANCES

LIMIT = 10.0


def random_io_sched(seed: int, partitions: int = 1, jobs: int = 3,
                    max_ops: int = 7, bandwidth: float = 1.0,
                    fractional: bool = False) -> Instance:
    """A tiny mapped instance: integer data (or fractional), zero phases
    allowed, releases, at most ``max_ops`` I/O phases per partition."""
    rng = random.Random(seed)
    platform = Platform(tuple(Partition(8, bandwidth) for _ in range(partitions)))
    out = []
    ops = [0] * partitions
    for i in range(jobs):
        k = i % partitions
        iterations = rng.randint(1, 3)
        compute, volume = [], []
        for _ in range(iterations):
            w = rng.randint(0, 5) + (rng.random() if fractional else 0.0)
            v = rng.choice([0, 1, 2, 3, 4]) * (1.0 + (rng.random() if fractional
                                                      else 0.0))
            if v > 0 and ops[k] >= max_ops:
                v = 0.0
            ops[k] += v > 0
            compute.append(w)
            volume.append(v)
        if sum(compute) + sum(volume) == 0:
            compute[0] = 1.0
        release = rng.choice([0, 0, 1, 3])
        out.append(Job(f"j{i}", rng.randint(1, 8 // max(1, jobs // partitions)),
                       tuple(compute), tuple(volume), release=release, partition=k))
    return Instance(f"rand{seed}", platform, tuple(out))


def value(instance: Instance, schedule, objective: str) -> float:
    if objective == "makespan":
        return schedule.makespan(instance)
    return schedule.max_stretch(instance)


def all_bounds(instance: Instance, objective: str, fixed: bool) -> dict[str, float]:
    if objective == "makespan":
        return bounds.makespan_bounds(instance, fixed_start=fixed)
    return bounds.max_stretch_bounds(instance, fixed_start=fixed)


# -- IO-SCHED against brute force ---
@pytest.mark.parametrize("objective", ["makespan", "max-stretch"])
@pytest.mark.parametrize("seed", range(6))
def test_io_sched_matches_brute_force(seed: int, objective: str) -> None:
    instance = random_io_sched(seed, partitions=1 + seed % 2, jobs=3 + seed % 2)
    optimum, _ = brute_force_io_sched(instance, objective)
    result = solve(instance, "io-sched", objective, time_limit=LIMIT)
    assert str(result.status) == "optimal"
    assert result.info["exact_grid"]
    validation.assert_feasible(instance, result.schedule)
    assert result.objective == pytest.approx(optimum, rel=1e-6)
    assert result.lower_bound <= optimum * (1 + 1e-9) + 1e-9


@pytest.mark.parametrize("name", ["tiny2", "tiny5"])
@pytest.mark.parametrize("objective", ["makespan", "max-stretch"])
def test_bundled_io_sched_matches_brute_force(name: str, objective: str) -> None:
    instance = read_instance(INSTANCES / f"{name}.json")
    optimum, _ = brute_force_io_sched(instance, objective, max_phases=16)
    result = solve(instance, "io-sched", objective, time_limit=LIMIT)
    assert str(result.status) == "optimal"
    validation.assert_feasible(instance, result.schedule)
    assert result.objective == pytest.approx(optimum, rel=1e-6)


@pytest.mark.parametrize("objective", ["makespan", "max-stretch"])
def test_fractional_instance_within_the_rounding_bound(objective: str) -> None:
    """Irrational I/O lengths (b = pi): the grid is inexact; the validated value
    stays within the documented error of the optimum and the bound stays valid."""
    instance = random_io_sched(11, jobs=3, bandwidth=math.pi, fractional=True)
    optimum, _ = brute_force_io_sched(instance, objective)
    result = solve(instance, "io-sched", objective, time_limit=LIMIT)
    assert not result.info["exact_grid"]
    validation.assert_feasible(instance, result.schedule)
    assert result.lower_bound <= optimum * (1 + 1e-9)
    assert result.objective >= optimum * (1 - 1e-9)
    # one tick per item at most (about 1e-3 of the shortest duration each)
    assert result.objective <= optimum * (1 + 1e-2)


def test_coarse_resolution_keeps_bounds_valid() -> None:
    """A user resolution coarser than the data: schedule valid, bound valid."""
    instance = random_io_sched(3, jobs=4, fractional=True)
    optimum, _ = brute_force_io_sched(instance, "makespan")
    result = solve(instance, "io-sched", "makespan", time_limit=LIMIT, resolution=0.7)
    validation.assert_feasible(instance, result.schedule)
    assert result.lower_bound <= optimum * (1 + 1e-9)
    assert result.objective >= optimum * (1 - 1e-9)


@pytest.mark.parametrize("objective", ["makespan", "max-stretch"])
def test_heuristic_above_optimum_above_bounds(objective: str) -> None:
    import opt_sched.simulation as simulation
    instance = read_instance(INSTANCES / "tiny5.json")
    result = solve(instance, "io-sched", objective, time_limit=LIMIT)
    assert str(result.status) == "optimal"
    for policy in simulation.POLICY_NAMES:
        schedule = simulation.simulate(instance, simulation.OnePackPlan(), policy)
        validation.assert_feasible(instance, schedule)
        assert value(instance, schedule, objective) >= result.objective * (1 - 1e-9)
    for name, bound in all_bounds(instance, objective, True).items():
        assert bound <= result.objective * (1 + 1e-9), name


def test_identical_jobs_symmetry_breaking_keeps_the_optimum() -> None:
    jobs = tuple(Job.periodic(f"a{i}", 1, 3, 2, 3, partition=0) for i in range(3))
    jobs += (Job.periodic("b", 1, 2, 3, 2, partition=0),)
    instance = Instance("sym", Platform.homogeneous(1, 8), jobs)
    with_sym = solve(instance, "io-sched", time_limit=LIMIT)
    without = solve(instance, "io-sched", time_limit=LIMIT, symmetry=False)
    assert str(with_sym.status) == str(without.status) == "optimal"
    assert with_sym.objective == pytest.approx(without.objective)
    assert with_sym.objective == pytest.approx(brute_force_io_sched(instance)[0])


# -- HPC-IO and packs ---
@pytest.mark.parametrize("name", ["hetero6", "deps5"])
@pytest.mark.parametrize("objective", ["makespan", "max-stretch"])
def test_hpc_io_bundled(name: str, objective: str) -> None:
    instance = read_instance(INSTANCES / f"{name}.json")
    result = solve(instance, "hpc-io", objective, time_limit=LIMIT)
    assert str(result.status) == "optimal"
    validation.assert_feasible(instance, result.schedule)
    assert result.schedule.packs is None
    for bound_name, bound in all_bounds(instance, objective, False).items():
        assert bound <= result.objective * (1 + 1e-9), bound_name
    packs = solve(instance, "packs", objective, time_limit=LIMIT)
    validation.assert_feasible(instance, packs.schedule)
    assert packs.schedule.packs is not None
    # packs are a restriction of HPC-IO
    assert packs.objective >= result.objective * (1 - 1e-6)
    assert packs.lower_bound >= result.objective * (1 - 1e-6) or \
        str(packs.status) != "optimal"


def test_hpc_io_redundant_constraints_do_not_change_the_optimum() -> None:
    instance = read_instance(INSTANCES / "hetero6.json")
    a = solve(instance, "hpc-io", time_limit=LIMIT)
    b = solve(instance, "hpc-io", time_limit=LIMIT, redundant=True)
    assert str(a.status) == str(b.status) == "optimal"
    assert a.objective == pytest.approx(b.objective)


def test_hpc_io_at_most_one_pack_schedule_per_partition() -> None:
    """On one partition with all jobs fitting, HPC-IO <= packs <= IO-SCHED."""
    instance = read_instance(INSTANCES / "tiny5.json")
    free = instance.with_jobs(dataclasses.replace(j, partition=None)
                              for j in instance.jobs)
    hpc = solve(free, "hpc-io", time_limit=LIMIT)
    packs = solve(free, "packs", time_limit=LIMIT)
    one = solve(instance, "io-sched", time_limit=LIMIT)
    for result, inst in ((hpc, free), (packs, free), (one, instance)):
        validation.assert_feasible(inst, result.schedule)
    assert hpc.objective <= packs.objective * (1 + 1e-9)
    assert packs.objective <= one.objective * (1 + 1e-9)


def test_packs_sensibility_and_max_packs() -> None:
    instance = read_instance(INSTANCES / "tiny5.json")
    free = instance.with_jobs(dataclasses.replace(j, partition=None)
                              for j in instance.jobs)
    loose = solve(free, "packs", time_limit=LIMIT)
    tight = solve(free, "packs", time_limit=LIMIT, sensibility=1.0)
    single = solve(free, "packs", time_limit=LIMIT, max_packs=1)
    for result in (loose, tight, single):
        validation.assert_feasible(free, result.schedule)
        assert str(result.status) == "optimal"
    assert tight.objective >= loose.objective * (1 - 1e-9)
    assert len(single.schedule.packs[0]) == 1
    parts = free.platform.partitions
    for pack in tight.schedule.packs[0]:
        jobs = [free.job(x) for x in pack]
        io = sum(j.io_time(parts[0].bandwidth) for j in jobs)
        assert io <= max(j.length(parts[0].bandwidth) for j in jobs) * (1 + 1e-9)


# -- time grid and re-timer ---
def test_choose_grid_finds_exact_grid() -> None:
    grid = choose_grid([32, 10, 2.5, 16], horizon=1000.0)
    assert grid.exact and grid.tick == pytest.approx(0.5)
    grid = choose_grid([0.1, 0.3], horizon=10.0)
    assert grid.exact and grid.tick == pytest.approx(0.1)
    grid = choose_grid([1.0, math.pi], horizon=100.0)
    assert not grid.exact
    assert grid.tick <= 1.0 / 1000 + 1e-12
    assert TimeGrid(0.1, True).up(0.30000000000000004) == 3
    assert TimeGrid(0.5, True).up(1.2) == 3


def test_time_grid_rounds_the_safe_way_on_long_horizons() -> None:
    """Half a tick off a whole count is never counted as that count, however
    many ticks (a relative tolerance alone reaches 10 ticks at 10^10, and a
    rounded-down time counted as the next tick breaks a relaxation); float
    noise still is."""
    grid = TimeGrid(1.0, False)
    for ticks in (10**6, 10**8, 10**10, 10**12):
        assert grid.down(ticks - 0.5) == ticks - 1
        assert grid.up(ticks + 0.5) == ticks + 1
        assert grid.down(ticks - 5e-9 * ticks) <= ticks - 5e-9 * ticks
    fine = TimeGrid(7e-10, False)
    assert fine.down(7.0) == 10**10 and fine.up(7.0) == 10**10


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), "x"])
def test_resolution_must_be_positive(bad: object) -> None:
    with pytest.raises(OptionError, match="resolution"):
        choose_grid([1.0], 10.0, resolution=bad)  # type: ignore[arg-type]


def test_retime_in_ticks_dominates_true_times() -> None:
    """Rounded-up lengths give later times than true ones, event by event."""
    instance = random_io_sched(5, jobs=4, bandwidth=math.pi, fractional=True)
    data = ModelData.build(instance, [(0,)] * instance.num_jobs, resolution=0.25)
    phases = [job_phases(job) for job in instance.jobs]
    ops = sorted((q, i) for i in range(instance.num_jobs)
                 for q in range(phases[i].count))
    structure = Structure(tuple([0] * instance.num_jobs),
                          (tuple((i, q) for q, i in ops),),
                          packs=((tuple(range(instance.num_jobs)),),))
    true = retime(instance, phases, structure, continuous_lengths(instance, phases))
    ticks = retime(instance, phases, structure, tick_lengths(data))
    for i in range(instance.num_jobs):
        assert true.completion[i] <= ticks.completion[i] * 0.25 + 1e-9
        for a, b in zip(true.op_start[i], ticks.op_start[i]):
            assert a <= b * 0.25 + 1e-9


def test_retime_checks_its_deadline_while_it_builds_the_graph() -> None:
    """A deadline that has passed stops the re-timer before it builds the
    successor lists and runs the longest paths: every building step checks
    it (a cold CI run once overran a 3 s limit by 1.09 s there)."""

    class Passed:
        calls = 0

        def check(self, label: str) -> None:
            self.calls += 1
            raise TimeoutError(label)

    class Counting:
        calls = 0

        def check(self, label: str) -> None:
            self.calls += 1

    instance = random_io_sched(7, jobs=4, bandwidth=1.0, fractional=True)
    phases = [job_phases(job) for job in instance.jobs]
    ops = sorted((q, i) for i in range(instance.num_jobs)
                 for q in range(phases[i].count))
    structure = Structure(tuple([0] * instance.num_jobs),
                          (tuple((i, q) for q, i in ops),))
    lengths = continuous_lengths(instance, phases)
    passed = Passed()
    with pytest.raises(TimeoutError, match="re-timing"):
        retime(instance, phases, structure, lengths, deadline=passed)
    assert passed.calls == 1
    counting = Counting()
    times = retime(instance, phases, structure, lengths, deadline=counting)
    assert times == retime(instance, phases, structure, lengths)
    # per job while the nodes and the job chains are built, and once per
    # chunk of the I/O order, of the successor lists and of their filling
    assert counting.calls >= 2 * instance.num_jobs + 3
