"""Earliest schedules of one partition with reservations, from orders or
priority lists (the schedules of a window's bracket, ``models/window-gap.md``).

A job ``i`` is a *plan*: release ``r_i``, ``Q_i`` nodes, the compute lag
before each of its non-zero I/O phases (operations), their lengths, and the
compute tail after the last one. Reservations (:class:`~opt_sched.
reservations.Reservations`) hold nodes on ``[0, e)`` and the I/O node on
busy intervals.

:func:`simulate` runs an event simulation. At each instant ``t``, until
nothing more can happen at ``t``:

- **job starts**: ``strict``: the next job of ``order`` starts if it is
  released and its ``Q_i`` nodes are free (jobs ending at ``t`` have freed
  theirs; holds ending at ``t`` too); ``greedy`` (list scheduling): every
  unstarted job, in ``order``, that is released and fits starts; ``easy``:
  EASY backfilling with the true lengths -- the released jobs in order, the
  first that does not fit reserves the earliest time its nodes free up
  (running jobs ending as if their I/O never waited), and a later job starts
  if it fits and ends by then or leaves the head its nodes; ``easy-ahead``
  (clairvoyant EASY): the same, but the head may be a job not released yet
  (the first unstarted job of ``order`` that cannot start now), its nodes
  reserved from its release;
- **I/O**: when the I/O node is free, the next operation of ``io_order`` (or,
  with ``io_order=None``, the ready operation with the earliest ready time,
  ties by the job's rank in ``order``) starts if its job is ready for it
  (its previous compute done) and it fits before the next busy interval
  (:meth:`Reservations.io_first_fit`). A compute phase starts as soon as the
  I/O before it ends. ``io_rule`` changes the pick when ``io_order`` is
  ``None``: ``short-wait``, the shortest ready operation (below); ``reserve``,
  the operation of the best-ranked job, and another job's operation only if
  it ends before every better-ranked job's next operation is ready -- I/O
  backfilling: the jobs at the head of ``order`` never wait for the I/O of
  the jobs behind them (an I/O-heavy job ranked last cannot stretch the wide
  jobs ranked before it).

Then ``t`` moves to the next event. ``None`` when the orders deadlock.

Why the strict simulation of the orders of a feasible schedule is no later
(the left shift, as in :mod:`opt_sched.exact.brute_force_hpc_io`): by
induction over the events in time order, every job and operation starts no
later than in that schedule. So :func:`orders_of` then :func:`simulate`
never makes a feasible schedule worse under a regular objective (makespan,
max flow stretch, mean flow time).

The simulation works in any time unit: in seconds for real schedules, in
ticks (integers) for the CP-SAT model's incumbent
(:mod:`.reserved_search`).
"""

from __future__ import annotations

import bisect
import itertools
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass

from ...instance import Instance
from ...operations import job_operations, phase_starts
from ...reservations import Reservations
from ...schedule import JobSchedule, Schedule

__all__ = ["IO_RULES", "MODES", "Plan", "Timing", "orders_of", "plans_of",
           "simulate", "to_schedule"]

MODES = ("strict", "greedy", "easy", "easy-ahead")
"""How :func:`simulate` starts jobs (module doc)."""

IO_RULES = ("fifo", "short-wait", "reserve")
"""How :func:`simulate` picks an operation when ``io_order`` is ``None``
(module doc)."""

DEADLINE_EVERY = 256
"""How many events :func:`simulate` runs between two looks at its deadline."""

SHORT_WAIT_FACTOR = 8.0
"""``short-wait`` idles for an operation ready in ``delta`` of length ``p``
instead of starting one of length ``d`` iff ``SHORT_WAIT_FACTOR delta + p
< d``. A one-for-one trade (2) overcounts the gain: the job made to wait
pays again at each later collision, the other gains only if its later
phases do not collide anyway. On the README's KTH-SP2 windows (mean flow
time, best list schedule) 2, 4, 8, 20, 40, 100 gave on 15000:40 12,453,
12,425, 12,204, 12,333, 12,343, 12,362 s against 12,364 s without idling;
8 was also the best of them on 5000:40 and 25000:40."""


