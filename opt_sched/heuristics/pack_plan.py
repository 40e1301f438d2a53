"""Pack plans: packs built by a *packer*, placed on I/O nodes by LPT.

A packer (:data:`Packer`) cuts a list of jobs into packs for one partition
of ``P`` nodes and bandwidth ``b``: Make-Pack and First-Fit
(:mod:`.make_pack`), later the pack orders of seed 000. :func:`lpt_pack_plan`
applies a packer to an instance and places the packs with
:func:`~opt_sched.heuristics.lpt.lpt_allocate`; :func:`pack_plan` is that
with Make-Pack or First-Fit (what ``opt-sched simulate --plan make-pack``
runs).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from ..errors import OptionError, PlanError
from ..instance import Instance, Job
from .lpt import lpt_allocate
from .make_pack import check_sensibility, make_packs, pack_classes

__all__ = ["PACK_METHODS", "Packer", "lpt_pack_plan", "make_pack_packer",
           "pack_plan", "predicted_makespan"]

PACK_METHODS = ("make-pack", "first-fit")

Packer = Callable[[Sequence[Job], float, int], Sequence[Sequence[str]]]
"""``packer(jobs, b, P)``: ``jobs`` cut into packs (tuples of job ids) for a
partition of ``P`` nodes and bandwidth ``b``, listed in an order that
respects the jobs' dependencies (pack ``p`` holds no successor of a job of a
later pack). Every pack fits ``P`` nodes."""


def make_pack_packer(sensibility: float) -> Packer:
    """Make-Pack with ``S = sensibility`` as a :data:`Packer` (``inf``:
    First-Fit)."""
    s = check_sensibility(sensibility)

    def packer(jobs: Sequence[Job], bandwidth: float, nodes: int
               ) -> list[tuple[str, ...]]:
        return [pack.jobs for pack in make_packs(jobs, s, bandwidth, nodes)]

    return packer


def _check_io_nodes(instance: Instance, io_nodes: int | None) -> int:
    count = instance.platform.num_partitions
    if io_nodes is None:
        return count
    if (isinstance(io_nodes, bool) or not isinstance(io_nodes, int)
            or not 1 <= io_nodes <= count):
        raise OptionError(f"pack plan: io_nodes={io_nodes!r} must be in 1..{count} "
                          f"(the platform's partitions)")
    return io_nodes


def lpt_pack_plan(instance: Instance, packer: Packer,
                  io_nodes: int | None = None):
    """Packs by ``packer``, allocated to the first ``R`` I/O nodes by LPT.

    Parameters
    ----------
    instance
        The jobs and the platform.
    packer
        See :data:`Packer`.
    io_nodes
        ``R``: use partitions ``0..R-1`` (default: all).

    Returns
    -------
    PackPlan

    Notes
    -----
    Unmapped jobs are packed with ``(b, P)`` of one partition (per size class
    on a heterogeneous platform, :func:`~.make_pack.pack_classes` over the
    ``R`` partitions), then the packs are placed by LPT. Jobs the instance
    maps to a partition (``job.partition``) are packed separately per
    partition, with that partition's ``b`` and ``P``; those packs run first
    there and count in its LPT load.

    Raises
    ------
    OptionError
        ``io_nodes`` out of range.
    PlanError
        A job is mapped to a partition outside ``0..R-1``, or does not fit.
    """
    io_nodes = _check_io_nodes(instance, io_nodes)
    chosen = instance.platform.partitions[:io_nodes]
    fixed: list[list[tuple[str, ...]]] = [[] for _ in range(io_nodes)]
    free = []
    for job in instance.jobs:
        if job.partition is None:
            free.append(job)
        elif job.partition >= io_nodes:
            raise PlanError(f"pack plan: job {job.id!r}: partition={job.partition} "
                            f"is not among the io_nodes={io_nodes} partitions used")
    for k, part in enumerate(chosen):
        mapped = [job for job in instance.jobs if job.partition == k]
        if mapped:
            fixed[k] = [tuple(p) for p in packer(mapped, part.bandwidth, part.nodes)]
    packs: list[tuple[str, ...]] = []
    for band, nodes, members in pack_classes(chosen, free) if free else []:
        packs.extend(tuple(p) for p in packer(members, band, nodes))
    return lpt_allocate(instance, packs, partitions=list(range(io_nodes)),
                        fixed=fixed)


def pack_plan(instance: Instance, method: str, sensibility: float = 1.0,
              io_nodes: int | None = None):
    """Packs by Make-Pack or First-Fit, allocated to I/O nodes by LPT.

    Parameters
    ----------
    instance
        The jobs and the platform.
    method
        ``"make-pack"`` (uses ``sensibility``) or ``"first-fit"`` (``S = inf``,
        ``sensibility`` ignored).
    sensibility
        ``S > 0`` of Make-Pack.
    io_nodes
        ``R``: use partitions ``0..R-1`` (default: all). ``R`` may not exceed
        the platform's partitions.

    Returns
    -------
    PackPlan
        See :func:`lpt_pack_plan`.

    Raises
    ------
    OptionError
        Unknown method, ``sensibility <= 0``, or ``io_nodes`` out of range.
    PlanError
        A job is mapped to a partition outside ``0..R-1``, or does not fit.
    """
    if method not in PACK_METHODS:
        raise OptionError(f"pack plan: method={method!r} is unknown (choose from "
                          f"{', '.join(PACK_METHODS)})")
    s = math.inf if method == "first-fit" else sensibility
    packer = make_pack_packer(s)
    _check_io_nodes(instance, io_nodes)
    return lpt_pack_plan(instance, packer, io_nodes)


def predicted_makespan(instance: Instance, packs) -> float:
    """The contention-free makespan a pack plan promises:
    ``max_k sum_{p on k} T^p_k`` (what LPT balances; seed 003 Fig. 13 compares
    the measured makespan with it)."""
    loads = []
    for k, part in enumerate(packs):
        band = instance.platform.partitions[k].bandwidth
        loads.append(math.fsum(max(instance.job(i).length(band) for i in pack)
                               for pack in part))
    return max(loads, default=0.0)
