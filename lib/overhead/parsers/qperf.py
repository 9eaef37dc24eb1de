"""qperf 0.4.11 client output: one block per test (tcp_lat, tcp_bw, udp_lat, udp_bw, ...).

Formats (all produced on this machine, see tests/fixtures/qperf/README.md)::

    tcp_lat:
        latency  =  8.32 us
    udp_bw:
        send_bw  =  4.5 GB/sec
        recv_bw  =  1.9 GB/sec
    # -v adds msg_rate, the parameters the user set (time, msg_size...), send_cost and
    # recv_cost for the bandwidth tests, and the CPUs used by each side
    tcp_bw:
        bw              =  2.41 GB/sec
        msg_rate        =  36.6 K/sec
        time            =     2 sec
        send_cost       =   834 ms/GB
        recv_cost       =   832 ms/GB
        send_cpus_used  =   200 % cpus
        recv_cpus_used  =   200 % cpus
    # -vv adds every parameter used and per-side details (loc_/rem_ or send_/recv_)
        msg_size          =      64 KiB (65,536)
        send_cpus_user    =    42.5 % cpus
        send_bytes        =    6.07 GB
        send_msgs         =  92,670

Units (qperf.c ``view_*``, checked in the tests against msg_size x msg_rate): qperf scales by
1000 for every quantity: times ``ns``/``us``/``ms``/``sec``, rates ``/sec``, ``K/sec``,
``M/sec``..., bandwidths ``bytes/sec``, ``KB/sec``, ``MB/sec``, ``GB/sec`` (``-ub``:
``bits/sec``, ``Kb/sec``...), sizes ``bytes``, ``KB``, ``MB``, ``GB`` except a size that is an
exact multiple of 1024, printed as ``KiB``/``MiB``/``GiB`` with the exact count in
parentheses; costs ``ns/GB`` ... ``sec/GB`` (CPU time per 10**9 bytes), counts with
"thousand", "million"... above a million. Digits are grouped with commas ("143,003"). ``-uu``
(unify units) prints base units only (``ns``, ``bytes/sec``, ``/sec``).

Rows (``p_test`` = the block's test name):

- ``latency_mean`` (s; qperf's "latency", its time divided by the messages exchanged),
  ``message_rate`` (op/s: messages per second, ``msg_rate``);
- ``throughput`` (B/s): ``bw`` (qperf shows its receive bandwidth there) without ``p_side``,
  ``send_bw`` and ``recv_bw`` with ``p_side`` "send" and "recv";
- ``service_demand`` (s/B: seconds of CPU time per byte, from qperf's per 10**9 bytes;
  ``p_side`` send/recv), from ``send_cost`` and ``recv_cost``;
- per side (``p_side`` "local", "remote", "send" or "recv" for qperf's ``loc_``, ``rem_``,
  ``send_``, ``recv_`` prefixes): ``cpu_util`` (``*_cpus_used``; %, of one CPU: 200 is two
  CPUs busy), ``cpu_user``, ``cpu_intr``, ``cpu_kernel``, ``cpu_iowait`` (%), ``real_time``
  and ``cpu_time`` (s), ``bytes_sent``, ``bytes_received`` (B), ``messages_sent``,
  ``messages_received``, ``send_errors``, ``recv_errors`` (count).

Parameters: the block's used parameters (``-v``/``-vu``: those set on the command line;
``-vv``: all) on every row of the block: ``p_message_size`` (bytes, ``msg_size``),
``p_duration`` (s, ``time``: the requested test time, not a measurement), ``p_timeout`` (s),
and the others under their qperf names (``p_sock_buf_size``, ``p_no_msgs``, ``p_port``...;
``loc_``/``rem_`` prefixed when the two sides differ). ``p_test`` is on every row.
``tool_version`` comes from the ``conf`` block's ``loc_qperf`` ("0.4.11") when the run printed
one (``qperf HOST conf tcp_lat ...``); qperf prints no version otherwise. ``trial`` counts the
blocks of the same test (1-based: a ``--loop`` run or concatenated runs repeat a test).
Fields other than these (RDMA ``max_cqe``, the debug ``l_*``/``r_*`` values) give no row.

Errors: qperf prints its error message as a plain line and exits 1: "127.0.0.1: failed to
connect" (no server; qperf says no more than that), "failed to receive results: server not
responding", "failed to receive port: Connection reset by peer" (server killed). A file with
no result raises :class:`RunFailed` quoting that line; the blocks completed before it keep
their rows. "warning: ... set but not used in test ..." lines are skipped, and so are the lines
before the first test's name (not qperf's: what a wrapper printed first).
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

TOOL = "qperf"
BENCHMARK = "qperf"

#: qperf 0.4.11's tests (qperf.c, the Tests table); a block starts with "<test>:".
TESTS = frozenset((
    "conf", "quit", "rds_bw", "rds_lat", "sctp_bw", "sctp_lat", "sdp_bw", "sdp_lat", "tcp_bw",
    "tcp_lat", "udp_bw", "udp_lat", "rc_bi_bw", "rc_bw", "rc_compare_swap_mr", "rc_fetch_add_mr",
    "rc_lat", "rc_rdma_read_bw", "rc_rdma_read_lat", "rc_rdma_write_bw", "rc_rdma_write_lat",
    "rc_rdma_write_poll_lat", "uc_bi_bw", "uc_bw", "uc_lat", "uc_rdma_write_bw",
    "uc_rdma_write_lat", "uc_rdma_write_poll_lat", "ud_bi_bw", "ud_bw", "ud_lat",
    "ver_rc_compare_swap", "ver_rc_fetch_add", "xrc_bi_bw", "xrc_bw", "xrc_lat",
))

_HEADER = re.compile(r"^([a-z][a-z0-9_]*):\s*$")
_FIELD = re.compile(r"^\s+([A-Za-z][A-Za-z0-9_]*)\s+=\s+(.*?)\s*$")
_DETECT = re.compile(r"^([a-z][a-z0-9_]*):[ \t]*\n[ \t]+[A-Za-z]\w*[ \t]+=[ \t]+\S", re.M)
_VALUE = re.compile(r"^(\d{1,3}(?:,\d{3})*(?:\.\d+)?|\d+(?:\.\d+)?)(?: (.+?))?(?: \(([\d,]+)\))?$")

# unit -> factor to the base unit, per kind of quantity (qperf.c view_time, view_rate...)
_TIME = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "sec": 1.0}
_RATE = {"/sec": 1.0, "K/sec": 1e3, "M/sec": 1e6, "G/sec": 1e9, "T/sec": 1e12}
_BAND = {"bytes/sec": 1.0, "KB/sec": 1e3, "MB/sec": 1e6, "GB/sec": 1e9, "TB/sec": 1e12,
         "bits/sec": 1 / 8, "Kb/sec": 1e3 / 8, "Mb/sec": 1e6 / 8, "Gb/sec": 1e9 / 8,
         "Tb/sec": 1e12 / 8}
_SIZE = {"bytes": 1.0, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12, "KiB": 1024.0,
         "MiB": 1024.0**2, "GiB": 1024.0**3, "TiB": 1024.0**4}
_COST = {"ns/GB": 1e-18, "us/GB": 1e-15, "ms/GB": 1e-12, "sec/GB": 1e-9}  # -> s per byte
_CPUS = {"% cpus": 1.0}
_LONG = {None: 1.0, "thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}

# unprefixed measurement -> (units, metric, unit, higher_is_better)
_PLAIN = {
    "latency": (_TIME, "latency_mean", "s", False),
    "msg_rate": (_RATE, "message_rate", "op/s", True),
    "bw": (_BAND, "throughput", "B/s", True),
}
_SIDES = {"loc": "local", "rem": "remote", "send": "send", "recv": "recv"}
# the rest of a side-prefixed name -> (units, metric, unit, higher_is_better)
_SIDED = {
    "bw": (_BAND, "throughput", "B/s", True),
    "cost": (_COST, "service_demand", "s/B", False),
    "cpus_used": (_CPUS, "cpu_util", "%", False),
    "cpus_user": (_CPUS, "cpu_user", "%", False),
    "cpus_intr": (_CPUS, "cpu_intr", "%", False),
    "cpus_kernel": (_CPUS, "cpu_kernel", "%", False),
    "cpus_iowait": (_CPUS, "cpu_iowait", "%", False),
    "real_time": (_TIME, "real_time", "s", None),
    "cpu_time": (_TIME, "cpu_time", "s", False),
    "send_bytes": (_SIZE, "bytes_sent", "B", None),
    "recv_bytes": (_SIZE, "bytes_received", "B", None),
    "send_msgs": (_LONG, "messages_sent", "count", None),
    "recv_msgs": (_LONG, "messages_received", "count", None),
    "send_errors": (_LONG, "send_errors", "count", False),
    "recv_errors": (_LONG, "recv_errors", "count", False),
}
# with send_/recv_ prefixes (qperf's sender/receiver display), the direction is the side's
_SR_COUNTS = {"bytes", "msgs", "errors"}

# qperf's parameters (qperf.c ParName) -> (units or None for text, parameter name)
_PARAMS = {
    "access_recv": (_LONG, "access_recv"), "affinity": (_LONG, "affinity"),
    "alt_port": (_LONG, "alt_port"), "flip": (_LONG, "flip"), "id": (None, "id"),
    "msg_size": (_SIZE, "message_size"), "mtu_size": (_SIZE, "mtu_size"),
    "no_msgs": (_LONG, "no_msgs"), "poll_mode": (_LONG, "poll_mode"), "port": (_LONG, "port"),
    "rd_atomic": (_LONG, "rd_atomic"), "service_level": (_LONG, "service_level"),
    "sock_buf_size": (_SIZE, "sock_buf_size"), "src_path_bits": (_SIZE, "src_path_bits"),
    "static_rate": (None, "static_rate"), "time": (_TIME, "duration"),
    "timeout": (_TIME, "timeout"), "use_cm": (_LONG, "use_cm"),
}


def detect(text: str) -> float:
    """Tell whether ``text`` is qperf client output.

    Returns a confidence from 0 (not qperf output) to 1: a qperf test's name ("tcp_lat:")
    followed by a "name = value" line, or (a failed run) a test's name as the first line.
    """
    head = text[:20000]
    for m in _DETECT.finditer(head):
        if m.group(1) in TESTS:
            return 1.0
    first = next((ln for ln in head.splitlines() if ln.strip()), "")
    h = _HEADER.match(first)
    return 1.0 if h and h.group(1) in TESTS else 0.0


def _whole(value: float) -> int | float:
    """Give a size or count as an int when it is a whole number (1.1 KB is 1100 bytes)."""
    r = round(value)
    return int(r) if abs(value - r) <= 1e-9 * max(1.0, abs(value)) else value


def _value(text: str, units: dict, path: str, lineno: int, name: str) -> tuple[float, str]:
    """Read ``<number> [unit] [(exact)]`` with ``units``; return (base-unit value, raw)."""
    m = _VALUE.match(text)
    if not m:
        raise ParseError(path, lineno, f"{name}: expected a number and a unit, found {text!r}")
    tok, unit, exact = m.groups()
    if unit not in units:
        known = ", ".join(repr(u) for u in units if u is not None)
        raise ParseError(path, lineno, f"{name}: unit {unit!r} is not one of qperf's ({known})")
    if exact is not None:  # "64 KiB (65,536)": the exact count
        return number(exact.replace(",", ""), path, lineno, name), text
    return number(tok.replace(",", ""), path, lineno, name) * units[unit], text


def _field(name: str) -> tuple[str | None, tuple] | None:
    """Find what a field is: (side or None, (units, metric, unit, hib)), or None."""
    if name in _PLAIN:
        return None, _PLAIN[name]
    prefix, _, rest = name.partition("_")
    side = _SIDES.get(prefix)
    if side is None:
        return None
    if rest in _SIDED:
        return side, _SIDED[rest]
    if prefix in ("send", "recv") and rest in _SR_COUNTS:
        return side, _SIDED[f"{prefix}_{rest}"]
    return None


def _param(name: str) -> tuple[str, tuple] | None:
    """Find a used parameter: (column, (units, name)), or None."""
    prefix = ""
    if name.startswith(("loc_", "rem_")) and name[4:] in _PARAMS:
        prefix, name = name[:4], name[4:]
    if name not in _PARAMS:
        return None
    units, pname = _PARAMS[name]
    return f"p_{prefix}{pname}", (units, name)


class _Block:
    """One test's block: its rows wait until its parameters (printed after them) are read."""

    def __init__(self, test: str, line: int):
        self.test = test
        self.line = line
        self.rows: list[tuple] = []
        self.params: dict = {}
        self.names: list[str] = []  # the field names printed, in order
        self.last = line  # the block's last line


