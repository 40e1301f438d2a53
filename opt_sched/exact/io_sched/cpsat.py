"""CP-SAT model of IO-SCHED (SPEC §5): order the I/O phases of mapped jobs.

Every job ``i`` runs on its partition ``k(i)``; all jobs of ``k`` start
together at ``t_k = max_{i on k} r_i`` (one pack per partition). The only
decisions are the start times of the positive-volume I/O phases
("operations"). The formulation, with the time-scaling error bound, is in
``models/io-sched-cpsat.md``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ...instance import Instance
from ...objectives import BATCH_OBJECTIVES as OBJECTIVE_NAMES
from ...operations import one_pack_partitions, pack_starts
from ..cpsat.base import CpsatModel
from ..cpsat.common import ModelData, Retimed, Structure, structure_from_schedule
from ..cpsat.driver import build_and_solve, prepare
from ..cpsat.settings import ScheduleCpsatSettings
from ..deadline import Deadline, Stopwatch
from ..result import Outcome
from ..warm import warm_schedules

__all__ = ["OBJECTIVES", "OPTIONS", "IoSchedCpsat", "io_sched_data", "prepare",
           "round_robin", "run"]

OPTIONS = ScheduleCpsatSettings
"""The options record of this model (:mod:`opt_sched.exact.registry`)."""

OBJECTIVES = OBJECTIVE_NAMES
"""Both objectives (:data:`opt_sched.objectives.OBJECTIVES`)."""


def io_sched_data(instance: Instance, resolution: float | None = None,
                  deadline: Deadline | None = None) -> ModelData:
    """:class:`ModelData` of the one-pack problem (pack starts on the grid)."""
    partition = one_pack_partitions(instance)
    starts = pack_starts(instance, partition)
    return ModelData.build(instance, [(k,) for k in partition], resolution,
                           extra_times=[starts[k] for k in sorted(starts)],
                           deadline=deadline)


def round_robin(data: ModelData) -> Structure:
    """A valid structure: operations served by increasing index ``q``, then job
    (always consistent with the job chains). The fallback warm start."""
    partition = tuple(ks[0] for ks in data.allowed)
    ops: list[list[tuple[int, int]]] = [[] for _ in
                                        range(data.instance.platform.num_partitions)]
    keys = sorted((q, j) for j in range(data.num_jobs)
                  for q in range(data.phases[j].count))
    for q, j in keys:
        ops[partition[j]].append((j, q))
    return Structure(partition, tuple(tuple(o) for o in ops),
                     packs=_packs(data, partition))


def _packs(data: ModelData, partition: Sequence[int]
           ) -> tuple[tuple[tuple[int, ...], ...], ...]:
    num = data.instance.platform.num_partitions
    return tuple(((tuple(i for i in range(data.num_jobs) if partition[i] == k),)
                  if k in partition else ()) for k in range(num))


class IoSchedCpsat(CpsatModel):
    """IO-SCHED as one disjunctive machine (the I/O node) per partition.

    Variables: ``s_iq`` per operation (interval of fixed length ``d_iq``);
    ``S_i = t_k`` is a constant; ``C_i``. Constraints, in order:
    :meth:`_phase_chain`, :meth:`_exclusive_io`, :meth:`_node_capacity`,
    :meth:`_named_resources`, :meth:`_symmetry_breaking`.
    """

    problem = "io-sched"

    def __init__(self, data: ModelData, objective: str,
                 settings: ScheduleCpsatSettings, *, lower_bound: float = 0.0,
                 warm: Sequence[Structure] = (),
                 deadline: Deadline | None = None) -> None:
        self.partition = [ks[0] for ks in data.allowed]
        self.pack_start = pack_starts(data.instance, self.partition)
        self.pack_start_ticks = {k: data.grid.up(t) for k, t in self.pack_start.items()}
        self.use_symmetry = settings.symmetry
        super().__init__(data, objective, settings, lower_bound=lower_bound,
                         warm=warm or [round_robin(data)], deadline=deadline)

    def _extra_start_ticks(self) -> list[int]:
        return list(self.pack_start_ticks.values())

    # -- variables ---
    def _variables(self) -> None:
        """``S_i`` (constant ``t_k`` in ticks), ``s_iq`` with their intervals,
        ``C_i``."""
        self.start = [self.pack_start_ticks[k] for k in self.partition]
        self._operation_variables([{k: True} for k in self.partition])
        self.completion = [self.model.new_int_var(self.start[i], self.horizon,
                                                  f"C[{i}]") for i in range(self.n)]
        self._job_intervals()

    # -- constraints ---
    def _constraints(self) -> None:
        self._phase_chain()          # rules 2-3
        self._exclusive_io()         # rule 5
        self._node_capacity()        # rule 4 (one pack fits its partition)
        self._named_resources()      # rule 4, named resources
        if self.use_symmetry:
            self._symmetry_breaking()

    def _exclusive_io(self) -> None:
        """One I/O phase at a time per I/O node (rule 5):

        .. math:: \\text{NoOverlap}\\{[s_{iq}, s_{iq} + d_{iq}) : k(i) = k\\}
                  \\quad \\forall k
        """
        for intervals in self.io_intervals:
            if len(intervals) > 1:
                self.model.add_no_overlap(intervals)

    def _node_capacity(self) -> None:
        """The one pack of ``k`` fits: :math:`\\sum_{k(i)=k} Q_i \\le P_k`.

        A data check, not a constraint: the problem is infeasible otherwise,
        for every backend (:func:`opt_sched.exact.problems.infeasibility`,
        checked before any model is built).
        """

    def _symmetry_breaking(self) -> None:
        """Interchangeable jobs ``a < b`` (same phases, partition, release):

        .. math:: s_{aq} \\le s_{bq} \\quad \\forall q

        Valid: in any schedule, giving ``a`` the earlier and ``b`` the later
        of the two ``q``-th operations keeps both chains feasible (each of
        ``min``/``max`` of two feasible chains is feasible) and leaves the
        multiset of intervals and of completions unchanged.
        """
        for a, b in self._symmetry_pairs():
            for sa, sb in zip(self.op_start[a], self.op_start[b]):
                self.model.add(sa <= sb)

    # -- answers ---
    def _structure(self, solver: Any) -> Structure:
        partition = tuple(self.partition)
        return Structure(partition, self._io_order(solver, partition),
                         packs=_packs(self.data, partition))

    def _hint(self, structure: Structure, times: Retimed) -> None:
        for i in range(self.n):
            self._hint_var(self.completion[i], times.completion[i])
            for q, s in enumerate(self.op_start[i]):
                self._hint_var(s, times.op_start[i][q])

    def partition_error(self, k: int) -> float:
        """``E_k``: sum of the rounding errors of the items of partition ``k``."""
        return math.fsum(self.data.item_error(i) for i in range(self.n)
                         if self.partition[i] == k)

    def error_span(self) -> float:
        """A path from ``t_k`` to ``C_i`` visits each item of ``k`` at most once."""
        return max((self.partition_error(k) for k in self.pack_start), default=0.0)

    def error_makespan(self) -> float:
        """``max_k (E_k + ceil(t_k) - t_k)``: partitions share no item."""
        grid = self.data.grid
        return max((self.partition_error(k) + grid.error(t)
                    for k, t in self.pack_start.items()), default=0.0)


def run(instance: Instance, objective: str, options: ScheduleCpsatSettings, *,
        lower_bound: float | None, deadline: Deadline) -> Outcome:
    """Build and solve :class:`IoSchedCpsat` (see :func:`opt_sched.solve`).

    The warm starts are the simulator's one-pack schedules under every I/O
    policy (:func:`opt_sched.exact.warm.warm_schedules`) and
    :func:`round_robin`; if the deadline passes while the model is being
    built, the best of those schedules is the answer.
    """
    clock = Stopwatch()
    schedules = warm_schedules(instance, "io-sched", deadline=deadline) \
        if options.warm else []

    def build() -> IoSchedCpsat:
        data = io_sched_data(instance, options.resolution, deadline)
        structures = [round_robin(data)]
        for _, schedule in schedules:
            deadline.check("the warm starts")
            structures.append(structure_from_schedule(instance, data.phases,
                                                      schedule))
        return IoSchedCpsat(data, objective, options,
                            lower_bound=lower_bound or 0.0, warm=structures,
                            deadline=deadline)

    return build_and_solve(build, instance=instance, objective=objective,
                           schedules=schedules, export=options.export,
                           deadline=deadline, clock=clock)
