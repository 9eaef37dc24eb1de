"""PostgreSQL ``pg_test_fsync`` text output (9.x and 15; 9.1-era output without ``usecs/op``).

Layout (PostgreSQL 15, ``pg_test_fsync -s 1``)::

    1 second per test
    O_DIRECT supported on this platform for open_datasync and open_sync.

    Compare file sync methods using one 8kB write:
    (in wal_sync_method preference order, except fdatasync is Linux's default)
            open_datasync                      7175.491 ops/sec     139 usecs/op
            fsync_writethrough                              n/a
    ...
    Compare open_sync with different write sizes:
             1 * 16kB open_sync write          8356.524 ops/sec     120 usecs/op
             2 *  8kB open_sync writes         4116.453 ops/sec     243 usecs/op
    ...
    Non-sync'ed 8kB writes:
            write                           3561210.164 ops/sec       0 usecs/op

PostgreSQL 9.x prints the same sections (``Non-Sync'ed`` with a capital S, the parenthesised
remark wrapped over two lines); 9.1-era output has no ``usecs/op`` column and labels the
open_sync sizes as ``16kB open_sync write`` / `` 8kB open_sync writes`` without a count.

Rows per test line: ``operation_rate`` (op/s, higher is better) and, when printed,
``operation_time`` (s per operation, from ``usecs/op``; lower is better). ``usecs/op`` is an
integer the tool rounded, so a fast test can print ``0 usecs/op``: that 0 is kept as printed.

Parameters: p_section (the section title without the colon; the 9.x spelling "Non-Sync'ed" is
normalised to PostgreSQL 15's "Non-sync'ed" so that sections compare across versions),
p_method (the test label: ``open_datasync``, ``fdatasync``, ``fsync``, ``open_sync``,
``write, fsync, close``, ``write``, ...), p_write_size (bytes per write; from the section title
"one 8kB write" / "Non-sync'ed 8kB writes" or from the line "2 *  8kB open_sync writes"),
p_writes (writes per operation, where the title says "one"/"two" or the line says "N *"),
p_seconds_per_test (from "N seconds per test"), p_o_direct (False when the tool says
"Direct I/O is not supported on this platform.", True when it says "O_DIRECT supported").
kB in pg_test_fsync is 1024 bytes (XLOG_BLCKSZ / 1024).

Not recorded: the remark "(in wal_sync_method preference order, except fdatasync is Linux's
default)" is fixed text printed on every platform, so it says nothing about the run measured.

Absent values: a method the platform lacks prints ``n/a`` (or ``n/a*`` when the file system
refuses O_DIRECT); it gives no row. pg_test_fsync prints a test's label before running it, so
an output cut short ends in a label without numbers: that last test gives no row. Every run
ends with the "Non-sync'ed 8kB writes" test; a run without its result (stopped, or its capture
cut, during an earlier test) keeps its rows, marked cut short
(:func:`~overhead.parsers._common.cut_short`). A label
without numbers anywhere else, or numbers that do not parse, raise ParseError.

Several runs in one file (a new "N seconds per test" or "O_DIRECT ..." line after results)
are numbered with ``trial`` (1-based). Text with no pg_test_fsync line at all raises
ParseError (without a line: none is wrong); a header without any test line (a run cut
short) gives no rows, which :func:`overhead.parsers.parse_text` reports as a failed run.
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

TOOL = "pg_test_fsync"
BENCHMARK = "pg_test_fsync"

_SECONDS = re.compile(r"^(\d+) seconds? per test\s*$")
_SECTION = re.compile(r"^((?:Compare|Test|Non-[Ss]ync'ed)\b.*?):\s*$")
_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_RESULT = re.compile(
    rf"^\s+(?P<label>\S.*?)\s+(?P<rate>{_NUMBER}|\S+) ops/sec"
    rf"(?:\s+(?P<usecs>{_NUMBER}|\S+) usecs/op)?\s*$"
)
_NA = re.compile(r"^\s+(?P<label>\S.*?)\s+n/a\*?\s*$")
_SIZE_LABEL = re.compile(r"^(?:(\d+)\s*\*\s*)?(\d+)kB\s+(\S+)\s+writes?$")
_TITLE_SIZE = re.compile(r"(?:\b(one|two|\d+)\s+)?\b(\d+)kB writes?\b")
_COUNTS = {"one": 1, "two": 2}
_LIMIT = 2**63


def detect(text: str) -> float:
    """Tell whether ``text`` is pg_test_fsync output.

    Returns a confidence from 0 (not pg_test_fsync output) to 1.
    """
    head = text[:20000]
    if "ops/sec" in head and ("Compare file sync methods" in head or "open_sync" in head):
        return 1.0
    if ("seconds per test" in head or "second per test" in head) and "O_DIRECT" in head:
        return 0.9
    return 0.0


def _section_params(title: str, path: str, lineno: int) -> dict:
    """Read the parameters a section title states: its normalised name, write size and count.

    A size or count too large for the 64-bit parameter column raises ParseError at the title's
    line (the rows that carry it come later).
    """
    name = title.replace("Non-Sync'ed", "Non-sync'ed")
    params: dict = {"p_section": name}
    m = _TITLE_SIZE.search(title)
    if m and "different write sizes" not in title:
        params["p_write_size"] = integer(m.group(2), path, lineno, "write size (kB)",
                                         limit=_LIMIT // 1024) * 1024
        count = m.group(1)
        if count:
            params["p_writes"] = _COUNTS.get(count) or integer(count, path, lineno, "writes",
                                                               limit=_LIMIT)
    return params


def parse(text: str, path: str = "<string>") -> pd.DataFrame:
    """Parse pg_test_fsync text into tidy rows (rate and time per test line).

    Follows the parser contract of :mod:`overhead.parsers` (text and path in, conformed
    tidy rows out); the rows are described in the module docstring.

    Raises
    ------
    ParseError
        When the text is not pg_test_fsync output or a test line is malformed.
    """
    rows = Rows(path, benchmark=BENCHMARK, tool=TOOL)
    lines = list(numbered(text))
    last_content = max((n for n, line in lines if line.strip()), default=0)
    seen = False
    trial = 1
    rows_in_trial = 0
    run: dict = {}
    section: dict | None = None
    header_seen_in_trial = False
    closed = False  # the run in progress reached its last test, "Non-sync'ed 8kB writes"
    unclosed: int | None = None  # the trial of the first run that stopped before it

    def new_run_if_needed() -> None:
        nonlocal trial, rows_in_trial, run, section, closed, unclosed
        if rows_in_trial:
            if not closed and unclosed is None:
                unclosed = trial
            closed = False
            trial += 1
            rows_in_trial = 0
            run = {}
            section = None

    error: tuple[int, str] | None = None  # pg_test_fsync's own error ("pg_test_fsync: error: ...")
    for lineno, line in lines:
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("pg_test_fsync: ") and error is None:
            error = (lineno, stripped)
            continue
        m = _SECONDS.match(stripped)
        if m:
            new_run_if_needed()
            seen = True
            header_seen_in_trial = True
            run["p_seconds_per_test"] = integer(m.group(1), path, lineno, "seconds per test", limit=_LIMIT)
            continue
        if stripped.startswith("O_DIRECT supported") or stripped.startswith("Direct I/O is not supported"):
            if not header_seen_in_trial:
                new_run_if_needed()
            header_seen_in_trial = False
            seen = True
            run["p_o_direct"] = stripped.startswith("O_DIRECT")
            continue
        if not line[:1].isspace():
            m = _SECTION.match(stripped)
            if m:
                seen = True
                header_seen_in_trial = False
                section = _section_params(m.group(1), path, lineno)
            # Other unindented lines are the sections' remarks or the "* This file system
            # ... does not support direct I/O" footnote.
            continue
        # Indented: a test line.
        if section is None:
            if not seen:
                continue  # not (yet) pg_test_fsync output; judged at the end
            raise ParseError(path, lineno, f"test line outside any section: {stripped!r}")
        if _NA.match(line):
            continue
        r = _RESULT.match(line)
        if not r:
            if lineno == last_content and "ops/sec" not in stripped:
                continue  # the run was cut while this test ran: only its label was printed
            raise ParseError(path, lineno, f"expected '<test>  <n> ops/sec [<n> usecs/op]' or 'n/a', found {stripped!r}")
        label = " ".join(r.group("label").split())
        rate = number(r.group("rate"), path, lineno, "ops/sec")
        params = dict(run)
        params.update(section)
        sized = _SIZE_LABEL.match(label)
        if sized:
            params["p_method"] = sized.group(3)
            params["p_write_size"] = int(sized.group(2)) * 1024
            if sized.group(1):
                params["p_writes"] = int(sized.group(1))
        else:
            params["p_method"] = label
        params["trial"] = trial
        rows.add(lineno, "operation_rate", rate, "op/s", True, f"{r.group('rate')} ops/sec", params)
        if r.group("usecs") is not None:
            usecs = number(r.group("usecs"), path, lineno, "usecs/op")
            rows.add(lineno, "operation_time", usecs * 1e-6, "s", False,
                     f"{r.group('usecs')} usecs/op", params)
        rows_in_trial += 1
        seen = True
        if str(params.get("p_section", "")).startswith("Non-sync'ed"):
            closed = True
    if not seen:
        raise ParseError(path, None, "no pg_test_fsync output found (no 'seconds per test', 'O_DIRECT' or 'Compare ...' line)")
    df = rows.frame()
    if not len(df) and error is not None:  # it stopped before any test: its own message says why
        raise RunFailed(path, *error)
    if rows_in_trial and not closed and unclosed is None:
        unclosed = trial
    if unclosed is not None and len(df):
        # every run ends with the "Non-sync'ed 8kB writes" test: a run without it stopped
        # (or its capture was cut) during an earlier test
        return cut_short(df, path, None, f"run {unclosed} ends before pg_test_fsync's last test "
                         "(\"Non-sync'ed 8kB writes\"): the tests read are kept")
    return df
