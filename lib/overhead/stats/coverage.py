"""How often each interval method covers the truth: the simulation that chose the methods.

A 95% interval should contain the true value in 95% of samples. At the n of a live campaign
(3 to 10 trials per environment) methods that are fine at n = 30 are not: the bootstrap
resamples three values and undercovers; a t interval of a noisy positive quantity reaches below
zero. :func:`ratio_coverage` and :func:`mean_coverage` draw seeded samples from known
distributions, call the project's own interval functions on each, and count the hits; the
table is kept in docs/coverage.md (``scripts/coverage.py``) and asserted by
tests/stats/test_stats_coverage.py. What each n uses (:func:`overhead.stats.ratio_interval`,
:func:`overhead.stats.auto_interval`) is what this table shows to cover at least 93%.

The distributions (every one positive, scaled to a given mean):

- ``normal``: CV 20%;
- ``lognormal``: sigma 0.25 (CV 25%, skewness 0.8);
- ``skewed``: lognormal with sigma 0.6 (CV 66%, skewness 2.3);
- ``heavy``: mean + 10% of the mean times a Student-t with 3 degrees of freedom (absolute
  value, so positive);
- ``bimodal``: 70% near one mode and 30% near three times it (5% CV each), the shape of the
  netperf RR latencies of a live campaign (17 us and 55 us modes).

For a ratio the environment's sample comes from the same family with its mean times the true
ratio, so the true ratio of means is known exactly.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from overhead.stats.ci import bootstrap_interval, log_t_interval, t_interval
from overhead.stats.ratio import fieller, log_ratio_interval, ratio_bootstrap, ratio_interval

__all__ = ["CONDITIONS", "DISTRIBUTIONS", "MEAN_METHODS", "RATIO_METHODS", "mean_coverage",
           "naive_design", "ratio_coverage", "sequential_errors"]

_HEAVY_SCALE = 0.1
_BIMODAL = (0.7, 3.0, 0.05)  # share of the low mode, high / low, CV of each mode


def _normal(rng: np.random.Generator, n: int, mean: float) -> np.ndarray:
    return rng.normal(mean, 0.2 * mean, n)


def _lognormal(rng: np.random.Generator, n: int, mean: float, s: float = 0.25) -> np.ndarray:
    return rng.lognormal(math.log(mean) - s * s / 2, s, n)


def _skewed(rng: np.random.Generator, n: int, mean: float) -> np.ndarray:
    return _lognormal(rng, n, mean, 0.6)


def _heavy_mean() -> float:
    # E|1 + c T3| for the scale c, by a fixed large sample (|.| changes the mean only in the
    # far left tail: P(T3 < -10) = 0.001)
    rng = np.random.default_rng(12345)
    return float(np.mean(np.abs(1.0 + _HEAVY_SCALE * rng.standard_t(3, 4_000_000))))


_HEAVY_MEAN = None


def _heavy(rng: np.random.Generator, n: int, mean: float) -> np.ndarray:
    global _HEAVY_MEAN
    if _HEAVY_MEAN is None:
        _HEAVY_MEAN = _heavy_mean()
    return mean / _HEAVY_MEAN * np.abs(1.0 + _HEAVY_SCALE * rng.standard_t(3, n))


def _bimodal(rng: np.random.Generator, n: int, mean: float) -> np.ndarray:
    share, ratio, cv = _BIMODAL
    low = mean / (share + (1 - share) * ratio)
    high = rng.random(n) >= share
    centre = np.where(high, ratio * low, low)
    return rng.normal(centre, cv * centre)


#: Name -> sampler(rng, n, mean) whose expected value is ``mean``.
DISTRIBUTIONS: dict[str, Callable[[np.random.Generator, int, float], np.ndarray]] = {
    "normal": _normal, "lognormal": _lognormal, "skewed": _skewed, "heavy": _heavy,
    "bimodal": _bimodal}

#: Ratio interval methods compared (name -> f(x, y) returning an object with low and high).
RATIO_METHODS: dict[str, Callable] = {
    "auto": lambda x, y, seed: ratio_interval(x, y),
    "log-t": lambda x, y, seed: log_ratio_interval(x, y),
    "fieller": lambda x, y, seed: fieller(x, y),
    "bootstrap-BCa": lambda x, y, seed: ratio_bootstrap(x, y, n_resamples=1999, rng=seed),
    "bootstrap-percentile": lambda x, y, seed: ratio_bootstrap(x, y, n_resamples=1999,
                                                               method="percentile", rng=seed),
}

#: Interval methods for one mean compared.
MEAN_METHODS: dict[str, Callable] = {
    "t": lambda x, seed: t_interval(x),
    "log-t": lambda x, seed: log_t_interval(x),
    "bootstrap-BCa": lambda x, seed: bootstrap_interval(x, n_resamples=1999, rng=seed),
}


def _hit(iv: object, truth: float) -> tuple[bool, bool]:
    """Return (covered, interval existed)."""
    low, high = float(iv.low), float(iv.high)
    if math.isnan(low) or math.isnan(high):
        return False, False
    return low <= truth <= high, True


def _record(method: str, dist: str, n: int, hits: int, made: int, reps: int, **extra) -> dict:
    cov = hits / reps
    return {"method": method, "distribution": dist, "n": n, **extra, "reps": reps,
            "coverage": cov, "mc_se": math.sqrt(cov * (1 - cov) / reps),
            "no_interval": (reps - made) / reps}


def ratio_coverage(methods: Sequence[str] = tuple(RATIO_METHODS), ns: Sequence[int] = (3, 5, 10, 30),
                   distributions: Sequence[str] = tuple(DISTRIBUTIONS), *,
                   ratios: Sequence[float] = (1.0,), reps: int = 2000, seed: int = 0) -> pd.DataFrame:
    """Simulate the coverage of 95% intervals of a ratio of means (n trials on each side).

    Parameters
    ----------
    methods : sequence of str
        Keys of :data:`RATIO_METHODS`.
    ns : sequence of int
        Trials per side.
    distributions : sequence of str
        Keys of :data:`DISTRIBUTIONS`.
    ratios : sequence of float
        True ratios of means (environment / baseline).
    reps : int
        Samples per cell.
    seed : int
        Seed; every (distribution, n, ratio) cell draws the same samples for every method.

    Returns
    -------
    pandas.DataFrame
        method, distribution, n, ratio, reps, coverage (a missing interval counts as a miss),
        mc_se (its Monte Carlo standard error), no_interval (share of samples with none).
    """
    rows = []
    for d_i, dist in enumerate(distributions):
        draw = DISTRIBUTIONS[dist]
        for n in ns:
            for r_i, ratio in enumerate(ratios):
                rng = np.random.default_rng([seed, d_i, n, r_i])
                pairs = [(draw(rng, n, 100.0 * ratio), draw(rng, n, 100.0)) for _ in range(reps)]
                for method in methods:
                    f = RATIO_METHODS[method]
                    hits = made = 0
                    for i, (x, y) in enumerate(pairs):
                        h, m = _hit(f(x, y, i), ratio)
                        hits += h
                        made += m
                    rows.append(_record(method, dist, n, hits, made, reps, ratio=ratio))
    return pd.DataFrame(rows)


def mean_coverage(methods: Sequence[str] = tuple(MEAN_METHODS), ns: Sequence[int] = (3, 5, 10, 30),
                  distributions: Sequence[str] = tuple(DISTRIBUTIONS), *, reps: int = 2000,
                  seed: int = 0) -> pd.DataFrame:
    """Simulate the coverage of 95% intervals of one mean (n trials).

    Parameters
    ----------
    methods, ns, distributions, reps, seed
        As for :func:`ratio_coverage` (methods: keys of :data:`MEAN_METHODS`).

    Returns
    -------
    pandas.DataFrame
        method, distribution, n, reps, coverage, mc_se, no_interval, below_zero (share of
        intervals whose lower end is below 0, which a positive quantity cannot be).
    """
    rows = []
    for d_i, dist in enumerate(distributions):
        draw = DISTRIBUTIONS[dist]
        for n in ns:
            rng = np.random.default_rng([seed, 100 + d_i, n])
            samples = [draw(rng, n, 100.0) for _ in range(reps)]
            for method in methods:
                f = MEAN_METHODS[method]
                hits = made = below = 0
                for i, x in enumerate(samples):
                    iv = f(x, i)
                    h, m = _hit(iv, 100.0)
                    hits += h
                    made += m
                    below += bool(m and iv.low < 0)
                rows.append({**_record(method, dist, n, hits, made, reps), "below_zero": below / reps})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------------------
# the sequential procedure: error rates over every look (overhead.stats.sequential)

#: Round-level conditions of :func:`sequential_errors`: what the machine does between rounds,
#: shared by both environments' trials of a round (a paired design cancels it).
CONDITIONS = ("independent", "drift", "states")


def _trial_noise(rng: np.random.Generator, shape: tuple[int, ...], dist: str, cv: float
                 ) -> np.ndarray:
    """Multiplicative trial noise of mean 1 and coefficient of variation ``cv``."""
    if dist == "lognormal":
        s = math.sqrt(math.log(1.0 + cv * cv))
        return rng.lognormal(-s * s / 2.0, s, shape)
    if dist == "bimodal":
        # 70% near one mode, 30% near a higher one (each with a third of the CV), overall CV
        # ``cv``: the shape of a host whose trials sometimes share a core with another guest
        p, w = 0.3, cv / 3.0
        gap = math.sqrt(max(cv * cv - w * w, 1e-12) / (p * (1.0 - p)))
        low = 1.0 / (1.0 + p * gap)
        centre = np.where(rng.random(shape) < p, low * (1.0 + gap), low)
        s = math.sqrt(math.log(1.0 + w * w))
        return centre * rng.lognormal(-s * s / 2.0, s, shape)
    raise KeyError(dist)


def _round_effect(rng: np.random.Generator, rounds: int, condition: str, cv: float) -> np.ndarray:
    """Return a factor per round shared by both sides (mean about 1)."""
    if condition == "independent":
        return np.ones(rounds)
    if condition == "drift":
        # a slow walk of the machine's speed: a random effect per round as large as the
        # trial noise, on top of a trend of 1% a round
        s = cv
        return np.exp(rng.normal(-s * s / 2.0, s, rounds) + 0.01 * np.arange(rounds))
    if condition == "states":
        # the machine in a slow state (another guest on the core: 30% slower) in a third of
        # the rounds, the same for every environment of the round
        return np.where(rng.random(rounds) < 1.0 / 3.0, 1.3, 1.0)
    raise KeyError(condition)


def naive_design(looks: Sequence[int]):
    """Return the rule the verdicts stopping rule replaced, for comparison: every look at 95%.

    Looking after every round and reading each look off a plain 95% interval (issue 43
    simulated 14.8% false differences for it at a nominal 5%).
    """
    from overhead.stats.sequential import Design

    class EveryLookAt95(Design):
        def alphas(self) -> tuple[float, ...]:
            return (self.alpha,) * len(self.looks)

        def words(self) -> str:
            return f"every look at {100 * (1 - self.alpha):g}% (no correction for the looks)"

    return EveryLookAt95(tuple(looks))


def sequential_errors(designs: dict, *, ratios: Sequence[float] = (1.0, 1.02, 1.05),
                      cvs: Sequence[float] = (0.02, 0.10),
                      distributions: Sequence[str] = ("lognormal", "bimodal"),
                      conditions: Sequence[str] = CONDITIONS, margin_pct: float = 3.0,
                      reps: int = 2000, seed: int = 0) -> pd.DataFrame:
    """Simulate the whole sequential procedure and count its wrong verdicts.

    Each sample is one comparison run as the verdicts stopping rule runs it: rounds of one trial
    per side (the environment's true mean the baseline's times ``ratio``; trial noise of the
    distribution and CV; a factor per round shared by both sides, ``conditions``), replayed
    look by look by :func:`overhead.stats.sequential.replay` until a look decides or the last
    look is taken.

    Parameters
    ----------
    designs : dict
        Name -> :class:`~overhead.stats.sequential.Design`.
    ratios, cvs, distributions, conditions
        The grid of truths simulated.
    margin_pct : float
        The equivalence margin (+-).
    reps : int
        Comparisons per cell of the grid.
    seed : int
        Seed; every design sees the same samples.

    Returns
    -------
    pandas.DataFrame
        design, ratio, cv, distribution, condition, reps, equivalent, difference (a decided
        difference in the right direction), wrong_direction, inconclusive (shares), false_difference
        (a decided difference when the true ratio is 1, or one in the wrong direction),
        false_equivalence (``equivalent`` when the true ratio lies outside the margin),
        coverage (the verdict's interval holds the true ratio), mean_n (trials per side at the
        stop), and mc_se (the Monte Carlo SE of a 5% rate at these reps).
    """
    from overhead.stats.sequential import replay
    from overhead.stats.verdicts import Margin

    margin = Margin.symmetric(margin_pct)
    rows = []
    for d_i, dist in enumerate(distributions):
        for c_i, cv in enumerate(cvs):
            for k_i, cond in enumerate(conditions):
                for r_i, ratio in enumerate(ratios):
                    rng = np.random.default_rng([seed, d_i, c_i, k_i, r_i])
                    n = max(d.n_max for d in designs.values())
                    samples = []
                    for _ in range(reps):
                        shared = _round_effect(rng, n, cond, cv)
                        x = 100.0 * ratio * shared * _trial_noise(rng, (n,), dist, cv)
                        y = 100.0 * shared * _trial_noise(rng, (n,), dist, cv)
                        samples.append((x, y))
                    for name, design in designs.items():
                        counts = dict.fromkeys(("equivalent", "difference", "wrong", "inconclusive",
                                                "covered"), 0)
                        stopped_n = 0
                        for x, y in samples:
                            rounds = range(1, design.n_max + 1)
                            sv = replay(zip(rounds, x, strict=False), zip(rounds, y, strict=False),
                                        margin, design, higher_is_better=True)
                            v = sv.verdict
                            stopped_n += sv.look.n if sv.look else 0
                            iv = v.interval
                            counts["covered"] += bool(iv.low <= ratio <= iv.high)
                            if v.verdict == "equivalent":
                                counts["equivalent"] += 1
                            elif v.verdict in ("faster", "slower"):
                                right = (v.verdict == "faster") == (ratio > 1.0)
                                counts["difference" if right and ratio != 1.0 else "wrong"] += 1
                            else:
                                counts["inconclusive"] += 1
                        outside = not (margin.low <= ratio <= margin.high)
                        rows.append({
                            "design": name, "ratio": ratio, "cv": cv, "distribution": dist,
                            "condition": cond, "reps": reps,
                            "equivalent": counts["equivalent"] / reps,
                            "difference": counts["difference"] / reps,
                            "wrong_direction": counts["wrong"] / reps,
                            "inconclusive": counts["inconclusive"] / reps,
                            "false_difference": counts["wrong"] / reps,
                            "false_equivalence": counts["equivalent"] / reps if outside else 0.0,
                            "coverage": counts["covered"] / reps,
                            "mean_n": stopped_n / reps,
                            "mc_se": math.sqrt(0.05 * 0.95 / reps)})
    return pd.DataFrame(rows)
