"""Plug-ins from outside the package: Python entry points, one group per registry.

A user's own package adds a scheduler, an I/O policy, a method, an
execution model or an exact model by declaring an entry point in its
``pyproject.toml``; nothing in opt_sched is edited::

    [project.entry-points."opt_sched.schedulers"]
    largest-first = "myplug.scheduler:LargestFirst"

The entry point's *name* is the registry key (``largest-first``); the
object it points to is what gets registered (:data:`GROUPS` says what each
group expects). ``docs/plugins.md`` has a complete example.

When
----
A group is loaded **once per process, on demand**: the first time its
registry is asked for a name it does not hold, or is listed (the CLI's
``choices``, ``compare``'s ``/*``). Importing opt_sched scans nothing, so
``opt-sched --help`` pays nothing, and a built-in name (``easy``,
``fifo``) never triggers a scan. Campaign workers (local processes, Dask)
are new processes: each loads the group on its own first lookup, from its
own ``sys.path``, so a plug-in installed where the workers run reaches them
with no registration by the driver.

Cost: one ``importlib.metadata.entry_points()`` call, made once per
process for every group, reads the ``entry_points.txt`` of every installed
distribution; importing
:mod:`importlib.metadata` itself is the larger part (measured in
``docs/plugins.md``).

Errors
------
A plug-in that fails to import, or whose object is not of the kind its
group expects (or whose name is taken), raises :class:`PluginError`, a
:class:`~opt_sched.errors.UserError` (exit status 2): one line naming the
entry point, its distribution and the group. The error is kept: every
later lookup that would load the group raises it again.
"""

from __future__ import annotations

import functools
import sys
import threading
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from dataclasses import dataclass
from typing import Any, TypeVar

from .errors import UserError

__all__ = ["GROUPS", "Group", "PluginError", "PluginMapping", "build_registered",
           "check_named", "describe", "load_group", "plugin_error"]


@dataclass(frozen=True)
class Group:
    """One entry-point group: the registry it feeds and what it expects.

    Attributes
    ----------
    registry
        The short key used in code (``"schedulers"``).
    name
        The entry-point group (``"opt_sched.schedulers"``).
    expects
        What the object of each entry point must be (one line).
    """

    registry: str
    name: str
    expects: str


GROUPS: dict[str, Group] = {g.registry: g for g in (
    Group("schedulers", "opt_sched.schedulers",
          "a Scheduler class or factory: keyword options -> a fresh "
          "opt_sched.scheduling.base.Scheduler"),
    Group("queue_orders", "opt_sched.queue_orders",
          "a queue-order factory: (**options, arg=ARG for NAME:ARG) -> a fresh "
          "opt_sched.scheduling.queue_order.QueueOrder"),
    Group("io_policies", "opt_sched.io_policies",
          "an opt_sched.simulation.policies.Policy whose name is the entry "
          "point's name"),
    Group("methods", "opt_sched.methods",
          "an opt_sched.methods.MethodEntry whose name is the entry point's name"),
    Group("execution_models", "opt_sched.execution_models",
          "an ExecutionModel class or factory: (policy=..., **options) -> a "
          "fresh opt_sched.execution.base.ExecutionModel"),
    Group("io_rules", "opt_sched.io_rules",
          "an opt_sched.validation.io_rule.IoRule object whose execution is the "
          "entry point's name: the validator's side of a plug-in execution model"),
    Group("exact_models", "opt_sched.exact_models",
          "an opt_sched.exact.registry.ExactModel whose solvers include the "
          "entry point's name"),
    Group("generators", "opt_sched.generators",
          "an opt_sched.campaign.sources.Generator whose name is the entry "
          "point's name: a seeded workload generator for campaigns"),
    Group("reports", "opt_sched.reports",
          "a campaign report: write(spec, rows, out) -> list[Path] "
          "(opt_sched.campaign.reports)"),
    Group("experiments", "opt_sched.experiments",
          "an opt_sched.campaign.experiments.Experiment whose name is the entry "
          "point's name: a campaign task kind that builds and measures its own "
          "workload"),
    Group("schedule_kinds", "opt_sched.schedule_kinds",
          "an opt_sched.schedule_kinds.ScheduleKind whose name is the entry "
          "point's name: how an execution model's schedules of another shape "
          "are recognised, validated and measured"),
    Group("replay_doors", "opt_sched.replay_doors",
          "an opt_sched.cli.replay_doors.ReplayDoor whose name is the entry "
          "point's name: schedulers of another kind of workload behind "
          "opt-sched replay"),
    Group("trace_formats", "opt_sched.trace_formats",
          "an opt_sched.traces.reading.TraceFormat whose name is the entry "
          "point's name: a log format (sniff, read) for replay, convert and "
          "trace-info"),
)}
"""Registry key -> :class:`Group`, for every registry that takes plug-ins."""


class PluginError(UserError):
    """A plug-in cannot be loaded or registered (exit status 2)."""


def plugin_error(group: Group, entry: Any, why: str) -> PluginError:
    """The one-line error about entry point ``entry`` of ``group``."""
    dist = getattr(entry, "dist", None)
    where = (f"distribution {dist.name} {dist.version}" if dist is not None
             else "unknown distribution")
    text = " ".join(why.split()) or "failed"
    return PluginError(f"plug-in {entry.name!r} = {entry.value!r} ({where}, entry "
                       f"point group {group.name}): {text}")


