"""The row builder (overhead.parsers._common.Rows) and the shared number helpers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from overhead.parsers._common import (
    ParseError,
    Rows,
    integer,
    number,
    percent,
    si_number,
    size_bytes,
)
from overhead.schema import MEASUREMENT_COLUMNS, SchemaError, conform, frame, is_conformed, validate


def _rows() -> Rows:
    return Rows("x.log", benchmark="bench", tool="tool")


# --- typed columns -----------------------------------------------------------------------------

def test_core_columns_get_the_schema_dtypes():
    rows = _rows()
    rows.add(3, "m", 1.5, "s", True, "1.5 s", trial=1,
             started_at=pd.Timestamp("2024-01-02 03:04:05", tz="UTC"), host="h")
    rows.add(4, "m", 2, "s", None, None)
    df = rows.frame()
    for name, dtype in MEASUREMENT_COLUMNS.items():
        assert str(df[name].dtype) == dtype, name
    assert list(df.columns[: len(MEASUREMENT_COLUMNS)]) == list(MEASUREMENT_COLUMNS)
    assert df["source"].tolist() == ["x.log:3", "x.log:4"]
    assert df["benchmark"].tolist() == ["bench", "bench"]
    assert df["value"].tolist() == [1.5, 2.0]
    assert df["higher_is_better"].isna().tolist() == [False, True]
    assert df["raw"].isna().tolist() == [False, True]
    assert df["trial"].isna().tolist() == [False, True]
    assert is_conformed(df)
    validate(df)


@pytest.mark.parametrize(("values", "dtype"), [
    ([True, False, None], "boolean"),
    ([1, None, 3], "Int64"),
    ([1.5, None, 2.0], "Float64"),
    ([1, 2.5, None], "Float64"),
    (["a", None, "b"], "string"),
    ([1, "a", None], "string"),
    ([True, 1, None], "string"),
    ([np.int64(7), 8, None], "Int64"),
])
def test_each_parameter_gets_one_dtype_from_its_values(values, dtype):
    rows = _rows()
    for i, v in enumerate(values, start=1):
        rows.add(i, "m", 1.0, "count", None, "1", p_x=v)
    col = rows.frame()["p_x"]
    assert str(col.dtype) == dtype
    assert col.isna().tolist() == [v is None for v in values]


def test_mixed_kinds_are_stored_as_their_text():
    rows = _rows()
    rows.add(1, "m", 1.0, "count", None, "1", p_x=8192)
    rows.add(2, "m", 1.0, "count", None, "1", p_x="all")
    assert rows.frame()["p_x"].tolist() == ["8192", "all"]


def test_none_is_na_never_zero_and_never_creates_a_column():
    rows = _rows()
    rows.add(1, "m", 1.0, "count", None, "1", {"p_n": 5, "p_gone": None})
    rows.add(2, "m", 2.0, "count", None, "2", {"p_n": None})
    rows.add(3, "m", 3.0, "count", None, "3")
    df = rows.frame()
    assert "p_gone" not in df.columns
    assert str(df["p_n"].dtype) == "Int64"
    assert df["p_n"].isna().tolist() == [False, True, True]
    assert df["p_n"].iloc[0] == 5
    assert not (df["p_n"].fillna(-1) == 0).any()


def test_an_int_parameter_with_gaps_stays_int():
    # pandas alone would make [8192, None] a float column (8192.0)
    rows = _rows()
    rows.add(1, "m", 1.0, "B", None, "1", p_bs=None)
    rows.add(2, "m", 1.0, "B", None, "1", p_bs=8192)
    assert rows.frame()["p_bs"].tolist()[1] == 8192
    assert str(rows.frame()["p_bs"].dtype) == "Int64"


def test_declared_dtypes_are_always_present():
    rows = Rows("x", benchmark="b", tool="t", dtypes={"p_percentile": "Float64", "p_test": "string"})
    rows.add(1, "m", 1.0, "s", False, "1")
    df = rows.frame()
    assert str(df["p_percentile"].dtype) == "Float64" and df["p_percentile"].isna().all()
    assert str(df["p_test"].dtype) == "string"
    rows.add(2, "m", 1.0, "s", False, "1", p_percentile=50)
    assert rows.frame()["p_percentile"].tolist()[1] == 50.0


def test_constants_cost_no_list_and_cannot_also_be_given_per_row():
    rows = Rows("x", benchmark="b", tool="t", tool_version="1.2")
    rows.add(1, "m", 1.0, "s", None, "1")
    assert rows.frame()["tool_version"].tolist() == ["1.2"]
    rows.add(2, "m", 1.0, "s", None, "1", tool="other")
    with pytest.raises(ValueError, match="tool"):
        rows.frame()


def test_the_frame_is_already_conformed():
    rows = Rows("x", benchmark="b", tool="t", dtypes={"p_test": "string"})
    rows.add(1, "m", 1.0, "s", None, "1", {"p_z": 1, "p_a": "x"}, warmup=True)
    df = rows.frame()
    assert list(df.columns) == [*MEASUREMENT_COLUMNS, "p_a", "p_test", "p_z"]
    pd.testing.assert_frame_equal(conform(df), df, check_exact=True)


def test_an_unknown_column_is_a_schema_error():
    rows = _rows()
    rows.add(1, "m", 1.0, "s", None, "1", colour="red")
    with pytest.raises(SchemaError, match="colour"):
        rows.frame()


# --- shared parameters, per-row values and fill ------------------------------------------------

def test_parameters_are_read_when_the_row_is_added():
    rows = _rows()
    params = {"p_job": "a", "p_depth": 1}
    rows.add(1, "m", 1.0, "s", None, "1", params)
    rows.add(2, "m", 1.0, "s", None, "1", params)
    params["p_depth"] = 2  # the same mapping, changed: later rows see the change, earlier do not
    rows.add(3, "m", 1.0, "s", None, "1", params)
    rows.add(4, "m", 1.0, "s", None, "1", {"p_job": "b"})
    df = rows.frame()
    assert df["p_depth"].iloc[:3].tolist() == [1, 1, 2]
    assert pd.isna(df["p_depth"].iloc[3])
    assert df["p_job"].tolist() == ["a", "a", "a", "b"]


def test_keywords_override_the_mapping():
    rows = _rows()
    rows.add(1, "m", 1.0, "s", None, "1", {"p_x": 1, "trial": 1}, p_x=2)
    df = rows.frame()
    assert df["p_x"].tolist() == [2] and df["trial"].tolist() == [1]


def test_fill_sets_a_range_of_rows_already_added():
    rows = _rows()
    for i in range(1, 5):
        rows.add(i, "m", 1.0, "s", None, "1", {"p_run": 1})
    rows.fill("p_complete", True, 0, 2)
    rows.fill("p_complete", False, 2)
    rows.fill("p_run", 9, 3)  # takes precedence over what add was given
    rows.fill("p_nothing", None)
    rows.add(5, "m", 1.0, "s", None, "1")
    df = rows.frame()
    assert df["p_complete"].tolist()[:4] == [True, True, False, False]
    assert pd.isna(df["p_complete"].iloc[4])
    assert df["p_run"].tolist()[:4] == [1, 1, 1, 9]
    assert "p_nothing" not in df.columns
    assert len(rows) == 5


# --- overflow ------------------------------------------------------------------------------------

@pytest.mark.parametrize("big", [2**63, -(2**63), 10**30])
def test_an_int_parameter_out_of_64_bits_raises_at_its_line(big):
    rows = _rows()
    rows.add(7, "m", 1.0, "count", None, "1", p_size=1)
    rows.add(8, "m", 1.0, "count", None, "1", {"p_size": big})
    with pytest.raises(ParseError, match=rf"^x\.log:8: size {big} is out of range$"):
        rows.frame()


def test_the_largest_64_bit_int_fits():
    rows = _rows()
    rows.add(1, "m", 1.0, "count", None, "1", p_size=2**63 - 1)
    assert rows.frame()["p_size"].tolist() == [2**63 - 1]


def test_overflow_in_a_text_column_raises_too():
    rows = _rows()
    rows.add(1, "m", 1.0, "count", None, "1", p_x="a")
    rows.add(2, "m", 1.0, "count", None, "1", p_x=2**64)
    with pytest.raises(ParseError, match=r"^x\.log:2: x "):
        rows.frame()


# --- empty -------------------------------------------------------------------------------------

def test_an_empty_builder_gives_the_empty_conformed_frame():
    df = Rows("x", benchmark="b", tool="t", dtypes={"p_percentile": "Float64"}).frame()
    assert df.empty
    assert list(df.columns) == list(MEASUREMENT_COLUMNS)
    assert {c: str(t) for c, t in df.dtypes.items()} == MEASUREMENT_COLUMNS
    pd.testing.assert_frame_equal(df, frame([]))


# --- blocks (the bulk path) --------------------------------------------------------------------

def test_blocks_give_categoricals_for_repeated_strings():
    rows = Rows("d.csv", benchmark="dstat", tool="dstat", tool_version="0.7.2")
    lines = np.array([5, 6, 7])
    rows.add_columns(lines, "cpu_usr", np.array([1.0, 2.0, 3.0]), "%", None,
                     pa.array(["1", "2", "3"]), warmup=np.array([True, False, False]),
                     host="h", p_session=1, p_sample=np.arange(3), p_device=None)
    rows.add_columns(lines[1:], "net_recv", np.array([4.0, 5.0]), "B/s", None,
                     pa.array(["4", "5"]), warmup=np.array([False, False]), host="h",
                     p_session=1, p_sample=np.arange(1, 3), p_device="eth0")
    df = rows.frame()
    assert len(rows) == len(df) == 5
    for name in ("metric", "unit", "source", "benchmark", "tool", "tool_version", "host"):
        assert isinstance(df[name].dtype, pd.CategoricalDtype), name
    assert df["source"].tolist() == ["d.csv:5", "d.csv:6", "d.csv:7", "d.csv:6", "d.csv:7"]
    assert list(df["source"].cat.categories) == ["d.csv:5", "d.csv:6", "d.csv:7"]
    assert df["metric"].tolist() == ["cpu_usr"] * 3 + ["net_recv"] * 2
    assert str(df["raw"].dtype) == "string" and df["raw"].tolist() == ["1", "2", "3", "4", "5"]
    assert str(df["warmup"].dtype) == "boolean" and df["warmup"].tolist()[:2] == [True, False]
    assert str(df["p_session"].dtype) == "Int64" and str(df["p_sample"].dtype) == "Int64"
    assert str(df["p_device"].dtype) == "string"
    assert df["p_device"].isna().tolist() == [True] * 3 + [False] * 2
    assert df["higher_is_better"].isna().all()
    validate(df)


def test_blocks_and_single_rows_do_not_mix():
    rows = _rows()
    rows.add(1, "m", 1.0, "s", None, "1")
    rows.add_columns(np.array([2]), "m", np.array([1.0]), "s", None, ["1"])
    with pytest.raises(ValueError, match="not both"):
        rows.frame()


def test_block_overflow_raises_at_the_block_line():
    rows = _rows()
    rows.add_columns(np.array([3, 4]), "m", np.array([1.0, 2.0]), "s", None, ["1", "2"],
                     p_big=2**70)
    with pytest.raises(ParseError, match=r"^x\.log:3: big "):
        rows.frame()


# --- number helpers ----------------------------------------------------------------------------

def test_si_number():
    assert si_number("12.4k", "p", 1, "iops") == 12400.0
    assert si_number(" 733 ", "p", 1, "iops") == 733.0
    with pytest.raises(ParseError, match=r"^p:1: iops: expected a number, found '7x3'$"):
        si_number("7x3", "p", 1, "iops")


def test_percent():
    assert percent("99.27%", "p", 2, "util") == 99.27
    with pytest.raises(ParseError, match=r"found 'x%'$"):
        percent("x%", "p", 2, "util")
    with pytest.raises(ParseError, match="not a finite number"):
        percent("inf%", "p", 2, "util")


@pytest.mark.parametrize(("token", "binary", "expected"), [
    ("16384MB", True, 16384 * 2**20),
    ("4K", True, 4096.0),
    ("48.5MiB/s", False, 48.5 * 2**20),
    ("50.9MB/s", False, 50.9e6),
    ("388Mibit/s", False, 388 * 2**20 / 8),
    ("1.5GiB", False, 1.5 * 2**30),
])
def test_size_bytes(token, binary, expected):
    assert size_bytes(token, "p", 1, "bw", binary=binary) == expected


def test_integer_limit():
    assert integer("12", "p", 1, "n", limit=2**53) == 12
    with pytest.raises(ParseError, match=r"^p:1: n: '9007199254740992' is out of range$"):
        integer("9007199254740992", "p", 1, "n", limit=2**53)
    with pytest.raises(ParseError, match="expected an integer"):
        integer(float("inf"), "p", 1, "n")


@pytest.mark.parametrize("reader", [number, percent, integer])
def test_underscore_digits_are_not_numbers(reader):
    # Python's float("39_4") and int("39_4") are 394: a corrupted field must not read as one
    with pytest.raises(ParseError, match=r"f:7: x: expected an? (number|integer), found '39_4'"):
        reader("39_4", "f", 7, "x")
    assert reader("394", "f", 7, "x") == 394
