"""A study as a plug-in (issue 25, items 1 and 3): a generator, an experiment
and a report from a package outside opt_sched reach ``sweep`` and its worker
processes through entry points, exactly as the seed papers' own studies do
(``opt_sched/studies/``, declared in opt_sched's ``pyproject.toml``).

The plug-in ``mystudy`` is installed without pip (a package and a
``dist-info`` folder on the ``PYTHONPATH`` of a real ``python -m opt_sched``
subprocess). Its generator makes a tiny seeded one-pack instance; its
experiment replays a generated instance with FCFS and validates the
schedule; its report writes one CSV line per row it was given. Every value
checked here is recomputed in this process from the plug-in's own code.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from opt_sched.validation import assert_feasible

from .plugin_helpers import install_package, load_source, opt_sched

STUDY_SOURCE = '''
"""A tiny study: its generator, experiment and report."""

from __future__ import annotations

import csv
import random
from pathlib import Path

from opt_sched import Instance, Job, Platform
from opt_sched.campaign.experiments import Experiment, ExperimentParameter
from opt_sched.campaign.sources import Generator, Parameter
from opt_sched.files import atomic_path
from opt_sched.scheduling import replay
from opt_sched.validation import assert_feasible


def tiny(params):
    """``jobs`` periodic jobs drawn from ``seed``, one partition."""
    rng = random.Random(params["seed"])
    jobs = tuple(Job.periodic(f"j{i}", rng.randint(1, 2), rng.uniform(1, 5),
                              rng.uniform(1, 3), rng.randint(1, 3), partition=0,
                              release=rng.uniform(0, 4))
                 for i in range(params["jobs"]))
    return Instance(f"tiny-s{params['seed']}", Platform.homogeneous(
        1, nodes=3, bandwidth=1.0), jobs)


TINY = Generator("tiny-study", (Parameter("seed", "int", minimum=0),
                                Parameter("jobs", "int", minimum=1)), tiny)


def fcfs_point(params, seed):
    instance = tiny({"seed": seed, "jobs": params["jobs"]})
    schedule = replay(instance, "fcfs")
    assert_feasible(instance, schedule)
    return {"fcfs_makespan": schedule.makespan(instance)}


FCFS_POINT = Experiment("fcfs-point", (ExperimentParameter("jobs", "int"),),
                        fcfs_point)


def write_report(spec, rows, out):
    target = Path(out) / "tiny-study.csv"
    with atomic_path(target) as tmp, open(tmp, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["method", "makespan", "fcfs_makespan"])
        for key in sorted(rows):
            row = rows[key]
            writer.writerow([row["task"].get("method", ""),
                             row["metrics"].get("makespan", ""),
                             row["metrics"].get("fcfs_makespan", "")])
    return [target]
'''

ENTRY_POINTS = """
[opt_sched.generators]
tiny-study = mystudy.study:TINY

[opt_sched.experiments]
fcfs-point = mystudy.study:FCFS_POINT

