r"""Rule 5 under the ``shared`` execution model (SPEC §10, seed 001).

The I/O phases in progress on one I/O node share its bandwidth. A schedule
made under this model states every I/O end (``io_ends``) and records, in
``Schedule.execution_record``, the share rule and, per partition ``k``, the
node's *level* as a step function ``lambda_k(t)``:

- ``share``: ``"equal"`` (weight ``omega_p = 1``) or ``"nodes"``
  (``omega_p = Q_i``);
- ``caps[k]``: the largest rate of one phase on ``k``;
- ``node_rate`` (optional): the largest rate per node of the phase's job, so
  that phase ``p`` of a job on ``Q_i`` nodes has the cap
  ``c_p = min(caps[k], max(Q_i, 1) node_rate)`` (``c_p = caps[k]`` without
  it);
- ``eta``: the congestion points ``[[m, eta], ...]`` (linear between them,
  constant outside, 1 if empty);
- ``levels[k]``: ``[[t, lambda], ...]`` in time order (``lambda = 0``
  before the first).

From these alone the rule recomputes the rate of every phase,

.. math:: \rho_p(t) = \min\big(c_p, \omega_p \lambda_k(t)\big)
          \quad \text{for } t \in [o_p, e_p),

and checks, with the schedule's stated ``[o_p, e_p)``:

- *capacity*: at every time, over the ``m`` phases in progress on ``k``,
  :math:`\sum_p \rho_p(t) \le \eta(m) b_k + \rho\, b_k`; a phase counts as in
  progress on :math:`[o_p, e_p - \tau_p)`, its end shortened by its
  tolerance, as under exclusive I/O, so two phases that touch up to
  rounding never add up;
- *volume*: every phase moves exactly its volume,
  :math:`|\int_{o_p}^{e_p} \rho_p - v_p| \le (\tau_p + (1 + m_p)\,k\,u(e_p))
  \min(c_p, b_k) + \rho\, v_p`, with :math:`m_p` the level points inside
  the phase: each time the integral reads may be off by its rounding
  (a phase cut by a wall-time kill moves at most ``v_p``);

(:math:`\tau_p` the tolerance of the end of phase ``p`` and :math:`\rho` =
``rel_tol``, :mod:`~opt_sched.validation.tolerance`.)
- every I/O phase of positive volume states its end.

The checks use sorted breakpoints and prefix sums of the level function;
they share no code with the simulator.
"""

from __future__ import annotations

import numpy as np

from ...errors import ScheduleFormatError
from ...instance import Instance
from ...schedule import Schedule
from ..io_rule import IoPhases
from ..report import IO_RULE, Collector, format_time
from ..table import PhaseTable, phase_label
from ..tolerance import PhaseTolerances

__all__ = ["SharedIo"]


def _record(schedule: Schedule, partitions: int) -> dict:
    record = schedule.execution_record
    where = "schedule: execution_record"
    if not isinstance(record, dict):
        raise ScheduleFormatError(f"{where} is missing (a 'shared' schedule needs "
                                  f"its rate levels)")
    share = record.get("share")
    if share not in ("equal", "nodes"):
        raise ScheduleFormatError(f"{where}: share={share!r} is not equal or nodes")
    try:
        caps = [float(c) for c in record["caps"]]
        eta = [(float(m), float(e)) for m, e in record.get("eta", [])]
        levels = [np.asarray(part, dtype=float).reshape(-1, 2)
                  for part in record["levels"]]
    except (KeyError, TypeError, ValueError):
        raise ScheduleFormatError(f"{where}: caps and levels must be lists of "
                                  f"numbers and of [t, level] pairs") from None
    if len(caps) != partitions or len(levels) != partitions:
        raise ScheduleFormatError(f"{where}: {len(caps)} caps and {len(levels)} level "
                                  f"lists for {partitions} partitions")
    for k, lv in enumerate(levels):
        if not np.isfinite(lv).all() or (lv[:, 1] < 0).any():
            raise ScheduleFormatError(f"{where}: levels[{k}] holds a value that is "
                                      f"not a finite non-negative number")
        if (np.diff(lv[:, 0]) < 0).any():
            raise ScheduleFormatError(f"{where}: levels[{k}] are not in time order")
    node_rate = record.get("node_rate")
    if node_rate is not None and (isinstance(node_rate, bool)
                                  or not isinstance(node_rate, (int, float))
                                  or not node_rate > 0):
        raise ScheduleFormatError(f"{where}: node_rate={node_rate!r} is not a "
                                  f"positive number")
    return {"share": share, "caps": caps, "eta": eta, "levels": levels,
            "node_rate": None if node_rate is None else float(node_rate)}


