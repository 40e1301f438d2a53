"""The event engine under :class:`~opt_sched.gym.env.BatchSchedulingEnv`.

A machine of ``M`` identical nodes runs rigid jobs (``Q_i`` nodes for the
real run time ``T_i``). The engine owns the clock; the policy only chooses
which queued job goes next. State: the time ``now``, the queue (the
submitted jobs not started, in submit order), the running jobs (a heap of
real ends), the free node count and the nodes each user holds.

Events are arrivals (``r_i``) and completions (``S_i + T_i``); an advance
(:meth:`Engine.advance`) jumps to the next event time and processes every
completion, then every arrival, of that instant.

Decisions (:meth:`Engine.pick`):

- a job ``j`` that fits (``Q_j <= free``) starts at ``now``;
- otherwise ``j`` is *reserved*: the engine advances event by event until
  ``j`` fits, then starts it. With ``backfill`` (EASY underneath, as in
  RLScheduler), at each of those instants the queued jobs are tried in
  submit order and a job ``k`` starts now when it fits and does not delay
  ``j``'s reservation by the estimates: with the shadow time ``s`` (the
  earliest time at which the running jobs' estimated ends ``max(S + e,
  now)`` free ``Q_j`` nodes) and the extra nodes ``x`` (free at ``s`` beyond
  ``Q_j``), ``now + e_k <= s`` or ``Q_k <= x`` (then ``x -= Q_k``).

Everything is numpy arrays plus a small heap and a list (the queue): no
object per job, a step costs a few microseconds.
"""

from __future__ import annotations

import heapq

import numpy as np

from .workload import JobStream

__all__ = ["Engine"]


class Engine:
    """One episode's simulation (module doc). :meth:`reset` starts it over."""

    def __init__(self, jobs: JobStream, *, backfill: bool = False) -> None:
        self.jobs = jobs
        self.backfill = bool(backfill)
        self.n = len(jobs)
        self.machines = int(jobs.machines)
        # plain lists: indexing a list is faster than a numpy scalar read
        self._submit = jobs.submit.tolist()
        self._run = jobs.run.tolist()
        self._estimate = jobs.estimate.tolist()
        self._nodes = jobs.nodes.tolist()
        self._user = jobs.user.tolist()
        self.reset()

    def reset(self) -> None:
        self.now = self._submit[0] if self.n else 0.0
        self.start = np.full(self.n, -1.0)
        self.user_nodes = np.zeros(int(self.jobs.user.max()) + 1 if self.n else 1,
                                   np.int64)
        self.queue: list[int] = []
        self.running: list[tuple[float, int]] = []  # (real end, job)
        self.estimated: list[tuple[float, int]] = []  # (S + e, job), lazy
        self.ended = [False] * self.n
        self.free = self.machines
        self.arrived = 0
        self.started = 0
        self.busy_area = 0.0  # sum of Q_i T_i of the started jobs
        self.just_started: list[int] = []
        self._arrive()

    # -- state ---------------------------------------------------------
    @property
    def done(self) -> bool:
        """Every job of the window has started."""
        return self.started == self.n

    def next_event(self) -> float | None:
        """The next arrival or completion time, or ``None``."""
        t = self.running[0][0] if self.running else None
        if self.arrived < self.n:
            r = self._submit[self.arrived]
            if t is None or r < t:
                t = r
        return t

    def next_estimated_end(self) -> float | None:
        """The earliest estimated end ``S_j + e_j`` of a running job (it may
        be past for a job that overruns its estimate), or ``None``."""
        heap, ended = self.estimated, self.ended
        while heap and ended[heap[0][1]]:
            heapq.heappop(heap)
        return heap[0][0] if heap else None

    # -- moves ---------------------------------------------------------
    def _arrive(self) -> None:
        submit, now, n = self._submit, self.now, self.n
        k = self.arrived
        while k < n and submit[k] <= now:
            self.queue.append(k)
            k += 1
        self.arrived = k

    def advance(self) -> bool:
        """Jump to the next event and process it; ``False`` if none."""
        t = self.next_event()
        if t is None:
            return False
        self.now = t
        running = self.running
        while running and running[0][0] <= t:
            _, j = heapq.heappop(running)
            self.ended[j] = True
            self.free += self._nodes[j]
            self.user_nodes[self._user[j]] -= self._nodes[j]
        self._arrive()
        return True

    def _start(self, j: int) -> None:
        now = self.now
        q = self._nodes[j]
        self.queue.remove(j)
        self.start[j] = now
        self.free -= q
        self.user_nodes[self._user[j]] += q
        heapq.heappush(self.running, (now + self._run[j], j))
        heapq.heappush(self.estimated, (now + self._estimate[j], j))
        self.started += 1
        self.busy_area += q * self._run[j]
        self.just_started.append(j)

    def pick(self, j: int) -> None:
        """Start queued job ``j`` now, or reserve it (module doc)."""
        nodes = self._nodes
        while nodes[j] > self.free:
            if self.backfill:
                self._backfill(j)
            if not self.advance():  # pragma: no cover - Q_j <= M
                raise RuntimeError(f"gym engine: job {j} can never start")
        self._start(j)

    def shadow(self, j: int) -> tuple[float, int]:
        """``(s, x)``: the shadow time of job ``j`` and the extra nodes
        (module doc), from the running jobs' estimated ends."""
        need = self._nodes[j]
        free = self.free
        if need <= free:
            return self.now, free - need
        start, estimate, nodes, now = self.start, self._estimate, self._nodes, self.now
        ends = sorted((max(start[k] + estimate[k], now), nodes[k])
                      for _, k in self.running)
        for end, q in ends:
            free += q
            if free >= need:
                return end, free - need
        raise RuntimeError(f"gym engine: job {j} needs more than the machine")

    def _backfill(self, j: int) -> None:
        s, extra = self.shadow(j)
        now, nodes, estimate = self.now, self._nodes, self._estimate
        for k in list(self.queue):
            if k == j:
                continue
            q = nodes[k]
            if q > self.free:
                continue
            if now + estimate[k] <= s:
                self._start(k)
            elif q <= extra:
                extra -= q
                self._start(k)

    def finish(self) -> np.ndarray:
        """The completions ``C_i = S_i + T_i`` (``-1`` for jobs not started)."""
        out = self.start + self.jobs.run
        out[self.start < 0] = -1.0
        return out
