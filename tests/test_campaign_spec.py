"""Campaign specs: expansion, one-line errors, the JSON Schema, task keys."""

from __future__ import annotations

import hashlib
import json
import math
import pickle
import re
import subprocess
import sys
from pathlib import Path

import pytest

from opt_sched.campaign import Task, load_spec, parse_spec
from opt_sched.campaign.sources import generator_source
from opt_sched.campaign.task import Limits
from opt_sched.errors import SpecError

REPO = Path(__file__).resolve().parents[1]
SCHEMA = REPO / "instances" / "schemas" / "sweep.schema.json"

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def doc_example() -> dict:
    text = (REPO / "instances" / "sweep.md").read_text(encoding="utf-8")
    block = re.search(r"```toml\n(.*?)```", text, re.S)
    assert block is not None
    return tomllib.loads(block.group(1))


def schema_errors(data: dict) -> list[str]:
    """The schema's complaints, with this installation's registry names
    filled in (:func:`opt_sched.campaign.schema.filled_schema`)."""
    from opt_sched.campaign.schema import filled_schema

    jsonschema = pytest.importorskip("jsonschema")
    schema = filled_schema(json.loads(SCHEMA.read_text()))
    validator = jsonschema.Draft202012Validator(schema)
    return [e.message for e in validator.iter_errors(data)]


def test_the_schema_lists_no_registry_by_hand():
    """Every name a registry holds is an ``x-registry`` place, filled from
    the registry: a generator, report or experiment added to a registry is
    then accepted by the filled schema with no edit to the file."""
    from opt_sched.campaign.experiments import EXPERIMENTS, Experiment
    from opt_sched.campaign.reports import REPORTS
    from opt_sched.campaign.schema import filled_schema, registry_places
    from opt_sched.campaign.sources import GENERATORS

    raw = json.loads(SCHEMA.read_text())
    marked = list(registry_places(raw))
    assert all("enum" not in node for node in marked), marked  # no hand list
    assert {n["x-registry"] for n in marked} >= {"generators", "reports",
                                                  "experiments", "execution_models"}
    spec = {"name": "x", "groups": [{
        "name": "g", "instances": [{"generator": "new-generator"}],
        "methods": ["fcfs"]}], "outputs": {"reports": ["new-report"]}}
    jsonschema = pytest.importorskip("jsonschema")
    before = [e.message for e in jsonschema.Draft202012Validator(
        filled_schema(raw)).iter_errors(spec)]
    assert before, "an unknown generator and report must be refused"
    GENERATORS["new-generator"] = GENERATORS["tucan"]
    REPORTS["new-report"] = lambda spec, rows, out: []
    EXPERIMENTS["new-experiment"] = Experiment("new-experiment", (),
                                               lambda params, seed: {})
    try:
        after = [e.message for e in jsonschema.Draft202012Validator(
            filled_schema(raw)).iter_errors(spec)]
    finally:
        del GENERATORS["new-generator"], REPORTS["new-report"]
        del EXPERIMENTS["new-experiment"]
    assert after == []


def test_documented_example_loads_and_expands_in_order():
    spec = parse_spec(doc_example(), base=REPO / "instances")
    # 4 alpha_gen (0.5..2.0 step 0.5) x 2 seeds + 1 file = 9 instances, x 3
    # methods x 1 seed = 27 group tasks, then 1 explicit task
    assert len(spec.tasks) == 28
    assert spec.groups == ("synthetic", "extra")
    first = [dict(t.source.params) for t in spec.tasks[:6:3]]
    assert first == [{"alpha_gen": 0.5, "io_nodes": 1, "n_jobs": None, "seed": 0},
                     {"alpha_gen": 0.5, "io_nodes": 1, "n_jobs": None, "seed": 1}]
    assert [t.method for t in spec.tasks[:3]] == [
        "first-fit+lpt/fifo", "make-pack(S=1)+lpt/fifo",
        "make-pack(S=alpha)+lpt/stretch"]
    assert spec.tasks[24].source.label == "tucan5.json"
    assert spec.tasks[-1].group == "extra" and spec.tasks[-1].source.params == (
        ("batch", 2.0),)
    assert all(t.limits == Limits(60.0) for t in spec.tasks)
    assert [p.name for p in spec.pivots] == ["geomean-makespan"]
    assert [f.name for f in spec.figures] == ["makespan"]


def test_documented_example_and_campaigns_satisfy_the_schema():
    assert schema_errors(doc_example()) == []
    for path in sorted((REPO / "campaigns").glob("*.toml")):
        assert schema_errors(tomllib.loads(path.read_text())) == [], path