def _eta(m: np.ndarray, points: list[tuple[float, float]]) -> np.ndarray:
    if not points:
        return np.ones(len(m))
    xs = np.asarray([p[0] for p in points])
    ys = np.asarray([p[1] for p in points])
    return np.interp(m, xs, ys)


def _level_at(lv: np.ndarray, t: np.ndarray) -> np.ndarray:
    """``lambda(t)``, the last level set at or before ``t`` (0 before)."""
    pos = np.searchsorted(lv[:, 0], t, side="right") - 1
    out = np.zeros(len(t))
    ok = pos >= 0
    out[ok] = lv[pos[ok], 1]
    return out


def _rate_integral(lv: np.ndarray, cap: float, weight: float, a: np.ndarray,
                   b: np.ndarray) -> np.ndarray:
    """``int_a^b min(cap, weight * lambda(t)) dt`` for each ``[a, b)``."""
    times = lv[:, 0]
    rates = np.minimum(cap, weight * lv[:, 1])
    # prefix integral at the level times: F(times[s])
    prefix = np.concatenate(([0.0], np.cumsum(rates[:-1] * np.diff(times))))

    def F(t: np.ndarray) -> np.ndarray:
        pos = np.searchsorted(times, t, side="right") - 1
        out = np.zeros(len(t))
        ok = pos >= 0
        out[ok] = prefix[pos[ok]] + rates[pos[ok]] * (t[ok] - times[pos[ok]])
        return out

    return F(b) - F(a)


