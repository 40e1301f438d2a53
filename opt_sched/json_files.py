"""Reading and writing instances and schedules as JSON.

The formats are documented in ``instances/README.md``; their JSON Schemas are
``instances/schemas/instance.schema.json`` and
``instances/schemas/schedule.schema.json``. Every error names the file (when
there is one), the field and the value, on one line.

The reader refuses what no workload needs and what would break a method
later: a key given twice in one JSON object, JSON nested beyond the reader's
recursion limit, and numbers outside the limits of :mod:`opt_sched.limits`
(more than ``MAX_ITERATIONS`` iterations in a job or ``MAX_TOTAL_PHASES``
phases in a file are refused before anything is built). Files are written
atomically (:mod:`opt_sched.files`).
"""

from __future__ import annotations

import gzip
import json
import math
import sys
import zlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from .errors import InstanceError, OptSchedError, ScheduleFormatError
from .files import atomic_write_text
from .instance import Instance, Job, Partition, Platform
from .instance import _shown as _shown
from .limits import MAX_ITERATIONS, MAX_PARTITIONS, MAX_TOTAL_PHASES
from .schedule import JobSchedule, MachineSet, Schedule

__all__ = [
    "instance_from_dict",
    "instance_to_dict",
    "load_json",
    "load_json_as",
    "parse_json",
    "read_instance",
    "read_schedule",
    "read_text_file",
    "schedule_from_dict",
    "schedule_to_dict",
    "write_instance",
    "write_schedule",
]

_TOP_KEYS = {"name", "description", "platform", "jobs"}
_PLATFORM_KEYS = {"partitions", "nodes", "bandwidth", "resources"}
_PARTITION_KEYS = {"nodes", "bandwidth"}
_JOB_KEYS = {"id", "nodes", "compute", "io_volume", "iterations", "phases",
             "release", "user", "group", "walltime", "after", "partition",
             "demands"}
_PHASE_KEYS = {"compute", "io_volume"}


def _require_mapping(where: str, value: object) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise InstanceError(f"{where}: expected an object, got {type(value).__name__}")
    return value


def _reject_unknown(where: str, data: Mapping[str, Any], allowed: set[str]) -> None:
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise InstanceError(f"{where}: unknown key {unknown[0]!r} "
                            f"(allowed: {', '.join(sorted(allowed))})")


def _require(where: str, data: Mapping[str, Any], key: str) -> Any:
    if key not in data:
        raise InstanceError(f"{where}: missing field {key!r}")
    return data[key]


def _platform_from_dict(data: object) -> Platform:
    data = _require_mapping("platform", data)
    _reject_unknown("platform", data, _PLATFORM_KEYS)
    parts = _require("platform", data, "partitions")
    resources = data.get("resources", {})
    _require_mapping("platform.resources", resources)
    if isinstance(parts, list):
        for key in ("nodes", "bandwidth"):
            if key in data:
                raise InstanceError(f"platform: {key!r} must go inside each partition "
                                    "when partitions is a list")
        if not parts:
            raise InstanceError("platform: partitions=[] must list >= 1 partition")
        if len(parts) > MAX_PARTITIONS:
            raise InstanceError(f"platform: partitions lists {len(parts):,} "
                                f"partitions, above the limit {MAX_PARTITIONS:,}")
        partitions = []
        for k, part in enumerate(parts):
            where = f"platform.partitions[{k}]"
            part = _require_mapping(where, part)
            _reject_unknown(where, part, _PARTITION_KEYS)
            try:
                partitions.append(Partition(_require(where, part, "nodes"),
                                            part.get("bandwidth", 1.0)))
            except InstanceError as err:
                raise InstanceError(str(err).replace("platform", where, 1)) from None
        return Platform(tuple(partitions), tuple(resources.items()))
    if isinstance(parts, bool) or not isinstance(parts, int):
        raise InstanceError(f"platform: partitions={parts!r} must be an integer "
                            "or a list of partitions")
    if parts < 1:
        raise InstanceError(f"platform: partitions={parts} must be >= 1")
    if parts > MAX_PARTITIONS:
        raise InstanceError(f"platform: partitions={_shown(parts)} exceeds the "
                            f"limit {MAX_PARTITIONS:,}")
    nodes = _require("platform", data, "nodes")
    part = Partition(nodes, data.get("bandwidth", 1.0))
    return Platform((part,) * parts, tuple(resources.items()))


