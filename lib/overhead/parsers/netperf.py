"""netperf 2.7 output: the classic result tables and the omni output selectors.

Each test starts with netperf's banner, e.g. ``MIGRATED TCP REQUEST/RESPONSE TEST from ... to
127.0.0.1 () port 0 AF_INET : demo : first burst 0``; its name gives ``p_test`` (TCP_RR, UDP_RR,
TCP_CRR, TCP_STREAM, TCP_MAERTS, UDP_STREAM, ...; ``OMNI Send`` etc. for ``-t omni``). A file
may hold several tests; ``trial`` counts the tests of the same ``p_test`` (1-based).

**Classic tables** (the default; all produced here with netperf 2.7.0 against a loopback
netserver): request/response (``Local /Remote`` header; first data line = local send/recv socket
sizes, request and response size, elapsed time, ``Trans. Rate per sec`` or, with ``-f``,
``Tput <unit> per sec``; second data line = remote socket sizes), stream (``Recv Send Send``
header: receiver's socket size, sender's socket size, send message size, elapsed time,
throughput) and UDP_STREAM (sending side line, then receiving side line). With ``-c``/``-C``
the tables add CPU utilization (``% S``; S = /proc/stat) and service demand.

**Omni output selectors** (``-- -o`` CSV, ``-- -O`` columns, ``-- -k`` key=value) with, among
others, MIN_LATENCY, MEAN_LATENCY, P50_LATENCY, P90_LATENCY, P99_LATENCY, MAX_LATENCY,
STDDEV_LATENCY, TRANSACTION_RATE, THROUGHPUT, THROUGHPUT_UNITS, RT_LATENCY, REQUEST_SIZE,
RESPONSE_SIZE, ELAPSED_TIME, PROTOCOL, DIRECTION, LOCAL/REMOTE_CPU_UTIL, LOCAL/REMOTE_SD,
SD_UNITS, LSS_SIZE, LSR_SIZE, RSS_SIZE, RSR_SIZE, LOCAL_SEND_SIZE, ..._TRANSPORT_RETRANS. CSV
and column output name columns by their header text ("Minimum Latency Microseconds"); both
are mapped back to the selectors. Other selectors are skipped.

Rows (metric, unit):

- ``transaction_rate`` (tx/s) for request/response tests (classic ``Trans. Rate``; omni
  TRANSACTION_RATE, and THROUGHPUT when THROUGHPUT_UNITS is Trans/s). netperf prints the same
  rate twice when both selectors are chosen (at 3 and 2 decimals); both rows are kept, told
  apart by ``p_selector`` (TRANSACTION_RATE or THROUGHPUT), so filter on it before
  aggregating omni output that selects both;
- ``throughput`` (B/s): netperf's 10^3/10^6/10^9bits per second x 1e3/1e6/1e9 / 8, its
  KBytes/MBytes/GBytes per second x 1024, 1024**2, 1024**3 (netlib.c calc_thruput: K/M/G
  divide by powers of 1024, k/m/g by powers of 1000 over 8). UDP_STREAM gives one row per side
  (``p_side`` send/recv), and ``messages`` (count, per side) and ``message_errors`` (count);
- ``latency_min``, ``latency_mean``, ``latency_max``, ``latency_sd`` and ``latency_percentile``
  with ``p_percentile`` 50/90/99 (s; netperf prints microseconds), ``rt_latency`` (s,
  RT_LATENCY: round-trip time netperf derives as 1 / transaction rate);
- ``elapsed_time`` (s);
- ``cpu_util_local``, ``cpu_util_remote`` (%) and ``service_demand_local``,
  ``service_demand_remote``: CPU seconds per byte (unit "s/B", from netperf's usec per KB,
  its KB being 1024 bytes: calc_service_demand divides by 1024.0) or per transaction (unit
  "s/tx", from usec/Tran), only where -c/-C measured them (netperf prints -1 otherwise);
- ``retransmits_local``, ``retransmits_remote`` (count; LOCAL/REMOTE_TRANSPORT_RETRANS).

Parameters: p_test, p_send_socket and p_recv_socket (socket buffer sizes in bytes: for
request/response and omni the local ones, with p_remote_send_socket/p_remote_recv_socket;
for stream tables the sender's and the receiver's as the header labels them), p_message_size
(stream send size; omni LOCAL_SEND_SIZE), p_request_size, p_response_size, p_protocol,
p_data_direction (DIRECTION, e.g. "Send|Recv"), p_selector (see transaction_rate),
p_percentile and p_test on every row (NA where they do not apply), p_confidence_level and p_confidence_achieved
when ``-i``/``-I`` asked for confidence intervals (False when netperf printed "!!! WARNING
Desired confidence was not achieved"). "-nan", blank values and netperf's -1 "not measured"
give no row.

**-v 2** adds blocks after the result: request/response tests ``rt_latency`` (s, "RoundTrip
Latency usec/Tran"), ``throughput_outbound`` and ``throughput_inbound`` (B/s, in the unit its
header prints) and ``transaction_rate`` only when the result line gave none; stream tests
``bytes_transferred`` (B), ``bytes_per_send``/``bytes_per_recv`` (B, averages), ``sends``/
``recvs`` (count; TCP_MAERTS prints recvs first, the header says which) and ``mss`` (B,
"Maximum Segment Size"). Alignments and offsets are not stored.

**-P 0** (no banner, no header lines) leaves only numbers. A shell trace of the command
(``sh -x``: "+ netperf ... -t TCP_RR -f g", also under ``timeout``/``env``; or "$ netperf ...")
says which test ran (``-t``, TCP_STREAM when absent, netperf's default) and the unit (``-f``;
request/response without ``-f`` reports Trans/s, stream 10^6bits/s): with it every value is
read as from the classic table, and a line that does not have the test's shape raises.
Without a command line the test is unknown (``p_test`` NA) and only what the numbers say by
themselves is read: the shape tells request/response (6 or 10 fields, then the 2 remote
socket sizes), stream (5 or 9) and UDP_STREAM (6 or 8, then the receive side), and gives
elapsed time, CPU utilization, socket/message/request sizes and stream service demand (always
per KB); the rate/throughput and request/response service demand are not read, as their unit
(``-f``) is not in the file (``-f k`` and Trans/s print alike), unless ``parse(..., unit=...)``
(``overhead parse netperf FILE --unit 10^6bits/s``; netperf's unit as printed or its -f
letter) gives it. Without it they are never dropped silently: a note
(:func:`overhead.parsers._common.note`, printed on stderr by ``overhead parse``) names the
first line and value not kept and says how to give the unit. A ``--unit`` that contradicts a
command line shown is an error. A 6-field line with no second line is not read. Several -P 0
results in a row are trials 1, 2, ...

**Omni with -P 0** prints values without their header: ``-o SEL`` one CSV line, ``-O SEL`` one
line of columns. With a shell trace of the command before them, its ``-o``/``-O`` list names
the values (one trial per line); without one, ``parse(..., columns="MIN_LATENCY,...")``
(``overhead parse netperf FILE --columns MIN_LATENCY,...``: the list given to ``-o``/``-O``,
as ``--unit`` gives ``-f``) names them. With neither, nothing does: a line of CSV values or of
columns is a ParseError naming it and saying how to give the list (``--columns``, the command
line kept with ``sh -x``, or no -P 0); so is ``-o all`` with -P 0 (every selector's value,
the names in no line). ``columns`` also names the selectors of ``-k`` output (see below).

**Closing line of omni "all" output.** ``-O all`` / ``-o all`` end with the COMMAND_LINE
selector, the quoted command line (``"netperf ... -- -O all"``) as the last column: output
whose header begins as "all" does (Socket Type, Protocol, Direction, Elapsed Time, Throughput,
Throughput Units, Local Send Socket Size Requested) without that closing value, or an -O group
of columns without its value line, keeps its rows marked cut short.

**Cut short.** netperf ends every line it writes, and prints a request/response result on two
lines (the remote socket sizes second), a UDP_STREAM result on two (sending, then receiving
side), a -v 2 block as header lines and a value line, and after a TCP stream test's -v 2
block its "Maximum Segment Size" block. A capture that stops inside one of these keeps the
rows read, marked cut short: a last line without its line end (its values dropped), a result
without its second line (classic or -P 0 with the test known), a -v 2 block without its
values or the MSS block. ``-k`` prints one line per selector in the order listed and nothing
after: a capture cut between two of them is the whole output of a run with fewer selectors,
unless the list is known (a shell trace of the command, or ``columns``), when the missing
selectors are named and the rows marked cut short. A cut before a -v 2 block begins is
likewise the whole output of a run without -v 2.

**Stray lines** are skipped: netperf's warnings such as "enable_enobufs failed:
getprotobyname" (printed after the banner by UDP_STREAM when /etc/protocols is missing, as in
minimal container images), "!!!" notes, and a wrapper's lines around the output (shell trace
lines, a test's name printed before each run, "Experiment completed" after the last: anything
before a banner that is not a result, and after a complete result whatever is not netperf's);
they never mark a complete run cut short.

**Failed runs**: when nothing is a result and netperf printed an error ("establish control:
are you sure there is a netserver listening on ...", "netperf: ...", "send_omni: ..."),
:class:`RunFailed` names that line and quotes it; a banner or netperf command line followed by
no result is RunFailed without a line. Text with no sign of netperf raises ParseError.
"""

