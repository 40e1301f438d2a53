"""Jobs as the work their I/O nodes must serve: operations, lags, tails, and
the one-pack structure of IO-SCHED.

A job ``i`` (SPEC §2) alternates compute phases ``w_ij`` and I/O phases of
volume ``v_ij``. Only the I/O phases of positive volume use the I/O node;
they are the job's *operations*, ``q = 0, 1, ...`` in order (a zero-volume
I/O phase takes no time and never waits, so it merges into the compute time
around it). On a partition of bandwidth ``b``, operation ``q`` has

.. math::

    g_q = \\text{compute between the end of operation } q - 1
          \\text{ (or the job start) and operation } q, \\qquad
    p_q = v_q / b,

    h_q = \\sum_{q' \\le q} g_{q'} + \\sum_{q' < q} p_{q'}, \\qquad
    t_q = \\sum_{q' > q} (g_{q'} + p_{q'}) + a

with ``a`` the compute after the last operation (all of the job's compute
when it has none): *lag*, *duration*, *head* (earliest start after the job
start), *tail* (the job's own work after the operation ends). For every
operation ``h_q + p_q + t_q = T_i(b)``. Every layer (the bounds, the
CP-SAT and MILP models, the brute force) reads jobs through
:func:`job_operations`.

IO-SCHED (SPEC §5) runs every partition's jobs as *one pack*: a job runs on
its effective partition (:meth:`Instance.effective_partition`) and all jobs
of partition ``k`` start together at ``t_k = max_{i on k} r_i``
(:func:`one_pack_partitions`, :func:`pack_starts`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .errors import OptionError
from .instance import Instance, Job

__all__ = [
    "JobOperations",
    "allowed_partitions",
    "is_one_pack",
    "job_operations",
    "one_pack_partitions",
    "overfull_partition",
    "pack_starts",
    "phase_starts",
]


@dataclass(frozen=True, eq=False)
class JobOperations:
    """A job reduced to its operations (module doc).

    ``iterations[q]`` is the iteration of operation ``q``, ``volumes[q]`` its
    volume ``v_q`` and ``lags[q]`` its lag ``g_q`` (read-only arrays);
    ``tail`` is ``a``, the compute after the last operation. Durations,
    heads and tails depend on the bandwidth and are computed by the methods.
    """

    iterations: np.ndarray
    volumes: np.ndarray
    lags: np.ndarray
    tail: float

    @property
    def count(self) -> int:
        """The number of operations."""
        return len(self.iterations)

    def durations(self, bandwidth: float) -> np.ndarray:
        """``p_q = v_q / b``."""
        return self.volumes / bandwidth

    def heads(self, bandwidth: float) -> np.ndarray:
        """``h_q``: earliest start of operation ``q`` after the job start."""
        durations = self.durations(bandwidth)
        return np.cumsum(self.lags) + (np.cumsum(durations) - durations)

    def tails(self, bandwidth: float) -> np.ndarray:
        """``t_q``: the job's own work after operation ``q`` ends."""
        return self.remaining(bandwidth)[1:]

    def remaining(self, bandwidth: float) -> np.ndarray:
        """``r_q = g_q + p_q + t_q``: the job's work from the end of operation
        ``q - 1`` (or its start) to its completion; ``r_count = a``."""
        work = self.lags + self.durations(bandwidth)
        after = np.cumsum(work[::-1])[::-1]  # after[q] = sum_{q' >= q} (g + p)
        return np.append(after, 0.0) + self.tail


def job_operations(job: Job) -> JobOperations:
    """Split ``job`` into its operations (module doc).

    Each lag is the sum of the compute phases since the previous operation
    (summed in order, segment by segment), so a periodic job's lags are its
    ``w`` exactly.
    """
    compute = job.compute_array
    positions = np.flatnonzero(job.volume_array > 0)
    if positions.size == 0:
        empty = np.zeros(0)
        return JobOperations(positions, empty, empty, float(np.sum(compute)))
    starts = np.concatenate(([0], positions[:-1] + 1))
    lags = np.add.reduceat(compute, starts)
    # reduceat sums compute[starts[q]:starts[q + 1]]; the last segment must
    # stop at the last operation, not at the end of the job
    last = positions[-1]
    lags[-1] = np.sum(compute[starts[-1]:last + 1])
    tail = float(np.sum(compute[last + 1:])) if last + 1 < compute.size else 0.0
    volumes = job.volume_array[positions]
    for array in (positions, volumes, lags):
        array.flags.writeable = False
    return JobOperations(positions, volumes, lags, tail)


