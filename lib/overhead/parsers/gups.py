"""GUPS (HPCC RandomAccess) text output.

This is the RandomAccess variant that ships in the HPC Challenge sources, built stand-alone by
the IBM RC25482 authors. A file may hold many runs; in the authors' logs each starts with a
line of dashes and ``Running gups [with numaopts < ... >], started at <date>``, then (possibly
after package-manager noise)::

    Main table size   = 2^33 = 8589934592 words
    Number of updates = 1000000000
    CPU time used  = 78.895082 seconds
    Real time used = 78.895083 seconds
    0.012675061 Billion(10^9) Updates    per second [GUP/s]
    Found 1 errors in 8589934592 locations (passed).

Rows per run (``trial`` = 1-based run number in the file): ``update_rate`` (update/s = GUP/s *
1e9; the program computes it as updates / real time), ``cpu_time`` and ``real_time`` (s),
``validation_errors`` (count of table words found wrong by the verification pass; RandomAccess
tolerates up to 1% of the table, and says "passed" or "failed").

Parameters: p_numa (numactl options of the wrapper line, whitespace-normalized), p_sockets
(derived from p_numa, see :func:`overhead.parsers._datestamp.sockets`; absent when the options do
not tell), p_table_size (words), p_table_log2, p_updates, p_validation ("passed"/"failed", on
every row of the run once the verification line has been read; absent when the run was cut
off before it). started_at comes from the wrapper's ``started at``. A run ends with its
verification line: a run begun (wrapper line, table size, times or rate) without it keeps its
rows, marked cut short (:func:`~overhead.parsers._common.cut_short`), as does a file whose
last line has no line end.

The parser reports what each run's header says. In the authors' tree the files named
``*.single-socket.localalloc.log`` hold runs whose headers say ``--physcpubind=0-31
--interleave=0,1`` (two sockets): p_numa and p_sockets say so, whatever the file name says.
"""

from __future__ import annotations

import re

import pandas as pd

from overhead.parsers._common import (
    ParseError,
    Rows,
    cut_short,
    end_cut_mid_line,
    integer,
    number,
    numbered,
)
from overhead.parsers._datestamp import wrapper_context

TOOL = "gups"
BENCHMARK = "randomaccess"

_RUNNING = re.compile(r"^Running gups(?: with numaopts <\s*(.*?)\s*>)?, started at (.+)$")
_TABLE = re.compile(r"^Main table size\s*=\s*2\^(\d+)\s*=\s*(\d+) words$")
_UPDATES = re.compile(r"^Number of updates\s*=\s*(\d+)$")
_TIME = re.compile(r"^(CPU|Real) time used\s*=\s*(\S+) seconds$")
_RATE = re.compile(r"^(\S+) Billion\(10\^9\) Updates\s+per second \[GUP/s\]$")
# parameters are checked where they are printed: a number too large for the 64-bit column is an
# error on its own line, not on the first row that carries it
_LIMIT = 2**63
_FOUND = re.compile(r"^Found (\d+) errors in (\d+) locations \((passed|failed)\)\.?$")


def detect(text: str) -> float:
    """Tell whether ``text`` is stand-alone RandomAccess output (not a whole HPCC report).

    Returns a confidence from 0 (not RandomAccess output) to 1.
    """
    head = text[:20000]
    if "HPC Challenge" in head or "Begin of " in head:
        return 0.0
    if "Billion(10^9) Updates" in head and "[GUP/s]" in head:
        return 1.0 if "Running gups" in head else 0.9
    return 0.0


def parse(text: str, path: str = "<string>") -> pd.DataFrame:
    """Parse RandomAccess text into tidy rows, up to four per run.

    Follows the parser contract of :mod:`overhead.parsers` (text and path in, conformed
    tidy rows out); the rows are described in the module docstring.

    Raises
    ------
    ParseError
        When the text holds no GUP/s result, or a recognized line carries a malformed number.
    """
    rows = Rows(path, benchmark=BENCHMARK, tool=TOOL)
    ctx: dict = {}
    trial = 0
    run_start = 0  # first row of the run in progress
    seen_rate = False

    unclosed: tuple[int, int] | None = None  # (trial, last line) of the first run left open

    def close_run() -> None:
        nonlocal unclosed
        if ctx and "_validation" not in ctx and unclosed is None:
            unclosed = (ctx["trial"], ctx.get("_last", 0))
        if "_validation" in ctx:
            rows.fill("p_validation", ctx["_validation"], run_start)

    def open_run() -> dict:
        nonlocal trial, run_start
        close_run()
        trial += 1
        run_start = len(rows)
        return {"trial": trial}

    def add(lineno: int, metric: str, value: float, unit: str, hib: bool | None, raw: str) -> None:
        rows.add(lineno, metric, value, unit, hib, raw,
                 {k: v for k, v in ctx.items() if not k.startswith("_")})

    for lineno, line in numbered(text):
        stripped = line.strip()
        if ctx and stripped:
            ctx["_last"] = lineno
        m = _RUNNING.match(stripped)
        if m:
            ctx = open_run()
            ctx.update(wrapper_context(m.group(1), m.group(2)))
            ctx["_last"] = lineno
            continue
        t = _TABLE.match(stripped)
        if t:
            # A second table line in the same run means a run without the wrapper line.
            if not ctx or "p_table_size" in ctx:
                ctx = open_run()
            ctx["p_table_log2"] = integer(t.group(1), path, lineno, "table size exponent", limit=_LIMIT)
            ctx["p_table_size"] = integer(t.group(2), path, lineno, "table size", limit=_LIMIT)
            continue
        u = _UPDATES.match(stripped)
        if u:
            if not ctx:
                ctx = open_run()
            ctx["p_updates"] = integer(u.group(1), path, lineno, "number of updates", limit=_LIMIT)
            continue
        tm = _TIME.match(stripped)
        if tm:
            if not ctx:
                ctx = open_run()
            what = tm.group(1)
            value = number(tm.group(2), path, lineno, f"{what} time used")
            add(lineno, "cpu_time" if what == "CPU" else "real_time", value, "s", False,
                f"{tm.group(2)} seconds")
            continue
        r = _RATE.match(stripped)
        if r:
            if not ctx:
                ctx = open_run()
            seen_rate = True
            value = number(r.group(1), path, lineno, "GUP/s")
            add(lineno, "update_rate", value * 1e9, "update/s", True, f"{r.group(1)} GUP/s")
            continue
        f = _FOUND.match(stripped)
        if f:
            if not ctx:
                ctx = open_run()
            ctx["_validation"] = f.group(3)
            errors = integer(f.group(1), path, lineno, "errors found")
            add(lineno, "validation_errors", float(errors), "count", False, f"{f.group(1)} errors")
            continue
        if "[GUP/s]" in stripped:
            raise ParseError(path, lineno, f"malformed GUP/s line (expected '<x> Billion(10^9) Updates per second [GUP/s]'): {stripped!r}")
    close_run()
    if not seen_rate:
        raise ParseError(path, None, "no RandomAccess output found (no '... Billion(10^9) Updates per second [GUP/s]' line)")
    df = rows.frame()
    cut = end_cut_mid_line(df, text, path, always=True)
    if cut is not None:
        return cut
    if unclosed is not None:
        return cut_short(df, path, unclosed[1], f"run {unclosed[0]} ends before its verification "
                         "line ('Found N errors in M locations (passed|failed).'): the figures "
                         "read are kept")
    return df
