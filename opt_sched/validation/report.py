"""What the validator says: the rule table, violations, the report.

Every violation is *counted*; up to ``max_per_rule`` of each rule are
*stored* with a one-line message that starts with ``"rule <n> <name>:"``.
Rule 5 is the I/O rule of the schedule's execution model (SPEC §10), so its
name comes from that model (``exclusive-io`` for the default one); the other
names are fixed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "IO_RULE",
    "MAX_PER_RULE",
    "RULES",
    "Collector",
    "ValidationReport",
    "Violation",
    "format_time",
    "name_list",
]

RULES: dict[int, str] = {
    0: "job-coverage",
    1: "release-and-dependencies",
    2: "phase-lengths",
    3: "phase-order",
    4: "node-capacity",
    5: "exclusive-io",
    6: "pack-discipline",
    7: "walltime-kill",
}
"""Rule number -> rule name (SPEC §3 rules 1-6, plus 0 and 7 of SPEC §9).

Rule 5 is named here after the default execution model; a schedule made
under another model is reported with that model's rule name.
"""

IO_RULE = 5
"""The number of the execution model's I/O rule."""

MAX_PER_RULE = 1000
"""Violations stored per rule by default (all of them are counted)."""

LISTED_IN_ERROR = 10
_LISTED_IN_TEXT = 50
_NAMES_IN_MESSAGE = 12


def format_time(value: float) -> str:
    """A time for a message: up to 10 significant digits, no trailing zeros."""
    return f"{value:.10g}"


def name_list(items: Sequence[str]) -> str:
    """``"a, b, c"``, cut after a dozen names with how many more there are."""
    shown = ", ".join(items[:_NAMES_IN_MESSAGE])
    more = len(items) - _NAMES_IN_MESSAGE
    return shown + (f", ... ({more} more)" if more > 0 else "")


@dataclass(frozen=True)
class Violation:
    """One broken rule: which rule, which jobs and phases, when.

    ``phases`` name phases as ``"<job>:compute[<j>]"`` or ``"<job>:io[<j>]"``;
    ``time`` is the moment the violation shows (``None`` when it has none,
    such as a job missing from the schedule). ``message`` is one line that
    starts with ``"rule <n> <name>:"``.
    """

    rule: int
    name: str
    jobs: tuple[str, ...]
    phases: tuple[str, ...]
    time: float | None
    message: str

    def __str__(self) -> str:
        return self.message

    def to_dict(self) -> dict[str, Any]:
        return {"rule": self.rule, "name": self.name, "jobs": list(self.jobs),
                "phases": list(self.phases), "time": self.time,
                "message": self.message}


