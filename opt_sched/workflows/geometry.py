r"""The geometry of a workflow: critical path, width, work and the waste of
a pilot job (seed 002, Paper V §2, Table 2).

Tasks ask for cores; the machine unit of an instance is a node of
``cores_per_node`` cores, allocated exclusively (Edison: 24 cores, Slurm
``select/linear``), so task ``j`` holds ``q_j = ceil(cores_j /
cores_per_node)`` machines. With durations ``d_j`` (the real run times, or
the requested times) the *earliest* schedule starts every task when its
last dependency ends:

.. math:: S_j = \max_{p \in deps(j)} (S_p + d_p), \qquad
          CP = \max_j (S_j + d_j)

(the critical path). Its *width* is the largest number of machines that
tasks running at the same time hold, over half-open intervals
``[S_j, S_j + d_j)``; its *work* ``W = sum_j q_j d_j``. A pilot job holds
``width`` machines for ``CP`` and wastes

.. math:: \mathrm{waste} = \mathrm{width} \cdot CP - W

machine-seconds (Paper V, Table 2: "usage / waste", in core-hours with
``cores_per_node = 1``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..errors import OptionError
from .manifest import Workflow

__all__ = ["Geometry", "earliest_starts", "geometry", "task_nodes"]


def _check_cpn(cores_per_node: int) -> int:
    if isinstance(cores_per_node, bool) or not isinstance(cores_per_node, int) \
            or cores_per_node < 1:
        raise OptionError(f"cores_per_node={cores_per_node!r} must be an integer "
                          f">= 1")
    return cores_per_node


def task_nodes(workflow: Workflow, cores_per_node: int = 1) -> list[int]:
    """``q_j`` of every task, in task order."""
    cpn = _check_cpn(cores_per_node)
    return [-(-task.cores // cpn) for task in workflow.tasks]


def earliest_starts(workflow: Workflow, durations: list[float]) -> list[float]:
    """``S_j`` of the earliest schedule (tasks in the workflow's order)."""
    index = workflow.index
    starts: list[float] = []
    for task in workflow.tasks:
        start = 0.0
        for dep in task.deps:
            p = index[dep]
            start = max(start, starts[p] + durations[p])
        starts.append(start)
    return starts


def _peak(starts: list[float], durations: list[float], widths: list[int]) -> int:
    events = []
    for s, d, q in zip(starts, durations, widths):
        if d > 0 and q > 0:
            events.append((s + d, -q))  # ends sort before starts at one time
            events.append((s, q))
    events.sort()
    level = peak = 0
    for _, delta in events:
        level += delta
        peak = max(peak, level)
    return peak


@dataclass(frozen=True)
class Geometry:
    """A workflow's geometry in machines and seconds (module docstring).

    ``critical_path``/``width``/``starts`` use the real run times;
    ``requested_path``/``requested_width`` the requested times (what a user
    asks for a pilot job, and what a scheduler can compute).
    """

    nodes: tuple[int, ...]
    starts: tuple[float, ...]
    critical_path: float
    width: int
    requested_path: float
    requested_width: int
    work: float

    @property
    def waste(self) -> float:
        """``width * CP - W`` (machine-seconds)."""
        return self.width * self.critical_path - self.work

    @property
    def pilot_area(self) -> float:
        """``width * CP``."""
        return self.width * self.critical_path


def geometry(workflow: Workflow, cores_per_node: int = 1) -> Geometry:
    """The :class:`Geometry` of ``workflow`` on nodes of ``cores_per_node``."""
    nodes = task_nodes(workflow, cores_per_node)
    runtimes = [t.runtime for t in workflow.tasks]
    requested = [t.requested for t in workflow.tasks]
    starts = earliest_starts(workflow, runtimes)
    req_starts = earliest_starts(workflow, requested)
    path = max(s + d for s, d in zip(starts, runtimes))
    req_path = max(s + d for s, d in zip(req_starts, requested))
    work = math.fsum(q * d for q, d in zip(nodes, runtimes))
    return Geometry(tuple(nodes), tuple(starts), path,
                    _peak(starts, runtimes, nodes), req_path,
                    _peak(req_starts, requested, nodes), work)
