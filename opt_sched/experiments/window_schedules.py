"""Heuristic schedules of a window (the first candidates of its bracket,
``models/window-gap.md``).

Every candidate is an earliest schedule of the window instance with its
reservations (:func:`opt_sched.exact.hpc_io.earliest.simulate`):

- ``online-left-shift``: the online schedule's own orders (job starts, I/O
  order) simulated strictly -- every job and phase starts no later than
  online, so it is never worse than the online schedule;
- the orders the caller gives (the rigid relaxation's, solved by CP-SAT for
  the objective, :mod:`opt_sched.exact.hpc_io.rigid`), as list policies;
- list policies: the jobs by a priority (FCFS ``r_i``; SPT ``T_i``; smallest
  area ``Q_i T_i``; LPT ``-T_i``; widest first ``-Q_i``; stretch deadlines
  ``r_i + k T_i`` for ``k`` in :data:`DEADLINE_FACTORS`; for the max flow
  stretch, ``deadline-bound``: ``r_i + x T_i`` with ``x`` the window's
  combinatorial bound, the order a schedule of max stretch ``x`` would meet
  its deadlines in), each strict (no job passes an earlier one), greedy
  (any job that fits starts), EASY (backfilling with the true lengths) and
  clairvoyant EASY (the head may be a job not released yet), the I/O
  served first come (a first try, :data:`FIRST_TRIES`, may name another
  rule);
- each of those again, best first while the time lasts (each distinct
  order, mode and I/O rule simulated once), with the I/O rules it has not
  run with: first come, the ``short-wait`` I/O rule (the
  shortest ready operation first, the node left idle for a short operation
  about to be ready) and the ``reserve`` rule (I/O backfilling: the
  operation of the best-ranked job first, another only if it ends before
  every better-ranked job's next operation is ready), all in
  :func:`opt_sched.exact.hpc_io.earliest.simulate`. All of them, not the
  first-come best few: the first come ranking is a poor guide to the
  others. On KTH-SP2 window 11968:40 (conservative, mean flow time) the
  first-come best (9,252 s) gives 7,925 s under ``reserve``, the second
  (9,299 s) 6,698 s; with the six first-come best only (the earlier rule),
  16 conservative windows of open max flow stretch lost their best list
  schedule on two (6572:40: 3.482 against 3.128, the bound; 17648:40: 3.885
  against 2.369). A 40-job window spends 2-4 s more on it (about 100 more
  simulations);
- a local search from the best of those, in its mode and I/O rule (for
  the max flow stretch from each of the :data:`LOCAL_SEARCH_STARTS` best,
  the time split evenly; :func:`_local_search`): for half the time, move a
  job to a random
  earlier rank (a seeded draw; how far it gets depends on the time), the
  job drawn with odds its delay over its completion alone (``C_i -
  ect_i``, :mod:`opt_sched.bounds_flow`), for the max flow stretch one of
  the three of largest stretch (:data:`STRETCH_MOVE_WEIGHTS`); then swap
  two neighbours in the priority order; a trial is kept if its
  :func:`search_key` drops (the objective, and for the max flow stretch
  the other stretches after it), until a pass finds nothing or the time
  is up.

The list policies stop once the schedule side's time is spent, the one
running then too (the left shift and one list policy always run, to their
end): on a window of a thousand jobs (FCFS's queue), one simulation takes
seconds. So the objective's own tries (:data:`FIRST_TRIES`: lists in
given modes and I/O rules) go first, and may take the local search's time
(there a search trial is one simulation), then every other list in every
mode.
:func:`best_heuristic` returns the best for one objective.
"""

from __future__ import annotations

import heapq
import math
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from ..bounds_flow import _jobs, max_flow_stretch_bounds
from ..exact.hpc_io.earliest import (
    MODES,
    Plan,
    Timing,
    orders_of,
    plans_of,
    simulate,
    to_schedule,
)
from ..schedule import Schedule
from .window_instance import Window

__all__ = ["DEADLINE_FACTORS", "FIRST_MODES", "FIRST_TRIES", "LOCAL_SEARCH_STARTS",
           "SECOND_IO_RULES", "STRETCH_MOVE_WEIGHTS", "Candidate", "best_heuristic",
           "list_label", "search_key", "timing_value"]

SECOND_IO_RULES = ("short-wait", "reserve")
"""The I/O rules (:data:`~opt_sched.exact.hpc_io.earliest.IO_RULES`) the
best list policies are run again with."""

