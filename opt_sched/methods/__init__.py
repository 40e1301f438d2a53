"""Practical methods named by spec strings: the method registry.

>>> from opt_sched import methods
>>> m = methods.method("make-pack(S=1)+lpt/fifo")
>>> m.supports(instance) is None            # doctest: +SKIP
>>> schedule = m.run(instance)             # doctest: +SKIP

- :mod:`.spec` -- the grammar of spec strings (syntax only).
- :mod:`.params` -- parameter records and readers.
- :mod:`.registry` -- entries, resolution, capability checks, defaults.
- :mod:`.packs` -- ``make-pack``, ``first-fit`` and the ``lpt`` stage.
- :mod:`.one_pack` -- ``one-pack``.
- :mod:`.online` -- online schedulers on a batch: ``packs``, ``ls``.
- :mod:`.replayed` -- online schedulers replayed under an execution model:
  ``fcfs``, ``easy``, ``conservative``, ``herbein``, ``workload-adaptive``.
- :mod:`.catalog` -- the built-in registry lines.

How to add a method (a heuristic or an online scheduler)
--------------------------------------------------------
In the package: one new module that defines the algorithm (or imports it)
and its :class:`MethodEntry` (``build``, ``supports``, ``params``,
``problems``, ``defaults``), and one ``register(...)`` line in
:mod:`.catalog`. From outside the package: call :func:`register` with the
entry (and :func:`unregister` to take it back). Either way the method then
appears in ``compare``, ``gap`` and every listing that reads :func:`names`
or :func:`default_specs`.
"""

from __future__ import annotations

from . import catalog as _catalog  # noqa: F401 -- registers the built-ins
from .params import Param, choice, positive_int, positive_number
from .registry import (
    DEFAULT_POLICY,
    BoundStage,
    Method,
    MethodEntry,
    Skipped,
    StageEntry,
    applicable,
    default_specs,
    describe,
    expand,
    get_entry,
    method,
    names,
    register,
    register_stage,
    stage_names,
    unregister,
    unregister_stage,
    warm_start_specs,
)
from .spec import Call, Spec, format_value, parse_spec, split_specs

__all__ = [
    "DEFAULT_POLICY",
    "BoundStage",
    "Call",
    "Method",
    "MethodEntry",
    "Param",
    "Skipped",
    "Spec",
    "StageEntry",
    "applicable",
    "choice",
    "default_specs",
    "describe",
    "expand",
    "format_value",
    "get_entry",
    "method",
    "names",
    "parse_spec",
    "positive_int",
    "positive_number",
    "register",
    "register_stage",
    "split_specs",
    "stage_names",
    "unregister",
    "unregister_stage",
    "warm_start_specs",
]