[opt_sched.reports]
tiny-study = mystudy.study:write_report
"""


@pytest.fixture
def study(tmp_path: Path) -> Path:
    return install_package(tmp_path, "mystudy", "A study plug-in.",
                           {"study": STUDY_SOURCE}, ENTRY_POINTS)


def test_a_study_plugin_reaches_sweep_and_its_workers(study, tmp_path):
    """The generator feeds a method group, the experiment runs as its own
    group, the report is written; two worker processes load the plug-in."""
    from opt_sched.scheduling import replay

    spec = tmp_path / "study.toml"
    spec.write_text(
        'name = "study"\n\n'
        '[[groups]]\nname = "generated"\n'
        'instances = [{ generator = "tiny-study", seed = [0, 1], jobs = 5 }]\n'
        'methods = ["fcfs", "first-fit+lpt/fifo"]\n\n'
        '[[groups]]\nname = "points"\n'
        'experiment = { name = "fcfs-point", jobs = 5 }\nseeds = [0, 1]\n\n'
        '[outputs]\nreports = ["tiny-study"]\n')
    out = tmp_path / "out"
    done = opt_sched(study, "sweep", str(spec), "--out", str(out), "--workers", "2",
                     cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    with open(out / "tasks.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 2 * 2 + 2
    assert {row["status"] for row in rows} == {"ok"}, rows
    workers = {int(row["worker"].rsplit(":", 1)[1]) for row in rows}
    assert done.pid not in workers  # type: ignore[attr-defined]

    module = load_source(study / "mystudy" / "study.py")
    for seed in (0, 1):
        instance = module.tiny({"seed": seed, "jobs": 5})
        direct = replay(instance, "fcfs")
        assert_feasible(instance, direct)
        generated = next(r for r in rows if r["method"] == "fcfs"
                         and r["instance"] == f"tiny-study(jobs=5,seed={seed})")
        assert float(generated["makespan"]) == pytest.approx(
            direct.makespan(instance), rel=1e-12)
        point = module.fcfs_point({"jobs": 5}, seed)
        experiment = next(r for r in rows if r["method"] == "fcfs-point"
                          and int(r["method_seed"]) == seed)
        assert float(experiment["fcfs_makespan"]) == pytest.approx(
            point["fcfs_makespan"], rel=1e-12)

    report = out / "tiny-study.csv"
    with open(report, newline="") as handle:
        lines = list(csv.DictReader(handle))
    assert len(lines) == len(rows)


def test_an_unknown_report_names_the_registry(study, tmp_path):
    """A report no package declares is refused when the spec is read (exit
    2, one line), before any task runs."""
    spec = tmp_path / "bad.toml"
    spec.write_text('name = "bad"\n\n[[groups]]\nname = "g"\n'
                    'instances = [{ generator = "tiny-study", seed = 0, jobs = 2 }]\n'
                    'methods = ["fcfs"]\n\n[outputs]\nreports = ["no-such-report"]\n')
    done = opt_sched(study, "sweep", str(spec), "--out", str(tmp_path / "o"),
                     cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "no-such-report" in lines[0], done.stderr
    assert not (tmp_path / "o" / "tasks.csv").exists()


def test_the_framework_reaches_the_seed_studies_only_by_entry_points():
    """No framework module imports a study (the layers contract says so for
    every import; this checks the graph directly, so that it fails with the
    offending pair)."""
    grimp = pytest.importorskip("grimp")
    graph = grimp.build_graph("opt_sched")
    studies = {m for m in graph.modules if m.startswith("opt_sched.studies")}
    assert studies, "opt_sched.studies is empty"
    upward = sorted((m, i) for m in graph.modules - studies
                    for i in graph.find_modules_directly_imported_by(m)
                    if i in studies)
    assert upward == [], json.dumps(upward)


def test_a_plugin_generator_reaches_generate(study, tmp_path):
    """``opt-sched generate --protocol tiny-study`` builds the plug-in's
    instance (the same jobs as the plug-in's own function), its parameters
    are options, and an option it does not take is refused naming it."""
    from opt_sched.json_files import read_instance

    out = tmp_path / "tiny.json"
    done = opt_sched(study, "generate", "--protocol", "tiny-study", "--seed", "3",
                     "--jobs", "4", "--out", str(out), "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["params"] == {"seed": 3, "jobs": 4}
    module = load_source(study / "mystudy" / "study.py")
    assert read_instance(out) == module.tiny({"seed": 3, "jobs": 4})
    listed = opt_sched(study, "generate", "--help", cwd=tmp_path)
    assert "tiny-study" in listed.stdout
    foreign = opt_sched(study, "generate", "--protocol", "tiny-study", "--seed", "3",
                        "--jobs", "4", "--batch", "2", "--out", str(out), cwd=tmp_path)
    assert foreign.returncode == 2
    assert "--batch does not apply to protocol tiny-study" in foreign.stderr
    missing = opt_sched(study, "generate", "--protocol", "tiny-study", "--seed", "3",
                        "--out", str(out), cwd=tmp_path)
    assert missing.returncode == 2 and "jobs is missing" in missing.stderr
