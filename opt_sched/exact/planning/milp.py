"""Time-indexed MILP of the average-bandwidth planning model
(``models/planning.md``; Pritsker, Watters and Wolfe 1969, with the
disaggregated precedences of Christofides, Alvarez-Valdes and Tamarit 1987).

Binary ``x_{it} = 1`` iff job ``i`` starts at tick ``t``, for ``t`` in its
window ``W_i = [es_i, H - q_i]`` (heads ``es`` and tails ``q`` of the
dependency graph, ``H`` an upper bound from the serial SGS). Times are ticks
(``TickData``), but resource amounts are the real ones: a MILP needs no
integer demands, so the resource constraints are exact. The model is built
with PuLP and solved by :func:`opt_sched.exact.milp.backend.solve_milp` (CBC
or HiGHS). It is weaker than CP-SAT and is meant for small instances and for
``.lp`` / ``.mps`` export.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, ClassVar

from ...errors import OptionError
from ..cpsat.settings import check_policy, check_resource_precision
from ..deadline import Deadline
from ..milp.backend import MilpSettings, load_pulp, solve_milp, solver_time
from .data import DEFAULT_RESOURCE_PRECISION, PlanSolution, TickData

__all__ = ["DEFAULT_MILP_HORIZON_TICKS", "MAX_DISAGGREGATED", "PlanningMilp",
           "PlanningMilpSettings"]

@dataclass(frozen=True)
class PlanningMilpSettings(MilpSettings):
    """The options record of this model: :class:`MilpSettings`, plus
    ``resolution`` (seconds per tick; ``None``: about
    :data:`DEFAULT_MILP_HORIZON_TICKS` ticks), ``resource_precision`` and
    ``policy`` (as for the CP-SAT model). ``export`` may also be ``.pb`` /
    ``.pbtxt`` (the CP-SAT planning model)."""

    resolution: float | None = None
    resource_precision: float = DEFAULT_RESOURCE_PRECISION
    policy: str = "fifo"

    EXPORT_SUFFIXES: ClassVar[tuple[str, ...]] = (".lp", ".mps", ".pb", ".pbtxt")

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.resolution is not None and (
                isinstance(self.resolution, bool)
                or not isinstance(self.resolution, (int, float))
                or not math.isfinite(self.resolution) or self.resolution <= 0):
            raise OptionError(f"resolution={self.resolution!r} must be a number > 0")
        check_resource_precision(self.resource_precision)
        check_policy(self.policy)


DEFAULT_MILP_HORIZON_TICKS = 200
"""Default time resolution of the MILP (see :meth:`PlanningData.to_ticks`):
a time-indexed model has one binary per job and tick."""

MAX_DISAGGREGATED = 20_000
"""Above this many disaggregated precedence rows, use the aggregated form."""


class PlanningMilp:
    """The time-indexed MILP of the planning problem on tick data.

    Parameters
    ----------
    ticks
        The integer time data (resources are read in real units from
        ``ticks.data.resources``).
    horizon
        An upper bound ``H`` on the optimal makespan, in ticks.
    lower_bound
        A proven lower bound ``L`` on the makespan, in ticks.
    incumbent
        A feasible plan of makespan ``<= H``, set as the initial values.
    """

    def __init__(self, ticks: TickData, horizon: int, lower_bound: int = 0,
                 incumbent: list[int] | None = None) -> None:
        self._pulp = load_pulp()
        self.ticks = ticks
        self.horizon = int(horizon)
        self.lower_bound = min(int(lower_bound), self.horizon)
        self.incumbent = incumbent
        self.prob = self._pulp.LpProblem(_safe(ticks.data.instance.name) or "plan",
                                         self._pulp.LpMinimize)
        self._variables()
        self._constraints()
        self._objective()

    # -- variables -------------------------------------------------------
    def _variables(self) -> None:
        """:math:`x_{it} \\in \\{0, 1\\}` for ``t in W_i``; makespan
        :math:`C \\in [L, H]`."""
        pulp = self._pulp
        t = self.ticks
        heads, tails = t.heads(), t.tails()
        self.windows = [range(heads[i], max(heads[i], self.horizon - tails[i]) + 1)
                        for i in range(t.num_jobs)]
        new = getattr(self.prob, "add_variable", None)
        if new is None:  # PuLP < 3.3
            def new(name: str, lowBound: float | None = None,
                    upBound: float | None = None, cat: str = "Continuous") -> Any:
                return pulp.LpVariable(name, lowBound, upBound, cat=cat)
        self.x = [{tau: new(f"x_{i}_{tau}", cat="Binary")
                   for tau in self.windows[i]} for i in range(t.num_jobs)]
        self.makespan = new("makespan", lowBound=self.lower_bound,
                            upBound=self.horizon)
        if self.incumbent is not None:
            for i, start in enumerate(self.incumbent):
                for tau, var in self.x[i].items():
                    var.setInitialValue(1 if tau == start else 0)
            span = max(s + d for s, d in zip(self.incumbent, t.durations))
            self.makespan.setInitialValue(span)

    def start_expr(self, i: int) -> Any:
        """:math:`s_i = \\sum_t t x_{it}`."""
        return self._pulp.lpSum(tau * var for tau, var in self.x[i].items())

    # -- constraints -----------------------------------------------------
    def _constraints(self) -> None:
        # Order: each job starts once, then time relations, then resources.
        self._assignment()
        self._precedences()
        self._makespan()
        self._resources()

    def _assignment(self) -> None:
        """Each job starts once: :math:`\\sum_{t \\in W_i} x_{it} = 1`
        (releases are in the windows)."""
        for i, row in enumerate(self.x):
            self.prob += self._pulp.lpSum(row.values()) == 1, f"assign_{i}"

    def _precedences(self) -> None:
        """Disaggregated dependencies, for ``i in pred(j)`` and
        ``t in [es_j, H - q_j)``:

        .. math:: \\sum_{\\tau \\le t} x_{j\\tau}
                  \\le \\sum_{\\tau \\le t - d_i} x_{i\\tau}

        When the windows are long (more than :data:`MAX_DISAGGREGATED` rows
        in all) the aggregated form :math:`s_j \\ge s_i + d_i` is used.
        """
        lp_sum = self._pulp.lpSum
        d = self.ticks.durations
        arcs = [(i, j) for j, preds in enumerate(self.ticks.predecessors)
                for i in preds]
        rows = sum(len(self.windows[j]) for _, j in arcs)
        if rows > MAX_DISAGGREGATED:
            for i, j in arcs:
                self.prob += (self.start_expr(j) >= self.start_expr(i) + d[i],
                              f"prec_{i}_{j}")
            return
        for i, j in arcs:
            window = self.windows[j]
            for t in window[:-1]:
                self.prob += (
                    lp_sum(v for tau, v in self.x[j].items() if tau <= t)
                    <= lp_sum(v for tau, v in self.x[i].items()
                              if tau <= t - d[i])), f"prec_{i}_{j}_{t}"

    def _makespan(self) -> None:
        """:math:`C \\ge \\sum_t (t + d_i) x_{it}` for every job without
        successor."""
        d = self.ticks.durations
        for i, succ in enumerate(self.ticks.successors()):
            if not succ:
                self.prob += self.makespan >= self.start_expr(i) + d[i], f"cmax_{i}"

    def _resources(self) -> None:
        """Renewable resources (real amounts), for every ``r`` and tick ``t``:

        .. math:: \\sum_i u_{ir} \\sum_{t - d_i < \\tau \\le t} x_{i\\tau}
                  \\le C_r
        """
        lp_sum = self._pulp.lpSum
        d = self.ticks.durations
        for r, res in enumerate(self.ticks.data.resources):
            jobs = [i for i, u in enumerate(res.demands) if u > 0 and d[i] > 0]
            if sum(res.demands[i] for i in jobs) <= res.capacity:
                continue
            for t in range(self.horizon):
                terms = [res.demands[i] * self.x[i][tau] for i in jobs
                         for tau in range(max(t - d[i] + 1, self.windows[i].start),
                                          min(t, self.windows[i].stop - 1) + 1)]
                if terms:
                    self.prob += lp_sum(terms) <= res.capacity, f"res_{r}_{t}"

    # -- objective -------------------------------------------------------
    def _objective(self) -> None:
        """Minimise the makespan :math:`C` (ticks)."""
        self.prob += self.makespan

    # -- solving ---------------------------------------------------------
    def solve(self, settings: MilpSettings, deadline: Deadline | None = None
              ) -> PlanSolution:
        """Solve with CBC or HiGHS through the shared MILP backend, within the
        time left on ``deadline``."""
        if deadline is not None:
            settings = dataclasses.replace(settings, time_limit=solver_time(deadline))
        out = solve_milp(self.prob, settings)
        info = {"milp_status": out.solver_status, "milp_mode": out.mode,
                "milp_bound_source": out.bound_source}
        bound = None if out.bound is None else _ceil_tick(out.bound)
        status = str(out.status)
        if out.status.value in ("optimal", "feasible") and out.values:
            starts = []
            for i, row in enumerate(self.x):
                chosen = max(row, key=lambda tau, i=i: out.values.get(f"x_{i}_{tau}",
                                                                      0.0))
                starts.append(int(chosen))
            span = max(s + dd for s, dd in zip(starts, self.ticks.durations))
            if status == "optimal":
                bound = span if bound is None else max(bound, span)
            return PlanSolution(status, starts, span, bound, out.wall_time, info)
        if status == "infeasible":
            return PlanSolution("infeasible", None, None, None, out.wall_time, info)
        return PlanSolution("unknown", None, None, bound, out.wall_time, info)


def _ceil_tick(value: float) -> int:
    """A bound in ticks, rounded up (the tick makespan is an integer)."""
    near = round(value)
    return int(near) if abs(value - near) <= 1e-6 else math.ceil(value)


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c == "_" else "_" for c in name)
