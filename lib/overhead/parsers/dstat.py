"""dstat CSV files (``dstat --output file.csv ...``), Dag Wieers' dstat 0.7.x/0.8.x.

Layout of a file: dstat's first line ``"Dstat 0.7.2 CSV output"`` and an ``"Author:"`` line,
then one session per dstat invocation. dstat appends to an existing file, writing two blank
lines and a new session header, so one file can hold several sessions. A session is::

    "Host:","arldcn24",,,,"User:","apferrei"
    "Cmdline:","dstat --output /tmp/x.csv -cndy --net-packets",,,,"Date:","02 Jul 2014 11:17:45 CDT"
    (a blank line in 0.7.x)
    "total cpu usage",,,,,,"net/total",,"dsk/total",,"system",,"pkt/total",
    "usr","sys","idl","wai","hiq","siq","recv","send","read","writ","int","csw","#recv","#send"
    2.025,0.096,97.811,0.049,0.000,0.020,0.0,0.0,151363.961,1122037.172,5484.324,2235.439,0.0,0.0

(dstat 0.8 omits the blank line and names columns ``"group:column"`` when a group repeats.)

Rows: one per sample and column, ``metric`` from the group and column, values as dstat wrote
them (its CSV holds raw numbers, not the K/M-scaled screen figures, so no prefix conversion is
needed: bytes are bytes):

================  ===================================================  ===========
group             columns -> metric                                    unit
================  ===================================================  ===========
total cpu usage   usr sys idl wai hiq siq stl -> cpu_usr cpu_sys         %
                  cpu_idle cpu_wait cpu_hiq cpu_siq cpu_steal
cpu<N> usage      the same, with p_cpu = N                             %
net/<dev>         recv send -> net_recv net_send                       B/s
dsk/<dev>         read writ -> disk_read disk_write                    B/s
pkt/<dev>         #recv #send -> packets_recv packets_send              packet/s
io/<dev>          read writ -> io_read io_write (requests)             op/s
system            int csw -> interrupts context_switches               Hz
load avg          1m 5m 15m -> load_1m load_5m load_15m                count
memory usage      used free buff cach -> memory_used memory_free       B
                  memory_buffers memory_cached
paging            in out -> paging_in paging_out                       B/s
swap              used free -> swap_used swap_free                     B
procs             run blk -> procs_running procs_blocked; new ->       count; Hz
                  procs_new
tcp sockets       lis act syn tim clo -> tcp_listen tcp_established    count
                  tcp_syn tcp_time_wait tcp_close
================  ===================================================  ===========

For ``<dev>`` other than ``total`` the rows carry ``p_device``; rows without p_device are
totals. Columns not listed (the ``time`` and ``epoch`` clocks, plugin groups such as
``most expensive``, ``udp``, ``unix sockets``, ``file locks``, ``async``, ``interrupts``,
``filesystem``) are skipped: their units are not known here. higher_is_better is left empty:
none of these is better higher or lower in itself.

Parameters: p_session (1-based session in the file), p_sample (0-based sample index in the
session; dstat writes one CSV line per ``delay`` seconds, 1 s by default). started_at = the
session's ``Date:`` + p_sample * delay, where the delay is read from the ``Cmdline:``
arguments (``dstat [options] [delay [count]]``); no started_at when the zone of ``Date:`` is
not known. host from ``Host:``, tool_version from the first line ("0.7.2").

warmup: dstat computes each sample as the change of the kernel counters since the previous
one, and for the first sample there is no previous one, so it divides the counters accumulated
since boot by the uptime: the first row of each session is an average since boot, not a
1-second sample. Those rows are kept (the tool printed them) with warmup=True.

Errors and gaps: a file whose first line is not dstat's own (for example a session cut out of a
dstat file by hand, which starts at ``"Host:"``, or a table derived by other scripts) raises
ParseError. An empty field gives no row (never a 0); "nan"/"inf" give no row. A data line with
the wrong number of fields raises ParseError, except the last line of a session with too few
fields all of which are numbers: a sample cut off while being written, which is dropped; a last
line without its newline is dropped too (it may be cut inside a number). A file whose header is
complete but that has no sample raises RunFailed: dstat writes the header when it starts, so the
run stopped before its first sample reached the file (Debian's dstat 0.7.4 under Python 3 does
exactly this: it dies with a NameError in ``showcsv`` after the header).

Plain-text output (what dstat prints on its terminal, ``dstat -tcdngy 1 5 > file``)::

    ----system---- --total-cpu-usage-- -dsk/total- -net/total- ---paging-- ---system--
         time     |usr sys idl wai stl| read  writ| recv  send|  in   out | int   csw
    24-11 19:27:50| 29  16  54   1   0|  16M   27M|   0     0 |   0     0 |4279    12k

The first line holds the group names, centred over their columns with dashes for blanks (cut
to the group's width), the second the column names; ``|`` separates groups and ``:`` the
repeated groups of one kind (``-N lo,total``: ``---net/lo-- -net/total-``, ``recv  send: recv
send``). The text gives the same metrics, units and p_device/p_cpu as the CSV for the same
columns, read off the screen figures: dstat rounds them to the column width and scales them
with a suffix, by 1024 for bytes (``B``, ``k``, ``M``, ``G``...: dsk, net, paging, swap,
memory usage) and by 1000 for counts and rates (``k``, ``M``...: system int/csw, io, pkt, tcp
sockets); cpu, load avg and procs have no suffix. So a text value agrees with the CSV value of
the same run to within half a unit of its last printed digit. A value dstat shows as ``-``
(negative) gives no row; ``--bits`` output (``b`` suffix, decimal) is refused. The first line
after the header is the since-boot average (warmup = True, as in the CSV); p_sample counts
the sample lines. Not in the text: tool_version, host, started_at (the time column has no
year), p_session.

Redirected to a file, dstat prints no colours and the header once (its header, colour and
intermediate-update features are on only for a terminal). Captured from a terminal (``script``)
or with ``--color``, the text holds ANSI escape codes, which are removed, and the header is
repeated every few lines (a header may differ from the previous one if the terminal was
resized: each one applies to the lines after it). Lines before the first header (dstat's "You
did not select any stats, using -cdngy by default.") are skipped; a " missed N ticks" note at
the end of a line is ignored. A line that does not fit its header raises ParseError naming it
(a cut last line without its newline is dropped). Terminal captures with a delay above 1 s
(intermediate updates overwriting the line with cursor moves) are not supported.

Wide form: :func:`parse_wide` reads a CSV file into one row per sample line and one column per
counter (:mod:`overhead.wide`), which ingest stores as it is; :func:`parse` melts that table
into the rows above, so both are one reading of the file.

Speed: the samples are read with pyarrow's CSV reader and cast column by column, with no
Python loop per value; the largest file in the IBM tree (38,908 lines, 544,614 rows) reads
into its wide table in about 0.04 s and into the long rows in about 0.17 s.
"""

