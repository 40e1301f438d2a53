"""The seed 001 (Goponenko et al.) report: improvements over the default
scheduler, beside the slides' figures.

For every campaign group and instance, the task of method ``easy`` (the
slides' "default Slurm scheduler": FCFS with EASY backfilling) is the
baseline; every other method's *improvement* is the relative reduction of
a metric, ``(x_default - x) / x_default`` (positive: better), for the
makespan (the slides' figure: the "time of the job queue"), the mean
turnaround, the mean wait and the mean bounded slowdown. A method's role
is read from its spec: ``herbein(limit=L, estimates=history)`` is the
slides' "I/O-aware at L GiB/s", ``workload-adaptive(...)`` their
"workload-adaptive".

Files: ``goponenko.csv`` (one row per task with its improvements and I/O
concurrency columns when measured) and ``goponenko.md`` (the makespan
table, ours beside the slides' where they give one: Workloads 1 and 2 at
their 256-node default under the file-system model of
:data:`opt_sched.workloads.goponenko.EXECUTION`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from opt_sched.files import atomic_write_csv as write_csv
from opt_sched.files import atomic_write_text

__all__ = ["SLIDES", "improvements", "role", "write_report"]

SLIDES = {
    (1, "I/O-aware 20"): 0.10, (1, "I/O-aware 15"): 0.20,
    (1, "workload-adaptive"): 0.25,
    (2, "I/O-aware 20"): 0.04, (2, "I/O-aware 15"): 0.07,
    (2, "workload-adaptive"): 0.12,
}
"""(workload, role) -> the slides' makespan improvement over default Slurm."""

SLIDES_EXECUTION = ("shared(share=nodes,node_rate=0.5,eta=1:1;4:0.8;16:0.75)")
"""The file-system model the slides' figures are compared under
(:data:`opt_sched.workloads.goponenko.EXECUTION`)."""

METRICS = ("makespan", "mean_turnaround", "mean_wait", "mean_bounded_slowdown")
EXTRA = ("utilisation", "peak_io_phases", "mean_io_phases", "io_throughput")


def role(spec: str) -> str:
    """The slides' name of a method spec (``default``, ``I/O-aware 20``,
    ``workload-adaptive``; others: the spec)."""
    from opt_sched import methods

    method = methods.method(spec)
    if method.name == "easy":
        return "default"
    if method.name == "herbein":
        limit = method.arg("limit")
        tag = "declared " if method.arg("estimates") == "declared" else ""
        return f"{tag}I/O-aware {'b' if limit is None else f'{limit:g}'}"
    if method.name == "workload-adaptive":
        return "workload-adaptive"
    return spec


def improvements(spec: Any, rows: Mapping[str, Mapping[str, Any]]) -> pd.DataFrame:
    """One row per successful task: its group, instance parameters, role,
    metrics and improvements over the ``easy`` task of the same group and
    instance (NaN without one)."""
    records = []
    for task in spec.tasks:
        row = rows.get(task.key)
        if row is None or row["status"] != "ok":
            continue
        rec: dict[str, Any] = {"group": task.group, "instance": task.source.label,
                               **dict(task.source.params), "method": task.method,
                               "role": role(task.method),
                               "execution": task.execution_label}
        metrics = row["metrics"]
        for name in (*METRICS, *EXTRA):
            rec[name] = metrics.get(name, float("nan"))
        records.append(rec)
    table = pd.DataFrame.from_records(records)
    if table.empty:
        return table
    base = table[table["role"] == "default"].set_index(["group", "instance"])
    for name in METRICS:
        ref = table.set_index(["group", "instance"]).index.map(
            lambda key, n=name: base[n].get(key, float("nan")))
        table[f"{name}_improvement"] = (ref.to_numpy() - table[name]) / ref.to_numpy()
    return table


def _markdown(table: pd.DataFrame) -> str:
    lines = ["| group | instance | role | makespan (s) | improvement | slides |",
             "|---|---|---|---:|---:|---:|"]
    for _, r in table.iterrows():
        slide = ""
        if ("workload" in r and r.get("nodes") == 256 and pd.isna(r.get("repeats"))
                and r["execution"] == SLIDES_EXECUTION):
            value = SLIDES.get((int(r["workload"]), r["role"]))
            slide = "" if value is None else f"{value:+.0%}"
        imp = r["makespan_improvement"]
        lines.append(f"| {r['group']} | {r['instance']} | {r['role']} | "
                     f"{r['makespan']:,.0f} | "
                     f"{'' if pd.isna(imp) else f'{imp:+.1%}'} | {slide} |")
    return "\n".join(lines) + "\n"


def write_report(spec: Any, rows: Mapping[str, Mapping[str, Any]], out: Path
                 ) -> list[Path]:
    """Write ``goponenko.csv`` and ``goponenko.md`` into ``out``."""
    table = improvements(spec, rows)
    out = Path(out)
    csv, md = out / "goponenko.csv", out / "goponenko.md"
    write_csv(table, csv)
    atomic_write_text(md, _markdown(table) if not table.empty else "no results\n")
    return [csv, md]
