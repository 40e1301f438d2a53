"""Registry entries and resolved specs.

- :class:`MethodEntry` -- a method of the registry (``make-pack``);
- :class:`StageEntry` -- a ``+ stage`` (``lpt``);
- :class:`Method` -- a spec resolved against them: what callers run;
- :class:`BoundStage` -- a stage with its arguments;
- :class:`Skipped` -- a spec left out for an instance, with the reason.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from ..errors import OptionError
from ..instance import Instance
from .params import Param
from .spec import EVERY_POLICY, Call, format_value, parse_spec, spec_error

if TYPE_CHECKING:
    from ..schedule import Schedule

__all__ = ["DEFAULT_POLICY", "BoundStage", "Method", "MethodEntry", "Skipped",
           "StageEntry", "check_policy", "policy_names", "read_args"]

DEFAULT_POLICY = "fifo"
"""The I/O policy of a spec that names none."""


# -- entries -----------------------------------------------------------------------
@dataclass(frozen=True)
class StageEntry:
    """A ``+ name(args)`` stage, e.g. ``lpt``.

    Attributes
    ----------
    name
        As written after ``+``.
    kind
        The slot it fills (``"allocation"``); a method lists the kinds it
        takes (:attr:`MethodEntry.stages`) and the first registered stage of
        a kind is that kind's default.
    summary
        One line.
    apply
        The stage itself; its signature is the kind's contract
        (``allocation``: ``apply(instance, packer, stage) -> PackPlan``, see
        :mod:`.packs`).
    params
        Its ``key=value`` parameters.
    supports
        ``supports(instance, stage) -> None | reason``.
    """

    name: str
    kind: str
    summary: str
    apply: Callable[..., Any]
    params: tuple[Param, ...] = ()
    supports: Callable[[Instance, BoundStage], str | None] | None = None


@dataclass(frozen=True)
class MethodEntry:
    """A method of the registry (one line of :mod:`.catalog`).

    Attributes
    ----------
    name
        The first call of its specs (``make-pack``).
    summary
        One line.
    build
        ``build(instance, method, seed) -> Plan | Schedule``: a plan is run
        by :func:`~opt_sched.simulation.simulate` under ``method.policy``
        (or, under another execution model, by
        :func:`~opt_sched.scheduling.execute.execute_plan`). An entry with
        ``executes`` is called ``build(instance, method, seed,
        execution=spec)`` and runs its schedule under that
        :class:`~opt_sched.execution.ExecutionSpec` itself.
    params
        Its ``key=value`` parameters (:class:`~.params.Param`).
    supports
        ``supports(instance, method) -> None | reason``: ``None`` when
        ``build`` gives a schedule that the validator accepts, else one line
        saying why not. ``None`` (the attribute): every instance.
    stages
        The stage kinds that follow it, in order (``("allocation",)``).
    policy
        It runs in the simulator under an I/O policy (``/policy``).
    problems
        The exact problems whose feasible schedules it makes (``io-sched``,
        ``hpc-io``, ``packs``): ``gap`` compares it with their bounds, the
        CP-SAT warm start seeds their models with it.
    defaults
        Specs run by default (``compare``, ``gap``); ``/*`` means every
        registered I/O policy.
    warm_starts
        Specs that seed the exact models of :attr:`problems`.
    warm_rank
        Order of the warm starts among entries (smaller first).
    effective
        ``effective(instance, method) -> {name: float}``: parameters as
        used on ``instance`` (e.g. ``sensibility``: ``S = alpha`` resolved).
    executes
        ``build`` takes ``execution=`` (an online method that replays under
        an execution model); otherwise a ``build`` that returns a finished
        schedule runs under ``exclusive`` only.
    default_for
        ``default_for(instance) -> None | reason``: whether :attr:`defaults`
        run by default on ``instance`` (``None``: yes). An entry left out
        this way is not reported as skipped (nobody asked for it); named
        explicitly, it runs wherever :attr:`supports` allows. ``None`` (the
        attribute): its defaults run on every instance it supports.
    online
        An online scheduler replayed on the instance: its I/O policy is part
        of the method as named, so ``compare`` runs its default specs as they
        are instead of crossing it with every I/O policy.
    workload
        The kind of workload it schedules: ``"hpc"`` (an
        :class:`~opt_sched.instance.Instance`) or ``"gang"`` (seed 004's gang
        workload); a campaign refuses a method on the other kind when it
        reads the spec.
    """

    name: str
    summary: str
    build: Callable[[Instance, Method, int], Any]
    params: tuple[Param, ...] = ()
    supports: Callable[[Instance, Method], str | None] | None = None
    stages: tuple[str, ...] = ()
    policy: bool = True
    problems: tuple[str, ...] = ()
    defaults: tuple[str, ...] = ()
    warm_starts: tuple[str, ...] = ()
    warm_rank: int = 100
    effective: Callable[[Instance, Method], Mapping[str, float]] | None = None
    executes: bool = False
    default_for: Callable[[Instance], str | None] | None = None
    online: bool = False
    workload: str = "hpc"


# -- reading a spec's parts against its entries -----------------------------------
def read_args(text: str, owner: str, params: tuple[Param, ...],
              call: Call) -> tuple[tuple[str, object], ...]:
    """Every parameter of ``owner`` (a method or stage) with its value:
    the ones ``call`` gives, read by their :class:`~.params.Param`, the
    others at their defaults.

    Raises
    ------
    SpecError
        An unknown parameter or a bad value (the message quotes ``text``).
    """
    given = dict(call.args)
    known = {p.name for p in params}
    for key in given:
        if key not in known:
            listed = ", ".join(sorted(known)) if known else "none"
            raise spec_error(text, f"{owner}: unknown parameter {key!r} "
                                   f"(known: {listed})")
    out = []
    for param in params:
        if param.name in given:
            raw = given[param.name]
            try:
                value = param.read(raw)
            except ValueError as err:
                raise spec_error(text, f"{owner}: {param.name}={raw!r} {err}") from None
        else:
            value = param.default
        out.append((param.name, value))
    return tuple(out)


def policy_names() -> tuple[str, ...]:
    """Every registered I/O policy (:func:`opt_sched.simulation.policies.names`)."""
    from ..simulation.policies import names

    return names()


def check_policy(text: str, entry: MethodEntry, policy: str | None) -> str | None:
    """The policy of a spec of ``entry`` that writes ``policy``: ``None``
    for an entry that runs under no policy, :data:`DEFAULT_POLICY` when
    omitted.

    Raises
    ------
    SpecError
        A policy given to an entry without one, ``/*`` (see ``expand``), or
        an unknown policy.
    """
    if not entry.policy:
        if policy is not None:
            raise spec_error(text, f"{entry.name} runs under no I/O policy; "
                                   f"remove '/{policy}'")
        return None
    policy = DEFAULT_POLICY if policy is None else policy
    if policy == EVERY_POLICY:
        raise spec_error(text, "'/*' names every policy: use expand()")
    from ..simulation.policies import POLICIES

    if policy in POLICIES:  # a built-in or registered name: no plug-in scan
        return policy
    known = policy_names()
    if policy not in known:
        raise spec_error(text, f"unknown I/O policy {policy!r} (known: "
                               f"{', '.join(known)})")
    return policy


# -- resolved specs ----------------------------------------------------------------
def _call_text(name: str, params: tuple[Param, ...],
               args: tuple[tuple[str, object], ...]) -> str:
    shown = [f"{p.name}={format_value(value)}" for p, (_, value) in zip(params, args)
             if value is not None and (p.shown or value != p.default)]
    return f"{name}({','.join(shown)})" if shown else name


def _lookup(args: tuple[tuple[str, object], ...], key: str, owner: str) -> object:
    for name, value in args:
        if name == key:
            return value
    raise OptionError(f"{owner}: no parameter {key!r}")


@dataclass(frozen=True)
class BoundStage:
    """A stage with its arguments (every parameter, defaults filled)."""

    entry: StageEntry
    args: tuple[tuple[str, object], ...]

    @property
    def kind(self) -> str:
        return self.entry.kind

    def arg(self, key: str) -> object:
        """The value of parameter ``key``."""
        return _lookup(self.args, key, self.entry.name)

    def __str__(self) -> str:
        return _call_text(self.entry.name, self.entry.params, self.args)


@dataclass(frozen=True)
class Method:
    """A resolved spec: its entry, arguments, stages and policy.

    ``str(method)`` is the canonical spec; :func:`method` reads it back to
    an equal :class:`Method`.
    """

    entry: MethodEntry
    args: tuple[tuple[str, object], ...]
    stages: tuple[BoundStage, ...] = ()
    policy: str | None = None

    # -- text -------------------------------------------------------------------
    @property
    def name(self) -> str:
        """The entry's name (``make-pack``)."""
        return self.entry.name

    @property
    def head(self) -> str:
        """The method call alone, e.g. ``make-pack(S=1)`` (the seed's labels)."""
        return _call_text(self.entry.name, self.entry.params, self.args)

    @property
    def heuristic(self) -> str:
        """The spec without its policy, e.g. ``make-pack(S=1)+lpt``."""
        return "+".join([self.head, *(str(stage) for stage in self.stages)])

    @property
    def spec(self) -> str:
        """The canonical spec, e.g. ``make-pack(S=1)+lpt/fifo``."""
        return self.heuristic if self.policy is None else (
            f"{self.heuristic}/{self.policy}")

    def __str__(self) -> str:
        return self.spec

    # -- parts --------------------------------------------------------------------
    def arg(self, key: str) -> object:
        """The value of the method's parameter ``key``."""
        return _lookup(self.args, key, self.entry.name)

    def stage(self, kind: str) -> BoundStage | None:
        """The stage filling slot ``kind`` (``None`` if the entry has none)."""
        return next((s for s in self.stages if s.kind == kind), None)

    def with_policy(self, policy: str) -> Method:
        """The same method under another I/O policy (checked)."""
        text = f"{self.heuristic}/{policy}"
        return dataclasses.replace(self, policy=check_policy(text, self.entry, policy))

    def with_args(self, **values: object) -> Method:
        """The method with some parameters changed (values checked again)."""
        return self._reread(self._text(self._head_args(values), None, {}))

    def with_stage_args(self, kind: str, **values: object) -> Method:
        """The method with parameters of its ``kind`` stage changed; the
        method itself when it has no such stage."""
        if self.stage(kind) is None:
            return self
        return self._reread(self._text(self._head_args({}), kind, values))

    def _reread(self, text: str) -> Method:
        """This method with the arguments of ``text`` (this method's spec,
        some values changed), every value read and checked again by its
        parameter: the same reading as the registry's, with no registry
        lookup (the entries are this method's own)."""
        spec = parse_spec(text)
        args = read_args(text, self.entry.name, self.entry.params, spec.head)
        stages = tuple(BoundStage(bound.entry, read_args(text, bound.entry.name,
                                                         bound.entry.params, call))
                       for bound, call in zip(self.stages, spec.stages))
        return dataclasses.replace(self, args=args, stages=stages)

    def _head_args(self, values: Mapping[str, object]) -> dict[str, object]:
        out = {k: v for k, v in self.args if v is not None}
        out.update(values)
        return out

    def _text(self, head: Mapping[str, object], kind: str | None,
              values: Mapping[str, object]) -> str:
        def call(name: str, args: Mapping[str, object]) -> str:
            items = [f"{k}={format_value(v)}" for k, v in args.items() if v is not None]
            return f"{name}({','.join(items)})" if items else name

        parts = [call(self.name, head)]
        for stage in self.stages:
            args = {k: v for k, v in stage.args if v is not None}
            if stage.kind == kind:
                args.update(values)
            parts.append(call(stage.entry.name, args))
        text = "+".join(parts)
        return text if self.policy is None else f"{text}/{self.policy}"

    # -- behaviour ------------------------------------------------------------------
    def supports(self, instance: Instance) -> str | None:
        """``None`` if the method makes a valid schedule of ``instance``,
        else the reason (one line)."""
        if self.entry.supports is not None:
            reason = self.entry.supports(instance, self)
            if reason:
                return reason
        for stage in self.stages:
            if stage.entry.supports is not None:
                reason = stage.entry.supports(instance, stage)
                if reason:
                    return f"{stage.entry.name}: {reason}"
        return None

    def effective(self, instance: Instance) -> dict[str, float]:
        """Parameters as used on ``instance`` (see :attr:`MethodEntry.effective`)."""
        if self.entry.effective is None:
            return {}
        return dict(self.entry.effective(instance, self))

    def plan(self, instance: Instance, seed: int = 0, execution: object = None
             ) -> Any:
        """The plan (or schedule) ``build`` makes for ``instance``
        (``execution`` goes to an entry that ``executes``).

        Raises
        ------
        OptionError
            The method does not support ``instance`` (the reason is given).
        """
        reason = self.supports(instance)
        if reason:
            raise OptionError(f"method {self.spec}: not for instance "
                              f"{instance.name!r}: {reason}")
        if self.entry.executes:
            from ..execution import ExecutionSpec

            return self.entry.build(instance, self, seed,
                                    execution=ExecutionSpec.parse(execution))
        return self.entry.build(instance, self, seed)

    def run(self, instance: Instance, seed: int = 0,
            execution: object = None) -> Schedule:
        """The schedule of ``instance`` under ``execution`` (an
        :class:`~opt_sched.execution.ExecutionSpec`, a model name or a
        table; default ``exclusive``), not validated (callers validate);
        its ``method`` is this spec.

        Raises
        ------
        OptionError
            A method that makes finished schedules under ``exclusive`` only
            was asked for another model.
        """
        from ..execution import ExecutionSpec
        from ..schedule import Schedule
        from ..scheduling.execute import execute_plan

        spec = ExecutionSpec.parse(execution)
        result = self.plan(instance, seed, spec)
        if not isinstance(result, Schedule):
            result = execute_plan(instance, result, spec,
                                  self.policy or DEFAULT_POLICY)
        elif not self.entry.executes and spec != ExecutionSpec():
            raise OptionError(f"method {self.spec}: runs under the exclusive "
                              f"model only, not {spec.label}")
        return dataclasses.replace(result, method=self.spec)


class Skipped(NamedTuple):
    """A spec left out for an instance, and why."""

    spec: str
    reason: str

    def __str__(self) -> str:
        return f"{self.spec}: {self.reason}"
