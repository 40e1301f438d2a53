"""CP-SAT model of one period of a cyclic schedule: minimise the period.

Data (ticks, durations rounded up): pattern job ``p`` with ``m_p``
iterations per period, compute ``w_p``, I/O ``d_p``, cycle
``c_p = w_p + d_p``. Variables: the period ``lambda`` and the start
``a_pr`` of the ``r``-th operation of ``p`` within the period, in the
unrolled time of one turn of the job's chain. Constraints (methods of
:class:`PeriodModel`, in order):

1. ``_chain`` -- the job's iterations follow each other and its chain closes
   after one period (each compute phase starts when the previous I/O ends;
   an I/O phase may wait)::

       0 <= a_p0 < lambda,   a_p,r+1 >= a_pr + c_p,
       a_p0 + lambda >= a_p,m-1 + c_p

   so ``a_pr`` lies in ``[0, 2 lambda)``;
2. ``_wrap_around_no_overlap`` -- on the circle of length ``lambda`` two I/O
   phases never overlap. With every start in ``[0, 2 lambda)`` and
   ``d <= lambda``, phases ``x`` and ``y`` overlap on the circle iff some
   copies ``[a_x + u lambda, + d_x)`` and ``[a_y + u' lambda, + d_y)``,
   ``u, u' in {-1, 0, 1}``, overlap on the line (the shift ``u' - u`` spans
   every multiple of ``lambda`` that can bring them together), so one
   NoOverlap over the three copies of every phase is exact;
3. ``_rotation`` -- ``a_00 = 0`` (rotating a cyclic schedule keeps it one).

Objective: minimise ``lambda``. Solve: first the question "``lambda = LB``?"
with ``LB = ceil(max(sum m d, max m c))`` (often yes: then the period is
optimal at once), then the minimisation from ``LB + 1`` if it was refuted.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ...cpsat.interrupt import run_solver
from .pattern import CyclicPattern

__all__ = ["PeriodModel", "PeriodSolution", "solve_period"]


@dataclass(frozen=True)
class PeriodSolution:
    """A cyclic timetable of one period, in time units.

    ``period`` is ``lambda``; ``lower`` a proven lower bound on the smallest
    period on the grid (``period`` itself when ``status == "optimal"``);
    ``positions[p][r]`` the start ``a_pr``; ``word`` the pattern's local jobs
    (``node`` numbering) in the order the node serves them around the circle
    (by ``a mod lambda``), one entry per operation.
    """

    pattern: CyclicPattern
    period: float
    lower: float
    status: str
    positions: tuple[tuple[float, ...], ...]
    word: tuple[int, ...]
    tick: float
    exact_grid: bool
    seconds: float


class PeriodModel:
    """The period model on a time grid (module docstring).

    Parameters
    ----------
    pattern
        The pattern.
    tick
        Time units per tick; durations are rounded up to ticks.
    fixed_period
        If given, ``lambda`` is this constant (a yes/no question).
    lower, upper
        Domain of ``lambda`` in ticks (ignored with ``fixed_period``).
    """

    def __init__(self, pattern: CyclicPattern, tick: float, *,
                 fixed_period: int | None = None, lower: int = 1,
                 upper: int | None = None) -> None:
        from ortools.sat.python import cp_model

        from ...cpsat.common import TimeGrid

        self.pattern = pattern
        grid = TimeGrid(tick, True)
        self.w = [grid.up(w) for w in pattern.compute]
        self.d = [max(1, grid.up(d)) for d in pattern.duration]
        self.c = [w + d for w, d in zip(self.w, self.d)]
        self.m = list(pattern.multiplicity)
        serial = sum(m * c for m, c in zip(self.m, self.c))
        self.upper = serial if upper is None else upper
        self.model = cp_model.CpModel()
        if fixed_period is not None:
            self.period: Any = fixed_period
            self.upper = fixed_period
        else:
            self.period = self.model.new_int_var(min(lower, self.upper), self.upper,
                                                 "lambda")
        self._variables()
        self._chain()
        self._wrap_around_no_overlap()
        self._rotation()
        if fixed_period is None:
            self.model.minimize(self.period)
            self._serial_hint()

    def _variables(self) -> None:
        """``a_pr`` in ``[0, 2 U)`` (``U`` the largest period allowed)."""
        self.start = [[self.model.new_int_var(0, 2 * self.upper, f"a[{p},{r}]")
                       for r in range(m)] for p, m in enumerate(self.m)]

    def _chain(self) -> None:
        """.. math::

            a_{p0} \\le \\lambda - 1, \\quad a_{p,r+1} \\ge a_{pr} + c_p, \\quad
            a_{p0} + \\lambda \\ge a_{p,m_p-1} + c_p
        """
        model = self.model
        for p, starts in enumerate(self.start):
            model.add(starts[0] <= self.period - 1)
            for r in range(len(starts) - 1):
                model.add(starts[r + 1] >= starts[r] + self.c[p])
            model.add(starts[0] + self.period >= starts[-1] + self.c[p])

    def _wrap_around_no_overlap(self) -> None:
        """.. math::

            \\text{NoOverlap}\\{[a_{pr} + u\\lambda, a_{pr} + u\\lambda + d_p)
            : p, r,\\ u \\in \\{-1, 0, 1\\}\\}
        """
        model = self.model
        intervals = []
        fixed = isinstance(self.period, int)
        for p, starts in enumerate(self.start):
            for r, a in enumerate(starts):
                intervals.append(model.new_fixed_size_interval_var(
                    a, self.d[p], f"io[{p},{r}]"))
                for u in (-1, 1):
                    if fixed:
                        shifted: Any = a + u * self.period
                    else:
                        shifted = model.new_int_var(-self.upper, 3 * self.upper,
                                                    f"a[{p},{r}]{u:+d}")
                        model.add(shifted == a + u * self.period)
                    intervals.append(model.new_fixed_size_interval_var(
                        shifted, self.d[p], f"io[{p},{r}]{u:+d}"))
        model.add_no_overlap(intervals)

    def _rotation(self) -> None:
        """:math:`a_{00} = 0`."""
        if self.start:
            self.model.add(self.start[0][0] == 0)

    def _serial_hint(self) -> None:
        """Hint the serial timetable: job ``p`` runs its ``m_p`` cycles in its
        own slot ``[o_p, o_p + m_p c_p)``, ``o_p = sum_{p' < p} m_p' c_p'``,
        with period ``sum_p m_p c_p`` (always feasible)."""
        if self.upper < sum(m * c for m, c in zip(self.m, self.c)):
            return
        self.model.add_hint(self.period, sum(m * c for m, c in zip(self.m, self.c)))
        offset = 0
        for p, starts in enumerate(self.start):
            for r, a in enumerate(starts):
                self.model.add_hint(a, offset + r * self.c[p])
            offset += self.m[p] * self.c[p]

    def values(self, solver: Any) -> tuple[int, list[list[int]]]:
        period = self.period if isinstance(self.period, int) else \
            solver.value(self.period)
        return period, [[solver.value(a) for a in starts] for starts in self.start]


def _solver(time_limit: float, num_workers: int, seed: int, **params: Any) -> Any:
    from ortools.sat.python import cp_model

    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = max(0.01, time_limit)
    solver.parameters.num_workers = num_workers
    solver.parameters.random_seed = seed
    for name, value in params.items():
        setattr(solver.parameters, name, value)
    return solver


def solve_period(pattern: CyclicPattern, time_limit: float = 10.0, *,
                 num_workers: int = 2, seed: int = 0,
                 resolution: float | None = None) -> PeriodSolution | None:
    """The shortest period found within ``time_limit`` seconds.

    The grid is :func:`opt_sched.exact.cpsat.common.choose_grid` of the
    pattern's ``w`` and ``d`` (exact for data on a grid, e.g. integers or
    halves); durations are rounded up, so a timetable of the rounded model is
    a valid cyclic timetable of the true durations with the same period.

    Returns
    -------
    PeriodSolution or None
        ``None`` only if CP-SAT finds no period at all (never expected: the
        serial period is feasible and small).
    """
    from ortools.sat.python import cp_model

    from ...cpsat.common import choose_grid
    from ...deadline import Stopwatch

    clock = Stopwatch()
    values = list(pattern.compute) + list(pattern.duration)
    grid = choose_grid(values, max(pattern.serial_period(), 1e-9), resolution)
    tick = grid.tick
    probe = PeriodModel(pattern, tick, fixed_period=1)  # for the rounded data
    low = max(max(m * c for m, c in zip(probe.m, probe.c)),
              sum(m * d for m, d in zip(probe.m, probe.d)))
    proven = low
    found: tuple[int, list[list[int]]] | None = None
    status = "feasible"
    question = PeriodModel(pattern, tick, fixed_period=low)
    solver = _solver(0.3 * time_limit, num_workers, seed)
    code = run_solver(solver, question.model)
    if code in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        found, status = question.values(solver), "optimal"
    else:
        if code == cp_model.INFEASIBLE:
            proven = low + 1
        model = PeriodModel(pattern, tick, lower=proven)
        solver = _solver(time_limit - clock(), num_workers, seed)
        code = run_solver(solver, model.model)
        if code in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            found = model.values(solver)
            proven = max(proven, math.ceil(solver.best_objective_bound - 1e-6))
            status = "optimal" if code == cp_model.OPTIMAL else "feasible"
    if found is None:
        return None
    period, starts = found
    if period <= proven:
        status = "optimal"
    positions = tuple(tuple(a * tick for a in row) for row in starts)
    ops = sorted((a % period, p, r) for p, row in enumerate(starts)
                 for r, a in enumerate(row))
    word = tuple(pattern.jobs[p] for _, p, _ in ops)
    return PeriodSolution(pattern, period * tick, min(proven, period) * tick, status,
                          positions, word, tick, grid.exact, clock())

