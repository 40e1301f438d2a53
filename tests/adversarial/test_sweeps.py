"""Issue 24, item 4 "Sweeps": hostile specs, options and output folders for
``opt-sched sweep``.

Each case is refused before anything runs, with exit 2 and one line naming
the field and the value (or the file), never a traceback, a silent exit 1
or a hang:

- generator parameters out of their range (``seed = -1``, ``batch = 0``,
  ``io_intensity = 2``), which used to run and fail every task (exit 1,
  nothing on stderr);
- a method that does not apply to the workload (``gs`` on an HPC generator,
  an HPC heuristic on a gang workload);
- a grid of a billion tasks (it used to spend minutes expanding it);
- a spec that is not UTF-8 text (it was exit 3, ``UnicodeDecodeError``);
- ``--dask zzz://x`` (exit 3) and ``--slurm`` without ``sbatch`` (a
  traceback, then a hang);
- ``--resume`` into a folder that holds another campaign (the two were
  mixed in one store), and a store with a damaged page (exit 3, ``database
  disk image is malformed``).
"""

from __future__ import annotations

import importlib.util
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from opt_sched.campaign.sources import generator_source
from opt_sched.campaign.store import ResultStore
from opt_sched.campaign.task import Task

from .driver import Case, check_case

FAST = 60.0  # seconds: a bad spec is refused up front, never after a long run
SWEEP = ["sweep", "{tmp}/spec.toml", "--out", "{tmp}/out", "--workers", "1"]
HAS_DASK = importlib.util.find_spec("distributed") is not None


def spec_text(instance: str, methods: str = '["first-fit+lpt/fifo"]',
              name: str = "hostile") -> str:
    """A one-group spec with ``instance`` (an inline TOML table) and
    ``methods``."""
    return (f'name = "{name}"\n[[groups]]\nname = "g"\ninstances = [{instance}]\n'
            f"methods = {methods}\n")


def write_spec(instance: str, methods: str = '["first-fit+lpt/fifo"]'
               ) -> Callable[[Path], None]:
    """A setup writing ``spec.toml`` in the test's folder."""
    def setup(tmp: Path) -> None:
        (tmp / "spec.toml").write_text(spec_text(instance, methods), encoding="utf-8")
    return setup


TINY = '{ generator = "ics2020", alpha_gen = 2.0, seed = [0, 1], n_jobs = 4 }'


def write_bytes(name: str, data: bytes) -> Callable[[Path], None]:
    def setup(tmp: Path) -> None:
        (tmp / name).write_bytes(data)
    return setup


def store_of(tmp: Path, campaign: str, seeds: range) -> Path:
    """``out/results.sqlite`` holding finished rows of campaign ``campaign``
    (written by the store itself, no sweep run)."""
    (tmp / "out").mkdir()
    path = tmp / "out" / "results.sqlite"
    tasks = [Task(generator_source("ics2020", {"alpha_gen": 2.0, "seed": s,
                                               "n_jobs": 4}), "first-fit+lpt/fifo")
             for s in seeds]
    with ResultStore(path) as store:
        store.set_meta("spec_name", campaign)
        store.mark_dispatched(tasks)
    return path


def another_campaign(tmp: Path) -> None:
    """``out`` holds the results of campaign 'other'; spec.toml is 'hostile'."""
    write_spec(TINY)(tmp)
    store_of(tmp, "other", range(3))


def damaged_store(tmp: Path) -> None:
    """``out`` holds this campaign's store with one page overwritten."""
    write_spec(TINY)(tmp)
    path = store_of(tmp, "hostile", range(200))
    con = sqlite3.connect(path)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    page = con.execute("PRAGMA page_size").fetchone()[0]
    con.close()
    data = bytearray(path.read_bytes())
    assert len(data) >= 4 * page
    data[page:page + 64] = b"\xab" * 64  # page 2: a b-tree page of the tasks
    path.write_bytes(bytes(data))


def no_sbatch(tmp: Path) -> None:
    write_spec(TINY)(tmp)
    (tmp / "cluster.toml").write_text(
        '[slurm]\nqueue = "compute"\ncores = 2\nmemory = "4GiB"\n'
        'walltime = "00:10:00"\njobs = 1\n', encoding="utf-8")


def two_large_groups(tmp: Path) -> None:
    """Two groups of 60,000 tasks each: each within the limit, not both."""
    group = ('[[groups]]\nname = "{}"\ninstances = [{{ generator = "ics2020", '
             'alpha_gen = {{ start = 1, stop = 300 }}, seed = {{ start = 0, '
             'stop = 199 }} }}]\nmethods = ["first-fit+lpt/fifo"]\n')
    (tmp / "spec.toml").write_text('name = "big"\n' + group.format("a")
                                   + group.format("b"), encoding="utf-8")


def needs_dask(case: Case) -> object:
    """``case`` as a test parameter, skipped without Dask."""
    return pytest.param(case, id=case.name, marks=pytest.mark.skipif(
        not HAS_DASK, reason="Dask is the optional extra opt_sched[dask]"))


