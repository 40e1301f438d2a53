"""Rows kept as they finish, so that an interruption loses none of them.

A :class:`RowFile` collects the rows of a long command (``gap``,
``compare``) and writes them through the project's one row-file writer
(:class:`opt_sched.rows_file.RowsFile`): with a path, the file on disk is at
every moment a complete CSV of the rows finished so far, never half a row;
a device or a FIFO gets the table once, at the end, and is never read back.
When a library function writes the rows itself (it is given the path), the
:class:`RowFile` only watches the file.

The command line's error boundary asks the open row files what they kept
(:func:`kept_summary`: the whole rows in the file at that moment) for its
one line on Ctrl-C::

    opt-sched: interrupted, 12 rows kept in gaps.csv

:func:`collect_rows` runs a table command's library call that way, once
for every such command.
"""

from __future__ import annotations

import argparse
import csv
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ..rows_file import RowsFile

__all__ = ["RowFile", "collect_rows", "forget_all", "kept_summary"]

_OPEN: list[RowFile] = []
_OPEN_LOCK = threading.Lock()


class RowFile:
    """Rows of a table, written to ``path`` (if any) after every row.

    Use it as a context manager: while open, it reports to the interrupt
    line what it has kept.
    """

    def __init__(self, path: str | Path | None) -> None:
        self._file = RowsFile(path)
        self.path = self._file.path
        # a device or a FIFO is written once, at the end (see the module doc)
        self.in_place = self._file.in_place

    @property
    def rows(self) -> list[Mapping[str, Any]]:
        """The rows kept so far."""
        return self._file.rows

    @property
    def kept(self) -> int:
        """Rows safely on disk (or in memory without a path)."""
        return self._file.kept

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
        self._file.add([row])

    def replace(self, rows: list[Mapping[str, Any]]) -> None:
        """Keep exactly ``rows`` (the command's final table)."""
        self._file.replace(rows)

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


def collect_rows(args: argparse.Namespace, make_table: Callable[[RowFile], Any]
                 ) -> tuple[Any, list[dict[str, Any]]]:
    """Run ``make_table(rows)`` (a library call returning a data frame,
    which may hand each finished row to ``rows.add``) with the rows kept in
    ``args.out``; return the table and its records, which ``args.out`` then
    holds exactly.

    On Ctrl-C, the rows finished so far are printed (without ``--out`` or
    ``--json``) and the interruption goes on to the command line's boundary.
    """
    from .output import show_rows

    with RowFile(args.out) as rows:
        try:
            table = make_table(rows)
        except KeyboardInterrupt:
            if rows.path is None and rows.rows and not args.json:
                show_rows(rows.rows, args, title="finished before the interruption")
            raise
        records = table.to_dict(orient="records")
        if args.out:
            rows.replace(records)
    return table, records


def forget_all() -> None:
    """Start a new command with no row file listed."""
    with _OPEN_LOCK:
        _OPEN.clear()


def kept_summary() -> str:
    """What the open row files kept, ``''`` if there is none."""
    with _OPEN_LOCK:
        return "; ".join(f.summary() for f in _OPEN)
