"""Tables for people: fixed decimals, gaps in percent, aligned columns.

Each column is shown in one of a few styles, chosen by its name (``STYLES``)
or else by its values:

- ``number``: every value with the same number of decimals ``d``, the
  smallest ``d <= 4`` that writes every value of the column exactly (``35``
  and ``37``; ``20.5`` and ``11.0``; ``1.3333`` when no ``d`` is exact),
  with thousands separators: ``13,881.5``;
- ``percent``: a fraction ``g`` shown as ``100 g`` with two decimals,
  ``10.95 %`` (the gap ``(x - L) / L`` of SPEC §7);
- ``seconds``: two decimals; ``flag``: ``yes`` / ``no``; ``count``: an
  integer; ``text``: as it is.

Missing values are ``-``, infinities ``inf``. Numbers are right-aligned.
On a terminal the table is drawn with ``rich``; otherwise, or with
``--plain``, as plain aligned text that ``grep`` and ``awk`` can read. The
CSV and JSON outputs (:mod:`.output`) keep full precision.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TextIO

__all__ = ["STYLES", "column_style", "format_column", "render_table"]

STYLES: dict[str, str] = {
    "gap": "percent",
    "at_least": "percent",
    "solver_gap": "percent",
    "seconds": "seconds",
    "wall_time": "seconds",
    "bound_is_optimum": "flag",
    "num_packs": "count",
    "jobs": "count",
}

HEADERS: dict[str, str] = {
    "lower_bound": "best bound",
    "best_found": "best found",
    "at_least": "at least",
    "gap": "at most (gap)",
    "bound_is_optimum": "bound is optimum",
    "exact_status": "exact status",
    "max_stretch": "max stretch",
    "mean_pack_max_stretch": "mean pack max stretch",
    "num_packs": "packs",
    "sensibility": "S",
}

_MAX_DECIMALS = 4


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _is_number(value: Any) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)) or (
        hasattr(value, "dtype") and getattr(value.dtype, "kind", "") in "iuf")


def column_style(name: str, values: Sequence[Any]) -> str:
    """The style of column ``name`` (see the module docstring)."""
    if name in STYLES:
        return STYLES[name]
    present = [v for v in values if not _missing(v)]
    if present and all(isinstance(v, bool) or type(v).__name__ == "bool_"
                       for v in present):
        return "flag"
    if present and all(_is_number(v) for v in present):
        return "number"
    return "text"


def _decimals(values: Sequence[float]) -> int:
    """The fewest decimals ``d <= 4`` that write every value exactly."""
    finite = [float(v) for v in values if math.isfinite(float(v))]
    for d in range(_MAX_DECIMALS + 1):
        if all(abs(round(v, d) - v) <= 1e-9 * max(1.0, abs(v)) for v in finite):
            return d
    return _MAX_DECIMALS


def _special(value: Any) -> str | None:
    if _missing(value):
        return "-"
    if isinstance(value, (int, float)) and math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return None


_FIXED_FORMATS: dict[str, Callable[[Any], str]] = {
    "percent": lambda v: f"{100 * float(v):.2f} %",
    "seconds": lambda v: f"{float(v):.2f}",
    "count": lambda v: f"{int(v):,}",
}
"""The styles written the same way whatever the column holds."""


def format_column(name: str, values: Sequence[Any]) -> tuple[str, list[str]]:
    """``(style, texts)`` of one column."""
    style = column_style(name, values)
    if style == "number":
        d = _decimals([v for v in values if _special(v) is None])
        out = [_special(v) or f"{float(v):,.{d}f}" for v in values]
    elif style in _FIXED_FORMATS:
        write = _FIXED_FORMATS[style]
        out = [_special(v) or write(v) for v in values]
    elif style == "flag":
        out = ["-" if _missing(v) else ("yes" if v else "no") for v in values]
    else:
        out = ["-" if _missing(v) else str(v) for v in values]
    return style, out


def _columns(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    names: list[str] = []
    for row in rows:
        names.extend(k for k in row if k not in names)
    return names


def _plain(headers: list[str], cells: list[list[str]], right: list[bool],
           title: str | None, stream: TextIO) -> None:
    widths = [max([len(h)] + [len(row[c]) for row in cells])
              for c, h in enumerate(headers)]

    def line(texts: list[str]) -> str:
        parts = [t.rjust(w) if r else t.ljust(w)
                 for t, w, r in zip(texts, widths, right)]
        return "  ".join(parts).rstrip()

    if title:
        print(title, file=stream)
    print(line(headers), file=stream)
    print("  ".join("-" * w for w in widths), file=stream)
    for row in cells:
        print(line(row), file=stream)


def _rich(headers: list[str], cells: list[list[str]], right: list[bool],
          title: str | None, stream: TextIO) -> None:
    from rich import box
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title, box=box.SIMPLE_HEAD, title_justify="left",
                  header_style="bold")
    widths = [max([len(h)] + [len(row[c]) for row in cells])
              for c, h in enumerate(headers)]
    for header, r, width in zip(headers, right, widths):
        table.add_column(header, justify="right" if r else "left", no_wrap=True,
                         min_width=width)
    for row in cells:
        table.add_row(*row)
    console = Console(file=stream)
    natural = sum(w + 3 for w in widths) + 1
    if natural > console.width:  # never cut a value: let the terminal wrap
        console = Console(file=stream, width=natural)
    console.print(table)


def render_table(rows: Sequence[Mapping[str, Any]], *, title: str | None = None,
                 plain: bool | None = None, stream: TextIO | None = None) -> None:
    """Print ``rows`` (dicts sharing their keys) as an aligned table.

    ``plain=None`` chooses rich on a terminal and plain text otherwise.
    """
    stream = sys.stdout if stream is None else stream
    if plain is None:
        plain = not (hasattr(stream, "isatty") and stream.isatty())
    names = _columns(rows)
    formatted = [format_column(n, [row.get(n) for row in rows]) for n in names]
    headers = [HEADERS.get(n, n.replace("_", " ")) for n in names]
    right = [style not in ("text", "flag") for style, _ in formatted]
    cells = [[texts[i] for _, texts in formatted] for i in range(len(rows))]
    (_plain if plain else _rich)(headers, cells, right, title, stream)
