"""The method registry: spec grammar round trips, bad specs, supports(), the
defaults and warm starts, and registering a heuristic and an I/O policy from
this file alone (no edit to the package); every schedule is validated."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from opt_sched import (
    Instance,
    Job,
    OptionError,
    Partition,
    Platform,
    methods,
    read_instance,
)
from opt_sched.errors import SpecError
from opt_sched.simulation import policies as io_policies
from opt_sched.simulation.kernel import MODE_FIFO, MODE_STATIC
from opt_sched.validation import assert_feasible, validate

from .conftest import INSTANCES, bundled_instance_paths

CANONICAL = [
    "make-pack(S=1)+lpt/fifo",
    "make-pack(S=alpha)+lpt/longest-remaining",
    "make-pack(S=2.5)+lpt(R=2)/stretch",
    "make-pack(S=inf)+lpt/bandwidth",
    "make-pack(S=0.1)+lpt/lowest-id",
    "first-fit+lpt/fifo",
    "first-fit+lpt(R=1)/shortest-io",
    "one-pack/fifo",
    "one-pack/stretch",
]


# -- grammar ------------------------------------------------------------------------
@pytest.mark.parametrize("text", CANONICAL)
def test_canonical_specs_read_back_to_themselves(text):
    m = methods.method(text)
    assert str(m) == m.spec == text
    assert methods.method(str(m)) == m
    assert str(methods.parse_spec(text)) == text


@pytest.mark.parametrize("text, canonical", [
    ("make-pack", "make-pack(S=1)+lpt/fifo"),           # S, stage, policy filled
    ("make-pack + lpt / stretch", "make-pack(S=1)+lpt/stretch"),
    ("make-pack(S=1.0)+lpt", "make-pack(S=1)+lpt/fifo"),
    ("make-pack(S=2.50)", "make-pack(S=2.5)+lpt/fifo"),
    ("make-pack(S=1e-3)", "make-pack(S=0.001)+lpt/fifo"),
    ("make-pack(S=infinity)", "make-pack(S=inf)+lpt/fifo"),
    ("first-fit()", "first-fit+lpt/fifo"),
    ("first-fit+lpt()", "first-fit+lpt/fifo"),
    ("one-pack", "one-pack/fifo"),
])
def test_defaults_are_filled_in(text, canonical):
    assert methods.method(text).spec == canonical


def test_parts_of_a_method():
    m = methods.method("make-pack(S=alpha)+lpt(R=3)/stretch")
    assert (m.name, m.head, m.heuristic, m.policy) == (
        "make-pack", "make-pack(S=alpha)", "make-pack(S=alpha)+lpt(R=3)", "stretch")
    assert m.arg("S") == "alpha" and m.stage("allocation").arg("R") == 3
    assert m.stage("no-such-kind") is None
    assert m.with_policy("fifo").spec == "make-pack(S=alpha)+lpt(R=3)/fifo"
    assert m.with_args(S=2.0).spec == "make-pack(S=2)+lpt(R=3)/stretch"
    assert m.with_stage_args("allocation", R=1).spec == (
        "make-pack(S=alpha)+lpt(R=1)/stretch")
    one = methods.method("one-pack/fifo")
    assert one.with_stage_args("allocation", R=1) is one


@settings(max_examples=200, deadline=None)
@given(st.floats(min_value=1e-300, max_value=1e300, allow_nan=False))
def test_any_sensibility_survives_the_round_trip(s):
    m = methods.method(f"make-pack(S={s!r})+lpt/fifo")
    assert m.arg("S") == s
    again = methods.method(m.spec)
    assert again == m and again.arg("S") == s


names = st.from_regex(r"[a-z][a-z0-9]{0,5}(-[a-z0-9]{1,4}){0,2}", fullmatch=True)
keys = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,4}", fullmatch=True)
values = st.from_regex(r"[A-Za-z0-9_.\-]{1,6}", fullmatch=True)
calls = st.builds(methods.Call, names,
                  st.dictionaries(keys, values, max_size=3).map(
                      lambda d: tuple(d.items())))


@settings(max_examples=200, deadline=None)
@given(st.lists(calls, min_size=1, max_size=3),
       st.one_of(st.none(), names, st.just("*")))
def test_the_syntax_round_trips(parts, policy):
    spec = methods.Spec(tuple(parts), policy)
    assert methods.parse_spec(str(spec)) == spec


def test_split_specs_keeps_commas_inside_parentheses():
    assert methods.split_specs("make-pack(S=1,x=2)+lpt/fifo, one-pack/*,") == [
        "make-pack(S=1,x=2)+lpt/fifo", "one-pack/*"]
    assert methods.split_specs(["a, b", "c"]) == ["a", "b", "c"]


def test_every_policy_expands_in_registry_order():
    got = [m.spec for m in methods.expand("one-pack/*")]
    assert got == [f"one-pack/{p}" for p in io_policies.names()]
    assert len(methods.expand("first-fit+lpt/*, one-pack/fifo")) == len(
        io_policies.names()) + 1


# -- bad specs ----------------------------------------------------------------------
@pytest.mark.parametrize("text, fragment", [
    ("", "is empty"),
    ("   ", "is empty"),
    ("make-pack(S=0)+lpt/fifo", "make-pack: S='0' must be > 0"),
    ("make-pack(S=-1)", "make-pack: S='-1' must be > 0"),
    ("make-pack(S=nan)", "make-pack: S='nan' must be > 0"),
    ("make-pack(S=beta)", "make-pack: S='beta' is not a number > 0, 'inf' or 'alpha'"),
    ("make-pack(T=1)", "make-pack: unknown parameter 'T' (known: S)"),
    ("first-fit(S=1)", "first-fit: unknown parameter 'S' (known: none)"),
    ("make-pack(S=1,S=2)", "make-pack: parameter S is given twice"),
    ("make-pack(S=)", "make-pack: S has no value"),
    ("make-pack(S=1", "ends where ',' or ')' in make-pack(...) was expected"),
    ("make-pack(S)", "expected '=' after make-pack(S"),
    ("make-pack(S=1)+lpt(R=0)", "lpt: R='0' must be >= 1"),
    ("make-pack(S=1)+lpt(R=1.5)", "lpt: R='1.5' is not an integer"),
    ("best-fit+lpt/fifo", "unknown method 'best-fit' (known: one-pack, first-fit, "
                          "make-pack"),
    ("make-pack+spread", "unknown stage '+spread' (known: lpt"),
    ("one-pack+lpt/fifo", "one-pack takes no '+' stage; '+lpt' is a stage of kind "
                          "allocation"),
    ("make-pack/nope", "unknown I/O policy 'nope' (known: lowest-id"),
    ("Make-Pack", "the method name 'Make-Pack' is not valid"),
    ("make--pack", "the method name 'make--pack' is not valid"),
    ("first-fit/fifo/x", "unexpected '/' after 'first-fit/fifo'"),
    ("first-fit fifo", "unexpected 'fifo' after 'first-fit'"),
    ("first-fit;rm", "unexpected character ';' at position 9"),
    ("make-pack(S=1)+lpt/*", "'/*' names every policy: use expand()"),
])
def test_a_bad_spec_is_one_line_naming_the_part_and_value(text, fragment):
    with pytest.raises(SpecError) as info:
        methods.method(text)
    message = str(info.value)
    assert message.startswith(f"method spec {text!r}: "), message
    assert fragment in message, message
    assert "\n" not in message


def test_a_spec_must_be_a_string():
    with pytest.raises(SpecError, match="is not a string"):
        methods.method(3)
    with pytest.raises(SpecError, match="is not a string"):
        methods.split_specs([None])


# -- supports ------------------------------------------------------------------------
def _no_io() -> Instance:
    jobs = (Job.periodic("a", 2, 5.0, 0.0, 2), Job.periodic("b", 3, 4.0, 0.0))
    return Instance("noio", Platform.homogeneous(2, 4), jobs)


@pytest.mark.parametrize("spec, instance, fragment", [
    ("make-pack(S=1)+lpt/fifo", "planning4",
     "job 'a' demands named resources (burst_buffer), which make-pack does not "
     "model"),
    ("first-fit+lpt/fifo", "planning4", "which first-fit does not model"),
    ("one-pack/fifo", "planning4", "which one-pack does not model"),
    ("make-pack(S=alpha)+lpt/fifo", _no_io,
     "S=alpha needs an I/O load alpha > 0, and this instance's is 0"),
    ("first-fit+lpt(R=3)/fifo", _no_io,
     "lpt: R=3 exceeds the platform's 2 partitions"),
    ("one-pack/fifo", _no_io, "job 'a' is not mapped to a partition"),
    ("one-pack/fifo", "deps5", "job 'pre' is not mapped"),
])
def test_supports_gives_the_reason(spec, instance, fragment):
    inst = instance() if callable(instance) else read_instance(
        INSTANCES / f"{instance}.json")
    reason = methods.method(spec).supports(inst)
    assert reason is not None and fragment in reason, reason
    assert "\n" not in reason
    with pytest.raises(OptionError, match="not for instance"):
        methods.method(spec).run(inst)


def test_the_reasons_are_real_failures():
    """Without the check, a pack heuristic on planning4 breaks rule 6 (the
    simulator delays a job of a pack for the burst buffer), and S=alpha on
    an instance without I/O fails to build (S = 0)."""
    from opt_sched.simulation import simulate

    planning4 = read_instance(INSTANCES / "planning4.json")
    for spec in ("make-pack(S=1)+lpt/fifo", "first-fit+lpt/fifo"):
        m = methods.method(spec)
        schedule = simulate(planning4, m.entry.build(planning4, m, 0), "fifo")
        report = validate(planning4, schedule)
        assert not report.feasible
        assert {v.rule for v in report.violations} == {6}
    m = methods.method("make-pack(S=alpha)+lpt/fifo")
    with pytest.raises(OptionError, match=r"sensibility=0\.0 must be > 0"):
        m.entry.build(_no_io(), m, 0)


def test_one_pack_limits():
    part = Platform((Partition(4), Partition(4)))
    wide = Instance("wide", part, (Job.periodic("a", 3, 1, 1, partition=0),
                                   Job.periodic("b", 2, 1, 1, partition=0)))
    assert "partition 0 need 5 nodes together, more than its 4" in (
        methods.method("one-pack").supports(wide))
    chain = Instance("chain", part, (Job.periodic("a", 1, 1, 1, partition=0),
                                     Job.periodic("b", 1, 1, 1, partition=0,
                                                  after=("a",))))
    assert "depends on job 'a' of its own partition 0" in (
        methods.method("one-pack").supports(chain))
    cross = Instance("cross", part, (
        Job.periodic("a", 1, 1, 1, partition=0),
        Job.periodic("b", 1, 1, 1, partition=1, after=("a",)),
        Job.periodic("c", 1, 1, 1, partition=0, after=("d",)),
        Job.periodic("d", 1, 1, 1, partition=1)))
    assert "partitions 0 and 1 wait on each other" in (
        methods.method("one-pack").supports(cross))
    one_way = Instance("oneway", part, cross.jobs[:2])
    m = methods.method("one-pack/fifo")
    assert m.supports(one_way) is None
    schedule = m.run(one_way)
    assert_feasible(one_way, schedule)
    assert schedule["b"].start == pytest.approx(2.0)  # a: compute 1 + I/O 1


def test_mapped_job_waiting_on_a_later_pack_is_not_supported():
    """m is mapped to partition 0 and depends on the unmapped u: m's pack
    runs first there and u's pack after it, a cycle."""
    inst = Instance("mix", Platform.homogeneous(1, 4), (
        Job.periodic("u", 1, 5.0, 1.0),
        Job.periodic("m", 1, 2.0, 1.0, after=("u",), partition=0)))
    reason = methods.method("make-pack(S=1)+lpt/fifo").supports(inst)
    assert reason is not None and "cycle" in reason


