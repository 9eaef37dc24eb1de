"""Helpers shared by the parsers: the error type, number and unit conversion, row building.

A parser is a pure function ``parse(text: str, path: str) -> pandas.DataFrame`` returning
conformed tidy rows (see :mod:`overhead.schema`). It fills ``benchmark``, ``tool``, ``metric``,
``value``, ``unit``, ``higher_is_better``, ``source`` ("path:line"), ``raw`` and the ``p_*``
parameters the output itself states; ingest adds campaign, environment and the other context.

Rules every parser follows:
- a field the output does not contain produces no row (never a 0.0 in its place);
- malformed or truncated input raises :class:`ParseError` naming the path and line;
- complete parts of a truncated file still produce their rows, unless the format cannot tell
  a complete part from a truncated one, in which case the parser raises.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator

from overhead.errors import ParseError  # noqa: F401  (re-exported for parsers)
from overhead.schema import frame  # noqa: F401  (re-exported for parsers)


def numbered(text: str) -> Iterator[tuple[int, str]]:
    """Yield ``(line_number, line)`` pairs, numbered from 1, without line terminators."""
    yield from enumerate(text.splitlines(), start=1)


def number(token: str, path: str, line: int, what: str) -> float:
    """Parse ``token`` as a finite float or raise ParseError naming ``what`` at ``path:line``.

    "nan", "-nan" and "inf" are not numbers a benchmark measured: they raise too, so that the
    caller decides whether the field is absent.
    """
    try:
        value = float(token)
    except (TypeError, ValueError):
        raise ParseError(path, line, f"{what}: expected a number, found {token!r}") from None
    if not math.isfinite(value):
        raise ParseError(path, line, f"{what}: {token!r} is not a finite number")
    return value


def integer(token: str, path: str, line: int, what: str) -> int:
    """Parse ``token`` as an int or raise ParseError naming ``what`` at ``path:line``."""
    try:
        return int(token)
    except (TypeError, ValueError):
        raise ParseError(path, line, f"{what}: expected an integer, found {token!r}") from None


# Binary multipliers as fio, dstat and most Linux tools print them (K = 1024).
_BINARY = {"": 1, "b": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4, "p": 1024**5}
# Decimal multipliers (kB = 1000 in the SI sense, as iperf/nuttcp "Mbps" use).
_DECIMAL = {"": 1, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12, "p": 1e15}

_SIZE = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([kKmMgGtTpP]?)(i?)([bB]?)\s*$")


def size_bytes(token: str, path: str, line: int, what: str, *, binary: bool = True) -> float:
    """Convert a size such as ``16384MB``, ``4K`` or ``1.5GiB`` to bytes.

    Parameters: token, the size as printed; binary, whether K/M/G mean powers of 1024 (fio,
    dstat) or of 1000. An ``i`` (KiB) always means binary.
    """
    m = _SIZE.match(token)
    if not m:
        raise ParseError(path, line, f"{what}: expected a size, found {token!r}")
    value = float(m.group(1))
    prefix = m.group(2).lower()
    table = _BINARY if (binary or m.group(3)) else _DECIMAL
    return value * table[prefix]


def source(path: str, line: int) -> str:
    """The ``source`` column value for a row read at ``path:line``."""
    return f"{path}:{line}"


def checked_frame(rows: list[dict], path: str):
    """:func:`frame`, after checking that whole-number parameters fit a 64-bit integer column;
    one that does not raises ParseError at its row's line (a corrupted number, not a value)."""
    for r in rows:
        for k, v in r.items():
            if k.startswith("p_") and isinstance(v, int) and not isinstance(v, bool) and abs(v) >= 2**63:
                line = r["source"].rsplit(":", 1)[-1]
                raise ParseError(path, int(line) if line.isdigit() else None, f"{k[2:]} {v} is out of range")
    return frame(rows)


# ---- JSON with the text and line of every value ----------------------------------------------

class JsonNumber(float):
    """A JSON number that remembers the text the tool printed for it (``tok``)."""

    tok: str


def _json_number(token: str) -> JsonNumber:
    n = JsonNumber(token)
    n.tok = token
    return n


#: json's decoder with numbers kept as JsonNumber and NaN/Infinity read as absent (None).
JSON_DECODER = json.JSONDecoder(parse_float=_json_number, parse_int=_json_number,
                                parse_constant=lambda _tok: None)
_JSON_KEY = re.compile(r'^"((?:[^"\\]|\\.)*)"\s*:\s*(.*)$')


def json_line_map(lines: list[str], first: int, last: int) -> dict[tuple, int]:
    """Map JSON paths (keys and list indices) to 1-based line numbers, for the pretty-printed
    layout of one value per line that fio and hyperfine write (``lines[first..last]`` hold the
    document). Other layouts just give fewer entries: look a path up, then its parents.
    """
    out: dict[tuple, int] = {}
    stack: list[list] = []  # [name, is_list, next_index]
    for idx in range(first, last + 1):
        s = lines[idx].strip()
        lineno = idx + 1
        m = _JSON_KEY.match(s)
        if m and stack:
            key = m.group(1).replace('\\"', '"').replace("\\\\", "\\")
            rest = m.group(2).rstrip(",").strip()
            path = tuple(e[0] for e in stack[1:]) + (key,)
            out[path] = lineno
            if rest in ("{", "["):
                stack.append([key, rest == "[", 0])
            continue
        bare = s.rstrip(",").strip()
        if bare in ("{", "["):
            if not stack:
                stack.append([None, bare == "[", 0])
                out[()] = lineno
            elif stack[-1][1]:
                i = stack[-1][2]
                stack[-1][2] += 1
                out[tuple(e[0] for e in stack[1:]) + (i,)] = lineno
                stack.append([i, bare == "[", 0])
            continue
        if s.startswith(("}", "]")) and stack:
            stack.pop()
            continue
        if bare and stack and stack[-1][1]:  # a scalar element of a list (hyperfine's "times")
            i = stack[-1][2]
            stack[-1][2] += 1
            out[tuple(e[0] for e in stack[1:]) + (i,)] = lineno
    return out
