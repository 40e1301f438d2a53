"""The skeleton every CP-SAT scheduling model (IO-SCHED, HPC-IO, packs)
follows.

A model is built in three steps, each a method: :meth:`CpsatModel._variables`,
:meth:`CpsatModel._constraints` (one named method per constraint group, in a
fixed order) and :meth:`CpsatModel._objective`; :meth:`CpsatModel.solve` runs
the one solve loop (:func:`opt_sched.exact.cpsat.search.minimise`) and turns
its answer into a continuous, re-timed schedule with a bound that is valid
for the continuous problem (``models/io-sched-cpsat.md``), as a raw
:class:`~opt_sched.exact.result.Outcome`.

Shared notation (ticks, see :mod:`.common`): ``S_i`` job start, ``C_i`` job
completion, ``s_iq`` start of operation ``q`` (the ``q``-th positive-volume
I/O phase), ``lag_iq`` the compute time before it, ``d_iqk`` its length on
partition ``k``, ``tail_i`` the compute time after the last operation.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ortools.sat.python import cp_model

from ...errors import OptionError, SolverError
from ...objectives import FLOW_OBJECTIVES, check_objective
from ..deadline import Deadline
from ..result import Outcome, SolveStatus
from .common import (
    ModelData,
    Retimed,
    Structure,
    continuous_lengths,
    retime,
    tick_lengths,
    to_schedule,
)
from .flow import flow_continuous_bound, flow_horizon, flow_model_value, flow_objective
from .probing import BoundSearch
from .search import Search, minimise
from .settings import ScheduleCpsatSettings, make_solver
from .stretch import stretch_bound, stretch_objective

__all__ = ["CpsatModel", "default_portfolio"]


def default_portfolio(num_workers: int) -> dict[str, Any]:
    """The portfolio of the scheduling models, chosen from measurements
    (``models/io-sched-cpsat.md``, "Solver settings").

    On 2 workers CP-SAT runs one full search (``num_full_subsolvers`` is 1
    there) and interleaves its first-solution and LNS helpers on the other
    thread; we make that full search the ``reduced_costs`` LP subsolver. On
    more workers ``reduced_costs`` is added to CP-SAT's portfolio."""
    if num_workers == 2:
        return {"subsolvers": ["reduced_costs"]}
    if num_workers > 2:
        return {"extra_subsolvers": ["reduced_costs"]}
    return {}


