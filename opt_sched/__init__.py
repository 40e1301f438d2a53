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
from .instance import Instance, Job, Partition, Platform
from .io import (
    instance_from_dict,
    instance_to_dict,
    read_instance,
    read_schedule,
    schedule_from_dict,
    schedule_to_dict,
    write_instance,
    write_schedule,
)
from .schedule import JobSchedule, Schedule

__version__ = "0.1.0"  # the one place; pyproject.toml reads it

_LAZY = {
    "solve": ("opt_sched.exact", "solve"),
    "simulate": ("opt_sched.simulation", "simulate"),
    "validate": ("opt_sched.validation", "validate"),
    "assert_feasible": ("opt_sched.validation", "assert_feasible"),
}


def __getattr__(name: str):
    """Heavy entry points are imported on first use (ortools, numba)."""
    if name in _LAZY:
        import importlib

        module, attr = _LAZY[name]
        return getattr(importlib.import_module(module), attr)
    raise AttributeError(f"module 'opt_sched' has no attribute {name!r}")


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
