r"""An interval-indexed LP bound on the mean flow time of a window
(``models/mean-flow-lp.md``), after Hall, Schulz, Shmoys and Wein (1997),
with the two facts the combinatorial bounds drop: a job holds its ``Q_i``
nodes on one *contiguous* stretch of at least ``T_i``, and the I/O node
serves one phase at a time.

Notation of :mod:`opt_sched.bounds_flow` (``est_i``, ``ect_i``, ``T_i``,
``Q_i``, first head ``h_i``, compute after the last I/O ``a_i``, I/O time
``io_i = V_i / b``); ``F(t)`` the node-seconds free of the holds in
``[0, t)``, ``G(t)`` the I/O-node seconds free of the busy intervals.

Each job gets completion intervals ``[P_ik, U_ik]`` (``P_i0 = ect_i``,
``U_ik = P_i,k+1``, the last one ``[P_i,K-1, inf)``) and a 0/1 variable
``x_ik``: ``C_i`` lies in interval ``k``. For times ``s < t`` of a grid:

.. math::

    \sum_{i,k} Q_i\, ov_{ik}(s,t)\, x_{ik} \le F(t) - F(s), \qquad
    \sum_{i,k} io_{ik}(s,t)\, x_{ik} \le G(t) - G(s),

with ``ov_ik(s,t)`` the least overlap of ``[C - T_i, C]`` with ``[s, t]``
over ``C`` in the interval (the overlap is unimodal in ``C``: the least is
at an end; 0 for the last interval) and ``io_ik(s,t) = (io_i - (s -
h_i)^+ - (U_ik - a_i - t)^+)^+`` (0 for the last interval). Every feasible
schedule satisfies them with its own ``x`` (the job holds its nodes on
``[S_i, C_i] \supseteq [C_i - T_i, C_i]``; its I/O lies in ``[h_i, C_i -
a_i]``, one phase at a time on the node), and ``sum_i C_i >= sum_{i,k}
P_ik x_ik``. So the minimum of that integer program is a lower bound, and
for any multipliers ``lambda >= 0`` of the rows (weak duality, the
convexity rows ``sum_k x_ik = 1`` kept):

.. math::

    \sum_i C_i \ge \sum_i \min_k \Big(P_{ik} + \sum_r \lambda_r a_{r,ik}\Big)
        - \sum_r \lambda_r b_r .

HiGHS solves the LP relaxation (rows added while violated) only to
*propose* ``lambda`` (its row duals); the bound is then computed here from
``lambda`` by the formula above, so it is valid whatever the LP solver's
accuracy or time limit (``lambda = 0`` gives ``sum_i ect_i``, the ``alone``
bound). HiGHS runs in a fresh interpreter (``python -m
opt_sched.bounds_window_lp``): highspy and ortools cannot share a process
(:mod:`opt_sched.exact.milp.backend`).

Exclusive I/O with reservations only (the I/O rows need one phase at a time
and the busy intervals at full bandwidth); one partition, no dependencies.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from .bounds_flow import _jobs
from .instance import Instance
from .reservations import Reservations

__all__ = ["HOLDS_UNDER", "interval_lp_mean_flow_bound", "lagrangian_bound"]

HOLDS_UNDER: dict[str, frozenset[str]] = {"interval-lp": frozenset({"exclusive"})}
"""The I/O rows need one phase at a time and the reserved busy intervals at
full bandwidth (the exclusive rule); the node rows hold under any model."""

_INTERVALS = 32
"""Completion intervals per job."""
_GRID = 120
"""Uniform grid times (besides every ``est_i``, ``ect_i`` and hold end)."""
_GRACE = 15.0
"""Seconds the LP subprocess may overrun its limit (start-up)."""


def _completion_points(ect: np.ndarray, horizon: float, k: int) -> np.ndarray:
    """``P_ik``: ``ect_i`` then ``ect_i + d`` for geometric delays ``d`` up
    to ``horizon - ect_i`` (at least 1 s)."""
    span = np.maximum(horizon - ect, 1.0)
    low = np.maximum(span * 1e-3, 1e-3)
    ratio = np.linspace(0.0, 1.0, k - 1)
    delays = low[:, None] * (span / low)[:, None] ** ratio[None, :]
    return np.concatenate([ect[:, None], ect[:, None] + delays], axis=1)


def _node_coef(s: float, t: np.ndarray, lo: np.ndarray, up: np.ndarray,
               length: np.ndarray, nodes: np.ndarray) -> np.ndarray:
    """``Q_i ov_ik(s, t)`` for every ``t`` (shape ``(len(t), n, K)``)."""
    tt = t[:, None, None]

    def ov(c: np.ndarray) -> np.ndarray:
        c = c[None]
        out = np.minimum(tt, c) - np.maximum(s, c - length[None, :, None])
        return np.where(np.isfinite(c), np.maximum(out, 0.0), 0.0)

    return nodes[None, :, None] * np.minimum(ov(lo), ov(up))


def _io_coef(s: float, t: np.ndarray, up: np.ndarray, io: np.ndarray,
             head: np.ndarray, tail: np.ndarray) -> np.ndarray:
    """``io_ik(s, t)`` for every ``t`` (shape ``(len(t), n, K)``)."""
    tt = t[:, None, None]
    before = np.maximum(s - head, 0.0)[None, :, None]
    after = np.maximum(up[None] - tail[None, :, None] - tt, 0.0)
    out = np.maximum(io[None, :, None] - before - after, 0.0)
    return np.where(np.isfinite(up)[None], out, 0.0)


def _coefs(data: dict[str, np.ndarray], kind: int, s: float, t: np.ndarray
           ) -> np.ndarray:
    if kind == 0:
        return _node_coef(s, t, data["lo"], data["up"], data["length"],
                          data["nodes"])
    return _io_coef(s, t, data["up"], data["io"], data["head"], data["tail"])


def _rhs(data: dict[str, np.ndarray], kind: int, si: int, ti: np.ndarray
         ) -> np.ndarray:
    free = data["free_nodes"] if kind == 0 else data["free_io"]
    return free[ti] - free[si]


def lagrangian_bound(data: dict[str, np.ndarray], rows: np.ndarray,
                     lam: np.ndarray, allowed: np.ndarray | None = None) -> float:
    """``sum_i min_k (P_ik + sum_r lambda_r a_r,ik) - sum_r lambda_r b_r``
    (module doc) for rows ``(kind, s index, t index)`` and ``lambda >= 0``;
    the minimum over the intervals ``allowed`` (all by default; a branch,
    ``inf`` if a job has none)."""
    lam = np.maximum(np.asarray(lam, float), 0.0)
    grid = data["grid"]
    reduced = data["lo"].copy()
    rhs = 0.0
    for (kind, si, ti), weight in zip(rows.tolist(), lam.tolist()):
        if weight <= 0:
            continue
        coef = _coefs(data, kind, float(grid[si]), grid[[ti]])[0]
        reduced += weight * coef
        rhs += weight * float(_rhs(data, kind, si, np.array([ti]))[0])
    if allowed is not None:
        reduced = np.where(allowed > 0, reduced, np.inf)
    return math.fsum(reduced.min(axis=1).tolist()) - rhs


def propose_multipliers(data: dict[str, np.ndarray], time_limit: float,
                        allowed: np.ndarray | None = None
                        ) -> tuple[np.ndarray, np.ndarray]:
    """Row generation on the LP relaxation with HiGHS (imports highspy: run
    it in a process without ortools); ``allowed`` (0/1 per ``x_ik``) the
    intervals of a branch. Returns the rows ``(kind, s index, t index)`` and
    their multipliers ``lambda >= 0`` (the negated row duals)."""
    import highspy

    stop = time.perf_counter() + time_limit
    lo = data["lo"]
    n, k = lo.shape
    grid = data["grid"]
    g = len(grid)
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("time_limit", max(0.1, time_limit))
    upper = np.ones(n * k) if allowed is None else np.asarray(allowed, float).ravel()
    h.addVars(n * k, np.zeros(n * k), upper)
    h.changeColsCost(n * k, np.arange(n * k, dtype=np.int32), lo.ravel())
    starts = np.arange(0, n * k, k, dtype=np.int32)
    h.addRows(n, np.ones(n), np.ones(n), n * k, starts,
              np.arange(n * k, dtype=np.int32), np.ones(n * k))
    rows: list[tuple[int, int, int]] = []
    seen: set[tuple[int, int, int]] = set()

    def add(new: list[tuple[int, int, int]]) -> None:
        idx, val, st, upper = [], [], [], []
        nnz = 0
        for kind, si, ti in new:
            coef = _coefs(data, kind, float(grid[si]), grid[[ti]])[0].ravel()
            nz = np.flatnonzero(coef > 0)
            st.append(nnz)
            idx.append(nz.astype(np.int32))
            val.append(coef[nz])
            nnz += len(nz)
            upper.append(float(_rhs(data, kind, si, np.array([ti]))[0]))
            rows.append((kind, si, ti))
            seen.add((kind, si, ti))
        h.addRows(len(new), np.full(len(new), -np.inf), np.array(upper), nnz,
                  np.array(st, dtype=np.int32),
                  np.concatenate(idx) if idx else np.zeros(0, np.int32),
                  np.concatenate(val) if val else np.zeros(0))

    x = np.zeros((n, k))
    x[np.arange(n), np.argmax(upper.reshape(n, k) > 0, axis=1)] = 1.0
    kinds = (0, 1) if data["io"].max(initial=0.0) > 0 else (0,)
    scale = {0: max(1.0, float(data["free_nodes"][-1])),
             1: max(1.0, float(data["free_io"][-1]))}
    while time.perf_counter() < stop:
        found = []
        for kind in kinds:
            for si in range(g - 1):
                ti = np.arange(si + 1, g)
                lhs = np.einsum("tik,ik->t", _coefs(data, kind, float(grid[si]),
                                                    grid[ti]), x)
                over = lhs - _rhs(data, kind, si, ti)
                for j in np.flatnonzero(over > 1e-7 * scale[kind]).tolist():
                    key = (kind, si, int(ti[j]))
                    if key not in seen:
                        found.append((float(over[j]) / scale[kind], key))
        if not found:
            break
        found.sort(reverse=True)
        add([key for _, key in found[:200]])
        h.setOptionValue("time_limit", max(0.1, stop - time.perf_counter()))
        h.run()
        if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            break
        x = np.asarray(h.getSolution().col_value).reshape(n, k)
    if not rows:
        return np.zeros((0, 3), int), np.zeros(0)
    duals = np.asarray(h.getSolution().row_dual)[n:]
    return np.array(rows, int), np.maximum(-duals, 0.0)


def _lp_data(instance: Instance, reservations: Reservations | None,
             horizon: float | None) -> dict[str, np.ndarray]:
    jobs = _jobs(instance, reservations)
    n = len(jobs)
    bandwidth = instance.platform.partitions[0].bandwidth
    nodes = instance.platform.partitions[0].nodes
    ect = np.array([job.ect for job in jobs])
    length = np.array([job.length for job in jobs])
    if horizon is None or not horizon > ect.max():
        horizon = float(ect.max() + length.sum())
    lo = _completion_points(ect, horizon, _INTERVALS)
    up = np.concatenate([lo[:, 1:], np.full((n, 1), np.inf)], axis=1)
    res = reservations if reservations is not None else Reservations()
    times = {0.0, float(horizon)}
    times.update(float(v) for v in np.linspace(0.0, horizon, _GRID))
    times.update(job.est for job in jobs)
    times.update(job.ect for job in jobs)
    times.update(e for e, _ in res.node_holds if e < horizon)
    # where a wide job may run: the ends and starts of its intervals
    widest = max(job.nodes for job in jobs)
    for i, job in enumerate(jobs):
        if job.length > 0 and (2 * job.nodes > nodes or job.nodes == widest):
            times.update(float(v) for v in lo[i] if v <= horizon)
            times.update(float(v) for v in lo[i] - job.length if 0 <= v <= horizon)
    grid = np.array(sorted(times))
    node_rate = res.node_profile(nodes)
    io_rate = res.io_profile(1.0)
    return {"lo": lo, "up": up, "length": length,
            "nodes": np.array([job.nodes for job in jobs], float),
            "io": np.array([job.volume / bandwidth for job in jobs]),
            "head": np.array([job.first_head for job in jobs]),
            "tail": np.array([job.last_tail for job in jobs]),
            "grid": grid,
            "free_nodes": np.asarray(node_rate.work(grid), float),
            "free_io": np.asarray(io_rate.work(grid), float),
            "releases": np.array([job.release for job in jobs])}


def _branch_masks(data: dict[str, np.ndarray], branches: int) -> np.ndarray:
    """``allowed`` of each branch: the widest job's completion intervals cut
    into ``branches`` runs of consecutive intervals (every schedule falls in
    one); one branch (everything allowed) if ``branches <= 1``."""
    n, k = data["lo"].shape
    if branches <= 1 or n < 2:
        return np.ones((1, n, k))
    widest = int(np.argmax(data["nodes"] * (data["length"] > 0)))
    masks = []
    for chunk in np.array_split(np.arange(k), min(branches, k)):
        mask = np.ones((n, k))
        mask[widest] = 0.0
        mask[widest, chunk] = 1.0
        masks.append(mask)
    return np.array(masks)


def propose_branches(data: dict[str, np.ndarray], masks: np.ndarray,
                     time_limit: float) -> tuple[np.ndarray, np.ndarray]:
    """:func:`propose_multipliers` for each branch, the time shared out;
    rows ``(branch, kind, s index, t index)`` and their multipliers."""
    stop = time.perf_counter() + time_limit
    rows, lams = [np.zeros((0, 4), int)], [np.zeros(0)]
    for b, mask in enumerate(masks):
        left = (stop - time.perf_counter()) / (len(masks) - b)
        if left <= 0.05:
            break
        r, lam = propose_multipliers(data, left, mask)
        rows.append(np.column_stack([np.full(len(r), b, int), r.reshape(-1, 3)]))
        lams.append(lam)
    return np.concatenate(rows).astype(int), np.concatenate(lams)


def interval_lp_mean_flow_bound(instance: Instance, *,
                                reservations: Reservations | None = None,
                                time_limit: float = 10.0,
                                horizon: float | None = None,
                                branches: int = 1,
                                in_process: bool = False) -> dict[str, float]:
    """``{"interval-lp": bound}`` on the mean flow time (module doc), for a
    one-partition instance without dependencies (empty otherwise, or when
    the LP subprocess fails). ``horizon``: where the completion intervals
    end (e.g. an incumbent's makespan; any value is valid, it only sets
    the resolution). ``branches``: the widest job's completion intervals
    cut into that many runs, one LP each, the bound the least of them.
    ``in_process``: import highspy here (only in a process that never loads
    ortools)."""
    if instance.platform.num_partitions != 1 or instance.has_dependencies \
            or not instance.num_jobs:
        return {}
    data = _lp_data(instance, reservations, horizon)
    masks = _branch_masks(data, branches)
    if in_process:
        rows, lam = propose_branches(data, masks, time_limit)
    else:
        proposal = _propose_in_subprocess(data, masks, time_limit)
        if proposal is None:
            return {}
        rows, lam = proposal
    total = min(lagrangian_bound(data, rows[rows[:, 0] == b, 1:],
                                 lam[rows[:, 0] == b], mask)
                for b, mask in enumerate(masks))
    releases = math.fsum(data["releases"].tolist())
    return {"interval-lp": (total - releases) / instance.num_jobs}


def _propose_in_subprocess(data: dict[str, np.ndarray], masks: np.ndarray,
                           time_limit: float) -> tuple[np.ndarray, np.ndarray] | None:
    with tempfile.TemporaryDirectory(prefix="opt-sched-lp-") as folder:
        request = os.path.join(folder, "request.npz")
        answer = os.path.join(folder, "answer.npz")
        np.savez(request, time_limit=np.array(time_limit), masks=masks, **data)
        try:
            proc = subprocess.run(
                [sys.executable, "-m", "opt_sched.bounds_window_lp", request, answer],
                capture_output=True, text=True, timeout=time_limit + _GRACE)
        except subprocess.TimeoutExpired:
            return None
        if proc.returncode != 0 or not os.path.exists(answer):
            return None
        with np.load(answer) as out:
            return out["rows"].astype(int), out["lam"].astype(float)


def _main(argv: list[str]) -> int:
    """``python -m opt_sched.bounds_window_lp REQUEST ANSWER`` (npz files)."""
    request, answer = argv
    with np.load(request) as f:
        data = {key: f[key] for key in f.files}
    limit = float(data.pop("time_limit"))
    masks = data.pop("masks")
    rows, lam = propose_branches(data, masks, limit)
    tmp = answer + ".part.npz"
    np.savez(tmp, rows=rows, lam=lam)
    os.replace(tmp, answer)
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
