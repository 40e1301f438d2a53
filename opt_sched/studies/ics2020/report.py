"""The seed 003 (ICS 2020) report: its raw tables from a campaign's rows,
then the figure tables and plots of :mod:`opt_sched.studies.ics2020.experiment`.

The campaign (``campaigns/ics2020.toml``) runs one task per (workload,
I/O nodes, method) instead of one per workload; this module puts the rows
back into the three raw tables of
:func:`opt_sched.studies.ics2020.experiment.run_campaign`, with the same columns,
types and row order, and hands them to its ``derive_tables`` and
``plot_all``. The figures therefore come from the very same code.

- ``synthetic``: tasks of generator ``ics2020`` with a pack method
  ``<heuristic>+lpt/<policy>``; ordered by ``(alpha_gen, seed, io_nodes)``
  then spec order (``run_campaign``'s order when the spec lists the methods
  as ``RUNS_ONE_NODE`` does).
- ``tucan`` and ``tucan_apps``: tasks of generator ``tucan`` with a method
  ``one-pack/<policy>``; the per-application stretches come from the
  ``job_stretch`` metric (``stretch:<app>``).

Rows without ``lower_bound`` (the task did not ask for it) get NaN bounds
and gaps, as ``--no-bounds`` did. Failed or pending tasks are left out.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

__all__ = ["raw_tables", "write_report"]

_SYNTHETIC_METRICS = (("makespan", "makespan"), ("max_stretch", "max_stretch"),
                      ("mean_pack_max_stretch", "mean_pack_max_stretch"),
                      ("num_packs", "num_packs"), ("exec", "exec_node_time"),
                      ("delay", "delay_node_time"), ("idle", "idle_node_time"))


def _bound(metrics: Mapping[str, Any]) -> tuple[float, float]:
    nan = float("nan")
    return metrics.get("lower_bound", nan), metrics.get("gap", nan)


def raw_tables(spec: Any, rows: Mapping[str, Mapping[str, Any]]
               ) -> dict[str, pd.DataFrame]:
    """``synthetic``, ``tucan`` and ``tucan_apps`` as ``run_campaign`` makes
    them (see the module docstring)."""
    from opt_sched.simulation import POLICY_NAMES
    from opt_sched.studies.ics2020.experiment import raw_frames

    synthetic, tucan = [], []
    for task in spec.tasks:
        row = rows.get(task.key)
        if row is None or row["status"] != "ok":
            continue
        params = dict(task.source.params)
        if task.source.generator == "ics2020" and "+lpt/" in task.method:
            synthetic.append((params["alpha_gen"], params["seed"],
                              params["io_nodes"], task.index, task, row["metrics"]))
        elif task.source.generator == "tucan" and task.method.startswith("one-pack/"):
            policy = task.method.removeprefix("one-pack/")
            tucan.append((-params["batch"], POLICY_NAMES.index(policy), task.index,
                          params["batch"], policy, row["metrics"]))
    syn_rows = []
    for alpha_gen, seed, r, _, task, m in sorted(synthetic, key=lambda t: t[:4]):
        heuristic, policy = task.method.split("+lpt/")
        rec = {"alpha_gen": alpha_gen, "seed": seed, "alpha": m["io_load_alpha"],
               "n_jobs": m["num_jobs"], "io_nodes": r, "heuristic": heuristic,
               "policy": policy, "sensibility": m["sensibility"]}
        rec.update({name: m[key] for name, key in _SYNTHETIC_METRICS})
        rec["predicted_makespan"] = m["predicted_makespan"]
        rec["lower_bound"], rec["gap"] = _bound(m)
        syn_rows.append(rec)
    tucan_rows, app_rows = [], []
    for _, _, _, batch, policy, m in sorted(tucan, key=lambda t: t[:3]):
        rec = {"batch": batch, "policy": policy}
        rec.update({name: m[key] for name, key in _SYNTHETIC_METRICS})
        rec["lower_bound"], rec["gap"] = _bound(m)
        tucan_rows.append(rec)
        for key, stretch in m.items():
            if key.startswith("stretch:"):
                app_rows.append({"batch": batch, "policy": policy,
                                 "app": key.removeprefix("stretch:"),
                                 "stretch": stretch})
    return raw_frames(syn_rows, tucan_rows, app_rows)


def write_report(spec: Any, rows: Mapping[str, Mapping[str, Any]], out: Path
                 ) -> list[Path]:
    """The raw and derived tables (``raw_<name>.csv``, ``<name>.csv``) and
    the PNG figures of seed 003 into ``out``, each written atomically."""
    from opt_sched.studies.ics2020.experiment import (
        derive_tables,
        plot_all,
        write_tables,
    )

    raw = raw_tables(spec, rows)
    tables = derive_tables(raw)
    return write_tables(raw, tables, out) + plot_all(tables, out)
