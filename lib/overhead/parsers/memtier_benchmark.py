"""memtier_benchmark (1.2.x to 2.3.x) output: the text report and the ``--json-out-file`` JSON.

memtier_benchmark is not a Debian package: the fixtures come from memtier_benchmark 2.1.4,
1.3.0 and 2.3.0 built from source (tests/fixtures/memtier_benchmark/README.md). It writes its
report to stdout and its progress lines ("[RUN #1 100%, 2 secs] ..." with carriage returns),
"Writing results to stdout" and its connection errors to stderr; a file holding both (``2>&1``) parses
too (the progress and notice lines are skipped; text after a line's last carriage return is
what is read).

Text report::

    2         Threads
    5         Connections per thread
    2000      Requests per client              ("N Seconds" with --test-time)

    ALL STATS
    ============================================================================================
    Type         Ops/sec     Hits/sec   Misses/sec    Avg. Latency     p50 Latency     p99 Latency   p99.9 Latency       KB/sec
    --------------------------------------------------------------------------------------------
    Sets         6230.36          ---          ---         0.14745         0.14300         0.27900         0.43900       479.46
    Gets        62235.12         0.00     62235.12         0.14611         0.14300         0.27900         0.31100      2424.54
    Waits           0.00          ---          ---             ---             ---             ---             ---          ---
    Totals      68465.48         0.00     62235.12         0.14623         0.14300         0.27900         0.31900      2904.00

    Request Latency Distribution
    Type     <= msec         Percent
    ------------------------------------------------------------------------
    SET       0.047        0.000
    SET       0.063        5.000
    ...
    ---
    GET       0.023        0.000

With ``--run-count N`` (N > 1) the blocks are "BEST RUN RESULTS", "WORST RUN RESULTS" and
"AGGREGATED AVERAGE RESULTS (N runs)" instead of "ALL STATS", with ``--print-all-runs``
(2.x) after "RUN #1 RESULTS" ... "RUN #N RESULTS". The blocks are read as memtier labels
them: the 2.3.0 fixtures' BEST and WORST blocks are both the first run (its ``--print-all-runs``
file shows run 3 slower), where 2.1.4 picked two runs; with ``-n`` every run has the same
operation count, and 2.3.0 seems to compare runs without their durations.
``--print-percentiles`` chooses the "pNN Latency" columns; cluster mode adds "MOVED/sec" and "ASK/sec"; ``--hide-histogram``
leaves out the distribution; ``--command`` rows are named after the command ("Incrs").

Rows (``benchmark`` = ``tool`` = "memtier_benchmark"), each with ``p_command`` (the row's
name in lower case: ``sets``, ``gets``, ``waits``, ``totals``; the distribution's ``SET`` is
``sets``) and ``p_stats`` (``all``, ``best``, ``worst``, ``average`` or ``run`` with
``p_run``, the run's number, the block):

- ``throughput`` (op/s), from Ops/sec;
- ``hit_rate`` and ``miss_rate`` (op/s: GET hits and misses per second), from Hits/sec and
  Misses/sec (memtier prints them for gets and totals only);
- ``moved_rate`` and ``ask_rate`` (op/s, cluster mode), from MOVED/sec and ASK/sec;
- ``latency_mean`` (s; memtier prints milliseconds), from Avg. Latency (1.x: "Latency");
- ``latency_percentile`` (s) with ``p_percentile``, from the "pNN Latency" columns;
- ``transfer_rate_total`` (B/s: bytes received plus sent), from KB/sec. memtier's KB is 1024
  bytes: run_stats.cpp:876 at tag 2.1.4, ``result.m_bytes_sec = ((result.m_bytes_rx +
  result.m_bytes_tx) / 1024.0) / test_duration_usec * 1000000;`` (the same line in 2.3.0);
- ``latency_distribution`` (s) with ``p_percentile``, one per line of the Request Latency
  Distribution ("SET 0.143 50.000": half of the SETs took at most 0.143 ms). It is a metric of
  its own, not ``latency_percentile``, so that the table's p50 is not counted twice; the
  percentages are rounded to 3 decimals, so a value may repeat (two rows, two sources).

Parameters from the header lines: ``p_threads``, ``p_clients`` (connections per thread,
memtier's ``--clients``), ``p_requests`` (requests per client) or ``p_test_time`` (seconds);
``p_runs`` on the average block. ``p_percentile`` is Float64 on every row, NA except on the
percentile and distribution rows.

"---" prints no row, nor does a latency of 0 (1.x prints "0.00000" for a command without
requests: its Waits, every command of a refused run). A command whose latency is "---" had
no request: its distribution lines
(memtier prints "WAIT 0.000 100.000" for an empty histogram) give no rows. A block whose
Totals Ops/sec is 0 completed no operation at all: it gives no row (memtier then prints
"-nan" and, for the totals' percentiles, values of an empty histogram such as "0.00700"),
and a file with no other result raises :class:`RunFailed` (at the first "Connection error:"
line when stderr is in the file, else at the Totals line). A block's rows are held until its
Totals row, so a block cut off before it gives none; a report of several runs without its
AGGREGATED AVERAGE block is cut short. memtier 2.x stops at SIGINT and reports what it
measured, as if finished (stdout does not say otherwise, and is read as finished); its stderr
notice "[RUN #1] Interrupted by user (Ctrl+C) after 3.0 secs, ..." in the file (``2>&1``)
marks the rows cut short (or is the :class:`RunFailed` message when there are none). 1.x has
no SIGINT handler: it dies without a report.

JSON (``--json-out-file``; memtier writes one value per line with leading commas): the
``configuration`` gives ``p_threads``, ``p_clients``, ``p_requests`` or ``p_test_time``
(whichever is not 0), ``p_ratio`` ("1:4"), ``p_pipeline``, ``p_data_size``, ``p_protocol``,
``p_key_pattern`` and ``p_key_maximum``; each block ("ALL STATS"...) gives per command, as in
the text: ``operations`` (count, "Count"), ``throughput``, ``hit_rate``/``miss_rate``
(gets and totals), ``moved_rate``/``ask_rate`` (cluster mode), ``latency_mean`` ("Average
Latency"), ``latency_min``, ``latency_max``, ``latency_percentile`` ("Percentile
Latencies", p_percentile from "p99.90"), ``transfer_rate_total`` ("KB/sec"),
``transfer_rate`` ("KB/sec RX", received) and ``transfer_rate_sent`` ("KB/sec TX");
per second of "Time-Serie" (``p_time``: the second's number from 0) ``operations``,
``bytes_received``, ``bytes_sent`` (B) and, where memtier printed them, ``latency_mean``,
``latency_min``, ``latency_max``; the distribution arrays as ``latency_distribution``;
``test_time`` (s) from the block's "Runtime" "Total duration" (ms), and ``started_at`` from
its "Start time" (ms since the epoch).

memtier 1.x's JSON (1.3.0) has per block and command only "Ops/sec", "Hits/sec",
"Misses/sec", ("MOVED/sec", "ASK/sec"), "Latency" (the mean, rounded to 2 decimals: 0.08 where
its text says 0.07700) and "KB/sec", and the distribution arrays: no "Count", no min, max or
percentiles, no "Runtime". A block whose Totals has no "Count" completed no operation when its
"Ops/sec" is 0 (:class:`RunFailed` as above).

An interrupted or unfinished JSON: 2.x writes ``"Interrupted": "true"`` in a block's "Runtime"
when stopped by SIGINT (its "Total duration" is the part that ran): the rows are kept, marked
cut short at that line. A document that stops before its end (1.x dies at SIGINT leaving its
file unfinished; a kill; a cut capture) keeps its whole top-level sections, marked cut short at
the last line, or raises :class:`RunFailed` there when no result section is whole; a document
malformed before its last line is not a cut (:class:`ParseError`).

Values memtier 2.1.4 writes to the JSON without measuring them give no rows: the hits and
misses of sets and waits and the waits' KB/sec (constants 0.0 in run_stats.cpp
``print_json``), latencies of a command with no request ("Count": 0), the min, max, and
percentiles of an empty histogram (memtier writes "Min/Max Latency" 0.000 for it and
percentiles such as 0.007: the aggregated block's totals have one), an "Average Latency" of
0.000 for a command with requests (the totals' is never computed in 2.1.4: 0.000 where the
text says 0.17020), the "Runtime" of the aggregated block (all 0). The per-second
percentiles of "Time-Serie" are not read: in the fixtures they can fall below that second's
own minimum (second 2 of c5_t2_time2_keymax1000.json: "p50.00": 0.001 with "Min Latency":
0.051). "Accumulated Latency" (a sum, whole ms) and the compressed histogram are not read.

Neither format states memtier's version (``memtier_benchmark --version``; the JSON's
configuration has no version in 2.1.4 nor in 2.3.0): ``tool_version`` stays empty.
"""

