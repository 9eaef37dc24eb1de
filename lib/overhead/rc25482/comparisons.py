"""The verdicts of the RC25482 comparisons on the authors' data: margins and words.

Every comparison of an environment with its baseline in the RC25482 tables ends in a verdict of
:func:`overhead.stats.verdicts` (equivalent within the margin, faster/slower or higher/lower,
inconclusive, not tested), decided on one printed 95% interval of the ratio of means. The
margins come from ``data/reference/margins.yml`` (:func:`margin_source` adds the study's name,
so rules written for this study apply); :func:`short` says a verdict in the few words a table
cell or a figure label has room for, always with the interval it was decided on.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

import pandas as pd

from overhead import margins
from overhead.stats import Margin

__all__ = ["DIFFERENCES", "STUDY", "differs", "margin_of", "margin_source", "plain", "short", "tag"]

#: The study's name in margins.yml rules.
STUDY = "rc25482"
#: The verdicts that say the interval lies wholly on one side of 1 (no difference).
DIFFERENCES = ("faster", "slower", "higher", "lower")


def margin_source(**fields: object) -> Callable[[Mapping[str, object]], Margin]:
    """Return the ``margin=`` of :func:`overhead.stats.verdicts` for a table of this study.

    Parameters
    ----------
    **fields
        What the table's groups do not say themselves (e.g. ``benchmark="redis"``); the
        study's name is always added.

    Returns
    -------
    callable
        Group key values -> :class:`overhead.stats.Margin` (first matching margins.yml rule,
        else the default).
    """
    return margins.load().with_fields(study=STUDY, **fields)


def margin_of(**fields: object) -> Margin:
    """Return the margin of one comparison of this study described by ``fields``."""
    return margins.load().lookup(study=STUDY, **fields)


def differs(verdicts: pd.Series) -> pd.Series:
    """Return True where a verdict says the interval lies wholly on one side of no difference (NA: False)."""
    return verdicts.astype("string").isin(DIFFERENCES).fillna(False).astype(bool)


def _band(low_pct: float, high_pct: float) -> str:
    if math.isclose(-low_pct, high_pct):
        return f"\u00b1{high_pct:g}%"
    return f"{low_pct:+g}%/{high_pct:+g}%"


def _ci(low: float, high: float) -> str:
    d = 2 if max(abs(low), abs(high)) < 1 else 1
    return f"95% CI {low:+.{d}f}% to {high:+.{d}f}%"


def short(verdict: object, pct_low: float, pct_high: float, margin_low_pct: float,
          margin_high_pct: float, *, trials_needed: object = None, beyond: object = None,
          p_holm: float | None = None, reason: object = None) -> str:
    """Say a verdict in a few words, with the interval it was decided on.

    Parameters
    ----------
    verdict : str
        A verdict of :func:`overhead.stats.verdicts` (or "baseline", or NA).
    pct_low, pct_high : float
        The interval of the percent difference from the baseline.
    margin_low_pct, margin_high_pct : float
        The equivalence margin.
    trials_needed, beyond : optional
        As the verdict gives them (inconclusive: trials per side that would decide it; a
        difference: whether the whole interval lies beyond the margin).
    p_holm : float or None
        The Holm-adjusted p of the difference test across its family.
    reason : str or None
        Why a comparison is not tested.

    Returns
    -------
    str
        E.g. "equivalent within ±3% (95% CI -0.31% to +0.35%)", "slower, beyond ±3% (95% CI
        -56.1% to -53.9%)", "inconclusive at ±3% (95% CI -4.2% to +1.0%; about 25 trials per
        side would decide it)"; "" for NA and "baseline" for the baseline.
    """
    if verdict is None or (not isinstance(verdict, str) and pd.isna(verdict)):
        return ""
    word = str(verdict)
    if word == "baseline":
        return "baseline"
    if word == "not tested":
        return f"not tested ({reason})" if isinstance(reason, str) and reason else "not tested"
    band = _band(margin_low_pct, margin_high_pct)
    ci = _ci(pct_low, pct_high)
    if word == "equivalent":
        smaller = "" if pct_low <= 0 <= pct_high else "; a difference smaller than the margin"
        return f"equivalent within {band} ({ci}{smaller})"
    if word == "inconclusive":
        n = None if trials_needed is None or pd.isna(trials_needed) else int(trials_needed)
        more = (f"; about {n} trials per side would decide it" if n is not None
                else "; the estimate sits on the margin")
        return f"inconclusive at {band} ({ci}{more})"
    where = "beyond" if beyond is True or (beyond is not None and not pd.isna(beyond) and bool(beyond)) \
        else "not shown beyond"
    said = f"{word}, {where} {band} ({ci})"
    if p_holm is not None and math.isfinite(p_holm) and p_holm >= 0.05:
        said += f"; not significant after Holm (p={p_holm:.2g})"
    return said


def plain(verdict: object, margin_low_pct: float, margin_high_pct: float, *, beyond: object = None,
          trials_needed: object = None, baseline: str = "native", pct_low: float = math.nan,
          pct_high: float = math.nan) -> str:
    """Say a verdict in words without its interval (for prose that prints the interval itself).

    Parameters
    ----------
    verdict : str
        A verdict of :func:`overhead.stats.verdicts`.
    margin_low_pct, margin_high_pct : float
        The equivalence margin.
    beyond, trials_needed : optional
        As for :func:`short`.
    baseline : str
        What the comparison is against, in words.
    pct_low, pct_high : float
        The interval (percent); an equivalence whose interval excludes 0 is said to be a
        difference smaller than the margin.

    Returns
    -------
    str
        E.g. "equivalent to native within ±5%", "slower than native, beyond the ±5% margin",
        "inconclusive at ±5% (about 40 trials per side would decide it)".
    """
    word = "" if verdict is None or (not isinstance(verdict, str) and pd.isna(verdict)) else str(verdict)
    band = _band(margin_low_pct, margin_high_pct)
    if word == "equivalent":
        smaller = pct_low > 0 or pct_high < 0
        return f"equivalent to {baseline} within {band}" + (
            ", though its interval excludes 0: a real difference smaller than the margin" if smaller else "")
    if word == "inconclusive":
        n = None if trials_needed is None or pd.isna(trials_needed) else int(trials_needed)
        return f"inconclusive at {band}" + (f" (about {n} trials per side would decide it)" if n is not None else "")
    if word in DIFFERENCES:
        than = {"faster": "faster than", "slower": "slower than", "higher": "higher than", "lower": "lower than"}[word]
        out = bool(beyond) if beyond is not None and not pd.isna(beyond) else False
        return f"{than} {baseline}, " + (f"beyond the {band} margin" if out else f"not shown beyond the {band} margin")
    return word or "no verdict"


def tag(verdict: object, pct: float, margin_high_pct: float) -> str:
    """Label a bar or point in a figure: the difference and the verdict in a word or two.

    Parameters
    ----------
    verdict : str
        The verdict (or "baseline").
    pct : float
        The percent difference from the baseline.
    margin_high_pct : float
        The upper margin bound (the band is shown as +-this).

    Returns
    -------
    str
        Two lines: the difference ("+0.01%"), then the verdict ("equiv. ±3%", "slower").
    """
    word = "" if verdict is None or (not isinstance(verdict, str) and pd.isna(verdict)) else str(verdict)
    if word == "baseline":
        return "baseline"
    d = 1 if abs(pct) >= 0.1 else 2
    head = f"{pct:+.{d}f}%"
    if word == "equivalent":
        return f"{head}\nequiv. \u00b1{margin_high_pct:g}%"
    return f"{head}\n{word}" if word else head
