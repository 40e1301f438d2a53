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
  ``r_i + k T_i`` for ``k`` in :data:`DEADLINE_FACTORS`), each strict (no
  job passes an earlier one), greedy (any job that fits starts), EASY
  (backfilling with the true lengths) and clairvoyant EASY (the head may
  be a job not released yet), the I/O served first come;
- the six best of those (:data:`SECOND_ROUND_SIZE`; each distinct order
  and mode simulated once) again with the ``short-wait`` I/O rule (the
  shortest ready operation first, the node left idle for a short operation
  about to be ready) and with the ``reserve`` rule (I/O backfilling: the
  operation of the best-ranked job first, another only if it ends before
  every better-ranked job's next operation is ready), both in
  :func:`opt_sched.exact.hpc_io.earliest.simulate`;
- a local search from the best of those, in its mode: for half the time,
  move a job drawn with odds its delay over its completion alone
  (``C_i - ect_i``, :mod:`opt_sched.bounds_flow`) to a random earlier rank
  (a seeded draw; how far it gets depends on the time); then swap two
  neighbours in the priority order; a move is kept if the objective drops,
  until a pass finds nothing or the time is up.

The list policies stop once the schedule side's time is spent, the one
running then too (the left shift and one list policy always run, to their
end): on a window of a thousand jobs (FCFS's queue), one simulation takes
seconds. So the objective's own lists (:data:`FIRST_LISTS`) go first, all
their modes before the other lists. :func:`best_heuristic` returns the best
for one objective.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from ..bounds_flow import _jobs
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

__all__ = ["DEADLINE_FACTORS", "FIRST_LISTS", "FIRST_MODES", "SECOND_IO_RULES",
           "Candidate", "best_heuristic", "timing_value"]

SECOND_IO_RULES = ("short-wait", "reserve")
"""The I/O rules (:data:`~opt_sched.exact.hpc_io.earliest.IO_RULES`) the
best list policies are run again with."""

SECOND_ROUND_SIZE = 6
"""How many of the best list policies (I/O first come) are run again with
each of :data:`SECOND_IO_RULES`. The first come ranking is a poor guide to
the others: on KTH-SP2 window 11968:40 (conservative, mean flow time) the
first-come best (9,252 s) gives 7,925 s under ``reserve``, the second
(9,299 s) 6,698 s."""

FIRST_LISTS: dict[str, tuple[str, ...]] = {
    "mean-flow-time": ("spt", "small-area"),
}
"""Per objective, the priority lists (names of :func:`_priorities`) tried
before the others, every mode of the first before the next mode of any:
where a thousand jobs are queued (FCFS windows of KTH-SP2) a simulation
takes seconds and only the first few lists run in the time. Measured there
(mean flow time, three windows): ``small-area`` strict or ``spt`` EASY is
the best list schedule on each, and with them first the window's best
schedule at 15 s is 26-42 % lower than with the earlier order, which spent
its time on the rigid relaxation's order in its four modes. An objective
without an entry keeps the order of :func:`best_heuristic`."""

FIRST_MODES = ("strict", "easy", "easy-ahead", "greedy")
"""The modes of :data:`FIRST_LISTS`, in the order they are tried: on those
three windows EASY was below greedy for both lists on each (six of six),
strict the fastest (1.5 s against 2.3 s greedy and 5 s EASY a simulation
on 1,134 jobs)."""

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


def _priorities(window: Window, lengths: Sequence[float]
                ) -> dict[str, Callable[[int], tuple]]:
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
    return out


def best_heuristic(window: Window, objective: str, *, search_seconds: float = 2.0,
                   list_seconds: float = math.inf,
                   orders: Mapping[str, Sequence[int]] | None = None) -> Candidate:
    """The best candidate schedule of ``window`` for ``objective`` (module
    doc). ``list_seconds``: no list policy is started once this much time
    has passed since the call, and one still running then is dropped (the
    online left shift and one list policy always run, to their end), so a
    window of a thousand jobs, where one simulation takes seconds, keeps
    its time limit; ``search_seconds``: the local search's time (a trial
    still running at its end is dropped too); ``orders``: more priority
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
    best = ("online-left-shift", value, timing, order, "strict", "fifo")
    lists_end = began + list_seconds  # a simulation still running then stops
    tried = []
    ranked_lists = {name: list(given) for name, given in (orders or {}).items()}
    for name, ranked in ranked_lists.items():
        if sorted(ranked) != list(range(n)):
            raise ValueError(f"orders[{name!r}] is not an order of the {n} jobs")
    ranked_lists.update({name: sorted(range(n), key=key)
                         for name, key in _priorities(window, lengths).items()})
    first = [name for name in FIRST_LISTS.get(objective, ()) if name in ranked_lists]
    attempts = [(name, mode) for mode in FIRST_MODES for name in first]
    attempts += [(name, mode) for name in ranked_lists if name not in first
                 for mode in MODES]
    simulated = set()  # priorities often agree (SPT and tight deadlines)
    for name, mode in attempts:
        ranked = ranked_lists[name]
        # one list schedule at least, whatever the time (beside the left
        # shift, whose orders may be far from any good one)
        listed = any(math.isfinite(x[0]) for x in tried)
        if listed and time.perf_counter() - began >= list_seconds:
            break
        if (tuple(ranked), mode) in simulated:
            continue
        simulated.add((tuple(ranked), mode))
        value, timing = run(ranked, None, mode,
                            deadline=lists_end if listed else math.inf)
        tried.append((value, f"{name}-{mode}", ranked, mode))
        if value < best[1]:
            best = (f"{name}-{mode}", value, timing, ranked, mode, "fifo")
    ranked_first = sorted(tried, key=lambda x: x[0])[:SECOND_ROUND_SIZE]
    for _, label, ranked, mode in ranked_first:
        for rule in SECOND_IO_RULES:
            if time.perf_counter() - began >= list_seconds:
                break
            value, timing = run(ranked, None, mode, rule, lists_end)
            if value < best[1]:
                best = (f"{label}-{rule}", value, timing, ranked, mode, rule)
    name, value, timing, order, mode, io_rule = best
    stop = time.perf_counter() + search_seconds
    # moves: a job that waited, weighted by its wait, to an earlier rank
    rng = random.Random(0)
    alone = [job.ect for job in _jobs(instance, res)]
    moves = 0
    halfway = time.perf_counter() + search_seconds / 2
    while timing is not None and n > 1 and time.perf_counter() < halfway:
        waits = [max(0.0, c - e) + 1e-9 for c, e in zip(timing.completion, alone)]
        i = rng.choices(range(n), weights=waits)[0]
        k = order.index(i)
        if k == 0:
            continue
        trial = list(order)
        trial.insert(rng.randrange(k), trial.pop(k))
        trial_value, trial_timing = run(trial, None, mode, io_rule, stop)
        if trial_value < value - 1e-9 * max(1.0, abs(value)):
            order, value, timing = trial, trial_value, trial_timing
            moves += 1
    if moves:
        name += f"+{moves}-moves"
    improved = True
    swaps = 0
    while improved and time.perf_counter() < stop:
        improved = False
        for k in range(n - 1):
            if time.perf_counter() >= stop:
                break
            trial = list(order)
            trial[k], trial[k + 1] = trial[k + 1], trial[k]
            trial_value, trial_timing = run(trial, None, mode, io_rule, stop)
            if trial_value < value - 1e-9 * max(1.0, abs(value)):
                order, value, timing = trial, trial_value, trial_timing
                improved = True
                swaps += 1
    if swaps:
        name += f"+{swaps}-swaps"
    if timing is None:  # pragma: no cover - the left shift never deadlocks
        raise RuntimeError("no heuristic schedule of the window")
    return Candidate(name, value, to_schedule(instance, timing, f"window/{name}"))