from __future__ import annotations

import csv
import io
import re

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from overhead import wide
from overhead.parsers._common import ParseError, Rows, RunFailed, cut_short
from overhead.parsers._datestamp import started_at as parse_date
from overhead.schema import arrow_to_frame, conform

TOOL = "dstat"
BENCHMARK = "dstat"

_FIRST = re.compile(r'^"Dstat (\S+) CSV output"\s*$')

_CPU = {"usr": "cpu_usr", "sys": "cpu_sys", "idl": "cpu_idle", "wai": "cpu_wait",
        "hiq": "cpu_hiq", "siq": "cpu_siq", "stl": "cpu_steal"}
# group pattern -> {column: (metric, unit)}; the pattern's group 1, if any, is the device.
_GROUPS: tuple[tuple[re.Pattern, dict[str, tuple[str, str]]], ...] = (
    (re.compile(r"^total cpu usage$"), {c: (m, "%") for c, m in _CPU.items()}),
    (re.compile(r"^cpu(\d+) usage$"), {c: (m, "%") for c, m in _CPU.items()}),
    (re.compile(r"^net/(.+)$"), {"recv": ("net_recv", "B/s"), "send": ("net_send", "B/s")}),
    (re.compile(r"^dsk/(.+)$"), {"read": ("disk_read", "B/s"), "writ": ("disk_write", "B/s")}),
    (re.compile(r"^pkt/(.+)$"), {"#recv": ("packets_recv", "packet/s"),
                                 "#send": ("packets_send", "packet/s")}),
    (re.compile(r"^io/(.+)$"), {"read": ("io_read", "op/s"), "writ": ("io_write", "op/s")}),
    (re.compile(r"^system$"), {"int": ("interrupts", "Hz"), "csw": ("context_switches", "Hz")}),
    (re.compile(r"^load avg$"), {"1m": ("load_1m", "count"), "5m": ("load_5m", "count"),
                                 "15m": ("load_15m", "count")}),
    (re.compile(r"^memory usage$"), {"used": ("memory_used", "B"), "free": ("memory_free", "B"),
                                     "buff": ("memory_buffers", "B"),
                                     "cach": ("memory_cached", "B")}),
    (re.compile(r"^paging$"), {"in": ("paging_in", "B/s"), "out": ("paging_out", "B/s")}),
    (re.compile(r"^swap$"), {"used": ("swap_used", "B"), "free": ("swap_free", "B")}),
    (re.compile(r"^procs$"), {"run": ("procs_running", "count"), "blk": ("procs_blocked", "count"),
                              "new": ("procs_new", "Hz")}),
    (re.compile(r"^tcp sockets$"), {"lis": ("tcp_listen", "count"), "act": ("tcp_established", "count"),
                                    "syn": ("tcp_syn", "count"), "tim": ("tcp_time_wait", "count"),
                                    "clo": ("tcp_close", "count")}),
)

