"""Rule 0, job-coverage: the schedule lists every job of the instance once.

A schedule that loses a job, invents one or lists one twice is infeasible,
not unreadable (SPEC §9: every scheduler to come must account for every
job). One violation per missing job, per entry of a job the instance does
not have, and per repeated entry, each naming the job. The other rules judge
the first entry of each instance job and skip the jobs the schedule lacks.
"""

from __future__ import annotations

from ..instance import Instance
from ..schedule import JobSchedule, Schedule
from .report import Collector

__all__ = ["COVERAGE_RULE", "check_coverage"]

COVERAGE_RULE = 0


def check_coverage(instance: Instance, schedule: Schedule, out: Collector
                   ) -> list[JobSchedule | None]:
    """Report rule-0 violations; return the entry of every instance job
    (its first one; ``None`` when the schedule does not list it)."""
    first: dict[str, int] = {}
    for position, js in enumerate(schedule.jobs):
        if js.id not in instance.index:
            out.one(COVERAGE_RULE, f"job {js.id} (entry {position}) is not in the "
                    f"instance {instance.name!r}", jobs=(js.id,))
        elif js.id in first:
            out.one(COVERAGE_RULE, f"job {js.id} is listed again at entry "
                    f"{position} (first at entry {first[js.id]})", jobs=(js.id,))
        else:
            first[js.id] = position
    entries: list[JobSchedule | None] = []
    for job in instance.jobs:
        position = first.get(job.id)
        if position is None:
            out.one(COVERAGE_RULE, f"job {job.id} is missing from the schedule",
                    jobs=(job.id,))
            entries.append(None)
        else:
            entries.append(schedule.jobs[position])
    return entries
