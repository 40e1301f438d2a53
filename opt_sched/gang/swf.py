"""A minimal SWF reader for gang replays (KTH-SP2 and similar logs).

Only what the gang model needs, from the Standard Workload Format of the
Parallel Workloads Archive (18 whitespace-separated fields per job, ``;``
header lines, ``-1`` for unknown): field 1 job id, field 2 submit time,
field 4 run time, field 5 allocated processors (field 8, requested
processors, when field 5 is ``-1``). ``MaxNodes`` (or ``MaxProcs``) in the
header gives the machine size. The trace package (``opt_sched.traces``)
replaces this module at merge.

A job is skipped (and counted) when its run time is not positive, its size
is unknown or not positive, or it is larger than the machine.
:func:`swf_workload` turns the kept jobs into a
:class:`~opt_sched.gang.workload.GangWorkload`: the run time is the
all-local time :math:`t^{e'}` (the log's machine had no serverless I/O), and
each job draws its I/O intensity ``r`` uniformly from ``io_intensities``
(seeded), as the seed's mixed workload does.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np

from ..errors import TraceError
from .workload import T_LOCAL, T_REMOTE, GangWorkload

__all__ = ["read_swf", "swf_workload"]


def _text(path: Path) -> str:
    try:
        if path.suffix == ".gz":
            with gzip.open(path, "rt") as handle:
                return handle.read()
        return path.read_text()
    except FileNotFoundError:
        raise TraceError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError, EOFError) as err:
        raise TraceError(f"{path}: cannot read ({err.__class__.__name__})") from None


def read_swf(path: str | Path) -> dict[str, object]:
    """The jobs of an SWF file.

    Returns
    -------
    dict
        ``ids`` (strings), ``submit``, ``runtime`` (float arrays), ``size``
        (int array), ``nodes`` (machine size from the header, or ``None``),
        ``skipped`` (reason -> count).

    Raises
    ------
    TraceError
        Unreadable file, or a job line with fewer than 8 fields or a field
        that is not a number (named by line).
    """
    path = Path(path)
    nodes = None
    ids, submit, runtime, size = [], [], [], []
    skipped = {"runtime<=0": 0, "size unknown or <=0": 0}
    for number, line in enumerate(_text(path).splitlines(), start=1):
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith(";"):
            key, _, value = stripped[1:].partition(":")
            if key.strip() in ("MaxNodes", "MaxProcs") and nodes is None:
                try:
                    nodes = int(value.split()[0])
                except (ValueError, IndexError):
                    raise TraceError(f"{path}:{number}: {key.strip()}="
                                     f"{value.strip()!r} is not an integer") from None
            continue
        fields = stripped.split()
        if len(fields) < 8:
            raise TraceError(f"{path}:{number}: {len(fields)} fields, expected 18")
        try:
            job, sub, run = fields[0], float(fields[1]), float(fields[3])
            procs = int(float(fields[4]))
            if procs == -1:
                procs = int(float(fields[7]))
        except ValueError:
            raise TraceError(f"{path}:{number}: a field is not a number") from None
        if run <= 0:
            skipped["runtime<=0"] += 1
            continue
        if procs <= 0:
            skipped["size unknown or <=0"] += 1
            continue
        ids.append(job)
        submit.append(sub)
        runtime.append(run)
        size.append(procs)
    return {"ids": ids, "submit": np.array(submit, float),
            "runtime": np.array(runtime, float), "size": np.array(size, np.int64),
            "nodes": nodes, "skipped": skipped}


def swf_workload(path: str | Path, *, io_intensities: tuple[float, ...] = (0.1, 0.33,
                                                                          0.5),
                 seed: int = 0, nodes: int | None = None, jobs: int | None = None,
                 t_local: float = T_LOCAL, t_remote: float = T_REMOTE) -> GangWorkload:
    """A gang workload from an SWF log (see the module docstring).

    Parameters
    ----------
    nodes
        Machine size; default the header's ``MaxNodes``.
    jobs
        Keep only the first ``jobs`` kept jobs.

    Raises
    ------
    TraceError
        No machine size, or no job left.
    """
    data = read_swf(path)
    size_p = nodes if nodes is not None else data["nodes"]
    if size_p is None:
        raise TraceError(f"{path}: no MaxNodes/MaxProcs in the header; give nodes=")
    size = data["size"]
    keep = size <= size_p
    too_big = int(np.count_nonzero(~keep))
    ids = [i for i, k in zip(data["ids"], keep.tolist()) if k]
    submit, runtime, size = data["submit"][keep], data["runtime"][keep], size[keep]
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
    skipped = dict(data["skipped"])
    skipped[f"size>{size_p}"] = too_big
    return GangWorkload(
        name=Path(path).name.split(".")[0], nodes=int(size_p), ids=tuple(ids),
        arrival=submit - submit.min(), size=size, cpu=cpu, blocks=blocks,
        t_local=t_local, t_remote=t_remote,
        meta={"protocol": "swf", "source": str(path), "seed": int(seed),
              "io_intensities": list(io_intensities), "skipped": skipped})
