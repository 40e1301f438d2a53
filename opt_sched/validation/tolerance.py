r"""The validator's tolerance, derived from the instance alone.

The tolerance absorbs floating-point rounding in the times a method
computes. It must not depend on the schedule under test: a tolerance
relative to the schedule's own horizon lets one absurd time (a start at
``1e308``) widen it until everything passes. So it is relative to the
*instance scale*

.. math::

    D = \max_i r_i + \sum_i T_i(b_i^{\min}), \qquad
    T_i(b) = \sum_j (w_{ij} + v_{ij} / b),

where :math:`b_i^{\min}` is the bandwidth of the partition the instance maps
job ``i`` to, or the smallest bandwidth of the platform when it maps none.
``D`` is the makespan of the serial schedule that waits for the last release
and then runs the jobs one at a time on the slowest I/O node: every schedule
without idle time ends by ``D``. The tolerance is

.. math::

    \varepsilon = \mathrm{rel\_tol} \cdot \max(1, D).

Times far beyond ``D`` cannot be checked at that tolerance: above
:math:`2^{52} \varepsilon` consecutive floating-point numbers are more than
``eps`` apart, so no phase there can be shown to have its length. Rule 2
reports every phase time beyond

.. math::

    T_{\max} = 2^{52} \cdot \max(\varepsilon,\ 2^{-40} \max(1, D))

(about :math:`4.5 \cdot 10^6 \, D` with the default ``rel_tol = 1e-9``; the
:math:`2^{-40}` floor keeps ``rel_tol = 0``, exact comparisons, usable up to
:math:`4096 \, D`).

Examples
--------
``tiny2`` (one partition, ``b = 1``; a: ``2 x (w=2, v=3)``,
b: ``2 x (w=1, v=2)``, released at 0) has ``D = 10 + 6 = 16``:

>>> from opt_sched import read_instance
>>> from pathlib import Path
>>> inst = read_instance(Path(__file__).parents[2] / "instances" / "tiny2.json")
>>> instance_scale(inst), tolerance(inst, 1e-9)
(16.0, 1.6e-08)
"""

from __future__ import annotations

import math

from ..errors import InstanceError
from ..instance import Instance

__all__ = ["checkable_time_limit", "instance_scale", "tolerance"]

_FLOAT_STEPS = 2.0 ** 52
"""Floating-point numbers in ``[2^e, 2^(e+1))``: their spacing is ``2^e / 2^52``."""

_EXACT_FLOOR = 2.0 ** -40
"""Relative floor of the checkable range when ``rel_tol = 0``."""


def instance_scale(instance: Instance) -> float:
    """``D = max_i r_i + sum_i T_i(b_i^min)`` (see the module text).

    Raises
    ------
    InstanceError
        ``D`` overflows: the instance's times are too large to validate.
    """
    slowest = min(p.bandwidth for p in instance.platform.partitions)
    parts = instance.platform.partitions
    work = math.fsum(
        job.length(parts[job.partition].bandwidth if job.partition is not None
                   else slowest)
        for job in instance.jobs)
    scale = max((job.release for job in instance.jobs), default=0.0) + work
    if not math.isfinite(scale):
        raise InstanceError(f"instance {instance.name!r}: last release + total work "
                            f"= {scale!r} is not a finite number; the validator "
                            "cannot derive its tolerance")
    return scale


def tolerance(instance: Instance, rel_tol: float) -> float:
    """``eps = rel_tol * max(1, D)``."""
    return float(rel_tol) * max(1.0, instance_scale(instance))


def checkable_time_limit(eps: float, scale: float) -> float:
    """``T_max = 2^52 * max(eps, 2^-40 * max(1, D))``: beyond it, consecutive
    floating-point times are more than the tolerance apart."""
    return _FLOAT_STEPS * max(eps, _EXACT_FLOOR * max(1.0, scale))