# What is left of a sample line cut off while dstat wrote it: numbers (and the clock column).
_CUT_SAMPLE = re.compile(r"^[-+0-9.eE:, ]*$")

# dstat's getopt spec: short options that take an argument, and long ones.
_SHORT_WITH_ARG = set("oCDIMNS")
_LONG_WITH_ARG = {"--output", "--pidfile"}


def detect(text: str) -> float:
    """Tell whether ``text`` is a dstat CSV file or dstat's plain-text output.

    Returns 1 when the first line is dstat's CSV first line, or when one of the first lines
    and the next are a dstat text header (group names over column names), else 0.
    """
    if _FIRST.match(text[:200].split("\n", 1)[0].rstrip("\r")):
        return 1.0
    return 1.0 if _text_header(_plain_lines(text[:20000])[:8]) is not None else 0.0


def _fields(line: str) -> list[str]:
    """Split one header line into its CSV fields."""
    return next(csv.reader([line]), [])


def _delay(cmdline: str) -> int | None:
    """Read dstat's delay (seconds between samples) from its command line.

    Follows dstat's getopt rules: options end at the first argument that is not one; that
    argument is the delay.

    Parameters
    ----------
    cmdline : str
        The ``Cmdline:`` value ("dstat --output f.csv -cndy 5 10").

    Returns
    -------
    int or None
        The delay; 1 when not given; None when it is not a positive integer.
    """
    tokens = cmdline.split()[1:]
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok == "--":
            i += 1
            break
        if tok.startswith("--"):
            if tok in _LONG_WITH_ARG:
                i += 1
        elif tok.startswith("-") and len(tok) > 1:
            for j, ch in enumerate(tok[1:], start=1):
                if ch in _SHORT_WITH_ARG:
                    if j == len(tok) - 1:
                        i += 1
                    break
        else:
            break
        i += 1
    if i >= len(tokens):
        return 1
    try:
        delay = int(tokens[i])
    except ValueError:
        return None
    return delay if delay > 0 else None


def _mapping(group: str, column: str) -> tuple[str, str, str | None, str | None] | None:
    """Map one CSV column to (metric, unit, device, cpu); None when it is not read."""
    if column.startswith(group + ":"):  # dstat 0.8 names repeated groups' columns "group:col"
        column = column[len(group) + 1:]
    for pattern, columns in _GROUPS:
        m = pattern.match(group)
        if m and column in columns:
            metric, unit = columns[column]
            dev = m.group(1) if m.groups() else None
            if pattern.pattern.startswith("^cpu"):
                return metric, unit, None, dev
            return metric, unit, (None if dev == "total" else dev), None
    return None


