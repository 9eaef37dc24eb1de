"""Helpers shared by the parsers: the error type, number and unit conversion, the row builder.

A parser is a pure function ``parse(text: str, path: str) -> pandas.DataFrame`` returning
conformed tidy rows (see :mod:`overhead.schema`). It fills ``benchmark``, ``tool``, ``metric``,
``value``, ``unit``, ``higher_is_better``, ``source`` ("path:line"), ``raw`` and the ``p_*``
parameters the output itself states; ingest adds campaign, environment and the other context.
Every parser collects its rows in a :class:`Rows` builder and returns :meth:`Rows.frame`.

Rules every parser follows:

- a field the output does not contain produces no row (never a 0.0 in its place);
- malformed or truncated input raises :class:`ParseError` naming the path and line;
- complete parts of a truncated file still produce their rows, unless the format cannot tell
  a complete part from a truncated one, in which case the parser raises.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator, Mapping
from decimal import Decimal

import numpy as np
import pandas as pd

from overhead.errors import ParseError, RunFailed
from overhead.schema import MEASUREMENT_COLUMNS, PARSER_REQUIRED, SchemaError, conform

__all__ = [
    "BINARY_PREFIXES", "DECIMAL_PREFIXES", "JSON_DECODER", "JsonNumber", "ParseError", "Rows", "RunFailed",
    "CUT_SHORT", "NOTES", "cut_message", "cut_short", "cut_short_of", "end_cut_mid_line", "note", "notes_of", "integer", "json_line_map", "number", "numbered",
    "percent", "si_number", "size_bytes",
]

#: The ``DataFrame.attrs`` key under which a parser leaves what a file shows of a run that
#: failed after some of its results were complete (see :func:`cut_short`).
CUT_SHORT = "cut_short"


def cut_short(df: pd.DataFrame, path: str, line: int | None, what: str) -> pd.DataFrame:
    """Mark a parser's rows as the complete part of a run that then failed.

    A redis-benchmark whose server died during its second test, an HPL run interrupted after
    two of its tests, a qperf whose second test lost its server: the tests that finished are
    real results and are kept, but the run did not finish, and that must not vanish either.
    The rows carry the message ``path:line: the run was cut short: what`` in ``df.attrs``;
    ingest records the run as ``partial`` with it, the command line prints it on stderr with
    the rows on stdout (exit 0). A run that failed without any result raises
    :class:`RunFailed` instead (``path:line: the run did not finish: what``).

    Parameters
    ----------
    df : pandas.DataFrame
        The rows of the complete part (returned, marked).
    path, line, what
        As for :class:`RunFailed`: the file, the line that shows the failure, what it shows.
    """
    df.attrs[CUT_SHORT] = cut_message(path, line, what)
    return df


def cut_message(path: str, line: int | None, what: str) -> str:
    """Return :func:`cut_short`'s message, ``path:line: the run was cut short: what``."""
    where = f"{path}:{line}" if line is not None else path
    return f"{where}: the run was cut short: {what}"


def cut_short_of(df: pd.DataFrame) -> str | None:
    """Return what a parser's rows say of a run cut short after them (None: it finished)."""
    return df.attrs.get(CUT_SHORT)


#: The ``DataFrame.attrs`` key under which a parser lists values of a finished run it read but
#: could not keep, and how to give what they lack (see :func:`note`).
NOTES = "notes"


def note(df: pd.DataFrame, message: str) -> pd.DataFrame:
    """Say that values in the file were not kept, and how to keep them.

    A value is never dropped silently: a netperf ``-P 0`` rate whose unit (``-f``) is not in
    the file gives no row, and this message (``path:line: what was dropped; how to give
    it``), which the command line prints on stderr. The rows returned are still a finished
    run (this is not :func:`cut_short`).
    """
    df.attrs[NOTES] = [*df.attrs.get(NOTES, []), message]
    return df


def notes_of(df: pd.DataFrame) -> list[str]:
    """Return the notes of values a parser read but did not keep (see :func:`note`)."""
    return list(df.attrs.get(NOTES, []))


