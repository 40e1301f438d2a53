r"""The gang simulator: event-driven over arrivals, departures and quanta.

Time is a sequence of *slices*. A slice runs one row of the Ousterhout
matrix (:mod:`opt_sched.gang.matrix`) for one quantum ``T``: every job
present in that row (home or replica) executes on its columns. Slices are
back to back while the matrix holds a job; the cycle visits the non-empty
rows in index order (:meth:`~opt_sched.gang.matrix.OusterhoutMatrix.next_row`).

Quantum accounting
------------------
- A job in the running row progresses for the whole slice at its speed
  (:mod:`opt_sched.gang.serverless`: 1 all-local second per second when
  local, :math:`t^{e'}_i / t^{rem}_i` when remote). A job in ``k`` rows
  (replicas) progresses in each of their slices: replicas advance the same
  job, there is one remaining-work counter per job.
- A migrated job first stalls: the first ``C`` seconds of the slices it runs
  in next do no work (the stall may span slices if ``C > T``).
- *Departure inside a slice.* A job whose work ends inside the slice leaves
  at that instant; its columns stay idle for the rest of the slice (the
  other jobs of the row keep running to the end). If every job of the row
  has left, the slice ends at the last departure (a slice is never kept
  running empty).
- *Scheduling events are deferred to the slice boundary.* Arrivals and
  departures during a slice are collected and applied together at the end
  of the slice (all events of an instant at once; the seed charges the
  migration cost "at the beginning of the next time quantum", so the matrix
  changes between quanta). This is one scheduling event: the scheduler's
  phases (:mod:`opt_sched.gang.schedulers`) recompute the matrix, then the
  next slice runs the first non-empty row after the one that just ran.
  Arrivals at exactly a boundary belong to it.
- When the matrix is empty the machine idles; the next arrival is a
  scheduling event at its own time and the first slice starts then (a job
  arriving at an idle machine waits 0).
- An arrival-only event whose queue head was already blocked at the
  previous event, when that event admitted and migrated nothing and no job
  has left since, leaves the matrix exactly as it is (every phase is a
  deterministic function of the unchanged home placement), so it is
  skipped. This only saves time.

Times recorded per job: admission (entered the matrix), :math:`t^s_i` =
start of its first slice, :math:`t^f_i` = the instant its work ends. Jobs are
numbered internally in arrival order (ties: workload order), which is the
FCFS queue order and so the admission order.
"""

from __future__ import annotations

import math
from collections import deque

import numpy as np

from ..errors import InternalError, OptionError
from .limits import MAX_SLICES, check_run
from .matrix import OusterhoutMatrix, columns_to_mask, mask_columns
from .placement import place_files
from .record import GangRecord
from .schedulers import GangScheduler, get_gang_scheduler
from .serverless import Serverless
from .workload import GangWorkload

__all__ = ["simulate_gang"]

SKIP_SETTLED_ARRIVALS = True
"""Skip arrival-only events that cannot change the matrix (see the module
docstring); a switch so that a test can check the skip changes nothing."""


def _check_options(mpl: int, quantum: float) -> None:
    if isinstance(mpl, bool) or int(mpl) != mpl or mpl < 1:
        raise OptionError(f"mpl={mpl!r} must be an integer >= 1")
    if not (isinstance(quantum, (int, float)) and math.isfinite(quantum)
            and quantum > 0):
        raise OptionError(f"quantum={quantum!r} must be a positive number")


