"""System-monitor samples stored wide: one row per sample, one column per counter.

A system monitor (dstat) writes a line of a few dozen counters every second. The tidy long form
(one row per sample and counter, see :mod:`overhead.schema`) repeats every context column for
each counter: the authors' 12 dstat files make 2.19 million long rows, and building and writing
them was most of a cold ingest of their tree. Ingest stores these samples wide instead, and
:func:`melt` gives back exactly the long rows, so that a reader
(:func:`overhead.tidy.load` with ``table="monitor"``) sees the tidy form unchanged.

A wide table (Arrow in memory, one Parquet part per raw file on disk) has

- **sample columns**: one value per sample, either varying (``line``, the 1-based line the
  sample was read from; ``p_sample``, ``p_session``, ``started_at``, ``warmup``, ``host``) or
  the same on every row (``campaign``, ``run_id``, ``benchmark``, ``tool``, ``environment``,
  a rule's ``p_series``...; dictionary-encoded, they cost next to nothing);
- **counter columns**: float64, one per counter, named by :func:`counter_name`; a null is no
  value (the tool printed none, or not a finite number) and gives no long row;
- for each counter column ``X`` a string column ``raw:X``: each value as the tool printed it;
- schema metadata (Parquet key-value metadata, which survives any writer):
  ``overhead.layout`` = ``wide``; ``overhead.path`` = the raw file's name (each long row's
  ``source`` is ``path:line``); ``overhead.counters`` = JSON ``{column: {"metric", "unit",
  "p_device", "p_cpu"}}`` (the last two only where they apply); ``overhead.rows`` = the number
  of long rows the table holds.

Long rows come out in the order a long parser writes them: session by session (runs of equal
``p_session``), then counter column by column (in the session's own order, kept in
``overhead.order`` when sessions differ), then sample by sample.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

import numpy as np
import pyarrow as pa

__all__ = ["COUNTER_KEYS", "LAYOUT", "RAW", "build", "counter_name", "counter_where", "counters",
           "filtered", "is_wide", "long_rows", "melt", "sample_filters"]

LAYOUT = b"overhead.layout"
_PATH = b"overhead.path"
_COUNTERS = b"overhead.counters"
_ROWS = b"overhead.rows"
_ORDER = b"overhead.order"
#: Prefix of the column holding a counter's values as printed.
RAW = "raw:"
#: What a counter says of its long rows: the columns that are the same on all of them.
COUNTER_KEYS = ("metric", "unit", "p_device", "p_cpu")


def counter_name(metric: str, device: str | None = None, cpu: int | str | None = None) -> str:
    """Name a counter's column: ``cpu_usr``, ``net_recv@eth0`` (a device), ``cpu_usr@cpu3``."""
    if device is not None:
        return f"{metric}@{device}"
    if cpu is not None:
        return f"{metric}@cpu{cpu}"
    return metric


def build(samples: Mapping[str, pa.Array], counters: Sequence[tuple[str, dict, pa.Array, pa.Array]],
          path: str, orders: Mapping[int, Sequence[str]] | None = None) -> pa.Table:
    """Assemble a wide table.

    Parameters
    ----------
    samples : mapping
        Sample columns, name -> array of one value per sample (``line`` required).
    counters : sequence of (name, info, values, raw)
        Each counter: its column name, its :data:`COUNTER_KEYS` (``metric`` and ``unit``
        required; ``p_device`` and ``p_cpu`` None when they do not apply), its float64 values
        (null: no value) and its string values as printed (null where ``values`` is).
    path : str
        The raw file's name, the prefix of each long row's ``source``.
    orders : mapping, optional
        ``{p_session: [counter, ...]}``: the order of a session's long rows, when sessions
        name their counters in different orders (default: the order of ``counters``).

    Returns
    -------
    pyarrow.Table
        Sample columns, then each counter and its ``raw:`` column, with the metadata above.
    """
    if "line" not in samples:
        raise ValueError("a wide table needs the sample column 'line'")
    names = list(samples)
    arrays = list(samples.values())
    info: dict[str, dict] = {}
    rows = 0
    for name, keys, values, raw in counters:
        if name in info or name in samples:
            raise ValueError(f"counter column {name!r} given twice")
        info[name] = {k: keys.get(k) for k in COUNTER_KEYS if keys.get(k) is not None}
        names += [name, RAW + name]
        arrays += [values, raw]
        rows += len(values) - values.null_count
    table = pa.Table.from_arrays(arrays, names=names)
    meta = {LAYOUT: b"wide", _PATH: path.encode(), _COUNTERS: json.dumps(info).encode(),
            _ROWS: str(rows).encode()}
    if orders:
        meta[_ORDER] = json.dumps({str(k): list(v) for k, v in orders.items()}).encode()
    return table.replace_schema_metadata(meta)


