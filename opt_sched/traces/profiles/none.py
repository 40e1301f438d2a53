"""Profile ``none``: plain trace replay, one compute phase, no I/O.

Each job is one iteration with ``w_i1 = T_i`` and ``v_i1 = 0``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .base import ProfileDraw

__all__ = ["NoIOProfile"]


@dataclass(frozen=True)
class NoIOProfile:
    """``f_i = 0``, ``n_i = 1``: the trace as it is."""

    name: str = "none"

    def draw(self, nodes: np.ndarray, run_time: np.ndarray, seed: int,
             mean_share: float | None = None) -> ProfileDraw:
        size = len(run_time)
        return ProfileDraw(np.zeros(size), np.ones(size, dtype=np.int64))