from __future__ import annotations

import json
import re

import pandas as pd

from overhead.parsers._common import (
    JSON_DECODER,
    ParseError,
    Rows,
    RunFailed,
    cut_short,
    integer,
    json_line_map,
    number,
)

TOOL = "memtier_benchmark"
BENCHMARK = "memtier_benchmark"
KB = 1024  # run_stats.cpp:876 (tag 2.1.4): bytes / 1024.0
MS = 1e-3

_HEAD = re.compile(r"^(\d+)\s+(Threads|Connections per thread|Requests per client|Seconds)\s*$")
_BLOCK = re.compile(r"^(ALL STATS|BEST RUN RESULTS|WORST RUN RESULTS|"
                    r"AGGREGATED AVERAGE RESULTS \((\d+) runs\)|RUN #(\d+) RESULTS)\s*$")
# 2.x at SIGINT, on stderr: "[RUN #1] Interrupted by user (Ctrl+C) after 3.0 secs, stopping ..."
_INTERRUPTED = re.compile(r"^\[RUN #\d+\] (Interrupted by user\b.*?)\s*$")
_COLUMN = re.compile(r"Ops/sec|Hits/sec|Misses/sec|MOVED/sec|ASK/sec|Avg\. Latency|"
                     r"p(\d+(?:\.\d+)?) Latency|(?<![\w.])Latency|KB/sec")
