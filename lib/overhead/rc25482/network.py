"""RC25482 Sections III-E and III-F: network bandwidth and latency, from the authors' spreadsheets.

Bandwidth is nuttcp's (Fig 2), latency netperf's (Fig 3).

The repository holds no nuttcp or netperf output: only ``nuttcp/results/nuttcp.xlsx``
(goodput in Mbps, typed in by hand, one value per environment and direction) and
``netperf/results/netperf.xlsx`` (transactions/s, one value per environment and test). The
ingest stores them as reference rows (``load(tidy, table="reference")``, tool "spreadsheet").
So every value here has **n = 1**: no SD and no confidence interval can be computed, and none
is invented; every comparison with native is "not tested" (the data show neither sameness nor
a difference). The paper's second Fig 2 panel (CPU cycles per byte from
``perf stat -a``) was never saved; the spreadsheets' "Docker Host" (nuttcp) and "Docker NAT"
(netperf) columns are empty.

Entry points: :func:`tcp_goodput_limit`, :func:`goodput` (Fig 2), :func:`latency` (Fig 3),
:func:`claims`; the figures :func:`plot_fig02` and :func:`plot_fig03`.
"""

from __future__ import annotations

import math
import os

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from overhead import plots
from overhead.names import BASELINE
from overhead.rc25482 import livedata

#: Fig 2 / Fig 3 environments (the paper's labels), in plotting order.
ENVIRONMENTS = ("Native", "Docker NAT", "KVM")
#: nuttcp directions: (p_direction in the tidy rows, label). Client->server: the system under
#: test transmits; server->client: it receives.
DIRECTIONS = (("client_to_server", "client->server (SUT transmits)"),
              ("server_to_client", "server->client (SUT receives)"))
TESTS = ("TCP_RR", "UDP_RR")
LINE_RATE_GBPS = 10.0
#: The paper: "very close to the theoretical limit of 9.41 Gbps due to packet headers".
PAPER_MAX_GOODPUT_GBPS = 9.41

FIG02_COLUMNS = ["environment", "direction", "goodput_gbps", "n", "ci95_low", "ci95_high",
                 "line_rate_gbps", "max_goodput_gbps", "pct_of_max_goodput", "delta_vs_native_pct",
                 "verdict", "verdict_detail", "published_gbps", "pct_diff_vs_published", "source", "note"]
FIG03_COLUMNS = ["environment", "test", "transactions_per_s", "latency_us", "n", "ci95_low",
                 "ci95_high", "delta_vs_native_us", "delta_vs_native_pct", "verdict", "verdict_detail",
                 "published_latency_us", "pct_diff_vs_published", "source", "note"]

N1_NOTE = "n=1: one hand-entered spreadsheet value; no SD or CI possible"
#: What a comparison with native of two n = 1 values can say.
NOT_TESTED = ("not tested: n=1 on each side (one spreadsheet value), so no interval: the values "
              "show neither sameness nor a difference")


def _verdicts(records: list[dict], value: str, key: str) -> None:
    """Add delta_vs_native_pct and the verdict ("baseline" / "not tested") to Fig 2/3 records."""
    native = {r[key]: r[value] for r in records if r["environment"] == "Native"}
    for r in records:
        if math.isnan(r.get(value, math.nan)):
            continue
        base = native.get(r[key], math.nan)
        if r["environment"] == "Native":
            r.update(delta_vs_native_pct=0.0, verdict="baseline", verdict_detail="baseline")
        elif not math.isnan(base):
            r.update(delta_vs_native_pct=100 * (r[value] / base - 1), verdict="not tested",
                     verdict_detail=NOT_TESTED)
NO_NAT_NOTE = "no Docker NAT value in the data (netperf.xlsx columns D/E are empty)"


