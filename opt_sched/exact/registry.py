"""The exact models, keyed by (problem, solver).

Adding an exact model is one new module plus one line in
:data:`EXACT_MODELS` (or one :func:`register` call). The module provides
(:class:`ExactBackend`):

- ``OPTIONS``: its options record, a frozen dataclass that validates itself
  in ``__post_init__`` (a one-line :class:`~opt_sched.errors.OptionError`);
  the front door builds it from ``time_limit``, ``seed``, ``num_workers``,
  ``resolution``, ``export`` and the caller's ``**options``, and an option
  the record does not declare is a one-line ``OptionError`` naming it;
- ``OBJECTIVES``: the objectives it supports (a subset of
  :data:`opt_sched.objectives.OBJECTIVES`);
- ``run(instance, objective, options, *, lower_bound, deadline) ->
  Outcome``: its raw answer (:class:`~opt_sched.exact.result.Outcome`),
  which :func:`opt_sched.exact.certify.certify` turns into the
  :class:`~opt_sched.exact.result.Result`;
- optionally ``prepare(options)``: one-time set-up (loading a compiled
  kernel, probing a solver), run before the time limit starts.

Modules are imported only when used (ortools, PuLP, highspy are heavy).
This module imports none of them: the command line reads its names
(:func:`solver_choices`, :func:`problems`) while building its parser.

The solver ``auto`` (:data:`AUTO`) is no model: :func:`resolve_solver` turns
it into the strongest registered solver of a problem that supports the
objective (:data:`AUTO_PREFERENCE` first, then registration order).
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from ..errors import OptionError
from ..plugins import describe, load_group

if TYPE_CHECKING:
    from ..instance import Instance
    from .deadline import Deadline
    from .result import Outcome

__all__ = [
    "AUTO",
    "AUTO_PREFERENCE",
    "EXACT_MODELS",
    "ExactBackend",
    "ExactModel",
    "build_options",
    "lookup",
    "prepare",
    "problems",
    "register",
    "resolve_solver",
    "solver_choices",
    "solvers",
]


class ExactBackend(Protocol):
    """What the module of an exact model provides (module doc)."""

    OPTIONS: type
    OBJECTIVES: tuple[str, ...]

    def run(self, instance: Instance, objective: str, options: Any, *,
            lower_bound: float | None, deadline: Deadline) -> Outcome: ...


def prepare(backend: ExactBackend, options: Any) -> None:
    """The backend's one-time set-up, if it has one."""
    hook = getattr(backend, "prepare", None)
    if hook is not None:
        hook(options)


@dataclass(frozen=True)
class ExactModel:
    """One exact model: the problem it solves, the solvers (backends) that
    run it, and the module that implements it (:class:`ExactBackend`)."""

    problem: str
    solvers: tuple[str, ...]
    module: str

    def load(self) -> ExactBackend:
        """Import the module."""
        return importlib.import_module(self.module)  # type: ignore[return-value]


EXACT_MODELS: list[ExactModel] = [
    ExactModel("io-sched", ("cpsat",), "opt_sched.exact.io_sched.cpsat"),
    ExactModel("io-sched", ("cbc", "highs"), "opt_sched.exact.io_sched.milp"),
    ExactModel("io-sched", ("portfolio",),
               "opt_sched.exact.io_sched.portfolio.backend"),
    ExactModel("io-sched", ("lns",), "opt_sched.exact.io_sched.lns.backend"),
    ExactModel("hpc-io", ("cpsat",), "opt_sched.exact.hpc_io.cpsat"),
    ExactModel("hpc-io-reserved", ("cpsat",),
               "opt_sched.exact.hpc_io.reserved_backend"),
    ExactModel("packs", ("cpsat",), "opt_sched.exact.packs.cpsat"),
    ExactModel("packs", ("cbc", "highs"), "opt_sched.exact.packs.milp"),
    ExactModel("planning", ("cpsat",), "opt_sched.exact.planning.cpsat_backend"),
    ExactModel("planning", ("cbc", "highs"), "opt_sched.exact.planning.milp_backend"),
]
"""Every exact model, in the order the choices are listed."""


def register(model: ExactModel) -> None:
    """Add ``model`` (it replaces an earlier model for the same problem and
    solver)."""
    for solver in model.solvers:
        for other in list(EXACT_MODELS):
            if other.problem == model.problem and solver in other.solvers:
                EXACT_MODELS.remove(other)
                rest = tuple(s for s in other.solvers if s != solver)
                if rest:
                    EXACT_MODELS.append(dataclasses.replace(other, solvers=rest))
    EXACT_MODELS.append(model)


