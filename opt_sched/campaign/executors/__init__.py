"""Where the chunks of a sweep run, behind one protocol.

An executor takes the function that runs a chunk (a list of tasks; by
default :func:`opt_sched.campaign.execute.run_chunk`) and the chunks, and
yields ``(chunk, outcome)`` as chunks complete, where ``outcome`` is the
chunk's list of results or the exception that lost the chunk (a worker
died). It keeps a bounded window of chunks in flight and calls
``on_dispatch(chunk)`` just before it hands a chunk out, so the driver can
count the attempt. The tasks never change with the executor.

- :class:`~.local.LocalExecutor` -- processes on this machine (default;
  ``--workers N``; ``N = 1`` runs in the driver's own process);
- :class:`~.dask_executor.DaskExecutor` -- a Dask distributed cluster
  (``--dask tcp://host:8786`` or ``--dask local``);
- :func:`~.slurm.slurm_executor` -- dask-jobqueue's ``SLURMCluster`` from a
  TOML file (``--slurm cluster.toml``).

Dask and dask-jobqueue are the optional extra ``opt_sched[dask]``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol

__all__ = ["Executor", "Outcome"]

Outcome = list[Any] | BaseException


class Executor(Protocol):
    """Runs chunks; see the module docstring."""

    description: str

    def run(self, fn: Callable[[list[Any]], list[Any]], chunks: Iterable[list[Any]],
            on_dispatch: Callable[[list[Any]], None]
            ) -> Iterator[tuple[list[Any], Outcome]]:
        """Yield ``(chunk, fn(chunk) or the exception)`` as chunks finish."""
        ...

    def close(self, *, cancel: bool = False) -> None:
        """Release the workers; ``cancel`` (an interrupted sweep): at once,
        without waiting for the chunks in flight."""
        ...


def require_dask(flag: str) -> None:
    """Raise a one-line :class:`OptionError` if ``distributed`` is missing."""
    from ...errors import OptionError

    try:
        import distributed  # noqa: F401
    except ImportError:
        raise OptionError(f"{flag} needs Dask: pip install \"opt_sched[dask]\" "
                          f"(dask[distributed], dask-jobqueue)") from None