def simulate_gang(workload: GangWorkload, scheduler: str | GangScheduler = "gs", *,
                  mpl: int = 5, quantum: float = 200.0, migration_budget: int = 64,
                  migration_cost: float = 20.0, placement: str | None = None,
                  seed: int = 0) -> GangRecord:
    """Run ``workload`` under a gang ``scheduler``.

    Parameters
    ----------
    workload
        Jobs; their file nodes are used if present and ``placement`` is
        ``None``.
    scheduler
        A name of :data:`~opt_sched.gang.schedulers.GANG_SCHEDULERS` or a
        :class:`~opt_sched.gang.schedulers.GangScheduler`.
    mpl, quantum
        Rows of the matrix and slice length ``T`` (seconds).
    migration_budget, migration_cost
        ``Q`` and ``C`` of Migrate-IOGS (ignored by the others).
    placement, seed
        Draw the file nodes by ``placement`` (``random`` / ``contiguous``)
        with ``seed``; with ``placement=None`` a workload without file nodes
        gets ``random``.

    Returns
    -------
    GangRecord
        Every slice and every run (:mod:`opt_sched.gang.record`).
    """
    _check_options(mpl, quantum)
    if placement is not None or workload.file_nodes is None:
        workload = place_files(workload, placement or "random", seed)
    sched = (get_gang_scheduler(scheduler, migration_budget=migration_budget,
                                migration_cost=migration_cost)
             if isinstance(scheduler, str) else scheduler)
    model = Serverless(workload)
    n = len(workload)
    order = np.argsort(workload.arrival, kind="stable")
    arrival = workload.arrival[order].tolist()
    sizes = workload.size[order].tolist()
    file_masks = [model.file_masks[i] for i in order.tolist()]
    remote_speed = [model.remote_speed[i] for i in order.tolist()]
    remaining = workload.all_local_time[order].tolist()
    sched.attach(sizes, file_masks)
    cost = float(getattr(sched, "migration_cost", 0.0)) if sched.migrates else 0.0
    T = float(quantum)
    check_run(workload, int(mpl), T, cost)

    matrix = OusterhoutMatrix(workload.nodes, int(mpl))
    queue: deque[int] = deque()
    speed = [0.0] * n
    local = [False] * n
    stall = [0.0] * n
    placements: list[list[tuple[int, ...]]] = [[] for _ in range(n)]
    admitted = [math.nan] * n
    finish = [math.nan] * n
    slice_row: list[int] = []
    slice_start: list[float] = []
    slice_end: list[float] = []
    slice_members: list[list[int]] = []
    switches: dict[int, list[int]] = {}  # job -> first slice of each new placement
    stalls: dict[int, float] = {}  # flat run position -> stall
    runs = 0

    def event(now: float, departed: bool) -> bool:
        """One scheduling event; True when it changed nothing (the matrix
        is then a fixed point of the phases until a departure)."""
        jobs, moves = sched.event(matrix, queue, departed)
        for j in jobs:
            mask = matrix.mask[j]
            placements[j].append(tuple(mask_columns(mask)))
            is_local = mask == file_masks[j]
            local[j] = is_local
            speed[j] = 1.0 if is_local else remote_speed[j]
            admitted[j] = now
        for j, _old, new, _tasks in moves:
            placements[j].append(tuple(mask_columns(new)))
            switches.setdefault(j, []).append(len(slice_row))
            local[j] = True
            speed[j] = 1.0
            stall[j] += cost
        return not jobs and not moves

    t = arrival[0] if n else 0.0
    nxt = 0
    done = 0
    row = -1
    settled = False  # the last event changed nothing and the queue head waits
    while done < n:
        if matrix.empty:
            if not queue:
                if nxt >= n:
                    raise InternalError(f"gang simulator: {n - done} jobs neither "
                                        f"queued nor running")
                t = max(t, arrival[nxt])
            while nxt < n and arrival[nxt] <= t:
                queue.append(nxt)
                nxt += 1
            event(t, departed=False)
            settled = False
            row = -1
            if matrix.empty:
                raise InternalError(f"gang simulator: {sched.name} admits no job "
                                    f"into an empty matrix at t={t:g}")
            continue
        row = matrix.next_row(row)
        members = list(matrix.members[row])
        leaving = []
        last = t
        stays = False
        for k, j in enumerate(members):
            lost = stall[j]
            need = lost + remaining[j] / speed[j]
            if need > T:  # runs the whole slice
                stays = True
                if lost:
                    stall[j] = 0.0 if lost < T else lost - T
                    if lost > T:
                        lost = T
                    stalls[runs + k] = lost
                remaining[j] -= (T - lost) * speed[j]
            else:
                if lost:
                    stall[j] = 0.0
                    stalls[runs + k] = lost
                when = t + need
                leaving.append((j, when))
                if when > last:
                    last = when
        end = t + T if stays else last
        for j, when in leaving:
            finish[j] = when
            remaining[j] = 0.0
            matrix.remove(j)
        done += len(leaving)
        runs += len(members)
        if len(slice_row) >= MAX_SLICES:
            raise OptionError(f"gang simulator: the run passed {MAX_SLICES} slices "
                              f"of quantum={T!r} with {n - done} jobs left "
                              f"(MAX_SLICES, opt_sched.gang.limits)")
        slice_members.append(members)
        slice_row.append(row)
        slice_start.append(t)
        slice_end.append(end)
        t = end
        arrived = False
        while nxt < n and arrival[nxt] <= t:
            queue.append(nxt)
            nxt += 1
            arrived = True
        if leaving:
            settled = event(t, departed=True) and bool(queue)
        elif arrived and not (settled and SKIP_SETTLED_ARRIVALS):
            settled = event(t, departed=False) and bool(queue)

    return _record(workload, sched, int(mpl), T, cost, order, placements, admitted,
                   finish, file_masks, slice_row, slice_start, slice_end,
                   slice_members, switches, stalls)


