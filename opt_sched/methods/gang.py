"""Seed 004's gang schedulers as registry methods (on a gang workload).

Specs::

    gs                          gang scheduling, best-fit row (seed 004 §3.4)
    iogs(mpl=5,quantum=200)     only rows where all the job's file nodes are free
    adaptive-iogs               IOGS, otherwise GS; local jobs filled first
    migrate-iogs(Q=64,C=20)     Adaptive-IOGS plus migration onto file nodes:
                                at most Q tasks per slice, C seconds each move

The "instance" of these methods is a
:class:`~opt_sched.gang.workload.GangWorkload` with file nodes (the campaign
generators ``jann`` and ``gang-kth``, :mod:`opt_sched.campaign.sources`), not
an HPC :class:`~opt_sched.instance.Instance`: time-sliced gang scheduling
does not fit the space-sharing model (:mod:`opt_sched.gang`). ``build``
runs :func:`~opt_sched.gang.simulate_gang` and returns the generic
:class:`~opt_sched.schedule.Schedule` form of the record
(``execution="serverless-gang"``); callers validate it with
:func:`~opt_sched.gang.validate_gang` and measure it with
:func:`~opt_sched.gang.experiments.measure_schedule` (the campaign does both
in :func:`opt_sched.campaign.execute.run_task`). The methods are
deterministic (the seed is unused) and run under their own execution model
only.

Parameters (all four): ``mpl`` (rows of the Ousterhout matrix, default 5)
and ``quantum`` (the slice ``T`` in seconds, default 200); Migrate-IOGS
also ``Q`` (tasks migrated per slice, an integer >= 0, default 64) and
``C`` (seconds per migration, >= 0, default 20). ``migrate-iogs(Q=0)`` is
Adaptive-IOGS exactly.
"""

from __future__ import annotations

import math
from typing import Any

from ..errors import OptionError
from .entries import Method, MethodEntry
from .params import Param, integer_at_least, positive_int, positive_number

__all__ = ["ADAPTIVE_IOGS", "GANG_METHODS", "GS", "IOGS", "MIGRATE_IOGS",
           "gang_reason"]


def _seconds(text: str) -> float:
    """A finite number ``>= 0``."""
    try:
        value = float(text)
    except ValueError:
        raise ValueError("is not a number") from None
    if not math.isfinite(value) or value < 0:
        raise ValueError("must be a finite number >= 0")
    return value


MPL = Param("mpl", positive_int, 5, doc="multiprogramming level: rows of the "
                                        "Ousterhout matrix")
QUANTUM = Param("quantum", positive_number(), 200.0, doc="the time slice T (s)")
BUDGET = Param("Q", integer_at_least(0), 64,
               doc="migration budget: tasks migrated per slice")
COST = Param("C", _seconds, 20.0, doc="migration cost: stall of a migrated job (s)")


def gang_reason(instance: Any, what: str) -> str | None:
    """Why ``what`` cannot schedule ``instance``, or None: it needs a gang
    workload whose jobs have file nodes."""
    from ..gang.workload import GangWorkload

    if not isinstance(instance, GangWorkload):
        return (f"{what} schedules a gang workload (generators jann, gang-kth; "
                f"opt-sched generate --protocol jann), not {instance.name!r}")
    if instance.file_nodes is None:
        return (f"{what}: gang workload {instance.name!r} has no file nodes (draw "
                f"them with a placement)")
    return None


def _gang_entry(name: str, summary: str, params: tuple[Param, ...]) -> MethodEntry:
    def _supports(instance: Any, method: Method) -> str | None:
        return gang_reason(instance, name)

    def _build(instance: Any, method: Method, seed: int, *, execution: Any) -> Any:
        from ..execution import ExecutionSpec
        from ..gang import simulate_gang

        if execution != ExecutionSpec():
            raise OptionError(f"method {method.spec}: runs under its own "
                              f"serverless-gang model, not {execution.label}")
        options: dict[str, Any] = {"mpl": method.arg("mpl"),
                                   "quantum": method.arg("quantum")}
        if any(p.name == "Q" for p in params):
            options["migration_budget"] = method.arg("Q")
            options["migration_cost"] = method.arg("C")
        return simulate_gang(instance, name, **options).to_schedule()

    return MethodEntry(name=name, summary=summary, build=_build, params=params,
                       supports=_supports, policy=False, executes=True,
                       workload="gang")


GS = _gang_entry("gs", "seed 004's gang scheduling: FCFS, best-fit row, columns "
                       "free in the most rows", (MPL, QUANTUM))
IOGS = _gang_entry("iogs", "seed 004's I/O-aware gang scheduling: only rows where "
                           "all the job's file nodes are free", (MPL, QUANTUM))
ADAPTIVE_IOGS = _gang_entry(
    "adaptive-iogs", "seed 004's Adaptive-IOGS: IOGS, otherwise GS; local jobs "
                     "filled first", (MPL, QUANTUM))
MIGRATE_IOGS = _gang_entry(
    "migrate-iogs", "seed 004's Migrate-IOGS: Adaptive-IOGS moving remote jobs "
                    "onto their file nodes (Q tasks per slice, C s each)",
    (MPL, QUANTUM, BUDGET, COST))

GANG_METHODS = (GS, IOGS, ADAPTIVE_IOGS, MIGRATE_IOGS)
"""The four, in the seed's order."""