CASES = [
    Case("seed-negative", SWEEP, 2, ("seed", "-1", ">= 0"), write_spec(
        '{ generator = "ics2020", alpha_gen = 2.0, seed = -1, n_jobs = 4 }'),
        timeout=FAST),
    Case("batch-zero", SWEEP, 2, ("batch", "0", "> 0"), write_spec(
        '{ generator = "tucan", batch = 0 }'), timeout=FAST),
    Case("io-intensity-two", SWEEP, 2, ("io_intensity", "2", "< 1"), write_spec(
        '{ generator = "jann", io_intensity = 2, mean_runtime = 100.0 }', '["gs"]'),
        timeout=FAST),
    Case("alpha-out-of-range", SWEEP, 2, ("alpha", "1.5"), write_spec(
        '{ generator = "ijhpca2023", family = "mira", profile = "bn", '
        'alpha = 1.5, seed = 0 }'), timeout=FAST),
    Case("gang-method-on-hpc-instance", SWEEP, 2, ("methods[1]", "gs", "apply"),
         write_spec(TINY, '["first-fit+lpt/fifo", "gs"]'), timeout=FAST),
    Case("hpc-method-on-gang-workload", SWEEP, 2,
         ("methods[0]", "first-fit+lpt/fifo", "gang"),
         write_spec('{ generator = "jann", io_intensity = 0.5, mean_runtime = 100.0 }'),
         timeout=FAST),
    Case("billion-task-grid", SWEEP, 2, ("instances[0]", "1,000,000,000", "100,000"),
         write_spec('{ generator = "ics2020", alpha_gen = { start = 1, stop = 1000 }, '
                    'seed = { start = 0, stop = 999999 } }'), timeout=FAST),
    Case("million-task-grid", SWEEP, 2, ("1,000,000", "100,000"), write_spec(
        '{ generator = "ics2020", alpha_gen = { start = 1, stop = 1000 }, '
        'seed = { start = 0, stop = 999 } }'), timeout=FAST),
    Case("two-groups-over-the-limit", SWEEP, 2, ("groups[1]", "120,000", "100,000"),
         two_large_groups, timeout=FAST),
    Case("binary-spec", SWEEP, 2, ("spec.toml", "utf-8"),
         write_bytes("spec.toml", b"\xb5\x00\xff" + bytes(range(256))), timeout=FAST),
    Case("binary-slurm-config", [*SWEEP[:-2], "--slurm", "{tmp}/cluster.toml"], 2,
         ("cluster.toml", "utf-8"),
         lambda tmp: (write_spec(TINY)(tmp),
                      write_bytes("cluster.toml", b"\xff\xfe[slurm]")(tmp)),
         timeout=FAST),
    needs_dask(Case("dask-unknown-scheme", [*SWEEP[:-2], "--dask", "zzz://x"], 2,
                    ("--dask", "zzz://x"), write_spec(TINY), timeout=FAST)),
    Case("resume-into-another-campaign", [*SWEEP, "--resume"], 2,
         ("out", "another campaign", "other", "hostile"), another_campaign,
         timeout=FAST),
    Case("damaged-store", [*SWEEP, "--resume"], 2,
         ("results.sqlite", "damaged", "malformed", "new --out"), damaged_store,
         timeout=FAST),
]


@pytest.mark.parametrize("case", [pytest.param(c, id=c.name) if isinstance(c, Case)
                                  else c for c in CASES])
def test_sweep_refuses_up_front(case: Case, tmp_path: Path) -> None:
    """Exit 2, one line naming the field and the value, nothing run."""
    check_case(case, tmp_path)
    assert not (tmp_path / "out" / "tasks.csv").exists()  # nothing ran


def test_slurm_without_sbatch_exits_2_within_5_seconds(tmp_path: Path) -> None:
    """No ``sbatch`` on the PATH: refused at once, not a traceback and a
    hang (the sweep used to wait for workers that never start)."""
    case = Case("slurm-no-sbatch", [*SWEEP[:-2], "--slurm", "{tmp}/cluster.toml"], 2,
                ("--slurm", "sbatch", "PATH"), no_sbatch, timeout=FAST,
                env={"PATH": str(tmp_path / "empty-bin")})
    start = time.monotonic()
    check_case(case, tmp_path)
    assert time.monotonic() - start < 5.0


def test_resume_into_this_campaign_is_accepted(tmp_path: Path) -> None:
    """The campaign check lets the folder's own campaign resume (its store
    holds 2 of its 2 tasks as in flight: they run again)."""
    def own_campaign(tmp: Path) -> None:
        write_spec(TINY)(tmp)
        store_of(tmp, "hostile", range(2))

    result = check_case(Case("resume-own-campaign", [*SWEEP, "--resume", "--json"],
                             0, (), own_campaign, timeout=120.0), tmp_path)
    assert '"ok": 2' in result.stdout and '"ran": 2' in result.stdout
