"""sysstat ``iostat`` device and CPU report: the text report and ``-o JSON`` (sysstat 12.6).

Text (``iostat -x 1 3``; ``-t`` adds a timestamp line before each report, ``-d`` leaves the
CPU block out, ``-c`` the device table, ``-m`` prints MB where ``-k``/the default print kB)::

    Linux 6.18.44-fc-v669 (vm) 	11/24/26 	_x86_64_	(2 CPU)

    11/24/26 19:24:31                                   (only with -t)
    avg-cpu:  %user   %nice %system %iowait  %steal   %idle
              28.26    0.05   16.60    1.34    0.06   53.69

    Device            r/s     rkB/s   rrqm/s  %rrqm r_await rareq-sz     w/s ...  aqu-sz  %util
    loop0            1.07    643.31     0.00   0.18    3.08   598.75  153.20 ...    0.03   0.84

Without ``-x`` the device table is ``Device tps kB_read/s kB_wrtn/s kB_dscd/s kB_read kB_wrtn
kB_dscd``. JSON: ``{"sysstat": {"hosts": [{"nodename", "date", "statistics": [{"timestamp"
(with -t), "avg-cpu": {"user": ...}, "disk": [{"disk_device": "vda", "r/s": ...}]}]}]}}``
with the same column names, except ``rrqm``/``wrqm``/``drqm`` and ``util`` for the text's
``%rrqm``/``%wrqm``/``%drqm`` and ``%util``. Neither form states sysstat's version (the
banner's "Linux 6.x" is the kernel's), so tool_version is absent.

Rows (higher_is_better None: a monitor's readings are neither good nor bad in themselves),
each with p_sample (0-based report number):

- the CPU block, with p_cpu "all": ``cpu_usr`` (%user), ``cpu_nice``, ``cpu_iowait``,
  ``cpu_steal``, ``cpu_idle`` (as mpstat names them) and ``cpu_system`` (%system: iostat
  counts system, irq and softirq time together, mpstat's cpu_sys + cpu_irq + cpu_soft) (%);
- per device (p_device as printed): ``io_read``, ``io_write``, ``io_discard``, ``io_flush``
  (r/s w/s d/s f/s, completed requests, op/s, as dstat's io_read/io_write); ``disk_read``,
  ``disk_write``, ``disk_discard`` (rkB/s ... or kB_read/s ...: B/s, 1 kB = 1024 B and 1 MB =
  1024 kB as sysstat counts 512-byte sectors, as dstat's disk_read/disk_write);
  ``read_merges``, ``write_merges``, ``discard_merges`` (rrqm/s ..., op/s);
  ``read_merges_share``, ``write_merges_share``, ``discard_merges_share`` (%rrqm ..., %);
  ``read_await``, ``write_await``, ``discard_await``, ``flush_await`` (printed in ms, stored
  in s); ``read_request_size``, ``write_request_size``, ``discard_request_size`` (rareq-sz
  ..., printed in kB even with -m, stored in B); ``queue_size`` (aqu-sz, count);
  ``utilization`` (%util, %); ``transfers`` (tps, op/s); ``disk_read_bytes``,
  ``disk_write_bytes``, ``disk_discard_bytes`` (kB_read ...: B in the report's interval).
  Columns of other sysstat versions are skipped (no row).

Warm-up: iostat's first report gives the averages since boot (the totals since boot for
kB_read...), not a measured interval: every row of report 0 has ``warmup = True``. Output made
with ``-y`` (skip that report) cannot be told apart and would mark a genuine interval as
warm-up: the project's runners do not use -y.

Time (with -t only): p_time is the seconds since the first report; started_at the first
report's time. ``S_TIME_FORMAT=ISO`` prints "2026-11-24T19:24:33+0000", whose zone is used;
otherwise "11/24/26 19:24:31" (or with AM/PM) is local time without a zone and is stored as
UTC, which it is on the project's runners (as for mpstat). host from "(vm)" / "nodename".

Failed runs: an output holding only the banner (iostat killed before its first report, which
iostat writes at once unless -y is given) and a JSON document that ends after its
``"statistics": [`` raise RunFailed. Other text without an iostat report, a line whose fields
do not match its header, and a value that is not a number raise ParseError naming the line; a
cut last line is dropped.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta, timezone

import pandas as pd

from overhead.parsers._common import (
    JSON_DECODER,
    JsonNumber,
    ParseError,
    Rows,
    RunFailed,
    end_cut_mid_line,
    json_line_map,
    number,
    numbered,
)

TOOL = "iostat"
BENCHMARK = "iostat"

_CPU_TEXT = {"%user": "cpu_usr", "%nice": "cpu_nice", "%system": "cpu_system",
             "%iowait": "cpu_iowait", "%steal": "cpu_steal", "%idle": "cpu_idle"}
_CPU_JSON = {k[1:]: v for k, v in _CPU_TEXT.items()}
_KIND = {"r": "read", "w": "write", "d": "discard", "f": "flush"}
_UNIT_BYTES = {"kB": 1024.0, "MB": 1024.0 ** 2}


def _device_column(name: str) -> tuple[str, str, float] | None:
    """Map an iostat device column (text or JSON name) to (metric, unit, factor); None if unknown."""
    m = re.fullmatch(r"([rwdf])/s", name)
    if m:
        return f"io_{_KIND[m.group(1)]}", "op/s", 1.0
    m = re.fullmatch(r"([rwd])(kB|MB)/s", name)
    if m:
        return f"disk_{_KIND[m.group(1)]}", "B/s", _UNIT_BYTES[m.group(2)]
    m = re.fullmatch(r"([rwd])rqm/s", name)
    if m:
        return f"{_KIND[m.group(1)]}_merges", "op/s", 1.0
    m = re.fullmatch(r"%?([rwd])rqm", name)
    if m:
        return f"{_KIND[m.group(1)]}_merges_share", "%", 1.0
    m = re.fullmatch(r"([rwdf])_await", name)
    if m:
        return f"{_KIND[m.group(1)]}_await", "s", 1e-3
    m = re.fullmatch(r"([rwd])areq-sz", name)
    if m:
        return f"{_KIND[m.group(1)]}_request_size", "B", 1024.0
    if name == "aqu-sz":
        return "queue_size", "count", 1.0
    if name in ("%util", "util"):
        return "utilization", "%", 1.0
    if name == "tps":
        return "transfers", "op/s", 1.0
    m = re.fullmatch(r"(kB|MB)_(read|wrtn|dscd)(/s)?", name)
    if m:
        kind = {"read": "read", "wrtn": "write", "dscd": "discard"}[m.group(2)]
        if m.group(3):
            return f"disk_{kind}", "B/s", _UNIT_BYTES[m.group(1)]
        return f"disk_{kind}_bytes", "B", _UNIT_BYTES[m.group(1)]
    return None


_BANNER = re.compile(r"^Linux\s+\S+\s+\((?P<host>[^)]*)\)\s+\S+\s+\S+\s+\(\d+ CPU\)\s*$")
_CPU_HEADER = re.compile(r"^avg-cpu:\s+%user\s")
_DEVICE_HEADER = re.compile(r"^Device:?\s+\S")
# -t stamps: "11/24/26 19:24:31", "11/24/2026 07:24:31 PM", "2026-11-24T19:24:33+0000"
_STAMP = re.compile(r"^(?P<date>\d{1,4}[/-]\d{1,2}[/-]\d{1,4})[ T](?P<time>\d{1,2}:\d{2}:\d{2})"
                    r"(?:\s*(?P<ampm>[AP]M))?(?P<zone>[+-]\d{4}|Z)?$")


def detect(text: str) -> float:
    """Tell whether ``text`` is iostat output.

    Returns 1 for an iostat report (text or JSON); for output that stops before its first
    report, 0.5 for iostat's banner (followed by its blank line), 0.1 for a banner without its
    newline (mpstat's parser says the same: a tie detect() refuses), 0.05 for the sysstat JSON
    header alone (identical to mpstat's, which gets 0.1); else 0.
    """
    head = text[:20000]
    if head.lstrip().startswith("{"):
        if '"sysstat"' in head and ('"avg-cpu"' in head or '"disk_device"' in head):
            return 1.0
        # the JSON header alone is byte for byte mpstat's: mpstat (which always waits one
        # interval before its first report) is the likelier author; iostat only with -y
        return 0.05 if json_header_only(text) else 0.0
    if re.search(r"^avg-cpu:\s+%user\s", head, re.M) or re.search(
            r"^Device:?\s+(?:r/s|tps|rrqm/s)\s", head, re.M):
        return 1.0
    return {"iostat": 0.5, "either": 0.1}.get(banner_only(text), 0.0)


def _banner_only(text: str) -> bool:
    """Tell whether ``text`` is a sysstat banner line and nothing but blank lines."""
    return banner_only(text) is not None


def banner_only(text: str) -> str | None:
    """Tell whose banner-only output ``text`` is: "iostat", "mpstat", "either" or None.

    iostat and mpstat print the same banner. iostat writes a blank line right after it, mpstat
    only before each report, so a run killed before its first report leaves the banner and a
    blank line (iostat) or the banner and one newline (mpstat); a banner without its newline could be either.
    """
    body = text.lstrip("\n")
    first, sep, rest = body.partition("\n")
    if not _BANNER.match(first) or rest.strip():
        return None
    if not sep:
        return "either"
    return "iostat" if "\n" in rest else "mpstat"


def json_header_only(text: str) -> bool:
    """Tell whether ``text`` is a sysstat JSON header cut after ``"statistics": [``.

    iostat's and mpstat's headers are the same.
    """
    return text.lstrip().startswith('{"sysstat"') and bool(_JSON_HEADER_END.search(text))


def sysstat_hosts(doc, path: str, tool: str) -> list:
    """Return the ``sysstat.hosts`` list of a decoded iostat or mpstat JSON document.

    Raises
    ------
    ParseError
        Naming ``tool`` when the document has no such list.
    """
    try:
        hosts = doc["sysstat"]["hosts"]
    except (KeyError, TypeError):
        raise ParseError(path, 1, f"not {tool} JSON (no sysstat.hosts)") from None
    if not isinstance(hosts, list):
        raise ParseError(path, 1, f"not {tool} JSON (sysstat.hosts is not a list)")
    return hosts


_JSON_HEADER_END = re.compile(r'"statistics":\s*\[\s*$')


def _stamp(token: str) -> datetime | None:
    """Read an iostat -t timestamp; naive for local time, aware with an ISO zone; None if not one."""
    m = _STAMP.match(token.strip())
    if not m:
        return None
    day = None
    for fmt in ("%m/%d/%y", "%Y-%m-%d", "%m/%d/%Y", "%d/%m/%y"):
        try:
            day = datetime.strptime(m.group("date"), fmt)
            break
        except ValueError:
            continue
    if day is None:
        return None
    try:
        clock = datetime.strptime(m.group("time"), "%H:%M:%S")
    except ValueError:
        return None
    hour = clock.hour
    if m.group("ampm"):
        if hour > 12:
            return None
        hour = hour % 12 + (12 if m.group("ampm") == "PM" else 0)
    stamp = day + timedelta(hours=hour, minutes=clock.minute, seconds=clock.second)
    zone = m.group("zone")
    if zone:
        offset = 0 if zone == "Z" else (1 if zone[0] == "+" else -1) * (
            int(zone[1:3]) * 60 + int(zone[3:5]))
        stamp = stamp.replace(tzinfo=timezone(timedelta(minutes=offset)))
    return stamp


def _utc(stamp: datetime | None):
    """Give a timestamp as a UTC pandas Timestamp (naive ones are taken as UTC)."""
    if stamp is None:
        return None
    if stamp.tzinfo is None:
        return pd.Timestamp(stamp, tz="UTC")
    return pd.Timestamp(stamp).tz_convert("UTC")


def parse(text: str, path: str = "<string>") -> pd.DataFrame:
    """Parse iostat output (text or JSON) into tidy rows.

    Follows the parser contract of :mod:`overhead.parsers` (text and path in, conformed
    tidy rows out); the rows are described in the module docstring.

    Raises
    ------
    RunFailed
        When the output stops before its first report.
    ParseError
        When the text is not iostat output or a line is malformed.
    """
    if text.lstrip().startswith("{"):
        return _parse_json(text, path)
    return _parse_text(text, path)


class _Report:
    """Which blocks the current report has, its number and its time."""

    def __init__(self) -> None:
        self.sample = -1
        self.parts: set[str] = set()
        self.first: datetime | None = None
        self.p_time: int | None = None

    def start(self, stamp: datetime | None = None) -> None:
        """Begin the next report (stamped ``stamp`` when -t printed one)."""
        self.sample += 1
        self.parts = set()
        self.p_time = None
        if stamp is not None:
            if self.first is None:
                self.first = stamp
            self.p_time = int(round((stamp - self.first).total_seconds()))


def _parse_text(text: str, path: str) -> pd.DataFrame:
    """Parse the text report."""
    rows = Rows(path, benchmark=BENCHMARK, tool=TOOL)
    lines = list(numbered(text))
    last = max((n for n, line in lines if line.strip()), default=0)
    cut_tail = not text.endswith("\n")
    host = None
    banner: str | None = None
    report = _Report()
    stamped = False  # the current report began at a -t timestamp line
    cpu_names: list[str] | None = None  # the avg-cpu header, waiting for its values line
    dev_names: list[str] | None = None
    found = False
    for lineno, line in lines:
        tokens = line.split()
        if not tokens:
            dev_names = None
            continue
        b = _BANNER.match(line)
        if b:
            host = b.group("host")
            banner = " ".join(line.split())
            continue
        if cpu_names is not None:  # the values line of avg-cpu
            if len(tokens) != len(cpu_names):
                if lineno == last and cut_tail:
                    continue
                raise ParseError(path, lineno, f"expected {len(cpu_names)} avg-cpu values "
                                 f"({' '.join(cpu_names)}), found {len(tokens)} fields")
            base = _base(report, host, p_cpu="all")
            for name, token in zip(cpu_names, tokens, strict=True):
                metric = _CPU_TEXT.get(name)
                if metric is not None:
                    rows.add(lineno, metric, number(token, path, lineno, name), "%", None, token,
                             base, warmup=report.sample == 0)
            cpu_names = None
            continue
        stamp = _stamp(line)
        if stamp is not None:
            report.start(stamp)
            stamped = True
            dev_names = None
            continue
        if _CPU_HEADER.match(line):
            if not stamped or report.parts:
                report.start()
            stamped = False
            report.parts.add("cpu")
            cpu_names = tokens[1:]
            dev_names = None
            found = True
            continue
        if _DEVICE_HEADER.match(line):
            if (not stamped and "cpu" not in report.parts) or "device" in report.parts:
                report.start()
            stamped = False
            report.parts.add("device")
            dev_names = tokens[1:]
            found = True
            continue
        if dev_names is None:
            if not found:
                raise ParseError(path, lineno, "not iostat output: expected the banner, an "
                                 f"'avg-cpu:' or a 'Device' header, found {line.strip()[:60]!r}")
            raise ParseError(path, lineno, f"not an iostat report line: {line.strip()[:60]!r}")
        if len(tokens) != len(dev_names) + 1:
            if lineno == last and cut_tail:
                continue
            raise ParseError(path, lineno, f"expected a device and {len(dev_names)} values "
                             f"({' '.join(dev_names)}), found {len(tokens)} fields")
        base = _base(report, host, p_device=tokens[0])
        for name, token in zip(dev_names, tokens[1:], strict=True):
            mapped = _device_column(name)
            if mapped is None:
                continue
            metric, unit, factor = mapped
            rows.add(lineno, metric, number(token, path, lineno, name) * factor, unit, None,
                     token, base, warmup=report.sample == 0)
    if not found:
        if banner is not None and _banner_only(text):
            raise RunFailed(path, None, f"only the banner {banner!r}, no report")
        raise ParseError(path, None, "no iostat report found (no 'avg-cpu:' or 'Device' header)")
    rows.fill("started_at", _utc(report.first))
    df = rows.frame()
    cut = end_cut_mid_line(df, text, path, always=True)  # a sample line cut while written
    return df if cut is None else cut


def _base(report: _Report, host: str | None, **params) -> dict:
    """Give the columns shared by the rows of one line."""
    base = {"p_sample": report.sample, **params}
    if report.p_time is not None:
        base["p_time"] = report.p_time
    if host:
        base["host"] = host
    return base


def _parse_json(text: str, path: str) -> pd.DataFrame:
    """Parse the ``-o JSON`` document."""
    try:
        doc = JSON_DECODER.decode(text)
    except json.JSONDecodeError as exc:
        if json_header_only(text):
            raise RunFailed(path, None, "the JSON document ends after its header "
                            "('\"statistics\": ['), before any report") from None
        raise ParseError(path, exc.lineno, f"invalid or truncated iostat JSON: {exc.msg}") from None
    hosts = sysstat_hosts(doc, path, TOOL)
    lines = text.splitlines()
    where = json_line_map(lines, 0, len(lines) - 1)

    def line_of(*key) -> int:
        """Give the line of a JSON path, or of its nearest parent that has one."""
        while key:
            if key in where:
                return where[key]
            key = key[:-1]
        return 1

    rows = Rows(path, benchmark=BENCHMARK, tool=TOOL)
    for h in hosts:
        if not isinstance(h, dict):
            raise ParseError(path, 1, "iostat JSON: a host entry is not an object")
        host = h.get("nodename")
        stats = h.get("statistics", [])
        if not isinstance(stats, list):
            raise ParseError(path, line_of("statistics"), "iostat JSON: statistics is not a list")
        report = _Report()
        host_start = len(rows)
        for i, st in enumerate(stats):
            ln = line_of("statistics", i)
            if not isinstance(st, dict):
                raise ParseError(path, ln, "iostat JSON: a report is not an object")
            stamp = None
            if "timestamp" in st:
                stamp = _stamp(str(st["timestamp"]))
                if stamp is None:
                    raise ParseError(path, line_of("statistics", i, "timestamp"),
                                     f"iostat JSON: timestamp {st['timestamp']!r} is not a date and time")
            report.start(stamp)
            name = str(host) if host else None
            cpu = st.get("avg-cpu")
            if cpu is not None:
                cl = line_of("statistics", i, "avg-cpu")
                if not isinstance(cpu, dict):
                    raise ParseError(path, cl, "iostat JSON: avg-cpu is not an object")
                base = _base(report, name, p_cpu="all")
                for key, metric in _CPU_JSON.items():
                    if key in cpu:
                        rows.add(cl, metric, _json_value(cpu[key], path, cl, key), "%", None,
                                 cpu[key].tok, base, warmup=report.sample == 0)
            disks = st.get("disk")
            if disks is None:
                continue
            if not isinstance(disks, list):
                raise ParseError(path, line_of("statistics", i, "disk"), "iostat JSON: disk is not a list")
            for j, disk in enumerate(disks):
                dl = line_of("statistics", i, "disk", j)
                if not isinstance(disk, dict) or not isinstance(disk.get("disk_device"), str):
                    raise ParseError(path, dl, "iostat JSON: a disk entry without its disk_device")
                base = _base(report, name, p_device=disk["disk_device"])
                for key, token in disk.items():
                    mapped = _device_column(key)
                    if mapped is None:
                        continue
                    metric, unit, factor = mapped
                    rows.add(dl, metric, _json_value(token, path, dl, key) * factor, unit, None,
                             token.tok, base, warmup=report.sample == 0)
        rows.fill("started_at", _utc(report.first), host_start)
    return rows.frame()


def _json_value(token, path: str, line: int, key: str) -> float:
    """Check that a JSON value is a number; return it as a float."""
    if not isinstance(token, JsonNumber):
        raise ParseError(path, line, f"iostat JSON: {key} is not a number, found {token!r}")
    return number(token.tok, path, line, key)