def end_cut_mid_line(df: pd.DataFrame, text: str, path: str, *, always: bool = False
                     ) -> pd.DataFrame | None:
    """Mark rows read from an unterminated last line: the capture stopped in that line.

    Every tool ends its lines; a file whose last line has no line end was cut while the tool
    wrote it, and a number in that line may have lost its last digits ("465.75" read as
    "46"). The rows read from that line are dropped and the rest is returned, marked cut short
    (:func:`cut_short`). A last line without its end that gave no row (a colour reset, a
    wrapper's "Done:" line) changes nothing, unless ``always``: for outputs whose every line
    ends (a wrapper's log), such a file was cut whatever the line held.

    Parameters
    ----------
    df : pandas.DataFrame
        The rows of the whole text (``source`` is "path:line").
    text : str
        The text they were read from.
    path : str
        Its name.
    always : bool
        Mark the rows even when the unterminated last line gave none.

    Returns
    -------
    pandas.DataFrame or None
        The rows without that line's, marked; None when the last line is whole, or gave no
        row and not ``always``.
    """
    if not text or text.endswith(("\n", "\r")) or df.empty:
        return None
    last = len(text.splitlines())
    cut = df["source"].astype(str).str.endswith(f":{last}")
    if not cut.any() and not always:
        return None
    kept = df.loc[~cut].reset_index(drop=True)
    kept.attrs.update(df.attrs)
    return cut_short(kept, path, last, "the last line has no line end (the capture stopped "
                     "mid-line): its values are not kept, the rows before it are")


def numbered(text: str) -> Iterator[tuple[int, str]]:
    """Yield the lines of ``text`` with their numbers.

    Parameters
    ----------
    text : str
        The whole output.

    Returns
    -------
    Iterator[tuple[int, str]]
        ``(line_number, line)`` pairs, numbered from 1, without line terminators.
    """
    yield from enumerate(text.splitlines(), start=1)


def number(token: str, path: str, line: int, what: str) -> float:
    """Read a finite float.

    "nan", "-nan" and "inf" are not numbers a benchmark measured: they raise too, so that the
    caller decides whether the field is absent.

    Parameters
    ----------
    token : str
        The number as printed.
    path, line : str, int
        Where it was read (for the error message).
    what : str
        What the number is (for the error message).

    Returns
    -------
    float
        The value.

    Raises
    ------
    ParseError
        When ``token`` is not a finite number.
    """
    try:
        if isinstance(token, str) and "_" in token:  # Python reads "39_4" as 394; no tool
            raise ValueError(token)                      # prints digits that way
        value = float(token)
    except (TypeError, ValueError):
        raise ParseError(path, line, f"{what}: expected a number, found {token!r}") from None
    if not math.isfinite(value):
        raise ParseError(path, line, f"{what}: {token!r} is not a finite number")
    return value


def percent(token: str, path: str, line: int, what: str) -> float:
    """Read a finite float printed with or without a trailing percent sign (``99.27%``).

    Parameters
    ----------
    token : str
        The number as printed; surrounding blanks and trailing ``%`` are ignored.
    path, line, what
        As for :func:`number`; the error message quotes ``token`` as printed.

    Returns
    -------
    float
        The value (``99.27`` for ``99.27%``).

    Raises
    ------
    ParseError
        When the rest is not a finite number.
    """
    tok = token.strip().rstrip("%")
    try:
        if "_" in tok:  # not a digit separator any tool prints (float() would accept it)
            raise ValueError(tok)
        value = float(tok)
    except ValueError:
        raise ParseError(path, line, f"{what}: expected a number, found {token!r}") from None
    if not math.isfinite(value):
        raise ParseError(path, line, f"{what}: {token!r} is not a finite number")
    return value


def integer(token, path: str, line: int, what: str, *, limit: int | None = None) -> int:
    """Read an int.

    Parameters
    ----------
    token : str or float
        The integer as printed (a JSON number is truncated like :class:`int` does).
    path, line, what
        As for :func:`number`.
    limit : int, optional
        Values with an absolute value of ``limit`` or more are out of range.

    Returns
    -------
    int
        The value.

    Raises
    ------
    ParseError
        When ``token`` is not an integer, or is out of range.
    """
    try:
        if isinstance(token, str) and "_" in token:  # int("3_9") is 39: not a tool's digits
            raise ValueError(token)
        value = int(token)
    except (TypeError, ValueError, OverflowError):
        raise ParseError(path, line, f"{what}: expected an integer, found {token!r}") from None
    if limit is not None and abs(value) >= limit:
        raise ParseError(path, line, f"{what}: {token!r} is out of range")
    return value