@st.composite
def rich_instances(draw):
    """Partitions of 4-8 nodes; jobs partly mapped, with dependencies on
    earlier jobs, zero I/O, releases and (sometimes) a named resource."""
    count = draw(st.integers(1, 3))
    parts = tuple(Partition(draw(st.integers(4, 8)),
                            draw(st.sampled_from([0.5, 1.0, 2.0])))
                  for _ in range(count))
    resource = draw(st.booleans()) and draw(st.booleans())
    platform = Platform(parts, resources=(("bb", 10.0),) if resource else ())
    jobs = []
    no_io = draw(st.booleans()) and draw(st.booleans())
    for i in range(draw(st.integers(1, 6))):
        k = draw(st.one_of(st.none(), st.integers(0, count - 1)))
        widest = parts[k].nodes if k is not None else max(p.nodes for p in parts)
        iters = draw(st.integers(1, 3))
        after = tuple(sorted(draw(st.sets(st.sampled_from([f"j{d}" for d in range(i)]),
                                          max_size=2)))) if i else ()
        jobs.append(Job(
            f"j{i}", draw(st.integers(1, widest)),
            tuple(draw(st.integers(0, 8)) / 2 for _ in range(iters)),
            tuple(0.0 if no_io else draw(st.integers(0, 8)) / 2
                  for _ in range(iters)),
            release=draw(st.sampled_from([0.0, 0.0, 1.5])), partition=k,
            after=after,
            demands=(("bb", float(draw(st.integers(1, 10)))),)
            if resource and draw(st.booleans()) else ()))
    return Instance("rich", platform, tuple(jobs))


