"""overhead.stats.outliers: modified z-scores (Iglewicz-Hoaglin) against scipy's MAD, flags that
never delete, warm-up flags per group and run."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as st

from overhead import stats
from overhead.schema import frame


def test_modified_zscores_match_the_definition():
    x = np.array([2.1, 2.6, 2.4, 2.5, 2.3, 2.1, 2.3, 2.6, 8.2, 8.3])
    m = stats.modified_zscores(x)
    mad = st.median_abs_deviation(x, scale=1.0)
    assert m.mad == pytest.approx(mad) and m.median == np.median(x)
    assert m.scores == pytest.approx(0.6745 * (x - np.median(x)) / mad)
    flat = stats.modified_zscores([1.0, 1.0, 1.0, 2.0])
    assert np.isnan(flat.scores).all() and "MAD is 0" in flat.reason
    assert "missing" in stats.modified_zscores([1.0, np.nan, 2.0]).reason


def tidy():
    # the tuned-KVM LINPACK case from the IBM data: one trial far below the others
    vals = [284.9, 285.3, 283.7, 284.6, 108.8, 285.0, 284.2, 283.9, 284.8, 285.1]
    rows = [dict(benchmark="linpack", environment="kvm", metric="flop_rate", unit="FLOP/s",
                 value=v, source=f"f:{i}", trial=i + 1, run_id="r1") for i, v in enumerate(vals)]
    rows += [dict(benchmark="linpack", environment="native", metric="flop_rate", unit="FLOP/s",
                  value=v, source=f"g:{i}", trial=i + 1, run_id=run)
             for run in ("r2", "r3") for i, v in enumerate([290.0, 291.0, 290.5])]
    rows += [dict(benchmark="linpack", environment="docker", metric="flop_rate", unit="FLOP/s",
                  value=v, source="h", run_id="r4") for v in (1.0, 1.0, 1.0)]  # no trial numbers
    return frame(rows)


def test_flag_outliers_never_deletes():
    df = tidy()
    out = stats.flag_outliers(df)
    assert len(out) == len(df) and out.index.equals(df.index)
    kvm = out[out.environment == "kvm"]
    assert kvm.outlier.sum() == 1 and kvm.loc[kvm.outlier.fillna(False), "value"].iloc[0] == 108.8
    docker = out[out.environment == "docker"]
    assert docker.outlier.isna().all() and docker.outlier_reason.str.contains("MAD is 0").all()
    assert str(out.outlier.dtype) == "boolean"
    strict = stats.flag_outliers(df, threshold=1.0)
    assert strict.outlier.sum() >= out.outlier.sum()
    view = stats.exclude_flagged(out, flags=("outlier", "not_there"))
    assert len(view) == len(df) - 1 and view.attrs["excluded"] == {"outlier": 1, "not_there": None}


def test_flag_warmup_per_group_and_run():
    df = tidy()
    out = stats.flag_warmup(df)
    first = out[out.warmup.fillna(False)]
    assert sorted(zip(first.environment, first.run_id, strict=True)) == [("kvm", "r1"), ("native", "r2"), ("native", "r3")]
    assert (first.trial == 1).all()
    assert out[out.environment == "docker"].warmup.isna().all()  # no order: left unknown
    again = stats.flag_warmup(out.assign(warmup=out.warmup.mask(out.trial == 5, True)))
    assert bool(again[(again.environment == "kvm") & (again.trial == 5)].warmup.iloc[0])  # kept
    two = stats.flag_warmup(df, first=2)
    assert two.warmup.fillna(False).sum() == 6
    with pytest.raises(stats.MissingColumnError, match="p_report"):
        stats.flag_warmup(df, order="p_report")
    summary = stats.summarize(stats.exclude_flagged(out), by=["environment"])
    assert summary.set_index("environment").loc["native", "n"] == 4
    assert math.isnan(stats.summarize(pd.DataFrame({"value": [1.0]})).sd.iloc[0])