@dataclass(frozen=True)
class Plan:
    """One job: release, nodes, lags before its operations, their lengths,
    the compute after the last one (module doc)."""

    release: float
    nodes: int
    lags: tuple[float, ...]
    durations: tuple[float, ...]
    tail: float


@dataclass(frozen=True)
class Timing:
    """A simulated schedule: job starts, operation starts, completions."""

    start: list[float]
    op_start: list[list[float]]
    completion: list[float]


def plans_of(instance: Instance) -> list[Plan]:
    """The plans of a one-partition instance, in seconds."""
    bandwidth = instance.platform.partitions[0].bandwidth
    out = []
    for job in instance.jobs:
        ops = job_operations(job)
        out.append(Plan(job.release, job.nodes, tuple(ops.lags.tolist()),
                        tuple(ops.durations(bandwidth).tolist()), ops.tail))
    return out


def orders_of(start: Sequence[float], op_start: Sequence[Sequence[float]]
              ) -> tuple[list[int], list[tuple[int, int]]]:
    """``(order, io_order)`` of a schedule: jobs by start, operations by start
    (ties by job index)."""
    order = sorted(range(len(start)), key=lambda i: (start[i], i))
    ops = sorted(((s, i, q) for i, row in enumerate(op_start)
                  for q, s in enumerate(row)))
    return order, [(i, q) for _, i, q in ops]


