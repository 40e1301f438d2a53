"""The stretch objective of the CP-SAT scheduling models, written once for
max stretch (:mod:`.base`, span ``C_i - S_i``) and max flow stretch
(:mod:`.flow`, flow ``C_i - R_i``).

Ticks as in :mod:`.common`: ``L_i = floor(T_i / tick)``. Minimise ``rho``
(units of ``1 / SCALE``) with

.. math:: SCALE \\cdot (C_i - O_i) \\le \\rho \\, L_i \\qquad (L_i > 0),

``O_i`` the job's origin (its start ``S_i``, or its release ``R_i``). A
proven model bound ``B`` gives the continuous bound

.. math:: \\rho^* \\ge \\max\\Big(1, \\min_{T_i > 0}
          \\frac{(B - 1) L_i \\, tick / SCALE - E}{T_i}\\Big),

``E`` the rounding error of what one path of the model can add to a span
(``models/io-sched-cpsat.md`` and ``models/max-flow-stretch.md``, "Time
scaling").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["stretch_bound", "stretch_objective"]


def stretch_objective(model: Any, low: int, origin: Sequence[Any], name: str) -> None:
    """The objective variable ``rho`` (named ``name``) of a
    :class:`~.base.CpsatModel` and its constraints (module doc): its domain
    starts at ``low`` and ends at the best warm value (else ``SCALE`` times
    the horizon)."""
    cp, data = model.model, model.data
    high = model.upper if model.upper is not None else \
        model.scale * max(1, model.horizon)
    low = min(low, high)
    model.obj_low = low
    model.obj = cp.new_int_var(low, high, name)
    for i in range(model.n):
        if data.length_ticks[i] > 0:
            cp.add(model.scale * (model.completion[i] - origin[i])
                   <= model.obj * data.length_ticks[i])


def stretch_bound(model: Any, bound: int, error: float) -> float:
    """The continuous bound of a proven model bound ``bound`` with rounding
    error ``error`` (module doc)."""
    data = model.data
    tick = data.grid.tick
    rho = (bound - 1) / model.scale
    values = [(rho * data.length_ticks[i] * tick - error) / data.length[i]
              for i in range(model.n) if data.length[i] > 0]
    return max(1.0, min(values, default=1.0))
