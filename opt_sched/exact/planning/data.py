"""The data of the average-bandwidth planning model (SPEC §5), shared by the
CP-SAT and MILP formulations (``models/planning.md``).

Notation. Job ``i`` is a box of length ``T_i = T_i(b_i)`` (its
contention-free length at the bandwidth ``b_i`` of
:meth:`Instance.bandwidth_of`), released at ``r_i``, after its predecessors
``pred(i)`` (the ``after`` list). It uses, while it runs, ``u_{ir}`` units of
every renewable resource ``r`` of capacity ``C_r``:

- ``nodes``: ``u = Q_i``, ``C = sum_k P_k`` (aggregate over partitions);
- ``bandwidth``: ``u = beta_i = V_i / T_i``, ``C = B`` (the platform resource
  ``bandwidth`` when declared, else ``sum_k b_k``);
- every named platform resource (``burst_buffer``, PSPLIB's ``R1..R4``):
  ``u`` = the job's ``demands`` entry (0 when absent), ``C`` = its capacity;
- with ``R > 1`` partitions, for every partition ``k`` holding pre-mapped
  jobs: ``nodes@k`` (``Q_i``, ``P_k``) and ``bandwidth@k`` (``beta_i``,
  ``b_k``) over the jobs mapped on ``k`` (necessary conditions).

A resource none of whose jobs demands anything is dropped, and the integer
data omit every resource that can never bind (``sum_i u_ir <= C_r``). Only ``nodes`` and
the named resources are *hard* (checked by the validator, rule 4);
``bandwidth`` is the planning model's average constraint, which rules 1-5 do
not impose.

Integer data (:class:`TickData`). The solvers work in integer ticks of
``delta`` seconds: ``d_i = ceil(T_i / delta)``, ``rho_i = ceil(r_i / delta)``.
A tick schedule ``s`` gives the continuous plan ``S_i = delta s_i``, which is
feasible (each box lies inside its tick box) with makespan at most
``delta * s_max``. Conversely, from a continuous optimum ``C*`` sorting the
jobs by start and setting ``s_i = ceil(S_i/delta) + (rank_i - 1)`` gives a
feasible tick schedule, so the tick optimum is at most ``C* + (n + 1) delta``.
When every ``T_i`` and ``r_i`` is a multiple of ``delta`` the tick model is
exact (semi-active schedules start on sums of durations and releases).

Resource amounts are scaled to integers per resource by a factor ``F_r`` (1
when all of them are integers): ``u'_{ir} = min(ceil(F_r u_{ir}), C'_r)``,
``C'_r = floor(F_r C_r)``. Rounding demands up and the capacity down keeps
every integer-feasible plan feasible for the real amounts (a clamped job can
only overlap jobs of zero demand), at the price of cutting off some plans: the
integer optimum is then only an upper bound, and its proven bound is not a
bound of the real model (``TickData.exact_resources`` is False).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ...errors import OptionError
from ...heuristics.serial_sgs import (
    Project,
    best_serial_schedule,
    chain_tails,
    earliest_starts,
    successor_lists,
)
from ...instance import Instance

__all__ = [
    "PlanSolution",
    "PlanningData",
    "PlanningResource",
    "TickData",
    "TickResource",
    "critical_path_bound",
    "sgs_upper_bound",
]

_EPS = 1e-9
"""Absolute slack when testing for integers and rounding (in scaled units)."""

DEFAULT_HORIZON_TICKS = 100_000
"""Default time resolution of CP-SAT: ``delta`` is the largest power of ten
that keeps the trivial horizon at least this many ticks (``delta = 1`` for
integer data up to 10 times as many). The time-indexed MILP uses a coarser
target."""

DEFAULT_RESOURCE_PRECISION = 1e-4
"""Default resource resolution: ``1 / F_r`` is at most this fraction of
``C_r`` (a power of ten)."""


@dataclass(frozen=True)
class PlanningResource:
    """One renewable resource of the planning model.

    ``demands[i]`` is ``u_{ir}`` for job ``i`` (instance order), ``capacity``
    is ``C_r``, ``hard`` tells whether rules 1-5 (the validator) impose it.
    """

    name: str
    capacity: float
    demands: tuple[float, ...]
    hard: bool


@dataclass(frozen=True)
class PlanningData:
    """The continuous planning problem derived from an :class:`Instance`.

    Jobs are indexed in instance order. ``predecessors[i]`` are the indices of
    ``pred(i)``.
    """

    instance: Instance
    durations: tuple[float, ...]
    releases: tuple[float, ...]
    predecessors: tuple[tuple[int, ...], ...]
    resources: tuple[PlanningResource, ...]

    @classmethod
    def from_instance(cls, instance: Instance) -> PlanningData:
        """Boxes, releases, dependencies and resources of ``instance``."""
        jobs = instance.jobs
        platform = instance.platform
        durations = tuple(job.length(instance.bandwidth_of(job)) for job in jobs)
        betas = tuple(job.average_bandwidth(instance.bandwidth_of(job))
                      for job in jobs)
        capacity = platform.resource_capacity
        band_cap = capacity.get("bandwidth",
                                math.fsum(p.bandwidth for p in platform.partitions))
        resources = [
            PlanningResource("nodes", float(platform.total_nodes),
                             tuple(float(job.nodes) for job in jobs), True),
            PlanningResource("bandwidth", band_cap, betas, False),
        ]
        for name, cap in platform.resources:
            if name == "bandwidth":
                continue
            resources.append(PlanningResource(
                name, cap, tuple(job.demand.get(name, 0.0) for job in jobs), True))
        if platform.num_partitions > 1:
            for k, part in enumerate(platform.partitions):
                mine = [job.partition == k for job in jobs]
                if not any(mine):
                    continue
                resources.append(PlanningResource(
                    f"nodes@{k}", float(part.nodes),
                    tuple(float(j.nodes) if m else 0.0 for j, m in zip(jobs, mine)),
                    True))
                resources.append(PlanningResource(
                    f"bandwidth@{k}", part.bandwidth,
                    tuple(b if m else 0.0 for b, m in zip(betas, mine)), False))
        kept = tuple(r for r in resources if any(u > 0 for u in r.demands))
        index = instance.index
        preds = tuple(tuple(index[d] for d in job.after) for job in jobs)
        return cls(instance, durations, tuple(job.release for job in jobs), preds,
                   kept)

    @property
    def num_jobs(self) -> int:
        return len(self.durations)

    def energy_bound(self) -> float:
        """``max_r min_i r_i + sum_i u_ir T_i / C_r`` over the *hard* resources.

        Valid for every schedule of rules 1-5: a job holds its nodes and named
        resources from its start to its completion, which is at least ``T_i``
        later. The aggregate ``nodes`` resource bounds the per-partition sums.
        """
        first = min(self.releases)
        bound = 0.0
        for res in self.resources:
            if res.hard and res.capacity > 0:
                energy = math.fsum(u * t for u, t in zip(res.demands, self.durations))
                bound = max(bound, first + energy / res.capacity)
        return bound

    @property
    def has_bandwidth(self) -> bool:
        """Some job does I/O, so an average-bandwidth resource is present."""
        return any(not r.hard for r in self.resources)

    def bandwidth_binds(self) -> bool:
        """Whether some bandwidth resource could ever bind: the sum of all its
        demands exceeds its capacity. When it cannot, the planning model is a
        relaxation of the executed problem with no-I/O jobs only."""
        return any(not r.hard and math.fsum(r.demands) > r.capacity * (1 + _EPS)
                   for r in self.resources)

    def to_ticks(self, resolution: float | None = None,
                 resource_precision: float = DEFAULT_RESOURCE_PRECISION,
                 horizon_ticks: int = DEFAULT_HORIZON_TICKS) -> TickData:
        """The integer data, with ``delta = resolution`` seconds per tick.

        ``resolution=None`` picks 1 when every duration and release is an
        integer and the trivial horizon ``max_i r_i + sum_i T_i`` is at most
        ``10 * horizon_ticks``, else the largest power of ten that keeps that
        horizon at least ``horizon_ticks`` ticks.
        """
        if resolution is None:
            resolution = _default_resolution(self, horizon_ticks)
        if (isinstance(resolution, bool) or not isinstance(resolution, (int, float))
                or not resolution > 0 or math.isinf(resolution)):
            raise OptionError(f"resolution={resolution!r} must be a number > 0")
        if not 0 < resource_precision < 1:
            raise OptionError(f"resource_precision={resource_precision!r} must be "
                              "in (0, 1)")
        delta = float(resolution)
        durations = tuple(_ceil(t / delta) for t in self.durations)
        releases = tuple(_ceil(r / delta) for r in self.releases)
        exact_time = all(_is_int(t / delta) for t in (*self.durations, *self.releases))
        resources = []
        exact_resources = True
        for res in self.resources:
            if math.fsum(res.demands) <= res.capacity * (1 + _EPS):
                continue  # never binds, in the real or the integer model
            values = (*res.demands, res.capacity)
            if all(_is_int(v) for v in values):
                factor = 1.0
            else:
                exponent = math.ceil(math.log10(1.0 / resource_precision
                                                / max(res.capacity, _EPS)))
                factor = 10.0 ** max(0, exponent)
                exact_resources &= all(_is_int(v * factor) for v in values)
            cap = math.floor(res.capacity * factor + _EPS)
            demands = tuple(min(_ceil(u * factor), cap) if u > 0 else 0
                            for u in res.demands)
            resources.append(TickResource(res.name, cap, demands, factor, res.hard))
        return TickData(self, delta, durations, releases, tuple(resources),
                        exact_time, exact_resources)


@dataclass(frozen=True)
class TickResource:
    """A resource with integer ``demands`` and ``capacity`` (scaled by ``factor``)."""

    name: str
    capacity: int
    demands: tuple[int, ...]
    factor: float
    hard: bool


@dataclass(frozen=True)
class TickData:
    """The integer planning problem that the solvers see (see module doc)."""

    data: PlanningData
    delta: float
    durations: tuple[int, ...]
    releases: tuple[int, ...]
    resources: tuple[TickResource, ...]
    exact_time: bool
    exact_resources: bool

    @property
    def num_jobs(self) -> int:
        return len(self.durations)

    @property
    def predecessors(self) -> tuple[tuple[int, ...], ...]:
        return self.data.predecessors

    @property
    def is_exact(self) -> bool:
        """The tick model has the same optimum as the continuous one."""
        return self.exact_time and self.exact_resources

    def successors(self) -> list[list[int]]:
        return successor_lists(self.predecessors)

    def heads(self) -> list[int]:
        """Earliest starts in ticks
        (:func:`~opt_sched.heuristics.serial_sgs.earliest_starts`)."""
        return earliest_starts(self.durations, self.releases, self.predecessors,
                               self.data.instance.topological_order())

    def tails(self) -> list[int]:
        """Longest chains after a job's start, in ticks
        (:func:`~opt_sched.heuristics.serial_sgs.chain_tails`)."""
        return chain_tails(self.durations, self.successors(),
                           self.data.instance.topological_order())

    def resource_bound(self) -> int:
        """``max_r ceil(sum_i u'_ir d_i / C'_r)`` and the critical path, in ticks."""
        bound = critical_path_bound(self)
        first = min(self.heads())
        for res in self.resources:
            if res.capacity > 0:
                energy = sum(u * d for u, d in zip(res.demands, self.durations))
                bound = max(bound, first + -(-energy // res.capacity))
        return bound

    def project(self) -> Project:
        """The integer problem as a :class:`~opt_sched.heuristics.serial_sgs.Project`
        (for the serial SGS)."""
        return Project(self.durations, self.releases, self.predecessors,
                       [(r.capacity, r.demands) for r in self.resources])

    def plan_makespan(self, starts: Sequence[int]) -> float:
        """The continuous makespan ``max_i (delta s_i + T_i)`` of a tick plan."""
        return max(self.delta * s + t for s, t in zip(starts, self.data.durations))


def critical_path_bound(ticks: TickData) -> int:
    """``max_j es_j + d_j``: releases plus the longest dependency chain."""
    return max(e + d for e, d in zip(ticks.heads(), ticks.durations))


def sgs_upper_bound(ticks: TickData) -> tuple[int, list[int]]:
    """The best serial-SGS plan of the tick data
    (:func:`opt_sched.heuristics.serial_sgs.best_serial_schedule`), as
    ``(makespan, starts)``: the horizon and first incumbent of the models."""
    return best_serial_schedule(ticks.project())


def _default_resolution(data: PlanningData, horizon_ticks: int) -> float:
    """1 for integer data whose trivial horizon ``max r + sum T`` is at most
    ``10 * horizon_ticks``; else the power of ten giving ``horizon_ticks`` to
    ``10 * horizon_ticks`` ticks."""
    horizon = max(data.releases) + math.fsum(data.durations)
    values = (*data.durations, *data.releases)
    if all(_is_int(v) for v in values) and horizon <= 10 * horizon_ticks:
        return 1.0
    return 10.0 ** math.floor(math.log10(max(horizon, _EPS) / horizon_ticks))


def _is_int(value: float) -> bool:
    return abs(value - round(value)) <= _EPS * max(1.0, abs(value))


def _ceil(value: float) -> int:
    """``ceil`` that ignores float noise below :data:`_EPS` (relative)."""
    near = round(value)
    if abs(value - near) <= _EPS * max(1.0, abs(value)):
        return int(near)
    return math.ceil(value)


@dataclass
class PlanSolution:
    """A solved plan in ticks: status (of the tick model), starts and bound."""

    status: str  # "optimal" | "feasible" | "infeasible" | "unknown"
    starts: list[int] | None
    objective: int | None
    bound: int | None
    wall_time: float
    info: dict[str, Any] = field(default_factory=dict)
