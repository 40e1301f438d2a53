"""Experiment campaigns: one declarative sweep, resumable, local or on a
cluster.

A campaign is a TOML spec (:mod:`.spec`, format in ``instances/sweep.md``)
that expands into tasks (:mod:`.task`: instance source, method spec,
seed, limits; content-hashed). :func:`run_sweep` (:mod:`.runner`) skips
the tasks already in the results store (:mod:`.store`, SQLite in WAL
mode), runs the others on an executor (:mod:`.executors`: local processes,
Dask, Slurm through dask-jobqueue), records each result durably as it
arrives, shows progress (:mod:`.progress`), and writes the tables
(:mod:`.summary`), figures (:mod:`.figures`) and reports (:mod:`.reports`)
the spec asks for. One function runs a task's method
(:func:`.execute.resolve_method`).

Modules: ``task``, ``sources``, ``execute``, ``store``, ``folder_lock``, ``spec``,
``executors/`` (``local``, ``dask_executor``, ``slurm``), ``progress``,
``runner``, ``summary``, ``figures``, ``reports`` (the report registry). The
command ``opt-sched sweep`` is :mod:`opt_sched.cli.campaign`.
"""

from ..lazy import lazy_exports

# Imported on first use (PEP 562): the runner needs pandas, and
# ``opt-sched --help`` imports :mod:`opt_sched.cli.campaign`, hence this package.
_LAZY: dict[str, str] = {
    "SweepResult": ".runner",
    "run_sweep": ".runner",
    "Spec": ".spec",
    "load_spec": ".spec",
    "parse_spec": ".spec",
    "ResultStore": ".store",
    "InstanceSource": ".task",
    "Limits": ".task",
    "Task": ".task",
}

__getattr__, __dir__ = lazy_exports(__name__, globals(), _LAZY)

__all__ = sorted(_LAZY)  # every lazy name
