"""The progress of a long command on stderr: ``solve`` and the window bounds
of ``replay --window``.

The library reports phases and values (:mod:`opt_sched.exact.progress`);
:class:`ProgressLines` keeps the latest and a thread prints them, so that a
report costs the solver nothing and a line comes out even while the main
thread is in native code (a CP-SAT search):

- on a terminal, one status line rewritten in place, erased at the end
  and before anything else is written to ``sys.stderr`` (a warning);
- otherwise (a pipe, a log file), a line every :data:`PERIOD` seconds when
  something moved, every :data:`HEARTBEAT` seconds anyway, the first one
  :data:`FIRST_LINE` seconds after the timed work started (the first
  phase reported, after the set-up): a quick command prints nothing.

A line::

    opt-sched: solve 12.1 s / 60 s  cpsat: optimise  incumbent 1,234.5  bound
    1,200  gap 2.88 %

(on one line). Lines are written to file descriptor 2 with one system
call each (no lock shared with the main thread, which may be interrupted at
any point).
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import TextIO

__all__ = ["FIRST_LINE", "HEARTBEAT", "PERIOD", "ProgressLines", "format_line",
           "solve_progress"]

FIRST_LINE = 1.0
"""Seconds before the first line (quick commands stay silent)."""

PERIOD = 3.0
"""Least seconds between two lines when something moved."""

HEARTBEAT = 10.0
"""Most seconds between two lines."""

_TICK = 0.25
"""Seconds between two looks of the printing thread."""

_ERASE = "\r\x1b[2K"


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:,.6g}"


def format_line(label: str, elapsed: float, limit: float | None,
                phase: str | None, incumbent: float | None,
                bound: float | None) -> str:
    """``opt-sched: LABEL 12.1 s / 60 s  PHASE  incumbent X  bound Y  gap Z %``
    (the parts not known yet are left out)."""
    parts = [f"opt-sched: {label} {elapsed:.1f} s"
             + (f" / {limit:g} s" if limit is not None else "")]
    if phase:
        parts.append(phase)
    if incumbent is not None:
        parts.append(f"incumbent {_number(incumbent)}")
    if bound is not None:
        parts.append(f"bound {_number(bound)}")
    gap = _gap(incumbent, bound)
    if gap is not None:
        parts.append(f"gap {100 * gap:.2f} %")
    return "  ".join(parts)


def _gap(incumbent: float | None, bound: float | None) -> float | None:
    """The project's one gap, ``(x - L) / L`` (:func:`~opt_sched.objectives.
    relative_gap`); none while the two values a solver reported mid-search
    cross (a display must not raise)."""
    from ..errors import BoundViolationError
    from ..objectives import relative_gap

    try:
        return relative_gap(incumbent, bound)
    except BoundViolationError:
        return None


class ProgressLines:
    """The latest phase, incumbent and bound, printed by a thread (module
    docstring). Use as a context manager; :meth:`update` is the listener of
    :func:`opt_sched.exact.progress.listening`."""

    def __init__(self, label: str, limit: float | None = None, *,
                 stream: TextIO | None = None, terminal: bool | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 setup_phase: str | None = None) -> None:
        self.label = label
        self.limit = limit
        self.setup_phase = setup_phase
        """A phase the time limit does not count: the clock restarts after it."""
        self._stream = stream if stream is not None else sys.stderr
        self._terminal = terminal if terminal is not None else \
            _is_terminal(self._stream)
        self._clock = clock
        self._started = clock()
        self.phase: str | None = None
        self.search: str | None = None
        """The name of the current search (a ``restart`` report's phase)."""
        self.incumbent: float | None = None
        self.bound: float | None = None
        self._changed = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._last_line = self._started
        self._lines = 0  # printed so far
        self._shown = False  # a status line is on the terminal
        self._wrapper: _ErasingStream | None = None  # sys.stderr meanwhile

    def update(self, phase: str | None = None, incumbent: float | None = None,
               bound: float | None = None, restart: bool = False) -> None:
        """Take a report: the incumbent only goes down, the bound only up.
        The clock restarts when the set-up ends (the time limit starts) and
        on ``restart`` (a new search: its values replace the old ones)."""
        setup = self.setup_phase
        if restart or (setup is not None and self.phase == setup
                       and phase not in (None, setup)):
            self._started = self._clock()
        if restart:  # a nameless restart keeps the name (a search inside it)
            self.incumbent = self.bound = self.phase = None
            self.search, phase = phase or self.search, None
        if phase is not None and phase != self.phase:
            self.phase, self._changed = phase, True
        if incumbent is not None and (self.incumbent is None
                                      or incumbent < self.incumbent):
            self.incumbent, self._changed = incumbent, True
        if bound is not None and (self.bound is None or bound > self.bound):
            self.bound, self._changed = bound, True

    def line(self) -> str:
        """The current line."""
        phase = ", ".join(p for p in (self.search, self.phase) if p) or None
        return format_line(self.label, self._clock() - self._started, self.limit,
                           phase, self.incumbent, self.bound)

    def __enter__(self) -> ProgressLines:
        if self._terminal and self._stream is sys.stderr:
            # a warning printed meanwhile starts on a clean line
            self._wrapper = sys.stderr = _ErasingStream(self._stream, self)
        self._started = self._clock()
        self._last_line = self._started
        self._thread = threading.Thread(target=self._run, daemon=True,
                                        name="opt-sched-progress")
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=1.0)
        self.erase()
        if self._wrapper is not None and sys.stderr is self._wrapper:
            sys.stderr = self._stream
        self._wrapper = None

    def erase(self) -> None:
        """Erase the status line from the terminal, if it is shown."""
        if self._shown:
            self._shown = False
            self._write(_ERASE)

    def _run(self) -> None:
        while not self._stop.wait(_TICK):
            now = self._clock()
            if self._due(now):
                self._changed = False
                self._last_line = now
                self._lines += 1
                self._print(self.line())

    def _due(self, now: float) -> bool:
        """Whether a line is due (module docstring). Before the timed work
        starts (imports, set-up) only the heartbeat prints: a quick command
        stays silent however slow its imports."""
        since = now - self._last_line
        if self.phase is None or self.phase == self.setup_phase:
            return since >= HEARTBEAT
        if now - self._started < FIRST_LINE:
            return False
        return self._terminal or self._lines == 0 or since >= HEARTBEAT \
            or (self._changed and since >= PERIOD)

    def _print(self, line: str) -> None:
        if self._stop.is_set():
            return
        if self._terminal:
            self._shown = True
            self._write(_ERASE + line)
        else:
            self._write(line + "\n")

    def _write(self, text: str) -> None:
        with contextlib.suppress(OSError, ValueError):
            try:
                fd = self._stream.fileno()
            except (OSError, ValueError, AttributeError):  # a test's buffer
                self._stream.write(text)
                self._stream.flush()
                return
            os.write(fd, text.encode("utf-8", "replace"))


class _ErasingStream:
    """``sys.stderr`` while a status line is shown: whatever else is
    written erases it first (the status line comes back at the next tick)."""

    def __init__(self, stream: TextIO, lines: ProgressLines) -> None:
        self.stream = stream
        self._lines = lines

    def write(self, text: str) -> int:
        self._lines.erase()
        return self.stream.write(text)

    def __getattr__(self, name: str) -> object:
        return getattr(self.stream, name)


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


@contextlib.contextmanager
def solve_progress(label: str, limit: float | None, *, quiet: bool
                   ) -> Iterator[ProgressLines | None]:
    """Show the reports of :mod:`opt_sched.exact.progress` made inside the
    block, unless ``quiet``."""
    if quiet:
        yield None
        return
    from ..exact.progress import SETUP, listening

    with ProgressLines(label, limit, setup_phase=SETUP) as lines, \
            listening(lines.update):
        yield lines
