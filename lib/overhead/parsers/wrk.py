"""wrk (4.x) and wrk2 HTTP benchmark output: the text report, with or without ``--latency``.

The report (made on this machine, see tests/fixtures/wrk/README.md)::

    Running 2s test @ http://127.0.0.1:45921/file.bin
      2 threads and 10 connections
      Thread Stats   Avg      Stdev     Max   +/- Stdev
        Latency   167.51us  307.31us   7.99ms   96.87%
        Req/Sec    34.47k     7.80k   46.81k    62.50%
      Latency Distribution
         50%  112.00us
         75%  177.00us
         90%  271.00us
         99%    1.09ms
      137010 requests in 2.00s, 241.33MB read
      Socket errors: connect 0, read 32274, write 0, timeout 0
      Non-2xx or 3xx responses: 124809
    Requests/sec:  68454.89
    Transfer/sec:    120.58MB

Units, as wrk 4.1.0 prints them (src/units.c): times are ``us``, ``ms``, ``s``, ``m``
(minutes) or ``h`` (``format_time_us``: micro-, milliseconds, then seconds above 1 s);
request rates have metric prefixes ``k``, ``M``, ``G`` (powers of 1000, ``format_metric``);
byte counts and rates have binary prefixes ``K``, ``M``, ``G``, ``T`` then ``B`` (powers of
1024, ``format_binary``: "binary_units = { .scale = 1024 ...}"). The 1024 is checked in the
tests: in t2_c10_d2.txt, 190.14MB read over 107945 requests is 1847.0 bytes per response with
MB = 1024**2, exactly the size of nginx's keep-alive response there (1600 bytes of body and
247 of headers); with MB = 10**6 it would be 1761.5.

Rows (``benchmark`` = ``tool`` = "wrk"), named as the ab parser names the same quantities:

- ``latency_mean``, ``latency_sd``, ``latency_max`` (s) and ``latency_within_sd`` (%, the
  share of requests within one standard deviation of the mean: "+/- Stdev"), from the Thread
  Stats ``Latency`` row;
- ``thread_request_rate_mean``, ``thread_request_rate_sd``, ``thread_request_rate_max``
  (req/s) and ``thread_request_rate_within_sd`` (%), from the ``Req/Sec`` row: wrk's
  per-thread rate, sampled every 100 ms;
- ``latency_percentile`` (s) with ``p_percentile`` 50, 75, 90, 99 (``--latency`` only);
- ``complete_requests`` (count), ``test_time`` (s), ``total_transferred`` (B: everything wrk
  read, headers included), from "N requests in Xs, Y read";
- ``socket_errors_connect``, ``socket_errors_read``, ``socket_errors_write``,
  ``socket_errors_timeout`` (count), from the "Socket errors:" line (wrk prints it only when
  one of them is not 0; a timeout is a response that came later than ``--timeout``);
- ``non_2xx_responses`` (count), from "Non-2xx or 3xx responses: N" (wrk 4.1.0 counts the
  responses with a status above 399 there, src/wrk.c ``response_complete``);
- ``request_rate`` (req/s) and ``transfer_rate`` (B/s), from "Requests/sec:" and
  "Transfer/sec:".

Parameters: ``p_url`` (from "Running 2s test @ URL"), ``p_threads`` and ``p_connections``
(from "N threads and M connections"), ``p_percentile`` (Float64 on every row, NA except on the
percentile rows, so that a cut report has the same columns as the whole). The duration in the
"Running" line is not a parameter: wrk rounds it to whole units there (a 90 s run says
"2m"); ``test_time`` is the measured one. ``trial`` is the run's number in the file (1, 2...:
each "Running ... test @" line starts a run), so a shell loop's concatenated reports parse
too. wrk does not print its version: ``tool_version`` stays empty (the runner records it).

**wrk2** (giltene/wrk2, which reports itself as "wrk 4.0.0") prints the same report with an
HdrHistogram: "Latency Distribution (HdrHistogram - Recorded Latency)" with percentiles from
50.000% to 100.000% (rows as above, with ``p_histogram`` = "recorded"; "uncorrected" for
``-U``'s second histogram), then a "Detailed Percentile spectrum" (HdrHistogram's percentile
iteration: value in ms, percentile as a fraction, total count, 1/(1-percentile) per line,
then "#[Mean ...]", "#[Max ...]", "#[Buckets ...]" and a line of dashes). Each spectrum line
gives ``latency_spectrum`` (s: the latency at that percentile) and ``latency_spectrum_count``
(count: the requests at or below it), both with ``p_percentile`` (0-100, as printed: 6
decimals of a fraction, so the tail repeats a percentile on lines whose 1/(1-percentile)
differ; ``source`` tells them apart) and ``p_histogram``; the "#[...]" lines give
``latency_spectrum_mean``, ``latency_spectrum_sd``, ``latency_spectrum_max`` (s) and
``latency_spectrum_total_count`` (count). The distribution's percentiles above are the
spectrum's values at those percentiles (rounded as wrk prints times); the tests check that.
wrk2's "Thread calibration" lines are skipped.

**Cut short.** wrk ends every report with "Transfer/sec:". A run whose "Running" line was read
but whose "Transfer/sec:" line was not is a capture cut short: the rows read are kept and the
frame is marked cut short (:func:`~overhead.parsers._common.cut_short`).

A run's rows are kept when its "N requests in" line says N > 0; the Thread Stats before it
are held until then, so a run that completed no request gives none (its statistics are
printed as "0.00us ... -nan%"). Failed runs raise :class:`RunFailed` when the file holds no
result: "unable to connect to 127.0.0.1:45929 Connection refused" (wrk's message when nothing
answers; it then exits 1 with nothing on stdout), "0 requests in 3.01s, 0.00B read" (no
request completed: a server that never answered), or only the "Running" header (wrk stopped
before its report). ``-s`` Lua scripts' own output is not read (lines wrk's report does not
have are skipped); lines after a report's "Transfer/sec:" that are not the next run's (wrk's
banner, a shell prompt with its wrk command), such as what a script's ``done()`` prints
(PerfKitBenchmarker's "==CSV==" section and the like), are named in a note
(:func:`~overhead.parsers._common.note`: ``path:line``, how many lines, the first one), not
dropped silently. A malformed report line raises ParseError naming its line.
"""

