"""Read a Batsim JSON workload into a :class:`Trace`.

A workload has ``jobs`` (``id``, ``subtime``, ``walltime``, ``res``,
``profile``, optional ``user``) and ``profiles``. Only ``delay`` profiles can
be replayed: their ``delay`` is the job's run time. Job ids are kept as
strings exactly as written (``424242`` -> ``"424242"``, ``"w0!1"`` stays
``"w0!1"``), so :func:`~opt_sched.traces.out_jobs.write_out_jobs` writes
Batsim's own ids back.

Machine count (:attr:`TraceReading.machines <opt_sched.traces.reading.TraceReading>`),
as Batsim decides it:

- ``"platform"`` (the default, Batsim's default): the compute hosts of
  ``platform`` (:func:`~opt_sched.traces.batsim_platform.count_compute_hosts`),
  whatever the workload's ``nb_res``. Batsim 4 run without
  ``--mmax-workload`` on ``cluster512.xml`` computes on all 512 hosts of a
  workload whose ``nb_res`` is 32.
- ``"workload"`` (Batsim's ``--mmax-workload``, CLI ``--mmax-workload``): at
  most the workload's ``nb_res`` machines, the first ``nb_res`` compute
  hosts. ``batsim-medium_late`` was run this way: its platform has 128
  compute hosts, its ``out_schedule.csv`` says 32 computing machines
  (``nb_res``), and Batsim's v1.1 tutorial runs this platform
  (``energy_platform_homogeneous_no_net_128.xml``) with ``--mmax-workload``.

Without a platform, the machines are ``nb_res`` (either reading), else the
widest job (the conversion decides). The summary notes when ``nb_res`` and
the platform disagree, and what was used. A job's
``group`` is its profile name (the application, for history-based
estimates). The same skip
reasons, estimate rules and hygiene filters as SWF apply: the workload is
read into SWF rows (:func:`batsim_records`) and goes through the same
reading rules (:func:`~opt_sched.traces.rules.records_to_trace`,
``instances/traces.md``); a Batsim ``walltime`` of ``-1`` means "none" and
the estimate becomes the run time.

The limits of the data model (:mod:`opt_sched.limits`) apply: ``subtime``,
``walltime`` and ``delay`` within ``MAX_VALUE`` and not subnormal, ``res``
at most ``MAX_COUNT``, the machine count (and, without one, the widest job)
at most ``MAX_MACHINES``; a job's ``profile`` must be a name (a string).
The JSON is parsed as instance files are (:func:`opt_sched.json_files.parse_json`:
a duplicate key, deep nesting or a huge integer is one error line).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import OptionError, TraceError
from ..instance import _shown
from ..json_files import parse_json
from ..limits import MAX_COUNT, MAX_MACHINES, MAX_VALUE, MIN_NORMAL
from .batsim_platform import count_compute_hosts
from .reading import TraceReading, TraceRecords
from .rules import records_to_trace
from .skips import SkipCounter, SkipSummary
from .swf_format import ALLOCATED, JOB, REQ_PROCS, REQ_TIME, RUN, STATUS, SUBMIT
from .swf_reader import read_text, trace_name
from .trace import Trace

__all__ = ["batsim_records", "read_batsim"]


def _number(label: str, where: str, key: str, value: Any) -> float:
    """``value`` as a float within the limits of the data model
    (:mod:`opt_sched.limits`): finite, ``|value| <= MAX_VALUE``, not
    subnormal. Negative values in range pass (the skip rules count them)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (
            isinstance(value, float) and math.isnan(value)):
        raise TraceError(f"{label}: {where}: {key}={_shown(value)} is not a finite "
                         f"number")
    if value > MAX_VALUE:
        raise TraceError(f"{label}: {where}: {key}={_shown(value)} exceeds the limit "
                         f"{MAX_VALUE:g}")
    if value < -MAX_VALUE:
        raise TraceError(f"{label}: {where}: {key}={_shown(value)} is below the "
                         f"limit {-MAX_VALUE:g}")
    if value != 0 and abs(value) < MIN_NORMAL:
        raise TraceError(f"{label}: {where}: {key}={value!r} is below the limit "
                         f"{MIN_NORMAL:g} (the smallest non-zero value allowed)")
    return float(value)


