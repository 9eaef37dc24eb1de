"""sysbench text output: 0.4 (OLTP and the built-in tests) and 1.0 (built-in tests, Lua OLTP).

One file may hold several reports concatenated (the IBM MySQL files hold 15-17, one per thread
count). A report starts at a ``sysbench <version>`` header line, or, in text without headers
(outputs copied off web pages), at the first statistic after the previous report ended. Each
report gets ``p_report`` (1-based index in the file) and ``tool_version`` from its header.

Formats
-------
1. sysbench 0.4.12 OLTP (``--test=oltp``), as in the IBM authors' ``mysql/results`` files::

       OLTP test statistics:
           queries performed:
               read:                            2860480
           ...
           transactions:                        204320 (3405.19 per sec.)
       Test execution summary:
           total time:                          60.0026s
           per-request statistics:
                min:                                  2.20ms
                approx.  95 percentile:               3.34ms
       Threads fairness:
           events (avg/stddev):           20432.0000/1027.44
           execution time (avg/stddev):   59.8141/0.01

2. sysbench 0.4 cpu, memory, threads, mutex and fileio reports, including text whose line breaks
   were flattened by a web page (several ``label: value`` pairs on one line, as in seed 004).
3. sysbench 1.0 (Debian 1.0.20): cpu, memory, threads, mutex, fileio prepare/run/cleanup and the
   Lua database tests (oltp_read_write, oltp_read_only, oltp_point_select, ...), with optional
   ``--report-interval`` lines (``[ 1s ] thds: 2 tps: ...``) and ``--histogram`` tables.

Metrics (canonical units; sysbench's latencies are ms, converted to s; its "Mb"/"MB"/"MiB" are
all 1024**2 bytes, "Kb" 1024, "Gb" 1024**3 -- sysbench 0.4 computes them with 1024*1024)
------------------------------------------------------------------------------------------------
Summary rows (no p_time):
- database tests: ``queries_read``, ``queries_write``, ``queries_other``, ``queries_total``,
  ``transactions``, ``deadlocks``, ``ignored_errors``, ``reconnects`` (count);
  ``transaction_rate`` (tx/s); ``deadlock_rate`` (op/s); ``rw_request_rate``, ``query_rate``
  (req/s); ``other_operation_rate`` (op/s); ``ignored_error_rate``, ``reconnect_rate`` (event/s).
  The counts of "read/write requests", "other operations" and "queries" repeat queries_* and
  give no row of their own.
- every test: ``total_time`` (s), ``events`` (count), ``event_time_total`` (s; 0.4 "total time
  taken by event execution", 1.0 latency "sum"), ``latency_min``, ``latency_mean``,
  ``latency_max`` (s), ``latency_percentile`` (s, with ``p_percentile`` as the output states it:
  "approx.  95 percentile", "99th percentile"), ``fairness_events_mean``, ``fairness_events_sd``
  (count), ``fairness_time_mean``, ``fairness_time_sd`` (s).
- cpu: ``event_rate`` (event/s, 1.0 "events per second").
- memory: ``operations`` (count), ``operation_rate`` (op/s), ``data_transferred`` (B),
  ``transfer_rate`` (B/s).
- fileio 0.4: ``read_operations``, ``write_operations``, ``other_operations``, ``operations``
  (count), ``data_read``, ``data_written``, ``data_transferred`` (B), ``transfer_rate`` (B/s),
  ``request_rate`` (req/s).
- fileio 1.0: ``read_rate``, ``write_rate``, ``fsync_rate`` (op/s), ``read_throughput``,
  ``write_throughput`` (B/s); fileio prepare (1.0: "67108864 bytes written in 0.06 seconds
  (1066.00 MiB/sec)."): ``prepare_data_written`` (B), ``prepare_time`` (s), ``prepare_throughput``
  (B/s). sysbench 0.4's prepare prints no such line and gives no row.

Time-series rows (``--report-interval``), each with ``p_time`` (s since start, as printed):
``threads_running`` (count, "thds"), ``transaction_rate`` (tx/s), ``query_rate``,
``read_query_rate``, ``write_query_rate``, ``other_query_rate`` (req/s, "qps" and "r/w/o"),
``latency_percentile`` (s, "lat (ms,95%)"), ``error_rate``, ``reconnect_rate`` (event/s),
``event_rate`` (event/s, "eps"), ``read_throughput``, ``write_throughput``, ``transfer_rate``
(B/s), ``fsync_rate`` (op/s).

Histogram rows (``--histogram``): ``latency_bin_count`` (count) with ``p_latency`` (s, the bin
value as printed; sysbench prints 3 decimals of ms, so neighbouring bins can print the same value).

Parameters (only what the report says; p_test and p_percentile columns are always present, NA
where the output does not say): p_report, p_threads, p_test (oltp, cpu, memory, threads,
mutex, fileio), p_mode (0.4 OLTP "Doing read-only test" -> "read-only"; fileio "Doing random r/w
test" -> "random r/w"), p_oltp_mode ("mixed" from "Running mixed OLTP test"), p_distribution
("special"), p_max_prime, p_block_size, p_total_size, p_file_size (B), p_files, p_operation,
p_scope, p_rw_ratio, p_fsync_interval, p_io_mode, p_io_requests, p_thread_yields, p_thread_locks,
p_complete (True once the report's last statistic, "execution time (avg/stddev)", was read).
sysbench 1.0 prints neither the Lua script's name nor the memory access mode: a 1.0 report with
"SQL statistics" or tps/qps interval lines gets p_test "oltp" (a database test); threads and mutex
reports say nothing about their test and get no p_test.

Completeness and absent values
------------------------------
Rows come from complete lines only: a final line without a newline is taken as cut off mid-write
and ignored (sysbench ends every line with a newline). A report cut before its statistics yields
no rows; one cut inside them keeps the rows of the lines it has, with ``p_complete`` False.
No row is made for: a percentile that sysbench did not compute (1.0 ``--percentile=0`` prints
"lat (ms,0%): 0.00" and "percentile stats: disabled"; 0.4 prints its histogram's upper bound
"10000000.00ms" when the percentile falls off the end, e.g. for the 2-event mutex test); a
"avg/stddev" pair whose slash was lost in flattening ("168.47610.00" in seed 004) -- splitting it
would be a guess.

**Outcomes** (the rule of :mod:`overhead.parsers`). A report ends with "execution time
(avg/stddev)" (the last line of "Threads fairness"), a fileio prepare with its "bytes written"
line. A report cut before that line but after some statistics is a run cut short: its rows are
kept (``p_complete`` False) and the frame is marked cut short
(:func:`~overhead.parsers._common.cut_short`). A successful step that measures nothing (an OLTP
``prepare``: "Creating table 'sbtest1'...", a fileio ``cleanup``: "Removing test files...",
``sysbench --version``) is not a failed run: it raises ParseError saying which step it is,
so that it is never recorded as a run that did not finish. A sysbench error ("FATAL: ...")
before any statistic raises RunFailed quoting it. Text with no sysbench header and no sysbench
statistic raises ParseError, as does a recognised statistic whose value is malformed.
"""