from __future__ import annotations

import re

import pandas as pd

from overhead.parsers._common import (
    ParseError,
    Rows,
    RunFailed,
    cut_short,
    integer,
    note,
    number,
)

TOOL = "wrk"
BENCHMARK = "wrk"

_NUM = r"\d+(?:\.\d+)?"
_RUNNING = re.compile(r"^Running (\S+) test @ (\S+)\s*$")
_THREADS = re.compile(r"^\s*(\d+) threads and (\d+) connections\s*$")
_HEADER = re.compile(r"^\s*Thread Stats\s+Avg\s+Stdev\s+Max\s+\+/- Stdev\s*$")
_STAT = re.compile(r"^\s*(Latency|Req/Sec)\s+(.*)$")
_DIST = re.compile(r"^\s*Latency Distribution(?:\s+\(HdrHistogram - (?P<kind>Recorded|Uncorrected) Latency\b.*\))?\s*$")
_SPECTRUM = re.compile(r"^\s*Detailed Percentile spectrum:\s*$")
_SPECTRUM_HEAD = re.compile(r"^\s*Value\s+Percentile\s+TotalCount\s+1/\(1-Percentile\)\s*$")
_SPECTRUM_ROW = re.compile(r"^\s*(\d+\.\d+)\s+(\d\.\d+)\s+(\d+)\s+(?:\d+\.\d+|inf)\s*$")
_SPECTRUM_SUM = re.compile(r"^#\[(Mean|Max|Buckets)\s+=\s*(\S+),\s+(StdDeviation|Total count|SubBuckets)"
                           r"\s+=\s*(\S+)\]\s*$")
