"""nuttcp 6.1.2 client output: brief, ``-fparse``, ``-i`` interval and verbose reports.

The brief default report, ``-fparse`` key=value output, ``-i`` interval reports and the
verbose (``-v``/``-vv``) transmitter/receiver summaries.

Formats (all produced on this machine, see tests/fixtures/nuttcp/README.md)::

    # brief (default) final line, TCP and UDP
     3566.7480 MB /   2.00 sec = 14952.3101 Mbps 43 %TX 33 %RX 0 retrans 0.04 msRTT
       23.8438 MB /   2.00 sec =  100.1301 Mbps 99 %TX 0 %RX 0 / 3052 drop/pkt 0.00 %loss
    # -i interval lines (before a blank line and the final line); -frunningtotal adds "Tot: ..."
     2134.9375 MB /   1.00 sec = 17907.4884 Mbps     0 retrans
       11.9453 MB /   1.00 sec =  100.1989 Mbps     0 /  1529 ~drop/pkt  0.00 ~%loss
    # -fparse: the same as key=value (intervals say real_sec=, the final line real_seconds=)
    megabytes=6082.2669 real_seconds=2.00 rate_Mbps=25482.6033 tx_cpu=13 rx_cpu=86 retrans=0 rtt_ms=0.05
    # -v: one block per side, "nuttcp-t:" (transmitter) and "nuttcp-r:" (receiver)
    nuttcp-t: 3149.3125 MB in 2.00 real seconds = 1612396.40 KB/sec = 13208.7513 Mbps
    nuttcp-t: 0.0user 1.9sys 0:02real 97% 0i+0d 936maxrss 0+0pf 89+182csw

Metrics: ``transferred_bytes`` (B; nuttcp's MB is 1024**2 bytes, as its man page says for
``-b``: "the amount of data transferred in MB (1024**2 bytes)"), ``real_time`` (s),
``goodput`` (B/s; nuttcp's Mbps is "millions of bits per second", so x 1e6 / 8), ``cpu_tx``
and ``cpu_rx`` (%, transmitter and receiver process CPU), ``retransmits`` (count, TCP),
``rtt`` (s; nuttcp prints ms), and for UDP ``dropped_packets``, ``packets`` (count) and
``packet_loss`` (%). Interval rows carry ``p_time`` (seconds since the start at the end of the
interval: the running total's time when printed, else the sum of the interval lengths) and
no CPU figures (nuttcp prints none per interval); running totals ("Tot:") are not emitted
(they are sums of the interval rows). In client/server mode the brief and -fparse figures are
"from the viewpoint of the receiver" (man page), whichever side the client is.

Verbose blocks give the same metrics per side with ``p_side`` = "transmitter" or "receiver"
(the transmitter's ``retrans`` and connect-time RTT, each side's CPU from its
"...user ...sys ...real NN%" line as ``cpu_tx`` or ``cpu_rx``); ``tool_version`` comes from
their "v6.1.2" banner. The KB/sec figure repeats Mbps and is not read.

``trial`` is the 1-based run number in the file: a run ends with its final line (brief or
-fparse) or, in verbose output, when a side's banner repeats. A run cut off before its final
line keeps its interval rows. A file with no result in which nuttcp printed an error
("nuttcp-t: v6.1.2: Error: connect: Connection refused") is a failed run: RunFailed
(``path:line: the run did not finish: ...``) naming and quoting nuttcp's first error line;
with results, the error line is skipped and the results kept. The direction of the test (-t/-r) is
not printed in brief/-fparse output and so is not a parameter here.
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
    number,
    numbered,
)

TOOL = "nuttcp"
BENCHMARK = "nuttcp"

MB = 1024**2  # nuttcp's MB (man nuttcp, -b)
_MBPS = 1e6 / 8  # bytes/s per Mbps

_BRIEF = re.compile(r"^(\S+) MB /\s+(\S+) sec =\s+(\S+) Mbps(.*)$")
_SIDE = re.compile(r"^nuttcp-([tr]):\s*(.*)$")
_BANNER = re.compile(r"^v(\d+\.\d+\.\d+): ")
_VERB_RATE = re.compile(r"^(\S+) MB in (\S+) real seconds = \S+ KB/sec = (\S+) Mbps$")
_VERB_RTT = re.compile(r"^connect to \S+ with mss=\d+, RTT=(\S+) ms$")
_VERB_RETRANS = re.compile(r"^retrans = (\S+)$")
_VERB_CPU = re.compile(r"^\S+user \S+sys \S+real (\S+)% ")
_VERB_DROP = re.compile(r"^(\d+) / (\d+) drop/pkt(?: (\S+)% data loss)?$")
_KV = re.compile(r"(\w+)=(\S*)")
_PARSE_FINAL = ("megabytes", "real_seconds", "rate_Mbps")
_PARSE_INTERVAL = ("megabytes", "real_sec", "rate_Mbps")

# field -> (metric, unit, scale, higher_is_better)
_METRICS = {
    "mb": ("transferred_bytes", "B", MB, True),
    "sec": ("real_time", "s", 1.0, None),
    "mbps": ("goodput", "B/s", _MBPS, True),
    "tx_cpu": ("cpu_tx", "%", 1.0, False),
    "rx_cpu": ("cpu_rx", "%", 1.0, False),
    "retrans": ("retransmits", "count", 1.0, False),
    "rtt_ms": ("rtt", "s", 1e-3, False),
    "drop": ("dropped_packets", "count", 1.0, False),
    "pkt": ("packets", "count", 1.0, None),
    "loss": ("packet_loss", "%", 1.0, False),
}
_INTEGER_FIELDS = ("tx_cpu", "rx_cpu", "retrans", "drop", "pkt")


def detect(text: str) -> float:
    """Tell whether ``text`` is nuttcp client output.

    Returns a confidence from 0 (not nuttcp output) to 1.
    """
    head = text[:20000]
    if re.search(r"^\s*\d+\.\d+ MB /\s+\d+\.\d+ sec =\s+\d+\.\d+ Mbps", head, re.M):
        return 1.0
    if re.search(r"^megabytes=\S+ real_sec(?:onds)?=\S+ rate_Mbps=", head, re.M):
        return 1.0
    if re.search(r"^nuttcp-[tr]: ", head, re.M):
        return 1.0
    return 0.0


def _brief_fields(line: str, path: str, lineno: int) -> tuple[dict, bool, float | None]:
    """Read a brief line's fields: ({field: (token, raw)}, is_final, running-total seconds)."""
    total_sec = None
    main, _, tot = line.partition(" Tot: ")
    m = _BRIEF.match(main.strip())
    if not m:
        raise ParseError(path, lineno, f"malformed nuttcp line (expected '<MB> MB / <s> sec = "
                         f"<rate> Mbps ...'): {line.strip()!r}")
    fields = {"mb": (m.group(1), f"{m.group(1)} MB"), "sec": (m.group(2), f"{m.group(2)} sec"),
              "mbps": (m.group(3), f"{m.group(3)} Mbps")}
    rest = m.group(4)
    final = "%TX" in rest or "%RX" in rest
    pos = 0
    patterns = (
        (re.compile(r"\s*(\d+) %TX"), ("tx_cpu",), "{0} %TX"),
        (re.compile(r"\s*(\d+) %RX"), ("rx_cpu",), "{0} %RX"),
        (re.compile(r"\s*(\d+) (?:host-)?retrans"), ("retrans",), "{0} retrans"),
        (re.compile(r"\s*(\S+) msRTT"), ("rtt_ms",), "{0} msRTT"),
        (re.compile(r"\s*(\d+) /\s+(\d+) ~?drop/pkt"), ("drop", "pkt"), "{0} / {1} drop/pkt"),
        (re.compile(r"\s*(\S+) ~?%loss"), ("loss",), "{0} %loss"),
        (re.compile(r"\s*Trans:\s+\S+ MB"), (), ""),
        (re.compile(r"\s*Pre:\s+\S+ MB"), (), ""),
    )
    while pos < len(rest.rstrip()):
        for pat, names, raw in patterns:
            t = pat.match(rest, pos)
            if t:
                for name, tok in zip(names, t.groups(), strict=True):
                    fields[name] = (tok, raw.format(*t.groups()))
                pos = t.end()
                break
        else:
            raise ParseError(path, lineno, f"unexpected text in nuttcp line: {rest[pos:].strip()!r}")
    if tot:
        t = _BRIEF.match(tot.strip())
        if not t:
            raise ParseError(path, lineno, f"malformed running total: {tot.strip()!r}")
        total_sec = number(t.group(2), path, lineno, "running total seconds")
    return fields, final, total_sec


