"""How opt_sched starts worker processes: from a fork server, never by a
plain ``fork`` of the driver.

A plain ``fork`` copies the driver as it is, threads' locks included, but
not the threads: a lock some thread held at that moment stays held in the
child for ever. The driver holds threads: OR-Tools' (CP-SAT solves in C++
threads, and :mod:`opt_sched.exact.cpsat.interrupt` runs each solve in a
Python thread), the progress bar's, a campaign's driver watch. ``gap
--workers 2`` forked its workers from a process that had solved before; in
two CI runs a solve that takes 12-30 ms in the driver (``deps5``,
``hetero6``) ran to its 10 s limit in a worker and stopped short of the
optimum (``tests/test_gap_table.py``; not reproduced in 12 runs of that
test alone, so the inherited lock is the likely cause, not a proven one).
A fork server is a clean, single-threaded process started once; every
worker is forked from it, whatever the driver did before.

The fork server runs ``python -c``, which puts the current folder first
on ``sys.path``: started from a checkout's parent (a folder holding an
``opt_sched/`` folder), it would import that folder instead of the
installed package. So it is started from the folder that holds this very
package (:func:`worker_context`). Where there is no fork server (not
Linux), workers are spawned.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
from collections.abc import Iterator, Sequence
from multiprocessing.context import BaseContext
from pathlib import Path

__all__ = ["package_home", "worker_context"]


def package_home() -> str:
    """The folder that holds the imported ``opt_sched`` package."""
    return str(Path(__file__).resolve().parents[1])


@contextlib.contextmanager
def _working_folder(path: str) -> Iterator[None]:
    """Run the block with ``path`` as the current folder (or in place, if
    it cannot be entered)."""
    previous = os.getcwd()
    try:
        os.chdir(path)
    except OSError:
        yield
        return
    try:
        yield
    finally:
        os.chdir(previous)


def worker_context(preload: Sequence[str] = ()) -> BaseContext:
    """The multiprocessing context of opt_sched's workers: the fork server
    (started now, from :func:`package_home`, if it is not running; modules
    in ``preload`` are imported by it once, if it starts now), else
    ``spawn``."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    from multiprocessing import forkserver

    context = multiprocessing.get_context("forkserver")
    if preload:
        context.set_forkserver_preload(list(preload))
    with _working_folder(package_home()):
        forkserver.ensure_running()
    return context
