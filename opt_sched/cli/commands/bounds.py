"""``opt-sched bounds``: the makespan and max-stretch lower bounds of an
instance that hold under an execution model, and every bound of the package
with the models it holds under (:mod:`opt_sched.bound_models`)."""

from __future__ import annotations

import argparse

from ..arguments import add_execution_options, execution_spec
from ..exit_codes import EXIT_OK
from ..output import print_json

NAME = "bounds"
HELP = "lower bounds on makespan and max stretch, by execution model"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("instance")
    add_execution_options(parser)


def run(args: argparse.Namespace) -> int:
    from ...bound_models import (
        CATALOGUE,
        holds,
        makespan_bounds_under,
        max_stretch_bounds_under,
        no_bound_note,
    )
    from ...json_files import read_instance

    spec = execution_spec(args)
    instance = read_instance(args.instance)
    ms = makespan_bounds_under(instance, spec)
    st = max_stretch_bounds_under(instance, spec)
    catalogue = [{"bound": info.name, "objectives": list(info.objectives),
                  "holds_under": sorted(info.models),
                  "holds": holds({info.name: info.models}, info.name, spec),
                  "assumes": info.assumes} for info in CATALOGUE]
    if args.json:
        print_json({"instance": instance.name, "execution": spec.label,
                    "makespan": ms, "max_stretch": st,
                    "best_makespan": max(ms.values()) if ms else None,
                    "best_max_stretch": max(st.values()) if st else None,
                    "bound_note": None if ms and st else no_bound_note(spec),
                    "catalogue": catalogue})
        return EXIT_OK
    print(f"{instance.name}: lower bounds under execution {spec.label}")
    for title, bounds in (("makespan", ms), ("max stretch", st)):
        print(f"  {title}:")
        if not bounds:
            print(f"    no bound ({no_bound_note(spec)})")
            continue
        best = max(bounds, key=bounds.__getitem__)
        for name, value in bounds.items():
            mark = "  <- best" if name == best else ""
            print(f"    {name:<22} {value:14.6g}{mark}")
    print("every bound, the execution models it holds under (models/bounds.md):")
    for row in catalogue:
        mark = "" if row["holds"] else f"  (not under {spec.model})"
        print(f"  {row['bound']:<22} {', '.join(row['objectives']):<34} "
              f"{', '.join(row['holds_under'])}{mark}")
    return EXIT_OK