def _where(index: int, data: Mapping[str, Any]) -> str:
    job_id = data.get("id")
    return f"job {_shown(job_id)}" if "id" in data else f"jobs[{index}]"


def _phase_count(index: int, data: object) -> int:
    """The number of iterations job ``data`` asks for, checked against
    :data:`~opt_sched.limits.MAX_ITERATIONS` before any list is built."""
    data = _require_mapping(f"jobs[{index}]", data)
    where = _where(index, data)
    if "phases" in data:
        phases = data["phases"]
        count = len(phases) if isinstance(phases, list) else 1
    else:
        count = data.get("iterations", 1)
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise InstanceError(f"{where}: iterations={_shown(count)} must be an "
                                "integer >= 1")
    if count > MAX_ITERATIONS:
        raise InstanceError(f"{where}: iterations={count:,} exceeds the limit "
                            f"{MAX_ITERATIONS:,}")
    return count


def _job_from_dict(index: int, data: object) -> Job:
    data = _require_mapping(f"jobs[{index}]", data)
    where = _where(index, data)
    _reject_unknown(where, data, _JOB_KEYS)
    job_id = _require(where, data, "id")
    if isinstance(job_id, int) and not isinstance(job_id, bool):
        raise InstanceError(f"jobs[{index}]: id={job_id!r} must be a string "
                            f"(write \"{job_id}\")")
    nodes = _require(where, data, "nodes")
    if "phases" in data:
        for key in ("compute", "io_volume", "iterations"):
            if key in data:
                raise InstanceError(f"{where}: give either 'phases' or '{key}', "
                                    "not both")
        phases = data["phases"]
        if not isinstance(phases, list) or not phases:
            raise InstanceError(f"{where}: phases must be a non-empty list")
        compute, volume = [], []
        for j, phase in enumerate(phases):
            phase = _require_mapping(f"{where}: phases[{j}]", phase)
            _reject_unknown(f"{where}: phases[{j}]", phase, _PHASE_KEYS)
            compute.append(_require(f"{where}: phases[{j}]", phase, "compute"))
            volume.append(phase.get("io_volume", 0.0))
    else:
        w = _require(where, data, "compute")
        v = data.get("io_volume", 0.0)
        count = _phase_count(index, data)
        compute, volume = [w] * count, [v] * count
    after = data.get("after", [])
    if not isinstance(after, list):
        raise InstanceError(f"{where}: after={after!r} must be a list of job ids")
    demands = data.get("demands", {})
    _require_mapping(f"{where}: demands", demands)
    return Job(job_id, nodes, tuple(compute), tuple(volume),
               release=data.get("release", 0.0), user=data.get("user"),
               group=data.get("group"),
               walltime=data.get("walltime"), after=tuple(after),
               partition=data.get("partition"), demands=tuple(demands.items()))


def instance_from_dict(data: object, name: str | None = None) -> Instance:
    """Build a checked :class:`Instance` from parsed JSON."""
    data = _require_mapping("instance", data)
    _reject_unknown("instance", data, _TOP_KEYS)
    platform = _platform_from_dict(_require("instance", data, "platform"))
    jobs_data = _require("instance", data, "jobs")
    if not isinstance(jobs_data, list):
        raise InstanceError("instance: jobs must be a list")
    total = 0
    for index, job in enumerate(jobs_data):
        total += _phase_count(index, job)
        if total > MAX_TOTAL_PHASES:
            raise InstanceError(
                f"instance: jobs[0..{index}] already have {total:,} phases, above "
                f"the limit {MAX_TOTAL_PHASES:,} per instance")
    jobs = tuple(_job_from_dict(i, job) for i, job in enumerate(jobs_data))
    return Instance(data.get("name", name or "instance"), platform, jobs)


def _machines(machines: Any) -> str | list[int]:
    """A job's machines in a schedule file: a :class:`MachineSet` as Batsim's
    interval set (``"0-511 1024-1535"``: a Mira job of 49,152 machines is a
    few characters, not 49,152 numbers); any other sequence as its list, so
    that a hand-made schedule with a repeated machine reads back the same."""
    if isinstance(machines, MachineSet):
        return machines.interval_string()
    return list(machines)


def _number(value: float) -> float | int:
    return int(value) if float(value).is_integer() and abs(value) < 2**53 else value