def tcp_goodput_limit(link_gbps: float = LINE_RATE_GBPS, mtu: int = 1500, ip_header: int = 20,
                      tcp_header: int = 20, tcp_options: int = 12, ethernet_overhead: int = 38) -> float:
    """Compute the maximum TCP goodput (Gbps) of a link: payload per frame over bytes on the wire.

    Parameters
    ----------
    link_gbps : float
        Line rate.
    mtu : int
        IP MTU in bytes.
    ip_header, tcp_header : int
        Header bytes.
    tcp_options : int
        TCP options per segment (12: timestamps, Linux's default).
    ethernet_overhead : int
        Bytes per frame outside the MTU (14 header + 4 FCS + 8 preamble/SFD + 12 inter-frame
        gap).

    Returns
    -------
    float
        The goodput in Gbps. With the defaults: 10 * 1448 / 1538 = 9.4148 Gbps, the paper's
        9.41.
    """
    payload = mtu - ip_header - tcp_header - tcp_options
    return link_gbps * payload / (mtu + ethernet_overhead)


def _published_rows(published: pd.DataFrame | None, item_prefix: str) -> pd.DataFrame:
    if published is None:
        return pd.DataFrame(columns=["item", "metric", "env", "value"])
    return published[published["item"].fillna("").str.startswith(item_prefix)]


def goodput(reference: pd.DataFrame, published: pd.DataFrame | None = None) -> pd.DataFrame:
    """Compute the Fig 2 data: nuttcp goodput per environment and direction.

    Parameters
    ----------
    reference : pandas.DataFrame
        Reference rows (``load(tidy, table="reference")``); the nuttcp ``goodput`` rows (B/s)
        are used.
    published : pandas.DataFrame or None
        :func:`overhead.rc25482.published.published`; None leaves the published
        columns NaN.

    Returns
    -------
    pandas.DataFrame
        :data:`FIG02_COLUMNS`: one row per environment in :data:`ENVIRONMENTS` and direction
        (an environment without a value gets a NaN row and a note); goodput in Gbps (10^9
        bit/s); n = 1 and NaN CI; the 10 Gbps line rate and the header-limited maximum; the
        difference from native with its verdict ("not tested": n = 1).
    """
    rows = reference[(reference["benchmark"] == "nuttcp") & (reference["metric"] == "goodput")]
    pub = _published_rows(published, "Fig 2")
    limit = tcp_goodput_limit()
    records = []
    for env in ENVIRONMENTS:
        for key, label in DIRECTIONS:
            r = rows[(rows["label"] == env) & (rows["p_direction"] == key)]
            rec = {"environment": env, "direction": label, "line_rate_gbps": LINE_RATE_GBPS,
                   "max_goodput_gbps": limit, "ci95_low": math.nan, "ci95_high": math.nan}
            if len(r):
                if len(r) != 1:
                    raise ValueError(f"nuttcp: {len(r)} spreadsheet rows for {env} {key}, expected 1")
                g = float(r["value"].iloc[0]) * 8 / 1e9
                rec.update(goodput_gbps=g, n=1, pct_of_max_goodput=100 * g / limit,
                           source=str(r["source"].iloc[0]), note=N1_NOTE)
            else:
                rec.update(goodput_gbps=math.nan, n=0, note="no value in nuttcp.xlsx")
            direction_text = "client->server" if key == "client_to_server" else "server->client"
            p = pub[pub["metric"].str.contains(direction_text, regex=False) & (pub["env"] == env)]
            if len(p):
                rec["published_gbps"] = float(p["value"].iloc[0])
                if not math.isnan(rec["goodput_gbps"]):
                    rec["pct_diff_vs_published"] = 100 * (rec["goodput_gbps"] / rec["published_gbps"] - 1)
            records.append(rec)
    _verdicts(records, "goodput_gbps", "direction")
    out = pd.DataFrame.from_records(records).reindex(columns=FIG02_COLUMNS)
    out["n"] = out["n"].astype("int64")
    for c in ("environment", "direction", "source", "note", "verdict", "verdict_detail"):
        out[c] = out[c].astype("string")
    return out