from __future__ import annotations

import csv
import re
import shlex

import pandas as pd

from overhead.parsers._common import (
    ParseError,
    Rows,
    RunFailed,
    cut_short,
    note,
    number,
    numbered,
)

TOOL = "netperf"
BENCHMARK = "netperf"

_TITLE = re.compile(r"^(?:MIGRATED )?(.+?) TEST from \S+ .* to \S+ .*$")
_CONF = re.compile(r"\+/-[0-9.]+% @ *([0-9.]+)% conf\.")
_KEYVAL = re.compile(r"^([A-Z][A-Z0-9_]*)=(.*)$")
_TRACE = re.compile(r"^(?:\++|\$) (.*)$")  # a shell's trace ("+ netperf ...") or prompt
_WARNING = re.compile(r"^[A-Za-z_]+ failed: [A-Za-z_]+$")  # "enable_enobufs failed: getprotobyname"
_ERRORS = ("establish control", "establish_control", "netperf: ", "send_omni", "recv_omni",
           "Invalid", "netperf: receive_response")

_TESTS = {
    "TCP STREAM": "TCP_STREAM", "TCP MAERTS": "TCP_MAERTS", "UDP STREAM": "UDP_STREAM",
    "TCP REQUEST/RESPONSE": "TCP_RR", "UDP REQUEST/RESPONSE": "UDP_RR",
    "TCP Connect/Request/Response": "TCP_CRR", "TCP Connect/Close": "TCP_CC",
    "TCP SENDFILE": "TCP_SENDFILE", "TCP MSS": "TCP_MSS",
}

# omni header text (CSV and column output) -> selector
_HEADERS = {
    "Socket Type": "SOCKET_TYPE", "Protocol": "PROTOCOL", "Direction": "DIRECTION",
    "Elapsed Time (sec)": "ELAPSED_TIME", "Throughput": "THROUGHPUT",
    "Throughput Units": "THROUGHPUT_UNITS",
    "Local Send Socket Size Initial": "LSS_SIZE", "Local Recv Socket Size Initial": "LSR_SIZE",
    "Remote Send Socket Size Initial": "RSS_SIZE", "Remote Recv Socket Size Initial": "RSR_SIZE",
    "Local Send Size": "LOCAL_SEND_SIZE", "Local Recv Size": "LOCAL_RECV_SIZE",
    "Remote Send Size": "REMOTE_SEND_SIZE", "Remote Recv Size": "REMOTE_RECV_SIZE",
    "Request Size Bytes": "REQUEST_SIZE", "Response Size Bytes": "RESPONSE_SIZE",
    "Local CPU Util %": "LOCAL_CPU_UTIL", "Remote CPU Util %": "REMOTE_CPU_UTIL",
    "Local Service Demand": "LOCAL_SD", "Remote Service Demand": "REMOTE_SD",
    "Service Demand Units": "SD_UNITS", "Transaction Rate Tran/s": "TRANSACTION_RATE",
    "Round Trip Latency usec/tran": "RT_LATENCY",
    "Local Transport Retransmissions": "LOCAL_TRANSPORT_RETRANS",
    "Remote Transport Retransmissions": "REMOTE_TRANSPORT_RETRANS",
    "Minimum Latency Microseconds": "MIN_LATENCY", "Maximum Latency Microseconds": "MAX_LATENCY",
    "Mean Latency Microseconds": "MEAN_LATENCY", "Stddev Latency Microseconds": "STDDEV_LATENCY",
    "50th Percentile Latency Microseconds": "P50_LATENCY",
    "90th Percentile Latency Microseconds": "P90_LATENCY",
    "99th Percentile Latency Microseconds": "P99_LATENCY",
}
_SELECTORS = set(_HEADERS.values())

# selector -> (metric, unit, scale, higher_is_better, extra parameters)
_OMNI_METRICS = {
    "MIN_LATENCY": ("latency_min", "s", 1e-6, False, {}),
    "MEAN_LATENCY": ("latency_mean", "s", 1e-6, False, {}),
    "MAX_LATENCY": ("latency_max", "s", 1e-6, False, {}),
    "STDDEV_LATENCY": ("latency_sd", "s", 1e-6, None, {}),
    "P50_LATENCY": ("latency_percentile", "s", 1e-6, False, {"p_percentile": 50.0}),
    "P90_LATENCY": ("latency_percentile", "s", 1e-6, False, {"p_percentile": 90.0}),
    "P99_LATENCY": ("latency_percentile", "s", 1e-6, False, {"p_percentile": 99.0}),
    "RT_LATENCY": ("rt_latency", "s", 1e-6, False, {}),
    "TRANSACTION_RATE": ("transaction_rate", "tx/s", 1.0, True, {}),
    "ELAPSED_TIME": ("elapsed_time", "s", 1.0, None, {}),
    "LOCAL_CPU_UTIL": ("cpu_util_local", "%", 1.0, False, {}),
    "REMOTE_CPU_UTIL": ("cpu_util_remote", "%", 1.0, False, {}),
    "LOCAL_TRANSPORT_RETRANS": ("retransmits_local", "count", 1.0, False, {}),
    "REMOTE_TRANSPORT_RETRANS": ("retransmits_remote", "count", 1.0, False, {}),
}
# selector -> parameter (whole numbers; negative = netperf's "not set/unknown")
_OMNI_INT_PARAMS = {
    "LSS_SIZE": "p_send_socket", "LSR_SIZE": "p_recv_socket",
    "RSS_SIZE": "p_remote_send_socket", "RSR_SIZE": "p_remote_recv_socket",
    "LOCAL_SEND_SIZE": "p_message_size", "REQUEST_SIZE": "p_request_size",
    "RESPONSE_SIZE": "p_response_size",
}
_OMNI_STR_PARAMS = {"PROTOCOL": "p_protocol", "DIRECTION": "p_data_direction",
                    "SOCKET_TYPE": "p_socket_type"}
#: -f letter -> the unit netperf prints for it (netlib.c format_units)
_FORMATS = {"b": "10^0bits", "k": "10^3bits", "m": "10^6bits", "g": "10^9bits", "B": "Bytes",
            "K": "KBytes", "M": "MBytes", "G": "GBytes"}
_RR_TESTS = {"TCP_RR", "UDP_RR", "TCP_CRR", "TCP_CC", "SCTP_RR", "UDP_CRR"}
_STREAM_TESTS = {"TCP_STREAM", "TCP_MAERTS", "TCP_SENDFILE", "SCTP_STREAM"}
#: netperf's -P 0 result lines: test kind -> field counts (without, with -c/-C)
_BARE_FIELDS = {"rr": (6, 10), "stream": (5, 9), "udp_stream": (6, 8)}
_VERBOSE = ("Alignment", "Maximum")
_DECIMAL = re.compile(r"^-?[0-9]+(?:\.[0-9]+)?$")  # the blocks -v 2 adds after a result
_MISSING = ("", "-nan", "nan", "NaN", "-NaN", "inf", "-inf")


