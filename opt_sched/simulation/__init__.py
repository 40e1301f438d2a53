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

from ..lazy import lazy_exports
from .policies import POLICIES, POLICY_NAMES, Policy, get_policy

# The batch simulator's front door and plans on first use (PEP 562): the
# replay's ``exclusive`` model needs only the event loop (.events).
__getattr__, __dir__ = lazy_exports(__name__, globals(), {
    "simulate": ".engine",
    **dict.fromkeys(("OnePackPlan", "PackPlan", "Plan", "StartsPlan"), ".plans"),
})

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
