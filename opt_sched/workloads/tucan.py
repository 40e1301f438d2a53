"""The Tucan workload of seed 003 Table 1 (SPEC §8).

Five Jacobi applications on one partition of 2048 nodes and bandwidth 1:

===  ============  ============  ==========
app  CPU w_i (s)   I/O v_i/b (s) iterations
===  ============  ============  ==========
1    32            10            250
2    16            5             500
3    8             2.5           1000
4    8             2.5           1000
5    16            5             500
===  ============  ============  ==========

Every application has the same contention-free length (10500 s) at batch 1.
The seed does not give node counts; like ``instances/tucan5.json`` each
application uses 64 nodes (any count that fits gives the same IO-SCHED
problem: the jobs all run at once on one I/O node). An *iteration batch*
multiplies every iteration count (seed 003 §6.1.2 footnote 2); counts are
rounded to the nearest integer and kept ``>= 1``.
"""

from __future__ import annotations

import math

from ..errors import OptionError
from ..instance import Instance, Job, Platform

__all__ = ["TUCAN_APPS", "tucan_workload"]

TUCAN_APPS = (
    ("app1", 32.0, 10.0, 250),
    ("app2", 16.0, 5.0, 500),
    ("app3", 8.0, 2.5, 1000),
    ("app4", 8.0, 2.5, 1000),
    ("app5", 16.0, 5.0, 500),
)
"""``(id, w_i, v_i, n_i)`` of Table 1 (``b = 1``, so ``v_i`` is in seconds)."""


def tucan_workload(batch: float = 1.0, *, nodes_per_app: int = 64) -> Instance:
    """Table 1 of seed 003 with iteration counts scaled by ``batch``.

    Each job is mapped to partition 0 (IO-SCHED: one pack). At ``batch = 1``
    this equals ``instances/tucan5.json``.

    Raises
    ------
    OptionError
        ``batch <= 0`` or not a number.

    Examples
    --------
    >>> [job.iterations for job in tucan_workload(0.5).jobs]
    [125, 250, 500, 500, 250]
    """
    if (isinstance(batch, bool) or not isinstance(batch, (int, float))
            or not math.isfinite(batch) or batch <= 0):
        raise OptionError(f"tucan: batch={batch!r} must be a number > 0")
    jobs = tuple(
        Job.periodic(app, nodes_per_app, w, v, max(1, round(n * batch)), partition=0)
        for app, w, v, n in TUCAN_APPS)
    name = "tucan5" if batch == 1 else f"tucan5-batch{batch:g}"
    return Instance(name, Platform.homogeneous(1, nodes=2048, bandwidth=1.0), jobs)
