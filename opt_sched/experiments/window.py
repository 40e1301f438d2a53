"""The window gap: an online schedule against a lower bound for every
clairvoyant schedule of a window of its jobs (issue 10, item 7).

For a window (:func:`~.window_instance.extract_window`: ``count`` consecutive
jobs from index ``start``, the running jobs' nodes and I/O reserved), each
objective gets

- ``online``: the replayed schedule's value on the window's jobs, times from
  the window's first release ``t0``: makespan ``max_{i in W} C_i - t0``,
  max flow stretch ``max (C_i - r_i) / T_i``, mean flow time
  ``(1/|W|) sum (C_i - r_i)``;
- ``bound``: the largest of the combinatorial bounds that see the
  reservations (:mod:`opt_sched.bounds_flow`; for the makespan also the
  bounds of :mod:`opt_sched.bounds`, which hold without them) and the bound
  CP-SAT proves within ``time_limit`` on the rounded-down relaxation
  (:mod:`opt_sched.exact.hpc_io.reserved`);
- ``gap``: ``(online - bound) / bound`` (SPEC §7).

The window schedule is validated together with the running jobs (rules 1-5),
and a bound above the validated online value raises
:class:`~opt_sched.errors.BoundViolationError` (:func:`~opt_sched.objectives.
relative_gap`): the same check as the exact layer's certification. What the
bound assumes: ``models/window-gap.md``.
"""

from __future__ import annotations

import time
from typing import Any

from ..instance import Instance
from ..objectives import objective_value, relative_gap
from ..schedule import Schedule
from .window_instance import Window, extract_window

__all__ = ["WINDOW_OBJECTIVES", "window_bounds", "window_gap"]

WINDOW_OBJECTIVES = ("makespan", "max-flow-stretch", "mean-flow-time")
"""The objectives of the window gap, in report order."""


def window_bounds(window: Window, objective: str, *, time_limit: float = 30.0,
                  num_workers: int = 2, seed: int = 0,
                  execution: object = None) -> dict[str, Any]:
    """The lower bounds of ``objective`` on ``window``: the combinatorial
    ones by name, CP-SAT's, and the best (``bound``, ``source``).

    Only the bounds that hold under ``execution`` (default: the window
    schedule's model; :mod:`opt_sched.bound_models`) are used: the reserved
    ones and CP-SAT's under ``exclusive`` only. With none, ``bound`` and
    ``source`` are ``None`` and ``bound_note`` says why.
    """
    from ..bound_models import (
        exact_bound_holds,
        flow_bounds_under,
        makespan_bounds_under,
        no_bound_note,
    )
    from ..exact.hpc_io.reserved import reserved_bound

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
    combinatorial = max(bounds.values())
    started = time.perf_counter()
    cpsat = reserved_bound(instance, reservations, objective, window.schedule,
                           lower_bound=combinatorial, time_limit=time_limit,
                           num_workers=num_workers, seed=seed)
    seconds = time.perf_counter() - started
    bounds["cpsat"] = cpsat.bound
    source = max(bounds, key=bounds.__getitem__)
    return {"bound": bounds[source], "source": source,
            "combinatorial": combinatorial, "cpsat": cpsat.bound,
            "cpsat_closed": cpsat.closed, "cpsat_seconds": seconds,
            "bounds": bounds, "cpsat_info": cpsat.info, "bound_note": None}


def window_gap(instance: Instance, schedule: Schedule, start: int, count: int,
               time_limit: float = 30.0, *, objectives: tuple[str, ...] =
               WINDOW_OBJECTIVES, num_workers: int = 2, seed: int = 0,
               validate: bool = True) -> dict[str, Any]:
    """Online value, lower bound and gap of each objective on a window.

    Parameters
    ----------
    instance, schedule
        The replayed instance and its online schedule (exclusive I/O, one
        partition, no killed job in the window or running at its start).
    start, count
        The window: jobs ``start .. start + count - 1`` in instance order.
    time_limit
        Seconds of each CP-SAT bound (one per objective).
    validate
        Check the window schedule with the running jobs (rules 1-5).

    Returns
    -------
    dict
        ``window`` (where, ``t0``, the running jobs, reserved nodes and I/O)
        and ``objectives``: per objective ``online``, ``bound``, ``gap``,
        ``source`` (which bound is the best), ``combinatorial``, ``cpsat``,
        ``cpsat_closed``, ``bounds`` (every bound by name).

    Raises
    ------
    OptionError
        A window that does not fit (:func:`extract_window`).
    InfeasibleScheduleError
        The window schedule breaks a rule (a bug of the replay or of the
        extraction).
    BoundViolationError
        A bound above the online value (a bug of a bound).
    """
    window = extract_window(instance, schedule, start, count)
    if validate:
        from ..validation import assert_feasible

        assert_feasible(*window.with_running())
    out: dict[str, Any] = {}
    for objective in objectives:
        online = objective_value(window.instance, window.schedule, objective)
        found = window_bounds(window, objective, time_limit=time_limit,
                              num_workers=num_workers, seed=seed)
        gap = relative_gap(online, found["bound"])
        out[objective] = {"online": online, "gap": gap, **found}
    return {"window": {"instance": instance.name, "start": start, "count": count,
                       "t0": window.t0, **window.info,
                       "validated": bool(validate)},
            "objectives": out}
