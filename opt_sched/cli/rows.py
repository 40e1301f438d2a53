"""Rows kept as they finish, so that an interruption loses none of them.

A :class:`RowFile` collects the rows of a long command (``gap``,
``compare``). With a path, each new row rewrites the whole CSV file
atomically (:func:`opt_sched.files.atomic_write_text`): the file on disk is
at every moment a complete CSV of the rows finished so far, never half a
row. Rewriting costs ``O(rows)`` per row, nothing next to one solve. When a
library function writes the rows itself (it is given the path), the
:class:`RowFile` only watches the file.

A path that is a device or a FIFO (``/dev/null``, ``/dev/stdout``, a
pipe) cannot be rewritten: each rewrite would append the whole table
again. Such a path gets the table once, when the command hands over its
final rows (:meth:`RowFile.replace`), and is never read back.

The command line's error boundary asks the open row files what they kept
(:func:`kept_summary`: the whole rows in the file at that moment) for its
one line on Ctrl-C::

    opt-sched: interrupted, 12 rows kept in gaps.csv
"""

from __future__ import annotations

import csv
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..files import writes_in_place
from .output import write_records

__all__ = ["RowFile", "forget_all", "kept_summary"]

_OPEN: list[RowFile] = []
_OPEN_LOCK = threading.Lock()


class RowFile:
    """Rows of a table, written to ``path`` (if any) after every row.

    Use it as a context manager: while open, it reports to the interrupt
    line what it has kept.
    """

    def __init__(self, path: str | Path | None) -> None:
        self.path = None if path is None else Path(path)
        self.rows: list[dict[str, Any]] = []
        self.kept = 0  # rows safely on disk (or in memory without a path)
        # a device or a FIFO is written once, at the end (see the module doc)
        self.in_place = self.path is not None and writes_in_place(self.path)

    def __enter__(self) -> RowFile:
        with _OPEN_LOCK:
            _OPEN.append(self)
        return self

    def __exit__(self, exc_type: type[BaseException] | None, *exc: object) -> None:
        if exc_type is not None and issubclass(exc_type, KeyboardInterrupt):
            return  # stays listed: the interrupt line reports what it kept
        with _OPEN_LOCK:
            if self in _OPEN:
                _OPEN.remove(self)

    def add(self, row: Mapping[str, Any]) -> None:
        """Keep one finished row (and rewrite the file, unless it is a
        device or a FIFO)."""
        self.rows.append(dict(row))
        if not self.in_place:
            self._save()

    def replace(self, rows: list[Mapping[str, Any]]) -> None:
        """Keep exactly ``rows`` (the command's final table)."""
        self.rows = [dict(r) for r in rows]
        self._save()

    def _save(self) -> None:
        if self.path is not None:
            write_records(self.rows, self.path)
        self.kept = len(self.rows)

    def rows_on_disk(self) -> int:
        """The whole rows in the file now, whoever wrote them (this object,
        or a library function given the path): what an interruption keeps."""
        if self.path is None or self.in_place:
            return self.kept  # a FIFO read back would block, a device lies
        try:
            with open(self.path, newline="", encoding="utf-8") as handle:
                return max(0, sum(1 for _ in csv.reader(handle)) - 1)
        except (OSError, csv.Error, UnicodeDecodeError):
            return 0

    def summary(self) -> str:
        """``'12 rows kept in gaps.csv'``, for the interrupt line."""
        kept = self.rows_on_disk()
        noun = "row" if kept == 1 else "rows"
        if self.path is None:
            return f"{kept} finished {noun} (no --out file)"
        if kept == 0 and (self.in_place or not self.path.exists()):
            return f"no row finished, {self.path} not written"
        return f"{kept} {noun} kept in {self.path}"


def forget_all() -> None:
    """Start a new command with no row file listed."""
    with _OPEN_LOCK:
        _OPEN.clear()


def kept_summary() -> str:
    """What the open row files kept, ``''`` if there is none."""
    with _OPEN_LOCK:
        return "; ".join(f.summary() for f in _OPEN)
