"""Piecewise-constant processing rates over time, and the one-machine
relaxations that run on them.

A :class:`RateProfile` is a rate ``c(t) >= 0`` that is constant between
breakpoints: the free nodes of a partition when some are reserved, or the
bandwidth of an I/O node that is busy at some times. Its *work coordinate*

.. math:: W(t) = \\int_0^t c(s)\\, ds

is non-decreasing, and ``W^{-1}(w) = inf {t : W(t) >= w}``. A preemptive
machine of rate ``c(t)`` is the plain unit-rate machine in work
coordinates: a task released at ``r`` with deadline ``d`` and ``p`` units of
work becomes a task released at ``W(r)``, due at ``W(d)``, of length ``p``,
and a completion ``x`` in work coordinates is the time ``W^{-1}(x)``. So

- preemptive EDF on ``(W(r), p, W(d))`` decides whether the deadlines can be
  met (Horn 1974) -- :func:`edf_feasible_on`;
- SRPT on ``(W(r), p)`` gives the smallest sorted vector of completions
  (every ``k``-th smallest completion is as small as any preemptive schedule
  can make it: the exchange argument of Schrage 1968 never looks at the
  rate), hence the least ``sum_i W^{-1}(x_i)`` -- :func:`srpt_completions`;
- smallest work first, preempting on arrivals, gives the least sum of *mean
  busy times* ``M_i = (1/p_i) int t dmu_i(t)`` (``mu_i``: the work of task
  ``i`` over time) over every fluid schedule -- :func:`mean_busy_times`.
  Exchange argument (Goemans 1997 for a unit rate): in work coordinates
  ``M_i = (1/p_i) int W^{-1}(u) dmu_i(u)``; moving ``delta`` of work of a
  task ``B`` from ``u_1`` to ``u_2 > u_1`` and as much of an available task
  ``A`` with ``p_A <= p_B`` from ``u_2`` to ``u_1`` changes the sum by
  ``(W^{-1}(u_1) - W^{-1}(u_2)) (1/p_A - 1/p_B) <= 0`` (``W^{-1}`` is
  non-decreasing), and so does moving work earlier into idle time.

Both are used by :mod:`opt_sched.bounds_flow` as relaxations: the I/O node
(volume at rate ``b`` when it is not reserved) and the fluid area relaxation
of the nodes (``Q_i T_i`` node-seconds at rate ``P - reserved(t)``).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterator, Sequence

import numpy as np

from .errors import OptionError
from .one_machine import edf_max_lateness

__all__ = ["RateProfile", "edf_feasible_on", "mean_busy_times", "srpt_completions"]

_REL_TOL = 1e-9
"""Relative tolerance of the feasibility test, on the side of weakness."""


class RateProfile:
    """A rate ``c(t)``: ``rates[k]`` on ``[starts[k], starts[k+1])``, the last
    one up to infinity (it must be ``> 0``); ``starts[0] = 0``. For
    ``t < 0`` the rate is ``rates[0]``.

    Examples
    --------
    >>> p = RateProfile([0.0, 2.0, 3.0], [1.0, 0.0, 2.0])
    >>> float(p.work(4.0)), float(p.time_of(2.0)), float(p.time_of(2.5))
    (4.0, 2.0, 3.25)
    """

    def __init__(self, starts: Sequence[float], rates: Sequence[float]) -> None:
        s = np.asarray(starts, dtype=float)
        c = np.asarray(rates, dtype=float)
        if s.ndim != 1 or s.shape != c.shape or not s.size or s[0] != 0.0:
            raise OptionError("rate profile: starts and rates must be equal 1-D "
                              "arrays with starts[0] = 0")
        if np.any(np.diff(s) <= 0) or not np.all(np.isfinite(s)):
            raise OptionError("rate profile: starts must increase strictly")
        if np.any(c < 0) or not np.all(np.isfinite(c)) or c[-1] <= 0:
            raise OptionError("rate profile: rates must be finite, >= 0, the last > 0")
        self.starts = s
        self.rates = c
        self.cumulative = np.concatenate(([0.0], np.cumsum(c[:-1] * np.diff(s))))

    @classmethod
    def constant(cls, rate: float) -> RateProfile:
        """``c(t) = rate`` everywhere."""
        return cls([0.0], [rate])

    @property
    def max_rate(self) -> float:
        return float(self.rates.max())

    def work(self, t: float | np.ndarray) -> np.ndarray:
        """``W(t)`` (vectorised)."""
        t = np.asarray(t, dtype=float)
        k = np.clip(np.searchsorted(self.starts, t, side="right") - 1, 0, None)
        return self.cumulative[k] + self.rates[k] * (t - self.starts[k])

    def time_of(self, w: float | np.ndarray) -> np.ndarray:
        """``W^{-1}(w) = inf {t : W(t) >= w}`` (vectorised)."""
        w = np.asarray(w, dtype=float)
        out = np.empty(w.shape)
        flat = w.ravel()
        res = out.ravel()
        for n, x in enumerate(flat.tolist()):
            if x <= 0.0:
                res[n] = x / self.rates[0] if self.rates[0] > 0 else 0.0
                continue
            # the last piece that starts below x: W reaches x inside it, so
            # its rate is positive
            k = int(np.searchsorted(self.cumulative, x, side="left")) - 1
            res[n] = self.starts[k] + (x - self.cumulative[k]) / self.rates[k]
        return out


    def time_integral(self, low: float, high: float) -> float:
        """``int_low^high W^{-1}(u) du`` for ``0 <= low <= high``: on each
        piece where ``W`` rises, ``W^{-1}`` is linear, so the piece counts its
        length times ``W^{-1}`` of its middle."""
        if high <= low:
            return 0.0
        inside = self.cumulative[(self.cumulative > low) & (self.cumulative < high)]
        cuts = np.concatenate(([low], inside, [high]))
        middles = self.time_of(0.5 * (cuts[:-1] + cuts[1:]))
        return math.fsum((np.diff(cuts) * middles).tolist())


def edf_feasible_on(profile: RateProfile, releases: np.ndarray, work: np.ndarray,
                    deadlines: np.ndarray) -> tuple[bool, float]:
    """Whether tasks fit one preemptive machine of rate ``profile``.

    Returns ``(feasible, lateness)``: the optimal max lateness of preemptive
    EDF in work coordinates, and whether it is ``<= 1e-9 * scale`` (so
    rounding can only make the answer *feasible*: a refutation is real).
    """
    if not work.size:
        return True, -math.inf
    r = profile.work(releases)
    d = profile.work(deadlines)
    late = edf_max_lateness(r, work, d)
    finite = np.concatenate((r, d))
    finite = np.abs(finite[np.isfinite(finite)])
    scale = max(1.0, float(finite.max(initial=0.0)))
    return late <= _REL_TOL * scale, late


def _preemptive_pieces(releases: list[float], work: list[float], *,
                       by_remaining: bool) -> Iterator[tuple[int, float, float]]:
    """The pieces ``(task, a, b)`` of a preemptive one-machine schedule in
    work time (rate 1), in time order: ``releases`` sorted, the machine
    never idle while a task waits, arrivals preempting. The priority is the
    least remaining work (``by_remaining``: SRPT) or the least whole work
    (smallest work first); ties by position. A task's last piece ends at its
    completion."""
    n = len(releases)
    remaining = list(work)
    heap: list[tuple[float, int]] = []
    time, nxt = releases[0], 0
    while nxt < n or heap:
        if not heap and time < releases[nxt]:
            time = releases[nxt]
        while nxt < n and releases[nxt] <= time:
            heapq.heappush(heap, (work[nxt], nxt))
            nxt += 1
        _, k = heap[0]
        arrival = releases[nxt] if nxt < n else math.inf
        finish = time + remaining[k]
        if finish <= arrival:
            heapq.heappop(heap)
            yield k, time, finish
            time = finish
        else:  # preempted by the arrival, if it has a higher priority
            yield k, time, arrival
            remaining[k] -= arrival - time
            if by_remaining:
                heapq.heapreplace(heap, (remaining[k], k))
            time = arrival


def srpt_completions(profile: RateProfile, releases: np.ndarray,
                     work: np.ndarray) -> np.ndarray:
    """Completion times of preemptive SRPT on one machine of rate
    ``profile`` (shortest remaining work first, preempting on arrivals).

    Their sum is the least ``sum_i C_i`` of ``1 | r_i, pmtn | sum C_i`` on that
    machine (module docstring). Zero work completes at its release: ``C_i =
    max(W^{-1}(x_i), r_i)``, which changes nothing for positive work.
    """
    n = work.size
    if not n:
        return np.zeros(0)
    r = profile.work(releases)
    order = np.argsort(r, kind="stable")
    done = [0.0] * n
    for k, _, end in _preemptive_pieces(r[order].tolist(), work[order].tolist(),
                                        by_remaining=True):
        done[k] = end  # the last piece's end
    out = np.empty(n)
    out[order] = profile.time_of(np.asarray(done))
    # a task of zero work released where the rate is 0 completes at its
    # release, not at the start of the flat stretch
    return np.maximum(out, releases)


def mean_busy_times(profile: RateProfile, releases: np.ndarray,
                    work: np.ndarray) -> np.ndarray:
    """The mean busy times ``M_i`` (seconds) of preemptive *smallest work
    first* on one machine of rate ``profile`` (the priority is the whole
    work ``p_i``, not what remains; ties by release, then index; arrivals
    preempt).

    Their sum is the least ``sum_i M_i`` over every fluid schedule of the
    tasks on that machine (module docstring). A task of zero work is busy
    at its release (``M_i = r_i``).
    """
    out = np.asarray(releases, dtype=float).copy()
    positive = np.flatnonzero(work > 0)
    if not positive.size:
        return out
    r = profile.work(releases[positive])
    by_release = np.argsort(r, kind="stable")
    order = positive[by_release]
    integral = [0.0] * len(order)
    for k, a, b in _preemptive_pieces(r[by_release].tolist(), work[order].tolist(),
                                      by_remaining=False):
        integral[k] += profile.time_integral(a, b)
    out[order] = np.array(integral) / work[order]
    return out
