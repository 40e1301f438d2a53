"""``gap`` and ``compare`` rows read "at least X %, at most Y %" above the
optimum (issue 27, item 5): ``best_found`` is the best validated schedule of
the instance, ``at_least = (x - B) / B`` and the gap ``(x - L) / L``."""

from __future__ import annotations

import math

import pytest

from opt_sched.experiments.compare import compare
from opt_sched.experiments.gap import gap_table
from opt_sched.json_files import read_instance
from opt_sched.objectives import bracket

from .paths import REPO

TINY = REPO / "instances" / "tiny5.json"


def _check(values, best, bound, at_least, at_most):
    assert best == pytest.approx(min(v for v in values if v is not None))
    for x, low, high in zip(values, at_least, at_most):
        assert low == pytest.approx((x - best) / best)
        if bound is not None and not math.isnan(high):
            assert bound <= best + 1e-9 * best
            assert low <= high + 1e-12  # the optimum lies between B and L


def test_compare_rows_bracket_the_optimum():
    instance = read_instance(TINY)
    table = compare(instance)
    _check(table["makespan"].tolist(), float(table["best_found"].iloc[0]),
           table["lower_bound"].iloc[0], table["at_least"].tolist(),
           table["gap"].tolist())
    assert (table["best_found"] == table["best_found"].iloc[0]).all()
    assert min(table["at_least"]) == 0.0


def test_gap_rows_bracket_the_optimum():
    table = gap_table([TINY], time_limit=2.0)
    values = [v for v in table["value"].tolist()]
    _check(values, float(table["best_found"].iloc[0]), table["lower_bound"].iloc[0],
           table["at_least"].tolist(), table["gap"].tolist())


def test_bracket_sides():
    low, high = bracket(110.0, 100.0, 80.0)
    assert low == pytest.approx(0.1) and high == pytest.approx(0.375)
    assert all(math.isnan(x) for x in bracket(110.0, None, None))
