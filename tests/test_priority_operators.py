"""Fair-share operators (seed 002, Paper II §3-4): Table 1's boundary values,
the operator definition, hand-computed values, inverses and equivalence."""

from __future__ import annotations

import math

import numpy as np
import pytest

from opt_sched.errors import OptionError
from opt_sched.priority import OPERATOR_NAMES, get_operator

GRID = np.linspace(0.05, 1.0, 20)

# Paper II Table 1, transcribed: F(0, s) and F(t, 0) for s, t in (0, 1].
TABLE1 = {
    "absolute": (lambda s: -s, lambda t: t),
    "relative": (lambda s: -1.0, lambda t: 1.0),
    "relative-2": (lambda s: -1.0, lambda t: 1.0),
    "combined": (lambda s: -0.5 - s / 2, lambda t: 0.5 + t / 2),
    "sigmoid": (lambda s: -1.0, lambda t: 1.0),
    "sigmoid-2": (lambda s: -1.0, lambda t: 1.0),
    "slurm": (lambda s: -1.0, lambda t: 1.0),
}


@pytest.mark.parametrize("name", sorted(TABLE1))
def test_table1_boundary_values(name: str) -> None:
    op = get_operator(name)
    at_t0, at_s0 = TABLE1[name]
    for x in GRID:
        assert op(0.0, x) == pytest.approx(at_t0(x), abs=1e-12)
        assert op(x, 0.0) == pytest.approx(at_s0(x), abs=1e-12)


def test_slurm_original_boundaries_are_its_range_ends() -> None:
    # 2^(-s/t): t = 0 gives 2^-inf = 0, s = 0 gives 2^0 = 1
    op = get_operator("slurm-original")
    for x in GRID:
        assert op(0.0, x) == 0.0
        assert op(x, 0.0) == 1.0


@pytest.mark.parametrize("name", [*OPERATOR_NAMES, "relative-3", "sigmoid-4"])
def test_operator_definition(name: str) -> None:
    """F(t, t) is the balance value; F > balance iff t > s; strictly
    increasing in t and decreasing in s (Paper II eqs. 1-3)."""
    op = get_operator(name)
    balance = 0.5 if name == "slurm-original" else 0.0
    t, s = np.meshgrid(GRID, GRID, indexing="ij")
    values = op(t, s)
    assert np.allclose(np.diag(values), balance)
    off = ~np.isclose(t, s)
    assert np.all((values[off] > balance) == (t[off] > s[off]))
    assert np.all(np.diff(values, axis=0) > 0)   # increasing in t
    assert np.all(np.diff(values, axis=1) < 0)   # decreasing in s
    assert values.min() >= op.low - 1e-12 and values.max() <= 1 + 1e-12


def test_hand_computed_values() -> None:
    # t = 0.5, s = 0.25: R = (t - s)/t = 0.5
    assert get_operator("absolute")(0.5, 0.25) == pytest.approx(0.25)
    assert get_operator("relative")(0.5, 0.25) == pytest.approx(0.5)
    assert get_operator("relative-2")(0.5, 0.25) == pytest.approx(0.25)
    assert get_operator("sigmoid")(0.5, 0.25) == pytest.approx(math.sin(math.pi / 4))
    assert get_operator("sigmoid-2")(0.5, 0.25) == pytest.approx(
        math.sqrt(math.sin(math.pi / 4)))
    assert get_operator("slurm")(0.5, 0.25) == pytest.approx(math.sqrt(2) - 1)
    assert get_operator("slurm-original")(0.5, 0.25) == pytest.approx(2 ** -0.5)
    # combined: 0.5 * 0.25 + 0.5 * 0.25
    assert get_operator("combined")(0.5, 0.25) == pytest.approx(0.25)
    # over target, t = 0.25, s = 0.5: R = -(s - t)/s = -0.5
    assert get_operator("relative")(0.25, 0.5) == pytest.approx(-0.5)
    assert get_operator("relative-2")(0.25, 0.5) == pytest.approx(-0.25)
    assert get_operator("sigmoid")(0.25, 0.5) == pytest.approx(-math.sin(math.pi / 4))
    assert get_operator("slurm")(0.25, 0.5) == pytest.approx(2 ** -1 - 1)


@pytest.mark.parametrize("name", [*OPERATOR_NAMES, "relative-3", "sigmoid-3"])
def test_inverse_in_state(name: str) -> None:
    op = get_operator(name)
    for t in (0.1, 0.5, 0.9):
        s = np.linspace(0.0, 1.0, 41)
        p = op(np.full_like(s, t), s)
        back = op.inverse(p, t)
        assert np.allclose(back, s, atol=1e-9)
    # a priority no state reaches at this target
    assert math.isnan(float(get_operator("absolute").inverse(0.9, 0.5)))


def _order(op, targets, states) -> list[int]:
    values = op(np.asarray(targets), np.asarray(states))
    return sorted(range(len(targets)), key=lambda i: -values[i])


def test_equivalent_operators_order_users_identically() -> None:
    """Paper II §4.6: the Relative family (Relative-n, Sigmoid, Sigmoid-n,
    Slurm, Slurm original) shares G = s_j t_i / t_j, so one order."""
    rng = np.random.default_rng(7)
    family = ["relative", "relative-2", "relative-3", "sigmoid", "sigmoid-2",
              "slurm", "slurm-original"]
    for _ in range(200):
        n = int(rng.integers(2, 12))
        t = rng.dirichlet(np.ones(n))
        s = rng.dirichlet(np.ones(n))
        orders = {name: _order(get_operator(name), t, s) for name in family}
        first = orders["relative"]
        assert all(o == first for o in orders.values()), orders


def test_absolute_and_combined_are_not_equivalent_to_relative() -> None:
    # user 0: t = 0.5, s = 0.4 -> relative 0.2, absolute 0.1
    # user 1: t = 0.1, s = 0.05 -> relative 0.5, absolute 0.05
    t, s = [0.5, 0.1], [0.4, 0.05]
    assert _order(get_operator("relative"), t, s) == [1, 0]
    assert _order(get_operator("absolute"), t, s) == [0, 1]
    # combined: 0.5*0.1 + 0.5*0.04 = 0.07 vs 0.5*0.05 + 0.5*0.25 = 0.15 -> [1, 0]
    # here, but user 2 (t = 0.6, s = 0.3: 0.15 + 0.125 = 0.275, relative 0.5)
    # ties relative with user 1 while combined separates them
    c = get_operator("combined")
    assert c(0.6, 0.3) == pytest.approx(0.275)
    assert get_operator("relative")(0.6, 0.3) == pytest.approx(
        get_operator("relative")(0.1, 0.05))
    assert c(0.6, 0.3) != pytest.approx(c(0.1, 0.05))


def test_operator_names_and_errors() -> None:
    assert get_operator("Sigmoid-2").name == "sigmoid-2"
    assert get_operator("slurm_original").name == "slurm-original"
    assert get_operator("relative-5").n == 5
    with pytest.raises(OptionError, match="unknown"):
        get_operator("karma")
    with pytest.raises(OptionError, match="exponent"):
        get_operator("absolute-2")
    with pytest.raises(OptionError, match="k="):
        get_operator("combined", k=1.5)
