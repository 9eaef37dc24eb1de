"""The figures of notebooks 01 (Table I as bars) and 02 (Figs 2 and 3), on the authors' real data.

Each ``plot_*`` function of :mod:`overhead.rc25482.compute` and :mod:`overhead.rc25482.network`
is called on the frames its notebook builds, and what it draws (bar heights, dots, reference
lines, labels) is compared with the data: with the frames and, where cheap, with values taken
directly from the tidy rows.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.collections import PathCollection
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from overhead.rc25482 import compute, load, network


@pytest.fixture(scope="module")
def compute_tables(ibm_tidy, paper):
    """As notebook 01: ``compute.authors_tables(tidy_dir, paper)``."""
    return compute.authors_tables(ibm_tidy, paper)


@pytest.fixture(scope="module")
def reference(ibm_tidy):
    return load(ibm_tidy, table="reference")


@pytest.fixture(scope="module")
def network_tables(ibm_tidy, paper):
    """As notebook 02: ``network.authors_tables(tidy_dir, paper)``."""
    return network.authors_tables(ibm_tidy, paper)


def bars(ax) -> list[Rectangle]:
    """The bars of an axes, left to right."""
    return sorted((p for p in ax.patches if isinstance(p, Rectangle)), key=lambda p: p.get_x())


def dots(ax, size: float) -> np.ndarray:
    """The y of every scatter point of marker size ``size``, in drawing order."""
    ys = [c.get_offsets()[:, 1] for c in ax.collections
          if isinstance(c, PathCollection) and np.allclose(c.get_sizes(), size)]
    return np.asarray(np.concatenate(ys), dtype=float) if ys else np.array([])


def test_plot_table1_bars(compute_tables):
    trials, table1 = compute_tables["table1_trials"], compute_tables["table1"]
    fig = compute.plot_table1_bars(table1, trials)
    try:
        assert isinstance(fig, Figure)
        measured = [w for w in compute.WORKLOADS if (table1.loc[table1["workload"] == w, "n"] > 0).any()]
        assert "PXZ" not in measured and len(measured) == 6
        axes = fig.axes
        assert [ax.get_title() for ax in axes] == measured
        kept = trials[trials["in_table"]]
        for ax, w in zip(axes, measured, strict=True):
            rows = table1[(table1["workload"] == w) & (table1["n"] > 0)]
            assert ax.get_ylabel() == rows["unit"].iloc[0]
            # one bar per environment with data, its height the mean of that cell's trials
            heights = [b.get_height() for b in bars(ax)]
            direct = kept[kept["workload"] == w].groupby("environment", sort=False)["value"].mean()
            assert heights == pytest.approx(list(direct.reindex(rows["environment"])), rel=1e-12)
            assert heights == pytest.approx(list(rows["mean"]), rel=1e-12)
            assert [t.get_text() for t in ax.get_xticklabels()] == [
                f"{e}\nn={n}" for e, n in zip(rows["environment"], rows["n"], strict=True)]
            # every kept trial is a dot, environment by environment
            expected = np.concatenate([kept[(kept["workload"] == w) & (kept["environment"] == e)]["value"]
                                       for e in rows["environment"]])
            assert np.allclose(dots(ax, 10), expected)
            # the flagged trials are circled, and only they
            cell = kept[kept["workload"] == w]
            flagged = cell.loc[cell["outlier"].fillna(False).astype(bool), "value"].to_numpy()
            assert np.allclose(np.sort(dots(ax, 70)), np.sort(flagged))
            # the authors' spreadsheet value is a black bar across each bar that has one
            pub = sorted(line.get_ydata()[0] for line in ax.get_lines() if line.get_linewidth() == 2.2)
            assert pub == pytest.approx(sorted(rows["published_mean"].dropna()))
            # the label above each bar is its difference from native and verdict
            texts = [t.get_text() for t in ax.texts]
            assert texts == [compute.bar_tag(r) for _, r in rows.iterrows()]
        # the untuned-KVM Linpack trial at about 108.8 GFLOPS is drawn circled (kept, flagged)
        assert list(dots(axes[measured.index("Linpack")], 70)) == pytest.approx([108.8], abs=0.1)
        assert "Table I as bars" in fig._suptitle.get_text()
    finally:
        plt.close(fig)


def test_plot_fig02(network_tables, reference):
    fig02 = network_tables["fig02"]
    fig = network.plot_fig02(fig02)
    try:
        assert isinstance(fig, Figure)
        ax, ax2 = fig.axes
        dirs = [label for _, label in network.DIRECTIONS]
        # bars left to right: per direction, the environments in plotting order
        heights = [b.get_height() for b in bars(ax)]
        assert len(heights) == len(dirs) * len(network.ENVIRONMENTS)
        expected = [fig02.loc[(fig02["environment"] == e) & (fig02["direction"] == d), "goodput_gbps"].item()
                    for d in dirs for e in network.ENVIRONMENTS]
        assert heights == pytest.approx(expected, rel=1e-12)
        # and those are the spreadsheet's Mbps, read directly from the reference rows (B/s -> Gbit/s)
        nuttcp = reference[(reference["benchmark"] == "nuttcp") & (reference["metric"] == "goodput")]
        direct = [float(nuttcp.loc[(nuttcp["label"] == e) & (nuttcp["p_direction"] == k), "value"].item()) * 8 / 1e9
                  for k, _ in network.DIRECTIONS for e in network.ENVIRONMENTS]
        assert heights == pytest.approx(direct, rel=1e-12)
        assert [t.get_text() for t in ax.get_xticklabels()] == dirs
        # the line rate and the header-limited maximum as horizontal lines
        flat = sorted(line.get_ydata()[0] for line in ax.get_lines() if line.get_linewidth() == 1)
        assert flat == pytest.approx(sorted([network.LINE_RATE_GBPS, network.tcp_goodput_limit()]))
        # the published values, one black bar across each bar that has one
        pub = sorted(line.get_ydata()[0] for line in ax.get_lines()
                     if line.get_linewidth() == 2 and len(line.get_ydata()) == 2)
        assert pub == pytest.approx(sorted(fig02["published_gbps"].dropna()))
        assert ax.get_ylabel() == "goodput (Gbit/s)"
        assert "nuttcp goodput" in ax.get_title()
        # the bar labels are the goodputs
        labels = {t.get_text() for t in ax.texts}
        assert {f"{g:.2f}" for g in fig02["goodput_gbps"]} <= labels
        # the paper's CPU panel is not in the data: an empty panel that says so
        assert not ax2.axison and "CPU cycles per byte" in ax2.get_title()
        assert any("NOT IN THE DATA" in t.get_text() for t in ax2.texts)
        assert fig._suptitle.get_text().startswith("Fig 2")
    finally:
        plt.close(fig)


def test_plot_fig03(network_tables, reference):
    fig03 = network_tables["fig03"]
    fig = network.plot_fig03(fig03)
    try:
        assert isinstance(fig, Figure)
        (ax,) = fig.axes
        tests = list(network.TESTS)
        heights = [b.get_height() for b in bars(ax)]
        assert len(heights) == len(tests) * len(network.ENVIRONMENTS)
        # the latency 1e6 / (transactions/s) of the spreadsheet rows; Docker NAT has none (0-height bar)
        netperf = reference[(reference["benchmark"] == "netperf") & (reference["metric"] == "transaction_rate")]
        expected = []
        for t in tests:
            for e in network.ENVIRONMENTS:
                r = netperf[(netperf["label"] == e) & (netperf["p_test"] == t)]
                expected.append(1e6 / float(r["value"].item()) if len(r) else 0.0)
        assert heights == pytest.approx(expected, rel=1e-12)
        assert heights == pytest.approx(
            [fig03.loc[(fig03["environment"] == e) & (fig03["test"] == t), "latency_us"].fillna(0).item()
             for t in tests for e in network.ENVIRONMENTS], rel=1e-12)
        assert [t.get_text() for t in ax.get_xticklabels()] == tests
        texts = [t.get_text() for t in ax.texts]
        assert sum(t.startswith("Docker NAT: no data") for t in texts) == int(fig03["latency_us"].isna().sum()) == 2
        # KVM's bars are labelled with the latency and the difference from native
        for r in fig03[fig03["environment"] == "KVM"].itertuples():
            assert (f"{r.latency_us:.1f}\n+{r.delta_vs_native_us:.1f} us\n({r.delta_vs_native_pct:+.0f}%)"
                    in texts)
        pub = sorted(line.get_ydata()[0] for line in ax.get_lines()
                     if line.get_linewidth() == 2 and len(line.get_ydata()) == 2)
        assert pub == pytest.approx(sorted(fig03["published_latency_us"].dropna()))
        assert ax.get_ylabel() == "round-trip latency (us)"
        assert ax.get_ylim()[1] == pytest.approx(fig03["latency_us"].max() * 1.35)
        assert ax.get_title().startswith("Fig 3")
    finally:
        plt.close(fig)
