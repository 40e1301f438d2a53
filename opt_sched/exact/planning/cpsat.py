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
    ``lb_phase``, ``lb_phase_start``: the "makespan <= T?" questions of
    :meth:`PlanningCpSat.solve` (bound ladder, then bisection) and the share
    of the time limit after which the bisection takes over from the
    optimisation (0.8: with two full searches the optimisation proves as
    well as the questions do, and keeps what it learned; see
    ``models/planning.md``).
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
    lb_phase_start: float = 0.8


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
        for key, value in {**self.default_params(), **overrides,
                           **opts.extra}.items():
            try:
                field_ = getattr(params, key)
            except AttributeError:
                raise OptionError(f"cpsat parameter {key!r} does not exist") from None
            if hasattr(field_, "append") and isinstance(value, (list, tuple)):
                field_.extend(value)
            else:
                setattr(params, key, value)
        return solver

    def default_params(self) -> dict[str, Any]:
        """Parameters applied under the user's ``extra``: on 2 workers (and no
        portfolio chosen by the user) *two* full CDCL searches, ``max_lp``
        and ``no_lp``, without feasibility jump and LNS.

        By default CP-SAT gives one of 2 workers to a full search and the
        other to first-solution and LNS helpers, which cannot prove anything.
        Measured on the six PSPLIB j30 instances whose optimum the energy
        bound misses by 1-3 (``models/planning.md``), the question "``C <=
        opt - 1``?" takes 3.7-23 s with this portfolio against 12.7-30+ s
        with the default; the easy instances are unaffected (median 0.023 s).
        """
        chosen = any(key in self.options.extra
                     for key in ("subsolvers", "extra_subsolvers"))
        if self.options.num_workers != 2 or chosen:
            return {}
        return {"subsolvers": ["max_lp", "no_lp"], "num_full_subsolvers": 2,
                "use_feasibility_jump": False, "use_lns": False}

    def solve(self) -> PlanSolution:
        r"""Run CP-SAT in three phases; return the plan in ticks.

        With ``lb_phase`` (the default), as for the IO-SCHED models
        (:mod:`opt_sched.exact.cpsat.probing`, ``models/planning.md``):

        1. *bound ladder*: "is there a plan with :math:`C \le T`?" for
           ``T = L, L + 1, ...`` from the critical-path/energy bound ``L``,
           each question at most ``max(0.5 s, 2 %)`` of the time limit, for
           at most 15 % of it, while the answers are *infeasible*;
        2. *optimise* until ``lb_phase_start`` (80 %) of the time limit;
        3. *bisection* with the rest of the time: ``C <= U - 1`` first (with
           half of it), then halfway between the proven bound and the
           incumbent ``U``. Every proof is an *infeasible* answer of CP-SAT
           on an integer makespan.
        """
        from ..cpsat.probing import BoundSearch, ObjectiveProbe

        cp = self._cp
        opts = self.options
        total = max(0.0, float(opts.time_limit))
        began = time.perf_counter()

        def elapsed() -> float:
            return time.perf_counter() - began

        search = BoundSearch(lower=self.lower_bound)
        if self.incumbent is not None:  # the serial-SGS plan, of makespan H
            search.offer(self.horizon, None)
        probe = None
        if opts.lb_phase:
            probe = ObjectiveProbe(
                self.model, self.makespan.index,
                lambda limit, params: self._solver(limit, **params),
                {"use_strong_propagation_in_disjunctive": True})
            probe.ladder(search, 0.15 * total, probe_limit=max(0.5, 0.02 * total))
        info: dict[str, Any] = {}
        solver = search.solver
        if not search.closed:
            if search.lower > self.lower_bound:
                self.model.add(self.makespan >= search.lower)
            first = total if not opts.lb_phase else total * opts.lb_phase_start
            solver = self._solver(max(0.05, first - elapsed()))
            code = solver.solve(self.model)
            if code == cp.MODEL_INVALID:
                raise SolverError(f"cpsat: model invalid ({self.model.validate()})")
            info.update(cpsat_status=solver.status_name(code),
                        cpsat_wall_time=solver.wall_time,
                        cpsat_branches=solver.num_branches)
            if code == cp.INFEASIBLE:
                return PlanSolution("infeasible", None, None, None, elapsed(), info)
            search.record(solver, code)
        if probe is not None and search.upper is not None and not search.closed:
            probe.bisect(search, total - elapsed())
        if search.rounds:
            info.update(lb_phase_rounds=search.rounds, probes=search.answers)
        if search.upper is None:
            return PlanSolution("unknown", None, None, search.lower, elapsed(), info)
        if search.solver is None:
            assert self.incumbent is not None
            starts = list(self.incumbent)
            info["plan_source"] = "sgs"
        else:
            starts = [int(search.solver.value(s)) for s in self.starts]
        status = "optimal" if search.closed else "feasible"
        return PlanSolution(status, starts, search.upper, search.lower, elapsed(), info)