def is_wide(schema: pa.Schema) -> bool:
    """Tell whether a table (its schema, as read from a Parquet part) is in the wide layout."""
    return bool(schema.metadata) and schema.metadata.get(LAYOUT) == b"wide"


def long_rows(schema: pa.Schema) -> int:
    """Return the number of long rows a wide table holds (from its metadata)."""
    return int(schema.metadata[_ROWS])


def counters(schema: pa.Schema, where: Mapping[str, object] | None = None) -> dict[str, dict]:
    """Return the counters of a wide table, ``{column: info}``, in column order.

    Parameters
    ----------
    schema : pyarrow.Schema
        A wide table's schema.
    where : mapping, optional
        Keep only the counters whose ``metric``, ``unit``, ``p_device`` or ``p_cpu`` is one of
        the given values (a value, or a list/tuple/set of values; None matches a counter
        without that key).
    """
    info = json.loads(schema.metadata[_COUNTERS])
    out = {}
    for name, keys in info.items():
        ok = True
        for key, wanted in (where or {}).items():
            allowed = wanted if isinstance(wanted, (list, tuple, set, frozenset)) else [wanted]
            have = keys.get(key)
            if key == "p_cpu" and have is not None:
                have = int(have)
            if have not in allowed:
                ok = False
                break
        if ok:
            out[name] = keys
    return out


def _segments(table: pa.Table) -> list[tuple[int, int, str | None]]:
    """Return the [start, stop) row ranges of consecutive equal ``p_session``, with the session."""
    n = table.num_rows
    if "p_session" not in table.column_names or n == 0:
        return [(0, n, None)]
    s = table.column("p_session").to_numpy(zero_copy_only=False)
    cuts = np.flatnonzero(s[1:] != s[:-1]) + 1
    edges = [0, *cuts.tolist(), n]
    return [(a, b, str(s[a])) for a, b in zip(edges[:-1], edges[1:], strict=True)]


