# %% [markdown]
# # RC25482 Section IV-C: block I/O (fio), Figs 4-7
#
# **What the paper says.** An IBM FlashSystem 840 is attached over two 8 Gb Fibre Channel links;
# fio 2.0.8 (libaio, O_DIRECT) runs against a 16 GB file on ext4. Native mounts the filesystem,
# Docker gets it as a volume (`-v`, no AUFS), KVM sees the device through virtio (Fig 4).
# Sequential 1 MB I/O shows negligible overhead for Docker and KVM, "although KVM has roughly four
# times the performance variance" (Fig 5); random 4 kB I/O at concurrency 128 shows Docker equal to
# native and KVM at about half the IOPS (Fig 6); "KVM increases read latency by 2-3x" (Fig 7).
#
# **What the data is.** One fio job file was run **once** per environment
# (`fio/results/{linux,docker,vm}.log`), and the authors typed the figure values into
# `fio results.xlsx`. Every number below therefore comes from **n = 1 run per environment**:
# there is no run-to-run variation, so no confidence interval can be computed and none is shown,
# and every comparison with native is *not tested* (`verdict`): one run a side can show neither
# sameness nor a difference. What a single run does give is its own within-run spread (fio's
# per-interval bandwidth SD, the latency percentiles of its I/Os); these are shown and labelled
# as within-run quantities.

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

from overhead import export, plots, prose
from overhead.prose import num, pct, show, span
from overhead.rc25482 import blockio, diagrams, load, setup

tidy_dir, out, paper = setup(tidy_dir, ibm_data, out_dir, published_values, compare_published)

# %%
fio = load(tidy_dir, "fio")
sheet = load(tidy_dir, "fio", table="reference") if compare_published else None
ENVS = list(blockio.ENVIRONMENTS)
runs = fio.groupby("label")["source"].agg(lambda s: sorted({x.split(":")[0] for x in s}))
print("runs per environment (log files):", runs.to_dict())
print("jobs:", list(fio["p_job"].dropna().unique()))
if sheet is None:
    print("compare_published=False: the authors' spreadsheet values are not shown")
if paper is None:
    print("compare_published=False: no comparison with the paper's values")

# %% [markdown]
# ## Fig 4: the storage set-ups
#
# Drawn from the paper's text (boxes and arrows; the Docker AUFS column is the configuration the
# MySQL section uses, fio used a volume).

# %%
fig4 = diagrams.storage_setups()
plots.save(fig4, out, "fig04")
plt.show()

# %% [markdown]
# ## Fig 5: sequential read and write throughput
#
# Jobs, as the spreadsheet and the paper use them: **Sequential Read = `seq-read-2`** (1 MiB,
# iodepth 2) and **Sequential Write = `sequential-fill`** (1 MiB, iodepth 16). The authors plotted
# fio's per-interval bandwidth average (`bw (KB/s): ... avg=`) with its `stdev=` as the error
# bar. **That error bar is the spread of the bandwidth samples inside one run, not run-to-run
# variation and not a confidence interval** (n = 1 run per environment).

# %%
tables = blockio.authors_tables(tidy_dir, paper)  # fig05, fig06, fig07_ratios
fig5 = tables["fig05"]
export.write_table(fig5, out, "fig05")
display(fig5[["test", "environment", "bandwidth_mb_s", "interval_sd_mb_s", "run_bandwidth_mb_s",
              "spreadsheet_mb_s", "spreadsheet_sd_mb_s", "spreadsheet_raw", "pct_vs_spreadsheet",
              "pct_vs_native", "spreadsheet_pct_vs_native", "sd_ratio_vs_native", "n_runs",
              "verdict"]])

# %%
if sheet is not None:
    k5 = blockio.fig5_spreadsheet(fig5)
    show(f"""Known problems, shown in the figure: the spreadsheet's **KVM** values come from a run that
is not in the repository; the committed `vm.log` is lower ({num(k5['kvm_read_sheet_units'], 1)} /
{num(k5['kvm_write_sheet_units'], 1)} in the spreadsheet's units, i.e. {pct(k5['kvm_read_below'])} and
{pct(k5['kvm_write_below'])} below it). Native and Docker {k5['others_equal']}. Units: fio 2.0.8's "KB/s"
are KiB/s and the spreadsheet's "MB/s" are those divided by 1000; here everything is in
MB/s = 10^6 B/s, so the spreadsheet's printed {num(k5['native_read_sheet_raw'], 1)} reads
{num(k5['native_read_mb_s'], 1)} (the percent differences do not depend on the unit;
`spreadsheet_raw` in the CSV keeps the authors' number).""")


# %%
fig = blockio.plot_fig05(fig5)
plots.save(fig, out, "fig05")
plt.show()

# %%
plots.save_html(blockio.plotly_fig05(fig5), out, "fig05")

