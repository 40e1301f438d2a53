"""HPC-IO (SPEC §5): map jobs to partitions and schedule them under rules 1-5
(free start times, releases, dependencies). Objectives: makespan and max
stretch.

- :mod:`.cpsat` -- optional intervals per allowed partition, in ticks
  (``models/hpc-io-cpsat.md``).

Use it through :func:`opt_sched.solve` (``problem="hpc-io"``).
"""
