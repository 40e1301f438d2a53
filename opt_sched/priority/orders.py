"""The priority orders of ``--priority``: ``multifactor`` and
``fairshare[:OPERATOR]``, built from a spec.

:func:`opt_sched.scheduling.get_queue_order` is the one front door of queue
orders; it builds ``fcfs`` and ``sjf`` itself and hands the spec heads
:data:`PRIORITY_ORDERS` to :func:`priority_order` (this module imports no
queue-order module: the front door depends on it, not the other way).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import OptionError
from .fairshare import FairShareOrder
from .multifactor import MultifactorOrder
from .operators import OPERATOR_NAMES

__all__ = ["PRIORITY_ORDERS", "priority_names", "priority_order"]

PRIORITY_ORDERS: dict[str, Callable[..., Any]] = {
    "multifactor": MultifactorOrder,
    "fairshare": FairShareOrder,
}
"""Spec head -> factory; ``fairshare`` takes the operator after ``:``."""


def priority_names() -> list[str]:
    """The ``--priority`` values, for help texts."""
    return ["fcfs", "multifactor"] + [f"fairshare:{name}" for name in OPERATOR_NAMES]


def priority_order(spec: str, **options: Any) -> Any:
    """A fresh ``multifactor`` or ``fairshare:OPERATOR`` order
    (``fairshare`` alone means ``fairshare:sigmoid-2``, Paper II's best
    operator); ``options`` go to the order's constructor (weights, tree,
    half_life, bits, ...). Reached through
    :func:`opt_sched.scheduling.get_queue_order`.

    Raises
    ------
    OptionError
        Unknown spec or option.
    """
    head, colon, arg = spec.strip().partition(":")
    head = head.lower()
    if colon and not arg.strip():
        raise OptionError(f"priority={spec!r}: no operator after ':' (give "
                          f"fairshare:OPERATOR, or fairshare alone for "
                          f"fairshare:sigmoid-2)")
    if head not in PRIORITY_ORDERS:
        raise OptionError(f"priority={spec!r} is unknown; choose one of "
                          f"multifactor, fairshare:OPERATOR")
    if arg and head != "fairshare":
        raise OptionError(f"priority={spec!r}: {head} takes no ':' argument")
    factory = PRIORITY_ORDERS[head]
    if head == "fairshare":
        options = {"operator": arg or "sigmoid-2", **options}
    try:
        return factory(**options)
    except TypeError as err:
        raise OptionError(f"priority {spec!r}: {err}") from None
