"""Execution models (SPEC §10): how the phases of running jobs proceed.

- :mod:`.base` -- :class:`ExecutionModel` (the protocol), :class:`JobPhases`.
- :mod:`.exclusive` -- ``exclusive``: one I/O phase at a time per I/O node
  (rule 5; the model of seeds 000 and 003 and of the exact layer).
- :mod:`.shared` -- ``shared``: concurrent I/O phases share the node's
  bandwidth (seed 001), with a share rule, caps (per phase, per node) and a
  congestion curve.
- :mod:`.options` -- :class:`ExecutionSpec` (a model named with its options,
  as commands and campaigns give it). A batch plan under any model is
  :func:`opt_sched.scheduling.execute.execute_plan` (above the replay
  engine, which uses the models).

Adding a model: one module with a class that follows
:class:`ExecutionModel`, one line in :data:`EXECUTION_MODELS`; its
validator rule is one module of :mod:`opt_sched.validation` and one line in
that package's registry (the validator stays independent of the simulator).
"""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from typing import Any

from ..lazy import lazy_exports
from ..plugins import PluginMapping, build_registered, describe
from .base import ExecutionModel, JobPhases
from .exclusive import Exclusive
from .shared import RateRecord, Shared

# ExecutionSpec (.options) reads this package's registry, so it is exported
# on first use (PEP 562) instead of imported here: the dependency runs one
# way. (execute_plan runs a plan through the replay engine, which sits above
# the models: it is opt_sched.scheduling.execute.execute_plan.)
__getattr__, __dir__ = lazy_exports(__name__, globals(), {
    "ExecutionSpec": ".options",
})

__all__ = [
    "EXECUTION_MODELS",
    "Exclusive",
    "ExecutionModel",
    "ExecutionSpec",
    "JobPhases",
    "RateRecord",
    "Shared",
    "get_execution_model",
]


def _check_plugin(name: str, factory: object) -> None:
    """A plug-in's model must be a class or factory."""
    if not callable(factory):
        raise TypeError(f"{describe(factory)} is not an ExecutionModel class or "
                        f"factory")


EXECUTION_MODELS: MutableMapping[str, Callable[..., ExecutionModel]] = PluginMapping(
    "execution_models", {
        "exclusive": Exclusive,
        "shared": Shared,
    }, _check_plugin)
"""Model name -> factory (keyword options -> a fresh model). Plug-ins of
the entry-point group ``opt_sched.execution_models``
(:mod:`opt_sched.plugins`) join it on the first lookup of a name it does
not hold, or when it is listed."""


def get_execution_model(name: str, **options: Any) -> ExecutionModel:
    """A fresh execution model ``name``; options it does not take are
    ignored only if they are ``None``.

    Raises
    ------
    OptionError
        Unknown name or option.
    """
    return build_registered(EXECUTION_MODELS, "execution", name,
                            {k: v for k, v in options.items() if v is not None})
