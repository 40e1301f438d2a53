"""``simulate``: execute a plan under an I/O policy and return the schedule.

Design
------
There is one engine: the exclusive-I/O event loop of :mod:`.events` (the
replay's ``exclusive`` model runs the same loop), driven through a plan by
:func:`kernel.run`, called once per simulation. This module only prepares
arrays (phase lengths, I/O durations ``d_ij = v_ij / b_k(i)``, the policy's
per-phase keys) and turns the result into a :class:`~opt_sched.schedule.Schedule`.

Plans reach the kernel as *gates* (:mod:`~opt_sched.simulation.program`)
rather than as a Python loop over packs that calls the kernel once per pack.
A gate is a barrier on job completions plus an earliest start, and every plan
is a special case: a pack is one gate shared by its jobs that awaits the
previous pack and the predecessors of its jobs; a job of a
:class:`~opt_sched.simulation.plans.StartsPlan` is its own gate, gated
further by its partition's free nodes in its start queue. So dependencies
across partitions, packs that start at another partition's completion and
node gating are all resolved inside one event loop, at the cost of a few
integer counters per completion, and the per-event cost stays free of
Python. The kernel is compiled with ``cache=True``: the first call of a
fresh environment compiles it (a few seconds) and writes the cache next to
the module, every later process loads it.
"""

from __future__ import annotations

import numpy as np

from ..errors import OptionError, PlanError
from ..instance import Instance
from ..schedule import JobSchedule, Schedule
from . import events, kernel
from .plans import OnePackPlan, Plan
from .policies import PhaseTable, Policy, get_policy
from .program import Program, kernel_arrays

__all__ = ["simulate"]


def simulate(instance: Instance, plan: Plan | None = None,
             policy: str | Policy = "fifo") -> Schedule:
    """Execute ``plan`` on ``instance``, ordering I/O phases by ``policy``.

    Parameters
    ----------
    instance
        The jobs and the platform.
    plan
        A :class:`OnePackPlan` (the default), :class:`PackPlan` or
        :class:`StartsPlan`.
    policy
        One of :data:`~opt_sched.simulation.policies.POLICY_NAMES` (or a
        :class:`Policy`).

    Returns
    -------
    Schedule
        One :class:`JobSchedule` per job in instance order; ``packs`` set for
        pack plans; ``method`` is ``"<plan>/<policy>"``, e.g.
        ``"one-pack/fifo"``.

    Raises
    ------
    PlanError
        The plan does not fit the instance.
    OptionError
        Unknown policy name.

    Examples
    --------
    >>> from opt_sched import read_instance
    >>> schedule = simulate(read_instance("instances/tiny2.json"))
    >>> schedule["a"].io_starts, schedule["b"].io_starts
    ((3.0, 8.0), (1.0, 6.0))
    """
    if not isinstance(policy, Policy):
        policy = get_policy(policy)
    if plan is None:
        plan = OnePackPlan()
    if not hasattr(plan, "lower"):
        raise OptionError(f"plan={plan!r} is not a OnePackPlan, PackPlan or "
                          f"StartsPlan")
    program = plan.lower(instance)
    phases = _phase_arrays(instance, program, policy)
    arrays = kernel_arrays(program)
    capacity = np.asarray([p.nodes for p in instance.platform.partitions], np.int64)
    res_cap, job_dem = _resource_arrays(instance)
    state = events.new_state(phases["ph_off"], phases["w"], len(capacity))
    pf = state[3]
    pf[events.P_D] = phases["d"]
    pf[events.P_KEY] = phases["key"]
    pf[events.P_DONE] = phases["done"]
    unstarted = kernel.run(
        arrays["job_part"], phases["nodes"], arrays["job_earliest"],
        arrays["job_gate"], capacity, arrays["q_off"], arrays["q_jobs"],
        arrays["gate_count_init"], arrays["gate_part"],
        arrays["succ_off"], arrays["succ_gate"], res_cap, job_dem, policy.mode,
        *state)
    jstart = state[2][events.F_JSTART]
    if unstarted:
        missing = next(job.id for job, s in zip(instance.jobs, jstart)
                       if np.isnan(s))
        raise PlanError(f"plan: job {missing!r} never starts (its gate never opens)")
    cstart = pf[events.P_CSTART]
    iostart = pf[events.P_IOSTART]
    off = phases["ph_off"]
    cs = cstart.tolist()
    io = iostart.tolist()
    jobs = tuple(
        JobSchedule(job.id, program.partition[i], tuple(cs[off[i]:off[i + 1]]),
                    tuple(io[off[i]:off[i + 1]]))
        for i, job in enumerate(instance.jobs))
    return Schedule(jobs, packs=program.packs, method=f"{plan.label}/{policy.name}",
                    info={"plan": plan.label, "policy": policy.name})


def _resource_arrays(instance: Instance) -> tuple[np.ndarray, np.ndarray]:
    """Capacities of the named resources jobs demand, and the demand matrix.

    Only resources some job demands are hard constraints of execution (SPEC
    §3 rule 4 as the validator checks it); a planning budget such as
    ``bandwidth`` that no job claims explicitly is not.
    """
    names = sorted({name for job in instance.jobs for name, _ in job.demands})
    capacity = instance.platform.resource_capacity
    res_cap = np.asarray([capacity[name] for name in names], dtype=np.float64)
    job_dem = np.zeros((len(instance.jobs), len(names)))
    for i, job in enumerate(instance.jobs):
        for name, amount in job.demands:
            job_dem[i, names.index(name)] = amount
    # a tiny slack so that demands summing exactly to the capacity fit
    return res_cap * (1 + 1e-12) + 1e-12, job_dem


def _phase_arrays(instance: Instance, program: Program,
                  policy: Policy) -> dict[str, np.ndarray]:
    """Per-phase ``w``, ``d = v / b_k(i)``, policy ``key`` and work done
    ``P_ij``, job after job."""
    jobs = instance.jobs
    off, w, v = instance.phase_arrays
    job_of = np.repeat(np.arange(len(jobs)), np.diff(off))
    bands = np.asarray([p.bandwidth for p in instance.platform.partitions])
    d = v / bands[np.asarray(program.partition, np.int64)][job_of]
    table = PhaseTable(job_of, off, w, d)
    key = (np.zeros(len(w)) if policy.phase_key is None
           else np.ascontiguousarray(policy.phase_key(table), np.float64))
    return {
        "nodes": np.fromiter((job.nodes for job in jobs), np.int64, len(jobs)),
        "ph_off": off,
        "w": w,
        "d": d,
        "key": key,
        "done": table.done(),
    }
