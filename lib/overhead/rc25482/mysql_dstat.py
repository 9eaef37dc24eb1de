"""What dstat recorded during the RC25482 MySQL runs.

CPU per run (Fig 11), the network signature of each configuration, and Table III with what
those counters say.

One ``dstat-run-2000000-*.csv`` per configuration sampled the CPU and the network every second
over all 150 sysbench runs of the folder, with no time stamp per sample. :func:`cpu_runs` cuts
each series into the runs (:func:`overhead.stats.segment_runs`) and pairs them with the sysbench
reports by order; :func:`cpu_curve` gives Fig 11; :func:`network_signature` counts packets and
bytes per transaction, which tell where dstat ran and which network path the traffic took;
:func:`table3` lists the configurations with what the data itself says about them;
:func:`plot_fig11` and :func:`plotly_fig11` draw Fig 11 for the notebook.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from scipy import stats as st

from overhead import plots, stats
from overhead.rc25482.mysql import (
    BASELINE,
    CONFIGURATIONS,
    LABELS,
    LOCAL_UTC_OFFSET,
    MONITOR_METRICS,
    MySQLDataError,
    margin_source,
    order,
    run_order,
)

if TYPE_CHECKING:
    import plotly.graph_objects as go
    from matplotlib.figure import Figure

__all__ = ["cpu_curve", "cpu_runs", "network_signature", "observed_path", "plot_fig11", "plotly_fig11", "table3"]


def _samples(monitor: pd.DataFrame, label: str) -> pd.DataFrame:
    """Return one configuration's dstat samples, wide, in time order, warm-up rows removed."""
    rows = monitor[(monitor["label"] == label).to_numpy(dtype=bool, na_value=False)]
    if rows.empty:
        raise MySQLDataError(f"no dstat samples for {label!r}")
    rows = rows.assign(metric=rows["metric"].astype(str))
    dup = rows.duplicated(["p_session", "p_sample", "metric"])
    if dup.any():
        raise MySQLDataError(f"{label}: {int(dup.sum())} duplicate dstat samples (session, sample, metric)")
    wide = rows.set_index(["p_session", "p_sample", "metric"])["value"].unstack("metric")
    start = rows.drop_duplicates(["p_session", "p_sample"]).set_index(["p_session", "p_sample"])
    wide["started_at"] = start["started_at"]
    wide["warmup"] = start["warmup"].fillna(False).astype(bool)
    wide["host"] = start["host"].astype(object)
    wide = wide.reset_index().sort_values(["p_session", "p_sample"]).reset_index(drop=True)
    if "cpu_idle" not in wide.columns:
        raise MySQLDataError(f"{label}: no cpu_idle samples (load the monitor table with metrics "
                             f"{list(MONITOR_METRICS)})")
    return wide[~wide["warmup"]].reset_index(drop=True)