def latency(reference: pd.DataFrame, published: pd.DataFrame | None = None) -> pd.DataFrame:
    """Compute the Fig 3 data: netperf TCP_RR / UDP_RR round-trip latency, 1e6 / (transactions/s).

    Parameters
    ----------
    reference : pandas.DataFrame
        Reference rows; the netperf ``transaction_rate`` rows (tx/s) are used.
    published : pandas.DataFrame or None
        The published values (:func:`overhead.rc25482.published.published`) or None.

    Returns
    -------
    pandas.DataFrame
        :data:`FIG03_COLUMNS`: one row per environment and test; Docker NAT rows have NaN and a
        note (no value in the data); n = 1 with NaN CI; the difference from native in us and %,
        with its verdict ("not tested": n = 1).
    """
    rows = reference[(reference["benchmark"] == "netperf") & (reference["metric"] == "transaction_rate")]
    pub = _published_rows(published, "Fig 3")
    records = []
    native = {}
    for env in ENVIRONMENTS:
        for test in TESTS:
            r = rows[(rows["label"] == env) & (rows["p_test"] == test)]
            rec = {"environment": env, "test": test, "ci95_low": math.nan, "ci95_high": math.nan}
            if len(r):
                if len(r) != 1:
                    raise ValueError(f"netperf: {len(r)} spreadsheet rows for {env} {test}, expected 1")
                tps = float(r["value"].iloc[0])
                rec.update(transactions_per_s=tps, latency_us=1e6 / tps, n=1,
                           source=str(r["source"].iloc[0]), note=N1_NOTE)
                if env == "Native":
                    native[test] = rec["latency_us"]
            else:
                rec.update(transactions_per_s=math.nan, latency_us=math.nan, n=0,
                           note=NO_NAT_NOTE if env == "Docker NAT" else "no value in netperf.xlsx")
            p = pub[pub["metric"].str.startswith(f"netperf {test}") & (pub["env"] == env)
                    & pub["value"].notna()]
            if len(p):
                rec["published_latency_us"] = float(p["value"].iloc[0])
                if not math.isnan(rec["latency_us"]):
                    rec["pct_diff_vs_published"] = 100 * (rec["latency_us"] / rec["published_latency_us"] - 1)
            records.append(rec)
    for rec in records:
        base = native.get(rec["test"], math.nan)
        if rec["environment"] != "Native" and not math.isnan(rec["latency_us"]):
            rec["delta_vs_native_us"] = rec["latency_us"] - base
            rec["delta_vs_native_pct"] = 100 * (rec["latency_us"] / base - 1)
        elif rec["environment"] == "Native" and not math.isnan(rec["latency_us"]):
            rec["delta_vs_native_us"] = 0.0
            rec["delta_vs_native_pct"] = 0.0
    _verdicts(records, "latency_us", "test")
    out = pd.DataFrame.from_records(records).reindex(columns=FIG03_COLUMNS)
    out["n"] = out["n"].astype("int64")
    for c in ("environment", "test", "source", "note", "verdict", "verdict_detail"):
        out[c] = out[c].astype("string")
    return out


