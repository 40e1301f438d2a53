"""A batch plan executed under any execution model.

:func:`execute_plan` runs a plan (one pack, packs, starts) under an
:class:`~opt_sched.execution.options.ExecutionSpec`: the fused simulator for
``exclusive`` (:func:`~opt_sched.simulate`), otherwise the plan as a start
rule (:class:`~opt_sched.scheduling.plan.PlanScheduler`, which gives exactly
the simulator's schedules under ``exclusive``) replayed under the model
(:func:`~opt_sched.scheduling.replay`).

It sits above both the execution models (:mod:`opt_sched.execution`) and the
replay engine (:mod:`.replay`), which depends on the models one way.
"""

from __future__ import annotations

import dataclasses

from ..execution.options import ExecutionSpec

__all__ = ["execute_plan"]


def execute_plan(instance, plan, execution: object = None, policy: str = "fifo"):
    """The schedule of ``plan`` on ``instance`` under ``execution`` (anything
    :meth:`ExecutionSpec.parse` reads); not validated (callers validate).
    Pack plans keep their ``packs``; ``method`` is ``"<plan>/<policy>"`` as
    :func:`~opt_sched.simulate` writes it."""
    spec = ExecutionSpec.parse(execution)
    if spec.model == "exclusive" and not spec.options:
        from ..simulation import simulate

        return simulate(instance, plan, policy)
    from .plan import PlanScheduler
    from .replay import replay

    scheduler = PlanScheduler(instance, plan)
    schedule = replay(instance, scheduler, spec.build(policy), policy=policy)
    info = {**schedule.info, "plan": scheduler.plan.label, "policy": policy,
            "execution": spec.label}
    return dataclasses.replace(schedule, packs=scheduler.packs,
                               method=f"{scheduler.plan.label}/{policy}", info=info)