#: Decimal multipliers by lower-case prefix (k = 1000, as in fio's "12.4k" IOPS and "Mbps").
DECIMAL_PREFIXES = {"": 1, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12, "p": 1e15, "e": 1e18}
#: Binary multipliers by lower-case prefix, as fio, dstat and most Linux tools print sizes.
BINARY_PREFIXES = {"": 1, "b": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4, "p": 1024**5,
           "e": 1024**6}

_SI = re.compile(r"^([0-9]*\.?[0-9]+)([kKmMgG]?)$")
_SIZE = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([kKmMgGtTpPeE]?)(i?)"
                   r"(B|bit|b)?(/s)?\s*$")


def si_number(token: str, path: str, line: int, what: str) -> float:
    """Read a number with an optional decimal prefix: ``733``, ``12.4k``, ``1001.4K``.

    Parameters
    ----------
    token : str
        The number as printed; k/K, M, G mean 1e3, 1e6, 1e9 (fio's IOPS and latencies).
    path, line, what
        As for :func:`number`.

    Returns
    -------
    float
        The value.

    Raises
    ------
    ParseError
        When ``token`` is not such a number.
    """
    m = _SI.match(token.strip())
    if not m:
        raise ParseError(path, line, f"{what}: expected a number, found {token!r}")
    return float(m.group(1)) * DECIMAL_PREFIXES[m.group(2).lower()]


def size_bytes(token: str, path: str, line: int, what: str, *, binary: bool = True) -> float:
    """Convert a size or rate such as ``16384MB``, ``4K``, ``1.5GiB`` or ``48.5MiB/s`` to bytes.

    Parameters
    ----------
    token : str
        The size as printed. A trailing ``/s`` (a rate) is allowed and ignored; ``bit``
        counts bits (1/8 byte), ``B`` or ``b`` bytes.
    path, line, what
        As for :func:`number`.
    binary : bool
        Whether K/M/G... mean powers of 1024 (fio 2.x, dstat, sysbench) or of 1000. An ``i``
        (KiB) always means 1024.

    Returns
    -------
    float
        Bytes (bytes per second for a rate).

    Raises
    ------
    ParseError
        When ``token`` is not a size.
    """
    m = _SIZE.match(token)
    if not m:
        raise ParseError(path, line, f"{what}: expected a size, found {token!r}")
    table = BINARY_PREFIXES if (binary or m.group(3)) else DECIMAL_PREFIXES
    value = float(m.group(1)) * table[m.group(2).lower()]
    return value / 8.0 if m.group(4) == "bit" else value


# ---- the row builder --------------------------------------------------------------------------

#: Parameter dtypes by the kind of Python value a parameter column holds.
_KIND_OF_TYPE: dict[type, str] = {bool: "boolean", int: "Int64", float: "Float64", str: "string"}
_INT_LIMIT = 2**63
_STRING = "string"


def _kind(t: type) -> str | None:
    """Return the parameter dtype for values of type ``t``; None for absent values."""
    kind = _KIND_OF_TYPE.get(t)
    if kind is not None:
        return kind
    if t is type(None) or t is type(pd.NA):
        return None
    if issubclass(t, (bool, np.bool_)):
        return "boolean"
    if issubclass(t, (int, np.integer)):
        return "Int64"
    if issubclass(t, (float, np.floating, Decimal)):
        return "Float64"
    return _STRING  # str subclasses and anything else are stored as their text


def _param_dtype(kinds: set) -> str:
    """Choose one dtype for a parameter column whose values are of ``kinds``."""
    kinds.discard(None)
    if len(kinds) == 1:
        return kinds.pop()
    if kinds == {"Int64", "Float64"}:
        return "Float64"
    return _STRING  # nothing but NA, or mixed kinds: text


