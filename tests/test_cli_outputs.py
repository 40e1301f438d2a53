"""Outputs: a path that cannot be written is one line and exit 2; every write
is atomic, so a failed write (a full disk) never leaves half a file."""

from __future__ import annotations

import errno
import json
import os

import pytest

from opt_sched import read_instance
from opt_sched.cli import main
from opt_sched.errors import OutputError
from opt_sched.files import (
    atomic_path,
    atomic_write_bytes,
    atomic_write_text,
    check_writable,
    pending_temporaries,
)
from opt_sched.json_files import write_instance, write_schedule

from .conftest import INSTANCES
from .test_cli import run_cli

TINY2 = str(INSTANCES / "tiny2.json")
DEPS5 = str(INSTANCES / "deps5.json")


def assert_one_line(done, code: int, *fragments: str) -> str:
    assert done.returncode == code, (done.returncode, done.stdout, done.stderr)
    err = done.stderr
    assert err.count("\n") == 1, err
    assert "Traceback" not in err + done.stdout
    for fragment in fragments:
        assert fragment in err, err
    return err


def leftovers(folder) -> list[str]:
    """Temporary files of atomic writes left in ``folder`` (there must be
    none)."""
    return sorted(p.name for p in folder.iterdir()
                  if p.name.startswith(".") or ".tmp" in p.name)


# -- every output option, into a missing folder / a folder (real processes) ------
OUTPUT_COMMANDS = {
    "simulate --out": ["simulate", TINY2, "--out"],
    "generate --out": ["generate", "--protocol", "tucan", "--out"],
    "compare --out": ["compare", DEPS5, "--out"],
    "solve --out": ["solve", TINY2, "--time-limit", "5", "--out"],
    "solve --export": ["solve", TINY2, "--solver", "cbc", "--export"],
    "gap --out": ["gap", TINY2, "--time-limit", "5", "--out"],
}


@pytest.mark.parametrize("command", OUTPUT_COMMANDS, ids=list(OUTPUT_COMMANDS))
def test_output_into_a_missing_folder(command, tmp_path):
    target = tmp_path / "no" / "such" / "folder" / "out.csv"
    if command == "solve --export":
        target = target.with_suffix(".mps")
    done = run_cli(*OUTPUT_COMMANDS[command], str(target))
    err = assert_one_line(done, 2, str(target), "does not exist")
    assert "[1/" not in err  # gap: refused before anything is solved
    assert not (tmp_path / "no").exists()


