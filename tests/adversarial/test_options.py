"""Issue 24, item 4: hostile options of the generators, of ``replay`` (gang
workloads, queue orders, rates), of the gang entry point and of ``plot``.

Each case runs the command line in a real subprocess; every bad option must
end with exit 2 and one line naming the option (or field) and the value,
never a traceback (exit 3), a ``MemoryError`` or a hang:

- sizes checked before allocation: ``generate --jobs 10**9`` (mira, jann),
  ``--days 1e6`` (nersc-edison, nersc-fit), ``--repeats 10**8``, ``--nodes
  10**9``; ``replay`` of a gang workload with ``--mpl 10**9``, ``--quantum
  1e-300``, ``--migration-cost inf`` or ``1e14``;
- overflow: ``--alpha-gen 1e308``; ``--node-rate 1e-320`` (a subnormal) and
  ``1e-300`` (below the smallest bandwidth);
- the gang entry point ``python -m opt_sched.gang``: the same one-line
  errors as ``opt-sched`` (``--seed -1``, a corrupt gzip, sizes), and one
  line with exit 130 on Ctrl-C;
- options that do not apply are errors naming the option and what it
  applies to: ``generate --protocol ics2020 --batch 4``, a gang workload
  replayed with ``--io-profile``, ``--execution shared`` or
  ``--kill-at-walltime``, ``--order ''``, ``--priority fairshare:``, a gang
  ``generate swf --nodes`` narrower than the log's jobs;
- plots: ``--partition`` beyond the instance, ``--out f.xyz``.

A few good calls next to them check that the rules refuse only what they
should (exit 0).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from .driver import REPO, Case, check_case

TUCAN5 = REPO / "instances" / "tucan5.json"
KTH_HEAD = REPO / "tests" / "data" / "traces" / "kth-sp2-head.swf"
KTH = REPO.parent / "shared" / "data" / "swf" / "KTH-SP2.swf.gz"
FAST = 60.0  # seconds: a bad option is refused up front, never after a long run

TINY_SWF = ("; MaxNodes: 4\n"
            "1 0 0 100 2 -1 -1 2 200 -1 1 1 1 -1 -1 -1 -1 -1\n"
            "2 50 0 300 4 -1 -1 4 400 -1 1 1 1 -1 -1 -1 -1 -1\n"
            "3 60 0 300 1 -1 -1 1 400 -1 1 1 1 -1 -1 -1 -1 -1\n")
"""Three jobs of 2, 4 and 1 nodes on a 4-node machine."""


# -- inputs -----------------------------------------------------------------
def gang_workload(tmp: Path) -> None:
    """``g.json``: a 30-job jann workload on 32 nodes."""
    from opt_sched.gang.jann import jann_workload
    from opt_sched.gang.workload import write_workload

    write_workload(jann_workload(30, 600.0, 0.33, 1, nodes=32), tmp / "g.json")


def tiny_swf(tmp: Path) -> None:
    (tmp / "tiny.swf").write_text(TINY_SWF)


def corrupt_gzip(name: str) -> Callable[[Path], None]:
    """A gzip header followed by bytes that are not deflate data."""
    def setup(tmp: Path) -> None:
        (tmp / name).write_bytes(b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03"
                                 b"not deflate data at all")
    return setup


def tucan_schedule(tmp: Path) -> None:
    """``s.json``: the one-pack schedule of tucan5."""
    from opt_sched.json_files import read_instance, write_schedule
    from opt_sched.scheduling.execute import execute_plan
    from opt_sched.simulation import OnePackPlan

    instance = read_instance(TUCAN5)
    write_schedule(execute_plan(instance, OnePackPlan()), tmp / "s.json", instance)


def generate(*args: str) -> list[str]:
    return ["generate", *args, "--out", "{tmp}/w.json"]


def replay_gang(*args: str) -> list[str]:
    return ["replay", "{tmp}/g.json", *args]


def replay_trace(*args: str) -> list[str]:
    return ["replay", str(KTH_HEAD), "--quiet", *args]


def plot(*args: str) -> list[str]:
    return ["plot", str(TUCAN5), "{tmp}/s.json", *args]


# -- cases ------------------------------------------------------------------
GENERATE = [
    Case("mira-jobs-1e9", generate("--protocol", "mira", "--jobs", "1000000000"), 2,
         ("jobs=1000000000", "MAX_GENERATED_JOBS"), timeout=FAST),
    Case("jann-jobs-1e9", generate("--protocol", "jann", "--jobs", "1000000000"), 2,
         ("jobs=1000000000", "MAX_GENERATED_JOBS"), timeout=FAST),
    Case("nersc-days-1e6", generate("--protocol", "nersc-edison", "--days", "1e6"), 2,
         ("days=1e+06", "MAX_GENERATED_JOBS"), timeout=FAST),
    Case("nersc-nodes-1e9", generate("--protocol", "nersc-edison", "--nodes",
                                     "1000000000"), 2,
         ("nodes=1000000000", "MAX_MACHINES"), timeout=FAST),
    Case("goponenko-repeats-1e8", generate("--protocol", "goponenko-w2", "--repeats",
                                           "100000000"), 2,
         ("repeats=100000000", "MAX_GENERATED_JOBS"), timeout=FAST),
    Case("goponenko-nodes-1e9", generate("--protocol", "goponenko-w1", "--nodes",
                                         "1000000000"), 2,
         ("nodes=1000000000", "MAX_MACHINES"), timeout=FAST),
    Case("jann-nodes-1e9", generate("--protocol", "jann", "--jobs", "10", "--nodes",
                                    "1000000000"), 2,
         ("nodes=1000000000", "MAX_NODES"), timeout=FAST),
    Case("ics2020-alpha-gen-1e308", generate("--protocol", "ics2020", "--alpha-gen",
                                             "1e308"), 2,
         ("alpha_gen=1e+308", "MAX_ALPHA_GEN"), timeout=FAST),
    Case("ics2020-batch", generate("--protocol", "ics2020", "--batch", "4"), 2,
         ("--batch", "ics2020", "applies to: tucan"), timeout=FAST),
    Case("nersc-jobs", generate("--protocol", "nersc-edison", "--jobs", "10"), 2,
         ("--jobs", "nersc-edison", "mira"), timeout=FAST),
    Case("tucan-seed", generate("--protocol", "tucan", "--seed", "3"), 2,
         ("--seed", "tucan"), timeout=FAST),
    Case("goponenko-days", generate("--protocol", "goponenko-w1", "--days", "2"), 2,
         ("--days", "goponenko-w1", "nersc-edison"), timeout=FAST),
    Case("tucan-batch-ok", generate("--protocol", "tucan", "--batch", "0.5"), 0,
         timeout=FAST),
    Case("ics2020-ok", generate("--protocol", "ics2020", "--alpha-gen", "2",
                                "--seed", "3", "--io-nodes", "2"), 0, timeout=FAST),
]

REPLAY = [
    Case("gang-mpl-1e9", replay_gang("--scheduler", "gs", "--mpl", "1000000000"), 2,
         ("mpl=1000000000", "MAX_MPL"), gang_workload, timeout=FAST),
    Case("gang-quantum-1e-300", replay_gang("--scheduler", "gs", "--quantum",
                                            "1e-300"), 2,
         ("quantum=1e-300", "MAX_SLICES"), gang_workload, timeout=FAST),
    Case("gang-quantum-1e300", replay_gang("--scheduler", "gs", "--quantum",
                                           "1e300"), 2,
         ("quantum=1e+300", "MAX_VALUE"), gang_workload, timeout=FAST),
    Case("gang-migration-cost-inf", replay_gang("--scheduler", "migrate-iogs",
                                                "--migration-cost", "inf"), 2,
         ("--migration-cost", "inf"), gang_workload, timeout=FAST),
    Case("gang-migration-cost-1e14", replay_gang("--scheduler", "migrate-iogs",
                                                 "--migration-cost", "1e14"), 2,
         ("migration_cost=1", "MAX_SLICES"), gang_workload, timeout=FAST),
    Case("gang-migration-budget--1", replay_gang("--scheduler", "migrate-iogs",
                                                 "--migration-budget", "-1"), 2,
         ("--migration-budget", "-1"), gang_workload, timeout=FAST),
    Case("gang-io-profile", replay_gang("--scheduler", "gs", "--io-profile", "bn"), 2,
         ("--io-profile", "gang scheduler gs", "space-sharing"), gang_workload,
         timeout=FAST),
    Case("gang-execution-shared", replay_gang("--scheduler", "iogs", "--execution",
                                              "shared"), 2,
         ("--execution", "iogs"), gang_workload, timeout=FAST),
    Case("gang-kill-at-walltime", replay_gang("--scheduler", "gs",
                                              "--kill-at-walltime"), 2,
         ("--kill-at-walltime", "gs"), gang_workload, timeout=FAST),
    Case("gang-window", replay_gang("--scheduler", "gs", "--window", "0:20"), 2,
         ("--window", "gs"), gang_workload, timeout=FAST),
    Case("gang-migration-budget-gs", replay_gang("--scheduler", "gs",
                                                 "--migration-budget", "3"), 2,
         ("--migration-budget", "gs", "migrate-iogs"), gang_workload, timeout=FAST),
    Case("gang-ok", replay_gang("--scheduler", "migrate-iogs", "--mpl", "3",
                                "--quantum", "100", "--migration-cost", "5",
                                "--seed", "2", "--validate"), 0, (),
         gang_workload, timeout=FAST),
    Case("easy-mpl", replay_trace("--mpl", "3"), 2, ("--mpl", "easy", "gs"),
         timeout=FAST),
    Case("order-empty", replay_trace("--order", ""), 2, ("order=''",), timeout=FAST),
    Case("priority-fairshare-colon", replay_trace("--priority", "fairshare:"), 2,
         ("fairshare:", "operator"), timeout=FAST),
    Case("node-rate-subnormal", replay_trace("--execution", "shared", "--node-rate",
                                             "1e-320"), 2,
         ("--node-rate", "1e-320", "MIN_NORMAL"), timeout=FAST),
    Case("node-rate-1e-300", replay_trace("--execution", "shared", "--node-rate",
                                          "1e-300"), 2,
         ("--node-rate", "1e-300", "MIN_BANDWIDTH"), timeout=FAST),
    Case("bandwidth-1e-300", replay_trace("--io-profile", "bn", "--bandwidth",
                                          "1e-300"), 2,
         ("--bandwidth", "1e-300", "MIN_BANDWIDTH"), timeout=FAST),
    Case("priority-fairshare-ok", replay_trace("--priority", "fairshare"), 0,
         timeout=FAST),
]

GANG_ENTRY = [
    Case("gang-generate-seed--1", ["generate", "--protocol", "jann", "--seed", "-1",
                                   "--out", "{tmp}/w.json"], 2, ("--seed", "-1"),
         module="opt_sched.gang", timeout=FAST),
    Case("gang-replay-seed--1", ["replay", "{tmp}/g.json", "--scheduler", "gs",
                                 "--seed", "-1"], 2, ("--seed", "-1"), gang_workload,
         module="opt_sched.gang", timeout=FAST),
    Case("gang-entry-mpl-1e9", ["replay", "{tmp}/g.json", "--scheduler", "gs",
                                "--mpl", "1000000000"], 2,
         ("opt-sched: error", "mpl=1000000000", "MAX_MPL"), gang_workload,
         module="opt_sched.gang", timeout=FAST),
    Case("gang-entry-jobs-1e9", ["generate", "--protocol", "jann", "--jobs",
                                 "1000000000", "--out", "{tmp}/w.json"], 2,
         ("opt-sched: error", "MAX_GENERATED_JOBS"), module="opt_sched.gang",
         timeout=FAST),
    Case("gang-entry-corrupt-workload", ["replay", "{tmp}/bad.json.gz",
                                         "--scheduler", "gs"], 2,
         ("opt-sched: error", "bad.json.gz"), corrupt_gzip("bad.json.gz"),
         module="opt_sched.gang", timeout=FAST),
    Case("gang-entry-corrupt-trace", ["generate", "--protocol", "swf", "--trace",
                                      "{tmp}/bad.swf.gz", "--out", "{tmp}/w.json"], 2,
         ("opt-sched: error", "bad.swf.gz"), corrupt_gzip("bad.swf.gz"),
         module="opt_sched.gang", timeout=FAST),
    Case("gang-swf-nodes-narrower", ["generate", "--protocol", "swf", "--trace",
                                     "{tmp}/tiny.swf", "--nodes", "1", "--out",
                                     "{tmp}/w.json"], 2,
         ("--nodes=1", "narrower than 2 jobs", "4 nodes"), tiny_swf,
         module="opt_sched.gang", timeout=FAST),
    Case("gang-swf-mean-runtime", ["generate", "--protocol", "swf", "--trace",
                                   "{tmp}/tiny.swf", "--mean-runtime", "5", "--out",
                                   "{tmp}/w.json"], 2,
         ("--mean-runtime", "swf", "jann"), tiny_swf, module="opt_sched.gang",
         timeout=FAST),
    Case("gang-entry-migration-cost-iogs", ["replay", "{tmp}/g.json", "--scheduler",
                                            "iogs", "--migration-cost", "3"], 2,
         ("--migration-cost", "iogs", "migrate-iogs"), gang_workload,
         module="opt_sched.gang", timeout=FAST),
    Case("gang-swf-nodes-ok", ["generate", "--protocol", "swf", "--trace",
                               "{tmp}/tiny.swf", "--nodes", "4", "--out",
                               "{tmp}/w.json"], 0, (), tiny_swf,
         module="opt_sched.gang", timeout=FAST),
]

PLOT_AND_SIMULATE = [
    Case("plot-partition-5", plot("--partition", "5", "--out", "{tmp}/p.png"), 2,
         ("--partition=5", "1 partition"), tucan_schedule, timeout=FAST),
    Case("plot-out-xyz", plot("--out", "{tmp}/f.xyz"), 2, ("f.xyz", "'xyz'"),
         tucan_schedule, timeout=FAST),
    Case("plot-usage-partition", plot("--kind", "usage", "--partition", "1",
                                      "--out", "{tmp}/p.png"), 2,
         ("--partition", "usage"), tucan_schedule, timeout=FAST),
    Case("plot-ok", plot("--partition", "1", "--out", "{tmp}/p.svg"), 0, (),
         tucan_schedule, timeout=FAST),
    Case("simulate-plan-file-one-pack",
         ["simulate", str(TUCAN5), "--plan-file", "x.json"], 2,
         ("--plan-file", "one-pack", "packs or starts"), timeout=FAST),
]

CASES = GENERATE + REPLAY + GANG_ENTRY + PLOT_AND_SIMULATE


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_option(case: Case, tmp_path: Path) -> None:
    check_case(case, tmp_path)


@pytest.mark.skipif(not KTH.is_file(), reason="../shared/data/swf/KTH-SP2.swf.gz "
                                               "is absent")
def test_fit_trace_days_are_checked_before_drawing(tmp_path: Path) -> None:
    """``nersc-fit --trace KTH --days 1e5`` (about 2 * 10**7 jobs) is refused
    up front."""
    check_case(Case("fit-days-1e5", generate("--protocol", "nersc-fit", "--trace",
                                             str(KTH), "--days", "1e5"), 2,
                    ("days=100000", "MAX_GENERATED_JOBS"), timeout=FAST), tmp_path)


def _default_sigint() -> None:
    """In the child before ``exec``: SIGINT back to its default, so that the
    new Python installs its handler even when the suite runs with SIGINT
    ignored (a CI job started in the background)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_gang_entry_point_ctrl_c_is_one_line_and_130(tmp_path: Path) -> None:
    """Ctrl-C during ``python -m opt_sched.gang replay``: exit 130 and one
    line, as ``opt-sched`` (the old entry point printed nothing)."""
    from opt_sched.gang.jann import jann_workload
    from opt_sched.gang.workload import write_workload

    workload = tmp_path / "big.json"
    write_workload(jann_workload(100_000, 3102.0, 0.5, 0), workload)
    env = dict(os.environ)
    env.pop("OPT_SCHED_DEBUG", None)
    process = subprocess.Popen(
        [sys.executable, "-m", "opt_sched.gang", "replay", str(workload),
         "--scheduler", "gs"], cwd=tmp_path, env=env, stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=_default_sigint)
    time.sleep(4.0)
    assert process.poll() is None, "the replay ended before Ctrl-C"
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert lines == ["opt-sched: interrupted"], stderr


def test_gang_entry_point_bug_is_one_line_and_3(monkeypatch, capsys) -> None:
    """An exception that is not a user error, raised by a gang command, is a
    bug: exit 3 and one line (the old entry point printed a traceback and
    exited 1)."""
    from opt_sched.cli import gang as cli_entry

    def broken(args):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(cli_entry, "run_generate", broken)
    status = cli_entry.main(["generate", "--protocol", "jann", "--out", "w.json"])
    stderr = capsys.readouterr().err
    assert status == 3
    assert stderr.startswith("opt-sched: internal error") and "ZeroDivisionError" \
        in stderr
    assert len(stderr.strip().splitlines()) == 1
