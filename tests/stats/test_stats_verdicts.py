"""overhead.stats.verdicts: every comparison's verdict, read off the one interval it prints.

The numbers are recomputed here from their definitions (Fieller's pivot, the log-t interval,
the Welch-Satterthwaite df) with scipy, never copied from the code under test.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as st

from overhead import stats
from overhead.stats import Margin

M3 = Margin.symmetric(3.0, "test band")


def test_margin_is_a_band_around_one():
    assert (M3.low, M3.high) == (0.97, 1.03) and M3.words() == "\u00b13%"
    assert Margin(-2.0, 5.0).words() == "-2%/+5%"
    for bad in ((1.0, 3.0), (-3.0, -1.0), (-100.0, 3.0), (-3.0, math.inf)):
        with pytest.raises(stats.StatsError, match="margin"):
            Margin(*bad)


def _fieller_p(x, y, r0):
    """Two-sided p of Fieller's pivot at r0, df Welch-Satterthwaite at the estimate."""
    nx, ny = len(x), len(y)
    a, b = np.mean(x), np.mean(y)
    va, vb = np.var(x, ddof=1) / nx, np.var(y, ddof=1) / ny
    r = a / b
    df = (va + r * r * vb) ** 2 / (va ** 2 / (nx - 1) + (r * r * vb) ** 2 / (ny - 1))
    t = (a - r0 * b) / math.sqrt(va + r0 * r0 * vb)
    return t, df


def test_equivalent_when_the_interval_lies_inside_the_margin():
    x = [100.2, 99.9, 100.4, 100.0, 99.8]
    y = [100.0, 100.3, 99.7, 100.1, 99.9]
    v = stats.decide(x, y, M3, higher_is_better=True)
    assert v.verdict == "equivalent" and v.interval.method == "fieller"
    f = stats.fieller(x, y)
    assert (v.interval.low, v.interval.high) == (f.low, f.high)
    assert 0.97 < f.low < f.high < 1.03
    # TOST: both one-sided p-values at the bounds under 2.5%, exactly when the 95% interval is inside
    tlo, df = _fieller_p(x, y, 0.97)
    thi, _ = _fieller_p(x, y, 1.03)
    assert v.p_equivalence == pytest.approx(max(st.t.sf(tlo, df), st.t.cdf(thi, df)))
    assert v.p_equivalence < 0.025
    assert v.words().startswith("equivalent within \u00b13%: ") and "(95% CI, n=5/5)" in v.words()


def test_slower_and_beyond_the_margin():
    x, y = [5.0, 6.0, 7.0], [10.0, 11.0, 9.0]
    v = stats.decide(x, y, M3, higher_is_better=True)
    assert v.verdict == "slower" and v.beyond_margin is True
    assert v.interval.high < 0.97
    t1, df = _fieller_p(x, y, 1.0)
    assert v.p_difference == pytest.approx(2 * st.t.sf(abs(t1), df)) and v.p_difference < 0.05
    # a latency: lower is better, so the same ratio is "faster"; no direction: "lower"
    assert stats.decide(x, y, M3, higher_is_better=False).verdict == "faster"
    assert stats.decide(x, y, M3).verdict == "lower"
    assert stats.decide(y, x, M3).verdict == "higher"


def test_a_difference_within_the_margin_is_not_beyond_it():
    rng = np.random.default_rng(4)
    x, y = rng.normal(101.5, 0.5, 30), rng.normal(100.0, 0.5, 30)
    v = stats.decide(x, y, Margin.symmetric(5.0))
    # 1.5% higher, clearly different from 1 and clearly inside +-5%: a difference smaller than
    # the margin, so equivalent (and the words say both)
    assert v.verdict == "equivalent" and v.interval.low > 1.0
    assert "a difference smaller than the margin" in v.words()
    w = stats.decide(x, y, Margin.symmetric(1.5))  # +1.44% [+1.18, +1.70]: past +1.5% only in part
    assert w.verdict == "higher" and w.beyond_margin is False
    assert "not shown to exceed the \u00b11.5% margin" in w.words()


