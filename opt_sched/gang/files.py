"""Atomic output files for the gang subsystem.

A file is written to a temporary sibling and renamed into place, so a reader
never sees a partial file and an interrupted run leaves the old file (or
none) behind. The shared helper being written elsewhere (``opt_sched.files``)
replaces this module at merge.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from ..errors import OutputError

__all__ = ["atomic_write_text"]


def atomic_write_text(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (temp file + rename).

    Raises
    ------
    OutputError
        The folder is missing, ``path`` is a folder, or writing fails; no
        partial file is left behind.
    """
    target = Path(path)
    if target.is_dir():
        raise OutputError(f"{target}: is a folder, not a file")
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise OutputError(f"{target}: folder {folder} does not exist")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=folder)
    except OSError as err:
        raise OutputError(f"{target}: cannot write ({err.strerror})") from None
    try:
        with os.fdopen(fd, "w") as handle:
            handle.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except OSError as err:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise OutputError(f"{target}: cannot write ({err.strerror})") from None
