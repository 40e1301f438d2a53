"""The data model rejects bad input with one line naming the field."""

from __future__ import annotations

import json
import math

import pytest

from opt_sched import (
    Instance,
    InstanceError,
    Job,
    Partition,
    Platform,
    instance_from_dict,
    instance_to_dict,
    read_instance,
)

from .conftest import bundled_instance_paths


def base() -> dict:
    return {"name": "t", "platform": {"partitions": 1, "nodes": 2048, "bandwidth": 1.0},
            "jobs": [{"id": "a", "nodes": 64, "compute": 32, "io_volume": 10,
                      "iterations": 3},
                     {"id": "b", "nodes": 8, "release": 5,
                      "phases": [{"compute": 5, "io_volume": 2},
                                 {"compute": 7, "io_volume": 0}]}]}


def rejects(data: dict, *fragments: str) -> str:
    with pytest.raises(InstanceError) as info:
        instance_from_dict(data)
    message = str(info.value)
    assert "\n" not in message
    for fragment in fragments:
        assert fragment in message, message
    return message


def test_the_issue_example_loads_with_derived_quantities():
    inst = instance_from_dict(base())
    a, b = inst.jobs
    assert a.iterations == 3 and a.is_periodic
    assert a.length(1.0) == pytest.approx(3 * 42)
    assert a.length(2.0) == pytest.approx(3 * 37)
    assert b.compute == (5.0, 7.0) and b.io_volume == (2.0, 0.0)
    assert b.release == 5 and not b.is_periodic
    assert b.total_volume == 2 and b.length(1.0) == 14
    assert a.average_bandwidth(1.0) == pytest.approx(30 / 126)
    # alpha = P sum V/b / sum Q T  (seed 003 eq. 6)
    assert inst.io_load() == pytest.approx(2048 * (30 + 2) / (64 * 126 + 8 * 14))


def test_wider_than_every_partition_names_job_and_max():
    data = base()
    data["jobs"][0]["id"] = "a7"
    data["jobs"][0]["nodes"] = 4096
    msg = rejects(data, "job 'a7'", "nodes=4096", "max 2048")
    assert msg.endswith("nodes=4096 exceeds every partition (max 2048)")


@pytest.mark.parametrize("field,value,fragment", [
    ("compute", -1, "compute[0]=-1 must be >= 0"),
    ("compute", float("nan"), "compute[0]=nan is not finite"),
    ("io_volume", -2.5, "io_volume[0]=-2.5 must be >= 0"),
    ("release", -3, "release=-3 must be >= 0"),
    ("nodes", 1.5, "nodes=1.5 is not an integer"),
    ("nodes", -1, "nodes=-1 must be >= 0"),
    ("iterations", 0, "iterations=0 must be an integer >= 1"),
    ("walltime", 0, "walltime=0 must be > 0"),
    ("compute", "ten", "compute[0]='ten' is not a number"),
    ("partition", 3, "partition=3 does not exist"),
])
def test_bad_job_fields(field, value, fragment):
    data = base()
    data["jobs"][0][field] = value
    rejects(data, "job 'a'", fragment)


def test_missing_field():
    data = base()
    del data["jobs"][0]["nodes"]
    rejects(data, "job 'a'", "missing field 'nodes'")
    data = base()
    del data["platform"]
    rejects(data, "instance", "missing field 'platform'")


def test_unknown_keys_are_rejected_not_ignored():
    data = base()
    data["jobs"][1]["io_volum"] = 3
    rejects(data, "job 'b'", "unknown key 'io_volum'")
    data = base()
    data["platform"]["bandwith"] = 2
    rejects(data, "platform", "unknown key 'bandwith'")
    data = base()
    data["extra"] = 1
    rejects(data, "unknown key 'extra'")


def test_duplicate_ids():
    data = base()
    data["jobs"][1]["id"] = "a"
    rejects(data, "job 'a'", "duplicate id")


def test_unknown_dependency_and_cycle():
    data = base()
    data["jobs"][0]["after"] = ["zz"]
    rejects(data, "job 'a'", "unknown job 'zz'")
    data = base()
    data["jobs"][0]["after"] = ["b"]
    data["jobs"][1]["after"] = ["a"]
    msg = rejects(data, "dependency cycle")
    assert "a -> b -> a" in msg or "b -> a -> b" in msg


def test_phases_and_periodic_keys_are_exclusive():
    data = base()
    data["jobs"][1]["compute"] = 3
    rejects(data, "job 'b'", "either 'phases' or 'compute'")


def test_numeric_id_is_rejected_with_a_hint():
    data = base()
    data["jobs"][0]["id"] = 7
    rejects(data, "id=7 must be a string")


def test_negative_bandwidth_and_heterogeneous_platform():
    data = base()
    data["platform"]["bandwidth"] = -1
    rejects(data, "platform", "bandwidth=-1 must be > 0")
    data = base()
    data["platform"] = {"partitions": [{"nodes": 32, "bandwidth": 2.0},
                                       {"nodes": 64}]}
    inst = instance_from_dict(data)
    assert inst.platform.partitions == (Partition(32, 2.0), Partition(64, 1.0))
    assert not inst.platform.is_homogeneous
    data["platform"]["nodes"] = 4
    rejects(data, "'nodes' must go inside each partition")


