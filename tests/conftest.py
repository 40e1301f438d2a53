"""Shared fixtures: bundled instances, the shared data folder, strategies."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
INSTANCES = REPO / "instances"
SHARED_DATA = REPO.parent / "shared" / "data"


def bundled_instance_paths() -> list[Path]:
    return sorted(p for p in INSTANCES.glob("*.json") if "schema" not in p.name)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data`` next to the repo; tests using it skip when absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"real data folder {SHARED_DATA} is absent")
    return SHARED_DATA


@pytest.fixture(scope="session")
def tucan5():
    from opt_sched import read_instance

    return read_instance(INSTANCES / "tucan5.json")


@pytest.fixture(scope="session")
def tiny2():
    from opt_sched import read_instance

    return read_instance(INSTANCES / "tiny2.json")
