"""Names a package exports but imports on first use (PEP 562).

``import opt_sched`` -- and so ``opt-sched --help`` -- must not load numpy,
pandas, numba or ortools, yet ``from opt_sched.traces import read_swf``
must keep working. A package lists such names with the module that defines
each, and takes its module-level ``__getattr__`` and ``__dir__`` from
:func:`lazy_exports`::

    __getattr__, __dir__ = lazy_exports(__name__, globals(), {
        "read_swf": ".swf_reader",
    })

The first access imports the module and keeps the value in the package's
namespace, so later accesses cost nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(package: str, namespace: dict[str, Any], table: Mapping[str, str]
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``, whose module globals are
    ``namespace``: each name of ``table`` is imported from its module
    (relative to ``package`` if it starts with a dot) on first use."""

    def attribute(name: str) -> Any:
        if name not in table:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(table[name], package), name)
        namespace[name] = value
        return value

    def names() -> list[str]:
        return sorted(set(namespace) | set(table))

    return attribute, names
