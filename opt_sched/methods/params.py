"""Parameters of methods and stages: name, reader, default, documentation.

A :class:`Param` turns the text of ``key=value`` into a value and says why
it cannot (:class:`ValueError` with the reason, which the registry turns into
a :class:`~opt_sched.errors.SpecError` naming the method, the key and the
value). Readers for the common kinds: :func:`positive_number`,
:func:`positive_int`, :func:`integer_at_least`, :func:`choice`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Param", "choice", "integer_at_least", "positive_int", "positive_number"]

Reader = Callable[[str], object]
"""``text -> value``; raises ``ValueError(reason)`` for a bad value."""


@dataclass(frozen=True)
class Param:
    """One ``key=value`` parameter of a method or stage.

    Attributes
    ----------
    name
        The key as written in specs (``S``, ``R``, ``order``).
    read
        The reader: text to value, ``ValueError(reason)`` when bad.
    default
        The value when the key is not written. ``None`` means "not set":
        the method decides (e.g. ``lpt``'s ``R``: every partition).
    shown
        Always written in the canonical spec, even at its default (``S`` of
        ``make-pack(S=1)``, as the seed's labels write it). Otherwise a
        parameter is written only when it differs from its default.
    doc
        One line for listings (``opt-sched methods``).
    """

    name: str
    read: Reader
    default: object = None
    shown: bool = False
    doc: str = ""


def positive_number(*, allow_inf: bool = False,
                    words: tuple[str, ...] = ()) -> Reader:
    """A number ``> 0`` (finite unless ``allow_inf``: ``inf`` reads as
    infinity), or one of ``words`` kept as text (e.g. ``alpha``)."""

    def read(text: str) -> object:
        if text in words:
            return text
        options = ["a number > 0"] + (["'inf'"] if allow_inf else []) + [
            repr(w) for w in words]
        expected = ", ".join(options[:-1]) + " or " + options[-1] if len(
            options) > 1 else options[0]
        try:
            value = float(text)
        except ValueError:
            raise ValueError(f"is not {expected}") from None
        if math.isnan(value) or value <= 0:
            raise ValueError("must be > 0")
        if math.isinf(value) and not allow_inf:
            raise ValueError("must be finite")
        return value

    return read


def integer_at_least(low: int) -> Reader:
    """An integer ``>= low``."""

    def read(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise ValueError("is not an integer") from None
        if value < low:
            raise ValueError(f"must be >= {low}")
        return value

    return read


positive_int = integer_at_least(1)
"""An integer ``>= 1``."""


def choice(*options: str) -> Reader:
    """One of ``options`` (exact text)."""

    def read(text: str) -> str:
        if text not in options:
            raise ValueError(f"is not one of {', '.join(options)}")
        return text

    return read
