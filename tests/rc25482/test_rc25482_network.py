"""Figs 1-4 data and drawings of RC25482 (overhead.rc25482.network, overhead.rc25482.diagrams)
on the authors' real spreadsheets.

The values are the cells of nuttcp/results/nuttcp.xlsx and netperf/results/netperf.xlsx as
quoted in paper_numbers.csv (source column), e.g. netperf TCP_RR native "trans/s 26608.44".
"""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import pytest

from overhead.rc25482 import diagrams, load, network


@pytest.fixture(scope="module")
def ref_rows(ibm_tidy):
    return load(ibm_tidy, table="reference")


@pytest.fixture(scope="module")
def fig02(ref_rows, paper):
    return network.goodput(ref_rows, paper)


@pytest.fixture(scope="module")
def fig03(ref_rows, paper):
    return network.latency(ref_rows, paper)


def row(df, **kw):
    sel = df
    for k, v in kw.items():
        sel = sel[sel[k] == v]
    assert len(sel) == 1, kw
    return sel.iloc[0]


def test_fig02_columns(fig02):
    assert list(fig02.columns) == ["environment", "direction", "goodput_gbps", "n", "ci95_low", "ci95_high",
                                   "line_rate_gbps", "max_goodput_gbps", "pct_of_max_goodput",
                                   "delta_vs_native_pct", "verdict", "verdict_detail", "published_gbps",
                                   "pct_diff_vs_published", "source", "note"]


def test_fig03_columns(fig03):
    assert list(fig03.columns) == ["environment", "test", "transactions_per_s", "latency_us", "n", "ci95_low",
                                   "ci95_high", "delta_vs_native_us", "delta_vs_native_pct", "verdict",
                                   "verdict_detail", "published_latency_us", "pct_diff_vs_published", "source",
                                   "note"]


def test_n1_comparisons_are_not_tested(fig02, fig03):
    # one spreadsheet value a side: no interval, so neither sameness nor a difference is shown
    for frame in (fig02, fig03):
        measured = frame[frame["n"] == 1]
        native = measured[measured["environment"] == "Native"]
        others = measured[measured["environment"] != "Native"]
        assert (native["verdict"] == "baseline").all() and (native["delta_vs_native_pct"] == 0).all()
        assert len(others) > 0 and (others["verdict"] == "not tested").all()
        assert others["verdict_detail"].str.contains("n=1 on each side").all()
        assert frame.loc[frame["n"] == 0, "verdict"].isna().all()
    kvm = fig03[(fig03["environment"] == "KVM") & (fig03["test"] == "TCP_RR")].iloc[0]
    nat = fig03[(fig03["environment"] == "Native") & (fig03["test"] == "TCP_RR")].iloc[0]
    assert kvm["delta_vs_native_pct"] == pytest.approx(100 * (kvm["latency_us"] / nat["latency_us"] - 1))


# nuttcp.xlsx Sheet1 B5:E7, Mbps typed in (paper_numbers: "nuttcp.xlsx B5:E8 (Mbps/1000)")
NUTTCP = {
    ("Native", "client->server (SUT transmits)"): 9348.1319,
    ("Docker NAT", "client->server (SUT transmits)"): 9329.8451,
    ("KVM", "client->server (SUT transmits)"): 9294.2403,
    ("Native", "server->client (SUT receives)"): 9340.2296,
    ("Docker NAT", "server->client (SUT receives)"): 9319.9298,
    ("KVM", "server->client (SUT receives)"): 9264.9354,
}


@pytest.mark.parametrize("key", sorted(NUTTCP))
def test_goodput_equals_spreadsheet_cell(fig02, key):
    r = row(fig02, environment=key[0], direction=key[1])
    assert r["goodput_gbps"] == pytest.approx(NUTTCP[key] / 1000, rel=1e-9)
    assert r["published_gbps"] == pytest.approx(NUTTCP[key] / 1000, rel=1e-6)
    assert abs(r["pct_diff_vs_published"]) < 1e-6
    assert r["n"] == 1 and math.isnan(r["ci95_low"]) and math.isnan(r["ci95_high"])   # no fake CI
    assert r["source"].startswith("nuttcp/results/nuttcp.xlsx!Sheet1!")


