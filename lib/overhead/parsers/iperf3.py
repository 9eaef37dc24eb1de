"""iperf3 (3.x) output: the human text report and the ``-J`` JSON document, TCP and UDP.

Formats (all produced on this machine with iperf 3.12, see tests/fixtures/iperf3/README.md)::

    # text, client (-c): a header, per-second intervals, a separator, the summary
    Connecting to host 127.0.0.1, port 45201
    Reverse mode, remote host 127.0.0.1 is sending          (only with -R)
    [  5] local 127.0.0.1 port 56768 connected to 127.0.0.1 port 45201
    [ ID] Interval           Transfer     Bitrate         Retr  Cwnd
    [  5]   0.00-1.00   sec  4.41 GBytes  37.9 Gbits/sec   19    895 KBytes
    [ ID] Interval           Transfer     Bitrate         Retr
    [  5]   0.00-2.00   sec  7.53 GBytes  32.3 Gbits/sec   19             sender
    [  5]   0.00-2.00   sec  7.52 GBytes  32.3 Gbits/sec                  receiver
    # UDP: "Total Datagrams" on the sender's intervals, jitter and lost/total on the receiver's
    [  5]   0.00-1.00   sec  11.9 MBytes   100 Mbits/sec  382
    [  5]   0.00-2.00   sec  23.8 MBytes   100 Mbits/sec  0.017 ms  0/763 (0%)  receiver
    # -P N: one line per stream and [SUM] lines; --bidir: a [TX-C]/[RX-C] role after the ID
    [SUM]   0.00-2.00   sec  6.73 GBytes  28.9 Gbits/sec   16             sender
    # -V: the banner ("iperf 3.12") and the CPU line after the summary
    CPU Utilization: local/sender 43.7% (0.4%u/43.3%s), remote/receiver 37.6% (0.8%u/36.8%s)
    # -J: {"start": {..., "version": "iperf 3.12", "test_start": {...}}, "intervals": [...],
    #      "end": {"streams": [...], "sum_sent": ..., "sum_received": ...,
    #              "cpu_utilization_percent": {...}}, "error": "..." (a failed run)}

Units (iperf3's units.c): the Transfer column (and Cwnd) is in bytes with 1024-based prefixes
(KBytes = 1024 bytes); Bitrate is in bits/sec with 1000-based prefixes (Mbits = 10**6 bits),
converted to bytes per second (x 1/8); with ``-f K/M/G`` the bitrate is printed in KBytes/sec
etc. (1024-based). The JSON gives bytes and bits_per_second.

Rows (metric, unit):

- ``transferred_bytes`` (B) and ``goodput`` (B/s) on every interval and summary line;
- ``retransmits`` (count; TCP sender, where the sender's kernel reports them) and
  ``congestion_window`` (B; the sender's Cwnd per interval, JSON ``snd_cwnd``);
- JSON only (the text prints no RTT): ``rtt`` (s) per sender interval, and ``rtt_min``,
  ``rtt_mean``, ``rtt_max`` (s) on a summary sender row measured by the local host (iperf3
  writes 0 for them when the peer sent, and 0 means "not measured": no row);
- UDP: ``packets`` (count; "Total Datagrams", or the total of "lost/total"), and on receiver
  measurements ``jitter`` (s; iperf3 prints ms), ``dropped_packets`` (count, "Lost"; may be
  negative when datagrams arrive out of order, as iperf3 counts them), ``packet_loss`` (%) and
  ``out_of_order_packets`` (count; JSON ``out_of_order``, text "N datagrams received
  out-of-order"). iperf3 prints "0.000 ms  0/N (0%)" on the UDP *sender* summary line and
  writes 0 jitter and loss in the JSON ``sum_sent``: placeholders for what a sender cannot
  measure, so those give no row (only the sender's ``packets`` does); jitter and loss of a
  line with no datagrams give no row either;
- ``cpu_util_local``, ``cpu_util_local_user``, ``cpu_util_local_system``, ``cpu_util_remote``,
  ``cpu_util_remote_user``, ``cpu_util_remote_system`` (%): the text ``-V`` "CPU
  Utilization" line (local = the host that printed the output) or the JSON
  ``cpu_utilization_percent`` (host_* and remote_*).

The ``p_*`` parameters:

- ``p_time`` (s): on interval rows only, the end of the interval since the start of the test
  ("0.00-1.00" gives 1.0; JSON ``end``); summary rows have none;
- ``p_side``: "sender" or "receiver", whose measurement the row is: a summary line's own label
  (JSON: the stream's ``sender``/``receiver`` object, ``sum_sent``/``sum_received``); an interval
  is measured by the host that printed it, in the role it had (client: sender unless ``-R``;
  JSON: the interval's ``sender`` flag). In the JSON's single UDP summary object per stream, the
  bytes, bitrate and datagram count are the sender's and jitter and loss the receiver's;
- ``p_stream``: the stream's ID as iperf3 prints it ("5": the socket number, JSON ``socket``),
  or "SUM" for iperf3's sums over the ``-P`` streams. With one stream (per direction) the text
  prints no [SUM] line, the stream being the total: the JSON's sums are then read only for what
  the stream's own objects lack (the receiver's bytes, bitrate and datagrams of a UDP test)
  and labelled with the stream's ID, so text and JSON of one run give the same rows;
- ``p_direction``: "tx" when the client sends (the default), "rx" when it receives (``-R``,
  "Reverse mode, remote host ... is sending"; JSON ``test_start.reverse``); with ``--bidir``
  per stream from its role ([TX-C] / [RX-C]; JSON ``sender`` flags and the
  ``*_bidir_reverse`` sums). A server's output (``iperf3 -s``) states it only by the side of
  each line (the server sending is "rx");
- ``p_protocol``: "TCP", "UDP" (JSON ``test_start.protocol``; the text's ``-V`` "Starting Test:
  protocol: ..." line, or "UDP" from its datagram columns; plain TCP text without ``-V`` does
  not say TCP rather than SCTP, and gives none).

Interval rows of ``-O`` (omitted, warm-up) seconds have ``warmup`` True ("(omitted)"; JSON
``omitted``). ``tool_version`` comes from the ``-V`` banner ("iperf 3.12") or the JSON's
``start.version``. ``trial`` counts the runs in a file (a text run starts at "Connecting to
host" or, in a server's output, "Accepted connection from"; one JSON document per run).
``source`` is the line of the value (JSON: the line of its key), ``raw`` the text printed
for it.

Failed runs: iperf3 reports a failure as "iperf3: error - <message>" (text) or an ``"error"``
key (JSON; iperf3 3.12 then exits with status 0). When a file holds no summary (no sender or
receiver line, an empty JSON ``end``) and such an error, the run did not finish and
:class:`RunFailed` names the error's line and quotes it: "unable to connect to server:
Connection refused", or, for a server killed mid-run, "unable to write to stream socket:
Connection reset by peer" (text) / "control socket has closed unexpectedly" (JSON) after the
intervals received so far. Those intervals are whole measurements, but without the summary the
test asked for did not happen: the run is recorded as failed rather than kept as partial data.
A file without an error and without a summary (an output cut short) keeps its interval rows,
as a cut nuttcp run does; an error after a summary (an interrupted client prints its summary,
then "iperf3: interrupt - the client has terminated") keeps the rows. Text that is not iperf3
output raises ParseError. Lines with ``--timestamps`` prefixes are not read.
"""

