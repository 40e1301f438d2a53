r"""Priority vectors at a limited resolution (seed 002, Paper II §2.2, §5).

A user's fair-share priority is a *vector*: one operator value per level of
the target tree, from the root down (account, then user). Vectors compare
lexicographically, the first component first. To compare them cheaply Karma
maps each component to an integer *scalar* of resolution ``r`` (Fig. 4:
``-1 -> 0``, ``+1 -> r - 1``) and concatenates the digits; two users whose
first components fall in the same scalar are then ordered by the next one,
even if their first components differed (Fig. 5).

.. math:: \operatorname{scalar}(p, r) = \min\left(r - 1,
          \left\lfloor \frac{p + 1}{2} r \right\rfloor\right),
          \qquad S(p, r) = \frac{\operatorname{scalar}(p, r)}{r} \cdot 2 - 1

``S`` (eq. 17) is the *effective* priority, the least value of the grid
``P_r = {-1 + (i - 1) 2 / r : i = 1..r}`` (eq. 20) at or below ``p``.
Here ``r = 2^bits``; ``bits=None`` keeps full floating-point precision.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..errors import OptionError

__all__ = ["check_bits", "effective_priority", "priority_key", "scalar"]


def check_bits(bits: int | None) -> int | None:
    """``bits`` if it is ``None`` or an integer in ``1..52``."""
    if bits is None:
        return None
    if isinstance(bits, bool) or not isinstance(bits, (int, np.integer)) \
            or not 1 <= int(bits) <= 52:
        raise OptionError(f"bits={bits!r} must be an integer in 1..52 or None")
    return int(bits)


def scalar(p: object, resolution: int) -> np.ndarray | int:
    """The integer ``0..r-1`` of priority ``p`` in ``[-1, 1]`` at resolution
    ``r`` (element-wise; an ``int`` for a scalar ``p``)."""
    r = int(resolution)
    pa = np.clip(np.asarray(p, dtype=float), -1.0, 1.0)
    value = np.minimum(r - 1, np.floor((pa + 1.0) / 2.0 * r)).astype(np.int64)
    return int(value) if value.ndim == 0 else value


def effective_priority(p: object, resolution: int) -> np.ndarray | float:
    """``S(p, r)`` (eq. 17)."""
    value = scalar(p, resolution)
    out = np.asarray(value, dtype=float) / resolution * 2.0 - 1.0
    return float(out) if out.ndim == 0 else out


def priority_key(vector: Sequence[float], bits: int | None,
                 low: float = -1.0) -> tuple[float, ...]:
    """The lexicographic key of a priority vector: larger is higher
    priority. Components are the scalars at ``2^bits`` (``bits=None``: the
    values themselves). ``low`` is the least value of the operator's range
    (0 for ``slurm-original``), rescaled to ``-1`` before the mapping."""
    if low not in (-1.0, 0.0):
        raise OptionError(f"low={low!r} must be -1 or 0")
    values = [2.0 * v - 1.0 if low == 0.0 else float(v) for v in vector]
    if bits is None:
        return tuple(values)
    r = 1 << bits
    return tuple(float(min(r - 1, math.floor((min(1.0, max(-1.0, v)) + 1.0) / 2.0 * r)))
                 for v in values)
