"""The distribution of window brackets (issue 27): quantiles against numpy,
the campaign rows read into brackets, and the spread per scheduler and
objective computed independently."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from opt_sched.experiments.window_distribution import (
    brackets_from_rows,
    distribution,
    distribution_markdown,
    quantile,
)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=40),
       st.sampled_from([0.0, 0.1, 0.5, 0.9, 1.0]))
def test_quantile_is_numpys_linear_quantile(values, q):
    assert math.isclose(quantile(values, q), float(np.quantile(values, q)),
                        rel_tol=1e-12, abs_tol=1e-9)


def _row(status: str, scheduler: str, start: int, at_least: float, at_most: float,
         experiment: str = "window-gap") -> dict:
    metrics = {}
    for key in ("makespan", "max_flow_stretch", "mean_flow_time"):
        metrics.update({f"{key}_online": 2.0, f"{key}_best_found": 1.5,
                        f"{key}_lower_bound": 1.0, f"{key}_at_least": at_least,
                        f"{key}_at_most": at_most,
                        f"{key}_width": at_most - at_least})
    return {"status": status, "metrics": metrics if status == "ok" else {},
            "task": {"instance": {"experiment": experiment,
                                  "params": {"scheduler": scheduler, "start": start}}}}


def test_rows_become_brackets_and_their_spread():
    rows = {str(k): _row("ok", "easy", 10 * k, 0.1 * k, 0.1 * k + 0.01 * k)
            for k in range(1, 11)}
    rows["failed"] = _row("failed", "easy", 999, 0.0, 0.0)
    rows["other"] = _row("ok", "easy", 998, 5.0, 6.0, experiment="something-else")
    rows["fcfs"] = _row("ok", "fcfs", 10, 0.5, 0.75)
    brackets = brackets_from_rows(rows)
    assert len(brackets) == 3 * 11
    assert [b.start for b in brackets if b.scheduler == "easy"][:3] == [10, 10, 10]
    spreads = {(s.scheduler, s.objective): s for s in distribution(brackets)}
    assert set(spreads) == {(s, o) for s in ("easy", "fcfs")
                            for o in ("makespan", "max-flow-stretch", "mean-flow-time")}
    x = [0.1 * k for k in range(1, 11)]
    width = [0.01 * k for k in range(1, 11)]
    easy = spreads["easy", "mean-flow-time"]
    assert easy.windows == 10
    assert math.isclose(easy.x_median, float(np.quantile(x, 0.5)))
    assert math.isclose(easy.x_p90, float(np.quantile(x, 0.9)))
    assert math.isclose(easy.width_p90, float(np.quantile(width, 0.9)), rel_tol=1e-9)
    fcfs = spreads["fcfs", "makespan"]
    assert (fcfs.windows, fcfs.x_median, fcfs.y_p90) == (1, 0.5, 0.75)
    table = distribution_markdown(distribution(brackets))
    assert "| fcfs | makespan | 1 | 50.0 % | 50.0 % | 75.0 % | 75.0 % | 25.0 | 25.0 |" \
        in table


def test_unknown_sides_are_left_out_and_negative_widths_count_as_zero():
    rows = {"a": _row("ok", "easy", 1, math.nan, 0.2),
            "b": _row("ok", "easy", 2, 0.3, 0.3 - 1e-12)}
    spreads = distribution(brackets_from_rows(rows))
    assert {s.windows for s in spreads} == {1}
    assert all(s.width_median == 0.0 for s in spreads)
