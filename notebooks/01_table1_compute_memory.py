# %% [markdown]
# # RC25482 Sections III-A to III-D: compute and memory (Tables I and II)
#
# **What the paper says.** Table I gives PXZ, Linpack, STREAM and RandomAccess results on Linux
# (native), Docker and KVM (untuned and tuned) on a two-socket Xeon E5-2665 server. Native and
# Docker are "almost identical" for Linpack; untuned KVM is "markedly worse" and tuning (vCPU
# pinning, exposing the cache topology) brings it "nearly to par with native". For STREAM the
# three environments are "almost identical, with the median data exhibiting a difference of only
# 1.4%". RandomAccess "has the same overheads for both virtualized and non-virtualized
# environments". For PXZ "KVM is 22% slower". Table II defines the four STREAM kernels.
#
# **What the data is.** Ten trials per cell, two sockets, from the authors' logs:
# Linpack `linpack/results/{linux,docker,vm}.two-socket.interleavedalloc.log` (KVM-untuned from the
# `vm` file) and, for KVM-tuned, the last complete 10-trial block of `linpack/results/vm.log`;
# STREAM `Stream/results/*.two-socket.interleavedalloc.log`; RandomAccess the files named
# `*.single-socket.localalloc.log`, which hold the **two-socket** runs (their headers say
# `--physcpubind=0-31 --interleave=0,1`). **PXZ has no data anywhere** in the repository.
# Units are those the paper prints: Linpack GFLOPS, RandomAccess GUPS (10^9 updates/s),
# STREAM GB/s (10^9 bytes/s).

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
from IPython.display import Markdown, display

from overhead import export, plots, prose
from overhead.prose import num, pct, show, span
from overhead.rc25482 import compute, setup
from overhead.rc25482.published import table1_published

tidy_dir, out, paper = setup(tidy_dir, ibm_data, out_dir, published_values, compare_published)
if paper is None:
    print("compare_published=False: the published columns stay empty")

# %% [markdown]
# ## The trials
#
# One row per trial, in the printed units. `in_table` marks what Table I averages; the aborted
# 6-trial tuned-KVM Linpack block of `vm.log` (lines 173-178) is kept as its own view.
# `outlier` is `stats.flag_outliers` (modified z-score > 3.5 within workload, environment and
# block): a flag, never a deletion.

# %%
tables = compute.authors_tables(tidy_dir, paper)  # table1_trials, table1
trials = tables["table1_trials"]
export.write_table(trials, out, "table1_trials")
display(trials.groupby(["workload", "environment", "view"], sort=False)
        .agg(n=("value", "size"), flagged=("outlier", lambda s: int(s.fillna(False).sum())))
        .reset_index())

# %% [markdown]
# ## Table I
#
# `sd` is the sample SD (ddof = 1); `sd_population` (ddof = 0) is beside it because **the
# authors' STREAM summaries use the population SD** (their `munge.awk` divides by N), while their
# Linpack and RandomAccess SDs are sample SDs (Excel STDEV). The comparison with the published SD
# (`sd_matching_published`, `sd_pct_diff_vs_published`) uses the authors' definition in each
# row. The 95% CI of the mean is the log-t interval (`ci_method`: a rate's interval stays
# positive).
#
# **Against native, every cell has a verdict** (`verdict`, and in words `verdict_detail`),
# decided on one 95% interval of the ratio of the means (Fieller's, `delta_ci_method`), printed as
# the percent difference `delta_ci95_low` to `delta_ci95_high`, and an equivalence margin
# (`margin_low_pct`, `margin_high_pct`, `margin_reason`: rule `cpu-memory` of
# `data/reference/margins.yml`, the paper's "almost identical" made checkable). *Equivalent*: the
# interval lies inside the margin. *Slower* or *faster*: it excludes 0%, no difference;
# `beyond_margin` says whether it also lies wholly beyond the margin. *Inconclusive*: it holds
# both no difference and differences beyond the margin; `trials_needed` is about how many trials
# per side would decide it. A test that does not reject is never read as sameness.
# `p_difference_holm` is the test of no difference on the same scale, Holm-corrected over all 13
# comparisons of the table.
#
# The published values are the authors' spreadsheets (`linpack.xlsx`, `gups.xlsx`,
# `stream-triad.xlsx`); the printed Table I was an image and is missing from the text, so these
# are "likely the Table I values", not verified against the printed table.