from __future__ import annotations

import math
import re

import pandas as pd

from overhead.parsers._common import (
    ParseError,
    Rows,
    RunFailed,
    cut_short,
    integer,
    number,
    size_bytes,
)

#: What a successful sysbench step that measures nothing prints (the step, for the message).
_STEPS = (("Creating table '", "an OLTP 'prepare' step"), ("Inserting ", "an OLTP 'prepare' step"),
          ("Creating a secondary index", "an OLTP 'prepare' step"),
          ("Dropping table '", "an OLTP 'cleanup' step"),
          ("Removing test files", "a fileio 'cleanup' step"),
          ("Creating files for the test", "a fileio 'prepare' step"))
_FATAL = re.compile(r"^(?:FATAL|ERROR|Error)\b.*")

TOOL = "sysbench"
BENCHMARK = "sysbench"

MIB = 1024.0**2
# 0.4 prints this (OPER_LOG_MAX_VALUE = 1e13 ns) when its percentile search runs off the end.
_PERCENTILE_SENTINEL_MS = 10000000.0

_DETECT_HEADER = re.compile(r"(?m)^sysbench \d+\.\d+[.:\s]")
_HEADER = re.compile(r"^sysbench (\d+\.\d+(?:\.\d+)?)(?::|\s|$)")
# Break flattened text (several "label: value" pairs on one line) before each known label.
_FLAT = re.compile(
    r"\s+(?=(?:Test execution summary:|General statistics:|total time|total number of events:"
    r"|per-request statistics:|response time:|min:|avg:|max:|approx\.|Threads fairness:"
    r"|events \(avg/stddev\):|execution time \(avg/stddev\):|Read [0-9]"
    r"|[0-9.]+ Requests/sec executed|Number of threads:))"
)
_COUNT_RATE = re.compile(r"^(\d+)\s+\(\s*([0-9.]+) (?:per sec\.|per second|ops/sec)\)$")
_FILE_OPS = re.compile(
    r"^(\d+) (?:Read|reads), (\d+) (?:Write|writes), (\d+) Other = (\d+) Total$")
