"""Pause Python's cyclic garbage collector while a command builds large,
long-lived data.

CPython starts a collection every 700 net allocations of container objects
(generation 0), each traversing every object allocated since the last one,
and every tenth of them also the older ones (generation 1). Reading a trace
(a ``Job`` per line), importing numba (about 10^5 objects) and replaying (a
``JobSchedule`` per job) allocate hundreds of thousands of objects that live
until the command ends and make no reference cycles, so these collections
find nothing and cost time: ``opt-sched replay`` of KTH-SP2 with EASY spent
about 0.1 s of its 0.95 s in 320 of them (counted with ``gc.callbacks``),
and one more 20 ms collection traversed the replay's schedule just after
the replay engine's own pause ended.

:func:`gc_paused` disables the collector for a block and restores its state
after. Nothing is lost: objects without cycles are freed by reference
counting as usual, and cycles made inside the block are collected by the
first collection after it. A block should therefore cover allocation-heavy
work, not a long search that makes cycles (a solver's model).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["gc_paused"]


@contextmanager
def gc_paused() -> Iterator[None]:
    """Disable the cyclic garbage collector inside the block, and re-enable
    it after if it was enabled (nested blocks keep it off until the
    outermost ends)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
