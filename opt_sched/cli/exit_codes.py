"""The exit statuses of ``opt-sched`` (the same for every command).

======  =====================================================================
status  meaning
======  =====================================================================
0       success (``validate``: the schedule is feasible)
1       ``validate`` found violations: the schedule is infeasible
2       bad input (:class:`~opt_sched.errors.UserError`): one line on stderr
        naming the field and the value, never a traceback
3       a bug of opt_sched (:class:`~opt_sched.errors.InternalError`, or any
        unexpected exception): one line on stderr
130     interrupted (Ctrl-C): one line on stderr saying what was kept
======  =====================================================================
"""

from __future__ import annotations

__all__ = ["EXIT_BAD_INPUT", "EXIT_BUG", "EXIT_INFEASIBLE", "EXIT_INTERRUPTED",
           "EXIT_OK"]

EXIT_OK = 0
EXIT_INFEASIBLE = 1
EXIT_BAD_INPUT = 2
EXIT_BUG = 3
EXIT_INTERRUPTED = 130
