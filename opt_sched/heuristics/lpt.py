"""LPT allocation of packs to I/O nodes (seed 003 §6.2.4, SPEC §6).

Each pack is a block of length ``T^p_k = max_{i in p} T_i(b_k)`` (its longest
job without contention, on partition ``k``) and width ``P^p = sum Q_i``.
Largest Processing Time (Graham 1969) takes the packs by decreasing length
and puts each on the partition where it *finishes earliest*:

.. math:: k(p) = \\arg\\min_{k : P_k \\ge P^p} \\left(\\text{load}_k + T^p_k\\right),
          \\qquad \\text{load}_{k(p)} \\mathrel{+}= T^p_{k(p)}

(ties: the lowest ``k``). On ``R`` identical partitions the largest load is
at most ``(4/3 - 1/(3R))`` times the optimal one (Graham's bound).

Heterogeneous partitions: lengths are per partition (bandwidths differ) and
a pack never goes to a partition with fewer nodes than its width. The sort
key of a pack is its shortest length over the partitions it fits (its length
on a homogeneous platform).

The allocation decides *where* a pack runs; on each partition the packs keep
the order of the input pack list (for ``R = 1``: the packs in order). Make-
Pack lists packs in an order that respects dependencies, so this order
cannot deadlock; on one I/O node with zero releases the order changes no
metric.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..errors import PlanError
from ..instance import Instance, Partition

__all__ = ["lpt_allocate", "lpt_assignment", "pack_lengths"]


def _node_counts(partitions: Sequence[int | Partition]) -> list[int]:
    return [p.nodes if isinstance(p, Partition) else int(p) for p in partitions]


def lpt_assignment(pack_lengths: Sequence[float] | np.ndarray,
                   pack_widths: Sequence[int],
                   partitions: Sequence[int | Partition],
                   initial_loads: Sequence[float] | None = None) -> list[list[int]]:
    """Assign packs to partitions by LPT; pure, no simulator needed.

    Parameters
    ----------
    pack_lengths
        Either one length per pack (identical on every partition) or an
        array of shape ``(n_packs, R)``: the length of pack ``p`` on
        partition ``k``.
    pack_widths
        ``P^p`` per pack.
    partitions
        The ``R`` partitions, as :class:`Partition` or as node counts.
    initial_loads
        Load already on each partition (default 0).

    Returns
    -------
    list of list of int
        ``out[k]`` = indices of the packs on partition ``k``, in the order
        LPT placed them (longest first).

    Raises
    ------
    PlanError
        A pack is wider than every partition, or the shapes disagree.

    Examples
    --------
    >>> lpt_assignment([3, 3, 2, 2, 2], [1] * 5, [4, 4])
    [[0, 2, 4], [1, 3]]
    """
    nodes = _node_counts(partitions)
    count = len(nodes)
    if count == 0:
        raise PlanError("lpt: partitions is empty")
    lengths = np.asarray(pack_lengths, dtype=float)
    if lengths.ndim == 1:
        lengths = np.repeat(lengths[:, None], count, axis=1)
    if lengths.ndim != 2 or lengths.shape[1] != count:
        raise PlanError(f"lpt: pack_lengths has shape {lengths.shape}, expected "
                        f"(n_packs,) or (n_packs, {count})")
    if len(pack_widths) != lengths.shape[0]:
        raise PlanError(f"lpt: {len(pack_widths)} pack widths for "
                        f"{lengths.shape[0]} pack lengths")
    loads = [0.0] * count if initial_loads is None else [float(x) for x in
                                                        initial_loads]
    if len(loads) != count:
        raise PlanError(f"lpt: initial_loads has {len(loads)} entries, expected "
                        f"{count}")
    fits = [[k for k in range(count) if nodes[k] >= width] for width in pack_widths]
    for p, ks in enumerate(fits):
        if not ks:
            raise PlanError(f"lpt: pack {p} needs nodes={pack_widths[p]} > every "
                            f"partition (max {max(nodes)})")
    key = [min(lengths[p, k] for k in fits[p]) for p in range(len(fits))]
    order = sorted(range(len(fits)), key=lambda p: (-key[p], p))
    out: list[list[int]] = [[] for _ in range(count)]
    for p in order:
        best = min(fits[p], key=lambda k: (loads[k] + lengths[p, k], k))
        loads[best] += lengths[p, best]
        out[best].append(p)
    return out


def pack_lengths(instance: Instance, packs: Sequence[Sequence[str]],
                 partitions: Sequence[int]) -> np.ndarray:
    """``T^p_k = max_{i in p} T_i(b_k)`` for each pack and listed partition."""
    bands = [instance.platform.partitions[k].bandwidth for k in partitions]
    out = np.zeros((len(packs), len(bands)))
    for p, pack in enumerate(packs):
        for c, band in enumerate(bands):
            out[p, c] = max((instance.job(i).length(band) for i in pack), default=0.0)
    return out


def lpt_allocate(instance: Instance, packs: Sequence[Sequence[str]], *,
                 partitions: Sequence[int] | None = None,
                 fixed: Sequence[Sequence[Sequence[str]]] | None = None):
    """A :class:`~opt_sched.simulation.PackPlan` placing ``packs`` by LPT.

    Parameters
    ----------
    instance
        The jobs and the platform.
    packs
        Packs of job ids (for example from :func:`make_pack`), in the order
        they should run on any one partition.
    partitions
        Indices of the partitions to use (default: all of them).
    fixed
        Optional packs already bound to partitions (``fixed[k]`` for
        partition ``k``, e.g. packs of jobs the instance maps there); they
        run first on their partition and count in its initial load.

    Returns
    -------
    PackPlan

    Raises
    ------
    PlanError
        A partition index does not exist, or a pack fits no partition.
    """
    from ..simulation import PackPlan

    count = instance.platform.num_partitions
    chosen = list(range(count)) if partitions is None else list(partitions)
    for k in chosen:
        if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k < count:
            raise PlanError(f"lpt: partition={k!r} does not exist (platform has "
                            f"{count})")
    fixed_rows = [list(map(tuple, fixed[k])) if fixed is not None and k < len(fixed)
                  else [] for k in range(count)]
    loads = []
    for k in chosen:
        band = instance.platform.partitions[k].bandwidth
        loads.append(math.fsum(max(instance.job(i).length(band) for i in pack)
                               for pack in fixed_rows[k]))
    packs = [tuple(p) for p in packs]
    widths = [sum(instance.job(i).nodes for i in pack) for pack in packs]
    parts = [instance.platform.partitions[k] for k in chosen]
    assignment = lpt_assignment(pack_lengths(instance, packs, chosen), widths,
                                parts, loads)
    rows = [list(row) for row in fixed_rows]
    for c, k in enumerate(chosen):
        rows[k].extend(packs[p] for p in sorted(assignment[c]))
    return PackPlan(rows)
