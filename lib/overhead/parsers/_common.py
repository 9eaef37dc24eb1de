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
