"""``perf stat`` counter summaries: the text report, ``-x`` CSV and ``-j`` JSON (perf 6.1).

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

**-j** (JSON, one object per line: ``{"counter-value" : "204.813062", "unit" : "msec",
"event" : "task-clock", ["variance" : 0.28,] "event-runtime" : ..., "pcnt-running" : 100.00,
"metric-value" : ..., "metric-unit" : ...}``) gives the same counter, ``_rsd`` and
p_counter_running rows; its "metric-value" is not read (perf 6.1 -j printed 0.68 "CPUs
utilized" where the text report of the same command prints 0.97). -j has no elapsed time.

**Hybrid CPUs** (Intel P/E cores) print one line per core type: ``cpu_core/cycles/``,
``cpu_atom/instructions/u``. The metric is the event's (``cycles``, ``instructions``), the core
type is ``p_pmu`` (cpu_core, cpu_atom; absent on other events) and ``p_event`` keeps the name
as printed, so aggregate per p_pmu.

**Locales.** perf formats numbers with the C library's LC_NUMERIC: ``1,234,567`` and ``215.63
msec`` in C/en, ``1.234.567`` and ``205,34 msec`` under de_DE, ``1,37,80,113`` under en_IN.
Counts are whole numbers, so their separators are always thousands separators. The decimal
mark of the other values is decided from evidence in the file: a value perf prints with a
fixed number of decimals other than 3 (msec/usec/nsec counters with 2, percentages with 2,
the elapsed/user/sys seconds with 9 or 6), or one holding both marks ("1.101,01"), shows it;
the whole file must agree (a contradiction raises at the line that disagrees). With no
evidence, a non-count value holding "." or "," (e.g. "1.234 msec", which is 1.234 ms with a
decimal point and 1234 ms with a decimal comma) raises ParseError instead of being guessed.
-x CSV under a decimal-comma locale: with ``-x,`` each decimal number spans two fields
("202,83,msec,task-clock,202834197,100,00,1,CPUs utilized"), which the parser rejoins (the
percentage running always has 2 decimals); with ``-x';'`` the fields are clean. There perf
prints the metric ("1,CPUs utilized") rounded to a whole number, so it is not read. -j under
de_DE is not valid JSON ("pcnt-running" : 100,00): -j lines are read pair by pair.

**Continuation lines.** A metric perf prints on a line of its own under its counter
(``#    0.03  stalled cycles per insn`` under ``instructions``, whenever a stalled-cycles event
is counted) gives ``stalled_cycles_per_instruction`` (ratio, lower is better) with the
counter's p_event; other such lines (percentages of other counters) give no row.

**Several reports in one file** (``-o`` files appended with ``cat >>``, each with its own
"# started on", or reports joined by ``---`` lines): every report gives its rows with its own
started_at and parameters, and ``p_report`` (1, 2, ...) tells them apart when there is more
than one.

**Cut short.** perf ends every text report with "seconds time elapsed" (also when the command
is interrupted), followed by "seconds user" and "seconds sys" when it ran a command. A report whose counters are not followed by that line is a capture cut
short: the counters read are kept and the frame is marked cut short
(:func:`~overhead.parsers._common.cut_short`), never returned as a complete run. A report
with a header and nothing after it (perf failed to start the command) gives no rows.
CSV and -j output have no closing line: a cut there is seen when it breaks a line, and in a
run of perf's default events, which perf 6.1 prints in a fixed order (task-clock,
context-switches, cpu-migrations, page-faults, cycles, [stalled-cycles-frontend,
stalled-cycles-backend,] instructions, branches, branch-misses; builtin-stat.c
default_attrs0/1): a report whose events begin as that list does (its first three) and stop
before branch-misses is cut short. Events chosen with ``-e`` in exactly that order and
stopping early would be taken for such a cut; any other choice is read as given.

Interval mode (``-I``) and per-CPU/per-core aggregation (``-A``, ``--per-core``) are not
supported: ParseError. Text that is not perf stat output raises ParseError; a header without
counters (perf failed to start the command) gives no rows.
"""

