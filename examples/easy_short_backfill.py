"""EASY, but backfill only jobs under one hour (docs/write-a-scheduler.md)."""

from __future__ import annotations

import math
import sys

from opt_sched.errors import OptionError
from opt_sched.scheduling import register_scheduler
from opt_sched.scheduling.blocks import Blocks, BlockScheduler


class ShortBackfillEasy(BlockScheduler):
    """EASY backfilling where only jobs requesting less than ``limit``
    seconds (default one hour) may start ahead of the head of the queue."""

    name = "easy-short"

    def __init__(self, limit: float = 3600.0, rjms_delay: float = 0.0) -> None:
        super().__init__(rjms_delay)
        if not isinstance(limit, (int, float)) or not limit > 0:
            raise OptionError(f"limit={limit!r} must be a number of seconds > 0")
        self.limit = float(limit)

    def schedule(self, now: float, blocks: Blocks) -> None:
        for partition in range(blocks.partitions):
            queue = blocks.queue(partition)  # waiting jobs, in submission order
            head = blocks.start_in_order(queue)  # start them while they fit
            if head == len(queue):
                continue
            if blocks.shadow_time(queue[head]) == math.inf:  # reserve the head
                continue
            rest = queue[head + 1:]
            short = rest[self.jobs.estimate[rest] < self.limit]
            blocks.start_fitting(short)  # each if it fits now, reservation kept


if __name__ == "__main__":  # any opt-sched command line, with easy-short known
    from opt_sched.cli import main

    register_scheduler(ShortBackfillEasy.name, ShortBackfillEasy)
    sys.exit(main(sys.argv[1:]))
