"""The campaign spec: a TOML file that lists the tasks and the outputs.

The format is documented in ``instances/sweep.md`` and has a JSON Schema,
``instances/schemas/sweep.schema.json``. :func:`load_spec` checks
everything the schema says, and more (generator parameters and their
types, method specs, unique group names), and raises a one-line
:class:`SpecError` that names the file, the key and the value.

Expansion into tasks
--------------------
A ``[[groups]]`` entry is a product ``instances x methods x seeds``, in that
nesting order (the first instance with every method, each with every seed,
then the next instance). An instance entry is a file path, or a generator
table whose parameters are scalars, lists or ranges ``{start, stop, step}``
(``stop`` included); lists and ranges are expanded as a product, the first
key outermost. A ``[[tasks]]`` entry is one explicit task. The task list is
the groups in order, then the explicit tasks; tasks are dispatched in that
order (put long ones first), and the same task listed twice runs once.

Execution model: ``execution`` at the top level (the default), in a group
or in a task names the model the methods run under -- a name
(``"exclusive"``, ``"shared"``) or a table ``{ model = "shared", share =
"nodes", node_rate = 0.5, eta = "1:1,4:0.8" }``
(:class:`~opt_sched.execution.ExecutionSpec`).

A group may name an *experiment* (``experiment = {name = ..., param =
value, ...}``, :mod:`.experiments`) instead of ``instances`` and
``methods``: a product of its parameter values (expanded as generator
parameters are) and the group's seeds.
"""

from __future__ import annotations

import functools
import itertools
import math
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import SpecError
from .execute import resolve_method
from .experiments import experiment_sources
from .sources import file_source, generator_source, workload_kind
from .task import EXTRA_METRICS, InstanceSource, Limits, Task

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = [
    "AGGREGATES",
    "BUILTIN_TABLES",
    "MAX_TASKS",
    "FigureSpec",
    "PivotSpec",
    "Spec",
    "load_spec",
    "parse_spec",
]

BUILTIN_TABLES = ("tasks", "methods", "failures")
"""``tasks.csv`` (one row per task), ``methods.csv`` (per group and method:
counts and means), ``failures.csv`` (the failed tasks and their errors)."""

MAX_TASKS = 100_000
"""The most tasks a spec may expand to. A larger grid is refused before it
is expanded: listing a million tasks takes minutes before anything runs,
and running them days; split such a campaign into several specs."""

AGGREGATES = ("mean", "median", "geomean", "min", "max", "count")
FIGURE_KINDS = ("line", "scatter")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


@dataclass(frozen=True)
class FigureSpec:
    """A figure: ``y`` against ``x``, one series per value of ``by``.
    ``line`` aggregates ``y`` per ``x`` with ``agg``; ``scatter`` plots every
    task. ``groups`` restricts it to some spec groups (default: all)."""

    name: str
    x: str
    y: str
    by: str = "method"
    kind: str = "line"
    agg: str = "mean"
    groups: tuple[str, ...] = ()
    logx: bool = False
    logy: bool = False


@dataclass(frozen=True)
class PivotSpec:
    """A table ``<name>.csv``: ``values`` aggregated by ``agg`` over rows
    ``index`` and columns ``columns`` (successful tasks only)."""

    name: str
    index: tuple[str, ...]
    values: str
    columns: tuple[str, ...] = ()
    agg: str = "mean"
    groups: tuple[str, ...] = ()


@dataclass(frozen=True)
class Spec:
    """A loaded campaign spec: its tasks in order and the outputs wanted."""

    name: str
    description: str
    tasks: tuple[Task, ...]
    tables: tuple[str, ...] = BUILTIN_TABLES
    reports: tuple[str, ...] = ()
    figures: tuple[FigureSpec, ...] = ()
    pivots: tuple[PivotSpec, ...] = ()
    path: str | None = None

    @property
    def groups(self) -> tuple[str, ...]:
        seen: dict[str, None] = {}
        for task in self.tasks:
            seen.setdefault(task.group, None)
        return tuple(seen)


# -- small checkers; `where` is the key path, e.g. groups[0].methods[2] ---------------
def _fail(where: str, value: Any, why: str) -> SpecError:
    return SpecError(f"{where}={value!r} {why}")


def _table(where: str, value: Any) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise _fail(where, value, "must be a table")
    return value


def _only(where: str, data: Mapping[str, Any], allowed: Sequence[str]) -> None:
    for key in data:
        if key not in allowed:
            raise _fail(f"{where}.{key}" if where else key, data[key],
                        f"is not a known key (allowed: {', '.join(allowed)})")


