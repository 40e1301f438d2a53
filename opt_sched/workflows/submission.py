"""Submitting workflows as batch jobs: chained, pilot and WoAS (seed 002,
Paper V §2-§3), into an :class:`~opt_sched.Instance`.

- **chained** (ScSF ``multi``): one job per task, ``Q = ceil(cores /
  cores_per_node)`` machines, run time = the task's ``runtime``, requested
  time = its ``walltime``, ``after`` = its dependencies' jobs, released at
  the workflow's submit time. The replay engine submits a job when its
  dependencies have completed (SPEC §9), so its age -- its place in an
  age-based queue -- counts from that moment.
- **pilot** (``single``): one job of the workflow's width for its critical
  path (:mod:`~opt_sched.workflows.geometry`): ``Q = width``, run time =
  the critical path of the real run times (the tasks run back to back
  inside it), requested time = the critical path of the requested times.
- **woas** (``manifest``): the same jobs as chained; what differs is the
  queue order, which must be wrapped by
  :class:`~opt_sched.workflows.woas.WorkflowAwareOrder` (the priority engine
  sees one job per workflow, the scheduler sees the tasks).

Job ids. Task ``T`` of workflow ``W`` is ``"W::T"``; a pilot job is
``"W::*"``; so the workflow of any job is readable from the instance alone
(:func:`split_job_id`). ``W`` is ``<name>-<k>``, ``k`` counting the
workflows of the instance.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import OptionError
from ..instance import Instance, Job, Platform
from .catalog import catalog_workflow
from .geometry import Geometry, geometry
from .manifest import Workflow, read_manifest

__all__ = [
    "MODES",
    "PILOT_TASK",
    "SEPARATOR",
    "SubmittedWorkflow",
    "WorkflowWorkload",
    "build_workflow_workload",
    "load_workflow",
    "split_job_id",
    "workflow_instance",
    "workflow_jobs",
]

MODES = ("chained", "pilot", "woas")
SEPARATOR = "::"
PILOT_TASK = "*"


def split_job_id(job_id: str) -> tuple[str, str] | None:
    """``(workflow id, task id)`` of a workflow job (``task id`` is ``*``
    for a pilot job), ``None`` for any other job."""
    wf, sep, task = job_id.rpartition(SEPARATOR)
    if not sep or not wf or not task:
        return None
    return wf, task


def _check_mode(mode: str) -> str:
    if mode not in MODES:
        raise OptionError(f"workflow mode={mode!r} is not one of {', '.join(MODES)}")
    return mode


@dataclass(frozen=True)
class SubmittedWorkflow:
    """One workflow of an instance: its id, manifest, submit time, owner
    and geometry (machines of the instance's unit)."""

    id: str
    workflow: Workflow
    submit: float
    user: str | None
    group: str | None
    geometry: Geometry

    @property
    def job_ids(self) -> list[str]:
        return [f"{self.id}{SEPARATOR}{t.id}" for t in self.workflow.tasks]

    @property
    def pilot_id(self) -> str:
        return f"{self.id}{SEPARATOR}{PILOT_TASK}"


def workflow_jobs(sub: SubmittedWorkflow, mode: str) -> list[Job]:
    """The jobs of one submitted workflow in ``mode`` (module docstring)."""
    _check_mode(mode)
    geo = sub.geometry
    if mode == "pilot":
        return [Job(sub.pilot_id, geo.width, (geo.critical_path,), (0.0,),
                    release=sub.submit, user=sub.user, group=sub.group,
                    walltime=max(geo.requested_path, geo.critical_path))]
    jobs = []
    for task, nodes in zip(sub.workflow.tasks, geo.nodes):
        jobs.append(Job(f"{sub.id}{SEPARATOR}{task.id}", nodes, (task.runtime,),
                        (0.0,), release=sub.submit, user=sub.user, group=sub.group,
                        walltime=task.requested,
                        after=tuple(f"{sub.id}{SEPARATOR}{d}" for d in task.deps)))
    return jobs


@dataclass(frozen=True)
class WorkflowWorkload:
    """An instance with workflows: ``instance`` and the ``workflows`` in it
    (by id), submitted in ``mode``."""

    instance: Instance
    workflows: dict[str, SubmittedWorkflow] = field(default_factory=dict)
    mode: str = "chained"
    cores_per_node: int = 1


def load_workflow(spec: Workflow | str | Path) -> Workflow:
    """A :class:`Workflow`, a manifest path, or a catalog name
    (:func:`~opt_sched.workflows.catalog.catalog_workflow`)."""
    if isinstance(spec, Workflow):
        return spec
    path = Path(spec)
    if path.suffix == ".json" or path.exists():
        return read_manifest(path)
    return catalog_workflow(str(spec))


def build_workflow_workload(manifests: Sequence[Workflow | str | Path], mode: str,
                            base_instance: Instance | None = None, *,
                            submits: Sequence[float] | None = None,
                            users: Sequence[str | None] | None = None,
                            cores_per_node: int = 1,
                            platform: Platform | None = None,
                            name: str | None = None) -> WorkflowWorkload:
    """Add workflows to ``base_instance`` (or to an empty machine
    ``platform``) in ``mode``.

    Parameters
    ----------
    manifests
        Workflows, manifest paths or catalog names, one per submission.
    submits
        Submit time of each (default: the manifest's ``submit``, else 0).
    users
        Owner of each (default: the manifest's ``user``, else
        ``"workflows"``); the group is the manifest's, else the user.
    cores_per_node
        Cores of one machine (tasks take ``ceil(cores / cores_per_node)``).

    Jobs are merged by release time, the base jobs first at equal times,
    each workflow's tasks in topological order.
    """
    _check_mode(mode)
    workflows = [load_workflow(m) for m in manifests]
    if not workflows:
        raise OptionError("workflows: no manifest given")
    if submits is not None and len(submits) != len(workflows):
        raise OptionError(f"workflows: {len(submits)} submit times for "
                          f"{len(workflows)} manifests")
    if users is not None and len(users) != len(workflows):
        raise OptionError(f"workflows: {len(users)} users for {len(workflows)} "
                          f"manifests")
    if base_instance is None and platform is None:
        raise OptionError("workflows: give a base instance or a platform")
    plat = base_instance.platform if base_instance is not None else platform
    assert plat is not None
    base_jobs = list(base_instance.jobs) if base_instance is not None else []
    submitted: dict[str, SubmittedWorkflow] = {}
    extra: list[tuple[float, int, Job]] = []
    taken = {job.id for job in base_jobs}
    for k, wf in enumerate(workflows):
        when = submits[k] if submits is not None else (wf.submit or 0.0)
        if isinstance(when, bool) or not isinstance(when, (int, float)) \
                or not math.isfinite(when) or when < 0:
            raise OptionError(f"workflow {wf.name!r}: submit={when!r} must be a "
                              f"finite number >= 0")
        user = users[k] if users is not None else (wf.user or "workflows")
        wf_id = f"{wf.name}-{k}"
        sub = SubmittedWorkflow(wf_id, wf, float(when), user, wf.group or user,
                                geometry(wf, cores_per_node))
        if sub.geometry.width > plat.max_nodes:
            raise OptionError(f"workflow {wf.name!r}: width {sub.geometry.width} "
                              f"machines exceeds the platform ({plat.max_nodes})")
        submitted[wf_id] = sub
        for job in workflow_jobs(sub, mode):
            if job.id in taken:
                raise OptionError(f"workflows: job id {job.id!r} is already in "
                                  f"the base instance")
            extra.append((sub.submit, len(extra), job))
    merged: list[tuple[float, int, int, Job]] = [
        (job.release, 0, i, job) for i, job in enumerate(base_jobs)]
    merged += [(t, 1, i, job) for t, i, job in extra]
    merged.sort(key=lambda x: (x[0], x[1], x[2]))
    label = name or (f"{base_instance.name}+{mode}" if base_instance is not None
                     else f"workflows-{mode}")
    instance = Instance(label, plat, tuple(job for *_, job in merged))
    return WorkflowWorkload(instance, submitted, mode, cores_per_node)


def workflow_instance(manifests: Sequence[Workflow | str | Path], mode: str,
                      base_instance: Instance | None = None,
                      **options: object) -> Instance:
    """The :class:`~opt_sched.Instance` of :func:`build_workflow_workload`
    (the ``--workflows MANIFESTS --workflow-mode`` front door; in ``woas``
    mode replay it with :func:`~opt_sched.workflows.woas.woas_order`)."""
    return build_workflow_workload(manifests, mode, base_instance,
                                   **options).instance  # type: ignore[arg-type]
