"""Per-group summaries of the tidy frame and the choice of central value.

The central value follows DESIGN.md: the arithmetic mean for costs (s, B, count, %, ...), the
harmonic mean for rates where more is better (unit ending in "/s" and higher_is_better True:
equal work per trial, so the harmonic mean of the rates is total work over total time), the
geometric mean for ratios (unit "ratio"). A rate whose direction is unknown (higher_is_better
NA, e.g. dstat samples taken at fixed intervals) gets the arithmetic mean.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from overhead.stats._common import (
    Estimate,
    StatsError,
    check_choice,
    group_keys,
    require_columns,
    require_rows,
    sample,
)

CENTER_METHODS = ("arithmetic", "harmonic", "geometric")


def center_method(unit: object, higher_is_better: object = None) -> str:
    """Choose the mean that suits a metric, from its unit and direction.

    Parameters
    ----------
    unit : str
        Canonical unit (overhead.schema.UNITS).
    higher_is_better : bool or None
        The metric's direction; only True makes a "/s" rate harmonic.

    Returns
    -------
    str
        "geometric" for "ratio", "harmonic" for "/s" rates with higher_is_better True,
        otherwise "arithmetic".

    Raises
    ------
    StatsError
        When ``unit`` is missing (NA).
    """
    if unit is None or (not isinstance(unit, str) and pd.isna(unit)):
        raise StatsError("center_method needs a unit; pass the method explicitly instead")
    if unit == "ratio":
        return "geometric"
    if unit.endswith("/s") and isinstance(higher_is_better, bool | np.bool_) and bool(higher_is_better):
        return "harmonic"
    return "arithmetic"


def center(x: object, method: str) -> Estimate:
    """Compute the arithmetic, harmonic or geometric mean of a sample.

    Parameters
    ----------
    x : array-like
        The values.
    method : str
        One of :data:`CENTER_METHODS`.

    Returns
    -------
    Estimate
        NaN with a reason for an empty sample, NaN values, or (harmonic, geometric) a value <= 0.

    Raises
    ------
    StatsError
        When ``method`` is not one of :data:`CENTER_METHODS`.
    """
    check_choice(method, CENTER_METHODS, "method")
    arr, why = sample(x)
    if why:
        return Estimate(math.nan, why)
    if method == "arithmetic":
        return Estimate(float(np.mean(arr)))
    if (arr <= 0).any():
        return Estimate(math.nan, f"{method} mean needs positive values ({int((arr <= 0).sum())} <= 0)")
    if method == "harmonic":
        return Estimate(float(1.0 / np.mean(1.0 / arr)))
    return Estimate(float(np.exp(np.mean(np.log(arr)))))


def _pct_name(p: float) -> str:
    return f"p{p:g}"


def summarize(df: pd.DataFrame, by: str | Sequence[str] | None = None, *,
              percentiles: Sequence[float] = (5, 25, 75, 95),
              center: str | Mapping[str, str] = "auto", value: str = "value") -> pd.DataFrame:
    """Summarize ``value`` per group.

    The summary holds n, mean, SD, population SD, CV, median, min, max, percentiles and the
    central value suited to the metric.

    Parameters
    ----------
    df : pandas.DataFrame
        Tidy measurements (needs ``value``; ``unit`` and ``higher_is_better`` for center="auto").
    by : str, sequence of str or None
        Group keys; None means benchmark, environment, variant, metric, unit (those present)
        plus every p_* column. Groups with NA keys are kept (dropna=False).
    percentiles : sequence of float
        Percentiles in 0-100, numpy's linear interpolation; columns ``p<q>`` (e.g. ``p95``).
    center : str or mapping
        "auto" (from unit and direction, see :func:`center_method`), one of
        :data:`CENTER_METHODS` for every group, or a mapping metric -> method (other metrics auto).
    value : str
        The column to summarize.

    Returns
    -------
    pandas.DataFrame
        One row per group: the keys, n, n_missing, mean, sd (ddof=1), sd_pop (ddof=0, as the IBM authors'
        STREAM summaries; also NaN for n < 2), cv (sd / mean), median, min, max, the percentile columns, center, center_method, reason.
        Never raises for data problems: a group with NaN values gets NaN statistics, n < 2 a
        NaN sd and cv, a group mixing units NaN everything, each with a ``reason``.

    Raises
    ------
    MissingColumnError, EmptyInputError
        When the value column is missing or the frame has no rows.
    StatsError
        For bad percentiles or a bad method.
    """
    require_columns(df, [value], "summarize")
    require_rows(df, "summarize")
    keys = group_keys(df, by, what="summarize")
    qs = [float(p) for p in percentiles]
    if any(not 0 <= q <= 100 for q in qs):
        raise StatsError(f"percentiles must be in 0-100, got {list(percentiles)}")
    if isinstance(center, str) and center != "auto":
        check_choice(center, CENTER_METHODS, "center")
    if isinstance(center, Mapping):
        for m in center.values():
            check_choice(m, CENTER_METHODS, "center mapping value")

    x = df[value].to_numpy(dtype="float64", na_value=np.nan)
    x = np.where(np.isfinite(x), x, np.nan)
    work = pd.DataFrame({"_x": x}, index=df.index)
    positive = np.where(x > 0, x, np.nan)
    work["_inv"] = 1.0 / positive
    work["_log"] = np.log(positive)
    work["_nonpos"] = (x <= 0).astype("float64")
    for k in keys:
        work[k] = df[k]
    extra = {}
    for col in ("unit", "higher_is_better", "metric"):
        if col in df.columns and col not in keys:
            extra[col] = df[col].astype("string")
            work["_" + col] = extra[col]
    if not keys:
        work["_all"] = 0
    gkeys = keys or ["_all"]
    g = work.groupby(gkeys, dropna=False, sort=True, observed=True)
    gx = g["_x"]
    out = pd.DataFrame({
        "n": g.size(),
        "n_missing": g.size() - gx.count(),
        "mean": gx.mean(),
        "sd": gx.std(ddof=1),
        "sd_pop": gx.std(ddof=0),
    })
    out["cv"] = np.nan
    out["median"] = gx.median()
    out["min"] = gx.min()
    out["max"] = gx.max()
    for q in qs:
        out[_pct_name(q)] = gx.quantile(q / 100.0)
    harmonic = 1.0 / g["_inv"].mean()
    geometric = np.exp(g["_log"].mean())
    nonpos = g["_nonpos"].sum()
    # per-group unit / direction / metric (first value, and whether a group mixes them)
    info = {}
    for col in ("unit", "higher_is_better", "metric"):
        src = col if col in keys else ("_" + col if col in extra else None)
        if src is None:
            info[col] = (pd.Series(pd.NA, index=out.index, dtype="object"), None)
        elif col in keys:
            info[col] = (pd.Series(out.index.get_level_values(col) if len(gkeys) > 1
                                   else out.index, index=out.index), None)
        else:
            info[col] = (g[src].first(), g[src].nunique(dropna=False))
    out = out.reset_index()
    if not keys:
        out = out.drop(columns="_all")
    for k in keys:
        try:
            out[k] = out[k].astype(df[k].dtype)
        except (TypeError, ValueError):
            pass

    n = out["n"].to_numpy()
    n_missing = out["n_missing"].to_numpy()
    mean = out["mean"].to_numpy()
    sd = out["sd"].to_numpy()
    reasons: list[list[str]] = [[] for _ in range(len(out))]
    stat_cols = ["mean", "sd", "sd_pop", "median", "min", "max"] + [_pct_name(q) for q in qs]
    units = info["unit"][0].to_numpy(dtype=object)
    unit_mix = info["unit"][1]
    hib = info["higher_is_better"][0].to_numpy(dtype=object)
    hib_mix = info["higher_is_better"][1]
    metrics = info["metric"][0].to_numpy(dtype=object)

    bad = np.zeros(len(out), dtype=bool)
    for i in range(len(out)):
        if n_missing[i]:
            reasons[i].append(f"{n_missing[i]} of {n[i]} values missing or non-finite")
            bad[i] = True
        if unit_mix is not None and unit_mix.iloc[i] > 1:
            reasons[i].append("group mixes units")
            bad[i] = True
    out.loc[bad, stat_cols] = np.nan

    cv = np.full(len(out), np.nan)
    for i in range(len(out)):
        if bad[i]:
            continue
        if n[i] < 2:
            reasons[i].append(f"n={n[i]}: SD, population SD and CV need n >= 2")
        elif mean[i] <= 0:
            reasons[i].append("CV needs a positive mean")
        else:
            cv[i] = sd[i] / mean[i]
    out["cv"] = cv
    out.loc[bad | (n < 2), ["sd", "sd_pop"]] = np.nan

    centers = np.full(len(out), np.nan)
    methods: list[object] = [pd.NA] * len(out)
    for i in range(len(out)):
        if bad[i]:
            continue
        method = None
        if isinstance(center, str) and center != "auto":
            method = center
        elif isinstance(center, Mapping) and isinstance(metrics[i], str) and metrics[i] in center:
            method = center[metrics[i]]
        else:
            u = units[i]
            if u is None or u is pd.NA or (isinstance(u, float) and math.isnan(u)):
                reasons[i].append("no unit: pass center= to choose the mean")
                continue
            if hib_mix is not None and hib_mix.iloc[i] > 1:
                reasons[i].append("higher_is_better differs within the group")
                continue
            h = hib[i]
            h = (h == "True" or h is True) if h is not pd.NA and h is not None else None
            method = center_method(str(u), h)
        methods[i] = method
        if method == "arithmetic":
            centers[i] = mean[i]
        elif nonpos.iloc[i] > 0:
            reasons[i].append(f"{method} mean needs positive values")
        else:
            centers[i] = harmonic.iloc[i] if method == "harmonic" else geometric.iloc[i]
    out["center"] = centers
    out["center_method"] = pd.array(methods, dtype="string")
    out["reason"] = pd.array(["; ".join(r) if r else pd.NA for r in reasons], dtype="string")
    out["n"] = out["n"].astype("int64")
    out["n_missing"] = out["n_missing"].astype("int64")
    return out
