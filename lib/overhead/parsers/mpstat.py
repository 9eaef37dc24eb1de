"""sysstat ``mpstat`` CPU utilisation: the text report and ``-o JSON`` (sysstat 12.6).

Text (``mpstat 1 3``, ``mpstat -P ALL 1 2``)::

    Linux 6.18.44-fc-v769 (vm) 	11/22/26 	_x86_64_	(2 CPU)

    00:15:00     CPU    %usr   %nice    %sys %iowait    %irq   %soft  %steal  %guest  %gnice   %idle
    00:15:01     all    2.70    0.00   40.54    0.00    0.00   21.62    0.00    0.00    0.00   35.14
    ...
    Average:     all   14.61    0.00   40.14    0.00    0.00   21.83    0.00    0.00    0.00   23.42

JSON (``mpstat -o JSON``): ``{"sysstat": {"hosts": [{"nodename", "date", "statistics":
[{"timestamp", "cpu-load": [{"cpu": "all", "usr": ..., ...}]}]}]}}``; JSON has no averages.

Rows per sample and CPU: ``cpu_usr``, ``cpu_nice``, ``cpu_sys``, ``cpu_iowait``, ``cpu_irq``,
``cpu_soft``, ``cpu_steal``, ``cpu_guest``, ``cpu_gnice``, ``cpu_idle`` (%; older sysstat's
%user/%system map to cpu_usr/cpu_sys), with p_cpu ("all", "0", "1", ...), p_sample (0-based
sample number) and p_time (seconds since the first sample, from the printed timestamps; a
timestamp earlier than the previous one means midnight passed). The "Average:" lines give the
same metrics with the suffix ``_mean`` (p_cpu, no p_time): mpstat computes them from the
tick counts of the whole run, so they are a tick-weighted mean, close to but not exactly the
mean of the samples. higher_is_better is None (utilisation is neither good nor bad by itself).

started_at is the header date with the first sample's time (mpstat stamps a sample at the end
of its interval). mpstat prints local time without a zone: it is stored as UTC, which it is on
the project's runners. Dates: "11/22/26" (C locale, mm/dd/yy), "2026-11-22"
(S_TIME_FORMAT=ISO); times "00:15:01" or "12:15:01 AM". host from "(vm)" / "nodename".

Other mpstat reports (-I interrupts, -n nodes) have columns this parser does not know: their
rows are skipped; text without any CPU utilisation header raises ParseError, as does a data
line whose fields do not match its header. A truncated last line is dropped.
"""

from __future__ import annotations

import json
import re
from datetime import date, datetime, timedelta

import pandas as pd

from overhead.parsers._common import ParseError, Rows, number, numbered

TOOL = "mpstat"
BENCHMARK = "mpstat"

_COLUMNS = {
    "%usr": "cpu_usr", "%user": "cpu_usr", "%nice": "cpu_nice", "%sys": "cpu_sys",
    "%system": "cpu_sys", "%iowait": "cpu_iowait", "%irq": "cpu_irq", "%soft": "cpu_soft",
    "%steal": "cpu_steal", "%guest": "cpu_guest", "%gnice": "cpu_gnice", "%idle": "cpu_idle",
}
_JSON_KEYS = {k[1:]: v for k, v in _COLUMNS.items()}
_BANNER = re.compile(r"^Linux\s+\S+\s+\((?P<host>[^)]*)\)\s+(?P<date>\S+)\s")
_TIME = re.compile(r"^(\d{1,2}):(\d{2}):(\d{2})$")


def detect(text: str) -> float:
    """Tell whether ``text`` is mpstat output.

    Returns a confidence from 0 (not mpstat output) to 1.
    """
    head = text[:20000]
    if '"sysstat"' in head and '"cpu-load"' in head:
        return 1.0
    if re.search(r"^\S+(?:\s+[AP]M)?\s+CPU\s+%usr\s", head, re.M) and "%idle" in head:
        return 1.0
    return 0.0


