"""Trace -> Instance (opt_sched.traces.convert): phases, alpha, nodes, speed path."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from opt_sched import Job
from opt_sched.errors import InstanceError, OptionError
from opt_sched.traces import convert_trace, read_batsim, read_swf, trace_to_instance
from opt_sched.traces.calibration import alpha_of, load_weights, odds_scale
from opt_sched.traces.fast_jobs import periodic_jobs

from .paths import TRACES, shared_data_dir


@pytest.fixture(scope="module")
def head():
    return read_swf(TRACES / "kth-sp2-head.swf")[0]


# -- the fast constructor gives the checked constructor's jobs ----------------
def _same_job(fast: Job, slow: Job) -> None:
    assert fast == slow
    for spec in dataclasses.fields(Job):
        a, b = getattr(fast, spec.name), getattr(slow, spec.name)
        assert type(a) is type(b), spec.name
        if isinstance(a, tuple):
            assert [type(x) for x in a] == [type(x) for x in b], spec.name
    assert fast.length(3.0) == slow.length(3.0)
    assert fast.is_periodic and fast.iterations == slow.iterations


@pytest.mark.parametrize("profile", ["none", "bn"])
def test_fast_jobs_equal_checked_jobs(head, profile):
    conversion = convert_trace(head, profile, seed=3, bandwidth=2.5)
    for job in conversion.instance.jobs:
        slow = Job.periodic(job.id, job.nodes, job.compute[0], job.io_volume[0],
                            job.iterations, release=job.release,
                            walltime=job.walltime, user=job.user, group=job.group)
        _same_job(job, slow)


@pytest.mark.parametrize("profile", ["none", "bn", "darshan-cori"])
def test_adopted_phase_arrays_are_the_jobs_phases(head, profile):
    """The conversion hands its arrays to the instance (no second walk over
    the jobs); they must be exactly what walking the jobs gives."""
    from opt_sched import Instance

    instance = convert_trace(head, profile, seed=3, bandwidth=2.5).instance
    walked = Instance(instance.name, instance.platform, instance.jobs)
    assert "phase_arrays" not in walked.__dict__
    for adopted, computed in zip(instance.phase_arrays, walked.phase_arrays):
        assert adopted.dtype == computed.dtype
        assert np.array_equal(adopted, computed)
        assert not adopted.flags.writeable
    assert instance.index == walked.index == {j.id: i for i, j in
                                              enumerate(instance.jobs)}
    off, w, v = walked.phase_arrays
    with pytest.raises(ValueError, match="not this instance's phases"):
        walked.adopt_phase_arrays(off[:-1], w, v)
    with pytest.raises(ValueError, match="not this instance's phases"):
        walked.adopt_phase_arrays(off, w + 1.0, v)


def test_fast_jobs_none_walltime_and_errors():
    jobs = periodic_jobs(["a", "b"], np.array([1, 2]), np.array([1.0, 0.0]),
                         np.array([0.0, 2.0]), np.array([1, 3]),
                         np.array([0.0, 5.0]), np.array([np.nan, 4.0]),
                         [None, "u"], ["g", None])
    _same_job(jobs[0], Job("a", 1, (1.0,), (0.0,), group="g"))
    _same_job(jobs[1], Job.periodic("b", 2, 0.0, 2.0, 3, release=5.0,
                                    walltime=4.0, user="u"))
    with pytest.raises(InstanceError) as fast_err:
        periodic_jobs(["a"], np.array([1]), np.array([-1.0]), np.array([0.0]),
                      np.array([1]), np.array([0.0]), np.array([np.nan]),
                      [None], [None])
    with pytest.raises(InstanceError) as slow_err:
        Job("a", 1, (-1.0,), (0.0,))
    assert str(fast_err.value) == str(slow_err.value)
    with pytest.raises(InstanceError, match="user=7 is not a string"):
        periodic_jobs(["a"], np.array([1]), np.array([1.0]), np.array([0.0]),
                      np.array([1]), np.array([0.0]), np.array([np.nan]),
                      [7], [None])


# -- the split of the run time ------------------------------------------------
@pytest.mark.parametrize(("profile", "options"), [
    ("none", {}), ("bn", {}), ("no", {"mean": 0.3}), ("bn", {"high_share": 1.0})])
def test_phases_reproduce_run_time_and_fraction(head, profile, options):
    conversion = convert_trace(head, profile, seed=1, bandwidth=4.0,
                               profile_options=options)
    instance = conversion.instance
    assert instance.platform.partitions[0].nodes == 100
    assert instance.platform.partitions[0].bandwidth == 4.0
    for k, job in enumerate(instance.jobs):
        row = head.job(k)
        assert (job.id, job.nodes, job.release, job.walltime, job.user, job.group) \
            == (row.id, row.nodes, row.submit, row.walltime, row.user, row.group)
        assert job.length(4.0) == pytest.approx(row.run_time, rel=1e-12)
        assert job.io_fraction(4.0) == pytest.approx(conversion.fractions[k],
                                                     rel=1e-12, abs=1e-15)
        assert job.iterations == conversion.iterations[k]
    if profile == "none":
        assert instance.num_io_phases == len(head) and conversion.alpha == 0


# -- alpha --------------------------------------------------------------------
@pytest.mark.parametrize(("profile", "target"), [
    ("bn", 0.5), ("bn", 2.0), ("no", 0.3), ("no", 4.0), ("bn", 5.4)])
def test_alpha_calibration_is_exact(head, profile, target):
    # the head of KTH-SP2 has load factor A = 5.458: alpha < 5.458 is reachable
    conversion = convert_trace(head, profile, seed=2, alpha=target)
    assert conversion.instance.io_load() == pytest.approx(target, abs=1e-9)
    assert conversion.alpha == pytest.approx(target, abs=1e-12)


def test_alpha_does_not_depend_on_bandwidth(head):
    a = convert_trace(head, "bn", seed=4, bandwidth=1.0)
    b = convert_trace(head, "bn", seed=4, bandwidth=1000.0)
    assert a.instance.io_load() == pytest.approx(b.instance.io_load(), rel=1e-12)
    for x, y in zip(a.instance.jobs, b.instance.jobs):
        assert x.length(1.0) == pytest.approx(y.length(1000.0), rel=1e-12)
        assert y.io_volume[0] == pytest.approx(1000.0 * x.io_volume[0], rel=1e-12)


def test_odds_scale_properties():
    f = np.array([0.0, 0.1, 0.5, 0.9, 1.0])
    for c in (0.01, 0.5, 3.0):
        g = odds_scale(f, c)
        assert g[0] == 0.0 and g[-1] == 1.0 and np.all(np.diff(g) > 0)
        inner = slice(1, 4)
        assert np.allclose(g[inner] / (1 - g[inner]), c * f[inner] / (1 - f[inner]))
    weights = load_weights(np.array([1, 2]), np.array([10.0, 5.0]), 4)
    # a_i = P T_i / sum Q T = 4 * (10, 5) / 20 = (2, 1)
    assert weights.tolist() == [2.0, 1.0]
    assert alpha_of(np.array([0.5, 0.25]), weights) == 1.25


def test_alpha_errors(head):
    with pytest.raises(OptionError, match="no job does I/O"):
        convert_trace(head, "none", alpha=0.5)
    high = convert_trace(head, "bn", seed=0)
    sup = float(load_weights(head.nodes, head.run_time, 100).sum())
    with pytest.raises(OptionError, match=r"alpha=1000 is unreachable .* alpha stays "
                                          r"in \(0, "):
        convert_trace(head, "bn", seed=0, alpha=1000)
    assert high.load_factor == pytest.approx(sup)
    with pytest.raises(OptionError, match="alpha=-1 must be"):
        convert_trace(head, "bn", alpha=-1)
    with pytest.raises(OptionError, match="bandwidth=0 must be"):
        convert_trace(head, "bn", bandwidth=0)


# -- machine size -------------------------------------------------------------
def test_nodes_override(head):
    assert trace_to_instance(head, nodes=128).platform.partitions[0].nodes == 128
    with pytest.raises(OptionError) as err:
        trace_to_instance(head, nodes=50)
    wider = int((head.nodes > 50).sum())
    assert str(err.value) == (f"nodes=50 is smaller than {wider} jobs of trace "
                              f"'kth-sp2-head' (widest {head.widest}, e.g. job "
                              f"'1'); give nodes >= {head.widest}")  # job 1: 56
    with pytest.raises(OptionError, match="unknown"):
        trace_to_instance(head, "lognormal")


def test_batsim_workload_instance():
    trace, _ = read_batsim(TRACES / "workload-small.json")
    instance = trace_to_instance(trace)
    assert [job.id for job in instance.jobs] == ["w0!1", "w0!2", "w0!3", "w0!4"]
    assert instance.platform.partitions[0].nodes == 4


# -- the real traces ----------------------------------------------------------
def test_kth_sp2_instances():
    data = shared_data_dir()
    trace, _ = read_swf(data / "swf" / "KTH-SP2.swf.gz")
    plain = trace_to_instance(trace, "none")
    assert plain.num_jobs == 28481 and plain.num_io_phases == 28481
    assert plain.platform.partitions[0].nodes == 100 and plain.io_load() == 0.0
    assert [job.release for job in plain.jobs[:3]] == list(trace.submit[:3])
    for target in (0.2, 0.8):
        conversion = convert_trace(trace, "darshan-cori", seed=0, alpha=target,
                                   profile_options={"data_dir": str(data / "darshan")})
        assert conversion.instance.io_load() == pytest.approx(target, abs=1e-9)
        assert conversion.odds_scale < 1   # benchmark I/O shares are scaled down
    bn = convert_trace(trace, "bn", seed=0, alpha=0.5)
    assert bn.instance.io_load() == pytest.approx(0.5, abs=1e-9)
    assert bn.info["high_share"] == 0.0   # KTH's load factor is ~12.6
    assert math.isclose(bn.load_factor, 100 * trace.run_time.sum()
                        / float(np.dot(trace.nodes, trace.run_time)))
