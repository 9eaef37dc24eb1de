"""overhead.stats.distributions: ECDFs against scipy, weighted data against repeated values,
fio's own percentiles from its json+ bins, and quantile ratios."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs
from scipy import stats as st

from overhead import stats
from overhead.parsers import parse_file


def test_ecdf_matches_scipy():
    x = np.random.default_rng(1).integers(0, 20, 50).astype(float)  # with ties
    e = stats.ecdf(x)
    ref = st.ecdf(x).cdf
    assert e.x.to_numpy() == pytest.approx(ref.quantiles)
    assert e.ecdf.to_numpy() == pytest.approx(ref.probabilities)
    assert list(e.columns) == ["x", "ecdf"]
    assert stats.ecdf([]).empty
    with pytest.raises(stats.StatsError, match="missing"):
        stats.ecdf([1.0, np.nan])


@settings(max_examples=60, deadline=None)
@given(hs.lists(hs.tuples(hs.integers(0, 30), hs.integers(0, 5)), min_size=1, max_size=20)
       .filter(lambda t: sum(c for _, c in t) > 0))
def test_weighted_ecdf_equals_ecdf_of_repeated_values(pairs):
    values = np.array([v for v, _ in pairs], float)
    counts = np.array([c for _, c in pairs], float)
    w = stats.weighted_ecdf(values, counts)
    r = stats.ecdf(np.repeat(values, counts.astype(int)))
    pd.testing.assert_frame_equal(w, r)
    p = np.array([0.0, 0.1, 0.5, 0.9, 1.0])
    assert stats.weighted_quantile(values, counts, p) == pytest.approx(
        np.quantile(np.repeat(values, counts.astype(int)), p, method="inverted_cdf"))


def test_fio_jsonplus_bins_reproduce_fios_percentiles(fixtures):
    """fio computes its percentiles from the same histogram; inverting the ECDF of the json+
    bins gives fio's 17 printed clat percentiles exactly, for reads and writes."""
    df = parse_file("fio", fixtures / "fio/randrw-libaio.jsonplus-normal.txt")
    for direction in ("read", "write"):
        bins = df[(df.metric == "clat_bin_count") & (df.p_direction == direction)]
        pct = df[(df.metric == "clat_percentile") & (df.p_direction == direction)
                 & (df.p_format == "json")]
        assert len(pct) == 17
        q = stats.weighted_quantile(bins.p_latency.astype(float), bins.value,
                                    pct.p_percentile.astype(float).to_numpy() / 100)
        assert q == pytest.approx(pct.value.to_numpy(), rel=1e-12)
        b = stats.Bins(bins.p_latency.astype(float).tolist(), bins.value.tolist())
        e = stats.ecdf_from_bins(b)
        assert e.ecdf.iloc[-1] == 1.0 and e.x.is_monotonic_increasing
    text = df[(df.metric == "clat_percentile") & (df.p_format == "text")]
    points = stats.ecdf_frame(text, by="p_direction", percentile="p_percentile")
    read = points[points.p_direction == "read"]
    assert read.ecdf.max() == pytest.approx(0.9999) and read.x.is_monotonic_increasing
    tidy = stats.ecdf_frame(df[df.metric == "clat_bin_count"], by="p_direction",
                            value="p_latency", weight="value")
    assert list(tidy.columns) == ["p_direction", "x", "ecdf"]
    assert tidy.groupby("p_direction").ecdf.max().to_dict() == {"read": 1.0, "write": 1.0}


def test_bins_and_percentile_lists():
    e = stats.ecdf_from_bins({"100": 2, "200": 1, "50": 1})  # fio's JSON keys are strings
    assert e.x.tolist() == [50.0, 100.0, 200.0] and e.ecdf.tolist() == [0.25, 0.75, 1.0]
    # fio text "99.00th=[ 1012], 99.50th=[ 1012]": F(1012) >= 0.995, one point
    p = stats.ecdf_from_percentiles({"50.00": 258, "99.00": 1012, "99.50": 1012, "99.90": 2000})
    assert p.x.tolist() == [258.0, 1012.0, 2000.0]
    assert p.ecdf.tolist() == pytest.approx([0.5, 0.995, 0.999])
    with pytest.raises(stats.StatsError, match="decrease"):
        stats.ecdf_from_percentiles({50: 10, 90: 5})
    with pytest.raises(stats.StatsError, match="0-100"):
        stats.ecdf_from_percentiles({150: 10})
    with pytest.raises(stats.StatsError, match="weights must be >= 0"):
        stats.weighted_ecdf([1.0, 2.0], [1.0, -1.0])


def test_quantile_ratios():
    rng = np.random.default_rng(4)
    native, kvm = rng.lognormal(0, 0.5, 300), 1.2 * rng.lognormal(0, 0.5, 300)
    data = {"native": native, "kvm": kvm,
            "fio": stats.Percentiles([50, 90], [1.0, 2.0]),
            "binned": stats.Bins([1.0, 2.0, 3.0], [5, 3, 2])}
    out = stats.quantile_ratios(data, probs=(0.5, 0.9), n_resamples=999)
    k = out[out.environment == "kvm"].set_index("p")
    for p in (0.5, 0.9):
        assert k.loc[p, "ratio"] == pytest.approx(np.quantile(kvm, p) / np.quantile(native, p))
        assert k.loc[p, "low"] < k.loc[p, "ratio"] < k.loc[p, "high"]
        assert k.loc[p, "method"] == "bootstrap-percentile"
    f = out[out.environment == "fio"].set_index("p")
    assert f.loc[0.9, "ratio"] == pytest.approx(2.0 / np.quantile(native, 0.9))
    assert math.isnan(f.loc[0.9, "low"]) and "no CI" in f.loc[0.9, "reason"]
    b = out[out.environment == "binned"].set_index("p")
    assert b.loc[0.5, "quantile"] == 1.0 and "binned" in b.loc[0.5, "reason"]
    miss = stats.quantile_ratios(data, probs=(0.99,), n_resamples=999)
    assert "not in the percentile list" in miss[miss.environment == "fio"].reason.iloc[0]
    again = stats.quantile_ratios(data, probs=(0.5, 0.9), n_resamples=999)
    pd.testing.assert_frame_equal(out, again)
    with pytest.raises(stats.BaselineNotFoundError):
        stats.quantile_ratios(data, baseline="bml")


def test_quantile_compare_frame():
    rng = np.random.default_rng(5)
    df = pd.DataFrame({"environment": ["native"] * 100 + ["kvm"] * 100 + ["docker"] * 50,
                       "metric": "latency", "unit": "s",
                       "value": np.r_[rng.exponential(1, 100), rng.exponential(1.5, 100),
                                      rng.exponential(1, 50)]})
    out = stats.quantile_compare(df, probs=(0.5,), n_resamples=999)
    assert set(out.environment) == {"kvm", "docker"} and (out.metric == "latency").all()
    k = out[out.environment == "kvm"].iloc[0]
    assert k.ratio == pytest.approx(np.median(df.value[100:200]) / np.median(df.value[:100]))
    assert list(out.columns[:2]) == ["metric", "unit"]
