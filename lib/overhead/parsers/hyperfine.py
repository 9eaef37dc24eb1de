"""hyperfine: its ``--export-json``, ``--export-csv`` and ``--export-markdown`` files and its text report.

**JSON** (``hyperfine --export-json out.json ...``; hyperfine 1.15 as Debian ships it writes, per
command, ``command``, ``mean``, ``stddev``, ``median``, ``user``, ``system``, ``min``, ``max``,
``times``, ``exit_codes`` and, for ``-P``/``-L`` scans, ``parameters``; every time in seconds).
Rows per command:

- ``wall_time`` (s), one per entry of ``times``, ``trial`` = its 1-based index, with
  ``p_exit_code`` from ``exit_codes`` (a non-zero code is kept: ``hyperfine -i`` records failing
  runs and so does this parser);
- ``wall_time_mean``, ``wall_time_sd`` (``stddev``), ``wall_time_min``, ``wall_time_max`` (s) and
  ``wall_time_percentile`` with ``p_percentile`` = 50 (``median``): hyperfine's own summary;
- ``user_time_mean``, ``system_time_mean`` (s): hyperfine 1.15 writes ``user``/``system`` as the
  mean over runs (one number). Should a later version write one value per run (a list), they
  become per-trial ``user_time``/``system_time`` rows instead.

Every row of a command carries ``p_command``, ``p_runs`` (number of timed runs),
``p_failed_runs`` (runs with a non-zero exit code; absent without ``exit_codes``),
``p_percentile`` (NA except on the median row) and one
``p_<name>`` per entry of ``parameters`` (a value such as "1" or "0.5" becomes a number, others
stay strings). A ``null`` (``stddev`` of a single run) gives no row. ``raw`` is the number exactly
as written in the file and ``source`` its line.

**CSV** (``--export-csv``; header ``command,mean,stddev,median,user,system,min,max`` then one
``parameter_<name>`` column per ``-P``/``-L`` parameter; every time in seconds, whatever
``--time-unit`` says): per command the JSON export's summary rows under the same names
(``wall_time_mean``, ``wall_time_sd``, ``wall_time_percentile`` with p_percentile 50,
``wall_time_min``, ``wall_time_max``, ``user_time_mean``, ``system_time_mean``), with
``p_command`` and ``p_<name>`` per parameter. The CSV has no run count and no single times:
no p_runs, no ``wall_time`` rows.

**Markdown** (``--export-markdown``)::

    | Command | Mean [ms] | Min [ms] | Max [ms] | Relative |
    |:---|---:|---:|---:|---:|
    | `sleep 0.01` | 11.5 ± 0.1 | 11.3 | 11.5 | 211.52 ± 317.80 |

Each column's unit is in its header (ms by default, s with ``--time-unit second``; µs and ns
are read too): ``wall_time_mean`` and ``wall_time_sd`` (the "± sd" part), ``wall_time_min``,
``wall_time_max`` in seconds, ``p_command`` without its backquotes. "Relative" is a ratio of the
means (like the text summary) and is not read.

**Text report** (what hyperfine prints; ``--style basic``, or the same text copied from a
terminal)::

    Benchmark 1: sleep 0.01
      Time (mean ± σ):      11.2 ms ±   0.1 ms    [User: 1.1 ms, System: 0.0 ms]
      Range (min … max):    11.2 ms …  11.3 ms    5 runs

Rows per benchmark: ``wall_time_mean``, ``wall_time_sd``, ``user_time_mean``,
``system_time_mean`` (from the Time line; a single run prints ``Time (abs ≡):`` and gives
``wall_time_mean`` without ``_sd``), ``wall_time_min``, ``wall_time_max`` (Range line), all in
seconds (hyperfine prints s, ms or µs). Parameters: ``p_command`` (as printed after
``Benchmark N:``), ``p_runs`` (Range line; 1 for ``abs ≡``), ``p_nonzero_exit`` = True when
hyperfine warned "Ignoring non-zero exit code" for that benchmark. The ``Summary`` block
("... times faster than ...") is not read: it is a ratio of the means above. A benchmark that
hyperfine aborted (``Error: Command terminated with non-zero exit code``) prints no times and
gives no rows; text with no Time line at all raises ParseError (quoting hyperfine's error when
there is one). Other lines (warnings, shell prompts) are skipped.

**Cut short** (text report): each run of hyperfine (its benchmarks numbered from
``Benchmark 1:``) prints every benchmark's Time line and, after ``Time (mean ± σ)``, its
Range line; a run of two benchmarks or more closes with its ``Summary``: "'<fastest>' ran"
and one "... times faster than ..." line per other benchmark. A capture without them (a
benchmark header without its times and no error, a Time line without its Range line, a
Summary missing or short of lines) keeps its rows marked cut short, and so does a last line
without its line end (hyperfine ends every line). A single benchmark cut after its Range
line is the whole output of a one-command run: nothing tells them apart.
"""

