r"""The ``jann`` workload protocol: a synthetic stream in the spirit of Jann
et al.'s model of the ASCI Blue-Pacific workload (seed 004 §2.3).

The seed draws arrivals and sizes from "stochastic models that fit actual
workloads at the ASCI Blue-Pacific system" (Jann et al., JSSPP 1997: per
job-size range, a hyper-Erlang distribution of common order for the
inter-arrival times and one for the service times, fitted on three
moments). Neither the seed nor our sources give the fitted parameters, so
this generator keeps the *structure* and documents its own numbers; none of
them is Jann's.

Jobs (``jobs`` of them, ``P = 320`` nodes by default):

- **Arrivals**: inter-arrival times from a two-branch hyper-Erlang
  (:mod:`opt_sched.gang.distributions`) of order 1 (a hyper-exponential),
  mean :math:`\lambda^{-1}` (583 s, the seed's) and coefficient of variation
  1.5; the first job arrives at 0.
- **Sizes**: a size range is drawn with the weights below (ranges are
  powers of two, as in Jann et al.; the last one ends at ``P``); within it
  the size is the top of the range with probability 0.5 (the peaks of real
  logs at powers of two; the full machine for the last range), otherwise
  uniform over the range.

  ====== ==== ==== ==== ==== ===== ===== ===== ====== ======= =======
  range  1    2    3-4  5-8  9-16  17-32 33-64 65-128 129-256 257-320
  weight 0.14 0.08 0.09 0.11 0.14  0.14  0.13  0.09   0.06    0.02
  ====== ==== ==== ==== ==== ===== ===== ===== ====== ======= =======

  The mean size is 44.3 nodes. This is our one calibration: with it the
  seed's highest load (mean execution time 3102 s at 583 s) offers an
  all-local utilisation of 44.3 x 3102 / (583 x 320) = 0.74 -- a high but
  sustainable load, where "the matrix is already full" (seed §3.6) -- and
  its lowest guessed point (1723 s) offers 0.41. It was fixed before any
  scheduler was run, from that qualitative statement, not from the seed's
  figures.
- **All-local execution time** :math:`t^{e'}`: a hyper-Erlang of order 2
  with mean 1 and coefficient of variation 2, times ``mean_runtime`` (so a
  load sweep scales the same draws: common random numbers), at least 1 s.
  Sizes and times are independent (Jann et al. fit times per size range;
  we have no per-range parameters).
- **I/O**: the job's I/O intensity is ``io_intensity`` (``r`` in
  {0.1, 0.33, 0.5} in the seed), or, for ``"mixed"``, 0.1, 0.33 or 0.5
  with probability 1/3 each (seed §4). Then
  :math:`n^I = \mathrm{round}(r\,t^{e'} / t_{local})` blocks and
  :math:`t^C = t^{e'} - n^I t_{local}`.

Each quantity has its own random stream (``default_rng([seed, s])``), so
changing ``mean_runtime`` or ``io_intensity`` leaves the arrivals and sizes
unchanged. File nodes are not drawn here (:mod:`opt_sched.gang.placement`).
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import OptionError
from ..workloads.limits import check_job_count
from .distributions import hyper_erlang
from .workload import T_LOCAL, T_REMOTE, GangWorkload

__all__ = ["MIXED_INTENSITIES", "SIZE_RANGES", "SIZE_WEIGHTS", "jann_workload",
           "mean_size"]

SIZE_RANGES = ((1, 1), (2, 2), (3, 4), (5, 8), (9, 16), (17, 32), (33, 64),
               (65, 128), (129, 256), (257, 320))
"""Job-size ranges for a 320-node machine (scaled for other sizes)."""

SIZE_WEIGHTS = (0.14, 0.08, 0.09, 0.11, 0.14, 0.14, 0.13, 0.09, 0.06, 0.02)
"""Probability of each size range."""

TOP_OF_RANGE = 0.5
MIXED_INTENSITIES = (0.1, 0.33, 0.5)
INTERARRIVAL_CV, INTERARRIVAL_ORDER = 1.5, 1
RUNTIME_CV, RUNTIME_ORDER = 2.0, 2
_ARRIVALS, _SIZES, _TIMES, _INTENSITY = 1, 2, 3, 4


def _ranges(nodes: int) -> list[tuple[int, int]]:
    """The size ranges for ``nodes`` (the 320-node ones, the last ending at
    ``nodes``; ranges above ``nodes`` are clipped or dropped)."""
    out = []
    for lo, hi in SIZE_RANGES:
        if lo > nodes:
            break
        out.append((lo, nodes if hi == SIZE_RANGES[-1][1] else min(hi, nodes)))
    if out[-1][1] < nodes:
        out[-1] = (out[-1][0], nodes)
    return out


def mean_size(nodes: int = 320) -> float:
    """The expected job size of the size model."""
    ranges = _ranges(nodes)
    weights = np.array(SIZE_WEIGHTS[:len(ranges)])
    weights = weights / weights.sum()
    means = [TOP_OF_RANGE * hi + (1 - TOP_OF_RANGE) * (lo + hi) / 2
             for lo, hi in ranges]
    return float(np.dot(weights, means))


def _sizes(rng: np.random.Generator, nodes: int, count: int) -> np.ndarray:
    ranges = _ranges(nodes)
    weights = np.array(SIZE_WEIGHTS[:len(ranges)])
    pick = rng.choice(len(ranges), count, p=weights / weights.sum())
    lo = np.array([r[0] for r in ranges])[pick]
    hi = np.array([r[1] for r in ranges])[pick]
    top = rng.random(count) < TOP_OF_RANGE
    uniform = lo + np.floor(rng.random(count) * (hi - lo + 1)).astype(np.int64)
    return np.where(top, hi, uniform).astype(np.int64)


def jann_workload(jobs: int, mean_runtime: float, io_intensity: float | str = 0.5,
                  seed: int = 0, *, mean_interarrival: float = 583.0,
                  nodes: int = 320, t_local: float = T_LOCAL,
                  t_remote: float = T_REMOTE) -> GangWorkload:
    """A ``jann`` workload (see the module docstring).

    Parameters
    ----------
    jobs
        Number of jobs (the seed uses 10,000).
    mean_runtime
        Mean all-local execution time :math:`t^{e'}` in seconds (the load
        knob; the seed's highest is 3102 s).
    io_intensity
        ``r`` in ``(0, 1)`` for every job, or ``"mixed"``.
    seed
        Random seed.

    Raises
    ------
    OptionError
        A parameter out of range.
    """
    if isinstance(jobs, bool) or int(jobs) != jobs or jobs < 1:
        raise OptionError(f"jobs={jobs!r} must be an integer >= 1")
    check_job_count(jobs, f"jobs={jobs!r}")
    if not (isinstance(mean_runtime, (int, float)) and math.isfinite(mean_runtime)
            and mean_runtime > 0):
        raise OptionError(f"mean_runtime={mean_runtime!r} must be a positive number")
    if not mean_interarrival > 0:
        raise OptionError(f"mean_interarrival={mean_interarrival!r} must be > 0")
    if isinstance(nodes, bool) or int(nodes) != nodes or nodes < 1:
        raise OptionError(f"nodes={nodes!r} must be an integer >= 1")
    mixed = isinstance(io_intensity, str)
    if mixed and io_intensity != "mixed":
        raise OptionError(f"io_intensity={io_intensity!r} must be a number in [0, 1) "
                          f"or 'mixed'")
    if not mixed and not 0.0 <= float(io_intensity) < 1.0:
        raise OptionError(f"io_intensity={io_intensity!r} must be in [0, 1)")
    jobs = int(jobs)

    def stream(k: int) -> np.random.Generator:
        return np.random.default_rng([int(seed), k])

    gaps = hyper_erlang(mean_interarrival, INTERARRIVAL_CV, INTERARRIVAL_ORDER
                        ).sample(stream(_ARRIVALS), jobs)
    arrival = np.concatenate(([0.0], np.cumsum(gaps[:-1])))
    size = _sizes(stream(_SIZES), int(nodes), jobs)
    unit = hyper_erlang(1.0, RUNTIME_CV, RUNTIME_ORDER).sample(stream(_TIMES), jobs)
    runtime = np.maximum(unit * float(mean_runtime), 1.0)
    if mixed:
        r = np.array(MIXED_INTENSITIES)[stream(_INTENSITY).integers(0, 3, jobs)]
    else:
        r = np.full(jobs, float(io_intensity))
    blocks = np.round(r * runtime / t_local)
    cpu = np.maximum(runtime - blocks * t_local, 0.0)
    meta = {
        "protocol": "jann", "jobs": jobs, "mean_runtime": float(mean_runtime),
        "io_intensity": io_intensity if mixed else float(io_intensity),
        "seed": int(seed), "mean_interarrival": float(mean_interarrival),
        "interarrival": {"family": "hyper-erlang", "order": INTERARRIVAL_ORDER,
                         "cv": INTERARRIVAL_CV},
        "runtime": {"family": "hyper-erlang", "order": RUNTIME_ORDER, "cv": RUNTIME_CV},
        "size_ranges": [list(r) for r in _ranges(int(nodes))],
        "size_weights": list(SIZE_WEIGHTS[:len(_ranges(int(nodes)))]),
        "model_mean_size": mean_size(int(nodes)),
    }
    label = io_intensity if mixed else f"{float(io_intensity):g}"
    workload = GangWorkload(
        name=f"jann-r{label}-te{float(mean_runtime):g}-s{int(seed)}", nodes=int(nodes),
        ids=tuple(str(i + 1) for i in range(jobs)), arrival=arrival, size=size,
        cpu=cpu, blocks=blocks, t_local=t_local, t_remote=t_remote, meta=meta)
    workload.meta["offered_load"] = workload.offered_load()
    workload.meta["sample_mean_runtime"] = float(workload.all_local_time.mean())
    workload.meta["sample_mean_size"] = float(workload.size.mean())
    return workload
