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

Interrupts (``-I SUM``, ``-I CPU``, ``-I SCPU``, ``-I ALL``, text and JSON; rates per second,
unit Hz, as vmstat's and dstat's ``interrupts``), per sample and CPU (p_cpu, p_sample,
p_time as above): ``interrupts`` (the "intr/s" table, JSON "sum-interrupts": all interrupts
of the CPU, or of all CPUs for p_cpu "all"); ``interrupts_by_irq`` with p_irq (the "-I CPU"
table, JSON "individual-interrupts": one column per line of /proc/interrupts, "24/s",
"LOC/s"... -> p_irq "24", "LOC"); ``softirqs`` with p_softirq (the "-I SCPU" table, JSON
"soft-interrupts": "NET_RX/s" -> p_softirq "NET_RX"). In the text, a per-CPU table is the
softirq one when all its columns are softirq names (HI, TIMER, NET_TX, NET_RX, BLOCK,
BLOCK_IOPOLL, IRQ_POLL, TASKLET, SCHED, HRTIMER, RCU), else the per-IRQ one. The "Average:"
tables give the same metrics with the suffix ``_mean``.

Other mpstat reports (-n nodes, -A's other blocks) have columns this parser does not know:
their rows are skipped; text without any CPU utilisation or interrupt header raises
ParseError, as does a data line whose fields do not match its header.

The closing section (issue 26): mpstat ends its text report with the "Average:" tables when it
has made its count of reports or got SIGINT (Ctrl-C); killed otherwise (SIGTERM, SIGKILL) or
captured only in part, the samples stop without them. A report whose sampled CPUs do not all
have their "Average:" line, or whose last line was cut mid-line (no line end, too few fields:
that line is not read), keeps its sample rows and is marked cut short
(:func:`~overhead.parsers._common.cut_short`). A JSON document has no averages; it is whole or
a ParseError (mpstat closes it on SIGINT as at its count).

Failed runs: mpstat writes its first report after one interval; killed before it, the output
is the banner alone (text) or the JSON header up to ``"statistics": [`` (with SIGINT as with
SIGTERM): both raise RunFailed. The banner is iostat's too, but iostat follows it with a blank
line at once while mpstat writes a newline only before a report: a banner and one newline is
mpstat's for detect(), a banner without its newline a tie it refuses. The JSON header is byte
for byte iostat's (``iostat -y -o JSON`` killed early): detect() prefers mpstat, which always
waits an interval before its first report.
"""

from __future__ import annotations

import json
import re
from datetime import date, datetime, timedelta

import pandas as pd

from overhead.parsers._common import ParseError, Rows, RunFailed, cut_short, number, numbered
from overhead.parsers.iostat import banner_only, json_header_only, sysstat_hosts

TOOL = "mpstat"
BENCHMARK = "mpstat"

_COLUMNS = {
    "%usr": "cpu_usr", "%user": "cpu_usr", "%nice": "cpu_nice", "%sys": "cpu_sys",
    "%system": "cpu_sys", "%iowait": "cpu_iowait", "%irq": "cpu_irq", "%soft": "cpu_soft",
    "%steal": "cpu_steal", "%guest": "cpu_guest", "%gnice": "cpu_gnice", "%idle": "cpu_idle",
}
_JSON_KEYS = {k[1:]: v for k, v in _COLUMNS.items()}
_BANNER = re.compile(r"^Linux\s+\S+\s+\((?P<host>[^)]*)\)\s+(?P<date>\S+)\s")
_FULL_BANNER = re.compile(r"^Linux\s+\S+\s+\([^)]*\)\s+\S+\s+\S+\s+\(\d+ CPU\)\s*$")
_TIME = re.compile(r"^(\d{1,2}):(\d{2}):(\d{2})$")
_JSON_REPORTS = ("cpu-load", "sum-interrupts", "individual-interrupts", "soft-interrupts")
#: softirq names of /proc/softirqs (the columns of "mpstat -I SCPU")
_SOFTIRQS = {"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "BLOCK_IOPOLL", "IRQ_POLL", "TASKLET",
             "SCHED", "HRTIMER", "RCU"}


def detect(text: str) -> float:
    """Tell whether ``text`` is mpstat output.

    Returns a confidence from 0 (not mpstat output) to 1.
    """
    head = text[:20000]
    if '"sysstat"' in head and any(f'"{k}"' in head for k in _JSON_REPORTS):
        return 1.0
    if re.search(r"^\S+(?:\s+[AP]M)?\s+CPU\s+%usr\s", head, re.M) and "%idle" in head:
        return 1.0
    if re.search(r"^\S+(?:\s+[AP]M)?\s+CPU\s+intr/s\s*$", head, re.M):
        return 1.0
    if re.search(r"^\S+(?:\s+[AP]M)?\s+CPU(?:\s+\S+/s)+\s*$", head, re.M) and _FULL_BANNER.match(
            head.split("\n", 1)[0]):
        return 1.0  # the -I CPU and -I SCPU tables
    if json_header_only(text):
        return 0.1  # the JSON header alone: iostat's is the same, but iostat rarely leaves it
    return {"mpstat": 0.5, "either": 0.1}.get(banner_only(text), 0.0)


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


def _table(names: list[str]) -> str | None:
    """Tell what a "CPU ..." header's table holds: "cpu", "sum", "irq", "softirq" or None."""
    if any(n in _COLUMNS for n in names):
        return "cpu"
    if names == ["intr/s"]:
        return "sum"
    if names and all(n.endswith("/s") and len(n) > 2 for n in names):
        return "softirq" if all(n[:-2] in _SOFTIRQS for n in names) else "irq"
    return None


def _add_text_values(rows: Rows, table: str, header: list[str], rest: list[str], base: dict,
                     suffix: str, path: str, lineno: int) -> None:
    """Add the rows of one data line of a table of kind ``table``."""
    if table == "cpu":
        for name, token in zip(header, rest[1:], strict=True):
            metric = _COLUMNS.get(name)
            if metric is not None:
                rows.add(lineno, metric + suffix, number(token, path, lineno, name), "%", None,
                         token, base)
        return
    if table == "sum":
        token = rest[1]
        rows.add(lineno, "interrupts" + suffix, number(token, path, lineno, "intr/s"), "Hz", None,
                 token, base)
        return
    metric, param = ("softirqs", "p_softirq") if table == "softirq" else ("interrupts_by_irq", "p_irq")
    for name, token in zip(header, rest[1:], strict=True):
        rows.add(lineno, metric + suffix, number(token, path, lineno, name), "Hz", None, token,
                 base, **{param: name[:-2]})


def _parse_text(text: str, path: str) -> pd.DataFrame:
    """Parse the text report."""
    rows = Rows(path, benchmark=BENCHMARK, tool=TOOL)
    host = None
    banner: str | None = None
    day: date | None = None
    header: list[str] | None = None  # column names after CPU
    table: str | None = None  # what the current header's table holds (see _table)
    clock = _Clock()
    sample = -1
    sample_time: int | None = None  # wall time of the current sample
    cpus_in_table: set[str] = set()  # CPUs of the current table (a new sample when one repeats)
    first_secs: int | None = None
    seen = False
    lines = list(numbered(text))
    last = max((n for n, line in lines if line.strip()), default=0)
    truncated_tail = not text.endswith("\n")
    p_time = None
    sampled: dict[tuple, set[str]] = {}  # table (its header) -> CPUs with sample lines
    averaged: dict[tuple, set[str]] = {}  # table -> CPUs with "Average:" lines
    dropped: int | None = None  # the unterminated last line, when it was cut
    for lineno, line in lines:
        tokens = line.split()
        if not tokens:
            continue
        b = _BANNER.match(line)
        if b:
            host = b.group("host")
            day = _parse_date(b.group("date"))
            banner = " ".join(tokens)
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
            header = rest[1:]
            table = _table(header)
            cpus_in_table = set()
            if table is not None:
                seen = True
            continue
        if table is None:
            continue
        if len(rest) != len(header) + 1:
            if lineno == last and truncated_tail:
                dropped = lineno
                continue  # the last line was cut
            raise ParseError(path, lineno, f"expected CPU and {len(header)} values ({' '.join(header)}), found {len(rest)} fields")
        cpu = rest[0]
        (averaged if average else sampled).setdefault(tuple(header), set()).add(cpu)
        if not average:
            if secs != sample_time or cpu in cpus_in_table:
                sample += 1
                sample_time = secs
                p_time = clock.elapsed(secs)
                if first_secs is None:
                    first_secs = secs
                cpus_in_table = set()
            cpus_in_table.add(cpu)
        base = {"p_cpu": cpu}
        if host:
            base["host"] = host
        if not average:
            base.update(p_sample=sample, p_time=p_time)
        _add_text_values(rows, table, header, rest, base, "_mean" if average else "", path, lineno)
    if not seen:
        if banner is not None and banner_only(text) is not None:
            raise RunFailed(path, None, f"only the banner {banner!r}, no report")
        raise ParseError(path, None, "no mpstat CPU report found (no '<time> CPU %usr ... %idle' or "
                         "'<time> CPU intr/s' header)")
    rows.fill("started_at", _started(day, first_secs))
    df = rows.frame()
    if dropped is not None:
        return cut_short(df, path, dropped, "the last line has no line end and too few fields "
                         "(the capture stopped mid-line): it is not read, the samples before "
                         "it are kept")
    missing = [cpu for table, cpus in sampled.items() for cpu in sorted(cpus)
               if cpu not in averaged.get(table, ())]
    if missing and len(df):
        # mpstat writes its "Average:" tables when it has made its count of reports or got
        # SIGINT; without them it was killed (SIGTERM, SIGKILL) or the capture was cut
        return cut_short(df, path, None, "the report ends before mpstat's closing 'Average:' "
                         f"lines (none for CPU {', '.join(missing[:4])}"
                         f"{', ...' if len(missing) > 4 else ''}): the samples read are kept")
    return df


class _Token(str):
    """A JSON number kept as the text mpstat printed ("0.00", not 0.0)."""


def _parse_json(text: str, path: str) -> pd.DataFrame:
    """Parse the ``-o JSON`` document."""
    try:
        doc = json.loads(text, parse_float=_Token, parse_int=_Token)
    except json.JSONDecodeError as exc:
        if json_header_only(text):
            raise RunFailed(path, None, "the JSON document ends after its header "
                            "('\"statistics\": ['), before any report") from None
        raise ParseError(path, exc.lineno, f"invalid or truncated mpstat JSON: {exc.msg}") from None
    hosts = sysstat_hosts(doc, path, TOOL)
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
            if not isinstance(st, dict) or not any(k in st for k in _JSON_REPORTS):
                continue
            stamp = str(st.get("timestamp", ""))
            lineno = line_of(f'"timestamp": "{stamp}"')
            t = _seconds(stamp.split())
            if t is None:
                raise ParseError(path, lineno, f"mpstat JSON: timestamp {stamp!r} is not HH:MM:SS")
            p_time = clock.elapsed(t[0])
            if first_secs is None:
                first_secs = t[0]
            base = {"p_sample": sample, "p_time": p_time, "host": str(host) if host else None}
            for report in (k for k in st if k in _JSON_REPORTS):
                lineno = line_of(f'"{report}"')
                entries = st[report]
                if not isinstance(entries, list):
                    raise ParseError(path, lineno, f"mpstat JSON: {report} is not a list")
                for entry in entries:
                    if not isinstance(entry, dict):
                        raise ParseError(path, lineno, f"mpstat JSON: a {report} entry is not an object")
                    cpu = str(entry.get("cpu"))
                    ln = line_of(f'"cpu": "{cpu}"')
                    lineno = ln
                    _add_json_entry(rows, report, entry, cpu, ln, line_of, base, path)
        rows.fill("started_at", _started(day, first_secs), host_start)
    return rows.frame()


def _add_json_entry(rows: Rows, report: str, entry: dict, cpu: str, ln: int, line_of, base: dict,
                    path: str) -> None:
    """Add the rows of one CPU's entry of a JSON report (cpu-load or an interrupts list)."""
    if report == "cpu-load":
        for key, metric in _JSON_KEYS.items():
            if key not in entry:
                continue
            token = entry[key]
            if not isinstance(token, _Token):
                raise ParseError(path, ln, f"mpstat JSON: {key} of CPU {cpu} is not a number")
            rows.add(ln, metric, number(token, path, ln, key), "%", None, token, base, p_cpu=cpu)
        return
    intr = entry.get("intr")
    if report == "sum-interrupts":
        if not isinstance(intr, _Token):
            raise ParseError(path, ln, f"mpstat JSON: intr of CPU {cpu} is not a number")
        rows.add(ln, "interrupts", number(intr, path, ln, "intr"), "Hz", None, intr, base, p_cpu=cpu)
        return
    if not isinstance(intr, list):
        raise ParseError(path, ln, f"mpstat JSON: intr of CPU {cpu} in {report} is not a list")
    metric, param = (("softirqs", "p_softirq") if report == "soft-interrupts"
                     else ("interrupts_by_irq", "p_irq"))
    for item in intr:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise ParseError(path, ln, f"mpstat JSON: an interrupt of CPU {cpu} without its name")
        name = item["name"]
        il = line_of(f'"name": "{name}"')
        token = item.get("value")
        if not isinstance(token, _Token):
            raise ParseError(path, il, f"mpstat JSON: value of {name} (CPU {cpu}) is not a number")
        rows.add(il, metric, number(token, path, il, name), "Hz", None, token, base, p_cpu=cpu,
                 **{param: name})