#: "#[Mean = ..., StdDeviation = ...]" and "#[Max = ..., Total count = ...]": name -> (metric,
#: unit); the values in ms like the spectrum's (Buckets/SubBuckets: the histogram's layout)
_SPECTRUM_STATS = {"Mean": ("latency_spectrum_mean", "s"), "StdDeviation": ("latency_spectrum_sd", "s"),
                   "Max": ("latency_spectrum_max", "s"),
                   "Total count": ("latency_spectrum_total_count", "count")}
#: lines after a report that belong to the next run: wrk's banner, a shell prompt and command
_NEXT_RUN = re.compile(r"^wrk \S+ \[\w+\] Copyright|[$#>] +(?:\S*/)?wrk\b")
_SPECTRUM_END = re.compile(r"^-{20,}\s*$")
_PCT = re.compile(rf"^\s*({_NUM})%\s+(\S+)\s*$")
_DONE = re.compile(r"^\s*(\d+) requests in (\S+), (\S+) read\s*$")
_SOCKET = re.compile(r"^\s*Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)\s*$")
_NON2XX = re.compile(r"^\s*Non-2xx or 3xx responses: (\d+)\s*$")
_RATE = re.compile(r"^(Requests|Transfer)/sec:\s*(\S+)\s*$")
_UNABLE = re.compile(r"^(unable to (?:connect to|create thread|initialize SSL)\b.*?)\s*$")
_LABELS = ("Requests/sec:", "Transfer/sec:", "Socket errors:", "Non-2xx or 3xx responses:")

_TIME = re.compile(rf"^({_NUM})(us|ms|s|m|h)$")
_TIME_SCALE = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_METRIC = re.compile(rf"^({_NUM})([kMGTP]?)$")
_METRIC_SCALE = {"": 1.0, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}
_BYTES = re.compile(rf"^({_NUM})([KMGTP]?)B$")
_BYTES_SCALE = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4, "P": 1024**5}

# Thread Stats row -> (metric prefix, unit, reader)
_STAT_ROWS = {"Latency": ("latency", "s"), "Req/Sec": ("thread_request_rate", "req/s")}
_STAT_COLS = ("mean", "sd", "max")
_NAN = {"nan%", "-nan%", "nan", "-nan"}


def detect(text: str) -> float:
    """Tell whether ``text`` is wrk output.

    Returns a confidence from 0 (not wrk output) to 1.
    """
    head = text[:20000]
    if re.search(r"^Running \S+ test @ \S+", head, re.M) and re.search(
            r"^\s*(?:\d+ threads and \d+ connections|Thread Stats\s+Avg)", head, re.M):
        return 1.0
    if re.search(r"^Requests/sec:", head, re.M) and re.search(r"^Transfer/sec:", head, re.M):
        return 0.9
    first = head.lstrip().split("\n", 1)[0]
    if re.match(r"unable to connect to \S+:\S+ \S", first):
        return 0.5  # wrk's whole output when nothing answers
    return 0.0


def _seconds(token: str, path: str, line: int, what: str) -> float:
    """Read a wrk time (``511.91us``, ``1.11ms``, ``2.10s``, ``1.00m``) in seconds."""
    m = _TIME.match(token)
    if not m:
        raise ParseError(path, line, f"{what}: expected a time such as 1.11ms, found {token!r}")
    return float(m.group(1)) * _TIME_SCALE[m.group(2)]


def _metric(token: str, path: str, line: int, what: str) -> float:
    """Read a wrk count or rate with a metric prefix (``27.13k``, ``22.92``)."""
    m = _METRIC.match(token)
    if not m:
        raise ParseError(path, line, f"{what}: expected a number such as 27.13k, found {token!r}")
    return float(m.group(1)) * _METRIC_SCALE[m.group(2)]


