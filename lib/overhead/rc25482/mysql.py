"""Section IV-E of RC25482, MySQL: the data behind Table III and Figs 10-13.

The authors ran sysbench 0.4.12's OLTP test against MySQL 5.5.37 in five configurations
(folders under ``mysql/results/performance-governor/``, Table III). Each folder holds ten
``records-<stamp>-<k>`` files (k = 0..9, one per repetition, ``trial`` = k + 1), each with 15
sysbench reports at 10, 30, ..., 290 threads run one after the other, and one
``dstat-run-2000000-*.csv`` that recorded the CPU (1-s samples, no timestamps per sample) over
all 150 runs of the folder.

What this module computes (all from the tidy tables of :func:`overhead.rc25482.load`):

- :func:`sysbench_runs`: one row per sysbench run (throughput, latencies, counters), checked
  for completeness (10 runs x 15 thread counts per configuration, events = transactions);
- :func:`throughput_curve` (Fig 10), :func:`latency_curve` (Fig 12, with Little's law),
  :func:`throughput_latency` (Fig 13): per configuration and thread count, mean over the 10
  runs with SD, 95% CI and n, and against native the verdict (:func:`overhead.stats.curve`:
  equivalent within the margin, faster/slower, inconclusive) decided on the 95% interval of the
  ratio of means, with the tests on the same scale and Holm's correction;
- :func:`claims`: the paper's statements about Figs 10-12 beside the reproduced numbers;
- :func:`plot_fig10`, :func:`plot_fig12`, :func:`plot_fig13` (matplotlib) and their
  ``plotly_fig*`` twins: the figures the notebook saves and shows.

What dstat recorded during the runs (CPU per run for Fig 11, the network signature, Table III)
is in :mod:`overhead.rc25482.mysql_dstat`; the authors' own derived files, read only to
cross-check, in :mod:`overhead.rc25482.authors`.

Conventions: throughput in transactions/s (tx/s), latencies in ms in the figure frames (the tidy
table holds seconds), CPU in percent of all CPUs (dstat's ``total cpu usage``). Means are
arithmetic over the 10 runs: every run lasts the same 60 s, so the mean of the rates equals
total transactions over total time (what a harmonic mean would give for equal-work runs).
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from plotly.subplots import make_subplots

from overhead import plots, stats
from overhead.errors import DataError
from overhead.names import BASELINE
from overhead.rc25482 import comparisons, livedata, wording

if TYPE_CHECKING:
    import plotly.graph_objects as go
    from matplotlib.figure import Figure

#: The paper's MySQL data (other p_series are earlier runs).
SERIES = "performance-governor"
THREADS = tuple(range(10, 300, 20))
TRIALS = 10
MS = 1e-3
#: The dstat headers give local time as CDT (UTC-5); the records files' stamps are local too.
LOCAL_UTC_OFFSET = pd.Timedelta(hours=-5)

CPU_METRICS = ("cpu_usr", "cpu_sys", "cpu_idle", "cpu_wait", "cpu_hiq", "cpu_siq")
NET_METRICS = ("packets_recv", "packets_send", "net_recv", "net_send")
#: The dstat metrics this module uses (pass to ``load(..., table="monitor", metrics=...)``).
MONITOR_METRICS = CPU_METRICS + NET_METRICS
SYSBENCH_METRICS = ("transaction_rate", "transactions", "events", "latency_mean", "latency_percentile",
                    "latency_min", "latency_max", "total_time", "event_time_total", "queries_write")


@dataclass(frozen=True)
class Configuration:
    """One row of Table III.

    Attributes
    ----------
    label : str
        The paper's label.
    folder : str
        The authors' folder.
    network, storage : str
        The network and storage set-up.
    """

    label: str
    folder: str
    network: str
    storage: str


#: Table III, named as the reference README and the authors' own plots name the folders.
CONFIGURATIONS: tuple[Configuration, ...] = (
    Configuration("Native", "bml", "host network stack", "host filesystem"),
    Configuration("Docker net=host volume", "docker", "host networking (--net=host)",
                  "volume (-v, bypasses AUFS)"),
    Configuration("Docker NAT volume", "docker-nofs", "NAT (docker0 bridge, veth, iptables)",
                  "volume (-v, bypasses AUFS)"),
    Configuration("Docker NAT AUFS", "docker-nofs-nonet", "NAT (docker0 bridge, veth, iptables)",
                  "AUFS (database inside the container filesystem)"),
    Configuration("KVM", "KVM", "virtio-net with vhost-net",
                  "qcow2 image on virtio block device; 32 pinned vCPUs"),
)
LABELS = tuple(c.label for c in CONFIGURATIONS)
FOLDERS = {c.label: c.folder for c in CONFIGURATIONS}
#: Column order of the authors' plot CSVs (mysql_perfgov_results-*.csv): their four folders.
AUTHORS_PLOT_ORDER = ("Native", "Docker net=host volume", "Docker NAT volume", "Docker NAT AUFS")


class MySQLDataError(DataError):
    """The MySQL rows needed are missing or inconsistent; the message names them."""


def order(frame: pd.DataFrame) -> pd.DataFrame:
    """Sort rows in Table III order of ``environment``, then by threads if there is that column."""
    return stats.order_by(frame, {"environment": LABELS}, then=["threads"] if "threads" in frame.columns else [])


def run_order(frame: pd.DataFrame) -> pd.DataFrame:
    """Sort runs in Table III order, then in the order they ran (trial, report)."""
    return stats.order_by(frame, {"environment": LABELS}, then=["trial", "report"])


# --- sysbench runs ---------------------------------------------------------------------------

def _file(source: pd.Series) -> pd.Series:
    """Return the raw file path of each row (source without its line number)."""
    return source.astype(str).str.rsplit(":", n=1).str[0]


def sysbench_runs(mysql: pd.DataFrame) -> pd.DataFrame:
    """Collect one row per sysbench run of the performance-governor series.

    Parameters
    ----------
    mysql : pandas.DataFrame
        ``load(tidy, "mysql", where={"p_series": "performance-governor"})`` (the measurements
        table; needs label, trial, p_report, p_threads, p_mode, metric, value, source).

    Returns
    -------
    pandas.DataFrame
        environment (the paper's label), folder, trial (1-10: records file k + 1), report (1-15,
        position in the file = run order), threads, tps (tx/s as printed), latency_ms (sysbench's
        per-request avg), latency_p95_ms ("approx. 95 percentile"), latency_min_ms,
        latency_max_ms, transactions, events, total_time_s, event_time_s (total time taken by
        event execution), mode (read-only / read-write as the report says), writes (write
        queries), stamp (the records file's time stamp, local time), source (file:line).

    Raises
    ------
    MySQLDataError
        When a configuration does not have exactly 10 x 15 runs with the thread counts 10..290
        in file order, or when events differ from transactions (then sysbench's "per-request"
        latency would not be per transaction).
    """
    rows = mysql[mysql["metric"].isin(SYSBENCH_METRICS)]
    if rows.empty:
        raise MySQLDataError("no sysbench rows (metrics transaction_rate, latency_mean, ...)")
    if "p_series" in rows.columns:
        other = rows["p_series"].dropna().unique()
        if len(other) and set(map(str, other)) != {SERIES}:
            raise MySQLDataError(f"rows of several series {sorted(map(str, other))}: select p_series={SERIES!r}")
    key = pd.DataFrame({
        "environment": rows["label"].astype(str).to_numpy(),
        "trial": rows["trial"].astype("int64").to_numpy(),
        "report": rows["p_report"].astype("int64").to_numpy(),
        "threads": rows["p_threads"].astype("int64").to_numpy(),
        "mode": rows["p_mode"].astype(str).to_numpy(),
        "file": _file(rows["source"]).to_numpy(),
        "metric": rows["metric"].astype(str).to_numpy(),
        "value": rows["value"].astype("float64").to_numpy(),
    })
    wide = key.pivot_table(index=["environment", "trial", "report", "threads", "mode", "file"],
                           columns="metric", values="value", aggfunc="first").reset_index()
    missing = [m for m in ("transaction_rate", "latency_mean", "transactions", "events", "total_time")
               if m not in wide.columns]
    if missing:
        raise MySQLDataError(f"sysbench metric(s) {missing} missing")
    first_line = rows.groupby(_file(rows["source"]).to_numpy())["source"].first()
    out = pd.DataFrame({
        "environment": wide["environment"],
        "folder": wide["file"].str.split("/").str[-2],
        "trial": wide["trial"], "report": wide["report"], "threads": wide["threads"],
        "tps": wide["transaction_rate"],
        "latency_ms": wide["latency_mean"] / MS,
        "latency_p95_ms": wide.get("latency_percentile", np.nan) / MS,
        "latency_min_ms": wide.get("latency_min", np.nan) / MS,
        "latency_max_ms": wide.get("latency_max", np.nan) / MS,
        "transactions": wide["transactions"], "events": wide["events"],
        "total_time_s": wide["total_time"], "event_time_s": wide.get("event_time_total", np.nan),
        "mode": wide["mode"], "writes": wide.get("queries_write", np.nan),
        "stamp": pd.to_datetime(wide["file"].str.extract(r"records-(\d{14})-\d+$")[0], format="%Y%m%d%H%M%S"),
        "source": wide["file"].map(first_line),
    })
    out = run_order(out)
    for env, g in out.groupby("environment", sort=False):
        if len(g) != TRIALS * len(THREADS) or sorted(g["trial"].unique()) != list(range(1, TRIALS + 1)):
            raise MySQLDataError(f"{env}: expected {TRIALS} runs x {len(THREADS)} thread counts, "
                                 f"found {len(g)} reports in trials {sorted(g['trial'].unique())}")
        for trial, t in g.groupby("trial"):
            if list(t.sort_values("report")["threads"]) != list(THREADS):
                raise MySQLDataError(f"{env} trial {trial}: thread counts in file order are "
                                     f"{list(t.sort_values('report')['threads'])}, expected {list(THREADS)}")
    bad = out[out["events"] != out["transactions"]]
    if len(bad):
        raise MySQLDataError(f"{len(bad)} reports where events != transactions (first {bad.iloc[0]['source']})")
    return out


# --- per-point statistics --------------------------------------------------------------------

#: The comparison columns of Fig 10 (throughput) and Fig 12 (latency) after their own columns:
#: the verdict against native and the interval it is decided on.
VERDICT_COLUMNS = ("ratio_vs_native", "ratio_low", "ratio_high", "ratio_method",
                   "margin_low_pct", "margin_high_pct", "p_difference", "p_difference_holm",
                   "p_equivalence", "verdict", "beyond_margin", "trials_needed", "verdict_detail")


def margin_source(metric: str):
    """Return the equivalence margins of the MySQL comparisons of ``metric`` (margins.yml)."""
    return comparisons.margin_source(benchmark="mysql", metric=metric)


def _curve(runs: pd.DataFrame, value: str, baseline: str | None, level: float, *,
           metric: str = "", higher_is_better: bool | None = None, bounds: str = "auto") -> pd.DataFrame:
    """Compute :func:`overhead.stats.curve` of one runs column over threads, in Table III order.

    Holm's family is every non-baseline point of the frame (all configurations and thread counts).
    """
    frame = pd.DataFrame({"environment": runs["environment"].astype(str), "threads": runs["threads"],
                          "value": runs[value].astype("float64")})
    return stats.curve(frame, "threads", baseline, margin=margin_source(metric) if baseline else None,
                       level=level, higher_is_better=higher_is_better, bounds=bounds,
                       order={"environment": LABELS})


def _verdict_columns(c: pd.DataFrame) -> dict[str, pd.Series]:
    """Return :data:`VERDICT_COLUMNS` from a :func:`overhead.stats.curve` frame."""
    return {"ratio_vs_native": c["ratio"], "ratio_low": c["ratio_low"], "ratio_high": c["ratio_high"],
            "ratio_method": c["ratio_method"], "margin_low_pct": c["margin_low_pct"],
            "margin_high_pct": c["margin_high_pct"], "p_difference": c["p_difference"],
            "p_difference_holm": c["p_difference_holm"], "p_equivalence": c["p_equivalence"],
            "verdict": c["verdict"], "beyond_margin": c["beyond_margin"], "trials_needed": c["trials_needed"],
            "verdict_detail": c["verdict_detail"]}


def throughput_curve(runs: pd.DataFrame, baseline: str = BASELINE, *, level: float = 0.95) -> pd.DataFrame:
    """Compute Fig 10: throughput per configuration and thread count, and the loss against native.

    Parameters
    ----------
    runs : pandas.DataFrame
        :func:`sysbench_runs`.
    baseline : str
        The configuration losses are measured against.
    level : float
        Confidence level of every interval.

    Returns
    -------
    pandas.DataFrame
        environment, threads, n (runs), tps_mean, tps_sd (ddof=1), tps_ci95_low, tps_ci95_high
        (log-t interval of the mean), tps_ci_method, loss_vs_native_pct (100 (1 - mean /
        mean_native): positive = slower than native; 0 for native), loss_ci95_low,
        loss_ci95_high (the verdict's interval of the ratio of means, as a loss), then
        :data:`VERDICT_COLUMNS` (ratio_vs_native and ratio_low/high: that same interval;
        the margin from margins.yml; p_difference_holm: Holm over the 60 non-native points;
        verdict: faster/slower, equivalent, inconclusive, "baseline" for native). The native
        rows have NaN comparison columns.
    """
    c = _curve(runs, "tps", baseline, level, metric="throughput", higher_is_better=True)
    return pd.DataFrame({
        "environment": c["environment"], "threads": c["threads"], "n": c["n"], "tps_mean": c["mean"],
        "tps_sd": c["sd"], "tps_ci95_low": c["ci_low"], "tps_ci95_high": c["ci_high"],
        "tps_ci_method": c["ci_method"],
        # 0.0 - pct, not -pct: the baseline's loss is 0, not -0
        "loss_vs_native_pct": 0.0 - c["pct"], "loss_ci95_low": -c["pct_high"], "loss_ci95_high": -c["pct_low"],
        **_verdict_columns(c)})


def latency_curve(runs: pd.DataFrame, baseline: str = BASELINE, *, level: float = 0.95) -> pd.DataFrame:
    """Compute Fig 12: per-request latency per configuration and thread count, and Little's law.

    sysbench 0.4 times each *event*, and in the OLTP test an event is one transaction (events =
    transactions in every report, checked by :func:`sysbench_runs`), so the "per-request" avg
    is the mean transaction latency R, and with N threads in a closed loop Little's law N = X R
    holds with X the transaction rate. Its residual is computed per point from the means,
    (N - X_mean R_mean) / N, and per run (min and max over the 10 runs).

    Why the residual is small but positive: X R = (transactions / total time) x (event time /
    events) = event time / total time, the average number of threads *inside* a transaction;
    N - X R is the share of the run a thread spends outside one (connecting, starting and
    stopping, between transactions). sysbench prints R rounded to 0.01 ms (relative error up to
    0.005 / R_ms) and X to 0.01 tx/s.

    Parameters
    ----------
    runs : pandas.DataFrame
        :func:`sysbench_runs`.
    baseline, level
        As for :func:`throughput_curve`.

    Returns
    -------
    pandas.DataFrame
        environment, threads, n, latency_ms_mean, latency_ms_sd, latency_ms_ci95_low,
        latency_ms_ci95_high, latency_ci_method, latency_p95_ms_mean, latency_p95_ms_sd,
        latency_p95_ms_ci95_low, latency_p95_ms_ci95_high, tps_mean, littles_xr (X R, threads),
        littles_residual (N - X R, threads), littles_rel_residual_pct (100 (N - X R) / N),
        littles_rel_residual_run_min_pct, littles_rel_residual_run_max_pct,
        implied_latency_ms (N / X), latency_increase_vs_native_pct (100 (R / R_native - 1)) with
        latency_increase_ci95_low/high (the verdict's interval in percent), then
        :data:`VERDICT_COLUMNS` (a higher latency is "slower"; Holm over the non-native points).
    """
    a = _curve(runs, "latency_ms", baseline, level, metric="latency", higher_is_better=False)
    b = _curve(runs, "latency_p95_ms", None, level)
    out = pd.DataFrame({"environment": a["environment"], "threads": a["threads"], "n": a["n"],
                        "latency_ms_mean": a["mean"], "latency_ms_sd": a["sd"],
                        "latency_ms_ci95_low": a["ci_low"], "latency_ms_ci95_high": a["ci_high"],
                        "latency_ci_method": a["ci_method"],
                        "latency_p95_ms_mean": b["mean"].to_numpy(), "latency_p95_ms_sd": b["sd"].to_numpy(),
                        "latency_p95_ms_ci95_low": b["ci_low"].to_numpy(),
                        "latency_p95_ms_ci95_high": b["ci_high"].to_numpy()})
    per_run = runs.assign(rel=stats.littles_law(runs["threads"], runs["tps"],
                                                runs["latency_ms"] * MS)["rel_residual"].to_numpy())
    g = per_run.groupby(["environment", "threads"])
    means = g.agg(tps_mean=("tps", "mean"), lat=("latency_ms", "mean"), rmin=("rel", "min"),
                  rmax=("rel", "max")).reset_index()
    out = out.merge(means, on=["environment", "threads"])
    law = stats.littles_law(out["threads"], out["tps_mean"], out["lat"] * MS)
    out["littles_xr"] = law["xr"].to_numpy()
    out["littles_residual"] = law["residual"].to_numpy()
    out["littles_rel_residual_pct"] = 100 * law["rel_residual"].to_numpy()
    out["littles_rel_residual_run_min_pct"] = 100 * out.pop("rmin")
    out["littles_rel_residual_run_max_pct"] = 100 * out.pop("rmax")
    out["implied_latency_ms"] = law["implied_latency"].to_numpy() / MS
    out = out.drop(columns="lat")
    vs = pd.DataFrame({"environment": a["environment"], "threads": a["threads"],
                       "latency_increase_vs_native_pct": a["pct"], "latency_increase_ci95_low": a["pct_low"],
                       "latency_increase_ci95_high": a["pct_high"], **_verdict_columns(a)})
    out = out.merge(vs, on=["environment", "threads"], how="left")
    return order(out)


def throughput_latency(fig10: pd.DataFrame, fig12: pd.DataFrame) -> pd.DataFrame:
    """Compute Fig 13: the throughput-latency curve of each configuration, parameterized by threads.

    Parameters
    ----------
    fig10 : pandas.DataFrame
        :func:`throughput_curve`.
    fig12 : pandas.DataFrame
        :func:`latency_curve`.

    Returns
    -------
    pandas.DataFrame
        environment, threads, n, tps_mean, tps_ci95_low, tps_ci95_high, latency_ms_mean,
        latency_ms_ci95_low, latency_ms_ci95_high, latency_p95_ms_mean, loss_vs_native_pct,
        loss_ci95_low, loss_ci95_high, tps_ratio_low, tps_ratio_high, tps_margin_low_pct,
        tps_margin_high_pct, tps_verdict, latency_increase_vs_native_pct,
        latency_increase_ci95_low, latency_increase_ci95_high, latency_ratio_low,
        latency_ratio_high, latency_margin_low_pct, latency_margin_high_pct, latency_verdict (all
        from the Fig 10 and Fig 12 frames: each verdict with the interval of the ratio it was
        decided on).
    """
    a = fig10[["environment", "threads", "n", "tps_mean", "tps_ci95_low", "tps_ci95_high", "loss_vs_native_pct",
               "loss_ci95_low", "loss_ci95_high", "ratio_low", "ratio_high", "margin_low_pct", "margin_high_pct",
               "verdict"]].rename(
        columns={"ratio_low": "tps_ratio_low", "ratio_high": "tps_ratio_high", "margin_low_pct": "tps_margin_low_pct",
                 "margin_high_pct": "tps_margin_high_pct", "verdict": "tps_verdict"})
    b = fig12[["environment", "threads", "latency_ms_mean", "latency_ms_ci95_low", "latency_ms_ci95_high",
               "latency_p95_ms_mean", "latency_increase_vs_native_pct", "latency_increase_ci95_low",
               "latency_increase_ci95_high", "ratio_low", "ratio_high", "margin_low_pct", "margin_high_pct",
               "verdict"]].rename(
        columns={"ratio_low": "latency_ratio_low", "ratio_high": "latency_ratio_high",
                 "margin_low_pct": "latency_margin_low_pct", "margin_high_pct": "latency_margin_high_pct",
                 "verdict": "latency_verdict"})
    out = a.merge(b, on=["environment", "threads"], validate="one_to_one")
    return order(out[["environment", "threads", "n", "tps_mean", "tps_ci95_low", "tps_ci95_high",
                       "latency_ms_mean", "latency_ms_ci95_low", "latency_ms_ci95_high", "latency_p95_ms_mean",
                       "loss_vs_native_pct", "loss_ci95_low", "loss_ci95_high", "tps_ratio_low", "tps_ratio_high",
                       "tps_margin_low_pct", "tps_margin_high_pct", "tps_verdict", "latency_increase_vs_native_pct",
                       "latency_increase_ci95_low", "latency_increase_ci95_high", "latency_ratio_low",
                       "latency_ratio_high", "latency_margin_low_pct", "latency_margin_high_pct",
                       "latency_verdict"]])


# --- the paper's statements --------------------------------------------------------------------

_NUM = re.compile(r"[-+]?\d+(?:\.\d+)?")

#: The paper's statements about Fig 10 as numbers: Docker's loss "asymptotically approaching 2%",
#: KVM's "higher than 40% in all measured cases" (used when no published values are given).
PAPER_DOCKER_LOSS_PCT = 2.0
PAPER_KVM_LOSS_PCT = 40.0


def peak_cpu_difference(fig11: pd.DataFrame, cpu: pd.DataFrame, environment: str, *,
                        baseline: str = BASELINE) -> tuple[stats.Interval, pd.Series, pd.Series]:
    """Compare the baseline's peak CPU utilisation with an environment's (Figs 11/12 text).

    Parameters
    ----------
    fig11 : pandas.DataFrame
        :func:`overhead.rc25482.mysql_dstat.cpu_curve`: the peaks are its largest means.
    cpu : pandas.DataFrame
        :func:`overhead.rc25482.mysql_dstat.cpu_runs`: the runs at each peak.
    environment : str
        The configuration compared with the baseline.
    baseline : str
        The configuration whose peak comes first in the difference.

    Returns
    -------
    tuple
        (baseline peak minus the environment's peak, in percentage points, with the Welch 95%
        interval of the runs at the two peaks; the baseline's peak row of ``fig11``; the
        environment's peak row).
    """
    peaks, samples = [], []
    for env in (baseline, environment):
        rows = fig11[fig11["environment"] == env]
        peak = rows.loc[rows["cpu_util_mean"].idxmax()]
        peaks.append(peak)
        samples.append(cpu[(cpu["environment"] == env) & (cpu["threads"] == peak["threads"])]["cpu_util"].to_numpy())
    return stats.welch_difference(*samples), peaks[0], peaks[1]


def peak_cpu_verdict(fig11: pd.DataFrame, cpu: pd.DataFrame, environment: str, *,
                     baseline: str = BASELINE) -> stats.Verdict:
    """Decide an environment's peak CPU utilisation against the baseline's (the runs at each peak).

    Parameters
    ----------
    fig11, cpu, environment, baseline
        As for :func:`peak_cpu_difference`.

    Returns
    -------
    overhead.stats.Verdict
        The environment's peak runs over the baseline's: ratio of the means with its interval,
        decided against the margin of margins.yml (no better direction: higher / lower).
    """
    samples = []
    for env in (environment, baseline):
        rows = fig11[fig11["environment"] == env]
        peak = rows.loc[rows["cpu_util_mean"].idxmax()]
        samples.append(cpu[(cpu["environment"] == env) & (cpu["threads"] == peak["threads"])]["cpu_util"].to_numpy())
    m = comparisons.margin_of(benchmark="mysql", metric="cpu_util")
    return stats.decide(samples[0], samples[1], m, higher_is_better=None)


def pooled_loss(runs: pd.DataFrame, environment: str, from_threads: int, *,
                baseline: str = BASELINE) -> stats.Verdict:
    """Compare an environment's runs at high concurrency, pooled, with the baseline's.

    Parameters
    ----------
    runs : pandas.DataFrame
        One row per run with environment, threads and tps (:func:`sysbench_runs`, or
        :func:`overhead.rc25482.mysql_dstat.cpu_runs`: the same runs in the same order).
    environment : str
        The configuration.
    from_threads : int
        Runs at this many threads or more are pooled.
    baseline : str
        The configuration compared with.

    Returns
    -------
    overhead.stats.Verdict
        The verdict on the ratio of the pooled means (``.interval``: the ratio with its
        interval, :func:`overhead.stats.ratio_interval`; the loss is ``-interval.pct``),
        against the throughput margin of margins.yml. Pooling over thread counts puts the
        differences between them into the variance: the interval is, if anything, too wide.
    """
    sel = runs[runs["threads"] >= from_threads]
    m = comparisons.margin_of(benchmark="mysql", metric="throughput")
    return stats.decide(sel.loc[sel["environment"] == environment, "tps"].to_numpy(),
                        sel.loc[sel["environment"] == baseline, "tps"].to_numpy(), m, higher_is_better=True)


def _published_number(pub: pd.DataFrame | None, metric: str, env: str, default: float) -> tuple[float, str]:
    """Read the number a published-values row states (text kept), else the default from the text."""
    if pub is not None and not pub.empty:
        rows = pub[(pub["metric"] == metric) & (pub["env"].astype(str).str.startswith(env))]
        if len(rows):
            text = str(rows.iloc[0].get("value_text", "") or rows.iloc[0]["value"])
            m = _NUM.search(text)
            return (float(m.group()) if m else default), text
    return default, ""


def claims(fig10: pd.DataFrame, fig11: pd.DataFrame, cpu: pd.DataFrame,
           published: pd.DataFrame | None = None, *, asymptote_from: int = 230) -> pd.DataFrame:
    """Set the paper's statements about Figs 10-12 beside what the data gives.

    - "Docker has similar performance to native, with the difference asymptotically
      approaching 2%": the loss of each Docker configuration over the runs at >=
      ``asymptote_from`` threads (ratio of the pooled means with its interval and verdict,
      :func:`pooled_loss`), and the range of its per-point losses.
    - "KVM has much higher overhead, higher than 40% in all measured cases": KVM's smallest and
      largest per-point loss, with the interval and verdict of the smallest.
    - "native Linux is able to achieve higher peak CPU utilization and Docker is not ...,
      a difference of around 1.5%": the peak (over thread counts) of the mean CPU utilisation of
      native minus that of each Docker configuration, in percentage points, with a Welch 95% CI
      of the difference between the runs at the two peaks; its verdict is decided on the ratio
      of the two peaks' means (:func:`peak_cpu_verdict`).

    Parameters
    ----------
    fig10 : pandas.DataFrame
        :func:`throughput_curve`.
    fig11 : pandas.DataFrame
        :func:`overhead.rc25482.mysql_dstat.cpu_curve`.
    cpu : pandas.DataFrame
        :func:`overhead.rc25482.mysql_dstat.cpu_runs` (one row per run, with tps and cpu_util).
    published : pandas.DataFrame or None
        The published values; None quotes the numbers from the text.
    asymptote_from : int
        The thread count from which runs count towards the asymptote.

    Returns
    -------
    pandas.DataFrame
        claim, environment, paper (text), paper_value, reproduced, ci95_low, ci95_high, unit,
        diff_pct (100 (reproduced / paper_value - 1)), detail, and the comparison with native:
        n, n_baseline, ratio_vs_native, ratio_low, ratio_high (the interval the
        verdict is decided on: for the losses the same as ci95_low/high), margin_low_pct,
        margin_high_pct, verdict, verdict_detail.
    """
    recs = []
    docker = [lab for lab in LABELS if lab.startswith("Docker")]
    asym_paper, asym_text = _published_number(published, "MySQL throughput loss vs native", "Docker",
                                              PAPER_DOCKER_LOSS_PCT)
    for env in docker:
        v = pooled_loss(cpu, env, asymptote_from)
        r = v.interval
        pts = fig10[(fig10["environment"] == env)]
        recs.append({"claim": "Docker loss vs native approaches ~2% at high concurrency", "environment": env,
                     "paper": asym_text or "-> ~2% asymptotically", "paper_value": asym_paper,
                     "reproduced": -r.pct, "ci95_low": -r.pct_high, "ci95_high": -r.pct_low, "unit": "%",
                     "detail": f"runs at >= {asymptote_from} threads pooled (n = {r.n_x} vs {r.n_y}); per-point "
                               f"loss {pts['loss_vs_native_pct'].min():.1f}..{pts['loss_vs_native_pct'].max():.1f}% "
                               f"over 10..290 threads", **_verdict_record(v)})
    kvm_paper, kvm_text = _published_number(published, "MySQL throughput loss vs native", "KVM",
                                            PAPER_KVM_LOSS_PCT)
    k = fig10[fig10["environment"] == "KVM"]
    if len(k):
        lo = k.loc[k["loss_vs_native_pct"].idxmin()]
        hi = k.loc[k["loss_vs_native_pct"].idxmax()]
        recs.append({"claim": "KVM loss vs native > 40% in all cases", "environment": "KVM",
                     "paper": kvm_text or ">40% in all cases", "paper_value": kvm_paper,
                     "reproduced": float(lo["loss_vs_native_pct"]), "ci95_low": float(lo["loss_ci95_low"]),
                     "ci95_high": float(lo["loss_ci95_high"]), "unit": "%",
                     "detail": f"smallest loss at {int(lo['threads'])} threads; largest "
                               f"{hi['loss_vs_native_pct']:.1f}% at {int(hi['threads'])} threads; "
                               f"{int((k['loss_vs_native_pct'] > 40).sum())} of {len(k)} points above 40%",
                     "n": int(lo["n"]), "n_baseline": int(fig10.loc[(fig10["environment"] == BASELINE)
                                                                     & (fig10["threads"] == lo["threads"]), "n"].iloc[0]),
                     "ratio_vs_native": float(lo["ratio_vs_native"]), "ratio_low": float(lo["ratio_low"]),
                     "ratio_high": float(lo["ratio_high"]), "margin_low_pct": float(lo["margin_low_pct"]),
                     "margin_high_pct": float(lo["margin_high_pct"]), "verdict": str(lo["verdict"]),
                     "verdict_detail": str(lo["verdict_detail"])})
    cpu_paper, cpu_text = _published_number(published, "peak CPU utilisation difference native vs Docker", "", 1.5)
    if (fig11["environment"] == BASELINE).any():
        for env in docker:
            diff, npk, pk = peak_cpu_difference(fig11, cpu, env)
            recs.append({"claim": "peak CPU utilisation: native higher than Docker by ~1.5 points",
                         "environment": env, "paper": cpu_text or "~1.5", "paper_value": cpu_paper,
                         "reproduced": diff.estimate, "ci95_low": diff.low, "ci95_high": diff.high,
                         "unit": "% points",
                         "detail": f"native peak {npk['cpu_util_mean']:.2f}% at {int(npk['threads'])} threads, "
                                   f"{env} peak {pk['cpu_util_mean']:.2f}% at {int(pk['threads'])}; Welch CI "
                                   "of the difference; the verdict is on the ratio of the two peaks",
                         **_verdict_record(peak_cpu_verdict(fig11, cpu, env))})
    out = pd.DataFrame(recs)
    out["diff_pct"] = 100.0 * (out["reproduced"] / out["paper_value"] - 1.0)
    out["verdict"] = out["verdict"].astype("string")
    return out[["claim", "environment", "paper", "paper_value", "reproduced", "ci95_low", "ci95_high", "unit",
                "diff_pct", "detail", *CLAIM_VERDICT_COLUMNS]]


#: The comparison columns of :func:`claims`.
CLAIM_VERDICT_COLUMNS = ("n", "n_baseline", "ratio_vs_native", "ratio_low", "ratio_high",
                         "margin_low_pct", "margin_high_pct", "verdict", "verdict_detail")


def _verdict_record(v: stats.Verdict) -> dict:
    """Return the :data:`CLAIM_VERDICT_COLUMNS` of one verdict."""
    return {"n": v.n, "n_baseline": v.n_baseline, "ratio_vs_native": v.interval.ratio,
            "ratio_low": v.interval.low, "ratio_high": v.interval.high,
            "margin_low_pct": v.margin.low_pct, "margin_high_pct": v.margin.high_pct,
            "verdict": v.verdict, "verdict_detail": v.words()}


def authors_tables(tidy_dir: str | os.PathLike[str], paper: pd.DataFrame | None = None, *,
                   runs: pd.DataFrame | None = None,
                   cpu: pd.DataFrame | None = None) -> dict[str, pd.DataFrame]:
    """Compute the section's curves from the authors' tidy data: ``fig10``, ``fig11``, ``fig12``.

    Throughput and latency over sysbench threads from the runs of :data:`SERIES`
    (:func:`sysbench_runs`), and the server CPU over them from dstat
    (:func:`overhead.rc25482.mysql_dstat.cpu_runs`); ``runs`` and ``cpu`` when the caller has
    them. The authors' own plot values (their history's CSVs) are the notebook's to add.
    """
    from overhead.rc25482 import load
    from overhead.rc25482 import mysql_dstat as md

    if runs is None:
        runs = sysbench_runs(load(tidy_dir, "mysql", where={"p_series": SERIES}))
    if cpu is None:
        monitor = load(tidy_dir, "mysql", table="monitor", where={"p_series": SERIES},
                       metrics=list(MONITOR_METRICS))
        cpu = md.cpu_runs(monitor, runs)
    fig10 = throughput_curve(runs)
    return {"fig10": fig10, "fig11": md.cpu_curve(cpu, fig10), "fig12": latency_curve(runs)}


# --- the prose numbers of the notebook (its "Reading ..." paragraphs) ------------------

def mysql_packets(raw: pd.DataFrame, sig: pd.DataFrame) -> dict:
    """Compute the queries and packets of one transaction (the Table III introduction).

    Parameters
    ----------
    raw : pandas.DataFrame
        The sysbench rows (``load(tidy, "mysql", where={"p_series": ...})``).
    sig : pandas.DataFrame
        :func:`overhead.rc25482.mysql_dstat.network_signature`.

    Returns
    -------
    dict
        queries (per transaction), reads (SELECTs per transaction), others (other queries:
        BEGIN and COMMIT), request_b, answer_b (native's bytes per received and sent packet).
    """
    per = raw[raw["metric"].isin(["queries_read", "queries_other", "queries_total", "transactions"])]
    per = per.assign(report=per["source"].astype(str).str.rsplit(":", n=1).str[0] + "#"
                     + per["p_report"].astype(str))
    wide = per.pivot_table(index="report", columns="metric", values="value", aggfunc="first")

    def exact(col: str) -> int:
        ratio = wide[col] / wide["transactions"]
        value = float(ratio.median())
        if (ratio - value).abs().max() > 0.01:
            raise ValueError(f"{col} per transaction varies between reports")
        return int(round(value))

    native = sig.set_index("environment").loc["Native"]
    return {"queries": exact("queries_total"), "reads": exact("queries_read"), "others": exact("queries_other"),
            "request_b": float(native["bytes_per_packet_recv"]), "answer_b": float(native["bytes_per_packet_send"])}


def mysql_counters(sig: pd.DataFrame, queries: int = 16) -> dict:
    """Compute the numbers of "What the counters say" (dstat's network counters per configuration).

    Parameters
    ----------
    sig : pandas.DataFrame
        :func:`overhead.rc25482.mysql_dstat.network_signature`.
    queries : int
        Queries per transaction (packets per transaction of a server that sees each once).

    Returns
    -------
    dict
        kvm_packets (per transaction, mean of both directions), kvm_recv_b, kvm_send_b (bytes
        per packet), kvm_sizes ("equal average sizes" when within 1%), kvm_times (how often a
        packet is counted, in words), native_packets, native_recv_b, native_send_b, kvm_usr_sys,
        others_usr_sys_low/high (usr/sys of the other configurations), aufs_packets, nofs_packets,
        nofs_recv_b, nofs_send_b, nofs_like ("exactly like native and Docker net=host" when its
        packets and sizes are within 1% of both).
    """
    s = sig.set_index("environment")
    packets = (s["packets_per_tx_recv"] + s["packets_per_tx_send"]) / 2
    kvm, native, nofs = s.loc["KVM"], s.loc["Native"], s.loc["Docker NAT volume"]
    others = s.drop(index="KVM")["usr_per_sys"]

    def close(a: float, b: float) -> bool:
        return abs(a / b - 1.0) < 0.01

    like = all(close(packets["Docker NAT volume"], packets[e])
               and close(nofs["bytes_per_packet_recv"], s.loc[e, "bytes_per_packet_recv"])
               and close(nofs["bytes_per_packet_send"], s.loc[e, "bytes_per_packet_send"])
               for e in ("Native", "Docker net=host volume"))
    return {
        "kvm_packets": float(packets["KVM"]), "kvm_recv_b": float(kvm["bytes_per_packet_recv"]),
        "kvm_send_b": float(kvm["bytes_per_packet_send"]),
        "kvm_sizes": ("equal average sizes" if close(kvm["bytes_per_packet_recv"], kvm["bytes_per_packet_send"])
                      else "different average sizes"),
        "kvm_times": wording.times(packets["KVM"] / queries),
        "native_packets": float(packets["Native"]), "native_recv_b": float(native["bytes_per_packet_recv"]),
        "native_send_b": float(native["bytes_per_packet_send"]),
        "kvm_usr_sys": float(kvm["usr_per_sys"]),
        "others_usr_sys_low": float(others.min()), "others_usr_sys_high": float(others.max()),
        "aufs_packets": float(packets["Docker NAT AUFS"]), "aufs_times": wording.times(packets["Docker NAT AUFS"] / queries),
        "nofs_packets": float(packets["Docker NAT volume"]), "nofs_recv_b": float(nofs["bytes_per_packet_recv"]),
        "nofs_send_b": float(nofs["bytes_per_packet_send"]),
        "nofs_like": "exactly like native and Docker net=host" if like else "unlike native and Docker net=host",
    }


def _loss_range(fig10: pd.DataFrame, env: str, from_threads: int = 0) -> tuple[float, float]:
    """Return the smallest and largest loss of ``env`` at >= ``from_threads`` threads."""
    rows = fig10[(fig10["environment"] == env) & (fig10["threads"] >= from_threads)]["loss_vs_native_pct"]
    return float(rows.min()), float(rows.max())


def _claim(claims: pd.DataFrame, start: str, env: str) -> pd.Series:
    """Return the row of :func:`overhead.rc25482.mysql.claims` whose claim starts with ``start``."""
    return wording.one(claims[claims["claim"].str.startswith(start) & (claims["environment"] == env)],
                f"claim {start!r} for {env}")


def fig10_findings(fig10: pd.DataFrame, runs: pd.DataFrame, *, asymptote_from: int = 230,
          aufs_from: int = 130, kvm_from: int = 50) -> dict:
    """Compute the numbers of "Reading Fig 10" (MySQL throughput and loss against native).

    Parameters
    ----------
    fig10 : pandas.DataFrame
        :func:`overhead.rc25482.mysql.throughput_curve` (with the authors' columns when read).
    runs : pandas.DataFrame
        :func:`overhead.rc25482.mysql.sysbench_runs` (for the losses of the runs pooled at high
        concurrency).
    asymptote_from, aufs_from, kvm_from : int
        The thread counts from which the Docker asymptote, Docker NAT AUFS's and KVM's high-load
        losses are read.

    Returns
    -------
    dict
        native_peak, native_peak_at, native_last, last_threads; host_first, host_first_loss,
        host_first_verdict (its verdict in words: :func:`overhead.rc25482.comparisons.plain`);
        host_max, host_max_at; host_high_low, host_high_high (at >= asymptote_from); host_pooled
        (+ _low, _high), host_pooled_words (the pooled loss's verdict in words); host_verdicts
        (where each verdict holds along the curve: :func:`verdict_runs`); nat_high_low,
        nat_high_high, nat_pooled,
        paper_asym (the paper's Docker asymptote), closest (the configuration whose pooled loss
        is closest to it) and nat_closest (that said of Docker NAT volume); aufs_low, aufs_high,
        aufs_high_low, aufs_high_high; kvm_first (+ _low, _high), kvm_high_low, kvm_high_high,
        paper_kvm, kvm_holds ("holds, the 10-thread point only barely" etc.); authors_bound (largest |mean
        - authors' mean|, tx/s, rounded up; NaN without the authors' columns); and the three
        thread counts passed in.
    """
    native = fig10[fig10["environment"] == "Native"].set_index("threads")["tps_mean"]
    host = fig10[fig10["environment"] == "Docker net=host volume"].set_index("threads").sort_index()
    first = host.iloc[0]
    verdicts = {env: pooled_loss(runs, env, asymptote_from) for env in
                ("Docker net=host volume", "Docker NAT volume", "Docker NAT AUFS")}
    pooled = {env: (-v.interval.pct, -v.interval.pct_high, -v.interval.pct_low) for env, v in verdicts.items()}
    hv = verdicts["Docker net=host volume"]
    closest = min(pooled, key=lambda e: abs(pooled[e][0] - PAPER_DOCKER_LOSS_PCT))
    kvm = fig10[fig10["environment"] == "KVM"].set_index("threads").sort_index()
    kvm_min = kvm.reset_index().loc[kvm["loss_vs_native_pct"].to_numpy().argmin()]
    kvm_paper = PAPER_KVM_LOSS_PCT
    if (kvm["loss_vs_native_pct"] > kvm_paper).all():
        holds = (f"holds, the {int(kvm_min['threads'])}-thread point only barely"
                 if kvm_min["loss_vs_native_pct"] < kvm_paper + 1 else "holds")
    else:
        holds = "does not hold at every point"
    authors = (float((fig10["tps_mean"] - fig10["tps_mean_authors"]).abs().max())
               if "tps_mean_authors" in fig10 else math.nan)
    return {
        "native_peak": float(native.max()), "native_peak_at": int(native.idxmax()),
        "native_last": float(native.iloc[-1]), "last_threads": int(native.index[-1]),
        "host_first": int(host.index[0]), "host_first_loss": float(first["loss_vs_native_pct"]),
        "host_first_verdict": comparisons.plain(first["verdict"], first["margin_low_pct"], first["margin_high_pct"],
                                                beyond=first["beyond_margin"], trials_needed=first["trials_needed"],
                                                pct_low=100 * (first["ratio_low"] - 1),
                                                pct_high=100 * (first["ratio_high"] - 1)),
        "host_pooled_words": comparisons.plain(hv.verdict, hv.margin.low_pct, hv.margin.high_pct,
                                               beyond=hv.beyond_margin, trials_needed=hv.trials_needed,
                                               pct_low=hv.interval.pct_low, pct_high=hv.interval.pct_high),
        "host_max": float(host["loss_vs_native_pct"].max()), "host_max_at": int(host["loss_vs_native_pct"].idxmax()),
        **dict(zip(("host_high_low", "host_high_high"),
                   _loss_range(fig10, "Docker net=host volume", asymptote_from), strict=True)),
        **dict(zip(("host_pooled", "host_pooled_low", "host_pooled_high"), pooled["Docker net=host volume"],
                   strict=True)),
        "host_verdicts": wording.verdict_runs(host.reset_index(), "threads"),
        **dict(zip(("nat_high_low", "nat_high_high"), _loss_range(fig10, "Docker NAT volume", asymptote_from),
                   strict=True)),
        "nat_pooled": pooled["Docker NAT volume"][0], "paper_asym": PAPER_DOCKER_LOSS_PCT,
        "closest": closest,
        "nat_closest": (f"closest to the paper's {PAPER_DOCKER_LOSS_PCT:g}%" if closest == "Docker NAT volume"
                        else f"though {closest} is closer to the paper's {PAPER_DOCKER_LOSS_PCT:g}%"),
        **dict(zip(("aufs_low", "aufs_high"), _loss_range(fig10, "Docker NAT AUFS"), strict=True)),
        **dict(zip(("aufs_high_low", "aufs_high_high"), _loss_range(fig10, "Docker NAT AUFS", aufs_from),
                   strict=True)),
        "kvm_first": float(kvm.iloc[0]["loss_vs_native_pct"]), "kvm_first_at": int(kvm.index[0]),
        "kvm_first_low": float(kvm.iloc[0]["loss_ci95_low"]), "kvm_first_high": float(kvm.iloc[0]["loss_ci95_high"]),
        **dict(zip(("kvm_high_low", "kvm_high_high"), _loss_range(fig10, "KVM", kvm_from), strict=True)),
        "paper_kvm": kvm_paper, "kvm_holds": holds, "authors_bound": wording.up_sig(authors) if math.isfinite(authors) else math.nan,
        "asymptote_from": asymptote_from, "aufs_from": aufs_from, "kvm_from": kvm_from,
    }


def fig11_segmentation(cpu: pd.DataFrame, authors_cpu: pd.DataFrame | None = None) -> dict:
    """Compute the checks of Fig 11's segmentation of the dstat samples into runs.

    Parameters
    ----------
    cpu : pandas.DataFrame
        :func:`overhead.rc25482.mysql_dstat.cpu_runs` (with ``attrs["checks"]`` and
        ``attrs["samples"]``).
    authors_cpu : pandas.DataFrame or None
        :func:`overhead.rc25482.authors.read_authors_cpu` (their pooled per-thread averages);
        None or empty leaves the cross-check keys NaN.

    Returns
    -------
    dict
        gap_low, gap_high (idle samples between runs), light_threads, light_idle_low,
        light_idle_high (mean idle of the lightest runs per configuration, %),
        least_busy ("in every trial" when the lightest runs are the least busy in every trial
        of every configuration), start_low, start_high (s from the records stamp to the first
        run), wait_bound (largest mean wai of a run, %, rounded up), authors_mean_bound (largest
        |pooled usr, sys or utilisation - the authors'|, points, rounded up), authors_sd_bound
        (the same for the idle SD).
    """
    checks = cpu.attrs["checks"]
    light = int(cpu["threads"].min())
    idle = cpu[cpu["threads"] == light].groupby("environment")["cpu_idle"].mean()
    trials = cpu.groupby("environment")["trial"].nunique()
    least = checks.set_index("environment")["trials_least_busy_at_min_threads"].reindex(trials.index)
    every = bool((least == trials).all())
    out = {
        "gap_low": float(cpu["gap_before"].min()), "gap_high": float(cpu["gap_before"].max()),
        "light_threads": light, "light_idle_low": float(idle.min()), "light_idle_high": float(idle.max()),
        "least_busy": "in every trial" if every else "not in every trial",
        "start_low": float(checks["first_run_after_stamp_s"].min()),
        "start_high": float(checks["first_run_after_stamp_s"].max()),
        "wait_bound": wording.up(float(cpu["cpu_wait"].max()), 2),
        "authors_mean_bound": math.nan, "authors_sd_bound": math.nan,
    }
    samples = cpu.attrs.get("samples")
    if authors_cpu is not None and not authors_cpu.empty and samples is not None:
        pooled = samples.groupby(["environment", "threads"]).agg(
            our_util=("cpu_util", "mean"), our_usr=("cpu_usr", "mean"), our_sys=("cpu_sys", "mean"),
            our_idle_sd=("cpu_idle", "std")).reset_index()
        m = pooled.merge(authors_cpu, on=["environment", "threads"])
        means = max(float((m["our_util"] - m["cpu_util"]).abs().max()),
                    float((m["our_usr"] - m["usr_mean"]).abs().max()),
                    float((m["our_sys"] - m["sys_mean"]).abs().max()))
        out["authors_mean_bound"] = wording.up(means, 2)
        out["authors_sd_bound"] = wording.up(float((m["our_idle_sd"] - m["idle_sd"]).abs().max()), 2)
    return out


def fig11_findings(fig11: pd.DataFrame, cpu: pd.DataFrame, *, line_upto: int = 50,
          line_tolerance: float = 3.0) -> dict:
    """Compute the numbers of "Reading Fig 11" (throughput against CPU utilisation).

    Parameters
    ----------
    fig11 : pandas.DataFrame
        :func:`overhead.rc25482.mysql_dstat.cpu_curve` (with throughput).
    cpu : pandas.DataFrame
        :func:`overhead.rc25482.mysql_dstat.cpu_runs` (the runs at the peaks; packets per second).
    line_upto : int
        The thread count up to which the configurations are compared at equal CPU.
    line_tolerance : float
        Largest |throughput difference| at equal CPU (%) for "on one line".

    Returns
    -------
    dict
        line_upto; on_line (the Docker configurations within ``line_tolerance``% of native's
        throughput at equal CPU, with native, in words), line_bound (their largest difference,
        %, rounded up), off_line (the others, in words), off_low, off_high (their shortfall,
        %); peak_<key> and peak_<key>_at for native, host, nat, aufs (peak CPU %, threads);
        diff, diff_low, diff_high (native minus Docker net=host peak, points, with the Welch
        95% CI of the runs at the two peaks: :func:`overhead.rc25482.mysql.peak_cpu_difference`);
        kvm_cpu_bound
        (KVM's largest mean CPU, rounded up), kvm_tps_low, kvm_tps_high, kvm_rising ("keeps
        creeping up" when its throughput rises at every step), last_threads, kvm_packets,
        native_packets (packets/s each way at the largest thread count), kvm_real (half of
        KVM's count).
    """
    native = fig11[fig11["environment"] == "Native"].sort_values("cpu_util_mean")
    diffs = {}
    for env in ("Docker net=host volume", "Docker NAT volume", "Docker NAT AUFS"):
        d = fig11[(fig11["environment"] == env) & (fig11["threads"] <= line_upto)]
        at_cpu = np.interp(d["cpu_util_mean"], native["cpu_util_mean"], native["tps_mean"])
        diffs[env] = 100.0 * (d["tps_mean"].to_numpy() / at_cpu - 1.0)
    on = [e for e, v in diffs.items() if np.abs(v).max() <= line_tolerance]
    off = [e for e in diffs if e not in on]
    peaks = {}
    for key, env in (("native", "Native"), ("host", "Docker net=host volume"), ("nat", "Docker NAT volume"),
                     ("aufs", "Docker NAT AUFS")):
        rows = fig11[fig11["environment"] == env].set_index("threads")["cpu_util_mean"]
        peaks[f"peak_{key}"] = float(rows.max())
        peaks[f"peak_{key}_at"] = int(rows.idxmax())
    c, _, _ = peak_cpu_difference(fig11, cpu, "Docker net=host volume")
    kvm = fig11[fig11["environment"] == "KVM"].sort_values("threads")
    last = int(cpu["threads"].max())
    at_last = cpu[cpu["threads"] == last].groupby("environment")[["packets_recv", "packets_send"]].mean()
    kvm_packets = float(at_last.loc["KVM"].mean())
    off_values = np.concatenate([-diffs[e] for e in off]) if off else np.array([math.nan])
    return {
        "line_upto": line_upto,
        "on_line": ", ".join(["native", *on[:-1]]) + f" and {on[-1]}" if on else "native alone",
        "line_bound": wording.up(float(max(np.abs(diffs[e]).max() for e in on)), 0) if on else math.nan,
        "off_line": " and ".join(off), "off_low": float(np.min(off_values)), "off_high": float(np.max(off_values)),
        **peaks,
        "diff": c.estimate, "diff_low": c.low, "diff_high": c.high,
        "kvm_cpu_bound": wording.up(float(kvm["cpu_util_mean"].max()), 0),
        "kvm_tps_low": float(kvm["tps_mean"].iloc[0]), "kvm_tps_high": float(kvm["tps_mean"].iloc[-1]),
        "kvm_rising": ("keeps creeping up" if bool((np.diff(kvm["tps_mean"].to_numpy()) > 0).all())
                       else "creeps up, though not at every step"),
        "last_threads": last, "kvm_packets": kvm_packets, "kvm_real": kvm_packets / 2,
        "native_packets": float(at_last.loc["Native"].mean()),
    }


def fig12_littles(runs: pd.DataFrame) -> dict:
    """Compute Little's-law residual of every sysbench run, (N - X R) / N (the Fig 12 introduction).

    Parameters
    ----------
    runs : pandas.DataFrame
        :func:`overhead.rc25482.mysql.sysbench_runs`.

    Returns
    -------
    dict
        n_runs, low, high (smallest and largest residual over the runs, %), sign ("always
        positive" when every residual is above 0, else "not always positive").
    """
    law = stats.littles_law(runs["threads"], runs["tps"], runs["latency_ms"] * MS)
    rel = 100.0 * law["rel_residual"]
    return {"n_runs": int(len(runs)), "low": float(rel.min()), "high": float(rel.max()),
            "sign": "always positive" if bool((rel > 0).all()) else "not always positive"}


def fig12_findings(fig12: pd.DataFrame, fig10: pd.DataFrame, *, high_from: int = 230) -> dict:
    """Compute the numbers of "Reading Fig 12" (MySQL latency against native).

    Parameters
    ----------
    fig12 : pandas.DataFrame
        :func:`overhead.rc25482.mysql.latency_curve` (with the authors' columns when read).
    fig10 : pandas.DataFrame
        :func:`overhead.rc25482.mysql.throughput_curve` (KVM's loss at the first thread count).
    high_from : int
        The thread count from which Docker net=host's high-load increase is read.

    Returns
    -------
    dict
        first, last (the smallest and largest thread counts), native_first, native_last (ms);
        host_verdicts (where each verdict of Docker net=host's latency holds along the curve,
        :func:`verdict_runs`; a higher latency is "slower"), host_max, host_max_at (largest
        increase, %), high_from,
        host_high_low, host_high_high (increase at >= high_from, %); kvm_first (increase, %),
        kvm_first_ms, kvm_loss (KVM's throughput loss there, %); authors ("hold the same means
        to the digit" when they agree within half of sysbench's 0.01 ms, else the largest
        difference in words; "" without the authors' columns).
    """
    lat = fig12.set_index(["environment", "threads"])
    native = lat.loc["Native"]["latency_ms_mean"].sort_index()
    host = lat.loc["Docker net=host volume"].sort_index()
    kvm = lat.loc["KVM"].sort_index()
    first = int(native.index[0])
    high = host[host.index >= high_from]["latency_increase_vs_native_pct"]
    authors = ""
    if "latency_ms_mean_authors" in fig12 and fig12["latency_ms_mean_authors"].notna().any():
        worst = float((fig12["latency_ms_mean"] - fig12["latency_ms_mean_authors"]).abs().max())
        authors = ("hold the same means to the digit" if worst < 0.005
                   else f"agree with these means within {wording.up_sig(worst):g} ms")
    return {
        "first": first, "last": int(native.index[-1]), "native_first": float(native.iloc[0]),
        "native_last": float(native.iloc[-1]),
        "host_verdicts": wording.verdict_runs(host.reset_index(), "threads"),
        "host_max": float(host["latency_increase_vs_native_pct"].max()),
        "host_max_at": int(host["latency_increase_vs_native_pct"].idxmax()), "high_from": high_from,
        "host_high_low": float(high.min()), "host_high_high": float(high.max()),
        "kvm_first": float(kvm.loc[first, "latency_increase_vs_native_pct"]),
        "kvm_first_ms": float(kvm.loc[first, "latency_ms_mean"]),
        "kvm_loss": wording.at(fig10, "loss_vs_native_pct", environment="KVM", threads=first),
        "authors": authors,
    }


def fig13_findings(fig13: pd.DataFrame, *, tolerance: float = 0.05) -> dict:
    """Compute the numbers of "Reading Fig 13" (throughput against latency).

    A curve "bends" where it first comes within ``tolerance`` of its peak throughput (the
    plateau's edge, as in the Redis analysis); KVM bends earlier: at the first step in threads
    where its throughput grows by a smaller share than its latency.

    Parameters
    ----------
    fig13 : pandas.DataFrame
        :func:`overhead.rc25482.mysql.throughput_latency`.
    tolerance : float
        Share of the peak that counts as reached.

    Returns
    -------
    dict
        bend_low, bend_high (tx/s where native, Docker net=host and Docker NAT volume come within
        ``tolerance`` of their peak), bend_threads_low, bend_threads_high, turn_back ("turn
        slightly back" when all three end below their peak), aufs_bend (tx/s); kvm_from,
        kvm_to (the first step where KVM's latency grows faster than its throughput),
        kvm_from_tps, kvm_to_tps, kvm_gain (tx/s gained from ``kvm_to`` to the last point),
        kvm_lat_from, kvm_lat_last (ms), last (the largest thread count).
    """
    def bend(env: str) -> pd.Series:
        rows = fig13[fig13["environment"] == env].sort_values("threads")
        return rows[rows["tps_mean"] >= (1 - tolerance) * rows["tps_mean"].max()].iloc[0]

    three = ("Native", "Docker net=host volume", "Docker NAT volume")
    bends = [bend(e) for e in three]
    back = all(fig13[fig13["environment"] == e].sort_values("threads")["tps_mean"].iloc[-1]
               < fig13.loc[fig13["environment"] == e, "tps_mean"].max() for e in three)
    kvm = fig13[fig13["environment"] == "KVM"].sort_values("threads").reset_index(drop=True)
    x, r = kvm["tps_mean"].to_numpy(), kvm["latency_ms_mean"].to_numpy()
    step = int(np.flatnonzero(x[1:] / x[:-1] < r[1:] / r[:-1])[0])
    return {
        "bend_low": float(min(b["tps_mean"] for b in bends)), "bend_high": float(max(b["tps_mean"] for b in bends)),
        "bend_threads_low": int(min(b["threads"] for b in bends)),
        "bend_threads_high": int(max(b["threads"] for b in bends)),
        "turn_back": "turn slightly back" if back else "do not turn back",
        "aufs_bend": float(bend("Docker NAT AUFS")["tps_mean"]),
        "kvm_from": int(kvm["threads"][step]), "kvm_to": int(kvm["threads"][step + 1]),
        "kvm_from_tps": float(x[step]), "kvm_to_tps": float(x[step + 1]),
        "kvm_gain": float(x[-1] - x[step + 1]), "kvm_lat_from": float(r[step]), "kvm_lat_last": float(r[-1]),
        "last": int(kvm["threads"].iloc[-1]),
    }


def mysql_comparison(claims: pd.DataFrame, fig10: pd.DataFrame, fig11: pd.DataFrame) -> dict:
    """Compute the numbers of "Reading the comparison" (the paper's MySQL statements).

    Parameters
    ----------
    claims : pandas.DataFrame
        :func:`overhead.rc25482.mysql.claims`.
    fig10 : pandas.DataFrame
        :func:`overhead.rc25482.mysql.throughput_curve`.
    fig11 : pandas.DataFrame
        :func:`overhead.rc25482.mysql_dstat.cpu_curve` (with the authors' pooled columns when
        read).

    Returns
    -------
    dict
        host, host_low, host_high, host_diff (% against the paper), paper_asym, host_gap
        ("but within a point" when within 1 point of the paper); nat, nat_low, nat_high;
        host_min, host_max (per-point losses); kvm, kvm_low, kvm_high, kvm_at, kvm_yes ("yes"
        when every mean lies above the paper's 40), paper_kvm, kvm_high_low, kvm_high_high (at >=
        50 threads); cpu, cpu_low, cpu_high (net=host), cpu_nat, paper_cpu, cpu_inside ("lies
        just inside the first interval" etc.); authors_diff, authors_native, authors_host (the
        authors' results-cpu peaks; NaN without them), authors_words ("the same" when their
        difference rounds like ours, else "a difference of").
    """
    asym = _claim(claims, "Docker loss", "Docker net=host volume")
    nat = _claim(claims, "Docker loss", "Docker NAT volume")
    kvm = _claim(claims, "KVM loss", "KVM")
    cpu = _claim(claims, "peak CPU", "Docker net=host volume")
    cpu_nat = _claim(claims, "peak CPU", "Docker NAT volume")
    host_min, host_max = _loss_range(fig10, "Docker net=host volume")
    kvm_rows = fig10[fig10["environment"] == "KVM"]
    kvm_at = int(kvm_rows.loc[kvm_rows["loss_vs_native_pct"].idxmin(), "threads"])
    kvm_high = _loss_range(fig10, "KVM", 50)
    paper_cpu = float(cpu["paper_value"])
    lo, hi = float(cpu["ci95_low"]), float(cpu["ci95_high"])
    if lo <= paper_cpu <= hi:
        inside = "lies just inside the first interval" if paper_cpu - lo < 0.25 * (hi - lo) else \
            "lies inside the first interval"
    else:
        inside = "lies outside the first interval"
    out = {
        "host": float(asym["reproduced"]), "host_low": float(asym["ci95_low"]), "host_high": float(asym["ci95_high"]),
        "host_diff": float(asym["diff_pct"]), "paper_asym": float(asym["paper_value"]),
        "host_gap": ("but within a point" if abs(float(asym["reproduced"]) - float(asym["paper_value"])) < 1
                     else "more than a point away"),
        "nat": float(nat["reproduced"]), "nat_low": float(nat["ci95_low"]), "nat_high": float(nat["ci95_high"]),
        "host_min": host_min, "host_max": host_max,
        "kvm": float(kvm["reproduced"]), "kvm_low": float(kvm["ci95_low"]), "kvm_high": float(kvm["ci95_high"]),
        "kvm_at": kvm_at, "paper_kvm": float(kvm["paper_value"]),
        "kvm_yes": "yes" if float(kvm["reproduced"]) > float(kvm["paper_value"]) else "no",
        "kvm_high_low": kvm_high[0], "kvm_high_high": kvm_high[1],
        "cpu": float(cpu["reproduced"]), "cpu_low": lo, "cpu_high": hi, "cpu_nat": float(cpu_nat["reproduced"]),
        "paper_cpu": paper_cpu, "cpu_inside": inside,
        "authors_diff": math.nan, "authors_native": math.nan, "authors_host": math.nan, "authors_words": "",
    }
    col = "cpu_util_pooled_mean_authors"
    if col in fig11 and fig11[col].notna().any():
        peaks = fig11.groupby("environment")[col].max()
        diff = float(peaks["Native"] - peaks["Docker net=host volume"])
        out.update(authors_native=float(peaks["Native"]), authors_host=float(peaks["Docker net=host volume"]),
                   authors_diff=diff,
                   authors_words="the same" if round(diff, 1) == round(out["cpu"], 1) else "a difference of")
    return out


# --- figures (drawn for the notebook; the notebook saves and shows them) ---

def plot_fig10(fig10: pd.DataFrame, paper: pd.DataFrame | None = None) -> Figure:
    """Draw Fig 10: throughput against threads, and the loss against native on a second axis.

    Left axis: mean transactions/s with 95% CI per configuration; right axis (dashed, shaded 95%
    CI): the loss against native with the verdict markers and the equivalence margin; black
    ticks for the paper's statements (Docker -> ~2%, KVM > 40%) when ``paper`` is given.

    Parameters
    ----------
    fig10 : pandas.DataFrame
        :func:`throughput_curve` (optionally with the authors' columns).
    paper : pandas.DataFrame or None
        The paper's values; ``None`` (compare_published=False) leaves out its statements.

    Returns
    -------
    matplotlib.figure.Figure
        The figure (not saved, shown or closed).
    """
    envs = list(LABELS)
    fig, ax = plt.subplots(figsize=(11, 6.4))
    bx = ax.twinx()
    bx.grid(False)
    handles = list(plots.ci_curves(ax, fig10, "threads", "tps_mean", "tps_ci95_low", "tps_ci95_high", groups=envs,
                                   lw=1.5, label="{group}: throughput (n = {n} runs/point)").values())
    for env in envs[1:]:
        rows = fig10[fig10["environment"] == env]
        col = plots.colour(env)
        bx.fill_between(rows["threads"], rows["loss_ci95_low"], rows["loss_ci95_high"], color=col, alpha=0.15, lw=0)
        (h,) = bx.plot(rows["threads"], rows["loss_vs_native_pct"], color=col, ls="--", lw=1.1,
                       label=f"{env}: loss vs native")
        handles.append(h)
    plots.verdict_markers(bx, fig10, "threads", "loss_vs_native_pct", groups=envs[1:], size=18)
    handles.append(plots.margin_band(bx, fig10[fig10["environment"] != "Native"], scale="loss", alpha=0.45,
                                     label="equivalence margin of the verdicts"))
    if paper is not None:  # the paper's statements (text-only values)
        for value, text in ((2.0, "paper: Docker -> ~2%"), (40.0, "paper: KVM > 40%")):
            bx.plot([292, 300], [value, value], color="black", lw=2, clip_on=False)
            bx.text(288, value + 1.0, text, ha="right", va="bottom", fontsize=8)
    ax.set_xlabel("sysbench threads (concurrent clients)")
    ax.set_ylabel("throughput (transactions/s)")
    bx.set_ylabel("throughput loss vs native (%)  [dashed, shaded 95% CI]")
    ax.set_xlim(0, 300)
    ax.set_ylim(0, 15000)
    bx.set_ylim(-6, 70)
    ax.set_title("Fig 10: MySQL (sysbench OLTP, read-only) throughput and loss vs native, mean and 95% CI",
                 fontsize=11)
    fig.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=4, fontsize=8, frameon=False)
    fig.text(0.5, -0.13, "Markers on the dashed curves, the verdict against native on the 95% interval of the ratio: "
             "filled, a difference; hollow, equivalent within the margin; pale, inconclusive.\n"
             "All runs are read-only (the paper describes read/write).", ha="center", fontsize=8)
    fig.tight_layout()
    return fig


def plotly_fig10(fig10: pd.DataFrame) -> go.Figure:
    """Draw the interactive Fig 10: throughput and, on a second axis, the loss against native.

    Parameters
    ----------
    fig10 : pandas.DataFrame
        :func:`throughput_curve`.

    Returns
    -------
    plotly.graph_objects.Figure
        The figure: one throughput trace per configuration, then one loss trace per non-native
        configuration (secondary y axis), with their 95% CIs as error bars.
    """
    envs = list(LABELS)
    pf = make_subplots(specs=[[{"secondary_y": True}]])
    plots.plotly_ci_curves(fig10, "threads", "tps_mean", "tps_ci95_low", "tps_ci95_high", groups=envs, fig=pf,
                           name="{group}: tx/s", hover={"SD": "tps_sd", "n": "n", "vs native": "verdict"})
    plots.plotly_ci_curves(fig10, "threads", "loss_vs_native_pct", "loss_ci95_low", "loss_ci95_high",
                           groups=envs[1:], fig=pf, name="{group}: loss %", mode="lines", dash="dash",
                           hover={"vs native": "verdict"}, secondary_y=True)
    pf.update_layout(title="Fig 10: MySQL throughput and loss vs native (mean, 95% CI; read-only runs)",
                     template="plotly_white", xaxis_title="sysbench threads")
    pf.update_yaxes(title_text="throughput (transactions/s)", secondary_y=False)
    pf.update_yaxes(title_text="throughput loss vs native (%)", secondary_y=True)
    return pf


def plot_fig12(fig12: pd.DataFrame) -> Figure:
    """Draw Fig 12: mean and 95th-percentile latency against threads, with Little's law.

    Parameters
    ----------
    fig12 : pandas.DataFrame
        :func:`latency_curve`.

    Returns
    -------
    matplotlib.figure.Figure
        Two panels (mean latency with the range of Little's law residuals, 95th percentile),
        not saved, shown or closed.
    """
    envs = list(LABELS)
    lo, hi = fig12["littles_rel_residual_pct"].min(), fig12["littles_rel_residual_pct"].max()
    rlo, rhi = fig12["littles_rel_residual_run_min_pct"].min(), fig12["littles_rel_residual_run_max_pct"].max()
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(13, 5.4))
    plots.ci_curves(ax, fig12, "threads", "latency_ms_mean", "latency_ms_ci95_low", "latency_ms_ci95_high",
                    groups=envs, lw=1.5, label="{group} (n = {n} runs/point)")
    plots.ci_curves(bx, fig12, "threads", "latency_p95_ms_mean", "latency_p95_ms_ci95_low",
                    "latency_p95_ms_ci95_high", groups=envs, lw=1.5, label="{group}")
    ax.set_xlabel("sysbench threads (concurrent clients)")
    ax.set_ylabel("mean transaction latency (ms)")
    ax.set_title("Fig 12: mean latency (sysbench per-request avg), 95% CI", fontsize=11)
    ax.legend(loc="upper left", fontsize=8)
    ax.text(0.98, 0.03, f"Little's law N = X R: (N - X R) / N = {rlo:.2f}% .. {rhi:.2f}% per run\n"
            f"({lo:+.2f}% .. {hi:+.2f}% per point from the means)", transform=ax.transAxes, ha="right",
            va="bottom", fontsize=8, bbox=dict(facecolor="white", edgecolor="0.8"))
    bx.set_xlabel("sysbench threads (concurrent clients)")
    bx.set_ylabel("95th percentile latency (ms, sysbench's approximation)")
    bx.set_title("95th percentile latency, 95% CI", fontsize=11)
    for a in (ax, bx):
        a.set_xlim(0, 300)
        a.set_ylim(0, None)
    fig.text(0.01, -0.03, "Read-only runs (the paper describes read/write transactions).", fontsize=8)
    fig.tight_layout()
    return fig


def plotly_fig12(fig12: pd.DataFrame) -> go.Figure:
    """Draw the interactive Fig 12: mean and 95th-percentile latency against threads.

    Parameters
    ----------
    fig12 : pandas.DataFrame
        :func:`latency_curve`.

    Returns
    -------
    plotly.graph_objects.Figure
        Two panels side by side, one trace per configuration in each (legend on the first).
    """
    envs = list(LABELS)
    pf = make_subplots(rows=1, cols=2, subplot_titles=("mean latency", "95th percentile latency"))
    for col, (y, ylo, yhi) in enumerate((("latency_ms_mean", "latency_ms_ci95_low", "latency_ms_ci95_high"),
                                         ("latency_p95_ms_mean", "latency_p95_ms_ci95_low",
                                          "latency_p95_ms_ci95_high")), start=1):
        plots.plotly_ci_curves(fig12, "threads", y, ylo, yhi, groups=envs, fig=pf, row=1, col=col,
                               hover={"n": "n", "Little residual %": "littles_rel_residual_pct",
                                      "vs native": "verdict"},
                               showlegend=col == 1)
    pf.update_layout(title="Fig 12: MySQL latency vs threads (mean, 95% CI)", template="plotly_white")
    pf.update_xaxes(title_text="sysbench threads")
    pf.update_yaxes(title_text="latency (ms)")
    return pf


def plot_fig13(fig13: pd.DataFrame) -> Figure:
    """Draw Fig 13: mean latency against mean throughput, parameterized by threads.

    Parameters
    ----------
    fig13 : pandas.DataFrame
        :func:`throughput_latency`.

    Returns
    -------
    matplotlib.figure.Figure
        One curve per configuration with 95% CIs both ways, native's and KVM's points at 10, 50,
        110, 170 and 290 threads labelled; not saved, shown or closed.
    """
    envs = list(LABELS)
    fig, ax = plt.subplots(figsize=(10.5, 6.2))
    plots.ci_curves(ax, fig13, "tps_mean", "latency_ms_mean", "latency_ms_ci95_low", "latency_ms_ci95_high",
                    xlow="tps_ci95_low", xhigh="tps_ci95_high", groups=envs, lw=1.5,
                    label="{group} (n = {n} runs/point)")
    for env in ("Native", "KVM"):
        for _, r in fig13[(fig13["environment"] == env) & fig13["threads"].isin([10, 50, 110, 170, 290])].iterrows():
            ax.annotate(f"{int(r.threads)}", (r.tps_mean, r.latency_ms_mean), textcoords="offset points",
                        xytext=(6 if env == "Native" else -16, 2), fontsize=7.5, color=plots.colour(env))
    ax.set_xlabel("throughput (transactions/s)")
    ax.set_ylabel("mean transaction latency (ms)")
    ax.set_xlim(0, 14500)
    ax.set_ylim(0, 55)
    ax.set_title("Fig 13: MySQL throughput vs latency, parameterized by threads (mean and 95% CI)", fontsize=11)
    ax.legend(loc="upper left", fontsize=8)
    fig.text(0.5, -0.02, "Numbers: sysbench threads. Read-only runs.", ha="center", fontsize=8)
    fig.tight_layout()
    return fig


def plotly_fig13(fig13: pd.DataFrame) -> go.Figure:
    """Draw the interactive Fig 13: mean latency against mean throughput.

    Parameters
    ----------
    fig13 : pandas.DataFrame
        :func:`throughput_latency`.

    Returns
    -------
    plotly.graph_objects.Figure
        One trace per configuration, with 95% CIs both ways as error bars.
    """
    pf = plots.plotly_ci_curves(fig13, "tps_mean", "latency_ms_mean", "latency_ms_ci95_low", "latency_ms_ci95_high",
                                xlow="tps_ci95_low", xhigh="tps_ci95_high", groups=list(LABELS),
                                hover={"threads": "threads", "n": "n"})
    pf.update_layout(title="Fig 13: MySQL throughput vs latency (mean, 95% CI)", template="plotly_white",
                     xaxis_title="throughput (transactions/s)", yaxis_title="mean transaction latency (ms)")
    return pf


# --- the same tables from a campaign measured here (the live side) -------------------

def live_runs(live: livedata.Live) -> pd.DataFrame:
    """Return one row per sysbench run.

    Test, threads, throughput (tx/s), mean latency (s) and the server's CPU busy percent
    (100 - mpstat's average idle over all cores, NaN without it).
    """
    main = live.benchmark("mysql", ("transaction_rate", "latency_mean"), p_sidecar=None)
    if main.empty:
        return pd.DataFrame()
    runs = main.pivot_table(index=livedata.keys(main, "run_id", "label", "p_test", "p_threads"),
                            columns="metric", values="value", observed=True).reset_index()
    idle = live.benchmark("mysql", "cpu_idle_mean", p_sidecar="monitor", p_cpu="all")
    busy = (100.0 - idle.set_index("run_id")["value"]).groupby(level=0).mean()
    runs["cpu_busy"] = runs["run_id"].map(busy)
    return runs.rename(columns={"transaction_rate": "throughput", "latency_mean": "latency"})


def live_tables(live: livedata.Live) -> dict[str, pd.DataFrame]:
    """Return Figs 10-12 live and Little's law for MySQL.

    Throughput (tx/s), server CPU busy (%), mean latency (ms) vs threads per sysbench test
    (Fig 13, throughput against latency, is drawn from Figs 10 and 12), and Little's law
    with N = threads.
    """
    runs = live_runs(live)
    if runs.empty:
        return {k: pd.DataFrame() for k in ("fig10", "fig11", "fig12", "littles")}
    out = {"fig10": [], "fig11": [], "fig12": []}
    for test in sorted(runs["p_test"].dropna().unique()):
        r = runs[runs["p_test"] == test]
        out["fig10"].append(livedata.compare(r.assign(value=r["throughput"]), "fig10", test, "tx/s",
                                     x="p_threads", higher_is_better=True, benchmark="mysql",
                                     metric="transaction_rate"))
        cpu = r[r["cpu_busy"].notna()]
        out["fig11"].append(livedata.compare(cpu.assign(value=cpu["cpu_busy"]), "fig11", test, "%",
                                     x="p_threads", higher_is_better=None, benchmark="mysql",
                                     metric="cpu_busy"))
        out["fig12"].append(livedata.compare(r.assign(value=r["latency"]), "fig12", test, "ms", 1e-3,
                                     x="p_threads", higher_is_better=False, benchmark="mysql",
                                     metric="latency_mean"))
    columns = {"fig10": ("tps_mean", "loss_vs_native_pct"), "fig11": ("cpu_util_mean", None),
               "fig12": ("latency_ms_mean", None)}
    result = {}
    for stem, parts in out.items():
        value, pct = columns[stem]

        def m(a: pd.DataFrame, row: pd.Series, env: str) -> pd.DataFrame:
            return livedata.nearest(a[a["environment"] == env], "threads", row["x"])

        table = livedata.attach_authors(livedata.finish(parts), live, "mysql", stem, m, value, pct)
        if stem == "fig10" and not table.empty:  # the authors' loss is native - env, in %
            table["authors_pct_vs_native"] = -table["authors_pct_vs_native"]
        result[stem] = table
    result["littles"] = livedata.littles(runs, runs["p_threads"].astype(float), "mysql")
    return result