from __future__ import annotations

import bisect
import json
import re

import pandas as pd

from overhead.parsers._common import (
    JSON_DECODER,
    JsonNumber,
    ParseError,
    Rows,
    RunFailed,
    cut_short,
    end_cut_mid_line,
    number,
    numbered,
)

TOOL = "iperf3"
BENCHMARK = "iperf3"

#: Transfer / Cwnd units (unit_snprintf 'A': 1024-based) and the bitrate's, in bytes.
_BYTES = {"Bytes": 1.0, "KBytes": 1024.0, "MBytes": 1024.0**2, "GBytes": 1024.0**3,
          "TBytes": 1024.0**4}
_RATE = {"bits": 1 / 8, "Kbits": 1e3 / 8, "Mbits": 1e6 / 8, "Gbits": 1e9 / 8, "Tbits": 1e12 / 8,
         **_BYTES}

_CONNECTING = re.compile(r"^Connecting to host (\S+), port (\d+)$")
_ACCEPTED = re.compile(r"^Accepted connection from (\S+), port (\d+)$")
_REVERSE = re.compile(r"^Reverse mode, remote host \S+ is sending$")
_BANNER = re.compile(r"^iperf (3\.\d+(?:\.\d+)?)\S*$")
_STARTING = re.compile(r"^Starting Test: protocol: (\w+),")
_HEADER = re.compile(r"^\[ ID\](\[Role\])? Interval\s+Transfer\s+(?:Bitrate|Bandwidth)(.*)$")
# a line of the report table: [ID][role] start-end sec transfer bitrate rest
_ROWLIKE = re.compile(r"^\[\s*(?:\d+|SUM)\](?:\[[A-Z]+-[A-Z]\])?\s+\S+-\s*\S+\s+sec\s")
_DATA = re.compile(r"^\[\s*(\d+|SUM)\](?:\[(TX|RX)-([CS])\])?\s+(\d+(?:\.\d+)?)-\s*(\d+(?:\.\d+)?)"
                   r"\s+sec\s+(\S+) (\w*Bytes)\s+(\S+) (\w*(?:bits|Bytes))/sec(.*)$")
_OOO = re.compile(r"^\[\s*(\d+|SUM)\](?:\[(TX|RX)-([CS])\])?\s+(\d+(?:\.\d+)?)-\s*(\d+(?:\.\d+)?)"
                  r"\s+sec\s+(\d+) datagrams received out-of-order$")
