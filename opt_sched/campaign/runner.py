"""Run a sweep: skip finished tasks, dispatch the rest, record, summarise.

0. Take the folder's lock (:mod:`.folder_lock`): a second sweep into the
   same ``out`` is refused while the first runs.
1. Open (or create) ``<out>/results.sqlite``. If it already holds results
   and ``resume`` is false, stop with an :class:`OptionError`: results are
   never overwritten. If they are another campaign's (another spec
   ``name``), stop even with ``resume``: two campaigns are never mixed in
   one store. With
   ``resume`` (``--resume``; harmless on a new folder, so batch scripts
   always pass it) every finished task, ``ok`` or ``failed``, is skipped;
   ``retry_failed`` runs the failed ones again.
2. Group the remaining tasks into chunks: the tasks of one instance family
   (:func:`opt_sched.campaign.sources.family`) in spec order, at most
   ``chunk_size`` per chunk, so that a worker builds an instance and its
   bound once. Chunks go out in spec order.
3. The executor runs the chunks; the driver marks each chunk dispatched
   (``attempts + 1``) and writes each returned chunk in one durable
   transaction (:mod:`.store`). A chunk lost with its worker becomes
   failed rows carrying the error.
4. From the store: ``tasks.csv``, ``methods.csv``, ``failures.csv``, the
   spec's pivots and figures, and its named reports, all written
   atomically; the spec itself is copied to ``<out>/spec.toml``.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import pandas as pd

from ..errors import OptionError, OutputError
from ..files import atomic_path
from .execute import TaskResult, one_line, run_chunk, worker_name
from .executors import Executor
from .executors.local import LocalExecutor
from .figures import write_figures
from .folder_lock import hold_folder
from .progress import Progress
from .reports import write_report
from .sources import family
from .spec import Spec
from .store import STORE_FILE, ResultStore
from .summary import failures_table, tasks_table, write_tables
from .task import Task

__all__ = ["SPEC_NAME", "SweepResult", "check_folder", "chunk_tasks", "pending_tasks",
           "run_sweep", "write_outputs"]

SPEC_NAME = "spec_name"
"""The store's meta entry naming the campaign (the spec's ``name``)."""


@dataclass
class SweepResult:
    """What a sweep did and what the store now holds for the spec."""

    spec: str
    out: Path
    total: int
    skipped: int
    ran: int
    ok: int
    failed: int
    pending: int
    elapsed: float
    executor: str
    failures: pd.DataFrame = field(default_factory=pd.DataFrame)
    files: list[Path] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"spec": self.spec, "out": str(self.out), "tasks": self.total,
                "skipped": self.skipped, "ran": self.ran, "ok": self.ok,
                "failed": self.failed, "pending": self.pending,
                "elapsed": round(self.elapsed, 3), "executor": self.executor,
                "failures": self.failures.to_dict(orient="records"),
                "files": [str(p) for p in self.files]}


def pending_tasks(tasks: Iterable[Task], done: set[str]) -> list[Task]:
    """The tasks whose key is not in ``done``, each key once, in order."""
    seen = set(done)
    out = []
    for task in tasks:
        if task.key not in seen:
            seen.add(task.key)
            out.append(task)
    return out


def chunk_tasks(tasks: Iterable[Task], chunk_size: int = 16) -> list[list[Task]]:
    """Tasks grouped by instance family, in order of first appearance, at
    most ``chunk_size`` per chunk."""
    groups: dict[tuple, list[Task]] = {}
    for task in tasks:
        groups.setdefault(family(task.source), []).append(task)
    return [group[i:i + chunk_size] for group in groups.values()
            for i in range(0, len(group), chunk_size)]


def _lost(chunk: list[Task], err: BaseException) -> list[TaskResult]:
    message = f"chunk lost: {one_line(err)}"
    return [TaskResult(t.key, "failed", {"status": "failed"}, message, float("nan"),
                       worker_name()) for t in chunk]


def check_folder(spec: Spec, store: ResultStore, out: Path, resume: bool) -> None:
    """Refuse a folder that holds another campaign's results, or results
    at all without ``resume``.

    Raises
    ------
    OptionError
        One line naming ``--out`` and what it holds.
    """
    held = store.count()
    if not held:
        return
    owner = store.meta(SPEC_NAME)
    if owner is not None and owner != spec.name:
        raise OptionError(
            f"--out={str(out)!r} belongs to another campaign ({owner!r}, "
            f"{held} task results), not to {spec.name!r}: choose another --out")
    if not resume:
        raise OptionError(
            f"--out={str(out)!r} already holds {held} task results "
            f"({STORE_FILE}); pass --resume to continue it (finished "
            f"tasks are skipped) or choose another --out")


def write_outputs(spec: Spec, store: ResultStore, out: Path
                  ) -> tuple[pd.DataFrame, list[Path]]:
    """Tables, figures and reports of ``spec`` from ``store`` into ``out``."""
    rows = store.rows()
    tasks = tasks_table(spec, rows)
    files = write_tables(spec, tasks, out)
    files += write_figures(spec, tasks, out)
    for name in spec.reports:
        files += write_report(name, spec, rows, out)
    return tasks, files


def run_sweep(spec: Spec, out: str | Path, *, executor: Executor | None = None,
              resume: bool = False, retry_failed: bool = False,
              chunk_size: int = 16, progress: bool | None = None,
              progress_stream: TextIO | None = None,
              run: Callable[[list[Task]], list[TaskResult]] = run_chunk
              ) -> SweepResult:
    """Run ``spec`` into folder ``out`` (see the module docstring).

    Parameters
    ----------
    executor
        Where chunks run (default: :class:`LocalExecutor` on every core).
        It is closed at the end.
    resume
        Continue a folder that already holds results.
    retry_failed
        Run failed tasks again (with ``resume``).
    progress
        ``True`` a rich bar, ``False`` plain lines, ``None`` a bar only on
        a terminal.
    progress_stream
        Where progress goes (default: stderr).
    run
        The function a worker applies to a chunk (a module-level function,
        so that it pickles); :func:`opt_sched.campaign.execute.run_chunk`.

    Raises
    ------
    OptionError
        ``out`` holds results and ``resume`` is false, holds another
        campaign's results, or another sweep runs into it now.
    OutputError
        ``out`` or its store cannot be written, or the store is damaged.
    """
    start = time.perf_counter()
    out = Path(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise OutputError(f"--out={str(out)!r}: cannot create it "
                          f"({err.strerror})") from None
    store_path = out / STORE_FILE
    executor_owned = executor is None
    finished = False
    try:
        with hold_folder(out), ResultStore(store_path) as store:
            check_folder(spec, store, out, resume)
            if spec.path is not None:
                with atomic_path(out / "spec.toml") as tmp:
                    shutil.copyfile(spec.path, tmp)
            store.set_meta(SPEC_NAME, spec.name)
            done = store.ok_keys() if retry_failed else store.finished_keys()
            todo = pending_tasks(spec.tasks, done)
            unique = len({t.key for t in spec.tasks})
            if executor is None:
                executor = LocalExecutor()
            chunks = chunk_tasks(todo, chunk_size)
            with Progress(spec.name, len(todo), fancy=progress,
                          stream=progress_stream) as bar:
                if todo:
                    for chunk, outcome in executor.run(run, chunks,
                                                       store.mark_dispatched):
                        results = (_lost(chunk, outcome)
                                   if isinstance(outcome, BaseException) else outcome)
                        store.record(results)
                        failed = sum(r.status == "failed" for r in results)
                        bar.advance(len(results) - failed, failed)
            tasks, files = write_outputs(spec, store, out)
        finished = True
    finally:
        if executor is not None and executor_owned:
            # interrupted or failed: the chunks in flight are abandoned
            executor.close(cancel=not finished)
    counts = tasks.drop_duplicates("key")["status"].value_counts()
    return SweepResult(
        spec=spec.name, out=out, total=unique, skipped=unique - len(todo),
        ran=len(todo),
        ok=int(counts.get("ok", 0)), failed=int(counts.get("failed", 0)),
        pending=int(counts.get("pending", 0)), elapsed=time.perf_counter() - start,
        executor=executor.description if executor is not None else "",
        failures=failures_table(tasks), files=files)