# %%
r5 = blockio.fig5_findings(fig5)
show(f"""**Reading Fig 5.** In these single runs Docker's bandwidth is within {pct(r5['docker_bound'])} of
native's for both directions (verdict *not tested*: one run a side is no evidence of sameness). In the
committed logs KVM is {pct(r5['kvm_read'])} (read) and {pct(r5['kvm_write'])} (write) below native"""
     + (f"""; in the spreadsheet's uncommitted KVM run {pct(r5['sheet_read'])} and {pct(r5['sheet_write'])}"""
        if sheet is not None else "")
     + f""". With one run each, whether these differences exceed run-to-run noise **cannot be said**:
no test is possible. The paper's "roughly four times the performance variance" is the ratio of
within-run SDs: KVM/native {num(r5['sd_write'], 1)}x (write) and {num(r5['sd_read'], 1)}x (read) in the
committed logs"""
     + (f" (spreadsheet: {num(r5['sheet_sd_write'], 1)}x and {num(r5['sheet_sd_read'], 1)}x)" if sheet is not None else "")
     + ", describing the bandwidth samples of one run each.")

# %% [markdown]
# ## Fig 6: random I/O (4 KiB) IOPS
#
# Jobs: `random-read-16x8` and `random-write-16x8` (8 jobs x iodepth 16 = 128 outstanding I/Os,
# the paper's "concurrency of 128") and `mixed-random-rw-32x8` (70% read; 8 x 32 = **256**
# outstanding, not 128). fio's group report (`group_reporting`) already sums the 8 jobs; the
# mixed value is read IOPS + write IOPS. n = 1 run per environment: no CI, no test.

# %%
fig6 = tables["fig06"]
export.write_table(fig6, out, "fig06")
display(fig6[["test", "environment", "outstanding_ios", "iops", "read_iops", "write_iops", "spreadsheet_iops",
              "pct_vs_spreadsheet", "pct_vs_native", "spreadsheet_pct_vs_native", "n_runs", "verdict"]])

# %%
if sheet is not None:
    k6 = blockio.fig6_spreadsheet(fig6)
    show(f"""Known problem: the spreadsheet's **KVM** values come from the uncommitted run; the committed
`vm.log` gives {num(k6['log_read'])} / {num(k6['log_write'])} / {num(k6['log_mixed'])} IOPS (read / write /
mixed) against the spreadsheet's {num(k6['sheet_read'])} / {num(k6['sheet_write'])} /
{num(k6['sheet_mixed'])}. Both are shown.""")

# %%
fig = blockio.plot_fig06(fig6)
plots.save(fig, out, "fig06")
plt.show()

plots.save_html(blockio.plotly_fig06(fig6), out, "fig06")

# %%
r6 = blockio.fig6_findings(fig6)
show(f"""**Reading Fig 6.** In these single runs Docker's IOPS are within {pct(r6['docker_bound'], 2)} of
native's (verdict *not tested*: the paper's "no overhead" cannot be tested with one run a side). KVM delivers
{span(r6['kvm_fewer_low'], r6['kvm_fewer_high'], unit='%')} fewer IOPS in the committed logs"""
     + (f""" ({span(r6['sheet_fewer_low'], r6['sheet_fewer_high'], unit='%')} fewer in the spreadsheet's run): the
paper's "only half as many IOPS" {r6['half']}""" if sheet is not None else "")
     + f""". Again a single run per environment: the size of the gap (about {prose.sig(r6['gap'], 1)}%)
is far beyond anything run-to-run noise of a few percent could produce, but no formal test exists
for n = 1.""")

# %% [markdown]
# ## Fig 7: random read latency distribution

# %%
lat = blockio.latency_percentiles(fio)
ident = blockio.identify_spreadsheet_latency(fio, sheet) if sheet is not None else None
k7 = blockio.fig7_percentiles(lat, ident)
show(f"""The paper's Fig 7 is a CDF of read completion latency; the text's "2-3x" matches
**`random-read-16`** (4 KiB, iodepth 16, one job) in the committed logs, whose medians are
{num(k7['median_native'])} / {num(k7['median_docker'])} / {num(k7['median_kvm'])} us (Native / Docker / KVM).
fio 2.0.8 prints only the {k7['n_percentiles']} percentiles of its latency histogram, so the curves
below are those points (joined by lines for the eye; between them the distribution is not known).
They describe the I/Os of **one run** per environment.""")
if ident is not None:
    native_slips = f"; {k7['native_slips']}, a typing slip" if k7["native_slips"] else ""
    show(f"""The spreadsheet's own version ("Random read (QD 128)", Sheet2) is **inconsistent**: its Native
column is `{k7['native_job']}`
({k7['native_numjobs']} x {k7['native_iodepth']} = {k7['native_outstanding']} outstanding) of linux.log ({k7['native_equal']} of
{k7['native_of']} percentiles equal{native_slips}), its Docker column is `{k7['docker_job']}`
({k7['docker_outstanding']} outstanding) of docker.log, and its KVM column matches
{'no committed job (the uncommitted run)' if k7['kvm_job'] == 'none committed' else '`' + k7['kvm_job'] + '`'}.
Comparing those columns with each other mixes queue depths {k7['native_outstanding']} and
{k7['docker_outstanding']}; it is shown on the right for completeness, not as a result.""")

