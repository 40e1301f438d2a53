"""opt_sched: optimal and certified-bounded schedules for I/O-aware HPC
batch scheduling, and the gap of practical heuristics to them.

The data flows one way: an :class:`Instance` goes into a method (a heuristic
plan executed by :func:`simulate`, or an exact model through :func:`solve`),
which yields a :class:`Schedule`; :func:`validate` judges it against the
feasibility rules of SPEC §3 and :mod:`opt_sched.metrics` measures it.
"""

import importlib
from typing import Any

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

__version__ = "0.1.0"  # the one place; pyproject.toml reads it

# Everything but the errors is imported on first use (PEP 562), so that
# ``import opt_sched`` -- and so ``opt-sched --help`` -- loads no numpy,
# ortools or numba: ``opt_sched.read_instance`` and ``from opt_sched import
# Instance`` work as before.
_LAZY: dict[str, tuple[str, str]] = {
    "Instance": ("opt_sched.instance", "Instance"),
    "Job": ("opt_sched.instance", "Job"),
    "Partition": ("opt_sched.instance", "Partition"),
    "Platform": ("opt_sched.instance", "Platform"),
    "instance_from_dict": ("opt_sched.io", "instance_from_dict"),
    "instance_to_dict": ("opt_sched.io", "instance_to_dict"),
    "read_instance": ("opt_sched.io", "read_instance"),
    "read_schedule": ("opt_sched.io", "read_schedule"),
    "schedule_from_dict": ("opt_sched.io", "schedule_from_dict"),
    "schedule_to_dict": ("opt_sched.io", "schedule_to_dict"),
    "write_instance": ("opt_sched.io", "write_instance"),
    "write_schedule": ("opt_sched.io", "write_schedule"),
    "JobSchedule": ("opt_sched.schedule", "JobSchedule"),
    "Schedule": ("opt_sched.schedule", "Schedule"),
    "solve": ("opt_sched.exact", "solve"),
    "simulate": ("opt_sched.simulation", "simulate"),
    "validate": ("opt_sched.validation", "validate"),
    "assert_feasible": ("opt_sched.validation", "assert_feasible"),
}


def __getattr__(name: str) -> Any:
    """The names of :data:`_LAZY`, imported on first use and then kept in
    the module's namespace."""
    if name in _LAZY:
        module, attr = _LAZY[name]
        value = getattr(importlib.import_module(module), attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'opt_sched' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


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
