r"""The independent validator of gang schedules (``serverless-gang``).

It judges a :class:`~opt_sched.gang.record.GangRecord` against a
:class:`~opt_sched.gang.workload.GangWorkload` from the stated slices and
runs alone: it never imports the simulator, the matrix or the schedulers,
and recomputes every job's work from the workload's times.

Notation: slice ``s`` is :math:`[a_s, b_s)` on row :math:`\rho_s`; run ``k``
puts job ``i(k)`` in slice ``s(k)`` on placement :math:`\pi_k` (a tuple of
nodes, one per task) with a stall :math:`\sigma_k` and a stated locality
:math:`l_k`. Job ``i`` arrives at :math:`t^a_i`, is admitted at
:math:`t^{adm}_i`, finishes at :math:`t^f_i`, has :math:`n_i` tasks, file
nodes :math:`F_i`, all-local time :math:`t^{e'}_i` and remote time
:math:`t^{rem}_i`. A run's effective length is
:math:`\ell_k = e_k - a_{s(k)} - \sigma_k` with :math:`e_k = t^f_i` for the
job's last run and :math:`e_k = b_{s(k)}` otherwise. Each comparison
absorbs what floating point can lose at the times compared, the tolerance
of :mod:`opt_sched.validation.tolerance`: :math:`\varepsilon = k\,u(t) +
\rho L`, ``u(t)`` the spacing of floats at the time ``t`` compared, ``L``
the length involved (a slice, a job's work) and :math:`\rho` = ``rel_tol``;
a sum over the ``n`` runs of a job absorbs ``n`` times the ulps. It never
grows with the clock, nor with any other time of the record:

1. **release** -- no job runs before it arrives:
   :math:`t^{adm}_i \ge t^a_i - \varepsilon` and
   :math:`a_{s(k)} \ge \max(t^a_i, t^{adm}_i) - \varepsilon` for every run.
2. **node-exclusive** -- no node runs two tasks in one slice: the
   placements of the runs of a slice are pairwise disjoint; nodes lie in
   ``0..P-1``; slices are one row at a time,
   :math:`a_{s+1} \ge b_s - \varepsilon`, last at most one quantum,
   :math:`0 \le b_s - a_s \le T + \varepsilon`, on a row ``0..mpl-1``.
3. **gang** -- every task of a job runs in the same slices: each placement
   has exactly :math:`n_i` distinct nodes (all tasks, co-scheduled), a run
   names an existing placement, and a job runs at most once per slice.
4. **work** -- each job gets exactly its work:
   :math:`\left|\sum_{k: l_k} \ell_k + \sum_{k: \neg l_k} \ell_k\,
   t^{e'}_i / t^{rem}_i - t^{e'}_i\right| \le \varepsilon`
   (all-local seconds); its finish lies in its last run,
   :math:`a_{s} + \sigma \le t^f_i \le b_s` (within :math:`\varepsilon`), so
   it runs in no slice after it finished; stalls are migration costs,
   :math:`0 \le \sigma_k \le b_{s(k)} - a_{s(k)}` and
   :math:`\sum_k \sigma_k = C\,(|\text{placements}_i| - 1)`; a job never
   returns to an earlier placement.
5. **io-locality** -- the I/O cost matches the locality: :math:`l_k` is
   true iff :math:`\mathrm{set}(\pi_k) = F_i` (all-or-nothing, seed §2.3);
   the record's file nodes, if it states them, are the workload's.
6. **coverage** -- no job is lost: every workload job is in the record once,
   with at least one run and a finite finish; the record names no other
   job.

Every violation is reported (up to ``max_per_rule`` stored per rule, all
counted), as a :class:`~opt_sched.validation.report.Violation` (its ``phases``: the
slices, ``"slice 3"``) whose message starts with
``"rule <n> <name>:"`` and names the job, node, slice and time.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..errors import InfeasibleScheduleError, ScheduleFormatError
from ..schedule import Schedule
from ..validation.report import Collector, Violation
from ..validation.tolerance import Tolerance
from .record import GangRecord
from .workload import GangWorkload, workload_from_dict

__all__ = ["GANG_RULES", "assert_gang_feasible", "slice_names", "validate_gang"]

GANG_RULES: dict[int, str] = {
    1: "release",
    2: "node-exclusive",
    3: "gang",
    4: "work",
    5: "io-locality",
    6: "coverage",
}
"""Rule number -> name."""


def _t(x: float) -> str:
    return f"{x:.10g}"


def slice_names(slices: tuple[int, ...]) -> tuple[str, ...]:
    """The slices a violation concerns, as the report's ``phases``
    (``"slice 3"``): a gang violation is a
    :class:`~opt_sched.validation.report.Violation` like any other."""
    return tuple(f"slice {int(s)}" for s in slices)


class _Out:
    """The validator's :class:`~opt_sched.validation.report.Collector` under
    the gang rules; the slices a violation concerns are its phases
    (:func:`slice_names`)."""

    def __init__(self, cap: int) -> None:
        self.collector = Collector(cap, GANG_RULES)

    def add(self, rule: int, text: str, jobs: tuple[str, ...] = (),
            slices: tuple[int, ...] = (), time: float | None = None) -> None:
        self.collector.one(rule, text, jobs, slice_names(slices), time)

    def all(self) -> list[Violation]:
        return list(self.collector.violations())


def _as_record(schedule: GangRecord | Schedule | Mapping[str, Any]) -> GangRecord:
    if isinstance(schedule, GangRecord):
        return schedule
    if isinstance(schedule, Schedule):
        return GangRecord.from_schedule(schedule)
    if isinstance(schedule, Mapping):
        return GangRecord.from_dict(schedule)
    raise ScheduleFormatError(f"gang validation: {type(schedule).__name__} is not a "
                              f"gang schedule")


def _as_workload(workload: GangWorkload | Mapping[str, Any]) -> GangWorkload:
    if isinstance(workload, GangWorkload):
        return workload
    if isinstance(workload, Mapping):
        return workload_from_dict(workload)
    raise ScheduleFormatError(f"gang validation needs a gang workload, not a "
                              f"{type(workload).__name__}")


def _mask(nodes: tuple[int, ...]) -> int:
    m = 0
    for c in nodes:
        m |= 1 << c
    return m


def validate_gang(workload: GangWorkload | Mapping[str, Any],
                  schedule: GangRecord | Schedule | Mapping[str, Any], *,
                  rel_tol: float = 1e-9, max_per_rule: int = 1000
                  ) -> list[Violation]:
    """Every violation of rules 1-6 (see the module docstring); ``[]`` means
    feasible.

    Raises
    ------
    ScheduleFormatError
        The schedule carries no gang record, or the workload is not a gang
        workload (bad input, not a violation).
    """
    wl = _as_workload(workload)
    rec = _as_record(schedule)
    out = _Out(max_per_rule)
    n_rec = len(rec.job_ids)
    tol = Tolerance(rel_tol)
    ids = rec.job_ids

    # -- rule 6 coverage, and the record -> workload job map ---------------------
    index = {job_id: i for i, job_id in enumerate(wl.ids)}
    wl_of = np.full(n_rec, -1, np.int64)
    seen: dict[str, int] = {}
    for k, job_id in enumerate(ids):
        if job_id in seen:
            out.add(6, f"job {job_id!r} appears twice in the record", (job_id,))
            continue
        seen[job_id] = k
        if job_id not in index:
            out.add(6, f"job {job_id!r} is not in the workload {wl.name!r}", (job_id,))
            continue
        wl_of[k] = index[job_id]
    for job_id in wl.ids:
        if job_id not in seen:
            out.add(6, f"job {job_id!r} of the workload is missing from the schedule",
                    (job_id,))
    rj, rs = rec.run_job, rec.run_slice
    nruns = np.bincount(rj, minlength=n_rec) if len(rj) else np.zeros(n_rec, int)
    for k in np.flatnonzero((nruns == 0) & (wl_of >= 0)).tolist():
        out.add(6, f"job {ids[k]!r} never runs (no slice)", (ids[k],))
    for k in np.flatnonzero(~np.isfinite(rec.finish) & (wl_of >= 0)).tolist():
        out.add(6, f"job {ids[k]!r} has no finish time", (ids[k],))
    ok = (wl_of >= 0) & (nruns > 0) & np.isfinite(rec.finish)
    ok_run = ok[rj] if len(rj) else np.zeros(0, bool)

    sa, sb, srow = rec.slice_start, rec.slice_end, rec.slice_row
    wli = np.where(wl_of >= 0, wl_of, 0)
    arrival = wl.arrival[wli]
    size = wl.size[wli]
    alt = wl.all_local_time[wli]
    rem = wl.remote_time[wli]

    # -- rule 1 release ------------------------------------------------------------
    admitted_early = ~(rec.admitted >= arrival - tol.times(arrival))
    for k in np.flatnonzero(ok & admitted_early).tolist():
        out.add(1, f"job {ids[k]!r} is admitted at t={_t(rec.admitted[k])}, before it "
                   f"arrives at t={_t(arrival[k])}", (ids[k],), time=rec.admitted[k])
    if len(rj):
        floor = np.maximum(arrival, np.nan_to_num(rec.admitted, nan=-math.inf))[rj]
        early = np.flatnonzero(ok_run & (sa[rs] < floor - tol.times(floor)))
        for r in early.tolist():
            k = int(rj[r])
            out.add(1, f"job {ids[k]!r} runs in slice {rs[r]} from t={_t(sa[rs[r]])}, "
                       f"before it arrives (t={_t(arrival[k])}) or is admitted "
                       f"(t={_t(rec.admitted[k])})", (ids[k],), (rs[r],), sa[rs[r]])

    # -- rule 3 gang (placements), needed by rules 2 and 5 ---------------------------
    masks: list[list[int]] = []
    for k, ps in enumerate(rec.placements):
        row = []
        for p, nodes in enumerate(ps):
            row.append(_mask(tuple(c for c in nodes if 0 <= c < rec.nodes)))
            distinct = len(set(nodes))
            if wl_of[k] >= 0 and (distinct != size[k] or len(nodes) != size[k]):
                out.add(3, f"job {ids[k]!r} placement {p} has {distinct} distinct "
                           f"nodes for its {size[k]} tasks, so its tasks are not all "
                           f"co-scheduled", (ids[k],))
            bad = sorted(c for c in nodes if not 0 <= c < rec.nodes)
            if bad:
                out.add(2, f"job {ids[k]!r} placement {p} uses node {bad[0]}, outside "
                           f"0..{rec.nodes - 1}", (ids[k],))
        masks.append(row)
    nplace = np.array([len(ps) for ps in rec.placements], np.int64)
    rp = rec.run_placement
    valid_p = (rp >= 0) & (rp < nplace[rj]) if len(rj) else np.zeros(0, bool)
    for r in np.flatnonzero(~valid_p).tolist():
        k = int(rj[r])
        out.add(3, f"job {ids[k]!r} runs in slice {rs[r]} on placement {rp[r]}, but it "
                   f"has {nplace[k]}", (ids[k],), (rs[r],), sa[rs[r]])
    if len(rj):
        key = rj.astype(np.int64) * max(1, len(sa)) + rs
        uniq, cnt = np.unique(key, return_counts=True)
        for u in uniq[cnt > 1].tolist():
            k, s = divmod(int(u), max(1, len(sa)))
            out.add(3, f"job {ids[k]!r} runs twice in slice {s}", (ids[k],), (s,),
                    sa[s])

    # -- rule 2 node-exclusive -------------------------------------------------------
    length = sb - sa
    slack = tol.times(sb) + tol.rel_tol * rec.quantum
    too_long = ~(length >= -slack) | ~(length <= rec.quantum + slack)
    for s in np.flatnonzero(too_long).tolist():
        out.add(2, f"slice {s} [{_t(sa[s])}, {_t(sb[s])}) lasts {_t(length[s])} s, not "
                   f"within 0..{_t(rec.quantum)} (one quantum)", (), (s,), sa[s])
    for s in np.flatnonzero((srow < 0) | (srow >= rec.mpl)).tolist():
        out.add(2, f"slice {s} runs row {srow[s]}, outside 0..{rec.mpl - 1}", (), (s,),
                sa[s])
    for s in np.flatnonzero(sa[1:] < sb[:-1] - slack[:-1]).tolist():
        out.add(2, f"slice {s + 1} starts at t={_t(sa[s + 1])} before slice {s} ends "
                   f"(t={_t(sb[s])}): two rows at once", (), (s, s + 1), sa[s + 1])
    if len(rj):
        order = np.argsort(rs, kind="stable")
        cur, acc, owner_runs = -1, 0, []
        for r in order.tolist():
            if not valid_p[r]:
                continue
            s = int(rs[r])
            if s != cur:
                cur, acc, owner_runs = s, 0, []
            k = int(rj[r])
            m = masks[k][rp[r]]
            if acc & m:
                clash = acc & m
                node = (clash & -clash).bit_length() - 1
                other = next(int(rj[o]) for o in owner_runs
                             if masks[rj[o]][rp[o]] >> node & 1)
                out.add(2, f"node {node} runs job {ids[other]!r} and job {ids[k]!r} in "
                           f"slice {s} (row {srow[s]}, [{_t(sa[s])}, {_t(sb[s])}))",
                        (ids[other], ids[k]), (s,), sa[s])
            acc |= m
            owner_runs.append(r)

    # -- rule 5 io-locality -----------------------------------------------------------
    files = wl.file_nodes
    if rec.file_nodes is not None and files is not None:
        for k in np.flatnonzero(wl_of >= 0).tolist():
            if set(rec.file_nodes[k]) != set(files[wl_of[k]]):
                out.add(5, f"job {ids[k]!r}: the record's file nodes "
                           f"{sorted(rec.file_nodes[k])[:8]} are not the workload's",
                        (ids[k],))
    if files is None and rec.file_nodes is not None:
        files_rec = rec.file_nodes
    elif files is not None:
        files_rec = tuple(files[w] if w >= 0 else () for w in wl_of.tolist())
    else:
        files_rec = None
        out.add(5, "neither the workload nor the record gives file nodes: locality "
                   "cannot be checked")
    true_local = np.zeros(len(rj), bool)
    if files_rec is not None and len(rj):
        local_of = [[set(p) == set(files_rec[k]) for p in ps]
                    for k, ps in enumerate(rec.placements)]
        true_local = np.array(
            [local_of[k][p] if ok_p else False
             for k, p, ok_p in zip(rj.tolist(), rp.tolist(), valid_p.tolist())], bool)
        wrong = np.flatnonzero(valid_p & ok_run & (true_local != rec.run_local))
        for r in wrong.tolist():
            k, s = int(rj[r]), int(rs[r])
            where = "on its file nodes" if true_local[r] else "off its file nodes"
            claim = "local (t_local" if rec.run_local[r] else "remote (t_remote"
            out.add(5, f"job {ids[k]!r} in slice {s} is charged {claim} per block) but "
                       f"its {size[k]} tasks sit {where} (placement {rp[r]})",
                    (ids[k],), (s,), sa[s])

    # -- rule 4 work --------------------------------------------------------------
    if len(rj):
        last = np.full(n_rec, -1, np.int64)
        last_slice = np.full(n_rec, -1, np.int64)
        np.maximum.at(last_slice, rj, rs)
        is_last = rs == last_slice[rj]
        last[rj[is_last]] = np.flatnonzero(is_last)
        end = np.where(is_last, rec.finish[rj], sb[rs])
        eff = end - sa[rs] - rec.run_stall
        stall = rec.run_stall
        run_slack = slack[rs]
        for r in np.flatnonzero(ok_run & ((stall < -run_slack)
                                          | (stall > length[rs] + run_slack))).tolist():
            k, s = int(rj[r]), int(rs[r])
            out.add(4, f"job {ids[k]!r} stalls {_t(stall[r])} s in slice {s}, which "
                       f"lasts {_t(length[s])} s", (ids[k],), (s,), sa[s])
        for k in np.flatnonzero(ok).tolist():
            r = int(last[k])
            s = int(rs[r])
            lo, hi = sa[s] + stall[r], sb[s]
            if not lo - slack[s] <= rec.finish[k] <= hi + slack[s]:
                out.add(4, f"job {ids[k]!r} finishes at t={_t(rec.finish[k])}, outside "
                           f"its last run in slice {s} [{_t(lo)}, {_t(hi)}): it runs "
                           f"after it finished or stops before", (ids[k],), (s,),
                        rec.finish[k])
        rate = np.where(rec.run_local, 1.0, (alt / rem)[rj])
        done = np.bincount(rj, weights=np.where(ok_run, eff * rate, 0.0),
                           minlength=n_rec)
        # a sum over a job's runs: its ulps add up once per run
        per_run = nruns * tol.times(np.where(np.isfinite(rec.finish), rec.finish, 0.0))
        work_slack = per_run + tol.rel_tol * alt
        for k in np.flatnonzero(ok & ~(np.abs(done - alt) <= work_slack)).tolist():
            out.add(4, f"job {ids[k]!r} gets {_t(done[k])} all-local seconds of work, "
                       f"not its {_t(alt[k])} (finish t={_t(rec.finish[k])}, "
                       f"{nruns[k]} runs)", (ids[k],), time=rec.finish[k])
        stalled = np.bincount(rj, weights=stall, minlength=n_rec)
        owed = rec.migration_cost * np.maximum(nplace - 1, 0)
        stall_slack = per_run + tol.rel_tol * owed
        for k in np.flatnonzero(ok & ~(np.abs(stalled - owed) <= stall_slack)).tolist():
            out.add(4, f"job {ids[k]!r} stalls {_t(stalled[k])} s in all, but its "
                       f"{nplace[k] - 1} migrations cost {_t(owed[k])} s "
                       f"(C={_t(rec.migration_cost)})", (ids[k],))
        by_job = np.lexsort((rs, rj))
        back = np.flatnonzero((rj[by_job][1:] == rj[by_job][:-1])
                              & (rp[by_job][1:] < rp[by_job][:-1]))
        for b in back.tolist():
            r = int(by_job[b + 1])
            k = int(rj[r])
            out.add(4, f"job {ids[k]!r} returns to placement {rp[r]} in slice {rs[r]} "
                       f"after a later one", (ids[k],), (rs[r],), sa[rs[r]])
    return out.all()


def assert_gang_feasible(workload: GangWorkload | Mapping[str, Any],
                         schedule: GangRecord | Schedule | Mapping[str, Any]) -> None:
    """Raise :class:`~opt_sched.errors.InfeasibleScheduleError` listing the
    first violations when :func:`validate_gang` finds any."""
    violations = validate_gang(workload, schedule)
    if violations:
        shown = "\n  ".join(v.message for v in violations[:10])
        more = len(violations) - 10
        raise InfeasibleScheduleError(
            f"gang schedule breaks {len(violations)} rule instance(s):\n  {shown}"
            + (f"\n  ... and {more} more" if more > 0 else ""))
