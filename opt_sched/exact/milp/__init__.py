"""MILP models, written with PuLP and solved by CBC (default) or HiGHS.

MILP is weaker than CP-SAT on these problems; the models exist so that users
can export ``.lp`` / ``.mps`` files for the solver of their choice and so
that the exact layer has an independent cross-check.

- :mod:`.backend` -- running CBC / HiGHS (HiGHS in a subprocess when highspy
  and ortools cannot share a process), statuses, proven bounds, export.
- :mod:`.io_sched` -- IO-SCHED, disjunctive big-M model in continuous time
  (``models/io-sched-milp.md``).
- :mod:`.level_packing` -- pack partitioning as level packing plus packs onto
  I/O nodes (``models/packs-milp.md``).

Front door (called by :func:`opt_sched.solve` for ``solver="cbc"|"highs"``)::

    solve_io_sched(instance, objective, backend="cbc", time_limit=60.0,
                   export=None, **kw) -> Result
    solve_packs(instance, objective="makespan", backend="cbc", time_limit=60.0,
                io_nodes=None, sensibility=None, export=None, **kw) -> Result
"""

from .backend import BACKENDS, MilpSettings, export_model, highs_mode, solve_milp
from .io_sched import IoSchedMilp, solve_io_sched
from .level_packing import LevelPackingMilp, solve_packs

__all__ = [
    "BACKENDS",
    "IoSchedMilp",
    "LevelPackingMilp",
    "MilpSettings",
    "export_model",
    "highs_mode",
    "solve_io_sched",
    "solve_milp",
    "solve_packs",
]
