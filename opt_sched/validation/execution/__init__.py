"""Execution models on the validator's side: the registry of I/O rules.

``Schedule.execution`` names the model a schedule was made under (SPEC §10);
the validator applies that model's I/O rule as rule 5. To add a model, write
one module here with a class that satisfies
:class:`~opt_sched.validation.io_rule.IoRule` and add one line to
:data:`IO_RULES`.
"""

from __future__ import annotations

from ...errors import ScheduleFormatError
from ..io_rule import IoPhases, IoRule
from .exclusive import ExclusiveIo
from .shared import SharedIo

__all__ = ["IO_RULES", "IoPhases", "IoRule", "io_rule"]

IO_RULES: dict[str, IoRule] = {
    "exclusive": ExclusiveIo(),
    "shared": SharedIo(),
}
"""Execution model name -> its I/O rule."""


def io_rule(execution: str) -> IoRule:
    """The I/O rule of the model ``execution``.

    Raises
    ------
    ScheduleFormatError
        No rule is registered under that name.
    """
    try:
        return IO_RULES[execution]
    except (KeyError, TypeError):
        raise ScheduleFormatError(
            f"schedule: execution={execution!r} is not a known execution model "
            f"(known: {', '.join(sorted(IO_RULES))})") from None
