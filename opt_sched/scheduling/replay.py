"""``replay``: run an online scheduler over a workload, under an execution
model, and return the schedule (SPEC §9).

The engine owns the clock, the machines and the bookkeeping; the
:class:`~opt_sched.scheduling.base.Scheduler` only decides starts and the
:class:`~opt_sched.execution.base.ExecutionModel` only runs phases. One
instant at a time:

1. the model runs its internal (I/O) events up to the first instant ``t``
   where a job ends, or up to the next submission, kill or wake-up time;
2. at ``t``: ended jobs free their machines (scheduler told, successors
   whose dependencies are all done become eligible), jobs reaching their
   wall time are killed (``kill_at_walltime``), then every job eligible at
   ``t`` is submitted -- completions before submissions, submissions in
   instance order;
3. the scheduler makes one pass; its starts are checked (the job waits, the
   machines are free, their number is ``Q_i``) and handed to the model;
4. the model settles instant ``t`` (jobs that end at ``t`` because they just
   started lead to another pass at ``t``), then its I/O nodes choose.

Nothing is lost: if the scheduler leaves jobs unstarted forever, or starts a
job twice, :class:`~opt_sched.errors.InternalError` names the job.
"""

from __future__ import annotations

import heapq
import math
import operator
from collections.abc import Callable, Sequence

import numpy as np

from ..errors import InternalError, OptionError
from ..gc_pause import gc_paused
from ..instance import Instance
from ..schedule import JobSchedule, MachineSet, Schedule
from .base import RunningJob, Scheduler, Start, job_table

__all__ = ["replay"]


class _Cluster:
    """The engine's machine state; schedulers read it through
    :class:`~opt_sched.scheduling.base.Cluster`. The free machines of a
    partition are one Python ``int`` (bit ``m`` set: machine ``m`` free).
    The :class:`~opt_sched.scheduling.base.RunningJob` objects of
    :attr:`running` are made when a scheduler first reads it, and kept up to
    date from then on: a scheduler that never reads it does not pay for
    them."""

    def __init__(self, instance: Instance) -> None:
        parts = instance.platform.partitions
        self._sizes = [p.nodes for p in parts]
        self._bands = [p.bandwidth for p in parts]
        self._free = [(1 << p.nodes) - 1 for p in parts]
        self._free_count = list(self._sizes)
        self._running: dict[int, RunningJob] | None = None
        # each running job, in start order: (partition, machines, their bit
        # set, start, estimated end, how many)
        self._held: dict[int, tuple[int, MachineSet, int, float, float, int]] = {}
        self._waiting: dict[int, None] = {}

    @property
    def num_partitions(self) -> int:
        return len(self._sizes)

    def size(self, partition: int) -> int:
        return self._sizes[partition]

    def bandwidth(self, partition: int) -> float:
        return self._bands[partition]

    def free_count(self, partition: int) -> int:
        return self._free_count[partition]

    def free_machines(self, partition: int) -> Sequence[int]:
        return _numbers(self._free[partition])

    @property
    def running(self) -> dict[int, RunningJob]:
        if self._running is None:
            self._running = {j: RunningJob(j, k, m, s, e)
                             for j, (k, m, _, s, e, _) in self._held.items()}
        return self._running

    @property
    def waiting(self) -> Sequence[int]:
        return list(self._waiting)

    # -- engine side -----------------------------------------------------------
    def take(self, start: Start, nodes: int, now: float, estimate: float,
             name: str, ids: Sequence[str]) -> MachineSet:
        k = start.partition
        job = start.job
        if job not in self._waiting:
            state = "is running" if job in self._held else "is not submitted"
            raise InternalError(f"scheduler {name!r} started job {ids[job]!r} at "
                                f"t={now:g} but it {state}")
        if not 0 <= k < len(self._sizes):
            raise InternalError(f"scheduler {name!r}: job {ids[job]!r} on "
                                f"partition={k}, which does not exist")
        free = self._free[k]
        if start.machines is None:
            if self._free_count[k] < nodes:
                raise InternalError(
                    f"scheduler {name!r} started job {ids[job]!r} (nodes={nodes}) at "
                    f"t={now:g} with {self._free_count[k]} free machines")
            held = MachineSet.from_mask(free, nodes)
            mask = held.mask()
        else:
            held, mask = _checked_machines(start.machines, self._sizes[k], nodes, free)
            if held is None:
                raise InternalError(
                    f"scheduler {name!r} started job {ids[job]!r} (nodes={nodes}) at "
                    f"t={now:g} on machines {list(start.machines)!r} of partition "
                    f"{k}, which are not {nodes} distinct free machines")
        self._free[k] = free & ~mask
        self._free_count[k] -= nodes
        del self._waiting[job]
        self._held[job] = (k, held, mask, now, now + estimate, nodes)
        if self._running is not None:
            self._running[job] = RunningJob(job, k, held, now, now + estimate)
        return held

    def release(self, job: int) -> None:
        k, _, mask, _, _, nodes = self._held.pop(job)
        self._free[k] |= mask
        self._free_count[k] += nodes
        if self._running is not None:
            del self._running[job]


