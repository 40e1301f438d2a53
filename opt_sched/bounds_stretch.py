"""Stronger lower bounds for the max stretch of IO-SCHED (fixed starts).

``models/bounds.md`` ("Max stretch: propagated windows") has the
derivations. In short: for a candidate stretch ``rho``, job ``i`` of
partition ``k`` must complete by ``t_k + rho T_i``, so its operation
``(i, j)`` (an I/O phase with ``v_ij > 0``) must run inside the window

.. math::

    [\\, r_{ij},\\ \\bar d_{ij} \\,] = [\\, h_{ij},\\ t_k + \\rho T_i - q_{ij} \\,]

(head and tail as in :mod:`opt_sched.bounds`). ``rho`` is *refuted* when
the windows admit no schedule of the relaxation below; the bound is the
largest refuted ``rho`` found by bisection (every returned value is a proven
refutation, so the bound is valid up to float rounding, which is absorbed by
a relative tolerance of ``1e-9`` on the side of weakness).

The relaxation (:func:`propagate_windows`) keeps the non-preemptive I/O and
the job chains, and iterates to a fixpoint:

1. **chains**: ``r_{i,j+1} >= r_ij + p_ij + lag_{i,j+1}`` and
   ``dbar_ij <= dbar_{i,j+1} - p_{i,j+1} - lag_{i,j+1}``;
2. **edge finding** (one machine, both directions): for the set
   ``Omega_k = {o : dbar_o <= dbar_k}`` and an operation ``i`` outside it, if
   ``ECT(Omega_k + i) > dbar_k`` then ``i`` ends after all of ``Omega_k`` and
   ``r_i >= ECT(Omega_k)``, with
   ``ECT(S) = max_{o in S} (r_o + sum_{l in S, r_l >= r_o} p_l)`` (a lower
   bound on the completion of ``S``); symmetrically for ``dbar``;
3. **checks**: an empty window ``r + p > dbar``, ``ECT(Omega_k) > dbar_k``, and
   finally preemptive EDF on the propagated windows (Horn 1974).

Edge finding is the Baptiste-Le Pape ``O(n^2)`` form (each ``k`` one pass
over the operations sorted by release). Compiled with numba.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .bounds import edf_feasible, max_stretch_bounds
from .errors import OptionError
from .instance import Instance

__all__ = ["HOLDS_UNDER", "best_stretch_bound", "propagate_windows",
           "propagated_edf_bound", "stretch_bounds"]

HOLDS_UNDER: dict[str, frozenset[str]] = {
    "propagated-edf": frozenset({"exclusive"}),
}
"""Bound name -> the execution models under which it is proven. Edge
finding reasons on *non-preemptive* I/O (an operation that cannot end
before a set ends after all of it), which only the exclusive model has:
under bandwidth sharing two phases progress together, so the bound does not
hold (``models/bounds.md``; a counter-example is tested)."""

_REL_TOL = 1e-9
_MAX_ROUNDS = 200


@njit(cache=True)
def _edge_find_releases(r, d, p, tol):  # pragma: no cover - compiled
    """One edge-finding pass raising releases; returns (feasible, changed)."""
    n = r.size
    by_release = np.argsort(r, kind="mergesort")
    changed = False
    new_r = r.copy()
    for k in range(n):
        dk = d[k]
        total = 0.0
        ect = -np.inf
        # descending release: suffix sums and ECT of Omega
        for idx in range(n - 1, -1, -1):
            o = by_release[idx]
            if d[o] <= dk:
                total += p[o]
                v = r[o] + total
                if v > ect:
                    ect = v
        if ect > dk + tol:
            return False, changed
        if total == 0.0:
            continue
        # ascending release: S(r_i) = total - sum of members with r < r_i,
        # B_i = max over members with r < r_i of (r_j + S_j)
        below = 0.0          # sum p of members with release < current
        best_b = -np.inf     # max r_j + S_j over members with release < current
        idx = 0
        while idx < n:
            group_end = idx
            rel = r[by_release[idx]]
            while group_end < n and r[by_release[group_end]] == rel:
                group_end += 1
            suffix = total - below
            for g in range(idx, group_end):
                i = by_release[g]
                if d[i] <= dk:
                    continue
                last = (r[i] + p[i] + suffix > dk + tol) or (best_b + p[i] > dk + tol)
                if last and ect > new_r[i] + tol:
                    new_r[i] = ect
                    changed = True
            for g in range(idx, group_end):
                j = by_release[g]
                if d[j] <= dk:
                    v = r[j] + (total - below)
                    if v > best_b:
                        best_b = v
            for g in range(idx, group_end):
                j = by_release[g]
                if d[j] <= dk:
                    below += p[j]
            idx = group_end
    for i in range(n):
        r[i] = new_r[i]
    return True, changed


@njit(cache=True)
def _fixpoint(r, d, p, prev, lag, max_rounds, tol):  # pragma: no cover - compiled
    """Chains and edge finding to a fixpoint; ``False`` when refuted.

    ``prev[o]`` is the job's previous operation (-1 for the first), ``lag[o]``
    the compute before ``o``; operations are stored job by job, in order.
    """
    n = r.size
    for _ in range(max_rounds):
        changed = False
        for o in range(n):
            a = prev[o]
            if a >= 0:
                v = r[a] + p[a] + lag[o]
                if v > r[o] + tol:
                    r[o] = v
                    changed = True
        for o in range(n - 1, -1, -1):
            a = prev[o]
            if a >= 0:
                v = d[o] - p[o] - lag[o]
                if v < d[a] - tol:
                    d[a] = v
                    changed = True
        for o in range(n):
            if r[o] + p[o] > d[o] + tol:
                return False
        ok, c1 = _edge_find_releases(r, d, p, tol)
        if not ok:
            return False
        neg_r = -d
        neg_d = -r
        ok, c2 = _edge_find_releases(neg_r, neg_d, p, tol)
        if not ok:
            return False
        for o in range(n):
            d[o] = -neg_r[o]
        if not (changed or c1 or c2):
            break
    for o in range(n):  # noqa: SIM110 - numba compiles no generator
        if r[o] + p[o] > d[o] + tol:
            return False
    return True


def propagate_windows(releases, latest_ends, durations, previous, lags, *,
                      tol: float = 0.0, max_rounds: int = _MAX_ROUNDS
                      ) -> tuple[bool, np.ndarray, np.ndarray]:
    """Propagate the windows of one machine's operations (module docstring).

    Parameters
    ----------
    releases, latest_ends, durations
        ``r_o``, ``dbar_o`` (latest end) and ``p_o > 0``.
    previous, lags
        ``previous[o]``: the operation of the same job just before ``o``
        (-1 for none; it must have a smaller index), ``lags[o]`` the compute
        time between them.
    tol
        Absolute slack on every comparison (on the side of feasibility).

    Returns
    -------
    (feasible, r, dbar)
        ``feasible`` is ``False`` when the windows are proven to admit no
        non-preemptive schedule; then ``r``, ``dbar`` are partial.

    Examples
    --------
    Two operations of 2 due by 3 from time 0 cannot both fit:

    >>> propagate_windows([0, 0], [3, 3], [2, 2], [-1, -1], [0, 0])[0]
    False
    """
    r = np.array(releases, dtype=float)
    d = np.array(latest_ends, dtype=float)
    p = np.array(durations, dtype=float)
    prev = np.array(previous, dtype=np.int64)
    lag = np.array(lags, dtype=float)
    if not (r.shape == d.shape == p.shape == prev.shape == lag.shape) or r.ndim != 1:
        raise OptionError("propagate_windows: arrays must be 1-D of equal length")
    if prev.size and np.any(prev >= np.arange(prev.size)):
        raise OptionError("propagate_windows: previous[o] must be < o")
    if r.size == 0:
        return True, r, d
    ok = _fixpoint(r, d, p, prev, lag, max_rounds, float(tol))
    if ok and not edf_feasible(r, p, d, rel_tol=0.0 if tol == 0 else
                               tol / max(1.0, float(np.max(np.abs(d))))):
        ok = False
    return bool(ok), r, d


# -- data of one partition ------------------------------------------------------
def _partition_ops(instance: Instance) -> dict[int, dict[str, np.ndarray]]:
    """Per partition: heads ``h``, durations ``p``, tails ``q``, owner lengths
    ``T``, ``previous`` and ``lag`` of every operation, and the start ``t``."""
    if instance.has_dependencies:
        raise OptionError(f"stretch bounds: instance {instance.name!r} has "
                          "dependencies (IO-SCHED has none)")
    groups: dict[int, list] = {}
    for job in instance.jobs:
        k = job.partition
        if k is None:
            if instance.platform.num_partitions != 1:
                raise OptionError(f"stretch bounds: job {job.id!r} is not mapped "
                                  "on a multi-partition platform")
            k = 0
        groups.setdefault(k, []).append(job)
    out = {}
    for k, jobs in groups.items():
        start = max(job.release for job in jobs)
        b = instance.platform.partitions[k].bandwidth
        heads, durs, tails, lengths, prev, lags = [], [], [], [], [], []
        for job in jobs:
            length = job.length(instance.bandwidth_of(job))
            w = job.compute_array
            io = job.volume_array / b
            suffix = np.cumsum((w + io)[::-1])[::-1]
            time = start
            pending = 0.0
            last = -1
            for j in range(len(w)):
                time += w[j]
                pending += w[j]
                if io[j] > 0:
                    heads.append(time)
                    durs.append(io[j])
                    tails.append(float(suffix[j + 1]) if j + 1 < len(w) else 0.0)
                    lengths.append(length)
                    prev.append(last)
                    lags.append(pending)
                    last = len(heads) - 1
                    pending = 0.0
                time += io[j]
        out[k] = {"t": np.array(start), "h": np.array(heads), "p": np.array(durs),
                  "q": np.array(tails), "T": np.array(lengths),
                  "prev": np.array(prev, dtype=np.int64), "lag": np.array(lags)}
    return out


def _refuted(ops: dict[str, np.ndarray], rho: float) -> bool:
    """``rho`` admits no schedule of the propagated relaxation."""
    t = float(ops["t"])
    d = t + rho * ops["T"] - ops["q"]
    scale = max(1.0, abs(t) + rho * float(ops["T"].max()))
    feasible, _, _ = propagate_windows(ops["h"], d, ops["p"], ops["prev"],
                                       ops["lag"], tol=_REL_TOL * scale)
    return not feasible


def propagated_edf_bound(instance: Instance, *, lower: float | None = None,
                         precision: float = 1e-6) -> float:
    """The ``propagated-edf`` max-stretch bound of an IO-SCHED instance.

    Bisection per partition between ``lo`` (a valid bound: ``lower`` or the
    EDF bisection bound of :func:`opt_sched.bounds.max_stretch_bounds`) and a
    feasible-for-the-relaxation ``hi``; returns the largest refuted ``rho``
    (or ``lo``), within ``precision`` (relative) of the relaxation's
    threshold.
    """
    if lower is None:
        lower = max(max_stretch_bounds(instance, fixed_start=True).values())
    best = lower
    for ops in _partition_ops(instance).values():
        if ops["p"].size == 0:
            continue
        lo = lower
        if not _refuted(ops, lo):
            continue
        hi = max(lo * 2.0, 1.0 + float(ops["p"].sum()) / float(ops["T"].min()))
        while _refuted(ops, hi):
            lo, hi = hi, hi * 2.0
        while hi - lo > precision * lo:
            mid = 0.5 * (lo + hi)
            if _refuted(ops, mid):
                lo = mid
            else:
                hi = mid
        best = max(best, lo)
    return best


def stretch_bounds(instance: Instance) -> dict[str, float]:
    """The IO-SCHED max-stretch bounds by name: those of
    :func:`opt_sched.bounds.max_stretch_bounds` (fixed starts) plus
    ``propagated-edf``."""
    out = dict(max_stretch_bounds(instance, fixed_start=True))
    out["propagated-edf"] = propagated_edf_bound(instance, lower=max(out.values()))
    return out


def best_stretch_bound(instance: Instance) -> tuple[float, str]:
    """The largest of :func:`stretch_bounds`, with its name."""
    bounds = stretch_bounds(instance)
    name = max(bounds, key=bounds.__getitem__)
    return bounds[name], name