def _first_overflow(values) -> int | None:
    """Find the first whole number in ``values`` with an absolute value >= 2**63 (its index)."""
    ints = [v for v in values if type(v) is int]
    if not ints or (max(ints) < _INT_LIMIT and min(ints) > -_INT_LIMIT):
        return None
    return next(i for i, v in enumerate(values) if type(v) is int and abs(v) >= _INT_LIMIT)


def _repeat_string(value: str, n: int):
    """Build a string array holding ``value`` ``n`` times (no Python list of n items)."""
    return pd.array([value], dtype=_STRING).take(np.zeros(n, dtype=np.intp))


def _core_array(name: str, values: list):
    """Convert a core column's values (a list, None = NA) to an array of the schema's dtype."""
    dtype = MEASUREMENT_COLUMNS[name]
    if dtype == "float64":
        return np.asarray(values, dtype=np.float64)
    if dtype.startswith("datetime64"):
        return pd.to_datetime(pd.Series(values, dtype=object), utc=True).astype(dtype).array
    return pd.array(values, dtype=dtype)


def _param_array(values: list, dtype: str):
    """Convert a parameter column's values (a list, None = NA) to an array of ``dtype``."""
    if dtype == _STRING and any(type(v) is not str for v in values if v is not None):
        # mixed kinds: every value as its text, as pandas prints it
        return pd.Series(values, dtype=object).astype(_STRING).array
    return pd.array(values, dtype=dtype)


def _categorical(values: list, counts) -> pd.Categorical:
    """Repeat string ``values[i]`` ``counts[i]`` times, dictionary-encoded (None = NA)."""
    categories = list(dict.fromkeys(v for v in values if v is not None))
    index = {v: k for k, v in enumerate(categories)}
    codes = np.repeat(np.array([index.get(v, -1) for v in values], dtype=np.int32), counts)
    return pd.Categorical.from_codes(codes, categories=pd.Index(categories, dtype=_STRING),
                                     validate=False)