def simulate(plans: Sequence[Plan], capacity: int, reservations: Reservations,
             order: Sequence[int], io_order: Sequence[tuple[int, int]] | None = None,
             *, mode: str = "strict", io_rule: str = "fifo",
             deadline: float = math.inf) -> Timing | None:
    """The earliest schedule of the orders (module doc), or ``None`` if they
    deadlock or ``time.perf_counter()`` passes ``deadline`` first (looked at
    every :data:`DEADLINE_EVERY` events: a window of a thousand queued jobs
    takes seconds). ``mode``: one of :data:`MODES`; ``io_rule``: one of
    :data:`IO_RULES` (module doc)."""
    if mode not in MODES:
        raise ValueError(f"mode={mode!r} must be one of {', '.join(MODES)}")
    if io_rule not in IO_RULES:
        raise ValueError(f"io_rule={io_rule!r} must be one of {', '.join(IO_RULES)}")
    n = len(plans)
    rank = {i: r for r, i in enumerate(order)}
    start = [math.nan] * n
    completion = [math.inf] * n
    ready = [math.inf] * n          # when the job's next operation may start
    done = [0] * n
    op_start: list[list[float]] = [[] for _ in range(n)]
    holds = reservations.node_holds
    total_ops = sum(len(p.durations) for p in plans)
    pending = list(order)           # unstarted jobs, in order
    next_op = 0
    served = 0
    io_free = -math.inf
    running: list[int] = []         # started, not ended: the only jobs with
    # a finite completion after t or a finite ready time (the scans below)
    releases = sorted(p.release for p in plans)
    t = min((p.release for p in plans), default=0.0)
    least_nodes, least_for = math.inf, None  # and the state it was taken in
    lengths = [_length(plan) for plan in plans]  # EASY reads them per scan
    for event in itertools.count():
        if event % DEADLINE_EVERY == 0 and event and time.perf_counter() >= deadline:
            return None
        used = sum(plans[j].nodes for j in running if completion[j] > t) \
            + sum(q for end, q in holds if end > t)
        running = [j for j in running if completion[j] > t]
        if mode != "strict":
            # the released jobs still pending change only with a start (pending
            # only shrinks) or a release: most events (I/O) keep them
            state = (len(pending), bisect.bisect_right(releases, t))
            if state != least_for:
                least_nodes = min((plans[i].nodes for i in pending
                                   if plans[i].release <= t), default=math.inf)
                least_for = state
        fit_events: list[float] = []
        moved = True
        while moved:
            moved = False
            # job starts (none unless a released job fits: every mode needs it)
            free_now = capacity - used
            if mode == "strict":  # the head or none
                can_start = bool(pending) and plans[pending[0]].nodes <= free_now \
                    and plans[pending[0]].release <= t
            else:  # the fewest nodes a job released and unstarted at t's
                # first pass needs: only starts change it within t (upwards)
                can_start = least_nodes <= free_now
            if not can_start:
                started = []
            elif mode in ("easy", "easy-ahead"):
                used, started = _easy_starts(plans, lengths, pending, running,
                                             completion, ready, done, holds,
                                             capacity, used, t, mode == "easy-ahead")
            else:
                used, started = _list_starts(plans, pending, capacity, used, t,
                                             mode == "strict")
            for i in started:
                start[i] = t
                if plans[i].durations:
                    ready[i] = t + plans[i].lags[0]
                else:
                    completion[i] = t + plans[i].tail
                running.append(i)
                moved = True
            # I/O
            if io_free <= t and served < total_ops:
                fit_events = []
                choice = _next_op(plans, running, io_order, next_op, done, ready,
                                  start, rank, reservations, t, fit_events, io_rule)
                if choice is not None:
                    i = choice
                    q = done[i]
                    d = plans[i].durations[q]
                    op_start[i].append(t)
                    io_free = t + d
                    done[i] = q + 1
                    served += 1
                    if io_order is not None:
                        next_op += 1
                    if q + 1 < len(plans[i].durations):
                        ready[i] = t + d + plans[i].lags[q + 1]
                    else:
                        ready[i] = math.inf
                        completion[i] = t + d + plans[i].tail
                    moved = True
            # a job ending now frees its nodes at once
            if any(completion[j] <= t for j in running):
                used -= sum(plans[j].nodes for j in running if completion[j] <= t)
                running = [j for j in running if completion[j] > t]
                moved = True
        if not pending and served == total_ops:
            return Timing(start, op_start, [c if math.isfinite(c) else s
                                            for c, s in zip(completion, start)])
        events = [completion[j] for j in running if t < completion[j] < math.inf]
        events += [end for end, _ in holds if end > t]
        events += [x for x in fit_events if x > t]
        if pending and mode == "strict":
            if plans[pending[0]].release > t:
                events.append(plans[pending[0]].release)
        elif pending:  # the next release: a job released after t is unstarted
            k = bisect.bisect_right(releases, t)
            if k < n:
                events.append(releases[k])
        if io_free > t:
            events.append(io_free)
        events += [ready[j] for j in running if t < ready[j] < math.inf]
        if not events:
            return None
        t = min(events)


def _list_starts(plans: Sequence[Plan], pending: list[int], capacity: int,
                 used: int, t: float, strict: bool) -> tuple[int, list[int]]:
    """Strict or greedy list starts at ``t`` (removed from ``pending``)."""
    started = []
    k = 0
    while k < len(pending):
        i = pending[k]
        if plans[i].release <= t and used + plans[i].nodes <= capacity:
            used += plans[i].nodes
            started.append(pending.pop(k))
            continue
        if strict:
            break
        k += 1
    return used, started


_LENGTHS: dict[int, tuple[Plan, float, list[float]]] = {}
"""Per plan (by identity, the plan kept alive with it): its length and the
suffix sums of :func:`_estimated_end`, computed once."""


def _sums(plan: Plan) -> tuple[float, list[float]]:
    got = _LENGTHS.get(id(plan))
    if got is None or got[0] is not plan:
        if len(_LENGTHS) > 2_000:
            _LENGTHS.clear()
        q = len(plan.durations)
        left = [0.0] * (q + 1)
        left[q] = plan.tail
        for k in range(q - 1, -1, -1):  # durations[k:] + lags[k+1:] + tail
            left[k] = left[k + 1] + plan.durations[k] + (
                plan.lags[k + 1] if k + 1 < q else 0.0)
        length = (plan.lags[0] + left[0]) if q else plan.tail
        got = (plan, length, left)
        _LENGTHS[id(plan)] = got
    return got[1], got[2]


