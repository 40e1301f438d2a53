"""The exact model of ``hpc-io-reserved`` (:mod:`opt_sched.exact.registry`):
HPC-IO with releases on one partition that is partly reserved when the
schedule starts (a window of an online schedule, ``models/window-gap.md``).

Both sides of the optimum, through :func:`opt_sched.solve` and its
certification:

1. **the incumbent**: ``options.incumbent``, a feasible schedule that
   respects the reservations (for the window gap: the online schedule or
   the best heuristic one); without one, the earliest schedule of the jobs
   in release order (:func:`.earliest.simulate`, greedy);
2. **the schedule search** (``search_share`` of the time left; none when
   0): CP-SAT on the rounded-down model hinted with the incumbent, its
   orders simulated at the true lengths
   (:func:`.reserved_search.reserved_search`); its schedule replaces the
   incumbent iff its value is strictly smaller (``info["found_by"]``:
   ``"cpsat"`` or ``"incumbent"``; ``info["search_value"]`` the search's
   value even when it did not win);
3. **the bound** (the rest of the time; none when ``search_share`` is 1):
   CP-SAT on the rounded-down relaxation, the best schedule as its
   incumbent, its objective's domain from the larger of the front door's
   combinatorial bound and ``known_bound`` (a bound the caller proved, e.g.
   the window's interval LP) (:func:`.reserved.reserved_bound`). Its
   converted bound is ``Outcome.bound`` (also ``info["reserved_bound"]``,
   ``info["closed"]``: the relaxation solved to optimality).

The outcome's status is ``feasible`` (certification decides ``optimal``):
:func:`opt_sched.exact.certify.certify` validates the schedule with the
reservations (``options.reserved.validate``), recomputes its value and
checks the bound against it.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

from ...errors import OptionError
from ...instance import Instance
from ...objectives import FLOW_OBJECTIVES, objective_value
from ...reservations import Reservations
from ...schedule import Schedule
from ..cpsat.settings import HpcIoCpsatSettings
from ..deadline import Deadline
from ..problems import ReservedPlatform
from ..result import Outcome, SolveStatus

__all__ = ["OBJECTIVES", "OPTIONS", "ReservedCpsatSettings", "earliest_incumbent",
           "run"]

OBJECTIVES = ("makespan", *FLOW_OBJECTIVES)
"""The window's objectives: makespan, max flow stretch, mean flow time."""

_OWN = ("time_limit", "seed", "num_workers", "resolution", "warm")
"""Fields of :class:`HpcIoCpsatSettings` that the bound takes by name, or
not at all (``warm``)."""


@dataclass(frozen=True)
class ReservedCpsatSettings(HpcIoCpsatSettings):
    """The options of ``hpc-io-reserved/cpsat``: those of
    :class:`HpcIoCpsatSettings` (for the bound's model; ``export`` and
    ``warm`` do not apply), and

    - ``reserved``: the reserved platform
      (:class:`~opt_sched.exact.problems.ReservedPlatform`, e.g. a
      :class:`~opt_sched.experiments.window_instance.Window`); required
      (:func:`opt_sched.exact.problems.check_instance` says so in one line);
    - ``incumbent``: a feasible schedule that respects the reservations
      (``None``: the earliest schedule in release order);
    - ``known_bound``: a lower bound the caller proved (``None``: none);
    - ``search_share``: the share of the time for the schedule search, the
      rest for the bound (module doc).
    """

    warm: bool = False
    reserved: ReservedPlatform | None = None
    incumbent: Schedule | None = None
    known_bound: float | None = None
    search_share: float = 0.5

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.warm:
            raise OptionError("warm=True: hpc-io-reserved starts from its incumbent "
                              "(warm does not apply)")
        if self.reserved is not None and not (
                isinstance(getattr(self.reserved, "reservations", None), Reservations)
                and callable(getattr(self.reserved, "validate", None))):
            raise OptionError(f"reserved={type(self.reserved).__name__}: not a "
                              "reserved platform (instance, reservations, validate)")
        if self.incumbent is not None and not isinstance(self.incumbent, Schedule):
            raise OptionError(f"incumbent={type(self.incumbent).__name__}: not a "
                              "Schedule")
        if self.known_bound is not None and (
                isinstance(self.known_bound, bool)
                or not isinstance(self.known_bound, (int, float))
                or not math.isfinite(self.known_bound)):
            raise OptionError(f"known_bound={self.known_bound!r} must be a finite "
                              "number")
        share = self.search_share
        if isinstance(share, bool) or not isinstance(share, (int, float)) \
                or not 0 <= share <= 1:
            raise OptionError(f"search_share={share!r} must be a share in [0, 1]")

    def _bad_export(self) -> None:
        raise OptionError(f"export={self.export!r}: hpc-io-reserved writes no model")


