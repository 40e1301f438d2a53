"""The exact layer: :func:`solve` and its :class:`Result`.

Organised by problem, with the backends inside: :mod:`.io_sched`
(``cpsat``, ``milp``), :mod:`.hpc_io` (``cpsat``), :mod:`.packs` (``cpsat``,
``milp``), :mod:`.planning` (``cpsat``, ``milp``). The machinery a backend
family shares lives in :mod:`.cpsat` (options records, time grid, re-timer,
model skeleton, the one solve loop) and :mod:`.milp` (running CBC / HiGHS).
The models are found through :mod:`.registry`, answer a raw
:class:`Outcome`, and :mod:`.certify` turns it into the :class:`Result`.
Backends are imported only when used.
"""

from .registry import EXACT_MODELS, ExactModel, register
from .result import Outcome, Result, SolveStatus, relative_gap
from .solve import OBJECTIVES, PROBLEMS, SOLVERS, solve

__all__ = ["EXACT_MODELS", "OBJECTIVES", "PROBLEMS", "SOLVERS", "ExactModel",
           "Outcome", "Result", "SolveStatus", "register", "relative_gap", "solve"]
