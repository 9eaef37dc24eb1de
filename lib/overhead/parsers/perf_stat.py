"""``perf stat`` counter summaries: the default text report and ``-x,`` CSV (perf 6.1).

Text report (stderr, or the ``-o`` file, which starts with "# started on <date>")::

     Performance counter stats for 'gzip -c /usr/bin/perf' (3 runs):

                219.70 msec task-clock          #    0.996 CPUs utilized   ( +-  0.35% )
                    26      context-switches    #  118.756 /sec            ( +- 25.54% )
       <not supported>      cycles

              0.220560 +- 0.000419 seconds time elapsed  ( +-  0.19% )

           2.105496000 seconds user
           0.063804000 seconds sys

CSV (``-x,``): ``value,unit,event[,variance%],run-time-ns,percent-running,metric,metric-unit``
(the variance field only with ``-r``); CSV has no command line and no elapsed time.

Rows per counted event: the metric is the event name in snake_case with its modifiers
dropped (``task-clock`` -> ``task_clock``, ``cycles:u`` -> ``cycles``); the aliases ``cs``,
``migrations`` and ``faults`` become ``context_switches``, ``cpu_migrations``,
``page_faults``. Units: msec/nsec counters (task-clock, cpu-clock) are converted to s; plain
counts have unit ``count``. Counters in other units (Joules, MiB, ...) are skipped: the data
model has no unit for them. ``<not supported>`` and ``<not counted>`` counters give no row.

Further rows: ``cpus_utilized`` (ratio, the "# N CPUs utilized" note), ``instructions_per_cycle``
(ratio, "# N insn per cycle"), ``elapsed_time``, ``user_time``, ``sys_time`` (s) and, with
``-r N``, ``<metric>_rsd`` (%) from "( +- x% )" (CSV: the variance field). perf's "+-" is the
standard error of the mean over the N runs (stddev_stats() divides the run-to-run variance by
N), so ``_rsd`` is the relative standard error of the mean, not of single runs. With ``-r`` the
counts and times are means of the N runs: those rows carry ``p_runs = N`` and keep their
metric names. The absolute "+- 0.000419" on the elapsed line is not stored (it is
``elapsed_time_rsd`` * ``elapsed_time``).

Parameters: p_event (the event name exactly as printed), p_command (from "Performance counter
stats for 'cmd'"), p_system_wide (True for 'system wide', i.e. ``-a``), p_pid (for "process
id"), p_runs (with -r), p_counter_running (percent of the time the counter ran, when
multiplexed: the text's trailing "(50.01%)" or CSV's percent-running field). started_at from
"# started on" (perf writes local time; stored as UTC, which it is on the project's runners).

Interval mode (``-I``) and per-CPU/per-core aggregation (``-A``, ``--per-core``) are not
supported: ParseError. Text that is not perf stat output raises ParseError; a header without
counters (perf failed to start the command) gives no rows.
"""

from __future__ import annotations

import re
from datetime import datetime

import pandas as pd

from overhead.parsers._common import ParseError, Rows, integer, number, numbered

TOOL = "perf-stat"
BENCHMARK = "perf-stat"

_HEADER = re.compile(
    r"^\s*Performance counter stats for (?:(?P<kind>process id|thread id|CPU\(s\)) )?'(?P<what>.*)'"
    r"(?: \((?P<runs>\d+) runs\))?:\s*$"
)
_NUM = r"[-+]?(?:\d[\d,]*\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_COUNTER = re.compile(
    rf"^\s*(?P<value>{_NUM}|<not supported>|<not counted>)\s+(?:(?P<unit>msec|nsec|usec|sec|Joules|MiB|KiB|GiB)\s+)?"
    r"(?P<event>[^\s#(]+)\s*(?P<rest>.*)$"
)
_NOTE = re.compile(rf"#\s+(?P<value>{_NUM})\s+(?P<what>[^(]*?)\s*(?=\(|$)")
_RSD = re.compile(rf"\(\s*\+-\s*(?P<pct>{_NUM})%\s*\)")
_RUNNING = re.compile(rf"\((?P<pct>{_NUM})%\)\s*$")
_ELAPSED = re.compile(
    rf"^\s*(?P<value>{_NUM})(?:\s+\+-\s+(?P<abs>{_NUM}))?\s+seconds time elapsed"
    rf"(?:\s+\(\s*\+-\s*(?P<pct>{_NUM})%\s*\))?\s*$"
)
_USERSYS = re.compile(rf"^\s*(?P<value>{_NUM})\s+seconds (?P<which>user|sys)\s*$")
_STARTED = re.compile(r"^# started on (.+?)\s*$")
_INTERVAL = re.compile(r"^#\s+time\s+")
_ALIASES = {"cs": "context_switches", "migrations": "cpu_migrations", "faults": "page_faults"}
_TIME_UNITS = {"msec": 1e-3, "nsec": 1e-9, "usec": 1e-6, "sec": 1.0}
_NOTES = {"CPUs utilized": ("cpus_utilized", True), "insn per cycle": ("instructions_per_cycle", True)}


