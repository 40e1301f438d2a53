"""Profiles ``darshan-mira``, ``darshan-edison``, ``darshan-cori``: measured I/O.

Source: the per-job Darshan summaries of the TOKIO "year in the life of a
parallel file system" study (NERSC/tokio-abcutils, Feb 2017 - Feb 2018),
``../shared/data/darshan/<system>-summaries_*.csv.gz``.

**Caveat.** Those jobs are I/O *benchmark* runs (IOR, HACC-IO, VPIC-IO,
BD-CATS) launched to probe the file system: their I/O shares (median about
0.8) are far above a production mix's. Use the profile for the *shape* of
the distribution and let the ``alpha`` target rescale it
(:mod:`~opt_sched.traces.calibration`).

Per Darshan job:

- I/O time ``t_io = darshan_total_gibs_posix * 1024 /
  darshan_agg_perf_by_slowest_posix`` seconds (MiB over MiB/s): the I/O
  time of the slowest rank. The file's ``darshan_io_time`` equals this to
  1e-6 where it is non-zero, but it is 0 for 45-49% of the jobs, which all
  moved GiBs (the BD-CATS and VPIC-IO runs, half the IOR runs): a missing
  value, not "no I/O", so it is not used.
- fraction ``f = clip(t_io / darshan_walltime, 0, 1)``;
- bandwidth ``darshan_agg_perf_by_slowest_posix`` (MiB/s).

Rows with a missing or non-positive walltime, volume or bandwidth are
dropped (Edison: 6 rows).

**Size classes.** Darshan jobs are grouped by ``darshan_nprocs`` (Cori: 512
and 4096 ranks; Edison: 2048 only; Mira: 16384 only). A trace job is mapped
to the class holding its *size quantile*: with ``F_1 < ... < F_k = 1`` the
cumulative shares of the Darshan classes (smallest first) and
``q(Q) = (#{Q_j < Q} + #{Q_j <= Q}) / (2 n)`` the mid-quantile of the job's
size among the trace's ``n`` jobs, the class is the first ``k`` with
``F_k >= q(Q)``. Jobs of equal size share a class, the smallest trace jobs
take the smallest Darshan class, and the class shares of the trace match the
data's as closely as ties allow. Each trace job then takes the (fraction,
bandwidth) of one Darshan row of its class, drawn uniformly with the
profile's fraction stream (classes in increasing size, jobs in trace order).

The suggested I/O-node bandwidth is the median ``agg_perf_by_slowest`` of
the system (MiB/s), so volumes come out in MiB. Under the exclusive
execution model it is only a unit: durations, alpha and stretches do not
depend on it (``instances/traces.md``).
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...errors import OptionError
from .base import ProfileDraw, check_iterations, draw_iterations, profile_streams

__all__ = ["DARSHAN_SYSTEMS", "DarshanData", "DarshanProfile", "darshan_dir",
           "load_darshan", "size_classes"]

DARSHAN_SYSTEMS = ("mira", "edison", "cori")
_ENV = "OPT_SCHED_DARSHAN_DIR"
_COLUMNS = ["darshan_nprocs", "darshan_walltime", "darshan_total_gibs_posix",
            "darshan_agg_perf_by_slowest_posix", "darshan_app"]


@dataclass(frozen=True, eq=False)
class DarshanData:
    """The usable Darshan jobs of one system, grouped by ``nprocs``."""

    system: str
    path: Path
    nprocs: np.ndarray          # the class sizes, increasing
    fractions: tuple[np.ndarray, ...]   # per class
    bandwidths: tuple[np.ndarray, ...]  # per class, MiB/s
    dropped: int
    median_bandwidth: float

    @property
    def counts(self) -> np.ndarray:
        return np.array([len(f) for f in self.fractions])

    @property
    def cumulative_shares(self) -> np.ndarray:
        counts = self.counts
        return np.cumsum(counts) / counts.sum()


def darshan_dir(data_dir: str | Path | None = None) -> Path:
    """Where the summaries are: ``data_dir``, else ``$OPT_SCHED_DARSHAN_DIR``,
    else ``../shared/data/darshan`` beside the repository."""
    if data_dir is not None:
        return Path(data_dir)
    if os.environ.get(_ENV):
        return Path(os.environ[_ENV])
    return Path(__file__).resolve().parents[3].parent / "shared" / "data" / "darshan"


@functools.lru_cache(maxsize=8)
def _load(system: str, folder: Path) -> DarshanData:
    import pandas as pd

    matches = sorted(folder.glob(f"{system}-summaries*.csv*"))
    if not matches:
        raise OptionError(f"io profile 'darshan-{system}': no {system}-summaries*.csv"
                          f".gz in {folder} (pass data_dir= or set {_ENV})")
    path = matches[0]
    frame = pd.read_csv(path, usecols=_COLUMNS)
    volume = frame["darshan_total_gibs_posix"].to_numpy(float) * 1024.0  # MiB
    rate = frame["darshan_agg_perf_by_slowest_posix"].to_numpy(float)   # MiB/s
    wall = frame["darshan_walltime"].to_numpy(float)
    procs = frame["darshan_nprocs"].to_numpy(float)
    with np.errstate(invalid="ignore"):
        usable = ((volume > 0) & (rate > 0) & (wall > 0) & (procs > 0)
                  & np.isfinite(volume) & np.isfinite(rate) & np.isfinite(wall))
    fraction = np.clip(volume[usable] / rate[usable] / wall[usable], 0.0, 1.0)
    rate, procs = rate[usable], procs[usable]
    sizes = np.unique(procs)
    return DarshanData(system, path, sizes,
                       tuple(fraction[procs == s] for s in sizes),
                       tuple(rate[procs == s] for s in sizes),
                       int((~usable).sum()), float(np.median(rate)))


def load_darshan(system: str, data_dir: str | Path | None = None) -> DarshanData:
    """The Darshan jobs of ``system`` (cached per folder)."""
    if system not in DARSHAN_SYSTEMS:
        raise OptionError(f"darshan system {system!r} is unknown (choose from "
                          f"{', '.join(DARSHAN_SYSTEMS)})")
    return _load(system, darshan_dir(data_dir).resolve())


def size_classes(nodes: np.ndarray, cumulative_shares: np.ndarray) -> np.ndarray:
    """The class of each trace job by size mid-quantile (module docstring)."""
    nodes = np.asarray(nodes)
    if len(nodes) == 0:
        return np.zeros(0, dtype=np.int64)
    ordered = np.sort(nodes)
    below = np.searchsorted(ordered, nodes, side="left")
    at_most = np.searchsorted(ordered, nodes, side="right")
    quantile = (below + at_most) / (2.0 * len(nodes))
    classes = np.searchsorted(cumulative_shares, quantile, side="left")
    return np.minimum(classes, len(cumulative_shares) - 1)


@dataclass(frozen=True)
class DarshanProfile:
    """``darshan-<system>``: options ``data_dir``, ``min_iterations``,
    ``max_iterations``."""

    system: str = "cori"
    data_dir: str | None = None
    min_iterations: int = 10
    max_iterations: int = 100

    def __post_init__(self) -> None:
        if self.system not in DARSHAN_SYSTEMS:
            raise OptionError(f"darshan system {self.system!r} is unknown (choose "
                              f"from {', '.join(DARSHAN_SYSTEMS)})")
        check_iterations(self.name, self.min_iterations, self.max_iterations)

    @property
    def name(self) -> str:
        return f"darshan-{self.system}"

    def data(self) -> DarshanData:
        return load_darshan(self.system, self.data_dir)

    def draw(self, nodes: np.ndarray, run_time: np.ndarray, seed: int,
             mean_share: float | None = None) -> ProfileDraw:
        data = self.data()
        size = len(run_time)
        rng_iterations, rng_fractions = profile_streams(seed)
        classes = size_classes(nodes, data.cumulative_shares)
        fractions = np.empty(size)
        bandwidths = np.empty(size)
        for k in range(len(data.nprocs)):
            jobs = np.flatnonzero(classes == k)
            rows = rng_fractions.integers(0, len(data.fractions[k]), size=len(jobs))
            fractions[jobs] = data.fractions[k][rows]
            bandwidths[jobs] = data.bandwidths[k][rows]
        iterations = draw_iterations(rng_iterations, size, self.min_iterations,
                                     self.max_iterations)
        return ProfileDraw(fractions, iterations, data.median_bandwidth, {
            "source": data.path.name, "rows": int(data.counts.sum()),
            "rows_dropped": data.dropped,
            "classes": {int(p): int((classes == k).sum())
                        for k, p in enumerate(data.nprocs)},
            "job_bandwidths": bandwidths})