def test_ics2020_campaign_has_the_3192_tasks_of_the_old_script():
    from opt_sched.studies.ics2020.experiment import FULL_ALPHA_GENS, TUCAN_BATCHES

    spec = load_spec(REPO / "campaigns" / "ics2020.toml")
    # Tucan 9 batches x 8 policies; synthetic 39 x 10 workloads x (4 + 2 x 2)
    assert len(spec.tasks) == 9 * 8 + 39 * 10 * 8 == 3192
    assert len({t.key for t in spec.tasks}) == 3192
    alphas = sorted({dict(t.source.params)["alpha_gen"] for t in spec.tasks
                     if t.source.generator == "ics2020"})
    assert alphas == list(FULL_ALPHA_GENS)  # the very same floats
    batches = {dict(t.source.params)["batch"] for t in spec.tasks
               if t.source.generator == "tucan"}
    assert batches == set(TUCAN_BATCHES)


def test_task_key_is_sha256_of_canonical_json_and_stable_across_processes():
    source = generator_source("tucan", {"batch": 2})
    task = Task(source, "one-pack/fifo", 3, Limits(10.0), ("lower_bound",))
    # written by hand: sorted keys, no spaces, floats in repr form
    text = ('{"instance":{"generator":"tucan","params":{"batch":2.0}},'
            '"limits":{"time_limit":10.0},"method":"one-pack/fifo",'
            '"metrics":["lower_bound"],"seed":3,"version":"opt_sched.campaign.task/1"}')
    assert task.key == hashlib.sha256(text.encode()).hexdigest()
    assert pickle.loads(pickle.dumps(task)).key == task.key
    # batch = 2 and 2.0 name the same instance; group and index are not identity
    same = Task(generator_source("tucan", {"batch": 2.0}), "one-pack/fifo", 3,
                Limits(10.0), ("lower_bound",), group="other", index=7)
    assert same.key == task.key
    code = ("from opt_sched.campaign.sources import generator_source as g;"
            "from opt_sched.campaign.task import Task, Limits;"
            "print(Task(g('tucan', {'batch': 2}), 'one-pack/fifo', 3, Limits(10.0),"
            " ('lower_bound',)).key)")
    for seed in ("1", "12345"):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True,
                             text=True,
                             env={"PYTHONHASHSEED": seed, "PYTHONPATH": str(REPO),
                                  "PATH": "/usr/bin:/bin"}, check=True)
        assert out.stdout.strip() == task.key


def test_file_source_is_keyed_by_content_not_path(tmp_path):
    src = (REPO / "instances" / "tiny5.json").read_bytes()
    (tmp_path / "a.json").write_bytes(src)
    (tmp_path / "b.json").write_bytes(src)
    data = {"name": "f", "groups": [{"name": "g", "instances": ["a.json", "b.json"],
                                     "methods": ["one-pack/fifo"]}]}
    a, b = parse_spec(data, base=tmp_path).tasks
    assert a.key == b.key and a.source.path != b.source.path


GOOD = {"name": "x", "groups": [{"name": "g",
                                 "instances": [{"generator": "tucan", "batch": 1}],
                                 "methods": ["one-pack/fifo"]}]}


def bad(path: str, value):
    """GOOD with the value at a dotted path replaced (or added)."""
    data = json.loads(json.dumps(GOOD))
    node = data
    keys = path.split(".")
    for key in keys[:-1]:
        node = node[int(key)] if key.isdigit() else node[key]
    last = keys[-1]
    node[int(last) if last.isdigit() else last] = value
    return data


@pytest.mark.parametrize(("data", "needle"), [
    (bad("name", "has space"), "name='has space'"),
    (bad("colour", "red"), "colour='red' is not a known key"),
    (bad("groups.0.methods", ["make-pack(S=0)+lpt/fifo"]),
     "groups[0].methods[0]: method spec 'make-pack(S=0)+lpt/fifo': make-pack: "
     "S='0' must be > 0"),
    (bad("groups.0.methods", ["one-pack/lifo"]), "unknown I/O policy 'lifo'"),
    (bad("groups.0.methods", ["magic"]), "unknown method 'magic'"),
    (bad("groups.0.instances", [{"generator": "tucan", "batch": "big"}]),
     "groups[0].instances[0].batch='big' must be a number"),
    (bad("groups.0.instances", [{"generator": "tucan", "size": 3}]),
     "groups[0].instances[0].size=3 is not a parameter of generator 'tucan'"),
    (bad("groups.0.instances", [{"generator": "nope"}]),
     "groups[0].instances[0].generator='nope' is unknown"),
    (bad("groups.0.instances", [{"generator": "ics2020", "alpha_gen": 1.0}]),
     "groups[0].instances[0].seed is missing"),
    (bad("groups.0.instances", [{"generator": "tucan",
                                 "batch": {"start": 2, "stop": 1}}]),
     "groups[0].instances[0].batch.stop=1 must be >= start=2"),
    (bad("groups.0.instances", ["missing.json"]),
     "groups[0].instances[0]='"),
    (bad("groups.0.seeds", [0, -1]), "groups[0].seeds[1]=-1 must be an integer >= 0"),
    (bad("groups.0.metrics", ["speed"]), "groups[0].metrics[0]='speed' is unknown"),
    (bad("limits", {"time_limit": 0}), "limits.time_limit=0 must be a number > 0"),
    (bad("outputs", {"reports": ["ics2021"]}),
     "outputs.reports[0]='ics2021' is unknown"),
    (bad("outputs", {"figures": [{"name": "f", "x": "a"}]}),
     "outputs.figures[0].y is missing"),
    ({"name": "x"}, "groups is missing"),
])
def test_bad_spec_is_one_line_naming_key_and_value(data, needle):
    with pytest.raises(SpecError) as info:
        parse_spec(data)
    message = str(info.value)
    assert needle in message and "\n" not in message
    # the schema rejects the same document, except what only the loader knows
    # (method strings, generator parameter names and types, file existence)
    loader_only = ("method spec", "I/O policy", "unknown method", "must be a number",
                   "is not a parameter", "is missing (generator", "must be >= start",
                   "instances[0]='")
    if not any(s in needle for s in loader_only) and "seed is missing" not in needle:
        assert schema_errors(data), needle