FIRST_MODES = ("strict", "easy", "easy-ahead", "greedy")
"""The modes in the order :data:`FIRST_TRIES` names them after its leading
tries: on three FCFS windows EASY was below greedy for both SPT and the
smallest area first on each (six of six), strict the fastest (1.5 s against
2.3 s greedy and 5 s EASY a simulation on 1,134 jobs)."""

FIRST_TRIES: dict[str, tuple[tuple[str, str, str], ...]] = {
    "mean-flow-time": (
        ("spt", "easy", "fifo"), ("small-area", "strict", "fifo"),
        ("lp-alpha50", "easy", "fifo"),
        *((name, mode, "fifo") for mode in FIRST_MODES
          for name in ("spt", "small-area"))),
    "max-flow-stretch": tuple(("deadline-bound", mode, "fifo") for mode in FIRST_MODES),
    "makespan": (("widest", "greedy", "fifo"), ("lpt", "easy", "fifo"),
                 ("lpt", "easy", "short-wait"), ("lpt", "strict", "short-wait"),
                 ("lpt", "easy", "reserve"), ("widest", "greedy", "short-wait"),
                 ("lpt", "greedy", "fifo"), ("widest", "easy", "fifo")),
}
"""Per objective, the (priority list, mode, I/O rule) triples tried before
the others, in this order (a list absent from the window, e.g.
``lp-alpha50`` when its LP found no solution, is skipped; a triple is
simulated once): where a
thousand jobs are queued (FCFS windows of KTH-SP2) a simulation takes
seconds and only the first few run in the time. Measured there (mean flow
time; SPT, smallest area and the LP's alpha-points, strict and EASY, each
simulated to its end; seven windows of 307-2,034 jobs): SPT EASY is the
best list schedule on four, the smallest area first strictly on two, the
LP's alpha-50 order (its grid capped, :data:`~opt_sched.
bounds_window_tindex.ORDER_COLUMNS`) under EASY on one (5720:40, 748 jobs:
91,970 s against 109,161 for SPT EASY); SPT strictly, tried first before,
was the best on none (``docs/window-brackets-kth-sp2.md``). The makespan
(every list in every mode simulated to its end on five FCFS windows of
223-2,645 jobs): LPT under EASY is the best list schedule on four (on
5720:40, 748 jobs, 594,688 s against 664,551 for FCFS greedy, the first
list that ran before) but takes 13 s on 2,645 jobs; the widest first
greedily is the best there (3.5 s) and within 1.6-5.1 % of LPT EASY on
the others: these two go first. With the I/O rules too (six windows of
223-1,162 jobs), ``short-wait`` is the best rule on four: LPT strictly
with it (1.0-1.5 s a simulation) on two (6004:40: 625,169 s against
697,138 for LPT EASY first come), LPT EASY with it on two; LPT EASY with
``reserve`` on one (5720:40: 553,731 s), first come on one. Run first,
LPT strictly ``short-wait`` took the first-come lists' time: on 21 of the
101 FCFS windows the best schedule was worse on 6 (by up to 11 %) and
better on 9; after the two first-come tries, better on 8 and worse on 1
(8560:40, +8.5 %: the widest first EASY, now eighth, did not run). An
objective without an entry keeps the order of :func:`best_heuristic`."""

def list_label(name: str, mode: str, io_rule: str = "fifo") -> str:
    """The name of a list schedule in a candidate's ``name``:
    ``"spt-easy"`` (first-come I/O), ``"spt-easy-reserve"``."""
    return f"{name}-{mode}" if io_rule == "fifo" else f"{name}-{mode}-{io_rule}"


DEADLINE_FACTORS = (1, 3, 10, 30, 100, 300, 1000)
"""``k`` of the stretch-deadline priorities ``r_i + k T_i``: a job of
length ``T_i`` due when its flow stretch would reach ``k``."""


@dataclass(frozen=True)
class Candidate:
    """A schedule of the window, its objective value and how it was made."""

    name: str
    value: float
    schedule: Schedule


def timing_value(plans: Sequence[Plan], lengths: Sequence[float], timing: Timing,
                 objective: str) -> float:
    """The objective of a simulated schedule (as :func:`opt_sched.objectives.
    objective_value` computes it on the schedule)."""
    if objective == "makespan":
        return max(timing.completion)
    flows = [c - p.release for c, p in zip(timing.completion, plans)]
    if objective == "mean-flow-time":
        return math.fsum(flows) / len(flows)
    return max([1.0] + [f / t for f, t in zip(flows, lengths) if t > 0])