_DIST_HEAD = re.compile(r"^Type\s+<= msec\s+Percent\s*$")
_DIST_ROW = re.compile(r"^(\S+)\s+(\S+)\s+(\S+)\s*$")
_SKIP = re.compile(r"^(?:\[RUN #\d+|Writing results to |=+$|-+$)")
_ERROR = re.compile(r"^((?:Connection error|error|connection dropped|Error)\b.*?)\s*$", re.I)
_NUM = re.compile(r"^-?\d+(?:\.\d+)?$")

_STATS = {"ALL STATS": "all", "BEST RUN RESULTS": "best", "WORST RUN RESULTS": "worst"}
# text column -> (metric, unit, scale, higher_is_better)
_COLUMNS = {
    "Ops/sec": ("throughput", "op/s", 1.0, True),
    "Hits/sec": ("hit_rate", "op/s", 1.0, None),
    "Misses/sec": ("miss_rate", "op/s", 1.0, None),
    "MOVED/sec": ("moved_rate", "op/s", 1.0, None),
    "ASK/sec": ("ask_rate", "op/s", 1.0, None),
    "Avg. Latency": ("latency_mean", "s", MS, False),
    "Latency": ("latency_mean", "s", MS, False),  # memtier 1.2.x: the mean, one column
    "KB/sec": ("transfer_rate_total", "B/s", KB, True),
}
_DTYPES = {"p_percentile": "Float64"}


def detect(text: str) -> float:
    """Tell whether ``text`` is memtier_benchmark output (text report or JSON).

    Returns a confidence from 0 (not memtier output) to 1.
    """
    head = text[:20000]
    if head.lstrip().startswith("{") and '"run information"' in head and (
            '"Connections per thread"' in head or '"key_pattern"' in head):
        return 1.0
    if _JSON_HEAD.match(head) and '"client_stats"' in head and '"key_pattern"' in head:
        return 0.9  # a document that stops before "run information" (1.x killed at SIGINT)
    if re.search(r"^\d+\s+Connections per thread\s*$", head, re.M) or re.search(
            r"^Type\s+Ops/sec\s+(?:Hits/sec\s+Misses/sec\s+)?(?:MOVED/sec\s+ASK/sec\s+)?"
            r"Avg\. Latency", head, re.M):
        return 1.0
    if re.search(r"^\[RUN #\d+\] (?:Preparing benchmark client|Launching threads now)", head, re.M):
        return 0.9
    return 0.0


