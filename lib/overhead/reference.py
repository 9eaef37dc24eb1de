"""Published values of any study, kept apart from the measurements that are compared with them.

Each study's published numbers (what its paper or article prints, and values its authors left
in spreadsheets) are one CSV file in the repository, ``data/reference/<study>.csv``, written by
hand from the sources, one row per number, each with where it comes from. :func:`published`
reads one such file; the columns are

``item, metric, env, value, err, err_kind, unit, n, source, status, note, quote``

where ``value`` is a number or a textual value ("-22%", "~110000", ">40% in all cases"), ``err``
an error (SD) with ``err_kind`` saying which, ``n`` the sample size behind the value, ``source``
where it was read (a spreadsheet cell, a log line, a section of the text, a line of a seed text
``seeds/<file>:<line>``), ``status`` how it was obtained (TEXT-ONLY, REPO-SPREADSHEET,
RECOMPUTED-FROM-RAW, NOT FOUND, SEED-TEXT, SEED-DERIVED, ...) and ``quote`` the words of the
text where the value is one. See ``data/reference/README.md``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pandas as pd

from overhead.errors import DataNotFound, SchemaError
from overhead.paths import REFERENCE_DATA

COLUMNS = ("item", "metric", "env", "value", "err", "err_kind", "unit", "n", "source", "status", "note")

__all__ = ["COLUMNS", "published", "studies"]

_NUM = r"[-+]?\d+(?:\.\d+)?"
# Textual values that still say one number unambiguously: (pattern, qualifier).
_TEXT_NUMBERS: tuple[tuple[re.Pattern, str | None], ...] = (
    (re.compile(rf"^({_NUM})\s*%$"), None),                      # "-22%"
    (re.compile(rf"^~\s*({_NUM})\s*%?$"), "approx"),             # "~110000", "~1.5"
    (re.compile(rf"^({_NUM})\s*\([^()]*\)$"), None),             # "51 (1.05x native)"
    (re.compile(rf"^->\s*~\s*({_NUM})\s*%?\s+[a-z ]+$"), "approx"),  # "-> ~2% asymptotically"
)
# A fraction or a ratio as a text prints it: "1/3", "1:5" (the number is a / b).
_FRACTION = re.compile(rf"^({_NUM})\s*[/:]\s*({_NUM})$")


def _read_text_value(text: str) -> tuple[float, str | None]:
    """Read (number, qualifier) from a textual value, or (nan, None) when it is not one number.

    A fraction or ratio ("1/3", "1:5") says a / b. Bounds ("<1 s vs 11 s", ">40% in all cases")
    and lists of numbers are left unparsed.
    """
    for pattern, qualifier in _TEXT_NUMBERS:
        m = pattern.match(text.strip())
        if m:
            return float(m.group(1)), qualifier
    m = _FRACTION.match(text.strip())
    if m and float(m.group(2)) != 0:
        return float(m.group(1)) / float(m.group(2)), None
    return float("nan"), None


def studies() -> list[str]:
    """List the studies that have a published-values file in ``data/reference/``."""
    return sorted(p.stem for p in REFERENCE_DATA.glob("*.csv"))


def _file(study: str | os.PathLike[str]) -> Path:
    """Find the CSV of ``study``: a study name (``data/reference/<name>.csv``) or a CSV's path."""
    path = Path(study)
    if path.suffix == ".csv" or path.is_file():
        candidate = path
    else:
        candidate = REFERENCE_DATA / f"{study}.csv"
    if not candidate.is_file():
        raise DataNotFound(f"{candidate}: no published values for {str(study)!r} "
                           f"(studies with a file: {', '.join(studies()) or 'none'})")
    return candidate


def _numbers(raw: pd.Series, path: Path, column: str, kind: str) -> pd.Series:
    """Read a column of the file as numbers (empty cells NA); a cell that is not one is an error."""
    text = raw.where(raw != "")
    out = pd.to_numeric(text, errors="coerce")
    bad = text.notna() & out.isna()
    if bad.any():
        line = int(bad.to_numpy().nonzero()[0][0]) + 2  # header is line 1
        raise SchemaError(f"{path}:{line}: column {column!r}: {raw[bad].iloc[0]!r} is not {kind}")
    return out


def published(study: str | os.PathLike[str] = "rc25482") -> pd.DataFrame:
    """Read a study's published values, as the file has them.

    Parameters
    ----------
    study : str or path
        A study name (``"rc25482"``: ``data/reference/rc25482.csv``) or the path of a CSV
        file with the same columns.

    Returns
    -------
    pandas.DataFrame
        One row per line with columns item, metric, env, value, value_text, value_parsed,
        value_qualifier, err, err_kind, unit, n, source, status, note (and quote when the file
        has it). ``value`` and ``err`` are numbers where the file has a number (NaN otherwise);
        a textual value ("-22%", "~110000", "1/3") is kept in ``value_text``, and ``value_parsed``
        holds the number it says where that is unambiguous (the plain number for numeric
        values, a / b for a fraction "a/b" or ratio "a:b"), with ``value_qualifier`` "approx"
        for "~" values. ``n`` is an integer where given. Empty cells stay empty.

    Raises
    ------
    DataNotFound
        When the study has no file.
    SchemaError
        When a column is missing, or ``err`` or ``n`` holds something that is not a number
        (the message names the file, line and column).
    """
    path = _file(study)
    raw = pd.read_csv(path, dtype=str, keep_default_na=False)
    missing = [c for c in COLUMNS if c not in raw.columns]
    if missing:
        raise SchemaError(f"{path}: missing column(s) {missing}")
    value = pd.to_numeric(raw["value"].where(raw["value"] != ""), errors="coerce")
    is_text = raw["value"].ne("") & value.isna()
    parsed = [_read_text_value(t) if txt else (v, None)
              for t, txt, v in zip(raw["value"], is_text, value, strict=True)]
    n = _numbers(raw["n"], path, "n", "a whole number")
    if (n.dropna() % 1 != 0).any():
        raise SchemaError(f"{path}: column 'n' holds a value that is not a whole number")
    out = pd.DataFrame({
        "item": raw["item"], "metric": raw["metric"], "env": raw["env"],
        "value": value.astype("float64"),
        "value_text": raw["value"].where(is_text, None),
        "value_parsed": pd.Series([p[0] for p in parsed], dtype="float64"),
        "value_qualifier": pd.Series([p[1] for p in parsed], dtype=object),
        "err": _numbers(raw["err"], path, "err", "a number").astype("float64"),
        "err_kind": raw["err_kind"], "unit": raw["unit"],
        "n": n.astype("Int64"),
        "source": raw["source"], "status": raw["status"], "note": raw["note"],
    })
    text_columns = ["item", "metric", "env", "value_text", "value_qualifier", "err_kind", "unit",
                    "source", "status", "note"]
    if "quote" in raw.columns:
        out["quote"] = raw["quote"]
        text_columns.append("quote")
    for col in text_columns:
        out[col] = out[col].replace("", None).astype("string")
    return out
