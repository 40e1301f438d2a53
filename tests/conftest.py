"""Shared fixtures: bundled instances, the shared data folder, strategies."""

from __future__ import annotations

from pathlib import Path

import pytest

from opt_sched import JobSchedule, Schedule

REPO = Path(__file__).resolve().parents[1]
INSTANCES = REPO / "instances"
SHARED_DATA = REPO.parent / "shared" / "data"


def bundled_instance_paths() -> list[Path]:
    return sorted(p for p in INSTANCES.glob("*.json") if "schema" not in p.name)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data`` next to the repo (or ``$OPT_SCHED_SHARED_DATA``);
    tests using it skip when absent."""
    from .paths import shared_data_dir

    return shared_data_dir()


@pytest.fixture(scope="session")
def tucan5():
    from opt_sched import read_instance

    return read_instance(INSTANCES / "tucan5.json")


@pytest.fixture(scope="session")
def tiny2():
    from opt_sched import read_instance

    return read_instance(INSTANCES / "tiny2.json")


# tiny2.json under FIFO, worked out by hand (instances/README.md): b holds the
# I/O node over [1, 3), a waits until 3 ([3, 6)), b computes [3, 4) and waits
# until 6 ([6, 8)), a computes [6, 8) and does its last I/O over [8, 11).
TINY2_FIFO = Schedule((JobSchedule("a", 0, (0.0, 6.0), (3.0, 8.0)),
                       JobSchedule("b", 0, (0.0, 3.0), (1.0, 6.0))),
                      method="by-hand")


@pytest.fixture(scope="session")
def tiny():
    """``instances/tiny2.json`` (alias used by the validator/metrics tests)."""
    from opt_sched import read_instance

    return read_instance(INSTANCES / "tiny2.json")


@pytest.fixture(scope="session")
def tiny2_fifo(tiny2) -> Schedule:
    """:data:`TINY2_FIFO`, the by-hand schedule of ``tiny2``, once checked
    feasible by the validator."""
    from opt_sched.validation import assert_feasible

    assert_feasible(tiny2, TINY2_FIFO)
    return TINY2_FIFO


@pytest.fixture(scope="session")
def two_packs():
    """``(instance, schedule)``, one partition of P = 4, b = 1, feasible by
    hand. Pack 0 = (a, b): both compute [0, 2); a io [2, 4), b io [4, 6).
    Pack 1 = (c,) after pack 0 completes at 6: compute [6, 7), io [7, 8).
    T_a = T_b = 4, T_c = 2: stretches 1, 6/4, 2/2; pack max stretches 1.5, 1."""
    from opt_sched import Instance, Job, Platform
    from opt_sched.validation import validate

    inst = Instance("packs", Platform.homogeneous(1, nodes=4),
                    (Job.periodic("a", 2, 2.0, 2.0), Job.periodic("b", 2, 2.0, 2.0),
                     Job.periodic("c", 4, 1.0, 1.0)))
    sched = Schedule((JobSchedule("a", 0, (0.0,), (2.0,)),
                      JobSchedule("b", 0, (0.0,), (4.0,)),
                      JobSchedule("c", 0, (6.0,), (7.0,))),
                     packs=((("a", "b"), ("c",)),))
    report = validate(inst, sched, check_packs=True)
    assert report.feasible, report.format()
    return inst, sched


@pytest.fixture(scope="session")
def hundred_by_thousand():
    """``(instance, schedule)`` of 100,000 phases, for speed tests: 100
    one-node jobs of 1,000 iterations (w = 10, v = 0.1) on 100 nodes, b = 1.
    Period 20: compute [20k, 20k + 10), then the 100 I/O phases back to
    back (job i's over [20k + 10 + 0.1 i, 20k + 10 + 0.1 (i + 1)))."""
    from opt_sched import Instance, Job, Platform

    n, m = 100, 1000
    jobs = tuple(Job.periodic(f"j{i}", 1, 10.0, 0.1, m) for i in range(n))
    inst = Instance("perf", Platform.homogeneous(1, nodes=n), jobs)
    sched = Schedule(tuple(
        JobSchedule(f"j{i}", 0, tuple(20.0 * k for k in range(m)),
                    tuple(20.0 * k + 10 + 0.1 * i for k in range(m)))
        for i in range(n)))
    return inst, sched
