"""Gang workloads from SWF logs (KTH-SP2 and similar).

The log is read by :func:`opt_sched.traces.read_swf` (its kept jobs and
counted skips; ``instances/traces.md``). :func:`swf_workload` turns the
kept jobs into a :class:`~opt_sched.gang.workload.GangWorkload`: the run
time is the all-local time :math:`t^{e'}` (the log's machine had no
serverless I/O), and each job draws its I/O intensity ``r`` uniformly from
``io_intensities`` (seeded), as the seed's mixed workload does. Jobs wider
than ``nodes`` (when given below the log's machine size) are left out and
counted under ``size><nodes>`` (``python -m opt_sched.gang generate``
refuses such a ``--nodes`` instead: it would silently drop jobs); ``meta``
keeps the widest job of the log (``widest_job``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..errors import TraceError
from .workload import T_LOCAL, T_REMOTE, GangWorkload

__all__ = ["swf_workload"]


def swf_workload(path: str | Path, *, io_intensities: tuple[float, ...] = (0.1, 0.33,
                                                                          0.5),
                 seed: int = 0, nodes: int | None = None, jobs: int | None = None,
                 t_local: float = T_LOCAL, t_remote: float = T_REMOTE) -> GangWorkload:
    """A gang workload from an SWF log (see the module docstring).

    Parameters
    ----------
    nodes
        Machine size; default the log's.
    jobs
        Keep only the first ``jobs`` kept jobs.

    Raises
    ------
    TraceError
        No machine size, or no job left.
    """
    from ..traces import read_swf

    trace, skips = read_swf(path)
    size_p = nodes if nodes is not None else trace.machine_size
    if size_p is None:
        raise TraceError(f"{path}: no MaxNodes/MaxProcs in the header; give nodes=")
    size = np.asarray(trace.nodes)
    widest = int(size.max()) if len(size) else 0
    keep = size <= size_p
    too_big = int(np.count_nonzero(~keep))
    ids = [i for i, k in zip(trace.ids, keep.tolist()) if k]
    submit = np.asarray(trace.submit)[keep]
    runtime = np.asarray(trace.run_time, dtype=float)[keep]
    size = size[keep]
    if jobs is not None:
        ids, submit = ids[:jobs], submit[:jobs]
        runtime, size = runtime[:jobs], size[:jobs]
    if not ids:
        raise TraceError(f"{path}: no job left to replay")
    rng = np.random.default_rng([int(seed), 11])
    pick = rng.integers(0, len(io_intensities), len(ids))
    r = np.asarray(io_intensities, float)[pick]
    blocks = np.round(r * runtime / t_local)
    cpu = np.maximum(runtime - blocks * t_local, 0.0)
    # a job of a few seconds may round to zero work on both parts
    cpu = np.where(cpu + blocks * t_local <= 0, runtime, cpu)
    skipped = {k: int(v) for k, v in skips.skipped.items()}
    skipped[f"size>{size_p}"] = too_big
    return GangWorkload(
        name=Path(path).name.split(".")[0], nodes=int(size_p), ids=tuple(ids),
        arrival=submit - submit.min(), size=size, cpu=cpu, blocks=blocks,
        t_local=t_local, t_remote=t_remote,
        meta={"protocol": "swf", "source": str(path), "seed": int(seed),
              "io_intensities": list(io_intensities), "skipped": skipped,
              "widest_job": widest})
