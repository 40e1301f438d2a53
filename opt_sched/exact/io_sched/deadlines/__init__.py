"""Deadline questions on one I/O node: "is there an IO-SCHED schedule in
which every job ``j`` completes by ``D_j``?" (``models/bounds.md``,
"Max stretch by deadline questions").

Both objectives reduce to such questions: makespan ``<= U`` sets every
``D_j = U``; max stretch ``<= rho`` sets ``D_j = t_k + rho T_j``. On an
exact time grid the semi-active schedules have all their times on the grid,
so an ``INFEASIBLE`` answer at grid deadlines is a proof for the continuous
problem.

- :mod:`.model` -- :class:`DeadlineModel`, the CP-SAT feasibility model.
- :mod:`.grid` -- :class:`NodeGrid`, one node's data in ticks.
"""

from .grid import NodeGrid, node_grid
from .model import Answer, DeadlineModel, ask_deadlines

__all__ = ["Answer", "DeadlineModel", "NodeGrid", "ask_deadlines", "node_grid"]
