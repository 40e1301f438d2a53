"""Trace -> :class:`~opt_sched.instance.Instance`: the jobs with their I/O.

One partition of ``P`` machines behind one I/O node of bandwidth ``b``.
Every trace job becomes a periodic job (SPEC §2, §9):

- ``release`` = submit time minus the *origin* (the first submit, unless
  ``origin`` is given: :mod:`~opt_sched.traces.time_origin`), so t = 0 is the
  first submit and every metric, curve and picture starts there (a log in
  Unix epochs has releases near 0, not 1.6e9); ``walltime`` = the estimate,
  ``nodes`` = ``Q_i``, ``user`` and ``group`` from the trace, id = the
  trace's id. :attr:`TraceConversion.origin` keeps the shift (and the date
  when the log says), for the writers that give times back in the file's
  clock;
- ``n_i`` iterations of compute ``w_i = (1 - f_i) T_i / n_i`` and I/O
  volume ``v_i = f_i T_i b / n_i``, with ``f_i`` and ``n_i`` drawn by the I/O
  profile (:mod:`~opt_sched.traces.profiles`), so that the contention-free
  length is the trace's run time ``T_i`` and the I/O share is ``f_i``;
- with a target ``alpha``, the fractions are first rescaled so that the
  instance's I/O load (SPEC §4, :meth:`Instance.io_load`) equals it
  (:mod:`~opt_sched.traces.calibration`).

``P`` = ``nodes`` if given, else the trace's machine size, else its widest
job. A ``nodes`` smaller than the widest job is refused (OptionError): the
trace's jobs are never dropped silently. ``b`` = ``bandwidth`` if given,
else the profile's suggestion (Darshan: the median measured bandwidth,
MiB/s), else 1. Alpha does not depend on ``b``, so ``alpha`` and
``bandwidth`` may be given together.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from ..errors import OptionError
from ..instance import Instance, Platform
from ..limits import MAX_MACHINES
from .calibration import alpha_of, load_weights, odds_scale, solve_odds_scale
from .fast_jobs import periodic_jobs
from .profiles import IOProfile, make_profile
from .time_origin import TimeOrigin
from .trace import Trace

__all__ = ["TraceConversion", "convert_trace", "trace_to_instance"]


@dataclass(frozen=True, eq=False)
class TraceConversion:
    """An instance built from a trace, and how.

    Attributes
    ----------
    instance
        The instance (one partition).
    profile
        The profile name.
    fractions, iterations
        The final ``f_i`` (after calibration) and ``n_i``, in job order.
    bandwidth
        ``b`` of the I/O node.
    alpha
        The I/O load ``sum_i a_i f_i`` (equal to ``instance.io_load()`` up to
        rounding).
    odds_scale
        The calibration factor ``c`` (1 without a target).
    load_factor
        ``A = P sum T_i / sum Q_i T_i``.
    info
        The profile's parameters (:attr:`ProfileDraw.info`).
    origin
        Where t = 0 lies in the trace's clock (:class:`TimeOrigin`):
        ``release = submit - origin.shift``.
    """

    instance: Instance
    profile: str
    fractions: np.ndarray
    iterations: np.ndarray
    bandwidth: float
    alpha: float
    odds_scale: float
    load_factor: float
    info: Mapping[str, object] = field(default_factory=dict)
    origin: TimeOrigin = field(default_factory=TimeOrigin)

    @property
    def num_io_phases(self) -> int:
        """I/O phases with a positive volume."""
        return int(self.iterations[self.fractions > 0].sum())

    def describe(self) -> str:
        """One line for the terminal."""
        plat = self.instance.platform.partitions[0]
        return (f"{self.instance.name}: {self.instance.num_jobs} jobs, P={plat.nodes}, "
                f"b={plat.bandwidth:g}, profile {self.profile}, alpha={self.alpha:.6g}"
                + (f" (odds scale {self.odds_scale:.6g})" if self.odds_scale != 1
                   else "") + f", {self.num_io_phases} I/O phases")


def _machines(trace: Trace, nodes: int | None) -> int:
    """``P``: ``nodes``, else the trace's machine size, else its widest job;
    at most :data:`~opt_sched.limits.MAX_MACHINES` (the readers refuse a
    larger trace with its line; this guards traces built in code)."""
    widest = trace.widest
    if nodes is None:
        machines = trace.machine_size or max(widest, 1)
        if machines > MAX_MACHINES:
            raise OptionError(f"trace {trace.name!r}: {machines:,} machines exceed "
                              f"the limit {MAX_MACHINES:,}")
        return machines
    if isinstance(nodes, bool) or not isinstance(nodes, (int, np.integer)) or nodes < 1:
        raise OptionError(f"nodes={nodes!r} must be an integer >= 1")
    if nodes > MAX_MACHINES:
        raise OptionError(f"nodes={nodes:,} exceeds the limit {MAX_MACHINES:,} "
                          f"machines")
    if nodes < widest:
        wider = int((trace.nodes > nodes).sum())
        first = int(np.flatnonzero(trace.nodes > nodes)[0])
        raise OptionError(f"nodes={nodes} is smaller than {wider} jobs of trace "
                          f"{trace.name!r} (widest {widest}, e.g. job "
                          f"{trace.ids[first]!r}); give nodes >= {widest}")
    return int(nodes)


def _bandwidth(value: float | None, suggested: float | None) -> float:
    if value is None:
        return float(suggested) if suggested else 1.0
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
            math.isfinite(value) and value > 0):
        raise OptionError(f"bandwidth={value!r} must be a finite number > 0")
    return float(value)


def convert_trace(trace: Trace, profile: str | IOProfile = "none", *, seed: int = 0,
                  alpha: float | None = None, bandwidth: float | None = None,
                  nodes: int | None = None, name: str | None = None,
                  profile_options: Mapping[str, object] | None = None,
                  origin: float | None = None) -> TraceConversion:
    """Build the instance of ``trace`` under an I/O profile (module docstring).

    Parameters
    ----------
    trace
        From :func:`read_swf` or :func:`read_batsim`.
    profile
        A name of :data:`~opt_sched.traces.profiles.PROFILE_NAMES` (with
        ``profile_options``) or an :class:`IOProfile` object.
    seed
        Seeds the profile's draws.
    alpha
        Target I/O load; ``None`` keeps the profile's fractions as drawn.
    bandwidth
        ``b``; ``None``: the profile's suggestion, else 1.
    nodes
        ``P``; ``None``: the trace's machine size.
    name
        Instance name (default: the trace's).
    origin
        The trace-clock time that becomes t = 0 (``0`` keeps the file's
        times); ``None``: the first submit (module docstring).

    Raises
    ------
    OptionError
        Unknown profile or option, ``nodes`` below the widest job, an
        unreachable ``alpha``, a bad ``bandwidth``, ``seed`` or ``origin``.
    """
    if len(trace) == 0:
        raise OptionError(f"trace {trace.name!r} has no simulable job")
    if isinstance(profile, str):
        io_profile = make_profile(profile, **dict(profile_options or {}))
    else:
        if profile_options:
            raise OptionError("profile_options are only for a profile given by name")
        io_profile = profile
    machines = _machines(trace, nodes)
    start = TimeOrigin.of_trace(trace.header, trace.submit, origin)
    weights = load_weights(trace.nodes, trace.run_time, machines)
    load_factor = float(weights.sum())
    if alpha is not None and (isinstance(alpha, bool) or not isinstance(
            alpha, (int, float)) or not math.isfinite(alpha) or alpha <= 0):
        raise OptionError(f"alpha={alpha!r} must be a finite number > 0")
    mean_share = None if alpha is None else alpha / load_factor
    draw = io_profile.draw(trace.nodes, trace.run_time, seed, mean_share)
    fractions = np.clip(np.asarray(draw.fractions, dtype=float), 0.0, 1.0)
    scale = 1.0
    if alpha is not None:
        scale = solve_odds_scale(fractions, weights, alpha)
        fractions = odds_scale(fractions, scale)
    band = _bandwidth(bandwidth, draw.bandwidth)
    iterations = np.asarray(draw.iterations, dtype=np.int64)
    run = trace.run_time
    compute = (1.0 - fractions) * run / iterations
    volume = fractions * run * band / iterations
    jobs = periodic_jobs(trace.ids, trace.nodes, compute, volume, iterations,
                         trace.submit - start.shift if start.shift else trace.submit,
                         trace.walltime, trace.users, trace.groups)
    instance = Instance(name or trace.name,
                        Platform.homogeneous(1, machines, band), jobs)
    off = np.zeros(len(jobs) + 1, np.int64)
    np.cumsum(iterations, out=off[1:])
    instance.adopt_phase_arrays(off, np.repeat(compute, iterations),
                                np.repeat(volume, iterations))
    return TraceConversion(instance, io_profile.name, fractions, iterations, band,
                           alpha_of(fractions, weights), scale, load_factor,
                           dict(draw.info), start)


def trace_to_instance(trace: Trace, profile: str | IOProfile = "none", *,
                      seed: int = 0, alpha: float | None = None,
                      bandwidth: float | None = None, nodes: int | None = None,
                      name: str | None = None,
                      profile_options: Mapping[str, object] | None = None,
                      origin: float | None = None) -> Instance:
    """The instance of :func:`convert_trace` (same parameters)."""
    return convert_trace(trace, profile, seed=seed, alpha=alpha,
                         bandwidth=bandwidth, nodes=nodes, name=name,
                         profile_options=profile_options, origin=origin).instance