_FILE_BYTES = re.compile(
    r"^Read (\S+)\s+Written (\S+)\s+Total transferred (\S+)\s+\((\S+?)/sec\)$")
_REQUESTS = re.compile(r"^([0-9.]+) Requests/sec executed$")
_TRANSFERRED = re.compile(r"^([0-9.]+) (MiB|MB) transferred \(([0-9.]+) (?:MiB|MB)/sec\)$")
_PREPARED = re.compile(
    r"^(\d+) bytes written in ([0-9.]+) seconds \(([0-9.]+) (?:MiB|MB)/sec\)\.?$")
_FAIR = re.compile(r"^([0-9.]+)/([0-9.]+)$")
_FLAT_FAIR = re.compile(r"^\d+\.\d+\.\d+$")  # "168.47610.00": the slash was lost
_PCT_OLD = re.compile(r"^approx\.\s+(\d+)\s+percentile$")
_PCT_NEW = re.compile(r"^(\d+)(?:st|nd|rd|th) percentile$")
_DOING = re.compile(r"^Doing (.+?) test\.?$")
_DISTRIBUTION = re.compile(r"^Using (\w+) distribution\b")
_FILES = re.compile(r"^(\d+) files, (\S+) each(?:, \S+ total)?$")
_TOTAL_FILE = re.compile(r"^(\S+) total file size$")
_BLOCK = re.compile(r"^Block size (\S+)$")
_FSYNC = re.compile(r"calling fsync\(\) each (\d+) requests")
_IO_MODE = re.compile(r"^Using (\w+) I/O mode$")
_HIST_ROW = re.compile(r"^([0-9]+\.[0-9]+) \|\**\s+(\d+)$")
_INTERVAL = re.compile(r"^\[\s*([0-9.]+)s\s*\]\s*(.*)$")
_IV_SQL = re.compile(
    r"^thds: (\d+) tps: ([0-9.]+) qps: ([0-9.]+) \(r/w/o: ([0-9.]+)/([0-9.]+)/([0-9.]+)\) "
    r"lat \(ms,(\d+)%\): ([0-9.]+) err/s:? ([0-9.]+) reconn/s: ([0-9.]+)")
_IV_EPS = re.compile(r"^thds: (\d+) eps: ([0-9.]+) lat \(ms,(\d+)%\): ([0-9.]+)")
_IV_FILE = re.compile(
    r"^reads: ([0-9.]+) MiB/s writes: ([0-9.]+) MiB/s fsyncs: ([0-9.]+)/s "
    r"latency \(ms,(\d+)%\): ([0-9.]+)")
_IV_MEM = re.compile(r"^([0-9.]+) MiB/sec$")

# label -> (count metric or None, rate metric, rate unit, higher_is_better of the rate)
_COUNT_RATE_LABELS = {
    "transactions": ("transactions", "transaction_rate", "tx/s", True),
    "deadlocks": ("deadlocks", "deadlock_rate", "op/s", False),
    "read/write requests": (None, "rw_request_rate", "req/s", True),
    "other operations": (None, "other_operation_rate", "op/s", True),
    "queries": (None, "query_rate", "req/s", True),
    "ignored errors": ("ignored_errors", "ignored_error_rate", "event/s", False),
    "reconnects": ("reconnects", "reconnect_rate", "event/s", False),
    "Total operations": ("operations", "operation_rate", "op/s", True),
}
_QUERY_LABELS = {"read": "queries_read", "write": "queries_write", "other": "queries_other",
                 "total": "queries_total"}
_LATENCY_LABELS = {"min": "latency_min", "avg": "latency_mean", "max": "latency_max"}
_FILE_RATE_LABELS = {"reads/s": ("read_rate", "op/s", 1.0),
                     "writes/s": ("write_rate", "op/s", 1.0),
                     "fsyncs/s": ("fsync_rate", "op/s", 1.0),
                     "read, MiB/s": ("read_throughput", "B/s", MIB),
                     "written, MiB/s": ("write_throughput", "B/s", MIB)}
_TEST_NAMES = {"OLTP": "oltp", "mutex performance": "mutex",
               "thread subsystem performance": "threads", "memory operations speed": "memory"}


def detect(text: str) -> float:
    """Tell whether ``text`` is sysbench output.

    Returns a confidence from 0 (not sysbench output) to 1.
    """
    head = text[:6000]
    if _DETECT_HEADER.search(head):
        return 1.0
    if "Threads fairness:" in head and "events (avg/stddev):" in head:
        return 0.9
    return 0.0


class _Report:
    """One sysbench report: its parameters, version and whether its last statistic was read."""

    __slots__ = ("index", "params", "version", "complete")

    def __init__(self, index: int, version: str | None):
        self.index = index
        self.params: dict[str, object] = {}
        self.version = version
        self.complete = False


