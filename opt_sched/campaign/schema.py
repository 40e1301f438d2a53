"""The campaign spec's JSON schema with the registries' names filled in.

``instances/schemas/sweep.schema.json`` lists no name a registry holds:
every such place is ``{"type": "string", "x-registry": "<registry>"}``,
because plug-ins add names (:mod:`opt_sched.plugins`) and a list written
by hand would be wrong the day one is installed. :func:`filled_schema`
turns each of those places into an ``enum`` of the names this installation
knows (plug-ins included), for editors and for the tests.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["REGISTRIES", "filled_schema", "registry_places"]


def _execution_models() -> list[str]:
    from ..execution import EXECUTION_MODELS

    return list(EXECUTION_MODELS)


def _generators() -> list[str]:
    from .sources import GENERATORS

    return list(GENERATORS)


def _experiments() -> list[str]:
    from .experiments import EXPERIMENTS

    return list(EXPERIMENTS)


def _reports() -> list[str]:
    from .reports import REPORTS

    return list(REPORTS)


def _metrics() -> list[str]:
    from .task import EXTRA_METRICS

    return list(EXTRA_METRICS)


REGISTRIES: dict[str, Callable[[], list[str]]] = {
    "execution_models": _execution_models,
    "generators": _generators,
    "experiments": _experiments,
    "reports": _reports,
    "metrics": _metrics,
}
"""``x-registry`` name -> the names it holds now."""


def registry_places(schema: Any) -> Iterator[dict[str, Any]]:
    """Every object of ``schema`` that names a registry (``x-registry``)."""
    if isinstance(schema, dict):
        if "x-registry" in schema:
            yield schema
        for value in schema.values():
            yield from registry_places(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from registry_places(value)


def filled_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``schema`` in which every ``{"x-registry": name, ...}``
    object also has ``"enum": [the names of REGISTRIES[name]]``.

    Raises
    ------
    KeyError
        An ``x-registry`` name :data:`REGISTRIES` does not know.
    """
    out = copy.deepcopy(schema)
    names: dict[str, list[str]] = {}
    for place in registry_places(out):
        registry = place["x-registry"]
        if registry not in names:
            names[registry] = REGISTRIES[registry]()
        place["enum"] = names[registry]
    return out
