"""Seed reports show each estimate with its interval in one cell (the CSV keeps the columns).

The start-up report's table of medians and means had fifteen columns (median_ms, median_low,
median_high, mean_ms, mean_low, ...) and ran off an A4 page in Chromium; the seccomp table
likewise (cost_ms, ci_low, ci_high, ...)."""

from __future__ import annotations

import math

import pandas as pd

from overhead.seeds import _common

NAN = math.nan


def test_median_mean_and_percentiles_each_become_one_cell():
    times = pd.DataFrame({"case": ["unshare -n true", "VM power-on to SSH"], "trials": [1, 0],
                          "runs": [300, 0], "median_ms": [1.543, NAN], "median_low": [1.522, NAN],
                          "median_high": [1.575, NAN], "mean_ms": [1.689, NAN],
                          "mean_low": [1.636, NAN], "mean_high": [1.745, NAN],
                          "mean_ci_method": ["log-t", None], "p5_ms": [1.415, NAN],
                          "p95_ms": [2.459, NAN], "accelerator": [None, None]})
    shown = _common.shown(times)
    assert list(shown.columns) == ["case", "trials", "runs", "median [95% CI] (ms)",
                                   "mean [95% CI] (ms)", "p5-p95 (ms)"]  # accelerator: empty
    first = shown.iloc[0]
    assert first["median [95% CI] (ms)"] == "1.543 [1.522, 1.575]"
    assert first["mean [95% CI] (ms)"] == "1.689 [1.636, 1.745] log-t"
    assert first["p5-p95 (ms)"] == "1.415-2.459"
    # a case never measured says so, not 0
    assert shown.iloc[1][["median [95% CI] (ms)", "p5-p95 (ms)"]].tolist() == ["-", "-"]


def test_bare_ci_bounds_belong_to_the_column_before_them():
    seccomp = pd.DataFrame({"runtime": ["crun"], "with_seccomp_ms": [10.68], "cost_ms": [2.1],
                            "ci_low": [1.5], "ci_high": [2.7], "reason": ["measured"]})
    shown = _common.shown(seccomp)
    assert list(shown.columns) == ["runtime", "with_seccomp_ms", "cost [95% CI] (ms)", "reason"]
    assert shown.loc[0, "cost [95% CI] (ms)"] == "2.1 [1.5, 2.7]"
