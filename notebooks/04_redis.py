# %% [markdown]
# # RC25482 Section IV-D: Redis, Figs 8-9 and a Little's-law analysis
#
# **What the paper says.** Redis 2.8.13, affinitized to one core; clients keep persistent TCP
# connections, "a mix of 50% read and 50% writes", pipelines of up to 10 requests, 150 million
# keys. Native saturates the single-threaded server "at around 110 k request per second"
# (Fig 8); Docker with host networking is "virtually the same as the native case"; Docker NAT's
# latency is "comparable to native with 4 concurrent connections (51us or 1.05x that of native)"
# and grows to "over 1.11x with 100 connections", and NAT never reaches native's peak; "KVM adds
# approximately 83us of latency to every transaction", reaching native's throughput only beyond
# about 100 connections, which "can be explained by Little's Law" (Fig 9).
#
# **What the data is, and what it is not.** The committed transcripts
# (`redis/results/run_{native,dockerhost,dockerbridge,vm}_<date>.txt`) are **plain
# `redis-benchmark` 2.x**: every invocation runs seven tests (PING_INLINE, PING_BULK, SET, GET,
# LPUSH, LPOP, SADD) of 500,000 requests each, 50-byte values, **one request outstanding per
# connection (no pipelining)** and the default key space, at 1-120 connections. This is not the
# paper's 50/50 pipelined 150M-key workload: **the curve shapes can be compared with the text,
# the values cannot** (and are not expected to match).
#
# **Which tests stand for the paper's workload.** The 50/50 read/write mix is represented by the
# **GET and SET tests of the same invocation taken together ("GET+SET")**: total requests over
# total time of the two tests, i.e. the harmonic mean of their two printed rates (each test
# issues 500,000 requests). GET and SET alone are in the CSVs too; the PING tests measure no
# data operation, LPUSH/LPOP/SADD other data types.
#
# **Statistical unit.** One run = one redis-benchmark invocation at one connection count
# (`Run #k: Connections C` in the transcripts). Each point pools all runs at that connection
# count from 1-4 transcripts recorded on 16-17 July 2014 (n = 10-40 runs per point;
# `n_runs`, `n_sessions` in the CSVs).

# %% tags=["parameters"]
tidy_dir = ""
ibm_data = ""
out_dir = ""
reference_dir = ""
compare_published = True

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import plotly.graph_objects as go
from IPython.display import Markdown, display

from overhead import plots, stats
from overhead.rc25482 import load, setup
from overhead.rc25482 import redis as rd
from overhead.reference import published

tidy_dir, out, ref = setup(tidy_dir, ibm_data, out_dir, reference_dir, compare_published)
pd.set_option("display.width", 200, "display.max_columns", 30, "display.precision", 4)

# %%
raw = load(tidy_dir, "redis")
runs = rd.run_throughput(raw)
bounds = rd.latency_bounds(raw)
pub = rd.published_values(published(ref)) if ref is not None else {}
ENVS = list(rd.ENVIRONMENTS)
W = rd.PRIMARY
print(f"{raw['source'].str.split(':').str[0].nunique()} transcripts, {len(runs[runs.workload == W])} "
      f"GET+SET runs;", "published values:", "none (no reference folder)" if not pub else sorted(pub))
display(runs[runs.workload == W].groupby("environment")
        .agg(runs=("throughput", "size"), sessions=("session", "nunique"),
             connections=("connections", lambda s: f"{s.min()}-{s.max()} ({s.nunique()} levels)")).loc[ENVS])

# %% [markdown]
# ## Fig 8: throughput vs client connections
#
# Mean over runs with a 95% confidence interval per point (Student-t where a Shapiro-Wilk check
# does not reject normality, bootstrap BCa otherwise; `ci_method` in the CSV). The right panel
# gives each environment's throughput relative to native with a bootstrap 95% CI; a filled
# marker means the Welch test against native is significant after Holm's correction over all
# 54 non-native points of the workload, a hollow one means "no significant difference".

# %%
fig8 = rd.throughput_curve(runs)
fig8.to_csv(out / "fig08.csv", index=False)
f8 = fig8[fig8["workload"] == W]
display(f8.pivot(index="connections", columns="environment", values="throughput_mean")[ENVS].round(0))
display(f8[f8["environment"] != "Native"].pivot(index="connections", columns="environment",
                                               values="verdict")[ENVS[1:]])


# %%
def n_range(frame, env):
    n = frame.loc[frame["environment"] == env, "n_runs"]
    return f"{n.min()}" if n.min() == n.max() else f"{n.min()}-{n.max()}"


