"""Helpers shared by the stepped execution models' kernels and wrappers.

``meta`` is each kernel's small int64 state vector; slot :data:`TOUCHED`
counts the partitions whose I/O node must act at the end of the current
instant, listed in ``touched`` (``flag`` marks them, so each is listed once).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["TOUCHED", "take_pending", "touch"]

HSIZE = 0
SEQ = 1
TOUCHED = 2


@njit(cache=True, inline="always")
def touch(k, touched, flag, meta):
    """List partition ``k`` for the end of the instant (once)."""
    if not flag[k]:
        flag[k] = True
        touched[meta[TOUCHED]] = k
        meta[TOUCHED] += 1


def take_pending(pending: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    """The jobs started during an instant and their partitions, as arrays
    for one kernel call; empties ``pending``."""
    jobs = np.fromiter((j for j, _ in pending), np.int64, len(pending))
    parts = np.fromiter((k for _, k in pending), np.int64, len(pending))
    pending.clear()
    return jobs, parts
