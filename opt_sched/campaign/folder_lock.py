"""One sweep at a time in an output folder.

Two sweeps writing one ``--out`` would each dispatch every task the other
is running (a task is skipped only once it is finished), so every task
would run twice. :func:`hold_folder` takes an exclusive, non-blocking
``flock`` on ``<out>/.sweep.lock`` for the whole run; a second sweep into
the folder is refused at once with one line naming the holder's pid. The
kernel releases the lock when the holder's process ends, however it ends
(``SIGKILL`` included), so a stale lock never blocks a rerun. The file
itself stays (removing it would race with a sweep that has just opened
it).

``flock`` works on local file systems, where the results store must be
anyway (:mod:`.store`). Without :mod:`fcntl` (Windows) no lock is taken.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from ..errors import OptionError, OutputError

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = ["LOCK_FILE", "FolderBusyError", "hold_folder"]

LOCK_FILE = ".sweep.lock"


class FolderBusyError(OptionError):
    """Another sweep holds the output folder."""


def _holder(fd: int) -> str:
    """The pid the holder wrote in the lock file, or ``'?'``."""
    with contextlib.suppress(OSError, ValueError):
        text = os.pread(fd, 32, 0).decode("ascii").strip()
        if text.isdigit():
            return text
    return "?"


@contextlib.contextmanager
def hold_folder(out: Path) -> Iterator[None]:
    """Hold the lock of output folder ``out`` (which exists) while inside.

    Raises
    ------
    FolderBusyError
        Another process holds it.
    OutputError
        The lock file cannot be created or locked.
    """
    if fcntl is None:  # pragma: no cover - Windows
        yield
        return
    path = out / LOCK_FILE
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as err:
        raise OutputError(f"--out={str(out)!r}: cannot create its lock file "
                          f"{LOCK_FILE} ({err.strerror})") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise FolderBusyError(
                f"--out={str(out)!r} is in use by another sweep (pid "
                f"{_holder(fd)}); wait for it to end or choose another --out"
            ) from None
        except OSError as err:  # no locks on this file system
            raise OutputError(f"--out={str(out)!r}: cannot lock {LOCK_FILE} "
                              f"({err.strerror}); put --out on a local disk"
                              ) from None
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        yield
    finally:
        os.close(fd)  # releases the lock
