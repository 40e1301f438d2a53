"""Workflow manifests (reader/writer, one-line errors), the catalog and the
geometry against Paper V's Tables 1 and 2."""

from __future__ import annotations

import json

import pytest

from opt_sched.workflows import (
    WORKFLOW_NAMES,
    ManifestError,
    Task,
    Workflow,
    catalog_workflow,
    geometry,
    group_workflow,
    read_manifest,
    workflow_from_dict,
    workflow_to_dict,
    write_manifest,
)

FIG4 = [{"tasks": [
    {"id": "SLong", "cmd": "./SLong.py", "cores": 48, "runtime": 14400.0},
    {"id": "SWide", "cmd": "./SWide.py", "cores": 480, "runtime": 3600.0,
     "deps": ["SLong"]}]}]


def test_read_the_thesis_figure4_form(tmp_path) -> None:
    path = tmp_path / "longwide.json"
    path.write_text(json.dumps(FIG4))
    wf = read_manifest(path)
    assert wf.name == "longwide"
    assert [t.id for t in wf.tasks] == ["SLong", "SWide"]
    assert wf.task("SWide").deps == ("SLong",)
    assert wf.task("SWide").requested == 3600.0


@pytest.mark.parametrize("name", WORKFLOW_NAMES)
def test_round_trip(tmp_path, name: str) -> None:
    wf = catalog_workflow(name).replace(submit=12.0, user="alice")
    path = tmp_path / f"{name}.json"
    write_manifest(wf, path)
    back = read_manifest(path)
    assert back == wf
    assert workflow_from_dict(workflow_to_dict(wf)) == wf


def test_tasks_are_put_in_topological_order() -> None:
    wf = Workflow("w", (Task("b", 1, 1.0, deps=("a",)), Task("a", 1, 1.0)))
    assert [t.id for t in wf.tasks] == ["a", "b"]


BAD = [
    ({"tasks": [{"id": "a", "cores": 1}]}, "has no 'runtime'"),
    ({"tasks": [{"id": "a", "cores": 0, "runtime": 1}]}, "cores=0"),
    ({"tasks": [{"id": "a", "cores": 1.5, "runtime": 1}]}, "cores=1.5"),
    ({"tasks": [{"id": "a", "cores": 1, "runtime": -3}]}, "runtime=-3"),
    ({"tasks": [{"id": "a", "cores": 1, "runtime": 5, "walltime": 4}]},
     "walltime=4 is below runtime=5"),
    ({"tasks": [{"id": "a", "cores": 1, "runtime": 1, "deps": ["x"]}]},
     "unknown task 'x'"),
    ({"tasks": [{"id": "a", "cores": 1, "runtime": 1, "deps": ["b"]},
                {"id": "b", "cores": 1, "runtime": 1, "deps": ["a"]}]}, "cycle"),
    ({"tasks": [{"id": "a", "cores": 1, "runtime": 1},
                {"id": "a", "cores": 1, "runtime": 1}]}, "used twice"),
    ({"tasks": [{"id": "a", "cores": 1, "runtime": 1, "mem": 4}]},
     "unknown field 'mem'"),
    ({"tasks": []}, "tasks is empty"),
    ({"jobs": []}, "unknown field 'jobs'"),
    ({"tasks": [{"id": "a", "cores": 1, "runtime": 1, "deps": "b"}]},
     "is not a list"),
]


@pytest.mark.parametrize(("data", "message"), BAD)
def test_errors_are_one_line(data, message: str) -> None:
    with pytest.raises(ManifestError) as info:
        workflow_from_dict(data, "bad")
    text = str(info.value)
    assert message in text and "\n" not in text


def test_file_errors(tmp_path) -> None:
    path = tmp_path / "x.json"
    path.write_text("{not json")
    with pytest.raises(ManifestError, match="not JSON"):
        read_manifest(path)
    with pytest.raises(ManifestError, match="cannot read"):
        read_manifest(tmp_path / "missing.json")


