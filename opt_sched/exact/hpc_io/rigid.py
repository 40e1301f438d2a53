r"""The rigid relaxation of a reserved window: every job a rectangle of
``Q_i`` nodes, at least ``T_i`` long, on the nodes the running jobs leave
(``models/rigid-relaxation.md``).

What a schedule of the window (SPEC §3, exclusive I/O, the running jobs'
node holds and I/O busy intervals) keeps when its I/O is forgotten:

1. job ``i`` holds its ``Q_i`` nodes on ``[S_i, C_i)``, with
   ``C_i - S_i >= T_i`` (its phases back to back; waiting only adds);
2. ``S_i >= est_i`` and ``C_i >= ect_i`` (:mod:`opt_sched.bounds_flow`:
   the earliest start with ``Q_i`` nodes free of the holds, and the
   completion alone from there, its I/O fitted between the busy
   intervals);
3. at any time the jobs running and the holds use at most ``P`` nodes.

Since ``C_i - S_i >= T_i``, the job holds its nodes on ``[C_i - T_i, C_i)``
too, which starts at ``max(est_i, ect_i - T_i)`` or later. The relaxation
is the integer programme on a grid of ``tick`` seconds, every time rounded
**down** (``down(x) = floor(x / tick) - 1``: one tick lower still, against
float noise):

.. math::
    s_i \ge down(\max(est_i, ect_i - T_i)), \qquad
    \textstyle\sum_{i:\, s_i \le t < s_i + down(T_i)} Q_i
    + \sum_{h:\, t < down(E_h)} q_h \le P \quad (t \in \mathbb{Z}),

with the holds ``(E_h, q_h)`` (nodes held on ``[0, E_h)``). Every schedule
maps into it: ``s_i = floor((C_i - T_i) / tick)``. At an integer ``t`` with
``s_i <= t < s_i + down(T_i)`` the job runs at the real time ``(t + 1 -
epsilon) tick`` (``C_i - T_i < (s_i + 1) tick <= (t + 1) tick`` and ``(t +
1) tick <= (s_i + down(T_i)) tick <= C_i``), the same instant for every
job, and a hold counted at ``t`` holds then too: the node row is the
schedule's at that instant. And ``(s_i + down(T_i)) tick <= C_i``. Hence
``tick * min max_i (s_i + down(T_i))`` is a lower bound of the makespan,
and so is CP-SAT's proven bound on it (:func:`rigid_relaxation`,
``bound``). The bound ignores the I/O node, which the other window bounds
see; it is strong where wide jobs cannot run beside each other or beside
the holds (KTH-SP2 window 608:40, EASY: 71,421 s, solved in 0.1 s, against
64,974 s that CP-SAT proves on the full model in 15 s).

**The mean flow time** (``e_i = s_i + down(T_i)``, minimise ``sum_i
e_i``): the same map gives ``e_i tick <= C_i``, so ``tick`` times CP-SAT's
proven bound on ``sum_i e_i`` is at most ``sum_i C_i`` for every schedule
the programme contains. The grid must then contain an optimal schedule,
whose completions have no horizon; with a feasible ``hint`` it does: a
schedule at least as good as the hint has ``C_i <= sum_j C_j(hint) -
sum_{j != i} ect_j`` (each ``C_j >= ect_j``), and ``s_i`` is capped there
(``ceil`` of it over ``tick``, plus two ticks). The bound is then ``(tick
* bound - sum_i r_i) / n``, rounded down; without a hint it is ``None``.
It ignores the I/O node, like the makespan's; it is the best window bound
where the wide jobs' packing decides the flows (KTH-SP2 window 9412:40,
EASY: 5,472 s in 5 s, against 5,300 s for CP-SAT on the full model).

For the max flow stretch the relaxation is solved for its **order** only
(``max_i (e_i - down(r_i)) / max(1, down(T_i))``). For every objective the
jobs sorted by ``s_i`` are a priority list for the window's schedule
simulator (:mod:`.earliest`), whose schedules are real and validated.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from ...bounds_flow import _jobs
from ...instance import Instance
from ...objectives import check_objective
from ...reservations import Reservations
from ...schedule import Schedule
from ..cpsat.interrupt import run_solver

__all__ = ["GRID_TICKS", "HOLDS_UNDER", "RigidRelaxation", "rigid_relaxation"]

GRID_TICKS = 10**6
"""Ticks of the relaxation's horizon: with a tick of ``horizon / 10^6`` the
rounding loses at most two ticks per time rounded down along a chain (a
hold's end, each length): under a second on a day-long window."""

HOLDS_UNDER: dict[str, frozenset[str]] = {
    "rigid-cumulative": frozenset({"exclusive"}),
}
"""Where the relaxation's bound holds: ``exclusive`` (``ect_i`` fits the I/O
between the busy intervals, which assumes one phase at a time), like every
window bound with reservations (``models/rigid-relaxation.md``)."""

_STRETCH_UNITS = 1000
"""The relaxed max flow stretch in thousandths (only its order is used)."""


@dataclass(frozen=True)
class RigidRelaxation:
    """What CP-SAT found on the relaxation.

    ``bound``: a lower bound of the makespan or of the mean flow time
    (seconds; module doc), ``None`` for the max flow stretch, without an
    answer, or for the mean flow time without a hint; ``order``: the job
    indices by relaxed start (ties by index), empty without a solution;
    ``status``: CP-SAT's; ``optimal``: the relaxation solved; ``tick``: the
    grid (seconds).
    """

    objective: str
    bound: float | None
    order: tuple[int, ...]
    status: str
    optimal: bool
    seconds: float
    tick: float


def _flow_caps(instance: Instance, jobs: list, hint: Schedule, tick: float
               ) -> list[int]:
    """The latest end, in ticks, of each job in a schedule whose total
    completion is at most ``hint``'s: ``ceil((sum_j C_j(hint) - sum_{j !=
    i} ect_j) / tick) + 2``."""
    total = math.fsum(hint[job.id].completion(job, instance.bandwidth_of(job))
                      for job in instance.jobs)
    alone = math.fsum(job.ect for job in jobs)
    return [math.ceil((total - (alone - job.ect)) / tick) + 2 for job in jobs]


def rigid_relaxation(instance: Instance, reservations: Reservations | None,
                     objective: str, *, horizon: float, time_limit: float,
                     hint: Schedule | None = None, num_workers: int = 2,
                     seed: int = 0) -> RigidRelaxation:
    """Solve the rigid relaxation (module doc) of ``instance`` for
    ``objective`` within ``time_limit`` seconds.

    Parameters
    ----------
    horizon
        The completion of a feasible schedule of the window (seconds from its
        start): every optimal makespan schedule ends by then, so the grid
        stops there (twice that for the other objectives, which only ask for
        an order); also sets the tick (:data:`GRID_TICKS`).
    hint
        A feasible schedule, floored, as CP-SAT's first solution; for the
        mean flow time also what caps the starts (module doc), without
        which no bound is given.
    """
    from ortools.sat.python import cp_model

    check_objective(objective)
    began = time.perf_counter()
    reservations = reservations if reservations is not None else Reservations()
    capacity = instance.platform.partitions[0].nodes
    tick = max(horizon, 1e-9) / GRID_TICKS

    def down(x: float) -> int:
        return max(0, math.floor(x / tick) - 1)

    jobs = _jobs(instance, reservations)
    last = (GRID_TICKS if objective == "makespan" else 2 * GRID_TICKS) + 2
    caps = _flow_caps(instance, jobs, hint, tick) \
        if objective == "mean-flow-time" and hint is not None else None
    model = cp_model.CpModel()
    starts, ends, intervals, demands = [], [], [], []
    for i, job in enumerate(jobs):
        length = down(job.length)
        earliest = down(max(job.est, job.ect - job.length))
        latest = last - length if caps is None else max(caps[i] - length, earliest)
        start = model.new_int_var(earliest, latest, f"s{i}")
        intervals.append(model.new_fixed_size_interval_var(start, length, f"job{i}"))
        end = start + length
        demands.append(instance.jobs[i].nodes)
        starts.append(start)
        ends.append(end)
    for end, nodes in reservations.node_holds:
        if down(end) > 0:
            intervals.append(model.new_fixed_size_interval_var(0, down(end), "hold"))
            demands.append(nodes)
    model.add_cumulative(intervals, demands, capacity)
    most = _STRETCH_UNITS if objective == "max-flow-stretch" else len(jobs)
    value = model.new_int_var(0, last * most, "value")
    if objective == "makespan":
        model.add_max_equality(value, ends)
    elif objective == "mean-flow-time":
        model.add(value == sum(ends))
    else:
        for job, end in zip(jobs, ends):
            released = down(job.release)
            model.add(_STRETCH_UNITS * (end - released)
                      <= value * max(1, down(job.length)))
    model.minimize(value)
    if hint is not None:
        for job, start in zip(instance.jobs, starts):
            model.add_hint(start, min(last, down(hint[job.id].start)))
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = max(0.01, float(time_limit))
    solver.parameters.num_workers = num_workers
    solver.parameters.random_seed = seed
    status = run_solver(solver, model)
    found = status in (cp_model.OPTIMAL, cp_model.FEASIBLE)
    bound = None
    if objective == "makespan" and found:
        # ticks * tick rounded to nearest: one step down keeps it a bound
        bound = math.nextafter(solver.best_objective_bound * tick, 0.0)
    elif caps is not None and found:
        total = math.nextafter(solver.best_objective_bound * tick, 0.0)
        released = math.fsum(job.release for job in jobs)
        bound = (total - released) / len(jobs) * (1.0 - 1e-12) - 1e-12
    order: tuple[int, ...] = ()
    if found:
        at = [solver.value(start) for start in starts]
        order = tuple(sorted(range(len(jobs)), key=lambda i: (at[i], i)))
    return RigidRelaxation(objective, bound, order, solver.status_name(status),
                           status == cp_model.OPTIMAL, time.perf_counter() - began,
                           tick)
