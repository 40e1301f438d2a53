r"""The Edison workload model: four marginals calibrated on the thesis's
NERSC statistics (seed 002, Paper I Table 3 and §4, Paper IV §3.1; digest
B.2 "What a synthetic generator needs").

The thesis publishes no fitted distributions and the Edison logs are not
public (ScSF's bundled ``2015-edison-*.gen`` tables are a placeholder, its
README says so). So the model is written here as explicit tables
(:func:`~opt_sched.workloads.empirical.EmpiricalSampler.from_pmf`) whose
shapes are ASSUMED and whose masses are set to hit the anchors:

=====================================  =======  ===================
anchor (Edison, 2014)                  thesis   this model (exact)
=====================================  =======  ===================
jobs running < 2 h                     88 %     see :func:`anchors`
jobs on <= 240 cores (10 nodes)        69 %
jobs on one node (24 cores)            39 %
jobs using <= 50 % of their request    ~60 %
jobs overrunning their request         11 %
inter-arrival < 2 min                  90 %
=====================================  =======  ===================

- **Requested wall time** (1-minute bins, up to 48 h): point masses at the
  queue limits where the thesis sees steps in the run-time CDF (30 min,
  1, 2, 6, 12, 24, 36 h) and at 48 h (reg_small, low, killable), the rest
  log-uniform between them.
- **Accuracy** ``a = run / request`` (bins of 0.01, midpoints): a
  piecewise-uniform density on ``(0, 1]`` with ``P(a <= 0.5) = 0.60``
  overall, plus 11 % of jobs that overrun: those run their request plus up
  to the overtime limit (Slurm's ``OverTimeLimit=1`` minute in ScSF).
- **Nodes** (24 cores each; Edison does not share nodes): 39 % one node,
  30 % 2-10 nodes (powers of two favoured), the rest log-uniform by octave
  up to the machine (5,576 nodes) with masses at powers of two.
- **Inter-arrival** (1-second bins): 90 % below 120 s (log-uniform from 1 s,
  10 % at 0 s: bursts), the last 10 % log-uniform on 120-2000 s (Paper I:
  "the remaining 10 % in 1500-2000 s" read as the tail's reach). The load
  is set by the job-pressure mechanism, not by this mean
  (:mod:`~opt_sched.workloads.pressure`).

Variables are independent (ScSF samples them independently; the thesis
does not model their correlation).
"""

from __future__ import annotations

import math

import numpy as np

from .empirical import EmpiricalSampler

__all__ = [
    "EDISON_CORES",
    "EDISON_CORES_PER_NODE",
    "EDISON_NODES",
    "accuracy_sampler",
    "anchors",
    "interarrival_sampler",
    "limit_sampler",
    "nodes_sampler",
]

EDISON_NODES = 5576
EDISON_CORES_PER_NODE = 24
EDISON_CORES = EDISON_NODES * EDISON_CORES_PER_NODE  # 133,824 (Paper I Table 1)

OVERRUN = 0.11
"""Share of jobs running past their request (Paper I Fig. 2b)."""


def _log_uniform(lo: int, hi: int, mass: float, pmf: dict[int, float]) -> None:
    """Spread ``mass`` over the integers ``lo..hi`` with density ~ 1/x."""
    xs = np.arange(lo, hi + 1, dtype=float)
    weights = 1.0 / xs
    weights *= mass / weights.sum()
    for x, w in zip(xs.astype(int), weights):
        pmf[int(x)] = pmf.get(int(x), 0.0) + float(w)


def _sampler(pmf: dict[int, float], scale: float, name: str) -> EmpiricalSampler:
    keys = sorted(pmf)
    return EmpiricalSampler.from_pmf([k * scale for k in keys],
                                     [pmf[k] for k in keys], name=name)


# requested wall time, minutes: (atoms), (log-uniform ranges)
_LIMIT_ATOMS = {30: 0.25, 60: 0.115, 120: 0.07, 360: 0.04, 720: 0.03, 1440: 0.025,
                2160: 0.015, 2880: 0.005}
_LIMIT_RANGES = ((1, 29, 0.25), (31, 59, 0.07), (61, 119, 0.06), (121, 359, 0.035),
                 (361, 719, 0.015), (721, 1439, 0.01), (1441, 2159, 0.005),
                 (2161, 2879, 0.005))


