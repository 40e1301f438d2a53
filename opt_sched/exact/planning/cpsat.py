"""CP-SAT formulation of the average-bandwidth planning model
(``models/planning.md``): a multi-resource project scheduling problem (RCPSP
with releases) on the integer data of :class:`~.data.TickData`.

The model follows OR-Tools' ``examples/python/rcpsp_sat.py``: one interval per
job, one cumulative per resource that also holds a *makespan interval*
``[C, H + 1)`` demanding the full capacity (so the cumulative propagation
pushes the makespan), a horizon ``H`` from the serial schedule-generation
scheme, the makespan variable bounded below by the critical path and energy
bounds, and ``push_all_tasks_toward_start``.
"""

from __future__ import annotations

from typing import Any

from ortools.sat.python import cp_model

from ..cpsat.search import minimise
from ..cpsat.settings import PlanningCpsatSettings, make_solver
from ..deadline import Deadline, Stopwatch
from .data import PlanSolution, TickData

__all__ = ["PlanningCpsat"]


class PlanningCpsat:
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
    settings
        The options record.
    """

    def __init__(self, ticks: TickData, horizon: int, lower_bound: int = 0,
                 incumbent: list[int] | None = None,
                 settings: PlanningCpsatSettings | None = None) -> None:
        self._cp = cp_model
        self.ticks = ticks
        self.horizon = int(horizon)
        self.lower_bound = min(int(lower_bound), self.horizon)
        self.incumbent = incumbent
        self.settings = settings or PlanningCpsatSettings()
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
        if self.settings.hints and self.incumbent is not None:
            for var, value in zip(self.starts, self.incumbent):
                model.add_hint(var, value)

    # -- constraints -----------------------------------------------------
    def _constraints(self) -> None:
        # Order: time windows first, then the resources, then redundant cuts.
        self._releases()
        self._precedences()
        self._makespan()
        self._resources()
        if self.settings.no_overlap:
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

    # -- solving -------------------------------------------------------
    def _solver(self, time_limit: float, params: dict[str, Any] | None = None) -> Any:
        """A configured ``CpSolver``: our portfolio (:meth:`default_params`),
        ``push_all_tasks_toward_start``, the phase's ``params``, the user's."""
        return make_solver(self.settings, time_limit, self.default_params(), {
            "push_all_tasks_toward_start": self.settings.push_toward_start,
            **(params or {})})

    def default_params(self) -> dict[str, Any]:
        """Our portfolio on 2 workers (unless the user picks one): *two* full
        CDCL searches, ``max_lp`` and ``no_lp``, without feasibility jump and
        LNS.

        By default CP-SAT gives one of 2 workers to a full search and the
        other to first-solution and LNS helpers, which cannot prove anything.
        Measured on the six PSPLIB j30 instances whose optimum the energy
        bound misses by 1-3 (``models/planning.md``), the question "``C <=
        opt - 1``?" takes 3.7-23 s with this portfolio against 12.7-30+ s
        with the default; the easy instances are unaffected (median 0.023 s).
        """
        if self.settings.num_workers != 2 or self.settings.user_portfolio:
            return {}
        return {"subsolvers": ["max_lp", "no_lp"], "num_full_subsolvers": 2,
                "use_feasibility_jump": False, "use_lns": False}

    def solve(self, deadline: Deadline) -> PlanSolution:
        """The one solve loop (:func:`opt_sched.exact.cpsat.search.minimise`)
        from the critical-path/energy bound ``L`` and the serial-SGS plan
        (of makespan ``H``) with the time left on ``deadline``; the plan in
        ticks."""
        clock = Stopwatch()
        search = minimise(self.model, self.makespan, self.settings, deadline,
                          self._solver, lower=self.lower_bound,
                          incumbent=self.horizon if self.incumbent is not None
                          else None)
        bounds = search.bounds
        info = dict(search.info)
        if bounds.infeasible:
            return PlanSolution("infeasible", None, None, None, clock(), info)
        if bounds.upper is None:
            return PlanSolution("unknown", None, None, bounds.lower, clock(), info)
        if bounds.solver is None:
            assert self.incumbent is not None
            starts = list(self.incumbent)
            info["plan_source"] = "sgs"
        else:
            starts = [int(bounds.solver.value(s)) for s in self.starts]
        status = "optimal" if bounds.closed else "feasible"
        return PlanSolution(status, starts, bounds.upper, bounds.lower, clock(), info)
