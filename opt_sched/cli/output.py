"""Machine-readable output: JSON on stdout, CSV and JSON files.

Full precision everywhere (the human tables of :mod:`.tables` round, these
never do). Files are written atomically through :mod:`opt_sched.files`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["jsonable", "print_json", "show_rows", "to_json"]


def jsonable(value: Any) -> Any:
    """``value`` with numpy scalars unwrapped and non-finite floats spelled
    out (JSON has no ``inf``: ``"inf"``, ``"-inf"``; NaN becomes ``null``)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        return jsonable(value.item())  # numpy scalars
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if value is not None and not isinstance(value, (str, int, float, bool)):
        try:
            import pandas as pd

            if pd.isna(value):
                return None
        except (ImportError, TypeError, ValueError):
            pass
        return str(value)
    return value


def to_json(data: Any) -> str:
    return json.dumps(jsonable(data), indent=1)


def print_json(data: Any) -> None:
    print(to_json(data), flush=True)


def show_rows(records: Sequence[Mapping[str, Any]], args: Any,
              title: str | None = None) -> None:
    """Print rows as JSON (``--json``, full precision) or as a table for
    people (:func:`.tables.render_table`; ``--plain`` forces plain text)."""
    if getattr(args, "json", False):
        print_json(list(records))
        return
    from .tables import render_table

    render_table(records, title=title, plain=True if getattr(args, "plain", False)
                 else None)
