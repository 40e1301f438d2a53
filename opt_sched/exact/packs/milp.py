"""The pack variant of HPC-IO as a level-packing MILP, plus packs onto I/O
nodes (``models/packs-milp.md``).

The pack variant of HPC-IO (SPEC §3 rule 6) cut into two steps:

1. *Plan* (this MILP, after Lodi, Martello and Vigo 2004): split the jobs into
   packs and place the packs on the ``R`` I/O nodes (partitions) so as to
   minimise the *planned* makespan -- the largest sum of contention-free pack
   lengths ``T^p = max_{i in p} T_i`` on one partition. Items are sorted by
   decreasing ``T_i`` (ties: instance order); a pack is a *level* opened by its
   first item ``k`` in that order, so its length is the constant ``T_k`` and
   both capacity constraints are linear.
2. *Execute* the pack plan with the simulator
   (:func:`opt_sched.simulation.simulate` with a
   :class:`~opt_sched.simulation.PackPlan`); the front door certifies the
   schedule (:mod:`opt_sched.exact.certify`), and the reported objective is
   its makespan.

What the bound proves. In every pack schedule (rules 1-6) the jobs of a pack
start together (so a pack fits ``P``), pack ``p+1`` of a partition starts
after pack ``p`` has completed, and a job lasts at least ``T_i``; hence the
packs of a partition take at least the sum of their lengths and the makespan
is at least the planned makespan of the schedule's own packs, which is at
least the MILP optimum. So, **without the I/O cap** (``sensibility=None``)
and with all partitions available, the solver's proven bound is a lower
bound of the pack variant's optimal makespan (not of HPC-IO without packs,
whose schedules need not be pack schedules). With an I/O cap ``S`` the MILP
only sees Make-Pack-like packs, its bound is a bound of that restricted
problem, reported as ``info["planned_bound"]`` but never as ``lower_bound``,
which is then the combinatorial bound of :func:`opt_sched.bounds.lower_bound`.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

from ...errors import OptionError, PlanError, SolverError
from ...instance import Instance
from ...objectives import objective_value
from ..deadline import Deadline
from ..milp.backend import (
    BACKENDS,
    MilpSettings,
    export_model,
    load_pulp,
    solve_milp,
    solver_time,
)
from ..milp.backend import prepare as milp_prepare
from ..result import Outcome, Result, SolveStatus
from ..warm import prepare as warm_prepare
from ..warm import warm_methods

__all__ = ["OBJECTIVES", "OPTIONS", "LevelData", "PacksMilp", "PacksMilpSettings",
           "level_data", "planned_makespan", "run", "solve_packs"]

OBJECTIVES = ("makespan",)
"""A planned pack has no contention, so every planned stretch is 1: the model
plans the makespan only."""


@dataclass(frozen=True)
class PacksMilpSettings(MilpSettings):
    """The options record of this model: :class:`MilpSettings`, plus
    ``io_nodes`` (``R``: plan on partitions ``0..R-1``; ``None``: all),
    ``sensibility`` (``S`` of Make-Pack's I/O cap, eq. 4; ``None`` or
    ``inf``: no cap) and ``policy`` (the simulator's I/O policy for the
    execution, or ``"best"``: the policy whose makespan is smallest)."""

    io_nodes: int | None = None
    sensibility: float | None = None
    policy: str = "best"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.sensibility is not None and (
                isinstance(self.sensibility, bool)
                or not isinstance(self.sensibility, (int, float))
                or math.isnan(self.sensibility) or not self.sensibility > 0):
            raise OptionError(f"sensibility={self.sensibility!r} must be a number > 0")
        if self.policy != "best":
            from ...simulation import POLICY_NAMES

            if self.policy not in POLICY_NAMES:
                raise OptionError(f"policy={self.policy!r} is not one of best, "
                                  + ", ".join(POLICY_NAMES))


OPTIONS = PacksMilpSettings
"""The options record of this model (:mod:`opt_sched.exact.registry`)."""


@dataclass(frozen=True)
class LevelData:
    """The items of the level-packing model.

    ``order[k]`` is the instance index of the ``k``-th item (decreasing
    ``T``, ties by instance order); ``length[k]``, ``nodes[k]``,
    ``volume[k]`` are its ``T_k``, ``Q_k``, ``V_k``; ``mapped[k]`` its
    partition if the instance fixes one. ``capacity`` is ``P``, ``bandwidth``
    is ``b``, ``io_nodes`` is ``R`` (partitions ``0..R-1``) and
    ``sensibility`` is ``S`` (``None``: no I/O cap).
    """

    instance: Instance
    order: tuple[int, ...]
    length: tuple[float, ...]
    nodes: tuple[int, ...]
    volume: tuple[float, ...]
    mapped: tuple[int | None, ...]
    capacity: int
    bandwidth: float
    io_nodes: int
    sensibility: float | None

    @property
    def size(self) -> int:
        return len(self.order)

    def io_room(self, k: int) -> float:
        """``S b T_k - V_k``: the volume that may join the level of ``k``
        (``inf`` without a cap)."""
        if self.sensibility is None:
            return math.inf
        return self.sensibility * self.bandwidth * self.length[k] - self.volume[k]

    def may_join(self, k: int, i: int) -> bool:
        """Whether item ``i > k`` can be in the level opened by ``k`` alone
        (nodes, I/O cap, mapped partitions)."""
        if self.nodes[k] + self.nodes[i] > self.capacity:
            return False
        room = self.io_room(k)
        if room < 0 or self.volume[i] > room:
            return False
        a, b = self.mapped[k], self.mapped[i]
        return a is None or b is None or a == b


def level_data(instance: Instance, io_nodes: int | None = None,
               sensibility: float | None = None) -> LevelData:
    """Check ``instance`` for the level-packing model and sort its items.

    Raises
    ------
    OptionError
        ``io_nodes`` outside ``1..R``, ``sensibility <= 0``, dependencies, or
        a heterogeneous platform (the used partitions must be identical:
        pack lengths and capacities would depend on the partition).
    PlanError
        A job mapped to a partition outside ``0..io_nodes-1``.
    """
    count = instance.platform.num_partitions
    if io_nodes is None:
        io_nodes = count
    if isinstance(io_nodes, bool) or not isinstance(io_nodes, int) \
            or not 1 <= io_nodes <= count:
        raise OptionError(f"io_nodes={io_nodes!r} must be an integer in 1..{count} "
                          "(the platform's partitions)")
    if sensibility is not None:
        if isinstance(sensibility, bool) or not isinstance(sensibility, (int, float)) \
                or math.isnan(sensibility) or not sensibility > 0:
            raise OptionError(f"sensibility={sensibility!r} must be a number > 0")
        if math.isinf(sensibility):
            sensibility = None
    if instance.has_dependencies:
        raise OptionError(f"packs MILP: instance {instance.name!r} has dependencies "
                          "(after); the level-packing model has none")
    used = instance.platform.partitions[:io_nodes]
    if any(p != used[0] for p in used):
        raise OptionError(f"packs MILP: instance {instance.name!r} has heterogeneous "
                          "partitions; the level-packing model needs identical ones")
    for job in instance.jobs:
        if job.partition is not None and job.partition >= io_nodes:
            raise PlanError(f"packs MILP: job {job.id!r}: partition={job.partition} "
                            f"is not among the io_nodes={io_nodes} partitions used")
    bandwidth = used[0].bandwidth
    lengths = [job.length(bandwidth) for job in instance.jobs]
    order = sorted(range(instance.num_jobs), key=lambda i: (-lengths[i], i))
    jobs = [instance.jobs[i] for i in order]
    return LevelData(instance, tuple(order), tuple(lengths[i] for i in order),
                     tuple(job.nodes for job in jobs),
                     tuple(job.total_volume for job in jobs),
                     tuple(job.partition for job in jobs), used[0].nodes,
                     bandwidth, io_nodes, None if sensibility is None
                     else float(sensibility))


class PacksMilp:
    """Level packing with pack-to-I/O-node assignment (``models/packs-milp.md``).

    Build order: :meth:`_variables`, :meth:`_constraints` (one method per
    constraint group), :meth:`_objective`.
    """

    def __init__(self, data: LevelData) -> None:
        self.data = data
        self.pulp = load_pulp()
        self.prob = self.pulp.LpProblem("level_packing", self.pulp.LpMinimize)
        self._variables()
        self._constraints()
        self._objective()

    @property
    def symmetric(self) -> bool:
        """Identical partitions and no mapped job: partitions are
        interchangeable."""
        return all(r is None for r in self.data.mapped)

    # -- variables -----------------------------------------------------------------
    def _variables(self) -> None:
        r"""Level openers, level members, level-to-node assignment, makespan.

        .. math::

            y_k \in \{0,1\}, \quad x_{ki} \in \{0,1\}\ (k < i,\ i
            \text{ may join } k), \quad z_{kr} \in \{0,1\}, \quad C \ge 0.

        ``x_ki`` exists only when ``i`` alone fits the level of ``k``
        (:meth:`LevelData.may_join`). ``y_0 = 1`` (the longest item always
        opens a level). With interchangeable partitions, ``z_kr`` exists only
        for ``r <= k``: relabel the partitions by their lowest level, then
        level ``k`` sits on one of the first ``k + 1``.
        """
        pulp, data = self.pulp, self.data
        n, big_r = data.size, data.io_nodes
        self.y = [pulp.LpVariable(f"y_{k}", cat="Binary") for k in range(n)]
        self.y[0].lowBound = 1
        self.x = {(k, i): pulp.LpVariable(f"x_{k}_{i}", cat="Binary")
                  for k in range(n) for i in range(k + 1, n) if data.may_join(k, i)}
        self.z = {(k, r): pulp.LpVariable(f"z_{k}_{r}", cat="Binary")
                  for k in range(n) for r in range(big_r)
                  if not (self.symmetric and r > k)}
        self.makespan = pulp.LpVariable("C", lowBound=0)

    # -- constraints ---------------------------------------------------------------
    def _constraints(self) -> None:
        """The constraint groups, in order."""
        self._one_level_each()    # (1) every item in exactly one level
        self._member_needs_level()  # (2) x_ki <= y_k
        self._node_capacity()     # (3) level width <= P
        self._io_cap()            # (4) Make-Pack eq. 4 with S (optional)
        self._level_on_one_node()  # (5) each open level on one I/O node
        self._mapped_jobs()       # (6) mapped jobs stay on their partition
        self._node_load()         # (7) C >= load of every I/O node
        self._valid_bounds()      # (8) C >= longest item, total / R, area

    def _one_level_each(self) -> None:
        r"""Each item opens a level or joins exactly one earlier level:

        .. math:: y_i + \sum_{k < i} x_{ki} = 1.
        """
        for i in range(self.data.size):
            members = [self.x[k, i] for k in range(i) if (k, i) in self.x]
            self.prob += (self.y[i] + self.pulp.lpSum(members) == 1, f"one_level_{i}")

    def _member_needs_level(self) -> None:
        r"""Only an open level has members: :math:`x_{ki} \le y_k`."""
        for (k, i), x in self.x.items():
            self.prob += (x <= self.y[k], f"member_{k}_{i}")

    def _node_capacity(self) -> None:
        r"""The jobs of a pack start together (rule 6), so they fit the
        partition (rule 4):

        .. math:: \sum_{i > k} Q_i x_{ki} \le (P - Q_k)\, y_k.
        """
        data = self.data
        for k in range(data.size):
            members = [(data.nodes[i], x) for (kk, i), x in self.x.items() if kk == k]
            if members:
                self.prob += (self.pulp.lpSum(q * x for q, x in members)
                              <= (data.capacity - data.nodes[k]) * self.y[k],
                              f"nodes_{k}")

    def _io_cap(self) -> None:
        r"""Make-Pack's I/O cap (seed 003 eq. 4), linear because the opener
        fixes the pack length :math:`T_k`: a level with members has
        :math:`L = \sum V / (b T_k) \le S`,

        .. math:: \sum_{i > k} V_i x_{ki} \le (S\, b\, T_k - V_k)\, y_k.

        An opener alone is never checked (Make-Pack opens a pack for any
        job); if :math:`V_k > S b T_k` nobody may join
        (:meth:`LevelData.may_join`). Absent when ``sensibility`` is None.
        """
        data = self.data
        if data.sensibility is None:
            return
        for k in range(data.size):
            members = [(data.volume[i], x) for (kk, i), x in self.x.items() if kk == k]
            if members:
                self.prob += (self.pulp.lpSum(v * x for v, x in members)
                              <= data.io_room(k) * self.y[k], f"io_cap_{k}")

    def _level_on_one_node(self) -> None:
        r"""An open level runs on exactly one I/O node:
        :math:`\sum_r z_{kr} = y_k`."""
        for k in range(self.data.size):
            row = [z for (kk, _), z in self.z.items() if kk == k]
            self.prob += (self.pulp.lpSum(row) == self.y[k], f"node_of_{k}")

    def _mapped_jobs(self) -> None:
        r"""A job the instance maps to partition :math:`r_i` runs there, with
        its level: :math:`y_i \le z_{i r_i}` and :math:`x_{ki} \le z_{k r_i}`."""
        data = self.data
        for i, r in enumerate(data.mapped):
            if r is None:
                continue
            self.prob += (self.y[i] <= self.z[i, r], f"mapped_open_{i}")
            for k in range(i):
                if (k, i) in self.x:
                    self.prob += (self.x[k, i] <= self.z[k, r], f"mapped_{k}_{i}")

    def _node_load(self) -> None:
        r"""The planned makespan covers every I/O node's sum of pack lengths:

        .. math:: C \ge \sum_k T_k z_{kr} \quad \forall r.
        """
        data = self.data
        for r in range(data.io_nodes):
            row = [(data.length[k], z) for (k, rr), z in self.z.items() if rr == r]
            self.prob += (self.makespan >= self.pulp.lpSum(t * z for t, z in row),
                          f"load_{r}")

    def _valid_bounds(self) -> None:
        r"""Valid inequalities: the longest item, the average load and the
        area (a level of length :math:`T_k` offers :math:`P T_k` node-time):

        .. math::

            C \ge T_0, \qquad R\, C \ge \sum_k T_k y_k, \qquad
            C \ge \sum_i Q_i T_i / (R P).
        """
        data = self.data
        area = sum(q * t for q, t in zip(data.nodes, data.length))
        self.makespan.lowBound = max(data.length[0],
                                     area / (data.io_nodes * data.capacity))
        self.prob += (data.io_nodes * self.makespan
                      >= self.pulp.lpSum(t * y for t, y in zip(data.length, self.y)),
                      "average_load")

    # -- objective -----------------------------------------------------------------
    def _objective(self) -> None:
        r"""Minimise the planned makespan :math:`C`."""
        self.prob += self.makespan

    # -- reading the solution ------------------------------------------------------
    def packs_from(self, values: dict[str, float]) -> list[list[tuple[str, ...]]]:
        """``rows[r]``: the packs (job ids) of partition ``r``, longest first."""
        data = self.data
        ids = [data.instance.jobs[i].id for i in data.order]

        def on(var: Any) -> bool:
            return values.get(var.name, 0.0) > 0.5

        owner: dict[int, int] = {}
        for i in range(data.size):
            if i == 0 or on(self.y[i]):
                owner[i] = i
                continue
            joined = [k for k in range(i) if (k, i) in self.x and on(self.x[k, i])]
            if len(joined) != 1:
                raise SolverError(f"packs MILP: item {ids[i]!r} is in {len(joined)} "
                                  "levels in the solver's answer")
            owner[i] = joined[0]
        rows: list[list[tuple[str, ...]]] = [[] for _ in range(data.io_nodes)]
        for k in sorted(set(owner.values())):
            nodes = [r for (kk, r), z in self.z.items() if kk == k and on(z)]
            if len(nodes) != 1:
                raise SolverError(f"packs MILP: level {k} is on {len(nodes)} I/O "
                                  "nodes in the solver's answer")
            rows[nodes[0]].append(tuple(ids[i] for i in range(data.size)
                                        if owner[i] == k))
        return rows

    def warm_start(self, rows: list[list[tuple[str, ...]]]) -> bool:
        """Initial values from a pack plan whose packs fit the model; ``False``
        (and nothing set) if some pack cannot be a level of the model."""
        data = self.data
        position = {data.instance.jobs[i].id: k for k, i in enumerate(data.order)}
        y = [0] * data.size
        x: dict[tuple[int, int], int] = {}
        z: dict[tuple[int, int], int] = {}
        levels = sorted((min(position[j] for j in pack), r, pack)
                        for r, row in enumerate(rows) for pack in row)
        relabel: dict[int, int] = {}
        for k, r, pack in levels:
            r = relabel.setdefault(r, len(relabel)) if self.symmetric else r
            y[k] = 1
            z[k, r] = 1
            for j in pack:
                i = position[j]
                if i != k:
                    x[k, i] = 1
        if any(key not in self.x for key in x) or any(key not in self.z for key in z):
            return False
        for k, var in enumerate(self.y):
            var.setInitialValue(y[k])
        for key, var in self.x.items():
            var.setInitialValue(x.get(key, 0))
        for key, var in self.z.items():
            var.setInitialValue(z.get(key, 0))
        loads = [0.0] * data.io_nodes
        for (k, r) in z:
            loads[r] += data.length[k]
        self.makespan.setInitialValue(max(max(loads), self.makespan.lowBound))
        return True

    def statistics(self) -> dict[str, int]:
        return {"variables": len(self.prob.variables()),
                "constraints": len(self.prob.constraints),
                "binaries": len(self.y) + len(self.x) + len(self.z)}


def planned_makespan(instance: Instance, rows: list[list[tuple[str, ...]]],
                     bandwidth: float) -> float:
    """``max_r sum_{p on r} max_{i in p} T_i(b)``: the contention-free makespan
    of a pack plan."""
    return max((math.fsum(max(instance.job(j).length(bandwidth) for j in pack)
                          for pack in row) for row in rows), default=0.0)


def _heuristic_rows(data: LevelData) -> list[list[tuple[str, ...]]] | None:
    """The warm pack plan: among the warm pack methods
    (:func:`opt_sched.exact.warm.warm_methods`, with the model's cap), the
    plan of smallest planned makespan; ``None`` when there is none."""
    best: tuple[float, list[list[tuple[str, ...]]]] | None = None
    for method in warm_methods(data.instance, "packs", sensibility=data.sensibility,
                               io_nodes=data.io_nodes):
        plan = method.plan(data.instance)
        rows = [[tuple(pack) for pack in row] for row in plan.packs[:data.io_nodes]]
        value = planned_makespan(data.instance, rows, data.bandwidth)
        if best is None or value < best[0]:
            best = (value, rows)
    return None if best is None else best[1]


# -- front door --------------------------------------------------------------------
def run(instance: Instance, objective: str, options: PacksMilpSettings, *,
        lower_bound: float | None, deadline: Deadline) -> Outcome:
    """Plan packs with the level-packing MILP, then execute them (see
    :func:`opt_sched.solve`).

    The outcome's bound is the MILP's proven bound on the planned makespan,
    and only without a cap and with all partitions (module doc); the front
    door adds the combinatorial bound. ``info["planned_makespan"]`` is the
    contention-free makespan of the plan, ``info["planned_bound"]`` the
    solver's bound on it.
    """
    data = level_data(instance, options.io_nodes, options.sensibility)
    model = PacksMilp(data)
    info: dict[str, Any] = {**model.statistics(), "sensibility": data.sensibility,
                            "io_nodes": data.io_nodes}
    if options.export is not None:
        info["export"] = str(export_model(model.prob, options.export))
    start_rows = None
    if options.warm_start:
        start_rows = _heuristic_rows(data)
        if start_rows is not None and not model.warm_start(start_rows):
            start_rows = None
        info["warm_start"] = start_rows is not None
    settings = dataclasses.replace(options, time_limit=solver_time(deadline))
    solution = solve_milp(model.prob, settings)
    info.update({"solver_status": solution.solver_status, "mode": solution.mode,
                 "bound_source": solution.bound_source,
                 "planned_bound": solution.bound, "solver_time": solution.wall_time,
                 **solution.info})
    proves = (data.sensibility is None
              and data.io_nodes == instance.platform.num_partitions)
    info["planned_bound_is_lower_bound"] = proves
    bound = None
    if proves and solution.bound is not None and math.isfinite(solution.bound):
        bound = solution.bound
    if solution.status is SolveStatus.INFEASIBLE:
        raise SolverError(f"packs MILP: backend={options.backend!r} reports the "
                          "model infeasible, but one job per pack is a solution")
    if solution.status is SolveStatus.TIMEOUT_NO_SOLUTION:
        if start_rows is None:
            return Outcome(SolveStatus.TIMEOUT_NO_SOLUTION, None, bound, info)
        # the warm start is a known incumbent even if the solver dropped it
        info["incumbent"] = "heuristic warm start"
        rows = start_rows
    else:
        rows = model.packs_from(dict(solution.values))
    info["planned_makespan"] = planned_makespan(instance, rows, data.bandwidth)
    info["packs"] = sum(len(row) for row in rows)
    info["plan_status"] = str(solution.status)
    schedule, chosen = _execute(instance, rows, options.policy)
    info["policy"] = chosen
    # a plan solved to optimality is not an optimal schedule: certify decides
    return Outcome(SolveStatus.FEASIBLE, schedule, bound, info)


def _execute(instance: Instance, rows: list[list[tuple[str, ...]]], policy: str
             ) -> tuple[Any, str]:
    """Simulate the pack plan under ``policy`` (or every policy for
    ``"best"``); the schedule of smallest makespan and its policy."""
    from ...simulation import POLICY_NAMES, PackPlan, simulate

    full = rows + [[] for _ in range(instance.platform.num_partitions - len(rows))]
    plan = PackPlan(full)
    names = POLICY_NAMES if policy == "best" else (policy,)
    best: tuple[Any, float, str] | None = None
    for name in names:
        schedule = simulate(instance, plan, name)
        value = objective_value(instance, schedule, "makespan")
        if best is None or value < best[1]:
            best = (schedule, value, name)
    assert best is not None
    return best[0], best[2]


def solve_packs(instance: Instance, objective: str = "makespan", backend: str = "cbc",
                time_limit: float = 60.0, io_nodes: int | None = None,
                sensibility: float | None = None, export: str | None = None,
                **options: Any) -> Result:
    """:func:`opt_sched.solve` with ``problem="packs"`` on a MILP backend.

    Parameters
    ----------
    instance
        Identical partitions (at least the first ``io_nodes``), no
        dependencies. Releases are ignored by the plan and honoured by the
        simulator.
    objective
        Only ``"makespan"``.
    backend, time_limit, export
        As in :func:`opt_sched.solve` (``backend``: ``"cbc"`` or ``"highs"``).
    io_nodes, sensibility, **options
        The fields of :class:`PacksMilpSettings`.

    Returns
    -------
    Result
        Certified: ``objective`` the validated simulated makespan of the
        plan; ``OPTIMAL`` only when it meets the proven lower bound.
    """
    from ..solve import solve

    if backend not in BACKENDS:
        raise OptionError(f"backend={backend!r} is not one of {', '.join(BACKENDS)}")
    return solve(instance, "packs", objective, backend, time_limit, export=export,
                 io_nodes=io_nodes, sensibility=sensibility, **options)


def prepare(options: MilpSettings) -> None:
    """One-time set-up before the time limit runs: PuLP, HiGHS' mode, the
    simulator's kernel."""
    milp_prepare(options.backend)
    warm_prepare()
