"""Helpers of the plug-in tests (not a test module): a distribution
*installed without pip* (its files and a ``dist-info`` folder written into
a folder put on ``PYTHONPATH``), ``python -m opt_sched`` run with it, a
plug-in module imported in this process, and the instance the start rules
are raced on."""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType

from .paths import REPO, TRACES

HEAD_SPEEDUP = 10
"""The bundled 40-job KTH-SP2 head arrives this many times faster, so that
jobs queue and the start rule decides something."""


def install(root: Path, name: str, version: str, files: dict[str, str],
            entry_points: str) -> Path:
    """Write the distribution ``name`` (its ``files`` and a dist-info folder)
    into ``root``, as pip would lay it out in site-packages."""
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    info = root / f"{name}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\n"
                                   f"Version: {version}\n")
    (info / "entry_points.txt").write_text(textwrap.dedent(entry_points))
    return root


def install_package(folder: Path, name: str, summary: str, modules: dict[str, str],
                    entry_points: str, version: str = "0.1") -> Path:
    """The distribution ``name`` of one package ``name/`` (its
    ``__init__.py`` holds the docstring ``summary``; ``modules`` maps a
    module name to its source) installed into ``folder/site``."""
    files = {f"{name}/__init__.py": f'"""{summary}"""\n',
             **{f"{name}/{module}.py": source for module, source in modules.items()}}
    return install(folder / "site", name, version, files, entry_points)


def opt_sched(site: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    """``python -m opt_sched ARGS`` with ``site`` on its ``PYTHONPATH``; the
    result's ``pid`` is the process's."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), str(REPO)]))
    with subprocess.Popen([sys.executable, "-m", "opt_sched", *args], cwd=cwd,
                          env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True) as process:
        try:
            stdout, stderr = process.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            process.kill()
            raise
    done = subprocess.CompletedProcess(process.args, process.returncode, stdout,
                                       stderr)
    done.pid = process.pid  # type: ignore[attr-defined]
    return done


def load_source(path: Path) -> ModuleType:
    """The module at ``path``, imported under a private name (the pytest
    process does not install the plug-in)."""
    spec = importlib.util.spec_from_file_location(f"_plugin_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def head_instance(folder: Path) -> Path:
    """The bundled KTH-SP2 head with I/O phases (profile ``bn``), arrivals
    compressed, as an instance file."""
    from opt_sched.json_files import write_instance
    from opt_sched.traces import convert_trace, read_trace

    trace, _ = read_trace(TRACES / "kth-sp2-head.swf")
    instance = convert_trace(trace, "bn", alpha=0.5, bandwidth=20.0).instance
    jobs = tuple(dataclasses.replace(job, release=job.release / HEAD_SPEEDUP)
                 for job in instance.jobs)
    path = folder / "kth-head.json"
    write_instance(dataclasses.replace(instance, jobs=jobs), path)
    return path
