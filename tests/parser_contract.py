"""Properties every parser must have, checked on genuine tool outputs.

- every prefix (cut at a line boundary) of a real output gives valid rows or a ParseError,
  never another exception;
- a prefix never yields a value the whole file does not yield at the same place;
- a 0 is only ever reported where the output printed a zero;
- random bytes give rows or a ParseError, never another exception.

The failed-run rule (the library's words are in :mod:`overhead.parsers`): a parse is finished
(rows), cut short with results (rows and :func:`overhead.parsers.cut_short_of`), failed without
results (RunFailed) or not a run of this tool (ParseError). ``tests/parsers/test_parser_cuts.py``
checks on genuine outputs that a cut is never a finished run.
"""

from __future__ import annotations

import re

import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from overhead.parsers import ParseError, parse_text
from overhead.schema import validate

_NONZERO_DIGIT = re.compile(r"[1-9]")


def check_rows(df: pd.DataFrame, path: str) -> None:
    """Validate a parser result and check that every 0 came from a printed zero."""
    validate(df)
    zeros = df[df["value"] == 0.0]
    for raw, src in zip(zeros["raw"], zeros["source"], strict=True):
        assert isinstance(raw, str), f"{src}: a 0 without the raw text it came from"
        # Strip exponents and units that may carry digits ("0.00 per sec" is fine, "1e-9"
        # rounded to 0 is not a zero the tool printed).
        number_part = re.split(r"[a-zA-Z/%(\[]", raw.strip(), maxsplit=1)[0]
        assert not _NONZERO_DIGIT.search(number_part), f"{src}: 0 reported for {raw!r}"


_KEYS = ["source", "metric", "value", "p_percentile", "p_kernel", "p_test", "p_direction", "p_job", "p_le"]


def with_line(lines: list[str], n: int, text: str) -> str:
    """Return the whole text of ``lines`` (kept ends) with line ``n`` (1-based) replaced by
    ``text``: a genuine output with one field broken, for "the error names line n" tests."""
    return "".join([*lines[:n - 1], text, *lines[n:]])


def _keys(df: pd.DataFrame) -> set[tuple]:
    """Identify rows by where they were read and what they say (fixed width, NA-safe)."""
    k = df.reindex(columns=_KEYS).astype(object)
    return set(map(tuple, k.where(k.notna(), None).astype(str).to_numpy()))


def parse_prefix(tool: str, text: str, cut: int, path: str = "prefix") -> pd.DataFrame | None:
    """Parse the first ``cut`` lines of ``text``; None when the parser raised ParseError."""
    lines = text.splitlines(keepends=True)
    try:
        return parse_text(tool, "".join(lines[:cut]), path)
    except ParseError as exc:
        assert exc.path == path, f"ParseError names {exc.path!r}, not the input {path!r}"
        return None


def check_prefix(tool: str, text: str, cut: int, full: pd.DataFrame) -> None:
    """One prefix: valid rows that are a subset of the whole file's rows, or a ParseError."""
    df = parse_prefix(tool, text, cut)
    if df is None:
        return
    check_rows(df, "prefix")
    extra = _keys(df) - _keys(full)
    assert not extra, f"prefix of {cut} lines yields rows the full file does not: {sorted(extra)[:3]}"


def check_all_prefixes(tool: str, text: str, *, limit: int = 400) -> None:
    """Check every prefix when the output has at most ``limit`` lines, else an even sample."""
    full = parse_text(tool, text, "prefix")
    check_rows(full, "prefix")
    n = len(text.splitlines())
    cuts = range(n + 1) if n <= limit else sorted({round(i * n / limit) for i in range(limit + 1)})
    for cut in cuts:
        check_prefix(tool, text, cut, full)


def hypothesis_prefixes(tool: str, text: str, examples: int = 60):
    """A hypothesis test body over random cut points of ``text`` (call the returned function)."""
    full = parse_text(tool, text, "prefix")
    n = len(text.splitlines())

    @settings(max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.integers(min_value=0, max_value=n))
    def run(cut: int) -> None:
        check_prefix(tool, text, cut, full)

    return run


def hypothesis_random_bytes(tool: str, examples: int = 100):
    """A hypothesis test body feeding random bytes (decoded leniently) to the parser."""

    @settings(max_examples=examples, deadline=None)
    @given(st.binary(max_size=2000) | st.text(max_size=2000))
    def run(data) -> None:
        text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
        try:
            df = parse_text(tool, text, "random")
        except ParseError:
            return
        check_rows(df, "random")

    return run
