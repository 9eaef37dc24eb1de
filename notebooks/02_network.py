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
fig = network.plot_fig02(fig02)
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
fig = network.plot_fig03(fig03)
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
