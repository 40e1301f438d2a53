"""Practical heuristics; each returns a *plan* for the simulator.

- :mod:`.make_pack` -- Make-Pack (seed 003 Algorithm 1) and First-Fit.
- :mod:`.lpt` -- LPT allocation of packs to I/O nodes (seed 003 §6.2.4).
- :mod:`.pack_plan` -- a packer's packs placed by LPT: :func:`pack_plan`
  (Make-Pack / First-Fit) and :func:`lpt_pack_plan` (any packer).

The spec strings that name these heuristics (``make-pack(S=1)+lpt/fifo``)
and their capability checks live in :mod:`opt_sched.methods`.
"""

from __future__ import annotations

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
from .pack_plan import PACK_METHODS, Packer, lpt_pack_plan, make_pack_packer, pack_plan

__all__ = [
    "PACK_METHODS",
    "Pack",
    "Packer",
    "check_sensibility",
    "default_pack_platform",
    "first_fit",
    "lpt_allocate",
    "lpt_assignment",
    "lpt_pack_plan",
    "make_pack",
    "make_pack_packer",
    "make_packs",
    "pack_classes",
    "pack_lengths",
    "pack_plan",
]
