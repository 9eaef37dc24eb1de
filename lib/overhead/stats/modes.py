"""Is a cell's set of trial means one mode, or two? A gap test, calibrated by simulation.

A mixture of two states (netperf's round trips either fast or slow, by whether client and
server landed on the same CPU) summarised by one mean and one standard deviation describes
neither state, and more trials do not fix it. :func:`gap_test` asks whether the sorted values
split into two groups separated by a gap that is too wide for a single normal sample.

The statistic: for every split of the sorted values ``x(1) <= ... <= x(n)`` into a lower group
of ``k`` and an upper group of ``n - k`` values (each at least 2), the gap ``x(k+1) - x(k)``
divided by the pooled within-group standard deviation; the largest over the splits. It is
location- and scale-free, so its distribution for one normal sample depends only on ``n``:
its p-value is the share of that many simulated normal samples (seeded, cached per ``n``)
whose statistic is at least as large. Small samples have little power: at n = 4 only gaps of
many within-group SDs are detected, and n < 4 is not testable (said so, never
"unimodal"). Heavy-tailed unimodal data (a lognormal with a large spread) raise it more often
than alpha; a flagged cell says "two groups", with both, and is for a human to look at.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from overhead.stats._common import StatsError, check_level

__all__ = ["MIN_N", "SIMULATIONS", "GapTest", "gap_statistic", "gap_test"]

#: Fewest values the test takes (two per group).
MIN_N = 4
#: Normal samples simulated per n for the p-value.
SIMULATIONS = 20_000
_SEED = 20261126


@dataclass(frozen=True)
class GapTest:
    """The outcome of :func:`gap_test`.

    ``multimodal`` is True when p < alpha (two groups: ``low`` and ``high`` are their values),
    False when tested and not significant (which is not proof of one mode: the test has little
    power at small n), None when not testable (``reason`` says why).
    """

    n: int
    statistic: float
    p: float
    alpha: float
    multimodal: bool | None
    low: tuple[float, ...] = ()
    high: tuple[float, ...] = ()
    reason: str = ""

    def describe(self) -> str:
        """Return one line: the groups and the evidence, or why it was not tested."""
        if self.multimodal is None:
            return f"modes not tested: {self.reason}"
        if not self.multimodal:
            return (f"no second mode found (gap statistic {self.statistic:.2f}, p = {self.p:.3f}, "
                    f"n = {self.n}; at this n only a wide gap would show)")
        lo = ", ".join(f"{v:.4g}" for v in self.low)
        hi = ", ".join(f"{v:.4g}" for v in self.high)
        return (f"two groups: [{lo}] and [{hi}] (gap statistic {self.statistic:.1f}, "
                f"p = {self.p:.4f}, n = {self.n}): one mean would describe neither")


def _stat_sorted(x: np.ndarray) -> np.ndarray:
    """Gap statistic of each row of ``x`` (rows sorted ascending); also the best split index."""
    n = x.shape[-1]
    best = np.full(x.shape[:-1], -np.inf)
    where = np.zeros(x.shape[:-1], dtype=int)
    csum = np.cumsum(x, axis=-1)
    csq = np.cumsum(x * x, axis=-1)
    tot, totsq = csum[..., -1], csq[..., -1]
    for k in range(2, n - 1):
        s1, q1 = csum[..., k - 1], csq[..., k - 1]
        s2, q2 = tot - s1, totsq - q1
        ss = (q1 - s1 * s1 / k) + (q2 - s2 * s2 / (n - k))
        sd = np.sqrt(np.maximum(ss, 0.0) / (n - 2))
        gap = x[..., k] - x[..., k - 1]
        with np.errstate(divide="ignore", invalid="ignore"):
            g = np.where(sd > 0, gap / sd, np.where(gap > 0, np.inf, 0.0))
        better = g > best
        best = np.where(better, g, best)
        where = np.where(better, k, where)
    return np.stack([best, where.astype(float)])


def gap_statistic(values) -> tuple[float, int]:
    """Return the gap statistic of ``values`` and the size of the lower group at its best split."""
    x = np.sort(np.asarray(values, dtype="float64"))
    if x.size < MIN_N:
        raise StatsError(f"the gap statistic needs at least {MIN_N} values, got {x.size}")
    stat, k = _stat_sorted(x)
    return float(stat), int(k)


@lru_cache(maxsize=64)
def _null(n: int) -> np.ndarray:
    """Return the statistic of SIMULATIONS standard normal samples of size n, sorted (seeded)."""
    rng = np.random.default_rng(_SEED + n)
    sims = np.sort(rng.standard_normal((SIMULATIONS, n)), axis=1)
    return np.sort(_stat_sorted(sims)[0])


def gap_test(values, alpha: float = 0.05, *, log: bool | None = None) -> GapTest:
    """Test whether ``values`` (one value per trial) fall into two groups.

    Parameters
    ----------
    values : array-like of float
        A cell's trial means (NaN and infinite values are left out).
    alpha : float
        Level: multimodal when the simulated p-value is below it. At the default 0.05 about
        one cell in twenty of a unimodal normal campaign is reported as two groups (the
        simulation's own rate; tests/campaign/test_isolation_units.py measures it), which the report says.
    log : bool, optional
        Test the logarithms (the default when every value is positive: times and rates are
        ratio-scale, and a slow mode is wider than a fast one in absolute terms, alike in
        relative ones). The groups are returned in the values' own units.

    Returns
    -------
    GapTest
        The statistic, its p-value and the two groups.
    """
    check_level(alpha, "alpha")
    x = np.asarray(values, dtype="float64")
    x = np.sort(x[np.isfinite(x)])
    n = int(x.size)
    if log is None:
        log = bool(n) and bool(np.all(x > 0))
    if log and n and np.any(x <= 0):
        raise StatsError("gap_test(log=True) needs positive values")
    raw, x = x, (np.log(x) if log else x)
    if n < MIN_N:
        return GapTest(n, math.nan, math.nan, alpha, None,
                       reason=f"{n} trial{'s' if n != 1 else ''}; the test needs {MIN_N}")
    if x[0] == x[-1]:
        return GapTest(n, 0.0, 1.0, alpha, False)
    stat, k = gap_statistic(x)
    null = _null(n)
    exceed = null.size - int(np.searchsorted(null, stat, side="left"))
    p = (1 + exceed) / (null.size + 1)
    multimodal = p < alpha
    return GapTest(n, stat, p, alpha, multimodal,
                   tuple(float(v) for v in raw[:k]) if multimodal else (),
                   tuple(float(v) for v in raw[k:]) if multimodal else ())
