"""Online scheduling (SPEC §9): the Scheduler seam, the replay engine and
the registered start rules.

>>> from opt_sched.scheduling import replay
>>> schedule = replay(instance, "fcfs")  # doctest: +SKIP

- :mod:`.base` -- :class:`Scheduler` (the protocol), :class:`Start`,
  :class:`JobTable` (what schedulers may know), :class:`Cluster` (the view).
- :mod:`.replay` -- :func:`replay`, the engine.
- :mod:`.plan` -- :class:`PlanScheduler`: a batch plan as a start rule.
- one module per scheduler, registered in :data:`SCHEDULERS`: ``fcfs``,
  ``easy`` and ``conservative`` (batsched's EASY and conservative
  backfilling, :mod:`.easy`, :mod:`.conservative`), ``io-easy`` (seed 000's
  I/O-aware list scheduling, :mod:`.io_aware`), ``herbein`` (Herbein et
  al.'s bandwidth-limited backfilling, :mod:`.herbein`). The backfilling ones
  share :mod:`.backfilling` (their Python side), :mod:`.backfill_kernel`
  (their one, compiled, implementation: lanes, reservations, the passes),
  :mod:`.profile` (the availability profile), :mod:`.queue_order`
  (``order="fcfs"|"sjf"``) and :mod:`.bandwidth` (bandwidth rules); without
  I/O the engine runs them in :mod:`.fused` (one compiled loop).

Adding a scheduler: one module with a class that follows
:class:`Scheduler`, plus one line in :data:`SCHEDULERS` (or
:func:`register_scheduler` from outside the package).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import OptionError
from .base import Cluster, JobTable, RunningJob, Scheduler, Start, job_table
from .conservative import ConservativeBackfilling
from .easy import EasyBackfilling
from .fcfs import FCFS
from .herbein import HerbeinEasy
from .io_aware import IOAwareEasy
from .packs import PackScheduling
from .plan import PlanScheduler
from .replay import replay

__all__ = [
    "FCFS",
    "SCHEDULERS",
    "Cluster",
    "ConservativeBackfilling",
    "EasyBackfilling",
    "HerbeinEasy",
    "IOAwareEasy",
    "JobTable",
    "PackScheduling",
    "PlanScheduler",
    "RunningJob",
    "Scheduler",
    "Start",
    "get_scheduler",
    "job_table",
    "register_scheduler",
    "replay",
]

SCHEDULERS: dict[str, Callable[..., Scheduler]] = {
    "fcfs": FCFS,
    "easy": EasyBackfilling,
    "conservative": ConservativeBackfilling,
    "io-easy": IOAwareEasy,
    "herbein": HerbeinEasy,
    "packs": PackScheduling,
}
"""Scheduler name -> factory (keyword options -> a fresh :class:`Scheduler`)."""


def register_scheduler(name: str, factory: Callable[..., Scheduler]) -> None:
    """Make ``name`` available to :func:`get_scheduler` (and the CLI)."""
    SCHEDULERS[name] = factory


def get_scheduler(name: str, **options: Any) -> Scheduler:
    """A fresh scheduler ``name`` built with ``options``.

    Raises
    ------
    OptionError
        Unknown name, or an option the scheduler does not take.
    """
    try:
        factory = SCHEDULERS[name]
    except (KeyError, TypeError):
        raise OptionError(f"scheduler={name!r} is unknown; choose one of "
                          f"{', '.join(sorted(SCHEDULERS))}") from None
    try:
        return factory(**options)
    except TypeError as err:
        raise OptionError(f"scheduler {name!r}: {err}") from None
