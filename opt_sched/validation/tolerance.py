r"""The validator's tolerance: what floating point can lose, and no more.

A method computes its times in floating point: an end is a start plus a
length, a length is ``w`` or ``v / b`` (or, under bandwidth sharing, an
integral of rates). Two things can be lost on the way:

- *rounding of the time itself*: one addition rounds to the nearest float,
  half an ulp of the result; a handful of operations lose a few ulps. The
  ulp at ``t`` is :math:`u(t) = \mathrm{spacing}(|t|)`, about
  :math:`2^{-52} |t|`;
- *rounding of the length*: a length computed through a division, or an
  integral of piecewise-constant rates, is off by a small relative amount.

So the tolerance of a comparison that involves the end of a phase of length
:math:`L` ending near time :math:`t` is

.. math::

    \tau(t, L) = \min\Big(k\, u(t) + \rho L,\ \tfrac{1}{2} L\Big)
    \quad (L > 0), \qquad \tau(t, 0) = k\, u(t),

with ``k = ulps`` (default :data:`ULPS` = 8) and :math:`\rho` = ``rel_tol``
(default :data:`REL_TOL` = ``1e-10``: a phase of 2,000 s, the longest I/O of
KTH-SP2 with Darshan-Cori shares, absorbs ``2e-7`` s, so an overlap of a
microsecond is caught anywhere in that trace). A comparison of two times
that are not phase ends (a start against a release, two starts) uses
:math:`k\, u(t)`.

Times read from a text file with few digits lost more than floating point
does: Batsim's ``out_jobs.csv`` prints 6 decimals, so its times are off by up
to ``5e-7`` s. ``resolution`` ``a`` (default 0) declares such a loss; it is
added to every tolerance, :math:`k\,u(t) + a` and
:math:`\min(k\,u(t) + \rho L + a,\ L/2)`.

Three properties follow, each the point of the design:

1. **It does not grow with the clock**, only with the *resolution* of the
   clock: at ``t = 1e9`` s, :math:`k\,u(t) = 8 \cdot 1.2\cdot10^{-7}
   \approx 10^{-6}` s; at KTH-SP2's ``3e7`` s it is ``3e-8`` s. An overlap of
   a millisecond is caught at any release time an instance may have.
2. **It never hides a phase**: :math:`\tau \le L/2`, so a phase placed
   entirely inside another one overlaps it by more than the tolerance of
   either, whatever their lengths and times.
3. **It does not depend on the schedule's own numbers** beyond the times
   being compared: one absurd time (a start at ``1e308``) cannot widen the
   tolerance of any other comparison.

Times far beyond the instance cannot be checked at all: above
:math:`2^{52}\,\varepsilon_D`, with :math:`\varepsilon_D = 10^{-9} \max(1, D)`
and the *instance scale*

.. math::

    D = \max_i r_i + \sum_i T_i(b_i^{\min}), \qquad
    T_i(b) = \sum_j (w_{ij} + v_{ij} / b),

(the makespan of the serial schedule on the slowest admissible I/O node),
consecutive floats are more than :math:`\varepsilon_D` apart. Rule 2 reports
every phase time beyond that range (:func:`checkable_time_limit`), about
:math:`4.5 \cdot 10^6 D`: no schedule without absurd idle time goes there,
and a start at ``1e308`` does.

Examples
--------
``tiny2`` (one partition, ``b = 1``; a: ``2 x (w=2, v=3)``,
b: ``2 x (w=1, v=2)``, released at 0) has ``D = 10 + 6 = 16``:

>>> from opt_sched import read_instance
>>> from pathlib import Path
>>> inst = read_instance(Path(__file__).parents[2] / "instances" / "tiny2.json")
>>> instance_scale(inst)
16.0
>>> tol = Tolerance(rel_tol=1e-10)
>>> float(tol.end(1e9 + 3.0, 3.0))   # 8 ulps of 1e9 + 1e-10 * 3
9.5397431640625e-07
>>> float(tol.end(3.0, 3.0))         # 8 ulps of 3 + 1e-10 * 3
3.000035527136788e-10
>>> float(tol.end(1e9, 1e-7))        # never more than half the phase
5e-08
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import InstanceError
from ..instance import Instance

__all__ = ["REL_TOL", "ULPS", "PhaseTolerances", "Tolerance", "checkable_time_limit",
           "instance_scale"]

ULPS = 8.0
"""Ulps of the compared times absorbed by default: a handful of roundings."""

REL_TOL = 1e-10
"""The default relative term on phase lengths (module text)."""

_FLOAT_STEPS = 2.0 ** 52
"""Floating-point numbers in ``[2^e, 2^(e+1))``: their spacing is ``2^e / 2^52``."""

_RANGE_REL = 1e-9
"""Resolution, relative to the instance scale, that a checkable time keeps."""


@dataclass(frozen=True)
class Tolerance:
    """``tau(t, L) = min(ulps * u(t) + rel_tol * L, L / 2)`` (module text).

    ``rel_tol = 0`` and ``ulps = 0`` make every comparison exact;
    ``resolution`` is the precision the times were written with, if coarser
    than floating point (module text).
    """

    rel_tol: float = REL_TOL
    ulps: float = ULPS
    resolution: float = 0.0

    def times(self, t: Any) -> np.ndarray:
        """``ulps * u(t) + resolution``: the rounding of the time ``t`` alone."""
        return (self.ulps * np.spacing(np.abs(np.asarray(t, dtype=float)))
                + self.resolution)

    def end(self, t: Any, length: Any) -> np.ndarray:
        """The tolerance of a phase end near ``t`` of a phase of ``length``."""
        length = np.abs(np.asarray(length, dtype=float))
        raw = self.times(t) + self.rel_tol * length
        return np.where(length > 0, np.minimum(raw, 0.5 * length), raw)

    def describe(self) -> str:
        """``"8 ulps + 1e-09 x length"``: how the tolerance is derived."""
        text = f"{self.ulps:g} ulps + {self.rel_tol:.3g} x length"
        return text + (f" + {self.resolution:.3g}" if self.resolution else "")

    def to_dict(self) -> dict[str, float]:
        return {"ulps": self.ulps, "rel_tol": self.rel_tol,
                "resolution": self.resolution}


@dataclass(frozen=True)
class PhaseTolerances:
    """The tolerance of every end of a phase table (:mod:`.table`).

    ``compute``, ``io``: per slot, the tolerance of the end of its compute
    and I/O phase; ``job``: per job, the tolerance of its completion
    :math:`C_i`, the largest tolerance of its phase ends (0 for an unlisted
    job). ``rule`` is the :class:`Tolerance` they come from.
    """

    rule: Tolerance
    compute: np.ndarray
    io: np.ndarray
    job: np.ndarray

    @classmethod
    def of(cls, rule: Tolerance, table: Any) -> PhaseTolerances:
        """The tolerances of ``table`` (a :class:`~.table.PhaseTable`)."""
        compute = rule.end(table.c_end, table.c_full_end - table.c_start)
        io = rule.end(table.o_end, table.o_full_end - table.o_start)
        io = np.where(table.o_started, io, 0.0)
        job = np.zeros(len(table.listed))
        if table.slots:
            offsets = table.first[:-1][table.listed]
            job[table.listed] = np.maximum.reduceat(np.maximum(compute, io), offsets)
        killed = ~np.isnan(table.killed_at)
        job[killed] = np.maximum(job[killed], rule.times(table.killed_at[killed]))
        return cls(rule, compute, io, job)

    @property
    def largest(self) -> float:
        """The largest tolerance of any phase end (0 when there is none)."""
        ends = np.concatenate((self.compute, self.io, self.job))
        return float(ends.max()) if len(ends) else 0.0


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
                            "cannot check its times")
    return scale


def checkable_time_limit(scale: float) -> float:
    """``T_max = 2^52 * 1e-9 * max(1, D)``: beyond it, consecutive
    floating-point times are more than ``1e-9 * max(1, D)`` apart and no
    phase length can be shown."""
    return _FLOAT_STEPS * _RANGE_REL * max(1.0, scale)
