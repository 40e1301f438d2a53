"""Schedules for HPC-IO with releases on a partly reserved partition, found
with CP-SAT as a guide (the upper side of a window's bracket,
``models/window-gap.md``).

Why not a model rounded up. Rounding lengths up keeps a model's schedules
feasible without reservations; with them, the reserved I/O intervals must
be enlarged too (``[floor(a), ceil(e))``), and a phase that fitted a gap
between two of them exactly no longer fits. On trace windows this is the
common case: the jobs of one I/O profile have identical phases, and a
running job's periodic I/O leaves gaps exactly one phase long (KTH-SP2
window 25000:40: gaps and phases of 0.015127 s). Such a model starts from
an incumbent ~18 % worse than the schedule it was built from.

So the search runs on the *rounded-down* relaxation of :mod:`.reserved`
(every continuous schedule, floored, is a solution: the hint -- the best
heuristic schedule, floored -- is one), and its answer is not taken as
times: the solution's orders (job starts, I/O order) are simulated at the
true lengths with the true reservations (:func:`.earliest.simulate`,
strict; if the orders deadlock, greedy with the job order as priority and
the I/O first come). The simulation makes the schedule feasible by
construction, whatever the rounding; the exact layer's backend
(:mod:`.reserved_backend`, the schedule side of ``hpc-io-reserved``) keeps
it only if it beats the hint, and certification validates it with the
reservations.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ...instance import Instance
from ...objectives import FLOW_OBJECTIVES, check_objective, objective_value
from ...reservations import Reservations
from ...schedule import Schedule
from ..cpsat.common import Retimed
from ..cpsat.interrupt import run_solver
from ..cpsat.settings import HpcIoCpsatSettings
from ..deadline import Deadline, OutOfTimeError
from .earliest import Timing, orders_of, plans_of, simulate, to_schedule
from .reserved import ReservedHpcIo, _choose_tick, floored_window

__all__ = ["ReservedGuide", "ReservedSearch", "reserved_search", "simulate_orders"]


@dataclasses.dataclass(frozen=True)
class ReservedSearch:
    """What the search found: a schedule (``None`` if CP-SAT found no
    solution) and the search's details."""

    schedule: Schedule | None
    info: dict[str, Any]


class ReservedGuide(ReservedHpcIo):
    """The rounded-down reserved model with a complete hint (the incumbent's
    starts, completions, operation starts, job interval sizes and the
    objective), so that CP-SAT takes it as its first solution."""

    problem = "hpc-io-reserved-guide"

    def _hint(self, structure: Any, times: Retimed) -> None:
        super()._hint(structure, times)
        for i, interval in enumerate(self.job_interval):
            size = interval.size_expr()
            if not isinstance(size, int) and hasattr(size, "index"):
                self.model.add_hint(size, int(times.completion[i] - times.start[i]))
        self.model.add_hint(self.obj, self._model_value(times))


def simulate_orders(instance: Instance, reservations: Reservations,
                    start: list[float], op_start: list[list[float]]) -> Timing:
    """The orders of ``(start, op_start)`` simulated at the true lengths
    (module doc): strict, or greedy if they deadlock."""
    plans = plans_of(instance)
    capacity = instance.platform.partitions[0].nodes
    order, io_order = orders_of(start, op_start)
    timing = simulate(plans, capacity, reservations, order, io_order)
    if timing is None:
        timing = simulate(plans, capacity, reservations, order, None, mode="greedy")
    if timing is None:  # pragma: no cover - greedy list scheduling ends
        raise RuntimeError("the greedy simulation deadlocked (a bug)")
    return timing


def reserved_search(instance: Instance, reservations: Reservations, objective: str,
                    hint: Schedule, *, time_limit: float = 30.0,
                    num_workers: int = 2, seed: int = 0,
                    deadline: Deadline | None = None) -> ReservedSearch:
    """CP-SAT on the rounded-down model, hinted with ``hint`` (a feasible
    schedule that respects the reservations); the solution's orders
    simulated at the true lengths (module doc). ``deadline``: the clock to
    draw on (the exact layer's backend, :mod:`.reserved_backend`, passes
    its solve's); default ``Deadline(time_limit)`` from the call."""
    check_objective(objective, ("makespan", *FLOW_OBJECTIVES))
    from ortools.sat.python import cp_model

    if deadline is None:
        deadline = Deadline(time_limit)
    settings = HpcIoCpsatSettings(time_limit=time_limit, num_workers=num_workers,
                                  seed=seed, warm=False, hints=True,
                                  lower_bounding=False)
    try:
        # MAX_TICKS for every objective: the finer grid of the max flow
        # stretch's bound (its conversion, not its search, needs it) cost the
        # search its schedules (KTH-SP2 10548:40, conservative: the optimum
        # in 11 s at 10^8 ticks, nothing better than the hint at 10^10)
        tick = _choose_tick(instance, reservations, hint, None)
        data, settings, held, incumbent = floored_window(
            instance, reservations, hint, tick, settings, objective)
        model = ReservedGuide(data, objective, settings, held,
                              lower_bound=0.0, incumbent=incumbent,
                              deadline=deadline)
    except OutOfTimeError as exc:
        return ReservedSearch(None, {"stopped": str(exc)})
    solver = model._make_solver(max(0.05, deadline.remaining()), {})
    status = run_solver(solver, model.model)
    info: dict[str, Any] = {"tick": tick, "status": solver.status_name(status),
                            "model_incumbent": model.upper,
                            "branches": solver.num_branches}
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return ReservedSearch(None, info)
    info["model_objective"] = solver.objective_value
    starts = [solver.value(s) * tick for s in model.start]
    ops = [[solver.value(s) * tick for s in row] for row in model.op_start]
    timing = simulate_orders(instance, reservations, starts, ops)
    schedule = to_schedule(instance, timing, f"cpsat/{ReservedGuide.problem}")
    info["value"] = objective_value(instance, schedule, objective)
    return ReservedSearch(schedule, info)
