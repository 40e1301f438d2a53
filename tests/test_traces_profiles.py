"""I/O profiles for trace jobs: names, seeds, seed-000 moments, Darshan data."""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import pytest

from opt_sched.errors import OptionError
from opt_sched.traces import make_profile
from opt_sched.traces.profiles.darshan import load_darshan, size_classes
from opt_sched.traces.profiles.seed000 import (
    SEED000_SD,
    BiNormalProfile,
    draw_bn_fractions,
    draw_no_fractions,
)
from opt_sched.traces.truncnorm import (
    loc_for_truncated_mean,
    normal_ppf,
    truncated_normal_mean,
)

from .paths import shared_data_dir

NODES = np.array([1, 1, 2, 4, 8, 16, 3, 1, 64, 2] * 50)
RUN = np.linspace(10.0, 5000.0, len(NODES))




# -- registry --------------------------------------------------------------------
def test_unknown_profile_and_option_are_named():
    with pytest.raises(OptionError) as err:
        make_profile("lognormal")
    assert str(err.value) == ("io profile 'lognormal' is unknown (choose from none, "
                              "bn, no, darshan-mira, darshan-edison, darshan-cori)")
    with pytest.raises(OptionError, match="io profile 'bn': unknown option 'mean'"):
        make_profile("bn", mean=0.3)
    with pytest.raises(OptionError, match=r"high_share=1.5 must be in \[0, 1\]"):
        make_profile("bn", high_share=1.5)
    with pytest.raises(OptionError, match="max_iterations=5 < min_iterations=10"):
        make_profile("no", mean=0.2, max_iterations=5)
    with pytest.raises(OptionError, match="needs mean="):
        make_profile("no").draw(NODES, RUN, 0)
    with pytest.raises(OptionError, match="seed=-1"):
        make_profile("bn").draw(NODES, RUN, -1)


def test_none_profile():
    draw = make_profile("none").draw(NODES, RUN, 3)
    assert not draw.fractions.any() and (draw.iterations == 1).all()


# -- determinism -------------------------------------------------------------------
@pytest.mark.parametrize("name", ["bn", "no"])
def test_same_seed_same_draws(name):
    options = {"mean": 0.4} if name == "no" else {}
    a = make_profile(name, **options).draw(NODES, RUN, 7)
    b = make_profile(name, **options).draw(NODES, RUN, 7)
    c = make_profile(name, **options).draw(NODES, RUN, 8)
    assert np.array_equal(a.fractions, b.fractions)
    assert np.array_equal(a.iterations, b.iterations)
    assert not np.array_equal(a.fractions, c.fractions)
    assert not np.array_equal(a.iterations, c.iterations)


def test_iterations_are_shared_across_profiles_and_in_range():
    bn = make_profile("bn").draw(NODES, RUN, 11)
    no = make_profile("no", mean=0.2).draw(NODES, RUN, 11)
    assert np.array_equal(bn.iterations, no.iterations)
    big = make_profile("bn").draw(np.ones(20000), np.ones(20000), 1).iterations
    assert big.min() == 10 and big.max() == 100          # U{10..100}
    # sd of U{10..100} = sqrt((91**2 - 1) / 12) = 26.3: standard error 0.19
    assert abs(big.mean() - 55.0) < 1.1                  # 6 standard errors


# -- seed 000 moments ----------------------------------------------------------------
def _integrated_mean(loc: float, sd: float) -> float:
    """E[X] of the truncated normal by trapezoid integration (independent)."""
    x = np.linspace(0.0, 1.0, 200001)
    density = np.exp(-0.5 * ((x - loc) / sd) ** 2)
    return float(np.trapezoid(x * density, x) / np.trapezoid(density, x))


def test_truncated_mean_formula_against_integration():
    for loc, sd in ((0.1, SEED000_SD), (0.9, SEED000_SD), (0.1, 0.1), (0.5, 0.3),
                    (-1.0, 0.5), (1.7, 0.2)):
        assert truncated_normal_mean(loc, sd) == pytest.approx(
            _integrated_mean(loc, sd), abs=1e-9)


def test_bn_truncated_means_need_sd_sqrt_point_one():
    rng = np.random.default_rng(2024)
    n = 200_000
    low, _ = draw_bn_fractions(rng, n, 0.0)
    high, _ = draw_bn_fractions(rng, n, 1.0)
    # seed 000 prints 0.289 / 0.711; standard error about 0.0005
    assert low.mean() == pytest.approx(0.289, abs=0.003)
    assert high.mean() == pytest.approx(0.711, abs=0.003)
    assert low.min() >= 0.0 and high.max() <= 1.0
    # with sd = 0.1 the means would be 0.129 / 0.871: not the seed's
    narrow, _ = draw_bn_fractions(rng, n, 0.0, sd=0.1)
    assert narrow.mean() == pytest.approx(0.129, abs=0.002)


def test_bn_mixing_share():
    rng = np.random.default_rng(5)
    _, is_high = draw_bn_fractions(rng, 100_000, 0.3)
    assert is_high.mean() == pytest.approx(0.3, abs=0.01)   # 7 standard errors
    profile = BiNormalProfile()
    mu1, mu2 = profile.class_means()
    assert profile.share_for_mean(mu1 + 0.3 * (mu2 - mu1)) == pytest.approx(0.3)
    assert profile.share_for_mean(0.01) == 0.0 and profile.share_for_mean(0.99) == 1.0


