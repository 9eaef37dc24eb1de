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
- :func:`table3`: the configurations, with what the data itself says about them;
- :func:`throughput_curve` (Fig 10), :func:`latency_curve` (Fig 12, with Little's law),
  :func:`throughput_latency` (Fig 13): per configuration and thread count, mean over the 10
  runs with SD, 95% CI and n, and against native the ratio of means with bootstrap and Fieller
  intervals and Welch's test with Holm's correction;
- :func:`segment_runs` (generic) and :func:`cpu_runs`: the dstat series cut into the 150 runs;
  :func:`cpu_curve` (Fig 11): CPU utilisation per thread count;
- :func:`network_signature`: packets and bytes per transaction seen by dstat, which tell where
  dstat ran and which network path the traffic took;
- :func:`read_authors_cpu`, :func:`read_authors_plot_csvs`: the authors' own derived files, read
  only to cross-check (never ingested); :func:`with_authors` puts them beside ours;
- :func:`claims`: the paper's statements about Figs 10-12 beside the reproduced numbers.

Conventions: throughput in transactions/s (tx/s), latencies in ms in the figure frames (the tidy
table holds seconds), CPU in percent of all CPUs (dstat's ``total cpu usage``). Means are
arithmetic over the 10 runs: every run lasts the same 60 s, so the mean of the rates equals
total transactions over total time (what a harmonic mean would give for equal-work runs).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats as st

from overhead import stats

#: The paper's MySQL data (other p_series are earlier runs).
SERIES = "performance-governor"
BASELINE = "Native"
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
    """One row of Table III: the paper's label, the authors' folder, network and storage."""

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


class MySQLDataError(ValueError):
    """The MySQL rows needed are missing or inconsistent; the message names them."""


class SegmentationError(MySQLDataError):
    """The CPU series could not be cut into the expected runs; the message says where."""


def _order(frame: pd.DataFrame, column: str = "environment") -> pd.DataFrame:
    """Rows in Table III order, then by threads."""
    rank = {lab: i for i, lab in enumerate(LABELS)}
    keys = frame[column].map(lambda v: rank.get(v, len(rank)))
    by = ["_rank"] + (["threads"] if "threads" in frame.columns else [])
    return frame.assign(_rank=keys.to_numpy()).sort_values(by, kind="stable").drop(columns="_rank") \
        .reset_index(drop=True)


def _run_order(frame: pd.DataFrame) -> pd.DataFrame:
    """Runs in Table III order, then in the order they ran (trial, report)."""
    rank = {lab: i for i, lab in enumerate(LABELS)}
    return frame.assign(_rank=frame["environment"].map(lambda v: rank.get(v, len(rank))).to_numpy()) \
        .sort_values(["_rank", "trial", "report"], kind="stable").drop(columns="_rank").reset_index(drop=True)


# --- sysbench runs ---------------------------------------------------------------------------

def _file(source: pd.Series) -> pd.Series:
    """The raw file path of each row (source without its line number)."""
    return source.astype(str).str.rsplit(":", n=1).str[0]


def sysbench_runs(mysql: pd.DataFrame) -> pd.DataFrame:
    """One row per sysbench run of the performance-governor series.

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
        Raises MySQLDataError when a configuration does not have exactly 10 x 15 runs with the
        thread counts 10..290 in file order, or when events differ from transactions (then
        sysbench's "per-request" latency would not be per transaction).
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
    out = _run_order(out)
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

def _intervals(runs: pd.DataFrame, value: str, level: float) -> pd.DataFrame:
    """Mean, SD, n and the 95% CI (t where Shapiro-Wilk passes, bootstrap otherwise) per point."""
    frame = pd.DataFrame({"environment": runs["environment"], "threads": runs["threads"],
                          "value": runs[value].astype("float64")})
    iv = stats.intervals(frame, by=["environment", "threads"], level=level)
    sd = frame.groupby(["environment", "threads"])["value"].std(ddof=1).rename("sd").reset_index()
    iv = iv.merge(sd, on=["environment", "threads"])
    return iv[["environment", "threads", "n", "estimate", "sd", "low", "high", "method"]]


def _versus_baseline(runs: pd.DataFrame, value: str, baseline: str, level: float,
                     n_resamples: int) -> pd.DataFrame:
    """Ratio of means vs the baseline (bootstrap BCa and Fieller) and Welch + Holm per point.

    Holm's family is every non-baseline point of the frame (all configurations and thread counts).
    """
    frame = pd.DataFrame({"environment": runs["environment"].astype(str), "threads": runs["threads"],
                          "value": runs[value].astype("float64")})
    ov = stats.overhead(frame, baseline=baseline, by=["environment", "threads"], level=level,
                        n_resamples=n_resamples)
    cmp = stats.compare(frame, baseline=baseline, by=["environment", "threads"])
    ov = ov[["environment", "threads", "ratio", "pct", "pct_low", "pct_high", "fieller_low", "fieller_high"]]
    cmp = cmp[["environment", "threads", "welch_p", "welch_p_holm", "hedges_g", "verdict"]]
    return ov.merge(cmp, on=["environment", "threads"])


def throughput_curve(runs: pd.DataFrame, baseline: str = BASELINE, *, level: float = 0.95,
                     n_resamples: int = 9999) -> pd.DataFrame:
    """Fig 10: throughput per configuration and thread count, and the loss against native.

    Parameters
    ----------
    runs : pandas.DataFrame
        :func:`sysbench_runs`.
    baseline : str
        The configuration losses are measured against.
    level : float
        Confidence level of every interval.
    n_resamples : int
        Bootstrap resamples of the ratio intervals.

    Returns
    -------
    pandas.DataFrame
        environment, threads, n (runs), tps_mean, tps_sd (ddof=1), tps_ci95_low, tps_ci95_high,
        tps_ci_method, loss_vs_native_pct (100 (1 - mean / mean_native): positive = slower than
        native; 0 for native), loss_ci95_low, loss_ci95_high (bootstrap BCa of the ratio of means,
        both samples resampled), loss_fieller_low, loss_fieller_high, welch_p, welch_p_holm (Holm
        over the 60 non-native points), hedges_g, verdict ("no significant difference" or
        "significantly lower (-x%)"). The native rows have NaN test columns.
    """
    iv = _intervals(runs, "tps", level)
    out = pd.DataFrame({"environment": iv["environment"], "threads": iv["threads"], "n": iv["n"],
                        "tps_mean": iv["estimate"], "tps_sd": iv["sd"], "tps_ci95_low": iv["low"],
                        "tps_ci95_high": iv["high"], "tps_ci_method": iv["method"]})
    vs = _versus_baseline(runs, "tps", baseline, level, n_resamples)
    vs = pd.DataFrame({"environment": vs["environment"], "threads": vs["threads"],
                       "loss_vs_native_pct": -vs["pct"], "loss_ci95_low": -vs["pct_high"],
                       "loss_ci95_high": -vs["pct_low"], "loss_fieller_low": 100 * (1 - vs["fieller_high"]),
                       "loss_fieller_high": 100 * (1 - vs["fieller_low"]), "welch_p": vs["welch_p"],
                       "welch_p_holm": vs["welch_p_holm"], "hedges_g": vs["hedges_g"], "verdict": vs["verdict"]})
    out = out.merge(vs, on=["environment", "threads"], how="left")
    base = out["environment"] == baseline
    out.loc[base, "loss_vs_native_pct"] = 0.0
    out["verdict"] = out["verdict"].astype("string").mask(base, "baseline")
    return _order(out)


def latency_curve(runs: pd.DataFrame, baseline: str = BASELINE, *, level: float = 0.95,
                  n_resamples: int = 9999) -> pd.DataFrame:
    """Fig 12: per-request latency per configuration and thread count, and Little's law.

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
    baseline, level, n_resamples
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
        its bootstrap ci95 low/high, welch_p, welch_p_holm (Holm over the non-native points),
        verdict.
    """
    a = _intervals(runs, "latency_ms", level)
    b = _intervals(runs, "latency_p95_ms", level)
    out = pd.DataFrame({"environment": a["environment"], "threads": a["threads"], "n": a["n"],
                        "latency_ms_mean": a["estimate"], "latency_ms_sd": a["sd"],
                        "latency_ms_ci95_low": a["low"], "latency_ms_ci95_high": a["high"],
                        "latency_ci_method": a["method"],
                        "latency_p95_ms_mean": b["estimate"].to_numpy(), "latency_p95_ms_sd": b["sd"].to_numpy(),
                        "latency_p95_ms_ci95_low": b["low"].to_numpy(),
                        "latency_p95_ms_ci95_high": b["high"].to_numpy()})
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
    vs = _versus_baseline(runs, "latency_ms", baseline, level, n_resamples)
    vs = pd.DataFrame({"environment": vs["environment"], "threads": vs["threads"],
                       "latency_increase_vs_native_pct": vs["pct"], "latency_increase_ci95_low": vs["pct_low"],
                       "latency_increase_ci95_high": vs["pct_high"], "welch_p": vs["welch_p"],
                       "welch_p_holm": vs["welch_p_holm"], "verdict": vs["verdict"]})
    out = out.merge(vs, on=["environment", "threads"], how="left")
    base = out["environment"] == baseline
    out.loc[base, "latency_increase_vs_native_pct"] = 0.0
    out["verdict"] = out["verdict"].astype("string").mask(base, "baseline")
    return _order(out)


def throughput_latency(fig10: pd.DataFrame, fig12: pd.DataFrame) -> pd.DataFrame:
    """Fig 13: the throughput-latency curve of each configuration, parameterized by threads.

    Returns environment, threads, n, tps_mean, tps_ci95_low, tps_ci95_high, latency_ms_mean,
    latency_ms_ci95_low, latency_ms_ci95_high, latency_p95_ms_mean, loss_vs_native_pct,
    latency_increase_vs_native_pct (both from the Fig 10 and Fig 12 frames).
    """
    a = fig10[["environment", "threads", "n", "tps_mean", "tps_ci95_low", "tps_ci95_high", "loss_vs_native_pct"]]
    b = fig12[["environment", "threads", "latency_ms_mean", "latency_ms_ci95_low", "latency_ms_ci95_high",
               "latency_p95_ms_mean", "latency_increase_vs_native_pct"]]
    out = a.merge(b, on=["environment", "threads"], validate="one_to_one")
    return _order(out[["environment", "threads", "n", "tps_mean", "tps_ci95_low", "tps_ci95_high",
                       "latency_ms_mean", "latency_ms_ci95_low", "latency_ms_ci95_high", "latency_p95_ms_mean",
                       "loss_vs_native_pct", "latency_increase_vs_native_pct"]])


# --- segmentation of the dstat series ----------------------------------------------------------

def segment_runs(idle: Sequence[float] | np.ndarray, n_runs: int, *, busy_below: float = 95.0,
                 min_length: int = 30, expected_length: float | None = None, tolerance: int = 2,
                 trim: int = 1, breaks: Sequence[object] | np.ndarray | None = None) -> pd.DataFrame:
    """Cut a 1-s CPU-idle series recorded over back-to-back benchmark runs into those runs.

    Method. A sample is *busy* when its idle percentage is below ``busy_below``. Maximal
    stretches of consecutive busy samples are candidate runs; stretches shorter than
    ``min_length`` samples are dropped as blips (they are listed in ``attrs["dropped"]``).
    Stretches never span a ``breaks`` boundary (a new dstat session restarts the sample index
    and there is no sample between sessions). Exactly ``n_runs`` stretches must remain, else
    SegmentationError. With ``expected_length`` (samples a run should cover, e.g. the sysbench
    run time in seconds), every stretch must be within ``tolerance`` samples of it. Finally
    ``trim`` samples are removed at each end of every stretch: a run rarely starts or ends on
    a sample boundary, so its first and last 1-s samples are partly idle and would bias a
    run's mean towards idle (more at high load). The runs are numbered in time order; pairing
    them with the benchmark's reports is the caller's job (by order, see :func:`cpu_runs`).

    Failure modes (all but the last raise, because pairing by order would silently shift every
    later run):

    - a run too light to push idle below ``busy_below`` vanishes (too few stretches);
    - two runs separated by less than one idle sample merge (one stretch about twice as long:
      fails the length check, or gives too few stretches);
    - a non-benchmark burst of ``min_length`` samples or more (a database load, a cron job)
      adds a stretch (too many);
    - a stall inside a run (idle above the threshold for a sample or more) splits it (too many,
      or a short stretch);
    - an aborted run gives a short stretch (length check, when ``expected_length`` is given);
    - not detected: dstat samples that are not 1 s apart (dstat falls behind under load), so
      lengths are in samples, not seconds; and a run whose partial edge samples are busier
      than the threshold is still trimmed by ``trim`` only, which is why edges are dropped
      rather than weighted.

    Parameters
    ----------
    idle : array-like
        CPU idle in percent, one value per sample, in time order (drop dstat's first row of
        every session first: it averages since boot).
    n_runs : int
        Runs expected in the series.
    busy_below : float
        Idle percentage under which a sample counts as busy.
    min_length : int
        Shortest stretch (samples) that can be a run.
    expected_length : float or None
        Samples a run should cover (None: no length check).
    tolerance : int
        Allowed deviation from ``expected_length`` in samples.
    trim : int
        Samples dropped at each end of every run before averaging.
    breaks : array-like or None
        Session label of every sample; stretches are cut where it changes.

    Returns
    -------
    pandas.DataFrame
        run (0-based, time order), first, last (positions of the busy stretch in ``idle``,
        inclusive), length, keep_first, keep_last (positions after trimming, inclusive),
        n_kept, gap_before (idle samples since the previous run; NaN for the first and across
        a break). ``attrs["dropped"]`` lists the (first, last) of the blips dropped.
    """
    x = np.asarray(idle, dtype="float64")
    if x.ndim != 1 or x.size == 0:
        raise SegmentationError("segment_runs: need a non-empty 1-D idle series")
    if np.isnan(x).any():
        raise SegmentationError(f"segment_runs: {int(np.isnan(x).sum())} idle values are NaN "
                                f"(first at position {int(np.flatnonzero(np.isnan(x))[0])})")
    busy = x < busy_below
    session = np.zeros(x.size, dtype="int64")
    if breaks is not None:
        b = pd.Series(np.asarray(breaks))
        if len(b) != x.size:
            raise SegmentationError(f"segment_runs: {len(b)} break labels for {x.size} samples")
        session = (b != b.shift()).cumsum().to_numpy() - 1
    # a stretch starts where busy begins or the session changes while busy
    start = busy & (np.r_[True, ~busy[:-1]] | np.r_[True, session[1:] != session[:-1]])
    end = busy & (np.r_[~busy[1:], True] | np.r_[session[1:] != session[:-1], True])
    firsts, lasts = np.flatnonzero(start), np.flatnonzero(end)
    lengths = lasts - firsts + 1
    keep = lengths >= min_length
    dropped = [(int(f), int(last)) for f, last, k in zip(firsts, lasts, keep, strict=True) if not k]
    firsts, lasts, lengths = firsts[keep], lasts[keep], lengths[keep]
    if len(firsts) != n_runs:
        ls = pd.Series(lengths).value_counts().sort_index().to_dict()
        raise SegmentationError(
            f"segment_runs: found {len(firsts)} busy stretches of >= {min_length} samples (idle < "
            f"{busy_below:g}%), expected {n_runs}; stretch lengths {ls}; {len(dropped)} blips dropped")
    if expected_length is not None:
        off = np.abs(lengths - expected_length) > tolerance
        if off.any():
            where = [(int(i), int(firsts[i]), int(lengths[i])) for i in np.flatnonzero(off)[:5]]
            raise SegmentationError(
                f"segment_runs: {int(off.sum())} stretches differ from {expected_length:g} samples by more "
                f"than {tolerance} (run, first position, length): {where}")
    if np.any(lengths <= 2 * trim):
        raise SegmentationError(f"segment_runs: trimming {trim} samples per end leaves nothing of a "
                                f"{int(lengths.min())}-sample stretch")
    gap = np.r_[np.nan, (firsts[1:] - lasts[:-1] - 1).astype("float64")]
    same = np.r_[False, session[firsts[1:]] == session[lasts[:-1]]]
    gap[~same] = np.nan
    out = pd.DataFrame({"run": np.arange(len(firsts)), "first": firsts, "last": lasts, "length": lengths,
                        "keep_first": firsts + trim, "keep_last": lasts - trim,
                        "n_kept": lengths - 2 * trim, "gap_before": gap})
    out.attrs["dropped"] = dropped
    return out


def _samples(monitor: pd.DataFrame, label: str) -> pd.DataFrame:
    """One configuration's dstat samples as a wide frame in time order, warm-up rows removed."""
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
    """The dstat samples of each configuration cut into its 150 sysbench runs, averaged per run.

    Each configuration's samples (dstat's first row per session dropped: it is an average since
    boot) go through :func:`segment_runs` with ``n_runs`` = the number of sysbench reports and
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
        :func:`sysbench_runs`.
    busy_below, trim, tolerance
        Passed to :func:`segment_runs`.

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
        seg = segment_runs(wide["cpu_idle"], len(rr), busy_below=busy_below,
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
    out = _run_order(pd.concat(parts, ignore_index=True))
    out.attrs["samples"] = pd.concat(samples, ignore_index=True)
    out.attrs["checks"] = _order(pd.DataFrame(checks))
    return out


def cpu_curve(cpu: pd.DataFrame, fig10: pd.DataFrame | None = None, baseline: str = BASELINE, *,
              level: float = 0.95, n_resamples: int = 9999) -> pd.DataFrame:
    """Fig 11: mean CPU utilisation and mean throughput per configuration and thread count.

    The statistical unit is the run: a run's CPU utilisation is the mean of its kept 1-s
    samples, and a point is the mean over the 10 runs (SD, 95% CI over runs). The authors'
    results-cpu-*.csv instead pool all samples of the 10 runs; ``cpu_util_pooled_mean`` and
    ``cpu_idle_pooled_sd`` reproduce that statistic for the comparison (:func:`with_authors`).

    Parameters
    ----------
    cpu : pandas.DataFrame
        :func:`cpu_runs` (with its ``attrs["samples"]``).
    fig10 : pandas.DataFrame or None
        :func:`throughput_curve`; its throughput columns are joined when given.
    baseline, level, n_resamples
        As for :func:`throughput_curve`; the CPU comparison against native uses Welch + Holm.

    Returns
    -------
    pandas.DataFrame
        environment, threads, n (runs), n_samples, cpu_util_mean, cpu_util_sd,
        cpu_util_ci95_low, cpu_util_ci95_high, cpu_usr_mean, cpu_sys_mean, cpu_siq_mean,
        cpu_wait_mean, cpu_util_pooled_mean, cpu_idle_pooled_sd, cpu_usr_pooled_mean,
        cpu_sys_pooled_mean, cpu_diff_vs_native_pts (percentage points), cpu_welch_p_holm,
        cpu_verdict, and tps_mean, tps_ci95_low, tps_ci95_high when ``fig10`` is given.
    """
    iv = _intervals(cpu, "cpu_util", level)
    out = pd.DataFrame({"environment": iv["environment"], "threads": iv["threads"], "n": iv["n"],
                        "cpu_util_mean": iv["estimate"], "cpu_util_sd": iv["sd"],
                        "cpu_util_ci95_low": iv["low"], "cpu_util_ci95_high": iv["high"]})
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
    frame = pd.DataFrame({"environment": cpu["environment"], "threads": cpu["threads"], "value": cpu["cpu_util"]})
    cmp = stats.compare(frame, baseline=baseline, by=["environment", "threads"])
    cmp = pd.DataFrame({"environment": cmp["environment"], "threads": cmp["threads"],
                        "cpu_diff_vs_native_pts": cmp["mean"] - cmp["mean_baseline"],
                        "cpu_welch_p_holm": cmp["welch_p_holm"], "cpu_verdict": cmp["verdict"]})
    out = out.merge(cmp, on=["environment", "threads"], how="left")
    base = out["environment"] == baseline
    out.loc[base, "cpu_diff_vs_native_pts"] = 0.0
    out["cpu_verdict"] = out["cpu_verdict"].astype("string").mask(base, "baseline")
    if fig10 is not None:
        out = out.merge(fig10[["environment", "threads", "tps_mean", "tps_ci95_low", "tps_ci95_high"]],
                        on=["environment", "threads"], how="left")
    return _order(out)


def network_signature(cpu: pd.DataFrame) -> pd.DataFrame:
    """What dstat's network counters say about each configuration (runs at >= 150 threads).

    Every transaction of this workload is 16 queries (14 reads, BEGIN and COMMIT), so a server
    that sees each request and each response once counts about 16 packets per transaction in
    each direction, requests small and responses large. A packet counted on several interfaces
    (physical NIC, bridge, veth or tap: dstat's ``net/total`` sums all but lo) is counted
    several times, and its bytes per packet become an average of the two directions.

    Returns environment, packets_per_tx_recv, packets_per_tx_send, bytes_per_packet_recv,
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
    return _order(out)


def observed_path(sig: pd.Series) -> str:
    """Plain-words reading of one :func:`network_signature` row."""
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
    """Table III: the five MySQL configurations, with what the data says about each.

    Returns one row per configuration: configuration (the paper's label), network, storage
    (as the paper and the reference README describe them), folder, runs (records files),
    reports, threads, recorded (date of the records files), mode (sysbench's test mode), and
    when ``cpu`` (:func:`cpu_runs`) is given: dstat_host (dstat's header),
    packets_per_tx (mean of both directions at >= 150 threads) and observed_network (what that
    count implies, :func:`observed_path`).
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


# --- the authors' own derived files (cross-checks only) ---------------------------------------

def read_authors_cpu(ibm_root: str | Path) -> pd.DataFrame:
    """The authors' per-thread CPU averages, ``mysql/results/performance-governor/results-cpu-*.csv``.

    Each file has 15 rows (10..290 threads) and six unlabelled columns, read here as usr mean,
    usr SD, sys mean, sys SD, idle mean, idle SD (percent; the means match dstat's columns in
    that order, and the SDs are over all 1-s samples of the 10 runs pooled). There is none for
    KVM. Returns environment, threads, usr_mean, usr_sd, sys_mean, sys_sd, idle_mean, idle_sd,
    cpu_util (100 - idle_mean), source. Missing files are skipped.
    """
    base = Path(ibm_root) / "mysql" / "results" / SERIES
    parts = []
    for c in CONFIGURATIONS:
        path = base / f"results-cpu-{c.folder}.csv"
        if not path.is_file():
            continue
        df = pd.read_csv(path, header=None, names=["usr_mean", "usr_sd", "sys_mean", "sys_sd",
                                                   "idle_mean", "idle_sd"])
        if len(df) != len(THREADS):
            raise MySQLDataError(f"{path}: {len(df)} rows, expected {len(THREADS)} (10..290 threads)")
        df.insert(0, "threads", list(THREADS))
        df.insert(0, "environment", c.label)
        df["cpu_util"] = 100.0 - df["idle_mean"]
        df["source"] = str(path.relative_to(Path(ibm_root)))
        parts.append(df)
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def read_authors_plot_csvs(history_dir: str | Path) -> pd.DataFrame:
    """The authors' plot data for Figs 10/12/13 (``mysql_perfgov_results-*.csv@d925ec3``).

    Recovered from the repository history; no KVM. reqs/latency/latency95: 15 rows of threads
    then (mean, SD) for bml, docker, docker-nofs, docker-nofs-nonet; percentage: Docker
    net=host volume's throughput loss and latency increase vs native in percent.
    Returns environment, threads, tps_mean, tps_sd, latency_ms_mean, latency_ms_sd,
    latency_p95_ms_mean, latency_p95_ms_sd, loss_pct, latency_increase_pct (the last two only
    for Docker net=host volume). Empty when the files are absent.
    """
    h = Path(history_dir)
    names = {"reqs": "tps", "latency": "latency_ms", "latency95": "latency_p95_ms"}
    frames = []
    for stem, col in names.items():
        matches = sorted(h.glob(f"mysql_perfgov_results-{stem}.csv@*"))
        if not matches:
            return pd.DataFrame()
        df = pd.read_csv(matches[0], header=None)
        if df.shape[1] != 1 + 2 * len(AUTHORS_PLOT_ORDER):
            raise MySQLDataError(f"{matches[0]}: {df.shape[1]} columns, expected 9")
        for i, env in enumerate(AUTHORS_PLOT_ORDER):
            frames.append(pd.DataFrame({"environment": env, "threads": df[0].astype(int),
                                        f"{col}_mean": df[1 + 2 * i], f"{col}_sd": df[2 + 2 * i]}))
    out = pd.concat(frames).groupby(["environment", "threads"], sort=False).first().reset_index()
    pct = sorted(h.glob("mysql_perfgov_results-percentage.csv@*"))
    if pct:
        p = pd.read_csv(pct[0], header=None, names=["loss_pct", "latency_increase_pct"])
        p["threads"] = list(THREADS)
        p["environment"] = "Docker net=host volume"
        out = out.merge(p, on=["environment", "threads"], how="left")
    return _order(out)


def with_authors(frame: pd.DataFrame, authors: pd.DataFrame, columns: dict[str, str]) -> pd.DataFrame:
    """Put the authors' values beside ours, with the percent difference.

    Parameters
    ----------
    frame : pandas.DataFrame
        One of the figure frames (environment, threads, ...).
    authors : pandas.DataFrame
        :func:`read_authors_plot_csvs` or :func:`read_authors_cpu` (may be empty: the frame is
        returned with empty columns).
    columns : dict
        Our column -> the authors' column. For each pair, ``<ours>_authors`` and
        ``<ours>_diff_pct`` (100 (ours / authors - 1)) are added.
    """
    out = frame.copy()
    if authors is None or authors.empty:
        for ours in columns:
            out[f"{ours}_authors"] = np.nan
            out[f"{ours}_diff_pct"] = np.nan
        return out
    sub = authors[["environment", "threads", *columns.values()]].rename(
        columns={theirs: f"{ours}_authors" for ours, theirs in columns.items()})
    out = out.merge(sub, on=["environment", "threads"], how="left")
    for ours in columns:
        out[f"{ours}_diff_pct"] = 100.0 * (out[ours] / out[f"{ours}_authors"] - 1.0)
    return out


# --- the paper's statements --------------------------------------------------------------------

_NUM = re.compile(r"[-+]?\d+(?:\.\d+)?")


def _published_number(pub: pd.DataFrame | None, metric: str, env: str, default: float) -> tuple[float, str]:
    """The number a paper_numbers.csv row states (text kept), or the default quoted from the text."""
    if pub is not None and not pub.empty:
        rows = pub[(pub["metric"] == metric) & (pub["env"].astype(str).str.startswith(env))]
        if len(rows):
            text = str(rows.iloc[0].get("value_text", "") or rows.iloc[0]["value"])
            m = _NUM.search(text)
            return (float(m.group()) if m else default), text
    return default, ""


def claims(fig10: pd.DataFrame, fig11: pd.DataFrame, cpu: pd.DataFrame,
           published: pd.DataFrame | None = None, *, asymptote_from: int = 230,
           n_resamples: int = 9999) -> pd.DataFrame:
    """The paper's statements about Figs 10-12 beside what the data gives.

    - "Docker has similar performance to native, with the difference asymptotically
      approaching 2%": the loss of each Docker configuration over the runs at >=
      ``asymptote_from`` threads (ratio of the pooled means, bootstrap BCa 95% CI resampling
      the pooled runs), and the range of its per-point losses.
    - "KVM has much higher overhead, higher than 40% in all measured cases": KVM's smallest and
      largest per-point loss, with the CI of the smallest.
    - "native Linux is able to achieve higher peak CPU utilization and Docker is not ...,
      a difference of around 1.5%": the peak (over thread counts) of the mean CPU utilisation of
      native minus that of each Docker configuration, in percentage points, with a Welch 95% CI
      of the difference between the runs at the two peaks.

    Returns claim, environment, paper (text), paper_value, reproduced, ci95_low, ci95_high,
    unit, diff_pct (100 (reproduced / paper_value - 1)), detail.
    """
    recs = []
    docker = [lab for lab in LABELS if lab.startswith("Docker")]
    asym_paper, asym_text = _published_number(published, "MySQL throughput loss vs native", "Docker", 2.0)
    for env in docker:
        sel = cpu[(cpu["threads"] >= asymptote_from) & cpu["environment"].isin([env, BASELINE])]
        x = sel.loc[sel["environment"] == env, "tps"].to_numpy()
        y = sel.loc[sel["environment"] == BASELINE, "tps"].to_numpy()
        r = stats.ratio_bootstrap(x, y, n_resamples=n_resamples)
        pts = fig10[(fig10["environment"] == env)]
        recs.append({"claim": "Docker loss vs native approaches ~2% at high concurrency", "environment": env,
                     "paper": asym_text or "-> ~2% asymptotically", "paper_value": asym_paper,
                     "reproduced": -r.pct, "ci95_low": -r.pct_high, "ci95_high": -r.pct_low, "unit": "%",
                     "detail": f"runs at >= {asymptote_from} threads pooled (n = {len(x)} vs {len(y)}); per-point "
                               f"loss {pts['loss_vs_native_pct'].min():.1f}..{pts['loss_vs_native_pct'].max():.1f}% "
                               f"over 10..290 threads"})
    kvm_paper, kvm_text = _published_number(published, "MySQL throughput loss vs native", "KVM", 40.0)
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
                               f"{int((k['loss_vs_native_pct'] > 40).sum())} of {len(k)} points above 40%"})
    cpu_paper, cpu_text = _published_number(published, "peak CPU utilisation difference native vs Docker", "", 1.5)
    nat = fig11[fig11["environment"] == BASELINE]
    if len(nat):
        npk = nat.loc[nat["cpu_util_mean"].idxmax()]
        xn = cpu[(cpu["environment"] == BASELINE) & (cpu["threads"] == npk["threads"])]["cpu_util"].to_numpy()
        for env in docker:
            d = fig11[fig11["environment"] == env]
            pk = d.loc[d["cpu_util_mean"].idxmax()]
            xd = cpu[(cpu["environment"] == env) & (cpu["threads"] == pk["threads"])]["cpu_util"].to_numpy()
            diff = float(npk["cpu_util_mean"] - pk["cpu_util_mean"])
            se2 = xn.var(ddof=1) / xn.size + xd.var(ddof=1) / xd.size
            dof = se2 ** 2 / ((xn.var(ddof=1) / xn.size) ** 2 / (xn.size - 1) + (xd.var(ddof=1) / xd.size) ** 2 / (xd.size - 1))
            half = float(st.t.ppf(0.975, dof)) * math.sqrt(se2)
            recs.append({"claim": "peak CPU utilisation: native higher than Docker by ~1.5 points",
                         "environment": env, "paper": cpu_text or "~1.5", "paper_value": cpu_paper,
                         "reproduced": diff, "ci95_low": diff - half, "ci95_high": diff + half, "unit": "% points",
                         "detail": f"native peak {npk['cpu_util_mean']:.2f}% at {int(npk['threads'])} threads, "
                                   f"{env} peak {pk['cpu_util_mean']:.2f}% at {int(pk['threads'])}; Welch CI"})
    out = pd.DataFrame(recs)
    out["diff_pct"] = 100.0 * (out["reproduced"] / out["paper_value"] - 1.0)
    return out[["claim", "environment", "paper", "paper_value", "reproduced", "ci95_low", "ci95_high", "unit",
                "diff_pct", "detail"]]
