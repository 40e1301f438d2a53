"""Job requirements estimated from history (seed 001, slides "Estimating job
requirements from history"; digest B.4), and the pluggable estimate source
of the throughput-aware schedulers.

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
scheduler that has never seen it). A *pre-trained* estimator (seed 001:
"the estimator is pre-trained by running jobs in isolation") starts each
group it was given a run of with that one observation
(:meth:`HistoryEstimator.prime`; :mod:`~opt_sched.scheduling.pretrain` makes
the isolated runs). Estimates are what schedulers see; the simulator runs
the truth.

Estimate sources (:func:`make_estimates`, the ``estimates=`` option of the
throughput-aware schedulers ``herbein`` and ``workload-adaptive``):

- ``"declared"`` -- :class:`DeclaredEstimates`: the declared average
  bandwidth ``beta_i`` and the request ``e_i``, never updated (seed 000 and
  Herbein et al. assume the I/O behaviour is known);
- ``"history"`` -- :class:`HistoryEstimator`: the EWMA above.

Both answer for many jobs at once (:meth:`HistoryEstimator.rates`,
:meth:`HistoryEstimator.runtimes`) and count their changes (``version``), so
a scheduler refreshes its demands only when an estimate moved.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..errors import OptionError
from .base import JobTable

__all__ = ["DECAY", "ESTIMATE_SOURCES", "DeclaredEstimates", "HistoryEstimator",
           "make_estimates"]

DECAY = 0.2

ESTIMATE_SOURCES = ("declared", "history")


class DeclaredEstimates:
    """The declared average bandwidth ``beta_i`` and the request ``e_i``;
    observations are ignored (``version`` stays 0)."""

    name = "declared"
    version = 0

    def __init__(self, jobs: JobTable) -> None:
        self.jobs = jobs

    def observe(self, job: int, start: float, end: float) -> None:
        """Nothing to learn."""

    def rates(self, jobs: np.ndarray) -> np.ndarray:
        """``beta_i`` of ``jobs``."""
        return np.asarray(self.jobs.bandwidth[jobs], float)

    def runtimes(self, jobs: np.ndarray) -> np.ndarray:
        """``e_i`` of ``jobs``."""
        return np.asarray(self.jobs.estimate[jobs], float)


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

    name = "history"

    def __init__(self, jobs: JobTable, decay: float = DECAY,
                 cold_rate: str = "declared", default_rate: float = 0.0) -> None:
        if not 0 < decay <= 1:
            raise ValueError(f"decay={decay!r} must be in (0, 1]")
        if cold_rate not in ("declared", "default"):
            raise OptionError(f"cold_rate={cold_rate!r} is not declared or default")
        self.jobs = jobs
        self.decay = decay
        self.cold_rate = cold_rate
        self.default_rate = default_rate
        keys: dict[tuple, int] = {}
        self._group_of = np.fromiter(
            (keys.setdefault(self.group(i), len(keys)) for i in range(len(jobs))),
            np.int64, len(jobs))
        g = len(keys)
        self._count = np.zeros(g)       # C of both averages (same decay)
        self._sum_runtime = np.zeros(g)
        self._sum_rate = np.zeros(g)
        self._observed = np.zeros(g, np.int64)
        self._cold_rate = (np.asarray(jobs.bandwidth, float) if cold_rate == "declared"
                           else np.full(len(jobs), float(default_rate)))
        self.version = 0
        """Incremented at every observation."""

    def group(self, job: int) -> tuple:
        """``(user, group, time limit, nodes)`` of ``job``."""
        j = self.jobs
        return (j.users[job], j.groups[job], float(j.estimate[job]), int(j.nodes[job]))

    def observe(self, job: int, start: float, end: float) -> None:
        """``job`` ran on ``[start, end)``: update its group."""
        length = end - start
        if length <= 0:
            return
        g = self._group_of[job]
        keep = 1.0 - self.decay
        self._count[g] = 1.0 + keep * self._count[g]
        self._sum_runtime[g] = length + keep * self._sum_runtime[g]
        self._sum_rate[g] = float(self.jobs.volume[job]) / length + keep * \
            self._sum_rate[g]
        self._observed[g] += 1
        self.version += 1

    def prime(self, job: int, runtime: float, rate: float) -> None:
        """Start ``job``'s group with one observed run (``runtime`` seconds,
        average throughput ``rate``), as if it had completed before the
        replay."""
        g = self._group_of[job]
        keep = 1.0 - self.decay
        self._count[g] = 1.0 + keep * self._count[g]
        self._sum_runtime[g] = runtime + keep * self._sum_runtime[g]
        self._sum_rate[g] = rate + keep * self._sum_rate[g]
        self._observed[g] += 1
        self.version += 1

    def runtime(self, job: int) -> float:
        """Predicted run time (the request until the group has history)."""
        return float(self.runtimes(np.array([job]))[0])

    def rate(self, job: int) -> float:
        """Predicted average throughput (bytes per second)."""
        return float(self.rates(np.array([job]))[0])

    def runtimes(self, jobs: np.ndarray) -> np.ndarray:
        """Predicted run times of ``jobs`` (an index array)."""
        g = self._group_of[jobs]
        count = self._count[g]
        seen = count > 0
        return np.where(seen, self._sum_runtime[g] / np.where(seen, count, 1.0),
                        self.jobs.estimate[jobs])

    def rates(self, jobs: np.ndarray) -> np.ndarray:
        """Predicted average throughputs of ``jobs`` (an index array)."""
        g = self._group_of[jobs]
        count = self._count[g]
        seen = count > 0
        return np.where(seen, self._sum_rate[g] / np.where(seen, count, 1.0),
                        self._cold_rate[jobs])

    def seen(self, job: int) -> int:
        """How many completed jobs of the group have been observed."""
        return int(self._observed[self._group_of[job]])


def make_estimates(source: str, jobs: JobTable,
                   prior: Mapping[int, tuple[float, float]] | None = None
                   ) -> DeclaredEstimates | HistoryEstimator:
    """The estimate source ``"declared"`` or ``"history"`` for ``jobs``;
    ``prior`` (history only) maps a job index to an isolated run ``(run
    time, throughput)`` that primes its group.

    Raises
    ------
    OptionError
        Unknown source, or a prior for declared estimates.
    """
    if source == "declared":
        if prior:
            raise OptionError("a prior (pre-training) needs estimates='history'")
        return DeclaredEstimates(jobs)
    if source == "history":
        est = HistoryEstimator(jobs)
        for job, (runtime, rate) in (prior or {}).items():
            if not 0 <= job < len(jobs):
                raise OptionError(f"prior: job index {job!r} is not in the workload")
            est.prime(job, float(runtime), float(rate))
        return est
    raise OptionError(f"estimates={source!r} is not one of "
                      f"{', '.join(ESTIMATE_SOURCES)}")
