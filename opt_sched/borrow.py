"""Borrowed array views for compiled code (numba).

Every compiled call that receives an array updates the array's reference
count twice, atomically. A kernel that calls small helpers with twenty
arrays per event spends most of its time there. A *borrowed* view has no
reference count: the compiled entry points borrow the arrays their Python
caller owns, pass the views to their helpers, and never return or keep them,
so the views never outlive their owners.

:func:`borrow_all` borrows every array of an entry point in one call, and
:func:`borrow_rows` splits a 2-D state array into borrowed views of its
named rows, so that an entry point unpacks its state in a line per array.
"""

from __future__ import annotations

from numba import config, types
from numba.core import cgutils
from numba.extending import intrinsic
from numba.np.arrayobj import populate_array

__all__ = ["borrow", "borrow_all", "borrow_rows"]


def _identity(array):
    """:func:`borrow` when the kernels run as Python: the array itself."""
    return array


def _all_identity(*arrays):
    """:func:`borrow_all` when the kernels run as Python."""
    return arrays


def _rows_identity(array, count):
    """:func:`borrow_rows` when the kernels run as Python."""
    return tuple(array[r] for r in range(count))


def _view(context, builder, kind, value):
    """The borrowed view (no meminfo, no parent) of array ``value``."""
    source = context.make_array(kind)(context, builder, value=value)
    view = context.make_array(kind)(context, builder)
    for name in ("nitems", "itemsize", "data", "shape", "strides"):
        setattr(view, name, getattr(source, name))
    view.meminfo = cgutils.get_null_value(view.meminfo.type)
    view.parent = cgutils.get_null_value(view.parent.type)
    return view._getvalue()


@intrinsic
def borrow(typingctx, array):
    """A view of ``array`` that does no reference counting (no meminfo);
    valid only while its owner is alive (see the module docstring)."""
    def codegen(context, builder, signature, args):
        return _view(context, builder, signature.args[0], args[0])

    return array(array), codegen


@intrinsic
def borrow_all(typingctx, *arrays):
    """``(borrow(a), borrow(b), ...)`` of ``borrow_all(a, b, ...)``."""
    if len(arrays) != 1 or not isinstance(arrays[0], types.StarArgTuple):
        arrays = (types.StarArgTuple(arrays),)  # numba passes one star tuple
    kinds = arrays[0]
    result = types.Tuple(tuple(kinds))

    def codegen(context, builder, signature, args):
        values = cgutils.unpack_tuple(builder, args[0], len(kinds))
        views = [_view(context, builder, kind, value)
                 for kind, value in zip(kinds, values)]
        return context.make_tuple(builder, result, views)

    return result(kinds), codegen


@intrinsic(prefer_literal=True)
def borrow_rows(typingctx, array, count):
    """Borrowed views of rows ``0 .. count - 1`` of the 2-D ``array`` (a
    tuple; ``count`` a compile-time integer, at most the number of rows,
    else ``IndexError``): ``a, b, c = borrow_rows(state, 3)`` names the rows
    of a state array."""
    if not isinstance(count, types.IntegerLiteral) or array.ndim != 2:
        return None
    rows = count.literal_value
    row = array.copy(ndim=1, layout="C" if array.layout == "C" else "A")
    result = types.UniTuple(row, rows)

    def codegen(context, builder, signature, args):
        source = context.make_array(array)(context, builder, value=args[0])
        height, width = cgutils.unpack_tuple(builder, source.shape, 2)
        step, stride = cgutils.unpack_tuple(builder, source.strides, 2)
        short = builder.icmp_signed("<", height, height.type(rows))
        with cgutils.if_unlikely(builder, short):
            context.call_conv.return_user_exc(
                builder, IndexError, (f"borrow_rows: fewer than {rows} rows",))
        views = []
        for r in range(rows):
            view = context.make_array(row)(context, builder)
            data = cgutils.pointer_add(builder, source.data,
                                       builder.mul(step, step.type(r)))
            populate_array(view, data=data, shape=[width], strides=[stride],
                           itemsize=source.itemsize, meminfo=None)
            views.append(view._getvalue())
        return context.make_tuple(builder, result, views)

    return result(array, count), codegen


if config.DISABLE_JIT:  # the kernels run as Python (opt_sched.kernels)
    borrow = _identity
    borrow_all = _all_identity
    borrow_rows = _rows_identity
