"""One point of the WoAS sweep (seed 002, Paper V §4.4.2): a NERSC-model
workload with one workflow type at a share of the core-hours, submitted in
one mode, replayed and measured.

:func:`run_share_point` is what ``opt-sched sweep`` calls for each (workflow,
share, mode, seed). The regular jobs and the workflow submit times depend
only on the seed and the share, not on the mode (Paper V §4.2.1), so the
three modes of one seed are comparable job for job.

Scheduler: ``"fcfs"`` is strict priority order without backfilling
(:class:`~opt_sched.priority.strict.StrictOrderScheduler`); any other name
is looked up in :data:`opt_sched.scheduling.SCHEDULERS` and given the queue
order as ``order=`` (EASY and conservative backfilling, which call the
order's hooks at every submission, start and end) and the other options
(``bf_depth``, ``bf_interval``: Slurm's backfilling limits). The priority
(``multifactor`` by default, as ScSF's Slurm: age and job size, fair-share
off) is wrapped by
:class:`~opt_sched.workflows.woas.WorkflowAwareOrder` in ``woas`` mode.
Every schedule is checked by :func:`opt_sched.validation.assert_feasible`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from opt_sched.campaign.experiments import Experiment, ExperimentParameter
from opt_sched.errors import OptionError
from opt_sched.priority import StrictOrderScheduler
from opt_sched.scheduling import get_queue_order, get_scheduler, replay
from opt_sched.validation import assert_feasible
from opt_sched.workflows.metrics import regular_slowdowns, utilisation, workflow_records
from opt_sched.workflows.submission import (
    MODES,
    WorkflowWorkload,
    build_workflow_workload,
    load_workflow,
)
from opt_sched.workflows.woas import WorkflowAwareOrder
from opt_sched.workloads.nersc import generate_workload

__all__ = ["WORKFLOW_SHARE", "make_scheduler", "run_share_point", "share_row"]


def make_scheduler(name: str, priority: object, mode: str, *,
                   cores_per_node: int = 1, **options: Any) -> Any:
    """The scheduler of one experiment: ``name`` over ``priority``, WoAS
    around it in ``woas`` mode (see the module docstring)."""
    if isinstance(priority, str) and priority.startswith("multifactor"):
        order = get_queue_order(priority, cores_per_node=cores_per_node)
    else:
        order = get_queue_order(priority)
    if mode == "woas":
        order = WorkflowAwareOrder(order)
    if name in ("fcfs", "strict"):
        if options:
            raise OptionError(f"scheduler {name!r} takes no options "
                              f"{sorted(options)}")
        return StrictOrderScheduler(order)
    return get_scheduler(name, order=order, **options)


def _median(values: list[float]) -> float:
    return float(np.median(values)) if values else math.nan


def run_share_point(workflow: object, share: float, mode: str, seed: int,
                    scheduler: str = "fcfs", *, priority: object = "multifactor",
                    model: object = "nersc-edison", nodes: int | None = None,
                    duration: float = 5 * 86400.0, stabilisation: float = 86400.0,
                    fill: bool = True, target_wait: float = 4 * 3600.0,
                    validate: bool = True, **scheduler_options: Any
                    ) -> dict[str, Any]:
    """Generate, replay and measure one sweep point.

    Parameters
    ----------
    workflow
        A catalog name (``"montage"``), a manifest path or a
        :class:`~opt_sched.workflows.manifest.Workflow`.
    share
        Its share of the submitted core-hours, in ``(0, 1]``; 0: the
        baseline without workflows (the regular jobs of share 0; ``mode``
        then changes nothing).
    mode
        ``"chained"``, ``"pilot"`` or ``"woas"``.
    seed
        The workload seed (same seed: same regular jobs and submit times in
        every mode).
    scheduler, priority, scheduler_options
        See the module docstring.
    model, nodes, duration, stabilisation, fill, target_wait
        The workload (:func:`opt_sched.workloads.nersc.generate_workload`);
        default Edison, 5 days after one day of stabilisation.

    Returns
    -------
    dict
        ``workflow, share, mode, seed, scheduler, priority, nodes, jobs``;
        ``workflows`` (completed in the window), median ``wait_h``,
        ``runtime_h``, ``turnaround_h``, ``intermediate_wait_h``;
        ``turnarounds_h`` (per workflow, in submission order, for the
        paper's first-``m`` pooling); ``utilisation``,
        ``actual_utilisation`` over the experiment window;
        ``waste_core_hours``; ``slowdown`` (median per core-hour class);
        ``pressure`` (submitted work over capacity); ``window``.
    """
    if mode not in MODES:
        raise OptionError(f"mode={mode!r} is not one of {', '.join(MODES)}")
    wf = load_workflow(workflow)  # type: ignore[arg-type]
    if isinstance(share, bool) or not isinstance(share, (int, float)) \
            or not 0 <= share <= 1:
        raise OptionError(f"share={share!r} must be in [0, 1]")
    load = generate_workload(model, nodes=nodes, duration=duration,  # type: ignore[arg-type]
                             stabilisation=stabilisation, seed=seed, fill=fill,
                             target_wait=target_wait,
                             workflows=[(wf, share)] if share > 0 else [])
    cpn = load.cores_per_node
    times = [t for t, _ in load.workflow_submissions]
    label = f"{wf.name}-{share:g}-{mode}-s{seed}"
    if times:
        built = build_workflow_workload([wf] * len(times), mode, load.instance,
                                        submits=times, cores_per_node=cpn,
                                        platform=load.platform, name=label)
    else:
        if load.instance is None:
            raise OptionError(f"workflow {wf.name!r} at share={share!r}: the "
                              "workload has no job")
        built = WorkflowWorkload(load.instance.replace(name=label), {}, mode, cpn)
    instance = built.instance
    sched = make_scheduler(scheduler, priority, mode, cores_per_node=cpn,
                           **scheduler_options)
    schedule = replay(instance, sched)
    if validate:
        assert_feasible(instance, schedule)
    t0, t1 = load.window
    in_window = {k: v for k, v in built.workflows.items() if t0 <= v.submit < t1}
    records = sorted(workflow_records(instance, schedule, in_window),
                     key=lambda r: (r.submit, r.id))
    hour = 3600.0
    util, actual = utilisation(instance, schedule, built.workflows, (t0, t1))
    return {
        "workflow": wf.name,
        "share": float(share),
        "mode": mode,
        "seed": int(seed),
        "scheduler": scheduler,
        "priority": getattr(sched.order, "name", str(priority)),
        "nodes": instance.platform.total_nodes,
        "cores_per_node": cpn,
        "jobs": instance.num_jobs,
        "workflows": len(records),
        "wait_h": _median([r.wait / hour for r in records]),
        "runtime_h": _median([r.runtime / hour for r in records]),
        "turnaround_h": _median([r.turnaround / hour for r in records]),
        "intermediate_wait_h": _median([r.intermediate_wait / hour for r in records]),
        "turnarounds_h": [r.turnaround / hour for r in records],
        "utilisation": util,
        "actual_utilisation": actual,
        "waste_core_hours": sum(r.waste for r in records) * cpn / hour,
        "slowdown": regular_slowdowns(instance, schedule, cores_per_node=cpn,
                                      window=(t0, t1)),
        "pressure": load.pressure,
        "window": (t0, t1),
    }


def share_row(result: Mapping[str, Any]) -> dict[str, Any]:
    """The flat row of a :func:`run_share_point` result: its scalars,
    ``slowdown_<class>`` per core-hour class
    (``small`` [0, 48), ``medium`` [48, 960), ``large`` [960, inf), ``all``),
    ``window_start``/``window_end``, and the list ``turnarounds_h`` (per
    workflow, in submission order; for the report's pooling)."""
    row: dict[str, Any] = {}
    for key, value in result.items():
        if key == "slowdown":
            labels = {"[0, 48)": "small", "[48, 960)": "medium",
                      "[960, inf)": "large", "all": "all"}
            for label, v in value.items():
                row[f"slowdown_{labels.get(label, label)}"] = float(v)
        elif key == "window":
            row["window_start"], row["window_end"] = (float(x) for x in value)
        elif key == "turnarounds_h":
            row[key] = [float(x) for x in value]
        elif isinstance(value, float):
            row[key] = value
        else:
            row[key] = value
    return row


def _workflow_share(params: Mapping[str, Any], seed: int) -> dict[str, Any]:
    options = dict(params)
    workflow = options.pop("workflow")
    share = options.pop("share")
    mode = options.pop("mode")
    result = run_share_point(workflow, share, mode, seed, **options)
    return share_row(result)


WORKFLOW_SHARE = Experiment(
    "workflow-share",
    (ExperimentParameter("workflow", "str"), ExperimentParameter("share", "float"),
     ExperimentParameter("mode", "str"),
     ExperimentParameter("nodes", "int", False, None),
     ExperimentParameter("scheduler", "str", False, "conservative"),
     ExperimentParameter("priority", "str", False, "multifactor"),
     ExperimentParameter("bf_depth", "int", False, 50),
     ExperimentParameter("bf_interval", "float", False, 30.0),
     ExperimentParameter("duration", "float", False, 5 * 86400.0),
     ExperimentParameter("stabilisation", "float", False, 86400.0),
     ExperimentParameter("target_wait", "float", False, 4 * 3600.0),
     ExperimentParameter("model", "str", False, "nersc-edison")),
    _workflow_share)
"""Seed 002's one point of the WoAS study as a campaign experiment
(entry point ``workflow-share`` of the group ``opt_sched.experiments``).

Parameters: ``workflow`` (string, required; a catalog name or a
manifest path), ``share`` (number in (0, 1], required), ``mode``
(``chained``, ``pilot`` or ``woas``, required), ``nodes`` (integer,
default: Edison's 5,576), ``scheduler`` (default ``conservative``),
``priority`` (default ``multifactor``), ``bf_depth`` (integer, default
50), ``bf_interval`` (number, default 30; Slurm's values: ScSF's
configuration), ``duration`` (seconds, default 5 days),
``stabilisation`` (default 1 day), ``target_wait`` (default 4 h),
``model`` (default ``nersc-edison``). Row: see
:func:`share_row`.
"""