def cpu_runs(monitor: pd.DataFrame, runs: pd.DataFrame, *, busy_below: float = 95.0, trim: int = 1,
             tolerance: int = 2) -> pd.DataFrame:
    """Cut the dstat samples of each configuration into its 150 sysbench runs, averaged per run.

    Each configuration's samples (dstat's first row per session dropped: it is an average since
    boot) go through :func:`overhead.stats.segment_runs` with ``n_runs`` = the number of sysbench reports and
    ``expected_length`` = their mean total time (60 s at 1 sample/s). The k-th stretch in time
    order is paired with the k-th report in run order (records file 0 first, and in each file
    10, 30, ..., 290 threads). Checks of the pairing (``attrs["checks"]``): in every trial the
    10-thread run must be the least busy (a shift by one run or more moves the minimum), the
    rank correlation of CPU utilisation with threads, and the time from the records file's
    stamp (when the campaign started, local time) to the first stretch.

    CPU utilisation is 100 - idle, i.e. usr + sys + wai + hiq + siq (dstat's six columns of
    ``total cpu usage`` add up to 100; dstat 0.7.2 leaves steal out of its total).

    Parameters
    ----------
    monitor : pandas.DataFrame
        ``load(tidy, "mysql", table="monitor", where={"p_series": SERIES},
        metrics=list(MONITOR_METRICS))``.
    runs : pandas.DataFrame
        :func:`overhead.rc25482.mysql.sysbench_runs`.
    busy_below, trim, tolerance
        Passed to :func:`overhead.stats.segment_runs`.

    Returns
    -------
    pandas.DataFrame
        One row per run: environment, trial, report, threads, tps, n_samples (kept), started_at
        (UTC, first kept sample), length (busy stretch, samples), gap_before, cpu_util (mean
        of 100 - idle), cpu_usr, cpu_sys, cpu_siq, cpu_wait, cpu_hiq, cpu_idle (means), the
        network metrics present (means per second), host (dstat's header). ``attrs``:
        ``samples`` (the kept samples with environment, threads, trial: for pooled statistics)
        and ``checks`` (per configuration: n_runs, spearman_cpu_threads,
        trials_least_busy_at_min_threads, first_run_after_stamp_s, dropped_blips, busy_below,
        trim).
    """
    parts, samples, checks = [], [], []
    # only the columns used, with plain numpy types: filtering Arrow-backed columns is slow
    cols = ["label", "p_session", "p_sample", "metric", "value", "started_at", "warmup", "host"]
    missing = [c for c in cols if c not in monitor.columns]
    if missing:
        raise MySQLDataError(f"monitor rows lack column(s) {missing}")
    monitor = pd.DataFrame({
        "label": monitor["label"].astype("category"), "p_session": monitor["p_session"].to_numpy("int64", na_value=0),
        "p_sample": monitor["p_sample"].to_numpy("int64", na_value=-1), "metric": monitor["metric"].astype("category"),
        "value": monitor["value"].to_numpy("float64", na_value=np.nan), "started_at": monitor["started_at"],
        "warmup": monitor["warmup"].to_numpy(bool, na_value=False), "host": monitor["host"].astype("category")})
    for env, rr in runs.groupby("environment", sort=False):
        rr = rr.sort_values(["trial", "report"]).reset_index(drop=True)
        wide = _samples(monitor, env)
        seg = stats.segment_runs(wide["cpu_idle"], len(rr), busy_below=busy_below,
                           expected_length=float(rr["total_time_s"].mean()), tolerance=tolerance,
                           trim=trim, breaks=wide["p_session"])
        metrics = [m for m in MONITOR_METRICS if m in wide.columns]
        idx = np.concatenate([np.arange(a, b + 1) for a, b in zip(seg["keep_first"], seg["keep_last"], strict=True)])
        run_of = np.repeat(seg["run"].to_numpy(), seg["n_kept"].to_numpy())
        kept = wide.iloc[idx][metrics].reset_index(drop=True)
        kept["cpu_util"] = 100.0 - kept["cpu_idle"]
        kept["run"] = run_of
        means = kept.groupby("run").mean()
        row = pd.DataFrame({"environment": env, "trial": rr["trial"], "report": rr["report"],
                            "threads": rr["threads"], "tps": rr["tps"], "n_samples": seg["n_kept"],
                            "started_at": wide["started_at"].iloc[seg["keep_first"]].to_numpy(),
                            "length": seg["length"], "gap_before": seg["gap_before"]})
        for m in ["cpu_util", *metrics]:
            row[m] = means[m].to_numpy()
        row["host"] = wide["host"].dropna().iloc[0] if wide["host"].notna().any() else pd.NA
        parts.append(row)
        kept = kept.assign(environment=env, trial=rr["trial"].to_numpy()[run_of],
                           threads=rr["threads"].to_numpy()[run_of])
        samples.append(kept)
        rho = float(st.spearmanr(row["cpu_util"], row["threads"]).statistic)
        least = row.loc[row.groupby("trial")["cpu_util"].idxmin(), "threads"]
        stamp = rr["stamp"].min()
        first = pd.Timestamp(row["started_at"].iloc[0])
        after = ((first.tz_convert("UTC").tz_localize(None) + LOCAL_UTC_OFFSET) - stamp).total_seconds() \
            if pd.notna(stamp) and pd.notna(first) else math.nan
        checks.append({"environment": env, "n_runs": len(seg), "spearman_cpu_threads": rho,
                       "trials_least_busy_at_min_threads": int((least == row["threads"].min()).sum()),
                       "first_run_after_stamp_s": after, "dropped_blips": len(seg.attrs["dropped"]),
                       "busy_below": busy_below, "trim": trim})
    out = run_order(pd.concat(parts, ignore_index=True))
    out.attrs["samples"] = pd.concat(samples, ignore_index=True)
    out.attrs["checks"] = order(pd.DataFrame(checks))
    return out


