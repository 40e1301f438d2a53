"""The limits of the gang simulator: how large a run may be.

``--mpl 1000000000`` asks for a matrix of a billion rows; ``--quantum
1e-300`` for more slices than there are atoms; ``--migration-cost inf``
for a stall that never ends. Each would exhaust the memory (every slice is
recorded) or never finish. :func:`check_run` refuses them before the
simulation allocates anything (a workload of more than :data:`MAX_NODES`
nodes is refused where it is built, :class:`~opt_sched.gang.workload.
GangWorkload`), with a one-line
:class:`~opt_sched.errors.OptionError` naming the option, its value and the
limit; the simulator also stops at :data:`MAX_SLICES` while it runs (a
backstop for what no bound foresees).

================  ============  ==========================================
limit             value         what it bounds
================  ============  ==========================================
``MAX_NODES``     ``10**5``     nodes of a gang machine (the seed's has
                                320, KTH-SP2 100; the matrix keeps a bit
                                mask of the machine per row and per job
                                and scans its columns at each event)
``MAX_MPL``       ``1000``      rows of the Ousterhout matrix (the seed
                                uses 5; the schedulers scan every row at
                                each event)
``MAX_SLICES``    ``10**7``     slices of one run, each recorded (about 2
                                GB; seed 004's 10,000-job runs take some
                                ``3 * 10**4`` slices of 200 s)
``MAX_VALUE``     ``1e15``      the quantum and the migration cost, in
                                seconds (:data:`opt_sched.limits.MAX_VALUE`)
================  ============  ==========================================

Slices needed, at least. A slice runs one row for at most ``T`` seconds on
at most every node, so a run takes at least ``max_i t_i / T`` slices (one
job progresses at most ``T`` per slice) and ``sum_i n_i t_i / (P T)`` (the
machine does at most ``P T`` node-seconds per slice), with ``t_i`` the
all-local time; a migration stalls its job ``C / T`` slices.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from ..errors import OptionError
from ..limits import MAX_VALUE
from .workload import MAX_NODES

if TYPE_CHECKING:
    from .workload import GangWorkload

__all__ = ["MAX_MPL", "MAX_NODES", "MAX_SLICES", "check_run", "min_slices"]

MAX_MPL = 1000
MAX_SLICES = 10**7


def min_slices(workload: GangWorkload, quantum: float) -> float:
    """A lower bound on the slices a run of ``workload`` takes (module
    docstring)."""
    if not len(workload):
        return 0.0
    work = workload.all_local_time
    longest = float(work.max()) / quantum
    area = float(np.dot(workload.size, work)) / (workload.nodes * quantum)
    return max(longest, area)


def check_run(workload: GangWorkload, mpl: int, quantum: float,
              migration_cost: float = 0.0) -> None:
    """Refuse a run beyond the limits (module docstring).

    Raises
    ------
    OptionError
        ``mpl``, ``quantum`` or ``migration_cost`` out of its limit.
    """
    if mpl > MAX_MPL:
        raise OptionError(f"mpl={mpl!r} is above the limit of {MAX_MPL} matrix rows "
                          f"(MAX_MPL, opt_sched.gang.limits)")
    for name, value in (("quantum", quantum), ("migration_cost", migration_cost)):
        if not (math.isfinite(value) and value <= MAX_VALUE):
            raise OptionError(f"{name}={value!r} is above the limit of "
                              f"{MAX_VALUE:g} s (MAX_VALUE, opt_sched.limits)")
    needed = min_slices(workload, quantum)
    if needed > MAX_SLICES:
        raise OptionError(f"quantum={quantum!r}: the workload needs at least "
                          f"{needed:.3g} slices of it, above the limit of "
                          f"{MAX_SLICES} slices (MAX_SLICES, opt_sched.gang.limits)")
    if migration_cost / quantum > MAX_SLICES:
        raise OptionError(f"migration_cost={migration_cost!r}: one migration "
                          f"stalls its job {migration_cost / quantum:.3g} slices of "
                          f"quantum={quantum!r}, above the limit of {MAX_SLICES} "
                          f"slices (MAX_SLICES, opt_sched.gang.limits)")
