"""Plot the bracket of every window of a ``scripts/window_gaps.py --json``
run: for each objective, the policy is at least X % (best schedule found)
and at most Y % (proven lower bound) above the optimum, per window.

    python scripts/plot_window_brackets.py REPORTS.json --out docs/img/F.png

One panel per objective, windows in trace order on the x axis, a bar from X
to Y per window (log scale: the distances span 0.1 % to 10,000 %; a zero is
drawn at the axis' floor), and the medians of X and Y
(:func:`opt_sched.experiments.window_distribution.plot_brackets`). Prints
the median and 90th percentile of X, Y and the width ``Y - X`` in points,
per scheduler and objective. A sweep of the ``window-gap`` experiment
writes the same with its report ``window-gap``
(``campaigns/window-gap-kth-sp2.toml``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()

    from opt_sched.experiments.window_distribution import (
        brackets_from_reports,
        distribution,
        distribution_markdown,
        plot_brackets,
    )

    brackets = brackets_from_reports(json.loads(args.reports.read_text()))
    print(distribution_markdown(distribution(brackets)))
    print(f"written {plot_brackets(brackets, args.out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
