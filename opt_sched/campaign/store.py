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
    wall_time REAL, worker TEXT ('host:pid'), code_version TEXT,
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

SQLite's WAL needs a file system with working locks and shared memory
(any local disk; not NFS). Put ``--out`` on such a disk on the machine
that runs the sweep; the workers never touch it. Copy a live store with
``sqlite3 results.sqlite ".backup copy.sqlite"``.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ..errors import OutputError
from .execute import TaskResult
from .task import Task, canonical_json

__all__ = ["STORE_FILE", "ResultStore"]

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


def _code_version() -> str:
    from .. import __version__

    return __version__


class ResultStore:
    """The store of one campaign output folder (see the module docstring).

    Parameters
    ----------
    path
        The SQLite file (created with its tables if absent).

    Raises
    ------
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
            self._db.executescript(_SCHEMA)
        except sqlite3.Error as err:
            raise OutputError(f"{self.path}: cannot open the results store "
                              f"({err})") from None
        self._version = _code_version()

    # -- reading -------------------------------------------------------------------
    def finished_keys(self) -> set[str]:
        """Keys of the tasks with a final status (``ok`` or ``failed``)."""
        cur = self._db.execute("SELECT key FROM tasks WHERE status IN ('ok', 'failed')")
        return {key for (key,) in cur}

    def ok_keys(self) -> set[str]:
        cur = self._db.execute("SELECT key FROM tasks WHERE status = 'ok'")
        return {key for (key,) in cur}

    def count(self, status: str | None = None) -> int:
        if status is None:
            return self._db.execute("SELECT COUNT(*) FROM tasks").fetchone()[0]
        return self._db.execute("SELECT COUNT(*) FROM tasks WHERE status = ?",
                                (status,)).fetchone()[0]

    def rows(self, keys: Iterable[str] | None = None) -> dict[str, dict[str, Any]]:
        """``key -> {status, attempts, metrics (dict), error, wall_time,
        worker, task (dict)}`` for ``keys`` (default: every row)."""
        cur = self._db.execute(
            "SELECT key, task, status, attempts, metrics, error, wall_time, worker "
            "FROM tasks")
        wanted = None if keys is None else set(keys)
        out: dict[str, dict[str, Any]] = {}
        for key, task, status, attempts, metrics, error, wall, worker in cur:
            if wanted is not None and key not in wanted:
                continue
            out[key] = {"status": status, "attempts": attempts,
                        "metrics": json.loads(metrics) if metrics else {},
                        "error": error, "wall_time": wall, "worker": worker,
                        "task": json.loads(task)}
        return out

    def meta(self, name: str) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE name = ?",
                               (name,)).fetchone()
        return None if row is None else row[0]

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
                self._db.execute("ROLLBACK")
            raise OutputError(f"{self.path}: cannot write the results store "
                              f"({err})") from None

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
