"""The MIP start as a witness: a point known to lie in a model refutes a
solver's "infeasible".

CBC 2.10.3 can report a feasible model infeasible when its time limit stops
it early (coin-or/python-mip#17 describes the same verdict; it happened here
on a 1 s run of CBC after a crash with the MIP start). A backend's verdict is
a claim; the MIP start, checked row by row, is a proof. So
:func:`~opt_sched.exact.milp.backend.solve_milp` keeps the start
(:func:`start_of`) before the solver overwrites the variables' values, and
when the verdict is "infeasible" checks it (:func:`satisfies`): a start that
satisfies every bound, integrality and row turns the verdict into "no solution
within the limit", and the callers fall back on the start, as they do when a
solver drops it.

A point :math:`x` satisfies the model when, with the tolerance
:math:`\\varepsilon_r = 10^{-6}(1 + \\sum_j |a_{rj} x_j| + |b_r|)` of each
row :math:`r` (relative, since the models hold big-M rows),

.. math::
    \\ell_j - \\varepsilon \\le x_j \\le u_j + \\varepsilon, \\qquad
    |x_j - \\operatorname{round}(x_j)| \\le \\varepsilon \\ (j \\text{ integer}),
    \\qquad a_r^\\top x + b_r \\;\\{\\le, =, \\ge\\}\\; 0 \\pm \\varepsilon_r .
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["TOLERANCE", "satisfies", "start_of"]

TOLERANCE = 1e-6
"""Relative tolerance of every check (PuLP's models hold rounded floats)."""


def start_of(prob: Any) -> dict[str, float] | None:
    """The values every variable of ``prob`` holds now (its MIP start), by
    name, or ``None`` if some variable holds none."""
    point: dict[str, float] = {}
    for var in prob.variables():
        if var.varValue is None:
            return None
        point[var.name] = float(var.varValue)
    return point


def satisfies(prob: Any, point: Mapping[str, float]) -> bool:
    """Whether ``point`` (values by variable name) lies in ``prob``: bounds,
    integrality and every row, within the tolerances of the module doc."""
    for var in prob.variables():
        value = point.get(var.name)
        if value is None:
            return False
        low, up = var.lowBound, var.upBound
        if low is not None and value < low - TOLERANCE * (1 + abs(low)):
            return False
        if up is not None and value > up + TOLERANCE * (1 + abs(up)):
            return False
        if var.cat == "Integer" and abs(value - round(value)) > TOLERANCE:
            return False
    return all(_row_holds(row, point) for row in prob.constraints.values())


def _row_holds(row: Any, point: Mapping[str, float]) -> bool:
    """``row`` (a :class:`pulp.LpConstraint`: :math:`a^\\top x + b` compared
    with 0 by its ``sense``, -1 for ``<=``, 0 for ``=``, 1 for ``>=``) at
    ``point``."""
    terms = [coef * point[var.name] for var, coef in row.items()]
    value = sum(terms) + row.constant
    slack = TOLERANCE * (1 + sum(abs(t) for t in terms) + abs(row.constant))
    if row.sense == 0:
        return abs(value) <= slack
    return value * row.sense >= -slack
