"""The exact layer: :func:`solve` and its :class:`Result`.

Backends are imported lazily: CP-SAT models in :mod:`.cpsat`, MILP models in
:mod:`.milp`, the planning model in :mod:`.planning`.
"""

from .result import Result, SolveStatus, relative_gap
from .solve import OBJECTIVES, PROBLEMS, SOLVERS, solve

__all__ = ["OBJECTIVES", "PROBLEMS", "SOLVERS", "Result", "SolveStatus",
           "relative_gap", "solve"]
