"""iostat parser on text and JSON runs made here (sysstat 12.6.1, fio load on a loop device)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from overhead.parsers import ParseError, RunFailed, detect, parse_file, parse_text
from parser_contract import check_all_prefixes, hypothesis_random_bytes, with_line

TOOL = "iostat"
KIB = 1024
MIB = 1024**2
CPU = ["cpu_usr", "cpu_nice", "cpu_system", "cpu_iowait", "cpu_steal", "cpu_idle"]
EXTENDED = ["io_read", "disk_read", "read_merges", "read_merges_share", "read_await",
            "read_request_size", "io_write", "disk_write", "write_merges", "write_merges_share",
            "write_await", "write_request_size", "io_discard", "disk_discard", "discard_merges",
            "discard_merges_share", "discard_await", "discard_request_size", "io_flush",
            "flush_await", "queue_size", "utilization"]


@pytest.fixture(scope="module")
def d(fixtures):
    return fixtures / "iostat"


def line(df, n):
    """The rows read from line ``n``, by metric."""
    return df[df.source.str.endswith(f":{n}")].set_index("metric")


def test_extended_text(d):
    df = parse_file(TOOL, d / "iostat_x_1_3.txt")
    assert len(df) == 3 * (6 + 3 * 22)  # 3 reports: avg-cpu (6) and 3 devices of 22 columns
    assert set(df.host) == {"vm"} and df.tool_version.isna().all()
    # line 4: "          28.26    0.05   16.59    1.34    0.06   53.69"
    cpu = line(df, 4)
    assert cpu.value[CPU].tolist() == pytest.approx([28.26, 0.05, 16.59, 1.34, 0.06, 53.69])
    assert set(cpu.p_cpu) == {"all"} and set(cpu.unit) == {"%"}
    # line 9: "vda 901.62 16179.92 8.66 0.95 0.21 17.95 1642.76 25106.87 55.42 3.26 0.08 15.28
    #          31.27 4323.93 0.00 0.01 0.07 138.28 498.16 0.03 0.33 6.66"
    vda = line(df, 9)
    assert set(vda.p_device) == {"vda"}
    assert vda.value[EXTENDED].tolist() == pytest.approx([
        901.62, 16179.92 * KIB, 8.66, 0.95, 0.21e-3, 17.95 * KIB, 1642.76, 25106.87 * KIB, 55.42,
        3.26, 0.08e-3, 15.28 * KIB, 31.27, 4323.93 * KIB, 0, 0.01, 0.07e-3, 138.28 * KIB, 498.16,
        0.03e-3, 0.33, 6.66])
    assert vda.raw["disk_read"] == "16179.92" and vda.raw["read_await"] == "0.21"
    assert vda.unit[["io_read", "disk_read", "read_merges_share", "read_await", "read_request_size",
                     "queue_size", "utilization"]].tolist() == ["op/s", "B/s", "%", "s", "B", "count", "%"]
    assert df.higher_is_better.isna().all()
    # no -t: no times
    assert "p_time" not in df.columns and df.started_at.isna().all()


def test_first_report_is_since_boot(d):
    df = parse_file(TOOL, d / "iostat_x_1_3.txt")
    assert df[df.p_sample == 0].warmup.all() and not df[df.p_sample > 0].warmup.any()
    assert sorted(set(df.p_sample)) == [0, 1, 2]


@pytest.mark.parametrize("name", ["iostat_x_1_3.txt", "iostat_x_t_1_3.txt", "iostat_x_m_1_2.txt",
                                  "iostat_json_x_1_3.json"])
def test_requests_times_size_make_the_rate(d, name):
    """r/s x rareq-sz = rkB/s (and w/s x wareq-sz = wkB/s) up to the printed rounding, in every
    measured interval, whatever unit -m chose: the units are read right."""
    df = parse_file(TOOL, d / name)
    w = df[df.p_sample > 0].pivot_table(index=["p_sample", "p_device"], columns="metric", values="value")
    busy = w[w.io_read > 100]
    assert len(busy) > 0
    for kind in ("read", "write"):
        product = w[f"io_{kind}"] * w[f"{kind}_request_size"]
        rate = w[f"disk_{kind}"]
        assert ((product - rate).abs() <= 0.01 * rate + 0.006 * KIB * w[f"io_{kind}"] + 0.006 * MIB).all()


def test_cpu_shares_add_up(d):
    for name in ("iostat_x_1_3.txt", "iostat_c_1_3.txt", "iostat_json_x_1_3.json"):
        df = parse_file(TOOL, d / name)
        w = df[df.metric.isin(CPU)].pivot_table(index="p_sample", columns="metric", values="value")
        assert ((w.sum(axis=1) - 100).abs() <= 0.06).all(), name


def test_timestamps(d):
    df = parse_file(TOOL, d / "iostat_x_t_1_3.txt")
    # "11/24/26 19:24:31" (line 3), "11/24/26 19:24:32", "11/24/26 19:24:33"
    assert df.started_at.iloc[0].isoformat() == "2026-11-24T19:24:31+00:00"
    assert df.groupby("p_sample").p_time.unique().map(list).tolist() == [[0], [1], [2]]
    # line 18: "loop0 1339.60 5358.42 0.00 0.00 0.33 4.00 892.08 3568.32 ... 0.71  38.42"
    loop0 = line(df, 18)
    assert loop0.value[["io_read", "disk_read", "read_await", "queue_size", "utilization"]].tolist() == \
        pytest.approx([1339.60, 5358.42 * KIB, 0.33e-3, 0.71, 38.42])
    assert set(loop0.p_sample) == {1}
    iso = parse_file(TOOL, d / "iostat_iso_x_t_1_2.txt")  # "2026-11-24T19:24:33+0000"
    assert iso.started_at.iloc[0].isoformat() == "2026-11-24T19:24:33+00:00"
    assert sorted(set(iso.p_time)) == [0, 1]


def test_device_only_and_cpu_only(d):
    dev = parse_file(TOOL, d / "iostat_d_x_1_2.txt")
    assert not set(CPU) & set(dev.metric) and len(dev) == 2 * 3 * 22
    assert sorted(set(dev.p_sample)) == [0, 1] and dev[dev.p_sample == 0].warmup.all()
    cpu = parse_file(TOOL, d / "iostat_c_1_3.txt")
    assert set(cpu.metric) == set(CPU) and len(cpu) == 3 * 6
    # line 9: "          82.00    0.00   18.00    0.00    0.00    0.00" (the second report)
    assert line(cpu, 9).value[["cpu_usr", "cpu_system"]].tolist() == [82.0, 18.0]
    assert set(line(cpu, 9).p_sample) == {1}


def test_megabytes(d):
    df = parse_file(TOOL, d / "iostat_x_m_1_2.txt")
    # line 16: "loop0 1499.00 5.86 0.00 0.00 0.28 4.00 999.00 3.90 ..." (rMB/s, rareq-sz in kB)
    loop0 = line(df, 16)
    assert loop0.value["disk_read"] == pytest.approx(5.86 * MIB)
    assert loop0.value["disk_write"] == pytest.approx(3.90 * MIB)
    assert loop0.value["read_request_size"] == pytest.approx(4.00 * KIB)


def test_basic_report(d):
    df = parse_file(TOOL, d / "iostat_k_1_3.txt")
    assert len(df) == 3 * (6 + 3 * 7)
    # line 7: "loop0 154.63 644.11 2317.33 2310.61 30386271 109322337 109005146" (since boot)
    loop0 = line(df, 7)
    assert loop0.value[["transfers", "disk_read", "disk_write", "disk_discard", "disk_read_bytes",
                        "disk_write_bytes", "disk_discard_bytes"]].tolist() == pytest.approx([
        154.63, 644.11 * KIB, 2317.33 * KIB, 2310.61 * KIB, 30386271 * KIB, 109322337 * KIB,
        109005146 * KIB])
    assert loop0.unit[["transfers", "disk_read_bytes"]].tolist() == ["op/s", "B"]
    mb = parse_file(TOOL, d / "iostat_d_m_t_1_2.txt")
    # line 14: "vda 90.00 0.10 8.16 0.02 0 8 0"
    vda = line(mb, 14)
    assert vda.value[["transfers", "disk_write", "disk_write_bytes"]].tolist() == pytest.approx(
        [90.0, 8.16 * MIB, 8 * MIB])
    assert vda.raw["disk_read_bytes"] == "0" and set(vda.p_time) == {1}


def test_json(d):
    df = parse_file(TOOL, d / "iostat_json_x_1_3.json")
    text = parse_file(TOOL, d / "iostat_x_1_3.txt")
    assert set(df.metric) == set(text.metric) and len(df) == len(text)
    # line 24: {"disk_device": "vda", "r/s": 0.00, "w/s": 10705.00, ... "wkB/s": 138664.00, ...
    #           "wrqm": 0.05, ... "w_await": 0.06, ... "wareq-sz": 12.95, ... "util": 40.80}
    vda = line(df, 24)
    assert vda.value[["io_write", "disk_write", "write_merges_share", "write_await",
                      "write_request_size", "utilization"]].tolist() == pytest.approx([
        10705.0, 138664 * KIB, 0.05, 0.06e-3, 12.95 * KIB, 40.80])
    assert vda.raw["utilization"] == "40.80" and set(vda.p_sample) == {1} and not vda.warmup.any()
    # line 12: "avg-cpu":  {"user": 28.27, ..., "idle": 53.68}
    assert line(df, 12).value["cpu_idle"] == 53.68 and line(df, 12).warmup.all()
    assert set(df.host) == {"vm"} and df.started_at.isna().all()
    stamped = parse_file(TOOL, d / "iostat_json_x_t_1_2.json")  # "timestamp": "11/24/26 19:24:43"
    assert stamped.started_at.iloc[0].isoformat() == "2026-11-24T19:24:43+00:00"
    assert sorted(set(stamped.p_time)) == [0, 1]
    basic = parse_file(TOOL, d / "iostat_json_1_2.json")
    # line 24: {"disk_device": "vda", "tps": 75.00, "kB_read/s": 1316.00, ..., "kB_dscd": 8252}
    assert line(basic, 24).value[["transfers", "disk_read", "disk_discard_bytes"]].tolist() == \
        pytest.approx([75.0, 1316 * KIB, 8252 * KIB])
    mb = parse_file(TOOL, d / "iostat_json_x_m_d_1_2.json")
    assert not set(CPU) & set(mb.metric) and "disk_read" in set(mb.metric)


def test_killed_before_the_first_report(d):
    """iostat -y waits one interval before its first report: killed at 0.3 s, only the banner
    (and the blank line iostat writes after it at once)."""
    with pytest.raises(RunFailed) as err:
        parse_file(TOOL, d / "iostat_y_x_1_5_killed.txt", name="k.txt")
    assert str(err.value) == ("k.txt: the run did not finish: only the banner "
                              "'Linux 6.18.44-fc-v669 (vm) 11/24/26 _x86_64_ (2 CPU)', no report")
    assert err.value.line is None
    text = (d / "iostat_y_x_1_5_killed.txt").read_text()
    assert text.endswith("(2 CPU)\n\n")  # mpstat's killed banner ends after one newline
    assert detect(text) == TOOL
    # cut inside the banner's line end, it could be either tool's: detect() refuses the tie
    with pytest.raises(ParseError, match="ambiguous output: looks like iostat, mpstat"):
        detect(text.rstrip("\n"))


def test_json_killed_before_the_first_report(fixtures):
    """`iostat -y -o JSON -x 1 5`, killed at 0.3 s, wrote the JSON header up to
    '"statistics": [', byte for byte the file of tests/fixtures/mpstat/mpstat_json_1_5_interrupted.json
    (compared on 2026-11-24; see the README), which is read here."""
    with pytest.raises(RunFailed) as err:
        parse_file(TOOL, fixtures / "mpstat" / "mpstat_json_1_5_interrupted.json", name="k.json")
    assert str(err.value) == ("k.json: the run did not finish: the JSON document ends after its "
                              "header ('\"statistics\": ['), before any report")


def test_errors_name_the_line(d):
    lines = (d / "iostat_x_1_3.txt").read_text().splitlines(keepends=True)
    # a corrupted value on line 25 (the third report's loop0 line)
    assert lines[24].startswith("loop0         1508.00")
    bad = with_line(lines, 25, lines[24].replace("4.00", "4.0O", 1))
    with pytest.raises(ParseError, match=r"^x\.txt:25: rareq-sz: expected a number, found '4\.0O'$"):
        parse_text(TOOL, bad, "x.txt")
    short = with_line(lines, 16, "loop0 1.0 2.0\n")
    with pytest.raises(ParseError, match=r"^x\.txt:16: expected a device and 22 values .*found 3 fields$"):
        parse_text(TOOL, short, "x.txt")
    cpu = with_line(lines, 13, "          61.00    0.00\n")
    with pytest.raises(ParseError, match=r"^x\.txt:13: expected 6 avg-cpu values"):
        parse_text(TOOL, cpu, "x.txt")
    stray = with_line(lines, 11, "some words\n")
    with pytest.raises(ParseError, match=r"^x\.txt:11: not an iostat report line: 'some words'$"):
        parse_text(TOOL, stray, "x.txt")
    js = (d / "iostat_json_x_1_3.json").read_text()
    with pytest.raises(ParseError, match=r"^j\.json:24: iostat JSON: util is not a number, found '40\.80'$"):
        parse_text(TOOL, js.replace('"util": 40.80', '"util": "40.80"'), "j.json")
    with pytest.raises(ParseError, match=r"^j\.json:\d+: invalid or truncated iostat JSON"):
        parse_text(TOOL, js[: len(js) // 2], "j.json")
    with pytest.raises(ParseError, match=r"^v\.txt:1: not iostat output: expected the banner"):
        parse_file(TOOL, d.parent / "vmstat" / "vmstat_1_3.txt", name="v.txt")
    stamps_only = "".join((d / "iostat_x_t_1_3.txt").read_text().splitlines(keepends=True)[:3])
    with pytest.raises(ParseError, match=r"^s\.txt: no iostat report found"):
        parse_text(TOOL, stamps_only, "s.txt")  # the banner and a -t stamp, no report yet


def test_cut_last_line_is_dropped(d):
    text = (d / "iostat_x_1_3.txt").read_text().rstrip("\n")
    full = parse_text(TOOL, text + "\n", "c.txt")
    cut = parse_text(TOOL, text[:-30], "c.txt")  # inside the last vda line, no newline
    assert len(cut) == len(full) - 22


def test_detect(d):
    for f in sorted(d.iterdir()):
        if f.name != "README.md" and "killed" not in f.name:
            assert detect(f.read_text()) == TOOL, f.name
    assert detect((d.parent / "mpstat" / "mpstat_P_ALL_1_2.txt").read_text()) == "mpstat"


@pytest.mark.parametrize("name", ["iostat_x_t_1_3.txt", "iostat_k_1_3.txt", "iostat_c_1_3.txt",
                                  "iostat_d_m_t_1_2.txt", "iostat_json_x_t_1_2.json",
                                  "iostat_json_1_2.json", "iostat_y_x_1_5_killed.txt"])
def test_every_prefix(d, name):
    if "killed" in name:
        for cut in range(len((d / name).read_text().splitlines()) + 1):
            with pytest.raises(ParseError):
                parse_text(TOOL, "".join((d / name).read_text().splitlines(keepends=True)[:cut]))
        return
    check_all_prefixes(TOOL, (d / name).read_text())


def test_random_bytes():
    hypothesis_random_bytes(TOOL)()


@pytest.mark.tool
@pytest.mark.skipif(shutil.which("iostat") is None, reason="iostat (sysstat) is not installed")
@pytest.mark.parametrize("args", [["-x", "1", "2"], ["-o", "JSON", "-x", "-t", "1", "2"]])
def test_live_iostat(args):
    out = subprocess.run(["iostat", *args], capture_output=True, text=True, timeout=30, check=True)
    df = parse_text(TOOL, out.stdout, "live")
    assert {"cpu_usr", "cpu_idle", "io_read", "disk_write", "utilization"} <= set(df.metric)
    assert df[df.p_sample == 0].warmup.all() and not df[df.p_sample == 1].warmup.any()
