"""The RC25482 authors' own derived files, read only to cross-check ours (never ingested).

- :func:`read_authors_cpu`: ``mysql/results/performance-governor/results-cpu-*.csv``, their
  per-thread CPU averages;
- :func:`read_authors_plot_csvs`: the plot data behind Figs 10/12/13 (recovered from the
  repository history, see :func:`overhead.rc25482.data.find_history`);
- :func:`with_authors`: puts their values beside ours with the percent difference.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from overhead.rc25482.mysql import (
    AUTHORS_PLOT_ORDER,
    CONFIGURATIONS,
    SERIES,
    THREADS,
    MySQLDataError,
    order,
)

__all__ = ["FIG10_COLUMNS", "FIG11_COLUMNS", "FIG12_COLUMNS", "read_authors_cpu",
           "read_authors_plot_csvs", "with_authors"]

#: Our column -> the authors' column, for :func:`with_authors` on each figure's frame.
FIG10_COLUMNS = {"tps_mean": "tps_mean", "tps_sd": "tps_sd", "loss_vs_native_pct": "loss_pct"}
FIG11_COLUMNS = {"cpu_util_pooled_mean": "cpu_util", "cpu_idle_pooled_sd": "idle_sd",
                 "cpu_usr_pooled_mean": "usr_mean", "cpu_sys_pooled_mean": "sys_mean"}
FIG12_COLUMNS = {"latency_ms_mean": "latency_ms_mean", "latency_ms_sd": "latency_ms_sd",
                 "latency_p95_ms_mean": "latency_p95_ms_mean"}


def read_authors_cpu(ibm_root: str | Path) -> pd.DataFrame:
    """Read the authors' per-thread CPU averages (``results-cpu-*.csv``).

    The files are ``mysql/results/performance-governor/results-cpu-*.csv``. Each file has 15
    rows (10..290 threads) and six unlabelled columns, read here as usr mean, usr SD, sys mean,
    sys SD, idle mean, idle SD (percent; the means match dstat's columns in that order, and the
    SDs are over all 1-s samples of the 10 runs pooled). There is none for KVM.

    Parameters
    ----------
    ibm_root : str or path
        The authors' tree.

    Returns
    -------
    pandas.DataFrame
        environment, threads, usr_mean, usr_sd, sys_mean, sys_sd, idle_mean, idle_sd,
        cpu_util (100 - idle_mean), source. Missing files are skipped.

    Raises
    ------
    MySQLDataError
        When a file does not have 15 rows.
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
    """Read the authors' plot data for Figs 10/12/13 (``mysql_perfgov_results-*.csv@d925ec3``).

    Recovered from the repository history; no KVM. reqs/latency/latency95: 15 rows of threads
    then (mean, SD) for bml, docker, docker-nofs, docker-nofs-nonet; percentage: Docker
    net=host volume's throughput loss and latency increase vs native in percent.

    Parameters
    ----------
    history_dir : str or path
        The history folder beside the authors' tree.

    Returns
    -------
    pandas.DataFrame
        environment, threads, tps_mean, tps_sd, latency_ms_mean, latency_ms_sd,
        latency_p95_ms_mean, latency_p95_ms_sd, loss_pct, latency_increase_pct (the last two
        only for Docker net=host volume). Empty when the files are absent.

    Raises
    ------
    MySQLDataError
        When a file does not have the expected 9 columns.
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
    return order(out)


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

    Returns
    -------
    pandas.DataFrame
        A copy of ``frame`` with those columns added.
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
