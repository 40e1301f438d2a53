"""The average-bandwidth planning model (SPEC §5; ``models/planning.md``).

Jobs are boxes of length ``T_i`` using ``Q_i`` nodes, ``beta_i = V_i / T_i``
bandwidth and their named resources (``demands``), under dependencies and
releases: a multi-resource project scheduling problem (RCPSP). The plan is
solved by CP-SAT or a time-indexed MILP and then *executed* under rules 1-5
by the simulator; the executed schedule is what the front door certifies and
returns.

- :mod:`.data` -- the data (:class:`PlanningData`, ticks);
- :mod:`.plan` -- what both backends share: the serial-SGS start, the
  execution of a plan (:func:`greedy_partitions`), the honest bounds;
- :mod:`.cpsat` -- :class:`~.cpsat.PlanningCpsat`;
- :mod:`.milp` -- :class:`~.milp.PlanningMilp`;
- :mod:`.cpsat_backend`, :mod:`.milp_backend` -- the registered exact
  backends (:mod:`opt_sched.exact.registry`): options, objectives, ``run``.
  The models sit below :mod:`.plan` (which exports them), the backends
  above it.

The serial SGS itself is a heuristic (:mod:`opt_sched.heuristics.serial_sgs`)
and the PSPLIB benchmark a script (``scripts/bench_psplib.py``). Use the
models through :func:`opt_sched.solve` (``problem="planning"``) or
:func:`solve_planning`.
"""

from __future__ import annotations

from typing import Any

from ...instance import Instance
from ..result import Result
from .data import PlanningData
from .plan import greedy_partitions

__all__ = ["PlanningData", "greedy_partitions", "solve_planning"]


def solve_planning(instance: Instance, objective: str = "makespan",
                   solver: str = "cpsat", time_limit: float = 60.0, seed: int = 0,
                   num_workers: int = 2, export: str | None = None,
                   **options: Any) -> Result:
    """:func:`opt_sched.solve` with ``problem="planning"``.

    ``**options``: ``resolution`` and the fields of the backend's options
    record (:class:`~opt_sched.exact.cpsat.settings.PlanningCpsatSettings`,
    :class:`~opt_sched.exact.planning.milp.PlanningMilpSettings`). The
    result's ``schedule`` is the executed, validated schedule, ``objective``
    its makespan, ``lower_bound`` a bound valid for the executed problem;
    ``info`` holds ``planned_makespan``, ``plan_status``, ``plan_bound``,
    ``plan_bound_valid``, ``resolution``, ...
    """
    from ..solve import solve

    return solve(instance, "planning", objective, solver, time_limit, seed,
                 num_workers, export=export, **options)
