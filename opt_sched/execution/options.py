"""An execution model named with its options, as commands and campaigns
give it.

:class:`ExecutionSpec` is a registered model's name
(:data:`~opt_sched.execution.EXECUTION_MODELS`, plug-ins included) with
the options *that model declares*: each model class lists them in its
``OPTIONS`` mapping, option name -> a function that checks a value and
returns it in canonical form (:class:`~opt_sched.execution.shared.Shared`:
``share``, ``max_rate``, ``node_rate``, ``eta``; ``exclusive`` takes none).
So a plug-in's model takes its own options, in a campaign's ``execution =
{ model = "mine", speed = 2 }`` or a library call ``ExecutionSpec("mine",
speed=2)``, with no edit here. It is what ``--execution shared --share
nodes --node-rate 0.5 --eta 1:1,4:0.8`` on the command line and
``execution = { model = "shared", node_rate = 0.5 }`` in a campaign spec
name; :meth:`ExecutionSpec.build` makes a fresh model for each run (a model
holds the state of one run).

A batch plan runs under a spec through
:func:`opt_sched.scheduling.execute.execute_plan` (above the replay engine,
which sits above the models).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..errors import OptionError
from .option_values import number_text

__all__ = ["ExecutionSpec", "model_options"]


def model_options(model: str) -> Mapping[str, Callable[[str, Any], Any]]:
    """The options the registered model ``model`` declares (its factory's
    ``OPTIONS``; none when it declares nothing)."""
    from . import EXECUTION_MODELS

    return getattr(EXECUTION_MODELS[model], "OPTIONS", {})


class ExecutionSpec:
    """An execution model and its options (see the module docstring).

    ``ExecutionSpec(model="exclusive", **options)``: options left out, or
    given as ``None``, are the model's defaults; the others are checked and
    kept in canonical form, in the order the model declares them. Specs are
    equal when their model and options are.
    """

    __slots__ = ("_options", "model")

    def __init__(self, model: str = "exclusive", **options: Any) -> None:
        from . import EXECUTION_MODELS

        if not isinstance(model, str) or model not in EXECUTION_MODELS:
            raise OptionError(f"execution={model!r} is unknown; choose one of "
                              f"{', '.join(sorted(EXECUTION_MODELS))}")
        declared = model_options(model)
        given = {k: v for k, v in options.items() if v is not None}
        for key, value in given.items():
            if key not in declared:
                raise OptionError(_not_an_option(model, key, value))
        canonical = ((key, declared[key](key, given[key]))
                     for key in declared if key in given)
        object.__setattr__(self, "model", model)
        object.__setattr__(self, "_options", tuple(
            (key, value) for key, value in canonical if value is not None))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("an ExecutionSpec is immutable")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ExecutionSpec):
            return NotImplemented
        return (self.model, self._options) == (other.model, other._options)

    def __hash__(self) -> int:
        return hash((self.model, self._options))

    def __repr__(self) -> str:
        inner = "".join(f", {k}={v!r}" for k, v in self._options)
        return f"ExecutionSpec({self.model!r}{inner})"

    def __reduce__(self) -> tuple[Any, ...]:  # pickled to campaign workers
        return (_rebuild, (self.model, self._options))

    @classmethod
    def parse(cls, value: object) -> ExecutionSpec:
        """A spec from ``None`` (exclusive), a model name, a mapping with a
        ``model`` key and options, or a spec.

        Raises
        ------
        OptionError
            Unknown model or option, or a bad value.
        """
        if value is None:
            return cls()
        if isinstance(value, ExecutionSpec):
            return value
        if isinstance(value, str):
            return cls(value)
        if isinstance(value, Mapping):
            data = dict(value)
            model = data.pop("model", "exclusive")
            if not isinstance(model, str):
                raise OptionError(f"execution model={model!r} must be a string")
            return cls(model, **{str(k): v for k, v in data.items()})
        raise OptionError(f"execution={value!r} is not a model name or a table")

    @property
    def options(self) -> dict[str, Any]:
        """The options given (not ``None``), canonical, in declared order."""
        return dict(self._options)

    def identity(self) -> dict[str, Any]:
        """Plain data naming the model and its options (for task keys)."""
        return {"model": self.model, **self.options}

    @property
    def label(self) -> str:
        """``shared(share=nodes,node_rate=0.5,eta=1:1;4:0.8)`` (``;`` inside
        the curve), or the bare name."""
        if not self._options:
            return self.model
        parts = []
        for key, value in self._options:
            text = number_text(value) if isinstance(value, float) else str(value)
            parts.append(f"{key}={text.replace(',', ';')}")
        inner = ",".join(parts)
        return f"{self.model}({inner})"

    def build(self, policy: str = "fifo"):
        """A fresh :class:`~opt_sched.execution.base.ExecutionModel`."""
        from . import get_execution_model

        return get_execution_model(self.model, policy=policy, **self.options)


def _rebuild(model: str, options: tuple[tuple[str, Any], ...]) -> ExecutionSpec:
    return ExecutionSpec(model, **dict(options))


def _not_an_option(model: str, key: str, value: Any) -> str:
    """The one-line error of an option ``model`` does not declare, naming
    the models that do (e.g. ``eta`` with ``exclusive``)."""
    from . import EXECUTION_MODELS

    owners = [name for name in EXECUTION_MODELS
              if name != model and key in model_options(name)]
    if owners:
        return (f"execution {key}= applies to the {' or '.join(owners)} model, "
                f"not to {model!r}")
    known = ", ".join(["model", *model_options(model)])
    return f"execution {key}={value!r} is not an option (known: {known})"