def test_premapped_job_must_fit_its_partition():
    data = base()
    data["platform"] = {"partitions": [{"nodes": 32}, {"nodes": 128}]}
    data["jobs"][0]["partition"] = 0
    rejects(data, "job 'a'", "exceeds its partition 0 (32 nodes)")


def test_demands_need_declared_resources():
    data = base()
    data["jobs"][0]["demands"] = {"burst_buffer": 3}
    rejects(data, "job 'a'", "demands.burst_buffer names no platform resource")
    data["platform"]["resources"] = {"burst_buffer": 2}
    rejects(data, "demands.burst_buffer=3 exceeds the capacity 2")


def test_records_check_themselves():
    with pytest.raises(InstanceError, match="nodes=0 must be >= 1"):
        Partition(0)
    with pytest.raises(InstanceError, match=r"iterations=0"):
        Job("x", 1, (), ())
    with pytest.raises(InstanceError, match=r"2 compute phases but 1 I/O"):
        Job("x", 1, (1, 2), (1,))
    with pytest.raises(InstanceError, match="jobs is empty"):
        Instance("e", Platform.homogeneous(), ())


def test_file_errors_name_the_file(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(InstanceError, match=r"bad.json: not valid JSON \(line 1"):
        read_instance(bad)
    with pytest.raises(InstanceError, match=r"nope\.json: no such file"):
        read_instance(tmp_path / "nope.json")
    data = base()
    data["jobs"][0]["nodes"] = 9999
    bad.write_text(json.dumps(data))
    with pytest.raises(InstanceError, match=r"^.*bad.json: job 'a': nodes=9999"):
        read_instance(bad)


@pytest.mark.parametrize("path", bundled_instance_paths(), ids=lambda p: p.stem)
def test_bundled_instances_round_trip_and_match_schema(path):
    import jsonschema
    schema = json.loads((path.parent / "schemas" / "instance.schema.json").read_text())
    raw = json.loads(path.read_text())
    jsonschema.validate(raw, schema)
    inst = read_instance(path)
    again = instance_to_dict(inst)
    jsonschema.validate(again, schema)
    assert instance_from_dict(again) == inst


def test_schema_rejects_what_the_loader_rejects():
    import jsonschema

    from .conftest import INSTANCES

    schema = json.loads((INSTANCES / "schemas" / "instance.schema.json").read_text())
    for mutate in (lambda d: d["jobs"][0].update(compute=-1),
                   lambda d: d["jobs"][0].update(colour="red"),
                   lambda d: d["jobs"][1].update(compute=3),
                   lambda d: d["platform"].pop("nodes"),
                   # the limits of opt_sched/limits.py are in the schema too
                   lambda d: d["jobs"][0].update(release=1e308),
                   lambda d: d["jobs"][0].update(iterations=10**12),
                   lambda d: d["platform"].update(bandwidth=5e-324),
                   lambda d: d["platform"].update(nodes=2**64)):
        data = base()
        mutate(data)
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(data, schema)
        with pytest.raises(InstanceError):
            instance_from_dict(data)


def test_tucan5_is_table_1_of_seed_003(tucan5):
    cpu = [32, 16, 8, 8, 16]
    io = [10, 5, 2.5, 2.5, 5]
    its = [250, 500, 1000, 1000, 500]
    for job, w, v, n in zip(tucan5.jobs, cpu, io, its):
        assert (job.compute[0], job.io_volume[0], job.iterations) == (w, v, n)
        # "the total execution load is the same for all the applications"
        assert job.length(1.0) == pytest.approx(n * (w + v))
    assert len({j.length(1.0) for j in tucan5.jobs}) == 1
    assert math.isclose(tucan5.jobs[0].length(1.0), 10500)


def test_subset_and_mapping(tiny2):
    sub = tiny2.subset(["b"])
    assert [j.id for j in sub.jobs] == ["b"]
    unmapped = tiny2.with_jobs(
        [Job(j.id, j.nodes, j.compute, j.io_volume) for j in tiny2.jobs])
    assert not unmapped.is_mapped
    assert unmapped.mapped_to({"a": 0, "b": 0}).is_mapped


def test_only_instances_match_the_instances_glob():
    """``opt-sched gap instances/*.json`` must see instances only: the JSON
    schemas live in ``instances/schemas/``."""
    from .conftest import INSTANCES

    for path in sorted(INSTANCES.glob("*.json")):
        read_instance(path)  # raises on a file that is not an instance
    assert (INSTANCES / "schemas" / "instance.schema.json").is_file()
    assert (INSTANCES / "schemas" / "schedule.schema.json").is_file()


# -- limits (opt_sched/limits.py) -----------------------------------------------
@pytest.mark.parametrize("mutate,fragments", [
    (lambda d: d["jobs"][0].update(release=1e308),
     ("job 'a'", "release=1e+308", "exceeds the limit 1e+15")),
    (lambda d: d["jobs"][0].update(compute=1e16),
     ("job 'a'", "compute[0]=1e+16", "exceeds the limit 1e+15")),
    (lambda d: d["jobs"][1]["phases"][1].update(io_volume=2e15),
     ("job 'b'", "io_volume[1]=2000000000000000.0", "exceeds the limit")),
    (lambda d: d["jobs"][0].update(walltime=1e300),
     ("walltime=1e+300", "exceeds the limit")),
    # an integer beyond int64 (and beyond float: float(10**400) overflows)
    (lambda d: d["jobs"][0].update(compute=10**400),
     ("compute[0]=", "401 characters", "exceeds the limit")),
    (lambda d: d["jobs"][0].update(nodes=2**64),
     ("nodes=18446744073709551616", "exceeds the limit 1,000,000,000")),
    (lambda d: d["jobs"][0].update(partition=2**70),
     ("partition=", "exceeds the limit 1,000,000,000")),
    (lambda d: d["platform"].update(nodes=2**63),
     ("platform", "nodes=9223372036854775808", "exceeds the limit")),
    (lambda d: d["platform"].update(partitions=10**12),
     ("platform", "partitions=1000000000000", "exceeds the limit 100,000")),
    # subnormal and tiny bandwidths: v / b would overflow
    (lambda d: d["platform"].update(bandwidth=5e-324),
     ("platform", "bandwidth=5e-324", "below the limit 1e-12")),
    (lambda d: d["platform"].update(bandwidth=1e-13),
     ("bandwidth=1e-13", "below the limit 1e-12")),
    (lambda d: d["jobs"][0].update(compute=5e-324),
     ("compute[0]=5e-324", "below the limit 2.22507e-308")),
    # 10^12 iterations: refused before any list is built
    (lambda d: d["jobs"][0].update(iterations=10**12),
     ("job 'a'", "iterations=1,000,000,000,000", "exceeds the limit 10,000,000")),
], ids=["release-1e308", "compute-1e16", "volume-2e15", "walltime", "int-10^400",
        "nodes-2^64", "partition-2^70", "platform-nodes", "partitions-10^12",
        "bandwidth-subnormal", "bandwidth-1e-13", "compute-subnormal",
        "iterations-10^12"])
def test_numbers_beyond_the_limits_are_one_line_errors(mutate, fragments):
    data = base()
    mutate(data)
    rejects(data, *fragments)


def test_values_at_the_limits_are_accepted():
    data = base()
    data["jobs"][0].update(release=1e15, compute=1e15, nodes=64)
    data["platform"]["bandwidth"] = 1e-12
    inst = instance_from_dict(data)
    # v / b = 10 / 1e-12 = 1e13 per I/O phase: finite
    assert math.isfinite(inst.jobs[0].length(1e-12))
    assert inst.jobs[0].release == 1e15


def test_total_phases_are_capped_before_building(monkeypatch):
    """The per-instance cap is checked on the declared counts, before the
    ``[w] * iterations`` lists exist (a smaller cap keeps the test light)."""
    from opt_sched import json_files as io_module

    monkeypatch.setattr(io_module, "MAX_TOTAL_PHASES", 4)
    data = base()  # job a: 3 iterations, job b: 2 phases -> 5 > 4
    rejects(data, "jobs[0..1] already have 5 phases", "above the limit 4")
    monkeypatch.setattr(io_module, "MAX_TOTAL_PHASES", 5)
    assert instance_from_dict(data).num_io_phases == 5


def test_records_refuse_absurd_counts():
    with pytest.raises(InstanceError, match="iterations=10000000001 exceeds"):
        Job.periodic("x", 1, 1.0, 1.0, iterations=10**10 + 1)
    with pytest.raises(InstanceError, match="partitions=1000001 exceeds the limit"):
        Platform.homogeneous(10**6 + 1)
    with pytest.raises(InstanceError, match="nodes=1000000000000 exceeds"):
        Partition(10**12)


def test_deeply_nested_json_is_one_line(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(InstanceError,
                       match=r"deep\.json: JSON nested too deeply") as info:
        read_instance(deep)
    assert "\n" not in str(info.value)
    deep.write_text('{"name": ' + "{\"a\": " * 50_000 + "1" + "}" * 50_000 + "}")
    with pytest.raises(InstanceError, match="nested too deeply"):
        read_instance(deep)


def test_duplicate_keys_and_huge_literals_are_refused(tmp_path):
    path = tmp_path / "dup.json"
    path.write_text('{"name": "a", "name": "b", "platform": {}, "jobs": []}')
    with pytest.raises(InstanceError, match=r"dup\.json: key 'name' appears twice"):
        read_instance(path)
    text = json.dumps(base()).replace('"compute": 32', '"compute": ' + "9" * 5000)
    path.write_text(text)
    with pytest.raises(InstanceError, match=r"dup.json: not valid JSON \(Exceeds"):
        read_instance(path)
