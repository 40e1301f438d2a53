"""Compile the kernels ahead of the first real run (issue 25).

numba compiles a kernel on its first call and caches the machine code on
disk (beside the sources, or under ``NUMBA_CACHE_DIR``); a cold cache makes
the first replay of a large trace pay 15-25 s of compiling on 2 cores
(KTH-SP2 with ``darshan-cori`` I/O: 16 s of its 25 s), and the first
``gap`` as much (the simulator, the bounds, the portfolio's search).
``opt-sched kernels --compile`` pays that once, right after the install,
through the library's own paths, so that the kernels are compiled for
exactly the argument types real runs pass them:

- **replay**: one tiny trace (:data:`TINY_SWF`: 120 jobs on 96 machines)
  under every registered scheduler and execution model, without I/O and
  with I/O (``read_swf``, ``convert_trace``, ``replay``). It reaches the
  rarely taken paths too: 90 one-machine jobs with distinct end times
  overflow the availability profile's 64 initial slices, so the
  state-growing kernel compiles as well;
- **blocks**: the building blocks of Python schedulers
  (:mod:`opt_sched.scheduling.blocks`), under :class:`_BlocksWarmUp` on
  the same trace, with I/O or not;
- **gap**: the gap table (:func:`~.gap.gap_table`: every default method,
  the bounds, the auto solver for 1 s) of a two-job IO-SCHED instance
  (:func:`tiny_instance`), for each objective;
- **window**: the bracket of a window of the tiny trace's EASY replay with
  I/O (:func:`~.window.window_gap`, every objective, 3 s each): its
  heuristics, its bounds and the interval LP's separation kernel, which
  runs in the LP's own process and would otherwise compile inside the
  bound's time.

A warm-up that does not apply (a scheduler that refuses the tiny workload,
a plug-in that fails) is reported and skipped: it only leaves that
scheduler to compile on its first real run.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..instance import Instance
    from ..scheduling.blocks import Blocks, BlockScheduler

__all__ = ["IO_PROFILE", "TINY_SWF", "WarmUp", "WarmUpResult", "compile_ahead",
           "require_compiled", "warm_ups"]

IO_PROFILE = "bn"
"""The I/O profile of the warm-ups with I/O (seed 000's, synthetic: it
needs no data file)."""


def _tiny_swf() -> str:
    """:data:`TINY_SWF`: 90 one-machine jobs submitted at 0 with distinct
    run times (100 + i s), then 30 wider jobs (11-61 machines) submitted
    every 5 s; every estimate is twice the run time."""
    lines = ["; MaxNodes: 96", "; MaxProcs: 96"]
    for i in range(120):
        nodes = 1 if i < 90 else 1 + 10 * (i % 7)
        submit = 0 if i < 90 else 5 * (i - 89)
        run = 100 + i
        lines.append(f"{i + 1} {submit} -1 {run} {nodes} -1 -1 {nodes} {2 * run} "
                     f"-1 1 {1 + i % 3} 1 -1 1 -1 -1 -1")
    return "\n".join(lines) + "\n"


TINY_SWF = _tiny_swf()
"""The warm-up trace (SWF)."""


GAP_OBJECTIVES = ("makespan", "max-stretch")
"""The objectives of the gap warm-ups."""

WINDOW = (30, 20)
"""``(START, COUNT)`` of the window warm-up in the tiny trace."""


@dataclass(frozen=True)
class WarmUp:
    """One tiny run (``kind``): ``"replay"`` of the scheduler ``method``
    under ``execution``, with I/O or not; ``"blocks"``, the building blocks
    under :func:`_blocks_warm_up`, with I/O or not; ``"gap"``, the gap table
    of :func:`tiny_instance` for the objective ``method``; ``"window"``,
    the window bracket of the tiny trace with I/O."""

    method: str
    execution: str
    io: bool
    kind: str = "replay"

    @property
    def label(self) -> str:
        if self.kind == "gap":
            return f"gap, {self.method}"
        if self.kind == "blocks":
            return f"building blocks, {'I/O' if self.io else 'no I/O'}"
        if self.kind == "window":
            return "window bracket, I/O"
        return f"{self.method}, {'I/O' if self.io else 'no I/O'}, {self.execution}"


@dataclass(frozen=True)
class WarmUpResult:
    """What one warm-up did: its seconds, or why it was skipped."""

    warm_up: WarmUp
    seconds: float
    skipped: str | None = None

    def as_dict(self) -> dict[str, object]:
        return {"kind": self.warm_up.kind, "method": self.warm_up.method,
                "execution": self.warm_up.execution, "io": self.warm_up.io,
                "seconds": round(self.seconds, 3), "skipped": self.skipped}


def warm_ups() -> list[WarmUp]:
    """Every registered scheduler under every registered execution model,
    without I/O (the compute-only kernels) and with I/O (the event loop);
    read from the registries, so a plug-in's scheduler or model is warmed
    too. Then the gap table, per objective."""
    from ..execution import EXECUTION_MODELS
    from ..scheduling import SCHEDULERS

    return ([WarmUp(name, model, io) for io in (False, True)
             for name in SCHEDULERS for model in EXECUTION_MODELS]
            + [WarmUp("blocks", "exclusive", io, "blocks") for io in (False, True)]
            + [WarmUp(objective, "exclusive", True, "gap")
               for objective in GAP_OBJECTIVES]
            + [WarmUp("easy", "exclusive", True, "window")])


def _blocks_warm_up() -> BlockScheduler:
    """A scheduler on the building blocks that calls every block: EASY's
    passes (``start_in_order``, ``shadow_time``, ``start_fitting``) and
    conservative's (``place`` of the queue or of the ``released`` jobs) on
    alternate passes, and the read-only blocks once a pass."""
    import math

    from ..scheduling.blocks import BlockScheduler

    class _BlocksWarmUp(BlockScheduler):
        name = "blocks-warm-up"
        passes = 0

        def schedule(self, now: float, blocks: Blocks) -> None:
            self.passes += 1
            for k in range(blocks.partitions):
                queue = blocks.queue(k)
                if len(queue):
                    job = int(queue[0])
                    blocks.fits_now(job)
                    blocks.earliest_start(job)
                    blocks.first_fit(job)
                    blocks.has_reservation(queue)
                    blocks.queue_arrays(now, k)
                    blocks.profile(k)
                if self.passes % 2:
                    head = blocks.start_in_order(queue)
                    if head < len(queue) and blocks.shadow_time(queue[head]) < math.inf:
                        blocks.start_fitting(queue[head + 1:])
                    blocks.clear_reservations()
                elif blocks.ended(k) or blocks.stale(k):
                    blocks.place(blocks.queue(k))
                else:
                    blocks.place(blocks.released(k))

    return _BlocksWarmUp()


def tiny_instance() -> Instance:
    """Two jobs of two iterations on one 4-node partition (IO-SCHED)."""
    from ..instance import Instance, Job, Platform

    return Instance("warm-up", Platform.homogeneous(1, nodes=4, bandwidth=1.0),
                    (Job.periodic("a", 2, 2.0, 3.0, 2, partition=0),
                     Job.periodic("b", 2, 1.0, 2.0, 2, partition=0)))


def _instances(folder: Path) -> dict[bool, Instance]:
    """The tiny trace as instances, without and with I/O."""
    from ..traces import convert_trace, read_swf

    path = folder / "tiny.swf"
    path.write_text(TINY_SWF)
    trace, _ = read_swf(path)
    return {io: convert_trace(trace, IO_PROFILE if io else "none", seed=0,
                              alpha=0.3 if io else None).instance
            for io in (False, True)}


def _run(warm_up: WarmUp, instance: Instance) -> WarmUpResult:
    """One warm-up; a replay's schedule is validated (a kernel that
    compiles to a wrong schedule is our bug, not a skip), and so is every
    schedule of the gap table (:func:`~.gap.gap_table` validates them)."""
    from ..errors import UserError
    from ..scheduling import replay
    from ..validation import assert_feasible
    from .gap import gap_table

    started = time.perf_counter()
    try:
        if warm_up.kind == "gap":
            gap_table([tiny_instance()], time_limit=1.0, objective=warm_up.method,
                      progress=False)
        elif warm_up.kind == "blocks":
            assert_feasible(instance, replay(instance, _blocks_warm_up()))
        elif warm_up.kind == "window":
            from .window import window_gap

            window_gap(instance, replay(instance, warm_up.method), *WINDOW,
                       time_limit=3.0)  # validates every schedule it reports
        else:
            assert_feasible(instance, replay(instance, warm_up.method,
                                             warm_up.execution))
    except UserError as error:  # the scheduler or model refuses this workload
        return WarmUpResult(warm_up, time.perf_counter() - started, str(error))
    return WarmUpResult(warm_up, time.perf_counter() - started)


def require_compiled() -> None:
    """Make this process run the kernels compiled: ``OPT_SCHED_KERNELS`` is
    set to ``compiled`` before any kernel module loads.

    Raises
    ------
    OptionError
        The kernels already run as Python here (``NUMBA_DISABLE_JIT``, or a
        kernel module imported as Python): there is nothing to compile.
    """
    from ..errors import OptionError
    from ..kernels import ENV, choose_kernels

    os.environ[ENV] = "compiled"
    if choose_kernels(0, 0) != "compiled":
        raise OptionError("the kernels run as Python in this process "
                          "(NUMBA_DISABLE_JIT is set): nothing to compile")


def compile_ahead(plan: list[WarmUp] | None = None, *,
                  progress: Callable[[WarmUpResult], None] | None = None
                  ) -> list[WarmUpResult]:
    """Run the warm-ups of ``plan`` (default :func:`warm_ups`) with the
    kernels compiled and return their results (``progress`` is called with
    each as it ends).

    Raises :class:`~opt_sched.errors.OptionError` as
    :func:`require_compiled` does.
    """
    require_compiled()
    plan = warm_ups() if plan is None else plan
    results = []
    with tempfile.TemporaryDirectory(prefix="opt-sched-kernels-") as folder:
        instances = _instances(Path(folder))
        for warm_up in plan:
            results.append(_run(warm_up, instances[warm_up.io]))
            if progress is not None:
                progress(results[-1])
    return results