from __future__ import annotations

import re
from datetime import datetime

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

TOOL = "perf-stat"
BENCHMARK = "perf-stat"

_HEADER = re.compile(
    r"^\s*Performance counter stats for (?:(?P<kind>process id|thread id|CPU\(s\)) )?'(?P<what>.*)'"
    r"(?: \((?P<runs>\d+) runs\))?:\s*$"
)
_NUM = r"[-+]?(?:\d[\d.,]*|[.,]\d+)(?:[eE][-+]?\d+)?"
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
_PMU = re.compile(r"^(?P<pmu>cpu_[a-z]+)/(?P<name>[A-Za-z][\w.-]*)/(?P<mods>[a-zA-Z]*)$")
_JSON_PAIR = re.compile(r'\s*"([^"\\]+)"\s*:\s*(?:"((?:[^"\\]|\\.)*)"|(-?[0-9]+(?:[.,][0-9]+)?))\s*(,|\}$)')
_CSV_COMMA = re.compile(  # a -x, line printed with decimal commas: the value may hold one
    r"^(?P<value>[0-9.]+(?:,[0-9]+)?|<not supported>|<not counted>),(?P<unit>[A-Za-z]*),"
    r"(?P<event>[A-Za-z][^,]*),(?P<rest>.*)$")
_NOTES = {"CPUs utilized": ("cpus_utilized", True), "insn per cycle": ("instructions_per_cycle", True),
          "stalled cycles per insn": ("stalled_cycles_per_instruction", False)}
#: A metric perf prints on a line of its own under the counter it derives from (no count, no
#: event name): ``#    0.03  stalled cycles per insn`` under ``instructions`` whenever a
#: stalled-cycles event is counted.
_CONTINUATION = re.compile(rf"^\s+#\s+(?P<value>{_NUM})\s+(?P<what>[^(]*?)\s*(?:\(.*)?$")
#: The line some users put between reports appended to one file (``echo ---``).
_SEPARATOR = re.compile(r"^-{3,}$")


def detect(text: str) -> float:
    """Tell whether ``text`` is perf stat output (text report or -x, CSV).

    Returns a confidence from 0 (not perf stat output) to 1.
    """
    head = text[:20000]
    if "Performance counter stats for" in head:
        return 1.0
    lines = [line for line in head.splitlines() if line.strip() and not line.startswith("#")][:5]
    if lines and lines[0].lstrip().startswith('{"counter-value"') and '"event"' in lines[0]:
        return 1.0
    if lines and all(_csv_split(line) is not None for line in lines):
        return 0.8
    if lines and (lines[0].startswith("Workload failed: ") or (
            lines[0].startswith("event syntax error: ") and "perf list" in head)):
        return 0.5  # perf stat's own failure, before any report
    return 0.0


#: How perf stat says it measured nothing: the workload did not start ("Workload failed: No
#: such file or directory"), an event it cannot count ("event syntax error: 'x'"), or its
#: "Error:" block (e.g. perf_event_paranoid)
_FAILED = re.compile(r"^(?:Workload failed: .*|event syntax error: .*|Error:.*)$")


def _failure(text: str) -> tuple[int, str] | None:
    """Find perf stat's own failure message in ``text``: (line, message) or None."""
    for lineno, line in numbered(text):
        if _FAILED.match(line.strip()):
            return lineno, line.strip()
    return None


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
    m = _PMU.match(event)
    if m:  # a hybrid CPU's core type: cpu_core/cycles/u -> cycles (p_pmu says cpu_core)
        event = m.group("name")
    base = event.split(":", 1)[0] if not event.startswith(("cpu/", "msr/", "power/")) else event
    name = re.sub(r"[^0-9a-zA-Z]+", "_", base).strip("_").lower()
    return _ALIASES.get(name, name) or "event"