def claims(fig02: pd.DataFrame, fig03: pd.DataFrame) -> pd.DataFrame:
    """Set the paper's Section III-E/F statements next to what the spreadsheet values give.

    Parameters
    ----------
    fig02 : pandas.DataFrame
        Output of :func:`goodput`.
    fig03 : pandas.DataFrame
        Output of :func:`latency`.

    Returns
    -------
    pandas.DataFrame
        claim, data, outcome ("consistent", "not consistent", "cannot be checked": whether the
        n = 1 values agree with the statement; not a test).
    """
    g = fig02.dropna(subset=["goodput_gbps"])
    lat = fig03.set_index(["environment", "test"])
    kvm = [lat.loc[("KVM", t)] for t in TESTS]
    rows = [
        ("All three configurations reach 9.3 Gbps in both directions",
         f"{g['goodput_gbps'].min():.2f} to {g['goodput_gbps'].max():.2f} Gbps over {len(g)} values (n=1 each)",
         "consistent" if round(g["goodput_gbps"].min(), 1) >= 9.3 else "not consistent"),
        ("Theoretical limit 9.41 Gbps due to packet headers",
         f"10 Gbps x 1448 / 1538 bytes = {tcp_goodput_limit():.3f} Gbps (1500-byte MTU, TCP timestamps); "
         f"measured {g['pct_of_max_goodput'].min():.1f}-{g['pct_of_max_goodput'].max():.1f}% of it",
         "consistent" if abs(tcp_goodput_limit() - PAPER_MAX_GOODPUT_GBPS) < 0.005 else "not consistent"),
        ("CPU cycles per byte: NAT lengthens the TX path; vhost-net cheap on TX, costly on RX",
         "perf stat output was never committed: no data", "cannot be checked"),
        ("KVM adds 30 us per transaction, an increase of 80%",
         "; ".join(f"{t}: +{k['delta_vs_native_us']:.1f} us ({k['delta_vs_native_pct']:+.0f}%)"
                   for t, k in zip(TESTS, kvm, strict=True)),
         "consistent" if all(abs(k["delta_vs_native_us"] - 30) <= 3 and abs(k["delta_vs_native_pct"] - 80) <= 5
                             for k in kvm) else "not consistent"),
        ("NAT, as used in Docker, doubles latency", NO_NAT_NOTE, "cannot be checked"),
        ("TCP and UDP have very similar latency",
         "; ".join(f"{e}: TCP {lat.loc[(e, 'TCP_RR'), 'latency_us']:.1f} vs UDP "
                   f"{lat.loc[(e, 'UDP_RR'), 'latency_us']:.1f} us"
                   for e in ENVIRONMENTS if not math.isnan(lat.loc[(e, 'TCP_RR'), 'latency_us'])),
         "consistent"),
    ]
    return pd.DataFrame(rows, columns=["claim", "data", "outcome"]).astype("string")


def authors_tables(tidy_dir: str | os.PathLike[str], paper: pd.DataFrame | None = None) -> dict[str, pd.DataFrame]:
    """Compute the section's tables from the authors' tidy data: ``fig02`` and ``fig03``.

    Both from the spreadsheets' rows (the ``reference`` table of the ingest), with the
    published values beside when ``paper`` is given.
    """
    from overhead.rc25482 import load

    ref_rows = load(tidy_dir, table="reference")
    return {"fig02": goodput(ref_rows, paper), "fig03": latency(ref_rows, paper)}


# --- figures (drawn for the notebook; the notebook saves and shows them) ---

