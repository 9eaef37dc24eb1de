"""Where the variance lives, and the trial design that spends the least time on it.

Kalibera and Jones ("Rigorous Benchmarking in Reasonable Time", ISMM 2013): measure how much of
a quantity's spread comes from each level at which a benchmark is repeated, then choose how
often to repeat at each level so that the interval a decision needs is reached in the fewest
minutes. Here the levels are

- **rounds**: the machine's state when a round's trials of a point ran (its environments'
  trials run back to back): what the trials of a round share, and a paired comparison
  cancels;
- **trials** within a round: what one trial adds beyond its round (scheduling, caches, the
  host's neighbours in the seconds it ran);
- **within a trial**: what a longer trial averages away. A tool that repeats itself inside a
  trial (more requests, a longer run, a larger input) is one trial of a larger *size*; how the
  trials' variance falls with the size, var(s) = fixed + per_unit / s, says how much of it is
  within-trial noise (the per_unit part) and how much a longer trial cannot remove (fixed).

:func:`components` estimates the first two from a pilot (two or more environments, several
rounds; a linear mixed model with a random round effect, statsmodels' MixedLM, and the balanced
ANOVA estimates where it does not converge); :func:`size_model` fits the size law from pilots
at two sizes or more with their cost per trial; :func:`choose_design` returns the size and
pairing that reach a decidable interval at a margin in the fewest seconds, for the sequential
looks a campaign takes (:mod:`overhead.stats.sequential`), or says that none can.

Everything is on the log scale (relative spread): a standard deviation of 0.03 is about 3% of
the mean.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from overhead.stats._common import StatsError, require_columns
from overhead.stats.sequential import Design, expected_half_width, looks_needed
from overhead.stats.verdicts import Margin

__all__ = ["Components", "SizeModel", "TrialDesign", "choose_design", "components", "size_model"]


@dataclass(frozen=True)
class Components:
    """A quantity's variance components at one trial size (log scale).

    Attributes
    ----------
    rounds, trials : int
        Rounds of the pilot, and trials in all.
    shared : float
        Variance of the round effect the environments' trials of a round share.
    residual : float
        Variance a trial adds beyond its round's shared effect.
    paired_sd : float
        SD of one round's log ratio of an environment to the baseline (pooled over the
        environments compared): the spread a paired design sees.
    unpaired_sd : float
        SD of one trial's log value within its environment (pooled): the spread an unpaired
        design sees.
    seconds : float
        Mean cost of one trial (its runner's wall time and the harness around it).
    method : str
        "MixedLM (REML)" or "ANOVA" (balanced moments, where the mixed model did not fit).
    """

    rounds: int
    trials: int
    shared: float
    residual: float
    paired_sd: float
    unpaired_sd: float
    seconds: float
    method: str

    @property
    def shared_share(self) -> float:
        """Share of a trial's variance that its round's state explains."""
        total = self.shared + self.residual
        return self.shared / total if total > 0 else math.nan

    def to_json(self) -> dict:
        """Return the components as a JSON-ready dict."""
        return {k: (None if isinstance(v, float) and not math.isfinite(v) else v)
                for k, v in asdict(self).items()}


def _anova(table: np.ndarray) -> tuple[float, float]:
    """Balanced two-way (environment x round) moments: (shared round variance, residual)."""
    r, e = table.shape
    grand = table.mean()
    rows = table.mean(axis=1, keepdims=True)
    cols = table.mean(axis=0, keepdims=True)
    resid = table - rows - cols + grand
    ms_err = float((resid ** 2).sum() / ((r - 1) * (e - 1)))
    ms_round = float(e * ((rows - grand) ** 2).sum() / (r - 1))
    return max((ms_round - ms_err) / e, 0.0), ms_err


def components(frame: pd.DataFrame, baseline: str, *, value: str = "value",
               environment: str = "environment", round_: str = "round",
               seconds: str | None = "seconds") -> Components:
    """Estimate a quantity's variance components from a pilot's trials.

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per trial of one quantity at one point and size: its value (> 0), environment
        and round (one trial per environment and round), and its cost in seconds.
    baseline : str
        The environment the others are compared with (its rounds pair theirs).
    value, environment, round_, seconds : str
        Column names (``seconds`` None: no cost known, NaN).

    Returns
    -------
    Components

    Raises
    ------
    StatsError
        With fewer than 3 complete rounds of two environments, or a value not above 0.
    """
    require_columns(frame, [value, environment, round_], "components")
    wide = frame.pivot_table(index=round_, columns=environment, values=value, aggfunc="first")
    if baseline not in wide.columns or wide.shape[1] < 2:
        raise StatsError(f"components: needs the baseline {baseline!r} and another environment "
                         f"(have {list(wide.columns)})")
    wide = wide.dropna()
    if len(wide) < 3:
        raise StatsError(f"components: {len(wide)} complete rounds; at least 3 are needed")
    if not (wide.to_numpy() > 0).all():
        raise StatsError("components: every value must be above 0 (log scale)")
    logs = np.log(wide.to_numpy(dtype=float))
    shared, residual = _anova(logs)
    method = "ANOVA"
    long = pd.DataFrame({"y": logs.ravel(), "env": np.tile(np.asarray(wide.columns, dtype=str), len(wide)),
                         "round": np.repeat(np.arange(len(wide)), wide.shape[1])})
    try:
        import statsmodels.formula.api as smf

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit = smf.mixedlm("y ~ C(env)", long, groups=long["round"]).fit(reml=True)
        if fit.converged and np.isfinite(fit.scale):
            shared, residual, method = float(fit.cov_re.iloc[0, 0]), float(fit.scale), "MixedLM (REML)"
    except (ValueError, np.linalg.LinAlgError):  # singular fits on few rounds: ANOVA stands
        pass
    base = logs[:, list(wide.columns).index(baseline)]
    others = [i for i, c in enumerate(wide.columns) if c != baseline]
    d = np.concatenate([logs[:, i] - base for i in others])
    # pooled over the environments compared: each difference's own mean removed
    dd = np.concatenate([(logs[:, i] - base) - (logs[:, i] - base).mean() for i in others])
    paired = float(math.sqrt((dd ** 2).sum() / (d.size - len(others))))
    within = logs - logs.mean(axis=0, keepdims=True)
    unpaired = float(math.sqrt((within ** 2).sum() / (logs.size - logs.shape[1])))
    cost = float(frame[seconds].mean()) if seconds and seconds in frame else math.nan
    return Components(len(wide), int(wide.size), shared, residual, paired, unpaired, cost, method)


@dataclass(frozen=True)
class SizeModel:
    """How a quantity's spread and a trial's cost grow with the trial's size.

    var(s) = fixed + per_unit / s (log scale; per_unit / s is the noise a longer trial
    averages away, fixed what it cannot), and seconds(s) = c0 + c1 s. ``pairing_gain`` is the
    share of the unpaired variance a paired design removes (the round's shared state),
    assumed not to depend on the size.
    """

    param: str
    sizes: tuple[float, ...]
    fixed: float
    per_unit: float
    c0: float
    c1: float
    pairing_gain: float

    def sd(self, size: float, pairing: str = "none") -> float:
        """Return the predicted SD per trial (unpaired: one side's; paired: a round's log ratio)."""
        var = max(self.fixed + self.per_unit / size, 0.0)
        if pairing == "rounds":
            return math.sqrt(2.0 * var * max(1.0 - self.pairing_gain, 0.0))
        return math.sqrt(var)

    def seconds(self, size: float) -> float:
        """Return the predicted seconds of one trial."""
        return max(self.c0 + self.c1 * size, 0.0)

    def to_json(self) -> dict:
        """Return the model as a JSON-ready dict."""
        return asdict(self)


def size_model(by_size: Mapping[float, Components], param: str) -> SizeModel:
    """Fit the size law from components measured at two sizes or more.

    Least squares of the unpaired variance on 1 / size and of the cost on the size, both
    constrained to be non-negative (a spread that grew with the size is taken as all fixed;
    the cost's intercept is the harness's and the tool's start-up).

    Parameters
    ----------
    by_size : mapping
        Size -> :class:`Components` at that size.
    param : str
        The size's parameter name (``size_mib``, ``n``, ``length``...).

    Returns
    -------
    SizeModel

    Raises
    ------
    StatsError
        With fewer than two sizes.
    """
    sizes = sorted(float(s) for s in by_size)
    if len(sizes) < 2:
        raise StatsError(f"size_model: {param} needs components at two sizes or more")
    comps = [by_size[s] if s in by_size else by_size[int(s)] for s in sizes]
    var = np.array([c.unpaired_sd ** 2 for c in comps])
    inv = 1.0 / np.array(sizes)
    slope, intercept = np.polyfit(inv, var, 1)
    if slope < 0:  # more noise at a larger size: nothing to average away
        slope, intercept = 0.0, float(var.mean())
    if intercept < 0:
        intercept, slope = 0.0, float((var * inv).sum() / (inv * inv).sum())
    cost = np.array([c.seconds for c in comps])
    c1, c0 = np.polyfit(np.array(sizes), cost, 1) if np.isfinite(cost).all() else (math.nan, math.nan)
    if c0 < 0:
        c0, c1 = 0.0, float((cost * np.array(sizes)).sum() / (np.array(sizes) ** 2).sum())
    gains = [1.0 - (c.paired_sd ** 2) / (2.0 * c.unpaired_sd ** 2) for c in comps
             if c.unpaired_sd > 0]
    gain = float(np.clip(np.mean(gains), -1.0, 0.95)) if gains else 0.0
    return SizeModel(param, tuple(sizes), float(intercept), float(slope), float(c0), float(c1), gain)


@dataclass(frozen=True)
class TrialDesign:
    """The trial size and pairing that decide a comparison soonest, and what they cost.

    Attributes
    ----------
    size : float
        The trial size chosen.
    pairing : str
        "none" or "rounds".
    sd : float
        The predicted SD per trial (as :func:`overhead.stats.sequential.expected_half_width` takes it).
    n : int or None
        The planned look expected to decide a comparison with no difference at the margin
        (None: no planned look would).
    seconds : float
        One trial's predicted cost.
    minutes : float
        Time to that look for every environment of the point (``cells`` trials a round).
    width_per_minute : float
        The half-width (percent) of the last look's interval for one minute of the point's
        trials, as the look's level and the size law predict.
    why : str
        The choice in words (what it beat, or why nothing decides).
    """

    size: float
    pairing: str
    sd: float
    n: int | None
    seconds: float
    minutes: float
    width_per_minute: float
    why: str

    def to_json(self) -> dict:
        """Return the design as a JSON-ready dict."""
        return asdict(self)


def choose_design(model: SizeModel, margin: Margin, looks: Design, *, cells: int = 2,
                  sizes: Sequence[float] | None = None, lo: float | None = None,
                  hi: float | None = None, budget_minutes: float | None = None) -> TrialDesign:
    """Choose the size and pairing that reach a decision in the fewest seconds.

    For each candidate size (``sizes``, else 25 points spaced by ratio between ``lo`` and
    ``hi``, by default the pilot's smallest and four times its largest) and pairing, the
    planned look expected to decide a comparison with no true difference
    (:func:`~overhead.stats.sequential.looks_needed`: sameness is the hardest verdict at a
    margin) and the time to it, n x cells x seconds(size). The fastest wins (ties, and
    candidates none of which decides, by the half-width one minute of trials gives: the
    cheapest precision, as Kalibera and Jones optimise it); with none that decides, said so.

    Parameters
    ----------
    model : SizeModel
        The pilot's size law.
    margin : Margin
        The equivalence margin of the quantity.
    looks : Design
        The campaign's planned looks (their pairing is chosen here).
    cells : int
        Trials a round of the point (its environments).
    sizes : sequence of float, optional
        Candidate sizes.
    lo, hi : float, optional
        The sane range of the size.
    budget_minutes : float, optional
        The minutes the campaign can give this point: a design that needs more does not
        count as deciding (the budget cannot buy it).

    Returns
    -------
    TrialDesign
    """
    if sizes is None:
        lo = model.sizes[0] if lo is None else lo
        hi = 4 * model.sizes[-1] if hi is None else hi
        sizes = np.geomspace(lo, hi, 25)
    best: TrialDesign | None = None
    tried = 0
    for size in sizes:
        for pairing in ("none", "rounds"):
            if pairing == "rounds" and looks.looks[0] < 3:
                continue  # two pairs leave one degree of freedom: no paired first look
            d = Design(looks.looks, looks.alpha, looks.spending, pairing)
            sd = model.sd(float(size), pairing)
            n = looks_needed(0.0, sd, margin, d)
            secs = model.seconds(float(size))
            tried += 1
            n_eff = n if n is not None else math.inf
            minutes = n_eff * cells * secs / 60.0
            if budget_minutes is not None and minutes > budget_minutes:
                n, minutes = None, math.inf
            last = len(d.looks) - 1
            hw = expected_half_width(sd, d.n_max, d.level(last), pairing=pairing)
            per_min = 100.0 * hw * math.sqrt(d.n_max * cells * secs / 60.0) if secs > 0 else math.nan
            cand = TrialDesign(float(size), pairing, sd, n, secs, minutes, per_min, "")
            # fewest minutes to a deciding look; among equals (and where none decides), the
            # narrowest interval a minute of trials gives
            if best is None or (cand.minutes, cand.width_per_minute) < (best.minutes,
                                                                          best.width_per_minute):
                best = cand
    assert best is not None
    if best.n is None:
        within = f" and {budget_minutes:.1f} min for the point" if budget_minutes is not None else ""
        why = (f"no size from {min(sizes):g} to {max(sizes):g} {model.param} and no pairing "
               f"decides {margin.words()} within {looks.n_max} trials a side{within}: the "
               f"cheapest precision is {model.param}={best.size:.4g}, {100 * best.sd:.1f}% per "
               f"trial (the fixed part of the spread, {100 * math.sqrt(model.fixed):.1f}%, no "
               "trial length removes)")
    else:
        why = (f"{model.param}={best.size:g}, {'paired by round' if best.pairing == 'rounds' else 'unpaired'}: "
               f"{100 * best.sd:.1f}% per trial, the look at {best.n} trials a side expected to "
               f"decide {margin.words()} in about {best.minutes:.1f} min for {cells} environments "
               f"({tried} designs compared)")
    return TrialDesign(best.size, best.pairing, best.sd, best.n, best.seconds, best.minutes,
                       best.width_per_minute, why)