def parse(text: str, path: str = "<string>") -> pd.DataFrame:
    """Parse qperf client output into tidy rows.

    Follows the parser contract of :mod:`overhead.parsers` (text and path in, conformed
    tidy rows out); the rows are described in the module docstring.

    Raises
    ------
    RunFailed
        For qperf output that holds no result (quoting qperf's error when it printed one).
    ParseError
        For text that is not qperf output and for malformed value lines.
    """
    blocks: list[_Block] = []
    version: str | None = None
    failure: tuple[int, str] | None = None
    for lineno, line in numbered(text):
        if not line.strip():
            continue
        h = _HEADER.match(line)
        if h and h.group(1) in TESTS:
            blocks.append(_Block(h.group(1), lineno))
            continue
        if not blocks:
            continue  # not qperf's: what a wrapper printed before its output
        block = blocks[-1]
        f = _FIELD.match(line)
        if not f:
            if line[:1].isspace():
                raise ParseError(path, lineno, f"malformed qperf line: {line.strip()!r}")
            if not line.startswith("warning: "):
                failure = failure or (lineno, line.strip())
            continue
        name, data = f.groups()
        block.names.append(name)
        block.last = lineno
        if block.test == "conf":
            if name == "loc_qperf":
                version = data
            continue
        p = _param(name)
        if p is not None:
            column, (units, _) = p
            if units is None:
                block.params[column] = data
            else:
                value, _raw = _value(data, units, path, lineno, name)
                if units is _SIZE or units is _LONG:
                    value = _whole(value)
                    if abs(value) >= 2**63:
                        raise ParseError(path, lineno, f"{name}: {data!r} is out of range")
                block.params[column] = value
            continue
        kind = _field(name)
        if kind is None:
            continue
        side, (units, metric, unit, hib) = kind
        value, raw = _value(data, units, path, lineno, name)
        extra = {} if side is None else {"p_side": side}
        block.rows.append((lineno, metric, value, unit, hib, f"{name} = {raw}", extra))

    rows = Rows(path, benchmark=BENCHMARK, tool=TOOL, tool_version=version,
                dtypes={"p_test": "string"})
    trials: dict[str, int] = {}
    for block in blocks:
        if not block.rows:
            continue
        trials[block.test] = trials.get(block.test, 0) + 1
        common = {"p_test": block.test, "trial": trials[block.test], **block.params}
        for lineno, metric, value, unit, hib, raw, extra in block.rows:
            rows.add(lineno, metric, value, unit, hib, raw, {**common, **extra})
    if not len(rows):
        if failure is not None:
            raise RunFailed(path, failure[0], failure[1])
        if not blocks:
            raise ParseError(path, 1, "not qperf output: no qperf test's name such as 'tcp_lat:'")
        names = ", ".join(dict.fromkeys(f"'{b.test}:'" for b in blocks))
        raise RunFailed(path, None, f"qperf printed {names} and no result")
    df = rows.frame()
    if failure is not None:
        done = ", ".join(dict.fromkeys(df["p_test"].astype(str)))
        return cut_short(df, path, failure[0], f"{failure[1]}; the tests before it are kept: {done}")
    cut = end_cut_mid_line(df, text, path)
    if cut is not None:
        return cut
    unended = _unended(blocks)
    if unended is not None:
        return cut_short(df, path, *unended)
    return df


