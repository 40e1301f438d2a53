"""The gang workload: records, JSON, file-node placement, the hyper-Erlang
distributions, the jann protocol and the minimal SWF reader."""

from __future__ import annotations

import gzip
import math

import numpy as np
import pytest

from opt_sched.errors import InstanceError, OptionError, TraceError
from opt_sched.gang.distributions import hyper_erlang
from opt_sched.gang.jann import jann_workload, mean_size
from opt_sched.gang.placement import place_files
from opt_sched.gang.swf import swf_workload
from opt_sched.gang.workload import (
    GangWorkload,
    is_gang_workload_file,
    read_workload,
    write_workload,
)

from .paths import shared_data_dir


def small() -> GangWorkload:
    return GangWorkload("w", 8, ("a", "b"), [0, 10], [2, 3], [70.0, 10.0],
                        [1000, 0], file_nodes=[(0, 1), (5, 6, 7)])


def test_derived_times():
    # a: 70 s CPU + 1000 blocks: 70 + 30 = 100 s local, 70 + 90 = 160 remote,
    # r = 30/100. b: no I/O: 10 s either way, r = 0.
    w = small()
    assert w.all_local_time.tolist() == pytest.approx([100, 10])
    assert w.remote_time.tolist() == pytest.approx([160, 10])
    assert w.io_intensity.tolist() == pytest.approx([0.3, 0.0])
    # load: (2*100 + 3*10) / (8 nodes * 10 s of arrivals)
    assert w.offered_load() == pytest.approx(230 / 80)


@pytest.mark.parametrize("change, field", [
    ({"size": [0, 3]}, "size=0"),
    ({"size": [9, 3]}, "size=9"),
    ({"arrival": [-1, 0]}, "arrival=-1"),
    ({"blocks": [1.5, 0]}, "blocks=1.5"),
    ({"cpu": [0, 10.0], "blocks": [0, 0]}, "cpu=0 and blocks=0"),
    ({"ids": ("a", "a")}, "appears twice"),
    ({"file_nodes": [(0, 0), (5, 6, 7)]}, "file_nodes=[0, 0]"),
    ({"file_nodes": [(0, 8), (5, 6, 7)]}, "file_nodes=[0, 8]"),
    ({"t_remote": 0.01}, "t_remote=0.01"),
])
def test_bad_workloads_are_named(change, field):
    base = dict(name="w", nodes=8, ids=("a", "b"), arrival=[0, 10], size=[2, 3],
                cpu=[70.0, 10.0], blocks=[1000, 0], file_nodes=[(0, 1), (5, 6, 7)])
    with pytest.raises(InstanceError, match=field.replace("[", r"\[")):
        GangWorkload(**{**base, **change})


def test_json_round_trip(tmp_path):
    w = small()
    path = tmp_path / "w.json"
    write_workload(w, path)
    assert is_gang_workload_file(path)
    back = read_workload(path)
    assert back.ids == w.ids and back.file_nodes == w.file_nodes
    for name in ("arrival", "size", "cpu", "blocks"):
        assert getattr(back, name).tolist() == getattr(w, name).tolist()
    (tmp_path / "bad.json").write_text('{"format": "other"}')
    with pytest.raises(InstanceError, match="format"):
        read_workload(tmp_path / "bad.json")
    with pytest.raises(InstanceError, match="no such file"):
        read_workload(tmp_path / "missing.json")


@pytest.mark.parametrize("placement", ["random", "contiguous"])
def test_placement(placement):
    w = jann_workload(400, 1000, 0.5, seed=3)
    placed = place_files(w, placement, seed=5)
    assert placed.placement == placement
    for n, files in zip(w.size.tolist(), placed.file_nodes):
        assert len(files) == n == len(set(files))
        assert min(files) >= 0 and max(files) < w.nodes
        if placement == "contiguous":
            assert list(files) == list(range(files[0], files[0] + n))
    # seeded and independent of the load
    again = place_files(jann_workload(400, 2500, 0.1, seed=3), placement, seed=5)
    assert again.file_nodes == placed.file_nodes
    assert place_files(w, placement, seed=6).file_nodes != placed.file_nodes
    with pytest.raises(OptionError, match="placement='diagonal'"):
        place_files(w, "diagonal")


@pytest.mark.parametrize("mean, cv, order", [(1.0, 1.5, 1), (583.0, 1.5, 1),
                                             (1.0, 2.0, 2), (5.0, 1 / math.sqrt(3), 3)])
