"""vmstat parser on runs made here (procps-ng 4.0.2)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from overhead.parsers import ParseError, detect, parse_file, parse_text
from parser_contract import check_all_prefixes, hypothesis_random_bytes, with_line

TOOL = "vmstat"
KIB = 1024
CPU = ["cpu_us", "cpu_sy", "cpu_id", "cpu_wa", "cpu_st"]


@pytest.fixture(scope="module")
def d(fixtures):
    return fixtures / "vmstat"


def wide(df):
    return df.pivot_table(index="p_sample", columns="metric", values="value")


def test_default_report(d):
    df = parse_file(TOOL, d / "vmstat_1_3.txt")
    w = wide(df)
    assert list(w.index) == [0, 1, 2] and len(df) == 3 * 17
    # line 3: " 3  0      0 23536912  10740 795168    0    0 10191  3233 1406 7794  8  7 84  1  0"
    assert w.loc[0].to_dict() == pytest.approx({
        "runnable": 3, "blocked": 0, "swap_used": 0, "free": 23536912 * KIB, "buffers": 10740 * KIB,
        "cache": 795168 * KIB, "swap_in": 0, "swap_out": 0, "blocks_in": 10191 * KIB,
        "blocks_out": 3233 * KIB, "interrupts": 1406, "context_switches": 7794,
        "cpu_us": 8, "cpu_sy": 7, "cpu_id": 84, "cpu_wa": 1, "cpu_st": 0})
    # line 4: " 3  0      0 23536912  10740 795168    0    0   120     8 40598 38348 13 61 26  0  0"
    assert w.loc[1, "interrupts"] == 40598 and w.loc[1, "blocks_in"] == 120 * KIB
    units = df.drop_duplicates("metric").set_index("metric").unit
    assert (units["free"], units["swap_in"], units["blocks_out"], units["context_switches"],
            units["cpu_id"], units["runnable"]) == ("B", "B/s", "B/s", "Hz", "%", "count")
    assert "p_time" not in df.columns and df.started_at.isna().all()  # no -t


def test_first_sample_is_since_boot(d):
    df = parse_file(TOOL, d / "vmstat_1_3.txt")
    first = df[df.p_sample == 0].set_index("metric").warmup
    # averages since boot: rates and CPU shares; instantaneous: r, b and memory
    assert first[["blocks_in", "blocks_out", "interrupts", "context_switches", "swap_in", *CPU]].all()
    assert not first[["runnable", "blocked", "swap_used", "free", "buffers", "cache"]].any()
    assert not df[df.p_sample > 0].warmup.any()


@pytest.mark.parametrize("name", ["vmstat_1_3.txt", "vmstat_t_1_3.txt", "vmstat_w_1_3.txt",
                                  "vmstat_a_1_3.txt", "vmstat_w_a_t_1_3.txt"])
def test_cpu_shares_add_up(d, name):
    """vmstat's cpu columns are whole percentages of one total: they add up to 100 +- rounding."""
    w = wide(parse_file(TOOL, d / name))
    cols = [c for c in w.columns if c.startswith("cpu_")]
    assert ((w[cols].sum(axis=1) - 100).abs() <= 2).all()


def test_timestamps(d):
    df = parse_file(TOOL, d / "vmstat_t_1_3.txt")
    # "... 2026-11-22 00:15:22" .. "00:15:24", zone "UTC" under the timestamp header
    assert df.started_at.iloc[0].isoformat() == "2026-11-22T00:15:22+00:00"
    assert wide(df).index.tolist() == [0, 1, 2]
    assert df.drop_duplicates("p_sample").p_time.tolist() == [0, 1, 2]
    assert wide(df).loc[2, "context_switches"] == 64355  # line 5: "... 27682 64355  1 25 74  0  0 ..."


def test_wide_active_and_guest(d):
    w = wide(parse_file(TOOL, d / "vmstat_w_1_3.txt"))
    assert "cpu_gu" in w.columns and w.cpu_gu.tolist() == [0, 0, 0]  # procps 4 "gu" column
    a = wide(parse_file(TOOL, d / "vmstat_a_1_3.txt"))
    # line 3: " 1  0      0 23600676 441364 299620 ..."
    assert (a.loc[0, "inactive"], a.loc[0, "active"]) == (441364 * KIB, 299620 * KIB)
    assert "buffers" not in a.columns
    wat = parse_file(TOOL, d / "vmstat_w_a_t_1_3.txt")
    assert wat.started_at.iloc[0].isoformat() == "2026-11-22T00:15:41+00:00"
    assert wide(wat).loc[1, "cpu_us"] == 83  # line 4: "...  83  18   0   0   0   0 2026-11-22 00:15:42"


