"""PSPLIB single-mode RCPSP instances (``.sm`` files) as opt_sched instances.

PSPLIB (Kolisch and Sprecher 1997, https://www.om-db.wi.tum.de/psplib/)
describes a project of activities with integer durations, renewable resources
``R1..RK`` of fixed capacity, per-activity demands and precedence arcs. The
file is parsed by the ``psplib`` package (PyPI) and mapped as follows:

- platform: one partition of 1 node and bandwidth 1, with the named
  resources ``R1..RK`` and their capacities (``platform.resources``);
- activity ``a`` (numbered from 1 in the file) becomes the job ``"a"`` with
  ``nodes = 0``, one compute phase of the activity's duration, no I/O, its
  non-zero demands in ``demands`` and ``after`` = its predecessors;
- the dummy supersource (first activity) and supersink (last activity) are
  dropped when they have duration 0 and no demand; their arcs carry no
  information (every job starts at >= 0, and the makespan is the largest
  completion). Other zero-duration activities are kept as zero-length jobs.

The makespan of a schedule of this instance is the RCPSP makespan, so the
values of ``optimum.csv`` (:func:`load_optimum_csv`) apply directly.

A reader of instance files beside :mod:`opt_sched.json_files` (whose
:func:`~opt_sched.json_files.read_instance` hands ``.sm`` files to it), below the
workload generators.
"""

from __future__ import annotations

import csv
from pathlib import Path

from .errors import InstanceError
from .instance import Instance, Job, Partition, Platform

__all__ = ["load_optimum_csv", "read_psplib"]


def read_psplib(path: str | Path) -> Instance:
    """Read a PSPLIB single-mode ``.sm`` file; the name is the file stem.

    Raises
    ------
    InstanceError
        One line naming the file: missing, unparsable, multi-mode, or with
        non-renewable resources.
    """
    import psplib

    path = Path(path)
    if not path.is_file():
        raise InstanceError(f"{path}: no such file")
    try:
        project = psplib.parse(path, instance_format="psplib")
    except (ValueError, IndexError, KeyError, UnicodeDecodeError) as err:
        reason = str(err).splitlines()[0] if str(err) else type(err).__name__
        raise InstanceError(f"{path}: not a PSPLIB .sm file ({reason})") from None
    try:
        return _to_instance(project, path.stem)
    except InstanceError as err:
        raise InstanceError(f"{path}: {err}") from None


def _to_instance(project: object, name: str) -> Instance:
    resources = project.resources  # type: ignore[attr-defined]
    activities = project.activities  # type: ignore[attr-defined]
    if not activities:
        raise InstanceError("activities=0: the file lists no activity")
    for r, res in enumerate(resources):
        if not res.renewable:
            raise InstanceError(f"resource R{r + 1} is non-renewable (only "
                                "renewable resources are supported)")
    names = [f"R{r + 1}" for r in range(len(resources))]
    predecessors: list[list[int]] = [[] for _ in activities]
    for a, act in enumerate(activities):
        if act.num_modes != 1:
            raise InstanceError(f"activity {a + 1}: modes={act.num_modes} "
                                "(only single-mode .sm files are supported)")
        for s in act.successors:
            if not 0 <= s < len(activities):
                raise InstanceError(f"activity {a + 1}: successor {s + 1} does "
                                    "not exist")
            predecessors[s].append(a)

    def is_dummy(a: int) -> bool:
        mode = activities[a].modes[0]
        return mode.duration == 0 and not any(mode.demands)

    dropped = {a for a in (0, len(activities) - 1) if is_dummy(a)}
    jobs = []
    for a, act in enumerate(activities):
        if a in dropped:
            continue
        mode = act.modes[0]
        if len(mode.demands) != len(names):
            raise InstanceError(f"activity {a + 1}: {len(mode.demands)} demands "
                                f"for {len(names)} resources")
        demands = tuple((n, d) for n, d in zip(names, mode.demands) if d)
        after = tuple(str(p + 1) for p in predecessors[a] if p not in dropped)
        jobs.append(Job(str(a + 1), 0, (mode.duration,), (0.0,), after=after,
                        demands=demands))
    platform = Platform((Partition(1, 1.0),),
                        tuple((n, res.capacity) for n, res in zip(names, resources)))
    return Instance(name, platform, tuple(jobs))


def load_optimum_csv(path: str | Path) -> dict[str, float]:
    """The optimal makespans of PSPLIB's ``optimum.csv`` (columns ``problem``,
    ``optimum``), keyed by instance name (the file stem: ``"j301_1"``).

    Raises
    ------
    InstanceError
        The file is missing, lacks a column, or has a non-numeric optimum.
    """
    path = Path(path)
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise InstanceError(f"{path}: no such file") from None
    reader = csv.DictReader(text.splitlines())
    for column in ("problem", "optimum"):
        if column not in (reader.fieldnames or []):
            raise InstanceError(f"{path}: missing column {column!r}")
    out: dict[str, float] = {}
    for line, row in enumerate(reader, start=2):
        try:
            value = float(row["optimum"])
        except (TypeError, ValueError):
            raise InstanceError(f"{path}: line {line}: optimum={row['optimum']!r} "
                                "is not a number") from None
        out[Path(row["problem"]).stem] = value
    return out
