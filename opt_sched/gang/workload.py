r"""The gang workload: parallel jobs with a CPU part and a block I/O part.

Seed 004 §2.3. Job ``i`` arrives at :math:`t^a_i`, has :math:`n_i` tasks
(one per node), a CPU time :math:`t^C_i` and reads :math:`n^I_i` disk
blocks spread evenly over its run. Each task reads its own partition of the
job's files, stored on one *file node*; the job has :math:`n_i` distinct file
nodes (seed §2.2, §3.3). With the local and remote costs per block
:math:`t_{local}`, :math:`t_{remote}` (0.03 s and 0.09 s in the seed):

.. math::

    t^{e'}_i = t^C_i + n^I_i\,t_{local}          \quad\text{(all local)}\qquad
    t^{rem}_i = t^C_i + n^I_i\,t_{remote}        \quad\text{(remote)}\qquad
    r_i = n^I_i\,t_{local} / t^{e'}_i            \quad\text{(I/O intensity)}.

All-or-nothing locality (seed §2.3 item 3): the job runs at the all-local
rate only when *every* task sits on a file node of the job; otherwise every
block is remote.

The file nodes are not part of the job stream: they come from a placement
(:mod:`opt_sched.gang.placement`) applied to the workload, and are then
stored with it (``file_nodes``) so that the validator checks locality
against them.

File format (JSON, columnar)::

    {"format": "opt_sched/gang-workload", "version": 1, "name": "...",
     "nodes": 320, "t_local": 0.03, "t_remote": 0.09,
     "jobs": {"id": [...], "arrival": [...], "size": [...],
              "cpu": [...], "blocks": [...]},
     "file_nodes": null | [[node, ...], ...], "placement": null | "random",
     "meta": {...generator parameters...}}
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InstanceError
from ..files import atomic_write_text

__all__ = [
    "FORMAT",
    "MAX_NODES",
    "GangWorkload",
    "is_gang_workload_file",
    "read_workload",
    "workload_from_dict",
    "workload_to_dict",
    "write_workload",
]

FORMAT = "opt_sched/gang-workload"
"""The ``format`` tag of a gang workload file."""

MAX_NODES = 10**5
"""The most nodes of a gang machine (refused where a workload is built;
listed with the other limits in :mod:`opt_sched.gang.limits`, which
re-exports it)."""

T_LOCAL = 0.03
T_REMOTE = 0.09


def _frozen(values: object, dtype: type, where: str) -> np.ndarray:
    try:
        array = np.array(values, dtype=dtype)
    except (TypeError, ValueError):
        raise InstanceError(f"gang workload: {where} is not a list of "
                            f"numbers") from None
    if array.ndim != 1:
        raise InstanceError(f"gang workload: {where} must be a flat list")
    array.setflags(write=False)
    return array


@dataclass(frozen=True, eq=False)
class GangWorkload:
    """Jobs of the serverless gang model (see the module docstring).

    Arrays have one entry per job, in submission order of the source (ties
    between equal arrivals follow this order).
    """

    name: str
    nodes: int
    ids: tuple[str, ...]
    arrival: np.ndarray
    size: np.ndarray
    cpu: np.ndarray
    blocks: np.ndarray
    t_local: float = T_LOCAL
    t_remote: float = T_REMOTE
    file_nodes: tuple[tuple[int, ...], ...] | None = None
    placement: str | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        if (isinstance(self.nodes, bool)
                or not isinstance(self.nodes, (int, np.integer)) or self.nodes < 1):
            raise InstanceError(f"gang workload: nodes={self.nodes!r} must be an "
                                f"integer >= 1")
        if self.nodes > MAX_NODES:
            raise InstanceError(f"gang workload: nodes={self.nodes!r} is above the "
                                f"limit of {MAX_NODES} nodes (MAX_NODES, "
                                f"opt_sched.gang.limits)")
        set_(self, "nodes", int(self.nodes))
        for name in ("t_local", "t_remote"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not math.isfinite(value) \
                    or value <= 0:
                raise InstanceError(f"gang workload: {name}={value!r} must be a "
                                    f"positive number")
        if self.t_remote < self.t_local:
            raise InstanceError(f"gang workload: t_remote={self.t_remote!r} is "
                                f"below t_local={self.t_local!r}")
        ids = tuple(str(i) for i in self.ids)
        set_(self, "ids", ids)
        n = len(ids)
        if len(set(ids)) != n:
            dup = next(i for i in ids if ids.count(i) > 1)
            raise InstanceError(f"gang workload: job id {dup!r} appears twice")
        set_(self, "arrival", _frozen(self.arrival, float, "arrival"))
        set_(self, "cpu", _frozen(self.cpu, float, "cpu"))
        size = _frozen(self.size, float, "size")
        blocks = _frozen(self.blocks, float, "blocks")
        for where, arr in (("arrival", self.arrival), ("size", size),
                           ("cpu", self.cpu), ("blocks", blocks)):
            if len(arr) != n:
                raise InstanceError(f"gang workload: {where} has {len(arr)} entries "
                                    f"for {n} jobs")
            bad = np.flatnonzero(~np.isfinite(arr) | (arr < 0))
            if len(bad):
                i = int(bad[0])
                raise InstanceError(f"gang workload: job {ids[i]!r}: {where}="
                                    f"{float(arr[i]):g} must be a finite number >= 0")
        for where, arr in (("size", size), ("blocks", blocks)):
            bad = np.flatnonzero(arr != np.round(arr))
            if len(bad):
                i = int(bad[0])
                raise InstanceError(f"gang workload: job {ids[i]!r}: {where}="
                                    f"{float(arr[i]):g} is not an integer")
        size = _frozen(size, np.int64, "size")
        blocks = _frozen(blocks, np.int64, "blocks")
        set_(self, "size", size)
        set_(self, "blocks", blocks)
        bad = np.flatnonzero((size < 1) | (size > self.nodes))
        if len(bad):
            i = int(bad[0])
            raise InstanceError(f"gang workload: job {ids[i]!r}: size={size[i]} must "
                                f"be in 1..{self.nodes}")
        bad = np.flatnonzero(self.all_local_time <= 0)
        if len(bad):
            i = int(bad[0])
            raise InstanceError(f"gang workload: job {ids[i]!r}: cpu=0 and blocks=0 "
                                f"(a job must take some time)")
        if self.file_nodes is not None:
            set_(self, "file_nodes", self._checked_file_nodes(self.file_nodes))
        set_(self, "meta", dict(self.meta))

    def _checked_file_nodes(self, file_nodes: Sequence[Sequence[int]]
                            ) -> tuple[tuple[int, ...], ...]:
        if len(file_nodes) != len(self.ids):
            raise InstanceError(f"gang workload: file_nodes has {len(file_nodes)} "
                                f"entries for {len(self.ids)} jobs")
        out = []
        for i, nodes in enumerate(file_nodes):
            try:
                cols = tuple(int(c) for c in nodes)
            except (TypeError, ValueError):
                raise InstanceError(f"gang workload: job {self.ids[i]!r}: file_nodes "
                                    f"is not a list of node numbers") from None
            if (len(cols) != self.size[i] or len(set(cols)) != len(cols)
                    or min(cols) < 0 or max(cols) >= self.nodes):
                raise InstanceError(
                    f"gang workload: job {self.ids[i]!r}: file_nodes={list(cols)!r} "
                    f"must be {self.size[i]} distinct nodes of 0..{self.nodes - 1}")
            out.append(cols)
        return tuple(out)

    # -- derived quantities ----------------------------------------------------
    def __len__(self) -> int:
        return len(self.ids)

    @cached_property
    def all_local_time(self) -> np.ndarray:
        """:math:`t^{e'}_i = t^C_i + n^I_i t_{local}` (read-only)."""
        out = self.cpu + self.blocks * self.t_local
        out.setflags(write=False)
        return out

    @cached_property
    def remote_time(self) -> np.ndarray:
        """:math:`t^C_i + n^I_i t_{remote}` (read-only)."""
        out = self.cpu + self.blocks * self.t_remote
        out.setflags(write=False)
        return out

    @cached_property
    def io_intensity(self) -> np.ndarray:
        """:math:`r_i = n^I_i t_{local} / t^{e'}_i` (read-only)."""
        out = self.blocks * self.t_local / self.all_local_time
        out.setflags(write=False)
        return out

    def offered_load(self) -> float:
        r"""All-local offered load
        :math:`\sum_i n_i t^{e'}_i / (P\,(\max_i t^a_i - \min_i t^a_i))`."""
        span = float(self.arrival.max() - self.arrival.min()) if len(self) > 1 else 0.0
        if span <= 0:
            return math.inf
        return float(np.dot(self.size, self.all_local_time)) / (self.nodes * span)

    def with_file_nodes(self, file_nodes: Sequence[Sequence[int]],
                        placement: str) -> GangWorkload:
        """A copy whose jobs have these file nodes (``placement`` names how
        they were chosen)."""
        return replace(self, file_nodes=tuple(tuple(f) for f in file_nodes),
                       placement=placement)

    def head(self, count: int) -> GangWorkload:
        """The first ``count`` jobs."""
        files = None if self.file_nodes is None else self.file_nodes[:count]
        return replace(self, ids=self.ids[:count], arrival=self.arrival[:count],
                       size=self.size[:count], cpu=self.cpu[:count],
                       blocks=self.blocks[:count], file_nodes=files)


# -- JSON ------------------------------------------------------------------------
def workload_to_dict(workload: GangWorkload) -> dict[str, Any]:
    """The JSON-ready form of ``workload`` (see the module docstring)."""
    def num(x: float) -> float | int:
        return int(x) if float(x).is_integer() else float(x)

    return {
        "format": FORMAT, "version": 1, "name": workload.name,
        "nodes": workload.nodes, "t_local": workload.t_local,
        "t_remote": workload.t_remote,
        "jobs": {"id": list(workload.ids),
                 "arrival": [num(x) for x in workload.arrival.tolist()],
                 "size": workload.size.tolist(),
                 "cpu": [num(x) for x in workload.cpu.tolist()],
                 "blocks": workload.blocks.tolist()},
        "file_nodes": (None if workload.file_nodes is None
                       else [list(f) for f in workload.file_nodes]),
        "placement": workload.placement,
        "meta": dict(workload.meta),
    }


def workload_from_dict(data: object, name: str | None = None) -> GangWorkload:
    """Parse :func:`workload_to_dict`'s form.

    Raises
    ------
    InstanceError
        Wrong format tag, missing or malformed field.
    """
    if not isinstance(data, Mapping) or data.get("format") != FORMAT:
        raise InstanceError(f"gang workload: format must be {FORMAT!r}")
    jobs = data.get("jobs")
    if not isinstance(jobs, Mapping):
        raise InstanceError("gang workload: jobs must be an object of columns")
    for key in ("id", "arrival", "size", "cpu", "blocks"):
        if not isinstance(jobs.get(key), list):
            raise InstanceError(f"gang workload: jobs.{key} must be a list")
    for key in ("nodes",):
        if key not in data:
            raise InstanceError(f"gang workload: {key} is missing")
    return GangWorkload(
        name=str(data.get("name") or name or "gang"), nodes=data["nodes"],
        ids=tuple(jobs["id"]), arrival=jobs["arrival"], size=jobs["size"],
        cpu=jobs["cpu"], blocks=jobs["blocks"],
        t_local=data.get("t_local", T_LOCAL), t_remote=data.get("t_remote", T_REMOTE),
        file_nodes=data.get("file_nodes"), placement=data.get("placement"),
        meta=data.get("meta") or {})


def is_gang_workload_file(path: str | Path) -> bool:
    """Whether ``path`` looks like a gang workload (its ``format`` tag), read
    cheaply from the first bytes; a router can use it to pick this
    subsystem."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(200).decode("utf-8", errors="replace")
    except OSError:
        return False
    return f'"format": "{FORMAT}"' in head


def read_workload(path: str | Path) -> GangWorkload:
    """Read a gang workload file.

    Raises
    ------
    InstanceError
        Unreadable file, bad JSON, or a malformed workload (named).
    """
    from ..json_files import load_json_as

    path = Path(path)
    return load_json_as(path, InstanceError,
                        lambda data: workload_from_dict(data, name=path.stem))


def write_workload(workload: GangWorkload, path: str | Path) -> None:
    """Write ``workload`` atomically as JSON."""
    atomic_write_text(path, json.dumps(workload_to_dict(workload)) + "\n")