class Rows:
    """The tidy rows of one parse, stored column by column and typed once by :meth:`frame`.

    Rows are added one at a time with :meth:`add` or in blocks of typed arrays with
    :meth:`add_columns` (for monitor tables of millions of rows), not both in one builder.
    Values of ``None`` are absent: they never create a column, are NA in it, and never
    replace another value.

    Storage: each core column is a list with one item per row. Parameters usually come as a
    mapping shared by many rows (a job's, a test's or a run's): :meth:`add` keeps one copy of
    each distinct mapping and appends its number to a per-row list, so a row costs a few list
    appends whatever the number of parameters. Values given per row (keyword arguments and
    :meth:`fill`) are kept in per-column lists. :meth:`frame` turns all of it into typed
    columns at once.

    Typing: core columns get the dtypes of :data:`overhead.schema.MEASUREMENT_COLUMNS`. Each
    parameter column ``p_*`` gets one dtype from the Python values it holds: bool ->
    ``boolean``, int -> ``Int64``, float (or int mixed with float) -> ``Float64``, str ->
    ``string``; other mixtures become ``string`` (each value's text). A whole number whose
    absolute value is 2**63 or more raises ParseError at its row's line: it is a corrupted
    number, not a value.

    Parameters
    ----------
    path : str
        The input's name, used in ``source`` ("path:line") and in errors.
    dtypes : Mapping[str, str], optional
        Parameter columns that are always present (all NA when no row sets them), with their
        dtype, so that frames of a cut output and of the whole one have the same columns.
    **constants
        Columns with the same value on every row (``benchmark``, ``tool``, ``tool_version``...);
        None leaves the column out. They cost no Python list per row.

    Examples
    --------
    >>> rows = Rows("x.log", benchmark="stream", tool="stream")
    >>> rows.add(3, "bandwidth", 1.2e9, "B/s", True, "1.2 GB/s", p_kernel="copy")
    >>> rows.frame()[["metric", "value", "source", "p_kernel"]]
          metric         value   source p_kernel
    0  bandwidth  1.200000e+09  x.log:3     copy
    """

    __slots__ = ("path", "_constants", "_dtypes", "_line", "_metric", "_value", "_unit", "_hib",
                 "_raw", "_shared_of_row", "_shared", "_last_given", "_last_shared", "_columns",
                 "_blocks")

    def __init__(self, path: str, *, dtypes: Mapping[str, str] | None = None, **constants):
        self.path = path
        self._constants = {k: v for k, v in constants.items() if v is not None}
        self._dtypes = dict(dtypes or {})
        self._line: list[int] = []
        self._metric: list[str] = []
        self._value: list[float] = []
        self._unit: list[str] = []
        self._hib: list[bool | None] = []
        self._raw: list[str | None] = []
        self._shared_of_row: list[int] = []  # per row: index into _shared (0: no parameters)
        self._shared: list[dict] = [{}]  # copies of the distinct parameter mappings given
        self._last_given: Mapping | None = None  # the mapping _shared[-1] was copied from
        self._last_shared = 0
        self._columns: dict[str, list] = {}  # per-row values, padded with None when read
        self._blocks: list[tuple[int, dict]] = []

    def __len__(self) -> int:
        """Return the number of rows added so far."""
        return len(self._line) + sum(n for n, _ in self._blocks)

    def add(self, line: int, metric: str, value: float, unit: str, hib: bool | None,
            raw: str | None, params: Mapping[str, object] | None = None, /, **more) -> None:
        """Append one row.

        Parameters
        ----------
        line : int
            1-based line of ``path`` the value was read from (the row's ``source``).
        metric, value, unit, hib, raw
            The ``metric``, ``value``, ``unit``, ``higher_is_better`` and ``raw`` columns.
        params : Mapping[str, object], optional
            Further columns of this row: ``p_*`` parameters and optional core columns
            (``trial``, ``started_at``, ``host``, ``tool_version``...). Its values are read
            now; pass the same mapping to consecutive rows that share it.
        **more
            More columns of this row only; they take precedence over ``params``.
        """
        if more:
            self._more(len(self._line), more)
        self._line.append(line)
        self._metric.append(metric)
        self._value.append(value)
        self._unit.append(unit)
        self._hib.append(hib)
        self._raw.append(raw)
        if not params:
            self._shared_of_row.append(0)
        elif params is self._last_given and params == self._shared[self._last_shared]:
            self._shared_of_row.append(self._last_shared)
        else:
            self._shared.append(dict(params))
            self._last_given = params
            self._last_shared = len(self._shared) - 1
            self._shared_of_row.append(self._last_shared)

    def _more(self, n: int, more: dict) -> None:
        """Store the per-row values ``more`` of row ``n``."""
        columns = self._columns
        for name, v in more.items():
            if v is None:
                continue
            col = columns.get(name)
            if col is None:
                columns[name] = col = [None] * n
            elif len(col) < n:
                col.extend([None] * (n - len(col)))
            col.append(v)

    def fill(self, name: str, value: object, start: int = 0, stop: int | None = None) -> None:
        """Set column ``name`` to ``value`` on rows ``start`` to ``stop`` already added.

        For what an output states after the rows it applies to (a run's validation, a
        report's parameters, the tool version printed at the end). It takes precedence over
        the values :meth:`add` was given.

        Parameters
        ----------
        name : str
            The column.
        value : object
            Its value on those rows (None: no change).
        start, stop : int, optional
            The row range, as a slice; by default every row added so far.
        """
        stop = len(self._line) if stop is None else stop
        if value is None or stop <= start:
            return
        col = self._columns.get(name)
        if col is None:
            self._columns[name] = col = []
        if len(col) < stop:
            col.extend([None] * (stop - len(col)))
        col[start:stop] = [value] * (stop - start)

    def add_columns(self, line, metric, value, unit, hib, raw, /, **columns) -> None:
        """Append a block of rows given as arrays (the bulk path of monitor parsers).

        Every argument is either one value for the whole block or an array with one value per
        row (numpy arrays of the column's kind; ``raw`` may be a pyarrow string array). In
        :meth:`frame`, core string columns given as one value per block are stored as string
        Categoricals (codes only: millions of rows share a few strings) and ``source`` as a
        Categorical of the distinct lines; parameters get the usual parameter dtypes.

        Parameters
        ----------
        line : numpy.ndarray
            The rows' 1-based line numbers (its length is the block's).
        metric, value, unit, hib, raw
            As for :meth:`add`.
        **columns
            Further columns, as for :meth:`add`.
        """
        block = {"metric": metric, "value": value, "unit": unit, "higher_is_better": hib,
                 "raw": raw}
        block.update(columns)
        block = {k: v for k, v in block.items() if v is not None}
        block["line"] = np.asarray(line, dtype=np.int64)
        self._blocks.append((len(block["line"]), block))

    # -- the frame -----------------------------------------------------------------------------
    def frame(self) -> pd.DataFrame:
        """Build the conformed measurements frame of the rows added so far.

        Returns
        -------
        pandas.DataFrame
            Every core column in its schema dtype, then the sorted ``p_*`` columns (see
            :func:`overhead.schema.conform`); with no rows, the empty frame of the core columns.

        Raises
        ------
        ParseError
            When a whole-number parameter does not fit a 64-bit integer (naming its row's line).
        ValueError
            When rows were added both one by one and in blocks, or a constant column is also
            given per row.
        """
        if self._blocks:
            if self._line:
                raise ValueError("a Rows builder takes rows one by one or in blocks, not both")
            return self._block_frame()
        n = len(self._line)
        if not n:
            return conform(pd.DataFrame({c: [] for c in PARSER_REQUIRED}))
        per_row = self._per_row_columns(n)
        twice = set(self._constants) & set(per_row)
        if twice:
            raise ValueError(f"column(s) {sorted(twice)} given both as constants and per row")
        data: dict[str, object] = {}
        for name, v in self._constants.items():
            data[name] = (_repeat_string(v, n) if MEASUREMENT_COLUMNS.get(name) == _STRING
                          else self._typed(name, [v] * n))
        prefix = self.path + ":"
        data["metric"] = pd.array(self._metric, dtype=_STRING)
        data["value"] = np.asarray(self._value, dtype=np.float64)
        data["unit"] = pd.array(self._unit, dtype=_STRING)
        data["higher_is_better"] = pd.array(self._hib, dtype="boolean")
        data["source"] = pd.array([prefix + str(k) for k in self._line], dtype=_STRING)
        data["raw"] = pd.array(self._raw, dtype=_STRING)
        for name, values in per_row.items():
            data[name] = self._typed(name, values)
        return self._assemble(data, n)

    def _assemble(self, data: dict[str, object], n: int) -> pd.DataFrame:
        """Lay typed columns out as :func:`overhead.schema.conform` would, in one step.

        Core columns in schema order (the missing ones all NA), then the sorted parameters
        (declared ones all NA when no row set them). The columns are typed already, so conform
        itself would only copy them.
        """
        extra = [c for c in data if c not in MEASUREMENT_COLUMNS and not c.startswith("p_")]
        if extra:
            raise SchemaError(f"unknown column(s) {extra}; parameters must be named p_<name>")
        out: dict[str, object] = {}
        for name, dtype in MEASUREMENT_COLUMNS.items():
            col = data.get(name)
            if col is None:
                col = (np.full(n, np.nan) if dtype == "float64"
                       else pd.Series(pd.NA, index=pd.RangeIndex(n), dtype=dtype).array)
            out[name] = col
        for name, dtype in self._dtypes.items():
            if name not in data:
                data[name] = pd.array([None] * n, dtype=dtype)
        for name in sorted(c for c in data if c.startswith("p_")):
            out[name] = data[name]
        return pd.DataFrame(out)

    def _per_row_columns(self, n: int) -> dict[str, list]:
        """Give every column other than the fixed ones as a list of one value per row."""
        out: dict[str, list] = {}
        shared = self._shared
        if len(shared) > 1:
            which = np.asarray(self._shared_of_row, dtype=np.intp)
            for name in dict.fromkeys(k for d in shared for k in d):
                by_mapping = [d.get(name) for d in shared]
                if any(v is not None for v in by_mapping):
                    values = np.empty(len(shared), dtype=object)
                    values[:] = by_mapping
                    out[name] = values[which].tolist()
        for name, col in self._columns.items():
            if len(col) < n:
                col.extend([None] * (n - len(col)))
            base = out.get(name)
            out[name] = col if base is None else [
                b if v is None else v for v, b in zip(col, base, strict=True)]
        return out

    def _typed(self, name: str, values: list, lines=None):
        """Type column ``name`` (one value per row; ``lines``: the rows' lines)."""
        if name in MEASUREMENT_COLUMNS:
            return _core_array(name, values)
        if not name.startswith("p_"):
            return values  # _assemble names the unknown column
        types = set(map(type, values))
        kinds = {_kind(t) for t in types}
        if int in types:
            bad = _first_overflow(values)
            if bad is not None:
                line = (self._line if lines is None else lines)[bad]
                raise ParseError(self.path, int(line), f"{name[2:]} {values[bad]} is out of range")
        return _param_array(values, self._dtypes.get(name) or _param_dtype(kinds))

    def _block_frame(self) -> pd.DataFrame:
        """Build the frame of rows added with :meth:`add_columns`."""
        blocks = self._blocks
        total = sum(n for n, _ in blocks)
        lines = np.concatenate([b["line"] for _, b in blocks])
        data: dict[str, object] = {"source": self._sources(lines)}
        names = [*self._constants, *dict.fromkeys(k for _, b in blocks for k in b if k != "line")]
        for name in names:
            if name in self._constants:
                pieces = [(n, self._constants[name]) for n, _ in blocks]
            else:
                pieces = [(n, b.get(name)) for n, b in blocks]
            data[name] = self._block_column(name, pieces, total, lines)
        return self._assemble(data, total)

    def _sources(self, lines: np.ndarray) -> pd.Categorical:
        """Give ``path:line`` for every row, as a Categorical over the distinct lines."""
        lo = int(lines.min())
        seen = np.zeros(int(lines.max()) - lo + 1, dtype=bool)
        seen[lines - lo] = True
        code_of = np.cumsum(seen, dtype=np.int64) - 1
        categories = [f"{self.path}:{k}" for k in (np.flatnonzero(seen) + lo).tolist()]
        return pd.Categorical.from_codes(code_of[lines - lo].astype(np.int32),
                                         categories=pd.Index(categories, dtype=_STRING),
                                         validate=False)

    def _block_column(self, name: str, pieces: list[tuple[int, object]], total: int,
                      lines: np.ndarray):
        """Build one column from its per-block pieces: None, one value, or an array per block."""
        counts = [n for n, _ in pieces]
        values = [p for _, p in pieces]
        dtype = MEASUREMENT_COLUMNS.get(name)
        if dtype is not None and dtype.startswith("datetime64"):
            return _block_datetimes(pieces, total)
        if not any(map(_is_array, values)):  # one value per block
            if dtype == _STRING:
                return _categorical(values, counts)
            fast = _repeated(values, counts, dtype or self._dtypes.get(name))
            if fast is not None:
                return fast
            return self._typed(name, np.repeat(np.array(values, dtype=object), counts).tolist(),
                               lines)
        if name == "raw" and all(hasattr(p, "type") for p in values):  # pyarrow arrays
            import pyarrow as pa

            return pd.arrays.ArrowStringArray(pa.concat_arrays(values))
        if all(isinstance(p, np.ndarray) and p.dtype.kind in "biuf" for p in values):
            joined = np.concatenate(values)
            if dtype == "float64":
                return joined.astype(np.float64, copy=False)
            kind = {"b": "boolean", "f": "Float64"}.get(joined.dtype.kind, "Int64")
            return _masked(joined, np.zeros(total, dtype=bool), dtype or self._dtypes.get(name)
                           or kind)
        per_row = [np.asarray(p, dtype=object) if _is_array(p)
                   else np.full(n, p, dtype=object) for n, p in pieces]
        return self._typed(name, np.concatenate(per_row).tolist(), lines)


