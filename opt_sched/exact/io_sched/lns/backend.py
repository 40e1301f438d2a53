"""The ``lns`` backend of IO-SCHED: list-policy and cyclic seeds, then the
LNS over I/O orders on every node (``models/lns.md``).

Registered as ``solve(instance, "io-sched", objective, solver="lns")``. Its
only bound is the combinatorial one of the front door; the status follows
the usual rule (``optimal`` iff the validated value meets it).
"""

from __future__ import annotations

from dataclasses import dataclass

from ....errors import OptionError
from ....instance import Instance
from ....objectives import BATCH_OBJECTIVES
from ...cpsat.settings import check_run_options
from ...deadline import Deadline
from ...result import Outcome, SolveStatus

__all__ = ["OBJECTIVES", "OPTIONS", "LnsSettings", "prepare", "run"]

OBJECTIVES = BATCH_OBJECTIVES
"""Both objectives."""


@dataclass(frozen=True)
class LnsSettings:
    """Options of ``solve(..., solver="lns")``: ``cyclic`` (use the cyclic
    seed) and ``cyclic_share`` (its share of the time), ``window`` (first
    window size), ``window_seconds`` (time cap of one repair)."""

    time_limit: float = 60.0
    seed: int = 0
    num_workers: int = 2
    cyclic: bool = True
    cyclic_share: float = 0.15
    window: int = 12
    window_seconds: float = 2.0

    def __post_init__(self) -> None:
        check_run_options(self.time_limit, self.seed, self.num_workers)
        if not isinstance(self.cyclic, bool):
            raise OptionError(f"cyclic={self.cyclic!r} must be a bool")
        if isinstance(self.cyclic_share, bool) or not isinstance(
                self.cyclic_share, (int, float)) or not 0 <= self.cyclic_share <= 1:
            raise OptionError(f"cyclic_share={self.cyclic_share!r} must be a share "
                              "in [0, 1]")
        if isinstance(self.window, bool) or not isinstance(self.window, int) \
                or self.window < 2:
            raise OptionError(f"window={self.window!r} must be an integer >= 2")
        if isinstance(self.window_seconds, bool) or not isinstance(
                self.window_seconds, (int, float)) or self.window_seconds <= 0:
            raise OptionError(f"window_seconds={self.window_seconds!r} must be > 0")


OPTIONS = LnsSettings
"""The options record of this model (:mod:`opt_sched.exact.registry`)."""


def prepare(options: object) -> None:
    """The simulator's compiled kernel (list-policy seeds)."""
    from ...warm import prepare as warm_prepare

    warm_prepare()


def run(instance: Instance, objective: str, options: LnsSettings, *,
        lower_bound: float | None, deadline: Deadline) -> Outcome:
    """Seeds, then :func:`.search.improve_order` per node until ``deadline``."""
    from .front import lns_orders

    budget = max(0.05, deadline.remaining() - 0.02 - 2e-6 * instance.num_io_phases)
    schedule, info = lns_orders(instance, budget, options.seed, objective=objective,
                                num_workers=options.num_workers,
                                cyclic=options.cyclic,
                                cyclic_share=options.cyclic_share,
                                window=options.window,
                                window_seconds=options.window_seconds,
                                lower=lower_bound or 0.0)
    return Outcome(SolveStatus.FEASIBLE, schedule, None, info)
