# %% [markdown]
# # RC25482 Sections III-E and III-F: network (Figs 1-3)
#
# **What the paper says.** nuttcp measures the goodput of one unidirectional TCP bulk transfer
# over a direct 10 Gbps link (Mellanox ConnectX-2 EN, 1500-byte MTU), in both directions
# (client->server: the system under test transmits; server->client: it receives). "All three
# configurations reach 9.3 Gbps in both the transmit and receive direction, very close to the
# theoretical limit of 9.41 Gbps due to packet headers"; Fig 2's second panel gives the CPU
# cycles per byte (`perf stat -a`): Docker's NAT lengthens the transmit path, vhost-net is cheap
# on transmit and costly on receive. netperf TCP_RR / UDP_RR (100-byte request, 200-byte
# response, one transaction in flight) gives the round-trip latency of Fig 3: "NAT, as used in
# Docker, doubles latency"; "KVM adds 30 us of overhead to each transaction ... an increase of
# 80%".
#
# **What the data is.** No nuttcp, netperf or perf output is in the authors' repository; only two
# spreadsheets with **one hand-entered value per bar**: `nuttcp/results/nuttcp.xlsx` (goodput in
# Mbps) and `netperf/results/netperf.xlsx` (transactions/s). So **n = 1 for every bar**: no SD
# and no confidence interval is possible, and none is drawn; every comparison with native is
# *not tested* (`verdict`): one value a side shows neither sameness nor a difference. The CPU
# cycles/byte panel of Fig 2 is **not in the data**; the "Docker Host" column of nuttcp.xlsx and
# the "Docker NAT" columns of netperf.xlsx are empty. The published numbers (data/reference/rc25482.csv)
# are these same spreadsheet cells, so the comparison can only confirm that we read them
# correctly (0% difference); it is not an independent check.

# %% tags=["parameters"]
tidy_dir = ""
ibm_data = ""
out_dir = ""
published_values = ""
compare_published = True
campaign = ""
campaign_tidy = ""

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import display

from overhead import export, plots
from overhead.rc25482 import diagrams, network, setup

tidy_dir, out, paper = setup(tidy_dir, ibm_data, out_dir, published_values, compare_published)
if paper is None:
    print("compare_published=False: the published columns stay empty")

# %% [markdown]
# ## Fig 1: the network set-ups
#
# Drawn from the paper's description (Sections III-E, III-F and the Redis/MySQL sections): native;
# Docker's default NAT mode (container network namespace, veth pair, docker0 bridge, iptables NAT
# in the host); Docker with `--net=host` (the host's stack, so the native path); KVM with virtio-net
# and vhost-net (the packets go through the host kernel's tap device and bridge, not through
# QEMU's user space).

# %%
fig1 = diagrams.network_setups()
plots.save(fig1, out, "fig01")
plt.show()

# %% [markdown]
# ## Fig 2: TCP bulk transfer (nuttcp) goodput
#
# The bound drawn is the 10 Gbps line rate and the header-limited maximum TCP goodput: with a
# 1500-byte MTU each frame carries 1448 payload bytes (1500 - 20 IP - 20 TCP - 12 timestamp
# option) in 1538 bytes on the wire (+ 14 Ethernet header, 4 FCS, 8 preamble, 12 inter-frame
# gap): 10 x 1448 / 1538 = 9.41 Gbps, the paper's number.

# %%
tables = network.authors_tables(tidy_dir, paper)  # fig02, fig03
fig02 = tables["fig02"]
export.write_table(fig02, out, "fig02")
display(fig02)

# %%
fig, (ax, ax2) = plt.subplots(1, 2, figsize=(12.5, 4.8), gridspec_kw={"width_ratios": [1.6, 1]})
dirs = [label for _, label in network.DIRECTIONS]
width = 0.26
for i, env in enumerate(network.ENVIRONMENTS):
    rows = fig02[fig02["environment"] == env].set_index("direction").reindex(dirs)
    xs = np.arange(len(dirs)) + (i - 1) * width
    ax.bar(xs, rows["goodput_gbps"], width=width * 0.95, color=plots.colour(env), edgecolor="black",
           linewidth=0.6, label=env)
    for x, g, p in zip(xs, rows["goodput_gbps"], rows["published_gbps"], strict=True):
        ax.text(x, g - 0.25, f"{g:.2f}", ha="center", va="top", fontsize=9, color="white", fontweight="bold")
        if pd.notna(p):
            ax.plot([x - width * 0.45, x + width * 0.45], [p, p], color="black", linewidth=2)
limit = float(fig02["max_goodput_gbps"].iloc[0])
ax.axhline(network.LINE_RATE_GBPS, color="black", linestyle="-", linewidth=1)
ax.axhline(limit, color="black", linestyle="--", linewidth=1)
ax.text(-0.48, network.LINE_RATE_GBPS + 0.06, "line rate 10 Gbps", ha="left", va="bottom", fontsize=8.5)
ax.text(1.48, limit + 0.06, f"max TCP goodput {limit:.2f} Gbps (1500 B MTU headers)", ha="right", va="bottom",
        fontsize=8.5)
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
plots.save(fig, out, "fig02")
plt.show()

# %% [markdown]
# ## Fig 3: round-trip latency (netperf TCP_RR and UDP_RR)
#
# Latency = 10^6 / transactions per second (one transaction in flight at a time), as in the
# authors' spreadsheet formulas (`=1000000/B4`). **No Docker NAT value exists in the data** (the
# spreadsheet's Docker NAT columns are empty), so the paper's "NAT doubles latency" cannot be
# checked. n = 1 per bar: no CI.

# %%
fig03 = tables["fig03"]
export.write_table(fig03, out, "fig03")
display(fig03)

# %%
fig, ax = plt.subplots(figsize=(8.5, 5.4))
tests = list(network.TESTS)
for i, env in enumerate(network.ENVIRONMENTS):
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
            ax.plot([x - width * 0.45, x + width * 0.45], [r.published_latency_us] * 2, color="black", linewidth=2)
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
plots.save(fig, out, "fig03")
plt.show()

# %% [markdown]
# ## Paper claims against the data

# %%
with pd.option_context("display.max_colwidth", 200):
    display(network.claims(fig02, fig03))
print("files written:", sorted(p.name for p in out.glob("fig0[123]*")))


# %% [markdown]
# ## Live: Figs 2 and 3 measured on this machine
#
# With the parameter `campaign` (a campaign's name such as `local-quick`, or its YAML file;
# `campaign_tidy` is the folder of tidy trees, default `data/tidy`) this section rebuilds
# Figs 2 and 3 from that campaign's runs into `figures/<campaign>/` (fig02, fig03): nuttcp goodput both ways with the host's CPU busy (mpstat, where perf has no cycle counters), netperf TCP_RR/UDP_RR latency.
# Each row: the live mean with its 95% CI and n, the percent difference from native with its
# interval and verdict, and beside it the authors' value and percent difference
# for the environment the live one stands for. A VM under TCG is emulation and is never set
# beside the authors' KVM as if it were KVM. `make demo` runs this on `local-quick`.

# %%
if campaign:
    from overhead.rc25482 import live

    lv, live_tables, live_figures = live.section(campaign, "network", authors=tidy_dir,
                                                 tidy_root=campaign_tidy or None, out_root=out.parent)
    display(live.where(lv))
    for stem, frame in live_tables.items():
        print(stem, "->", lv.out / f"{stem}.csv")
        display(frame if stem.endswith("littles") else live.display_table(frame))
    plt.show()
else:
    print("no campaign given (parameter `campaign`): the live section is skipped")