def pmu_of(event: str) -> str | None:
    """Give the core type of a hybrid CPU's event (``cpu_core``, ``cpu_atom``), else None."""
    m = _PMU.match(event)
    return m.group("pmu") if m else None


def _started_at(stamp: str):
    """Read perf's "# started on" date as UTC; None when it is not one."""
    try:
        return pd.Timestamp(datetime.strptime(" ".join(stamp.split()), "%a %b %d %H:%M:%S %Y"), tz="UTC")
    except ValueError:
        return None


def _csv_fields(line: str, sep: str = ",") -> list[str] | None:
    """Split a -x line into (value, unit, event, variance or None, runtime, pct, ...), or None."""
    parts = line.rstrip("\n").split(sep)
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


def _csv_comma(line: str) -> list[str] | None:
    """Split a -x, line printed with decimal commas (LC_NUMERIC=de_DE), or None.

    Each number with decimals spans two fields there ("202,83,msec,task-clock,202834197,100,00,
    1,CPUs utilized"): the value (one field for a count, two for msec), the variance ("0,35%",
    with -r), the run time (one), the percentage running (always two: perf prints 2
    decimals), then the metric, whose fields cannot be told from its unit's: it is dropped.
    """
    m = _CSV_COMMA.match(line.rstrip("\n"))
    if not m:
        return None
    rest = m.group("rest").split(",")
    variance = None
    if len(rest) >= 2 and rest[0].isdigit() and rest[1][:-1].isdigit() and rest[1].endswith("%"):
        variance, rest = f"{rest[0]},{rest[1]}", rest[2:]
    if len(rest) < 3 or not rest[0].isdigit() or not (rest[1].isdigit() and rest[2].isdigit()):
        return None
    return [m.group("value"), m.group("unit"), m.group("event"), variance, rest[0],
            f"{rest[1]},{rest[2]}"]


def _csv_split(line: str) -> tuple[str, str] | None:
    """Tell which -x layout a line is in: ("," or ";", "." or "," decimal mark), or None."""
    if _csv_fields(line, ";") is not None:
        return ";", ","  if re.search(r"\d,\d", line) else "."
    f = _csv_fields(line)
    if f is not None and re.fullmatch(r"\d+\.\d+", f[5] or ""):  # "100.00": perf's 2 decimals
        return ",", "."
    if _csv_comma(line) is not None:
        return ",", ","
    return None


def _mark(token: str) -> str | None:
    """Say which decimal mark a number perf printed with decimals shows, if it shows one.

    Both "." and "," in it: the last is the decimal mark ("1.101,01", "1,512.44"). One kind:
    a decimal mark unless exactly 3 digits follow its last occurrence (then it may be a
    thousands separator: "1.234" is 1.234 in C/en and 1234 in de_DE).
    """
    last = max(token.rfind("."), token.rfind(","))
    if last < 0:
        return None
    if "." in token and "," in token:
        return token[last]
    digits = len(token) - last - 1
    return None if digits == 3 else token[last]


def _num(token: str, path: str, lineno: int, what: str, style: str | None = ".",
         count: bool = False) -> float:
    """Read a number as perf printed it under the file's decimal mark ``style``.

    ``count``: an event count, which perf prints as a whole number with thousands
    separators ("1,234,567"; "1.234.567" under de_DE; "1,37,80,113" under en_IN), whatever
    the decimal mark. Other values (times, percentages, ratios) are read with ``style`` ("."
    or ","); with ``style`` None (the file shows no decimal mark) a value holding "." or ","
    cannot be read without guessing and raises.
    """
    tok = token.strip()
    if count:
        if "." in tok and "," in tok:
            raise ParseError(path, lineno, f"{what}: {token!r} is not a count perf prints")
        if style is not None and style in tok:  # a count with the file's decimal mark
            raise ParseError(path, lineno, f"{what}: expected a whole count, found {token!r} "
                             f"(the file's decimal mark is a {_MARKS[style]})")
        return number(tok.replace(",", "").replace(".", ""), path, lineno, what)
    if style is None:
        if "." in tok or "," in tok:
            raise ParseError(path, lineno, f"{what}: {token!r} reads differently with a decimal "
                             "point and with a decimal comma, and nothing else in the file "
                             "shows which one perf used")
        return number(tok, path, lineno, what)
    group = "," if style == "." else "."
    return number(tok.replace(group, "").replace(",", "."), path, lineno, what)


