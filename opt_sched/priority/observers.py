"""The optional event hooks of a queue order (a proposed extension of the
``QueueOrder`` protocol of :mod:`opt_sched.scheduling.queue_order`).

A ``QueueOrder`` has ``attach(jobs, cluster)`` and ``sort(queue, now)``.
Priorities that depend on history need three events a scheduler already
receives; an order that wants them defines any of

- ``observe_submit(now, job)``: ``job`` became eligible (the engine's
  ``submit``: its release, or the end of its last dependency). Slurm's age
  factor counts from this instant.
- ``observe_start(now, job)``: the scheduler started ``job``.
- ``observe_end(now, job, killed)``: ``job`` ended (the engine's
  ``complete``).

A scheduler calls them *if present* (:func:`notify_submit`,
:func:`notify_start`, :func:`notify_end`), so orders without them (``fcfs``,
``sjf``) need no change. The :class:`QueueObserver` protocol documents them.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

__all__ = ["QueueObserver", "notify_end", "notify_start", "notify_submit"]


@runtime_checkable
class QueueObserver(Protocol):
    """A queue order that follows the jobs' lives (all three hooks)."""

    def observe_submit(self, now: float, job: int) -> None: ...

    def observe_start(self, now: float, job: int) -> None: ...

    def observe_end(self, now: float, job: int, killed: bool) -> None: ...


def notify_submit(order: object, now: float, job: int) -> None:
    """Call ``order.observe_submit(now, job)`` if the order has it."""
    hook = getattr(order, "observe_submit", None)
    if hook is not None:
        hook(now, job)


def notify_start(order: object, now: float, job: int) -> None:
    """Call ``order.observe_start(now, job)`` if the order has it."""
    hook = getattr(order, "observe_start", None)
    if hook is not None:
        hook(now, job)


def notify_end(order: object, now: float, job: int, killed: bool) -> None:
    """Call ``order.observe_end(now, job, killed)`` if the order has it."""
    hook = getattr(order, "observe_end", None)
    if hook is not None:
        hook(now, job, killed)
