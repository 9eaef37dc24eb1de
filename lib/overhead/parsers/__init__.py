"""One parser module (or package) per tool; this registry maps TOOL names to them.

Adding a tool is one module (with ``TOOL``, ``parse(text, path)`` and ``detect(text)``, building
its rows with :class:`overhead.parsers._common.Rows`), one line in :data:`PARSERS`, one fixture
folder under ``tests/fixtures/<tool>/`` and one test file. Modules are imported only when used,
so the CLI starts fast.

The parser contract, which every parser module follows (its own docstrings say only what is
particular to it):

``parse(text: str, path: str = "<string>") -> pandas.DataFrame``
    ``text`` is the whole output of the tool (a file's content); ``path`` names it in every
    row's ``source`` ("path:line") and in errors. Returns conformed tidy rows (see
    :mod:`overhead.schema`): benchmark, tool, metric, value, unit, higher_is_better, source,
    raw and the ``p_*`` parameters the output itself states; the module docstring lists them.
    A field the output does not contain gives no row, never a 0. Raises :class:`ParseError`
    (``path:line: message``) for text that is not the tool's output or is malformed.

``detect(text: str) -> float``
    Returns the confidence that ``text`` is this tool's output, from 0 (not it) to 1;
    :func:`detect` below asks every parser and picks the most confident.
The four outcomes (issue 26): every parse ends in exactly one of them, and says which.

1. **Finished**: the output holds the tool's closing lines; rows, nothing on stderr, exit 0.
2. **Cut short with results**: some results are complete but the run (or the capture) ended
   before the tool's own closing section (a server that died during a later test, Ctrl-C, a
   file cut mid-report): the rows read are returned, marked with :func:`cut_short`
   (``path:line: the run was cut short: what``); the command line prints the rows and that
   line on stderr (exit 0), ingest records the run ``partial``. A capture that ends before
   the closing section is never returned as a finished run.
3. **Failed without results**: the output is the tool's, but no result is in it (the tool's
   error, a header only): :class:`RunFailed` (``path:line: the run did not finish: what``,
   quoting the tool's message); exit 2, ingest records the run ``failed``.
4. **Not a run of this tool**: another tool's output, garbage, a malformed line, or a step of
   the tool that measures nothing (sysbench ``prepare``): :class:`ParseError`
   (``path:line: message``), exit 2.

The table of what each parser does for each outcome is in ``docs/parser-outcomes.md``.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

from overhead.errors import OverheadError
from overhead.parsers._common import (
    ParseError,
    RunFailed,
    cut_message,
    cut_short,
    cut_short_of,
    notes_of,
)

#: TOOL name -> module that parses its output.
PARSERS: dict[str, str] = {
    "linpack": "overhead.parsers.linpack",
    "stream": "overhead.parsers.stream",
    "gups": "overhead.parsers.gups",
    "fio": "overhead.parsers.fio",
    "redis-benchmark": "overhead.parsers.redis_benchmark",
    "sysbench": "overhead.parsers.sysbench",
    "dstat": "overhead.parsers.dstat",
    "netperf": "overhead.parsers.netperf",
    "nuttcp": "overhead.parsers.nuttcp",
    "hpcc": "overhead.parsers.hpcc",
    "xz": "overhead.parsers.xz",
    "hyperfine": "overhead.parsers.hyperfine",
    "pg_test_fsync": "overhead.parsers.pg_test_fsync",
    "hdparm": "overhead.parsers.hdparm",
    "ab": "overhead.parsers.ab",
    "perf-stat": "overhead.parsers.perf_stat",
    "mpstat": "overhead.parsers.mpstat",
    "vmstat": "overhead.parsers.vmstat",
    "iostat": "overhead.parsers.iostat",
    "iperf3": "overhead.parsers.iperf3",
    "sockperf": "overhead.parsers.sockperf",
    "qperf": "overhead.parsers.qperf",
    "wrk": "overhead.parsers.wrk",
    "memtier_benchmark": "overhead.parsers.memtier_benchmark",
    "hpl": "overhead.parsers.hpl",
}


class UnknownTool(OverheadError, KeyError):
    """The TOOL name is not in the registry; the message lists the known ones."""

    def __str__(self) -> str:
        """Name the unknown tool and list the known ones."""
        return f"unknown tool {self.args[0]!r}; known tools: {', '.join(sorted(PARSERS))}"


def module(tool: str) -> ModuleType:
    """Import and return the parser module registered for ``tool``.

    Parameters
    ----------
    tool : str
        A key of :data:`PARSERS`.

    Returns
    -------
    types.ModuleType
        The module, with ``TOOL``, ``parse`` and ``detect``.

    Raises
    ------
    UnknownTool
        When ``tool`` is not registered.
    """
    try:
        name = PARSERS[tool]
    except KeyError:
        raise UnknownTool(tool) from None
    return importlib.import_module(name)


def parse_text(tool: str, text: str, path: str = "<string>", **options):
    """Parse ``text`` as output of ``tool``.

    Parameters
    ----------
    tool : str
        A key of :data:`PARSERS`.
    text : str
        The whole output.
    path : str
        Its name, used in ``source`` and in errors.
    **options
        What the file cannot say and the user gives (netperf's ``unit``: see
        :mod:`overhead.parsers.netperf`); passed to the parser only when given.

    Returns
    -------
    pandas.DataFrame
        Conformed tidy rows. When the run failed after some results were complete (a server
        that died during a later test), those rows are returned and :func:`cut_short_of` gives
        the failure's message.

    Raises
    ------
    RunFailed
        When ``text`` is the tool's output but holds no result: the run failed (the parser's
        message quotes the tool's error), or nothing in it is a result.
    ParseError
        When ``text`` is not valid output of ``tool``.
    UnknownTool
        When ``tool`` is not registered.
    """
    # a byte-order mark left in a string (read without overhead.parsers.read_text) is not text
    # the tool wrote: every format accepts it, once, here
    df = module(tool).parse(text.removeprefix("\ufeff"), path, **options)
    if df.empty:
        # the backstop of "failed runs never vanish": a parser that found the tool's output
        # but no result in it says what it saw (RunFailed); one that returns no rows at all
        # gets this message instead of "0 rows, exit 0"
        lines = len(text.splitlines())
        raise RunFailed(path, None, f"no {tool} result in the output ({lines} line"
                        f"{'' if lines == 1 else 's'}, none of them a result)")
    return df


#: Byte-order marks and the encodings they announce (UTF-16 is what Windows PowerShell's ``>``
#: and ``Out-File`` write; Notepad and PowerShell's ``-Encoding utf8`` put a BOM before UTF-8).
_BOMS = ((b"\xef\xbb\xbf", "utf-8"), (b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be"))


def _utf16_without_bom(data: bytes) -> str | None:
    r"""Recognize UTF-16 text without a byte-order mark by its NUL bytes.

    Returns "utf-16-le", "utf-16-be" or None. Every tool output is mostly ASCII, which UTF-16
    writes as the character and a NUL byte (``s\0y\0s\0`` little-endian, ``\0s\0y\0s``
    big-endian), so one byte of each pair is NUL; UTF-8 text has no NUL bytes at all. The
    first 4096 bytes decide: at least 9 in 10 of the bytes on one side of the pairs NUL, and
    at most 1 in 10 on the other.
    """
    head = data[:4096]
    if len(head) < 4 or len(head) % 2 and len(data) <= 4096:
        return None
    even, odd = head[0::2], head[1::2]
    nul_even, nul_odd = even.count(0) / len(even), odd.count(0) / len(odd)
    if nul_odd >= 0.9 and nul_even <= 0.1:
        return "utf-16-le"
    if nul_even >= 0.9 and nul_odd <= 0.1:
        return "utf-16-be"
    return None


def decode(data: bytes, path: str) -> str:
    """Decode a raw output file's bytes: UTF-8, UTF-8/UTF-16 after a byte-order mark, or UTF-16.

    UTF-16 without a byte-order mark is recognized by its NUL bytes. The byte-order mark is dropped, so every parser (JSON, CSV and text alike) sees the text
    the tool wrote; CRLF line ends are left to the parsers (``splitlines`` handles them).

    Parameters
    ----------
    data : bytes
        The file's content.
    path : str
        Its name, for the error message.

    Returns
    -------
    str
        The text, without a byte-order mark.

    Raises
    ------
    ParseError
        When the bytes are not text in that encoding (naming the line).
    """
    encoding, skip = "utf-8", 0
    for bom, enc in _BOMS:
        if data.startswith(bom):
            encoding, skip = enc, len(bom)
            break
    bare = None if skip else _utf16_without_bom(data)
    encoding = bare or encoding
    body = data[skip:]
    try:
        return body.decode(encoding)
    except UnicodeDecodeError as exc:
        before = body[: exc.start].decode(encoding, errors="replace")
        what = ("UTF-8" if encoding == "utf-8" else "UTF-16 after its byte-order mark" if skip
                else f"UTF-16{encoding[-2:].upper()} without a byte-order mark, as its NUL bytes "
                "say")
        raise ParseError(path, before.count("\n") + 1, f"not a text file (invalid {what})") from None


def read_text(path: str | Path) -> str:
    """Read a raw output file as text.

    Parameters
    ----------
    path : str or pathlib.Path
        The file.

    Returns
    -------
    str
        Its content, decoded by :func:`decode` (UTF-8, or UTF-8/UTF-16 with a byte-order mark).

    Raises
    ------
    ParseError
        When the bytes are not text (naming the line), rather than a crash.
    """
    return decode(Path(path).read_bytes(), str(path))


def parse_file(tool: str, path: str | Path, *, name: str | None = None):
    """Read ``path`` and parse it as output of ``tool``.

    Parameters
    ----------
    tool : str
        A key of :data:`PARSERS`.
    path : str or pathlib.Path
        The file.
    name : str, optional
        The name used in ``source`` and in errors instead of ``path``.

    Returns
    -------
    pandas.DataFrame
        Conformed tidy rows.

    Raises
    ------
    ParseError
        When the file is not valid output of ``tool``.
    """
    return parse_text(tool, read_text(path), name or str(path))


def parse_file_wide(tool: str, path: str | Path, *, name: str | None = None):
    """Read a system monitor's output file into a wide table, if its format has one.

    A monitor tool's module may define ``parse_wide(text, path)`` (dstat does, for its CSV
    files): one row per sample and one column per counter (:mod:`overhead.wide`), which
    melts into exactly the rows :func:`parse_file` gives. Ingest stores those tables as they
    are, instead of millions of long rows.

    Parameters
    ----------
    tool : str
        A key of :data:`PARSERS`.
    path : str or pathlib.Path
        The file.
    name : str, optional
        The name used in ``source`` and in errors instead of ``path``.

    Returns
    -------
    (pyarrow.Table, str or None) or None
        The wide table and, for a run cut short, :func:`cut_short_of`'s message; None when the
        tool (or this file's format) has no wide form: use :func:`parse_file`.

    Raises
    ------
    ParseError, RunFailed
        As :func:`parse_file`.
    """
    parse_wide = getattr(module(tool), "parse_wide", None)
    if parse_wide is None:
        return None
    label = name or str(path)
    got = parse_wide(read_text(path), label)
    if got is None:
        return None
    table, cut = got
    return table, (cut_message(*cut) if cut is not None else None)


def detect(text: str) -> str:
    """Pick the tool whose output ``text`` is, by asking every parser's ``detect``.

    Parameters
    ----------
    text : str
        The output.

    Returns
    -------
    str
        The TOOL name of the most confident parser.

    Raises
    ------
    ParseError
        When no parser recognizes the text, or when several do with equal confidence (the
        message names them).
    """
    text = text.removeprefix("\ufeff")
    scores: dict[str, float] = {}
    for tool in PARSERS:
        try:
            mod = module(tool)
        except ModuleNotFoundError:
            continue
        score = float(mod.detect(text))
        if score > 0:
            scores[tool] = score
    if not scores:
        raise ParseError("<input>", None, "no known tool's output recognized; give TOOL explicitly")
    best = max(scores.values())
    winners = sorted(t for t, s in scores.items() if s == best)
    if len(winners) > 1:
        raise ParseError("<input>", None, f"ambiguous output: looks like {', '.join(winners)}")
    return winners[0]


__all__ = ["PARSERS", "ParseError", "RunFailed", "UnknownTool", "cut_short", "cut_short_of", "notes_of", "decode",
           "detect", "module", "parse_file", "parse_file_wide", "parse_text", "read_text"]