def plot_fig02(fig02: pd.DataFrame) -> Figure:
    """Draw Fig 2: nuttcp goodput per direction and environment, and the missing CPU panel.

    One bar per environment and direction (n = 1: no error bars), the published value as a
    black bar, the 10 Gbps line rate and the header-limited maximum TCP goodput as horizontal
    lines; the second panel states that the paper's CPU cycles/byte data are not in the data.

    Parameters
    ----------
    fig02 : pandas.DataFrame
        Output of :func:`goodput`.

    Returns
    -------
    matplotlib.figure.Figure
        The two-panel figure (not saved, shown or closed).
    """
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(12.5, 4.8), gridspec_kw={"width_ratios": [1.6, 1]})
    dirs = [label for _, label in DIRECTIONS]
    width = 0.26
    for i, env in enumerate(ENVIRONMENTS):
        rows = fig02[fig02["environment"] == env].set_index("direction").reindex(dirs)
        xs = np.arange(len(dirs)) + (i - 1) * width
        ax.bar(xs, rows["goodput_gbps"], width=width * 0.95, color=plots.colour(env), edgecolor="black",
               linewidth=0.6, label=env)
        for x, g, p in zip(xs, rows["goodput_gbps"], rows["published_gbps"], strict=True):
            ax.text(x, g - 0.25, f"{g:.2f}", ha="center", va="top", fontsize=9, color="white",
                    fontweight="bold")
            if pd.notna(p):
                ax.plot([x - width * 0.45, x + width * 0.45], [p, p], color="black", linewidth=2)
    limit = float(fig02["max_goodput_gbps"].iloc[0])
    ax.axhline(LINE_RATE_GBPS, color="black", linestyle="-", linewidth=1)
    ax.axhline(limit, color="black", linestyle="--", linewidth=1)
    ax.text(-0.48, LINE_RATE_GBPS + 0.06, "line rate 10 Gbps", ha="left", va="bottom", fontsize=8.5)
    ax.text(1.48, limit + 0.06, f"max TCP goodput {limit:.2f} Gbps (1500 B MTU headers)", ha="right",
            va="bottom", fontsize=8.5)
    ax.plot([], [], color="black", linewidth=2, label="published value (same spreadsheet cell)")
    ax.set_xticks(np.arange(len(dirs)), dirs)
    ax.grid(False, axis="x")
    ax.set_xlim(-0.5, 1.5)
    ax.set_ylim(0, 11.2)
    ax.set_ylabel("goodput (Gbit/s)")
    ax.set_title("nuttcp goodput, one TCP stream")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=4, fontsize=8.5, frameon=False)
    ax.text(0.5, 0.45, "n = 1 per bar (one hand-entered value in nuttcp.xlsx):\nno error bars or CI possible.\n"
            "The spreadsheet's Docker --net=host column is empty.", transform=ax.transAxes, ha="center",
            va="center", fontsize=9, bbox={"facecolor": "white", "edgecolor": "#999999"})
    ax2.set_axis_off()
    ax2.set_title("CPU cycles per byte (paper's second panel)")
    ax2.text(0.5, 0.55, "NOT IN THE DATA\n\nThe paper measured system-wide CPU\nwith `perf stat -a`; that output was\n"
             "never committed to the authors'\nrepository, so this panel cannot\nbe rebuilt.",
             ha="center", va="center", fontsize=10, transform=ax2.transAxes,
             bbox={"facecolor": "#f3f3f3", "edgecolor": "#999999", "boxstyle": "round,pad=0.8"})
    fig.suptitle("Fig 2: TCP bulk transfer over a 10 Gbps link (SUT = system under test)")
    fig.tight_layout()
    return fig


def plot_fig03(fig03: pd.DataFrame) -> Figure:
    """Draw Fig 3: netperf TCP_RR / UDP_RR round-trip latency per environment.

    One bar per environment and test (n = 1: no CI), labelled with the latency and, beside
    native, the difference in us and %; the published value as a black bar. Docker NAT has no
    value in the data and is marked so.

    Parameters
    ----------
    fig03 : pandas.DataFrame
        Output of :func:`latency`.

    Returns
    -------
    matplotlib.figure.Figure
        The figure (not saved, shown or closed).
    """
    width = 0.26
    fig, ax = plt.subplots(figsize=(8.5, 5.4))
    tests = list(TESTS)
    for i, env in enumerate(ENVIRONMENTS):
        rows = fig03[fig03["environment"] == env].set_index("test").reindex(tests)
        xs = np.arange(len(tests)) + (i - 1) * width
        ax.bar(xs, rows["latency_us"].fillna(0), width=width * 0.95, color=plots.colour(env),
               edgecolor="black", linewidth=0.6, label=env)
        for x, r in zip(xs, rows.itertuples(), strict=True):
            if np.isnan(r.latency_us):
                ax.text(x, 2, "Docker NAT: no data\n(spreadsheet column empty)", ha="center", va="bottom",
                        fontsize=8, rotation=90, color=plots.colour(env),
                        bbox={"facecolor": "white", "edgecolor": "none"})
                continue
            tag = f"{r.latency_us:.1f}"
            if env != "Native":
                tag += f"\n+{r.delta_vs_native_us:.1f} us\n({r.delta_vs_native_pct:+.0f}%)"
            ax.text(x, r.latency_us + 1, tag, ha="center", va="bottom", fontsize=8.5)
            if pd.notna(r.published_latency_us):
                ax.plot([x - width * 0.45, x + width * 0.45], [r.published_latency_us] * 2, color="black",
                        linewidth=2)
    ax.plot([], [], color="black", linewidth=2, label="published value (same spreadsheet cell)")
    ax.set_xticks(np.arange(len(tests)), tests)
    ax.grid(False, axis="x")
    ax.set_ylabel("round-trip latency (us)")
    ax.set_ylim(0, fig03["latency_us"].max() * 1.35)
    ax.set_title("Fig 3: netperf request-response latency (100 B request, 200 B response)")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.08), ncol=4, fontsize=9, frameon=False)
    ax.text(0.99, 0.97, "n = 1 per bar (one spreadsheet value): no CI possible.\n"
            "Paper text: NAT doubles latency; KVM +30 us (+80%).", transform=ax.transAxes,
            ha="right", va="top", fontsize=8.5, bbox={"facecolor": "white", "edgecolor": "#999999"})
    fig.tight_layout()
    return fig


