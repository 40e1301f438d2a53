"""Jobs as operations (lags, heads, tails) and the one-pack structure."""

from __future__ import annotations

import pytest

from opt_sched import Instance, Job, Partition, Platform, read_instance
from opt_sched.errors import OptionError
from opt_sched.operations import (
    allowed_partitions,
    is_one_pack,
    job_operations,
    one_pack_partitions,
    overfull_partition,
    pack_starts,
)

from .conftest import INSTANCES


def test_operations_of_a_job_by_hand() -> None:
    # w = 1, 2, 3, 4, 5; v = 0, 6, 0, 2, 0 on b = 2: operations at
    # iterations 1 and 3 (compute j comes before I/O j). Lags: w0 + w1 = 3,
    # w2 + w3 = 7; tail w4 = 5. Durations 3, 1; heads 3 and 3 + 3 + 7 = 13;
    # tails 7 + 1 + 5 = 13 and 5; T(2) = 15 + 8 / 2 = 19.
    job = Job("a", 1, (1.0, 2.0, 3.0, 4.0, 5.0), (0.0, 6.0, 0.0, 2.0, 0.0))
    ops = job_operations(job)
    assert list(ops.iterations) == [1, 3]
    assert list(ops.volumes) == [6.0, 2.0]
    assert list(ops.lags) == [3.0, 7.0]
    assert ops.tail == 5.0
    assert list(ops.durations(2.0)) == [3.0, 1.0]
    assert list(ops.heads(2.0)) == [3.0, 13.0]
    assert list(ops.tails(2.0)) == [13.0, 5.0]
    assert list(ops.remaining(2.0)) == [19.0, 13.0, 5.0]
    # h_q + p_q + t_q = T_i(b) for every operation
    for h, p, t in zip(ops.heads(2.0), ops.durations(2.0), ops.tails(2.0)):
        assert h + p + t == job.length(2.0)


def test_a_job_without_io_is_all_tail() -> None:
    ops = job_operations(Job("c", 1, (1.5, 2.5), (0.0, 0.0)))
    assert ops.count == 0 and ops.tail == 4.0
    assert ops.tails(1.0).size == 0 and list(ops.remaining(1.0)) == [4.0]


def test_periodic_lags_are_exact() -> None:
    ops = job_operations(Job.periodic("p", 1, 0.1, 0.3, 1000))
    assert set(ops.lags.tolist()) == {0.1} and ops.tail == 0.0


def test_effective_partition_and_one_pack() -> None:
    one = Instance("one", Platform.homogeneous(1, 4), (
        Job("a", 3, (1.0,), (1.0,)), Job("b", 3, (1.0,), (1.0,), release=2.0)))
    assert [one.effective_partition(j) for j in one.jobs] == [0, 0]
    assert is_one_pack(one) and one_pack_partitions(one) == [0, 0]
    assert pack_starts(one, [0, 0]) == {0: 2.0}
    assert overfull_partition(one, [0, 0]) == (0, 6, 4)
    hetero = read_instance(INSTANCES / "hetero6.json")
    assert not is_one_pack(hetero)
    with pytest.raises(OptionError, match="partition=None"):
        one_pack_partitions(hetero)
    deps = read_instance(INSTANCES / "deps5.json")
    with pytest.raises(OptionError, match="dependencies"):
        one_pack_partitions(deps)


def test_allowed_partitions() -> None:
    platform = Platform((Partition(4, 1.0), Partition(8, 2.0)))
    instance = Instance("k", platform, (Job("small", 2, (1.0,), (1.0,)),
                                        Job("wide", 6, (1.0,), (1.0,)),
                                        Job("mapped", 1, (1.0,), (1.0,), partition=1)))
    assert allowed_partitions(instance) == [(0, 1), (1,), (1,)]
