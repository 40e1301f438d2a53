"""Experiments: campaign tasks that build, run and measure their own
workload (a task *kind* beside "one method on one instance").

Some studies do not fit "a method on an instance": seed 002's WoAS sweep
changes the instance itself with the submission mode (chained jobs, one
pilot job, WoAS jobs) and measures workflows, not a schedule summary. A
spec group may therefore name an *experiment* instead of instances and
methods::

    [[groups]]
    name = "shares"
    experiment = { name = "workflow-share", workflow = ["montage", "sipht"],
                   share = [0.01, 0.1], mode = ["chained", "pilot", "woas"],
                   nodes = 697 }
    seeds = [0, 1, 2]

Each combination of the parameter values (lists and ranges expanded as a
product, the first key outermost) and each seed is one task. The seed is
the experiment's (the workload's). The task's method column is the
experiment's name; its key hashes the experiment, its parameters and the
seed. The experiment returns its row (scalars; a list or a table value is
kept in the store for the reports but left out of ``tasks.csv``) and
validates every schedule it makes.

Experiments
-----------
``workflow-share``
    :func:`opt_sched.experiments.workflow_share.run_share_point`: one workflow at
    one share of the core-hours, in one mode, on a NERSC-model workload.
    Parameters: ``workflow`` (string, required; a catalog name or a
    manifest path), ``share`` (number in (0, 1], required), ``mode``
    (``chained``, ``pilot`` or ``woas``, required), ``nodes`` (integer,
    default: Edison's 5,576), ``scheduler`` (default ``conservative``),
    ``priority`` (default ``multifactor``), ``bf_depth`` (integer, default
    50), ``bf_interval`` (number, default 30; Slurm's values: ScSF's
    configuration), ``duration`` (seconds, default 5 days),
    ``stabilisation`` (default 1 day), ``target_wait`` (default 4 h),
    ``model`` (default ``nersc-edison``). Row: see
    :func:`~opt_sched.campaign.experiments.share_row`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import SpecError
from .sources import resolve_params
from .task import InstanceSource

__all__ = ["EXPERIMENTS", "Experiment", "experiment_sources", "run_experiment",
           "share_row"]


@dataclass(frozen=True)
class ExperimentParameter:
    """A parameter: ``kind`` is ``"str"``, ``"float"`` or ``"int"``; no
    default means required."""

    name: str
    kind: str
    required: bool = True
    default: Any = None


@dataclass(frozen=True)
class Experiment:
    """A registered experiment (module docstring)."""

    name: str
    params: tuple[ExperimentParameter, ...]
    run: Callable[[Mapping[str, Any], int], dict[str, Any]]


def share_row(result: Mapping[str, Any]) -> dict[str, Any]:
    """The flat row of a :func:`~opt_sched.experiments.workflow_share.run_share_point`
    result: its scalars, ``slowdown_<class>`` per core-hour class
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
    from ..experiments.workflow_share import run_share_point

    options = dict(params)
    workflow = options.pop("workflow")
    share = options.pop("share")
    mode = options.pop("mode")
    result = run_share_point(workflow, share, mode, seed, **options)
    return share_row(result)


EXPERIMENTS: dict[str, Experiment] = {
    "workflow-share": Experiment(
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
        _workflow_share),
}
"""Experiment name -> :class:`Experiment`."""


def experiment_sources(where: str, name: str,
                       combos: list[Mapping[str, Any]]) -> list[InstanceSource]:
    """The sources of experiment ``name``, one per parameter combination
    (coerced, defaults filled in).

    Raises
    ------
    SpecError
        Unknown experiment, unknown or missing parameter, or a value of the
        wrong type.
    """
    exp = EXPERIMENTS.get(name)
    if exp is None:
        raise SpecError(f"{where}.name={name!r} is unknown (choose from "
                        f"{', '.join(sorted(EXPERIMENTS))})")
    out = []
    for params in combos:
        values = resolve_params(where, f"experiment {name!r}", params, exp.params,
                                keep_none=False)
        out.append(InstanceSource(experiment=name,
                                  params=tuple(sorted(values.items()))))
    return out


def run_experiment(source: InstanceSource, seed: int) -> dict[str, Any]:
    """The row of one experiment task."""
    assert source.experiment is not None
    return EXPERIMENTS[source.experiment].run(dict(source.params), seed)
