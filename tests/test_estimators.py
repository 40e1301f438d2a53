"""History-based requirement estimates (seed 001)."""

from __future__ import annotations

import pytest

from opt_sched import Instance, Job, Platform
from opt_sched.scheduling.base import job_table
from opt_sched.scheduling.estimators import HistoryEstimator


def _table(*jobs: Job):
    return job_table(Instance("e", Platform.homogeneous(1, nodes=8), tuple(jobs)))


def test_cold_start_uses_the_request_and_the_declared_rate():
    jobs = _table(Job.periodic("a", 2, 6.0, 4.0, walltime=100.0, user="u",
                               group="ior"))
    est = HistoryEstimator(jobs)
    assert est.runtime(0) == 100.0
    assert est.rate(0) == pytest.approx(4.0 / 10.0)  # V / T(b=1)
    assert HistoryEstimator(jobs, cold_rate="default", default_rate=7.0).rate(0) == 7.0
    assert est.seen(0) == 0


def test_estimates_converge_on_a_repeated_job_group():
    """Ten jobs of one group (same user, executable, limit, nodes). The first
    three run 50 s each, the next seven 20 s; every job moves V = 100. The
    EWMA (decay 0.2, count-normalised) is, after k observations x_1..x_k,
    sum_m 0.8^(k-m) x_m / sum_m 0.8^(k-m) -- computed here directly."""
    jobs = _table(*(Job.periodic(f"j{i}", 4, 10.0, 100.0, walltime=60.0, user="u",
                                 group="wrf") for i in range(10)),
                  Job.periodic("other", 4, 10.0, 1.0, walltime=60.0, user="v",
                               group="wrf"))
    est = HistoryEstimator(jobs)
    runs = [50.0] * 3 + [20.0] * 7
    for k, length in enumerate(runs, start=1):
        est.observe(k - 1, 0.0, length)
        weights = [0.8 ** (k - m) for m in range(1, k + 1)]
        expected = sum(w * x for w, x in zip(weights, runs[:k])) / sum(weights)
        assert est.runtime(9) == pytest.approx(expected, rel=1e-12)
        assert est.rate(9) == pytest.approx(
            sum(w * 100.0 / x for w, x in zip(weights, runs[:k])) / sum(weights))
        assert est.seen(9) == k
    # after the change, the estimate approaches 20 geometrically
    assert abs(est.runtime(9) - 20.0) < 30.0 * 0.8 ** 7
    assert est.rate(9) > 100.0 / 50.0
    # another user's job is another group: still cold
    assert est.runtime(10) == 60.0 and est.seen(10) == 0