def _checked_machines(machines: Sequence[int], size: int, nodes: int, free: int
                      ) -> tuple[MachineSet | None, int]:
    """``(the set, its bit set)`` of the machines a scheduler chose, or
    ``(None, 0)`` unless they are ``nodes`` distinct free machine numbers of
    a partition of ``size`` machines."""
    if isinstance(machines, MachineSet):  # distinct and increasing already
        held = machines
        if held.end > size or len(held) != nodes:
            return None, 0
    else:
        try:
            numbers = [operator.index(m) for m in machines]
        except TypeError:
            return None, 0
        if len(numbers) != nodes or len(set(numbers)) != nodes or any(
                not 0 <= m < size for m in numbers):
            return None, 0
        held = MachineSet.from_machines(numbers)
    mask = held.mask()
    if free & mask != mask:
        return None, 0
    return held, mask


_WIDE = 512
"""Above this many machines, bit sets are converted with numpy (a Python
loop over a wide ``int`` is quadratic: every step copies it)."""


def _numbers(mask: int, limit: int | None = None) -> list[int]:
    """The set bits of ``mask``, increasing (the first ``limit`` of them)."""
    if mask.bit_length() > _WIDE:
        raw = np.frombuffer(mask.to_bytes((mask.bit_length() + 7) // 8, "little"),
                            np.uint8)
        bits = np.flatnonzero(np.unpackbits(raw, bitorder="little"))
        return bits[:limit].tolist()
    out = []
    while mask and (limit is None or len(out) < limit):
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _make_scheduler(scheduler: str | Scheduler) -> Scheduler:
    if isinstance(scheduler, str):
        # names are resolved by the package's front door, where the registry
        # is (this engine sits below it and never imports it)
        raise TypeError(f"scheduler={scheduler!r}: the engine takes a Scheduler; "
                        f"replay a registered name through "
                        f"opt_sched.scheduling.replay")
    return scheduler


def _make_model(execution: object, policy: str):
    if isinstance(execution, str):
        from ..execution import get_execution_model

        return get_execution_model(execution, policy=policy)
    return execution


def _run_stepped(sched: Scheduler, model, jobs, cluster: _Cluster, name: str,
                 kill_at_walltime: bool,
                 progress: Callable[[int, int], None] | None, report_every: int):
    """The event loop, one Python call per event: ``(machines held, partition
    of each job, killed_at)``.

    When the model has nothing to simulate (no job does I/O: its
    ``job_lengths()`` are known), the loop runs the jobs itself as delays --
    a heap of ``(end, job)``, ties in job order, as the model does -- and
    the model adopts the starts and kills at the end, as after the fused
    loop: no model call per event."""
    n = len(jobs)
    waiting_preds = [len(a) for a in jobs.after]
    successors: list[list[int]] = [[] for _ in range(n)]
    for i, preds in enumerate(jobs.after):
        for p in preds:
            successors[p].append(i)
    submit = jobs.submit.tolist()
    arrivals = [(submit[i], i) for i in range(n) if not waiting_preds[i]]
    heapq.heapify(arrivals)
    kills: list[tuple[float, int]] = []
    estimates = jobs.estimate.tolist()
    nodes = jobs.nodes.tolist()
    held: dict[int, MachineSet] = {}
    parts = [0] * n
    killed_at: dict[int, float] = {}
    ended_count = 0
    running = cluster._held  # the running jobs (cluster.running, without objects)
    lengths = getattr(model, "job_lengths", None)
    length = lengths() if lengths is not None and hasattr(model, "adopt") else None
    delays = None if length is None else length.tolist()
    ends: list[tuple[float, int]] = []  # with delays: (end, job) of the running jobs
    start_t = [math.nan] * n

    complete, submitted, decide = sched.complete, sched.submit, sched.decide
    next_wakeup = sched.next_wakeup
    push, pop = heapq.heappush, heapq.heappop

    def end(t: float, ended: Sequence[int], killed: bool) -> None:
        nonlocal ended_count
        for j in ended:
            cluster.release(j)
            if killed:
                killed_at[j] = t
            complete(t, j, killed)
            ended_count += 1
            if progress is not None and ended_count % report_every == 0:
                progress(ended_count, n)
            for s in successors[j]:
                waiting_preds[s] -= 1
                if not waiting_preds[s]:
                    heapq.heappush(arrivals, (max(submit[s], t), s))

    def ending_at(t: float) -> list[int]:
        """With delays: pop the running jobs that end at ``t`` (none ends
        earlier)."""
        out = []
        while ends and (ends[0][0] == t or ends[0][1] not in running):
            j = pop(ends)[1]
            if j in running:
                out.append(j)
        return out

    t = -math.inf
    while ended_count < n:
        while kills and kills[0][1] not in running:
            pop(kills)
        until = arrivals[0][0] if arrivals else math.inf
        if kills and kills[0][0] < until:
            until = kills[0][0]
        wake = next_wakeup(t)
        if t < wake < until:
            until = wake
        if delays is not None:
            while ends and ends[0][1] not in running:
                pop(ends)
            first = ends[0][0] if ends else math.inf
        else:
            first = model.next_time()
        if until == math.inf and first == math.inf:
            left = [jobs.ids[j] for j in cluster.waiting]
            raise InternalError(
                f"scheduler {name!r} left {n - ended_count} jobs unfinished "
                f"(waiting: {left[:5]!r}) with nothing left to happen")
        if delays is None:
            t, ended = model.advance(until)
        elif first <= until:
            t = first
            ended = ending_at(t)
        else:
            t, ended = until, ()
        if ended:
            end(t, ended, False)
        while kills and kills[0][0] <= t:
            _, j = pop(kills)
            if j in running:
                if delays is None:
                    model.kill(t, j)
                end(t, (j,), True)
        while arrivals and arrivals[0][0] <= t:
            _, i = pop(arrivals)
            cluster._waiting[i] = None
            submitted(t, i)
        while True:
            for start in decide(t):
                j = start.job
                held[j] = cluster.take(start, nodes[j], t, estimates[j], name,
                                       jobs.ids)
                parts[j] = start.partition
                if delays is None:
                    model.start(t, j, start.partition)
                else:
                    start_t[j] = t
                    push(ends, (t + delays[j], j))
                if kill_at_walltime and estimates[j] < math.inf:
                    push(kills, (t + estimates[j], j))
            if delays is None:
                ended = model.settle(t)
            elif ends and (ends[0][0] == t or ends[0][1] not in running):
                ended = ending_at(t)
            else:
                break
            if not ended:
                break
            end(t, ended, False)
            while arrivals and arrivals[0][0] <= t:
                _, i = pop(arrivals)
                cluster._waiting[i] = None
                submitted(t, i)
    if delays is not None:
        model.adopt(start_t, killed_at)
    return held, parts, killed_at


def _fused(sched: Scheduler, model, jobs, kill_at_walltime: bool, report_every: int):
    """A :class:`~opt_sched.scheduling.fused.FusedRun` when the model has
    nothing to simulate (no I/O) and the scheduler has compiled passes with
    a static queue order; else ``None``."""
    spec = getattr(sched, "fused_spec", None)
    lengths = getattr(model, "job_lengths", None)
    if spec is None or lengths is None:
        return None
    spec = spec()
    length = lengths()
    if spec is None or length is None:
        return None
    from .fused import FusedRun

    return FusedRun(sched, spec[0], spec[1], jobs.submit, length, jobs.estimate,
                    jobs.after, kill_at_walltime, report_every)


def _run_fused(fused, name: str, jobs, progress, report_every: int):
    """Run a fused replay, reporting progress between its pauses."""
    from .fused import PAUSED, STUCK

    n = len(jobs)
    reported = 0
    while True:
        status = fused.run()
        if progress is not None:
            for mark in range(reported + 1, fused.ended // report_every + 1):
                progress(mark * report_every, n)
            reported = fused.ended // report_every
        if status == STUCK:
            left = [jobs.ids[j] for j in fused.waiting()]
            raise InternalError(
                f"scheduler {name!r} left {n - fused.ended} jobs unfinished "
                f"(waiting: {left[:5]!r}) with nothing left to happen")
        if status != PAUSED:
            break
    parts = fused.scheduler._st[0][:, 1].tolist()
    killed_at = {j: t for j, t in enumerate(fused.killed_t.tolist()) if t == t}
    return fused.machines(), parts, killed_at


def replay(instance: Instance, scheduler: str | Scheduler,
           execution: object = "exclusive", *, policy: str = "fifo",
           estimate: str = "walltime", kill_at_walltime: bool = False,
           progress: Callable[[int, int], None] | None = None,
           record_machines: bool = True) -> Schedule:
    """Replay ``instance`` (its jobs arrive at their releases) under an
    online ``scheduler`` and an ``execution`` model.

    Parameters
    ----------
    instance
        The workload: releases are submit times, ``walltime`` the requested
        times, phases the real work.
    scheduler
        A :class:`~opt_sched.scheduling.base.Scheduler`, or a registered
        name (:data:`opt_sched.scheduling.SCHEDULERS`; resolved by the
        package's :func:`opt_sched.scheduling.replay`: the engine of this
        module takes a Scheduler).
    execution
        An :class:`~opt_sched.execution.base.ExecutionModel`, or a registered
        name (:data:`opt_sched.execution.EXECUTION_MODELS`), built with
        ``policy`` (the I/O list policy of the exclusive model).
    estimate
        What schedulers see as ``e_i``: ``"walltime"`` or ``"exact"``
        (:func:`~opt_sched.scheduling.base.job_table`).
    kill_at_walltime
        Kill a job still running at ``S_i + e_i`` (Slurm's behaviour); by
        default it runs on. A killed job is marked ``killed_at`` in the
        schedule.
    progress
        Called as ``progress(ended, total)`` every few hundred job ends.
    record_machines
        Give every job its machine numbers in the schedule (Batsim's
        ``allocated_resources``; rule 4 is then checked per machine). Off,
        the schedule states only node counts: the machines are still
        assigned and checked by the engine, but a batch of jobs holding tens
        of thousands of machines each (seed 000's Mira workloads) is not
        stored and validated machine by machine. Machines are stored as
        runs (:class:`~opt_sched.schedule.MachineSet`), so recording them
        costs little even then.

    Returns
    -------
    Schedule
        Every job, with its partition, machines and phase times;
        ``execution`` is the model's name, ``info`` counts killed jobs
        (``"killed"``) and gives the backfilling depth in force
        (``"bf_depth"``, when one was: asked for, or conservative
        backfilling's default on a large workload,
        :mod:`~opt_sched.scheduling.backfill_limits`).
    """
    # a few objects per job and no cycles (opt_sched.gc_pause)
    with gc_paused():
        sched = _make_scheduler(scheduler)
        model = _make_model(execution, policy)
        jobs = job_table(instance, estimate)
        if kill_at_walltime and estimate != "walltime":
            raise OptionError("kill_at_walltime needs estimate='walltime'")
        cluster = _Cluster(instance)
        sched.attach(jobs, cluster)
        model.attach(instance)
        name = getattr(sched, "name", type(sched).__name__)
        report_every = max(1, len(jobs) // 200)
        fused = _fused(sched, model, jobs, kill_at_walltime,
                       report_every if progress is not None else len(jobs) + 1)
        if fused is not None:
            held, parts, killed_at = _run_fused(fused, name, jobs, progress,
                                                report_every)
            model.adopt(fused.start_t.tolist(), killed_at)
        else:
            held, parts, killed_at = _run_stepped(sched, model, jobs, cluster, name,
                                                  kill_at_walltime, progress,
                                                  report_every)
        all_phases = getattr(model, "all_phases", None)
        phases = (all_phases() if all_phases is not None
                  else [model.phases(i) for i in range(len(jobs))])
        out = [JobSchedule(job.id, parts[i], ph.compute_starts, ph.io_starts,
                           io_ends=ph.io_ends,
                           machines=held[i] if record_machines else None,
                           killed_at=killed_at.get(i))
               for i, (job, ph) in enumerate(zip(instance.jobs, phases))]
        record = model.record().to_dict() if hasattr(model, "record") else None
        info: dict[str, object] = {"scheduler": name, "execution": model.name,
                                   "killed": len(killed_at),
                                   "kill_at_walltime": bool(kill_at_walltime)}
        depth = getattr(sched, "applied_bf_depth", None)
        if depth is not None:
            info["bf_depth"] = depth
        return Schedule(tuple(out), method=name, info=info, execution=model.name,
                        execution_record=record)
