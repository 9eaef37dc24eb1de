"""Variance components, the size law and the trial design (overhead.stats.components).

Synthetic pilots with known components (a round effect shared by the environments, trial noise,
a size law), checked against the truth and against statsmodels' mixed model itself; the design
chooser on laws whose best size can be worked out by hand (Kalibera and Jones: with var(s) =
a + b / s and cost c0 + c1 s, the time to a given precision is least at s = sqrt(b c0 / (a c1))).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

from overhead import stats
from overhead.stats.components import Components, SizeModel, choose_design, components, size_model
from overhead.stats.sequential import Design
from overhead.stats.verdicts import Margin


def pilot(rng, rounds, shared_sd, trial_sd, envs=("native", "docker"), ratio=1.0):
    rows = []
    for r in range(1, rounds + 1):
        state = rng.normal(0, shared_sd)
        for e in envs:
            mean = math.log(100 * (ratio if e != "native" else 1.0))
            rows.append({"environment": e, "round": r, "seconds": 2.0,
                         "value": math.exp(mean + state + rng.normal(0, trial_sd))})
    return pd.DataFrame(rows)


def test_components_recover_the_shared_and_the_trial_variance():
    rng = np.random.default_rng(11)
    f = pilot(rng, 400, 0.05, 0.02, envs=("native", "docker", "nat"))
    c = components(f, "native")
    assert c.method == "MixedLM (REML)" and c.rounds == 400 and c.trials == 1200
    assert math.sqrt(c.shared) == pytest.approx(0.05, rel=0.1)
    assert math.sqrt(c.residual) == pytest.approx(0.02, rel=0.1)
    # a round's log ratio has only the trial noise of both sides; one trial has both parts
    assert c.paired_sd == pytest.approx(0.02 * math.sqrt(2), rel=0.1)
    assert c.unpaired_sd == pytest.approx(math.sqrt(0.05 ** 2 + 0.02 ** 2), rel=0.1)
    assert c.shared_share == pytest.approx(0.05 ** 2 / (0.05 ** 2 + 0.02 ** 2), rel=0.15)
    assert c.seconds == 2.0


def test_components_match_statsmodels_and_the_anova_moments():
    import statsmodels.formula.api as smf

    from overhead.stats.components import _anova

    rng = np.random.default_rng(5)
    f = pilot(rng, 30, 0.03, 0.03)
    c = components(f, "native")
    long = f.assign(y=np.log(f["value"]))
    with warnings.catch_warnings():  # a boundary estimate warns; the comparison stands
        warnings.simplefilter("ignore")
        fit = smf.mixedlm("y ~ C(environment)", long, groups=long["round"]).fit(reml=True)
    assert c.shared == pytest.approx(float(fit.cov_re.iloc[0, 0]), rel=1e-4)
    assert c.residual == pytest.approx(float(fit.scale), rel=1e-4)
    # balanced data: REML's estimates are the ANOVA moments where those are positive
    table = np.log(f.pivot(index="round", columns="environment", values="value").to_numpy())
    shared, residual = _anova(table)
    assert (shared, residual) == pytest.approx((c.shared, c.residual), rel=1e-3)


def test_components_refuse_what_they_cannot_estimate():
    rng = np.random.default_rng(1)
    with pytest.raises(stats.StatsError, match="2 complete rounds; at least 3"):
        components(pilot(rng, 2, 0.01, 0.01), "native")
    with pytest.raises(stats.StatsError, match="needs the baseline 'bare'"):
        components(pilot(rng, 5, 0.01, 0.01), "bare")
    bad = pilot(rng, 5, 0.01, 0.01)
    bad.loc[0, "value"] = 0.0
    with pytest.raises(stats.StatsError, match="above 0"):
        components(bad, "native")


def comp(unpaired, paired, seconds):
    return Components(8, 16, 0.0, unpaired ** 2, paired, unpaired, seconds, "given")


def test_the_size_law_and_the_best_size_by_hand():
    # var(s) = 0.0001 + 0.04 / s, cost 0.5 + 0.01 s: K&J's best size sqrt(b c0 / (a c1)) = 141
    law = lambda s: math.sqrt(0.0001 + 0.04 / s)  # noqa: E731
    by_size = {s: comp(law(s), law(s) * math.sqrt(2), 0.5 + 0.01 * s) for s in (16.0, 64.0, 256.0)}
    m = size_model(by_size, "size_mib")
    assert m.fixed == pytest.approx(0.0001, rel=1e-6) and m.per_unit == pytest.approx(0.04, rel=1e-6)
    assert (m.c0, m.c1) == pytest.approx((0.5, 0.01), rel=1e-6)
    assert m.pairing_gain == pytest.approx(0.0, abs=1e-9)  # paired = sqrt(2) x unpaired: no gain
    grid = np.geomspace(16, 1024, 61)
    looks = Design((3, 6, 12))
    d = choose_design(m, Margin.symmetric(3.0), looks, cells=3, sizes=grid)
    assert d.pairing == "none" and d.n is not None
    assert "size_mib=" in d.why and "unpaired" in d.why
    # the fewest minutes to the look expected to decide, over every candidate (the looks are
    # discrete: the smallest size whose spread still decides at a look wins)
    from overhead.stats.sequential import expected_half_width, looks_needed

    def minutes(size):
        n = looks_needed(0.0, m.sd(size), Margin.symmetric(3.0), looks)
        return math.inf if n is None else n * 3 * m.seconds(size) / 60

    assert d.minutes == pytest.approx(min(minutes(s) for s in grid))
    # precision per minute (the half-width one minute of trials gives) is best at K&J's size
    def per_minute(size):
        return expected_half_width(m.sd(size), 12, looks.level(2)) * math.sqrt(m.seconds(size))

    best = min(grid, key=per_minute)
    assert 100 < best < 200


def test_pairing_is_chosen_where_the_rounds_share_the_state_and_nothing_decides_a_fixed_spread():
    # half the variance is the round's: a paired design halves it
    shared = {s: comp(0.04, 0.04, 2.0) for s in (1.0, 4.0)}
    m = size_model(shared, "length")
    assert m.pairing_gain == pytest.approx(0.5)
    d = choose_design(m, Margin.symmetric(5.0), Design((3, 6, 12)), cells=2, sizes=[1.0, 4.0])
    assert d.pairing == "rounds"
    # 10% that no trial length removes: no look up to 12 decides +-3%, said so
    stuck = size_model({s: comp(0.10, 0.14, 1.0 + s) for s in (1.0, 4.0)}, "length")
    d = choose_design(stuck, Margin.symmetric(3.0), Design((3, 6, 12)), cells=2)
    assert d.n is None and d.why.startswith("no size from 1 to 16 length and no pairing decides")
    assert "no trial length removes" in d.why
    with pytest.raises(stats.StatsError, match="two sizes"):
        size_model({1.0: comp(0.1, 0.1, 1.0)}, "length")


def test_a_spread_that_grows_with_the_size_is_all_fixed():
    m = size_model({1.0: comp(0.02, 0.03, 1.0), 4.0: comp(0.03, 0.04, 4.0)}, "time")
    assert m.per_unit == 0.0 and m.fixed == pytest.approx((0.02 ** 2 + 0.03 ** 2) / 2)
    assert isinstance(m, SizeModel) and m.sd(100.0) == pytest.approx(m.sd(1.0))