def detect(text: str) -> float:
    """Tell whether ``text`` is netperf output.

    Returns a confidence from 0 (not netperf output) to 1.
    """
    head = text[:20000]
    if re.search(r"^(?:MIGRATED )?.+? TEST from \S+ .* to \S+ ", head, re.M) and (
            "AF_INET" in head or "netperf" in head.lower()):
        return 1.0
    if re.search(r"^(THROUGHPUT|TRANSACTION_RATE|MEAN_LATENCY|P99_LATENCY)=", head, re.M):
        return 0.9
    if "are you sure there is a netserver listening" in head:
        return 0.5  # netperf's own error: let its parser say so
    lines = [ln.strip() for ln in head.splitlines() if ln.strip()]
    commands = [c for c in map(_command, lines[:50]) if c is not None]
    if commands and (any(c["output"] is not None for c in commands) or any(
            _is_numbers(ln.split()) or _headerless_csv(ln) for ln in lines)) and len(lines) > 1:
        return 0.9  # a shell trace of a netperf command, then -P 0 result lines (or omni's)
    if lines and _headerless_csv(lines[0]) and '"netperf ' in lines[0]:
        return 0.5  # omni -o all -P 0: its last value is the command line
    if lines and all(_headerless_csv(ln) or _headerless_columns(ln.split()) for ln in lines[:20]):
        return 0.2  # omni -o/-O values with -P 0 alone: --columns names them
    numeric = [ln.split() for ln in lines if not _stray(ln) and not ln.startswith(_VERBOSE)]
    if numeric and all(_is_numbers(t) for t in numeric[:20]) and any(
            _bare_kind(None, len(t), u) for t, u in zip(numeric, [*numeric[1:], None], strict=True)):
        return 0.3  # nothing but -P 0 result lines (and netperf's -v 2 blocks)
    return 0.0


def throughput_scale(unit: str) -> float | None:
    """Give the bytes/s per unit of netperf's throughput ``unit``.

    Parameters
    ----------
    unit : str
        The unit as netperf prints it ("10^6bits/sec", "KBytes/s", "Trans/s", ...).

    Returns
    -------
    float or None
        Bytes per second per unit; None for a transaction rate ("Trans/s").

    Raises
    ------
    ValueError
        For a unit netperf does not print (not a ParseError: the caller knows the line).
    """
    u = unit.strip()
    m = re.match(r"^10\^([0369])bits(?:/s|/sec)?$", u)
    if m:
        return 10 ** int(m.group(1)) / 8
    m = re.match(r"^([KMG]?)Bytes(?:/s|/sec)?$", u)
    if m:
        return 1024.0 ** " KMG".index(m.group(1) or " ")
    if u in ("Trans/s", "Trans/sec", "Tran/s"):
        return None
    raise ValueError(unit)


def service_demand(usec: float, per: str) -> tuple[float, str]:
    """Convert netperf's service demand to the canonical units: (value, unit).

    netperf prints microseconds of CPU per KB (1024 bytes: netlib.c calc_service_demand
    divides the bytes by 1024.0) for streams and with ``-f``, per transaction otherwise.

    Parameters
    ----------
    usec : float
        The value as printed (us/KB or us/Tr).
    per : str
        "KB" or "transaction".

    Returns
    -------
    (float, str)
        Seconds of CPU per byte ("s/B") or per transaction ("s/tx").
    """
    if per == "KB":
        return usec * 1e-6 / 1024.0, "s/B"
    return usec * 1e-6, "s/tx"


def rate_unit(unit: str) -> str:
    """Read a ``--unit`` given for -P 0 result lines: netperf's unit text or its ``-f`` letter.

    Returns the unit as this parser names it: "Trans/s", or the -f unit without "/s"
    ("10^6bits", "KBytes", ...).

    Raises
    ------
    ValueError
        For anything netperf does not print (the message lists what it does).
    """
    u = unit.strip()
    if u in _FORMATS:
        return _FORMATS[u]
    try:
        scale = throughput_scale(u)
    except ValueError:
        raise ValueError("not a netperf unit: give netperf's -f letter (b k m g B K M G) or its "
                         "unit as printed (10^0bits/s, 10^3bits/s, 10^6bits/s, 10^9bits/s, "
                         "Bytes/s, KBytes/s, MBytes/s, GBytes/s, Trans/s)") from None
    return "Trans/s" if scale is None else re.sub(r"/(?:s|sec)$", "", u)


def selectors(columns: str) -> list[str]:
    """Read a ``--columns`` list: the omni selectors netperf's ``-o``/``-O``/``-k`` was given.

    Parameters
    ----------
    columns : str
        The selector list as typed after ``-o`` (``MIN_LATENCY,MEAN_LATENCY,...``; any case).

    Returns
    -------
    list[str]
        The selector names, upper case, in order.

    Raises
    ------
    ValueError
        For an empty name, a name that is not a selector's (letters, digits, ``_``) or
        ``all`` (its list is netperf's own and not known here).
    """
    names = [c.strip().upper() for c in columns.split(",")]
    if names == ["ALL"]:
        raise ValueError("'all' cannot name the columns: give the selectors netperf's -o "
                         "listed, or run without -P 0 to keep the header")
    bad = [c for c in names if not re.fullmatch(r"[A-Z][A-Z0-9_]*", c)]
    if bad:
        raise ValueError(f"not a netperf omni selector: {bad[0]!r} (give the comma-separated "
                         "list netperf's -o was given, e.g. MIN_LATENCY,THROUGHPUT,"
                         "THROUGHPUT_UNITS)")
    return names


#: The words of netperf 2.7.0's omni -O column headers (every selector's, from the header lines
#: of ``-O all`` in tests/fixtures/netperf/omni_tcp_rr_human_all.txt and the other -O
#: fixtures): a line made of them is a header line of an -O group, not a wrapper's line.
_HEADER_WORDS = frozenset("""
% (%) (sec) 50th 90th 99th Address Algorithm Alignment Bind Burst Bus Bytes CPU Calls Clean
Command Confidence Congestion Control Cork Count Demand Destination Device Direction Dirty
Driver Elapsed Enabled Family File Fill Final Firmware Frequency I/O ID IRQ Initial Interface
Interval Iterations Latency Level Line Local MHz MSS Machine Maximum Mean Method Microseconds
Minimum Model NODELAY Name Num OS Offset Peak Per Percent Percentile Port Priority Protocol
Rate Received Recv Release Remote Request Requested Requests Response Result Retransmissions
Round Run Security Send Sent Service Size Slot Socket Source Specific Stddev Subdevice
Subvendor Sysname System TOS Tag Target Test Throughput Time Tran/s Transaction Transport Trip
Type UUID Units Usecs User Util Vendor Version Width Xferred bytes swintr usec/tran
""".split())


def _header_line(line: str) -> bool:
    """Tell whether ``line`` is made of omni -O header words (a group's header line)."""
    words = line.split()
    return bool(words) and all(w in _HEADER_WORDS for w in words)


def _split_partial(text: str) -> tuple[str, tuple[int, str] | None]:
    """Split off a last line without its line end when netperf was writing it.

    netperf ends every line it writes; a capture whose last line has none stopped in it, and
    a number there may have lost digits. Returns the text without that line and (its number,
    its text), or the text unchanged and None when the line is whole or a wrapper's words
    ("Experiment completed" printed without a line end is not a cut).
    """
    if not text or text.endswith(("\n", "\r")):
        return text, None
    at = max(text.rfind("\n"), text.rfind("\r")) + 1
    last = text[at:].strip()
    before = text[:at].rstrip("\r\n")
    prev = before[max(before.rfind("\n"), before.rfind("\r")) + 1:].strip()
    netperf = bool(last) and (
        any(c.isdigit() for c in last) or "=" in last or "," in last
        or last.startswith(("MIGRATED", "Alignment", "Maximum")) or _header_line(last)
        or (bool(_KEYVAL.match(prev)) and bool(re.fullmatch(r"[A-Z][A-Z0-9_]*", last))))
    if not netperf:
        return text, None
    return text[:at], (len(text.splitlines()), last)


