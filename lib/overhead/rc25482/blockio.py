"""Section IV-C of RC25482, block I/O with fio 2.0.8: the data behind Figs 5, 6 and 7.

The authors ran one fio job file once per environment (``fio/results/{linux,docker,vm}.log``,
jobs sequential-fill, seq-read-1/2, random-write-16, random-write-16x8, random-read-16,
random-read-16x8, mixed-random-rw-32x8) and typed the figure values into ``fio results.xlsx``.
So every number here comes from ONE run per environment (n = 1): there is no run-to-run
variation to estimate, no confidence interval, and every comparison with native is "not
tested": the data can show neither sameness nor a difference. What a single fio run
does give is its own per-interval spread (the ``bw (KB/s): ... stdev=`` line, the authors' Fig 5
error bars) and its completion-latency percentiles (Fig 7); both describe variation *within*
that run and are labelled so.

Which job each figure uses (checked against the spreadsheet, see the tests):

- Fig 5: Sequential Read = ``seq-read-2`` (1 MiB, iodepth 2), Sequential Write =
  ``sequential-fill`` (1 MiB, iodepth 16). The authors plotted fio's per-interval bandwidth mean
  (``avg=``) with the per-interval SD (``stdev=``), in fio KB/s divided by 1000.
- Fig 6: ``random-read-16x8``, ``random-write-16x8`` (8 jobs x iodepth 16 = 128 outstanding
  I/Os) and ``mixed-random-rw-32x8`` (8 x 32 = 256, read IOPS + write IOPS), 4 KiB; fio's
  group report (group_reporting) already sums the 8 jobs.
- Fig 7: ``random-read-16`` (4 KiB, iodepth 16, one job) clat percentiles. The spreadsheet's
  Sheet2 instead mixes jobs (Native = random-read-16x8, Docker = random-read-16, KVM = a run
  that is not committed); :func:`identify_spreadsheet_latency` shows which.

Units: bandwidths are returned in MB/s = 10^6 B/s. fio 2.0.8 prints KB/s meaning KiB/s, and
the spreadsheet's "MB/s" is that number divided by 1000 (units of 1.024 MB/s); the tidy tables
already hold both in B/s, so the comparison is like with like (the authors' printed number is
kept in ``spreadsheet_raw``).
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from overhead import plots, prose, stats
from overhead.errors import DataError
from overhead.names import BASELINE
from overhead.rc25482 import comparisons, livedata, wording

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

#: Environment labels of the fio runs, in figure order.
ENVIRONMENTS = ("Native", "Docker", "KVM")
#: Fig 5: (test as the spreadsheet names it, fio job).
SEQUENTIAL = (("Sequential Read", "seq-read-2"), ("Sequential Write", "sequential-fill"))
#: Fig 6: (test, fio job).
RANDOM = (("Random Read", "random-read-16x8"), ("Random Write", "random-write-16x8"),
          ("Random Mixed 70/30", "mixed-random-rw-32x8"))
#: Fig 7: the job the published CDF (and the paper's "2-3x") corresponds to.
LATENCY_JOB = "random-read-16"
MB = 1e6
US = 1e-6
N_RUNS = 1
NO_CI = ("n=1 run per environment: no run-to-run variation measured, so no confidence "
         "interval and no significance test")
NOT_TESTABLE = "n=1 run per environment: no interval, so no verdict (neither sameness nor a difference)"
INTERVAL_SD = "fio per-interval bandwidth SD within one run (not run-to-run, not a CI)"


class FioDataError(DataError):
    """The fio rows needed for a figure are missing or ambiguous; the message names them."""


def _one(df: pd.DataFrame, what: str) -> pd.Series:
    """Return the single row of ``df``; FioDataError naming ``what`` when there are 0 or several."""
    if len(df) != 1:
        raise FioDataError(f"expected exactly one row for {what}, found {len(df)}")
    return df.iloc[0]


def job_value(fio: pd.DataFrame, environment: str, job: str, metric: str,
              direction: str | None = None) -> tuple[float, str]:
    """Return one value fio printed for a job, with its source.

    Parameters
    ----------
    fio : pandas.DataFrame
        ``load(tidy, "fio")`` (needs label, p_job, p_direction, metric, value, source).
    environment : str
        Environment label ("Native", "Docker", "KVM").
    job : str
        fio job name, e.g. "seq-read-2".
    metric : str
        Tidy metric, e.g. "bandwidth_interval_mean", "iops".
    direction : str or None
        "read" or "write" for jobs that report both (mixed); None: the only one present.

    Returns
    -------
    value : float
        The value in canonical units.
    source : str
        Where fio printed it, "file:line".

    Raises
    ------
    FioDataError
        When there is not exactly one such row.
    """
    rows = fio[(fio["label"] == environment) & (fio["p_job"] == job) & (fio["metric"] == metric)]
    if direction is not None:
        rows = rows[rows["p_direction"] == direction]
    row = _one(rows, f"{environment} {job} {metric}{' ' + direction if direction else ''}")
    return float(row["value"]), str(row["source"])


def _spreadsheet(reference: pd.DataFrame | None, environment: str, job: str,
                 metric: str) -> tuple[float, str | None, str | None]:
    """Return (value, raw text, source) of a spreadsheet cell, NaN/None when absent."""
    if reference is None or reference.empty:
        return math.nan, None, None
    rows = reference[(reference["label"] == environment) & (reference["p_job"] == job)
                     & (reference["metric"] == metric)]
    if rows.empty:
        return math.nan, None, None
    row = _one(rows, f"spreadsheet {environment} {job} {metric}")
    return float(row["value"]), str(row["raw"]), str(row["source"])


def _pct(a: float, b: float) -> float:
    return 100.0 * (a / b - 1.0) if b and math.isfinite(a) and math.isfinite(b) else math.nan


def sequential_throughput(fio: pd.DataFrame, reference: pd.DataFrame | None = None) -> pd.DataFrame:
    """Compute Fig 5: sequential read and write bandwidth per environment, log beside spreadsheet.

    Parameters
    ----------
    fio : pandas.DataFrame
        ``load(tidy, "fio")``.
    reference : pandas.DataFrame or None
        ``load(tidy, "fio", table="reference")`` (the authors' spreadsheet); None leaves the
        spreadsheet columns empty.

    Returns
    -------
    pandas.DataFrame
        One row per (test, environment): test, job, block_size_bytes, iodepth, numjobs,
        environment, n_runs (1), bandwidth_mb_s (fio per-interval mean, what the authors
        plotted), interval_sd_mb_s, interval_min_mb_s, interval_max_mb_s, error_bar (what the
        SD is), run_bandwidth_mb_s (io / runtime, fio's ``bw=``), ci95_low, ci95_high (NaN:
        n = 1), ci_reason, spreadsheet_mb_s, spreadsheet_sd_mb_s, spreadsheet_raw (the
        authors' number, KB/s / 1000), pct_vs_spreadsheet, ratio_vs_native, pct_vs_native,
        spreadsheet_pct_vs_native, sd_ratio_vs_native, spreadsheet_sd_ratio_vs_native,
        margin_low_pct, margin_high_pct (the equivalence margin a test would use: margins.yml,
        rule block-io), verdict ("baseline" for native, else "not tested": n = 1),
        verdict_detail, source, spreadsheet_source.
    """
    records = []
    for test, job in SEQUENTIAL:
        for env in ENVIRONMENTS:
            mean, src = job_value(fio, env, job, "bandwidth_interval_mean")
            sd, _ = job_value(fio, env, job, "bandwidth_interval_sd")
            lo, _ = job_value(fio, env, job, "bandwidth_interval_min")
            hi, _ = job_value(fio, env, job, "bandwidth_interval_max")
            run_bw, run_src = job_value(fio, env, job, "bandwidth")
            meta = _one(fio[(fio["label"] == env) & (fio["p_job"] == job) & (fio["metric"] == "bandwidth")],
                        f"{env} {job} bandwidth")
            s_mean, s_raw, s_src = _spreadsheet(reference, env, job, "bandwidth_mean")
            s_sd, s_sd_raw, _ = _spreadsheet(reference, env, job, "bandwidth_sd")
            records.append({
                "test": test, "job": job, "block_size_bytes": int(meta["p_bs"]),
                "iodepth": int(meta["p_iodepth"]), "numjobs": int(meta["p_numjobs"]),
                "environment": env, "n_runs": N_RUNS,
                "bandwidth_mb_s": mean / MB, "interval_sd_mb_s": sd / MB,
                "interval_min_mb_s": lo / MB, "interval_max_mb_s": hi / MB,
                "error_bar": INTERVAL_SD, "run_bandwidth_mb_s": run_bw / MB,
                "ci95_low": math.nan, "ci95_high": math.nan, "ci_reason": NO_CI,
                "spreadsheet_mb_s": s_mean / MB, "spreadsheet_sd_mb_s": s_sd / MB,
                "spreadsheet_raw": f"{s_raw} (sd {s_sd_raw})" if s_raw else None,
                "pct_vs_spreadsheet": _pct(mean, s_mean),
                "source": f"{src} (bw interval line); {run_src} (bw=)",
                "spreadsheet_source": s_src,
            })
    out = pd.DataFrame.from_records(records)
    return _vs_native(out, "bandwidth_mb_s", "spreadsheet_mb_s", sd=("interval_sd_mb_s", "spreadsheet_sd_mb_s"))


def _vs_native(out: pd.DataFrame, value: str, sheet: str,
               sd: tuple[str, str] | None = None) -> pd.DataFrame:
    """Add ratio/percent vs Native (per test) for the log and the spreadsheet values."""
    base = out[out["environment"] == BASELINE].set_index("test")
    b = out["test"].map(base[value])
    out["ratio_vs_native"] = out[value] / b
    out["pct_vs_native"] = 100.0 * (out["ratio_vs_native"] - 1.0)
    out["spreadsheet_pct_vs_native"] = 100.0 * (out[sheet] / out["test"].map(base[sheet]) - 1.0)
    if sd is not None:
        out["sd_ratio_vs_native"] = out[sd[0]] / out["test"].map(base[sd[0]])
        out["spreadsheet_sd_ratio_vs_native"] = out[sd[1]] / out["test"].map(base[sd[1]])
    base_rows = (out["environment"] == BASELINE).to_numpy(dtype=bool)
    m = [comparisons.margin_of(item=t, benchmark="fio") for t in out["test"]]
    out["margin_low_pct"] = [x.low_pct for x in m]
    out["margin_high_pct"] = [x.high_pct for x in m]
    out["verdict"] = pd.array(np.where(base_rows, "baseline", "not tested"), dtype="string")
    out["verdict_detail"] = pd.array(np.where(base_rows, "baseline", f"not tested: {NOT_TESTABLE}"),
                                     dtype="string")
    return out


def random_iops(fio: pd.DataFrame, reference: pd.DataFrame | None = None) -> pd.DataFrame:
    """Compute Fig 6: random read, write and mixed 70/30 IOPS (4 KiB) per environment.

    Parameters
    ----------
    fio, reference : pandas.DataFrame
        As for :func:`sequential_throughput`.

    Returns
    -------
    pandas.DataFrame
        One row per (test, environment): test, job, block_size_bytes, iodepth, numjobs,
        outstanding_ios (iodepth x numjobs), environment, n_runs (1), iops (group report: sum
        over the job's threads; read + write for the mixed job), read_iops, write_iops,
        ci95_low, ci95_high (NaN), ci_reason, spreadsheet_iops, pct_vs_spreadsheet,
        ratio_vs_native, pct_vs_native, spreadsheet_pct_vs_native, margin_low_pct,
        margin_high_pct, verdict ("baseline" / "not tested": n = 1), verdict_detail, source,
        spreadsheet_source.
    """
    records = []
    for test, job in RANDOM:
        for env in ENVIRONMENTS:
            rows = fio[(fio["label"] == env) & (fio["p_job"] == job) & (fio["metric"] == "iops")]
            if rows.empty or rows["p_direction"].duplicated().any():
                raise FioDataError(f"expected one iops row per direction for {env} {job}, found {len(rows)}")
            by_dir = dict(zip(rows["p_direction"].astype(str), rows["value"].astype(float), strict=True))
            meta = rows.iloc[0]
            s_val, s_raw, s_src = _spreadsheet(reference, env, job, "iops")
            total = float(sum(by_dir.values()))
            records.append({
                "test": test, "job": job, "block_size_bytes": int(meta["p_bs"]),
                "iodepth": int(meta["p_iodepth"]), "numjobs": int(meta["p_numjobs"]),
                "outstanding_ios": int(meta["p_iodepth"]) * int(meta["p_numjobs"]),
                "environment": env, "n_runs": N_RUNS, "iops": total,
                "read_iops": by_dir.get("read", math.nan), "write_iops": by_dir.get("write", math.nan),
                "ci95_low": math.nan, "ci95_high": math.nan, "ci_reason": NO_CI,
                "spreadsheet_iops": s_val, "pct_vs_spreadsheet": _pct(total, s_val),
                "source": "; ".join(rows["source"].astype(str)), "spreadsheet_source": s_src,
            })
    out = pd.DataFrame.from_records(records)
    return _vs_native(out, "iops", "spreadsheet_iops")


def _percentile_rows(fio: pd.DataFrame, environment: str, job: str,
                     direction: str = "read") -> pd.DataFrame:
    rows = fio[(fio["label"] == environment) & (fio["p_job"] == job)
               & (fio["metric"] == "clat_percentile") & (fio["p_direction"] == direction)]
    if rows.empty or rows["p_percentile"].duplicated().any():
        raise FioDataError(f"expected one clat percentile list for {environment} {job} {direction}, "
                           f"found {len(rows)} rows")
    return rows.sort_values("p_percentile")


def latency_percentiles(fio: pd.DataFrame, job: str = LATENCY_JOB) -> pd.DataFrame:
    """Compute Fig 7 (committed logs): fio's clat percentiles of ``job`` as ECDF points.

    Parameters
    ----------
    fio : pandas.DataFrame
        ``load(tidy, "fio")``.
    job : str
        The fio job (default random-read-16: 4 KiB random read, iodepth 16, one job).

    Returns
    -------
    pandas.DataFrame
        version ("committed fio logs"), environment, job, iodepth, numjobs, percentile (0-100),
        latency_us, x_us and ecdf (the points of :func:`overhead.stats.ecdf_from_percentiles`:
        where fio printed the same value for several percentiles, the point keeps the largest),
        n_runs (1), source. Percentiles describe the I/Os of one run (within-run distribution).
    """
    parts = []
    for env in ENVIRONMENTS:
        rows = _percentile_rows(fio, env, job)
        p = rows["p_percentile"].to_numpy(dtype="float64")
        v = rows["value"].to_numpy(dtype="float64")
        pts = stats.ecdf_from_percentiles(stats.Percentiles(p.tolist(), v.tolist()))
        on_curve = dict(zip(pts["x"], pts["ecdf"], strict=True))
        parts.append(pd.DataFrame({
            "version": "committed fio logs", "environment": env, "job": job,
            "iodepth": int(rows["p_iodepth"].iloc[0]), "numjobs": int(rows["p_numjobs"].iloc[0]),
            "percentile": p, "latency_us": np.round(v / US, 6),
            "ecdf": [round(on_curve[x], 6) if math.isclose(on_curve[x], pp / 100.0) else math.nan
                     for x, pp in zip(v, p, strict=True)],
            "n_runs": N_RUNS, "source": rows["source"].astype(str).to_numpy()}))
    return pd.concat(parts, ignore_index=True)


def identify_spreadsheet_latency(fio: pd.DataFrame, reference: pd.DataFrame,
                                 min_share: float = 0.75) -> pd.DataFrame:
    """Identify the committed fio job each column of the spreadsheet's latency sheet comes from.

    Parameters
    ----------
    fio : pandas.DataFrame
        ``load(tidy, "fio")``.
    reference : pandas.DataFrame
        ``load(tidy, "fio", table="reference")``.
    min_share : float
        A job matches when at least this share of the spreadsheet's percentiles equal the
        job's (the authors typed the values by hand; one typo should not hide the source).

    Returns
    -------
    pandas.DataFrame
        environment, spreadsheet_test (its own title), matching_job (the random-read job of the
        same environment's log with the most equal percentiles, or "none committed"), iodepth,
        numjobs, outstanding_ios, n_percentiles, n_equal, mismatches (e.g. "p80: sheet 1728 us,
        log 1720 us"), note.
    """
    sheet = reference[reference["metric"] == "completion_latency_percentile"]
    records = []
    for env in ENVIRONMENTS:
        s = sheet[sheet["label"] == env].sort_values("p_percentile")
        if s.empty:
            continue
        want = dict(zip(s["p_percentile"].astype(float), s["value"].astype(float), strict=True))
        best = None
        jobs = fio.loc[(fio["label"] == env) & (fio["p_rw"] == "randread"), "p_job"].dropna().unique()
        for job in sorted(jobs):
            rows = _percentile_rows(fio, env, job)
            have = dict(zip(rows["p_percentile"].astype(float), rows["value"].astype(float), strict=True))
            equal = [p for p, v in want.items() if p in have and math.isclose(have[p], v, rel_tol=1e-9)]
            if best is None or len(equal) > len(best[2]):
                best = (job, rows, equal, have)
        rec = {"environment": env, "spreadsheet_test": str(s["p_test"].iloc[0]), "n_percentiles": len(want)}
        if best and len(best[2]) >= min_share * len(want):
            job, rows, equal, have = best
            depth, n_jobs = int(rows["p_iodepth"].iloc[0]), int(rows["p_numjobs"].iloc[0])
            bad = [f"p{p:g}: sheet {want[p] / US:g} us, log {have.get(p, math.nan) / US:g} us"
                   for p in want if p not in equal]
            rec.update(matching_job=job, iodepth=depth, numjobs=n_jobs, outstanding_ios=depth * n_jobs,
                       n_equal=len(equal), mismatches="; ".join(bad) or None,
                       note=(f"{len(equal)} of {len(want)} percentiles equal {env}'s {job} in the committed log"
                             + (" (the rest look like typing errors)" if bad else "")))
        else:
            rec.update(matching_job="none committed", n_equal=len(best[2]) if best else 0,
                       note="matches no random-read job of the committed log (a run that is not in "
                            "the repository)")
        records.append(rec)
    out = pd.DataFrame.from_records(records, columns=["environment", "spreadsheet_test", "matching_job",
                                                      "iodepth", "numjobs", "outstanding_ios",
                                                      "n_percentiles", "n_equal", "mismatches", "note"])
    for c in ("iodepth", "numjobs", "outstanding_ios", "n_equal"):
        out[c] = out[c].astype("Int64")
    return out


def spreadsheet_latency_percentiles(reference: pd.DataFrame,
                                    identified: pd.DataFrame | None = None) -> pd.DataFrame:
    """Compute Fig 7 as the authors' spreadsheet has it (Sheet2, titled "Random read (QD 128)").

    Parameters
    ----------
    reference : pandas.DataFrame
        ``load(tidy, "fio", table="reference")``.
    identified : pandas.DataFrame or None
        Output of :func:`identify_spreadsheet_latency`, to name each column's job.

    Returns
    -------
    pandas.DataFrame
        The columns of :func:`latency_percentiles` with version "authors' spreadsheet" and job
        = the identified job (or "uncommitted run").
    """
    sheet = reference[reference["metric"] == "completion_latency_percentile"]
    jobs = {} if identified is None else dict(zip(identified["environment"], identified["matching_job"],
                                                 strict=True))
    parts = []
    for env in ENVIRONMENTS:
        s = sheet[sheet["label"] == env].sort_values("p_percentile")
        if s.empty:
            continue
        p = s["p_percentile"].to_numpy(dtype="float64")
        v = s["value"].to_numpy(dtype="float64")
        job = jobs.get(env, "?")
        parts.append(pd.DataFrame({
            "version": "authors' spreadsheet", "environment": env,
            "job": "uncommitted run" if job == "none committed" else job,
            "iodepth": pd.NA, "numjobs": pd.NA, "percentile": p, "latency_us": np.round(v / US, 6),
            "ecdf": p / 100.0, "n_runs": N_RUNS, "source": s["source"].astype(str).to_numpy()}))
    if not parts:
        return pd.DataFrame(columns=["version", "environment", "job", "iodepth", "numjobs", "percentile",
                                     "latency_us", "ecdf", "n_runs", "source"])
    out = pd.concat(parts, ignore_index=True)
    if identified is not None:
        meta = identified.set_index("environment")
        out["iodepth"] = out["environment"].map(meta["iodepth"]).astype("Int64")
        out["numjobs"] = out["environment"].map(meta["numjobs"]).astype("Int64")
    return out


def latency_comparison(fio: pd.DataFrame, job: str = LATENCY_JOB,
                       probs: Sequence[float] = (0.01, 0.1, 0.5, 0.9, 0.99)) -> pd.DataFrame:
    """Compute Fig 7 in numbers: each environment's latency percentiles and means against Native.

    Parameters
    ----------
    fio : pandas.DataFrame
        ``load(tidy, "fio")``.
    job : str
        The fio job (default random-read-16).
    probs : sequence of float
        Percentiles (as probabilities) to compare.

    Returns
    -------
    pandas.DataFrame
        environment, statistic ("p50", ..., "clat mean", "total latency mean", "Little's law
        iodepth / IOPS"), value_us, native_us, ratio_vs_native, n_runs, verdict ("baseline" /
        "not tested": one run each, no interval), basis, note. The
        percentile ratios come from :func:`overhead.stats.quantile_ratios` on fio's percentile
        lists (one run each: no CI). The last statistic checks Little's law inside fio:
        iodepth / IOPS is the mean time an I/O spends outstanding, which should be close to
        fio's mean total latency (slat + clat).
    """
    lists = {env: _percentile_rows(fio, env, job) for env in ENVIRONMENTS}
    data = {env: stats.Percentiles(r["p_percentile"].tolist(), r["value"].tolist()) for env, r in lists.items()}
    qr = stats.quantile_ratios(data, BASELINE, probs)
    records = []
    for env in ENVIRONMENTS:
        for p in probs:
            hit = qr[np.isclose(qr["p"], p)]
            v = (hit["quantile_baseline"].iloc[0] if env == BASELINE
                 else hit.loc[hit["environment"] == env, "quantile"].iloc[0])
            records.append({"environment": env, "statistic": f"p{100 * p:g}", "value_us": round(float(v) / US, 6),
                            "basis": "fio clat percentile (within one run)"})
        clat, _ = job_value(fio, env, job, "clat_mean", "read")
        lat, _ = job_value(fio, env, job, "lat_mean", "read")
        iops, _ = job_value(fio, env, job, "iops", "read")
        depth = int(lists[env]["p_iodepth"].iloc[0])
        records += [
            {"environment": env, "statistic": "clat mean", "value_us": clat / US,
             "basis": "fio clat avg"},
            {"environment": env, "statistic": "total latency mean", "value_us": lat / US,
             "basis": "fio lat avg (submission + completion)"},
            {"environment": env, "statistic": "Little's law iodepth / IOPS", "value_us": depth / iops / US,
             "basis": f"{depth} outstanding I/Os / fio iops"},
        ]
    out = pd.DataFrame.from_records(records)
    base = out[out["environment"] == BASELINE].set_index("statistic")["value_us"]
    out["native_us"] = out["statistic"].map(base)
    out["ratio_vs_native"] = out["value_us"] / out["native_us"]
    out["n_runs"] = N_RUNS
    out["verdict"] = pd.array(np.where(out["environment"] == BASELINE, "baseline", "not tested"), dtype="string")
    out["note"] = NO_CI
    return out[["environment", "statistic", "value_us", "native_us", "ratio_vs_native", "n_runs",
                "verdict", "basis", "note"]]


def overlap(fio: pd.DataFrame, job: str = LATENCY_JOB, environment: str = "KVM") -> dict[str, float]:
    """Measure how far apart two within-run latency distributions are, from the percentile lists.

    Parameters
    ----------
    fio : pandas.DataFrame
        ``load(tidy, "fio")``.
    job : str
        The fio job (default random-read-16).
    environment : str
        The environment compared with Native.

    Returns
    -------
    dict of str to float
        {"env_p1_us", "native_p99_us", "native_share_below_env_p1"}: the environment's 1st
        percentile, Native's 99th, and the largest Native percentile (0-100) whose latency is
        below the environment's 1st percentile (i.e. at least that share of Native I/Os
        finished faster than the fastest 1% of the environment's I/Os).
    """
    env = _percentile_rows(fio, environment, job)
    nat = _percentile_rows(fio, BASELINE, job)
    p1 = float(env.loc[env["p_percentile"] == 1.0, "value"].iloc[0])
    below = nat[nat["value"].astype(float) < p1]["p_percentile"]
    return {"env_p1_us": p1 / US,
            "native_p99_us": float(nat.loc[nat["p_percentile"] == 99.0, "value"].iloc[0]) / US,
            "native_share_below_env_p1": float(below.max()) if len(below) else 0.0}


__all__ = ["BASELINE", "ENVIRONMENTS", "FioDataError", "LATENCY_JOB", "NOT_TESTABLE", "NO_CI", "RANDOM",
           "SEQUENTIAL", "identify_spreadsheet_latency", "job_value", "latency_comparison",
           "latency_percentiles", "overlap", "random_iops", "sequential_throughput",
           "spreadsheet_latency_percentiles"]


def authors_tables(tidy_dir: str | os.PathLike[str], paper: pd.DataFrame | None = None) -> dict[str, pd.DataFrame]:
    """Compute the section's comparison tables from the authors' tidy data.

    ``fig05`` (:func:`sequential_throughput`), ``fig06`` (:func:`random_iops`), both with the
    spreadsheet's values beside when ``paper`` is given (a comparison is wanted), and
    ``fig07_ratios`` (:func:`latency_comparison`). Fig 7's percentiles, which set the
    spreadsheet's inconsistent columns beside the logs, stay with the notebook.
    """
    from overhead.rc25482 import load

    fio = load(tidy_dir, "fio")
    sheet = load(tidy_dir, "fio", table="reference") if paper is not None else None
    return {"fig05": sequential_throughput(fio, sheet), "fig06": random_iops(fio, sheet),
            "fig07_ratios": latency_comparison(fio)}


# --- the prose numbers of the notebook (its "Reading ..." paragraphs) ------------------

#: The spreadsheet's "MB/s" are fio's KB/s (KiB/s) divided by 1000: 1 spreadsheet unit = 1.024 MB/s.
SHEET_UNIT_MB_S = 1.024


def fig5_spreadsheet(fig5: pd.DataFrame) -> dict:
    """Compute the numbers of Fig 5's "known problems" paragraph (log against spreadsheet).

    Parameters
    ----------
    fig5 : pandas.DataFrame
        :func:`overhead.rc25482.blockio.sequential_throughput` (with the spreadsheet).

    Returns
    -------
    dict
        kvm_read_sheet_units, kvm_write_sheet_units (the committed vm.log in the spreadsheet's
        units), kvm_read_below, kvm_write_below (% below the spreadsheet's KVM values),
        others_equal ("equal their logs" when Native's and Docker's spreadsheet values are
        within 0.01% of the logs), native_read_sheet_raw (the spreadsheet's printed native read
        value) and native_read_mb_s (the same in MB/s).
    """
    read = wording.row(fig5, test="Sequential Read", environment="KVM")
    write = wording.row(fig5, test="Sequential Write", environment="KVM")
    others = fig5[fig5["environment"] != "KVM"]
    equal = bool((others["pct_vs_spreadsheet"].abs() < 0.01).all())
    native = wording.row(fig5, test="Sequential Read", environment="Native")
    return {
        "kvm_read_sheet_units": float(read["bandwidth_mb_s"]) / SHEET_UNIT_MB_S,
        "kvm_write_sheet_units": float(write["bandwidth_mb_s"]) / SHEET_UNIT_MB_S,
        "kvm_read_below": -float(read["pct_vs_spreadsheet"]),
        "kvm_write_below": -float(write["pct_vs_spreadsheet"]),
        "others_equal": "equal their logs" if equal else "differ from their logs",
        "native_read_sheet_raw": float(native["spreadsheet_mb_s"]) / SHEET_UNIT_MB_S,
        "native_read_mb_s": float(native["spreadsheet_mb_s"]),
    }


def fig5_findings(fig5: pd.DataFrame) -> dict:
    """Compute the numbers of "Reading Fig 5" (sequential throughput against native).

    Parameters
    ----------
    fig5 : pandas.DataFrame
        :func:`overhead.rc25482.blockio.sequential_throughput` (with the spreadsheet).

    Returns
    -------
    dict
        docker_bound (largest |Docker - native| in %, rounded up to 0.1), kvm_read, kvm_write
        (KVM's loss against native in the committed logs, %), sheet_read, sheet_write (the
        same in the spreadsheet), sd_read, sd_write (KVM / native within-run SD ratio, logs),
        sheet_sd_read, sheet_sd_write (the same in the spreadsheet).
    """
    read = wording.row(fig5, test="Sequential Read", environment="KVM")
    write = wording.row(fig5, test="Sequential Write", environment="KVM")
    docker = fig5.loc[fig5["environment"] == "Docker", "pct_vs_native"].abs().max()
    return {
        "docker_bound": wording.up(float(docker), 1),
        "kvm_read": -float(read["pct_vs_native"]), "kvm_write": -float(write["pct_vs_native"]),
        "sheet_read": -float(read["spreadsheet_pct_vs_native"]),
        "sheet_write": -float(write["spreadsheet_pct_vs_native"]),
        "sd_read": float(read["sd_ratio_vs_native"]), "sd_write": float(write["sd_ratio_vs_native"]),
        "sheet_sd_read": float(read["spreadsheet_sd_ratio_vs_native"]),
        "sheet_sd_write": float(write["spreadsheet_sd_ratio_vs_native"]),
    }


def fig6_spreadsheet(fig6: pd.DataFrame) -> dict:
    """Compute KVM's random-I/O IOPS in the committed log and in the spreadsheet (Fig 6 intro).

    Parameters
    ----------
    fig6 : pandas.DataFrame
        :func:`overhead.rc25482.blockio.random_iops` (with the spreadsheet).

    Returns
    -------
    dict
        log_read, log_write, log_mixed (KVM IOPS of the committed vm.log), sheet_read,
        sheet_write, sheet_mixed (the spreadsheet's KVM values).
    """
    out = {}
    for key, test in (("read", "Random Read"), ("write", "Random Write"), ("mixed", "Random Mixed 70/30")):
        row = wording.row(fig6, test=test, environment="KVM")
        out[f"log_{key}"] = float(row["iops"])
        out[f"sheet_{key}"] = float(row["spreadsheet_iops"])
    return out


def fig6_findings(fig6: pd.DataFrame) -> dict:
    """Compute the numbers of "Reading Fig 6" (random I/O against native).

    Parameters
    ----------
    fig6 : pandas.DataFrame
        :func:`overhead.rc25482.blockio.random_iops` (with the spreadsheet).

    Returns
    -------
    dict
        docker_bound (largest |Docker - native| in %, rounded up to 0.01), kvm_fewer_low/high
        (KVM's fewer IOPS than native in the logs, %), sheet_fewer_low/high (the same in the
        spreadsheet), half ("holds in both" when every one of them lies between 40% and 60%),
        gap (the logs' mean shortfall, %).
    """
    docker = fig6.loc[fig6["environment"] == "Docker", "pct_vs_native"].abs().max()
    kvm = fig6[fig6["environment"] == "KVM"]
    log = -kvm["pct_vs_native"].astype(float)
    sheet = -kvm["spreadsheet_pct_vs_native"].astype(float)
    both = pd.concat([log, sheet])
    return {
        "docker_bound": wording.up(float(docker), 2),
        "kvm_fewer_low": float(log.min()), "kvm_fewer_high": float(log.max()),
        "sheet_fewer_low": float(sheet.min()), "sheet_fewer_high": float(sheet.max()),
        "half": "holds in both" if bool(both.between(40, 60).all()) else "does not hold in both",
        "gap": float(log.mean()),
    }


_MISMATCH = re.compile(r"p([\d.]+): sheet ([\d.]+) us, log ([\d.]+) us")


def fig7_percentiles(lat: pd.DataFrame, ident: pd.DataFrame | None = None) -> dict:
    """Compute the numbers of the Fig 7 introduction (medians, and the spreadsheet's columns).

    Parameters
    ----------
    lat : pandas.DataFrame
        :func:`overhead.rc25482.blockio.latency_percentiles`.
    ident : pandas.DataFrame or None
        :func:`overhead.rc25482.blockio.identify_spreadsheet_latency` (None: no spreadsheet).

    Returns
    -------
    dict
        median_native, median_docker, median_kvm (us), n_percentiles (how many percentiles
        fio printed per run); with ``ident``: native_job, native_outstanding, native_numjobs,
        native_iodepth, native_equal, native_of, native_slips (e.g. "p80 reads 1728 instead of
        1720 us"), the same docker_* keys, and kvm_job.
    """
    med = lat[lat["percentile"] == 50].set_index("environment")["latency_us"]
    counts = lat.groupby("environment").size()
    if counts.nunique() != 1:
        raise ValueError(f"fio printed different numbers of percentiles per environment: {counts.to_dict()}")
    out = {"median_native": float(med["Native"]), "median_docker": float(med["Docker"]),
           "median_kvm": float(med["KVM"]), "n_percentiles": int(counts.iloc[0])}
    if ident is not None:
        rows = ident.set_index("environment")
        for env in ("Native", "Docker"):
            r = rows.loc[env]
            key = env.lower()
            out[f"{key}_job"] = str(r["matching_job"])
            out[f"{key}_outstanding"] = int(r["outstanding_ios"])
            out[f"{key}_numjobs"] = int(r["numjobs"])
            out[f"{key}_iodepth"] = int(r["iodepth"])
            out[f"{key}_equal"] = int(r["n_equal"])
            out[f"{key}_of"] = int(r["n_percentiles"])
            slips = _MISMATCH.findall(str(r["mismatches"])) if pd.notna(r["mismatches"]) else []
            out[f"{key}_slips"] = "; ".join(f"p{p} reads {s} instead of {lg} us" for p, s, lg in slips)
        out["kvm_job"] = str(rows.loc["KVM", "matching_job"])
    return out


def fig7_findings(ratios: pd.DataFrame, gap: dict) -> dict:
    """Compute the numbers of "Reading Fig 7" (random read latency against native).

    Parameters
    ----------
    ratios : pandas.DataFrame
        :func:`overhead.rc25482.blockio.latency_comparison`.
    gap : dict
        :func:`overhead.rc25482.blockio.overlap`.

    Returns
    -------
    dict
        docker_median, native_median (us), docker_on_native ("lies on native's" when every
        Docker percentile is within 2% of native's), kvm_p1, kvm_p10, kvm_p50, kvm_p90,
        kvm_p99 (KVM / native ratios), paper_range ("holds across the distribution" when the
        ratios from the 10th percentile up lie in 2-3x, rounded to 0.1), kvm_p1_us,
        native_p99_us, overlap ("is as slow as" when KVM's 1st percentile is at least native's
        99th), little_native, little_kvm (iodepth / IOPS, us), lat_native, lat_kvm (fio's mean
        total latency, us).
    """
    def value(env: str, stat: str, col: str = "value_us") -> float:
        return wording.at(ratios, col, environment=env, statistic=stat)

    pcts = [s for s in ratios["statistic"].unique() if re.fullmatch(r"p[\d.]+", s)]
    docker = ratios[(ratios["environment"] == "Docker") & ratios["statistic"].isin(pcts)]
    upper = [s for s in pcts if float(s[1:]) >= 10]
    kvm_upper = ratios[(ratios["environment"] == "KVM") & ratios["statistic"].isin(upper)]["ratio_vs_native"]
    in_range = bool(kvm_upper.round(1).between(2.0, 3.0).all())
    return {
        "docker_median": value("Docker", "p50"), "native_median": value("Native", "p50"),
        "docker_on_native": ("lies on native's" if bool((docker["ratio_vs_native"] - 1).abs().max() <= 0.02)
                             else "differs from native's"),
        **{f"kvm_{s}": value("KVM", s, "ratio_vs_native") for s in ("p1", "p10", "p50", "p90", "p99")},
        "paper_range": ("holds across the distribution" if in_range
                        else "does not hold across the whole distribution"),
        "kvm_p1_us": float(gap["env_p1_us"]), "native_p99_us": float(gap["native_p99_us"]),
        "overlap": "is as slow as" if gap["env_p1_us"] >= gap["native_p99_us"] else "is faster than",
        "little_native": value("Native", "Little's law iodepth / IOPS"),
        "little_kvm": value("KVM", "Little's law iodepth / IOPS"),
        "lat_native": value("Native", "total latency mean"), "lat_kvm": value("KVM", "total latency mean"),
    }


# --- figures (drawn for the notebook; the notebook saves and shows them) ---

def _bars_with_sheet(ax: Axes, frame: pd.DataFrame, value: str, err: str | None, sheet_value: str,
                     sheet_err: str | None, tests: Sequence[str], scale: float = 1.0,
                     fmt: str = "{:.0f}") -> Axes:
    """Draw grouped bars (committed logs) per test and environment, spreadsheet values as markers.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The axes to draw on.
    frame : pandas.DataFrame
        :func:`sequential_throughput` or :func:`random_iops`.
    value, err : str
        The bar height column and its error-bar column (None: no error bars).
    sheet_value, sheet_err : str
        The spreadsheet's column and its error-bar column (None: none), drawn as diamonds when
        the frame has any spreadsheet value.
    tests : sequence of str
        The tests, in x order.
    scale : float
        Every value is divided by it.
    fmt : str
        Format of the value written inside each bar.

    Returns
    -------
    matplotlib.axes.Axes
        ``ax``.
    """
    width = 0.26
    x = np.arange(len(tests))
    for i, env in enumerate(ENVIRONMENTS):
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


def _plotly_bars(frame: pd.DataFrame, value: str, err: str | None, sheet_value: str, sheet_err: str | None,
                 tests: Sequence[str], ytitle: str, title: str, err_label: str) -> go.Figure:
    """Draw the interactive version of :func:`_bars_with_sheet`.

    Parameters
    ----------
    frame : pandas.DataFrame
        :func:`sequential_throughput` or :func:`random_iops`.
    value, err, sheet_value, sheet_err, tests
        As for :func:`_bars_with_sheet`.
    ytitle, title : str
        The y axis title and the figure title.
    err_label : str
        The note written below the plot.

    Returns
    -------
    plotly.graph_objects.Figure
        One bar trace per environment, and one marker trace per environment with spreadsheet values.
    """
    fig = go.Figure()
    for env in ENVIRONMENTS:
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


def plot_fig05(fig5: pd.DataFrame) -> Figure:
    """Draw Fig 5: sequential read and write throughput per environment, with the spreadsheet's values.

    Parameters
    ----------
    fig5 : pandas.DataFrame
        :func:`sequential_throughput` (with or without the spreadsheet).

    Returns
    -------
    matplotlib.figure.Figure
        Bars of the committed logs with fio's within-run interval SD, the spreadsheet's values
        as diamonds, and a footnote on what the error bars are.
    """
    tests5 = [t for t, _ in SEQUENTIAL]
    fig, ax = plt.subplots(figsize=(8.5, 5.2))
    _bars_with_sheet(ax, fig5, "bandwidth_mb_s", "interval_sd_mb_s", "spreadsheet_mb_s", "spreadsheet_sd_mb_s",
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
    return fig


def plotly_fig05(fig5: pd.DataFrame) -> go.Figure:
    """Draw the interactive Fig 5 (sequential throughput).

    Parameters
    ----------
    fig5 : pandas.DataFrame
        :func:`sequential_throughput` (with or without the spreadsheet).

    Returns
    -------
    plotly.graph_objects.Figure
        One bar trace per environment (MB/s, within-run SD as error bars), the spreadsheet's
        values as marker traces.
    """
    tests5 = [t for t, _ in SEQUENTIAL]
    return _plotly_bars(fig5, "bandwidth_mb_s", "interval_sd_mb_s", "spreadsheet_mb_s", "spreadsheet_sd_mb_s",
                        tests5, "MB/s", "Fig 5: sequential throughput (n = 1 run per environment)",
                        "error bars: fio per-interval bandwidth SD within one run, not a CI")


def plot_fig06(fig6: pd.DataFrame) -> Figure:
    """Draw Fig 6: random 4 KiB IOPS per environment, with the spreadsheet's values and KVM's gap.

    Parameters
    ----------
    fig6 : pandas.DataFrame
        :func:`random_iops` (with or without the spreadsheet; KVM's notes quote
        ``pct_vs_native`` and ``spreadsheet_pct_vs_native``).

    Returns
    -------
    matplotlib.figure.Figure
        Bars of the committed logs in thousands of IOPS, the spreadsheet's values as diamonds,
        KVM's percent difference from native written above its bars.
    """
    tests6 = [t for t, _ in RANDOM]
    fig, ax = plt.subplots(figsize=(9, 5.2))
    _bars_with_sheet(ax, fig6, "iops", None, "spreadsheet_iops", None, tests6, scale=1000, fmt="{:.1f}k")
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
    return fig


def plotly_fig06(fig6: pd.DataFrame) -> go.Figure:
    """Draw the interactive Fig 6 (random I/O IOPS).

    Parameters
    ----------
    fig6 : pandas.DataFrame
        :func:`random_iops` (with or without the spreadsheet).

    Returns
    -------
    plotly.graph_objects.Figure
        One bar trace per environment (IOPS), the spreadsheet's values as marker traces.
    """
    tests6 = [t for t, _ in RANDOM]
    return _plotly_bars(fig6, "iops", None, "spreadsheet_iops", None, tests6, "IOPS (4 KiB)",
                        "Fig 6: random I/O IOPS (n = 1 run per environment)",
                        "bars: committed fio logs; diamonds: authors' spreadsheet (KVM from an uncommitted run)")


def plot_fig07(lat: pd.DataFrame, ratios: pd.DataFrame, lat_sheet: pd.DataFrame | None = None) -> Figure:
    """Draw Fig 7: the random-read latency ECDF of fio's percentiles, and the spreadsheet's version.

    Parameters
    ----------
    lat : pandas.DataFrame
        :func:`latency_percentiles` (extra columns are ignored).
    ratios : pandas.DataFrame
        :func:`latency_comparison`: KVM's median and p99 ratios to native are written on the plot.
    lat_sheet : pandas.DataFrame or None
        :func:`spreadsheet_latency_percentiles`, drawn in a second panel (log x axis); None:
        one panel.

    Returns
    -------
    matplotlib.figure.Figure
        One curve per environment per panel; KVM percentiles beyond 1300 us are listed in the
        note instead of drawn.
    """
    ncols = 2 if lat_sheet is not None else 1
    fig, axes = plt.subplots(1, ncols, figsize=(6.2 * ncols, 4.8), squeeze=False)
    ax = axes[0, 0]
    for env in ENVIRONMENTS:
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
        for env in ENVIRONMENTS:
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
    return fig


def plotly_fig07(lat: pd.DataFrame, lat_sheet: pd.DataFrame | None = None) -> go.Figure:
    """Draw the interactive Fig 7 (random read latency ECDF).

    Parameters
    ----------
    lat : pandas.DataFrame
        :func:`latency_percentiles` (extra columns are ignored).
    lat_sheet : pandas.DataFrame or None
        :func:`spreadsheet_latency_percentiles`, drawn in a second panel (log x axis); None:
        one panel.

    Returns
    -------
    plotly.graph_objects.Figure
        One trace per environment per panel (x: latency in us, y: ECDF).
    """
    ncols = 2 if lat_sheet is not None else 1
    fig = make_subplots(rows=1, cols=ncols, subplot_titles=["random-read-16 (committed logs)",
                                                            "authors' spreadsheet (mixes jobs)"][:ncols])
    for env in ENVIRONMENTS:
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
    return fig


# --- the same tables from a campaign measured here (the live side) -------------------

LIVE_SEQUENTIAL = {"read": "Sequential Read", "write": "Sequential Write"}


LIVE_RANDOM = {"randread": "Random Read", "randwrite": "Random Write", "randrw": "Random Mixed 70/30"}


def _live_fio_total(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per run: a mixed job's read and write directions summed."""
    keys = livedata.keys(rows, "run_id", "label", "p_rw")
    return rows.groupby(keys, as_index=False, observed=True, dropna=False)["value"].sum()


def live_tables(live: livedata.Live) -> dict[str, pd.DataFrame]:
    """Figs 5-7 live: sequential bandwidth (MB/s), random IOPS, random-read latency percentiles.

    Returns ``{"fig05": ..., "fig06": ..., "fig07": ...}``; Fig 7's items are p50, p90, p99
    of fio's completion latency (us) of the random-read job, one value per run.
    """
    seq = live.benchmark("fio-seq", "bandwidth")
    fig05 = livedata.finish([livedata.compare(seq[seq["p_rw"] == rw], "fig05", name, "MB/s", 1e6)
                     for rw, name in LIVE_SEQUENTIAL.items()])

    def match5(a: pd.DataFrame, row: pd.Series, env: str) -> pd.DataFrame:
        return a[(a["test"] == row["item"]) & (a["environment"] == env)]

    fig05 = livedata.attach_authors(fig05, live, "blockio", "fig05", match5, "bandwidth_mb_s", "pct_vs_native")
    rnd = _live_fio_total(pd.concat([live.benchmark("fio-rand", "iops"), live.benchmark("fio-mixed", "iops")]))
    fig06 = livedata.finish([livedata.compare(rnd[rnd["p_rw"] == rw], "fig06", name, "IOPS", higher_is_better=True,
                              benchmark="fio-rand", metric="iops")
                     for rw, name in LIVE_RANDOM.items()])
    # the authors' random jobs at 16x8 (their Fig 6); one job here (quick) or both (paper)
    fig06 = livedata.attach_authors(fig06, live, "blockio", "fig06",
                            lambda a, row, env: a[(a["test"] == row["item"]) & (a["environment"] == env)
                                                  & (a["numjobs"] == a["numjobs"].max())],
                            "iops", "pct_vs_native")
    pcts = live.benchmark("fio-rand", "clat_percentile", p_rw="randread")
    fig07 = livedata.finish([livedata.compare(pcts[pcts["p_percentile"] == p], "fig07", f"p{p:g}", "us", 1e-6)
                     for p in (50.0, 90.0, 99.0)])

    def match7(a: pd.DataFrame, row: pd.Series, env: str) -> pd.DataFrame:
        return a[(a["statistic"] == row["item"]) & (a["environment"] == env)]

    fig07 = livedata.attach_authors(fig07, live, "blockio", "fig07_ratios", match7, "value_us", None)
    if not fig07.empty:
        fig07["authors_pct_vs_native"] = _live_pct_from_ratio(live, fig07)
    return {"fig05": fig05, "fig06": fig06, "fig07": fig07}


def _live_pct_from_ratio(live: livedata.Live, fig07: pd.DataFrame) -> list[float]:
    a = livedata.authors_table(live, "fig07_ratios")
    if a is None:
        return [np.nan] * len(fig07)
    ratio = a.set_index(["statistic", "environment"])["ratio_vs_native"]
    return [100 * (ratio.get((i, e), np.nan) - 1) if e else np.nan
            for i, e in zip(fig07["item"], fig07["authors_environment"], strict=True)]
