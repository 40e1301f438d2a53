"""Pack heuristics in the registry: ``make-pack``, ``first-fit`` and the
``lpt`` allocation stage (seed 003 §5.2, §6.2.4).

Specs::

    make-pack(S=1)+lpt/fifo           Make-Pack, S = 1, LPT on every I/O node
    make-pack(S=alpha)+lpt/fifo       S = alpha, the instance's I/O load (eq. 6)
    make-pack(S=2.5)+lpt(R=1)/stretch LPT on partition 0 only
    first-fit+lpt/fifo                Make-Pack with S = inf (the baseline)

The ``allocation`` stage kind: ``apply(instance, packer, stage) ->
PackPlan``, with ``packer`` a :data:`~opt_sched.heuristics.Packer`. A pack
heuristic is a packer plus that stage, so a new one (e.g. the Random / Max /
Char pack orders of seed 000) is a packer and an entry made by
:func:`pack_entry`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

from ..instance import Instance
from .entries import BoundStage, Method, MethodEntry, StageEntry
from .params import Param, positive_int, positive_number

__all__ = ["FIRST_FIT", "LPT", "MAKE_PACK", "pack_entry", "resource_reason"]

PACK_PROBLEMS = ("hpc-io", "packs")
"""A pack schedule is a feasible HPC-IO schedule and a pack-variant one."""


def resource_reason(instance: Instance, what: str) -> str | None:
    """Why ``what`` cannot run jobs that demand named resources, or None.

    The simulator delays such a job until the resource has room, so the
    jobs of a pack would no longer start together (SPEC §3 rule 6).
    """
    for job in instance.jobs:
        if job.demands:
            names = ", ".join(name for name, _ in job.demands)
            return (f"job {job.id!r} demands named resources ({names}), which "
                    f"{what} does not model")
    return None


# -- the lpt stage ------------------------------------------------------------------
def _lpt_apply(instance: Instance, packer, stage: BoundStage):
    from ..heuristics import lpt_pack_plan

    return lpt_pack_plan(instance, packer, stage.arg("R"))


def _lpt_supports(instance: Instance, stage: BoundStage) -> str | None:
    count = instance.platform.num_partitions
    r = stage.arg("R")
    if r is not None and r > count:
        return f"R={r} exceeds the platform's {count} partitions"
    used = count if r is None else r
    for job in instance.jobs:
        if job.partition is not None and job.partition >= used:
            return (f"job {job.id!r} is mapped to partition {job.partition}, "
                    f"outside the R={used} partitions used")
    widest = max(p.nodes for p in instance.platform.partitions[:used])
    for job in instance.jobs:
        if job.partition is None and job.nodes > widest:
            return (f"job {job.id!r}: nodes={job.nodes} exceeds the R={used} "
                    f"partitions used (max {widest})")
    return None


LPT = StageEntry(
    name="lpt", kind="allocation",
    summary="packs placed on the I/O node where they finish first, longest "
            "first (Graham's LPT, seed 003 §6.2.4)",
    apply=_lpt_apply,
    params=(Param("R", positive_int, None,
                  doc="use partitions 0..R-1 (default: every partition)"),),
    supports=_lpt_supports)


# -- pack heuristics ----------------------------------------------------------------
def pack_entry(name: str, summary: str,
               packer: Callable[[Instance, Method], object], *,
               params: tuple[Param, ...] = (), defaults: tuple[str, ...] = (),
               warm_starts: tuple[str, ...] = (), warm_rank: int = 100,
               supports: Callable[[Instance, Method], str | None] | None = None,
               effective: Callable[[Instance, Method], Mapping[str, float]]
               | None = None) -> MethodEntry:
    """A :class:`MethodEntry` for a pack heuristic: ``packer(instance,
    method)`` returns the :data:`~opt_sched.heuristics.Packer` the method's
    arguments select; the allocation stage places its packs. Jobs that
    demand named resources are not supported (:func:`resource_reason`)."""

    def build(instance: Instance, method: Method, seed: int):
        stage = method.stage("allocation")
        assert stage is not None  # the entry declares the slot
        return stage.entry.apply(instance, packer(instance, method), stage)

    def check(instance: Instance, method: Method) -> str | None:
        reason = resource_reason(instance, name)
        if reason is None and supports is not None:
            reason = supports(instance, method)
        if reason is None and _mapped_dependencies(instance):
            reason = _deadlock_reason(instance, method, build)
        return reason

    return MethodEntry(name=name, summary=summary, build=build, params=params,
                       supports=check, stages=("allocation",), policy=True,
                       problems=PACK_PROBLEMS, defaults=defaults,
                       warm_starts=warm_starts, warm_rank=warm_rank,
                       effective=effective)


def _mapped_dependencies(instance: Instance) -> bool:
    """Some job is pre-mapped and some job has predecessors: the packs of
    mapped jobs run first on their partition, so they may wait on packs
    placed after them."""
    return instance.has_dependencies and any(
        job.partition is not None for job in instance.jobs)


def _deadlock_reason(instance: Instance, method: Method, build) -> str | None:
    """The plan's own complaint if its packs wait on each other in a cycle
    (the allocation stage is checked first by :meth:`Method.supports`)."""
    from ..errors import PlanError

    stage = method.stage("allocation")
    if stage is not None and stage.entry.supports is not None and \
            stage.entry.supports(instance, stage):
        return None  # the stage's own reason is reported
    try:
        build(instance, method, 0).lower(instance)
    except PlanError as err:
        return f"{err} (pre-mapped jobs wait on packs placed after theirs)"
    return None


def _sensibility(instance: Instance, method: Method) -> float:
    if method.name == "first-fit":
        return math.inf
    s = method.arg("S")
    return instance.io_load() if s == "alpha" else float(s)


def _make_pack_packer(instance: Instance, method: Method):
    from ..heuristics import make_pack_packer

    return make_pack_packer(_sensibility(instance, method))


def _make_pack_supports(instance: Instance, method: Method) -> str | None:
    if method.name == "make-pack" and method.arg("S") == "alpha":
        alpha = instance.io_load()
        if not alpha > 0:
            return (f"S=alpha needs an I/O load alpha > 0, and this instance's "
                    f"is {alpha:g} (no job does I/O)")
    return None


def _effective(instance: Instance, method: Method) -> dict[str, float]:
    return {"sensibility": _sensibility(instance, method)}


MAKE_PACK = pack_entry(
    "make-pack",
    "Make-Pack (seed 003 Algorithm 1): Best-Fit into packs whose I/O load "
    "stays <= S",
    _make_pack_packer,
    params=(Param("S", positive_number(allow_inf=True, words=("alpha",)), 1.0,
                  shown=True,
                  doc="I/O sensibility S > 0; 'alpha' = the instance's I/O "
                      "load; 'inf' = First-Fit"),),
    defaults=("make-pack(S=1)+lpt/fifo", "make-pack(S=alpha)+lpt/fifo",
              "make-pack(S=1)+lpt/longest-remaining"),
    warm_starts=("make-pack(S=1)+lpt/fifo",), warm_rank=10,
    supports=_make_pack_supports, effective=_effective)

FIRST_FIT = pack_entry(
    "first-fit",
    "First-Fit baseline (seed 003): Make-Pack without the I/O test (S = inf)",
    _make_pack_packer,
    defaults=("first-fit+lpt/fifo",),
    warm_starts=("first-fit+lpt/fifo",), warm_rank=20,
    effective=_effective)
