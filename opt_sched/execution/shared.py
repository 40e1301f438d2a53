"""The ``shared`` execution model (SPEC §10; seed 001's file system).

The I/O phases in progress on one I/O node share its bandwidth ``b_k``
instead of queueing for it. With ``m`` phases in progress, node ``k``
delivers ``eta(m) b_k`` in all (``eta(m) <= 1`` is an optional congestion
efficiency: seed 001 observes that "overscheduling leads to further
overscheduling"), split by a *share rule*:

- ``share="equal"``: every phase gets the same rate;
- ``share="nodes"``: rates proportional to the jobs' node counts ``Q_i``;

and each phase's rate is capped by ``max_rate`` (default ``b_k``) and, with
``node_rate``, by ``max(Q_i, 1) * node_rate`` (a per-node client limit: a job
on more nodes can move data faster alone). Rates are max-min fair under
those weights and caps (water filling): with the node's level ``lambda``,
phase ``p`` runs at ``min(c_p, omega_p lambda)``.
They change only when a phase starts or ends, and a phase ends when the
integral of its rate reaches its volume.

The schedule states every I/O end (``io_ends``) and the rate record
(:class:`RateRecord`: per node, the level after each change), from which the
validator recomputes every rate independently.

Examples
--------
Two equal phases of volume 1 that start together on a node of bandwidth 1
each get rate 1/2 and end together at time 2 (tested).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..errors import OptionError
from ..instance import Instance
from . import shared_kernel as sk
from .base import JobPhases
from .option_values import number_text, positive_number
from .stepping import take_pending

__all__ = ["RateRecord", "Shared", "parse_eta"]

SHARE_RULES = ("equal", "nodes")

@dataclass(frozen=True, eq=False)
class RateRecord:
    """What the validator needs to recompute every rate of a ``shared``
    schedule.

    ``share``, ``caps[k]`` (the per-phase cap on partition ``k``) and
    ``node_rate`` (``None``, or the cap per node of the job: a phase of a job
    on ``Q_i`` nodes is also capped at ``max(Q_i, 1) * node_rate``) define
    the rule; ``eta`` the congestion points ``((m, eta), ...)`` (empty: 1);
    ``levels[k]`` the node's level after each change, an ``(s, 2)`` array of
    ``(t, lambda)`` rows in time order (the level holds until the next row).
    A replay records a row per node and instant where the node's phases
    changed (two per I/O phase): the rows stay numpy arrays, also in
    :meth:`to_dict`, and become JSON lists only when a schedule is written
    (:func:`opt_sched.json_files.schedule_to_dict`).
    """

    share: str
    caps: tuple[float, ...]
    eta: tuple[tuple[float, float], ...]
    levels: tuple[np.ndarray, ...]
    node_rate: float | None = None

    def to_dict(self) -> dict[str, object]:
        """The ``execution_record`` of a schedule (``levels``: one array
        per partition, as in the record)."""
        out: dict[str, object] = {
            "share": self.share, "caps": list(self.caps),
            "eta": [list(p) for p in self.eta], "levels": list(self.levels)}
        if self.node_rate is not None:
            out["node_rate"] = self.node_rate
        return out


def parse_eta(eta: object) -> tuple[tuple[float, float], ...]:
    """The congestion curve as increasing ``(m, eta(m))`` points.

    Accepts ``None`` (no congestion), a sequence of pairs, or a string
    ``"1:1,4:0.9,16:0.7"``. ``eta`` is interpolated linearly between points
    and constant outside them; every value must lie in ``(0, 1]``.
    """
    if eta is None or eta == "" or eta == "none":
        return ()
    if isinstance(eta, str):
        try:
            pairs = [tuple(float(x) for x in item.split(":"))
                     for item in eta.split(",")]
        except ValueError:
            raise OptionError(f"eta={eta!r} is not 'm:eta,m:eta,...'") from None
    else:
        pairs = [tuple(p) for p in eta]  # type: ignore[union-attr]
    out = []
    for pair in pairs:
        if len(pair) != 2:
            raise OptionError(f"eta={eta!r}: {pair!r} is not an (m, eta) pair")
        m, value = float(pair[0]), float(pair[1])
        if not (m >= 1 and math.isfinite(m)) or not 0 < value <= 1:
            raise OptionError(f"eta={eta!r}: point ({m:g}, {value:g}) needs m >= 1 "
                              f"and 0 < eta <= 1")
        out.append((m, value))
    if any(b[0] <= a[0] for a, b in itertools.pairwise(out)):
        raise OptionError(f"eta={eta!r}: the m values must increase")
    return tuple(out)


def share_rule(key: str, value: object) -> str:
    """The ``share`` option: one of :data:`SHARE_RULES`."""
    if value not in SHARE_RULES:
        raise OptionError(f"execution {key}={value!r} is not one of "
                          f"{', '.join(SHARE_RULES)}")
    return str(value)


def eta_text(key: str, value: object) -> str | None:
    """The ``eta`` option in canonical text, ``"1:1,4:0.8"`` (``None``: no
    point, no congestion)."""
    points = parse_eta(value)
    return ",".join(f"{number_text(m)}:{number_text(e)}" for m, e in points) or None


class Shared:
    """Bandwidth sharing on every I/O node (see the module docstring).

    Parameters
    ----------
    share
        ``"equal"`` or ``"nodes"`` (proportional to ``Q_i``).
    max_rate
        The cap of one phase's rate (default: the node's bandwidth).
    node_rate
        The cap of one phase's rate per node of its job: a phase of a job on
        ``Q_i`` nodes runs at most at ``max(Q_i, 1) * node_rate`` (default:
        none).
    eta
        The congestion curve (:func:`parse_eta`); default none.
    policy
        Accepted and ignored (there is no I/O queue to order), so that the
        same options build every model.
    """

    name = "shared"
    OPTIONS: ClassVar[Mapping[str, Callable[[str, object], object]]] = {
        "share": share_rule, "max_rate": positive_number,
        "node_rate": positive_number, "eta": eta_text}
    """The options an :class:`~opt_sched.execution.options.ExecutionSpec`
    of this model takes, in canonical order: name -> check and canonical
    form."""

    def __init__(self, share: str = "equal", max_rate: float | None = None,
                 eta: object = None, policy: object = None,
                 node_rate: float | None = None) -> None:
        if share not in SHARE_RULES:
            raise OptionError(f"share={share!r} is not one of "
                              f"{', '.join(SHARE_RULES)}")
        if max_rate is not None and not (max_rate > 0 and math.isfinite(max_rate)):
            raise OptionError(f"max_rate={max_rate!r} must be a positive number")
        if node_rate is not None and not (node_rate > 0 and math.isfinite(node_rate)):
            raise OptionError(f"node_rate={node_rate!r} must be a positive number")
        self.share = share
        self.max_rate = max_rate
        self.node_rate = node_rate
        self.eta = parse_eta(eta)

    def attach(self, instance: Instance) -> None:
        jobs = instance.jobs
        n = len(jobs)
        off, w, v = instance.phase_arrays
        bands = np.asarray([p.bandwidth for p in instance.platform.partitions],
                           float)
        caps = bands.copy() if self.max_rate is None else np.minimum(
            bands, self.max_rate)
        sizes = np.fromiter((max(j.nodes, 1) for j in jobs), float, n)
        weights = np.ones(n) if self.share == "equal" else sizes
        ncap = (np.full(n, np.inf) if self.node_rate is None
                else sizes * self.node_rate)
        eta = np.asarray(self.eta, float).reshape(-1, 2).T.copy()
        self._n = n
        self._off = off
        self._caps = caps
        self._killed: dict[int, float] = {}
        self._pending: list[tuple[int, int]] = []
        self._virtual = bool(np.all(caps >= bands)) and bool(
            n == 0 or len(bands) == 0 or ncap.min() >= bands.max())
        state = sk.new_state(off, w, v, weights, bands, caps, eta, ncap)
        (_, self._ji, self._jf, self._pf, self._ki, self._kf, self._act,
         self._seg, self._seg_node, self._meta) = state
        self._offl = off.tolist()
        self._ended = self._ji[sk.J_ENDED]
        self._step_args = (n, self._virtual, *state)

    def start(self, now: float, job: int, partition: int) -> None:
        self._pending.append((job, partition))

    def advance(self, until: float) -> tuple[float, Sequence[int]]:
        t, count = sk.step(float(until), False, *self._step_args)
        return t, self._ended[:count].tolist()

    def settle(self, now: float) -> Sequence[int]:
        if self._pending:
            jobs, parts = take_pending(self._pending)
            sk.start_jobs(jobs, parts, float(now), self._off, self._ji, self._jf,
                          self._pf, self._meta)
        count = sk.step(float(now), True, *self._step_args)[1]
        return self._ended[:count].tolist()

    def kill(self, now: float, job: int) -> None:
        self._killed[job] = now
        sk.kill(job, float(now), self._n, self._virtual, self._ji, self._jf,
                self._pf, self._ki, self._kf, self._act, self._meta)

    def next_time(self) -> float:
        nxt = self._kf[sk.KF_NEXT]
        t = float(nxt.min()) if len(nxt) else math.inf
        if self._meta[0] > 0:
            t = min(t, float(self._jf[sk.F_EVT, self._ji[sk.J_HEAP, 0]]))
        return t

    def all_phases(self) -> list[JobPhases]:
        """:meth:`phases` of every job, in job order (one pass)."""
        pf = self._pf
        cs, io, ie = (pf[row].tolist()
                      for row in (sk.P_CSTART, sk.P_IOSTART, sk.P_IOEND))
        done = (self._ji[sk.J_STATUS, :self._n] == sk.DONE).tolist()
        killed = self._killed
        off = self._offl
        return [JobPhases(tuple(cs[off[i]:off[i + 1]]), tuple(io[off[i]:off[i + 1]]),
                          tuple(ie[off[i]:off[i + 1]]))
                if done[i] and i not in killed else self.phases(i)
                for i in range(self._n)]

    def phases(self, job: int) -> JobPhases:
        lo, hi = int(self._off[job]), int(self._off[job + 1])
        pf = self._pf
        cs = pf[sk.P_CSTART, lo:hi]
        started = int(np.count_nonzero(~np.isnan(cs)))
        io = pf[sk.P_IOSTART, lo:hi]
        ends = pf[sk.P_IOEND, lo:hi]
        io_started = int(np.count_nonzero(~np.isnan(io)))
        compute = cs[:started].tolist()
        io_s = io[:io_started].tolist()
        io_e = ends[:io_started].tolist()
        killed_at = self._killed.get(job)
        if killed_at is not None:
            compute = compute[:1] + [c for c in compute[1:] if c < killed_at]
            keep = [m for m, o in enumerate(io_s[:len(compute)]) if o < killed_at]
            io_s = [io_s[m] for m in keep]
            io_e = [min(io_e[m], killed_at) if not math.isnan(io_e[m]) else killed_at
                    for m in keep]
        return JobPhases(tuple(compute), tuple(io_s), tuple(io_e))

    def record(self) -> RateRecord:
        """The rate record of the replay (see :class:`RateRecord`)."""
        count = int(self._meta[sk.NSEG])
        pairs = self._seg[:count]  # (t, lambda) rows
        R = len(self._caps)
        if R == 1:
            levels: tuple[np.ndarray, ...] = (pairs,)
        else:
            node = self._seg_node[:count]
            levels = tuple(pairs[node == k] for k in range(R))
        return RateRecord(self.share, tuple(self._caps.tolist()), self.eta, levels,
                          self.node_rate)
