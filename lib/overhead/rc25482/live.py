"""RC25482 live: the paper's tables and figures from a campaign measured on this machine.

A campaign run with this project's engine (``notebooks/campaign.ipynb``, ``overhead run``) is
ingested into ``data/tidy/<campaign>/``. The functions here turn its rows into the paper's
tables and figures, one comparison frame per figure, each row one point of one environment:

- the live statistics: n trials, mean, SD, 95% CI of the mean (Student-t where a Shapiro-Wilk
  check passes, else bootstrap BCa), and against Native the percent difference with its
  bootstrap interval, Welch's p (Holm-corrected within the figure) and a verdict in words
  (:func:`overhead.stats.curve`);
- beside it the authors' value for the environment the live one stands for (their Native,
  Docker, Docker NAT, KVM...), read from the tables the authors' half of the same notebooks
  wrote (``figures/rc25482/*.csv``), and the authors' percent difference from their Native.

Absolute numbers of a 2-core machine and a 32-core server do not compare; the percent
differences from native do, as far as the workloads scale. A VM that QEMU ran under TCG
(software emulation) is labelled "QEMU TCG" and set beside the authors' KVM only with the
note that emulation is not hardware virtualization: its overhead is never called a KVM
overhead. The known truths of the paper (:func:`known_truths`) are checked on the live data
with their intervals, and :func:`report` writes ``figures/<campaign>/report.html``.
"""

from __future__ import annotations

import datetime as _dt
import html
import os
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from overhead import export, stats, studies
from overhead.campaign import results
from overhead.errors import InputError
from overhead.names import AUTHORS_DATASET, AUTHORS_STUDY, BASELINE
from overhead.pages import Page
from overhead.paths import TIDY

__all__ = ["AUTHORS_DIR", "FIGURES_LIVE", "Live", "blockio", "caveats", "compute", "known_truths",
           "mysql", "network", "open_campaign", "plot_bars", "plot_curves", "redis", "report",
           "where"]

#: Where the authors' values come from by default: their ingested tidy data, from which the
#: section modules compute the tables (``authors_tables``), not the files a notebook wrote.
AUTHORS_DIR = TIDY / AUTHORS_DATASET
TCG_NOTE = ("QEMU TCG is software emulation, not KVM: the authors' KVM value is shown for "
            "orientation only, and this overhead is not a KVM overhead")
#: X R under this fraction of N: the closed loop never formed (Little's law cannot hold).
OPEN_LOOP = 0.5
#: The figure stems each section writes (report order).
FIGURES_LIVE = {"compute": ("table1",), "network": ("fig02", "fig03"),
                "blockio": ("fig05", "fig06", "fig07"), "redis": ("fig08", "fig09"),
                "mysql": ("fig10", "fig11", "fig12", "fig13")}


@dataclass
class Live(results.Results):
    """One ingested campaign, ready for the paper's tables.

    The campaign's :class:`~overhead.campaign.results.Results` and where the authors' tables
    are.

    Attributes
    ----------
    authors : pathlib.Path
        The authors' tidy data (default ``data/tidy/ibm``): each section's tables are computed
        from it by the section module (``authors_tables``), once; or a folder of tables a
        notebook wrote (``<stem>.csv``), read as they are.
    """

    authors: Path = AUTHORS_DIR
    authors_computed: dict = field(default_factory=dict, repr=False)


#: Display label of a campaign environment (kept under its old name for this module).
_label = results.display_label
#: What was measured where: one row per campaign environment (see the toolkit's ``where``).
where = results.where


def open_campaign(campaign: str | os.PathLike[str], *, tidy_root: str | os.PathLike[str] | None = None,
                  out_root: str | os.PathLike[str] | None = None,
                  authors: str | os.PathLike[str] | None = None) -> Live:
    """Load an ingested campaign (:func:`overhead.campaign.results.open_results`).

    Parameters
    ----------
    campaign : str or path
        The campaign's name (``local-quick``) or its YAML file (its name is read from it).
    tidy_root : path, optional
        The folder of tidy trees (default ``data/tidy``).
    out_root : path, optional
        The folder of figure trees (default ``figures``); output goes to ``<out_root>/<name>``.
    authors : path, optional
        The authors' tidy data (default ``data/tidy/ibm``), or a folder of their tables as CSV.

    Returns
    -------
    Live
        The campaign's rows and folders.

    Raises
    ------
    InputError
        When the campaign has not been ingested (naming the folder looked at).
    """
    r = results.open_results(campaign, tidy_root=tidy_root, out_root=out_root)
    return Live(r.name, r.tidy, r.out, r.rows, r.trials, r.provenance, r.plan,
                Path(authors or AUTHORS_DIR))


# --- the authors' side ---------------------------------------------------------------------

def _authors_env(section: str, label: str) -> str | None:
    """Return the authors' environment a live label stands for in a section (None: none)."""
    if label == BASELINE:
        return BASELINE
    if label.startswith(("QEMU TCG", "VM")):
        return "KVM-untuned" if section == "compute" else "KVM"
    if label.startswith("KVM"):
        if section == "compute":
            return "KVM-tuned" if "tuned" in label and "untuned" not in label else "KVM-untuned"
        return "KVM"
    if not label.startswith("Docker"):
        return None
    nat = " NAT" in label
    if section in ("compute", "blockio"):
        return "Docker"
    if section == "network":
        return "Docker NAT" if nat else None
    if section == "redis":
        return "Docker NAT" if nat else "Docker net=host"
    if section == "mysql":
        if "overlay" in label or "AUFS" in label:
            return "Docker NAT AUFS" if nat else None
        return "Docker NAT volume" if nat else "Docker net=host volume"
    return None


#: The section module that computes each of the authors' tables set beside the live ones.
AUTHORS_SECTION = {"table1": "compute", "fig02": "network", "fig03": "network", "fig05": "blockio",
                   "fig06": "blockio", "fig07_ratios": "blockio", "fig08": "redis", "fig09": "redis",
                   "fig10": "mysql", "fig11": "mysql", "fig12": "mysql"}


def is_tidy(folder: Path) -> bool:
    """Whether a folder is ingested tidy data (it has ``measurements.parquet``)."""
    return (Path(folder) / "measurements.parquet").exists()


def _authors_table(live: Live, stem: str) -> pd.DataFrame | None:
    """Return the authors' table ``stem``: computed from their tidy data, or read from a folder."""
    if is_tidy(live.authors):
        section = AUTHORS_SECTION.get(stem)
        if section is None:
            return None
        if section not in live.authors_computed:
            import importlib

            from overhead.rc25482.published import published

            module = importlib.import_module(f"overhead.rc25482.{section}")
            live.authors_computed[section] = module.authors_tables(live.authors,
                                                                   published(AUTHORS_STUDY))
        return live.authors_computed[section].get(stem)
    path = live.authors / f"{stem}.csv"
    return pd.read_csv(path) if path.exists() else None


def _attach_authors(table: pd.DataFrame, live: Live, section: str, stem: str,
                    match: Callable[[pd.DataFrame, pd.Series, str], pd.DataFrame],
                    value: str, pct: str | None, missing: str | None = None) -> pd.DataFrame:
    """Add the authors' columns to a comparison frame.

    authors_environment, authors_value, authors_pct_vs_native, authors_x (the level of theirs
    used, for swept parameters) and authors_note (``missing`` where none matches).
    """
    if table.empty:
        return table
    authors = _authors_table(live, stem)
    envs, vals, pcts, notes, xs = [], [], [], [], []
    for _, row in table.iterrows():
        env = _authors_env(section, row["environment"])
        envs.append(env)
        note = ""
        if row["environment"].startswith("QEMU TCG"):
            note = TCG_NOTE
        if authors is None:
            vals.append(np.nan)
            pcts.append(np.nan)
            xs.append(None)
            notes.append("; ".join(n for n in (note, f"authors' {stem} not found in {live.authors} "
                                                     "(make ingest)") if n))
            continue
        hit = match(authors, row, env) if env else authors.iloc[0:0]
        if hit.empty:
            vals.append(np.nan)
            pcts.append(np.nan)
            xs.append(None)
            notes.append(note or missing or ("no counterpart in the authors' data" if env is None
                                             else f"no authors' value for {env}"))
            continue
        vals.append(float(hit[value].iloc[0]))
        pcts.append(float(hit[pct].iloc[0]) if pct and pd.notna(hit[pct].iloc[0]) else
                    (0.0 if env == BASELINE else np.nan))
        xs.append(hit[AUTHORS_X].iloc[0] if AUTHORS_X in hit else None)
        notes.append(note)
    out = table.assign(authors_environment=envs, authors_value=vals,
                       authors_pct_vs_native=pcts, authors_x=xs, authors_note=notes)
    if pct is None and not out.empty:  # their percent difference from their own Native
        native = out[out["authors_environment"] == BASELINE]
        base = {(i, a): v for i, a, v in zip(native["item"], native["authors_x"].astype(str),
                                              native["authors_value"], strict=True)}
        out["authors_pct_vs_native"] = [
            100 * (v / base[(i, str(a))] - 1) if (i, str(a)) in base and pd.notna(v) else np.nan
            for i, a, v in zip(out["item"], out["authors_x"], out["authors_value"], strict=True)]
    return out