def _style(marks: list[tuple[int, str]], path: str) -> str | None:
    """Decide the file's decimal mark from ``(line, mark)`` evidence; raise on a contradiction."""
    if not marks:
        return None
    first_line, first = marks[0]
    for lineno, mark in marks:
        if mark != first:
            raise ParseError(path, lineno, f"numbers printed with a decimal {_MARKS[mark]} here, "
                             f"with a decimal {_MARKS[first]} on line {first_line}")
    return first


_MARKS = {".": "point", ",": "comma"}


def _text_marks(text: str) -> list[tuple[int, str]]:
    """Collect the decimal marks shown by the text report's non-count values."""
    marks = []
    for lineno, line in numbered(text):
        tokens = []
        e = _ELAPSED.match(line) or _USERSYS.match(line)
        if e:
            tokens.append(e.group("value"))
            if "pct" in e.groupdict() and e.group("pct"):
                tokens.append(e.group("pct"))
        else:
            c = _COUNTER.match(line)
            if not c:
                continue
            if c.group("unit") and not c.group("value").startswith("<"):
                tokens.append(c.group("value"))
            rest = c.group("rest")
            for rx in (_RSD, _RUNNING):
                m = rx.search(rest)
                if m:
                    tokens.append(m.group("pct"))
            n = _NOTE.search(rest)
            if n:
                tokens.append(n.group("value"))
        for tok in tokens:
            mark = _mark(tok)
            if mark:
                marks.append((lineno, mark))
    return marks


def parse(text: str, path: str = "<string>") -> pd.DataFrame:
    """Parse perf stat output (text, -x CSV or -j JSON lines) into tidy rows.

    Follows the parser contract of :mod:`overhead.parsers` (text and path in, conformed
    tidy rows out); the rows are described in the module docstring.

    Raises
    ------
    ParseError
        For unsupported layouts (-I, -A), text that is not perf stat output, or numbers whose
        decimal mark the file does not settle.
    """
    first = next(((n, line) for n, line in numbered(text) if line.strip() and not line.startswith("#")), None)
    if first is not None and first[1].lstrip().startswith('{"counter-value"'):
        return _parse_json(text, path)
    if first is not None and "Performance counter stats" not in text and _csv_split(first[1]) is not None:
        return _parse_csv(text, path)
    return _parse_text(text, path)


