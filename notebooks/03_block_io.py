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
import numpy as np
import pandas as pd
import plotly.graph_objects as go
from IPython.display import display
from plotly.subplots import make_subplots

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
def bars_with_sheet(ax, frame, value, err, sheet_value, sheet_err, tests, scale=1.0, fmt="{:.0f}"):
    """Grouped bars (committed logs) per test and environment, spreadsheet values as markers."""
    width = 0.26
    x = np.arange(len(tests))
    for i, env in enumerate(ENVS):
        rows = frame[frame["environment"] == env].set_index("test").loc[tests]
        pos = x + (i - 1) * width
        yerr = rows[err].to_numpy() / scale if err else None
        ax.bar(pos, rows[value] / scale, width * 0.92, color=plots.colour(env), label=f"{env}: committed log",
               yerr=yerr, capsize=4, error_kw={"elinewidth": 1.2, "ecolor": "black"})
        for p, v in zip(pos, rows[value] / scale, strict=True):
            ax.text(p, v * 0.5, fmt.format(v), ha="center", va="center", rotation=90, fontsize=8,
                    color="white", fontweight="bold")
        if sheet_value in rows and rows[sheet_value].notna().any():
            syerr = rows[sheet_err].to_numpy() / scale if sheet_err else None
            ax.errorbar(pos + width * 0.28, rows[sheet_value] / scale, yerr=syerr, fmt="D", ms=6, mfc="white",
                        mec="black", ecolor="black", elinewidth=0.8, capsize=2, zorder=5,
                        label="authors' spreadsheet" if i == 0 else None)
    ax.set_xticks(x, tests)
    return ax


tests5 = [t for t, _ in blockio.SEQUENTIAL]
fig, ax = plt.subplots(figsize=(8.5, 5.2))
bars_with_sheet(ax, fig5, "bandwidth_mb_s", "interval_sd_mb_s", "spreadsheet_mb_s", "spreadsheet_sd_mb_s",
                tests5, fmt="{:.1f}")
ax.set_ylabel("throughput (MB/s = 10$^6$ B/s)")
ax.set_ylim(0, 1000)
ax.set_title("Fig 5: sequential I/O throughput (1 MiB), n = 1 run per environment")
ax.legend(loc="upper center", ncol=2, fontsize=8.5, bbox_to_anchor=(0.5, 1.0))
kvm_vs_sheet = fig5[fig5["environment"] == "KVM"].set_index("test").loc[tests5, "pct_vs_spreadsheet"]
gap = (" (vm.log is " + " / ".join(prose.num(-v, 1) + "%" for v in kvm_vs_sheet) + " lower)"
       if kvm_vs_sheet.notna().all() else "")
fig.text(0.01, -0.04, "Error bars: fio's per-interval bandwidth SD within ONE run (not run-to-run, not a CI). "
         "Read = seq-read-2 (iodepth 2), write = sequential-fill (iodepth 16).\nSpreadsheet KVM values come "
         f"from a run that is not committed{gap}. Spreadsheet 'MB/s' (KiB/s / 1000) converted to MB/s.",
         fontsize=7.5, va="top")
plots.save(fig, out, "fig05")
plt.show()

# %%
def plotly_bars(frame, value, err, sheet_value, sheet_err, tests, ytitle, title, err_label):
    """The interactive version of :func:`bars_with_sheet`."""
    fig = go.Figure()
    for env in ENVS:
        rows = frame[frame["environment"] == env].set_index("test").loc[tests]
        fig.add_bar(x=tests, y=rows[value], name=f"{env}: committed log", marker_color=plots.colour(env),
                    error_y=dict(type="data", array=rows[err]) if err else None,
                    customdata=np.stack([rows["n_runs"], rows["pct_vs_native"]], axis=-1),
                    hovertemplate=f"{env}<br>%{{x}}: %{{y:.1f}}<br>n=%{{customdata[0]}} run"
                                  "<br>%{customdata[1]:+.1f}% vs Native<extra></extra>")
        if sheet_value in rows and rows[sheet_value].notna().any():
            fig.add_scatter(x=tests, y=rows[sheet_value], mode="markers", name=f"{env}: authors' spreadsheet",
                            marker=dict(symbol="diamond-open", size=10, color=plots.colour(env),
                                        line=dict(width=2)),
                            error_y=dict(type="data", array=rows[sheet_err]) if sheet_err else None)
    fig.update_layout(barmode="group", title=title, yaxis_title=ytitle, template="plotly_white",
                      annotations=[dict(text=err_label, xref="paper", yref="paper", x=0, y=-0.15,
                                        showarrow=False, font=dict(size=10))])
    return fig


