r"""Load control by *job pressure*, and the fill phase (seed 002, Paper IV
§3.4; digest B.1).

Job pressure at time ``t`` (from the start ``t_0`` of the generation) is the
submitted work over the capacity so far,

.. math:: P(t) = \frac{\sum_{r_i \le t} Q_i\, e^{run}_i}{N\,(t - t_0)}

(node-seconds of real run time, ``N`` machines). For every timestamp the
inter-arrival sampler produces (ScSF, as the thesis states it):

- if ``P(t) >= upper`` (1.1): the job is discarded, the timestamp is kept;
- otherwise it is submitted, and while ``P(t) < lower`` (1.0) more jobs
  are generated and submitted at the *same* timestamp.

The decision for a job depends only on the jobs before it, so the kept jobs
have the sampled distributions. ScSF's repository smooths ``P`` over a 3600
s window with a hysteresis; the thesis's cumulative rule is used here.

Fill (the repository's ``machine_filler``, digest B.1). To start with the
target wait ``w`` (4 h on Edison) already in the queue, ``m = w / 10 s``
jobs are submitted every 10 s from ``t_0 - w - 120 s``, each of
``ceil(N / m)`` nodes, running ``2 w + 120 s`` and requesting one minute
more: they fill the machine, and the jobs submitted from ``t_0`` wait
about ``w`` for them to end (the first fill job ends at ``t_0 + w``). On a
machine of fewer than ``m`` nodes, ``m = N`` one-node jobs (the formula
would otherwise queue a backlog many times ``w``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..errors import OptionError

__all__ = ["FillPlan", "PressureControl", "fill_plan"]


class PressureControl:
    """The cumulative job-pressure rule (see the module docstring)."""

    def __init__(self, machines: int, start: float, lower: float = 1.0,
                 upper: float = 1.1) -> None:
        if not 0 < lower <= upper:
            raise OptionError(f"pressure thresholds lower={lower!r}, upper={upper!r} "
                              f"need 0 < lower <= upper")
        if machines < 1:
            raise OptionError(f"pressure: machines={machines!r} must be >= 1")
        self.machines = machines
        self.start = float(start)
        self.lower = float(lower)
        self.upper = float(upper)
        self.submitted = 0.0

    def pressure(self, now: float) -> float:
        """``P(now)`` (``inf`` at the start with work submitted)."""
        elapsed = now - self.start
        if elapsed <= 0:
            return math.inf if self.submitted > 0 else 0.0
        return self.submitted / (self.machines * elapsed)

    def admits(self, now: float) -> bool:
        """Whether a job sampled at ``now`` is kept (``P < upper``)."""
        return self.pressure(now) < self.upper

    def wants_more(self, now: float) -> bool:
        """Whether to generate another job at ``now`` (``P < lower``)."""
        return self.pressure(now) < self.lower

    def add(self, work: float) -> None:
        """Count ``work`` node-seconds as submitted."""
        self.submitted += work


@dataclass(frozen=True)
class FillPlan:
    """The fill jobs: ``count`` jobs of ``nodes`` machines, submitted every
    ``period`` seconds from ``first``, each running ``runtime`` and
    requesting ``walltime``."""

    count: int
    nodes: int
    period: float
    first: float
    runtime: float
    walltime: float


def fill_plan(machines: int, target_wait: float, start: float,
              period: float = 10.0) -> FillPlan:
    """The fill phase ending at ``start`` for a wait of ``target_wait``."""
    if not target_wait > 0 or not period > 0:
        raise OptionError(f"fill: target_wait={target_wait!r} and period="
                          f"{period!r} must be > 0")
    count = max(1, min(int(target_wait // period), machines))
    nodes = max(1, -(-machines // count))
    runtime = 2 * target_wait + 120.0
    return FillPlan(count, nodes, period, start - target_wait - 120.0, runtime,
                    runtime + 60.0)
