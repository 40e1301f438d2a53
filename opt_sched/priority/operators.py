r"""Fair-share priority operators (seed 002, Paper II §3, Karma).

An operator maps a node's *target* ``t`` (its normalised share among its
siblings) and *state* ``s`` (its normalised usage among its siblings) to a
priority ``F(t, s)``: positive when the node used less than its share, zero
on balance (``t = s``), negative when it used more. Paper II's definition
(§3.1): ``F(0..1, 0..1) -> [-1, 1]``, strictly increasing in ``t`` and
strictly decreasing in ``s``.

With the *relative distance*

.. math:: R(t, s) = \begin{cases} (t - s)/t & s < t \\ 0 & s = t \\
          -(s - t)/s & s > t \end{cases}

(``R = 1 - s/t`` under target, ``R = t/s - 1`` over it), the operators are:

================  ==========================================================
``absolute``      :math:`t - s` (eq. 5)
``relative``      :math:`R` (eq. 6)
``relative-n``    :math:`\operatorname{sign}(R)\,|R|^n` (eq. 7; ``n = 2``
                  studied)
``sigmoid``       :math:`\operatorname{sign}(R)\sin(\tfrac{\pi}{2}|R|)`
                  (eq. 8: ``sin(pi (t - s) / (2 t))`` under target; the
                  thesis's OCR "sin(pi t - s / 2t)" is the only reading
                  that meets the boundary values)
``sigmoid-n``     :math:`\operatorname{sign}(R)\,\sin(\tfrac{\pi}{2}|R|)^{1/n}`
                  (eq. 9, the ``n``-th root)
``combined``      :math:`k (t - s) + (1 - k)\,\mathrm{relative\text{-}2}`
                  (eq. 10; ``k = 0.5``, the value Table 1 implies)
``slurm-original`` :math:`2^{-s/t}` (eq. 11, Slurm's classic factor, in
                  ``[0, 1]``)
``slurm``         :math:`2^{1 - s/t} - 1` (eq. 12, rescaled to ``[-1, 1]``)
================  ==========================================================

Conventions at ``t = 0`` (not defined by the formulas): ``s > 0`` is
infinitely over target (``R = -1``, ``s/t = inf``) and ``t = s = 0`` is
balance (``R = 0``, ``s/t = 1``).

Boundary values (Paper II, Table 1; checked in the tests):

==============================  ==================  ==================
operator                        ``t = 0``           ``s = 0``
==============================  ==================  ==================
absolute                        ``-s``              ``t``
combined (k = 0.5)              ``-0.5 - s/2``      ``0.5 + t/2``
every other ([-1, 1]) operator  ``-1``              ``1``
slurm-original (range [0, 1])   ``0``               ``1``
==============================  ==================  ==================

Equivalence (§4.6). ``relative``, ``relative-n``, ``sigmoid``,
``sigmoid-n``, ``slurm`` and ``slurm-original`` are each a strictly
decreasing function of ``x = s/t`` alone, so they order any set of users
the same way (they share ``G(t_j, s_j, t_i) = s_j t_i / t_j``, eq. 16);
``absolute`` and ``combined`` do not.

Each operator also has its inverse in ``s`` (:meth:`Operator.inverse`,
eq. 21), closed-form except ``combined`` (bisection), used by
:mod:`~opt_sched.priority.resolution`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from ..errors import OptionError

__all__ = ["OPERATOR_NAMES", "Operator", "get_operator"]

OPERATOR_NAMES = ("absolute", "relative", "relative-2", "sigmoid", "sigmoid-2",
                  "combined", "slurm", "slurm-original")
"""The operators of Paper II (``relative-n``/``sigmoid-n`` take any n >= 1)."""

_EQUIVALENT_FAMILY = "relative"


def _relative(t: np.ndarray, s: np.ndarray) -> np.ndarray:
    """``R(t, s)`` with the ``t = 0`` conventions of the module docstring."""
    with np.errstate(divide="ignore", invalid="ignore"):
        under = np.where(t > 0, (t - s) / np.where(t > 0, t, 1.0), 0.0)
        over = np.where(s > 0, -(s - t) / np.where(s > 0, s, 1.0), 0.0)
    return np.where(s < t, under, np.where(s > t, over, 0.0))


def _ratio(t: np.ndarray, s: np.ndarray) -> np.ndarray:
    """``x = s/t`` (``inf`` for ``t = 0 < s``, 1 for ``t = s = 0``)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        x = np.where(t > 0, s / np.where(t > 0, t, 1.0), np.inf)
    return np.where((t == 0) & (s == 0), 1.0, x)


