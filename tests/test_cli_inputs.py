"""Absurd inputs from a real process: one line naming the field and the limit,
exit status 2, never a traceback (issue 8, point 7)."""

from __future__ import annotations

import json

import pytest

from opt_sched.cli import main

from .conftest import INSTANCES
from .test_cli import run_cli
from .test_cli_outputs import assert_one_line


def tiny2() -> dict:
    return json.loads((INSTANCES / "tiny2.json").read_text())


def _release(d):
    d["jobs"][0]["release"] = 1e308


def _int_beyond_int64(d):
    d["jobs"][0]["nodes"] = 2**64 + 1


def _volume_beyond_float(d):
    d["jobs"][1]["io_volume"] = 10**400


def _subnormal_bandwidth(d):
    d["platform"]["bandwidth"] = 5e-324


def _iterations(d):
    d["jobs"][0]["iterations"] = 10**12


CASES = {
    "release-1e308": (_release, ["job 'a'", "release=1e+308",
                                 "exceeds the limit 1e+15"]),
    "nodes-beyond-int64": (_int_beyond_int64, ["job 'a'", "nodes=18446744073709551617",
                                               "exceeds the limit 1,000,000,000"]),
    "volume-10^400": (_volume_beyond_float, ["job 'b'", "io_volume[0]=",
                                             "exceeds the limit 1e+15"]),
    "subnormal-bandwidth": (_subnormal_bandwidth, ["platform", "bandwidth=5e-324",
                                                   "below the limit 1e-12"]),
    "iterations-10^12": (_iterations, ["job 'a'", "iterations=1,000,000,000,000",
                                       "exceeds the limit 10,000,000"]),
}


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_numbers_beyond_the_limits(case, tmp_path):
    mutate, fragments = CASES[case]
    data = tiny2()
    mutate(data)
    path = tmp_path / "absurd.json"
    path.write_text(json.dumps(data))
    done = run_cli("simulate", str(path))
    assert_one_line(done, 2, f"{path}: ", *fragments)


def test_json_nested_100000_deep(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text('{"jobs": ' + "[" * 100_000 + "]" * 100_000 + "}")
    done = run_cli("bounds", str(path))
    assert_one_line(done, 2, f"{path}: JSON nested too deeply", "levels")


def test_duplicate_key_in_an_instance(tmp_path):
    path = tmp_path / "dup.json"
    text = json.dumps(tiny2()).replace('"nodes": 2,', '"nodes": 2, "nodes": 3,', 1)
    path.write_text(text)
    done = run_cli("bounds", str(path))
    assert_one_line(done, 2, f"{path}: key 'nodes' appears twice")


@pytest.mark.parametrize("args,fragment", [
    (["solve", str(INSTANCES / "tiny2.json"), "--seed", str(2**70)],
     "argument --seed"),
    (["gap", str(INSTANCES / "tiny2.json"), "--time-limit", "nan"],
     "argument --time-limit"),
    (["gap", str(INSTANCES / "tiny2.json"), "--workers", "0"], "argument --workers"),
])
def test_absurd_options(args, fragment, capsys):
    with pytest.raises(SystemExit) as info:
        main(args)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and fragment in err, err


def test_input_that_is_a_folder_or_binary(tmp_path, capsys):
    assert main(["bounds", str(tmp_path)]) == 2
    assert f"{tmp_path}: cannot read: it is a folder" in capsys.readouterr().err
    binary = tmp_path / "b.json"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    assert main(["bounds", str(binary)]) == 2
    assert f"{binary}: cannot read: not UTF-8" in capsys.readouterr().err