def _is_array(value) -> bool:
    """Tell whether a block's piece gives one value per row (not one for the block)."""
    return hasattr(value, "__len__") and not isinstance(value, str)


def _masked(values: np.ndarray, mask: np.ndarray, dtype: str):
    """Wrap a numpy array as a nullable ``dtype`` (boolean, Int64 or Float64) array."""
    if dtype == "boolean":
        return pd.arrays.BooleanArray(values.astype(bool, copy=False), mask)
    if dtype == "Int64":
        return pd.arrays.IntegerArray(values.astype(np.int64, copy=False), mask)
    values = values.astype(np.float64, copy=False)
    return pd.arrays.FloatingArray(values, mask | np.isnan(values))


def _repeated(values: list, counts: list[int], dtype: str | None):
    """Repeat ``values[i]`` ``counts[i]`` times in a nullable boolean, Int64 or Float64 array.

    Returns None when the values are not all of one such kind (or None).
    """
    kinds = {_kind(type(v)) for v in values}
    kinds.discard(None)
    kind = dtype or (next(iter(kinds)) if len(kinds) == 1 else None)
    if kind not in ("boolean", "Int64", "Float64") or kinds - {kind} or any(
            type(v) is int and abs(v) >= _INT_LIMIT for v in values):
        return None
    absent = [v is None for v in values]
    filled = np.array([0 if a else v for v, a in zip(values, absent, strict=True)],
                      dtype={"boolean": bool, "Int64": np.int64, "Float64": np.float64}[kind])
    return _masked(np.repeat(filled, counts), np.repeat(np.array(absent, dtype=bool), counts), kind)