def _parse_fields(line: str, path: str, lineno: int) -> tuple[dict, bool, float | None]:
    """Read a -fparse line's fields (same shape as :func:`_brief_fields`)."""
    pairs = _KV.findall(line)
    keys = [k for k, _ in pairs]
    final = keys[:3] == list(_PARSE_FINAL)
    if not final and keys[:3] != list(_PARSE_INTERVAL):
        raise ParseError(path, lineno, "malformed nuttcp -fparse line (expected megabytes=, "
                         f"real_seconds= or real_sec=, rate_Mbps=): {line.strip()!r}")
    names = {"megabytes": "mb", "real_seconds": "sec", "real_sec": "sec", "rate_Mbps": "mbps",
             "tx_cpu": "tx_cpu", "rx_cpu": "rx_cpu", "retrans": "retrans", "rtt_ms": "rtt_ms",
             "drop": "drop", "pkt": "pkt", "data_loss": "loss"}
    fields: dict = {}
    total_sec = None
    in_total = False
    for key, tok in pairs:
        if key.startswith("total_") or key.startswith("tx_total_"):
            in_total = True
            if key == "total_real_sec":
                total_sec = number(tok, path, lineno, key)
            continue
        if in_total or key not in names:
            continue  # values of the running total, tx_megabytes, rate_KBps
        fields.setdefault(names[key], (tok, f"{key}={tok}"))
    return fields, final, total_sec


