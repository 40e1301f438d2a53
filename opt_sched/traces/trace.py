"""A workload trace as read from a file: one row per simulable job.

A :class:`Trace` is columnar (numpy arrays, read-only) so that a trace of
tens of thousands of jobs loads and converts fast. Rows are in submit order;
jobs submitted at the same instant keep their order in the file (SPEC §9:
ties are broken by trace order). Times are in seconds, kept as the file
gives them (absolute: SWF submit times count from the log's
``UnixStartTime``; Batsim workloads usually start at 0).

Column meanings (SPEC §9 notation):

- ``submit`` -- ``r_i``, the submit time, used as the job's release.
- ``run_time`` -- the real run time the simulator replays (never shown to a
  scheduler).
- ``walltime`` -- ``e_i``, the requested time (the scheduler's estimate),
  after the reader's documented rules (``instances/traces.md``).
- ``nodes`` -- ``Q_i``, the machines the job holds (SWF processors).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

__all__ = ["Trace", "TraceJob"]


class TraceJob(NamedTuple):
    """One row of a :class:`Trace` (for inspection and tests)."""

    id: str
    submit: float
    run_time: float
    walltime: float
    nodes: int
    user: str | None
    group: str | None
    profile: str | None
    line: int


def _frozen(values: object, dtype: type) -> np.ndarray:
    array = np.array(values, dtype=dtype)
    array.flags.writeable = False
    return array


@dataclass(frozen=True, eq=False)
class Trace:
    """The simulable jobs of a workload file, in submit order.

    Parameters
    ----------
    name
        Workload name (the file name without ``.swf``/``.json``/``.gz``).
    format
        The format's registry name (``"swf"``, ``"batsim"``, ``"sacct"``,
        ``"pbs"``, :data:`~opt_sched.traces.formats.TRACE_FORMATS`).
    machine_size
        Machines of the traced system (SWF header ``MaxProcs``, else
        ``MaxNodes``; Batsim: compute hosts of the platform, else
        ``nb_res``); ``None`` when the file does not say.
    ids, submit, run_time, walltime, nodes, users, groups, profiles, lines
        One entry per job. ``lines`` is the 1-based line of the job in an
        SWF file, or the 0-based index in a Batsim ``jobs`` list.
    header
        The file's metadata (SWF ``; Key: value`` header lines, Batsim
        top-level keys other than ``jobs``/``profiles``), as strings.
    swf_fields
        The 18 SWF fields of each kept job as read (float, ``-1`` =
        unknown; for ``sacct``/PBS the SWF row their reader made, before the
        reading rules), for writing the trace back with our start times;
        ``None`` for Batsim workloads.
    """

    name: str
    format: str
    machine_size: int | None
    ids: tuple[str, ...]
    submit: np.ndarray
    run_time: np.ndarray
    walltime: np.ndarray
    nodes: np.ndarray
    users: tuple[str | None, ...]
    groups: tuple[str | None, ...]
    profiles: tuple[str | None, ...]
    lines: np.ndarray
    header: Mapping[str, str] = field(default_factory=dict)
    swf_fields: np.ndarray | None = None

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "ids", tuple(self.ids))
        set_(self, "users", tuple(self.users))
        set_(self, "groups", tuple(self.groups))
        set_(self, "profiles", tuple(self.profiles))
        for name in ("submit", "run_time", "walltime"):
            set_(self, name, _frozen(getattr(self, name), np.float64))
        for name in ("nodes", "lines"):
            set_(self, name, _frozen(getattr(self, name), np.int64))
        if self.swf_fields is not None:
            set_(self, "swf_fields", _frozen(self.swf_fields, np.float64))
        set_(self, "header", dict(self.header))
        count = len(self.ids)
        for name in ("submit", "run_time", "walltime", "nodes", "lines"):
            if len(getattr(self, name)) != count:
                raise ValueError(f"trace {self.name!r}: column {name} has "
                                 f"{len(getattr(self, name))} rows, ids {count}")
        for name in ("users", "groups", "profiles"):
            if len(getattr(self, name)) != count:
                raise ValueError(f"trace {self.name!r}: column {name} has "
                                 f"{len(getattr(self, name))} rows, ids {count}")

    def __len__(self) -> int:
        return len(self.ids)

    def job(self, index: int) -> TraceJob:
        """Row ``index`` as a :class:`TraceJob`."""
        return TraceJob(self.ids[index], float(self.submit[index]),
                        float(self.run_time[index]), float(self.walltime[index]),
                        int(self.nodes[index]), self.users[index],
                        self.groups[index], self.profiles[index],
                        int(self.lines[index]))

    @property
    def widest(self) -> int:
        """The largest ``Q_i`` (0 for an empty trace)."""
        return int(self.nodes.max()) if len(self) else 0

    def __repr__(self) -> str:
        return (f"Trace({self.name!r}, format={self.format!r}, jobs={len(self)}, "
                f"machine_size={self.machine_size})")
