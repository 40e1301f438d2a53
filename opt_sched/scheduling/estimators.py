"""Job requirements estimated from history (seed 001, slides "Estimating job
requirements from history"; digest B.4).

Jobs are grouped by ``(user, group, time limit, nodes)`` -- ``group`` is the
executable or script (SWF field 14, or the instance's ``group``). When a job
of the group completes, its measured run time ``x_T = C_i - S_i`` and its
measured average throughput ``x_R = V_i / (C_i - S_i)`` (bytes moved over
the time it ran: *what it got*, which falls under contention) update the
group's exponentially weighted moving averages, in count-normalised form
with decay ``a = 0.2`` (py-sim-serv's ``pysimserv3``):

.. math:: C \\leftarrow 1 + (1 - a) C, \\qquad
          S \\leftarrow x + (1 - a) S, \\qquad \\hat x = S / C .

The prediction is the mean (``K_SIGMA = 0`` in the authors' code).

Cold start (no completed job in the group): the run time is the user's
request (the time limit ``e_i``), and the throughput is the job's *declared*
average bandwidth ``beta_i`` when the workload declares one (a pre-trained
estimator, as in the seed's Workload 1 experiment), else ``default_rate``
(0: an unknown job is assumed not to do I/O, the optimistic default of a
scheduler that has never seen it). Estimates are what schedulers see; the
simulator runs the truth.
"""

from __future__ import annotations

from dataclasses import dataclass

from .base import JobTable

__all__ = ["DECAY", "HistoryEstimator"]

DECAY = 0.2


@dataclass
class _Ewma:
    count: float = 0.0
    total: float = 0.0
    observed: int = 0

    def add(self, x: float, decay: float) -> None:
        self.count = 1.0 + (1.0 - decay) * self.count
        self.total = x + (1.0 - decay) * self.total
        self.observed += 1

    @property
    def mean(self) -> float:
        return self.total / self.count


class HistoryEstimator:
    """Per-group EWMA estimates of run time and I/O throughput.

    Parameters
    ----------
    jobs
        The job table (groups are derived from it).
    decay
        The EWMA decay ``a``.
    cold_rate
        ``"declared"`` (cold start from ``JobTable.bandwidth``) or
        ``"default"`` (cold start from ``default_rate``).
    default_rate
        Throughput assumed for a job of an unseen group with ``"default"``.
    """

    def __init__(self, jobs: JobTable, decay: float = DECAY,
                 cold_rate: str = "declared", default_rate: float = 0.0) -> None:
        if not 0 < decay <= 1:
            raise ValueError(f"decay={decay!r} must be in (0, 1]")
        self.jobs = jobs
        self.decay = decay
        self.cold_rate = cold_rate
        self.default_rate = default_rate
        self._runtime: dict[tuple, _Ewma] = {}
        self._rate: dict[tuple, _Ewma] = {}

    def group(self, job: int) -> tuple:
        """``(user, group, time limit, nodes)`` of ``job``."""
        j = self.jobs
        return (j.users[job], j.groups[job], float(j.estimate[job]), int(j.nodes[job]))

    def observe(self, job: int, start: float, end: float) -> None:
        """``job`` ran on ``[start, end)``: update its group."""
        length = end - start
        if length <= 0:
            return
        key = self.group(job)
        self._runtime.setdefault(key, _Ewma()).add(length, self.decay)
        self._rate.setdefault(key, _Ewma()).add(
            float(self.jobs.volume[job]) / length, self.decay)

    def runtime(self, job: int) -> float:
        """Predicted run time (the request until the group has history)."""
        history = self._runtime.get(self.group(job))
        return float(self.jobs.estimate[job]) if history is None else history.mean

    def rate(self, job: int) -> float:
        """Predicted average throughput (bytes per second)."""
        history = self._rate.get(self.group(job))
        if history is not None:
            return history.mean
        if self.cold_rate == "declared":
            return float(self.jobs.bandwidth[job])
        return self.default_rate

    def seen(self, job: int) -> int:
        """How many completed jobs of the group have been observed."""
        history = self._runtime.get(self.group(job))
        return 0 if history is None else history.observed