def test_errors(d):
    lines = (d / "vmstat_1_3.txt").read_text().splitlines(keepends=True)
    short = with_line(lines, 4, " 3  0      0 23536912  10740\n")
    with pytest.raises(ParseError, match=r"^x\.txt:4: expected 17 fields"):
        parse_text(TOOL, short, "x.txt")
    # a cut last line (no newline) is dropped
    assert wide(parse_text(TOOL, "".join(lines[:4]) + " 3  0      0 2353", "cut.txt")).index.tolist() == [0, 1]
    typo = "".join(lines[:2]) + lines[2].replace("7794", "77g4")
    with pytest.raises(ParseError, match=r"^y\.txt:3: cs: expected a number"):
        parse_text(TOOL, typo, "y.txt")
    renamed = lines[0] + lines[1].replace(" cs ", " cz ") + "".join(lines[2:])
    with pytest.raises(ParseError, match=r"^z\.txt:2: unknown vmstat column\(s\) \['cz'\]"):
        parse_text(TOOL, renamed, "z.txt")
    with pytest.raises(ParseError, match=r"^m\.txt:1: not vmstat's report"):
        parse_file(TOOL, d.parent / "mpstat" / "mpstat_1_3.txt", name="m.txt")
    # nothing at all: no line is wrong, none is named
    with pytest.raises(ParseError, match=r"^e\.txt: not vmstat's report \(no 'procs") as exc:
        parse_text(TOOL, "\n\n", "e.txt")
    assert exc.value.line is None


@pytest.mark.parametrize(("lineno", "old", "new", "message"), [
    # vmstat_w_a_t_1_3.txt:5 "   4    0 ... 3964 1179  93   7   0   0   0   0 2026-11-22 00:15:43"
    (5, " 1179 ", " 11x9 ", "cs: expected a number, found '11x9'"),
    (5, "00:15:43", "00:15:4x", "expected a timestamp 'YYYY-MM-DD HH:MM:SS', found '2026-11-22 00:15:4x'"),
    # :4, the middle sample: a field lost
    (4, " 13763 ", " ", "expected 20 fields (r b swpd free inact active si so bi bo in cs us sy id wa "
     "st gu date time), found 19"),
])
def test_bad_value_deep_in_a_report_names_its_line(d, lineno, old, new, message):
    lines = (d / "vmstat_w_a_t_1_3.txt").read_text().splitlines(keepends=True)
    assert old in lines[lineno - 1]
    lines[lineno - 1] = lines[lineno - 1].replace(old, new)
    with pytest.raises(ParseError) as exc:
        parse_text(TOOL, "".join(lines), "v.txt")
    assert str(exc.value) == f"v.txt:{lineno}: {message}"


def test_detect(d):
    for f in sorted(d.glob("*.txt")):
        assert detect(f.read_text()) == TOOL, f.name


@pytest.mark.parametrize("name", ["vmstat_1_3.txt", "vmstat_w_a_t_1_3.txt"])
def test_every_prefix(d, name):
    check_all_prefixes(TOOL, (d / name).read_text())


def test_random_bytes():
    hypothesis_random_bytes(TOOL)()


@pytest.mark.tool
@pytest.mark.skipif(shutil.which("vmstat") is None, reason="vmstat (procps) is not installed")
def test_live_vmstat():
    out = subprocess.run(["vmstat", "-t", "1", "2"], capture_output=True, text=True, timeout=30, check=True)
    df = parse_text(TOOL, out.stdout, "live")
    assert wide(df).index.tolist() == [0, 1] and df[df.p_sample == 0].warmup.any()


def test_errors_name_the_wrong_line(d):
    """A corrupted value or timestamp further down names its own line, not the header's."""
    lines = (d / "vmstat_w_a_t_1_3.txt").read_text().splitlines(keepends=True)
    # line 5: "   4    0 ... 3964 1179  93   7   0   0   0   0 2026-11-22 00:15:43"
    bad = "".join(lines[:4]) + lines[4].replace(" 3964 ", " 39x4 ")
    with pytest.raises(ParseError, match=r"^w\.txt:5: in: expected a number, found '39x4'$"):
        parse_text(TOOL, bad, "w.txt")
    # line 4: "... 2026-11-22 00:15:42" with an impossible time
    stamp = "".join(lines[:3]) + lines[3].replace("00:15:42", "00:75:42") + lines[4]
    with pytest.raises(ParseError, match=r"^w\.txt:4: expected a timestamp 'YYYY-MM-DD HH:MM:SS', found '2026-11-22 00:75:42'$"):
        parse_text(TOOL, stamp, "w.txt")
