"""``packs``: seed 000's I/O-aware pack scheduling, with pack backfilling.

Pack construction (the *average constraint*, seed 000 §I/O-aware
Pack-Scheduling). Jobs are taken in the order of the variant and placed
first-fit into the existing packs; job ``i`` joins pack ``p`` iff the nodes
fit and the pack's I/O could be serialised within its predicted length,

.. math:: \\sum_{j \\in p \\cup \\{i\\}} Q_j \\le P, \\qquad
          \\sum_{j \\in p \\cup \\{i\\}} \\frac{V_j}{B}
          \\le \\max_{j \\in p \\cup \\{i\\}} T_j(B),

where ``T_j(B)`` is the predicted (contention-free) length, the scheduler's
estimate ``e_j``; otherwise a new pack is opened after the existing ones.
Variants (``order``):

- ``random`` -- a seeded random permutation (seed 000's baseline);
- ``max`` -- non-increasing ``T_i(B)`` ("the default way to make packs");
- ``char-dec`` / ``char-inc`` -- by characteristic time
  ``c_i = T_i(B) / n_i`` (``w_i + v_i/B`` for a periodic job), non-increasing
  or non-decreasing: the seed does not say which, so both exist.

Execution: the jobs of pack ``k + 1`` start together once every job of pack
``k`` -- the backfilled ones included -- has completed.

Pack backfilling (the seed gives no detail; our rule, documented in
``docs/reproduction-ijhpca2023.md``): whenever a job of the running pack ``k``
ends, the jobs of the later packs are scanned in pack order, then in-pack
order; job ``j`` is moved into pack ``k`` and started now iff its nodes are
free, it is *predicted* to end by pack ``k``'s predicted end, and pack ``k``
still meets the average constraint with it:

.. math:: Q_j \\le \\mathrm{free}(t), \\quad t + T_j(B) \\le S_k + L_k, \\quad
          \\sum_{i \\in k \\cup \\{j\\}} V_i / B \\le L_k,

with ``S_k`` the pack's start and ``L_k = max_{i in k} T_i(B)`` its
predicted length (fixed when the pack starts). A backfilled job can thus
delay the next pack only through contention the prediction ignores.

Jobs submitted after the packs were built (online use) are placed first-fit
into the packs that have not started, or in new ones.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..errors import OptionError
from .base import Cluster, JobTable, Start

__all__ = ["PACK_ORDERS", "PackScheduling"]

PACK_ORDERS = ("random", "max", "char-dec", "char-inc")


class PackScheduling:
    """Seed 000's pack scheduling on partition 0 (see the module docstring).

    Parameters
    ----------
    order
        One of :data:`PACK_ORDERS`.
    backfill
        Backfill later packs' jobs into the running pack.
    seed
        Seed of the ``random`` order.
    """

    def __init__(self, order: str = "max", backfill: bool = True, seed: int = 0
                 ) -> None:
        if order not in PACK_ORDERS:
            raise OptionError(f"order={order!r} is not one of {', '.join(PACK_ORDERS)}")
        self.order = order
        self.backfill = backfill
        self.seed = seed
        self.name = f"packs({order}{'' if backfill else ',no-backfill'})"

    # -- the seam ------------------------------------------------------------------
    def attach(self, jobs: JobTable, cluster: Cluster) -> None:
        if cluster.num_partitions != 1:
            raise OptionError(f"scheduler {self.name!r} runs on one partition, the "
                              f"platform has {cluster.num_partitions}")
        self._jobs = jobs
        self._cluster = cluster
        self._P = cluster.size(0)
        self._B = cluster.bandwidth(0)
        self._length = jobs.estimate
        if not np.all(np.isfinite(self._length)):
            raise OptionError(f"scheduler {self.name!r} predicts pack lengths from "
                              f"T_i(B): replay it with estimate='exact' or give "
                              f"every job a walltime")
        self._io = jobs.volume / self._B
        self._rng = np.random.default_rng(self.seed)
        self._new: list[int] = []
        self._packs: list[list[int]] = []  # packs not started yet, in order
        self._running: set[int] = set()  # jobs of the running pack not ended
        self._pack_end = -math.inf  # S_k + L_k of the running pack
        self._pack_len = 0.0
        self._pack_io = 0.0
        self.history: list[dict[str, object]] = []

    def submit(self, now: float, job: int) -> None:
        self._new.append(job)

    def complete(self, now: float, job: int, killed: bool) -> None:
        self._running.discard(job)

    def next_wakeup(self, now: float) -> float:
        return math.inf

    def decide(self, now: float) -> Sequence[Start]:
        if self._new:
            self._place(self._sorted(self._new))
            self._new = []
        if not self._running:
            return self._start_next_pack(now)
        if self.backfill:
            return self._backfill(now)
        return []

    # -- pack construction ---------------------------------------------------------
    def _sorted(self, jobs: list[int]) -> list[int]:
        if self.order == "random":
            return [jobs[i] for i in self._rng.permutation(len(jobs))]
        length = self._length
        if self.order == "max":
            return sorted(jobs, key=lambda j: (-length[j], j))
        iters = self._jobs.iterations
        char = {j: length[j] / iters[j] for j in jobs}
        sign = -1.0 if self.order == "char-dec" else 1.0
        return sorted(jobs, key=lambda j: (sign * char[j], j))

    def _fits(self, pack: list[int], job: int) -> bool:
        nodes = self._jobs.nodes
        if sum(int(nodes[i]) for i in pack) + int(nodes[job]) > self._P:
            return False
        length = max(max((self._length[i] for i in pack), default=0.0),
                     self._length[job])
        io = sum(self._io[i] for i in pack) + self._io[job]
        return io <= length * (1 + 1e-12)

    def _place(self, jobs: list[int]) -> None:
        for job in jobs:
            for pack in self._packs:
                if self._fits(pack, job):
                    pack.append(job)
                    break
            else:
                self._packs.append([job])

    # -- execution -----------------------------------------------------------------
    def _start_next_pack(self, now: float) -> list[Start]:
        if not self._packs:
            return []
        pack = self._packs.pop(0)
        self._running = set(pack)
        self._pack_len = max(self._length[j] for j in pack)
        self._pack_end = now + self._pack_len
        self._pack_io = sum(self._io[j] for j in pack)
        self.history.append({"start": now, "jobs": list(pack),
                             "predicted_end": self._pack_end, "backfilled": []})
        return [Start(j) for j in pack]

    def _backfill(self, now: float) -> list[Start]:
        free = self._cluster.free_count(0)
        starts = []
        nodes = self._jobs.nodes
        for pack in self._packs:
            for job in list(pack):
                if free <= 0:
                    break
                if (nodes[job] <= free
                        and now + self._length[job] <= self._pack_end * (1 + 1e-12)
                        and self._pack_io + self._io[job]
                        <= self._pack_len * (1 + 1e-12)):
                    pack.remove(job)
                    free -= int(nodes[job])
                    self._pack_io += self._io[job]
                    self._running.add(job)
                    self.history[-1]["backfilled"].append(job)  # type: ignore[union-attr]
                    starts.append(Start(job))
        self._packs = [p for p in self._packs if p]
        return starts