def cpu_curve(cpu: pd.DataFrame, fig10: pd.DataFrame | None = None, baseline: str = BASELINE, *,
              level: float = 0.95) -> pd.DataFrame:
    """Compute Fig 11: mean CPU utilisation and mean throughput per configuration and thread count.

    The statistical unit is the run: a run's CPU utilisation is the mean of its kept 1-s
    samples, and a point is the mean over the 10 runs (SD, 95% CI over runs). The authors'
    results-cpu-*.csv instead pool all samples of the 10 runs; ``cpu_util_pooled_mean`` and
    ``cpu_idle_pooled_sd`` reproduce that statistic for the comparison (:func:`overhead.rc25482.authors.with_authors`).

    Parameters
    ----------
    cpu : pandas.DataFrame
        :func:`cpu_runs` (with its ``attrs["samples"]``).
    fig10 : pandas.DataFrame or None
        :func:`overhead.rc25482.mysql.throughput_curve`; its throughput columns are joined when given.
    baseline, level
        As for :func:`overhead.rc25482.mysql.throughput_curve`. The CPU comparison against native
        is a verdict on the ratio of the mean utilisations (:func:`overhead.stats.curve`; a
        utilisation has no better direction: higher / lower; Holm over the non-native points).

    Returns
    -------
    pandas.DataFrame
        environment, threads, n (runs), n_samples, cpu_util_mean, cpu_util_sd,
        cpu_util_ci95_low, cpu_util_ci95_high (logit-t: a share stays within 0-100%),
        cpu_ci_method, cpu_usr_mean, cpu_sys_mean, cpu_siq_mean, cpu_wait_mean,
        cpu_util_pooled_mean, cpu_idle_pooled_sd, cpu_usr_pooled_mean, cpu_sys_pooled_mean,
        cpu_diff_vs_native_pts (percentage points), cpu_ratio_vs_native, cpu_ratio_low,
        cpu_ratio_high (the verdict's interval), cpu_margin_low_pct, cpu_margin_high_pct,
        cpu_p_difference_holm, cpu_verdict, cpu_trials_needed, cpu_verdict_detail, and
        tps_mean, tps_ci95_low, tps_ci95_high when ``fig10`` is given.
    """
    frame = pd.DataFrame({"environment": cpu["environment"].astype(str), "threads": cpu["threads"],
                          "value": cpu["cpu_util"].astype("float64")})
    c = stats.curve(frame, "threads", baseline, margin=margin_source("cpu_util"), level=level,
                    higher_is_better=None, bounds="percent",
                    order={"environment": [cf.label for cf in CONFIGURATIONS]})
    out = pd.DataFrame({"environment": c["environment"], "threads": c["threads"], "n": c["n"],
                        "cpu_util_mean": c["mean"], "cpu_util_sd": c["sd"],
                        "cpu_util_ci95_low": c["ci_low"], "cpu_util_ci95_high": c["ci_high"],
                        "cpu_ci_method": c["ci_method"]})
    g = cpu.groupby(["environment", "threads"])
    extra = g.agg(n_samples=("n_samples", "sum"), cpu_usr_mean=("cpu_usr", "mean"),
                  cpu_sys_mean=("cpu_sys", "mean"), cpu_siq_mean=("cpu_siq", "mean"),
                  cpu_wait_mean=("cpu_wait", "mean")).reset_index()
    out = out.merge(extra, on=["environment", "threads"])
    samples = cpu.attrs.get("samples")
    if samples is not None and len(samples):
        p = samples.groupby(["environment", "threads"]).agg(
            cpu_util_pooled_mean=("cpu_util", "mean"), cpu_idle_pooled_sd=("cpu_idle", "std"),
            cpu_usr_pooled_mean=("cpu_usr", "mean"), cpu_sys_pooled_mean=("cpu_sys", "mean")).reset_index()
        out = out.merge(p, on=["environment", "threads"], how="left")
    cmp = pd.DataFrame({"environment": c["environment"], "threads": c["threads"],
                        "cpu_diff_vs_native_pts": c["mean"] - c["mean_baseline"],
                        "cpu_ratio_vs_native": c["ratio"], "cpu_ratio_low": c["ratio_low"],
                        "cpu_ratio_high": c["ratio_high"], "cpu_margin_low_pct": c["margin_low_pct"],
                        "cpu_margin_high_pct": c["margin_high_pct"],
                        "cpu_p_difference_holm": c["p_difference_holm"], "cpu_verdict": c["verdict"],
                        "cpu_trials_needed": c["trials_needed"], "cpu_verdict_detail": c["verdict_detail"]})
    cmp.loc[(cmp["environment"] == baseline).to_numpy(dtype=bool), "cpu_diff_vs_native_pts"] = 0.0
    out = out.merge(cmp, on=["environment", "threads"], how="left")
    if fig10 is not None:
        out = out.merge(fig10[["environment", "threads", "tps_mean", "tps_ci95_low", "tps_ci95_high"]],
                        on=["environment", "threads"], how="left")
    return order(out)


