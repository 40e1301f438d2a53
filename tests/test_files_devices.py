"""Outputs onto devices and FIFOs (issue 24): written in place, never
replaced by a rename; a full device fails like a full disk.

Every device is a node made in the test's own folder (``mknod``, needs
root or ``CAP_MKNOD``): 1,3 behaves as ``/dev/null``, 1,7 as ``/dev/full``.
The machine's own ``/dev`` is never touched.
"""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from opt_sched.cli.rows import RowFile
from opt_sched.errors import OutputError
from opt_sched.files import (
    atomic_path,
    atomic_write_bytes,
    atomic_write_text,
    check_writable,
    pending_temporaries,
    writes_in_place,
)
from opt_sched.rows_file import RowsFile
from opt_sched.workflows import catalog_workflow, write_manifest

pytestmark = pytest.mark.skipif(not hasattr(os, "mknod") or not hasattr(os, "mkfifo"),
                                reason="device nodes and FIFOs are POSIX")

NULL, FULL = ((os.makedev(1, 3), os.makedev(1, 7)) if hasattr(os, "makedev")
              else (0, 0))  # (1,3) behaves as /dev/null, (1,7) as /dev/full


def make_device(path: Path, device: int) -> Path:
    """A character device node at ``path`` (skips without the right to
    make one)."""
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, device)
    except PermissionError:
        pytest.skip("making a device node needs CAP_MKNOD")
    return path


def is_device(path: Path) -> bool:
    return stat.S_ISCHR(os.lstat(path).st_mode)


def others(folder: Path, *keep: Path) -> list[str]:
    """Files of ``folder`` other than ``keep`` (leftover temporaries)."""
    return sorted(p.name for p in folder.iterdir() if p not in keep)


def read_fifo_while(fifo: Path, write: Callable[[], None]) -> bytes:
    """Run ``write`` (which writes into ``fifo``) while a thread reads the
    FIFO to its end; the bytes read."""
    received: list[bytes] = []

    def reader() -> None:
        with open(fifo, "rb") as handle:
            received.append(handle.read())

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    write()
    thread.join(timeout=10)
    assert not thread.is_alive(), "the FIFO reader never saw the end"
    return received[0]


def test_a_null_device_stays_a_device(tmp_path):
    node = make_device(tmp_path / "out.json", NULL)
    assert writes_in_place(node)
    atomic_write_text(node, "{}\n" * 1000)
    assert is_device(node) and os.stat(node).st_rdev == NULL
    assert others(tmp_path, node) == [] and pending_temporaries() == []


def test_a_full_device_fails_with_the_path_and_the_os_reason(tmp_path):
    node = make_device(tmp_path / "out.csv", FULL)
    with pytest.raises(OutputError) as caught:
        atomic_write_bytes(node, b"a,b\n1,2\n")
    message = str(caught.value)
    assert message == f"{node}: cannot write: No space left on device"
    assert "\n" not in message
    assert is_device(node) and others(tmp_path, node) == []


def test_atomic_path_copies_into_the_device_and_removes_its_temporary(tmp_path):
    node = make_device(tmp_path / "chart.png", NULL)
    with atomic_path(node) as temporary:
        assert temporary.suffix == ".png"  # the writer still picks the format
        assert temporary.parent != tmp_path  # beside /dev no file can be made
        temporary.write_bytes(b"\x89PNG" + bytes(5000))
    assert is_device(node) and not temporary.exists()
    assert pending_temporaries() == [] and others(tmp_path, node) == []


def test_atomic_path_onto_a_full_device_fails_and_cleans_up(tmp_path):
    node = make_device(tmp_path / "chart.png", FULL)
    with pytest.raises(OutputError, match="No space left on device"), \
            atomic_path(node) as temporary:
        temporary.write_bytes(b"picture")
    assert is_device(node) and not temporary.exists()
    assert pending_temporaries() == []


def test_a_fifo_receives_the_whole_content_once(tmp_path):
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    payload = os.urandom(200_000)  # more than a pipe's buffer
    got = read_fifo_while(fifo, lambda: atomic_write_bytes(fifo, payload))
    assert got == payload and stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert others(tmp_path, fifo) == []


def test_a_link_to_a_regular_file_stays_a_link(tmp_path):
    real = tmp_path / "real.json"
    real.write_text("old\n")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    atomic_write_text(link, "new\n")
    with atomic_path(link) as temporary:
        temporary.write_text("newer\n")
    assert link.is_symlink() and real.read_text() == "newer\n"
    assert others(tmp_path, real, link) == []


def test_check_writable_accepts_a_device_and_refuses_a_folder(tmp_path):
    node = make_device(tmp_path / "out.csv", NULL)
    assert check_writable(node) == node
    assert not writes_in_place(tmp_path) and not writes_in_place(tmp_path / "x")
    with pytest.raises(OutputError, match="it is a folder"):
        check_writable(tmp_path)
    with pytest.raises(OutputError, match=r"^'': cannot write: the file name is empty"):
        check_writable("")  # not '.: it is a folder'


def test_check_writable_of_a_device_ignores_its_folder(tmp_path, monkeypatch):
    """``/dev`` takes no new files for a user, yet ``/dev/null`` can be
    written: only the device's own permission counts."""
    node = make_device(tmp_path / "out.csv", NULL)
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda path, mode: (
        Path(path) != tmp_path and real_access(path, mode)))
    assert check_writable(node) == node
    with pytest.raises(OutputError, match="permission denied"):
        check_writable(tmp_path / "new.csv")


def test_row_file_writes_a_fifo_once_and_never_reads_it(tmp_path):
    """Rewriting after every row would send the table again and again into
    a FIFO, and reading a FIFO back (for the Ctrl-C line) would block."""
    fifo = tmp_path / "rows.csv"
    os.mkfifo(fifo)
    with RowFile(fifo) as rows:
        rows.add({"x": 1})
        rows.add({"x": 2})
        assert rows.rows_on_disk() == 0
        assert "not written" in rows.summary()
        got = read_fifo_while(fifo, lambda: rows.replace([{"x": 1}, {"x": 2}]))
        assert rows.rows_on_disk() == 2
    assert got.decode().splitlines() == ["x", "1", "2"]


def test_rows_file_writes_a_fifo_once(tmp_path):
    fifo = tmp_path / "gap.csv"
    os.mkfifo(fifo)
    sink = RowsFile(fifo, ["a", "b"])  # no header yet: it would be sent twice
    sink.add([{"a": 1, "b": 2}])
    got = read_fifo_while(fifo, lambda: sink.replace([{"a": 1, "b": 2}]))
    assert got.decode().splitlines() == ["a,b", "1,2"]


def test_rows_file_on_a_full_device_fails_at_the_end(tmp_path):
    node = make_device(tmp_path / "gap.csv", FULL)
    sink = RowsFile(node, ["a"])
    sink.add([{"a": 1}])
    with pytest.raises(OutputError, match="No space left on device"):
        sink.replace([{"a": 1}])
    assert is_device(node)


def test_a_manifest_goes_through_the_atomic_writer(tmp_path):
    node = make_device(tmp_path / "wf.json", FULL)
    with pytest.raises(OutputError, match=f"{node}: cannot write: No space left"):
        write_manifest(catalog_workflow("montage"), node)
    assert is_device(node) and others(tmp_path, node) == []