from __future__ import annotations

import json
import re
from typing import NamedTuple

import pandas as pd

from overhead.parsers._common import (
    JSON_DECODER,
    JsonNumber,
    ParseError,
    Rows,
    RunFailed,
    cut_short,
    end_cut_mid_line,
    integer,
    json_line_map,
    number,
    numbered,
)

TOOL = "hyperfine"
BENCHMARK = "hyperfine"

_UNITS = {"s": 1.0, "ms": 1e-3, "µs": 1e-6, "μs": 1e-6, "us": 1e-6, "ns": 1e-9}
_Q = r"(\S+) (s|ms|µs|μs|us|ns)"  # a quantity as hyperfine prints it: "11.2 ms"
_BENCH = re.compile(r"^Benchmark #?(\d+): (.*?)\s*$")
_TIME_MEAN = re.compile(
    rf"^Time \(mean ± σ\):\s+{_Q}\s+±\s+{_Q}\s+\[User: {_Q}, System: {_Q}\]$")
_CSV_HEADER = "command,mean,stddev,median,user,system,min,max"
_TIME_ABS = re.compile(rf"^Time \(abs ≡\):\s+{_Q}\s+\[User: {_Q}, System: {_Q}\]$")
_FASTER = re.compile(r"^\S+(?: ± \S+)? times faster than ")
_RANGE = re.compile(rf"^Range \(min … max\):\s+{_Q}\s+…\s+{_Q}\s+(\d+) runs?$")


def detect(text: str) -> float:
    """Tell whether ``text`` is hyperfine output (JSON, CSV or Markdown export, text report).

    Returns a confidence from 0 (not hyperfine output) to 1.
    """
    head = text[:20000]
    first = head.lstrip().split("\n", 1)[0].rstrip()
    if first.startswith(_CSV_HEADER) or _MD_HEADER.match(first):
        return 1.0
    if "Time (mean ± σ):" in head or "Time (abs ≡):" in head:
        return 1.0
    if head.lstrip().startswith("{") and '"results"' in head and '"times"' in head \
            and '"command"' in head:
        return 1.0
    if re.search(r"^Benchmark #?\d+: ", head, re.M) and "Error: " in head:
        return 0.5  # hyperfine aborted: let its parser report the error
    return 0.0


def parse(text: str, path: str = "<string>") -> pd.DataFrame:
    """Parse a hyperfine JSON export or text report into tidy rows.

    Follows the parser contract of :mod:`overhead.parsers` (text and path in, conformed
    tidy rows out); the rows are described in the module docstring.

    Raises
    ------
    ParseError
        For malformed or truncated JSON, a JSON document that is not a hyperfine export, a
        malformed Time/Range line, text with no hyperfine result at all, or a whole-number
        parameter out of the 64-bit range.
    """
    if text.lstrip().startswith("{"):
        return _parse_json(text, path)
    first = text.lstrip().split("\n", 1)[0].rstrip()
    if first.startswith(_CSV_HEADER):
        return _parse_csv(text, path)
    if _MD_HEADER.match(first):
        return _parse_markdown(text, path)
    return _parse_text(text, path)


# --------------------------------------------------------------------------- CSV export

#: CSV column -> (metric, extra parameters), the names the JSON export gives the same figures
_CSV_METRICS = {
    "mean": ("wall_time_mean", {}), "stddev": ("wall_time_sd", {}),
    "median": ("wall_time_percentile", {"p_percentile": 50.0}),
    "user": ("user_time_mean", {}), "system": ("system_time_mean", {}),
    "min": ("wall_time_min", {}), "max": ("wall_time_max", {}),
}


