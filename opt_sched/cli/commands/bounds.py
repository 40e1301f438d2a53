"""``opt-sched bounds``: every lower bound on makespan and max stretch."""

from __future__ import annotations

import argparse

from ..exit_codes import EXIT_OK
from ..output import print_json

NAME = "bounds"
HELP = "lower bounds on makespan and max stretch"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("instance")


def run(args: argparse.Namespace) -> int:
    from ...bounds import makespan_bounds, max_stretch_bounds
    from ...io import read_instance

    instance = read_instance(args.instance)
    ms = makespan_bounds(instance)
    st = max_stretch_bounds(instance)
    if args.json:
        print_json({"instance": instance.name, "makespan": ms, "max_stretch": st,
                    "best_makespan": max(ms.values()),
                    "best_max_stretch": max(st.values())})
        return EXIT_OK
    print(f"{instance.name}: lower bounds")
    for title, bounds in (("makespan", ms), ("max stretch", st)):
        best = max(bounds, key=bounds.get)
        print(f"  {title}:")
        for name, value in bounds.items():
            mark = "  <- best" if name == best else ""
            print(f"    {name:<22} {value:14.6g}{mark}")
    return EXIT_OK
