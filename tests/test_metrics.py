"""Metrics (SPEC §4) on hand-built schedules, values computed by hand.

Reference schedule of ``tiny2`` (P = 4, b = 1; a: Q=2, w=2, v=3, 2 iterations,
T_a = 2*2 + 2*3 = 10; b: Q=2, w=1, v=2, 2 iterations, T_b = 2*1 + 2*2 = 6)::

    a: compute [0, 2)  io [3, 6)  compute [6, 8)  io [8, 11)   C_a = 11
    b: compute [0, 1)  io [1, 3)  compute [3, 4)  io [6, 8)    C_b = 8

- stretch a = 11/10 = 1.1, b = 8/6 = 4/3; releases 0 so flow stretch = stretch.
- bounded slowdown (tau 10): a = max(1, 11/10) = 1.1, b = max(1, 8/10) = 1.
- I/O wait a = (3-2) + (8-8) = 1, b = (1-1) + (6-4) = 2; delay = C - S - T.
- node-time over [0, 11] x 4 nodes = 44: exec = 2*10 + 2*6 = 32,
  delay = 2*1 + 2*2 = 6, idle = 44 - 38 = 6 (b's nodes on [8, 11)).
- I/O node busy on [1, 11): occupancy 10/11.
- alpha = P sum V/b / sum Q T = 4 * (6 + 4) / (2*10 + 2*6) = 40/32.
"""

from __future__ import annotations

import json
import math
import time

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from opt_sched import (
    Instance,
    Job,
    JobSchedule,
    OptionError,
    Partition,
    Platform,
    Schedule,
    read_instance,
)
from opt_sched.metrics import (
    JOB_COLUMNS,
    io_occupancy_over_time,
    job_table,
    summary,
    utilisation_over_time,
)
from opt_sched.validation import assert_feasible

from .conftest import bundled_instance_paths


def test_job_table_by_hand(tiny, tiny2_fifo):
    table = job_table(tiny, tiny2_fifo)
    assert list(table.columns) == list(JOB_COLUMNS)
    assert list(table.index) == ["a", "b"] and table.index.name == "job"
    expected = {
        "partition": [0, 0], "nodes": [2, 2], "release": [0, 0], "start": [0, 0],
        "completion": [11, 8], "length": [10, 6], "exec_time": [10, 6],
        "stretch": [1.1, 8 / 6], "flow_stretch": [1.1, 8 / 6],
        "bounded_slowdown": [1.1, 1.0], "wait": [0, 0], "io_wait": [1, 2],
        "delay": [1, 2],
    }
    for column, values in expected.items():
        np.testing.assert_allclose(table[column].to_numpy(dtype=float), values,
                                   err_msg=column)
    assert table["pack"].isna().all()


def test_stretch_agrees_with_schedule(tiny, tiny2_fifo):
    table = job_table(tiny, tiny2_fifo)
    assert table["stretch"].to_dict() == pytest.approx(tiny2_fifo.stretches(tiny))
    assert table["completion"].max() == tiny2_fifo.makespan(tiny)


def test_summary_by_hand(tiny, tiny2_fifo):
    s = summary(tiny, tiny2_fifo)
    assert s["makespan"] == 11.0
    assert s["max_stretch"] == pytest.approx(4 / 3)
    assert s["mean_stretch"] == pytest.approx((1.1 + 4 / 3) / 2)
    assert s["mean_pack_max_stretch"] == pytest.approx(4 / 3)   # one pack
    assert s["max_flow_stretch"] == pytest.approx(4 / 3)
    assert s["mean_bounded_slowdown"] == pytest.approx((1.1 + 1.0) / 2)
    assert s["exec_node_time"] == pytest.approx(32.0)
    assert s["delay_node_time"] == pytest.approx(6.0)
    assert s["idle_node_time"] == pytest.approx(6.0)
    assert s["utilisation"] == pytest.approx(32 / 44)
    assert s["allocation"] == pytest.approx(38 / 44)
    assert s["io_occupancy"] == pytest.approx(10 / 11)
    assert s["io_load_alpha"] == pytest.approx(40 / 32)
    assert s["num_packs"] == 1 and s["num_jobs"] == 2
    assert s.name == "by-hand"


def test_node_time_adds_up(tiny, tiny2_fifo):
    s = summary(tiny, tiny2_fifo)
    total = tiny.platform.total_nodes * s["makespan"]
    parts = s["exec_node_time"] + s["delay_node_time"] + s["idle_node_time"]
    assert parts == pytest.approx(total)


def test_summary_is_json_ready(tiny, tiny2_fifo):
    data = summary(tiny, tiny2_fifo).to_dict()
    assert isinstance(data["num_jobs"], int) and isinstance(data["makespan"], float)
    assert json.loads(json.dumps(data))["num_packs"] == 1