# --- the live side -------------------------------------------------------------------------

def _compare(rows: pd.DataFrame, figure: str, item: str, unit: str, scale: float = 1.0,
             x: str | None = None, higher_is_better: bool | None | str = "auto",
             benchmark: str | None = None, metric: str | None = None) -> pd.DataFrame:
    """One comparison frame: per (item, environment, x) the live statistics and verdict vs Native.

    The margin is the one ``data/reference/margins.yml`` gives the item in this study (with
    the benchmark and metric: the rows', or the ones given for per-run frames built from them).
    """
    from overhead import margins

    fields = {"study": "rc25482", "item": item}
    for name, given in (("benchmark", benchmark), ("metric", metric)):
        if given is not None:
            fields[name] = given
        elif name in rows and rows[name].nunique() == 1:
            fields[name] = str(rows[name].iloc[0])
    table = results.compare(rows, item, unit, scale, x=x, baseline=BASELINE,
                            margin=margins.load().with_fields(**fields),
                            higher_is_better=higher_is_better)
    return table.assign(figure=figure) if not table.empty else table


def _keys(rows: pd.DataFrame, *keys: str) -> list[str]:
    """Group keys of per-run frames, with the run's campaign cell when the rows know it."""
    return [*keys, *(["cell"] if "cell" in rows.columns else [])]


def _finish(parts: list[pd.DataFrame]) -> pd.DataFrame:
    parts = [p for p in parts if not p.empty]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def compute(live: Live) -> pd.DataFrame:
    """Table I live: PXZ (MB/s), Linpack (HPL, GFLOPS), RandomAccess (MPI, GUPS), STREAM (GB/s).

    STREAM is HPCC's StarSTREAM (every core runs the kernel at once; the value is per process)
    and RandomAccess HPCC's MPIRandomAccess over all processes.
    """
    parts = [
        _compare(live.benchmark("pxz", "throughput"), "table1", "PXZ", "MB/s", 1e6),
        # HPL's figure at the precision of HPCC's summary (HPL_Tflops=), one row per run: the
        # rounded table row (p_section "hpl") says the same and would double n
        _compare(live.benchmark("hpcc", "flop_rate", p_kernel="hpl", p_section="summary"),
                 "table1", "Linpack",
                 "GFLOPS", 1e9),
        _compare(live.benchmark("hpcc", "update_rate", p_kernel="randomaccess", p_scope="mpi"),
                 "table1", "RandomAccess", "GUPS", 1e9),
    ]
    for kernel in ("copy", "scale", "add", "triad"):
        parts.append(_compare(live.benchmark("hpcc", "bandwidth", p_kernel=kernel, p_scope="star"),
                              "table1", f"STREAM {kernel.capitalize()}", "GB/s", 1e9))
    table = _finish(parts)

    def match(a: pd.DataFrame, row: pd.Series, env: str) -> pd.DataFrame:
        return a[(a["workload"] == row["item"]) & (a["environment"] == env) & a["mean"].notna()]

    return _attach_authors(table, live, "compute", "table1", match, "mean", "delta_vs_native_pct")


#: nuttcp directions: the runner's (seen from the client) -> the paper's (seen from the system
#: under test, the environment); the authors' fig02.csv names.
DIRECTIONS = {"tx": ("client->server (environment receives)", "server->client (SUT receives)"),
              "rx": ("server->client (environment transmits)", "client->server (SUT transmits)")}


def network(live: Live) -> dict[str, pd.DataFrame]:
    """Figs 2 and 3 live: nuttcp goodput (Gbit/s) with the host's CPU, netperf RR latency (us).

    Returns ``{"fig02": ..., "fig03": ...}``. Fig 2's rows have item = the direction; its
    ``cpu`` rows (item "host CPU busy ...") give the whole host's CPU busy percent during the
    transfer (mpstat, all cores), where perf's cycle counters are not available.
    """
    good = live.benchmark("nuttcp", "goodput", p_sidecar=None)
    parts, cpu_parts = [], []
    for code, (name, _) in DIRECTIONS.items():
        parts.append(_compare(good[good["p_direction"] == code], "fig02", name, "Gbit/s", 1e9 / 8))
        idle = live.benchmark("nuttcp", "cpu_idle_mean", p_sidecar="mpstat", p_cpu="all")
        idle = idle[idle["p_direction"] == code].assign(value=lambda f: 100.0 - f["value"])
        cpu_parts.append(_compare(idle, "fig02", f"host CPU busy %, {name}", "%",
                                  higher_is_better=None, metric="cpu_busy"))
    fig02 = _finish(parts)

    def match2(a: pd.DataFrame, row: pd.Series, env: str) -> pd.DataFrame:
        theirs = {mine: paper for mine, paper in DIRECTIONS.values()}[row["item"]]
        return a[(a["direction"] == theirs) & (a["environment"] == env) & a["goodput_gbps"].notna()]

    fig02 = _attach_authors(fig02, live, "network", "fig02", match2, "goodput_gbps", None)
    if not fig02.empty:
        native = fig02[fig02["authors_environment"] == BASELINE].set_index("item")["authors_value"]
        fig02["authors_pct_vs_native"] = [
            100 * (v / native.get(i, np.nan) - 1) if pd.notna(v) else np.nan
            for i, v in zip(fig02["item"], fig02["authors_value"], strict=True)]
    cpu = _attach_authors(_finish(cpu_parts), live, "network", "fig02", lambda a, row, env: a.iloc[0:0],
                          "goodput_gbps", None,
                          missing="the authors give perf's cycles per byte (Fig 2), not CPU busy")
    fig02 = _finish([fig02, cpu])
    tests = live.benchmark("netperf", "latency_mean")
    lat = _finish([_compare(tests[tests["p_test"] == t], "fig03", t, "us", 1e-6)
                   for t in sorted(tests["p_test"].dropna().unique())])

    def match3(a: pd.DataFrame, row: pd.Series, env: str) -> pd.DataFrame:
        return a[(a["test"] == row["item"]) & (a["environment"] == env) & a["latency_us"].notna()]

    fig03 = _attach_authors(lat, live, "network", "fig03", match3, "latency_us", "delta_vs_native_pct")
    return {"fig02": fig02, "fig03": fig03}


SEQUENTIAL = {"read": "Sequential Read", "write": "Sequential Write"}
RANDOM = {"randread": "Random Read", "randwrite": "Random Write", "randrw": "Random Mixed 70/30"}


