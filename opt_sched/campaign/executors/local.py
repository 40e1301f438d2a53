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

Workers die with their driver
-----------------------------
However the driver ends, its workers must not outlive it: they would hold
the terminal's or the pipe's stdout (``sweep ... | tee log`` would never
end) and keep the fork server and the resource tracker alive with them.
So each worker, when it starts (:func:`_start_worker`):

- watches the driver: a thread waits on a *pidfd* of the driver (Linux
  5.3+; elsewhere it polls the pid twice a second) and ends the worker as
  soon as the driver has exited, even by ``SIGKILL``;
- ignores ``SIGINT``: Ctrl-C in a terminal reaches the whole process
  group, and stopping is the driver's business (no traceback per worker);
- writes its stdout to its stderr, so that stray prints never mix with the
  driver's output (``--json``) nor hold its stdout;
- goes back to the driver's current folder.

An interrupted driver (Ctrl-C, ``SIGTERM``) does not wait for the chunks in
flight: ``close(cancel=True)`` kills the workers at once.

The fork server is started in the folder that holds the installed
:mod:`opt_sched` package (:func:`opt_sched.worker_processes.worker_context`,
which every pool of opt_sched uses).
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from ...errors import OptionError
from ...worker_processes import worker_context
from . import Outcome

__all__ = ["LocalExecutor"]

_PRELOAD = ["opt_sched.campaign.executors.warm"]
_POLL = 0.5  # seconds between two looks at the driver, without a pidfd


def _exit_when_gone(driver: int) -> None:
    """Block until process ``driver`` has exited, then end this process."""
    try:
        handle = os.pidfd_open(driver)
    except ProcessLookupError:
        os._exit(1)
    except (AttributeError, OSError):  # not Linux 5.3+: poll the pid
        while True:
            try:
                os.kill(driver, 0)
            except ProcessLookupError:
                os._exit(1)
            except PermissionError:
                pass
            time.sleep(_POLL)
    select.select([handle], [], [])  # readable once the driver has exited
    os._exit(1)


def _start_worker(driver: int, folder: str) -> None:
    """The initializer of every worker process (see the module docstring)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(OSError, ValueError):
        sys.stdout.flush()
        os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    with contextlib.suppress(OSError):
        os.chdir(folder)
    threading.Thread(target=_exit_when_gone, args=(driver,), daemon=True,
                     name="opt-sched-driver-watch").start()


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
                                         mp_context=worker_context(_PRELOAD),
                                         initializer=_start_worker,
                                         initargs=(os.getpid(), os.getcwd()))
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

    def close(self, *, cancel: bool = False) -> None:
        """Release the workers: wait for them to finish (and stop), or with
        ``cancel`` (an interrupted sweep) kill them at once."""
        pool, self._pool = self._pool, None
        if pool is None:
            return
        if cancel:
            _kill_workers(pool)
        # with the workers dead, waiting is short; it lets the pool release
        # its queues' semaphores (no "leaked semaphore" warning at exit)
        pool.shutdown(wait=True, cancel_futures=True)


def _kill_workers(pool: ProcessPoolExecutor) -> None:
    """``SIGKILL`` every worker process of ``pool``."""
    kill = getattr(pool, "kill_workers", None)  # Python 3.14+
    if kill is not None:
        kill()
        return
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        with contextlib.suppress(OSError, ValueError, AttributeError):
            process.kill()