OPTIONS = ReservedCpsatSettings
"""The options record of this model (:mod:`opt_sched.exact.registry`)."""


def earliest_incumbent(instance: Instance, reservations: Reservations) -> Schedule:
    """The earliest schedule of the jobs in release order (ties: instance
    order) that respects ``reservations``: greedy list scheduling with the
    I/O first come (:func:`.earliest.simulate`)."""
    from .earliest import plans_of, simulate, to_schedule

    order = sorted(range(instance.num_jobs),
                   key=lambda i: (instance.jobs[i].release, i))
    timing = simulate(plans_of(instance), instance.platform.partitions[0].nodes,
                      reservations, order, None, mode="greedy")
    if timing is None:  # pragma: no cover - greedy list scheduling ends
        raise RuntimeError("the greedy simulation deadlocked (a bug)")
    return to_schedule(instance, timing, "earliest-release-order")


def _bound_options(options: ReservedCpsatSettings) -> dict[str, Any]:
    """The CP-SAT settings the bound's model takes as ``**options``."""
    return {f.name: getattr(options, f.name)
            for f in dataclasses.fields(HpcIoCpsatSettings)
            if f.init and f.name not in _OWN}


def run(instance: Instance, objective: str, options: ReservedCpsatSettings, *,
        lower_bound: float | None, deadline: Deadline) -> Outcome:
    """The incumbent, the schedule search, the bound (module doc)."""
    from .reserved import reserved_bound
    from .reserved_search import reserved_search

    reserved = options.reserved
    if reserved is None:  # pragma: no cover - check_instance refuses it first
        raise OptionError("reserved=None: problem='hpc-io-reserved' needs the "
                          "reserved platform")
    reservations = reserved.reservations
    best = options.incumbent if options.incumbent is not None \
        else earliest_incumbent(instance, reservations)
    value = objective_value(instance, best, objective)
    info: dict[str, Any] = {"found_by": "incumbent", "incumbent_value": value}
    share = options.search_share
    if share > 0:
        clock = deadline if share >= 1 else Deadline(share * deadline.remaining())
        search = reserved_search(instance, reservations, objective, best,
                                 time_limit=options.time_limit,
                                 num_workers=options.num_workers, seed=options.seed,
                                 deadline=clock)
        info["search"] = search.info
        if search.schedule is not None:
            found = objective_value(instance, search.schedule, objective)
            info["search_value"] = found
            if found < value:
                best, value = search.schedule, found
                info["found_by"] = "cpsat"
    floor = max((b for b in (lower_bound, options.known_bound) if b is not None),
                default=0.0)
    bound: float | None = floor if floor > 0 else None
    if share < 1:
        found_bound = reserved_bound(
            instance, reservations, objective, best, lower_bound=floor,
            time_limit=options.time_limit, num_workers=options.num_workers,
            seed=options.seed, resolution=options.resolution, deadline=deadline,
            **_bound_options(options))
        bound = found_bound.bound
        info.update(reserved_bound=found_bound.bound, closed=found_bound.closed,
                    bound_info=found_bound.info)
    return Outcome(SolveStatus.FEASIBLE, best, bound, info)