class _Session:
    """One dstat invocation's header and the line range [first, end) of its samples."""

    def __init__(self, host_line: int):
        self.host_line = host_line
        self.host: str | None = None
        self.date: str | None = None
        self.cmdline: str | None = None
        self.groups: list[str] | None = None
        self.columns: list[str] | None = None
        self.first = self.end = -1


def _sessions(lines: list[str], path: str) -> tuple[str, list[_Session]]:
    """Read the header lines; return the version and the sessions whose header is complete.

    Only blank lines may stand between header lines. A session header cut off at the end of
    the text is dropped; a header line out of place raises ParseError.
    """
    m = _FIRST.match(lines[0]) if lines else None
    if not m:
        raise ParseError(path, 1, "not a dstat CSV file: the first line is not '\"Dstat <version> CSV output\"'")
    version = m.group(1)
    quoted = [i for i, line in enumerate(lines) if line[:1] == '"']
    sessions: list[_Session] = []
    cur: _Session | None = None
    expect = "author"
    prev = 0
    for i in quoted[1:]:
        line = lines[i]
        if expect != "data":
            _blank_between(lines, prev, i, path)
        prev = i
        if line.startswith('"Author:"') and expect == "author":
            expect = "host"
            continue
        if expect == "author":
            raise ParseError(path, i + 1, "expected the 'Author:' line after dstat's first line")
        if line.startswith('"Host:"'):
            if expect not in ("host", "data"):
                raise ParseError(path, i + 1, f"dstat session header without its {expect} row")
            if cur is not None:
                _close(cur, lines, i)
                sessions.append(cur)
            cur = _Session(i)
            f = _fields(line)
            cur.host = f[1] if len(f) > 1 and f[1] else None
            expect = "cmdline"
            continue
        if expect == "host":
            raise ParseError(path, i + 1, "expected a 'Host:' line")
        if expect == "cmdline":
            if not line.startswith('"Cmdline:"'):
                raise ParseError(path, i + 1, "expected the 'Cmdline:' line after 'Host:'")
            f = _fields(line)
            cur.cmdline = f[1] if len(f) > 1 else None
            cur.date = f[6] if len(f) > 6 and f[5] == "Date:" else None
            expect = "group"
            continue
        if expect == "group":
            cur.groups = _fields(line)
            expect = "column"
            continue
        if expect == "column":
            cur.columns = _fields(line)
            cur.first = i + 1
            expect = "data"
            continue
        raise ParseError(path, i + 1, f"unexpected quoted line among the samples: {line[:60]!r}")
    if expect == "data":
        _close(cur, lines, len(lines))
        sessions.append(cur)
    else:
        # A header cut off at the end of the text: nothing but blank lines may follow it.
        _blank_between(lines, prev, len(lines), path)
    return version, sessions


def _blank_between(lines: list[str], after: int, before: int, path: str) -> None:
    """Raise ParseError unless the lines strictly between two header lines are blank."""
    for j in range(after + 1, before):
        if lines[j].strip():
            raise ParseError(path, j + 1, f"unexpected line inside the dstat header: {lines[j][:60]!r}")


def _close(s: _Session, lines: list[str], stop: int) -> None:
    """Set the end of session ``s``'s samples: before line index ``stop``, less trailing blanks."""
    end = stop
    while end > s.first and not lines[end - 1].strip():
        end -= 1
    s.end = end


def _column_block(table: pa.Table, j: int) -> pa.Array:
    """Return column ``j`` of the samples as one string array."""
    col = table.column(j)
    return col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col


