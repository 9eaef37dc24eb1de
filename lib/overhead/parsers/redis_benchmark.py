r"""``redis-benchmark`` output: the classic text report (2.x to 7.x), ``--csv`` and ``-q``.

The format is recognised from the content; one text may even mix them (a wrapper script that
runs several invocations into one file).

1. Text report, one block per test. redis 2.x (the IBM transcripts)::

       SET: -nan\rSET: 100280.00\r...\r====== SET ======
         500000 requests completed in 4.63 seconds
         50 parallel clients
         50 bytes payload
         keep alive: 1

       99.99% <= 1 milliseconds
       100.00% <= 1 milliseconds
       108084.74 requests per second

   The carriage-return separated progress updates before the header are not measurements and
   are ignored (only the text after a line's last ``\r`` is read, so ``-nan`` and ``0.00``
   progress values never matter). redis 6/7 add ``host configuration``, ``multi-thread`` and
   ``threads`` lines and, in 7.x, a ``Latency by percentile distribution:`` section, a
   ``Cumulative distribution of latencies:`` section and a ``Summary:`` (``throughput summary:
   N requests per second`` and ``latency summary (msec):`` with ``avg min p50 p95 p99 max``).
   A block is complete at its ``requests per second`` line (2.x-6.x) or at the latency summary
   values (7.x); an incomplete block (a truncated file, or a new header or ``[DBG]`` line before
   the block ended) is dropped. The IBM wrapper script's lines are read too: ``[DBG] <date>``
   (-> ``started_at`` of the following run, CDT/CST converted to UTC) and ``[DBG] Run #N:
   Connections C.`` (-> ``trial`` = ``p_run`` = N, and ``p_connections`` = C, the script's own
   statement of the ``-c`` it passed; it always equals ``p_clients`` in the IBM files).
2. ``--csv`` (redis 6.2 and later): a header ``"test","rps","avg_latency_ms","min_latency_ms",...``
   then one row per test; before 6.2, no header and two columns, ``"SET","452488.69"`` (the
   test and its requests per second). Each header starts a run: runs appended to one file
   (``--csv >> file`` in a loop) are numbered by ``trial`` = ``p_run`` = 1, 2, ... in order
   (a file of one table gives neither, as before).
3. ``-q``: ``SET: 108342.37 requests per second, p50=0.231 msec`` (7.x) or without the p50
   (older versions). After the suite's tests (``-t``) redis-benchmark prints an empty line
   (redis-benchmark.c, ``if (!config.csv) printf("\n")``); -q lines of those tests without it
   after the last one are a capture cut short (the rows read are kept, marked). A command
   given on the command line (its title is the command as typed, ``GET key``) ends without
   that line.

Rows per test (``benchmark`` = "redis"):

- ``throughput`` (req/s, higher is better), from ``N requests per second``, the 7.x
  ``throughput summary``, the CSV ``rps`` column or the ``-q`` line;
- ``requests`` (count) and ``duration`` (s), from ``N requests completed in S seconds``;
- ``latency_cdf`` (%, higher is better) with ``p_le`` (s), one per ``P% <= T milliseconds`` line
  of a 2.x-6.x report or of the 7.x cumulative distribution. In 2.x the latencies are truncated
  to whole milliseconds before bucketing (microseconds / 1000), so ``99.99% <= 1 milliseconds``
  means 99.99% took less than 2 ms; ``p_le`` is the printed bound. 2.x always prints the last
  bucket for the last request, so the final ``100.00%`` line often appears twice (two rows, two
  sources, as printed);
- ``latency_percentile`` (s, lower is better) with ``p_percentile`` (0-100): the 7.x percentile
  distribution (there ``P% <= T milliseconds`` means the P-th percentile is T), the summary's
  p50/p95/p99, the CSV ``pNN_latency_ms`` columns and the ``-q`` p50;
- ``latency_mean``, ``latency_min``, ``latency_max`` (s, lower is better), from the 7.x summary
  and CSV.

Milliseconds are converted to seconds. ``-nan``/``inf`` values produce no row.

Failed runs: redis-benchmark writes its errors to standard error (the files here are both
streams, as a terminal shows them): ``Could not connect to Redis at 127.0.0.1:P: Connection
refused`` (no server; redis 7 then prints ``WARNING: Could not fetch server CONFIG`` and waits
for ever), or ``Error: Server closed the connection`` / ``Error: Connection reset by peer``
(the server went away during a test; with ``--csv`` the error comes before the header, standard
output being buffered), or ``Error from server: OOM command not allowed ...`` (an error reply:
redis-benchmark exits 1 at once; standard output being buffered, it may come before the report
of the tests that finished). A text with such an error and no complete test raises
:class:`~overhead.parsers._common.RunFailed` naming the error's line; one with complete tests
keeps their rows (the test in progress when the run failed gives none), marked as cut short
(:func:`~overhead.parsers._common.cut_short`) with the error.

Parameters: ``p_test`` (the test title exactly as printed, e.g. ``LRANGE_100 (first 100
elements)``), ``p_command`` (the Redis command it issues: the title's first word, upper case,
with ``PING_INLINE``/``PING_BULK`` -> ``PING`` and ``LRANGE_100`` etc. -> ``LRANGE``),
``p_clients`` (``parallel clients``), ``p_payload`` (bytes), ``p_keepalive`` (bool),
``p_requests`` (requests completed), ``p_multi_thread`` (bool) and ``p_threads`` (6.x/7.x),
``p_run``/``p_connections`` (IBM wrapper), and on redis 7 latency and throughput rows
``p_section``: ``summary`` (the summary, CSV and ``-q`` values, comparable across the three
modes), ``percentile_distribution`` or ``cumulative_distribution`` (the 50th percentile appears
both in the distribution and in the summary; ``p_section`` tells them apart). No output mode
states the pipeline depth (``-P``), the key space (``-r``) or the tool version, so none of them
is a parameter here: whoever launched the command must record them. The ``--csv`` and ``-q``
modes do not state the number of clients or the payload either.

``source`` line numbers count ``\n``-terminated lines (as ``grep -n`` and ``sed -n`` do), so
a progress line full of ``\r`` is one line. A text that is redis-benchmark output (a test
header, progress updates, a CSV header, an error of the tool) without any complete test raises
RunFailed; text that is none of these raises ParseError, as do an unexpected line inside a test
block and a malformed CSV row.

Speed: the canonical 2.x block is matched by one regular expression over the whole text; any
other text (wrapper lines, redis 6/7 blocks, CSV, ``-q``, malformed or truncated blocks) goes
through a line-by-line state machine. The 13 IBM transcripts (6.3 MB, 8,777 tests) parse in
a few hundred milliseconds.
"""