def parse(text: str, path: str = "<string>", *, unit: str | None = None,
          columns: str | None = None) -> pd.DataFrame:
    """Parse netperf output (classic tables, ``-P 0`` lines or omni selectors) into tidy rows.

    Follows the parser contract of :mod:`overhead.parsers` (text and path in, conformed
    tidy rows out); the rows are described in the module docstring.

    Raises
    ------
    RunFailed
        When the text is netperf's output but holds no result: netperf's error (quoted, with
        its line), or a banner or command line with nothing after it.
    ParseError
        When the text is not netperf output, a result line is malformed, a whole-number
        parameter is out of the 64-bit range, or ``unit`` contradicts the command line shown.

    ``unit`` (the CLI's ``--unit``) gives the rate's unit of -P 0 result lines when the file
    does not show the command line (see the module docstring); without it, those rates are
    named in a note (:func:`overhead.parsers._common.note`), not kept.
    """
    given = None if unit is None else rate_unit(unit)
    named = None if columns is None else selectors(columns)
    text, partial = _split_partial(text)
    blocks: list[tuple[int | None, str | None, list[tuple[int, str]], dict | None]] = []
    current: list[tuple[int, str]] = []
    title: tuple[int | None, str | None] = (None, None)
    command: dict | None = None
    seen: tuple[int, str] | None = None  # the first banner or netperf command line
    error: tuple[int, str] | None = None
    for lineno, line in numbered(text):
        stripped = line.strip()
        cmd = _command(stripped)
        m = None if cmd is not None else _TITLE.match(stripped)
        if cmd is not None or m:
            if current or title[0] is not None:
                blocks.append((*title, current, command))
            current = []
            if cmd is not None:  # a shell trace of the command: it says what follows is
                command, title = cmd, (None, None)
            else:
                title = (lineno, stripped)
            seen = seen or (lineno, stripped)
            continue
        if error is None and stripped.startswith(_ERRORS):
            error = (lineno, stripped)
        current.append((lineno, line))
    if current or title[0] is not None:
        blocks.append((*title, current, command))

    # every row carries p_percentile and p_test (NA where they do not apply), so that the
    # frame of a cut-off output has the same columns as the whole one
    rows = Rows(path, benchmark=BENCHMARK, tool=TOOL,
                dtypes={"p_percentile": "Float64", "p_test": "string"})
    trials: dict[str | None, int] = {}
    dropped: list[tuple[int, str]] = []  # -P 0 rates not kept (line, what): their unit is unknown
    cuts: list[tuple[int, str]] = []  # a result or block that stops before its end (line, what)
    unitless: list[tuple[int, str, str]] = []  # omni values whose unit selector is absent
    for title_line, title_text, lines, cmd in blocks:
        ctx: dict = {}
        if title_text is not None:
            name = _TITLE.match(title_text).group(1)
            test = _TESTS.get(name, name.replace(" ", "_"))
            ctx["p_test"] = test
            c = _CONF.search(title_text)
            if c:
                ctx["p_confidence_level"] = number(c.group(1), path, title_line, "confidence level")
                ctx["p_confidence_achieved"] = not any(
                    "Desired confidence was not achieved" in ln for _, ln in lines)
        elif cmd is not None:
            ctx["p_test"] = cmd["test"]
        start = len(rows)
        if _block(rows, lines, ctx, cmd, trials, title_text is not None, given, dropped, cuts,
                  named, unitless):
            continue  # -P 0 lines: _bare counted the trials of its results
        if len(rows) > start:
            key = ctx.get("p_test")
            trials[key] = trials.get(key, 0) + 1
            rows.fill("trial", trials[key], start)
    if not len(rows):
        if error is not None:
            raise RunFailed(path, error[0], error[1])
        if partial is not None and seen is None:
            raise ParseError(path, partial[0], "no netperf result: the only netperf line has "
                             "no line end (the capture stopped in it)")
        if seen is not None:
            raise RunFailed(path, None, f"netperf printed no result after {seen[1]!r} (line "
                            f"{seen[0]})")
        raise ParseError(path, None, "no netperf result found (no test banner with a result "
                         "table, -P 0 result lines, omni CSV/columns, or key=value selectors)")
    df = rows.frame()
    if dropped:
        more = f" and {len(dropped) - 1} more result line{'s' if len(dropped) > 2 else ''}" \
            if len(dropped) > 1 else ""
        note(df, f"{path}:{dropped[0][0]}: netperf -P 0 result: {dropped[0][1]}{more} not kept: "
             f"its unit (netperf's -f) is not in the file; give it with 'overhead parse netperf "
             f"{path} --unit 10^6bits/s' (the unit netperf ran with: Trans/s for request/"
             f"response without -f, 10^6bits/s for streams without -f), or keep the netperf "
             f"command line in the capture (sh -x)")
    if unitless:
        n, sel, unit_sel = unitless[0]
        more = f" and {len(unitless) - 1} more" if len(unitless) > 1 else ""
        note(df, f"{path}:{n}: netperf omni {sel}{more} not kept: its unit is {unit_sel}'s, "
             f"which is not in the output; select {unit_sel} too")
    if partial is not None:  # a last line cut while netperf wrote it: its values are not read
        return cut_short(df, path, partial[0], "the last line has no line end (the capture "
                         "stopped mid-line): its values are not kept, the rows before it are")
    return df if not cuts else cut_short(df, path, *cuts[0])


def _command(line: str) -> dict | None:
    """Read the options of a netperf command line shown by a shell trace (``+ netperf ...``).

    Returns ``{"test": ..., "fmt": ..., "output": ...}`` (the ``-t`` test, TCP_STREAM when
    not given as netperf defaults to it; the ``-f`` letter or None; the omni output option
    after ``--``: ("o" | "O" | "k", its selector list or "all"), or None), or None when
    ``line`` is not such a line.
    """
    m = _TRACE.match(line)
    if not m or "netperf" not in m.group(1):
        return None
    try:
        words = shlex.split(m.group(1))
    except ValueError:
        return None
    at = next((i for i, w in enumerate(words) if w.rsplit("/", 1)[-1] == "netperf"), None)
    if at is None:
        return None
    opts: dict = {"test": "TCP_STREAM", "fmt": None, "output": None}
    args = words[at + 1:]
    i = 0
    while i < len(args) and args[i] != "--":  # global options only (test options follow --)
        for flag, key in (("-t", "test"), ("-f", "fmt")):
            if args[i] == flag and i + 1 < len(args):
                opts[key] = args[i + 1]
                i += 1
                break
            if args[i].startswith(flag) and len(args[i]) > 2:
                opts[key] = args[i][2:]
                break
        i += 1
    for k in range(i + 1, len(args) - 1):  # test options: the omni output selectors
        if args[k] in ("-o", "-O", "-k"):
            sels = [w.strip().upper() for w in args[k + 1].split(",")]
            opts["output"] = (args[k][1], "all" if sels == ["ALL"] else sels)
    opts["test"] = opts["test"].upper()
    return opts


def _stray(line: str) -> bool:
    """Tell whether ``line`` is none of netperf's results: its warnings, a wrapper's trace."""
    s = line.strip()
    return (s.startswith(("!!!", "Interim result")) or bool(_WARNING.match(s))
            or bool(_TRACE.match(s)))


def _block(rows: Rows, lines: list[tuple[int, str]], ctx: dict, cmd: dict | None,
           trials: dict, banner: bool, given: str | None, dropped: list, cuts: list,
           named: list[str] | None = None, unitless: list | None = None) -> bool:
    """Add the rows of one test's output (the lines after its banner, or a part without one).

    ``cmd`` is the last command line shown before the part (or None), ``given`` the
    ``--unit`` (or None), ``named`` the ``--columns`` selectors (or None); -P 0 rates not
    kept are appended to ``dropped``, a result or block that stops before its end (an omni
    ``all`` output without its closing command line, a request/response table without its
    remote line, a -v 2 block without its values...) to ``cuts`` (line, what). Returns True
    when the part was read as ``-P 0`` lines, whose trials are counted here.
    """
    body = [(n, ln) for n, ln in lines if not _stray(ln)]
    content = [(n, ln) for n, ln in body if ln.strip()]
    if not content:
        return False
    unitless = [] if unitless is None else unitless
    first = content[0][1].strip()
    output = None if cmd is None else cmd["output"]
    # the selectors, in order: the command line's -o/-O/-k list, else --columns (not for a
    # command line shown without one: a classic test)
    listed = (output[1] if output is not None and output[1] != "all"
              else named if cmd is None or output is not None else None)
    if any(_KEYVAL.match(ln.strip()) for _, ln in content):  # -k output
        values = {}
        shown: list[str] = []
        for n, ln in content:
            m = _KEYVAL.match(ln.strip())
            if m:
                shown.append(m.group(1))
            if m and m.group(1) in _SELECTORS:
                values.setdefault(m.group(1), (m.group(2).strip(), n, f"{m.group(1)}={m.group(2).strip()}"))
        _omni_rows(rows, values, ctx, unitless)
        # netperf prints one line per selector of -k, in its order, and nothing after the last:
        # only the list (a command line shown, or --columns) tells a cut from fewer selectors
        missing = [sel for sel in (listed or []) if sel not in shown]
        if missing:
            last = max(n for n, ln in content if _KEYVAL.match(ln.strip()))
            cuts.append((last, f"omni -k output without {', '.join(missing)} (the -k list "
                         f"names {len(listed)} selectors): the capture ends before them"))
    elif first.startswith("Local /Remote"):
        _classic(rows, body, ctx, "rr", cuts)
    elif first.startswith("Recv") and "Send" in first:
        _classic(rows, body, ctx, "stream", cuts)
    elif first.startswith("Socket") and "Messages" in first:
        _classic(rows, body, ctx, "udp_stream", cuts)
    elif "," in first and any(h.strip() in _HEADERS for h in first.split(",")):
        _omni_csv(rows, content, ctx, cuts, unitless)
    elif not banner and listed is not None:
        # omni -P 0: values without their header, named by the command line or --columns
        letter = (output[0] if output is not None
                  else "o" if any("," in ln for _, ln in content) else "O")
        _omni_bare(rows, content, ctx, {"output": (letter, listed)}, trials, unitless)
        return True
    elif not banner and output is not None:
        _omni_bare(rows, content, ctx, cmd, trials, unitless)  # -o all with -P 0: refused there
        return True
    elif not banner:  # -P 0 lines, or a wrapper's text
        _bare(rows, content, ctx, cmd, trials, given, dropped, cuts)
        return True
    else:
        _omni_human(rows, body, ctx, cuts, unitless)
    return False


