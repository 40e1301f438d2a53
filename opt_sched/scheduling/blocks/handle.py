"""A compiled state as one array: the *handle* the blocks' kernels take.

Calling compiled code from Python costs per argument: numba types and
unboxes every array it is given, about 0.07 microseconds each, more inside
a tuple -- the 14 arrays of the backfilling state cost about 1 microsecond
per call, four times the work of a typical block. A handle is one
``int64`` array holding, for array ``i`` of the state, its address
``h[4 i]`` and its shape ``h[4 i + 1 : 4 i + 4]``; a kernel rebuilds the
arrays from it (:func:`view`, no copy, no reference count), so a call costs
about 0.25 microseconds whatever the state.

The arrays must outlive the handle and keep their place: the owner
(:class:`~opt_sched.scheduling.blocks.Blocks`) keeps them and makes a new
handle whenever it replaces one (the state grows). With
``NUMBA_DISABLE_JIT=1`` (the kernels run as Python) the handle is the
tuple of arrays itself and :func:`view` returns it.

Layout: the 14 arrays of :func:`~opt_sched.scheduling.backfill_kernel.new_state`
(:data:`STATE`), then the blocks' own (:data:`EXTRAS`).
"""

from __future__ import annotations

import numpy as np
from numba import carray, config, njit, types
from numba.extending import intrinsic

__all__ = ["EXTRAS", "STATE", "make", "view"]

STATE = ((np.int64, 2), (np.float64, 2), (np.uint64, 2), (np.int64, 1),
         (np.int64, 2), (np.float64, 2), (np.float64, 2), (np.uint64, 3),
         (np.float64, 2), (np.uint64, 2), (np.int64, 1), (np.int64, 1),
         (np.uint64, 2), (np.int64, 1))
"""``(dtype, ndim)`` of each array of the backfilling state, in order."""

EXTRAS = ((np.int64, 1), (np.int64, 2), (np.int64, 1), (np.int64, 1),
          (np.int64, 1), (np.int64, 1), (np.uint64, 2))
"""``(dtype, ndim)`` of the blocks' arrays (:mod:`.kernel`: ``X_*``)."""


def make(state: tuple, extras: tuple) -> np.ndarray | tuple:
    """The handle of ``(state, extras)``: checked against :data:`STATE`
    and :data:`EXTRAS` (dtype, dimensions, C order)."""
    arrays = tuple(state) + tuple(extras)
    spec = STATE + EXTRAS
    if len(arrays) != len(spec):
        raise ValueError(f"handle: {len(arrays)} arrays, the layout has {len(spec)}")
    for i, (a, (dtype, ndim)) in enumerate(zip(arrays, spec)):
        if a.dtype != dtype or a.ndim != ndim or not a.flags.c_contiguous:
            raise ValueError(f"handle: array {i} is {a.dtype} {a.ndim}-d, not a "
                             f"C-ordered {np.dtype(dtype)} {ndim}-d array")
    if config.DISABLE_JIT:
        return (tuple(state), tuple(extras))
    h = np.zeros(4 * len(arrays), np.int64)
    for i, a in enumerate(arrays):
        h[4 * i] = a.ctypes.data
        h[4 * i + 1:4 * i + 1 + a.ndim] = a.shape
    return h


@intrinsic
def _pointer(typingctx, address, kind):
    """``address`` (an int) as a pointer to ``kind``'s numbers."""
    signature = types.CPointer(kind.dtype)(address, kind)

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], context.get_value_type(signature.return_type))

    return signature, codegen


@njit(cache=True, inline="always")
def _a1(h, i, kind):
    return carray(_pointer(h[4 * i], kind), (h[4 * i + 1],))


@njit(cache=True, inline="always")
def _a2(h, i, kind):
    return carray(_pointer(h[4 * i], kind), (h[4 * i + 1], h[4 * i + 2]))


@njit(cache=True, inline="always")
def _a3(h, i, kind):
    return carray(_pointer(h[4 * i], kind), (h[4 * i + 1], h[4 * i + 2], h[4 * i + 3]))


@njit(cache=True)
def _view(h):
    """``(state, extras)`` from handle ``h`` (:data:`STATE`, :data:`EXTRAS`)."""
    i8, f8, u8 = np.int64, np.float64, np.uint64
    state = (_a2(h, 0, i8), _a2(h, 1, f8), _a2(h, 2, u8), _a1(h, 3, i8), _a2(h, 4, i8),
             _a2(h, 5, f8), _a2(h, 6, f8), _a3(h, 7, u8), _a2(h, 8, f8), _a2(h, 9, u8),
             _a1(h, 10, i8), _a1(h, 11, i8), _a2(h, 12, u8), _a1(h, 13, i8))
    extras = (_a1(h, 14, i8), _a2(h, 15, i8), _a1(h, 16, i8), _a1(h, 17, i8),
              _a1(h, 18, i8), _a1(h, 19, i8), _a2(h, 20, u8))
    return state, extras


def _identity(h):
    """:func:`view` when the kernels run as Python: the handle is the arrays."""
    return h


view = _identity if config.DISABLE_JIT else _view
