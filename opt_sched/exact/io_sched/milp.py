"""IO-SCHED as a disjunctive big-M MILP in continuous time
(``models/io-sched-milp.md``).

IO-SCHED (SPEC §5): every job is mapped to a partition ``k``; all jobs of ``k``
start together at ``t_k = max_{i on k} r_i`` (one pack); the decision is the
order of the I/O phases on each I/O node. Only the *operations* (I/O phases of
nonzero volume) use the node; a zero-volume phase takes no time.

Notation for operation ``q`` of job ``i`` on partition ``k`` (bandwidth
``b``): duration ``p_iq = v / b``; *lag* ``g_iq``, the compute time between the
end of operation ``q - 1`` (or ``t_k``) and its earliest start; *head*
``h_iq = t_k + sum_{q' < q} (g_iq' + p_iq') + g_iq``; *tail* ``q_iq``, the
job's own work after the operation ends (``a_i``, the compute after its last
operation, for the last one).

Variables: ``s_iq >= h_iq`` (operation start, continuous); ``y_ab`` (binary,
``1`` iff operation ``a`` precedes ``b``) for every pair of operations of
*different* jobs of one partition; the objective variable ``C`` (makespan) or
``rho`` (max stretch). The schedule is rebuilt from the order of the ``s``
values, started as early as that order allows (semi-active, the same
construction as :mod:`opt_sched.exact.brute_force`); the front door then
certifies it (:mod:`opt_sched.exact.certify`).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...errors import OptionError, SolverError
from ...instance import Instance, Job
from ...objectives import BATCH_OBJECTIVES as OBJECTIVE_NAMES
from ...objectives import check_objective, meets_bound
from ...operations import job_operations, one_pack_partitions, pack_starts
from ...schedule import JobSchedule, Schedule
from ..deadline import Deadline, OutOfTimeError
from ..milp.backend import (
    BACKENDS,
    MilpSettings,
    MilpSolution,
    export_model,
    load_pulp,
    solve_milp,
    solver_time,
)
from ..milp.backend import prepare as milp_prepare
from ..result import Outcome, Result, SolveStatus
from ..warm import prepare as warm_prepare
from ..warm import warm_schedules

__all__ = [
    "DEFAULT_MAX_PHASES",
    "OBJECTIVES",
    "OPTIONS",
    "IoSchedData",
    "IoSchedMilp",
    "IoSchedMilpSettings",
    "Operation",
    "io_sched_data",
    "run",
    "solve_io_sched",
]

OBJECTIVES = OBJECTIVE_NAMES
"""Both objectives (:data:`opt_sched.objectives.OBJECTIVES`)."""

DEFAULT_MAX_PHASES = 400
"""Largest number of I/O operations (nonzero I/O phases) the model accepts;
the binaries grow as the square of it (``max_phases``)."""

_DOMAIN_SLACK = 1e-6
"""Relative slack added to the heuristic upper bound before it limits the
domain, so that solver tolerances never cut off the heuristic schedule."""


@dataclass(frozen=True)
class IoSchedMilpSettings(MilpSettings):
    """The options record of this model: :class:`MilpSettings`, plus
    ``max_phases`` (refuse instances with more I/O operations) and
    ``stop_at_bound`` (if the best list-policy schedule already meets the
    combinatorial lower bound, return it without calling the solver;
    ``False`` always solves, for cross-checks)."""

    max_phases: int = DEFAULT_MAX_PHASES
    stop_at_bound: bool = True

    def __post_init__(self) -> None:
        super().__post_init__()
        if isinstance(self.max_phases, bool) or not isinstance(self.max_phases, int) \
                or self.max_phases < 1:
            raise OptionError(f"max_phases={self.max_phases!r} must be an integer "
                              ">= 1")
        if not isinstance(self.stop_at_bound, bool):
            raise OptionError(f"stop_at_bound={self.stop_at_bound!r} must be True "
                              "or False")


OPTIONS = IoSchedMilpSettings
"""The options record of this model (:mod:`opt_sched.exact.registry`)."""


# -- data --------------------------------------------------------------------------
@dataclass(frozen=True)
class Operation:
    """One nonzero I/O phase: job ``job`` (instance index), its ``q``-th
    operation, iteration ``iteration``; ``lag``, ``duration``, ``head``,
    ``tail`` as in the module doc."""

    job: int
    q: int
    iteration: int
    lag: float
    duration: float
    head: float
    tail: float

    @property
    def key(self) -> str:
        return f"{self.job}_{self.q}"


@dataclass(frozen=True)
class IoSchedData:
    """An IO-SCHED instance reduced to operations.

    ``partition[i]`` and ``start[i]`` (``t_k``) per job; ``ops[i]`` the
    operations of job ``i``; ``after[i]`` its compute after the last operation;
    ``length[i]`` its ``T_i(b_k)``; ``deadline[i]`` the latest completion
    allowed (from the heuristic upper bound, see :func:`io_sched_data`);
    ``lower`` the combinatorial lower bound of the objective.
    """

    instance: Instance
    objective: str
    partition: tuple[int, ...]
    start: tuple[float, ...]
    ops: tuple[tuple[Operation, ...], ...]
    after: tuple[float, ...]
    length: tuple[float, ...]
    deadline: tuple[float, ...]
    lower: float
    upper: float
    upper_schedule: Schedule

    @property
    def num_ops(self) -> int:
        return sum(len(o) for o in self.ops)

    def pairs(self) -> list[tuple[Operation, Operation]]:
        """Every pair ``(a, b)`` of operations of different jobs on one
        partition, ``a`` of the lower job index."""
        out = []
        n = len(self.ops)
        for i in range(n):
            for j in range(i + 1, n):
                if self.partition[i] != self.partition[j]:
                    continue
                out.extend((a, b) for a in self.ops[i] for b in self.ops[j])
        return out

    def latest_start(self, op: Operation) -> float:
        """``D_i - q_iq - p_iq``: the latest start within the domain."""
        return self.deadline[op.job] - op.tail - op.duration


def _job_operations(job: Job, index: int, start: float, bandwidth: float
                    ) -> tuple[list[Operation], float]:
    """The job's operations (:func:`opt_sched.operations.job_operations`) with
    absolute heads from the pack start, and its compute after the last."""
    ops = job_operations(job)
    durations = ops.durations(bandwidth)
    heads = start + ops.heads(bandwidth)
    tails = ops.tails(bandwidth)
    return [Operation(index, q, int(ops.iterations[q]), float(ops.lags[q]),
                      float(durations[q]), float(heads[q]), float(tails[q]))
            for q in range(ops.count)], ops.tail


def io_sched_data(instance: Instance, objective: str,
                  max_phases: int = DEFAULT_MAX_PHASES, lower: float = 0.0,
                  deadline: Deadline | None = None) -> IoSchedData:
    """Reduce a one-pack instance whose packs fit to operations.

    The domain. Let ``U_k`` be the best value, on partition ``k``, of the
    warm one-pack schedules (:func:`opt_sched.exact.warm.warm_schedules`: the
    simulator's list policies). Partitions share nothing, so some optimal
    schedule is optimal on every partition separately, hence has makespan
    ``<= U_k`` on ``k`` (stretch ``<= U_k``). Every completion may therefore
    be limited to the *deadline* ``D_i = U_k`` (makespan) or ``D_i = t_k +
    U_k T_i`` (max stretch), with a relative slack of ``1e-6``, without
    losing all optima. ``lower`` is the combinatorial lower bound.

    Raises
    ------
    OptionError
        Unknown objective, dependencies, an unmapped job on a multi-partition
        platform, more than ``max_phases`` operations.
    """
    check_objective(objective, OBJECTIVES)
    if isinstance(max_phases, bool) or not isinstance(max_phases, int) \
            or max_phases < 1:
        raise OptionError(f"max_phases={max_phases!r} must be an integer >= 1")
    platform = instance.platform
    partition = tuple(one_pack_partitions(instance, "io-sched"))
    starts = pack_starts(instance, partition)
    ops = []
    after = []
    length = []
    for i, (job, k) in enumerate(zip(instance.jobs, partition)):
        bandwidth = platform.partitions[k].bandwidth
        job_ops, tail = _job_operations(job, i, starts[k], bandwidth)
        ops.append(tuple(job_ops))
        after.append(tail)
        length.append(job.length(bandwidth))
    count = sum(len(o) for o in ops)
    if count > max_phases:
        raise OptionError(f"io-sched MILP: {count} I/O phases exceed "
                          f"max_phases={max_phases}")
    upper, per_partition, best = _heuristic_upper_bound(instance, partition,
                                                        objective, deadline)
    deadline_of = []
    for i, k in enumerate(partition):
        bound = per_partition[k]
        limit = bound if objective == "makespan" else starts[k] + bound * length[i]
        deadline_of.append(limit + _DOMAIN_SLACK * max(1.0, abs(limit)))
    return IoSchedData(instance, objective, partition,
                       tuple(starts[k] for k in partition), tuple(ops), tuple(after),
                       tuple(length), tuple(deadline_of), lower, upper, best)


def _heuristic_upper_bound(instance: Instance, partition: Sequence[int],
                           objective: str, deadline: Deadline | None = None
                           ) -> tuple[float, dict[int, float], Schedule]:
    """Best warm one-pack value overall, per partition, and a schedule reaching
    the per-partition best everywhere (partitions are independent)."""
    best: dict[int, tuple[float, Schedule]] = {}
    schedules = warm_schedules(instance, "io-sched", deadline=deadline)
    if not schedules:
        raise OutOfTimeError("the warm starts (the MILP's domain needs one)")
    for _, schedule in schedules:
        values = _partition_values(instance, partition, schedule, objective)
        for k, value in values.items():
            if k not in best or value < best[k][0]:
                best[k] = (value, schedule)
    jobs = tuple(best[k][1][job.id] for job, k in zip(instance.jobs, partition))
    merged = Schedule(jobs, packs=_one_pack(instance, partition),
                      method="milp-heuristic-start")
    per_partition = {k: value for k, (value, _) in best.items()}
    return max(per_partition.values()), per_partition, merged


def _partition_values(instance: Instance, partition: Sequence[int],
                      schedule: Schedule, objective: str) -> dict[int, float]:
    values: dict[int, float] = {}
    stretches = schedule.stretches(instance) if objective != "makespan" else {}
    for job, k in zip(instance.jobs, partition):
        value = (schedule.completion(instance, job.id) if objective == "makespan"
                 else stretches[job.id])
        values[k] = max(values.get(k, -math.inf), value)
    return values


def _one_pack(instance: Instance, partition: Sequence[int]
              ) -> tuple[tuple[tuple[str, ...], ...], ...]:
    return tuple(
        ((tuple(job.id for job, p in zip(instance.jobs, partition) if p == k),)
         if k in partition else ())
        for k in range(instance.platform.num_partitions))


# -- the model ---------------------------------------------------------------------
class IoSchedMilp:
    """The disjunctive MILP of IO-SCHED (``models/io-sched-milp.md``).

    Build order: :meth:`_variables`, :meth:`_constraints` (one method per
    constraint group, in a fixed order), :meth:`_objective`. ``prob`` is the
    :class:`pulp.LpProblem`.
    """

    def __init__(self, data: IoSchedData) -> None:
        self.data = data
        self.pulp = load_pulp()
        self.prob = self.pulp.LpProblem(f"io_sched_{data.objective}".replace("-", "_"),
                                        self.pulp.LpMinimize)
        self.fixed: dict[tuple[str, str], int] = {}
        self.initial: dict[str, float] | None = None
        self._variables()
        self._constraints()
        self._objective()

    # -- variables -----------------------------------------------------------------
    def _variables(self) -> None:
        r"""Operation starts, order binaries and the objective variable.

        .. math::

            h_{iq} \le s_{iq} \le D_i - q_{iq} - p_{iq}, \qquad
            y_{ab} \in \{0, 1\}, \qquad
            C \ge 0 \ \text{or}\ \rho \ge 1.

        A pair whose big-M would be ``<= 0`` has its order forced by the
        domain (one operation always ends before the other can start); its
        ``y`` is fixed in :attr:`fixed` instead of being a variable.
        """
        pulp, data = self.pulp, self.data
        self.s = {op.key: pulp.LpVariable(f"s_{op.key}", lowBound=op.head,
                                          upBound=max(op.head, data.latest_start(op)))
                  for ops in data.ops for op in ops}
        self.y: dict[tuple[str, str], Any] = {}
        for a, b in data.pairs():
            if self._big_m(a, b) <= 0:
                self.fixed[(a.key, b.key)] = 1
            elif self._big_m(b, a) <= 0:
                self.fixed[(a.key, b.key)] = 0
            else:
                self.y[(a.key, b.key)] = pulp.LpVariable(f"y_{a.key}_{b.key}",
                                                         cat="Binary")
        name = "C" if data.objective == "makespan" else "rho"
        low = 0.0 if data.objective == "makespan" else 1.0
        self.value = pulp.LpVariable(name, lowBound=low)

    def _big_m(self, a: Operation, b: Operation) -> float:
        r""":math:`M_{ab} = (D_{i(a)} - q_a) - h_b`: the largest value of
        :math:`s_a + p_a - s_b` over the domain."""
        return self.data.deadline[a.job] - a.tail - b.head

    def order(self, a: Operation, b: Operation) -> Any:
        """``y_ab`` (a variable, or the fixed 0/1)."""
        key = (a.key, b.key)
        return self.y[key] if key in self.y else self.fixed[key]

    # -- constraints ---------------------------------------------------------------
    def _constraints(self) -> None:
        """The constraint groups, in order."""
        self._chain()              # (1) a job's operations in order, with lags
        self._disjunctive()        # (2) one operation at a time per I/O node
        self._chain_consistency()  # (3) orders between two jobs interleave
        self._completion()         # (4) the objective covers every job
        self._combinatorial_bound()  # (5) valid inequality from opt_sched.bounds

    def _chain(self) -> None:
        r"""Operation ``q`` of a job starts after ``q - 1`` ends and the lag:

        .. math:: s_{iq} \ge s_{i,q-1} + p_{i,q-1} + g_{iq} \quad (q \ge 1);

        the first one after the start, :math:`s_{i0} \ge t_k + g_{i0} = h_{i0}`,
        is the variable's lower bound.
        """
        for ops in self.data.ops:
            for prev, op in itertools.pairwise(ops):
                self.prob += (self.s[op.key] >= self.s[prev.key] + prev.duration
                              + op.lag, f"chain_{op.key}")

    def _disjunctive(self) -> None:
        r"""Exclusive, non-preemptive I/O node (rule 5), big-M form:

        .. math::

            s_b \ge s_a + p_a - M_{ab} (1 - y_{ab}), \qquad
            s_a \ge s_b + p_b - M_{ba}\, y_{ab},

        with :math:`M_{ab} = (D_{i(a)} - q_a) - h_b` (see :meth:`_big_m`).
        """
        for (ka, kb), y in self.y.items():
            a, b = self._op(ka), self._op(kb)
            self.prob += (self.s[kb] >= self.s[ka] + a.duration
                          - self._big_m(a, b) * (1 - y), f"before_{ka}_{kb}")
            self.prob += (self.s[ka] >= self.s[kb] + b.duration
                          - self._big_m(b, a) * y, f"after_{ka}_{kb}")
        for (ka, kb), value in self.fixed.items():
            a, b = self._op(ka), self._op(kb)
            if value:
                self.prob += (self.s[kb] >= self.s[ka] + a.duration,
                              f"forced_{ka}_{kb}")
            else:
                self.prob += (self.s[ka] >= self.s[kb] + b.duration,
                              f"forced_{kb}_{ka}")

    def _chain_consistency(self) -> None:
        r"""Orders between the operations of two jobs respect both chains:
        if :math:`a_q` precedes :math:`b_{q'}` then :math:`a_{q-1}` does, and if
        :math:`b_{q'}` precedes :math:`a_q` then :math:`b_{q'-1}` does:

        .. math::

            y_{a_q b_{q'}} \le y_{a_{q-1} b_{q'}}, \qquad
            y_{a_q b_{q'-1}} \le y_{a_q b_{q'}}.

        Valid (implied by the chain and disjunctive constraints for integer
        ``y``); they tighten the LP relaxation.
        """
        data = self.data
        for a, b in data.pairs():
            here = self.order(a, b)
            if a.q > 0:
                earlier_a = data.ops[a.job][a.q - 1]
                self._add_le(here, self.order(earlier_a, b),
                             f"cons_a_{a.key}_{b.key}")
            if b.q > 0:
                earlier_b = data.ops[b.job][b.q - 1]
                self._add_le(self.order(a, earlier_b), here,
                             f"cons_b_{a.key}_{b.key}")

    def _add_le(self, left: Any, right: Any, name: str) -> None:
        if isinstance(left, int) and isinstance(right, int):
            if left > right:
                raise SolverError(f"io-sched MILP: fixed orders contradict ({name})")
            return
        self.prob += (left <= right, name)

    def _completion(self) -> None:
        r"""The objective variable covers every job's completion
        :math:`C_i = s_{i,\text{last}} + p_{i,\text{last}} + a_i`:

        .. math::

            C \ge C_i \quad\text{(makespan)}, \qquad
            \rho\, T_i \ge C_i - t_k \quad\text{(max stretch, } T_i > 0).

        A job without operations completes at :math:`t_k + T_i` (stretch 1);
        that constant enters through the variable's lower bound.
        """
        data = self.data
        floor = self.value.lowBound
        for i, ops in enumerate(data.ops):
            if not ops:
                if data.objective == "makespan":
                    floor = max(floor, data.start[i] + data.length[i])
                continue
            last = ops[-1]
            finish = self.s[last.key] + last.duration + data.after[i]
            if data.objective == "makespan":
                self.prob += (self.value >= finish, f"completion_{i}")
            elif data.length[i] > 0:
                self.prob += (data.length[i] * self.value >= finish - data.start[i],
                              f"stretch_{i}")
        self.value.lowBound = floor

    def _combinatorial_bound(self) -> None:
        r"""The best bound of :func:`opt_sched.bounds.lower_bound` (fixed
        starts), :math:`C \ge LB` or :math:`\rho \ge LB`, as a variable bound:
        the solver proves optimality as soon as an incumbent reaches it."""
        self.value.lowBound = max(self.value.lowBound or 0.0, self.data.lower)

    # -- objective -----------------------------------------------------------------
    def _objective(self) -> None:
        r"""Minimise :math:`C` (makespan) or :math:`\rho` (max stretch)."""
        self.prob += self.value

    # -- helpers -------------------------------------------------------------------
    def _op(self, key: str) -> Operation:
        i, q = key.split("_")
        return self.data.ops[int(i)][int(q)]

    def warm_start(self, schedule: Schedule) -> None:
        """Set initial values from a schedule of the instance (its I/O order,
        re-timed semi-actively so that it lies in the domain)."""
        data = self.data
        order = _order_of(data, {op.key: schedule[data.instance.jobs[op.job].id]
                                 .io_starts[op.iteration]
                                 for ops in data.ops for op in ops})
        starts = _semi_active(data, order)
        self.initial = dict(starts)
        for key, var in self.s.items():
            var.setInitialValue(min(max(starts[key], var.lowBound), var.upBound))
        rank = {key: r for seq in order.values() for r, key in enumerate(seq)}
        for (ka, kb), var in self.y.items():
            var.setInitialValue(1 if rank[ka] < rank[kb] else 0)
        self.value.setInitialValue(max(self.value.lowBound,
                                       _objective_value(data, starts)))

    def starts_from(self, values: Mapping[str, float]) -> dict[str, float]:
        """Operation start times read from solver ``values``."""
        return {key: values.get(var.name, var.lowBound) for key, var in self.s.items()}

    def statistics(self) -> dict[str, int]:
        return {"variables": len(self.prob.variables()),
                "constraints": len(self.prob.constraints),
                "binaries": len(self.y), "io_phases": self.data.num_ops}


# -- rebuilding the schedule -------------------------------------------------------
def _order_of(data: IoSchedData, starts: Mapping[str, float]) -> dict[int, list[str]]:
    """Per partition, the operations sorted by start (ties: job, then ``q``)."""
    items: dict[int, list[tuple[float, int, int, str]]] = {}
    for ops in data.ops:
        for op in ops:
            k = data.partition[op.job]
            items.setdefault(k, []).append((starts[op.key], op.job, op.q, op.key))
    return {k: [key for *_, key in sorted(v)] for k, v in items.items()}


def _semi_active(data: IoSchedData, order: Mapping[int, list[str]]
                 ) -> dict[str, float]:
    """Start every operation as early as the node order and its chain allow.

    The order must list each job's operations in chain order (sorting by the
    starts of a chain-feasible solution does; :func:`_order_of` breaks ties by
    ``q``).
    """
    out: dict[str, float] = {}
    for seq in order.values():
        node_free = -math.inf
        ready: dict[int, float] = {}
        for key in seq:
            i, q = (int(x) for x in key.split("_"))
            op = data.ops[i][q]
            if q > 0 and data.ops[i][q - 1].key not in out:
                raise SolverError(f"io-sched MILP: order puts operation {key} "
                                  "before its predecessor in the job")
            clock = ready.get(i, data.start[i])
            begin = max(clock + op.lag, node_free)
            out[key] = begin
            node_free = begin + op.duration
            ready[i] = node_free
    return out


def _objective_value(data: IoSchedData, starts: Mapping[str, float]) -> float:
    value = -math.inf
    for i, ops in enumerate(data.ops):
        if ops:
            last = ops[-1]
            finish = starts[last.key] + last.duration + data.after[i]
        else:
            finish = data.start[i] + data.length[i]
        if data.objective == "makespan":
            value = max(value, finish)
        else:
            span = finish - data.start[i]
            value = max(value, span / data.length[i] if data.length[i] > 0 else 1.0)
    return value


def build_schedule(data: IoSchedData, starts: Mapping[str, float], method: str,
                   info: Mapping[str, object] | None = None) -> Schedule:
    """The semi-active schedule of the I/O order given by ``starts``.

    Compute phase ``j`` starts when I/O phase ``j - 1`` ends (``t_k`` for the
    first); an operation starts at its semi-active time (never later than in
    a chain- and node-feasible ``starts``); a zero-volume I/O phase starts and
    ends when its compute phase ends.
    """
    instance = data.instance
    active = _semi_active(data, _order_of(data, starts))
    jobs = []
    for i, job in enumerate(instance.jobs):
        k = data.partition[i]
        bandwidth = instance.platform.partitions[k].bandwidth
        by_iteration = {op.iteration: active[op.key] for op in data.ops[i]}
        now = data.start[i]
        compute_starts: list[float] = []
        io_starts: list[float] = []
        for j, (w, v) in enumerate(zip(job.compute, job.io_volume)):
            compute_starts.append(now)
            now += w
            if v > 0:
                begin = max(by_iteration[j], now)
                io_starts.append(begin)
                now = begin + v / bandwidth
            else:
                io_starts.append(now)
        jobs.append(JobSchedule(job.id, k, tuple(compute_starts), tuple(io_starts)))
    return Schedule(tuple(jobs), packs=_one_pack(instance, data.partition),
                    method=method, info=dict(info or {}))


# -- front door --------------------------------------------------------------------
def run(instance: Instance, objective: str, options: IoSchedMilpSettings, *,
        lower_bound: float | None, deadline: Deadline) -> Outcome:
    """Build and solve :class:`IoSchedMilp` (see :func:`opt_sched.solve`).

    The best list-policy schedule is the starting incumbent (with
    ``warm_start``) and, if the solver returns nothing, the answer; with
    ``stop_at_bound`` it is the answer at once when it meets the
    combinatorial bound. The solver gets the time left on ``deadline``.
    """
    data = io_sched_data(instance, objective, options.max_phases,
                         lower_bound or 0.0, deadline)
    model = IoSchedMilp(data)
    info: dict[str, Any] = {**model.statistics(),
                            "heuristic_upper_bound": data.upper}
    if options.export is not None:
        info["export"] = str(export_model(model.prob, options.export))
    model.warm_start(data.upper_schedule)
    if options.stop_at_bound and meets_bound(data.upper, data.lower):
        # the heuristic already meets the combinatorial bound: nothing to solve
        info["skipped"] = "heuristic meets the combinatorial bound"
        solution = MilpSolution(SolveStatus.TIMEOUT_NO_SOLUTION, {}, None, None,
                                "none", "not-solved", 0.0, "none")
    else:
        if not options.warm_start:
            model.initial = None
            for var in model.prob.variables():
                var.varValue = None
        settings = dataclasses.replace(options, time_limit=solver_time(deadline))
        solution = solve_milp(model.prob, settings)
    return _outcome(data, model, solution, options, info)


def _outcome(data: IoSchedData, model: IoSchedMilp, solution: MilpSolution,
             settings: MilpSettings, info: dict[str, Any]) -> Outcome:
    info.update({"solver_status": solution.solver_status, "mode": solution.mode,
                 "bound_source": solution.bound_source,
                 "milp_objective": solution.objective,
                 "solver_bound": solution.bound, "solver_time": solution.wall_time,
                 **solution.info})
    bound = solution.bound if solution.bound is not None \
        and math.isfinite(solution.bound) else None
    if solution.status is SolveStatus.INFEASIBLE:
        raise SolverError(f"io-sched MILP: backend={settings.backend!r} reports the "
                          "model infeasible, but the heuristic schedule lies in it")
    status = solution.status
    if status is SolveStatus.TIMEOUT_NO_SOLUTION:
        if model.initial is None:
            return Outcome(status, None, bound, info)
        # the warm start is a known incumbent even if the solver dropped it
        info["incumbent"] = "heuristic warm start"
        starts = dict(model.initial)
        status = SolveStatus.FEASIBLE
    else:
        starts = model.starts_from(solution.values)
    schedule = build_schedule(data, starts, f"milp-{settings.backend}",
                              {"objective": data.objective})
    return Outcome(status, schedule, bound, info)


def solve_io_sched(instance: Instance, objective: str = "makespan",
                   backend: str = "cbc", time_limit: float = 60.0,
                   export: str | None = None, **options: Any) -> Result:
    """:func:`opt_sched.solve` with ``problem="io-sched"`` on a MILP backend.

    Parameters
    ----------
    instance
        Every job mapped (``partition=None`` means 0 on a one-partition
        platform), no dependencies.
    objective
        ``"makespan"`` or ``"max-stretch"`` (``max_i (C_i - t_k) / T_i``).
    backend
        ``"cbc"`` (default) or ``"highs"``.
    time_limit, export
        As in :func:`opt_sched.solve`.
    **options
        The fields of :class:`IoSchedMilpSettings` (``max_phases``,
        ``stop_at_bound``, ``gap_rel``, ``threads``, ``warm_start``, ...),
        ``seed``, ``num_workers``.

    Returns
    -------
    Result
        Certified (:mod:`opt_sched.exact.certify`): ``objective`` recomputed
        from the validated semi-active schedule of the solver's I/O order;
        ``lower_bound`` the best of the solver's proven bound and
        :func:`opt_sched.bounds.lower_bound`.
    """
    from ..solve import solve

    if backend not in BACKENDS:
        raise OptionError(f"backend={backend!r} is not one of {', '.join(BACKENDS)}")
    return solve(instance, "io-sched", objective, backend, time_limit,
                 export=export, **options)


def prepare(options: MilpSettings) -> None:
    """One-time set-up before the time limit runs: PuLP, HiGHS' mode, the
    simulator's kernel."""
    milp_prepare(options.backend)
    warm_prepare()