# --------------------------------------------------------------------------- classic tables


def _split_table(body: list[tuple[int, str]]) -> tuple[list[tuple[int, str]], list[tuple[int, list[str]]]]:
    """Split a table into its header lines (up to the first blank line) and data lines.

    Header lines keep their numbers; data lines stop at a ``-v 2`` block ("Alignment ...",
    "Maximum Segment Size"), which :func:`_verbose` reads.
    """
    header: list[tuple[int, str]] = []
    data: list[tuple[int, list[str]]] = []
    state = "lead"
    for n, ln in body:
        if state == "lead":
            if ln.strip():
                state = "header"
            else:
                continue
        if state == "header":
            if ln.strip():
                header.append((n, ln))
                continue
            state = "data"
            continue
        if ln.strip().startswith(_VERBOSE):
            break
        if ln.strip():
            data.append((n, ln.split()))
    return header, data


def _unit_scale(unit: str, path: str, lineno: int) -> float | None:
    """Apply :func:`throughput_scale`, raising ParseError at ``path:lineno`` for unknown units."""
    try:
        return throughput_scale(unit)
    except ValueError:
        raise ParseError(path, lineno, f"unknown netperf throughput unit {unit!r}") from None


def _classic(rows: Rows, body: list[tuple[int, str]], ctx: dict, kind: str, cuts: list) -> None:
    """Add the rows of a classic result table (``kind``: rr, stream or udp_stream).

    netperf prints a request/response result on two lines (the second: the remote socket
    sizes) and a UDP_STREAM result on two (sending, then receiving side); a table without
    its second line, or a -v 2 block without its values, is appended to ``cuts``.
    """
    path = rows.path
    header, data = _split_table(body)
    if not data:
        return
    header_text = " ".join(ln for _, ln in header)
    has_cpu = "CPU" in header_text or "Utilization" in header_text
    sd_per = "transaction" if "us/Tr" in header_text else "KB" if "us/KB" in header_text else None

    def unit_at(index: int, position: int) -> tuple[str, float | None]:
        """Read the unit word at ``position`` of header line ``index`` and its scale."""
        hn, text = header[min(index, len(header) - 1)]
        words = text.split() if len(header) > index else []
        unit = words[position] if len(words) > position else ""
        return unit, _unit_scale(unit, path, hn)

    def nums(tokens: list[str], n: int, what: str, lineno: int) -> list[float]:
        """Read the ``n`` numbers of a data line."""
        if len(tokens) != n:
            raise ParseError(path, lineno, f"netperf {what} line: expected {n} fields, found "
                             f"{len(tokens)}: {' '.join(tokens)!r}")
        return [number(t, path, lineno, what) for t in tokens]

    def rate(value: float, token: str, unit: str, scale: float | None, lineno: int, base: dict) -> None:
        """Add the throughput (or transaction rate, when ``scale`` is None) row."""
        if scale is None:
            rows.add(lineno, "transaction_rate", value, "tx/s", True, f"{token} {unit}", base)
        else:
            rows.add(lineno, "throughput", value * scale, "B/s", True, f"{token} {unit}", base)

    def cpu(values: list[float], tokens: list[str], lineno: int, sides: tuple[str, ...],
            base: dict) -> None:
        """Add CPU utilization columns for ``sides``, then service demand columns for them."""
        k = len(sides)
        for side, v, tok in zip(sides, values[:k], tokens[:k], strict=True):
            if v >= 0:  # netperf prints -1 when it did not measure
                rows.add(lineno, f"cpu_util_{side}", v, "%", False, f"{tok} %", base)
        for side, v, tok in zip(sides, values[k:2 * k], tokens[k:2 * k], strict=True):
            if v >= 0 and sd_per is not None:
                unit = "us/KB" if sd_per == "KB" else "us/Tr"
                rows.add(lineno, f"service_demand_{side}", *service_demand(v, sd_per), False,
                         f"{tok} {unit}", base)

    lineno, tokens = data[0]
    if kind == "rr":
        v = nums(tokens, 10 if has_cpu else 6, "request/response result", lineno)
        params = {"p_send_socket": int(v[0]), "p_recv_socket": int(v[1]),
                  "p_request_size": int(v[2]), "p_response_size": int(v[3])}
        if len(data) > 1:
            rn, rtok = data[1]
            rv = nums(rtok, 2, "remote socket sizes", rn)
            params.update(p_remote_send_socket=int(rv[0]), p_remote_recv_socket=int(rv[1]))
        else:
            cuts.append((lineno, "the request/response result without its second line (the "
                         "remote socket sizes): the capture ends in the result"))
        base = {**ctx, **params}
        rows.add(lineno, "elapsed_time", v[4], "s", None, f"{tokens[4]} secs.", base)
        if "Trans." in header_text:
            rate(v[5], tokens[5], "Trans/s", None, lineno, base)
        else:  # -f given: "Tput <unit> per sec"
            unit, scale = unit_at(2, 5)
            rate(v[5], tokens[5], unit + "/s", scale, lineno, base)
        if has_cpu:
            cpu(v[6:], tokens[6:], lineno, ("local", "remote"), base)
        _verbose(rows, [(n, ln) for n, ln in body if n > lineno and ln.strip()], base,
                 "Trans." in header_text, cuts)
        return

    if kind == "stream":
        v = nums(tokens, 9 if has_cpu else 5, "stream result", lineno)
        unit, scale = unit_at(3, 4)
        base = {**ctx, "p_recv_socket": int(v[0]), "p_send_socket": int(v[1]),
                "p_message_size": int(v[2])}
        rows.add(lineno, "elapsed_time", v[3], "s", None, f"{tokens[3]} secs.", base)
        rate(v[4], tokens[4], unit, scale, lineno, base)
        if has_cpu:
            cpu(v[5:], tokens[5:], lineno, ("local", "remote"), base)
        _verbose(rows, [(n, ln) for n, ln in body if n > lineno and ln.strip()], base, False,
                 cuts)
        return

    # UDP_STREAM: sending side line, then receiving side line
    unit, scale = unit_at(2, 5)
    if scale is None:
        raise ParseError(path, header[min(2, len(header) - 1)][0], f"UDP_STREAM throughput in {unit!r}")
    v = nums(tokens, 8 if has_cpu else 6, "UDP_STREAM send-side", lineno)
    params = {"p_send_socket": int(v[0]), "p_message_size": int(v[1])}
    second = None
    if len(data) > 1:
        rn, rtok = data[1]
        rv = nums(rtok, 6 if has_cpu else 4, "UDP_STREAM receive-side", rn)
        params["p_recv_socket"] = int(rv[0])
        second = (rn, rtok, rv)
    else:
        cuts.append((lineno, "the UDP_STREAM result without its receiving side's line: the "
                     "capture ends in the result"))
    send = {**ctx, **params, "p_side": "send"}
    rows.add(lineno, "elapsed_time", v[2], "s", None, f"{tokens[2]} secs", send)
    rows.add(lineno, "messages", v[3], "count", None, f"{tokens[3]} #", send)
    rows.add(lineno, "message_errors", v[4], "count", False, f"{tokens[4]} #", send)
    rate(v[5], tokens[5], unit, scale, lineno, send)
    if has_cpu:
        cpu(v[6:], tokens[6:], lineno, ("local",), send)
    if second is not None:
        rn, rtok, rv = second
        recv = {**ctx, **params, "p_side": "recv"}
        rows.add(rn, "elapsed_time", rv[1], "s", None, f"{rtok[1]} secs", recv)
        rows.add(rn, "messages", rv[2], "count", None, f"{rtok[2]} #", recv)
        rate(rv[3], rtok[3], unit, scale, rn, recv)
        if has_cpu:
            cpu(rv[4:], rtok[4:], rn, ("remote",), recv)


# --------------------------------------------------------------------------- -P 0 and -v 2