def curve_panel(ax, frame, mean, low, high, scale=1.0, offset=0.0):
    """Mean with 95% CI error bars per environment (slightly offset so bars do not hide each other)."""
    for i, env in enumerate(ENVS):
        rows = frame[frame["environment"] == env]
        x = rows["connections"] * (1 + offset * (i - 1.5))
        y = rows[mean] / scale
        ax.errorbar(x, y, yerr=[y - rows[low] / scale, rows[high] / scale - y], color=plots.colour(env),
                    marker=plots.marker(env), ms=4.5, lw=1.4, capsize=2, elinewidth=0.9,
                    label=f"{env} (n = {n_range(frame, env)} runs/point)")


fig, (ax, bx) = plt.subplots(1, 2, figsize=(13, 5), gridspec_kw={"width_ratios": [1.35, 1]})
curve_panel(ax, f8, "throughput_mean", "throughput_ci95_low", "throughput_ci95_high", scale=1000)
if "sat:Native" in pub:
    ax.axhline(pub["sat:Native"][0] / 1000, color="black", ls=":", lw=1)
    ax.text(60, 123, "dotted: paper, native saturates at ~110k req/s (different workload)", ha="center",
            va="center", fontsize=8)
ax.set_xlabel("client connections (one request outstanding each)")
ax.set_ylabel("throughput (thousand requests/s)")
ax.set_title("Fig 8: Redis GET+SET throughput, mean and 95% CI", fontsize=11)
ax.set_xlim(0, 123)
ax.set_ylim(0, 130)
ax.legend(loc="lower right", fontsize=8.5)
for env in ENVS[1:]:
    rows = f8[f8["environment"] == env]
    sig = rows["welch_p_holm"] < 0.05
    col = plots.colour(env)
    bx.errorbar(rows["connections"], rows["ratio_vs_native"],
                yerr=[rows["ratio_vs_native"] - rows["ratio_ci95_low"], rows["ratio_ci95_high"] - rows["ratio_vs_native"]],
                color=col, lw=1.2, capsize=2, elinewidth=0.8, fmt="-")
    bx.scatter(rows.loc[sig, "connections"], rows.loc[sig, "ratio_vs_native"], color=col,
               marker=plots.marker(env), s=28, zorder=3, label=f"{env}: significant (Holm)")
    bx.scatter(rows.loc[~sig, "connections"], rows.loc[~sig, "ratio_vs_native"], facecolor="white", edgecolor=col,
               marker=plots.marker(env), s=28, zorder=3, label=f"{env}: no significant difference")
bx.axhline(1.0, color=plots.colour("Native"), lw=1)
bx.set_xlabel("client connections")
bx.set_ylabel("throughput / native throughput")
bx.set_title("Relative to native (bootstrap 95% CI)", fontsize=11)
bx.set_xlim(0, 123)
bx.legend(fontsize=7.5, loc="lower right", ncol=1)
fig.text(0.01, -0.03, "Workload: redis-benchmark 2.x GET and SET tests (500,000 requests each, no pipelining), "
         "not the paper's 50/50 pipelined 150M-key load: shapes comparable, values not.\n"
         "Throughput = total requests / total time of the two tests per run; runs pooled over 1-4 transcripts "
         "per environment.", fontsize=8, va="top")
fig.tight_layout()
plots.save(fig, out, "fig08")
plt.show()


# %%
def plotly_curves(frame, mean, low, high, ytitle, title, scale=1.0):
    fig = go.Figure()
    for env in ENVS:
        rows = frame[frame["environment"] == env]
        y = rows[mean] / scale
        fig.add_scatter(x=rows["connections"], y=y, name=env, mode="lines+markers",
                        **plots.plotly_style(env),
                        error_y=plots.plotly_ci(y, rows[low] / scale, rows[high] / scale),
                        customdata=np.stack([rows["n_runs"], rows["verdict"].astype(str),
                                             rows["ratio_vs_native"]], axis=-1),
                        hovertemplate=f"{env}<br>N=%{{x}}: %{{y:.1f}}<br>n=%{{customdata[0]}} runs"
                                      "<br>x%{customdata[2]:.3f} vs native: %{customdata[1]}<extra></extra>")
    fig.update_layout(title=title, xaxis_title="client connections", yaxis_title=ytitle, template="plotly_white")
    return fig


plots.save_html(plotly_curves(f8, "throughput_mean", "throughput_ci95_low", "throughput_ci95_high",
                              "requests/s", "Fig 8: Redis GET+SET throughput (mean, 95% CI)"), out, "fig08")

