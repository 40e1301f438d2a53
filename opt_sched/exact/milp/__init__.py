"""The MILP family's machinery: PuLP models solved by CBC (default) or HiGHS.

MILP is weaker than CP-SAT on these problems; the MILP models exist so that
users can export ``.lp`` / ``.mps`` files for the solver of their choice and
so that the exact layer has an independent cross-check. The models live
with their problems (``opt_sched.exact.io_sched.milp``,
``opt_sched.exact.packs.milp``, ``opt_sched.exact.planning.milp``); this
package runs them:

- :mod:`.backend` -- :class:`MilpSettings` (the family's options record),
  running CBC / HiGHS (HiGHS in a subprocess when highspy and ortools cannot
  share a process), statuses, proven bounds, export.
"""

from .backend import BACKENDS, MilpSettings, export_model, highs_mode, solve_milp

__all__ = ["BACKENDS", "MilpSettings", "export_model", "highs_mode", "solve_milp"]
