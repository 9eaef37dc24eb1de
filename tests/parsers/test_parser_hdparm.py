"""hdparm parser on runs against loop devices here and the flattened outputs of seed 004."""

from __future__ import annotations

from pathlib import Path

import pytest

from overhead.parsers import ParseError, RunFailed, detect, parse_file, parse_text
from parser_contract import check_all_prefixes, hypothesis_random_bytes

TOOL = "hdparm"
MIB = 1024 * 1024


@pytest.fixture(scope="module")
def d(fixtures):
    return fixtures / "hdparm"


def values(df, kind):
    sub = df[df.metric.str.startswith(kind + "_read_")]
    return {m.removeprefix(kind + "_read_"): v for m, v in zip(sub.metric, sub.value, strict=True)}


def test_loop_cached_and_buffered(d):
    df = parse_file(TOOL, d / "loop_tT.txt")
    assert set(df.p_device) == {"/dev/loop0"}  # line 2: "/dev/loop0:"
    assert not df.p_o_direct.any()
    # line 3: " Timing cached reads:   20756 MB in  2.00 seconds = 10391.64 MB/sec"
    assert values(df, "cached") == pytest.approx({"rate": 10391.64 * MIB, "bytes": 20756 * MIB, "time": 2.0})
    # line 4: " Timing buffered disk reads: 256 MB in  0.55 seconds = 465.75 MB/sec"
    assert values(df, "buffered") == pytest.approx({"rate": 465.75 * MIB, "bytes": 256 * MIB, "time": 0.55})
    assert df[df.metric == "buffered_read_rate"].source.iloc[0].endswith("loop_tT.txt:4")
    assert df[df.metric == "cached_read_rate"].raw.iloc[0] == "10391.64 MB/sec"
    assert df.set_index("metric").unit.to_dict()["buffered_read_rate"] == "B/s"


def test_direct(d):
    df = parse_file(TOOL, d / "loop_tT_direct.txt")
    assert df.p_o_direct.all()
    # " Timing O_DIRECT cached reads:   10392 MB in  2.00 seconds = 5198.14 MB/sec"
    assert values(df, "cached")["rate"] == pytest.approx(5198.14 * MIB)
    # " Timing O_DIRECT disk reads: 256 MB in  0.04 seconds = 5778.26 MB/sec"
    assert values(df, "direct") == pytest.approx({"rate": 5778.26 * MIB, "bytes": 256 * MIB, "time": 0.04})
    assert not df.metric.str.startswith("buffered").any()


def test_two_devices(d):
    df = parse_file(TOOL, d / "two_loops_t.txt")
    rates = df[df.metric == "buffered_read_rate"].set_index("p_device").value / MIB
    # "/dev/loop0: ... = 300.22 MB/sec" and "/dev/loop1: ... = 433.78 MB/sec"
    assert rates.to_dict() == pytest.approx({"/dev/loop0": 300.22, "/dev/loop1": 433.78})
    assert set(df.trial) == {1}


def test_seed_flattened(d):
    # "Timing cached reads: 11980 MB in 2.00 seconds = 5992.56 MB/sec Timing buffered disk
    #  reads: 366 MB in 3.01 seconds = 121.52 MB/sec" (one line; the device line was lost)
    df = parse_file(TOOL, d / "seed004_physical.txt")
    assert values(df, "cached") == pytest.approx({"rate": 5992.56 * MIB, "bytes": 11980 * MIB, "time": 2.0})
    assert values(df, "buffered") == pytest.approx({"rate": 121.52 * MIB, "bytes": 366 * MIB, "time": 3.01})
    assert "p_device" not in df.columns
    vbox = parse_file(TOOL, d / "seed004_vbox.txt")
    assert values(vbox, "buffered")["rate"] / MIB == pytest.approx(99.87)  # "= 99.87 MB/sec"


@pytest.mark.parametrize("name", ["loop_tT.txt", "loop_tT_direct.txt", "two_loops_t.txt", "seed004_physical.txt",
                                  "seed004_vbox.txt", "seed004_vbox_lvm.txt", "seed004_vbox_vdi.txt"])
def test_rate_agrees_with_bytes_over_time(d, name):
    """hdparm prints MB / elapsed; the printed seconds are rounded to 0.01 s."""
    df = parse_file(TOOL, d / name)
    for (_src, _kind), g in df.assign(kind=df.metric.str.split("_").str[0]).groupby(["source", "kind"]):
        v = {m.split("_read_")[1]: x for m, x in zip(g.metric, g.value, strict=True)}
        assert v["bytes"] / (v["time"] + 0.005) <= v["rate"] <= v["bytes"] / (v["time"] - 0.005)


