"""Checks of execution-model option values, shared by the models' ``OPTIONS``
tables (:mod:`.options`) and the text of a spec's label."""

from __future__ import annotations

import math
from typing import Any

from ..errors import OptionError

__all__ = ["number_text", "positive_number"]


def positive_number(key: str, value: Any) -> float:
    """An option's value that must be a finite number ``> 0``, as a float."""
    if (isinstance(value, bool) or not isinstance(value, (int, float))
            or not math.isfinite(value) or value <= 0):
        raise OptionError(f"execution {key}={value!r} must be a positive number")
    return float(value)


def number_text(value: float) -> str:
    """``1.0 -> "1"``, other floats by ``repr``."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))
