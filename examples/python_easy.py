"""EASY backfilling written in Python on opt_sched's building blocks.

It makes the same schedule as the built-in ``easy`` (batsched's
``easy_bf``): on Batsim's medium_late workload every start and every
machine of Batsim's own output. Replay it from the command line:

    python examples/python_easy.py replay WORKLOAD --scheduler python-easy --validate

(any ``opt-sched`` command line: the scheduler is registered in this
process first), or from Python: ``replay(instance, PythonEasy())``.
"""

from __future__ import annotations

import math
import sys

from opt_sched.scheduling import register_scheduler
from opt_sched.scheduling.blocks import Blocks, BlockScheduler


class PythonEasy(BlockScheduler):
    """EASY: the head of the queue (submission order) starts when it fits,
    otherwise it gets a reservation at its first fit (its *shadow time*),
    and any later job starts now if it fits without touching that
    reservation. The head's reservation is the only one: a head that
    starts gives it up, and ``shadow_time`` places it afresh at every pass
    (without a job end the profile only loses room, so it lands where it
    was, on the same machines)."""

    name = "python-easy"

    def schedule(self, now: float, blocks: Blocks) -> None:
        for partition in range(blocks.partitions):
            queue = blocks.queue(partition)  # waiting jobs, submission order
            head = blocks.start_in_order(queue)  # the first that does not fit
            if head == len(queue):
                continue
            if blocks.shadow_time(queue[head]) < math.inf:  # reserved
                blocks.start_fitting(queue[head + 1:])  # backfilling


if __name__ == "__main__":
    from opt_sched.cli import main

    register_scheduler(PythonEasy.name, PythonEasy)
    sys.exit(main(sys.argv[1:]))