class _Parser:
    """State of one parse: the reports seen so far and their rows."""

    def __init__(self, path: str):
        self.path = path
        self.reports: list[_Report] = []
        self.report: _Report | None = None
        self.section: str | None = None
        self.in_histogram = False
        # p_percentile and p_test are always present (NA where they do not apply), so that
        # frames from prefixes and whole files have the same identifying columns
        self.rows = Rows(path, benchmark=BENCHMARK, tool=TOOL,
                         dtypes={"p_percentile": "Float64", "p_test": "string"})
        self.report_start = 0  # first row of the current report

    # -- rows ------------------------------------------------------------------------------
    def add(self, lineno: int, metric: str, value: float, unit: str, hib: bool | None, raw: str,
            pct: float | None = None, time: float | None = None, lat: float | None = None) -> None:
        """Append one row for the current report."""
        if self.report is None or self.report.complete:
            self.stat_report()
        if pct is None and time is None and lat is None:
            self.rows.add(lineno, metric, value, unit, hib, raw)
        else:
            self.rows.add(lineno, metric, value, unit, hib, raw, p_percentile=pct, p_time=time,
                          p_latency=lat)

    def close_report(self) -> None:
        """Give the current report's rows what the report states (known once it is over)."""
        r = self.report
        if r is None:
            return
        rows, start = self.rows, self.report_start
        rows.fill("p_report", r.index, start)
        rows.fill("p_complete", r.complete, start)
        rows.fill("tool_version", r.version, start)
        for name, value in r.params.items():
            rows.fill(name, value, start)
        self.report_start = len(rows)

    def num(self, token: str, lineno: int, what: str) -> float:
        """Read a number at ``lineno``."""
        return number(token, self.path, lineno, what)

    def stat_report(self) -> _Report:
        """Return the report a statistic belongs to; start one when none is open (headerless text)."""
        if self.report is None or self.report.complete:
            self.new_report(None)
        return self.report

    def new_report(self, version: str | None) -> None:
        """Start report number len(reports) + 1 (its header states ``version``)."""
        self.close_report()
        self.report = _Report(len(self.reports) + 1, version)
        self.reports.append(self.report)
        self.section = None
        self.in_histogram = False

    def set_test(self, name: str) -> None:
        """Say which test the current report is, unless it said so already."""
        if self.report is not None:
            self.report.params.setdefault("p_test", name)

    def param(self, name: str, value: object) -> None:
        """Set parameter ``name`` of the current report."""
        if self.report is not None:
            self.report.params[name] = value

    # -- lines -----------------------------------------------------------------------------
    def feed(self, lineno: int, seg: str) -> None:
        """Handle one line (or one piece of a flattened line)."""
        if self.in_histogram:
            m = _HIST_ROW.match(seg)
            if m:
                ms = self.num(m.group(1), lineno, "histogram value")
                count = integer(m.group(2), self.path, lineno, "histogram count")
                self.add(lineno, "latency_bin_count", float(count), "count", None, m.group(2),
                         lat=ms / 1000.0)
                return
            if seg.startswith("value") and "distribution" in seg:
                return
            self.in_histogram = False
        c0 = seg[0]
        if c0 == "s":
            m = _HEADER.match(seg)
            if m:
                self.new_report(m.group(1))
                return
        elif c0 == "[":
            m = _INTERVAL.match(seg)
            if m and self.report is not None:
                self.interval(lineno, self.num(m.group(1), lineno, "interval time"), m.group(2))
            return
        label, sep, rest = seg.partition(":")
        if sep:
            self.labelled(lineno, label.strip(), rest.strip())
        else:
            self.unlabelled(lineno, seg)

    def labelled(self, lineno: int, label: str, value: str) -> None:
        """Read a ``label: value`` line."""
        section = self.section
        if section == "queries" and label in _QUERY_LABELS:
            self.stat_report()
            v = integer(value, self.path, lineno, label)
            self.add(lineno, _QUERY_LABELS[label], float(v), "count", None, value)
            return
        if section == "latency":
            if label in _LATENCY_LABELS:
                self.stat_report()
                ms = self.num(value.removesuffix("ms"), lineno, label)
                self.add(lineno, _LATENCY_LABELS[label], ms / 1000.0, "s", False, value)
                return
            if label == "sum":
                ms = self.num(value, lineno, label)
                self.add(lineno, "event_time_total", ms / 1000.0, "s", None, value)
                return
            m = _PCT_OLD.match(label) or _PCT_NEW.match(label)
            if m:
                self.stat_report()
                ms = self.num(value.removesuffix("ms"), lineno, label)
                if label[0] == "a" and ms == _PERCENTILE_SENTINEL_MS:
                    return
                self.add(lineno, "latency_percentile", ms / 1000.0, "s", False, value,
                         pct=float(m.group(1)))
                return
            if label == "percentile stats":
                return
        self.section = None
        if label in _COUNT_RATE_LABELS:
            count_metric, rate_metric, unit, hib = _COUNT_RATE_LABELS[label]
            m = _COUNT_RATE.match(value)
            if not m:
                raise ParseError(self.path, lineno, f"{label}: expected '<count> (<rate> per sec.)', "
                                 f"found {value!r}")
            self.stat_report()
            if count_metric:
                n = integer(m.group(1), self.path, lineno, label)
                self.add(lineno, count_metric, float(n), "count", None, m.group(1))
            rate = self.num(m.group(2), lineno, label)
            self.add(lineno, rate_metric, rate, unit, hib, value[m.start(2):].rstrip(")"))
            if label == "Total operations":
                self.set_test("memory")
            return
        if label in _FILE_RATE_LABELS:
            metric, unit, scale = _FILE_RATE_LABELS[label]
            self.stat_report()
            self.set_test("fileio")
            self.add(lineno, metric, self.num(value, lineno, label) * scale, unit, True, value)
            return
        handler = _LABEL_HANDLERS.get(label)
        if handler is not None:
            handler(self, lineno, value)
            return
        if label.startswith("Thread yields per test"):
            m = re.match(r"^(\d+)\s+Locks used:\s*(\d+)$", value)
            if m and self.report is not None:
                self.set_test("threads")
                self.param("p_thread_yields", int(m.group(1)))
                self.param("p_thread_locks", int(m.group(2)))

    # label handlers --------------------------------------------------------------------------
    def h_queries(self, lineno: int, value: str) -> None:
        self.section = "queries"

    def h_latency(self, lineno: int, value: str) -> None:
        self.section = "latency"

    def h_total_time(self, lineno: int, value: str) -> None:
        self.stat_report()
        self.add(lineno, "total_time", self.num(value.removesuffix("s"), lineno, "total time"),
                 "s", None, value)

    def h_events(self, lineno: int, value: str) -> None:
        self.stat_report()
        n = integer(value, self.path, lineno, "total number of events")
        self.add(lineno, "events", float(n), "count", None, value)

    def h_event_time(self, lineno: int, value: str) -> None:
        self.stat_report()
        self.add(lineno, "event_time_total",
                 self.num(value.removesuffix("s"), lineno, "total time taken by event execution"),
                 "s", None, value)

    def h_fair_events(self, lineno: int, value: str) -> None:
        self.fairness(lineno, value, "events", 1.0, "count")

    def h_fair_time(self, lineno: int, value: str) -> None:
        self.fairness(lineno, value, "time", 1.0, "s")
        self.report.complete = True

    def fairness(self, lineno: int, value: str, what: str, scale: float, unit: str) -> None:
        self.stat_report()
        m = _FAIR.match(value)
        if not m:
            if _FLAT_FAIR.match(value):
                return  # flattened "avg/stddev" whose slash was lost: not split by guesswork
            raise ParseError(self.path, lineno, f"{what} (avg/stddev): expected '<avg>/<stddev>', "
                             f"found {value!r}")
        mean = self.num(m.group(1), lineno, f"{what} avg")
        sd = self.num(m.group(2), lineno, f"{what} stddev")
        self.add(lineno, f"fairness_{what}_mean", mean * scale, unit, None, m.group(1))
        self.add(lineno, f"fairness_{what}_sd", sd * scale, unit, None, m.group(2))

    def h_threads(self, lineno: int, value: str) -> None:
        if self.report is not None:
            self.param("p_threads", integer(value, self.path, lineno, "Number of threads"))

    def h_max_prime(self, lineno: int, value: str) -> None:
        if self.report is not None:
            self.set_test("cpu")
            self.param("p_max_prime", integer(value, self.path, lineno, "prime numbers limit"))

    def h_cpu_speed(self, lineno: int, value: str) -> None:
        self.set_test("cpu")

    def h_eps(self, lineno: int, value: str) -> None:
        self.stat_report()
        self.set_test("cpu")
        self.add(lineno, "event_rate", self.num(value, lineno, "events per second"), "event/s",
                 True, value)

    def h_ops(self, lineno: int, value: str) -> None:
        """0.4 "Operations performed:" (memory: count and rate; fileio: four counts)."""
        m = _COUNT_RATE.match(value)
        if m:
            self.stat_report()
            self.set_test("memory")
            n = integer(m.group(1), self.path, lineno, "operations performed")
            self.add(lineno, "operations", float(n), "count", None, m.group(1))
            self.add(lineno, "operation_rate", self.num(m.group(2), lineno, "ops/sec"), "op/s",
                     True, value[m.start(2):].rstrip(")"))
            return
        m = _FILE_OPS.match(value)
        if not m:
            raise ParseError(self.path, lineno, "Operations performed: expected '<n> (<rate> ops/sec)' "
                             f"or '<n> Read, <n> Write, <n> Other = <n> Total', found {value!r}")
        self.stat_report()
        self.set_test("fileio")
        for i, metric in enumerate(("read_operations", "write_operations", "other_operations",
                                    "operations"), start=1):
            n = integer(m.group(i), self.path, lineno, metric)
            self.add(lineno, metric, float(n), "count", None, m.group(i))

    def h_sql(self, lineno: int, value: str) -> None:
        self.set_test("oltp")

    def h_rw_ratio(self, lineno: int, value: str) -> None:
        if self.report is not None:
            self.param("p_rw_ratio", self.num(value, lineno, "read/write ratio"))

    def h_io_requests(self, lineno: int, value: str) -> None:
        if self.report is not None:
            self.param("p_io_requests", integer(value, self.path, lineno, "number of IO requests"))

    # -- lines without a colon -------------------------------------------------------------
    def unlabelled(self, lineno: int, seg: str) -> None:
        """Lines without a ``label:`` (test headers, fileio and memory summaries)."""
        c0 = seg[0]
        if c0.isdigit():
            m = _TRANSFERRED.match(seg)
            if m:
                self.stat_report()
                self.set_test("memory")
                size = self.num(m.group(1), lineno, "transferred") * MIB
                rate = self.num(m.group(3), lineno, "transfer rate") * MIB
                self.add(lineno, "data_transferred", size, "B", None, seg[: m.end(2)])
                self.add(lineno, "transfer_rate", rate, "B/s", True, seg[m.start(3):].rstrip(")"))
                return
            m = _REQUESTS.match(seg)
            if m:
                self.stat_report()
                self.add(lineno, "request_rate", self.num(m.group(1), lineno, "Requests/sec"),
                         "req/s", True, seg)
                return
            m = _PREPARED.match(seg)
            if m:
                self.stat_report()
                self.set_test("fileio")
                written = integer(m.group(1), self.path, lineno, "bytes written")
                self.param("p_total_size", written)
                self.add(lineno, "prepare_data_written", float(written), "B", None,
                         f"{m.group(1)} bytes")
                self.add(lineno, "prepare_time", self.num(m.group(2), lineno, "seconds"), "s",
                         False, f"{m.group(2)} seconds")
                self.add(lineno, "prepare_throughput", self.num(m.group(3), lineno, "MiB/sec") * MIB,
                         "B/s", True, f"{m.group(3)} MiB/sec")
                self.report.complete = True  # the last line "prepare" prints
                return
            if self.report is None:
                return
            m = _FILES.match(seg)
            if m:
                self.set_test("fileio")
                self.param("p_files", integer(m.group(1), self.path, lineno, "files"))
                self.param("p_file_size", _size(m.group(2), self.path, lineno, "file size"))
                return
            m = _TOTAL_FILE.match(seg)
            if m:
                self.param("p_total_size", _size(m.group(1), self.path, lineno, "total size"))
            return
        if c0 == "R":
            m = _FILE_BYTES.match(seg)
            if m:
                self.stat_report()
                self.set_test("fileio")
                for i, metric in ((1, "data_read"), (2, "data_written"), (3, "data_transferred")):
                    self.add(lineno, metric, size_bytes(m.group(i), self.path, lineno, metric), "B",
                             None, m.group(i))
                self.add(lineno, "transfer_rate",
                         size_bytes(m.group(4), self.path, lineno, "transfer rate"), "B/s", True,
                         m.group(4) + "/sec")
                return
            if seg.startswith("Running mixed OLTP"):
                self.param("p_oltp_mode", "mixed")
            elif seg.startswith("Running simple OLTP"):
                self.param("p_oltp_mode", "simple")
            elif seg.startswith("Running memory speed test"):
                self.set_test("memory")
            elif seg.startswith("Removing test files"):
                self.set_test("fileio")
            return
        if self.report is None:
            return
        if c0 == "D":
            m = _DOING.match(seg)
            if m:
                what = m.group(1)
                test = _TEST_NAMES.get(what)
                if test:
                    self.set_test(test)
                elif self.report.params.get("p_test") == "oltp":
                    self.param("p_mode", what)
                elif what.startswith(("random", "sequential", "async")):
                    self.set_test("fileio")
                    self.param("p_mode", what)
            elif seg.startswith("Doing CPU performance benchmark"):
                self.set_test("cpu")
            return
        if c0 == "U":
            m = _DISTRIBUTION.match(seg)
            if m:
                self.param("p_distribution", m.group(1).lower())
                return
            m = _IO_MODE.match(seg)
            if m:
                self.param("p_io_mode", m.group(1))
            return
        if c0 == "B":
            m = _BLOCK.match(seg)
            if m:
                self.param("p_block_size", _size(m.group(1), self.path, lineno, "block size"))
            return
        if c0 == "P":
            m = _FSYNC.search(seg)
            if m:
                self.param("p_fsync_interval", int(m.group(1)))
            return
        if c0 == "L" and seg.startswith("Latency histogram"):
            self.in_histogram = True
            return
        if c0 == "C" and seg.startswith("Creating files for the test"):
            self.set_test("fileio")

    # -- interval lines --------------------------------------------------------------------
    def interval(self, lineno: int, t: float, body: str) -> None:
        """One ``--report-interval`` line; unknown layouts give no rows."""
        m = _IV_SQL.match(body)
        if m:
            self.set_test("oltp")
            g = m.groups()
            self.add(lineno, "threads_running", float(g[0]), "count", None, g[0], time=t)
            for i, metric, unit in ((1, "transaction_rate", "tx/s"), (2, "query_rate", "req/s"),
                                    (3, "read_query_rate", "req/s"), (4, "write_query_rate", "req/s"),
                                    (5, "other_query_rate", "req/s")):
                self.add(lineno, metric, self.num(g[i], lineno, metric), unit, True, g[i], time=t)
            self.iv_latency(lineno, t, g[6], g[7])
            self.add(lineno, "error_rate", self.num(g[8], lineno, "err/s"), "event/s", False, g[8],
                     time=t)
            self.add(lineno, "reconnect_rate", self.num(g[9], lineno, "reconn/s"), "event/s", False,
                     g[9], time=t)
            return
        m = _IV_EPS.match(body)
        if m:
            g = m.groups()
            self.add(lineno, "threads_running", float(g[0]), "count", None, g[0], time=t)
            self.add(lineno, "event_rate", self.num(g[1], lineno, "eps"), "event/s", True, g[1],
                     time=t)
            self.iv_latency(lineno, t, g[2], g[3])
            return
        m = _IV_FILE.match(body)
        if m:
            self.set_test("fileio")
            g = m.groups()
            self.add(lineno, "read_throughput", self.num(g[0], lineno, "reads") * MIB, "B/s", True,
                     g[0] + " MiB/s", time=t)
            self.add(lineno, "write_throughput", self.num(g[1], lineno, "writes") * MIB, "B/s", True,
                     g[1] + " MiB/s", time=t)
            self.add(lineno, "fsync_rate", self.num(g[2], lineno, "fsyncs"), "op/s", True,
                     g[2] + "/s", time=t)
            self.iv_latency(lineno, t, g[3], g[4])
            return
        m = _IV_MEM.match(body)
        if m:
            self.set_test("memory")
            self.add(lineno, "transfer_rate", self.num(m.group(1), lineno, "MiB/sec") * MIB, "B/s",
                     True, body, time=t)

    def iv_latency(self, lineno: int, t: float, pct: str, ms: str) -> None:
        p = float(pct)
        if p == 0:  # --percentile=0: sysbench prints "lat (ms,0%): 0.00" without computing it
            return
        self.add(lineno, "latency_percentile", self.num(ms, lineno, "latency") / 1000.0, "s",
                 False, ms, pct=p, time=t)

    def result(self) -> pd.DataFrame:
        """Return the rows as a conformed frame."""
        self.close_report()
        return self.rows.frame()


