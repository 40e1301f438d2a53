"""The seam between the validator and an execution model (SPEC §10).

An execution model says how the I/O phases of concurrent jobs proceed on one
I/O node. On the validator's side it is an :class:`IoRule`, which does two
things:

1. :meth:`IoRule.io_ends` gives the end of every I/O phase. The other rules
   (phase order, node capacity, completions, wall-time kills) use these ends,
   and rule 2 compares the ends a schedule states with them. Under the
   exclusive model an I/O phase runs at full bandwidth, so its end is
   ``o + v / b``; under a bandwidth-sharing model it is the end the schedule
   states (``JobSchedule.io_ends``), which the model's own check then
   justifies with rate segments.
2. :meth:`IoRule.check` reports every violation of the model's I/O rule
   (reported as rule 5 with the rule's :attr:`~IoRule.name`).

Adding a model is one module with a class that satisfies :class:`IoRule`,
and one line in :data:`opt_sched.validation.io_rules.IO_RULES`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np

if TYPE_CHECKING:
    from ..instance import Instance
    from ..schedule import Schedule
    from .phase_table import PhaseTable
    from .report import Collector
    from .tolerance import PhaseTolerances

__all__ = ["IoPhases", "IoRule"]


@dataclass(frozen=True)
class IoPhases:
    """Every I/O phase of the schedule, as flat arrays (job after job).

    Arrays have one entry per I/O phase slot, in the order of the phase table
    (:class:`~opt_sched.validation.phase_table.PhaseTable`): ``job`` is the index
    of the job in the instance, ``iteration`` is ``j``, ``partition`` is
    ``k(i)``, ``start`` is ``o_ij``, ``volume`` is ``v_ij``, ``bandwidth`` is
    ``b_k(i)``, ``stated_end`` is the end the schedule states (NaN where it
    states none). ``started`` is False only for the slot of the last I/O
    phase of a job killed before it started that phase: such a slot has
    ``start`` = the end of its compute phase and ``volume`` 0; it is no
    phase and every rule skips it.
    """

    job: np.ndarray
    iteration: np.ndarray
    partition: np.ndarray
    start: np.ndarray
    volume: np.ndarray
    bandwidth: np.ndarray
    stated_end: np.ndarray
    started: np.ndarray


@runtime_checkable
class IoRule(Protocol):
    """The validator's side of an execution model.

    Attributes
    ----------
    execution
        The model's name, as written in ``Schedule.execution``.
    name
        The name of the rule, as reported: ``"rule 5 <name>: ..."``.
    """

    execution: str
    name: str

    def io_ends(self, instance: Instance, schedule: Schedule,
                phases: IoPhases) -> np.ndarray:
        """The end of every I/O phase slot, aligned with ``phases.start``,
        before any wall-time kill cuts it (the validator cuts)."""
        ...

    def check(self, instance: Instance, schedule: Schedule, table: PhaseTable,
              tol: PhaseTolerances, out: Collector) -> None:
        """Count (``out.found``) and store (``out.add``) every violation of
        the model's I/O rule as rule 5. ``tol`` holds the tolerance of every
        phase end (:class:`~opt_sched.validation.tolerance.PhaseTolerances`):
        an overlap or a difference within it is rounding, not a violation.
        Slots with ``table.o_started`` False are no phases."""
        ...