# --- the same tables from a campaign measured here (the live side) -------------------

#: nuttcp directions: the runner's (seen from the client) -> the paper's (seen from the system
#: under test, the environment); the authors' fig02.csv names.
LIVE_DIRECTIONS = {"tx": ("client->server (environment receives)", "server->client (SUT receives)"),
              "rx": ("server->client (environment transmits)", "client->server (SUT transmits)")}


def live_tables(live: livedata.Live) -> dict[str, pd.DataFrame]:
    """Figs 2 and 3 live: nuttcp goodput (Gbit/s) with the host's CPU, netperf RR latency (us).

    Returns ``{"fig02": ..., "fig03": ...}``. Fig 2's rows have item = the direction; its
    ``cpu`` rows (item "host CPU busy ...") give the whole host's CPU busy percent during the
    transfer (mpstat, all cores), where perf's cycle counters are not available.
    """
    good = live.benchmark("nuttcp", "goodput", p_sidecar=None)
    parts, cpu_parts = [], []
    for code, (name, _) in LIVE_DIRECTIONS.items():
        parts.append(livedata.compare(good[good["p_direction"] == code], "fig02", name, "Gbit/s", 1e9 / 8))
        idle = live.benchmark("nuttcp", "cpu_idle_mean", p_sidecar="mpstat", p_cpu="all")
        idle = idle[idle["p_direction"] == code].assign(value=lambda f: 100.0 - f["value"])
        cpu_parts.append(livedata.compare(idle, "fig02", f"host CPU busy %, {name}", "%",
                                  higher_is_better=None, metric="cpu_busy"))
    fig02 = livedata.finish(parts)

    def match2(a: pd.DataFrame, row: pd.Series, env: str) -> pd.DataFrame:
        theirs = {mine: paper for mine, paper in LIVE_DIRECTIONS.values()}[row["item"]]
        return a[(a["direction"] == theirs) & (a["environment"] == env) & a["goodput_gbps"].notna()]

    fig02 = livedata.attach_authors(fig02, live, "network", "fig02", match2, "goodput_gbps", None)
    if not fig02.empty:
        native = fig02[fig02["authors_environment"] == BASELINE].set_index("item")["authors_value"]
        fig02["authors_pct_vs_native"] = [
            100 * (v / native.get(i, np.nan) - 1) if pd.notna(v) else np.nan
            for i, v in zip(fig02["item"], fig02["authors_value"], strict=True)]
    cpu = livedata.attach_authors(livedata.finish(cpu_parts), live, "network", "fig02", lambda a, row, env: a.iloc[0:0],
                          "goodput_gbps", None,
                          missing="the authors give perf's cycles per byte (Fig 2), not CPU busy")
    fig02 = livedata.finish([fig02, cpu])
    tests = live.benchmark("netperf", "latency_mean")
    lat = livedata.finish([livedata.compare(tests[tests["p_test"] == t], "fig03", t, "us", 1e-6)
                   for t in sorted(tests["p_test"].dropna().unique())])

    def match3(a: pd.DataFrame, row: pd.Series, env: str) -> pd.DataFrame:
        return a[(a["test"] == row["item"]) & (a["environment"] == env) & a["latency_us"].notna()]

    fig03 = livedata.attach_authors(lat, live, "network", "fig03", match3, "latency_us", "delta_vs_native_pct")
    return {"fig02": fig02, "fig03": fig03}
