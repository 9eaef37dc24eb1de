"""data/reference/rc25482.csv against its primary sources.

Every spreadsheet row must equal the cell it names, every quote must occur in the paper's text,
every value recomputed from a raw log must equal the number on the log line it names, and the
file itself must be well-formed. The authors' tree comes from the ``ibm`` fixture (tests/conftest.py, found as
overhead.rc25482.data finds it), the paper's text from ``seeds/`` beside the reference folder;
a missing source fails the test, as everywhere in this suite.
"""

from __future__ import annotations

import csv
import functools
import math
import re
import statistics
import warnings
from pathlib import Path

import pytest
from conftest import REFERENCE, _require

ROOT = Path(__file__).resolve().parents[2]
CSV_FILE = ROOT / "data" / "reference" / "rc25482.csv"
COLUMNS = ["item", "metric", "env", "value", "err", "err_kind", "unit", "n", "source", "status",
           "note", "quote"]
STATUSES = {"TEXT-ONLY", "REPO-SPREADSHEET", "REPO-SPREADSHEET+RECOMPUTED",
            "REPO-SPREADSHEET-INCONSISTENT", "RECOMPUTED-FROM-RAW", "NOT FOUND"}
SPREADSHEET_STATUSES = {"REPO-SPREADSHEET", "REPO-SPREADSHEET+RECOMPUTED", "REPO-SPREADSHEET-INCONSISTENT"}
PAPER_TEXT = "ibm-rc25482-english-text.txt"
REL = 1e-9

# "<repo path>!<sheet>!<cell>", optionally followed by "; err=<repo path>!<sheet>!<cell>".
_REF = r"(?P<{p}path>[^!;]+)!(?P<{p}sheet>[^!;]+)!(?P<{p}cell>[A-Z]{{1,3}}[0-9]+)"
SPREADSHEET_SOURCE = re.compile("^" + _REF.format(p="v") + "(?:; err=" + _REF.format(p="e") + ")?$")
EMPTY_RANGE_SOURCE = re.compile(r"^(?P<path>[^!;]+)!(?P<sheet>[^!;]+)!(?P<range>[A-Z]+[0-9]+(?::[A-Z]+[0-9]+)?) \(empty\)$")
LOG_SOURCE = re.compile(r"^(?P<path>[^:]+\.log):(?P<line>[0-9]+)$")


@pytest.fixture(scope="module")
def paper() -> str:
    """The paper's text (seeds/, beside the reference folder that holds the authors' tree)."""
    path = REFERENCE.parent / "seeds" / PAPER_TEXT
    _require(path, "the paper's text")
    return path.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def rows() -> list[dict[str, str]]:
    with CSV_FILE.open(encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        assert reader.fieldnames == COLUMNS, f"{CSV_FILE}: columns {reader.fieldnames}"
        return list(reader)


def _where(r: dict[str, str]) -> str:
    return f"({r['item']!r}, {r['metric']!r}, {r['env']!r})"


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=REL, abs_tol=0.0)


# --- the file itself -------------------------------------------------------------------------


def test_file_is_well_formed(rows):
    problems = []
    keys = set()
    for i, r in enumerate(rows, start=2):  # line 1 is the header
        key = (r["item"], r["metric"], r["env"])
        where = f"line {i} {_where(r)}"
        if key in keys:
            problems.append(f"{where}: duplicate (item, metric, env)")
        keys.add(key)
        if not r["item"].strip() or not r["metric"].strip():
            problems.append(f"{where}: empty item or metric")
        if any(v != v.strip() for v in r.values()):
            problems.append(f"{where}: a cell has leading or trailing spaces")
        if r["status"] not in STATUSES:
            problems.append(f"{where}: unknown status {r['status']!r}")
        if not r["source"]:
            problems.append(f"{where}: no source")
        if r["value"] and not r["unit"]:
            problems.append(f"{where}: a value without a unit")
        if (r["value"] == "") != (r["status"] == "NOT FOUND"):
            problems.append(f"{where}: a value must be present exactly when the status is not NOT FOUND")
        if r["err"]:
            try:
                float(r["err"])
            except ValueError:
                problems.append(f"{where}: err {r['err']!r} is not a number")
            if not r["err_kind"]:
                problems.append(f"{where}: err without err_kind")
        if r["n"] and not re.fullmatch(r"[0-9]+", r["n"]):
            problems.append(f"{where}: n {r['n']!r} is not a whole number")
        if r["status"] != "TEXT-ONLY" and r["value"]:
            try:
                float(r["value"])
            except ValueError:
                problems.append(f"{where}: value {r['value']!r} of a {r['status']} row is not a number")
        if r["status"] == "TEXT-ONLY":
            if not r["quote"]:
                problems.append(f"{where}: TEXT-ONLY without a quote")
            if not r["source"].startswith("paper Sec. "):
                problems.append(f"{where}: TEXT-ONLY source should name the section ('paper Sec. ...')")
        if r["status"] in SPREADSHEET_STATUSES and not SPREADSHEET_SOURCE.match(r["source"]):
            problems.append(f"{where}: source {r['source']!r} is not <path>!<sheet>!<cell>[; err=...]")
        if r["status"] == "RECOMPUTED-FROM-RAW" and not LOG_SOURCE.match(r["source"]):
            problems.append(f"{where}: source {r['source']!r} is not <path>.log:<line>")
    assert not problems, "\n".join(problems)
    assert len(rows) > 100