def test_no_profile_mean_and_its_inverse():
    rng = np.random.default_rng(9)
    for loc in (0.2, 0.5, -1.5):
        x = draw_no_fractions(rng, 100_000, loc)
        assert x.mean() == pytest.approx(truncated_normal_mean(loc, SEED000_SD),
                                         abs=0.004)
    for mean in (0.05, 0.3, 0.5, 0.93):
        loc = loc_for_truncated_mean(mean, SEED000_SD)
        assert truncated_normal_mean(loc, SEED000_SD) == pytest.approx(mean,
                                                                       abs=1e-12)


def test_normal_ppf_matches_the_standard_library():
    p = np.concatenate([np.linspace(1e-9, 1 - 1e-9, 20001),
                        np.logspace(-300, -2, 300)])
    expected = np.array([NormalDist().inv_cdf(float(x)) for x in p])
    assert np.max(np.abs(normal_ppf(p) - expected)) < 1e-13


# -- Darshan ---------------------------------------------------------------------------
def test_size_classes_by_mid_quantile():
    # 6 jobs; the data has two classes of shares 0.5 / 0.5 (F = 0.5, 1).
    # mid-quantiles: size 1 -> (0 + 3) / 12 = 0.25 -> class 0;
    # size 2 -> (3 + 4) / 12 = 0.58 -> class 1; sizes 4 and 8 -> class 1.
    nodes = np.array([1, 1, 1, 2, 4, 8])
    assert size_classes(nodes, np.array([0.5, 1.0])).tolist() == [0, 0, 0, 1, 1, 1]
    assert size_classes(nodes, np.array([1.0])).tolist() == [0] * 6


def _darshan_frame(system: str):
    import pandas as pd

    path = next((shared_data_dir() / "darshan").glob(f"{system}-summaries*.csv.gz"))
    return pd.read_csv(path, usecols=["darshan_nprocs", "darshan_walltime",
                                      "darshan_io_time", "darshan_total_gibs_posix",
                                      "darshan_agg_perf_by_slowest_posix"])


def test_darshan_io_time_column_semantics():
    """Why the profile computes t_io from bytes / bandwidth: darshan_io_time
    is that value where non-zero, and 0 (missing) for many jobs with GiBs."""
    frame = _darshan_frame("cori")
    t_io = (frame.darshan_total_gibs_posix * 1024
            / frame.darshan_agg_perf_by_slowest_posix)
    nonzero = frame.darshan_io_time > 0
    assert np.allclose(frame.darshan_io_time[nonzero], t_io[nonzero], rtol=1e-5)
    zero_with_data = (~nonzero) & (frame.darshan_total_gibs_posix > 0)
    assert 0.4 < zero_with_data.mean() < 0.5


@pytest.mark.parametrize("system", ["cori", "edison", "mira"])
def test_darshan_fractions_come_from_the_data(system):
    frame = _darshan_frame(system).dropna()
    frame = frame[(frame.darshan_walltime > 0)
                  & (frame.darshan_agg_perf_by_slowest_posix > 0)
                  & (frame.darshan_total_gibs_posix > 0)]
    share = np.clip(frame.darshan_total_gibs_posix * 1024
                    / frame.darshan_agg_perf_by_slowest_posix
                    / frame.darshan_walltime, 0, 1)
    profile = make_profile(f"darshan-{system}",
                           data_dir=str(shared_data_dir() / "darshan"))
    draw = profile.draw(NODES, RUN, 4)
    classes = sorted(frame.darshan_nprocs.unique())
    job_class = size_classes(NODES, load_darshan(
        system, shared_data_dir() / "darshan").cumulative_shares)
    for k, nprocs in enumerate(classes):
        allowed = set(share[frame.darshan_nprocs == nprocs].round(12))
        mine = draw.fractions[job_class == k]
        assert all(round(x, 12) in allowed for x in mine)
        if len(mine):
            data = share[frame.darshan_nprocs == nprocs]
            assert data.min() <= mine.min() and mine.max() <= data.max()
    assert draw.bandwidth == pytest.approx(
        float(np.median(frame.darshan_agg_perf_by_slowest_posix)))
    again = profile.draw(NODES, RUN, 4)
    assert np.array_equal(draw.fractions, again.fractions)


def test_darshan_missing_folder_is_an_option_error(tmp_path):
    profile = make_profile("darshan-mira", data_dir=str(tmp_path))
    with pytest.raises(OptionError, match="no mira-summaries"):
        profile.draw(NODES, RUN, 0)


def test_truncated_normal_tails_are_finite():
    rng = np.random.default_rng(0)
    for loc in (-8.0, 9.0):
        x = draw_no_fractions(rng, 1000, loc)
        assert np.isfinite(x).all() and (x >= 0).all() and (x <= 1).all()
        assert x.mean() == pytest.approx(truncated_normal_mean(loc, SEED000_SD),
                                         rel=0.2)
    assert not math.isnan(truncated_normal_mean(-30.0, 0.1))
