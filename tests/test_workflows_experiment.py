"""``run_share_point`` on a small case (fcfs), and the same with EASY once
the backfilling schedulers take a queue order (enabled at merge)."""

from __future__ import annotations

import inspect
import math

import pytest

from opt_sched.studies.rodrigo2017.experiment import make_scheduler, run_share_point

SMALL = {"nodes": 96, "duration": 86400.0, "stabilisation": 21600.0,
         "target_wait": 3600.0}


@pytest.fixture(scope="module")
def three_modes():
    return {mode: run_share_point("cybershake", 0.25, mode, 4, **SMALL)
            for mode in ("chained", "pilot", "woas")}


def test_same_workload_in_every_mode(three_modes) -> None:
    chained, pilot, woas = (three_modes[m] for m in ("chained", "pilot", "woas"))
    assert chained["workflows"] == pilot["workflows"] == woas["workflows"] > 3
    assert chained["pressure"] == pilot["pressure"] == woas["pressure"]
    # the same jobs; each workflow's 5 tasks become 1 pilot job
    assert chained["jobs"] == woas["jobs"] > pilot["jobs"]
    assert (chained["jobs"] - pilot["jobs"]) % 4 == 0
    assert chained["window"] == woas["window"]


def test_metrics_of_each_mode(three_modes) -> None:
    chained, pilot, woas = (three_modes[m] for m in ("chained", "pilot", "woas"))
    for r in three_modes.values():
        assert 0 < r["actual_utilisation"] <= r["utilisation"] <= 1.0
        assert len(r["turnarounds_h"]) == r["workflows"]
        assert set(r["slowdown"]) == {"[0, 48)", "[48, 960)", "[960, inf)", "all"}
    # only the pilot job wastes: its allocation minus the tasks' work
    assert chained["waste_core_hours"] == pytest.approx(0.0, abs=1e-6)
    assert woas["waste_core_hours"] == pytest.approx(0.0, abs=1e-6)
    assert pilot["waste_core_hours"] > 0
    assert pilot["actual_utilisation"] < pilot["utilisation"]
    # a pilot runs its tasks back to back: runtime = critical path (4.47 h)
    assert pilot["runtime_h"] == pytest.approx(4.472, abs=0.01)
    assert pilot["intermediate_wait_h"] == pytest.approx(0.0, abs=1e-9)
    # WoAS tasks inherit the workflow's place: no longer between tasks than
    # chained ones
    assert woas["intermediate_wait_h"] <= chained["intermediate_wait_h"]
    assert woas["priority"] == "woas+multifactor"


def test_bad_mode() -> None:
    with pytest.raises(Exception, match="mode"):
        run_share_point("montage", 0.1, "bulk", 0, **SMALL)


def _easy_takes_an_order() -> bool:
    try:
        from opt_sched.scheduling import SCHEDULERS
    except ImportError:
        return False
    easy = SCHEDULERS.get("easy")
    return easy is not None and "order" in inspect.signature(easy).parameters


@pytest.mark.skipif(not _easy_takes_an_order(),
                    reason="enabled at merge: needs the 'easy' scheduler with "
                           "order= (branch online)")
@pytest.mark.parametrize("mode", ["chained", "pilot", "woas"])
def test_run_share_point_with_easy(mode) -> None:
    r = run_share_point("montage", 0.1, mode, 1, scheduler="easy", **SMALL)
    assert r["workflows"] > 0 and not math.isnan(r["turnaround_h"])


@pytest.mark.skipif(not _easy_takes_an_order(),
                    reason="enabled at merge: needs the 'easy' scheduler with "
                           "order= (branch online)")
def test_easy_scheduler_is_built_with_the_woas_order() -> None:
    sched = make_scheduler("easy", "fairshare:sigmoid-2", "woas")
    assert sched.order.name == "woas+fairshare:sigmoid-2"
