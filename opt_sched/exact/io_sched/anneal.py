"""Simulated annealing over the I/O order of one node (a primal heuristic).

A solution is a node order: a merge of the job chains (``models/lns.md``);
its value is the semi-active one (:mod:`.orders.timing`), computed on the
true (continuous) lengths, so every order it returns is a schedule the
validator accepts and its value is exact.

**Move**: take the operation at a random position ``p`` (of job ``j``) and
re-insert it at a random position ``p'`` strictly between the previous and
the next operation of ``j`` (at most ``window`` positions away), so the
chains keep their order. Re-timing is ``O(m)`` for ``m`` operations
(compiled, numba).

**Score**: the max of the per-job values ``v_j`` (``C_j`` for the makespan,
``(C_j - t_k) / T_j`` for the max stretch) is flat under most moves, so the
walk minimises a power mean instead,

.. math::

    f = v_{\\max} \\Big( \\sum_j (v_j / v_{\\max})^{P} \\Big)^{1/P},
    \\qquad v_{\\max} \\le f \\le n^{1/P} v_{\\max},\\ P = 128,

which rewards lowering the few largest values. A worse move is accepted
with probability ``exp(-(f' - f) / T)``, the temperature falling
geometrically from ``T_0 = 0.005 f_0`` to ``T_1 = 10^{-5} f_0`` over the
budget; the best order by ``v_max`` (then ``f``) is kept, over a few
independent runs. The result is never worse than the starting order.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numba import njit

from ...errors import OptionError
from ..deadline import Stopwatch
from .orders import NodeJobs, order_value

__all__ = ["AnnealResult", "anneal_order", "compile_kernels"]

_POWER = 128.0
"""``P`` of the power mean (a compile-time constant of the kernels)."""


@njit(cache=True)
def _score(order, n, off, lag, dur, tail, start, shift, inv, c, ready,
           vals):  # pragma: no cover - compiled
    """Per-job values ``v_j = (C_j - shift) inv_j`` into ``vals``; returns
    ``(v_max, f)``."""
    for j in range(n):
        c[j] = 0
        ready[j] = start + lag[off[j]] if off[j + 1] > off[j] else start
        vals[j] = (start + tail[j] - shift) * inv[j]
    free = start
    for p in range(order.size):
        j = order[p]
        k = off[j] + c[j]
        s = free if free > ready[j] else ready[j]
        e = s + dur[k]
        free = e
        c[j] += 1
        if off[j] + c[j] < off[j + 1]:
            ready[j] = e + lag[k + 1]
        else:
            vals[j] = (e + tail[j] - shift) * inv[j]
    vmax = 0.0
    for j in range(n):
        if vals[j] > vmax:
            vmax = vals[j]
    if vmax <= 0.0:
        return 0.0, 0.0
    acc = 0.0
    for j in range(n):
        acc += (vals[j] / vmax) ** _POWER
    return vmax, vmax * acc ** (1.0 / _POWER)


@njit(cache=True)
def _walk(order, best, n, off, lag, dur, tail, start, shift, inv, iters, temp, window,
          seed, cur_f, best_v, best_f):  # pragma: no cover - compiled
    """``iters`` moves at temperature ``temp``; returns the new ``(cur_f,
    best_v, best_f)`` (``order`` is the current, ``best`` the best order)."""
    np.random.seed(seed)
    m = order.size
    c = np.zeros(n, np.int64)
    ready = np.zeros(n)
    vals = np.zeros(n)
    for _ in range(iters):
        p = np.random.randint(m)
        j = order[p]
        lo = p
        while lo > 0 and order[lo - 1] != j and p - lo < window:
            lo -= 1
        hi = p
        while hi < m - 1 and order[hi + 1] != j and hi - p < window:
            hi += 1
        if lo == hi:
            continue
        q = lo + np.random.randint(hi - lo + 1)
        if q == p:
            continue
        if q < p:
            for x in range(p, q, -1):
                order[x] = order[x - 1]
        else:
            for x in range(p, q):
                order[x] = order[x + 1]
        order[q] = j
        v, f = _score(order, n, off, lag, dur, tail, start, shift, inv, c, ready,
                      vals)
        if f <= cur_f or np.random.random() < math.exp(-(f - cur_f) / temp):
            cur_f = f
            if v < best_v or (v == best_v and f < best_f):
                best_v = v
                best_f = f
                best[:] = order
        else:  # undo
            if q < p:
                for x in range(q, p):
                    order[x] = order[x + 1]
            else:
                for x in range(q, p, -1):
                    order[x] = order[x - 1]
            order[p] = j
    return cur_f, best_v, best_f


@dataclass
class AnnealResult:
    """The best order, its exact value, and the moves tried."""

    order: list[int]
    value: float
    moves: int


def _arrays(node: NodeJobs, objective: str):
    """The node as flat arrays for the kernels, and the value map of
    ``objective``: ``v_j = (C_j - shift) inv_j``."""
    if objective not in ("makespan", "max-stretch"):
        raise OptionError(f"objective={objective!r} is not one of makespan, "
                          "max-stretch")
    n = node.num_jobs
    counts = node.counts
    off = np.zeros(n + 1, np.int64)
    off[1:] = np.cumsum(counts)
    total = int(off[-1])
    lag = np.zeros(total + 1)
    dur = np.zeros(total + 1)
    for j in range(n):
        lag[off[j]:off[j + 1]] = node.lags[j]
        dur[off[j]:off[j + 1]] = node.durations[j]
    tail = np.array(node.tails, float)
    if objective == "makespan":
        shift, inv = 0.0, np.ones(n)
    else:
        shift = float(node.start)
        inv = np.array([1.0 / t if t > 0 else 0.0 for t in node.lengths])
    return n, off, lag, dur, tail, float(node.start), shift, inv


STEPS_PER_SECOND = 1.5e8
"""Moves per second times operations of the node: the walk's move budget
(re-timing a move costs ``O(m)``). Measured 2.1-2.3e8 on a 10x20 node
(1.04-1.14 M moves/s, 200 operations) on the 2-core development machine;
a little below, so that the walk usually ends before its time."""


def anneal_order(node: NodeJobs, objective: str, order: Sequence[int], budget: float,
                 *, seed: int = 0, window: int = 40, slice_moves: int = 20_000,
                 run_seconds: float = 4.0,
                 steps_per_second: float = STEPS_PER_SECOND) -> AnnealResult:
    """Anneal from ``order`` for at most ``budget`` seconds (module docstring).

    The budget is split into ``max(1, round(budget / run_seconds))``
    independent runs from ``order`` (different random streams), the best kept:
    the walk's outcome is heavy-tailed, and on the 10x20 max-stretch bench
    instances three 4 s runs beat one 12 s run (``models/lns.md``). Each run
    makes ``budget / runs * steps_per_second / m`` moves (``m`` operations)
    and cools with the share of its moves done, so the result depends on
    ``seed`` only, not on the machine's speed or load, unless the time
    ``budget`` runs out first (then the walk stops where it is). The
    returned value is :func:`.orders.order_value` of the returned order; it
    is at most the value of ``order``.
    """
    clock = Stopwatch()
    start_value = order_value(node, order, objective)
    if node.num_ops < 2 or budget <= 0:
        return AnnealResult(list(order), start_value, 0)
    n, off, lag, dur, tail, start, shift, inv = _arrays(node, objective)
    c, ready, vals = np.zeros(n, np.int64), np.zeros(n), np.zeros(n)
    rng = np.random.default_rng(seed)
    runs = max(1, round(budget / run_seconds))
    run_moves = max(1, int(budget / runs * steps_per_second / node.num_ops))
    overall = np.array(order, np.int64)
    overall_v, _ = _score(overall, n, off, lag, dur, tail, start, shift, inv, c,
                          ready, vals)
    moves = 0
    for _ in range(runs):
        if clock() >= budget:
            break
        cur = np.array(order, np.int64)
        best = cur.copy()
        v0, f0 = _score(cur, n, off, lag, dur, tail, start, shift, inv, c, ready,
                        vals)
        cur_f, best_v, best_f = f0, v0, f0
        t0, t1 = 0.005 * f0, 1e-5 * f0
        done = 0
        while done < run_moves and clock() < budget:
            temp = t0 * (t1 / t0) ** (done / run_moves)
            step = min(slice_moves, run_moves - done)
            cur_f, best_v, best_f = _walk(cur, best, n, off, lag, dur, tail, start,
                                          shift, inv, step, max(temp, 1e-300),
                                          window, int(rng.integers(2**31 - 1)),
                                          cur_f, best_v, best_f)
            done += step
        moves += done
        if best_v < overall_v:
            overall, overall_v = best.copy(), best_v
    result = [int(j) for j in overall]
    value = order_value(node, result, objective)
    if value > start_value:  # float noise of the compiled timing: keep the start
        return AnnealResult(list(order), start_value, moves)
    return AnnealResult(result, value, moves)


def compile_kernels() -> None:
    """Load (or compile) the kernels before a clock starts."""
    off = np.array([0, 1, 2], np.int64)
    zeros = np.zeros(3)
    order = np.array([0, 1], np.int64)
    _score(order, 2, off, zeros, np.ones(3), np.zeros(2), 0.0, 0.0, np.ones(2),
           np.zeros(2, np.int64), np.zeros(2), np.zeros(2))
    _walk(order, order.copy(), 2, off, zeros, np.ones(3), np.zeros(2), 0.0, 0.0,
          np.ones(2), 1, 1.0, 4, 0, 1.0, 1.0, 1.0)
