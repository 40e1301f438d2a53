"""Progress of a sweep: done and failed counts, elapsed time and ETA.

On a terminal it is a ``rich.progress`` bar on stderr; otherwise (a batch
job's log, a pipe, ``--json``) a plain line on stderr at most every
``every`` seconds and at the end, e.g.::

    sweep ics2020: 1200/3192 tasks, 1198 ok, 2 failed, 31 s elapsed, ETA 52 s

The ETA is ``elapsed / done * left`` over the tasks run in this sweep
(tasks skipped because they were finished before do not count).
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

__all__ = ["Progress"]


class Progress:
    """Reports ``ok``/``failed`` counts of ``total`` tasks (context manager)."""

    def __init__(self, title: str, total: int, *, stream: TextIO | None = None,
                 fancy: bool | None = None, every: float = 10.0) -> None:
        self.title = title
        self.total = total
        self.ok = 0
        self.failed = 0
        self.stream = stream if stream is not None else sys.stderr
        self.fancy = self.stream.isatty() if fancy is None else fancy
        self.every = every
        self._start = time.perf_counter()
        self._last = self._start
        self._bar = None
        self._task_id = None

    @property
    def done(self) -> int:
        return self.ok + self.failed

    def eta(self) -> float | None:
        """Seconds left, from the mean time per task so far."""
        if not self.done:
            return None
        elapsed = time.perf_counter() - self._start
        return elapsed / self.done * (self.total - self.done)

    def line(self) -> str:
        elapsed = time.perf_counter() - self._start
        eta = self.eta()
        return (f"sweep {self.title}: {self.done}/{self.total} tasks, {self.ok} ok, "
                f"{self.failed} failed, {elapsed:.0f} s elapsed, ETA "
                f"{'?' if eta is None else f'{eta:.0f} s'}")

    def __enter__(self) -> Progress:
        if self.fancy:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )
            from rich.progress import Progress as RichProgress

            self._bar = RichProgress(
                TextColumn("[bold]{task.description}"), BarColumn(),
                MofNCompleteColumn(), TextColumn("[red]{task.fields[failed]} failed"),
                TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                console=Console(file=self.stream), transient=False)
            self._bar.start()
            self._task_id = self._bar.add_task(f"sweep {self.title}", total=self.total,
                                               failed=0)
        return self

    def advance(self, ok: int, failed: int) -> None:
        """Count ``ok`` and ``failed`` more finished tasks."""
        self.ok += ok
        self.failed += failed
        if self._bar is not None:
            self._bar.update(self._task_id, completed=self.done, failed=self.failed)
            return
        now = time.perf_counter()
        if now - self._last >= self.every:
            self._last = now
            print(self.line(), file=self.stream, flush=True)

    def __exit__(self, exc_type: type[BaseException] | None, *exc: object) -> None:
        """Stop the bar, or print the last line (not when the sweep stopped
        on an error or an interruption: its own one line says it)."""
        if self._bar is not None:
            self._bar.stop()
        elif exc_type is None:
            print(self.line(), file=self.stream, flush=True)
