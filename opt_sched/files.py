"""Writing output files atomically: a failed write never leaves half a file.

Every output of opt_sched (instances, schedules, CSV and JSON tables, plots,
exported models) goes through this module. A write goes to a temporary file
in the *same folder* as the target, is flushed to the disk (``fsync``) and
then renamed over the target with :func:`os.replace`, which POSIX makes
atomic within one file system. A reader therefore sees either the old file or
the complete new one; an error (disk full, no permission, an interruption)
removes the temporary file and leaves the target as it was.

Only a regular file is ever renamed over. A target that exists and is not
a regular file -- a device such as ``/dev/null``, a FIFO, a pipe given as
``/dev/fd/N`` -- is written *in place*: opened for writing (never created,
never replaced), every write checked, then ``fsync``-ed where the device
supports it. A device therefore stays a device, and ``/dev/full`` fails
with ``No space left on device`` like any full disk. A symbolic link to a
regular file stays a link: the file it points to is replaced.

Every ``OSError`` becomes an :class:`~opt_sched.errors.OutputError` whose
one-line message names the path and the reason, for example::

    results/gaps.csv: cannot write: folder 'results' does not exist

- :func:`atomic_write_text`, :func:`atomic_write_bytes` -- write a whole file;
- :func:`atomic_path` -- a context manager for writers that want a path
  (matplotlib's ``savefig``, a solver's model export): it yields the
  temporary path, which keeps the target's suffix;
- :func:`check_writable` -- the same diagnosis *before* a long run, so that
  ``--out`` into a missing folder fails before anything is solved;
- :func:`writes_in_place` -- whether a target is written in place (it
  exists and is not a regular file);
- :func:`pending_temporaries` -- the temporary files being written right
  now (the command line removes them when it has to stop at once).
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .errors import OutputError

__all__ = [
    "atomic_path",
    "atomic_write_bytes",
    "atomic_write_csv",
    "atomic_write_text",
    "check_writable",
    "pending_temporaries",
    "writes_in_place",
]

_PENDING: set[Path] = set()
_PENDING_LOCK = threading.Lock()

_REASONS = {
    errno.ENOSPC: "No space left on device",  # the OS's own words
    errno.EDQUOT: "disk quota exceeded",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.EROFS: "read-only file system",
    errno.EISDIR: "it is a folder",
    errno.ENAMETOOLONG: "file name too long",
    errno.EFBIG: "file too large",
    errno.EIO: "input/output error",
}

# fsync(2) on a device or a FIFO that cannot be synchronised: not a failure
_UNSYNCABLE = frozenset({errno.EINVAL, errno.EROFS, errno.ENOTSUP,
                         errno.EOPNOTSUPP})
# a terminal given as the target does not become our controlling terminal
_NO_CTTY = getattr(os, "O_NOCTTY", 0)


def _folder(path: Path) -> Path:
    return path.parent if str(path.parent) else Path(".")


def _reason(path: Path, err: OSError) -> str:
    """A short human reason for ``err`` while writing ``path``."""
    folder = _folder(path)
    if err.errno == errno.ENOENT:
        if folder.is_dir():  # e.g. /proc: a folder that takes no new files
            return f"folder '{folder}' does not take new files"
        return f"folder '{folder}' does not exist"
    if err.errno == errno.ENOTDIR:
        return f"'{folder}' is not a folder"
    return _REASONS.get(err.errno, err.strerror or err.__class__.__name__)


def _output_error(path: Path, err: OSError) -> OutputError:
    return OutputError(f"{path}: cannot write: {_reason(path, err)}")


def writes_in_place(path: str | os.PathLike[str]) -> bool:
    """True if ``path`` exists and is neither a regular file nor a folder
    (a character or block device, a FIFO, a socket): such a target is
    written in place and never replaced by a rename.

    >>> writes_in_place("/dev/null"), writes_in_place("no/such/file")
    (True, False)
    """
    try:
        mode = os.stat(path).st_mode  # follows links: /dev/stdout, /dev/fd/N
    except (OSError, ValueError):
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _renamed_over(target: Path) -> Path:
    """The path a rename must replace: ``target`` itself, or the regular file
    a symbolic link ``target`` points to (so that the link stays a link)."""
    if not target.is_symlink():
        return target
    return Path(os.path.realpath(target))


def check_writable(path: str | os.PathLike[str]) -> Path:
    """Return ``path`` as a :class:`~pathlib.Path` if a file can be written
    there, else raise :class:`OutputError` naming the path and the reason.

    Checks, without creating anything: the folder exists and is a folder,
    the path itself is not a folder, and the folder (or an existing file) is
    writable for this process. A disk that fills up later is only found by
    the write itself.
    """
    if not os.fspath(path):  # Path('') would be '.', the current folder
        raise OutputError("'': cannot write: the file name is empty")
    target = Path(path)
    if writes_in_place(target):  # a device or a FIFO: no file is created
        if not os.access(target, os.W_OK):
            raise OutputError(f"{target}: cannot write: permission denied")
        return target
    folder = _folder(_renamed_over(target))
    if target.is_dir():
        raise OutputError(f"{target}: cannot write: it is a folder")
    if not folder.exists():
        raise OutputError(f"{target}: cannot write: folder '{folder}' does not exist")
    if not folder.is_dir():
        raise OutputError(f"{target}: cannot write: '{folder}' is not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputError(f"{target}: cannot write: permission denied "
                          f"(folder '{folder}')")
    if target.exists() and not os.access(target, os.W_OK):
        raise OutputError(f"{target}: cannot write: permission denied")
    return target


def _temporary_name(target: Path, folder: Path) -> Path:
    """A hidden file in ``folder`` named after ``target`` that keeps its
    suffix (``.mps`` stays ``.mps``, so writers that choose a format by
    suffix still work)."""
    token = secrets.token_hex(4)
    return folder / f".{target.stem}.tmp-{token}{target.suffix}"


def _final_mode(target: Path) -> int:
    """The mode the target gets: an existing file keeps its own; a new one
    gets ``0o666`` less the umask, as ``open()`` would give it."""
    with contextlib.suppress(OSError):
        return target.stat().st_mode & 0o7777
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _fsync_folder(folder: Path) -> None:
    """Make the rename itself durable (best effort: not every file system
    lets a folder be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)


