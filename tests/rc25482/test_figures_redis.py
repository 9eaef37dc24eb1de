"""The figures of notebooks/04_redis drawn by overhead.rc25482.redis, on the authors' real data.

The inputs are built as the notebook builds them (``authors_tables``, ``littles_summary`` and
``published_values`` of the GET+SET workload). Each test checks that what is drawn is the data:
the curves' values against the frames and, where simple, against the means computed here
directly from the per-run throughputs; the number of points and traces; the axis labels.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.collections import PathCollection, PolyCollection
from matplotlib.colors import to_hex
from matplotlib.container import ErrorbarContainer
from matplotlib.figure import Figure

from overhead import plots
from overhead.rc25482 import load
from overhead.rc25482 import redis as rd

ENVS = list(rd.ENVIRONMENTS)
W = rd.PRIMARY


@pytest.fixture(scope="module")
def runs(ibm_tidy):
    return rd.run_throughput(load(ibm_tidy, "redis"))


@pytest.fixture(scope="module")
def pub(paper):
    return rd.published_values(paper)


@pytest.fixture(scope="module")
def tables(ibm_tidy, paper, runs):
    return rd.authors_tables(ibm_tidy, paper, runs=runs, bounds=rd.latency_bounds(load(ibm_tidy, "redis")))


@pytest.fixture(scope="module")
def f8(tables):
    return tables["fig08"][tables["fig08"]["workload"] == W]


@pytest.fixture(scope="module")
def f9(tables):
    return tables["fig09"][tables["fig09"]["workload"] == W]


@pytest.fixture(scope="module")
def littles_tab(runs, pub):
    return rd.littles_summary(runs, W, published=pub)


@pytest.fixture(scope="module")
def mix(runs):
    return runs[runs["workload"] == W]


def curves(ax) -> dict[str, ErrorbarContainer]:
    """The errorbar containers of an axis by the environment their legend text starts with."""
    out = {}
    for c in ax.containers:
        if isinstance(c, ErrorbarContainer):
            label = c.get_label()
            env = next((e for e in sorted(ENVS, key=len, reverse=True) if label.startswith(e)), label)
            out.setdefault(env, []).append(c)
    return out


def close(got, want, **tol) -> None:
    """``got`` equals ``want`` as floats (pandas' nullable columns included)."""
    np.testing.assert_allclose(np.asarray(got, dtype=float), np.asarray(want, dtype=float), **tol)


def env_rows(frame, env):
    return frame[frame["environment"] == env].sort_values("connections")


def test_plot_fig08(f8, pub, mix):
    fig = rd.plot_fig08(f8, pub)
    try:
        assert isinstance(fig, Figure)
        assert plt.fignum_exists(fig.number)  # not closed: the notebook shows it
        ax, bx = fig.axes
        assert ax.get_ylabel() == "throughput (thousand requests/s)"
        assert "connections" in ax.get_xlabel() and "Fig 8" in ax.get_title()
        assert "throughput" in ax.get_title()
        left = curves(ax)
        assert list(left) == ENVS
        for env in ENVS:
            line = left[env][0].lines[0]
            rows = env_rows(f8, env)
            close(line.get_xdata(), rows["connections"])
            close(line.get_ydata(), rows["throughput_mean"] / 1000)
            # the means are the per-run throughputs' means, computed here directly
            direct = mix[mix["environment"] == env].groupby("connections")["throughput"]
            close(line.get_ydata(), direct.mean().to_numpy() / 1000, rtol=1e-9)
            n = direct.size()
            assert left[env][0].get_label() == f"{env} (n = {n.min()}-{n.max()} runs/point)"
        # the paper's native saturation (~110k req/s) as a horizontal line
        flat = [line for line in ax.lines if len(line.get_ydata()) == 2]
        assert [tuple(line.get_ydata()) for line in flat] == [(110.0, 110.0)]
        assert pub["sat:Native"][0] == 110_000

        assert bx.get_ylabel() == "throughput / native throughput"
        # the ratio curves have no legend entry: known by their colour; no native curve there
        right = {env: c for c in bx.containers for env in ENVS
                 if to_hex(c.lines[0].get_color()) == to_hex(plots.colour(env))}
        assert list(right) == ENVS[1:] and len(bx.containers) == 3
        for env, c in right.items():
            close(c.lines[0].get_ydata(), env_rows(f8, env)["ratio_vs_native"])
        nat = env_rows(f8, "Docker NAT")
        native = env_rows(f8, "Native").set_index("connections")["throughput_mean"]
        nat_line = right["Docker NAT"].lines[0].get_ydata()
        close(nat_line, nat["throughput_mean"].to_numpy()
                                   / native.loc[nat["connections"]].to_numpy(), rtol=1e-9)
        # one verdict marker per non-native point, at its ratio
        marked = f8[(f8["environment"] != "Native")
                    & f8["verdict"].isin(["faster", "slower", "equivalent", "inconclusive"])]
        offsets = np.concatenate([c.get_offsets() for c in bx.collections if isinstance(c, PathCollection)])
        assert len(offsets) == len(marked) == len(f8[f8["environment"] != "Native"])
        got = sorted(map(tuple, np.round(offsets.astype(float), 9)))
        want = sorted(zip(marked["connections"].astype(float), np.round(marked["ratio_vs_native"], 9), strict=True))
        assert got == want
        # the equivalence margin as a band of ratios
        band = [p for p in bx.patches if p.get_label() == "equivalence margin (verdict)"]
        assert len(band) == 1
        ys = band[0].get_path().transformed(band[0].get_patch_transform()).vertices[:, 1]  # data y
        lo, hi = marked[["margin_low_pct", "margin_high_pct"]].drop_duplicates().iloc[0]
        close([min(ys), max(ys)], [1 + lo / 100, 1 + hi / 100])
    finally:
        plt.close(fig)


def test_plotly_fig08(f8, mix):
    fig = rd.plotly_fig08(f8)
    assert [t.name for t in fig.data] == ENVS
    assert "Fig 8" in fig.layout.title.text and fig.layout.yaxis.title.text == "requests/s"
    assert fig.layout.xaxis.title.text == "client connections"
    for trace in fig.data:
        rows = env_rows(f8, trace.name)
        close(trace.x, rows["connections"])
        close(trace.y, rows["throughput_mean"])
        direct = mix[mix["environment"] == trace.name].groupby("connections")["throughput"].mean()
        close(trace.y, direct.to_numpy(), rtol=1e-9)
        close(trace.error_y.array, rows["throughput_ci95_high"] - rows["throughput_mean"])
        # hover: n runs, ratio, verdict of each point
        assert list(trace.customdata[:, 0]) == list(rows["n_runs"].astype(str))
        assert list(trace.customdata[:, 2]) == list(rows["verdict"].astype(str))


def test_plot_fig09(f9, littles_tab, pub, mix):
    fig = rd.plot_fig09(f9, littles_tab, pub)
    try:
        assert plt.fignum_exists(fig.number)
        ax, *small = fig.axes
        assert ax.get_ylabel() == "implied latency R = N / X (us)"
        assert "Fig 9" in ax.get_title() and "latency" in ax.get_title()
        main = curves(ax)
        assert list(main) == ENVS
        for env in ENVS:
            line = main[env][0].lines[0]
            rows = env_rows(f9, env)
            close(line.get_ydata(), rows["latency_us_mean"])
            # Little's law per run, R = N / X, then the mean over runs: computed here directly
            m = mix[mix["environment"] == env]
            direct = (m["connections"] / m["throughput"] * 1e6).groupby(m["connections"]).mean()
            close(line.get_ydata(), direct.to_numpy(), rtol=1e-9)
        star = [line for line in ax.lines if line.get_label().startswith("paper:")]
        assert len(star) == 1 and list(star[0].get_xdata()) == [4]
        assert list(star[0].get_ydata()) == [pub["lat4:Docker NAT"][0]] == [51.0]
        kvm = littles_tab[(littles_tab["key"] == "added") & (littles_tab["environment"] == "KVM")].iloc[0]
        (text,) = [t.get_text() for t in ax.texts]
        assert f"+{kvm['estimate']:.0f} us [{kvm['ci95_low']:.0f}, {kvm['ci95_high']:.0f}]" in text
        assert "paper: ~83 us" in text
        # one small panel per environment: its implied latency inside the millisecond-bucket band
        assert [sx.get_title() for sx in small] == ENVS
        for sx, env in zip(small, ENVS, strict=True):
            rows = env_rows(f9, env)
            (line,) = sx.lines
            close(line.get_xdata(), rows["connections"])
            close(line.get_ydata(), rows["latency_us_mean"])
            (band,) = [c for c in sx.collections if isinstance(c, PolyCollection)]
            ys = np.concatenate([p.vertices[:, 1] for p in band.get_paths()])
            for col in ("bucket_low_us", "bucket_high_us"):
                assert np.isclose(ys[:, None], rows[col].to_numpy()[None, :]).any(axis=0).all(), (env, col)
            assert ys.min() == pytest.approx(rows["bucket_low_us"].min())
            assert ys.max() == pytest.approx(rows["bucket_high_us"].max())
    finally:
        plt.close(fig)


def test_plotly_fig09(f9):
    fig = rd.plotly_fig09(f9)
    names = [t.name for t in fig.data]
    assert names == ENVS + [f"{env}: bucket bound" for env in ENVS]
    assert "Fig 9" in fig.layout.title.text and fig.layout.yaxis.title.text == "implied latency N/X (us)"
    for trace in fig.data[:4]:
        rows = env_rows(f9, trace.name)
        close(trace.x, rows["connections"])
        close(trace.y, rows["latency_us_mean"])
        assert trace.visible is None
    for trace, env in zip(fig.data[4:], ENVS, strict=True):
        rows = f9[f9["environment"] == env]
        assert trace.visible == "legendonly" and trace.fill == "toself"
        assert list(trace.x) == list(rows["connections"]) + list(rows["connections"][::-1])
        close(trace.y, list(rows["bucket_high_us"]) + list(rows["bucket_low_us"][::-1]))
