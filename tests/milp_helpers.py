"""The small MILP of the HiGHS 1.14.0 presolve bug (not a test module;
imported by tests/test_milp.py and by the fresh interpreters it starts, so
it imports nothing itself)."""

from __future__ import annotations


def presolve_bug_problem(pulp):
    """min 3x + 4y subject to x + 2y >= 7.5, x integer in [0, 10], y real in
    [0, 10]: optimum 15 at x = 0, y = 3.75 (x = 1 costs 3 + 4 * 3.25 = 16).
    HiGHS 1.14.0 with presolve answers 24 "optimal" (ERGO-Code/HiGHS #2957).
    ``pulp`` is the module (:func:`opt_sched.exact.milp.backend.load_pulp`)."""
    prob = pulp.LpProblem("presolve_bug", pulp.LpMinimize)
    x = pulp.LpVariable("x", 0, 10, cat="Integer")
    y = pulp.LpVariable("y", 0, 10)
    prob += 3 * x + 4 * y
    prob += x + 2 * y >= 7.5
    return prob
