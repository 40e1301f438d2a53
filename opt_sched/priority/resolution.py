r"""Fair-share resolution: how many bits a priority component needs for one
job to change a user's priority (seed 002, Paper II §5.3-5.4, Fig. 17).

Input local density (eqs. 18-21). At resolution ``r = 2^bits`` the
effective priorities are ``P_r = {p_i = -1 + (i - 1) 2/r}``. Priority
``p_i`` at target ``t`` is produced by the states between
``I_s(F, p_{i+1}, t)`` and ``I_s(F, p_i, t)`` (``F`` decreases in ``s``), a
band of width

.. math:: D(F, p_i, t, r) = I_s(F, p_i, t) - I_s(F, p_{i+1}, t).

A user entering that band at state ``s = I_s(F, p_{i+1}, t)`` must gain
``D`` of normalised state to reach the next priority. Job size (§5.4,
eq. 23): with a pool of ``U`` core-hours and a job of ``k U`` core-hours,

- **the thesis's algebra** writes ``s' = (1 + k)(s + k)``, hence
  ``k^2 + (1 + s) k - D = 0`` and (eq. 25)

  .. math:: k_{thesis} = \frac{-(1 + s) + \sqrt{(1 + s)^2 + 4 D}}{2};

- **corrected**: ``s' = (s U + k U) / (U + k U) = (s + k)/(1 + k)`` (the
  thesis's last step multiplies by ``1 + k`` instead of dividing), so
  ``s' - s = k (1 - s)/(1 + k) = D`` and

  .. math:: k_{corrected} = \frac{D}{1 - s - D} \qquad (s + D < 1;
            \text{otherwise no job suffices}).

Bits needed (Fig. 17): the least ``bits`` in ``3..max_bits`` such that the
job size ``k U`` over the priorities ``p_i`` of a band (balance
``[-0.25, 0.25]``, over target ``[-0.9, -0.6]``, under target
``[0.6, 0.9]``) and the targets ``t = 0.1 .. 0.9`` is at most the job
(2,000 core-hours in a pool of ``U`` = 8760 h x 600 nodes = 5,256,000).
The thesis aggregates by "parsing" heat maps; we offer both readings:
``aggregate="best"`` (the smallest job that changes a priority somewhere in
the band: the thesis's *resolving power*, the default) and ``"worst"`` (a
job that changes every priority of the band). Bands that no target
reaches, and cells whose ends lie outside ``[0, 1]``, are skipped.

What matches. With the thesis's formula and ``best``, 9 of the 21 printed
values are reproduced exactly (balance: Absolute, Relative, Relative-2,
Sigmoid, Combined; under: Absolute, Relative, Sigmoid, Sigmoid-2) and every
other one within 1-3 bits. The Absolute operator can be checked by hand
(``D = 2/r`` everywhere): its over-target value is 12 bits with eq. 25
(``s <= 1``) and 15 with the corrected formula, so the printed 14 follows
from neither (see ``tests/test_priority_resolution.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from ..errors import OptionError
from .operators import Operator, get_operator

__all__ = [
    "BANDS",
    "FIG17_OPERATORS",
    "THESIS_BITS",
    "bits_needed",
    "format_resolution_table",
    "job_sizes",
    "print_resolution_table",
    "resolution_table",
]

BANDS = {"balance": (-0.25, 0.25), "over": (-0.9, -0.6), "under": (0.6, 0.9)}
"""Priority bands of Paper II §5.4."""

POOL = 8760.0 * 600.0
"""``U``: one year of 600 nodes (Swegrid), 5,256,000 core-hours."""

JOB = 2000.0
"""The job (200 h on 10 nodes), core-hours."""

TARGETS = tuple(i / 10 for i in range(1, 10))
"""Targets studied (0 is degenerate: every state gives -1)."""

FIG17_OPERATORS = ("absolute", "relative", "relative-2", "sigmoid", "sigmoid-2",
                   "slurm", "combined")

THESIS_BITS = {
    "absolute": (12, 14, 12),
    "relative": (9, 14, 9),
    "relative-2": (9, 15, 8),
    "sigmoid": (9, 12, 9),
    "sigmoid-2": (6, 11, 9),
    "slurm": (9, 13, 8),
    "combined": (10, 15, 8),
}
"""Paper II Fig. 17 (balance, over, under)."""


def _k_thesis(s: np.ndarray, d: np.ndarray) -> np.ndarray:
    return (-(1.0 + s) + np.sqrt((1.0 + s) ** 2 + 4.0 * d)) / 2.0


def _k_corrected(s: np.ndarray, d: np.ndarray) -> np.ndarray:
    room = 1.0 - s - d
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(room > 0, d / np.where(room > 0, room, 1.0), np.inf)


_FORMULAS = {"thesis": _k_thesis, "corrected": _k_corrected}


def _operator(op: str | Operator) -> Operator:
    return op if isinstance(op, Operator) else get_operator(op)


def job_sizes(op: str | Operator, bits: int, band: str, *,
              formula: str = "thesis", pool: float = POOL,
              targets: Sequence[float] = TARGETS) -> np.ndarray:
    """Core-hours that move a user out of each priority cell of ``band`` at
    ``2^bits`` levels: an array (targets x cells), ``nan`` where the cell
    is not reachable at that target."""
    if band not in BANDS:
        raise OptionError(f"band={band!r} is not one of {', '.join(BANDS)}")
    if formula not in _FORMULAS:
        raise OptionError(f"formula={formula!r} is not one of thesis, corrected")
    if isinstance(bits, bool) or not isinstance(bits, int) or not 1 <= bits <= 30:
        raise OptionError(f"bits={bits!r} must be an integer in 1..30")
    operator = _operator(op)
    r = 1 << bits
    lo, hi = BANDS[band]
    p = -1.0 + np.arange(r) * 2.0 / r
    if operator.low == 0.0:  # slurm-original: compare on its own [0, 1] scale
        p = (p + 1.0) / 2.0
        lo, hi = (lo + 1.0) / 2.0, (hi + 1.0) / 2.0
        step = 1.0 / r
    else:
        step = 2.0 / r
    eps = 1e-12
    p = p[(p >= lo - eps) & (p <= hi + eps)]
    k_of = _FORMULAS[formula]
    rows = []
    for t in targets:
        entry = operator.inverse(p + step, t)  # the cell's lowest state
        leave = operator.inverse(p, t)
        width = leave - entry
        k = k_of(entry, width)
        rows.append(np.where(width > 0, pool * k, np.nan))
    return np.array(rows)


def bits_needed(op: str | Operator, band: str, *, job: float = JOB,
                pool: float = POOL, formula: str = "thesis",
                aggregate: str = "best", max_bits: int = 20,
                targets: Sequence[float] = TARGETS) -> int | None:
    """The least bits (3..``max_bits``) at which a ``job`` core-hour job
    changes a priority of ``band`` (see the module docstring); ``None`` if
    none does."""
    if aggregate not in ("best", "worst"):
        raise OptionError(f"aggregate={aggregate!r} is not one of best, worst")
    for bits in range(3, max_bits + 1):
        sizes = job_sizes(op, bits, band, formula=formula, pool=pool,
                          targets=targets)
        valid = sizes[~np.isnan(sizes)]
        if valid.size == 0:
            continue
        value = valid.min() if aggregate == "best" else valid.max()
        if value <= job:
            return bits
    return None


def resolution_table(operators: Sequence[str] = FIG17_OPERATORS, *,
                     formula: str = "thesis", aggregate: str = "best",
                     job: float = JOB, pool: float = POOL, max_bits: int = 20
                     ) -> dict[str, tuple[int | None, int | None, int | None]]:
    """``{operator: (balance, over, under)}`` bits (Fig. 17's layout)."""
    return dict(_table(tuple(operators), formula, aggregate, job, pool, max_bits))


@lru_cache(maxsize=16)
def _table(operators: tuple[str, ...], formula: str, aggregate: str, job: float,
           pool: float, max_bits: int) -> tuple[tuple[str, tuple], ...]:
    return tuple((name, tuple(bits_needed(name, band, job=job, pool=pool,
                                          formula=formula, aggregate=aggregate,
                                          max_bits=max_bits)
                              for band in ("balance", "over", "under")))
                 for name in operators)


def _cell(value: int | None) -> str:
    return "-" if value is None else str(value)


def format_resolution_table(*, aggregate: str = "best", job: float = JOB,
                            pool: float = POOL, max_bits: int = 20) -> str:
    """Fig. 17 side by side: the thesis's printed bits, ours with the
    thesis's formula (eq. 25), ours with the corrected one; each as
    balance/over/under (overall = the largest)."""
    ours = resolution_table(formula="thesis", aggregate=aggregate, job=job,
                            pool=pool, max_bits=max_bits)
    fixed = resolution_table(formula="corrected", aggregate=aggregate, job=job,
                             pool=pool, max_bits=max_bits)

    def fmt(values: Sequence[int | None]) -> str:
        known = [v for v in values if v is not None]
        overall = max(known) if len(known) == len(values) else None
        return "/".join(_cell(v) for v in values) + f" ({_cell(overall)})"

    lines = [f"bits for a {job:,.0f} core-hour job in a {pool:,.0f} core-hour pool "
             f"(balance/over/under (overall); aggregate={aggregate})",
             f"{'operator':<12} {'thesis Fig.17':>16} {'eq.25 (thesis)':>16} "
             f"{'corrected':>16}"]
    for name in FIG17_OPERATORS:
        lines.append(f"{name:<12} {fmt(THESIS_BITS[name]):>16} "
                     f"{fmt(ours[name]):>16} {fmt(fixed[name]):>16}")
    return "\n".join(lines)


def print_resolution_table(**options: object) -> None:
    """Print :func:`format_resolution_table`."""
    print(format_resolution_table(**options))  # type: ignore[arg-type]
