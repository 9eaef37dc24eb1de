"""procps-ng ``vmstat`` virtual-memory report (``vmstat [-a] [-w] [-t] <delay> <count>``).

Layout (procps-ng 4.0)::

    procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu-----
     r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st
     3  0      0 23536912  10740 795168    0    0 10191  3233 1406 7794  8  7 84  1  0

``-a`` replaces buff/cache by inact/active, ``-w`` widens the columns (and procps 4 adds the
``gu`` guest column), ``-t`` appends "-----timestamp-----" with the zone name under it and
"YYYY-MM-DD HH:MM:SS" on each line. Header pairs may repeat (vmstat reprints them); columns are
taken from the latest header.

Rows per sample (p_sample, 0-based data line; p_time, seconds since the first sample, only
with -t): ``runnable`` (r), ``blocked`` (b) (count); ``swap_used`` (swpd), ``free``,
``buffers`` (buff), ``cache``, ``inactive`` (inact), ``active`` (B: vmstat prints KiB by
default, 1 KiB = 1024 B); ``swap_in``, ``swap_out`` (si/so, KiB/s -> B/s); ``blocks_in``,
``blocks_out`` (bi/bo: blocks/s; procps reads pgpgin/pgpgout, which the kernel counts in
1 KiB units, and its manual says "All linux blocks are currently 1024 bytes", so the value is
stored as B/s = blocks/s * 1024); ``interrupts``, ``context_switches`` (in/cs, Hz); ``cpu_us``,
``cpu_sy``, ``cpu_id``, ``cpu_wa``, ``cpu_st``, ``cpu_gu`` (%). higher_is_better is None.

Warm-up: vmstat's first line reports averages since boot for the rates and CPU columns
(si, so, bi, bo, in, cs and the cpu percentages): those rows of sample 0 have
``warmup = True``. Its r, b and memory columns are instantaneous readings like on any other
line, so they are not warm-up (warmup = False, as on every later row). Output made with
``-y`` (skip the first line) cannot be told apart from the text and would mark a genuine
sample as warm-up: the project's runners do not use -y.

Units: ``-S k|K|m|M`` changes the memory unit without saying so in the output; the parser
assumes the default (KiB), so outputs made with -S must not be fed to it.

started_at: the first timestamp with -t, when the zone under "timestamp" is UTC or GMT
(otherwise absent; p_time is still given). Other vmstat reports (-d, -s, -m, -p, -D) and
text without the "procs" header raise ParseError; a data line whose field count does not
match its header raises ParseError, except a cut last line, which is dropped.
"""

from __future__ import annotations

import re
from datetime import datetime

import pandas as pd

from overhead.parsers._common import ParseError, Rows, RunFailed, end_cut_mid_line, number, numbered

TOOL = "vmstat"
BENCHMARK = "vmstat"

# column -> (metric, unit, multiplier, since-boot average in the first line)
_COLUMNS: dict[str, tuple[str, str, float, bool]] = {
    "r": ("runnable", "count", 1, False), "b": ("blocked", "count", 1, False),
    "swpd": ("swap_used", "B", 1024, False), "free": ("free", "B", 1024, False),
    "buff": ("buffers", "B", 1024, False), "cache": ("cache", "B", 1024, False),
    "inact": ("inactive", "B", 1024, False), "active": ("active", "B", 1024, False),
    "si": ("swap_in", "B/s", 1024, True), "so": ("swap_out", "B/s", 1024, True),
    "bi": ("blocks_in", "B/s", 1024, True), "bo": ("blocks_out", "B/s", 1024, True),
    "in": ("interrupts", "Hz", 1, True), "cs": ("context_switches", "Hz", 1, True),
    "us": ("cpu_us", "%", 1, True), "sy": ("cpu_sy", "%", 1, True), "id": ("cpu_id", "%", 1, True),
    "wa": ("cpu_wa", "%", 1, True), "st": ("cpu_st", "%", 1, True), "gu": ("cpu_gu", "%", 1, True),
}
_GROUP = re.compile(r"^-*procs-*\s+-+memory-+")
_UTC = {"UTC", "GMT", "Z", "UCT"}


