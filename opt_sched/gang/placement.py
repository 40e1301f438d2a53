"""File-node placement: which ``n_i`` nodes hold the partitions of job i.

Seed 004 only says that a job of ``n_i`` tasks has ``n_i`` file nodes
(§2.2, §3.3); where they are is not given, and the fragmentation that IOGS
suffers depends on it (two jobs collide when their file-node sets
intersect). Two documented, seeded choices:

- ``random``: a uniformly random ``n_i``-subset of the ``P`` nodes, drawn
  independently per job. Two jobs of sizes ``a`` and ``b`` collide with
  probability ``1 - C(P-a, b)/C(P, b)``.
- ``contiguous``: a block ``{s, ..., s + n_i - 1}`` with ``s`` uniform on
  ``0..P - n_i`` (no wrap-around), as a file system that stripes a file over
  consecutive nodes would give. Collisions are less likely than with random
  subsets of the same sizes, and GS's column choice (lowest free columns
  first among equals) finds them more often by accident.

The draws use their own random stream (``numpy`` ``default_rng([seed,
7])``), independent of the job stream, so the same seed gives the same file
nodes at every load of a sweep.
"""

from __future__ import annotations

import numpy as np

from ..errors import OptionError
from .workload import GangWorkload

__all__ = ["PLACEMENTS", "place_files"]

PLACEMENTS = ("random", "contiguous")
"""The placement names."""

_STREAM = 7


def place_files(workload: GangWorkload, placement: str = "random",
                seed: int = 0) -> GangWorkload:
    """A copy of ``workload`` with file nodes drawn by ``placement``.

    Raises
    ------
    OptionError
        Unknown placement.
    """
    if placement not in PLACEMENTS:
        raise OptionError(f"placement={placement!r} is not one of "
                          f"{', '.join(PLACEMENTS)}")
    rng = np.random.default_rng([int(seed), _STREAM])
    nodes = workload.nodes
    files: list[tuple[int, ...]] = []
    if placement == "random":
        for n in workload.size.tolist():
            files.append(tuple(sorted(rng.choice(nodes, n, replace=False).tolist())))
    else:
        starts = rng.integers(0, nodes - workload.size + 1)
        for s, n in zip(starts.tolist(), workload.size.tolist()):
            files.append(tuple(range(s, s + n)))
    return workload.with_file_nodes(files, placement)