class SharedIo:
    """Bandwidth sharing: the validator's side of ``shared``."""

    execution = "shared"
    name = "shared-io"

    def io_ends(self, instance: Instance, schedule: Schedule,
                phases: IoPhases) -> np.ndarray:
        """The stated ends (``o + v/b``, the fastest possible, where a phase
        states none; :meth:`check` reports those)."""
        alone = phases.start + phases.volume / phases.bandwidth
        return np.where(np.isnan(phases.stated_end), alone, phases.stated_end)

    def check(self, instance: Instance, schedule: Schedule, table: PhaseTable,
              tol: PhaseTolerances, out: Collector) -> None:
        parts = instance.platform.partitions
        rec = _record(schedule, len(parts))
        live = np.flatnonzero(table.o_started & (table.o_volume > 0))
        missing = live[np.isnan(table.o_stated[live])]
        out.found(IO_RULE, len(missing))
        for slot in missing[:out.room(IO_RULE)]:
            label = phase_label(table, slot, "io")
            out.add(IO_RULE, f"{label} states no end (a shared I/O phase's end is "
                    f"not v/b)", jobs=(table.ids[table.job[slot]],), phases=(label,),
                    time=table.o_start[slot])
        sizes = np.maximum(table.nodes, 1).astype(float)
        weight_of = np.ones(len(table.nodes)) if rec["share"] == "equal" else sizes
        node_cap = (np.full(len(sizes), np.inf) if rec["node_rate"] is None
                    else sizes * rec["node_rate"])
        for k, part in enumerate(parts):
            mine = live[table.partition[table.job[live]] == k]
            if not len(mine):
                continue
            caps = np.minimum(rec["caps"][k], node_cap[table.job[mine]])
            self._volumes(table, mine, rec, k, part.bandwidth, weight_of, caps, tol,
                          out)
            self._capacity(table, mine, rec, k, part.bandwidth, weight_of, caps, tol,
                           out)

    @staticmethod
    def _volumes(table, mine, rec, k, band, weight_of, caps, tol, out) -> None:
        lv = rec["levels"][k]
        weights = weight_of[table.job[mine]]
        moved = np.empty(len(mine))
        pairs = np.stack((weights, caps), axis=1)
        for w, cap in np.unique(pairs, axis=0):
            sel = (weights == w) & (caps == cap)
            moved[sel] = _rate_integral(lv, float(cap), float(w),
                                        table.o_start[mine[sel]],
                                        table.o_end[mine[sel]])
        volume = table.o_volume[mine]
        # each time the integral reads (the phase's start and end, and the m
        # level points inside it) may be off by its rounding, which moves at
        # most the phase's fastest rate times that much
        starts, ends = table.o_start[mine], table.o_end[mine]
        inside = (np.searchsorted(lv[:, 0], ends, side="left")
                  - np.searchsorted(lv[:, 0], starts, side="right"))
        times = tol.io[mine] + tol.rule.times(ends) * (1 + np.maximum(inside, 0))
        slack = times * np.minimum(caps, band) + tol.rule.rel_tol * volume
        # a killed job's phase that ends at the kill may move less
        kill = table.killed_at[table.job[mine]]
        at_kill = np.abs(table.o_end[mine] - kill) <= tol.rule.times(kill)
        cut = ~np.isnan(kill) & at_kill
        short = np.abs(moved - volume) > slack
        short[cut] = moved[cut] > volume[cut] + slack[cut]
        bad = np.flatnonzero(short)
        out.found(IO_RULE, len(bad))
        for q in bad[:out.room(IO_RULE)]:
            slot = mine[q]
            label = phase_label(table, slot, "io")
            out.add(IO_RULE, f"{label} [{format_time(table.o_start[slot])}, "
                    f"{format_time(table.o_end[slot])}) moves {moved[q]:.10g} at the "
                    f"recorded rates on partition {k}, not its volume "
                    f"{volume[q]:.10g}", jobs=(table.ids[table.job[slot]],),
                    phases=(label,), time=table.o_start[slot])

    @staticmethod
    def _capacity(table, mine, rec, k, band, weight_of, caps, tol, out) -> None:
        lv = rec["levels"][k]
        starts, ends = table.o_start[mine], table.o_end[mine] - tol.io[mine]
        weights = weight_of[table.job[mine]]
        cuts = np.unique(np.concatenate((starts, ends, lv[:, 0])))
        if len(cuts) < 2:
            return
        mid = (cuts[:-1] + cuts[1:]) / 2
        # phases in progress at each mid point: +1 at start, -1 at end
        order_s, order_e = np.sort(starts), np.sort(ends)
        m = (np.searchsorted(order_s, mid, side="right")
             - np.searchsorted(order_e, mid, side="right"))
        ws = np.concatenate(([0.0], np.cumsum(weights[np.argsort(starts)])))
        we = np.concatenate(([0.0], np.cumsum(weights[np.argsort(ends)])))
        at_s = np.searchsorted(order_s, mid, side="right")
        at_e = np.searchsorted(order_e, mid, side="right")
        total_w = ws[at_s] - we[at_e]
        # the caps are finite (caps[k] is), so their prefix sums are too
        cs = np.concatenate(([0.0], np.cumsum(caps[np.argsort(starts)])))
        ce = np.concatenate(([0.0], np.cumsum(caps[np.argsort(ends)])))
        total_c = cs[at_s] - ce[at_e]
        level = _level_at(lv, mid)
        slack = tol.rule.rel_tol * band
        limit = _eta(m.astype(float), rec["eta"]) * band + slack
        # sum_p min(c_p, w_p lambda) <= min(lambda W, sum_p c_p): exact when no
        # cap binds, or all do; otherwise recount the phases of that interval
        bound = np.minimum(level * total_w, total_c * (1 + 1e-12))
        suspect = np.flatnonzero((m > 0) & (bound > limit))
        bad = []
        for s in suspect:
            here = (starts <= mid[s]) & (mid[s] < ends)
            used = float(np.minimum(caps[here], weights[here] * level[s]).sum())
            if used > limit[s]:
                bad.append((s, used))
        out.found(IO_RULE, len(bad))
        for s, used in bad[:out.room(IO_RULE)]:
            here = mine[(starts <= mid[s]) & (mid[s] < ends)]
            jobs = tuple(dict.fromkeys(table.ids[table.job[q]] for q in here))
            out.add(IO_RULE, f"partition {k} delivers {used:.10g} on "
                    f"[{format_time(cuts[s])}, {format_time(cuts[s + 1])}) to "
                    f"{int(m[s])} phases, above eta(m) b = "
                    f"{limit[s] - slack:.10g}",
                    jobs=jobs[:12], phases=(), time=float(cuts[s]))