# %%
published = table1_published(paper, include_open=True) if paper is not None else None
table1 = tables["table1"]
export.write_table(table1, out, "table1", formats=["csv"])  # its shown form below
display(table1[compute.TABLE1_COLUMNS + ["unit", "sd_population", "delta_ci95_low", "delta_ci95_high",
                                         "verdict", "trials_needed", "pct_diff_vs_published"]])

# %%
if published is not None:
    measured = table1[table1["n"] > 0]
    worst = measured["pct_diff_vs_published"].abs().max()
    sd_worst = measured["sd_pct_diff_vs_published"].abs().max()
    print(f"{len(measured)} cells with data; largest |mean - spreadsheet| = {worst:.4f}% ; "
          f"largest |SD - spreadsheet SD| (matching definition) = {sd_worst:.4f}%")
    stream_rows = measured[measured["workload"].str.startswith("STREAM")]
    print("STREAM, sample SD vs spreadsheet (population) SD: up to "
          f"{(100 * (stream_rows['sd'] / stream_rows['published_sd'] - 1)).abs().max():.1f}% apart "
          "(the factor sqrt(10/9) = 1.054)")

# %% [markdown]
# ### Linpack under KVM: the outlier and the aborted block

# %%
views = compute.linpack_views(trials)
lo = compute.linpack_outlier(trials, table1, views, paper)
show(f"""**Data caveat.** One trial of the *untuned* KVM block (trial {lo['trial']}, line {lo['line']} of
`{lo['file']}`) ran at {num(lo['value'], 1)} GFLOPS against about {num(lo['others_mean'], 1)} for the
other {lo['others']}. It is flagged (modified z about {num(lo['mod_z'])}) and **kept** in the Table I
cell, which is why that cell's SD is {num(lo['sd'], 2)} and its 95% CI runs from {num(lo['ci_low'], 1)} to
{num(lo['ci_high'], 1)} GFLOPS. The
authors' spreadsheet has {num(lo['sheet_mean'], 2)} ({num(lo['sheet_sd'], 2)}), {lo['sheet_what']}; the
value printed in the paper could not be confirmed from any text source. The second view below,
without the flagged trial, is a sensitivity check and **not** Table I. The tuned-KVM cell is the
last complete block of `vm.log`; an earlier block was aborted after {lo['n_aborted']} trials and is
shown separately, not averaged in.""")
export.write_table(views, out, "table1_linpack_views")
display(views)
display(trials[(trials["workload"] == "Linpack") & trials["environment"].str.startswith("KVM")]
        [["environment", "view", "trial", "value", "mod_z", "outlier", "source"]])

# %% [markdown]
# ### Table I in the paper's style
#
# Each cell: mean (difference from native) [sample SD]; n; 95% CI; the verdict against native
# with the 95% interval of the difference it was decided on; the authors' spreadsheet value [SD]
# with the percent difference ("pop." = population SD). Written as table1.md, table1.tex and
# table1.html.

# %%
grid = compute.table1_display(trials, table1)
UNITS_NOTE = compute.UNITS_NOTE
NOTES = compute.table1_notes(trials, table1, views, published=published is not None)
written = export.write_table(
    table1, out, "table1", shown=grid, caption="Table I: compute and memory (RC25482). " + UNITS_NOTE,
    notes=NOTES[1:], formats=["md", "tex", "html"],
    latex={"label": "tab:rc25482-table1", "wide": True, "size": "footnotesize",
           "widths": {grid.index.name: "2.1cm", **{c: "3.7cm" for c in grid.columns}}})
md = written["md"].read_text()
display(Markdown(md))