def network_signature(cpu: pd.DataFrame) -> pd.DataFrame:
    """Read what dstat's network counters say about each configuration (runs at >= 150 threads).

    Every transaction of this workload is 16 queries (14 reads, BEGIN and COMMIT), so a server
    that sees each request and each response once counts about 16 packets per transaction in
    each direction, requests small and responses large. A packet counted on several interfaces
    (physical NIC, bridge, veth or tap: dstat's ``net/total`` sums all but lo) is counted
    several times, and its bytes per packet become an average of the two directions.

    Parameters
    ----------
    cpu : pandas.DataFrame
        :func:`cpu_runs`.

    Returns
    -------
    pandas.DataFrame
        environment, packets_per_tx_recv, packets_per_tx_send, bytes_per_packet_recv,
        bytes_per_packet_send, usr_per_sys (cpu_usr / cpu_sys), host.
    """
    hi = cpu[cpu["threads"] >= 150]
    g = hi.groupby("environment", sort=False)
    out = pd.DataFrame({
        "packets_per_tx_recv": g.apply(lambda r: (r["packets_recv"] / r["tps"]).mean(), include_groups=False),
        "packets_per_tx_send": g.apply(lambda r: (r["packets_send"] / r["tps"]).mean(), include_groups=False),
        "bytes_per_packet_recv": g["net_recv"].sum() / g["packets_recv"].sum(),
        "bytes_per_packet_send": g["net_send"].sum() / g["packets_send"].sum(),
        "usr_per_sys": g["cpu_usr"].sum() / g["cpu_sys"].sum(),
        "host": g["host"].first(),
    }).reset_index()
    return order(out)


def observed_path(sig: pd.Series) -> str:
    """Read one :func:`network_signature` row in plain words."""
    per = (sig["packets_per_tx_recv"] + sig["packets_per_tx_send"]) / 2
    copies = per / 16.0
    if abs(copies - 1) < 0.15:
        return "each packet counted once (host NIC only)"
    if abs(copies - 2) < 0.2:
        return "each packet counted twice (NIC + VM tap): dstat ran on the host"
    if abs(copies - 3) < 0.3:
        return "each packet counted three times (NIC, docker0, veth): NAT bridge"
    return f"{copies:.1f} counts per packet"


def table3(runs: pd.DataFrame, cpu: pd.DataFrame | None = None) -> pd.DataFrame:
    """Build Table III: the five MySQL configurations, with what the data says about each.

    Parameters
    ----------
    runs : pandas.DataFrame
        :func:`overhead.rc25482.mysql.sysbench_runs`.
    cpu : pandas.DataFrame or None
        :func:`cpu_runs`; adds the dstat columns when given.

    Returns
    -------
    pandas.DataFrame
        One row per configuration: configuration (the paper's label), network, storage (as
        the paper and the reference README describe them), folder, runs (records files),
        reports, threads, recorded (date of the records files), mode (sysbench's test mode),
        and when ``cpu`` is given: dstat_host (dstat's header), packets_per_tx (mean of both
        directions at >= 150 threads) and observed_network (what that count implies,
        :func:`observed_path`).
    """
    rows = []
    sig = network_signature(cpu).set_index("environment") if cpu is not None else None
    for c in CONFIGURATIONS:
        r = runs[runs["environment"] == c.label]
        row = {"configuration": c.label, "network": c.network, "storage": c.storage, "folder": c.folder,
               "runs": int(r["trial"].nunique()), "reports": len(r),
               "threads": f"{r['threads'].min()}-{r['threads'].max()} step 20" if len(r) else "",
               "recorded": r["stamp"].min().strftime("%Y-%m-%d") if len(r) else "",
               "mode": ", ".join(sorted(r["mode"].unique()))}
        if sig is not None and c.label in sig.index:
            s = sig.loc[c.label]
            row.update(dstat_host=str(s["host"]),
                       packets_per_tx=round(float((s["packets_per_tx_recv"] + s["packets_per_tx_send"]) / 2), 1),
                       observed_network=observed_path(s))
        rows.append(row)
    return pd.DataFrame(rows)


# --- figures (drawn for the notebook; the notebook saves and shows them) ---

