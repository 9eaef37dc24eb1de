"""Load and filter the tidy tables that ingest writes.

A tidy folder holds ``measurements.parquet`` (one row per measured value), ``monitor/`` (the
system-monitor samples, one Parquet part per raw file; dstat's stored wide, one row per sample,
and read back here as the long tidy rows: :mod:`overhead.wide`), ``provenance.parquet`` (one row per
run) and ``reference.parquet`` (values that exist only outside the raw outputs). A campaign's
folder (:func:`overhead.campaign.ingest.ingest_campaign`) stores ``measurements.parquet`` and
``provenance.parquet`` as folders of Parquet parts (one new part per incremental ingest) and
adds ``trials.parquet`` (one row per trial). Every function here reads a table whether it is
one file or a folder of parts whose parameter columns differ. :func:`load` reads one
benchmark's rows with filters pushed down to the Parquet reader and adds the display ``label``
of every row; :func:`summary_table` counts rows per benchmark and environment.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from overhead import environments, schema, wide
from overhead.errors import DataNotFound
from overhead.schema import SCHEMA_PART, dataset_schema, unify_types, write_schema_part

TABLES = ("measurements", "monitor", "provenance", "reference", "trials")

__all__ = ["SCHEMA_PART", "TABLES", "campaigns", "dataset_schema", "load", "read", "summary_table",
           "unify_types", "write_schema_part"]

def _path(tidy_dir: str | os.PathLike[str], table: str) -> Path:
    """Return the file (or, for the monitor table, folder) of ``table`` in ``tidy_dir``."""
    if table not in TABLES:
        raise ValueError(f"unknown table {table!r}; tables are {', '.join(TABLES)}")
    path = Path(tidy_dir) / (table if table == "monitor" else f"{table}.parquet")
    if not path.exists():
        raise DataNotFound(f"{path}: not found; ingest the raw data into {tidy_dir} first")
    return path


def read(path: str | os.PathLike[str], *, columns: list[str] | None = None,
         filters: list | None = None) -> pd.DataFrame:
    """Read a table (one Parquet file or a folder of parts) into a frame of nullable dtypes.

    Parameters
    ----------
    path : path
        The table.
    columns : list of str, optional
        Read only these columns (a column no part has is an error, as for one file).
    filters : list, optional
        pyarrow filters ``[(column, op, value), ...]``, pushed down to the reader; in a folder,
        a part without the column has nulls there (no row matches an equality on it).

    Returns
    -------
    pandas.DataFrame
        The rows, with pandas' nullable dtypes; an empty frame (no columns) for a folder
        without parts.
    """
    path = Path(path)
    kwargs = {}
    if path.is_dir() and _has_wide_parts(path):
        return _read_wide(path, columns, filters)
    if path.is_dir():
        unified = dataset_schema(path)
        if unified is None:
            return pd.DataFrame({c: [] for c in columns or []})
        if columns is not None:
            missing = [c for c in columns if c not in unified.names]
            if missing:
                raise DataNotFound(f"{path}: no column(s) {', '.join(missing)}")
        kwargs["schema"] = unified
    return pd.read_parquet(path, engine="pyarrow", columns=columns, filters=filters or None,
                           dtype_backend="numpy_nullable", **kwargs)


def _has_wide_parts(folder: Path) -> bool:
    """Tell whether a folder table holds monitor samples stored wide (:mod:`overhead.wide`)."""
    import pyarrow.parquet as pq

    return any(wide.is_wide(pq.read_schema(p)) for p in schema.parts_of(folder))


def _read_wide(path: Path, columns: list[str] | None, filters: list | None) -> pd.DataFrame:
    """Read a monitor folder whose parts are wide (or long) as the long tidy rows.

    Each wide part is read with the filters on its sample columns pushed down and only the
    counters a filter on metric, unit, p_device or p_cpu leaves, then melted
    (:func:`overhead.wide.melt`); every filter is then applied to the long rows, as for a
    long part. Parts whose columns differ are unified as :func:`overhead.schema.concat_arrow`
    does (a column a part lacks is null there).
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    tables = []
    for part in schema.parts_of(path):
        found = pq.read_schema(part)
        if wide.is_wide(found):
            every = wide.counters(found)
            chosen = list(wide.counters(found, wide.counter_where(filters)))
            if not chosen:
                continue
            samples = [n for n in found.names if n not in every and not n.startswith(wide.RAW)]
            table = pq.read_table(part, columns=samples + chosen + [wide.RAW + n for n in chosen],
                                  filters=wide.sample_filters(filters, samples) or None)
            table = wide.melt(table, chosen)
        else:
            table = pq.read_table(part)
        tables.append(wide.filtered(table, filters))
    if not tables:
        return pd.DataFrame({c: [] for c in columns or []})
    table = schema.concat_arrow(tables)
    if columns is not None:
        missing = [c for c in columns if c not in table.column_names]
        if missing:
            raise DataNotFound(f"{path}: no column(s) {', '.join(missing)}")
        table = table.select(columns)
    # plain strings, as a long part reads (dictionary encoding is how the parts store them)
    table = pa.table({n: (c.cast(c.type.value_type) if pa.types.is_dictionary(c.type) else c)
                      for n, c in zip(table.column_names, table.columns, strict=True)})
    return schema.arrow_to_frame(table)


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
        "measurements", "monitor" (system-monitor samples), "reference", "provenance" (one
        row per run) or "trials" (a campaign's trials, one row each).
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
    df = read(path, filters=filters)
    if table == "provenance":
        df = schema.conform(df, schema.PROVENANCE_COLUMNS)
    elif table != "trials":  # the trials table has its own columns, typed as stored
        empty = [c for c in df.columns if c.startswith("p_") and df[c].isna().all()]
        df = schema.conform(df.drop(columns=empty))
    if "environment" in df.columns:
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
    column = read(_path(tidy_dir, "measurements"), columns=["campaign"])["campaign"]
    return sorted(str(v) for v in column.dropna().unique())


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
    df = read(path, columns=["benchmark", "environment", "variant", "run_id"])
    if df.empty:
        return f"{path}: no measurement rows"
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
