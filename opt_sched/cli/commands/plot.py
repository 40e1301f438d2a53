"""``opt-sched plot``: a picture of a schedule file (Gantt chart or usage
curves), written atomically as PNG, PDF or SVG (by the file's suffix)."""

from __future__ import annotations

import argparse

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
                        help="partition to draw (Gantt; default 0)")
    parser.add_argument("--out", type=output_path, required=True,
                        help="picture file (.png, .pdf, .svg)")


def run(args: argparse.Namespace) -> int:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ...files import atomic_path
    from ...io import read_instance, read_schedule
    from ...plot import plot_gantt, plot_usage

    instance = read_instance(args.instance)
    schedule = read_schedule(args.schedule)
    schedule.check_shape(instance)
    if args.kind == "gantt":
        partition = 0 if args.partition is None else args.partition - 1
        figure = plot_gantt(instance, schedule, window=args.window,
                            partition=partition).figure
    else:
        figure = plot_usage(instance, schedule, window=args.window)
    suffix = args.out.suffix.lower().lstrip(".") or "png"
    with atomic_path(args.out) as temporary:
        figure.savefig(temporary, dpi=130, format=suffix)
    plt.close(figure)
    if args.json:
        print_json({"instance": instance.name, "kind": args.kind,
                    "out": str(args.out)})
    else:
        print(f"{args.kind} of {instance.name} written to {args.out}")
    return EXIT_OK
