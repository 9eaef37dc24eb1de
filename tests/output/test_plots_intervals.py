"""The figures draw the intervals the tables print: read back the error bars drawn."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest

from overhead import plots, stats


@pytest.fixture
def points():
    """Two environments over two thread counts, 3 and 4 trials per point (seeded)."""
    rng = np.random.default_rng(23)
    rows = []
    for env, scale, n in (("Native", 1.0, 4), ("Docker NAT volume", 0.9, 3)):
        for threads in (1, 4):
            for v in rng.lognormal(np.log(1000 * threads * scale), 0.08, n):
                rows.append({"environment": env, "p_threads": threads, "value": v})
    return stats.curve(pd.DataFrame(rows), "p_threads", "Native", margin=stats.Margin.symmetric(5))


def _bars(container):
    """(x, low, high) of each vertical error bar of an errorbar container."""
    segments = container.lines[2][0].get_segments()
    return sorted((s[0][0], min(s[0][1], s[1][1]), max(s[0][1], s[1][1])) for s in segments)


def test_ci_curves_draw_the_curve_table_s_intervals(points):
    fig, ax = plt_axes()
    drawn = plots.ci_curves(ax, points, "p_threads", "mean", "ci_low", "ci_high")
    for env, container in drawn.items():
        rows = points[points["environment"] == env].sort_values("p_threads")
        expected = list(zip(rows["p_threads"], rows["ci_low"], rows["ci_high"], strict=True))
        assert _bars(container) == pytest.approx(expected, rel=1e-12)
        # the interval is the table's log-t one, never below 0
        assert (rows["ci_method"] == "log-t").all() and (rows["ci_low"] > 0).all()


def test_comparison_bars_draw_the_mean_and_ratio_intervals_the_table_prints(points):
    table = points.assign(item=points["p_threads"].map(lambda t: f"{t} threads"), unit="tps")
    fig = plots.comparison_bars(table, "throughput")
    top, bottom = fig.axes[0], fig.axes[2]   # item "1 threads": means above, % vs Native below
    rows = table[table["item"] == "1 threads"].reset_index(drop=True)
    means = sorted(s for c in top.collections for s in ((p[0][1], p[1][1]) for p in c.get_segments()))
    assert means == pytest.approx(sorted(zip(rows["ci_low"], rows["ci_high"], strict=True)), rel=1e-12)
    other = rows[rows["environment"] != "Native"].iloc[0]
    pct = [tuple(sorted((p[0][1], p[1][1]))) for c in bottom.collections if hasattr(c, "get_segments")
           for p in c.get_segments()]  # (the margin boxes are fills, not interval lines)
    assert pct == pytest.approx([(other["pct_low"], other["pct_high"])], rel=1e-12)
    # the printed verdict agrees with the interval drawn
    assert stats.check_verdicts(table) == []


def plt_axes():
    import matplotlib.pyplot as plt
    return plt.subplots()


def test_comparison_bars_keep_a_few_percent_visible_beside_an_emulated_vm():
    """fig03 of the live report: QEMU TCG at 760 us beside native's 55 us flattened every
    container's bar and difference. Past 8x the means get a log axis, past 100% the
    differences a symmetric-log one; the published value is a star, not Docker NAT's diamond."""
    import pandas as pd

    from overhead import plots

    # the live TCP_RR means and differences of campaign local-quick (2026-11-27)
    table = pd.DataFrame({
        "item": ["TCP_RR"] * 4, "environment": ["Native", "Docker net=host volume", "Docker NAT volume",
                                                "QEMU TCG untuned"],
        "n": [5, 5, 4, 2], "mean": [54.0, 57.0, 63.0, 766.0], "ci_low": [50.0, 52.0, 55.0, 540.0],
        "ci_high": [58.0, 62.0, 71.0, 1076.0], "pct": [0.0, 4.2, 16.7, 1318.7],
        "pct_low": [None, -3.6, 1.9, 1143.3], "pct_high": [None, 16.0, 29.0, 1512.0],
        "unit": ["us"] * 4, "published_pct_vs_baseline": [None, None, None, 80.8],
        "published_env": [None, None, None, "KVM"]})
    fig = plots.comparison_bars(table, "t", reference="published_pct_vs_baseline",
                                reference_label="authors", reference_env="published_env")
    top, low = fig.axes[0], fig.axes[1]
    assert top.get_yscale() == "log" and low.get_yscale() == "symlog"
    assert [t.get_text() for t in top.get_xticklabels()][3] == "QEMU TCG untuned (n=2)"
    stars = [line for line in low.get_lines() if line.get_marker() == plots.REFERENCE_MARKER]
    assert len(stars) == 1 and "KVM" in [t.get_text() for t in low.texts]
    # a few percent apart: linear axes as before
    near = table.iloc[:3].assign(published_pct_vs_baseline=None)
    fig = plots.comparison_bars(near, "t")
    assert fig.axes[0].get_yscale() == "linear" and fig.axes[1].get_yscale() == "linear"


