"""Hypothesis tests between environments, Holm correction and effect sizes.

These are supplementary: what a comparison lets a reader conclude is its verdict
(:mod:`overhead.stats.verdicts`), decided on the interval of the ratio and tested on the same
scale. A test here that does not reject is absence of evidence, never a claim of sameness, and
the tables here say "not shown different", never "no significant difference".

Tests: Welch's t (unequal variances), Mann-Whitney U (two-sided), Kruskal-Wallis across
several environments. A family of p-values is corrected with Holm's step-down method
(statsmodels.stats.multitest.multipletests, method="holm"; note that
scipy.stats.false_discovery_control is Benjamini-Hochberg, a different error rate).

Effect sizes: Cohen's d (pooled SD), Hedges' g (d times the small-sample correction
1 - 3 / (4 (n_x + n_y) - 9), Hedges & Olkin 1985, as statsmodels' effectsize_smd; exact=True
uses the gamma-function form), Hodges-Lehmann shift (median of all pairwise differences
x_i - y_j), Cliff's delta (P(X > Y) - P(X < Y)).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import special
from scipy import stats as st
from statsmodels.stats.multitest import multipletests

from overhead.stats._common import (
    Estimate,
    check_choice,
    check_level,
    finish,
    group_keys,
    iter_groups,
    join_reasons,
    mixed_units,
    require_columns,
    require_rows,
    sample,
    values_of,
)
from overhead.stats.ratio import baseline_samples


@dataclass(frozen=True)
class TestResult:
    """Outcome of a hypothesis test.

    Attributes
    ----------
    statistic, pvalue : float
        The test statistic and its p-value.
    test : str
        The test name.
    df : float or None
        Degrees of freedom (Welch).
    reason : str or None
        Why the numbers are NaN.
    """

    __test__ = False  # not a pytest test class

    statistic: float
    pvalue: float
    test: str
    df: float | None = None
    reason: str | None = None


def _two(x: object, y: object, need: int, what: str):
    xa, wx = sample(x, "first sample")
    ya, wy = sample(y, "second sample")
    why = join_reasons(wx, wy)
    if not why and (xa.size < need or ya.size < need):
        why = f"n={xa.size}, {ya.size}: {what} needs n >= {need} in both samples"
    return xa, ya, why


def welch(x: object, y: object) -> TestResult:
    """Run Welch's two-sample t test (two-sided, unequal variances).

    Parameters
    ----------
    x, y : array-like
        The two samples.

    Returns
    -------
    TestResult
        statistic t (positive when mean(x) > mean(y)), p-value, Welch-Satterthwaite df.
        NaN with a reason for n < 2 in either sample, NaN values, or zero variance in both.
    """
    xa, ya, why = _two(x, y, 2, "Welch's t test")
    if why:
        return TestResult(math.nan, math.nan, "welch", None, why)
    if np.ptp(xa) == 0 and np.ptp(ya) == 0:
        return TestResult(math.nan, math.nan, "welch", None,
                          "zero variance in both samples: t statistic undefined")
    res = st.ttest_ind(xa, ya, equal_var=False)
    return TestResult(float(res.statistic), float(res.pvalue), "welch", float(res.df))


def mann_whitney(x: object, y: object) -> TestResult:
    """Run the Mann-Whitney U test (two-sided; scipy picks exact or asymptotic, ties corrected).

    Parameters
    ----------
    x, y : array-like
        The two samples.

    Returns
    -------
    TestResult
        statistic U of x (number of pairs with x > y, ties counting 1/2), p-value. NaN with a
        reason for an empty sample, NaN values, or all values equal across both samples.
    """
    xa, ya, why = _two(x, y, 1, "the Mann-Whitney test")
    if why:
        return TestResult(math.nan, math.nan, "mann-whitney", None, why)
    if np.ptp(np.concatenate([xa, ya])) == 0:
        return TestResult(math.nan, math.nan, "mann-whitney", None, "all values equal: no ranking")
    res = st.mannwhitneyu(xa, ya, alternative="two-sided")
    return TestResult(float(res.statistic), float(res.pvalue), "mann-whitney")


def kruskal_wallis(*samples: object) -> TestResult:
    """Run the Kruskal-Wallis H test that several samples come from the same distribution.

    Parameters
    ----------
    *samples : array-like
        Two or more samples.

    Returns
    -------
    TestResult
        statistic H, p-value (chi-square approximation). NaN with a reason for fewer than two
        samples, an empty sample, NaN values, or all values equal.
    """
    arrs, whys = [], []
    for i, s in enumerate(samples):
        a, w = sample(s, f"sample {i + 1}")
        arrs.append(a)
        whys.append(w)
    why = join_reasons(*whys)
    if len(arrs) < 2:
        why = join_reasons(why, f"{len(arrs)} sample(s): Kruskal-Wallis needs at least 2")
    if why:
        return TestResult(math.nan, math.nan, "kruskal-wallis", None, why)
    if np.ptp(np.concatenate(arrs)) == 0:
        return TestResult(math.nan, math.nan, "kruskal-wallis", None, "all values equal: no ranking")
    res = st.kruskal(*arrs)
    return TestResult(float(res.statistic), float(res.pvalue), "kruskal-wallis", len(arrs) - 1.0)


def holm(pvalues: object, alpha: float = 0.05) -> np.ndarray:
    """Compute Holm-adjusted p-values for a family (statsmodels multipletests, method "holm").

    Parameters
    ----------
    pvalues : array-like
        The family's raw p-values; NaN entries (tests that could not be made) are left out of
        the family and stay NaN.
    alpha : float
        Family-wise error rate (only checked; the adjusted p-values do not depend on it).

    Returns
    -------
    numpy.ndarray
        Adjusted p-values, same shape and order.
    """
    check_level(alpha, "alpha")
    p = np.asarray(pvalues, dtype="float64")
    out = np.full(p.shape, np.nan)
    ok = np.isfinite(p)
    if ok.any():
        out[ok] = multipletests(p[ok], alpha=alpha, method="holm")[1]
    return out


def cohens_d(x: object, y: object) -> Estimate:
    """Compute Cohen's d: (mean(x) - mean(y)) / pooled SD (ddof=1 per sample).

    Parameters
    ----------
    x, y : array-like
        The samples.

    Returns
    -------
    Estimate
        NaN with a reason for n < 2 in either sample, NaN values, or a pooled SD of 0.
    """
    xa, ya, why = _two(x, y, 2, "Cohen's d")
    if why:
        return Estimate(math.nan, why)
    nx, ny = xa.size, ya.size
    pooled = math.sqrt(((nx - 1) * np.var(xa, ddof=1) + (ny - 1) * np.var(ya, ddof=1)) / (nx + ny - 2))
    if pooled == 0:
        return Estimate(math.nan, "pooled SD is 0: standardized difference undefined")
    return Estimate(float((np.mean(xa) - np.mean(ya)) / pooled))


def hedges_g(x: object, y: object, *, exact: bool = False) -> Estimate:
    """Compute Hedges' g: Cohen's d times the small-sample bias correction J.

    Parameters
    ----------
    x, y : array-like
        The samples.
    exact : bool
        False: J = 1 - 3 / (4 (n_x + n_y) - 9) (Hedges & Olkin's approximation, as
        statsmodels.stats.meta_analysis.effectsize_smd); True: J = Gamma(m/2) /
        (sqrt(m/2) Gamma((m-1)/2)) with m = n_x + n_y - 2.

    Returns
    -------
    Estimate
        NaN with a reason as for :func:`cohens_d` (and for n_x + n_y < 4 with exact=True).
    """
    d = cohens_d(x, y)
    if math.isnan(d.value):
        return d
    n = np.asarray(x).size + np.asarray(y).size
    if exact:
        m = n - 2
        if m < 2:
            return Estimate(math.nan, "exact Hedges correction needs n_x + n_y >= 4")
        j = math.exp(special.gammaln(m / 2) - special.gammaln((m - 1) / 2)) / math.sqrt(m / 2)
    else:
        j = 1.0 - 3.0 / (4.0 * n - 9.0)
    return Estimate(d.value * j)


def hodges_lehmann(x: object, y: object) -> Estimate:
    """Compute the Hodges-Lehmann shift estimate: the median of all n_x * n_y differences x_i - y_j.

    Parameters
    ----------
    x, y : array-like
        The samples.

    Returns
    -------
    Estimate
        NaN with a reason for an empty sample or NaN values.
    """
    xa, ya, why = _two(x, y, 1, "the Hodges-Lehmann estimate")
    if why:
        return Estimate(math.nan, why)
    return Estimate(float(np.median(np.subtract.outer(xa, ya))))


def cliffs_delta(x: object, y: object) -> Estimate:
    """Compute Cliff's delta: (#{x_i > y_j} - #{x_i < y_j}) / (n_x n_y), in [-1, 1].

    Parameters
    ----------
    x, y : array-like
        The samples.

    Returns
    -------
    Estimate
        NaN with a reason for an empty sample or NaN values.
    """
    xa, ya, why = _two(x, y, 1, "Cliff's delta")
    if why:
        return Estimate(math.nan, why)
    diff = np.subtract.outer(xa, ya)
    return Estimate(float((np.sum(diff > 0) - np.sum(diff < 0)) / diff.size))


TESTS = ("welch", "mann-whitney")


def compare(df: pd.DataFrame, baseline: str = "native", by: str | Sequence[str] | None = None, *,
            test: str = "welch", alpha: float = 0.05, family: str | Sequence[str] | None = None,
            environment: str = "environment", value: str = "value") -> pd.DataFrame:
    """Test every environment against a baseline, per group: Welch and Mann-Whitney with Holm.

    The tests come with Holm correction and effect sizes. They are supplementary to the
    verdicts (:func:`~overhead.stats.verdicts`), which decide on the ratio's interval.

    Parameters
    ----------
    df : pandas.DataFrame
        Tidy measurements.
    baseline : str
        Baseline environment.
    by : str, sequence of str or None
        Group keys including the environment column (None: the default keys).
    test : str
        Which test's Holm-adjusted p gives ``significant``: "welch" or "mann-whitney". Both
        tests are always reported.
    alpha : float
        Family-wise significance level.
    family : str, sequence of str or None
        Columns defining the families for Holm's correction; None makes every comparison in
        the returned table one family.
    environment, value : str
        Column names.

    Returns
    -------
    pandas.DataFrame
        Keys, baseline, n, n_baseline, mean, mean_baseline, pct, welch_t, welch_df, welch_p,
        welch_p_holm, mw_u, mw_p, mw_p_holm, cohens_d, hedges_g, hl_shift, cliffs_delta,
        significant (the chosen test's Holm-adjusted p < alpha; NA when not tested: False is
        not shown different, never "the same"), reason.

    Raises
    ------
    MissingColumnError, EmptyInputError, BaselineNotFoundError
        When a column is missing, the frame has no rows, or the baseline is absent.
    StatsError
        For an unknown test.
    """
    check_choice(test, TESTS, "test")
    check_level(alpha, "alpha")
    require_columns(df, [value, environment], "compare")
    require_rows(df, "compare")
    keys = group_keys(df, by, what="compare")
    fam = [] if family is None else ([family] if isinstance(family, str) else list(family))
    missing = [f for f in fam if f not in keys]
    if missing:
        require_columns(df, missing, "compare (family)")
    records = []
    for rec, x, y in baseline_samples(df, baseline, keys, environment, value, "compare"):
        if x is None:
            records.append(rec)
            continue
        w, m = welch(x, y), mann_whitney(x, y)
        d, g = cohens_d(x, y), hedges_g(x, y)
        hl, cd = hodges_lehmann(x, y), cliffs_delta(x, y)
        mx, my = (float(np.mean(x)), float(np.mean(y))) if not (np.isnan(x).any() or np.isnan(y).any()) \
            else (math.nan, math.nan)
        rec.update(mean=mx, mean_baseline=my,
                   pct=100.0 * (mx / my - 1.0) if my not in (0.0,) and math.isfinite(my) else math.nan,
                   welch_t=w.statistic, welch_df=w.df, welch_p=w.pvalue, mw_u=m.statistic,
                   mw_p=m.pvalue, cohens_d=d.value, hedges_g=g.value, hl_shift=hl.value,
                   cliffs_delta=cd.value)
        rec["reason"] = join_reasons(w.reason and f"Welch: {w.reason}",
                                     m.reason and f"Mann-Whitney: {m.reason}",
                                     d.reason and f"effect size: {d.reason}")
        records.append(rec)
    columns = [*keys, "baseline", "n", "n_baseline", "mean", "mean_baseline", "pct", "welch_t",
               "welch_df", "welch_p", "welch_p_holm", "mw_u", "mw_p", "mw_p_holm", "cohens_d",
               "hedges_g", "hl_shift", "cliffs_delta", "significant", "reason"]
    out = finish(records, keys, df, columns)
    for col in ("welch_p", "mw_p"):
        adj = np.full(len(out), np.nan)
        if fam:
            for _, part in out.groupby(fam, dropna=False, sort=False):
                adj[part.index.to_numpy()] = holm(part[col].to_numpy(dtype="float64"), alpha)
        else:
            adj = holm(out[col].to_numpy(dtype="float64"), alpha)
        out[col + "_holm"] = adj
    decide = (out["welch_p_holm"] if test == "welch" else out["mw_p_holm"]).astype("float64")
    out["significant"] = pd.array([pd.NA if not math.isfinite(p) else bool(p < alpha)
                                   for p in decide], dtype="boolean")
    out["baseline"] = out["baseline"].astype("string")
    out["n_baseline"] = out["n_baseline"].astype("Int64")
    return out[columns]


def kruskal(df: pd.DataFrame, by: str | Sequence[str] | None = None, *, alpha: float = 0.05,
            environment: str = "environment", value: str = "value") -> pd.DataFrame:
    """Run the Kruskal-Wallis test across all environments of each group, Holm-corrected.

    The Holm correction runs over the whole table.

    Parameters
    ----------
    df : pandas.DataFrame
        Tidy measurements.
    by : str, sequence of str or None
        Group keys; the environment column is removed from them (the samples are its values).
    alpha : float
        Family-wise significance level (the family is every row of the result).
    environment, value : str
        Column names.

    Returns
    -------
    pandas.DataFrame
        Keys (without environment), environments (comma-separated, sorted), k, n, h, p,
        p_holm, outcome ("not shown different" / "different", Holm-adjusted at alpha: not
        shown different is absence of evidence, not sameness), reason.

    Raises
    ------
    MissingColumnError, EmptyInputError
        When a column is missing or the frame has no rows.
    """
    check_level(alpha, "alpha")
    require_columns(df, [value, environment], "kruskal")
    require_rows(df, "kruskal")
    keys = [k for k in group_keys(df, by, what="kruskal") if k != environment]
    records = []
    for key, rows in iter_groups(df, keys):
        mix = mixed_units(rows)
        envs = []
        samples = []
        for env, part in rows.groupby(environment, dropna=False, sort=True):
            envs.append(str(env))
            samples.append(values_of(part, value))
        res = kruskal_wallis(*samples) if not mix else TestResult(math.nan, math.nan, "kruskal-wallis", None, mix)
        records.append({**key, "environments": ", ".join(envs), "k": len(envs),
                        "n": int(sum(s.size for s in samples)), "h": res.statistic,
                        "p": res.pvalue, "reason": res.reason})
    columns = [*keys, "environments", "k", "n", "h", "p", "p_holm", "outcome", "reason"]
    out = finish(records, keys, df, columns)
    out["p_holm"] = holm(out["p"].to_numpy(dtype="float64"), alpha)
    out["outcome"] = pd.array([
        "not tested" if not math.isfinite(p) else
        ("not shown different" if p >= alpha else "different")
        for p in out["p_holm"]], dtype="string")
    out["environments"] = out["environments"].astype("string")
    return out
