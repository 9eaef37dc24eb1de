"""STREAM memory bandwidth, HPCC-style text (``Function      Rate (GB/s)   Avg time ...``).

This is the STREAM variant that ships in the HPC Challenge sources (stream.c of HPCC, built
stand-alone by the IBM RC25482 authors). A file may hold many runs; in the authors' logs each
starts with a line of dashes and ``Running stream [with numaopts < ... >], started at <date>``,
then (possibly after package-manager noise) the STREAM header and one line per kernel::

    Function      Rate (GB/s)   Avg time     Min time     Max time
    Copy:          41.2869       0.6440       0.6395       0.6686

followed by ``Solution Validates`` (or ``Failed Validation ...``).

Rows per run (``trial`` = 1-based run number in the file) and kernel (``p_kernel`` copy, scale,
add, triad): ``bandwidth`` (B/s; the best rate: HPCC's stream.c prints
``1e-9 * bytes / min_time``, so its "GB" is 10^9 bytes, checked against Array size * 16 / Min
time), ``time_avg``, ``time_min``, ``time_max`` (s; the average skips the first iteration, as
STREAM does).

Parameters: p_numa (numactl options of the wrapper line, whitespace-normalized), p_sockets
(derived from p_numa, see :func:`overhead.parsers._datestamp.sockets`; absent when the options do
not tell, e.g. the Docker and VM runs have no options at all), p_threads ("Number of Threads
requested"), p_array_size (elements), p_bytes_per_word, p_ntimes (iterations per kernel),
p_validated (True for "Solution Validates", False for "Failed Validation"; absent when the run
printed neither, e.g. it was cut off). started_at comes from the wrapper's ``started at``.
A run ends with its validation line and a rule of 61 '-' (stream.c's HLINE): a run begun (by
the wrapper's "Running stream" or STREAM's header) that does not reach them keeps the rows
read, marked cut short (:func:`~overhead.parsers._common.cut_short`).

McCalpin's stream.c 5.x ("Best Rate MB/s") is not read: no genuine sample of it could be
produced here (no Debian package ships that source).
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

TOOL = "stream"
BENCHMARK = "stream"

_RUNNING = re.compile(r"^Running stream(?: with numaopts <\s*(.*?)\s*>)?, started at (.+)$")
_TABLE = re.compile(r"^Function\s+Rate \(GB/s\)\s+Avg time\s+Min time\s+Max time\s*$")
_KERNEL = re.compile(r"^(Copy|Scale|Add|Triad):\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s*$")
_HEADER = (
    (re.compile(r"^This system uses (\d+) bytes per"), "p_bytes_per_word"),
    (re.compile(r"^Array size = (\d+)"), "p_array_size"),
    (re.compile(r"^Number of Threads requested = (\d+)"), "p_threads"),
    (re.compile(r"^Each test is run (\d+) times"), "p_ntimes"),
)
# Lines that begin the STREAM program's own output: they open a run when none is open, or
# when the open one already has results (output of several runs without the wrapper line).
_STARTS = ("Generated on", "This system uses")


def detect(text: str) -> float:
    """Tell whether ``text`` is HPCC-style STREAM output (not a whole HPCC report).

    Returns a confidence from 0 (not STREAM output) to 1.
    """
    head = text[:20000]
    if "HPC Challenge" in head or "Begin of " in head:
        return 0.0
    if "Running stream" in head and "Rate (GB/s)" in head:
        return 1.0
    if "Rate (GB/s)" in head and re.search(r"^Copy:\s+\d", head, re.M):
        return 0.9
    return 0.0


def parse(text: str, path: str = "<string>") -> pd.DataFrame:
    """Parse STREAM text into tidy rows, four per kernel and run.

    Follows the parser contract of :mod:`overhead.parsers` (text and path in, conformed
    tidy rows out); the rows are described in the module docstring.

    Raises
    ------
    ParseError
        When the text holds no STREAM result table, or a kernel line inside the table is
        malformed.
    """
    rows = Rows(path, benchmark=BENCHMARK, tool=TOOL)
    ctx: dict = {}
    trial = 0
    run_start = 0  # first row of the run in progress
    in_table = False
    seen_table = False

    unclosed: tuple[int, int] | None = None  # (trial, last line) of the first run left open

    def close_run() -> None:
        nonlocal unclosed
        if ctx and not ctx.get("_closed") and unclosed is None:  # a run begun, not ended
            unclosed = (ctx.get("trial", trial), ctx.get("_last", 0))
        validated = ctx.get("_validated")
        if validated is not None:
            rows.fill("p_validated", validated, run_start)

    def open_run() -> dict:
        nonlocal trial, run_start
        close_run()
        trial += 1
        run_start = len(rows)
        return {"trial": trial}

    for lineno, line in numbered(text):
        stripped = line.strip()
        m = _RUNNING.match(stripped)
        if m:
            ctx = open_run()
            in_table = False
            ctx.update(wrapper_context(m.group(1), m.group(2)))
            ctx["_last"] = lineno
            continue
        if stripped.startswith(_STARTS) and (not ctx or ctx.get("_has_rows")
                                             or (stripped.startswith("Generated on") and ctx.get("_generated"))):
            ctx = open_run()
            in_table = False
        if stripped.startswith("Generated on"):
            ctx["_generated"] = True
            continue
        for pattern, param in _HEADER:
            h = pattern.match(stripped)
            if h:
                if not ctx:
                    ctx = open_run()
                ctx[param] = integer(h.group(1), path, lineno, param[2:], limit=2**63)  # on its own line
                break
        if _TABLE.match(stripped):
            if not ctx or ctx.get("_has_rows"):
                ctx = open_run()
            in_table = True
            seen_table = True
            continue
        if stripped.startswith("Solution Validates"):
            ctx["_validated"] = True
            ctx["_last"] = lineno
            in_table = False
            continue
        if stripped.startswith("Failed Validation"):
            ctx["_validated"] = False
            ctx["_last"] = lineno
            in_table = False
            continue
        if "_validated" in ctx and len(stripped) >= 61 and set(stripped) == {"-"}:
            # stream.c ends a run with its validation and a rule (HLINE, 61 '-')
            ctx["_closed"] = True
            continue
        if not in_table:
            continue
        if not stripped or set(stripped) == {"-"}:
            in_table = False
            continue
        k = _KERNEL.match(stripped)
        if not k:
            raise ParseError(path, lineno, f"malformed STREAM result line (expected '<Kernel>: rate avg min max'): {stripped!r}")
        kernel = k.group(1).lower()
        rate = number(k.group(2), path, lineno, f"{k.group(1)} rate")
        times = [number(k.group(i), path, lineno, f"{k.group(1)} {what} time")
                 for i, what in ((3, "avg"), (4, "min"), (5, "max"))]
        ctx["_has_rows"] = True
        ctx["_last"] = lineno
        params = {key: v for key, v in ctx.items() if not key.startswith("_")}
        params["p_kernel"] = kernel
        for metric, value, unit, hib, raw in (
            ("bandwidth", rate * 1e9, "B/s", True, f"{k.group(2)} GB/s"),
            ("time_avg", times[0], "s", False, f"{k.group(3)} s"),
            ("time_min", times[1], "s", False, f"{k.group(4)} s"),
            ("time_max", times[2], "s", False, f"{k.group(5)} s"),
        ):
            rows.add(lineno, metric, value, unit, hib, raw, params)
    close_run()
    if not seen_table:
        raise ParseError(path, None, "no STREAM output found (no 'Function      Rate (GB/s)   Avg time     Min time     Max time' table)")
    df = rows.frame()
    cut = end_cut_mid_line(df, text, path, always=True)
    if cut is not None:
        return cut
    if unclosed is not None and len(df):
        return cut_short(df, path, unclosed[1], f"run {unclosed[0]} ends before STREAM's closing "
                         "lines (its validation, 'Solution Validates' or 'Failed Validation', and "
                         "a rule of '-'): the kernels read are kept")
    return df