@pytest.mark.parametrize("command", ["simulate --out", "solve --export"])
def test_output_onto_a_folder(command, tmp_path):
    folder = tmp_path / "results.mps"
    folder.mkdir()
    done = run_cli(*OUTPUT_COMMANDS[command], str(folder))
    assert_one_line(done, 2, str(folder), "it is a folder")
    assert folder.is_dir() and not any(folder.iterdir())


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through permissions")
def test_output_into_a_read_only_folder(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        done = run_cli("simulate", TINY2, "--out", str(folder / "s.json"))
        assert_one_line(done, 2, str(folder / "s.json"), "permission denied")
        assert not any(folder.iterdir())
    finally:
        folder.chmod(0o700)


@pytest.mark.skipif(not os.path.isdir("/sys/kernel"), reason="needs Linux sysfs")
def test_output_onto_an_unwritable_path():
    """/sys takes no new file, for root too: refused before the run (not
    root: no write permission on the folder) or by the write itself (root:
    EACCES), with the same one line."""
    done = run_cli("simulate", TINY2, "--out", "/sys/opt-sched-test.json")
    assert_one_line(done, 2, "/sys/opt-sched-test.json: cannot write",
                    "permission denied")


def test_output_whose_folder_is_a_file(tmp_path):
    plain = tmp_path / "file"
    plain.write_text("x")
    done = run_cli("simulate", TINY2, "--out", str(plain / "s.json"))
    assert_one_line(done, 2, str(plain / "s.json"), "is not a folder")


# -- a full disk (in-process: os.write / os.fsync raise ENOSPC) --------------------
def _full_disk(monkeypatch, where: str = "write") -> None:
    def no_space(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, where, no_space)


@pytest.mark.parametrize("where", ["write", "fsync"])
@pytest.mark.parametrize("command", [
    ["simulate", TINY2, "--out"],
    ["compare", DEPS5, "--out"],
    ["gap", TINY2, "--time-limit", "5", "--quiet", "--out"],
    ["generate", "--protocol", "tucan", "--out"],
], ids=["simulate", "compare", "gap", "generate"])
def test_full_disk_is_one_line_and_keeps_the_old_file(command, where, tmp_path,
                                                      monkeypatch, capsys):
    target = tmp_path / "out.csv"
    target.write_text("previous complete content\n")
    _full_disk(monkeypatch, where)
    code = main([*command, str(target)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith(f"opt-sched: error: {target}: cannot write"), err
    assert "no space left" in err.lower() and err.count("\n") == 1, err
    assert target.read_text() == "previous complete content\n"
    assert leftovers(tmp_path) == [] and pending_temporaries() == []


def test_full_disk_without_a_previous_file_leaves_nothing(tmp_path, monkeypatch,
                                                          capsys):
    _full_disk(monkeypatch)
    assert main(["simulate", TINY2, "--out", str(tmp_path / "s.json")]) == 2
    assert "No space left on device" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


# -- the helper itself -------------------------------------------------------------
def test_atomic_write_replaces_whole_and_keeps_mode(tmp_path):
    target = tmp_path / "a.txt"
    atomic_write_text(target, "one\n")
    assert target.read_text() == "one\n"
    umask = os.umask(0)
    os.umask(umask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask
    target.chmod(0o640)
    atomic_write_bytes(target, b"two\n")
    assert target.read_bytes() == b"two\n"
    assert target.stat().st_mode & 0o777 == 0o640  # an existing file keeps its mode
    assert leftovers(tmp_path) == []


def test_atomic_write_of_a_large_payload_is_complete(tmp_path):
    payload = os.urandom(3 * 2**20 + 17)  # several os.write calls on some systems
    atomic_write_bytes(tmp_path / "big.bin", payload)
    assert (tmp_path / "big.bin").read_bytes() == payload


def test_a_failing_write_midway_leaves_the_old_file(tmp_path, monkeypatch):
    """The first chunk is written, the second fails: the target is untouched."""
    target = tmp_path / "t.csv"
    target.write_text("old\n")
    real_write = os.write
    calls = []

    def write_once(fd, data):
        calls.append(len(data))
        if len(calls) > 1:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, bytes(data[:10]))

    monkeypatch.setattr(os, "write", write_once)
    with pytest.raises(OutputError, match="No space left on device"):
        atomic_write_text(target, "x" * 100)
    assert len(calls) == 2
    assert target.read_text() == "old\n"
    assert leftovers(tmp_path) == []


def test_atomic_path_for_writers_that_want_a_path(tmp_path):
    target = tmp_path / "model.mps"
    with atomic_path(target) as temporary:
        assert temporary.suffix == ".mps" and temporary.parent == tmp_path
        assert not target.exists()  # nothing visible before the end
        temporary.write_text("NAME x\n")
    assert target.read_text() == "NAME x\n"
    with pytest.raises(RuntimeError), atomic_path(target) as temporary:
        temporary.write_text("half")
        raise RuntimeError("the writer failed")
    assert target.read_text() == "NAME x\n"
    with atomic_path(target, required=False):
        pass  # the writer wrote nothing: the old file stays
    assert target.read_text() == "NAME x\n"
    with pytest.raises(OutputError, match="produced no file"), atomic_path(target):
        pass
    assert leftovers(tmp_path) == []


def test_check_writable_names_the_reason(tmp_path):
    assert check_writable(tmp_path / "x.csv") == tmp_path / "x.csv"
    with pytest.raises(OutputError, match="does not exist"):
        check_writable(tmp_path / "missing" / "x.csv")
    with pytest.raises(OutputError, match="it is a folder"):
        check_writable(tmp_path)


def test_io_writers_are_atomic(tmp_path, monkeypatch):
    inst = read_instance(TINY2)
    path = tmp_path / "i.json"
    write_instance(inst, path)
    assert read_instance(path) == inst
    from opt_sched.simulation import simulate

    schedule = simulate(inst)
    write_schedule(schedule, tmp_path / "s.json", inst)
    before = (tmp_path / "s.json").read_text()
    _full_disk(monkeypatch)
    with pytest.raises(OutputError, match="No space left on device"):
        write_instance(inst, path)
    with pytest.raises(OutputError, match="No space left on device"):
        write_schedule(schedule, tmp_path / "s.json", inst)
    assert read_instance(path) == inst
    assert (tmp_path / "s.json").read_text() == before
    assert leftovers(tmp_path) == []


def test_outputs_keep_full_precision(tmp_path, capsys):
    """The CSV file and ``--json`` carry the library's values to the last
    bit; only the table for people rounds."""
    import pandas as pd

    from opt_sched.experiments.compare import compare

    expected = compare(read_instance(DEPS5)).to_dict(orient="records")
    csv_path = tmp_path / "c.csv"
    assert main(["compare", DEPS5, "--out", str(csv_path), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    from_csv = pd.read_csv(csv_path).to_dict(orient="records")
    assert len(expected) == len(from_csv) == len(printed)
    for mine, *theirs in zip(expected, from_csv, printed):
        for row in theirs:
            for key in ("makespan", "max_stretch", "mean_pack_max_stretch", "gap"):
                assert row[key] == mine[key], key  # float repr round-trips
