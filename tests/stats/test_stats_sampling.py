"""overhead.stats.sampling: precision of the mean against statsmodels, pilot-based sample size
against a textbook example and a brute-force search."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as st
from statsmodels.stats.weightstats import DescrStatsW

from overhead import stats
from overhead.schema import frame


def brute_force(mean, sd, target_pct, level=0.95):
    """Smallest n >= 2 with t_{n-1} sd / sqrt(n) <= target% of mean, by bisection (the
    half-width shrinks as n grows)."""
    def ok(n):
        return st.t.ppf(0.5 + level / 2, n - 1) * sd / math.sqrt(n) <= target_pct / 100 * abs(mean)

    lo, hi = 1, 2
    while not ok(hi):
        lo, hi = hi, 2 * hi
    while hi - lo > 1:  # ok(hi) and (lo == 1 or not ok(lo))
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi


def test_precision_matches_statsmodels_half_width():
    x = np.random.default_rng(3).normal(200, 6, 12)
    p = stats.precision(x, target_pct=2.0)
    lo, hi = DescrStatsW(x).tconfint_mean()
    assert p.half_width == pytest.approx((hi - lo) / 2)
    assert p.rel_half_width_pct == pytest.approx(100 * (hi - lo) / 2 / x.mean())
    assert p.reached == (p.rel_half_width_pct <= 2.0)
    assert stats.precision(x, target_pct=0.1).reached is False
    assert stats.precision(x, target_pct=10).reached is True


def test_jain_textbook_example():
    # Jain, The Art of Computer Systems Performance Analysis (1991), sec. 13.9: pilot mean
    # response time 20 s, SD 5 s; accurate within 1 s (5%) at 95% confidence:
    # n = (100 z s / (r mean))^2 = (100 * 1.960 * 5 / (5 * 20))^2 = 96.04 -> 97 with z.
    assert math.ceil((100 * 1.960 * 5 / (5 * 20)) ** 2) == 97
    # Iterating with Student's t (which the pilot's own SD calls for) asks for two more.
    r = stats.trials_needed(n=10, mean=20.0, sd=5.0, target_pct=5.0)
    assert r.n_total == brute_force(20, 5, 5) == 99
    assert r.n_more == 89 and r.reason is None


@pytest.mark.parametrize("mean,sd,target,level", [(100, 10, 5, 0.95), (1, 0.3, 1, 0.99),
                                                  (50, 0.5, 2, 0.9), (10, 4, 0.5, 0.95)])
def test_trials_needed_is_the_smallest_n(mean, sd, target, level):
    r = stats.trials_needed(n=5, mean=mean, sd=sd, target_pct=target, level=level)
    assert r.n_total == brute_force(mean, sd, target, level)
    assert r.n_more == max(0, r.n_total - 5)


def test_trials_needed_from_a_sample_and_degenerate_pilots():
    x = np.random.default_rng(1).normal(100, 3, 8)
    r = stats.trials_needed(x, target_pct=0.5)
    assert r.n_total == brute_force(x.mean(), x.std(ddof=1), 0.5)
    assert stats.trials_needed(x, target_pct=50).n_more == 0
    z = stats.trials_needed([5.0, 5.0, 5.0], target_pct=1)
    assert math.isnan(z.n_total) and "SD is 0" in z.reason
    assert "n >= 2" in stats.trials_needed([5.0], target_pct=1).reason
    assert "mean is 0" in stats.trials_needed([-1.0, 1.0], target_pct=1).reason
    assert "max_n" in stats.trials_needed(n=3, mean=1, sd=100, target_pct=0.01, max_n=1000).reason
    with pytest.raises(stats.StatsError, match="n, mean and sd"):
        stats.trials_needed(target_pct=1.0, n=3)
    with pytest.raises(stats.StatsError, match="target_pct"):
        stats.precision(x, target_pct=0)
    one = stats.precision([3.0], 1.0)
    assert one.reached is None and math.isnan(one.half_width) and "n >= 2" in one.reason
    flat = stats.precision([3.0, 3.0], 1.0)
    assert flat.reached is True and "not evidence" in flat.reason


def test_precision_table():
    rng = np.random.default_rng(2)
    rows = [dict(benchmark="b", environment=e, metric="m", unit="s", value=v, source="x")
            for e, sd in (("native", 0.1), ("kvm", 5.0)) for v in rng.normal(100, sd, 6)]
    out = stats.precision_table(frame(rows), target_pct=1.0).set_index("environment")
    assert bool(out.loc["native", "reached"]) and not bool(out.loc["kvm", "reached"])
    assert out.loc["native", "n_more"] == 0 and out.loc["kvm", "n_more"] > 0
    assert str(out["reached"].dtype) == "boolean"
