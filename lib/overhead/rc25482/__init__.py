"""Rebuild IBM RC25482 (Felter et al., 2014) from the authors' raw data.

One module per section of the paper computes the data behind its tables and figures from the
tidy table; the notebooks under ``notebooks/`` call these and draw. This package holds what they
share: where the data is, loading a benchmark's rows with display labels, and the fixed output
names that others rely on.
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from overhead import ibm, schema
from overhead.paths import (
    ROOT,
    reference_candidates,
)

CLONE_HINT = ("git clone https://github.com/thewmf/kvm-docker-comparison "
              "data/external/kvm-docker-comparison")

#: The notebooks in the order `make reproduce` runs them (the report last: it reads the others).
NOTEBOOKS = (
    "01_table1_compute_memory",
    "02_network",
    "03_block_io",
    "04_redis",
    "05_mysql",
    "06_report",
)


class DataNotFound(FileNotFoundError):
    """The authors' data (or the reference folder) is not where we looked; says how to get it."""


def find_ibm_data(explicit: str | os.PathLike[str] | None = None) -> Path:
    """The authors' tree: ``explicit``, else $OVERHEAD_IBM_DATA, else the shared reference copy
    next to the repository, else ``data/external/kvm-docker-comparison``.

    Raises DataNotFound with the git clone command when none exists.
    """
    candidates = [explicit, os.environ.get("OVERHEAD_IBM_DATA"),
                  *[c / "kvm-docker-comparison" for c in reference_candidates()],
                  ROOT / "data" / "external" / "kvm-docker-comparison"]
    for c in candidates:
        if c and Path(c).is_dir():
            return Path(c).resolve()
    raise DataNotFound(f"the authors' raw data was not found (looked at {[str(c) for c in candidates if c]}); "
                       f"get it with: {CLONE_HINT}")


def find_reference_dir(explicit: str | os.PathLike[str] | None = None) -> Path | None:
    """The folder with paper_numbers.csv (published values), or None when it is not available.

    Published values are read in place, never copied into the repository; without them the
    notebooks still rebuild everything from raw data and say that no comparison was made.
    """
    candidates = [explicit, *reference_candidates()]
    for c in candidates:
        if c and (Path(c) / "paper_numbers.csv").is_file():
            return Path(c).resolve()
    return None


def prepare(ibm_data: str | os.PathLike[str] | None = None,
            tidy_dir: str | os.PathLike[str] | None = None) -> Path:
    """Ingest the authors' data into ``tidy_dir`` (cached: a no-op when nothing changed).

    Parameters: ibm_data, the authors' tree (found with :func:`find_ibm_data` when None);
    tidy_dir, output folder (default data/tidy/ibm in the repository). Returns tidy_dir.
    """
    from overhead.ingest import ingest_ibm

    tidy = Path(tidy_dir) if tidy_dir else ROOT / "data" / "tidy" / "ibm"
    ingest_ibm(find_ibm_data(ibm_data), tidy)
    return tidy


def load(tidy_dir: str | os.PathLike[str], benchmark: str | None = None, *,
         table: str = "measurements", metrics: list[str] | None = None,
         where: dict | None = None) -> pd.DataFrame:
    """Rows of one benchmark (or all) from an ingested folder, with a ``label`` column.

    Parameters: tidy_dir, folder written by ingest; benchmark, e.g. "mysql"; table,
    "measurements", "monitor" (dstat samples) or "reference" (the spreadsheet values);
    metrics, keep only these; where, more equality filters {column: value} pushed down to
    the Parquet reader (e.g. {"p_series": "performance-governor"}).
    Parameter columns that are empty for the selection are dropped.
    """
    path = Path(tidy_dir) / (table if table == "monitor" else f"{table}.parquet")
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
    df["label"] = labels(df)
    return df


def labels(df: pd.DataFrame) -> pd.Series:
    """The paper's environment label of every row (computed once per distinct pair)."""
    keys = df["environment"].astype("string").fillna("") + "\x00" + df["variant"].astype("string").fillna("")
    names = {k: (ibm.label(*k.split("\x00")) if not k.startswith("\x00") else None) for k in keys.unique()}
    return keys.map(names).astype("string")


def out_dir(path: str | os.PathLike[str] | None = None) -> Path:
    """The output folder for tables and figures (default figures/rc25482), created."""
    p = Path(path) if path else ROOT / "figures" / "rc25482"
    p.mkdir(parents=True, exist_ok=True)
    return p


def setup(tidy_dir: str = "", ibm_data: str = "", out_dir_: str = "", reference_dir: str = "",
          compare_published: bool = True) -> tuple[str, Path, Path | None]:
    """Resolve a notebook's parameters (empty = the defaults) and apply the figure theme.

    Parameters: the five values of the notebooks' ``parameters`` cell. Ingests the authors' data
    when ``tidy_dir`` is empty (cached). Returns (tidy_dir, output folder, reference folder or
    None when no published comparison is wanted or possible).
    """
    from overhead import plots

    tidy = tidy_dir or str(prepare(ibm_data or None))
    out = out_dir(out_dir_ or None)
    ref = find_reference_dir(reference_dir or None) if compare_published else None
    plots.theme()
    return tidy, out, ref
