"""Workflow manifests: a DAG of tasks in seed 002's JSON format (Paper V,
Fig. 4), read and written with one-line errors.

.. code-block:: json

    {"name": "longwide",
     "tasks": [{"id": "SLong", "cmd": "./SLong.py", "cores": 48,
                "runtime": 14340.0, "walltime": 14400.0},
               {"id": "SWide", "cmd": "./SWide.py", "cores": 480,
                "runtime": 3540.0, "walltime": 3600.0, "deps": ["SLong"]}]}

Task fields: ``id`` (non-empty string, unique), ``cores`` (integer >= 1),
``runtime`` (seconds > 0: what the task really runs), optional
``walltime`` (seconds, the requested time, >= ``runtime``; default
``runtime``), ``deps`` (ids of tasks it waits for; default none), ``cmd``
(kept, unused). Top-level optional fields: ``name``, and for a submitted
workflow ``submit`` (seconds >= 0), ``user``, ``group``. The thesis prints
the manifest wrapped in a one-element list (Fig. 4); that form is read too.
The dependencies must form a DAG.
"""

from __future__ import annotations

import heapq
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InstanceError
from ..files import atomic_write_text

__all__ = ["ManifestError", "Task", "Workflow", "read_manifest", "read_manifests",
           "workflow_from_dict", "workflow_to_dict", "write_manifest"]

_TASK_KEYS = {"id", "cores", "runtime", "walltime", "deps", "cmd"}
_TOP_KEYS = {"name", "tasks", "submit", "user", "group"}


class ManifestError(InstanceError):
    """A workflow manifest is malformed (one line: where, field, value)."""


def _number(where: str, name: str, value: object, *, positive: bool) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value):
        raise ManifestError(f"{where}: {name}={value!r} is not a finite number")
    if value < 0 or (positive and value == 0):
        raise ManifestError(f"{where}: {name}={value!r} must be "
                            f"{'> 0' if positive else '>= 0'}")
    return float(value)


@dataclass(frozen=True)
class Task:
    """One task of a workflow (see the module docstring)."""

    id: str
    cores: int
    runtime: float
    walltime: float | None = None
    deps: tuple[str, ...] = ()
    cmd: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id:
            raise ManifestError(f"task {self.id!r}: id must be a non-empty string")
        where = f"task {self.id!r}"
        if isinstance(self.cores, bool) or not isinstance(self.cores, (int, float)) \
                or self.cores != int(self.cores) or self.cores < 1:
            raise ManifestError(f"{where}: cores={self.cores!r} must be an integer "
                                f">= 1")
        object.__setattr__(self, "cores", int(self.cores))
        object.__setattr__(self, "runtime",
                           _number(where, "runtime", self.runtime, positive=True))
        if self.walltime is not None:
            wall = _number(where, "walltime", self.walltime, positive=True)
            if wall < self.runtime:
                raise ManifestError(f"{where}: walltime={self.walltime!r} is below "
                                    f"runtime={self.runtime!r}")
            object.__setattr__(self, "walltime", wall)
        deps = tuple(self.deps)
        for dep in deps:
            if not isinstance(dep, str) or not dep:
                raise ManifestError(f"{where}: deps entry {dep!r} is not a task id")
        if len(set(deps)) != len(deps):
            raise ManifestError(f"{where}: deps={list(deps)!r} lists a task twice")
        if self.id in deps:
            raise ManifestError(f"{where}: deps lists the task itself")
        object.__setattr__(self, "deps", deps)
        if self.cmd is not None and not isinstance(self.cmd, str):
            raise ManifestError(f"{where}: cmd={self.cmd!r} is not a string")

    @property
    def requested(self) -> float:
        """The requested time (``walltime``, else ``runtime``)."""
        return self.runtime if self.walltime is None else self.walltime


@dataclass(frozen=True)
class Workflow:
    """A DAG of :class:`Task` (checked: unique ids, known deps, no cycle).

    ``tasks`` are kept in a topological order (the given order when it is
    one). ``submit``, ``user`` and ``group`` describe a submitted workflow
    and are optional.
    """

    name: str
    tasks: tuple[Task, ...]
    submit: float | None = None
    user: str | None = None
    group: str | None = None
    index: Mapping[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ManifestError(f"workflow {self.name!r}: name must be a non-empty "
                                f"string")
        where = f"workflow {self.name!r}"
        tasks = tuple(self.tasks)
        if not tasks:
            raise ManifestError(f"{where}: tasks is empty")
        seen: dict[str, int] = {}
        for position, task in enumerate(tasks):
            if not isinstance(task, Task):
                raise ManifestError(f"{where}: tasks[{position}] is not a Task")
            if task.id in seen:
                raise ManifestError(f"{where}: task id {task.id!r} is used twice")
            seen[task.id] = position
        for task in tasks:
            for dep in task.deps:
                if dep not in seen:
                    raise ManifestError(f"{where}: task {task.id!r} depends on "
                                        f"unknown task {dep!r}")
        tasks = _topological(where, tasks, seen)
        object.__setattr__(self, "tasks", tasks)
        object.__setattr__(self, "index", {t.id: i for i, t in enumerate(tasks)})
        if self.submit is not None:
            object.__setattr__(self, "submit",
                               _number(where, "submit", self.submit, positive=False))
        for name in ("user", "group"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, str) or not value):
                raise ManifestError(f"{where}: {name}={value!r} is not a non-empty "
                                    f"string")

    def task(self, task_id: str) -> Task:
        return self.tasks[self.index[task_id]]

    @property
    def num_tasks(self) -> int:
        return len(self.tasks)

    def replace(self, **changes: Any) -> Workflow:
        """A copy with some fields changed (checked again)."""
        data = {"name": self.name, "tasks": self.tasks, "submit": self.submit,
                "user": self.user, "group": self.group}
        data.update(changes)
        return Workflow(**data)


