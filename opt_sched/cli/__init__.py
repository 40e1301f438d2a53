"""The ``opt-sched`` command line.

Every command reads instance / schedule files, calls the library and prints
a table for people, or JSON with ``--json``. The commands are listed in
:mod:`.registry`, one module each in :mod:`.commands`; the shared parts are
the parser (:mod:`.parser`), argument types (:mod:`.arguments`), tables
(:mod:`.tables`), JSON and file output (:mod:`.output`, :mod:`.rows`), plan
files (:mod:`.plan_file`) and the error boundary (:mod:`.boundary`) that
maps what a command raises to an exit status (:mod:`.exit_codes`): 0 ok,
1 infeasible schedule (``validate``), 2 bad input, 3 a bug, 130
interrupted.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Sequence

from ..errors import UserError
from ..lazy import lazy_exports
from .boundary import run_command
from .exit_codes import (
    EXIT_BAD_INPUT,
    EXIT_BUG,
    EXIT_INFEASIBLE,
    EXIT_INTERRUPTED,
    EXIT_OK,
)
from .parser import make_parser

__all__ = ["EXIT_BAD_INPUT", "EXIT_BUG", "EXIT_INFEASIBLE", "EXIT_INTERRUPTED",
           "EXIT_OK", "build_plan", "main", "make_parser"]


# ``build_plan`` is imported on first use: :mod:`.plan_file` needs numpy,
# which ``opt-sched --help`` does without (PEP 562).
__getattr__, __dir__ = lazy_exports(__name__, globals(), {"build_plan": ".plan_file"})


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``opt-sched`` with ``argv`` (default: the process's arguments)
    and return its exit status."""
    try:
        words = sys.argv[1:] if argv is None else list(argv)
        args = make_parser(words).parse_args(words)
    except KeyboardInterrupt:
        print("opt-sched: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except UserError as err:  # a plug-in listed in a command's choices fails
        print(f"opt-sched: error: {str(err).splitlines()[0]}", file=sys.stderr)
        return EXIT_BAD_INPUT
    owns_process = argv is None
    try:
        status = run_command(args.run, args, owns_process=owns_process)
    except KeyboardInterrupt:  # Ctrl-C just as the command ended
        print("opt-sched: interrupted", file=sys.stderr)
        status = EXIT_INTERRUPTED
    if status == EXIT_INTERRUPTED and owns_process:
        _exit_now(status)
    if owns_process:
        _end_without_teardown(status)
    return status


def _end_without_teardown(status: int) -> None:
    """End a finished ``opt-sched`` without the interpreter's teardown:
    freeing the objects of a large run one by one is 0.15 s after a KTH-SP2
    replay (of its 1.1 s), seconds after a large solver model. Every output
    is complete on disk (atomic writes); the standard streams are flushed
    and the ``atexit`` handlers run (temporary folders, process pools), as
    at a normal exit. Returns, for the normal exit, when a thread that is
    not a daemon still runs (the normal exit waits for it) or a stream
    cannot be flushed (the normal exit reports it)."""
    import atexit

    main_thread = threading.main_thread()
    if any(thread.is_alive() and not thread.daemon
           for thread in threading.enumerate() if thread is not main_thread):
        return
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(status)


def _exit_now(status: int) -> None:
    """End an interrupted ``opt-sched`` at once: every output is already
    complete on disk (atomic writes), and the interpreter's own clean-up
    (a garbage collection of a large solver model takes seconds, holding
    the lock every other thread needs) would break the one-second promise."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(status)