# %% [markdown]
# ## Table I as bars
#
# Not in the paper; one panel per workload, bars from zero (so equal-looking bars *are* equal to
# within a few percent), the 95% CI as error bars, every trial as a dot (flagged trials circled
# in red, kept), and the authors' spreadsheet value as a black bar. The label above each bar is
# the difference from native and, in brackets, its verdict ("equiv." = equivalent within the
# margin; the intervals are in Table I).

# %%
fig = compute.plot_table1_bars(table1, trials)
plots.save(fig, out, "table1_bars")
plt.show()

# %% [markdown]
# ## STREAM: "a difference of only 1.4%"

# %%
spread = compute.stream_median_spread(trials)
sm = compute.stream_medians(spread, table1)
show(f"""The text's number {sm['reproduced']} for **Triad** (the kernel of the authors'
`stream-triad.xlsx` chart): the medians of native, Docker and KVM differ by {pct(sm['triad'], 2)}.
For Copy and Scale the spread is about {span(sm['copy_scale_low'], sm['copy_scale_high'], unit='%')},
because the untuned VM is about {span(sm['kvm_slower_low'], sm['kvm_slower_high'], unit='%')} slower there:
{sm['kvm_verdict']}; see Table I.""")
display(spread)

# %% [markdown]
# ## Table II: the STREAM kernels
#
# **These are definitions from the STREAM benchmark itself (McCalpin), not measurements**:
# bytes per iteration count the 8-byte words each kernel reads and writes (no write-allocate
# traffic), FLOPs the floating-point operations of one iteration. Below it, the achieved
# iteration and FLOP rates *derived* from the measured bandwidth (bandwidth / bytes x FLOPs).

# %%
table2 = compute.table2()
t2 = table2.set_index("operation")[["kernel", "bytes_per_iteration", "flops_per_iteration"]]
t2.columns = ["kernel", "bytes/iteration", "FLOPs/iteration"]
t2 = t2.astype(str)
note2 = "Definitions of the STREAM benchmark (8-byte words), not measurements."
export.write_table(table2, out, "table2", shown=t2, caption="Table II: STREAM kernels (RC25482). " + note2,
                   formats=export.FORMATS, latex={"label": "tab:rc25482-table2"})
display(t2)
derived = compute.table2_derived(table1)
export.write_table(derived, out, "table2_derived")
sr = compute.stream_rates(derived, table1)
show(f"""STREAM is memory-bound, so it does {span(sr['gflops_low'], sr['gflops_high'])} GFLOP/s on a
machine whose Linpack rate is {prose.sig(sr['linpack'], 2)} GFLOPS.""")
display(derived.pivot(index="operation", columns="environment", values="gflops")
        .reindex(["Copy", "Scale", "Add", "Triad"]).round(3))

# %% [markdown]
# ## Paper claims against the data

# %%
with pd.option_context("display.max_colwidth", 200):
    display(compute.claims(table1, views, spread))
print("files written:", sorted(p.name for p in out.glob("table[12]*")))


# %% [markdown]
# ## Live: Table I measured on this machine
#
# With the parameter `campaign` (a campaign's name such as `local-quick`, or its YAML file;
# `campaign_tidy` is the folder of tidy trees, default `data/tidy`) this section rebuilds
# Table I from that campaign's runs into `figures/<campaign>/` (table1): PXZ, Linpack, RandomAccess and STREAM (HPCC's StarSTREAM, per process, and MPIRandomAccess).
# Each row: the live mean with its 95% CI and n, the percent difference from native with its
# interval and verdict, and beside it the authors' value and percent difference
# for the environment the live one stands for. A VM under TCG is emulation and is never set
# beside the authors' KVM as if it were KVM. `make demo` runs this on `local-quick`.

# %%
if campaign:
    from overhead.rc25482 import live

    lv, live_tables, live_figures = live.section(campaign, "compute", authors=tidy_dir,
                                                 tidy_root=campaign_tidy or None, out_root=out.parent)
    display(live.where(lv))
    for stem, frame in live_tables.items():
        print(stem, "->", lv.out / f"{stem}.csv")
        display(frame if stem.endswith("littles") else live.display_table(frame))
    plt.show()
else:
    print("no campaign given (parameter `campaign`): the live section is skipped")
