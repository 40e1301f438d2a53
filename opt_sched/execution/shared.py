"""The ``shared`` execution model (SPEC §10; seed 001's file system).

The I/O phases in progress on one I/O node share its bandwidth ``b_k``
instead of queueing for it. With ``m`` phases in progress, node ``k``
delivers ``eta(m) b_k`` in all (``eta(m) <= 1`` is an optional congestion
efficiency: seed 001 observes that "overscheduling leads to further
overscheduling"), split by a *share rule*:

- ``share="equal"``: every phase gets the same rate;
- ``share="nodes"``: rates proportional to the jobs' node counts ``Q_i``;

and each phase's rate is capped by ``max_rate`` (default ``b_k``). Rates are
max-min fair under those weights and the cap (water filling): with the
node's level ``lambda``, phase ``p`` runs at ``min(c, omega_p lambda)``.
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
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import OptionError
from ..instance import Instance
from . import shared_kernel as sk
from .base import JobPhases
from .stepping import take_pending

__all__ = ["RateRecord", "Shared", "parse_eta"]

SHARE_RULES = ("equal", "nodes")

_STEP_KEYS = (
    "ph_off", "part", "cur", "status", "jstart", "ev_t", "ev_p", "heap", "meta",
    "w", "v", "cstart", "iostart", "ioend", "rem", "rate", "wgt", "act", "m_k",
    "pos", "t_last", "lam", "node_next", "svc", "tau", "sumw", "hsz", "zeros",
    "bands", "caps", "eta_m", "eta_v", "seg_node", "seg_t", "seg_lam", "order",
    "touched", "flag", "ended")
"""The state arrays, in the order of the kernel's step functions."""


@dataclass(frozen=True)
class RateRecord:
    """What the validator needs to recompute every rate of a ``shared``
    schedule.

    ``share`` and ``caps[k]`` (the per-phase cap on partition ``k``) define
    the rule; ``eta`` the congestion points ``((m, eta), ...)`` (empty: 1);
    ``levels[k]`` the node's level after each change, as ``(t, lambda)``
    pairs in time order (the level holds until the next pair).
    """

    share: str
    caps: tuple[float, ...]
    eta: tuple[tuple[float, float], ...]
    levels: tuple[tuple[tuple[float, float], ...], ...]

    def to_dict(self) -> dict[str, object]:
        return {"share": self.share, "caps": list(self.caps),
                "eta": [list(p) for p in self.eta],
                "levels": [[list(x) for x in part] for part in self.levels]}


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


