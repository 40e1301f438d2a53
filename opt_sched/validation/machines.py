r"""Rule 4, per machine: the machines a job holds (SPEC §9).

Machines of partition ``k`` are numbered ``0..P_k-1``. When a schedule states
``machines`` for a job, it states them for *every* listed job of that
partition (all or none per partition: a partial assignment cannot be
checked, since completing it is a precoloring problem). Then, for each job
``i`` of such a partition, with :math:`M_i` its list of machines:

- :math:`M_i` has no repeated number, its numbers lie in ``[0, P_k)``, and
  it has exactly :math:`Q_i` of them;
- no machine is held by two jobs at once: for every machine ``m``, the
  intervals :math:`[S_i, C_i - \tau_i)` of the jobs with
  :math:`m \in M_i` are pairwise disjoint (:math:`\tau_i` the tolerance of
  the completion :math:`C_i`, :mod:`~opt_sched.validation.tolerance`).

One violation per job lacking machines, per job with repeated, out-of-range
or too few/many machines, and per pair of jobs (earlier holder, later one)
that share at least one machine while both run; the message lists the shared
machines. Partitions where no job states machines are left to the count
check of :mod:`~opt_sched.validation.capacity`.

Machine sets are handled as runs of consecutive numbers (a
:class:`~opt_sched.schedule.MachineSet`, what replays give, is stored that
way; a plain list is checked number by number for repeats, then turned into
runs). The overlap check splits each partition's machine axis at every run
boundary: within one such segment every machine has the same holders, so
the sweep runs once per segment instead of once per machine (a Mira job
holding 49,152 machines is a few segments) and finds exactly the pairs a
machine-by-machine sweep finds.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain

import numpy as np

from ..errors import ScheduleFormatError
from ..instance import Instance
from ..schedule import MachineSet
from .capacity import RULE
from .report import Collector, format_time, name_list
from .sweep import conflicts
from .table import PhaseTable

__all__ = ["check_machines"]


@dataclass
class _Runs:
    """Runs ``[low, high)`` of distinct in-range machines, per holder
    (``owner``: a position in the holders array), sorted by owner then low."""

    owner: np.ndarray
    low: np.ndarray
    high: np.ndarray


@dataclass(frozen=True)
class _Finding:
    """One job's repeated, outside or miscounted machines."""

    holder: int
    text: str


def _machine_array(table: PhaseTable, holders: np.ndarray, sizes: np.ndarray
                   ) -> np.ndarray:
    machines = (table.entries[i].machines for i in holders)
    try:
        return np.fromiter(chain.from_iterable(machines), dtype=np.int64,
                           count=int(sizes.sum()))
    except (OverflowError, TypeError, ValueError):
        for i in holders:
            for m in table.entries[i].machines:
                if (isinstance(m, bool) or not isinstance(m, int)
                        or not -2**63 <= m < 2**63):
                    raise ScheduleFormatError(
                        f"schedule: job {table.ids[i]!r}: machines holds {m!r}, not "
                        "a machine number") from None
        raise


def _check_coverage(instance: Instance, table: PhaseTable, stated: np.ndarray,
                    out: Collector) -> np.ndarray:
    """Report jobs without machines on partitions where others state them;
    return the partitions whose jobs state machines."""
    partitions = np.unique(table.partition[stated])
    lacking = np.flatnonzero(table.listed & ~stated
                             & np.isin(table.partition, partitions))
    out.found(RULE, len(lacking))
    for i in lacking[:out.room(RULE)]:
        k = int(table.partition[i])
        others = int(np.count_nonzero(stated & (table.partition == k)))
        out.add(RULE, f"job {table.ids[i]} on partition {k} states no machines "
                f"while {others} job{'s' if others != 1 else ''} of the partition "
                "do (machines are stated for all jobs of a partition or none)",
                jobs=(table.ids[i],), time=table.start[i])
    return partitions


def _limits(instance: Instance, table: PhaseTable, holders: np.ndarray) -> np.ndarray:
    """``P_k`` of each holder's partition."""
    sizes = np.array([p.nodes for p in instance.platform.partitions])
    return sizes[table.partition[holders]]