def _inverse_relative(q: np.ndarray, t: float) -> np.ndarray:
    """The ``s`` with ``R(t, s) = q``: ``t (1 - q)`` for ``q >= 0``,
    ``t / (1 + q)`` for ``q < 0``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(q >= 0, t * (1.0 - q), t / (1.0 + q))


@dataclass(frozen=True)
class Operator:
    """One priority operator ``F(t, s)`` (see the module docstring).

    ``kind`` is ``absolute``, ``relative``, ``sigmoid``, ``combined``,
    ``slurm`` or ``slurm-original``; ``n`` the exponent (root) of
    ``relative-n`` (``sigmoid-n``); ``k`` the weight of ``combined``.
    """

    kind: str
    n: int = 1
    k: float = 0.5

    @property
    def name(self) -> str:
        if self.kind in ("relative", "sigmoid") and self.n != 1:
            return f"{self.kind}-{self.n}"
        return self.kind

    @property
    def low(self) -> float:
        """The least value of the operator's range (``-1``, or 0)."""
        return 0.0 if self.kind == "slurm-original" else -1.0

    @property
    def family(self) -> str:
        """Operators of one family order users identically (§4.6)."""
        if self.kind in ("absolute", "combined"):
            return self.kind
        return _EQUIVALENT_FAMILY

    def __call__(self, t: object, s: object) -> np.ndarray | float:
        """``F(t, s)``, element-wise; a float for scalar arguments."""
        ta = np.asarray(t, dtype=float)
        sa = np.asarray(s, dtype=float)
        value = self._evaluate(ta, sa)
        if value.ndim == 0:
            return float(value)
        return value

    def _evaluate(self, t: np.ndarray, s: np.ndarray) -> np.ndarray:
        kind = self.kind
        if kind == "absolute":
            return t - s
        if kind in ("slurm", "slurm-original"):
            rescaled = np.exp2(1.0 - _ratio(t, s)) - 1.0
            return rescaled if kind == "slurm" else (rescaled + 1.0) / 2.0
        r = _relative(t, s)
        if kind == "relative":
            return np.sign(r) * np.abs(r) ** self.n
        if kind == "sigmoid":
            return np.sign(r) * np.sin(np.pi / 2 * np.abs(r)) ** (1.0 / self.n)
        # combined
        return self.k * (t - s) + (1.0 - self.k) * np.sign(r) * r * r

    def inverse(self, p: object, t: float) -> np.ndarray:
        """``I_s(F, p, t)`` (eq. 21): the state ``s`` in ``[0, 1]`` with
        ``F(t, s) = p``, element-wise over ``p``; ``nan`` where no state
        gives ``p`` at this target. Needs ``t > 0``."""
        if not t > 0:
            raise OptionError(f"inverse: target t={t!r} must be > 0")
        pa = np.asarray(p, dtype=float)
        kind = self.kind
        if kind == "absolute":
            s = t - pa
        elif kind == "relative":
            s = _inverse_relative(np.sign(pa) * np.abs(pa) ** (1.0 / self.n), t)
        elif kind == "sigmoid":
            mag = np.clip(np.abs(pa) ** self.n, 0.0, 1.0)
            s = _inverse_relative(np.sign(pa) * np.arcsin(mag) * 2 / np.pi, t)
        elif kind in ("slurm", "slurm-original"):
            rescaled = pa if kind == "slurm" else 2.0 * pa - 1.0
            with np.errstate(divide="ignore", invalid="ignore"):
                s = t * (1.0 - np.log2(1.0 + rescaled))
        else:
            s = self._bisect(pa, t)
        tol = 1e-12  # round-off at the ends of [0, 1]
        return np.where((s >= -tol) & (s <= 1.0 + tol), np.clip(s, 0.0, 1.0), np.nan)

    def _bisect(self, p: np.ndarray, t: float) -> np.ndarray:
        """Inverse by bisection (F is strictly decreasing in ``s``)."""
        lo = np.zeros_like(p)
        hi = np.ones_like(p)
        tt = np.full_like(p, t)
        for _ in range(64):
            mid = (lo + hi) / 2
            above = self._evaluate(tt, mid) > p
            lo = np.where(above, mid, lo)
            hi = np.where(above, hi, mid)
        s = (lo + hi) / 2
        reachable = (self._evaluate(tt, np.zeros_like(p)) >= p) & (
            self._evaluate(tt, np.ones_like(p)) <= p)
        return np.where(reachable, s, np.nan)


_PATTERN = re.compile(r"^(absolute|relative|sigmoid|combined|slurm|slurm-original)"
                      r"(?:-(\d+))?$")


def get_operator(name: str, *, k: float = 0.5) -> Operator:
    """The operator called ``name`` (case-insensitive): one of
    :data:`OPERATOR_NAMES`, or ``relative-<n>`` / ``sigmoid-<n>`` for any
    ``n >= 1``; ``k`` is the weight of ``combined``.

    Raises
    ------
    OptionError
        Unknown name, ``n < 1`` or ``k`` outside ``[0, 1]``.
    """
    if not isinstance(name, str):
        raise OptionError(f"operator={name!r} is not a string")
    key = name.strip().lower().replace("_", "-")
    if key == "slurm-original":
        return Operator("slurm-original")
    if key in ("slurm-rescaled",):
        return Operator("slurm")
    match = _PATTERN.match(key)
    if match is None:
        raise OptionError(f"operator={name!r} is unknown; choose one of "
                          f"{', '.join(OPERATOR_NAMES)} (or relative-N, sigmoid-N)")
    kind, digits = match.group(1), match.group(2)
    if digits is not None and kind not in ("relative", "sigmoid"):
        raise OptionError(f"operator={name!r}: only relative and sigmoid take "
                          f"an exponent")
    n = 1 if digits is None else int(digits)
    if n < 1:
        raise OptionError(f"operator={name!r}: exponent n={n} must be >= 1")
    if isinstance(k, bool) or not isinstance(k, (int, float)) \
            or not 0.0 <= k <= 1.0 or math.isnan(k):
        raise OptionError(f"operator {name!r}: k={k!r} must be in [0, 1]")
    return Operator(kind, n=n, k=float(k))
