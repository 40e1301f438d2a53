"""Helpers shared by the stepped execution models' wrappers.

The heaps and the per-instant bookkeeping of their kernels are
:mod:`opt_sched.simulation.heaps` (written once for every event loop).
"""

from __future__ import annotations

import numpy as np

__all__ = ["take_pending"]


def take_pending(pending: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    """The jobs started during an instant and their partitions, as arrays
    for one kernel call; empties ``pending``."""
    jobs = np.fromiter((j for j, _ in pending), np.int64, len(pending))
    parts = np.fromiter((k for _, k in pending), np.int64, len(pending))
    pending.clear()
    return jobs, parts