def parse(text: str, path: str = "<string>") -> pd.DataFrame:
    """Parse memtier_benchmark's text report or JSON into tidy rows.

    Follows the parser contract of :mod:`overhead.parsers`; the rows are described in the
    module docstring.

    Raises
    ------
    RunFailed
        When the output is memtier's but no operation completed.
    ParseError
        When the text is not memtier output or a line is malformed.
    """
    if text.lstrip().startswith("{"):
        return _parse_json(text, path)
    return _parse_text(text, path)


def _block_params(m: re.Match, params: dict) -> dict:
    """Give the parameters of a block whose title ``_BLOCK`` matched ("RUN #2 RESULTS"...).

    ``p_stats`` says which block: ``all``, ``best``, ``worst``, ``average`` (with ``p_runs``,
    the number of runs averaged) or ``run`` (``--print-all-runs``, with ``p_run``, the run's
    number from 1).
    """
    if m.group(3):
        return dict(params, p_stats="run", p_run=int(m.group(3)))
    out = dict(params, p_stats=_STATS.get(m.group(1), "average"))
    if m.group(2):
        out["p_runs"] = int(m.group(2))
    return out


def _command(name: str, *, distribution: bool = False) -> str:
    """p_command of a table row ("Sets") or of a distribution's command ("SET"): "sets".

    memtier names a table row after the command, lower case with a capital and an "s"
    ("Incrs"), and a distribution by the command as given ("SET", "INCR").
    """
    return name.lower() + "s" if distribution else name.lower()


# ---- text --------------------------------------------------------------------------------------

class _Block:
    """One statistics block of the text report, its rows held until its Totals row."""

    def __init__(self, params: dict):
        self.params = params
        self.columns: list[tuple[str, float | None]] | None = None
        self.pending: list[tuple] = []
        self.done = False  # its Totals row was read
        self.failed = False  # ... and said no operation completed
        self.empty: set[str] = set()  # commands without a latency ("---")
        self.in_dist = False


