"""Plot the bracket of every window of a ``scripts/window_gaps.py --json``
run: for each objective, the policy is at least X % (best schedule found)
and at most Y % (proven lower bound) above the optimum, per window.

    python scripts/plot_window_brackets.py REPORTS.json --out docs/img/F.png

One panel per objective, windows in trace order on the x axis, a vertical
bar from X to Y per window (log scale: the distances span 0.1 % to
10,000 %; a zero is drawn at the axis' floor), and the median of X and Y.
Prints the median and 90th percentile of X, Y and the width ``Y - X`` in
points, per scheduler and objective (the same summary as
``window_gaps.py``).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

OBJECTIVES = ("makespan", "max-flow-stretch", "mean-flow-time")
FLOOR = 1e-3
"""The axis' floor (0.1 %): a distance of 0 is drawn there."""


def _quantile(values: list[float], q: float) -> float:
    import numpy as np

    return float(np.quantile(values, q)) if values else math.nan


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()

    from opt_sched.plot.pyplot import pyplot, save_figure

    reports = json.loads(args.reports.read_text())
    schedulers = list(dict.fromkeys(r.get("scheduler", "?") for r in reports))
    plt = pyplot()
    fig, axes = plt.subplots(len(OBJECTIVES), 1, figsize=(10, 9), sharex=True)
    print("| scheduler | objective | windows | X median | X p90 | Y median | Y p90 | "
          "width median | width p90 |")
    print("|---|---|---|---|---|---|---|---|---|")
    for scheduler in schedulers:
        mine = [r for r in reports if r.get("scheduler", "?") == scheduler]
        starts = [r["window"]["start"] for r in mine]
        for ax, name in zip(axes, OBJECTIVES):
            low = [r["objectives"][name]["at_least"] for r in mine]
            high = [r["objectives"][name]["at_most"] for r in mine]
            ok = [i for i in range(len(mine)) if not (math.isnan(low[i])
                                                      or math.isnan(high[i]))]
            xs = [starts[i] for i in ok]
            lo = [max(FLOOR, low[i]) for i in ok]
            hi = [max(FLOOR, high[i]) for i in ok]
            ax.vlines(xs, lo, hi, color="tab:blue", lw=2, alpha=0.6,
                      label=f"{scheduler}: at least .. at most")
            ax.scatter(xs, lo, s=8, color="tab:green", label="at least (best found)")
            ax.scatter(xs, hi, s=8, color="tab:red", label="at most (lower bound)")
            ax.set_yscale("log")
            ax.set_ylabel(f"{name}\nabove the optimum\n(1 = 100 %)")
            ax.axhline(_quantile([low[i] for i in ok], 0.5) or FLOOR, color="tab:green",
                       ls=":", lw=1)
            ax.axhline(_quantile([high[i] for i in ok], 0.5) or FLOOR, color="tab:red",
                       ls=":", lw=1)
            width = [100 * max(0.0, high[i] - low[i]) for i in ok]
            print(f"| {scheduler} | {name} | {len(ok)} | "
                  f"{100 * _quantile([low[i] for i in ok], 0.5):.1f} % | "
                  f"{100 * _quantile([low[i] for i in ok], 0.9):.1f} % | "
                  f"{100 * _quantile([high[i] for i in ok], 0.5):.1f} % | "
                  f"{100 * _quantile([high[i] for i in ok], 0.9):.1f} % | "
                  f"{_quantile(width, 0.5):.1f} | {_quantile(width, 0.9):.1f} |")
    axes[0].legend(loc="upper right", fontsize=8)
    axes[-1].set_xlabel("window start (job index in the trace)")
    fig.suptitle("Window brackets: how far the policy is from the best clairvoyant "
                 "schedule (dotted: medians)")
    save_figure(fig, args.out)
    print(f"written {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
