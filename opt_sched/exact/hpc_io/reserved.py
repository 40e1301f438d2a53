"""A lower bound for HPC-IO with releases on a partition that is partly
reserved (:class:`~opt_sched.reservations.Reservations`): the CP-SAT model of
:mod:`.cpsat` on a *relaxation* rounded down to a time grid.

Used for the window gap (``opt_sched.experiments.window``), where the jobs
still running at the window start hold nodes and I/O-node intervals, through
the exact layer: the bound side of the problem ``hpc-io-reserved``
(:mod:`.reserved_backend`, run by :func:`opt_sched.solve` and certified). The
standard model rounds every length *up* (so its schedules stay feasible);
with fixed reserved intervals that argument fails (a rounded-up phase may no
longer fit the gap it had). This model rounds the other way and only ever
proves bounds (``models/window-gap.md``):

- releases, compute lags, tails and I/O lengths ``x`` become
  ``floor(x / tick)``; ``L_i = ceil(T_i / tick)`` for the flow stretch;
- node holds ``[0, e)`` become ``[0, floor(e / tick))`` and busy I/O intervals
  ``[a, e)`` become ``[ceil(a / tick), floor(e / tick))``.

Every feasible schedule, its event times ``t`` mapped to ``floor(t / tick)``,
is then a solution of the model: ``floor(a) + floor(d) <= floor(a + d)``
keeps every precedence and disjunction, and the jobs (and holds) active at a
tick ``t'`` were all active together just before ``t' + 1`` (the capacity
holds). Completions map to ``C'_i <= floor(C_i / tick)``. So a proven model
bound ``B`` gives, with no rounding error term: makespan ``>= B tick``; mean
flow time ``>= (B tick - sum r_i) / n``; max flow stretch ``>= (B - 1) /
SCALE - 1 / min_i L_i``. That last term is why the max flow stretch gets a
finer grid (:data:`STRETCH_TICKS` against :data:`MAX_TICKS`).

A feasible schedule (the window's online schedule, or the best one found),
mapped the same way, is a solution: it is the incumbent (upper end of the
objective's domain, horizon for the makespan). The domain's lower end is
the combinatorial bound in ticks minus what the flooring may lose
(:meth:`ReservedHpcIo._slack`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...errors import OptionError
from ...instance import Instance
from ...objectives import FLOW_OBJECTIVES, check_objective
from ...reservations import Reservations
from ...schedule import Schedule
from ..cpsat.common import ModelData, Retimed, Structure, TimeGrid
from ..cpsat.flow import flow_objective
from ..cpsat.probing import BoundSearch
from ..cpsat.search import minimise
from ..cpsat.settings import HpcIoCpsatSettings
from ..deadline import Deadline, OutOfTimeError
from ..progress import report
from .cpsat import HpcIoCpsat

__all__ = ["MAX_TICKS", "STRETCH_TICKS", "ReservedBound", "ReservedHpcIo",
           "reserved_bound"]

MAX_TICKS = 10**8
"""The grid splits the horizon into at most this many ticks (the makespan
and the mean flow time: their conversion loses no tick, so a finer grid
only tightens the floored lengths, by ``horizon / MAX_TICKS`` each)."""

STRETCH_TICKS = 10**10
"""The same for the max flow stretch, whose conversion loses ``1 / L_i``
(the shortest job's length in ticks): on KTH-SP2 windows (conservative)
1176:40 and 8560:40 the bound at 10^8 ticks was 1.851957 and 3.004530
against schedules of 1.853732 and 3.005302 (0.1 % and 0.03 %, 12.6 and
39.8 points of width at the online values 232 and 4,441); at 10^10 ticks
1.853714 and 3.005294 (the 101-window run of ``docs/window-brackets-kth-sp2.md``).
The scale of the stretch (:func:`_scale`) keeps ``rho L_i`` int64-safe. Only
the bound uses it: CP-SAT's schedule search
(:mod:`~opt_sched.exact.hpc_io.reserved_search`) keeps :data:`MAX_TICKS`."""

_PRODUCT_LIMIT = 10**17
"""Largest ``rho * L_i`` the flow-stretch constraints may reach (int64 safe)."""


@dataclass(frozen=True)
class ReservedBound:
    """A proven lower bound of the continuous problem, and how it was found:
    ``closed`` when the relaxation was solved to optimality (its optimum is
    then the bound, up to the conversion), ``info`` the search's details."""

    bound: float
    closed: bool
    info: dict[str, Any]


class ReservedHpcIo(HpcIoCpsat):
    """HPC-IO on one partition with reservations, rounded down (module doc).

    Parameters
    ----------
    data
        Floored tick data (:func:`floored_data`).
    reserved
        ``(holds, busy)`` in ticks: ``(end, nodes)`` from 0 and ``[a, e)``.
    incumbent
        The incumbent's integer times (a solution of this model).
    """

    problem = "hpc-io-reserved"

    def __init__(self, data: ModelData, objective: str, settings: HpcIoCpsatSettings,
                 reserved: tuple[list[tuple[int, int]], list[tuple[int, int]]], *,
                 lower_bound: float, incumbent: Retimed,
                 deadline: Deadline | None = None) -> None:
        self.reserved = reserved
        self.incumbent = incumbent
        self.flow_floor = 0  # floored lengths may give ratios below 1
        super().__init__(data, objective, settings, lower_bound=lower_bound,
                         warm=[Structure((0,) * data.num_jobs, ((),))],
                         deadline=deadline)

    # -- the incumbent instead of re-timed warm structures ---
    def _evaluate_warm(self, warm: Sequence[Structure]
                       ) -> list[tuple[int, Structure, Retimed]]:
        structure = warm[0]
        return [(self._model_value(self.incumbent), structure, self.incumbent)]

    def _extra_start_ticks(self) -> list[int]:
        """The reservations' last end: the flow horizon starts after it."""
        holds, busy = self.reserved
        return [max([e for e, _ in holds] + [e for _, e in busy], default=0)]

    # -- reservations ---
    def _node_capacity(self) -> None:
        """Rule 4 with the node holds as fixed intervals ``[0, e)``."""
        holds, _ = self.reserved
        nodes = self.data.instance.platform.partitions[0].nodes
        used = [(q, iv) for _, q, iv in self.job_copies[0] if q > 0]
        for n, (end, q) in enumerate(holds):
            if end > 0 and q > 0:
                used.append((q, self.model.new_fixed_size_interval_var(
                    0, end, f"hold[{n}]")))
        if sum(q for q, _ in used) > nodes:
            self.model.add_cumulative([iv for _, iv in used], [q for q, _ in used],
                                      nodes)

    def _exclusive_io(self) -> None:
        """Rule 5 with the busy I/O intervals as fixed intervals."""
        _, busy = self.reserved
        intervals = list(self.io_intervals[0])
        for n, (a, e) in enumerate(busy):
            if e > a:
                intervals.append(self.model.new_fixed_size_interval_var(
                    a, e - a, f"busy[{n}]"))
        if len(intervals) > 1:
            self.model.add_no_overlap(intervals)

    # -- objective and bound (relaxation: round the bound down) ---
    def _slack(self) -> int:
        """Ticks the flooring may lose along the jobs' chains (a release,
        each lag and I/O length, the tail: under one tick each), summed over
        the jobs: the relaxation's optimum may lie that far below the
        combinatorial bound in ticks, so the objective's domain starts that
        much lower (a domain above the relaxation's optimum made it
        infeasible: a one-job window whose bound was its optimum)."""
        return sum(2 * len(lags) + 2 for lags in self.data.lag)

    def _objective(self) -> None:
        tick = self.data.grid.tick
        lower = self.continuous_lower
        slack = self._slack()
        if self.objective_name == "makespan":
            low = min(max(0, math.floor(lower / tick) - slack), self.horizon)
            self.obj_low = low
            self.obj = self.model.new_int_var(low, self.horizon, "makespan")
            for c in self.completion:
                self.model.add(self.obj >= c)
        elif self.objective_name == "mean-flow-time":
            releases = math.fsum(job.release for job in self.data.instance.jobs)
            flow_objective(self, max(0, math.floor((self.n * lower + releases)
                                                   / tick) - slack))
        else:
            flow_objective(self, max(0, math.floor(self.scale * lower)))
        self.model.minimize(self.obj)

    def continuous_bound(self, bound: int) -> float:
        data = self.data
        tick = data.grid.tick
        if self.objective_name == "makespan":
            return bound * tick
        if self.objective_name == "mean-flow-time":
            releases = math.fsum(job.release for job in data.instance.jobs)
            return (bound * tick - releases) / self.n
        positive = [length for length in data.length_ticks if length > 0]
        return max(1.0, (bound - 1) / self.scale - 1.0 / min(positive, default=1))

    def _progress_bound(self, search: BoundSearch) -> dict[str, float]:
        """The proven bound in the objective's units (progress reports)."""
        return {"bound": max(self.continuous_lower,
                             self.continuous_bound(search.lower))}

    def bound(self, deadline: Deadline) -> ReservedBound:
        """Run the solve loop; the converted proven bound."""
        report(self.objective_name, restart=True, bound=self.continuous_lower)
        search = minimise(self.model, self.obj, self.settings, deadline,
                          self._make_solver, lower=self.obj_low,
                          incumbent=self.upper, ladder_params=self._ladder_params(),
                          values=self._progress_bound)
        bounds = search.bounds
        if bounds.infeasible:
            # the incumbent is a solution, so only the objective's domain (from
            # the combinatorial bound) can cut every solution: that bound holds
            # by itself
            info = {"tick": self.data.grid.tick, "stopped":
                    "relaxation infeasible above the combinatorial bound",
                    **search.info}
            return ReservedBound(self.continuous_lower, False, info)
        info = {"tick": self.data.grid.tick, "model_bound": bounds.lower,
                "model_incumbent": bounds.upper, "stretch_scale": self.scale,
                "horizon_ticks": self.horizon, **search.info}
        value = max(self.continuous_lower, self.continuous_bound(bounds.lower))
        return ReservedBound(value, bounds.closed, info)


def floored_data(instance: Instance, tick: float) -> ModelData:
    """:class:`ModelData` of a one-partition instance on a grid of ``tick``,
    every length and release rounded *down*, ``L_i = ceil(T_i / tick)``."""
    data = ModelData.build(instance, [(0,)] * instance.num_jobs, resolution=tick)
    grid = TimeGrid(tick, False)
    data.grid = grid
    bandwidth = instance.platform.partitions[0].bandwidth
    data.lag = [[grid.down(x) for x in ph.lags.tolist()] for ph in data.phases]
    data.tail = [grid.down(ph.tail) for ph in data.phases]
    data.release = [grid.down(job.release) for job in instance.jobs]
    data.duration = [[{0: grid.down(v / bandwidth)} for v in ph.volumes.tolist()]
                     for ph in data.phases]
    data.length_ticks = [grid.up(t) if t > 0 else 0 for t in data.length]
    return data


def _floored_times(instance: Instance, schedule: Schedule, data: ModelData) -> Retimed:
    """The schedule's event times mapped to ``floor(t / tick)``, completions
    rebuilt along the floored chain (module doc)."""
    grid = data.grid
    starts, ops, completions = [], [], []
    for i, job in enumerate(instance.jobs):
        js = schedule[job.id]
        start = grid.down(js.start)
        op_starts = [grid.down(js.io_starts[j]) for j in
                     data.phases[i].iterations.tolist()]
        if op_starts:
            end = op_starts[-1] + data.duration[i][-1][0] + data.tail[i]
        else:
            end = start + data.tail[i]
        starts.append(start)
        ops.append(op_starts)
        completions.append(end)
    return Retimed(starts, ops, completions)


def _choose_tick(instance: Instance, reservations: Reservations,
                 schedule: Schedule, resolution: float | None,
                 ticks: int = MAX_TICKS) -> float:
    """``resolution`` if given, else the horizon (the schedule's last
    completion, the reservations' last end, or the latest release plus
    every job in series) over ``ticks``."""
    if resolution is not None:
        if not (isinstance(resolution, (int, float)) and math.isfinite(resolution)
                and resolution > 0):
            raise OptionError(f"resolution={resolution!r} must be a number > 0")
        return float(resolution)
    serial = sum(job.length(instance.bandwidth_of(job)) for job in instance.jobs)
    horizon = max(max(schedule.completions(instance).values()),
                  reservations.last_end,
                  max(job.release for job in instance.jobs) + serial)
    return max(horizon, 1e-300) / ticks


def _scale(settings_scale: int, data: ModelData, incumbent: Retimed,
           objective: str) -> int:
    """The flow stretch's units: at most ``settings_scale``, a power of 10
    small enough that ``rho L_i`` stays below :data:`_PRODUCT_LIMIT`. The
    objective's domain ends at the incumbent's value (the model is built
    with it), so ``rho <= SCALE w``, ``w`` the incumbent's largest
    ``(C_i - R_i) / L_i`` in ticks (plus one for the rounding up)."""
    if objective != "max-flow-stretch":
        return settings_scale
    longest = max(data.length_ticks, default=1) or 1
    worst = 1.0 + max([1.0] + [(c - r) / length for c, r, length in
                               zip(incumbent.completion, data.release,
                                   data.length_ticks) if length > 0])
    scale = settings_scale
    while scale > 1 and scale * worst * longest > _PRODUCT_LIMIT:
        scale //= 10
    return scale



def floored_window(instance, reservations, schedule, tick: float,
                   settings: HpcIoCpsatSettings, objective: str):
    """The window rounded down on the grid of ``tick`` (``models/window-gap.md``):
    ``(data, settings, (holds, busy), incumbent)``: the floored data, the
    settings with the stretch scale of the horizon, the running jobs' node
    holds (ends rounded down) and busy I/O intervals (rounded inwards, empty
    ones dropped), and ``schedule``'s times on the grid."""
    data = floored_data(instance, tick)
    grid = data.grid
    holds = [(grid.down(e), q) for e, q in reservations.node_holds]
    busy = [(grid.up(a), grid.down(e)) for a, e in reservations.io_busy]
    busy = [(a, e) for a, e in busy if e > a]
    incumbent = _floored_times(instance, schedule, data)
    settings = dataclasses.replace(settings, stretch_scale=_scale(
        settings.stretch_scale, data, incumbent, objective))
    return data, settings, (holds, busy), incumbent

def reserved_bound(instance: Instance, reservations: Reservations, objective: str,
                   schedule: Schedule, *, lower_bound: float = 0.0,
                   time_limit: float = 30.0, num_workers: int = 2, seed: int = 0,
                   resolution: float | None = None,
                   deadline: Deadline | None = None,
                   **options: Any) -> ReservedBound:
    """A proven lower bound of ``objective`` for every schedule of
    ``instance`` that respects ``reservations`` (module doc).

    Parameters
    ----------
    instance
        One partition, no dependencies.
    schedule
        A feasible schedule of ``instance`` that respects the reservations
        (the incumbent; for the window gap, the online schedule). It is not
        validated here.
    lower_bound
        A valid combinatorial bound (the objective's domain starts there).
    time_limit
        Seconds for building and searching.
    deadline
        The clock to draw on instead (the exact layer's backend,
        :mod:`.reserved_backend`, passes its solve's); default
        ``Deadline(time_limit)`` from the call.
    options
        Fields of :class:`~opt_sched.exact.cpsat.settings.HpcIoCpsatSettings`.
    """
    check_objective(objective, ("makespan", *FLOW_OBJECTIVES))
    if instance.platform.num_partitions != 1:
        raise OptionError("reserved bound: one partition only")
    if instance.has_dependencies:
        raise OptionError("reserved bound: dependencies are not supported")
    settings = HpcIoCpsatSettings(time_limit=time_limit, num_workers=num_workers,
                                  seed=seed, warm=False, **options)
    if deadline is None:
        deadline = Deadline(time_limit)
    tick = _choose_tick(instance, reservations, schedule, resolution,
                        STRETCH_TICKS if objective == "max-flow-stretch" else MAX_TICKS)
    try:
        data, settings, held, incumbent = floored_window(
            instance, reservations, schedule, tick, settings, objective)
        model = ReservedHpcIo(data, objective, settings, held,
                              lower_bound=lower_bound, incumbent=incumbent,
                              deadline=deadline)
    except OutOfTimeError as exc:
        return ReservedBound(lower_bound, False, {"stopped": str(exc)})
    return model.bound(deadline)
