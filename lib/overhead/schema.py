"""The tidy data model: one row per measured value, plus provenance per run.

Every writer calls :func:`conform` and :func:`validate` before it writes, and writes through
:func:`write_parquet`, which renames a finished temporary file into place so that a crash never
leaves a half-written table.
"""

from __future__ import annotations

import math
import os
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np
import pandas as pd

#: Core columns of the measurements table and their pandas dtypes, in output order.
MEASUREMENT_COLUMNS: dict[str, str] = {
    "campaign": "string",
    "run_id": "string",
    "trial": "Int64",
    "benchmark": "string",
    "environment": "string",
    "variant": "string",
    "host": "string",
    "tool": "string",
    "tool_version": "string",
    "metric": "string",
    "value": "float64",
    "unit": "string",
    "higher_is_better": "boolean",
    "warmup": "boolean",
    "started_at": "datetime64[ns, UTC]",
    # "path:line" of the value in the raw output.
    "source": "string",
    # The value exactly as the tool printed it ("bw=750994KB/s"), before unit conversion.
    "raw": "string",
}

#: Columns a parser must fill; the others are context that ingest adds.
PARSER_REQUIRED = ("benchmark", "tool", "metric", "value", "unit", "source")

#: Provenance per run_id.
PROVENANCE_COLUMNS: dict[str, str] = {
    "run_id": "string",
    "campaign": "string",
    "environment": "string",
    "variant": "string",
    "host": "string",
    "tool": "string",
    "tool_version": "string",
    "source_file": "string",
    "source_sha256": "string",
    "started_at": "datetime64[ns, UTC]",
    "kernel": "string",
    "cpu_model": "string",
    "cpu_ghz": "float64",
    "governor": "string",
    "mitigations": "string",
    "docker_version": "string",
    "docker_storage_driver": "string",
    "docker_network_mode": "string",
    "qemu_version": "string",
    "accelerator": "string",
    "vcpu_pinning": "string",
    "command_line": "string",
    "git_sha": "string",
    "campaign_hash": "string",
    "notes": "string",
}

#: Canonical units. Rates are per second; sizes in bytes; times in seconds.
UNITS: dict[str, str] = {
    "s": "seconds",
    "B": "bytes",
    "B/s": "bytes per second",
    "FLOP/s": "floating-point operations per second",
    "op/s": "operations per second",
    "req/s": "requests per second",
    "tx/s": "transactions per second",
    "update/s": "updates per second",
    "event/s": "events per second",
    "packet/s": "packets per second",
    "bit/s": "bits per second (line rates; goodput is stored in B/s)",
    "count": "a count of things",
    "%": "percent (0-100)",
    "ratio": "dimensionless ratio",
    "Hz": "per second (frequency)",
}

ACCELERATORS = ("kvm", "tcg")


class SchemaError(ValueError):
    """A table does not follow the tidy data model; the message names the column and row."""


def param_columns(df: pd.DataFrame) -> list[str]:
    """Names of the parameter columns (``p_<name>``) of ``df``, in their current order."""
    return [c for c in df.columns if c.startswith("p_")]


def _param_dtype(values: pd.Series) -> str:
    """Choose one dtype for a parameter column from the Python values it holds.

    Parameters: values, the column (object dtype or typed). Booleans stay boolean, whole numbers
    become Int64, other numbers Float64 and anything else a string.
    """
    nonnull = values.dropna()
    if nonnull.empty:
        return "string"
    if pd.api.types.is_bool_dtype(nonnull) or all(isinstance(v, (bool, np.bool_)) for v in nonnull):
        return "boolean"
    if pd.api.types.is_integer_dtype(nonnull) or all(
        isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in nonnull
    ):
        return "Int64"
    if pd.api.types.is_numeric_dtype(nonnull) or all(
        isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
        for v in nonnull
    ):
        return "Float64"
    return "string"


def conform(df: pd.DataFrame, columns: Mapping[str, str] = MEASUREMENT_COLUMNS) -> pd.DataFrame:
    """Return ``df`` with every core column present (missing ones as NA), core dtypes applied,
    parameter columns typed, and columns in canonical order (core first, then sorted p_*).

    Parameters: df, a frame from a parser or ingest; columns, the core column spec.
    Unknown non-parameter columns are an error, so that a typo cannot create a silent column.
    """
    extra = [c for c in df.columns if c not in columns and not c.startswith("p_")]
    if extra:
        raise SchemaError(f"unknown column(s) {extra}; parameters must be named p_<name>")
    n = len(df)
    # Build all columns first and the frame once: inserting column by column costs ~6 ms per
    # call, which dominated ingest of many small files.
    data: dict[str, object] = {}
    for name, dtype in columns.items():
        if name not in df.columns:
            data[name] = np.full(n, np.nan) if dtype == "float64" else pd.array([None] * n, dtype=dtype)
            continue
        col = df[name]
        if str(col.dtype) != dtype:
            if dtype.startswith("datetime64"):
                col = pd.to_datetime(col, utc=True).astype(dtype)
            elif dtype in ("string", "boolean", "Int64"):
                col = col.astype(dtype)
            else:
                col = pd.to_numeric(col, errors="raise").astype(dtype)
        data[name] = col.array
    for name in sorted(param_columns(df)):
        col = df[name]
        dtype = _param_dtype(col)
        if str(col.dtype) != dtype:
            if dtype == "string":
                col = col.map(lambda v: v if v is None or (isinstance(v, float) and math.isnan(v)) else str(v))
            col = col.astype(dtype)
        data[name] = col.array
    return pd.DataFrame(data)


