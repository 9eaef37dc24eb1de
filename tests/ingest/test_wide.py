"""Monitor samples stored wide (overhead.wide): what is stored, and the long rows read back.

Inputs are genuine dstat outputs (tests/fixtures/dstat, see its README); one test appends a
session of one file to another, which is what dstat itself does when ``--output`` names an
existing file.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

from overhead import parsers, schema, tidy, wide
from overhead.errors import DataNotFound
from overhead.parsers import dstat

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
COMPARED = ("metric", "value", "unit", "source", "raw", "warmup", "started_at", "host", "tool",
            "tool_version", "p_sample", "p_session", "p_device", "p_cpu")


def _stored(tmp_path: Path, *named: tuple[str, str]) -> Path:
    """Store each (name, text) as a wide part of a monitor folder, as ingest does."""
    folder = tmp_path / "monitor"
    for name, text in named:
        table, _ = dstat.parse_wide(text, name)
        schema.write_table(table, folder / (name.replace("/", "__") + ".parquet"))
    return folder


def _same(a: pd.DataFrame, b: pd.DataFrame) -> None:
    assert len(a) == len(b)
    for col in COMPARED:
        if col in a.columns and col in b.columns:
            assert a[col].astype(object).tolist() == b[col].astype(object).tolist(), col
        else:  # a parameter no row of this selection has: absent from one, all NA in the other
            assert (a if col in a.columns else b).get(col, pd.Series(dtype=object)).isna().all(), col


def test_a_wide_part_reads_back_as_the_parsers_long_rows(tmp_path):
    text = (FIXTURES / "dstat" / "dstat-devices.csv").read_text()
    table, cut = dstat.parse_wide(text, "dstat-devices.csv")
    assert cut is None
    # one row per sample line (4 samples: the since-boot line and 3 one-second ones)
    assert table.num_rows == 4
    info = wide.counters(table.schema)
    assert info["cpu_usr@cpu0"] == {"metric": "cpu_usr", "unit": "%", "p_cpu": 0}
    assert info["net_recv@lo"] == {"metric": "net_recv", "unit": "B/s", "p_device": "lo"}
    assert info["net_recv"] == {"metric": "net_recv", "unit": "B/s"}  # net/total
    # the first sample's cpu0 usr, as printed on line 7 of the file
    first = table.slice(0, 1).to_pylist()[0]
    assert first["line"] == 7 and first["cpu_usr@cpu0"] == 19.24 and first["raw:cpu_usr@cpu0"] == "19.240"
    folder = _stored(tmp_path, ("dstat-devices.csv", text))
    parsed = dstat.parse(text, "dstat-devices.csv")
    assert wide.long_rows(pq.read_schema(next(folder.iterdir()))) == len(parsed) == 208
    _same(tidy.read(folder), parsed)


def test_sessions_with_other_counters_keep_their_own(tmp_path):
    appended = (FIXTURES / "dstat" / "dstat-appended.csv").read_text()
    devices = (FIXTURES / "dstat" / "dstat-devices.csv").read_text()
    # dstat appending a session of another command line: two blank lines, then its header
    session = devices[devices.index('"Host:"'):]
    text = appended.rstrip("\n") + "\n\n\n" + session
    both = dstat.parse(text, "both.csv")
    assert sorted(both.p_session.unique()) == [1, 2, 3]
    first_two = dstat.parse(appended, "a.csv")
    third = dstat.parse(devices, "d.csv")
    for got, want in ((both[both.p_session < 3], first_two), (both[both.p_session == 3], third)):
        for col in ("metric", "value", "raw", "p_sample", "p_device", "p_cpu"):
            if col in want.columns:
                assert got[col].astype(object).tolist() == want[col].astype(object).tolist(), col
    # the appended sessions measured no per-CPU counter: no row, not a 0
    assert both[both.p_session < 3].p_cpu.isna().all()
    _same(tidy.read(_stored(tmp_path, ("both.csv", text))), both)


@pytest.mark.parametrize("filters", [
    [("metric", "==", "cpu_usr"), ("p_cpu", "==", 1)],
    [("metric", "in", ["net_recv", "net_send"]), ("p_device", "==", "lo")],
    [("p_sample", ">=", 2), ("unit", "==", "%")],
    [("value", ">", 50.0)],
    [("raw", "==", "0")],
])
def test_filters_read_what_the_long_rows_would_give(tmp_path, filters):
    text = (FIXTURES / "dstat" / "dstat-devices.csv").read_text()
    folder = _stored(tmp_path, ("dstat-devices.csv", text))
    parsed = dstat.parse(text, "dstat-devices.csv")
    want = parsed
    for name, op, value in filters:
        col = want[name]
        keep = col.isin(value) if op == "in" else {"==": col.eq, ">": col.gt, ">=": col.ge}[op](value)
        want = want[keep.fillna(False).to_numpy(dtype=bool)]
    got = tidy.read(folder, filters=filters)
    assert len(got) > 0
    _same(got.reset_index(drop=True), want.reset_index(drop=True))


def test_a_filter_on_a_column_no_part_has_matches_nothing_and_columns_are_checked(tmp_path):
    text = (FIXTURES / "dstat" / "dstat-devices.csv").read_text()
    folder = _stored(tmp_path, ("dstat-devices.csv", text))
    assert tidy.read(folder, filters=[("p_threads", "==", 4)]).empty
    got = tidy.read(folder, columns=["metric", "value"])
    assert list(got.columns) == ["metric", "value"] and len(got) == 208
    with pytest.raises(DataNotFound, match="p_threads"):
        tidy.read(folder, columns=["metric", "p_threads"])


def test_wide_and_long_parts_read_together(tmp_path):
    """A folder with a wide dstat part and a long part (a monitor with no wide form)."""
    text = (FIXTURES / "dstat" / "dstat-cndy.csv").read_text()
    folder = _stored(tmp_path, ("dstat-cndy.csv", text))
    vmstat = next(p for p in sorted((FIXTURES / "vmstat").iterdir()) if p.suffix != ".md")
    long = parsers.parse_file("vmstat", vmstat, name=vmstat.name)
    schema.write_table(schema.to_arrow(long), folder / "vmstat.parquet")
    got = tidy.read(folder)
    assert len(got) == 78 + len(long)
    assert set(got.tool) == {"dstat", "vmstat"}
    assert got[got.tool == "vmstat"].value.tolist() == long.value.tolist()


def test_a_cut_file_is_marked_and_keeps_its_whole_samples():
    text = (FIXTURES / "dstat" / "dstat-cndy.csv").read_text().rstrip("\n")
    cut_line = text[text.rindex("\n") + 1:]
    text = text[: len(text) - len(cut_line) // 2]  # the last sample cut while written
    table, cut = dstat.parse_wide(text, "cut.csv")
    assert cut is not None and cut[1] == len(text.splitlines())
    whole = dstat.parse_wide((FIXTURES / "dstat" / "dstat-cndy.csv").read_text(), "cut.csv")[0]
    assert table.num_rows == whole.num_rows - 1
    assert parsers.cut_short_of(dstat.parse(text, "cut.csv")).startswith(f"cut.csv:{cut[1]}: ")