def _rows(rows: Rows, fields: dict, lineno: int, extra: dict) -> None:
    """Add a row per field of one line."""
    for name, (tok, raw) in fields.items():
        metric, unit, scale, hib = _METRICS[name]
        value = number(tok, rows.path, lineno, metric)
        if name in _INTEGER_FIELDS and not (tok.isdigit() and value.is_integer()):
            raise ParseError(rows.path, lineno, f"{metric}: expected a whole number, found {tok!r}")
        rows.add(lineno, metric, value * scale, unit, hib, raw, extra)


def parse(text: str, path: str = "<string>") -> pd.DataFrame:
    """Parse nuttcp client output into tidy rows.

    Follows the parser contract of :mod:`overhead.parsers` (text and path in, conformed
    tidy rows out); the rows are described in the module docstring.

    Raises
    ------
    RunFailed
        When the text holds no result but nuttcp's error line (quoted, with its line).
    ParseError
        For text that holds no nuttcp result, for malformed result lines, and for a
        whole-number parameter out of the 64-bit range.
    """
    rows = Rows(path, benchmark=BENCHMARK, tool=TOOL)
    run = 0  # first row of the run in progress
    trial = 1
    elapsed = 0.0  # sum of interval lengths in the run in progress
    sides: set[str] = set()  # verbose sides seen in the run in progress
    version: str | None = None
    error: tuple[int, str] | None = None
    seen = False
    open_run: int | None = None  # the first interval line of a run not yet closed by its summary

    def close() -> None:
        nonlocal trial, elapsed, run
        if len(rows) > run:
            rows.fill("trial", trial, run)
            run = len(rows)
            trial += 1
        elapsed = 0.0
        sides.clear()

    for lineno, line in numbered(text):
        stripped = line.strip()
        if not stripped:
            continue
        s = _SIDE.match(stripped)
        if s:
            side = "transmitter" if s.group(1) == "t" else "receiver"
            body = s.group(2)
            b = _BANNER.match(body)
            if b:
                version = b.group(1)
                if "Error:" in body:
                    error = error or (lineno, stripped)
                    continue
                if side in sides:
                    close()
                sides.add(side)
                continue
            if _verbose(rows, body, side, lineno):
                seen = True
            continue
        if stripped.startswith("nuttcp") and "Error:" in stripped:
            error = error or (lineno, stripped)
            continue
        if stripped.startswith("megabytes="):
            fields, final, total_sec = _parse_fields(stripped, path, lineno)
        elif " MB / " in stripped and " Mbps" in stripped:
            fields, final, total_sec = _brief_fields(stripped, path, lineno)
        else:
            continue
        seen = True
        if final:
            _rows(rows, fields, lineno, {})
            close()
            open_run = None
            continue
        if open_run is None:
            open_run = lineno
        sec = number(fields["sec"][0], path, lineno, "interval seconds")
        elapsed += sec
        p_time = total_sec if total_sec is not None else round(elapsed, 6)
        _rows(rows, fields, lineno, {"p_time": p_time})
    close()
    if not seen:
        if error is not None:
            raise RunFailed(path, error[0], error[1])
        raise ParseError(path, None, "no nuttcp result found (no '<MB> MB / <s> sec = <rate> Mbps' "
                         "line, no megabytes= line, no nuttcp-t:/nuttcp-r: summary)")
    rows.fill("tool_version", version)
    df = rows.frame()
    cut = end_cut_mid_line(df, text, path)
    if cut is not None:
        return cut
    if open_run is not None:
        # nuttcp ends a run with its summary line (real_seconds=, or "... sec = ... Mbps"
        # without the interval's fields) after its interval lines
        return cut_short(df, path, open_run, "interval lines without the run's closing summary "
                         "line (the run stopped or the capture was cut): the intervals are kept")
    return df


