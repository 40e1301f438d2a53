"""The Scheduler seam: what an online scheduler sees and what it decides.

A *scheduler* is the start rule of a batch system (SPEC §9). The replay
engine (:mod:`opt_sched.scheduling.replay`) owns time, the machines and the
execution of the jobs; at every instant where something happened it tells the
scheduler, then asks it once which waiting jobs start now, and on which
machines:

.. code-block:: text

    for each instant t (job completions, submissions, kills, wake-ups):
        scheduler.complete(t, j, killed)   for every job that ended at t
        scheduler.submit(t, j)             for every job that became eligible
        starts = scheduler.decide(t)       one pass: a list of Start
        (the engine starts them; if that ends jobs at t, it repeats)

All events of one instant are applied before the pass, completions before
submissions; ties between jobs submitted at the same instant follow the
instance order. A job is *submitted* when it is eligible: at
``max(r_i, max_{p in pred(i)} C_p)`` (its release, and the completion of
every job it depends on).

What a scheduler may read is deliberately limited to what a real batch
system knows at time ``t`` (SPEC §9): the :class:`JobTable` (submit time,
nodes, requested wall time ``e_i`` -- the *estimate* --, user, group, the
declared I/O volume and average bandwidth) and the :class:`Cluster` (free
machines, running jobs with their starts and estimated ends ``S_i + e_i``,
the waiting queue). It never sees a real run time: the end of a running job
is learned only from :meth:`Scheduler.complete`.

Machines are numbered ``0..P_k-1`` in each partition ``k``. A job holds a
fixed set of ``Q_i`` machines from its start to its completion.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np

from ..errors import OptionError
from ..instance import Instance
from ..schedule import MachineSet

__all__ = ["API_VERSION", "Cluster", "JobTable", "RunningJob", "Scheduler", "Start",
           "job_table"]

API_VERSION = "1.1"
"""The version of the scheduler API, ``"MAJOR.MINOR"``: this module's
:class:`Scheduler` protocol, :class:`Start`, :class:`JobTable`,
:class:`Cluster`, :class:`RunningJob`, the engine's calls and checks, and
:mod:`opt_sched.scheduling.blocks`. A change that can break a user's
scheduler (a call, argument, field or guarantee removed or changed) raises
MAJOR; an addition raises MINOR. ``CHANGELOG.md`` lists every change
(``docs/write-a-scheduler.md``)."""


@dataclass(frozen=True, slots=True)
class Start:
    """Start job ``job`` (its index in the instance) now on ``partition``.

    ``machines`` are the machine numbers it takes (a sequence of ints, or a
    :class:`~opt_sched.schedule.MachineSet`, cheaper for wide jobs); ``None``
    lets the engine take the lowest-numbered free machines of the partition.
    """

    job: int
    machines: Sequence[int] | None = None
    partition: int = 0


@dataclass(frozen=True)
class JobTable:
    """What every scheduler may know about the jobs (one entry per job, in
    instance order). Arrays are read-only.

    ``estimate[i]`` is the requested wall time ``e_i`` (``inf`` when the job
    has none and the replay was not asked to supply one, see
    :func:`job_table`); ``volume[i]`` the declared I/O volume ``V_i`` and
    ``bandwidth[i]`` the declared average bandwidth ``beta_i = V_i / T_i(b)``
    (seed 000 assumes the scheduler knows the I/O behaviour of every job; a
    scheduler that estimates it from history, as seed 001's, ignores them).
    ``partition[i]`` is the job's pre-mapped partition or ``-1``;
    ``iterations[i]`` its number of (compute, I/O) iterations ``n_i`` (a
    periodic job's period is ``e_i / n_i`` under exact estimates).
    """

    ids: tuple[str, ...]
    submit: np.ndarray
    nodes: np.ndarray
    estimate: np.ndarray
    volume: np.ndarray
    bandwidth: np.ndarray
    partition: np.ndarray
    iterations: np.ndarray
    users: tuple[str | None, ...]
    groups: tuple[str | None, ...]
    after: tuple[tuple[int, ...], ...]

    def __len__(self) -> int:
        return len(self.ids)


def job_table(instance: Instance, estimate: str = "walltime") -> JobTable:
    """The :class:`JobTable` of ``instance``.

    ``estimate`` says where ``e_i`` comes from: ``"walltime"`` (the job's
    requested time; a job without one gets ``inf``, so backfilling never
    trusts it), or ``"exact"`` (the contention-free length ``T_i(b)``: a
    clairvoyant estimate, for batches with no requested times).
    """
    if estimate not in ("walltime", "exact"):
        raise OptionError(f"estimate={estimate!r} is not one of walltime, exact")
    jobs = instance.jobs
    given = instance.job_arrays
    length = given.length
    volume = given.total_volume
    est = length if estimate == "exact" else given.walltime
    beta = np.divide(volume, length, out=np.zeros(len(jobs)), where=length > 0)
    index = instance.index
    arrays = {
        "submit": given.release,
        "nodes": given.nodes,
        "estimate": est,
        "volume": volume,
        "bandwidth": beta,
        "partition": given.partition,
        "iterations": given.iterations,
    }
    for array in arrays.values():
        array.setflags(write=False)
    return JobTable(
        ids=tuple(j.id for j in jobs), users=tuple(j.user for j in jobs),
        groups=tuple(j.group for j in jobs),
        after=(tuple(tuple(index[d] for d in j.after) for j in jobs)
               if instance.has_dependencies else ((),) * len(jobs)), **arrays)


@dataclass(frozen=True, slots=True)
class RunningJob:
    """A running job as the scheduler sees it: where, since when, and until
    when it is *expected* to run (``start + e_i``)."""

    job: int
    partition: int
    machines: MachineSet
    start: float
    estimated_end: float


class Cluster(Protocol):
    """The engine's live view of the machine (read-only for schedulers)."""

    @property
    def num_partitions(self) -> int: ...

    def size(self, partition: int) -> int:
        """``P_k``, the machines of the partition."""
        ...

    def bandwidth(self, partition: int) -> float:
        """``b_k``, the partition's I/O node bandwidth."""
        ...

    def free_count(self, partition: int) -> int:
        """How many machines of the partition are free now."""
        ...

    def free_machines(self, partition: int) -> Sequence[int]:
        """The free machine numbers of the partition, increasing."""
        ...

    @property
    def running(self) -> dict[int, RunningJob]:
        """Running jobs by index, in start order."""
        ...

    @property
    def waiting(self) -> Sequence[int]:
        """Submitted, not yet started jobs, in submission order."""
        ...


@runtime_checkable
class Scheduler(Protocol):
    """The start rule of a batch system (see the module docstring).

    ``name`` is the scheduler's spec name (e.g. ``"easy"``). The engine calls
    :meth:`attach` once, then :meth:`complete` / :meth:`submit` for the
    events of each instant and :meth:`decide` once per instant. A scheduler
    that needs to act at a time when nothing happens (a backfilling
    interval, a time slice) returns that time from :meth:`next_wakeup`.
    """

    name: str

    def attach(self, jobs: JobTable, cluster: Cluster) -> None:
        """Start of the replay: the jobs and the (empty) cluster."""
        ...

    def submit(self, now: float, job: int) -> None:
        """``job`` became eligible at ``now`` and waits."""
        ...

    def complete(self, now: float, job: int, killed: bool) -> None:
        """``job`` ended at ``now`` (``killed``: at its wall time)."""
        ...

    def decide(self, now: float) -> Sequence[Start]:
        """The jobs to start at ``now``; machines must be free now."""
        ...

    def next_wakeup(self, now: float) -> float:
        """The next time to be asked even if nothing happens (``inf``)."""
        ...
