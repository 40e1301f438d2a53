"""Large-neighbourhood search over the I/O order of one node
(``models/lns.md``).

Start from an order (the best seed); repeat until the budget is spent or the
value reaches a proven bound:

1. pick a window of ``k`` consecutive positions (:func:`pick_window`);
2. re-order it optimally with CP-SAT, the rest fixed
   (:class:`.repair.WindowRepair`), for at most ``window_seconds``;
3. keep the new order if its true semi-active value (continuous lengths) is
   no worse than the current one.

The current order never gets worse, so the result is at most the seed's
value. ``k`` adapts: it grows by 2 (up to ``max_window``) when CP-SAT proves
a window optimal without improving, and shrinks when a window times out.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..deadlines.grid import NodeGrid
from ..orders import NodeJobs, objective_value, order_value, semi_active
from .repair import WindowRepair

__all__ = ["LnsStats", "improve_order", "pick_window"]


@dataclass
class LnsStats:
    """What the search did: windows tried, improvements, final window size,
    and the value after each improvement ``(seconds, value)``."""

    windows: int = 0
    improvements: int = 0
    window: int = 0
    trace: list[tuple[float, float]] = field(default_factory=list)


def pick_window(node: NodeJobs, order: Sequence[int], objective: str, k: int,
                rng: random.Random) -> int:
    """The first position of the next window.

    Half of the time a *targeted* window: for the makespan one that covers an
    idle gap of the node (an operation that starts later than the end of the
    previous one), chosen at random among them; for the max stretch one that
    covers an operation of the job of largest stretch. Otherwise uniform.
    """
    total = len(order)
    if total <= k:
        return 0
    if rng.random() < 0.5:
        timing = semi_active(node, order)
        if objective == "makespan":
            targets = _idle_positions(node, order, timing.op_start)
        else:
            stretch = [((c - node.start) / t if t > 0 else 0.0)
                       for c, t in zip(timing.completion, node.lengths)]
            worst = max(range(node.num_jobs), key=stretch.__getitem__)
            targets = [p for p, j in enumerate(order) if j == worst]
        if targets:
            centre = rng.choice(targets)
            return max(0, min(total - k, centre - rng.randint(1, max(1, k - 1))))
    return rng.randint(0, total - k)


def _idle_positions(node: NodeJobs, order: Sequence[int],
                    op_start: Sequence[Sequence[float]]) -> list[int]:
    """Positions whose operation starts after the previous one ended."""
    seen = [0] * node.num_jobs
    free = node.start
    out = []
    for p, j in enumerate(order):
        q = seen[j]
        seen[j] += 1
        begin = op_start[j][q]
        if begin > free + 1e-9:
            out.append(p)
        free = begin + node.durations[j][q]
    return out


def improve_order(grid: NodeGrid, objective: str, order: Sequence[int],
                  budget: float, *, seed: int = 0, window: int = 12,
                  max_window: int = 40, window_seconds: float = 2.0,
                  lower: float = 0.0, num_workers: int = 1,
                  clock: Callable[[], float] | None = None,
                  on_improve: Callable[[list[int], float], None] | None = None
                  ) -> tuple[list[int], float, LnsStats]:
    """Improve ``order`` for ``budget`` seconds (module docstring).

    Returns the best order, its true value and :class:`LnsStats`. Stops
    early when the value is ``<= lower * (1 + 1e-9)``.
    """
    from ...deadline import Stopwatch

    watch = clock or Stopwatch()
    t0 = watch()
    node = grid.node
    rng = random.Random(seed)
    best = list(order)
    value = objective_value(node, semi_active(node, best), objective)
    stats = LnsStats(window=window)
    k = window
    while budget - (watch() - t0) > 0.05 and value > lower * (1 + 1e-9) + 1e-12:
        if len(best) <= 1:
            break
        k = max(2, min(k, len(best)))
        a = pick_window(node, best, objective, k, rng)
        cap = min(window_seconds, budget - (watch() - t0))
        result = WindowRepair(grid, objective, best, a, k).solve(
            cap, num_workers=num_workers, seed=rng.randrange(1 << 30))
        stats.windows += 1
        if result.order is not None:
            new = order_value(node, result.order, objective)
            if new < value - 1e-9:
                best, value = result.order, new
                stats.improvements += 1
                stats.trace.append((round(watch() - t0, 3), value))
                if on_improve is not None:
                    on_improve(best, value)
            elif new <= value + 1e-12:
                best = result.order
        if result.status == "OPTIMAL" and result.seconds < 0.5 * window_seconds:
            k = min(max_window, k + 2)
        elif result.status != "OPTIMAL":
            k = max(4, k - 2)
    stats.window = k
    return best, value, stats
