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
