"""Schedules of another shape: how each is recognised, validated and measured.

The validator (:mod:`opt_sched.validation`, SPEC §3) and the metrics
(:mod:`opt_sched.metrics`) check and measure the schedules of an
:class:`~opt_sched.instance.Instance`: jobs hold machines of a partition
from start to end, whatever the execution model of their phases. An
execution model whose workloads and schedules have another shape brings its
own checker as a :class:`ScheduleKind`, keyed by the model's name (the
``execution`` of its schedules). Seed 004's time-sliced gang scheduling
(``serverless-gang``: a job holds rows of an Ousterhout matrix and advances
only during its rows' slices) is one; it registers through the entry-point
group ``opt_sched.schedule_kinds`` of opt_sched's own ``pyproject.toml``,
exactly as a user's package would (:mod:`opt_sched.plugins`).

Campaign tasks (:func:`opt_sched.campaign.execute.run_task`) and
``opt-sched validate`` look the kind up here: nothing in them names a
model. A schedule whose model has no kind is an HPC schedule.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from .plugins import PluginMapping, check_named

__all__ = ["SCHEDULE_KINDS", "ScheduleKind", "Violation", "kind_of_file",
           "kind_of_schedule"]


class Violation(Protocol):
    """One broken rule, as a kind's validator reports it."""

    def to_dict(self) -> Mapping[str, Any]: ...


@dataclass(frozen=True)
class ScheduleKind:
    """The checker of one execution model's schedules.

    Attributes
    ----------
    name
        The execution model's name (the ``execution`` of its schedules).
    is_workload_file
        Whether a file is one of this kind's workloads (read cheaply, e.g.
        from a format tag in its first bytes).
    validate_files
        ``(workload file, schedule file, rel_tol) -> violations``: every
        broken rule (``[]``: feasible), each printable and with
        ``to_dict()``; a file that cannot be read raises a
        :class:`~opt_sched.errors.UserError`.
    measure
        ``(workload, schedule) -> row``: validate the schedule (raise
        :class:`~opt_sched.errors.InfeasibleScheduleError` on a violation)
        and return its metrics, as a campaign row holds them.
    """

    name: str
    is_workload_file: Callable[[Path], bool]
    validate_files: Callable[[Path, Path, float], Sequence[Violation]]
    measure: Callable[[Any, Any], dict[str, Any]]


def _check(name: str, value: Any) -> None:
    check_named(value, ScheduleKind, name)


SCHEDULE_KINDS: MutableMapping[str, ScheduleKind] = PluginMapping(
    "schedule_kinds", {}, _check)
"""Execution model name -> :class:`ScheduleKind`. Filled from the
entry-point group ``opt_sched.schedule_kinds`` on the first lookup of a name
it does not hold, or a listing; a test may set an entry directly."""


def kind_of_schedule(schedule: Any) -> ScheduleKind | None:
    """The kind of ``schedule`` (by its ``execution``), ``None`` for an HPC
    schedule."""
    execution = getattr(schedule, "execution", None)
    return SCHEDULE_KINDS.get(execution) if isinstance(execution, str) else None


def kind_of_file(path: str | Path) -> ScheduleKind | None:
    """The kind whose workloads ``path`` is one of, ``None`` for an HPC
    instance (or anything else: its reader names the problem)."""
    return next((kind for kind in SCHEDULE_KINDS.values()
                 if kind.is_workload_file(Path(path))), None)
