"""Objectives: their names, their value on a schedule, and the gap to a bound.

One place for what every layer (exact models, gap tables, comparisons)
needs to agree on:

- :data:`OBJECTIVES` -- the objective names (SPEC §4): ``"makespan"``
  (``C_max = max_i C_i``), ``"max-stretch"`` (``max_i (C_i - S_i) / T_i``),
  and for jobs with releases ``"max-flow-stretch"`` (``max_i (C_i - r_i) /
  T_i``, the max slowdown) and ``"mean-flow-time"`` (``(1/n) sum_i (C_i -
  r_i)``, the mean turnaround); :data:`BATCH_OBJECTIVES` are the first two,
  which every batch model supports;
- :func:`objective_value` -- the value of a schedule, always recomputed from
  its phase times on the continuous instance;
- :func:`relative_gap` -- the gap ``(x - L) / L`` of a value ``x`` against a
  lower bound ``L`` (SPEC §7), compared with the one tolerance below.

The tolerance. A value and a bound computed along different float paths
(a schedule's completions, a preemptive relaxation, a solver's bound
converted from ticks) may disagree in their last bits. They are *equal*
when

.. math:: |x - L| \\le \\varepsilon(L) = \\text{RTOL} \\cdot |L| + \\text{ATOL}

with ``RTOL = 1e-6`` and ``ATOL = 1e-12``. Then the gap is 0 and an exact
solve is optimal. ``x < L - eps(L)`` is a *bound violation*: a proven
lower bound above the value of a validated schedule can only be a bug
(:class:`~opt_sched.errors.BoundViolationError`). So a reported gap is never
negative through rounding (-4.2e-14 reads 0), and a wrong bound never
hides.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING

from .errors import BoundViolationError, OptionError

if TYPE_CHECKING:
    from .instance import Instance
    from .schedule import Schedule

__all__ = [
    "ATOL",
    "BATCH_OBJECTIVES",
    "FLOW_OBJECTIVES",
    "OBJECTIVES",
    "RTOL",
    "best_known",
    "bracket",
    "check_objective",
    "check_value_above_bound",
    "gap_or_nan",
    "meets_bound",
    "objective_value",
    "relative_gap",
    "tolerance",
]

BATCH_OBJECTIVES = ("makespan", "max-stretch")
"""The objectives of the batch models (IO-SCHED, packs): every job's span."""

FLOW_OBJECTIVES = ("max-flow-stretch", "mean-flow-time")
"""The objectives measured from the releases (SPEC §4, §9): max flow stretch
``max_i (C_i - r_i) / T_i`` and mean flow time ``(1/n) sum_i (C_i - r_i)``
(``models/max-flow-stretch.md``, ``models/mean-flow-time.md``)."""

OBJECTIVES = BATCH_OBJECTIVES + FLOW_OBJECTIVES
"""The objective names, in the order the command line offers them."""

RTOL = 1e-6
"""Relative part of the one value-versus-bound tolerance (module doc)."""

ATOL = 1e-12
"""Absolute part of the one value-versus-bound tolerance (module doc)."""


def check_objective(name: object, supported: tuple[str, ...] = OBJECTIVES) -> str:
    """``name`` if it is one of ``supported``, else a one-line
    :class:`OptionError` naming the valid ones."""
    if name not in supported:
        raise OptionError(f"objective={name!r} is not one of {', '.join(supported)}")
    return str(name)


