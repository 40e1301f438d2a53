"""KTH-SP2 with measured I/O: the real trace of seed 001's comparison.

The KTH IBM SP2 log (Parallel Workloads Archive, 28,490 jobs on 100
nodes; ``../shared/data/swf/KTH-SP2.swf.gz``) has no I/O. Each job gets
I/O phases from the Darshan summaries of Cori (profile ``darshan-cori``,
:mod:`opt_sched.traces.profiles.darshan`: the shape of the measured I/O
shares), rescaled to the I/O load ``alpha`` (:func:`~opt_sched.traces.
convert_trace`), on one I/O node of ``bandwidth`` (20 by default, so that the
limits 20 and 15 of seed 001 read as "the bandwidth" and "3/4 of it").
``jobs`` keeps the first jobs only (the calibration is over the whole
trace). Its users, executables, requests and node counts are the trace's,
so the history estimator's groups are real ones.

The data folder: ``$OPT_SCHED_SHARED_DATA``, else the first ``shared/data``
folder found beside the package's ancestors (``../shared/data`` beside a
checkout).
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from ..errors import OptionError
from ..instance import Instance

__all__ = ["KTH_FILE", "kth_workload", "shared_data_dir"]

KTH_FILE = Path("swf") / "KTH-SP2.swf.gz"


def shared_data_dir() -> Path:
    """The real-data folder (module docstring).

    Raises
    ------
    OptionError
        None was found.
    """
    env = os.environ.get("OPT_SCHED_SHARED_DATA")
    if env:
        return Path(env)
    for parent in Path(__file__).resolve().parents:
        folder = parent / "shared" / "data"
        if folder.is_dir():
            return folder
    raise OptionError("the shared data folder (shared/data) was not found; set "
                      "OPT_SCHED_SHARED_DATA")


@lru_cache(maxsize=2)
def _trace(path: str):
    from ..traces import read_trace

    return read_trace(path)[0]


def kth_workload(alpha: float, seed: int = 0, bandwidth: float = 20.0,
                 jobs: int | None = None, profile: str = "darshan-cori") -> Instance:
    """KTH-SP2 with I/O from ``profile`` at load ``alpha`` (module
    docstring); ``jobs``: the first ones only.

    Raises
    ------
    OptionError
        Missing data, a bad ``alpha``/``bandwidth``/``jobs``.
    """
    from ..traces import convert_trace

    folder = shared_data_dir()
    path = folder / KTH_FILE
    if not path.is_file():
        raise OptionError(f"{path} is missing (set OPT_SCHED_SHARED_DATA)")
    options = ({"data_dir": str(folder / "darshan")} if profile.startswith("darshan-")
               else None)
    conversion = convert_trace(_trace(str(path)), profile, seed=seed, alpha=alpha,
                               bandwidth=bandwidth, profile_options=options)
    inst = conversion.instance
    if jobs is not None:
        if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
            raise OptionError(f"jobs={jobs!r} must be an integer >= 1")
        inst = inst.replace(jobs=inst.jobs[:jobs], name=f"{inst.name}-first{jobs}")
    return inst
