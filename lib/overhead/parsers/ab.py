"""ApacheBench (``ab``, version 2.3) outputs: the text report, ``-e`` CSV and ``-g`` gnuplot TSV.

Text report (one field per line)::

    Concurrency Level:      4
    Time taken for tests:   0.102 seconds
    Complete requests:      200
    Requests per second:    1958.96 [#/sec] (mean)
    Time per request:       2.042 [ms] (mean)
    Time per request:       0.510 [ms] (mean, across all concurrent requests)
    Transfer rate:          10948.37 [Kbytes/sec] received

    Connection Times (ms)
                  min  mean[+/-sd] median   max
    Connect:        0    0   0.1      0       0
    ...
    Percentage of the requests served within a certain time (ms)
      50%      2
     100%      4 (longest request)

Web pages often flatten the report into long lines ("Concurrency Level: 10000 Time taken for
tests: 5.745 seconds Complete requests: 100000 ..."). The parser finds every known label on a
line and reads the value up to the next label, so both layouts parse with the same code.

Rows (text report): ``test_time`` (s), ``complete_requests``, ``failed_requests``,
``failed_connect``/``failed_receive``/``failed_length``/``failed_exceptions`` (from the
"(Connect: 0, Receive: 0, Length: 3, Exceptions: 0)" line), ``write_errors``,
``non_2xx_responses``, ``keepalive_requests`` (count), ``total_transferred``,
``html_transferred``, ``body_sent`` (B), ``request_rate`` (req/s), ``time_per_request_mean``
and ``time_per_request_concurrent_mean`` (s; ab prints ms), ``transfer_rate`` and, with a
request body, ``transfer_rate_sent``/``transfer_rate_total`` (B/s; ab's Kbytes and kb are
1024 bytes: it divides bytes by 1024), ``<phase>_time_min``/``_mean``/``_sd``/``_median``/
``_max`` for phase in connect, processing, waiting, total (s; ab prints whole ms; with -S the
table has only min/avg/max), ``latency_percentile`` (s; p_percentile 50..100, the total time
of requests).

Parameters (text): p_percentile (Float64 on every row of a report, NA except on the percentile
rows, so that a cut report has the same columns as the whole), p_concurrency, p_requests (from "Finished N requests", the -n asked for),
p_document_length (bytes; absent when ab says "Variable"), p_document_path,
p_server_software, p_server_hostname, p_server_port, p_tls_protocol. tool_version from
"This is ApacheBench, Version 2.3".

``-e`` CSV ("Percentage served,Time in ms"): ``latency_percentile`` (s) per line with
p_percentile 0..100 (ab's 0% is the fastest request).

``-g`` TSV ("starttime seconds ctime dtime ttime wait"): per request, ``connect_time``,
``processing_time``, ``total_time``, ``waiting_time`` (s; whole ms as printed), with
p_request (0-based row; ab writes the requests sorted by total time, not in start order) and
p_time (whole seconds since the earliest start in the file); started_at is that earliest
start (from the epoch seconds column).

Failed runs raise :class:`~overhead.parsers._common.RunFailed` (``path:line: the run did not
finish: ...``): ab stops at the first socket error and prints no report, only its message on
the line where it happened and how far it got (ab 2.3 on Debian 12, made here)::

    Benchmarking 127.0.0.1 (be patient)...apr_socket_recv: Connection refused (111)
    apr_socket_recv: Connection reset by peer (104)           (server killed mid-run)
    apr_pollset_poll: The timeout specified has expired (70007)   (server stopped, -s)
    Total of 1504 requests completed

The error names the line of ab's message (``apr_...: ...`` or ``ab: ...``) and quotes it with
the "Total of N requests completed" line. A banner without a report (a run cut before its
end) is a failed run without a line. A file whose reports are complete keeps them even if an
error line is there too. Text that is none of the three layouts raises ParseError.

**Cut short.** ab's text report ends with the "100% ... (longest request)" line of its
percentile table. A report without that closing line is a capture cut short: the rows read are
kept and the frame is marked cut short (:func:`~overhead.parsers._common.cut_short`). A report
made with ``-d`` (no percentile table) is marked so too: a cut right after the Connection Times
table cannot be told from it, and a visible note is better than a silent complete run.
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
    number,
    numbered,
)

TOOL = "ab"
BENCHMARK = "ab"

_NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)"
# Known labels of the text report, in the order ab prints them. "Time per request" occurs
# twice and is told apart by its suffix.
_LABELS = [
    "Server Software", "Server Hostname", "Server Port", "SSL/TLS Protocol", "Server Temp Key",
    "TLS Server Name", "Document Path", "Document Length", "Concurrency Level",
    "Time taken for tests", "Complete requests", "Failed requests", "Write errors",
    "Non-2xx responses", "Keep-Alive requests", "Total transferred", "Total body sent",
    "Total POSTed", "Total PUT", "HTML transferred", "Requests per second", "Time per request",
    "Transfer rate",
]
_LABEL_RE = re.compile(r"(?<![\w-])(" + "|".join(re.escape(label) for label in _LABELS) + r"):")
_FAIL_DETAIL = re.compile(
    r"^\s*\(Connect: (\d+), Receive: (\d+), Length: (\d+), Exceptions: (\d+)\)\s*$"
)
_EXTRA_RATE = re.compile(rf"^\s+({_NUM}) kb/s (sent|total)\s*$")
_CT_HEADER = re.compile(r"^\s*min\s+(mean\[\+/-sd\]\s+median|avg)\s+max\s*$")
_CT_ROW = re.compile(r"^(Connect|Processing|Waiting|Total):\s+(.*)$")
_PERCENT = re.compile(rf"^\s*({_NUM})%\s+({_NUM})(?:\s+\(longest request\))?\s*$")
_VERSION = re.compile(r"This is ApacheBench, Version (\S+)")
_ERROR = re.compile(r"((?:\bapr_\w+(?:\(\))?|^ab): .*)$")
_FINISHED = re.compile(r"^Finished (\d+) requests\s*$")
# whole-number parameters are read where they are printed: one that does not fit the 64-bit
# column is an error on its own line, not on the first row that carries it
_LIMIT = 2**63
_EPOCH = (pd.Timestamp.min.value // 10**9 + 1, pd.Timestamp.max.value // 10**9)
_CSV_HEADER = "Percentage served,Time in ms"
_TSV_HEADER = ["starttime", "seconds", "ctime", "dtime", "ttime", "wait"]

_COUNTS = {
    "Complete requests": "complete_requests", "Failed requests": "failed_requests",
    "Write errors": "write_errors", "Non-2xx responses": "non_2xx_responses",
    "Keep-Alive requests": "keepalive_requests",
}
_BYTES = {
    "Total transferred": "total_transferred", "HTML transferred": "html_transferred",
    "Total body sent": "body_sent", "Total POSTed": "body_sent", "Total PUT": "body_sent",
}
_STRINGS = {
    "Server Software": "p_server_software", "Server Hostname": "p_server_hostname",
    "Document Path": "p_document_path", "SSL/TLS Protocol": "p_tls_protocol",
}


def detect(text: str) -> float:
    """Tell whether ``text`` is ab output (report, -e CSV or -g TSV).

    Returns a confidence from 0 (not ab output) to 1.
    """
    head = text[:20000]
    first = head.lstrip().split("\n", 1)[0].strip()
    if "This is ApacheBench" in head or first == _CSV_HEADER or first.split("\t") == _TSV_HEADER:
        return 1.0
    if "Requests per second:" in head and "[#/sec]" in head:
        return 0.9
    return 0.0


def parse(text: str, path: str = "<string>") -> pd.DataFrame:
    """Parse ab output (text report, ``-e`` CSV or ``-g`` TSV) into tidy rows.

    Follows the parser contract of :mod:`overhead.parsers` (text and path in, conformed
    tidy rows out); the rows are described in the module docstring.

    Raises
    ------
    ParseError
        When the text is none of ab's layouts or a field is malformed.
    """
    for _lineno, line in numbered(text):
        if not line.strip():
            continue
        if line.strip() == _CSV_HEADER:
            return _parse_csv(text, path)
        if line.strip().split("\t") == _TSV_HEADER:
            return _parse_tsv(text, path)
        break
    return _parse_report(text, path)


def _rows(path: str) -> Rows:
    """Start the rows of one output; p_percentile is on every row (NA where it does not apply)."""
    return Rows(path, benchmark=BENCHMARK, tool=TOOL, dtypes={"p_percentile": "Float64"})


def _first(value: str, path: str, lineno: int, label: str) -> tuple[float, str]:
    """Read the leading number of a field value; return it and its token."""
    token = value.split()[0] if value.split() else ""
    return number(token, path, lineno, label), token


def _parse_report(text: str, path: str) -> pd.DataFrame:
    """Parse the text report."""
    rows = _rows(path)
    params: dict = {}
    version: str | None = None
    seen = False
    errors: list[tuple[int, str]] = []
    total: tuple[int, str] | None = None  # "Total of N requests completed" after an error
    banner = False
    table_cols: list[str] | None = None
    in_percent = False
    closed = False  # ab's last report line was read (see the module docstring)
    for lineno, line in numbered(text):
        stripped = line.strip()
        if not stripped:
            continue
        m = _VERSION.search(line)
        if m:
            version = m.group(1).rstrip(",")
            seen = banner = True
            continue
        m = _FINISHED.match(stripped)
        if m:
            params["p_requests"] = integer(m.group(1), path, lineno, "Finished requests", limit=_LIMIT)
            continue
        err = _ERROR.search(stripped)
        if err:
            errors.append((lineno, err.group(1)))
            continue
        if stripped.startswith("Total of ") and total is None:
            total = (lineno, stripped)
            continue
        if stripped.startswith(("Total of ", "Benchmarking ", "Completed ")):
            continue
        if stripped.startswith("Connection Times (ms)"):
            seen = True
            table_cols = None
            in_percent = False
            continue
        h = _CT_HEADER.match(line)
        if h:
            table_cols = ["min", "mean", "sd", "median", "max"] if h.group(1) != "avg" else ["min", "mean", "max"]
            continue
        c = _CT_ROW.match(stripped)
        if c and table_cols is not None:
            tokens = c.group(2).split()
            if len(tokens) != len(table_cols):
                raise ParseError(path, lineno, f"expected {len(table_cols)} numbers ({' '.join(table_cols)}) after {c.group(1)}:, found {c.group(2)!r}")
            phase = c.group(1).lower()
            for col, tok in zip(table_cols, tokens, strict=True):
                ms = number(tok, path, lineno, f"{c.group(1)} {col}")
                rows.add(lineno, f"{phase}_time_{col}", ms / 1e3, "s",
                         False if col != "sd" else None, f"{tok} ms")
            continue
        if stripped.startswith("Percentage of the requests served within"):
            seen = True
            in_percent = True
            closed = False
            table_cols = None
            continue
        if in_percent:
            p = _PERCENT.match(line)
            if p:
                pct = number(p.group(1), path, lineno, "percentage")
                ms = number(p.group(2), path, lineno, "time (ms)")
                rows.add(lineno, "latency_percentile", ms / 1e3, "s", False, f"{p.group(2)} ms",
                         p_percentile=pct)
                closed = closed or "(longest request)" in line
                continue
            if re.match(r"^\s*\S+%\s", line):
                raise ParseError(path, lineno, f"expected '<percent>%  <ms>' in the percentile "
                                 f"table, found {stripped!r}")
            in_percent = False
        f = _FAIL_DETAIL.match(line)
        if f:
            for name, tok in zip(("connect", "receive", "length", "exceptions"), f.groups(), strict=True):
                rows.add(lineno, f"failed_{name}", float(tok), "count", False, tok)
            continue
        e = _EXTRA_RATE.match(line)
        if e:
            value = number(e.group(1), path, lineno, f"kb/s {e.group(2)}")
            rows.add(lineno, f"transfer_rate_{e.group(2)}", value * 1024, "B/s", True,
                     f"{e.group(1)} kb/s {e.group(2)}")
            continue
        labels = list(_LABEL_RE.finditer(line))
        for i, lab in enumerate(labels):
            seen = True
            end = labels[i + 1].start() if i + 1 < len(labels) else len(line)
            _field(lab.group(1), line[lab.end():end].strip(), lineno, rows, params)
    if not len(rows):
        if errors:
            # ab's own error, and how far it got ("Total of 1504 requests completed")
            lineno, msg = errors[0]
            raise RunFailed(path, lineno, msg + (f"; {total[1]}" if total else ""))
        if banner:
            raise RunFailed(path, None, "ab printed its banner but no report (no 'Requests per "
                                        "second:' or 'Connection Times' line)")
        if not seen:
            raise ParseError(path, None, "no ApacheBench output found (no 'This is ApacheBench' "
                                         "or 'Requests per second:' line)")
    # what the report states once applies to all its rows
    for name, value in params.items():
        rows.fill(name, value)
    if version:
        rows.fill("tool_version", version)
    df = rows.frame()
    if not closed and not df.empty:
        return cut_short(df, path, None, "the report ends before ab's closing line, '100% ... "
                         "(longest request)': the capture is cut short; the lines read are kept")
    return df


def _field(label: str, value: str, lineno: int, rows: Rows, params: dict) -> None:
    """Turn one "Label: value" field of the text report into rows or parameters."""
    path = rows.path
    if label in _STRINGS:
        if value:
            params[_STRINGS[label]] = value
        return
    if label in ("Server Temp Key", "TLS Server Name"):
        return
    if not value:
        return  # a label whose value was cut off
    if label == "Server Port":
        params["p_server_port"] = integer(value.split()[0], path, lineno, label, limit=_LIMIT)
    elif label == "Document Length":
        if value.split()[0] != "Variable":
            params["p_document_length"] = integer(value.split()[0], path, lineno, label, limit=_LIMIT)
    elif label == "Concurrency Level":
        params["p_concurrency"] = integer(value.split()[0], path, lineno, label, limit=_LIMIT)
    elif label == "Time taken for tests":
        v, tok = _first(value, path, lineno, label)
        rows.add(lineno, "test_time", v, "s", False, f"{tok} seconds")
    elif label in _COUNTS:
        v, tok = _first(value, path, lineno, label)
        hib = None if label in ("Complete requests", "Keep-Alive requests") else False
        rows.add(lineno, _COUNTS[label], v, "count", hib, tok)
    elif label in _BYTES:
        v, tok = _first(value, path, lineno, label)
        rows.add(lineno, _BYTES[label], v, "B", None, f"{tok} bytes")
    elif label == "Requests per second":
        v, tok = _first(value, path, lineno, label)
        rows.add(lineno, "request_rate", v, "req/s", True, f"{tok} [#/sec]")
    elif label == "Time per request":
        v, tok = _first(value, path, lineno, label)
        metric = ("time_per_request_concurrent_mean" if "across all concurrent" in value
                  else "time_per_request_mean")
        rows.add(lineno, metric, v / 1e3, "s", False, f"{tok} [ms]")
    elif label == "Transfer rate":
        v, tok = _first(value, path, lineno, label)
        rows.add(lineno, "transfer_rate", v * 1024, "B/s", True, f"{tok} [Kbytes/sec]")


def _parse_csv(text: str, path: str) -> pd.DataFrame:
    """Parse the -e file: "Percentage served,Time in ms" then "<pct>,<ms>" lines."""
    rows = _rows(path)
    header = True
    for lineno, line in numbered(text):
        stripped = line.strip()
        if not stripped:
            continue
        if header:
            header = False
            continue
        parts = stripped.split(",")
        if len(parts) != 2:
            raise ParseError(path, lineno, f"expected '<percent>,<ms>', found {stripped!r}")
        pct = number(parts[0], path, lineno, "Percentage served")
        ms = number(parts[1], path, lineno, "Time in ms")
        rows.add(lineno, "latency_percentile", ms / 1e3, "s", False, f"{parts[1]} ms",
                 p_percentile=pct)
    return rows.frame()


def _parse_tsv(text: str, path: str) -> pd.DataFrame:
    """Parse the -g file: one tab-separated line per request (times in whole ms)."""
    linenos: list[int] = []
    epoch: list[int] = []
    cols: list[list[tuple[float, str]]] = []
    header = True
    for lineno, line in numbered(text):
        if not line.strip():
            continue
        if header:
            header = False
            continue
        parts = line.split("\t")
        if len(parts) != 6:
            raise ParseError(path, lineno, f"expected 6 tab-separated fields ({' '.join(_TSV_HEADER)}), found {len(parts)}")
        epoch.append(integer(parts[1].strip(), path, lineno, "seconds"))
        cols.append([(number(parts[i], path, lineno, name), parts[i].strip())
                     for i, name in ((2, "ctime"), (3, "dtime"), (4, "ttime"), (5, "wait"))])
        linenos.append(lineno)
    rows = Rows(path, benchmark=BENCHMARK, tool=TOOL)
    if not cols:
        return rows.frame()
    start = min(epoch)
    if not _EPOCH[0] <= start <= _EPOCH[1]:
        bad = linenos[epoch.index(start)]
        raise ParseError(path, bad, f"seconds: {start} is not a time (out of range)")
    # ab writes the requests sorted by total time: rows go metric by metric, in file order
    for j, metric in enumerate(("connect_time", "processing_time", "total_time", "waiting_time")):
        for k, (lineno, values, t) in enumerate(zip(linenos, cols, epoch, strict=True)):
            ms, tok = values[j]
            rows.add(lineno, metric, ms / 1e3, "s", False, f"{tok} ms", p_request=k, p_time=t - start)
    rows.fill("started_at", pd.Timestamp(start, unit="s", tz="UTC"))
    return rows.frame()