plots.save_html(plotly_bars(fig5, "bandwidth_mb_s", "interval_sd_mb_s", "spreadsheet_mb_s", "spreadsheet_sd_mb_s",
                            tests5, "MB/s", "Fig 5: sequential throughput (n = 1 run per environment)",
                            "error bars: fio per-interval bandwidth SD within one run, not a CI"), out, "fig05")

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
tests6 = [t for t, _ in blockio.RANDOM]
fig, ax = plt.subplots(figsize=(9, 5.2))
bars_with_sheet(ax, fig6, "iops", None, "spreadsheet_iops", None, tests6, scale=1000, fmt="{:.1f}k")
for i, test in enumerate(tests6):
    kvm = fig6[(fig6["test"] == test) & (fig6["environment"] == "KVM")].iloc[0]
    ax.annotate(f"KVM {kvm['pct_vs_native']:+.0f}%\n(sheet {kvm['spreadsheet_pct_vs_native']:+.0f}%)",
                (i + 0.26, kvm["iops"] / 1000), xytext=(0, 28), textcoords="offset points", ha="center",
                fontsize=8)
ax.set_ylabel("I/O operations per second (thousands, 4 KiB)")
ax.set_ylim(0, 140)
ax.set_title("Fig 6: random I/O, n = 1 run per environment")
ax.legend(loc="upper left", ncol=2, fontsize=8.5)
fig.text(0.01, -0.04, "Read/write: 8 jobs x iodepth 16 = 128 outstanding; mixed 70/30: 8 x 32 = 256 "
         "(read + write IOPS). Group-reported sum over the 8 jobs.\nSpreadsheet KVM values come from a run "
         "that is not committed; bars are the committed logs. No CI: one run per environment.",
         fontsize=7.5, va="top")
plots.save(fig, out, "fig06")
plt.show()

plots.save_html(plotly_bars(fig6, "iops", None, "spreadsheet_iops", None, tests6, "IOPS (4 KiB)",
                            "Fig 6: random I/O IOPS (n = 1 run per environment)",
                            "bars: committed fio logs; diamonds: authors' spreadsheet (KVM from an uncommitted run)"),
                out, "fig06")

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
ncols = 2 if lat_sheet is not None else 1
fig, axes = plt.subplots(1, ncols, figsize=(6.2 * ncols, 4.8), squeeze=False)
ax = axes[0, 0]
for env in ENVS:
    rows = lat[lat["environment"] == env].dropna(subset=["ecdf"])
    ax.plot(rows["latency_us"], rows["ecdf"], marker=plots.marker(env), color=plots.colour(env), ms=5,
            lw=1.2, label=f"{env} (median {rows.loc[rows['percentile'] == 50, 'latency_us'].iloc[0]:.0f} us)")
ax.set_xlim(0, 1300)
ax.set_ylim(0, 1.01)
tail = lat[(lat["environment"] == "KVM") & (lat["latency_us"] > 1300)]
tail_note = ("\nKVM tail off scale (us):\n" + "\n".join(f"p{p:g} = {v:.0f}" for p, v in
                                                    zip(tail["percentile"], tail["latency_us"], strict=True))
             if len(tail) else "")