def _add_plugin(name: str, model: object) -> None:
    """Register the :class:`ExactModel` of plug-in ``name`` (one of its
    solvers); a plug-in adds solvers, it does not replace a model."""
    if not isinstance(model, ExactModel):
        raise TypeError(f"{describe(model)} is not an "
                        f"opt_sched.exact.registry.ExactModel")
    if name not in model.solvers:
        raise ValueError(f"the model's solvers {', '.join(model.solvers)} do not "
                         f"include {name!r}")
    for solver in model.solvers:
        if any(m.problem == model.problem and solver in m.solvers
               for m in EXACT_MODELS):
            raise ValueError(f"problem {model.problem!r} already has a model for "
                             f"solver {solver!r}")
    EXACT_MODELS.append(model)


def _load_plugins() -> None:
    """The ``opt_sched.exact_models`` plug-ins (:mod:`opt_sched.plugins`),
    once per process: before the models are listed."""
    load_group("exact_models", _add_plugin)


def problems() -> tuple[str, ...]:
    """The problems some model solves, in registration order (plug-ins
    included)."""
    _load_plugins()
    return tuple(dict.fromkeys(m.problem for m in EXACT_MODELS))


def solvers() -> tuple[str, ...]:
    """The solvers some model runs on, in registration order (plug-ins
    included)."""
    _load_plugins()
    return tuple(dict.fromkeys(s for m in EXACT_MODELS for s in m.solvers))


AUTO = "auto"
"""The solver name that stands for :func:`resolve_solver`'s choice."""

AUTO_PREFERENCE: dict[str, tuple[str, ...]] = {"io-sched": ("portfolio",)}
"""Per problem, the solvers :data:`AUTO` tries before the problem's other
models, strongest first. IO-SCHED: the portfolio (tucan5, makespan, 60 s:
12,884.5, 2.99 % above the bound, against CP-SAT's 13,881, 10.9 %); it
picks CP-SAT rounds or the LNS by the instance's size itself. A problem not
listed: its models in registration order (CP-SAT first)."""


def solver_choices() -> tuple[str, ...]:
    """What a front door offers: :data:`AUTO`, then every registered
    solver."""
    return (AUTO, *solvers())


def _auto_candidates(problem: str) -> list[str]:
    """The solvers of ``problem``'s models, in the order :data:`AUTO` tries
    them."""
    registered = [s for m in EXACT_MODELS if m.problem == problem for s in m.solvers]
    preferred = [s for s in AUTO_PREFERENCE.get(problem, ()) if s in registered]
    return list(dict.fromkeys([*preferred, *registered]))


def resolve_solver(problem: str, objective: str) -> str:
    """The solver :data:`AUTO` stands for on ``(problem, objective)``: the
    first of :func:`_auto_candidates` whose model supports ``objective``
    (the model's module is imported to read its ``OBJECTIVES``).

    Raises
    ------
    OptionError
        An unknown problem, or no model of it supports ``objective``.
    """
    if problem not in problems():
        raise OptionError(f"problem={problem!r} is not one of "
                          f"{', '.join(problems())}")
    candidates = _auto_candidates(problem)
    for solver in candidates:
        if objective in lookup(problem, solver).load().OBJECTIVES:
            return solver
    raise OptionError(f"objective={objective!r} is supported by no solver of "
                      f"problem={problem!r} (tried: {', '.join(candidates)})")


def lookup(problem: str, solver: str) -> ExactModel:
    """The model for ``(problem, solver)``.

    Raises
    ------
    OptionError
        An unknown problem or solver, or no model for the pair.
    """
    for name, value, valid in (("problem", problem, problems()),
                               ("solver", solver, solvers())):
        if value not in valid:
            raise OptionError(f"{name}={value!r} is not one of {', '.join(valid)}")
    for model in EXACT_MODELS:
        if model.problem == problem and solver in model.solvers:
            return model
    available = [s for m in EXACT_MODELS if m.problem == problem for s in m.solvers]
    raise OptionError(f"problem={problem!r} has no model for solver={solver!r} "
                      f"(available: {', '.join(available)})")


def build_options(record: type, where: str, common: Mapping[str, Any],
                  options: Mapping[str, Any]) -> Any:
    """The options record ``record`` of the model ``where`` (``problem/solver``).

    ``common`` are the front door's own arguments: those the record does not
    declare are dropped when they are ``None`` or one of ``time_limit``,
    ``seed``, ``num_workers``, ``backend`` (every model gets them, not every
    model uses them). ``options`` are the caller's: each must be a field of
    the record.

    Raises
    ------
    OptionError
        The first option the record does not declare, or the record's own
        validation.
    """
    known = [f.name for f in dataclasses.fields(record) if f.init]
    values: dict[str, Any] = {}
    for name, value in common.items():
        if name in known:
            values[name] = value
        elif value is not None and name not in ("time_limit", "seed", "num_workers",
                                                "backend"):
            raise OptionError(f"option {name!r} does not apply to {where}")
    for name, value in options.items():
        if name not in known:
            raise OptionError(f"option {name!r} is not an option of {where} "
                              f"(known: {', '.join(sorted(known))})")
        values[name] = value
    return record(**values)
