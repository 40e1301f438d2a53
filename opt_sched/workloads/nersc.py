r"""NERSC-calibrated workloads: ScSF's workload generator (seed 002, Paper IV
§3.1, §3.4) with the Edison model, or a model fitted to any SWF trace.

A :class:`WorkloadModel` is four independent empirical samplers
(:mod:`~opt_sched.workloads.empirical`): inter-arrival time, requested wall
time ``L``, accuracy ``a`` and nodes ``Q``. A job runs

.. math:: run = a L \quad (a \le 1), \qquad
          run = \min(a L, L + \mathrm{overtime}) \quad (a > 1),

the overtime being Slurm's ``OverTimeLimit`` (60 s in ScSF: an overrunning
job is killed a minute past its limit).

:func:`generate_workload` (ScSF's phases, Paper IV §3.4):

1. **fill** (optional): the backlog of the target wait
   (:func:`~opt_sched.workloads.pressure.fill_plan`), from time 0;
2. **stabilisation** (24 h by default), then the **experiment** (5 days by
   default, Paper V): regular jobs from the model under the job-pressure
   rule (:class:`~opt_sched.workloads.pressure.PressureControl`, thresholds
   1.0 and 1.1), and the workflows;
3. **drain**: nothing is submitted after the experiment; the replay runs
   every job to its end. Metrics are taken over the experiment window.

Workflows at a *share* of the core-hours (Paper V §4.2.1): a workflow of
``W`` node-seconds of task work is submitted every
``W / (share * lower * N)`` seconds from the start, and the regular jobs'
pressure thresholds are scaled by ``1 - sum(shares)``, so that workflows
hold the share of the submitted work whatever the submission method (the
same seed gives the same regular jobs and workflow submit times in every
method; a pilot job's idle allocation then raises the real pressure above
1, as in the thesis). With a share of 100 % there are no regular jobs.

The machine may be smaller than the model's (``nodes``): job sizes above
it are drawn again (rejection), which keeps the shape of the rest.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import OptionError
from ..instance import Instance, Job, Platform
from .empirical import EmpiricalSampler
from .limits import MAX_GENERATED_JOBS, check_job_count, check_machine_count
from .nersc_edison import (
    EDISON_CORES_PER_NODE,
    EDISON_NODES,
    accuracy_sampler,
    interarrival_sampler,
    limit_sampler,
    nodes_sampler,
)
from .pressure import PressureControl, fill_plan

__all__ = [
    "NERSC_PROTOCOLS",
    "NerscWorkload",
    "WorkloadModel",
    "edison_model",
    "fit_trace",
    "generate_nersc",
    "generate_workload",
    "workload_model",
]

NERSC_PROTOCOLS = ("nersc-edison", "fit:TRACE.swf")

DAY = 86400.0
_MAX_BURST = 100_000


@dataclass(frozen=True)
class WorkloadModel:
    """The four samplers of a system (see the module docstring).

    ``machines`` and ``cores_per_node`` describe the modelled system;
    ``limit`` samples seconds.
    """

    name: str
    interarrival: EmpiricalSampler
    limit: EmpiricalSampler
    accuracy: EmpiricalSampler
    nodes: EmpiricalSampler
    machines: int
    cores_per_node: int = 1
    overtime: float = 60.0

    def sample_jobs(self, rng: np.random.Generator, count: int, max_nodes: int
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``count`` jobs: (limits, run times, nodes), nodes <= ``max_nodes``."""
        limits = np.asarray(self.limit.sample(rng, count), dtype=float)
        accuracy = np.asarray(self.accuracy.sample(rng, count), dtype=float)
        nodes = np.asarray(self.nodes.sample(rng, count), dtype=float)
        for _ in range(1000):
            over = nodes > max_nodes
            if not over.any():
                break
            nodes[over] = self.nodes.sample(rng, int(over.sum()))
        else:
            raise OptionError(f"{self.name}: cannot draw job sizes <= {max_nodes} "
                              f"machines")
        runs = accuracy * limits
        late = accuracy > 1.0
        runs[late] = np.minimum(runs[late], limits[late] + self.overtime)
        return limits, np.maximum(runs, 1e-3), np.maximum(nodes, 1).astype(np.int64)