def _outside_text(job_id: str, wrong: list[int], k: int, nodes: int) -> str:
    return (f"job {job_id} holds machine{'s' if len(wrong) > 1 else ''} "
            f"{name_list([str(x) for x in wrong])}, outside the machines "
            f"0..{nodes - 1} of partition {k}")


def _count_text(job_id: str, distinct: int, needed: int) -> str:
    return f"job {job_id} holds {distinct} distinct machines but needs {needed}"


def _listed_machines(table: PhaseTable, holders: np.ndarray, positions: np.ndarray,
                     limit: np.ndarray) -> tuple[list[_Finding], _Runs]:
    """Jobs stating plain lists (``positions`` in ``holders``): repeated,
    outside, too few or too many machines, number by number; and the runs
    of their distinct in-range machines."""
    chosen = holders[positions]
    sizes = np.array([len(table.entries[i].machines) for i in chosen], dtype=np.int64)
    machine = _machine_array(table, chosen, sizes)
    owner = np.repeat(positions, sizes)
    order = np.lexsort((machine, owner))
    o, m = owner[order], machine[order]
    repeated = np.flatnonzero((o[1:] == o[:-1]) & (m[1:] == m[:-1])) + 1
    bound = np.zeros(len(holders), np.int64)
    bound[positions] = limit[positions]
    outside = (machine < 0) | (machine >= bound[owner])
    distinct = (np.bincount(owner, minlength=len(holders))
                - np.bincount(o[repeated], minlength=len(holders)))
    found = []
    for h in np.unique(o[repeated]).tolist():
        twice = np.unique(m[repeated][o[repeated] == h])
        found.append(_Finding(h, f"job {table.ids[holders[h]]} lists "
                              f"machine{'s' if len(twice) > 1 else ''} "
                              f"{name_list([str(x) for x in twice])} more than once"))
    for h in np.unique(owner[outside]).tolist():
        i = holders[h]
        found.append(_Finding(h, _outside_text(
            table.ids[i], machine[(owner == h) & outside].tolist(),
            int(table.partition[i]), int(limit[h]))))
    for h in positions[distinct[positions] != table.nodes[chosen]].tolist():
        found.append(_Finding(h, _count_text(table.ids[holders[h]], int(distinct[h]),
                                             int(table.nodes[holders[h]]))))
    keep = np.ones(len(o), bool)
    keep[repeated] = False
    keep &= (m >= 0) & (m < bound[o])
    o, m = o[keep], m[keep]
    if not len(o):
        return found, _Runs(o, m, m)
    first = np.concatenate(([True], (o[1:] != o[:-1]) | (m[1:] != m[:-1] + 1)))
    last = np.concatenate((first[1:], [True]))
    return found, _Runs(o[first], m[first], m[last] + 1)


def _interval_machines(table: PhaseTable, holders: np.ndarray, positions: np.ndarray,
                       limit: np.ndarray) -> tuple[list[_Finding], _Runs]:
    """Jobs stating a :class:`MachineSet` (distinct by construction): outside
    or miscounted machines, and their in-range runs."""
    found, owner, low, high = [], [], [], []
    for h in positions.tolist():
        i = holders[h]
        machines: MachineSet = table.entries[i].machines
        cap = int(limit[h])
        wrong = [m for lo, hi in machines.runs if hi > cap
                 for m in range(max(lo, cap), hi)]
        if wrong:
            found.append(_Finding(h, _outside_text(table.ids[i], wrong,
                                                   int(table.partition[i]), cap)))
        if len(machines) != table.nodes[i]:
            found.append(_Finding(h, _count_text(table.ids[i], len(machines),
                                                 int(table.nodes[i]))))
        for lo, hi in machines.runs:
            if lo < cap:
                owner.append(h)
                low.append(lo)
                high.append(min(hi, cap))
    return found, _Runs(*(np.array(x, np.int64) for x in (owner, low, high)))


