"""The down-scaled copy of an instance: its first jobs, each cut to its first
iterations.

Cutting jobs and iterations only removes work, and every constraint of the
copy is one of the original's: the copy is a relaxation, so its optimal
makespan is at most the original's (seed 000's study certifies gaps on such
copies; :mod:`opt_sched.studies.ijhpca2023.experiment` says what transfers).
"""

from __future__ import annotations

import dataclasses

from ..errors import OptionError
from ..instance import Instance

__all__ = ["prefix_copy"]


def prefix_copy(instance: Instance, jobs: int | None = None,
                iterations: int | None = None) -> Instance:
    """The down-scaled copy of ``instance``: its first ``jobs`` jobs, each
    cut to its first ``iterations`` iterations (``None``: all of them).

    A relaxation of ``instance`` (see the module docstring): its optimal
    makespan is at most the original's.

    Raises
    ------
    OptionError
        ``jobs`` or ``iterations`` is not an integer >= 1.
    """
    for name, value in (("copy_jobs", jobs), ("copy_iterations", iterations)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                  or value < 1):
            raise OptionError(f"{name}={value!r} must be an integer >= 1")
    kept = instance.jobs if jobs is None else instance.jobs[:jobs]
    cut = tuple(dataclasses.replace(job, compute=job.compute[:iterations],
                                    io_volume=job.io_volume[:iterations])
                for job in kept)
    label = "x".join("all" if v is None else str(v) for v in (jobs, iterations))
    return instance.replace(jobs=cut, name=f"{instance.name}-copy{label}")