def _topological(where: str, tasks: tuple[Task, ...], seen: Mapping[str, int]
                 ) -> tuple[Task, ...]:
    """Kahn's order, ties by given position; raises on a cycle."""
    indegree = {t.id: len(t.deps) for t in tasks}
    children: dict[str, list[str]] = {t.id: [] for t in tasks}
    for t in tasks:
        for dep in t.deps:
            children[dep].append(t.id)
    ready = sorted(seen[t.id] for t in tasks if not t.deps)
    order: list[Task] = []
    heapq.heapify(ready)
    while ready:
        task = tasks[heapq.heappop(ready)]
        order.append(task)
        for child in children[task.id]:
            indegree[child] -= 1
            if not indegree[child]:
                heapq.heappush(ready, seen[child])
    if len(order) != len(tasks):
        stuck = sorted(t for t, d in indegree.items() if d)
        raise ManifestError(f"{where}: dependency cycle among tasks {stuck!r}")
    return tuple(order)


def _task_from_dict(where: str, position: int, data: object) -> Task:
    if not isinstance(data, Mapping):
        raise ManifestError(f"{where}: tasks[{position}] is not an object")
    unknown = set(data) - _TASK_KEYS
    if unknown:
        raise ManifestError(f"{where}: tasks[{position}] has unknown field "
                            f"{sorted(unknown)[0]!r}")
    for key in ("id", "cores", "runtime"):
        if key not in data:
            raise ManifestError(f"{where}: tasks[{position}] has no {key!r}")
    deps = data.get("deps", [])
    if not isinstance(deps, (list, tuple)):
        raise ManifestError(f"{where}: task {data['id']!r}: deps={deps!r} is not a "
                            f"list")
    try:
        return Task(data["id"], data["cores"], data["runtime"], data.get("walltime"),
                    tuple(deps), data.get("cmd"))
    except ManifestError as err:
        raise ManifestError(f"{where}: {err}") from None


def workflow_from_dict(data: object, name: str | None = None) -> Workflow:
    """A :class:`Workflow` from the JSON structure of the module docstring."""
    where = f"manifest {name!r}" if name else "manifest"
    if isinstance(data, list) and len(data) == 1:
        data = data[0]
    if not isinstance(data, Mapping):
        raise ManifestError(f"{where}: top level is not an object")
    unknown = set(data) - _TOP_KEYS
    if unknown:
        raise ManifestError(f"{where}: unknown field {sorted(unknown)[0]!r}")
    tasks = data.get("tasks")
    if not isinstance(tasks, list):
        raise ManifestError(f"{where}: tasks={tasks!r} is not a list")
    parsed = [_task_from_dict(where, i, t) for i, t in enumerate(tasks)]
    wf_name = data.get("name", name or "workflow")
    return Workflow(wf_name, tuple(parsed), data.get("submit"), data.get("user"),
                    data.get("group"))


def workflow_to_dict(workflow: Workflow) -> dict[str, Any]:
    """The JSON structure of ``workflow`` (round-trips)."""
    out: dict[str, Any] = {"name": workflow.name, "tasks": []}
    for task in workflow.tasks:
        entry: dict[str, Any] = {"id": task.id, "cores": task.cores,
                                 "runtime": task.runtime}
        if task.walltime is not None:
            entry["walltime"] = task.walltime
        if task.deps:
            entry["deps"] = list(task.deps)
        if task.cmd is not None:
            entry["cmd"] = task.cmd
        out["tasks"].append(entry)
    for key in ("submit", "user", "group"):
        value = getattr(workflow, key)
        if value is not None:
            out[key] = value
    return out


def read_manifest(path: str | Path) -> Workflow:
    """Read a manifest file (its name, without ``.json``, names a workflow
    that gives none)."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as err:
        raise ManifestError(f"manifest {str(path)!r}: cannot read "
                            f"({err.strerror})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise ManifestError(f"manifest {str(path)!r}: not JSON (line {err.lineno}: "
                            f"{err.msg})") from None
    return workflow_from_dict(data, path.name.removesuffix(".json"))


def write_manifest(workflow: Workflow, path: str | Path) -> None:
    """Write ``workflow`` atomically (:func:`opt_sched.files.atomic_write_text`:
    temp file + rename; a device or a FIFO is written in place); a path
    that cannot be written raises :class:`~opt_sched.errors.OutputError`
    naming it and the reason."""
    atomic_write_text(path, json.dumps(workflow_to_dict(workflow), indent=1) + "\n")


def read_manifests(paths: Sequence[str | Path]) -> list[Workflow]:
    """:func:`read_manifest` of each path."""
    return [read_manifest(p) for p in paths]
