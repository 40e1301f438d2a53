"""The options records of the CP-SAT models, and configured ``CpSolver``\\ s.

One family record, :class:`CpsatSettings` (solver, time and search-phase
settings, the same names for every CP-SAT model), extended once per model
with what only that model understands:

- :class:`ScheduleCpsatSettings` (IO-SCHED) -- ``stretch_scale``, ``search``,
  ``symmetry``, ``warm``; :class:`HpcIoCpsatSettings` adds ``redundant``,
  :class:`PacksCpsatSettings` adds ``max_packs`` and ``sensibility``;
- :class:`PlanningCpsatSettings` -- ``resource_precision``, ``no_overlap``,
  ``push_toward_start``, ``policy``, and its own phase shares.

Every record validates itself (a one-line
:class:`~opt_sched.errors.OptionError` naming the field and the value).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ...errors import OptionError

__all__ = [
    "PORTFOLIO_KEYS",
    "STRETCH_SCALE",
    "CpsatSettings",
    "HpcIoCpsatSettings",
    "PacksCpsatSettings",
    "PlanningCpsatSettings",
    "ScheduleCpsatSettings",
    "check_param_names",
    "check_policy",
    "check_resource_precision",
    "check_run_options",
    "export_suffix",
    "make_solver",
]

STRETCH_SCALE = 10**7
"""The max-stretch variable ``rho`` counts units of ``1 / STRETCH_SCALE``."""

PORTFOLIO_KEYS = ("subsolvers", "extra_subsolvers")
"""CP-SAT parameters that choose the portfolio: when the user sets one, the
model's default portfolio is dropped as a whole."""


def _flag(name: str, value: object) -> None:
    if not isinstance(value, bool):
        raise OptionError(f"{name}={value!r} must be True or False")