def _parse_csv(text: str, path: str) -> pd.DataFrame:
    """Parse an ``--export-csv`` file: one row per command, every time in seconds."""
    import csv

    rows = Rows(path, benchmark=BENCHMARK, tool=TOOL, dtypes={"p_percentile": "Float64"})
    lines = text.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.strip())
    # csv handles the quoting hyperfine applies to commands holding commas or quotes; a
    # record spanning lines (a command with a newline) is refused, as its line is unclear
    header = None
    for idx in range(start, len(lines)):
        lineno = idx + 1
        if not lines[idx].strip():
            continue
        try:
            (fields,) = list(csv.reader([lines[idx]], strict=True))
        except (csv.Error, ValueError):
            raise ParseError(path, lineno, "malformed hyperfine CSV line") from None
        if header is None:
            header = fields
            unknown = [h for h in header if h not in _CSV_METRICS and h != "command"
                       and not h.startswith("parameter_")]
            if unknown:
                raise ParseError(path, lineno, f"unknown hyperfine CSV column(s) {unknown}")
            continue
        if len(fields) != len(header):
            raise ParseError(path, lineno, f"hyperfine CSV line has {len(fields)} fields, its "
                             f"header (line {start + 1}) {len(header)}")
        ctx: dict = {}
        for name, value in zip(header, fields, strict=True):
            if name == "command":
                ctx["p_command"] = value
            elif name.startswith("parameter_") and value != "":
                ctx[_param_name(name[len("parameter_"):])] = _param_value(value)
        for name, value in zip(header, fields, strict=True):
            if name in _CSV_METRICS and value != "":
                metric, extra = _CSV_METRICS[name]
                rows.add(lineno, metric, number(value, path, lineno, name), "s", False, value,
                         ctx, **extra)
    return rows.frame()


# --------------------------------------------------------------------------- Markdown export

_MD_HEADER = re.compile(r"^\|\s*Command\s*\|\s*Mean \[(s|ms|µs|μs|us|ns)\]\s*\|")
_MD_CELL = re.compile(r"^(?P<mean>\S+)(?:\s+±\s+(?P<sd>\S+))?$")
_MD_COLUMNS = {"Mean": "wall_time_mean", "Min": "wall_time_min", "Max": "wall_time_max"}


def _parse_markdown(text: str, path: str) -> pd.DataFrame:
    """Parse an ``--export-markdown`` table (every time in the unit its header states)."""
    rows = Rows(path, benchmark=BENCHMARK, tool=TOOL)
    columns: list[tuple[str, str | None]] | None = None  # (name, unit) per column
    for lineno, line in numbered(text):
        stripped = line.strip()
        if not stripped:
            continue
        if not (stripped.startswith("|") and stripped.endswith("|")):
            raise ParseError(path, lineno, "expected a Markdown table row '| ... |'")
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", stripped[1:-1])]
        if columns is None:
            columns = []
            for cell in cells:
                m = re.fullmatch(r"(\w+)(?: \[(\S+)\])?", cell)
                if not m or (m.group(2) is not None and m.group(2) not in _UNITS):
                    raise ParseError(path, lineno, f"unexpected hyperfine Markdown column {cell!r}")
                columns.append((m.group(1), m.group(2)))
            continue
        if re.fullmatch(r"[:\-| ]+", stripped):
            continue  # the alignment row
        if len(cells) != len(columns):
            raise ParseError(path, lineno, f"hyperfine Markdown row has {len(cells)} cells, its "
                             f"header {len(columns)}")
        ctx: dict = {}
        for (name, _unit), cell in zip(columns, cells, strict=True):
            if name == "Command":
                ctx["p_command"] = cell[1:-1] if len(cell) > 1 and cell[0] == cell[-1] == "`" else cell
        for (name, unit), cell in zip(columns, cells, strict=True):
            if name not in _MD_COLUMNS or unit is None:
                continue  # Command, and Relative (a ratio of the means, as in the text summary)
            m = _MD_CELL.match(cell)
            if not m:
                raise ParseError(path, lineno, f"{name} [{unit}]: expected '<t>[ ± <sd>]', found {cell!r}")
            rows.add(lineno, _MD_COLUMNS[name], _seconds(m.group("mean"), unit, path, lineno, name),
                     "s", False, f"{m.group('mean')} {unit}", ctx)
            if m.group("sd") is not None and name == "Mean":
                rows.add(lineno, "wall_time_sd", _seconds(m.group("sd"), unit, path, lineno, "±"),
                         "s", False, f"± {m.group('sd')} {unit}", ctx)
    return rows.frame()