_UDP_BODY = re.compile(r"^(\S+) ms\s+(-?\d+)/\s*(-?\d+) \((\S+)%\)$")
_RETR_CWND = re.compile(r"^(\d+)\s+(\S+) (\w*Bytes)$")
_COUNT = re.compile(r"^(\d+)$")
_CPU = re.compile(r"^CPU Utilization: local/(?:sender|receiver) (\S+)% \((\S+)%u/(\S+)%s\), "
                  r"remote/(?:sender|receiver) (\S+)% \((\S+)%u/(\S+)%s\)$")
_ERROR = re.compile(r"^iperf3: (?:error|interrupt) - .*$")

_CPU_METRICS = ("cpu_util_local", "cpu_util_local_user", "cpu_util_local_system",
                "cpu_util_remote", "cpu_util_remote_user", "cpu_util_remote_system")
# JSON field -> (metric, unit, scale, higher_is_better)
_JSON_METRICS = {
    "bytes": ("transferred_bytes", "B", 1.0, True),
    "bits_per_second": ("goodput", "B/s", 1 / 8, True),
    "retransmits": ("retransmits", "count", 1.0, False),
    "snd_cwnd": ("congestion_window", "B", 1.0, None),
    "rtt": ("rtt", "s", 1e-6, False),
    "min_rtt": ("rtt_min", "s", 1e-6, False),
    "mean_rtt": ("rtt_mean", "s", 1e-6, False),
    "max_rtt": ("rtt_max", "s", 1e-6, False),
    "packets": ("packets", "count", 1.0, None),
    "jitter_ms": ("jitter", "s", 1e-3, False),
    "lost_packets": ("dropped_packets", "count", 1.0, False),
    "lost_percent": ("packet_loss", "%", 1.0, False),
    "out_of_order": ("out_of_order_packets", "count", 1.0, False),
}
_WHOLE = {"bytes", "retransmits", "snd_cwnd", "packets", "lost_packets", "out_of_order",
          "rtt", "min_rtt", "mean_rtt", "max_rtt"}
_RTT = {"rtt", "min_rtt", "mean_rtt", "max_rtt"}
_RECEIVER_ONLY = {"jitter_ms", "lost_packets", "lost_percent", "out_of_order"}


def detect(text: str) -> float:
    """Tell whether ``text`` is iperf3 output (text or ``-J`` JSON).

    Returns a confidence from 0 (not iperf3 output) to 1.
    """
    head = text[:20000]
    if head.lstrip().startswith("{"):
        if re.search(r'"version"\s*:\s*"iperf 3', head) or (
                re.search(r'"(?:connecting_to|accepted_connection)"\s*:', head)
                and re.search(r'"test_start"\s*:', head)):
            return 1.0
        return 0.0
    if re.search(r"^\[ ID\](?:\[Role\])? Interval\s+Transfer\s+(?:Bitrate|Bandwidth)", head, re.M):
        return 1.0
    if re.search(r"^iperf3: (?:error|interrupt) - ", head, re.M):
        return 1.0
    if re.search(r"^Connecting to host \S+, port \d+$", head, re.M):
        return 1.0
    return 0.0


def parse(text: str, path: str = "<string>") -> pd.DataFrame:
    """Parse iperf3 output (text or ``-J`` JSON) into tidy rows.

    Follows the parser contract of :mod:`overhead.parsers` (text and path in, conformed
    tidy rows out); the rows are described in the module docstring.

    Raises
    ------
    RunFailed
        For an iperf3 output that reports an error and holds no summary (the line of the
        error, quoted).
    ParseError
        For text that is not iperf3 output, malformed report lines or JSON, and a
        whole-number parameter out of the 64-bit range.
    """
    if text.lstrip().startswith("{"):
        return _parse_json(text, path)
    return _parse_text(text, path)


# ---- text -------------------------------------------------------------------------------------

def _bytes(tok: str, unit: str, path: str, lineno: int, what: str) -> float:
    """Convert a Transfer/Cwnd figure (1024-based prefixes) to bytes."""
    scale = _BYTES.get(unit)
    if scale is None:
        raise ParseError(path, lineno, f"{what}: unknown unit {unit!r}")
    return number(tok, path, lineno, what) * scale


def _whole(tok: str, path: str, lineno: int, what: str) -> float:
    """Read a count printed as a whole number (possibly negative: iperf3's lost datagrams)."""
    value = number(tok, path, lineno, what)
    if not value.is_integer() or not re.fullmatch(r"-?\d+", tok):
        raise ParseError(path, lineno, f"{what}: expected a whole number, found {tok!r}")
    return value


class _Run:
    """What a text run has stated so far."""

    def __init__(self, role: str | None = None):
        self.role = role  # "client", "server" or None (a run without its first lines)
        self.reverse = False
        self.protocol: str | None = None
        self.header: str | None = None  # the columns after Bitrate in the last header
        self.cpu = False  # a CPU line was read (bidir prints two, the same figures)
        self.lines = 0  # interval and summary lines read
        self.summary = False  # a sender/receiver line was read
        self.done = False  # the client's closing "iperf Done." was read
        self.last = 0  # the run's last line


