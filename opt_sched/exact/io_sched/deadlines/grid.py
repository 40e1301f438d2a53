"""One I/O node's data on a time grid (ticks).

The tick is :func:`opt_sched.exact.cpsat.common.choose_grid` of every lag,
duration, tail, length and the pack start: the largest tick of which they
are all whole multiples when such a tick keeps the horizon under ``10^8``
ticks (``exact``), else a fine tick with every duration rounded **up**.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..orders import NodeJobs

__all__ = ["NodeGrid", "node_grid"]


@dataclass(frozen=True)
class NodeGrid:
    """``node`` in ticks: ``lag[j][q]``, ``dur[j][q]``, ``tail[j]`` rounded up,
    ``start`` (``t_k``) rounded up; ``exact`` when nothing was rounded."""

    node: NodeJobs
    tick: float
    exact: bool
    start: int
    lag: tuple[tuple[int, ...], ...]
    dur: tuple[tuple[int, ...], ...]
    tail: tuple[int, ...]

    @property
    def num_jobs(self) -> int:
        return self.node.num_jobs

    def head(self, j: int, q: int) -> int:
        """Earliest start of operation ``(j, q)``: ``start + sum lags + sum
        earlier durations``."""
        return self.start + sum(self.lag[j][:q + 1]) + sum(self.dur[j][:q])

    def rest(self, j: int, q: int) -> int:
        """Ticks from the start of ``(j, q)`` to ``C_j`` without waiting:
        ``dur_jq + sum_{q' > q} (lag + dur) + tail``."""
        return (sum(self.dur[j][q:]) + sum(self.lag[j][q + 1:]) + self.tail[j])

    def serial(self) -> int:
        """A horizon: the pack start plus every job run one after another."""
        return self.start + sum(sum(self.lag[j]) + sum(self.dur[j]) + self.tail[j]
                                for j in range(self.num_jobs))


def node_grid(node: NodeJobs, resolution: float | None = None) -> NodeGrid:
    """``node`` on its grid (module docstring)."""
    from ...cpsat.common import choose_grid

    values = [node.start]
    for j in range(node.num_jobs):
        values.extend(node.lags[j])
        values.extend(node.durations[j])
        values.append(node.tails[j])
        values.append(node.lengths[j])
    horizon = node.start + sum(sum(node.lags[j]) + sum(node.durations[j])
                               + node.tails[j] for j in range(node.num_jobs))
    grid = choose_grid(values, max(horizon, 1e-300), resolution)
    up = grid.up
    return NodeGrid(node, grid.tick, grid.exact, up(node.start),
                    tuple(tuple(up(x) for x in row) for row in node.lags),
                    tuple(tuple(max(1, up(x)) for x in row) for row in node.durations),
                    tuple(up(x) for x in node.tails))
