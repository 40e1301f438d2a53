"""Tables derived from the store: tasks, methods, failures and pivots.

- ``tasks.csv``: one row per task of the spec, in spec order: ``group``,
  ``instance`` (its label), the generator's parameters (one column each),
  ``method``, ``method_seed`` (the task's seed), ``status``, ``error``,
  ``attempts``, then the row's metrics (``makespan``, ``max_stretch``, ...,
  ``wall_time``) and ``key``. Tasks not run yet have status ``pending``.
- ``methods.csv``: per group and method, the task counts (``tasks``,
  ``ok``, ``failed``) and the mean of the main metrics over the successful
  tasks, and the total ``wall_time``.
- ``failures.csv``: the failed tasks with their one-line errors.
- pivots (``[[outputs.pivots]]``): ``values`` aggregated over ``index`` x
  ``columns`` on the successful tasks. ``geomean`` is
  ``exp(mean(log x))``.

``TIMING_COLUMNS`` (``wall_time``, ``attempts``, ``worker``) differ between
two runs of the same spec; every other column is a function of the tasks.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import SpecError
from ..files import atomic_write_csv as write_csv
from .spec import PivotSpec, Spec

__all__ = [
    "TIMING_COLUMNS",
    "failures_table",
    "geomean",
    "methods_table",
    "pivot_table",
    "tasks_table",
    "write_tables",
]

TIMING_COLUMNS = ("wall_time", "attempts", "worker")
MAIN_METRICS = ("makespan", "max_stretch", "mean_stretch", "utilisation", "gap")
_FIRST = ("group", "instance")
_AFTER_PARAMS = ("method", "method_seed", "status", "error", "attempts", "worker")


def geomean(values: Iterable[float]) -> float:
    """``exp(mean(log x))`` (NaN for no value)."""
    arr = np.asarray(list(values), dtype=float)
    return float(np.exp(np.log(arr).mean())) if len(arr) else math.nan


def tasks_table(spec: Spec, rows: Mapping[str, Mapping[str, Any]]) -> pd.DataFrame:
    """One row per task of ``spec`` (see the module docstring); ``rows`` is
    :meth:`ResultStore.rows`."""
    params: dict[str, None] = {}
    for task in spec.tasks:
        for k, _ in task.source.params:
            params.setdefault(k, None)
    records = []
    metric_names: dict[str, None] = {}
    for task in spec.tasks:
        stored = rows.get(task.key)
        rec: dict[str, Any] = {"group": task.group, "instance": task.source.label}
        rec.update(dict(task.source.params))
        rec.update({"method": task.method, "method_seed": task.seed})
        if stored is None or stored["status"] == "running":
            rec.update({"status": "pending", "error": None,
                        "attempts": stored["attempts"] if stored else 0,
                        "worker": None})
        else:
            rec.update({"status": stored["status"], "error": stored["error"],
                        "attempts": stored["attempts"], "worker": stored["worker"]})
            for k, v in stored["metrics"].items():
                if k == "status":
                    continue
                metric_names.setdefault(k, None)
                rec[k] = v
        rec["key"] = task.key
        records.append(rec)
    columns = [*_FIRST, *params, *_AFTER_PARAMS, *metric_names, "key"]
    table = pd.DataFrame.from_records(records, columns=columns)
    for name in params:  # integer parameters stay integers beside empty cells
        values = [dict(t.source.params).get(name) for t in spec.tasks]
        values = [v for v in values if v is not None]
        if values and all(type(v) is int for v in values):
            table[name] = table[name].astype("Int64")
    return table


def methods_table(tasks: pd.DataFrame) -> pd.DataFrame:
    """Per group and method: counts, means of the main metrics over the
    successful tasks, total wall time."""
    out = []
    for (group, method), g in tasks.groupby(["group", "method"], sort=False):
        ok = g[g["status"] == "ok"]
        rec: dict[str, Any] = {"group": group, "method": method, "tasks": len(g),
                               "ok": len(ok),
                               "failed": int((g["status"] == "failed").sum()),
                               "pending": int((g["status"] == "pending").sum())}
        for m in MAIN_METRICS:
            if m in ok:
                rec[f"mean_{m}"] = float(ok[m].mean()) if len(ok) else math.nan
        if "wall_time" in g:
            rec["wall_time"] = float(g["wall_time"].sum())
        out.append(rec)
    return pd.DataFrame(out)


def failures_table(tasks: pd.DataFrame) -> pd.DataFrame:
    """The failed tasks and their errors."""
    failed = tasks[tasks["status"] == "failed"]
    cols = ["group", "instance", "method", "method_seed", "error", "key"]
    return failed[cols].reset_index(drop=True)


def aggregate_function(name: str):
    return geomean if name == "geomean" else name


def check_columns(what: str, table: pd.DataFrame, columns: Iterable[str]) -> None:
    for c in columns:
        if c not in table.columns:
            raise SpecError(f"{what}={c!r} is not a column of tasks.csv "
                            f"(columns: {', '.join(map(str, table.columns))})")


def pivot_table(tasks: pd.DataFrame, pivot: PivotSpec) -> pd.DataFrame:
    """``pivot.values`` aggregated over ``index`` x ``columns`` (ok tasks)."""
    where = f"outputs.pivots[{pivot.name}]"
    check_columns(f"{where}.index", tasks, pivot.index)
    check_columns(f"{where}.columns", tasks, pivot.columns)
    check_columns(f"{where}.values", tasks, [pivot.values])
    data = tasks[tasks["status"] == "ok"]
    if pivot.groups:
        data = data[data["group"].isin(pivot.groups)]
    keys = [*pivot.index, *pivot.columns]
    grouped = data.groupby(keys, sort=False)[pivot.values]
    agg = grouped.agg(aggregate_function(pivot.agg))
    if pivot.columns:
        table = agg.unstack(list(pivot.columns))
        table.columns = ["|".join(map(str, c)) if isinstance(c, tuple) else str(c)
                         for c in table.columns]
        return table.reset_index()
    return agg.rename(f"{pivot.agg}_{pivot.values}").reset_index()


def write_tables(spec: Spec, tasks: pd.DataFrame, out: Path) -> list[Path]:
    """The built-in tables the spec asks for and its pivots, atomically."""
    written = []
    builders = {"tasks": lambda: tasks, "methods": lambda: methods_table(tasks),
                "failures": lambda: failures_table(tasks)}
    for name in spec.tables:
        written.append(write_csv(builders[name](), out / f"{name}.csv"))
    for pivot in spec.pivots:
        written.append(write_csv(pivot_table(tasks, pivot), out / f"{pivot.name}.csv"))
    return written