def _parse_text(text: str, path: str) -> pd.DataFrame:
    """Parse the text report (stdout, possibly with stderr mixed in)."""
    rows = Rows(path, benchmark=BENCHMARK, tool=TOOL, dtypes=_DTYPES)
    params: dict = {}
    block: _Block | None = None
    seen = False
    errors: list[tuple[int, str]] = []
    interrupted: tuple[int, str] | None = None  # 2.x's SIGINT notice (stderr in the file)
    zero_totals: tuple[int, str] | None = None
    dist: dict | None = None  # the last distribution: its last type, percent, line, "---" after
    old_format = False  # memtier 1.2.x: one "Latency" column, no WAIT distribution
    for lineno, raw in enumerate(text.split("\n"), start=1):
        line = raw.rstrip("\r")
        line = line[line.rfind("\r") + 1:]
        stripped = line.strip()
        if not stripped:
            if block is not None and block.columns is not None and not block.done:
                block.columns = None  # a table ends at a blank line
            continue
        m = _INTERRUPTED.match(stripped)
        if m:
            interrupted = interrupted or (lineno, m.group(1))
            continue
        if _SKIP.match(stripped):
            if stripped == "---" and dist is not None:
                dist["dash"] = True  # the end of a type's distribution
            continue
        m = _HEAD.match(stripped)
        if m:
            seen = True
            key = {"Threads": "p_threads", "Connections per thread": "p_clients",
                   "Requests per client": "p_requests", "Seconds": "p_test_time"}[m.group(2)]
            params[key] = integer(m.group(1), path, lineno, m.group(2))
            continue
        m = _BLOCK.match(stripped)
        if m:
            seen = True
            block = _Block(_block_params(m, params))
            continue
        if stripped.startswith("Type") and "Ops/sec" in stripped:
            if block is None:
                raise ParseError(path, lineno, "a statistics table without its title (ALL STATS...)")
            block.columns = _columns(stripped, path, lineno)
            old_format = any(c == "Latency" for c, _ in block.columns)
            block.in_dist = False
            continue
        if stripped == "Request Latency Distribution":
            if block is not None:
                block.in_dist = True
                dist = {"type": None, "pct": None, "line": lineno, "dash": False,
                        "old": old_format}
            continue
        if _DIST_HEAD.match(stripped):
            continue
        if block is not None and block.columns is not None and not block.done:
            zero = _table_row(stripped, lineno, path, block)
            if block.done:
                if zero:
                    zero_totals = zero_totals or (lineno, stripped)
                else:
                    for args in block.pending:
                        rows.add(*args[:6], block.params, **args[6])
                block.pending = []
            continue
        if block is not None and block.in_dist:
            m = _DIST_ROW.match(stripped)
            if (not m and dist is not None and dist["dash"] and dist["pct"] is not None
                    and not re.match(r"[A-Z]+\s", stripped)):
                # after a section's '---', a line that is no distribution row ends it (a
                # command line the user appended to a 1.2.x report)
                block.in_dist = False
                continue
            if not m:
                raise ParseError(path, lineno, f"expected 'TYPE MSEC PERCENT' in the latency "
                                 f"distribution, found {stripped!r}")
            command = _command(m.group(1), distribution=True)
            ms = number(m.group(2), path, lineno, "<= msec")
            pct = number(m.group(3), path, lineno, "Percent")
            if dist is not None:
                dist.update(type=m.group(1), pct=pct, line=lineno, dash=False)
            if block.done and not block.failed and command not in block.empty:
                rows.add(lineno, "latency_distribution", ms * MS, "s", False, f"{m.group(2)} msec",
                         block.params, p_command=command, p_percentile=pct)
            continue
        m = _ERROR.match(stripped)
        if m:
            errors.append((lineno, m.group(1)))
            continue
        # anything else (a shell prompt, a wrapper's own lines) is not memtier's report
    if not len(rows):
        if zero_totals or errors or interrupted:
            if errors:
                lineno, what = errors[0]
            elif interrupted:
                lineno, what = interrupted
            else:
                lineno, what = zero_totals[0], f"{zero_totals[1]!r}: no operation completed"
            raise RunFailed(path, lineno, what)
        if not seen:
            raise ParseError(path, 1, "no memtier_benchmark output found (no 'ALL STATS' table "
                             "and no 'Connections per thread' line)")
    df = rows.frame()
    if interrupted and len(df):
        return cut_short(df, path, interrupted[0], f"{interrupted[1]!r}: the report is of the "
                         "part of the run before the interrupt")
    if block is not None and block.params["p_stats"] in ("best", "worst", "run") and len(df):
        # several runs (--run-count) end with their AGGREGATED AVERAGE RESULTS block
        return cut_short(df, path, None, "the report of several runs ends before its "
                         "'AGGREGATED AVERAGE RESULTS' (the run stopped or the capture was cut): "
                         "the tables before it are kept")
    if block is not None and not block.done and len(df):
        return cut_short(df, path, None, "the last statistics table ends before its Totals row "
                         "(the run stopped or the capture was cut): the tables before it are kept")
    if dist is not None and len(df):
        # memtier ends the distribution with its last type at 100%: WAIT (1.3 and later) or,
        # in 1.2.x (one Latency column), the last type and a closing '---'
        whole = dist["pct"] is not None and dist["pct"] >= 100 and (
            dist["dash"] if dist["old"] else dist["type"] == "WAIT")
        if not whole:
            return cut_short(df, path, dist["line"], "the latency distribution ends before its "
                             "last line (the run stopped or the capture was cut): the rows read "
                             "are kept")
    return df


def _columns(header: str, path: str, lineno: int) -> list[tuple[str, float | None]]:
    """Read a table header's value columns: (name, percentile or None), in order."""
    rest = header[len("Type"):]
    found = list(_COLUMN.finditer(rest))
    leftover = _COLUMN.sub("", rest).strip()
    if leftover or not found:
        raise ParseError(path, lineno, f"unknown column(s) in memtier's table header: {leftover!r}")
    return [(m.group(0), float(m.group(1)) if m.group(1) else None) for m in found]


