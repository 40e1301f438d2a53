"""The exclusive-I/O event loop is written once: the batch simulator and the
replay's ``exclusive`` model run the same compiled kernel."""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pytest
from numba import config

from opt_sched import read_instance
from opt_sched.scheduling import PlanScheduler, replay
from opt_sched.simulation import StartsPlan, events, simulate
from opt_sched.simulation.policies import segment_cumsum
from opt_sched.validation import assert_feasible
from tests.conftest import INSTANCES


def _by_segment(x: np.ndarray, off: np.ndarray, reverse: bool) -> np.ndarray:
    """The definition: ``np.cumsum`` segment by segment."""
    out = np.empty_like(x)
    for lo, hi in pairwise(off.tolist()):
        if reverse:
            out[lo:hi] = np.cumsum(x[lo:hi][::-1])[::-1]
        else:
            out[lo:hi] = np.cumsum(x[lo:hi])
    return out


@pytest.mark.parametrize("reverse", [False, True])
def test_segment_cumsum_is_cumsum_segment_by_segment(reverse):
    rng = np.random.default_rng(7)
    for _ in range(50):
        counts = rng.integers(0, 9, rng.integers(0, 30))
        off = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        x = rng.random(int(off[-1])) * 10.0 ** rng.uniform(-6, 6, int(off[-1]))
        assert np.array_equal(segment_cumsum(x, off, reverse),
                              _by_segment(x, off, reverse))
    for length in (1, 3):  # every segment of one length (a matrix)
        off = np.arange(0, 4 * length + 1, length)
        x = rng.random(4 * length)
        assert np.array_equal(segment_cumsum(x, off, reverse),
                              _by_segment(x, off, reverse))


@pytest.mark.skipif(config.DISABLE_JIT, reason="the kernels run as Python")
def test_batch_and_replay_share_one_compiled_step():
    """A batch simulation and an exclusive replay compile ``step`` once."""
    instance = read_instance(INSTANCES / "tucan5.json")
    start = {job.id: 0.0 for job in instance.jobs}
    batch = simulate(instance, StartsPlan(start), "fifo")
    stepped = replay(instance, PlanScheduler(instance, StartsPlan(start)))
    for schedule in (batch, stepped):
        assert_feasible(instance, schedule)
    assert [j.io_starts for j in batch.jobs] == [j.io_starts for j in stepped.jobs]
    assert len(events.step.signatures) == 1
