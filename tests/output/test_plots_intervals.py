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
    pct = [tuple(sorted((p[0][1], p[1][1]))) for c in bottom.collections for p in c.get_segments()]
    assert pct == pytest.approx([(other["pct_low"], other["pct_high"])], rel=1e-12)
    # the printed verdict agrees with the interval drawn
    assert stats.check_verdicts(table) == []


def plt_axes():
    import matplotlib.pyplot as plt
    return plt.subplots()
