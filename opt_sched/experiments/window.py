"""The window bracket: an online schedule against the best clairvoyant
schedule found and a lower bound for every clairvoyant schedule of a window
(issue 10, item 7; issue 27).

For a window (:func:`~.window_instance.extract_window`: by default the jobs
queued when job ``start`` arrives plus the next arrivals, ``count`` jobs; the
running jobs' nodes and I/O reserved), each objective gets

- ``online``: the replayed schedule's value on the window's jobs, times from
  the window start ``t0`` (releases ``max(r_i - t0, 0)``): makespan
  ``max_{i in W} C_i``, max flow stretch ``max (C_i - r_i) / T_i``, mean
  flow time ``(1/|W|) sum (C_i - r_i)``;
- ``best_found``: the best real schedule of the window found
  (:func:`best_schedule`: list policies and a local search on an earliest
  schedule simulator, then CP-SAT as a guide), validated with the running
  jobs; ``best_found <= online`` (the online schedule is a candidate);
- ``lower_bound`` (also ``bound``): the largest of the combinatorial bounds
  that see the reservations (:mod:`opt_sched.bounds_flow`; for the makespan
  also the bounds of :mod:`opt_sched.bounds`, which hold without them) and
  the bound CP-SAT proves on the rounded-down relaxation
  (:mod:`opt_sched.exact.hpc_io.reserved`). CP-SAT's search and bound run
  through the exact layer's one front door, :func:`opt_sched.exact.solve`
  on the problem ``hpc-io-reserved``
  (:mod:`opt_sched.exact.hpc_io.reserved_backend`), the window as its
  reserved platform: certification validates their schedule with the
  running jobs (:meth:`Window.validate`) and checks the bound against its
  value;
- the bracket: the policy is at least ``at_least = (online - best_found) /
  best_found`` and at most ``at_most = gap = (online - bound) / bound`` above
  the optimum (SPEC §7); ``width = at_most - at_least``.

The window schedule is validated together with the running jobs (rules 1-5:
:meth:`Window.validate`, the one validation that certification also calls),
and a bound above the validated online value or a schedule found raises
:class:`~opt_sched.errors.BoundViolationError` (:func:`~opt_sched.objectives.
relative_gap`): the same check as the exact layer's certification. What the
bound assumes: ``models/window-gap.md``.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from ..exact.progress import report
from ..instance import Instance
from ..objectives import objective_value, relative_gap
from ..schedule import Schedule
from .window_instance import Window, extract_window
from .window_schedules import best_heuristic

if TYPE_CHECKING:
    from ..exact.hpc_io.rigid import RigidRelaxation

__all__ = ["BOUND_SEARCH", "RIGID_SECONDS", "RIGID_SHARE", "WINDOW_OBJECTIVES",
           "WINDOW_PROBLEM", "best_schedule", "rigid_for",
           "window_bounds", "window_gap"]

WINDOW_PROBLEM = "hpc-io-reserved"
"""The exact problem of a window (:mod:`opt_sched.exact.registry`)."""

BOUND_SEARCH = {"ladder_growth": 2.0, "incumbent_question_share": 0.0}
"""How CP-SAT's questions climb from the combinatorial bound on a window
(:mod:`opt_sched.exact.cpsat.search`): on a trace window that bound is often
10-30 % below the best schedule while CP-SAT refutes each question in a
fraction of a second, so the climbs gallop (each refutation doubles the
next jump, :meth:`~opt_sched.exact.cpsat.probing.ObjectiveProbe.ladder`),
and the bisection skips its opening question "is the incumbent optimal?",
which took half of its time and was never answered on the ten widest
KTH-SP2 makespan windows (``models/window-gap.md``)."""

WINDOW_OBJECTIVES = ("makespan", "max-flow-stretch", "mean-flow-time")
"""The objectives of the window gap, in report order."""


RIGID_SHARE = 0.2
"""The share of a side's time (at most :data:`RIGID_SECONDS`) that CP-SAT
gets on the rigid relaxation (:mod:`opt_sched.exact.hpc_io.rigid`): its
order for the schedule side, its bound for the makespan."""

RIGID_SECONDS = 5.0
"""The most seconds CP-SAT gets on the rigid relaxation: on the ten widest
KTH-SP2 makespan windows, the two where its bound was the best closed in
0.1 s (``models/rigid-relaxation.md``)."""

ENERGETIC_SHARE = 0.1
"""The share of a max-flow-stretch bound's time for the energetic deadline
tests (:func:`~opt_sched.bounds_window.energetic_stretch_bound`): a few
milliseconds on 40 jobs, but ``O(n^3)`` per test, minutes on a window of a
thousand queued jobs (FCFS)."""

TINDEX_SHARE = 0.2
"""The share of the bound side's time (at most :data:`TINDEX_SECONDS`) for
the start-indexed programme (:mod:`opt_sched.bounds_window_tindex`): the
mean flow time's LP bound, taken before the interval LP, and the max flow
stretch's deadline tests."""

