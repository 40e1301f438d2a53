"""Batsim platforms and machine counts (issue 26, defect 2).

- ``count_compute_hosts`` checks the role of ``<cluster>`` hosts too: Batsim's
  ``cluster512.xml`` declares its master as a one-host cluster with role
  ``master``, so it has 512 compute hosts, not 513.
- The machine count is Batsim's default, the platform's compute hosts;
  ``--mmax-workload`` (``TraceReading(machines="workload")``) limits it to the
  workload's ``nb_res``, as Batsim's flag does.

Against Batsim's own runs (``../shared/data/more-traces/batsim/``, README
there): ``paper_seed1_cluster512`` (Batsim 4.0.0, ``easy_bf``, no
``--mmax-workload``) and ``evalys_mediumWL_smallPF`` (an older Batsim, EASY,
on the platform its ``allocated_processors`` imply), every machine set equal
and every start within 0.01 s (Batsim adds a few ms of network latency); and
``batsim-medium_late``, whose reference run used 32 machines of a 128-host
platform (its ``out_schedule.csv``: ``nb_computing_machines`` 32), with
``--mmax-workload``: 801/801 at 1e-6 with the shared comparison tool.
Comparisons use ``../shared/tools/compare_out_jobs.py``'s own id and machine
parsing, with a start tolerance (the tool's is fixed at 1e-6).
"""

from __future__ import annotations

import csv
import gzip
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from opt_sched.errors import OptionError, TraceError
from opt_sched.traces import count_compute_hosts, read_batsim
from opt_sched.traces.reading import TraceReading

from .paths import shared_data_dir
from .test_cli import run_cli

LATENCY = 0.01
"""Batsim starts a job a few milliseconds after the decision."""


# -- counting hosts -----------------------------------------------------------
def platform(tmp_path: Path, body: str, name: str = "platform.xml") -> Path:
    path = tmp_path / name
    path.write_text("<?xml version='1.0'?>\n<platform version=\"4.1\">\n"
                    f"<zone id=\"AS0\" routing=\"Full\">\n{body}\n</zone>\n"
                    "</platform>\n")
    return path


@pytest.mark.parametrize(("body", "hosts"), [
    # cluster512.xml's shape: a master cluster with role master
    ('<cluster id="c1" prefix="a" suffix="" radical="0-511"/>'
     '<cluster id="c2" prefix="master_host" suffix="" radical="0-0">'
     '<prop id="role" value="master"/></cluster>', 512),
    # a storage cluster, and a compute cluster with a role that computes
    ('<cluster id="c" prefix="n" radical="0-9"/>'
     '<cluster id="s" prefix="io" radical="0-1"><prop id="role" value="storage"/>'
     '</cluster>', 10),
    ('<cluster id="c" prefix="n" radical="0-3,8"><prop id="role" '
     'value="compute_node"/></cluster>', 5),
    # a host named master_host inside a cluster (prefix "master_host", no number)
    ('<cluster id="c" prefix="master_h" suffix="ost" radical="0-3"/>', 4),
    # <host> elements: the master by name, role master or storage
    ('<host id="master_host"/><host id="h0"/><host id="h1"/>'
     '<host id="m2"><prop id="role" value="master"/></host>'
     '<host id="s"><prop id="role" value="storage"/></host>', 2),
    # cabinets declare hosts like clusters
    ('<cabinet id="cab" prefix="c-" suffix=".me" radical="1-6"/>'
     '<host id="master_host"/>', 6),
])
def test_compute_hosts(tmp_path, body, hosts):
    assert count_compute_hosts(platform(tmp_path, body)) == hosts


def test_a_master_named_inside_a_cluster_is_not_counted(tmp_path):
    path = platform(tmp_path, '<cluster id="c" prefix="node" radical="0-7"/>')
    assert count_compute_hosts(path) == 8
    assert count_compute_hosts(path, master="node3") == 7
    assert count_compute_hosts(path, master="node9") == 8


def test_no_compute_host_and_bad_radicals_are_one_line(tmp_path):
    only_master = platform(tmp_path, '<cluster id="m" prefix="master_host" '
                           'radical="0-0"><prop id="role" value="master"/></cluster>')
    with pytest.raises(TraceError, match="no compute host"):
        count_compute_hosts(only_master)
    bad = platform(tmp_path, '<cluster id="c" radical="3-1"/>', "bad.xml")
    with pytest.raises(TraceError, match=r"bad.xml: cluster radical='3-1'"):
        count_compute_hosts(bad)


