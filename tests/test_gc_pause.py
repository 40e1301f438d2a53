"""The collector pause of the allocation-heavy commands
(:mod:`opt_sched.gc_pause`): off inside, restored after (also when the
block raises), and an in-process ``opt-sched replay`` leaves it as it was."""

from __future__ import annotations

import gc

import pytest

from opt_sched.cli import main
from opt_sched.gc_pause import gc_paused

from .paths import shared_data_dir


def test_the_collector_is_off_inside_and_restored_after():
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():  # nested: still off, and still off after it
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError), gc_paused():
        raise RuntimeError("inside")
    assert gc.isenabled()


def test_a_disabled_collector_stays_disabled():
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_cycles_made_inside_are_collected_after():
    class Node:
        pass

    with gc_paused():
        a, b = Node(), Node()
        a.other, b.other = b, a
        del a, b
        assert any(type(obj) is Node for obj in gc.get_objects())
    gc.collect()
    assert not any(type(obj) is Node for obj in gc.get_objects())


def test_an_in_process_replay_leaves_the_collector_on(tmp_path, capsys):
    trace = shared_data_dir() / "swf" / "KTH-SP2.swf.gz"
    if not trace.is_file():
        pytest.skip(f"{trace} is absent")
    assert gc.isenabled()
    status = main(["replay", str(trace), "--scheduler", "easy", "--quiet", "--json",
                   "--time-range", "0:200000"])
    capsys.readouterr()
    assert status == 0
    assert gc.isenabled()
