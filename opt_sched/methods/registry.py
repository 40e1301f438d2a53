"""The method registry: spec strings to runnable, capability-checked methods.

Two tables, both keyed by name:

- **methods** (:class:`MethodEntry`): the first call of a spec, e.g.
  ``make-pack``, ``first-fit``, ``one-pack``, ``fcfs``, ``easy``,
  ``conservative``...;
- **stages** (:class:`StageEntry`): the ``+ call`` parts, each of a *kind*
  (today one kind, ``allocation``: ``lpt``, which places packs on I/O
  nodes).

:func:`method` parses a spec (:mod:`.spec`) and resolves it against the
tables into a :class:`Method`: every parameter read and checked, defaults
filled in, the stage slots the entry declares filled with the default stage
of their kind, the policy checked against
:func:`opt_sched.simulation.policies.names` (``fifo`` when omitted). Its
canonical text, ``str(method)``, parses back to an equal method.

A :class:`Method` says whether it runs on an instance
(:meth:`Method.supports`: ``None`` or the reason), builds the plan
(:meth:`Method.plan`) and runs it through the simulator
(:meth:`Method.run`). Callers validate the schedule.

Registering from outside the package::

    from opt_sched import methods
    methods.register(methods.MethodEntry(
        name="my-heuristic", summary="...", build=my_build,
        problems=("hpc-io",), defaults=("my-heuristic/fifo",)))

``build(instance, method, seed)`` returns a plan for
:func:`~opt_sched.simulation.simulate` (run under ``method.policy``) or a
finished :class:`~opt_sched.schedule.Schedule`; ``supports(instance,
method)`` returns ``None`` or a one-line reason.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..errors import OptionError, SpecError
from ..instance import Instance
from ..plugins import check_named, load_group
from .entries import (
    DEFAULT_POLICY,
    BoundStage,
    Method,
    MethodEntry,
    Skipped,
    StageEntry,
    check_policy,
    read_args,
)
from .entries import policy_names as _policy_names
from .params import Param
from .spec import (
    EVERY_POLICY,
    Call,
    Spec,
    is_name,
    parse_spec,
    spec_error,
    split_specs,
)

__all__ = [
    "DEFAULT_POLICY",
    "BoundStage",
    "Method",
    "MethodEntry",
    "Skipped",
    "StageEntry",
    "applicable",
    "default_specs",
    "describe",
    "expand",
    "get_entry",
    "method",
    "names",
    "register",
    "register_stage",
    "stage_names",
    "unregister",
    "unregister_stage",
    "warm_start_specs",
]

# -- the tables ----------------------------------------------------------------------
_METHODS: dict[str, MethodEntry] = {}
_STAGES: dict[str, StageEntry] = {}
_BUILTIN: set[tuple[str, str]] = set()  # ("method" | "stage", name)


def _check_params(owner: str, params: tuple[Param, ...]) -> None:
    seen = set()
    for param in params:
        if not isinstance(param, Param):
            raise SpecError(f"{owner}: params must be Param records, got {param!r}")
        if param.name in seen:
            raise SpecError(f"{owner}: parameter {param.name} is declared twice")
        seen.add(param.name)


def register(entry: MethodEntry, *, replace: bool = False,
             _builtin: bool = False) -> MethodEntry:
    """Add a method to the registry (from anywhere; see the module docstring).

    Its :attr:`~MethodEntry.defaults` and :attr:`~MethodEntry.warm_starts`
    are resolved at once, so a bad entry fails here.

    Raises
    ------
    SpecError
        Bad name, a name already registered (unless ``replace``), bad
        parameters, or a default spec that does not resolve.
    """
    if not isinstance(entry, MethodEntry):
        raise SpecError(f"register: {entry!r} is not a MethodEntry")
    if not is_name(entry.name):
        raise SpecError(f"register: name={entry.name!r} is not a method name "
                        f"(lowercase letters and digits, words joined by '-')")
    if entry.name in _METHODS and not replace:
        raise SpecError(f"register: method {entry.name!r} is already registered")
    if ("method", entry.name) in _BUILTIN and not _builtin:
        raise SpecError(f"register: method {entry.name!r} is built in")
    _check_params(entry.name, entry.params)
    for kind in entry.stages:
        if not any(s.kind == kind for s in _STAGES.values()):
            raise SpecError(f"register: {entry.name}: no stage of kind {kind!r} is "
                            f"registered")
    previous = _METHODS.get(entry.name)
    _METHODS[entry.name] = entry
    try:
        for text in (*entry.defaults, *entry.warm_starts):
            _check_resolves(text)
    except SpecError:
        if previous is None:
            del _METHODS[entry.name]
        else:
            _METHODS[entry.name] = previous
        raise
    if _builtin:
        _BUILTIN.add(("method", entry.name))
    return entry


def _check_resolves(texts: str) -> None:
    """Every spec of ``texts`` resolves (:func:`expand`'s check), ``/*``
    checked under :data:`DEFAULT_POLICY` alone: registering reads no list
    of policies, so importing the catalogue loads no I/O policy plug-in."""
    for text in split_specs(texts):
        spec = parse_spec(text)
        if spec.policy == EVERY_POLICY:
            spec = Spec(spec.calls, DEFAULT_POLICY)
        _resolve(spec, text)


def unregister(name: str) -> None:
    """Remove a method registered from outside (built-ins stay).

    Raises
    ------
    OptionError
        ``name`` is unknown or built in.
    """
    if ("method", name) in _BUILTIN:
        raise OptionError(f"unregister: method {name!r} is built in")
    if name not in _METHODS:
        raise OptionError(f"unregister: method {name!r} is not registered")
    del _METHODS[name]


def register_stage(entry: StageEntry, *, replace: bool = False,
                   _builtin: bool = False) -> StageEntry:
    """Add a stage (see :class:`StageEntry`); same rules as :func:`register`."""
    if not isinstance(entry, StageEntry):
        raise SpecError(f"register_stage: {entry!r} is not a StageEntry")
    if not is_name(entry.name):
        raise SpecError(f"register_stage: name={entry.name!r} is not a stage name")
    if entry.name in _STAGES and not replace:
        raise SpecError(f"register_stage: stage {entry.name!r} is already registered")
    if ("stage", entry.name) in _BUILTIN and not _builtin:
        raise SpecError(f"register_stage: stage {entry.name!r} is built in")
    _check_params(entry.name, entry.params)
    _STAGES[entry.name] = entry
    if _builtin:
        _BUILTIN.add(("stage", entry.name))
    return entry


def unregister_stage(name: str) -> None:
    """Remove a stage registered from outside (built-ins stay)."""
    if ("stage", name) in _BUILTIN:
        raise OptionError(f"unregister_stage: stage {name!r} is built in")
    if name not in _STAGES:
        raise OptionError(f"unregister_stage: stage {name!r} is not registered")
    del _STAGES[name]


# -- plug-ins and schedulers -------------------------------------------------------
def _add_plugin(name: str, entry: object) -> None:
    """Register the :class:`MethodEntry` of plug-in ``name``."""
    check_named(entry, MethodEntry, name)
    register(entry)


def _load_plugins() -> None:
    """The ``opt_sched.methods`` plug-ins (:mod:`opt_sched.plugins`), once
    per process."""
    load_group("methods", _add_plugin)


def _scheduler_entry(name: str) -> MethodEntry | None:
    """The entry of the scheduler ``name`` of
    :data:`opt_sched.scheduling.SCHEDULERS` (a plug-in's included) replayed
    online under the execution model
    (:func:`~.replayed.replayed_entry`), added to the table; ``None`` if no
    scheduler has that name. So a scheduler registered once reaches
    ``compare`` and ``sweep`` as a method, with no second registration."""
    if not is_name(name):
        return None
    from ..scheduling import SCHEDULERS

    if name not in SCHEDULERS:
        return None
    from .replayed import replayed_entry

    entry = replayed_entry(name, f"the scheduler {name!r} (registered in "
                                 f"opt_sched.scheduling.SCHEDULERS), replayed online",
                           name)
    _METHODS.setdefault(name, entry)
    return _METHODS[name]


def _find(name: str) -> MethodEntry | None:
    """The entry ``name``: registered, a plug-in's, or a scheduler's."""
    try:
        entry = _METHODS.get(name)
    except TypeError:
        return None
    if entry is None:
        _load_plugins()
        entry = _METHODS.get(name)
    if entry is None and isinstance(name, str):
        entry = _scheduler_entry(name)
    return entry


def _load_all() -> None:
    """Before a listing: the method plug-ins, and a method for each
    scheduler that is not built in (a plug-in's or a
    :func:`~opt_sched.scheduling.register_scheduler` call's)."""
    _load_plugins()
    from ..scheduling import SCHEDULERS

    for name in list(SCHEDULERS):
        if name not in _METHODS and not SCHEDULERS.builtin(name):  # type: ignore[attr-defined]
            _scheduler_entry(name)


def names() -> tuple[str, ...]:
    """Every registered method name, in registration order (plug-ins and
    the schedulers that are not built in included)."""
    _load_all()
    return tuple(_METHODS)


def stage_names(kind: str | None = None) -> tuple[str, ...]:
    """Every registered stage name (of ``kind``), in registration order."""
    return tuple(n for n, s in _STAGES.items() if kind is None or s.kind == kind)


def get_entry(name: str) -> MethodEntry:
    """The entry called ``name``.

    Raises
    ------
    SpecError
        ``name`` is not registered.
    """
    entry = _find(name)
    if entry is None:
        raise SpecError(f"method {name!r} is unknown (known: "
                        f"{', '.join(_METHODS)})")
    return entry


# -- resolution --------------------------------------------------------------------
_read_args = read_args


def _resolve(spec: Spec, text: str) -> Method:
    entry = _find(spec.head.name)
    if entry is None:
        raise spec_error(text, f"unknown method {spec.head.name!r} (known: "
                               f"{', '.join(_METHODS)})")
    args = _read_args(text, entry.name, entry.params, spec.head)
    written = list(spec.stages)
    stages = []
    for kind in entry.stages:
        call = None
        first = _STAGES.get(written[0].name) if written else None
        if first is not None and first.kind == kind:
            call = written.pop(0)
        if call is None:
            default = next((s for s in _STAGES.values() if s.kind == kind), None)
            if default is None:
                raise spec_error(text, f"{entry.name}: no {kind} stage is registered")
            call = Call(default.name)
        stage = _STAGES[call.name]
        stages.append(BoundStage(stage, _read_args(text, stage.name, stage.params,
                                                   call)))
    if written:
        extra = written[0].name
        if extra not in _STAGES:
            raise spec_error(text, f"unknown stage '+{extra}' (known: "
                                   f"{', '.join(_STAGES) or 'none'})")
        kind = _STAGES[extra].kind
        if not entry.stages:
            why = f"takes no '+' stage; '+{extra}' is a stage of kind {kind}"
        elif kind in entry.stages:
            why = (f"takes one stage of each kind {', '.join(entry.stages)}, in "
                   f"this order; '+{extra}' ({kind}) is extra or out of order")
        else:
            why = (f"takes stages of kind {', '.join(entry.stages)}; '+{extra}' is "
                   f"of kind {kind}")
        raise spec_error(text, f"{entry.name} {why}")
    policy = check_policy(text, entry, spec.policy)
    return Method(entry, args, tuple(stages), policy)


def _resolve_text(text: str) -> Method:
    return _resolve(parse_spec(text), text)


def method(text: str | Method) -> Method:
    """The method named by one spec (no ``/*``).

    Raises
    ------
    SpecError
        Bad syntax, unknown method, stage, parameter or policy, or a bad
        value; the one-line message quotes the spec and names the part.

    Examples
    --------
    >>> str(method("make-pack + lpt"))
    'make-pack(S=1)+lpt/fifo'
    """
    if isinstance(text, Method):
        return text
    return _resolve_text(text)  # parse_spec rejects a non-string


def expand(texts: str | Method | Iterable[str | Method]) -> list[Method]:
    """Every method named by ``texts``: one spec, a comma-separated list, or
    a list of specs; ``/*`` expands to every registered I/O policy."""
    if isinstance(texts, Method):
        return [texts]
    items = [texts] if isinstance(texts, str) else list(texts)
    out: list[Method] = []
    for item in items:
        if isinstance(item, Method):
            out.append(item)
            continue
        for text in split_specs(item):
            spec = parse_spec(text)
            if spec.policy == EVERY_POLICY:
                out.extend(_resolve(Spec(spec.calls, policy), text)
                           for policy in _policy_names())
            else:
                out.append(_resolve(spec, text))
    return out


def _by_default(entry: MethodEntry, instance: Instance | None) -> bool:
    """``entry``'s defaults run by default on ``instance`` (its
    :attr:`~MethodEntry.default_for`; always without an instance)."""
    return (instance is None or entry.default_for is None
            or entry.default_for(instance) is None)


def default_specs(instance: Instance | None = None,
                  problem: str | None = None) -> list[str]:
    """The default specs (``/*`` expanded), in registry order.

    With ``instance``: only the supported ones of the entries whose
    :attr:`~MethodEntry.default_for` takes it. With ``problem``: only the
    entries that make schedules of that problem (``gap``). Without either:
    every default (e.g. for a help text).
    """
    _load_plugins()
    out: list[str] = []
    for entry in _METHODS.values():
        if problem is not None and problem not in entry.problems:
            continue
        if not _by_default(entry, instance):
            continue
        for text in entry.defaults:
            for m in expand(text):
                if instance is None or m.supports(instance) is None:
                    out.append(m.spec)
    return list(dict.fromkeys(out))


def applicable(instance: Instance,
               specs: str | Iterable[str | Method] | None = None,
               problem: str | None = None) -> tuple[list[Method], list[Skipped]]:
    """Split ``specs`` into the methods that run on ``instance`` and the
    skipped ones with their reasons.

    With ``problem``, a method whose entry does not make schedules of that
    problem is skipped too (its value would not be comparable with the
    problem's bound). ``specs=None`` means the default specs of the entries
    that make schedules of ``problem`` (of every entry without ``problem``)
    whose :attr:`~MethodEntry.default_for` takes ``instance``: then only a
    method that does not support ``instance`` is reported.
    Skips are reported once per spec as written (``/*`` stays one line); a
    spec's syntax or names are checked first
    (:class:`~opt_sched.errors.SpecError`).
    """
    if specs is None:
        _load_plugins()
        texts = [t for e in _METHODS.values() if _by_default(e, instance)
                 for t in e.defaults if problem is None or problem in e.problems]
    elif isinstance(specs, Method):
        texts = [specs]
    else:
        texts = split_specs(specs) if isinstance(specs, str) else [
            t for item in specs for t in ([item] if isinstance(item, Method)
                                          else split_specs(item))]
    groups = [(text, expand(text)) for text in texts]
    chosen: list[Method] = []
    skipped: list[Skipped] = []
    seen: set[str] = set()
    support: dict[str, str | None] = {}  # by heuristic: policies do not matter
    for text, group in groups:
        reasons = []
        for m in group:
            if problem is not None and problem not in m.entry.problems:
                made = ", ".join(m.entry.problems) or "no exact problem"
                reason = (f"{m.name} makes schedules of {made}; {instance.name} "
                          f"poses {problem}")
            else:
                if m.heuristic not in support:
                    support[m.heuristic] = m.supports(instance)
                reason = support[m.heuristic]
            if reason:
                reasons.append(reason)
            elif m.spec not in seen:
                seen.add(m.spec)
                chosen.append(m)
        for reason in dict.fromkeys(reasons):
            label = str(text) if isinstance(text, Method) else (
                group[0].heuristic + "/*" if parse_spec(text).policy == EVERY_POLICY
                else group[0].spec)
            skipped.append(Skipped(label, reason))
    return chosen, skipped


def warm_start_specs(instance: Instance, problem: str,
                     sensibility: float | None = None) -> list[str]:
    """The specs whose schedules seed the exact models of ``problem``.

    The entries' :attr:`~MethodEntry.warm_starts`, ordered by
    :attr:`~MethodEntry.warm_rank`, keeping those that support
    ``instance``. With ``sensibility`` (the packs model's ``S``), only the
    specs whose method has a parameter ``S``, with ``S`` set to it: their
    packs satisfy the model's sensibility constraint.
    """
    _load_plugins()
    entries = sorted((e for e in _METHODS.values() if problem in e.problems),
                     key=lambda e: e.warm_rank)
    out = []
    for entry in entries:
        for text in entry.warm_starts:
            for m in expand(text):
                if sensibility is not None:
                    if not any(p.name == "S" for p in m.entry.params):
                        continue
                    m = m.with_args(S=sensibility)
                if m.supports(instance) is None:
                    out.append(m.spec)
    return list(dict.fromkeys(out))


def describe() -> list[dict[str, object]]:
    """One record per method (name, summary, parameters, stages, problems,
    defaults), for listings such as ``opt-sched methods``."""
    _load_all()
    out = []
    for entry in _METHODS.values():
        out.append({
            "name": entry.name, "summary": entry.summary,
            "params": [{"name": p.name, "default": p.default, "doc": p.doc}
                       for p in entry.params],
            "stages": [{"kind": kind, "choices": list(stage_names(kind))}
                       for kind in entry.stages],
            "policy": entry.policy, "problems": list(entry.problems),
            "defaults": list(entry.defaults)})
    return out