def _numbers(path: str, lineno: int, tokens: list[str], what: str) -> list[float]:
    """Read every token of a result line as a number."""
    return [number(t, path, lineno, what) for t in tokens]


def _is_numbers(tokens: list[str]) -> bool:
    """Tell whether every token is a plain decimal number (a -P 0 result line)."""
    return bool(tokens) and all(_DECIMAL.match(t) for t in tokens)


def _bare_kind(cmd: dict | None, n: int, following: list[str] | None) -> str | None:
    """Say which table a -P 0 line of ``n`` fields belongs to (None: cannot tell).

    With the command line, its ``-t`` says it. Without, the shapes tell request/response
    (6 or 10 fields, then the 2 remote socket sizes), stream (5 or 9) and UDP_STREAM (6 or 8,
    then a receive line of 4 or 6); a 6-field line with no second line is either.
    """
    if cmd is not None:
        test = cmd["test"]
        return ("rr" if test in _RR_TESTS else "udp_stream" if test == "UDP_STREAM"
                else "stream" if test in _STREAM_TESTS else None)
    m = len(following) if following is not None else None
    if n == 10 or (n == 6 and m == 2):
        return "rr"
    if n in (5, 9):
        return "stream"
    if (n, m) in ((6, 4), (8, 6)):
        return "udp_stream"
    return None


def _headerless_csv(line: str) -> bool:
    """Tell whether ``line`` is omni ``-o`` values without their header (``-P 0``)."""
    head = line.strip().split('"', 1)[0]
    fields = [f.strip() for f in head.split(",")]
    return (len(fields) >= 3 and not any(" " in f for f in fields)
            and not any(f in _HEADERS for f in fields)
            and any(_DECIMAL.match(f) for f in fields))


_UNIT_WORDS = re.compile(r"^(?:Trans/s|10\^[0369]bits/s|[KMG]?Bytes/s|Send\|Recv|Recv\|Send|"
                         r"TCP|UDP|SCTP|Stream|Datagram)$")


def _headerless_columns(tokens: list[str]) -> bool:
    """Tell whether ``tokens`` are omni ``-O`` values without their header (``-P 0``).

    They hold numbers and a unit, protocol or direction as netperf prints them.
    """
    return (sum(bool(_DECIMAL.match(t)) for t in tokens) >= 2
            and any(_UNIT_WORDS.match(t) for t in tokens))


def _bare(rows: Rows, content: list[tuple[int, str]], ctx: dict, cmd: dict | None,
          trials: dict, given: str | None, dropped: list, cuts: list) -> None:
    """Add the rows of ``-P 0`` result lines (no banner, no header lines).

    Which number is which follows from the test kind (the shape of the lines, or ``-t`` of a
    command line shown before them); the units of the rate and of service demand are set by
    ``-f``, which only a command line shows: without one, those values give no row.
    """
    path = rows.path
    i = 0
    last: tuple[dict, bool] | None = None  # the last result's parameters, and whether it had a rate
    begun: list[int] = []  # first row of each result (its -v 2 rows follow it)

    def number_trials() -> None:
        """Give each result's rows (its -v 2 block's included) their trial."""
        key = ctx.get("p_test")
        for k, start in enumerate(begun):
            trials[key] = trials.get(key, 0) + 1
            rows.fill("trial", trials[key], start, begun[k + 1] if k + 1 < len(begun) else None)

    while i < len(content):
        n, line = content[i]
        tokens = line.split()
        if line.strip().startswith(_VERBOSE):
            if last is None:
                i += 1
                continue
            i = _verbose_at(rows, content, i, *last, cuts)
            continue
        if not _is_numbers(tokens):
            if _headerless_csv(line):
                raise ParseError(path, n, "netperf omni CSV values without their header "
                                 "(-P 0 with -o): which value is which is set by -o, which "
                                 "is not in the file; give -o's list with 'overhead parse "
                                 f"netperf {path} --columns MIN_LATENCY,...', keep the netperf "
                                 "command line in the capture (sh -x) or run without -P 0")
            if _headerless_columns(tokens):
                raise ParseError(path, n, "netperf omni -O values without their header (-P 0 "
                                 "with -O): which value is which is set by -O, which is not in "
                                 "the file; give -O's list with 'overhead parse netperf "
                                 f"{path} --columns MIN_LATENCY,...', keep the netperf command "
                                 "line in the capture (sh -x) or run without -P 0")
            i += 1  # a wrapper's line
            continue
        nxt = content[i + 1][1].split() if i + 1 < len(content) else None
        following = nxt if nxt is not None and _is_numbers(nxt) else None
        kind = _bare_kind(cmd, len(tokens), following)
        if kind is None:
            i += 1
            continue
        if len(tokens) not in _BARE_FIELDS[kind]:
            raise ParseError(path, n, f"netperf -P 0 {ctx.get('p_test', kind)} result line: "
                             f"expected {' or '.join(map(str, _BARE_FIELDS[kind]))} fields, "
                             f"found {len(tokens)}: {line.strip()!r}")
        start = len(rows)
        fmt = None if cmd is None else cmd["fmt"]
        if cmd is None:
            unit = given  # -f is not shown: the rate's unit is --unit's, or unknown
            if unit is None:
                k = 4 if kind == "stream" else 5
                what = (f"the {'rate' if kind == 'rr' else 'throughput'} ({tokens[k]!r}, "
                        f"field {k + 1})" + (" and the service demand"
                                             if kind == "rr" and len(tokens) == 10 else ""))
                dropped.append((n, what))
            elif unit == "Trans/s" and kind != "rr":
                raise ParseError(path, n, f"--unit Trans/s: this -P 0 result line is a "
                                 f"stream's ({len(tokens)} fields), its rate is in bits or "
                                 f"bytes per second")
        elif kind == "rr" and fmt is None:
            unit = "Trans/s"  # request/response tests report transactions unless -f is given
        else:
            unit = _FORMATS.get(fmt or "m")  # netperf's default -f is m (10^6bits/s)
        if cmd is not None and given is not None and unit != given:
            shown = unit if unit == "Trans/s" else f"{unit}/s"
            raise ParseError(path, n, f"--unit {given} contradicts the netperf command line "
                             f"shown before this result (its rate is in {shown})")
        i, last = _bare_result(rows, content, i, kind, ctx, unit, following)
        begun.append(start)
        if kind in ("rr", "udp_stream") and (following is None or len(following) != (
                2 if kind == "rr" else len(tokens) - 2)):
            cuts.append((n, f"the -P 0 {'request/response' if kind == 'rr' else 'UDP_STREAM'} "
                         "result without its second line: the capture ends in the result"))
    number_trials()


