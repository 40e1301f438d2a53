"""One seed-000 experiment point, end to end (generate, schedule, validate,
measure, certify)."""

from __future__ import annotations

import pytest

from opt_sched.studies.ijhpca2023.experiment import run_point


@pytest.mark.parametrize("strategy", ["random", "max", "char-dec", "char-inc"])
def test_pack_points_are_validated_and_certified(strategy):
    row = run_point("uniform", "no", 0.6, 1, strategy, jobs=20, curves=True)
    assert row["alpha_realised"] == pytest.approx(0.6)
    assert row["makespan"] >= row["lower_bound"] > 0
    assert row["gap"] == pytest.approx((row["makespan"] - row["lower_bound"])
                                       / row["lower_bound"])
    assert row["max_stretch"] >= row["mean_stretch"] >= 1.0
    assert 0.0 <= row["idle_ratio"] < 1.0
    assert len(row["curve_utilisation"]) == 100
    assert max(row["curve_io_busy"]) <= 1.0
