"""Cyclic steady state of periodic IO-SCHED instances (``models/cyclic.md``).

>>> from opt_sched.exact.io_sched.cyclic import cyclic_schedule
>>> schedule, info = cyclic_schedule(instance, "makespan", 10)  # doctest: +SKIP

- :mod:`.pattern` -- periodic jobs and their multiplicities per period.
- :mod:`.period` -- the CP-SAT model of one period (wrap-around NoOverlap),
  minimising the period.
- :mod:`.brute_force` -- the referee: the smallest period by enumeration.
- :mod:`.unroll` -- rotation, unrolling, ramp-up and ramp-down.
- :mod:`.solve` -- :func:`cyclic_schedule`, the method.
"""

from .pattern import CyclicPattern, cyclic_pattern, is_periodic_node, multiplicities
from .period import PeriodModel, PeriodSolution, solve_period
from .solve import CyclicNode, cyclic_node_order, cyclic_schedule
from .unroll import best_rotation, unrolled_order

__all__ = ["CyclicNode", "CyclicPattern", "PeriodModel", "PeriodSolution",
           "best_rotation", "cyclic_node_order", "cyclic_pattern", "cyclic_schedule",
           "is_periodic_node", "multiplicities", "solve_period", "unrolled_order"]
