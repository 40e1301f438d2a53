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
  al.'s bandwidth-limited backfilling, declared or estimated bandwidths,
  :mod:`.herbein`), ``workload-adaptive`` (seed 001's target throughput and
  two-group approximation, :mod:`.adaptive`). The backfilling ones
  share :mod:`.backfilling` (their Python side), :mod:`.backfill_kernel`
  (their one, compiled, implementation: lanes, reservations, the passes),
  :mod:`.profile` (the availability profile), :mod:`.backfill_limits`
  (Slurm's ``bf_depth`` and ``bf_interval``), :mod:`.queue_order`
  (``order="fcfs"|"sjf"|"multifactor"|"fairshare:OP"``,
  :func:`get_queue_order`: the one front door of queue orders),
  :mod:`.bandwidth` (bandwidth rules) and :mod:`.estimators` (declared or
  history estimates); without I/O the engine runs them in :mod:`.fused`
  (one compiled loop).

Adding a scheduler: one module with a class that follows
:class:`Scheduler`, plus one line in :data:`SCHEDULERS`. From outside the
package: one entry point in the group ``opt_sched.schedulers`` (see
``docs/plugins.md``), or :func:`register_scheduler` within one process. A
registered scheduler is also a method (``opt_sched.methods``) at once.
A scheduler written in Python can build on :mod:`.blocks` (the queue as
arrays, the availability profile, first fits, shadow times, compiled
starts; ``docs/write-a-scheduler.md``). The API is versioned:
:data:`API_VERSION` (``CHANGELOG.md``).
"""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from functools import wraps
from typing import Any

from ..lazy import lazy_exports
from ..plugins import PluginMapping, build_registered, describe
from .base import (
    API_VERSION,
    Cluster,
    JobTable,
    RunningJob,
    Scheduler,
    Start,
    job_table,
)
from .replay import replay as _replay_engine

# The schedulers (numba kernels) are imported on first use (PEP 562), so
# that ``opt-sched replay --help`` lists their names without compiling or
# loading a kernel. ``.base`` and ``.replay`` stay eager: ``replay`` is
# both a submodule and a function here (the function below).
_LAZY: dict[str, str] = {
    "BlockScheduler": ".blocks",
    "Blocks": ".blocks",
    "WorkloadAdaptive": ".adaptive",
    "ConservativeBackfilling": ".conservative",
    "EasyBackfilling": ".easy",
    "FCFS": ".fcfs",
    "HerbeinEasy": ".herbein",
    "IOAwareEasy": ".io_aware",
    "PackScheduling": ".packs",
    "PlanScheduler": ".plan",
    "QueueOrder": ".queue_order",
    "get_queue_order": ".queue_order",
}

__getattr__, __dir__ = lazy_exports(__name__, globals(), _LAZY)


@wraps(_replay_engine)
def replay(instance: Any, scheduler: str | Scheduler, *args: Any,
           **kwargs: Any) -> Any:
    # The engine (.replay) takes a Scheduler; a registered name is resolved
    # here, where the registry is, so the engine never imports its package.
    if isinstance(scheduler, str):
        scheduler = get_scheduler(scheduler)
    return _replay_engine(instance, scheduler, *args, **kwargs)


class _Registry(PluginMapping[Callable[..., Scheduler]]):
    """Name -> factory, in registration order, with the ``opt_sched.schedulers``
    plug-ins (:class:`~opt_sched.plugins.PluginMapping`). An entry given as a
    string names one of this package's lazy exports (:data:`_LAZY`), imported
    on its first lookup: listing the names imports no scheduler."""

    def __getitem__(self, name: str) -> Callable[..., Scheduler]:
        value: Any = super().__getitem__(name)
        if isinstance(value, str):
            value = __getattr__(value)
            self[name] = value
        return value

    def builtin(self, name: str) -> bool:
        """``name`` is one of this package's schedulers (not a plug-in's nor
        a :func:`register_scheduler` call's)."""
        return name in _BUILTIN


__all__ = [
    "API_VERSION",
    "FCFS",
    "SCHEDULERS",
    "BlockScheduler",
    "Blocks",
    "Cluster",
    "ConservativeBackfilling",
    "EasyBackfilling",
    "HerbeinEasy",
    "IOAwareEasy",
    "JobTable",
    "PackScheduling",
    "PlanScheduler",
    "QueueOrder",
    "RunningJob",
    "Scheduler",
    "Start",
    "WorkloadAdaptive",
    "get_queue_order",
    "get_scheduler",
    "job_table",
    "register_scheduler",
    "replay",
]

def _check_plugin(name: str, factory: object) -> None:
    """A plug-in's scheduler must be a class or factory (a class: with the
    :class:`Scheduler` methods)."""
    if not callable(factory):
        raise TypeError(f"{describe(factory)} is not a Scheduler class or factory")
    if isinstance(factory, type):
        missing = [m for m in ("attach", "submit", "complete", "decide", "next_wakeup")
                   if not callable(getattr(factory, m, None))]
        if missing:
            raise TypeError(f"class {factory.__name__} is not a Scheduler: no "
                            f"{', '.join(missing)}")


_BUILTIN_NAMES: dict[str, Any] = {
    "fcfs": "FCFS",
    "easy": "EasyBackfilling",
    "conservative": "ConservativeBackfilling",
    "io-easy": "IOAwareEasy",
    "herbein": "HerbeinEasy",
    "workload-adaptive": "WorkloadAdaptive",
    "packs": "PackScheduling",
}
_BUILTIN = frozenset(_BUILTIN_NAMES)

SCHEDULERS: MutableMapping[str, Callable[..., Scheduler]] = _Registry(
    "schedulers", _BUILTIN_NAMES, _check_plugin)
"""Scheduler name -> factory (keyword options -> a fresh :class:`Scheduler`).
Plug-ins of the entry-point group ``opt_sched.schedulers``
(:mod:`opt_sched.plugins`) join it on the first lookup of a name it does
not hold, or when it is listed."""


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
    return build_registered(SCHEDULERS, "scheduler", name, options)