def test_load_spec_prefixes_the_file_and_reports_bad_toml(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text("name = 'x'\n[[groups]]\nname = 'g'\ninstances = [\n")
    with pytest.raises(SpecError, match=r"^.*s\.toml: not valid TOML") as info:
        load_spec(path)
    assert "\n" not in str(info.value)
    path.write_text("name = 'x'\n[[groups]]\nname = 'g'\ninstances = ['t.json']\n"
                    "methods = ['first-fit+lpt/fifo']\nseeds = 'one'\n")
    (tmp_path / "t.json").write_bytes((REPO / "instances" / "tiny5.json").read_bytes())
    with pytest.raises(SpecError, match=r"s\.toml: groups\[0\]\.seeds='one' must be"):
        load_spec(path)


def test_slurm_job_script_has_the_sbatch_lines_of_the_config(tmp_path):
    pytest.importorskip("dask_jobqueue",
                        reason="dask-jobqueue is the extra opt_sched[dask]")
    from opt_sched.campaign.executors.slurm import load_slurm_config, slurm_cluster

    config = tmp_path / "cluster.toml"
    config.write_text("""
[slurm]
queue = "compute"
account = "proj42"
cores = 16
memory = "32GiB"
walltime = "04:00:00"
jobs = 8
job_name = "opt-sched"
job_extra_directives = ["--constraint=cpu"]
job_script_prologue = ["source ~/venv/bin/activate"]
""")
    cluster = slurm_cluster(load_slurm_config(config))
    try:
        script = cluster.job_script()
    finally:
        cluster.close()
    sbatch = [line for line in script.splitlines() if line.startswith("#SBATCH")]
    # 32 GiB = 32 * 2^30 bytes, requested in whole GiB: --mem=32G
    for expected in ("#SBATCH -J opt-sched", "#SBATCH -p compute", "#SBATCH -A proj42",
                     "#SBATCH --cpus-per-task=16", "#SBATCH --mem=32G",
                     "#SBATCH -t 04:00:00", "#SBATCH --constraint=cpu"):
        assert expected in sbatch, (expected, sbatch)
    assert "source ~/venv/bin/activate" in script
    worker = script.splitlines()[-1]
    # one single-threaded worker per core (processes defaults to cores)
    assert "--nworkers 16" in worker and "--nthreads 1" in worker


@pytest.mark.parametrize(("text", "needle"), [
    ("[slurm]\nqueue = 'q'\ncores = 4\nmemory = '8GB'\nwalltime = '1:00:00'\n",
     "slurm.jobs is missing"),
    ("[slurm]\nqueue = 'q'\ncores = 'four'\nmemory = '8GB'\nwalltime = '1:00:00'\n"
     "jobs = 1\n", "slurm.cores='four' must be an integer"),
    ("[slurm]\nqeue = 'q'\n", "slurm.qeue='q' is not a known key"),
])
def test_bad_slurm_config_is_one_line(tmp_path, text, needle):
    from opt_sched.campaign.executors.slurm import load_slurm_config

    path = tmp_path / "c.toml"
    path.write_text(text)
    with pytest.raises(SpecError) as info:
        load_slurm_config(path)
    assert needle in str(info.value) and "\n" not in str(info.value)


def test_dask_flag_without_dask_says_what_to_install(monkeypatch):
    from opt_sched.campaign.executors import require_dask
    from opt_sched.errors import OptionError

    monkeypatch.setitem(sys.modules, "distributed", None)  # import fails
    with pytest.raises(OptionError) as info:
        require_dask("--dask")
    assert 'pip install "opt_sched[dask]"' in str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("value", [math.inf, -math.inf, math.nan])
def test_generator_number_must_be_finite(value):
    """Generators and experiments share one parameter check: a non-finite
    number is refused in one line naming the key (it would fail deep in
    the generator otherwise)."""
    with pytest.raises(SpecError, match=r"instance\.batch=.* must be a number"):
        generator_source("tucan", {"batch": value})
