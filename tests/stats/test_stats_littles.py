"""overhead.stats.littles on the IBM authors' MySQL runs (sysbench 0.4.12 OLTP read-only, 10
runs x 15 thread counts per configuration) and on synthetic curves with known answers.

sysbench 0.4 reports "per-request statistics" per event, and in the OLTP test an event is a
transaction ("total number of events" equals "transactions" in every report, checked below),
so with N threads in a closed loop Little's law N = X R should hold with X = transactions/s and
R = mean per-request latency.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from overhead import stats
from overhead.parsers import parse_file
from overhead.schema import concat, frame

CONFIGS = ("bml", "docker", "docker-nofs", "docker-nofs-nonet", "KVM")
METRICS = ["transaction_rate", "latency_mean", "transactions", "events", "total_time",
           "event_time_total"]


@pytest.fixture(scope="module")
def mysql(ibm):
    frames = []
    for env in CONFIGS:
        files = sorted((ibm / "mysql/results/performance-governor" / env).glob("records-*"))
        assert len(files) == 10
        for f in files:
            d = parse_file("sysbench", f)
            d = d[d.metric.isin(METRICS)].copy()
            d["environment"] = env
            d["run_id"] = f.name
            frames.append(d)
    return concat(frames)


@pytest.fixture(scope="module")
def points(mysql):
    return stats.littles_table(mysql)


def wide(mysql):
    keys = ["environment", "run_id", "p_report"]
    return mysql.pivot_table(index=keys, columns="metric", values="value").reset_index()


def test_littles_law_holds_within_half_a_percent(mysql, points):
    assert len(points) == 750 and set(points.latency_source) == {"measured"}
    assert points.groupby("environment").N.nunique().eq(15).all()
    rel = points.rel_residual
    by_env = points.groupby("environment").rel_residual.agg(["mean", "max"])
    print("\n|N - X R| / N per configuration:\n", (100 * by_env).round(3).to_string())
    # measured: 0.031% .. 0.478% (docker-nofs, 10 threads), mean 0.11%; always N > X R
    assert rel.max() < 0.005
    assert rel.min() > 0
    assert points.residual.abs().max() < 0.3  # threads; measured 0.29 (at 290 threads)


def test_why_the_residual_is_that_small(mysql, points):
    """N - X R = (N - C) + (C - X R), with C = event time / wall time the mean number of busy
    threads: the first part is thread start-up and shut-down inside "total time" (0.07% ..
    0.32% of N), the second the rounding of the printed X (0.01 tx/s) and R (0.01 ms)."""
    w = wide(mysql)
    assert (w.events == w.transactions).all()  # an event is a transaction
    # R is the event time per event, as printed (rounded to 0.01 ms)
    assert (w.event_time_total / w.events - w.latency_mean).abs().max() <= 0.005e-3 + 1e-12
    m = points.merge(w, on=["environment", "run_id", "p_report"])
    busy = m.event_time_total / m.total_time
    startup = (m.N - busy) / m.N
    assert startup.min() > 0 and startup.max() < 0.0033
    rounding = (busy - m.X * m.R).abs()
    bound = 0.005 * m.R + m.X * 0.005e-3 + 1e-9
    assert (rounding <= bound).all()
    assert (rounding / m.N).max() < 0.0018


def test_latency_fit_above_saturation_gives_the_plateau(points):
    """Above saturation R = N / X_sat, so the slope of R on N is 1 / X_sat: for the four
    saturated configurations 1/slope (N >= 150) is within 5% of the measured plateau (bml
    12,672/s vs 13,221/s: its throughput declines a little after the peak)."""
    fit = stats.latency_fit(points, min_concurrency=150).set_index("environment")
    sat = stats.saturation(points).set_index("environment")
    for env in ("bml", "docker", "docker-nofs", "docker-nofs-nonet"):
        assert fit.loc[env, "n_points"] == 80 and fit.loc[env, "r2"] > 0.99
        assert fit.loc[env, "x_saturation"] / sat.loc[env, "saturation"] == pytest.approx(1, abs=0.05)
    assert "may not be saturated" in sat.loc["KVM", "reason"]  # still rising at 290 threads
    implied = stats.latency_fit(points, latency="implied", min_concurrency=150).set_index("environment")
    assert (implied.slope / fit.slope).to_numpy() == pytest.approx(1, abs=0.01)


def test_added_latency_per_transaction(points):
    low = stats.added_latency(points, baseline="bml", max_concurrency=50).set_index("environment")
    sub = points[points.N <= 50]
    for env in ("KVM", "docker"):
        # balanced design (same thread counts and runs): the offset is the difference of means
        diff = sub[sub.environment == env].R.mean() - sub[sub.environment == "bml"].R.mean()
        assert low.loc[env, "estimate"] == pytest.approx(diff, rel=1e-9)
        assert low.loc[env, "low"] < low.loc[env, "estimate"] < low.loc[env, "high"]
    print(f"\nadded latency per transaction vs bml, 10-50 threads: KVM "
          f"{1e3 * low.loc['KVM', 'estimate']:.2f} ms, docker {1e3 * low.loc['docker', 'estimate']:.3f} ms")
    assert low.loc["KVM", "estimate"] > 1e-3 and low.loc["docker", "estimate"] < 0.5e-3
    lin = stats.added_latency(points, "KVM", baseline="bml", model="linear", at=100).iloc[0]
    fits = stats.latency_fit(points).set_index("environment")
    expect = ((fits.loc["KVM", "intercept"] + 100 * fits.loc["KVM", "slope"])
              - (fits.loc["bml", "intercept"] + 100 * fits.loc["bml", "slope"]))
    assert lin.estimate == pytest.approx(expect, rel=1e-9)
    assert lin.slope_difference == pytest.approx(fits.loc["KVM", "slope"] - fits.loc["bml", "slope"])
    one = stats.added_latency(points, "KVM", baseline="bml", max_concurrency=10).iloc[0]
    assert math.isnan(one.estimate) and ">= 2 concurrency levels" in one.reason
    with pytest.raises(stats.BaselineNotFoundError, match="native"):
        stats.added_latency(points)


def test_saturation_and_knee_on_mysql(points):
    curve = points.groupby(["environment", "N"]).X.mean()
    bml = curve["bml"]
    plateau = bml[bml >= 0.95 * bml.max()].mean()
    sat = stats.saturation(points).set_index("environment")
    assert sat.loc["bml", "saturation"] == pytest.approx(plateau)
    assert sat.loc["bml", "N_peak"] == bml.idxmax() == 170
    knee = stats.knee(points).set_index("environment")
    assert knee.loc["bml", "knee_N"] == bml[bml >= 0.9 * plateau].index.min() == 90
    assert 70 < knee.loc["bml", "knee_N_interpolated"] < 90
    asym = stats.saturation(points, method="asymptote").set_index("environment")
    assert asym.loc["bml", "saturation"] > bml.max()  # an extrapolated limit, above the data
    kneedle = stats.knee(points, method="kneedle").set_index("environment")
    assert set(kneedle.knee_N) <= {70.0, 90.0, 110.0}


def synthetic(levels, xs, env="native"):
    return pd.DataFrame({"environment": env, "N": np.asarray(levels, float),
                         "X": np.asarray(xs, float)})


def test_knee_methods_on_a_known_curve():
    n = np.arange(10, 310, 10)
    t = synthetic(n, np.minimum(n, 100))  # linear rise, flat from N = 100
    assert stats.knee(t, method="kneedle").knee_N.iloc[0] == 100
    f = stats.knee(t, fraction=0.9).iloc[0]
    assert (f.knee_N, f.knee_N_interpolated, f.saturation) == (90, 90, 100)
    half = stats.knee(t, fraction=0.95).iloc[0]
    assert half.knee_N == 100 and half.knee_N_interpolated == pytest.approx(95)
    flat = stats.knee(synthetic(n, np.full(n.size, 5.0)), method="kneedle").iloc[0]
    assert math.isnan(flat.knee_N) and "flat" in flat.reason
    mm = synthetic(n, 500 * n / (40 + n))
    a = stats.saturation(mm, method="asymptote").iloc[0]
    assert (a.saturation, a.K) == pytest.approx((500, 40), rel=1e-6)


def test_littles_law_arrays_and_implied_latency():
    out = stats.littles_law([10, 20, 0], [1000.0, 0.0, 5.0], [0.0101, np.nan, 0.1])
    assert out.residual.iloc[0] == pytest.approx(10 - 10.1)
    assert out.rel_residual.iloc[0] == pytest.approx(-0.01)
    assert out.implied_latency.iloc[0] == pytest.approx(0.01)
    assert math.isnan(out.implied_latency.iloc[1]) and "throughput" in out.reason.iloc[1]
    assert "not measured" in out.reason.iloc[1]
    assert "concurrency" in out.reason.iloc[2] and math.isnan(out.rel_residual.iloc[2])
    assert stats.implied_latency([8], [400.0]) == pytest.approx([0.02])
    with pytest.raises(stats.StatsError, match="lengths"):
        stats.littles_law([1, 2], [1.0], [1.0])


def test_implied_latency_where_latency_was_not_measured(mysql):
    part = mysql[~((mysql.environment == "KVM") & (mysql.metric == "latency_mean"))]
    t = stats.littles_table(part)
    kvm = t[t.environment == "KVM"]
    assert set(kvm.latency_source) == {"implied N/X"}
    assert kvm.latency_used.to_numpy() == pytest.approx((kvm.N / kvm.X).to_numpy())
    assert kvm.residual.isna().all() and kvm.reason.str.contains("not measured").all()
    assert set(t[t.environment == "bml"].latency_source) == {"measured"}


def test_pairing_and_unit_errors(mysql):
    with pytest.raises(stats.PairingError, match="run_id"):
        stats.littles_table(mysql.assign(run_id=pd.NA))
    with pytest.raises(stats.EmptyInputError, match="'requests'"):
        stats.littles_table(mysql, throughput="requests")
    bad = frame([dict(benchmark="x", metric="rate", unit="op/s", value=10.0, source="a", p_threads=2),
                 dict(benchmark="x", metric="lat", unit="count", value=0.2, source="a", p_threads=2)])
    with pytest.raises(stats.UnitError, match="must be in s"):
        stats.littles_table(bad, throughput="rate", latency="lat")
    with pytest.raises(stats.MissingColumnError, match="p_clients"):
        stats.littles_table(bad, concurrency="p_clients", throughput="rate", latency="lat")
