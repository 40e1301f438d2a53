"""The referee of the period model: the smallest integer period by
enumeration (tiny patterns with integer data only).

For ``lambda = LB, LB + 1, ...`` (``LB`` the steady-state bound), try every
assignment of integer positions ``p in {0, ..., lambda - 1}`` to the
operations of one period, with operation ``(0, 0)`` at 0 (a rotation), and
accept the first ``lambda`` for which one satisfies, directly on the circle:

- **exclusive I/O**: two operations ``x, y`` do not overlap:
  ``(p_y - p_x) mod lambda >= d_x`` and ``(p_x - p_y) mod lambda >= d_y``;
- **job chains**: the job's gaps ``g_r = (p_{r+1} - p_r) mod lambda``
  (``r = m - 1`` wraps to ``p_0``; a single operation has ``g = lambda``)
  are all ``>= c = w + d`` and sum to exactly ``lambda`` (one turn per
  period).

It shares no code with :mod:`.period` (no copies of intervals, no
unrolled times), which is the point.
"""

from __future__ import annotations

from .pattern import CyclicPattern

__all__ = ["brute_force_period"]


def brute_force_period(pattern: CyclicPattern, max_period: int | None = None
                       ) -> int | None:
    """The smallest integer period of ``pattern`` (integer ``w`` and ``d``),
    or ``None`` if none up to ``max_period`` (default: the serial period)."""
    w = [round(x) for x in pattern.compute]
    d = [round(x) for x in pattern.duration]
    if any(abs(a - b) > 1e-9 for a, b in zip(w, pattern.compute)) or \
            any(abs(a - b) > 1e-9 for a, b in zip(d, pattern.duration)):
        raise ValueError("brute_force_period needs integer data")
    c = [a + b for a, b in zip(w, d)]
    m = list(pattern.multiplicity)
    ops = [(p, r) for p in range(len(m)) for r in range(m[p])]
    low = max(sum(mi * di for mi, di in zip(m, d)),
              max(mi * ci for mi, ci in zip(m, c)))
    serial = sum(mi * ci for mi, ci in zip(m, c))
    high = max_period if max_period is not None else serial
    for lam in range(low, high + 1):
        if _feasible(lam, ops, d, c, m):
            return lam
    return None


def _feasible(lam: int, ops: list[tuple[int, int]], d: list[int], c: list[int],
              m: list[int]) -> bool:
    positions: dict[tuple[int, int], int] = {}

    def fits(x: tuple[int, int], px: int) -> bool:
        for y, py in positions.items():
            if (py - px) % lam < d[x[0]] or (px - py) % lam < d[y[0]]:
                return False
        return True

    def chain_ok(p: int) -> bool:
        pos = [positions[(p, r)] for r in range(m[p])]
        if m[p] == 1:
            return lam >= c[p]
        gaps = [(pos[(r + 1) % m[p]] - pos[r]) % lam for r in range(m[p])]
        return min(gaps) >= c[p] and sum(gaps) == lam

    def search(index: int) -> bool:
        if index == len(ops):
            return True
        x = ops[index]
        choices = [0] if index == 0 else range(lam)
        for px in choices:
            if not fits(x, px):
                continue
            positions[x] = px
            last_of_job = x[1] == m[x[0]] - 1
            if (not last_of_job or chain_ok(x[0])) and search(index + 1):
                return True
            del positions[x]
        return False

    return search(0)