def test_huge_radicals_are_counted_not_expanded(tmp_path):
    path = platform(tmp_path, '<cluster id="c" prefix="n" radical="0-99999999"/>')
    assert count_compute_hosts(path, master="n5") == 10**8 - 1


# -- the machine count --------------------------------------------------------
def workload(tmp_path: Path, nb_res: int | None, widths: list[int],
             name: str = "w.json") -> Path:
    data: dict = {"jobs": [{"id": k, "subtime": k, "walltime": 10, "res": w,
                            "profile": "p"} for k, w in enumerate(widths)],
                  "profiles": {"p": {"type": "delay", "delay": 5}}}
    if nb_res is not None:
        data["nb_res"] = nb_res
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def test_the_platform_decides_unless_mmax_workload(tmp_path):
    hosts = platform(tmp_path, '<cluster id="c" prefix="n" radical="0-15"/>'
                     '<host id="master_host"/>')
    path = workload(tmp_path, 4, [1, 4, 8])
    trace, summary = read_batsim(path, hosts, TraceReading(machines="platform"))
    assert trace.machine_size == 16 and len(trace) == 3
    assert any("Batsim's default" in note for note in summary.notes)
    # the default: the workload's nb_res when it states one
    default, summary = read_batsim(path, hosts)
    assert default.machine_size == 4
    assert any("--all-hosts" in note for note in summary.notes)
    assert read_batsim(workload(tmp_path, None, [1], "bare.json"), hosts)[
        0].machine_size == 16
    limited, summary = read_batsim(path, hosts, TraceReading(machines="workload"))
    assert limited.machine_size == 4
    assert dict(summary.skipped) == {"wider_than_machine": 1}
    assert any("--mmax-workload" in note for note in summary.notes)
    # nb_res above the platform: the platform (Batsim cannot use more)
    wide, _ = read_batsim(workload(tmp_path, 64, [1], "wide.json"), hosts,
                          TraceReading(machines="workload"))
    assert wide.machine_size == 16
    # no platform: nb_res either way; --mmax-workload needs an nb_res
    assert read_batsim(path)[0].machine_size == 4
    with pytest.raises(OptionError, match=r"mmax-workload: none\.json has no nb_res"):
        read_batsim(workload(tmp_path, None, [1], "none.json"), hosts,
                    TraceReading(machines="workload"))


