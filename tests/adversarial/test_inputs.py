"""Issue 24, items 4 and 4c: hostile input files for the readers of
instances, schedules and traces.

Each case writes its input in the test's own folder and runs the command
line in a real subprocess. Every bad file must end with exit 2 and one line
naming the file (and the line, field and value where there is one), never a
traceback (exit 3) and never a hang:

- encoding and compression: an instance that is not UTF-8; a gzip trace
  with one byte flipped (corrupt deflate data, a bad CRC) or cut short, in
  ``replay`` and in ``generate --protocol nersc-fit``;
- overflow: a Batsim ``res`` of ``1e30``, a ``delay`` of ``1e308``, a job
  profile that is a list or an object, JSON nested too deeply or with an
  integer of 5,000 digits;
- hangs: an SWF file with no header and one job of 10**8 processors (the
  machine would be sized to it), ``replay --nodes 10**8``;
- trace values beyond the limits of :mod:`opt_sched.limits` (4c): an SWF
  submit time of ``1e308``, ``2**63`` processors.

And two files that are fine: SWF job numbers above 2**53 (distinct, kept
exactly), and a Batsim workload whose wide jobs are skipped (exit 0, said on
the first line of the summary).
"""

from __future__ import annotations

import gzip
import json
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest

from opt_sched.limits import MAX_COUNT, MAX_MACHINES, MAX_VALUE

from .driver import REPO, Case, check_case

TINY2 = REPO / "instances" / "tiny2.json"
KTH_HEAD = REPO / "tests" / "data" / "traces" / "kth-sp2-head.swf"
KTH = REPO.parent / "shared" / "data" / "swf" / "KTH-SP2.swf.gz"
FAST = 30.0  # seconds: a bad file is refused up front, never after a long run


# -- inputs -----------------------------------------------------------------
def swf_line(job: int | str, submit: object = 0, run: object = 100,
             processors: object = 1, requested: object = 200) -> str:
    """One 18-field SWF job line (``-1`` where the field is not used)."""
    return (f"{job} {submit} 0 {run} {processors} -1 -1 {processors} {requested} "
            f"-1 1 1 1 1 1 1 -1 -1")


def write(name: str, text: str) -> Callable[[Path], None]:
    """A setup writing ``text`` to ``name`` in the test's folder."""
    def setup(tmp: Path) -> None:
        (tmp / name).write_text(text, encoding="utf-8")
    return setup


def write_bytes(name: str, data: bytes) -> Callable[[Path], None]:
    """A setup writing ``data`` to ``name`` in the test's folder."""
    def setup(tmp: Path) -> None:
        (tmp / name).write_bytes(data)
    return setup


def batsim(name: str, jobs: list[dict], delay: object = 10.0,
           **top: object) -> Callable[[Path], None]:
    """A setup writing a Batsim workload with one ``delay`` profile ``p``."""
    data = {**top, "jobs": jobs, "profiles": {"p": {"type": "delay", "delay": delay}}}
    return write(name, json.dumps(data))


def batsim_job(index: int = 1, **fields: object) -> dict:
    """A job of the workload (``fields`` override the defaults)."""
    return {"id": index, "subtime": 0, "walltime": 20, "res": 1, "profile": "p",
            **fields}


def corrupt_deflate(data: bytes) -> bytes:
    """``data`` gzipped with one byte of the compressed stream flipped so
    that zlib itself fails (``zlib.error``: the case the readers missed),
    not only the CRC check."""
    packed = gzip.compress(data, mtime=0)
    for position in range(10, len(packed) - 8):
        damaged = bytearray(packed)
        damaged[position] ^= 0xFF
        try:
            gzip.decompress(bytes(damaged))
        except zlib.error:
            return bytes(damaged)
        except (OSError, EOFError):
            continue
    raise AssertionError("no single flipped byte breaks the deflate stream")


def flip_last_byte(data: bytes) -> bytes:
    """``data`` gzipped with the last byte (its length field) flipped."""
    packed = bytearray(gzip.compress(data, mtime=0))
    packed[-1] ^= 0x01
    return bytes(packed)


def flipped_kth(tmp: Path) -> None:
    """The real KTH-SP2 trace with one byte of its deflate stream flipped."""
    if not KTH.is_file():
        pytest.skip(f"real data {KTH} is absent")
    (tmp / "kth.swf.gz").write_bytes(corrupt_deflate(gzip.decompress(KTH.read_bytes())))


HEAD = KTH_HEAD.read_bytes()
NO_HEADER_TWO_JOBS = swf_line(2, submit=10) + "\n"


