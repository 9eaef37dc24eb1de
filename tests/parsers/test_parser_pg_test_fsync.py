"""pg_test_fsync parser on a PostgreSQL 15 run made here and five 9.x transcripts from seed 002."""

from __future__ import annotations

import pandas as pd
import pytest

from overhead.parsers import ParseError, detect, parse_file, parse_text
from parser_contract import check_all_prefixes, hypothesis_random_bytes, with_line

TOOL = "pg_test_fsync"
ONE_8K = "Compare file sync methods using one 8kB write"
SIZES = "Compare open_sync with different write sizes"


@pytest.fixture(scope="module")
def d(fixtures):
    return fixtures / "pg_test_fsync"


def at(df, line):
    """Rows read from one line, as {metric: value}."""
    return df[df.source.str.endswith(f":{line}")].set_index("metric")["value"].to_dict()


def test_pg15_values(d):
    df = parse_file(TOOL, d / "pg15_s1.txt")
    # 18 test lines, two "fsync_writethrough  n/a" -> 16 tests, rate + time each
    assert len(df) == 32
    assert set(df.p_seconds_per_test) == {1}  # "1 second per test"
    assert df.p_o_direct.all()  # "O_DIRECT supported on this platform ..."
    assert df.tool_version.isna().all()  # the output does not state the version
    # line 6: "        open_datasync                      7175.491 ops/sec     139 usecs/op"
    assert at(df, 6) == pytest.approx({"operation_rate": 7175.491, "operation_time": 139e-6})
    row = df[df.source.str.endswith(":6")].iloc[0]
    assert (row.p_section, row.p_method, row.p_write_size, row.p_writes) == (ONE_8K, "open_datasync", 8192, 1)
    # the n/a methods are absent, not zero
    assert "fsync_writethrough" not in set(df.p_method)
    # line 24: "         2 *  8kB open_sync writes         4116.453 ops/sec     243 usecs/op"
    row = df[df.source.str.endswith(":24")].iloc[0]
    assert (row.p_section, row.p_method, row.p_write_size, row.p_writes) == (SIZES, "open_sync", 8192, 2)
    assert at(df, 24)["operation_rate"] == pytest.approx(4116.453)
    # line 27: "        16 *  1kB open_sync writes          489.256 ops/sec    2044 usecs/op"
    assert df[df.source.str.endswith(":27")].p_writes.iloc[0] == 16
    # line 36: "        write                           3561210.164 ops/sec       0 usecs/op"
    last = df[df.source.str.endswith(":36")].set_index("metric")
    assert last.loc["operation_rate", "value"] == pytest.approx(3561210.164)
    assert last.loc["operation_time", "value"] == 0.0 and last.loc["operation_time", "raw"] == "0 usecs/op"
    assert last.p_section.iloc[0] == "Non-sync'ed 8kB writes" and last.p_write_size.iloc[0] == 8192
    fsync = df[df.p_section == "Test if fsync on non-write file descriptor is honored"]
    assert sorted(set(fsync.p_method)) == ["write, close, fsync", "write, fsync, close"]


@pytest.mark.parametrize("name", ["pg15_s1.txt", "seed002_a_local.txt", "seed002_b_nfs.txt",
                                  "seed002_c_nfs_ovirt.txt", "seed002_d_kvm_guest.txt"])
def test_usecs_agree_with_ops(d, name):
    """The tool prints usecs/op = 1e6 / (ops/sec), rounded to a whole microsecond."""
    df = parse_file(TOOL, d / name)
    wide = df.pivot_table(index="source", columns="metric", values="value")
    assert (abs(wide.operation_time * 1e6 - 1e6 / wide.operation_rate) <= 0.5 + 1e-9).all()


def test_seed_local_9x(d):
    df = parse_file(TOOL, d / "seed002_a_local.txt")
    assert len(df) == 32 and set(df.p_seconds_per_test) == {5}  # "5 seconds per test"
    # line 7: "        open_datasync                   13045.448 ops/sec      77 usecs/op"
    assert at(df, 7) == pytest.approx({"operation_rate": 13045.448, "operation_time": 77e-6})
    # 9.x spells "Non-Sync'ed 8kB writes:"; the section name is normalised to PostgreSQL 15's
    # line 38: "        write                           245738.151 ops/sec       4 usecs/op"
    assert df[df.source.str.endswith(":38")].p_section.iloc[0] == "Non-sync'ed 8kB writes"
    assert at(df, 38)["operation_rate"] == pytest.approx(245738.151)
    # the section remark is wrapped over two lines in 9.x and must not break the section
    two = df[df.p_section == "Compare file sync methods using two 8kB writes"]
    assert len(two) == 8 and set(two.p_writes) == {2}


