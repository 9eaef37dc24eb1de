"""A curve per environment against a load parameter, compared point by point with a baseline.

Many figures show one curve per environment over a swept parameter (connections, threads,
block size): at every point the mean over trials with its confidence interval, and against the
baseline environment the ratio of means with its interval and a test. :func:`curve` computes all
of it with fixed output columns, so that every such figure is built the same way;
:func:`order_by` sorts rows in a given order of labels (ordered categoricals), the way tables
and legends list environments.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

import pandas as pd

from overhead.stats._common import StatsError, require_columns, require_rows
from overhead.stats.ci import intervals
from overhead.stats.ratio import overhead
from overhead.stats.significance import compare
from overhead.stats.summary import summarize

#: What :func:`curve` returns after the key columns, in this order.
CURVE_COLUMNS = ("n", "mean", "sd", "median", "ci_low", "ci_high", "ci_method", "ci_note",
                 "n_baseline", "mean_baseline", "ratio", "ratio_low", "ratio_high", "fieller_low",
                 "fieller_high", "pct", "pct_low", "pct_high", "welch_p", "welch_p_holm",
                 "mw_p_holm", "hedges_g", "verdict")

__all__ = ["CURVE_COLUMNS", "curve", "order_by"]


def order_by(frame: pd.DataFrame, orders: Mapping[str, Iterable[object]],
             then: Sequence[str] = ()) -> pd.DataFrame:
    """Sort rows by columns in given orders of their values, then by other columns.

    Parameters
    ----------
    frame : pandas.DataFrame
        Any frame.
    orders : mapping
        Column -> its values in the wanted order (e.g. environment labels in legend order).
        Each column is sorted as an ordered categorical; values not listed go last.
    then : sequence of str
        Further sort columns, in their natural order (e.g. the load parameter).

    Returns
    -------
    pandas.DataFrame
        The rows in that order (stable), with a fresh index; the columns are unchanged.
    """
    keys = {}
    for column, values in orders.items():
        cats = list(dict.fromkeys(values))
        col = frame[column].astype(object)
        keys[column] = pd.Categorical(col.where(col.isin(cats)), categories=cats, ordered=True)
    for column in then:
        keys[column] = frame[column].to_numpy()
    if not keys:
        return frame.reset_index(drop=True)
    tmp = pd.DataFrame(keys, index=frame.index)
    idx = tmp.sort_values(list(keys), kind="stable", na_position="last").index
    return frame.loc[idx].reset_index(drop=True)


def curve(df: pd.DataFrame, x: str, baseline: str | None, *, by: Sequence[str] = (),
          environment: str = "environment", value: str = "value", level: float = 0.95,
          n_resamples: int = 9999, test: str = "welch", ratios: bool = True,
          order: Mapping[str, Iterable[object]] | None = None) -> pd.DataFrame:
    """Compute a curve's per-point mean with CI, and its ratio with CIs and tests vs the baseline.

    A point is one (``by``..., environment, ``x``) group of trials. Its interval is Student-t
    where a Shapiro-Wilk check does not reject normality, bootstrap BCa otherwise
    (:func:`~overhead.stats.intervals`, method "auto"). Against the baseline environment's
    trials at the same point: the ratio of means with a bootstrap BCa interval and Fieller's
    interval (:func:`~overhead.stats.overhead`), Welch's and Mann-Whitney's tests with Holm's
    correction over all non-baseline points of each ``by`` group, Hedges' g, and a verdict in
    words (:func:`~overhead.stats.compare`).

    Parameters
    ----------
    df : pandas.DataFrame
        One row per trial: ``value``, ``environment``, ``x`` and the ``by`` columns.
    x : str
        The swept parameter (connections, threads...).
    baseline : str or None
        The environment every other is compared with (None: no comparison, only the
        per-point statistics; the comparison columns are NaN).
    by : sequence of str
        Further keys that split the data into separate curves (e.g. the workload); each such
        group is one family for Holm's correction (no ``by``: all points are one family).
    environment, value : str
        Column names.
    level : float
        Confidence level of every interval.
    n_resamples : int
        Bootstrap resamples (CIs where normality is rejected, and the ratio intervals).
    test : str
        Which test gives the verdict: "welch" or "mann-whitney".
    ratios : bool
        Compute the ratio intervals (bootstrap and Fieller); False leaves them NaN and saves
        the bootstrap where only the tests are wanted (mean_baseline is still given).
    order : mapping, optional
        Column -> values in the order rows should follow (see :func:`order_by`); rows are then
        sorted by those columns, the other keys, and ``x``.

    Returns
    -------
    pandas.DataFrame
        The key columns (``by``..., environment, ``x``), then :data:`CURVE_COLUMNS`: n, mean
        (the interval's estimate: a t interval is centred on it exactly), sd (ddof=1), median,
        ci_low, ci_high, ci_method, ci_note (why a CI is NaN or a caveat), n_baseline,
        mean_baseline, ratio (mean / baseline mean; 1 for the baseline), ratio_low, ratio_high
        (bootstrap BCa), fieller_low, fieller_high, pct (100 (ratio - 1); 0 for the baseline),
        pct_low, pct_high, welch_p, welch_p_holm, mw_p_holm, hedges_g, verdict ("baseline" for
        the baseline's own points). Data too thin for a number gives NaN; nothing is filled with
        0 except the baseline's own ratio and percent.

    Raises
    ------
    MissingColumnError, EmptyInputError, BaselineNotFoundError
        As the functions it calls.
    StatsError
        When the key columns repeat.

    Notes
    -----
    Bootstrap intervals are seeded per point, but resample the trials in the order they come:
    the same trials in another order give another (equally valid) bootstrap interval. Student-t
    intervals, tests and ratios do not depend on the order.
    """
    keys = [*by, environment, x]
    require_columns(df, [*keys, value], "curve")
    require_rows(df, "curve")
    if len(set(keys)) != len(keys):
        raise StatsError(f"curve: key columns repeat: {keys}")
    data = df[[*keys, value]].rename(columns={value: "value"}) if value != "value" else df[[*keys, "value"]]
    summ = summarize(data, keys, percentiles=(), center="arithmetic")
    ci = intervals(data, keys, level=level, method="auto", n_resamples=n_resamples)
    out = summ[[*keys, "n", "sd", "median"]].merge(
        ci[[*keys, "estimate", "low", "high", "method", "reason"]].rename(
            columns={"estimate": "mean", "low": "ci_low", "high": "ci_high", "method": "ci_method",
                     "reason": "ci_note"}),
        on=keys, how="left")
    for column in CURVE_COLUMNS:
        if column not in out.columns:
            out[column] = pd.NA if column == "verdict" else math.nan
    if baseline is not None:
        cmp = compare(data, baseline, keys, test=test, family=list(by) or None, environment=environment)
        cmp = cmp[[*keys, "n_baseline", "mean_baseline", "welch_p", "welch_p_holm", "mw_p_holm",
                   "hedges_g", "verdict"]]
        if ratios:
            ov = overhead(data, baseline, keys, level=level, n_resamples=n_resamples, environment=environment)
            cmp = cmp.drop(columns="mean_baseline").merge(
                ov[[*keys, "mean_baseline", "ratio", "ratio_low", "ratio_high", "fieller_low",
                    "fieller_high", "pct", "pct_low", "pct_high"]], on=keys, how="left")
        out = out.drop(columns=[c for c in cmp.columns if c not in keys]).merge(cmp, on=keys, how="left")
        base = (out[environment] == baseline).to_numpy(dtype=bool)
        out.loc[base, "ratio"] = 1.0
        out.loc[base, "pct"] = 0.0
        out["verdict"] = out["verdict"].astype("string").mask(base, "baseline")
    out["verdict"] = out["verdict"].astype("string")
    out = out[[*keys, *CURVE_COLUMNS]]
    if order:
        rest = [k for k in keys if k not in order and k != x]
        out = order_by(out, order, then=[*rest, x])
    return out.reset_index(drop=True)
