"""overhead.stats.between: the ratio of two campaigns' ratios, its interval and its verdict.

The interval is recomputed here from its definition (delta method on the log of each mean,
Welch-Satterthwaite df over four samples) with numpy and scipy; its coverage is simulated at
the trial counts of a live campaign.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as st

from overhead.stats import Margin, log_ratio_interval
from overhead.stats.between import between, ratio_of_ratios, words

M5 = Margin.symmetric(5.0, "test band")


def _by_hand(xb, yb, xa, ya, level=0.95):
    samples = [np.asarray(s, float) for s in (xb, yb, xa, ya)]
    means = [s.mean() for s in samples]
    terms = [s.var(ddof=1) / (s.size * m * m) for s, m in zip(samples, means, strict=True)]
    df = sum(terms) ** 2 / sum(t * t / (s.size - 1) for t, s in zip(terms, samples, strict=True))
    lr = math.log(means[0] / means[1]) - math.log(means[2] / means[3])
    half = st.t.ppf(0.5 + level / 2, df) * math.sqrt(sum(terms))
    return math.exp(lr), math.exp(lr - half), math.exp(lr + half), df


def test_the_interval_is_the_four_sample_log_t():
    xb, yb = [50.1, 49.0, 50.9, 49.7], [100.2, 99.1, 101.3]
    xa, ya = [98.0, 99.5, 97.1], [100.4, 98.9, 100.0, 101.2, 99.5]
    iv = ratio_of_ratios(xb, yb, xa, ya)
    r, lo, hi, df = _by_hand(xb, yb, xa, ya)
    assert iv.ratio == pytest.approx(r, rel=1e-12)
    assert (iv.low, iv.high, iv.df) == pytest.approx((lo, hi, df), rel=1e-10)
    assert iv.ratio_b == pytest.approx(np.mean(xb) / np.mean(yb))
    assert iv.ratio_a == pytest.approx(np.mean(xa) / np.mean(ya))
    assert iv.n == (4, 3, 3, 5)
    # symmetric on the log scale around the estimate
    assert math.log(iv.ratio / iv.low) == pytest.approx(math.log(iv.high / iv.ratio))


def test_a_noiseless_reference_reduces_to_one_ratio():
    """With A's samples constant, R's interval is B's own log-t interval scaled by 1/r_A."""
    xb, yb = [10.2, 9.8, 10.5, 10.1], [20.3, 19.6, 20.0]
    xa, ya = [4.0, 4.0, 4.0], [5.0, 5.0, 5.0]
    iv = ratio_of_ratios(xb, yb, xa, ya)
    one = log_ratio_interval(xb, yb)
    assert (iv.low, iv.high) == pytest.approx((one.low / 0.8, one.high / 0.8), rel=1e-10)
    assert iv.df == pytest.approx(one.df)


@pytest.mark.parametrize("n", [3, 6])
def test_coverage_at_the_trial_counts_of_a_campaign(n):
    """The 95% interval covers the true R at 3 and 6 trials a sample (normal, CV 2-10%)."""
    rng = np.random.default_rng(20261128)
    true_means = (45.0, 100.0, 98.0, 100.0)  # R = 0.45 / 0.98
    cvs = (0.02, 0.05, 0.10, 0.03)
    truth = (45.0 / 100.0) / (98.0 / 100.0)
    reps, hits = 2000, 0
    for _ in range(reps):
        s = [rng.normal(m, m * cv, n) for m, cv in zip(true_means, cvs, strict=True)]
        iv = ratio_of_ratios(*s)
        hits += iv.low <= truth <= iv.high
    coverage = hits / reps
    # binomial SE at 0.95 over 2000 reps is 0.5%: 0.93 is four SEs below nominal
    assert 0.93 <= coverage <= 0.995, coverage


def test_a_planted_halving_is_slower_beyond_the_margin():
    rng = np.random.default_rng(1)
    ya, yb = rng.normal(8800, 90, 6), rng.normal(8850, 90, 6)
    xa, xb = rng.normal(8770, 100, 6), rng.normal(4400, 50, 6)
    b = between(xb, yb, xa, ya, M5, higher_is_better=True)
    assert b.verdict == "slower" and b.beyond_margin
    assert b.interval.high < M5.low and b.p_difference < 1e-6
    assert "slower in B than in A" in words(b) and "beyond the margin" in words(b)
    # the same data with the better direction unknown: a lower ratio, not a judgement
    assert between(xb, yb, xa, ya, M5).verdict == "lower"


def test_equivalent_needs_the_interval_inside_the_margin():
    rng = np.random.default_rng(2)
    s = [rng.normal(1000, 5, 8) for _ in range(4)]
    b = between(*s, M5, higher_is_better=True)
    assert b.verdict == "equivalent"
    assert M5.low <= b.interval.low and b.interval.high <= M5.high and b.p_equivalence < 0.025
    noisy = [rng.normal(1000, 150, 3) for _ in range(4)]
    v = between(*noisy, M5, higher_is_better=True)
    assert v.verdict == "inconclusive" and v.interval.low < 1 < v.interval.high
    assert v.trials_needed is not None and v.trials_needed > 3
    assert "neither" not in words(v) and "inconclusive" in words(v)


def test_what_cannot_be_tested_says_why():
    b = between([1.0], [2.0, 2.1], [1.0, 1.1], [2.0, 2.2], M5)
    assert b.verdict == "not tested" and "n >= 2" in b.reason
    z = between([1.0, 1.0], [2.0, 2.0], [1.0, 1.0], [2.0, 2.0], M5)
    assert z.verdict == "not tested" and "zero variance" in z.reason
    neg = between([1.0, -1.0], [2.0, 2.1], [1.0, 1.1], [2.0, 2.2], M5)
    assert neg.verdict == "not tested" and "positive" in neg.reason
    nan = between([1.0, float("nan")], [2.0, 2.1], [1.0, 1.1], [2.0, 2.2], M5)
    assert nan.verdict == "not tested"
