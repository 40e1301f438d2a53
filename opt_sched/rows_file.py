"""A CSV file that always holds a header and whole rows, however the run ends.

Every change rewrites the whole table into a temporary file in the same
folder, flushes and ``fsync``s it, then renames it over the target
(:func:`opt_sched.files.atomic_write_text`). A reader, a Ctrl-C or a crash
therefore sees either the previous complete file or the new complete file,
never half a row: an append could be cut inside a row by a kill or a full
disk, a rename cannot be cut. The cost is one rewrite per batch of rows,
``O(rows)``, nothing next to the solve or the replay that produced them.

With a fixed header (``columns``), the header is written when the file is
opened, so a path that cannot be written fails before any work starts.
Without one, the columns are the rows' keys in first-seen order.

A device or a FIFO (``/dev/null``, ``/dev/stdout``, a pipe) cannot be
rewritten: every rewrite would append the whole table once more. Such a
path gets the table once, from :meth:`RowsFile.replace` (the final rows);
it stays a device (:func:`opt_sched.files.writes_in_place`).

This is the project's one row-file writer: the library's ``gap`` table and
the command line's tables (:class:`opt_sched.cli.rows.RowFile`, which adds
the interrupt line) both write through it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from .errors import OutputError
from .files import atomic_write_text, writes_in_place

__all__ = ["RowsFile", "rows_csv"]


def rows_csv(rows: Sequence[Mapping[str, Any]],
             columns: Sequence[str] | None = None) -> str:
    """CSV text of ``rows`` (floats in full precision: pandas writes
    ``repr``); ``columns`` fixes the header, else the keys in first-seen
    order (missing keys are written empty)."""
    import pandas as pd

    return pd.DataFrame(list(rows), columns=None if columns is None
                        else list(columns)).to_csv(index=False)


class RowsFile:
    """Rows kept in memory and mirrored, complete, to a CSV file.

    Parameters
    ----------
    path
        The CSV file (created or replaced); ``None`` keeps the rows in
        memory only.
    columns
        The header, in order (written at once); ``None``: the rows' keys.

    Raises
    ------
    OutputError
        ``path`` cannot be written (missing folder, a folder, no
        permission, disk full); nothing partial is left behind.
    """

    def __init__(self, path: str | os.PathLike | None,
                 columns: Sequence[str] | None = None) -> None:
        self.path = None if path is None else Path(path)
        self.columns = None if columns is None else list(columns)
        self.rows: list[Mapping[str, Any]] = []
        self.kept = 0  # rows safely on disk (or in memory without a path)
        if self.path is not None and self.path.is_dir():
            raise OutputError(f"{self.path}: is a folder, not a file")
        self.in_place = self.path is not None and writes_in_place(self.path)
        if self.columns is not None and not self.in_place:
            self._write()

    def add(self, rows: Iterable[Mapping[str, Any]]) -> None:
        """Append ``rows`` and rewrite the file (a device or a FIFO waits
        for :meth:`replace`)."""
        self.rows.extend(dict(r) for r in rows)
        if not self.in_place:
            self._write()

    def replace(self, rows: Iterable[Mapping[str, Any]]) -> None:
        """Make ``rows`` the whole content (e.g. in their final order)."""
        self.rows = [dict(r) for r in rows]
        self._write()

    def _write(self) -> None:
        if self.path is not None:
            atomic_write_text(self.path, rows_csv(self.rows, self.columns))
        self.kept = len(self.rows)
