"""CP-SAT formulation of the average-bandwidth planning model
(``models/planning.md``): a multi-resource project scheduling problem (RCPSP
with releases) on the integer data of :class:`~.model.TickData`.

The model follows OR-Tools' ``examples/python/rcpsp_sat.py``: one interval per
job, one cumulative per resource that also holds a *makespan interval*
``[C, H + 1)`` demanding the full capacity (so the cumulative propagation
pushes the makespan), a horizon ``H`` from the serial schedule-generation
scheme, the makespan variable bounded below by the critical path and energy
bounds, and ``push_all_tasks_toward_start``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

from ...errors import OptionError, SolverError
from .model import TickData

__all__ = ["CpSatOptions", "PlanSolution", "PlanningCpSat"]


@dataclass(frozen=True)
class CpSatOptions:
    """Settings of the CP-SAT planning solve (all exposed by ``solve_planning``).

    ``no_overlap``: add ``add_no_overlap`` on greedy cliques of pairwise
    incompatible jobs (their demands exceed a capacity together); redundant.
    ``hint``: give the serial-SGS plan as a solution hint.
    ``push_toward_start``: CP-SAT's ``push_all_tasks_toward_start``.
    ``extra``: further ``SatParameters`` fields by name.
    ``lb_phase``, ``lb_phase_start``: the destructive lower-bounding phase of
    :meth:`PlanningCpSat.solve` and the share of the time limit after which
    it takes over.
    """

    time_limit: float = 60.0
    seed: int = 0
    num_workers: int = 2
    no_overlap: bool = True
    hint: bool = False
    push_toward_start: bool = True
    log: bool = False
    extra: dict[str, Any] = field(default_factory=dict)
    lb_phase: bool = True
    lb_phase_start: float = 0.3


@dataclass
class PlanSolution:
    """A solved plan in ticks: status (of the tick model), starts and bound."""

    status: str  # "optimal" | "feasible" | "infeasible" | "unknown"
    starts: list[int] | None
    objective: int | None
    bound: int | None
    wall_time: float
    info: dict[str, Any] = field(default_factory=dict)


class PlanningCpSat:
    """The CP-SAT model of the planning problem on tick data.

    Parameters
    ----------
    ticks
        The integer problem.
    horizon
        An upper bound ``H`` on the optimal makespan (in ticks), e.g. from the
        serial SGS.
    lower_bound
        A proven lower bound ``L`` on the makespan (in ticks).
    incumbent
        A feasible plan of makespan ``<= H`` (used as a hint when asked).
    """

    def __init__(self, ticks: TickData, horizon: int, lower_bound: int = 0,
                 incumbent: list[int] | None = None,
                 options: CpSatOptions | None = None) -> None:
        from ortools.sat.python import cp_model

        self._cp = cp_model
        self.ticks = ticks
        self.horizon = int(horizon)
        self.lower_bound = min(int(lower_bound), self.horizon)
        self.incumbent = incumbent
        self.options = options or CpSatOptions()
        self.model = cp_model.CpModel()
        self.model.name = ticks.data.instance.name
        self._variables()
        self._constraints()
        self._objective()

    # -- variables -------------------------------------------------------
    def _variables(self) -> None:
        """Start ``s_i in [es_i, H - q_i]`` (heads and tails of the dependency
        graph), the interval ``[s_i, s_i + d_i)`` and the makespan
        ``C in [L, H]`` with its interval ``[C, H + 1)``.
        """
        t = self.ticks
        heads, tails = t.heads(), t.tails()
        model = self.model
        self.starts = []
        self.intervals = []
        for i in range(t.num_jobs):
            latest = max(heads[i], self.horizon - tails[i])
            start = model.new_int_var(heads[i], latest, f"start_{i}")
            self.starts.append(start)
            self.intervals.append(model.new_fixed_size_interval_var(
                start, t.durations[i], f"job_{i}"))
        self.makespan = model.new_int_var(self.lower_bound, self.horizon, "makespan")
        size = model.new_int_var(1, self.horizon + 1, "makespan_size")
        self.makespan_interval = model.new_interval_var(
            self.makespan, size, model.new_constant(self.horizon + 1),
            "makespan_interval")
        if self.options.hint and self.incumbent is not None:
            for var, value in zip(self.starts, self.incumbent):
                model.add_hint(var, value)

    # -- constraints -----------------------------------------------------
    def _constraints(self) -> None:
        # Order: time windows first, then the resources, then redundant cuts.
        self._releases()
        self._precedences()
        self._makespan()
        self._resources()
        if self.options.no_overlap:
            self._disjunctions()

    def _releases(self) -> None:
        """Releases: :math:`s_i \\ge \\rho_i` (also in the start domains)."""
        for i, start in enumerate(self.starts):
            self.model.add(start >= self.ticks.releases[i])

    def _precedences(self) -> None:
        """Dependencies: :math:`s_j \\ge s_i + d_i` for every ``i in pred(j)``."""
        t = self.ticks
        for j, preds in enumerate(t.predecessors):
            for i in preds:
                self.model.add(self.starts[j] >= self.starts[i] + t.durations[i])

    def _makespan(self) -> None:
        """Makespan: :math:`C \\ge s_i + d_i` for every job without successor."""
        t = self.ticks
        for i, succ in enumerate(t.successors()):
            if not succ:
                self.model.add(self.makespan >= self.starts[i] + t.durations[i])

    def _resources(self) -> None:
        """Renewable resources: for every resource ``r`` and tick ``tau``,

        .. math:: \\sum_{i : s_i \\le \\tau < s_i + d_i} u'_{ir}
                  + C'_r [\\tau \\ge C] \\le C'_r

        (``add_cumulative``; the makespan interval fills the capacity after
        ``C``).
        """
        for res in self.ticks.resources:
            jobs = [i for i, u in enumerate(res.demands)
                    if u > 0 and self.ticks.durations[i] > 0]
            if not jobs or sum(res.demands[i] for i in jobs) <= res.capacity:
                continue
            self.model.add_cumulative(
                [self.intervals[i] for i in jobs] + [self.makespan_interval],
                [res.demands[i] for i in jobs] + [res.capacity], res.capacity)

    def _disjunctions(self) -> None:
        """Redundant: jobs ``i, j`` with :math:`u'_{ir} + u'_{jr} > C'_r` for
        some ``r`` never overlap; on greedy cliques ``K`` of such pairs,
        ``no_overlap(K)``.
        """
        t = self.ticks
        n = t.num_jobs
        clash = [[False] * n for _ in range(n)]
        for res in t.resources:
            big = [i for i, u in enumerate(res.demands)
                   if u > 0 and t.durations[i] > 0]
            for a in big:
                for b in big:
                    if a < b and res.demands[a] + res.demands[b] > res.capacity:
                        clash[a][b] = clash[b][a] = True
        degree = [sum(row) for row in clash]
        covered: set[tuple[int, int]] = set()
        for seed in sorted(range(n), key=lambda i: -degree[i] * t.durations[i]):
            clique = [seed]
            for other in sorted(range(n), key=lambda i: -t.durations[i]):
                if other != seed and all(clash[other][c] for c in clique):
                    clique.append(other)
            pairs = {(min(a, b), max(a, b)) for a in clique for b in clique if a != b}
            if len(clique) >= 3 and not pairs <= covered:
                covered |= pairs
                self.model.add_no_overlap([self.intervals[i] for i in clique])

    # -- objective -------------------------------------------------------
    def _objective(self) -> None:
        """Minimise the makespan :math:`C` (in ticks)."""
        self.model.minimize(self.makespan)

    # -- solving ---------------------------------------------------------
    def _solver(self, time_limit: float, **overrides: Any):
        """A configured ``CpSolver`` (options, then ``overrides``)."""
        cp = self._cp
        opts = self.options
        solver = cp.CpSolver()
        params = solver.parameters
        params.max_time_in_seconds = max(0.0, float(time_limit))
        params.num_workers = int(opts.num_workers)
        params.random_seed = int(opts.seed)
        params.log_search_progress = bool(opts.log)
        params.push_all_tasks_toward_start = bool(opts.push_toward_start)
        for key, value in {**opts.extra, **overrides}.items():
            try:
                field_ = getattr(params, key)
            except AttributeError:
                raise OptionError(f"cpsat parameter {key!r} does not exist") from None
            if hasattr(field_, "append") and isinstance(value, (list, tuple)):
                field_.extend(value)
            else:
                setattr(params, key, value)
        return solver

    def solve(self) -> PlanSolution:
        r"""Run CP-SAT in two phases; return the plan in ticks.

        1. *Optimise* for ``lb_phase_start`` (a share, 30 % by default) of
           the time limit, or until optimal.
        2. *Destructive lower bounding* with the rest of the time, when phase 1
           has an incumbent ``U`` but no proof: ask CP-SAT whether a plan of
           makespan :math:`C \le U - 1` exists, with the strong disjunctive
           propagation that this yes/no question rewards. *Infeasible* proves
           ``U`` optimal (the objective is an integer number of ticks); a
           plan found becomes the new incumbent and the question is asked
           again. The best objective bound of phase 1 stays the bound when
           time runs out. On the PSPLIB j30 instances that CP-SAT leaves at
           the energy bound, this closes most of them in seconds.
        """
        cp = self._cp
        opts = self.options
        total = max(0.0, float(opts.time_limit))
        first = total if not opts.lb_phase else total * opts.lb_phase_start
        began = time.perf_counter()
        solver = self._solver(first)
        code = solver.solve(self.model)
        info = {"cpsat_status": solver.status_name(code),
                "cpsat_wall_time": solver.wall_time,
                "cpsat_branches": solver.num_branches}
        if code == cp.MODEL_INVALID:
            raise SolverError(f"cpsat: model invalid ({self.model.validate()})")
        if code == cp.INFEASIBLE:
            return PlanSolution("infeasible", None, None, None,
                                time.perf_counter() - began, info)
        bound = _ceil_bound(solver.best_objective_bound)
        if code not in (cp.OPTIMAL, cp.FEASIBLE):
            return PlanSolution("unknown", None, None, bound,
                                time.perf_counter() - began, info)
        starts = [int(solver.value(s)) for s in self.starts]
        objective = int(solver.objective_value)
        status = "optimal" if code == cp.OPTIMAL else "feasible"
        if status == "feasible" and opts.lb_phase:
            starts, objective, bound, status = self._lower_bounding(
                starts, objective, bound, total - (time.perf_counter() - began), info)
        return PlanSolution(status, starts, objective, bound,
                            time.perf_counter() - began, info)

    def _lower_bounding(self, starts: list[int], objective: int, bound: int,
                        remaining: float, info: dict[str, Any]
                        ) -> tuple[list[int], int, int, str]:
        r"""Phase 2 of :meth:`solve`: bisect on "is there a plan with
        :math:`C \le T`?" between the proven bound ``L`` and the incumbent
        ``U``. *Infeasible* at ``T`` proves :math:`L \ge T + 1`; a plan found
        lowers ``U``. A probe that times out stops the bisection, which then
        continues upwards from ``L`` (the easiest questions) while time lasts.
        """
        cp = self._cp
        rounds = 0
        ascending = False
        while remaining > 0.05 and bound < objective:
            rounds += 1
            target = bound if ascending else (bound + objective - 1) // 2
            clock = time.perf_counter()
            probe = self.model.clone()
            probe.clear_objective()
            makespan = probe.get_int_var_from_proto_index(self.makespan.index)
            probe.add(makespan <= target)
            cap = remaining if ascending else max(1.0, remaining / 3)
            solver = self._solver(min(cap, remaining),
                                  use_strong_propagation_in_disjunctive=True)
            code = solver.solve(probe)
            remaining -= time.perf_counter() - clock
            if code == cp.INFEASIBLE:
                bound = target + 1
            elif code in (cp.OPTIMAL, cp.FEASIBLE):
                starts = [int(solver.value(probe.get_int_var_from_proto_index(
                    s.index))) for s in self.starts]
                objective = int(solver.value(makespan))
            elif ascending:
                break
            else:
                ascending = True
        info["lb_phase_rounds"] = rounds
        status = "optimal" if bound >= objective else "feasible"
        return starts, objective, bound, status


def _ceil_bound(value: float) -> int:
    """The proven bound on an integer objective, rounded up (float noise aside)."""
    return math.ceil(value - 1e-6)