def test_hyper_erlang_moments(mean, cv, order):
    dist = hyper_erlang(mean, cv, order)
    assert dist.mean == pytest.approx(mean)
    assert dist.cv == pytest.approx(cv)
    # balanced means: p1 mu1 = p2 mu2 (branch mean mu_j = order / rate_j)
    if dist.probs[1] > 0:
        assert dist.probs[0] * order / dist.rates[0] == pytest.approx(
            dist.probs[1] * order / dist.rates[1])
    sample = dist.sample(np.random.default_rng(0), 400_000)
    assert sample.mean() == pytest.approx(mean, rel=0.02)
    assert sample.std() / sample.mean() == pytest.approx(cv, rel=0.05)
    with pytest.raises(OptionError, match="below"):
        hyper_erlang(1.0, 0.5, 1)


def test_mean_size_by_hand():
    # range means with the top of the range at probability 1/2:
    # 1, 2, (4 + 3.5)/2 = 3.75, (8 + 6.5)/2 = 7.25, 14.25, 28.25, 56.25,
    # 112.25, 224.25, (320 + 288.5)/2 = 304.25; weighted by the range
    # weights: .14 + .16 + .3375 + .7975 + 1.995 + 3.955 + 7.3125 + 10.1025
    # + 13.455 + 6.085 = 44.34
    assert mean_size(320) == pytest.approx(44.34)


def test_jann_protocol():
    w = jann_workload(20_000, 3102.0, 0.5, seed=1)
    assert w.nodes == 320 and len(w) == 20_000 and w.arrival[0] == 0
    assert np.all(np.diff(w.arrival) >= 0)
    gaps = np.diff(w.arrival)
    assert gaps.mean() == pytest.approx(583, rel=0.05)
    assert w.size.mean() == pytest.approx(44.34, rel=0.05)
    assert w.all_local_time.mean() == pytest.approx(3102, rel=0.06)
    # r = blocks * t_local / t_e' is 0.5 up to the rounding of one block
    assert np.abs(w.io_intensity - 0.5).max() < 0.03 / w.all_local_time.min() + 1e-9
    assert w.meta["protocol"] == "jann"
    # same seed: same stream; the load knob scales the same draws
    again = jann_workload(20_000, 1551.0, 0.1, seed=1)
    assert again.arrival.tolist() == w.arrival.tolist()
    assert again.size.tolist() == w.size.tolist()
    ratio = again.all_local_time / w.all_local_time
    big = w.all_local_time > 10  # away from the 1 s floor
    assert ratio[big] == pytest.approx(0.5, rel=1e-6)
    mixed = jann_workload(9000, 2000, "mixed", seed=2)
    shares = [np.mean(np.abs(mixed.io_intensity - r) < 0.01) for r in (0.1, 0.33, 0.5)]
    assert shares == pytest.approx([1 / 3] * 3, abs=0.03)
    with pytest.raises(OptionError, match="io_intensity"):
        jann_workload(10, 100, "heavy")


SWF_TEXT = """; MaxNodes: 8
; a comment
1 0 5 100 4 -1 -1 4 200 -1 1 1 1 -1 -1 -1 -1 -1
2 10 0 -1 2 -1 -1 2 60 -1 0 1 1 -1 -1 -1 -1 -1
3 20 0 50 -1 -1 -1 3 60 -1 1 1 1 -1 -1 -1 -1 -1
4 30 0 70 9 -1 -1 9 60 -1 1 1 1 -1 -1 -1 -1 -1
"""


def test_swf_workload(tmp_path):
    """Read by the trace reader: job 2 has no run time, job 4 (9 > 8 nodes)
    is wider than the machine (both counted skips); job 3 takes its size
    from field 8; arrivals start at 0."""
    path = tmp_path / "t.swf.gz"
    with gzip.open(path, "wt") as handle:
        handle.write(SWF_TEXT)
    w = swf_workload(path, seed=0)
    assert w.nodes == 8 and w.size.tolist() == [4, 3]
    assert w.ids == ("1", "3") and w.arrival.tolist() == [0, 20]
    assert w.all_local_time.tolist() == pytest.approx([100, 50], abs=0.03)
    assert w.meta["skipped"]["run_time_unknown"] == 1
    assert w.meta["skipped"]["wider_than_machine"] == 1
    # a smaller machine leaves wider jobs out, counted
    small = swf_workload(path, seed=0, nodes=3)
    assert small.ids == ("3",) and small.meta["skipped"]["size>3"] == 1
    (tmp_path / "bad.swf").write_text("1 2 3\n")
    with pytest.raises(TraceError, match="line 1"):
        swf_workload(tmp_path / "bad.swf")


def test_kth_trace():
    path = shared_data_dir() / "swf" / "KTH-SP2.swf.gz"
    w = swf_workload(path, jobs=2000)
    assert w.nodes == 100 and len(w) == 2000
    assert set(np.round(w.io_intensity[w.all_local_time > 100], 1)) <= {0.1, 0.3, 0.5}
