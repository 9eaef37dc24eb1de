"""Empirical distribution functions and quantile comparisons between environments.

Three kinds of input describe a distribution:

- a raw sample (every value measured);
- weighted values, e.g. fio's ``json+`` latency bins (latency -> number of I/Os): class
  :class:`Bins`;
- a list of percentiles a tool printed (p -> value, p in 0-100): class :class:`Percentiles`.
  This gives points of the distribution function, not the whole of it.

ECDF output is plotting-ready and tidy: columns ``x`` and ``ecdf`` (F(x) = fraction of the
weight at or below x), one row per distinct x, plus the group columns for frames.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats as st

from overhead.stats._common import (
    BaselineNotFoundError,
    StatsError,
    check_level,
    generator,
    group_keys,
    iter_groups,
    require_columns,
    require_rows,
    sample,
    values_of,
)


@dataclass(frozen=True)
class Bins:
    """Weighted values: ``values[i]`` occurred ``counts[i]`` times (fio json+ latency bins)."""

    values: Sequence[float]
    counts: Sequence[float]

    @classmethod
    def from_mapping(cls, bins: Mapping[object, float]) -> Bins:
        """Build Bins from a mapping value -> count (keys may be strings, as in fio's JSON)."""
        return cls([float(k) for k in bins], [float(v) for v in bins.values()])


@dataclass(frozen=True)
class Percentiles:
    """Percentiles a tool printed: ``values[i]`` is the ``p[i]``-th percentile (p in 0-100)."""

    p: Sequence[float]
    values: Sequence[float]

    @classmethod
    def from_mapping(cls, points: Mapping[object, float]) -> Percentiles:
        """Build Percentiles from a mapping p -> value (keys may be strings such as "99.000000")."""
        return cls([float(k) for k in points], [float(v) for v in points.values()])


def ecdf(x: object) -> pd.DataFrame:
    """Compute the empirical distribution function of a sample.

    Parameters
    ----------
    x : array-like
        The sample; an empty sample gives an empty frame.

    Returns
    -------
    pandas.DataFrame
        Columns x (distinct values, ascending) and ecdf (fraction of values <= x).

    Raises
    ------
    StatsError
        When the sample holds NaN values (an ECDF without them would misstate every fraction).
    """
    arr, why = sample(x)
    if arr.size == 0:
        return pd.DataFrame({"x": np.array([], dtype="float64"), "ecdf": np.array([], dtype="float64")})
    if why:
        raise StatsError(f"ecdf: {why}")
    return weighted_ecdf(arr, np.ones(arr.size))


def weighted_ecdf(values: object, weights: object) -> pd.DataFrame:
    """Compute the empirical distribution function of weighted values (e.g. latency bins).

    Parameters
    ----------
    values : array-like
        The values.
    weights : array-like
        Non-negative weights (counts), same length.

    Returns
    -------
    pandas.DataFrame
        Columns x (distinct values with positive weight, ascending) and ecdf.

    Raises
    ------
    StatsError
        For NaN, negative weights, a length mismatch, or a total weight of 0.
    """
    v, wv = sample(values, "values")
    w, ww = sample(weights, "weights")
    if v.size != w.size:
        raise StatsError(f"weighted_ecdf: {v.size} values but {w.size} weights")
    if v.size == 0:
        return pd.DataFrame({"x": np.array([], dtype="float64"), "ecdf": np.array([], dtype="float64")})
    if wv or ww:
        raise StatsError(f"weighted_ecdf: {wv or ww}")
    if (w < 0).any():
        raise StatsError("weighted_ecdf: weights must be >= 0")
    total = w.sum()
    if total <= 0:
        raise StatsError("weighted_ecdf: total weight is 0")
    keep = w > 0
    s = pd.Series(w[keep]).groupby(v[keep]).sum().sort_index()
    cum = np.cumsum(s.to_numpy()) / total
    cum[-1] = 1.0
    return pd.DataFrame({"x": s.index.to_numpy(dtype="float64"), "ecdf": cum})


def ecdf_from_bins(bins: Bins | Mapping[object, float]) -> pd.DataFrame:
    """Compute the ECDF of binned data (value -> count), such as fio's json+ ``clat_ns.bins``.

    Parameters
    ----------
    bins : Bins or mapping
        Values and counts.

    Returns
    -------
    pandas.DataFrame
        Columns x and ecdf, as for :func:`weighted_ecdf`.

    Raises
    ------
    StatsError
        As for :func:`weighted_ecdf`.
    """
    b = bins if isinstance(bins, Bins) else Bins.from_mapping(bins)
    return weighted_ecdf(b.values, b.counts)


def ecdf_from_percentiles(points: Percentiles | Mapping[object, float]) -> pd.DataFrame:
    """Return the known points of a distribution function from a percentile list (p -> value).

    Parameters
    ----------
    points : Percentiles or mapping
        p in 0-100 and the value at each p. When several percentiles share a value (fio:
        ``99.00th=[1012], 99.50th=[1012]``), the point keeps the largest p, since
        F(value) >= that p.

    Returns
    -------
    pandas.DataFrame
        Columns x and ecdf (= p / 100). Between the points the distribution is unknown: plot
        them as markers or steps, not as a measured curve.

    Raises
    ------
    StatsError
        For p outside 0-100, NaN, or values that decrease as p increases.
    """
    pts = points if isinstance(points, Percentiles) else Percentiles.from_mapping(points)
    p, wp = sample(pts.p, "percentiles")
    v, wv = sample(pts.values, "values")
    if p.size != v.size:
        raise StatsError(f"ecdf_from_percentiles: {p.size} percentiles but {v.size} values")
    if p.size == 0:
        return pd.DataFrame({"x": np.array([], dtype="float64"), "ecdf": np.array([], dtype="float64")})
    if wp or wv:
        raise StatsError(f"ecdf_from_percentiles: {wp or wv}")
    if ((p < 0) | (p > 100)).any():
        raise StatsError("ecdf_from_percentiles: percentiles must be in 0-100")
    order = np.argsort(p, kind="stable")
    p, v = p[order], v[order]
    if (np.diff(v) < 0).any():
        raise StatsError("ecdf_from_percentiles: values decrease while p increases")
    s = pd.Series(p / 100.0).groupby(v).max().sort_index()
    return pd.DataFrame({"x": s.index.to_numpy(dtype="float64"), "ecdf": s.to_numpy()})


def ecdf_frame(df: pd.DataFrame, by: str | Sequence[str] = "environment", *, value: str = "value",
               weight: str | None = None, percentile: str | None = None) -> pd.DataFrame:
    """Compute plotting-ready ECDFs per group of a tidy frame.

    Parameters
    ----------
    df : pandas.DataFrame
        Rows holding the sample (e.g. one metric of one benchmark).
    by : str or sequence of str
        Group columns, one ECDF each ("environment" by default).
    value : str
        Column with the values (x).
    weight : str or None
        Column with weights (counts), for binned data; None weighs every row 1.
    percentile : str or None
        Column with percentile levels (0-100, e.g. "p_percentile"): the rows are then a
        percentile list and give the points of :func:`ecdf_from_percentiles` (one list per
        group: several trials need to be in ``by``). Excludes ``weight``.

    Returns
    -------
    pandas.DataFrame
        The group columns, x, ecdf.

    Raises
    ------
    MissingColumnError, EmptyInputError
        When a column is missing or the frame has no rows.
    StatsError
        For NaN values/weights in a group (or a percentile list that is not monotone).
    """
    if weight and percentile:
        raise StatsError("ecdf_frame: give weight or percentile, not both")
    keys = [by] if isinstance(by, str) else list(by)
    extra = [c for c in (weight, percentile) if c]
    require_columns(df, [*keys, value, *extra], "ecdf_frame")
    require_rows(df, "ecdf_frame")
    parts = []
    for key, rows in iter_groups(df, keys):
        x = values_of(rows, value)
        w = values_of(rows, weight) if weight else np.ones(x.size)
        try:
            if percentile:
                e = ecdf_from_percentiles(Percentiles(values_of(rows, percentile).tolist(), x.tolist()))
            else:
                e = weighted_ecdf(x, w)
        except StatsError as exc:
            raise StatsError(f"ecdf_frame: group {key}: {exc}") from None
        for i, (k, v) in enumerate(key.items()):
            e.insert(i, k, v)
        parts.append(e)
    out = pd.concat(parts, ignore_index=True)
    for k in keys:
        try:
            out[k] = out[k].astype(df[k].dtype)
        except (TypeError, ValueError):
            pass
    return out


def weighted_quantile(values: object, weights: object, probs: Sequence[float] | float) -> np.ndarray:
    """Compute quantiles of weighted values by inverting the weighted ECDF.

    The quantile for p is the smallest x with F(x) >= p (numpy's "inverted_cdf" definition,
    generalized to weights).

    Parameters
    ----------
    values, weights : array-like
        As for :func:`weighted_ecdf`.
    probs : float or sequence of float
        Probabilities in [0, 1].

    Returns
    -------
    numpy.ndarray
        One quantile per probability (NaN when there are no values).

    Raises
    ------
    StatsError
        As for :func:`weighted_ecdf`, and for probabilities outside [0, 1].
    """
    e = weighted_ecdf(values, weights)
    q = np.atleast_1d(np.asarray(probs, dtype="float64"))
    if ((q < 0) | (q > 1)).any() or np.isnan(q).any():
        raise StatsError("probabilities must be in [0, 1]")
    if e.empty:
        return np.full(q.shape, np.nan)
    # smallest x with F(x) >= p; the tolerance absorbs rounding in the cumulative sums
    idx = np.searchsorted(e["ecdf"].to_numpy(), q - 1e-12, side="left")
    idx = np.clip(idx, 0, len(e) - 1)
    return e["x"].to_numpy()[idx]


def _quantile_of(spec: object, p: float, method: str) -> tuple[float, str | None, np.ndarray | None]:
    """Return quantile p of one environment's data, a reason if NaN, and the raw sample if any."""
    if isinstance(spec, Percentiles):
        ps = np.asarray(spec.p, dtype="float64")
        hit = np.flatnonzero(np.isclose(ps, 100.0 * p, rtol=0, atol=1e-9))
        if hit.size == 0:
            return math.nan, f"percentile {100 * p:g} not in the percentile list", None
        return float(np.asarray(spec.values, dtype="float64")[hit[0]]), "percentile list only: no CI", None
    if isinstance(spec, Bins):
        return float(weighted_quantile(spec.values, spec.counts, p)[0]), "binned data only: no CI", None
    arr, why = sample(spec)
    if why:
        return math.nan, why, None
    return float(np.quantile(arr, p, method=method)), None, arr


def quantile_ratios(data: Mapping[str, object], baseline: str = "native",
                    probs: Sequence[float] = (0.5, 0.9, 0.99), *, level: float = 0.95,
                    n_resamples: int = 9999, ci_method: str = "percentile",
                    quantile_method: str = "linear", rng: int | None = 0) -> pd.DataFrame:
    """Compute the ratio of each environment's quantiles to the baseline's.

    Bootstrap intervals are given where both sides are raw samples.

    Parameters
    ----------
    data : mapping
        environment -> raw sample (array-like), :class:`Bins` or :class:`Percentiles`.
    baseline : str
        The baseline key.
    probs : sequence of float
        Probabilities in (0, 1).
    level : float
        Confidence level.
    n_resamples : int
        Bootstrap resamples (both samples resampled independently).
    ci_method : str
        scipy bootstrap method; "percentile" by default because BCa's jackknife acceleration
        is unreliable for quantiles.
    quantile_method : str
        numpy quantile method for raw samples ("linear" = type 7).
    rng : int or None
        Seed; each (environment, p) gets a fresh Generator from it.

    Returns
    -------
    pandas.DataFrame
        environment, baseline, p, quantile, quantile_baseline, ratio, low, high, method,
        reason. No CI (NaN, with a reason) for bins or percentile lists; ratio NaN with a reason
        when a quantile is missing or the baseline quantile is 0.

    Raises
    ------
    BaselineNotFoundError
        When ``baseline`` is not a key of ``data``.
    StatsError
        For a level or probabilities outside (0, 1).
    """
    level = check_level(level)
    q = [float(p) for p in probs]
    if any(not 0 < p < 1 for p in q):
        raise StatsError(f"probs must be in (0, 1), got {list(probs)}")
    if baseline not in data:
        raise BaselineNotFoundError(
            f"quantile_ratios: baseline {baseline!r} not found; present: {sorted(map(str, data))}")
    records = []
    for env, spec in data.items():
        if env == baseline:
            continue
        for p in q:
            qx, wx, ax = _quantile_of(spec, p, quantile_method)
            qy, wy, ay = _quantile_of(data[baseline], p, quantile_method)
            rec = {"environment": env, "baseline": baseline, "p": p, "quantile": qx,
                   "quantile_baseline": qy, "ratio": math.nan, "low": math.nan,
                   "high": math.nan, "method": pd.NA}
            reasons = [r for r in (wx and f"{env}: {wx}", wy and f"{baseline}: {wy}") if r]
            if math.isfinite(qx) and math.isfinite(qy):
                if qy == 0:
                    reasons.append("baseline quantile is 0: ratio undefined")
                else:
                    rec["ratio"] = qx / qy
            if ax is not None and ay is not None and math.isfinite(rec["ratio"]):
                if min(ax.size, ay.size) < 3:
                    reasons.append("bootstrap needs n >= 3 in both samples")
                else:
                    def stat(a, b, axis=-1, _p=p):
                        return (np.quantile(a, _p, axis=axis, method=quantile_method)
                                / np.quantile(b, _p, axis=axis, method=quantile_method))
                    with np.errstate(divide="ignore", invalid="ignore"):
                        res = st.bootstrap((ax, ay), stat, n_resamples=int(n_resamples),
                                           vectorized=True, paired=False, axis=-1,
                                           confidence_level=level, method=ci_method,
                                           rng=generator(rng))
                    lo, hi = float(res.confidence_interval.low), float(res.confidence_interval.high)
                    if math.isfinite(lo) and math.isfinite(hi):
                        rec.update(low=lo, high=hi, method=f"bootstrap-{ci_method}")
                    else:
                        reasons.append("bootstrap distribution degenerate (e.g. baseline quantile 0 in resamples)")
            rec["reason"] = "; ".join(reasons) if reasons else pd.NA
            records.append(rec)
    out = pd.DataFrame.from_records(records, columns=["environment", "baseline", "p", "quantile",
                                                      "quantile_baseline", "ratio", "low", "high",
                                                      "method", "reason"])
    for c in ("environment", "baseline", "method", "reason"):
        out[c] = out[c].astype("string")
    return out


def quantile_compare(df: pd.DataFrame, baseline: str = "native",
                     by: str | Sequence[str] | None = None,
                     probs: Sequence[float] = (0.5, 0.9, 0.99), *, level: float = 0.95,
                     n_resamples: int = 9999, rng: int | None = 0,
                     environment: str = "environment", value: str = "value") -> pd.DataFrame:
    """Compute :func:`quantile_ratios` per group of a tidy frame of raw samples.

    Parameters
    ----------
    df : pandas.DataFrame
        Tidy measurements; each group's rows are one raw sample per environment.
    baseline : str
        Baseline environment.
    by : str, sequence of str or None
        Group keys including the environment column (None: the default keys).
    probs, level, n_resamples, rng
        As for :func:`quantile_ratios`.
    environment, value : str
        Column names.

    Returns
    -------
    pandas.DataFrame
        The keys other than environment, then the columns of :func:`quantile_ratios`.
        A group without baseline rows gives NaN rows with a reason.

    Raises
    ------
    BaselineNotFoundError
        When ``baseline`` is absent from the frame.
    MissingColumnError, EmptyInputError, StatsError
        When a column is missing, the frame has no rows, or the keys lack the environment
        column.
    """
    require_columns(df, [value, environment], "quantile_compare")
    require_rows(df, "quantile_compare")
    keys = group_keys(df, by, what="quantile_compare")
    if environment not in keys:
        raise StatsError(f"quantile_compare: the group keys {keys} must include {environment!r}")
    envs = df[environment]
    if not (envs == baseline).fillna(False).any():
        raise BaselineNotFoundError(
            f"quantile_compare: baseline environment {baseline!r} not found; environments "
            f"present: {sorted(map(str, envs.dropna().unique()))}")
    others = [k for k in keys if k != environment]
    parts = []
    for key, rows in iter_groups(df, others):
        data = {}
        for env, part in rows.groupby(environment, dropna=False, sort=True):
            data["<NA>" if pd.isna(env) else str(env)] = values_of(part, value)
        if baseline not in data:
            res = pd.DataFrame({"environment": [e for e in data for _ in probs],
                                "baseline": baseline, "p": [float(p) for _ in data for p in probs],
                                "reason": f"no {baseline!r} rows with the same keys"})
        else:
            res = quantile_ratios(data, baseline, probs, level=level, n_resamples=n_resamples, rng=rng)
        for i, (k, v) in enumerate(key.items()):
            res.insert(i, k, v)
        parts.append(res)
    out = pd.concat(parts, ignore_index=True)
    for k in others:
        try:
            out[k] = out[k].astype(df[k].dtype)
        except (TypeError, ValueError):
            pass
    return out
