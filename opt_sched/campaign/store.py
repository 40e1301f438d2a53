"""The results store: one SQLite row per task, keyed by the task's hash.

Design
------
``<out>/results.sqlite``, table ``tasks``::

    key TEXT PRIMARY KEY       -- Task.key (SHA-256 of the canonical task)
    task TEXT                  -- the task as JSON (instance, method, seed, ...)
    status TEXT                -- 'running' | 'ok' | 'failed'
    attempts INTEGER           -- how many times the sweep dispatched it
    metrics TEXT               -- the row: a flat JSON object
    error TEXT                 -- one line, for 'failed'
    wall_time REAL, worker TEXT ('host:pid'),
    code_version TEXT          -- the driver's opt_sched: version, and commit
                               -- when it runs from a checkout (0.1.0+g374b518)
    updated_at REAL            -- Unix time of the last change

Only the sweep's driver process writes the store; workers (local
processes, Dask workers on other machines) return their results to it.

Why it is durable
-----------------
The database is in **WAL mode with ``synchronous=FULL``**. Every completed
chunk of tasks is written in one transaction, committed before the driver
waits for the next result. In WAL mode a commit appends the transaction's
pages to the write-ahead log, followed by a commit frame; with ``FULL`` the
log is ``fsync``\\ ed at every commit. Frames carry checksums, and on the next
open SQLite replays the log up to the last complete commit and ignores a
torn tail. Hence:

- a ``SIGKILL`` of the driver at any instant loses only what was not yet
  committed: the tasks in flight (dispatched, not yet returned). Finished
  rows are in the log, which the kernel keeps even if the process dies
  (``synchronous=NORMAL`` would already guarantee this much);
- a power loss or a kernel crash of the driver's machine loses nothing
  committed either, because the log was ``fsync``\\ ed (this is what ``FULL``
  adds over ``NORMAL``; it costs one ``fsync`` per chunk, a few ms);
- the database is never corrupted by a kill: a transaction is in or out.

A rerun reads the keys of the finished rows (status ``ok`` or ``failed``)
and skips them; ``running`` rows (in flight when the sweep died) run again.
The ``attempts`` counter, incremented when a task is dispatched, shows it.

A damaged store
---------------
Damage that no kill can cause (a disk error, a file truncated or
overwritten by another program) is found when the store is opened
(``PRAGMA quick_check``) or read, and stops the sweep with one line
(:class:`StoreDamagedError`, exit status 2) that says how to recover: run
the spec into a new ``--out`` folder, after copying what can still be read
with ``sqlite3 OLD .recover | sqlite3 NEW/results.sqlite`` if wanted
(``--resume`` then skips those tasks).

SQLite's WAL needs a file system with working locks and shared memory
(any local disk; not NFS). Put ``--out`` on such a disk on the machine
that runs the sweep; the workers never touch it. Copy a live store with
``sqlite3 results.sqlite ".backup copy.sqlite"``.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import subprocess
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ..errors import OutputError
from .execute import TaskResult
from .task import Task, canonical_json

__all__ = ["STORE_FILE", "ResultStore", "StoreDamagedError"]

STORE_FILE = "results.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS tasks (
    key TEXT PRIMARY KEY,
    task TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('running', 'ok', 'failed')),
    attempts INTEGER NOT NULL DEFAULT 0,
    metrics TEXT,
    error TEXT,
    wall_time REAL,
    worker TEXT,
    code_version TEXT,
    updated_at REAL
);
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT);
"""


def _task_json(task: Task) -> str:
    data = task.identity()
    data["group"] = task.group
    data["instance_label"] = task.source.label
    if task.source.path is not None:
        data["path"] = task.source.path
    return canonical_json(data)


class StoreDamagedError(OutputError):
    """The results store is corrupt (a damaged page, a garbage header)."""


def _damaged(path: Path, err: sqlite3.Error) -> StoreDamagedError:
    """The one-line error of a damaged store at ``path``: what SQLite said
    and how to recover."""
    return StoreDamagedError(
        f"{path}: the results store is damaged ({err}); run the spec into a new "
        f"--out folder (to keep the rows that can still be read: sqlite3 {path} "
        f".recover | sqlite3 NEW/{STORE_FILE}, then --resume --out NEW)")


def _is_damage(err: sqlite3.Error) -> bool:
    """Whether ``err`` reports a corrupt database (``SQLITE_CORRUPT``,
    ``SQLITE_NOTADB``) rather than, e.g., a full disk or a lock."""
    name = getattr(err, "sqlite_errorname", None)  # Python 3.11+
    if name is not None:
        return name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB"))
    text = str(err)
    return "malformed" in text or "not a database" in text


def _code_version() -> str:
    """The package's version, and its git commit when it runs from a
    checkout of opt_sched (``0.1.0+g374b518``; ``.dirty`` with uncommitted
    changes): a sweep resumed with other code says which task ran which."""
    from .. import __version__

    package = Path(__file__).resolve().parents[1]

    def git(*args: str) -> str:
        try:
            done = subprocess.run(["git", "-C", str(package), *args],
                                  capture_output=True, text=True, timeout=10)
        except (OSError, subprocess.SubprocessError):
            return ""
        return done.stdout.strip() if done.returncode == 0 else ""

    top = git("rev-parse", "--show-toplevel")
    if not top or Path(top).resolve() != package.parent:
        return __version__  # installed, or inside some other repository
    commit = git("describe", "--always", "--dirty=.dirty", "--abbrev=7",
                 "--match", "NO-TAGS")
    return f"{__version__}+g{commit}" if commit else __version__


