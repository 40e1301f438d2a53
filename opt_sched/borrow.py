"""Borrowed array views for compiled code (numba).

Every compiled call that receives an array updates the array's reference
count twice, atomically. A kernel that calls small helpers with twenty
arrays per event spends most of its time there. A *borrowed* view has no
reference count: the compiled entry points borrow the arrays their Python
caller owns, pass the views to their helpers, and never return or keep them,
so the views never outlive their owners.
"""

from __future__ import annotations

from numba import config
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["borrow"]


def _identity(array):
    """:func:`borrow` when the kernels run as Python: the array itself."""
    return array


@intrinsic
def borrow(typingctx, array):
    """A view of ``array`` that does no reference counting (no meminfo);
    valid only while its owner is alive (see the module docstring)."""
    def codegen(context, builder, signature, args):
        kind = signature.args[0]
        source = context.make_array(kind)(context, builder, value=args[0])
        view = context.make_array(kind)(context, builder)
        for name in ("nitems", "itemsize", "data", "shape", "strides"):
            setattr(view, name, getattr(source, name))
        view.meminfo = cgutils.get_null_value(view.meminfo.type)
        view.parent = cgutils.get_null_value(view.parent.type)
        return view._getvalue()

    return array(array), codegen


if config.DISABLE_JIT:  # the kernels run as Python (opt_sched.kernels)
    borrow = _identity
