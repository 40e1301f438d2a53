"""The limits of the workload generators: how large a generated workload may be.

``opt-sched generate --protocol mira --jobs 1000000000`` asks for a billion
jobs in a command line of forty characters; ``--days 1e6`` or ``--repeats
1e8`` do the same less visibly. Each would exhaust the memory long before
writing anything. The generators check these limits *before* they allocate
(each with a one-line :class:`~opt_sched.errors.OptionError` that names the
option, its value and the limit passed), and the ones whose size is only
known as they go (the pressure-controlled NERSC model) also stop at the
limit while they run.

=======================  ============  ======================================
limit                    value         what it bounds
=======================  ============  ======================================
``MAX_GENERATED_JOBS``   ``10**6``     jobs of one generated workload (the
                                       largest public traces hold a few
                                       million jobs over years; seed 000
                                       uses 100, seed 004 10,000). A mira
                                       job has at most 100 iterations, so
                                       the instance stays within
                                       :data:`opt_sched.limits.
                                       MAX_TOTAL_PHASES` (``10**8``).
``MAX_ALPHA_GEN``        ``1e6``       ics2020's target I/O load (seed 003
                                       uses 0.5 to 10; above about 970 the
                                       mean node count is clipped to 1, so a
                                       larger target changes nothing).
``MAX_MACHINES``         ``10**7``     machines of a generated system (the
                                       replay limit of
                                       :data:`opt_sched.limits.MAX_MACHINES`)
=======================  ============  ======================================

The gang simulator's own limits (matrix rows, slices) are in
:mod:`opt_sched.gang.limits`.
"""

from __future__ import annotations

from ..errors import OptionError
from ..limits import MAX_MACHINES

__all__ = ["MAX_ALPHA_GEN", "MAX_GENERATED_JOBS", "MAX_MACHINES", "check_job_count",
           "check_machine_count"]

MAX_GENERATED_JOBS = 10**6
MAX_ALPHA_GEN = 1e6


def check_job_count(count: float, what: str, *, about: bool = False) -> None:
    """Refuse a workload of ``count`` jobs above :data:`MAX_GENERATED_JOBS`.

    ``what`` names the option and its value (``"--jobs=2000000"``), and why
    it means that many jobs when it is not a job count; ``about``: ``count``
    is an estimate.

    Raises
    ------
    OptionError
        ``count`` is above the limit.

    Examples
    --------
    >>> check_job_count(100, "--jobs=100")
    >>> check_job_count(2e6, "--jobs=2000000")
    Traceback (most recent call last):
    ...
    opt_sched.errors.OptionError: --jobs=2000000 asks for 2e+06 jobs, above the \
limit of 1000000 generated jobs (MAX_GENERATED_JOBS, opt_sched.workloads.limits)
    """
    if count > MAX_GENERATED_JOBS:
        raise OptionError(f"{what} asks for {'about ' if about else ''}"
                          f"{count:.3g} jobs, above the limit of "
                          f"{MAX_GENERATED_JOBS} generated jobs (MAX_GENERATED_JOBS, "
                          f"opt_sched.workloads.limits)")


def check_machine_count(count: int, what: str) -> None:
    """Refuse a generated system of more than :data:`MAX_MACHINES` machines.

    Raises
    ------
    OptionError
        ``count`` is above the limit.
    """
    if count > MAX_MACHINES:
        raise OptionError(f"{what} is above the limit of {MAX_MACHINES} machines "
                          f"(MAX_MACHINES, opt_sched.limits)")
