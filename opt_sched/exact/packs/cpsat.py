"""CP-SAT model of the pack variant of HPC-IO (SPEC §3 rule 6, §5).

Jobs are assigned to pack *slots* ``(k, p)``: pack ``p`` of partition ``k``.
All jobs of a pack start together; pack ``p + 1`` of ``k`` starts after every
job of pack ``p`` has completed; inside a pack the I/O node of ``k`` serves
one phase at a time. Optionally Make-Pack's sensibility constraint with
parameter ``S`` restricts the packs. Small instances only: the model has
``sum_k n * m_k`` assignment literals (``m_k`` slots per partition). See
``models/packs-cpsat.md``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from ...instance import Instance
from ...objectives import BATCH_OBJECTIVES as OBJECTIVE_NAMES
from ..cpsat.base import CpsatModel
from ..cpsat.common import ModelData, Retimed, Structure
from ..cpsat.driver import prepare
from ..cpsat.settings import PacksCpsatSettings
from ..deadline import Deadline, Stopwatch
from ..hpc_io.cpsat import solve_mapping
from ..result import Outcome
from ..warm import warm_schedules

__all__ = ["OBJECTIVES", "OPTIONS", "PacksCpsat", "prepare", "run"]

OPTIONS = PacksCpsatSettings
"""The options record of this model (:mod:`opt_sched.exact.registry`)."""

OBJECTIVES = OBJECTIVE_NAMES
"""Both objectives (:data:`opt_sched.objectives.OBJECTIVES`)."""


class PacksCpsat(CpsatModel):
    """Pack scheduling with pack slots.

    Variables: ``y_ikp`` (job ``i`` in pack ``p`` of ``k``), ``x_ik = sum_p
    y_ikp``, ``u_kp`` (slot used), pack start/end ``ps_kp``/``pe_kp``,
    ``S_i``, ``C_i``, ``s_iq``. Constraints, in order:
    :meth:`_pack_assignment`, :meth:`_pack_usage`, :meth:`_pack_start`,
    :meth:`_release_and_dependencies`, :meth:`_phase_chain`,
    :meth:`_pack_completion`, :meth:`_pack_sequence`, :meth:`_pack_nodes`,
    :meth:`_exclusive_io`, :meth:`_named_resources`, :meth:`_sensibility`,
    :meth:`_symmetry_breaking`.
    """

    problem = "packs"

    def __init__(self, data: ModelData, objective: str,
                 settings: PacksCpsatSettings, *, lower_bound: float = 0.0,
                 warm: Sequence[Structure] = (),
                 deadline: Deadline | None = None) -> None:
        n = data.num_jobs
        max_packs, sensibility = settings.max_packs, settings.sensibility
        self.slots = []
        for k in range(data.instance.platform.num_partitions):
            fits = sum(1 for i in range(n) if k in data.allowed[i])
            self.slots.append(min(fits, max_packs or n))
        self.sensibility = sensibility
        self.use_symmetry = settings.symmetry
        self._prepare_sensibility(data)
        usable = [s for s in warm if self._representable(s)]
        super().__init__(data, objective, settings, lower_bound=lower_bound,
                         warm=usable, deadline=deadline)

    # -- sensibility data ---
    def _prepare_sensibility(self, data: ModelData) -> None:
        """Integer data of :meth:`_sensibility`, relaxed (I/O down, length up)."""
        self.io_ticks: list[dict[int, int]] = []
        self.len_ticks: list[dict[int, int]] = []
        parts = data.instance.platform.partitions
        grid = data.grid
        for i, job in enumerate(data.instance.jobs):
            self.io_ticks.append({k: grid.down(job.io_time(parts[k].bandwidth))
                                  for k in data.allowed[i]})
            self.len_ticks.append({k: grid.up(job.length(parts[k].bandwidth))
                                   for k in data.allowed[i]})
        if self.sensibility is None or math.isinf(self.sensibility):
            self.s_num = self.s_den = 0
            return
        frac = Fraction(self.sensibility).limit_denominator(10**6)
        if frac < self.sensibility:  # round S up: a relaxation
            frac = Fraction(math.ceil(self.sensibility * 10**6), 10**6)
        self.s_num, self.s_den = frac.numerator, frac.denominator

    def _representable(self, structure: Structure) -> bool:
        """The warm structure fits the slots and the sensibility constraint."""
        if structure.packs is None:
            return False
        for k, packs in enumerate(structure.packs):
            used = [p for p in packs if p]
            if len(used) > self.slots[k]:
                return False
            if self.s_den:
                for pack in used:
                    longest = max(self.len_ticks[i][k] for i in pack)
                    io = sum(self.io_ticks[i][k] for i in pack)
                    if self.s_den * io > self.s_num * longest:
                        return False
        return True

    # -- variables ---
    def _variables(self) -> None:
        """``y_ikp``, ``x_ik``, ``u_kp``, ``ps_kp``, ``pe_kp``, ``S_i``, ``C_i``,
        operations and job intervals."""
        model, data, horizon = self.model, self.data, self.horizon
        self.assign: list[dict[tuple[int, int], Any]] = []
        self.presence: list[dict[int, Any]] = []
        for i in range(self.n):
            self._check_time(i)
            y = {(k, p): model.new_bool_var(f"y[{i},{k},{p}]")
                 for k in data.allowed[i] for p in range(self.slots[k])}
            self.assign.append(y)
            if len(data.allowed[i]) == 1:
                self.presence.append({data.allowed[i][0]: True})
            else:
                self.presence.append({k: model.new_bool_var(f"x[{i},{k}]")
                                      for k in data.allowed[i]})
        self.used = [[model.new_bool_var(f"u[{k},{p}]") for p in range(m)]
                     for k, m in enumerate(self.slots)]
        self.pack_start = [[model.new_int_var(0, horizon, f"ps[{k},{p}]")
                            for p in range(m)] for k, m in enumerate(self.slots)]
        self.pack_end = [[model.new_int_var(0, horizon, f"pe[{k},{p}]")
                          for p in range(m)] for k, m in enumerate(self.slots)]
        self.start = [model.new_int_var(min(data.release[i], horizon), horizon,
                                        f"S[{i}]") for i in range(self.n)]
        self.completion = [model.new_int_var(0, horizon, f"C[{i}]")
                           for i in range(self.n)]
        self._operation_variables(self.presence)
        self._job_intervals()

    def _members(self, k: int, p: int) -> list[tuple[int, Any]]:
        return [(i, y[(k, p)]) for i, y in enumerate(self.assign) if (k, p) in y]

    # -- constraints ---
    def _constraints(self) -> None:
        self._pack_assignment()            # every job in one pack slot
        self._pack_usage()                 # slots used in order
        self._pack_start()                 # rule 6: a pack starts together
        self._release_and_dependencies()   # rule 1
        self._phase_chain()                # rules 2-3
        self._pack_completion()            # pack end
        self._pack_sequence()              # rule 6: packs in sequence
        self._pack_nodes()                 # rule 4
        self._exclusive_io()               # rule 5
        self._named_resources()            # rule 4, named resources
        if self.s_den:
            self._sensibility()
        if self.use_symmetry:
            self._symmetry_breaking()

    def _pack_assignment(self) -> None:
        """Each job in exactly one slot; its partition follows:

        .. math:: \\sum_{k,p} y_{ikp} = 1, \\quad x_{ik} = \\sum_p y_{ikp}
        """
        for i, y in enumerate(self.assign):
            self.model.add_exactly_one(list(y.values()))
            for k, lit in self.presence[i].items():
                if lit is not True:
                    self.model.add(lit == sum(v for (k2, _), v in y.items() if k2 == k))

    def _pack_usage(self) -> None:
        """``u_kp`` is true iff the slot has a job; slots are used in order:

        .. math:: y_{ikp} \\le u_{kp} \\le \\sum_i y_{ikp}, \\quad
                  u_{k,p+1} \\le u_{kp}
        """
        for k, m in enumerate(self.slots):
            for p in range(m):
                members = [lit for _, lit in self._members(k, p)]
                for lit in members:
                    self.model.add_implication(lit, self.used[k][p])
                self.model.add_bool_or(members).only_enforce_if(self.used[k][p])
                if p + 1 < m:
                    self.model.add_implication(self.used[k][p + 1], self.used[k][p])

    def _pack_start(self) -> None:
        """All jobs of a pack start together: :math:`y_{ikp} \\Rightarrow
        S_i = ps_{kp}` (releases hold through :math:`S_i \\ge r_i`)."""
        for i, y in enumerate(self.assign):
            for (k, p), lit in y.items():
                self.model.add(self.start[i] == self.pack_start[k][p]
                               ).only_enforce_if(lit)

    def _release_and_dependencies(self) -> None:
        """Rule 1: :math:`S_i \\ge r_i` (domain), :math:`S_i \\ge C_p`."""
        index = self.data.instance.index
        for i, job in enumerate(self.data.instance.jobs):
            for dep in job.after:
                self.model.add(self.start[i] >= self.completion[index[dep]])

    def _pack_completion(self) -> None:
        """A pack ends after its jobs: :math:`pe_{kp} \\ge ps_{kp}` and
        :math:`y_{ikp} \\Rightarrow pe_{kp} \\ge C_i`."""
        for k, m in enumerate(self.slots):
            for p in range(m):
                self.model.add(self.pack_end[k][p] >= self.pack_start[k][p])
                for i, lit in self._members(k, p):
                    self.model.add(self.pack_end[k][p] >= self.completion[i]
                                   ).only_enforce_if(lit)

    def _pack_sequence(self) -> None:
        """Rule 6: :math:`ps_{k,p+1} \\ge pe_{kp}`."""
        for k, m in enumerate(self.slots):
            for p in range(m - 1):
                self.model.add(self.pack_start[k][p + 1] >= self.pack_end[k][p])

    def _pack_nodes(self) -> None:
        """Rule 4 (all jobs of a pack run at its start):
        :math:`\\sum_i Q_i y_{ikp} \\le P_k`."""
        jobs = self.data.instance.jobs
        for k, m in enumerate(self.slots):
            cap = self.data.instance.platform.partitions[k].nodes
            for p in range(m):
                members = self._members(k, p)
                if sum(jobs[i].nodes for i, _ in members) > cap:
                    self.model.add(sum(jobs[i].nodes * lit for i, lit in members)
                                   <= cap)

    def _exclusive_io(self) -> None:
        """Rule 5: :math:`\\text{NoOverlap}\\{[s_{iq}, s_{iq} + d_{iqk}) :
        x_{ik}\\}` per I/O node."""
        for intervals in self.io_intervals:
            if len(intervals) > 1:
                self.model.add_no_overlap(intervals)

    def _sensibility(self) -> None:
        """Make-Pack's I/O test with parameter ``S`` (seed 003, Algorithm 1):

        .. math:: \\sum_i y_{ikp} \\, V_i / b_k \\le S \\cdot TP_{kp}, \\quad
                  TP_{kp} \\ge y_{ikp} T_i(b_k)

        in ticks, with I/O times rounded down and lengths up (a relaxation:
        the bound stays valid).
        """
        model = self.model
        for k, m in enumerate(self.slots):
            for p in range(m):
                members = self._members(k, p)
                longest = model.new_int_var(0, max((self.len_ticks[i][k]
                                                    for i, _ in members), default=0),
                                            f"TP[{k},{p}]")
                for i, lit in members:
                    model.add(longest >= self.len_ticks[i][k] * lit)
                model.add(self.s_den * sum(self.io_ticks[i][k] * lit
                                           for i, lit in members)
                          <= self.s_num * longest)

    def _symmetry_breaking(self) -> None:
        """Interchangeable jobs ``a < b``: :math:`S_a \\le S_b`."""
        for a, b in self._symmetry_pairs():
            self.model.add(self.start[a] <= self.start[b])

    # -- answers ---
    def _structure(self, solver: Any) -> Structure:
        partition = [-1] * self.n
        packs: list[list[list[int]]] = [[[] for _ in range(m)] for m in self.slots]
        for i, y in enumerate(self.assign):
            for (k, p), lit in y.items():
                if solver.boolean_value(lit):
                    partition[i] = k
                    packs[k][p].append(i)
        order = self._io_order(solver, partition)
        return Structure(tuple(partition), order,
                         packs=tuple(tuple(tuple(p) for p in part) for part in packs))

    def _hint(self, structure: Structure, times: Retimed) -> None:
        super()._hint(structure, times)
        assert structure.packs is not None
        for k, packs in enumerate(structure.packs):
            used = [p for p in packs if p]
            for p in range(self.slots[k]):
                self.model.add_hint(self.used[k][p], p < len(used))
                if p < len(used):
                    self._hint_var(self.pack_start[k][p], times.start[used[p][0]])
                    self._hint_var(self.pack_end[k][p],
                                   max(times.completion[i] for i in used[p]))
            for p, pack in enumerate(used):
                for i in pack:
                    for (k2, p2), lit in self.assign[i].items():
                        self.model.add_hint(lit, (k2, p2) == (k, p))
                    for k2, lit in self.presence[i].items():
                        if lit is not True:
                            self.model.add_hint(lit, k2 == k)

    def error_makespan(self) -> float:
        """As HPC-IO: every item at most once on a path, one release."""
        data = self.data
        return (math.fsum(data.item_error(i) for i in range(self.n))
                + max(data.grid.error(job.release) for job in data.instance.jobs))

    def error_span(self) -> float:
        return self.error_makespan() + self.data.grid.tick


def run(instance: Instance, objective: str, options: PacksCpsatSettings, *,
        lower_bound: float | None, deadline: Deadline) -> Outcome:
    """Build and solve :class:`PacksCpsat` (see :func:`opt_sched.solve`).

    Warm starts: one job per pack, plus Make-Pack (with the model's
    ``sensibility``, else ``S = 1``) and, without a cap, First-Fit, with LPT
    (:func:`opt_sched.exact.warm.warm_schedules`), where they fit the slots and
    the cap; if the deadline passes while the model is being built, the best
    warm schedule is the answer.
    """
    clock = Stopwatch()
    schedules = warm_schedules(instance, "packs", sensibility=options.sensibility,
                               deadline=deadline) if options.warm else []
    if options.max_packs is not None:  # the slots the model offers
        schedules = [(label, s) for label, s in schedules if s.packs is not None
                     and all(len(row) <= options.max_packs for row in s.packs)]
    return solve_mapping(PacksCpsat, instance, objective, options, schedules,
                         lower_bound=lower_bound, deadline=deadline, clock=clock)