def _size_param(name: str, test: str | None):
    """Make a label handler that stores a size ("1KiB", "102400M") as parameter ``name`` in bytes."""
    def handler(self: _Parser, lineno: int, value: str) -> None:
        if self.report is not None:
            token = value.split()[0] if value.split() else value
            self.param(name, _size(token, self.path, lineno, name[2:]))
            if test:
                self.set_test(test)
    return handler


def _text_param(name: str, test: str | None):
    """Make a label handler that stores the value text as parameter ``name``."""
    def handler(self: _Parser, lineno: int, value: str) -> None:
        if self.report is not None and value:
            self.param(name, value)
            if test:
                self.set_test(test)
    return handler


def _size(token: str, path: str, lineno: int, what: str) -> int | float:
    """Read a size parameter in bytes (whole bytes when it is one); ParseError if not finite."""
    value = size_bytes(token, path, lineno, what)
    if not math.isfinite(value):
        raise ParseError(path, lineno, f"{what}: {token!r} is not a finite size")
    return _whole(value)


def _whole(x: float) -> int | float:
    """Give a size as whole bytes when it is one (keeps size parameters integer-typed)."""
    return int(x) if x == int(x) else x


_LABEL_HANDLERS = {
    "queries performed": _Parser.h_queries,
    "per-request statistics": _Parser.h_latency,
    "response time": _Parser.h_latency,
    "Latency (ms)": _Parser.h_latency,
    "total time": _Parser.h_total_time,
    "total number of events": _Parser.h_events,
    "total time taken by event execution": _Parser.h_event_time,
    "events (avg/stddev)": _Parser.h_fair_events,
    "execution time (avg/stddev)": _Parser.h_fair_time,
    "Number of threads": _Parser.h_threads,
    "Prime numbers limit": _Parser.h_max_prime,
    "Maximum prime number checked in CPU test": _Parser.h_max_prime,
    "CPU speed": _Parser.h_cpu_speed,
    "events per second": _Parser.h_eps,
    "Operations performed": _Parser.h_ops,
    "SQL statistics": _Parser.h_sql,
    "OLTP test statistics": _Parser.h_sql,
    "block size": _size_param("p_block_size", "memory"),
    "total size": _size_param("p_total_size", "memory"),
    "Memory block size": _size_param("p_block_size", "memory"),
    "Memory transfer size": _size_param("p_total_size", "memory"),
    "operation": _text_param("p_operation", "memory"),
    "Memory operations type": _text_param("p_operation", "memory"),
    "scope": _text_param("p_scope", "memory"),
    "Memory scope type": _text_param("p_scope", "memory"),
    "Extra file open flags": _text_param("p_file_extra_flags", "fileio"),
    "Read/Write ratio for combined random IO test": _Parser.h_rw_ratio,
    "Number of IO requests": _Parser.h_io_requests,
    "Number of random requests for random IO": _Parser.h_io_requests,
}