def _length(plan: Plan) -> float:
    """The job's length when its I/O never waits."""
    return _sums(plan)[0]


def _estimated_end(plan: Plan, ready: float, done: int) -> float:
    """A running job's end if its remaining I/O never waits."""
    return ready + _sums(plan)[1][done]


def _easy_starts(plans: Sequence[Plan], lengths: Sequence[float], pending: list[int],
                 running: list[int], completion: list[float], ready: list[float],
                 done: list[int], holds: Sequence[tuple[float, int]], capacity: int,
                 used: int, t: float, ahead: bool = False) -> tuple[int, list[int]]:
    """EASY at ``t``: the released jobs in order; the first that does not
    fit (the head) gets the earliest time its nodes free up (running jobs
    ending as if their I/O never waited, holds at their ends); a later job
    starts if it fits and ends by then or uses nodes the head leaves free.
    ``ahead`` (clairvoyant): a job not released yet can be the head, its
    nodes reserved from its release. ``lengths``: each job's length when
    its I/O never waits (:func:`_length`)."""
    started: list[int] = []
    shadow = None
    extra = 0
    k = 0
    while k < len(pending):
        i = pending[k]
        plan = plans[i]
        if plan.release > t:
            if ahead and shadow is None:  # a head not released yet
                shadow, extra = _shadow(plans, lengths, running, started,
                                        completion, ready, done, holds, capacity,
                                        used, t, plan.nodes, plan.release)
            k += 1
            continue
        fits = used + plan.nodes <= capacity
        if fits and (shadow is None or t + lengths[i] <= shadow
                     or plan.nodes <= extra):
            if shadow is not None and t + lengths[i] > shadow:
                extra -= plan.nodes
            used += plan.nodes
            started.append(pending.pop(k))
            continue
        if shadow is None:
            shadow, extra = _shadow(plans, lengths, running, started, completion,
                                    ready, done, holds, capacity, used, t,
                                    plan.nodes, t)
        k += 1
    return used, started


def _shadow(plans: Sequence[Plan], lengths: Sequence[float], running: list[int],
            started: list[int], completion: list[float], ready: list[float],
            done: list[int], holds: Sequence[tuple[float, int]], capacity: int,
            used: int, t: float, need: int, release: float) -> tuple[float, int]:
    """The head's reservation: the first time ``>= release`` at which
    ``need`` nodes are free (running jobs ending as if their I/O never
    waited, holds at their ends), and the nodes left over then."""
    ends = [(completion[j] if math.isfinite(completion[j]) else
             _estimated_end(plans[j], ready[j], done[j]), plans[j].nodes)
            for j in running if completion[j] > t]
    ends += [(t + lengths[j], plans[j].nodes) for j in started]
    ends += [(e, q) for e, q in holds if e > t]
    free = capacity - used
    for end, q in sorted(ends):
        if free >= need and end > release:
            return release, free - need
        free += q
        if free >= need and end >= release:
            return end, free - need
    if free >= need:
        return max(release, t), free - need
    return math.inf, 0