# --------------------------------------------------------------------------- text report


def _seconds(value: str, unit: str, path: str, lineno: int, what: str) -> float:
    """Read a quantity printed in ``unit`` as seconds."""
    return number(value, path, lineno, what) * _UNITS[unit]


def _parse_text(text: str, path: str) -> pd.DataFrame:
    """Parse the text report."""
    rows = Rows(path, benchmark=BENCHMARK, tool=TOOL)
    block = 0  # first row of the benchmark in progress
    ctx: dict = {}
    error: tuple[int, str] | None = None
    seen_time = False
    # what each run (its benchmarks numbered from 1) showed of its end: [first line, benchmarks
    # with times, line of its Summary or None, "times faster" lines]; and the benchmark in
    # progress: [its header's line and text, its Time line's kind ("mean"/"abs"/None), Range?]
    runs: list[list] = []
    bench: list | None = None
    unended: list[tuple[int, str]] = []  # (line, what) of benchmarks that stopped early

    def end_bench() -> None:
        """Note the benchmark in progress if it stopped before its Range line."""
        if bench is None:
            return
        (hn, header), kind, ranged = bench
        if kind == "mean" and not ranged:
            unended.append((hn, f"{header!r} has its Time line but not its Range line"))
        elif kind is None and error is None:
            unended.append((hn, f"{header!r} has no times (and hyperfine printed no error)"))

    def close() -> None:
        nonlocal block
        for name, value in ctx.items():
            rows.fill(name, value, block)
        block = len(rows)

    def add(lineno: int, metric: str, value: float, raw: str) -> None:
        rows.add(lineno, metric, value, "s", False, raw)

    for lineno, line in numbered(text):
        stripped = line.strip()
        b = _BENCH.match(stripped)
        if b:
            close()
            end_bench()
            if b.group(1) == "1" or not runs:
                runs.append([lineno, 0, None, 0])
            bench = [(lineno, stripped), None, False]
            ctx = {"p_command": b.group(2)} if b.group(2) else {}
            continue
        if stripped == "Summary":
            close()
            end_bench()
            bench = None
            if runs:
                runs[-1][2] = lineno
            ctx = {}
            continue
        if runs and runs[-1][2] is not None and _FASTER.match(stripped):
            runs[-1][3] += 1
            continue
        if stripped.startswith("Error:") and error is None:
            error = (lineno, stripped)
            continue
        if stripped.startswith("Warning: Ignoring non-zero exit code"):
            ctx["p_nonzero_exit"] = True
            continue
        if stripped.startswith("Time ("):
            m = _TIME_MEAN.match(stripped)
            a = _TIME_ABS.match(stripped)
            if not (m or a):
                raise ParseError(path, lineno, "malformed Time line (expected 'Time (mean ± σ): "
                                 f"<t> <unit> ± <sd> <unit> [User: ..., System: ...]'): {stripped!r}")
            if len(rows) > block:  # a second Time line without a new "Benchmark" header
                close()
            seen_time = True
            if bench is not None:
                bench[1] = "mean" if m else "abs"
                runs[-1][1] += 1
            g = (m or a).groups()
            add(lineno, "wall_time_mean", _seconds(g[0], g[1], path, lineno, "mean time"),
                f"{g[0]} {g[1]}")
            rest = g[2:]
            if m:
                add(lineno, "wall_time_sd", _seconds(g[2], g[3], path, lineno, "σ"),
                    f"± {g[2]} {g[3]}")
                rest = g[4:]
            else:
                ctx["p_runs"] = 1
            add(lineno, "user_time_mean", _seconds(rest[0], rest[1], path, lineno, "User"),
                f"User: {rest[0]} {rest[1]}")
            add(lineno, "system_time_mean", _seconds(rest[2], rest[3], path, lineno, "System"),
                f"System: {rest[2]} {rest[3]}")
            continue
        if stripped.startswith("Range ("):
            r = _RANGE.match(stripped)
            if not r:
                raise ParseError(path, lineno, "malformed Range line (expected 'Range (min … max): "
                                 f"<min> <unit> … <max> <unit> <n> runs'): {stripped!r}")
            g = r.groups()
            add(lineno, "wall_time_min", _seconds(g[0], g[1], path, lineno, "min"), f"{g[0]} {g[1]}")
            add(lineno, "wall_time_max", _seconds(g[2], g[3], path, lineno, "max"), f"{g[2]} {g[3]}")
            ctx["p_runs"] = integer(g[4], path, lineno, "runs")
            if bench is not None:
                bench[2] = True
            continue
    close()
    end_bench()
    if not seen_time:
        if error is not None:
            raise RunFailed(path, error[0], f"hyperfine reported an error and no result: {error[1]}")
        raise ParseError(path, None, "no hyperfine result found (no 'Time (mean ± σ):' line and "
                         "not a JSON, CSV or Markdown export)")
    df = rows.frame()
    cut = end_cut_mid_line(df, text, path, always=True)  # hyperfine ends every line
    if cut is not None:
        return cut
    if unended:
        line, what = unended[0]
        return cut_short(df, path, line, f"benchmark {what}: the capture ends before it "
                         "finished; the benchmarks before it are kept")
    for first, timed, summary, faster in runs:
        if timed < 2:
            continue  # one benchmark: hyperfine prints no Summary
        if summary is None:
            return cut_short(df, path, first, f"the hyperfine run that starts here has {timed} "
                             "benchmarks and no 'Summary': the capture ends before it")
        if faster < timed - 1:
            return cut_short(df, path, summary, f"the Summary has {faster} of its {timed - 1} "
                             "'times faster than' lines: the capture ends in it")
    return df