def search_key(plans: Sequence[Plan], lengths: Sequence[float], timing: Timing,
               objective: str) -> tuple[float, ...]:
    """What the local search minimises, compared lexicographically: the
    objective, and for the max flow stretch every job's stretch after it,
    largest first (leximax). The max alone is flat under most moves (a move
    that shortens the second largest stretch leaves it), so the search
    would stop on the first plateau; with the whole vector it keeps a move
    that lowers the largest stretch not yet at its floor."""
    value = timing_value(plans, lengths, timing, objective)
    if objective != "max-flow-stretch":
        return (value,)
    return (value, *sorted(_stretches(plans, lengths, timing), reverse=True))


def _stretches(plans: Sequence[Plan], lengths: Sequence[float],
               timing: Timing) -> list[float]:
    """Each job's flow stretch ``(C_i - r_i) / T_i`` (1 for a job of length 0)."""
    return [(c - p.release) / t if t > 0 else 1.0
            for c, p, t in zip(timing.completion, plans, lengths)]


def _better(key: tuple[float, ...], than: tuple[float, ...]) -> bool:
    """``key < than`` lexicographically, entries within a relative ``1e-9``
    counted equal (a float's noise never makes a move)."""
    for x, y in zip(key, than):
        tolerance = 1e-9 * max(1.0, abs(y))
        if x < y - tolerance:
            return True
        if x > y + tolerance:
            return False
    return False


LOCAL_SEARCH_STARTS: dict[str, int] = {"max-flow-stretch": 3}
"""Per objective, from how many of the best list schedules (each with its
order, mode and I/O rule) the local search starts, its time split evenly
(1 for an objective without an entry). The max flow stretch's local
optima differ by start: on KTH-SP2 window 9696:40 (conservative) the
search from the rigid relaxation's order (the best list there) stopped at
9.308, from SPT strict under ``short-wait`` at 9.0915, the bound 9.0914."""

STRETCH_MOVE_WEIGHTS = (8, 1, 1)
"""Max flow stretch: the odds that the local search moves the job of the
largest, second and third largest stretch (the others are never drawn)."""


def _move_weights(window: Window, objective: str, plans: Sequence[Plan],
                  lengths: Sequence[float]) -> Callable[[Timing], list[float]]:
    """The odds of each job, in a schedule's timing, to be moved to an
    earlier rank: for the max flow stretch :data:`STRETCH_MOVE_WEIGHTS` on
    the jobs of the largest stretches (the objective is theirs); otherwise
    the job's delay over its completion alone, ``C_i - ect_i``."""
    if objective == "max-flow-stretch":
        def by_stretch(timing: Timing) -> list[float]:
            stretch = _stretches(plans, lengths, timing)
            top = heapq.nlargest(len(STRETCH_MOVE_WEIGHTS), range(len(stretch)),
                                 key=stretch.__getitem__)
            weights = [0.0] * len(stretch)
            for i, w in zip(top, STRETCH_MOVE_WEIGHTS):
                weights[i] = float(w)
            return weights
        return by_stretch
    ect = [job.ect for job in _jobs(window.instance, window.reservations)]
    return lambda timing: [max(0.0, c - e) + 1e-9
                           for c, e in zip(timing.completion, ect)]


