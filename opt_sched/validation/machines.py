r"""Rule 4, per machine: the machines a job holds (SPEC §9).

Machines of partition ``k`` are numbered ``0..P_k-1``. When a schedule states
``machines`` for a job, it states them for *every* listed job of that
partition (all or none per partition: a partial assignment cannot be
checked, since completing it is a precoloring problem). Then, for each job
``i`` of such a partition, with :math:`M_i` its list of machines:

- :math:`M_i` has no repeated number, its numbers lie in ``[0, P_k)``, and
  it has exactly :math:`Q_i` of them;
- no machine is held by two jobs at once: for every machine ``m``, the
  intervals :math:`[S_i, C_i - \varepsilon)` of the jobs with
  :math:`m \in M_i` are pairwise disjoint.

One violation per job lacking machines, per job with repeated, out-of-range
or too few/many machines, and per pair of jobs (earlier holder, later one)
that share at least one machine while both run; the message lists the shared
machines. Partitions where no job states machines are left to the count
check of :mod:`~opt_sched.validation.capacity`.
"""

from __future__ import annotations

from itertools import chain

import numpy as np

from ..errors import ScheduleFormatError
from ..instance import Instance
from .capacity import RULE
from .report import Collector, format_time, name_list
from .sweep import conflicts
from .table import PhaseTable

__all__ = ["check_machines"]


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


def _check_lists(instance: Instance, table: PhaseTable, holders: np.ndarray,
                 owner: np.ndarray, machine: np.ndarray, out: Collector) -> None:
    """Repeated, out-of-range, too few or too many machines, per job."""
    parts = instance.platform.partitions
    limit = np.array([p.nodes for p in parts])[table.partition[holders]]
    order = np.lexsort((machine, owner))
    o, m = owner[order], machine[order]
    repeated = np.flatnonzero((o[1:] == o[:-1]) & (m[1:] == m[:-1])) + 1
    outside = (machine < 0) | (machine >= limit[owner])
    distinct = (np.bincount(owner, minlength=len(holders))
                - np.bincount(o[repeated], minlength=len(holders)))
    found = [(h, "repeated") for h in np.unique(o[repeated])]
    found += [(h, "outside") for h in np.unique(owner[outside])]
    found += [(h, "count") for h in np.flatnonzero(distinct != table.nodes[holders])]
    out.found(RULE, len(found))
    found.sort(key=lambda item: (table.start[holders[item[0]]], item[0]))
    for h, what in found[:out.room(RULE)]:
        i = holders[h]
        job_id, k = table.ids[i], int(table.partition[i])
        if what == "repeated":
            twice = np.unique(m[repeated][o[repeated] == h])
            text = (f"job {job_id} lists machine{'s' if len(twice) > 1 else ''} "
                    f"{name_list([str(x) for x in twice])} more than once")
        elif what == "outside":
            wrong = machine[(owner == h) & outside]
            text = (f"job {job_id} holds machine{'s' if len(wrong) > 1 else ''} "
                    f"{name_list([str(x) for x in wrong])}, outside the machines "
                    f"0..{parts[k].nodes - 1} of partition {k}")
        else:
            text = (f"job {job_id} holds {distinct[h]} distinct machines but needs "
                    f"{table.nodes[i]}")
        out.add(RULE, text, jobs=(job_id,), time=table.start[i])


def _check_overlaps(instance: Instance, table: PhaseTable, holders: np.ndarray,
                    owner: np.ndarray, machine: np.ndarray, eps: float,
                    out: Collector) -> None:
    """No machine held by two jobs at once."""
    parts = instance.platform.partitions
    width = max(p.nodes for p in parts)
    limit = np.array([p.nodes for p in parts])[table.partition[holders[owner]]]
    # one entry per (job, machine); repeats and out-of-range numbers are
    # reported by _check_lists
    keep = (machine >= 0) & (machine < limit)
    key = np.unique(owner[keep] * width + machine[keep])
    owner, machine = key // width, key % width
    job = holders[owner]
    start, end = table.start[job], table.end[job] - eps
    live = end > start
    owner, machine, job, start, end = (x[live] for x in (owner, machine, job, start,
                                                         end))
    late, early = conflicts(table.partition[job] * width + machine, start, end,
                            eps=0.0)
    if not len(late):
        return
    n = len(holders)
    pair = owner[early] * n + owner[late]
    keys, first_of = np.unique(pair, return_index=True)
    out.found(RULE, len(keys))
    when = start[late[first_of]]
    for key in keys[np.argsort(when, kind="stable")][:out.room(RULE)]:
        a, b = holders[key // n], holders[key % n]
        shared = np.sort(machine[late[pair == key]])
        several = len(shared) > 1
        out.add(RULE, f"machine{'s' if several else ''} "
                f"{name_list([str(x) for x in shared])} of partition "
                f"{int(table.partition[a])} {'are' if several else 'is'} held by "
                f"{table.ids[a]} over [{format_time(table.start[a])}, "
                f"{format_time(table.end[a])}) and by {table.ids[b]} from "
                f"t={format_time(table.start[b])}",
                jobs=(table.ids[a], table.ids[b]), time=table.start[b])


def check_machines(instance: Instance, table: PhaseTable, eps: float,
                   out: Collector) -> None:
    """Rule 4 per machine (see the module text)."""
    stated = np.array([js is not None and js.machines is not None
                       for js in table.entries], dtype=bool)
    if not stated.any():
        return
    _check_coverage(instance, table, stated, out)
    holders = np.flatnonzero(stated)
    sizes = np.array([len(table.entries[i].machines) for i in holders],
                     dtype=np.int64)
    machine = _machine_array(table, holders, sizes)
    owner = np.repeat(np.arange(len(holders)), sizes)
    _check_lists(instance, table, holders, owner, machine, out)
    _check_overlaps(instance, table, holders, owner, machine, eps, out)