# -- refused: exit 2, one line naming the file --------------------------------
BAD_INPUTS = [
    # encoding and compression
    Case("schedule-not-utf8", ["validate", str(TINY2), "{tmp}/s.json"], 2,
         ("s.json", "not UTF-8"), setup=write_bytes("s.json", b'{"jobs": "\xff"}')),
    Case("swf-gzip-deflate-flipped", ["replay", "{tmp}/t.swf.gz", "--quiet"], 2,
         ("t.swf.gz", "not a valid gzip file"),
         setup=write_bytes("t.swf.gz", corrupt_deflate(HEAD)), timeout=FAST),
    Case("swf-gzip-crc-flipped", ["replay", "{tmp}/t.swf.gz", "--quiet"], 2,
         ("t.swf.gz", "not a valid gzip file"),
         setup=write_bytes("t.swf.gz", flip_last_byte(HEAD)), timeout=FAST),
    Case("swf-gzip-truncated", ["replay", "{tmp}/t.swf.gz", "--quiet"], 2,
         ("t.swf.gz", "not a valid gzip file"),
         setup=write_bytes("t.swf.gz", gzip.compress(HEAD, mtime=0)[:-20]),
         timeout=FAST),
    Case("kth-gzip-flipped-replay", ["replay", "{tmp}/kth.swf.gz", "--quiet"], 2,
         ("kth.swf.gz", "not a valid gzip file"), setup=flipped_kth, timeout=FAST),
    Case("kth-gzip-flipped-fit", ["generate", "--protocol", "nersc-fit", "--trace",
                                  "{tmp}/kth.swf.gz",
                                  "--out", "{tmp}/w.json"], 2,
         ("kth.swf.gz", "not a valid gzip file"), setup=flipped_kth, timeout=FAST),
    Case("batsim-gzip-deflate-flipped", ["replay", "{tmp}/w.json.gz", "--quiet"], 2,
         ("w.json.gz", "not a valid gzip file"),
         setup=write_bytes("w.json.gz", corrupt_deflate(json.dumps(
             {"jobs": [batsim_job(k) for k in range(50)],
              "profiles": {"p": {"type": "delay", "delay": 10}}}).encode())),
         timeout=FAST),
    # overflow in a Batsim workload
    Case("batsim-res-1e30", ["replay", "{tmp}/w.json"], 2,
         ("w.json", "jobs[0]", "res=1e+30", f"{MAX_COUNT:,}"),
         setup=batsim("w.json", [batsim_job(res=1e30)]), timeout=FAST),
    Case("batsim-delay-1e308", ["replay", "{tmp}/w.json"], 2,
         ("w.json", "profile 'p'", "delay=1e+308", f"{MAX_VALUE:g}"),
         setup=batsim("w.json", [batsim_job()], delay=1e308), timeout=FAST),
    Case("batsim-subtime-1e300", ["replay", "{tmp}/w.json"], 2,
         ("w.json", "jobs[0]", "subtime=1e+300", f"{MAX_VALUE:g}"),
         setup=batsim("w.json", [batsim_job(subtime=1e300)]), timeout=FAST),
    Case("batsim-walltime-1e308", ["replay", "{tmp}/w.json"], 2,
         ("w.json", "jobs[0]", "walltime=1e+308"),
         setup=batsim("w.json", [batsim_job(walltime=1e308)]), timeout=FAST),
    Case("batsim-profile-list", ["replay", "{tmp}/w.json"], 2,
         ("w.json", "jobs[0]", "profile=['p']", "not a profile name"),
         setup=batsim("w.json", [batsim_job(profile=["p"])]), timeout=FAST),
    Case("batsim-profile-object", ["replay", "{tmp}/w.json"], 2,
         ("w.json", "jobs[0]", "profile={'a': 1}", "not a profile name"),
         setup=batsim("w.json", [batsim_job(profile={"a": 1})]), timeout=FAST),
    Case("batsim-nested-too-deeply", ["replay", "{tmp}/w.json"], 2,
         ("w.json", "nested too deeply"),
         setup=write("w.json", '{"jobs": ' + "[" * 100_000 + "]" * 100_000
                     + ', "profiles": {}}'), timeout=FAST),
    Case("batsim-5000-digit-integer", ["replay", "{tmp}/w.json"], 2,
         ("w.json", "not valid JSON"),
         setup=write("w.json", '{"jobs": [], "profiles": {}, "nb_res": '
                     + "9" * 5000 + "}"), timeout=FAST),
    Case("batsim-nb-res-too-many-machines", ["replay", "{tmp}/w.json"], 2,
         ("w.json", "nb_res=1,000,000,000,000", f"{MAX_MACHINES:,}"),
         setup=batsim("w.json", [batsim_job()], nb_res=10**12), timeout=FAST),
    Case("batsim-no-machine-size-wide-job", ["replay", "{tmp}/w.json"], 2,
         ("w.json", "jobs[0]", "res=100,000,000", f"{MAX_MACHINES:,}"),
         setup=batsim("w.json", [batsim_job(res=10**8)]), timeout=FAST),
    # hangs: the machine sized to an absurd width
    Case("swf-no-header-1e8-processors", ["replay", "{tmp}/t.swf"], 2,
         ("t.swf line 1", "field 5", "'100000000'", f"{MAX_MACHINES:,}"),
         setup=write("t.swf", swf_line(1, processors=10**8) + "\n"
                     + NO_HEADER_TWO_JOBS), timeout=FAST),
    Case("swf-header-1e8-machines", ["replay", "{tmp}/t.swf"], 2,
         ("t.swf line 1", "MaxProcs=100000000", f"{MAX_MACHINES:,}"),
         setup=write("t.swf", "; MaxProcs: 100000000\n" + swf_line(1) + "\n"
                     + NO_HEADER_TWO_JOBS), timeout=FAST),
    Case("replay-nodes-1e8", ["replay", str(KTH_HEAD), "--nodes", str(10**8)], 2,
         ("nodes=100,000,000", f"{MAX_MACHINES:,}"), timeout=FAST),
    # 4c: SWF values beyond the limits of the data model
    Case("swf-submit-1e308", ["replay", "{tmp}/t.swf"], 2,
         ("t.swf line 1", "field 2 (submit time)", "'1e308'", f"{MAX_VALUE:g}"),
         setup=write("t.swf", swf_line(1, submit="1e308") + "\n"
                     + NO_HEADER_TWO_JOBS), timeout=FAST),
    Case("swf-run-time-1e308-header", ["replay", "{tmp}/t.swf"], 2,
         ("t.swf line 3", "field 4 (run time)", "'1e308'", f"{MAX_VALUE:g}"),
         setup=write("t.swf", "; MaxProcs: 4\n" + swf_line(2, submit=10) + "\n"
                     + swf_line(1, run="1e308") + "\n"), timeout=FAST),
    Case("swf-subnormal-requested-time", ["replay", "{tmp}/t.swf"], 2,
         ("t.swf line 1", "field 9 (requested time)", "'5e-324'"),
         setup=write("t.swf", swf_line(1, requested="5e-324") + "\n"
                     + NO_HEADER_TWO_JOBS), timeout=FAST),
    Case("swf-processors-2-63", ["replay", "{tmp}/t.swf"], 2,
         ("t.swf line 1", "field 5 (allocated processors)",
          f"'{2**63}'", f"{MAX_COUNT:,}"),
         setup=write("t.swf", swf_line(1, processors=2**63) + "\n"
                     + NO_HEADER_TWO_JOBS), timeout=FAST),
]


