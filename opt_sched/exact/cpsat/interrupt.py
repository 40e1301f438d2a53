"""Running a ``CpSolver`` so that Ctrl-C stops it.

CP-SAT searches in C++ threads; while ``CpSolver.solve`` runs, the main
thread never returns to the interpreter, so Python cannot run its SIGINT
handler and a Ctrl-C waits for the time limit. :func:`run_solver` therefore
runs ``solve`` in a worker thread (CP-SAT releases the GIL) and waits for it
in the main thread, where a ``KeyboardInterrupt`` arrives at once: it calls
``solver.stop_search()`` (CP-SAT stops within milliseconds), waits for the
solver to return, and raises the ``KeyboardInterrupt`` again, so the caller
(for instance the command line) can keep what it finished and exit.
"""

from __future__ import annotations

import threading
from typing import Any

__all__ = ["run_solver"]

_POLL = 0.1
"""Seconds between two checks of the worker (a KeyboardInterrupt interrupts
the wait at once anyway)."""


def run_solver(solver: Any, model: Any) -> int:
    """``solver.solve(model)``, stoppable by a ``KeyboardInterrupt``.

    Returns the CP-SAT status code. Outside the main thread (no signal can
    arrive there) the solve runs directly.

    Raises
    ------
    KeyboardInterrupt
        After the interrupted search has stopped.
    """
    if threading.current_thread() is not threading.main_thread():
        return solver.solve(model)
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["status"] = solver.solve(model)
        except BaseException as exc:  # re-raised in the caller's thread
            box["error"] = exc

    worker = threading.Thread(target=target, name="cpsat-solve", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(_POLL)
    except KeyboardInterrupt:
        solver.stop_search()
        worker.join()
        raise
    if "error" in box:
        raise box["error"]
    return box["status"]
