"""Local processes: a :class:`concurrent.futures.ProcessPoolExecutor`.

Workers are started by a *fork server* (``spawn`` where there is none):
the driver may hold threads (the progress bar) and an open SQLite
connection, which plain ``fork`` would copy into the children. The fork
server preloads :mod:`.warm`, so each worker starts with the simulator
imported and its compiled kernel loaded.

At most ``2 * workers`` chunks are in flight. If a worker process dies
(killed, out of memory, a crash in native code) the pool is broken: the
chunks in flight are yielded with the exception (their tasks are recorded
as failed; ``--retry-failed`` runs them again) and a new pool takes over.

``workers = 1`` runs every chunk in the driver's own process (no pool),
which is the easiest to debug.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from ...errors import OptionError
from . import Outcome

__all__ = ["LocalExecutor"]

_PRELOAD = ["opt_sched.campaign.executors.warm"]


def _context() -> multiprocessing.context.BaseContext:
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(_PRELOAD)
        return ctx
    return multiprocessing.get_context("spawn")


class LocalExecutor:
    """``workers`` processes on this machine (default: every core)."""

    def __init__(self, workers: int | None = None) -> None:
        if workers is None:
            workers = os.cpu_count() or 1
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise OptionError(f"--workers={workers!r} must be an integer >= 1")
        self.workers = workers
        self.description = (f"{workers} local worker processes" if workers > 1
                            else "this process (--workers 1)")
        self._pool: ProcessPoolExecutor | None = None

    def _new_pool(self) -> ProcessPoolExecutor:
        self._pool = ProcessPoolExecutor(max_workers=self.workers,
                                         mp_context=_context())
        return self._pool

    def run(self, fn: Callable[[list[Any]], list[Any]], chunks: Iterable[list[Any]],
            on_dispatch: Callable[[list[Any]], None]
            ) -> Iterator[tuple[list[Any], Outcome]]:
        if self.workers == 1:
            for chunk in chunks:
                on_dispatch(chunk)
                yield chunk, fn(chunk)
            return
        pending = iter(chunks)
        pool = self._pool or self._new_pool()
        window = 2 * self.workers
        in_flight: dict[Future, list[Any]] = {}

        def fill() -> None:
            while len(in_flight) < window:
                chunk = next(pending, None)
                if chunk is None:
                    return
                on_dispatch(chunk)
                in_flight[pool.submit(fn, chunk)] = chunk

        fill()
        while in_flight:
            done, _ = wait(in_flight, return_when=FIRST_COMPLETED)
            broken = False
            for future in done:
                chunk = in_flight.pop(future)
                try:
                    outcome: Outcome = future.result()
                except BrokenProcessPool as err:
                    broken = True
                    outcome = err
                except Exception as err:  # e.g. a result that cannot be pickled
                    outcome = err
                yield chunk, outcome
            if broken:
                for future, chunk in list(in_flight.items()):
                    in_flight.pop(future)
                    yield chunk, BrokenProcessPool(
                        "a worker process died while this chunk was in flight")
                pool.shutdown(wait=False, cancel_futures=True)
                pool = self._new_pool()
            fill()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
