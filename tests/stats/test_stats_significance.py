"""overhead.stats.significance: tests against scipy/statsmodels, Holm (not BH), effect sizes
against statsmodels and exact identities, and the per-group comparison tables."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs
from scipy import stats as st
from statsmodels.stats.meta_analysis import effectsize_smd
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.weightstats import ttest_ind as sm_ttest_ind

from overhead import stats
from overhead.schema import frame


def samples(seed=1):
    rng = np.random.default_rng(seed)
    return rng.normal(10, 1, 12), rng.normal(11, 2, 9)


def test_welch_matches_statsmodels_and_scipy():
    x, y = samples()
    w = stats.welch(x, y)
    t, p, df = sm_ttest_ind(x, y, usevar="unequal")
    assert (w.statistic, w.pvalue, w.df) == pytest.approx((t, p, df), rel=1e-12)
    ref = st.ttest_ind(x, y, equal_var=False)
    assert (w.statistic, w.pvalue) == pytest.approx((ref.statistic, ref.pvalue), rel=1e-12)
    assert "n >= 2" in stats.welch([1.0], y).reason
    assert "zero variance" in stats.welch([1.0, 1.0], [2.0, 2.0]).reason


def test_mann_whitney_and_kruskal_match_scipy():
    x, y = samples(2)
    m = stats.mann_whitney(x, y)
    ref = st.mannwhitneyu(x, y, alternative="two-sided")
    assert (m.statistic, m.pvalue) == (ref.statistic, ref.pvalue)
    z = x + 0.5
    k = stats.kruskal_wallis(x, y, z)
    ref = st.kruskal(x, y, z)
    assert (k.statistic, k.pvalue) == pytest.approx((ref.statistic, ref.pvalue))
    assert "all values equal" in stats.kruskal_wallis([1.0, 1.0], [1.0]).reason
    assert "at least 2" in stats.kruskal_wallis([1.0, 2.0]).reason
    assert "missing" in stats.mann_whitney([1.0, np.nan], [2.0]).reason


def test_holm_is_holm_not_bh():
    p = [0.01, 0.04, 0.03, 0.005]
    # by hand (Holm 1979): sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1 = 0.02, 0.03, 0.06,
    # 0.04; running maximum 0.02, 0.03, 0.06, 0.06; back in input order:
    assert stats.holm(p) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert stats.holm(p) == pytest.approx(multipletests(p, method="holm")[1])
    assert not np.allclose(stats.holm(p), st.false_discovery_control(p))  # BH differs
    out = stats.holm([0.01, np.nan, 0.04])  # NaN stays out of the family
    assert math.isnan(out[1]) and out[[0, 2]] == pytest.approx([0.02, 0.04])


def test_effect_sizes():
    x, y = samples(3)
    nx, ny = len(x), len(y)
    pooled = math.sqrt(((nx - 1) * x.var(ddof=1) + (ny - 1) * y.var(ddof=1)) / (nx + ny - 2))
    assert stats.cohens_d(x, y).value == pytest.approx((x.mean() - y.mean()) / pooled)
    g_ref, _ = effectsize_smd(x.mean(), x.std(ddof=1), nx, y.mean(), y.std(ddof=1), ny)
    assert stats.hedges_g(x, y).value == pytest.approx(g_ref, rel=1e-12)
    exact = stats.hedges_g(x, y, exact=True).value
    assert exact == pytest.approx(g_ref, rel=1e-3) and exact != g_ref
    u = st.mannwhitneyu(x, y).statistic
    assert stats.cliffs_delta(x, y).value == pytest.approx(2 * u / (nx * ny) - 1)
    assert float(stats.hodges_lehmann(x, y)) == pytest.approx(np.median([a - b for a in x for b in y]))
    assert "pooled SD is 0" in stats.cohens_d([1.0, 1.0], [2.0, 2.0]).reason
    assert math.isnan(stats.hedges_g([1.0], [2.0, 3.0]).value)


@settings(max_examples=60, deadline=None)
@given(hs.lists(hs.integers(-50, 50), min_size=1, max_size=12),
       hs.lists(hs.integers(-50, 50), min_size=1, max_size=12))
def test_cliff_matches_u_and_hl_centres_u(xs, ys):
    x, y = np.array(xs, float), np.array(ys, float)
    u = st.mannwhitneyu(x, y, method="asymptotic").statistic  # U counts ties as 1/2
    assert stats.cliffs_delta(x, y).value == pytest.approx(2 * u / (x.size * y.size) - 1)
    # Hodges-Lehmann: shifting x by the estimate balances the pairwise comparisons
    hl = stats.hodges_lehmann(x, y).value
    d = np.subtract.outer(x - hl, y)
    assert abs(int((d > 0).sum()) - int((d < 0).sum())) <= (d == 0).sum()


def table():
    rng = np.random.default_rng(21)
    rows = []
    for env, shift in (("native", 1.0), ("docker", 1.0), ("kvm", 0.968)):
        for bench in ("a", "b"):
            for i, v in enumerate(rng.normal(100 * shift, 0.5, 10)):
                rows.append(dict(benchmark=bench, environment=env, metric="rate", unit="op/s",
                                 higher_is_better=True, value=v, source=f"s:{i}", trial=i + 1))
    return frame(rows)


def test_compare_table():
    df = table()
    out = stats.compare(df)
    assert len(out) == 4
    kvm = out[(out.environment == "kvm") & (out.benchmark == "a")].iloc[0]
    x = df[(df.environment == "kvm") & (df.benchmark == "a")].value.to_numpy()
    y = df[(df.environment == "native") & (df.benchmark == "a")].value.to_numpy()
    assert kvm.welch_p == pytest.approx(st.ttest_ind(x, y, equal_var=False).pvalue)
    assert kvm.welch_p_holm == pytest.approx(
        multipletests(out.welch_p.to_numpy(), method="holm")[1][out.index.get_loc(kvm.name)])
    assert bool(kvm.significant) and kvm.welch_p_holm < 0.05
    assert kvm.pct == pytest.approx(100 * (x.mean() / y.mean() - 1))
    docker = out[out.environment == "docker"]
    # not rejected: "not significant" (False), which is no claim of sameness; no verdict column
    assert not docker.significant.any() and "verdict" not in out.columns
    assert kvm.mw_p_holm >= kvm.mw_p
    per = stats.compare(df, family="benchmark")
    fam = per[per.benchmark == "a"]
    assert fam.welch_p_holm.to_numpy() == pytest.approx(multipletests(fam.welch_p.to_numpy(), method="holm")[1])
    mw = stats.compare(df, test="mann-whitney")
    assert mw[mw.environment == "kvm"].significant.all()
    with pytest.raises(stats.StatsError, match="test"):
        stats.compare(df, test="anova")
    with pytest.raises(stats.BaselineNotFoundError):
        stats.compare(df, baseline="bml")


def test_kruskal_table():
    df = table()
    out = stats.kruskal(df)
    assert len(out) == 2 and set(out.k) == {3}
    a = df[df.benchmark == "a"]
    ref = st.kruskal(*(a[a.environment == e].value for e in ("docker", "kvm", "native")))
    row = out[out.benchmark == "a"].iloc[0]
    assert row.h == pytest.approx(ref.statistic) and row.p == pytest.approx(ref.pvalue)
    assert row.environments == "docker, kvm, native"
    assert row.outcome == "different"
    assert out.p_holm.to_numpy() == pytest.approx(multipletests(out.p.to_numpy(), method="holm")[1])
