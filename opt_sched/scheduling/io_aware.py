"""``io-easy``: seed 000's I/O-aware list scheduling with EASY backfilling.

Seed 000 (I/O-aware list scheduling, "LS") maps each job, in queue order,
"as soon as both its processor and its bandwidth requirements are met",
under the *strict constraint*: at every instant the average bandwidths
``beta_i = V_i / T_i(b)`` (:attr:`~opt_sched.scheduling.base.JobTable.bandwidth`)
of the running jobs sum to at most the I/O bandwidth ``B`` of the partition,

.. math:: \\beta_i + \\sum_{j\\ \\text{running at}\\ t} \\beta_j \\le B .

Its backfilling is EASY's, with bandwidth planned like nodes: this is
:class:`~opt_sched.scheduling.easy.EasyBackfilling` on a profile that also
tracks free bandwidth (:class:`~opt_sched.scheduling.bandwidth.ReservedBandwidth`).
The head job's reservation holds ``Q_h`` machines *and* ``beta_h`` of
bandwidth over ``[t_h, t_h + e_h)``, and a job is backfilled now only if, over
its whole estimate ``[now, now + e_i)``, both its machines and its bandwidth
fit beside the running jobs and the reservation. With no I/O (``beta = 0``)
it is exactly ``easy``.
"""

from __future__ import annotations

from .bandwidth import ReservedBandwidth
from .easy import EasyBackfilling
from .queue_order import QueueOrder

__all__ = ["IOAwareEasy"]


class IOAwareEasy(EasyBackfilling):
    """Seed 000's LS under the strict constraint, with EASY backfilling
    reserving nodes and bandwidth for the head job.

    Parameters
    ----------
    order
        Queue order, ``"fcfs"`` (seed 000) or ``"sjf"``.
    bandwidth
        ``B``; ``None`` (default): the partition's I/O bandwidth ``b_k``.
    rjms_delay
        Seconds added to every estimate.
    """

    name = "io-easy"

    def __init__(self, order: str | QueueOrder = "fcfs",
                 bandwidth: float | None = None, rjms_delay: float = 0.0) -> None:
        super().__init__(order, rjms_delay, ReservedBandwidth(bandwidth))
