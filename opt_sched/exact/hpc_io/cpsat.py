"""CP-SAT model of HPC-IO (SPEC §5): map jobs to partitions and schedule them
under rules 1-5 (free start times, releases, dependencies).

The partition choice uses one optional copy per allowed partition of every
interval (job interval for the node cumulative, I/O interval per operation
with the partition's length). Formulation: ``models/hpc-io-cpsat.md``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

from ...instance import Instance
from ...objectives import OBJECTIVES as OBJECTIVE_NAMES
from ..cpsat.base import CpsatModel
from ..cpsat.common import (
    ModelData,
    Retimed,
    Structure,
    continuous_lengths,
    mapping_data,
    one_job_per_pack,
    retime,
    structure_from_schedule,
)
from ..cpsat.driver import build_and_solve, prepare
from ..cpsat.settings import HpcIoCpsatSettings
from ..deadline import Deadline, Stopwatch
from ..result import Outcome
from ..warm import warm_schedules

__all__ = ["OBJECTIVES", "OPTIONS", "HpcIoCpsat", "prepare", "run", "solve_mapping",
           "warm_structures"]

OPTIONS = HpcIoCpsatSettings
"""The options record of this model (:mod:`opt_sched.exact.registry`)."""

OBJECTIVES = OBJECTIVE_NAMES
"""Both objectives (:data:`opt_sched.objectives.OBJECTIVES`)."""


class HpcIoCpsat(CpsatModel):
    """HPC-IO with optional intervals.

    Variables: ``x_ik`` (job ``i`` on partition ``k``), ``S_i``, ``C_i``,
    ``s_iq``; intervals ``J_i = [S_i, C_i)`` (optional copy ``J_ik`` per
    partition) and ``[s_iq, s_iq + d_iqk)`` (optional per partition).
    Constraints, in order: :meth:`_partition_choice`,
    :meth:`_release_and_dependencies`, :meth:`_phase_chain`,
    :meth:`_node_capacity`, :meth:`_exclusive_io`, :meth:`_named_resources`,
    :meth:`_redundant_global_nodes`, :meth:`_redundant_global_io`,
    :meth:`_symmetry_breaking`.
    """

    problem = "hpc-io"

    def __init__(self, data: ModelData, objective: str,
                 settings: HpcIoCpsatSettings, *, lower_bound: float = 0.0,
                 warm: Sequence[Structure] = (),
                 deadline: Deadline | None = None) -> None:
        self.use_redundant = settings.redundant
        self.use_symmetry = settings.symmetry
        super().__init__(data, objective, settings, lower_bound=lower_bound,
                         warm=warm or [one_job_per_pack(data)], deadline=deadline)

    # -- variables ---
    def _variables(self) -> None:
        """``x_ik`` (constant true for a single allowed partition), ``S_i`` in
        ``[r_i, H]``, ``C_i``, operations and job intervals (global and one
        optional copy per allowed partition)."""
        model, data, horizon = self.model, self.data, self.horizon
        self.presence: list[dict[int, Any]] = []
        for i in range(self.n):
            self._check_time(i)
            ks = data.allowed[i]
            if len(ks) == 1:
                self.presence.append({ks[0]: True})
            else:
                self.presence.append({k: model.new_bool_var(f"x[{i},{k}]")
                                      for k in ks})
        self.start = [model.new_int_var(min(data.release[i], horizon), horizon,
                                        f"S[{i}]") for i in range(self.n)]
        self.completion = [model.new_int_var(0, horizon, f"C[{i}]")
                           for i in range(self.n)]
        self._operation_variables(
            self.presence, min_intervals=self.use_redundant and self.num_partitions > 1)
        self._job_intervals()
        self.job_copies: list[list[tuple[int, int, Any]]] = [
            [] for _ in range(self.num_partitions)]
        for i in range(self.n):
            span = self.job_interval[i].size_expr()
            for k, lit in self.presence[i].items():
                if lit is True:
                    interval = self.job_interval[i]
                else:
                    interval = model.new_optional_interval_var(
                        self.start[i], span, self.completion[i], lit, f"job[{i},{k}]")
                self.job_copies[k].append((i, data.instance.jobs[i].nodes, interval))

    # -- constraints ---
    def _constraints(self) -> None:
        self._partition_choice()            # mapping
        self._release_and_dependencies()    # rule 1
        self._phase_chain()                 # rules 2-3
        self._node_capacity()               # rule 4
        self._exclusive_io()                # rule 5
        self._named_resources()             # rule 4, named resources
        if self.use_redundant:
            self._redundant_global_nodes()
            self._redundant_global_io()
        if self.use_symmetry:
            self._symmetry_breaking()

    def _partition_choice(self) -> None:
        """Each job runs on exactly one allowed partition:
        :math:`\\sum_{k \\in K_i} x_{ik} = 1`."""
        for lits in self.presence:
            values = list(lits.values())
            if len(values) > 1:
                self.model.add_exactly_one(values)

    def _release_and_dependencies(self) -> None:
        """Rule 1: :math:`S_i \\ge r_i` (variable domain) and
        :math:`S_i \\ge C_p` for every predecessor ``p``."""
        index = self.data.instance.index
        for i, job in enumerate(self.data.instance.jobs):
            for dep in job.after:
                self.model.add(self.start[i] >= self.completion[index[dep]])

    def _node_capacity(self) -> None:
        """Rule 4, per partition:

        .. math:: \\text{Cumulative}\\{(J_{ik}, Q_i)\\} \\le P_k \\quad \\forall k
        """
        parts = self.data.instance.platform.partitions
        for k, copies in enumerate(self.job_copies):
            used = [(q, iv) for _, q, iv in copies if q > 0]
            if sum(q for q, _ in used) > parts[k].nodes:
                self.model.add_cumulative([iv for _, iv in used], [q for q, _ in used],
                                          parts[k].nodes)

    def _exclusive_io(self) -> None:
        """Rule 5, per I/O node (optional intervals of the jobs placed there):

        .. math:: \\text{NoOverlap}\\{[s_{iq}, s_{iq} + d_{iqk}) : x_{ik}\\}
        """
        for intervals in self.io_intervals:
            if len(intervals) > 1:
                self.model.add_no_overlap(intervals)

    def _redundant_global_nodes(self) -> None:
        """Redundant: all partitions together hold at most their total nodes,

        .. math:: \\text{Cumulative}\\{(J_i, Q_i)\\} \\le \\sum_k P_k

        (implied by the per-partition cumulatives; gives the global energy
        reasoning the optional copies hide).
        """
        if self.num_partitions < 2:
            return
        used = [(self.data.instance.jobs[i].nodes, self.job_interval[i])
                for i in range(self.n) if self.data.instance.jobs[i].nodes > 0]
        total = self.data.instance.platform.total_nodes
        if sum(q for q, _ in used) > total:
            self.model.add_cumulative([iv for _, iv in used], [q for q, _ in used],
                                      total)

    def _redundant_global_io(self) -> None:
        """Redundant: the ``R`` I/O nodes serve at most ``R`` phases at a time,
        each phase lasting at least its shortest length over partitions,

        .. math:: \\text{Cumulative}\\{([s_{iq}, s_{iq} + \\min_k d_{iqk}), 1)\\}
                  \\le R
        """
        if self.num_partitions < 2 or len(self.io_min_intervals) <= self.num_partitions:
            return
        self.model.add_cumulative(self.io_min_intervals,
                                  [1] * len(self.io_min_intervals),
                                  self.num_partitions)

    def _symmetry_breaking(self) -> None:
        """Interchangeable jobs ``a < b`` (same data, no successor):
        :math:`S_a \\le S_b` (relabel the two jobs of any schedule)."""
        for a, b in self._symmetry_pairs():
            self.model.add(self.start[a] <= self.start[b])

    # -- answers ---
    def _partition_values(self, solver: Any) -> tuple[int, ...]:
        out = []
        for lits in self.presence:
            chosen = [k for k, lit in lits.items()
                      if lit is True or solver.boolean_value(lit)]
            out.append(chosen[0])
        return tuple(out)

    def _structure(self, solver: Any) -> Structure:
        partition = self._partition_values(solver)
        tick = self.data.grid.tick
        not_before = tuple(solver.value(s) * tick for s in self.start)
        return Structure(partition, self._io_order(solver, partition),
                         not_before=not_before)

    def _warm_answer(self, structure: Structure) -> Structure:
        """A warm pack schedule as an HPC-IO answer: the same times, its packs
        replaced by the job starts they gave (``not_before``), so the
        schedule claims no pack rule (rule 6) it was not asked for."""
        if structure.packs is None:
            return structure
        data = self.data
        times = retime(data.instance, data.phases, structure,
                       continuous_lengths(data.instance, data.phases))
        return dataclasses.replace(structure, packs=None,
                                   not_before=tuple(times.start))

    def _hint(self, structure: Structure, times: Retimed) -> None:
        super()._hint(structure, times)
        for i, lits in enumerate(self.presence):
            for k, lit in lits.items():
                if lit is not True:
                    self.model.add_hint(lit, structure.partition[i] == k)

    def error_makespan(self) -> float:
        """``E = sum_i (rounding errors of job i) + max_i (ceil(r_i) - r_i)``:
        a precedence path visits every item at most once and one release."""
        data = self.data
        return (math.fsum(data.item_error(i) for i in range(self.n))
                + max(data.grid.error(job.release) for job in data.instance.jobs))

    def error_span(self) -> float:
        """``E + tick``: the path starts at a job start rounded up to a tick."""
        return self.error_makespan() + self.data.grid.tick


def warm_structures(instance: Instance, data: ModelData,
                    schedules: Sequence[tuple[str, Any]],
                    deadline: Deadline | None = None) -> list[Structure]:
    """One job per pack, plus the structures of the warm schedules whose
    partitions the model allows (for the models that choose partitions)."""
    out = [one_job_per_pack(data)]
    for _, schedule in schedules:
        if deadline is not None:
            deadline.check("the warm starts")
        if schedule.packs is None:
            continue
        structure = structure_from_schedule(instance, data.phases, schedule)
        if all(structure.partition[i] in data.allowed[i]
               for i in range(data.num_jobs)):
            out.append(structure)
    return out


def run(instance: Instance, objective: str, options: HpcIoCpsatSettings, *,
        lower_bound: float | None, deadline: Deadline) -> Outcome:
    """Build and solve :class:`HpcIoCpsat` (see :func:`opt_sched.solve`).

    Warm starts: one job per pack, plus Make-Pack / First-Fit + LPT
    (:func:`opt_sched.exact.warm.warm_schedules`); if the deadline passes
    while the model is being built, the best of those schedules (without its
    pack claim) is the answer.
    """
    clock = Stopwatch()
    schedules = warm_schedules(instance, "hpc-io", deadline=deadline) \
        if options.warm else []
    return solve_mapping(HpcIoCpsat, instance, objective, options, schedules,
                         lower_bound=lower_bound, deadline=deadline, clock=clock,
                         packs=False)


def solve_mapping(model: type[CpsatModel], instance: Instance, objective: str,
                  options: Any, schedules: Sequence[tuple[str, Any]], *,
                  lower_bound: float | None, deadline: Deadline, clock: Stopwatch,
                  packs: bool = True) -> Outcome:
    """Build and solve ``model``, one of the models that choose partitions
    (HPC-IO, packs): its data from :func:`mapping_data`, its warm starts
    from :func:`warm_structures` (see :func:`build_and_solve`)."""
    def build() -> CpsatModel:
        data = mapping_data(instance, objective, options.resolution, deadline)
        return model(data, objective, options, lower_bound=lower_bound or 0.0,
                     warm=warm_structures(instance, data, schedules, deadline),
                     deadline=deadline)

    return build_and_solve(build, instance=instance, objective=objective,
                           schedules=schedules, export=options.export,
                           deadline=deadline, clock=clock, packs=packs)
