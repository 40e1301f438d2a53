"""The pack variant of HPC-IO (SPEC §3 rule 6, §5): jobs run in packs; all
jobs of a pack start together, and the next pack of a partition starts when
every job of the previous one has completed.

- :mod:`.cpsat` -- pack slots per partition, in ticks, makespan and max
  stretch (``models/packs-cpsat.md``);
- :mod:`.milp` -- a level-packing MILP that plans the packs (after Lodi,
  Martello and Vigo), executed by the simulator; makespan only
  (``models/packs-milp.md``).

Use them through :func:`opt_sched.solve` (``problem="packs"``).
"""