def test_inconclusive_says_how_many_trials_would_decide():
    x, y = [9.0, 11.0, 13.0], [10.0, 12.0, 8.0]
    v = stats.decide(x, y, M3, higher_is_better=True)
    assert v.verdict == "inconclusive"
    assert v.interval.low < 0.97 and v.interval.high > 1.03 and v.interval.low < 1 < v.interval.high
    k = v.trials_needed
    # the smallest k whose log-scale half-width t(2k-2) sqrt(cv2/k) is under the goal
    cv2 = np.var(x, ddof=1) / np.mean(x) ** 2 + np.var(y, ddof=1) / np.mean(y) ** 2
    lr = math.log(np.mean(x) / np.mean(y))
    goal = max(abs(lr), min(lr - math.log(0.97), math.log(1.03) - lr))
    assert st.t.ppf(0.975, 2 * k - 2) * math.sqrt(cv2 / k) < goal
    assert st.t.ppf(0.975, 2 * k - 4) * math.sqrt(cv2 / (k - 1)) >= goal
    assert f"about {k} trials per side would decide it" in v.words()


def test_the_issue_s_linpack_tcg_row_is_slower_not_unbounded():
    """Native Linpack with a CV of 47% at n=3: its mean is not significantly above 0, so
    Fieller's set is unbounded; the ratio of positive quantities is then given by the log-t
    interval, finite and positive, and the 97% slowdown is decided."""
    x, y = [0.30, 0.31, 0.29], [9.5, 5.0, 14.0]
    assert stats.fieller(x, y).kind != "bounded"
    v = stats.decide(x, y, M3, higher_is_better=True)
    assert v.interval.method == "log-t" and "log-t interval" in v.interval.reason
    lr = math.log(np.mean(x) / np.mean(y))
    vx = np.var(x, ddof=1) / (3 * np.mean(x) ** 2)
    vy = np.var(y, ddof=1) / (3 * np.mean(y) ** 2)
    df = (vx + vy) ** 2 / (vx ** 2 / 2 + vy ** 2 / 2)
    half = st.t.ppf(0.975, df) * math.sqrt(vx + vy)
    assert (v.interval.low, v.interval.high) == pytest.approx((math.exp(lr - half), math.exp(lr + half)))
    assert v.verdict == "slower" and v.beyond_margin
    assert v.p_difference == pytest.approx(2 * st.t.sf(abs(lr) / math.sqrt(vx + vy), df))


def test_not_tested_without_an_interval():
    assert stats.decide([10.0], [10.0, 11.0], M3).verdict == "not tested"
    flat = stats.decide([10.0] * 3, [10.0] * 3, M3)
    assert flat.verdict == "not tested" and "zero variance" in flat.reason
    assert stats.decide([1.0, np.nan], [1.0, 2.0], M3).verdict == "not tested"


def test_signed_quantities_use_fieller_unclipped():
    x, y = [-1.0, 2.0, 3.0], [5.0, 6.0, 7.0]
    iv = stats.ratio_interval(x, y)
    f = stats.fieller(x, y)
    assert iv.method == "fieller" and (iv.low, iv.high) == (f.low, f.high) and iv.low < 0
    # positive samples: a negative Fieller lower end is raised to 0 (no ratio can be there)
    pos = stats.ratio_interval([0.1, 2.0, 4.0], [5.0, 6.0, 7.0])
    raw = stats.fieller([0.1, 2.0, 4.0], [5.0, 6.0, 7.0])
    assert raw.low < 0 and pos.low == 0.0 and pos.high == raw.high and "raised to 0" in pos.reason


def frame():
    rng = np.random.default_rng(21)
    rows = []
    for env, shift in (("native", 1.0), ("docker", 1.0), ("kvm", 0.9)):
        for bench in ("a", "b"):
            for i, v in enumerate(rng.normal(100 * shift, 0.5, 6)):
                rows.append(dict(benchmark=bench, environment=env, metric="rate", unit="op/s",
                                 higher_is_better=True, value=v, trial=i + 1))
    return pd.DataFrame(rows)