def _processors(label: str, where: str, value: Any) -> int:
    """``res`` as an integer (``4.0`` is 4) of at most ``MAX_COUNT``."""
    if isinstance(value, float) and value.is_integer() and abs(value) <= MAX_COUNT:
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (
            isinstance(value, float) and not value.is_integer()):
        raise TraceError(f"{label}: {where}: res={_shown(value)} is not an integer")
    if value > MAX_COUNT:
        raise TraceError(f"{label}: {where}: res={_shown(value)} exceeds the limit "
                         f"{MAX_COUNT:,}")
    return int(value)


def _machine_count(label: str, nb_res: int | None, platform: str | Path | None,
                   machines: str, counter: SkipCounter) -> int | None:
    """The machines of the workload (:data:`~opt_sched.traces.reading.MACHINE_COUNTS`):
    at most ``nb_res`` (``auto`` when stated, ``workload``), or the platform's
    compute hosts (``platform``, or ``auto`` without ``nb_res``); at most
    ``MAX_MACHINES``."""
    if nb_res is not None and (isinstance(nb_res, bool) or not isinstance(nb_res, int)
                               or nb_res < 1):
        raise TraceError(f"{label}: nb_res={_shown(nb_res)} is not a positive integer")
    if machines == "workload" and nb_res is None:
        raise OptionError(f"mmax-workload: {label} has no nb_res (the machine "
                          f"limit --mmax-workload reads)")
    machine = nb_res
    source = f"{label}: nb_res"
    if platform is not None:
        name = Path(platform).name
        hosts = count_compute_hosts(platform)
        machine, source = hosts, f"{name}: compute hosts"
        if machines != "platform" and nb_res is not None and nb_res < hosts:
            machine, source = nb_res, f"{label}: nb_res"
            why = "--mmax-workload" if machines == "workload" else (
                "the default; --all-hosts for all of them, Batsim's own default")
            counter.notes.append(f"machines: {nb_res} (the workload's nb_res, "
                                 f"{why}); {name} has {hosts} compute hosts")
        elif nb_res is not None and nb_res != hosts:
            counter.notes.append(
                f"machines: {hosts}, the compute hosts of {name} (Batsim's "
                f"default, --all-hosts); the workload's nb_res is {nb_res}"
                + (" (the default limits the machines to it)"
                   if nb_res < hosts else " (more than the platform has)"))
    if machine is not None and machine > MAX_MACHINES:
        raise TraceError(f"{source}={machine:,} exceeds the limit {MAX_MACHINES:,} "
                         f"machines")
    return machine


def _profile_name(label: str, where: str, value: Any) -> str:
    """A job's ``profile``: the name (a string) of an entry of ``profiles``."""
    if not isinstance(value, str):
        raise TraceError(f"{label}: {where}: profile={_shown(value)} is not a "
                         f"profile name (a string)")
    return value


def _delay_table(label: str, profiles: Any) -> dict[str, float | str]:
    """Profile name -> its delay, or the type name of a non-delay profile."""
    if not isinstance(profiles, Mapping):
        raise TraceError(f"{label}: profiles must be an object (name -> profile)")
    table: dict[str, float | str] = {}
    for name, profile in profiles.items():
        if not isinstance(profile, Mapping):
            raise TraceError(f"{label}: profile {name!r} is not an object")
        kind = profile.get("type")
        if kind != "delay":
            table[name] = str(kind)
            continue
        if "delay" not in profile:
            raise TraceError(f"{label}: profile {name!r}: missing field 'delay'")
        table[name] = _number(label, f"profile {name!r}", "delay", profile["delay"])
    return table