def instance_to_dict(instance: Instance) -> dict[str, Any]:
    """The JSON form of an instance (periodic jobs written compactly)."""
    plat = instance.platform
    if plat.is_homogeneous:
        part = plat.partitions[0]
        platform: dict[str, Any] = {"partitions": plat.num_partitions,
                                    "nodes": part.nodes,
                                    "bandwidth": _number(part.bandwidth)}
    else:
        platform = {"partitions": [{"nodes": p.nodes, "bandwidth": _number(p.bandwidth)}
                                   for p in plat.partitions]}
    if plat.resources:
        platform["resources"] = {k: _number(v) for k, v in plat.resources}
    jobs = []
    for job in instance.jobs:
        entry: dict[str, Any] = {"id": job.id, "nodes": job.nodes}
        if job.is_periodic:
            entry["compute"] = _number(job.compute[0])
            entry["io_volume"] = _number(job.io_volume[0])
            entry["iterations"] = job.iterations
        else:
            entry["phases"] = [{"compute": _number(w), "io_volume": _number(v)}
                               for w, v in zip(job.compute, job.io_volume)]
        if job.release:
            entry["release"] = _number(job.release)
        for key in ("user", "group", "walltime", "partition"):
            value = getattr(job, key)
            if value is not None:
                entry[key] = value
        if job.after:
            entry["after"] = list(job.after)
        if job.demands:
            entry["demands"] = {k: _number(v) for k, v in job.demands}
        jobs.append(entry)
    return {"name": instance.name, "platform": platform, "jobs": jobs}


class _DuplicateKeyError(ValueError):
    """A key appears twice in one JSON object (``json`` keeps the last)."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook`` that refuses a key given twice in one object:
    ``json`` would silently keep the last value (a job listed twice in a
    plan's ``starts`` would vanish)."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKeyError(key)
            seen.add(key)
    return out


_GZIP_MAGIC = b"\x1f\x8b"


def _read_bytes(path: Path, kind: type[Exception]) -> bytes:
    """The bytes of ``path``; a missing or unreadable file is one ``kind``
    error that names it."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise kind(f"{path}: no such file") from None
    except IsADirectoryError:
        raise kind(f"{path}: cannot read: it is a folder") from None
    except PermissionError:
        raise kind(f"{path}: cannot read: permission denied") from None
    except OSError as err:
        raise kind(f"{path}: cannot read: {err.strerror or err}") from None


def _gunzip(path: Path, raw: bytes, kind: type[Exception]) -> bytes:
    """``raw`` decompressed; a damaged or truncated gzip stream (bad header,
    CRC or length, corrupt deflate data, missing end) is one ``kind`` error
    that names the file."""
    try:
        return gzip.decompress(raw)
    except (OSError, EOFError, zlib.error) as err:  # BadGzipFile is an OSError
        reason = str(err).splitlines()[0] if str(err) else type(err).__name__
        raise kind(f"{path}: not a valid gzip file ({reason})") from None


def read_text_file(path: str | Path, kind: type[Exception] = InstanceError, *,
                   gunzip: bool = False, errors: str = "strict") -> str:
    """The text of the file ``path``, decoded as UTF-8.

    Every failure is one ``kind`` error (a :class:`~opt_sched.errors.UserError`
    subclass: exit status 2) whose message starts with the file name: a
    missing file, a folder, no permission, any other read error, bytes that
    are not UTF-8 (with ``errors="strict"``: the offset of the first bad
    byte is named), and, with ``gunzip``, a file that starts with the gzip
    magic but does not decompress (one flipped byte, a truncated download).

    Parameters
    ----------
    path
        The file.
    kind
        The error class to raise (``InstanceError``, ``TraceError``,
        ``SpecError``...).
    gunzip
        Decompress the file when it starts with the gzip magic bytes
        (whatever its name).
    errors
        ``"strict"`` refuses text that is not UTF-8; ``"replace"`` keeps it
        with U+FFFD in place of each bad byte (for formats whose comments
        may hold stray bytes, such as SWF headers).
    """
    path = Path(path)
    raw = _read_bytes(path, kind)
    if gunzip and raw[:2] == _GZIP_MAGIC:
        raw = _gunzip(path, raw, kind)
    try:
        return raw.decode("utf-8", errors=errors)
    except UnicodeDecodeError as err:
        raise kind(f"{path}: cannot read: not UTF-8 text (byte {err.start})") from None


def load_json(path: str | Path, kind: type[OptSchedError]) -> Any:
    """Parse the JSON file ``path``; every failure is one ``kind`` error that
    names the file (missing, unreadable, not UTF-8, malformed, a duplicate
    key, nested too deeply, an integer too long to convert)."""
    path = Path(path)
    return parse_json(read_text_file(path, kind), path, kind)