def detect(text: str) -> float:
    """Tell whether ``text`` is perf stat output (text report or -x, CSV).

    Returns a confidence from 0 (not perf stat output) to 1.
    """
    head = text[:20000]
    if "Performance counter stats for" in head:
        return 1.0
    lines = [line for line in head.splitlines() if line.strip() and not line.startswith("#")][:5]
    if lines and all(_csv_fields(line) is not None for line in lines):
        return 0.8
    return 0.0


def metric_name(event: str) -> str:
    """Name the metric of a perf event: snake_case, modifiers (":u") dropped, aliases resolved.

    Parameters
    ----------
    event : str
        The event name as perf prints it ("cycles:u", "cpu/event=0x3c/").

    Returns
    -------
    str
        The metric name.
    """
    base = event.split(":", 1)[0] if not event.startswith(("cpu/", "msr/", "power/")) else event
    name = re.sub(r"[^0-9a-zA-Z]+", "_", base).strip("_").lower()
    return _ALIASES.get(name, name) or "event"


def _started_at(stamp: str):
    """Read perf's "# started on" date as UTC; None when it is not one."""
    try:
        return pd.Timestamp(datetime.strptime(" ".join(stamp.split()), "%a %b %d %H:%M:%S %Y"), tz="UTC")
    except ValueError:
        return None


def _csv_fields(line: str) -> list[str] | None:
    """Split a -x, line into (value, unit, event, variance or None, runtime, pct, ...), or None."""
    parts = line.rstrip("\n").split(",")
    if len(parts) < 6 or not parts[2] or not re.match(r"^[A-Za-z]", parts[2]):
        return None
    if not re.match(r"^[A-Za-z]*$", parts[1]):
        return None  # interval (-I) or per-CPU (-A) lines have a number or "CPU0" first
    if not re.match(rf"^(?:{_NUM}|<not supported>|<not counted>)$", parts[0]):
        return None
    if parts[3].endswith("%"):
        if len(parts) < 7:
            return None
        return parts[:3] + [parts[3]] + parts[4:]
    return parts[:3] + [None] + parts[3:]


def _num(token: str, path: str, lineno: int, what: str) -> float:
    """Read a number perf may print with thousands separators ("1,234,567")."""
    return number(token.replace(",", ""), path, lineno, what)


def parse(text: str, path: str = "<string>") -> pd.DataFrame:
    """Parse perf stat output (text or -x, CSV) into tidy rows.

    Follows the parser contract of :mod:`overhead.parsers` (text and path in, conformed
    tidy rows out); the rows are described in the module docstring.

    Raises
    ------
    ParseError
        For unsupported layouts (-I, -A) or text that is not perf stat output.
    """
    first = next(((n, line) for n, line in numbered(text) if line.strip() and not line.startswith("#")), None)
    if first is not None and "Performance counter stats" not in text and _csv_fields(first[1]) is not None:
        return _parse_csv(text, path)
    return _parse_text(text, path)


