"""Objective names, values and the relative gap with its one tolerance."""

from __future__ import annotations

import pytest

from opt_sched import Instance, Job, JobSchedule, Platform, Schedule
from opt_sched.errors import BoundViolationError, OptionError
from opt_sched.objectives import (
    OBJECTIVES,
    check_objective,
    meets_bound,
    objective_value,
    relative_gap,
)


def test_names_and_unknown_objective() -> None:
    assert OBJECTIVES == ("makespan", "max-stretch")
    assert check_objective("max-stretch") == "max-stretch"
    with pytest.raises(OptionError, match="objective='flow' is not one of makespan, "
                                          "max-stretch"):
        check_objective("flow")


def test_objective_value_of_a_hand_schedule() -> None:
    # a: compute [0, 2), I/O 3 / b=1 over [2, 5): C = 5, T = 5, stretch 1.
    # b: compute [0, 1), waits, I/O 1 over [5, 6): C = 6, T = 2, stretch 3.
    instance = Instance("two", Platform.homogeneous(1, 4), (
        Job("a", 1, (2.0,), (3.0,), partition=0),
        Job("b", 1, (1.0,), (1.0,), partition=0)))
    schedule = Schedule((JobSchedule("a", 0, (0.0,), (2.0,)),
                         JobSchedule("b", 0, (0.0,), (5.0,))))
    assert objective_value(instance, schedule, "makespan") == 6.0
    assert objective_value(instance, schedule, "max-stretch") == 3.0


def test_rounding_below_the_bound_reads_zero() -> None:
    # the case: a makespan 4.2e-14 below its bound through rounding
    assert relative_gap(1000.0 - 4.2e-14, 1000.0) == 0.0
    assert relative_gap(13881.0, 12511.0) == pytest.approx(1370.0 / 12511.0)
    # within the tolerance (1e-6 relative) the value meets the bound
    assert relative_gap(100.0 + 1e-5, 100.0) == 0.0
    assert meets_bound(100.0 + 1e-5, 100.0)
    assert not meets_bound(100.0 + 1e-3, 100.0)


def test_a_real_bound_violation_raises() -> None:
    with pytest.raises(BoundViolationError, match="below the proven lower bound"):
        relative_gap(99.0, 100.0)


@pytest.mark.parametrize(("value", "bound"), [(None, 1.0), (1.0, None), (5.0, 0.0),
                                              (5.0, float("nan"))])
def test_no_gap_without_a_positive_bound(value, bound) -> None:
    assert relative_gap(value, bound) is None