# -- where jobs run ---------------------------------------------------------------
def phase_starts(job: Job, start: float, op_starts: Sequence[float],
                 bandwidth: float) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """``(compute starts, I/O starts)`` of ``job`` started at ``start`` whose
    operations (its non-zero I/O phases, in order) start no earlier than
    ``op_starts[q]``: compute phase ``j`` starts when I/O phase ``j - 1``
    ends (``start`` for ``j = 0``), operation ``q`` at ``max(op_starts[q],
    end of its compute phase)`` and lasts ``v_q / b``; a zero-volume I/O
    phase starts (and ends) when its compute phase ends.
    """
    now = start
    q = 0
    compute_starts: list[float] = []
    io_starts: list[float] = []
    for w, v in zip(job.compute, job.io_volume):
        compute_starts.append(now)
        now += w
        if v > 0:
            begin = max(op_starts[q], now)
            q += 1
            io_starts.append(begin)
            now = begin + v / bandwidth
        else:
            io_starts.append(now)
    return tuple(compute_starts), tuple(io_starts)


def allowed_partitions(instance: Instance) -> list[tuple[int, ...]]:
    """``K_i``: the job's effective partition if it has one, else every
    partition with ``P_k >= Q_i``."""
    parts = instance.platform.partitions
    out = []
    for job in instance.jobs:
        k = instance.effective_partition(job)
        if k is not None:
            out.append((k,))
        else:
            out.append(tuple(k for k, p in enumerate(parts) if p.nodes >= job.nodes))
    return out


def is_one_pack(instance: Instance) -> bool:
    """Whether ``instance`` poses IO-SCHED: every job has an effective
    partition and no job has a predecessor."""
    return (not instance.has_dependencies
            and all(instance.effective_partition(job) is not None
                    for job in instance.jobs))


def one_pack_partitions(instance: Instance, who: str = "io-sched") -> list[int]:
    """``k(i)`` for every job of a one-pack (IO-SCHED) instance.

    Raises
    ------
    OptionError
        A dependency (IO-SCHED has none), or a job without partition on a
        multi-partition platform; ``who`` names the caller in the message.
    """
    out: list[int] = []
    problems = []
    for job in instance.jobs:
        k = instance.effective_partition(job)
        if k is None and not problems:
            problems.append(f"job {job.id!r} has partition=None on a "
                            "multi-partition platform")
        out.append(0 if k is None else k)
    if instance.has_dependencies:
        problems.append(f"instance {instance.name!r} has dependencies (after), "
                        "IO-SCHED has none")
    if problems:
        raise OptionError(f"{who}: " + "; ".join(problems))
    return out


def pack_starts(instance: Instance, partition: Sequence[int]) -> dict[int, float]:
    """``t_k = max_{i on k} r_i``: the common start of the one pack of every
    used partition ``k`` (``partition[i]`` is job ``i``'s)."""
    starts: dict[int, float] = {}
    for job, k in zip(instance.jobs, partition):
        starts[k] = max(starts.get(k, job.release), job.release)
    return starts


def overfull_partition(instance: Instance, partition: Sequence[int]
                       ) -> tuple[int, int, int] | None:
    """The first partition ``k`` whose one pack does not fit it, as
    ``(k, sum Q_i, P_k)``, or ``None`` when every pack fits (rule 4 with all
    jobs of ``k`` running at ``t_k``)."""
    used: dict[int, int] = {}
    for job, k in zip(instance.jobs, partition):
        used[k] = used.get(k, 0) + job.nodes
    for k in sorted(used):
        nodes = instance.platform.partitions[k].nodes
        if used[k] > nodes:
            return k, used[k], nodes
    return None


def heads_and_tails(instance: Instance, lengths: Sequence[float]
                    ) -> tuple[list[float], list[float]]:
    """The precedence graph's heads and tails for job lengths ``T_i``:
    ``est_i = max(r_i, max_{p in pred(i)} est_p + T_p)`` (the earliest
    start) and ``succ_i = max_{s in succ(i)} T_s + succ_s`` (the least work
    that must follow ``i``), in the instance's job order."""
    jobs = instance.jobs
    est = [0.0] * len(jobs)
    succ = [0.0] * len(jobs)
    order = instance.topological_order()
    index = instance.index
    for i in order:
        est[i] = max([jobs[i].release]
                     + [est[index[p]] + lengths[index[p]] for p in jobs[i].after])
    for i in reversed(order):
        for p in jobs[i].after:
            q = index[p]
            succ[q] = max(succ[q], lengths[i] + succ[i])
    return est, succ
