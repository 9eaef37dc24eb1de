"""overhead.stats.ci: intervals against statsmodels/scipy and textbook order statistics, the
normality-checked choice, degenerate inputs, and per-group frames."""

from __future__ import annotations

import math
from math import comb

import numpy as np
import pandas as pd
import pytest
from scipy import stats as st
from statsmodels.stats.weightstats import DescrStatsW

from overhead import stats
from overhead.schema import frame


@pytest.mark.parametrize("level", [0.9, 0.95, 0.99])
def test_t_interval_matches_statsmodels_and_scipy(level):
    x = np.random.default_rng(11).normal(50, 4, 17)
    iv = stats.t_interval(x, level)
    lo, hi = DescrStatsW(x).tconfint_mean(alpha=1 - level)
    assert (iv.low, iv.high) == pytest.approx((lo, hi), rel=1e-12)
    ref = st.t.interval(level, len(x) - 1, loc=np.mean(x), scale=st.sem(x))
    assert (iv.low, iv.high) == pytest.approx(ref, rel=1e-12)
    assert iv.method == "t" and iv.n == 17 and iv.reason is None


def test_bootstrap_is_scipy_bca_and_reproducible():
    x = np.random.default_rng(2).lognormal(0, 0.5, 25)
    iv = stats.bootstrap_interval(x, n_resamples=2000, rng=42)
    ref = st.bootstrap((np.sort(x),), np.mean, n_resamples=2000, method="BCa",
                       rng=np.random.default_rng(42)).confidence_interval
    assert (iv.low, iv.high) == pytest.approx((ref.low, ref.high), rel=1e-12)
    again = stats.bootstrap_interval(x, n_resamples=2000, rng=42)
    assert (again.low, again.high) == (iv.low, iv.high)
    other = stats.bootstrap_interval(x, n_resamples=2000, rng=43)
    assert other.low != iv.low
    # the trials in another order (randomized rounds make the order arbitrary): the same interval
    shuffled = stats.bootstrap_interval(np.random.default_rng(3).permutation(x), n_resamples=2000, rng=42)
    assert (shuffled.low, shuffled.high) == (iv.low, iv.high)
    med = stats.bootstrap_interval(x, "median", n_resamples=2000)
    assert med.estimate == pytest.approx(np.median(x)) and med.low < med.estimate < med.high
    hm = stats.bootstrap_interval(x, "harmonic", n_resamples=2000)
    assert hm.estimate == pytest.approx(st.hmean(x))
    assert iv.method == "bootstrap-BCa"