PROPERTY_SPECS = ["one-pack/fifo", "first-fit+lpt/fifo", "make-pack(S=1)+lpt/stretch",
                  "make-pack(S=alpha)+lpt/fifo", "make-pack(S=0.5)+lpt(R=1)/fifo",
                  "first-fit+lpt(R=2)/longest-io"]


@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(rich_instances())
def test_supported_means_the_validator_accepts(instance):
    """supports() is None => run() gives a schedule the validator accepts."""
    ran = 0
    for spec in PROPERTY_SPECS:
        m = methods.method(spec)
        if m.supports(instance) is None:
            schedule = m.run(instance)
            assert schedule.method == m.spec
            assert_feasible(instance, schedule)
            ran += 1
    if not any(job.demands for job in instance.jobs) and not instance.has_dependencies:
        assert ran >= 2  # first-fit and make-pack(S=1) run on every such instance


@pytest.mark.parametrize("path", bundled_instance_paths(), ids=lambda p: p.stem)
def test_every_default_runs_validated_on_the_bundled_instances(path):
    instance = read_instance(path)
    chosen, skipped = methods.applicable(instance)
    assert [m.spec for m in chosen] == methods.default_specs(instance)
    for m in chosen:
        assert_feasible(instance, m.run(instance))
    for s in skipped:
        assert methods.method(s.spec.replace("/*", "/fifo")).supports(instance)


