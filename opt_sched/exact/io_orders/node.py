"""The jobs of one I/O node of an IO-SCHED instance, reduced to operations.

Notation (SPEC §2, ``models/io-sched-cpsat.md``): job ``j`` of partition ``k``
starts at ``t_k = max_{i on k} r_i``; its ``q``-th positive-volume I/O phase
is *operation* ``q``, of duration ``d_jq = v_jq / b_k``, preceded by the
compute time ``lag_jq`` since the end of operation ``q - 1`` (or since
``t_k``); ``tail_j`` is the compute time after its last operation, and
``T_j = T_j(b_k)`` its contention-free length. Zero-volume I/O phases take no
time and never wait, so they merge into the compute time around them.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import OptionError
from ...instance import Instance

__all__ = ["NodeJobs", "node_jobs", "one_pack_partition_of"]


@dataclass(frozen=True)
class NodeJobs:
    """The jobs of partition ``partition``, numbered ``0..n-1`` locally.

    ``members[j]`` is the instance index of local job ``j``; ``lags[j][q]``,
    ``durations[j][q]``, ``tails[j]`` and ``lengths[j]`` are as in the module
    docstring, ``start`` is ``t_k``.
    """

    instance: Instance
    partition: int
    members: tuple[int, ...]
    start: float
    lags: tuple[tuple[float, ...], ...]
    durations: tuple[tuple[float, ...], ...]
    tails: tuple[float, ...]
    lengths: tuple[float, ...]

    @property
    def num_jobs(self) -> int:
        return len(self.members)

    @property
    def counts(self) -> tuple[int, ...]:
        """Operations per local job."""
        return tuple(len(d) for d in self.durations)

    @property
    def num_ops(self) -> int:
        return sum(self.counts)

    @property
    def total_io(self) -> float:
        """``sum_jq d_jq``: the time the node must be busy."""
        return sum(sum(d) for d in self.durations)

    def round_robin(self) -> list[int]:
        """Operations by increasing index ``q``, then job: always a valid
        order (a fallback)."""
        counts = self.counts
        return [j for q in range(max(counts, default=0)) for j in range(self.num_jobs)
                if q < counts[j]]


def one_pack_partition_of(instance: Instance) -> list[int]:
    """``k(i)`` of every job for IO-SCHED: its partition, or 0 on a
    one-partition platform.

    Raises
    ------
    OptionError
        A dependency (IO-SCHED has none) or an unmapped job on a
        multi-partition platform.
    """
    if instance.has_dependencies:
        raise OptionError(f"io-sched: instance {instance.name!r} has dependencies "
                          "(after); IO-SCHED has none")
    out = []
    for job in instance.jobs:
        if job.partition is None:
            if instance.platform.num_partitions != 1:
                raise OptionError(f"io-sched: job {job.id!r} has partition=None on a "
                                  "multi-partition platform")
            out.append(0)
        else:
            out.append(job.partition)
    return out


def node_jobs(instance: Instance) -> list[NodeJobs]:
    """One :class:`NodeJobs` per partition that has jobs, by partition."""
    partition = one_pack_partition_of(instance)
    parts = instance.platform.partitions
    out = []
    for k in sorted(set(partition)):
        members = tuple(i for i, k2 in enumerate(partition) if k2 == k)
        bandwidth = parts[k].bandwidth
        lags, durations, tails, lengths = [], [], [], []
        for i in members:
            job = instance.jobs[i]
            lag: list[float] = []
            duration: list[float] = []
            pending = 0.0
            for w, v in zip(job.compute, job.io_volume):
                pending += w
                if v > 0:
                    lag.append(pending)
                    duration.append(v / bandwidth)
                    pending = 0.0
            lags.append(tuple(lag))
            durations.append(tuple(duration))
            tails.append(pending)
            lengths.append(job.length(instance.bandwidth_of(job)))
        start = max(instance.jobs[i].release for i in members)
        out.append(NodeJobs(instance, k, members, start, tuple(lags),
                            tuple(durations), tuple(tails), tuple(lengths)))
    return out
