"""The built-in registry lines: one line per stage and per method.

Adding a method to the package is one new module that defines its
:class:`~.registry.MethodEntry` and one line below; the order of the lines
is the order of ``names()``, of the default specs and of the ``compare``
rows.
"""

from __future__ import annotations

from .gang import ADAPTIVE_IOGS, GS, IOGS, MIGRATE_IOGS
from .one_pack import ONE_PACK
from .online import LS, PACKS
from .packs import FIRST_FIT, LPT, MAKE_PACK
from .registry import register, register_stage
from .replayed import CONSERVATIVE, EASY, FCFS, HERBEIN, WORKLOAD_ADAPTIVE

__all__: list[str] = []

# stages first: methods name the kinds of stage they take
register_stage(LPT, _builtin=True)

register(ONE_PACK, _builtin=True)
register(FIRST_FIT, _builtin=True)
register(MAKE_PACK, _builtin=True)
# online schedulers replayed on a batch (seed 000)
register(PACKS, _builtin=True)
register(LS, _builtin=True)
# online schedulers replayed under an execution model (seed 001)
register(FCFS, _builtin=True)
register(EASY, _builtin=True)
register(CONSERVATIVE, _builtin=True)
register(HERBEIN, _builtin=True)
register(WORKLOAD_ADAPTIVE, _builtin=True)
# gang schedulers on a gang workload (seed 004)
register(GS, _builtin=True)
register(IOGS, _builtin=True)
register(ADAPTIVE_IOGS, _builtin=True)
register(MIGRATE_IOGS, _builtin=True)