def _parse_date(token: str) -> date | None:
    """Read the banner's date in the formats mpstat prints; None when it is none of them."""
    for fmt in ("%m/%d/%y", "%Y-%m-%d", "%m/%d/%Y", "%d/%m/%y"):
        try:
            return datetime.strptime(token, fmt).date()
        except ValueError:
            continue
    return None


def _seconds(tokens: list[str]) -> tuple[int, int] | None:
    """Read "HH:MM:SS [AM|PM]": seconds after midnight and tokens used; None if not a time."""
    m = _TIME.match(tokens[0]) if tokens else None
    if not m:
        return None
    h, mi, s = (int(g) for g in m.groups())
    used = 1
    if len(tokens) > 1 and tokens[1] in ("AM", "PM"):
        h = h % 12 + (12 if tokens[1] == "PM" else 0)
        used = 2
    if h > 23 or mi > 59 or s > 60:
        return None
    return h * 3600 + mi * 60 + s, used


class _Clock:
    """Turn successive wall-clock times into seconds since the first sample (midnight-safe)."""

    def __init__(self) -> None:
        self.first: int | None = None
        self.last: int | None = None
        self.days = 0

    def elapsed(self, secs: int) -> int:
        """Return the seconds from the first sample to the one stamped ``secs``."""
        if self.last is not None and secs < self.last:
            self.days += 1
        self.last = secs
        absolute = secs + 86400 * self.days
        if self.first is None:
            self.first = absolute
        return absolute - self.first


def parse(text: str, path: str = "<string>") -> pd.DataFrame:
    """Parse mpstat output (text or JSON) into tidy rows.

    Follows the parser contract of :mod:`overhead.parsers` (text and path in, conformed
    tidy rows out); the rows are described in the module docstring.

    Raises
    ------
    ParseError
        When the text is not mpstat CPU output or a line is malformed.
    """
    if text.lstrip().startswith("{"):
        return _parse_json(text, path)
    return _parse_text(text, path)


def _started(day: date | None, secs: int | None):
    """Combine the banner's day and a sample's time into a UTC timestamp (None if either lacks)."""
    if day is None or secs is None:
        return None
    return pd.Timestamp(datetime.combine(day, datetime.min.time()) + timedelta(seconds=secs), tz="UTC")


def _parse_text(text: str, path: str) -> pd.DataFrame:
    """Parse the text report."""
    rows = Rows(path, benchmark=BENCHMARK, tool=TOOL)
    host = None
    day: date | None = None
    header: list[str] | None = None  # column names after CPU
    clock = _Clock()
    sample = -1
    sample_time: int | None = None  # wall time of the current sample
    cpus_in_sample: set[str] = set()
    first_secs: int | None = None
    seen = False
    lines = list(numbered(text))
    last = max((n for n, line in lines if line.strip()), default=0)
    truncated_tail = not text.endswith("\n")
    for lineno, line in lines:
        tokens = line.split()
        if not tokens:
            continue
        b = _BANNER.match(line)
        if b:
            host = b.group("host")
            day = _parse_date(b.group("date"))
            continue
        average = tokens[0] == "Average:"
        if average:
            rest = tokens[1:]
            secs = None
        else:
            t = _seconds(tokens)
            if t is None:
                continue  # not a report line (banner variants, blank-ish noise)
            secs, used = t
            rest = tokens[used:]
        if not rest:
            continue
        if rest[0] == "CPU":
            names = rest[1:]
            header = names if any(n in _COLUMNS for n in names) else None
            if header is not None:
                seen = True
            continue
        if header is None:
            continue
        if len(rest) != len(header) + 1:
            if lineno == last and truncated_tail:
                continue  # the last line was cut
            raise ParseError(path, lineno, f"expected CPU and {len(header)} values ({' '.join(header)}), found {len(rest)} fields")
        cpu = rest[0]
        if not average:
            if secs != sample_time or cpu in cpus_in_sample:
                sample += 1
                sample_time = secs
                cpus_in_sample = set()
                p_time = clock.elapsed(secs)
                if first_secs is None:
                    first_secs = secs
            cpus_in_sample.add(cpu)
        base = {"p_cpu": cpu}
        if host:
            base["host"] = host
        if not average:
            base.update(p_sample=sample, p_time=p_time)
        for name, token in zip(header, rest[1:], strict=True):
            metric = _COLUMNS.get(name)
            if metric is None:
                continue
            rows.add(lineno, metric + ("_mean" if average else ""),
                     number(token, path, lineno, name), "%", None, token, base)
    if not seen:
        raise ParseError(path, 1, "no mpstat CPU report found (no '<time> CPU %usr ... %idle' header)")
    rows.fill("started_at", _started(day, first_secs))
    return rows.frame()


