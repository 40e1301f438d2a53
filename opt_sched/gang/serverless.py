r"""The ``serverless-gang`` execution model (SPEC §10, seed 004 §2).

Every node computes and stores file partitions. A job's tasks run in gang
(all in the same time slices, :mod:`opt_sched.gang.matrix`), and the job
progresses only during the slices of the rows it occupies. Its I/O requests
are spread evenly over its run (seed §2.3), so the job is a *rate*: in a
slice where it runs for :math:`\ell` seconds it completes

.. math::

    \ell / t^{e'}_i \ \text{of its work when local},\qquad
    \ell / t^{rem}_i \ \text{when remote},

with :math:`t^{e'}_i = t^C_i + n^I_i t_{local}` and
:math:`t^{rem}_i = t^C_i + n^I_i t_{remote}`. *Local* is all-or-nothing: the
set of columns the job runs on equals its set of file nodes (tasks are
identical, so any one-to-one matching of tasks to partitions will do);
otherwise every block costs :math:`t_{remote}` (seed §2.3 item 3). The
simulator keeps the remaining work in *all-local seconds*, so a local job
advances at speed 1 and a remote one at :math:`t^{e'}_i / t^{rem}_i`; a
remote job needs :math:`1 + r_i (t_{remote}/t_{local} - 1)` times its
all-local time (2.0 at r = 0.5 with the seed's costs).

A migrated job (Migrate-IOGS) first stalls for the migration cost ``C``:
the first ``C`` seconds of its next slices do no work (seed §3.6: "the job
needs to pay the migration overhead only once, at the beginning of the next
time quantum").

Why this model is not an :class:`opt_sched.execution.ExecutionModel`: that
seam runs phases of space-shared jobs between job-level events; here jobs
time-share nodes and their progress depends on the slice cycle of the
Ousterhout matrix, so the gang simulator (:mod:`opt_sched.gang.simulator`)
owns both time and execution and records each slice (:mod:`.record`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .matrix import columns_to_mask
from .workload import GangWorkload

__all__ = ["EXECUTION", "Serverless", "columns_mask"]

EXECUTION = "serverless-gang"
"""The name a gang schedule records as its execution model."""


def columns_mask(columns: Sequence[int], nodes: int) -> int:
    """The bit mask of a set of node numbers (bit ``c`` set for node ``c``)."""
    return columns_to_mask(columns, nodes)


class Serverless:
    """Speeds of the jobs of ``workload`` under serverless I/O."""

    name = EXECUTION

    def __init__(self, workload: GangWorkload) -> None:
        if workload.file_nodes is None:
            from ..errors import OptionError

            raise OptionError("gang workload has no file nodes; apply a placement "
                              "(opt_sched.gang.placement.place_files) first")
        self.workload = workload
        self.all_local_time = workload.all_local_time
        self.remote_time = workload.remote_time
        speed = workload.all_local_time / workload.remote_time
        self.remote_speed: list[float] = speed.tolist()
        nodes = workload.nodes
        self.file_masks: list[int] = [columns_to_mask(f, nodes)
                                      for f in workload.file_nodes]

    def speed(self, job: int, local: bool) -> float:
        """All-local seconds of work done per second of slice."""
        return 1.0 if local else self.remote_speed[job]

    def is_local(self, job: int, mask: int) -> bool:
        """Whether columns ``mask`` are exactly the job's file nodes."""
        return mask == self.file_masks[job]

    def remote_factor(self) -> np.ndarray:
        """:math:`t^{rem}_i / t^{e'}_i` per job."""
        return self.remote_time / self.all_local_time
