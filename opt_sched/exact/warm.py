"""Warm starts: the heuristic schedules the exact models start from.

A warm start gives a model an incumbent at once: an upper bound (the CP-SAT
horizon and objective domain, the MILP big-M deadlines), a solution hint,
and the answer the backend falls back on when its time runs out while it is
still building its model.

**The one list** is the method registry's: every registered method whose
entry lists the problem among its ``warm_starts``
(:func:`opt_sched.methods.warm_start_specs`); a new heuristic seeds the exact
models by declaring it there. A method is skipped only when it *declares*
that it does not support the instance; any error it raises otherwise is a
bug and propagates.
"""

from __future__ import annotations

import functools
from typing import Any

from ..instance import Instance
from ..objectives import objective_value
from ..schedule import Schedule
from ..simulation import OnePackPlan, simulate
from .deadline import Deadline

__all__ = ["best_schedule", "prepare", "stopped_outcome", "warm_methods",
           "warm_schedules"]


def warm_methods(instance: Instance, problem: str, *,
                 sensibility: float | None = None, io_nodes: int | None = None
                 ) -> list[Any]:
    """The registry methods (:class:`opt_sched.methods.Method`) whose
    schedules seed the models of ``problem`` on ``instance``, in order
    (:func:`opt_sched.methods.warm_start_specs`): for ``io-sched`` the
    one-pack schedule under each I/O policy (seed 003 §5.1); for ``hpc-io``
    and ``packs`` Make-Pack (``S = 1``, or ``sensibility`` when the pack
    model imposes Make-Pack's cap) and, without a cap, First-Fit, with LPT
    allocation on ``io_nodes`` partitions (seed 003 §6); ``planning`` has
    none here (its serial SGS works on the plan). Methods that do not
    support the instance are not listed."""
    from .. import methods

    out = []
    for spec in methods.warm_start_specs(instance, problem, sensibility):
        method = methods.method(spec)
        if io_nodes is not None and method.stage("allocation") is not None:
            method = method.with_stage_args("allocation", R=io_nodes)
        out.append(method)
    return out


def warm_schedules(instance: Instance, problem: str, *,
                   sensibility: float | None = None, io_nodes: int | None = None,
                   deadline: Deadline | None = None) -> list[tuple[str, Schedule]]:
    """``(spec, schedule)`` of every warm method of ``instance``, in the
    order of :func:`warm_methods`; once ``deadline`` has passed, the
    remaining ones are not run."""
    out: list[tuple[str, Schedule]] = []
    for method in warm_methods(instance, problem, sensibility=sensibility,
                               io_nodes=io_nodes):
        if deadline is not None and deadline.expired():
            break
        out.append((method.spec, method.run(instance)))
    return out


@functools.cache
def prepare() -> None:
    """One-time set-up of the simulator (loading its compiled kernel), before
    any time limit runs: simulate a one-job instance once per process."""
    from ..instance import Job, Platform

    tiny = Instance("warm-up", Platform.homogeneous(1, 1), (Job("a", 1, (1.0,),
                                                                 (1.0,)),))
    simulate(tiny, OnePackPlan(), "fifo")


def best_schedule(instance: Instance, schedules: list[tuple[str, Schedule]],
                  objective: str) -> tuple[str, Schedule] | None:
    """The schedule of smallest ``objective`` (the first on ties), or
    ``None``."""
    best = None
    for label, schedule in schedules:
        value = objective_value(instance, schedule, objective)
        if best is None or value < best[0]:
            best = (value, label, schedule)
    return None if best is None else (best[1], best[2])


def stopped_outcome(instance: Instance, schedules: list[tuple[str, Schedule]],
                    objective: str, reason: str, *, packs: bool = True) -> Any:
    """The answer of a backend whose time ran out before its model could
    answer: the best warm schedule (``FEASIBLE``; without its pack claim
    unless ``packs``), or none (``TIMEOUT_NO_SOLUTION``). ``reason`` goes to
    ``info["stopped"]``."""
    import dataclasses

    from .result import Outcome, SolveStatus

    best = best_schedule(instance, schedules, objective)
    if best is None:
        return Outcome(SolveStatus.TIMEOUT_NO_SOLUTION, info={"stopped": reason})
    label, schedule = best
    if not packs and schedule.packs is not None:
        schedule = dataclasses.replace(schedule, packs=None)
    return Outcome(SolveStatus.FEASIBLE, schedule,
                   info={"stopped": reason, "incumbent": label})
