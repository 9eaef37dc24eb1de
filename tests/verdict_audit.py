"""The audit every test that writes tables runs on its output folder: no verdict contradicts the
interval printed beside it, and no file says "no significant difference" (a claim of sameness
from a test that did not reject).

A CSV column named ``verdict``, ``<prefix>_verdict`` or ``verdict_<suffix>`` (not
``verdict_detail``) is a verdict; its interval is the first pair found of ``<prefix>ratio_low/high``,
``<prefix>pct_low/high``, ``<prefix>delta_ci95_low/high`` and its margin
``<prefix>margin_low_pct/high_pct`` (overhead.stats.check_verdicts decides).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from overhead import stats

TEXT = (".csv", ".md", ".html", ".tex", ".txt")
SAMENESS = "no significant difference"


def _verdict_columns(frame: pd.DataFrame) -> list[tuple[str, str]]:
    """Return (column, prefix) of the verdict columns of a table."""
    out = []
    for c in frame.columns:
        if c == "verdict":
            out.append((c, ""))
        elif c.endswith("_verdict"):
            out.append((c, c[: -len("verdict")]))
        elif c.startswith("verdict_") and c != "verdict_detail":
            out.append((c, ""))
    return out


def audit_table(frame: pd.DataFrame, name: str) -> list[str]:
    """Return the problems of one table (empty when its verdicts agree with their intervals)."""
    problems = []
    for column, prefix in _verdict_columns(frame):
        pairs = ((f"{prefix}ratio_low", f"{prefix}ratio_high", False),
                 (f"{prefix}pct_low", f"{prefix}pct_high", True),
                 (f"{prefix}delta_ci95_low", f"{prefix}delta_ci95_high", True))
        pair = next(((lo, hi, p) for lo, hi, p in pairs if lo in frame and hi in frame), None)
        if pair is None:
            if not frame[column].dropna().isin(["baseline", "not tested"]).all():
                problems.append(f"{name}: {column} has no interval beside it")
            continue
        low, high, pct = pair
        found = stats.check_verdicts(frame, verdict=column, low=low, high=high, pct=pct,
                                     margin_low=f"{prefix}margin_low_pct",
                                     margin_high=f"{prefix}margin_high_pct")
        problems += [f"{name}: {column}: {line}" for line in found]
    return problems


def audit(folder: Path) -> tuple[int, list[str]]:
    """Audit every table and text file under ``folder``; return (verdict rows checked, problems)."""
    problems, checked = [], 0
    for path in sorted(Path(folder).rglob("*")):
        if not path.is_file() or path.suffix not in TEXT:
            continue
        text = path.read_text(errors="replace")
        if SAMENESS in text.lower():
            problems.append(f"{path}: says {SAMENESS!r}")
        if path.suffix == ".csv":
            try:
                frame = pd.read_csv(path)
            except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError):
                continue
            cols = _verdict_columns(frame)
            checked += sum(int(frame[c].notna().sum()) for c, _ in cols)
            problems += audit_table(frame, str(path))
    return checked, problems
