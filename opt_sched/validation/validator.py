"""The validator's front door: :func:`validate` and :func:`assert_feasible`."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..errors import InfeasibleScheduleError, OptionError
from ..instance import Instance
from ..schedule import Schedule
from .capacity import check_node_capacity
from .coverage import check_coverage
from .io_rules import io_rule
from .kills import check_kills
from .lengths import check_phase_lengths
from .machines import check_machines
from .order import check_phase_order
from .packs import check_pack_discipline
from .release import check_release_and_dependencies
from .report import (
    IO_RULE,
    LISTED_IN_ERROR,
    MAX_PER_RULE,
    RULES,
    Collector,
    ValidationReport,
)
from .table import build_table
from .tolerance import REL_TOL, ULPS, PhaseTolerances, Tolerance, instance_scale

__all__ = ["assert_feasible", "validate"]


def _check_options(rel_tol: object, ulps: object, resolution: object,
                   check_packs: object, max_per_rule: object) -> None:
    for name, value in (("rel_tol", rel_tol), ("ulps", ulps),
                        ("resolution", resolution)):
        if (isinstance(value, bool) or not isinstance(value, (int, float))
                or not math.isfinite(value) or value < 0):
            raise OptionError(f"validate: {name}={value!r} must be a finite number "
                              ">= 0")
    if isinstance(max_per_rule, bool) or not isinstance(max_per_rule, int) \
            or max_per_rule < 0:
        raise OptionError(f"validate: max_per_rule={max_per_rule!r} must be an "
                          "integer >= 0")
    if check_packs not in (None, True, False):
        raise OptionError(f"validate: check_packs={check_packs!r} must be None, "
                          "True or False")


def validate(instance: Instance, schedule: Schedule, *, rel_tol: float = REL_TOL,
             ulps: float = ULPS, resolution: float = 0.0,
             check_packs: bool | None = None,
             max_per_rule: int = MAX_PER_RULE) -> ValidationReport:
    """Check ``schedule`` against every rule (see :mod:`opt_sched.validation`).

    Parameters
    ----------
    instance, schedule
        The instance and a schedule of it. The shape of each entry is checked
        first (:meth:`Schedule.check_shape` with ``coverage=False``).
    rel_tol, ulps
        The tolerance of a comparison involving the end of a phase of length
        ``L`` near time ``t`` is ``min(ulps * u(t) + rel_tol * L, L / 2)``,
        ``u(t)`` the spacing of floats at ``t``
        (:mod:`opt_sched.validation.tolerance`): what rounding can lose at
        the magnitudes compared, never enough to hide a phase.
    resolution
        The precision the schedule's times were written with, when coarser
        than floating point (Batsim's ``out_jobs.csv``: ``1e-6``); added to
        every tolerance. Default 0: the times are the method's own floats.
    check_packs
        ``None``: check rule 6 iff ``schedule.packs`` is set. ``True``: always
        (a schedule without packs then violates it). ``False``: never.
    max_per_rule
        Violations stored per rule; all are counted.

    Returns
    -------
    ValidationReport
        Every violation found; ``report.feasible`` is the verdict.

    Raises
    ------
    ScheduleFormatError
        The schedule is malformed (not infeasible: unreadable): a time that
        is not a finite number, a wrong number of phases, a partition that
        does not exist, an unknown execution model.
    OptionError
        ``rel_tol``, ``ulps``, ``resolution``, ``check_packs`` or
        ``max_per_rule`` is out of range.
    InstanceError
        The instance scale ``D`` overflows (no tolerance can be derived).
    """
    _check_options(rel_tol, ulps, resolution, check_packs, max_per_rule)
    rule = io_rule(schedule.execution)
    schedule.check_shape(instance, coverage=False)
    scale = instance_scale(instance)
    out = Collector(max_per_rule, {**RULES, IO_RULE: rule.name})
    entries = check_coverage(instance, schedule, out)
    table = build_table(instance, schedule, entries, rule)
    tol = PhaseTolerances.of(Tolerance(float(rel_tol), float(ulps), float(resolution)),
                             table)
    check_release_and_dependencies(instance, table, tol, out)
    check_phase_lengths(instance, table, tol, scale, out)
    check_phase_order(table, tol, out)
    check_node_capacity(instance, table, tol, out)
    check_machines(instance, table, tol.job, out)
    rule.check(instance, schedule, table, tol, out)
    packs = schedule.packs is not None if check_packs is None else check_packs
    if packs:
        check_pack_discipline(instance, schedule, table, tol, out)
    check_kills(instance, table, tol, out,
                kills_at_walltime=schedule.info.get("kill_at_walltime") is True)
    ends = table.end[table.listed]
    horizon = float(np.max(np.abs(ends))) if len(ends) else 0.0
    return ValidationReport(out.violations(), tol.largest, dict(out.counts), horizon,
                            instance.name, schedule.method, packs, scale,
                            rule.execution, dict(out.names), table, tol.rule)


def assert_feasible(instance: Instance, schedule: Schedule,
                    **kwargs: Any) -> ValidationReport:
    """:func:`validate`, raising if the schedule is infeasible.

    Raises
    ------
    InfeasibleScheduleError
        One line: the verdict, then the first 10 violations separated by
        ``"; "`` and how many more there are.
    """
    report = validate(instance, schedule, **kwargs)
    if not report.feasible:
        listed = [v.message for v in report.violations[:LISTED_IN_ERROR]]
        more = report.num_violations - len(listed)
        tail = f"; ... and {more} more" if more > 0 else ""
        raise InfeasibleScheduleError(
            f"{report.summary_line()}: {'; '.join(listed)}{tail}")
    return report