def _record(workload: GangWorkload, sched: GangScheduler, mpl: int, T: float,
            cost: float, order: np.ndarray, placements: list[list[tuple[int, ...]]],
            admitted: list[float], finish: list[float], file_masks: list[int],
            slice_row: list[int], slice_start: list[float], slice_end: list[float],
            slice_members: list[list[int]], switches: dict[int, list[int]],
            stalls: dict[int, float]) -> GangRecord:
    """Build the record (in workload job order) from the per-slice lists.

    A run's placement is the number of the job's migrations before its
    slice (``switches``); its locality is that placement's (a migrated job
    is always local: it moved onto its file nodes).
    """
    n = len(workload)
    counts = np.fromiter((len(m) for m in slice_members), np.int64, len(slice_members))
    total = int(counts.sum())
    internal = np.fromiter((j for m in slice_members for j in m), np.int64, total)
    run_slice = np.repeat(np.arange(len(slice_members)), counts)
    run_place = np.zeros(total, np.int64)
    if switches:
        by_job = np.argsort(internal, kind="stable")  # runs of a job, slice order
        first = np.searchsorted(internal[by_job], np.arange(n + 1))
        for j, at in switches.items():
            idx = by_job[first[j]:first[j + 1]]
            run_place[idx] = np.searchsorted(np.asarray(at), run_slice[idx],
                                             side="right")
    nodes = workload.nodes
    first_local = np.array([bool(p) and columns_to_mask(p[0], nodes) == m
                            for p, m in zip(placements, file_masks)], bool)
    run_local = np.where(run_place > 0, True, first_local[internal]) if total \
        else np.zeros(0, bool)
    run_stall = np.zeros(total)
    for pos, lost in stalls.items():
        run_stall[pos] = lost
    inverse = np.empty(n, np.int64)
    inverse[order] = np.arange(n)
    return GangRecord(
        scheduler=sched.name, nodes=workload.nodes, mpl=mpl, quantum=T,
        migration_cost=cost, job_ids=workload.ids,
        placements=tuple(tuple(placements[inverse[i]]) for i in range(n)),
        admitted=np.asarray(admitted)[inverse], finish=np.asarray(finish)[inverse],
        slice_row=slice_row, slice_start=slice_start, slice_end=slice_end,
        run_job=order[internal], run_slice=run_slice, run_placement=run_place,
        run_local=run_local, run_stall=run_stall, file_nodes=workload.file_nodes,
        params={"placement": workload.placement, "t_local": workload.t_local,
                "t_remote": workload.t_remote, "workload": workload.name,
                **sched.options()})

