"""Seed 001's two HPC-cluster workloads (Goponenko et al., slides "Robustness
of I/O-aware scheduling: HPC cluster" and "Two-group approximation:
'Workload 2'"), rebuilt for simulation.

What the slides state:

- Workload 1: "Periodical pattern (8x): 30 'write x 8' jobs, 60 'sleep'
  jobs"; "Bandwidth is 15-20 GiB/s"; the I/O-aware scheduler at a 20 GiB/s
  limit "initially schedules no more than 5 'write x 8' jobs" and "later
  ... as many as 12".
- Workload 2: "Periodical pattern (5x)": 30 write x 8, 30 write x 6, 30
  write x 4, 70 write x 2, 120 write x 1 ("k threads x 10 GiB") and 60
  sleep (10 min).

Everything else is a choice, made here once (units: seconds, GiB, GiB/s):

- **What "8x" and "5x" mean.** The listed block is the period; the queue is
  the block repeated 8 (Workload 1) or 5 (Workload 2) times, all jobs
  submitted at time 0 in block order (within a block: the write jobs from
  the widest down, then the sleep jobs). Workload 1 has 8 x 90 = 720 jobs,
  Workload 2 5 x 340 = 1,700.
- **write x k.** ``k`` threads, one per node: ``k`` nodes, one iteration of
  no compute and an I/O phase of ``10 k`` GiB (10 GiB per thread).
- **Its run time alone.** Not a property of the job but of the execution
  model: under :data:`EXECUTION` a client node writes at most
  ``node_rate = 0.5`` GiB/s, so every write job alone lasts 10 / 0.5 = 20 s
  and write x 8 moves 4 GiB/s. That rate is chosen from the slides' own
  numbers: with the estimator "pre-trained by running jobs in isolation", a
  20 GiB/s limit admits at most 5 write x 8 jobs, so one runs at about
  20 / 5 = 4 GiB/s alone.
- **sleep.** One node, 600 s of compute, no I/O (Workload 2's "10 min";
  Workload 1 states no length: the same).
- **Requested times** (what EASY reserves; the estimator's cold start):
  300 s for a write job (15 times its isolated run; contention stretches
  it), 660 s for a sleep job (its length plus 10 %).
- **Users and groups.** One user; the group is the job type (``write8``,
  ..., ``sleep``): the estimator's groups are the job types.
- **Cluster.** ``nodes`` machines, 256 by default (the slides do not say;
  results for 128 and 512 are in ``docs/reproduction-goponenko.md``), one
  partition whose I/O node (the file system) has ``b = 20`` GiB/s.
- **The file system**, :data:`EXECUTION` (the ``shared`` model): bandwidth
  split in proportion to the writers' nodes (``share="nodes"``: Lustre
  serves clients), at most 0.5 GiB/s per node, and a congestion curve that
  reads "15-20 GiB/s" as a range over the load: ``eta(1) = 1`` (20 GiB/s,
  the nominal bandwidth, which the 20 GiB/s limit assumes), ``eta(4) =
  0.8`` (16 GiB/s), ``eta(m) = 0.75`` (15 GiB/s) from 16 writers on,
  linear between. Why it falls that early: a history estimator that
  measured ``m`` jobs sharing ``eta(m) b`` admits an ``(m+1)``-th under the
  limit ``L`` iff ``eta(m) b <= L m / (m + 1)``; the slides saw the 20
  GiB/s scheduler drift from 5 to 12 concurrent write x 8 jobs, so with 5
  writers the file system delivered less than 5/6 of 20 GiB/s. The curve
  is concave in the sense the slides invoke ("Better performance can be
  attained in case rate vs load dependence is concave"): the delivered
  total falls as writers are added.

The generators are deterministic (there is nothing to draw).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import OptionError
from ..instance import Instance, Job, Platform
from .limits import check_job_count, check_machine_count

__all__ = ["EXECUTION", "GOPONENKO_WORKLOADS", "WorkloadSpec", "goponenko_workload"]

EXECUTION = {"share": "nodes", "node_rate": 0.5, "eta": "1:1,4:0.8,16:0.75"}
"""The ``shared`` model options of the file system (module docstring)."""

BANDWIDTH = 20.0
THREAD_VOLUME = 10.0
SLEEP = 600.0
WRITE_REQUEST = 300.0
SLEEP_REQUEST = 660.0


@dataclass(frozen=True)
class WorkloadSpec:
    """One period: ``(threads k, count)`` of write jobs, then ``sleeps``
    sleep jobs; repeated ``repeats`` times."""

    writes: tuple[tuple[int, int], ...]
    sleeps: int
    repeats: int

    @property
    def jobs_per_period(self) -> int:
        return sum(c for _, c in self.writes) + self.sleeps


GOPONENKO_WORKLOADS = {
    1: WorkloadSpec(writes=((8, 30),), sleeps=60, repeats=8),
    2: WorkloadSpec(writes=((8, 30), (6, 30), (4, 30), (2, 70), (1, 120)), sleeps=60,
                    repeats=5),
}
"""Workload number -> its period (module docstring)."""


def goponenko_workload(workload: int, nodes: int = 256,
                       repeats: int | None = None) -> Instance:
    """Workload 1 or 2 of seed 001 on ``nodes`` machines (module docstring);
    ``repeats`` overrides the number of periods (8 and 5).

    Raises
    ------
    OptionError
        ``workload`` is not 1 or 2, ``nodes`` is below 8 (a write x 8 job
        needs 8), or ``repeats`` is below 1.
    """
    spec = GOPONENKO_WORKLOADS.get(workload)
    if spec is None:
        raise OptionError(f"workload={workload!r} is not 1 or 2 (seed 001)")
    widest = max(k for k, _ in spec.writes)
    if isinstance(nodes, bool) or not isinstance(nodes, int) or nodes < widest:
        raise OptionError(f"nodes={nodes!r} must be an integer >= {widest}")
    check_machine_count(nodes, f"nodes={nodes!r}")
    count = spec.repeats if repeats is None else repeats
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise OptionError(f"repeats={repeats!r} must be an integer >= 1")
    check_job_count(count * spec.jobs_per_period,
                    f"repeats={count!r} (of {spec.jobs_per_period} jobs each)")
    jobs = []
    for p in range(count):
        for k, c in spec.writes:
            for i in range(c):
                jobs.append(Job(f"p{p}-w{k}-{i}", k, (0.0,), (THREAD_VOLUME * k,),
                                user="user", group=f"write{k}",
                                walltime=WRITE_REQUEST))
        for i in range(spec.sleeps):
            jobs.append(Job(f"p{p}-sleep-{i}", 1, (SLEEP,), (0.0,), user="user",
                            group="sleep", walltime=SLEEP_REQUEST))
    name = f"goponenko-w{workload}-n{nodes}" + ("" if repeats is None else
                                                 f"-x{count}")
    return Instance(name, Platform.homogeneous(1, nodes=nodes, bandwidth=BANDWIDTH),
                    tuple(jobs))
