"""overhead.stats.curve (the per-point recipe of every curve figure), order_by, welch_difference.

curve is checked against the functions it promises to combine, called directly per point, and
against statsmodels for the Welch interval; the data are seeded simulations with known structure.
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


@pytest.fixture(scope="module")
def curve(trials) -> pd.DataFrame:
    return stats.curve(trials, "load", "Native", by=["workload"], n_resamples=999,
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
    iv = stats.auto_interval(x.to_numpy(), n_resamples=999)
    assert row["n"] == 10 and row["mean"] == float(np.mean(x.to_numpy()))
    assert row["sd"] == pytest.approx(np.std(x, ddof=1), rel=1e-12)
    assert (row["ci_low"], row["ci_high"], row["ci_method"]) == (iv.low, iv.high, iv.method)
    r = stats.ratio_bootstrap(x.to_numpy(), y.to_numpy(), n_resamples=999)
    assert row["ratio"] == pytest.approx(r.ratio) and row["ratio_low"] == pytest.approx(r.low)
    f = stats.fieller(x.to_numpy(), y.to_numpy())
    assert (row["fieller_low"], row["fieller_high"]) == pytest.approx((f.low, f.high))
    assert row["pct"] == pytest.approx(100 * (np.mean(x) / np.mean(y) - 1))
    assert row["welch_p"] == pytest.approx(stats.welch(x.to_numpy(), y.to_numpy()).pvalue)
    assert row["verdict"].startswith("significantly lower")


def test_baseline_rows_and_holm_families(curve):
    base = curve[curve.environment == "Native"]
    assert (base["ratio"] == 1.0).all() and (base["pct"] == 0.0).all()
    assert (base["verdict"] == "baseline").all() and base["welch_p"].isna().all()
    # Holm within each workload: 6 comparisons per family, so the smallest adjusted p is
    # 6 x the smallest raw p of that workload (or 1)
    for _, part in curve[curve.environment != "Native"].groupby("workload"):
        i = part["welch_p"].idxmin()
        assert part.loc[i, "welch_p_holm"] == pytest.approx(min(1.0, 6 * part.loc[i, "welch_p"]))
    docker = curve[curve.environment == "Docker"]
    assert (docker["verdict"] == "no significant difference").sum() >= 4  # same distribution


def test_no_baseline_and_no_ratios(trials):
    only = stats.curve(trials, "load", None, by=["workload"], n_resamples=99)
    assert only[["ratio", "welch_p", "mean_baseline"]].isna().all().all() and only["verdict"].isna().all()
    quick = stats.curve(trials, "load", "Native", by=["workload"], ratios=False, n_resamples=99)
    assert quick["ratio_low"].isna().all() and quick["welch_p"].notna().sum() == 12
    kvm = quick[quick.environment == "KVM"]
    assert (kvm["mean"] - kvm["mean_baseline"] < 0).all()  # mean_baseline still given


def test_only_bootstrap_intervals_depend_on_row_order(trials, curve):
    """The same trials in another order: everything but bootstrap intervals is unchanged (a
    bootstrap resamples the trials in the order they come; see curve's Notes)."""
    again = stats.curve(trials.iloc[::-1], "load", "Native", by=["workload"], n_resamples=999,
                        order={"workload": ["write", "read"], "environment": ENVS})
    t = curve["ci_method"] == "t"
    assert t.sum() >= 12
    fixed = ["n", "sd", "median", "pct", "welch_p", "welch_p_holm", "mw_p_holm", "hedges_g", "verdict",
             "fieller_low", "fieller_high"]
    pd.testing.assert_frame_equal(curve[fixed], again[fixed], check_exact=False, rtol=1e-12)
    pd.testing.assert_frame_equal(curve.loc[t, ["mean", "ci_low", "ci_high"]],
                                  again.loc[t, ["mean", "ci_low", "ci_high"]], check_exact=False, rtol=1e-12)


def test_missing_column_and_baseline_raise(trials):
    with pytest.raises(stats.MissingColumnError, match="threads"):
        stats.curve(trials, "threads", "Native")
    with pytest.raises(stats.BaselineNotFoundError):
        stats.curve(trials, "load", "Bare metal")


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
