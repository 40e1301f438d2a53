"""Warm starts for the HPC-IO and pack models: structures of known schedules.

Every structure returned here is a *pack* structure (packs of jobs per
partition, I/O orders), so :func:`.common.retime` turns it into a feasible
schedule with any lengths, rounded ticks included: the models use them as
upper bounds (horizon) and, optionally, as solution hints.
"""

from __future__ import annotations

import math

from ...errors import OptionError, PlanError
from ...instance import Instance
from .common import ModelData, Structure, structure_from_schedule

__all__ = ["heuristic_pack_structures", "one_job_per_pack"]


def one_job_per_pack(data: ModelData) -> Structure:
    """Every job alone in its pack, on its fastest allowed partition, packs in
    topological order: always feasible (a job fits its partition)."""
    instance = data.instance
    parts = instance.platform.partitions
    partition = []
    for i, job in enumerate(instance.jobs):
        partition.append(min(data.allowed[i],
                             key=lambda k: (job.length(parts[k].bandwidth), k)))
    packs: list[list[tuple[int, ...]]] = [[] for _ in parts]
    io_order: list[list[tuple[int, int]]] = [[] for _ in parts]
    for i in instance.topological_order():
        k = partition[i]
        packs[k].append((i,))
        io_order[k].extend((i, q) for q in range(len(data.phases[i].ops)))
    return Structure(tuple(partition), tuple(tuple(o) for o in io_order),
                     packs=tuple(tuple(p) for p in packs))


def heuristic_pack_structures(instance: Instance, data: ModelData,
                              sensibility: float | None = None) -> list[Structure]:
    """Make-Pack (S = 1, or ``sensibility``) and First-Fit with LPT allocation,
    simulated under FIFO, when :mod:`opt_sched.heuristics` provides
    ``pack_plan``; packs whose partition a job may not use are skipped."""
    try:
        from ...heuristics import pack_plan
        from ...simulation import simulate
    except ImportError:
        return []
    out = []
    variants = [("make-pack", 1.0 if sensibility is None else sensibility)]
    if sensibility is None:
        variants.append(("first-fit", math.inf))
    for method, s in variants:
        try:
            plan = pack_plan(instance, method, sensibility=s,
                             io_nodes=instance.platform.num_partitions)
            schedule = simulate(instance, plan, policy="fifo")
        except (PlanError, OptionError):
            continue
        if schedule.packs is None:
            continue
        structure = structure_from_schedule(instance, data.phases, schedule)
        if all(structure.partition[i] in data.allowed[i] for i in range(data.num_jobs)):
            out.append(structure)
    return out
