"""Load and filter the tidy tables that :func:`overhead.ingest.ingest` writes.

A tidy folder holds ``measurements.parquet`` (one row per measured value), ``monitor/`` (the
system-monitor samples, one Parquet part per raw file), ``provenance.parquet`` (one row per
run) and ``reference.parquet`` (values that exist only outside the raw outputs). :func:`load`
reads one benchmark's rows with filters pushed down to the Parquet reader and adds the display
``label`` of every row; :func:`summary_table` counts rows per benchmark and environment.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from overhead import environments, schema
from overhead.errors import DataNotFound

TABLES = ("measurements", "monitor", "provenance", "reference")

__all__ = ["TABLES", "campaigns", "load", "summary_table"]


def _path(tidy_dir: str | os.PathLike[str], table: str) -> Path:
    """Return the file (or, for the monitor table, folder) of ``table`` in ``tidy_dir``."""
    if table not in TABLES:
        raise ValueError(f"unknown table {table!r}; tables are {', '.join(TABLES)}")
    path = Path(tidy_dir) / (table if table == "monitor" else f"{table}.parquet")
    if not path.exists():
        raise DataNotFound(f"{path}: not found; ingest the raw data into {tidy_dir} first")
    return path


def load(tidy_dir: str | os.PathLike[str], benchmark: str | None = None, *,
         table: str = "measurements", metrics: list[str] | None = None,
         where: Mapping[str, object] | None = None,
         aliases: Mapping[tuple[str, str], str] | None = None) -> pd.DataFrame:
    """Load the rows of one benchmark (or all) from a tidy folder, with a ``label`` column.

    Parameters
    ----------
    tidy_dir : path
        A folder written by ingest.
    benchmark : str, optional
        E.g. "mysql"; None for every benchmark.
    table : str
        "measurements", "monitor" (system-monitor samples) or "reference".
    metrics : list of str, optional
        Keep only these metrics.
    where : mapping, optional
        More equality filters {column: value} pushed down to the Parquet reader
        (e.g. ``{"p_series": "performance-governor"}``).
    aliases : mapping, optional
        (environment, variant) -> label for variants a study names in its own words
        (see :func:`overhead.environments.label`).

    Returns
    -------
    pandas.DataFrame
        The conformed rows plus ``label``; parameter columns that are empty for the
        selection are dropped.

    Raises
    ------
    DataNotFound
        When the table is not in ``tidy_dir``.
    """
    path = _path(tidy_dir, table)
    filters = []
    if benchmark is not None:
        filters.append(("benchmark", "==", benchmark))
    if metrics is not None:
        filters.append(("metric", "in", list(metrics)))
    for column, value in (where or {}).items():
        filters.append((column, "==", value))
    df = pd.read_parquet(path, engine="pyarrow", filters=filters or None, dtype_backend="numpy_nullable")
    empty = [c for c in df.columns if c.startswith("p_") and df[c].isna().all()]
    df = schema.conform(df.drop(columns=empty))
    df["label"] = environments.labels(df, aliases)
    return df


def campaigns(tidy_dir: str | os.PathLike[str]) -> list[str]:
    """List the distinct campaigns of a tidy folder's measurements.

    They are read from the Parquet metadata and one column, without loading the table.

    Parameters
    ----------
    tidy_dir : path
        A folder written by ingest.

    Returns
    -------
    list of str
        The campaigns, sorted.

    Raises
    ------
    DataNotFound
        When the measurements table is not in ``tidy_dir``.
    """
    import pyarrow.parquet as pq

    column = pq.read_table(_path(tidy_dir, "measurements"), columns=["campaign"]).column("campaign")
    return sorted(str(v) for v in column.unique().to_pylist() if v is not None)


def summary_table(tidy_dir: str | os.PathLike[str],
                  aliases: Mapping[tuple[str, str], str] | None = None) -> str:
    """Count the rows per benchmark and environment label of a tidy folder's measurements.

    Parameters
    ----------
    tidy_dir : path
        A folder written by ingest.
    aliases : mapping, optional
        As for :func:`load`.

    Returns
    -------
    str
        A table with one row per benchmark (and a total), one column per label in legend
        order, the row total and the number of distinct runs.
    """
    path = _path(tidy_dir, "measurements")
    df = pd.read_parquet(path, columns=["benchmark", "environment", "variant", "run_id"])
    df["label"] = environments.labels(df, aliases).astype(object)
    counts = df.pivot_table(index="benchmark", columns="label", values="run_id", aggfunc="size",
                            fill_value=0)
    counts = counts[environments.order(counts.columns)]
    counts["total"] = counts.sum(axis=1)
    counts.loc["total"] = counts.sum(axis=0)
    runs = df.groupby("benchmark")["run_id"].nunique()
    counts["runs"] = runs.reindex(counts.index)
    counts.loc["total", "runs"] = df["run_id"].nunique()
    counts["runs"] = counts["runs"].astype(int)
    counts.columns.name = "label"
    with pd.option_context("display.width", 200, "display.max_columns", 30):
        return "Rows per benchmark and environment (tidy rows; runs = distinct run_id)\n" + counts.to_string()
