"""The exception hierarchy of opt_sched.

Every error a user can cause (a malformed instance, an unknown option, a
schedule file that does not parse) is an :class:`OptSchedError`. Its message
is one line that names the field and the value, so the command line can print
it as it is and exit with status 2. Anything else that escapes is a bug.

- :class:`OptSchedError` -- base class, a :class:`ValueError`.
- :class:`InstanceError` -- an instance (platform, jobs) is not valid.
- :class:`ScheduleFormatError` -- a schedule file or object is malformed.
- :class:`PlanError` -- a plan cannot be executed on its instance.
- :class:`OptionError` -- an unknown or out-of-range option.
- :class:`SolverError` -- a solver backend failed or is unavailable.
- :class:`InfeasibleScheduleError` -- a method produced a schedule that the
  validator rejects. That is always a bug in the method, raised loudly.
"""

from __future__ import annotations

__all__ = [
    "InfeasibleScheduleError",
    "InstanceError",
    "OptSchedError",
    "OptionError",
    "PlanError",
    "ScheduleFormatError",
    "SolverError",
]


class OptSchedError(ValueError):
    """Base class of every error opt_sched raises on purpose."""


class InstanceError(OptSchedError):
    """The instance is malformed or inconsistent."""


class ScheduleFormatError(OptSchedError):
    """The schedule is malformed (missing job, wrong number of phases...)."""


class PlanError(OptSchedError):
    """The plan does not fit its instance (unknown job, partition...)."""


class OptionError(OptSchedError):
    """An unknown option value, such as an unknown I/O policy name."""


class SolverError(OptSchedError):
    """A solver backend is missing or failed."""


class InfeasibleScheduleError(OptSchedError):
    """A method returned a schedule that the validator rejects (a bug)."""
