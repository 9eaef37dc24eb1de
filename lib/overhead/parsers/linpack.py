"""Intel optimized LINPACK (``xlinpack_xeon64``) text output.

One file may hold several runs ("blocks"), each started by a line of dashes and, in the
IBM scripts, ``Running linpack [with numaopts < ... >], started at <date>``. Each block has a
header (CPU frequency, CPUs/cores/threads, problem size, trials requested), one result line
per trial::

    Size   LDA    Align. Time(s)    GFlops   Residual     Residual(norm) Check
    45000  45000  1      208.417    291.5018 1.876477e-09 3.301464e-02   pass

and, when it finished, a ``Performance Summary`` and ``Done:``. A block that was aborted
keeps the trials it printed; they carry ``p_block_complete = False``.

Rows per trial: ``flop_rate`` (FLOP/s), ``solve_time`` (s), ``residual`` and
``residual_norm`` (ratio). Parameters: p_problem_size, p_lda, p_align, p_block (1-based block
number in the file), p_block_complete, p_trials_requested, p_numa (numactl options),
p_cpu_ghz, p_cpus, p_cores, p_threads, p_check (pass/fail).

The block's ``Performance Summary (GFlops)`` gives, per problem size, one
``flop_rate_mean`` and one ``flop_rate_max`` row (FLOP/s; LINPACK's own "Average" and
"Maximal" over the size's trials, as printed, to four decimals of GFlops)::

    Size   LDA    Align.  Average  Maximal
    45000  45000  1       290.8286 292.3367

with p_problem_size, p_lda, p_align and the block's parameters, but no trial number and no
p_check.
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
from overhead.parsers._datestamp import started_at

TOOL = "linpack"
#: The IBM wrapper's last line: "Done: Fri Jul 18 05:16:47 UTC 2014" (`date`'s whole output).
_DONE = re.compile(r"^Done: \w{3} \w{3} +\d{1,2} \d\d:\d\d:\d\d \S+ \d{4}$")
BENCHMARK = "linpack"

_RUNNING = re.compile(r"^Running linpack(?: with numaopts <\s*(.*?)\s*>)?, started at (.+)$")
_TRIAL = re.compile(
    r"^\s*(\d+)\s+(\d+)\s+(\d+)\s+([0-9.]+)\s+([0-9.]+)\s+(\S+)\s+(\S+)\s+(pass|fail)\s*$"
)
_SUMMARY_ROW = re.compile(r"^(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(\S+)$")
_HEADER = {
    "CPU frequency:": "cpu_ghz",
    "Number of CPUs:": "cpus",
    "Number of cores:": "cores",
    "Number of threads:": "threads",
    "Number of trials to run": "trials_requested",
}


def detect(text: str) -> float:
    """Tell whether ``text`` is Intel LINPACK output.

    Returns a confidence from 0 (not LINPACK output) to 1.
    """
    head = text[:4000]
    if "Intel(R) Optimized LINPACK Benchmark" in head or "Timing linear equation system solver" in text[:20000]:
        return 1.0
    return 0.0


def parse(text: str, path: str = "<string>") -> pd.DataFrame:
    """Parse LINPACK text into tidy rows, one group of four per trial.

    Follows the parser contract of :mod:`overhead.parsers` (text and path in, conformed
    tidy rows out); the rows are described in the module docstring.

    Raises
    ------
    ParseError
        When the text holds no LINPACK block, or a trial line is malformed.
    """
    rows = Rows(path, benchmark=BENCHMARK, tool=TOOL)
    block = 0
    blk: dict | None = None  # the block in progress: its number, line, wrapper, rows, ends seen
    unclosed: tuple[int, int, str] | None = None  # the first block that did not end

    def begin(lineno: int, wrapper: bool) -> None:
        """Start block ``block + 1`` at ``lineno``, after judging the one in progress."""
        nonlocal blk, unclosed
        if blk is not None and unclosed is None:
            unclosed = _unended(blk, len(rows))
        blk = {"n": block + 1, "line": lineno, "wrapper": wrapper, "rows": len(rows),
               "ended": False, "done": False}
    ctx: dict = {}
    block_start = 0  # first row of the block in progress
    block_trials = 0  # its trials so far
    seen_linpack = False

    def close_block(complete: bool) -> None:
        nonlocal block_start, block_trials
        rows.fill("p_block_complete", complete, block_start)
        block_start = len(rows)
        block_trials = 0

    in_table = False
    in_summary = False  # inside a "Performance Summary" table
    for lineno, line in numbered(text):
        stripped = line.strip()
        if stripped.startswith("-----") and set(stripped) == {"-"}:
            if block_trials:
                close_block(False)
            in_table = False
            continue
        m = _RUNNING.match(stripped)
        if m:
            if block_trials:
                close_block(False)
            begin(lineno, True)
            block += 1
            ctx = {"p_block": block}
            if m.group(1):
                ctx["p_numa"] = " ".join(m.group(1).split())
            ts = started_at(m.group(2))
            if ts is not None:
                ctx["started_at"] = ts
            continue
        if stripped.startswith("Intel(R) Optimized LINPACK"):
            seen_linpack = True
            if "p_block" not in ctx:  # output without the IBM wrapper line starts a block here
                begin(lineno, False)
                block += 1
                ctx = {"p_block": block}
            continue
        for key, param in _HEADER.items():
            if stripped.startswith(key):
                _, colon, value = stripped.partition(":")
                token = value.split()
                if not colon or not token:
                    raise ParseError(path, lineno, f"{key} has no value")
                if param == "cpu_ghz":
                    ctx["p_cpu_ghz"] = number(token[0], path, lineno, key)
                else:
                    ctx[f"p_{param}"] = integer(token[0], path, lineno, key)
                break
        if stripped.startswith("Size") and "GFlops" in stripped and "Time(s)" in stripped:
            in_table = True
            seen_linpack = True
            continue
        if stripped.startswith("Performance Summary"):
            in_table = False
            in_summary = True
            continue
        if in_summary:
            if not stripped or (stripped.startswith("Size") and "Average" in stripped):
                continue
            if stripped[0].isdigit():
                _summary_row(rows, stripped, lineno, ctx)
                continue
            in_summary = False
        if blk is not None and stripped.startswith("End of tests"):
            blk["ended"] = True  # the Intel benchmark's last line
        if blk is not None and _DONE.match(stripped):
            blk["done"] = True  # the wrapper's last line, with its whole date
            continue
        if stripped.startswith("Residual checks") or stripped.startswith("End of tests"):
            if block_trials:
                close_block(True)
                ctx = {}
            continue
        if in_table:
            if not stripped:
                continue
            t = _TRIAL.match(line)
            if not t:
                raise ParseError(path, lineno, f"malformed LINPACK result line: {stripped!r}")
            size, lda, align = (integer(t.group(i), path, lineno, n) for i, n in
                                ((1, "size"), (2, "LDA"), (3, "align")))
            seconds = number(t.group(4), path, lineno, "Time(s)")
            gflops = number(t.group(5), path, lineno, "GFlops")
            residual = number(t.group(6), path, lineno, "Residual")
            residual_norm = number(t.group(7), path, lineno, "Residual(norm)")
            block_trials += 1
            params = {k: v for k, v in ctx.items() if not k.startswith("_")}
            params.update(p_problem_size=size, p_lda=lda, p_align=align, p_check=t.group(8),
                          trial=block_trials)
            tokens = stripped.split()
            for metric, value, unit, hib, raw in (
                ("flop_rate", gflops * 1e9, "FLOP/s", True, tokens[4] + " GFlops"),
                ("solve_time", seconds, "s", False, tokens[3] + " s"),
                ("residual", residual, "ratio", None, tokens[5]),
                ("residual_norm", residual_norm, "ratio", None, tokens[6]),
            ):
                rows.add(lineno, metric, value, unit, hib, raw, params)
    if block_trials:
        close_block(False)
    if not seen_linpack:
        raise ParseError(path, 1, "no Intel LINPACK output found (no 'Timing linear equation system solver' table)")
    df = rows.frame()
    cut = end_cut_mid_line(df, text, path)
    if cut is not None:
        return cut
    if blk is not None and unclosed is None:
        unclosed = _unended(blk, len(rows))
    if unclosed is not None and len(df):
        return cut_short(df, path, unclosed[1], f"block {unclosed[0]} (from this line) {unclosed[2]}"
                         ": the trials read are kept")
    return df


def _unended(blk: dict, nrows: int) -> tuple[int, int, str] | None:
    """Say how a block stopped before its end: (block, line, what), or None when it ended.

    The Intel benchmark ends with "End of tests", the IBM wrapper with "Done: <date>". A block
    with results needs the first (and the second when the wrapper started it); a wrapper block
    without any result that the wrapper closed is a run that failed at once, not a cut.
    """
    has_rows = nrows > blk["rows"]
    if blk["wrapper"]:
        if not blk["done"]:
            return blk["n"], blk["line"], "ends before the wrapper's closing 'Done:' line"
        if has_rows and not blk["ended"]:
            return blk["n"], blk["line"], "ends before the benchmark's closing line 'End of tests'"
        return None
    if not blk["ended"]:
        return blk["n"], blk["line"], "ends before the benchmark's closing line 'End of tests'"
    return None


def _summary_row(rows: Rows, stripped: str, lineno: int, ctx: dict) -> None:
    """Add the two rows of one ``Performance Summary`` line (average and maximum GFlops)."""
    path = rows.path
    m = _SUMMARY_ROW.match(stripped)
    if not m:
        raise ParseError(path, lineno, "malformed LINPACK performance summary line (expected "
                         f"'<size> <LDA> <align> <average> <maximal>'): {stripped!r}")
    size, lda, align = (integer(m.group(i), path, lineno, n) for i, n in
                        ((1, "size"), (2, "LDA"), (3, "align")))
    params = {k: v for k, v in ctx.items() if not k.startswith("_")}
    params.update(p_problem_size=size, p_lda=lda, p_align=align)
    for metric, group, what in (("flop_rate_mean", 4, "Average"), ("flop_rate_max", 5, "Maximal")):
        gflops = number(m.group(group), path, lineno, f"{what} GFlops")
        rows.add(lineno, metric, gflops * 1e9, "FLOP/s", True, f"{m.group(group)} GFlops ({what})",
                 params)
