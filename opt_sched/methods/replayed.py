"""Online schedulers as registry methods, replayed under an execution model.

Specs (the policy part is the exclusive model's I/O list policy, ``fifo``
when omitted; the shared model has no I/O queue and ignores it)::

    fcfs                                        first come, first served (batsched)
    easy                                        EASY backfilling (batsched)
    conservative(order=sjf)                     conservative backfilling (batsched)
    herbein(limit=20)                           bandwidth limit, declared rates
    herbein(limit=15,estimates=history,pretrain=1)
                                                seed 001's "common" I/O-aware
    workload-adaptive(limit=20,pretrain=1)      seed 001's workload-adaptive

A method of this module replays the instance -- jobs arrive at their
releases, the scheduler sees the requested times ``e_i``
(:func:`~opt_sched.scheduling.replay`) -- under the execution model the
caller names (:meth:`~opt_sched.methods.Method.run`'s ``execution``;
``exclusive`` by default). With ``pretrain=1`` the history estimator first
sees one isolated run of every job group under that same model
(:func:`~opt_sched.scheduling.pretrain.isolated_runs`: seed 001's "the
estimator is pre-trained by running jobs in isolation").

Supported instances: any without named resources (the backfilling
schedulers do not model them).

Defaults: ``fcfs/fifo``, ``easy/fifo`` and ``conservative/fifo`` run by
default (``compare``) on a trace workload -- jobs released at different
times (:func:`trace_reason`, their entries'
:attr:`~opt_sched.methods.MethodEntry.default_for`) -- not on a batch such
as ``instances/tucan5.json``, where every job is released at once and an
online scheduler has nothing to react to. Named explicitly, they run on a
batch too.
"""

from __future__ import annotations

from typing import Any

from ..instance import Instance
from ..scheduling.estimators import ESTIMATE_SOURCES
from .entries import Method, MethodEntry
from .packs import resource_reason
from .params import Param, choice, positive_number

__all__ = ["CONSERVATIVE", "EASY", "FCFS", "HERBEIN", "WORKLOAD_ADAPTIVE",
           "replayed_entry", "trace_reason"]


def trace_reason(instance: Instance) -> str | None:
    """Why ``instance`` is no trace workload for an online scheduler's
    default use, or None: a trace releases its jobs at two or more times."""
    releases = {job.release for job in instance.jobs}
    if len(releases) > 1:
        return None
    return ("every job is released at the same time (a batch): online schedulers "
            "run by default on traces only")


def _flag(text: str) -> int:
    """``1`` or ``0``."""
    if text not in ("1", "0"):
        raise ValueError("is not 1 or 0")
    return int(text)


ORDER = Param("order", choice("fcfs", "sjf"), "fcfs", doc="queue order")
LIMIT = Param("limit", positive_number(), None,
              doc="the bandwidth limit L (default: the partition's bandwidth)")
PRETRAIN = Param("pretrain", _flag, 0,
                 doc="1: prime the history estimator with one isolated run of "
                     "every job group")


def replayed_entry(name: str, summary: str, scheduler: str,
                   params: tuple[Param, ...] = (),
                   defaults: tuple[str, ...] = ()) -> MethodEntry:
    """The registry entry of the online scheduler ``scheduler``
    (:data:`opt_sched.scheduling.SCHEDULERS`), built with the method's
    parameters as keyword options (``pretrain`` becomes its ``prior``).
    ``defaults`` run by default on trace workloads (:func:`trace_reason`)."""

    def _supports(instance: Instance, method: Method) -> str | None:
        return resource_reason(instance, name)

    def _build(instance: Instance, method: Method, seed: int, *,
               execution: Any) -> Any:
        from ..scheduling import get_scheduler, replay

        policy = method.policy or "fifo"
        options = {p.name: method.arg(p.name) for p in params
                   if p.name != "pretrain" and method.arg(p.name) is not None}
        if any(p.name == "pretrain" for p in params) and method.arg("pretrain"):
            from ..scheduling.pretrain import isolated_runs

            options["prior"] = isolated_runs(instance, lambda: execution.build(policy),
                                             policy=policy)
        return replay(instance, get_scheduler(scheduler, **options),
                      execution.build(policy), policy=policy)

    return MethodEntry(name=name, summary=summary, build=_build, params=params,
                       supports=_supports, policy=True, executes=True,
                       defaults=defaults, default_for=trace_reason, online=True)


FCFS = replayed_entry("fcfs", "first come, first served (batsched fcfs), replayed "
                             "online", "fcfs", defaults=("fcfs/fifo",))

EASY = replayed_entry("easy", "EASY backfilling (batsched easy_bf), replayed online",
                      "easy", (ORDER,), defaults=("easy/fifo",))

CONSERVATIVE = replayed_entry(
    "conservative", "conservative backfilling (batsched conservative_bf), replayed "
                    "online", "conservative", (ORDER,),
    defaults=("conservative/fifo",))

HERBEIN = replayed_entry(
    "herbein", "EASY with a bandwidth limit L at start time (Herbein et al.; seed "
               "001's common I/O-aware scheduling with estimates=history)",
    "herbein",
    (LIMIT, Param("estimates", choice(*ESTIMATE_SOURCES), "declared",
                  doc="declared average bandwidths, or seed 001's history "
                      "estimator"),
     PRETRAIN, ORDER))

WORKLOAD_ADAPTIVE = replayed_entry(
    "workload-adaptive", "seed 001's workload-adaptive scheduling (target "
                         "throughput, two-group approximation, hard limit L)",
    "workload-adaptive",
    (LIMIT, Param("estimates", choice(*ESTIMATE_SOURCES), "history",
                  doc="seed 001's history estimator, or declared rates"),
     PRETRAIN, ORDER))