def test_pack_metrics_by_hand(two_packs):
    inst, sched = two_packs
    table = job_table(inst, sched)
    assert table["pack"].tolist() == [0.0, 0.0, 1.0]
    np.testing.assert_allclose(table["stretch"], [1.0, 1.5, 1.0])
    np.testing.assert_allclose(table["io_wait"], [0.0, 2.0, 0.0])
    s = summary(inst, sched)
    assert s["num_packs"] == 2
    assert s["mean_pack_max_stretch"] == pytest.approx((1.5 + 1.0) / 2)
    assert s["mean_stretch"] == pytest.approx(3.5 / 3)
    # [0, 8] x 4 = 32: exec 2*4 + 2*4 + 4*2 = 24, delay b 2*2 = 4, idle 4
    assert (s["exec_node_time"], s["delay_node_time"], s["idle_node_time"]) == (
        pytest.approx(24), pytest.approx(4), pytest.approx(4))
    assert s["io_occupancy"] == pytest.approx(5 / 8)        # [2, 6) and [7, 8)


def test_releases_and_bounded_slowdown():
    # T = 4 + 2 = 6; r = 1; starts at 3, I/O waits from 7 to 10, C = 12
    inst = Instance("r", Platform.homogeneous(1, nodes=1),
                    (Job.periodic("a", 1, 4.0, 2.0, release=1.0),))
    sched = Schedule((JobSchedule("a", 0, (3.0,), (10.0,)),))
    row = job_table(inst, sched, tau=10.0).loc["a"]
    assert row["wait"] == 2.0 and row["io_wait"] == 3.0 and row["delay"] == 3.0
    assert row["stretch"] == pytest.approx(9 / 6)
    assert row["flow_stretch"] == pytest.approx(11 / 6)
    assert row["bounded_slowdown"] == pytest.approx(11 / 10)      # max(T, tau) = 10
    assert job_table(inst, sched, tau=2.0).loc["a", "bounded_slowdown"] == (
        pytest.approx(11 / 6))
    # a window [0, 12] with the job on the one node from 3: idle 3 of 12
    s = summary(inst, sched)
    assert s["idle_node_time"] == pytest.approx(3.0)
    assert s["utilisation"] == pytest.approx(6 / 12)


def test_slow_partition_for_an_unmapped_job():
    # T uses the fastest bandwidth (2): 1 + 4/2 = 3; on the slow one E = 1 + 4 = 5
    plat = Platform((Partition(2, 2.0), Partition(2, 1.0)))
    inst = Instance("slow", plat, (Job.periodic("a", 1, 1.0, 4.0),))
    sched = Schedule((JobSchedule("a", 1, (0.0,), (1.0,)),))
    row = job_table(inst, sched).loc["a"]
    assert (row["length"], row["exec_time"], row["delay"]) == (3.0, 5.0, 0.0)
    assert row["stretch"] == pytest.approx(5 / 3)
    assert summary(inst, sched)["io_occupancy"] == pytest.approx(4 / (2 * 5))


def test_zero_length_job_has_stretch_one():
    inst = Instance("z", Platform.homogeneous(1, nodes=2),
                    (Job.periodic("a", 1, 2.0, 0.0), Job.periodic("z", 1, 0.0, 0.0)))
    sched = Schedule((JobSchedule("a", 0, (0.0,), (2.0,)),
                      JobSchedule("z", 0, (1.0,), (1.0,))))
    table = job_table(inst, sched)
    assert table.loc["z", "stretch"] == 1.0
    assert table.loc["z", "bounded_slowdown"] == 1.0
    assert summary(inst, sched)["io_occupancy"] == 0.0


def test_utilisation_over_time_by_hand(tiny, tiny2_fifo):
    curve = utilisation_over_time(tiny, tiny2_fifo)
    # executing: a on [0,2) and [3,11); b on [0,4) and [6,8)
    assert curve["time"].tolist() == [0, 2, 3, 4, 6, 8, 11]
    assert curve["busy_nodes"].tolist() == [4, 2, 4, 2, 4, 2, 0]
    assert curve["allocated_nodes"].tolist() == [4, 4, 4, 4, 4, 2, 0]
    np.testing.assert_allclose(curve["utilisation"], curve["busy_nodes"] / 4)
    np.testing.assert_allclose(curve["allocation"], curve["allocated_nodes"] / 4)


def time_average(curve: pd.DataFrame, column: str, end: float) -> float:
    widths = np.diff(np.append(curve["time"].to_numpy(), end))
    return float(np.dot(curve[column].to_numpy(), widths)) / end


def test_utilisation_curve_averages_to_the_summary(tiny, tiny2_fifo, two_packs):
    for inst, sched in ((tiny, tiny2_fifo), two_packs):
        s = summary(inst, sched)
        curve = utilisation_over_time(inst, sched)
        assert time_average(curve, "utilisation", s["makespan"]) == pytest.approx(
            s["utilisation"])
        assert time_average(curve, "allocation", s["makespan"]) == pytest.approx(
            s["allocation"])


def test_io_occupancy_over_time_by_hand(tiny, tiny2_fifo):
    occ = io_occupancy_over_time(tiny, tiny2_fifo)
    # touching phases [1,3) [3,6) [6,8) [8,11) merge into one busy period
    assert occ[["time", "partition", "busy"]].values.tolist() == [
        [0, 0, 0], [1, 0, 1], [11, 0, 0]]