def _string(where: str, value: Any, *, name: bool = False) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _fail(where, value, "must be a non-empty string")
    if name and not _NAME.match(value):
        raise _fail(where, value, "must be letters, digits, '_', '.', '-'")
    return value


def _strings(where: str, value: Any, *, allowed: Sequence[str] | None = None,
             nonempty: bool = True) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or (nonempty and not value):
        raise _fail(where, value, "must be a non-empty list of strings")
    out = []
    for n, item in enumerate(value):
        text = _string(f"{where}[{n}]", item)
        if allowed is not None:
            _choice(f"{where}[{n}]", text, allowed)
        out.append(text)
    return tuple(out)


def _bool(where: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise _fail(where, value, "must be true or false")
    return value


def _range(where: str, spec: Mapping[str, Any]) -> list[int | float]:
    _only(where, spec, ("start", "stop", "step"))
    for key in ("start", "stop"):
        if key not in spec:
            raise SpecError(f"{where}.{key} is missing (a range is "
                            f"{{start, stop, step}}, stop included)")
    values = {k: spec.get(k, 1) for k in ("start", "stop", "step")}
    for key, v in values.items():
        if (isinstance(v, bool) or not isinstance(v, (int, float))
                or not math.isfinite(v)):
            raise _fail(f"{where}.{key}", v, "must be a finite number")
    start, stop, step = values["start"], values["stop"], values["step"]
    if step <= 0:
        raise _fail(f"{where}.step", step, "must be > 0")
    if stop < start:
        raise _fail(f"{where}.stop", stop, f"must be >= start={start!r}")
    count = math.floor((stop - start) / step + 1e-9) + 1
    if count > 1_000_000:
        raise _fail(where, dict(spec), "expands to more than a million values")
    # start + k * step (not repeated addition): the same floats as
    # ``0.5 + 0.25 * k``, and integers when all three are integers
    return [start + k * step for k in range(count)]


def _values(where: str, value: Any) -> list[Any]:
    """A scalar, a list, or a range table -> the list of values."""
    if isinstance(value, Mapping):
        return _range(where, value)
    if isinstance(value, list):
        if not value:
            raise _fail(where, value, "must not be empty")
        for n, item in enumerate(value):
            if isinstance(item, (Mapping, list)):
                raise _fail(f"{where}[{n}]", item, "must be a scalar")
        return list(value)
    return [value]


class _TaskCount:
    """The tasks a spec expands to so far; refuses to go past ``limit``
    before the tasks are built (:data:`MAX_TASKS`)."""

    def __init__(self, limit: int = MAX_TASKS) -> None:
        self.limit = limit
        self.total = 0

    def add(self, where: str, count: int) -> None:
        """Count ``count`` more tasks, from the spec entry ``where``.

        Raises
        ------
        SpecError
            The spec would expand to more than ``limit`` tasks.
        """
        self.total += count
        if self.total > self.limit:
            raise SpecError(f"{where} brings the spec to {self.total:,} tasks, more "
                            f"than the limit of {self.limit:,} per spec (split the "
                            f"campaign into several specs)")


def _sources(where: str, entry: Any, base: Path, *, expand: bool = True,
             count: _TaskCount | None = None, per_source: int = 1
             ) -> list[InstanceSource]:
    """The instance sources of an ``instances`` entry; with ``count``, their
    ``per_source`` tasks each are counted before the sources are built."""
    if isinstance(entry, str):
        if count is not None:
            count.add(where, per_source)
        return [file_source(_resolve(base, entry), where)]
    data = _table(where, entry)
    if "file" in data:
        _only(where, data, ("file",))
        if count is not None:
            count.add(where, per_source)
        return [file_source(_resolve(base, _string(f"{where}.file", data["file"])),
                            f"{where}.file")]
    if "generator" not in data:
        raise SpecError(f"{where}={dict(data)!r} needs 'file' or 'generator'")
    name = _string(f"{where}.generator", data["generator"])
    keys = [k for k in data if k != "generator"]
    axes = []
    for key in keys:
        if expand:
            axes.append(_values(f"{where}.{key}", data[key]))
        else:
            if isinstance(data[key], (Mapping, list)):
                raise _fail(f"{where}.{key}", data[key], "must be a scalar here")
            axes.append([data[key]])
    if count is not None:
        count.add(where, math.prod(len(axis) for axis in axes) * per_source)
    return [generator_source(name, dict(zip(keys, combo)), where)
            for combo in itertools.product(*axes)]


@functools.lru_cache(maxsize=256)
def _method_kind(method: str) -> str:
    """The kind of workload ``method`` schedules (its entry's
    :attr:`~opt_sched.methods.MethodEntry.workload`: ``"hpc"`` or
    ``"gang"``), as :func:`.sources.workload_kind` names a source's."""
    from .. import methods

    return methods.method(method).entry.workload


def _check_applies(where: str, method: str,
                   sources: Sequence[InstanceSource]) -> None:
    """Refuse ``method`` if it schedules another kind of workload than one
    of ``sources`` (a gang scheduler on an HPC instance, or the reverse):
    such a task could only fail.

    Raises
    ------
    SpecError
        One line naming the method and the first such instance.
    """
    wanted = _method_kind(method)
    other = next((s for s in sources if workload_kind(s) != wanted), None)
    if other is None:
        return
    from .. import methods

    fitting = [name for name in methods.names()
               if methods.get_entry(name).workload == workload_kind(other)]
    why = (f"does not apply: it schedules a {wanted} workload, not the "
           f"{workload_kind(other)} workload {other.label} (for it: "
           f"{', '.join(fitting) or 'no registered method'})")
    raise _fail(where, method, why)


def _execution(where: str, value: Any, default: tuple = ()) -> tuple:
    """The task field of an ``execution`` key: its identity items, or ``()``
    for plain ``exclusive``."""
    if value is None:
        return default
    from ..errors import OptionError
    from ..execution import ExecutionSpec

    if isinstance(value, tuple):  # already task items
        return value
    try:
        spec = ExecutionSpec.parse(dict(value) if isinstance(value, Mapping)
                                   else value)
    except OptionError as err:
        raise SpecError(f"{where}: {err}") from None
    if spec == ExecutionSpec():
        return ()
    return tuple(sorted(spec.identity().items()))


def _resolve(base: Path, path: str) -> Path:
    p = Path(path).expanduser()
    return p if p.is_absolute() else base / p


def _seeds(where: str, value: Any) -> list[int]:
    seeds = _values(where, value)
    for n, s in enumerate(seeds):
        if isinstance(s, bool) or not isinstance(s, int) or s < 0:
            raise _fail(f"{where}[{n}]" if len(seeds) > 1 else where, s,
                        "must be an integer >= 0")
    return seeds


def _limits(where: str, value: Any, default: Limits) -> Limits:
    data = _table(where, value)
    _only(where, data, ("time_limit",))
    limit = data.get("time_limit", default.time_limit)
    if limit is not None and (isinstance(limit, bool)
                              or not isinstance(limit, (int, float))
                              or not math.isfinite(limit) or limit <= 0):
        raise _fail(f"{where}.time_limit", limit, "must be a number > 0 (seconds)")
    return Limits(None if limit is None else float(limit))


_METHOD_CHECKED: dict[str, str] = {}


def _method(where: str, value: Any) -> str:
    text = _string(where, value).strip()
    if text not in _METHOD_CHECKED:
        try:
            resolve_method(text)
        except SpecError as err:
            raise SpecError(f"{where}: {err}") from None
        _METHOD_CHECKED[text] = text
    return text


def _tables(where: str, value: Any, allowed: Sequence[str],
            required: Sequence[str]) -> list[tuple[str, Mapping[str, Any]]]:
    """``(where[n], table)`` of a list of tables (``[[outputs.figures]]``...),
    each with only ``allowed`` keys and every ``required`` one."""
    if not isinstance(value, list):
        raise _fail(where, value, f"must be a list of tables ([[{where}]])")
    out = []
    for n, item in enumerate(value):
        w = f"{where}[{n}]"
        data = _table(w, item)
        _only(w, data, allowed)
        for key in required:
            if key not in data:
                raise SpecError(f"{w}.{key} is missing")
        out.append((w, data))
    return out


def _choice(where: str, value: Any, choices: Sequence[str]) -> Any:
    """``value``, one of ``choices``."""
    if value not in choices:
        raise _fail(where, value, f"is unknown (choose from {', '.join(choices)})")
    return value


def _figures(where: str, value: Any) -> tuple[FigureSpec, ...]:
    out = []
    for w, data in _tables(where, value, ("name", "x", "y", "by", "kind", "agg",
                                          "groups", "logx", "logy"),
                           ("name", "x", "y")):
        kind = _choice(f"{w}.kind", data.get("kind", "line"), FIGURE_KINDS)
        agg = _choice(f"{w}.agg", data.get("agg", "mean"), AGGREGATES)
        out.append(FigureSpec(
            _string(f"{w}.name", data["name"], name=True), _string(f"{w}.x", data["x"]),
            _string(f"{w}.y", data["y"]), _string(f"{w}.by", data.get("by", "method")),
            kind, agg,
            _strings(f"{w}.groups", data["groups"]) if "groups" in data else (),
            _bool(f"{w}.logx", data.get("logx", False)),
            _bool(f"{w}.logy", data.get("logy", False))))
    return tuple(out)


def _pivots(where: str, value: Any) -> tuple[PivotSpec, ...]:
    out = []
    for w, data in _tables(where, value, ("name", "index", "columns", "values", "agg",
                                          "groups"),
                           ("name", "index", "values")):
        name = _string(f"{w}.name", data["name"], name=True)
        if name in BUILTIN_TABLES:
            raise _fail(f"{w}.name", name, "is a built-in table name")
        agg = _choice(f"{w}.agg", data.get("agg", "mean"), AGGREGATES)
        out.append(PivotSpec(
            name, _strings(f"{w}.index", data["index"]),
            _string(f"{w}.values", data["values"]),
            _strings(f"{w}.columns", data["columns"]) if "columns" in data else (),
            agg, _strings(f"{w}.groups", data["groups"]) if "groups" in data else ()))
    return tuple(out)


def _experiment_group(w: str, data_g: Mapping[str, Any], names: set[str],
                      first: int, count: _TaskCount) -> list[Task]:
    """The tasks of a group that names an experiment."""
    _only(w, data_g, ("name", "experiment", "seeds"))
    if "name" not in data_g:
        raise SpecError(f"{w}.name is missing")
    gname = _string(f"{w}.name", data_g["name"], name=True)
    if gname in names:
        raise _fail(f"{w}.name", gname, "is used by another group")
    names.add(gname)
    where = f"{w}.experiment"
    table = _table(where, data_g["experiment"])
    if "name" not in table:
        raise SpecError(f"{where}.name is missing (the experiment's name)")
    name = _string(f"{where}.name", table["name"])
    keys = [k for k in table if k != "name"]
    axes = [_values(f"{where}.{k}", table[k]) for k in keys]
    seeds = _seeds(f"{w}.seeds", data_g.get("seeds", [0]))
    count.add(where, math.prod(len(axis) for axis in axes) * len(seeds))
    combos = [dict(zip(keys, combo)) for combo in itertools.product(*axes)]
    sources = experiment_sources(where, name, combos)
    return [Task(source, name, seed, Limits(), (), group=gname,
                 index=first + n * len(seeds) + s)
            for n, source in enumerate(sources) for s, seed in enumerate(seeds)]


def parse_spec(data: Mapping[str, Any], base: str | Path = ".",
               path: str | None = None, execution: Any = None) -> Spec:
    """A :class:`Spec` from the parsed TOML ``data``; relative instance
    paths are taken from ``base``; ``execution`` is the default execution
    model when the spec names none at its top level (``opt-sched sweep
    --execution``).

    Raises
    ------
    SpecError
        The first problem found, on one line naming the key and the value.
    """
    from .reports import REPORTS

    base = Path(base)
    _only("", data, ("name", "description", "limits", "execution", "groups", "tasks",
                     "outputs"))
    if "name" not in data:
        raise SpecError("name is missing (the campaign's name)")
    name = _string("name", data["name"], name=True)
    description = data.get("description", "")
    if not isinstance(description, str):
        raise _fail("description", description, "must be a string")
    limits = _limits("limits", data.get("limits", {}), Limits())
    execution = _execution("execution", data.get("execution"),
                           _execution("--execution", execution))
    groups = data.get("groups", [])
    explicit = data.get("tasks", [])
    if not isinstance(groups, list):
        raise _fail("groups", groups, "must be a list of tables ([[groups]])")
    if not isinstance(explicit, list):
        raise _fail("tasks", explicit, "must be a list of tables ([[tasks]])")
    if not groups and not explicit:
        raise SpecError("groups is missing (a spec needs [[groups]] or [[tasks]])")

    tasks: list[Task] = []
    names: set[str] = set()
    count = _TaskCount()
    for g, group in enumerate(groups):
        w = f"groups[{g}]"
        data_g = _table(w, group)
        _only(w, data_g, ("name", "instances", "methods", "seeds", "metrics", "limits",
                          "execution", "experiment"))
        if "experiment" in data_g:
            tasks.extend(_experiment_group(w, data_g, names, len(tasks), count))
            continue
        for key in ("name", "instances", "methods"):
            if key not in data_g:
                raise SpecError(f"{w}.{key} is missing")
        gname = _string(f"{w}.name", data_g["name"], name=True)
        if gname in names:
            raise _fail(f"{w}.name", gname, "is used by another group")
        names.add(gname)
        entries = data_g["instances"]
        if not isinstance(entries, list) or not entries:
            raise _fail(f"{w}.instances", entries, "must be a non-empty list")
        methods = [_method(f"{w}.methods[{n}]", m) for n, m in
                   enumerate(_strings(f"{w}.methods", data_g["methods"]))]
        seeds = _seeds(f"{w}.seeds", data_g.get("seeds", [0]))
        sources = [s for n, e in enumerate(entries)
                   for s in _sources(f"{w}.instances[{n}]", e, base, count=count,
                                     per_source=len(methods) * len(seeds))]
        for n, method in enumerate(methods):
            _check_applies(f"{w}.methods[{n}]", method, sources)
        metrics = (_strings(f"{w}.metrics", data_g["metrics"], allowed=EXTRA_METRICS,
                            nonempty=False) if "metrics" in data_g else ())
        glimits = _limits(f"{w}.limits", data_g.get("limits", {}), limits)
        gexec = _execution(f"{w}.execution", data_g.get("execution"), execution)
        for source in sources:
            for method in methods:
                for seed in seeds:
                    tasks.append(Task(source, method, seed, glimits, metrics, gexec,
                                      group=gname, index=len(tasks)))
    for t, item in enumerate(explicit):
        w = f"tasks[{t}]"
        data_t = _table(w, item)
        _only(w, data_t, ("group", "instance", "method", "seed", "metrics", "limits",
                          "execution"))
        for key in ("instance", "method"):
            if key not in data_t:
                raise SpecError(f"{w}.{key} is missing")
        gname = _string(f"{w}.group", data_t.get("group", "tasks"), name=True)
        (source,) = _sources(f"{w}.instance", data_t["instance"], base, expand=False,
                             count=count)
        method = _method(f"{w}.method", data_t["method"])
        _check_applies(f"{w}.method", method, [source])
        seed = data_t.get("seed", 0)
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise _fail(f"{w}.seed", seed, "must be an integer >= 0")
        metrics = (_strings(f"{w}.metrics", data_t["metrics"], allowed=EXTRA_METRICS,
                            nonempty=False) if "metrics" in data_t else ())
        tasks.append(Task(source, method, seed,
                          _limits(f"{w}.limits", data_t.get("limits", {}), limits),
                          metrics,
                          _execution(f"{w}.execution", data_t.get("execution"),
                                     execution),
                          group=gname, index=len(tasks)))

    outputs = _table("outputs", data.get("outputs", {}))
    _only("outputs", outputs, ("tables", "reports", "figures", "pivots"))
    tables = (_strings("outputs.tables", outputs["tables"], allowed=BUILTIN_TABLES,
                       nonempty=False) if "tables" in outputs else BUILTIN_TABLES)
    reports = (_strings("outputs.reports", outputs["reports"], allowed=tuple(REPORTS),
                        nonempty=False) if "reports" in outputs else ())
    figures = _figures("outputs.figures", outputs.get("figures", []))
    pivots = _pivots("outputs.pivots", outputs.get("pivots", []))
    return Spec(name, description, tuple(tasks), tables, reports, figures, pivots,
                path)


def load_spec(path: str | Path, execution: Any = None,
              methods: Sequence[str] | None = None) -> Spec:
    """Read and check a campaign spec file (see the module docstring);
    ``execution``: the default model (see :func:`parse_spec`); ``methods``:
    method specs that replace every method group's ``methods`` (``opt-sched
    sweep --methods``; experiment groups and explicit tasks keep theirs).

    Raises
    ------
    SpecError
        Unreadable file, bad TOML, or a bad key or value; the message is one
        line and starts with the file name.
    """
    from ..json_files import read_text_file

    p = Path(path)
    text = read_text_file(p, SpecError)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise SpecError(f"{path}: not valid TOML ({err})") from None
    if methods is not None:
        for group in data.get("groups", ()):
            if isinstance(group, dict) and "experiment" not in group:
                group["methods"] = list(methods)
    try:
        return parse_spec(data, base=p.resolve().parent, path=str(p),
                          execution=execution)
    except SpecError as err:
        raise SpecError(f"{path}: {err}") from None