def _parse_text(text: str, path: str) -> pd.DataFrame:
    """Parse the text report."""
    rows = Rows(path, benchmark=BENCHMARK, tool=TOOL)
    params: dict = {}
    started = None
    seen = False
    advice = False
    for lineno, line in numbered(text):
        stripped = line.strip()
        if not stripped or advice:
            continue
        m = _STARTED.match(stripped)
        if m:
            started = _started_at(m.group(1))
            continue
        if _INTERVAL.match(stripped):
            raise ParseError(path, lineno, "perf stat interval mode (-I) is not supported")
        h = _HEADER.match(line)
        if h:
            seen = True
            params = {}
            what = h.group("what")
            if h.group("kind") == "process id":
                params["p_pid"] = what
            elif h.group("kind") is not None:
                raise ParseError(path, lineno, f"perf stat for {h.group('kind')} '{what}' is not supported")
            elif what == "system wide":
                params["p_system_wide"] = True
            else:
                params["p_command"] = what
            if h.group("runs"):
                params["p_runs"] = integer(h.group("runs"), path, lineno, "runs")
            continue
        if not seen:
            continue
        e = _ELAPSED.match(line)
        if e:
            rows.add(lineno, "elapsed_time", _num(e.group("value"), path, lineno, "seconds time elapsed"),
                     "s", False, f"{e.group('value')} seconds", params)
            if e.group("pct") is not None:
                rows.add(lineno, "elapsed_time_rsd", _num(e.group("pct"), path, lineno, "elapsed +-%"),
                         "%", False, f"+- {e.group('pct')}%", params)
            continue
        u = _USERSYS.match(line)
        if u:
            rows.add(lineno, f"{u.group('which')}_time",
                     _num(u.group("value"), path, lineno, f"seconds {u.group('which')}"),
                     "s", False, f"{u.group('value')} seconds", params)
            continue
        c = _COUNTER.match(line)
        if not c:
            if stripped.startswith("Some events weren't counted"):
                advice = True  # the NMI watchdog advice that follows quotes shell commands
                continue
            raise ParseError(path, lineno, f"expected '<count> [unit] <event>  # ...', found {stripped!r}")
        if c.group("event")[0].isdigit():
            raise ParseError(path, lineno, "perf stat interval mode (-I) or per-CPU output (-A) is not supported")
        _counter_rows(rows, c.group("value"), c.group("unit") or "", c.group("event"),
                      c.group("rest"), None, lineno, params)
    if not seen:
        raise ParseError(path, 1, "no perf stat output found (no 'Performance counter stats for' line)")
    rows.fill("started_at", started)
    return rows.frame()


def _counter_rows(rows: Rows, value: str, unit: str, event: str, rest: str,
                  variance: str | None, lineno: int, params: dict, running: str | None = None,
                  note: tuple[str, str] | None = None) -> None:
    """Add the rows of one counter line: its value, run-to-run spread and derived note, if any."""
    if value.startswith("<"):
        return  # <not supported> / <not counted>: the counter has no value
    if unit and unit not in _TIME_UNITS:
        return  # Joules, MiB, ...: no canonical unit in the data model
    path = rows.path
    metric = metric_name(event)
    count = _num(value, path, lineno, event)
    extra = dict(params)
    extra["p_event"] = event
    if rest:
        r = _RSD.search(rest)
        if r:
            variance = r.group("pct") + "%"
        m = _RUNNING.search(rest)
        if m and not rest.rstrip().endswith("% )"):
            running = m.group("pct")
        n = _NOTE.search(rest)
        if n:
            note = (n.group("value"), n.group("what"))
    if running is not None:
        extra["p_counter_running"] = _num(running, path, lineno, "percent running")
    if unit:
        rows.add(lineno, metric, count * _TIME_UNITS[unit], "s", False, f"{value} {unit}", extra)
    else:
        rows.add(lineno, metric, count, "count", None, value, extra)
    if variance:
        pct = _num(variance.rstrip("%"), path, lineno, "variance")
        rows.add(lineno, f"{metric}_rsd", pct, "%", False, f"+- {variance}", extra)
    if note and note[1].strip() in _NOTES:
        name, hib = _NOTES[note[1].strip()]
        rows.add(lineno, name, _num(note[0], path, lineno, note[1]), "ratio",
                 hib if name != "cpus_utilized" else None, f"{note[0]} {note[1].strip()}", extra)


def _parse_csv(text: str, path: str) -> pd.DataFrame:
    """Parse ``-x,`` CSV output."""
    rows = Rows(path, benchmark=BENCHMARK, tool=TOOL)
    for lineno, line in numbered(text):
        if not line.strip() or line.startswith("#"):
            continue
        f = _csv_fields(line)
        if f is None:
            raise ParseError(path, lineno, "expected a perf stat -x, line 'value,unit,event,[variance%,]runtime,percent,...'")
        value, unit, event, variance, _runtime, pct = f[:6]
        note = (f[6], f[7]) if len(f) >= 8 and f[6] and f[7] else None
        if value.startswith("<"):
            continue
        running = pct if pct and pct != "100.00" else None
        _counter_rows(rows, value, unit, event, "", variance, lineno, {}, running=running, note=note)
    return rows.frame()
