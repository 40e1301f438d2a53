"""A CSV file that always holds a header and whole rows, however the run ends.

Every change rewrites the whole table into a temporary file in the same
folder, flushes and ``fsync``s it, then renames it over the target
(``os.replace``, atomic on POSIX and Windows). A reader, a Ctrl-C or a
crash therefore sees either the previous complete file or the new complete
file, never half a row: an append could be cut inside a row by a kill or a
full disk, a rename cannot be cut. The cost is one rewrite per batch of
rows, which is nothing next to the exact solve that produced them.

The header is written when the file is opened, so a path that cannot be
written fails before any work starts.

A device or a FIFO (``/dev/null``, ``/dev/stdout``, a pipe) cannot be
rewritten: every rewrite would append the whole table once more. Such a
path gets the table once, from :meth:`RowsFile.replace` (the final rows);
it stays a device (:func:`opt_sched.files.writes_in_place`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import pandas as pd

from ..errors import OutputError
from ..files import atomic_write_text, writes_in_place

__all__ = ["RowsFile"]


class RowsFile:
    """Rows kept in memory and mirrored, complete, to a CSV file.

    Parameters
    ----------
    path
        The CSV file (created or replaced).
    columns
        The header, in order; rows are mappings with these keys (missing
        keys are written empty).

    Raises
    ------
    OutputError
        ``path`` cannot be written (missing folder, a folder, no
        permission, disk full); nothing partial is left behind.
    """

    def __init__(self, path: str | os.PathLike, columns: Sequence[str]) -> None:
        self.path = Path(path)
        self.columns = list(columns)
        self.rows: list[Mapping[str, object]] = []
        if self.path.is_dir():
            raise OutputError(f"{self.path}: is a folder, not a file")
        self.in_place = writes_in_place(self.path)
        if not self.in_place:
            self._write()

    def add(self, rows: Iterable[Mapping[str, object]]) -> None:
        """Append ``rows`` and rewrite the file (a device or a FIFO waits
        for :meth:`replace`)."""
        self.rows.extend(rows)
        if not self.in_place:
            self._write()

    def replace(self, rows: Iterable[Mapping[str, object]]) -> None:
        """Make ``rows`` the whole content (e.g. in their final order)."""
        self.rows = list(rows)
        self._write()

    def _write(self) -> None:
        atomic_write_text(self.path, pd.DataFrame(self.rows, columns=self.columns)
                          .to_csv(index=False))