# --------------------------------------------------------------------------- JSON export


class _Leaf(NamedTuple):
    """A JSON scalar with the text it was written as and the line it is on."""

    value: object
    raw: str
    line: int


class _Dict(dict):
    """A JSON object that knows the line it starts on."""

    line = 1


class _List(list):
    """A JSON array that knows the line it starts on."""

    line = 1


def _load_json(text: str, path: str):
    """Parse JSON (the json module) into _Dict/_List/_Leaf.

    Each knows its line (from the one-value-per-line layout hyperfine writes; line 1 for other
    layouts) and each number the text it was written as.
    """
    try:
        doc, end = JSON_DECODER.raw_decode(text, len(text) - len(text.lstrip()))
    except json.JSONDecodeError as exc:
        raise ParseError(path, exc.lineno, f"malformed or truncated JSON: {exc.msg}") from None
    except RecursionError:
        raise ParseError(path, 1, "JSON nested too deeply for a hyperfine export") from None
    if text[end:].strip():
        extra = end + len(text[end:]) - len(text[end:].lstrip())  # where the extra text starts
        raise ParseError(path, text.count("\n", 0, extra) + 1,
                         "malformed JSON: text after the end of the document")
    lines = text.split("\n")
    where = json_line_map(lines, 0, len(lines) - 1)

    def wrap(obj, key: tuple, line: int):
        """Wrap ``obj`` (at JSON path ``key``, inside a value on ``line``)."""
        line = where.get(key, line)
        if isinstance(obj, dict):
            out = _Dict((k, wrap(v, (*key, k), line)) for k, v in obj.items())
        elif isinstance(obj, list):
            out = _List(wrap(v, (*key, i), line) for i, v in enumerate(obj))
        elif isinstance(obj, JsonNumber):
            return _Leaf(float(obj), obj.tok, line)
        else:  # str, bool or None (null, and NaN/Infinity, which JSON does not allow)
            return _Leaf(obj, json.dumps(obj), line)
        out.line = line
        return out

    return wrap(doc, (), 1)


def _param_value(v: str):
    """Read a parameter value (hyperfine stores strings): a number when it is one exactly."""
    if re.fullmatch(r"-?[0-9]+", v) and str(int(v)) == v:
        return int(v)
    if re.fullmatch(r"-?[0-9]*\.[0-9]+", v):
        return float(v)
    return v


