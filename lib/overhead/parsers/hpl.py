"""HPL (High-Performance Linpack, ``xhpl``) output: ``HPL.out`` or its standard output.

The reference implementation from netlib (HPLinpack 2.0 to 2.3) and the builds derived from it
(Intel's MP LINPACK, HPL-NVIDIA) print a banner, the parameters from ``HPL.dat``, then one block
per test::

    HPLinpack 2.3  --  High-Performance Linpack benchmark  --   December 2, 2018
    ...
    ================================================================================
    T/V                N    NB     P     Q               Time                 Gflops
    --------------------------------------------------------------------------------
    WR00L2L2          29     1     2     2               3.79             4.6178e-06
    HPL_pdgesv() start time Sat May 15 18:05:59 2021
    ...
    ||Ax-b||_oo/(eps*(||A||_oo*||x||_oo+||b||_oo)*N)=   1.72533487e-02 ...... PASSED

and at the end ``Finished N tests with the following results:`` and ``End of Tests.``. Builds
with ``HPL_PROGRESS_REPORT`` print ``Column=... Fraction=... Gflops=...`` progress lines
before the result and ``HPL_DETAILED_TIMING`` a ``--VVV--`` block of partial times after it;
neither is read.

Rows per test (``benchmark`` = "hpl"): ``flop_rate`` (FLOP/s = Gflops x 1e9), ``solve_time``
(s) and ``residual`` (the scaled residual, ratio), with p_n, p_nb, p_p, p_q (the process grid),
p_variant (HPL's encoded variant as printed, e.g. ``WC23C2C4``: wall time, process mapping
R/C, DEPTH, BCAST 0-5, RFACT L/C/R, NDIV, PFACT L/C/R, NBMIN) and p_check (PASSED/FAILED). A
test is reported once its residual line has been read, or when the next test or the final
``Finished`` line shows that HPL printed none (no residual check: no p_check, no residual row);
a result line at the end of a file cut off before its check gives no row (whether it would
pass is not known). ``tool_version`` is the banner's version ("2.3"); ``trial`` is the 1-based
run number, a run starting at each banner (outputs appended to one file). The
``HPL_pdgesv() start time`` stamps are local times without a zone and are not read.

A file that is HPL's output but holds no complete test raises
:class:`~overhead.parsers._common.RunFailed`: quoting HPL's own error (``HPL ERROR from process
# 0, on line ... >>> Illegal input in file HPL.dat. Exiting ... <<<``) or the MPI launcher's
(``BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES``) when the file has one, naming its
line. A file with complete tests followed by such an error keeps the complete tests, marked cut
short (:func:`~overhead.parsers._common.cut_short`); so does one that ends before HPL's closing
lines, "End of Tests." and a rule of 80 '=' (a run stopped or a capture cut). HPCC's
output also holds HPL's banner and table (inside ``Begin of HPL section.``): it is HPCC's
(see :mod:`overhead.parsers.hpcc`) and this parser refuses it.
"""

from __future__ import annotations

import re

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

TOOL = "hpl"
BENCHMARK = "hpl"

_BANNER = re.compile(r"^HPLinpack (\d+(?:\.\d+)*[a-z]?)\s+--\s+High-Performance Linpack benchmark")
_TABLE_HEADER = re.compile(r"^T/V\s+N\s+NB\s+P\s+Q\s+Time\s+Gflops\s*$")
ROW = re.compile(r"^(W\S+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(\S+)\s*$")
_RESID = re.compile(r"^\|\|Ax-b\|\|_oo/\(eps\*\(\|\|A\|\|_oo\*\|\|x\|\|_oo\+\|\|b\|\|_oo\)\*N\)="
                    r"\s*(\S+)\s+\.+\s+(PASSED|FAILED)\s*$")
_FINISHED = re.compile(r"^Finished\s+\d+\s+tests with the following results:")
# what HPL itself, or an MPI launcher around it, prints when the run stops
_ERRORS = (
    re.compile(r"^HPL ERROR from process"),
    re.compile(r"^>>> .* <<<$"),
    re.compile(r"BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES"),
    re.compile(r"^YOUR APPLICATION TERMINATED WITH THE EXIT STRING"),
    re.compile(r"^(?:mpirun|prterun|mpiexec) noticed that process"),
    re.compile(r"^MPI_ABORT was invoked"),
)


def read_result(match: re.Match, path: str, lineno: int) -> dict:
    """Read an HPL result line (a match of ``ROW``: T/V, N, NB, P, Q, Time, Gflops).

    Shared with :mod:`overhead.parsers.hpcc`, whose HPL section prints the same table.
    """
    g = match.groups()
    return {"line": lineno, "variant": g[0], "n": integer(g[1], path, lineno, "N"),
            "nb": integer(g[2], path, lineno, "NB"), "p": integer(g[3], path, lineno, "P"),
            "q": integer(g[4], path, lineno, "Q"),
            "time": number(g[5], path, lineno, "Time"), "time_raw": g[5],
            "gflops": number(g[6], path, lineno, "Gflops"), "gflops_raw": g[6]}


def add_result(rows: Rows, result: dict, params: dict, check: str | None = None,
               resid: tuple[str, int] | None = None) -> None:
    """Add one HPL test's rows: flop_rate, solve_time and (when read) the scaled residual.

    flop_rate and solve_time are at the result line, the residual at its check line
    (``resid`` = (token, line)). ``params`` are the run's (trial, version, ...) columns; the test's N, NB, P, Q, variant
    and ``check`` (PASSED/FAILED) are added to them. Shared with :mod:`overhead.parsers.hpcc`.
    """
    params = {**params, "p_variant": result["variant"], "p_n": result["n"],
              "p_nb": result["nb"], "p_p": result["p"], "p_q": result["q"]}
    if check is not None:
        params["p_check"] = check
    rows.add(result["line"], "flop_rate", result["gflops"] * 1e9, "FLOP/s", True,
             f"{result['gflops_raw']} Gflops", params)
    rows.add(result["line"], "solve_time", result["time"], "s", False,
             f"{result['time_raw']} s", params)
    if resid is not None:
        value = number(resid[0], rows.path, resid[1], "HPL scaled residual")
        rows.add(resid[1], "residual", value, "ratio", None, resid[0], params)


