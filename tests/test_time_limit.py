"""Time limits are limits: on instances far too large to solve, ``solve``
returns a certified answer near the limit (bounds, warm starts, model
building and certification all count)."""

from __future__ import annotations

import warnings

import pytest

from opt_sched.errors import TimeLimitWarning
from opt_sched.exact import SolveStatus, solve
from opt_sched.exact.deadline import tolerated_overrun
from opt_sched.workloads import generate_ics2020, tucan_workload

LIMIT = 3.0


@pytest.mark.parametrize(("problem", "instance"), [
    # 5 jobs, 65,000 I/O phases on one I/O node (Tucan, iterations x 20)
    ("io-sched", lambda: tucan_workload(20.0)),
    # 300 unmapped jobs, about 190,000 phases, on 2 partitions (ICS 2020)
    ("hpc-io", lambda: generate_ics2020(1.0, 0, n_jobs=300, io_nodes=2)),
])
def test_a_large_instance_stays_near_the_limit(problem, instance) -> None:
    workload = instance()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = solve(workload, problem, time_limit=LIMIT)
    assert result.wall_time <= LIMIT + tolerated_overrun(LIMIT), result.info
    assert result.info["overrun"] == max(0.0, result.wall_time - LIMIT)
    assert not [w for w in caught if issubclass(w.category, TimeLimitWarning)]
    # an answer all the same: the best warm schedule, certified
    assert result.status in (SolveStatus.FEASIBLE, SolveStatus.OPTIMAL)
    assert result.objective is not None and result.lower_bound is not None
    assert result.lower_bound <= result.objective


def test_the_overrun_is_reported_and_warned(monkeypatch) -> None:
    """A backend that overruns its deadline: the overrun is in the result and
    a TimeLimitWarning says so."""
    import opt_sched.exact.io_sched.cpsat as model

    original = model.run

    def slow(*args, **kwargs):
        import time

        time.sleep(0.9)
        return original(*args, **kwargs)

    monkeypatch.setattr(model, "run", slow)
    workload = tucan_workload(0.01)
    with pytest.warns(TimeLimitWarning, match="overrun"):
        result = solve(workload, "io-sched", time_limit=0.2)
    assert result.info["overrun"] >= 0.9 - 0.2


def test_no_schedule_when_it_could_not_be_certified_in_time() -> None:
    """65,000 phases take longer to validate than 0.1 s: no schedule, the
    cheap combinatorial bounds, within the limit."""
    result = solve(tucan_workload(20.0), "io-sched", time_limit=0.1)
    assert result.status is SolveStatus.TIMEOUT_NO_SOLUTION
    assert result.schedule is None and result.lower_bound is not None
    assert result.info["stopped"].startswith("certifying a schedule of 65000 phases")
    assert result.wall_time <= 0.1 + tolerated_overrun(0.1)