def _bare_result(rows: Rows, content: list[tuple[int, str]], i: int, kind: str, ctx: dict,
                 unit: str | None, following: list[str] | None) -> tuple[int, tuple[dict, bool]]:
    """Read one -P 0 result starting at ``content[i]``; return the next index and its context.

    ``unit`` is the rate's unit ("Trans/s", "10^6bits", ...; None when no command line
    stated the options).
    """
    path = rows.path
    n, line = content[i]
    tokens = line.split()
    v = _numbers(path, n, tokens, "netperf -P 0 result")
    cpu = len(tokens) == _BARE_FIELDS[kind][1]
    scale = None if unit in (None, "Trans/s") else _unit_scale(unit, path, n)
    have_rate = False

    def add_rate(lineno: int, value: float, token: str, base: dict) -> None:
        nonlocal have_rate
        if unit == "Trans/s":
            rows.add(lineno, "transaction_rate", value, "tx/s", True, f"{token} Trans/s", base)
            have_rate = True
        elif scale is not None:
            rows.add(lineno, "throughput", value * scale, "B/s", True, f"{token} {unit}/s", base)

    def add_cpu(lineno: int, util: float, sd: float, toks: list[str], side: str, per: str | None,
                base: dict) -> None:
        if util >= 0:
            rows.add(lineno, f"cpu_util_{side}", util, "%", False, f"{toks[0]} %", base)
        if sd >= 0 and per is not None:
            rows.add(lineno, f"service_demand_{side}", *service_demand(sd, per), False,
                     f"{toks[1]} us/{'KB' if per == 'KB' else 'Tr'}", base)

    if kind == "rr":
        base = {**ctx, "p_send_socket": int(v[0]), "p_recv_socket": int(v[1]),
                "p_request_size": int(v[2]), "p_response_size": int(v[3])}
        nxt = i + 1
        if following is not None and len(following) == 2:
            rv = _numbers(path, content[i + 1][0], following, "netperf remote socket sizes")
            base.update(p_remote_send_socket=int(rv[0]), p_remote_recv_socket=int(rv[1]))
            nxt = i + 2
        rows.add(n, "elapsed_time", v[4], "s", None, f"{tokens[4]} secs.", base)
        add_rate(n, v[5], tokens[5], base)
        if cpu:
            # service demand is per transaction without -f, per KB with it
            per = None if unit is None else "transaction" if unit == "Trans/s" else "KB"
            add_cpu(n, v[6], v[8], [tokens[6], tokens[8]], "local", per, base)
            add_cpu(n, v[7], v[9], [tokens[7], tokens[9]], "remote", per, base)
        return nxt, (base, have_rate)
    if kind == "stream":
        base = {**ctx, "p_recv_socket": int(v[0]), "p_send_socket": int(v[1]),
                "p_message_size": int(v[2])}
        rows.add(n, "elapsed_time", v[3], "s", None, f"{tokens[3]} secs.", base)
        add_rate(n, v[4], tokens[4], base)
        if cpu:  # stream service demand is always per KB
            add_cpu(n, v[5], v[7], [tokens[5], tokens[7]], "local", "KB", base)
            add_cpu(n, v[6], v[8], [tokens[6], tokens[8]], "remote", "KB", base)
        return i + 1, (base, False)
    # UDP_STREAM: the sending side's line, then the receiving side's (when not cut off)
    params = {"p_send_socket": int(v[0]), "p_message_size": int(v[1])}
    second = None
    if following is not None and len(following) == len(tokens) - 2:
        rn = content[i + 1][0]
        second = (rn, following, _numbers(path, rn, following, "netperf -P 0 UDP_STREAM receive side"))
        params["p_recv_socket"] = int(second[2][0])
    send = {**ctx, **params, "p_side": "send"}
    rows.add(n, "elapsed_time", v[2], "s", None, f"{tokens[2]} secs", send)
    rows.add(n, "messages", v[3], "count", None, f"{tokens[3]} #", send)
    rows.add(n, "message_errors", v[4], "count", False, f"{tokens[4]} #", send)
    add_rate(n, v[5], tokens[5], send)
    if cpu:
        add_cpu(n, v[6], v[7], tokens[6:8], "local", "KB", send)
    if second is None:
        return i + 1, (send, False)
    rn, rtok, rv = second
    recv = {**ctx, **params, "p_side": "recv"}
    rows.add(rn, "elapsed_time", rv[1], "s", None, f"{rtok[1]} secs", recv)
    rows.add(rn, "messages", rv[2], "count", None, f"{rtok[2]} #", recv)
    add_rate(rn, rv[3], rtok[3], recv)
    if cpu:
        add_cpu(rn, rv[4], rv[5], rtok[4:6], "remote", "KB", recv)
    return i + 2, (recv, False)


def _verbose(rows: Rows, content: list[tuple[int, str]], base: dict, have_rate: bool,
             cuts: list) -> None:
    """Add the rows of the -v 2 blocks among ``content`` (non-blank lines after a result).

    A block cut before its value line, and a TCP stream test's alignment block without the
    "Maximum Segment Size" block netperf prints after it, are appended to ``cuts``.
    """
    i = 0
    stream_block = mss = False
    while i < len(content):
        line = content[i][1].strip()
        if line.startswith(_VERBOSE):
            stream_block = stream_block or (line.startswith("Alignment") and i + 1 < len(
                content) and "Xfered" in content[i + 1][1])
            mss = mss or line.startswith("Maximum")
            i = _verbose_at(rows, content, i, base, have_rate, cuts)
        else:
            i += 1
    if stream_block and not mss and base.get("p_test") in ("TCP_STREAM", "TCP_MAERTS") \
            and not cuts:
        cuts.append((content[-1][0], "a TCP stream test's -v 2 output without its "
                     "'Maximum Segment Size' block: the capture ends before it"))


def _verbose_at(rows: Rows, content: list[tuple[int, str]], i: int, base: dict,
                have_rate: bool, cuts: list) -> int:
    """Read the -v 2 block whose first header line is ``content[i]``; return the next index.

    Request/response: alignments and offsets, round-trip latency (usec/Tran), the transaction
    rate (added only when the result line gave none: ``have_rate`` False) and the outbound
    and inbound throughput in the unit of its header. Stream: alignments and offsets, bytes
    transferred, then bytes per send/recv and their count in the order of the header
    (TCP_MAERTS swaps them). "Maximum Segment Size (bytes)": the MSS.
    """
    path = rows.path
    if i + 3 >= len(content):  # cut off before its value line
        cuts.append((content[-1][0], "a -v 2 block's header lines without their values: the "
                     "capture ends in the block"))
        return len(content)
    head = [ln for _, ln in content[i:i + 3]]
    vn, vline = content[i + 3]
    tok = vline.split()
    if head[0].strip().startswith("Maximum"):
        v = _numbers(path, vn, tok, "maximum segment size")
        if len(v) != 1:
            raise ParseError(path, vn, f"netperf maximum segment size: expected 1 field, found {len(v)}")
        rows.add(vn, "mss", v[0], "B", None, f"{tok[0]} bytes", base)
        return i + 4
    if not head[1].strip().startswith("Local"):
        return i + 1  # not the alignment block after all
    if "Latency" in head[1]:  # request/response
        v = _numbers(path, vn, tok, "netperf -v 2 request/response line")
        if len(v) != 8:
            raise ParseError(path, vn, f"netperf -v 2 request/response line: expected 8 fields, "
                             f"found {len(v)}")
        unit = head[1].split()[-1]
        scale = _unit_scale(unit, path, content[i + 1][0])
        rows.add(vn, "rt_latency", v[4] * 1e-6, "s", False, f"{tok[4]} usec/Tran", base)
        if not have_rate:
            rows.add(vn, "transaction_rate", v[5], "tx/s", True, f"{tok[5]} Trans/s", base)
        if scale is not None:
            rows.add(vn, "throughput_outbound", v[6] * scale, "B/s", True, f"{tok[6]} {unit}", base)
            rows.add(vn, "throughput_inbound", v[7] * scale, "B/s", True, f"{tok[7]} {unit}", base)
        return i + 4
    if "Xfered" in head[1]:  # stream: Bytes Xfered, Bytes Per <X> (avg), <X>s, ... <Y>s
        words = head[0].split()
        v = _numbers(path, vn, tok, "netperf -v 2 stream line")
        if len(v) != 9 or len(words) != 7:
            raise ParseError(path, vn, f"netperf -v 2 stream line: expected 9 fields, found {len(v)}")
        rows.add(vn, "bytes_transferred", v[4], "B", None, f"{tok[4]} bytes", base)
        for k, word in ((5, words[4]), (7, words[6])):
            op = word.lower().rstrip("s")  # "send" or "recv"
            rows.add(vn, f"bytes_per_{op}", v[k], "B", None, f"{tok[k]} bytes/{op}", base)
            rows.add(vn, f"{op}s", v[k + 1], "count", None, f"{tok[k + 1]} {word}", base)
        return i + 4
    return i + 4  # alignments and offsets only (TCP_CRR): nothing measured


# --------------------------------------------------------------------------- omni output


def _omni_bare(rows: Rows, content: list[tuple[int, str]], ctx: dict, cmd: dict,
               trials: dict, unitless: list) -> None:
    """Add the rows of omni output without its header (``-P 0``), named by the command line.

    ``-o SEL`` prints one CSV line of values per test, ``-O SEL`` one line of columns, in the
    order of the selectors the command line (a shell trace before them) or ``--columns``
    lists (``cmd["output"]``). Each line is a trial. A line without a digit whose fields do
    not match the list is a wrapper's ("Experiment completed", a test's name): skipped.
    """
    path = rows.path
    letter, sels = cmd["output"]
    if sels == "all":
        raise ParseError(path, content[0][0], f"netperf omni -{letter} all with -P 0: the "
                         "values of every selector without their header; run without -P 0 "
                         "to keep the header that names them")
    key = ctx.get("p_test")
    for n, line in content:
        if not line.strip():
            continue
        tokens = (next(csv.reader([line.strip()])) if letter == "o" else line.split())
        if len(tokens) != len(sels):
            if not any(c.isdigit() for c in line):
                continue  # a wrapper's line, not values
            raise ParseError(path, n, f"netperf omni -P 0 line has {len(tokens)} values, the "
                             f"-{letter} list (the command line's or --columns) names "
                             f"{len(sels)} selectors")
        picked = {sel: (tok.strip(), n, f"{tok.strip()} ({sel})")
                  for sel, tok in zip(sels, tokens, strict=True) if sel in _SELECTORS}
        start = len(rows)
        _omni_rows(rows, picked, ctx, unitless)
        if len(rows) > start:
            trials[key] = trials.get(key, 0) + 1
            rows.fill("trial", trials[key], start)


