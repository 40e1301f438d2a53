"""opt_sched: optimal and certified-bounded schedules for I/O-aware HPC
batch scheduling, and the gap of practical heuristics to them.

The data flows one way: an :class:`Instance` goes into a method (a heuristic
plan executed by :func:`simulate`, or an exact model through :func:`solve`),
which yields a :class:`Schedule`; :func:`validate` judges it against the
feasibility rules of SPEC §3 and :mod:`opt_sched.metrics` measures it.
"""

from .errors import (
    InfeasibleScheduleError,
    InstanceError,
    InternalError,
    OptionError,
    OptSchedError,
    PlanError,
    ScheduleFormatError,
    SolverError,
    UserError,
)
from .lazy import lazy_exports

__version__ = "0.1.0"  # the one place; pyproject.toml reads it

# Everything but the errors is imported on first use (PEP 562), so that
# ``import opt_sched`` -- and so ``opt-sched --help`` -- loads no numpy,
# ortools or numba: ``opt_sched.read_instance`` and ``from opt_sched import
# Instance`` work as before.
__getattr__, __dir__ = lazy_exports(__name__, globals(), {
    "Instance": ".instance",
    "Job": ".instance",
    "Partition": ".instance",
    "Platform": ".instance",
    "instance_from_dict": ".json_files",
    "instance_to_dict": ".json_files",
    "read_instance": ".json_files",
    "read_schedule": ".json_files",
    "schedule_from_dict": ".json_files",
    "schedule_to_dict": ".json_files",
    "write_instance": ".json_files",
    "write_schedule": ".json_files",
    "JobSchedule": ".schedule",
    "Schedule": ".schedule",
    "solve": ".exact",
    "simulate": ".simulation",
    "validate": ".validation",
    "assert_feasible": ".validation",
})


__all__ = [  # noqa: RUF022 -- lazy names listed last
    "InfeasibleScheduleError",
    "Instance",
    "InstanceError",
    "InternalError",
    "Job",
    "JobSchedule",
    "OptSchedError",
    "OptionError",
    "Partition",
    "PlanError",
    "Platform",
    "Schedule",
    "ScheduleFormatError",
    "SolverError",
    "UserError",
    "instance_from_dict",
    "instance_to_dict",
    "read_instance",
    "read_schedule",
    "schedule_from_dict",
    "schedule_to_dict",
    "write_instance",
    "write_schedule",
    "assert_feasible",
    "simulate",
    "solve",
    "validate",
]