def test_seed_nfs_94devel(d):
    df = parse_file(TOOL, d / "seed002_b_nfs.txt")
    # line 29: "        16 *  1kB open_sync writes           82.643 ops/sec   12100 usecs/op"
    assert at(df, 29) == pytest.approx({"operation_rate": 82.643, "operation_time": 0.0121})
    row = df[df.source.str.endswith(":29")].iloc[0]
    assert (row.p_write_size, row.p_writes) == (1024, 16)


def test_seed_old_format_without_usecs(d):
    df = parse_file(TOOL, d / "seed002_e_iscsi_old_format.txt")
    # no usecs/op column: rates only; open_datasync and fsync_writethrough are "n/a" twice
    assert set(df.metric) == {"operation_rate"} and len(df) == 14
    assert "open_datasync" not in set(df.p_method)
    assert "p_seconds_per_test" not in df.columns  # the article lost that line
    # line 24: "        16kB open_sync write             1658.610 ops/sec" (no "N *" count)
    row = df[df.source.str.endswith(":24")].iloc[0]
    assert (row.p_method, row.p_write_size, row.value) == ("open_sync", 16384, pytest.approx(1658.61))
    assert pd.isna(row.p_writes)


def test_runs_in_one_file_are_trials(d):
    text = (d / "seed002_a_local.txt").read_text() + "\n" + (d / "seed002_b_nfs.txt").read_text()
    df = parse_text(TOOL, text, "two.txt")
    assert df.groupby("trial").size().to_dict() == {1: 32, 2: 32}
    first = df[(df.trial == 2) & (df.p_method == "open_datasync") & (df.metric == "operation_rate")]
    assert first.value.iloc[0] == pytest.approx(1290.779)  # seed line 119, the 9.4devel run


def test_label_without_result_at_end_is_dropped_elsewhere_an_error(d):
    lines = (d / "pg15_s1.txt").read_text().splitlines(keepends=True)
    # pg_test_fsync prints a label before running its test: a run killed during "fdatasync"
    cut = "".join(lines[:6]) + "        fdatasync             "
    df = parse_text(TOOL, cut, "cut.txt")
    assert set(df.p_method) == {"open_datasync"}
    with pytest.raises(ParseError, match=r"^mid\.txt:7: expected '<test>"):
        parse_text(TOOL, with_line(lines, 7, "        fdatasync\n"), "mid.txt")


def test_malformed_rate_names_the_line():
    text = ("5 seconds per test\n\nCompare file sync methods using one 8kB write:\n"
            "        open_datasync                   13O45.448 ops/sec      77 usecs/op\n")
    with pytest.raises(ParseError, match=r"^x\.txt:4: ops/sec: expected a number"):
        parse_text(TOOL, text, "x.txt")


def test_not_pg_test_fsync(fixtures):
    # nothing in the file is pg_test_fsync's: no line is wrong, none is named
    with pytest.raises(ParseError, match=r"^ab\.txt: no pg_test_fsync output") as exc:
        parse_text(TOOL, (fixtures / "ab" / "n200_c4.txt").read_text(), "ab.txt")
    assert exc.value.line is None


@pytest.mark.parametrize(("lineno", "old", "new", "message"), [
    # :12 "Compare file sync methods using two 8kB writes:"; a size too large for the 64-bit
    # parameter was reported at the section's first test line, :14
    (12, "two 8kB", "two 99999999999999999999kB",
     "write size (kB): '99999999999999999999' is out of range"),
    # :35 "Non-sync'ed 8kB writes:" (the last section)
    (35, "8kB", "99999999999999999999kB", "write size (kB): '99999999999999999999' is out of range"),
    # :33 "        write, close, fsync                5335.938 ops/sec     187 usecs/op"
    (33, "187 usecs", "1x7 usecs", "usecs/op: expected a number, found '1x7'"),
])
def test_bad_value_names_its_own_line(d, lineno, old, new, message):
    lines = (d / "pg15_s1.txt").read_text().splitlines(keepends=True)
    assert old in lines[lineno - 1]
    lines[lineno - 1] = lines[lineno - 1].replace(old, new)
    with pytest.raises(ParseError) as exc:
        parse_text(TOOL, "".join(lines), "p.txt")
    assert str(exc.value) == f"p.txt:{lineno}: {message}"


def test_detect(d):
    for f in sorted(d.glob("*.txt")):
        assert detect(f.read_text()) == TOOL, f.name


@pytest.mark.parametrize("name", ["pg15_s1.txt", "seed002_a_local.txt", "seed002_e_iscsi_old_format.txt"])
def test_every_prefix(d, name):
    check_all_prefixes(TOOL, (d / name).read_text())


def test_random_bytes():
    hypothesis_random_bytes(TOOL)()
