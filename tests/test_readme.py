"""The README's Python example runs as printed."""

from __future__ import annotations

import os
import re

from .conftest import REPO


def test_readme_python_example_runs():
    text = (REPO / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks, "the README has no Python example"
    cwd = os.getcwd()
    try:
        os.chdir(REPO)
        for block in blocks:
            exec(compile(block, "README.md", "exec"), {})
    finally:
        os.chdir(cwd)
