"""The exception and warning hierarchy of opt_sched.

Two branches, as networkx separates ``NetworkXError`` (the caller's mistake)
from ``NetworkXAlgorithmError`` (the algorithm's own failure):

- :class:`UserError` -- the input is wrong: a malformed instance, trace or
  schedule file, an unknown option, a path that cannot be written. Its
  message is one line naming the field and the value; the command line
  prints it as it is and exits with status 2.
- :class:`InternalError` -- opt_sched itself is wrong: a method produced a
  schedule the validator rejects, a solver proved a bound above a validated
  value, a backend failed. The command line exits with status 3.

A schedule *given by the user* that breaks a rule is neither: it is the
normal outcome of ``validate`` (exit 1), reported as violations.

Soft problems are warnings (:class:`OptSchedWarning`, a ``UserWarning``),
for instance a time grid that does not represent the data exactly.

Tree::

    OptSchedError
    ├── UserError (ValueError)                      exit 2
    │   ├── InstanceError         instance, platform, jobs
    │   ├── ScheduleFormatError   a schedule file or object is malformed
    │   ├── PlanError             a plan does not fit its instance
    │   ├── OptionError           unknown or out-of-range option
    │   ├── TraceError            a workload trace line or field is bad
    │   ├── SpecError             a campaign / method spec is bad
    │   └── OutputError           an output path cannot be written
    └── InternalError (RuntimeError)                exit 3
        ├── InfeasibleScheduleError  our schedule broke a rule
        ├── BoundViolationError      a proven bound exceeds a valid value
        └── SolverError              a solver backend failed
"""

from __future__ import annotations

__all__ = [
    "BoundViolationError",
    "InexactGridWarning",
    "InfeasibleScheduleError",
    "InstanceError",
    "InternalError",
    "OptSchedError",
    "OptSchedWarning",
    "OptionError",
    "OutputError",
    "PlanError",
    "ScheduleFormatError",
    "SolverError",
    "SpecError",
    "TimeLimitWarning",
    "TraceError",
    "UserError",
]


class OptSchedError(Exception):
    """Base class of every error opt_sched raises on purpose."""


# -- the caller's mistakes (exit 2) ---------------------------------------------
class UserError(OptSchedError, ValueError):
    """Bad input: the message is one line naming the field and the value."""


class InstanceError(UserError):
    """The instance is malformed or inconsistent."""


class ScheduleFormatError(UserError):
    """The schedule file or object does not parse (wrong types, unknown
    partition, wrong number of phases...). A schedule that parses but breaks
    a rule, including one that misses a job, is *infeasible*, not
    malformed: the validator reports it as a violation."""


class PlanError(UserError):
    """The plan does not fit its instance (unknown job, partition...)."""


class OptionError(UserError):
    """An unknown or out-of-range option, such as an unknown I/O policy."""


class TraceError(UserError):
    """A workload trace (SWF, Batsim JSON) has a malformed line or field."""


class SpecError(UserError):
    """A method spec string or a campaign spec file is malformed."""


class OutputError(UserError):
    """An output file cannot be written (missing folder, a folder, no
    permission, disk full). Nothing partial is left behind."""


# -- our own bugs (exit 3) ------------------------------------------------------
class InternalError(OptSchedError, RuntimeError):
    """opt_sched produced something wrong: always a bug, raised loudly."""


class InfeasibleScheduleError(InternalError):
    """A method returned a schedule that the validator rejects."""


class BoundViolationError(InternalError):
    """A proven lower bound exceeds the value of a validated schedule."""


class SolverError(InternalError):
    """A solver backend failed, or answered something inconsistent."""


# -- soft problems --------------------------------------------------------------
class OptSchedWarning(UserWarning):
    """Base class of opt_sched's warnings."""


class InexactGridWarning(OptSchedWarning):
    """An exact model rounds the data to a time grid that is not exact."""


class TimeLimitWarning(OptSchedWarning):
    """A run exceeded its time limit (the overrun is also reported)."""
