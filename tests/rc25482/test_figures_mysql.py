"""The figures of notebooks/05_mysql (Figs 10-13), drawn by the section modules on the authors' real data.

The inputs are built as the notebook builds them (:func:`overhead.rc25482.mysql.authors_tables`
on the runs and the dstat CPU, then the authors' columns added); each test checks that what is
drawn is the frame's data (the values of a curve, the number of points, the labels), not only
that a figure comes back.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.collections import PathCollection

from overhead.rc25482 import authors, load
from overhead.rc25482 import mysql as my
from overhead.rc25482 import mysql_dstat as md

ENVS = list(my.LABELS)


@pytest.fixture(scope="module")
def runs(ibm_tidy):
    return my.sysbench_runs(load(ibm_tidy, "mysql", where={"p_series": my.SERIES}))


@pytest.fixture(scope="module")
def cpu(ibm_tidy, runs):
    monitor = load(ibm_tidy, "mysql", table="monitor", where={"p_series": my.SERIES},
                   metrics=list(my.MONITOR_METRICS))
    return md.cpu_runs(monitor, runs)


@pytest.fixture(scope="module")
def tables(ibm_tidy, paper, runs, cpu):
    return my.authors_tables(ibm_tidy, paper, runs=runs, cpu=cpu)


@pytest.fixture(scope="module")
def authors_plot(history):
    return authors.read_authors_plot_csvs(history)


@pytest.fixture(scope="module")
def authors_cpu(ibm):
    return authors.read_authors_cpu(ibm)


@pytest.fixture(scope="module")
def fig10(tables, authors_plot):
    return authors.with_authors(tables["fig10"], authors_plot, authors.FIG10_COLUMNS)


@pytest.fixture(scope="module")
def fig11(tables, authors_cpu):
    return authors.with_authors(tables["fig11"], authors_cpu, authors.FIG11_COLUMNS)


@pytest.fixture(scope="module")
def fig12(tables, authors_plot):
    return authors.with_authors(tables["fig12"], authors_plot, authors.FIG12_COLUMNS)


@pytest.fixture(scope="module")
def fig13(fig10, fig12):
    return my.throughput_latency(fig10, fig12)


def same(drawn, expected) -> None:
    """The drawn values are the expected ones (as float arrays: pandas columns may be nullable)."""
    np.testing.assert_allclose(np.asarray(drawn, dtype=float), np.asarray(expected, dtype=float))


def rows(frame, env):
    return frame[frame["environment"] == env]


def curve(ax, start):
    """The data line of the errorbar container whose legend label starts with ``start``."""
    found = [c for c in ax.containers if str(c.get_label()).startswith(start)]
    assert len(found) == 1, [c.get_label() for c in ax.containers]
    return found[0].lines[0]


def line(ax, label):
    found = [ln for ln in ax.get_lines() if ln.get_label() == label]
    assert len(found) == 1, [ln.get_label() for ln in ax.get_lines()]
    return found[0]


def texts(ax):
    return [t.get_text() for t in ax.texts]


# --- Fig 10 ---------------------------------------------------------------------------------------

def test_plot_fig10(fig10, paper):
    fig = my.plot_fig10(fig10, paper)
    try:
        ax, bx = fig.axes
        assert "throughput" in ax.get_ylabel() and "loss vs native" in bx.get_ylabel()
        assert ax.get_title().startswith("Fig 10")
        for env in ENVS:
            drawn = curve(ax, f"{env}: throughput (n = 10 runs/point)")
            same(drawn.get_xdata(), rows(fig10, env)["threads"])
            same(drawn.get_ydata(), rows(fig10, env)["tps_mean"])
        kvm = line(bx, "KVM: loss vs native")
        same(kvm.get_ydata(), rows(fig10, "KVM")["loss_vs_native_pct"])
        assert kvm.get_linestyle() == "--"
        assert "Native: loss vs native" not in [ln.get_label() for ln in bx.get_lines()]
        # one verdict marker per non-native point that has a verdict (all 60 here)
        marked = sum(len(c.get_offsets()) for c in bx.collections if isinstance(c, PathCollection))
        verdicts = fig10.loc[fig10["environment"] != "Native", "verdict"]
        assert marked == int(verdicts.isin(["faster", "slower", "equivalent", "inconclusive"]).sum()) == 60
        # the paper's statements at 2% and 40%, and the legend with 5 + 4 curves and the margin
        assert [t for t in texts(bx) if t.startswith("paper:")] == ["paper: Docker -> ~2%", "paper: KVM > 40%"]
        assert len(fig.legends[0].get_texts()) == len(ENVS) + len(ENVS) - 1 + 1
    finally:
        plt.close(fig)


def test_plot_fig10_without_paper(fig10):
    fig = my.plot_fig10(fig10, None)
    try:
        assert not [t for t in texts(fig.axes[1]) if t.startswith("paper:")]
    finally:
        plt.close(fig)


def test_plotly_fig10(fig10):
    pf = my.plotly_fig10(fig10)
    assert len(pf.data) == len(ENVS) + len(ENVS) - 1
    native = pf.data[0]
    assert native.name == "Native: tx/s"
    same(native.y, rows(fig10, "Native")["tps_mean"])
    kvm = [t for t in pf.data if t.name == "KVM: loss %"]
    assert len(kvm) == 1 and kvm[0].yaxis == "y2" and kvm[0].mode == "lines"
    same(kvm[0].y, rows(fig10, "KVM")["loss_vs_native_pct"])
    assert pf.layout.title.text.startswith("Fig 10")
    assert pf.layout.yaxis.title.text == "throughput (transactions/s)"
    assert pf.layout.yaxis2.title.text == "throughput loss vs native (%)"


# --- Fig 11 ---------------------------------------------------------------------------------------

def test_plot_fig11(fig11, authors_cpu):
    fig = md.plot_fig11(fig11, authors_cpu)
    try:
        (ax,) = fig.axes
        (inset,) = ax.child_axes
        assert ax.get_xlabel().startswith("CPU utilisation") and "throughput" in ax.get_ylabel()
        assert ax.get_title().startswith("Fig 11")
        for env in ENVS:
            drawn = curve(ax, f"{env} (n = 10 runs/point)")
            same(drawn.get_xdata(), rows(fig11, env)["cpu_util_mean"])
            same(drawn.get_ydata(), rows(fig11, env)["tps_mean"])
        # the inset draws the same curves, without legend entries
        assert len(inset.containers) == len(ENVS)
        same(inset.containers[-1].lines[0].get_ydata(), rows(fig11, "KVM")["tps_mean"])
        # the authors' pooled CPU: one cross per point they have (no KVM file), in both panels
        crosses = [c for c in ax.collections if c.get_label() == "authors' results-cpu (pooled samples)"]
        m = fig11.dropna(subset="cpu_util_pooled_mean_authors")
        assert len(m) == 4 * len(my.THREADS)
        assert len(crosses) == 1 and len(crosses[0].get_offsets()) == len(m)
        same(crosses[0].get_offsets()[:, 0], m["cpu_util_pooled_mean_authors"])
        # thread labels at 10, 50, 110, 290 for native and KVM
        assert sorted(texts(ax)) == sorted(["10", "50", "110", "290"] * 2)
    finally:
        plt.close(fig)


def test_plot_fig11_without_authors(fig11):
    fig = md.plot_fig11(fig11, None)
    try:
        assert not [c for c in fig.axes[0].collections
                    if c.get_label() == "authors' results-cpu (pooled samples)"]
    finally:
        plt.close(fig)


def test_plotly_fig11(fig11):
    pf = md.plotly_fig11(fig11)
    assert [t.name for t in pf.data] == ENVS
    for trace, env in zip(pf.data, ENVS, strict=True):
        same(trace.x, rows(fig11, env)["cpu_util_mean"])
        same(trace.y, rows(fig11, env)["tps_mean"])
    assert pf.data[0].error_x is not None and pf.data[0].error_y is not None
    assert pf.layout.title.text.startswith("Fig 11")
    assert pf.layout.xaxis.title.text == "CPU utilisation, 100 - idle (%)"


# --- Fig 12 ---------------------------------------------------------------------------------------

def test_plot_fig12(fig12):
    fig = my.plot_fig12(fig12)
    try:
        ax, bx = fig.axes
        assert ax.get_ylabel() == "mean transaction latency (ms)"
        assert bx.get_ylabel().startswith("95th percentile latency")
        for env in ENVS:
            mean = curve(ax, f"{env} (n = 10 runs/point)")
            same(mean.get_ydata(), rows(fig12, env)["latency_ms_mean"])
            p95 = curve(bx, env)
            same(p95.get_ydata(), rows(fig12, env)["latency_p95_ms_mean"])
        rlo = fig12["littles_rel_residual_run_min_pct"].min()
        rhi = fig12["littles_rel_residual_run_max_pct"].max()
        (little,) = texts(ax)
        assert little.startswith("Little's law") and f"{rlo:.2f}% .. {rhi:.2f}% per run" in little
    finally:
        plt.close(fig)


def test_plotly_fig12(fig12):
    pf = my.plotly_fig12(fig12)
    assert len(pf.data) == 2 * len(ENVS)
    left, right = pf.data[:len(ENVS)], pf.data[len(ENVS):]
    assert all(t.showlegend for t in left) and not any(t.showlegend for t in right)
    assert {t.xaxis for t in right} == {"x2"}
    same(left[-1].y, rows(fig12, "KVM")["latency_ms_mean"])
    same(right[-1].y, rows(fig12, "KVM")["latency_p95_ms_mean"])
    assert [a.text for a in pf.layout.annotations] == ["mean latency", "95th percentile latency"]


# --- Fig 13 ---------------------------------------------------------------------------------------

def test_plot_fig13(fig13):
    fig = my.plot_fig13(fig13)
    try:
        (ax,) = fig.axes
        assert ax.get_xlabel() == "throughput (transactions/s)"
        assert ax.get_ylabel() == "mean transaction latency (ms)"
        for env in ENVS:
            drawn = curve(ax, f"{env} (n = 10 runs/point)")
            same(drawn.get_xdata(), rows(fig13, env)["tps_mean"])
            same(drawn.get_ydata(), rows(fig13, env)["latency_ms_mean"])
        assert len(ax.texts) == 2 * 5  # native's and KVM's points at 10, 50, 110, 170, 290 threads
        kvm290 = rows(fig13, "KVM").set_index("threads").loc[290]
        assert any(t.get_text() == "290" and np.allclose(t.xy, (kvm290["tps_mean"], kvm290["latency_ms_mean"]))
                   for t in ax.texts)
    finally:
        plt.close(fig)


def test_plotly_fig13(fig13):
    pf = my.plotly_fig13(fig13)
    assert [t.name for t in pf.data] == ENVS
    same(pf.data[0].x, rows(fig13, "Native")["tps_mean"])
    same(pf.data[0].y, rows(fig13, "Native")["latency_ms_mean"])
    assert pf.layout.xaxis.title.text == "throughput (transactions/s)"
    assert pf.layout.yaxis.title.text == "mean transaction latency (ms)"
