"""GNU time -v reports of xz/pixz compression runs made on this machine."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from overhead.parsers import ParseError, RunFailed, detect, parse_file, parse_text
from overhead.parsers import xz as xzparser
from parser_contract import check_all_prefixes, check_rows, hypothesis_random_bytes

TOOL = "xz"
INPUT = 67108864  # bytes of input.txt (README: seq 1 20000000 | head -c 67108864)


@pytest.fixture(scope="module")
def fx(fixtures):
    return fixtures / "xz"


def values(df, trial=1):
    return df[df.trial == trial].set_index("metric").value.to_dict()


def test_xz_report(fx):
    df = parse_file(TOOL, fx / "xz_T2.txt")
    v = values(df)
    # "User time (seconds): 15.85", "System time (seconds): 0.12", "Percent of CPU this job
    # got: 185%", "Elapsed (wall clock) time (h:mm:ss or m:ss): 0:08.61",
    # "Maximum resident set size (kbytes): 227968"
    assert v["user_time"] == pytest.approx(15.85) and v["system_time"] == pytest.approx(0.12)
    assert v["cpu_percent"] == 185 and v["elapsed_time"] == pytest.approx(8.61)
    assert v["max_rss"] == 227968 * 1024
    assert v["minor_page_faults"] == 57504 and v["involuntary_context_switches"] == 302
    assert "throughput" not in v  # no input size given
    # GNU time computes the CPU share itself: (user + sys) / elapsed, truncated
    assert (v["user_time"] + v["system_time"]) / v["elapsed_time"] * 100 == pytest.approx(185, abs=1)
    row = df.iloc[0]
    assert row.p_command == "xz -T2 -k -c input.txt" and row.p_compressor == "xz"
    assert row.p_threads == 2 and row.p_exit_status == 0 and row.p_mode == "compress"
    assert df[df.metric == "elapsed_time"].source.iloc[0].endswith("xz_T2.txt:5")
    assert df[df.metric == "elapsed_time"].raw.iloc[0] == "0:08.61"


def test_input_size_argument_gives_throughput(fx):
    df = xzparser.parse((fx / "xz_T2.txt").read_text(), "xz_T2.txt", input_bytes=INPUT)
    check_rows(df, "xz_T2.txt")
    thr = df[df.metric == "throughput"].iloc[0]
    assert thr.value == pytest.approx(INPUT / 8.61) and thr.unit == "B/s"
    assert set(df.p_input_bytes) == {INPUT}


def test_sidecar_lines_three_runs(fx):
    df = parse_file(TOOL, fx / "xz_T2_sidecar_3runs.txt")
    elapsed = df[df.metric == "elapsed_time"].set_index("trial").value
    assert elapsed.to_dict() == pytest.approx({1: 9.81, 2: 9.18, 3: 11.44})
    thr = df[df.metric == "throughput"].set_index("trial")
    assert thr.value.to_dict() == pytest.approx({t: INPUT / e for t, e in elapsed.items()})
    assert thr.source.loc[1].endswith(":1")  # "input_bytes=67108864", the runner's sidecar line
    # a sidecar line wins over the keyword argument
    other = xzparser.parse((fx / "xz_T2_sidecar_3runs.txt").read_text(), "s", input_bytes=1)
    assert set(other.p_input_bytes) == {INPUT}


def test_pixz(fx):
    df = parse_file(TOOL, fx / "pixz_p2.txt")
    row = df.iloc[0]
    assert row.p_compressor == "pixz" and row.p_threads == 2
    assert values(df)["elapsed_time"] == pytest.approx(7.88)  # "0:07.88"


def test_failure_is_reported(fx):
    # xz_missing_input.txt :1 "xz: /nonexistent: No such file or directory", :2 "Command exited
    # with non-zero status 1", :3 'Command being timed: "xz -T2 -k -c /nonexistent"'
    with pytest.raises(RunFailed) as exc:
        xzparser.parse((fx / "xz_missing_input.txt").read_text(), "m", input_bytes=INPUT)
    assert str(exc.value) == ("m:1: the run did not finish: xz: /nonexistent: No such file or "
                              "directory ('xz -T2 -k -c /nonexistent': Command exited with "
                              "non-zero status 1)")
    # xz_T2_killed.txt :1 "Command terminated by signal 9" (GNU time still says "Exit status: 0"
    # at :24): the time report of a killed xz measured no compression
    with pytest.raises(RunFailed) as exc:
        parse_file(TOOL, fx / "xz_T2_killed.txt")
    assert str(exc.value) == (f"{fx / 'xz_T2_killed.txt'}:1: the run did not finish: "
                              "'xz -T2 -k -c input.txt': Command terminated by signal 9")


def test_killed_after_a_finished_run_is_cut_short(fx):
    from overhead.parsers import cut_short_of

    # xz_then_pixz_killed.txt: an xz run that finished (:1-23, "Elapsed ...: 0:27.66" at :5,
    # "Exit status: 0" at :23), then :24 "Command terminated by signal 9" above the report of
    # 'pixz -p 2 input.txt /dev/null' (killed with kill -9 after 1.5 s)
    df = parse_file(TOOL, fx / "xz_then_pixz_killed.txt")
    assert cut_short_of(df) == (f"{fx / 'xz_then_pixz_killed.txt'}:24: the run was cut short: "
                                "'pixz -p 2 input.txt /dev/null': Command terminated by signal 9")
    assert set(df.p_compressor) == {"xz"} and set(df.trial) == {1}
    assert values(df)["elapsed_time"] == pytest.approx(27.66)
    assert values(df)["max_rss"] == 262212 * 1024  # :10 "Maximum resident set size (kbytes): 262212"
    assert "p_signal" not in df.columns or df.p_signal.isna().all()


@pytest.mark.parametrize(("command", "expected"), [
    ("xz -T2 -k -c /tmp/x", {"p_compressor": "xz", "p_threads": 2}),
    ("xz -9e --threads=4 f", {"p_compressor": "xz", "p_threads": 4, "p_level": 9, "p_extreme": True}),
    ("xz -kcT0 f", {"p_compressor": "xz", "p_threads": 0}),
    ("xz -M1G -6 -T 3 f", {"p_compressor": "xz", "p_threads": 3, "p_level": 6}),
    ("pixz -p 2 input.txt out.pxz", {"p_compressor": "pixz", "p_threads": 2}),
    ("pxz -T 8 f", {"p_compressor": "pxz", "p_threads": 8}),
    ("numactl --interleave=0,1 /usr/bin/xz -T2 f", {"p_compressor": "xz", "p_threads": 2}),
    ("xz -d -T2 f.xz", {"p_compressor": "xz", "p_threads": 2, "p_mode": "decompress"}),
])
def test_command_parameters(command, expected):
    got = xzparser.command_params(command)
    assert {k: got.get(k) for k in expected} == expected


def test_errors_name_the_line(fx):
    text = (fx / "xz_T2.txt").read_text()
    with pytest.raises(RunFailed, match=r"^c\.txt:1: the run did not finish: the GNU time -v "
                       r"report of 'xz -T2 -k -c input\.txt' is cut off before its 'Exit status'"):
        parse_text(TOOL, "".join(text.splitlines(keepends=True)[:22]), "c.txt")
    with pytest.raises(ParseError, match=r"^b\.txt:5: elapsed time"):
        parse_text(TOOL, text.replace("0:08.61", "0:xx.61"), "b.txt")
    with pytest.raises(ParseError, match=r"^b\.txt:1: sidecar line"):
        parse_text(TOOL, "input_bytes=64M\n" + text, "b.txt")
    # no line is wrong when none is a GNU time report: none is named
    with pytest.raises(ParseError, match=r"^n\.txt: no GNU time -v report") as exc:
        parse_text(TOOL, "xz: input.txt: No such file or directory\n", "n.txt")
    assert exc.value.line is None


@pytest.mark.parametrize(("name", "lineno", "old", "new", "message"), [
    # xz_T2_sidecar_3runs.txt:25 "input_bytes=67108864" (before the second report); a number
    # too large for the 64-bit parameter was reported at that report's first row, :27
    ("xz_T2_sidecar_3runs.txt", 25, "67108864", "99999999999999999999",
     "input_bytes: '99999999999999999999' is out of range"),
    # :26 'Command being timed: "xz -T2 -k -c input.txt"' (p_threads comes from it)
    ("xz_T2_sidecar_3runs.txt", 26, "-T2", "-T99999999999999999999",
     "threads: 99999999999999999999 is out of range"),
    # :48 "Exit status: 0" (the second report's last line)
    ("xz_T2_sidecar_3runs.txt", 48, "0", "99999999999999999999",
     "Exit status: '99999999999999999999' is out of range"),
    # :30 "Elapsed (wall clock) time (h:mm:ss or m:ss): 0:09.18"
    ("xz_T2_sidecar_3runs.txt", 30, "0:09.18", "0:09:18:1",
     "elapsed time: expected h:mm:ss or m:ss, found '0:09:18:1'"),
    # xz_T2_killed.txt:1 "Command terminated by signal 9"
    ("xz_T2_killed.txt", 1, "9", "99999999999999999999",
     "signal: '99999999999999999999' is out of range"),
])
def test_bad_value_names_its_own_line(fx, name, lineno, old, new, message):
    lines = (fx / name).read_text().splitlines(keepends=True)
    assert old in lines[lineno - 1]
    lines[lineno - 1] = lines[lineno - 1].replace(old, new, 1)
    with pytest.raises(ParseError) as exc:
        parse_text(TOOL, "".join(lines), "x.txt")
    assert str(exc.value) == f"x.txt:{lineno}: {message}"


def test_detect(fx):
    assert detect((fx / "pixz_p2.txt").read_text()) == TOOL
    assert xzparser.detect((fx / "xz_T2.txt").read_text().replace("xz -T2", "gzip -9")) == 0.5


@pytest.mark.parametrize("name", ["xz_T2.txt", "pixz_p2.txt", "xz_T2_sidecar_3runs.txt"])
def test_every_prefix(fx, name):
    check_all_prefixes(TOOL, (fx / name).read_text())


def test_random_bytes():
    hypothesis_random_bytes(TOOL)()


@pytest.mark.tool
def test_live_xz(tmp_path):
    if shutil.which("xz") is None or not shutil.which("/usr/bin/time"):
        pytest.skip("xz or GNU time is not installed")
    data = tmp_path / "in.txt"
    data.write_text("\n".join(str(i) for i in range(200_000)))
    proc = subprocess.run(["/usr/bin/time", "-v", "xz", "-T2", "-k", "-c", str(data)],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=60)
    assert proc.returncode == 0
    text = f"input_bytes={data.stat().st_size}\n{proc.stderr}"
    df = parse_text(TOOL, text, "live")
    assert set(df.p_threads) == {2} and set(df.p_exit_status) == {0}
    assert len(df[df.metric == "throughput"]) == 1
