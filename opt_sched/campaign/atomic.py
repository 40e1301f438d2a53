"""Atomic output files: write a temporary file beside the target, ``fsync``
it, then ``os.replace`` it onto the target (atomic on POSIX). A reader sees
the old file or the new one, never half of one; a kill leaves at most a
``.tmp`` file behind, never a truncated table."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pandas as pd

from ..errors import OutputError

__all__ = ["atomic_path", "write_csv"]


@contextlib.contextmanager
def atomic_path(target: str | Path) -> Iterator[Path]:
    """Yield a temporary path; on success it replaces ``target``.

    Raises
    ------
    OutputError
        The folder cannot be written.
    """
    target = Path(target)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp",
                                   dir=target.parent)
    except OSError as err:
        raise OutputError(f"{target}: cannot be written ({err.strerror})") from None
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        with open(tmp_path, "rb+") as f:
            os.fsync(f.fileno())
        os.replace(tmp_path, target)
    except OSError as err:
        raise OutputError(f"{target}: cannot be written ({err.strerror})") from None
    finally:
        if tmp_path.exists():
            tmp_path.unlink()


def write_csv(table: pd.DataFrame, target: str | Path) -> Path:
    """``table`` as CSV (no index), atomically."""
    with atomic_path(target) as tmp:
        table.to_csv(tmp, index=False)
    return Path(target)
