"""sockperf 3.7 client output: ``ping-pong``, ``under-load`` and ``throughput``, TCP and UDP.

Formats (all produced on this machine, see tests/fixtures/sockperf/README.md; sockperf colours
some lines with ANSI escapes even into a file, which are dropped before reading)::

    sockperf: == version #3.7-no.git ==
    [ 0] IP = 127.0.0.1       PORT = 15011 # TCP
    # ping-pong / under-load: one report per server ("Server No: N")
    sockperf: [Total Run] RunTime=2.000 sec; Warm up time=400 msec; SentMessages=43233; ReceivedMessages=43232
    sockperf: ========= Printing statistics for Server No: 0
    sockperf: [Valid Duration] RunTime=1.550 sec; SentMessages=28825; ReceivedMessages=28825
    sockperf: ====> avg-latency=26.883 (std-dev=42.274)
    sockperf: # dropped messages = 0; # duplicated messages = 0; # out-of-order messages = 0
    sockperf: Summary: Latency is 26.883 usec
    sockperf: Total 28825 observations; each percentile contains 288.25 observations
    sockperf: ---> <MAX> observation = 2392.520
    sockperf: ---> percentile 99.999 = 2392.520
    ...
    sockperf: ---> <MIN> observation =    6.199
    # throughput
    sockperf: Total of 693989 messages sent in 2.001 sec
    sockperf: NOTE: test was performed, using msg-size=1400. For getting maximum throughput ...
    sockperf: Summary: Message Rate is 346844 [msg/sec]
    sockperf: Summary: BandWidth is 463.087 MBps (3704.694 Mbps)

Rows (latencies in s: sockperf prints usec):

- latency reports: ``latency_mean`` and ``latency_sd`` (the "avg-latency" line),
  ``latency_max`` and ``latency_min`` (the <MAX> and <MIN> observations) and
  ``latency_percentile`` with ``p_percentile`` (99.999, 99.99, 99.9, 99, 90, 75, 50, 25 as
  printed); ``dropped_messages``, ``duplicated_messages``, ``out_of_order_messages`` (count);
  ``elapsed_time`` (s), ``messages_sent``, ``messages_received`` and ``messages_skipped``
  (count) from the "[Total Run]" line (``p_window`` = "total") and from each server's "[Valid
  Duration]" line (``p_window`` = "valid": the window the statistics are computed on, without
  the warm-up and cool-down). The "Summary: Latency is X usec" line repeats avg-latency
  (client.cpp prints the same variable) and gives no second row; it gives ``p_burst`` when it
  says "of burst of N messages" (``-b``). "Total N observations" repeats the valid
  ReceivedMessages and gives no row.
- throughput reports: ``messages_sent`` (count) and ``elapsed_time`` (s) from "Total of N
  messages sent in T sec", ``message_rate`` (op/s: messages per second), ``packet_rate``
  (packet/s, printed when a message needs several IP fragments) and ``throughput`` (B/s).
  sockperf's MBps is 1024**2 bytes per second (client.cpp: ``MBps = msgps * msg_size / 1024 /
  1024``; in tp_tcp.txt 346844 msg/s x 1400 B / 1024**2 = 463.087, the printed MBps), so the
  value is MBps x 1024**2; the "(Mbps)" in parentheses is the same figure x 8 and is not read.
  With ``--giga-size`` sockperf prints "GBps" = MBps / 1000 (x 1000 x 1024**2 here). With
  ``--increase_output_precision`` sockperf 3.7 prints the MBps figure under a "GBps" label
  with 9 decimals (client.cpp 3.7: ``"%.9f GBps (%.9f Gbps)", MBps, MBps * 8``; fixed to
  "MBps" in 3.8): a GBps value with 9 decimals is read as MBps.

Parameters: ``p_test`` ("ping-pong", "under-load" or "throughput"), ``p_protocol`` ("TCP" or
"UDP", from the "[ 0] IP = ... # TCP" line), ``p_server`` (the "Server No" of a latency
report), ``p_round_trip`` (False for sockperf's "avg-latency", half the round trip; True for
"avg-rtt", ``--full-rtt``, on the latency rows), ``p_window`` (above), ``p_warmup_time`` (s,
"Warm up time=400 msec"), ``p_burst``, and for throughput ``p_message_size`` (bytes),
``p_message_size_range`` and ``p_mps`` from the NOTE line (sockperf prints it only when the
size is not 1472 or the rate is limited). ``p_percentile`` and ``p_test`` are on every row
(NA where they do not apply). ``tool_version`` is the banner's ("3.7-no.git").

sockperf does not print its mode. A throughput report says itself; ping-pong and under-load
reports have the same lines and are told apart by their counts: ping-pong asks a reply for
every message, so in its valid window SentMessages <= ReceivedMessages + dropped +
out-of-order, while under-load asks one every ``--reply-every`` messages (default 100:
SentMessages=7501 for ReceivedMessages=76 in ul_tcp.txt). An under-load run with
``--reply-every 1`` is a ping-pong at a limited rate and reads as "ping-pong"; ``playback``
reports (not covered here) would read as "under-load". The under-load send rate (``--mps``)
is not printed (only SentMessages and RunTime), so it is no row or parameter. A latency report
cut off before its "# dropped messages" line (the last figure the mode is told from) gives no
rows; one cut after it, before the report's last line (``<MIN> observation`` for latency,
``Summary: BandWidth is`` for throughput), keeps its rows marked cut short
(:func:`~overhead.parsers._common.cut_short`), as does a last line without its line end.
sockperf 3.8+ adds figures to the avg line (mean-ad, median-ad, siqr, cv, std-error,
ci): they are not read.

``trial`` is the run's number in the file (a run starts at the version banner). Failed runs
raise :class:`RunFailed` when the file holds no result, quoting sockperf's message: "sockperf:
ERROR: Can`t connect socket (errno=111 Connection refused)" (TCP, no server), "No messages were
received from the server. Is the server down?" (UDP, no server), "No valid observations found.
Try tune parameters: --time/--mps/--reply-every", "sockperf: ERROR: A connection was forcibly
closed by a peer" (server killed); a UDP throughput run cannot know whether anything received
its messages and reports a rate even with no server. sockperf exits 0 in most of these cases.
"""

