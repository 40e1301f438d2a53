"""``opt-sched sweep SPEC.toml --out DIR [...]``: the command of a campaign.

This module has what a command of the CLI registry has (``NAME``,
``HELP``, :func:`add_arguments`, :func:`run`); ``python -m
opt_sched.campaign`` runs it on its own (:func:`main`).

Exit status: 0 every task of the spec succeeded; 1 the sweep finished but
some tasks failed (``failures.csv`` and the summary list them); 2 bad
input (a bad spec, an option, an output folder that already holds results
without ``--resume``, another campaign's folder, a folder another sweep is
running into, a damaged results store); 3 an internal error; 130
interrupted by Ctrl-C or ``SIGTERM`` (the finished tasks are kept: rerun
with ``--resume``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from typing import Any

from ..errors import InternalError, OptionError, UserError
from .arguments import positive_int

__all__ = ["HELP", "NAME", "add_arguments", "main", "run"]

NAME = "sweep"
HELP = "run a campaign spec (TOML): resumable, local or on a Dask/Slurm cluster"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``opt-sched sweep``."""
    parser.add_argument("spec", metavar="SPEC.toml", help="the campaign spec "
                        "(format: instances/sweep.md)")
    parser.add_argument("--out", required=True, metavar="DIR",
                        help="output folder: results.sqlite, tables, figures")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--dask", metavar="ADDRESS|local",
                       help="run on a Dask scheduler (tcp://host:8786) or a local "
                            "Dask cluster ('local'); needs opt_sched[dask]")
    where.add_argument("--slurm", metavar="CLUSTER.toml",
                       help="start a dask-jobqueue SLURMCluster from this file and "
                            "run on it; needs opt_sched[dask]")
    parser.add_argument("--workers", type=positive_int, default=None, metavar="N",
                        help="local worker processes (default: every core; 1 = in "
                             "this process); with --dask local, its workers")
    parser.add_argument("--resume", action="store_true",
                        help="continue a folder that already holds results: skip "
                             "every finished task")
    parser.add_argument("--retry-failed", action="store_true",
                        help="with --resume, run the failed tasks again")
    parser.add_argument("--chunk-size", type=positive_int, default=16, metavar="K",
                        help="at most K tasks of one instance per chunk (default 16)")
    # the CLI registry adds --json to every command itself
    with contextlib.suppress(argparse.ArgumentError):
        parser.add_argument("--json", action="store_true",
                            help="print the summary as JSON on stdout")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    from .arguments import add_execution_options

    add_execution_options(parser, default=None)


def _jsonable(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if hasattr(value, "item"):
        return _jsonable(value.item())
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


def make_executor(args: argparse.Namespace) -> Any:
    """The executor the options name (local processes by default)."""
    if args.slurm:
        from ..campaign.executors.slurm import slurm_executor

        return slurm_executor(args.slurm)
    if args.dask:
        from ..campaign.executors.dask_executor import DaskExecutor

        return DaskExecutor(args.dask, workers=args.workers)
    from ..campaign.executors.local import LocalExecutor

    return LocalExecutor(args.workers)


def _interrupt(signum: int, frame: Any) -> None:
    """A ``SIGTERM`` handler: stop the sweep as Ctrl-C does."""
    raise KeyboardInterrupt


@contextlib.contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """While inside, ``SIGTERM`` (``kill``, a batch system's stop) raises
    :class:`KeyboardInterrupt`: the sweep stops its workers, keeps its
    finished tasks and exits 130 with one line, as on Ctrl-C. Only the main
    thread can install a handler; elsewhere nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def run(args: argparse.Namespace) -> int:
    """Run the sweep the arguments describe; the exit status."""
    with terminate_as_interrupt():
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    import os

    from ..campaign.runner import run_sweep
    from ..campaign.spec import load_spec

    if args.retry_failed and not args.resume:
        raise OptionError("--retry-failed needs --resume")
    from .arguments import execution_spec

    execution = execution_spec(args)
    spec = load_spec(args.spec, execution=execution,
                     methods=getattr(args, "methods", None))
    executor = make_executor(args)
    finished = False
    try:
        with open(os.devnull, "w") as devnull:
            result = run_sweep(spec, args.out, executor=executor, resume=args.resume,
                               retry_failed=args.retry_failed,
                               chunk_size=args.chunk_size,
                               progress=False if args.quiet else None,
                               progress_stream=devnull if args.quiet else None)
        finished = True
    finally:
        # interrupted or failed: do not wait for the chunks in flight
        executor.close(cancel=not finished)
    if args.json:
        print(json.dumps(_jsonable(result.to_dict()), indent=1))
    else:
        print(f"{result.spec}: {result.total} tasks, {result.ok} ok, "
              f"{result.failed} failed, {result.pending} pending "
              f"({result.skipped} finished before, "
              f"{result.ran} run now on {result.executor}) in {result.elapsed:.1f} s")
        for rec in result.failures.head(20).to_dict(orient="records"):
            print(f"  failed: {rec['group']} {rec['instance']} {rec['method']} "
                  f"seed={rec['method_seed']}: {rec['error']}")
        if len(result.failures) > 20:
            print(f"  ... and {len(result.failures) - 20} more (failures.csv)")
        print(f"{len(result.files)} files in {result.out}/")
    return 0 if result.failed == 0 and result.pending == 0 else 1


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m opt_sched.campaign``: parse, run, map errors to exit codes."""
    parser = argparse.ArgumentParser(prog="python -m opt_sched.campaign",
                                     description=HELP)
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        return run(args)
    except InternalError as err:
        print(f"opt-sched sweep: internal error (a bug, please report): {err}",
              file=sys.stderr)
        return 3
    except UserError as err:
        print(f"opt-sched sweep: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("opt-sched sweep: interrupted (finished tasks are saved; rerun with "
              "--resume)", file=sys.stderr)
        return 130
