"""The serial schedule-generation scheme for project scheduling (RCPSP).

A heuristic of the average-bandwidth planning model (SPEC §5): jobs are boxes
of integer length ``d_j`` released at ``rho_j``, after their predecessors,
using ``u_jr`` of every renewable resource ``r`` of capacity ``C_r`` while
they run. The serial SGS (Kolisch 1996) takes the jobs one at a time, by a
priority rule among those whose predecessors are all placed, and starts each
at the earliest time ``>=`` its release and its predecessors' ends at which
every resource has room for its whole length. It always finds a feasible
plan (no demand exceeds its capacity) and, for the makespan, every active
schedule is the serial SGS of some job order.

:func:`best_serial_schedule` runs it under four classic priority rules and
keeps the shortest plan: the exact planning models use it as their horizon
and first incumbent (:mod:`opt_sched.exact.planning`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Project", "best_serial_schedule", "chain_tails", "earliest_starts",
           "serial_sgs", "successor_lists"]


def successor_lists(predecessors: Sequence[Sequence[int]]) -> list[list[int]]:
    """``succ[i]``: the jobs that list ``i`` among their predecessors."""
    succ: list[list[int]] = [[] for _ in predecessors]
    for j, preds in enumerate(predecessors):
        for i in preds:
            succ[i].append(j)
    return succ


def earliest_starts(durations: Sequence[int], releases: Sequence[int],
                    predecessors: Sequence[Sequence[int]], order: Sequence[int]
                    ) -> list[int]:
    """Heads ``es_j = max(rho_j, max_{i in pred(j)} es_i + d_i)``, computed
    in ``order`` (any topological order)."""
    es = [0] * len(durations)
    for j in order:
        es[j] = max([releases[j]] + [es[i] + durations[i] for i in predecessors[j]])
    return es


def chain_tails(durations: Sequence[int], successors: Sequence[Sequence[int]],
                order: Sequence[int]) -> list[int]:
    """Longest chains from a job's start, ``q_j = d_j + max_{s in succ(j)}
    q_s``, computed backwards through ``order`` (any topological order)."""
    tail = [0] * len(durations)
    for j in reversed(order):
        tail[j] = durations[j] + max((tail[s] for s in successors[j]), default=0)
    return tail


@dataclass(frozen=True)
class Project:
    """An RCPSP instance in integer time.

    ``durations[j]``, ``releases[j]``, ``predecessors[j]`` (job indices) and
    ``resources``: ``(capacity, demands)`` per resource, ``demands[j]`` being
    ``u_jr`` (``<= capacity``).
    """

    durations: Sequence[int]
    releases: Sequence[int]
    predecessors: Sequence[Sequence[int]]
    resources: Sequence[tuple[int, Sequence[int]]]

    @property
    def num_jobs(self) -> int:
        return len(self.durations)

    def successors(self) -> list[list[int]]:
        return successor_lists(self.predecessors)

    def topological_order(self) -> list[int]:
        """Job indices, every job after its predecessors (Kahn, by index)."""
        missing = [len(p) for p in self.predecessors]
        succ = self.successors()
        ready = [j for j in range(self.num_jobs) if missing[j] == 0]
        order = []
        while ready:
            j = ready.pop(0)
            order.append(j)
            for s in succ[j]:
                missing[s] -= 1
                if missing[s] == 0:
                    ready.append(s)
        return order

    def heads(self) -> list[int]:
        """Earliest starts (:func:`earliest_starts`)."""
        return earliest_starts(self.durations, self.releases, self.predecessors,
                               self.topological_order())

    def tails(self) -> list[int]:
        """Longest chains from a job's start (:func:`chain_tails`)."""
        return chain_tails(self.durations, self.successors(), self.topological_order())


def serial_sgs(project: Project, priority: Sequence[float]) -> list[int]:
    """The serial SGS with ``priority`` (smallest first, ties by index).

    Returns
    -------
    list[int]
        The start of every job.
    """
    n = project.num_jobs
    durations = project.durations
    succ = project.successors()
    missing = [len(p) for p in project.predecessors]
    eligible = {j for j in range(n) if missing[j] == 0}
    starts: list[int] = [0] * n
    placed: list[int] = []
    resources = [(cap, demands) for cap, demands in project.resources if any(demands)]
    while eligible:
        j = min(eligible, key=lambda x: (priority[x], x))
        eligible.remove(j)
        earliest = max([project.releases[j]]
                       + [starts[i] + durations[i] for i in project.predecessors[j]])
        candidates = sorted({earliest} | {starts[i] + durations[i] for i in placed
                                          if starts[i] + durations[i] > earliest})
        for t in candidates:
            if _fits(durations, resources, starts, placed, j, t):
                starts[j] = t
                break
        placed.append(j)
        for s in succ[j]:
            missing[s] -= 1
            if missing[s] == 0:
                eligible.add(s)
    return starts


def _fits(durations: Sequence[int], resources: Sequence[tuple[int, Sequence[int]]],
          starts: Sequence[int], placed: Sequence[int], j: int, t: int) -> bool:
    """Whether job ``j`` started at ``t`` keeps every resource within capacity."""
    end = t + durations[j]
    if end == t:
        return True
    overlapping = [i for i in placed
                   if starts[i] < end and t < starts[i] + durations[i]]
    if not overlapping:
        return True
    points = [t] + [starts[i] for i in overlapping if starts[i] > t]
    for capacity, demands in resources:
        need = demands[j]
        if need == 0:
            continue
        for p in points:
            used = sum(demands[i] for i in overlapping
                       if starts[i] <= p < starts[i] + durations[i])
            if used + need > capacity:
                return False
    return True


def best_serial_schedule(project: Project) -> tuple[int, list[int]]:
    """The shortest serial-SGS plan over four priority rules, as
    ``(makespan, starts)``.

    Rules (smallest first): ``-q_j`` (longest tail first: the latest start
    ``LS_j = H - q_j`` of the critical-path method), ``es_j - q_j``
    (earliest start, then longest tail), instance order, and shortest
    duration.
    """
    tails = project.tails()
    heads = project.heads()
    rules = [
        [-q for q in tails],
        [h - q for h, q in zip(heads, tails)],
        list(range(project.num_jobs)),
        list(project.durations),
    ]
    best: tuple[int, list[int]] | None = None
    for rule in rules:
        starts = serial_sgs(project, rule)
        span = max(s + d for s, d in zip(starts, project.durations))
        if best is None or span < best[0]:
            best = (span, starts)
    assert best is not None
    return best
