"""Matplotlib for files: the pyplot module on a non-interactive backend, and
a figure saved atomically and closed -- the one way every command, campaign
and study draws and writes a picture."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..files import atomic_path

__all__ = ["pyplot", "save_figure"]


def pyplot() -> Any:
    """``matplotlib.pyplot``, with the non-interactive ``Agg`` backend unless
    a file backend (agg, pdf, svg, ps) is already chosen. Imported on first
    use: matplotlib costs ~0.3 s, which no command that draws nothing pays."""
    import matplotlib

    if matplotlib.get_backend().lower() not in ("agg", "pdf", "svg", "ps"):
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(figure: Any, path: str | os.PathLike[str], *, dpi: int = 110,
                format: str | None = None) -> Path:
    """Write ``figure`` to ``path`` (:func:`opt_sched.files.atomic_path`: a
    complete file or the previous one, never half a picture), close it, and
    return the path. ``format`` defaults to the suffix of ``path``."""
    target = Path(path)
    kind = format or target.suffix.lstrip(".") or "png"
    try:
        with atomic_path(target) as temporary:
            figure.savefig(temporary, dpi=dpi, format=kind)
    finally:
        pyplot().close(figure)
    return target
