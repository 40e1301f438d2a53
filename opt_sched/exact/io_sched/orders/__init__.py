"""I/O orders of one-pack partitions (IO-SCHED): the shared language of the
cyclic steady state (:mod:`opt_sched.exact.io_sched.cyclic`) and the large-neighbourhood
search (:mod:`opt_sched.exact.io_sched.lns`).

In IO-SCHED every job of partition ``k`` starts at ``t_k`` and the only
decision is the order in which the I/O node serves the operations (SPEC §5).
An order of one node is a sequence of *local job numbers*: the ``q``-th
occurrence of job ``j`` is its operation ``q`` (a job's operations keep their
order, SPEC §3 rule 3). Its semi-active timing (every operation as early as
the order allows) is optimal among the schedules with that order for both
objectives (``opt_sched/exact/brute_force.py``), so an order *is* a solution.

- :mod:`.node` -- :class:`NodeJobs`, the jobs of one I/O node in the form the
  searches need (lags, durations, tails, lengths).
- :mod:`.timing` -- :func:`semi_active`, the value of an order, and the
  conversion of per-node orders to a validated-ready :class:`Schedule`.
"""

from .node import NodeJobs, node_jobs
from .timing import (
    NodeTiming,
    objective_value,
    order_value,
    orders_from_schedule,
    orders_to_schedule,
    semi_active,
)

__all__ = ["NodeJobs", "NodeTiming", "node_jobs", "objective_value", "order_value",
           "orders_from_schedule", "orders_to_schedule", "semi_active"]
