"""Yes/no questions "is there a solution of objective ``<= T``?" asked of a
CP-SAT model: the bound ladder and the bisection of the destructive
lower-bounding phase (``models/io-sched-cpsat.md``, "Solve phases"), used
by the one solve loop of every CP-SAT model
(:func:`opt_sched.exact.cpsat.search.minimise`).

Every model of opt_sched minimises one integer variable. A *probe* is a
clone of the model without objective, in which the domain of that variable
is cut to ``[L, T]``; CP-SAT answers

- ``INFEASIBLE``: no solution has objective ``<= T``, so ``T + 1`` is a
  proven lower bound (the objective is an integer);
- a solution: a new incumbent of value ``<= T``;
- nothing within its time cap: no information.

Such questions are easier than the optimisation: the deadline ``T`` gives
every task a latest end, and the disjunctive and cumulative propagators
(edge finding, not-first/not-last, energy) work on those time windows.
Every bound comes from an ``INFEASIBLE`` answer, so it is as valid as
CP-SAT's own.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..deadline import Stopwatch
from .interrupt import run_solver

__all__ = ["BoundSearch", "ObjectiveProbe", "ceil_bound"]

SolverFactory = Callable[[float, Mapping[str, Any]], Any]
"""``(time_limit, extra_params) -> CpSolver``."""


def ceil_bound(value: float) -> int:
    """A proven bound on an integer objective, rounded up (float noise aside)."""
    return math.ceil(value - 1e-6)


@dataclass
class BoundSearch:
    """What is known about the optimum ``z*`` (integer model units).

    ``lower``: proven, ``z* >= lower``. ``upper``: the value of the best
    incumbent, held by ``solver`` (its values are read through the original
    model's variables, whose indices every clone keeps); ``None`` if none.
    ``solver`` is ``None`` while the incumbent is the caller's own starting
    solution (a warm heuristic schedule, offered with ``solver=None``).
    ``infeasible``: the model has no solution at all. ``answers``: the
    questions asked, as ``(T, answer, seconds)``.
    """

    lower: int
    upper: int | None = None
    solver: Any = None
    infeasible: bool = False
    rounds: int = 0
    answers: list[tuple[int, str, float]] = field(default_factory=list)

    @property
    def closed(self) -> bool:
        """``True`` when the incumbent is proven optimal."""
        return self.upper is not None and self.lower >= self.upper

    def offer(self, value: int, solver: Any) -> None:
        """Keep ``solver``'s solution of value ``value`` if it is better."""
        if self.upper is None or value < self.upper:
            self.upper, self.solver = value, solver

    def record(self, solver: Any, status: int) -> None:
        """Take what an optimisation run of ``solver`` proved (``status``, a
        CP-SAT status code other than ``INFEASIBLE``/``MODEL_INVALID``): its
        incumbent, and its bound (the incumbent itself when ``OPTIMAL``)."""
        from ortools.sat.python import cp_model

        bound = solver.best_objective_bound
        if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            value = round(solver.objective_value)
            self.offer(value, solver)
            if status == cp_model.OPTIMAL:
                bound = value
        if math.isfinite(bound):
            self.lower = max(self.lower, ceil_bound(bound))


class ObjectiveProbe:
    """Ask ``model`` whether its objective variable can be ``<= T``.

    Parameters
    ----------
    model
        The ``CpModel`` (left unchanged: the questions go to one clone).
    objective_index
        Proto index of the integer variable the model minimises.
    make_solver
        Returns a configured ``CpSolver`` for a time limit and extra
        parameters.
    params
        Parameters added to every question (e.g. strong disjunctive
        propagation).
    """

    def __init__(self, model: Any, objective_index: int, make_solver: SolverFactory,
                 params: Mapping[str, Any] | None = None) -> None:
        from ortools.sat.python import cp_model

        self._cp = cp_model
        self._probe = model.clone()
        self._probe.clear_objective()
        self._index = objective_index
        self._domain = list(model.proto.variables[objective_index].domain)
        self._make_solver = make_solver
        self._params = dict(params or {})
        self.on_answer: Callable[[BoundSearch], None] | None = None
        """Called after each answer (progress reports)."""

    def ask(self, search: BoundSearch, target: int, time_limit: float,
            params: Mapping[str, Any] | None = None) -> str:
        """One question at ``target``; updates ``search``; returns the answer
        (``"infeasible"``, ``"solution"`` or ``"unknown"``)."""
        cp = self._cp
        clock = Stopwatch()
        low = max(search.lower, self._domain[0])
        variable = self._probe.proto.variables[self._index]
        variable.domain.clear()
        variable.domain.extend([low, max(low, target)])
        solver = self._make_solver(time_limit, {**self._params, **dict(params or {})})
        code = run_solver(solver, self._probe)
        search.rounds += 1
        if code == cp.INFEASIBLE:
            search.lower = max(search.lower, target + 1)
            answer = "infeasible"
        elif code in (cp.OPTIMAL, cp.FEASIBLE):
            value = solver.value(self._probe.get_int_var_from_proto_index(self._index))
            search.offer(int(value), solver)
            answer = "solution"
        else:
            answer = "unknown"
        search.answers.append((target, answer, round(clock(), 3)))
        if self.on_answer is not None:
            self.on_answer(search)
        return answer

    def ladder(self, search: BoundSearch, budget: float, probe_limit: float,
               step: int = 1, params: Mapping[str, Any] | None = None,
               growth: float = 1.0) -> None:
        """Climb from the proven bound: ask ``T = L`` first (is the bound
        tight?), then ``T = L + step - 1``, while the answers are
        ``INFEASIBLE`` and ``budget`` seconds last. Each question gets at
        most ``probe_limit`` seconds; a solution or a question left open ends
        the climb.

        With ``growth > 1`` the climb gallops: after each refutation the
        next jump is ``growth`` times the last (``step``, ``growth *
        step``, ...), and a question left open after a jump longer than
        ``step`` starts again from ``step`` instead of ending the climb.
        Every bound still comes from an ``INFEASIBLE`` answer; only the
        questions differ. A bound far below the optimum (a window of a
        trace with its I/O, where CP-SAT refutes each ``T`` in 0.1-0.2 s
        but the climb by ``1e-4 L`` covers 0.3 % of the gap in its time) then
        rises in ``log`` of the gap questions.

        Cheap when the combinatorial bound is tight or nearly so, which is
        the common case (Jackson's bound equals the IO-SCHED optimum on most
        instances), and where the optimisation search is slowest: it must
        *find* a solution at the bound, while the question "``<= L``?"
        confines every operation to a narrow window.
        """
        clock = Stopwatch()
        base = max(1, step)
        jump = base
        target = search.lower
        while not search.closed and budget - clock() > 0.05:
            if search.upper is not None:
                target = min(target, search.upper - 1)
            if target > self._domain[-1]:
                break
            limit = min(probe_limit, budget - clock())
            answer = self.ask(search, target, limit, params)
            if answer == "infeasible":
                target = search.lower + jump - 1
                jump = _grown(jump, growth)
            elif answer == "unknown" and target > search.lower + base - 1:
                jump = base  # the jump was too long: climb again from the bound
                target = search.lower + base - 1
            else:
                break

    def bisect(self, search: BoundSearch, budget: float,
               params: Mapping[str, Any] | None = None, step: int = 1,
               growth: float = 1.0, first_share: float = 0.5) -> None:
        """Ask first "``<= U - step``?" (is the incumbent optimal, or within
        ``step``?) with ``first_share`` of the budget (half by default; 0:
        not asked), then bisect between the proven bound
        ``L`` and the incumbent ``U`` (``T = floor((L + U - 1) / 2)``), each
        question capped at a third of the time left (at least 1 s), except
        ``T = L``, which gets all of it. A question left open switches to
        climbing from ``L`` by ``step`` (``T = L + step - 1``, the easiest
        questions) with all the time left; one left open there ends the
        search. With ``growth > 1`` that climb gallops as in :meth:`ladder`:
        its jumps longer than ``step`` are capped at a quarter of the time
        left (at least 1 s), and one left open starts again from ``step``."""
        clock = Stopwatch()
        step = max(1, step)
        if search.upper is not None and search.upper - step > search.lower \
                and first_share > 0:
            # is the incumbent optimal? (often, once the optimisation stalls)
            self.ask(search, search.upper - step, first_share * budget, params)
        ascending = False
        jump = step
        while search.upper is not None and not search.closed \
                and budget - clock() > 0.05:
            remaining = budget - clock()
            target = min(search.lower + jump - 1, search.upper - 1) if ascending \
                else (search.lower + search.upper - 1) // 2
            # the last open question (U = L + 1) gets all the time left
            if ascending and jump > step:
                cap = min(remaining, max(1.0, remaining / 4))
            elif ascending or target == search.lower:
                cap = remaining
            else:
                cap = min(remaining, max(1.0, remaining / 3))
            answer = self.ask(search, target, cap, params)
            if answer == "unknown":
                if ascending and jump > step:
                    jump = step
                    continue
                if ascending:
                    break
                ascending = True
            elif ascending and answer == "infeasible":
                jump = _grown(jump, growth)


def _grown(jump: int, growth: float) -> int:
    """The next jump of a galloping climb: ``growth`` times ``jump`` (at
    least ``jump``; ``growth = 1`` keeps the step)."""
    return max(jump, math.floor(jump * growth))