def _local_search(simulate_order: Callable[[list[int], float], Timing | None],
                  order: list[int], timing: Timing, objective: str,
                  plans: Sequence[Plan], lengths: Sequence[float],
                  weights: Callable[[Timing], list[float]], seconds: float
                  ) -> tuple[list[int], Timing, tuple[float, ...], int, int]:
    """The local search of :func:`best_heuristic` from ``order`` (simulated
    as ``timing``), for ``seconds``: half the time moves (a job drawn with
    the odds ``weights(timing)``, :func:`_move_weights`, to a random earlier
    rank, a seeded draw), then neighbour swaps until a pass finds nothing; a
    trial is kept if its :func:`search_key` is smaller.
    ``simulate_order(order, deadline)`` is ``None`` for a trial stopped at
    ``deadline``. Returns the order, its timing, its key and the counts of
    moves and swaps kept."""
    n = len(order)
    stop = time.perf_counter() + seconds
    halfway = time.perf_counter() + seconds / 2
    key = search_key(plans, lengths, timing, objective)
    rng = random.Random(0)
    moves = swaps = 0

    def keep(trial: list[int]) -> bool:
        nonlocal order, timing, key
        trial_timing = simulate_order(trial, stop)
        if trial_timing is None:
            return False
        trial_key = search_key(plans, lengths, trial_timing, objective)
        if not _better(trial_key, key):
            return False
        order, timing, key = trial, trial_timing, trial_key
        return True

    while time.perf_counter() < halfway:
        i = rng.choices(range(n), weights=weights(timing))[0]
        k = order.index(i)
        if k == 0:
            continue
        trial = list(order)
        trial.insert(rng.randrange(k), trial.pop(k))
        moves += keep(trial)
    improved = True
    while improved and time.perf_counter() < stop:
        improved = False
        for k in range(n - 1):
            if time.perf_counter() >= stop:
                break
            trial = list(order)
            trial[k], trial[k + 1] = trial[k + 1], trial[k]
            if keep(trial):
                improved = True
                swaps += 1
    return order, timing, key, moves, swaps


def _priorities(window: Window, lengths: Sequence[float],
                stretch_bound: float | None = None
                ) -> dict[str, Callable[[int], tuple]]:
    """The list policies' priorities by name (module doc); with
    ``stretch_bound`` (a lower bound ``x`` of the max flow stretch) also
    ``deadline-bound``, the jobs by the deadline ``r_i + x T_i`` they meet
    in a schedule of max stretch ``x``."""
    jobs = window.instance.jobs
    out: dict[str, Callable[[int], tuple]] = {
        "fcfs": lambda i: (jobs[i].release, i),
        "spt": lambda i: (lengths[i], jobs[i].release, i),
        "small-area": lambda i: (jobs[i].nodes * lengths[i], i),
        "lpt": lambda i: (-lengths[i], i),
        "widest": lambda i: (-jobs[i].nodes, -lengths[i], i),
    }
    for k in DEADLINE_FACTORS:
        out[f"deadline-{k}"] = lambda i, k=k: (jobs[i].release + k * lengths[i], i)
    if stretch_bound is not None:
        x = stretch_bound
        out["deadline-bound"] = lambda i: (jobs[i].release + x * lengths[i], i)
    return out


def _stretch_bound(window: Window, until: float) -> float:
    """The best combinatorial lower bound of the window's max flow stretch
    (:func:`opt_sched.bounds_flow.max_flow_stretch_bounds`: ``alone``, then
    ``deadline-bisection`` unless ``time.perf_counter()`` passes ``until``;
    0.3-0.4 s on FCFS windows of 1,000-2,000 jobs, 0.01 s on 40)."""
    bounds = max_flow_stretch_bounds(window.instance, reservations=window.reservations,
                                     expired=lambda: time.perf_counter() > until)
    return max(bounds.values())


