"""The relative gap of a value to a lower bound, never negative by rounding.

.. math:: \\text{gap}(x, L) = \\frac{x - L}{L} \\qquad (L > 0,\\ \\text{SPEC §7})

A value below its proven bound is impossible; when float rounding puts it
there (a makespan summed in another order than the bound), the difference
is at most :data:`GAP_TOLERANCE` relative to ``L`` and the gap is 0. A
larger shortfall is a bug (a bound that is not one, or a schedule that
breaks a rule) and raises :class:`~opt_sched.errors.BoundViolationError`.

This is the one place experiments compute a gap (``compare``, ``gap``, the
ICS 2020 reproduction). The exact layer is adding
``opt_sched/objectives.py`` with its own ``relative_gap``; when it lands,
this function should become an import of that one.
"""

from __future__ import annotations

import math

from ..errors import BoundViolationError

__all__ = ["GAP_TOLERANCE", "relative_gap"]

GAP_TOLERANCE = 1e-9
"""Relative shortfall ``(L - x) / L`` still read as rounding (gap 0)."""


def relative_gap(value: float | None, bound: float | None, *,
                 tolerance: float = GAP_TOLERANCE) -> float:
    """``(value - bound) / bound``, clamped at 0 within ``tolerance``.

    Returns NaN when either is missing (None or NaN) or ``bound <= 0``
    (the gap is undefined), and for an infinite value or bound.

    Raises
    ------
    BoundViolationError
        ``value < bound * (1 - tolerance)``: the bound is above a value.

    Examples
    --------
    >>> relative_gap(12.0, 10.0)
    0.2
    >>> relative_gap(10.0 - 4e-13, 10.0)
    0.0
    """
    if value is None or bound is None:
        return math.nan
    value, bound = float(value), float(bound)
    if not (math.isfinite(value) and math.isfinite(bound)) or bound <= 0:
        return math.nan
    if value >= bound:
        return (value - bound) / bound
    if bound - value <= tolerance * bound:
        return 0.0
    raise BoundViolationError(f"lower bound {bound!r} exceeds the value {value!r} "
                              f"by {(bound - value) / bound:.3g} relative (tolerance "
                              f"{tolerance:g})")
