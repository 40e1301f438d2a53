"""Helpers of tests/test_campaign_sweep.py (not a test module).

:func:`counting_chunk` runs a chunk like the real
:func:`opt_sched.campaign.execute.run_chunk`, but first appends each task's
key to the file named by ``$CAMPAIGN_TEST_LOG`` (one ``write`` per line on
an ``O_APPEND`` file, so lines from several workers never interleave) and
sleeps ``$CAMPAIGN_TEST_SLEEP`` seconds per task. The log counts *executions*,
seen from the workers, independently of the store.

``python -m tests.campaign_counting SPEC OUT [--resume]`` runs a sweep with it
on 2 local worker processes, one task per chunk.
"""

from __future__ import annotations

import os
import sys
import time

from opt_sched.campaign.execute import run_chunk


def counting_chunk(tasks):
    log = os.environ["CAMPAIGN_TEST_LOG"]
    pause = float(os.environ.get("CAMPAIGN_TEST_SLEEP", "0"))
    for task in tasks:
        fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, f"{task.key}\n".encode())
        finally:
            os.close(fd)
        time.sleep(pause)
    return run_chunk(tasks)


def main(argv: list[str]) -> int:
    from opt_sched.campaign import load_spec, run_sweep
    from opt_sched.campaign.executors.local import LocalExecutor

    spec, out, *flags = argv
    executor = LocalExecutor(2)
    try:
        result = run_sweep(load_spec(spec), out, executor=executor,
                           resume="--resume" in flags, run=counting_chunk,
                           chunk_size=1, progress=False)
    finally:
        executor.close()
    return 0 if result.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
