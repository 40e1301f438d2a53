"""An execution model named with its options, as commands and campaigns
give it.

:class:`ExecutionSpec` is ``exclusive`` (SPEC §3 rule 5; no options) or
``shared`` with its options (:class:`~opt_sched.execution.shared.Shared`:
``share``, ``max_rate``, ``node_rate``, ``eta``). It is what ``--execution
shared --share nodes --node-rate 0.5 --eta 1:1,4:0.8`` on the command line
and ``execution = { model = "shared", node_rate = 0.5 }`` in a campaign spec
name; :meth:`ExecutionSpec.build` makes a fresh model for each run (a model
holds the state of one run).

A batch plan runs under a spec through
:func:`opt_sched.scheduling.execute.execute_plan` (above the replay engine,
which sits above the models).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import OptionError

__all__ = ["SHARED_OPTIONS", "ExecutionSpec"]

SHARED_OPTIONS = ("share", "max_rate", "node_rate", "eta")
"""The options of the ``shared`` model, in canonical order."""


def _number(key: str, value: Any) -> float:
    if (isinstance(value, bool) or not isinstance(value, (int, float))
            or not math.isfinite(value) or value <= 0):
        raise OptionError(f"execution {key}={value!r} must be a positive number")
    return float(value)


@dataclass(frozen=True)
class ExecutionSpec:
    """An execution model and its options (see the module docstring).

    ``eta`` is kept in its canonical text ``"1:1,4:0.8"``; options left out
    are ``None`` (the model's default).
    """

    model: str = "exclusive"
    share: str | None = None
    max_rate: float | None = None
    node_rate: float | None = None
    eta: str | None = None

    def __post_init__(self) -> None:
        from . import EXECUTION_MODELS
        from .shared import SHARE_RULES, parse_eta

        if self.model not in EXECUTION_MODELS:
            raise OptionError(f"execution={self.model!r} is unknown; choose one of "
                              f"{', '.join(sorted(EXECUTION_MODELS))}")
        given = [k for k in SHARED_OPTIONS if getattr(self, k) is not None]
        if self.model != "shared" and given:
            raise OptionError(f"execution {given[0]}= applies to the shared model, "
                              f"not to {self.model!r}")
        if self.share is not None and self.share not in SHARE_RULES:
            raise OptionError(f"execution share={self.share!r} is not one of "
                              f"{', '.join(SHARE_RULES)}")
        for key in ("max_rate", "node_rate"):
            value = getattr(self, key)
            if value is not None:
                object.__setattr__(self, key, _number(key, value))
        if self.eta is not None:
            points = parse_eta(self.eta)
            text = ",".join(f"{_num(m)}:{_num(e)}" for m, e in points)
            object.__setattr__(self, "eta", text or None)

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
            unknown = [k for k in data if k not in SHARED_OPTIONS]
            if unknown:
                raise OptionError(f"execution {unknown[0]}={data[unknown[0]]!r} is not "
                                  f"an option (known: model, "
                                  f"{', '.join(SHARED_OPTIONS)})")
            if not isinstance(model, str):
                raise OptionError(f"execution model={model!r} must be a string")
            return cls(model, **data)
        raise OptionError(f"execution={value!r} is not a model name or a table")

    @property
    def options(self) -> dict[str, Any]:
        """The options given (not ``None``)."""
        return {k: getattr(self, k) for k in SHARED_OPTIONS
                if getattr(self, k) is not None}

    def identity(self) -> dict[str, Any]:
        """Plain data naming the model and its options (for task keys)."""
        return {"model": self.model, **self.options}

    @property
    def label(self) -> str:
        """``shared(share=nodes,node_rate=0.5,eta=1:1;4:0.8)`` (``;`` inside
        the curve), or the bare name."""
        if not self.options:
            return self.model
        parts = []
        for key, value in self.options.items():
            text = _num(value) if isinstance(value, float) else str(value)
            parts.append(f"{key}={text.replace(',', ';')}")
        inner = ",".join(parts)
        return f"{self.model}({inner})"

    def build(self, policy: str = "fifo"):
        """A fresh :class:`~opt_sched.execution.base.ExecutionModel`."""
        from . import get_execution_model

        return get_execution_model(self.model, policy=policy, **self.options)


def _num(value: float) -> str:
    """``1.0 -> "1"``, other floats by ``repr``."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))
