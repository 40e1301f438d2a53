"""The execution model named with its options: ExecutionSpec, plans under
any model, methods, campaigns and commands with ``--execution``."""

from __future__ import annotations

import json
import pickle

import pandas as pd
import pytest

import opt_sched.validation as validation
from opt_sched import methods, read_instance, simulate
from opt_sched.campaign import load_spec
from opt_sched.campaign.spec import parse_spec
from opt_sched.errors import OptionError, SpecError
from opt_sched.execution import ExecutionSpec
from opt_sched.scheduling.execute import execute_plan
from opt_sched.simulation import PackPlan
from opt_sched.workloads import generate_ics2020
from opt_sched.workloads.goponenko import EXECUTION, goponenko_workload

from .paths import INSTANCES
from .test_campaign_sweep import run_local, write_spec
from .test_cli import run_cli

SHARED = {"model": "shared", **EXECUTION}


def test_spec_forms_normalise_to_one_value():
    a = ExecutionSpec.parse({"model": "shared", "share": "nodes", "node_rate": 1,
                             "eta": "1:1.0, 4:0.80"})
    assert a == ExecutionSpec("shared", share="nodes", node_rate=1.0, eta="1:1,4:0.8")
    assert a.identity() == {"model": "shared", "share": "nodes", "node_rate": 1.0,
                            "eta": "1:1,4:0.8"}
    assert a.label == "shared(share=nodes,node_rate=1,eta=1:1;4:0.8)"
    assert ExecutionSpec.parse(None) == ExecutionSpec.parse("exclusive") == \
        ExecutionSpec()
    assert ExecutionSpec.parse("shared").label == "shared"


@pytest.mark.parametrize("value,match", [
    ("gang", "execution='gang' is unknown"),
    ({"model": "exclusive", "eta": "1:1"}, "applies to the shared model"),
    ({"model": "shared", "share": "fair"}, "share='fair'"),
    ({"model": "shared", "node_rate": 0}, "node_rate=0"),
    ({"model": "shared", "eta": "1:2"}, "0 < eta <= 1"),
    ({"model": "shared", "speed": 2}, "speed=2 is not an option"),
    (3, "is not a model name"),
])
def test_bad_specs_are_one_line_option_errors(value, match):
    with pytest.raises(OptionError, match=match):
        ExecutionSpec.parse(value)


def test_a_plan_under_exclusive_is_the_simulator_and_under_shared_keeps_its_packs():
    inst = generate_ics2020(3.0, 1)
    plan = methods.method("make-pack(S=1)+lpt/fifo").plan(inst)
    assert isinstance(plan, PackPlan)
    assert execute_plan(inst, plan) == simulate(inst, plan, "fifo")
    shared = execute_plan(inst, plan, SHARED)
    assert shared.execution == "shared" and shared.packs == simulate(inst, plan).packs
    validation.assert_feasible(inst, shared)  # rule 6 too: it claims packs
    assert shared.method == "packs/fifo"


def test_methods_run_under_the_model_they_are_given():
    inst = goponenko_workload(2, nodes=64, repeats=1)
    runs = {}
    for spec in ("make-pack(S=1)+lpt", "easy", "herbein(limit=15,estimates=history,"
                 "pretrain=1)", "workload-adaptive(limit=20,pretrain=1)"):
        method = methods.method(spec)
        for model in ("exclusive", "shared"):
            schedule = method.run(inst, execution=SHARED if model == "shared" else None)
            validation.assert_feasible(inst, schedule)
            assert schedule.execution == model and schedule.method == method.spec
            runs[spec, model] = schedule.makespan(inst)
    assert runs["easy", "exclusive"] != runs["easy", "shared"]


def test_a_method_with_finished_schedules_refuses_another_model():
    from opt_sched.methods import MethodEntry, register, unregister

    def build(instance, method, seed):
        return simulate(instance)

    register(MethodEntry(name="fixed-test", summary="x", build=build))
    try:
        inst = read_instance(INSTANCES / "tiny2.json")
        assert methods.method("fixed-test").run(inst).execution == "exclusive"
        with pytest.raises(OptionError, match="exclusive model only"):
            methods.method("fixed-test").run(inst, execution="shared")
    finally:
        unregister("fixed-test")


SPEC = """
name = "exec"
[[groups]]
name = "ex"
instances = [{ generator = "goponenko", workload = 1, nodes = 32, repeats = 1 }]
methods = ["easy", "herbein(limit=20,estimates=history,pretrain=1)"]
[[groups]]
name = "sh"
execution = { model = "shared", share = "nodes", node_rate = 0.5, \
eta = "1:1,4:0.8,16:0.75" }
instances = [{ generator = "goponenko", workload = 1, nodes = 32, repeats = 1 }]
methods = ["easy", "herbein(limit=20,estimates=history,pretrain=1)",
           "workload-adaptive(limit=20,pretrain=1)"]
[outputs]
reports = ["goponenko"]
"""


def test_campaign_groups_run_under_their_model(tmp_path):
    spec = load_spec(write_spec(tmp_path / "s.toml", SPEC))
    ex, sh = spec.tasks[0], spec.tasks[2]
    assert ex.execution == () and "execution" not in ex.identity()
    assert dict(sh.execution)["node_rate"] == 0.5
    assert ex.method == sh.method and ex.key != sh.key
    run_local(tmp_path / "s.toml", tmp_path / "out")
    tasks = pd.read_csv(tmp_path / "out" / "tasks.csv")
    assert (tasks["status"] == "ok").all()
    assert list(tasks["execution"]) == ["exclusive"] * 2 + [
        "shared(share=nodes,node_rate=0.5,eta=1:1;4:0.8;16:0.75)"] * 3
    # the report: improvement = (M_easy - M) / M_easy within each group
    report = pd.read_csv(tmp_path / "out" / "goponenko.csv")
    for _, row in report.iterrows():
        base = tasks[(tasks["group"] == row["group"])
                     & (tasks["method"] == "easy")]["makespan"].item()
        assert row["makespan_improvement"] == pytest.approx(
            (base - row["makespan"]) / base, rel=1e-12, abs=1e-15)
    assert list(report["role"]) == ["default", "I/O-aware 20", "default",
                                    "I/O-aware 20", "workload-adaptive"]
    # the same spec run method by method gives the same makespans
    inst = goponenko_workload(1, nodes=32, repeats=1)
    for _, row in tasks.iterrows():
        model = SHARED if row["group"] == "sh" else None
        again = methods.method(row["method"]).run(inst, execution=model)
        assert again.makespan(inst) == pytest.approx(row["makespan"], rel=1e-12)