#: The first columns of omni's ``-o all`` / ``-O all`` output (netperf 2.7.0), whose last
#: column is the quoted command line ("Command Line", COMMAND_LINE): its closing value.
_ALL_FIRST = ["Socket Type", "Protocol", "Direction", "Elapsed Time (sec)", "Throughput",
              "Throughput Units", "Local Send Socket Size Requested"]
_CLOSED_COMMAND = re.compile(r'"[^"]*netperf[^"]*"\s*$')


def _all_closed(value_line: str) -> bool:
    """Tell whether an omni ``all`` value line ends with its whole quoted command line."""
    return bool(_CLOSED_COMMAND.search(value_line))


def _omni_csv(rows: Rows, content: list[tuple[int, str]], ctx: dict, cuts: list,
              unitless: list) -> None:
    """Add the rows of omni CSV output (header line, value line; repeated).

    ``-o all`` output (its header begins as :data:`_ALL_FIRST`) ends its value line with the
    quoted command line; without it (a capture cut in that line, or before it) the rows are
    kept and the cut is appended to ``cuts``.
    """
    path = rows.path
    if len(content) % 2 and content[-1][1].split(",")[0].strip() in _HEADERS:
        cuts.append((content[-1][0], "an omni CSV header without its value line"))
    i = 0
    while i + 1 < len(content):
        (hn, header), (vn, values) = content[i], content[i + 1]
        names = [h.strip() for h in header.split(",")]
        tokens = [t.strip() for t in values.split(",")]
        if len(tokens) != len(names):
            raise ParseError(path, vn, f"omni CSV line has {len(tokens)} fields, its header "
                             f"(line {hn}) {len(names)}")
        if names[:len(_ALL_FIRST)] == _ALL_FIRST and not _all_closed(values):
            cuts.append((vn, "omni -o all values without their closing command line"))
        picked = {}
        for name, tok in zip(names, tokens, strict=True):
            sel = _HEADERS.get(name)
            if sel is not None:
                picked.setdefault(sel, (tok, vn, f"{tok} ({name})"))
        _omni_rows(rows, picked, ctx, unitless)
        i += 2


def _columns(lines: list[str]) -> list[tuple[int, int]]:
    """Find the column spans of netperf's -O output.

    A column starts where every line has a space (or the line start) just before it and some
    line has text.
    """
    width = max(len(ln) for ln in lines)
    padded = [ln.ljust(width) for ln in lines]
    starts = [p for p in range(width)
              if any(ln[p] != " " for ln in padded) and (p == 0 or all(ln[p - 1] == " " for ln in padded))]
    return [(s, e) for s, e in zip(starts, [*starts[1:], width], strict=True)]


def _omni_human(rows: Rows, body: list[tuple[int, str]], ctx: dict, cuts: list,
                unitless: list) -> None:
    """Add the rows of omni column output (``-O``).

    Each group of columns is four header lines and a value line; a group cut before its value
    line is appended to ``cuts``. ``-O all`` output (its first group begins as
    :data:`_ALL_FIRST`) ends with the quoted command line ("Command Line"); a capture without
    it is appended to ``cuts`` too (the rows read are kept).
    """
    path = rows.path
    filled = [ln for _, ln in body if ln.strip()]
    everything = len(filled) >= 4 and filled[0].split()[:6] == [
        "Socket", "Protocol", "Direction", "Elapsed", "Throughput", "Throughput"] \
        and "Requested" in filled[3]
    merged: dict = {}  # selector -> value over all groups (-O prints wide output in groups)
    last_values: str | None = None  # the value line of the last whole group
    i = 0
    while i < len(body):
        if not body[i][1].strip():
            i += 1
            continue
        group = body[i:i + 5]
        if len(group) < 5 or not all(ln.strip() for _, ln in group):
            # a group's header lines without their value line (a capture cut), or what a
            # wrapper printed after netperf ("Experiment completed", the next test's name)
            if _header_line(group[0][1]):
                cuts.append((group[-1][0], "an omni -O group of columns without its value line"))
            break
        texts = [ln for _, ln in group]
        spans = _columns(texts)
        vn = group[4][0]
        picked: dict = {}
        k = 0
        while k < len(spans):
            for width in range(1, min(5, len(spans) - k + 1)):
                start, end = spans[k][0], spans[k + width - 1][1]
                name = " ".join(" ".join(t[start:end].split()) for t in texts[:4] if t[start:end].strip())
                if name in _HEADERS:
                    tok = texts[4][start:end].strip()
                    picked.setdefault(_HEADERS[name], (tok, vn, f"{tok} ({name})"))
                    k += width
                    break
            else:
                k += 1
        for sel, val in picked.items():
            merged.setdefault(sel, val)
        last_values = texts[4]
        i += 5
    if everything and not cuts and not (last_values is not None and _all_closed(last_values)):
        last = next(n for n, ln in reversed(body) if ln.strip())
        cuts.append((last, "omni -O all output without its closing command line"))
    if not merged and i >= 5:
        raise ParseError(path, body[0][0], "unrecognized netperf output: expected a classic "
                         "result table, omni CSV, omni columns (-O) or key=value lines")
    _omni_rows(rows, merged, ctx, unitless)


def _omni_rows(rows: Rows, values: dict[str, tuple[str, int, str]], ctx: dict,
               unitless: list) -> None:
    """Add the rows of omni selector values: {SELECTOR: (value text, line, raw)}.

    THROUGHPUT without THROUGHPUT_UNITS and LOCAL_SD/REMOTE_SD without SD_UNITS cannot be
    read (their unit is the other selector's): they are appended to ``unitless`` (line,
    selector, the selector that names the unit), for the note that says so.
    """
    path = rows.path

    def present(sel: str) -> bool:
        """Tell whether selector ``sel`` has a value."""
        return sel in values and values[sel][0] not in _MISSING

    base = dict(ctx)
    for sel, param in _OMNI_INT_PARAMS.items():
        if present(sel):
            tok, n, _ = values[sel]
            v = number(tok, path, n, sel)
            # negative: netperf's "not set"; LOCAL_SEND_SIZE is 0 in request/response tests
            if v >= 0 and v.is_integer() and not (sel == "LOCAL_SEND_SIZE" and v == 0):
                base[param] = int(v)
    for sel, param in _OMNI_STR_PARAMS.items():
        if present(sel):
            base[param] = values[sel][0]
    for sel, (metric, unit, scale, hib, extra) in _OMNI_METRICS.items():
        if not present(sel):
            continue
        tok, n, raw = values[sel]
        v = number(tok, path, n, sel)
        if v < 0:  # -1: not measured
            continue
        if sel == "TRANSACTION_RATE":
            extra = {"p_selector": sel}
        rows.add(n, metric, v * scale, unit, hib, raw, base, **extra)
    if present("THROUGHPUT") and not present("THROUGHPUT_UNITS"):
        unitless.append((values["THROUGHPUT"][1], "THROUGHPUT", "THROUGHPUT_UNITS"))
    if not present("SD_UNITS"):
        unitless.extend((values[sel][1], sel, "SD_UNITS") for sel in ("LOCAL_SD", "REMOTE_SD")
                        if present(sel))
    if present("THROUGHPUT") and present("THROUGHPUT_UNITS"):
        tok, n, raw = values["THROUGHPUT"]
        unit = values["THROUGHPUT_UNITS"][0]
        scale = _unit_scale(unit, path, values["THROUGHPUT_UNITS"][1])
        v = number(tok, path, n, "THROUGHPUT")
        if v >= 0:
            if scale is not None:
                rows.add(n, "throughput", v * scale, "B/s", True, f"{raw} {unit}", base)
            else:
                rows.add(n, "transaction_rate", v, "tx/s", True, f"{raw} {unit}", base,
                         p_selector="THROUGHPUT")
    if present("SD_UNITS"):
        sd_units = values["SD_UNITS"][0]
        per = {"usec/KB": "KB", "usec/Tran": "transaction"}.get(sd_units)
        if per is None:
            raise ParseError(path, values["SD_UNITS"][1], f"unknown service demand unit {sd_units!r}")
        for sel, side in (("LOCAL_SD", "local"), ("REMOTE_SD", "remote")):
            if present(sel):
                tok, n, raw = values[sel]
                v = number(tok, path, n, sel)
                if v >= 0:
                    rows.add(n, f"service_demand_{side}", *service_demand(v, per), False,
                             f"{raw} {sd_units}", base)