def _next_op(plans: Sequence[Plan], running: Sequence[int],
             io_order: Sequence[tuple[int, int]] | None,
             next_op: int, done: list[int], ready: list[float], start: list[float],
             rank: dict[int, int], reservations: Reservations, t: float,
             fit_events: list[float], io_rule: str = "fifo") -> int | None:
    """The job whose operation starts at ``t``, if any; the later times at
    which a blocked ready operation would fit go to ``fit_events`` (and,
    under ``short-wait``, the time the node is left idle for). Only the
    ``running`` jobs can have an operation ready."""
    if io_order is not None:
        i, q = io_order[next_op]
        if done[i] != q:
            raise ValueError(f"io_order: operation ({i}, {q}) out of its job's order")
        if start[i] <= t and ready[i] <= t:
            fit = reservations.io_first_fit(t, plans[i].durations[q])
            if fit <= t:
                return i
            fit_events.append(fit)
        return None
    if io_rule == "short-wait":
        return _short_wait(plans, running, done, ready, rank, reservations, t,
                           fit_events)
    if io_rule == "reserve":
        return _reserve(plans, running, done, ready, rank, reservations, t,
                        fit_events)
    candidates = sorted((ready[i], rank[i], i) for i in running
                        if ready[i] <= t and done[i] < len(plans[i].durations))
    for _, _, i in candidates:
        fit = reservations.io_first_fit(t, plans[i].durations[done[i]])
        if fit <= t:
            return i
        fit_events.append(fit)
    return None


def _short_wait(plans: Sequence[Plan], running: Sequence[int], done: list[int],
                ready: list[float],
                rank: dict[int, int], reservations: Reservations, t: float,
                fit_events: list[float]) -> int | None:
    """``short-wait``: the shortest ready operation that fits (ties by ready
    time, then rank), unless an operation of another job, ready at ``t +
    delta`` and fitting then, is short enough that idling for it pays:
    ``SHORT_WAIT_FACTOR delta + p < d`` (the chosen one, of length ``d``,
    waits ``delta + p``; the other saves ``d - delta``). Then the node idles
    until ``t + delta`` (an event), when the shorter one goes first."""
    best = None
    for i in running:
        if ready[i] <= t and done[i] < len(plans[i].durations):
            d = plans[i].durations[done[i]]
            fit = reservations.io_first_fit(t, d)
            if fit > t:
                fit_events.append(fit)
            elif best is None or (d, ready[i], rank[i]) < best[0]:
                best = ((d, ready[i], rank[i]), i)
    if best is None:
        return None
    d = best[0][0]
    for j in running:
        r = ready[j]
        if t < r < t + d / SHORT_WAIT_FACTOR and done[j] < len(plans[j].durations):
            p = plans[j].durations[done[j]]
            if SHORT_WAIT_FACTOR * (r - t) + p < d \
                    and reservations.io_first_fit(r, p) <= r:
                fit_events.append(r)
                return None
    return best[1]


def _reserve(plans: Sequence[Plan], running: Sequence[int], done: list[int],
             ready: list[float],
             rank: dict[int, int], reservations: Reservations, t: float,
             fit_events: list[float]) -> int | None:
    """``reserve``: the ready operation of the best-ranked job (rank in
    ``order``) that fits and ends by the time every better-ranked running
    job's next operation is ready (``t + d <= ready_j``); the node idles
    until the first such ready time otherwise (an event)."""
    waiting = [i for i in running if done[i] < len(plans[i].durations)
               and ready[i] < math.inf]
    waiting.sort(key=lambda i: rank[i])
    for k, i in enumerate(waiting):
        if ready[i] > t:
            continue
        d = plans[i].durations[done[i]]
        fit = reservations.io_first_fit(t, d)
        if fit > t:
            fit_events.append(fit)
            continue
        clash = [ready[j] for j in waiting[:k] if t < ready[j] < t + d]
        if clash:
            fit_events.append(min(clash))
            continue
        return i
    return None


def to_schedule(instance: Instance, timing: Timing, method: str) -> Schedule:
    """The simulated times as a :class:`Schedule` of ``instance`` (seconds):
    every compute phase right after the I/O before it
    (:func:`~opt_sched.operations.phase_starts`)."""
    part = instance.platform.partitions[0]
    out = []
    for i, job in enumerate(instance.jobs):
        compute, io = phase_starts(job, timing.start[i], timing.op_start[i],
                                   part.bandwidth)
        out.append(JobSchedule(job.id, 0, compute, io))
    return Schedule(tuple(out), method=method, execution="exclusive")