def _bytes(token: str, path: str, line: int, what: str) -> float:
    """Read a wrk byte count (``190.14MB``, ``0.00B``; K, M, G are powers of 1024)."""
    m = _BYTES.match(token)
    if not m:
        raise ParseError(path, line, f"{what}: expected a size such as 190.14MB, found {token!r}")
    return float(m.group(1)) * _BYTES_SCALE[m.group(2)]


class _Run:
    """What one run ("Running ... test @" to the next) has shown so far."""

    def __init__(self, trial: int):
        self.params: dict = {"trial": trial}
        self.pending: list[tuple] = []  # Thread Stats rows, held until the run's request count
        self.requests: int | None = None  # from "N requests in"
        self.header_line: int | None = None
        self.in_dist = False
        self.dist_kind: str | None = None  # wrk2's "Recorded" or "Uncorrected" histogram
        self.spectrum: int | None = None  # the line of wrk2's "Detailed Percentile spectrum:"
        self.finished = False  # its closing "Transfer/sec:" line was read
        self.unprinted: list[tuple[int, str]] = []  # statistics wrk printed as nan: no row


def parse(text: str, path: str = "<string>") -> pd.DataFrame:
    """Parse wrk's text report into tidy rows.

    Follows the parser contract of :mod:`overhead.parsers`; the rows are described in the
    module docstring.

    Raises
    ------
    RunFailed
        When the file is wrk's output but holds no result (wrk's error message, no request
        completed, or only the header).
    ParseError
        When the text is not wrk output or a report line is malformed.
    """
    rows = Rows(path, benchmark=BENCHMARK, tool=TOOL, dtypes={"p_percentile": "Float64"})
    run = _Run(1)
    trials = 0
    seen = False
    errors: list[tuple[int, str]] = []
    empty: tuple[int, str] | None = None  # the first "0 requests in" line
    header: tuple[int, str] | None = None
    runs: list[_Run] = []
    after: list[tuple[int, str]] = []  # lines after a finished report that are not wrk's
    for lineno, raw in enumerate(text.split("\n"), start=1):
        line = raw.rstrip("\r")
        stripped = line.strip()
        if not stripped:
            continue
        m = _RUNNING.match(line)
        if m:
            trials += 1
            run = _Run(trials)
            runs.append(run)
            run.params["p_url"] = m.group(2)
            run.header_line = lineno
            header = header or (lineno, stripped)
            seen = True
            continue
        m = _UNABLE.match(stripped)
        if m:
            errors.append((lineno, m.group(1)))
            continue
        m = _THREADS.match(line)
        if m:
            run.params["p_threads"] = integer(m.group(1), path, lineno, "threads")
            run.params["p_connections"] = integer(m.group(2), path, lineno, "connections")
            continue
        if _HEADER.match(line):
            seen = True
            run.in_dist = False
            continue
        m = _DIST.match(line)
        if m:
            run.in_dist = True
            run.dist_kind = m.group("kind") and m.group("kind").lower()
            continue
        if run.spectrum is not None:
            # wrk2's HdrHistogram spectrum: the latency at each percentile of its iteration
            if _SPECTRUM_END.match(stripped):
                run.spectrum = None
            elif not _SPECTRUM_HEAD.match(line):
                _spectrum_line(line, stripped, lineno, path, run)
            continue
        if _SPECTRUM.match(line):
            run.in_dist = False
            run.spectrum = lineno
            continue
        m = _STAT.match(line)
        if m and run.requests is None:
            _stat_row(m.group(1), m.group(2), lineno, path, run)
            continue
        m = _PCT.match(line)
        if m and run.in_dist and run.requests is None:
            pct = number(m.group(1), path, lineno, "percentile")
            value = _seconds(m.group(2), path, lineno, f"{m.group(1)}% latency")
            extra = {"p_percentile": pct}
            if run.dist_kind:
                extra["p_histogram"] = run.dist_kind
            run.pending.append((lineno, "latency_percentile", value, "s", False, m.group(2),
                                extra))
            continue
        run.in_dist = False
        m = _DONE.match(line)
        if m:
            seen = True
            run.requests = integer(m.group(1), path, lineno, "requests")
            if run.requests == 0:
                empty = empty or (lineno, stripped)
                continue
            for lno, metric, value, unit, hib, tok, extra in run.pending:
                rows.add(lno, metric, value, unit, hib, tok, run.params, **extra)
            run.pending = []
            rows.add(lineno, "complete_requests", float(run.requests), "count", None,
                     m.group(1), run.params)
            rows.add(lineno, "test_time", _seconds(m.group(2), path, lineno, "run time"), "s",
                     None, m.group(2), run.params)
            rows.add(lineno, "total_transferred", _bytes(m.group(3), path, lineno, "bytes read"),
                     "B", None, m.group(3), run.params)
            continue
        if stripped.startswith(_LABELS):
            seen = True
            _summary_line(stripped, lineno, path, run, rows)
            run.finished = run.finished or stripped.startswith("Transfer/sec:")
            continue
        # anything else (a shell prompt, a -s script's own lines, wrk2's "Thread calibration")
        # is not wrk's report; after a finished report it is said (a script's done() output)
        if run.finished and not _NEXT_RUN.search(stripped):
            after.append((lineno, stripped))
    if not len(rows):
        if errors:
            raise RunFailed(path, errors[0][0], errors[0][1])
        if empty:
            raise RunFailed(path, empty[0], f"{empty[1]!r}: no request completed")
        if header:
            raise RunFailed(path, None, f"wrk printed its header ({header[1]!r}) but no results")
        if not seen:
            raise ParseError(path, 1, "no wrk output found (no 'Running ... test @' line and no "
                             "'N requests in' line)")
    df = rows.frame()
    missing = [(r.params["trial"], *u) for r in runs if r.requests for u in r.unprinted]
    if missing:
        note(df, f"{path}:{missing[0][1]}: " + ", ".join(w for _, _, w in missing[:4])
             + (f" and {len(missing) - 4} more" if len(missing) > 4 else "")
             + ": a mean printed as nan (wrk2 sampled no per-thread rate in a run this "
             "short): no rows for that statistic")
    if after:
        more = f" and {len(after) - 1} more" if len(after) > 1 else ""
        note(df, f"{path}:{after[0][0]}: {after[0][1]!r}{more} after wrk's report not read (not "
             "wrk's report: the output of a -s script's done() function or a wrapper's); the "
             "report's rows are kept")
    # wrk ends every report with "Transfer/sec:"; a run without it (whose header was read) is a
    # capture cut short: the complete runs' rows are kept, never a complete file
    cut = next((r for r in runs if not r.finished and r.requests != 0), None)
    if cut is not None and not df.empty:
        return cut_short(df, path, None, f"the run that starts at line {cut.header_line} has no "
                         "'Transfer/sec:' line: the capture ends before wrk's closing lines; "
                         + ("the runs before it are kept" if cut.requests is None else
                            "what it printed is kept"))
    return df