class CpsatModel:
    """Base class: shared operation variables, phase chain, objective, solve.

    Parameters
    ----------
    data
        The instance in ticks (:class:`ModelData`).
    objective
        ``"makespan"`` or ``"max-stretch"``.
    settings
        Solver settings.
    lower_bound
        A valid lower bound of the continuous problem (combinatorial); it is
        imposed on the objective variable so that CP-SAT stops as soon as an
        incumbent reaches it.
    warm
        Structures of known schedules (heuristics). Re-timed in ticks they
        give an upper bound on the objective (and the horizon); the best one
        is the solution hint when ``settings.hints``.
    deadline
        Building the model stops with
        :class:`~opt_sched.exact.deadline.OutOfTimeError` once it passes.
    """

    problem: ClassVar[str] = ""

    def __init__(self, data: ModelData, objective: str,
                 settings: ScheduleCpsatSettings, *, lower_bound: float = 0.0,
                 warm: Sequence[Structure] = (),
                 deadline: Deadline | None = None) -> None:
        check_objective(objective)
        self.cp = cp_model
        self.data = data
        self.objective_name = objective
        self.settings = settings
        self.deadline = deadline
        self.scale = settings.stretch_scale
        self.continuous_lower = lower_bound
        self.model = cp_model.CpModel()
        self.n = data.num_jobs
        self.num_partitions = data.instance.platform.num_partitions
        self.warm = self._evaluate_warm(warm)
        self.upper = min((value for value, _, _ in self.warm), default=None)
        self.horizon = self._horizon()
        self._variables()
        self._constraints()
        self._objective()
        if settings.search == "set-times":
            self._search_strategy()
        if settings.hints and self.warm:
            best = min(self.warm, key=lambda item: item[0])
            self._hint(best[1], best[2])

    # -- to be provided by each model ---
    def _variables(self) -> None:
        raise NotImplementedError

    def _constraints(self) -> None:
        raise NotImplementedError

    def _structure(self, solver: Any) -> Structure:
        raise NotImplementedError

    def _hint(self, structure: Structure, times: Retimed) -> None:
        """Hint the operation starts, job starts and completions of ``times``."""
        for i in range(self.n):
            self._hint_var(self.start[i], times.start[i])
            self._hint_var(self.completion[i], times.completion[i])
            for q, s in enumerate(self.op_start[i]):
                self._hint_var(s, times.op_start[i][q])

    def _warm_answer(self, structure: Structure) -> Structure:
        """A warm structure as this model's answer (as it is, by default)."""
        return structure

    def error_makespan(self) -> float:
        """``E``: the largest rounding error one precedence path can collect."""
        raise NotImplementedError

    def error_span(self) -> float:
        """``E'``: the same for a path from a job start to a completion."""
        raise NotImplementedError

    def _search_strategy(self) -> None:
        """Branch on the operation starts, earliest first, smallest value first
        (the schedule-generation "set times" search), used by CP-SAT's
        ``fixed`` subsolver."""
        starts = [s for row in self.op_start for s in row]
        if starts:
            self.model.add_decision_strategy(
                starts, self.cp.CHOOSE_LOWEST_MIN, self.cp.SELECT_MIN_VALUE)

    # -- helpers ---
    def _hint_var(self, var: Any, value: float) -> None:
        if not isinstance(var, int):
            self.model.add_hint(var, round(value))

    def _check_time(self, i: int = 0) -> None:
        """Stop building (at job ``i``) if the deadline passed."""
        if self.deadline is not None:
            self.deadline.check(f"building the CP-SAT {self.problem} model")

    def _evaluate_warm(self, warm: Sequence[Structure]
                       ) -> list[tuple[int, Structure, Retimed]]:
        """Objective (model units) of each warm structure re-timed in ticks."""
        out = []
        timing = tick_lengths(self.data)
        for structure in warm:
            times = retime(self.data.instance, self.data.phases, structure, timing,
                           self.deadline)
            out.append((self._model_value(times), structure, times))
        return out

    def _model_value(self, times: Retimed) -> int:
        """The model's objective of integer ``times``."""
        if self.objective_name == "makespan":
            return int(max(times.completion))
        if self.objective_name in FLOW_OBJECTIVES:
            return flow_model_value(self, times.completion)
        value = self.scale
        for i in range(self.n):
            span = int(times.completion[i] - times.start[i])
            length = self.data.length_ticks[i]
            if length > 0:
                value = max(value, -(-self.scale * span // length))
        return value

    def _horizon(self) -> int:
        """Latest tick any event of some optimal solution needs.

        Makespan: the best warm value (or a serial schedule). Max stretch: the
        latest release plus the sum over jobs of the largest span the warm
        bound ``rho_ub`` allows (an optimal schedule without global idle time
        after the last release fits in it).
        """
        data = self.data
        latest = max(data.release, default=0)
        serial = latest + sum(data.serial_ticks(i) for i in range(self.n))
        extra = max((e for e in self._extra_start_ticks()), default=0)
        if self.objective_name in FLOW_OBJECTIVES:
            return flow_horizon(self, latest, extra)
        if self.objective_name == "makespan":
            if self.upper is not None:
                return int(self.upper)
            return int(serial + extra)
        rho = self.upper
        if rho is None:
            rho = self.scale * max(
                (-(-data.serial_ticks(i) // data.length_ticks[i])
                 for i in range(self.n) if data.length_ticks[i] > 0), default=1)
        spans = sum(max(data.serial_ticks(i), rho * data.length_ticks[i] // self.scale)
                    for i in range(self.n))
        return int(max(latest, extra) + spans)

    def _extra_start_ticks(self) -> list[int]:
        """Fixed job starts (pack starts of IO-SCHED), in ticks."""
        return []

    # -- shared variables and constraints ---
    def _operation_variables(self, presence: list[dict[int, Any]],
                             min_intervals: bool = False) -> None:
        """``s_iq`` and the (optional) I/O intervals of every operation.

        ``presence[i][k]`` is the literal "job ``i`` runs on ``k``" (``True``
        when job ``i`` has a single allowed partition). Creates
        ``op_start[i][q]``, ``op_end[i][q]`` (a linear expression) and
        ``io_intervals[k]``; with ``min_intervals``, ``io_min_intervals``
        holds one non-optional interval of the shortest length per operation
        (for redundant cumulatives).
        """
        model, data, horizon = self.model, self.data, self.horizon
        self.op_start: list[list[Any]] = []
        self.op_end: list[list[Any]] = []
        self.io_intervals: list[list[Any]] = [[] for _ in range(self.num_partitions)]
        self.io_min_intervals: list[Any] = []
        for i in range(self.n):
            self._check_time(i)
            starts, ends = [], []
            for q, lengths in enumerate(data.duration[i]):
                s = model.new_int_var(0, horizon, f"s[{i},{q}]")
                ks = data.allowed[i]
                if len(ks) == 1:
                    k = ks[0]
                    end = s + lengths[k]
                    self.io_intervals[k].append(model.new_fixed_size_interval_var(
                        s, lengths[k], f"io[{i},{q},{k}]"))
                else:
                    end = s + sum(lengths[k] * presence[i][k] for k in ks)
                    for k in ks:
                        self.io_intervals[k].append(
                            model.new_optional_fixed_size_interval_var(
                                s, lengths[k], presence[i][k], f"io[{i},{q},{k}]"))
                if min_intervals:
                    self.io_min_intervals.append(model.new_fixed_size_interval_var(
                        s, min(lengths.values()), f"io_min[{i},{q}]"))
                starts.append(s)
                ends.append(end)
            self.op_start.append(starts)
            self.op_end.append(ends)

    def _job_intervals(self) -> None:
        """``J_i = [S_i, C_i)``: the interval job ``i`` holds its nodes."""
        self.job_interval = []
        for i in range(self.n):
            size = self.model.new_int_var(0, self.horizon, f"span[{i}]")
            self.job_interval.append(self.model.new_interval_var(
                self.start[i], size, self.completion[i], f"job[{i}]"))

    def _phase_chain(self) -> None:
        """Phases of a job in order, compute never delayed after its I/O
        (rules 2-3).

        .. math::

            s_{i0} \\ge S_i + lag_{i0}, \\quad
            s_{iq} \\ge s_{i,q-1} + d_{i,q-1} + lag_{iq}, \\quad
            C_i = s_{i,last} + d_{i,last} + tail_i

        (``C_i = S_i + tail_i`` for a job without I/O). A compute phase may
        not wait, but an I/O phase may wait for the I/O node; the re-timer
        starts every compute phase when the previous I/O ends, which only
        moves later phases earlier.
        """
        model, data = self.model, self.data
        for i in range(self.n):
            previous = self.start[i]
            for q, s in enumerate(self.op_start[i]):
                model.add(s >= previous + data.lag[i][q])
                previous = self.op_end[i][q]
            model.add(self.completion[i] == previous + data.tail[i])

    def _named_resources(self) -> None:
        """Named renewable resources (rule 4, platform ``resources``):

        .. math:: \\sum_{i: S_i \\le t < C_i} a_{ir} \\le A_r \\quad \\forall r, t

        as one cumulative per resource over the job intervals. Amounts are
        scaled to integers by ``10^6`` (demands rounded up, capacity down;
        exact for amounts with up to 6 decimals).
        """
        instance = self.data.instance
        capacity = instance.platform.resource_capacity
        for name, cap in capacity.items():
            users = [(i, job.demand.get(name, 0.0))
                     for i, job in enumerate(instance.jobs)
                     if job.demand.get(name, 0.0) > 0]
            if not users:
                continue
            self.model.add_cumulative(
                [self.job_interval[i] for i, _ in users],
                [math.ceil(a * 10**6 - 1e-6) for _, a in users],
                math.floor(cap * 10**6 + 1e-6))

    def _symmetry_pairs(self) -> list[tuple[int, int]]:
        """Consecutive pairs of interchangeable jobs (same phases, nodes,
        release, demands, allowed partitions, predecessors; no successor)."""
        instance = self.data.instance
        referenced = {d for job in instance.jobs for d in job.after}
        groups: dict[tuple, list[int]] = {}
        for i, job in enumerate(instance.jobs):
            if job.id in referenced:
                continue
            key = (job.compute, job.io_volume, job.nodes, job.release, job.demands,
                   tuple(sorted(job.after)), self.data.allowed[i])
            groups.setdefault(key, []).append(i)
        return [(a, b) for members in groups.values()
                for a, b in itertools.pairwise(members)]

    # -- objective ---
    def _objective(self) -> None:
        """Makespan: minimise ``M`` with ``M >= C_i``. Max stretch: minimise
        ``rho`` (units of ``1/SCALE``) with

        .. math:: SCALE \\cdot (C_i - S_i) \\le \\rho \\, L_i, \\quad
                  L_i = \\lfloor T_i / tick \\rfloor

        The domain of the objective variable starts at the combinatorial bound
        (in model units) so CP-SAT stops when an incumbent reaches it, and
        ends at the best warm value.
        """
        model, data = self.model, self.data
        tick = data.grid.tick
        if self.objective_name in FLOW_OBJECTIVES:
            flow_objective(self)
        elif self.objective_name == "makespan":
            low = max(0, math.ceil(self.continuous_lower / tick - 1e-6))
            high = self.horizon
            low = min(low, high)
            self.obj_low = low
            self.obj = model.new_int_var(low, high, "makespan")
            for i in range(self.n):
                model.add(self.obj >= self.completion[i])
        else:
            low = max(self.scale, math.ceil(self.scale * self.continuous_lower - 1e-6))
            stretch_objective(self, low, self.start, "rho")
        model.minimize(self.obj)

    def continuous_bound(self, bound: int) -> float:
        """A valid lower bound of the continuous problem from a proven model
        bound (``models/io-sched-cpsat.md``, "Time scaling")."""
        data = self.data
        tick = data.grid.tick
        if self.objective_name in FLOW_OBJECTIVES:
            return flow_continuous_bound(self, bound)
        if self.objective_name == "makespan":
            return bound * tick - self.error_makespan()
        return stretch_bound(self, bound, self.error_span())

    # -- solve ---
    def export(self, path: str) -> None:
        """Write the CP-SAT model (``.pb`` binary or ``.pbtxt`` text proto)."""
        if not (path.endswith(".pb") or path.endswith(".pbtxt")):
            raise OptionError(f"export={path!r}: CP-SAT writes .pb or .pbtxt "
                              "(.lp / .mps need solver cbc or highs)")
        if not self.model.export_to_file(path):
            raise SolverError(f"export={path!r}: CP-SAT could not write the model")

    def solve(self, deadline: Deadline) -> Outcome:
        """Run the one solve loop with the time left on ``deadline``, re-time
        its answer at the true lengths, convert its bound
        (:func:`opt_sched.exact.cpsat.search.minimise`)."""
        search = minimise(
            self.model, self.obj, self.settings, deadline, self._make_solver,
            lower=self.obj_low, incumbent=self.upper if self.warm else None,
            ladder_params=self._ladder_params(), values=self._progress_values)
        if search.bounds.infeasible and self.warm:
            raise SolverError(f"CP-SAT: {self.problem} model infeasible although a "
                              "warm schedule fits it (a bug)")
        return self._outcome(search)

    def _progress_values(self, search: BoundSearch) -> dict[str, float]:
        """The proven bound in the objective's units and, for the makespan,
        the incumbent of the model (its durations rounded up to the grid: the
        schedule re-timed at the true lengths ends no later), for the
        progress reports."""
        values = {"bound": max(self.continuous_lower,
                               self.continuous_bound(search.lower))}
        if search.upper is not None and self.objective_name == "makespan":
            values["incumbent"] = search.upper * self.data.grid.tick
        return values

    def _make_solver(self, time_limit: float, params: Mapping[str, Any]) -> Any:
        """A solver for one phase: our portfolio, the phase's ``params``, then
        the user's."""
        return make_solver(self.settings, time_limit,
                           default_portfolio(self.settings.num_workers), params)

    def _ladder_params(self) -> dict[str, Any]:
        """On 2 workers the ladder's questions run the ``no_lp`` full search
        (``probe_subsolvers``): measured on the IO-SCHED benchmark, it answers
        "``<= L``?" in 0.1 s where ``reduced_costs`` needs 5 s or more
        (``models/io-sched-cpsat.md``). A user portfolio replaces it."""
        if self.settings.num_workers == 2 and not self.settings.user_portfolio:
            return {"subsolvers": list(self.settings.probe_subsolvers)}
        return {}

    def _outcome(self, result: Search) -> Outcome:
        """The answer in continuous time: re-timed schedule and converted bound."""
        data = self.data
        search = result.bounds
        info: dict[str, Any] = {
            "tick": data.grid.tick, "exact_grid": data.grid.exact,
            "horizon_ticks": self.horizon, "warm_value": self.upper, **result.info}
        if search.infeasible:
            info["cpsat_status"] = "INFEASIBLE"
            return Outcome(SolveStatus.INFEASIBLE, None, None, info)
        lower = max(self.continuous_lower, self.continuous_bound(search.lower))
        if search.upper is None:
            info["cpsat_status"] = "UNKNOWN"
            return Outcome(SolveStatus.TIMEOUT_NO_SOLUTION, None, lower, info)
        name = "OPTIMAL" if search.closed else "FEASIBLE"
        info["model_objective"] = search.upper
        if search.solver is None:
            # no better incumbent within the limit: the best warm schedule
            best = min(self.warm, key=lambda item: item[0])
            structure = self._warm_answer(best[1])
            info["incumbent"] = "warm"
        else:
            structure = self._structure(search.solver)
        info["cpsat_status"] = name
        info["model_bound"] = search.lower
        times = retime(data.instance, data.phases, structure,
                       continuous_lengths(data.instance, data.phases))
        schedule = to_schedule(data.instance, data.phases, structure, times,
                               method=f"cpsat/{self.problem}", info={
                                   "tick": data.grid.tick,
                                   "cpsat_status": name})
        status = SolveStatus.OPTIMAL if search.closed else SolveStatus.FEASIBLE
        return Outcome(status, schedule, lower, info)

    def _io_order(self, solver: Any, partition: Sequence[int]
                  ) -> tuple[tuple[tuple[int, int], ...], ...]:
        """Operations of every I/O node sorted by their solver start."""
        ops: list[list[tuple[int, int, int]]] = [[] for _ in range(self.num_partitions)]
        for i in range(self.n):
            for q, s in enumerate(self.op_start[i]):
                ops[partition[i]].append((solver.value(s), i, q))
        return tuple(tuple((i, q) for _, i, q in sorted(items)) for items in ops)