def limit_sampler() -> EmpiricalSampler:
    """Requested wall time in seconds (1-minute values)."""
    pmf = dict(_LIMIT_ATOMS)
    for lo, hi, mass in _LIMIT_RANGES:
        _log_uniform(lo, hi, mass, pmf)
    return _sampler(pmf, 60.0, "wall-clock limit")


# accuracy: CDF knots on (0, 1] (mass 1 - OVERRUN), then the overrun bin
_ACCURACY_KNOTS = ((0.0, 0.0), (0.02, 0.10), (0.1, 0.24), (0.25, 0.41), (0.5, 0.60),
                   (0.75, 0.71), (0.95, 0.80), (1.0, 1.0 - OVERRUN))


def accuracy_sampler() -> EmpiricalSampler:
    """``run / request`` at 0.01 resolution (bin midpoints); the bin at 1.0
    (value 1.005) stands for the overrunning jobs."""
    edges = np.round(np.arange(0, 100) * 0.01, 2)
    knots_x = [x for x, _ in _ACCURACY_KNOTS]
    knots_f = [f for _, f in _ACCURACY_KNOTS]
    cdf = np.interp(np.append(edges, 1.0), knots_x, knots_f)
    probs = np.diff(cdf)
    values = [*list(edges), 1.0]
    probs = [*list(probs), OVERRUN]
    return EmpiricalSampler(values, probs, width=0.01, policy="midpoint",
                            name="accuracy")


def nodes_sampler(max_nodes: int = EDISON_NODES) -> EmpiricalSampler:
    """Nodes per job (``<= max_nodes``; the mass above it is dropped and the
    rest renormalised)."""
    pmf = {1: 0.39, 2: 0.09, 3: 0.02, 4: 0.07, 5: 0.015, 6: 0.02, 7: 0.005, 8: 0.05,
           9: 0.005, 10: 0.025}
    octaves = ((11, 16, 0.0978), (17, 32, 0.06), (33, 64, 0.05), (65, 128, 0.04),
               (129, 256, 0.03), (257, 512, 0.02), (513, 1024, 0.008),
               (1025, 2048, 0.003), (2049, 4096, 0.001), (4097, EDISON_NODES, 0.0002))
    for lo, hi, mass in octaves:
        # half of an octave's mass at its power of two, half spread 1/x
        top = 1 << math.ceil(math.log2(hi)) if hi != EDISON_NODES else None
        if top is not None and lo <= top <= hi:
            pmf[top] = pmf.get(top, 0.0) + mass / 2
            _log_uniform(lo, hi, mass / 2, pmf)
        else:
            _log_uniform(lo, hi, mass, pmf)
    pmf = {k: v for k, v in pmf.items() if k <= max_nodes}
    return _sampler(pmf, 1.0, "nodes")


def interarrival_sampler() -> EmpiricalSampler:
    """Seconds between two submissions (1-second values)."""
    pmf = {0: 0.10}
    _log_uniform(1, 119, 0.80, pmf)
    _log_uniform(120, 2000, 0.10, pmf)
    return _sampler(pmf, 1.0, "inter-arrival")


def anchors(limits: np.ndarray, runs: np.ndarray, nodes: np.ndarray,
            cores_per_node: int = EDISON_CORES_PER_NODE) -> dict[str, float]:
    """The thesis's Table 3 figures of a set of jobs, in percent."""
    cores = nodes * cores_per_node
    core_hours = cores * runs / 3600.0
    with np.errstate(divide="ignore", invalid="ignore"):
        accuracy = runs / limits
    return {
        "run < 2 h": 100 * float(np.mean(runs < 7200.0)),
        "cores <= 240": 100 * float(np.mean(cores <= 240)),
        "one node": 100 * float(np.mean(nodes <= 1)),
        "accuracy <= 0.5": 100 * float(np.mean(accuracy <= 0.5)),
        "overrun": 100 * float(np.mean(accuracy > 1.0)),
        "<= 1 core-hour": 100 * float(np.mean(core_hours <= 1.0)),
        ">= 1000 core-hours": 100 * float(np.mean(core_hours >= 1000.0)),
    }
