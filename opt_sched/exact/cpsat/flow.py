"""The flow objectives in the CP-SAT scheduling models (``models/
max-flow-stretch.md``, ``models/mean-flow-time.md``).

Ticks as in :mod:`.common`: ``C_i`` completion, ``R_i = ceil(r_i / tick)``
the release, ``L_i = floor(T_i / tick)``, ``E`` the rounding error one
precedence path collects (:meth:`CpsatModel.error_makespan`).

- **max flow stretch**: minimise ``rho`` (units of ``1 / SCALE``) with
  ``SCALE (C_i - R_i) <= rho L_i``; a proven model bound ``B`` gives
  ``rho* >= max(1, min_i ((B - 1) L_i tick / SCALE - E) / T_i)``;
- **mean flow time**: minimise ``z = sum_i C_i`` (the releases are
  constants); ``B`` gives ``(B tick - n E - sum_i r_i) / n``.

Both objectives are regular, so an optimal schedule has no global idle time
after ``max(last release, fixed starts)``: the horizon is that time plus every
job's serial length (its compute and I/O one after the other).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from .stretch import stretch_bound, stretch_objective

__all__ = ["flow_continuous_bound", "flow_horizon", "flow_model_value",
           "flow_objective"]


def flow_model_value(model: Any, completions: Sequence[float]) -> int:
    """The objective, in model units, of integer ``completions``."""
    data = model.data
    if model.objective_name == "mean-flow-time":
        return int(sum(int(c) for c in completions))
    value = _floor(model)
    for i, c in enumerate(completions):
        length = data.length_ticks[i]
        if length > 0:
            value = max(value, -(-model.scale * (int(c) - data.release[i]) // length))
    return int(value)


def _floor(model: Any) -> int:
    """The least flow stretch in model units: ``SCALE`` (a stretch is at
    least 1 in the rounded-up model, whose lengths are at least ``L_i``); a
    model may lower it (``flow_floor``)."""
    return int(getattr(model, "flow_floor", model.scale))


def flow_horizon(model: Any, latest: int, extra: int) -> int:
    """``max(latest release, fixed starts) + sum_i serial_i`` (module doc)."""
    data = model.data
    return int(max(latest, extra) + sum(data.serial_ticks(i)
                                        for i in range(model.n)))


def flow_low(model: Any) -> int:
    """The objective's lowest value from the combinatorial bound, in model
    units (rounded up: the rounded model only restricts the continuous one,
    so its optimum is not below it)."""
    data = model.data
    tick = data.grid.tick
    lower = model.continuous_lower
    if model.objective_name == "mean-flow-time":
        total = model.n * lower + math.fsum(job.release for job in data.instance.jobs)
        return max(0, math.ceil(total / tick - 1e-6))
    return max(_floor(model), math.ceil(model.scale * lower - 1e-6))


def flow_objective(model: Any, low: int | None = None) -> None:
    """The objective variable and its constraints (module doc); its domain
    starts at ``low`` (default :func:`flow_low`) and ends at the best warm
    value."""
    cp, data = model.model, model.data
    if low is None:
        low = flow_low(model)
    if model.objective_name == "mean-flow-time":
        high = model.upper if model.upper is not None else model.n * model.horizon
        low = min(low, high)
        model.obj_low = low
        model.obj = cp.new_int_var(low, high, "sum_completions")
        cp.add(model.obj == sum(model.completion))
        return
    stretch_objective(model, low, data.release, "rho_flow")


def flow_continuous_bound(model: Any, bound: int) -> float:
    """A valid bound of the continuous problem from a proven model bound
    (module doc; ``models/max-flow-stretch.md``, "Time scaling")."""
    data = model.data
    tick = data.grid.tick
    error = model.error_makespan()
    releases = math.fsum(job.release for job in data.instance.jobs)
    if model.objective_name == "mean-flow-time":
        return (bound * tick - model.n * error - releases) / model.n
    return stretch_bound(model, bound, error)
