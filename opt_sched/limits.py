"""The limits of the data model: how large or small a number may be.

An instance file of a hundred bytes can ask for ``10^12`` iterations, a
release time of ``1e308`` or a bandwidth of ``5e-324``. None of these is a
workload; each would exhaust the memory, overflow to ``inf`` (``1e308 +
1e308``) or divide into ``inf`` (``v / 5e-324``) deep inside a method. The
data model refuses them where it checks its numbers
(:mod:`opt_sched.instance`), and the JSON reader (:mod:`opt_sched.json_files`) before
it builds anything, each with a one-line
:class:`~opt_sched.errors.InstanceError` that names the field and the limit.
The trace readers (:mod:`opt_sched.traces`) apply the same limits to the
fields they use, with a :class:`~opt_sched.errors.TraceError` naming the
file, the line (or job) and the field, so a trace that converts is an
instance that validates.

The limits leave room for every real workload and keep every derived
quantity finite. With times and volumes at most ``MAX_VALUE`` and bandwidths
at least ``MIN_BANDWIDTH``, one I/O phase lasts at most
``1e15 / 1e-12 = 1e27`` s, and a whole instance at most
``MAX_TOTAL_PHASES * (1e15 + 1e27) ~ 1e35`` s, far below the largest float
(``1.8e308``): sums, makespans and stretches cannot overflow.

========================  ============  =====================================
limit                     value         what it bounds
========================  ============  =====================================
``MAX_VALUE``             ``1e15``      every time (release, compute,
                                        walltime), I/O volume, bandwidth,
                                        resource capacity and demand
                                        (``1e15`` s is 31 million years)
``MIN_BANDWIDTH``         ``1e-12``     a partition's bandwidth (below it,
                                        ``v / b`` leaves the float range)
``MAX_COUNT``             ``10**9``     node counts and partition indices
                                        (the largest machines have ~``10^7``
                                        cores; int64 arithmetic stays exact)
``MAX_PARTITIONS``        ``10**5``     partitions (I/O nodes) of a platform
``MAX_MACHINES``          ``10**7``     machines of a trace's system (SWF
                                        ``MaxProcs``/``MaxNodes``, else its
                                        widest job; Batsim ``nb_res`` or
                                        platform hosts; ``replay --nodes``):
                                        a replay keeps state per machine
                                        (``10**7``: about 1 GB, 4 s)
``MAX_ITERATIONS``        ``10**7``     iterations (phase pairs) of one job
``MAX_TOTAL_PHASES``      ``10**8``     I/O phases of one instance file
                                        (about 3 GB in memory)
========================  ============  =====================================

Non-zero values below the smallest normal float (subnormals, ``|x| <
2.2e-308``) are refused everywhere: their reciprocals are infinite. JSON
nesting is limited by the reader's recursion limit (about 1000 levels; an
instance file needs 5).

What a generator may be asked to draw (jobs, ``alpha_gen``) is bounded in
:mod:`opt_sched.workloads.limits`; gang scheduling's nodes, multiprogramming
level and slices in :mod:`opt_sched.gang.limits`; a campaign's tasks in
:mod:`opt_sched.campaign.spec` (``MAX_TASKS``). Each is checked before
anything is allocated.
"""

from __future__ import annotations

import sys

__all__ = [
    "MAX_COUNT",
    "MAX_ITERATIONS",
    "MAX_MACHINES",
    "MAX_PARTITIONS",
    "MAX_TOTAL_PHASES",
    "MAX_VALUE",
    "MIN_BANDWIDTH",
    "MIN_NORMAL",
]

MAX_VALUE = 1e15
MIN_BANDWIDTH = 1e-12
MAX_COUNT = 10**9
MAX_PARTITIONS = 10**5
MAX_MACHINES = 10**7
MAX_ITERATIONS = 10**7
MAX_TOTAL_PHASES = 10**8
MIN_NORMAL = sys.float_info.min
