"""The tidy data model: one row per measured value, plus provenance per run.

Every writer calls :func:`conform` and :func:`validate` before it writes, and writes through
:func:`write_table`, which renames a finished temporary file into place so that a crash never
leaves a half-written table.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from overhead.errors import SchemaError

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
    "status": "string",
    "failure": "string",
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
    "s/B": "seconds per byte (CPU time per byte moved: netperf's and qperf's service demand)",
    "s/tx": "seconds per transaction (CPU time per transaction: netperf's service demand)",
}

ACCELERATORS = ("kvm", "tcg")


def _is_string_categorical(dtype) -> bool:
    """Tell whether ``dtype`` is a Categorical of strings (the dstat parser's line sources)."""
    return isinstance(dtype, pd.CategoricalDtype) and pd.api.types.is_string_dtype(dtype.categories.dtype)


def param_columns(df: pd.DataFrame) -> list[str]:
    """Return the names of the parameter columns (``p_<name>``) of ``df``, in current order."""
    return [c for c in df.columns if c.startswith("p_")]


_INFERRED = {"boolean": "boolean", "integer": "Int64", "floating": "Float64",
             "mixed-integer-float": "Float64", "decimal": "Float64"}


def _param_dtype(values: pd.Series) -> str:
    """Choose one dtype for a parameter column from the values it holds.

    Booleans stay boolean, whole numbers become Int64, other numbers Float64, string
    categoricals stay categorical, and anything else becomes a string.

    Parameters
    ----------
    values : pandas.Series
        The column (object dtype or typed).

    Returns
    -------
    str
        The dtype's name.
    """
    if _is_string_categorical(values.dtype):
        return "category"
    if values.dtype != object:
        dtype = values.dtype
        if pd.api.types.is_bool_dtype(dtype):
            return "boolean"
        if pd.api.types.is_integer_dtype(dtype):
            return "Int64"
        if pd.api.types.is_float_dtype(dtype):
            # an all-NA column of a typed frame carries no information about its type
            return "Float64"
        if pd.api.types.is_string_dtype(dtype):
            return "string"
    inferred = pd.api.types.infer_dtype(values, skipna=True)
    if inferred == "empty":
        return "string"
    return _INFERRED.get(inferred, "string")


def conform(df: pd.DataFrame, columns: Mapping[str, str] = MEASUREMENT_COLUMNS) -> pd.DataFrame:
    """Return ``df`` in the data model's columns, dtypes and order.

    Every core column is present (missing ones as NA), core dtypes are applied, parameter
    columns typed, and columns in canonical order (core first, then sorted p_*). String
    columns may be string Categoricals (the dstat parser's shared line sources).

    Parameters
    ----------
    df : pandas.DataFrame
        A frame from a parser or ingest.
    columns : mapping of str to str
        The core column spec (name -> dtype).

    Returns
    -------
    pandas.DataFrame
        The conformed frame.

    Raises
    ------
    SchemaError
        For unknown non-parameter columns, so that a typo cannot create a silent column.
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
            data[name] = (np.full(n, np.nan) if dtype == "float64"
                          else pd.Series(pd.NA, index=pd.RangeIndex(n), dtype=dtype).array)
            continue
        col = df[name]
        if str(col.dtype) != dtype and not (dtype == "string" and _is_string_categorical(col.dtype)):
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
        if dtype != "category" and str(col.dtype) != dtype:
            col = col.astype(dtype)
        data[name] = col.array
    return pd.DataFrame(data)


def validate(df: pd.DataFrame, *, require_context: bool = False) -> pd.DataFrame:
    """Check a measurements frame against the data model and return it unchanged.

    Parameters
    ----------
    df : pandas.DataFrame
        A conformed frame.
    require_context : bool
        Also demand campaign, run_id and environment (true for anything written to
        data/tidy).

    Returns
    -------
    pandas.DataFrame
        ``df``, unchanged.

    Raises
    ------
    SchemaError
        Naming the column, and the source of the first offending row.
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


def is_conformed(df: pd.DataFrame) -> bool:
    """Check whether ``df`` already has every core column in its dtype and typed parameters.

    If so, conform would return it unchanged. The check is cheap, unlike conform itself.
    """
    for name, dtype in MEASUREMENT_COLUMNS.items():
        if name not in df.columns:
            return False
        got = df[name].dtype
        if str(got) != dtype and not (dtype == "string" and _is_string_categorical(got)):
            return False
    return all(df[c].dtype != object for c in param_columns(df))


def _union_dtype(dtypes: set[str]) -> str:
    """Choose one dtype for a parameter column that has ``dtypes`` in different frames."""
    dtypes = {"string" if d == "category" else d for d in dtypes}
    if len(dtypes) == 1:
        return next(iter(dtypes))
    if dtypes <= {"Int64", "Float64"}:
        return "Float64"
    return "string"


def concat(frames: Iterable[pd.DataFrame]) -> pd.DataFrame:
    """Concatenate conformed measurement frames whose parameter columns differ.

    Each parameter column gets one dtype over all frames (Int64 and Float64 meet as Float64,
    anything else mixed becomes string); frames without it get an all-NA column. Works on typed
    arrays throughout, so millions of rows concatenate in well under a second.
    """
    frames = [f if is_conformed(f) else conform(f) for f in frames if len(f)]
    if not frames:
        return frame([])
    seen: dict[str, set[str]] = {}
    for f in frames:
        for c in param_columns(f):
            seen.setdefault(c, set()).add("category" if _is_string_categorical(f[c].dtype) else str(f[c].dtype))
    target = {c: _union_dtype(d) for c, d in seen.items()}
    target = {c: ("string" if d == "category" else d) for c, d in target.items()}
    aligned = []
    for f in frames:
        casts = {c: "string" for c in f.columns if _is_string_categorical(f[c].dtype)}
        aligned.append(f.astype(casts) if casts else f)
    # pandas fills a column that some frames lack with NA and finds a common dtype where frames
    # differ; one cast per column afterwards (not per frame and column) gives the target dtype
    merged = pd.concat(aligned, ignore_index=True, sort=False)
    for c, t in target.items():
        if str(merged[c].dtype) != t:
            merged[c] = merged[c].astype(t)
    return merged[list(MEASUREMENT_COLUMNS) + sorted(target)]


def to_arrow(df: pd.DataFrame):
    """Convert a conformed frame to a pyarrow Table (no index, no pandas metadata)."""
    import pyarrow as pa

    return pa.Table.from_pandas(df, preserve_index=False).replace_schema_metadata(None)


def arrow_to_frame(table) -> pd.DataFrame:
    """Convert an Arrow table to pandas with the nullable dtypes ``read_parquet`` gives.

    As ``dtype_backend="numpy_nullable"``: string, Int64, boolean, Float64; dictionary-encoded
    columns become categoricals.
    """
    mapping = {"string": pd.StringDtype(), "int64": pd.Int64Dtype(), "bool": pd.BooleanDtype(),
               "double": pd.Float64Dtype()}
    return table.to_pandas(types_mapper=lambda t: mapping.get(str(t)), ignore_metadata=True)


def concat_arrow(tables: list):
    """Concatenate pyarrow Tables of conformed frames into one, unifying parameter columns.

    Missing columns become all-null (free in Arrow), int64 meets double as double, other
    conflicts become strings. This is how ingest combines millions of rows quickly.
    """
    import pyarrow as pa

    types: dict[str, set] = {}
    for t in tables:
        for f in t.schema:
            types.setdefault(f.name, set()).add(f.type)
    target = {}
    for name, ts in types.items():
        ts = {t for t in ts if t != pa.null()} or {pa.null()}
        if any(pa.types.is_dictionary(t) for t in ts):
            # dictionary-encoded strings (ingest caches): keep them encoded
            plain = {t.value_type if pa.types.is_dictionary(t) else t for t in ts}
            ts = {pa.dictionary(pa.int32(), pa.string())} if plain == {pa.string()} else plain
        if len(ts) == 1:
            target[name] = next(iter(ts))
        elif ts <= {pa.int64(), pa.float64()}:
            target[name] = pa.float64()
        else:
            target[name] = pa.string()
    names = ([n for n in MEASUREMENT_COLUMNS if n in target]  # (a core column no table has: left out)
             + sorted(n for n in target if n not in MEASUREMENT_COLUMNS))
    return align_tables(tables, names, target)


def align_tables(tables: list, names: list[str], target: dict):
    """Concatenate Arrow tables as columns ``names`` of types ``target`` (missing ones null).

    A column a table lacks is all-null there; one of another type is cast. The tables' rows
    keep their order.
    """
    import pyarrow as pa

    schema = pa.schema([(n, target[n]) for n in names])
    aligned = []
    for t in tables:
        cols = []
        for n in names:
            if n in t.column_names:
                col = t.column(n)
                cols.append(col if col.type == target[n] else col.cast(target[n]))
            else:
                cols.append(pa.nulls(t.num_rows, target[n]))
        aligned.append(pa.Table.from_arrays(cols, schema=schema))
    return pa.concat_tables(aligned) if aligned else schema.empty_table()


def frames_to_arrow(frames: list[pd.DataFrame], check=None):
    """Turn many frames of tidy rows into one Arrow table, rows in the frames' order.

    Frames with the same columns and dtypes are concatenated in pandas (no reindexing),
    checked and converted once per group (``check``: :func:`validate` or :func:`conform`),
    and Arrow unifies the groups' parameter columns (:func:`concat_arrow`; a column a group
    lacks is free there). Per frame, checking and converting would cost more than parsing a
    small file; one pandas concat over all frames spends its time filling missing columns.

    Parameters
    ----------
    frames : list of pandas.DataFrame
        The frames (at least one).
    check : callable, optional
        Applied to each group's concatenation before conversion (default :func:`validate`).

    Returns
    -------
    pyarrow.Table
        Every frame's rows, frame after frame.
    """
    check = check or validate
    groups: dict[tuple, list[int]] = {}
    for i, f in enumerate(frames):
        groups.setdefault(tuple(zip(f.columns, map(str, f.dtypes), strict=True)), []).append(i)
    order = [i for members in groups.values() for i in members]
    tables = [to_arrow(check(pd.concat([frames[i] for i in members], ignore_index=True)))
              for members in groups.values()]
    table = concat_arrow(tables)
    counts = np.array([len(f) for f in frames], dtype=np.int64)
    starts = np.cumsum(np.concatenate([[0], counts[order]]))
    where = dict(zip(order, starts[:-1], strict=True))
    return table.take(np.concatenate([np.arange(where[i], where[i] + counts[i])
                                      for i in range(len(frames))]))


def write_table(table, path: str | os.PathLike[str]) -> Path:
    """Write a pyarrow Table as Parquet atomically (temporary file, then rename)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        # store_schema=False: readers see plain strings, not categoricals, for columns that
        # were dictionary-encoded in memory (Parquet dictionary-encodes them on disk anyway).
        # Statistics only where they help filtering: min/max of 2 million distinct
        # "path:line" or raw strings cost a third of the write time and filter nothing.
        stats = [n for n in table.column_names if n not in ("source", "raw") and not n.startswith("raw:")]
        # A wide monitor table (overhead.wide) keeps its schema metadata, which says how to
        # melt it: only the stored Arrow schema carries that metadata into the file.
        wide = bool(table.schema.metadata) and b"overhead.layout" in table.schema.metadata
        # Dictionary pages only for columns that repeat: a wide table's counters and their
        # printed strings rarely do, and building their dictionaries cost half its write time.
        dictionary = ([n for n in stats if pa.types.is_string(table.schema.field(n).type)
                       or pa.types.is_dictionary(table.schema.field(n).type)] if wide else True)
        pq.write_table(table, tmp, compression="zstd", store_schema=wide, write_statistics=stats,
                       use_dictionary=dictionary)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def read_parquet(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read a table written by :func:`write_table`, restoring the data model's dtypes."""
    df = pd.read_parquet(path, engine="pyarrow", dtype_backend="numpy_nullable")
    columns = PROVENANCE_COLUMNS if "source_file" in df.columns else MEASUREMENT_COLUMNS
    return conform(df, columns)


#: A zero-row part in every table stored as a folder, holding the schema of all its parts.
#: Readers that take a folder's schema from its first file (``pandas.read_parquet(folder)``,
#: ``pyarrow.dataset.dataset(folder)``) then see every column: without it they silently drop
#: the columns the first part lacks (``p_clients`` of a Redis trial ingested after a sysbench
#: one). The name sorts before ``part-*`` and does not start with "_" or ".", which Arrow skips.
SCHEMA_PART = "00-schema.parquet"


def parts_of(folder: Path) -> list[Path]:
    """List the Parquet parts of a table stored as a folder (hidden, temporary and schema files left out)."""
    return sorted(p for p in folder.iterdir()
                  if p.suffix == ".parquet" and not p.name.startswith((".", "_")) and p.is_file()
                  and p.name != SCHEMA_PART)


def unify_types(types: set) -> object:
    """Choose one Arrow type for a column whose parts hold ``types``.

    Dictionary-encoded and large strings count as strings; nulls (a part where the column is
    empty) take the other parts' type; int64 meets double as double; any other conflict
    becomes a string.
    """
    import pyarrow as pa

    plain = set()
    for t in types:
        t = t.value_type if pa.types.is_dictionary(t) else t
        if pa.types.is_large_string(t):
            t = pa.string()
        if t != pa.null():
            plain.add(t)
    if not plain:
        return pa.null()
    if len(plain) == 1:
        return next(iter(plain))
    if all(pa.types.is_integer(t) or pa.types.is_floating(t) for t in plain):
        return pa.float64() if any(pa.types.is_floating(t) for t in plain) else pa.int64()
    return pa.string()


def dataset_schema(path: str | os.PathLike[str]):
    """Return the one Arrow schema that reads every part of a table stored as a folder.

    Columns appear in the order the parts first show them; a column some parts lack is read
    as null there, and a column whose type differs between parts gets one type for all
    (see :func:`unify_types`). For a single file, its own schema.

    Parameters
    ----------
    path : path
        A table: one Parquet file or a folder of Parquet parts.

    Returns
    -------
    pyarrow.Schema or None
        The schema; None for a folder without parts.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = Path(path)
    if not path.is_dir():
        return pq.read_schema(path)
    types: dict[str, set] = {}
    for part in parts_of(path):
        for f in pq.read_schema(part):
            types.setdefault(f.name, set()).add(f.type)
    if not types:
        return None
    return pa.schema([(name, unify_types(ts)) for name, ts in types.items()])


def write_schema_part(folder: str | os.PathLike[str]) -> Path | None:
    """Write (or replace) the zero-row :data:`SCHEMA_PART` of a table stored as a folder.

    Its schema is :func:`dataset_schema` of the other parts, so a reader that infers a
    folder's schema from its first file reads every column of every part, with null where a
    part lacks one. Written atomically; removed when the folder has no other part.

    Parameters
    ----------
    folder : path
        A table stored as a folder of Parquet parts.

    Returns
    -------
    pathlib.Path or None
        The schema part, or None when the folder holds no part.
    """
    import pyarrow as pa

    folder = Path(folder)
    unified = dataset_schema(folder)
    target = folder / SCHEMA_PART
    if unified is None:
        target.unlink(missing_ok=True)
        return None
    return write_table(pa.Table.from_batches([], schema=unified), target)