@pytest.mark.parametrize("case", BAD_INPUTS, ids=lambda case: case.name)
def test_bad_input_is_one_line_exit_2(case: Case, tmp_path: Path) -> None:
    """Each bad file: exit 2, one line naming the file (and field), fast."""
    check_case(case, tmp_path)


def test_instance_not_utf8_in_validate(tmp_path: Path) -> None:
    """``validate`` sniffs the instance for the gang format before reading
    it: a binary instance must still be exit 2 naming the file."""
    case = Case("instance-not-utf8", ["validate", "{tmp}/i.json", str(TINY2)], 2,
                ("i.json", "not UTF-8"),
                setup=write_bytes("i.json", b"\xff\xfe\x00binary{"))
    check_case(case, tmp_path)


# -- accepted --------------------------------------------------------------
def test_swf_job_numbers_above_2_53_stay_distinct(tmp_path: Path) -> None:
    """Two job numbers that one float cannot tell apart (2**53, 2**53 + 1)
    are two jobs; ``--swf`` writes them back exactly."""
    big = 2**53
    text = f"{swf_line(big)}\n{swf_line(big + 1, submit=10)}\n"
    case = Case("swf-ids-above-2-53", ["replay", "{tmp}/t.swf", "--swf", "{tmp}/o.swf"],
                0, setup=write("t.swf", text), timeout=FAST)
    check_case(case, tmp_path)
    jobs = [line.split()[0] for line in (tmp_path / "o.swf").read_text().splitlines()
            if not line.startswith(";")]
    assert jobs == [str(big), str(big + 1)]


def test_skipped_wide_jobs_are_on_the_first_line(tmp_path: Path) -> None:
    """A workload on ``nb_res=1``: the wider jobs are skipped (exit 0), and
    the first line of the summary on stdout says how many and why."""
    widths = [1, 2, 1, 4, 3, 1]
    wide = sum(width > 1 for width in widths)
    jobs = [batsim_job(k, subtime=k, res=width) for k, width in enumerate(widths)]
    case = Case("batsim-nb-res-1", ["replay", "{tmp}/w.json"], 0,
                setup=batsim("w.json", jobs, nb_res=1), timeout=FAST)
    result = check_case(case, tmp_path)
    first = result.stdout.splitlines()[0]
    assert f"{len(widths) - wide} jobs" in first
    assert f"{wide} of {len(widths)} jobs skipped" in first
    assert "wider than the machine (1)" in first
