"""Confidence intervals for one sample.

Student-t, log-t (a positive quantity), logit-t (a share), bootstrap (BCa), distribution-free
median, and the rule that picks one by the quantity's range (:func:`auto_interval`). The rule
replaces DESIGN.md's "t where a normality check passes, bootstrap otherwise": at the n of a live
campaign (3 to 10 trials) Shapiro-Wilk has no power and the bootstrap undercovers, and a t
interval of a noisy positive quantity reaches below zero; the simulation behind the choice is
:mod:`overhead.stats.coverage` (docs/coverage.md).

Scalar functions return :class:`~overhead.stats._common.Interval`; when the sample cannot
support an interval (too small, NaN values, zero variance) its numbers are NaN and ``reason``
says why. Bad arguments (level outside (0, 1), unknown method) raise StatsError.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd
from scipy import stats as st

from overhead.stats._common import (
    Interval,
    StatsError,
    check_choice,
    check_level,
    finish,
    generator,
    group_keys,
    iter_groups,
    join_reasons,
    mixed_units,
    nan_interval,
    require_columns,
    require_rows,
    sample,
    values_of,
)

#: Named statistics for the bootstrap, each vectorized over ``axis``.
STATISTICS: dict[str, Callable[..., np.ndarray]] = {
    "mean": lambda x, axis=-1: np.mean(x, axis=axis),
    "median": lambda x, axis=-1: np.median(x, axis=axis),
    "harmonic": lambda x, axis=-1: 1.0 / np.mean(1.0 / x, axis=axis),
    "geometric": lambda x, axis=-1: np.exp(np.mean(np.log(x), axis=axis)),
}

#: Below this n the bootstrap result carries a caveat in ``reason``.
BOOTSTRAP_SMALL_N = 10


def t_interval(x: object, level: float = 0.95) -> Interval:
    """Compute the Student-t interval for the mean.

    The interval is mean +- t(1 - (1-level)/2, n-1) * s / sqrt(n).

    Parameters
    ----------
    x : array-like
        The sample.
    level : float
        Confidence level in (0, 1).

    Returns
    -------
    Interval
        method "t". NaN with a reason when n < 2, when the sample holds NaN, or when all values
        are equal (zero variance: the interval would be degenerate, a single point).
    """
    level = check_level(level)
    arr, why = sample(x)
    if why:
        return nan_interval(level, "t", arr.size, why)
    n = arr.size
    if n < 2:
        return nan_interval(level, "t", n, f"n={n}: a t interval needs n >= 2")
    mean = float(np.mean(arr))
    sd = float(np.std(arr, ddof=1))
    if sd == 0:
        return Interval(mean, math.nan, math.nan, level, "t", n,
                        f"zero variance (all {n} values equal): t interval degenerate")
    half = float(st.t.ppf(0.5 + level / 2, n - 1)) * sd / math.sqrt(n)
    return Interval(mean, mean - half, mean + half, level, "t", n)


def welch_difference(x: object, y: object, level: float = 0.95) -> Interval:
    """Compute an interval for the difference of two means, mean(x) - mean(y).

    Equal variances are not assumed: Student-t with Welch-Satterthwaite degrees of freedom.

    Parameters
    ----------
    x, y : array-like
        The two samples (independent).
    level : float
        Confidence level in (0, 1).

    Returns
    -------
    Interval
        estimate mean(x) - mean(y), method "welch", n = n_x + n_y. NaN with a reason when
        either sample has n < 2 or holds NaN, or when both have zero variance.
    """
    level = check_level(level)
    xa, wx = sample(x, "first sample")
    ya, wy = sample(y, "second sample")
    why = join_reasons(wx, wy)
    n = xa.size + ya.size
    if why:
        return nan_interval(level, "welch", n, why)
    if xa.size < 2 or ya.size < 2:
        return nan_interval(level, "welch", n, f"n={xa.size}, {ya.size}: a Welch interval needs n >= 2 in both")
    vx, vy = np.var(xa, ddof=1) / xa.size, np.var(ya, ddof=1) / ya.size
    d = float(np.mean(xa) - np.mean(ya))
    if vx + vy == 0:
        return Interval(d, math.nan, math.nan, level, "welch", n,
                        "zero variance in both samples: interval degenerate")
    se = math.sqrt(vx + vy)
    df = (vx + vy) ** 2 / (vx ** 2 / (xa.size - 1) + vy ** 2 / (ya.size - 1))
    half = float(st.t.ppf(0.5 + level / 2, df)) * se
    return Interval(d, d - half, d + half, level, "welch", n)


def log_t_interval(x: object, level: float = 0.95) -> Interval:
    """Compute an interval for the mean of a positive quantity on the log scale.

    The delta method on log(mean): exp(log m +- t(1 - (1-level)/2, n-1) * s / (m sqrt(n))),
    i.e. [m / f, m * f] with f = exp(t s / (m sqrt(n))). Both ends are positive, so a rate, a
    time or a size never gets a negative lower bound, and a log axis draws the whole bar. By
    simulation (docs/coverage.md) it covers as well as the t interval or better at n = 3 to
    30 on normal, lognormal, heavy-tailed and bimodal samples.

    Parameters
    ----------
    x : array-like
        The sample (every value > 0).
    level : float
        Confidence level in (0, 1).

    Returns
    -------
    Interval
        method "log-t", estimate the arithmetic mean. NaN with a reason when n < 2, a value is
        NaN or not positive, or all values are equal.
    """
    level = check_level(level)
    arr, why = sample(x)
    if why:
        return nan_interval(level, "log-t", arr.size, why)
    n = arr.size
    if n < 2:
        return nan_interval(level, "log-t", n, f"n={n}: a log-t interval needs n >= 2")
    if (arr <= 0).any():
        return nan_interval(level, "log-t", n, "a log-scale interval needs positive values")
    mean = float(np.mean(arr))
    sd = float(np.std(arr, ddof=1))
    if sd == 0:
        return Interval(mean, math.nan, math.nan, level, "log-t", n,
                        f"zero variance (all {n} values equal): interval degenerate")
    f = math.exp(float(st.t.ppf(0.5 + level / 2, n - 1)) * sd / (mean * math.sqrt(n)))
    return Interval(mean, mean / f, mean * f, level, "log-t", n)


def logit_t_interval(x: object, level: float = 0.95, *, upper: float = 100.0) -> Interval:
    """Compute an interval for the mean of a share (a quantity between 0 and ``upper``).

    The delta method on the logit of p = mean / upper: logit(p) +- t s / (upper p (1 - p)
    sqrt(n)), mapped back; both ends stay inside (0, upper), so a CPU busy percentage never
    gets an interval above 100% or below 0%.

    Parameters
    ----------
    x : array-like
        The sample, every value in [0, upper].
    level : float
        Confidence level in (0, 1).
    upper : float
        The top of the range (100 for a percentage).

    Returns
    -------
    Interval
        method "logit-t". NaN with a reason when n < 2, a value is NaN or outside [0, upper],
        the mean is 0 or ``upper`` exactly, or all values are equal.
    """
    level = check_level(level)
    arr, why = sample(x)
    if why:
        return nan_interval(level, "logit-t", arr.size, why)
    n = arr.size
    if n < 2:
        return nan_interval(level, "logit-t", n, f"n={n}: a logit-t interval needs n >= 2")
    if (arr < 0).any() or (arr > upper).any():
        return nan_interval(level, "logit-t", n, f"a share's values must lie in [0, {upper:g}]")
    mean = float(np.mean(arr))
    sd = float(np.std(arr, ddof=1))
    if sd == 0:
        return Interval(mean, math.nan, math.nan, level, "logit-t", n,
                        f"zero variance (all {n} values equal): interval degenerate")
    p = mean / upper
    if not 0 < p < 1:
        return Interval(mean, math.nan, math.nan, level, "logit-t", n,
                        f"mean at the end of the range ({mean:g}): no logit interval")
    half = float(st.t.ppf(0.5 + level / 2, n - 1)) * sd / (upper * p * (1 - p) * math.sqrt(n))
    centre = math.log(p / (1 - p))
    lo, hi = (upper / (1 + math.exp(-(centre + s * half))) for s in (-1, 1))
    return Interval(mean, lo, hi, level, "logit-t", n)


def bootstrap_interval(x: object, statistic: str | Callable[..., np.ndarray] = "mean",
                       level: float = 0.95, *, n_resamples: int = 9999, method: str = "BCa",
                       rng: np.random.Generator | int | None = 0) -> Interval:
    """Compute a bootstrap interval (scipy.stats.bootstrap) for a statistic of one sample.

    Parameters
    ----------
    x : array-like
        The sample.
    statistic : str or callable
        A name from :data:`STATISTICS` ("mean", "median", "harmonic", "geometric") or a
        function ``f(sample, axis)`` vectorized over ``axis``.
    level : float
        Confidence level in (0, 1).
    n_resamples : int
        Number of bootstrap resamples.
    method : str
        "BCa" (default), "percentile" or "basic".
    rng : numpy.random.Generator, int or None
        Seed or Generator; the default seed 0 makes the result reproducible. A Generator is
        used as is (its state advances); None takes fresh entropy (not reproducible).

    Returns
    -------
    Interval
        method "bootstrap-<method>". NaN with a reason for n < 3, NaN values, zero variance, a
        non-positive value for "harmonic"/"geometric", or when scipy reports a degenerate
        bootstrap distribution. For n < 10 the interval carries a caveat in ``reason`` (bootstrap
        intervals undercover in small samples). The values are sorted before resampling, so
        the interval does not depend on the order of the sample.
    """
    level = check_level(level)
    check_choice(method, ("BCa", "percentile", "basic"), "method")
    label = f"bootstrap-{method}"
    if isinstance(statistic, str):
        check_choice(statistic, list(STATISTICS), "statistic")
        name, func = statistic, STATISTICS[statistic]
    else:
        name, func = getattr(statistic, "__name__", "statistic"), statistic
    arr, why = sample(x)
    if why:
        return nan_interval(level, label, arr.size, why)
    n = arr.size
    if n < 3:
        return nan_interval(level, label, n, f"n={n}: a bootstrap interval needs n >= 3")
    if name in ("harmonic", "geometric") and (arr <= 0).any():
        return nan_interval(level, label, n, f"{name} mean needs positive values")
    # resample the sorted values: the same trials in another order (randomized rounds make the
    # order arbitrary) give the same interval
    arr = np.sort(arr)
    estimate = float(func(arr, axis=-1))
    if np.ptp(arr) == 0:
        return Interval(estimate, math.nan, math.nan, level, label, n,
                        f"zero variance (all {n} values equal): bootstrap interval degenerate")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = st.bootstrap((arr,), func, n_resamples=int(n_resamples), vectorized=True,
                           axis=-1, confidence_level=level, method=method, rng=generator(rng))
    low, high = float(res.confidence_interval.low), float(res.confidence_interval.high)
    if not (math.isfinite(low) and math.isfinite(high)):
        msgs = "; ".join(str(w.message).split("\n")[0] for w in caught) or "no finite endpoints"
        return Interval(estimate, math.nan, math.nan, level, label, n,
                        f"bootstrap distribution degenerate ({msgs})")
    caveat = (f"n={n}: bootstrap intervals tend to undercover for small n"
              if n < BOOTSTRAP_SMALL_N else None)
    return Interval(estimate, low, high, level, label, n, caveat)


def median_interval(x: object, level: float = 0.95) -> Interval:
    """Compute a distribution-free interval for the median from order statistics.

    The interval rests on the binomial distribution with p = 1/2: it is [x_(j), x_(n+1-j)]
    with the largest j such that
    P(Binomial(n, 1/2) <= j - 1) <= (1 - level) / 2, so its exact coverage for continuous data
    is 1 - 2 P(Binomial(n, 1/2) <= j - 1) >= level, reported as ``achieved_level``.

    Parameters
    ----------
    x : array-like
        The sample.
    level : float
        Confidence level in (0, 1).

    Returns
    -------
    Interval
        method "order-statistics". NaN with a reason for NaN values or when n is too small to
        reach ``level`` at all (n <= 5 for 95%: even [min, max] covers only 1 - 2^(1-n)).
    """
    level = check_level(level)
    arr, why = sample(x)
    if why:
        return nan_interval(level, "order-statistics", arr.size, why)
    n = arr.size
    srt = np.sort(arr)
    estimate = float(np.median(srt))
    tail = (1.0 - level) / 2.0
    # j - 1 = number of order statistics below the interval; largest with binom.cdf(j-1) <= tail
    ks = np.arange(0, (n + 1) // 2)
    ok = ks[st.binom.cdf(ks, n, 0.5) <= tail]
    if ok.size == 0:
        best = 1.0 - 2.0 * 0.5 ** n
        return Interval(estimate, math.nan, math.nan, level, "order-statistics", n,
                        f"n={n} too small for a {100 * level:g}% distribution-free median "
                        f"interval (at most {100 * best:.2f}% with [min, max])")
    j = int(ok.max()) + 1
    achieved = float(1.0 - 2.0 * st.binom.cdf(j - 1, n, 0.5))
    return Interval(estimate, float(srt[j - 1]), float(srt[n - j]), level, "order-statistics", n,
                    achieved_level=achieved)


def normality(x: object, alpha: float = 0.05) -> tuple[float, bool | None, str | None]:
    """Check a sample for normality with the Shapiro-Wilk test.

    Parameters
    ----------
    x : array-like
        The sample.
    alpha : float
        Significance level: normality is rejected when p < alpha.

    Returns
    -------
    p_value : float
        The Shapiro-Wilk p-value; NaN when the check cannot be made.
    passed : bool or None
        None (and p NaN) when the check cannot be made: n < 3, NaN values, or zero variance.
        A pass means "not rejected", not "shown normal": with small n the check has little
        power.
    reason : str or None
        Why the check cannot be made, else None.
    """
    check_level(alpha, "alpha")
    arr, why = sample(x)
    if why:
        return math.nan, None, why
    if arr.size < 3:
        return math.nan, None, f"n={arr.size}: normality cannot be checked (Shapiro-Wilk needs n >= 3)"
    if np.ptp(arr) == 0:
        return math.nan, None, f"zero variance (all {arr.size} values equal): normality cannot be checked"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # n > 5000: p-value approximate (scipy says so)
        p = float(st.shapiro(arr).pvalue)
    return p, p >= alpha, None


#: How :func:`auto_interval` treats the range of a quantity.
BOUNDS = ("auto", "positive", "percent", "none")


def auto_interval(x: object, level: float = 0.95, *, bounds: str = "auto", alpha: float = 0.05,
                  n_resamples: int = 9999, rng: np.random.Generator | int | None = 0) -> Interval:
    """Compute an interval for the mean with the method that covers at the n in hand.

    The rule was decided by simulation (:mod:`overhead.stats.coverage`, docs/coverage.md): a
    positive quantity gets the log-t interval (:func:`log_t_interval`), a share such as a CPU
    busy percentage the logit-t interval (:func:`logit_t_interval`), anything else Student-t.
    log-t covers 94.5% or more at nominal 95% from n = 2 to 30 on normal, lognormal and
    heavy-tailed samples (and more than t on skewed ones), where the bootstrap BCa of the mean
    covers about 70% at n = 3 and 80-84% at n = 5; and each stays inside the quantity's range. The Shapiro-Wilk p-value is still given (``normality_p``) as
    information: at small n the check has no power, so it no longer chooses the method.

    Parameters
    ----------
    x : array-like
        The sample.
    level : float
        Confidence level in (0, 1).
    bounds : str
        "auto": positive when every value is > 0, else unbounded; "positive"; "percent"
        (values in [0, 100]); "none" (Student-t).
    alpha : float
        Significance level of the (reported) normality check.
    n_resamples, rng
        Unused (kept for callers that pass bootstrap settings); the rule uses no bootstrap.

    Returns
    -------
    Interval
        method "log-t", "logit-t" or "t", with ``normality_p`` (NaN below n = 3). NaN with a
        reason when the sample cannot support an interval (n < 2, NaN values, zero variance).
    """
    level = check_level(level)
    check_choice(bounds, BOUNDS, "bounds")
    arr, why = sample(x)
    p, _, _ = normality(arr, alpha) if not why else (math.nan, None, why)
    if bounds == "auto":
        bounds = "positive" if not why and arr.size and (arr > 0).all() else "none"
    if bounds == "positive":
        iv = log_t_interval(arr, level)
    elif bounds == "percent":
        iv = logit_t_interval(arr, level)
    else:
        iv = t_interval(arr, level)
    return Interval(iv.estimate, iv.low, iv.high, level, iv.method, iv.n, iv.reason,
                    normality_p=p)


INTERVAL_METHODS = ("auto", "t", "bootstrap", "median")


def intervals(df: pd.DataFrame, by: str | Sequence[str] | None = None, *, level: float = 0.95,
              method: str = "auto", statistic: str = "mean", alpha: float = 0.05,
              n_resamples: int = 9999, rng: int | None = 0, value: str = "value",
              bounds: str = "auto") -> pd.DataFrame:
    """Compute confidence intervals per group of a tidy frame.

    Parameters
    ----------
    df : pandas.DataFrame
        Tidy measurements with a ``value`` column.
    by : str, sequence of str or None
        Group keys (None: the default keys, see :func:`overhead.stats.group_keys`).
    level : float
        Confidence level.
    method : str
        "auto" (:func:`auto_interval`), "t", "bootstrap" (of ``statistic``) or "median"
        (:func:`median_interval`).
    statistic : str
        Statistic for method="bootstrap" (see :data:`STATISTICS`).
    alpha : float
        Significance level of the normality check (method="auto").
    n_resamples : int
        Bootstrap resamples.
    rng : int or None
        Seed; each group gets a fresh Generator from it, so a group's interval does not depend
        on which other groups are in the frame.
    value : str
        The value column.
    bounds : str
        The quantity's range for method "auto" (see :func:`auto_interval`); "auto" takes a
        group whose unit is "%" as a share (0 to 100) and a group of positive values as
        positive.

    Returns
    -------
    pandas.DataFrame
        Keys, n, estimate, low, high, half_width, rel_half_width_pct, level, method,
        achieved_level, normality_p, reason. Data problems give NaN and a reason.

    Raises
    ------
    MissingColumnError, EmptyInputError, StatsError
        On structural problems: a missing column, no rows, a bad argument.
    """
    check_choice(method, INTERVAL_METHODS, "method")
    check_choice(bounds, BOUNDS, "bounds")
    level = check_level(level)
    require_columns(df, [value], "intervals")
    require_rows(df, "intervals")
    keys = group_keys(df, by, what="intervals")
    if isinstance(rng, np.random.Generator):
        raise StatsError("intervals takes an int seed (one fresh Generator per group), not a Generator")
    records = []
    for key, rows in iter_groups(df, keys):
        x = values_of(rows, value)
        mix = mixed_units(rows)
        if mix:
            iv = nan_interval(level, method, x.size, mix)
        elif method == "auto":
            kind = bounds
            if kind == "auto" and "unit" in rows and (rows["unit"] == "%").all():
                kind = "percent"
            iv = auto_interval(x, level, bounds=kind, alpha=alpha)
        elif method == "t":
            iv = t_interval(x, level)
        elif method == "bootstrap":
            iv = bootstrap_interval(x, statistic, level, n_resamples=n_resamples, rng=rng)
        else:
            iv = median_interval(x, level)
        records.append({**key, **iv.as_dict()})
    columns = [*keys, "n", "estimate", "low", "high", "half_width", "rel_half_width_pct", "level",
               "method", "achieved_level", "normality_p", "reason"]
    out = finish(records, keys, df, columns)
    out["method"] = out["method"].astype("string")
    for c in ("achieved_level", "normality_p"):
        out[c] = pd.to_numeric(out[c], errors="coerce").astype("float64")
    return out