def _table_row(line: str, lineno: int, path: str, block: _Block) -> bool:
    """Hold one table row's values in its block; return whether it is a Totals row of 0 ops/s."""
    tokens = line.split()
    columns = block.columns
    if len(tokens) != len(columns) + 1:
        raise ParseError(path, lineno, f"expected a name and {len(columns)} values in the "
                         f"statistics table, found {line!r}")
    name = tokens[0]
    command = _command(name)
    for (col, pct), tok in zip(columns, tokens[1:], strict=True):
        if tok == "---":
            if col in ("Avg. Latency", "Latency"):
                block.empty.add(command)
            continue
        if tok in ("-nan", "nan", "inf", "-inf"):
            continue
        latency = pct is not None or col in ("Avg. Latency", "Latency")
        if latency and _NUM.match(tok) and float(tok) == 0:
            # 1.x prints "0.00000" for a command without requests (its Waits, every command
            # of a refused run): no latency was measured
            block.empty.add(command)
            continue
        if not _NUM.match(tok):
            raise ParseError(path, lineno, f"{name} {col}: expected a number, found {tok!r}")
        value = number(tok, path, lineno, f"{name} {col}")
        extra = {"p_command": command}
        if pct is not None:
            metric, unit, scale, hib = "latency_percentile", "s", MS, False
            extra["p_percentile"] = pct
        else:
            metric, unit, scale, hib = _COLUMNS[col]
        block.pending.append((lineno, metric, value * scale, unit, hib, tok, extra))
    if name != "Totals":
        return False
    block.done = True
    ops = next((float(t) for (c, _), t in zip(columns, tokens[1:], strict=True)
                if c == "Ops/sec" and _NUM.match(t)), None)
    block.failed = ops == 0
    return block.failed


# ---- JSON --------------------------------------------------------------------------------------

_CONFIG = {"threads": "p_threads", "clients": "p_clients", "requests": "p_requests",
           "test_time": "p_test_time", "ratio": "p_ratio", "pipeline": "p_pipeline",
           "data_size": "p_data_size", "protocol": "p_protocol", "key_pattern": "p_key_pattern",
           "key_maximum": "p_key_maximum"}
_RATES = {"Ops/sec": "throughput", "Hits/sec": "hit_rate", "Misses/sec": "miss_rate",
          "MOVED/sec": "moved_rate", "ASK/sec": "ask_rate"}
_KBS = {"KB/sec": "transfer_rate_total", "KB/sec RX": "transfer_rate", "KB/sec TX": "transfer_rate_sent"}
_DEFAULT = ("Sets", "Gets", "Waits", "Totals")


# a top-level section's first line in memtier's JSON layout: '\t"configuration":{',
# '\t,"ALL STATS":{' (nested objects are indented further)
_TOP = re.compile(r'^\t,?"([^"]+)":\{\s*$')
_JSON_HEAD = re.compile(r'^\s*\{\s*\n\t"configuration":\{')


def _decode(text: str, path: str) -> tuple[dict, list[str], tuple[int, str] | None]:
    """Decode the document, or the whole top-level sections of one that stops before its end.

    Returns (document, its lines, None) or, for a document that stops before its end, (its
    whole top-level sections, their lines, (the last line, the section it stops in or None
    when only the closing brace is missing)).

    memtier writes its JSON as it goes and closes it at exit: 1.x dies at SIGINT and leaves it
    unfinished, as does a kill or a cut capture. The sections before the one it stops in are
    whole and are read; a document that is malformed before its last line is not a cut.
    """
    lines = text.split("\n")
    try:
        return JSON_DECODER.decode(text), lines, None
    except json.JSONDecodeError as exc:
        last = max((i for i, ln in enumerate(lines, 1) if ln.strip()), default=1)
        if exc.lineno < last or not _JSON_HEAD.match(text):
            raise ParseError(path, exc.lineno, f"not valid JSON: {exc.msg}") from None
        err = exc
    starts = [i for i, ln in enumerate(lines) if _TOP.match(ln)]
    inside = _TOP.match(lines[starts[-1]]).group(1)
    # the last section may be whole, only the document's closing brace missing
    for keep, section in ((last, None), (starts[-1], inside)):
        kept = lines[:keep]
        try:
            doc = JSON_DECODER.decode("\n".join(kept + ["}"]))
        except json.JSONDecodeError:
            continue
        if isinstance(doc, dict):
            return doc, kept, (last, section)
    raise ParseError(path, err.lineno, f"not valid JSON: {err.msg}")


