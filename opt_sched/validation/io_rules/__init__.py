"""Execution models on the validator's side: the registry of I/O rules.

``Schedule.execution`` names the model a schedule was made under (SPEC §10);
the validator applies that model's I/O rule as rule 5. To add a model, write
one module here with a class that satisfies
:class:`~opt_sched.validation.io_rule.IoRule` and add one line to
:data:`IO_RULES`.
"""

from __future__ import annotations

from collections.abc import MutableMapping

from ...errors import ScheduleFormatError
from ...plugins import PluginMapping, describe
from ..io_rule import IoPhases, IoRule
from .exclusive import ExclusiveIo
from .shared import SharedIo

__all__ = ["IO_RULES", "IoPhases", "IoRule", "io_rule"]



def _check_plugin(name: str, rule: object) -> None:
    """A plug-in's rule: an :class:`IoRule` object for the model ``name``."""
    if isinstance(rule, type) or not isinstance(rule, IoRule):
        raise TypeError(f"{describe(rule)} is not an IoRule object (execution, "
                        f"name, io_ends, check)")
    if rule.execution != name:
        raise ValueError(f"the rule is for execution={rule.execution!r}, not {name!r}")


IO_RULES: MutableMapping[str, IoRule] = PluginMapping("io_rules", {
    "exclusive": ExclusiveIo(),
    "shared": SharedIo(),
}, _check_plugin)
"""Execution model name -> its I/O rule. Plug-ins of the entry-point group
``opt_sched.io_rules`` (:mod:`opt_sched.plugins`) join it on the first
lookup of a name it does not hold: a plug-in execution model's validator
side."""


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
