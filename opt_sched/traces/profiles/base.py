"""What an I/O profile is: per-job I/O-time fractions and iteration counts.

A trace gives each job a run time ``T_i`` but no I/O. A profile draws, for
every job, an I/O-time fraction ``f_i`` in ``[0, 1]`` and a number of
iterations ``n_i``; :func:`~opt_sched.traces.convert.convert_trace` then
splits the run time into ``n_i`` identical (compute, I/O) iterations

.. math:: w_i = (1 - f_i) T_i / n_i, \\qquad v_i = f_i T_i b / n_i,

so that the contention-free length ``n_i (w_i + v_i / b)`` is ``T_i`` and
the job spends the share ``f_i`` of it on the I/O node.

Randomness: ``seed`` makes a :class:`numpy.random.SeedSequence` whose two
children drive the iteration counts (child 0) and the fractions (child 1),
so two profiles with the same seed give the same ``n_i``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np

from ...errors import OptionError

__all__ = ["IOProfile", "ProfileDraw", "draw_iterations", "profile_streams"]


@dataclass(frozen=True, eq=False)
class ProfileDraw:
    """A profile's draws for the jobs of one trace.

    Attributes
    ----------
    fractions
        ``f_i``, the share of the contention-free run time spent in I/O.
    iterations
        ``n_i >= 1``.
    bandwidth
        The I/O-node bandwidth this profile suggests when the caller gives
        none (``None``: the unit bandwidth 1).
    info
        The parameters used (for reports), e.g. the mixing share of ``bn``.
    """

    fractions: np.ndarray
    iterations: np.ndarray
    bandwidth: float | None = None
    info: Mapping[str, object] = field(default_factory=dict)


@runtime_checkable
class IOProfile(Protocol):
    """A named, seeded way to give trace jobs compute/I/O iterations."""

    name: str

    def draw(self, nodes: np.ndarray, run_time: np.ndarray, seed: int,
             mean_share: float | None = None) -> ProfileDraw:
        """Draws for jobs of ``nodes`` machines and ``run_time`` seconds.

        ``mean_share`` is the mean fraction that would make the expected I/O
        load equal a requested target (``alpha / A``, see
        ``instances/traces.md``); a profile with a free parameter may set it
        from this value, others ignore it.
        """
        ...  # pragma: no cover


def profile_streams(seed: int) -> tuple[np.random.Generator, np.random.Generator]:
    """The (iterations, fractions) random generators of ``seed``."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise OptionError(f"seed={seed!r} must be a non-negative integer")
    iterations, fractions = np.random.SeedSequence(int(seed)).spawn(2)
    return np.random.default_rng(iterations), np.random.default_rng(fractions)


def draw_iterations(rng: np.random.Generator, size: int, low: int = 10,
                    high: int = 100) -> np.ndarray:
    """``n_i ~ U{low, ..., high}`` (seed 000: 10 to 100 iterations)."""
    return rng.integers(low, high + 1, size=size)


def check_iterations(name: str, low: object, high: object) -> tuple[int, int]:
    """Validate a profile's ``(min_iterations, max_iterations)``."""
    for key, value in (("min_iterations", low), ("max_iterations", high)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise OptionError(f"io profile {name!r}: {key}={value!r} must be an "
                              f"integer >= 1")
    if high < low:  # type: ignore[operator]
        raise OptionError(f"io profile {name!r}: max_iterations={high!r} < "
                          f"min_iterations={low!r}")
    return low, high  # type: ignore[return-value]


def check_unit(name: str, key: str, value: object, *, open_low: bool = False
               ) -> float:
    """A number in ``[0, 1]`` (``(0, 1]`` with ``open_low``)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
            (value > 0 if open_low else value >= 0) and value <= 1):
        interval = "(0, 1]" if open_low else "[0, 1]"
        raise OptionError(f"io profile {name!r}: {key}={value!r} must be in "
                          f"{interval}")
    return float(value)


def check_positive(name: str, key: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
            value > 0 and np.isfinite(value)):
        raise OptionError(f"io profile {name!r}: {key}={value!r} must be > 0")
    return float(value)


def check_finite(name: str, key: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not \
            np.isfinite(value):
        raise OptionError(f"io profile {name!r}: {key}={value!r} is not a finite "
                          f"number")
    return float(value)
