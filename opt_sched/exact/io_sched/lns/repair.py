"""CP-SAT repair of one window of an I/O order (``models/lns.md``).

Given a node order ``pi`` (local job numbers, :mod:`opt_sched.exact.io_sched.orders`)
and a window of ``k`` consecutive positions ``[a, a + k)``:

- the *prefix* ``pi[:a]`` is fixed and so are its semi-active times (a
  prefix never depends on what follows it): it leaves the node free at ``F``
  and job ``j`` ready for its next operation at ``R_j`` (ticks);
- the *window* operations may be served in any order (NoOverlap), each after
  ``F`` and after its job's previous operation;
- the *suffix* ``pi[a + k : a + k + h]`` keeps its order: a chain on the node
  that starts after every window operation. ``h`` is all of it for orders of
  up to :data:`FULL_SUFFIX` operations; otherwise the suffix is cut after
  ``h`` operations and the objective is an estimate (below).

Variables ``s_o`` (start of every modelled operation, ticks), constraints
(methods of :class:`WindowRepair`, in order): ``_job_chains``
(``s_{j,q+1} >= s_jq + p_jq + lag_{j,q+1}``, ``s >= R_j`` for the first),
``_window_no_overlap``, ``_suffix_chain`` (``s_{m+1} >= s_m + p_m``, the first
suffix operation after every window operation), ``_objective``:

- full suffix: the true objective of the rounded data, makespan ``max_j C_j``
  or max stretch ``max_j (C_j - t) / T_j`` (integer ``rho`` in units of
  ``1/SCALE``: ``SCALE (C_j - t) <= rho T_j``);
- cut suffix: the same with ``C_j`` replaced by the *estimate*
  ``e_j + rest_j`` for a job that still has operations after the cut
  (``e_j`` the end of its last modelled operation, ``rest_j`` its own work
  after it without waiting), and for the makespan also
  ``F' + P_rest`` (``F'`` the end of the last modelled operation, ``P_rest``
  the node time still to serve).

The value is capped at the current one (``<=``) and the current times are
the hint, so CP-SAT starts from the current order; the caller keeps a new
order only if its true semi-active value is no worse.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...cpsat.interrupt import run_solver
from ..deadlines.grid import NodeGrid

__all__ = ["FULL_SUFFIX", "RepairResult", "WindowRepair", "repair_window"]

FULL_SUFFIX = 2500
"""Orders of at most this many operations model their whole suffix."""

CUT_SUFFIX = 300
"""Suffix operations modelled when the order is longer."""

STRETCH_SCALE = 10**5


@dataclass
class RepairResult:
    """``order``: the repaired order (``None`` if CP-SAT found nothing);
    ``status``: the CP-SAT status name; ``seconds``."""

    order: list[int] | None
    status: str
    seconds: float


class WindowRepair:
    """The repair model of ``order[a:a+k]`` (module docstring)."""

    def __init__(self, grid: NodeGrid, objective: str, order: Sequence[int],
                 a: int, k: int, suffix: int | None = None) -> None:
        from ortools.sat.python import cp_model

        self.grid = grid
        self.objective = objective
        self.order = list(order)
        n = grid.num_jobs
        self.a = a
        self.k = min(k, len(order) - a)
        total = len(order)
        if suffix is None:
            suffix = total if total <= FULL_SUFFIX else CUT_SUFFIX
        self.b = min(total, a + self.k + suffix)   # end of the modelled part
        self.model = cp_model.CpModel()
        counts = [len(d) for d in grid.dur]
        self.counts = counts
        # prefix state (ticks)
        nxt = [0] * n
        ready = [grid.start + (grid.lag[j][0] if counts[j] else grid.tail[j])
                 for j in range(n)]
        free = grid.start
        for j in order[:a]:
            q = nxt[j]
            begin = max(ready[j], free)
            free = begin + grid.dur[j][q]
            nxt[j] = q + 1
            ready[j] = free + (grid.lag[j][q + 1] if q + 1 < counts[j]
                               else grid.tail[j])
        self.free, self.ready, self.first = free, ready, nxt[:]
        # modelled operations: (j, q) in order of position
        self.ops: list[tuple[int, int]] = []
        for j in order[a:self.b]:
            self.ops.append((j, nxt[j]))
            nxt[j] += 1
        self.after = nxt  # first operation of each job not modelled
        self.current = self._current_times()
        self.horizon = max(self.current) + 1 if self.current else free
        self.horizon = max(self.horizon, self._current_bound() + 1)
        self._variables()
        self._job_chains()
        self._window_no_overlap()
        self._suffix_chain()
        self._objective()
        for var, value in zip(self.start, self.current):
            self.model.add_hint(var, value)

    # -- data ---
    def _current_times(self) -> list[int]:
        """Semi-active starts (ticks) of the modelled operations in the
        current order."""
        grid = self.grid
        free = self.free
        ready = self.ready[:]
        out = []
        for j, q in self.ops:
            begin = max(ready[j], free)
            out.append(begin)
            free = begin + grid.dur[j][q]
            ready[j] = free + (grid.lag[j][q + 1] if q + 1 < self.counts[j]
                               else grid.tail[j])
        self._current_end = free
        self._current_ready = ready
        return out

    def _rest(self, j: int) -> int:
        """Own work of job ``j`` after its last modelled operation ends:
        ``sum_{q >= after_j} (lag + p) + tail``."""
        grid = self.grid
        q0 = self.after[j]
        return (sum(grid.lag[j][q0:]) + sum(grid.dur[j][q0:]) + grid.tail[j])

    def _current_bound(self) -> int:
        return max([r for r in self._current_ready], default=0) + \
            max((self._rest(j) for j in range(self.grid.num_jobs)), default=0)

    # -- model ---
    def _variables(self) -> None:
        """``s_o`` in ``[F, H]`` and the window intervals."""
        model, grid = self.model, self.grid
        self.start = [model.new_int_var(self.free, self.horizon, f"s[{j},{q}]")
                      for j, q in self.ops]
        self.end = [s + grid.dur[j][q] for s, (j, q) in zip(self.start, self.ops)]
        self.window = list(range(self.k))
        self.suffix = list(range(self.k, len(self.ops)))

    def _job_chains(self) -> None:
        """.. math:: s_{j,first} \\ge R_j, \\quad
                     s_{j,q+1} \\ge s_{jq} + p_{jq} + lag_{j,q+1}"""
        grid = self.grid
        last: dict[int, int] = {}
        for o, (j, q) in enumerate(self.ops):
            if j in last:
                self.model.add(self.start[o] >= self.end[last[j]] + grid.lag[j][q])
            else:
                self.model.add(self.start[o] >= self.ready[j])
            last[j] = o
        self.last_op = last

    def _window_no_overlap(self) -> None:
        """.. math:: \\text{NoOverlap}\\{[s_o, s_o + p_o) : o \\in W\\}"""
        grid = self.grid
        if len(self.window) > 1:
            self.model.add_no_overlap([
                self.model.new_fixed_size_interval_var(
                    self.start[o], grid.dur[self.ops[o][0]][self.ops[o][1]],
                    f"w[{o}]") for o in self.window])

    def _suffix_chain(self) -> None:
        """.. math:: s_{m+1} \\ge s_m + p_m \\ (m \\in S), \\quad
                     s_{S_0} \\ge s_o + p_o \\ (o \\in W)"""
        if not self.suffix:
            return
        first = self.suffix[0]
        for o in self.window:
            self.model.add(self.start[first] >= self.end[o])
        for m, m2 in zip(self.suffix, self.suffix[1:]):
            self.model.add(self.start[m2] >= self.end[m])

    def _completion_terms(self) -> list[tuple[int, Any]]:
        """``(j, C_j or its estimate)`` for every job (constants for jobs
        finished in the prefix or untouched by the modelled part)."""
        grid = self.grid
        out: list[tuple[int, Any]] = []
        for j in range(grid.num_jobs):
            if j in self.last_op:
                out.append((j, self.end[self.last_op[j]] + self._rest(j)))
            elif self.first[j] >= self.counts[j]:
                out.append((j, self.ready[j]))  # completed in the prefix
            else:
                out.append((j, self.ready[j] - (grid.lag[j][self.first[j]])
                            + self._rest(j)))
        return out

    def _objective(self) -> None:
        """Makespan ``M`` or stretch ``rho`` (module docstring), capped at
        the current value."""
        model, grid = self.model, self.grid
        terms = self._completion_terms()
        cut = self.b < len(self.order)
        if self.objective == "makespan":
            rest_node = 0
            if cut:
                rest_node = sum(grid.dur[j][q] for j, q in _tail_ops(
                    self.order[self.b:], self.after))
            current = max(self._value_of(terms, cut, rest_node))
            self.obj = model.new_int_var(0, current, "makespan")
            for _, term in terms:
                model.add(self.obj >= term)
            if cut and self.ops:
                model.add(self.obj >= self.end[len(self.ops) - 1] + rest_node)
        else:
            node = grid.node
            t = grid.start
            weights = [max(1, round(node.lengths[j] / grid.tick))
                       for j in range(grid.num_jobs)]
            self.obj = model.new_int_var(0, STRETCH_SCALE * 10**4, "rho")
            for j, term in terms:
                if node.lengths[j] > 0:
                    model.add(STRETCH_SCALE * (term - t) <= self.obj * weights[j])
        model.minimize(self.obj)

    def _value_of(self, terms: list[tuple[int, Any]], cut: bool,
                  rest_node: int) -> list[int]:
        """Current values of the makespan terms (for the cap)."""
        grid = self.grid
        values = []
        for j in range(grid.num_jobs):
            if j in self.last_op:
                o = self.last_op[j]
                j2, q = self.ops[o]
                values.append(self.current[o] + grid.dur[j2][q] + self._rest(j))
            else:
                values.append(int(_const(terms[j][1])))
        if cut:
            values.append(self._current_end + rest_node)
        return values

    def solve(self, time_limit: float, num_workers: int = 1, seed: int = 0
              ) -> RepairResult:
        from ortools.sat.python import cp_model

        from ...deadline import Stopwatch

        clock = Stopwatch()
        solver = cp_model.CpSolver()
        solver.parameters.max_time_in_seconds = max(0.01, time_limit)
        solver.parameters.num_workers = num_workers
        solver.parameters.random_seed = seed
        code = _solve_hinted(solver, self.model)
        name = solver.status_name(code)
        if code not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            return RepairResult(None, name, clock())
        window = sorted((solver.value(self.start[o]), o) for o in self.window)
        middle = [self.ops[o][0] for _, o in window]
        order = self.order[:self.a] + middle + self.order[self.a + self.k:]
        return RepairResult(order, name, clock())


def _solve_hinted(solver: Any, model: Any) -> int:
    """``solver.solve(model)`` (stoppable by Ctrl-C), again without the
    solution hint if CP-SAT fails on it (OR-Tools 9.15 raises ``IndexError:
    absl::btree_map::at`` on some hinted models; found on a 100x100 window,
    reproducible)."""
    try:
        return run_solver(solver, model)
    except (IndexError, RuntimeError):
        model.clear_hints()
        return run_solver(solver, model)


def _const(x: Any) -> int:
    return int(x)


def _tail_ops(rest: Sequence[int], first: Sequence[int]) -> list[tuple[int, int]]:
    nxt = list(first)
    out = []
    for j in rest:
        out.append((j, nxt[j]))
        nxt[j] += 1
    return out


def repair_window(grid: NodeGrid, objective: str, order: Sequence[int], a: int,
                  k: int, time_limit: float, *, num_workers: int = 1,
                  seed: int = 0) -> RepairResult:
    """Build and solve :class:`WindowRepair`."""
    return WindowRepair(grid, objective, order, a, k).solve(time_limit, num_workers,
                                                            seed)