def parse(text: str, path: str = "<string>") -> pd.DataFrame:
    """Parse sysbench text (one or more reports) into tidy rows.

    Follows the parser contract of :mod:`overhead.parsers` (text and path in, conformed
    tidy rows out); the rows are described in the module docstring.

    Raises
    ------
    ParseError
        When the text holds neither a sysbench header nor a sysbench statistic, or when a
        recognised statistic is malformed (the message names the line).
    """
    p = _Parser(path)
    lines = text.splitlines()
    if lines and not text.endswith(("\n", "\r")):
        lines.pop()  # cut off mid-write: its last number may be incomplete
    for lineno, line in enumerate(lines, start=1):
        s = line.strip()
        if not s:
            p.in_histogram = False
            continue
        if len(s) > 64 and s[0] != "[":
            for seg in _FLAT.split(s):
                if seg:
                    p.feed(lineno, seg)
        else:
            p.feed(lineno, s)
    if not p.reports:
        raise ParseError(path, 1, "no sysbench output found (expected a 'sysbench <version>' "
                         "header or sysbench statistics such as 'Threads fairness:')")
    df = p.result()
    if df.empty:
        _no_statistic(lines, path)
    open_ = [r for r in p.reports if not r.complete]
    if open_ and not df.empty and (df["p_report"] == open_[0].index).any():
        first = df.loc[df["p_report"] == open_[0].index, "source"].iloc[0].rsplit(":", 1)[1]
        return cut_short(df, path, None, f"report {open_[0].index} (statistics from line {first}) "
                         "ends before its 'execution time (avg/stddev)' line, the last sysbench "
                         "prints: the capture is cut short; the statistics read are kept")
    return df


def _no_statistic(lines: list[str], path: str) -> None:
    """Say what a sysbench output without any statistic is: an error, a step, or nothing."""
    for lineno, line in enumerate(lines, start=1):
        m = _FATAL.match(line.strip())
        if m:
            raise RunFailed(path, lineno, m.group(0))
    for lineno, line in enumerate(lines, start=1):
        for start, step in _STEPS:
            if line.startswith(start):
                raise ParseError(path, lineno, f"{step} (line {lineno}: {line.strip()!r}), which "
                                 "finished but measures nothing: not a benchmark run; give the "
                                 "output of 'sysbench ... run'")
    if len(lines) <= 3 and lines and _HEADER.match(lines[0].strip()):
        raise ParseError(path, 1, "only the sysbench version (sysbench --version), not a "
                         "benchmark run")