def test_verdicts_frame_decides_each_group_with_its_margin():
    df = frame()
    margins = {"a": Margin.symmetric(3.0, "a's band"), "b": Margin.symmetric(0.01, "b's band")}
    out = stats.verdicts(df, "native", lambda key: margins[key["benchmark"]],
                         ["benchmark", "environment"])
    assert list(out.columns) == ["benchmark", "environment", *stats.VERDICT_COLUMNS]
    kvm = out[(out.environment == "kvm") & (out.benchmark == "a")].iloc[0]
    x = df[(df.environment == "kvm") & (df.benchmark == "a")].value.to_numpy()
    y = df[(df.environment == "native") & (df.benchmark == "a")].value.to_numpy()
    v = stats.decide(x, y, margins["a"], higher_is_better=True)
    assert (kvm.verdict, kvm.ratio_low, kvm.ratio_high) == (v.verdict, v.interval.low, v.interval.high)
    assert kvm.verdict == "slower" and kvm.margin_reason == "a's band" and kvm.margin_low_pct == -3.0
    assert (kvm.n, kvm.n_baseline, kvm.ci_level) == (6, 6, 0.95)
    # Holm over the four comparisons of the frame
    from statsmodels.stats.multitest import multipletests

    assert out.p_difference_holm.to_numpy() == pytest.approx(
        multipletests(out.p_difference.to_numpy(), method="holm")[1])
    docker_b = out[(out.environment == "docker") & (out.benchmark == "b")].iloc[0]
    assert docker_b.verdict == "inconclusive" and docker_b.trials_needed > 6  # +-0.01% is tight
    assert stats.check_verdicts(out) == []


def test_verdicts_ignore_the_order_of_trials():
    df = frame()
    a = stats.verdicts(df, "native", M3, ["benchmark", "environment"])
    b = stats.verdicts(df.sample(frac=1.0, random_state=1), "native", M3, ["benchmark", "environment"])
    pd.testing.assert_frame_equal(a, b, check_exact=False, rtol=1e-12)


def test_check_verdicts_finds_contradictions():
    good = pd.DataFrame({"verdict": ["equivalent", "slower", "inconclusive", "higher", "baseline"],
                         "ratio_low": [0.98, 0.5, 0.9, 1.1, np.nan], "ratio_high": [1.01, 0.8, 1.2, 1.3, np.nan],
                         "margin_low_pct": [-3.0] * 5, "margin_high_pct": [3.0] * 5})
    assert stats.check_verdicts(good) == []
    bad = good.copy()
    bad.loc[0, "ratio_high"] = 1.05          # "equivalent" reaching past the margin
    bad.loc[1, "ratio_high"] = 1.1           # "slower" whose interval holds 1
    bad.loc[3, "verdict"] = "lower"          # says lower, interval above 1
    found = stats.check_verdicts(bad)
    assert [line.split(":")[0] for line in found] == ["row 0", "row 1", "row 3"]
    said = pd.DataFrame({"verdict": ["no significant difference"], "ratio_low": [0.5], "ratio_high": [2.0]})
    assert "claims sameness" in stats.check_verdicts(said)[0]
    pct = pd.DataFrame({"verdict": ["equivalent"], "pct_low": [-1.0], "pct_high": [2.0],
                        "margin_low_pct": [-3.0], "margin_high_pct": [3.0]})
    assert stats.check_verdicts(pct, low="pct_low", high="pct_high", pct=True) == []


def test_trials_to_decide_is_more_than_the_smaller_side_has():
    # a wide 2-vs-2 comparison whose normal-quantile estimate is 2: the 2 in hand did not decide
    x, y = [100.0, 104.0], [101.0, 97.0]
    v = stats.decide(x, y, M3, higher_is_better=True)
    assert v.verdict == "inconclusive" and v.trials_needed >= 3
    # unbalanced, 12 trials against 40 and undecided: the smaller side needs more, but the
    # estimate (20 per side) may well be below the 40 the larger side already has
    rng = np.random.default_rng(2)
    big, small = rng.normal(100, 4, 40), rng.normal(100, 4, 12)
    v = stats.decide(small, big, M3, higher_is_better=True)
    assert v.verdict == "inconclusive" and 12 < v.trials_needed < 40
