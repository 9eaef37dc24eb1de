"""A curve per environment against a load parameter, compared point by point with a baseline.

Many figures show one curve per environment over a swept parameter (connections, threads,
block size): at every point the mean over trials with its confidence interval, and against the
baseline environment the ratio of means with its interval and the verdict. :func:`curve` computes all
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
from overhead.stats.summary import summarize
from overhead.stats.verdicts import MarginSource, verdicts

#: What :func:`curve` returns after the key columns, in this order.
CURVE_COLUMNS = ("n", "mean", "sd", "median", "ci_low", "ci_high", "ci_method", "ci_note",
                 "n_baseline", "mean_baseline", "ratio", "ratio_low", "ratio_high", "ratio_method",
                 "pct", "pct_low", "pct_high", "margin_low_pct", "margin_high_pct", "p_difference",
                 "p_difference_holm", "p_equivalence", "verdict", "beyond_margin", "trials_needed",
                 "verdict_detail", "n_look", "ratio_level")

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


def curve(df: pd.DataFrame, x: str, baseline: str | None, *, margin: MarginSource | None = None,
          by: Sequence[str] = (), environment: str = "environment", value: str = "value",
          level: float = 0.95, higher_is_better: bool | None | str = "auto", bounds: str = "auto",
          order: Mapping[str, Iterable[object]] | None = None, sequential: object = None,
          rounds: str = "round") -> pd.DataFrame:
    """Compute a curve's per-point mean with its interval, and its verdict against the baseline.

    A point is one (``by``..., environment, ``x``) group of trials. Its interval is the one
    :func:`~overhead.stats.auto_interval` chooses (log-t for a positive quantity, logit-t for a
    percentage, t otherwise: the methods that cover at small n). Against the baseline
    environment's trials at the same point: the ratio of means with the interval the verdict is
    decided on, the tests on the same scale (Holm over all non-baseline points of each ``by``
    group) and the verdict (:func:`~overhead.stats.verdicts`).

    Parameters
    ----------
    df : pandas.DataFrame
        One row per trial: ``value``, ``environment``, ``x`` and the ``by`` columns.
    x : str
        The swept parameter (connections, threads...).
    baseline : str or None
        The environment every other is compared with (None: no comparison, only the
        per-point statistics; the comparison columns are NaN).
    margin : Margin or callable
        The equivalence margin, or a function from a point's key values to its margin (e.g. a
        :class:`overhead.margins.Margins`); needed with a baseline.
    by : sequence of str
        Further keys that split the data into separate curves (e.g. the workload); each such
        group is one family for Holm's correction (no ``by``: all points are one family).
    environment, value : str
        Column names.
    level : float
        Confidence level of every interval.
    higher_is_better : bool, None or "auto"
        The quantity's better direction (faster/slower vs higher/lower); "auto" reads a
        ``higher_is_better`` column when there is one, else None.
    bounds : str
        The quantity's range for the mean's interval (see :func:`~overhead.stats.auto_interval`).
    order : mapping, optional
        Column -> values in the order rows should follow (see :func:`order_by`); rows are then
        sorted by those columns, the other keys, and ``x``.
    sequential, rounds
        A sequential campaign's design(s) and the column of each trial's round: the verdicts
        are replayed look by look (see :func:`~overhead.stats.verdicts`).

    Returns
    -------
    pandas.DataFrame
        The key columns (``by``..., environment, ``x``), then :data:`CURVE_COLUMNS`: n, mean,
        sd (ddof=1), median, ci_low, ci_high, ci_method, ci_note (why a CI is NaN or a caveat),
        n_baseline, mean_baseline, ratio (mean / baseline mean; 1 for the baseline), ratio_low,
        ratio_high, ratio_method (the interval the verdict is decided on), pct (100 (ratio -
        1); 0 for the baseline), pct_low, pct_high, margin_low_pct, margin_high_pct,
        p_difference, p_difference_holm, p_equivalence, verdict ("baseline" for the baseline's
        own points), beyond_margin, trials_needed, verdict_detail, n_look (the trials of the
        environment the verdict was read from: n, or a sequential look's) and ratio_level (the
        level of the ratio's interval). Data too thin for a number gives NaN; nothing is filled
        with 0 except the baseline's own ratio and percent.

    Raises
    ------
    MissingColumnError, EmptyInputError, BaselineNotFoundError
        As the functions it calls.
    StatsError
        When the key columns repeat, or a baseline is given without a margin.

    Notes
    -----
    No interval here depends on the order of the trials.
    """
    keys = [*by, environment, x]
    require_columns(df, [*keys, value], "curve")
    require_rows(df, "curve")
    if len(set(keys)) != len(keys):
        raise StatsError(f"curve: key columns repeat: {keys}")
    if baseline is not None and margin is None:
        raise StatsError("curve: a comparison with the baseline needs its equivalence margin "
                         "(margin=, e.g. overhead.margins.load())")
    extra = [c for c in ("unit", "higher_is_better") if c in df.columns and c not in keys]
    if sequential is not None and rounds in df.columns and rounds not in keys:
        extra.append(rounds)
    data = df[[*keys, value, *extra]]
    if value != "value":
        data = data.rename(columns={value: "value"})
    summ = summarize(data[[*keys, "value"]], keys, percentiles=(), center="arithmetic")
    ci = intervals(data[[*keys, "value", *(["unit"] if "unit" in extra else [])]], keys,
                   level=level, method="auto", bounds=bounds)
    out = summ[[*keys, "n", "sd", "median", "mean"]].rename(columns={"mean": "_plain"}).merge(
        ci[[*keys, "estimate", "low", "high", "method", "reason"]].rename(
            columns={"estimate": "mean", "low": "ci_low", "high": "ci_high", "method": "ci_method",
                     "reason": "ci_note"}),
        on=keys, how="left")
    # a point of one trial has no interval, but its value is its mean
    out["mean"] = out["mean"].fillna(out["_plain"])
    out = out.drop(columns="_plain")
    for column in CURVE_COLUMNS:
        if column not in out.columns:
            out[column] = pd.NA if column in ("verdict", "verdict_detail", "ratio_method") else math.nan
    if baseline is not None:
        v = verdicts(data, baseline, margin, keys, level=level, family=list(by) or None,
                     higher_is_better=higher_is_better, environment=environment,
                     sequential=sequential, rounds=rounds)
        # the trials the verdict was read from and its interval's level: all of them at
        # ``level``, or a sequential campaign's look (fewer trials, its own level)
        v = v.rename(columns={"ci_method": "ratio_method", "ci_level": "ratio_level"})
        v["n_look"] = v["n"]
        cols = [c for c in CURVE_COLUMNS if c in v.columns and c not in ("n", "mean")]
        out = out.drop(columns=cols).merge(v[[*keys, *cols]], on=keys, how="left")
        base = (out[environment] == baseline).to_numpy(dtype=bool)
        out.loc[base, "ratio"] = 1.0
        out.loc[base, "pct"] = 0.0
        out["verdict"] = out["verdict"].astype("string").mask(base, "baseline")
    for c in ("verdict", "verdict_detail", "ratio_method"):
        out[c] = out[c].astype("string")
    out = out[[*keys, *CURVE_COLUMNS]]
    if order:
        rest = [k for k in keys if k not in order and k != x]
        out = order_by(out, order, then=[*rest, x])
    return out.reset_index(drop=True)
