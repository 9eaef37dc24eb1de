"""Verdicts: what a comparison with the baseline lets a reader conclude, and no more.

One environment is compared with its baseline on one quantity through the ratio of their means,
r = mean(environment) / mean(baseline), and its 95% interval (:func:`~overhead.stats.ratio_interval`:
Fieller's, chosen by simulation, docs/coverage.md). An equivalence *margin* says how close to 1
counts as "the same" for that quantity (``data/reference/margins.yml``, each with its reason).
The verdict is read off that one interval, so a reader can check it against the printed numbers:

- ``equivalent``: the interval lies inside the margin. This is the two one-sided tests (TOST)
  at 2.5% per side: Fieller's statistic T(r0) tested at both margin bounds;
- ``faster`` / ``slower`` (``higher`` / ``lower`` for a quantity without a better direction):
  the interval excludes 1 (Fieller's test of r = 1, two-sided 5%), with whether it lies wholly
  beyond the margin (``beyond_margin``: a difference larger than the margin) or may still be
  within it;
- ``inconclusive``: the interval includes 1 and reaches past a margin bound: the data shows
  neither sameness nor a difference, and ``trials_needed`` says about how many trials per side
  would decide it at the variance seen;
- ``not tested``: no interval (one trial on a side, zero variance on both, missing values).

A non-significant difference is never called equality: only ``equivalent`` says "the same", and
only within its margin. Tests and interval use the same statistic and degrees of freedom, so no
verdict contradicts its interval. Across a family of comparisons the p-values of the difference
test are also given Holm-adjusted (``p_difference_holm``); the verdict itself is per comparison
at 95%, and says when a difference does not survive Holm's correction.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import special
from scipy import stats as st

from overhead.stats._common import (
    StatsError,
    check_level,
    finish,
    group_keys,
    join_reasons,
    mixed_units,
    require_columns,
    require_rows,
    sample,
    values_of,
)
from overhead.stats.ratio import (
    RatioInterval,
    baseline_pairs,
    log_ratio_test,
    paired_log_ratio_interval,
    paired_log_ratio_test,
    ratio_interval,
    ratio_test,
)

__all__ = ["VERDICTS", "VERDICT_COLUMNS", "Margin", "Verdict", "check_verdicts", "decide",
           "read_interval", "trials_to_decide", "verdict_words", "verdicts"]

#: Every verdict word (plus "baseline" for the baseline's own rows in a table).
VERDICTS = ("equivalent", "faster", "slower", "higher", "lower", "inconclusive", "not tested")

#: The columns :func:`verdicts` adds after the keys, in this order.
VERDICT_COLUMNS = ("baseline", "n", "n_baseline", "mean", "mean_baseline", "ratio", "ratio_low",
                   "ratio_high", "pct", "pct_low", "pct_high", "ci_level", "ci_method",
                   "margin_low_pct", "margin_high_pct", "margin_reason", "p_difference",
                   "p_difference_holm", "p_equivalence", "verdict", "beyond_margin",
                   "trials_needed", "verdict_detail", "reason")


@dataclass(frozen=True)
class Margin:
    """An equivalence margin: the band of ratios around 1 that counts as "the same".

    Attributes
    ----------
    low_pct, high_pct : float
        The band as percent differences from the baseline (-3.0 and +3.0 for +-3%).
    reason : str
        Why this band, in one line (a claim of the paper it stands for, or the default's
        rationale).
    source : str
        Where it was read (``margins.yml: cpu-memory``) or "given".
    """

    low_pct: float
    high_pct: float
    reason: str = ""
    source: str = "given"

    def __post_init__(self) -> None:
        """Refuse a band that does not contain 1 or is not finite."""
        if not (-100.0 < self.low_pct < 0.0 < self.high_pct) or not math.isfinite(self.high_pct):
            raise StatsError(f"a margin must satisfy -100 < low < 0 < high (finite), got "
                             f"{self.low_pct}, {self.high_pct}")

    @classmethod
    def symmetric(cls, pct: float, reason: str = "", source: str = "given") -> Margin:
        """Return the margin +-``pct`` percent."""
        return cls(-abs(pct), abs(pct), reason, source)

    @property
    def low(self) -> float:
        """The lower bound as a ratio (0.97 for -3%)."""
        return 1.0 + self.low_pct / 100.0

    @property
    def high(self) -> float:
        """The upper bound as a ratio (1.03 for +3%)."""
        return 1.0 + self.high_pct / 100.0

    def words(self) -> str:
        """Return the band in words: "+-3%" or "-3%/+5%"."""
        if self.low_pct == -self.high_pct:
            return f"\u00b1{self.high_pct:g}%"
        return f"{self.low_pct:+g}%/{self.high_pct:+g}%"


@dataclass(frozen=True)
class Verdict:
    """The outcome of one comparison with its evidence.

    Attributes
    ----------
    verdict : str
        One of :data:`VERDICTS`.
    interval : RatioInterval
        The ratio and the interval the verdict was decided on (with its level and method).
    margin : Margin
        The equivalence margin.
    p_difference : float
        Two-sided p of Fieller's test of ratio = 1 (same statistic and df as the interval).
    p_equivalence : float
        TOST p: the larger of the two one-sided p-values at the margin bounds; ``equivalent``
        is p_equivalence < (1 - level) / 2.
    beyond_margin : bool or None
        For a difference: whether the whole interval lies beyond the margin.
    trials_needed : int or None
        For ``inconclusive``: about how many trials per side would decide it at the variance
        seen (None when not inconclusive or when no number of trials would).
    reason : str or None
        Why the verdict is ``not tested``, or a caveat.
    """

    verdict: str
    interval: RatioInterval
    margin: Margin
    p_difference: float
    p_equivalence: float
    beyond_margin: bool | None = None
    trials_needed: int | None = None
    reason: str | None = None

    @property
    def n(self) -> int:
        """Trials of the environment."""
        return self.interval.n_x

    @property
    def n_baseline(self) -> int:
        """Trials of the baseline."""
        return self.interval.n_y

    def words(self, p_holm: float | None = None) -> str:
        """Say the verdict with its evidence in one sentence (see :func:`verdict_words`)."""
        return verdict_words(self.verdict, self.interval.ratio, self.interval.low,
                             self.interval.high, self.interval.level, self.margin,
                             self.n, self.n_baseline, beyond_margin=self.beyond_margin,
                             trials_needed=self.trials_needed, p_holm=p_holm, reason=self.reason)


def _pct(r: float) -> str:
    if not math.isfinite(r):
        return "+inf" if r > 0 else "n/a"
    return f"{100.0 * (r - 1.0):+.1f}%"


def verdict_words(verdict: str, ratio: float, low: float, high: float, level: float,
                  margin: Margin, n: int, n_baseline: int, *, beyond_margin: bool | None = None,
                  trials_needed: int | None = None, p_holm: float | None = None,
                  reason: str | None = None) -> str:
    """Say a verdict with its evidence: the interval, the margin, n, and what it cannot say.

    Parameters
    ----------
    verdict : str
        One of :data:`VERDICTS`.
    ratio, low, high, level : float
        The ratio, its interval and the interval's level.
    margin : Margin
        The equivalence margin.
    n, n_baseline : int
        Trials on each side.
    beyond_margin, trials_needed, reason
        As in :class:`Verdict`.
    p_holm : float or None
        The difference test's Holm-adjusted p across its family, when there is one.

    Returns
    -------
    str
        E.g. "slower: -12.0% [-20.1%, -4.0%] (95% CI, n=5/5), beyond the +-3% margin".
    """
    ci = f"{_pct(ratio)} [{_pct(low)}, {_pct(high)}] ({100 * level:g}% CI, n={n}/{n_baseline})"
    m = margin.words()
    if verdict == "not tested":
        return f"not tested: {reason or 'no interval'}"
    if verdict == "equivalent":
        said = f"equivalent within {m}: {ci} lies inside the margin"
        if not (low <= 1.0 <= high):
            said += " (a difference smaller than the margin)"
        return said
    if verdict == "inconclusive":
        said = (f"inconclusive: {ci} holds both no difference and differences beyond the {m} "
                "margin")
        if trials_needed is not None:
            said += f"; about {trials_needed} trials per side would decide it at this variance"
        else:
            said += "; the estimate sits on the margin, so no number of trials is sure to decide it"
        return said
    said = f"{verdict}: {ci}"
    if beyond_margin:
        said += f", beyond the {m} margin"
    else:
        said += f", not shown to exceed the {m} margin"
    if p_holm is not None and math.isfinite(p_holm) and p_holm >= 1.0 - level:
        said += f"; not significant after Holm's correction across its family (p={p_holm:.2g})"
    return said


def trials_to_decide(x: object, y: object, margin: Margin, level: float = 0.95, *,
                     cap: int = 100_000) -> int | None:
    """Estimate how many trials per side would decide an inconclusive comparison.

    With the means and SDs seen taken as the truth and k trials on each side, the log-t
    interval's half-width on the log scale is t(2k - 2) sqrt((cv_x^2 + cv_y^2) / k) (the delta
    method; Fieller's is about r times that on the ratio scale). The comparison is decided once
    the half-width is under the larger of: the log-distance from r to the nearer margin bound
    (equivalence, when r lies inside the margin) and |log r| (a difference). Treat it as a
    guide, like any pilot-based sample size.

    Parameters
    ----------
    x, y : array-like
        The environment's and the baseline's trials (n >= 2 each).
    margin : Margin
        The equivalence margin.
    level : float
        Confidence level.
    cap : int
        Search no further than this (None is returned beyond it).

    Returns
    -------
    int or None
        Trials per side, at least one more than the smaller side has (the trials in hand did
        not decide it, so that side at least needs more; a larger side's surplus only helps);
        None when the samples cannot tell (n < 2, zero variance, a mean not above 0) or when
        no k up to ``cap`` would do (the estimate on a margin bound).
    """
    xa, wx = sample(x)
    ya, wy = sample(y)
    if wx or wy or xa.size < 2 or ya.size < 2:
        return None
    mx, my = float(np.mean(xa)), float(np.mean(ya))
    if not (mx > 0 and my > 0):
        return None
    cv2 = float(np.var(xa, ddof=1)) / mx ** 2 + float(np.var(ya, ddof=1)) / my ** 2
    if cv2 == 0:
        return None
    lr = math.log(mx / my)
    goals = [abs(lr)]
    if margin.low < mx / my < margin.high:
        goals.append(min(lr - math.log(margin.low), math.log(margin.high) - lr))
    goal = max(goals)
    if goal <= 0:
        return None
    q = 0.5 + level / 2
    # the half-width falls like 1/sqrt(k): start from the normal-quantile estimate, and never
    # below one more trial than the smaller side has (the trials in hand did not decide it)
    k = max(min(xa.size, ya.size) + 1, int(math.ceil(st.norm.ppf(q) ** 2 * cv2 / goal ** 2)))
    while k <= cap:
        if float(st.t.ppf(q, 2 * k - 2)) * math.sqrt(cv2 / k) < goal:
            return k
        k += 1
    return None


def decide(x: object, y: object, margin: Margin, level: float = 0.95, *,
           higher_is_better: bool | None = None, method: str = "auto",
           estimate_trials: bool = True) -> Verdict:
    """Compare one environment's trials with the baseline's and return the verdict.

    Parameters
    ----------
    x, y : array-like
        The environment's and the baseline's trials.
    margin : Margin
        The equivalence margin.
    level : float
        Level of the interval the verdict is decided on.
    higher_is_better : bool or None
        True for a rate (higher is faster), False for a time or latency (lower is faster),
        None for a quantity without a better direction ("higher" / "lower").
    method : str
        The ratio interval's method (see :func:`~overhead.stats.ratio_interval`); "auto" is
        the one the simulation chose; "paired": x[i] and y[i] come from the same block (a
        round), the paired t interval of the mean log ratio
        (:func:`~overhead.stats.ratio.paired_log_ratio_interval`). With "bootstrap" no test statistic exists that matches
        the interval, so the p-values are NaN and the verdict rests on the interval alone.
    estimate_trials : bool
        Estimate ``trials_needed`` of an inconclusive verdict (a sequential look leaves it
        out: its own estimate comes from the planned looks).

    Returns
    -------
    Verdict
        ``not tested`` with a reason when the interval cannot be had.
    """
    level = check_level(level)
    iv = (paired_log_ratio_interval(x, y, level) if method == "paired"
          else ratio_interval(x, y, level, method=method))
    if math.isnan(iv.low) or math.isnan(iv.high) or math.isnan(iv.ratio):
        why = iv.reason or "no interval"
        return Verdict("not tested", iv, margin, math.nan, math.nan, reason=why)
    p_diff = p_eq = math.nan
    if iv.method in ("log-t", "fieller", "paired log-t"):
        if iv.method == "paired log-t":
            t1, df = paired_log_ratio_test(x, y, 1.0)
            tlo, _ = paired_log_ratio_test(x, y, margin.low)
            thi, _ = paired_log_ratio_test(x, y, margin.high)
        elif iv.method == "log-t":
            t1, df = log_ratio_test(x, y, 1.0)
            tlo, _ = log_ratio_test(x, y, margin.low)
            thi, _ = log_ratio_test(x, y, margin.high)
        else:
            t1, df = ratio_test(x, y, 1.0)
            tlo, _ = ratio_test(x, y, margin.low, df=df)
            thi, _ = ratio_test(x, y, margin.high, df=df)
        if math.isfinite(t1):
            p_diff = float(2 * special.stdtr(df, -abs(t1)))
        if math.isfinite(tlo) and math.isfinite(thi):
            # H0: r <= low (rejected when T(low) is large) and H0: r >= high (T(high) small)
            p_eq = float(max(special.stdtr(df, -tlo), special.stdtr(df, thi)))
    word, beyond = read_interval(iv.low, iv.high, margin, higher_is_better)
    if word == "inconclusive":
        need = trials_to_decide(x, y, margin, level) if estimate_trials else None
        return Verdict(word, iv, margin, p_diff, p_eq, trials_needed=need, reason=iv.reason)
    return Verdict(word, iv, margin, p_diff, p_eq, beyond_margin=beyond, reason=iv.reason)


def read_interval(low: float, high: float, margin: Margin,
                  higher_is_better: bool | None) -> tuple[str, bool | None]:
    """Read a verdict off a ratio's interval: (word, beyond_margin).

    ``equivalent`` when the interval lies inside the margin; a difference word when it excludes
    1 (``faster``/``slower`` by the better direction, ``higher``/``lower`` without one), with
    whether it lies wholly beyond the margin; else ``inconclusive``. beyond_margin is None
    unless the word is a difference.
    """
    if margin.low <= low and high <= margin.high:
        return "equivalent", None
    if low > 1.0 or high < 1.0:
        up = low > 1.0
        if higher_is_better is None:
            word = "higher" if up else "lower"
        else:
            word = "faster" if up == bool(higher_is_better) else "slower"
        return word, bool(low > margin.high if up else high < margin.low)
    return "inconclusive", None


MarginSource = Margin | Callable[[Mapping[str, object]], Margin]


def _direction(rows: pd.DataFrame, given: bool | None | str) -> bool | None:
    if given != "auto":
        return given  # type: ignore[return-value]
    if "higher_is_better" not in rows.columns:
        return None
    seen = rows["higher_is_better"].dropna().unique()
    return bool(seen[0]) if len(seen) == 1 else None


def verdicts(df: pd.DataFrame, baseline: str, margin: MarginSource, by: str | Sequence[str] | None = None,
             *, level: float = 0.95, family: str | Sequence[str] | None = None,
             higher_is_better: bool | None | str = "auto", environment: str = "environment",
             value: str = "value", sequential: object = None,
             rounds: str = "round") -> pd.DataFrame:
    """Decide every environment against the baseline, per group of a tidy frame.

    Parameters
    ----------
    df : pandas.DataFrame
        One row per trial: ``value``, ``environment`` and the group keys.
    baseline : str
        The baseline environment.
    margin : Margin or callable
        The equivalence margin, or a function from a group's key values (a dict) to its margin
        (e.g. ``overhead.margins.load().lookup``-based).
    by : str, sequence of str or None
        Group keys including the environment column (None: the default keys).
    level : float
        Level of every interval.
    family : str, sequence of str or None
        Columns whose values make one family for Holm's correction of the difference tests;
        None: every comparison of the frame is one family.
    higher_is_better : bool, None or "auto"
        The quantity's better direction; "auto" reads the ``higher_is_better`` column when
        the group has one value of it.
    environment, value : str
        Column names.
    sequential : Design, callable or None
        The trials came from a campaign whose stopping rule decided sequentially: a
        :class:`~overhead.stats.sequential.Design` (or a function from a group's key values to
        its design, None for a group decided at one look) by which each comparison is replayed
        look by look over its rounds (:func:`~overhead.stats.sequential.replay`): the verdict,
        n and interval are those of the look it stopped at, at that look's level (``ci_level``),
        and ``verdict_detail`` says which look. None: one look at all the trials, at ``level``.
    rounds : str
        The column holding each trial's round (with ``sequential``).

    Returns
    -------
    pandas.DataFrame
        The keys, then :data:`VERDICT_COLUMNS`: baseline, n, n_baseline, mean, mean_baseline,
        ratio, ratio_low, ratio_high (the interval decided on), pct, pct_low, pct_high,
        ci_level, ci_method, margin_low_pct, margin_high_pct, margin_reason, p_difference,
        p_difference_holm, p_equivalence, verdict, beyond_margin, trials_needed,
        verdict_detail (the verdict in words with its evidence), reason.

    Raises
    ------
    MissingColumnError, EmptyInputError, BaselineNotFoundError
        When a column is missing, the frame has no rows, or the baseline is absent.
    """
    level = check_level(level)
    require_columns(df, [value, environment], "verdicts")
    require_rows(df, "verdicts")
    keys = group_keys(df, by, what="verdicts")
    fam = [] if family is None else ([family] if isinstance(family, str) else list(family))
    require_columns(df, fam, "verdicts (family)")
    records, found = [], []
    for key, rows, base in baseline_pairs(df, baseline, keys, environment, "verdicts"):
        x = values_of(rows, value)
        rec = {**key, "baseline": baseline, "n": x.size}
        m = margin(key) if callable(margin) else margin
        rec.update(margin_low_pct=m.low_pct, margin_high_pct=m.high_pct, margin_reason=m.reason,
                   ci_level=level)
        why = f"no {baseline!r} rows with the same keys" if base is None else None
        if base is not None:
            rec["n_baseline"] = len(base)
            why = mixed_units(pd.concat([rows, base])) if "unit" in rows else None
        if why:
            rec.update(verdict="not tested", verdict_detail=f"not tested: {why}", reason=why)
            records.append(rec)
            found.append(None)
            continue
        y = values_of(base, value)
        design = sequential(key) if callable(sequential) else sequential
        seq = None
        if design is not None:
            from overhead.stats.sequential import replay

            require_columns(df, [rounds], "verdicts (sequential)")
            seq = replay(zip(rows[rounds].astype(int), x, strict=True),
                         zip(base[rounds].astype(int), y, strict=True), m, design,
                         higher_is_better=_direction(rows, higher_is_better))
            v = seq.verdict
            rec.update(n=seq.look.n if seq.look else x.size, ci_level=v.interval.level)
            if seq.look:
                rec["n_baseline"] = seq.look.n_baseline
        else:
            v = decide(x, y, m, level, higher_is_better=_direction(rows, higher_is_better))
        iv = v.interval
        mx = float(np.mean(x)) if np.isfinite(x).all() else math.nan
        my = float(np.mean(y)) if np.isfinite(y).all() else math.nan
        ratio = iv.ratio if math.isfinite(iv.ratio) else (mx / my if my else math.nan)
        rec.update(mean=mx, mean_baseline=my, ratio=ratio, ratio_low=iv.low, ratio_high=iv.high,
                   pct=100.0 * (ratio - 1.0), pct_low=100.0 * (iv.low - 1.0),
                   pct_high=100.0 * (iv.high - 1.0), ci_method=iv.method,
                   p_difference=v.p_difference, p_equivalence=v.p_equivalence,
                   verdict=v.verdict, beyond_margin=v.beyond_margin,
                   trials_needed=v.trials_needed, reason=join_reasons(rec.get("reason"), v.reason))
        records.append(rec)
        found.append(seq if seq is not None else v)
    out = finish(records, keys, df, [*keys, *VERDICT_COLUMNS])
    adj = np.full(len(out), np.nan)
    p = out["p_difference"].to_numpy(dtype="float64")
    from overhead.stats.significance import holm

    if fam:
        for _, part in out.groupby(fam, dropna=False, sort=False):
            idx = part.index.to_numpy()
            adj[idx] = holm(p[idx])
    else:
        adj = holm(p)
    out["p_difference_holm"] = adj
    out["verdict_detail"] = [
        (v.words() if not isinstance(v, Verdict) else v.words(None if math.isnan(h) else float(h)))
        if v is not None else d
        for v, h, d in zip(found, adj, out["verdict_detail"], strict=True)]
    for c in ("baseline", "ci_method", "margin_reason", "verdict", "verdict_detail"):
        out[c] = out[c].astype("string")
    out["beyond_margin"] = out["beyond_margin"].astype("boolean")
    out["trials_needed"] = pd.array(out["trials_needed"], dtype="Int64")
    out["n_baseline"] = out["n_baseline"].astype("Int64")
    return out


def check_verdicts(table: pd.DataFrame, *, verdict: str = "verdict", low: str = "ratio_low",
                   high: str = "ratio_high", margin_low: str = "margin_low_pct",
                   margin_high: str = "margin_high_pct", pct: bool = False) -> list[str]:
    """List the rows whose verdict contradicts the interval printed beside it.

    Rules: ``equivalent`` needs the interval inside the margin; a difference word needs it to
    exclude 1 (0% when ``pct``) on the side the word says for higher/lower; ``inconclusive``
    needs it to include 1 and reach past a margin bound; no verdict may say "no significant
    difference" or "same". Rows whose verdict is NA, "baseline" or "not tested" are skipped.

    Parameters
    ----------
    table : pandas.DataFrame
        A table the project writes (verdict and interval columns).
    verdict, low, high, margin_low, margin_high : str
        Column names; the margin columns are percent differences.
    pct : bool
        The interval columns are percent differences (``pct_low``, ``pct_high``), not ratios.

    Returns
    -------
    list of str
        One line per contradiction (row number, verdict, interval, margin); empty when none.
    """
    bad = []
    for i, row in table.reset_index(drop=True).iterrows():
        word = row[verdict]
        if not isinstance(word, str) or word in ("baseline", "not tested", ""):
            continue
        head = word.split(":")[0].strip()
        if "no significant difference" in word or head in ("same", "no difference"):
            bad.append(f"row {i}: {word!r} claims sameness from a test")
            continue
        lo, hi = float(row[low]), float(row[high])
        if pct:
            lo, hi = 1 + lo / 100, 1 + hi / 100
        mlo = 1 + float(row[margin_low]) / 100 if margin_low in row and pd.notna(row[margin_low]) else None
        mhi = 1 + float(row[margin_high]) / 100 if margin_high in row and pd.notna(row[margin_high]) else None
        where = f"row {i}: {head} with interval [{lo:.4g}, {hi:.4g}] and margin [{mlo}, {mhi}]"
        if head not in VERDICTS:
            bad.append(f"row {i}: {word!r} is not a verdict ({', '.join(VERDICTS)})")
        elif head == "equivalent" and not (mlo is not None and mhi is not None and mlo <= lo and hi <= mhi):
            bad.append(where)
        elif head in ("faster", "slower", "higher", "lower") and lo <= 1.0 <= hi:
            bad.append(where)
        elif head == "higher" and not lo > 1.0 or head == "lower" and not hi < 1.0:
            bad.append(where)
        elif head == "inconclusive" and (not lo <= 1.0 <= hi or
                                         (mlo is not None and mhi is not None and mlo <= lo and hi <= mhi)):
            bad.append(where)
    return bad
