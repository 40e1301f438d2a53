"""Workload generators: the seed 003 protocol (§6.2.2) and Tucan (Table 1)."""

from __future__ import annotations

import numpy as np
import pytest

from opt_sched import OptionError, read_instance
from opt_sched.workloads import generate, generate_ics2020, tucan_workload
from opt_sched.workloads.ics2020 import (
    Q_VALUES,
    q_distribution,
    q_mean_target,
    truncated_normal,
)

from .conftest import INSTANCES


@pytest.mark.parametrize(("alpha", "seed"), [(0.5, 0), (1.0, 1), (4.25, 2), (10, 3)])
def test_ics2020_ranges(alpha, seed):
    inst = generate_ics2020(alpha, seed)
    assert 25 <= inst.num_jobs <= 100
    assert inst.platform.num_partitions == 1
    part = inst.platform.partitions[0]
    assert (part.nodes, part.bandwidth) == (2048, 1.0)
    for job in inst.jobs:
        assert job.is_periodic and job.partition is None and job.release == 0
        assert 250 <= job.iterations <= 1000
        assert 10 <= job.compute[0] <= 100
        assert job.nodes in Q_VALUES and job.nodes <= 2048
        assert 0 <= job.io_volume[0] / job.compute[0] <= 1.0


def test_ics2020_is_deterministic_and_seeds_differ():
    a = generate_ics2020(2.0, 7)
    assert a == generate_ics2020(2.0, 7)
    assert a.jobs != generate_ics2020(2.0, 8).jobs
    assert a.jobs != generate_ics2020(2.25, 7).jobs


def test_ics2020_io_nodes_keep_the_jobs():
    one, five = generate_ics2020(3.0, 4), generate_ics2020(3.0, 4, io_nodes=5)
    assert one.jobs == five.jobs
    assert five.platform.num_partitions == 5
    assert five.io_load() == pytest.approx(one.io_load())


def test_ics2020_actual_alpha_follows_alpha_gen():
    """eq. 6 on the workloads: the median actual load grows with alpha_gen and
    stays within a factor ~2 of it (Q-bar is a first approximation)."""
    low = np.median([generate_ics2020(1.0, s).io_load() for s in range(6)])
    high = np.median([generate_ics2020(8.0, s).io_load() for s in range(6)])
    assert 0.5 < low < 2.0
    assert 4.0 < high < 16.0


def test_ics2020_n_jobs_and_errors():
    assert generate_ics2020(1.0, 0, n_jobs=3).num_jobs == 3
    with pytest.raises(OptionError, match="alpha_gen=0"):
        generate_ics2020(0, 0)
    with pytest.raises(OptionError, match="seed=-1"):
        generate_ics2020(1.0, -1)


@pytest.mark.parametrize("mean", [1.0, 1.5, 18.6, 100.0, 1000.0, 1940.0, 2048.0])
def test_q_distribution_has_the_requested_mean(mean):
    p = q_distribution(mean)
    assert p.min() >= 0 and p.sum() == pytest.approx(1.0)
    assert float(p @ np.asarray(Q_VALUES, float)) == pytest.approx(mean, rel=1e-9)


def test_q_mean_target_formula():
    # beta = 1: m = 0.1, Q-bar = 2048 * 0.1 / (2 * 1.1)
    assert q_mean_target(2.0, 1.0) == pytest.approx(2048 * 0.1 / 2.2)
    assert q_mean_target(1.0, 0.0) == pytest.approx(2048 * 0.9 / 1.9)


def test_truncated_normal_stays_inside_and_has_the_truncated_mean():
    rng = np.random.default_rng(0)
    x = truncated_normal(rng, 0.1, 0.1, 0.0, 1.0, 40000)
    assert x.min() >= 0 and x.max() <= 1
    # mean of N(0.1, 0.1) cut at one sd below: 0.1 + 0.1 phi(1) / Phi(1)
    assert x.mean() == pytest.approx(0.1 + 0.1 * 0.24197 / 0.84134, abs=2e-3)


def test_tucan_batch_one_is_the_bundled_instance():
    assert tucan_workload(1.0) == read_instance(INSTANCES / "tucan5.json")


def test_tucan_batches():
    assert [j.iterations for j in tucan_workload(2).jobs] == [500, 1000, 2000, 2000,
                                                              1000]
    assert [j.iterations for j in tucan_workload(0.001).jobs] == [1, 1, 1, 1, 1]
    lengths = {j.length(1.0) for j in tucan_workload(1).jobs}
    assert lengths == {10500.0}
    with pytest.raises(OptionError, match="batch=0"):
        tucan_workload(0)


def test_generate_front_door():
    assert generate("tucan", batch=1.0) == tucan_workload()
    assert generate("ics2020", alpha_gen=2.0, seed=3, io_nodes=3) == generate_ics2020(
        2.0, 3, io_nodes=3)
    with pytest.raises(OptionError, match="protocol='swf'"):
        generate("swf", alpha_gen=1.0, seed=0)
    with pytest.raises(OptionError, match="io_nodes=2"):
        generate("tucan", alpha_gen=1.0, seed=0, io_nodes=2)