def melt(table: pa.Table, columns: Sequence[str] | None = None) -> pa.Table:
    """Give the long rows of a wide table.

    Parameters
    ----------
    table : pyarrow.Table
        A wide table (as built by :func:`build`, or read back from Parquet).
    columns : sequence of str, optional
        Melt only these counter columns (see :func:`counters`); default all.

    Returns
    -------
    pyarrow.Table
        One row per non-null counter value: the sample columns other than ``line``, then
        ``metric``, ``value``, ``unit``, ``higher_is_better`` (null: a monitor's readings are
        neither good nor bad in themselves), ``source`` (``path:line``), ``raw``, and
        ``p_device``/``p_cpu`` when a melted counter has one.
    """
    info = json.loads(table.schema.metadata[_COUNTERS])
    path = table.schema.metadata[_PATH].decode()
    names = list(info) if columns is None else list(columns)
    unknown = [n for n in names if n not in info]
    if unknown:
        raise KeyError(f"not counter columns of this wide table: {unknown}")
    # Which sample (row index) and counter (position in ``names``) each long row comes from.
    valid = [table.column(n).is_valid().to_numpy(zero_copy_only=False) for n in names]
    orders = json.loads(table.schema.metadata.get(_ORDER, b"{}"))
    position = {n: k for k, n in enumerate(names)}
    rows, which = [], []
    for start, stop, session in _segments(table):
        mine = orders.get(session) if session is not None else None
        ks = range(len(names)) if mine is None else [position[n] for n in mine if n in position]
        for k in ks:
            idx = np.flatnonzero(valid[k][start:stop]) + start
            rows.append(idx)
            which.append(np.full(len(idx), k, dtype=np.int32))
    row = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
    col = np.concatenate(which) if which else np.zeros(0, dtype=np.int32)
    sample_cols = [c for c in table.column_names
                   if c not in info and not c.startswith(RAW) and c != "line"]
    take = pa.array(row, pa.int64())
    out = {c: table.column(c).take(take) for c in sample_cols}
    codes = pa.array(col, pa.int32())

    def per_counter(key: str):
        values = [info[n].get(key) for n in names]
        if key == "p_cpu":
            return pa.array([None if v is None else int(v) for v in values], pa.int64()).take(codes)
        if key == "p_device":  # parameters: plain columns, as a long parser gives them
            return pa.array(values, pa.string()).take(codes)
        # strings shared by many rows: dictionary-encoded (pandas reads them as categoricals)
        distinct = list(dict.fromkeys(v for v in values if v is not None))
        index = {v: k for k, v in enumerate(distinct)}
        per = np.array([index.get(v, -1) for v in values], dtype=np.int32)
        code = per[col] if len(per) else np.zeros(0, dtype=np.int32)
        return pa.DictionaryArray.from_arrays(pa.array(code, mask=code < 0), pa.array(distinct, pa.string()))

    out["metric"] = per_counter("metric")
    if len(names):
        stacked = np.column_stack([table.column(n).to_numpy(zero_copy_only=False) for n in names])
        out["value"] = pa.array(stacked[row, col], pa.float64())
        raw = pa.chunked_array([table.column(RAW + n).combine_chunks() for n in names], pa.string())
        # the raw strings of counter k sit at offset k * n_rows in the chunked array
        out["raw"] = raw.take(pa.array(col.astype(np.int64) * table.num_rows + row, pa.int64()))
    else:
        out["value"] = pa.array([], pa.float64())
        out["raw"] = pa.array([], pa.string())
    out["unit"] = per_counter("unit")
    out["higher_is_better"] = pa.nulls(len(row), pa.bool_())
    import pyarrow.compute as pc

    # "path:line" of each sample once, and each row's by its sample's index
    lines = pc.cast(table.column("line").combine_chunks(), pa.string())
    sources = pc.binary_join_element_wise(pa.scalar(path), lines, ":")
    out["source"] = pa.DictionaryArray.from_arrays(pa.array(row.astype(np.int32)), sources)
    for key in ("p_device", "p_cpu"):
        if any(info[n].get(key) is not None for n in names):
            out[key] = per_counter(key)
    return pa.table(out)


def sample_filters(filters: list | None, sample_columns: Sequence[str]) -> list:
    """Return the conjunction's terms that only name sample columns (safe to push down)."""
    if not filters or not all(isinstance(f, tuple) for f in filters):
        return []
    return [f for f in filters if f[0] in sample_columns]


def counter_where(filters: list | None) -> dict[str, object]:
    """Return the conjunction's ``==``/``in`` terms on counter keys, for :func:`counters`."""
    if not filters or not all(isinstance(f, tuple) for f in filters):
        return {}
    out: dict[str, object] = {}
    for name, op, value in filters:
        if name in COUNTER_KEYS and op in ("==", "=", "in"):
            out[name] = list(value) if op == "in" else value
    return out


def filtered(table: pa.Table, filters: list | None) -> pa.Table:
    """Apply pyarrow-style filters to a long table; a column it lacks is null (matches nothing)."""
    if not filters:
        return table
    import pyarrow.parquet as pq

    terms = filters if all(isinstance(f, tuple) for f in filters) else [t for c in filters for t in c]
    for name, op, value in terms:
        if name not in table.column_names:
            example = next(iter(value), None) if op in ("in", "not in") else value
            kind = pa.scalar(example).type if example is not None else pa.string()
            table = table.append_column(name, pa.nulls(table.num_rows, kind))
    expr = pq.filters_to_expression(filters)
    return table.filter(expr)

