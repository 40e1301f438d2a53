"""How a CP-SAT scheduling backend runs its model, written once for the
three models (IO-SCHED, HPC-IO, packs).

:func:`build_and_solve`: build the model under the deadline (its data, its
warm structures, its constraints), export it if asked, then solve it.

- If the deadline passes while the model is being built, the answer is the
  best warm schedule (:func:`opt_sched.exact.warm.stopped_outcome`, without
  its pack claim for a model whose answers carry none);
- ``info["build_time"]`` is the time from the backend's start (the warm
  schedules included) to the end of the build.

:func:`prepare` is the backends' one-time set-up: the simulator's compiled
kernel, which the warm starts run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ...instance import Instance
from ...schedule import Schedule
from ..deadline import Deadline, OutOfTimeError, Stopwatch
from ..result import Outcome
from ..warm import prepare as warm_prepare
from ..warm import stopped_outcome

__all__ = ["build_and_solve", "prepare"]


def build_and_solve(build: Callable[[], Any], *, instance: Instance, objective: str,
                    schedules: Sequence[tuple[str, Schedule]], export: str | None,
                    deadline: Deadline, clock: Stopwatch, packs: bool = True
                    ) -> Outcome:
    """Build the model (``build()``, a :class:`~.base.CpsatModel`), write it
    to ``export`` if given, and solve it before ``deadline`` (module doc);
    ``clock`` started with the backend, ``schedules`` are its warm
    schedules."""
    try:
        model = build()
        if export:
            model.export(export)
    except OutOfTimeError as exc:
        return stopped_outcome(instance, list(schedules), objective, str(exc),
                               packs=packs)
    build_time = clock()
    outcome = model.solve(deadline)
    outcome.info["build_time"] = build_time
    return outcome


def prepare(options: object) -> None:
    """One-time set-up before the time limit runs: the simulator's kernel
    (warm starts)."""
    warm_prepare()
