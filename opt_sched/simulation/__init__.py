"""The event-driven simulator (SPEC §3, ARCHITECTURE "Simulator").

>>> from opt_sched.simulation import simulate, OnePackPlan, PackPlan, StartsPlan
>>> schedule = simulate(instance, plan=None, policy="fifo")  # doctest: +SKIP

- :mod:`.plans` -- :class:`OnePackPlan`, :class:`PackPlan`, :class:`StartsPlan`
  and their checks (:class:`~opt_sched.errors.PlanError`).
- :mod:`.policies` -- the eight I/O list policies and their registry.
- :mod:`.program` -- plans lowered to start queues and gates.
- :mod:`.heaps` -- the event heap and the I/O waiting heaps (numba, inline).
- :mod:`.events` -- the exclusive-I/O event loop (numba), shared with the
  replay's ``exclusive`` execution model.
- :mod:`.kernel` -- the plan driver of that loop: start queues and gates.
- :mod:`.engine` -- :func:`simulate`, the front door.
"""

from .engine import simulate
from .plans import OnePackPlan, PackPlan, Plan, StartsPlan
from .policies import POLICIES, POLICY_NAMES, Policy, get_policy

__all__ = [
    "POLICIES",
    "POLICY_NAMES",
    "OnePackPlan",
    "PackPlan",
    "Plan",
    "Policy",
    "StartsPlan",
    "get_policy",
    "simulate",
]