# %% [markdown]
# **Reading Fig 8.** The shapes follow the paper. Native climbs almost linearly to about
# 93k req/s at 5 connections and flattens at about 108k req/s from 10-15 connections on (the
# paper: ~110k; the match is partly luck, the workloads differ). Docker net=host tracks native:
# only 2 of its 18 points differ significantly after Holm's correction, in opposite directions
# (+4.9% at 10, -6.9% at 30 connections). Docker NAT saturates about 25% lower (~81k req/s).
# KVM starts at 57% of native at one connection, 37% at 4, and approaches native only slowly:
# 90% of native's plateau needs about 88 connections under KVM against 7 natively
# (redis_littles below); even at 100-120 connections KVM stays 7-12% below native, significantly,
# where the paper calls the two "practically identical".

# %% [markdown]
# ## Fig 9: latency vs client connections
#
# redis-benchmark 2.x prints **no average latency**, only the share of requests per whole
# millisecond (latencies truncated to whole ms: `99.95% <= 1 milliseconds`), far too coarse for
# latencies of 50-1500 us. The latency plotted is the one **Little's law implies** for this closed
# loop, **R = N / X** (N connections, each with one request outstanding; X the throughput),
# per run, then mean and 95% CI over runs. It is labelled "implied" throughout.
#
# The millisecond buckets still bound each run's mean measured latency:
# E[floor(L)] <= E[L] < E[floor(L)] + 1 ms (`bucket_low_us`, `bucket_high_us`). The small panels
# show that band. It informs in two places: for Docker NAT at 50+ connections its lower edge rises
# (up to 750 us at 120: many requests take over 1 ms), and for native and Docker net=host at
# 110-120 connections the implied latency lies **above** the band's upper edge in most runs (in
# a few already at 100; `n_implied_above_bound`): there N / X exceeds the latency
# redis-benchmark measures per request. N / X counts the whole cycle of a connection, including
# the time the single-threaded benchmark client takes to get back to it (redis-benchmark starts
# its clock when it writes the request, not when the previous reply arrived), so near
# saturation the implied latency includes client-side queueing: at 110-120 connections it
# exceeds native's measured per-request latency by at least 5-10%. Below 100 connections every
# run's N / X lies inside its band, and no run anywhere falls below the band's lower edge (as
# Little's law requires).

# %%
fig9 = rd.latency_curve(runs[runs["workload"] == W], bounds, published=pub)
fig9.to_csv(out / "fig09.csv", index=False)
f9 = fig9[fig9["workload"] == W]
display(f9.pivot(index="connections", columns="environment", values="latency_us_mean")[ENVS].round(1))
display(f9[f9["connections"] >= 90].pivot(index="connections", columns="environment",
                                          values="n_implied_above_bound")[ENVS])

# %%
fig = plt.figure(figsize=(13.5, 5.6))
gs = fig.add_gridspec(2, 4, width_ratios=[1.6, 1.6, 1, 1], hspace=0.45, wspace=0.35)
ax = fig.add_subplot(gs[:, :2])
curve_panel(ax, f9, "latency_us_mean", "latency_us_ci95_low", "latency_us_ci95_high")
if "lat4:Docker NAT" in pub:
    ax.plot([4], [pub["lat4:Docker NAT"][0]], marker="*", ms=12, color="black", ls="none", zorder=10,
            label="paper: Docker NAT 51 us at N=4")
ax.set_xlabel("client connections (one request outstanding each)")
ax.set_ylabel("implied latency R = N / X (us)")
ax.set_title("Fig 9: Redis GET+SET latency (Little's law), mean and 95% CI", fontsize=11)
ax.set_xlim(0, 123)
ax.set_ylim(0, 1600)
ax.legend(loc="upper left", fontsize=8.5)
littles_tab = rd.littles_summary(runs, W, published=pub)
kvm_add = littles_tab[(littles_tab["key"] == "added") & (littles_tab["environment"] == "KVM")].iloc[0]
ax.text(0.97, 0.03, f"KVM - Native, N <= {littles_tab.attrs['unsaturated_max']:g}: "
        f"+{kvm_add['estimate']:.0f} us [{kvm_add['ci95_low']:.0f}, {kvm_add['ci95_high']:.0f}] per request"
        + ("\n(paper: ~83 us, different workload)" if "added:KVM" in pub else ""),
        transform=ax.transAxes, ha="right", va="bottom", fontsize=8)
