"""A task of a campaign: one method run on one instance, and its content hash.

A task is the tuple

    (instance source, method spec, seed, limits, extra metrics, execution)

where the *instance source* is a file (named by the SHA-256 of its bytes) or
a generator with its parameters (:mod:`.sources`), the *method spec* is a
string such as ``make-pack(S=1)+lpt/fifo`` (:mod:`.execute`), the *seed*
seeds the method's randomness (deterministic methods ignore it), *limits*
are the method's own limits (``time_limit`` in seconds for exact solvers)
and *extra metrics* are the optional measures added to the row
(``lower_bound``, ``job_stretch``), and the *execution* is the execution
model the method runs under with its options
(:class:`~opt_sched.execution.ExecutionSpec`; empty: ``exclusive``, and then
it is not part of the key, so the keys of earlier campaigns hold).

Its key is the SHA-256 of a canonical JSON text of everything that
determines its result (:func:`canonical_json`: sorted keys, no spaces,
floats written by ``repr``, which Python guarantees to round-trip). It is
therefore the same in every process, on every machine and in every Python
session, unlike ``hash()``, which is salted per process. The file *path*
and the campaign *group* are not part of it: moving a file or renaming a
group does not invalidate finished results; editing a file does.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

__all__ = [
    "EXTRA_METRICS",
    "KEY_VERSION",
    "InstanceSource",
    "Limits",
    "Task",
    "canonical_json",
]

KEY_VERSION = "opt_sched.campaign.task/1"
"""Bumped if the meaning of a task's fields ever changes (old keys then no
longer match, so old rows are never mistaken for new ones)."""

EXTRA_METRICS = ("lower_bound", "job_stretch", "io_concurrency")
"""Optional measures: ``lower_bound`` adds the best makespan lower bound of
the instance (:func:`opt_sched.bounds.lower_bound`) and the gap
``(makespan - L) / L``; ``job_stretch`` adds ``stretch:<job id>`` per job;
``io_concurrency`` adds ``peak_io_phases``, ``mean_io_phases`` and
``io_throughput`` (:func:`opt_sched.metrics.io_concurrency`)."""


def _plain(value: Any) -> Any:
    """``value`` with tuples as lists, for JSON; NaN and infinities rejected
    (they have no canonical JSON text)."""
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{value!r} has no canonical JSON form")
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


def canonical_json(value: Any) -> str:
    """The canonical JSON text of ``value``: keys sorted, no whitespace,
    ASCII only, floats by ``repr`` (shortest round-trip form), ``NaN`` and
    infinities rejected. Equal values give equal texts on every platform."""
    return json.dumps(_plain(value), sort_keys=True, separators=(",", ":"),
                      ensure_ascii=True, allow_nan=False)


@dataclass(frozen=True)
class InstanceSource:
    """Where a task's instance comes from: a file or a generator.

    Attributes
    ----------
    generator
        A generator name of :data:`opt_sched.campaign.sources.GENERATORS`, or
        ``None`` for a file or an experiment.
    params
        The generator's parameters, sorted by name, values already coerced
        to the generator's types (so ``batch = 1`` and ``batch = 1.0`` are
        the same source).
    path
        The file (absolute), or ``None`` for a generator.
    digest
        SHA-256 of the file's bytes, or ``None`` for a generator.
    experiment
        An experiment name of
        :data:`opt_sched.campaign.experiments.EXPERIMENTS` (a task that
        builds and measures its own workload; ``params`` are its
        parameters), or ``None``.
    """

    generator: str | None = None
    params: tuple[tuple[str, Any], ...] = ()
    path: str | None = None
    digest: str | None = None
    experiment: str | None = None

    def identity(self) -> dict[str, Any]:
        """What the task key hashes: the generator and its parameters, the
        experiment and its parameters, or the file's digest (not its
        path)."""
        if self.experiment is not None:
            return {"experiment": self.experiment, "params": dict(self.params)}
        if self.generator is None:
            return {"file": self.digest}
        return {"generator": self.generator, "params": dict(self.params)}

    @property
    def label(self) -> str:
        """A readable name: ``ics2020(alpha_gen=0.5,io_nodes=1,seed=0)`` or
        the file name."""
        if self.generator is None and self.experiment is None:
            return str(self.path).rsplit("/", 1)[-1]
        inner = ",".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}"
                         for k, v in self.params)
        return f"{self.generator or self.experiment}({inner})"


@dataclass(frozen=True)
class Limits:
    """A method's own limits. ``time_limit`` (seconds, ``None`` = none) is
    passed to methods that take one (exact solvers); heuristics ignore it."""

    time_limit: float | None = None

    def identity(self) -> dict[str, Any]:
        return {"time_limit": self.time_limit}


@dataclass(frozen=True)
class Task:
    """One method on one instance (see the module docstring). Picklable;
    :attr:`key` is its content hash.

    ``group`` (the spec group that produced it) and ``index`` (its position
    in the spec's task list) are bookkeeping, not identity: they are not
    hashed.
    """

    source: InstanceSource
    method: str
    seed: int = 0
    limits: Limits = field(default_factory=Limits)
    metrics: tuple[str, ...] = ()
    execution: tuple[tuple[str, Any], ...] = ()
    group: str = field(default="", compare=False)
    index: int = field(default=0, compare=False)

    def identity(self) -> dict[str, Any]:
        """Everything that determines the result, as plain data."""
        out = {"version": KEY_VERSION, "instance": self.source.identity(),
               "method": self.method, "seed": self.seed,
               "limits": self.limits.identity(), "metrics": sorted(self.metrics)}
        if self.execution:
            out["execution"] = dict(self.execution)
        return out

    @cached_property
    def execution_spec(self) -> Any:
        """The task's :class:`~opt_sched.execution.ExecutionSpec`, parsed once
        per task object (the spec loader checked it; the worker, the label
        and the bound all use this one)."""
        from ..execution import ExecutionSpec

        return ExecutionSpec.parse(dict(self.execution) if self.execution else None)

    @property
    def execution_label(self) -> str:
        """``exclusive``, or the model with its options
        (:attr:`~opt_sched.execution.ExecutionSpec.label`)."""
        return self.execution_spec.label if self.execution else "exclusive"

    @cached_property
    def key(self) -> str:
        """SHA-256 (hex) of :func:`canonical_json` of :meth:`identity`."""
        text = canonical_json(self.identity())
        return hashlib.sha256(text.encode("ascii")).hexdigest()
