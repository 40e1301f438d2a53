"""Practical heuristics; each returns a *plan* for the simulator.

- :mod:`.make_pack` -- Make-Pack (seed 003 Algorithm 1) and First-Fit.
- :mod:`.lpt` -- LPT allocation of packs to I/O nodes (seed 003 §6.2.4).

:func:`pack_plan` chains them: it is what ``opt-sched simulate --plan
make-pack --sensibility S --io-nodes R`` runs.
"""

from __future__ import annotations

import math

from ..errors import OptionError, PlanError
from ..instance import Instance
from .lpt import lpt_allocate, lpt_assignment, pack_lengths
from .make_pack import (
    Pack,
    check_sensibility,
    default_pack_platform,
    first_fit,
    make_pack,
    make_packs,
    pack_classes,
)

__all__ = [
    "PACK_METHODS",
    "Pack",
    "check_sensibility",
    "default_pack_platform",
    "first_fit",
    "lpt_allocate",
    "lpt_assignment",
    "make_pack",
    "make_packs",
    "pack_classes",
    "pack_lengths",
    "pack_plan",
]

PACK_METHODS = ("make-pack", "first-fit")


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

    Notes
    -----
    Unmapped jobs are packed with ``(b, P)`` of one partition (per size class
    on a heterogeneous platform, :func:`pack_classes` over the ``R``
    partitions), then the packs are placed by LPT. Jobs the instance maps to
    a partition (``job.partition``) are packed separately per partition, with
    that partition's ``b`` and ``P``; those packs run first there and count
    in its LPT load.

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
    s = math.inf if method == "first-fit" else check_sensibility(sensibility)
    count = instance.platform.num_partitions
    if io_nodes is None:
        io_nodes = count
    if (isinstance(io_nodes, bool) or not isinstance(io_nodes, int)
            or not 1 <= io_nodes <= count):
        raise OptionError(f"pack plan: io_nodes={io_nodes!r} must be in 1..{count} "
                          f"(the platform's partitions)")
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
            fixed[k] = [p.jobs for p in make_packs(mapped, s, part.bandwidth,
                                                   part.nodes)]
    packs: list[tuple[str, ...]] = []
    for band, nodes, members in pack_classes(chosen, free) if free else []:
        packs.extend(p.jobs for p in make_packs(members, s, band, nodes))
    return lpt_allocate(instance, packs, partitions=list(range(io_nodes)),
                        fixed=fixed)