def _parse_text(text: str, path: str) -> pd.DataFrame:
    """Parse the text report (one or more reports, each with its own header)."""
    rows = Rows(path, benchmark=BENCHMARK, tool=TOOL)
    style = _style(_text_marks(text), path)
    params: dict = {}
    started = None
    #: per report: [header line, its started_at, first row, counter line or None, elapsed seen]
    reports: list[list] = []
    advice = False
    last_counter: tuple[dict, int] | None = None  # the extra params and line of the last counter
    for lineno, line in numbered(text):
        stripped = line.strip()
        if not stripped:
            continue
        m = _STARTED.match(stripped)
        if m:
            started = _started_at(m.group(1))
            advice = False
            continue
        h = _HEADER.match(line)
        if h:
            advice = False
            last_counter = None
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
            reports.append([lineno, started, len(rows), None, False])
            started = None
            continue
        if advice:
            continue
        if _INTERVAL.match(stripped):
            raise ParseError(path, lineno, "perf stat interval mode (-I) is not supported")
        if not reports:
            continue
        if _SEPARATOR.match(stripped) and reports[-1][4] is True:
            continue  # "---" between two reports
        e = _ELAPSED.match(line)
        if e:
            reports[-1][4] = True
            rows.add(lineno, "elapsed_time", _num(e.group("value"), path, lineno, "seconds time elapsed", style),
                     "s", False, f"{e.group('value')} seconds", params)
            if e.group("pct") is not None:
                rows.add(lineno, "elapsed_time_rsd", _num(e.group("pct"), path, lineno, "elapsed +-%", style),
                         "%", False, f"+- {e.group('pct')}%", params)
            continue
        u = _USERSYS.match(line)
        if u:
            # perf prints "seconds user" then "seconds sys" after the elapsed line: the report
            # ends with "sys" when it has "user"
            reports[-1][4] = u.group("which") == "sys" or ("user", lineno)
            rows.add(lineno, f"{u.group('which')}_time",
                     _num(u.group("value"), path, lineno, f"seconds {u.group('which')}", style),
                     "s", False, f"{u.group('value')} seconds", params)
            continue
        k = _CONTINUATION.match(line)
        if k and last_counter is not None and reports[-1][4] is False:
            what = k.group("what").strip()
            if what in _NOTES:
                name, hib = _NOTES[what]
                rows.add(lineno, name, _num(k.group("value"), path, lineno, what, style), "ratio",
                         hib, f"{k.group('value')} {what}", last_counter[0])
            continue
        c = _COUNTER.match(line)
        if not c:
            if stripped.startswith("Some events weren't counted"):
                advice = True  # the NMI watchdog advice that follows quotes shell commands
                continue
            raise ParseError(path, lineno, f"expected '<count> [unit] <event>  # ...', found {stripped!r}")
        if c.group("event")[0].isdigit():
            raise ParseError(path, lineno, "perf stat interval mode (-I) or per-CPU output (-A) is not supported")
        if reports[-1][4] is not False:
            raise ParseError(path, lineno, "a counter after 'seconds time elapsed' (expected a new "
                             "'Performance counter stats for' header)")
        reports[-1][3] = reports[-1][3] or lineno
        last_counter = (_counter_rows(rows, c.group("value"), c.group("unit") or "", c.group("event"),
                                      c.group("rest"), None, lineno, params, style=style), lineno)
    if not reports:
        failed = _failure(text)
        if failed is not None:  # perf's own message: the workload or an event could not start
            raise RunFailed(path, *failed)
        raise ParseError(path, None, "no perf stat output found (no 'Performance counter stats for' line)")
    several = len(reports) > 1
    for i, (_, stamp, first, _, _) in enumerate(reports):
        stop = reports[i + 1][2] if i + 1 < len(reports) else len(rows)
        rows.fill("started_at", stamp, first, stop)
        if several:
            rows.fill("p_report", i + 1, first, stop)
    df = rows.frame()
    unfinished = [r for r in reports if r[3] is not None and r[4] is not True]
    if unfinished and not df.empty:
        header, _, _, counter, _ = unfinished[0]
        which = f"the report of line {header}" if several else "the report"
        if isinstance(unfinished[0][4], tuple):
            return cut_short(df, path, unfinished[0][4][1], f"{which} has 'seconds user' but no "
                             "'seconds sys' line after it: the capture ends before perf's "
                             "closing lines; the rest is kept")
        return cut_short(df, path, None, f"{which} has counters (from line {counter}) but no "
                         "'seconds time elapsed' line: the capture ends before perf's closing "
                         "lines; the counters read are kept")
    return df


