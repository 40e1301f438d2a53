"""The error boundary: every command runs inside :func:`run_command`.

It turns what a command raises into one line on stderr and an exit status
(:mod:`.exit_codes`):

- :class:`~opt_sched.errors.UserError` -> ``opt-sched: error: <message>``,
  status 2. The message already names the field and the value: the fix of
  each bad input lives where the input is checked, not here.
- :class:`~opt_sched.errors.InternalError` -> ``opt-sched: internal error
  (a bug, please report): ...``, status 3. Any other exception is a bug too
  (status 3, one line; ``OPT_SCHED_DEBUG=1`` prints the traceback).
- ``KeyboardInterrupt`` -> ``opt-sched: interrupted, 12 rows kept in
  gaps.csv``, status 130 (:mod:`.rows` says what was kept).
- a closed stdout (``opt-sched gap ... | head``) -> status 0, quietly.

Warnings of opt_sched (:class:`~opt_sched.errors.OptSchedWarning`) are
printed as one line ``opt-sched: warning: ...``.

Ctrl-C within about a second
----------------------------
Python turns SIGINT into ``KeyboardInterrupt`` only between bytecodes, so a
long call into native code (a CP-SAT search, a numba kernel) would delay it
until the call returns. :class:`InterruptWatchdog` therefore also listens
to the signal from a thread (:func:`signal.set_wakeup_fd`: the C-level
handler writes the signal number to a pipe even while the main thread is
in native code). ``GRACE`` seconds after the first SIGINT, or at once on a
second one, if the process is still alive, the watchdog removes the
temporary files of unfinished atomic writes (:mod:`opt_sched.files`),
prints the same one line and ends the process with status 130. Files that
were complete stay complete; nothing half-written is left.

A Ctrl-C that lands in a Python callback called from C (numba's compiler
calls back through ctypes while it compiles a kernel, the first time) is
not raised in the caller: Python prints "Exception ignored ... Traceback
... KeyboardInterrupt" and goes on. :class:`_LostInterrupts` replaces that
print with nothing: the watchdog, which saw the signal, still ends the
process ``GRACE`` seconds later, and a command that returns before counts
as interrupted.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import sys
import threading
import traceback
import warnings
from collections.abc import Callable, Iterator
from typing import Any

from ..errors import InternalError, OptSchedWarning, UserError
from ..files import pending_temporaries
from .exit_codes import (
    EXIT_BAD_INPUT,
    EXIT_BUG,
    EXIT_INTERRUPTED,
    EXIT_OK,
)
from .rows import forget_all, kept_summary

__all__ = ["GRACE", "InterruptWatchdog", "interrupt_line", "run_command"]

PROG = "opt-sched"
GRACE = 1.0  # seconds between the first SIGINT and the forced stop

_REPORTED = threading.Event()  # the interrupt line was printed
_STOP_BYTE = b"\x00"


def interrupt_line() -> str:
    """``opt-sched: interrupted[, what was kept]``."""
    kept = kept_summary()
    return f"{PROG}: interrupted" + (f", {kept}" if kept else "")


def _say(line: str) -> None:
    """Print one line on stderr (from the main thread)."""
    with contextlib.suppress(OSError, ValueError):
        print(line, file=sys.stderr, flush=True)


def _say_raw(line: str) -> None:
    """Write one line to fd 2 with one system call: safe from the watchdog
    thread even if the main thread holds the lock of ``sys.stderr``."""
    with contextlib.suppress(OSError):
        os.write(2, (line + "\n").encode("utf-8", "replace"))


def _report_interrupt(say: Callable[[str], None] = _say) -> None:
    if not _REPORTED.is_set():
        _REPORTED.set()
        say(interrupt_line())


class InterruptWatchdog:
    """Ends the process ``GRACE`` seconds after Ctrl-C if Python has not.

    Installed only from the main thread and only when SIGINT is handled by
    Python (not when the caller chose to ignore it).
    """

    def __init__(self, grace: float = GRACE,
                 exit_function: Callable[[int], Any] = os._exit) -> None:
        self.grace = grace
        self._exit = exit_function
        self._pipe: tuple[int, int] | None = None
        self._previous_fd = -1
        self.interrupted = threading.Event()

    def install(self) -> bool:
        if threading.current_thread() is not threading.main_thread():
            return False
        if signal.getsignal(signal.SIGINT) in (signal.SIG_IGN, signal.SIG_DFL, None):
            return False
        read_end, write_end = os.pipe()
        os.set_blocking(write_end, False)
        try:
            self._previous_fd = signal.set_wakeup_fd(write_end)
        except (ValueError, OSError):
            os.close(read_end)
            os.close(write_end)
            return False
        self._pipe = (read_end, write_end)
        threading.Thread(target=self._watch, args=(read_end,), daemon=True,
                         name="opt-sched-interrupt-watchdog").start()
        return True

    def uninstall(self, *, keep_armed: bool = False) -> None:
        """Stop watching. With ``keep_armed`` and after a Ctrl-C, the armed
        watchdog stays: if the interpreter's own exit then hangs (a solver
        thread still running), it still ends the process after ``GRACE``."""
        if self._pipe is None:
            return
        with contextlib.suppress(ValueError, OSError):
            signal.set_wakeup_fd(self._previous_fd)
        _, write_end = self._pipe
        self._pipe = None
        if keep_armed and self.interrupted.is_set():
            return  # the pipe stays open: closing it would wake the watchdog
        with contextlib.suppress(OSError):
            os.write(write_end, _STOP_BYTE)
            os.close(write_end)

    def _watch(self, read_end: int) -> None:
        try:
            while True:
                data = os.read(read_end, 64)
                if not data or _STOP_BYTE in data:
                    return
                if bytes([signal.SIGINT]) in data:
                    break
            self.interrupted.set()
            ready, _, _ = select.select([read_end], [], [], self.grace)
            if ready:  # a second Ctrl-C, or the command has ended
                data = os.read(read_end, 64)
                if not data or (_STOP_BYTE in data
                                and bytes([signal.SIGINT]) not in data):
                    return
            self._force_stop()
        finally:
            with contextlib.suppress(OSError):
                os.close(read_end)

    def _force_stop(self) -> None:
        for temporary in pending_temporaries():
            with contextlib.suppress(OSError):
                temporary.unlink()
        _report_interrupt(_say_raw)
        self._exit(EXIT_INTERRUPTED)


class _LostInterrupts:
    """Catches the ``KeyboardInterrupt`` s that Python could not raise (in
    a callback from C, module docstring) instead of printing them as
    ignored exceptions; :attr:`lost` says whether there was one."""

    def __init__(self) -> None:
        self.lost = False
        self._previous: Callable[[Any], Any] = sys.unraisablehook

    def __enter__(self) -> _LostInterrupts:
        self._previous = sys.unraisablehook
        sys.unraisablehook = self._hook
        return self

    def __exit__(self, *exc: object) -> None:
        sys.unraisablehook = self._previous

    def _hook(self, unraisable: Any) -> None:
        if isinstance(unraisable.exc_value, KeyboardInterrupt):
            self.lost = True
        else:
            self._previous(unraisable)


def _one_line_warning(message: Any, category: type[Warning], filename: str,
                      lineno: int, file: Any = None, line: str | None = None
                      ) -> None:
    text = str(message).splitlines()[0] if str(message) else category.__name__
    print(f"{PROG}: warning: {text}", file=sys.stderr if file is None else file)


@contextlib.contextmanager
def _warnings_as_lines() -> Iterator[None]:
    previous = warnings.showwarning

    def show(message: Any, category: type[Warning], filename: str, lineno: int,
             file: Any = None, line: str | None = None) -> None:
        if issubclass(category, OptSchedWarning):
            _one_line_warning(message, category, filename, lineno, file, line)
        else:
            previous(message, category, filename, lineno, file, line)

    warnings.showwarning = show
    try:
        yield
    finally:
        warnings.showwarning = previous


def _one_line(err: BaseException) -> str:
    """The message on one line (a multi-line message is joined by '; ')."""
    return "; ".join(part.strip() for part in str(err).splitlines() if part.strip())


def _bug_line(err: BaseException) -> str:
    where = ""
    frames = traceback.extract_tb(err.__traceback__)
    if frames:
        last = frames[-1]
        where = f" at {os.path.basename(last.filename)}:{last.lineno}"
    text = str(err).splitlines()[0] if str(err) else ""
    detail = f"{type(err).__name__}{where}" + (f": {text}" if text else "")
    return (f"{PROG}: internal error (a bug, please report): {detail} "
            f"(OPT_SCHED_DEBUG=1 shows the traceback)")


def _quiet_broken_stdout() -> None:
    """After ``| head`` closed stdout: stop Python from complaining at exit."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def run_command(command: Callable[[Any], int], args: Any, *,
                owns_process: bool = False) -> int:
    """Run ``command(args)`` inside the boundary; return the exit status.

    ``owns_process``: the caller exits right after (the ``opt-sched``
    program, not a test calling :func:`~opt_sched.cli.main` in-process); a
    Ctrl-C then leaves the watchdog armed until the process has ended.
    """
    _REPORTED.clear()
    forget_all()
    watchdog = InterruptWatchdog()
    watchdog.install()
    try:
        with _warnings_as_lines(), _LostInterrupts() as interrupts:
            status = int(command(args))
        if interrupts.lost:
            raise KeyboardInterrupt
        return status
    except KeyboardInterrupt:
        watchdog.interrupted.set()
        _report_interrupt()
        return EXIT_INTERRUPTED
    except InternalError as err:
        _say(f"{PROG}: internal error (a bug, please report): {_one_line(err)}")
        return EXIT_BUG
    except UserError as err:
        _say(f"{PROG}: error: {_one_line(err)}")
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        _quiet_broken_stdout()
        return EXIT_OK
    except Exception as err:
        if os.environ.get("OPT_SCHED_DEBUG"):
            traceback.print_exc()
        _say(_bug_line(err))
        return EXIT_BUG
    finally:
        watchdog.uninstall(keep_armed=owns_process)