def _verbose(rows: Rows, body: str, side: str, lineno: int) -> int:
    """Add the rows of one verbose line (human -v or key=value -vv -fparse); return how many."""
    extra = {"p_side": side}
    cpu = "tx_cpu" if side == "transmitter" else "rx_cpu"
    fields: dict = {}
    m = _VERB_RATE.match(body)
    if m:
        fields = {"mb": (m.group(1), f"{m.group(1)} MB"),
                  "sec": (m.group(2), f"{m.group(2)} real seconds"),
                  "mbps": (m.group(3), f"{m.group(3)} Mbps")}
    elif (m := _VERB_RTT.match(body)):
        fields = {"rtt_ms": (m.group(1), f"RTT={m.group(1)} ms")}
    elif (m := _VERB_RETRANS.match(body)):
        fields = {"retrans": (m.group(1), f"retrans = {m.group(1)}")}
    elif (m := _VERB_CPU.match(body)):
        fields = {cpu: (m.group(1), f"{m.group(1)}%")}
    elif (m := _VERB_DROP.match(body)):
        fields = {"drop": (m.group(1), f"{m.group(1)} / {m.group(2)} drop/pkt"),
                  "pkt": (m.group(2), f"{m.group(1)} / {m.group(2)} drop/pkt")}
        if m.group(3) is not None:
            fields["loss"] = (m.group(3), f"{m.group(3)}% data loss")
    elif "=" in body:
        kv = dict(_KV.findall(body))
        if "megabytes" in kv and "real_seconds" in kv and "rate_Mbps" in kv:
            fields = {"mb": (kv["megabytes"], f"megabytes={kv['megabytes']}"),
                      "sec": (kv["real_seconds"], f"real_seconds={kv['real_seconds']}"),
                      "mbps": (kv["rate_Mbps"], f"rate_Mbps={kv['rate_Mbps']}")}
        elif "connect" in kv and "rtt_ms" in kv:
            fields = {"rtt_ms": (kv["rtt_ms"], f"rtt_ms={kv['rtt_ms']}")}
        elif list(kv) == ["retrans"]:
            fields = {"retrans": (kv["retrans"], f"retrans={kv['retrans']}")}
        elif body.startswith("stats=cpu ") and "cpu" in kv:
            tok = kv["cpu"].rstrip("%")
            fields = {cpu: (tok, f"cpu={kv['cpu']}")}
        elif "drop" in kv and "pkt" in kv:
            fields = {"drop": (kv["drop"], f"drop={kv['drop']}"), "pkt": (kv["pkt"], f"pkt={kv['pkt']}")}
            if "data_loss" in kv:
                fields["loss"] = (kv["data_loss"], f"data_loss={kv['data_loss']}")
    _rows(rows, fields, lineno, extra)
    return len(fields)