# %%
lat_sheet = blockio.spreadsheet_latency_percentiles(sheet, ident) if sheet is not None else None
if ident is not None:
    display(ident)
if paper is not None:
    rec = paper[paper["item"].str.startswith("Fig 7 (gnuplot pipeline")].copy()
    rec["percentile"] = rec["metric"].str.extract(r"percentile p([\d.]+)$")[0].astype(float)
    rec = rec.rename(columns={"env": "environment", "value": "reference_us"})[["environment", "percentile",
                                                                                "reference_us"]]
    lat = lat.merge(rec, on=["environment", "percentile"], how="left")
    lat["pct_vs_reference"] = 100 * (lat["latency_us"] / lat["reference_us"] - 1)
    print("percentiles equal to the recomputed Fig 7 values of data/reference/rc25482.csv:",
          int((lat["pct_vs_reference"].abs() < 1e-9).sum()), "of", int(lat["reference_us"].notna().sum()))
fig7 = pd.concat([lat, lat_sheet], ignore_index=True) if lat_sheet is not None else lat
export.write_table(fig7, out, "fig07")
ratios = tables["fig07_ratios"]
export.write_table(ratios, out, "fig07_ratios")
display(ratios.pivot(index="statistic", columns="environment", values="value_us")[ENVS].round(1))
display(ratios[ratios["environment"] != "Native"].pivot(index="statistic", columns="environment",
                                                         values="ratio_vs_native").round(2))
gap = blockio.overlap(fio)
print(f"KVM p1 = {gap['env_p1_us']:.0f} us; Native p99 = {gap['native_p99_us']:.0f} us; at least "
      f"{gap['native_share_below_env_p1']:.0f}% of native I/Os finished faster than KVM's fastest 1%")

# %%
fig = blockio.plot_fig07(lat, ratios, lat_sheet)
plots.save(fig, out, "fig07")
plt.show()

# %%
fig = blockio.plotly_fig07(lat, lat_sheet)
plots.save_html(fig, out, "fig07")
fig

# %%
r7 = blockio.fig7_findings(ratios, gap)
show(f"""**Reading Fig 7.** Docker's latency distribution {r7['docker_on_native']} (medians
{num(r7['docker_median'])} vs {num(r7['native_median'])} us). KVM's is shifted right over its whole range:
its median is {num(r7['kvm_p50'], 2)}x native's, its 90th percentile {num(r7['kvm_p90'], 2)}x and its 99th
{num(r7['kvm_p99'], 2)}x, so the paper's "2-3x" {r7['paper_range']} (from the 10th percentile,
{num(r7['kvm_p10'], 2)}x, up; the 1st is {num(r7['kvm_p1'], 2)}x). The two distributions barely overlap:
KVM's fastest 1% ({num(r7['kvm_p1_us'])} us) {r7['overlap']} native's 99th percentile
({num(r7['native_p99_us'])} us). fio's mean latencies agree with Little's law inside the run
(16 outstanding I/Os / IOPS = {num(r7['little_native'])} us native, {num(r7['little_kvm'])} us KVM, against
fio's mean total latency {num(r7['lat_native'])} and {num(r7['lat_kvm'])} us).""")

# %% [markdown]
# **Statistics, plainly.** All comparisons with native in this notebook rest on one run per
# environment. Percentile ratios compare the I/O latencies *within* those runs; they are not
# estimates with a confidence interval for the environment, and every verdict against native is
# *not tested*: the data can show neither that Docker is the same as native nor that KVM differs
# beyond run-to-run noise. A rerun with several repetitions per environment (the project's
# campaigns do this) would be needed to put intervals, and verdicts, on these numbers.


# %% [markdown]
# ## Live: Figs 5 to 7 measured on this machine
#
# With the parameter `campaign` (a campaign's name such as `local-quick`, or its YAML file;
# `campaign_tidy` is the folder of tidy trees, default `data/tidy`) this section rebuilds
# Figs 5 to 7 from that campaign's runs into `figures/<campaign>/` (fig05, fig06, fig07): fio sequential bandwidth, random IOPS (read, write, 70/30 mixed) and random-read latency percentiles.
# Each row: the live mean with its 95% CI and n, the percent difference from native with its
# interval and verdict, and beside it the authors' value and percent difference
# for the environment the live one stands for. A VM under TCG is emulation and is never set
# beside the authors' KVM as if it were KVM. `make demo` runs this on `local-quick`.

# %%
if campaign:
    from overhead.rc25482 import live

    lv, live_tables, live_figures = live.section(campaign, "blockio", authors=tidy_dir,
                                                 tidy_root=campaign_tidy or None, out_root=out.parent)
    display(live.where(lv))
    for stem, frame in live_tables.items():
        print(stem, "->", lv.out / f"{stem}.csv")
        display(frame if stem.endswith("littles") else live.display_table(frame))
    plt.show()
else:
    print("no campaign given (parameter `campaign`): the live section is skipped")