# -- defaults and warm starts -------------------------------------------------------
GAP_HPC_IO_SPECS = ("first-fit+lpt/fifo", "make-pack(S=1)+lpt/fifo",
                    "make-pack(S=alpha)+lpt/fifo",
                    "make-pack(S=1)+lpt/longest-remaining")
"""``gap``'s heuristics for HPC-IO before the registry, in that order."""
SEED_METHODS = ("one-pack", "first-fit", "make-pack", "packs", "ls", "fcfs",
                "easy", "conservative", "herbein", "workload-adaptive", "gs",
                "iogs", "adaptive-iogs", "migrate-iogs")
"""The seeds' methods: the registry holds them (and may hold more)."""
NAMED_ONLY = ("herbein", "workload-adaptive", "gs", "iogs", "adaptive-iogs",
              "migrate-iogs")
"""Online methods (seeds 001, 004) with no defaults: they run when named."""

DEFAULT_WHERE = ("packs", "ls", "fcfs", "easy", "conservative")
"""Online methods whose defaults run where their ``default_for`` says
(seed 000's batch, trace workloads)."""


def by_default(text: str, instance: Instance) -> bool:
    """The entry of spec ``text`` runs its defaults on ``instance``."""
    entry = methods.method(text).entry
    return entry.default_for is None or entry.default_for(instance) is None


