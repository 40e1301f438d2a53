"""IO-SCHED (SPEC §5): jobs mapped to partitions, all jobs of a partition
started together at ``t_k = max_{i on k} r_i`` (one pack); order the I/O
phases on every I/O node. Objectives: makespan and max stretch.

- :mod:`.cpsat` -- one disjunctive machine per I/O node, in ticks
  (``models/io-sched-cpsat.md``);
- :mod:`.milp` -- a disjunctive big-M MILP in continuous time, on CBC or
  HiGHS (``models/io-sched-milp.md``).

The brute-force referee is :mod:`opt_sched.exact.brute_force`. Use the models
through :func:`opt_sched.solve` (``problem="io-sched"``).
"""