from __future__ import annotations

import math
import re

import pandas as pd

from overhead.parsers._common import ParseError, Rows, RunFailed, cut_short, end_cut_mid_line
from overhead.parsers._datestamp import started_at

TOOL = "redis-benchmark"
BENCHMARK = "redis"

# ---- the canonical redis 2.x block, matched over the whole text (the fast path) ---------------
_NUM = r"\d+(?:\.\d+)?"
_EOL = r"[ \t]*\r*\n"
_FAST_BLOCK = re.compile(
    r"====== ([^\r\n]*?) ======" + _EOL
    + r"[ \t]+(\d+) requests completed in (" + _NUM + r") seconds" + _EOL
    + r"[ \t]+(\d+) parallel clients" + _EOL
    + r"[ \t]+(\d+) bytes payload" + _EOL
    + r"[ \t]+keep alive: ([01])" + _EOL
    + r"[ \t]*\r*\n"
    + r"((?:" + _NUM + r"% <= " + _NUM + r" milliseconds" + _EOL + r")*)"
    + r"(" + _NUM + r") requests per second[ \t]*\r*(?:\n|\Z)"
)
_FAST_BUCKET = re.compile(r"(" + _NUM + r")% <= (" + _NUM + r") milliseconds")

# ---- line patterns (the state machine) ---------------------------------------------------------
_HEADER = re.compile(r"^====== (.*) ======\s*$")
_COMPLETED = re.compile(r"^\s+(\d+) requests completed in (\S+) seconds\s*$")
_HEADER_PARAMS = (
    (re.compile(r"^\s+(\d+) parallel clients\s*$"), "p_clients", int),
    (re.compile(r"^\s+(\d+) bytes payload\s*$"), "p_payload", int),
    (re.compile(r"^\s+keep alive: ([01])\s*$"), "p_keepalive", lambda s: s == "1"),
    (re.compile(r"^\s+multi-thread: (yes|no)\s*$"), "p_multi_thread", lambda s: s == "yes"),
    (re.compile(r"^\s+threads: (\d+)\s*$"), "p_threads", int),
)
# Header lines that state server or cluster configuration: accepted, not turned into rows.
_CONFIG = re.compile(
    r'^\s+(?:host configuration "(?:save|appendonly)":.*|cluster mode: .*'
    r"|node \[\d+\] configuration:|save: .*|appendonly: .*)$"
)
_BUCKET = re.compile(r"^(\S+)% <= (\S+) milliseconds(?: \(cumulative count \d+\))?\s*$")
_RPS = re.compile(r"^(\S+) requests per second\s*$")
_THROUGHPUT_SUMMARY = re.compile(r"^\s+throughput summary: (\S+) requests per second\s*$")
_QUIET = re.compile(r"^(\S.*?): (\S+) requests per second(?:, p50=(\S+) msec)?\s*$")
_CSV_HEADER = re.compile(r'^"test","rps"(?:,"[a-z0-9_]+")*\s*$')
# the headerless two-column CSV of redis-benchmark before 6.2: "SET","452488.69"
_OLD_CSV = re.compile(r'^"([^"]+)","([^"]*)"\s*$')
_OLD_CSV_DETECT = re.compile(r'^"[A-Z][A-Z0-9_]*(?: \([^"]*\))?","\d+(?:\.\d+)?"$')
# the tool's own errors (on standard error): no server, or the server went away
_ERROR = re.compile(r"^(?:Could not connect to Redis at \S+: .+|Error: .+|Error from server: .+)$")
_PROGRESS = re.compile(r"(?:^|\r)[^\r\n:]+: rps=\S+ \(overall: \S+\) avg_msec=")
_RUN = re.compile(r"^\[DBG\] Run #(\d+): Connections (\d+)\.\s*$")
_DBG_DATE = re.compile(r"^\[DBG\] (?:Start: |End: )?(\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \w+ \d{4})\s*$")
_SUMMARY_METRICS = {"avg": "latency_mean", "min": "latency_min", "max": "latency_max"}
_PCT_NAME = re.compile(r"^p(\d+(?:\.\d+)?)$")
_SECTIONS = {"Latency by percentile distribution:": "percentile_distribution",
             "Cumulative distribution of latencies:": "cumulative_distribution",
             "Summary:": "summary"}