TINDEX_SECONDS = 5.0
"""The most seconds of that programme: at 400 cells its LP is solved in
0.3-0.6 s on 40-job KTH-SP2 windows; the count rows, or the bisection of
the deadline tests, take the rest (``models/time-indexed-lp.md``)."""

MIP_SHARE = 0.33
"""The share of the mean flow time's bound side (at most
:data:`MIP_SECONDS`) for the start-indexed programme as a MIP
(:func:`opt_sched.bounds_window_tindex.time_indexed_mip_bound`), taken
from what CP-SAT's bound would get: on the 101 KTH-SP2 windows of the last
release CP-SAT's mean-flow bound was the best on 14 (EASY), by at most
1 %."""

MIP_SECONDS = 10.0
"""The most seconds of that MIP (100 cells take 2-4 s on 40-job KTH-SP2
windows, 200 cells 5-15 s)."""

LANES_SHARE = 0.1
"""The share of the mean flow time's bound side (at most
:data:`LANES_SECONDS`) for the two-lane programme
(:func:`opt_sched.bounds_window_lanes.lanes_mean_flow_bound`)."""

LANES_SECONDS = 3.0
"""The most seconds of the two-lane programme: on KTH-SP2 window 11968:40
it tries every candidate in 0.6 s, its best group the first one."""

LP_ORDER_SHARE = 0.1
"""The share of the schedule side's time (at most :data:`LP_ORDER_SECONDS`)
for the start-indexed LP whose alpha-points are priority lists of the mean
flow time (:func:`opt_sched.bounds_window_tindex.start_orders`)."""

LP_ORDER_SECONDS = 2.0
"""The most seconds of that LP: on the KTH-SP2 windows of
``models/time-indexed-lp.md`` it is solved at 400 cells in 0.3-0.6 s."""

LOCAL_SEARCH_TIME: dict[str, tuple[float, float]] = {
    "mean-flow-time": (12.0, 0.4),
    "max-flow-stretch": (4.5, 0.3),
}
"""Per objective, the local search's time on the schedule side (most
seconds, share of the side's time); ``(2.0, 0.1)`` for an objective without
an entry. The mean flow time: CP-SAT's guided search rarely beats the
local search (issue 27). The max flow stretch: the search starts from
three lists (:data:`~.window_schedules.LOCAL_SEARCH_STARTS`), 1.5 s each
at 15 s, the time it took on KTH-SP2 window 11684:40 (conservative) to
reach the bound."""


def rigid_for(window: Window, objective: str, incumbent: Schedule, *,
              time_limit: float, num_workers: int = 2, seed: int = 0
              ) -> RigidRelaxation:
    """The rigid relaxation of ``window`` for ``objective``, hinted with
    ``incumbent`` (a feasible schedule, whose makespan is the grid's
    horizon), for ``min(RIGID_SECONDS, RIGID_SHARE * time_limit)``."""
    from ..exact.hpc_io.rigid import rigid_relaxation

    horizon = objective_value(window.instance, incumbent, "makespan")
    return rigid_relaxation(window.instance, window.reservations, objective,
                            horizon=horizon, hint=incumbent,
                            time_limit=min(RIGID_SECONDS, RIGID_SHARE * time_limit),
                            num_workers=num_workers, seed=seed)


