"""Gang scheduling on a serverless-I/O machine (seed 004; SPEC §10).

Time-sliced gang scheduling does not fit the space-sharing replay loop of
:mod:`opt_sched.scheduling` (a job holds its columns in one or more rows of
the Ousterhout matrix and advances only during its rows' slices), so it is a
self-contained subsystem:

- :mod:`.workload` -- :class:`GangWorkload` (jobs: arrival, tasks, CPU
  time, I/O blocks, file nodes) and its JSON file;
- :mod:`.placement` -- file-node placement (``random`` / ``contiguous``);
- :mod:`.serverless` -- the ``serverless-gang`` execution model (local or
  remote rate, migration stall);
- :mod:`.matrix` -- the Ousterhout matrix and the phases CleanMatrix,
  MigrateMatrix, CompactMatrix, FillMatrix and the Schedule row choices;
- :mod:`.schedulers` -- GS, IOGS, Adaptive-IOGS, Migrate-IOGS;
- :mod:`.simulator` -- :func:`simulate_gang`: time, slices, quantum
  accounting;
- :mod:`.record` -- :class:`GangRecord`, the schedule (slices and runs)
  with JSON round trip and the generic :class:`~opt_sched.schedule.Schedule`
  form;
- :mod:`.validate` -- :func:`validate_gang`, independent of the simulator;
- :mod:`.metrics` -- wait, response, slowdown, local jobs, utilisation;
- :mod:`.distributions`, :mod:`.jann` -- the ``jann`` workload protocol;
- :mod:`.swf` -- a minimal SWF reader for KTH-SP2 replays;
- :mod:`.experiments` -- :func:`run_point`, the reproduction grid;
- the commands ``generate --protocol jann`` and ``replay`` of a gang workload
  are :mod:`opt_sched.cli.gang`.
"""

from __future__ import annotations

from ..lazy import lazy_exports

# Imported on first use (PEP 562), so that ``opt-sched --help`` and the
# option lists of the commands do not import numpy and numba.
_LAZY: dict[str, str] = {
    "gang_job_table": ".metrics",
    "gang_summary": ".metrics",
    "PLACEMENTS": ".placement",
    "place_files": ".placement",
    "GangRecord": ".record",
    "read_record": ".record",
    "write_record": ".record",
    "GANG_SCHEDULERS": ".schedulers",
    "get_gang_scheduler": ".schedulers",
    "EXECUTION": ".serverless",
    "simulate_gang": ".simulator",
    "GANG_RULES": ".validate",
    "assert_gang_feasible": ".validate",
    "validate_gang": ".validate",
    "GangWorkload": ".workload",
    "read_workload": ".workload",
    "write_workload": ".workload",
}

__getattr__, __dir__ = lazy_exports(__name__, globals(), _LAZY)


__all__ = sorted(_LAZY)  # every lazy name