def _unfinished(run: _Run) -> str | None:
    """Say how a text run that printed results ended before its closing line (None: it did not)."""
    if not run.lines:
        return None
    if run.role == "client" and not run.done:
        return ("the client's report ends before 'iperf Done.'" if run.summary else
                "the client's report ends before its summary and 'iperf Done.'")
    if run.role != "client" and not run.summary:
        return "the report ends before its summary (the sender/receiver lines)"
    return None


def _parse_text(text: str, path: str) -> pd.DataFrame:
    """Parse iperf3's human-readable report."""
    rows = Rows(path, benchmark=BENCHMARK, tool=TOOL)
    run = _Run()
    start = 0  # first row of the run in progress
    trial = 1
    version: str | None = None
    error: tuple[int, str] | None = None
    seen = False  # any line only iperf3 prints
    summary = False  # any sender/receiver line
    interval_lines = 0
    unfinished: tuple[int, str] | None = None  # the first run that stopped before its end

    def finish() -> None:
        nonlocal unfinished
        what = _unfinished(run)
        if what is not None and unfinished is None:
            unfinished = (run.last, what)

    def close() -> None:
        nonlocal start, trial
        if len(rows) > start:
            rows.fill("trial", trial, start)
            start = len(rows)
            trial += 1

    for lineno, line in numbered(text):
        s = line.strip()
        if not s:
            continue
        if s == "iperf Done.":
            run.done = True
            continue
        if _CONNECTING.match(s) or _ACCEPTED.match(s):
            close()
            finish()
            run = _Run("client" if s.startswith("Connecting") else "server")
            seen = True
            continue
        if _REVERSE.match(s):
            run.reverse = True
            continue
        if (m := _BANNER.match(s)):
            version = m.group(1)
            continue
        if (m := _STARTING.match(s)):
            run.protocol = m.group(1)
            continue
        if (m := _HEADER.match(s)):
            run.header = m.group(2)
            if "Datagrams" in run.header:
                run.protocol = run.protocol or "UDP"
            seen = True
            continue
        if _ERROR.match(s):
            error = error or (lineno, s)
            seen = True
            continue
        if (m := _CPU.match(s)):
            if not run.cpu:
                run.cpu = True
                ctx = _text_context(run, None, None, None)
                for metric, tok in zip(_CPU_METRICS, m.groups(), strict=True):
                    value = number(tok, path, lineno, metric)
                    rows.add(lineno, metric, value, "%", False, f"{tok}%", ctx)
            continue
        if (m := _OOO.match(s)):
            ctx = _text_context(run, m.group(1), m.group(2), m.group(3), side="receiver")
            rows.add(lineno, "out_of_order_packets", _whole(m.group(6), path, lineno,
                     "out-of-order datagrams"), "count", False,
                     f"{m.group(6)} datagrams received out-of-order", ctx)
            continue
        if not _ROWLIKE.match(s):
            continue  # verbose lines, "- - -", "iperf Done.", warnings
        m = _DATA.match(s)
        if not m:
            raise ParseError(path, lineno, "malformed iperf3 report line (expected '[ID] "
                             f"<start>-<end> sec <transfer> <bitrate>/sec ...'): {s!r}")
        seen = True
        run.lines += 1
        run.last = lineno
        if _data_line(rows, run, m, path, lineno):
            summary = run.summary = True
        else:
            interval_lines += 1
    close()
    finish()
    if not seen:
        raise ParseError(path, None, "no iperf3 output found (no 'Connecting to host' line, no "
                         "'[ ID] Interval' header, no 'iperf3: error' line)")
    if error is not None and not summary:
        got = interval_lines
        raise RunFailed(path, error[0], error[1] + (
            f"; no summary, {got} interval line{'s' if got != 1 else ''} before it" if got else ""))
    rows.fill("tool_version", version)
    if error is not None:
        return _interrupted(rows.frame(), path, error)
    df = rows.frame()
    cut = end_cut_mid_line(df, text, path)
    if cut is not None:
        return cut
    if unfinished is not None:
        return cut_short(df, path, unfinished[0], f"{unfinished[1]} (a run stopped or a capture "
                         "cut): the lines read are kept")
    return df


def _text_context(run: _Run, ident: str | None, role: str | None, host: str | None,
                  *, side: str | None = None, p_time: float | None = None) -> dict:
    """Give the parameters of one text row: stream, side, direction, protocol, interval end."""
    direction = None
    if role is not None:  # --bidir: the stream's role says who sends
        client_sends = (role == "TX") == (host == "C")
        direction = "tx" if client_sends else "rx"
    elif run.role == "client":
        direction = "rx" if run.reverse else "tx"
    elif run.role == "server" and side is not None:
        direction = "rx" if side == "sender" else "tx"
    ctx = {"p_direction": direction, "p_protocol": run.protocol, "p_side": side,
           "p_time": p_time}
    if ident is not None:
        ctx["p_stream"] = ident
    return {k: v for k, v in ctx.items() if v is not None}


