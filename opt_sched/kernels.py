"""How a command runs the compiled kernels: compiled by numba, or as Python.

numba compiles the replay and simulation kernels on their first call and
caches them on disk. On a cold cache that costs 20-50 s on 2 cores (issue
25 measured 22 s for EASY on KTH-SP2 with ``darshan-cori`` I/O, 27 s
without I/O, 30-50 s on Batsim's medium_late), and even a warm cache costs
about a second to load. The same kernels also run as plain Python
(numba's ``DISABLE_JIT``: ``@njit`` returns the function itself), with the
same results -- Batsim medium_late 801/801, and KTH-SP2's ``out_jobs.csv``
byte for byte under EASY and conservative -- at about
:data:`PYTHON_JOBS_PER_S` jobs and :data:`PYTHON_PHASES_PER_S` I/O phases
per second. So a small replay is fastest as Python (medium_late: 0.85 s for
the whole process, against 30-50 s compiling and 1.2-1.5 s from a warm
cache), and a large one compiled.

``OPT_SCHED_KERNELS`` chooses: ``compiled``, ``python``, or ``auto`` (the
default), which estimates the Python time of the work, ``p = jobs /
PYTHON_JOBS_PER_S + io_phases / PYTHON_PHASES_PER_S``, and runs as Python
when ``p <= PYTHON_BUDGET_S`` (about what loading the cached kernels
costs), or when ``p <= COLD_PYTHON_S`` and numba's disk cache holds no
compiled copy of the kernel the replay needs (compiling it would cost more
than ``p``); compiled otherwise. KTH-SP2 without I/O (``p`` = 7.9 s) thus
runs as Python on a cold cache and compiled (2.2 s) once a compiled run
has filled the cache (``OPT_SCHED_KERNELS=compiled`` fills it: the replay
says so); with ``darshan-cori`` I/O (``p`` = 45 s) it compiles.

``opt-sched kernels --compile`` (:mod:`opt_sched.experiments.compile_ahead`)
compiles the kernels once, right after the install, so that the first
real replay or gap loads them instead (measured: ``scripts/bench_first_run.py``).

The choice must be made before the first kernel module is imported (numba
reads ``DISABLE_JIT`` when it decorates), so ``opt-sched replay`` calls
:func:`choose_kernels` once the workload is read and before it builds a
scheduler; library calls always run compiled.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from .errors import OptionError

__all__ = ["COLD_PYTHON_S", "ENV", "KERNELS", "MODES", "PYTHON_BUDGET_S",
           "PYTHON_JOBS_PER_S", "PYTHON_PHASES_PER_S", "cache_folder", "cached_kernels",
           "choose_kernels", "is_cached", "python_seconds"]

ENV = "OPT_SCHED_KERNELS"
MODES = ("auto", "compiled", "python")

PYTHON_JOBS_PER_S = 3_600.0
"""Jobs replayed per second by the kernels as Python, without I/O
(KTH-SP2, EASY: 28,481 jobs in 7.9 s for the whole process)."""

PYTHON_PHASES_PER_S = 42_000.0
"""I/O phases per second by the kernels as Python (KTH-SP2, EASY,
``darshan-cori`` at alpha 0.5: 1,566,138 phases in 37 s)."""

PYTHON_BUDGET_S = 1.5
"""``auto`` runs as Python up to this estimated time: about what a process
pays to import numba and load the cached kernels."""

COLD_PYTHON_S = 15.0
"""On a cold cache, ``auto`` runs as Python up to this estimated time:
below what compiling costs there (22-50 s measured on 2 cores)."""

KERNELS = {False: ("scheduling/fused.py", "run"),
           True: ("simulation/events.py", "step")}
"""With I/O phases or without: the module (in the package) and the kernel
whose cached copy tells a warm cache from a cold one."""

_FIRST_KERNEL = "opt_sched.borrow"
"""Imported by the kernel modules before anything is compiled: once it is
imported, the mode is fixed for the process."""


def python_seconds(jobs: int, io_phases: int) -> float:
    """The estimated time of the work as Python."""
    return jobs / PYTHON_JOBS_PER_S + io_phases / PYTHON_PHASES_PER_S


def cache_folder() -> Path:
    """Where numba caches the package's kernels: ``NUMBA_CACHE_DIR`` when it
    is set, else the ``__pycache__`` folders beside the sources (the
    package's own folder is returned then)."""
    chosen = os.environ.get("NUMBA_CACHE_DIR")
    return Path(chosen) if chosen else Path(__file__).resolve().parent


def cached_kernels() -> int:
    """How many compiled kernels (numba index files ``*.nbi``) the cache
    holds for this package."""
    folder = cache_folder()
    if os.environ.get("NUMBA_CACHE_DIR"):
        return sum(1 for _ in folder.rglob("*.nbi"))
    return sum(1 for _ in folder.rglob("__pycache__/*.nbi"))


def is_cached(module: str, function: str) -> bool:
    """Whether numba's disk cache holds a compiled ``function`` of the
    package's ``module`` (an index ``<stem>.<function>-<line>.py*.nbi``),
    under ``NUMBA_CACHE_DIR`` when it is set, else in the module's
    ``__pycache__`` (where numba caches beside writable sources)."""
    source = Path(__file__).resolve().parent / module
    pattern = f"{source.stem}.{function}-*.nbi"
    chosen = os.environ.get("NUMBA_CACHE_DIR")
    if chosen:
        return next(Path(chosen).rglob(pattern), None) is not None
    return next((source.parent / "__pycache__").glob(pattern), None) is not None


def choose_kernels(jobs: int, io_phases: int) -> str:
    """Choose how this process runs the kernels (see the module docstring)
    and return ``"compiled"`` or ``"python"``.

    Raises
    ------
    OptionError
        ``OPT_SCHED_KERNELS`` is set to something else than :data:`MODES`.
    """
    wanted = os.environ.get(ENV, "auto").strip().lower() or "auto"
    if wanted not in MODES:
        raise OptionError(f"{ENV}={wanted!r} is not one of {', '.join(MODES)}")
    if wanted == "auto":
        seconds = python_seconds(jobs, io_phases)
        cold = seconds <= COLD_PYTHON_S and not is_cached(*KERNELS[io_phases > 0])
        wanted = "python" if seconds <= PYTHON_BUDGET_S or cold else "compiled"
    from numba import config

    if wanted == "python" and _FIRST_KERNEL not in sys.modules:
        config.DISABLE_JIT = True  # read by @njit when the kernel modules load
    return "python" if config.DISABLE_JIT else "compiled"
