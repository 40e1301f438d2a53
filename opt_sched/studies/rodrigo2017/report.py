"""The seed 002 (Rodrigo Álvarez 2017, Paper V) report: WoAS against
chained and pilot jobs, from the rows of ``workflow-share`` experiment
tasks (``campaigns/rodrigo2017.toml``).

Per spec group, workflow and share (Paper V §4.3.2):

- **turnaround** (``rodrigo2017-turnaround.csv``): for each seed ``i``,
  ``m_i`` = the fewest workflows measured by any of the three modes; the
  first ``m_i`` turnarounds of every mode (submission order) are pooled
  over the seeds and their median taken per mode. Speed-ups: ``chained /
  woas`` (``speedup_woas``, Fig. 8), ``chained / pilot`` and ``pilot /
  woas``. Median wait, runtime and intermediate wait (mean over seeds of
  each point's median).
- **utilisation** (``rodrigo2017-utilisation.csv``): utilisation and
  actual utilisation per mode (mean over seeds); the gain of WoAS over
  pilot in two readings, beside Table 3's: relative,
  ``100 (actual_woas / actual_pilot - 1)`` %, and in percentage points,
  ``100 (actual_woas - actual_pilot)``. The thesis does not define its
  "gain"; its values stay below 100 where the relative gain of a
  95 %-waste pilot job would be ~1,000 %, which suggests points.
- **slowdown** (``rodrigo2017-slowdown.csv``): the median slowdown of the
  small regular jobs (``[0, 48)`` core-hours) per mode (mean over seeds),
  and its ratio to the no-workflow runs (share 0, any group) of the same
  machine size when the spec has them (Fig. 10).
- ``rodrigo2017-speedup.png`` (speed-up against share, one line per
  workflow) and ``rodrigo2017-summary.md`` (the tables side by side with
  the thesis's numbers, :data:`THESIS_SPEEDUP`, :data:`THESIS_GAIN`).

Failed or pending tasks are left out; a (workflow, share) without all three
modes for a seed skips that seed.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from opt_sched.files import atomic_path, atomic_write_text
from opt_sched.files import atomic_write_csv as write_csv
from opt_sched.plot.pyplot import pyplot, save_figure

__all__ = ["THESIS_GAIN", "THESIS_SPEEDUP", "report_tables", "write_report"]

MODES = ("chained", "pilot", "woas")
SHARES = (0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 1.0)

THESIS_SPEEDUP = {
    "cybershake": "≈2×",
    "sipht": "≈3× (< 1× above 25 %)",
    "montage": "≈1.9×",
    "widelong": "≈1.4×",
    "floodplain": "1.2–1.3×",
    "longwide": "< 1× at 75–100 %",
}
"""WoAS turnaround speed-up over chained jobs, Paper V §5.2.1 (Fig. 8; the
figure's values are not in the text; the maximum is 3.75×)."""

THESIS_GAIN = {
    "floodplain": (1.80, 5.22, 14.46, 29.29, 44.53, 51.64, 64.47),
    "longwide": (2.30, 8.33, 18.93, 30.84, 40.25, 31.99, 27.18),
    "widelong": (0.33, 10.64, 19.74, 32.35, 48.22, 57.19, 66.16),
    "cybershake": (1.66, 7.72, 13.92, 25.58, 36.72, 44.45, 52.83),
    "sipht": (2.55, 11.41, 18.16, 34.85, 42.77, 37.27, 35.83),
    "montage": (12.36, 44.90, 60.30, 72.34, 80.13, 82.14, 85.26),
}
"""Actual-utilisation gain of WoAS over pilot jobs (%), Paper V Table 3, at
:data:`SHARES`."""


def _points(spec: Any, rows: Mapping[str, Mapping[str, Any]]
            ) -> tuple[dict[tuple[str, str, float], dict[int, dict[str, dict]]],
                       dict[str, Any]]:
    """``(group, workflow, share) -> seed -> mode -> metrics`` of the
    successful ``workflow-share`` tasks, and each group's machine size
    (``nodes``)."""
    out: dict[tuple[str, str, float], dict[int, dict[str, dict]]] = defaultdict(
        lambda: defaultdict(dict))
    nodes: dict[str, Any] = {}
    for task in spec.tasks:
        if task.source.experiment != "workflow-share":
            continue
        row = rows.get(task.key)
        if row is None or row["status"] != "ok":
            continue
        params = dict(task.source.params)
        key = (task.group, str(params["workflow"]), float(params["share"]))
        out[key][task.seed][str(params["mode"])] = row["metrics"]
        nodes[task.group] = params.get("nodes")
    return out, nodes


def _mean(values: list[float]) -> float:
    values = [v for v in values if v is not None and not math.isnan(v)]
    return float(np.mean(values)) if values else math.nan


def _median(values: list[float]) -> float:
    return float(np.median(values)) if values else math.nan


def report_tables(spec: Any, rows: Mapping[str, Mapping[str, Any]]
                  ) -> dict[str, pd.DataFrame]:
    """``turnaround``, ``utilisation`` and ``slowdown`` (module docstring)."""
    points, nodes = _points(spec, rows)
    baseline: dict[Any, list[float]] = defaultdict(list)
    for (group, _, share), seeds in points.items():
        if share == 0:  # the no-workflow runs of this machine size
            for by_mode in seeds.values():
                for m in by_mode.values():
                    baseline[nodes[group]].append(m.get("slowdown_small", math.nan))
    turn, util, slow = [], [], []
    for (group, workflow, share), seeds in sorted(points.items()):
        if share == 0:
            continue
        complete = {s: v for s, v in seeds.items() if all(m in v for m in MODES)}
        if not complete:
            continue
        pooled: dict[str, list[float]] = {m: [] for m in MODES}
        for by_mode in complete.values():
            first = min(len(by_mode[m].get("turnarounds_h", [])) for m in MODES)
            for m in MODES:
                pooled[m] += by_mode[m].get("turnarounds_h", [])[:first]
        med = {m: _median(pooled[m]) for m in MODES}

        def each(metric: str, mode: str, seeds_=complete) -> float:
            return _mean([v[mode].get(metric, math.nan) for v in seeds_.values()])

        rec: dict[str, Any] = {"group": group, "workflow": workflow, "share": share,
                               "seeds": len(complete), "workflows": len(pooled["woas"])}
        for m in MODES:
            rec[f"turnaround_h_{m}"] = med[m]
        rec["speedup_woas"] = med["chained"] / med["woas"] if med["woas"] else math.nan
        rec["speedup_pilot"] = (med["chained"] / med["pilot"] if med["pilot"]
                                else math.nan)
        rec["woas_vs_pilot"] = med["pilot"] / med["woas"] if med["woas"] else math.nan
        for metric in ("wait_h", "runtime_h", "intermediate_wait_h"):
            for m in MODES:
                rec[f"{metric}_{m}"] = each(metric, m)
        turn.append(rec)
        urec: dict[str, Any] = {"group": group, "workflow": workflow, "share": share}
        for m in MODES:
            urec[f"utilisation_{m}"] = each("utilisation", m)
            urec[f"actual_{m}"] = each("actual_utilisation", m)
        urec["gain_woas_over_pilot_pct"] = 100.0 * (urec["actual_woas"]
                                                    / urec["actual_pilot"] - 1.0)
        urec["gain_woas_over_pilot_points"] = 100.0 * (urec["actual_woas"]
                                                       - urec["actual_pilot"])
        thesis = THESIS_GAIN.get(workflow)
        urec["thesis_gain_pct"] = (thesis[SHARES.index(share)]
                                   if thesis is not None and share in SHARES
                                   else math.nan)
        urec["pressure"] = each("pressure", "chained")
        util.append(urec)
        srec: dict[str, Any] = {"group": group, "workflow": workflow, "share": share}
        base = _mean(baseline.get(nodes[group], []))
        for m in MODES:
            value = each("slowdown_small", m)
            srec[f"slowdown_small_{m}"] = value
            srec[f"ratio_{m}"] = value / base if base and not math.isnan(base) \
                else math.nan
        srec["baseline_slowdown_small"] = base
        slow.append(srec)
    return {"turnaround": pd.DataFrame(turn), "utilisation": pd.DataFrame(util),
            "slowdown": pd.DataFrame(slow)}


def _fmt(value: Any, digits: int = 2) -> str:
    if isinstance(value, float):
        return "–" if math.isnan(value) else f"{value:.{digits}f}"
    return str(value)


def _share_table(frame: pd.DataFrame, shares: list[float],
                 cell: Callable[[pd.Series], str],
                 extra: tuple[str, Mapping[str, Any]] | None = None) -> list[str]:
    """A Markdown table: one row per workflow of ``frame``, one column per
    share (``cell`` of the row of that workflow and share, blank when
    missing), and an optional last column ``extra = (title, by workflow)``."""
    tail = f" | {extra[0]} |" if extra else " |"
    lines = ["| workflow | " + " | ".join(f"{100 * s:g} %" for s in shares) + tail,
             "|---" * (len(shares) + 1 + bool(extra)) + "|"]
    for wf in dict.fromkeys(frame["workflow"]):
        cells = []
        for s in shares:
            sel = frame[(frame["workflow"] == wf) & (frame["share"] == s)]
            cells.append(cell(sel.iloc[0]) if len(sel) else "")
        end = f" | {extra[1].get(wf, '')} |" if extra else " |"
        lines.append(f"| {wf} | " + " | ".join(cells) + end)
    return lines


def summary_markdown(tables: dict[str, pd.DataFrame]) -> str:
    """The tables as Markdown, side by side with the thesis's numbers."""
    lines = ["# WoAS against chained and pilot jobs (seed 002, Paper V)", ""]
    turn = tables["turnaround"]
    util = tables["utilisation"]
    for group in dict.fromkeys(turn["group"]) if len(turn) else []:
        t = turn[turn["group"] == group]
        lines += [f"## Group `{group}`", "",
                  "### Turnaround speed-up of WoAS over chained jobs "
                  "(median chained / median WoAS)", ""]
        shares = sorted(set(t["share"]))
        lines += _share_table(t, shares, lambda r: _fmt(float(r["speedup_woas"])),
                              ("thesis", THESIS_SPEEDUP))
        lines += ["", "### Median turnaround (h): chained / pilot / WoAS", ""]
        lines.append("| workflow | share | seeds | workflows | chained | pilot | WoAS "
                     "| WoAS vs pilot | intermediate wait chained / WoAS (h) |")
        lines.append("|---" * 9 + "|")
        for _, r in t.iterrows():
            lines.append(
                f"| {r['workflow']} | {100 * r['share']:g} % | {r['seeds']} | "
                f"{r['workflows']} | {_fmt(r['turnaround_h_chained'])} | "
                f"{_fmt(r['turnaround_h_pilot'])} | {_fmt(r['turnaround_h_woas'])} | "
                f"{_fmt(r['woas_vs_pilot'])} | "
                f"{_fmt(r['intermediate_wait_h_chained'])} / "
                f"{_fmt(r['intermediate_wait_h_woas'])} |")
        u = util[util["group"] == group]
        lines += ["", "### Actual-utilisation gain of WoAS over pilot jobs: "
                  "ours in points / ours relative (%) / thesis (Table 3)", ""]
        lines += _share_table(u, shares, lambda r: (
            f"{_fmt(float(r['gain_woas_over_pilot_points']), 1)} / "
            f"{_fmt(float(r['gain_woas_over_pilot_pct']), 0)} / "
            f"{_fmt(float(r['thesis_gain_pct']), 1)}"))
        sl = tables["slowdown"]
        sl = sl[sl["group"] == group] if len(sl) else sl
        if len(sl):
            lines += ["", "### Median slowdown of small regular jobs, ratio to "
                      "no workflows: chained / pilot / WoAS", ""]
            lines += _share_table(sl, shares, lambda r: " / ".join(
                _fmt(float(r[f"ratio_{m}"]), 1) for m in MODES))
        lines.append("")
    return "\n".join(lines) + "\n"


def _plot(turn: pd.DataFrame, path: Path) -> None:
    plt = pyplot()

    groups = list(dict.fromkeys(turn["group"]))
    fig, axes = plt.subplots(1, len(groups), figsize=(6 * len(groups), 4),
                             squeeze=False)
    for ax, group in zip(axes[0], groups):
        t = turn[turn["group"] == group]
        for wf in dict.fromkeys(t["workflow"]):
            sel = t[t["workflow"] == wf].sort_values("share")
            ax.plot(100 * sel["share"], sel["speedup_woas"], marker="o", label=wf)
        ax.axhline(1.0, color="grey", lw=0.8)
        ax.set_xscale("log")
        ax.set_xlabel("workflow share of core-hours (%)")
        ax.set_ylabel("turnaround speed-up, WoAS over chained")
        ax.set_title(group)
        ax.legend(fontsize=8)
    fig.tight_layout()
    save_figure(fig, path, dpi=120)


def write_report(spec: Any, rows: Mapping[str, Mapping[str, Any]], out: Path
                 ) -> list[Path]:
    """The three tables, the summary and the figure into ``out``, each
    written atomically."""
    tables = report_tables(spec, rows)
    written = [write_csv(table, out / f"rodrigo2017-{name}.csv")
               for name, table in tables.items()]
    summary = out / "rodrigo2017-summary.md"
    atomic_write_text(summary, summary_markdown(tables))
    written.append(summary)
    if len(tables["turnaround"]):
        target = out / "rodrigo2017-speedup.png"
        with atomic_path(target) as tmp:
            _plot(tables["turnaround"], tmp)
        written.append(target)
    return written