def _data_line(rows: Rows, run: _Run, m: re.Match, path: str, lineno: int) -> bool:
    """Add the rows of one report line; return whether it is a summary (sender/receiver) line."""
    ident, role, host, t0, t1, size, size_unit, rate, rate_unit, rest = m.groups()
    rest = rest.strip()
    label = None
    warmup = None
    for tail in ("sender", "receiver", "(omitted)"):
        if rest == tail or rest.endswith(" " + tail):
            rest = rest[: len(rest) - len(tail)].strip()
            if tail == "(omitted)":
                warmup = True
            else:
                label = tail
            break
    if label is not None:
        side = label
    elif role is not None:
        side = "sender" if role == "TX" else "receiver"
    elif run.role == "client":
        side = "receiver" if run.reverse else "sender"
    elif run.header is not None and ("Retr" in run.header or "Total Datagrams" in run.header):
        side = "sender"
    elif run.header is not None and "Jitter" in run.header:
        side = "receiver"
    else:
        side = None
    start = number(t0, path, lineno, "interval start")
    end = number(t1, path, lineno, "interval end")
    ctx = _text_context(run, ident, role, host, side=side,
                        p_time=None if label is not None else end)
    extra = {"warmup": warmup} if warmup else {}

    def add(metric: str, value: float, unit: str, hib, raw: str) -> None:
        rows.add(lineno, metric, value, unit, hib, raw, ctx, **extra)

    add("transferred_bytes", _bytes(size, size_unit, path, lineno, "transfer"), "B", True,
        f"{size} {size_unit}")
    scale = _RATE.get(rate_unit)
    if scale is None:
        raise ParseError(path, lineno, f"bitrate: unknown unit {rate_unit!r}/sec")
    goodput = number(rate, path, lineno, "bitrate") * scale
    if not (goodput == 0 and start == end):  # iperf3 prints 0 for an interval of no length
        add("goodput", goodput, "B/s", True, f"{rate} {rate_unit}/sec")
    if not rest:
        return label is not None
    if (b := _UDP_BODY.match(rest)):
        jitter, lost, total, loss = b.groups()
        packets = _whole(total, path, lineno, "total datagrams")
        add("packets", packets, "count", None, f"{lost}/{total}")
        if label != "sender" and packets > 0:  # the sender line's jitter and loss are placeholders
            add("jitter", number(jitter, path, lineno, "jitter") * 1e-3, "s", False, f"{jitter} ms")
            add("dropped_packets", _whole(lost, path, lineno, "lost datagrams"), "count", False,
                f"{lost}/{total}")
            add("packet_loss", number(loss, path, lineno, "loss"), "%", False, f"({loss}%)")
        run.protocol = run.protocol or "UDP"
    elif (b := _RETR_CWND.match(rest)):
        add("retransmits", _whole(b.group(1), path, lineno, "retransmits"), "count", False,
            b.group(1))
        add("congestion_window", _bytes(b.group(2), b.group(3), path, lineno, "Cwnd"), "B", None,
            f"{b.group(2)} {b.group(3)}")
    elif (b := _COUNT.match(rest)):
        if run.header is None:
            raise ParseError(path, lineno, "a count after the bitrate, but no '[ ID] Interval' "
                             "header said what it is")
        if "Total Datagrams" in run.header and "Jitter" not in run.header:
            add("packets", _whole(b.group(1), path, lineno, "datagrams"), "count", None,
                b.group(1))
        elif "Retr" in run.header:
            add("retransmits", _whole(b.group(1), path, lineno, "retransmits"), "count", False,
                b.group(1))
        else:
            raise ParseError(path, lineno, f"a count ({b.group(1)}) under a header with no Retr "
                             "or Datagrams column")
    else:
        raise ParseError(path, lineno, f"unexpected text in iperf3 report line: {rest!r}")
    return label is not None