from __future__ import annotations

import re

import pandas as pd

from overhead.parsers._common import (
    ParseError,
    Rows,
    RunFailed,
    cut_short,
    end_cut_mid_line,
    integer,
    number,
    numbered,
)

TOOL = "sockperf"
BENCHMARK = "sockperf"

MIB = 1024**2  # sockperf's MB (client.cpp: MBps = msgps * msg_size / 1024 / 1024)
_USEC = 1e-6

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_BANNER = re.compile(r"^sockperf: == version #(\S+) ==$")
_ADDR = re.compile(r"^\[\s*\d+\] IP = \S+\s+PORT =\s*\d+ # (TCP|UDP)$")
_ERROR = re.compile(r"sockperf: ERROR: .*$")
_FAILURES = ("No messages were received from the server", "No valid observations found",
             "No messages were sent")
_TOTAL = re.compile(r"^\[Total Run\] RunTime=(\S+) sec; Warm up (?:time=(\S+) msec|packets=(\S+)); "
                    r"SentMessages=(\S+); ReceivedMessages=(\S+)(?:; SkippedMessages=(\S+))?$")
_SERVER = re.compile(r"^=+ Printing statistics for Server No: (\d+)$")
_VALID = re.compile(r"^\[Valid Duration\] RunTime=(\S+) sec; SentMessages=(\S+); ReceivedMessages=(\S+)$")
_AVG = re.compile(r"^=+> avg-(latency|rtt)=(\S+) \(std-dev=([^,)\s]+)(?:, [^)]*)?\)$")
_DROPPED = re.compile(r"^# dropped messages = (\S+); # duplicated messages = (\S+); "
                      r"# out-of-order messages = (\S+)$")
