"""``opt-sched kernels``: numba's cache of the compiled kernels, and
compiling them once, ahead of the first real run.

Without ``--compile`` it says where the cache is, how many kernels it
holds and whether the two replay loops (compute-only and with I/O) are
compiled. ``--compile`` replays a tiny trace under every registered
scheduler and execution model, without and with I/O, runs the building
blocks of Python schedulers on it, and runs the gap table of a tiny
instance (:mod:`opt_sched.experiments.compile_ahead`), so
that the first real ``replay`` or ``gap`` loads the kernels instead of
compiling them: run it once after ``pip install``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from ..exit_codes import EXIT_OK
from ..output import print_json

NAME = "kernels"
HELP = ("numba's compiled kernels: where they are cached, and --compile to "
        "compile them once after the install")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--compile", action="store_true",
                        help="compile the kernels now (a tiny trace under every "
                             "scheduler and execution model, a tiny gap table; "
                             "once, after the install)")


def _status() -> dict[str, object]:
    from ...kernels import KERNELS, cache_folder, cached_kernels, is_cached

    return {"cache": str(cache_folder()), "cached_kernels": cached_kernels(),
            "replay_loops": {"compute-only": is_cached(*KERNELS[False]),
                             "with I/O": is_cached(*KERNELS[True])}}


def _print_status(status: dict[str, object]) -> None:
    loops = status["replay_loops"]
    assert isinstance(loops, dict)
    where = (status["cache"] if os.environ.get("NUMBA_CACHE_DIR")
             else f"the __pycache__ folders under {status['cache']}")
    print(f"numba cache: {where} ({status['cached_kernels']} compiled kernels)")
    for name, cached in loops.items():
        print(f"  replay loop, {name}: {'compiled' if cached else 'not compiled'}")


def run(args: argparse.Namespace) -> int:
    results: list = []
    seconds = 0.0
    if args.compile:
        from ...experiments.compile_ahead import (
            WarmUpResult,
            compile_ahead,
            require_compiled,
        )

        def report(result: WarmUpResult) -> None:
            if args.json:
                return
            note = f"skipped: {result.skipped}" if result.skipped else "ok"
            print(f"  {result.warm_up.label:<44} {result.seconds:6.1f} s  {note}",
                  file=sys.stderr, flush=True)

        require_compiled()
        if not args.json:
            print("compiling kernels: a tiny trace under every scheduler and "
                  "execution model, a tiny gap table", file=sys.stderr, flush=True)
        started = time.perf_counter()
        results = compile_ahead(progress=report)
        seconds = time.perf_counter() - started
    status = _status()
    if args.json:
        print_json({**status,
                    "compiled_seconds": round(seconds, 3) if args.compile else None,
                    "warm_ups": [result.as_dict() for result in results]})
        return EXIT_OK
    if args.compile:
        skipped = sum(1 for result in results if result.skipped)
        print(f"compiled in {seconds:.1f} s "
              f"({len(results)} warm-ups, {skipped} skipped)")
    _print_status(status)
    return EXIT_OK