def _spectrum_line(line: str, stripped: str, lineno: int, path: str, run: _Run) -> None:
    """Hold the rows of one line of wrk2's Detailed Percentile spectrum for its run.

    Raises ParseError for a line that is none of the spectrum's (naming where it began).
    """
    extra = {"p_histogram": run.dist_kind} if run.dist_kind else {}
    m = _SPECTRUM_ROW.match(line)
    if m:
        value, fraction, count = m.groups()
        pct = round(number(fraction, path, lineno, "spectrum percentile") * 100, 4)
        ms = number(value, path, lineno, "spectrum value")
        run.pending.append((lineno, "latency_spectrum", ms * 1e-3, "s", False, f"{value} ms",
                            {**extra, "p_percentile": pct}))
        run.pending.append((lineno, "latency_spectrum_count", float(integer(
            count, path, lineno, "spectrum total count")), "count", None, count,
            {**extra, "p_percentile": pct}))
        return
    m = _SPECTRUM_SUM.match(stripped)
    if m:
        for name, tok in ((m.group(1), m.group(2)), (m.group(3), m.group(4))):
            if name not in _SPECTRUM_STATS:
                continue  # Buckets, SubBuckets: the histogram's layout
            metric, unit = _SPECTRUM_STATS[name]
            v = number(tok, path, lineno, f"spectrum {name}")
            run.pending.append((lineno, metric, v * 1e-3 if unit == "s" else v, unit,
                                None if name == "StdDeviation" or unit == "count" else False,
                                f"{tok} ms" if unit == "s" else tok, extra))
        return
    raise ParseError(path, lineno, "expected a line of wrk2's Detailed Percentile "
                     f"spectrum (from line {run.spectrum}), found {stripped!r}")


