"""Where the tests find the repository's files and the real data."""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[1]
INSTANCES = REPO / "instances"
FIXTURES = REPO / "tests" / "data"
TRACES = FIXTURES / "traces"
"""The small trace files of the tests (``tests/data/traces/README.md``)."""


def load_script(name: str) -> ModuleType:
    """``scripts/<name>.py`` imported as the module ``name`` (its ``main``
    is not run), so that a test uses what a script measures with."""
    folder = str(REPO / "scripts")
    sys.path.insert(0, folder)
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(folder)


def shared_data_dir() -> Path:
    """``../shared/data`` beside the repository (or ``$OPT_SCHED_SHARED_DATA``);
    the calling test skips with a reason when neither exists."""
    for folder in (REPO.parent / "shared" / "data",
                   Path(os.environ.get("OPT_SCHED_SHARED_DATA", "/nonexistent"))):
        if folder.is_dir():
            return folder
    pytest.skip(f"real data folder {REPO.parent / 'shared' / 'data'} is absent")