def _fig03_table():
    import pandas as pd

    # the live TCP_RR rows of campaign local-quick (2026-11-29, figures/local-quick/fig03.csv):
    # a sequential campaign, its intervals at the look's level, a margin per comparison
    return pd.DataFrame({
        "item": ["TCP_RR"] * 4, "environment": ["Native", "Docker net=host volume", "Docker NAT volume",
                                                "QEMU TCG untuned"],
        "n": [3, 3, 3, 3], "mean": [60.06, 58.20, 62.24, 812.7], "ci_low": [58.6, 52.1, 56.8, 597.0],
        "ci_high": [61.6, 65.0, 68.2, 1106.0], "pct": [0.0, -3.1, 3.6, 1253.1],
        "pct_low": [None, -20.3, -15.9, 1018.0], "pct_high": [None, 17.9, 27.7, 1537.0],
        "margin_low_pct": [None, -5.0, -5.0, -5.0], "margin_high_pct": [None, 5.0, 5.0, 5.0],
        "ratio_level": [None, 0.99296875, 0.99296875, 0.99296875],
        "verdict": ["baseline", "inconclusive", "inconclusive", "slower"], "unit": ["us"] * 4})


def test_comparison_bars_mark_verdicts_margins_and_the_level_of_their_intervals():
    """Issue 45: the margin each verdict is judged against is drawn (a box per comparison,
    inside a linear part as wide as the margin), each point is filled by its verdict, the
    legend says the intervals are the sequential look's (not "95% CI"), and a log panel draws
    points, not bars whose length means nothing."""
    import matplotlib.colors as mc
    from matplotlib.patches import Rectangle

    from overhead import plots

    table = _fig03_table()
    fig = plots.comparison_bars(table, "t")
    top, low = fig.axes[0], fig.axes[1]
    assert top.get_yscale() == "log"
    assert not [p for p in top.patches if isinstance(p, Rectangle) and p.get_height() > 0]
    # a box of the margin (-5..+5) around each compared environment (x = 1, 2, 3)
    boxes = [c.get_paths()[0].vertices for c in low.collections if not hasattr(c, "get_segments")]
    assert len(boxes) == 3
    assert sorted(round(float(v[:, 0].mean())) for v in boxes) == [1, 2, 3]
    assert all(v[:, 1].min() == -5.0 and v[:, 1].max() == 5.0 for v in boxes)
    assert low.get_yscale() == "symlog" and low.yaxis.get_transform().linthresh == 5.0
    # the VM's +1253% and its interval lie inside the panel, with room
    lo, hi = low.get_ylim()
    assert hi > 1537.0 * 1.2 and lo < -5.0
    # filled: slower; pale (a third of the colour): inconclusive
    faces = {line.get_xdata()[0]: line.get_markerfacecolor() for line in low.get_lines()
             if len(line.get_xdata()) == 1 and line.get_marker() not in (None, "None", "", "_")}
    assert mc.to_rgba(faces[3])[3] == 1.0 and mc.to_rgba(faces[1])[3] == pytest.approx(0.33)
    legend = fig.legends[0]
    assert legend.get_title().get_text() == ("lower panels: % vs Native, live (sequential "
                                             "intervals, 99.30%)")
    names = [t.get_text() for t in legend.get_texts()]
    assert {"Docker net=host volume", "Docker NAT volume", "QEMU TCG untuned",
            "equivalence margin", "pale: inconclusive", "filled: differs from native"} <= set(names)
    # the same rows at a fixed count say 95% CI
    fixed = plots.comparison_bars(table.drop(columns="ratio_level"), "t")
    assert "(95% CI)" in fixed.legends[0].get_title().get_text()


def test_an_interval_of_a_handful_of_trials_does_not_set_a_log_panel():
    """At n = 2 native MySQL's interval ran 5.8-23,879 tx/s and flattened its panel: the
    panel spans the means and the intervals within 4x of theirs; the rest is said beside the
    point with its n."""
    import pandas as pd

    from overhead import plots

    table = pd.DataFrame({
        "item": ["1 thread"] * 2, "environment": ["Native", "QEMU TCG untuned"], "n": [2, 3],
        "mean": [372.0, 12.5], "ci_low": [5.8, 8.0], "ci_high": [23879.0, 19.6],
        "pct": [0.0, -96.6], "pct_low": [None, -99.0], "pct_high": [None, -80.0], "unit": ["tx/s"] * 2})
    fig = plots.comparison_bars(table, "t")
    top = fig.axes[0]
    lo, hi = top.get_ylim()
    assert top.get_yscale() == "log" and 372.0 < hi < 23879.0 and lo < 8.0
    assert [t.get_text() for t in top.texts] == ["n=2: interval\n5.8-2.39e+04"]