def window_bounds(window: Window, objective: str, *, time_limit: float = 30.0,
                  num_workers: int = 2, seed: int = 0,
                  execution: object = None, incumbent: Schedule | None = None,
                  relaxation: RigidRelaxation | None = None) -> dict[str, Any]:
    """The lower bounds of ``objective`` on ``window``: the combinatorial
    ones by name, CP-SAT's, and the best (``bound``, ``source``).

    Only the bounds that hold under ``execution`` (default: the window
    schedule's model; :mod:`opt_sched.bound_models`) are used: the reserved
    ones and CP-SAT's under ``exclusive`` only. With none, ``bound`` and
    ``source`` are ``None`` and ``bound_note`` says why. ``incumbent``: a
    feasible schedule of the window (default the online one), CP-SAT's
    incumbent. ``relaxation``: the rigid relaxation already solved for
    ``objective`` (:func:`best_schedule` returns it; its bound counts for
    the makespan and the mean flow time); without it, the makespan solves
    it here (:func:`rigid_for`).

    One clock for the side (:class:`~opt_sched.exact.deadline.Deadline`):
    each bound gets its share of ``time_limit`` (and at most its seconds),
    never more than the clock has left, and CP-SAT the rest (at least
    0.1 s), so the side ends within ``time_limit`` plus that floor and the
    last call's own overrun.
    """
    from ..bound_models import (
        exact_bound_holds,
        flow_bounds_under,
        holds,
        makespan_bounds_under,
        no_bound_note,
    )
    from ..bounds_window_lanes import HOLDS_UNDER as LANES_HOLDS_UNDER
    from ..bounds_window_tindex import HOLDS_UNDER as TINDEX_HOLDS_UNDER
    from ..exact import solve
    from ..exact.deadline import Deadline
    from ..exact.hpc_io.rigid import HOLDS_UNDER as RIGID_HOLDS_UNDER

    clock = Deadline(time_limit)

    def bound_seconds(most: float, share: float) -> float:
        """A bound's time: ``share`` of the side's, at most ``most`` and
        what the clock has left (0.05 s at least)."""
        return max(0.05, min(most, share * time_limit, clock.remaining()))

    if execution is None:
        execution = window.schedule.execution
    instance, reservations = window.instance, window.reservations
    bounds = dict(flow_bounds_under(instance, objective, execution,
                                    reservations=reservations))
    if objective == "makespan":
        for name, value in makespan_bounds_under(instance, execution).items():
            bounds[f"free-{name}"] = value
    if not bounds or not exact_bound_holds(execution):
        return {"bound": max(bounds.values(), default=None),
                "source": max(bounds, key=bounds.__getitem__, default=None),
                "combinatorial": max(bounds.values(), default=None),
                "cpsat": None, "cpsat_closed": False, "cpsat_seconds": 0.0,
                "bounds": bounds, "cpsat_info": {},
                "bound_note": None if bounds else no_bound_note(execution)}
    if objective == "mean-flow-time":
        from ..bounds_window import (
            beside_knapsack_and_job,
            exclusive_mean_flow_bound,
            split_mean_flow_bound,
        )

        bounds.update(split_mean_flow_bound(instance, reservations=reservations,
                                            time_limit=bound_seconds(2.0, 0.05)))
        bounds.update(exclusive_mean_flow_bound(instance, reservations=reservations))
        knapsack, branch_job = beside_knapsack_and_job(
            instance, reservations=reservations, time_limit=bound_seconds(2.0, 0.05))
        bounds.update(knapsack)
        from ..bound_models import interval_lp_holds
        from ..bounds_window_lp import interval_lp_mean_flow_bound
        from ..bounds_window_tindex import time_indexed_mean_flow_bound

        # where the LPs' grids end: resolution only, any value is valid
        horizon = objective_value(instance, incumbent if incumbent is not None
                                  else window.schedule, "makespan")
        if holds(TINDEX_HOLDS_UNDER, "time-indexed-lp", execution):
            # each job's length as the running jobs' I/O stretches it from
            # each start (models/time-indexed-lp.md)
            bounds.update(time_indexed_mean_flow_bound(
                instance, reservations=reservations, horizon=horizon,
                time_limit=bound_seconds(TINDEX_SECONDS, TINDEX_SHARE)))
        if holds(TINDEX_HOLDS_UNDER, "time-indexed-mip", execution):
            # the same programme with x binary: HiGHS's dual bound
            from ..bounds_window_tindex import time_indexed_mip_bound

            bounds.update(time_indexed_mip_bound(
                instance, reservations=reservations, horizon=horizon,
                time_limit=bound_seconds(MIP_SECONDS, MIP_SHARE)))
        if holds(LANES_HOLDS_UNDER, "lanes", execution):
            # the I/O interference of a few jobs, exactly
            # (models/mean-flow-lanes.md)
            from ..bounds_window_lanes import lanes_mean_flow_bound

            bounds.update(lanes_mean_flow_bound(
                instance, reservations=reservations,
                time_limit=bound_seconds(LANES_SECONDS, LANES_SHARE),
                incumbent=incumbent))
        if interval_lp_holds(execution):
            bounds.update(interval_lp_mean_flow_bound(
                instance, reservations=reservations, horizon=horizon,
                time_limit=bound_seconds(10.0, 0.5)))
            lp_bound = bounds.get("interval-lp", -float("inf"))
            if branch_job is not None and bounds["beside-knapsack"] >= lp_bound:
                # the knapsack's job branched on: per completion interval the
                # larger of the knapsack and the LP (models/mean-flow-lp.md);
                # only where the knapsack is the better bound (elsewhere its
                # intervals are too weak to lift within the time)
                from functools import partial

                from ..bounds_window import beside_completion_bounds
                from ..bounds_window_lp import branched_lp_mean_flow_bound

                bounds.update(branched_lp_mean_flow_bound(
                    instance, branch_job, reservations=reservations,
                    horizon=horizon,
                    floors=partial(beside_completion_bounds, instance, branch_job,
                                   reservations=reservations),
                    time_limit=bound_seconds(5.0, 0.15)))
        if relaxation is not None and relaxation.objective == objective \
                and relaxation.bound is not None \
                and holds(RIGID_HOLDS_UNDER, "rigid-cumulative", execution):
            # the schedule side's rigid relaxation, solved for this objective:
            # its proven bound comes free (models/rigid-relaxation.md)
            bounds["rigid-cumulative"] = relaxation.bound
    if objective == "max-flow-stretch":
        from ..bounds_window import energetic_stretch_bound, exclusive_stretch_bound

        upper = objective_value(instance, incumbent if incumbent is not None
                                else window.schedule, objective)
        bounds.update(exclusive_stretch_bound(instance, max(bounds.values()), upper,
                                              reservations=reservations))
        bounds.update(energetic_stretch_bound(
            instance, max(bounds.values()), upper, reservations=reservations,
            time_limit=bound_seconds(time_limit, ENERGETIC_SHARE)))
        if holds(TINDEX_HOLDS_UNDER, "time-indexed-edf", execution):
            # deadline tests on the start-indexed programme, each job as long
            # as the running jobs' I/O makes it (models/time-indexed-lp.md)
            from ..bounds_window_tindex import time_indexed_stretch_bound

            bounds.update(time_indexed_stretch_bound(
                instance, max(bounds.values()), upper, reservations=reservations,
                time_limit=bound_seconds(TINDEX_SECONDS, TINDEX_SHARE)))
    if objective == "makespan" and holds(RIGID_HOLDS_UNDER, "rigid-cumulative",
                                         execution):
        if relaxation is None or relaxation.objective != objective:
            relaxation = rigid_for(window, objective, incumbent if incumbent is not None
                                   else window.schedule,
                                   time_limit=max(0.1, clock.remaining()),
                                   num_workers=num_workers, seed=seed)
        if relaxation.bound is not None:
            bounds["rigid-cumulative"] = relaxation.bound
    combinatorial = max(bounds.values())
    started = time.perf_counter()
    # the bound side of the exact problem: certified (the incumbent validated
    # with the running jobs, the bound checked against its value)
    report(objective, restart=True)  # names the progress lines of this solve
    result = solve(instance, WINDOW_PROBLEM, objective, "cpsat",
                   time_limit=max(0.1, clock.remaining()), num_workers=num_workers,
                   seed=seed, reserved=window, known_bound=combinatorial,
                   search_share=0.0,
                   incumbent=incumbent if incumbent is not None else window.schedule,
                   **BOUND_SEARCH)
    seconds = time.perf_counter() - started
    cpsat = result.info.get("reserved_bound", combinatorial)
    bounds["cpsat"] = cpsat
    source = max(bounds, key=bounds.__getitem__)
    return {"bound": bounds[source], "source": source,
            "combinatorial": combinatorial, "cpsat": cpsat,
            "cpsat_closed": bool(result.info.get("closed", False)),
            "cpsat_seconds": seconds, "bounds": bounds,
            "cpsat_info": result.info.get("bound_info", result.info),
            "bound_note": None}


