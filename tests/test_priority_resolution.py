"""Paper II §5: bits a 2,000 core-hour job needs to change a priority in a
5,256,000 core-hour pool (Fig. 17), with eq. 25 and the corrected formula."""

from __future__ import annotations

import numpy as np
import pytest

from opt_sched.priority.resolution import (
    THESIS_BITS,
    bits_needed,
    format_resolution_table,
    job_sizes,
    resolution_table,
)

# Fig. 17 as printed, transcribed from the thesis: operator, then the bits
# needed at balance, over-served and under-served.
FIG17_TEXT = """
absolute    12 14 12
relative     9 14  9
relative-2   9 15  8
sigmoid      9 12  9
sigmoid-2    6 11  9
slurm        9 13  8
combined    10 15  8
"""
FIG17 = {name: tuple(int(bits) for bits in rest)
         for name, *rest in (line.split() for line in FIG17_TEXT.strip().splitlines())}


@pytest.fixture(scope="module")
def thesis_table():
    return resolution_table(formula="thesis")


@pytest.fixture(scope="module")
def corrected_table():
    return resolution_table(formula="corrected")


def test_transcription() -> None:
    assert THESIS_BITS == FIG17


def test_absolute_by_hand(thesis_table, corrected_table) -> None:
    """Absolute: F = t - s, so every cell of 2^b levels is a state band of
    D = 2/r (r = 2^b). A job of k U moves the state s:

    - thesis eq. 25: k = (-(1+s) + sqrt((1+s)^2 + 4D))/2 ~ D/(1+s), smallest
      at the largest entry state s of the band. Balance: s -> 1 (t = 0.9,
      p = -0.1): U/r <= 2000 iff r >= 2628: 12 bits. Under: s -> 0.3 (t =
      0.9, p = 0.6): 2U/(1.3 r) <= 2000 iff r >= 4043: 12 bits (at r = 4096
      the job is 1974 h). Over: s -> 1 (t = 0.1, p = -0.9): 12 bits.
    - corrected: k = D/(1 - s - D), smallest at the smallest s. Balance and
      under: s -> 0: 2U/r <= 2000 iff r >= 5256: 13 bits. Over: s -> 0.7
      (t = 0.1, p = -0.6): 2U/(0.3 r) <= 2000 iff r >= 17520: 15 bits.

    The thesis prints 12/14/12: the over-target 14 follows from neither.
    """
    assert thesis_table["absolute"] == (12, 12, 12)
    assert corrected_table["absolute"] == (13, 15, 13)
    # the under-target job at 12 bits, eq. 25, s = 0.3 - 2/4096
    sizes = job_sizes("absolute", 12, "under", formula="thesis", targets=[0.9])
    row = sizes[0][~np.isnan(sizes[0])]
    assert float(row.min()) == pytest.approx(1974.3, abs=0.5)


MATCHING = [("absolute", 0), ("relative", 0), ("relative-2", 0), ("sigmoid", 0),
            ("combined", 0), ("absolute", 2), ("relative", 2), ("sigmoid", 2),
            ("sigmoid-2", 2)]


@pytest.mark.parametrize(("name", "band"), MATCHING)
def test_reproduced_entries(thesis_table, name: str, band: int) -> None:
    """The entries eq. 25 reproduces exactly (balance = 0, under = 2)."""
    assert thesis_table[name][band] == FIG17[name][band]


def test_every_entry_within_three_bits(thesis_table) -> None:
    for name, printed in FIG17.items():
        for ours, theirs in zip(thesis_table[name], printed):
            assert abs(ours - theirs) <= 3, (name, ours, theirs)


def test_sigmoid2_has_the_best_resolving_power(thesis_table, corrected_table) -> None:
    """Paper II's conclusion: Sigmoid-2 needs the fewest bits around balance
    and over target (both formulas)."""
    for table in (thesis_table, corrected_table):
        for band in (0, 1):
            best = min(v[band] for v in table.values())
            assert table["sigmoid-2"][band] == best
        assert table["absolute"][0] == max(v[0] for v in table.values())


def test_corrected_formula_never_needs_fewer_bits(thesis_table,
                                                  corrected_table) -> None:
    # eq. 25: k = D / (1 + s + k); corrected: k = D / (1 - s - D), whose
    # denominator is smaller for every s >= 0, D > 0: a larger job is needed
    for name in FIG17:
        for ours, fixed in zip(thesis_table[name], corrected_table[name]):
            assert fixed >= ours


def test_bits_needed_monotone_in_job_size() -> None:
    small = bits_needed("sigmoid-2", "balance", job=500.0)
    large = bits_needed("sigmoid-2", "balance", job=8000.0)
    assert small > large


def test_format_table_lists_every_operator() -> None:
    text = format_resolution_table()
    for name in FIG17:
        assert name in text
    assert "12/14/12 (14)" in text and "13/15/13 (15)" in text
