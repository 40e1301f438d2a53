"""Where the tests find the repository's files and the real data."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
INSTANCES = REPO / "instances"
FIXTURES = REPO / "tests" / "data"


def shared_data_dir() -> Path:
    """``../shared/data`` beside the repository (or ``$OPT_SCHED_SHARED_DATA``);
    the calling test skips with a reason when neither exists."""
    for folder in (REPO.parent / "shared" / "data",
                   Path(os.environ.get("OPT_SCHED_SHARED_DATA", "/nonexistent"))):
        if folder.is_dir():
            return folder
    pytest.skip(f"real data folder {REPO.parent / 'shared' / 'data'} is absent")
