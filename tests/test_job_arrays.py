"""``Instance.job_arrays``: the columnar view equals, job by job and bit
for bit, what each :class:`~opt_sched.instance.Job` says of itself (the
replay's job table and the metrics read it instead of the jobs)."""

from __future__ import annotations

import dataclasses
import math

from hypothesis import given

from opt_sched import Job

from .strategies import instances


def _walltimes(instance):
    jobs = tuple(dataclasses.replace(job, walltime=None if k % 2 else 2.0 + k)
                 for k, job in enumerate(instance.jobs))
    return instance.replace(jobs=jobs)


@given(instances(max_jobs=6, max_iterations=4))
def test_the_arrays_are_the_jobs(instance) -> None:
    instance = _walltimes(instance)
    arrays = instance.job_arrays
    for i, job in enumerate(instance.jobs):
        b = instance.bandwidth_of(job)
        assert arrays.nodes[i] == job.nodes
        assert arrays.release[i] == job.release
        assert arrays.walltime[i] == (math.inf if job.walltime is None
                                      else job.walltime)
        assert arrays.partition[i] == (-1 if job.partition is None else job.partition)
        assert arrays.iterations[i] == job.iterations
        assert arrays.total_compute[i] == job.total_compute
        assert arrays.total_volume[i] == job.total_volume
        assert arrays.bandwidth[i] == b
        assert arrays.length[i] == job.length(b)
    assert not arrays.nodes.flags.writeable


def test_a_long_job_sums_as_fsum() -> None:
    """Three phases whose float sum differs from their exact sum: the
    array holds the job's own (fsum) total."""
    from opt_sched import Instance, Platform

    compute = (0.1, 0.2, 0.3)
    assert sum(compute) != math.fsum(compute)
    job = Job("a", 1, compute, (0.0, 0.0, 0.0))
    instance = Instance("fsum", Platform.homogeneous(1, nodes=2), (job,))
    assert instance.job_arrays.total_compute[0] == math.fsum(compute)