def test_campaign_default_execution_and_errors(tmp_path):
    data = {"name": "x", "groups": [{"name": "g", "methods": ["easy"], "instances": [
        {"generator": "goponenko", "workload": 1, "nodes": 32, "repeats": 1}]}]}
    plain = parse_spec(data)
    assert parse_spec(data, execution="exclusive").tasks[0].key == plain.tasks[0].key
    shared = parse_spec(data, execution="shared").tasks[0]
    assert shared.execution == (("model", "shared"),)
    # the spec's own top-level model wins over the command line's
    assert parse_spec({**data, "execution": "exclusive"},
                      execution="shared").tasks[0].key == plain.tasks[0].key
    with pytest.raises(SpecError, match=r"groups\[0\].execution: execution eta="):
        parse_spec({**data, "groups": [{**data["groups"][0], "execution": {
            "model": "exclusive", "eta": "1:1"}}]})


def test_cli_generate_replay_simulate_compare_with_shared(tmp_path):
    inst = tmp_path / "w2.json"
    done = run_cli("generate", "--protocol", "goponenko-w2", "--nodes", "64",
                   "--repeats", "1", "--out", str(inst), "--json")
    assert done.returncode == 0, done.stderr
    info = json.loads(done.stdout)
    assert info["jobs"] == 340 and info["execution"]["node_rate"] == 0.5
    done = run_cli("replay", str(inst), "--scheduler", "herbein", "--limit", "15",
                   "--pretrain", "--execution", "shared", "--share", "nodes",
                   "--node-rate", "0.5", "--eta", "1:1,4:0.8,16:0.75", "--validate",
                   "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    expected = methods.method("herbein(limit=15,estimates=history,pretrain=1)").run(
        read_instance(inst), execution=SHARED).makespan(read_instance(inst))
    assert report["execution"] == "shared"
    assert report["makespan"] == pytest.approx(expected, rel=1e-12)
    bad = run_cli("replay", str(inst), "--node-rate", "0.5")
    assert bad.returncode == 2 and "applies to the shared model" in bad.stderr
    bad = run_cli("replay", str(inst), "--scheduler", "easy", "--limit", "3")
    assert bad.returncode == 2 and "--limit applies to herbein" in bad.stderr
    tiny = str(INSTANCES / "tiny5.json")
    done = run_cli("simulate", tiny, "--execution", "shared", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["execution"] == "shared"
    done = run_cli("compare", tiny, "--execution", "shared", "--json")
    assert done.returncode == 0, done.stderr


# -- a model's own options: declared by the model, nothing listed here ---------------
class _SlowExclusive:
    """A stand-in model class declaring one option of its own."""

    name = "slow-exclusive-test"

    def __init__(self, policy: object = None, slowdown: float = 1.0) -> None:
        self.policy, self.slowdown = policy, slowdown


def _slowdown(key: str, value: object) -> float:
    from opt_sched.execution.option_values import positive_number

    return positive_number(key, value)


_SlowExclusive.OPTIONS = {"slowdown": _slowdown}


@pytest.fixture
def slow_model():
    from opt_sched.execution import EXECUTION_MODELS

    EXECUTION_MODELS[_SlowExclusive.name] = _SlowExclusive
    yield _SlowExclusive.name
    del EXECUTION_MODELS[_SlowExclusive.name]


def test_a_registered_model_takes_the_options_it_declares(slow_model):
    spec = ExecutionSpec.parse({"model": slow_model, "slowdown": 3})
    assert spec == ExecutionSpec(slow_model, slowdown=3.0)
    assert spec.options == {"slowdown": 3.0}
    assert spec.label == f"{slow_model}(slowdown=3)"
    model = spec.build()
    assert isinstance(model, _SlowExclusive) and model.slowdown == 3.0
    assert pickle.loads(pickle.dumps(spec)) == spec  # campaign workers get it
    with pytest.raises(OptionError, match="slowdown=0 must be a positive number"):
        ExecutionSpec(slow_model, slowdown=0)
    with pytest.raises(OptionError, match=r"share= applies to the shared model"):
        ExecutionSpec(slow_model, share="nodes")
    with pytest.raises(OptionError, match=r"slowdown= applies to the "
                                          rf"{slow_model} model, not to 'shared'"):
        ExecutionSpec("shared", slowdown=2)
    with pytest.raises(OptionError, match=r"speed=2 is not an option \(known: "
                                          r"model, slowdown\)"):
        ExecutionSpec(slow_model, speed=2)


def test_a_campaign_names_a_model_with_its_own_options(slow_model):
    data = {"name": "x", "execution": {"model": slow_model, "slowdown": 2},
            "groups": [{"name": "g", "methods": ["easy"], "instances": [
                {"generator": "goponenko", "workload": 1, "nodes": 32,
                 "repeats": 1}]}]}
    task = parse_spec(data).tasks[0]
    assert dict(task.execution) == {"model": slow_model, "slowdown": 2.0}
