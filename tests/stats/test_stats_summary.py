"""overhead.stats.summary: per-group summaries against numpy/scipy, the choice of mean, NA-safe
grouping, reasons instead of invented numbers, and the IBM authors' STREAM population SDs."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as st

from overhead import stats
from overhead.parsers import parse_file
from overhead.schema import concat, frame


def rows(env, metric, unit, values, hib=None, **params):
    return [dict(benchmark="b", environment=env, metric=metric, unit=unit, higher_is_better=hib,
                 value=v, source=f"x:{i}", trial=i + 1, **params) for i, v in enumerate(values)]


def test_matches_numpy_per_group_with_na_parameter():
    rng = np.random.default_rng(7)
    a, b, c = rng.normal(10, 2, 12), rng.normal(20, 3, 9), rng.normal(5, 1, 7)
    df = frame(rows("native", "t", "s", a, p_threads=1) + rows("native", "t", "s", b, p_threads=2)
               + rows("native", "t", "s", c))  # c: no p_threads -> its own NA group, kept
    s = stats.summarize(df, percentiles=(5, 50, 90, 99))
    assert len(s) == 3 and s["p_threads"].isna().sum() == 1
    for sample, sel in ((a, s.p_threads == 1), (b, s.p_threads == 2), (c, s.p_threads.isna())):
        r = s[sel.fillna(False).to_numpy(dtype=bool)].iloc[0]
        assert r.n == sample.size
        assert r["mean"] == pytest.approx(np.mean(sample))
        assert r.sd == pytest.approx(np.std(sample, ddof=1))
        assert r.sd_pop == pytest.approx(np.std(sample, ddof=0))
        assert r["median"] == pytest.approx(np.median(sample))
        assert (r["min"], r["max"]) == (sample.min(), sample.max())
        assert r.p90 == pytest.approx(np.percentile(sample, 90))
        assert r.p99 == pytest.approx(np.percentile(sample, 99))
        assert r.cv == pytest.approx(st.variation(sample, ddof=1))
        assert r.center_method == "arithmetic" and r.center == pytest.approx(np.mean(sample))
        assert pd.isna(r.reason)


def test_center_from_unit_and_direction_against_scipy():
    rng = np.random.default_rng(3)
    rate, ratio, cost, dstat = (rng.uniform(1, 5, 10) for _ in range(4))
    df = frame(rows("native", "rate", "op/s", rate, True) + rows("native", "ratio", "ratio", ratio)
               + rows("native", "cost", "s", cost, False) + rows("native", "disk", "B/s", dstat))
    s = stats.summarize(df).set_index("metric")
    assert s.loc["rate", "center_method"] == "harmonic"
    assert s.loc["rate", "center"] == pytest.approx(st.hmean(rate))
    assert s.loc["ratio", "center_method"] == "geometric"
    assert s.loc["ratio", "center"] == pytest.approx(st.gmean(ratio))
    assert s.loc["cost", "center_method"] == "arithmetic"
    # a rate whose direction is unknown (dstat samples at fixed intervals): arithmetic
    assert s.loc["disk", "center_method"] == "arithmetic"
    assert s.loc["disk", "center"] == pytest.approx(np.mean(dstat))
    over = stats.summarize(df, center="geometric").set_index("metric")
    assert over.loc["cost", "center"] == pytest.approx(st.gmean(cost))
    mapped = stats.summarize(df, center={"rate": "arithmetic"}).set_index("metric")
    assert mapped.loc["rate", "center"] == pytest.approx(np.mean(rate))
    assert mapped.loc["ratio", "center_method"] == "geometric"
    assert stats.center(rate, "harmonic").value == pytest.approx(st.hmean(rate))
    assert stats.center_method("tx/s", True) == "harmonic"
    assert stats.center_method("tx/s", None) == "arithmetic"


def test_reasons_instead_of_invented_numbers():
    df = frame(rows("native", "one", "s", [3.0]) + rows("native", "neg", "op/s", [2.0, -1.0, 3.0], True))
    s = stats.summarize(df).set_index("metric")
    one = s.loc["one"]
    assert math.isnan(one.sd) and math.isnan(one.sd_pop) and math.isnan(one.cv)
    assert "n >= 2" in one.reason and one["mean"] == 3.0
    neg = s.loc["neg"]
    assert math.isnan(neg.center) and "positive" in neg.reason
    assert neg["mean"] == pytest.approx(4 / 3)
    # NaN values are not dropped: the whole group is NaN, with a reason (never 0)
    raw = pd.DataFrame({"metric": "m", "unit": "s", "value": [1.0, np.nan, 3.0]})
    r = stats.summarize(raw).iloc[0]
    assert r.n == 3 and r.n_missing == 1
    assert all(math.isnan(r[c]) for c in ("mean", "sd", "median", "min", "max", "p95", "center"))
    assert "missing" in r.reason
    # mixed units in one group: nothing computed
    mixed = stats.summarize(pd.concat([frame(rows("native", "a", "s", [1.0, 2.0])),
                                       frame(rows("native", "b", "B", [5.0, 6.0]))]), by="environment")
    assert math.isnan(mixed["mean"].iloc[0]) and "mixes units" in mixed.reason.iloc[0]


def test_errors_name_what_is_missing():
    with pytest.raises(stats.MissingColumnError, match="'value'"):
        stats.summarize(pd.DataFrame({"metric": ["a"]}))
    with pytest.raises(stats.EmptyInputError):
        stats.summarize(frame([]))
    df = frame(rows("native", "t", "s", [1.0, 2.0]))
    with pytest.raises(stats.MissingColumnError, match="p_nope"):
        stats.summarize(df, by=["environment", "p_nope"])
    with pytest.raises(stats.StatsError, match="percentiles"):
        stats.summarize(df, percentiles=(101,))
    with pytest.raises(stats.StatsError, match="center"):
        stats.summarize(df, center="median")
    no_unit = pd.DataFrame({"metric": "m", "value": [1.0, 2.0]})
    r = stats.summarize(no_unit).iloc[0]
    assert math.isnan(r.center) and "no unit" in r.reason and r["mean"] == 1.5


def test_ibm_stream_population_sd(ibm):
    """Table I STREAM: the authors' spreadsheet SDs are population SDs (reference/README.md)."""
    frames = []
    for env, name in (("native", "linux"), ("docker", "docker"), ("kvm", "vm")):
        d = parse_file("stream", ibm / f"Stream/results/{name}.two-socket.interleavedalloc.log")
        d["environment"] = env
        frames.append(d)
    df = concat(frames)
    s = stats.summarize(df[df.metric == "bandwidth"], by=["environment", "p_kernel", "unit"])
    s = s.set_index(["environment", "p_kernel"])
    # README "Values to reproduce": mean (SD) in GB/s over 10 runs
    table = {("native", "add"): (45.79, 0.21), ("native", "copy"): (41.27, 0.06),
             ("native", "scale"): (41.25, 0.08), ("native", "triad"): (45.60, 0.12),
             ("docker", "add"): (45.62, 0.55), ("docker", "copy"): (41.20, 0.08),
             ("docker", "scale"): (41.23, 0.06), ("docker", "triad"): (45.63, 0.49),
             ("kvm", "add"): (44.99, 0.19), ("kvm", "copy"): (40.05, 0.21),
             ("kvm", "scale"): (40.01, 0.15), ("kvm", "triad"): (45.02, 0.20)}
    for key, (mean, sd) in table.items():
        r = s.loc[key]
        assert r.n == 10
        assert round(r["mean"] / 1e9, 2) == pytest.approx(mean, abs=1e-9)
        assert round(r.sd_pop / 1e9, 2) == pytest.approx(sd, abs=1e-9)
    # the sample SD would not reproduce them: docker add 0.585 -> 0.58, not 0.55
    assert round(s.loc[("docker", "add"), "sd"] / 1e9, 2) == 0.58
    assert s.loc[("native", "copy"), "center_method"] == "harmonic"
