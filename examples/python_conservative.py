"""Conservative backfilling written in Python on opt_sched's building
blocks.

It makes the same schedule as the built-in ``conservative`` (batsched's
``conservative_bf``): on Batsim's medium_late workload every start and
every machine of Batsim's own output. Replay it from the command line:

    python examples/python_conservative.py replay WORKLOAD \
        --scheduler python-conservative --validate

or from Python: ``replay(instance, PythonConservative())``.
"""

from __future__ import annotations

import sys

from opt_sched.scheduling import register_scheduler
from opt_sched.scheduling.blocks import Blocks, BlockScheduler


class PythonConservative(BlockScheduler):
    """Every waiting job holds a reservation at its first fit (it starts
    when that fit starts now). After a job end the reservations are
    compressed: each job is placed again, in queue order, the jobs behind
    it keeping theirs meanwhile; so too when the reservations were dropped
    (``stale``: one could not be kept, a job ran past its estimate).
    Otherwise only the jobs submitted since the last pass are placed -- not
    every job without a reservation: a job that never fits (its machines
    held by a job of unknown length) waits for the next end, as in
    batsched."""

    name = "python-conservative"

    def schedule(self, now: float, blocks: Blocks) -> None:
        for partition in range(blocks.partitions):
            if blocks.ended(partition) or blocks.stale(partition):
                blocks.place(blocks.queue(partition))
            else:
                blocks.place(blocks.released(partition))


if __name__ == "__main__":
    from opt_sched.cli import main

    register_scheduler(PythonConservative.name, PythonConservative)
    sys.exit(main(sys.argv[1:]))
