"""CP-SAT feasibility model "every job of one I/O node completes by its
deadline" (IO-SCHED, one pack).

Data in ticks (:class:`.NodeGrid`): operation ``(j, q)`` with duration
``p_jq``, compute ``lag_jq`` before it, ``tail_j`` after the last one, pack
start ``t``; deadlines ``D_j``. Variables ``s_jq`` with the static window

.. math::

    h_{jq} = t + \\sum_{q' \\le q} lag_{jq'} + \\sum_{q' < q} p_{jq'}
    \\;\\le\\; s_{jq} \\;\\le\\; D_j - \\text{rest}_{jq},
    \\qquad \\text{rest}_{jq} = \\sum_{q' \\ge q} p_{jq'}
    + \\sum_{q' > q} lag_{jq'} + tail_j .

Constraints (methods of :class:`DeadlineModel`, in order):

1. ``_chain`` (rules 2-3): ``s_{j,q+1} >= s_jq + p_jq + lag_{j,q+1}``;
2. ``_exclusive_io`` (rule 5): ``NoOverlap{[s_jq, s_jq + p_jq)}``.

No objective: the question is feasibility. A preemptive-EDF pre-check
(:func:`opt_sched.bounds.edf_feasible` on the windows) refutes the easy
infeasible questions without CP-SAT.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...cpsat.interrupt import run_solver
from .grid import NodeGrid

__all__ = ["Answer", "DeadlineModel", "ask_deadlines", "default_question_params",
           "tick_order_times"]


@dataclass
class Answer:
    """``status``: ``"feasible"`` (with the node ``order`` it found),
    ``"infeasible"`` (proven; ``by`` names the proof: ``"static"``, ``"edf"``
    or ``"cpsat"``) or ``"unknown"``."""

    status: str
    order: list[int] | None = None
    seconds: float = 0.0
    by: str = ""
    info: dict[str, Any] = field(default_factory=dict)


def default_question_params(num_workers: int,
                            objective: str = "makespan") -> dict[str, Any]:
    """Strong disjunctive propagation, and two full searches on 2 workers:
    for the makespan ``fixed`` (the model's first-fail strategy,
    :meth:`DeadlineModel._search`) and ``no_lp``, for the max stretch
    ``no_lp`` and ``quick_restart_no_lp`` (below); on 1 worker the fixed
    search alone.

    Measured (``models/bounds.md``, "Deadline questions"): on the two open
    10x20 makespan instances of the issue the question "``<= OPT - 1``?" is
    refuted in 0.2-0.4 s this way, against 2.5-4 s with ``no_lp`` alone and
    4.5-16 s with CP-SAT's default portfolio; on a max-stretch question
    (``rho = 1.22``, load 0.8) in 0.3 s where ``no_lp`` alone stays open
    after 20 s.

    For the max stretch on 2 workers the pair is ``no_lp`` and
    ``quick_restart_no_lp`` (measured, third session of 2026-11-24, 20 s
    caps, 2 workers, three max-stretch questions of the 10x20 bench that
    60 s portfolio runs left open): "``rho <= 1.300``?" (load 0.8 seed 2),
    "``<= 1.25``?" (1.0 seed 1), "``<= 1.27``?" (1.0 seed 2) refuted in
    3.6 / 1.2 / 11.4 s, against 3.3 / 3.3 / open with ``fixed`` +
    ``no_lp``; ``fixed`` + ``max_lp`` 11.9 / 7.8 / open; ``fixed`` +
    ``quick_restart_no_lp`` open / open / 16.0; ``fixed`` + ``core`` open.
    The makespan keeps ``fixed``: its first-fail search is what refutes
    "``<= OPT - 1``?" in tenths of a second.
    """
    params: dict[str, Any] = {"use_strong_propagation_in_disjunctive": True}
    if num_workers == 1:
        params["search_branching"] = "FIXED_SEARCH"
    elif num_workers == 2:
        params["subsolvers"] = (["no_lp", "quick_restart_no_lp"]
                                if objective == "max-stretch" else ["fixed", "no_lp"])
        params["num_full_subsolvers"] = 2
    else:
        params["extra_subsolvers"] = ["fixed"]
    return params


def tick_order_times(grid: NodeGrid, order: Sequence[int]) -> list[list[int]]:
    """Semi-active starts of ``order`` in ticks (rounded lengths)."""
    n = grid.num_jobs
    counts = [len(d) for d in grid.dur]
    nxt = [0] * n
    ready = [grid.start + (grid.lag[j][0] if counts[j] else 0) for j in range(n)]
    starts: list[list[int]] = [[] for _ in range(n)]
    free = grid.start
    for j in order:
        q = nxt[j]
        begin = max(ready[j], free)
        starts[j].append(begin)
        free = begin + grid.dur[j][q]
        nxt[j] = q + 1
        if q + 1 < counts[j]:
            ready[j] = free + grid.lag[j][q + 1]
    return starts


class DeadlineModel:
    """The feasibility model (module docstring).

    ``windows_empty`` is ``True`` when some operation's static window is
    empty (the question is infeasible without a solver).
    """

    def __init__(self, grid: NodeGrid, deadlines: Sequence[int],
                 hint: Sequence[int] | None = None) -> None:
        from ortools.sat.python import cp_model

        self.grid = grid
        self.deadlines = [int(d) for d in deadlines]
        self.model = cp_model.CpModel()
        self.windows: list[list[tuple[int, int]]] = []
        self.windows_empty = False
        for j in range(grid.num_jobs):
            row = []
            for q in range(len(grid.dur[j])):
                low, high = grid.head(j, q), self.deadlines[j] - grid.rest(j, q)
                row.append((low, high))
                self.windows_empty |= high < low
            if not grid.dur[j] and grid.start + grid.tail[j] > self.deadlines[j]:
                self.windows_empty = True
            self.windows.append(row)
        if self.windows_empty:
            return
        self._variables()
        self._chain()
        self._exclusive_io()
        self._search()
        if hint is not None:
            for j, row in enumerate(tick_order_times(grid, hint)):
                for q, value in enumerate(row):
                    self.model.add_hint(self.start[j][q], value)

    def _variables(self) -> None:
        """``s_jq`` in its static window, with its interval."""
        model = self.model
        self.start = []
        self.intervals = []
        for j, row in enumerate(self.windows):
            starts = []
            for q, (low, high) in enumerate(row):
                s = model.new_int_var(low, high, f"s[{j},{q}]")
                starts.append(s)
                self.intervals.append(model.new_fixed_size_interval_var(
                    s, self.grid.dur[j][q], f"io[{j},{q}]"))
            self.start.append(starts)

    def _chain(self) -> None:
        """.. math:: s_{j,q+1} \\ge s_{jq} + p_{jq} + lag_{j,q+1}"""
        for j, starts in enumerate(self.start):
            for q in range(len(starts) - 1):
                self.model.add(starts[q + 1] >= starts[q] + self.grid.dur[j][q]
                               + self.grid.lag[j][q + 1])

    def _exclusive_io(self) -> None:
        """.. math:: \\text{NoOverlap}\\{[s_{jq}, s_{jq} + p_{jq})\\}"""
        if len(self.intervals) > 1:
            self.model.add_no_overlap(self.intervals)

    def _search(self) -> None:
        """First fail: branch on the start with the smallest domain, smallest
        value first (used by the ``fixed`` search)."""
        from ortools.sat.python import cp_model

        starts = [s for row in self.start for s in row]
        if starts:
            self.model.add_decision_strategy(starts, cp_model.CHOOSE_MIN_DOMAIN_SIZE,
                                             cp_model.SELECT_MIN_VALUE)

    def edf_refutes(self) -> bool:
        """Preemptive EDF on the static windows misses a deadline (Horn 1974:
        then no preemptive, hence no feasible, schedule exists)."""
        from ....bounds import edf_feasible

        releases, durations, deadlines = [], [], []
        for j, row in enumerate(self.windows):
            for q, (low, high) in enumerate(row):
                releases.append(low)
                durations.append(self.grid.dur[j][q])
                deadlines.append(high + self.grid.dur[j][q])
        return bool(releases) and not edf_feasible(releases, durations, deadlines,
                                                   rel_tol=0.0)

    def order(self, solver: Any) -> list[int]:
        ops = sorted((solver.value(s), j) for j, row in enumerate(self.start)
                     for s in row)
        return [j for _, j in ops]


def ask_deadlines(grid: NodeGrid, deadlines: Sequence[int], time_limit: float, *,
                  num_workers: int = 2, seed: int = 0,
                  hint: Sequence[int] | None = None,
                  params: Mapping[str, Any] | None = None,
                  objective: str = "makespan") -> Answer:
    """Answer "every job ``j`` completes by ``deadlines[j]`` (ticks)?".

    ``"infeasible"`` is a proof for the rounded data (for the true problem
    when ``grid.exact``); ``"feasible"`` comes with a node order whose
    semi-active schedule meets the deadlines with the rounded lengths (hence
    also with the true, shorter ones). ``objective``: which objective the
    deadlines come from (it picks the search, :func:`default_question_params`).
    """
    from ortools.sat.python import cp_model

    from ...deadline import Stopwatch

    clock = Stopwatch()
    model = DeadlineModel(grid, deadlines, hint)
    if model.windows_empty:
        return Answer("infeasible", seconds=clock(), by="static")
    if model.edf_refutes():
        return Answer("infeasible", seconds=clock(), by="edf")
    solver = cp_model.CpSolver()
    prm = solver.parameters
    prm.max_time_in_seconds = max(0.01, float(time_limit))
    prm.num_workers = num_workers
    prm.random_seed = seed
    for name, value in {**default_question_params(num_workers, objective),
                        **dict(params or {})}.items():
        if isinstance(value, (list, tuple)):
            getattr(prm, name).extend(list(value))
        elif name == "search_branching" and isinstance(value, str):
            prm.search_branching = getattr(cp_model, value)
        else:
            setattr(prm, name, value)
    try:
        code = run_solver(solver, model.model)
    except (IndexError, RuntimeError):  # OR-Tools 9.15 on some hinted models
        model.model.clear_hints()
        code = run_solver(solver, model.model)
    if code == cp_model.INFEASIBLE:
        return Answer("infeasible", seconds=clock(), by="cpsat")
    if code in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return Answer("feasible", model.order(solver), clock(), by="cpsat")
    return Answer("unknown", seconds=clock())
