"""Warm-up and outlier flags.

These functions add or set flag columns and never delete rows; :func:`exclude_flagged` makes
the filtered view a notebook shows, and says what it left out.

Outliers: the modified z-score of Iglewicz and Hoaglin (1993), M_i = 0.6745 (x_i - median) /
MAD with MAD the median absolute deviation from the median; |M_i| > 3.5 flags an outlier.
When MAD is 0 (more than half the values equal) the score is undefined: NaN, flag NA.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from overhead.stats._common import (
    StatsError,
    group_keys,
    iter_groups,
    require_columns,
    require_rows,
    sample,
    values_of,
)

#: Iglewicz-Hoaglin constant: the 0.75 quantile of the standard normal (MAD -> SD scale).
MAD_CONSTANT = 0.6745
#: Iglewicz-Hoaglin recommended threshold for |modified z|.
THRESHOLD = 3.5


@dataclass(frozen=True)
class ModifiedZ:
    """Modified z-scores of a sample, with its median and MAD, and the reason they are NaN.

    Attributes
    ----------
    scores : numpy.ndarray
        The modified z-scores, in the sample's order.
    median, mad : float
        The sample's median and median absolute deviation.
    reason : str or None
        Why the scores are NaN.
    """

    scores: np.ndarray
    median: float
    mad: float
    reason: str | None = None


def modified_zscores(x: object) -> ModifiedZ:
    """Compute Iglewicz-Hoaglin modified z-scores 0.6745 (x_i - median) / MAD.

    Parameters
    ----------
    x : array-like
        The sample.

    Returns
    -------
    ModifiedZ
        Scores NaN (with a reason) when the sample holds NaN, is empty, or has MAD 0.
    """
    arr, why = sample(x)
    if why:
        return ModifiedZ(np.full(arr.size, np.nan), math.nan, math.nan, why)
    med = float(np.median(arr))
    mad = float(np.median(np.abs(arr - med)))
    if mad == 0:
        return ModifiedZ(np.full(arr.size, np.nan), med, 0.0,
                         "MAD is 0 (more than half the values equal): modified z undefined")
    return ModifiedZ(MAD_CONSTANT * (arr - med) / mad, med, mad)


def flag_outliers(df: pd.DataFrame, by: str | Sequence[str] | None = None, *,
                  threshold: float = THRESHOLD, value: str = "value") -> pd.DataFrame:
    """Add ``mod_z``, ``outlier`` and ``outlier_reason`` columns (a copy; no row removed).

    Parameters
    ----------
    df : pandas.DataFrame
        Tidy measurements.
    by : str, sequence of str or None
        Groups within which scores are computed (None: the default keys).
    threshold : float
        Flag when |mod_z| > threshold (3.5 by default).
    value : str
        Value column.

    Returns
    -------
    pandas.DataFrame
        ``df`` with mod_z (float), outlier (boolean; NA where the score is undefined) and
        outlier_reason (string, NA when scored).

    Raises
    ------
    MissingColumnError, EmptyInputError
        When the value column is missing or the frame has no rows.
    StatsError
        When ``threshold`` is not > 0.
    """
    if not threshold > 0:
        raise StatsError(f"threshold must be > 0, got {threshold!r}")
    require_columns(df, [value], "flag_outliers")
    require_rows(df, "flag_outliers")
    keys = group_keys(df, by, what="flag_outliers")
    out = df.copy()
    z = pd.Series(np.nan, index=df.index, dtype="float64")
    reason = pd.Series(pd.NA, index=df.index, dtype="string")
    for _, rows in iter_groups(df, keys):
        res = modified_zscores(values_of(rows, value))
        z.loc[rows.index] = res.scores
        if res.reason:
            reason.loc[rows.index] = res.reason
    out["mod_z"] = z
    flag = pd.array(np.abs(z.to_numpy()) > threshold, dtype="boolean")
    flag[np.isnan(z.to_numpy())] = pd.NA
    out["outlier"] = flag
    out["outlier_reason"] = reason
    return out


def flag_warmup(df: pd.DataFrame, by: str | Sequence[str] | None = None, *,
                order: str = "trial", first: int = 1) -> pd.DataFrame:
    """Set ``warmup`` True on the first ``first`` rows of each group in ``order`` (a copy).

    Parameters
    ----------
    df : pandas.DataFrame
        Tidy measurements.
    by : str, sequence of str or None
        Groups; None means the default keys plus run_id when present (trials are numbered per
        run).
    order : str
        Column giving the order of trials ("trial"; e.g. "p_report" or "started_at").
    first : int
        How many leading rows per group are warm-up.

    Returns
    -------
    pandas.DataFrame
        ``df`` with ``warmup`` True for the flagged rows, False for the others that have an
        order value, and unchanged (never un-flagged; NA stays NA) for rows whose order value
        is missing.

    Raises
    ------
    MissingColumnError, EmptyInputError
        When the order column is missing or the frame has no rows.
    StatsError
        When ``first`` is < 1.
    """
    if first < 1:
        raise StatsError(f"first must be >= 1, got {first!r}")
    require_columns(df, [order], "flag_warmup")
    require_rows(df, "flag_warmup")
    if by is None:
        keys = group_keys(df, None, what="flag_warmup")
        if "run_id" in df.columns and "run_id" not in keys:
            keys.append("run_id")
    else:
        keys = group_keys(df, by, what="flag_warmup")
    keys = [k for k in keys if k != order]
    out = df.copy()
    old = (out["warmup"].astype("boolean") if "warmup" in out.columns
           else pd.Series(pd.NA, index=out.index, dtype="boolean"))
    new = pd.Series(pd.NA, index=out.index, dtype="boolean")
    for _, rows in iter_groups(df, keys):
        known = rows[rows[order].notna()]
        if known.empty:
            continue
        ranks = known[order].rank(method="min")
        new.loc[known.index] = (ranks <= first).to_numpy()
    out["warmup"] = (old.fillna(False) | new.fillna(False)).where(old.notna() | new.notna(), pd.NA)
    out["warmup"] = out["warmup"].astype("boolean")
    return out


def exclude_flagged(df: pd.DataFrame, flags: Sequence[str] = ("warmup", "outlier")) -> pd.DataFrame:
    """Return the rows of ``df`` that no flag marks True (NA counts as not flagged).

    Parameters
    ----------
    df : pandas.DataFrame
        Frame with flag columns.
    flags : sequence of str
        Flag columns to honour; absent ones are skipped (the record says which were absent).

    Returns
    -------
    pandas.DataFrame
        A view for summaries, recording the number left out per flag in ``attrs["excluded"]``
        (None for an absent flag column).
    """
    keep = pd.Series(True, index=df.index)
    excluded: dict[str, int | None] = {}
    for f in flags:
        if f not in df.columns:
            excluded[f] = None
            continue
        hit = df[f].astype("boolean").fillna(False).to_numpy(dtype=bool)
        excluded[f] = int(hit.sum())
        keep &= ~hit
    out = df[keep.to_numpy()]
    out.attrs["excluded"] = excluded
    return out
