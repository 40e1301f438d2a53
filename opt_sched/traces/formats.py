"""The trace formats: a registry, detection by name or content, and the reader.

:data:`TRACE_FORMATS` maps ``--format`` names to
:class:`~opt_sched.traces.reading.TraceFormat` entries: ``swf`` (Parallel
Workloads Archive), ``batsim`` (Batsim JSON workloads), ``sacct`` (Slurm
``sacct --parsable2`` output), ``pbs`` (PBS/Torque accounting logs). A new
format is one module with ``sniff(path, head)`` and ``read(path, platform,
reading)``, and one entry here or a plug-in in the ``opt_sched.trace_formats``
entry-point group (:mod:`opt_sched.plugins`). The modules are imported on
first use.

Detection (:func:`detect_format`): the first format whose ``suffixes`` end
the file name (case-insensitive) decides; else the first whose ``sniff``
accepts the first :data:`HEAD_BYTES` of the text (gunzipped when the file
starts with the gzip magic), in the order ``sacct``, ``pbs``, ``batsim``,
``swf``, then the plug-ins. Nothing matches: one error naming the file and
listing the formats.
"""

from __future__ import annotations

import gzip
import importlib
import re
import zlib
from collections.abc import Callable, Iterable, MutableMapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import OptionError, TraceError
from ..plugins import PluginMapping, check_named
from .reading import TraceFormat, TraceReading

if TYPE_CHECKING:
    from .skips import SkipSummary
    from .trace import Trace

__all__ = ["BUILTIN_FORMATS", "HEAD_BYTES", "TRACE_FORMATS", "detect_format",
           "format_names", "read_trace"]

HEAD_BYTES = 8192
"""How much of a file (gunzipped) the ``sniff`` functions see."""

_NUMBER = r"-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?"
_SWF_JOB = re.compile(rf"^\s*{_NUMBER}(?:\s+{_NUMBER})+\s*$")


def _lazy(target: str) -> Callable[..., Any]:
    """``module:function``, imported when first called."""
    module, name = target.split(":")

    def call(*args: Any, **kwargs: Any) -> Any:
        return getattr(importlib.import_module(module), name)(*args, **kwargs)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"{target}, imported on first use."
    return call


def _sniff_swf(path: Path, head: str) -> bool:
    """A ``;`` header line or a line of numbers first."""
    first = next((line for line in head.splitlines() if line.strip()), "")
    return first.lstrip().startswith(";") or _SWF_JOB.match(first) is not None


def _sniff_batsim(path: Path, head: str) -> bool:
    """A JSON object with a ``jobs`` key near the top."""
    return head.lstrip().startswith("{") and '"jobs"' in head


def _read_swf(path: Path, platform: Path | None, reading: TraceReading
              ) -> tuple[Trace, SkipSummary]:
    from .swf_reader import read_swf

    return read_swf(path, reading=reading)


def _read_batsim(path: Path, platform: Path | None, reading: TraceReading
                 ) -> tuple[Trace, SkipSummary]:
    from .batsim_workload import read_batsim

    return read_batsim(path, platform, reading)


def _check(name: str, value: Any) -> None:
    check_named(value, TraceFormat, name)


TRACE_FORMATS: MutableMapping[str, TraceFormat] = PluginMapping("trace_formats", {
    entry.name: entry for entry in (
        TraceFormat("sacct", "Slurm sacct --parsable2 output (a JobID|... header)",
                    _lazy("opt_sched.traces.slurm_sacct:sniff"),
                    _lazy("opt_sched.traces.slurm_sacct:read_sacct"),
                    (".sacct",)),
        TraceFormat("pbs", "PBS/Torque accounting log (date;type;id;key=value ...)",
                    _lazy("opt_sched.traces.pbs_accounting:sniff"),
                    _lazy("opt_sched.traces.pbs_accounting:read_pbs"),
                    (".pbs",)),
        TraceFormat("batsim", "Batsim JSON workload (jobs and delay profiles)",
                    _sniff_batsim, _read_batsim, (".json", ".json.gz")),
        TraceFormat("swf", "Standard Workload Format (Parallel Workloads Archive)",
                    _sniff_swf, _read_swf, (".swf", ".swf.gz")),
    )}, _check)
"""``--format`` name -> :class:`TraceFormat` (plug-ins: the
``opt_sched.trace_formats`` entry-point group)."""

BUILTIN_FORMATS: tuple[str, ...] = ("sacct", "pbs", "batsim", "swf")
"""The formats of opt_sched itself, in detection order."""


def format_names() -> list[str]:
    """The registered format names (plug-ins included), for ``--format``."""
    return list(TRACE_FORMATS)


def _head(path: Path) -> str:
    """The first :data:`HEAD_BYTES` of the text, gunzipped when gzipped;
    ``""`` when unreadable (the reader then says why)."""
    try:
        with path.open("rb") as handle:
            raw = handle.read(HEAD_BYTES)
        if raw[:2] == b"\x1f\x8b":
            with gzip.open(path, "rb") as handle:
                raw = handle.read(HEAD_BYTES)
    except (OSError, EOFError, zlib.error):
        return ""
    return raw.decode("utf-8", errors="replace")


def detect_format(path: str | Path) -> TraceFormat:
    """The format of ``path``: by its name's ending, else by its content
    (module docstring).

    Raises
    ------
    TraceError
        No format recognises the file (one line naming it and the formats).
    """
    path = Path(path)

    def match(names: Iterable[str], head: str) -> TraceFormat | None:
        formats = [TRACE_FORMATS[key] for key in names]
        lower = path.name.lower()
        for entry in formats:
            if any(lower.endswith(s.lower()) for s in entry.suffixes):
                return entry
        for entry in formats if head.strip() else ():
            if entry.sniff(path, head):
                return entry
        return None

    if not path.is_file():
        raise TraceError(f"{path.name}: no such file")
    # the built-in formats first: listing the registry scans the plug-ins
    found = match(BUILTIN_FORMATS, head := _head(path))
    if found is None:
        found = match([k for k in TRACE_FORMATS if k not in BUILTIN_FORMATS], head)
    if found is not None:
        return found
    formats = [TRACE_FORMATS[key] for key in TRACE_FORMATS]
    raise TraceError(f"{path.name}: not a trace format opt_sched reads (formats: "
                     f"{', '.join(entry.name for entry in formats)}; give --format "
                     f"if the file is one of them)")


def read_trace(path: str | Path, platform: str | Path | None = None,
               reading: TraceReading | None = None, format: str | None = None
               ) -> tuple[Trace, SkipSummary]:
    """Read any trace: ``format`` (a :data:`TRACE_FORMATS` name) or the
    detected one, under the reading rules ``reading`` (default
    ``TraceReading()``).

    Raises
    ------
    OptionError
        ``format`` is not a registered name.
    TraceError
        The file is not recognised, or its format's reader refuses it.
    """
    reading = TraceReading() if reading is None else reading
    if format is None:
        entry = detect_format(path)
    else:
        try:
            entry = TRACE_FORMATS[format]
        except KeyError:
            raise OptionError(f"format={format!r} is unknown (choose from "
                              f"{', '.join(TRACE_FORMATS)})") from None
    return entry.read(Path(path), None if platform is None else Path(platform),
                      reading)
