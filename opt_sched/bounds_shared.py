"""Makespan lower bounds under the ``shared`` execution model (SPEC §10).

Under ``shared`` the I/O phases in progress on I/O node ``k`` share its
bandwidth: phase ``p`` runs at a piecewise-constant rate ``rho_p(t)`` with

.. math::

    \\rho_p(t) \\le c_p, \\qquad
    \\sum_{p \\text{ active on } k} \\rho_p(t) \\le \\eta(m)\\, b_k \\le
    \\bar\\eta\\, b_k,

``c_p`` the phase's cap (``max_rate``, default ``b_k``, and with
``node_rate`` also ``max(Q_i, 1) * node_rate``), ``m`` the number of active
phases and ``\\bar\\eta = \\max_m \\eta(m) \\le 1`` (the largest value of the
congestion curve; 1 without one). So one phase of job ``i`` on node ``k``
never moves data faster than

.. math::

    r_{ik} = \\min(\\bar\\eta\\, b_k,\\ \\text{max\\_rate},\\
                  \\max(Q_i, 1)\\, \\text{node\\_rate}),

and a job's length is at least ``T^sh_i = sum_j w_ij + V_i / r_i`` with
``r_i = max_{k in K_i} r_ik`` (``K_i`` its partition, or every partition
that can hold it: :func:`opt_sched.operations.allowed_partitions`).
Proofs: ``models/bounds.md``, "Bounds under bandwidth sharing". The bounds,
for every schedule of the ``shared`` model (any share rule, caps, curve):

- ``rate-capped-job``: ``max_i est_i + T^sh_i`` (``est_i`` the longest path
  of releases and predecessors' ``T^sh``);
- ``rate-capped-area``: ``min_i est_i + sum_i Q_i T^sh_i / P`` and, for the
  jobs mapped on ``k``, the same over ``P_k``;
- ``rate-capped-io-node``: ``H + Qt + V / sum_k eta_bar b_k``, and for the
  jobs mapped on ``k``, ``min h + min q + V_k / (eta_bar b_k)`` (heads and
  tails at the rates ``r_i``; node volumes at the node's largest aggregate
  rate).

With no cap and no curve (``r_ik = b_k``) they equal the free bounds
``longest-job``, ``area`` and ``io-node`` of :mod:`opt_sched.bounds`, which
hold under ``shared`` too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .execution.options import ExecutionSpec
from .execution.shared import parse_eta
from .instance import Instance
from .operations import allowed_partitions, heads_and_tails, job_operations

__all__ = ["HOLDS_UNDER", "SharedRates", "shared_makespan_bounds"]

HOLDS_UNDER: dict[str, frozenset[str]] = {
    "rate-capped-job": frozenset({"shared"}),
    "rate-capped-area": frozenset({"shared"}),
    "rate-capped-io-node": frozenset({"shared"}),
}
"""Bound name -> the execution models under which it is proven
(``models/bounds.md``). They read the shared model's options, so they are
computed only for a ``shared`` spec."""


@dataclass(frozen=True)
class SharedRates:
    """The rate limits of a ``shared`` spec: ``eta_bar`` (largest value of
    the congestion curve, 1 without one), ``max_rate`` and ``node_rate``
    (``None``: no such cap)."""

    eta_bar: float
    max_rate: float | None
    node_rate: float | None

    @classmethod
    def of(cls, spec: ExecutionSpec) -> SharedRates:
        """The limits of ``spec`` (a ``shared`` spec)."""
        options = spec.options
        points = parse_eta(options.get("eta"))
        eta_bar = max((value for _, value in points), default=1.0)
        return cls(min(1.0, eta_bar), options.get("max_rate"), options.get("node_rate"))

    def phase_rate(self, nodes: int, bandwidth: float) -> float:
        """``r_ik``: the fastest one phase of a job on ``nodes`` nodes can
        ever run on an I/O node of bandwidth ``bandwidth``."""
        rate = self.eta_bar * bandwidth
        if self.max_rate is not None:
            rate = min(rate, self.max_rate)
        if self.node_rate is not None:
            rate = min(rate, max(nodes, 1) * self.node_rate)
        return rate


def shared_makespan_bounds(instance: Instance,
                           execution: ExecutionSpec | str | None = "shared"
                           ) -> dict[str, float]:
    """The bounds of the module docstring, by name (``rate-capped-io-node``
    only when some job does I/O).

    Parameters
    ----------
    execution
        A ``shared`` spec (anything :meth:`ExecutionSpec.parse` reads).
    """
    spec = ExecutionSpec.parse(execution)
    if spec.model != "shared":
        raise ValueError(f"shared_makespan_bounds: execution {spec.label!r} is "
                         f"not the shared model")
    limits = SharedRates.of(spec)
    platform = instance.platform
    jobs = instance.jobs
    allowed = allowed_partitions(instance)
    rates = []
    for job, parts in zip(jobs, allowed):
        parts = parts or tuple(range(platform.num_partitions))
        rates.append(max(limits.phase_rate(job.nodes, platform.partitions[k].bandwidth)
                         for k in parts))
    lengths = [job.total_compute + (job.total_volume / r if job.total_volume > 0
                                    else 0.0) for job, r in zip(jobs, rates)]
    est, succ = heads_and_tails(instance, lengths)
    out = {"rate-capped-job": max(e + t for e, t in zip(est, lengths))}
    mapped: dict[int, list[int]] = {}
    for i, job in enumerate(jobs):
        k = instance.effective_partition(job)
        if k is not None:
            mapped.setdefault(k, []).append(i)
    work = math.fsum(job.nodes * t for job, t in zip(jobs, lengths))
    area = min(est) + work / platform.total_nodes
    for k, members in mapped.items():
        area = max(area, min(est[i] for i in members) + math.fsum(
            jobs[i].nodes * lengths[i] for i in members) / platform.partitions[k].nodes)
    out["rate-capped-area"] = area
    heads: list[float] = []
    tails: list[float] = []
    per_node: dict[int, tuple[list[float], list[float], list[float]]] = {}
    for i, job in enumerate(jobs):
        ops = job_operations(job)
        if not ops.count:
            continue
        h = (est[i] + ops.heads(rates[i])).tolist()
        q = (ops.tails(rates[i]) + succ[i]).tolist()
        heads.extend(h)
        tails.extend(q)
        k = instance.effective_partition(job)
        if k is not None:
            node = per_node.setdefault(k, ([], [], []))
            node[0].extend(h)
            node[1].extend(q)
            node[2].append(job.total_volume)
    if heads:
        volume = math.fsum(job.total_volume for job in jobs)
        capacity = math.fsum(limits.eta_bar * p.bandwidth for p in platform.partitions)
        io_node = min(heads) + min(tails) + volume / capacity
        for k, (h, q, v) in per_node.items():
            io_node = max(io_node, min(h) + min(q) + math.fsum(v) / (
                limits.eta_bar * platform.partitions[k].bandwidth))
        out["rate-capped-io-node"] = float(np.float64(io_node))
    return out