def edison_model() -> WorkloadModel:
    """The calibrated Edison model (:mod:`~opt_sched.workloads.nersc_edison`):
    5,576 nodes of 24 cores."""
    return WorkloadModel("nersc-edison", interarrival_sampler(), limit_sampler(),
                         accuracy_sampler(), nodes_sampler(), EDISON_NODES,
                         EDISON_CORES_PER_NODE)


def fit_trace(path: str | Path, *, cores_per_node: int = 1,
              name: str | None = None) -> WorkloadModel:
    """A :class:`WorkloadModel` fitted to an SWF trace (ScSF's bin widths:
    inter-arrival 1 s, requested time 1 min, accuracy 0.01, one node).

    The trace is read with :func:`opt_sched.traces.read_swf` keeping the
    requested times (``overrun="keep"``), so the accuracy is the real
    ``run / request``. ``cores_per_node`` groups SWF processors into
    machines (``Q = ceil(processors / cores_per_node)``); the machine count
    is the header's size (else the widest job).
    """
    from ..traces import read_swf

    if isinstance(cores_per_node, bool) or not isinstance(cores_per_node, int) \
            or cores_per_node < 1:
        raise OptionError(f"fit_trace: cores_per_node={cores_per_node!r} must be "
                          f"an integer >= 1")
    trace, _ = read_swf(path, overrun="keep")
    if len(trace) < 2:
        raise OptionError(f"fit_trace: {str(path)!r} has {len(trace)} usable jobs; "
                          f"need at least 2")
    label = name or f"fit:{trace.name}"
    submit = np.asarray(trace.submit, dtype=float)
    gaps = np.diff(submit)
    limits = np.asarray(trace.walltime, dtype=float)
    runs = np.asarray(trace.run_time, dtype=float)
    ok = (limits > 0) & np.isfinite(limits)
    accuracy = runs[ok] / limits[ok]
    nodes = np.ceil(np.asarray(trace.nodes, dtype=float) / cores_per_node)
    size = trace.machine_size
    machines = int(-(-size // cores_per_node)) if size else int(nodes.max())
    return WorkloadModel(
        label,
        EmpiricalSampler.from_values(gaps, 1.0, policy="low", name="inter-arrival",
                                     origin=0.0),
        EmpiricalSampler.from_values(np.maximum(limits[ok], 60.0), 60.0,
                                     policy="low", name="wall-clock limit",
                                     origin=0.0),
        EmpiricalSampler.from_values(accuracy, 0.01, policy="midpoint",
                                     name="accuracy", origin=0.0),
        EmpiricalSampler.from_values(np.maximum(nodes, 1), 1.0, policy="low",
                                     name="nodes", origin=0.0),
        max(machines, int(nodes.max())), cores_per_node)


def workload_model(spec: str | WorkloadModel) -> WorkloadModel:
    """``"nersc-edison"`` (or ``"edison"``), ``"fit:TRACE.swf"``, or a
    model."""
    if isinstance(spec, WorkloadModel):
        return spec
    if not isinstance(spec, str):
        raise OptionError(f"protocol={spec!r} is not a string")
    if spec in ("nersc-edison", "edison", "nersc"):
        return edison_model()
    if spec.startswith("fit:") and len(spec) > 4:
        return fit_trace(spec[4:])
    raise OptionError(f"protocol={spec!r} is unknown; choose one of "
                      f"{', '.join(NERSC_PROTOCOLS)}")


@dataclass(frozen=True)
class NerscWorkload:
    """A generated workload: the regular (and fill) jobs, the phase
    boundaries, and the workflow submissions ``(time, workflow)``."""

    instance: Instance | None
    platform: Platform
    start: float
    window: tuple[float, float]
    fill_jobs: int
    regular_jobs: int
    model: str
    cores_per_node: int
    workflow_submissions: list[tuple[float, object]] = field(default_factory=list)
    pressure: float = 0.0


def _check_positive(name: str, value: object, *, zero: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value) or value < 0 or (value == 0 and not zero):
        raise OptionError(f"generate: {name}={value!r} must be a finite number "
                          f"{'>= 0' if zero else '> 0'}")
    return float(value)


def generate_workload(model: str | WorkloadModel = "nersc-edison", *,
                      nodes: int | None = None, duration: float = 5 * DAY,
                      stabilisation: float = DAY, seed: int = 0,
                      pressure: tuple[float, float] = (1.0, 1.1),
                      fill: bool = True, target_wait: float = 4 * 3600.0,
                      workflows: Sequence[tuple[object, float]] = (),
                      users: int | None = None, accounts: int = 1,
                      name: str | None = None) -> NerscWorkload:
    """Generate a workload (see the module docstring).

    Parameters
    ----------
    model
        ``"nersc-edison"``, ``"fit:TRACE.swf"`` or a :class:`WorkloadModel`.
    nodes
        Machines of the simulated system (default: the model's; Edison
        5,576).
    duration, stabilisation
        Lengths of the experiment and of the discarded stabilisation
        (seconds).
    pressure
        The (lower, upper) job-pressure thresholds.
    fill, target_wait
        Whether to fill the machine first, and for what wait.
    workflows
        ``(workflow, share)`` pairs (a :class:`~opt_sched.workflows.Workflow`
        or a catalog name; share in ``(0, 1]``, summing to at most 1).
    users, accounts
        Give regular jobs one of ``users`` users (uniformly) in ``accounts``
        accounts (``u<k>`` in ``a<k mod accounts>``); default: no user.
    """
    mdl = workload_model(model)
    machines = mdl.machines if nodes is None else int(nodes)
    if machines < 1:
        raise OptionError(f"generate: nodes={nodes!r} must be >= 1")
    check_machine_count(machines, f"generate: nodes={nodes!r}")
    duration = _check_positive("duration", duration)
    stabilisation = _check_positive("stabilisation", stabilisation, zero=True)
    lower, upper = pressure
    shares = [(wf, share, _work(wf, mdl.cores_per_node))
              for wf, share in _workflow_shares(workflows)]
    total_share = sum(share for _, share, _ in shares)
    if total_share > 1.0 + 1e-9:
        raise OptionError(f"generate: workflow shares sum to {total_share:g} > 1")
    rng = np.random.default_rng(seed)
    jobs: list[Job] = []
    start = 0.0
    fill_count = 0
    if fill:
        target_wait = _check_positive("target_wait", target_wait)
        start = target_wait + 120.0
        plan = fill_plan(machines, target_wait, start)
        for k in range(plan.count):
            jobs.append(Job(f"fill-{k}", plan.nodes, (plan.runtime,), (0.0,),
                            release=plan.first + k * plan.period,
                            walltime=plan.walltime, user="fill", group="fill"))
        fill_count = plan.count
    end = start + stabilisation + duration
    regular_share = 1.0 - total_share
    if regular_share > 1e-9:
        _check_expected_jobs(mdl, machines, end - start, lower * regular_share,
                             fill_count, duration)
        control = PressureControl(machines, start, lower * regular_share,
                                  upper * regular_share)
        jobs.extend(_regular_jobs(mdl, rng, control, start, end, machines, users,
                                  accounts))
    submissions = []
    for wf, share, work in shares:
        period = work / (share * lower * machines)
        k = 0
        while start + k * period < end:
            submissions.append((start + k * period, wf))
            k += 1
    submissions.sort(key=lambda x: x[0])
    platform = Platform.homogeneous(1, nodes=machines)
    label = name or f"{mdl.name}-seed{seed}"
    instance = Instance(label, platform, tuple(jobs)) if jobs else None
    regular = len(jobs) - fill_count
    work_of = {id(wf): work for wf, _, work in shares}
    submitted = sum(j.nodes * j.compute[0] for j in jobs[fill_count:])
    submitted += sum(work_of[id(wf)] for _, wf in submissions)
    realised = submitted / (machines * (end - start))
    return NerscWorkload(instance, platform, start, (start + stabilisation, end),
                         fill_count, regular, mdl.name, mdl.cores_per_node,
                         submissions, realised)


def _check_expected_jobs(model: WorkloadModel, machines: int, span: float,
                         lower: float, fill_count: int, duration: float) -> None:
    """Refuse, before drawing, a workload whose expected size is above
    :data:`~opt_sched.workloads.limits.MAX_GENERATED_JOBS`.

    The pressure rule keeps the submitted work above ``lower * machines *
    span`` node-seconds; divided by a job's mean node-seconds (from a
    sample drawn with a generator of its own, so the seeded draws do not
    move) it gives the expected number of regular jobs.
    """
    _, runs, nodes = model.sample_jobs(np.random.default_rng(0), 4096, machines)
    mean_area = float(np.mean(runs * nodes))
    expected = fill_count + lower * machines * span / mean_area
    days = duration / DAY
    check_job_count(expected, f"generate: days={days:g} of {model.name} on "
                              f"{machines} machines", about=True)


def _work(workflow: object, cores_per_node: int) -> float:
    from ..workflows.geometry import geometry

    return geometry(workflow, cores_per_node).work  # type: ignore[arg-type]


def _workflow_shares(workflows: Sequence[tuple[object, float]]
                     ) -> list[tuple[object, float]]:
    from ..workflows.submission import load_workflow

    out = []
    for entry in workflows:
        try:
            spec, share = entry
        except (TypeError, ValueError):
            raise OptionError(f"generate: workflows entry {entry!r} is not a "
                              f"(workflow, share) pair") from None
        if isinstance(share, bool) or not isinstance(share, (int, float)) \
                or not 0 < share <= 1:
            raise OptionError(f"generate: workflow share={share!r} must be in "
                              f"(0, 1]")
        out.append((load_workflow(spec), float(share)))  # type: ignore[arg-type]
    return out


def _regular_jobs(model: WorkloadModel, rng: np.random.Generator,
                  control: PressureControl, start: float, end: float,
                  machines: int, users: int | None, accounts: int) -> list[Job]:
    out: list[Job] = []
    batch = 4096
    pool: list[tuple[float, float, int]] = []
    gaps: list[float] = []

    def draw() -> tuple[float, float, int]:
        if not pool:
            limits, runs, nodes = model.sample_jobs(rng, batch, machines)
            pool.extend(zip(limits.tolist(), runs.tolist(), nodes.tolist()))
            pool.reverse()
        return pool.pop()

    def gap() -> float:
        if not gaps:
            gaps.extend(np.asarray(model.interarrival.sample(rng, batch)).tolist())
            gaps.reverse()
        return gaps.pop()

    def emit(now: float) -> None:
        limit, run, nodes = draw()
        k = len(out)
        user = group = None
        if users:
            u = int(rng.integers(users))
            user, group = f"u{u}", f"a{u % max(1, accounts)}"
        out.append(Job(f"j{k}", nodes, (run,), (0.0,), release=now,
                       walltime=max(limit, 1.0), user=user, group=group))
        control.add(nodes * run)

    now = start
    while True:
        now += gap()
        if now >= end:
            break
        if control.admits(now):
            emit(now)
        else:
            draw()  # the sampled job is discarded
        burst = 0
        while control.wants_more(now) and burst < _MAX_BURST:
            emit(now)
            burst += 1
        if len(out) > MAX_GENERATED_JOBS:
            check_job_count(len(out), f"generate: the {model.name} workload up to "
                                      f"t={now:g} s")
    return out


def generate_nersc(model: str | WorkloadModel = "nersc-edison", **options: object
                   ) -> Instance:
    """The :class:`~opt_sched.Instance` of :func:`generate_workload`
    (regular and fill jobs; add workflows with
    :func:`opt_sched.workflows.workflow_instance`). The ``opt-sched
    generate --protocol nersc-edison|nersc-fit`` front door
    (:data:`opt_sched.campaign.sources.GENERATORS`)."""
    workload = generate_workload(model, **options)  # type: ignore[arg-type]
    if workload.instance is None:
        raise OptionError("generate: the workload has no regular job (a workflow "
                          "share of 100 % and no fill)")
    return workload.instance