def describe(value: object) -> str:
    """A short, stable name of a plug-in's object for an error message:
    ``module.qualname`` of a class or function, else its type."""
    name = getattr(value, "__qualname__", None)
    if isinstance(name, str):
        return f"{getattr(value, '__module__', '?')}.{name}"
    return f"a {type(value).__module__}.{type(value).__qualname__} object"


def check_named(value: object, kind: type, name: str) -> None:
    """A plug-in's object must be a ``kind`` whose ``name`` is the entry
    point's (a method entry, a policy, a generator, an experiment).

    Raises
    ------
    TypeError
        Not a ``kind``.
    ValueError
        Named otherwise.
    """
    if not isinstance(value, kind):
        raise TypeError(f"{describe(value)} is not an "
                        f"{kind.__module__}.{kind.__qualname__}")
    found = getattr(value, "name", None)
    if found != name:
        raise ValueError(f"the {kind.__name__} is named {found!r}, not {name!r}")


def _reason(err: BaseException) -> str:
    """``Type: first line`` of an exception."""
    lines = str(err).strip().splitlines()
    return f"{type(err).__name__}: {lines[0]}" if lines else type(err).__name__


_LOCK = threading.RLock()  # Dask may look up names from several threads
_STATE: dict[str, PluginError | None] = {}
"""Per registry key: ``None`` once loaded (or being loaded by this thread),
else the error its loading raised."""


def _installed_entry_points() -> Any:
    """Every installed distribution's entry points: one scan of the
    ``entry_points.txt`` files on ``sys.path`` serves every group (read
    again only if ``sys.path`` changes)."""
    return _entry_points_on(tuple(sys.path))


@functools.lru_cache(maxsize=4)
def _entry_points_on(path: tuple[str, ...]) -> Any:
    from importlib.metadata import entry_points

    return entry_points()


def load_group(registry: str, add: Callable[[str, Any], None]) -> None:
    """Load the entry points of ``GROUPS[registry]`` into their registry,
    once per process.

    For each entry point ``ep`` of the group, ``add(ep.name, ep.load())``
    registers the object; ``add`` raises :class:`TypeError`,
    :class:`ValueError` or a :class:`~opt_sched.errors.UserError` (one
    line) when the object has the wrong kind or the name is taken. Later
    calls return at once (a plug-in that imports its registry while being
    loaded sees the group as loaded); a failed load raises the same error
    again.

    Raises
    ------
    PluginError
        An entry point that does not import, or that ``add`` refuses.
    """
    with _LOCK:
        if registry in _STATE:
            error = _STATE[registry]
            if error is not None:
                raise error
            return
        _STATE[registry] = None
        group = GROUPS[registry]
        for entry in _installed_entry_points().select(group=group.name):
            try:
                value = entry.load()
            except Exception as err:  # any import-time failure of the plug-in
                error = plugin_error(group, entry, f"cannot be imported: "
                                                   f"{_reason(err)}")
                _STATE[registry] = error
                raise error from None
            try:
                add(entry.name, value)
            except (TypeError, ValueError) as err:  # UserError is a ValueError
                error = plugin_error(group, entry, str(err) or _reason(err))
                _STATE[registry] = error
                raise error from None


V = TypeVar("V")


class PluginMapping(MutableMapping[str, V]):
    """A registry ``name -> object`` that loads its group's plug-ins on
    demand: on a lookup of a name it does not hold, and before it is listed
    (iteration, ``len``). Names set in code (built-ins,
    ``register_*`` calls) never trigger a scan.

    ``check(name, value)`` raises :class:`TypeError` (one line) when a
    plug-in's object is not of the registry's kind.
    """

    def __init__(self, registry: str, entries: dict[str, V],
                 check: Callable[[str, Any], None]):
        self._registry = registry
        self._entries = dict(entries)
        self._check = check

    def load_plugins(self) -> None:
        """Load the group now (once per process)."""
        load_group(self._registry, self._add)

    def _add(self, name: str, value: Any) -> None:
        if name in self._entries:
            raise ValueError(f"the name {name!r} is already registered")
        self._check(name, value)
        self._entries[name] = value

    def __getitem__(self, name: str) -> V:
        try:
            return self._entries[name]
        except KeyError:
            self.load_plugins()
            return self._entries[name]

    def __setitem__(self, name: str, value: V) -> None:
        self._entries[name] = value

    def __delitem__(self, name: str) -> None:
        del self._entries[name]

    def __iter__(self) -> Iterator[str]:
        self.load_plugins()
        return iter(list(self._entries))

    def __len__(self) -> int:
        self.load_plugins()
        return len(self._entries)

    def __contains__(self, name: object) -> bool:
        try:
            if name in self._entries:
                return True
        except TypeError:
            return False
        self.load_plugins()
        return name in self._entries

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._registry}: {', '.join(self._entries)})"


def build_registered(registry: Mapping[str, Callable[..., Any]], what: str,
                     name: str, options: Mapping[str, Any]) -> Any:
    """``registry[name](**options)``: a fresh scheduler, execution model...

    Raises
    ------
    OptionError
        ``what={name!r} is unknown; choose one of ...`` (plug-ins included),
        or an option the factory does not take (its ``TypeError``, one line).
    """
    from .errors import OptionError

    try:
        factory = registry[name]
    except (KeyError, TypeError):
        raise OptionError(f"{what}={name!r} is unknown; choose one of "
                          f"{', '.join(sorted(registry))}") from None
    try:
        return factory(**options)
    except TypeError as err:
        raise OptionError(f"{what} {name!r}: {err}") from None