# -- Batsim's own runs --------------------------------------------------------
def _tool():
    """``compare_out_jobs.py`` as a module (its id and machine parsing)."""
    path = shared_data_dir().parent / "tools" / "compare_out_jobs.py"
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    spec = importlib.util.spec_from_file_location("compare_out_jobs", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _rows(path: Path) -> list[dict[str, str]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", newline="") as handle:
        return list(csv.DictReader(handle))


def compare(ours: Path, reference: Path, tolerance: float) -> tuple[int, int, int]:
    """``(starts within tolerance, equal machine sets, reference jobs)``, with
    the tool's :func:`norm_id` and :func:`machines` (the older evalys file
    names its columns ``jobID`` and ``allocated_processors``)."""
    tool = _tool()

    def keyed(rows, ids, machines):
        id_col = next(c for c in ids if c in rows[0])
        m_col = next(c for c in machines if c in rows[0])
        return {tool.norm_id(r[id_col]): (float(r["starting_time"]),
                                          tool.machines(r[m_col])) for r in rows}

    mine = keyed(_rows(ours), ("job_id",), ("allocated_resources",))
    theirs = keyed(_rows(reference), ("hacky_job_id", "job_id", "jobID"),
                   ("allocated_resources", "allocated_processors"))
    common = theirs.keys() & mine.keys()
    starts = sum(abs(mine[k][0] - theirs[k][0]) <= tolerance for k in common)
    machines = sum(mine[k][1] == theirs[k][1] for k in common)
    return starts, machines, len(theirs)


def replay_out(tmp_path: Path, *args: str) -> Path:
    out = tmp_path / "out_jobs.csv"
    done = run_cli("replay", *args, "--scheduler", "easy", "--validate",
                   "--quiet", "--out", str(out))
    assert done.returncode == 0, done.stderr
    return out


@pytest.fixture(scope="module")
def batsim_runs() -> Path:
    folder = shared_data_dir() / "more-traces" / "batsim"
    if not folder.is_dir():
        pytest.skip(f"{folder} is absent")
    return folder


def test_cluster512_has_512_compute_hosts(batsim_runs):
    folder = batsim_runs / "paper_seed1_cluster512"
    with open(folder / "easy_out_schedule.csv", newline="") as handle:
        run = next(csv.DictReader(handle))
    assert count_compute_hosts(folder / "platform.xml") == \
        int(run["nb_computing_machines"]) == 512


def test_paper_seed1_cluster512_without_nodes(batsim_runs, tmp_path):
    """No --nodes: the platform's 512 machines, as Batsim 4 ran it."""
    folder = batsim_runs / "paper_seed1_cluster512"
    out = replay_out(tmp_path, str(folder / "workload.json.gz"), "--platform",
                     str(folder / "platform.xml"), "--all-hosts")
    reference = folder / "easy_out_jobs.csv.gz"
    assert compare(out, reference, LATENCY) == (800, 800, 800)
    # Batsim's latency is real: at the tool's 1e-6 the starts differ
    assert compare(out, reference, 1e-6)[0] < 800
    # the old cap at nb_res (32 machines) is --mmax-workload, and is not this run
    capped = replay_out(tmp_path, str(folder / "workload.json.gz"), "--platform",
                        str(folder / "platform.xml"), "--mmax-workload")
    starts, machines, _ = compare(capped, reference, LATENCY)
    assert starts < 800 and machines < 800


def evalys_workload(folder: Path) -> Path:
    """medium_late's workload without job 424242, ids x 10 (the README)."""
    data = json.loads((shared_data_dir() / "batsim-medium_late" /
                       "workload.json").read_text())
    data["jobs"] = [dict(job, id=int(job["id"]) * 10) for job in data["jobs"]
                    if int(job["id"]) != 424242]
    path = folder / "mediumWL.json"
    path.write_text(json.dumps(data))
    return path


def test_evalys_medium_workload_on_the_platform_it_implies(batsim_runs, tmp_path):
    reference = batsim_runs / "evalys_mediumWL_smallPF" / "easy_out_jobs.csv.gz"
    tool = _tool()
    used = set().union(*(tool.machines(r["allocated_processors"])
                         for r in _rows(reference)))
    size = max(used) + 1                  # machines 0..53 are used: 54
    assert used == set(range(size))
    path = evalys_workload(tmp_path)
    assert len(json.loads(path.read_text())["jobs"]) == 800
    hosts = platform(tmp_path, f'<cluster id="c" prefix="a" radical="0-{size - 1}"/>'
                     '<host id="master_host"/>', "small.xml")
    out = replay_out(tmp_path, str(path), "--platform", str(hosts), "--all-hosts")
    assert compare(out, reference, LATENCY) == (800, 800, 800)
    # one machine fewer and the schedule is no longer Batsim's
    fewer = platform(tmp_path, f'<cluster id="c" prefix="a" radical="0-{size - 2}"/>',
                     "fewer.xml")
    starts, machines, _ = compare(replay_out(tmp_path, str(path), "--platform",
                                             str(fewer), "--all-hosts"),
                                  reference, LATENCY)
    assert (starts, machines) != (800, 800)


@pytest.mark.parametrize("scheduler", ["easy", "conservative"])
@pytest.mark.parametrize("flags", [[], ["--mmax-workload"]])
def test_medium_late_with_its_nb_res(scheduler, flags, tmp_path):
    """Batsim's medium_late run used 32 machines of the 128-host platform
    (its nb_res): replayed by default (nb_res when the workload states one)
    or with --mmax-workload, the shared tool finds 801/801 at 1e-6."""
    folder = shared_data_dir() / "batsim-medium_late"
    tool = folder.parent.parent / "tools" / "compare_out_jobs.py"
    if not tool.is_file():
        pytest.skip(f"{tool} is absent")
    with open(folder / scheduler / "out_schedule.csv", newline="") as handle:
        run = next(csv.DictReader(handle))
    data = json.loads((folder / "workload.json").read_text())
    assert int(run["nb_computing_machines"]) == data["nb_res"] == 32
    assert count_compute_hosts(folder / "platform.xml") == 128
    out = tmp_path / "out_jobs.csv"
    done = run_cli("replay", str(folder / "workload.json"), "--platform",
                   str(folder / "platform.xml"), *flags, "--scheduler",
                   scheduler, "--validate", "--quiet", "--out", str(out))
    assert done.returncode == 0, done.stderr
    result = subprocess.run([sys.executable, str(tool), str(out),
                             str(folder / scheduler / "out_jobs.csv"), "--machines"],
                            capture_output=True, text=True)
    assert result.stdout.strip() == "starts 801/801, machines 801/801", result