def _share(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not 0 <= value <= 1:
        raise OptionError(f"{name}={value!r} must be a share in [0, 1]")


def check_run_options(time_limit: object, seed: object, num_workers: object) -> None:
    """The options of every CP-SAT backend's run: ``time_limit`` in seconds
    ``> 0``, ``seed`` an integer, ``num_workers`` an integer ``>= 1``.

    Raises
    ------
    OptionError
        The first bad one (one line naming it and its value).
    """
    if isinstance(time_limit, bool) or not isinstance(time_limit, (int, float)) \
            or not time_limit > 0:
        raise OptionError(f"time_limit={time_limit!r} must be > 0")
    if isinstance(num_workers, bool) or not isinstance(num_workers, int) \
            or num_workers < 1:
        raise OptionError(f"num_workers={num_workers!r} must be an integer >= 1")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise OptionError(f"seed={seed!r} must be an integer")


def export_suffix(path: object) -> str:
    """The lower-case suffix of ``path`` (``".pb"``), ``""`` if none."""
    name = str(path).rsplit("/", 1)[-1]
    return "." + name.rsplit(".", 1)[-1].lower() if "." in name else ""


def check_param_names(params: Mapping[str, Any]) -> None:
    """:class:`OptionError` naming the first key that is no CP-SAT parameter."""
    from ortools.sat import sat_parameters_pb2

    known = sat_parameters_pb2.SatParameters.DESCRIPTOR.fields_by_name
    for name in params:
        if name not in known:
            raise OptionError(f"params: {name!r} is not a CP-SAT parameter")


@dataclass(frozen=True)
class CpsatSettings:
    """How CP-SAT runs, for every CP-SAT model.

    ``time_limit`` (s), ``seed``, ``num_workers``; ``resolution``: time units
    per tick (``None``: chosen from the data); ``export``: write the model
    (``.pb`` / ``.pbtxt``). ``hints``: give the best heuristic schedule as a
    solution hint. ``params`` are passed to ``CpSolver.parameters`` by name
    (lists replace repeated fields); ``subsolvers`` is a shortcut for
    ``params["subsolvers"]``; a user portfolio (:data:`PORTFOLIO_KEYS`)
    replaces the model's. ``log``: CP-SAT's search log.

    The search phases (:func:`opt_sched.exact.cpsat.search.minimise`), each a
    share of the time left once the model is built: with
    ``lower_bounding``, the bound ladder for at most ``ladder_share``,
    climbing by ``max(1, floor(ladder_step * L))`` model units from the
    bound ``L`` (its questions' full search being ``probe_subsolvers`` on 2
    workers; with ``ladder_growth > 1`` each refutation makes the next jump
    that many times longer, :meth:`~.probing.ObjectiveProbe.ladder`), then
    optimisation until ``lower_bounding_start``, then bisection (whose
    climb gallops too), opened by the question "is the incumbent optimal?"
    with ``incumbent_question_share`` of its time (0: not asked); without
    it, optimisation alone.
    """

    EXPORT_SUFFIXES: ClassVar[tuple[str, ...]] = (".pb", ".pbtxt")

    time_limit: float = 60.0
    seed: int = 0
    num_workers: int = 2
    resolution: float | None = None
    export: str | None = None
    hints: bool = False
    params: Mapping[str, Any] = field(default_factory=dict)
    subsolvers: Sequence[str] | None = None
    log: bool = False
    lower_bounding: bool = True
    lower_bounding_start: float = 0.3
    ladder_share: float = 0.15
    ladder_step: float = 1e-4
    ladder_growth: float = 1.0
    incumbent_question_share: float = 0.5
    probe_subsolvers: Sequence[str] = ("no_lp",)

    def __post_init__(self) -> None:
        check_run_options(self.time_limit, self.seed, self.num_workers)
        if self.resolution is not None and (
                isinstance(self.resolution, bool)
                or not isinstance(self.resolution, (int, float))
                or not math.isfinite(self.resolution) or self.resolution <= 0):
            raise OptionError(f"resolution={self.resolution!r} must be a number > 0")
        if self.export is not None and export_suffix(self.export) \
                not in self.EXPORT_SUFFIXES:
            self._bad_export()
        for name in ("hints", "log", "lower_bounding"):
            _flag(name, getattr(self, name))
        if not isinstance(self.params, Mapping):
            raise OptionError(f"params={self.params!r} must be a mapping of CP-SAT "
                              "parameters")
        check_param_names(self.params)
        if self.subsolvers is not None and (
                isinstance(self.subsolvers, str)
                or not all(isinstance(s, str) for s in self.subsolvers)):
            raise OptionError(f"subsolvers={self.subsolvers!r} must be a list of "
                              "CP-SAT subsolver names")
        for name in ("lower_bounding_start", "ladder_share",
                     "incumbent_question_share"):
            _share(name, getattr(self, name))
        if isinstance(self.ladder_step, bool) \
                or not isinstance(self.ladder_step, (int, float)) \
                or not 0 <= self.ladder_step < 1:
            raise OptionError(f"ladder_step={self.ladder_step!r} must be in [0, 1)")
        if isinstance(self.ladder_growth, bool) \
                or not isinstance(self.ladder_growth, (int, float)) \
                or not 1 <= self.ladder_growth <= 1e3:
            raise OptionError(f"ladder_growth={self.ladder_growth!r} must be in "
                              "[1, 1000]")

    def _bad_export(self) -> None:
        raise OptionError(f"export={self.export!r}: CP-SAT writes .pb or .pbtxt "
                          "(.lp / .mps need solver cbc or highs)")

    @property
    def user_portfolio(self) -> bool:
        """Whether the user chose the portfolio (:data:`PORTFOLIO_KEYS`, or
        ``subsolvers``): the model's default portfolios then do not apply."""
        return self.subsolvers is not None or any(
            key in self.params for key in PORTFOLIO_KEYS)


@dataclass(frozen=True)
class ScheduleCpsatSettings(CpsatSettings):
    """The scheduling models (IO-SCHED, and the base of HPC-IO and packs).

    ``stretch_scale``: units of the max-stretch variable (``1 / scale``);
    ``search``: ``"auto"`` or ``"set-times"`` (branch on operation starts,
    earliest first); ``symmetry``: break the symmetry of interchangeable
    jobs; ``warm``: heuristic schedules as upper bounds and hints.
    """

    stretch_scale: int = STRETCH_SCALE
    search: str = "auto"
    symmetry: bool = True
    warm: bool = True

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.search not in ("auto", "set-times"):
            raise OptionError(f"search={self.search!r} is not one of auto, set-times")
        if isinstance(self.stretch_scale, bool) \
                or not isinstance(self.stretch_scale, int) or self.stretch_scale < 1:
            raise OptionError(f"stretch_scale={self.stretch_scale!r} must be an "
                              "integer >= 1")
        for name in ("symmetry", "warm"):
            _flag(name, getattr(self, name))


@dataclass(frozen=True)
class HpcIoCpsatSettings(ScheduleCpsatSettings):
    """HPC-IO: ``redundant`` adds the global cumulatives (nodes, I/O)."""

    redundant: bool = False

    def __post_init__(self) -> None:
        super().__post_init__()
        _flag("redundant", self.redundant)


@dataclass(frozen=True)
class PacksCpsatSettings(ScheduleCpsatSettings):
    """Packs: ``max_packs`` slots per partition at most (``None``: one per
    job that fits); ``sensibility``: Make-Pack's I/O cap ``S`` (``None``:
    none)."""

    max_packs: int | None = None
    sensibility: float | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.max_packs is not None and (isinstance(self.max_packs, bool)
                                           or not isinstance(self.max_packs, int)
                                           or self.max_packs < 1):
            raise OptionError(f"max_packs={self.max_packs!r} must be an integer >= 1")
        if self.sensibility is not None and (
                isinstance(self.sensibility, bool)
                or not isinstance(self.sensibility, (int, float))
                or math.isnan(self.sensibility) or not self.sensibility > 0):
            raise OptionError(f"sensibility={self.sensibility!r} must be a number > 0")


@dataclass(frozen=True)
class PlanningCpsatSettings(CpsatSettings):
    """The planning model.

    ``resource_precision``: non-integer resource amounts are rounded up in
    units of this fraction of the capacity; ``no_overlap``: redundant
    no-overlap cliques; ``push_toward_start``: CP-SAT's
    ``push_all_tasks_toward_start``; ``policy``: the I/O policy of the plan's
    execution. The bisection takes over at 80 % of the time (with two full
    searches the optimisation proves as well as the questions do, and keeps
    what it learned; ``models/planning.md``), and the ladder climbs by one
    tick. ``export`` may also be ``.lp`` / ``.mps`` (the planning MILP).
    """

    EXPORT_SUFFIXES: ClassVar[tuple[str, ...]] = (".pb", ".pbtxt", ".lp", ".mps")

    lower_bounding_start: float = 0.8
    ladder_step: float = 0.0
    resource_precision: float = 1e-4
    no_overlap: bool = True
    push_toward_start: bool = True
    policy: str = "fifo"

    def _bad_export(self) -> None:
        raise OptionError(f"export={self.export!r}: suffix "
                          f"{export_suffix(self.export) or '(none)'!r} is not one of "
                          f"{', '.join(self.EXPORT_SUFFIXES)}")

    def __post_init__(self) -> None:
        super().__post_init__()
        for name in ("no_overlap", "push_toward_start"):
            _flag(name, getattr(self, name))
        check_resource_precision(self.resource_precision)
        check_policy(self.policy)


def check_resource_precision(value: object) -> None:
    """:class:`OptionError` unless ``0 < value < 1``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not 0 < value < 1:
        raise OptionError(f"resource_precision={value!r} must be in (0, 1)")


def check_policy(value: object) -> None:
    """:class:`OptionError` unless ``value`` names an I/O policy."""
    from ...simulation import POLICY_NAMES

    if value not in POLICY_NAMES:
        raise OptionError(f"policy={value!r} is not one of {', '.join(POLICY_NAMES)}")


def make_solver(settings: CpsatSettings, time_limit: float,
                portfolio: Mapping[str, Any] | None = None,
                params: Mapping[str, Any] | None = None) -> Any:
    """A ``CpSolver`` for ``time_limit`` seconds, configured by ``settings``.

    Parameters, later ones winning: the model's default ``portfolio``
    (dropped as a whole when the user chose one, see
    :data:`PORTFOLIO_KEYS`), the phase's ``params`` (e.g. of a probe), the
    user's ``settings.params``, and ``settings.subsolvers``.
    """
    from ortools.sat.python import cp_model

    solver = cp_model.CpSolver()
    prm = solver.parameters
    prm.max_time_in_seconds = max(0.0, float(time_limit))
    prm.num_workers = settings.num_workers
    prm.random_seed = settings.seed
    prm.log_search_progress = settings.log
    # CP-SAT's own SIGINT handler would replace Python's; Ctrl-C is handled
    # by opt_sched.exact.cpsat.interrupt instead (stop_search, then raise)
    prm.catch_sigint_signal = False
    merged: dict[str, Any] = {} if settings.user_portfolio else dict(portfolio or {})
    merged.update(params or {})
    merged.update(settings.params)
    if settings.subsolvers is not None:
        merged["subsolvers"] = list(settings.subsolvers)
    check_param_names(merged)
    for name, value in merged.items():
        if isinstance(value, (list, tuple)):
            repeated = getattr(prm, name)
            repeated.clear()
            repeated.extend(list(value))
        else:
            try:
                setattr(prm, name, value)
            except (TypeError, ValueError) as exc:
                raise OptionError(f"params: {name}={value!r} is invalid "
                                  f"({exc})") from None
    return solver