@dataclass(frozen=True)
class ValidationReport:
    """The verdict on one schedule.

    ``violations`` holds the stored violations (at most ``max_per_rule`` per
    rule, in rule order); ``counts`` maps every rule number to the number of
    violations *found*, stored or not. ``tolerance`` is the largest absolute
    tolerance applied to any phase end, ``rule`` how every tolerance was
    derived (:class:`~opt_sched.validation.tolerance.Tolerance`), and
    ``scale`` the instance scale ``D`` that bounds the checkable times
    (:mod:`opt_sched.validation.tolerance`); ``horizon`` is the schedule's
    largest ``|C_i|``, for information only. ``execution`` is the execution
    model whose I/O rule was applied and ``rule_names`` the name of every
    rule under it.
    """

    violations: tuple[Violation, ...]
    tolerance: float
    counts: Mapping[int, int] = field(default_factory=dict)
    horizon: float = 0.0
    instance: str = ""
    method: str = ""
    checked_packs: bool = False
    scale: float = 1.0
    execution: str = "exclusive"
    rule_names: Mapping[int, str] = field(default_factory=lambda: dict(RULES))
    table: Any = field(default=None, repr=False, compare=False)
    """The phase table the rules checked (:mod:`.table`), for consumers that
    measure the same schedule (:func:`opt_sched.metrics.summary`); not part
    of the verdict."""
    rule: Any = None
    """How each tolerance was derived (a
    :class:`~opt_sched.validation.tolerance.Tolerance`), ``None`` if unknown."""

    def tolerance_text(self) -> str:
        """``"tolerance up to 3e-10: 8 ulps + 1e-10 x length"``."""
        how = f": {self.rule.describe()}" if self.rule is not None else ""
        return f"tolerance up to {self.tolerance:.3g}{how}"

    @property
    def feasible(self) -> bool:
        """No rule is broken."""
        return self.num_violations == 0

    @property
    def num_violations(self) -> int:
        """Every violation found (may exceed ``len(violations)``)."""
        return sum(self.counts.values()) if self.counts else len(self.violations)

    def by_rule(self) -> dict[int, int]:
        """Rule number -> violations found, for every rule."""
        if self.counts:
            return {rule: int(self.counts.get(rule, 0)) for rule in self.rule_names}
        out = dict.fromkeys(self.rule_names, 0)
        for v in self.violations:
            out[v.rule] += 1
        return out

    def summary_line(self) -> str:
        """One line: verdict, count, and the counts of the broken rules."""
        what = f"{self.instance!r}" if self.instance else "schedule"
        if self.method:
            what += f" ({self.method})"
        if self.feasible:
            return f"{what}: feasible ({self.tolerance_text()})"
        broken = ", ".join(f"rule {rule} {self.rule_names[rule]}: {n}"
                           for rule, n in self.by_rule().items() if n)
        return (f"{what}: INFEASIBLE, {self.num_violations} violation"
                f"{'s' if self.num_violations != 1 else ''} ({broken}; "
                f"{self.tolerance_text()})")

    def format(self, limit: int = _LISTED_IN_TEXT) -> str:
        """The summary line and the first ``limit`` violations, one per line."""
        lines = [self.summary_line()]
        lines += [f"  {v.message}" for v in self.violations[:limit]]
        hidden = self.num_violations - min(limit, len(self.violations))
        if hidden > 0:
            lines.append(f"  ... and {hidden} more")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.format()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"instance": self.instance, "method": self.method,
                "feasible": self.feasible, "num_violations": self.num_violations,
                "tolerance": self.tolerance,
                "tolerance_rule": None if self.rule is None else self.rule.to_dict(),
                "scale": self.scale,
                "horizon": self.horizon, "execution": self.execution,
                "checked_packs": self.checked_packs,
                "counts": {self.rule_names[r]: n for r, n in self.by_rule().items()},
                "violations": [v.to_dict() for v in self.violations]}


class Collector:
    """Counts every violation and stores the first ``cap`` of each rule.

    ``names`` maps rule numbers to names (:data:`RULES`, with rule 5 renamed
    after the execution model).
    """

    def __init__(self, cap: int, names: Mapping[int, str] = RULES) -> None:
        self.cap = cap
        self.names = dict(names)
        self.counts = dict.fromkeys(self.names, 0)
        self.stored: dict[int, list[Violation]] = {rule: [] for rule in self.names}

    def room(self, rule: int) -> int:
        """How many more violations of ``rule`` would be stored."""
        return max(0, self.cap - len(self.stored[rule]))

    def found(self, rule: int, count: int) -> None:
        """``count`` violations found (store the ones wanted with :meth:`add`)."""
        self.counts[rule] += int(count)

    def add(self, rule: int, text: str, jobs: Iterable[str] = (),
            phases: Iterable[str] = (), time: float | None = None) -> None:
        """Store one violation that :meth:`found` has already counted."""
        if len(self.stored[rule]) >= self.cap:
            return
        name = self.names[rule]
        self.stored[rule].append(Violation(
            rule, name, tuple(jobs), tuple(phases),
            None if time is None else float(time), f"rule {rule} {name}: {text}"))

    def one(self, rule: int, text: str, jobs: Iterable[str] = (),
            phases: Iterable[str] = (), time: float | None = None) -> None:
        """Count and store one violation."""
        self.found(rule, 1)
        self.add(rule, text, jobs, phases, time)

    def violations(self) -> tuple[Violation, ...]:
        return tuple(v for rule in self.names for v in self.stored[rule])
