"""Issue 24, item 1: outputs onto devices, a full device, an empty ``--out``.

Every command and every output flag that writes a file is pointed at a
device node made in the test's own folder (never the machine's ``/dev``):

- a *full* node (1,7, like ``/dev/full``): exit 2, one line naming the path
  and ``No space left on device``; the node is still a device afterwards
  and no temporary file is left beside it (before the fix: exit 0, nothing
  on stderr, the device replaced by a regular file);
- a *null* node (1,3, like ``/dev/null``): exit 0 and the node stays a
  device.

One subprocess per command and flag, on the smallest inputs (the bundled
``tiny2`` instance, the 40-job KTH head fixture for ``replay``).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from .driver import REPO, Case, check_case

pytestmark = pytest.mark.skipif(not hasattr(os, "mknod"),
                                reason="device nodes are POSIX")

TINY2 = str(REPO / "instances" / "tiny2.json")
KTH_HEAD = str(REPO / "tests" / "data" / "traces" / "kth-sp2-head.swf")
NULL, FULL = ((os.makedev(1, 3), os.makedev(1, 7)) if hasattr(os, "makedev")
              else (0, 0))  # (1,3) behaves as /dev/null, (1,7) as /dev/full
NO_SPACE = "No space left on device"
REPLAY_FLAGS = {"--out": "out_jobs.csv", "--swf": "s.swf", "--schedule": "s.json",
                "--instance-out": "i.json", "--gantt": "g.png", "--usage": "u.png"}


def devices(**nodes: int) -> Callable[[Path], None]:
    """A ``setup`` making character device nodes ``name=device`` in the
    test's folder (skips where nodes cannot be made)."""
    def setup(tmp: Path) -> None:
        for name, device in nodes.items():
            try:
                os.mknod(tmp / name, stat.S_IFCHR | 0o666, device)
            except PermissionError:
                pytest.skip("making a device node needs CAP_MKNOD")
    return setup


def full_case(name: str, args: list[str], node: str = "full.out") -> Case:
    """``args`` (with ``{node}`` for the full device's path) must fail with
    exit 2 and the OS's reason."""
    path = "{tmp}/" + node
    return Case(name, [a.replace("{node}", path) for a in args], 2, (NO_SPACE,),
                setup=devices(**{node: FULL}))


FULL_CASES = [
    full_case("simulate", ["simulate", TINY2, "--out", "{node}"]),
    full_case("solve", ["solve", TINY2, "--time-limit", "5", "--workers", "1",
                        "--out", "{node}"]),
    # --export writes the model of a CP-SAT or MILP solver
    full_case("solve-export", ["solve", TINY2, "--solver", "cpsat", "--time-limit",
                               "5", "--workers", "1", "--export", "{node}"],
              node="model.pbtxt"),
    full_case("compare", ["compare", TINY2, "--out", "{node}"]),
    full_case("gap", ["gap", TINY2, "--time-limit", "5", "--workers", "1", "--quiet",
                      "--out", "{node}"]),
    full_case("generate", ["generate", "--protocol", "mira", "--jobs", "5",
                           "--out", "{node}"], node="w.json"),
    *(full_case(f"replay{flag}", ["replay", KTH_HEAD, "--quiet", flag, "{node}"],
                node=name)
      for flag, name in REPLAY_FLAGS.items()),
]


def assert_still_devices(tmp: Path, *names: str) -> None:
    """Each node is still a character device and nothing else was left in
    the folder (no temporary file, no regular file in its place)."""
    for name in names:
        assert stat.S_ISCHR(os.lstat(tmp / name).st_mode), f"{name} was replaced"
    assert sorted(p.name for p in tmp.iterdir()) == sorted(names)


@pytest.mark.parametrize("case", FULL_CASES, ids=lambda c: c.name)
def test_a_full_device_is_exit_2_naming_the_path(case: Case, tmp_path: Path) -> None:
    result = check_case(case, tmp_path)
    node = case.args[-1].replace("{tmp}", str(tmp_path))  # the output path
    assert f"{node}: cannot write: {NO_SPACE}" in result.stderr, result.stderr
    assert_still_devices(tmp_path, Path(node).name)


def test_replay_writes_all_six_outputs_into_devices(tmp_path: Path) -> None:
    outputs = [part for flag, name in REPLAY_FLAGS.items()
               for part in (flag, "{tmp}/" + name)]
    case = Case("replay-null", ["replay", KTH_HEAD, "--quiet", *outputs], 0,
                setup=devices(**dict.fromkeys(REPLAY_FLAGS.values(), NULL)))
    check_case(case, tmp_path)
    assert_still_devices(tmp_path, *REPLAY_FLAGS.values())


def test_gap_rows_go_into_a_device(tmp_path: Path) -> None:
    """The row-by-row writer of ``gap`` (and ``compare``) on a device."""
    case = Case("gap-null", ["gap", TINY2, "--time-limit", "5", "--workers", "1",
                             "--quiet", "--out", "{tmp}/gaps.csv"], 0,
                setup=devices(**{"gaps.csv": NULL}))
    check_case(case, tmp_path)
    assert_still_devices(tmp_path, "gaps.csv")


SMALL_SPEC = """name = "small"
[[groups]]
name = "g"
instances = [{ generator = "ics2020", alpha_gen = [1.0], seed = [0], n_jobs = 4 }]
methods = ["first-fit+lpt/fifo"]
metrics = ["lower_bound"]
"""


def test_sweep_refuses_an_empty_out(tmp_path: Path) -> None:
    """``--out ''`` would be the current folder: refused before anything runs."""
    case = Case("sweep-empty-out", ["sweep", "{tmp}/s.toml", "--out", "",
                                    "--workers", "1", "--quiet"], 2, ("--out=''",),
                setup=lambda tmp: (tmp / "s.toml").write_text(SMALL_SPEC))
    check_case(case, tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == ["s.toml"]
