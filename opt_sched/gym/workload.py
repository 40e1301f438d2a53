"""Where the episodes of :mod:`opt_sched.gym` come from: a job stream as
columns, and a window of it as one episode.

A :class:`JobStream` is a workload as numpy columns in submit order (SPEC
§9 notation): ``submit`` ``r_i``, ``run`` the real run time ``T_i`` (the
engine's, never shown to a policy), ``estimate`` the requested time
``e_i`` (what a policy sees), ``nodes`` ``Q_i``, ``user`` an integer code of
the user, ``io`` the job's declared I/O share ``(V_i / b) / T_i`` (0 for a
trace without an I/O profile), and the machine size ``M``.

Sources (:func:`job_stream`):

- a trace file (SWF, Batsim JSON, any format of
  :func:`opt_sched.traces.read_trace`), a path, read once per process;
- a :class:`~opt_sched.traces.Trace`;
- an :class:`~opt_sched.instance.Instance` of compute-only jobs (one
  partition): ``T_i`` is its length, ``e_i`` its wall time (else ``T_i``);
- a generated workload ``{"generator": NAME, **params}``: any generator of
  the campaigns' registry (:data:`opt_sched.campaign.sources.GENERATORS`,
  plug-ins included; its own ``seed`` parameter seeds the draw) that makes
  compute-only jobs, e.g. ``{"generator": "nersc-edison", "days": 2}``.

The engine runs compute-only jobs (rigid node-time rectangles): a workload
with I/O phases is refused (:class:`~opt_sched.errors.OptionError`) rather
than simulated without its I/O rule.

An episode is the window ``[start, start + jobs)`` of the stream
(:meth:`JobStream.window`). Times stay the stream's (a trace's absolute
times): the window's metrics count from its first submit.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import OptionError
from ..instance import Instance

__all__ = ["JobStream", "job_stream"]


@dataclass(frozen=True, eq=False)
class JobStream:
    """A workload as columns (module doc). Arrays are read-only."""

    name: str
    ids: tuple[str, ...]
    submit: np.ndarray
    run: np.ndarray
    estimate: np.ndarray
    nodes: np.ndarray
    user: np.ndarray
    io: np.ndarray
    machines: int

    def __len__(self) -> int:
        return len(self.ids)

    def window(self, start: int, jobs: int) -> JobStream:
        """Jobs ``start .. start + jobs - 1`` (users renumbered from 0 in
        order of appearance)."""
        end = start + jobs
        if start < 0 or jobs < 1 or end > len(self):
            raise OptionError(f"gym: window start={start} jobs={jobs} does not fit "
                              f"the {len(self)} jobs of {self.name!r}")
        _, user = np.unique(self.user[start:end], return_inverse=True)
        return JobStream(f"{self.name}[{start}:{end}]", self.ids[start:end],
                         self.submit[start:end],
                         self.run[start:end], self.estimate[start:end],
                         self.nodes[start:end], _frozen(user.astype(np.int64)),
                         self.io[start:end], self.machines)


def _frozen(array: np.ndarray) -> np.ndarray:
    array = np.ascontiguousarray(array)
    array.flags.writeable = False
    return array


def _codes(names: tuple[str | None, ...]) -> np.ndarray:
    index: dict[str | None, int] = {}
    return np.fromiter((index.setdefault(u, len(index)) for u in names), np.int64,
                       len(names))


def _from_trace(trace: Any) -> JobStream:
    nodes = np.asarray(trace.nodes, np.int64)
    machines = max(int(trace.machine_size or 0), int(nodes.max()) if len(nodes) else 0)
    if len(trace) == 0:
        raise OptionError(f"gym: workload={trace.name!r} has no simulable job")
    order = np.lexsort((np.arange(len(trace)), np.asarray(trace.submit)))
    ids = tuple(trace.ids[i] for i in order)
    users = tuple(trace.users[i] for i in order)
    run = np.asarray(trace.run_time, float)[order]
    return JobStream(trace.name, ids, _frozen(np.asarray(trace.submit, float)[order]),
                     _frozen(run), _frozen(np.asarray(trace.walltime, float)[order]),
                     _frozen(nodes[order]), _frozen(_codes(users)),
                     _frozen(np.zeros(len(ids))), machines)


def _from_instance(instance: Instance) -> JobStream:
    if instance.platform.num_partitions != 1:
        raise OptionError(f"gym: workload={instance.name!r} has "
                          f"{instance.platform.num_partitions} partitions; the "
                          "environment runs one-partition workloads")
    bandwidth = instance.platform.partitions[0].bandwidth
    for job in instance.jobs:
        if job.total_volume > 0:
            raise OptionError(f"gym: job {job.id!r} of workload={instance.name!r} "
                              "has I/O phases; the environment runs compute-only "
                              "jobs (use an I/O profile 'none')")
        if job.after:
            raise OptionError(f"gym: job {job.id!r} of workload={instance.name!r} "
                              "has dependencies; the environment runs independent "
                              "jobs")
    jobs = sorted(instance.jobs, key=lambda j: j.release)  # stable: trace order
    run = np.array([job.length(bandwidth) for job in jobs], float)
    estimate = np.array([job.walltime if job.walltime is not None else r
                         for job, r in zip(jobs, run)], float)
    return JobStream(instance.name, tuple(job.id for job in jobs),
                     _frozen(np.array([job.release for job in jobs], float)),
                     _frozen(run), _frozen(np.maximum(estimate, 0.0)),
                     _frozen(np.array([job.nodes for job in jobs], np.int64)),
                     _frozen(_codes(tuple(job.user for job in jobs))),
                     _frozen(np.array([job.io_fraction(bandwidth) for job in jobs])),
                     instance.platform.partitions[0].nodes)


@lru_cache(maxsize=4)
def _read(path: str, mtime: float) -> JobStream:
    from ..traces import read_trace

    return _from_trace(read_trace(path)[0])


def job_stream(workload: Any) -> JobStream:
    """The :class:`JobStream` of ``workload`` (module doc).

    Raises
    ------
    OptionError
        A workload of another kind, a missing file, a generator's unknown
        parameter, or jobs the engine does not run (I/O phases,
        dependencies, several partitions).
    """
    if isinstance(workload, JobStream):
        return workload
    if isinstance(workload, Instance):
        return _from_instance(workload)
    if isinstance(workload, (str, Path)):
        path = Path(workload)
        if not path.is_file():
            raise OptionError(f"gym: workload={str(workload)!r} is not a file")
        return _read(str(path.resolve()), path.stat().st_mtime)
    if isinstance(workload, Mapping):
        params = dict(workload)
        name = params.pop("generator", None)
        if not isinstance(name, str):
            raise OptionError(f"gym: workload={workload!r} names no 'generator'")
        from ..campaign.sources import build_instance, generator_source

        instance = build_instance(generator_source(name, params, where="workload"))
        if not isinstance(instance, Instance):
            raise OptionError(f"gym: workload generator={name!r} does not make an "
                              "HPC instance")
        return _from_instance(instance)
    if hasattr(workload, "run_time") and hasattr(workload, "walltime"):
        return _from_trace(workload)
    raise OptionError(f"gym: workload={type(workload).__name__} is not a trace "
                      "path, a Trace, an Instance or {'generator': ...}")