def _stat_row(name: str, rest: str, lineno: int, path: str, run: _Run) -> None:
    """Hold the rows of one Thread Stats row (``Latency`` or ``Req/Sec``) for its run."""
    tokens = rest.split()
    if len(tokens) != 4:
        raise ParseError(path, lineno, f"expected 4 values (Avg Stdev Max +/- Stdev) after "
                         f"{name}, found {rest.strip()!r}")
    prefix, unit = _STAT_ROWS[name]
    read = _seconds if name == "Latency" else _metric
    if tokens[0] in _NAN:
        # wrk2 prints "Req/Sec -nan -nan 0.00 0.00%" when no per-thread rate was sampled (a run
        # of a few seconds): its mean is missing and the zeros beside it measured nothing
        run.unprinted.append((lineno, f"{name} ({rest.strip()!r})"))
        return
    for col, tok in zip(_STAT_COLS, tokens[:3], strict=True):
        value = read(tok, path, lineno, f"{name} {col}")
        hib = None if col == "sd" else (name != "Latency")
        run.pending.append((lineno, f"{prefix}_{col}", value, unit, hib, tok, {}))
    if tokens[3] not in _NAN:
        if not tokens[3].endswith("%"):
            raise ParseError(path, lineno, f"{name} +/- Stdev: expected a percentage, found "
                             f"{tokens[3]!r}")
        share = number(tokens[3][:-1], path, lineno, f"{name} +/- Stdev")
        run.pending.append((lineno, f"{prefix}_within_sd", share, "%", None, tokens[3], {}))


def _summary_line(line: str, lineno: int, path: str, run: _Run, rows: Rows) -> None:
    """Read "Socket errors:", "Non-2xx or 3xx responses:", "Requests/sec:", "Transfer/sec:"."""
    if not run.requests:
        return  # no request completed in this run (or its request count was cut off)
    m = _SOCKET.match(line)
    if m:
        for kind, tok in zip(("connect", "read", "write", "timeout"), m.groups(), strict=True):
            rows.add(lineno, f"socket_errors_{kind}", float(tok), "count", False, tok, run.params)
        return
    m = _NON2XX.match(line)
    if m:
        rows.add(lineno, "non_2xx_responses", float(m.group(1)), "count", False, m.group(1),
                 run.params)
        return
    m = _RATE.match(line)
    if m and m.group(1) == "Requests":
        rows.add(lineno, "request_rate", number(m.group(2), path, lineno, "Requests/sec"),
                 "req/s", True, m.group(2), run.params)
        return
    if m:
        rows.add(lineno, "transfer_rate", _bytes(m.group(2), path, lineno, "Transfer/sec"),
                 "B/s", True, m.group(2), run.params)
        return
    raise ParseError(path, lineno, f"malformed wrk summary line {line!r}")
