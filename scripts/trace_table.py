"""The table of ``instances/traces.md`` §9: the facts of the six bundled SWF traces.

Reads KTH-SP2 (``../shared/data/swf/``) and the five traces of
``../shared/data/more-traces/swf/`` with the default reading (as
``opt-sched trace-info`` does, :mod:`opt_sched.traces.facts`) and prints one
Markdown table; a file the reader refuses (Alea's 21-field format) gets a
row with the reader's one-line message. Run::

    python scripts/trace_table.py [--data ../shared/data]
"""

from __future__ import annotations

import argparse
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

TRACES: tuple[str, ...] = (
    "swf/KTH-SP2.swf.gz",
    "more-traces/swf/HPC2N-2002-prefix3170-alea.swf.gz",
    "more-traces/swf/NASA-iPSC-1993-3.1-cln.swf.gz",
    "more-traces/swf/Theta-2022-cqsimplus.swf.gz",
    "more-traces/swf/lublin_256-DIRLAB.swf.gz",
    "more-traces/swf/wagap-2013-alea-21fields.swf.gz",
)

COLUMNS = ("trace", "job lines", "kept", "users", "machines", "span (days)",
           "first .. last submit (UTC)", "offered load", "size median / p90 / max",
           "run time median / p90 (s)", "requests over / exact / under",
           "requests unknown")


def _share(count: int, known: int) -> str:
    return f"{count / known:.1%}" if known else "–"


def _number(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.1f}"


def row(path: Path) -> list[str]:
    """One table row: the facts, or the reader's refusal."""
    from opt_sched.errors import UserError
    from opt_sched.traces import read_trace
    from opt_sched.traces.facts import trace_facts

    name = f"`{path.name}`"
    try:
        trace, summary = read_trace(path)
    except UserError as err:
        return [name, "–", f"refused (exit 2): {str(err).splitlines()[0]}",
                *["–"] * (len(COLUMNS) - 3)]
    f = trace_facts(trace, summary)
    e = f.estimates
    size, run = f.sizes.quantiles, f.run_times.quantiles
    dates = f"{f.start_date[:10]} .. {f.end_date[:10]}" if f.start_date else \
        "relative times"
    machines = str(f.machines) + ("" if f.machine_size is not None else " (widest)")
    return [name, f"{summary.lines:,}", f"{f.jobs:,}", str(f.users) if f.users else "–",
            machines, f"{(f.span or 0) / 86400:.1f}", dates,
            "–" if f.offered_load is None else f"{f.offered_load:.3f}",
            f"{_number(size['median'])} / {_number(size['p90'])} / "
            f"{_number(size['max'])}",
            f"{_number(run['median'])} / {_number(run['p90'])}",
            f"{_share(e.over, e.known)} / {_share(e.exact, e.known)} / "
            f"{_share(e.under, e.known)}",
            f"{e.unknown:,}"]


def table(data: Path) -> str:
    """The Markdown table of :data:`TRACES` under ``data``."""
    lines = ["| " + " | ".join(COLUMNS) + " |",
             "|" + "---|" * len(COLUMNS)]
    for relative in TRACES:
        path = data / relative
        cells = row(path) if path.is_file() else [f"`{path.name}`", "absent",
                                                  *["–"] * (len(COLUMNS) - 2)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data",
                        help="the shared data folder (default ../shared/data)")
    args = parser.parse_args()
    print(table(args.data))


if __name__ == "__main__":
    main()