def batsim_records(path: str | Path, platform: str | Path | None = None,
                   reading: TraceReading | None = None) -> TraceRecords:
    """A Batsim workload as :class:`~opt_sched.traces.reading.TraceRecords`:
    one SWF row per job (``subtime`` -> submit, the profile's ``delay`` -> run
    time, ``res`` -> allocated and requested processors, ``walltime`` ->
    requested time, status 1), its id, user and profile kept as written;
    ``lines`` are the 0-based indices in ``jobs``. The machine count follows
    ``reading.machines`` (module docstring).

    Raises
    ------
    TraceError
        Malformed JSON, a missing or non-numeric field (the message names the
        job and the field), a job naming an unknown profile, a duplicate id,
        or a profile whose type is not ``delay`` (named).
    """
    reading = TraceReading() if reading is None else reading
    path = Path(path)
    label = path.name
    data = parse_json(read_text(path), label, TraceError)
    if not isinstance(data, Mapping):
        raise TraceError(f"{label}: expected an object with 'jobs' and 'profiles'")
    for key in ("jobs", "profiles"):
        if key not in data:
            raise TraceError(f"{label}: missing field {key!r}")
    jobs = data["jobs"]
    if not isinstance(jobs, list):
        raise TraceError(f"{label}: jobs must be a list")
    delays = _delay_table(label, data["profiles"])
    counter = SkipCounter(label, unit="job")
    machine = _machine_count(label, data.get("nb_res"), platform,
                             reading.machines, counter)

    fields = np.full((len(jobs), 18), -1.0)
    ids: list[str] = []
    users: list[str | None] = []
    profiles: list[str] = []
    seen: dict[str, int] = {}
    for index, job in enumerate(jobs):
        if not isinstance(job, Mapping):
            raise TraceError(f"{label}: jobs[{index}] is not an object")
        where = f"jobs[{index}]" + (f" (id {_shown(job['id'])})" if "id" in job else "")
        for key in ("id", "subtime", "res", "profile"):
            if key not in job:
                raise TraceError(f"{label}: {where}: missing field {key!r}")
        job_id = job["id"]
        if isinstance(job_id, bool) or not isinstance(job_id, (int, str)) or \
                job_id == "":
            raise TraceError(f"{label}: {where}: id={_shown(job_id)} is not a "
                             f"string or an integer")
        job_id = str(job_id)
        if job_id in seen:
            raise TraceError(f"{label}: {where}: id {job_id!r} repeats jobs["
                             f"{seen[job_id]}]")
        seen[job_id] = index
        submit = _number(label, where, "subtime", job["subtime"])
        walltime = _number(label, where, "walltime", job.get("walltime", -1))
        res = _processors(label, where, job["res"])
        profile = _profile_name(label, where, job["profile"])
        if profile not in delays:
            raise TraceError(f"{label}: {where}: profile {profile!r} is not defined")
        delay = delays[profile]
        if isinstance(delay, str):
            raise TraceError(f"{label}: {where}: profile {profile!r} has type "
                             f"{delay!r}; only 'delay' profiles can be replayed")
        if machine is None and res > MAX_MACHINES and delay > 0:
            raise TraceError(f"{label}: {where}: res={res:,} exceeds the limit "
                             f"{MAX_MACHINES:,} machines (no nb_res and no platform, "
                             f"so the machine would be sized to this job)")
        row = fields[index]
        row[JOB], row[SUBMIT], row[RUN] = index, submit, delay
        row[ALLOCATED] = row[REQ_PROCS] = res
        row[REQ_TIME], row[STATUS] = walltime, 1
        user = job.get("user")
        ids.append(job_id)
        users.append(None if user is None else str(user))
        profiles.append(profile)
    header = {key: str(value) for key, value in data.items()
              if key not in ("jobs", "profiles")}
    return TraceRecords(label, trace_name(path), "batsim", fields,
                        np.arange(len(jobs), dtype=np.int64), header, machine,
                        tuple(ids), tuple(users), tuple(profiles),
                        notes=tuple(counter.notes), profiles=tuple(profiles),
                        unit="job")


def read_batsim(path: str | Path, platform: str | Path | None = None,
                reading: TraceReading | None = None, *,
                overrun: str | None = None) -> tuple[Trace, SkipSummary]:
    """Read a Batsim workload (and optionally its platform): its records
    (:func:`batsim_records`) under the reading rules of every format
    (:func:`~opt_sched.traces.rules.records_to_trace`: the skips, the
    estimates, the hygiene filters, each counted).

    Parameters
    ----------
    path
        The workload JSON (plain or gzipped).
    platform
        The SimGrid platform XML; its compute hosts give the machine count
        (see the module docstring).
    reading
        The reading rules (:class:`~opt_sched.traces.reading.TraceReading`);
        default ``TraceReading()``.
    overrun
        As in :func:`~opt_sched.traces.swf_reader.read_swf`; given, it
        replaces ``reading.overrun``.

    Returns
    -------
    (Trace, SkipSummary)
        The jobs in submit order (ties keep file order); ``lines`` holds each
        job's index in the ``jobs`` list; ``groups`` and ``profiles`` its
        profile name.

    Raises
    ------
    TraceError
        As :func:`batsim_records`.
    """
    reading = TraceReading() if reading is None else reading
    if overrun is not None:
        if overrun not in ("extend", "keep"):
            raise OptionError(f"read_batsim: overrun={overrun!r} is unknown (choose "
                              f"from extend, keep)")
        reading = replace(reading, overrun=overrun)
    return records_to_trace(batsim_records(path, platform, reading), reading)