def _block_datetimes(pieces: list[tuple[int, object]], total: int):
    """Build a UTC timestamp column from per-block pieces.

    A piece is None, a Timestamp, or an array of naive UTC datetime64 values.
    """
    stamps = np.full(total, np.datetime64("NaT"), dtype="datetime64[ns]")
    at = 0
    for n, p in pieces:
        if p is not None:
            if _is_array(p):
                stamps[at:at + n] = p
            else:
                stamps[at:at + n] = np.datetime64(pd.Timestamp(p).tz_convert("UTC")
                                                  .tz_localize(None).to_datetime64(), "ns")
        at += n
    return pd.DatetimeIndex(stamps).tz_localize("UTC").array


# ---- JSON with the text and line of every value ----------------------------------------------

class JsonNumber(float):
    """A JSON number that remembers the text the tool printed for it (``tok``)."""

    tok: str


def _json_number(token: str) -> JsonNumber:
    """Build a JsonNumber from the token the decoder found."""
    n = JsonNumber(token)
    n.tok = token
    return n


#: json's decoder with numbers kept as JsonNumber and NaN/Infinity read as absent (None).
JSON_DECODER = json.JSONDecoder(parse_float=_json_number, parse_int=_json_number,
                                parse_constant=lambda _tok: None)
_JSON_KEY = re.compile(r'^"((?:[^"\\]|\\.)*)"\s*:\s*(.*)$')


