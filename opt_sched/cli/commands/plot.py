"""``opt-sched plot``: a picture of a schedule file (Gantt chart or usage
curves), written atomically as PNG, PDF or SVG (by the file's suffix; any
other format matplotlib writes without extra software is accepted too, and
an unknown one is refused before anything is drawn)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ...errors import OptionError
from ..arguments import output_path, positive_int
from ..exit_codes import EXIT_OK
from ..output import print_json
from .replay import _window

NAME = "plot"
HELP = "draw a schedule: Gantt chart or utilisation/queue curves"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("instance", help="the instance file")
    parser.add_argument("schedule", help="its schedule (JSON)")
    parser.add_argument("--kind", default="gantt", choices=["gantt", "usage"])
    parser.add_argument("--window", type=_window, default=None,
                        help="START:END of the time axis")
    parser.add_argument("--partition", type=positive_int, default=None,
                        help="partition to draw, numbered 1..R (Gantt; default 1, "
                             "the first)")
    parser.add_argument("--out", type=output_path, required=True,
                        help="picture file (.png, .pdf, .svg)")


NEEDS_SOFTWARE = frozenset({"pgf"})
"""Formats matplotlib writes only with more software (LaTeX)."""


def picture_format(path: Path) -> str:
    """The format of ``path`` by its suffix (none: ``png``).

    Raises
    ------
    OptionError
        A suffix matplotlib cannot write.
    """
    from matplotlib.backend_bases import FigureCanvasBase

    suffix = path.suffix.lower().lstrip(".") or "png"
    formats = sorted(set(FigureCanvasBase.get_supported_filetypes())
                     - NEEDS_SOFTWARE)
    if suffix not in formats:
        raise OptionError(f"--out={str(path)!r}: {suffix!r} is not a picture format "
                          f"(give one of .{', .'.join(formats)})")
    return suffix


def partition_index(args: argparse.Namespace, instance: Any) -> int:
    """The 0-based partition of ``--partition`` (1..R).

    Raises
    ------
    OptionError
        ``--partition`` above the instance's partitions, or with ``--kind
        usage`` (which draws every partition).
    """
    if args.partition is None:
        return 0
    if args.kind != "gantt":
        raise OptionError(f"--partition does not apply to --kind {args.kind} (it "
                          f"applies to: --kind gantt)")
    count = instance.platform.num_partitions
    if args.partition > count:
        raise OptionError(f"--partition={args.partition}: instance "
                          f"{instance.name!r} has {count} partition"
                          f"{'s' if count > 1 else ''} (give 1..{count})")
    return args.partition - 1


def run(args: argparse.Namespace) -> int:
    from ...json_files import read_instance, read_schedule
    from ...plot import plot_gantt, plot_usage
    from ...plot.pyplot import save_figure

    suffix = picture_format(args.out)
    instance = read_instance(args.instance)
    schedule = read_schedule(args.schedule)
    schedule.check_shape(instance)
    partition = partition_index(args, instance)
    if args.kind == "gantt":
        figure = plot_gantt(instance, schedule, window=args.window,
                            partition=partition).figure
    else:
        figure = plot_usage(instance, schedule, window=args.window)
    save_figure(figure, args.out, dpi=130, format=suffix)
    if args.json:
        print_json({"instance": instance.name, "kind": args.kind,
                    "out": str(args.out)})
    else:
        print(f"{args.kind} of {instance.name} written to {args.out}")
    return EXIT_OK
