"""The observation of :class:`~opt_sched.gym.env.BatchSchedulingEnv`: a
fixed ``(K + 1, F)`` array of float32 in ``[0, 1]``.

Row ``k < K`` is the ``k``-th job of the visible queue (the first ``K``
queued jobs in submit order; a row of zeros when the queue is shorter);
row ``K`` is the machine. With ``lg(x) = min(1, log(1 + x) / log(1 +
SCALE))`` (``SCALE`` = :data:`TIME_SCALE` seconds, about 11.6 days):

======  ====================  ===============================================
column  job row               machine row
======  ====================  ===============================================
0       1 (a job is there)    free nodes / ``M``
1       size ``Q_i / M``      queued jobs / (4 K), capped at 1
2       estimate ``lg(e_i)``  running jobs / ``M``
3       wait ``lg(now-r_i)``  ``lg`` of the time to the next estimated end
4       user share: nodes     the window's jobs not yet submitted / ``n``
        its user holds / M
5       declared I/O share    the window's jobs started / ``n``
6       fits now (0/1)        0
7       area ``lg(Q_i e_i)``  0
======  ====================  ===============================================

A policy never sees a real run time (SPEC §9): only ``e_i``. The static
columns (0, 1, 2, 5, 7) are computed once per episode; a step gathers them
for the visible rows and fills the dynamic ones.
"""

from __future__ import annotations

import math

import numpy as np

from .engine import Engine

__all__ = ["FEATURES", "TIME_SCALE", "Observer"]

FEATURES = 8
"""``F``, the columns of a row (module doc)."""

TIME_SCALE = 1.0e6
"""Seconds where the log-scaled time features reach 1."""

_LOG_SCALE = 1.0 / math.log1p(TIME_SCALE)


def _lg(x: np.ndarray | float) -> np.ndarray | float:
    return np.minimum(1.0, np.log1p(np.maximum(x, 0.0)) * _LOG_SCALE)


class Observer:
    """Builds observations and action masks of one engine (module doc)."""

    def __init__(self, engine: Engine, visible: int, *, fit_only: bool = False
                 ) -> None:
        self.engine = engine
        self.visible = visible
        self.fit_only = fit_only
        jobs = engine.jobs
        m = float(engine.machines)
        static = np.zeros((FEATURES, engine.n), np.float32)  # one row a feature
        static[0] = 1.0
        static[1] = jobs.nodes / m
        static[2] = _lg(jobs.estimate)
        static[5] = np.clip(jobs.io, 0.0, 1.0)
        static[7] = _lg(jobs.nodes * jobs.estimate)
        self.static = static
        self.submit = jobs.submit
        self.nodes = jobs.nodes
        self.user = jobs.user

    def observe(self) -> tuple[np.ndarray, np.ndarray]:
        """``(observation, mask)``: the mask has ``K + 1`` entries (the jobs
        of the visible queue, then "wait"). A job is legal when it is there
        (and, with ``fit_only``, fits now); "wait" when an event is ahead."""
        e = self.engine
        K = self.visible
        out = np.zeros((FEATURES, K + 1), np.float32)  # transposed: rows are fast
        mask = np.zeros(K + 1, np.int8)
        queue = e.queue
        k = len(queue)
        if k > K:
            k = K
        m = float(e.machines)
        if k:
            idx = np.array(queue[:k], np.int64)
            out[:, :k] = self.static[:, idx]
            wait = np.log1p(e.now - self.submit[idx])
            wait *= _LOG_SCALE
            np.minimum(wait, 1.0, out=wait)
            out[3, :k] = wait
            share = e.user_nodes[self.user[idx]] * (1.0 / m)
            out[4, :k] = share
            fits = self.nodes[idx] <= e.free
            out[6, :k] = fits
            mask[:k] = fits if self.fit_only else 1
        end = e.next_estimated_end()
        ahead = 0.0 if end is None or end <= e.now else \
            min(1.0, math.log1p(end - e.now) * _LOG_SCALE)
        n = float(e.n)
        out[:6, K] = (e.free / m, min(1.0, len(queue) / (4.0 * K)),
                      min(1.0, len(e.running) / m), ahead, (e.n - e.arrived) / n,
                      e.started / n)
        mask[K] = bool(e.running) or e.arrived < e.n
        return out.T.copy(), mask
