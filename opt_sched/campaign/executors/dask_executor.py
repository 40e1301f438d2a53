"""A Dask distributed cluster: a scheduler address, a LocalCluster, or any
cluster object (dask-jobqueue's ``SLURMCluster``, :mod:`.slurm`).

Each chunk is one ``client.submit(fn, chunk, pure=False)``; results come
back to the driver, which alone writes the store. The window of chunks in
flight is twice the cluster's current thread count (at least
``min_window``), recomputed as results arrive, so a cluster that grows
(Slurm jobs starting) gets more work. A chunk lost with its worker is
retried by Dask on another worker; a chunk that keeps killing workers
comes back as ``KilledWorker`` and its tasks are recorded as failed.

The workers must be able to import ``opt_sched`` (the same environment)
and read the instance files of the spec (a shared file system).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ...errors import OptionError
from . import Outcome, require_dask

__all__ = ["DaskExecutor"]


class DaskExecutor:
    """Chunks on a Dask cluster.

    Parameters
    ----------
    address
        ``"tcp://host:8786"`` (a running scheduler) or ``"local"`` (a
        ``LocalCluster`` of ``workers`` single-threaded workers).
    workers
        Workers of the local cluster (default: every core).
    processes
        Local cluster only: worker processes (default) or threads of this
        process (``False``; fine for small tests).
    cluster
        An existing cluster object instead of ``address`` (closed by
        :meth:`close`).
    min_window
        Chunks kept in flight while the cluster has no thread yet.

    Raises
    ------
    OptionError
        Dask is not installed, or the scheduler cannot be reached.
    """

    def __init__(self, address: str | None = None, *, workers: int | None = None,
                 processes: bool = True, cluster: Any = None,
                 min_window: int = 4) -> None:
        require_dask("--dask")
        from distributed import Client, LocalCluster

        self._cluster = cluster
        self.min_window = min_window
        if cluster is not None:
            self.description = f"Dask cluster {type(cluster).__name__}"
        elif address == "local":
            import os

            n = workers or os.cpu_count() or 1
            self._cluster = LocalCluster(n_workers=n, threads_per_worker=1,
                                         processes=processes,
                                         dashboard_address=None)
            self.description = f"Dask LocalCluster, {n} workers"
        elif address:
            self.description = f"Dask scheduler {address}"
        else:
            raise OptionError("--dask needs an address (tcp://host:8786) or 'local'")
        try:
            target = self._cluster if self._cluster is not None else address
            self.client = Client(target, timeout="30s")
        except (OSError, ValueError) as err:  # unreachable; a malformed address
            self.close()
            raise OptionError(f"--dask={address!r}: cannot reach the scheduler "
                              f"({err})") from None

    def _window(self) -> int:
        threads = sum(self.client.nthreads().values())
        return max(2 * threads, self.min_window)

    def run(self, fn: Callable[[list[Any]], list[Any]], chunks: Iterable[list[Any]],
            on_dispatch: Callable[[list[Any]], None]
            ) -> Iterator[tuple[list[Any], Outcome]]:
        from distributed import as_completed

        pending = iter(chunks)
        in_flight: dict[str, list[Any]] = {}
        completed = as_completed()

        def fill() -> None:
            window = self._window()
            while len(in_flight) < window:
                chunk = next(pending, None)
                if chunk is None:
                    return
                on_dispatch(chunk)
                future = self.client.submit(fn, chunk, pure=False)
                in_flight[future.key] = chunk
                completed.add(future)

        fill()
        for future in completed:
            chunk = in_flight.pop(future.key)
            try:
                outcome: Outcome = future.result()
            except Exception as err:  # KilledWorker, a lost connection...
                outcome = err
            future.release()
            yield chunk, outcome
            fill()

    def close(self, *, cancel: bool = False) -> None:
        """Close the client and the cluster this executor started (the
        cluster's workers stop with it; ``cancel`` changes nothing here)."""
        client = getattr(self, "client", None)
        if client is not None:
            client.close()
            self.client = None
        if self._cluster is not None:
            self._cluster.close()
            self._cluster = None