def detect(text: str) -> float:
    """Tell whether ``text`` is HPL's own output (not HPCC's, which embeds HPL's).

    Returns a confidence from 0 (not HPL output) to 1.
    """
    head = text[:50000]
    if "HPC Challenge Benchmark" in head or "Begin of HPL section." in text \
            or "Begin of Summary section." in text:
        return 0.0
    if re.search(r"(?m)^HPLinpack \d+\.\d+\S*\s+--\s+High-Performance Linpack benchmark", head):
        return 1.0
    if re.search(r"(?m)^T/V\s+N\s+NB\s+P\s+Q\s+Time\s+Gflops\s*$", head):
        return 0.9
    return 0.0


def parse(text: str, path: str = "<string>") -> pd.DataFrame:
    """Parse HPL output into tidy rows (see the module docstring).

    Follows the parser contract of :mod:`overhead.parsers` (text and path in, conformed
    tidy rows out); the rows are described in the module docstring.

    Raises
    ------
    RunFailed
        For HPL output without any complete test (the message quotes the error HPL or its
        launcher printed, naming its line, when there is one).
    ParseError
        For text that is not HPL output, HPCC output, and malformed result lines.
    """
    if detect(text) == 0.0:
        where = _hpcc_line(text)
        if where is not None:
            raise ParseError(path, where, "this is HPCC output (it embeds HPL's): parse it as hpcc")
        raise ParseError(path, 1, "not HPL output (no 'HPLinpack ... High-Performance Linpack "
                                  "benchmark' banner and no 'T/V  N  NB  P  Q  Time  Gflops' table)")
    rows = Rows(path, benchmark=BENCHMARK, tool=TOOL)
    run: dict = {}
    trial = 0
    pending: dict | None = None  # the last result line, waiting for its residual check
    error: tuple[int, str] | None = None  # the first error line (HPL's or the launcher's)
    in_table = False
    closing: int | None = None  # "End of Tests.", until its rule of '=' follows
    ended: int | None = None  # the last run's closing rule

    def flush(check: str | None = None, resid: tuple[str, int] | None = None) -> None:
        nonlocal pending
        if pending is not None:
            add_result(rows, pending, run, check, resid)
        pending = None

    for lineno, line in numbered(text):
        stripped = line.strip()
        if not stripped:
            continue
        m = _BANNER.match(stripped)
        if m:
            pending = None  # a new run: the last result never got its check
            trial += 1
            run = {"trial": trial, "tool_version": m.group(1)}
            in_table = False
            closing = ended = None
            continue
        if stripped == "End of Tests.":
            closing = lineno
            continue
        if closing is not None and set(stripped) == {"="} and len(stripped) >= 80:
            ended, closing = lineno, None  # HPL_pdtest's last line: a rule of 80 '='
            continue
        if _TABLE_HEADER.match(stripped):
            flush()  # the previous test printed no residual check
            in_table = True
            if not run:  # a table without the banner (an excerpt)
                trial += 1
                run = {"trial": trial}
            continue
        if in_table:
            r = ROW.match(stripped)
            if r:
                pending = read_result(r, path, lineno)
                in_table = False
                continue
            if not set(stripped) <= {"-"}:
                raise ParseError(path, lineno, "malformed HPL result line (expected "
                                 f"'<T/V> <N> <NB> <P> <Q> <Time> <Gflops>'): {stripped[:80]!r}")
            continue
        if stripped.startswith("||Ax-b||_oo/"):
            c = _RESID.match(stripped)
            if not c:
                raise ParseError(path, lineno, f"malformed HPL residual check: {stripped[:100]!r}")
            if pending is not None:
                flush(c.group(2), (c.group(1), lineno))
            continue
        if _FINISHED.match(stripped):
            flush()
            continue
        if error is None and any(e.search(stripped) for e in _ERRORS):
            error = (lineno, stripped)
    if not run:
        raise ParseError(path, 1, "not HPL output (no banner and no result table)")
    if not len(rows):
        if error is not None:
            raise RunFailed(path, error[0], f"HPL stopped before any test finished: {error[1]!r}")
        raise RunFailed(path, None, "no HPL test finished (no result line with its residual check)")
    df = rows.frame()
    if error is not None:
        n = df.loc[df["metric"] == "flop_rate"].shape[0]
        return cut_short(df, path, error[0], f"HPL stopped after {n} finished test"
                                             f"{'' if n == 1 else 's'}, which are kept: {error[1]!r}")
    if ended is None:
        n = df.loc[df["metric"] == "flop_rate"].shape[0]
        return cut_short(df, path, None, f"the output ends before HPL's closing lines ('End of "
                         f"Tests.' and a rule of '='); the {n} finished test"
                         f"{'' if n == 1 else 's'} read {'is' if n == 1 else 'are'} kept")
    return df


def _hpcc_line(text: str) -> int | None:
    """Return the line of the first HPCC marker in ``text``, if any."""
    for lineno, line in numbered(text):
        if ("HPC Challenge Benchmark" in line or line.startswith("Begin of HPL section.")
                or line.startswith("Begin of Summary section.")):
            return lineno
    return None