def best_schedule(window: Window, objective: str, *, time_limit: float = 15.0,
                  num_workers: int = 2, seed: int = 0) -> dict[str, Any]:
    """The best schedule found for ``objective`` on ``window`` (the bracket's
    upper side): the best heuristic (:func:`~.window_schedules.
    best_heuristic`, the online schedule's left shift and the rigid
    relaxation's order for ``objective`` (:func:`rigid_for`) among them), then
    CP-SAT on the rounded-down model hinted with it, its orders simulated at
    the true lengths (the schedule side of :func:`opt_sched.exact.solve` on
    ``hpc-io-reserved``, :func:`opt_sched.exact.hpc_io.reserved_search.
    reserved_search`, certified), and the online schedule itself. Every
    candidate is validated with the running jobs (rules 1-5) before it
    counts: the heuristic's here, CP-SAT's by certification.

    Returns ``best_found`` (value), ``schedule``, ``found_by``,
    ``heuristic`` (value and name), ``cpsat_schedule`` (value or ``None``),
    ``search_info``, ``rigid`` (the relaxation's status and seconds) and
    ``relaxation`` (:class:`~opt_sched.exact.hpc_io.rigid.RigidRelaxation`,
    for :func:`window_bounds`).
    """
    from ..exact import solve

    started = time.perf_counter()
    instance = window.instance
    relaxation = rigid_for(window, objective, window.schedule, time_limit=time_limit,
                           num_workers=num_workers, seed=seed)
    orders = {"rigid": relaxation.order} if relaxation.order else {}
    if objective == "mean-flow-time":
        # the start-indexed LP's alpha-points (models/time-indexed-lp.md)
        from ..bounds_window_tindex import start_orders

        orders.update(start_orders(
            instance, reservations=window.reservations,
            horizon=objective_value(instance, window.schedule, "makespan"),
            time_limit=min(LP_ORDER_SECONDS, LP_ORDER_SHARE * time_limit)))
    most, share = LOCAL_SEARCH_TIME.get(objective, (2.0, 0.1))
    local = min(most, share * time_limit)
    # the lists stop in time for the local search to end with the side
    heuristic = best_heuristic(
        window, objective, search_seconds=local,
        list_seconds=max(0.0, time_limit - local - (time.perf_counter() - started)),
        orders=orders or None)
    window.validate(heuristic.schedule)
    heuristic_value = objective_value(instance, heuristic.schedule, objective)
    left = max(0.05, time_limit - (time.perf_counter() - started))
    # the schedule side of the exact problem: the search hinted with the
    # heuristic; its schedule replaces the heuristic's only if strictly
    # better, and certification validates whichever it returns
    report(objective, restart=True)
    search = solve(instance, WINDOW_PROBLEM, objective, "cpsat", time_limit=left,
                   num_workers=num_workers, seed=seed, reserved=window,
                   incumbent=heuristic.schedule, search_share=1.0)
    candidates = [("online", window.schedule),
                  (heuristic.name, heuristic.schedule)]
    cpsat_value = search.info.get("search_value")
    if search.schedule is not None and search.info.get("found_by") == "cpsat":
        candidates.append(("cpsat", search.schedule))
    values = [(objective_value(instance, sch, objective), k)
              for k, (_, sch) in enumerate(candidates)]
    value, k = min(values)
    return {"best_found": value, "schedule": candidates[k][1],
            "found_by": candidates[k][0],
            "heuristic": {"name": heuristic.name, "value": heuristic_value},
            "cpsat_schedule": cpsat_value,
            "search_info": search.info.get("search", search.info),
            "rigid": {"status": relaxation.status, "seconds": relaxation.seconds},
            "relaxation": relaxation,
            "search_seconds": time.perf_counter() - started}