def _counter_rows(rows: Rows, value: str, unit: str, event: str, rest: str,
                  variance: str | None, lineno: int, params: dict, running: str | None = None,
                  note: tuple[str, str] | None = None, style: str | None = ".",
                  whole: bool = True) -> dict | None:
    """Add the rows of one counter line: its value, run-to-run spread and derived note, if any.

    ``whole``: counts are printed as whole numbers (text, CSV); -j prints them "%f". Returns the
    counter's parameters (for a metric on a continuation line), None when it gave no row.
    """
    if value.startswith("<"):
        return None  # <not supported> / <not counted>: the counter has no value
    if unit and unit not in _TIME_UNITS:
        return None  # Joules, MiB, ...: no canonical unit in the data model
    path = rows.path
    metric = metric_name(event)
    count = _num(value, path, lineno, event, style, count=whole and not unit)
    extra = dict(params)
    extra["p_event"] = event
    pmu = pmu_of(event)
    if pmu is not None:
        extra["p_pmu"] = pmu
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
        extra["p_counter_running"] = _num(running, path, lineno, "percent running", style)
    if unit:
        rows.add(lineno, metric, count * _TIME_UNITS[unit], "s", False, f"{value} {unit}", extra)
    else:
        rows.add(lineno, metric, count, "count", None, value, extra)
    if variance:
        pct = _num(variance.rstrip("%"), path, lineno, "variance", style)
        rows.add(lineno, f"{metric}_rsd", pct, "%", False, f"+- {variance}", extra)
    if note and note[1].strip() in _NOTES:
        name, hib = _NOTES[note[1].strip()]
        rows.add(lineno, name, _num(note[0], path, lineno, note[1], style), "ratio",
                 hib if name != "cpus_utilized" else None, f"{note[0]} {note[1].strip()}", extra)
    return extra


#: perf 6.1's default events, in the order perf stat prints them (builtin-stat.c
#: default_attrs0, frontend_attrs, backend_attrs, default_attrs1)
_DEFAULT_EVENTS = ("task-clock", "context-switches", "cpu-migrations", "page-faults", "cycles",
                   "stalled-cycles-frontend", "stalled-cycles-backend", "instructions",
                   "branches", "branch-misses")


def _default_events_cut(events: list[tuple[int, str]]) -> tuple[int, str] | None:
    """Find a -x/-j report of perf's default events that stops before its last one.

    ``events`` are (line, event as printed) of every counter line, ``<not supported>`` ones
    included. The last report (from the last ``task-clock``) is a default one when its first
    three events are perf's first three; it is whole when it reaches ``branch-misses`` (of
    every core type). Returns (line, what) of a cut one, or None.
    """
    names = [(n, e.split("/")[1] if e.count("/") >= 2 else e) for n, e in events]
    starts = [i for i, (_, e) in enumerate(names) if e == "task-clock"]
    if not starts:
        return None
    tail = names[starts[-1]:]
    if [e for _, e in tail[:3]] != list(_DEFAULT_EVENTS[:3]):
        return None
    if any(e == "branch-misses" for _, e in tail):
        return None
    order = [e for _, e in tail if e in _DEFAULT_EVENTS]
    if order != sorted(order, key=_DEFAULT_EVENTS.index):
        return None  # not perf's order: events chosen with -e
    return tail[-1][0], (f"perf's default events stop at {tail[-1][1]!r}, before "
                         "branch-misses: the capture ends before the report does")


