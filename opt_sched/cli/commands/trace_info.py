"""``opt-sched trace-info``: the facts a user checks first about a trace.

Jobs, users, span (with dates when the log's clock is absolute), machine
size, offered load ``sum_i T_i Q_i / (m S)``, the size and run-time
distributions (quantiles and bins), the share of over- and under-estimated
requests and the accuracy ``T_i / e_i`` (:mod:`opt_sched.traces.facts`),
then the reader's summary. Any format ``replay`` reads, with the same
reading options; ``--json`` prints everything, ``--plot FILE.png`` draws
the size and run-time histograms and the estimate accuracy
(:mod:`opt_sched.plot.trace_facts`).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..arguments import output_path
from ..exit_codes import EXIT_OK
from ..output import print_json
from .convert import add_log_arguments, read_log

NAME = "trace-info"
HELP = ("facts of a trace or accounting log: jobs, users, span, machine size, "
        "offered load, size and run-time distributions, estimate accuracy")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_log_arguments(parser, "trace", "the trace: SWF (.swf, .swf.gz), Batsim "
                                       "workload (.json), Slurm sacct or PBS "
                                       "accounting")
    parser.add_argument("--plot", type=output_path, default=None, metavar="FILE",
                        help="draw the size and run-time histograms and the "
                             "estimate accuracy (.png, .pdf, .svg)")


def _check_picture(path: Path) -> None:
    """``--plot`` must name a picture format matplotlib writes
    (:func:`.plot.picture_format`, whose message names ``--out``)."""
    from ...errors import OptionError
    from .plot import picture_format

    try:
        picture_format(path)
    except OptionError as err:
        raise OptionError(str(err).replace("--out=", "--plot=", 1)) from None


def run(args: argparse.Namespace) -> int:
    from ...traces.facts import trace_facts

    if args.plot is not None:
        _check_picture(args.plot)  # a bad suffix fails before the reading
    trace, summary = read_log(args.trace, args.platform, args)
    facts = trace_facts(trace, summary)
    if args.plot is not None:
        from ...plot.trace_facts import plot_trace_facts

        plot_trace_facts(trace, facts, args.plot)
    if args.json:
        print_json({**facts.to_dict(),
                    "plot": None if args.plot is None else str(args.plot)})
        return EXIT_OK
    print(facts.describe())
    print(summary.format())
    if args.plot is not None:
        print(f"wrote {args.plot}")
    return EXIT_OK