_SUMMARY = {"p_section": "summary"}
#: The titles of redis-benchmark's own tests (6.x/7.x, ``-t``). After them it prints an empty
#: line (redis-benchmark.c: ``if (!config.csv) printf("\n");`` at the end of the suite); a
#: command given on the command line (its title, the command as typed) ends without it.
_SUITE = frozenset((
    "PING_INLINE", "PING_BULK", "PING_MBULK", "SET", "GET", "INCR", "LPUSH", "RPUSH", "LPOP",
    "RPOP", "SADD", "HSET", "SPOP", "ZADD", "ZPOPMIN", "LPUSH (needed to benchmark LRANGE)",
    "LRANGE_100 (first 100 elements)", "LRANGE_300 (first 300 elements)",
    "LRANGE_500 (first 500 elements)", "LRANGE_600 (first 600 elements)", "MSET (10 keys)",
    "XADD", "FCALL"))
_NO_EXTRA: dict = {}


def detect(text: str) -> float:
    """Tell whether ``text`` is redis-benchmark output.

    Returns a confidence from 0 (not redis-benchmark output) to 1.
    """
    head = text[:200_000]
    if "====== " in head and (" requests completed in " in head or " requests per second" in head):
        return 1.0
    if head.startswith('"test","rps",') or '\n"test","rps",' in head:
        return 1.0
    if "\nWARNING: Could not fetch server CONFIG" in head and head.startswith("Could not connect to Redis at "):
        return 1.0
    if _PROGRESS.search(head[:20000]):
        return 1.0  # redis 6/7 progress updates ("SET: rps=44973.0 (overall: 44973.0) avg_msec=...")
    lines = head[:20000].splitlines()[:50]
    if lines and all(_OLD_CSV_DETECT.match(x) for x in lines if x.strip()) and lines[0].strip():
        return 0.9
    if " requests per second" in head:
        for line in head.replace("\r", "\n").split("\n"):
            if " requests per second" in line and _QUIET.match(line):
                return 0.9
    return 0.0


