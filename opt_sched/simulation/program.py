"""What the kernel executes: jobs on partitions, start queues and gates.

Every plan is lowered to a :class:`Program`:

- ``partition[i]``: the partition ``k(i)`` of job ``i`` (instance order);
- ``earliest[i]``: the earliest start ``e_i`` of job ``i``;
- ``queues[k]``: the order in which the jobs of partition ``k`` start (a job
  never overtakes an earlier one of its queue);
- ``gates``: job ``i`` waits for gate ``gate[i]``, which opens once every job
  of ``gates[gate[i]].awaits`` has completed.

A pack ``p`` of partition ``k`` is one gate shared by its jobs. It awaits the
jobs of pack ``p - 1`` on ``k`` and the predecessors of its jobs, and its jobs
share ``e = max_{i in p} r_i``: they all start at the same instant

.. math:: S_p = \\max\\Big(\\max_{i \\in p} r_i,\\;
          \\max_{i \\in p-1} C_i,\\;
          \\max_{i \\in p,\\, q \\in \\mathrm{pred}(i)} C_q\\Big).

A job of a :class:`~opt_sched.simulation.plans.StartsPlan` is a gate of its
own that awaits its predecessors, with ``e_i = max(start_i, r_i)``.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import PlanError
from ..instance import Instance
from ..schedule import Packs

__all__ = ["Gate", "Program", "from_packs", "from_starts", "kernel_arrays"]


@dataclass(frozen=True)
class Gate:
    """Jobs started together once every job of ``awaits`` has completed."""

    partition: int
    awaits: frozenset[int]
    label: str


@dataclass(frozen=True)
class Program:
    """A plan lowered for the kernel (see the module docstring)."""

    partition: tuple[int, ...]
    earliest: tuple[float, ...]
    gate: tuple[int, ...]
    gates: tuple[Gate, ...]
    queues: tuple[tuple[int, ...], ...]
    packs: Packs | None


def from_packs(instance: Instance, packs: Packs) -> Program:
    """Lower checked packs (``packs[k][p]`` = ids, every job exactly once).

    Raises
    ------
    PlanError
        A job depends on a job of its own pack, or the packs wait on each
        other in a cycle (pack ``p`` of ``k`` awaits a job of pack ``p'`` of
        ``k'`` that itself comes after ``p``).
    """
    index = instance.index
    n = instance.num_jobs
    partition = [0] * n
    earliest = [0.0] * n
    gate = [0] * n
    gates: list[Gate] = []
    queues: list[tuple[int, ...]] = []
    for k, part in enumerate(packs):
        previous: frozenset[int] = frozenset()
        queue: list[int] = []
        for p, pack in enumerate(part):
            members = [index[job_id] for job_id in pack]
            member_set = frozenset(members)
            awaits = set(previous)
            for i in members:
                for dep in instance.jobs[i].after:
                    q = index[dep]
                    if q in member_set:
                        raise PlanError(
                            f"job {instance.jobs[i].id!r}: depends on {dep!r} of the "
                            f"same pack (partition {k}, pack {p})")
                    awaits.add(q)
            start = max(instance.jobs[i].release for i in members)
            for i in members:
                partition[i] = k
                earliest[i] = start
                gate[i] = len(gates)
            gates.append(Gate(k, frozenset(awaits), f"partition {k}, pack {p}"))
            queue.extend(members)
            previous = member_set
        queues.append(tuple(queue))
    program = Program(tuple(partition), tuple(earliest), tuple(gate), tuple(gates),
                      tuple(queues), packs)
    _check_acyclic(instance, program)
    return program


def from_starts(instance: Instance, partition: Sequence[int],
                start: Sequence[float], num_partitions: int) -> Program:
    """Lower a checked starts plan (one partition and start per job).

    The start queue of a partition is sorted by ``(s'_i, rank_i)``, where

    .. math:: s'_i = \\max\\big(\\mathrm{start}_i,\\; r_i,\\;
              \\max_{q \\in \\mathrm{pred}(i)} s'_q\\big)

    is the planned start raised to the release and to the predecessors', and
    ``rank_i`` the position of ``i`` in the topological order that takes the
    lowest instance index first. Without dependencies the order is thus
    planned start (at least the release), then instance order. Because
    ``(s', rank)`` grows along every dependency, the queues follow one global
    topological order and head-of-queue waiting can never deadlock.
    """
    jobs = instance.jobs
    index = instance.index
    rank = _lowest_index_topological_rank(instance)
    raised = [max(float(s), job.release) for s, job in zip(start, jobs)]
    for i in sorted(range(len(jobs)), key=rank.__getitem__):
        for dep in jobs[i].after:
            raised[i] = max(raised[i], raised[index[dep]])
    queues: list[list[int]] = [[] for _ in range(num_partitions)]
    for i in sorted(range(len(jobs)), key=lambda i: (raised[i], rank[i])):
        queues[partition[i]].append(i)
    gates = tuple(Gate(partition[i], frozenset(index[dep] for dep in job.after),
                       f"job {job.id!r}") for i, job in enumerate(jobs))
    earliest = tuple(max(float(s), job.release) for s, job in zip(start, jobs))
    return Program(tuple(partition), earliest, tuple(range(len(jobs))), gates,
                   tuple(tuple(q) for q in queues), None)


def _lowest_index_topological_rank(instance: Instance) -> list[int]:
    """Rank of each job in the topological order taking the lowest index first
    (instance order without dependencies)."""
    rank = [0] * instance.num_jobs
    for position, i in enumerate(instance.topological_order()):
        rank[i] = position
    return rank


def _check_acyclic(instance: Instance, program: Program) -> None:
    """Raise :class:`PlanError` if the gates wait on each other in a cycle.

    Gate ``g`` depends on gate ``h`` when ``g`` awaits a job of ``h``, or when
    ``h`` comes right before ``g`` in a start queue. A cycle would leave the
    jobs of its gates unstarted forever.
    """
    n_gates = len(program.gates)
    edges: list[set[int]] = [set() for _ in range(n_gates)]
    for g, gate in enumerate(program.gates):
        for i in gate.awaits:
            edges[program.gate[i]].add(g)
    for queue in program.queues:
        for a, b in itertools.pairwise(queue):
            if program.gate[a] != program.gate[b]:
                edges[program.gate[a]].add(program.gate[b])
    indegree = [0] * n_gates
    for succ in edges:
        for g in succ:
            indegree[g] += 1
    ready = [g for g in range(n_gates) if indegree[g] == 0]
    seen = 0
    while ready:
        g = ready.pop()
        seen += 1
        for h in edges[g]:
            indegree[h] -= 1
            if indegree[h] == 0:
                ready.append(h)
    if seen < n_gates:
        stuck = next(g for g in range(n_gates) if indegree[g] > 0)
        raise PlanError(f"plan: packs wait on each other in a cycle "
                        f"(through {program.gates[stuck].label})")


def kernel_arrays(program: Program) -> dict[str, np.ndarray]:
    """The job, partition and gate arrays of :func:`kernel.run`."""
    gates = program.gates
    succ: list[list[int]] = [[] for _ in program.partition]
    for g, gate in enumerate(gates):
        for i in sorted(gate.awaits):
            succ[i].append(g)
    succ_off = np.zeros(len(succ) + 1, np.int64)
    succ_off[1:] = np.cumsum([len(s) for s in succ])
    q_off = np.zeros(len(program.queues) + 1, np.int64)
    q_off[1:] = np.cumsum([len(q) for q in program.queues])
    return {
        "job_part": np.asarray(program.partition, np.int64),
        "job_earliest": np.asarray(program.earliest, np.float64),
        "job_gate": np.asarray(program.gate, np.int64),
        "q_off": q_off,
        "q_jobs": np.asarray([i for q in program.queues for i in q], np.int64),
        "gate_count_init": np.asarray([len(g.awaits) for g in gates], np.int64),
        "gate_part": np.asarray([g.partition for g in gates], np.int64),
        "succ_off": succ_off,
        "succ_gate": np.asarray([g for s in succ for g in s], np.int64),
    }
