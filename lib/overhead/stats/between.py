"""Overhead compared between campaigns: the ratio of two ratios to their own baselines.

A campaign measures an environment's overhead as r = mean(environment) / mean(baseline), both
measured in that campaign (:mod:`overhead.stats.ratio`). Two campaigns (another kernel,
another Docker, another machine) are compared on the ratio of their ratios,

    R = r_B / r_A = (mean(x_B) / mean(y_B)) / (mean(x_A) / mean(y_A)),

which says by how much B's overhead differs from A's while each campaign's own native run
absorbs what changed for everything alike (a faster CPU, a newer compiler). Its interval is
the log-t interval of four independent samples: log R = log x̄_B - log ȳ_B - log x̄_A + log ȳ_A,
se^2 the sum of the four delta-method terms s^2 / (n mean^2), Welch-Satterthwaite degrees of
freedom over the four, mapped back with exp (finite and positive, as the log-t interval of one
ratio, which :mod:`overhead.stats.coverage` showed covers at 97% at three trials a side; the
four-sample one is checked the same way in the tests). The verdict is read off that interval
with the same rules and margins as every other verdict (:mod:`overhead.stats.verdicts`):
equivalent (the interval inside the margin: the overhead did not change by more than it),
faster/slower (B's environment relative to its native is faster/slower than A's is), or
inconclusive.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats as st

from overhead.stats._common import check_level, join_reasons, sample
from overhead.stats.verdicts import Margin, read_interval

__all__ = ["Between", "RatioOfRatios", "between", "ratio_of_ratios", "words"]


@dataclass(frozen=True)
class RatioOfRatios:
    """The ratio of two campaigns' ratios with its interval.

    Attributes
    ----------
    ratio, low, high : float
        R = r_B / r_A and its interval (NaN with ``reason`` when there is none).
    level : float
        The confidence level.
    ratio_b, ratio_a : float
        Each campaign's own ratio of means.
    n : tuple of int
        Trials of (x_B, y_B, x_A, y_A).
    se, df : float
        Standard error of log R and the Welch-Satterthwaite degrees of freedom.
    cv2 : tuple of float
        The four squared coefficients of variation (s / mean)^2, for the trials needed.
    reason : str or None
        Why there is no interval.
    """

    ratio: float
    low: float
    high: float
    level: float
    ratio_b: float
    ratio_a: float
    n: tuple[int, int, int, int]
    se: float = math.nan
    df: float = math.nan
    cv2: tuple[float, ...] = ()
    reason: str | None = None
    method: str = "log-t (4 samples)"

    def t_stat(self, r0: float) -> float:
        """Return the statistic (log R - log r0) / se of the test of R = r0."""
        if not (self.se > 0 and r0 > 0 and math.isfinite(self.ratio) and self.ratio > 0):
            return math.nan
        return (math.log(self.ratio) - math.log(r0)) / self.se


def ratio_of_ratios(xb: object, yb: object, xa: object, ya: object,
                    level: float = 0.95) -> RatioOfRatios:
    """Compute R = (mean xb / mean yb) / (mean xa / mean ya) with its log-t interval.

    Parameters
    ----------
    xb, yb : array-like
        Campaign B's environment and baseline trials.
    xa, ya : array-like
        Campaign A's (the reference) environment and baseline trials.
    level : float
        Confidence level in (0, 1).

    Returns
    -------
    RatioOfRatios
        NaN interval with a reason when a sample has fewer than 2 trials, a value that is not
        finite and positive, or when all four samples have no variance.
    """
    level = check_level(level)
    arrays, reasons = [], []
    for x, name in ((xb, "B's environment"), (yb, "B's baseline"), (xa, "A's environment"),
                    (ya, "A's baseline")):
        a, why = sample(x, name)
        arrays.append(a)
        reasons.append(why)
    ns = tuple(int(a.size) for a in arrays)
    means = [float(np.mean(a)) if a.size and np.isfinite(a).all() else math.nan for a in arrays]
    rb = means[0] / means[1] if means[1] else math.nan
    ra = means[2] / means[3] if means[3] else math.nan
    ratio = rb / ra if ra and math.isfinite(ra) else math.nan

    def nan(reason: str) -> RatioOfRatios:
        return RatioOfRatios(ratio, math.nan, math.nan, level, rb, ra, ns, reason=reason)

    why = join_reasons(*reasons)
    if why:
        return nan(why)
    if min(ns) < 2:
        return nan(f"n = {', '.join(map(str, ns))}: a ratio of ratios needs n >= 2 in all four samples")
    if not all((a > 0).all() for a in arrays):
        return nan("a log-ratio interval needs positive values")
    terms = [float(np.var(a, ddof=1)) / (a.size * m * m) for a, m in zip(arrays, means, strict=True)]
    var = sum(terms)
    if var == 0:
        return nan("zero variance in all four samples: interval degenerate")
    df = var ** 2 / sum(t * t / (a.size - 1) for t, a in zip(terms, arrays, strict=True) if t > 0)
    se = math.sqrt(var)
    half = float(st.t.ppf(0.5 + level / 2, df)) * se
    lr = math.log(ratio)
    cv2 = tuple(float(np.var(a, ddof=1)) / (m * m) for a, m in zip(arrays, means, strict=True))
    return RatioOfRatios(ratio, math.exp(lr - half), math.exp(lr + half), level, rb, ra, ns, se, df,
                         cv2)


@dataclass(frozen=True)
class Between:
    """A verdict on how an environment's overhead differs between two campaigns.

    Attributes
    ----------
    verdict : str
        One of ``overhead.stats.VERDICTS``: equivalent, faster/slower (higher/lower without a
        better direction), inconclusive, not tested.
    interval : RatioOfRatios
        What it was decided on.
    margin : Margin
        The equivalence margin.
    p_difference, p_equivalence : float
        The test of R = 1 (two-sided) and TOST's larger one-sided p at the margin bounds.
    beyond_margin : bool or None
        For a difference: whether the interval lies wholly beyond the margin.
    trials_needed : int or None
        For inconclusive: about how many trials in each of the four samples would decide it.
    """

    verdict: str
    interval: RatioOfRatios
    margin: Margin
    p_difference: float = math.nan
    p_equivalence: float = math.nan
    beyond_margin: bool | None = None
    trials_needed: int | None = None

    @property
    def reason(self) -> str | None:
        """Why it is not tested."""
        return self.interval.reason


def _trials_needed(iv: RatioOfRatios, margin: Margin, level: float, cap: int = 100_000) -> int | None:
    """Trials per sample (all four alike) at which the interval would decide, at the CVs seen."""
    if not (iv.se > 0 and math.isfinite(iv.ratio) and iv.ratio > 0):
        return None
    # se^2 = sum cv_i^2 / n_i: the same CVs with k trials in each sample give sum(cv_i^2) / k
    cv2_sum = sum(iv.cv2)
    lr = math.log(iv.ratio)
    goals = [abs(lr)]
    if margin.low < iv.ratio < margin.high:
        goals.append(min(lr - math.log(margin.low), math.log(margin.high) - lr))
    goal = max(goals)
    if not goal > 0 or not math.isfinite(cv2_sum):
        return None
    q = 0.5 + level / 2
    k = max(min(iv.n) + 1, int(math.ceil(st.norm.ppf(q) ** 2 * cv2_sum / goal ** 2)))
    while k <= cap:
        if float(st.t.ppf(q, 4 * k - 4)) * math.sqrt(cv2_sum / k) < goal:
            return k
        k += 1
    return None


def between(xb: object, yb: object, xa: object, ya: object, margin: Margin, level: float = 0.95, *,
            higher_is_better: bool | None = None) -> Between:
    """Decide whether an environment's overhead differs between campaign A and campaign B.

    Parameters
    ----------
    xb, yb, xa, ya : array-like
        B's environment and baseline trials, A's environment and baseline trials.
    margin : Margin
        The equivalence margin of the quantity (the band of R counted as "unchanged").
    level : float
        Level of the interval decided on.
    higher_is_better : bool or None
        The quantity's better direction (None: "higher"/"lower").

    Returns
    -------
    Between
        The verdict with its interval; ``not tested`` when there is no interval.
    """
    level = check_level(level)
    iv = ratio_of_ratios(xb, yb, xa, ya, level)
    if math.isnan(iv.low) or math.isnan(iv.high):
        return Between("not tested", iv, margin)
    t1, tlo, thi = iv.t_stat(1.0), iv.t_stat(margin.low), iv.t_stat(margin.high)
    p_diff = float(2 * st.t.sf(abs(t1), iv.df))
    p_eq = float(max(st.t.sf(tlo, iv.df), st.t.cdf(thi, iv.df)))
    word, beyond = read_interval(iv.low, iv.high, margin, higher_is_better)
    if word == "inconclusive":
        return Between(word, iv, margin, p_diff, p_eq, trials_needed=_trials_needed(iv, margin, level))
    return Between(word, iv, margin, p_diff, p_eq, beyond_margin=beyond)


def words(b: Between, a_name: str = "A", b_name: str = "B") -> str:
    """Say a :class:`Between` verdict in one sentence with its evidence."""
    iv = b.interval
    ns = "/".join(map(str, iv.n))
    if b.verdict == "not tested":
        return f"not tested: {iv.reason}"
    pct = f"{100 * (iv.ratio - 1):+.1f}% [{100 * (iv.low - 1):+.1f}, {100 * (iv.high - 1):+.1f}]"
    m = b.margin.words()
    if b.verdict == "equivalent":
        return (f"overhead unchanged within {m}: {b_name} vs {a_name} {pct} "
                f"({iv.level:.0%} interval inside the margin; n {ns})")
    if b.verdict == "inconclusive":
        more = (f"; about {b.trials_needed} trials per sample would decide it"
                if b.trials_needed else "")
        return (f"inconclusive: {b_name} vs {a_name} {pct} reaches past the margin {m} and "
                f"includes no change (n {ns}){more}")
    size = "beyond the margin" if b.beyond_margin else f"possibly within the margin {m}"
    return (f"{b.verdict} in {b_name} than in {a_name} relative to their own baselines: {pct}, "
            f"{size} (n {ns})")