def _read_samples(s: _Session, lines: list[str], path: str, final: bool) -> tuple[pa.Table, int] | None:
    """Read a session's sample lines as strings; returns (table, first line index) or None.

    ``final`` tells whether this is the last session and the text lacks its last newline.
    """
    first, end = s.first, s.end
    if final and end == len(lines) and end > first:
        end -= 1  # the last line has no newline: it may be cut inside a number
    if end <= first:
        return None
    ncol = len(s.columns)
    block = lines[first:end]
    if "" in block:  # (a whitespace-only line is caught below as a line with one field)
        raise ParseError(path, first + block.index("") + 1, "blank line among the dstat samples")
    bad: list[tuple[int | None, int, str]] = []

    def on_invalid(row) -> str:
        bad.append((row.number, row.actual_columns, row.text))
        return "skip"

    names = [f"c{j}" for j in range(ncol)]
    try:
        table = pacsv.read_csv(
            io.BytesIO("\n".join(block).encode("utf-8", "surrogatepass")),
            read_options=pacsv.ReadOptions(column_names=names, use_threads=False),
            parse_options=pacsv.ParseOptions(quote_char=False, invalid_row_handler=on_invalid),
            convert_options=pacsv.ConvertOptions(column_types={n: pa.string() for n in names},
                                                 strings_can_be_null=False,
                                                 quoted_strings_can_be_null=False),
        )
    except (pa.ArrowInvalid, UnicodeEncodeError) as exc:
        raise ParseError(path, first + 1, f"unreadable dstat samples: {exc}") from None
    if bad:
        # Locate each skipped line: the reader numbers rows from 1 in the block.
        for number, actual, text in bad:
            k = (number - 1) if number is not None else next(
                (k for k, line in enumerate(block) if line == text), None)
            if k is None:
                raise ParseError(path, first + 1, f"a dstat sample line has {actual} fields, expected {ncol}")
            if k == len(block) - 1 and actual < ncol and _CUT_SAMPLE.match(text):
                continue  # a sample cut off while being written: dropped
            raise ParseError(path, first + k + 1,
                             f"dstat sample line has {actual} fields, the header names {ncol}")
        if table.num_rows != len(block) - 1:
            raise ParseError(path, first + 1, "dstat sample lines could not be read one per row")
    elif table.num_rows != len(block):
        raise ParseError(path, first + 1, "dstat sample lines could not be read one per row")
    return table, first


def parse(text: str, path: str = "<string>") -> pd.DataFrame:
    """Parse a dstat CSV file into tidy rows, one per sample and known column.

    Follows the parser contract of :mod:`overhead.parsers` (text and path in, conformed
    tidy rows out); the rows are described in the module docstring. A CSV file is read by
    :func:`parse_wide` and its samples melted into the long form (:func:`overhead.wide.melt`),
    so the rows here and the wide table ingest stores are one reading.

    Raises
    ------
    ParseError
        When the text is not a dstat CSV file or a sample is malformed.
    """
    got = parse_wide(text, path)
    if got is None:
        return _parse_text(_plain_lines(text), path, cut_last=not text.endswith(("\n", "\r")))
    table, cut = got
    df = long_frame(wide.melt(table))
    return df if cut is None else cut_short(df, *cut)


