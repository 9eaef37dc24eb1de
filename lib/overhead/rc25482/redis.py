"""Section IV-D of RC25482, Redis: the data behind Figs 8 and 9 and the Little's-law analysis.

The committed transcripts (``redis/results/run_{native,dockerhost,dockerbridge,vm}_<date>.txt``)
are plain ``redis-benchmark`` 2.x runs, not the paper's workload: every invocation runs seven
tests (PING_INLINE, PING_BULK, SET, GET, LPUSH, LPOP, SADD) of 500,000 requests each, 50-byte
values, one outstanding request per connection (no pipelining) and the default key space,
whereas the paper describes a 50/50 read/write mix, pipelines of 10 and 150 million keys. The
curves' shapes can be compared with the paper; their values cannot.

Workload used for the figures: the paper's 50/50 GET/SET mix is represented by the GET and SET
tests of the same invocation combined as one workload, ``GET+SET``: total requests over total
time, i.e. the harmonic mean of the two printed rates (both tests issue the same number of
requests). GET and SET alone are computed too (``WORKLOADS``).

Statistical unit: one *run* = one redis-benchmark invocation at one connection count (the
wrapper's ``Run #k: Connections C``). Runs come from several transcripts (sessions) per
environment; all runs at a connection count are pooled, and ``n_sessions`` says from how many
transcripts they come.

Latency: redis-benchmark 2.x prints no mean latency, only cumulative shares of requests per
whole millisecond (``99.95% <= 1 milliseconds``, latencies truncated to whole ms). The latency
used is therefore the one Little's law implies for a closed loop, R = N / X (N connections each
with one request outstanding, X the throughput); :func:`latency_bounds` turns the millisecond
buckets into the bound they imply for the mean, E[floor(L)] <= E[L] < E[floor(L)] + 1 ms.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt  # the figures are pyplot's, so that the notebook's plt.show() shows them
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from overhead import plots, stats
from overhead.errors import DataError
from overhead.names import BASELINE
from overhead.rc25482 import comparisons, livedata, wording

#: Environment labels in figure order; Native is the baseline.
ENVIRONMENTS = ("Native", "Docker net=host", "Docker NAT", "KVM")
TESTS = ("PING_INLINE", "PING_BULK", "SET", "GET", "LPUSH", "LPOP", "SADD")
#: Workload name -> the redis-benchmark tests combined (total requests / total time).
WORKLOADS: dict[str, tuple[str, ...]] = {"GET+SET": ("GET", "SET"), "GET": ("GET",), "SET": ("SET",)}
PRIMARY = "GET+SET"
MS = 1e-3
US = 1e-6


class RedisDataError(DataError):
    """The redis rows needed are missing or inconsistent; the message names them."""


def _session(source: pd.Series) -> pd.Series:
    """Return the transcript file name of each row ("run_native_20140717_1443.txt")."""
    return source.astype(str).str.rsplit(":", n=1).str[0].str.rsplit("/", n=1).str[-1]


RUN_KEYS = ["environment", "session", "run", "connections"]


def run_throughput(redis: pd.DataFrame, workloads: Mapping[str, Sequence[str]] = WORKLOADS) -> pd.DataFrame:
    """Compute the throughput of every run (one redis-benchmark invocation) for each workload.

    Parameters
    ----------
    redis : pandas.DataFrame
        ``load(tidy, "redis")`` (needs label, source, p_run, p_connections, p_test, metric, value).
    workloads : mapping
        Workload name -> tests combined; a run enters a workload only when all its tests are
        present (one GET is missing in one Docker NAT run, so that run has SET only).

    Returns
    -------
    pandas.DataFrame
        workload, environment, session, run, connections, throughput (req/s: total requests /
        total time of the workload's tests, the harmonic mean of their printed rates),
        implied_latency_s (N / X), n_tests, tests (the printed rates, "GET=..;SET=.."), source.
    """
    thr = redis[redis["metric"] == "throughput"]
    if thr.empty:
        raise RedisDataError("no redis throughput rows (metric 'throughput')")
    frame = pd.DataFrame({
        "environment": thr["label"].astype(str).to_numpy(), "session": _session(thr["source"]).to_numpy(),
        "run": thr["p_run"].astype("int64").to_numpy(), "connections": thr["p_connections"].astype("int64").to_numpy(),
        "test": thr["p_test"].astype(str).to_numpy(), "value": thr["value"].astype("float64").to_numpy(),
        "source": thr["source"].astype(str).to_numpy()})
    if frame.duplicated(RUN_KEYS + ["test"]).any():
        dup = frame[frame.duplicated(RUN_KEYS + ["test"], keep=False)].iloc[0]
        raise RedisDataError(f"two throughput rows for one run and test (first at {dup['source']})")
    parts = []
    for name, tests in workloads.items():
        sub = frame[frame["test"].isin(tests)].copy()
        sub["inv"] = 1.0 / sub["value"]
        sub["t"] = sub["test"] + "=" + sub["value"].map("{:.2f}".format)
        g = sub.groupby(RUN_KEYS, sort=True)
        out = g.agg(n_tests=("inv", "size"), inv=("inv", "mean"), tests=("t", ";".join),
                    source=("source", "first")).reset_index()
        out = out[out["n_tests"] == len(tests)].copy()
        out["throughput"] = 1.0 / out.pop("inv")
        out["implied_latency_s"] = out["connections"] / out["throughput"]
        out.insert(0, "workload", name)
        parts.append(out)
    out = pd.concat(parts, ignore_index=True)
    return out[["workload", *RUN_KEYS, "throughput", "implied_latency_s", "n_tests", "tests", "source"]]


def latency_bounds(redis: pd.DataFrame, workloads: Mapping[str, Sequence[str]] = WORKLOADS) -> pd.DataFrame:
    """Bound each run's mean latency from redis-benchmark's whole-millisecond buckets.

    redis-benchmark 2.x walks the sorted latencies (microseconds) and prints a line whenever
    the whole-ms value (us / 1000, truncated) changes; the share printed includes that first
    request of the new value, i.e. it is P(floor < k) + 1/n; and it always prints once more for
    the last request ("100.00% <= K", K the largest whole-ms value). So, with G(k) =
    P(floor(L) < k), the printed "change" lines (all but the last) give G at each whole-ms value
    present, and E[floor(L)] = sum_k (1 - G(k)) = sum over change lines i of
    (k_i - k_{i-1}) (1 - p_i) (k_0 = 0). The mean latency then lies in [E[floor(L)],
    E[floor(L)] + 1 ms). The 1/n (n = 500,000) is below the print resolution (0.01%).

    Parameters
    ----------
    redis : pandas.DataFrame
        ``load(tidy, "redis")`` (rows with metric "latency_cdf", p_le in seconds, sources with
        line numbers, which give the printed order).
    workloads : mapping
        As for :func:`run_throughput`; a workload's bound is the mean of its tests' bounds
        (every test issues the same number of requests).

    Returns
    -------
    pandas.DataFrame
        workload, environment, session, run, connections, latency_low_s (E[floor(L)]),
        latency_high_s (+ 1 ms), share_below_1ms (G(1) in %, mean over the tests).
    """
    cdf = redis[redis["metric"] == "latency_cdf"]
    if cdf.empty:
        raise RedisDataError("no redis latency rows (metric 'latency_cdf')")
    keys = [*RUN_KEYS, "test"]
    f = pd.DataFrame({
        "environment": cdf["label"].astype(str).to_numpy(), "session": _session(cdf["source"]).to_numpy(),
        "run": cdf["p_run"].astype("int64").to_numpy(), "connections": cdf["p_connections"].astype("int64").to_numpy(),
        "test": cdf["p_test"].astype(str).to_numpy(),
        "k": np.rint(cdf["p_le"].to_numpy(dtype="float64", na_value=np.nan) / MS).astype("int64"),
        "p": cdf["value"].to_numpy(dtype="float64", na_value=np.nan) / 100.0,
        "line": cdf["source"].astype(str).str.rsplit(":", n=1).str[-1].astype("int64").to_numpy()})
    f = f.sort_values([*keys, "line"], kind="stable")
    last = ~f.duplicated(keys, keep="last")
    change = f[~last].copy()
    change["k_prev"] = change.groupby(keys, sort=False)["k"].shift(1, fill_value=0)
    change["term"] = (change["k"] - change["k_prev"]) * (1.0 - change["p"])
    per_test = f[last][keys].set_index(keys)
    per_test["floor_ms"] = change.groupby(keys)["term"].sum()
    per_test["g1"] = change.groupby(keys)["p"].first()
    per_test = per_test.fillna({"floor_ms": 0.0, "g1": 1.0}).reset_index()
    parts = []
    for name, tests in workloads.items():
        sub = per_test[per_test["test"].isin(tests)]
        g = sub.groupby(RUN_KEYS, sort=True).agg(n=("floor_ms", "size"), floor_ms=("floor_ms", "mean"),
                                                  g1=("g1", "mean")).reset_index()
        g = g[g["n"] == len(tests)]
        parts.append(pd.DataFrame({"workload": name, **{k: g[k].to_numpy() for k in RUN_KEYS},
                                   "latency_low_s": g["floor_ms"].to_numpy() * MS,
                                   "latency_high_s": (g["floor_ms"].to_numpy() + 1.0) * MS,
                                   "share_below_1ms": 100.0 * g["g1"].to_numpy()}))
    return pd.concat(parts, ignore_index=True)


def tidy_runs(runs: pd.DataFrame, value: str = "throughput") -> pd.DataFrame:
    """Turn the run table into tidy rows for :mod:`overhead.stats` (environment = label).

    Parameters
    ----------
    runs : pandas.DataFrame
        Output of :func:`run_throughput`.
    value : str
        "throughput" (metric throughput, req/s, higher is better) or "implied_latency_s"
        (metric latency_implied, s, lower is better).

    Returns
    -------
    pandas.DataFrame
        Tidy rows: benchmark, workload, environment, p_connections, run_id, trial, metric,
        value, unit, higher_is_better.
    """
    metric, unit, hib = {"throughput": ("throughput", "req/s", True),
                         "implied_latency_s": ("latency_implied", "s", False)}[value]
    return pd.DataFrame({
        "benchmark": "redis", "workload": runs["workload"].to_numpy(),
        "environment": runs["environment"].to_numpy(), "p_connections": runs["connections"].to_numpy(),
        "run_id": (runs["session"] + "#" + runs["run"].astype(str)).to_numpy(),
        "trial": runs["run"].to_numpy(), "metric": metric, "value": runs[value].to_numpy(dtype="float64"),
        "unit": unit, "higher_is_better": hib})


#: The comparison columns every Fig 8 / Fig 9 row carries after the point's own statistics.
VERDICT_COLUMNS = ("ratio_vs_native", "ratio_low", "ratio_high", "ratio_method", "pct_vs_native",
                   "pct_low", "pct_high", "margin_low_pct", "margin_high_pct", "p_difference",
                   "p_difference_holm", "p_equivalence", "verdict", "beyond_margin", "trials_needed",
                   "verdict_detail")


def margin_source():
    """Return the equivalence margins of the Redis comparisons (margins.yml, benchmark redis)."""
    return comparisons.margin_source(benchmark="redis")


def _curve(runs: pd.DataFrame, value: str, scale: float, name: str, baseline: str,
           level: float) -> pd.DataFrame:
    """Compute :func:`overhead.stats.curve` per (workload, environment, connections).

    The columns get the figures' names; Holm's family is every non-baseline point of one
    workload. The verdict is faster/slower (throughput: higher is better; latency: lower is).
    """
    tidy = tidy_runs(runs, value)
    tidy["value"] = tidy["value"] / scale
    c = stats.curve(tidy, "p_connections", baseline, margin=margin_source(), by=["workload"], level=level,
                    order={"workload": list(WORKLOADS), "environment": ENVIRONMENTS})
    out = c.rename(columns={"p_connections": "connections", "n": "n_runs", "mean": f"{name}_mean",
                            "sd": f"{name}_sd", "median": f"{name}_median", "ci_low": f"{name}_ci95_low",
                            "ci_high": f"{name}_ci95_high", "mean_baseline": f"native_{name}_mean",
                            "ratio": "ratio_vs_native", "n_baseline": "n_runs_native", "pct": "pct_vs_native"})
    out = out[["workload", "environment", "connections", "n_runs", f"{name}_mean", f"{name}_sd",
               f"{name}_median", f"{name}_ci95_low", f"{name}_ci95_high", "ci_method", "ci_note",
               f"native_{name}_mean", "n_runs_native", *VERDICT_COLUMNS]]
    sessions = runs.groupby(["workload", "environment", "connections"])["session"].nunique().rename("n_sessions")
    return out.merge(sessions.reset_index(), on=["workload", "environment", "connections"], how="left")


def throughput_curve(runs: pd.DataFrame, baseline: str = BASELINE, *, level: float = 0.95) -> pd.DataFrame:
    """Compute Fig 8: throughput per workload, environment and connection count, with CIs and verdicts.

    Parameters
    ----------
    runs : pandas.DataFrame
        Output of :func:`run_throughput`.
    baseline : str
        Baseline environment label.
    level : float
        Confidence level.

    Returns
    -------
    pandas.DataFrame
        workload, environment, connections, n_runs, throughput_mean, throughput_sd,
        throughput_median, throughput_ci95_low/high (log-t interval of the mean; ``ci_method``,
        ``ci_note``), native_throughput_mean, n_runs_native, then :data:`VERDICT_COLUMNS`:
        ratio_vs_native with ratio_low/high (the interval the verdict is decided on,
        ``ratio_method``), pct_vs_native with pct_low/high (the same interval in
        percent), margin_low_pct, margin_high_pct (margins.yml), p_difference,
        p_difference_holm (Holm over all points of the workload), p_equivalence, verdict
        (faster/slower, equivalent, inconclusive; "baseline" for native), beyond_margin,
        trials_needed, verdict_detail; and n_sessions (transcripts the runs come from).
        Throughput in req/s.
    """
    return _curve(runs, "throughput", 1.0, "throughput", baseline, level)


def added_per_point(runs: pd.DataFrame, baseline: str = BASELINE, level: float = 0.95) -> pd.DataFrame:
    """Compute the added implied latency of each environment over the baseline per connection count.

    Parameters
    ----------
    runs : pandas.DataFrame
        Output of :func:`run_throughput`.
    baseline : str
        Baseline environment label.
    level : float
        Confidence level.

    Returns
    -------
    pandas.DataFrame
        workload, environment, connections, added_latency_us (difference of the mean implied
        latencies), added_ci95_low_us, added_ci95_high_us (Welch-Satterthwaite t interval),
        n_runs, n_runs_native. Points with fewer than 2 runs on either side are left out.
    """
    records = []
    for (wl, n_conn), part in runs.groupby(["workload", "connections"], sort=True):
        y = part.loc[part["environment"] == baseline, "implied_latency_s"].to_numpy(dtype="float64")
        for env, rows in part.groupby("environment", sort=False):
            x = rows["implied_latency_s"].to_numpy(dtype="float64")
            if env == baseline or x.size < 2 or y.size < 2:
                continue
            d = stats.welch_difference(x, y, level)
            records.append({"workload": wl, "environment": env, "connections": int(n_conn),
                            "added_latency_us": d.estimate / US, "added_ci95_low_us": d.low / US,
                            "added_ci95_high_us": d.high / US, "n_runs": x.size, "n_runs_native": y.size})
    return pd.DataFrame.from_records(records, columns=["workload", "environment", "connections",
                                                       "added_latency_us", "added_ci95_low_us",
                                                       "added_ci95_high_us", "n_runs", "n_runs_native"])


def latency_curve(runs: pd.DataFrame, bounds: pd.DataFrame | None = None, baseline: str = BASELINE, *,
                  published: Mapping[str, tuple[float, str]] | None = None,
                  level: float = 0.95) -> pd.DataFrame:
    """Compute Fig 9: implied latency R = N / X (us) per workload, environment and connections.

    Parameters
    ----------
    runs : pandas.DataFrame
        Output of :func:`run_throughput`.
    bounds : pandas.DataFrame or None
        Output of :func:`latency_bounds`; adds the mean bucket bound per point and how many
        runs have their implied latency inside their own bound.
    published : mapping or None
        Output of :func:`published_values`; the paper's Docker NAT latency at 4 connections goes
        beside that point (published_latency_us, pct_vs_published, published_text).
    baseline, level
        As for :func:`throughput_curve`.

    Returns
    -------
    pandas.DataFrame
        As :func:`throughput_curve` with ``latency_us_*`` columns (implied latency, us; lower is
        faster, so a higher latency is "slower") and,
        with bounds, bucket_low_us, bucket_high_us (means over runs), share_below_1ms,
        n_implied_above_bound (runs whose N / X exceeds their bucket upper bound),
        n_implied_below_bound; and added_latency_us with its Welch 95% CI
        (added_ci95_low_us, added_ci95_high_us) from :func:`added_per_point`.
    """
    out = _curve(runs, "implied_latency_s", US, "latency_us", baseline, level)
    out.insert(out.columns.get_loc("latency_us_mean"), "latency_kind", "implied N/X (Little's law)")
    added = added_per_point(runs, baseline, level).drop(columns=["n_runs", "n_runs_native"])
    out = out.merge(added, on=["workload", "environment", "connections"], how="left")
    if bounds is not None:
        m = runs.merge(bounds, on=["workload", *RUN_KEYS], how="left")
        m["above"] = m["implied_latency_s"] > m["latency_high_s"]
        m["below"] = m["implied_latency_s"] < m["latency_low_s"]
        g = m.groupby(["workload", "environment", "connections"]).agg(
            bucket_low_us=("latency_low_s", "mean"), bucket_high_us=("latency_high_s", "mean"),
            share_below_1ms=("share_below_1ms", "mean"), n_implied_above_bound=("above", "sum"),
            n_implied_below_bound=("below", "sum")).reset_index()
        g["bucket_low_us"] /= US
        g["bucket_high_us"] /= US
        out = out.merge(g, on=["workload", "environment", "connections"], how="left")
    out["published_latency_us"] = math.nan
    out["published_text"] = pd.Series(pd.NA, index=out.index, dtype="string")
    if published and "lat4:Docker NAT" in published:
        value, words = published["lat4:Docker NAT"]
        hit = (out["environment"] == "Docker NAT") & (out["connections"] == 4) & (out["workload"] == PRIMARY)
        out.loc[hit, "published_latency_us"] = value
        out.loc[hit, "published_text"] = words + " (a different workload)"
    out["pct_vs_published"] = 100.0 * (out["latency_us_mean"] / out["published_latency_us"] - 1.0)
    return out


def littles(runs: pd.DataFrame, workload: str = PRIMARY) -> pd.DataFrame:
    """Run :func:`overhead.stats.littles_table` for one workload (latency implied: none measured).

    Parameters
    ----------
    runs : pandas.DataFrame
        Output of :func:`run_throughput`.
    workload : str
        The workload (default GET+SET).

    Returns
    -------
    pandas.DataFrame
        The littles_table columns (environment is the label, N = connections, X, and
        implied_latency = latency_used = N / X in seconds).
    """
    tidy = tidy_runs(runs[runs["workload"] == workload])
    tidy = tidy.drop(columns="workload")
    return stats.littles_table(tidy, concurrency="p_connections", throughput="throughput",
                               latency="latency_mean")


def _level_means(table: pd.DataFrame, env: str) -> pd.Series:
    rows = table[table["environment"] == env]
    return rows.groupby("N")["X"].mean().sort_index()


def concurrency_to_reach(table: pd.DataFrame, target: float, environment: str) -> tuple[float, float]:
    """Find the smallest measured N whose mean throughput reaches ``target``.

    Parameters
    ----------
    table : pandas.DataFrame
        Output of :func:`littles`.
    target : float
        The throughput to reach (req/s).
    environment : str
        The environment label.

    Returns
    -------
    n_measured : float
        The smallest measured N whose mean throughput reaches ``target`` (NaN when never
        reached).
    n_interpolated : float
        The linear interpolation between it and the level below (NaN when never reached).
    """
    curve = _level_means(table, environment)
    hit = np.flatnonzero(curve.to_numpy() >= target)
    if hit.size == 0:
        return math.nan, math.nan
    j = int(hit[0])
    n1, x1 = float(curve.index[j]), float(curve.iloc[j])
    if j == 0:
        return n1, n1
    n0, x0 = float(curve.index[j - 1]), float(curve.iloc[j - 1])
    return n1, n0 + (target - x0) * (n1 - n0) / (x1 - x0)


def littles_summary(runs: pd.DataFrame, workload: str = PRIMARY, *, baseline: str = BASELINE,
                    fraction: float = 0.9, tolerance: float = 0.05, unsaturated_max: float | None = None,
                    published: Mapping[str, float] | None = None, level: float = 0.95) -> pd.DataFrame:
    """Run the Little's-law analysis of one workload as one long table (redis_littles.csv).

    Parameters
    ----------
    runs : pandas.DataFrame
        Output of :func:`run_throughput`.
    workload : str
        Workload analysed (default GET+SET).
    baseline : str
        Baseline environment.
    fraction : float
        Share of the saturation throughput whose concurrency is reported (0.9).
    tolerance : float
        Plateau tolerance of :func:`overhead.stats.saturation` (levels within 5% of the peak).
    unsaturated_max : float or None
        Largest N used for the added-latency regression; None: the level below the baseline's
        knee (the first N reaching ``fraction`` of its plateau), where the baseline is not yet
        saturated, so latency differences are per-request costs rather than queueing.
    published : mapping or None
        Output of :func:`published_values`: key (``sat:Native``, ``added:KVM``,
        ``ratio4:Docker NAT``, ``ratio100:Docker NAT``, ``lat4:Docker NAT``) -> (value, words),
        shown with the percent difference.
    level : float
        Confidence level.

    Returns
    -------
    pandas.DataFrame
        environment, quantity, key, estimate, ci95_low, ci95_high, unit, n, method, published,
        pct_vs_published, published_text, note, verdict (the latency ratios' verdicts against
        native, decided on the ratio's interval printed in ci95_low/high, with the Redis margin;
        NA for the other quantities), ratio_low, ratio_high (that interval again, on the
        verdict's rows only), margin_low_pct, margin_high_pct. Quantities: saturation throughput (plateau mean of the per-level
        means within ``tolerance`` of the peak, with a t interval over the runs at those levels;
        and the asymptote of X = X_max N / (K + N)), the concurrency where the curve reaches
        ``fraction`` of its own plateau and of the baseline's, the added latency per request vs
        the baseline (offset model R = a + b N + delta over N <= unsaturated_max, HC3 CIs) and
        at 1, 4 and 100 connections (difference of mean implied latencies, Welch CI), the latency ratio
        vs the baseline at 4 and 100 connections (Fieller's interval, with the verdict), and the
        implied latency at 4.
    """
    table = littles(runs, workload)
    pub = dict(published or {})
    envs = [e for e in ENVIRONMENTS if e in set(table["environment"])]
    sat = stats.saturation(table, by="environment", method="plateau", tolerance=tolerance)
    asym = stats.saturation(table, by="environment", method="asymptote")
    kn = stats.knee(table, by="environment", method="fraction", fraction=fraction, tolerance=tolerance)
    base_sat = float(sat.loc[sat["environment"] == baseline, "saturation"].iloc[0])
    if unsaturated_max is None:
        kb = kn.loc[kn["environment"] == baseline].iloc[0]
        levels = np.sort(table.loc[table["environment"] == baseline, "N"].unique())
        below = levels[levels < kb["knee_N"]]
        unsaturated_max = float(below.max()) if below.size else float(levels.min())
    rows: list[dict] = []

    def add(env, quantity, key, estimate, low=math.nan, high=math.nan, unit="", n=None, method="", note="",
            verdict=None, margin=(math.nan, math.nan)):
        p, words = pub.get(f"{key}:{env}", (math.nan, None))
        rows.append({"environment": env, "quantity": quantity, "key": key, "estimate": estimate,
                     "ci95_low": low, "ci95_high": high, "unit": unit, "n": n, "method": method,
                     "published": p, "pct_vs_published": 100.0 * (estimate / p - 1.0)
                     if math.isfinite(p) and p and math.isfinite(estimate) else math.nan,
                     "published_text": words, "note": note, "verdict": verdict,
                     "ratio_low": low if verdict is not None else math.nan,
                     "ratio_high": high if verdict is not None else math.nan,
                     "margin_low_pct": margin[0], "margin_high_pct": margin[1]})

    for env in envs:
        s = sat[sat["environment"] == env].iloc[0]
        t = table[table["environment"] == env]
        lo_n, hi_n = s["plateau_N_min"], s["plateau_N_max"]
        curve = _level_means(table, env)
        plateau_levels = curve.index[curve.to_numpy() >= (1 - tolerance) * curve.max()]
        iv = stats.t_interval(t.loc[t["N"].isin(plateau_levels), "X"].to_numpy())
        add(env, "saturation throughput (plateau)", "sat", float(s["saturation"]), iv.low, iv.high, "req/s",
            iv.n, f"mean of the per-level means within {100 * tolerance:g}% of the peak; t interval over "
                  "the runs at those levels",
            f"plateau levels N={int(lo_n)}..{int(hi_n)} ({int(s['plateau_levels'])} levels); peak "
            f"{s['peak']:.0f} at N={int(s['N_peak'])}" + (f"; {s['reason']}" if pd.notna(s["reason"]) else ""))
        a = asym[asym["environment"] == env].iloc[0]
        z = 1.959963984540054
        add(env, "saturation throughput (asymptote of X = Xmax N/(K+N))", "sat_asymptote",
            float(a["saturation"]), float(a["saturation"] - z * a["saturation_se"]),
            float(a["saturation"] + z * a["saturation_se"]), "req/s", len(t),
            "least squares over all runs; normal CI from the fit's standard error",
            f"K = {a['K']:.1f} connections (half-saturation)")
        k = kn[kn["environment"] == env].iloc[0]
        add(env, f"connections to reach {100 * fraction:g}% of own plateau", "knee", float(k["knee_N_interpolated"]),
            unit="connections", n=None, method="linear interpolation between measured levels",
            note=f"first measured level reaching it: N={k['knee_N']:.0f}")
        n1, ni = concurrency_to_reach(table, fraction * base_sat, env)
        add(env, f"connections to reach {100 * fraction:g}% of Native's plateau ({fraction * base_sat:.0f} req/s)",
            "reach_native", ni, unit="connections", method="linear interpolation between measured levels",
            note=("never reached (up to 120 connections)" if math.isnan(n1)
                  else f"first measured level reaching it: N={n1:.0f}"))
    for env in envs:
        if env == baseline:
            continue
        al = stats.added_latency(table, env, baseline, model="offset", latency="implied",
                                 max_concurrency=unsaturated_max, by=[], level=level)
        r = al.iloc[0]
        add(env, f"added latency per request vs Native (N <= {unsaturated_max:g})", "added",
            float(r["estimate"]) / US, float(r["low"]) / US, float(r["high"]) / US, "us", int(r["n_points"]),
            "OLS R = a + b N + delta [env] on implied latencies, HC3 95% CI",
            "Native unsaturated in this range (below its knee)")
    lat = runs[runs["workload"] == workload]
    lat_tidy = tidy_runs(lat, "implied_latency_s")
    per_point = added_per_point(lat, baseline, level)
    for env in envs:
        for n_conn in (1, 4, 100):
            r = per_point[(per_point["environment"] == env) & (per_point["connections"] == n_conn)]
            if r.empty:
                continue
            r = r.iloc[0]
            add(env, f"added latency at N={n_conn}", f"added_at_{n_conn}", float(r["added_latency_us"]),
                float(r["added_ci95_low_us"]), float(r["added_ci95_high_us"]), "us",
                int(r["n_runs"] + r["n_runs_native"]), "difference of mean implied latencies, Welch 95% CI",
                f"n={int(r['n_runs'])} vs {int(r['n_runs_native'])} runs")
    for n_conn in (4, 100):
        sub = lat_tidy[lat_tidy["p_connections"] == n_conn]
        ver = stats.verdicts(sub, baseline, margin_source(), ["workload", "environment"], level=level)
        for _, r in ver.iterrows():
            add(r["environment"], f"latency ratio vs Native at N={n_conn}", f"ratio{n_conn}", float(r["ratio"]),
                float(r["ratio_low"]), float(r["ratio_high"]), "ratio", int(r["n"] + r["n_baseline"]),
                f"ratio of mean implied latencies, {dict(fieller='Fieller').get(r['ci_method'], r['ci_method'])} "
                "95% CI (the verdict's interval)",
                comparisons.short(r["verdict"], r["pct_low"], r["pct_high"], r["margin_low_pct"],
                                  r["margin_high_pct"], trials_needed=r["trials_needed"],
                                  beyond=r["beyond_margin"]),
                r["verdict"], (r["margin_low_pct"], r["margin_high_pct"]))
    for env in envs:
        x = lat.loc[(lat["environment"] == env) & (lat["connections"] == 4), "implied_latency_s"].to_numpy()
        iv = stats.t_interval(x, level)
        add(env, "implied latency at N=4", "lat4", iv.estimate / US, iv.low / US, iv.high / US, "us", iv.n,
            "mean of N/X over runs, t interval")
    out = pd.DataFrame.from_records(rows)
    out["n"] = out["n"].astype("Int64")
    out["verdict"] = out["verdict"].astype("string")
    out.attrs["unsaturated_max"] = unsaturated_max
    return out


#: Published Redis values (paper text, Section IV-D): littles_summary key -> (item, metric, env) of
#: the published values (data/reference/rc25482.csv), and the words the paper uses.
PUBLISHED_KEYS = {
    "sat:Native": (("Fig 8", "Redis peak throughput", "Native"), "paper: saturates 'at around 110 k request per second'"),
    "lat4:Docker NAT": (("Fig 9", "Redis latency at 4 connections", "Docker NAT"), "paper: '51us or 1.05x that of native'"),
    "ratio4:Docker NAT": (("Fig 9", "Redis latency at 4 connections", "Docker NAT"), "paper: '1.05x that of native' at 4 connections"),
    "ratio100:Docker NAT": (("Fig 9", "Redis latency at 4 connections", "Docker NAT"), "paper: 'over 1.11x with 100 connections' (a lower bound)"),
    "added:KVM": (("Fig 9", "Redis added latency", "KVM"), "paper: 'KVM adds approximately 83us of latency to every transaction'"),
}
#: Numbers the paper states inside the text of a row whose value is another number.
_IN_TEXT = {"ratio4:Docker NAT": 1.05, "ratio100:Docker NAT": 1.11}


def published_values(published: pd.DataFrame | None) -> dict[str, tuple[float, str]]:
    """Collect the published Redis numbers keyed for :func:`littles_summary`.

    Parameters
    ----------
    published : pandas.DataFrame or None
        :func:`overhead.reference.published` (None gives an empty dict: no comparison). The NAT
        ratios (1.05x at 4 connections, "over 1.11x" at 100) are stated in the same sentence as
        the 51 us and are taken from the text of that row's source, the paper.

    Returns
    -------
    dict of str to (float, str)
        Key -> (value, the paper's words).
    """
    if published is None:
        return {}
    out: dict[str, tuple[float, str]] = {}
    for key, ((item, metric, env), words) in PUBLISHED_KEYS.items():
        hit = published[(published["item"] == item) & (published["metric"] == metric) & (published["env"] == env)]
        if hit.empty:
            continue
        value = _IN_TEXT.get(key, float(hit["value_parsed"].iloc[0]))
        out[key] = (value, words)
    return out


__all__ = ["BASELINE", "ENVIRONMENTS", "PRIMARY", "RedisDataError", "TESTS", "VERDICT_COLUMNS", "WORKLOADS",
           "added_per_point", "concurrency_to_reach", "latency_bounds", "littles_display", "latency_curve", "littles", "littles_summary",
           "margin_source", "published_values", "run_throughput", "throughput_curve", "tidy_runs",
           "HOVER", "plot_fig08", "plotly_fig08", "plot_fig09", "plotly_fig09"]


def littles_display(summary: pd.DataFrame) -> pd.DataFrame:
    """Format :func:`littles_summary` for reading (strings; for redis_littles.md).

    Parameters
    ----------
    summary : pandas.DataFrame
        Output of :func:`littles_summary`.

    Returns
    -------
    pandas.DataFrame
        One row per quantity: environment, quantity, estimate [95% CI] with units, n,
        published (with the paper's words) and the percent difference, method.
    """
    def num(v: float, unit: str) -> str:
        if not math.isfinite(v):
            return "-"
        if unit == "ratio":
            return f"{v:.3f}"
        if unit == "req/s":
            return f"{v:,.0f}"
        return f"{v:.1f}"

    rows = []
    for _, r in summary.iterrows():
        est = num(r["estimate"], r["unit"])
        if math.isfinite(r["ci95_low"]):
            est += f" [{num(r['ci95_low'], r['unit'])}, {num(r['ci95_high'], r['unit'])}]"
        pub = "-" if not math.isfinite(r["published"]) else (
            f"{num(r['published'], r['unit'])} ({r['pct_vs_published']:+.1f}%)")
        rows.append({"environment": r["environment"], "quantity": r["quantity"],
                     "estimate [95% CI]": est if est == "-" else
                     f"{est} {r['unit'] if r['unit'] != 'ratio' else ''}".strip(),
                     "n": "-" if pd.isna(r["n"]) else str(int(r["n"])),
                     "published (diff)": pub, "how": r["method"],
                     "note": "; ".join(x for x in (r["note"], r["published_text"]) if isinstance(x, str) and x)})
    return pd.DataFrame(rows).set_index(["environment", "quantity"])


def authors_tables(tidy_dir: str | os.PathLike[str], paper: pd.DataFrame | None = None, *,
                   runs: pd.DataFrame | None = None,
                   bounds: pd.DataFrame | None = None) -> dict[str, pd.DataFrame]:
    """Compute the section's curves from the authors' tidy data: ``fig08`` and ``fig09``.

    Throughput per run (:func:`run_throughput`) over client connections, and the latency
    Little's law implies for the :data:`PRIMARY` workload with the millisecond buckets' bounds;
    ``runs`` and ``bounds`` when the caller has them already.
    """
    from overhead.rc25482 import load

    if runs is None or bounds is None:
        raw = load(tidy_dir, "redis")
        runs = run_throughput(raw) if runs is None else runs
        bounds = latency_bounds(raw) if bounds is None else bounds
    pub = published_values(paper) if paper is not None else {}
    return {"fig08": throughput_curve(runs),
            "fig09": latency_curve(runs[runs["workload"] == PRIMARY], bounds, published=pub)}


# --- the prose numbers of the notebook (its "Reading ..." paragraphs) ------------------

def _littles(table: pd.DataFrame, env: str, key: str, col: str = "estimate") -> float:
    """Return one value of :func:`overhead.rc25482.redis.littles_summary`."""
    return wording.at(table, col, environment=env, key=key)


def _differing_points(frame: pd.DataFrame, env: str, x: str, pct: str) -> list[tuple[int, float]]:
    """List (x, percent) of the points of ``env`` whose verdict says they differ from the baseline."""
    rows = frame[(frame["environment"] == env).to_numpy(dtype=bool) & comparisons.differs(frame["verdict"]).to_numpy()]
    return [(int(a), float(b)) for a, b in zip(rows[x], rows[pct], strict=True)]


def _differences(points: list[tuple[int, float]], holm: dict[int, float], directions: str) -> str:
    """Say the points that differ, and which of them do not survive Holm's correction."""
    if not points:
        return ""
    weak = [n for n, _ in points if not holm[n] < 0.05]
    said = f", {directions} ({wording.word_list([f'{p:+.1f}% at {n}' for n, p in points])} connections"
    if weak:
        said += ("; the difference at " if len(weak) == 1 else "; those at ") + wording.word_list(weak) + (
            " does not" if len(weak) == 1 else " do not") + " survive Holm's correction"
    return said + ")"


def _redis_paper(paper: pd.DataFrame | None) -> dict:
    """Return the paper's Redis numbers (:func:`overhead.rc25482.redis.published_values`)."""
    return published_values(wording.paper(paper))


def fig8_findings(f8: pd.DataFrame, littles_tab: pd.DataFrame, paper: pd.DataFrame | None = None, *,
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
    band = wording.band(f8[f8["environment"] != "Native"])
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
        "host_inc_at": wording.word_list([int(c) for c in inc["connections"]]) if len(inc) else "",
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
        "host_bound": wording.up(max(abs(host_low), abs(host_high)), 1),
        "host_verdict": (f"an interval that holds no difference and rules out more than "
                         f"{wording.up(max(abs(host_low), abs(host_high)), 1):g} us either way"
                         if host_low <= 0 <= host_high else
                         "an interval above 0: net=host adds latency" if host_low > 0
                         else "an interval below 0: net=host is faster"),
        "paper_sat": pub["sat:Native"][0], "native_vs_paper": 100.0 * (native_sat / pub["sat:Native"][0] - 1.0),
    }


# --- figures (drawn for the notebook; the notebook saves and shows them) ---
#: Hover fields of the interactive Figs 8 and 9: label -> column.
HOVER = {"n runs": "n_runs", "ratio vs native": "ratio_vs_native", "vs native": "verdict"}


def plot_fig08(f8: pd.DataFrame, pub: Mapping[str, tuple[float, str]]) -> Figure:
    """Draw Fig 8: throughput against client connections, and relative to native.

    Left panel: mean throughput with its 95% CI per environment (thousand requests/s), and the
    paper's native saturation as a dotted line when published. Right panel: the ratio to
    native with the 95% interval of the ratio of means, the verdict markers and the
    equivalence margin.

    Parameters
    ----------
    f8 : pandas.DataFrame
        The :func:`throughput_curve` rows of one workload (the notebook's :data:`PRIMARY`).
    pub : mapping
        :func:`published_values` (empty without the paper's values); ``"sat:Native"`` is used.

    Returns
    -------
    matplotlib.figure.Figure
        The figure (not saved, shown or closed).
    """
    envs = list(ENVIRONMENTS)
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(13, 5), gridspec_kw={"width_ratios": [1.35, 1]})
    plots.ci_curves(ax, f8, "connections", "throughput_mean", "throughput_ci95_low", "throughput_ci95_high",
                    groups=envs, scale=1000, n="n_runs", label="{group} (n = {n} runs/point)")
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
    plots.ci_curves(bx, f8, "connections", "ratio_vs_native", "ratio_low", "ratio_high", groups=envs[1:],
                    fmt="-", marker="", lw=1.2, elinewidth=0.8, label=False)
    plots.verdict_markers(bx, f8, "connections", "ratio_vs_native", groups=envs[1:], size=28, labels=True)
    bx.axhline(1.0, color=plots.colour("Native"), lw=1)
    plots.margin_band(bx, f8[f8["environment"] != "Native"], label="equivalence margin (verdict)")
    bx.set_xlabel("client connections")
    bx.set_ylabel("throughput / native throughput")
    bx.set_title("Relative to native (95% CI of the ratio; marker: verdict)", fontsize=11)
    bx.set_xlim(0, 123)
    bx.legend(fontsize=7.5, loc="lower right", ncol=1)
    fig.text(0.01, -0.03, "Workload: redis-benchmark 2.x GET and SET tests (500,000 requests each, no pipelining), "
             "not the paper's 50/50 pipelined 150M-key load: shapes comparable, values not.\n"
             "Throughput = total requests / total time of the two tests per run; runs pooled over 1-4 transcripts "
             "per environment.", fontsize=8, va="top")
    fig.tight_layout()
    return fig


def plotly_fig08(f8: pd.DataFrame):
    """Draw the interactive Fig 8: mean throughput with its 95% CI per environment.

    Parameters
    ----------
    f8 : pandas.DataFrame
        As for :func:`plot_fig08`.

    Returns
    -------
    plotly.graph_objects.Figure
        One trace per environment (requests/s), hover fields :data:`HOVER`.
    """
    fig = plots.plotly_ci_curves(f8, "connections", "throughput_mean", "throughput_ci95_low",
                                 "throughput_ci95_high", groups=list(ENVIRONMENTS), hover=HOVER)
    fig.update_layout(title="Fig 8: Redis GET+SET throughput (mean, 95% CI)", xaxis_title="client connections",
                      yaxis_title="requests/s")
    return fig


def plot_fig09(f9: pd.DataFrame, littles_tab: pd.DataFrame, pub: Mapping[str, tuple[float, str]]) -> Figure:
    """Draw Fig 9: the latency Little's law implies against client connections.

    Large panel: mean implied latency R = N / X with its 95% CI per environment, the paper's
    Docker NAT value at 4 connections when published, and KVM's added latency per request
    below saturation (from ``littles_tab``). Four small panels: each environment's implied
    latency inside the bound the millisecond buckets put on its mean measured latency.

    Parameters
    ----------
    f9 : pandas.DataFrame
        The :func:`latency_curve` rows of one workload (the notebook's :data:`PRIMARY`).
    littles_tab : pandas.DataFrame
        :func:`littles_summary` (its KVM ``added`` row and ``attrs["unsaturated_max"]``).
    pub : mapping
        :func:`published_values` (empty without the paper's values); ``"lat4:Docker NAT"`` and
        ``"added:KVM"`` are used.

    Returns
    -------
    matplotlib.figure.Figure
        The figure (not saved, shown or closed).
    """
    envs = list(ENVIRONMENTS)
    fig = plt.figure(figsize=(13.5, 5.6))
    gs = fig.add_gridspec(2, 4, width_ratios=[1.6, 1.6, 1, 1], hspace=0.45, wspace=0.35)
    ax = fig.add_subplot(gs[:, :2])
    plots.ci_curves(ax, f9, "connections", "latency_us_mean", "latency_us_ci95_low", "latency_us_ci95_high",
                    groups=envs, n="n_runs", label="{group} (n = {n} runs/point)")
    if "lat4:Docker NAT" in pub:
        ax.plot([4], [pub["lat4:Docker NAT"][0]], marker="*", ms=12, color="black", ls="none", zorder=10,
                label="paper: Docker NAT 51 us at N=4")
    ax.set_xlabel("client connections (one request outstanding each)")
    ax.set_ylabel("implied latency R = N / X (us)")
    ax.set_title("Fig 9: Redis GET+SET latency (Little's law), mean and 95% CI", fontsize=11)
    ax.set_xlim(0, 123)
    ax.set_ylim(0, 1600)
    ax.legend(loc="upper left", fontsize=8.5)
    kvm_add = littles_tab[(littles_tab["key"] == "added") & (littles_tab["environment"] == "KVM")].iloc[0]
    ax.text(0.97, 0.03, f"KVM - Native, N <= {littles_tab.attrs['unsaturated_max']:g}: "
            f"+{kvm_add['estimate']:.0f} us [{kvm_add['ci95_low']:.0f}, {kvm_add['ci95_high']:.0f}] per request"
            + ("\n(paper: ~83 us, different workload)" if "added:KVM" in pub else ""),
            transform=ax.transAxes, ha="right", va="bottom", fontsize=8)
    for i, env in enumerate(envs):
        sx = fig.add_subplot(gs[i // 2, 2 + i % 2])
        rows = f9[f9["environment"] == env]
        sx.fill_between(rows["connections"], rows["bucket_low_us"], rows["bucket_high_us"], color="0.85",
                        label="bucket bound on mean")
        sx.plot(rows["connections"], rows["latency_us_mean"], color=plots.colour(env), marker=plots.marker(env),
                ms=3, lw=1.2, label="implied N/X")
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
    return fig


def plotly_fig09(f9: pd.DataFrame):
    """Draw the interactive Fig 9: mean implied latency with its 95% CI per environment.

    Besides one curve per environment, each environment's millisecond-bucket bound on the mean
    measured latency is a filled band, hidden until chosen in the legend.

    Parameters
    ----------
    f9 : pandas.DataFrame
        As for :func:`plot_fig09`.

    Returns
    -------
    plotly.graph_objects.Figure
        One curve trace per environment (us), then one band trace per environment.
    """
    envs = list(ENVIRONMENTS)
    fig = plots.plotly_ci_curves(f9, "connections", "latency_us_mean", "latency_us_ci95_low", "latency_us_ci95_high",
                                 groups=envs, hover=HOVER)
    fig.update_layout(title="Fig 9: Redis GET+SET implied latency (Little's law), mean and 95% CI",
                      xaxis_title="client connections", yaxis_title="implied latency N/X (us)")
    for env in envs:
        rows = f9[f9["environment"] == env]
        fig.add_scatter(x=list(rows["connections"]) + list(rows["connections"][::-1]),
                        y=list(rows["bucket_high_us"]) + list(rows["bucket_low_us"][::-1]), fill="toself",
                        fillcolor=plots.colour(env), opacity=0.12, line=dict(width=0), name=f"{env}: bucket bound",
                        visible="legendonly", hoverinfo="skip")
    return fig


# --- the same tables from a campaign measured here (the live side) -------------------

def live_runs(live: livedata.Live) -> pd.DataFrame:
    """Return one row per Redis run.

    GET+SET throughput (all requests / all time), request-weighted mean latency (s),
    connections and pipeline depth.

    A test's time is taken from its throughput summary where redis-benchmark printed one
    (requests / rate: the rate is computed from the elapsed milliseconds) and otherwise from
    "completed in N seconds", which is rounded to 10 ms. A test whose time printed as zero has
    no rate: its run's throughput is NaN (dropped from the comparison), never infinite.
    """
    r = live.benchmark("redis", ("requests", "duration", "latency_mean", "throughput"))
    r = r[r["p_section"].isna() | (r["p_section"] == "summary")]
    if r.empty:
        return pd.DataFrame()
    wide = r.pivot_table(index=livedata.keys(r, "run_id", "label", "p_clients", "p_pipeline", "p_test"),
                         columns="metric", values="value", observed=True).reset_index()
    rate = wide["throughput"] if "throughput" in wide else pd.Series(np.nan, index=wide.index)
    exact = wide["requests"] / rate.where(rate > 0)
    wide["duration"] = exact.fillna(wide["duration"]).where(lambda d: d > 0)
    wide["weighted"] = wide["latency_mean"] * wide["requests"]
    runs = wide.groupby(livedata.keys(wide, "run_id", "label", "p_clients", "p_pipeline"), as_index=False,
                        observed=True)[["requests", "duration", "weighted"]].sum(min_count=1)
    # a run with one test of no measurable time has no throughput (sum would skip the NaN)
    timeless = wide.loc[wide["duration"].isna(), "run_id"].unique()
    runs.loc[runs["run_id"].isin(timeless), "duration"] = np.nan
    runs["throughput"] = runs["requests"] / runs["duration"]
    runs["latency"] = runs["weighted"] / runs["requests"]
    return runs.drop(columns="weighted")


def live_tables(live: livedata.Live) -> dict[str, pd.DataFrame]:
    """Return Figs 8-9 live: GET+SET throughput and mean latency vs connections.

    Throughput in req/s, latency in us, and Little's law with N = connections x pipeline
    depth (the requests in flight).
    """
    runs = live_runs(live)
    if runs.empty:
        return {"fig08": pd.DataFrame(), "fig09": pd.DataFrame(), "littles": pd.DataFrame()}
    runs = runs.assign(value=runs["throughput"])
    fig08 = livedata.compare(runs, "fig08", "GET+SET", "req/s", 1.0, x="p_clients", higher_is_better=True,
                     benchmark="redis", metric="throughput")
    fig09 = livedata.compare(runs.assign(value=runs["latency"]), "fig09", "GET+SET", "us", 1e-6,
                     x="p_clients", higher_is_better=False, benchmark="redis", metric="latency_mean")

    def match(stem_value: str):
        def m(a: pd.DataFrame, row: pd.Series, env: str) -> pd.DataFrame:
            a = a[(a["workload"] == "GET+SET") & (a["environment"] == env)]
            return livedata.nearest(a, "connections", row["x"])
        return m

    fig08 = livedata.attach_authors(fig08, live, "redis", "fig08", match("x"), "throughput_mean",
                            "pct_vs_native")
    fig09 = livedata.attach_authors(fig09, live, "redis", "fig09", match("x"), "latency_us_mean",
                            "pct_vs_native")
    n = runs["p_clients"].astype(float) * runs["p_pipeline"].astype(float)
    littles = livedata.littles(runs, n, "redis")
    # where X R is under half of N, the closed loop never formed: most of the run's clock
    # passed with fewer requests in flight than connections x pipeline (connections still
    # being accepted, say): that point measures the wait, not Redis
    ratio = (runs.assign(N=n)[["label", "p_clients", "N"]].drop_duplicates()
             .merge(littles, left_on=["label", "N"], right_on=["environment", "N"])
             .assign(share=lambda d: d["xr_mean"] / d["N"])
             .set_index(["label", "p_clients"])["share"])
    for table in (fig08, fig09):
        for i, row in table.iterrows():
            share = ratio.get((row["environment"], row["x"]))
            if share is not None and share < livedata.OPEN_LOOP:
                said = (f"loop not closed: X R = {share:.0%} of N, so most of the run passed "
                        "with fewer requests in flight than connections x pipeline; this "
                        "point measures that wait, not Redis")
                old = table.at[i, "authors_note"]
                table.at[i, "authors_note"] = f"{old}; {said}" if isinstance(old, str) and old else said
    # the pipeline depth of each level: with more than one request per connection in flight
    # N is an upper bound (the check is X R <= N), with one the equality N = X R
    depth = (runs.assign(N=n)[["label", "N", "p_pipeline"]].dropna().drop_duplicates()
             .groupby(["label", "N"])["p_pipeline"].max().astype(float))
    littles["pipeline"] = [depth.get((e, v), np.nan) for e, v in
                           zip(littles["environment"], littles["N"], strict=True)]
    return {"fig08": fig08, "fig09": fig09, "littles": littles}
