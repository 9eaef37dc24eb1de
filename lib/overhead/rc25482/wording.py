"""Words for the prose numbers of the RC25482 notebooks, shared by the section modules.

Each section module (:mod:`~overhead.rc25482.compute`, :mod:`~overhead.rc25482.blockio`,
:mod:`~overhead.rc25482.redis`, :mod:`~overhead.rc25482.mysql`) has one function per paragraph
of its notebook's prose ("Reading Fig N"), returning a dict of plain floats, ints and strings
that the notebook formats into its Markdown (with :mod:`overhead.prose`), so no result is typed
by hand and none can go stale. Where a paragraph makes a qualitative claim ("tracks native",
"never reaches"), the function also returns the words that the numbers support, so the sentence
changes when the data does. Values meant for "within x" or "at most x" are rounded *up*
(``*_bound`` keys), so the sentence stays true after formatting. This module holds what those
functions share: picking one row, rounding up, small counts in words, a margin and a run of
verdicts in words.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from overhead.rc25482.published import published

COUNT_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven",
                8: "eight", 9: "nine", 10: "ten"}
TIMES_WORDS = {1: "once", 2: "twice", 3: "three times", 4: "four times"}


def one(frame: pd.DataFrame, what: str) -> pd.Series:
    """Return the single row of ``frame``; ValueError naming ``what`` when there are 0 or more."""
    if len(frame) != 1:
        raise ValueError(f"expected one row for {what}, found {len(frame)}")
    return frame.iloc[0]


def row(frame: pd.DataFrame, **where: object) -> pd.Series:
    """Return the one row of ``frame`` whose columns equal ``where``."""
    mask = np.ones(len(frame), dtype=bool)
    for key, value in where.items():
        mask &= (frame[key] == value).to_numpy(dtype=bool, na_value=False)
    return one(frame[mask], f"the row at {where}")


def at(frame: pd.DataFrame, column: str, **where: object) -> float:
    """Return ``column`` of the one row of ``frame`` whose columns equal ``where``."""
    return float(row(frame, **where)[column])


def up(x: float, digits: int) -> float:
    """Round ``x`` up to ``digits`` decimals (for "within x" and "at most x")."""
    scale = 10.0 ** digits
    return math.ceil(round(x * scale, 9)) / scale


def up_sig(x: float, figures: int = 1) -> float:
    """Round a positive ``x`` up to ``figures`` significant figures."""
    if x <= 0:
        return 0.0
    return up(x, figures - 1 - math.floor(math.log10(x)))


def count(n: int) -> str:
    """Write a small count as a word ("nine"), a larger one in digits."""
    return COUNT_WORDS.get(int(n), str(int(n)))


def times(ratio: float) -> str:
    """Say how often a packet is counted, from a ratio near a whole number ("twice")."""
    k = int(round(ratio))
    return TIMES_WORDS.get(k, f"{ratio:.1f} times")


def paper(paper: pd.DataFrame | None) -> pd.DataFrame:
    """Return the published values (the default study file when the notebook has none)."""
    return paper if paper is not None else published()



def band(frame: pd.DataFrame) -> str:
    """Return the margin of a frame's comparisons in words ("±3%"); ValueError when they differ."""
    seen = frame[["margin_low_pct", "margin_high_pct"]].dropna().drop_duplicates()
    if len(seen) != 1:
        raise ValueError(f"expected one margin, found {len(seen)}")
    lo, hi = float(seen.iloc[0, 0]), float(seen.iloc[0, 1])
    return f"\u00b1{hi:g}%" if lo == -hi else f"{lo:+g}%/{hi:+g}%"


def word_list(values: list[object]) -> str:
    """Write 1, 2 and 5 as "1, 2 and 5"."""
    words = [str(v) for v in values]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def verdict_runs(rows: pd.DataFrame, x: str, *, unit: str = "threads") -> str:
    """Say where along a curve each verdict holds, in runs of neighbouring points.

    Parameters
    ----------
    rows : pandas.DataFrame
        One environment's points (``x``, verdict, margin_low_pct, margin_high_pct), sorted or
        not.
    x : str
        The swept parameter.
    unit : str
        Its unit, said once at the end.

    Returns
    -------
    str
        E.g. "equivalent within ±5% at 10-30 and 130-290 threads, slower at 50-110 threads"
        (verdicts in the order they first occur along the curve).
    """
    rows = rows.sort_values(x)
    xs, words = rows[x].astype(int).tolist(), rows["verdict"].astype(str).tolist()
    spans: dict[str, list[str]] = {}
    start = 0
    for i in range(1, len(xs) + 1):
        if i == len(xs) or words[i] != words[start]:
            spans.setdefault(words[start], []).append(
                str(xs[start]) if i - 1 == start else f"{xs[start]}-{xs[i - 1]}")
            start = i
    margin = band(rows)
    parts = []
    for word, where in spans.items():
        head = f"equivalent within {margin}" if word == "equivalent" else word
        parts.append(f"{head} at {word_list(where)} {unit}")
    return ", ".join(parts)