def in_order(part: Sequence[str], whole: Sequence[str]) -> bool:
    """``part`` appears in ``whole`` in the same order (not always adjacent)."""
    rest = iter(whole)
    return all(item in rest for item in part)


def check_default_specs(tucan5: Instance) -> None:
    """The defaults' invariants, for whatever the registry holds: filtered by
    an instance and a problem they are exactly the unfiltered defaults (in
    registry order) whose method makes that problem's schedules and supports
    the instance; ``one-pack/*`` brings every registered policy to IO-SCHED;
    ``gap``'s HPC-IO list is kept; the online methods have none; every
    method name is registered under its own name."""
    every = methods.default_specs()
    assert len(set(every)) == len(every)
    deps5 = read_instance(INSTANCES / "deps5.json")
    planning4 = read_instance(INSTANCES / "planning4.json")
    for instance, problem in ((tucan5, "io-sched"), (deps5, "hpc-io"),
                              (deps5, "planning"), (planning4, None)):
        wanted = [text for text in every
                  if (problem is None or problem in methods.method(text).entry.problems)
                  and methods.method(text).supports(instance) is None
                  and by_default(text, instance)]
        assert methods.default_specs(instance, problem) == wanted, (instance.name,
                                                                    problem)
    io_sched = methods.default_specs(tucan5, "io-sched")
    assert in_order([f"one-pack/{p}" for p in io_policies.names()], io_sched)
    assert in_order(GAP_HPC_IO_SPECS, methods.default_specs(deps5, "hpc-io"))
    assert not methods.default_specs(deps5, "planning")  # no heuristic plans
    listed = methods.names()
    assert len(set(listed)) == len(listed)
    assert set(SEED_METHODS) <= set(listed)
    for name in listed:
        assert methods.get_entry(name).name == name
    for name in NAMED_ONLY:
        assert methods.get_entry(name).defaults == ()
        assert not any(methods.method(t).name == name for t in every)
    for name in DEFAULT_WHERE:
        entry = methods.get_entry(name)
        assert entry.defaults and entry.default_for is not None and entry.online


def test_default_specs_per_problem(tucan5):
    check_default_specs(tucan5)


def test_default_specs_hold_with_a_registered_method_and_policy(tucan5, registered):
    """The checks above with ``alone`` and ``most-phases-left`` registered
    from this file, as docs/ARCHITECTURE.md's recipes say."""
    assert {"alone", "most-phases-left"} <= {*methods.names(), *io_policies.names()}
    check_default_specs(tucan5)
    assert "alone+lpt/most-phases-left" in methods.default_specs()


def test_warm_start_specs():
    deps5 = read_instance(INSTANCES / "deps5.json")
    # the structures the CP-SAT warm start used before the registry, in order
    assert methods.warm_start_specs(deps5, "hpc-io") == [
        "make-pack(S=1)+lpt/fifo", "first-fit+lpt/fifo"]
    assert methods.warm_start_specs(deps5, "packs", sensibility=2.0) == [
        "make-pack(S=2)+lpt/fifo"]
    assert methods.warm_start_specs(deps5, "io-sched") == []
    planning4 = read_instance(INSTANCES / "planning4.json")
    assert methods.warm_start_specs(planning4, "hpc-io") == []


