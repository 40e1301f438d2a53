"""The Standard Workload Format (SWF) of the Parallel Workloads Archive.

One job per line, 18 whitespace-separated fields, ``-1`` = unknown; lines
starting with ``;`` are the header (``; Key: value``). Field numbers are
1-based as in the archive's definition
(https://www.cs.huji.ac.il/labs/parallel/workload/swf.html).
"""

from __future__ import annotations

__all__ = ["HEADER_INTEGERS", "INTEGER_FIELDS", "SWF_FIELDS", "UNKNOWN"]

SWF_FIELDS: tuple[str, ...] = (
    "job number",               # 1
    "submit time",              # 2
    "wait time",                # 3
    "run time",                 # 4
    "allocated processors",     # 5
    "average CPU time used",    # 6
    "used memory",              # 7
    "requested processors",     # 8
    "requested time",           # 9
    "requested memory",         # 10
    "status",                   # 11
    "user id",                  # 12
    "group id",                 # 13
    "executable number",        # 14
    "queue number",             # 15
    "partition number",         # 16
    "preceding job number",     # 17
    "think time",               # 18
)
"""Field names, index ``k`` = field ``k + 1``."""

INTEGER_FIELDS: tuple[int, ...] = (1, 5, 8, 11, 12, 13, 14, 15, 16, 17)
"""1-based fields that must hold integers (counts, ids, codes). Times,
memory and CPU time may be fractional in some logs."""

HEADER_INTEGERS: tuple[str, ...] = ("MaxJobs", "MaxRecords", "MaxNodes",
                                    "MaxProcs", "UnixStartTime")
"""Header keys parsed as integers (``-1`` = unknown)."""

UNKNOWN = -1
"""The SWF marker of an unknown value."""

# 0-based column indices used by the reader and the writer
JOB, SUBMIT, WAIT, RUN, ALLOCATED, CPU, MEMORY, REQ_PROCS, REQ_TIME, REQ_MEMORY, \
    STATUS, USER, GROUP, EXECUTABLE, QUEUE, PARTITION, PRECEDING, THINK = range(18)