_SUMMARY = re.compile(r"^Summary: (?:Latency|Round trip)(?: of burst of (\d+) messages)? is \S+ usec$")
_OBSERVATIONS = re.compile(r"^Total \d+ observations; each percentile contains \S+ observations$")
_EXTREME = re.compile(r"^---> <(MAX|MIN)> observation =\s*(\S+)$")
_PERCENTILE = re.compile(r"^---> percentile\s+(\S+) =\s*(\S+)$")
_SENT = re.compile(r"^Total of (\S+) messages sent in (\S+) sec(?: \((\S+) messages skipped\))?$")
_NOTE = re.compile(r"^NOTE: test was performed, using (?:average )?msg-size=(\d+)(?: \(\+/-(\d+)\))?"
                   r"(?:, mps=(\d+))?\. ")
_RATE = re.compile(r"^Summary: Message Rate is (\S+) \[msg/sec\](?:, Packet Rate is about (\S+) "
                   r"\[pkt/sec\] \(\d+ ip frags / msg\))?$")
_BANDWIDTH = re.compile(r"^Summary: BandWidth is (\S+) (MBps|GBps) \(\S+ (?:Mbps|Gbps)\)$")

# what a report line starts with -> its pattern (a line that starts so but does not match is
# malformed)
_LINES = (
    ("[Total Run]", _TOTAL), ("[Valid Duration]", _VALID), ("====> avg-", _AVG),
    ("# dropped messages", _DROPPED), ("Summary: Message Rate", _RATE),
    ("Summary: BandWidth", _BANDWIDTH), ("Summary: ", _SUMMARY), ("---> <", _EXTREME),
    ("---> percentile", _PERCENTILE), ("Total of ", _SENT), ("NOTE: test was performed", _NOTE),
    ("=========", _SERVER),
)
_LATENCY = {"latency_mean", "latency_sd", "latency_max", "latency_min", "latency_percentile"}


def detect(text: str) -> float:
    """Tell whether ``text`` is sockperf client output.

    Returns a confidence from 0 (not sockperf output) to 1.
    """
    head = _ANSI.sub("", text[:20000])
    if re.search(r"^sockperf: == version #\S+ ==", head, re.M):
        return 1.0
    if re.search(r"^sockperf: (?:Summary: |---> |\[Valid Duration\] |\[Total Run\] |ERROR: )",
                 head, re.M):
        return 1.0
    return 0.0


class _Run:
    """One client run (from a version banner to the next).

    Its rows wait here until the mode is known.
    """

    def __init__(self, version: str | None = None):
        self.version = version
        self.rows: list[tuple] = []  # (line, metric, value, unit, hib, raw, params)
        self.test: str | None = None
        self.protocol: str | None = None
        self.params: dict = {}  # run-wide parameters stated after the rows they apply to
        self.server: int | None = None
        self.round_trip: bool | None = None
        self.valid: tuple[int, int] | None = None  # the server's valid (sent, received)
        self.failure: tuple[int, str] | None = None
        self.seen = False  # any sockperf line
        self.closed = False  # the report's last line was read (<MIN> observation, BandWidth)
        self.last = 0  # the last report line read

    def add(self, line, metric, value, unit, hib, raw, **params) -> None:
        """Keep one row; the server's number and the latency kind go on its report's rows."""
        if self.server is not None and params.get("p_window") != "total":
            params["p_server"] = self.server
        if metric in _LATENCY and self.round_trip is not None:
            params["p_round_trip"] = self.round_trip
        self.rows.append((line, metric, value, unit, hib, raw, params))


def _count(tok: str, path: str, line: int, what: str) -> float:
    """Read a whole-number count as printed (digits only)."""
    if not tok.isdigit():
        raise ParseError(path, line, f"{what}: expected a whole number, found {tok!r}")
    return float(integer(tok, path, line, what, limit=2**63))