def test_floodplain_matches_table2_exactly() -> None:
    """Floodplain (cores, hours): S0 256x11, S1 256x1, S2 192x3, S3 10x8,
    S4 160x4, S5 8x13, S6 256x4.5: usage 2816 + 256 + 576 + 80 + 640 + 104 +
    1152 = 5624 core-h; critical path S0 -> S5 -> S4 -> S6 = 11 + 13 + 4 +
    4.5 = 32.5 h; width S0 + S1 = 512; waste 512 x 32.5 - 5624 = 11016."""
    geo = geometry(catalog_workflow("floodplain"))
    assert geo.work / 3600 == pytest.approx(5624.0)
    assert geo.critical_path / 3600 == pytest.approx(32.5)
    assert geo.width == 512
    assert geo.waste / 3600 == pytest.approx(11016.0)


def test_longwide_corrected_critical_path() -> None:
    """Table 2 prints 3 h; the manifest (Fig. 4) gives 4 h + 1 h, and
    480 x 5 h = 2400 = 672 + 1728 (requested times)."""
    for name in ("longwide", "widelong"):
        wf = catalog_workflow(name)
        geo = geometry(wf)
        assert geo.requested_path == 5 * 3600.0
        assert geo.width == 480
        requested_work = sum(t.cores * t.requested for t in wf.tasks) / 3600
        assert requested_work == pytest.approx(672.0)
        assert 480 * 5 - requested_work == pytest.approx(1728.0)


@pytest.mark.parametrize(("name", "tasks", "path_h", "cores", "usage"), [
    ("montage", 5, 7.6, 960, 375),
    ("cybershake", 5, 4.5, 721, 1145),
])
def test_real_workflows_close_to_table2(name, tasks, path_h, cores, usage) -> None:
    wf = catalog_workflow(name)
    geo = geometry(wf)
    assert wf.num_tasks == tasks
    assert geo.width == cores
    assert geo.critical_path / 3600 == pytest.approx(path_h, abs=0.05)
    assert geo.work / 3600 == pytest.approx(usage, rel=0.015)


def test_sipht_documented_deviation() -> None:
    """ScSF's sipht manifest: 12 tasks of 96 cores, width 5 x 96 = 480, a
    requested critical path S4 -> S5 -> S8 -> S6 of 1.2 h (Table 2: 9 jobs,
    384 cores; its usage + waste 580 = 483 x 1.2 fits 480 cores)."""
    wf = catalog_workflow("sipht")
    geo = geometry(wf)
    assert wf.num_tasks == 12
    assert geo.width == 480
    assert geo.requested_path / 3600 == pytest.approx(1.2, abs=0.01)


@pytest.mark.parametrize("n", [1, 2, 4, 8])
def test_table1_groups(n: int) -> None:
    """Table 1: usage / waste in core-hours (B's critical path is 2 h)."""
    a = geometry(group_workflow("A", n))
    assert (a.work / 3600, a.waste / 3600, a.critical_path / 3600) == (240 * n, 0, n)
    b = geometry(group_workflow("B", n))
    assert (b.work / 3600, b.waste / 3600, b.critical_path / 3600) == \
        (240 + 240 * n, (n - 1) * 240, 2)
    c = geometry(group_workflow("C", n))
    assert (c.work / 3600, c.waste / 3600, c.width) == \
        (240 + n * (2 * n - 1) * 240, (n - 1) * 240, 240 * n)
    assert catalog_workflow(f"b{n}") == group_workflow("B", n)


def test_nodes_of_cores() -> None:
    geo = geometry(catalog_workflow("cybershake"), cores_per_node=24)
    # 120 -> 5, 720 -> 30, 1 -> 1: width S1 alone (30) or S2 + S3 (31)
    assert geo.nodes == (5, 30, 30, 1, 1)
    assert geo.width == 31