class Shared:
    """Bandwidth sharing on every I/O node (see the module docstring).

    Parameters
    ----------
    share
        ``"equal"`` or ``"nodes"`` (proportional to ``Q_i``).
    max_rate
        The cap of one phase's rate (default: the node's bandwidth).
    eta
        The congestion curve (:func:`parse_eta`); default none.
    policy
        Accepted and ignored (there is no I/O queue to order), so that the
        same options build every model.
    """

    name = "shared"

    def __init__(self, share: str = "equal", max_rate: float | None = None,
                 eta: object = None, policy: object = None) -> None:
        if share not in SHARE_RULES:
            raise OptionError(f"share={share!r} is not one of "
                              f"{', '.join(SHARE_RULES)}")
        if max_rate is not None and not (max_rate > 0 and math.isfinite(max_rate)):
            raise OptionError(f"max_rate={max_rate!r} must be a positive number")
        self.share = share
        self.max_rate = max_rate
        self.eta = parse_eta(eta)

    def attach(self, instance: Instance) -> None:
        jobs = instance.jobs
        n = len(jobs)
        off, w, v = instance.phase_arrays
        nph = int(off[-1])
        bands = np.asarray([p.bandwidth for p in instance.platform.partitions])
        R = len(bands)
        caps = bands.copy() if self.max_rate is None else np.minimum(
            bands, self.max_rate)
        weights = (np.ones(n) if self.share == "equal" else
                   np.fromiter((max(j.nodes, 1) for j in jobs), float, n))
        segs = 2 * int(np.count_nonzero(v > 0)) + 2 * n + R + 1
        self._n = n
        self._off = off
        self._caps = caps
        self._killed: dict[int, float] = {}
        self._pending: list[tuple[int, int]] = []
        virtual = bool(np.all(caps >= bands))
        s = self._s = {
            "ph_off": off, "part": np.full(n, -1, np.int64),
            "cur": np.zeros(n, np.int64), "status": np.zeros(n, np.int8),
            "ev_t": np.zeros(n), "ev_p": np.zeros(n, np.int64),
            "heap": np.empty(max(n, 1), np.int64), "meta": np.zeros(4, np.int64),
            "w": w, "v": v, "cstart": np.full(nph, np.nan),
            "iostart": np.full(nph, np.nan), "ioend": np.full(nph, np.nan),
            "rem": np.zeros(n), "rate": np.zeros(n), "wgt": weights,
            "act": np.empty(max(R * n, 1), np.int64), "m_k": np.zeros(R, np.int64),
            "pos": np.full(n, -1, np.int64), "t_last": np.zeros(R),
            "lam": np.zeros(R), "node_next": np.full(R, np.inf),
            "bands": bands, "caps": caps,
            "eta_m": np.asarray([p[0] for p in self.eta], float),
            "eta_v": np.asarray([p[1] for p in self.eta], float),
            "seg_node": np.empty(segs, np.int64), "seg_t": np.empty(segs),
            "seg_lam": np.empty(segs), "order": np.empty(max(n, 1), np.int64),
            "touched": np.empty(R, np.int64), "flag": np.zeros(R, np.bool_),
            "ended": np.empty(max(n, 1), np.int64), "jstart": np.full(n, np.nan),
            "svc": np.zeros(R), "tau": np.zeros(n), "sumw": np.zeros(R),
            "hsz": np.zeros(R, np.int64), "zeros": np.zeros(n),
        }
        self._virtual = virtual
        self._step_args = (n, virtual, *(s[key] for key in _STEP_KEYS))

    def start(self, now: float, job: int, partition: int) -> None:
        self._pending.append((job, partition))

    def _flush(self, now: float) -> None:
        if self._pending:
            jobs, parts = take_pending(self._pending)
            s = self._s
            sk.start_jobs(jobs, parts, now, s["ph_off"], s["part"], s["cur"],
                          s["status"], s["jstart"], s["ev_t"], s["ev_p"], s["heap"],
                          s["meta"], s["w"], s["cstart"])

    def advance(self, until: float) -> tuple[float, Sequence[int]]:
        t, count = sk.advance(until, *self._step_args)
        return t, self._s["ended"][:count].tolist()

    def settle(self, now: float) -> Sequence[int]:
        self._flush(now)
        count = sk.settle(now, *self._step_args)
        return self._s["ended"][:count].tolist()

    def kill(self, now: float, job: int) -> None:
        self._killed[job] = now
        s = self._s
        sk.kill(job, now, self._n, self._virtual, s["part"], s["cur"], s["status"],
                s["iostart"], s["ioend"], s["rem"], s["rate"], s["wgt"], s["act"],
                s["m_k"], s["pos"], s["t_last"], s["lam"], s["node_next"], s["svc"],
                s["sumw"], s["touched"], s["flag"], s["meta"])

    def next_time(self) -> float:
        s = self._s
        t = float(s["node_next"].min()) if len(s["node_next"]) else math.inf
        if s["meta"][0] > 0:
            t = min(t, float(s["ev_t"][s["heap"][0]]))
        return t

    def phases(self, job: int) -> JobPhases:
        lo, hi = int(self._off[job]), int(self._off[job + 1])
        s = self._s
        cs = s["cstart"][lo:hi]
        started = int(np.count_nonzero(~np.isnan(cs)))
        io = s["iostart"][lo:hi]
        ends = s["ioend"][lo:hi]
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
        s = self._s
        count = int(s["meta"][3])
        node = s["seg_node"][:count]
        levels = []
        for k in range(len(self._caps)):
            mask = node == k
            levels.append(tuple(zip(s["seg_t"][:count][mask].tolist(),
                                    s["seg_lam"][:count][mask].tolist())))
        return RateRecord(self.share, tuple(self._caps.tolist()), self.eta,
                          tuple(levels))
