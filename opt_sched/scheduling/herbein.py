"""``herbein``: I/O-aware EASY backfilling with a bandwidth limit, after
Herbein et al.

S. Herbein, D. H. Ahn, D. Lipari, T. R. W. Scogland, M. Stearman,
M. Grondona, J. Garlick, B. Springmeyer, M. Taufer. Scalable I/O-Aware Job
Scheduling for Burst Buffer Enabled HPC Clusters. HPDC 2016, pp. 69-80,
doi:10.1145/2907294.2907316.

The parallel file system's bandwidth is a schedulable resource with a limit
``L``: a job starts -- in queue order or as a backfill -- only if the average
bandwidths (:attr:`~opt_sched.scheduling.base.JobTable.bandwidth`) of the
running jobs leave room for its own,

.. math:: \\beta_i + \\sum_{j\\ \\text{running}} \\beta_j \\le L .

Nodes are scheduled by :class:`~opt_sched.scheduling.easy.EasyBackfilling`
(the head job's machines are reserved); the bandwidth is an admission test
at start time only (:class:`~opt_sched.scheduling.bandwidth.BandwidthLimit`),
not planned ahead. That is the difference with ``io-easy`` (seed 000),
whose reservation also holds the head job's bandwidth: here backfilled jobs
may take bandwidth the head job will need, and a head job whose machines
are free but whose bandwidth is not keeps its machines reserved from now
on. A limit below ``B`` leaves head-room for I/O bursts.

The bandwidths are *estimates*, from a pluggable source (``estimates=``,
:mod:`~opt_sched.scheduling.estimators`): the declared ``beta_i``
(default; Herbein et al. and seed 000 assume the I/O behaviour known), or
seed 001's history estimator (``"history"``): per-group moving averages of
the *measured* throughput ``V_i / (C_i - S_i)``, cold-started from the
declared rate (a pre-trained estimator). This is seed 001's "common"
I/O-aware scheduling: "the scheduler estimates the file system throughput of
the jobs" and "doesn't let the total estimated throughput exceed" the
limit. With history, a job's demand is capped at ``L`` (so it may run
alone) and a running job counts with the estimate it was admitted with.
Measured rates fall under contention, so the estimates fall and more jobs
are admitted: seed 001's "overscheduling leads to further overscheduling".
"""

from __future__ import annotations

from collections.abc import Mapping

from .bandwidth import BandwidthLimit
from .easy import EasyBackfilling
from .queue_order import QueueOrder

__all__ = ["HerbeinEasy"]


class HerbeinEasy(EasyBackfilling):
    """EASY backfilling that starts a job only if the running jobs' average
    bandwidths plus its own stay within ``limit``.

    Parameters
    ----------
    limit
        ``L`` in bandwidth units; ``None`` (default): the partition's I/O
        bandwidth ``b_k``.
    estimates
        ``"declared"`` (default) or ``"history"`` (see the module docstring).
    order, rjms_delay, prior, bf_depth, bf_interval
        As :class:`~opt_sched.scheduling.backfilling.ProfileScheduler`.
    """

    name = "herbein"

    def __init__(self, limit: float | None = None, order: str | QueueOrder = "fcfs",
                 rjms_delay: float = 0.0, estimates: str = "declared",
                 prior: Mapping[int, tuple[float, float]] | None = None, *,
                 bf_depth: int | None = None, bf_interval: float = 0.0) -> None:
        super().__init__(order, rjms_delay, BandwidthLimit(limit), estimates, prior,
                         bf_depth=bf_depth, bf_interval=bf_interval)
