"""Online schedulers as registry methods: a batch replayed with exact estimates.

Specs::

    packs(order=max)/fifo                 seed 000's pack scheduling, Max order
    packs(order=random)/fifo              Random order (seeded by the method seed)
    packs(order=char-dec,backfill=0)/fifo Char, non-increasing, no pack backfilling
    ls/fifo                               seed 000's I/O-aware list scheduling

An *online method* builds its schedule by replaying the instance through a
:class:`~opt_sched.scheduling.base.Scheduler`
(:func:`~opt_sched.scheduling.replay`) under the execution model the
caller names (:meth:`~opt_sched.methods.Method.run`'s ``execution``; by
default the exclusive I/O node of SPEC §3, seed 000's, whose list policy is
the spec's ``/policy``), with exact estimates: the scheduler predicts every job's
length by its contention-free ``T_i(B)``, as seed 000 assumes ("the packs
and applications duration can be predicted"). ``build`` returns the
finished :class:`~opt_sched.schedule.Schedule`; callers validate it.

The entries here:

- ``packs(order=random|max|char-dec|char-inc, backfill=1|0)`` --
  :class:`~opt_sched.scheduling.packs.PackScheduling` (the average
  constraint, first-fit pack construction, pack backfilling; its module
  docstring gives the rules);
- ``ls`` -- seed 000's I/O-aware list scheduling: FCFS under the strict
  bandwidth constraint with EASY backfilling that reserves nodes and
  bandwidth, the scheduler registered as ``io-easy``
  (:data:`opt_sched.scheduling.SCHEDULERS`). Until that scheduler is in the
  build, :meth:`~opt_sched.methods.Method.supports` says so.

Supported instances (:func:`batch_reason`): seed 000's batch -- one
partition, every job released at 0, no dependencies, no named resources.
On such an instance the defaults -- seed 000's four strategies ``ls/fifo``
(LS), ``packs(order=random)/fifo`` (Random), ``packs(order=max)/fifo``
(Max) and ``packs(order=char-dec)/fifo`` (Char: the paper does not state
the direction; non-increasing, as Max) -- run in ``compare`` and ``gap``
(problem ``hpc-io``); on other instances they run only when named.

Registering another online scheduler the same way (one line in
:mod:`.catalog`, or :func:`~opt_sched.methods.register` from outside)::

    EASY = online_entry("easy", "EASY backfilling (batsched)", "easy",
                        params=(Param("order", choice("fcfs", "sjf"), "fcfs"),))

A scheduler named by a string is looked up in
:data:`~opt_sched.scheduling.SCHEDULERS` when the method runs, and built
with the method's parameters as keyword options; a callable
``scheduler(method, seed) -> Scheduler`` is used as it is (``packs`` passes
the method seed to its random order).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..instance import Instance
from .entries import Method, MethodEntry
from .packs import resource_reason
from .params import Param, choice

__all__ = ["LS", "PACKS", "SchedulerFactory", "batch_reason", "online_entry"]

SchedulerFactory = Callable[[Method, int], Any]
"""``factory(method, seed) -> Scheduler``: a fresh scheduler for one run."""

ONLINE_PROBLEMS = ("hpc-io",)
"""A replayed batch schedule obeys SPEC rules 1-5 (validated by callers);
it is not a pack schedule (backfilled jobs join packs late), so it is
compared with the HPC-IO bounds only."""


def batch_reason(instance: Instance, what: str) -> str | None:
    """Why ``what`` cannot schedule ``instance`` as seed 000's batch, or None.

    The batch: a single partition (one I/O node), every job released at 0
    (the seed's static workloads), no dependencies and no named resources
    (the seed's jobs have neither). (An :class:`~opt_sched.instance.Instance`
    never holds a job wider than its largest partition.)
    """
    platform = instance.platform
    if platform.num_partitions != 1:
        return (f"{what} schedules one partition (seed 000's single I/O node); the "
                f"platform has {platform.num_partitions}")
    for job in instance.jobs:
        if job.release != 0:
            return (f"job {job.id!r} is released at {job.release:g}; {what} "
                    f"schedules a batch released at 0")
        if job.after:
            return (f"job {job.id!r} depends on {job.after[0]!r}; {what} schedules "
                    f"independent jobs")
    return resource_reason(instance, what)


def _named_factory(scheduler: str, params: tuple[Param, ...]) -> SchedulerFactory:
    def make(method: Method, seed: int) -> Any:
        from ..scheduling import get_scheduler

        options = {p.name: method.arg(p.name) for p in params}
        return get_scheduler(scheduler, **options)

    return make


def online_entry(name: str, summary: str, scheduler: str | SchedulerFactory, *,
                 params: tuple[Param, ...] = (),
                 supports: Callable[[Instance, Method], str | None] | None = None,
                 record_machines: bool = False,
                 defaults: tuple[str, ...] = (),
                 problems: tuple[str, ...] = ONLINE_PROBLEMS) -> MethodEntry:
    """The registry entry of an online scheduler run on a batch.

    Parameters
    ----------
    name, summary
        As :class:`~.entries.MethodEntry`.
    scheduler
        A name of :data:`opt_sched.scheduling.SCHEDULERS` (built with the
        method's parameters as keyword options), or ``factory(method, seed)``.
    params
        The spec parameters.
    supports
        Extra capability check, after :func:`batch_reason`.
    record_machines
        State each job's machine numbers in the schedule
        (:func:`~opt_sched.scheduling.replay`). Off by default: a batch
        schedule is an HPC-IO schedule, whose nodes are interchangeable, so
        the schedule states node counts (the engine still assigns and checks
        machines); numbering tens of thousands of machines per Mira job costs
        more than the whole replay.
    defaults, problems
        As :class:`~.entries.MethodEntry`. The defaults run by default on
        seed 000's batch only (:attr:`~.entries.MethodEntry.default_for` is
        :func:`batch_reason`): on another instance the entry is left out
        silently, and runs only when named.
    """
    named = scheduler if isinstance(scheduler, str) else None
    factory = (_named_factory(scheduler, params) if isinstance(scheduler, str)
               else scheduler)

    def _supports(instance: Instance, method: Method) -> str | None:
        if named is not None:
            from ..scheduling import SCHEDULERS

            if named not in SCHEDULERS:
                return (f"scheduler {named!r} is not registered in this build "
                        f"(known: {', '.join(sorted(SCHEDULERS))})")
        reason = batch_reason(instance, name)
        if reason is None and supports is not None:
            reason = supports(instance, method)
        return reason

    def _build(instance: Instance, method: Method, seed: int, *,
               execution: Any) -> Any:
        from ..scheduling import replay

        policy = method.policy or "fifo"
        return replay(instance, factory(method, seed), execution.build(policy),
                      policy=policy, estimate="exact",
                      record_machines=record_machines)

    def _default_for(instance: Instance) -> str | None:
        return batch_reason(instance, name)

    return MethodEntry(name=name, summary=summary, build=_build, params=params,
                       supports=_supports, policy=True, problems=problems,
                       defaults=defaults, default_for=_default_for, online=True,
                       executes=True)


# -- seed 000's strategies ----------------------------------------------------------
def _flag(text: str) -> int:
    """``1`` or ``0``."""
    if text not in ("1", "0"):
        raise ValueError("is not 1 or 0")
    return int(text)


def _packs(method: Method, seed: int) -> Any:
    from ..scheduling.packs import PackScheduling

    return PackScheduling(str(method.arg("order")),
                          backfill=bool(method.arg("backfill")), seed=seed)


def _pack_orders() -> tuple[str, ...]:
    from ..scheduling.packs import PACK_ORDERS

    return PACK_ORDERS


PACKS = online_entry(
    "packs", "seed 000's pack scheduling (average constraint, pack backfilling), "
             "replayed on a batch",
    _packs,
    params=(Param("order", choice(*_pack_orders()), "max", shown=True,
                  doc="pack order: random (seeded), max (non-increasing T_i(B)), "
                      "char-dec / char-inc (characteristic time w_i + v_i/B)"),
            Param("backfill", _flag, 1,
                  doc="1: start later packs' jobs in the running pack when they "
                      "are predicted to end by its predicted end; 0: never")),
    # seed 000's Random, Max and Char (its notes: Char sorts non-increasing,
    # as Max does)
    defaults=("packs(order=random)/fifo", "packs(order=max)/fifo",
              "packs(order=char-dec)/fifo"))

LS = online_entry(
    "ls", "seed 000's I/O-aware list scheduling (FCFS, strict bandwidth "
          "constraint, EASY backfilling of nodes and bandwidth), replayed on a batch",
    "io-easy", defaults=("ls/fifo",))