# ---- JSON -------------------------------------------------------------------------------------

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]|[^\s{}\[\]:,"]+')


def _line_map(text: str, first: int, last: int, newlines: list[int]) -> dict[tuple, int]:
    """Map JSON paths (keys and list indices) of the document in text[first:last] to lines.

    A value in an object is at the line of its key; a list element at the line where it starts.
    Works for any layout (iperf3's cJSON writes ``"connected": [{`` and ``}, {``).
    """
    def line(pos: int) -> int:
        return bisect.bisect_right(newlines, pos) + 1

    out: dict[tuple, int] = {}
    stack: list[list] = []  # [is_object, key or index, expecting a key]
    path: list = []
    key_line = 1
    for m in _TOKEN.finditer(text, first, last):
        tok = m.group()
        if tok == ":":
            continue
        if tok == ",":
            if stack:
                if stack[-1][0]:
                    stack[-1][2] = True
                else:
                    stack[-1][1] += 1
                    path[-1] = stack[-1][1]
            continue
        if tok in "}]":
            if stack:
                stack.pop()
                path.pop()
            continue
        if stack and stack[-1][0] and stack[-1][2]:  # a key
            try:
                key = json.loads(tok)
            except ValueError:
                key = tok
            stack[-1][1] = key
            stack[-1][2] = False
            path[-1] = key
            key_line = line(m.start())
            continue
        out[tuple(path)] = key_line if stack and stack[-1][0] else line(m.start())
        if tok == "{":
            stack.append([True, None, True])
            path.append(None)
        elif tok == "[":
            stack.append([False, 0, False])
            path.append(0)
    return out


class _Doc:
    """One decoded JSON document and the line of each of its values."""

    def __init__(self, doc, lines: dict[tuple, int], path: str):
        self.doc = doc
        self.lines = lines
        self.path = path

    def line(self, where: tuple) -> int:
        """Return the line of the value at ``where`` (or of the nearest enclosing value)."""
        while where not in self.lines and where:
            where = where[:-1]
        return self.lines.get(where, 1)

    def get(self, where: tuple):
        """Return the value at ``where``, or None when a key or index on the way is absent."""
        obj = self.doc
        for k in where:
            if isinstance(obj, dict) and isinstance(k, str):
                obj = obj.get(k)
            elif isinstance(obj, list) and isinstance(k, int) and k < len(obj):
                obj = obj[k]
            else:
                return None
        return obj

    def obj(self, where: tuple) -> dict | None:
        """Return the object at ``where`` (None when absent); ParseError for a non-object."""
        value = self.get(where)
        if value is None:
            return None
        if not isinstance(value, dict):
            raise ParseError(self.path, self.line(where), f"{_name(where)}: expected a JSON object")
        return value

    def list(self, where: tuple) -> list:
        """Return the list at ``where`` ([] when absent); ParseError for a non-list."""
        value = self.get(where)
        if value is None:
            return []
        if not isinstance(value, list):
            raise ParseError(self.path, self.line(where), f"{_name(where)}: expected a JSON list")
        return value


def _name(where: tuple) -> str:
    """Write a JSON path as text (end.streams[0].sender)."""
    out = ""
    for k in where:
        out += f"[{k}]" if isinstance(k, int) else (f".{k}" if out else str(k))
    return out or "the document"


def _json_docs(text: str, path: str):
    """Yield each JSON document in ``text`` as a :class:`_Doc`."""
    newlines = [m.start() for m in re.finditer("\n", text)]
    pos = len(text) - len(text.lstrip())
    while pos < len(text):
        try:
            doc, end = JSON_DECODER.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            raise ParseError(path, exc.lineno, f"malformed or truncated JSON: {exc.msg}") from None
        except RecursionError:
            raise ParseError(path, text.count("\n", 0, pos) + 1, "JSON nested too deeply") from None
        if not isinstance(doc, dict) or not ({"start", "intervals", "end", "error"} & set(doc)):
            raise ParseError(path, text.count("\n", 0, pos) + 1, "not an iperf3 JSON document "
                             "(no \"start\", \"intervals\", \"end\" or \"error\")")
        yield _Doc(doc, _line_map(text, pos, end, newlines), path)
        pos = end + len(text[end:]) - len(text[end:].lstrip())


def _parse_json(text: str, path: str) -> pd.DataFrame:
    """Parse ``iperf3 -J`` output (one or more JSON documents)."""
    rows = Rows(path, benchmark=BENCHMARK, tool=TOOL)
    version = None
    failure: tuple[int, str] | None = None
    summary = False
    trial = 0
    intervals = 0  # interval reports of the documents
    for d in _json_docs(text, path):
        first = len(rows)
        v = d.get(("start", "version"))
        if isinstance(v, str) and (m := re.match(r"iperf (3\.\d+(?:\.\d+)?)", v)):
            version = m.group(1)
        err = d.get(("error",))
        if isinstance(err, str) and failure is None:
            failure = (d.line(("error",)), err)
        if _json_run(rows, d):
            summary = True
        intervals += len(d.list(("intervals",)))
        if len(rows) > first:
            trial += 1
            rows.fill("trial", trial, first)
    if failure is not None and not summary:
        got = f"; no summary, {intervals} interval{'s' if intervals != 1 else ''} before it"
        raise RunFailed(path, failure[0], failure[1] + (got if intervals else ""))
    rows.fill("tool_version", version)
    if failure is not None:
        return _interrupted(rows.frame(), path, failure)
    return rows.frame()


def _interrupted(df: pd.DataFrame, path: str, error: tuple[int, str]) -> pd.DataFrame:
    """Keep a summary printed before an error ("interrupt - the client has terminated").

    An interrupted client prints its own side's summary, but the server never sent its side:
    iperf3 prints 0 bytes and 0 bits/s for that side's summary and 0% for the remote CPU. Those
    zeros are not measurements, so they are left out (never a missing value turned into 0);
    the rest is kept and marked as cut short (:func:`~overhead.parsers._common.cut_short`).
    """
    summary = df["p_time"].isna() & df["p_side"].notna()
    sides = df.loc[summary & (df["metric"] == "transferred_bytes")].groupby(
        "p_side", observed=True)["value"].sum()
    empty = [str(side) for side, total in sides.items() if total == 0] if (sides > 0).any() else []
    drop = summary & df["p_side"].isin(empty)
    remote = df["metric"].astype(str).str.startswith("cpu_util_remote")
    if remote.any() and (df.loc[remote, "value"] == 0).all():
        drop |= remote
    left = []
    if empty:
        left.append(f"the {' and '.join(empty)} summary")
    if (drop & remote).any():
        left.append("the remote CPU")
    note = (f"; {' and '.join(left)} never came from the server (iperf3 prints 0): left out"
            if left else "")
    df = df.loc[~drop].reset_index(drop=True)
    return cut_short(df, path, error[0], f"{error[1]}; after a summary, which is kept{note}")


def _json_run(rows: Rows, d: _Doc) -> bool:
    """Add the rows of one JSON document; return whether it holds a summary."""
    path = d.path
    start = d.obj(("start",)) or {}
    test = d.obj(("start", "test_start")) or {}
    role = "server" if "accepted_connection" in start else "client"
    proto = test.get("protocol") if isinstance(test.get("protocol"), str) else None
    reverse = test.get("reverse")
    base = None if reverse is None else ("rx" if reverse else "tx")
    end = d.obj(("end",)) or {}
    intervals = d.list(("intervals",))
    bidir = bool(test.get("bidir")) or any(k.endswith("_bidir_reverse") for k in end) or any(
        isinstance(iv, dict) and "sum_bidir_reverse" in iv for iv in intervals)

    def direction(local_sends, reverse_sum: bool | None = None) -> str | None:
        """Who sends, from the client's view: "tx" when the client does."""
        if not bidir:
            return base
        if reverse_sum is not None:  # sums: the *_bidir_reverse ones carry the server's data
            return "rx" if reverse_sum else "tx"
        if not isinstance(local_sends, bool):
            return None
        return "tx" if local_sends == (role == "client") else "rx"

    # streams per direction: with one, iperf3's sums repeat it (the text prints no [SUM]);
    # counted from the summary's streams, or from the intervals' of a run cut before it
    per_dir: dict[str | None, set[str]] = {}
    for i, entry in enumerate(d.list(("end", "streams"))):
        if not isinstance(entry, dict):
            raise ParseError(path, d.line(("end", "streams", i)), "end.streams: expected objects")
        for side in ("sender", "receiver", "udp"):
            obj = d.obj(("end", "streams", i, side))
            if obj is not None:
                per_dir.setdefault(direction(obj.get("sender")), set()).add(_ident(obj))
    for i, iv in enumerate(intervals):
        if not isinstance(iv, dict):
            raise ParseError(path, d.line(("intervals", i)), "intervals: expected objects")
        for j, obj in enumerate(d.list(("intervals", i, "streams"))):
            if not isinstance(obj, dict):
                raise ParseError(path, d.line(("intervals", i, "streams", j)),
                                 "interval streams: expected objects")
            if not d.list(("end", "streams")):
                per_dir.setdefault(direction(obj.get("sender")), set()).add(_ident(obj))

    def single(dirn) -> str | None:
        """Return the one stream's ID of direction ``dirn``; None when it has several (or none)."""
        ids = per_dir.get(dirn, set())
        return next(iter(ids)) if len(ids) == 1 else None

    common = {"p_protocol": proto}
    added: set[tuple] = set()  # (direction, stream, side, metric) of summary rows

    def emit(where: tuple, obj: dict, ctx: dict, fields, *, summary_key=None) -> None:
        for key in fields:
            if key not in obj:
                continue
            val = obj[key]
            if val is None:  # NaN/Infinity: not a measurement
                continue
            if not isinstance(val, JsonNumber) or isinstance(val, bool):
                raise ParseError(path, d.line((*where, key)),
                                 f"{_name((*where, key))}: expected a number, found {val!r}")
            metric, unit, scale, hib = _JSON_METRICS[key]
            if key in _WHOLE and not (float(val).is_integer() and re.fullmatch(r"-?\d+", val.tok)):
                raise ParseError(path, d.line((*where, key)),
                                 f"{_name((*where, key))}: expected a whole number, found {val.tok}")
            if key in _RTT and val == 0:
                continue  # not measured (the peer sent, or no RTT sample)
            if key in ("jitter_ms", "lost_percent") and obj.get("packets") == 0:
                continue  # no datagrams: nothing to measure them on
            if summary_key is not None:
                mark = (*summary_key, metric)
                if mark in added:
                    continue
                added.add(mark)
            ctx2 = {k: v for k, v in ctx.items() if v is not None}
            extra = {"warmup": True} if obj.get("omitted") is True else {}
            rows.add(d.line((*where, key)), metric, float(val) * scale, unit, hib, val.tok, ctx2,
                     **extra)

    udp = proto == "UDP"
    # -- intervals
    for i in range(len(intervals)):
        for j, obj in enumerate(d.list(("intervals", i, "streams"))):
            dirn = direction(obj.get("sender"))
            _json_sample(emit, ("intervals", i, "streams", j), obj, _ident(obj), dirn, common,
                         path, d)
        for name in ("sum", "sum_bidir_reverse"):
            obj = d.obj(("intervals", i, name))
            if obj is None:
                continue
            dirn = direction(obj.get("sender"), name.endswith("_bidir_reverse"))
            if single(dirn) is not None:
                continue  # the one stream's interval again
            _json_sample(emit, ("intervals", i, name), obj, "SUM", dirn, common, path, d)
    # -- the summary: per stream, then the sums
    summary = False
    for i in range(len(d.list(("end", "streams")))):
        for side in ("sender", "receiver", "udp"):
            obj = d.obj(("end", "streams", i, side))
            if obj is None:
                continue
            summary = True
            ident = _ident(obj)
            dirn = direction(obj.get("sender"))
            where = ("end", "streams", i, side)
            ctx = {**common, "p_direction": dirn, "p_stream": ident}
            if side == "udp":  # one object: the sender's counts, the receiver's jitter and loss
                emit(where, obj, {**ctx, "p_side": "sender"},
                     ("bytes", "bits_per_second", "packets"),
                     summary_key=(dirn, ident, "sender"))
                emit(where, obj, {**ctx, "p_side": "receiver"}, sorted(_RECEIVER_ONLY),
                     summary_key=(dirn, ident, "receiver"))
                continue
            fields = ["bytes", "bits_per_second"]
            if side == "sender":
                fields.append("retransmits")
                if obj.get("sender") is True:  # the local host sent: its own RTT samples
                    fields += ["min_rtt", "mean_rtt", "max_rtt"]
            emit(where, obj, {**ctx, "p_side": side}, fields, summary_key=(dirn, ident, side))
    for name in ("sum_sent", "sum_received", "sum_sent_bidir_reverse",
                 "sum_received_bidir_reverse"):
        obj = d.obj(("end", name))
        if obj is None:
            continue
        summary = True
        side = "sender" if name.startswith("sum_sent") else "receiver"
        dirn = direction(None, name.endswith("_bidir_reverse"))
        ident = single(dirn) or "SUM"
        fields = ["bytes", "bits_per_second", "packets"] if udp else ["bytes", "bits_per_second"]
        if side == "sender" and not udp:
            fields.append("retransmits")
        if side == "receiver" and udp:
            fields += ["jitter_ms", "lost_packets", "lost_percent"]
        ctx = {**common, "p_direction": dirn, "p_stream": ident, "p_side": side}
        emit(("end", name), obj, ctx, fields, summary_key=(dirn, ident, side))
    cpu = d.obj(("end", "cpu_utilization_percent"))
    if cpu is not None:
        keys = ("host_total", "host_user", "host_system", "remote_total", "remote_user",
                "remote_system")
        for key, metric in zip(keys, _CPU_METRICS, strict=True):
            val = cpu.get(key)
            if val is None:
                continue
            where = ("end", "cpu_utilization_percent", key)
            if not isinstance(val, JsonNumber):
                raise ParseError(path, d.line(where), f"{_name(where)}: expected a number")
            ctx = {k: v for k, v in {**common, "p_direction": None if bidir else base}.items()
                   if v is not None}
            rows.add(d.line(where), metric, float(val), "%", False, val.tok, ctx)
    return summary


def _json_sample(emit, where: tuple, obj: dict, ident: str, dirn, common: dict, path: str,
                 d: _Doc) -> None:
    """Emit one interval object (a stream's or a sum)."""
    p_time = obj.get("end")
    if not isinstance(p_time, JsonNumber):
        raise ParseError(path, d.line(where), f"{_name(where)}: no interval end")
    sender = obj.get("sender")
    side = None if not isinstance(sender, bool) else ("sender" if sender else "receiver")
    ctx = {**common, "p_direction": dirn, "p_stream": ident, "p_side": side,
           "p_time": float(p_time)}
    fields = ["bytes", "bits_per_second", "retransmits", "snd_cwnd", "rtt", "packets"]
    if side != "sender":
        fields += ["jitter_ms", "lost_packets", "lost_percent"]
    seconds = obj.get("seconds")
    if isinstance(seconds, JsonNumber) and seconds == 0:
        fields.remove("bits_per_second")  # iperf3 writes 0 for an interval of no length
    emit(where, obj, ctx, fields)


def _ident(obj: dict) -> str:
    """Return a stream's ID as text (its socket number, as the text report prints it)."""
    sock = obj.get("socket")
    if isinstance(sock, JsonNumber):
        return sock.tok
    return "?"
