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


def busy_io_sched():
    """5 periodic jobs x 10 iterations on one partition of 8 nodes (735 order
    binaries in the io-sched MILP): not closed in 1 s, and FIFO is not
    optimal on it."""
    import random

    from opt_sched import Instance, Job, Platform

    rng = random.Random(0)
    jobs = []
    for i in range(5):
        w = round(rng.uniform(10, 100), 2)
        jobs.append(Job.periodic(f"j{i}", 1, w, round(w * rng.uniform(0.1, 0.6), 2),
                                 iterations=10, partition=0))
    return Instance("busy", Platform.homogeneous(1, nodes=8), tuple(jobs))
