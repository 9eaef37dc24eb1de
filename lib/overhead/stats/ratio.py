"""Overhead against a baseline environment, per group.

The ratio of means, with bootstrap and Fieller intervals.

The ratio is mean(environment) / mean(baseline) (arithmetic means of the trials), the percent
difference is 100 * (ratio - 1). Two intervals are given because they fail differently:

- the bootstrap (scipy.stats.bootstrap, BCa, both samples resampled independently, seeded)
  makes no normality assumption but always returns a finite interval, even when the baseline
  mean is indistinguishable from 0 and no finite interval can have the stated coverage;
- Fieller's interval (normal samples, Welch-Satterthwaite degrees of freedom at the estimate,
  as R's mratios::ttestratio with var.equal=FALSE) is exact under normality and says so when
  the denominator is not significantly different from 0: the confidence set is then two
  half-lines or the whole line, reported with ``kind`` and infinite endpoints.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats as st

from overhead.stats._common import (
    BaselineNotFoundError,
    StatsError,
    check_choice,
    check_level,
    finish,
    generator,
    group_keys,
    iter_groups,
    join_reasons,
    mixed_units,
    norm_key,
    require_columns,
    require_rows,
    sample,
    values_of,
)


@dataclass(frozen=True)
class RatioInterval:
    """A confidence set for a ratio of means.

    Attributes
    ----------
    ratio, low, high : float
        The estimate and the interval's endpoints.
    level : float
        The confidence level.
    method : str
        "bootstrap-BCa", "fieller".
    n_x, n_y : int
        The sample sizes.
    kind : str or None
        "bounded", "two rays", "unbounded", or None when NaN.
    reason : str or None
        Why the numbers are NaN, or a caveat.
    gap : (float, float) or None
        For "two rays": the excluded open interval (r1, r2); the set is (-inf, r1] and
        [r2, +inf).
    g : float or None
        Fieller's t^2 * var(b) / b^2; the set is bounded iff g < 1.
    df : float or None
        Degrees of freedom used.
    """

    ratio: float
    low: float
    high: float
    level: float
    method: str
    n_x: int
    n_y: int
    kind: str | None = None
    reason: str | None = None
    gap: tuple[float, float] | None = None
    g: float | None = None
    df: float | None = None

    @property
    def pct(self) -> float:
        """Percent difference 100 * (ratio - 1)."""
        return 100.0 * (self.ratio - 1.0)

    @property
    def pct_low(self) -> float:
        """Lower end as a percent difference."""
        return 100.0 * (self.low - 1.0)

    @property
    def pct_high(self) -> float:
        """Upper end as a percent difference."""
        return 100.0 * (self.high - 1.0)


def _nan_ratio(level: float, method: str, n_x: int, n_y: int, reason: str,
               ratio: float = math.nan) -> RatioInterval:
    return RatioInterval(ratio, math.nan, math.nan, level, method, n_x, n_y, None, reason)


def fieller_from_stats(a: float, b: float, se_a: float, se_b: float, df: float,
                       level: float = 0.95, *, cov: float = 0.0, n_x: int = 0,
                       n_y: int = 0) -> RatioInterval:
    """Compute Fieller's confidence set for a / b from two estimates and their standard errors.

    Solves (a - r b)^2 <= t^2 (se_a^2 - 2 r cov + r^2 se_b^2) for r, with t the two-sided
    Student-t quantile at ``level`` and ``df`` degrees of freedom.

    Parameters
    ----------
    a, b : float
        Numerator and denominator estimates (e.g. two sample means).
    se_a, se_b : float
        Their standard errors (not SDs of the samples).
    df : float
        Degrees of freedom of t (use math.inf for the normal quantile).
    level : float
        Confidence level in (0, 1).
    cov : float
        Covariance of the two estimates (0 for independent samples).
    n_x, n_y : int
        Sample sizes, only recorded in the result.

    Returns
    -------
    RatioInterval
        kind "bounded" when g = t^2 se_b^2 / b^2 < 1; "two rays" (low=-inf, high=+inf, the
        excluded gap given) or "unbounded" (the whole line) otherwise, with a reason saying
        that the denominator is not significantly different from 0. NaN with a reason for
        NaN inputs or df <= 0.

    Raises
    ------
    StatsError
        When a standard error is negative or ``level`` is outside (0, 1).
    """
    level = check_level(level)
    vals = [a, b, se_a, se_b, df, cov]
    if any(v is None or (isinstance(v, float) and math.isnan(v)) for v in vals):
        return _nan_ratio(level, "fieller", n_x, n_y, "missing estimate, standard error or df")
    if not df > 0:
        return _nan_ratio(level, "fieller", n_x, n_y, f"degrees of freedom {df} <= 0")
    if se_a < 0 or se_b < 0:
        raise StatsError("standard errors must be >= 0")
    t = float(st.t.ppf(0.5 + level / 2, df)) if math.isfinite(df) else float(st.norm.ppf(0.5 + level / 2))
    ratio = a / b if b != 0 else math.nan
    va, vb = se_a ** 2, se_b ** 2
    A = b * b - t * t * vb
    B = a * b - t * t * cov
    C = a * a - t * t * va
    disc = B * B - A * C
    g = t * t * vb / (b * b) if b != 0 else math.inf
    if A > 0:
        root = math.sqrt(max(disc, 0.0))
        low, high = (B - root) / A, (B + root) / A
        return RatioInterval(ratio, low, high, level, "fieller", n_x, n_y, "bounded", None,
                             None, g, df)
    why = (f"denominator not significantly different from 0 (g = {g:.3g} >= 1): "
           "no finite confidence interval exists at this level")
    if A < 0 and disc > 0:
        root = math.sqrt(disc)
        r1, r2 = sorted(((B - root) / A, (B + root) / A))
        return RatioInterval(ratio, -math.inf, math.inf, level, "fieller", n_x, n_y, "two rays",
                             f"{why}; the set is (-inf, {r1:.6g}] and [{r2:.6g}, +inf)",
                             (r1, r2), g, df)
    return RatioInterval(ratio, -math.inf, math.inf, level, "fieller", n_x, n_y, "unbounded",
                         f"{why}; the set is the whole real line", None, g, df)


def fieller(x: object, y: object, level: float = 0.95, *, df: str = "welch") -> RatioInterval:
    """Compute Fieller's confidence set for mean(x) / mean(y), x and y independent normal samples.

    Parameters
    ----------
    x, y : array-like
        Numerator sample (the environment) and denominator sample (the baseline).
    level : float
        Confidence level in (0, 1).
    df : str
        "welch": Welch-Satterthwaite degrees of freedom of mean(x) - r mean(y) at the estimate
        r = mean(x)/mean(y) (unequal variances; default); "pooled": n_x + n_y - 2 (what
        GraphPad's calculator uses).

    Returns
    -------
    RatioInterval
        See :func:`fieller_from_stats`. NaN with a reason for n < 2 in either sample, NaN
        values, or zero variance in both samples; ratio NaN when mean(y) is 0.
    """
    level = check_level(level)
    check_choice(df, ("welch", "pooled"), "df")
    xa, wx = sample(x, "numerator sample")
    ya, wy = sample(y, "denominator sample")
    if wx or wy:
        return _nan_ratio(level, "fieller", xa.size, ya.size, join_reasons(wx, wy))
    nx, ny = xa.size, ya.size
    if nx < 2 or ny < 2:
        return _nan_ratio(level, "fieller", nx, ny, f"n={nx}, {ny}: Fieller needs n >= 2 in both samples")
    a, b = float(np.mean(xa)), float(np.mean(ya))
    va, vb = float(np.var(xa, ddof=1)) / nx, float(np.var(ya, ddof=1)) / ny
    if va == 0 and vb == 0:
        return _nan_ratio(level, "fieller", nx, ny, "zero variance in both samples: interval degenerate",
                          a / b if b != 0 else math.nan)
    if df == "pooled":
        dof = float(nx + ny - 2)
    elif b == 0:
        dof = float(ny - 1)
    else:
        r = a / b
        dof = (va + r * r * vb) ** 2 / (va ** 2 / (nx - 1) + (r * r * vb) ** 2 / (ny - 1))
    return fieller_from_stats(a, b, math.sqrt(va), math.sqrt(vb), dof, level, n_x=nx, n_y=ny)


def _ratio_of_means(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.mean(x, axis=axis) / np.mean(y, axis=axis)


def ratio_bootstrap(x: object, y: object, level: float = 0.95, *, n_resamples: int = 9999,
                    method: str = "BCa", rng: np.random.Generator | int | None = 0) -> RatioInterval:
    """Compute a bootstrap interval for mean(x) / mean(y), resampling x and y independently.

    Parameters
    ----------
    x, y : array-like
        Numerator (environment) and denominator (baseline) samples.
    level : float
        Confidence level in (0, 1).
    n_resamples : int
        Bootstrap resamples.
    method : str
        "BCa" (default), "percentile" or "basic".
    rng : numpy.random.Generator, int or None
        Seed (default 0, reproducible) or Generator.

    Returns
    -------
    RatioInterval
        kind "bounded". NaN with a reason for n < 3 in either sample, NaN values, a zero
        baseline mean, zero variance in both samples, or a degenerate bootstrap distribution.
        A finite interval is returned even when the baseline mean is near 0; compare with
        :func:`fieller` there.
    """
    level = check_level(level)
    check_choice(method, ("BCa", "percentile", "basic"), "method")
    label = f"bootstrap-{method}"
    xa, wx = sample(x, "numerator sample")
    ya, wy = sample(y, "denominator sample")
    if wx or wy:
        return _nan_ratio(level, label, xa.size, ya.size, join_reasons(wx, wy))
    nx, ny = xa.size, ya.size
    if nx < 3 or ny < 3:
        return _nan_ratio(level, label, nx, ny, f"n={nx}, {ny}: a bootstrap ratio needs n >= 3 in both samples")
    b = float(np.mean(ya))
    if b == 0:
        return _nan_ratio(level, label, nx, ny, "baseline mean is 0: ratio undefined")
    ratio = float(np.mean(xa)) / b
    if np.ptp(xa) == 0 and np.ptp(ya) == 0:
        return _nan_ratio(level, label, nx, ny, "zero variance in both samples: interval degenerate", ratio)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = st.bootstrap((xa, ya), _ratio_of_means, n_resamples=int(n_resamples), vectorized=True,
                           paired=False, axis=-1, confidence_level=level, method=method,
                           rng=generator(rng))
    low, high = float(res.confidence_interval.low), float(res.confidence_interval.high)
    if not (math.isfinite(low) and math.isfinite(high)):
        msgs = "; ".join(str(w.message).split("\n")[0] for w in caught) or "no finite endpoints"
        return _nan_ratio(level, label, nx, ny, f"bootstrap distribution degenerate ({msgs})", ratio)
    caveat = (f"n={nx}, {ny}: bootstrap intervals tend to undercover for small n"
              if min(nx, ny) < 10 else None)
    return RatioInterval(ratio, low, high, level, label, nx, ny, "bounded", caveat)


def baseline_pairs(df: pd.DataFrame, baseline: str, keys: Sequence[str], environment: str,
                   what: str):
    """Yield ``(key_values, rows, baseline_rows_or_None)`` for every non-baseline group.

    Parameters
    ----------
    df : pandas.DataFrame
        Tidy frame.
    baseline : str
        Baseline environment name.
    keys : sequence of str
        Group keys; must include ``environment``. Groups match their baseline on every other
        key, NA matching NA.
    environment : str
        The environment column.
    what : str
        Caller's name for messages.

    Yields
    ------
    key_values : dict
        The group's key values.
    rows : pandas.DataFrame
        The group's rows.
    baseline_rows : pandas.DataFrame or None
        The matching baseline group's rows, None when there is none.

    Raises
    ------
    BaselineNotFoundError
        When no row has the baseline environment; the message lists the environments present.
    StatsError
        When ``keys`` does not include ``environment``.
    """
    if environment not in keys:
        raise StatsError(f"{what}: the group keys {list(keys)} must include {environment!r}")
    envs = df[environment]
    if not (envs == baseline).fillna(False).any():
        present = sorted(map(str, envs.dropna().unique()))
        raise BaselineNotFoundError(
            f"{what}: baseline environment {baseline!r} not found; environments present: {present}")
    others = [k for k in keys if k != environment]
    base = {}
    for key, rows in iter_groups(df[(envs == baseline).fillna(False)], others):
        base[tuple(norm_key(key[k]) for k in others)] = rows
    for key, rows in iter_groups(df, keys):
        if norm_key(key[environment]) == baseline:
            continue
        yield key, rows, base.get(tuple(norm_key(key[k]) for k in others))



def baseline_samples(df: pd.DataFrame, baseline: str, keys: Sequence[str], environment: str,
                     value: str, what: str):
    """Yield, per group, the record started for a comparison with the baseline and the two samples.

    Parameters
    ----------
    df, baseline, keys, environment, what
        As for :func:`baseline_pairs`.
    value : str
        The value column.

    Yields
    ------
    record : dict
        The group keys, baseline, n and n_baseline. When the pair cannot be compared (no
        baseline rows with the same keys, or mixed units) the record carries a ``reason``.
    x, y : numpy.ndarray or None
        The group's and the baseline's values; None when the pair cannot be compared.
    """
    for key, rows, base in baseline_pairs(df, baseline, keys, environment, what):
        x = values_of(rows, value)
        rec = {**key, "baseline": baseline, "n": x.size}
        if base is None:
            rec["reason"] = f"no {baseline!r} rows with the same keys"
            yield rec, None, None
            continue
        y = values_of(base, value)
        rec["n_baseline"] = y.size
        mix = mixed_units(pd.concat([rows, base])) if "unit" in rows else None
        if mix:
            rec["reason"] = mix
            yield rec, None, None
            continue
        yield rec, x, y

def overhead(df: pd.DataFrame, baseline: str = "native", by: str | Sequence[str] | None = None, *,
             level: float = 0.95, n_resamples: int = 9999, rng: int | None = 0,
             environment: str = "environment", value: str = "value") -> pd.DataFrame:
    """Compute the overhead of every environment against a baseline, per group.

    The ratio of means and the percent difference, with a bootstrap interval and Fieller's
    interval.

    Parameters
    ----------
    df : pandas.DataFrame
        Tidy measurements (value, environment and the group keys).
    baseline : str
        The baseline environment ("native" by default).
    by : str, sequence of str or None
        Group keys including the environment column (None: the default keys). A group is
        compared with the baseline group that has the same values of all other keys.
    level : float
        Confidence level.
    n_resamples : int
        Bootstrap resamples.
    rng : int or None
        Seed; every group gets a fresh Generator from it (results do not depend on the other
        groups in the frame).
    environment, value : str
        Column names.

    Returns
    -------
    pandas.DataFrame
        Keys, baseline, n, n_baseline, mean, mean_baseline, ratio, pct, ratio_low, ratio_high
        and pct_low, pct_high (bootstrap), ci_method, fieller_low, fieller_high, fieller_kind,
        reason. Groups without a matching baseline group, too few trials or NaN values give
        NaN with a reason.

    Raises
    ------
    MissingColumnError, EmptyInputError, BaselineNotFoundError
        When a column is missing, the frame has no rows, or the baseline is absent.
    """
    level = check_level(level)
    require_columns(df, [value, environment], "overhead")
    require_rows(df, "overhead")
    keys = group_keys(df, by, what="overhead")
    records = []
    for rec, x, y in baseline_samples(df, baseline, keys, environment, value, "overhead"):
        if x is None:
            records.append(rec)
            continue
        rec["mean"] = float(np.mean(x))
        rec["mean_baseline"] = float(np.mean(y))
        boot = ratio_bootstrap(x, y, level, n_resamples=n_resamples, rng=rng)
        fie = fieller(x, y, level)
        rec.update(ratio=boot.ratio, pct=boot.pct, ratio_low=boot.low, ratio_high=boot.high,
                   pct_low=boot.pct_low, pct_high=boot.pct_high, ci_method=boot.method,
                   fieller_low=fie.low, fieller_high=fie.high, fieller_kind=fie.kind)
        if math.isnan(boot.ratio) and not math.isnan(fie.ratio):
            rec.update(ratio=fie.ratio, pct=fie.pct)
        point = None
        if (math.isnan(rec["ratio"]) and np.isfinite(x).all() and np.isfinite(y).all()
                and rec["mean_baseline"] != 0):
            # one trial on a side: the ratio of the two means is still what was measured; only
            # its interval cannot be had (both intervals above stay NaN with their reasons)
            ratio = rec["mean"] / rec["mean_baseline"]
            rec.update(ratio=ratio, pct=100.0 * (ratio - 1.0))
            point = f"point ratio of means only (n={x.size}, n_baseline={y.size}): no interval"
        rec["reason"] = join_reasons(boot.reason and f"bootstrap: {boot.reason}",
                                     fie.reason and f"Fieller: {fie.reason}", point)
        records.append(rec)
    columns = [*keys, "baseline", "n", "n_baseline", "mean", "mean_baseline", "ratio", "pct",
               "ratio_low", "ratio_high", "pct_low", "pct_high", "ci_method", "fieller_low",
               "fieller_high", "fieller_kind", "reason"]
    out = finish(records, keys, df, columns)
    for c in ("baseline", "ci_method", "fieller_kind"):
        out[c] = out[c].astype("string")
    out["n_baseline"] = out["n_baseline"].astype("Int64")
    return out
