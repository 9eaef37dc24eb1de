"""Adaptive sample size.

Is the confidence interval narrow enough yet, and if not, how many trials would a pilot
suggest?

The target is a relative half-width: the Student-t half-width t * s / sqrt(n) at most
``target_pct`` percent of the mean. The classic pilot formula n = (t_{n-1} * s / (e * mean))^2
is iterated (t depends on n) from the normal quantile until it stops changing; the result is
then checked directly, so it is the smallest n whose t half-width, with the pilot's mean and
SD, meets the target. It assumes the pilot's mean and SD are the truth: treat it as a guide,
and check :func:`precision` again after the extra trials.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats as st

from overhead.stats._common import (
    StatsError,
    check_level,
    finish,
    group_keys,
    iter_groups,
    mixed_units,
    require_columns,
    require_rows,
    sample,
    values_of,
)


@dataclass(frozen=True)
class Precision:
    """Whether a sample's t interval meets a relative half-width target.

    Attributes
    ----------
    n : int
        The sample size.
    mean, half_width, rel_half_width_pct, target_pct : float
        The mean, the t half-width, the half-width in percent of the mean, and the target.
    reached : bool or None
        Whether the target is met; None when it cannot be told.
    reason : str or None
        Why the numbers are NaN, or a caveat.
    """

    n: int
    mean: float
    half_width: float
    rel_half_width_pct: float
    target_pct: float
    reached: bool | None
    reason: str | None = None


@dataclass(frozen=True)
class TrialsNeeded:
    """Pilot-based sample size.

    Attributes
    ----------
    n_total : float
        Trials in all.
    n_more : float
        Trials beyond those made (>= 0).
    iterations : int
        Iterations of the formula.
    reason : str or None
        Why NaN, e.g. a zero SD.
    """

    n_total: float
    n_more: float
    iterations: int
    reason: str | None = None


def _check_target(target_pct: float) -> float:
    if not (isinstance(target_pct, int | float) and target_pct > 0 and math.isfinite(target_pct)):
        raise StatsError(f"target_pct must be a positive number of percent, got {target_pct!r}")
    return float(target_pct)


def precision(x: object, target_pct: float, level: float = 0.95) -> Precision:
    """Check whether the t-interval half-width of the mean is at most ``target_pct`` % of the mean.

    Parameters
    ----------
    x : array-like
        The trials so far.
    target_pct : float
        Target relative half-width in percent (e.g. 1.0).
    level : float
        Confidence level.

    Returns
    -------
    Precision
        reached None, numbers NaN, with a reason for n < 2, NaN values or a mean of 0. A zero
        SD gives half-width 0 and reached True, with a reason noting the degenerate sample.

    Raises
    ------
    StatsError
        When ``target_pct`` is not a positive number or ``level`` is outside (0, 1).
    """
    level = check_level(level)
    target = _check_target(target_pct)
    arr, why = sample(x)
    n = arr.size
    if why:
        return Precision(n, math.nan, math.nan, math.nan, target, None, why)
    mean = float(np.mean(arr))
    if n < 2:
        return Precision(n, mean, math.nan, math.nan, target, None, f"n={n}: a half-width needs n >= 2")
    if mean == 0:
        return Precision(n, mean, math.nan, math.nan, target, None, "mean is 0: relative half-width undefined")
    sd = float(np.std(arr, ddof=1))
    half = float(st.t.ppf(0.5 + level / 2, n - 1)) * sd / math.sqrt(n)
    rel = 100.0 * half / abs(mean)
    note = f"zero variance (all {n} values equal): half-width 0 is not evidence of precision" if sd == 0 else None
    return Precision(n, mean, half, rel, target, rel <= target, note)


def trials_needed(x: object = None, target_pct: float = 1.0, level: float = 0.95, *,
                  n: int | None = None, mean: float | None = None, sd: float | None = None,
                  max_n: int = 100_000) -> TrialsNeeded:
    """Estimate the trials a pilot suggests for a t half-width <= ``target_pct`` % of the mean.

    Parameters
    ----------
    x : array-like or None
        The pilot sample; or None and give ``n``, ``mean`` and ``sd`` instead.
    target_pct : float
        Target relative half-width in percent.
    level : float
        Confidence level.
    n, mean, sd : int, float, float
        Pilot summary, used when ``x`` is None.
    max_n : int
        Give up above this many trials (NaN with a reason).

    Returns
    -------
    TrialsNeeded
        n_total = the smallest n >= 2 with t_{n-1} * sd / sqrt(n) <= target_pct/100 * |mean|,
        n_more = max(0, n_total - n). NaN with a reason for a pilot with n < 2, NaN values, a
        mean of 0, or an SD of 0 (the pilot cannot estimate the spread).

    Raises
    ------
    StatsError
        When ``x`` is None and any of ``n``, ``mean``, ``sd`` is missing.
    """
    level = check_level(level)
    target = _check_target(target_pct)
    if x is not None:
        arr, why = sample(x)
        if why:
            return TrialsNeeded(math.nan, math.nan, 0, why)
        n0 = arr.size
        if n0 < 2:
            return TrialsNeeded(math.nan, math.nan, 0, f"n={n0}: a pilot needs n >= 2")
        m, s = float(np.mean(arr)), float(np.std(arr, ddof=1))
    else:
        if n is None or mean is None or sd is None:
            raise StatsError("trials_needed: give a sample x, or all of n, mean and sd")
        n0, m, s = int(n), float(mean), float(sd)
        if n0 < 2 or not (math.isfinite(m) and math.isfinite(s)):
            return TrialsNeeded(math.nan, math.nan, 0, "pilot summary needs n >= 2 and finite mean and sd")
    if m == 0:
        return TrialsNeeded(math.nan, math.nan, 0, "pilot mean is 0: relative precision undefined")
    if s == 0:
        return TrialsNeeded(math.nan, math.nan, 0, "pilot SD is 0: cannot extrapolate the spread")
    c = s / (target / 100.0 * abs(m))
    z = float(st.norm.ppf(0.5 + level / 2))
    k = max(2, math.ceil((z * c) ** 2))
    iterations = 1
    seen = {k}
    while iterations < 100:
        if k > max_n:
            return TrialsNeeded(math.nan, math.nan, iterations, f"more than max_n={max_n} trials needed")
        nxt = max(2, math.ceil((float(st.t.ppf(0.5 + level / 2, k - 1)) * c) ** 2))
        iterations += 1
        if nxt == k or nxt in seen:
            k = max(k, nxt)
            break
        seen.add(nxt)
        k = nxt

    def ok(m_: int) -> bool:
        return float(st.t.ppf(0.5 + level / 2, m_ - 1)) * c / math.sqrt(m_) <= 1.0

    while k > 2 and ok(k - 1):
        k -= 1
    while not ok(k):
        k += 1
        if k > max_n:
            return TrialsNeeded(math.nan, math.nan, iterations, f"more than max_n={max_n} trials needed")
    return TrialsNeeded(float(k), float(max(0, k - n0)), iterations)


def precision_table(df: pd.DataFrame, target_pct: float, by: str | Sequence[str] | None = None, *,
                    level: float = 0.95, value: str = "value") -> pd.DataFrame:
    """Compute :func:`precision` and :func:`trials_needed` per group of a tidy frame.

    Parameters
    ----------
    df : pandas.DataFrame
        Tidy measurements.
    target_pct : float
        Target relative half-width in percent.
    by : str, sequence of str or None
        Group keys (None: the default keys).
    level : float
        Confidence level.
    value : str
        Value column.

    Returns
    -------
    pandas.DataFrame
        Keys, n, mean, half_width, rel_half_width_pct, target_pct, reached (boolean, NA when
        unknown), n_total, n_more, reason.
    """
    require_columns(df, [value], "precision_table")
    require_rows(df, "precision_table")
    keys = group_keys(df, by, what="precision_table")
    records = []
    for key, rows in iter_groups(df, keys):
        x = values_of(rows, value)
        mix = mixed_units(rows)
        if mix:
            records.append({**key, "n": x.size, "target_pct": target_pct, "reason": mix})
            continue
        p = precision(x, target_pct, level)
        t = trials_needed(x, target_pct, level)
        records.append({**key, "n": p.n, "mean": p.mean, "half_width": p.half_width,
                        "rel_half_width_pct": p.rel_half_width_pct, "target_pct": p.target_pct,
                        "reached": pd.NA if p.reached is None else p.reached,
                        "n_total": t.n_total, "n_more": t.n_more,
                        "reason": "; ".join(r for r in (p.reason, t.reason) if r) or None})
    columns = [*keys, "n", "mean", "half_width", "rel_half_width_pct", "target_pct", "reached",
               "n_total", "n_more", "reason"]
    out = finish(records, keys, df, columns)
    out["reached"] = out["reached"].astype("boolean")
    return out