def test_slow_device_prints_kb():
    # hdparm.c prints kB/sec (MB/sec * 1024) below 1 MB/s
    df = parse_text(TOOL, "\n/dev/sr0:\n Timing buffered disk reads:   2 MB in  3.00 seconds = 682.67 kB/sec\n")
    assert values(df, "buffered")["rate"] == pytest.approx(682.67 * 1024)


def test_offset_label():
    # hdparm --offset 2 -t: the label carries "(offset N GB)", GB = 2^30 bytes in hdparm.c
    text = "\n/dev/sda:\n Timing buffered disk reads (offset 2 GB): 300 MB in  3.00 seconds =  99.87 MB/sec\n"
    df = parse_text(TOOL, text)
    assert set(df.p_offset) == {2 * 1024**3}
    assert values(df, "buffered")["rate"] == pytest.approx(99.87 * MIB)


@pytest.mark.parametrize(("name", "message"), [
    # a 1 MiB loop device: hdparm -t reads 2 MiB blocks; :3 " Timing buffered disk reads:
    # read(2097152) returned 1048576 bytes"
    ("small_t.txt", "small_t.txt:3: the run did not finish: Timing buffered disk reads: "
     "read(2097152) returned 1048576 bytes"),
    # -tT on it: :1 is stderr's "read(2097152) returned 1048576 bytes" (the cached timing),
    # :4 " Timing buffered disk reads: read() hit EOF - device too small"
    ("small_tT.txt", "small_tT.txt:4: the run did not finish: Timing buffered disk reads: "
     "read() hit EOF - device too small"),
])
def test_failed_timing_is_a_failed_run(d, name, message):
    text = (d / name).read_text()
    assert detect(text) == TOOL
    with pytest.raises(RunFailed) as exc:
        parse_text(TOOL, text, name)
    assert str(exc.value) == message


def test_failed_timing_beside_a_result_keeps_the_result(d):
    # loop_tT.txt's cached timing, then small_t.txt's failed disk timing (as for two devices)
    text = (d / "loop_tT.txt").read_text().splitlines(keepends=True)
    cached = [line for line in text if "Timing cached reads" in line]
    df = parse_text(TOOL, "".join(cached) + (d / "small_t.txt").read_text(), "two.txt")
    assert set(df.metric) == {"cached_read_rate", "cached_read_bytes", "cached_read_time"}


def test_bad_value_deep_in_a_file_names_its_line(d):
    # two_loops_t.txt:6 " Timing buffered disk reads: 128 MB in  0.30 seconds = 433.78 MB/sec"
    lines = (d / "two_loops_t.txt").read_text().splitlines(keepends=True)
    lines[5] = lines[5].replace("0.30 seconds", "0.3O seconds")
    with pytest.raises(ParseError) as exc:
        parse_text(TOOL, "".join(lines), "t.txt")
    assert str(exc.value) == ("t.txt:6: expected '<n> MB in <s> seconds = <r> MB/sec', found "
                              "'128 MB in  0.3O seconds = 433.78 MB/sec'")


def test_malformed_result_names_the_line():
    text = "\n/dev/sda:\n Timing cached reads:   2O756 MB in  2.00 seconds = 10391.64 MB/sec\n"
    with pytest.raises(ParseError, match=r"^x\.txt:3: expected '<n> MB in"):
        parse_text(TOOL, text, "x.txt")


def test_detect(d):
    for f in sorted(d.glob("*.txt")):
        assert detect(f.read_text()) == TOOL, f.name


@pytest.mark.parametrize("name", ["loop_tT.txt", "two_loops_t.txt", "seed004_vbox_lvm.txt"])
def test_every_prefix(d, name):
    check_all_prefixes(TOOL, (d / name).read_text())


def test_random_bytes():
    hypothesis_random_bytes(TOOL)()


def test_device_not_permitted_is_a_failed_run():
    """Issue 26: ``hdparm -tT /dev/vda`` without the right to open the device (made here,
    see the README) prints one line, ":1 /dev/vda: Operation not permitted", and exits 1:
    the failed-run form, not "no hdparm timing found"; auto-detection picks hdparm."""
    path = Path(__file__).resolve().parents[1] / "fixtures" / "hdparm" / "vda_tT_not_permitted.txt"
    text = path.read_text()
    assert text == "/dev/vda: Operation not permitted\n"
    with pytest.raises(RunFailed) as exc:
        parse_text(TOOL, text, "v.txt")
    assert str(exc.value) == "v.txt:1: the run did not finish: /dev/vda: Operation not permitted"
    assert detect(text) == TOOL
