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

from ..errors import InternalError

__all__ = ["ADJUSTMENTS", "SKIP_REASONS", "SkipCounter", "SkipSummary"]

SKIP_REASONS: Mapping[str, str] = {
    "submit_unknown": "submit time unknown (-1)",
    "run_time_unknown": "run time unknown (-1)",
    "run_time_zero": "run time 0 (nothing to simulate)",
    "processors_unknown": "processors unknown (allocated and requested -1)",
    "processors_zero": "zero processors",
    "wider_than_machine": "wider than the machine",
    "negative_value": "a negative value other than -1",
}
"""Skip reason code -> the sentence printed in summaries."""

ADJUSTMENTS: Mapping[str, str] = {
    "walltime_unknown": "requested time unknown: estimate := run time",
    "walltime_short": "requested time < run time: estimate := run time",
    "walltime_short_kept": "requested time < run time: kept (the job overruns "
                           "its estimate)",
}
"""Adjustment code -> the sentence printed in summaries."""

_EXAMPLES = 5


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
        out.extend(f"  note: {note}" for note in self.notes)
        return "\n".join(out)

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

    def skip_many(self, code: str, where: Sequence[int]) -> None:
        """Skip ``len(where)`` jobs for ``code`` (``where``: their lines)."""
        for number in where:
            self.skip(code, int(number))

    def adjust_many(self, code: str, where: Sequence[int]) -> None:
        """Count ``len(where)`` adjusted jobs (``where``: their lines)."""
        for number in where:
            self.adjust(code, int(number))

    def summary(self, lines: int, kept: int,
                machine_size: int | None = None) -> SkipSummary:
        """Freeze the counts; raise :class:`InternalError` if a job was lost."""
        skipped = sum(self.skipped.values())
        if kept + skipped != lines:
            raise InternalError(f"{self.source}: {lines} jobs read but {kept} kept "
                                f"+ {skipped} skipped (a silent drop)")
        return SkipSummary(self.source, lines, kept, dict(self.skipped),
                           dict(self.adjusted),
                           {k: tuple(v) for k, v in self.examples.items()},
                           tuple(self.notes), machine_size, self.unit)