def test_io_occupancy_over_time_partitions():
    inst = Instance("two", Platform.homogeneous(2, nodes=2),
                    (Job.periodic("a", 1, 1.0, 2.0), Job.periodic("b", 1, 1.0, 0.0)))
    sched = Schedule((JobSchedule("a", 0, (0.0,), (1.0,)),
                      JobSchedule("b", 1, (0.0,), (1.0,))))
    occ = io_occupancy_over_time(inst, sched)
    assert occ[["time", "partition", "busy"]].values.tolist() == [
        [0, 0, 0], [1, 0, 1], [3, 0, 0], [0, 1, 0]]
    assert summary(inst, sched)["io_occupancy"] == pytest.approx(2 / (2 * 3))


def test_bad_tau(tiny, tiny2_fifo):
    with pytest.raises(OptionError, match="tau=-1"):
        job_table(tiny, tiny2_fifo, tau=-1)
    with pytest.raises(OptionError):
        summary(tiny, tiny2_fifo, tau=math.nan)


def test_100k_phases_are_fast(hundred_by_thousand):
    n, m = 100, 1000
    inst, sched = hundred_by_thousand
    began = time.perf_counter()
    s = summary(inst, sched)
    curve = utilisation_over_time(inst, sched)
    occ = io_occupancy_over_time(inst, sched)
    seconds = time.perf_counter() - began
    assert seconds < 3.0, seconds        # about 0.35 s on the reference machine
    # each period of 20: all nodes compute for 10, I/O node busy for 10
    assert s["utilisation"] == pytest.approx(
        (10 * 1000 * 100 + 0.1 * 1000 * 100) / (100 * s["makespan"]))
    assert s["io_occupancy"] == pytest.approx(1000 * 10 / s["makespan"])
    assert len(occ) == 2 * m + 1 and curve["busy_nodes"].max() == n


@pytest.mark.parametrize("path", bundled_instance_paths(), ids=lambda p: p.stem)
def test_simulated_schedules_add_up(path):
    import opt_sched.simulation as simulation
    instance = read_instance(path)
    parts = instance.platform.partitions
    plan = simulation.StartsPlan(
        start={j.id: 0.0 for j in instance.jobs},
        partition={j.id: j.partition if j.partition is not None else
                   next(k for k, p in enumerate(parts) if p.nodes >= j.nodes)
                   for j in instance.jobs})
    schedule = simulation.simulate(instance, plan, policy="fifo")
    s = summary(instance, schedule)
    total = instance.platform.total_nodes * s["makespan"]
    assert s["exec_node_time"] + s["delay_node_time"] + s["idle_node_time"] == (
        pytest.approx(total))
    assert s["delay_node_time"] >= -1e-9 and s["idle_node_time"] >= -1e-9
    assert 0 < s["utilisation"] <= s["allocation"] <= 1 + 1e-12
    assert s["max_stretch"] >= 1 - 1e-12
    table = job_table(instance, schedule)
    # the I/O wait is the whole delay in a simulated schedule (no other gaps)
    np.testing.assert_allclose(table["io_wait"], table["delay"], atol=1e-9)
    curve = utilisation_over_time(instance, schedule)
    assert time_average(curve, "utilisation", s["makespan"]) == pytest.approx(
        s["utilisation"])


@pytest.mark.parametrize("execution", ["exclusive", "shared"])
def test_summary_from_the_validators_phase_table_is_the_same(execution):
    """Campaigns measure a validated schedule from the validator's phase
    table (no rebuild): the same numbers as building it afresh."""
    from pathlib import Path

    from opt_sched import read_instance
    from opt_sched.metrics import summary as summarise
    from opt_sched.scheduling import replay

    root = Path(__file__).resolve().parents[1]
    inst = read_instance(root / "instances" / "tiny5.json")
    schedule = replay(inst, "easy", execution=execution)
    report = assert_feasible(inst, schedule)
    assert report.table is not None
    fresh = summarise(inst, schedule).to_dict()
    reused = summarise(inst, schedule, phase_table=report.table).to_dict()
    assert fresh == reused
    assert fresh["makespan"] == pytest.approx(schedule.makespan(inst))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.one_of(st.none(), st.integers(0, 5)),
                          st.floats(0.0, 100.0)), max_size=30), st.booleans())
def test_group_max_stretch_is_each_group_max_in_key_order(rows, by_pack):
    """Against a dict group-by: one max per (partition, pack) with packs (jobs
    in no pack left out), else per partition, in increasing key order."""
    from opt_sched.metrics import _group_max_stretch

    partition = np.array([r[0] for r in rows], dtype=np.int64)
    pack = np.array([np.nan if r[1] is None else r[1] for r in rows], dtype=float)
    stretch = np.array([r[2] for r in rows], dtype=float)
    groups: dict[tuple[int, ...], float] = {}
    for k, p, x in rows:
        if by_pack and p is None:
            continue
        key = (k, p) if by_pack else (k,)
        groups[key] = max(groups.get(key, -np.inf), x)
    expected = [groups[key] for key in sorted(groups)]
    assert _group_max_stretch(partition, pack, stretch, by_pack).tolist() == expected