def parse_json(text: str, path: str | Path, kind: type[Exception]) -> Any:
    """Parse ``text`` (read from ``path``) as :func:`load_json` does: every
    failure is one ``kind`` error that names the file."""
    try:
        return json.loads(text, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as err:
        raise kind(f"{path}: not valid JSON (line {err.lineno}, column "
                   f"{err.colno}: {err.msg})") from None
    except _DuplicateKeyError as err:
        raise kind(f"{path}: key {err.args[0]!r} appears twice in one JSON "
                   f"object") from None
    except RecursionError:
        raise kind(f"{path}: JSON nested too deeply (the reader allows about "
                   f"{sys.getrecursionlimit()} levels; an instance needs 5)") from None
    except ValueError as err:  # e.g. an integer literal of more than 4300 digits
        raise kind(f"{path}: not valid JSON ({str(err).splitlines()[0]})") from None


T = TypeVar("T")


def load_json_as(path: str | Path, kind: type[OptSchedError],
                 convert: Callable[[Any], T]) -> T:
    """``convert`` of the JSON file ``path``: every failure, of the reading
    (:func:`load_json`) or of ``convert``, is one ``kind`` error that names
    the file."""
    data = load_json(path, kind)
    try:
        return convert(data)
    except kind as err:
        raise kind(f"{path}: {err}") from None


def read_instance(path: str | Path) -> Instance:
    """Read an instance file (JSON, or a PSPLIB ``.sm`` file)."""
    path = Path(path)
    if path.suffix.lower() == ".sm":
        from .psplib_reader import read_psplib

        return read_psplib(path)
    return load_json_as(path, InstanceError,
                        lambda data: instance_from_dict(data, name=path.stem))


def write_instance(instance: Instance, path: str | Path) -> None:
    """Write ``instance`` as JSON, atomically (:mod:`opt_sched.files`)."""
    atomic_write_text(path, json.dumps(instance_to_dict(instance), indent=1) + "\n")


# -- schedules -------------------------------------------------------------
_SCHEDULE_KEYS = {"instance", "method", "jobs", "packs", "info", "execution",
                  "execution_record"}
_JOB_SCHEDULE_KEYS = {"id", "partition", "compute_starts", "io_starts"}
_JOB_SCHEDULE_OPTIONAL = {"compute_ends", "io_ends", "machines", "killed_at"}
_MACHINE_LIMIT = 2 ** 63


def _float_list(where: str, value: object) -> tuple[float, ...]:
    if not isinstance(value, list):
        raise ScheduleFormatError(f"{where} must be a list of numbers")
    out = []
    for j, x in enumerate(value):
        if (isinstance(x, bool) or not isinstance(x, (int, float))
                or not math.isfinite(x)):
            raise ScheduleFormatError(f"{where}[{j}]={x!r} is not a finite number")
        out.append(float(x))
    return tuple(out)


def schedule_from_dict(data: object) -> Schedule:
    """Build a :class:`Schedule` from parsed JSON (shape not yet checked)."""
    if not isinstance(data, Mapping):
        raise ScheduleFormatError("schedule: expected an object")
    unknown = sorted(set(data) - _SCHEDULE_KEYS)
    if unknown:
        raise ScheduleFormatError(f"schedule: unknown key {unknown[0]!r}")
    if "jobs" not in data or not isinstance(data["jobs"], list):
        raise ScheduleFormatError("schedule: missing field 'jobs' (a list)")
    jobs = []
    for i, entry in enumerate(data["jobs"]):
        if not isinstance(entry, Mapping):
            raise ScheduleFormatError(f"schedule: jobs[{i}] is not an object")
        bad = sorted(set(entry) - _JOB_SCHEDULE_KEYS - _JOB_SCHEDULE_OPTIONAL)
        if bad:
            raise ScheduleFormatError(f"schedule: jobs[{i}]: unknown key {bad[0]!r}")
        for key in _JOB_SCHEDULE_KEYS:
            if key not in entry:
                raise ScheduleFormatError(f"schedule: jobs[{i}]: missing field {key!r}")
        job_id = entry["id"]
        part = entry["partition"]
        if isinstance(part, bool) or not isinstance(part, int):
            raise ScheduleFormatError(
                f"schedule: job {job_id!r}: partition={part!r} is not an integer")
        machines = entry.get("machines")
        if isinstance(machines, str):
            try:
                machines = MachineSet.parse(machines, _MACHINE_LIMIT)
            except ValueError as err:
                raise ScheduleFormatError(f"schedule: job {job_id!r}: machines: "
                                          f"{err}") from None
        elif machines is not None:
            if not isinstance(machines, list):
                raise ScheduleFormatError(
                    f"schedule: job {job_id!r}: machines={machines!r} is not a list "
                    f"of machine numbers")
            for j, m in enumerate(machines):
                if (isinstance(m, bool) or not isinstance(m, int)
                        or not 0 <= m < _MACHINE_LIMIT):
                    raise ScheduleFormatError(
                        f"schedule: job {job_id!r}: machines[{j}]={m!r} is not a "
                        f"machine number (an integer in [0, 2**63))")
            machines = tuple(machines)
        killed_at = entry.get("killed_at")
        if killed_at is not None and (
                isinstance(killed_at, bool) or not isinstance(killed_at, (int, float))
                or not math.isfinite(killed_at)):
            raise ScheduleFormatError(
                f"schedule: job {job_id!r}: killed_at={killed_at!r} is not a finite "
                f"number")
        jobs.append(JobSchedule(
            str(job_id), part,
            _float_list(f"schedule: job {job_id!r}: compute_starts",
                        entry["compute_starts"]),
            _float_list(f"schedule: job {job_id!r}: io_starts", entry["io_starts"]),
            *(_float_list(f"schedule: job {job_id!r}: {key}", entry[key])
              if key in entry else None for key in ("compute_ends", "io_ends")),
            machines=machines,
            killed_at=None if killed_at is None else float(killed_at)))
    packs = data.get("packs")
    if packs is not None:
        if not isinstance(packs, list) or not all(
                isinstance(part, list) and all(
                    isinstance(p, list) and all(isinstance(x, str) for x in p)
                    for p in part) for part in packs):
            raise ScheduleFormatError(
                "schedule: packs must be a list (one per partition) of lists of "
                "job-id lists")
        packs = tuple(tuple(tuple(p) for p in part) for part in packs)
    info = data.get("info", {})
    execution = data.get("execution", "exclusive")
    if not isinstance(execution, str):
        raise ScheduleFormatError(f"schedule: execution={execution!r} is not a "
                                  f"model name")
    record = data.get("execution_record")
    if record is not None and not isinstance(record, Mapping):
        raise ScheduleFormatError("schedule: execution_record must be an object")
    return Schedule(tuple(jobs), packs=packs, method=str(data.get("method", "")),
                    info=dict(info) if isinstance(info, Mapping) else {},
                    execution=execution,
                    execution_record=None if record is None else dict(record))


def _jsonable(value: Any) -> Any:
    """``value`` with its numpy arrays as lists (an execution record keeps
    large arrays, e.g. the rate levels of ``shared``, as numpy until the
    schedule is written)."""
    if hasattr(value, "tolist") and hasattr(value, "shape"):
        return value.tolist()
    if isinstance(value, Mapping):
        return {key: _jsonable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(item) for item in value]
    return value


def schedule_to_dict(schedule: Schedule, instance: Instance | None = None
                     ) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if instance is not None:
        out["instance"] = instance.name
    if schedule.method:
        out["method"] = schedule.method
    out["jobs"] = [{"id": js.id, "partition": js.partition,
                    "compute_starts": [_number(x) for x in js.compute_starts],
                    "io_starts": [_number(x) for x in js.io_starts],
                    **{key: [_number(x) for x in getattr(js, key)]
                       for key in ("compute_ends", "io_ends")
                       if getattr(js, key) is not None},
                    **({"machines": _machines(js.machines)}
                       if js.machines is not None else {}),
                    **({"killed_at": js.killed_at} if js.killed_at is not None
                       else {})}
                   for js in schedule.jobs]
    if schedule.execution != "exclusive":
        out["execution"] = schedule.execution
    if schedule.execution_record is not None:
        out["execution_record"] = _jsonable(schedule.execution_record)
    if schedule.packs is not None:
        out["packs"] = [[list(p) for p in part] for part in schedule.packs]
    if schedule.info:
        out["info"] = {k: v for k, v in schedule.info.items()
                       if isinstance(v, (str, int, float, bool)) or v is None}
    return out


def read_schedule(path: str | Path) -> Schedule:
    return load_json_as(path, ScheduleFormatError, schedule_from_dict)


def write_schedule(schedule: Schedule, path: str | Path,
                   instance: Instance | None = None) -> None:
    atomic_write_text(path, json.dumps(schedule_to_dict(schedule, instance)) + "\n")
