"""Warm starts: the heuristic schedules the exact models start from.

A warm start gives a model an incumbent at once: an upper bound (the CP-SAT
horizon and objective domain, the MILP big-M deadlines), a solution hint,
and the answer the backend falls back on when its time runs out while it is
still building its model.

**The one list.** :func:`warm_heuristics` is the only place that names the
heuristics the exact models start from. Seam: the method registry
(``opt_sched.methods``, issue 8 point 1, built on another branch) answers the
same question with ``warm_start_specs(instance, problem, sensibility)``
(every registered method whose entry lists ``problem`` and supports the
instance, Make-Pack's ``S`` set to the pack model's cap); once it is merged,
:func:`warm_schedules` runs ``methods.method(spec).run(instance)`` for those
specs and the list below goes away (``io_nodes``, used by the pack MILP, then
becomes the stage parameter ``lpt(R=...)``).

A heuristic is skipped only when it *declares* that it does not support the
instance (:attr:`WarmHeuristic.supports`); any error it raises otherwise is
a bug and propagates.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..instance import Instance
from ..objectives import objective_value
from ..operations import is_one_pack, one_pack_partitions, overfull_partition
from ..schedule import Schedule
from ..simulation import POLICY_NAMES, OnePackPlan, simulate
from .deadline import Deadline

__all__ = ["WarmHeuristic", "best_schedule", "prepare", "stopped_outcome",
           "warm_heuristics", "warm_schedules"]


@dataclass(frozen=True)
class WarmHeuristic:
    """A heuristic an exact model may start from.

    ``label`` is its method spec string (e.g. ``"one-pack/fifo"``,
    ``"make-pack(S=1)+lpt/fifo"``); ``plan(instance, io_nodes)`` returns its
    plan for the simulator (``io_nodes``: use partitions ``0..R-1`` only,
    ``None`` for all); ``policy`` is the simulator's I/O policy;
    ``supports(instance)`` says whether it applies.
    """

    label: str
    plan: Callable[[Instance, int | None], Any]
    policy: str
    supports: Callable[[Instance], bool]

    def run(self, instance: Instance, io_nodes: int | None = None) -> Schedule:
        """Its schedule (simulated, not yet validated)."""
        return simulate(instance, self.plan(instance, io_nodes), self.policy)


def _fits_one_pack(instance: Instance) -> bool:
    return is_one_pack(instance) and overfull_partition(
        instance, one_pack_partitions(instance)) is None


def _one_pack_plan(instance: Instance, io_nodes: int | None) -> Any:
    return OnePackPlan()


def _pack_plan(method: str, sensibility: float) -> Callable[[Instance, int | None],
                                                             Any]:
    def plan(instance: Instance, io_nodes: int | None) -> Any:
        from ..heuristics import pack_plan

        return pack_plan(instance, method, sensibility=sensibility,
                         io_nodes=io_nodes)

    return plan


def _always(instance: Instance) -> bool:
    return True


def warm_heuristics(problem: str, sensibility: float | None = None
                    ) -> list[WarmHeuristic]:
    """The heuristics the models of ``problem`` start from (module doc).

    - ``io-sched``: the one-pack schedule under each of the eight I/O
      policies (seed 003 §5.1);
    - ``hpc-io`` and ``packs``: Make-Pack with ``S = 1`` (or
      ``sensibility``, when the pack model imposes Make-Pack's cap) and,
      without a cap, First-Fit, both with LPT allocation (seed 003 §6),
      executed under FIFO;
    - ``planning``: none here (its serial schedule-generation scheme works
      on the plan, :mod:`opt_sched.heuristics.serial_sgs`).
    """
    if problem == "io-sched":
        return [WarmHeuristic(f"one-pack/{policy}", _one_pack_plan, policy,
                              _fits_one_pack) for policy in POLICY_NAMES]
    if problem in ("hpc-io", "packs"):
        s = 1.0 if sensibility is None else float(sensibility)
        out = [WarmHeuristic(f"make-pack(S={s:g})+lpt/fifo",
                             _pack_plan("make-pack", s), "fifo", _always)]
        if sensibility is None:
            out.append(WarmHeuristic("first-fit+lpt/fifo",
                                     _pack_plan("first-fit", math.inf), "fifo",
                                     _always))
        return out
    return []


def warm_schedules(instance: Instance, problem: str, *,
                   sensibility: float | None = None, io_nodes: int | None = None,
                   deadline: Deadline | None = None) -> list[tuple[str, Schedule]]:
    """``(label, schedule)`` of every warm heuristic that supports
    ``instance``, in the order of :func:`warm_heuristics`; once ``deadline``
    has passed, the remaining ones are not run."""
    out: list[tuple[str, Schedule]] = []
    for heuristic in warm_heuristics(problem, sensibility):
        if deadline is not None and deadline.expired():
            break
        if heuristic.supports(instance):
            out.append((heuristic.label, heuristic.run(instance, io_nodes)))
    return out


@functools.cache
def prepare() -> None:
    """One-time set-up of the simulator (loading its compiled kernel), before
    any time limit runs: simulate a one-job instance once per process."""
    from ..instance import Job, Platform

    tiny = Instance("warm-up", Platform.homogeneous(1, 1), (Job("a", 1, (1.0,),
                                                                 (1.0,)),))
    simulate(tiny, OnePackPlan(), "fifo")


def best_schedule(instance: Instance, schedules: list[tuple[str, Schedule]],
                  objective: str) -> tuple[str, Schedule] | None:
    """The schedule of smallest ``objective`` (the first on ties), or
    ``None``."""
    best = None
    for label, schedule in schedules:
        value = objective_value(instance, schedule, objective)
        if best is None or value < best[0]:
            best = (value, label, schedule)
    return None if best is None else (best[1], best[2])


def stopped_outcome(instance: Instance, schedules: list[tuple[str, Schedule]],
                    objective: str, reason: str, *, packs: bool = True) -> Any:
    """The answer of a backend whose time ran out before its model could
    answer: the best warm schedule (``FEASIBLE``; without its pack claim
    unless ``packs``), or none (``TIMEOUT_NO_SOLUTION``). ``reason`` goes to
    ``info["stopped"]``."""
    import dataclasses

    from .result import Outcome, SolveStatus

    best = best_schedule(instance, schedules, objective)
    if best is None:
        return Outcome(SolveStatus.TIMEOUT_NO_SOLUTION, info={"stopped": reason})
    label, schedule = best
    if not packs and schedule.packs is not None:
        schedule = dataclasses.replace(schedule, packs=None)
    return Outcome(SolveStatus.FEASIBLE, schedule,
                   info={"stopped": reason, "incumbent": label})