def _param_name(name: str) -> str:
    """Name the parameter column of a hyperfine parameter (``p_`` + snake_case)."""
    snake = re.sub(r"[^0-9a-zA-Z]+", "_", re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)).strip("_")
    return "p_" + (snake.lower() or "parameter")


def _num(leaf, path: str, what: str) -> float | None:
    """Read the finite number in ``leaf``; None for JSON null; ParseError for anything else."""
    if not isinstance(leaf, _Leaf):
        raise ParseError(path, leaf.line, f"{what}: expected a number, found a JSON container")
    if leaf.value is None:
        return None
    if isinstance(leaf.value, bool) or not isinstance(leaf.value, float):
        raise ParseError(path, leaf.line, f"{what}: expected a number, found {leaf.raw}")
    return number(leaf.raw, path, leaf.line, what)


def _parse_json(text: str, path: str) -> pd.DataFrame:
    """Parse a ``--export-json`` document."""
    doc = _load_json(text, path)
    if not isinstance(doc, dict) or not isinstance(doc.get("results"), list):
        raise ParseError(path, 1, "not a hyperfine JSON export (no \"results\" list)")
    # p_percentile is on every row (NA except on the median row) and always Float64
    rows = Rows(path, benchmark=BENCHMARK, tool=TOOL, dtypes={"p_percentile": "Float64"})
    for i, res in enumerate(doc["results"], start=1):
        if not isinstance(res, dict) or not isinstance(res.get("times"), list):
            raise ParseError(path, getattr(res, "line", 1),
                             f"results[{i - 1}] is not a hyperfine result (no \"times\" list)")
        ctx: dict = {}
        cmd = res.get("command")
        if isinstance(cmd, _Leaf) and isinstance(cmd.value, str):
            ctx["p_command"] = cmd.value
        params = res.get("parameters")
        if isinstance(params, dict):
            for name, leaf in params.items():
                if isinstance(leaf, _Leaf) and leaf.value is not None:
                    val = leaf.value if not isinstance(leaf.value, str) else _param_value(leaf.value)
                    if isinstance(val, float) and val.is_integer() and "." not in leaf.raw:
                        val = int(val)
                    ctx[_param_name(name)] = val
        times = res["times"]
        ctx["p_runs"] = len(times)
        codes = res.get("exit_codes")
        exit_codes: list[int | None] | None = None
        if isinstance(codes, list):
            exit_codes = []
            for leaf in codes:
                code = _num(leaf, path, "exit code")
                exit_codes.append(None if code is None else int(code))
            ctx["p_failed_runs"] = sum(1 for c in exit_codes if c not in (0, None))

        def add(leaf: _Leaf, metric: str, value: float, trial: int | None = None,
                ctx: dict = ctx, **extra) -> None:
            """Add one row read from ``leaf``."""
            rows.add(leaf.line, metric, value, "s", False, leaf.raw, ctx, trial=trial, **extra)

        for k, leaf in enumerate(times, start=1):
            value = _num(leaf, path, f"times[{k - 1}]")
            if value is None:
                continue
            extra = {}
            if exit_codes is not None and len(exit_codes) == len(times) and exit_codes[k - 1] is not None:
                extra["p_exit_code"] = exit_codes[k - 1]
            add(leaf, "wall_time", value, k, **extra)
        for key, metric, extra in (
            ("mean", "wall_time_mean", {}), ("stddev", "wall_time_sd", {}),
            ("median", "wall_time_percentile", {"p_percentile": 50.0}),
            ("min", "wall_time_min", {}), ("max", "wall_time_max", {}),
        ):
            if key in res:
                value = _num(res[key], path, key)
                if value is not None:
                    add(res[key], metric, value, **extra)
        for key, metric in (("user", "user_time"), ("system", "system_time")):
            item = res.get(key)
            if isinstance(item, list):
                for k, leaf in enumerate(item, start=1):
                    value = _num(leaf, path, f"{key}[{k - 1}]")
                    if value is not None:
                        add(leaf, metric, value, k)
            elif item is not None:
                value = _num(item, path, key)
                if value is not None:
                    add(item, f"{metric}_mean", value)
    if not len(rows):
        raise ParseError(path, 1, "hyperfine JSON export with no timing in its results")
    return rows.frame()
