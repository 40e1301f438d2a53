"""The CP-SAT family's machinery, shared by the CP-SAT models of every
problem (``opt_sched.exact.<problem>.cpsat``):

- :mod:`.settings` -- the options records (:class:`CpsatSettings` and its
  extension per model) and configured solvers;
- :mod:`.common` -- the time grid, the job data in ticks, structures of
  schedules, the left-shift re-timer;
- :mod:`.base` -- the skeleton of the scheduling models (IO-SCHED, HPC-IO,
  packs);
- :mod:`.search` -- the one solve loop (ladder, optimise, bisect), with
  :mod:`.probing` (the "objective <= T?" questions) and :mod:`.interrupt`
  (Ctrl-C stops a search).
"""

from .common import ModelData, Structure, TimeGrid, choose_grid
from .settings import CpsatSettings

__all__ = ["CpsatSettings", "ModelData", "Structure", "TimeGrid", "choose_grid"]