def test_applicable_with_a_problem_and_explicit_specs(tucan5):
    chosen, skipped = methods.applicable(
        tucan5, ["one-pack/fifo", "make-pack(S=1)+lpt/fifo"], "io-sched")
    assert [m.spec for m in chosen] == ["one-pack/fifo"]
    assert skipped == [methods.Skipped(
        "make-pack(S=1)+lpt/fifo",
        "make-pack makes schedules of hpc-io, packs; tucan5 poses io-sched")]
    planning4 = read_instance(INSTANCES / "planning4.json")
    chosen, skipped = methods.applicable(planning4, "one-pack/*")
    assert chosen == [] and len(skipped) == 1 and skipped[0].spec == "one-pack/*"


# -- registering from outside ---------------------------------------------------------
def most_phases_left_key(ph: io_policies.PhaseTable) -> np.ndarray:
    """Test policy: the job with the most I/O phases left (this one
    included) first: key ``-(off[i+1] - p)`` for entry ``p`` of job ``i``."""
    return -(ph.off[ph.job + 1] - np.arange(len(ph.job))).astype(float)


def alone_packer(instance: Instance, method: methods.Method):
    """Test heuristic: every job alone in its pack, longest first, but a
    job only after its predecessors (so the pack order respects them)."""

    def packer(jobs, bandwidth, nodes):
        lengths = [-job.length(bandwidth) for job in jobs]
        from opt_sched.instance import topological_order

        return [(jobs[k].id,) for k in topological_order(jobs, lengths)]

    return packer


ALONE = methods.packs.pack_entry(
    "alone", "every job alone in its pack (test)", alone_packer,
    defaults=("alone+lpt/fifo", "alone+lpt/most-phases-left"))


@pytest.fixture
def registered():
    """``alone`` and ``most-phases-left`` registered from this file (no edit
    to the package); removed after the test."""
    policy = io_policies.register_policy(io_policies.Policy(
        "most-phases-left", MODE_STATIC, most_phases_left_key,
        "the job with the most I/O phases left first (test)"))
    methods.register(ALONE)
    try:
        yield policy
    finally:
        methods.unregister("alone")
        io_policies.unregister_policy("most-phases-left")


def test_registered_policy_decides_a_race(registered):
    """x blocks the I/O node over [0, 10); a (one iteration) requests at 1,
    b (three iterations) at 2: FIFO serves a first, most-phases-left b."""
    from opt_sched.simulation import simulate

    jobs = (Job.periodic("x", 1, 0, 10), Job.periodic("a", 1, 1, 1),
            Job.periodic("b", 1, 2, 1, 3))
    inst = Instance("race", Platform((Partition(8),)), jobs)
    fifo = simulate(inst, policy="fifo")
    most = simulate(inst, policy="most-phases-left")
    for schedule in (fifo, most):
        assert_feasible(inst, schedule)
    assert fifo["a"].io_starts[0] == 10 and fifo["b"].io_starts[0] == 11
    assert most["b"].io_starts[0] == 10 and most["a"].io_starts[0] == 11
    assert "most-phases-left" in io_policies.names()
    assert "most-phases-left" not in io_policies.POLICY_NAMES
    m = methods.method("first-fit+lpt/most-phases-left")
    assert_feasible(inst, m.run(inst))