def _parse_csv(text: str, path: str) -> pd.DataFrame:
    """Parse ``-x,`` or ``-x;`` CSV output, with a decimal point or a decimal comma."""
    rows = Rows(path, benchmark=BENCHMARK, tool=TOOL)
    layout = None
    events: list[tuple[int, str]] = []
    for lineno, line in numbered(text):
        if not line.strip() or line.startswith("#"):
            continue
        kind = _csv_split(line)
        if layout is None and kind is not None:
            layout = (lineno, kind)
        if kind is None or kind != layout[1]:
            what = "" if kind is None else f" (line {layout[0]} is in another layout)"
            raise ParseError(path, lineno, "expected a perf stat -x line 'value,unit,event,"
                             f"[variance%,]runtime,percent,...'{what}")
        sep, mark = kind
        f = _csv_comma(line) if (sep, mark) == (",", ",") else _csv_fields(line, sep)
        # under a decimal-comma locale perf 6.1 prints the metric rounded to a whole number
        # ("0;CPUs utilized" for 0.99): it is not read
        note = (f[6], f[7]) if mark == "." and len(f) >= 8 and f[6] and f[7] else None
        value, unit, event, variance, _runtime, pct = f[:6]
        events.append((lineno, event))
        if value.startswith("<"):
            continue
        running = pct if pct and pct not in ("100.00", "100,00") else None
        _counter_rows(rows, value, unit, event, "", variance, lineno, {}, running=running,
                      note=note, style=mark)
    return _closed(rows.frame(), path, events)


def _closed(df: pd.DataFrame, path: str, events: list[tuple[int, str]]) -> pd.DataFrame:
    """Mark -x/-j rows cut short when their default events stop early."""
    cut = _default_events_cut(events)
    return df if cut is None or df.empty else cut_short(df, path, *cut)


def _parse_json(text: str, path: str) -> pd.DataFrame:
    """Parse ``-j`` output: one JSON object per counter and line.

    Read pair by pair rather than with a JSON parser: under a decimal-comma locale perf 6.1
    prints bare numbers with a comma ("pcnt-running" : 100,00), which is not JSON. The
    decimal mark is the one of "counter-value" (always printed with 6 decimals).
    """
    rows = Rows(path, benchmark=BENCHMARK, tool=TOOL)
    style: tuple[int, str] | None = None
    events: list[tuple[int, str]] = []
    for lineno, line in numbered(text):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        obj = _json_object(stripped, path, lineno)
        if "interval" in obj:
            raise ParseError(path, lineno, "perf stat interval mode (-I) is not supported")
        if "cpu" in obj or "core" in obj or "socket" in obj or "thread" in obj:
            raise ParseError(path, lineno, "per-CPU output (-A, --per-core ...) is not supported")
        value, event = obj.get("counter-value"), obj.get("event")
        if not isinstance(value, str) or not isinstance(event, str):
            raise ParseError(path, lineno, "perf stat -j line without \"counter-value\" and \"event\"")
        events.append((lineno, event))
        if value.startswith("<"):
            continue
        mark = _mark(value)
        if mark is not None:
            if style is not None and mark != style[1]:
                raise ParseError(path, lineno, f"numbers printed with a decimal {_MARKS[mark]} "
                                 f"here, with a decimal {_MARKS[style[1]]} on line {style[0]}")
            style = style or (lineno, mark)
        dec = style[1] if style else None
        unit = obj.get("unit") or ""
        if not isinstance(unit, str):
            raise ParseError(path, lineno, "perf stat -j \"unit\" is not a string")
        variance = obj.get("variance")
        pct = obj.get("pcnt-running")
        running = pct if isinstance(pct, str) and pct not in ("100.00", "100,00") else None
        # the counter is printed "%f" (6 decimals) even for counts: read it as a decimal
        _counter_rows(rows, value, unit or "", event, "", f"{variance}%" if variance else None,
                      lineno, {}, running=running, style=dec, whole=False)
    return _closed(rows.frame(), path, events)


def _json_object(line: str, path: str, lineno: int) -> dict[str, str]:
    """Read one flat perf -j object into {key: text of its value}."""
    if not (line.startswith("{") and line.endswith("}")):
        raise ParseError(path, lineno, "expected a perf stat -j line ({\"counter-value\" : ...})")
    out: dict[str, str] = {}
    at = 1
    while at < len(line):
        m = _JSON_PAIR.match(line, at)
        if not m:
            raise ParseError(path, lineno, f"malformed perf stat -j line at column {at + 1}")
        out[m.group(1)] = m.group(2) if m.group(2) is not None else m.group(3)
        at = m.end()
    return out