ax.set_xlabel("read completion latency (us)")
ax.set_ylabel("fraction of I/Os (ECDF)")
ax.set_title("Fig 7: random-read-16 (4 KiB, iodepth 16)", fontsize=11)
ax.legend(loc="lower right", fontsize=8.5)
r50 = ratios[(ratios["environment"] == "KVM") & (ratios["statistic"] == "p50")]["ratio_vs_native"].iloc[0]
r99 = ratios[(ratios["environment"] == "KVM") & (ratios["statistic"] == "p99")]["ratio_vs_native"].iloc[0]
# right of the KVM curve, above the legend (the curve is left of x = 700 us below y = 0.7)
ax.text(0.98, 0.66, f"KVM / Native: median x{r50:.2f}, p99 x{r99:.2f}\n(within-run percentiles,\nn = 1 "
        "run each: no CI, no test)" + tail_note, transform=ax.transAxes, ha="right", va="top", fontsize=7.5)
if lat_sheet is not None:
    ax = axes[0, 1]
    for env in ENVS:
        rows = lat_sheet[lat_sheet["environment"] == env]
        depth = rows["iodepth"].iloc[0] * rows["numjobs"].iloc[0] if rows["iodepth"].notna().any() else None
        what = f"{rows['job'].iloc[0]}".replace("random-read-", "rr-") + (f", {depth} outst." if depth else "")
        ax.plot(rows["latency_us"], rows["ecdf"], marker=plots.marker(env), color=plots.colour(env), ms=5,
                lw=1.0, ls="--", label=f"{env}: {what}")
    ax.set_xscale("log")
    ax.set_xticks([200, 300, 500, 1000, 2000, 5000], ["200", "300", "500", "1000", "2000", "5000"])
    ax.xaxis.set_minor_formatter(plt.NullFormatter())
    ax.set_xlabel("read completion latency (us, log scale)")
    ax.set_ylabel("fraction of I/Os (ECDF)")
    ax.set_title("Authors' spreadsheet version (mixes jobs)", fontsize=11)
    ax.legend(loc="center left", bbox_to_anchor=(0.22, 0.55), fontsize=8)
fig.text(0.01, -0.03, "Points: fio 2.0.8's printed clat percentiles (1st to 99.99th), joined by lines for "
         "the eye. One run per environment; the spread shown is between the I/Os of that run."
         + ("\nRight: the spreadsheet's columns (rr = random-read; outst. = outstanding I/Os)."
            if lat_sheet is not None else ""),
         fontsize=7.5, va="top")
fig.tight_layout()
plots.save(fig, out, "fig07")
plt.show()

# %%
fig = make_subplots(rows=1, cols=ncols, subplot_titles=["random-read-16 (committed logs)",
                                                        "authors' spreadsheet (mixes jobs)"][:ncols])
for env in ENVS:
    rows = lat[lat["environment"] == env].dropna(subset=["ecdf"])
    fig.add_scatter(x=rows["latency_us"], y=rows["ecdf"], mode="lines+markers", name=env, legendgroup=env,
                    marker=dict(color=plots.colour(env), symbol=plots.plotly_symbols([env])[env]),
                    line=dict(color=plots.colour(env)), row=1, col=1,
                    hovertemplate=f"{env}<br>%{{x:.0f}} us: %{{y:.4f}}<extra>n=1 run</extra>")
    if lat_sheet is not None:
        rows = lat_sheet[lat_sheet["environment"] == env]
        fig.add_scatter(x=rows["latency_us"], y=rows["ecdf"], mode="lines+markers",
                        name=f"{env} (sheet: {rows['job'].iloc[0]})", legendgroup=env,
                        marker=dict(color=plots.colour(env), symbol="diamond-open"),
                        line=dict(color=plots.colour(env), dash="dash"), row=1, col=2)
fig.update_xaxes(title_text="read completion latency (us)", row=1, col=1)
if lat_sheet is not None:
    fig.update_xaxes(title_text="latency (us, log)", type="log", row=1, col=2)
fig.update_yaxes(title_text="fraction of I/Os")
fig.update_layout(title="Fig 7: random read latency ECDF (fio percentiles, one run each)", template="plotly_white")
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
