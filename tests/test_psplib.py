"""PSPLIB reader and the planning model on j30 (``../shared/data/psplib``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from opt_sched import read_instance
from opt_sched.errors import InstanceError
from opt_sched.psplib_reader import load_optimum_csv, read_psplib

J30 = Path(__file__).resolve().parents[2] / "shared" / "data" / "psplib" / "j30"
needs_j30 = pytest.mark.skipif(not J30.is_dir(),
                               reason=f"PSPLIB data folder {J30} is absent")

SM = """\
************************************************************************
PRECEDENCE RELATIONS:
jobnr.    #modes  #successors   successors
   1        1          2           2   3
   2        1          1           4
   3        1          1           4
   4        1          0
************************************************************************
REQUESTS/DURATIONS:
jobnr. mode duration  R 1  R 2
------------------------------------------------------------------------
  1      1     0       0    0
  2      1     3       2    1
  3      1     2       2    0
  4      1     0       0    0
************************************************************************
RESOURCEAVAILABILITIES:
  R 1  R 2
    3    1
************************************************************************
"""


def test_read_tiny_sm(tmp_path: Path) -> None:
    path = tmp_path / "tiny.sm"
    path.write_text(SM)
    inst = read_instance(path)  # dispatches .sm to read_psplib
    assert inst.name == "tiny"
    assert [j.id for j in inst.jobs] == ["2", "3"]  # dummies dropped
    assert inst.platform.resource_capacity == {"R1": 3.0, "R2": 1.0}
    a, b = inst.jobs
    assert (a.nodes, a.compute, a.io_volume) == (0, (3.0,), (0.0,))
    assert a.demand == {"R1": 2.0, "R2": 1.0} and b.demand == {"R1": 2.0}
    assert a.after == () and b.after == ()


def test_bad_sm_is_one_line_instance_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.sm"
    path.write_text("this is not psplib\n")
    with pytest.raises(InstanceError) as err:
        read_psplib(path)
    message = str(err.value)
    assert "\n" not in message and "bad.sm" in message
    with pytest.raises(InstanceError, match="no such file"):
        read_psplib(tmp_path / "missing.sm")


def test_demand_over_capacity_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "over.sm"
    path.write_text(SM.replace("    3    1\n", "    1    1\n"))
    with pytest.raises(InstanceError, match=r"over.sm: .*demands.R1=2 exceeds"):
        read_psplib(path)


def test_load_optimum_csv(tmp_path: Path) -> None:
    good = tmp_path / "optimum.csv"
    good.write_text("problem,optimum\nj301_1.sm,43\nj301_2.sm,47\n")
    assert load_optimum_csv(good) == {"j301_1": 43.0, "j301_2": 47.0}
    bad = tmp_path / "bad.csv"
    bad.write_text("problem,optimum\nj301_1.sm,x\n")
    with pytest.raises(InstanceError, match="line 2: optimum='x'"):
        load_optimum_csv(bad)
    other = tmp_path / "other.csv"
    other.write_text("problem,value\nj301_1.sm,43\n")
    with pytest.raises(InstanceError, match="missing column 'optimum'"):
        load_optimum_csv(other)


@needs_j30
def test_read_j301_1() -> None:
    inst = read_psplib(J30 / "j301_1.sm")
    assert inst.num_jobs == 30
    assert inst.platform.resource_capacity == {"R1": 12, "R2": 13, "R3": 4, "R4": 12}
    assert inst.job("31").after == ("26", "28")  # predecessors of activity 31


@needs_j30
@pytest.mark.parametrize("name", ["j301_1", "j301_2", "j3010_3", "j3020_5",
                                  "j3048_10"])
def test_cpsat_reaches_psplib_optimum(name: str) -> None:
    from opt_sched.exact.planning import solve_planning
    from opt_sched.validation import validate

    optimum = load_optimum_csv(J30 / "optimum.csv")[name]
    inst = read_psplib(J30 / f"{name}.sm")
    result = solve_planning(inst, time_limit=15, num_workers=2)
    assert validate(inst, result.schedule).feasible
    assert result.objective == optimum
    assert str(result.status) == "optimal"
    assert result.lower_bound == optimum
    assert result.info["planned_makespan"] == optimum  # no I/O: plan == execution


@needs_j30
def test_cbc_reaches_psplib_optimum() -> None:
    from opt_sched.exact.planning import solve_planning

    optimum = load_optimum_csv(J30 / "optimum.csv")["j301_1"]
    result = solve_planning(read_psplib(J30 / "j301_1.sm"), solver="cbc",
                            time_limit=15)
    assert result.objective == optimum and str(result.status) == "optimal"


@needs_j30
def test_bench_psplib_table() -> None:
    import importlib.util

    script = Path(__file__).resolve().parents[1] / "scripts" / "bench_psplib.py"
    spec = importlib.util.spec_from_file_location("bench_psplib", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    bench_psplib = module.bench_psplib

    table = bench_psplib(J30, time_limit=5, limit=3)
    assert list(table["instance"]) == ["j301_1", "j301_2", "j301_3"]
    assert table["matches"].all() and table["proven"].all()
