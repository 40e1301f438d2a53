"""Assertions on validation reports shared by the validator tests (not a
test module)."""

from __future__ import annotations

from opt_sched.validation import RULES, ValidationReport, Violation


def broken_rules(report: ValidationReport) -> set[int]:
    """The rules the report finds broken at least once."""
    return {rule for rule, n in report.by_rule().items() if n}


def only_rule(report: ValidationReport, rule: int, count: int = 1) -> list[Violation]:
    """The report breaks ``rule`` alone, ``count`` times; each violation is
    named and worded as that rule's (``rule N name: ...``). The violations."""
    assert broken_rules(report) == {rule}, report.format()
    assert report.num_violations == count, report.format()
    found = list(report.violations)
    for violation in found:
        assert violation.rule == rule and violation.name == RULES[rule]
        assert violation.message.startswith(f"rule {rule} {RULES[rule]}: ")
    return found
