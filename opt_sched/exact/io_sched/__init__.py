"""IO-SCHED (SPEC §5): jobs mapped to partitions, all jobs of a partition
started together at ``t_k = max_{i on k} r_i`` (one pack); order the I/O
phases on every I/O node. Objectives: makespan and max stretch.

- :mod:`.cpsat` -- one disjunctive machine per I/O node, in ticks
  (``models/io-sched-cpsat.md``);
- :mod:`.milp` -- a disjunctive big-M MILP in continuous time, on CBC or
  HiGHS (``models/io-sched-milp.md``);
- :mod:`.portfolio` -- solver ``"portfolio"``: bounds, list-policy and
  cyclic seeds, CP-SAT rounds or LNS, deadline questions
  (``models/lns.md``);
- :mod:`.lns` -- solver ``"lns"``: large-neighbourhood search over I/O
  orders (CP-SAT window repairs);
- :mod:`.orders` -- I/O orders, their semi-active timing and schedules;
- :mod:`.cyclic` -- the cyclic steady state of periodic jobs
  (``models/cyclic.md``);
- :mod:`.deadlines` -- "every job by its deadline?" questions (CP-SAT).

The brute-force referee is :mod:`opt_sched.exact.brute_force`. Use the models
through :func:`opt_sched.solve` (``problem="io-sched"``).
"""