for i, env in enumerate(ENVS):
    sx = fig.add_subplot(gs[i // 2, 2 + i % 2])
    rows = f9[f9["environment"] == env]
    sx.fill_between(rows["connections"], rows["bucket_low_us"], rows["bucket_high_us"], color="0.85",
                    label="bucket bound on mean")
    sx.plot(rows["connections"], rows["latency_us_mean"], color=plots.colour(env), marker=plots.marker(env), ms=3,
            lw=1.2, label="implied N/X")
    sx.set_title(env, fontsize=9, color=plots.colour(env))
    sx.set_ylim(0, 1800)
    sx.set_xlim(0, 123)
    sx.tick_params(labelsize=7)
    if i % 2 == 0:
        sx.set_ylabel("us", fontsize=8)
    if i // 2 == 1:
        sx.set_xlabel("connections", fontsize=8)
    if i == 0:
        sx.legend(fontsize=6.5, loc="upper left")
fig.text(0.01, -0.02, "Latency is implied by Little's law (closed loop: R = N / X), not measured: redis-benchmark "
         "2.x prints only whole-millisecond buckets. Grey bands: the bound those buckets put on each run's mean\n"
         "measured latency, [E floor(L), E floor(L) + 1 ms). Same workload caveat as Fig 8 (GET+SET, no pipelining): "
         "shapes comparable with the paper, values not.", fontsize=8, va="top")
plots.save(fig, out, "fig09")
plt.show()

# %%
fig = plotly_curves(f9, "latency_us_mean", "latency_us_ci95_low", "latency_us_ci95_high",
                    "implied latency N/X (us)", "Fig 9: Redis GET+SET implied latency (Little's law), mean and 95% CI")
for env in ENVS:
    rows = f9[f9["environment"] == env]
    fig.add_scatter(x=list(rows["connections"]) + list(rows["connections"][::-1]),
                    y=list(rows["bucket_high_us"]) + list(rows["bucket_low_us"][::-1]), fill="toself",
                    fillcolor=plots.colour(env), opacity=0.12, line=dict(width=0), name=f"{env}: bucket bound",
                    visible="legendonly", hoverinfo="skip")
plots.save_html(fig, out, "fig09")

# %% [markdown]
# ## Little's-law analysis
#
# From the same runs (`stats.littles_table` with latency implied, since none is measured; the
# law is used here, not checked: with R = N / X the residual N - X R is zero by construction).
#
# - **Added latency per request**: below native's knee (native not yet saturated, N <= 5) the
#   implied latency of an environment minus native's is a per-request cost rather than queueing.
#   Estimated by one regression over both environments' runs, R = a + b N + delta [env]
#   (`stats.added_latency`, HC3 robust 95% CI), and at single points by Welch intervals.
# - **Saturation throughput**: the plateau (mean of the per-level means within 5% of the peak,
#   with a t interval over the runs at those levels) and the asymptote of X = Xmax N / (K + N).
# - **Concurrency needed**: where each curve reaches 90% of its own plateau, and 90% of native's.

# %%
littles_tab.to_csv(out / "redis_littles.csv", index=False)
shown = rd.littles_display(littles_tab)
(out / "redis_littles.md").write_text(
    "Little's-law analysis of the Redis GET+SET runs (implied latency R = N / X; 95% CIs; published "
    "values from the paper's text, a different workload)\n\n" + stats.to_markdown(shown))
display(Markdown(stats.to_markdown(shown)))

# %% [markdown]
# **Reading the analysis.**
#
# - **KVM adds about 81 us per request** [76, 86] below saturation (N <= 5), against the
#   paper's "approximately 83us"; single points give +49 us at 1 connection and +93 us at 4. The
#   per-request cost makes KVM need far more concurrency: 90% of native's plateau is reached at
#   about 88 connections (7 natively), which is the Little's-law argument of the paper: with a
#   higher R, the same X needs a larger N = X R. KVM's own plateau (~96k req/s) stays below
#   native's (~108k) in these runs.
# - **Docker NAT** adds about 26 us per request below saturation; its latency ratio to native is
#   1.31 [1.25, 1.36] at 4 connections (paper: 1.05x, 51 us; here 71 us) and 1.28 [1.23, 1.32] at
#   100 (paper: "over 1.11x"). The direction matches the text; the size does not, as expected with
#   a different workload. NAT's plateau (~81k req/s) never reaches 90% of native's.
# - **Docker net=host** is within a few us of native (+1.4 us [-0.4, 3.2], no significant
#   difference).
# - **Native saturates at about 108k req/s** [107k, 109k] (paper: ~110k, -1.7%). The paper puts
#   this down to the single-threaded server's CPU; with a single-threaded redis-benchmark client
#   and N / X exceeding the measured request latency near saturation (Fig 9), these data cannot
#   tell whether the server or the client saturates first.
# - The plateau's interval treats the runs at all plateau levels as repeated measurements of one
#   saturated throughput; runs of one transcript are not independent of each other (same boot,
#   same day), so all intervals here are, if anything, too narrow.

# %% [markdown]
# ## Per-point significance
#
# Welch's t test over runs at each connection count against native, Holm-corrected over the 54
# comparisons of the workload: the `verdict` column of fig08.csv (throughput; GET and SET alone
# are further families there) and fig09.csv (implied latency, GET+SET).

# %%
v = f8[f8["environment"] != "Native"].groupby("environment")["verdict"].value_counts().unstack(fill_value=0)
display(v.loc[ENVS[1:]])