def best_heuristic(window: Window, objective: str, *, search_seconds: float = 2.0,
                   list_seconds: float = math.inf,
                   orders: Mapping[str, Sequence[int]] | None = None) -> Candidate:
    """The best candidate schedule of ``window`` for ``objective`` (module
    doc). ``list_seconds``: no list policy is started once this much time
    has passed since the call, and one still running then is dropped (the
    online left shift and one list policy always run, to their end), so a
    window of a thousand jobs, where one simulation takes seconds, keeps
    its time limit (but the objective's first tries, :data:`FIRST_TRIES`,
    may run on into the local search's time, which then has what is left:
    but for the list that always runs, lists and search end within
    ``list_seconds + search_seconds``);
    ``search_seconds``: the local search's time (a trial still running at
    its end is dropped too); ``orders``: more priority
    lists by name (job indices, e.g. the rigid relaxation's,
    :mod:`opt_sched.exact.hpc_io.rigid`), tried first, like the list
    policies."""
    began = time.perf_counter()
    instance, res = window.instance, window.reservations
    plans = plans_of(instance)
    capacity = instance.platform.partitions[0].nodes
    lengths = [job.length(instance.bandwidth_of(job)) for job in instance.jobs]
    n = len(plans)

    def run(order: Sequence[int], io_order=None, mode: str = "strict",
            io_rule: str = "fifo", deadline: float = math.inf):
        timing = simulate(plans, capacity, res, order, io_order, mode=mode,
                          io_rule=io_rule, deadline=deadline)
        if timing is None:
            return math.inf, None
        return timing_value(plans, lengths, timing, objective), timing

    online = window.schedule
    starts = [online[job.id].start for job in instance.jobs]
    ops = [[online[job.id].io_starts[j] for j, v in enumerate(job.io_volume) if v > 0]
           for job in instance.jobs]
    order, io_order = orders_of(starts, ops)
    value, timing = run(order, io_order)
    # every schedule simulated: (name, value, timing, order, mode, I/O rule)
    pool = [("online-left-shift", value, timing, order, "strict", "fifo")]
    lists_end = began + list_seconds  # a simulation still running then stops
    tried = []
    ranked_lists = {name: list(given) for name, given in (orders or {}).items()}
    for name, ranked in ranked_lists.items():
        if sorted(ranked) != list(range(n)):
            raise ValueError(f"orders[{name!r}] is not an order of the {n} jobs")
    stretch_bound = (_stretch_bound(window, lists_end)
                     if objective == "max-flow-stretch" else None)
    ranked_lists.update({name: sorted(range(n), key=key) for name, key
                         in _priorities(window, lengths, stretch_bound).items()})
    first_tries = [try_ for try_ in FIRST_TRIES.get(objective, ())
                   if try_[0] in ranked_lists]
    attempts = first_tries + [(name, mode, "fifo") for name in ranked_lists
                              for mode in MODES]
    tries_end = lists_end + search_seconds  # the first tries' end (docstring)
    simulated = set()  # priorities often agree (SPT and tight deadlines)

    def first_time(ranked: Sequence[int], mode: str, rule: str) -> bool:
        """Whether this list, mode and I/O rule were not simulated yet (now
        marked as simulated)."""
        key = (tuple(ranked), mode, rule)
        fresh = key not in simulated
        simulated.add(key)
        return fresh

    for k, (name, mode, rule) in enumerate(attempts):
        ranked = ranked_lists[name]
        end = tries_end if k < len(first_tries) else lists_end
        # one list schedule at least, whatever the time (beside the left
        # shift, whose orders may be far from any good one)
        listed = any(math.isfinite(x[0]) for x in tried)
        if listed and time.perf_counter() >= end:
            break
        if not first_time(ranked, mode, rule):
            continue
        value, timing = run(ranked, None, mode, rule,
                            deadline=end if listed else math.inf)
        tried.append((value, name, ranked, mode))
        pool.append((list_label(name, mode, rule), value, timing, ranked, mode, rule))
    # every list again under the I/O rules it has not run with, best first
    # (module doc)
    second = [(name, ranked, mode, rule)
              for _, name, ranked, mode in sorted(tried, key=lambda x: x[0])
              for rule in ("fifo", *SECOND_IO_RULES)]
    for name, ranked, mode, rule in second:
        if time.perf_counter() - began >= list_seconds:
            break
        if not first_time(ranked, mode, rule):
            continue
        value, timing = run(ranked, None, mode, rule, lists_end)
        pool.append((list_label(name, mode, rule), value, timing, ranked, mode, rule))
    finished = [c for c in pool if c[2] is not None]
    if not finished:  # pragma: no cover - the left shift never deadlocks
        raise RuntimeError("no heuristic schedule of the window")
    keyed = sorted(((search_key(plans, lengths, c[2], objective), c) for c in finished),
                   key=lambda kc: kc[0])
    starts = keyed[:LOCAL_SEARCH_STARTS.get(objective, 1)] if n > 1 else []
    weights = _move_weights(window, objective, plans, lengths)
    # (key, name, timing) of each searched schedule, or the best list one
    best_key, (best_name, _, best_timing, *_) = keyed[0]
    results = [] if starts else [(best_key, best_name, best_timing)]
    search_seconds = min(search_seconds, max(0.0, tries_end - time.perf_counter()))
    for _, (name, _, timing, order, mode, io_rule) in starts:
        order, timing, key, moves, swaps = _local_search(
            lambda trial, stop, mode=mode, io_rule=io_rule:
                run(trial, None, mode, io_rule, stop)[1],
            list(order), timing, objective, plans, lengths, weights,
            search_seconds / len(starts))
        name += f"+{moves}-moves" if moves else ""
        name += f"+{swaps}-swaps" if swaps else ""
        results.append((key, name, timing))
    _, name, timing = min(results, key=lambda r: r[0])
    value = timing_value(plans, lengths, timing, objective)
    return Candidate(name, value, to_schedule(instance, timing, f"window/{name}"))