def window_gap(instance: Instance, schedule: Schedule, start: int, count: int,
               time_limit: float = 30.0, *, objectives: tuple[str, ...] =
               WINDOW_OBJECTIVES, num_workers: int = 2, seed: int = 0,
               validate: bool = True, mode: str = "state",
               bracket: bool = True) -> dict[str, Any]:
    """Online value, best schedule found, lower bound and the bracket of
    each objective on a window.

    Parameters
    ----------
    instance, schedule
        The replayed instance and its online schedule (exclusive I/O, one
        partition, no killed job in the window or running at its start).
    start, count
        The window (:func:`~.window_instance.extract_window`): by default
        (``mode="state"``) the jobs queued at ``t0 = r_start`` plus the next
        arrivals, ``count`` jobs; ``mode="consecutive"``: jobs ``start ..
        start + count - 1``.
    time_limit
        Seconds per objective: half for the schedule search (with
        ``bracket``), the rest for the CP-SAT bound.
    validate
        Check the online window schedule with the running jobs (rules 1-5);
        the bracket's schedules are always checked.
    bracket
        Search schedules (the upper side); without it only the bound.

    Returns
    -------
    dict
        ``window`` (where, ``t0``, the running jobs, the queued jobs,
        reserved nodes and I/O) and ``objectives``: per objective
        ``online``, ``best_found`` (a validated schedule's value, at most
        ``online``), ``lower_bound`` (also ``bound``), ``gap`` (``(online -
        bound) / bound``), ``at_least`` (``(online - best_found) /
        best_found``) and ``at_most`` (``gap``): the policy is at least
        ``at_least`` and at most ``at_most`` above the optimum; ``width``
        (``at_most - at_least``), ``found_by``, ``source`` (which bound is
        the best), ``combinatorial``, ``cpsat``, ``cpsat_closed``,
        ``bounds`` (every bound by name).

    Raises
    ------
    OptionError
        A window that does not fit (:func:`extract_window`).
    InfeasibleScheduleError
        A window schedule breaks a rule (a bug of the replay, of the
        extraction or of a schedule search).
    BoundViolationError
        A bound above the online value or a schedule found (a bug of a
        bound).
    """
    window = extract_window(instance, schedule, start, count, mode=mode)
    if validate:
        window.validate()
    out: dict[str, Any] = {}
    for objective in objectives:
        online = objective_value(window.instance, window.schedule, objective)
        upper: dict[str, Any] = {"best_found": None}
        incumbent = window.schedule
        relaxation = None
        bound_time = time_limit
        if bracket:
            upper = best_schedule(window, objective, time_limit=time_limit / 2,
                                  num_workers=num_workers, seed=seed)
            incumbent = upper.pop("schedule")
            relaxation = upper.pop("relaxation")
            bound_time = max(0.1, time_limit - upper["search_seconds"])
        found = window_bounds(window, objective, time_limit=bound_time,
                              num_workers=num_workers, seed=seed,
                              incumbent=incumbent, relaxation=relaxation)
        gap = relative_gap(online, found["bound"])
        best = upper["best_found"]
        relative_gap(best, found["bound"])  # a bound above a schedule: a bug
        at_least = relative_gap(online, best)
        # bound <= best_found, so at_most >= at_least up to the tolerance
        width = None if gap is None or at_least is None else \
            max(0.0, gap - at_least)
        out[objective] = {"online": online, "best_found": best,
                          "lower_bound": found["bound"], "gap": gap,
                          "at_least": at_least, "at_most": gap, "width": width,
                          **upper, **found}
    return {"window": {"instance": instance.name, "start": start, "count": count,
                       "t0": window.t0, **window.info,
                       "validated": bool(validate)},
            "objectives": out}
