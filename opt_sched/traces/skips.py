"""What a trace reader did not keep, and what it adjusted: counted, never silent.

Every job line of a trace is either kept or skipped for exactly one reason,
so ``kept + skipped == lines`` always holds (the readers check it). Kept jobs
whose fields were repaired by a documented rule (a missing requested time,
a requested time shorter than the run time) are counted as *adjustments*.
Callers print :meth:`SkipSummary.format`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from ..errors import InternalError

if TYPE_CHECKING:
    from .filters import Flurry

__all__ = ["ADJUSTMENTS", "SKIP_REASONS", "ReadingRule", "SizeChange", "SkipCounter",
           "SkipSummary"]

SKIP_REASONS: Mapping[str, str] = {
    "submit_unknown": "submit time unknown (-1)",
    "run_time_unknown": "run time unknown (-1)",
    "run_time_zero": "run time 0 (nothing to simulate)",
    "processors_unknown": "processors unknown (allocated and requested -1)",
    "processors_zero": "zero processors",
    "wider_than_machine": "wider than the machine",
    "negative_value": "a negative value other than -1",
    "not_finished": "still pending or running when the log was taken",
    "cancelled_unstarted": "cancelled before it started (status 5, run time <= 0)",
    "outside_time_range": "submitted outside --time-range",
    "flurry": "in a flurry (one user's burst of similar jobs)",
}
"""Skip reason code -> the sentence printed in summaries."""

ADJUSTMENTS: Mapping[str, str] = {
    "walltime_unknown": "requested time unknown: estimate := run time",
    "walltime_short": "requested time < run time: estimate := run time",
    "walltime_short_kept": "requested time < run time: kept (the job overruns "
                           "its estimate)",
    "run_time_zero_kept": "run time 0 kept: run time := 1 s (the smallest SWF "
                          "time unit)",
}
"""Adjustment code -> the sentence printed in summaries."""

_EXAMPLES = 5
_FLURRIES_SHOWN = 20


class ReadingRule(NamedTuple):
    """One line of a summary's reading: a convention or a filter, as applied.

    Attributes
    ----------
    kind
        ``"reading"`` (a convention: job size, failed jobs, estimates, time
        zone) or ``"filter"`` (a hygiene filter that may skip jobs).
    name
        ``"job size"``, ``"cancelled"``, ``"zero run time"``, ``"time
        range"``, ``"flurries"``, ...
    rule
        The rule, one sentence, with the option's value.
    count
        The jobs it concerned (skipped, changed or found).
    """

    kind: str
    name: str
    rule: str
    count: int

    def to_dict(self) -> dict[str, object]:
        return self._asdict()


class SizeChange(NamedTuple):
    """A job whose size depends on ``--job-size``: SWF fields 5 and 8 differ."""

    line: int
    id: str
    allocated: int
    requested: int

    def to_dict(self) -> dict[str, object]:
        return self._asdict()


@dataclass(frozen=True)
class SkipSummary:
    """Counts of kept, skipped and adjusted jobs of one trace file.

    Attributes
    ----------
    source
        The file (as given to the reader).
    lines
        Job lines (SWF) or job entries (Batsim) read.
    kept
        Jobs in the :class:`~opt_sched.traces.trace.Trace`.
    skipped
        Reason code (:data:`SKIP_REASONS`) -> number of jobs skipped.
    adjusted
        Adjustment code (:data:`ADJUSTMENTS`) -> number of kept jobs changed.
    examples
        Code -> the first few line numbers (SWF, 1-based) or job indices
        (Batsim, 0-based) concerned.
    notes
        Other remarks on the file (for instance a header count that differs
        from the lines read).
    machine_size
        The machine size used for ``wider_than_machine`` (``None``: unknown).
    unit
        ``"line"`` (SWF: ``examples`` are 1-based file lines) or ``"job"``
        (Batsim: 0-based indices in the ``jobs`` list).
    rules
        The reading and the filters applied, one :class:`ReadingRule` each
        (empty for a reader outside :func:`~opt_sched.traces.rules.records_to_trace`).
    size_changes
        The records whose processors differ between ``--job-size allocated``
        and ``requested`` (both known and unequal), in file order.
    flurries
        The flurries found (:func:`~opt_sched.traces.filters.find_flurries`),
        dropped or kept as ``--flurries`` says.
    """

    source: str
    lines: int
    kept: int
    skipped: Mapping[str, int] = field(default_factory=dict)
    adjusted: Mapping[str, int] = field(default_factory=dict)
    examples: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    machine_size: int | None = None
    unit: str = "line"
    rules: tuple[ReadingRule, ...] = ()
    size_changes: tuple[SizeChange, ...] = ()
    flurries: tuple[Flurry, ...] = ()

    @property
    def total_skipped(self) -> int:
        return sum(self.skipped.values())

    def brief(self) -> str:
        """What was skipped, in a few words for a summary's first line
        (``""`` when nothing was), for example ``45 of 60 jobs skipped: 45
        wider than the machine (1)``."""
        if not self.total_skipped:
            return ""
        read = "job lines" if self.unit == "line" else "jobs"
        reasons = ", ".join(f"{count} {self._reason(code)}"
                            for code, count in self.skipped.items())
        return f"{self.total_skipped} of {self.lines} {read} skipped: {reasons}"

    def _reason(self, code: str) -> str:
        """The sentence of skip reason ``code`` (with the machine size)."""
        text = SKIP_REASONS.get(code, code)
        if code == "wider_than_machine" and self.machine_size is not None:
            text += f" ({self.machine_size})"
        return text

    def format(self) -> str:
        """A few lines for the terminal, for example::

            KTH-SP2.swf.gz: 28481 job lines, 28481 kept, 0 skipped
        """
        where = self.unit
        read = "job lines" if where == "line" else "jobs"
        head = (f"{self.source}: {self.lines} {read}, {self.kept} kept, "
                f"{self.total_skipped} skipped")
        out = [head]
        for label, table, names in (("skipped", self.skipped, SKIP_REASONS),
                                    ("adjusted", self.adjusted, ADJUSTMENTS)):
            for code, count in table.items():
                text = names.get(code, code)
                if code == "wider_than_machine" and self.machine_size is not None:
                    text += f" ({self.machine_size})"
                shown = self.examples.get(code, ())
                if where == "line":
                    first = "line " + ", ".join(str(x) for x in shown)
                else:
                    first = ", ".join(f"jobs[{x}]" for x in shown)
                more = ", ..." if count > len(shown) else ""
                out.append(f"  {label:<8} {count:>6}  {text} ({first}{more})")
        for rule in self.rules:
            out.append(f"  {rule.kind:<8} {rule.name}: {rule.rule}")
            if rule.name == "flurries":
                out.extend(f"           flurry {flurry.describe()}"
                           for flurry in self.flurries[:_FLURRIES_SHOWN])
                if len(self.flurries) > _FLURRIES_SHOWN:
                    out.append(f"           ... {len(self.flurries) - _FLURRIES_SHOWN} "
                               f"more flurries (--json lists all)")
        out.extend(f"  note: {note}" for note in self.notes)
        return "\n".join(out)

    def to_dict(self) -> dict[str, object]:
        """The summary for ``--json``: counts, reasons, first lines, the
        reading's rules, the flurries and every job whose size depends on
        ``--job-size``."""
        def table(counts: Mapping[str, int], names: Mapping[str, str]) -> dict:
            return {code: {"count": count, "reason": names.get(code, code),
                           "examples": list(self.examples.get(code, ()))}
                    for code, count in counts.items()}

        return {"source": self.source, "unit": self.unit, "records": self.lines,
                "kept": self.kept, "skipped": self.total_skipped,
                "machine_size": self.machine_size,
                "skip_reasons": table(self.skipped, SKIP_REASONS),
                "adjustments": table(self.adjusted, ADJUSTMENTS),
                "rules": [rule.to_dict() for rule in self.rules],
                "flurries": [flurry.to_dict() for flurry in self.flurries],
                "size_changes": [change.to_dict() for change in self.size_changes],
                "notes": list(self.notes)}

    def __str__(self) -> str:
        return self.format()


@dataclass
class SkipCounter:
    """Mutable builder of a :class:`SkipSummary` used by the readers."""

    source: str
    unit: str = "line"
    skipped: dict[str, int] = field(default_factory=dict)
    adjusted: dict[str, int] = field(default_factory=dict)
    examples: dict[str, list[int]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def _count(self, table: dict[str, int], code: str, where: int) -> None:
        table[code] = table.get(code, 0) + 1
        first = self.examples.setdefault(code, [])
        if len(first) < _EXAMPLES:
            first.append(where)

    def skip(self, code: str, where: int) -> None:
        if code not in SKIP_REASONS:
            raise InternalError(f"unknown skip reason {code!r}")
        self._count(self.skipped, code, where)

    def adjust(self, code: str, where: int) -> None:
        if code not in ADJUSTMENTS:
            raise InternalError(f"unknown adjustment {code!r}")
        self._count(self.adjusted, code, where)

    def _count_many(self, table: dict[str, int], code: str,
                    where: Sequence[int]) -> None:
        count = len(where)
        if not count:
            return
        table[code] = table.get(code, 0) + count
        first = self.examples.setdefault(code, [])
        first.extend(int(x) for x in where[:max(0, _EXAMPLES - len(first))])

    def skip_many(self, code: str, where: Sequence[int]) -> None:
        """Skip ``len(where)`` jobs for ``code`` (``where``: their lines)."""
        if code not in SKIP_REASONS:
            raise InternalError(f"unknown skip reason {code!r}")
        self._count_many(self.skipped, code, where)

    def adjust_many(self, code: str, where: Sequence[int]) -> None:
        """Count ``len(where)`` adjusted jobs (``where``: their lines)."""
        if code not in ADJUSTMENTS:
            raise InternalError(f"unknown adjustment {code!r}")
        self._count_many(self.adjusted, code, where)

    def summary(self, lines: int, kept: int,
                machine_size: int | None = None, *,
                rules: Sequence[ReadingRule] = (),
                size_changes: Sequence[SizeChange] = (),
                flurries: Sequence[Flurry] = ()) -> SkipSummary:
        """Freeze the counts; raise :class:`InternalError` if a job was lost."""
        skipped = sum(self.skipped.values())
        if kept + skipped != lines:
            raise InternalError(f"{self.source}: {lines} jobs read but {kept} kept "
                                f"+ {skipped} skipped (a silent drop)")
        return SkipSummary(self.source, lines, kept, dict(self.skipped),
                           dict(self.adjusted),
                           {k: tuple(v) for k, v in self.examples.items()},
                           tuple(self.notes), machine_size, self.unit,
                           tuple(rules), tuple(size_changes), tuple(flurries))
