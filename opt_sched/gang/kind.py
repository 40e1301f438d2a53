"""The gang schedules' checker (:class:`~opt_sched.schedule_kinds.ScheduleKind`):
``opt-sched validate`` and campaign tasks reach seed 004's validator and
metrics through it (entry point ``serverless-gang`` of the group
``opt_sched.schedule_kinds``), with no branch on the model's name."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..schedule_kinds import ScheduleKind
from .serverless import EXECUTION
from .workload import is_gang_workload_file

__all__ = ["GANG_KIND"]


def _validate_files(workload: Path, schedule: Path, rel_tol: float) -> Sequence:
    """Every violation of the gang rules (:func:`.validate.validate_gang`)
    by the record in ``schedule`` of the workload in ``workload``."""
    from .record import read_record
    from .validate import validate_gang
    from .workload import read_workload

    return validate_gang(read_workload(workload), read_record(schedule),
                         rel_tol=rel_tol)


def _measure(workload, schedule) -> dict:
    from .experiments import measure_schedule

    return measure_schedule(workload, schedule)


GANG_KIND = ScheduleKind(EXECUTION, is_gang_workload_file, _validate_files, _measure)