def validate(df: pd.DataFrame, *, require_context: bool = False) -> pd.DataFrame:
    """Check a measurements frame against the data model and return it unchanged.

    Parameters: df, a conformed frame; require_context, also demand campaign, run_id and
    environment (true for anything written to data/tidy).
    Raises SchemaError naming the column, and the source of the first offending row.
    """
    required = list(PARSER_REQUIRED)
    if require_context:
        required += ["campaign", "run_id", "environment"]
    for name in required:
        if name not in df.columns:
            raise SchemaError(f"missing column {name!r}")
        bad = df[name].isna()
        if bad.any():
            raise SchemaError(f"column {name!r} is empty in row {_where(df, bad)}")
    values = df["value"].to_numpy(dtype="float64", na_value=np.nan)
    bad = ~np.isfinite(values)
    if bad.any():
        raise SchemaError(f"value is not a finite number in row {_where(df, bad)}")
    bad = ~df["unit"].isin(list(UNITS))
    if bad.any():
        unit = df.loc[bad, "unit"].iloc[0]
        raise SchemaError(f"unit {unit!r} is not canonical ({', '.join(UNITS)}) in row {_where(df, bad)}")
    for name in param_columns(df):
        if not name[2:].replace("_", "a").isalnum() or name[2:] != name[2:].lower():
            raise SchemaError(f"parameter column {name!r} must be p_ followed by lower_snake_case")
    return df


def _where(df: pd.DataFrame, mask) -> str:
    """Describe the first row selected by ``mask``: its index and source when known."""
    idx = int(np.flatnonzero(np.asarray(mask))[0])
    src = df["source"].iloc[idx] if "source" in df.columns else None
    return f"{idx} (source {src})" if isinstance(src, str) else str(idx)


def frame(rows: Iterable[Mapping[str, object]]) -> pd.DataFrame:
    """Build a conformed measurements frame from row dicts (what small parsers produce)."""
    rows = list(rows)
    if not rows:
        return conform(pd.DataFrame({c: [] for c in PARSER_REQUIRED}))
    # Build object columns by hand: from_records would turn an int parameter missing from some
    # rows into float NaN (8192 -> 8192.0) before conform could choose Int64.
    keys = list(dict.fromkeys(k for r in rows for k in r))
    return conform(pd.DataFrame({k: pd.Series([r.get(k) for r in rows], dtype=object) for k in keys}))


def concat(frames: Iterable[pd.DataFrame]) -> pd.DataFrame:
    """Concatenate measurement frames whose parameter columns differ, keeping the data model."""
    frames = [f for f in frames if len(f)]
    if not frames:
        return frame([])
    params = sorted({c for f in frames for c in param_columns(f)})
    # Re-infer parameter dtypes over the union: a column can be Int64 in one frame and
    # Float64 in another; object columns let conform choose once.
    aligned = []
    for f in frames:
        g = f.copy()
        for p in params:
            g[p] = g[p].astype(object) if p in g.columns else None
        aligned.append(g)
    merged = pd.concat(aligned, ignore_index=True)
    for p in params:
        merged[p] = merged[p].where(merged[p].notna(), None)
    return conform(merged)


def write_parquet(df: pd.DataFrame, path: str | os.PathLike[str]) -> Path:
    """Write ``df`` to ``path`` atomically: a temporary file in the same folder, then rename.

    String columns are stored dictionary-encoded (they repeat a lot), which keeps the file small
    and fast to read. Returns the path written.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        df.to_parquet(tmp, index=False, engine="pyarrow", compression="zstd")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def read_parquet(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read a table written by :func:`write_parquet`, restoring the data model's dtypes."""
    df = pd.read_parquet(path, engine="pyarrow")
    columns = PROVENANCE_COLUMNS if "source_file" in df.columns else MEASUREMENT_COLUMNS
    return conform(df, columns)


def empty_provenance() -> pd.DataFrame:
    """An empty provenance table with the right columns and dtypes."""
    return conform(pd.DataFrame({"run_id": []}), PROVENANCE_COLUMNS)
