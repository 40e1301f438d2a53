"""The ExecutionModel seam: how the phases of running jobs proceed.

A scheduler decides *when* a job starts and *where*; the execution model
decides what then happens to its phases, in particular how the I/O phases of
the jobs sharing one I/O node proceed (SPEC §10): one at a time at full
bandwidth (``exclusive``, rule 5), sharing the bandwidth (``shared``), ...
The replay engine drives it between job-level events:

.. code-block:: text

    t, ended = model.advance(until)   # run internal (I/O) events up to the
                                      # first instant where a job ends, or
                                      # up to `until`
    ... the scheduler decides at t ...
    model.start(t, job, partition)    # for each job started at t
    ended = model.settle(t)           # finish instant t (jobs that end at t
                                      # because they just started, then the
                                      # I/O choices of instant t)

*Decisions are taken once per instant*: at an instant where a job ends,
``advance`` applies every event of that instant but defers the instant's
I/O choices, so that phases requested by jobs the scheduler starts at that
instant compete with the phases already waiting (the rule of the batch
simulator, ``opt_sched.simulation``).

Every model also says how its results become a schedule
(:meth:`ExecutionModel.phases`), and the schedule records the model's
``name`` so that the validator applies the matching I/O rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ..instance import Instance

__all__ = ["ExecutionModel", "JobPhases"]


@dataclass(frozen=True, slots=True)
class JobPhases:
    """The phase times of one job as executed: one entry per *started*
    phase (all of them unless the job was killed). ``io_ends`` is stated by
    models where an I/O phase does not last ``v/b``; ``None`` otherwise."""

    compute_starts: tuple[float, ...]
    io_starts: tuple[float, ...]
    io_ends: tuple[float, ...] | None = None


@runtime_checkable
class ExecutionModel(Protocol):
    """How the phases of the running jobs proceed (see the module docstring).

    Times are absolute. ``advance`` never moves past ``until`` and never
    returns an instant earlier than a previous one.
    """

    name: str

    def attach(self, instance: Instance) -> None:
        """Start of the replay (no job running)."""
        ...

    def start(self, now: float, job: int, partition: int) -> None:
        """``job`` starts its first compute phase at ``now`` on ``partition``."""
        ...

    def advance(self, until: float) -> tuple[float, Sequence[int]]:
        """Run events up to the first instant ``t <= until`` where jobs end;
        return ``(t, those jobs)``. With no job ending by ``until``, apply the
        events of instant ``until`` itself (its I/O choices deferred) and
        return ``(until, ())``."""
        ...

    def settle(self, now: float) -> Sequence[int]:
        """Apply the events that starts at ``now`` created; return the jobs
        that end at ``now`` because of them (the engine then asks the
        scheduler again); otherwise make the I/O choices of ``now`` and
        return ``()``."""
        ...

    def kill(self, now: float, job: int) -> None:
        """Stop ``job`` at ``now`` (its wall time): its pending phases are
        dropped and the phase in progress is cut."""
        ...

    def next_time(self) -> float:
        """The time of the next internal event (``inf`` if none)."""
        ...

    def phases(self, job: int) -> JobPhases:
        """The executed phase times of ``job`` (after the replay)."""
        ...