def _report_line(run: _Run, body: str, pattern: re.Pattern, path: str, lineno: int) -> None:
    """Read one line of a latency or throughput report into ``run``."""
    m = pattern.match(body)
    if not m:
        raise ParseError(path, lineno, f"malformed sockperf line: {body!r}")
    g = m.groups()
    run.last = lineno
    # a latency report (per server) ends with its "<MIN> observation" line, a throughput
    # report with "Summary: BandWidth is"
    run.closed = (pattern is _EXTREME and g[0] == "MIN") or pattern is _BANDWIDTH
    if pattern is _TOTAL:
        window = {"p_window": "total"}
        run.add(lineno, "elapsed_time", number(g[0], path, lineno, "RunTime"), "s", None,
                f"RunTime={g[0]} sec", **window)
        if g[1] is not None:
            run.params["p_warmup_time"] = number(g[1], path, lineno, "warm up time") / 1000
        else:
            run.params["p_warmup_packets"] = int(_count(g[2], path, lineno, "warm up packets"))
        for name, tok, metric in (("SentMessages", g[3], "messages_sent"),
                                  ("ReceivedMessages", g[4], "messages_received"),
                                  ("SkippedMessages", g[5], "messages_skipped")):
            if tok is not None:
                run.add(lineno, metric, _count(tok, path, lineno, name), "count", None,
                        f"{name}={tok}", **window)
    elif pattern is _SERVER:
        run.server = int(_count(g[0], path, lineno, "server number"))
        run.valid = None
        run.round_trip = None
    elif pattern is _VALID:
        window = {"p_window": "valid"}
        sent = _count(g[1], path, lineno, "SentMessages")
        received = _count(g[2], path, lineno, "ReceivedMessages")
        run.valid = (sent, received)
        run.add(lineno, "elapsed_time", number(g[0], path, lineno, "RunTime"), "s", None,
                f"RunTime={g[0]} sec", **window)
        run.add(lineno, "messages_sent", sent, "count", None, f"SentMessages={g[1]}", **window)
        run.add(lineno, "messages_received", received, "count", None,
                f"ReceivedMessages={g[2]}", **window)
    elif pattern is _AVG:
        run.round_trip = g[0] == "rtt"
        run.add(lineno, "latency_mean", number(g[1], path, lineno, "average latency") * _USEC,
                "s", False, f"avg-{g[0]}={g[1]}")
        run.add(lineno, "latency_sd", number(g[2], path, lineno, "std-dev") * _USEC, "s", None,
                f"std-dev={g[2]}")
    elif pattern is _DROPPED:
        counts = []
        for name, tok, metric in (("dropped messages", g[0], "dropped_messages"),
                                  ("duplicated messages", g[1], "duplicated_messages"),
                                  ("out-of-order messages", g[2], "out_of_order_messages")):
            counts.append(_count(tok, path, lineno, name))
            run.add(lineno, metric, counts[-1], "count", False, f"{name} = {tok}")
        if run.test is None and run.valid is not None:
            sent, received = run.valid
            run.test = "under-load" if sent > received + counts[0] + counts[2] else "ping-pong"
    elif pattern is _SUMMARY:
        if g[0] is not None:
            run.params["p_burst"] = int(_count(g[0], path, lineno, "burst"))
    elif pattern is _EXTREME:
        metric = "latency_max" if g[0] == "MAX" else "latency_min"
        run.add(lineno, metric, number(g[1], path, lineno, f"<{g[0]}> observation") * _USEC, "s",
                False, f"<{g[0]}> observation = {g[1]}")
    elif pattern is _PERCENTILE:
        pct = number(g[0], path, lineno, "percentile")
        if not 0 <= pct <= 100:
            raise ParseError(path, lineno, f"percentile {g[0]} is not between 0 and 100")
        run.add(lineno, "latency_percentile", number(g[1], path, lineno, "percentile value")
                * _USEC, "s", False, f"percentile {g[0]} = {g[1]}", p_percentile=pct)
    elif pattern is _SENT:
        run.test = "throughput"
        run.add(lineno, "messages_sent", _count(g[0], path, lineno, "messages sent"), "count",
                None, f"{g[0]} messages sent")
        run.add(lineno, "elapsed_time", number(g[1], path, lineno, "seconds"), "s", None,
                f"{g[1]} sec")
        if g[2] is not None:
            run.add(lineno, "messages_skipped", _count(g[2], path, lineno, "messages skipped"),
                    "count", None, f"{g[2]} messages skipped")
    elif pattern is _NOTE:
        run.params["p_message_size"] = int(_count(g[0], path, lineno, "msg-size"))
        if g[1] is not None:
            run.params["p_message_size_range"] = int(_count(g[1], path, lineno, "msg-size range"))
        if g[2] is not None:
            run.params["p_mps"] = int(_count(g[2], path, lineno, "mps"))
    elif pattern is _RATE:
        run.test = "throughput"
        run.add(lineno, "message_rate", _count(g[0], path, lineno, "message rate"), "op/s", True,
                f"{g[0]} [msg/sec]")
        if g[1] is not None:
            run.add(lineno, "packet_rate", _count(g[1], path, lineno, "packet rate"), "packet/s",
                    True, f"{g[1]} [pkt/sec]")
    elif pattern is _BANDWIDTH:
        run.test = "throughput"
        value = number(g[0], path, lineno, "bandwidth")
        decimals = len(g[0].partition(".")[2])
        scale = MIB if g[1] == "MBps" or decimals == 9 else 1000 * MIB
        run.add(lineno, "throughput", value * scale, "B/s", True, f"{g[0]} {g[1]}")


