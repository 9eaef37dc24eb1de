"""overhead.stats.curve (the per-point recipe of every curve figure), order_by, welch_difference.

curve is checked against the functions it promises to combine (auto_interval, decide), called
directly per point, and against statsmodels for the Welch interval; the data are seeded
simulations with known structure.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import statsmodels.stats.weightstats as ws

from overhead import stats

ENVS = ["Native", "Docker", "KVM"]


@pytest.fixture(scope="module")
def trials() -> pd.DataFrame:
    """10 trials per (workload, environment, load): KVM 30% slower, Docker the same as native."""
    rng = np.random.default_rng(7)
    rows = []
    for workload in ("read", "write"):
        for env, factor in (("KVM", 0.7), ("Native", 1.0), ("Docker", 1.0)):  # not in legend order
            for load in (1, 4, 16):
                for v in rng.normal(1000.0 * factor * np.log2(2 * load), 20.0, size=10):
                    rows.append({"workload": workload, "environment": env, "load": load, "value": v})
    return pd.DataFrame(rows).sample(frac=1.0, random_state=3).reset_index(drop=True)  # shuffled


MARGIN = stats.Margin.symmetric(3.0, "test: +-3%")


@pytest.fixture(scope="module")
def curve(trials) -> pd.DataFrame:
    return stats.curve(trials, "load", "Native", margin=MARGIN, by=["workload"],
                       higher_is_better=True,
                       order={"workload": ["write", "read"], "environment": ENVS})


def test_fixed_columns_and_order(curve):
    assert list(curve.columns) == ["workload", "environment", "load", *stats.CURVE_COLUMNS]
    assert len(curve) == 2 * 3 * 3
    # rows follow the given orders (write before read, Native, Docker, KVM), then the load
    keys = list(curve[["workload", "environment", "load"]].itertuples(index=False, name=None))
    assert keys == [(w, e, n) for w in ("write", "read") for e in ENVS for n in (1, 4, 16)]


def test_each_point_is_what_the_underlying_functions_give(trials, curve):
    row = curve[(curve.workload == "read") & (curve.environment == "KVM") & (curve.load == 4)].iloc[0]
    x = trials[(trials.workload == "read") & (trials.environment == "KVM") & (trials.load == 4)]["value"]
    y = trials[(trials.workload == "read") & (trials.environment == "Native") & (trials.load == 4)]["value"]
    iv = stats.auto_interval(x.to_numpy())
    assert row["n"] == 10 and row["mean"] == float(np.mean(x.to_numpy()))
    assert row["sd"] == pytest.approx(np.std(x, ddof=1), rel=1e-12)
    assert (row["ci_low"], row["ci_high"], row["ci_method"]) == (iv.low, iv.high, "log-t")
    v = stats.decide(x.to_numpy(), y.to_numpy(), MARGIN, higher_is_better=True)
    assert row["ratio"] == pytest.approx(v.interval.ratio)
    assert (row["ratio_low"], row["ratio_high"]) == pytest.approx((v.interval.low, v.interval.high))
    assert row["ratio_method"] == v.interval.method == "fieller"
    assert row["pct"] == pytest.approx(100 * (np.mean(x) / np.mean(y) - 1))
    assert row["p_difference"] == pytest.approx(v.p_difference)
    # KVM is 30% slower: the interval excludes 1 and lies wholly beyond the -3% bound
    assert row["verdict"] == "slower" and bool(row["beyond_margin"])
    assert row["verdict_detail"].startswith("slower: -3") and "beyond the \u00b13% margin" in row["verdict_detail"]
    assert row["ratio_high"] < 0.97


def test_baseline_rows_and_holm_families(curve):
    base = curve[curve.environment == "Native"]
    assert (base["ratio"] == 1.0).all() and (base["pct"] == 0.0).all()
    assert (base["verdict"] == "baseline").all() and base["p_difference"].isna().all()
    # Holm within each workload: 6 comparisons per family, so the smallest adjusted p is
    # 6 x the smallest raw p of that workload (or 1)
    for _, part in curve[curve.environment != "Native"].groupby("workload"):
        i = part["p_difference"].idxmin()
        assert part.loc[i, "p_difference_holm"] == pytest.approx(min(1.0, 6 * part.loc[i, "p_difference"]))
    # Docker draws from native's distribution: never "faster"/"slower" beyond the margin, and
    # "equivalent" only where its interval lies inside +-3% (checked for every row)
    docker = curve[curve.environment == "Docker"]
    assert not docker["beyond_margin"].fillna(False).any()
    assert set(docker["verdict"]) <= {"equivalent", "inconclusive", "faster", "slower"}
    assert (docker["verdict"] == "equivalent").sum() >= 3
    assert stats.check_verdicts(curve) == []


def test_no_baseline(trials):
    only = stats.curve(trials, "load", None, by=["workload"])
    assert only[["ratio", "p_difference", "mean_baseline"]].isna().all().all()
    assert only["verdict"].isna().all()
    with pytest.raises(stats.StatsError, match="margin"):
        stats.curve(trials, "load", "Native", by=["workload"])


def test_no_interval_depends_on_row_order(trials, curve):
    """The same trials in another order give the same table, to the last bit."""
    again = stats.curve(trials.iloc[::-1], "load", "Native", margin=MARGIN, by=["workload"],
                        higher_is_better=True,
                        order={"workload": ["write", "read"], "environment": ENVS})
    pd.testing.assert_frame_equal(curve, again, check_exact=False, rtol=1e-12)


def test_missing_column_and_baseline_raise(trials):
    with pytest.raises(stats.MissingColumnError, match="threads"):
        stats.curve(trials, "threads", "Native", margin=MARGIN)
    with pytest.raises(stats.BaselineNotFoundError):
        stats.curve(trials, "load", "Bare metal", margin=MARGIN)


def test_order_by_puts_unknown_values_last():
    df = pd.DataFrame({"environment": ["KVM", "zeta", "Native", "Docker", "Native"], "x": [1, 1, 2, 1, 1]})
    out = stats.order_by(df, {"environment": ["Native", "Docker", "KVM"]}, then=["x"])
    assert list(zip(out.environment, out.x, strict=True)) == [
        ("Native", 1), ("Native", 2), ("Docker", 1), ("KVM", 1), ("zeta", 1)]
    assert out["environment"].dtype == df["environment"].dtype  # sorting only, values unchanged


def test_welch_difference_matches_statsmodels():
    rng = np.random.default_rng(11)
    x, y = rng.normal(10, 1, 8), rng.normal(9, 3, 13)
    iv = stats.welch_difference(x, y, level=0.9)
    low, high = ws.CompareMeans(ws.DescrStatsW(x), ws.DescrStatsW(y)).tconfint_diff(alpha=0.1, usevar="unequal")
    assert iv.estimate == pytest.approx(x.mean() - y.mean())
    assert (iv.low, iv.high) == pytest.approx((low, high), rel=1e-12)
    assert iv.method == "welch" and iv.n == 21


def test_welch_difference_degenerate_inputs():
    assert "n >= 2" in stats.welch_difference([1.0], [1.0, 2.0]).reason
    flat = stats.welch_difference([2.0, 2.0], [1.0, 1.0])
    assert flat.estimate == 1.0 and np.isnan(flat.low) and "zero variance" in flat.reason
    assert np.isnan(stats.welch_difference([1.0, np.nan], [1.0, 2.0]).low)
