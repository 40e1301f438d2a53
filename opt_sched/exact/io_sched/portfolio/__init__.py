"""IO-SCHED under one time limit with every tool of the exact frontier:
bounds, list-policy and cyclic seeds, CP-SAT or LNS, deadline questions.

Use it through the front door, ``opt_sched.solve(instance, "io-sched",
objective, solver="portfolio", time_limit=...)``, or
:func:`solve_portfolio`, which does just that.
"""

from __future__ import annotations

from typing import Any

from ....instance import Instance
from ...result import Result
from .backend import CPSAT_MAX_OPS, OBJECTIVES, OPTIONS, PortfolioSettings
from .seeds import Seed, best_seed, cyclic_seeds, policy_seeds

__all__ = ["CPSAT_MAX_OPS", "OBJECTIVES", "OPTIONS", "PortfolioSettings", "Seed",
           "best_seed", "cyclic_seeds", "policy_seeds", "solve_portfolio"]


def solve_portfolio(instance: Instance, objective: str = "makespan",
                    time_limit: float = 60.0, seed: int = 0, num_workers: int = 2,
                    **options: Any) -> Result:
    """``opt_sched.solve(instance, "io-sched", objective, "portfolio", ...)``:
    a certified :class:`Result` (options: :class:`PortfolioSettings`)."""
    from ...solve import solve

    return solve(instance, "io-sched", objective, "portfolio", time_limit=time_limit,
                 seed=seed, num_workers=num_workers, **options)