def parse_wide(text: str, path: str = "<string>") -> tuple[pa.Table, tuple[str, int, str] | None] | None:
    """Read a dstat CSV file into a wide table: one row per sample, one column per counter.

    The layout is :mod:`overhead.wide`'s: sample columns ``line``, ``p_session``, ``p_sample``,
    ``started_at``, ``warmup``, ``host``, ``benchmark``, ``tool``, ``tool_version``; a float64
    column per known counter (:func:`overhead.wide.counter_name`) with its ``raw:`` strings.
    Sessions with other columns leave the counters they lack null. Melted, it gives exactly
    the rows of :func:`parse`.

    Returns
    -------
    (pyarrow.Table, cut) or None
        The table and, for a file whose last line has no line end, ``(path, line, what)``
        for :func:`overhead.parsers.cut_short` (the run was cut short after these samples);
        None when the text is dstat's plain-text (screen) output, which has no wide form here.

    Raises
    ------
    ParseError
        As :func:`parse`.
    RunFailed
        When the header is complete but no sample follows it.
    """
    lines = text.splitlines()
    if not _FIRST.match(lines[0] if lines else ""):
        if _text_header(_plain_lines(text)) is not None:
            return None
    version, sessions = _sessions(lines, path)
    if not sessions:
        raise ParseError(path, len(lines), "dstat CSV header ends before its column row")
    cut_last = not text.endswith(("\n", "\r"))
    blocks = []  # per session: (n, first line index, {counter: (info, values, raw)}, session)
    order: dict[str, dict] = {}  # every counter, in the order the sessions first show them
    for n, s in enumerate(sessions, start=1):
        if len(s.groups) > len(s.columns) + 1 or not s.columns:
            raise ParseError(path, s.first - 1, "dstat group row and column row do not match")
        got = _read_samples(s, lines, path, final=cut_last and n == len(sessions))
        if got is None:
            continue
        table, first = got
        groups, current = [], ""
        padded = s.groups + [""] * (len(s.columns) - len(s.groups))
        for g in padded[: len(s.columns)]:
            current = g or current
            groups.append(current)
        mine: dict[str, tuple[pa.Array, pa.Array]] = {}
        for j, (group, column) in enumerate(zip(groups, s.columns, strict=True)):
            mapped = _mapping(group, column)
            if mapped is None:
                continue
            metric, unit, device, cpu = mapped
            raw = _column_block(table, j)
            present = pc.not_equal(raw, "")
            try:
                values = pc.cast(pc.if_else(present, raw, pa.scalar(None, pa.string())), pa.float64())
            except pa.ArrowInvalid:
                bad_k = _first_bad(raw)
                raise ParseError(path, first + bad_k + 1,
                                 f"{group}/{column}: expected a number, found {raw[bad_k].as_py()!r}") from None
            finite = pc.is_finite(values)  # "nan" and "inf" give no value, as an empty field
            if finite.false_count or values.null_count:
                keep = pc.fill_null(finite, False)
                values = pc.if_else(keep, values, pa.scalar(None, pa.float64()))
                raw = pc.if_else(keep, raw, pa.scalar(None, pa.string()))
            name = wide.counter_name(metric, device, cpu)
            while name in mine:  # the same counter twice in one session (a group repeated)
                name += "+"
            mine[name] = (values, raw)
            order.setdefault(name, {"metric": metric, "unit": unit, "p_device": device,
                                    "p_cpu": int(cpu) if cpu is not None else None})
        blocks.append((n, first, table.num_rows, s, mine))
    if not sum(nrows for _, _, nrows, _, _ in blocks):
        last = sessions[-1]
        raise RunFailed(path, None, f"dstat wrote its CSV header (lines 1-{last.first}, up to the "
                        "column names) and no sample")
    if not any(v.null_count < len(v) for *_, mine in blocks for v, _ in mine.values()):
        raise RunFailed(path, None, f"dstat wrote {sum(b[2] for b in blocks)} sample line(s) and not one "
                        "value in a column read here (cpu, net, dsk, pkt, io, system, load avg, memory, "
                        "paging, swap, procs, tcp sockets)")
    samples: dict[str, list] = {k: [] for k in ("line", "p_session", "p_sample", "started_at",
                                                "warmup", "host")}
    columns: dict[str, tuple[list, list]] = {name: ([], []) for name in order}
    for n, first, nrows, s, mine in blocks:
        sample = np.arange(nrows, dtype=np.int64)
        stamps = _stamps(s, sample)
        samples["line"].append(pa.array(sample + (first + 1)))
        samples["p_session"].append(pa.array(np.full(nrows, n, dtype=np.int64)))
        samples["p_sample"].append(pa.array(sample))
        samples["started_at"].append(pa.array(stamps, pa.timestamp("ns", tz="UTC")) if stamps is not None
                                     else pa.nulls(nrows, pa.timestamp("ns", tz="UTC")))
        samples["warmup"].append(pa.array(sample == 0))
        samples["host"].append(pa.array([s.host] * nrows, pa.string()) if s.host is not None
                               else pa.nulls(nrows, pa.string()))
        for name, (vals, raws) in columns.items():
            values, raw = mine.get(name, (pa.nulls(nrows, pa.float64()), pa.nulls(nrows, pa.string())))
            vals.append(values)
            raws.append(raw)
    arrays = {k: pa.concat_arrays(v) for k, v in samples.items()}
    arrays["host"] = arrays["host"].dictionary_encode()
    total = len(arrays["line"])
    arrays["benchmark"] = _constant(BENCHMARK, total)
    arrays["tool"] = _constant(TOOL, total)
    arrays["tool_version"] = _constant(version, total)
    counters = [(name, info, pa.concat_arrays(columns[name][0]), pa.concat_arrays(columns[name][1]))
                for name, info in order.items()]
    orders = {n: list(mine) for n, _, _, _, mine in blocks}
    same = all(list(o) == list(order)[:len(o)] for o in orders.values())
    table = wide.build(arrays, counters, path, orders=None if same else orders)
    cut = None
    if cut_last:  # a sample line cut while dstat wrote it: not read; the run stopped there
        cut = (path, len(lines), "the last line has no line end (the capture stopped mid-line): "
               "its values are not kept, the rows before it are")
    return table, cut