# --- spreadsheets ----------------------------------------------------------------------------


@functools.cache
def _workbook(path: Path, data_only: bool):
    import openpyxl

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "Unknown extension is not supported"
        return openpyxl.load_workbook(path, data_only=data_only)


def _check_cell(ibm: Path, path: str, sheet: str, coord: str, text: str, note: str) -> str | None:
    """None when the CSV's number equals the cell's; otherwise what is wrong."""
    file = ibm / path
    if not file.is_file():
        return f"{path}: no such file in the authors' tree"
    formula = _workbook(file, False)[sheet][coord].value
    value = _workbook(file, True)[sheet][coord].value  # a formula's result as Excel stored it
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return f"{path}!{sheet}!{coord} holds {value!r}, not a number"
    if not _close(float(text), float(value)):
        return f"{path}!{sheet}!{coord} = {value!r}, the CSV says {text}"
    if isinstance(formula, str) and formula.startswith("=") and formula not in note:
        return f"{path}!{sheet}!{coord} is the formula {formula}; the note should say so"
    return None


def test_spreadsheet_rows_equal_their_cells(ibm, rows):
    checked, problems = 0, []
    for r in rows:
        if r["status"] not in SPREADSHEET_STATUSES:
            continue
        m = SPREADSHEET_SOURCE.match(r["source"])
        assert m, f"{_where(r)}: source {r['source']!r}"
        problem = _check_cell(ibm, m["vpath"], m["vsheet"], m["vcell"], r["value"], r["note"])
        if problem:
            problems.append(f"{_where(r)} value: {problem}")
        if m["epath"]:
            assert r["err"], f"{_where(r)}: source names an err cell but err is empty"
            problem = _check_cell(ibm, m["epath"], m["esheet"], m["ecell"], r["err"], r["note"])
            if problem:
                problems.append(f"{_where(r)} err: {problem}")
        elif r["err"]:
            problems.append(f"{_where(r)}: err {r['err']} has no cell in the source")
        checked += 1
    assert not problems, "\n".join(problems)
    assert checked >= 90


def test_not_found_cells_are_empty(ibm, rows):
    """A NOT FOUND row that names spreadsheet cells: those cells are indeed empty."""
    import openpyxl.utils.cell as cells

    checked = 0
    for r in rows:
        m = EMPTY_RANGE_SOURCE.match(r["source"]) if r["status"] == "NOT FOUND" else None
        if not m:
            continue
        ws = _workbook(ibm / m["path"], False)[m["sheet"]]
        lo, _, hi = m["range"].partition(":")
        c1, r1, c2, r2 = cells.range_boundaries(f"{lo}:{hi or lo}")
        for row in range(r1, r2 + 1):
            for col in range(c1, c2 + 1):
                assert ws.cell(row, col).value is None, f"{_where(r)}: {ws.cell(row, col).coordinate} is not empty"
        checked += 1
    assert checked >= 1


