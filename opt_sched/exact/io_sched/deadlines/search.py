"""Bound and incumbent of one I/O node by deadline questions.

State: a proven bound ``L`` (``OPT >= L``) and an incumbent order of value
``U`` (validated later). Each question asks for the deadlines of a target
value ``v`` (:class:`.Targets`):

- *infeasible* (static windows, preemptive EDF, or CP-SAT): ``L`` becomes
  :meth:`.Targets.next_above` ``(v)``;
- *feasible*: the order found has value ``<= v``: the new incumbent;
- *unknown* (time cap): nothing is learnt.

Order of questions (:func:`deadline_search`):

1. "strictly below ``U``?" -- proves the incumbent optimal when it is, which
   is the common case once a good order is known; three quarters of the
   budget at most (``below_share``);
2. questions from both ends of ``[L, U]``: from below, ``v = L + delta`` with
   ``delta`` doubling from one grid step (or ``1e-4 L``) while the answers
   are *infeasible* (questions far below the optimum are refuted in
   milliseconds); from above, ``v = U - s (U - L)`` with ``s = 1/4``. An
   *open* answer switches to the other end (quartering ``delta``, or halving
   ``s``) and doubles the time cap of the next questions (from
   ``first_cap`` seconds up to half the time left).

A :class:`QuestionLog` carries what was asked across calls (the portfolio
asks questions in several rounds on one node): an open question asked again
gets at least twice the time it already had (CP-SAT cannot resume a solve,
so a repeat with the same cap mostly repeats the same work), or all the
time left when less is left, and a new random seed; the caps of the next
call start where the last call left them.

The questions carry no solution hint: the incumbent never meets their
deadlines, and hinting it slowed the refutation of "``<= OPT - 1``?" on a
10x20 instance from 13-17 s to 26-28 s (``models/lns.md``).

Every bound comes from an infeasibility proof on an exact grid, so it is as
valid as the model (``models/bounds.md``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..orders import order_value
from .grid import NodeGrid
from .model import Answer, ask_deadlines
from .targets import Targets

__all__ = ["QuestionLog", "SearchState", "deadline_search"]

_REPEAT = 2.0
"""An open question asked again gets at least this multiple of its time."""


@dataclass
class QuestionLog:
    """Questions of one node across calls of :func:`deadline_search`:
    ``spent[deadlines]`` the longest time a question was left open,
    ``asked[deadlines]`` how often it was asked, ``cap`` the cap of the
    questions from both ends reached so far."""

    spent: dict[tuple[int, ...], float] = field(default_factory=dict)
    asked: dict[tuple[int, ...], int] = field(default_factory=dict)
    cap: float = 0.0

    def cap_for(self, deadlines: Sequence[int], cap: float, left: float) -> float:
        """The time to give a question: ``cap``, and at least ``_REPEAT``
        times what it had when it was left open before, within the time
        ``left``."""
        prior = self.spent.get(tuple(deadlines), 0.0)
        return min(max(cap, _REPEAT * prior), left)

    def repeats(self, deadlines: Sequence[int]) -> int:
        """How often the question was asked before (a seed offset)."""
        return self.asked.get(tuple(deadlines), 0)

    def record(self, deadlines: Sequence[int], answer: Answer) -> None:
        key = tuple(deadlines)
        self.asked[key] = self.asked.get(key, 0) + 1
        if answer.status == "unknown":
            self.spent[key] = max(self.spent.get(key, 0.0), answer.seconds)


@dataclass
class SearchState:
    """``lower`` proven; ``upper`` the value of ``order``; ``answers`` the
    questions asked, ``(target, status, by, seconds)``."""

    lower: float
    upper: float
    order: list[int]
    answers: list[tuple[float, str, str, float]] = field(default_factory=list)

    def closed(self, rtol: float = 1e-9) -> bool:
        return self.upper <= self.lower * (1 + rtol) + 1e-12


def deadline_search(grid: NodeGrid, objective: str, order: Sequence[int],
                    lower: float, budget: float, *, num_workers: int = 2,
                    seed: int = 0, on_improve: Callable[[list[int], float], None]
                    | None = None, clock: Callable[[], float] | None = None,
                    first_cap: float = 1.0,
                    below_share: float = 0.75,
                    log: QuestionLog | None = None) -> SearchState:
    """Raise the bound and improve the incumbent of one node within
    ``budget`` seconds (module docstring).

    ``lower`` must be a valid bound. Bounds are only raised when the grid is
    exact; on an inexact grid the questions can still find better orders.
    ``below_share``: the share of ``budget`` (at least one second) the first
    question, "strictly below ``U``?", may take. ``log``: the questions of
    earlier calls on the same node and grid (:class:`QuestionLog`).
    """
    from ...deadline import Stopwatch

    watch = clock or Stopwatch()
    t0 = watch()
    targets = Targets(grid, objective)
    node = grid.node
    state = SearchState(targets.round_up(lower) if grid.exact else lower,
                        order_value(node, order, objective), list(order))

    def left() -> float:
        return budget - (watch() - t0)

    memory = log if log is not None else QuestionLog()

    def ask(deadlines: list[int], target: float, cap: float) -> Answer:
        answer = ask_deadlines(grid, deadlines,
                               memory.cap_for(deadlines, cap, left()),
                               num_workers=num_workers,
                               seed=seed + memory.repeats(deadlines),
                               objective=objective)
        memory.record(deadlines, answer)
        state.answers.append((target, answer.status, answer.by,
                              round(answer.seconds, 3)))
        if answer.status == "feasible" and answer.order is not None:
            value = order_value(node, answer.order, objective)
            if value < state.upper:
                state.upper, state.order = value, answer.order
                if on_improve is not None:
                    on_improve(answer.order, value)
        return answer

    def refuted(target: float) -> None:
        if grid.exact:
            state.lower = max(state.lower, targets.next_above(target))

    if state.closed() or left() <= 0.05:
        return state
    # 1. is the incumbent optimal?
    answer = ask(targets.strictly_below(state.upper), state.upper,
                 min(left(), max(1.0, below_share * left())))
    if answer.status == "infeasible":
        if grid.exact:
            state.lower = max(state.lower, state.upper)
        return state
    # 2-3. questions from both ends
    unit = max(abs(state.lower) * 1e-4, targets.next_above(state.lower) - state.lower)
    step = unit          # lower side: L + step, doubling while refuted
    share = 0.25         # upper side: U - share (U - L), halved when open
    side = "lower"
    cap = max(first_cap, memory.cap)
    while not state.closed() and left() > 0.05:
        gap = state.upper - state.lower
        if side == "lower":
            target = min(state.lower + step, state.upper - 0.5 * unit)
        else:
            target = state.upper - max(share * gap, 0.5 * unit)
        target = max(state.lower, targets.snap(target))
        answer = ask(targets.deadlines(target), target, min(left(), cap))
        if answer.status == "infeasible":
            refuted(target)
            if not grid.exact:
                break
            if side == "lower":
                step *= 2
        elif answer.status == "feasible":
            if side == "lower":
                step = max(unit, step / 2)
        else:  # open: look from the other end, give later questions more time
            if side == "lower":
                step = max(unit, step / 4)
                side = "upper"
            else:
                share /= 2
                side = "lower"
            cap = min(2 * cap, max(first_cap, left() / 2))
            memory.cap = max(memory.cap, cap)
    return state