def _exact_median_ci(n, level):
    """Independent reference: largest r with sum_{i<r} C(n,i)/2^n <= (1-level)/2, by integers."""
    best = None
    for r in range(1, n // 2 + 1):
        tail = sum(comb(n, i) for i in range(r)) / 2 ** n
        if tail <= (1 - level) / 2:
            best = (r, 1 - 2 * tail)
    return best


@pytest.mark.parametrize("n", [6, 10, 20, 30, 101])
def test_median_interval_order_statistics(n):
    x = np.random.default_rng(n).normal(size=n)
    iv = stats.median_interval(x)
    r, coverage = _exact_median_ci(n, 0.95)
    srt = np.sort(x)
    assert (iv.low, iv.high) == (srt[r - 1], srt[n - r])
    assert iv.achieved_level == pytest.approx(coverage)
    assert iv.achieved_level >= 0.95


def test_median_interval_textbook_values():
    # Campbell & Gardner, "Calculating confidence intervals for some non-parametric analyses",
    # BMJ 1988 (table reproduced in Altman et al., Statistics with Confidence): for n = 10 the
    # 95% interval for the median is (x(2), x(9)), exact level 1 - 2 * 11/1024 = 97.9%.
    iv = stats.median_interval(np.arange(1.0, 11.0))
    assert (iv.low, iv.high) == (2.0, 9.0)
    assert iv.achieved_level == pytest.approx(0.978515625)
    # n = 5: even (min, max) covers only 1 - 2/32 = 93.75% < 95% -> NaN with the reason
    small = stats.median_interval([1.0, 2, 3, 4, 5])
    assert math.isnan(small.low) and "93.75%" in small.reason
    assert small.estimate == 3.0


def test_auto_interval_follows_the_quantity_s_range():
    rng = np.random.default_rng(5)
    normal = rng.normal(100, 5, 30)
    iv = stats.auto_interval(normal)
    # positive values: the log-t interval, [m / f, m f] with f = exp(t s / (m sqrt n))
    m, s, n = normal.mean(), normal.std(ddof=1), normal.size
    f = math.exp(st.t.ppf(0.975, n - 1) * s / (m * math.sqrt(n)))
    assert iv.method == "log-t" and (iv.low, iv.high) == pytest.approx((m / f, m * f), rel=1e-12)
    assert iv.normality_p == pytest.approx(st.shapiro(normal).pvalue)  # reported, not deciding
    # a noisy positive quantity at n=3: t reaches below zero, log-t never does
    noisy = [0.3, 9.5, 14.0]
    assert stats.t_interval(noisy).low < 0 < stats.auto_interval(noisy).low
    # signed values: Student-t
    signed = normal - 100
    assert stats.auto_interval(signed).method == "t"
    assert stats.auto_interval(signed).low == stats.t_interval(signed).low
    # a share (CPU busy %): logit-t, inside (0, 100) even where t would pass 100
    busy = [41.0, 98.0, 99.5]
    assert stats.t_interval(busy).high > 100
    share = stats.auto_interval(busy, bounds="percent")
    assert share.method == "logit-t" and 0 < share.low < share.estimate < share.high < 100
    p = np.mean(busy) / 100
    half = st.t.ppf(0.975, 2) * np.std(busy, ddof=1) / (100 * p * (1 - p) * math.sqrt(3))
    lo = 100 / (1 + math.exp(-(math.log(p / (1 - p)) - half)))
    assert share.low == pytest.approx(lo, rel=1e-12)
    # n = 2 gets an interval now (t with one degree of freedom on the log scale)
    two = stats.auto_interval([1.0, 2.0])
    assert two.method == "log-t" and 0 < two.low < 1.5 < two.high
    assert math.isnan(two.normality_p)
    with pytest.raises(stats.StatsError, match="bounds"):
        stats.auto_interval(normal, bounds="wide")


def test_degenerate_and_missing_inputs_give_nan_with_reason():
    t = stats.t_interval([4.0, 4.0, 4.0])
    assert t.estimate == 4.0 and math.isnan(t.low) and "degenerate" in t.reason
    b = stats.bootstrap_interval([4.0] * 8)
    assert math.isnan(b.low) and "zero variance" in b.reason
    assert "n >= 2" in stats.t_interval([1.0]).reason
    assert "n >= 3" in stats.bootstrap_interval([1.0, 2.0]).reason
    nan = stats.t_interval([1.0, np.nan, 3.0])
    assert math.isnan(nan.estimate) and "missing" in nan.reason and nan.n == 3
    na = stats.t_interval(pd.Series([1.0, None, 2.0], dtype="Float64"))
    assert math.isnan(na.low) and "missing" in na.reason
    assert "empty" in stats.median_interval([]).reason
    p, passed, why = stats.normality([2.0, 2.0, 2.0, 2.0])
    assert math.isnan(p) and passed is None and "zero variance" in why
    small = stats.bootstrap_interval(np.arange(6.0), n_resamples=999)
    assert math.isfinite(small.low) and "undercover" in small.reason
    with pytest.raises(stats.StatsError, match="level"):
        stats.t_interval([1.0, 2.0], level=95)
    with pytest.raises(stats.StatsError, match="statistic"):
        stats.bootstrap_interval([1.0, 2.0, 3.0], "mode")


def test_intervals_per_group_equal_scalar_results():
    rng = np.random.default_rng(9)
    a, b = rng.normal(10, 1, 12), rng.normal(20, 2, 15)
    rows = [dict(benchmark="x", environment=e, metric="m", unit="s", value=v, source="s")
            for e, vals in (("native", a), ("kvm", b)) for v in vals]
    rows.append(dict(benchmark="x", environment="docker", metric="m", unit="s", value=1.0, source="s"))
    df = frame(rows)
    out = stats.intervals(df, method="t").set_index("environment")
    assert out.loc["native", "low"] == stats.t_interval(a).low
    assert math.isnan(out.loc["docker", "low"]) and "n >= 2" in out.loc["docker", "reason"]
    boot = stats.intervals(df, method="bootstrap", n_resamples=999).set_index("environment")
    # each group gets its own Generator from the seed: the same with or without other groups
    alone = stats.intervals(df[df.environment == "kvm"], method="bootstrap", n_resamples=999)
    assert boot.loc["kvm", "low"] == alone["low"].iloc[0]
    med = stats.intervals(df, method="median").set_index("environment")
    assert med.loc["kvm", "achieved_level"] >= 0.95
    auto = stats.intervals(df).set_index("environment")
    assert set(auto["method"].dropna()) == {"log-t"}
    assert auto.loc["native", "low"] == stats.log_t_interval(a).low
    assert auto.loc["native", "normality_p"] == pytest.approx(st.shapiro(a).pvalue)
    pct = stats.intervals(df.assign(unit="%")).set_index("environment")
    assert pct.loc["native", "method"] == "logit-t"
    with pytest.raises(stats.StatsError, match="method"):
        stats.intervals(df, method="wild")