def test_stream_rows_recompute_from_their_logs(ibm, rows):
    """REPO-SPREADSHEET+RECOMPUTED (STREAM): mean and population SD of the log's 10 runs give
    the sheet's numbers to the 6 significant digits munge.awk printed."""
    checked, problems = 0, []
    for r in rows:
        if r["status"] != "REPO-SPREADSHEET+RECOMPUTED":
            continue
        m = re.search(r"Stream/results/\S+?\.log", r["note"])
        assert m, f"{_where(r)}: the note does not name the log"
        component = re.match(r"Stream (Copy|Scale|Add|Triad) ", r["metric"])[1]
        rates = [float(x) for x in re.findall(rf"^{component}:\s+([0-9.]+)",
                                              (ibm / m[0]).read_text(), flags=re.M)]
        if len(rates) != int(r["n"]):
            problems.append(f"{_where(r)}: {m[0]} has {len(rates)} runs, n = {r['n']}")
            continue
        mean, sd = f"{statistics.fmean(rates):.6g}", f"{statistics.pstdev(rates):.6g}"
        if float(mean) != float(r["value"]) or float(sd) != float(r["err"]):
            problems.append(f"{_where(r)}: {m[0]} gives {mean} ({sd}), the CSV says {r['value']} ({r['err']})")
        checked += 1
    assert not problems, "\n".join(problems)
    assert checked == 12


# --- raw logs --------------------------------------------------------------------------------


def test_recomputed_rows_equal_their_log_lines(ibm, rows):
    checked, problems = 0, []
    for r in rows:
        if r["status"] != "RECOMPUTED-FROM-RAW":
            continue
        m = LOG_SOURCE.match(r["source"])
        assert m, f"{_where(r)}: source {r['source']!r}"
        lines = (ibm / m["path"]).read_text().splitlines()
        n = int(m["line"])
        line = lines[n - 1]
        p = re.search(r"\bp([0-9]+(?:\.[0-9]+)?)$", r["metric"])[1]
        pct = f"{float(p):.2f}th"
        hit = re.search(rf"(?<![0-9.]){re.escape(pct)}=\[\s*([0-9]+)\]", line)
        if not hit:
            problems.append(f"{_where(r)}: {r['source']} has no {pct}: {line!r}")
            continue
        if not _close(float(hit[1]), float(r["value"])):
            problems.append(f"{_where(r)}: {r['source']} says {hit[1]}, the CSV says {r['value']}")
        # the line belongs to the job the metric names (nearest job header above it)
        job = re.search(r"fio (\S+) \(", r["metric"])[1]
        header = next(x for x in reversed(lines[:n - 1]) if re.match(r"^\S", x))
        if not header.startswith(f"{job}: (groupid="):
            problems.append(f"{_where(r)}: {r['source']} is in the block {header!r}, not job {job}")
        checked += 1
    assert not problems, "\n".join(problems)
    assert checked >= 39


# --- the paper's text ------------------------------------------------------------------------


def test_quotes_occur_in_the_paper(paper, rows):
    missing = [f"{_where(r)}: {r['quote']!r}" for r in rows if r["quote"] and r["quote"] not in paper]
    assert not missing, "not in the paper's text:\n" + "\n".join(missing)
    assert sum(1 for r in rows if r["status"] == "TEXT-ONLY") >= 9


# --- the curator's list, where it exists (it is not part of the project) ---------------------


def test_same_rows_as_paper_numbers(ibm, rows):
    """Same keys, order, units and values (within 1e-9) as the curator's paper_numbers.csv."""
    pn_file = ibm.parent / "paper_numbers.csv"
    if not pn_file.is_file():
        pytest.skip(f"{pn_file} not present (only the development machine's shared folder has it)")
    with pn_file.open(encoding="utf-8", newline="") as fh:
        pn = list(csv.DictReader(fh))
    assert [(r["item"], r["metric"], r["env"]) for r in rows] == [(r["item"], r["metric"], r["env"]) for r in pn]
    # The one unit we fill in: paper_numbers leaves it empty although the row has a value.
    unit_filled = {("Sec III-G", "hardware potential", "FlashSystem 840")}
    problems = []
    for a, b in zip(rows, pn, strict=True):
        for col in ("err_kind", "n", "status", "unit"):
            if a[col] != b[col] and not (col == "unit" and (a["item"], a["metric"], a["env"]) in unit_filled):
                problems.append(f"{_where(a)} {col}: {a[col]!r} vs {b[col]!r}")
        for col in ("value", "err"):
            try:
                same = _close(float(a[col]), float(b[col]))
            except ValueError:
                same = a[col] == b[col]
            if not same:
                problems.append(f"{_where(a)} {col}: {a[col]!r} vs {b[col]!r}")
    assert not problems, "\n".join(problems)
