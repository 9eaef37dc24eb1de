"""The numbers the RC25482 notebooks state in their prose, computed from the frames they hold.

Each "Reading Fig N" (or similar) paragraph of a notebook is a code cell that formats the
values one function here returns into its Markdown text (with :mod:`overhead.prose`), so no
result is typed by hand and none can go stale. One function per paragraph; each takes the
frames the notebook already has and returns a dict of plain floats, ints and strings. Where a
paragraph makes a qualitative claim ("tracks native", "never reaches"), the function also
returns the words that the numbers support, so the sentence changes when the data does.

Values meant for "within x" or "at most x" are rounded *up* (``*_bound`` keys), so the
sentence stays true after formatting. The paper's own numbers come from the published values
(:func:`overhead.rc25482.published.published`) when a paragraph compares with them.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd

from overhead import stats
from overhead.rc25482 import comparisons, compute, mysql, redis
from overhead.rc25482.published import published, table1_published

__all__ = [
    "fig5", "fig5_spreadsheet", "fig6", "fig6_spreadsheet", "fig7", "fig7_percentiles", "fig8",
    "fig9_bounds", "fig10", "fig11", "fig11_segmentation", "fig12", "fig12_littles", "fig13",
    "linpack_outlier", "mysql_comparison", "mysql_counters", "mysql_packets", "redis_analysis",
    "stream_medians", "stream_rates",
]

#: The paper's STREAM statement: "the median data exhibiting a difference of only 1.4%".
PAPER_STREAM_SPREAD_PCT = 1.4
_COUNT_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven",
                8: "eight", 9: "nine", 10: "ten"}
_TIMES_WORDS = {1: "once", 2: "twice", 3: "three times", 4: "four times"}


def _one(frame: pd.DataFrame, what: str) -> pd.Series:
    """Return the single row of ``frame``; ValueError naming ``what`` when there are 0 or more."""
    if len(frame) != 1:
        raise ValueError(f"expected one row for {what}, found {len(frame)}")
    return frame.iloc[0]


def _row(frame: pd.DataFrame, **where: object) -> pd.Series:
    """Return the one row of ``frame`` whose columns equal ``where``."""
    mask = np.ones(len(frame), dtype=bool)
    for key, value in where.items():
        mask &= (frame[key] == value).to_numpy(dtype=bool, na_value=False)
    return _one(frame[mask], f"the row at {where}")


def _at(frame: pd.DataFrame, column: str, **where: object) -> float:
    """Return ``column`` of the one row of ``frame`` whose columns equal ``where``."""
    return float(_row(frame, **where)[column])


def _up(x: float, digits: int) -> float:
    """Round ``x`` up to ``digits`` decimals (for "within x" and "at most x")."""
    scale = 10.0 ** digits
    return math.ceil(round(x * scale, 9)) / scale


def _up_sig(x: float, figures: int = 1) -> float:
    """Round a positive ``x`` up to ``figures`` significant figures."""
    if x <= 0:
        return 0.0
    return _up(x, figures - 1 - math.floor(math.log10(x)))


def _count(n: int) -> str:
    """Write a small count as a word ("nine"), a larger one in digits."""
    return _COUNT_WORDS.get(int(n), str(int(n)))


def _times(ratio: float) -> str:
    """Say how often a packet is counted, from a ratio near a whole number ("twice")."""
    k = int(round(ratio))
    return _TIMES_WORDS.get(k, f"{ratio:.1f} times")


def _paper(paper: pd.DataFrame | None) -> pd.DataFrame:
    """Return the published values (the default study file when the notebook has none)."""
    return paper if paper is not None else published()


# --- 01: Table I and II ------------------------------------------------------------------------

def linpack_outlier(trials: pd.DataFrame, table1: pd.DataFrame, views: pd.DataFrame,
                    paper: pd.DataFrame | None = None) -> dict:
    """Compute the numbers of the untuned-KVM Linpack caveat (the flagged trial).

    Parameters
    ----------
    trials : pandas.DataFrame
        :func:`overhead.rc25482.compute.load_trials`.
    table1 : pandas.DataFrame
        :func:`overhead.rc25482.compute.table1`.
    views : pandas.DataFrame
        :func:`overhead.rc25482.compute.linpack_views`.
    paper : pandas.DataFrame or None
        The published values (the authors' spreadsheet cell); None reads the study's file.

    Returns
    -------
    dict
        trial, file, line, value (GFLOPS) and mod_z of the flagged trial; others_mean and
        others (the other trials' mean, and their count in words); sd, ci_low, ci_high (the
        Table I cell's SD and 95% CI of the mean) and ci_method; sheet_mean, sheet_sd (the
        spreadsheet cell) and sheet_what (whether it is the mean of all trials); n_aborted
        (trials of the aborted tuned block).
    """
    cell = trials[(trials["workload"] == "Linpack") & (trials["environment"] == "KVM-untuned")
                  & trials["in_table"]]
    flagged_mask = cell["outlier"].fillna(False).astype(bool)
    flagged = _one(cell[flagged_mask], "the flagged untuned-KVM Linpack trial")
    others = cell.loc[~flagged_mask, "value"]
    file, line = str(flagged["source"]).rsplit(":", 1)
    row = _row(table1, workload="Linpack", environment="KVM-untuned")
    sheet = _row(table1_published(_paper(paper), include_open=True), workload="Linpack", environment="KVM-untuned")
    all_mean = float(cell["value"].mean())
    averaged_all = abs(float(sheet["mean"]) / all_mean - 1.0) < 1e-4
    aborted = _one(views[views["view"].str.startswith("aborted")], "the aborted tuned-KVM block")
    return {
        "trial": int(flagged["trial"]), "file": file, "line": int(line), "value": float(flagged["value"]),
        "mod_z": float(flagged["mod_z"]), "others_mean": float(others.mean()), "others": _count(len(others)),
        "sd": float(row["sd"]), "ci_low": float(row["ci95_low"]), "ci_high": float(row["ci95_high"]),
        "ci_method": str(row["ci_method"]),
        "sheet_mean": float(sheet["mean"]), "sheet_sd": float(sheet["sd"]),
        "sheet_what": (f"i.e. it averaged all {_count(len(cell))}" if averaged_all
                       else f"which is not the mean of all {_count(len(cell))} trials"),
        "n_aborted": int(aborted["n"]),
    }


def stream_medians(spread: pd.DataFrame, table1: pd.DataFrame) -> dict:
    """Compute the numbers of the paragraph on the paper's STREAM "difference of only 1.4%".

    Parameters
    ----------
    spread : pandas.DataFrame
        :func:`overhead.rc25482.compute.stream_median_spread`.
    table1 : pandas.DataFrame
        :func:`overhead.rc25482.compute.table1`.

    Returns
    -------
    dict
        triad (spread of the Triad medians, %), reproduced ("is reproduced" when it rounds to
        the paper's 1.4, else "is not reproduced"), copy_scale_low/high (the Copy and Scale
        spreads), kvm_slower_low/high (untuned KVM's loss on Copy and Scale, %), and
        kvm_verdict (its verdicts against native on both kernels, with their intervals:
        :func:`overhead.rc25482.compute.across`).
    """
    sp = spread.set_index("workload")["spread_pct"]
    triad = float(sp["STREAM Triad"])
    two = ["STREAM Copy", "STREAM Scale"]
    kvm = table1[table1["workload"].isin(two) & (table1["environment"] == "KVM-untuned")]
    slower = -kvm["delta_vs_native_pct"].astype(float)
    return {
        "triad": triad,
        "reproduced": ("is reproduced" if round(triad, 1) == PAPER_STREAM_SPREAD_PCT
                       else "is not reproduced"),
        "copy_scale_low": float(sp[two].min()), "copy_scale_high": float(sp[two].max()),
        "kvm_slower_low": float(slower.min()), "kvm_slower_high": float(slower.max()),
        "kvm_verdict": compute.across(table1, two, "KVM-untuned"),
    }


def stream_rates(derived: pd.DataFrame, table1: pd.DataFrame) -> dict:
    """Compute the FLOP rates STREAM achieves beside the Linpack rate (the Table II paragraph).

    Parameters
    ----------
    derived : pandas.DataFrame
        :func:`overhead.rc25482.compute.table2_derived`.
    table1 : pandas.DataFrame
        :func:`overhead.rc25482.compute.table1`.

    Returns
    -------
    dict
        gflops_low, gflops_high (the smallest and largest derived GFLOP/s of the kernels that
        do floating-point work), linpack (native Linpack GFLOPS).
    """
    g = derived.loc[derived["gflops"] > 0, "gflops"]
    return {"gflops_low": float(g.min()), "gflops_high": float(g.max()),
            "linpack": _at(table1, "mean", workload="Linpack", environment="Native")}


# --- 03: block I/O -----------------------------------------------------------------------------

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
    read = _row(fig5, test="Sequential Read", environment="KVM")
    write = _row(fig5, test="Sequential Write", environment="KVM")
    others = fig5[fig5["environment"] != "KVM"]
    equal = bool((others["pct_vs_spreadsheet"].abs() < 0.01).all())
    native = _row(fig5, test="Sequential Read", environment="Native")
    return {
        "kvm_read_sheet_units": float(read["bandwidth_mb_s"]) / SHEET_UNIT_MB_S,
        "kvm_write_sheet_units": float(write["bandwidth_mb_s"]) / SHEET_UNIT_MB_S,
        "kvm_read_below": -float(read["pct_vs_spreadsheet"]),
        "kvm_write_below": -float(write["pct_vs_spreadsheet"]),
        "others_equal": "equal their logs" if equal else "differ from their logs",
        "native_read_sheet_raw": float(native["spreadsheet_mb_s"]) / SHEET_UNIT_MB_S,
        "native_read_mb_s": float(native["spreadsheet_mb_s"]),
    }


def fig5(fig5: pd.DataFrame) -> dict:
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
    read = _row(fig5, test="Sequential Read", environment="KVM")
    write = _row(fig5, test="Sequential Write", environment="KVM")
    docker = fig5.loc[fig5["environment"] == "Docker", "pct_vs_native"].abs().max()
    return {
        "docker_bound": _up(float(docker), 1),
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
        row = _row(fig6, test=test, environment="KVM")
        out[f"log_{key}"] = float(row["iops"])
        out[f"sheet_{key}"] = float(row["spreadsheet_iops"])
    return out


def fig6(fig6: pd.DataFrame) -> dict:
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
        "docker_bound": _up(float(docker), 2),
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


def fig7(ratios: pd.DataFrame, gap: dict) -> dict:
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
        return _at(ratios, col, environment=env, statistic=stat)

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


# --- 04: Redis ---------------------------------------------------------------------------------

def _littles(table: pd.DataFrame, env: str, key: str, col: str = "estimate") -> float:
    """Return one value of :func:`overhead.rc25482.redis.littles_summary`."""
    return _at(table, col, environment=env, key=key)


def _differing_points(frame: pd.DataFrame, env: str, x: str, pct: str) -> list[tuple[int, float]]:
    """List (x, percent) of the points of ``env`` whose verdict says they differ from the baseline."""
    rows = frame[(frame["environment"] == env).to_numpy(dtype=bool) & comparisons.differs(frame["verdict"]).to_numpy()]
    return [(int(a), float(b)) for a, b in zip(rows[x], rows[pct], strict=True)]


def _differences(points: list[tuple[int, float]], holm: dict[int, float], directions: str) -> str:
    """Say the points that differ, and which of them do not survive Holm's correction."""
    if not points:
        return ""
    weak = [n for n, _ in points if not holm[n] < 0.05]
    said = f", {directions} ({_list([f'{p:+.1f}% at {n}' for n, p in points])} connections"
    if weak:
        said += ("; the difference at " if len(weak) == 1 else "; those at ") + _list(weak) + (
            " does not" if len(weak) == 1 else " do not") + " survive Holm's correction"
    return said + ")"


def _band(frame: pd.DataFrame) -> str:
    """Return the margin of a frame's comparisons in words ("±3%"); ValueError when they differ."""
    seen = frame[["margin_low_pct", "margin_high_pct"]].dropna().drop_duplicates()
    if len(seen) != 1:
        raise ValueError(f"expected one margin, found {len(seen)}")
    lo, hi = float(seen.iloc[0, 0]), float(seen.iloc[0, 1])
    return f"\u00b1{hi:g}%" if lo == -hi else f"{lo:+g}%/{hi:+g}%"


def _list(values: list[object]) -> str:
    """Write 1, 2 and 5 as "1, 2 and 5"."""
    words = [str(v) for v in values]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def verdict_runs(rows: pd.DataFrame, x: str, *, unit: str = "threads") -> str:
    """Say where along a curve each verdict holds, in runs of neighbouring points.

    Parameters
    ----------
    rows : pandas.DataFrame
        One environment's points (``x``, verdict, margin_low_pct, margin_high_pct), sorted or
        not.
    x : str
        The swept parameter.
    unit : str
        Its unit, said once at the end.

    Returns
    -------
    str
        E.g. "equivalent within ±5% at 10-30 and 130-290 threads, slower at 50-110 threads"
        (verdicts in the order they first occur along the curve).
    """
    rows = rows.sort_values(x)
    xs, words = rows[x].astype(int).tolist(), rows["verdict"].astype(str).tolist()
    spans: dict[str, list[str]] = {}
    start = 0
    for i in range(1, len(xs) + 1):
        if i == len(xs) or words[i] != words[start]:
            spans.setdefault(words[start], []).append(
                str(xs[start]) if i - 1 == start else f"{xs[start]}-{xs[i - 1]}")
            start = i
    band = _band(rows)
    parts = []
    for word, where in spans.items():
        head = f"equivalent within {band}" if word == "equivalent" else word
        parts.append(f"{head} at {_list(where)} {unit}")
    return ", ".join(parts)


def _redis_paper(paper: pd.DataFrame | None) -> dict:
    """Return the paper's Redis numbers (:func:`overhead.rc25482.redis.published_values`)."""
    return redis.published_values(_paper(paper))


def fig8(f8: pd.DataFrame, littles_tab: pd.DataFrame, paper: pd.DataFrame | None = None, *,
         high_from: int = 100) -> dict:
    """Compute the numbers of "Reading Fig 8" (Redis GET+SET throughput).

    Parameters
    ----------
    f8 : pandas.DataFrame
        :func:`overhead.rc25482.redis.throughput_curve`, one workload's rows.
    littles_tab : pandas.DataFrame
        :func:`overhead.rc25482.redis.littles_summary` of the same workload.
    paper : pandas.DataFrame or None
        The published values (the paper's saturation throughput); None reads the study's file.
    high_from : int
        The connection count from which KVM's gap at high concurrency is read.

    Returns
    -------
    dict
        native_n (the highest level below native's knee) and native_at_n (its throughput),
        native_sat (plateau, req/s), paper_sat, flat_from, flat_to (the first level reaching 90%
        of the plateau and the first within 5% of the peak); band (the margin, "±3%");
        host_points (Docker net=host's points), host_eq (those equivalent to native within the
        margin) and host_eq_words ("none is", "one is", "5 are"), host_inc (inconclusive),
        host_inc_at (their connection counts, in words),
        host_inc_trials (the most trials per side any of them would need, 0 when none is
        inconclusive), host_sig (those whose interval excludes 0), host_detail
        (e.g. ", in opposite directions (+4.9% at 10, -6.9% at 30 connections)"; "" when none
        differs; the differences that do not survive Holm's correction are named), host_tracks ("is
        equivalent to native at most points" when at least two thirds are equivalent and at most
        one in six differs, "differs from native at most points" when more than half differ,
        else "is not shown to be the same as native");
        nat_sat, nat_below (% below native's plateau), kvm_at_1, kvm_at_4 (% of native),
        kvm_reach, native_reach (connections to reach 90% of native's plateau), high_from,
        high_to, kvm_high_low, kvm_high_high (KVM's loss there, %), kvm_high_verdict (its
        verdicts there in words, e.g. "slower at every one of these points, beyond the ±3%
        margin").
    """
    native = f8[f8["environment"] == "Native"].set_index("connections")["throughput_mean"].sort_index()
    sat = _littles(littles_tab, "Native", "sat")
    knee_first = int(native.index[np.flatnonzero(native.to_numpy() >= 0.9 * sat)[0]])
    below = native.index[native.index < knee_first]
    plateau_first = int(native.index[np.flatnonzero(native.to_numpy() >= 0.95 * native.max())[0]])
    band = _band(f8[f8["environment"] != "Native"])
    host_rows = f8[f8["environment"] == "Docker net=host"].sort_values("connections")
    host = _differing_points(f8, "Docker net=host", "connections", "pct_vs_native")
    holm = dict(zip(host_rows["connections"].astype(int), host_rows["p_difference_holm"], strict=True))
    signs = {p > 0 for _, p in host}
    directions = ("in opposite directions" if signs == {True, False}
                  else "all higher" if signs == {True} else "all lower")
    n_host = len(host_rows)
    n_eq = int((host_rows["verdict"] == "equivalent").sum())
    inc = host_rows[host_rows["verdict"] == "inconclusive"]
    kvm = f8[f8["environment"] == "KVM"].set_index("connections")
    high = kvm[kvm.index >= high_from]
    words = set(high["verdict"].astype(str))
    if len(words) == 1 and words <= set(comparisons.DIFFERENCES):
        beyond = bool(high["beyond_margin"].fillna(False).astype(bool).all())
        kvm_high = (f"{words.pop()} at every one of these points, "
                    + (f"beyond the {band} margin" if beyond else f"not all shown beyond the {band} margin"))
    else:
        counts = high["verdict"].astype(str).value_counts()
        kvm_high = "with verdicts " + ", ".join(f"{w} at {c}" for w, c in counts.items())
    nat_sat = _littles(littles_tab, "Docker NAT", "sat")
    return {
        "native_n": int(below.max()), "native_at_n": float(native[below.max()]),
        "native_sat": sat, "paper_sat": _redis_paper(paper)["sat:Native"][0], "flat_from": knee_first, "flat_to": plateau_first,
        "band": band, "host_points": n_host, "host_eq": n_eq, "host_inc": len(inc),
        "host_inc_at": _list([int(c) for c in inc["connections"]]) if len(inc) else "",
        "host_inc_trials": int(inc["trials_needed"].max()) if len(inc) and inc["trials_needed"].notna().any() else 0,
        "host_sig": len(host),
        "host_eq_words": {0: "none is", 1: "one is"}.get(n_eq, f"{n_eq} are"),
        "host_detail": _differences(host, holm, directions),
        "host_tracks": ("is equivalent to native at most points" if n_eq >= 2 * n_host / 3 and len(host) <= n_host / 6
                        else "differs from native at most points" if len(host) > n_host / 2
                        else "is not shown to be the same as native"),
        "nat_sat": nat_sat, "nat_below": 100.0 * (1.0 - nat_sat / sat),
        "kvm_at_1": 100.0 * float(kvm.loc[1, "ratio_vs_native"]),
        "kvm_at_4": 100.0 * float(kvm.loc[4, "ratio_vs_native"]),
        "kvm_reach": _littles(littles_tab, "KVM", "reach_native"),
        "native_reach": _littles(littles_tab, "Native", "reach_native"),
        "high_from": int(high.index.min()), "high_to": int(high.index.max()),
        "kvm_high_low": float(-high["pct_vs_native"].max()), "kvm_high_high": float(-high["pct_vs_native"].min()),
        "kvm_high_verdict": kvm_high,
    }


def fig9_bounds(f9: pd.DataFrame, *, env: str = "Docker NAT") -> dict:
    """Compute the numbers of the Fig 9 introduction (implied latency against the ms buckets).

    Parameters
    ----------
    f9 : pandas.DataFrame
        :func:`overhead.rc25482.redis.latency_curve` with bounds, one workload's rows.
    env : str
        The environment whose rising lower edge is described.

    Returns
    -------
    dict
        lat_low, lat_high (smallest and largest mean implied latency, us), rise_from (first
        level where ``env``'s lower edge exceeds 1 us), rise_max, rise_max_at (its largest lower
        edge and where), above_envs (environments with most runs above the upper edge at some
        level, in words), above_from, above_to (those levels), few_note ("in a few already at
        100; " for the levels where only a few of their runs are above, else ""), excess_low, excess_high (how far native's mean implied latency
        exceeds the mean upper edge at those levels, %), inside_below (the first level with any
        run above its band), below_none ("no run anywhere falls" when no run is below its lower
        edge).
    """
    rows = f9[f9["environment"] == env].set_index("connections").sort_index()
    rising = rows.index[rows["bucket_low_us"] > 1.0]
    edge_max = rows["bucket_low_us"].idxmax()
    most = f9[f9["n_implied_above_bound"] > f9["n_runs"] / 2]
    envs = [e for e in f9["environment"].unique() if e in set(most["environment"])]
    few = f9[f9["environment"].isin(envs) & (f9["n_implied_above_bound"] > 0)
             & (f9["n_implied_above_bound"] <= f9["n_runs"] / 2)]
    native = f9[(f9["environment"] == "Native") & f9["connections"].isin(most["connections"])]
    excess = 100.0 * (native["latency_us_mean"] / native["bucket_high_us"] - 1.0)
    few_levels = sorted(set(few["connections"]) - set(most["connections"]))
    any_above = f9.loc[f9["n_implied_above_bound"] > 0, "connections"]
    return {
        "lat_low": float(f9["latency_us_mean"].min()), "lat_high": float(f9["latency_us_mean"].max()),
        "rise_from": int(rising.min()), "rise_max": float(rows.loc[edge_max, "bucket_low_us"]),
        "rise_max_at": int(edge_max),
        "above_envs": " and ".join([", ".join(envs[:-1]), envs[-1]] if len(envs) > 1 else envs),
        "above_from": int(most["connections"].min()), "above_to": int(most["connections"].max()),
        "few_note": (f"in a few already at {', '.join(str(n) for n in few_levels)}; " if few_levels else ""),
        "excess_low": float(excess.min()), "excess_high": float(excess.max()),
        "inside_below": int(any_above.min()),
        "below_none": ("no run anywhere falls" if int(f9["n_implied_below_bound"].sum()) == 0
                       else "some runs fall"),
    }


def redis_analysis(littles_tab: pd.DataFrame, paper: pd.DataFrame | None = None) -> dict:
    """Compute the numbers of "Reading the analysis" (Redis Little's-law table).

    Parameters
    ----------
    littles_tab : pandas.DataFrame
        :func:`overhead.rc25482.redis.littles_summary`.
    paper : pandas.DataFrame or None
        The published values (the paper's Redis numbers); None reads the study's file.

    Returns
    -------
    dict
        unsat (largest N of the added-latency fit); kvm_added, kvm_low, kvm_high (us and CI),
        paper_added; kvm_at_1, kvm_at_4 (added latency at single points); kvm_reach,
        native_reach; kvm_sat, native_sat, native_sat_low, native_sat_high (plateaus, req/s),
        kvm_below ("stays below" when KVM's plateau CI lies below native's); nat_added,
        nat_ratio4 (+ _low, _high), nat_ratio100 (+ _low, _high), nat_lat4 (us), paper_ratio4,
        paper_lat4, paper_ratio100, nat_direction ("matches" when both ratio CIs lie above 1),
        nat_size ("does not" when the 4-connection CI excludes the paper's ratio), nat_sat,
        nat_reach ("never reaches" when NAT's curve never reaches 90% of native's plateau);
        host_added, host_low, host_high, host_bound (the largest |end| of that interval, us,
        rounded up), host_verdict (what the interval says: "an interval that holds no
        difference and rules out more than ... either way" when it includes 0, else the
        direction); paper_sat, native_vs_paper (%).
    """
    pub = _redis_paper(paper)
    t = littles_tab

    def lv(env: str, key: str, col: str = "estimate") -> float:
        return _littles(t, env, key, col)

    host_low, host_high = lv("Docker net=host", "added", "ci95_low"), lv("Docker net=host", "added", "ci95_high")
    nat_reach = lv("Docker NAT", "reach_native")
    r4 = (lv("Docker NAT", "ratio4"), lv("Docker NAT", "ratio4", "ci95_low"), lv("Docker NAT", "ratio4", "ci95_high"))
    r100 = (lv("Docker NAT", "ratio100"), lv("Docker NAT", "ratio100", "ci95_low"),
            lv("Docker NAT", "ratio100", "ci95_high"))
    paper_r4 = pub["ratio4:Docker NAT"][0]
    native_sat = lv("Native", "sat")
    return {
        "unsat": float(t.attrs["unsaturated_max"]),
        "kvm_added": lv("KVM", "added"), "kvm_low": lv("KVM", "added", "ci95_low"),
        "kvm_high": lv("KVM", "added", "ci95_high"), "paper_added": pub["added:KVM"][0],
        "kvm_at_1": lv("KVM", "added_at_1"), "kvm_at_4": lv("KVM", "added_at_4"),
        "kvm_reach": lv("KVM", "reach_native"), "native_reach": lv("Native", "reach_native"),
        "kvm_sat": lv("KVM", "sat"), "native_sat": native_sat,
        "native_sat_low": lv("Native", "sat", "ci95_low"), "native_sat_high": lv("Native", "sat", "ci95_high"),
        "kvm_below": ("stays below" if lv("KVM", "sat", "ci95_high") < lv("Native", "sat", "ci95_low")
                      else "does not stay clearly below"),
        "nat_added": lv("Docker NAT", "added"),
        "nat_ratio4": r4[0], "nat_ratio4_low": r4[1], "nat_ratio4_high": r4[2],
        "nat_ratio100": r100[0], "nat_ratio100_low": r100[1], "nat_ratio100_high": r100[2],
        "nat_lat4": lv("Docker NAT", "lat4"),
        "paper_ratio4": paper_r4, "paper_lat4": pub["lat4:Docker NAT"][0],
        "paper_ratio100": pub["ratio100:Docker NAT"][0],
        "nat_direction": "matches" if r4[1] > 1 and r100[1] > 1 else "does not clearly match",
        "nat_size": "does not" if not r4[1] <= paper_r4 <= r4[2] else "does too",
        "nat_sat": lv("Docker NAT", "sat"),
        "nat_reach": "never reaches" if math.isnan(nat_reach) else "reaches",
        "host_added": lv("Docker net=host", "added"), "host_low": host_low, "host_high": host_high,
        "host_bound": _up(max(abs(host_low), abs(host_high)), 1),
        "host_verdict": (f"an interval that holds no difference and rules out more than "
                         f"{_up(max(abs(host_low), abs(host_high)), 1):g} us either way"
                         if host_low <= 0 <= host_high else
                         "an interval above 0: net=host adds latency" if host_low > 0
                         else "an interval below 0: net=host is faster"),
        "paper_sat": pub["sat:Native"][0], "native_vs_paper": 100.0 * (native_sat / pub["sat:Native"][0] - 1.0),
    }


# --- 05: MySQL ---------------------------------------------------------------------------------

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
        "kvm_times": _times(packets["KVM"] / queries),
        "native_packets": float(packets["Native"]), "native_recv_b": float(native["bytes_per_packet_recv"]),
        "native_send_b": float(native["bytes_per_packet_send"]),
        "kvm_usr_sys": float(kvm["usr_per_sys"]),
        "others_usr_sys_low": float(others.min()), "others_usr_sys_high": float(others.max()),
        "aufs_packets": float(packets["Docker NAT AUFS"]), "aufs_times": _times(packets["Docker NAT AUFS"] / queries),
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
    return _one(claims[claims["claim"].str.startswith(start) & (claims["environment"] == env)],
                f"claim {start!r} for {env}")


def fig10(fig10: pd.DataFrame, runs: pd.DataFrame, *, asymptote_from: int = 230,
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
    verdicts = {env: mysql.pooled_loss(runs, env, asymptote_from) for env in
                ("Docker net=host volume", "Docker NAT volume", "Docker NAT AUFS")}
    pooled = {env: (-v.interval.pct, -v.interval.pct_high, -v.interval.pct_low) for env, v in verdicts.items()}
    hv = verdicts["Docker net=host volume"]
    closest = min(pooled, key=lambda e: abs(pooled[e][0] - mysql.PAPER_DOCKER_LOSS_PCT))
    kvm = fig10[fig10["environment"] == "KVM"].set_index("threads").sort_index()
    kvm_min = kvm.reset_index().loc[kvm["loss_vs_native_pct"].to_numpy().argmin()]
    kvm_paper = mysql.PAPER_KVM_LOSS_PCT
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
        "host_verdicts": verdict_runs(host.reset_index(), "threads"),
        **dict(zip(("nat_high_low", "nat_high_high"), _loss_range(fig10, "Docker NAT volume", asymptote_from),
                   strict=True)),
        "nat_pooled": pooled["Docker NAT volume"][0], "paper_asym": mysql.PAPER_DOCKER_LOSS_PCT,
        "closest": closest,
        "nat_closest": (f"closest to the paper's {mysql.PAPER_DOCKER_LOSS_PCT:g}%" if closest == "Docker NAT volume"
                        else f"though {closest} is closer to the paper's {mysql.PAPER_DOCKER_LOSS_PCT:g}%"),
        **dict(zip(("aufs_low", "aufs_high"), _loss_range(fig10, "Docker NAT AUFS"), strict=True)),
        **dict(zip(("aufs_high_low", "aufs_high_high"), _loss_range(fig10, "Docker NAT AUFS", aufs_from),
                   strict=True)),
        "kvm_first": float(kvm.iloc[0]["loss_vs_native_pct"]), "kvm_first_at": int(kvm.index[0]),
        "kvm_first_low": float(kvm.iloc[0]["loss_ci95_low"]), "kvm_first_high": float(kvm.iloc[0]["loss_ci95_high"]),
        **dict(zip(("kvm_high_low", "kvm_high_high"), _loss_range(fig10, "KVM", kvm_from), strict=True)),
        "paper_kvm": kvm_paper, "kvm_holds": holds, "authors_bound": _up_sig(authors) if math.isfinite(authors) else math.nan,
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
        "wait_bound": _up(float(cpu["cpu_wait"].max()), 2),
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
        out["authors_mean_bound"] = _up(means, 2)
        out["authors_sd_bound"] = _up(float((m["our_idle_sd"] - m["idle_sd"]).abs().max()), 2)
    return out


def fig11(fig11: pd.DataFrame, cpu: pd.DataFrame, *, line_upto: int = 50,
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
    c, _, _ = mysql.peak_cpu_difference(fig11, cpu, "Docker net=host volume")
    kvm = fig11[fig11["environment"] == "KVM"].sort_values("threads")
    last = int(cpu["threads"].max())
    at_last = cpu[cpu["threads"] == last].groupby("environment")[["packets_recv", "packets_send"]].mean()
    kvm_packets = float(at_last.loc["KVM"].mean())
    off_values = np.concatenate([-diffs[e] for e in off]) if off else np.array([math.nan])
    return {
        "line_upto": line_upto,
        "on_line": ", ".join(["native", *on[:-1]]) + f" and {on[-1]}" if on else "native alone",
        "line_bound": _up(float(max(np.abs(diffs[e]).max() for e in on)), 0) if on else math.nan,
        "off_line": " and ".join(off), "off_low": float(np.min(off_values)), "off_high": float(np.max(off_values)),
        **peaks,
        "diff": c.estimate, "diff_low": c.low, "diff_high": c.high,
        "kvm_cpu_bound": _up(float(kvm["cpu_util_mean"].max()), 0),
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
    law = stats.littles_law(runs["threads"], runs["tps"], runs["latency_ms"] * mysql.MS)
    rel = 100.0 * law["rel_residual"]
    return {"n_runs": int(len(runs)), "low": float(rel.min()), "high": float(rel.max()),
            "sign": "always positive" if bool((rel > 0).all()) else "not always positive"}


def fig12(fig12: pd.DataFrame, fig10: pd.DataFrame, *, high_from: int = 230) -> dict:
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
                   else f"agree with these means within {_up_sig(worst):g} ms")
    return {
        "first": first, "last": int(native.index[-1]), "native_first": float(native.iloc[0]),
        "native_last": float(native.iloc[-1]),
        "host_verdicts": verdict_runs(host.reset_index(), "threads"),
        "host_max": float(host["latency_increase_vs_native_pct"].max()),
        "host_max_at": int(host["latency_increase_vs_native_pct"].idxmax()), "high_from": high_from,
        "host_high_low": float(high.min()), "host_high_high": float(high.max()),
        "kvm_first": float(kvm.loc[first, "latency_increase_vs_native_pct"]),
        "kvm_first_ms": float(kvm.loc[first, "latency_ms_mean"]),
        "kvm_loss": _at(fig10, "loss_vs_native_pct", environment="KVM", threads=first),
        "authors": authors,
    }


def fig13(fig13: pd.DataFrame, *, tolerance: float = 0.05) -> dict:
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
