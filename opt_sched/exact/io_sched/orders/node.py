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

from ....instance import Instance
from ....operations import job_operations, one_pack_partitions, pack_starts

__all__ = ["NodeJobs", "node_jobs"]


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


def node_jobs(instance: Instance) -> list[NodeJobs]:
    """One :class:`NodeJobs` per partition that has jobs, by partition.

    Jobs are read through :func:`opt_sched.operations.job_operations`;
    partitions and pack starts are those of IO-SCHED
    (:func:`opt_sched.operations.one_pack_partitions`,
    :func:`~opt_sched.operations.pack_starts`).

    Raises
    ------
    OptionError
        The instance does not pose IO-SCHED (dependencies, or an unmapped job
        on a multi-partition platform).
    """
    partition = one_pack_partitions(instance)
    starts = pack_starts(instance, partition)
    parts = instance.platform.partitions
    out = []
    for k in sorted(set(partition)):
        members = tuple(i for i, k2 in enumerate(partition) if k2 == k)
        bandwidth = parts[k].bandwidth
        lags, durations, tails, lengths = [], [], [], []
        for i in members:
            job = instance.jobs[i]
            ops = job_operations(job)
            lags.append(tuple(float(x) for x in ops.lags))
            durations.append(tuple(float(x) for x in ops.durations(bandwidth)))
            tails.append(float(ops.tail))
            lengths.append(job.length(instance.bandwidth_of(job)))
        out.append(NodeJobs(instance, k, members, float(starts[k]), tuple(lags),
                            tuple(durations), tuple(tails), tuple(lengths)))
    return out
