"""Lower bounds: hand-computed building blocks and instances, and the honest
cross-check against the brute-force optimum on random tiny instances."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings

from opt_sched import Instance, Job, OptionError, Partition, Platform
from opt_sched.bounds import (
    best_makespan_bound,
    best_max_stretch_bound,
    edf_feasible,
    edf_max_lateness,
    jackson_preemptive_makespan,
    lower_bound,
    makespan_bounds,
    max_stretch_bounds,
)
from opt_sched.exact.brute_force import brute_force_io_sched

from .conftest import bundled_instance_paths
from .paths import load_script
from .test_brute_force import one_pack_instances

TIGHT = 1e-9  # bounds are compared with optima up to rounding


# -- one-machine building blocks --------------------------------------------------
def test_jackson_hand_example():
    # ops (head, p, tail): A (0, 4, 1), B (1, 2, 5), C (2, 1, 0).
    # t=0 A starts; t=1 B arrives with the larger tail and preempts A (3 left);
    # B runs 1-3: C_B + q_B = 8. t=3 A (tail 1) beats C (tail 0): A 3-6 -> 7;
    # C 6-7 -> 7. Value max(8, 7, 7) = 8.
    assert jackson_preemptive_makespan([0, 1, 2], [4, 2, 1], [1, 5, 0]) == 8.0


def test_jackson_basic_cases():
    assert jackson_preemptive_makespan([3.0], [2.0], [4.0]) == 9.0
    assert jackson_preemptive_makespan([], [], []) == 0.0
    # idle gap: second op released after the first ends
    assert jackson_preemptive_makespan([0, 10], [1, 1], [0, 0]) == 11.0
    # zero-duration op sits at its head: 5 + 7
    assert jackson_preemptive_makespan([0, 5], [1, 0], [0, 7]) == 12.0


def test_edf_hand_cases():
    # needs preemption: op 0 runs 0-1, op 1 (due 2) runs 1-2, op 0 ends at 4.
    assert edf_feasible([0, 1], [3, 1], [10, 2])
    assert edf_max_lateness([0, 1], [3, 1], [10, 2]) == 0.0
    # 4 units of work due at 3 from time 0: lateness 1.
    assert not edf_feasible([0, 0], [2, 2], [3, 3])
    assert edf_max_lateness([0, 0], [2, 2], [3, 3]) == 1.0
    # enough total room but op 1's window [5, 5.5] is shorter than its 1 unit.
    assert not edf_feasible([0, 5], [1, 1], [10, 5.5])
    assert edf_feasible([], [], [])
    assert edf_max_lateness([], [], []) == -math.inf


def test_edf_rejects_bad_input():
    with pytest.raises(OptionError, match="shapes"):
        edf_max_lateness([0, 1], [1], [2, 3])
    with pytest.raises(OptionError, match="durations min=-1"):
        edf_max_lateness([0], [-1], [2])


# -- hand-computed instance bounds ------------------------------------------------
def test_tiny2_bounds_by_hand(tiny2):
    # a: w=2, v=3 twice (T=10); b: w=1, v=2 twice (T=6); 4 nodes, b=1.
    # longest 10; area (2*10 + 2*6)/4 = 8; io-node min head 1 + 10 + min tail 0.
    # Jackson ops (h, p, q): a1 (2,3,5) a2 (7,3,0) b1 (1,2,3) b2 (4,2,0):
    # b1 1-2, a1 preempts 2-5 (->10), b1 5-6 (->9), b2 6-8, a2 8-11 (->11).
    ms = makespan_bounds(tiny2)
    assert ms == {"longest-job": 10.0, "area": 8.0, "io-node": 11.0,
                  "jackson-preemptive": 11.0}
    assert best_makespan_bound(tiny2) == (11.0, "io-node")
    # Max stretch, fixed start 0: makespan ratio 11/10. EDF: b1, a1, b2 are
    # released >= 1, hold 7 units of I/O and are due by max(10 rho - 5, 6 rho),
    # so 8 <= max(10 rho - 5, 6 rho), i.e. rho >= 1.3; at 1.3 EDF is tight
    # (b1 1-3, a1 3-4, b2 4-6, a1 6-8 = 13 - 5, a2 8-11).
    st = max_stretch_bounds(tiny2)
    assert st["trivial"] == 1.0
    assert st["makespan-ratio"] == pytest.approx(1.1)
    assert 1.3 * (1 - 2e-6) <= st["edf-bisection"] <= 1.3
    assert best_max_stretch_bound(tiny2)[1] == "edf-bisection"
    assert lower_bound(tiny2, "max-stretch") == st["edf-bisection"]
    assert lower_bound(tiny2, "makespan") == 11.0


def test_two_identical_jobs_max_stretch():
    # Both: compute 1 then I/O 1 (T = 2), start 0. One I/O waits for the other:
    # the second ends at 3, stretch 3/2; the preemptive relaxation agrees.
    inst = Instance("pair", Platform.homogeneous(1, 4, 1.0), tuple(
        Job(f"j{i}", 1, (1.0,), (1.0,), partition=0) for i in range(2)))
    value = max_stretch_bounds(inst)["edf-bisection"]
    assert 1.5 * (1 - 2e-6) <= value <= 1.5
    assert brute_force_io_sched(inst, "max-stretch")[0] == 1.5


def test_free_starts_give_only_the_trivial_stretch_bound(tiny2):
    assert max_stretch_bounds(tiny2, fixed_start=False) == {"trivial": 1.0}
    assert lower_bound(tiny2, "max-stretch", fixed_start=False) == 1.0


def test_dependencies_and_releases():
    # a (T=3) -> b (T=4, released at 1) -> c (T=2); d alone released at 9, T=1.
    jobs = (Job("a", 1, (1.0,), (2.0,)),
            Job("b", 1, (4.0,), (0.0,), release=1.0, after=("a",)),
            Job("c", 1, (2.0,), (0.0,), after=("b",)),
            Job("d", 1, (1.0,), (0.0,), release=9.0))
    inst = Instance("chain", Platform.homogeneous(2, 4, 1.0), jobs)
    ms = makespan_bounds(inst)
    assert ms["longest-job"] == 10.0  # max(3 + 4 + 2, 9 + 1)
    # only a does I/O: head 1, tail = its successors' chain 4 + 2, volume 2 on
    # 2 I/O nodes of bandwidth 1: 1 + 6 + 2/2.
    assert ms["io-node"] == 8.0
    assert ms["area"] == pytest.approx(0.0 + 10.0 / 8)
    assert "jackson-preemptive" not in ms  # nothing mapped on 2 partitions
    assert max_stretch_bounds(inst) == {"trivial": 1.0}
    with pytest.raises(OptionError, match="fixed_start=True: job 'a'"):
        makespan_bounds(inst, fixed_start=True)


def test_heterogeneous_io_node():
    # unmapped x (w 2, v 8), y (w 1, v 4) on bandwidths 1 and 3: the volume 12
    # is served at rate <= 4 from the first head 1: 1 + 12/4 + 0.
    inst = Instance("het", Platform((Partition(4, 1.0), Partition(4, 3.0))), (
        Job("x", 1, (2.0,), (8.0,)), Job("y", 1, (1.0,), (4.0,))))
    ms = makespan_bounds(inst)
    assert ms["io-node"] == 4.0
    assert ms["longest-job"] == pytest.approx(2 + 8 / 3)


def test_fixed_start_uses_the_pack_start():
    # Released at 0 and 5 on one partition: the pack starts at 5.
    inst = Instance("rel", Platform.homogeneous(1, 4, 1.0), (
        Job("x", 1, (1.0,), (1.0,), partition=0),
        Job("y", 1, (1.0,), (1.0,), release=5.0, partition=0)))
    assert makespan_bounds(inst)["jackson-preemptive"] == 7.0   # x 1-2, y 6-7
    fixed = makespan_bounds(inst, fixed_start=True)
    assert fixed["longest-job"] == 7.0
    assert fixed["jackson-preemptive"] == 8.0                   # 6-7, 7-8
    assert brute_force_io_sched(inst)[0] == 8.0


def test_unknown_objective():
    inst = Instance("one", Platform.homogeneous(1, 4, 1.0),
                    (Job("x", 1, (1.0,), (1.0,)),))
    with pytest.raises(OptionError, match="objective='flow'"):
        lower_bound(inst, "flow")


# -- honest cross-checks against the brute-force optimum ----------------------------
def check_against_optimum(instance: Instance) -> tuple[dict, dict, float, float]:
    """Assert every bound <= the brute-force optimum; return them all."""
    opt_ms, _ = brute_force_io_sched(instance, "makespan")
    opt_st, _ = brute_force_io_sched(instance, "max-stretch")
    free = makespan_bounds(instance)
    fixed = makespan_bounds(instance, fixed_start=True)
    stretch = max_stretch_bounds(instance)
    for name, value in {**free, **{f"fixed {k}": v for k, v in fixed.items()}}.items():
        assert value <= opt_ms * (1 + TIGHT), (name, value, opt_ms)
    for name, value in stretch.items():
        assert value <= opt_st * (1 + TIGHT), (name, value, opt_st)
    # Structure: Jackson dominates the I/O-node bound on mapped instances, and
    # fixed starts never weaken a bound.
    if "io-node" in free:
        assert free["jackson-preemptive"] >= free["io-node"] * (1 - TIGHT)
    for name, value in free.items():
        assert fixed[name] >= value * (1 - TIGHT)
    return fixed, stretch, opt_ms, opt_st


@settings(max_examples=50, deadline=None)
@given(one_pack_instances())
def test_bounds_never_exceed_the_optimum(instance):
    check_against_optimum(instance)


random_one_pack = load_script("measure_stretch_bounds").small_instance
"""``(rng, index) -> Instance``, independent of hypothesis: 2-4 one-node jobs
of 1-2 iterations on one partition, integer data in ``0..5``, releases in
``0..2`` (the ``small`` family of ``scripts/measure_stretch_bounds.py``)."""


def test_tightness_tally():
    """Validity on 150 seeded instances, and how often each bound is tight.

    Run with ``-s`` to see the tally (for the report, not asserted).
    """
    rng = np.random.default_rng(2024)
    tight = {"jackson-preemptive": 0, "best makespan": 0, "edf-bisection": 0}
    count = 150
    for index in range(count):
        fixed, stretch, opt_ms, opt_st = check_against_optimum(
            random_one_pack(rng, index))
        tight["jackson-preemptive"] += math.isclose(
            fixed.get("jackson-preemptive", max(fixed.values())), opt_ms,
            rel_tol=1e-9)
        tight["best makespan"] += math.isclose(max(fixed.values()), opt_ms,
                                               rel_tol=1e-9)
        tight["edf-bisection"] += math.isclose(max(stretch.values()), opt_st,
                                               rel_tol=1e-5)
    print(f"\nbounds equal to the brute-force optimum on {count} instances: "
          + ", ".join(f"{k} {v}" for k, v in tight.items()))
    assert tight["best makespan"] > 0  # a bound that is never tight is suspect


# -- bundled instances and speed ------------------------------------------------------
@pytest.mark.parametrize("path", bundled_instance_paths(), ids=lambda p: p.stem)
def test_bundled_instances(path):
    from opt_sched import read_instance

    instance = read_instance(path)
    ms = makespan_bounds(instance)
    st = max_stretch_bounds(instance)
    assert all(math.isfinite(v) and v > 0 for v in ms.values())
    assert all(math.isfinite(v) and v >= 1 for v in st.values())
    assert best_makespan_bound(instance)[0] == max(ms.values())
    assert best_max_stretch_bound(instance)[0] == max(st.values())


def large_instance(iterations: int) -> Instance:
    """100 periodic jobs on one partition, seed-003-like I/O ratios."""
    rng = np.random.default_rng(0)
    jobs = []
    for i in range(100):
        w = float(rng.uniform(10, 100))
        v = w * float(rng.choice([0.1, 0.9])) * float(rng.uniform(0.05, 0.3))
        jobs.append(Job.periodic(f"j{i}", 16, w, v, iterations, partition=0))
    return Instance("big", Platform.homogeneous(1, 2048, 1.0), tuple(jobs))


def test_large_instance_runs():
    """100 jobs x 1,000 iterations (100k I/O operations): the makespan bounds
    run (about 0.4 s on an idle core; no timing assert). The max-stretch
    bisection calls EDF about 10 times (3 s at this size), so it runs on
    100 x 250 here to keep the test short."""
    ms = makespan_bounds(large_instance(1000))
    assert ms["jackson-preemptive"] >= ms["io-node"] >= ms["longest-job"]
    st = max_stretch_bounds(large_instance(250))
    assert st["edf-bisection"] >= st["makespan-ratio"] > 1
