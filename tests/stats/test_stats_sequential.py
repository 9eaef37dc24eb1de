"""Sequential verdicts (overhead.stats.sequential): the looks, their levels, the replay, the
paired interval, and the whole procedure's error rates by simulation (issue 43).

The error-rate test is the acceptance of the stopping rule's statistics: with the designs the
project's campaigns use, over every look the rule takes, a false difference and a false
equivalence each stay at or below 5% (plus twice the Monte Carlo SE of 1,000 comparisons per
cell) on lognormal and bimodal trials, with drift between rounds and with the machine in a slow
state for whole rounds, and the interval a verdict is read from covers the truth at least 93%.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as st

from overhead import stats
from overhead.stats import coverage
from overhead.stats.sequential import (
    Design,
    Spending,
    expected_half_width,
    looks_needed,
    replay,
)
from overhead.stats.verdicts import Margin

M3 = Margin.symmetric(3.0)


def test_spending_adds_up_to_alpha_and_levels_follow_the_looks():
    d = Design((3, 6, 12))
    alphas = d.alphas()
    assert math.isclose(sum(alphas), 0.05)
    # power 2: 0.05 (1/4)^2, 0.05 (1/2)^2 - that, the rest
    assert alphas == pytest.approx((0.003125, 0.009375, 0.0375))
    assert d.level(2) == pytest.approx(0.9625)
    assert d.look_of(6) == 1 and d.look_of(5) is None
    for kind in ("pocock", "obrien-fleming"):
        sp = Spending(kind)
        assert sp.spent(1.0, 0.05) == pytest.approx(0.05)
        assert 0 < sp.spent(0.5, 0.05) < 0.05
    # O'Brien-Fleming keeps almost everything for the end, Pocock spends early
    assert Spending("obrien-fleming").spent(0.25, 0.05) < Spending("pocock").spent(0.25, 0.05)
    assert Design((2,)).alphas() == pytest.approx((0.05,))  # one look: the plain 95% interval
    with pytest.raises(stats.StatsError, match="increasing"):
        Design((3, 3, 6))
    with pytest.raises(stats.StatsError, match="from 2 up"):
        Design((1, 4))
    with pytest.raises(stats.StatsError, match="paired design needs its first look at 3"):
        Design((2, 4), pairing="rounds")
    with pytest.raises(stats.StatsError, match="spending kind"):
        Spending("linear")
    assert Design.from_json(Design((3, 6), pairing="rounds").to_json()) == Design((3, 6), pairing="rounds")
    assert "looks at 3, 6, 12 trials per side" in d.words() and "96.25%" in d.words()


def rounds(values):
    return list(enumerate(values, start=1))


def test_replay_stops_at_the_first_deciding_look_and_reads_its_interval():
    rng = np.random.default_rng(7)
    base = 1000 * rng.lognormal(0, 0.01, 12)
    slow = 600 * rng.lognormal(0, 0.01, 12)
    d = Design((3, 6, 12))
    sv = replay(rounds(slow), rounds(base), M3, d, higher_is_better=True)
    # decided at the first look (3 a side), at that look's level, on exactly its data
    assert sv.verdict.verdict == "slower" and sv.decided and not sv.final
    assert sv.look.n == 3 and sv.look.index == 0 and len(sv.looks) == 1
    again = stats.ratio_interval(slow[:3], base[:3], d.level(0))
    assert (sv.verdict.interval.low, sv.verdict.interval.high) == (again.low, again.high)
    assert sv.verdict.interval.level == pytest.approx(1 - 0.003125)
    assert "99.69% sequential interval, look 1 of 3" in sv.words()
    # an equivalence that needs the last look: 3 looks taken, verdict from the last
    same = base * rng.lognormal(0, 0.01, 12)
    sv = replay(rounds(same), rounds(base), M3, d, higher_is_better=True)
    assert [lk.n for lk in sv.looks][-1] == sv.look.n
    assert sv.verdict.verdict == "equivalent"
    # later values never change a decided look: replaying with more rounds gives the same
    longer = replay(rounds(np.r_[slow, slow]), rounds(np.r_[base, base]), M3, d)
    assert longer.look.n == 3 and longer.verdict.interval.low == sv_low(slow, base, d)


def sv_low(x, y, d):
    return stats.ratio_interval(x[:3], y[:3], d.level(0)).low


def test_replay_before_the_first_look_and_with_a_baseline_that_ran_on():
    d = Design((3, 6))
    sv = replay([(1, 10.0), (2, 11.0)], [(1, 10.0), (2, 10.5), (3, 10.2)], M3, d)
    assert sv.verdict.verdict == "not tested" and not sv.looks
    assert "2 of the 3 trials per side of the first look" in sv.verdict.reason
    # the baseline has more rounds (it ran on for another comparison): unpaired, every one of
    # its values up to the look's round counts; paired, only the rounds both sides ran
    x = [(1, 100.0), (3, 101.0), (5, 99.0)]
    y = [(r, 100.0 + r % 2) for r in range(1, 7)]
    un = replay(x, y, M3, d)
    assert un.look.n == 3 and un.look.n_baseline == 5
    pd_ = replay(x, y, M3, Design((3, 6), pairing="rounds"))
    assert pd_.look.n == 3 and pd_.look.n_baseline == 3
    with pytest.raises(stats.StatsError, match="round 1 has two values"):
        replay([(1, 1.0), (1, 2.0)], y, M3, d)


def test_paired_interval_is_the_t_interval_of_the_log_ratios():
    rng = np.random.default_rng(3)
    shared = rng.lognormal(0, 0.2, 8)            # the machine's state per round
    y = 50 * shared * rng.lognormal(0, 0.01, 8)
    x = 1.02 * 50 * shared * rng.lognormal(0, 0.01, 8)
    iv = stats.ratio.paired_log_ratio_interval(x, y, 0.95)
    d = np.log(x) - np.log(y)
    lo, hi = st.t.interval(0.95, d.size - 1, loc=d.mean(), scale=st.sem(d))
    assert (iv.low, iv.high) == pytest.approx((math.exp(lo), math.exp(hi)))
    assert iv.method == "paired log-t" and iv.df == 7
    # the shared state cancels: paired is far narrower than the independent-samples interval
    un = stats.ratio_interval(x, y, 0.95)
    assert iv.high / iv.low < 1.03 < un.high / un.low
    v = stats.decide(x, y, M3, 0.95, higher_is_better=True, method="paired")
    assert v.verdict in ("faster", "equivalent")
    # the test agrees with the interval: it rejects 1 exactly when the interval excludes it
    assert (v.p_difference < 0.05) == (iv.low > 1 or iv.high < 1)
    bad = stats.ratio.paired_log_ratio_interval([1.0, 2.0], [1.0], 0.95)
    assert math.isnan(bad.low) and "different sizes" in bad.reason


def test_expected_half_width_and_the_look_expected_to_decide():
    d = Design((3, 6, 12))
    # 2% SD per trial, no difference, +-3%: not at 3 or 6, at 12
    assert looks_needed(0.0, 0.02, M3, d) == 12
    assert looks_needed(0.0, 0.01, M3, d) == 6
    assert looks_needed(0.0, 0.10, M3, d) is None          # no planned look would
    assert looks_needed(math.log(0.5), 0.05, M3, d) == 3   # a halving: the first look
    # half-way to the margin: neither sameness nor a difference can be shown before the
    # half-width is under 1.5%
    assert looks_needed(math.log(1.015), 0.02, M3, d) is None
    assert looks_needed(math.log(1.015), 0.01, M3, d) == 12
    assert looks_needed(0.0, 0.01, M3, d, after=6) == 12
    h = expected_half_width(0.02, 12, 0.9625)
    assert h == pytest.approx(st.t.ppf(0.98125, 22) * 0.02 * math.sqrt(2 / 12))
    assert math.isnan(expected_half_width(0.02, 1, 0.95))


#: The designs the project's campaigns use (data/campaigns/*.yml): their looks, paired, not
#: paired, and paired or not as the first look's spread says.
DESIGNS = {
    "3,6,12": Design((3, 6, 12)),
    "3,8": Design((3, 8)),                          # local-quick's containers, unpaired
    "3,8 paired": Design((3, 8), pairing="rounds"),  # and paired by round
}


@pytest.fixture(scope="module")
def errors():
    return coverage.sequential_errors(DESIGNS, reps=1000, seed=43)


def test_the_whole_procedure_keeps_its_error_rates(errors):
    se = errors["mc_se"].iloc[0]
    worst_diff = errors.loc[errors["false_difference"].idxmax()]
    assert errors["false_difference"].max() <= 0.05 + 2 * se, worst_diff.to_dict()
    worst_eq = errors.loc[errors["false_equivalence"].idxmax()]
    assert errors["false_equivalence"].max() <= 0.05 + 2 * se, worst_eq.to_dict()
    low = errors.loc[errors["coverage"].idxmin()]
    assert errors["coverage"].min() >= 0.93, low.to_dict()


def test_the_simulation_can_see_a_wrong_rule(errors):
    """The same simulation catches a procedure that reads every look at 95% (the old rule)."""

    class EveryLookAt95(Design):
        def alphas(self):
            return (0.05,) * len(self.looks)

    wrong = {"every look at 95%": EveryLookAt95(tuple(range(2, 11)))}
    t = coverage.sequential_errors(wrong, ratios=(1.0,), cvs=(0.1,), distributions=("lognormal",),
                                   conditions=("independent",), reps=1000, seed=5)
    assert t["false_difference"].iloc[0] > 0.08


def test_pairing_decides_what_shared_states_leave_open(errors):
    """With the machine in a slow state for whole rounds, the paired design decides the
    sameness the independent-samples design cannot see through the states."""
    cell = errors[(errors["ratio"] == 1.0) & (errors["cv"] == 0.02)
                  & (errors["condition"] == "states") & (errors["distribution"] == "lognormal")]
    by = cell.set_index("design")["equivalent"]
    assert by["3,8 paired"] > 0.3 > 0.1 > by["3,8"]


def test_choosing_the_pairing_from_the_data_judged_spends_too_much():
    """Why no campaign may choose its pairing at its own first look: picking the narrower
    interval from the data it judges gives more false differences than the 5% it states (the
    simulation a pilot's choice, made on data of its own, does not need)."""
    cell = dict(ratios=(1.0,), cvs=(0.10,), distributions=("lognormal",),
                conditions=("independent",), reps=6000, seed=77)
    auto = coverage.sequential_errors({"auto": Design((3, 8), pairing="auto")}, **cell)
    fixed = coverage.sequential_errors({"paired": Design((3, 8), pairing="rounds")}, **cell)
    se = math.sqrt(0.05 * 0.95 / 6000)
    assert auto["false_difference"].iloc[0] > 0.05 + se > fixed["false_difference"].iloc[0] - se


def test_the_automatic_pairing_reads_the_first_look_only():
    from overhead.stats.sequential import choose_pairing

    rng = np.random.default_rng(2)
    state = np.exp(rng.normal(0, 0.2, 12))   # the machine's state, shared by a round
    y = dict(enumerate(100 * state * np.exp(rng.normal(0, 0.01, 12)), start=1))
    x = dict(enumerate(100 * state * np.exp(rng.normal(0, 0.01, 12)), start=1))
    d = Design((3, 6, 12), pairing="auto")
    assert choose_pairing(x, y, d) == "rounds"
    # independent trials: the unpaired look has more degrees of freedom
    y2 = dict(enumerate(100 * np.exp(rng.normal(0, 0.05, 12)), start=1))
    x2 = dict(enumerate(100 * np.exp(rng.normal(0, 0.05, 12)), start=1))
    assert choose_pairing(x2, y2, d) in ("none", "rounds")
    # what the later rounds hold does not change the choice made at the first look
    later = {**x, **{r: v * 50 for r, v in x.items() if r > 3}}
    assert choose_pairing(later, y, d) == choose_pairing(x, y, d)
    sv = replay(x.items(), y.items(), M3, d)
    assert sv.pairing == "rounds" and sv.verdict.interval.method == "paired log-t"
    assert choose_pairing({1: 1.0, 2: 1.0}, y, d) == "none"   # before the first look


def test_tables_replay_the_looks_of_a_sequential_campaign():
    """stats.curve (every live table) with the campaign's design: each point's verdict, n and
    interval are the look's the stopping rule stopped at, not a 95% interval of all trials."""
    import pandas as pd

    rng = np.random.default_rng(9)
    rows = []
    for r in range(1, 13):
        for env, mean in (("Native", 100.0), ("Docker", 60.0), ("Same", 100.0)):
            rows.append({"environment": env, "x": 1, "round": r,
                         "value": mean * math.exp(rng.normal(0, 0.01))})
    f = pd.DataFrame(rows)
    d = Design((3, 6, 12))
    out = stats.curve(f, "x", "Native", margin=M3, sequential=d, higher_is_better=True)
    docker = out[out["environment"] == "Docker"].iloc[0]
    sv = replay(f[f.environment == "Docker"][["round", "value"]].itertuples(index=False),
                f[f.environment == "Native"][["round", "value"]].itertuples(index=False), M3, d,
                higher_is_better=True)
    assert docker["verdict"] == sv.verdict.verdict == "slower"
    assert docker["n_baseline"] == 3 and docker["ratio_low"] == sv.verdict.interval.low
    assert "sequential interval, look 1 of 3" in docker["verdict_detail"]
    # the per-point statistics still use every trial
    assert docker["n"] == 12
    fixed = stats.curve(f, "x", "Native", margin=M3, higher_is_better=True)
    assert fixed[fixed.environment == "Docker"].iloc[0]["ratio_low"] != docker["ratio_low"]
    # a design per group (None: one look at all the trials)
    per = stats.curve(f, "x", "Native", margin=M3, higher_is_better=True,
                      sequential=lambda key: d if key["environment"] == "Same" else None)
    same = per[per.environment == "Same"].iloc[0]
    assert "sequential interval" in same["verdict_detail"]
    assert "sequential" not in per[per.environment == "Docker"].iloc[0]["verdict_detail"]