def _discard(temporary: Path) -> None:
    with contextlib.suppress(OSError):
        temporary.unlink()
    with _PENDING_LOCK:
        _PENDING.discard(temporary)


def _write_all(fd: int, data: bytes) -> None:
    """``os.write`` until every byte of ``data`` is written (a short write
    is continued; a failing one raises)."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _commit(temporary: Path, target: Path) -> None:
    """fsync ``temporary``, give it its final mode, rename it over ``target``."""
    fd = os.open(temporary, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    os.chmod(temporary, _final_mode(target))
    os.replace(temporary, target)
    with _PENDING_LOCK:
        _PENDING.discard(temporary)
    _fsync_folder(_folder(target))


def _create_temporary(target: Path, folder: Path | None = None) -> tuple[int, Path]:
    """A new temporary file (open for writing) for ``target``, in ``folder``
    (by default the target's own folder, so that a rename is atomic)."""
    if target.is_dir():
        raise OutputError(f"{target}: cannot write: it is a folder")
    folder = _folder(target) if folder is None else folder
    for _ in range(16):
        temporary = _temporary_name(target, folder)
        try:
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            continue
        except OSError as err:
            raise _output_error(target, err) from None
        with _PENDING_LOCK:
            _PENDING.add(temporary)
        return fd, temporary
    raise OutputError(f"{target}: cannot write: no free temporary name")


def _sync_in_place(fd: int) -> None:
    """``fsync`` a device or a FIFO; one that cannot be synchronised at all
    (``/dev/null``, a pipe: ``EINVAL``) is not a failure."""
    try:
        os.fsync(fd)
    except OSError as err:
        if err.errno not in _UNSYNCABLE:
            raise


def _write_in_place(target: Path, data: bytes) -> None:
    """Write ``data`` into the existing device or FIFO ``target``: opened
    without ``O_CREAT`` (nothing is created or replaced), every write, the
    sync and the close checked. A FIFO blocks until a reader opens it, as
    for any Unix writer."""
    try:
        fd = os.open(target, os.O_WRONLY | _NO_CTTY)
        try:
            _write_all(fd, data)
            _sync_in_place(fd)
        finally:
            os.close(fd)
    except OSError as err:
        raise _output_error(target, err) from None


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (see the module docstring); a
    device or a FIFO is written in place."""
    target = Path(path)
    if writes_in_place(target):
        _write_in_place(target, data)
        return
    real = _renamed_over(target)
    fd, temporary = _create_temporary(real)
    try:
        try:
            _write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.chmod(temporary, _final_mode(real))
        os.replace(temporary, real)
    except OSError as err:
        _discard(temporary)
        raise _output_error(target, err) from None
    except BaseException:
        _discard(temporary)
        raise
    with _PENDING_LOCK:
        _PENDING.discard(temporary)
    _fsync_folder(_folder(real))


def atomic_write_text(path: str | os.PathLike[str], text: str,
                      encoding: str = "utf-8") -> None:
    """Write ``text`` to ``path`` atomically (see the module docstring)."""
    atomic_write_bytes(path, text.encode(encoding))


def _reserve_temporary(target: Path, in_place: bool) -> Path:
    """A temporary name for :func:`atomic_path`, reserved (by its random
    token) but not created: beside the file a rename will replace, or, for
    a target written in place, in the system's temporary folder (``/dev``
    takes no files)."""
    folder = Path(tempfile.gettempdir()) if in_place else None
    fd, temporary = _create_temporary(target, folder)
    os.close(fd)
    temporary.unlink()
    return temporary


def _copy_in_place(temporary: Path, target: Path) -> None:
    """The bytes of ``temporary`` written into the device or FIFO
    ``target``; the temporary file is then removed."""
    data = temporary.read_bytes()
    _write_in_place(target, data)
    _discard(temporary)


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str], *, required: bool = True
                ) -> Iterator[Path]:
    """Yield a temporary path next to ``path``; when the block ends without
    an error, the file written there replaces ``path`` atomically.

    The temporary path does not exist when the block starts (the writer
    creates it) and has the same suffix as ``path``. If the block raises,
    nothing is renamed and the temporary file is removed; an ``OSError`` of
    the block becomes an :class:`OutputError` naming ``path``. If the block
    wrote no file: an :class:`OutputError` if ``required``, else ``path`` is
    left as it was. If ``path`` is a device or a FIFO, the temporary path
    is in the system's temporary folder and its bytes are written into the
    device, which stays a device.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> with atomic_path(folder / "model.lp") as tmp:
    ...     _ = tmp.write_text("minimize\\n")
    >>> (folder / "model.lp").read_text()
    'minimize\\n'
    """
    target = Path(path)
    in_place = writes_in_place(target)
    real = target if in_place else _renamed_over(target)
    temporary = _reserve_temporary(real, in_place)
    try:
        yield temporary
        if not temporary.exists():
            if required:
                raise OutputError(f"{target}: cannot write: the writer produced "
                                  "no file")
            _discard(temporary)
            return
        if in_place:
            _copy_in_place(temporary, target)
        else:
            _commit(temporary, real)
    except OSError as err:
        _discard(temporary)
        if err.filename not in (None, str(temporary), temporary):
            raise  # about another file: not this output's failure
        raise _output_error(target, err) from None
    except BaseException:
        _discard(temporary)
        raise


def pending_temporaries() -> list[Path]:
    """The temporary files being written now (for an emergency clean-up)."""
    with _PENDING_LOCK:
        return sorted(_PENDING)


def atomic_write_csv(table: Any, path: str | os.PathLike[str]) -> Path:
    """A pandas ``table`` as CSV (no index), atomically; returns the path."""
    atomic_write_text(path, table.to_csv(index=False))
    return Path(path)