def _value(token: str, path: str, line: int, what: str) -> float | None:
    """Read a printed number; None for nan/inf (no row); ParseError for anything else."""
    try:
        value = float(token)
    except ValueError:
        raise ParseError(path, line, f"{what}: expected a number, found {token!r}") from None
    return value if math.isfinite(value) else None


def _command(test: str) -> str:
    """Name the Redis command a test title stands for (``LRANGE_100 (first 100 elements)`` -> LRANGE)."""
    word = test.split(" ", 1)[0].upper()
    if word.startswith("PING_"):
        return "PING"
    return re.sub(r"_\d+$", "", word)


def _csv_fields(line: str) -> list[str] | None:
    """Split a redis-benchmark CSV line (every field double-quoted, never escaped)."""
    if len(line) < 2 or line[0] != '"' or line[-1] != '"':
        return None
    return line[1:-1].split('","')


class _Parser:
    """Read one text into ``rows``.

    Rows of a test block wait in the block's ``pending`` list as
    ``((metric, value, unit, higher_is_better, line, raw), extra_params)`` until the block is
    complete: they get the block's parameters, some of which come after them.
    """

    def __init__(self, path: str):
        self.path = path
        self.rows = Rows(path, benchmark=BENCHMARK, tool=TOOL)
        self.run: dict = {}  # trial, started_at, p_run, p_connections of the current IBM run
        self.date: pd.Timestamp | None = None
        self.block: dict | None = None  # the open test block of the state machine
        self.csv_columns: list[str] | None = None
        self.csv_runs = 0  # --csv tables read (each header starts one: runs appended)
        self.csv_first = 0  # the first row of the first table
        self.error: tuple[int, str] | None = None  # the tool's first error message and its line
        self.quiet: list[tuple[int, str]] = []  # -q lines (line, test) since the last empty line
        self.quiet_titles: set[str] = set()

    def test_params(self, test: str) -> dict:
        """Start the parameters of test ``test``: the run's, its title and its command."""
        return {**self.run, "p_test": test, "p_command": _command(test)}

    # -- the fast path ------------------------------------------------------------------------
    def fast_block(self, m: re.Match, n: int) -> None:
        """Add the rows of a canonical 2.x block matched by ``_FAST_BLOCK`` (header on line ``n``)."""
        self.block = None  # a block still open in the line machine was cut off by this one
        test, req, sec, clients, payload, keepalive, body, rps = m.groups()
        params = self.test_params(test)
        params.update(p_clients=int(clients), p_payload=int(payload),
                      p_keepalive=keepalive == "1", p_requests=int(req))
        add = self.rows.add
        add(n + 1, "requests", float(req), "count", None, f"{req} requests", params)
        add(n + 1, "duration", float(sec), "s", None, f"{sec} seconds", params)
        i = -1
        for i, (pct, ms) in enumerate(_FAST_BUCKET.findall(body)):
            add(n + 6 + i, "latency_cdf", float(pct), "%", True, f"{pct}%", params,
                p_le=float(ms) / 1000)
        add(n + 7 + i, "throughput", float(rps), "req/s", True, f"{rps} requests per second",
            params)

    def emit(self, pending: list, params: dict) -> None:
        """Add the ``pending`` rows with the test's ``params``."""
        add = self.rows.add
        for (metric, value, unit, hib, line, raw), extra in pending:
            add(line, metric, value, unit, hib, raw, params, **extra)

    # -- text report blocks, line by line -----------------------------------------------------
    def open_block(self, test: str, n: int) -> None:
        """Open the block of test ``test``, whose header is line ``n``."""
        self.block = {"test": test, "line": n, "params": self.test_params(test), "pending": [],
                      "section": None, "summary_names": None}

    def close_block(self) -> None:
        """Emit the open block's rows (it is complete)."""
        b = self.block
        self.block = None
        self.emit(b["pending"], b["params"])

    def block_line(self, line: str, n: int) -> None:
        """Read one line inside an open test block."""
        b = self.block
        path = self.path
        stripped = line.strip()
        if not stripped:
            return
        pending = b["pending"]
        m = _BUCKET.match(line)
        if m:
            pct = _value(m.group(1), path, n, "latency percentage")
            ms = _value(m.group(2), path, n, "latency milliseconds")
            if pct is None or ms is None:
                return
            section = b["section"]
            if section == "percentile_distribution":
                pending.append((("latency_percentile", ms / 1000, "s", False, n,
                                 f"{m.group(2)} milliseconds"),
                                {"p_percentile": pct, "p_section": section}))
            else:
                extra = {"p_le": ms / 1000}
                if section:
                    extra["p_section"] = section
                pending.append((("latency_cdf", pct, "%", True, n, f"{m.group(1)}%"), extra))
            return
        m = _RPS.match(line)
        if m:
            rps = _value(m.group(1), path, n, "requests per second")
            if rps is not None:
                pending.append((("throughput", rps, "req/s", True, n,
                                 f"{m.group(1)} requests per second"), _NO_EXTRA))
            self.close_block()
            return
        if b["summary_names"] is not None:
            self.summary_line(line, n)
            return
        m = _COMPLETED.match(line)
        if m:
            b["params"]["p_requests"] = int(m.group(1))
            pending.append((("requests", float(m.group(1)), "count", None, n,
                             f"{m.group(1)} requests"), _NO_EXTRA))
            seconds = _value(m.group(2), path, n, "seconds")
            if seconds is not None:
                pending.append((("duration", seconds, "s", None, n, f"{m.group(2)} seconds"),
                                _NO_EXTRA))
            return
        for rx, param, conv in _HEADER_PARAMS:
            m = rx.match(line)
            if m:
                b["params"][param] = conv(m.group(1))
                return
        if _CONFIG.match(line):
            return
        if stripped in _SECTIONS:
            b["section"] = _SECTIONS[stripped]
            return
        if b["section"] == "summary":
            m = _THROUGHPUT_SUMMARY.match(line)
            if m:
                rps = _value(m.group(1), path, n, "throughput summary")
                if rps is not None:
                    pending.append((("throughput", rps, "req/s", True, n,
                                     f"{m.group(1)} requests per second"), _SUMMARY))
                return
            if stripped == "latency summary (msec):":
                b["summary_names"] = []  # the column names come on the next line
                return
        raise ParseError(path, n, f"unexpected line in the {b['test']!r} test block "
                                  f"(started at line {b['line']}): {stripped[:80]!r}")

    def summary_line(self, line: str, n: int) -> None:
        """Read the two lines after ``latency summary (msec):``: names, then values."""
        b = self.block
        tokens = line.split()
        if not b["summary_names"]:
            if not all(t in _SUMMARY_METRICS or _PCT_NAME.match(t) for t in tokens):
                raise ParseError(self.path, n, "latency summary: expected column names such as "
                                               f"'avg min p50 p95 p99 max', found {line.strip()!r}")
            b["summary_names"] = tokens
            return
        names = b["summary_names"]
        if len(tokens) != len(names):
            raise ParseError(self.path, n, f"latency summary: expected {len(names)} values "
                                           f"({' '.join(names)}), found {line.strip()!r}")
        for name, token in zip(names, tokens, strict=True):
            self.latency(b["pending"], name, token, n, f"{token} msec ({name})")
        self.close_block()

    def latency(self, out: list, name: str, token: str, n: int, raw: str) -> None:
        """Append a summary latency in ms (``avg``, ``min``, ``max``, ``pNN``) as a pending row."""
        ms = _value(token, self.path, n, name)
        if ms is None:
            return
        m = _PCT_NAME.match(name)
        if m:
            out.append((("latency_percentile", ms / 1000, "s", False, n, raw),
                        {"p_percentile": float(m.group(1)), "p_section": "summary"}))
        else:
            out.append(((_SUMMARY_METRICS[name], ms / 1000, "s", False, n, raw), _SUMMARY))

    # -- lines outside blocks -----------------------------------------------------------------
    def csv_row(self, line: str, n: int) -> None:
        """Read one row of a ``--csv`` table."""
        fields = _csv_fields(line.strip())
        cols = self.csv_columns
        if fields is None or len(fields) != len(cols):
            raise ParseError(self.path, n, f"CSV row: expected {len(cols)} double-quoted fields "
                                           f"({','.join(cols)}), found {line.strip()[:80]!r}")
        pending: list = []
        for name, token in zip(cols[1:], fields[1:], strict=True):
            if name == "rps":
                rps = _value(token, self.path, n, "rps")
                if rps is not None:
                    pending.append((("throughput", rps, "req/s", True, n,
                                     f"{token} requests per second (rps)"), _SUMMARY))
            elif name.endswith("_latency_ms"):
                stem = name[: -len("_latency_ms")]
                if stem in _SUMMARY_METRICS or _PCT_NAME.match(stem):
                    self.latency(pending, stem, token, n, f"{token} msec ({name})")
        self.emit(pending, self.test_params(fields[0]))

    def old_csv_row(self, line: str, n: int) -> None:
        """Read one ``"TEST","RPS"`` line of the headerless CSV of redis-benchmark before 6.2."""
        m = _OLD_CSV.match(line)
        if m is None:
            raise ParseError(self.path, n, "CSV line: expected '\"<test>\",\"<requests per second>\"' "
                                           f"or a '\"test\",\"rps\",...' header, found {line.strip()[:80]!r}")
        test, token = m.groups()
        rps = _value(token, self.path, n, "requests per second")
        if rps is not None:
            self.emit([(("throughput", rps, "req/s", True, n, f"{token} requests per second"),
                        _SUMMARY)], self.test_params(test))

    def quiet_row(self, m: re.Match, n: int) -> None:
        """Read one ``-q`` line (matched by ``_QUIET``)."""
        pending: list = []
        rps = _value(m.group(2), self.path, n, "requests per second")
        if rps is not None:
            pending.append((("throughput", rps, "req/s", True, n,
                             f"{m.group(2)} requests per second"), _SUMMARY))
        if m.group(3) is not None:
            self.latency(pending, "p50", m.group(3), n, f"p50={m.group(3)} msec")
        self.emit(pending, self.test_params(m.group(1)))
        self.quiet.append((n, m.group(1)))
        self.quiet_titles.add(m.group(1))

    def line(self, line: str, n: int) -> None:
        """Read one line (the text after its last carriage return), numbered ``n``."""
        if not line:
            self.quiet = []  # the empty line redis-benchmark prints after its suite (not the
            # spaces that clear a progress update: a capture can stop after those)
        if line[:1] in ("C", "E") and _ERROR.match(line):
            if self.error is None:
                self.error = (n, line.strip())
            self.block = None  # a test in progress when the server went away never ends
            return
        if self.block is not None:
            m = _HEADER.match(line)
            if m:  # a new test before the last one ended: the old block was cut off
                self.open_block(m.group(1), n)
                return
            if not line.startswith("[DBG]"):
                self.block_line(line, n)
                return
            self.block = None  # the wrapper moved on: the block was cut off
        if not line or line[0] in " -":  # blank, indented, or the wrapper's "------" lines
            return
        c = line[0]
        if c == "=":
            m = _HEADER.match(line)
            if m:
                self.open_block(m.group(1), n)
        elif c == "[":
            m = _RUN.match(line)
            if m:
                run = int(m.group(1))
                self.run = {"trial": run, "p_run": run, "p_connections": int(m.group(2))}
                if self.date is not None:
                    self.run["started_at"] = self.date
                return
            m = _DBG_DATE.match(line)
            if m:
                self.date = started_at(m.group(1))
        elif c == '"' and _CSV_HEADER.match(line):
            self.csv_columns = _csv_fields(line.strip())
            self.csv_runs += 1
            if self.csv_runs == 1:
                self.csv_first = len(self.rows)  # numbered once a second table shows
            else:
                if self.csv_runs == 2:  # runs appended: the first one is run 1
                    self.rows.fill("trial", 1, self.csv_first)
                    self.rows.fill("p_run", 1, self.csv_first)
                self.run = {"trial": self.csv_runs, "p_run": self.csv_runs}
        elif c == '"' and self.csv_columns is not None:
            self.csv_row(line, n)
        elif c == '"':
            self.old_csv_row(line, n)
        elif '"test","rps"' in line:
            raise ParseError(self.path, n, "malformed --csv header (expected it to start with "
                                           f"'\"test\",\"rps\"'): {line.strip()[:80]!r}")
        elif " requests per second" in line:
            m = _QUIET.match(line)
            if m:
                self.quiet_row(m, n)

    def lines(self, text: str, first: int, *, before_header: bool = False) -> None:
        r"""Feed ``text`` (a stretch of the whole output starting at line ``first``) line by line.

        ``before_header``: ``text`` ends where a block header starts, after a ``\r`` or ``\n``;
        its last, unterminated piece is the part of the header's line before that carriage
        return, which is never read.
        """
        parts = text.split("\n")
        if before_header or parts[-1] == "":
            parts.pop()  # the header's piece, or the nothing after a last line end
        for n, line in enumerate(parts, start=first):
            if "\r" in line:  # keep what follows the last carriage return (CRLF endings too)
                line = line.rstrip("\r")
                line = line[line.rfind("\r") + 1:]
            self.line(line, n)


