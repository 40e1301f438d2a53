"""Progress of an exact solve, for whoever listens (the command line).

The layers of a solve call :func:`report` as they go: the front door when
the combinatorial bound is known, the CP-SAT loop at each phase and answer
(:mod:`opt_sched.exact.cpsat.search`), the portfolio at each of its phases,
the LNS at each improvement. Values are in the units of the objective
(seconds for the makespan) and concern the whole instance:

- ``phase``: what runs now (``"bounds"``, ``"cpsat: optimise"``,
  ``"portfolio: questions"``, ...); :data:`SETUP` is the backend's one-time
  set-up, which the time limit does not count: the time limit runs from the
  phase after it;
- ``restart``: a new search starts (the front door of each solve, each
  bound of ``replay --window``): forget the values, restart the clock; its
  ``phase``, if any, names the search and stays in front of the phases
  reported during it (a restart without one keeps the name: the window
  names each objective's solve, whose front door restarts again);
- ``incumbent``: the value of the best schedule found so far;
- ``bound``: a proven lower bound of the optimum.

Without a listener (:func:`listening`) a report costs one test. The
listener is called in the thread that reports; it must be quick and must
not raise.

Example
-------
>>> seen = []
>>> with listening(lambda phase, incumbent, bound, restart:
...                seen.append((phase, bound))):
...     report("bounds", bound=12.5)
>>> seen
[('bounds', 12.5)]
>>> report("bounds", bound=13.0)  # nobody listens: nothing happens
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

__all__ = ["SETUP", "Listener", "listening", "report"]

SETUP = "set-up"
"""The phase of the one-time set-up (imports, compiled kernels): not part
of the time limit."""

Listener = Callable[[str | None, float | None, float | None, bool], None]
"""``(phase, incumbent, bound, restart)``; ``None`` for what did not
change."""

_listeners: list[Listener] = []


def report(phase: str | None = None, *, incumbent: float | None = None,
           bound: float | None = None, restart: bool = False) -> None:
    """Tell the listener, if any, the phase that starts and/or new values
    (module docstring)."""
    if _listeners:
        _listeners[-1](phase, incumbent, bound, restart)


@contextlib.contextmanager
def listening(listener: Listener) -> Iterator[None]:
    """Send the reports made inside the block to ``listener``."""
    _listeners.append(listener)
    try:
        yield
    finally:
        _listeners.remove(listener)