class ResultStore:
    """The store of one campaign output folder (see the module docstring).

    Parameters
    ----------
    path
        The SQLite file (created with its tables if absent).

    Raises
    ------
    StoreDamagedError
        The file is not an SQLite database or fails its integrity check.
    OutputError
        The file cannot be created, opened or put in WAL mode.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None, timeout=60.0)
            mode = self._db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise OutputError(f"{self.path}: journal_mode=WAL refused (got "
                                  f"{mode!r}); put --out on a local disk")
            self._db.execute("PRAGMA synchronous=FULL")
            self._check_integrity()
            self._db.executescript(_SCHEMA)
        except sqlite3.Error as err:
            self._close_quietly()
            if _is_damage(err):
                raise _damaged(self.path, err) from None
            raise OutputError(f"{self.path}: cannot open the results store "
                              f"({err})") from None
        except OutputError:
            self._close_quietly()
            raise
        self._version = _code_version()

    def _check_integrity(self) -> None:
        """Raise :class:`StoreDamagedError` if ``PRAGMA quick_check`` finds
        a damaged page (it reads every page once: milliseconds for the
        stores of real campaigns)."""
        problems = [row[0] for row in self._db.execute("PRAGMA quick_check")]
        if problems != ["ok"]:
            lines = [line for problem in problems for line in problem.splitlines()
                     if line.strip() and not line.startswith("***")]
            raise _damaged(self.path, sqlite3.DatabaseError(
                f"quick_check: {lines[0] if lines else problems[0]}"))

    def _read(self, sql: str, params: tuple = ()) -> list[tuple]:
        """The rows of a query; a damaged store raises
        :class:`StoreDamagedError`."""
        try:
            return self._db.execute(sql, params).fetchall()
        except sqlite3.Error as err:
            if _is_damage(err):
                raise _damaged(self.path, err) from None
            raise OutputError(f"{self.path}: cannot read the results store "
                              f"({err})") from None

    # -- reading -------------------------------------------------------------------
    def finished_keys(self) -> set[str]:
        """Keys of the tasks with a final status (``ok`` or ``failed``)."""
        rows = self._read("SELECT key FROM tasks WHERE status IN ('ok', 'failed')")
        return {key for (key,) in rows}

    def ok_keys(self) -> set[str]:
        """Keys of the tasks that succeeded."""
        return {key for (key,) in self._read("SELECT key FROM tasks "
                                             "WHERE status = 'ok'")}

    def count(self, status: str | None = None) -> int:
        """How many rows (with ``status``, if given)."""
        if status is None:
            return self._read("SELECT COUNT(*) FROM tasks")[0][0]
        return self._read("SELECT COUNT(*) FROM tasks WHERE status = ?",
                          (status,))[0][0]

    def rows(self, keys: Iterable[str] | None = None) -> dict[str, dict[str, Any]]:
        """``key -> {status, attempts, metrics (dict), error, wall_time,
        worker, task (dict)}`` for ``keys`` (default: every row)."""
        found = self._read(
            "SELECT key, task, status, attempts, metrics, error, wall_time, worker "
            "FROM tasks")
        wanted = None if keys is None else set(keys)
        out: dict[str, dict[str, Any]] = {}
        for key, task, status, attempts, metrics, error, wall, worker in found:
            if wanted is not None and key not in wanted:
                continue
            out[key] = {"status": status, "attempts": attempts,
                        "metrics": json.loads(metrics) if metrics else {},
                        "error": error, "wall_time": wall, "worker": worker,
                        "task": json.loads(task)}
        return out

    def meta(self, name: str) -> str | None:
        rows = self._read("SELECT value FROM meta WHERE name = ?", (name,))
        return rows[0][0] if rows else None

    # -- writing -------------------------------------------------------------------
    def set_meta(self, name: str, value: str) -> None:
        self._write("INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT(name) "
                    "DO UPDATE SET value = excluded.value", [(name, value)])

    def mark_dispatched(self, tasks: Sequence[Task]) -> None:
        """Count one more attempt of each task, as ``running`` (one
        transaction). A finished row dispatched again (``--retry-failed``)
        becomes ``running`` until its new result arrives."""
        now = time.time()
        self._write(
            "INSERT INTO tasks (key, task, status, attempts, code_version, updated_at) "
            "VALUES (?, ?, 'running', 1, ?, ?) ON CONFLICT(key) DO UPDATE SET "
            "status = 'running', attempts = attempts + 1, "
            "updated_at = excluded.updated_at",
            [(t.key, _task_json(t), self._version, now) for t in tasks])

    def record(self, results: Sequence[TaskResult]) -> None:
        """Write the results of one chunk in one durable transaction."""
        now = time.time()
        self._write(
            "UPDATE tasks SET status = ?, metrics = ?, error = ?, wall_time = ?, "
            "worker = ?, code_version = ?, updated_at = ? WHERE key = ?",
            [(r.status, json.dumps(r.metrics), r.error, r.wall_time, r.worker,
              self._version, now, r.key) for r in results])

    def _write(self, sql: str, params: list[tuple]) -> None:
        try:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.executemany(sql, params)
            self._db.execute("COMMIT")
        except sqlite3.Error as err:
            if self._db.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    self._db.execute("ROLLBACK")
            if _is_damage(err):
                raise _damaged(self.path, err) from None
            raise OutputError(f"{self.path}: cannot write the results store "
                              f"({err})") from None

    def close(self) -> None:
        """Close the connection (a second call does nothing)."""
        self._db.close()

    def _close_quietly(self) -> None:
        """Close the connection, if it was opened (a failed ``__init__``)."""
        db = getattr(self, "_db", None)
        if db is not None:
            with contextlib.suppress(sqlite3.Error):
                db.close()

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