def json_line_map(lines: list[str], first: int, last: int) -> dict[tuple, int]:
    """Map JSON paths (keys and list indices) to 1-based line numbers.

    Works for the pretty-printed layout of one value per line that fio and hyperfine write;
    other layouts just give fewer entries: look a path up, then its parents.

    Parameters
    ----------
    lines : list[str]
        The lines of the whole text.
    first, last : int
        0-based indices of the document's first and last lines in ``lines``.

    Returns
    -------
    dict[tuple, int]
        JSON path (a tuple of keys and list indices; ``()`` for the document) -> line number.
    """
    out: dict[tuple, int] = {}
    stack: list[list] = []  # [name, is_list, next_index]
    for idx in range(first, last + 1):
        s = lines[idx].strip()
        lineno = idx + 1
        m = _JSON_KEY.match(s)
        if m and stack:
            key = m.group(1).replace('\\"', '"').replace("\\\\", "\\")
            rest = m.group(2).rstrip(",").strip()
            path = tuple(e[0] for e in stack[1:]) + (key,)
            out[path] = lineno
            if rest in ("{", "["):
                stack.append([key, rest == "[", 0])
            continue
        bare = s.rstrip(",").strip()
        if bare in ("{", "["):
            if not stack:
                stack.append([None, bare == "[", 0])
                out[()] = lineno
            elif stack[-1][1]:
                i = stack[-1][2]
                stack[-1][2] += 1
                out[tuple(e[0] for e in stack[1:]) + (i,)] = lineno
                stack.append([i, bare == "[", 0])
            continue
        if s.startswith(("}", "]")) and stack:
            stack.pop()
            continue
        if bare and stack and stack[-1][1]:  # a scalar element of a list (hyperfine's "times")
            i = stack[-1][2]
            stack[-1][2] += 1
            out[tuple(e[0] for e in stack[1:]) + (i,)] = lineno
    return out