def _fio_total(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per run: a mixed job's read and write directions summed."""
    keys = _keys(rows, "run_id", "label", "p_rw")
    return rows.groupby(keys, as_index=False, observed=True, dropna=False)["value"].sum()


def blockio(live: Live) -> dict[str, pd.DataFrame]:
    """Figs 5-7 live: sequential bandwidth (MB/s), random IOPS, random-read latency percentiles.

    Returns ``{"fig05": ..., "fig06": ..., "fig07": ...}``; Fig 7's items are p50, p90, p99
    of fio's completion latency (us) of the random-read job, one value per run.
    """
    seq = live.benchmark("fio-seq", "bandwidth")
    fig05 = _finish([_compare(seq[seq["p_rw"] == rw], "fig05", name, "MB/s", 1e6)
                     for rw, name in SEQUENTIAL.items()])

    def match5(a: pd.DataFrame, row: pd.Series, env: str) -> pd.DataFrame:
        return a[(a["test"] == row["item"]) & (a["environment"] == env)]

    fig05 = _attach_authors(fig05, live, "blockio", "fig05", match5, "bandwidth_mb_s", "pct_vs_native")
    rnd = _fio_total(pd.concat([live.benchmark("fio-rand", "iops"), live.benchmark("fio-mixed", "iops")]))
    fig06 = _finish([_compare(rnd[rnd["p_rw"] == rw], "fig06", name, "IOPS", higher_is_better=True,
                              benchmark="fio-rand", metric="iops")
                     for rw, name in RANDOM.items()])
    # the authors' random jobs at 16x8 (their Fig 6); one job here (quick) or both (paper)
    fig06 = _attach_authors(fig06, live, "blockio", "fig06",
                            lambda a, row, env: a[(a["test"] == row["item"]) & (a["environment"] == env)
                                                  & (a["numjobs"] == a["numjobs"].max())],
                            "iops", "pct_vs_native")
    pcts = live.benchmark("fio-rand", "clat_percentile", p_rw="randread")
    fig07 = _finish([_compare(pcts[pcts["p_percentile"] == p], "fig07", f"p{p:g}", "us", 1e-6)
                     for p in (50.0, 90.0, 99.0)])

    def match7(a: pd.DataFrame, row: pd.Series, env: str) -> pd.DataFrame:
        return a[(a["statistic"] == row["item"]) & (a["environment"] == env)]

    fig07 = _attach_authors(fig07, live, "blockio", "fig07_ratios", match7, "value_us", None)
    if not fig07.empty:
        fig07["authors_pct_vs_native"] = _pct_from_ratio(live, fig07)
    return {"fig05": fig05, "fig06": fig06, "fig07": fig07}


def _pct_from_ratio(live: Live, fig07: pd.DataFrame) -> list[float]:
    a = _authors_table(live, "fig07_ratios")
    if a is None:
        return [np.nan] * len(fig07)
    ratio = a.set_index(["statistic", "environment"])["ratio_vs_native"]
    return [100 * (ratio.get((i, e), np.nan) - 1) if e else np.nan
            for i, e in zip(fig07["item"], fig07["authors_environment"], strict=True)]


#: The column where a matched authors' row says its level (connections, threads) when it
#: differs from the live one.
AUTHORS_X = "_authors_x"


def _nearest(a: pd.DataFrame, column: str, x: float) -> pd.DataFrame:
    """Return the authors' rows at the level of ``column`` nearest to x on a log scale.

    Their sweeps differ from the live ones; the level chosen is kept in :data:`AUTHORS_X`.
    """
    if a.empty:
        return a
    levels = a[column].dropna().unique()
    best = levels[np.argmin(np.abs(np.log(levels.astype(float)) - np.log(float(x))))]
    return a[a[column] == best].assign(**{AUTHORS_X: best})


def redis_runs(live: Live) -> pd.DataFrame:
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
    wide = r.pivot_table(index=_keys(r, "run_id", "label", "p_clients", "p_pipeline", "p_test"),
                         columns="metric", values="value", observed=True).reset_index()
    rate = wide["throughput"] if "throughput" in wide else pd.Series(np.nan, index=wide.index)
    exact = wide["requests"] / rate.where(rate > 0)
    wide["duration"] = exact.fillna(wide["duration"]).where(lambda d: d > 0)
    wide["weighted"] = wide["latency_mean"] * wide["requests"]
    runs = wide.groupby(_keys(wide, "run_id", "label", "p_clients", "p_pipeline"), as_index=False,
                        observed=True)[["requests", "duration", "weighted"]].sum(min_count=1)
    # a run with one test of no measurable time has no throughput (sum would skip the NaN)
    timeless = wide.loc[wide["duration"].isna(), "run_id"].unique()
    runs.loc[runs["run_id"].isin(timeless), "duration"] = np.nan
    runs["throughput"] = runs["requests"] / runs["duration"]
    runs["latency"] = runs["weighted"] / runs["requests"]
    return runs.drop(columns="weighted")


def _littles(runs: pd.DataFrame, n: pd.Series, figure: str) -> pd.DataFrame:
    """Little's law per run (N = X R), then per (environment, level): N, mean X R, residual."""
    law = stats.littles_law(n.to_numpy(float), runs["throughput"].to_numpy(float),
                            runs["latency"].to_numpy(float))
    per_run = runs[["label"]].assign(N=law["N"].to_numpy(), xr=law["xr"].to_numpy(),
                                     rel_residual=law["rel_residual"].to_numpy())
    out = per_run.groupby(["label", "N"], as_index=False, observed=True).agg(
        n=("xr", "size"), xr_mean=("xr", "mean"), rel_residual_mean=("rel_residual", "mean"),
        rel_residual_min=("rel_residual", "min"), rel_residual_max=("rel_residual", "max"))
    return out.rename(columns={"label": "environment"}).assign(figure=figure)


def redis(live: Live) -> dict[str, pd.DataFrame]:
    """Return Figs 8-9 live: GET+SET throughput and mean latency vs connections.

    Throughput in req/s, latency in us, and Little's law with N = connections x pipeline
    depth (the requests in flight).
    """
    runs = redis_runs(live)
    if runs.empty:
        return {"fig08": pd.DataFrame(), "fig09": pd.DataFrame(), "littles": pd.DataFrame()}
    runs = runs.assign(value=runs["throughput"])
    fig08 = _compare(runs, "fig08", "GET+SET", "req/s", 1.0, x="p_clients", higher_is_better=True,
                     benchmark="redis", metric="throughput")
    fig09 = _compare(runs.assign(value=runs["latency"]), "fig09", "GET+SET", "us", 1e-6,
                     x="p_clients", higher_is_better=False, benchmark="redis", metric="latency_mean")

    def match(stem_value: str):
        def m(a: pd.DataFrame, row: pd.Series, env: str) -> pd.DataFrame:
            a = a[(a["workload"] == "GET+SET") & (a["environment"] == env)]
            return _nearest(a, "connections", row["x"])
        return m

    fig08 = _attach_authors(fig08, live, "redis", "fig08", match("x"), "throughput_mean",
                            "pct_vs_native")
    fig09 = _attach_authors(fig09, live, "redis", "fig09", match("x"), "latency_us_mean",
                            "pct_vs_native")
    n = runs["p_clients"].astype(float) * runs["p_pipeline"].astype(float)
    littles = _littles(runs, n, "redis")
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
            if share is not None and share < OPEN_LOOP:
                said = (f"loop not closed: X R = {share:.0%} of N, so most of the run passed "
                        "with fewer requests in flight than connections x pipeline; this "
                        "point measures that wait, not Redis")
                old = table.at[i, "authors_note"]
                table.at[i, "authors_note"] = f"{old}; {said}" if isinstance(old, str) and old else said
    return {"fig08": fig08, "fig09": fig09, "littles": littles}


def mysql_runs(live: Live) -> pd.DataFrame:
    """Return one row per sysbench run.

    Test, threads, throughput (tx/s), mean latency (s) and the server's CPU busy percent
    (100 - mpstat's average idle over all cores, NaN without it).
    """
    main = live.benchmark("mysql", ("transaction_rate", "latency_mean"), p_sidecar=None)
    if main.empty:
        return pd.DataFrame()
    runs = main.pivot_table(index=_keys(main, "run_id", "label", "p_test", "p_threads"),
                            columns="metric", values="value", observed=True).reset_index()
    idle = live.benchmark("mysql", "cpu_idle_mean", p_sidecar="monitor", p_cpu="all")
    busy = (100.0 - idle.set_index("run_id")["value"]).groupby(level=0).mean()
    runs["cpu_busy"] = runs["run_id"].map(busy)
    return runs.rename(columns={"transaction_rate": "throughput", "latency_mean": "latency"})


def mysql(live: Live) -> dict[str, pd.DataFrame]:
    """Return Figs 10-12 live and Little's law for MySQL.

    Throughput (tx/s), server CPU busy (%), mean latency (ms) vs threads per sysbench test
    (Fig 13, throughput against latency, is drawn from Figs 10 and 12), and Little's law
    with N = threads.
    """
    runs = mysql_runs(live)
    if runs.empty:
        return {k: pd.DataFrame() for k in ("fig10", "fig11", "fig12", "littles")}
    out = {"fig10": [], "fig11": [], "fig12": []}
    for test in sorted(runs["p_test"].dropna().unique()):
        r = runs[runs["p_test"] == test]
        out["fig10"].append(_compare(r.assign(value=r["throughput"]), "fig10", test, "tx/s",
                                     x="p_threads", higher_is_better=True, benchmark="mysql",
                                     metric="transaction_rate"))
        cpu = r[r["cpu_busy"].notna()]
        out["fig11"].append(_compare(cpu.assign(value=cpu["cpu_busy"]), "fig11", test, "%",
                                     x="p_threads", higher_is_better=None, benchmark="mysql",
                                     metric="cpu_busy"))
        out["fig12"].append(_compare(r.assign(value=r["latency"]), "fig12", test, "ms", 1e-3,
                                     x="p_threads", higher_is_better=False, benchmark="mysql",
                                     metric="latency_mean"))
    columns = {"fig10": ("tps_mean", "loss_vs_native_pct"), "fig11": ("cpu_util_mean", None),
               "fig12": ("latency_ms_mean", None)}
    result = {}
    for stem, parts in out.items():
        value, pct = columns[stem]

        def m(a: pd.DataFrame, row: pd.Series, env: str) -> pd.DataFrame:
            return _nearest(a[a["environment"] == env], "threads", row["x"])

        table = _attach_authors(_finish(parts), live, "mysql", stem, m, value, pct)
        if stem == "fig10" and not table.empty:  # the authors' loss is native - env, in %
            table["authors_pct_vs_native"] = -table["authors_pct_vs_native"]
        result[stem] = table
    result["littles"] = _littles(runs, runs["p_threads"].astype(float), "mysql")
    return result


# --- the known truths ----------------------------------------------------------------------

def _fmt(v: float, d: int = 2) -> str:
    return "n/a" if v is None or pd.isna(v) else f"{v:+.{d}f}"


#: The columns of :func:`known_truths`.
TRUTH_COLUMNS = ("truth", "environment", "item", "n", "measured", "interval", "verdict", "holds",
                 "why", "stopped")


def known_truths(tables: dict[str, pd.DataFrame], live: Live) -> pd.DataFrame:
    """Check the paper's findings that should hold on any machine, each as the test it is.

    Rows: truth, environment, item, n ("n/n_baseline"), measured (the ratio as a percent),
    interval (the one decided on, with its level), verdict, holds (True, False, or None where
    the data shows neither), why, stopped (why the trials stopped where they did). Checked:

    - CPU-bound work (PXZ, Linpack, STREAM Triad): Docker equivalent to native, an equivalence
      test (TOST) at the margin ``data/reference/margins.yml`` gives it (cpu-memory, +-3%):
      holds when the interval of the ratio lies inside the margin, does not hold when it lies
      wholly beyond it, and is not shown otherwise (with the trials that would decide it);
    - Docker NAT adds round-trip latency over Docker net=host (netperf RR): a one-sided test,
      the ratio's one-sided 95% lower bound (the lower end of the two-sided 90% interval) above
      1 holds; the upper bound below 1 does not hold; otherwise not shown;
    - Little's law N = X R on the live Redis and MySQL runs (mean relative residual within 10%);
    - the VM under TCG is marked as emulated: every VM run's accelerator is recorded, and no
      TCG run is labelled KVM.
    """
    rows = []
    t1 = tables.get("table1", pd.DataFrame())
    truth = "CPU-bound: Docker equivalent to native"
    for item in ("PXZ", "Linpack", "STREAM Triad"):
        sel = t1[(t1["item"] == item) & t1["environment"].str.startswith("Docker")] if not t1.empty else t1
        if sel.empty:
            rows.append({"truth": truth, "environment": "Docker", "item": item,
                         "measured": "no data", "holds": None,
                         "why": "no Docker or native runs of this workload"})
        for _, r in sel.iterrows():
            margin = _margin_words(r)
            verdict = str(r["verdict"]) if pd.notna(r["verdict"]) else "not tested"
            if verdict == "equivalent":
                holds, why = True, f"the interval lies inside the {margin} margin (TOST)"
            elif verdict in ("faster", "slower") and bool(r["beyond_margin"]):
                holds, why = False, f"{verdict}: the whole interval lies beyond the {margin} margin"
            elif verdict in ("faster", "slower"):
                holds, why = None, (f"{verdict} than native, but the interval reaches into the "
                                    f"{margin} margin: a difference, not shown to exceed it")
            elif verdict == "inconclusive":
                need = r["trials_needed"]
                holds, why = None, ("not shown: the interval holds both no difference and "
                                    f"differences beyond {margin}" + (
                                        f"; about {int(need)} trials per side would decide it"
                                        if pd.notna(need) else ""))
            else:
                holds, why = None, f"not tested: {r.get('verdict_detail') or 'too few trials'}"
            rows.append({"truth": truth, "environment": r["environment"], "item": item,
                         "n": _n(r), "measured": f"{_fmt(r['pct'])}%",
                         "interval": _interval(r), "verdict": verdict, "holds": holds,
                         "why": why, "stopped": live.stop_reasons(r.get("cells", ""), item)})
    rows += _nat_latency(live)
    for name, table in (("Redis", tables.get("redis_littles")), ("MySQL", tables.get("mysql_littles"))):
        if table is None or table.empty:
            rows.append({"truth": f"Little's law on {name}", "environment": "", "item": "",
                         "measured": "no data", "holds": None, "why": "no runs"})
            continue
        for env, g in table.groupby("environment", sort=False):
            worst = g.loc[g["rel_residual_mean"].abs().idxmax()]
            holds = bool((g["rel_residual_mean"].abs() <= 0.10).all())
            rows.append({"truth": f"Little's law on {name} (|N - XR|/N <= 10%)", "environment": env,
                         "item": f"{len(g)} levels of N", "n": f"{int(g['n'].sum())} runs",
                         "measured": f"worst mean residual {100 * worst['rel_residual_mean']:+.1f}% "
                                     f"at N={worst['N']:g} (runs {100 * worst['rel_residual_min']:+.1f}"
                                     f"..{100 * worst['rel_residual_max']:+.1f}%)",
                         "holds": holds, "why": "N = X R within 10% at every level" if holds
                         else _littles_why(name, g)})
    rows.append(_tcg_marked(live))
    out = pd.DataFrame(rows).reindex(columns=list(TRUTH_COLUMNS))
    # holds is True, False or None (not shown): never a NaN that reads as a number
    out["holds"] = pd.Series([h if isinstance(h, bool) else None for h in out["holds"]],
                             index=out.index, dtype=object)
    return out


def _n(r: pd.Series) -> str:
    nb = r.get("n_baseline")
    return f"{int(r['n'])}/{int(nb)}" if pd.notna(nb) else f"{int(r['n'])}"


def _interval(r: pd.Series, level: float = 0.95) -> str:
    if pd.isna(r["pct_low"]):
        return "none"
    return f"[{_fmt(r['pct_low'])}%, {_fmt(r['pct_high'])}%] ({100 * level:g}%, {r['ratio_method']})"


def _margin_words(r: pd.Series) -> str:
    lo, hi = r.get("margin_low_pct"), r.get("margin_high_pct")
    if pd.isna(lo):
        return "n/a"
    return f"\u00b1{hi:g}%" if lo == -hi else f"{lo:+g}%/{hi:+g}%"


def _littles_why(name: str, levels: pd.DataFrame) -> str:
    """Say why Little's law is off by more than 10% at some level."""
    shut = levels[levels["xr_mean"] < OPEN_LOOP * levels["N"]]
    if len(shut):
        worst = shut.loc[(shut["xr_mean"] / shut["N"]).idxmin()]
        env = str(levels["environment"].iloc[0])
        why = ("QEMU's user-mode forward listens with a backlog of 1, so simultaneous "
               "connections wait seconds to be accepted, and the load generator's clock runs "
               "while they wait" if env.startswith(("QEMU", "KVM", "VM")) else
               "connections still being made, or the load generator itself the bottleneck")
        said = (f"at N={worst['N']:g} X R is only {worst['xr_mean'] / worst['N']:.0%} of N: the "
                "closed loop never formed, most of the run passed with far fewer requests in "
                f"flight ({why})")
        if name == "Redis" and (levels["rel_residual_mean"] > 0).all():
            said += "; at the other levels " + _littles_why(name, levels.drop(shut.index))
        return said
    if name == "Redis" and (levels["rel_residual_mean"] > 0).all():
        return ("X R stays below N = connections x pipeline depth: a request whose reply has "
                "come back waits for the rest of its pipelined batch before the client sends "
                "again, and the client's own time between batches is in no request's latency, "
                "so fewer than N requests are in flight on average (N is an upper bound here)")
    return "a level is off by more than 10% (see the residuals table)"


def _nat_latency(live: Live) -> list[dict]:
    lat = live.benchmark("netperf", "latency_mean")
    nat = [lab for lab in lat["label"].unique() if lab.startswith("Docker NAT")]
    host = [lab for lab in lat["label"].unique() if lab.startswith("Docker net=host")]
    truth = "Docker NAT adds RR latency over net=host"
    if not nat or not host:
        return [{"truth": truth, "environment": "", "item": "", "measured": "no data",
                 "holds": None, "why": "needs netperf runs in Docker NAT and net=host"}]
    rows = []
    for test in sorted(lat["p_test"].dropna().unique()):
        t = lat[lat["p_test"] == test]
        xr, yr = t[t["label"] == nat[0]], t[t["label"] == host[0]]
        x, y = xr["value"].to_numpy(float) * 1e6, yr["value"].to_numpy(float) * 1e6
        cells = ",".join(sorted(set(xr.get("cell", pd.Series(dtype=str)).dropna())
                                | set(yr.get("cell", pd.Series(dtype=str)).dropna())))
        base = {"truth": truth, "environment": f"{nat[0]} / {host[0]}", "item": test,
                "n": f"{len(x)}/{len(y)}", "stopped": live.stop_reasons(cells)}
        if not len(x) or not len(y):
            rows.append({**base, "holds": None, "why": "no runs of this test in one of the two"})
            continue
        # one-sided at 95%: the ends of the two-sided 90% interval of the ratio
        iv = stats.ratio_interval(x, y, level=0.90)
        measured = f"{_fmt(100 * (iv.ratio - 1), 1)}% (means {x.mean():.1f} vs {y.mean():.1f} us)"
        if np.isnan(iv.low):
            rows.append({**base, "measured": measured, "verdict": "not tested", "holds": None,
                         "why": f"no interval: {iv.reason}"})
            continue
        interval = (f"NAT / net=host >= {iv.low:.3f} and <= {iv.high:.3f} (one-sided 95% "
                    f"bounds each, {iv.method})")
        if iv.low > 1:
            holds, verdict, why = True, "slower", "the one-sided lower bound of the ratio lies above 1"
        elif iv.high < 1:
            holds, verdict, why = False, "faster", "the one-sided upper bound lies below 1: NAT was faster here"
        else:
            need = stats.trials_to_decide(x, y, stats.Margin.symmetric(1e-9), 0.90)
            holds, verdict = None, "inconclusive"
            why = (f"not shown: the bounds hold both no added latency and added latency (run-to-run "
                   f"spread of {np.std(x, ddof=1):.1f} and {np.std(y, ddof=1):.1f} us with "
                   f"n={len(x)}/{len(y)})"
                   + (f"; about {need} trials per side would show a difference of this size"
                      if need else ""))
        rows.append({**base, "measured": measured, "interval": interval, "verdict": verdict,
                     "holds": holds, "why": why})
    return rows


def _tcg_marked(live: Live) -> dict:
    truth = "The VM under TCG is marked as emulated"
    prov = live.provenance
    vm = prov[prov["environment"].isin(["vm", "kvm"])] if not prov.empty else prov
    if vm.empty:
        return {"truth": truth, "environment": "", "item": "", "measured": "no VM runs",
                "holds": None, "why": "no VM in this campaign"}
    accels = vm["accelerator"].fillna("unrecorded").value_counts().to_dict()
    tcg_labels = set(live.rows.loc[live.rows["variant"].astype("string").str.contains("accel=tcg", na=False),
                                   "label"])
    mislabelled = sorted(lab for lab in tcg_labels if "KVM" in lab)
    holds = "unrecorded" not in accels and not mislabelled
    return {"truth": truth, "environment": ", ".join(sorted(tcg_labels)) or "(no TCG runs)",
            "item": "accelerator of every VM run",
            "measured": ", ".join(f"{k}: {v} runs" for k, v in accels.items()),
            "holds": holds,
            "why": ("every VM run records its accelerator; TCG runs are labelled QEMU TCG, never KVM"
                    if holds else f"unrecorded accelerator or mislabelled: {mislabelled}")}


# --- figures -------------------------------------------------------------------------------

def plot_bars(table: pd.DataFrame, title: str, *, items: list[str] | None = None):
    """Draw bars of the live means (95% CI) per item, the difference from native below.

    The lower panels give each environment's percent difference from Native: live (with its
    CI) beside the authors' (black star, with the authors' environment named where it is not
    the live one); see :func:`overhead.plots.comparison_bars`.
    """
    from overhead import plots

    return plots.comparison_bars(table, title, items=items, baseline=BASELINE,
                                 reference="authors_pct_vs_native", reference_label="authors",
                                 reference_env="authors_environment")


def plot_curves(table: pd.DataFrame, title: str, *, xlabel: str, logx: bool = True):
    """Draw per item the live curves (mean, 95% CI) over the swept parameter.

    Below them the percent difference from Native, live beside the authors' at their nearest
    level. The upper panel's y axis is logarithmic when the means span more than 20x.
    """
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FixedLocator, NullLocator

    from overhead import plots

    items = list(dict.fromkeys(table["item"]))
    # each panel's legend stands beside it: 2.4 inches for it
    fig, axes = plt.subplots(2, len(items), figsize=(7.4 * len(items), 6.6),
                             squeeze=False, gridspec_kw={"height_ratios": [3, 2]})
    for k, item in enumerate(items):
        rows = table[table["item"] == item]
        ax, bx = axes[0, k], axes[1, k]
        for env in plots.order(rows["environment"].unique()):
            r = rows[rows["environment"] == env].sort_values("x")
            c, mk = plots.colour(env), plots.marker(env)
            ax.errorbar(r["x"].astype(float), r["mean"], yerr=[r["mean"] - r["ci_low"], r["ci_high"] - r["mean"]],
                        fmt=f"-{mk}", color=c, capsize=3, label=f"{env} (n={plots.n_range(r)})")
            # a point the table marks as not measuring the workload is marked here too
            flagged = r[r["authors_note"].fillna("").str.contains("loop not closed")] \
                if "authors_note" in r else r.iloc[0:0]
            for _, p in flagged.iterrows():
                ax.annotate("loop not closed", (float(p["x"]), p["mean"]), textcoords="offset points",
                            xytext=(-6, -14), ha="right", fontsize=7, color=c)
            if env != BASELINE:
                bx.errorbar(r["x"].astype(float), r["pct"], yerr=[r["pct"] - r["pct_low"], r["pct_high"] - r["pct"]],
                            fmt=f"-{mk}", color=c, capsize=3)
                if r["authors_pct_vs_native"].notna().any():
                    bx.plot(r["x"].astype(float), r["authors_pct_vs_native"], plots.REFERENCE_MARKER,
                            color=c, markeredgecolor="black", markersize=8, linestyle="none")
        levels = sorted({float(v) for v in rows["x"].dropna()})
        for a in (ax, bx):
            if logx:
                a.set_xscale("log")
            # ticks at the measured levels, written as plain numbers (a log axis would write
            # 2x10^0 and let the minor labels of 3 and 4 overprint each other)
            a.xaxis.set_major_locator(FixedLocator(levels))
            a.xaxis.set_major_formatter(plots.plain_numbers())
            a.xaxis.set_minor_locator(NullLocator())
            a.set_xlabel(xlabel)
        bx.axhline(0, color="black", linewidth=0.8)
        bx.set_ylabel("% vs native (stars: authors,\nat their nearest level)", fontsize=8)
        if plots.symlog_if_far(bx, rows):
            bx.set_ylabel("% vs native, linear to ±10 then log\n(stars: authors, nearest level)",
                          fontsize=8)
        ax.set_ylabel(rows["unit"].iloc[0])
        if plots.log_if_spread(ax, rows["mean"]):
            ax.set_ylabel(f"{rows['unit'].iloc[0]} (log scale)")
        ax.set_title(textwrap.fill(item, 40), fontsize=10)
        # beside the panel, not over it: inside, "best" still covered the VM's first points
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
    fig.suptitle(textwrap.fill(title, int(12 * fig.get_figwidth())), fontsize=11)
    fig.tight_layout()
    for ax, bx in zip(axes[0], axes[1], strict=True):  # the lower panel as wide as the upper
        top, low = ax.get_position(), bx.get_position()
        bx.set_position([top.x0, low.y0, top.width, low.height])
    return fig


def plot_throughput_latency(fig10: pd.DataFrame, fig12: pd.DataFrame, title: str):
    """Draw Fig 13: per test, throughput against mean latency.

    One curve per environment (threads increase along each curve), both with their 95% CIs,
    on logarithmic axes.
    """
    import matplotlib.pyplot as plt

    from overhead import plots

    items = list(dict.fromkeys(fig10["item"]))
    fig, axes = plt.subplots(1, len(items), figsize=(max(5.0, 5.2 * len(items)), 4.4), squeeze=False)
    keys = ["item", "environment", "x"]
    both = fig10.merge(fig12, on=keys, suffixes=("_tps", "_lat"))
    for ax, item in zip(axes[0], items, strict=True):
        rows = both[both["item"] == item]
        for env in plots.order(rows["environment"].unique()):
            r = rows[rows["environment"] == env].sort_values("x")
            ax.errorbar(r["mean_lat"], r["mean_tps"],
                        xerr=[r["mean_lat"] - r["ci_low_lat"], r["ci_high_lat"] - r["mean_lat"]],
                        yerr=[r["mean_tps"] - r["ci_low_tps"], r["ci_high_tps"] - r["mean_tps"]],
                        fmt=f"-{plots.marker(env)}", color=plots.colour(env), capsize=2, label=env)
        # both axes logarithmic: an emulated VM is an order of magnitude or two away from
        # native, which on linear axes crushes the native and container curves into a corner
        # (an interval's lower end at or below zero is clipped)
        ax.set_xscale("log", nonpositive="clip")
        ax.set_yscale("log", nonpositive="clip")
        plots.plain_log(ax.xaxis)
        plots.plain_log(ax.yaxis)
        ax.set_xlabel(f"mean latency ({rows['unit_lat'].iloc[0]}, log scale)")
        ax.set_ylabel(f"throughput ({rows['unit_tps'].iloc[0]}, log scale)")
        ax.set_title(item, fontsize=10)
        ax.legend(fontsize=7)
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    return fig


#: Per notebook section: the tables it computes and how each is drawn.
SECTIONS = ("compute", "network", "blockio", "redis", "mysql")


def section(campaign: str | os.PathLike[str], name: str, *, authors: str | os.PathLike[str],
            tidy_root: str | os.PathLike[str] | None = None,
            out_root: str | os.PathLike[str] | None = None) -> tuple[Live, dict, dict]:
    """Compute and draw everything one paper notebook shows for a campaign.

    The live tables (written as CSV) and figures (written as PNG, SVG and PDF) go into
    ``<out_root>/<campaign>/``.

    Parameters
    ----------
    campaign : str or path
        The campaign's name or YAML file.
    name : str
        One of :data:`SECTIONS`.
    authors : path
        The authors' tidy data (their tables are computed from it), or a folder of their
        tables as CSV; with such a folder the live output goes beside it
        (``<its parent>/<campaign>``) unless ``out_root`` says otherwise (default ``figures``).
    tidy_root, out_root : path, optional
        See :func:`open_campaign`.

    Returns
    -------
    (Live, dict, dict)
        The campaign, its tables (stem -> frame) and figures (stem -> matplotlib Figure).
    """
    from overhead import plots

    if name not in SECTIONS:
        raise InputError(f"section {name!r}: not one of {', '.join(SECTIONS)}")
    authors = Path(authors)
    lv = open_campaign(campaign, tidy_root=tidy_root,
                       out_root=out_root or (None if is_tidy(authors) else authors.parent),
                       authors=authors)
    accel = where(lv)["accelerator"].dropna()
    vm = f"; VM accelerator: {', '.join(sorted(set(accel)))}" if len(accel) else ""
    tag = f"live, campaign {lv.name}{vm}"
    frames: dict[str, pd.DataFrame] = {}
    figs: dict = {}
    if name == "compute":
        frames["table1"] = compute(lv)
        figs["table1"] = lambda t: plot_bars(t, f"Table I ({tag})")
    elif name == "network":
        frames.update(network(lv))
        figs["fig02"] = lambda t: plot_bars(t, f"Fig 2: nuttcp goodput and host CPU ({tag})")
        figs["fig03"] = lambda t: plot_bars(t, f"Fig 3: netperf RR latency ({tag})")
    elif name == "blockio":
        frames.update(blockio(lv))
        figs["fig05"] = lambda t: plot_bars(t, f"Fig 5: sequential I/O ({tag})")
        figs["fig06"] = lambda t: plot_bars(t, f"Fig 6: random IOPS ({tag})")
        figs["fig07"] = lambda t: plot_bars(t, f"Fig 7: random-read latency percentiles ({tag})")
    elif name == "redis":
        r = redis(lv)
        frames.update({"fig08": r["fig08"], "fig09": r["fig09"], "redis_littles": r["littles"]})
        figs["fig08"] = lambda t: plot_curves(t, f"Fig 8: Redis throughput ({tag})", xlabel="connections")
        figs["fig09"] = lambda t: plot_curves(t, f"Fig 9: Redis latency ({tag})", xlabel="connections")
    else:
        m = mysql(lv)
        frames.update({"fig10": m["fig10"], "fig11": m["fig11"], "fig12": m["fig12"],
                       "mysql_littles": m["littles"]})
        figs["fig10"] = lambda t: plot_curves(t, f"Fig 10: MySQL throughput ({tag})", xlabel="threads")
        figs["fig11"] = lambda t: plot_curves(t, f"Fig 11: MySQL server CPU ({tag})", xlabel="threads")
        figs["fig12"] = lambda t: plot_curves(t, f"Fig 12: MySQL latency ({tag})", xlabel="threads")
    write_tables(lv, frames)
    drawn = {}
    for stem, draw in figs.items():
        if frames[stem].empty:
            continue
        drawn[stem] = draw(frames[stem])
        plots.save(drawn[stem], lv.out, stem)
    if name == "mysql" and not frames["fig10"].empty and not frames["fig12"].empty:
        drawn["fig13"] = plot_throughput_latency(frames["fig10"], frames["fig12"],
                                                 f"Fig 13: MySQL throughput vs latency ({tag})")
        plots.save(drawn["fig13"], lv.out, "fig13")
    return lv, frames, drawn


# --- the report ----------------------------------------------------------------------------

def display_table(table: pd.DataFrame) -> pd.DataFrame:
    """Return a comparison frame in words, for display.

    Per row the live mean [95% CI] (n), % vs native [CI] with the verdict and its margin, and
    the authors' value and % vs native for their counterpart.
    """
    def num(v: float) -> str:
        if pd.isna(v):
            return "n/a"
        return f"{v:.4g}" if abs(v) < 1e5 else f"{v:,.0f}"

    out = pd.DataFrame({
        "item": table["item"],
        "x": [f"{x:g}" if isinstance(x, (int, float, np.integer, np.floating)) else str(x)
              for x in table["x"]],
        "environment": table["environment"],
        "live mean [95% CI] (n)": [
            f"{md} {u}" if isinstance(md, str) and md else
            f"{num(m)} [{num(lo)}, {num(hi)}] ({int(n)}) {u}"
            for m, lo, hi, n, u, md in zip(table["mean"], table["ci_low"], table["ci_high"],
                                           table["n"], table["unit"],
                                           table.get("modes", pd.Series([""] * len(table))),
                                           strict=True)],
        "% vs native [95% CI]: verdict (margin)": [
            "baseline" if e == BASELINE else
            f"{_fmt(p, 1)} [{_fmt(lo, 1)}, {_fmt(hi, 1)}]: {v} ({_margin_words(r)})"
            for (_, r), e, p, lo, hi, v in zip(table.iterrows(), table["environment"], table["pct"],
                                               table["pct_low"], table["pct_high"],
                                               table["verdict"].fillna("not tested"), strict=True)],
        "authors (environment: value, % vs native)": [
            "-" if not isinstance(ae, str) or pd.isna(av) else
            f"{ae}: {num(av)}" + ("" if pd.isna(ap) else f", {_fmt(ap, 1)}%")
            for ae, av, ap in zip(table["authors_environment"], table["authors_value"],
                                  table["authors_pct_vs_native"], strict=True)],
        "note": table["authors_note"].fillna(""),
    })
    if (out["x"] == "").all():
        out = out.drop(columns="x")
    return out.set_index("item")


SECTION_TITLES = {
    "table1": "Table I: compute and memory (PXZ, Linpack, RandomAccess, STREAM)",
    "fig02": "Fig 2: nuttcp bulk TCP goodput, and the host's CPU during it",
    "fig03": "Fig 3: netperf round-trip latency (100-byte request, 200-byte response)",
    "fig05": "Fig 5: fio sequential throughput (1 MiB, libaio, O_DIRECT)",
    "fig06": "Fig 6: fio random IOPS (4 KiB, QD16)",
    "fig07": "Fig 7: fio random-read completion latency percentiles",
    "fig08": "Fig 8: Redis GET+SET throughput vs connections",
    "fig09": "Fig 9: Redis mean latency vs connections",
    "fig10": "Fig 10: MySQL (MariaDB) throughput vs sysbench threads",
    "fig11": "Fig 11: MySQL server CPU busy vs threads (mpstat)",
    "fig12": "Fig 12: MySQL mean latency vs threads",
    "fig13": "Fig 13: MySQL throughput against latency",
    "redis_littles": "Little's law on Redis (N = connections x pipeline)",
    "mysql_littles": "Little's law on MySQL (N = threads)",
}


def tables(live: Live) -> dict[str, pd.DataFrame]:
    """Every live table of the paper (stem -> comparison frame), computed from the rows."""
    out = {"table1": compute(live)}
    out.update(network(live))
    out.update(blockio(live))
    r = redis(live)
    out.update({"fig08": r["fig08"], "fig09": r["fig09"], "redis_littles": r["littles"]})
    m = mysql(live)
    out.update({"fig10": m["fig10"], "fig11": m["fig11"], "fig12": m["fig12"],
                "mysql_littles": m["littles"]})
    return out


def write_tables(live: Live, frames: dict[str, pd.DataFrame]) -> list[Path]:
    """Write each frame through the exporter; return the CSV paths.

    ``<out>/<stem>.csv`` holds every column, ``.md`` and ``.tex`` the table in words
    (:func:`display_table`; the Little's-law tables as they are).
    """
    paths = []
    for stem, frame in frames.items():
        shown = frame if frame.empty or stem.endswith("littles") else display_table(frame)
        paths.append(export.write_table(frame, live.out, stem, shown=shown,
                                        caption=SECTION_TITLES.get(stem))["csv"])
    return paths


def caveats(live: Live) -> dict[str, str]:
    """Say where a live table measures something else than the paper's (stem -> sentence).

    The network figures (2, 3, 8-10, 12): a VM reached through QEMU's user-mode network is
    not the paper's bridged virtio with vhost; a Docker NAT environment's path (DNAT in the
    nat OUTPUT chain plus a MASQUERADE, or docker-proxy, for a client on the same host) is not
    the paper's, whose client was another machine.

    The block I/O figures (5-7): a fio file under 1 GiB is served largely from the caches
    under the file system, so the figures compare I/O paths rather than a device.

    Table I: HPCC sizes STREAM's arrays from HPL's matrix (its STREAM_VectorSize, a third of
    8 N^2 / np bytes per process), so a small N puts them inside the caches and STREAM then
    measures cache bandwidth, not the memory bandwidth of the paper (STREAM's own rule: each
    array at least four times the last-level cache).
    """
    out = {}
    vm = where(live)
    nets = [str(v) for v in vm.get("vm_network", pd.Series(dtype=object)).dropna()]
    if any("slirp" in v for v in nets):
        said = ("The VM's server is reached through QEMU's user-mode network (slirp: a TCP/IP "
                "stack inside the QEMU process forwarding host ports, listening with a backlog "
                "of 1), not the bridged virtio with vhost of the paper: the VM's network "
                "numbers include that user-space path.")
        for stem in ("fig02", "fig03", "fig08", "fig09", "fig10", "fig12"):
            out[stem] = said
    nat = [f"{r['label']}: {r['nat_path']}" for _, r in vm.iterrows()
           if isinstance(r.get("nat_path"), str) and not r["nat_path"].startswith("none")]
    if nat:
        said = ("The Docker NAT numbers took this path: " + "; ".join(nat) + ". The paper's "
                "client was another machine, its packets DNATed in PREROUTING and not "
                "masqueraded.")
        for stem in ("fig02", "fig03", "fig08", "fig09", "fig10", "fig12"):
            out[stem] = f"{out[stem]} {said}" if stem in out else said
    fio = live.rows[live.rows["benchmark"].astype("string").str.startswith("fio", na=False)]
    if "p_size" in fio and fio["p_size"].notna().any():
        from overhead.errors import ParseError
        from overhead.parsers._common import size_bytes

        small = []
        for v in sorted({str(v) for v in fio["p_size"].dropna()}):
            try:  # fio's own notation: 16m, 4k, 16g (k = 1024)
                if size_bytes(v, "campaign", None, "fio size") < 2**30:
                    small.append(v)
            except ParseError:
                continue  # not a size fio states plainly: nothing to say about it
        if small:
            said = (f"fio's file here is {', '.join(small)} (the paper's was 16 GB): the runs read "
                    "and write it over and over, so whatever caches lie under the file system "
                    "(the host's disk cache; on a cloud machine the hypervisor's below it) serve "
                    "much of it even with O_DIRECT. These figures compare the I/O paths of the "
                    "environments, not a device.")
            for stem in ("fig05", "fig06", "fig07"):
                out[stem] = said
    stream = live.benchmark("hpcc", "bandwidth", p_kernel="triad", p_scope="star")
    if "p_vector_size" in stream and stream["p_vector_size"].notna().any():
        words = sorted({int(v) for v in stream["p_vector_size"].dropna()})
        said = ", ".join(f"{8 * v / 2**20:.2f} MiB" for v in words)
        out["table1"] = (f"STREAM's arrays here are {said} each per process (HPCC sizes them from "
                         "HPL's N). Unless each array is at least four times the last-level "
                         "cache, STREAM measures cache bandwidth, not the memory bandwidth the "
                         "paper measured; the paper profile sizes N to fill the memory.")
    return out


def _missing_points(frame: pd.DataFrame | None) -> str | None:
    """Say which environments lack a point of a curve that native has (a campaign's skip)."""
    if frame is None or frame.empty or "x_name" not in frame or not (frame["x_name"] != "").any():
        return None
    said = []
    for item, rows in frame.groupby("item", sort=False):
        base = set(rows.loc[rows["environment"] == BASELINE, "x"])
        for env, r in rows.groupby("environment", sort=False):
            lost = sorted(base - set(r["x"]), key=float)
            if env != BASELINE and lost:
                said.append(f"{env} at {', '.join(f'{float(v):g}' for v in lost)}"
                            + (f" ({item})" if frame["item"].nunique() > 1 else ""))
    if not said:
        return None
    return ("Not measured: " + "; ".join(said) + ". The campaign leaves these points out "
            "(an environment's skip: in the campaign file says why), so they have no verdict.")


#: The columns of :func:`verdicts_table`.
VERDICTS_COLUMNS = ("figure", "item", "x", "environment", "n", "n_baseline", "pct", "pct_low",
                    "pct_high", "ratio_method", "margin", "margin_low_pct", "margin_high_pct",
                    "verdict", "trials_needed", "verdict_detail", "stopped")


def verdicts_shown(verdicts: pd.DataFrame) -> pd.DataFrame:
    """Return :func:`verdicts_table` as a page shows it: one cell per comparison's interval.

    The table's 17 columns (what the CSV keeps) are too wide for a page and say each verdict
    twice (its columns and ``verdict_detail``); shown: figure, item, x where any row has one,
    environment, n per side, the percent difference from native with the 95% interval the
    verdict is decided on and its method, the margin, the verdict (with about how many trials
    per side would decide an inconclusive one) and why the trials stopped.
    """
    if verdicts.empty:
        return verdicts

    def n(a: object, b: object) -> str:
        return "/".join("-" if pd.isna(v) else str(int(v)) for v in (a, b))

    def diff(p: float, lo: float, hi: float, how: object) -> str:
        if pd.isna(p):
            return "-"
        if pd.isna(lo):
            return f"{p:+.1f}% (no interval)"
        return f"{p:+.1f}% [{lo:+.1f}, {hi:+.1f}]" + (f" {how}" if isinstance(how, str) and how else "")

    def verdict(v: object, need: float) -> str:
        return f"{v}; about {int(need)} trials per side would decide it" \
            if v == "inconclusive" and pd.notna(need) else str(v)

    out = pd.DataFrame({"figure": verdicts["figure"], "item": verdicts["item"].fillna("")})
    xs = verdicts["x"]
    if (xs.notna() & xs.astype(str).ne("")).any():  # "" or NaN: no swept parameter
        out["x"] = ["" if pd.isna(x) else f"{x:g}" if isinstance(x, float) else str(x) for x in xs]
    out["environment"] = verdicts["environment"]
    out["n"] = [n(a, b) for a, b in zip(verdicts["n"], verdicts["n_baseline"], strict=True)]
    out[f"vs {BASELINE} [95% CI]"] = [
        diff(*r) for r in zip(verdicts["pct"], verdicts["pct_low"], verdicts["pct_high"],
                              verdicts["ratio_method"], strict=True)]
    out["margin"] = verdicts["margin"].fillna("-")
    out["verdict"] = [verdict(v, k) for v, k in zip(verdicts["verdict"], verdicts["trials_needed"],
                                                     strict=True)]
    out["stopped"] = verdicts["stopped"].fillna("")
    return out


def verdicts_table(frames: dict[str, pd.DataFrame], live: Live) -> pd.DataFrame:
    """Every comparison of the live tables with native, in one table.

    Parameters
    ----------
    frames : dict
        The live tables (stem -> comparison frame, :func:`tables`).
    live : Live
        The campaign (its plan says why each cell's trials stopped).

    Returns
    -------
    pandas.DataFrame
        :data:`VERDICTS_COLUMNS`: figure, item, x, environment, n, n_baseline, the percent
        difference with the 95% interval the verdict is decided on (ratio_method), the margin,
        the verdict, the trials per side that would decide an inconclusive one, the verdict in
        words, and why the trials stopped where they did (the stopping rule's record of the
        cells the comparison's trials come from).
    """
    parts = []
    for stem, frame in frames.items():
        if frame is None or frame.empty or "verdict" not in frame:
            continue
        f = frame[frame["environment"] != BASELINE]
        if f.empty:
            continue
        parts.append(pd.DataFrame({
            "figure": stem, "item": f["item"], "x": f["x"], "environment": f["environment"],
            "n": f["n"], "n_baseline": f["n_baseline"], "pct": f["pct"], "pct_low": f["pct_low"],
            "pct_high": f["pct_high"], "ratio_method": f["ratio_method"],
            "margin": [_margin_words(r) for _, r in f.iterrows()],
            "margin_low_pct": f["margin_low_pct"], "margin_high_pct": f["margin_high_pct"],
            "verdict": f["verdict"].fillna("not tested"), "trials_needed": f["trials_needed"],
            "verdict_detail": f["verdict_detail"],
            "stopped": [live.stop_reasons(c, i) for c, i in
                        zip(f.get("cells", pd.Series("", index=f.index)), f["item"], strict=True)]}))
    if not parts:
        return pd.DataFrame(columns=list(VERDICTS_COLUMNS))
    return pd.concat(parts, ignore_index=True)[list(VERDICTS_COLUMNS)]


def report(live: Live, frames: dict[str, pd.DataFrame] | None = None) -> Path:
    """Write ``figures/<campaign>/report.html``.

    Where it was measured, the known truths, then table by table the live numbers with their
    CIs beside the authors', with the live figures the notebooks drew (a figure not drawn yet
    is named as missing).
    """
    frames = frames if frames is not None else tables(live)
    truths = known_truths(frames, live)
    export.write_table(truths, live.out, "known_truths", formats=("csv",))
    w = where(live)
    page = Page(f"RC25482 live: {live.name}", heading=f"RC25482 live: campaign {live.name}")
    page.text(f"Written {_dt.datetime.now(_dt.UTC):%Y-%m-%d %H:%M} UTC from {live.tidy}; the "
              f"authors' values from {live.authors}. Absolute values of this machine and the "
              "authors' 32-core server do not compare; the percent differences from native do, "
              "as far as the workloads scale.")
    facts, shared = results.where_shown(w)
    page.heading("What was measured where").table(facts)
    if shared:
        page.text(" ".join(shared))
    for said in results.where_notes(w):
        page.text(said)
    if w["accelerator"].fillna("").str.contains("tcg").any():
        page.raw(f"<p><b>The VM ran under TCG (software emulation).</b> {html.escape(TCG_NOTE)}.</p>")
    page.raw("\n".join(results.noise_html(live)))
    words = truths.assign(holds=[{True: "holds", False: "DOES NOT HOLD"}.get(h, "not shown")
                                 for h in truths["holds"]])
    page.heading("Known truths")
    page.raw("<p>The paper's findings that should hold on any machine, each checked as the test "
             "it is: a sameness claim as an equivalence test at the margin "
             "<code>data/reference/margins.yml</code> gives it (it holds only when the whole "
             "interval lies inside the margin), a claim of added latency as a one-sided test. "
             "Each row gives n, the interval decided on, the verdict and why the trials stopped "
             "where they did; a claim the data neither shows nor refutes says \"not shown\" and "
             "how many trials would decide it.</p>")
    page.table(words, index=False)
    verdicts = verdicts_table(frames, live)
    export.write_table(verdicts, live.out, "verdicts", formats=("csv",))
    counts = verdicts["verdict"].value_counts()
    rule = live.plan.get("decisions")
    page.heading("Verdicts: every comparison with native")
    page.raw("<p>Each environment against native on every quantity of the tables below: n per "
             "side, the percent difference with the 95% interval the verdict is decided on "
             "(Fieller's, or log-t where Fieller's has no finite bounds; chosen by simulation, "
             "docs/coverage.md), the equivalence margin, the verdict, and why the trials "
             "stopped. <i>equivalent</i>: the interval lies inside the margin; <i>faster</i> / "
             "<i>slower</i> (<i>higher</i> / <i>lower</i> where neither is better): it excludes "
             "no difference; <i>inconclusive</i>: it holds both no difference and differences "
             "beyond the margin. A non-significant difference is never read as sameness. "
             + ("The campaign's stopping rule added rounds to each cell while a comparison it "
                "takes part in was undecided, up to its cap; the intervals are not widened for "
                "those repeated looks, so a verdict reached on the way is a little less certain "
                "than its 95% says." if rule else "The campaign ran a fixed number of trials.")
             + "</p>")
    page.text(", ".join(f"{int(v)} {k}" for k, v in counts.items()))
    page.table(verdicts_shown(verdicts), index=False)
    notes = caveats(live)
    for stem, frame in frames.items():
        gap = _missing_points(frame)
        if gap:
            notes[stem] = f"{notes[stem]} {gap}" if stem in notes else gap
    for stem, title in SECTION_TITLES.items():
        frame = frames.get(stem)
        page.heading(title)
        if stem in notes:
            page.raw(f"<p class='caveat'><b>Caveat.</b> {html.escape(notes[stem])}</p>")
        png = live.out / f"{stem}.png"
        if png.exists():
            page.figure(png)
        elif stem not in ("redis_littles", "mysql_littles"):
            page.text(f"figure {stem}.png not drawn yet (run the section's notebook with this "
                      "campaign)", cls="missing")
        if stem == "fig13":
            page.text("Fig 13 is drawn from the rows of Figs 10 and 12.")
            continue
        if frame is None or frame.empty:
            page.table(None, empty="no live data for this table")
        elif stem.endswith("littles"):
            page.table(frame, index=False)
        else:
            page.table(display_table(frame))
    path = page.write(live.out / "report.html")
    studies.register(live.out, kind="campaign", title=page.title, tidy=live.tidy,
                     campaign=live.name, inputs=[live.authors])
    return path
