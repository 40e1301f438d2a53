"""Atomic text output: write a temporary file beside the target, then rename.

A reader of ``path`` sees either the old file or the complete new one, never
a partial write; on any failure the temporary file is removed and the
target is left untouched.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from ..errors import OutputError

__all__ = ["atomic_write_text"]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write_text(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (temp file + :func:`os.replace`).

    Raises
    ------
    OutputError
        The folder is missing, ``path`` is a folder, or the write fails (no
        permission, disk full). Nothing partial is left behind.
    """
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise OutputError(f"{path}: is a folder, not a file")
    if not folder.is_dir():
        raise OutputError(f"{path}: folder {folder} does not exist")
    try:
        handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp",
                                        dir=folder)
    except OSError as err:
        raise OutputError(f"{path}: cannot write ({err.strerror})") from None
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
            out.write(text)
        os.chmod(temp, 0o666 & ~_umask())  # mkstemp makes 0600 files
        os.replace(temp, path)
    except OSError as err:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise OutputError(f"{path}: cannot write ({err.strerror})") from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
