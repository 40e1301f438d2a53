"""Write a trace as a Batsim JSON workload (``opt-sched convert --to batsim``).

The workload Batsim reads (``docs/input-workload`` of Batsim)::

    {"description": "...", "nb_res": 100,
     "jobs": [{"id": 1, "subtime": 0, "walltime": 210000, "res": 56,
               "profile": "delay_97225", "user": "1"}, ...],
     "profiles": {"delay_97225": {"type": "delay", "delay": 97225}, ...}}

Rules:

- one job per kept job of the trace, in its (submit) order; ``subtime`` is
  the submit time as read (the trace's own clock: an epoch log stays in
  epochs), ``res`` the processors ``Q_i``, ``user`` the user when known;
- ``id``: an integer when the trace's id is one written without leading
  zeros (Batsim's converters write integers), else the id as a string, so
  that :func:`~opt_sched.traces.batsim_workload.read_batsim` reads back the
  same id;
- ``walltime``: the estimate read (``e_i``), or ``-1`` (Batsim: none) when
  the log had no request (SWF field 9 unknown) -- read back, the estimate
  is then the run time again;
- ``profile``: a ``delay`` profile whose ``delay`` is the run time ``T_i``.
  A Batsim trace keeps its profile names; otherwise profiles are shared by
  the jobs of equal run time, named ``delay_<T_i>``;
- ``nb_res``: the trace's machine size, else its widest job.

Numbers are written with full precision (``repr``), integral values as
integers. The file is written atomically.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..files import atomic_write_text
from .swf_format import REQ_TIME
from .trace import Trace

__all__ = ["batsim_workload", "write_batsim"]

_MAX_EXACT = 2**53


def _number(value: float) -> int | float:
    """An integral float as an int (``0`` not ``0.0``), else the float."""
    value = float(value)
    return int(value) if value.is_integer() and abs(value) < _MAX_EXACT else value


def _job_id(text: str) -> int | str:
    """``"12"`` -> ``12``; ``"007"``, ``"w0!1"``, ``"12_3"`` stay strings."""
    digits = text.removeprefix("-")
    if digits.isascii() and digits.isdigit() and str(int(text)) == text \
            and abs(int(text)) < _MAX_EXACT:
        return int(text)
    return text


def _profiles(trace: Trace) -> tuple[list[str], dict[str, dict[str, Any]]]:
    """Each job's profile name, and the ``delay`` profiles."""
    names: list[str] = []
    profiles: dict[str, dict[str, Any]] = {}
    for k in range(len(trace)):
        delay = _number(trace.run_time[k])
        name = trace.profiles[k] if trace.format == "batsim" else None
        if name is None or profiles.get(name, {}).get("delay", delay) != delay:
            name = f"delay_{delay!r}"
        profiles.setdefault(name, {"type": "delay", "delay": delay})
        names.append(name)
    return names, profiles


def batsim_workload(trace: Trace, *, description: str | None = None
                    ) -> dict[str, Any]:
    """The workload of ``trace`` as a JSON-ready dict (module docstring)."""
    names, profiles = _profiles(trace)
    unknown_request = (trace.swf_fields[:, REQ_TIME] <= 0
                       if trace.swf_fields is not None else None)
    jobs: list[dict[str, Any]] = []
    for k in range(len(trace)):
        walltime = -1 if unknown_request is not None and unknown_request[k] else \
            _number(trace.walltime[k])
        job: dict[str, Any] = {"id": _job_id(trace.ids[k]),
                               "subtime": _number(trace.submit[k]),
                               "walltime": walltime, "res": int(trace.nodes[k]),
                               "profile": names[k]}
        if trace.users[k] is not None:
            job["user"] = trace.users[k]
        jobs.append(job)
    data: dict[str, Any] = {}
    if description:
        data["description"] = description
    data["nb_res"] = int(trace.machine_size or trace.widest or 1)
    data["jobs"] = jobs
    data["profiles"] = profiles
    return data


def _dumps(data: Mapping[str, Any]) -> str:
    """JSON with one job or profile per line (readable, diff-able)."""
    head = {k: v for k, v in data.items() if k not in ("jobs", "profiles")}
    parts = [f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in head.items()]
    jobs = ",\n".join(f"    {json.dumps(job)}" for job in data["jobs"])
    parts.append(f'  "jobs": [\n{jobs}\n  ]' if data["jobs"] else '  "jobs": []')
    profiles = ",\n".join(f"    {json.dumps(name)}: {json.dumps(p)}"
                          for name, p in data["profiles"].items())
    parts.append(f'  "profiles": {{\n{profiles}\n  }}' if data["profiles"]
                 else '  "profiles": {}')
    return "{\n" + ",\n".join(parts) + "\n}\n"


def write_batsim(path: str | Path, trace: Trace, *, description: str | None = None
                 ) -> None:
    """Write :func:`batsim_workload` to ``path`` atomically; an
    :class:`~opt_sched.errors.OutputError` if it cannot be written."""
    atomic_write_text(path, _dumps(batsim_workload(trace, description=description)))
