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

Experiments are plug-ins (:mod:`opt_sched.plugins`): a package declares one
as an entry point of the group ``opt_sched.experiments`` (the name is the
experiment's, the object an :class:`Experiment`), or a process sets
``EXPERIMENTS[name]``. Seed 002's ``workflow-share`` is declared that way by
opt_sched's own ``pyproject.toml``
(:mod:`opt_sched.studies.rodrigo2017.experiment`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..plugins import PluginMapping, check_named
from .sources import named_entry, resolve_params
from .task import InstanceSource

__all__ = ["EXPERIMENTS", "Experiment", "ExperimentParameter", "experiment_sources",
           "run_experiment"]


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


def _check(name: str, value: Any) -> None:
    check_named(value, Experiment, name)


def _window_gap(params: Mapping[str, Any], seed: int) -> dict[str, Any]:
    from ..experiments.window_task import window_task

    return window_task(params, seed)


WINDOW_GAP = Experiment("window-gap", (
    ExperimentParameter("trace", "str", required=False, default="kth-sp2"),
    ExperimentParameter("start", "int"),
    ExperimentParameter("count", "int", required=False, default=40),
    ExperimentParameter("scheduler", "str", required=False, default="easy"),
    ExperimentParameter("io_profile", "str", required=False, default="darshan-cori"),
    ExperimentParameter("alpha", "float", required=False, default=0.5),
    ExperimentParameter("time_limit", "float", required=False, default=30.0),
    ExperimentParameter("mode", "str", required=False, default="state"),
), _window_gap)
"""The bracket of one trace window (:mod:`opt_sched.experiments.window_task`):
``experiment = { name = "window-gap", start = { start = 40, stop = 28441,
step = 284 }, scheduler = ["easy", "fcfs"] }`` runs hundreds of windows;
``trace = "kth-sp2"`` (default) is KTH-SP2 in the shared data folder."""

EXPERIMENTS: PluginMapping[Experiment] = PluginMapping(
    "experiments", {"window-gap": WINDOW_GAP}, _check)
"""Experiment name -> :class:`Experiment`: ``window-gap``, then the entry
points (listing it loads them)."""


def experiment_sources(where: str, name: str,
                       combos: list[Mapping[str, Any]]) -> list[InstanceSource]:
    """The sources of experiment ``name``, one per parameter combination
    (coerced, defaults filled in); a :class:`~opt_sched.errors.SpecError` for an
    unknown experiment (:func:`~.sources.named_entry`) or a bad parameter
    (:func:`~.sources.resolve_params`)."""
    exp = named_entry(f"{where}.name", EXPERIMENTS, name)
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