def _report_lists(table: PhaseTable, holders: np.ndarray, found: list[_Finding],
                  out: Collector) -> None:
    """Report the per-job findings, earliest job first."""
    out.found(RULE, len(found))
    found.sort(key=lambda item: (table.start[holders[item.holder]], item.holder))
    for item in found[:out.room(RULE)]:
        i = holders[item.holder]
        out.add(RULE, item.text, jobs=(table.ids[i],), time=table.start[i])


def _segments(table: PhaseTable, holders: np.ndarray, runs: _Runs, width: int
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Split every partition's machine axis at all run boundaries.

    Returns ``(bounds, owner, segment)``: segment ``s`` is the machines
    ``[bounds[s], bounds[s + 1])`` of partition ``bounds[s] // width`` (less
    ``width`` times it), and ``(owner[e], segment[e])`` the segments each
    holder holds, sorted by owner then segment.
    """
    base = table.partition[holders[runs.owner]].astype(np.int64) * width
    low, high = base + runs.low, base + runs.high
    bounds = np.unique(np.concatenate((low, high)))
    first = np.searchsorted(bounds, low)
    count = np.searchsorted(bounds, high) - first
    total = int(count.sum())
    owner = np.repeat(runs.owner, count)
    step = np.arange(total) - np.repeat(np.cumsum(count) - count, count)
    segment = np.repeat(first, count) + step
    order = np.lexsort((segment, owner))
    return bounds, owner[order], segment[order]


def _check_overlaps(table: PhaseTable, holders: np.ndarray, runs: _Runs,
                    eps: float | np.ndarray, width: int, out: Collector) -> None:
    """No machine held by two jobs at once (``eps``: one tolerance, or one
    per job of the table)."""
    bounds, owner, segment = _segments(table, holders, runs, width)
    job = holders[owner]
    margin = np.broadcast_to(np.asarray(eps, dtype=float), table.start.shape)
    start, end = table.start[job], table.end[job] - margin[job]
    live = end > start
    owner, segment, job, start, end = (x[live] for x in (owner, segment, job, start,
                                                         end))
    late, early = conflicts(segment, start, end, eps=0.0)
    if not len(late):
        return
    n = len(holders)
    pair = owner[early] * n + owner[late]
    keys, first_of = np.unique(pair, return_index=True)
    out.found(RULE, len(keys))
    when = start[late[first_of]]
    for key in keys[np.argsort(when, kind="stable")][:out.room(RULE)]:
        a, b = holders[key // n], holders[key % n]
        shared = [m - int(table.partition[a]) * width
                  for s in np.unique(segment[late[pair == key]]).tolist()
                  for m in range(int(bounds[s]), int(bounds[s + 1]))]
        several = len(shared) > 1
        out.add(RULE, f"machine{'s' if several else ''} "
                f"{name_list([str(x) for x in shared])} of partition "
                f"{int(table.partition[a])} {'are' if several else 'is'} held by "
                f"{table.ids[a]} over [{format_time(table.start[a])}, "
                f"{format_time(table.end[a])}) and by {table.ids[b]} from "
                f"t={format_time(table.start[b])}",
                jobs=(table.ids[a], table.ids[b]), time=table.start[b])


def check_machines(instance: Instance, table: PhaseTable, eps: float | np.ndarray,
                   out: Collector) -> None:
    """Rule 4 per machine (see the module text); ``eps`` is the tolerance of
    the completions: one number, or one per job of the table."""
    stated = np.array([js is not None and js.machines is not None
                       for js in table.entries], dtype=bool)
    if not stated.any():
        return
    _check_coverage(instance, table, stated, out)
    holders = np.flatnonzero(stated)
    limit = _limits(instance, table, holders)
    as_set = np.array([isinstance(table.entries[i].machines, MachineSet)
                       for i in holders], dtype=bool)
    found, listed = _listed_machines(table, holders, np.flatnonzero(~as_set), limit)
    more, intervals = _interval_machines(table, holders, np.flatnonzero(as_set), limit)
    _report_lists(table, holders, found + more, out)
    runs = _Runs(*(np.concatenate((getattr(listed, f), getattr(intervals, f)))
                   for f in ("owner", "low", "high")))
    width = max(p.nodes for p in instance.platform.partitions) + 1
    _check_overlaps(table, holders, runs, eps, width, out)