def _parse_json(text: str, path: str) -> pd.DataFrame:
    """Parse the --json-out-file document (whole, interrupted, or stopped before its end)."""
    doc, text_lines, cut = _decode(text, path)
    if not isinstance(doc, dict) or (cut is None and "run information" not in doc):
        raise ParseError(path, 1, "not memtier_benchmark JSON (no 'run information')")
    lines = [ln.strip().lstrip(",") for ln in text_lines]
    where = json_line_map(lines, 0, len(lines) - 1)

    def line_of(*keys) -> int:
        for n in range(len(keys), -1, -1):
            if keys[:n] in where:
                return where[keys[:n]]
        return 1

    params: dict = {}
    for key, name in _CONFIG.items():
        v = (doc.get("configuration") or {}).get(key) if isinstance(doc.get("configuration"), dict) else None
        if v is None:
            continue
        if isinstance(v, float):  # a JsonNumber
            n = integer(v.tok, path, line_of("configuration", key), key)
            if key in ("requests", "test_time") and n == 0:
                continue
            params[name] = n
        elif isinstance(v, str):
            params[name] = v
    rows = Rows(path, benchmark=BENCHMARK, tool=TOOL, dtypes=_DTYPES)
    failed: tuple[int, str] | None = None
    interrupted: tuple[int, str] | None = None
    for title, block in doc.items():
        if title in ("configuration", "run information") or not isinstance(block, dict):
            continue
        m = _BLOCK.match(title)
        if not m:
            raise ParseError(path, line_of(title), f"unknown memtier JSON section {title!r}")
        totals = block.get("Totals")
        # 2.x counts the operations ("Count"); 1.x has only their rate
        key = "Count" if isinstance(totals, dict) and "Count" in totals else "Ops/sec"
        if not isinstance(totals, dict) or not isinstance(totals.get(key), float):
            raise ParseError(path, line_of(title), f"{title}: no Totals with a Count or Ops/sec")
        runtime = block.get("Runtime")
        if isinstance(runtime, dict) and runtime.get("Interrupted") == "true" and not interrupted:
            ran = runtime.get("Total duration")
            interrupted = (line_of(title, "Runtime", "Interrupted"),
                           f'{title}: "Runtime" "Interrupted": "true"'
                           + (f" after {ran.tok} ms" if isinstance(ran, float) else ""))
        if totals[key] == 0:
            failed = failed or (line_of(title, "Totals", key),
                                f"{title}: Totals \"{key}\": {totals[key].tok}: no operation completed")
            continue
        _json_block(title, block, _block_params(m, params), rows, path, line_of)
    if not len(rows):
        if failed:
            raise RunFailed(path, *failed)
        if interrupted:
            raise RunFailed(path, *interrupted)
        if cut:
            raise RunFailed(path, cut[0], f"the JSON stops inside {cut[1]!r}, before any result "
                            "(memtier was stopped before it wrote them: 1.x dies at SIGINT "
                            "without finishing its file; or the capture was cut)")
    df = rows.frame()
    if interrupted and len(df):
        return cut_short(df, path, interrupted[0], f"{interrupted[1]} (memtier was stopped, "
                         "SIGINT): the results are of the part of the run before the interrupt")
    if cut and len(df):
        where_cut = f"inside {cut[1]!r}" if cut[1] else "before its closing brace"
        return cut_short(df, path, cut[0], f"the JSON stops {where_cut} (memtier was stopped "
                         "or the capture was cut): the whole sections before it are kept")
    return df


def _num(entry: dict, key: str, path: str, line: int) -> float | None:
    """Read a number of a JSON object: None when absent, ParseError when not a number."""
    v = entry.get(key)
    if v is None:
        return None
    if not isinstance(v, float):
        raise ParseError(path, line, f"{key!r}: expected a number, found {v!r}")
    return float(v)