def _constant(value: str, n: int) -> pa.DictionaryArray:
    """Give ``value`` on ``n`` rows, dictionary-encoded (codes only)."""
    return pa.DictionaryArray.from_arrays(pa.array(np.zeros(n, dtype=np.int32)), pa.array([value]))


def long_frame(table: pa.Table) -> pd.DataFrame:
    """Turn melted long rows (:func:`overhead.wide.melt`) into a conformed tidy frame."""
    return conform(arrow_to_frame(table))


def _stamps(s: _Session, sample: np.ndarray) -> np.ndarray | None:
    """Give the samples' times (naive UTC datetime64): ``Date:`` + sample x delay, if known."""
    delay = _delay(s.cmdline) if s.cmdline else None
    base = parse_date(s.date) if s.date else None
    if base is None or delay is None:
        return None
    start = np.datetime64(base.tz_convert("UTC").tz_localize(None).to_datetime64(), "ns")
    return start + sample * np.timedelta64(delay, "s")


def _first_bad(raw: pa.Array) -> int:
    """Find the first non-empty token that is not a number (only used to report an error)."""
    for k, tok in enumerate(raw.to_pylist()):
        if tok:
            try:
                pa.scalar(tok).cast(pa.float64())
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                return k
    return 0


# ---- plain text (the terminal output) ----------------------------------------------------------

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[78]|\x1b\][^\x07]*\x07")
_MISSED = re.compile(r"\s+missed \d+ ticks\s*$")
_TITLE = re.compile(r"^[^\s|]+(?: [^\s|]+)*$")
_VALUE = re.compile(r"^([0-9]+(?:\.[0-9]+)?)([BkMGTPEZYb]?)$")
_SUFFIX = {"": 0, "B": 0, "k": 1, "M": 2, "G": 3, "T": 4, "P": 5, "E": 6, "Z": 7, "Y": 8}
# the base of a group's screen suffixes (dstat's plugin scale): None = printed without a unit
_TEXT_BASE: tuple[tuple[re.Pattern, int | None], ...] = (
    (re.compile(r"^(?:total cpu usage|cpu\d+ usage|load avg|procs)$"), None),
    (re.compile(r"^(?:net/|dsk/)|^(?:paging|swap|memory usage)$"), 1024),
    (re.compile(r"^(?:pkt/|io/)|^(?:system|tcp sockets)$"), 1000),
)
_DEVICE_GROUP = re.compile(r"^(?:net|dsk|pkt|io)/")
_CLOCKS = (["time"], ["epoch"])  # the clock columns (-t, -T): printed with blanks, not read


def _plain_lines(text: str) -> list[str]:
    """Split the text into lines without ANSI escape codes (colours, cursor moves)."""
    if "\x1b" not in text:
        return text.splitlines()
    return [_ANSI.sub("", line) for line in text.splitlines()]


class _Column:
    """One column of a text header: its group, name and character range."""

    __slots__ = ("group", "name", "start", "end")

    def __init__(self, group: str, name: str, start: int, end: int):
        self.group, self.name, self.start, self.end = group, name, start, end


def _header_at(title: str, subtitle: str) -> list[tuple[str, str, int, int]] | None:
    """Read one header pair: (group, column names, start, end) per group segment; None if not one."""
    title = title.rstrip().removesuffix(">")
    subtitle = subtitle.rstrip("\r\n").removesuffix(">")
    if "|" not in subtitle or not _TITLE.match(title) or "-" not in title:
        return None
    out = []
    pos = 0
    for plugin in subtitle.split("|"):
        for part in plugin.split(":"):
            start, end = pos, pos + len(part)
            pos = end + 1
            name = title[start:end]
            if not name.strip() or " " in name.strip("- ") or not part.strip():
                return None
            if end < len(title) and title[end] not in " -":
                return None
            group = name.strip("-")
            if not _DEVICE_GROUP.match(group):
                group = group.replace("-", " ")
            out.append((group, part, start, end))
    if pos - 1 < len(title.rstrip()):
        return None
    return out


