r"""Metrics of a gang schedule (seed 004 §2.3), computed from the record and
the workload only.

Per job ``i`` (arrival :math:`t^a_i`, first slice :math:`t^s_i`, finish
:math:`t^f_i`, all-local time :math:`t^{e'}_i`, quantum ``T``):

- wait :math:`t^w_i = t^s_i - t^a_i`;
- response time, both ways: :math:`t^f_i - t^a_i` (``response``, what the
  seed almost certainly means) and :math:`t^f_i - t^s_i`
  (``response_from_start``, what it prints);
- slowdown with a minimum time of one quantum,
  :math:`\max(t^f_i - t^a_i, T) / \max(t^{e'}_i, T)` (``slowdown``), and the
  same with :math:`t^f_i - t^s_i` (``slowdown_from_start``, the seed's
  literal formula);
- ``local_at_start``: the job was admitted onto its file nodes;
  ``local_at_end``: its last placement is its file nodes (differs only for
  Migrate-IOGS); ``migrations``: placements after the first.

Over the schedule:

- ``matrix_utilisation``: the occupied share of the running row, weighted
  by slice length, :math:`\sum_s \ell_s\,\mathrm{occ}_s / (P \sum_s \ell_s)`
  (busy periods only; the seed's Fig. 5 50 % vs 100 %), where
  :math:`\mathrm{occ}_s` counts the columns of the jobs that ran in slice
  ``s``;
- ``node_utilisation``: executed task-seconds (runs minus stalls) over
  :math:`P` times the span from the first arrival to the last finish.

Means are plain means over all jobs. "X is y % better than Z" in our
tables is :math:`\bar m_Z / \bar m_X - 1`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from .record import GangRecord
from .workload import GangWorkload

__all__ = ["gang_job_table", "gang_summary", "improvement"]

JOB_COLUMNS = (
    "id", "arrival", "size", "io_intensity", "all_local_time", "remote_time",
    "admitted", "start", "finish", "wait", "response", "response_from_start",
    "slowdown", "slowdown_from_start", "local_at_start", "local_at_end",
    "migrations",
)


def gang_job_table(workload: GangWorkload, record: GangRecord) -> dict[str, np.ndarray]:
    """One array per column of :data:`JOB_COLUMNS`, in workload order."""
    T = record.quantum
    start = record.start
    finish = record.finish
    arrival = workload.arrival
    alt = workload.all_local_time
    files = record.file_nodes or workload.file_nodes
    first_local = np.zeros(len(workload), bool)
    last_local = np.zeros(len(workload), bool)
    migrations = np.zeros(len(workload), np.int64)
    for i, ps in enumerate(record.placements):
        if not ps:
            continue
        want = set(files[i]) if files is not None else None
        first_local[i] = want is not None and set(ps[0]) == want
        last_local[i] = want is not None and set(ps[-1]) == want
        migrations[i] = len(ps) - 1
    response = finish - arrival
    response_s = finish - start
    floor = np.maximum(alt, T)
    return {
        "id": np.asarray(workload.ids, dtype=object),
        "arrival": arrival, "size": workload.size,
        "io_intensity": workload.io_intensity, "all_local_time": alt,
        "remote_time": workload.remote_time, "admitted": record.admitted,
        "start": start, "finish": finish, "wait": start - arrival,
        "response": response, "response_from_start": response_s,
        "slowdown": np.maximum(response, T) / floor,
        "slowdown_from_start": np.maximum(response_s, T) / floor,
        "local_at_start": first_local, "local_at_end": last_local,
        "migrations": migrations,
    }


def gang_summary(workload: GangWorkload, record: GangRecord,
                 table: Mapping[str, np.ndarray] | None = None) -> dict[str, Any]:
    """Means and counts of :func:`gang_job_table`, and the utilisations."""
    table = gang_job_table(workload, record) if table is None else table
    sizes = np.array([len(ps[0]) if ps else 0 for ps in record.placements])
    length = record.slice_end - record.slice_start
    occupied = np.zeros(len(length))
    if len(record.run_job):
        np.add.at(occupied, record.run_slice, sizes[record.run_job])
    busy = float(length.sum())
    executed = 0.0
    if len(record.run_job):
        run_len = length[record.run_slice].copy()
        last = _last_runs(record)
        run_len[last] = (record.finish[record.run_job[last]]
                         - record.slice_start[record.run_slice[last]])
        executed = float(np.dot(run_len - record.run_stall, sizes[record.run_job]))
    span = float(np.nanmax(record.finish) - workload.arrival.min()) if len(workload) \
        else 0.0

    def mean(name: str) -> float:
        values = np.asarray(table[name], float)
        return float(values.mean()) if len(values) else math.nan

    return {
        "scheduler": record.scheduler, "jobs": len(workload),
        "nodes": record.nodes, "mpl": record.mpl, "quantum": record.quantum,
        "mean_wait": mean("wait"), "mean_response": mean("response"),
        "mean_response_from_start": mean("response_from_start"),
        "mean_slowdown": mean("slowdown"),
        "mean_slowdown_from_start": mean("slowdown_from_start"),
        "local_jobs_at_start": int(np.sum(table["local_at_start"])),
        "local_jobs_at_end": int(np.sum(table["local_at_end"])),
        "migrations": int(np.sum(table["migrations"])),
        "matrix_utilisation": (float(np.dot(length, occupied)) / (record.nodes * busy)
                               if busy > 0 else math.nan),
        "node_utilisation": executed / (record.nodes * span) if span > 0 else math.nan,
        "makespan": float(np.nanmax(record.finish)) if len(workload) else 0.0,
        "slices": len(length),
    }


def _last_runs(record: GangRecord) -> np.ndarray:
    """Index of each job's last run (runs are in slice order)."""
    n = len(record)
    last = np.full(n, -1, np.int64)
    last[record.run_job] = np.arange(len(record.run_job))
    return last[last >= 0]


def improvement(better: float, other: float) -> float:
    """How much better ``better`` is than ``other`` on a lower-is-better
    metric: ``other / better - 1`` (1.0 = "100 % better")."""
    if better <= 0:
        return math.inf if other > 0 else 0.0
    return other / better - 1.0