def test_goodput_bounds(fig02):
    assert (fig02["line_rate_gbps"] == 10).all()
    # paper: "the theoretical limit of 9.41 Gbps due to packet headers"
    assert round(network.tcp_goodput_limit(), 2) == 9.41
    assert network.tcp_goodput_limit() == pytest.approx(10 * 1448 / 1538)
    assert (fig02["goodput_gbps"] < fig02["max_goodput_gbps"]).all()
    assert (fig02["goodput_gbps"].round(1) >= 9.3).all()          # "all three reach 9.3 Gbps"


# netperf.xlsx Sheet1 B4:F5 (transactions/s) and paper_numbers' latency = 1e6 / rate
NETPERF = {
    ("Native", "TCP_RR"): (26608.44, 37.582060428946605),
    ("KVM", "TCP_RR"): (14718.59, 67.941290571990933),
    ("Native", "UDP_RR"): (27764.86, 36.016749229061482),
    ("KVM", "UDP_RR"): (15636.38, 63.953421444093841),
}


@pytest.mark.parametrize("key", sorted(NETPERF))
def test_latency_equals_spreadsheet_cell(fig03, key):
    tps, us = NETPERF[key]
    r = row(fig03, environment=key[0], test=key[1])
    assert r["transactions_per_s"] == pytest.approx(tps, rel=1e-12)
    assert r["latency_us"] == pytest.approx(us, rel=1e-12)
    assert r["published_latency_us"] == pytest.approx(us, rel=1e-12)
    assert r["n"] == 1 and math.isnan(r["ci95_low"])


def test_native_tcp_rr_example(fig03):
    r = row(fig03, environment="Native", test="TCP_RR")
    assert round(r["latency_us"], 2) == 37.58


def test_docker_nat_latency_absent(fig03):
    nat = fig03[fig03["environment"] == "Docker NAT"]
    assert len(nat) == 2 and nat["latency_us"].isna().all() and (nat["n"] == 0).all()
    assert nat["note"].str.contains("no Docker NAT value").all()


def test_kvm_added_latency_matches_text(fig03):
    # text: "KVM adds 30us of overhead to each transaction ..., an increase of 80%"
    r = row(fig03, environment="KVM", test="TCP_RR")
    assert r["delta_vs_native_us"] == pytest.approx(67.941290571990933 - 37.582060428946605)
    assert round(r["delta_vs_native_us"]) == 30 and round(r["delta_vs_native_pct"]) == 81
    u = row(fig03, environment="KVM", test="UDP_RR")
    assert 27 < u["delta_vs_native_us"] < 29 and 77 < u["delta_vs_native_pct"] < 78


def test_without_published(ref_rows):
    g = network.goodput(ref_rows, None)
    lat = network.latency(ref_rows, None)
    assert g["published_gbps"].isna().all() and lat["published_latency_us"].isna().all()
    assert g["goodput_gbps"].notna().all()


def test_claims(fig02, fig03):
    c = network.claims(fig02, fig03).set_index("claim")
    assert c.loc["KVM adds 30 us per transaction, an increase of 80%", "outcome"] == "consistent"
    assert c.loc["NAT, as used in Docker, doubles latency", "outcome"] == "cannot be checked"
    assert c["outcome"].str.contains("cannot be checked").sum() == 2


@pytest.mark.parametrize("draw, texts", [
    (diagrams.network_setups, ["docker0 bridge", "iptables NAT", "vhost-net", "tap device", "virtio-net"]),
    (diagrams.storage_setups, ["virtio-blk", "AUFS union", "qcow2", "FlashSystem 840", "bind mount"]),
])
def test_diagrams_draw_boxes(draw, texts):
    fig = draw()
    try:
        shown = " ".join(t.get_text() for ax in fig.axes for t in ax.texts)
        for t in texts:
            assert t in shown, t
        ax = fig.axes[0]
        assert len(ax.patches) >= 20           # boxes and arrows, drawn (not an image)
        assert not ax.images
    finally:
        plt.close(fig)
