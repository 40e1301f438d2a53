"""Helpers shared by the stepped execution models' kernels and wrappers.

``meta`` is each kernel's small int64 state vector; slot :data:`TOUCHED`
counts the partitions whose I/O node must act at the end of the current
instant, listed in ``touched`` (``flag`` marks them, so each is listed once).

The event heap and the waiting heaps are those of the batch kernel
(:mod:`opt_sched.simulation.kernel`), compiled here inline into each
caller: a compiled call costs about as much as the heap step itself, and
the kernels make a few per I/O phase.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..simulation import kernel as _batch

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


def _python(function):
    """The Python function of a compiled one (itself when the kernels run as
    Python, :mod:`opt_sched.kernels`)."""
    return getattr(function, "py_func", function)


_ev_push = njit(inline="always")(_python(_batch._ev_push))
_ev_sift_down = njit(inline="always")(_python(_batch._ev_sift_down))
_w_push = njit(inline="always")(_python(_batch._w_push))
_w_pop = njit(inline="always")(_python(_batch._w_pop))


@njit(inline="always")
def _ev_remove_root(heap, size, ev_t, ev_p):
    """Remove the root of the event heap (as the batch kernel's, with its
    sift inlined); returns the new size."""
    size -= 1
    if size > 0:
        _ev_sift_down(heap, size, ev_t, ev_p, heap[size], 0)
    return size


def take_pending(pending: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    """The jobs started during an instant and their partitions, as arrays
    for one kernel call; empties ``pending``."""
    jobs = np.fromiter((j for j, _ in pending), np.int64, len(pending))
    parts = np.fromiter((k for _, k in pending), np.int64, len(pending))
    pending.clear()
    return jobs, parts
