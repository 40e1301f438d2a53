"""IO-SCHED under one time limit with every tool of the exact frontier:
bounds, list-policy and cyclic seeds, CP-SAT or LNS, deadline questions
(:func:`solve_portfolio`)."""

from .seeds import Seed, best_seed, cyclic_seeds, policy_seeds
from .solve import CPSAT_MAX_OPS, solve_portfolio

__all__ = ["CPSAT_MAX_OPS", "Seed", "best_seed", "cyclic_seeds", "policy_seeds",
           "solve_portfolio"]