def parse(text: str, path: str = "<string>") -> pd.DataFrame:
    """Parse redis-benchmark output into tidy rows (see the module docstring).

    Follows the parser contract of :mod:`overhead.parsers` (text and path in, conformed
    tidy rows out); the rows are described in the module docstring.

    Raises
    ------
    ParseError
        For a malformed line inside a test block or a CSV table, and when the text holds no
        complete test result at all.
    """
    p = _Parser(path)
    pos, n = 0, 1
    for m in _FAST_BLOCK.finditer(text):
        start = m.start()
        if start and text[start - 1] not in "\r\n":
            continue  # not at the start of a line: the line machine deals with it
        gap = text[pos:start]
        p.lines(gap, n, before_header=True)
        n += gap.count("\n")
        p.fast_block(m, n)
        pos = m.end()
        n += text.count("\n", start, pos)
    p.lines(text[pos:], n)
    if not len(p.rows):
        if p.error is not None:
            raise RunFailed(path, p.error[0], f"redis-benchmark printed {p.error[1]!r} before "
                                              "any test finished")
        if p.block is not None:
            raise RunFailed(path, None, f"the {p.block['test']!r} test that starts at line "
                                        f"{p.block['line']} never finished, and no test before it")
        if p.csv_columns is not None or detect(text) > 0:
            raise RunFailed(path, None, "no redis-benchmark test finished (no result line)")
        raise ParseError(path, 1, "not redis-benchmark output (expected '====== TEST ======' "
                                  "blocks ending in 'N requests per second' or a latency summary, "
                                  "a --csv table, or -q lines)")
    df = p.rows.frame()
    if p.error is not None or p.block is not None:
        done = ", ".join(dict.fromkeys(df["p_test"].astype(str)))
        during = f" during the {p.block['test']!r} test (line {p.block['line']})" if p.block else ""
        if p.error is not None:
            return cut_short(df, path, p.error[0], f"redis-benchmark printed {p.error[1]!r}"
                                                   f"{during}; the tests that finished are kept: {done}")
        return cut_short(df, path, None, f"the {p.block['test']!r} test that starts at line "
                                         f"{p.block['line']} never finished; the tests that finished "
                                         f"are kept: {done}")
    cut = end_cut_mid_line(df, text, path)
    if cut is not None:
        return cut
    if p.quiet and p.quiet_titles <= _SUITE:
        n, test = p.quiet[-1]
        return cut_short(df, path, n, f"the -q line of {test!r} is not followed by the empty "
                         "line redis-benchmark prints after its tests: the capture ends before "
                         "the run did; the tests read are kept")
    return df