def detect(text: str) -> float:
    """Tell whether ``text`` is vmstat's default report.

    Returns a confidence from 0 (not vmstat output) to 1.
    """
    lines = text[:20000].splitlines()[:5]
    for line in lines:
        if _GROUP.match(line.strip()):
            return 1.0
    if lines and lines[0].startswith("vmstat: "):
        return 0.5  # vmstat's own error ("vmstat: invalid option -- 'Z'"), before any report
    return 0.0


def parse(text: str, path: str = "<string>") -> pd.DataFrame:
    """Parse vmstat output into tidy rows, one group per sample line.

    Follows the parser contract of :mod:`overhead.parsers` (text and path in, conformed
    tidy rows out); the rows are described in the module docstring.

    Raises
    ------
    ParseError
        When the text is not vmstat's report or a line is malformed.
    """
    rows = Rows(path, benchmark=BENCHMARK, tool=TOOL)
    columns: list[str] | None = None
    timestamped = False
    zone: str | None = None
    group_seen = False
    sample = 0
    first_stamp: datetime | None = None
    lines = list(numbered(text))
    first = next(((n, ln.strip()) for n, ln in lines if ln.strip()), None)
    if first is not None and first[1].startswith("vmstat: ") and not any(
            _GROUP.match(ln.strip()) for _, ln in lines):
        raise RunFailed(path, *first)  # vmstat's own error, no report: the run did not start
    last = max((n for n, line in lines if line.strip()), default=0)
    cut_tail = not text.endswith("\n")
    for lineno, line in lines:
        tokens = line.split()
        if not tokens:
            continue
        if _GROUP.match(line.strip()):
            group_seen = True
            timestamped = "timestamp" in line
            columns = None
            continue
        if tokens[0] == "r" and group_seen:
            names = tokens
            zone = None
            if timestamped and names and names[-1] not in _COLUMNS:
                zone = names[-1]
                names = names[:-1]
            unknown = [n for n in names if n not in _COLUMNS]
            if unknown:
                raise ParseError(path, lineno, f"unknown vmstat column(s) {unknown}")
            columns = names
            continue
        if columns is None:
            if not group_seen:
                raise ParseError(path, lineno, "not vmstat's report: expected the 'procs ---memory---' header first")
            raise ParseError(path, lineno, "expected the vmstat column header (' r  b   swpd ...')")
        expected = len(columns) + (2 if timestamped else 0)
        if len(tokens) != expected:
            if lineno == last and cut_tail:
                continue  # the last line was cut
            raise ParseError(path, lineno, f"expected {expected} fields ({' '.join(columns)}{' date time' if timestamped else ''}), found {len(tokens)}")
        extra: dict = {"p_sample": sample}
        if timestamped:
            try:
                stamp = datetime.strptime(" ".join(tokens[-2:]), "%Y-%m-%d %H:%M:%S")
            except ValueError:
                raise ParseError(path, lineno, f"expected a timestamp 'YYYY-MM-DD HH:MM:SS', found {' '.join(tokens[-2:])!r}") from None
            if first_stamp is None:
                first_stamp = stamp
            extra["p_time"] = int((stamp - first_stamp).total_seconds())
        for name, token in zip(columns, tokens, strict=False):
            metric, unit, scale, averaged = _COLUMNS[name]
            value = number(token, path, lineno, name)
            rows.add(lineno, metric, value * scale, unit, None, token, extra,
                     warmup=bool(sample == 0 and averaged))
        sample += 1
    if not group_seen:
        raise ParseError(path, None, "not vmstat's report (no 'procs ---memory---' header)")
    if first_stamp is not None and zone in _UTC:
        rows.fill("started_at", pd.Timestamp(first_stamp, tz="UTC"))
    df = rows.frame()
    cut = end_cut_mid_line(df, text, path, always=True)  # a sample line cut while written
    return df if cut is None else cut