def test_registered_heuristic_and_policy_appear_in_compare(registered):
    from opt_sched.experiments.compare import compare

    inst = Instance("four", Platform.homogeneous(2, 4), (
        Job.periodic("a", 2, 3.0, 1.0, 2), Job.periodic("b", 2, 1.0, 1.0, 2),
        Job.periodic("c", 4, 2.0, 2.0), Job.periodic("d", 1, 1.0, 0.5, 3)))
    table = compare(inst)
    assert "alone+lpt" in set(table["heuristic"])
    assert "most-phases-left" in set(table["policy"])
    heuristics = list(dict.fromkeys(table["heuristic"]))
    # seed 003's heuristics, then the registered one (others may sit between)
    assert in_order(["first-fit+lpt", "make-pack(S=1)+lpt", "make-pack(S=alpha)+lpt",
                     "alone+lpt"], heuristics)
    assert set(table["policy"]) == set(io_policies.names())
    assert len(table) == len(heuristics) * len(io_policies.names())
    alone = table[table["heuristic"] == "alone+lpt"]
    assert (alone["num_packs"] == 4).all()
    assert alone["sensibility"].map(math.isnan).all()


def test_registered_heuristic_and_policy_appear_in_gap(registered, tmp_path):
    from opt_sched.experiments.gap import gap_table

    deps5 = read_instance(INSTANCES / "deps5.json")
    tiny5 = read_instance(INSTANCES / "tiny5.json")
    out = tmp_path / "gap.csv"
    table = gap_table([deps5, tiny5], time_limit=5, progress=False, out=out)
    rows = set(zip(table["instance"], table["method"]))
    assert ("deps5", "alone+lpt/fifo") in rows
    assert ("deps5", "alone+lpt/most-phases-left") in rows
    assert ("tiny5", "one-pack/most-phases-left") in rows
    assert not any(i == "tiny5" and m.startswith("alone") for i, m in rows)
    heur = table[table["method"] != "cpsat"]
    assert (heur["gap"] >= 0).all() and (heur["value"] >= heur["lower_bound"]).all()


def test_registered_heuristic_through_the_cli_in_process(registered, capsys):
    from opt_sched.cli import main

    path = str(INSTANCES / "deps5.json")
    assert main(["compare", path, "--json"]) == 0
    import json

    records = json.loads(capsys.readouterr().out)
    assert {r["heuristic"] for r in records} >= {"alone+lpt"}
    assert {r["policy"] for r in records} >= {"most-phases-left"}
    assert main(["gap", path, "--time-limit", "5", "--quiet", "--json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert "alone+lpt/fifo" in {r["method"] for r in records}


def test_registration_errors_leave_the_registry_unchanged():
    before = methods.names()
    with pytest.raises(SpecError, match="already registered"):
        methods.register(methods.packs.MAKE_PACK)
    with pytest.raises(SpecError, match="is built in"):
        methods.register(methods.packs.MAKE_PACK, replace=True)
    bad = methods.packs.pack_entry("bad-default", "x", alone_packer,
                                   defaults=("bad-default+lpt/nope",))
    with pytest.raises(SpecError, match="unknown I/O policy 'nope'"):
        methods.register(bad)
    with pytest.raises(SpecError, match="not a method name"):
        methods.register(methods.MethodEntry("Bad Name", "x", build=None))
    assert methods.names() == before
    with pytest.raises(OptionError, match="built in"):
        methods.unregister("make-pack")
    with pytest.raises(OptionError, match="not registered"):
        methods.unregister("never-registered")


def test_policy_registration_errors():
    before = io_policies.names()
    for policy, fragment in (
            (io_policies.Policy("fifo", MODE_FIFO, None, "x"), "built-in"),
            (io_policies.Policy("Bad", MODE_STATIC, most_phases_left_key, "x"),
             "not a policy name"),
            (io_policies.Policy("no-key", MODE_STATIC, None, "x"), "phase_key"),
            (io_policies.Policy("odd", 7, None, "x"), "mode=7")):
        with pytest.raises(OptionError, match=fragment):
            io_policies.register_policy(policy)
    with pytest.raises(OptionError, match="built-in"):
        io_policies.unregister_policy("fifo")
    assert io_policies.names() == before