def _unended(blocks: list[_Block]) -> tuple[int, str] | None:
    """Find a test block that stopped before its end: (line, what), or None.

    qperf prints a test's name when it starts and its block when it ends; a name without any
    value after it is a test that never finished. With -v (or -vv) every block prints both
    sides' CPU use, the remote one last (-v) or before its message counts (-vv): a verbose
    output's block without "rem_cpus_used"/"recv_cpus_used" was cut. -v shows in any block's
    ``msg_rate`` or CPU line (without it a block holds only its latency or bandwidths, and
    ``-vu`` adds only the parameters used, such as ``time``), so a single block cut before its
    CPU lines is seen too. Without -v the blocks have no fixed last line, and a cut between two
    values cannot be told.
    """
    verbose = any(n.endswith("_cpus_used") or n == "msg_rate"
                  for b in blocks if b.test != "conf" for n in b.names)
    for b in blocks:
        if b.test == "conf":
            continue
        if not b.rows:
            return b.line, f"qperf printed '{b.test}:' but no result after it (the test did not end)"
        if verbose and not {"rem_cpus_used", "recv_cpus_used"} & set(b.names):
            return b.last, (f"the '{b.test}:' block (-v) ends before its remote CPU line "
                            "(rem_cpus_used or recv_cpus_used): the values read are kept")
    return None