class _Token(str):
    """A JSON number kept as the text mpstat printed ("0.00", not 0.0)."""


def _parse_json(text: str, path: str) -> pd.DataFrame:
    """Parse the ``-o JSON`` document."""
    try:
        doc = json.loads(text, parse_float=_Token, parse_int=_Token)
    except json.JSONDecodeError as exc:
        raise ParseError(path, exc.lineno, f"invalid or truncated mpstat JSON: {exc.msg}") from None
    try:
        hosts = doc["sysstat"]["hosts"]
    except (KeyError, TypeError):
        raise ParseError(path, 1, "not mpstat JSON (no sysstat.hosts)") from None
    if not isinstance(hosts, list):
        raise ParseError(path, 1, "not mpstat JSON (sysstat.hosts is not a list)")
    rows = Rows(path, benchmark=BENCHMARK, tool=TOOL)
    lines = text.splitlines()
    cursor = 0

    def line_of(needle: str) -> int:
        """Line number of the next occurrence of ``needle`` (JSON keeps the order of samples)."""
        nonlocal cursor
        for i in range(cursor, len(lines)):
            if needle in lines[i]:
                cursor = i + 1
                return i + 1
        return cursor + 1

    for h in hosts:
        if not isinstance(h, dict):
            raise ParseError(path, 1, "mpstat JSON: a host entry is not an object")
        day = _parse_date(str(h.get("date", "")))
        host = h.get("nodename")
        clock = _Clock()
        first_secs = None
        host_start = len(rows)
        stats = h.get("statistics", [])
        if not isinstance(stats, list):
            raise ParseError(path, 1, "mpstat JSON: statistics is not a list")
        for sample, st in enumerate(stats):
            if not isinstance(st, dict) or "cpu-load" not in st:
                continue
            stamp = str(st.get("timestamp", ""))
            lineno = line_of(f'"timestamp": "{stamp}"')
            t = _seconds(stamp.split())
            if t is None:
                raise ParseError(path, lineno, f"mpstat JSON: timestamp {stamp!r} is not HH:MM:SS")
            p_time = clock.elapsed(t[0])
            if first_secs is None:
                first_secs = t[0]
            loads = st["cpu-load"]
            if not isinstance(loads, list):
                raise ParseError(path, lineno, "mpstat JSON: cpu-load is not a list")
            for load in loads:
                if not isinstance(load, dict):
                    raise ParseError(path, lineno, "mpstat JSON: a cpu-load entry is not an object")
                cpu = str(load.get("cpu"))
                ln = line_of(f'"cpu": "{cpu}"')
                for key, metric in _JSON_KEYS.items():
                    if key not in load:
                        continue
                    token = load[key]
                    if not isinstance(token, _Token):
                        raise ParseError(path, ln, f"mpstat JSON: {key} of CPU {cpu} is not a number")
                    rows.add(ln, metric, number(token, path, ln, key), "%", None, token,
                             p_cpu=cpu, p_sample=sample, p_time=p_time,
                             host=str(host) if host else None)
        rows.fill("started_at", _started(day, first_secs), host_start)
    return rows.frame()
