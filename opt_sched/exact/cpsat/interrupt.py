"""Running a ``CpSolver`` so that Ctrl-C stops it.

CP-SAT searches in C++ threads; while ``CpSolver.solve`` runs, the main
thread never returns to the interpreter, so Python cannot run its SIGINT
handler and a Ctrl-C waits for the time limit (CP-SAT's own handler,
``catch_sigint_signal``, is switched off by
:func:`~opt_sched.exact.cpsat.settings.make_solver`: it would replace
Python's, and it aborts when the search runs off the main thread).
:func:`run_solver` therefore
runs ``solve`` in a worker thread (CP-SAT releases the GIL) and waits for it
in the main thread, where a ``KeyboardInterrupt`` arrives at once: it calls
``solver.stop_search()`` (CP-SAT stops within milliseconds), waits for the
solver to return, and raises the ``KeyboardInterrupt`` again, so the caller
(for instance the command line) can keep what it finished and exit.

Every CP-SAT search of opt_sched goes through :func:`run_solver`, which
also switches ``catch_sigint_signal`` off whoever built the solver: a
``CpSolver`` made with the defaults (OR-Tools turns the parameter on)
replaces Python's SIGINT handler for the whole search, so a Ctrl-C only
ended the current search and the caller's loop went on (the LNS, the
deadline questions of the portfolio ran to their time limit and exited 0),
and a second Ctrl-C could land in a handler whose callback had gone
(``std::bad_function_call``, abort).
"""

from __future__ import annotations

import threading
from typing import Any

__all__ = ["run_solver"]

_POLL = 0.1
"""Seconds between two checks of the worker (a KeyboardInterrupt interrupts
the wait at once anyway)."""

_STOP_POLL = 0.02
"""Seconds between two stop requests while an interrupted search ends."""


def run_solver(solver: Any, model: Any) -> int:
    """``solver.solve(model)``, stoppable by a ``KeyboardInterrupt``.

    Returns the CP-SAT status code. Outside the main thread (no signal can
    arrive there) the solve runs directly. CP-SAT's own SIGINT handler is
    switched off first (module docstring).

    Raises
    ------
    KeyboardInterrupt
        After the interrupted search has stopped.
    """
    solver.parameters.catch_sigint_signal = False
    if threading.current_thread() is not threading.main_thread():
        return solver.solve(model)
    box: dict[str, Any] = {}
    done = threading.Event()

    def target() -> None:
        try:
            box["status"] = solver.solve(model)
        except BaseException as exc:  # re-raised in the caller's thread
            box["error"] = exc
        finally:
            done.set()

    # Waiting on an Event, not on Thread.join: a join interrupted by a
    # KeyboardInterrupt marks a running thread as stopped (CPython 3.11).
    worker = threading.Thread(target=target, name="cpsat-solve", daemon=True)
    try:
        worker.start()
        while not done.wait(_POLL):
            pass
    except KeyboardInterrupt:
        _stop(solver, done)
        raise
    if "error" in box:
        raise box["error"]
    return box["status"]


def _stop(solver: Any, done: threading.Event) -> None:
    """Stop the search and wait until it has returned. ``stop_search`` is
    repeated until then: a stop that comes before CP-SAT has started its
    search is lost. A second Ctrl-C meanwhile does not abandon the search (a
    search left running would abort the interpreter at exit)."""
    while not done.is_set():
        try:
            solver.stop_search()
            done.wait(_STOP_POLL)
        except KeyboardInterrupt:
            continue
