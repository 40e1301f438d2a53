r"""A mean-flow-time bound that splits the jobs between relaxations
(``models/mean-flow-split.md``): the window bracket's stronger bound.

Notation of :mod:`opt_sched.bounds_flow`: ``ect_i`` job ``i`` alone (from
its earliest start ``est_i``, its I/O phases fitted between the reserved
intervals), ``a_i`` its compute after its last I/O phase, ``p_i`` the length
of that phase and ``g_i = ect_i - a_i - p_i`` its start alone (the earliest
it can start in any schedule), ``V_i`` its I/O volume and ``h_i`` its first
head, ``A_i = Q_i T_i`` its area; the I/O node a machine of rate ``b`` (0 in
the reserved intervals), the nodes a fluid machine of rate ``P - held(t)``.

Each job goes to one of four sets: ``S_0`` (alone), ``S_last`` (its last
I/O phase a task ``(g_i, p_i b)`` on the I/O node), ``S_vol`` (its whole
volume a task ``(h_i, V_i)`` on the I/O node) or ``S_area`` (a task
``(est_i, A_i)`` on the node machine). For every such split, every feasible
schedule has

.. math::

    \sum_i C_i \ge \sum_{i \in S_0} ect_i
        + \mathrm{SRPT}_{io}(S_{last} \cup S_{vol})
        + \sum_{i \in S_{last} \cup S_{vol}} a_i
        + \mathrm{SRPT}_{area}(S_{area})

because the sets are disjoint and each term bounds its own jobs:
``C_i >= ect_i``; the I/O phases of ``S_last`` and ``S_vol`` in the schedule
form a preemptive schedule of their tasks on the I/O node (a last phase
starts at ``>= g_i``; a job's volume is served from ``>= h_i``), task ``i``
done when its job's last phase ends, at ``X_i <= C_i - a_i``, and SRPT
minimises ``sum X_i`` there (``1 | r_i, pmtn | sum C_i`` on a machine of
varying rate, :func:`opt_sched.rate_profile.srpt_completions`; the other
phases are dropped, which only removes work); the jobs of ``S_area`` occupy
``Q_i`` nodes for ``T_i`` from ``>= est_i``, a preemptive schedule of their
areas on the node machine, each done by ``C_i``. With ``S_vol``
(``S_area``) every job it is ``io-srpt`` (``area-srpt``) of
:mod:`opt_sched.bounds_flow`, with ``S_0`` every job ``alone``; with
``S_last`` every job with I/O it is at least ``alone`` (a task completes
no earlier than ``g_i + p_i``), plus what the last phases' contention adds.

The split is chosen by a local search from those four (move one job to
another set while the bound grows); any split gives a valid bound, so the
search only decides how strong it is.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator

import numpy as np

from .bounds_flow import _groups, _jobs, _profiles
from .instance import Instance
from .rate_profile import srpt_completions
from .reservations import Reservations

__all__ = ["HOLDS_UNDER", "beside_completion_bounds", "beside_knapsack_and_job",
           "beside_mean_flow_bound", "energetic_stretch_bound",
           "exclusive_mean_flow_bound", "exclusive_stretch_bound",
           "split_mean_flow_bound"]

HOLDS_UNDER: dict[str, frozenset[str]] = {
    name: frozenset({"exclusive"})
    for name in ("split-srpt", "exclusive-srpt", "exclusive-edf", "beside-knapsack",
                 "energetic")}
"""With reservations every bound here is proven under ``exclusive`` only
(``ect_i`` fits the I/O phases between the reserved busy intervals, a node
busy at full bandwidth), as :data:`opt_sched.bounds_flow.HOLDS_UNDER_RESERVED`."""

_SETS = (0, 1, 2, 3)  # alone, last I/O phase, whole volume, node area


def split_mean_flow_bound(instance: Instance, *,
                          reservations: Reservations | None = None,
                          time_limit: float = 2.0) -> dict[str, float]:
    """``{"split-srpt": bound}`` on the mean flow time (module doc), for a
    one-partition instance without dependencies (empty otherwise); the
    search stops after ``time_limit`` seconds with the best split so far."""
    if instance.platform.num_partitions != 1 or instance.has_dependencies:
        return {}
    jobs = _jobs(instance, reservations)
    n = len(jobs)
    if not n:
        return {}
    group = _groups(instance, jobs)[0]
    bandwidth = group[1]
    io_rate, node_rate = _profiles(group, reservations)
    ect = [job.ect for job in jobs]
    has_io = [job.volume > 0 for job in jobs]
    tails = [job.last_tail for job in jobs]
    last_volume = [float(job.volumes[-1]) if job.volume > 0 else 0.0 for job in jobs]
    last_start = [ect[i] - tails[i] - last_volume[i] / bandwidth for i in range(n)]
    ests = np.array([job.est for job in jobs])
    areas = np.array([job.area for job in jobs])

    def io_part(last: list[int], whole: list[int]) -> float:
        if not last and not whole:
            return 0.0
        releases = np.array([last_start[i] for i in last]
                            + [jobs[i].first_head for i in whole])
        work = np.array([last_volume[i] for i in last]
                        + [jobs[i].volume for i in whole])
        done = srpt_completions(io_rate, releases, work)
        return math.fsum(done.tolist()) + math.fsum(tails[i] for i in last + whole)

    def area_part(members: list[int]) -> float:
        if not members:
            return 0.0
        return math.fsum(srpt_completions(node_rate, ests[members],
                                          areas[members]).tolist())

    def total(split: list[int]) -> float:
        # a job without I/O counts alone in an I/O set
        alone = [i for i in range(n) if split[i] == 0
                 or (split[i] in (1, 2) and not has_io[i])]
        last = [i for i in range(n) if split[i] == 1 and has_io[i]]
        whole = [i for i in range(n) if split[i] == 2 and has_io[i]]
        area = [i for i in range(n) if split[i] == 3]
        return (math.fsum(ect[i] for i in alone) + io_part(last, whole)
                + area_part(area))

    stop = time.perf_counter() + time_limit
    starts = [[k] * n for k in _SETS]
    split, value = max(((s, total(s)) for s in starts), key=lambda x: x[1])
    split = list(split)
    improved = True
    while improved and time.perf_counter() < stop:
        improved = False
        for i in range(n):
            if time.perf_counter() >= stop:
                break
            for target in _SETS:
                if target == split[i]:
                    continue
                trial = list(split)
                trial[i] = target
                trial_value = total(trial)
                if trial_value > value * (1 + 1e-12):
                    split, value, improved = trial, trial_value, True
    releases = math.fsum(job.release for job in jobs)
    return {"split-srpt": (value - releases) / n}



# -- jobs that cannot run together while few nodes are free ------------------------
def _srpt_until(releases: list[float], work: list[float], cutoff: float
                ) -> list[float]:
    """Completions of preemptive SRPT on one machine until ``cutoff``; from
    then on every unfinished job runs alone at once: ``cutoff + remaining``
    (``release + work`` for a job released later)."""
    import heapq

    n = len(work)
    order = sorted(range(n), key=lambda i: releases[i])
    done = [math.inf] * n
    left = list(work)
    heap: list[tuple[float, int]] = []
    t = releases[order[0]] if n else 0.0
    k = 0
    while (k < n or heap) and t < cutoff:
        if not heap and k < n and t < releases[order[k]]:
            t = releases[order[k]]
            if t >= cutoff:
                break
        while k < n and releases[order[k]] <= t:
            heapq.heappush(heap, (left[order[k]], order[k]))
            k += 1
        remaining, i = heapq.heappop(heap)
        nxt = min(releases[order[k]] if k < n else math.inf, cutoff)
        if t + remaining <= nxt:
            t += remaining
            left[i] = 0.0
            done[i] = t
        else:
            left[i] = remaining - (nxt - t)
            t = nxt
            heapq.heappush(heap, (left[i], i))
    for i in range(n):
        if done[i] == math.inf:
            done[i] = max(cutoff, releases[i]) + left[i]
    return done


def _exclusive_groups(instance: Instance, jobs: list, reservations: Reservations | None
                      ) -> Iterator[tuple[list[int], float]]:
    """For each node threshold ``q``: the jobs of ``Q_i >= q`` (and positive
    length), at least two, and ``t*(q)``, the first time the nodes free of
    the holds reach the two smallest of their demands together (``0`` if
    they already do, ``inf`` if never): before ``t*`` no two of them run at
    once (``models/mean-flow-split.md``)."""
    n = len(jobs)
    nodes = instance.platform.partitions[0].nodes
    holds = reservations.node_holds if reservations is not None else ()
    free0 = nodes - sum(q for _, q in holds)
    for q in sorted({job.nodes for job in jobs if job.nodes > 0}):
        members = [i for i in range(n) if jobs[i].nodes >= q and jobs[i].length > 0]
        if len(members) < 2:
            continue
        # any two members need at least the two smallest demands together
        pair = sum(sorted(jobs[i].nodes for i in members)[:2])
        free, cutoff = free0, 0.0 if free0 >= pair else math.inf
        if cutoff > 0:
            for end, held in holds:  # sorted by end
                free += held
                if free >= pair:
                    cutoff = end
                    break
        yield members, cutoff


def exclusive_mean_flow_bound(instance: Instance, *,
                              reservations: Reservations | None = None
                              ) -> dict[str, float]:
    """``{"exclusive-srpt": bound}`` on the mean flow time
    (``models/mean-flow-split.md``, "Jobs that cannot run together"): for a
    node threshold ``q``, the jobs of ``Q_i >= q`` never run together while
    fewer nodes than the two smallest of them need are free of the holds
    (``>= 2q``; until ``t*(q)``), so they
    share one preemptive machine until then and run freely after; SRPT is
    optimal for that relaxation; the other jobs count alone. The best ``q``.
    One partition, no dependencies (empty otherwise)."""
    if instance.platform.num_partitions != 1 or instance.has_dependencies:
        return {}
    jobs = _jobs(instance, reservations)
    n = len(jobs)
    ect = [job.ect for job in jobs]
    best = -math.inf
    for members, cutoff in _exclusive_groups(instance, jobs, reservations):
        if cutoff <= min(jobs[i].est for i in members):
            continue
        done = _srpt_until([jobs[i].est for i in members],
                           [jobs[i].length for i in members], cutoff)
        others = set(range(n)) - set(members)
        best = max(best, math.fsum(done) + math.fsum(ect[i] for i in others))
    if best == -math.inf:
        return {}
    releases = math.fsum(job.release for job in jobs)
    return {"exclusive-srpt": (best - releases) / n}


def _edf_feasible(releases: list[float], work: list[float], deadlines: list[float]
                  ) -> bool:
    """Preemptive EDF on one machine meets every deadline (Horn 1974: exact
    for ``1 | r_i, pmtn | L_max <= 0``)."""
    import heapq

    order = sorted(range(len(work)), key=lambda i: releases[i])
    heap: list[tuple[float, int]] = []
    left = list(work)
    t = -math.inf
    k = 0
    n = len(order)
    while k < n or heap:
        if not heap:
            t = max(t, releases[order[k]])
        while k < n and releases[order[k]] <= t:
            heapq.heappush(heap, (deadlines[order[k]], order[k]))
            k += 1
        deadline, i = heap[0]
        nxt = releases[order[k]] if k < n else math.inf
        run = min(left[i], nxt - t)
        t += run
        left[i] -= run
        if left[i] <= 1e-12 * max(1.0, abs(t)):
            heapq.heappop(heap)
            if t > deadline + 1e-9 * max(1.0, abs(deadline)):
                return False
    return True


def _largest_refuted(refuted: Callable[[float], bool], lower: float, upper: float,
                     steps: int, deadline: float = math.inf) -> float | None:
    """The largest ``x`` in ``[lower, upper]`` that ``refuted`` refutes, by
    bisection (every refuted ``x`` is a valid bound, whatever the
    precision); ``None`` if ``lower`` is not refuted. No test starts after
    ``deadline`` (``time.perf_counter()``): the last refuted ``x`` is kept."""
    if not refuted(lower):
        return None
    lo, hi = lower, upper  # lo refuted
    for _ in range(steps):
        if time.perf_counter() >= deadline:
            break
        mid = (lo + hi) / 2
        if refuted(mid):
            lo = mid
        else:
            hi = mid
    return lo


def exclusive_stretch_bound(instance: Instance, lower: float, upper: float, *,
                            reservations: Reservations | None = None,
                            steps: int = 40) -> dict[str, float]:
    """``{"exclusive-edf": x}`` on the max flow stretch
    (``models/mean-flow-split.md``, "... and the max flow stretch"): the
    largest ``x`` in ``[lower, upper]`` refuted by a deadline test
    ``d_i = r_i + x T_i`` on the jobs of ``Q_i >= q`` that cannot run
    together until ``t*(q)``: before ``t*`` job ``i`` must get ``T_i`` by
    ``d_i`` if ``d_i <= t*``, else ``T_i - (d_i - t*)`` by ``t*`` (after
    ``t*`` it runs freely), on one preemptive machine from ``est_i`` (EDF,
    exact). Empty if nothing above ``lower`` is refuted."""
    if instance.platform.num_partitions != 1 or instance.has_dependencies \
            or not upper > lower:
        return {}
    jobs = _jobs(instance, reservations)
    groups = []
    for members, cutoff in _exclusive_groups(instance, jobs, reservations):
        members = [i for i in members if jobs[i].est < cutoff]
        if len(members) >= 2:
            groups.append((members, cutoff))
    if not groups:
        return {}

    def refuted(x: float) -> bool:
        for members, cutoff in groups:
            releases, work, deadlines = [], [], []
            for i in members:
                job = jobs[i]
                d = job.release + x * job.length
                if d <= cutoff:
                    need, due = job.length, d
                else:
                    need, due = job.length - (d - cutoff), cutoff
                if need > 0:
                    releases.append(job.est)
                    work.append(need)
                    deadlines.append(due)
            if work and not _edf_feasible(releases, work, deadlines):
                return True
        return False

    found = _largest_refuted(refuted, lower, upper, steps)
    return {} if found is None else {"exclusive-edf": found}


def _least_overlap(a: np.ndarray, b: np.ndarray, first: np.ndarray,
                   last: np.ndarray, length: np.ndarray) -> np.ndarray:
    """``[pair, job]``: the least time job ``j`` runs in ``[a, b)`` when it
    runs for ``length_j`` from a start in ``[first_j, last_j]`` (the overlap
    is unimodal in the start: least at an end of the range)."""
    def overlap(start: np.ndarray) -> np.ndarray:
        return np.maximum(0.0, np.minimum(b[:, None], start + length)
                          - np.maximum(a[:, None], start))

    return np.minimum(overlap(first[None, :]), overlap(last[None, :]))


ENERGETIC_CHUNK = 1 << 22
"""At most this many (interval, job) overlaps at once in the energetic test:
with ``n`` jobs it has ``O(n^2)`` intervals, so a window of a thousand queued
jobs would otherwise hold gigabytes."""


def energetic_stretch_bound(instance: Instance, lower: float, upper: float, *,
                            reservations: Reservations | None = None,
                            steps: int = 40,
                            time_limit: float | None = None) -> dict[str, float]:
    """``{"energetic": x}`` on the max flow stretch (``models/mean-flow-split.md``,
    "... and the nodes' energy"): the largest ``x`` in ``[lower, upper]``
    refuted by energetic reasoning on the nodes. With ``d_i = r_i + x T_i``,
    job ``i`` holds its ``Q_i`` nodes for at least ``T_i`` from a start in
    ``[est_i, d_i - T_i]``; over ``[a, b)`` it holds them at least its least
    overlap ``o_i(a, b)``, and the jobs together hold at most the free
    node-seconds ``F(b) - F(a)`` (the holds of the running jobs removed):
    ``x`` is refuted when ``sum_i Q_i o_i(a, b) > F(b) - F(a)`` for some
    ``a < b`` among the starts ``est_i``, ``d_i - T_i`` and the ends
    ``est_i + T_i``, ``d_i``. Empty if nothing above ``lower`` is refuted.

    ``time_limit`` (seconds): a test still running then counts as not
    refuted, and no test starts after it; what was refuted stays valid."""
    deadline = math.inf if time_limit is None else time.perf_counter() + time_limit
    if instance.platform.num_partitions != 1 or instance.has_dependencies \
            or not upper > lower or instance.num_jobs < 2:
        return {}
    # a job of length 0 has stretch 1 however long it waits (no deadline)
    # and holds no node-seconds: it takes no part in the test
    jobs = [job for job in _jobs(instance, reservations) if job.length > 0]
    if not jobs:
        return {}
    release = np.array([job.release for job in jobs])
    est = np.array([job.est for job in jobs])
    length = np.array([job.length for job in jobs])
    nodes = np.array([job.nodes for job in jobs], dtype=float)
    partition = instance.platform.partitions[0]
    free = reservations.node_profile(partition.nodes) if reservations is not None \
        else None

    def free_area(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        if free is None:
            return partition.nodes * (b - a)
        return free.work(b) - free.work(a)

    def refuted(x: float) -> bool:
        last = release + x * length - length  # the latest start: d_i - T_i
        if (last < est - 1e-9 * np.maximum(1.0, np.abs(est))).any():
            return True  # a job cannot meet its deadline even alone
        last = np.maximum(last, est)
        starts = np.unique(np.concatenate([est, last]))
        ends = np.unique(np.concatenate([est + length, last + length]))
        a, b = np.meshgrid(starts, ends, indexing="ij")
        keep = a < b
        a, b = a[keep], b[keep]
        chunk = max(1, ENERGETIC_CHUNK // len(jobs))
        for k in range(0, len(a), chunk):
            if time.perf_counter() >= deadline:
                return False  # unknown: not refuted
            ak, bk = a[k:k + chunk], b[k:k + chunk]
            need = _least_overlap(ak, bk, est, last, length) @ nodes
            room = free_area(ak, bk)
            if (need > room + 1e-9 * np.maximum(1.0, room)).any():
                return True
        return False

    found = _largest_refuted(refuted, lower, upper, steps, deadline)
    return {} if found is None else {"energetic": found}


# -- a job and what runs beside it (the knapsack at one instant) --------------------
def _beside_penalty(tau: np.ndarray, cap: np.ndarray, est: np.ndarray,
                    ect: np.ndarray, length: np.ndarray, nodes: np.ndarray,
                    capacity: int) -> np.ndarray:
    """For each instant ``tau`` (shape ``(m,)``) with ``cap`` nodes left
    beside the fixed job: the least total penalty of the other jobs, a 0/1
    knapsack solved exactly (dynamic programme over the nodes). A job with
    ``est_i <= tau < ect_i`` either runs at ``tau`` (``Q_i`` of ``cap``, no
    penalty) or starts after ``tau`` (penalty ``(tau + T_i - ect_i)^+``);
    any other job pays nothing."""
    t = tau[:, None]
    active = (est[None, :] <= t) & (ect[None, :] > t) & (length[None, :] > 0)
    penalty = np.where(active, np.maximum(t + length[None, :] - ect[None, :], 0.0),
                       0.0)
    m = len(tau)
    saved = np.zeros((m, capacity + 1))
    for i in range(len(nodes)):
        q = int(nodes[i])
        if not active[:, i].any() or q > capacity:
            continue
        gain = penalty[:, i][:, None]
        if q == 0:
            saved += gain
            continue
        shifted = saved[:, :-q] + gain
        saved[:, q:] = np.maximum(saved[:, q:], shifted)
    room = np.clip(cap.astype(int), 0, capacity)
    return penalty.sum(axis=1) - saved[np.arange(m), room]


def _beside_data(instance: Instance, reservations: Reservations | None
                 ) -> tuple[list, int, Callable[[np.ndarray], np.ndarray],
                            np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """What the knapsack bounds read: the jobs (:func:`opt_sched.bounds_flow.
    _jobs`), the partition's nodes, ``f(t)`` the nodes free of the holds (a
    function of an array of instants), and the arrays ``est``, ``ect``,
    ``T`` and ``Q`` (one partition)."""
    jobs = _jobs(instance, reservations)
    capacity = instance.platform.partitions[0].nodes
    rate = (reservations.node_profile(capacity) if reservations is not None
            else None)

    def free(t: np.ndarray) -> np.ndarray:
        if rate is None:
            return np.full(t.shape, float(capacity))
        k = np.clip(np.searchsorted(rate.starts, t, side="right") - 1, 0, None)
        return rate.rates[k]

    return (jobs, capacity, free, np.array([job.est for job in jobs]),
            np.array([job.ect for job in jobs]),
            np.array([job.length for job in jobs]),
            np.array([job.nodes for job in jobs], float))


def beside_mean_flow_bound(instance: Instance, *,
                           reservations: Reservations | None = None,
                           max_steps: int = 200_000) -> dict[str, float]:
    """``{"beside-knapsack": bound}`` on the mean flow time: the bound of
    :func:`beside_knapsack_and_job`."""
    return beside_knapsack_and_job(instance, reservations=reservations,
                                   max_steps=max_steps)[0]


def beside_knapsack_and_job(instance: Instance, *,
                            reservations: Reservations | None = None,
                            max_steps: int = 200_000,
                            time_limit: float | None = None
                            ) -> tuple[dict[str, float], int | None]:
    """``({"beside-knapsack": bound}, j)``: a bound on the mean flow time
    (``models/mean-flow-lp.md``, "A job and what runs beside it"): for a job
    ``j`` and every start ``S_j`` in ``[s, s + T_j/2)``, ``j`` runs at
    ``tau = s + T_j/2`` (and just before ``s + T_j``), so the other jobs
    running then hold at most ``f(tau) - Q_j`` nodes (``f`` the nodes free
    of the holds); each other job completes before ``tau`` (only if
    ``ect_i <= tau``), runs at ``tau`` or starts after it (``C_i >= tau + T_i``);
    a 0/1 knapsack gives the least extra over ``sum ect_i``.
    ``sum C_i >= min over s`` of that, ``s`` from ``est_j`` in steps
    ``T_j/2`` until ``j``'s own delay alone passes the least so far (or
    ``max_steps`` steps, the rest counted by that delay alone). The best
    ``j``, returned too (``None`` when no job gave a bound): the job to
    branch on in :func:`opt_sched.bounds_window_lp.
    branched_lp_mean_flow_bound`. One partition, no dependencies (``({},
    None)`` otherwise). After ``time_limit`` seconds no job is started and
    the rest of the job being scanned counts its own delay alone, as after
    ``max_steps``."""
    if instance.platform.num_partitions != 1 or instance.has_dependencies:
        return {}, None
    deadline = math.inf if time_limit is None else time.perf_counter() + time_limit
    jobs, capacity, free, est, ect, length, nodes = _beside_data(instance,
                                                                 reservations)
    n = len(jobs)
    if n < 2:
        return {}, None
    base = math.fsum(ect.tolist())

    per_job: dict[int, float] = {}
    steps_left = max_steps
    for j in sorted(range(n), key=lambda i: -nodes[i]):
        if length[j] <= 0 or steps_left <= 0 or time.perf_counter() >= deadline:
            continue
        keep = np.arange(n) != j
        half = length[j] / 2
        least = math.inf
        start = est[j]
        while steps_left > 0 and time.perf_counter() < deadline:
            m = min(2048, steps_left)
            steps_left -= m
            s = start + half * np.arange(m)
            own = base - ect[j] + np.maximum(ect[j], s + length[j])
            extra = np.zeros(m)
            for tau in (s + half, s + length[j] * (1 - 1e-9)):
                cap = np.maximum(free(tau) - nodes[j], 0.0)
                extra = np.maximum(extra, _beside_penalty(
                    tau, cap, est[keep], ect[keep], length[keep], nodes[keep],
                    capacity))
            least = min(least, float((own + extra).min()))
            start = start + half * m
            tail = base - ect[j] + max(ect[j], start + length[j])
            if tail >= least:
                break
        else:
            least = min(least, base - ect[j] + max(ect[j], start + length[j]))
        per_job[j] = least
    best = max([base, *per_job.values()])
    releases = math.fsum(job.release for job in jobs)
    job = max(per_job, key=per_job.__getitem__) if per_job else None
    return {"beside-knapsack": (best - releases) / n}, job


def beside_completion_bounds(instance: Instance, job: int, points: np.ndarray, *,
                             reservations: Reservations | None = None,
                             max_steps: int = 20_000) -> np.ndarray:
    """The knapsack argument of :func:`beside_mean_flow_bound` by the
    completion of job ``j = job`` (``models/mean-flow-lp.md``, "The LP
    branched on a job's completion"): for each ``k``, a lower bound on
    ``sum_i C_i - sum_i r_i`` over the schedules with ``C_j`` in
    ``[points[k], points[k+1])`` (the last range unbounded; ``points``
    increasing from at most ``ect_j``). For ``C_j`` in ``[c, c + T_j/2)``,
    ``j`` runs on ``[C_j - T_j, C_j)``, which holds ``[c - T_j/2, c)``, so
    at ``tau = c - T_j/2`` and ``tau = c - 1e-9 T_j`` the other jobs running
    hold at most ``f(tau) - Q_j`` nodes; ``sum C_i >= max(ect_j, c) +
    sum_{i != j} ect_i + K(tau)``. Each range is scanned in steps of
    ``T_j/2`` (for the last, until ``j``'s own delay passes the least so
    far), at most ``max_steps`` in all; the rest of a range counts ``j``'s
    own delay alone. ``-inf`` everywhere for a job of length 0, or an
    instance the bound does not cover (more than one partition, dependencies)."""
    points = np.asarray(points, float)
    out = np.full(len(points), -math.inf)
    if instance.platform.num_partitions != 1 or instance.has_dependencies:
        return out
    jobs, capacity, free, est, ect, length, nodes = _beside_data(instance,
                                                                 reservations)
    n = len(jobs)
    if not length[job] > 0 or not len(points) or points[0] > ect[job]:
        return out
    base = math.fsum(ect.tolist()) - math.fsum(x.release for x in jobs)
    keep = np.arange(n) != job
    half = length[job] / 2

    def values(c: np.ndarray) -> np.ndarray:
        own = base - ect[job] + np.maximum(ect[job], c)
        extra = np.zeros(len(c))
        for tau in (c - half, c - length[job] * 1e-9):
            cap = np.maximum(free(tau) - nodes[job], 0.0)
            extra = np.maximum(extra, _beside_penalty(
                tau, cap, est[keep], ect[keep], length[keep], nodes[keep], capacity))
        return own + extra

    steps_left = max_steps
    for k in range(len(points)):
        lower = float(points[k])
        upper = float(points[k + 1]) if k + 1 < len(points) else math.inf
        least = math.inf
        c = lower
        while c < upper and steps_left > 0:
            m = int(min(2048, steps_left,
                        math.ceil((upper - c) / half) if upper < math.inf else 2048))
            m = max(m, 1)
            steps_left -= m
            starts = c + half * np.arange(m)
            least = min(least, float(values(starts).min()))
            c = c + half * m
            if upper == math.inf and base - ect[job] + max(ect[job], c) >= least:
                break
        if c < upper:  # the rest of the range: j's own delay alone
            least = min(least, base - ect[job] + max(ect[job], c))
        out[k] = least
    return out
