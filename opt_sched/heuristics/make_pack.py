"""Make-Pack and First-Fit: partition jobs into packs (seed 003 §5.2, SPEC §6).

Notation (seed 003). A pack ``p`` holds jobs; with ``b`` the bandwidth and
``P`` the node count of the partition it is built for,

.. math::

    P^{p} = \\sum_{i \\in p} Q_i, \\qquad
    T^{p} = \\max_{i \\in p} T_i(b), \\qquad
    L^{p} = \\frac{1}{b\\,T^{p}} \\sum_{i \\in p} V_i .

Algorithm 1 of the seed processes the jobs by decreasing ``T_i(b)`` and puts
job ``i`` into the *first* pack of the pack list ``S_P``, "sorted by
decreasing value of ``P^p``", that satisfies

.. math::

    V_i \\le (S - L^{p})\\, b\\, T^{p}  \\quad (4) \\qquad\\qquad
    Q_i \\le P - P^{p}                 \\quad (5)

and otherwise opens a new pack holding ``i``.

Our reading, stated once:

- The pack list is kept sorted by decreasing ``P^p`` (ties: the older pack
  first). Taking the first pack that passes (4)-(5) therefore puts the job
  in the *fullest* pack that can take it: Best-Fit on processors, which is
  why the seed calls it a Best-Fit procedure.
- Jobs come by decreasing ``T_i(b)``, so a pack's first job is its longest
  and ``T^p`` never changes after creation. Equation (4) is then exactly
  ``L^p`` *after* adding ``i`` being ``<= S``. We test that general form,
  ``V^p + V_i <= S b max(T^p, T_i)``, which is the same test here and stays
  correct when dependencies change the order (below).
- A job alone in a new pack is always accepted, whatever its own ``L``.
- ``S = inf`` skips (4): the First-Fit baseline of the seed ("essentially
  Make-Pack with ``S = inf``"). It uses the same Best-Fit pack order.
- Returned packs are in creation order (pack 0 holds the longest job). On
  one I/O node with every release 0 the execution order of packs changes
  neither the makespan nor any stretch.

Beyond the seed:

- Dependencies. The jobs are taken in a topological order that picks, among
  ready jobs, the longest first (with no dependencies this is the seed's
  order). A job may only join a pack created after every pack holding one of
  its predecessors, so creation order is a valid execution order.
- Heterogeneous platforms: ``b`` and ``P`` are parameters; by default jobs
  are packed per size class (:func:`pack_classes`), so every pack fits at
  least the partitions of its class and passes (4) on each of them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import OptionError, PlanError
from ..instance import Instance, Job, Partition, topological_order

__all__ = [
    "Pack",
    "check_sensibility",
    "default_pack_platform",
    "first_fit",
    "make_pack",
    "make_packs",
    "pack_classes",
]


@dataclass(frozen=True)
class Pack:
    """A pack built for a partition of ``nodes`` nodes and ``bandwidth``.

    Attributes
    ----------
    jobs
        Job ids in insertion order.
    length
        ``T^p = max_{i in p} T_i(b)``, the contention-free pack length.
    volume
        ``sum_{i in p} V_i``.
    width
        ``P^p = sum_{i in p} Q_i``.
    bandwidth
        The ``b`` the pack was built with.
    """

    jobs: tuple[str, ...]
    length: float
    volume: float
    width: int
    bandwidth: float

    @property
    def T_pack(self) -> float:
        """``T^p``."""
        return self.length

    @property
    def P_pack(self) -> int:
        """``P^p``."""
        return self.width

    @property
    def L_pack(self) -> float:
        """``L^p = V^p / (b T^p)`` (0 for a pack of length 0)."""
        if self.length <= 0:
            return 0.0
        return self.volume / (self.bandwidth * self.length)


def check_sensibility(sensibility: object) -> float:
    """Return ``S`` as a float if it is a number ``> 0`` (``inf`` allowed)."""
    if isinstance(sensibility, bool) or not isinstance(sensibility, (int, float)):
        raise OptionError(f"make-pack: sensibility={sensibility!r} is not a number")
    value = float(sensibility)
    if math.isnan(value) or value <= 0:
        raise OptionError(f"make-pack: sensibility={sensibility!r} must be > 0")
    return value


def default_pack_platform(partitions: Sequence[Partition],
                          jobs: Sequence[Job] = ()) -> tuple[float, int]:
    """``(b, P)`` used to build packs that any of ``partitions`` may run.

    ``b = min_k b_k``: ``L^p`` decreases with ``b`` (its denominator
    ``max_i (b W_i + V_i)`` grows with ``b``), so a pack that passes (4) at
    the slowest bandwidth passes it on every partition.

    ``P = min_k P_k`` so that every pack fits every partition; if some job is
    wider than that, ``P`` is the smallest ``P_k`` that fits the widest job
    (packs wider than a partition are then kept off it by the allocation).
    """
    bandwidth = min(p.bandwidth for p in partitions)
    widest = max((job.nodes for job in jobs), default=0)
    fitting = [p.nodes for p in partitions if p.nodes >= widest]
    nodes = min(fitting) if fitting else max(p.nodes for p in partitions)
    return bandwidth, nodes


def pack_classes(partitions: Sequence[Partition], jobs: Sequence[Job]
                 ) -> list[tuple[float, int, list[Job]]]:
    """Split ``jobs`` by the smallest partition size that fits them.

    With distinct sizes ``P_(1) < P_(2) < ...``, class ``c`` holds the jobs
    with ``P_(c-1) < Q_i <= P_(c)`` and is packed with ``P = P_(c)`` and
    ``b = min {b_k : P_k >= P_(c)}`` (the partitions that can run its
    packs), so packs of narrow jobs fit every partition and only wide jobs
    are confined to wide partitions. On a homogeneous platform there is one
    class: ``(b, P)`` of one partition, the seed's setting. With
    dependencies, one class (:func:`default_pack_platform`) keeps the pack
    list in a dependency-respecting order. Returns ``(b, P, jobs)`` per
    non-empty class, narrowest first.
    """
    sizes = sorted({p.nodes for p in partitions})
    if len(sizes) == 1 or any(job.after for job in jobs):
        band, nodes = default_pack_platform(partitions, jobs)
        return [(band, nodes, list(jobs))]
    out = []
    low = -1
    for size in sizes:
        members = [job for job in jobs if low < job.nodes <= size]
        if members:
            band = min(p.bandwidth for p in partitions if p.nodes >= size)
            out.append((band, size, members))
        low = size
    return out


def _job_order(jobs: Sequence[Job], lengths: Sequence[float]) -> list[int]:
    """Decreasing ``T_i`` (ties: input order), but predecessors first."""
    order = topological_order(jobs, [-length for length in lengths])
    if order is None:  # the Instance already rejects cycles
        raise PlanError("make-pack: the jobs' dependencies contain a cycle")
    return order


def make_packs(jobs: Sequence[Job], sensibility: float, bandwidth: float,
               nodes: int) -> list[Pack]:
    """Algorithm 1 on ``jobs`` for a partition of ``nodes`` and ``bandwidth``.

    Returns the packs in creation order as :class:`Pack` records. See the
    module docstring for the rules; ``sensibility`` is checked here.
    """
    s = check_sensibility(sensibility)
    if not bandwidth > 0:
        raise OptionError(f"make-pack: bandwidth={bandwidth!r} must be > 0")
    lengths = [job.length(bandwidth) for job in jobs]
    pos = {job.id: k for k, job in enumerate(jobs)}
    # mutable pack state, by creation index
    members: list[list[str]] = []
    length: list[float] = []
    volume: list[float] = []
    width: list[int] = []
    order_by_width: list[int] = []  # S_P: decreasing P^p, ties older first
    pack_of: dict[str, int] = {}
    for k in _job_order(jobs, lengths):
        job = jobs[k]
        if job.nodes > nodes:
            raise PlanError(f"make-pack: job {job.id!r}: nodes={job.nodes} exceeds "
                            f"the pack capacity P={nodes}")
        after = max((pack_of[d] for d in job.after if d in pos), default=-1)
        chosen = -1
        for p in order_by_width:
            if p <= after:
                continue  # a predecessor is in this pack or a later-run one
            if job.nodes > nodes - width[p]:  # eq. (5)
                continue
            if not math.isinf(s):  # eq. (4), as L^p after insertion <= S
                span = max(length[p], lengths[k])
                if volume[p] + job.total_volume > s * bandwidth * span:
                    continue
            chosen = p
            break
        if chosen < 0:
            chosen = len(members)
            members.append([])
            length.append(0.0)
            volume.append(0.0)
            width.append(0)
            order_by_width.append(chosen)
        members[chosen].append(job.id)
        length[chosen] = max(length[chosen], lengths[k])
        volume[chosen] += job.total_volume
        width[chosen] += job.nodes
        pack_of[job.id] = chosen
        order_by_width.sort(key=lambda q: (-width[q], q))
    return [Pack(tuple(members[p]), length[p], volume[p], width[p], bandwidth)
            for p in range(len(members))]


def make_pack(instance: Instance, sensibility: float = 1.0, *,
              bandwidth: float | None = None,
              nodes: int | None = None) -> list[tuple[str, ...]]:
    """Make-Pack (seed 003, Algorithm 1): the jobs of ``instance`` in packs.

    Parameters
    ----------
    instance
        Its jobs are packed; their ``partition`` fields are ignored (see
        :func:`opt_sched.heuristics.pack_plan` for mapped instances).
    sensibility
        ``S > 0``; ``inf`` gives First-Fit.
    bandwidth, nodes
        ``b`` and ``P`` of eqs. (4)-(5). Default: one partition's values on
        a homogeneous platform; on a heterogeneous one the jobs are packed
        per size class (:func:`pack_classes`). Giving either one packs all
        jobs together, the other defaulting as in
        :func:`default_pack_platform`.

    Returns
    -------
    list of tuple of str
        The packs in creation order, each the ids of its jobs.

    Raises
    ------
    OptionError
        ``sensibility <= 0`` or not a number.
    PlanError
        A job is wider than ``nodes``.

    Examples
    --------
    >>> from opt_sched import Instance, Job, Platform
    >>> jobs = [Job.periodic("a", 2, 1.0, 1.0, 4), Job.periodic("b", 2, 1.0, 3.0, 2),
    ...         Job.periodic("c", 2, 3.0, 0.0, 2)]
    >>> inst = Instance("doc", Platform.homogeneous(1, nodes=4), tuple(jobs))
    >>> make_pack(inst, 1.0)   # T = 8, 8, 6; a with b would give L = 10/8 > 1
    [('a', 'c'), ('b',)]
    >>> first_fit(inst)        # processors only: a and b fill the first pack
    [('a', 'b'), ('c',)]
    """
    check_sensibility(sensibility)
    if bandwidth is None and nodes is None:
        classes = pack_classes(instance.platform.partitions, instance.jobs)
    else:
        default_b, default_p = default_pack_platform(instance.platform.partitions,
                                                     instance.jobs)
        classes = [(default_b if bandwidth is None else bandwidth,
                    default_p if nodes is None else nodes, list(instance.jobs))]
    return [pack.jobs for b, p, jobs in classes
            for pack in make_packs(jobs, sensibility, b, p)]


def first_fit(instance: Instance, *, bandwidth: float | None = None,
              nodes: int | None = None) -> list[tuple[str, ...]]:
    """The First-Fit baseline: :func:`make_pack` with ``S = inf`` (eq. 5 only)."""
    return make_pack(instance, math.inf, bandwidth=bandwidth, nodes=nodes)