def _text_header(lines: list[str]) -> int | None:
    """Find the first dstat text header in ``lines``: the index of its title line, or None."""
    for i in range(len(lines) - 1):
        if lines[i].strip() and _header_at(lines[i], lines[i + 1]) is not None:
            return i
    return None


def _columns(segments: list[tuple[str, str, int, int]]) -> list[tuple[_Column, list[str]]]:
    """Give each segment of a header with its column names."""
    return [(_Column(group, "", start, end), part.split()) for group, part, start, end in segments]


def _text_base(group: str) -> tuple[bool, int | None]:
    """Tell whether a group's screen figures are known, and their suffix base (None: no suffix)."""
    for pattern, base in _TEXT_BASE:
        if pattern.search(group):
            return True, base
    return False, None


def _screen_value(token: str, base: int | None, path: str, line: int, what: str) -> float:
    """Convert a screen figure such as ``16M``, ``5252k``, ``6617B``, ``17.1G`` or ``29``."""
    m = _VALUE.match(token)
    if not m:
        raise ParseError(path, line, f"{what}: expected a dstat figure, found {token!r}")
    digits, suffix = m.groups()
    if suffix == "b":
        raise ParseError(path, line, f"{what}: {token!r} is in bits (dstat --bits), which is not supported")
    if suffix and base is None:
        raise ParseError(path, line, f"{what}: {token!r} has a unit where dstat prints none")
    if suffix == "B" and base != 1024:
        raise ParseError(path, line, f"{what}: {token!r} counts bytes in a column of counts")
    return float(digits) * (base or 1) ** _SUFFIX[suffix]


def _parse_text(lines: list[str], path: str, *, cut_last: bool) -> pd.DataFrame:
    """Parse dstat's plain-text output (ANSI codes already removed from ``lines``)."""
    rows = Rows(path, benchmark=BENCHMARK, tool=TOOL)
    start = _text_header(lines)
    last = max((i for i, line in enumerate(lines) if line.strip()), default=-1)
    layout: list[tuple[_Column, list[str]]] | None = None
    width = 0
    sample = 0
    i = start
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        if i + 1 < len(lines):
            header = _header_at(line, lines[i + 1])
            if header is not None:
                layout = _columns(header)
                width = header[-1][3]
                i += 2
                continue
        lineno = i + 1
        data = _MISSED.sub("", line.rstrip("\r")).removesuffix(">")
        fits = len(data.rstrip()) <= width and all(
            seg.end >= len(data) or data[seg.end] in "|:>" for seg, _ in layout[:-1])
        tokens = [data[seg.start:seg.end].split() for seg, _ in layout] if fits else []
        if not fits or any(len(t) != len(names) for t, (_, names) in zip(tokens, layout, strict=True)
                           if names not in _CLOCKS):
            if i == last and cut_last:
                break  # a line cut while dstat wrote it
            raise ParseError(path, lineno, "dstat text line does not fit its header "
                             f"(columns {' | '.join(' '.join(n) for _, n in layout)}): {line.strip()[:80]!r}")
        for (seg, names), values in zip(layout, tokens, strict=True):
            known, base = _text_base(seg.group)
            if not known or names in _CLOCKS:
                continue
            for name, token in zip(names, values, strict=True):
                mapped = _mapping(seg.group, name)
                if mapped is None or token == "-":
                    continue
                metric, unit, device, cpu = mapped
                value = _screen_value(token, base, path, lineno, f"{seg.group}/{name}")
                rows.add(lineno, metric, value, unit, None, token, warmup=sample == 0,
                         p_sample=sample, p_device=device,
                         p_cpu=int(cpu) if cpu is not None else None)
        sample += 1
        i += 1
    return rows.frame()