def plot_fig11(fig11: pd.DataFrame, authors_cpu: pd.DataFrame | None = None) -> Figure:
    """Draw Fig 11: mean throughput against mean CPU utilisation, per thread count.

    Parameters
    ----------
    fig11 : pandas.DataFrame
        :func:`cpu_curve` with the throughput columns (``fig10`` given), and the authors' pooled
        column ``cpu_util_pooled_mean_authors`` when ``authors_cpu`` is not empty
        (:func:`overhead.rc25482.authors.with_authors`).
    authors_cpu : pandas.DataFrame or None
        :func:`overhead.rc25482.authors.read_authors_cpu`; when not empty, the authors' pooled
        CPU values are drawn as black crosses.

    Returns
    -------
    matplotlib.figure.Figure
        One curve per configuration with 95% CIs both ways, an inset expanding saturation, and
        native's and KVM's points at 10, 50, 110 and 290 threads labelled; not saved, shown or
        closed.
    """
    envs = list(LABELS)
    fig, ax = plt.subplots(figsize=(11, 6.4))
    inset = ax.inset_axes([0.06, 0.50, 0.36, 0.44])
    for a in (ax, inset):
        plots.ci_curves(a, fig11, "cpu_util_mean", "tps_mean", "tps_ci95_low", "tps_ci95_high",
                        xlow="cpu_util_ci95_low", xhigh="cpu_util_ci95_high", groups=envs, lw=1.5,
                        label="{group} (n = {n} runs/point)" if a is ax else False)
    if authors_cpu is not None and not authors_cpu.empty:
        m = fig11.dropna(subset="cpu_util_pooled_mean_authors")
        for a in (ax, inset):
            a.scatter(m["cpu_util_pooled_mean_authors"], m["tps_mean"], marker="x", color="black", s=18, lw=0.8,
                      zorder=4, label="authors' results-cpu (pooled samples)" if a is ax else None)
    for env, offset in (("Native", (-16, 6)), ("KVM", (6, -10))):
        rows = fig11[(fig11["environment"] == env) & fig11["threads"].isin([10, 50, 110, 290])]
        for _, r in rows.iterrows():
            ax.annotate(f"{int(r.threads)}", (r.cpu_util_mean, r.tps_mean), textcoords="offset points",
                        xytext=offset, fontsize=7.5, color=plots.colour(env))
    inset.set_xlim(90, 99)
    inset.set_ylim(10800, 13600)
    inset.set_title("saturation (expanded)", fontsize=8)
    inset.set_xlabel("CPU utilisation (%)", fontsize=7)
    inset.set_ylabel("transactions/s", fontsize=7)
    inset.tick_params(labelsize=7)
    ax.indicate_inset_zoom(inset, edgecolor="0.5")
    ax.set_xlabel("CPU utilisation, 100 - idle (% of all 32 hardware threads; KVM: measured on the host)")
    ax.set_ylabel("throughput (transactions/s)")
    ax.set_xlim(0, 102)
    ax.set_ylim(0, 15000)
    ax.set_title("Fig 11: MySQL throughput vs CPU utilisation, per thread count (mean and 95% CI over runs)",
                 fontsize=11)
    ax.legend(loc="lower right", fontsize=8)
    fig.text(0.5, -0.03, "Numbers: sysbench threads. CPU from dstat, cut into the 150 runs per configuration "
             "(one partly idle sample trimmed per end). Read-only runs.", ha="center", fontsize=8)
    fig.tight_layout()
    return fig


def plotly_fig11(fig11: pd.DataFrame) -> go.Figure:
    """Draw the interactive Fig 11: mean throughput against mean CPU utilisation.

    Parameters
    ----------
    fig11 : pandas.DataFrame
        :func:`cpu_curve` with the throughput columns (``fig10`` given).

    Returns
    -------
    plotly.graph_objects.Figure
        One trace per configuration, with 95% CIs both ways as error bars.
    """
    pf = plots.plotly_ci_curves(fig11, "cpu_util_mean", "tps_mean", "tps_ci95_low", "tps_ci95_high",
                                xlow="cpu_util_ci95_low", xhigh="cpu_util_ci95_high", groups=list(LABELS),
                                hover={"threads": "threads", "n runs": "n", "CPU vs native": "cpu_verdict"})
    pf.update_layout(title="Fig 11: MySQL throughput vs CPU utilisation (mean, 95% CI; KVM CPU measured on the host)",
                     template="plotly_white", xaxis_title="CPU utilisation, 100 - idle (%)",
                     yaxis_title="throughput (transactions/s)")
    return pf
