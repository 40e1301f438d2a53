"""The phase table's data: :class:`PhaseTable` (every phase of a schedule as
flat numpy arrays) and :func:`phase_label`.

:func:`opt_sched.validation.table.build_table` builds the table (the math is
in that module's docstring); the rules and the execution models' I/O rules
(:class:`~opt_sched.validation.io_rule.IoRule`) read it. This module imports
neither, so the seam and the builder both depend on it one way.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..schedule import JobSchedule

__all__ = ["PhaseTable", "phase_label"]


@dataclass(frozen=True)
class PhaseTable:
    """All phases of the schedule as flat arrays, job after job.

    Per job (``n`` entries, instance order): ``listed`` (the schedule lists
    the job), ``partition`` ``k(i)``, ``nodes`` ``Q_i``, ``start`` ``S_i``,
    ``end`` ``C_i``, ``killed_at`` ``K_i`` (NaN when not killed). Per slot
    (``m`` entries): ``job``, ``iteration``, the compute phase
    ``[c_start, c_end)``, the I/O phase ``[o_start, o_end)``, ``o_started``,
    its volume and bandwidth ``o_volume``, ``o_bandwidth`` (``v_ij``, ``b_k(i)``),
    the uncut ends ``c_full_end``, ``o_full_end`` (start + length), and the
    ends the schedule states, ``c_stated``, ``o_stated`` (NaN where none).
    ``entries[i]`` is the job's :class:`JobSchedule` (``None`` if unlisted).
    """

    ids: tuple[str, ...]
    entries: tuple[JobSchedule | None, ...]
    listed: np.ndarray
    first: np.ndarray
    job: np.ndarray
    iteration: np.ndarray
    c_start: np.ndarray
    c_end: np.ndarray
    c_full_end: np.ndarray
    c_stated: np.ndarray
    o_start: np.ndarray
    o_end: np.ndarray
    o_full_end: np.ndarray
    o_stated: np.ndarray
    o_started: np.ndarray
    o_volume: np.ndarray
    o_bandwidth: np.ndarray
    partition: np.ndarray
    nodes: np.ndarray
    start: np.ndarray
    end: np.ndarray
    killed_at: np.ndarray

    @property
    def slots(self) -> int:
        return len(self.job)


def phase_label(table: PhaseTable, slot: int, kind: str) -> str:
    """``"<job>:<kind>[<j>]"`` for a slot of the table."""
    return f"{table.ids[table.job[slot]]}:{kind}[{table.iteration[slot]}]"