def parse(text: str, path: str = "<string>") -> pd.DataFrame:
    """Parse sockperf client output into tidy rows.

    Follows the parser contract of :mod:`overhead.parsers` (text and path in, conformed
    tidy rows out); the rows are described in the module docstring.

    Raises
    ------
    RunFailed
        For sockperf output that holds no result (quoting sockperf's message when it printed
        one).
    ParseError
        For text that is not sockperf output, and for malformed report lines.
    """
    rows = Rows(path, benchmark=BENCHMARK, tool=TOOL,
                dtypes={"p_percentile": "Float64", "p_test": "string"})
    runs: list[_Run] = [_Run()]
    for lineno, raw_line in numbered(text):
        line = _ANSI.sub("", raw_line).strip()
        if not line:
            continue
        run = runs[-1]
        b = _BANNER.match(line)
        if b:
            runs.append(_Run(b.group(1)))
            runs[-1].seen = True
            continue
        e = _ERROR.search(line)
        if e:
            run.seen = True
            run.failure = run.failure or (lineno, e.group(0).strip())
            continue
        a = _ADDR.match(line)
        if a:
            run.protocol = run.protocol or a.group(1)
            continue
        if not line.startswith("sockperf: "):
            continue
        run.seen = True
        body = line[len("sockperf: "):]
        if body.startswith(_FAILURES):
            run.failure = run.failure or (lineno, body)
            continue
        if _OBSERVATIONS.match(body):
            continue
        for start, pattern in _LINES:
            if body.startswith(start):
                _report_line(run, body, pattern, path, lineno)
                break

    trial = 0
    for run in runs:
        if run.test is None or not run.rows:
            continue  # a latency report cut off before its mode is known, or no report
        trial += 1
        common = {"p_test": run.test, "p_protocol": run.protocol, "trial": trial,
                  "tool_version": run.version, **run.params}
        common = {k: v for k, v in common.items() if v is not None}
        for line, metric, value, unit, hib, raw, params in run.rows:
            rows.add(line, metric, value, unit, hib, raw, {**common, **params})
    if not len(rows):
        failure = next((r.failure for r in runs if r.failure is not None), None)
        if failure is not None:
            raise RunFailed(path, failure[0], failure[1])
        if any(r.seen for r in runs):
            raise RunFailed(path, None, "sockperf printed no complete report (no latency "
                            "statistics up to their '# dropped messages' line, no throughput "
                            "summary)")
        raise ParseError(path, 1, "no sockperf output found (no 'sockperf: == version #' banner, "
                         "no 'sockperf: ' report line)")
    df = rows.frame()
    cut = end_cut_mid_line(df, text, path)
    if cut is not None:
        return cut
    open_run = next((r for r in runs if r.test is not None and r.rows and not r.closed
                     and r.failure is None), None)
    if open_run is not None:
        last = ("'<MIN> observation'" if open_run.test != "throughput"
                else "'Summary: BandWidth is'")
        return cut_short(df, path, open_run.last, f"the {open_run.test} report ends before its "
                         f"last line, {last} (the run stopped or the capture was cut): the "
                         "figures read are kept")
    return df
