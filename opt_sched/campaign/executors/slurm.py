"""dask-jobqueue's ``SLURMCluster``, configured from a TOML file.

The file has one table, ``[slurm]``::

    [slurm]
    queue = "compute"            # partition:            #SBATCH -p compute
    account = "proj42"           # optional:             #SBATCH -A proj42
    cores = 16                   # cores per job:        #SBATCH --cpus-per-task=16
    memory = "32GiB"             # memory per job:       #SBATCH --mem=32G
    walltime = "04:00:00"        # per job:              #SBATCH -t 04:00:00
    jobs = 8                     # how many such jobs to start
    processes = 16               # optional, Dask workers per job (default: cores,
                                 # i.e. one single-threaded worker per core)
    job_name = "opt-sched"       # optional:             #SBATCH -J opt-sched
    log_directory = "slurm-logs" # optional: -o/-e files there
    local_directory = "$TMPDIR"  # optional: worker scratch space
    interface = "ib0"            # optional: network interface of the workers
    python = "/home/me/venv/bin/python"   # optional: the workers' Python
    job_extra_directives = ["--constraint=cpu"]        # optional: more #SBATCH lines
    job_script_prologue = ["source ~/venv/bin/activate"]  # optional: shell lines

``memory`` uses Dask's units: ``32GiB`` is requested as ``--mem=32G``;
``32GB`` (decimal, 32e9 bytes) is rounded up to ``--mem=30G``. Each job
runs ``processes`` Dask workers; the cluster is ``jobs`` such jobs. The
driver (``opt-sched sweep``) runs the Dask scheduler in its own process,
so the compute nodes must be able to reach the machine it runs on.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ...errors import SpecError
from . import require_dask

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = ["SLURM_KEYS", "load_slurm_config", "require_sbatch", "slurm_cluster",
           "slurm_executor"]

SLURM_KEYS: dict[str, type | tuple[type, ...]] = {
    "queue": str, "account": str, "cores": int, "memory": str, "walltime": str,
    "jobs": int, "processes": int, "job_name": str, "log_directory": str,
    "local_directory": str, "interface": str, "python": str,
    "job_extra_directives": list, "job_script_prologue": list,
}
_REQUIRED = ("queue", "cores", "memory", "walltime", "jobs")
SUBMIT_COMMAND = "sbatch"  # what dask-jobqueue's SLURMCluster runs per job


def load_slurm_config(path: str | Path) -> dict[str, Any]:
    """The ``[slurm]`` table of ``path``, checked.

    Raises
    ------
    SpecError
        Unreadable file, bad TOML, a missing, unknown or mistyped key.
    """
    from ...json_files import read_text_file

    try:
        data = tomllib.loads(read_text_file(path, SpecError))
    except tomllib.TOMLDecodeError as err:
        raise SpecError(f"{path}: not valid TOML ({err})") from None
    extra = [k for k in data if k != "slurm"]
    if extra:
        raise SpecError(f"{path}: {extra[0]}={data[extra[0]]!r} is not a known key "
                        f"(the file has one table, [slurm])")
    table = data.get("slurm")
    if not isinstance(table, Mapping):
        raise SpecError(f"{path}: slurm is missing (a [slurm] table)")
    return _check(str(path), table)


def _check(path: str, table: Mapping[str, Any]) -> dict[str, Any]:
    for key, value in table.items():
        kind = SLURM_KEYS.get(key)
        if kind is None:
            raise SpecError(f"{path}: slurm.{key}={value!r} is not a known key "
                            f"(allowed: {', '.join(SLURM_KEYS)})")
        if isinstance(value, bool) or not isinstance(value, kind):
            what = {list: "a list of strings", int: "an integer", str: "a string"}
            raise SpecError(f"{path}: slurm.{key}={value!r} must be {what[kind]}")
        if kind is int and value < 1:
            raise SpecError(f"{path}: slurm.{key}={value!r} must be >= 1")
        if kind is list and not all(isinstance(v, str) for v in value):
            raise SpecError(f"{path}: slurm.{key}={value!r} must be a list of strings")
    for key in _REQUIRED:
        if key not in table:
            raise SpecError(f"{path}: slurm.{key} is missing (required: "
                            f"{', '.join(_REQUIRED)})")
    return dict(table)


def slurm_cluster(config: Mapping[str, Any]) -> Any:
    """A ``dask_jobqueue.SLURMCluster`` from a checked config (no job is
    submitted until it is scaled). Its ``job_script()`` is the batch script
    each job runs."""
    require_dask("--slurm")
    try:
        from dask_jobqueue import SLURMCluster
    except ImportError:
        from ...errors import OptionError

        raise OptionError('--slurm needs dask-jobqueue: pip install "opt_sched[dask]"'
                          ) from None
    kwargs = {k: v for k, v in config.items() if k not in ("jobs", "job_name")}
    kwargs.setdefault("processes", config["cores"])
    if "job_name" in config:
        kwargs["job_name"] = config["job_name"]
    kwargs["scheduler_options"] = {"dashboard_address": None}
    return SLURMCluster(**kwargs)


def require_sbatch(path: str | Path) -> None:
    """Raise a one-line :class:`OptionError` if ``sbatch`` is not on the
    ``PATH``: every job would fail to start and the sweep would wait for
    workers forever."""
    import shutil

    if shutil.which(SUBMIT_COMMAND) is None:
        from ...errors import OptionError

        raise OptionError(f"--slurm={str(path)!r}: {SUBMIT_COMMAND} is not on the "
                          f"PATH (run the sweep on a Slurm login node)")


def slurm_executor(path: str | Path) -> Any:
    """A :class:`DaskExecutor` on a ``SLURMCluster`` of ``jobs`` jobs.

    Raises
    ------
    SpecError
        A bad config file.
    OptionError
        Dask, dask-jobqueue or ``sbatch`` is missing.
    """
    from .dask_executor import DaskExecutor

    config = load_slurm_config(path)
    require_sbatch(path)  # first: importing Dask takes seconds
    require_dask("--slurm")
    cluster = slurm_cluster(config)
    cluster.scale(jobs=config["jobs"])
    executor = DaskExecutor(cluster=cluster,
                            min_window=2 * config["jobs"] * config["cores"])
    executor.description = (f"Slurm: {config['jobs']} jobs x {config['cores']} cores "
                            f"on {config['queue']!r}")
    return executor