def objective_value(instance: Instance, schedule: Schedule, name: str) -> float:
    """The objective ``name`` of ``schedule`` on ``instance``.

    ``"makespan"``: ``max_i C_i``; ``"max-stretch"``: ``max_i (C_i - S_i) /
    T_i(b_i)`` with ``b_i`` as in :meth:`Instance.bandwidth_of` (1 for a job
    of length 0), both from :class:`Schedule`; ``"max-flow-stretch"``:
    ``max_i (C_i - r_i) / T_i(b_i)`` (a job of length 0 counts 1);
    ``"mean-flow-time"``: ``(1/n) sum_i (C_i - r_i)``. The schedule is not
    judged here (see :mod:`opt_sched.validation`).
    """
    check_objective(name)
    if name == "makespan":
        return float(schedule.makespan(instance))
    if name == "max-stretch":
        return float(schedule.max_stretch(instance))
    completions = schedule.completions(instance)
    flows = [completions[job.id] - job.release for job in instance.jobs]
    if name == "mean-flow-time":
        return math.fsum(flows) / len(flows)
    value = 1.0
    for job, flow in zip(instance.jobs, flows):
        length = job.length(instance.bandwidth_of(job))
        if length > 0:
            value = max(value, flow / length)
    return float(value)


def tolerance(bound: float) -> float:
    """``eps(L) = RTOL |L| + ATOL``: how far a value and the bound ``L`` may
    differ and still be equal."""
    return RTOL * abs(bound) + ATOL


def meets_bound(value: float, bound: float | None) -> bool:
    """``value <= L + eps(L)``: the value is proven optimal by the bound."""
    if bound is None or not math.isfinite(bound):
        return False
    return value <= bound + tolerance(bound)


def check_value_above_bound(value: float, bound: float | None,
                            what: str = "value") -> None:
    """Raise :class:`BoundViolationError` if ``value < L - eps(L)``.

    ``what`` names the value in the message (for instance ``"cpsat/io-sched
    objective"``).
    """
    if bound is None or not math.isfinite(bound) or not math.isfinite(value):
        return
    if value < bound - tolerance(bound):
        raise BoundViolationError(f"{what} {value!r} is below the proven lower bound "
                                  f"{bound!r} (a bound is wrong)")


def relative_gap(value: float | None, bound: float | None) -> float | None:
    """SPEC §7: ``(x - L) / L``, compared with one tolerance.

    Returns ``None`` when either side is unknown, not finite, or ``L <= 0``
    (no relative gap exists); ``0.0`` when ``|x - L| <= eps(L)``; the
    positive gap otherwise.

    Raises
    ------
    BoundViolationError
        ``x < L - eps(L)``: the bound exceeds the value (a bug).

    Examples
    --------
    >>> relative_gap(10.0, 8.0)
    0.25
    >>> relative_gap(100.0 - 4.2e-14, 100.0)
    0.0
    """
    if value is None or bound is None:
        return None
    if not (math.isfinite(value) and math.isfinite(bound)) or bound <= 0:
        return None
    check_value_above_bound(value, bound)
    if value <= bound + tolerance(bound):
        return 0.0
    return (value - bound) / bound


def gap_or_nan(value: float | None, bound: float | None) -> float:
    """:func:`relative_gap` for tables: NaN where no gap exists."""
    gap = relative_gap(value, bound)
    return math.nan if gap is None else gap


def best_known(values: Iterable[float | None]) -> float | None:
    """The smallest finite value of validated schedules of one instance (the
    best schedule known: an upper bound on the optimum), or ``None``."""
    finite = [v for v in values if v is not None and math.isfinite(v)]
    return min(finite) if finite else None


def bracket(value: float | None, best: float | None, bound: float | None
            ) -> tuple[float, float]:
    """How far ``value`` is above the optimum ``OPT``, from both sides:

    .. math:: \\frac{x - B}{B} \\le \\frac{x - OPT}{OPT} \\le \\frac{x - L}{L}

    with ``B`` the best schedule known (``OPT <= B``) and ``L`` a proven lower
    bound (``L <= OPT``). Returns ``(at_least, at_most)`` for tables (NaN
    where a side is unknown). The left side holds because ``OPT <= B``
    makes ``x / OPT - 1 >= x / B - 1``.

    >>> bracket(110.0, 105.0, 100.0)
    (0.047619047619047616, 0.1)
    """
    return gap_or_nan(value, best), gap_or_nan(value, bound)