def _json_block(title: str, block: dict, params: dict, rows: Rows, path: str, line_of) -> None:
    """Add the rows of one block ("ALL STATS", "BEST RUN RESULTS"...)."""
    runtime = block.get("Runtime")
    if isinstance(runtime, dict):
        start = _num(runtime, "Start time", path, line_of(title, "Runtime", "Start time"))
        total = _num(runtime, "Total duration", path, line_of(title, "Runtime", "Total duration"))
        if start and total is not None:
            params = dict(params, started_at=pd.Timestamp(int(start), unit="ms", tz="UTC"))
            rows.add(line_of(title, "Runtime", "Total duration"), "test_time", total * MS, "s",
                     None, f"{runtime['Total duration'].tok} ms", params)
    names = [k for k, v in block.items() if k != "Runtime" and isinstance(v, dict)]
    arbitrary = any(n not in _DEFAULT for n in names)
    hollow: set[str] = set()
    for name in names:
        entry = block[name]
        command = _command(name)
        p = dict(params, p_command=command)

        def add(key, metric, unit, scale, hib, *, at=(), src=entry, extra=None, name=name, p=p):
            ln = line_of(title, name, *at, key)
            v = _num(src, key, path, ln)
            if v is not None:
                rows.add(ln, metric, v * scale, unit, hib, src[key].tok, p, **(extra or {}))
            return v

        count = add("Count", "operations", "count", 1.0, None)
        for key, metric in _RATES.items():
            if key in ("Hits/sec", "Misses/sec") and (arbitrary or name not in ("Gets", "Totals")):
                continue  # constants 0.0 in print_json, "---" in the text
            if key in ("MOVED/sec", "ASK/sec") and name == "Waits":
                continue
            add(key, metric, "op/s", 1.0, True if key == "Ops/sec" else None)
        if name != "Waits":
            for key, metric in _KBS.items():
                add(key, metric, "B/s", KB, True)
        # 1.x has no "Count" (its rate says whether there were requests), no min, max or
        # percentiles, and the mean as "Latency" (2.x writes both, the same value)
        ops = _num(entry, "Ops/sec", path, line_of(title, name, "Ops/sec"))
        active = count if count is not None else ops
        top = _num(entry, "Max Latency", path, line_of(title, name, "Max Latency"))
        has_samples = bool(top) if top is not None else bool(active)
        mean_key = "Average Latency" if "Average Latency" in entry else "Latency"
        mean = _num(entry, mean_key, path, line_of(title, name, mean_key))
        if active and mean:
            add(mean_key, "latency_mean", "s", MS, False)
        if has_samples:
            add("Min Latency", "latency_min", "s", MS, False)
            add("Max Latency", "latency_max", "s", MS, False)
            pcts = entry.get("Percentile Latencies")
            if isinstance(pcts, dict):
                for key in pcts:
                    m = re.fullmatch(r"p(\d+(?:\.\d+)?)", key)
                    if m:
                        add(key, "latency_percentile", "s", MS, False, at=("Percentile Latencies",),
                            src=pcts, extra={"p_percentile": float(m.group(1))})
        else:
            hollow.add(command)
        series = entry.get("Time-Serie")
        if isinstance(series, dict):
            for second, sec in series.items():
                if not isinstance(sec, dict):
                    continue
                at = ("Time-Serie", second)
                t = integer(second, path, line_of(title, name, *at), "Time-Serie second")
                e = {"p_time": t}
                add("Count", "operations", "count", 1.0, None, at=at, src=sec, extra=e)
                add("Bytes RX", "bytes_received", "B", 1.0, None, at=at, src=sec, extra=e)
                add("Bytes TX", "bytes_sent", "B", 1.0, None, at=at, src=sec, extra=e)
                add("Average Latency", "latency_mean", "s", MS, False, at=at, src=sec, extra=e)
                add("Min Latency", "latency_min", "s", MS, False, at=at, src=sec, extra=e)
                add("Max Latency", "latency_max", "s", MS, False, at=at, src=sec, extra=e)
    for name, dist in block.items():
        if not isinstance(dist, list):
            continue
        command = _command(name, distribution=True)
        if command in hollow:
            continue  # an empty histogram: memtier prints "0.000 at 100%"
        p = dict(params, p_command=command)
        for i, point in enumerate(dist):
            ln = line_of(title, name, i, "<=msec")
            if not isinstance(point, dict):
                raise ParseError(path, ln, f"{name}[{i}]: expected an object")
            ms = _num(point, "<=msec", path, ln)
            pct = _num(point, "percent", path, line_of(title, name, i, "percent"))
            if ms is None or pct is None:
                raise ParseError(path, ln, f"{name}[{i}]: expected '<=msec' and 'percent'")
            rows.add(ln, "latency_distribution", ms * MS, "s", False, f"{point['<=msec'].tok} msec",
                     p, p_percentile=pct)
