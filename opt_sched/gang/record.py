"""The gang schedule record: which slices each job ran in, where, and how.

A gang schedule is a sequence of *slices* -- global time intervals
``[start, end)``, one matrix row each, back to back or with idle gaps -- and,
for every job, its *runs*: the slices it ran in, on which *placement*
(column set), with which I/O locality, and how many seconds of the run were
lost to a migration stall.

======================  =====================================================
field                   meaning
======================  =====================================================
``slice_row[s]``        the matrix row that slice ``s`` runs (``0..mpl-1``)
``slice_start[s]``      start of slice ``s`` (seconds)
``slice_end[s]``        end of slice ``s``; ``end - start <= quantum`` (a
                        slice ends early when its row empties)
``job_ids[i]``          job ``i``'s id
``placements[i][p]``    placement ``p`` of job ``i``: the node of each task
                        (``p = 0`` at admission; ``p + 1`` after migration
                        ``p + 1``)
``admitted[i]``         when job ``i`` entered the matrix
``finish[i]``           :math:`t^f_i`, inside its last run
``run_job[k]``          the job of run ``k`` (runs sorted by slice)
``run_slice[k]``        its slice
``run_placement[k]``    the placement it ran on
``run_local[k]``        the I/O locality it was charged (``True``: every
                        block at ``t_local``)
``run_stall[k]``        migration stall at the start of the run (seconds)
``file_nodes[i]``       the job's file nodes (a copy of the workload's)
======================  =====================================================

A run uses the whole slice (minus its stall), except the job's last run,
which ends at ``finish[i]``. The record is checked by
:func:`opt_sched.gang.validate.validate_gang`, which never imports the
simulator.

In a generic :class:`~opt_sched.schedule.Schedule` (:meth:`GangRecord.to_schedule`)
the record sits in ``info["gang"]`` as its JSON form, ``execution`` is
``"serverless-gang"``, and each :class:`~opt_sched.schedule.JobSchedule` has
``machines`` = the job's last placement, one compute "phase" from its first
run to its finish, and no I/O phases. :meth:`GangRecord.from_schedule`
reads it back.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ScheduleFormatError
from ..files import atomic_write_text
from ..schedule import JobSchedule, Schedule

__all__ = ["RECORD_FORMAT", "GangRecord", "read_record", "write_record"]

RECORD_FORMAT = "opt_sched/gang-schedule"
EXECUTION = "serverless-gang"

_ARRAYS = {
    "slice_row": np.int64, "slice_start": float, "slice_end": float,
    "admitted": float, "finish": float, "run_job": np.int64,
    "run_slice": np.int64, "run_placement": np.int64, "run_local": np.bool_,
    "run_stall": float,
}


def _array(name: str, values: object) -> np.ndarray:
    try:
        array = np.asarray(values, dtype=_ARRAYS[name])
    except (TypeError, ValueError):
        raise ScheduleFormatError(f"gang schedule: {name} is not a list of "
                                  f"numbers") from None
    if array.ndim != 1:
        raise ScheduleFormatError(f"gang schedule: {name} must be a flat list")
    array = array.copy()
    array.setflags(write=False)
    return array


@dataclass(frozen=True, eq=False)
class GangRecord:
    """A gang schedule (see the module docstring). Arrays are read-only."""

    scheduler: str
    nodes: int
    mpl: int
    quantum: float
    migration_cost: float
    job_ids: tuple[str, ...]
    placements: tuple[tuple[tuple[int, ...], ...], ...]
    admitted: np.ndarray
    finish: np.ndarray
    slice_row: np.ndarray
    slice_start: np.ndarray
    slice_end: np.ndarray
    run_job: np.ndarray
    run_slice: np.ndarray
    run_placement: np.ndarray
    run_local: np.ndarray
    run_stall: np.ndarray
    file_nodes: tuple[tuple[int, ...], ...] | None = None
    params: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        for name in _ARRAYS:
            set_(self, name, _array(name, getattr(self, name)))
        n = len(self.job_ids)
        set_(self, "job_ids", tuple(str(i) for i in self.job_ids))
        for name in ("admitted", "finish"):
            if len(getattr(self, name)) != n:
                raise ScheduleFormatError(f"gang schedule: {name} has "
                                          f"{len(getattr(self, name))} entries for "
                                          f"{n} jobs")
        if len(self.placements) != n:
            raise ScheduleFormatError(f"gang schedule: placements has "
                                      f"{len(self.placements)} entries for {n} jobs")
        try:
            set_(self, "placements", tuple(tuple(tuple(map(int, p)) for p in ps)
                                           for ps in self.placements))
            if self.file_nodes is not None:
                set_(self, "file_nodes", tuple(tuple(map(int, f))
                                               for f in self.file_nodes))
        except (TypeError, ValueError):
            raise ScheduleFormatError(
                "gang schedule: placements and file_nodes must be lists of lists "
                "of node numbers") from None
        slices = len(self.slice_row)
        for name in ("slice_start", "slice_end"):
            if len(getattr(self, name)) != slices:
                raise ScheduleFormatError(f"gang schedule: {name} has "
                                          f"{len(getattr(self, name))} entries for "
                                          f"{slices} slices")
        runs = len(self.run_job)
        for name in ("run_slice", "run_placement", "run_local", "run_stall"):
            if len(getattr(self, name)) != runs:
                raise ScheduleFormatError(f"gang schedule: {name} has "
                                          f"{len(getattr(self, name))} entries for "
                                          f"{runs} runs")
        if runs and (self.run_job.min() < 0 or self.run_job.max() >= n):
            raise ScheduleFormatError("gang schedule: run_job refers to a job that "
                                      "does not exist")
        if runs and (self.run_slice.min() < 0 or self.run_slice.max() >= slices):
            raise ScheduleFormatError("gang schedule: run_slice refers to a slice "
                                      "that does not exist")
        set_(self, "params", dict(self.params))

    # -- derived -----------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.job_ids)

    @cached_property
    def start(self) -> np.ndarray:
        """:math:`t^s_i`: the start of the first slice job ``i`` ran in
        (``nan`` for a job that never ran)."""
        out = np.full(len(self), math.inf)
        if len(self.run_job):
            np.minimum.at(out, self.run_job, self.slice_start[self.run_slice])
        out[np.isinf(out)] = math.nan
        out.setflags(write=False)
        return out

    def runs_of(self, job: int) -> np.ndarray:
        """Indices of job ``job``'s runs, in slice order."""
        return np.flatnonzero(self.run_job == job)

    # -- JSON ------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form (columnar lists)."""
        def floats(a: np.ndarray) -> list[Any]:
            return [None if not math.isfinite(x) else x for x in a.tolist()]

        return {
            "format": RECORD_FORMAT, "version": 1, "scheduler": self.scheduler,
            "nodes": self.nodes, "mpl": self.mpl, "quantum": self.quantum,
            "migration_cost": self.migration_cost,
            "jobs": {"id": list(self.job_ids),
                     "admitted": floats(self.admitted),
                     "finish": floats(self.finish),
                     "placements": [[list(p) for p in ps] for ps in self.placements],
                     "file_nodes": (None if self.file_nodes is None
                                    else [list(f) for f in self.file_nodes])},
            "slices": {"row": self.slice_row.tolist(),
                       "start": self.slice_start.tolist(),
                       "end": self.slice_end.tolist()},
            "runs": {"job": self.run_job.tolist(), "slice": self.run_slice.tolist(),
                     "placement": self.run_placement.tolist(),
                     "local": self.run_local.tolist(),
                     "stall": self.run_stall.tolist()},
            "params": dict(self.params),
        }

    @classmethod
    def from_dict(cls, data: object) -> GangRecord:
        """Parse :meth:`to_dict`'s form.

        Raises
        ------
        ScheduleFormatError
            Wrong format tag, missing or malformed field.
        """
        if not isinstance(data, Mapping) or data.get("format") != RECORD_FORMAT:
            raise ScheduleFormatError(f"gang schedule: format must be "
                                      f"{RECORD_FORMAT!r}")
        try:
            jobs, slices, runs = data["jobs"], data["slices"], data["runs"]

            def floats(values: Sequence[Any]) -> list[float]:
                return [math.nan if v is None else v for v in values]

            return cls(
                scheduler=str(data["scheduler"]), nodes=int(data["nodes"]),
                mpl=int(data["mpl"]), quantum=float(data["quantum"]),
                migration_cost=float(data["migration_cost"]),
                job_ids=tuple(jobs["id"]), placements=jobs["placements"],
                admitted=floats(jobs["admitted"]), finish=floats(jobs["finish"]),
                file_nodes=jobs.get("file_nodes"),
                slice_row=slices["row"], slice_start=slices["start"],
                slice_end=slices["end"], run_job=runs["job"],
                run_slice=runs["slice"], run_placement=runs["placement"],
                run_local=runs["local"], run_stall=runs["stall"],
                params=data.get("params") or {})
        except (KeyError, TypeError) as err:
            raise ScheduleFormatError(f"gang schedule: field {err} is missing or "
                                      f"malformed") from None

    # -- the generic schedule ------------------------------------------------------
    def to_schedule(self) -> Schedule:
        """A :class:`~opt_sched.schedule.Schedule` carrying this record in
        ``info["gang"]`` (``execution="serverless-gang"``)."""
        jobs = []
        start = self.start
        for i, job_id in enumerate(self.job_ids):
            last = self.placements[i][-1] if self.placements[i] else ()
            s = float(start[i])
            jobs.append(JobSchedule(
                job_id, 0, compute_starts=(s,) if math.isfinite(s) else (),
                io_starts=(), compute_ends=(float(self.finish[i]),)
                if math.isfinite(s) else None,
                machines=tuple(last)))
        return Schedule(tuple(jobs), method=f"{self.scheduler}/{EXECUTION}",
                        info={"gang": self.to_dict(), "scheduler": self.scheduler,
                              "execution": EXECUTION},
                        execution=EXECUTION)

    @classmethod
    def from_schedule(cls, schedule: Schedule) -> GangRecord:
        """The record inside a schedule made by :meth:`to_schedule`.

        Raises
        ------
        ScheduleFormatError
            The schedule carries no gang record.
        """
        if schedule.execution != EXECUTION or "gang" not in schedule.info:
            raise ScheduleFormatError(f"schedule: execution={schedule.execution!r} "
                                      f"carries no gang record (info['gang'])")
        return cls.from_dict(schedule.info["gang"])


def write_record(record: GangRecord, path: str | Path) -> None:
    """Write ``record`` atomically as JSON."""
    atomic_write_text(path, json.dumps(record.to_dict()) + "\n")


def read_record(path: str | Path) -> GangRecord:
    """Read a gang schedule file (raises ScheduleFormatError)."""
    from ..json_files import load_json_as

    return load_json_as(path, ScheduleFormatError, GangRecord.from_dict)
