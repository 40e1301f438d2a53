"""Execution models (SPEC §10): how the phases of running jobs proceed.

- :mod:`.base` -- :class:`ExecutionModel` (the protocol), :class:`JobPhases`.
- :mod:`.exclusive` -- ``exclusive``: one I/O phase at a time per I/O node
  (rule 5; the model of seeds 000 and 003 and of the exact layer).
- :mod:`.shared` -- ``shared``: concurrent I/O phases share the node's
  bandwidth (seed 001), with a share rule, caps (per phase, per node) and a
  congestion curve.
- :mod:`.options` -- :class:`ExecutionSpec` (a model named with its options,
  as commands and campaigns give it) and :func:`execute_plan` (a batch plan
  under any model).

Adding a model: one module with a class that follows
:class:`ExecutionModel`, one line in :data:`EXECUTION_MODELS`; its
validator rule is one module of :mod:`opt_sched.validation` and one line in
that package's registry (the validator stays independent of the simulator).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import OptionError
from .base import ExecutionModel, JobPhases
from .exclusive import Exclusive
from .options import ExecutionSpec, execute_plan
from .shared import RateRecord, Shared

__all__ = [
    "EXECUTION_MODELS",
    "Exclusive",
    "ExecutionModel",
    "ExecutionSpec",
    "JobPhases",
    "RateRecord",
    "Shared",
    "execute_plan",
    "get_execution_model",
]

EXECUTION_MODELS: dict[str, Callable[..., ExecutionModel]] = {
    "exclusive": Exclusive,
    "shared": Shared,
}
"""Model name -> factory (keyword options -> a fresh model)."""


def get_execution_model(name: str, **options: Any) -> ExecutionModel:
    """A fresh execution model ``name``; options it does not take are
    ignored only if they are ``None``.

    Raises
    ------
    OptionError
        Unknown name or option.
    """
    try:
        factory = EXECUTION_MODELS[name]
    except (KeyError, TypeError):
        raise OptionError(f"execution={name!r} is unknown; choose one of "
                          f"{', '.join(sorted(EXECUTION_MODELS))}") from None
    try:
        return factory(**{k: v for k, v in options.items() if v is not None})
    except TypeError as err:
        raise OptionError(f"execution {name!r}: {err}") from None
