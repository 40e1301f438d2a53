"""``opt-sched convert``: a trace or accounting log as SWF 2.2 or a Batsim workload.

The log is read as ``replay`` reads it (:func:`opt_sched.traces.read_trace`:
SWF, Batsim JSON, Slurm ``sacct``, PBS/Torque accounting, by content), with
the same reading options (``--job-size``, ``--cancelled``, ``--time-range``,
...); the jobs it keeps are written:

- ``--to swf``: :func:`~opt_sched.traces.swf_writer.write_trace_swf`, a
  complete SWF 2.2 header (the source's own keys where known) and every
  kept job's SWF row as read; ``Note`` lines name the source, the counts
  and the reading;
- ``--to batsim``: :func:`~opt_sched.traces.batsim_writer.write_batsim`,
  jobs with ``delay`` profiles and ``nb_res``.

The reader's summary (kept, skipped per reason, adjusted, the reading) is
printed, then what was written; ``--json`` prints both as one object.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ...errors import OptionError
from ..arguments import output_path
from ..exit_codes import EXIT_OK
from ..output import print_json

NAME = "convert"
HELP = ("convert a trace or accounting log (SWF, Batsim, sacct, PBS) to SWF 2.2 "
        "or a Batsim JSON workload")

TARGETS: dict[str, str] = {"swf": ".swf", "batsim": ".json"}
"""``--to`` -> the suffix of the default output file."""


def add_log_arguments(parser: argparse.ArgumentParser, name: str, text: str) -> None:
    """The log, ``--platform`` and the reading options (shared with
    ``trace-info``)."""
    from ..trace_options import add_trace_options

    parser.add_argument(name, help=text)
    parser.add_argument("--platform", default=None,
                        help="Batsim platform XML for a Batsim workload (default: "
                             "platform.xml beside the workload, if any)")
    add_trace_options(parser)


def read_log(path_text: str, platform: str | None, args: argparse.Namespace
             ) -> tuple[Any, Any]:
    """``(Trace, SkipSummary)`` of the log, read with the command's options.

    A Batsim workload without ``--platform`` takes the ``platform.xml``
    beside it, as ``replay`` does.
    """
    from ...traces import read_trace
    from ..trace_options import trace_format, trace_reading

    path = Path(path_text)
    if platform is None and path.name.lower().endswith((".json", ".json.gz")):
        beside = path.parent / "platform.xml"
        platform = str(beside) if beside.is_file() else None
    return read_trace(path, platform, trace_reading(args), trace_format(args))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_log_arguments(parser, "log", "the log: SWF (.swf, .swf.gz), Batsim workload "
                                     "(.json), Slurm sacct or PBS accounting")
    parser.add_argument("--to", required=True, choices=sorted(TARGETS),
                        help="swf: SWF 2.2 with a complete header; batsim: a Batsim "
                             "JSON workload (delay profiles)")
    parser.add_argument("--out", type=output_path, default=None,
                        help="the file to write (default: the log's name with .swf "
                             "or .json, in the current folder)")


def _target(args: argparse.Namespace, name: str) -> Path:
    """``--out``, else ``<name>.swf|.json`` here; never the log itself."""
    target = Path(args.out) if args.out is not None else Path(name + TARGETS[args.to])
    source = Path(args.log)
    if target.exists() and source.exists() and target.samefile(source):
        raise OptionError(f"--out={str(target)!r} is the log itself (give another "
                          f"--out)")
    return target


def conversion_notes(trace: Any, summary: Any) -> list[str]:
    """The ``Note`` lines of a converted file: the source, the counts and
    each reading rule as applied."""
    from ... import __version__

    notes = [f"converted by opt_sched {__version__} from {summary.source} "
             f"({trace.format}): {summary.kept} of {summary.lines} records kept, "
             f"{summary.total_skipped} skipped"]
    notes.extend(f"{rule.kind} {rule.name}: {rule.rule}" for rule in summary.rules)
    return notes


def run(args: argparse.Namespace) -> int:
    from ...traces.batsim_writer import write_batsim
    from ...traces.swf_writer import write_trace_swf

    trace, summary = read_log(args.log, args.platform, args)
    target = _target(args, trace.name)
    notes = conversion_notes(trace, summary)
    if args.to == "swf":
        write_trace_swf(target, trace, notes=notes)
        kind = "SWF 2.2"
    else:
        write_batsim(target, trace, description="; ".join(notes))
        kind = "Batsim workload"
    machines = trace.machine_size or trace.widest
    if args.json:
        print_json({"log": str(args.log), "format": trace.format, "to": args.to,
                    "out": str(target), "jobs": len(trace), "machines": machines,
                    "summary": summary.to_dict()})
        return EXIT_OK
    print(summary.format())
    print(f"wrote {target}: {kind}, {len(trace)} jobs, {machines} machines")
    return EXIT_OK
