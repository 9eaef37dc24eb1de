"""redis-benchmark parser: the IBM authors' redis 2.x transcripts and redis 7.0.15 fixtures.

Values are read off the files by hand (the line is quoted in a comment). The IBM transcripts
are read in place (``ibm`` fixture); the redis 7 outputs are in tests/fixtures/redis-benchmark.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from conftest import free_port, redis_server

from overhead.parsers import ParseError, RunFailed, detect, parse_file, parse_text, read_text
from overhead.parsers import redis_benchmark as rb
from overhead.schema import validate
from parser_contract import check_all_prefixes, hypothesis_random_bytes

TOOL = "redis-benchmark"
TESTS_2X = ["PING_INLINE", "PING_BULK", "SET", "GET", "LPUSH", "LPOP", "SADD"]

# Per transcript: the connection counts the wrapper looped over, the number of runs ("Run #N")
# per connection count, and the runs that are missing at the end (the file stops early).
STEPS_LOW = [1, 2, 3, 4, 5, 10, 15, 20, 30, 40, 50]
STEPS_HIGH = [50, 60, 70, 80, 90, 100, 110, 120]
STRUCTURE = {
    "run_dockerbridge_20140716_2252.txt": ([10, *STEPS_HIGH], 10, 630),
    "run_dockerbridge_20140717_1058.txt": ([*STEPS_LOW, *STEPS_HIGH[1:]], 10, 1259),
    "run_dockerbridge_20140717_1831.txt": ([5, 10, 15, 20, 30], 10, 350),
    "run_dockerhost_20140717_0622.txt": ([5, 10, 20, 30, *STEPS_HIGH], 10, 840),
    "run_dockerhost_20140717_0811.txt": ([*STEPS_LOW, *STEPS_HIGH[1:]], 10, 1260),
    "run_dockerhost_20140717_1747.txt": ([5, 10, 15, 20, 30, 40], 10, 420),
    "run_dockerhost_20140717_1919.txt": ([10, 15, 20, 30, 40, 50, 60, 70], 10, 560),
    "run_native_20140716_2123.txt": (STEPS_LOW, 4, 308),
    "run_native_20140716_2211.txt": (STEPS_HIGH, 5, 280),
    "run_native_20140717_1443.txt": ([*STEPS_LOW, *STEPS_HIGH[1:]], 8, 1008),
    "run_native_20140717_1655.txt": (STEPS_HIGH[1:], 10, 490),
    "run_vm_20140716_1509.txt": (STEPS_LOW, 10, 770),
    "run_vm_20140716_1959.txt": (STEPS_HIGH, 10, 602),
}


@pytest.fixture(scope="module")
def transcripts(ibm) -> dict[str, str]:
    folder = ibm / "redis/results"
    return {p.name: read_text(p) for p in sorted(folder.glob("run_*.txt"))}


@pytest.fixture(scope="module")
def parsed(transcripts) -> tuple[dict[str, pd.DataFrame], float]:
    """Every transcript parsed once (speed is measured by `make bench`, not here)."""
    frames = {name: parse_text(TOOL, text, name) for name, text in transcripts.items()}
    return frames, None


def fixture_text(fixtures: Path, name: str) -> str:
    return read_text(fixtures / "redis-benchmark" / name)


def at(df: pd.DataFrame, line: int) -> pd.DataFrame:
    return df[df.source.str.endswith(f":{line}")]


def summary(df: pd.DataFrame) -> dict[tuple, float]:
    """Summary rows as {(test, metric, percentile or None): value}."""
    rows = df[df.p_section == "summary"]
    pct = rows.p_percentile.astype(object).where(rows.p_percentile.notna(), None)
    return dict(zip(zip(rows.p_test, rows.metric, pct, strict=True), rows.value, strict=True))


# ---- the IBM redis 2.x transcripts ------------------------------------------------------------

def test_first_run_of_native_2211_by_hand(parsed):
    df = parsed[0]["run_native_20140716_2211.txt"]
    # line 4 "[DBG] Run #1: Connections 50."; line 9 "  500000 requests completed in 4.94 seconds"
    first = at(df, 9).set_index("metric")
    assert first.value.to_dict() == pytest.approx({"requests": 500000, "duration": 4.94})
    row = first.loc["duration"]
    assert (row.p_test, row.p_command, row.trial, row.p_run) == ("PING_INLINE", "PING", 1, 1)
    assert (row.p_clients, row.p_connections, row.p_payload, row.p_requests) == (50, 50, 50, 500000)
    assert bool(row.p_keepalive) is True
    assert row.started_at.isoformat() == "2014-07-17T03:11:46+00:00"  # Wed Jul 16 22:11:46 CDT
    # line 14 "100.00% <= 0 milliseconds": a printed zero bound
    cdf = at(df, 14).iloc[0]
    assert (cdf.metric, cdf.value, cdf.unit, cdf.p_le, cdf.raw) == ("latency_cdf", 100.0, "%", 0.0, "100.00%")
    # line 15 "101255.56 requests per second"
    tp = at(df, 15).iloc[0]
    assert (tp.metric, tp.value, tp.unit, tp.raw) == (
        "throughput", 101255.56, "req/s", "101255.56 requests per second")
    assert bool(tp.higher_is_better) is True
    # SET, lines 27-35: "99.99% <= 1 milliseconds", "100.00% <= 1 milliseconds", "108084.74 ..."
    assert at(df, 33).iloc[0][["value", "p_le", "p_test"]].tolist() == [99.99, 0.001, "SET"]
    assert at(df, 34).iloc[0][["value", "p_le"]].tolist() == [100.0, 0.001]
    assert at(df, 35).value.tolist() == [108084.74]
    assert at(df, 28).set_index("metric").value.to_dict() == {"requests": 500000.0, "duration": 4.63}
    # the last test of the file (line 3233 "103691.41 requests per second"), run 5 at 120 clients,
    # after "99.94% <= 1", "100.00% <= 2" and the repeated "100.00% <= 2 milliseconds"
    last = at(df, 3233).iloc[0]
    assert (last.value, last.p_test, last.trial, last.p_clients) == (103691.41, "SADD", 5, 120)
    assert at(df, 3231).p_le.tolist() == at(df, 3232).p_le.tolist() == [0.002]


def test_exactly_8777_test_results_over_13_files(parsed):
    frames, _ = parsed
    assert len(frames) == 13
    throughput = pd.concat([f[f.metric == "throughput"] for f in frames.values()])
    assert len(throughput) == 8777
    # every complete test has one requests, one duration and one throughput row
    for name, df in frames.items():
        counts = df.metric.value_counts()
        assert counts["requests"] == counts["duration"] == counts["throughput"], name


@pytest.mark.parametrize("name", sorted(STRUCTURE))
def test_runs_times_connections(parsed, name):
    df = parsed[0][name]
    connections, runs, n_tests = STRUCTURE[name]
    tp = df[df.metric == "throughput"]
    assert len(tp) == n_tests
    # the client count redis-benchmark printed always equals the wrapper's "Connections C."
    assert (df.p_clients == df.p_connections).all()
    assert sorted(df.p_connections.unique()) == sorted(connections)
    per_cell = tp.groupby(["p_run", "p_connections"]).size()
    expected = {(r, c) for r in range(1, runs + 1) for c in connections}
    if name == "run_vm_20140716_1959.txt":  # stops after Run #11 at 100 connections
        expected |= {(11, c) for c in STEPS_HIGH[:6]}
    assert set(per_cell.index) == expected
    if name == "run_dockerbridge_20140717_1058.txt":
        # "[DBG] Run #2: Connections 110." (line 2732): GET's progress runs straight into LPUSH's,
        # "====== GET ======" and its result are missing from the file: 6 results, no GET.
        gap = tp[(tp.p_run == 2) & (tp.p_connections == 110)]
        assert gap.p_test.tolist() == ["PING_INLINE", "PING_BULK", "SET", "LPUSH", "LPOP", "SADD"]
        assert (per_cell.drop((2, 110)) == 7).all()
    else:
        assert (per_cell == 7).all()
    assert tp.groupby("p_run").p_test.apply(lambda s: set(s) <= set(TESTS_2X)).all()
    assert (df.trial == df.p_run).all() and df.started_at.notna().all()


# redis-benchmark computes rps = requests / (elapsed ms / 1000) and prints the elapsed time with
# two decimals, so requests / rps is the printed duration within 5 ms (ties at exactly 5 ms
# occur, e.g. 6.175 printed as 6.18, and 2.x's single-precision rps adds a few microseconds).
ROUNDING = 0.0051


def test_throughput_agrees_with_requests_over_duration(parsed):
    for name, df in parsed[0].items():
        wide = df[df.metric.isin(["requests", "duration", "throughput"])].pivot_table(
            index=["trial", "p_connections", "p_test"], columns="metric", values="value")
        assert len(wide) == (df.metric == "throughput").sum(), name
        assert ((wide.requests / wide.throughput - wide.duration).abs() <= ROUNDING).all(), name


def test_latency_cdf_ends_at_100_percent(parsed):
    df = parsed[0]["run_dockerbridge_20140716_2252.txt"]
    cdf = df[df.metric == "latency_cdf"]
    last = cdf.groupby(["trial", "p_connections", "p_test"]).value.last()
    assert (last == 100.0).all()
    # the slowest bucket in the file, line 3153 "100.00% <= 203 milliseconds"
    assert cdf.p_le.max() == pytest.approx(0.203)
    assert at(df, 3153).p_le.tolist() == [0.203]
    # 2014-07-16 22:52:42 CDT, first run of the file
    assert df.started_at.min().isoformat() == "2014-07-17T03:52:42+00:00"


def test_fast_path_and_line_machine_agree(transcripts, monkeypatch):
    """The whole-text regex for canonical 2.x blocks gives exactly what the line machine gives."""
    text = transcripts["run_dockerbridge_20140717_1058.txt"]  # holds the lost GET result
    fast = parse_text(TOOL, text, "x")
    monkeypatch.setattr(rb, "_FAST_BLOCK", re.compile(r"(?!)"))
    slow = parse_text(TOOL, text, "x")
    pd.testing.assert_frame_equal(fast, slow)


def test_truncated_transcript_keeps_complete_tests(transcripts):
    lines = transcripts["run_native_20140716_2211.txt"].split("\n")
    # cut after line 33 "99.99% <= 1 milliseconds": SET is incomplete and dropped
    df = parse_text(TOOL, "\n".join(lines[:33]), "cut")
    assert df[df.metric == "throughput"].p_test.tolist() == ["PING_INLINE", "PING_BULK"]
    assert df.source.str.extract(r":(\d+)$")[0].astype(int).max() == 24
    # cut inside GET's progress line (line 37), just after "GET: 122354.84\r"
    cut = "\n".join(lines[:36]) + "\n" + lines[36][: lines[36].index("\r") + 1]
    df = parse_text(TOOL, cut, "cut")
    assert df[df.metric == "throughput"].p_test.tolist() == ["PING_INLINE", "PING_BULK", "SET"]


def test_wrapper_lines_alone_are_not_a_result(transcripts):
    head = "\n".join(transcripts["run_native_20140716_2211.txt"].split("\n")[:12])
    # line 8 "====== PING_INLINE ======" and its header, then the file stops: no test finished
    with pytest.raises(RunFailed) as err:
        parse_text(TOOL, head, "w.txt")
    assert str(err.value) == ("w.txt: the run did not finish: the 'PING_INLINE' test that starts "
                              "at line 8 never finished, and no test before it")


def test_unexpected_line_in_a_block_names_the_line(transcripts):
    lines = transcripts["run_native_20140716_2211.txt"].split("\n")[:16]
    lines[9] = "  fifty parallel clients"  # line 10 of the real file is "  50 parallel clients"
    with pytest.raises(ParseError, match=r"^x\.txt:10: unexpected line in the 'PING_INLINE' test block"):
        parse_text(TOOL, "\n".join(lines), "x.txt")
    lines[9] = "  50 parallel clients"
    lines[14] = "1O1255.56 requests per second"  # a letter O for a zero
    with pytest.raises(ParseError, match=r"^x\.txt:15: requests per second: expected a number"):
        parse_text(TOOL, "\n".join(lines), "x.txt")


def test_other_tools_output_is_a_parse_error(ibm):
    with pytest.raises(ParseError, match=r"vm\.log:1: not redis-benchmark output") as err:
        parse_file(TOOL, ibm / "linpack/results/vm.log")
    assert not isinstance(err.value, RunFailed)
    assert rb.detect(read_text(ibm / "linpack/results/vm.log")) == 0.0
    assert rb.detect(read_text(ibm / "fio/results/linux.log")) == 0.0


def test_every_prefix_of_a_transcript(transcripts):
    # 3,238 newline lines, but ~36,000 when carriage returns count as line breaks (as the
    # contract's splitlines() cuts): a sample of prefixes, many of them inside progress lines
    check_all_prefixes(TOOL, transcripts["run_native_20140716_2211.txt"], limit=100)


def test_every_prefix_of_a_transcript_tail(transcripts):
    # lines 2701-2830 of the big file, around the lost GET result (starting mid-block):
    # every \n-line cut, each \r-separated progress piece too
    lines = transcripts["run_dockerbridge_20140717_1058.txt"].split("\n")
    text = "\n".join(lines[2700:2830])
    check_all_prefixes(TOOL, text, limit=150)


# ---- redis 7.0.15 fixtures --------------------------------------------------------------------

def test_redis7_default_report(fixtures):
    text = fixture_text(fixtures, "default_set_get_c50.txt")
    df = parse_text(TOOL, text, "d.txt")
    validate(df)
    assert rb.detect(text) == 1.0 and detect(text) == TOOL
    set_ = df[df.p_test == "SET"]
    # line 2 "  20000 requests completed in 0.14 seconds"
    assert at(set_, 2).set_index("metric").value.to_dict() == {"requests": 20000.0, "duration": 0.14}
    assert set(set_.p_clients) == {50} and set(set_.p_payload) == {3} and not set_.p_multi_thread.any()
    # line 12 "50.000% <= 0.191 milliseconds (cumulative count 10244)"
    p50 = at(set_, 12).iloc[0]
    assert (p50.metric, p50.p_percentile, p50.p_section) == ("latency_percentile", 50.0, "percentile_distribution")
    assert p50.value == pytest.approx(0.191e-3)
    # line 29 "8.375% <= 0.103 milliseconds (cumulative count 1675)"
    cdf = at(set_, 29).iloc[0]
    assert (cdf.metric, cdf.value, cdf.p_section) == ("latency_cdf", 8.375, "cumulative_distribution")
    assert cdf.p_le == pytest.approx(0.103e-3)
    # "  throughput summary: 139860.14 requests per second" and
    # "        0.201     0.064     0.191     0.327     0.375     2.615"
    got = {k[1:]: v for k, v in summary(df).items() if k[0] == "SET"}
    assert got == pytest.approx({
        ("throughput", None): 139860.14, ("latency_mean", None): 0.201e-3,
        ("latency_min", None): 0.064e-3, ("latency_percentile", 50.0): 0.191e-3,
        ("latency_percentile", 95.0): 0.327e-3, ("latency_percentile", 99.0): 0.375e-3,
        ("latency_max", None): 2.615e-3})
    summ = summary(df)
    for test, g in df.groupby("p_test"):
        dist = g[g.p_section == "percentile_distribution"].sort_values("p_percentile")
        cum = g[g.p_section == "cumulative_distribution"]
        # the summary's p50 and max are the distribution's 50% and 100% points
        assert summ[(test, "latency_percentile", 50.0)] == dist[dist.p_percentile == 50.0].value.item()
        assert summ[(test, "latency_max", None)] == dist.value.iloc[-1], test
        assert summ[(test, "latency_min", None)] <= dist.value.iloc[0], test
        assert dist.value.is_monotonic_increasing and cum.value.is_monotonic_increasing, test
        assert cum.value.iloc[-1] == 100.0, test
        # throughput summary = requests / duration, the duration rounded to 10 ms
        req = g[g.metric == "requests"].value.item()
        dur = g[g.metric == "duration"].value.item()
        assert abs(req / summ[(test, "throughput", None)] - dur) <= ROUNDING, test


def test_redis7_pipelined_titles_and_no_pipeline_parameter(fixtures):
    df = parse_text(TOOL, fixture_text(fixtures, "default_lpush_lrange_mset_c10_P16.txt"), "p.txt")
    tp = df[df.metric == "throughput"]
    # "====== LRANGE_100 (first 100 elements) ======" ... "throughput summary: 137931.03 requests per second"
    assert dict(zip(tp.p_test, tp.value, strict=True)) == {
        "LPUSH": 1052631.62, "LPUSH (needed to benchmark LRANGE)": 1052631.62,
        "LRANGE_100 (first 100 elements)": 137931.03, "MSET (10 keys)": 370370.38}
    assert dict(zip(tp.p_test, tp.p_command, strict=True)) == {
        "LPUSH": "LPUSH", "LPUSH (needed to benchmark LRANGE)": "LPUSH",
        "LRANGE_100 (first 100 elements)": "LRANGE", "MSET (10 keys)": "MSET"}
    assert set(df.p_clients) == {10}
    # -P 16 is stated nowhere in the output, so the parser cannot report it
    assert not any("pipeline" in c for c in df.columns)


def test_redis7_threads_and_printed_zero(fixtures):
    df = parse_text(TOOL, fixture_text(fixtures, "default_ping_c5_d100_threads2.txt"), "t.txt")
    assert set(df.p_test) == {"PING_INLINE", "PING_MBULK"} and set(df.p_command) == {"PING"}
    assert df.p_multi_thread.all() and set(df.p_threads) == {2} and set(df.p_payload) == {100}
    # "        0.039     0.000     0.039     0.071     0.087     2.943": min printed as 0.000
    mins = df[df.metric == "latency_min"]
    assert mins.value.tolist() == [0.0, 0.0] and mins.raw.tolist() == ["0.000 msec (min)"] * 2


def test_redis7_csv(fixtures):
    text = fixture_text(fixtures, "csv_c50.txt")
    assert rb.detect(text) == 1.0
    df = parse_text(TOOL, text, "c.csv")
    validate(df)
    # line 2 "SET","133333.33","0.232","0.008","0.215","0.407","0.671","2.831"
    row = at(df, 2)
    got = {k[1:]: v for k, v in summary(row).items()}
    assert got == pytest.approx({
        ("throughput", None): 133333.33, ("latency_mean", None): 0.232e-3,
        ("latency_min", None): 0.008e-3, ("latency_percentile", 50.0): 0.215e-3,
        ("latency_percentile", 95.0): 0.407e-3, ("latency_percentile", 99.0): 0.671e-3,
        ("latency_max", None): 2.831e-3})
    assert set(row.p_test) == {"SET"} and set(df.p_section) == {"summary"}
    assert df.p_test.unique().tolist() == [
        "SET", "GET", "LPUSH", "LPUSH (needed to benchmark LRANGE)",
        "LRANGE_100 (first 100 elements)", "MSET (10 keys)"]
    # CSV states neither clients nor payload
    assert "p_clients" not in df.columns and "p_payload" not in df.columns
    p16 = parse_text(TOOL, fixture_text(fixtures, "csv_c50_P16.txt"), "p.csv")
    # "GET","769230.75",...
    assert p16[p16.metric == "throughput"].value.tolist() == [625000.0, 769230.75]


def test_redis7_quiet(fixtures):
    text = fixture_text(fixtures, "quiet_c20.txt")
    # its progress updates (" \rSET: rps=0.0 (overall: -nan) avg_msec=-nan ...") are redis-benchmark's own
    assert rb.detect(text) == 1.0 and detect(text) == TOOL
    # without them, its last -q line alone ("MSET (10 keys): 93023.26 requests per second, ..."): 0.9
    assert rb.detect(text.split("\r")[-1]) == 0.9
    df = parse_text(TOOL, text, "q.txt")
    tp = df[df.metric == "throughput"]
    # line 5 "... \rLRANGE_100 (first 100 elements): 77821.02 requests per second, p50=0.175 msec"
    row = at(df, 5).set_index("metric")
    assert row.loc["throughput"].value == 77821.02
    assert row.loc["latency_percentile"].value == pytest.approx(0.175e-3)
    assert row.loc["latency_percentile"].p_percentile == 50.0
    assert tp.p_test.tolist() == ["SET", "GET", "INCR", "LPUSH (needed to benchmark LRANGE)",
                                  "LRANGE_100 (first 100 elements)", "MSET (10 keys)"]
    p16 = parse_text(TOOL, fixture_text(fixtures, "quiet_c20_P16.txt"), "p.txt")
    # " \rGET: 1333333.38 requests per second, p50=0.167 msec"
    assert p16[p16.metric == "throughput"].value.tolist() == [1111111.12, 1333333.38]


def test_csv_errors_name_the_line(fixtures):
    text = fixture_text(fixtures, "csv_c50.txt").replace('"GET","168067.22",', '"GET",', 1)
    with pytest.raises(ParseError, match=r"^c\.csv:3: CSV row: expected 8 double-quoted fields"):
        parse_text(TOOL, text, "c.csv")
    # a header that is not one (line 1 with something before it): the error is on line 1, not
    # on line 2, whose eight fields would otherwise be blamed as a bad two-column line
    text = "x" + fixture_text(fixtures, "csv_c50.txt")
    with pytest.raises(ParseError, match=r"^c\.csv:1: malformed --csv header"):
        parse_text(TOOL, text, "c.csv")
    text = fixture_text(fixtures, "old_csv_redis_1.csv").replace('"GET","546448.06"', '"GET",546448.06')
    with pytest.raises(ParseError, match=r"^o\.csv:2: CSV line: expected"):
        parse_text(TOOL, text, "o.csv")
    text = fixture_text(fixtures, "old_csv_redis_1.csv").replace('"GET","546448.06"', '"GET","546,448.06"')
    with pytest.raises(ParseError, match=r"^o\.csv:2: requests per second: expected a number"):
        parse_text(TOOL, text, "o.csv")


# ---- the two-column CSV of redis-benchmark before 6.2 (boramalper/pydis) ------------------------

def test_old_two_column_csv(fixtures):
    text = fixture_text(fixtures, "old_csv_redis_1.csv")
    assert rb.detect(text) == 0.9 and detect(text) == TOOL
    df = parse_text(TOOL, text, "o.csv")
    validate(df)
    # line 1 "SET","452488.69"; line 11 "LPUSH (needed to benchmark LRANGE)","370370.34";
    # line 16 "MSET (10 keys)","196078.44"
    assert set(df.metric) == {"throughput"} and set(df.unit) == {"req/s"} and len(df) == 16
    row = at(df, 1).iloc[0]
    assert (row.p_test, row.p_command, row.value, row.raw) == (
        "SET", "SET", 452488.69, "452488.69 requests per second")
    assert bool(row.higher_is_better) and row.p_section == "summary"  # as the --csv rps of redis 7
    assert at(df, 11).iloc[0][["p_test", "p_command", "value"]].tolist() == [
        "LPUSH (needed to benchmark LRANGE)", "LPUSH", 370370.34]
    assert at(df, 16).iloc[0][["p_test", "p_command", "value"]].tolist() == ["MSET (10 keys)", "MSET", 196078.44]
    # it states nothing else: no latency, no clients, no requests
    assert not any(c in df.columns for c in ("p_clients", "p_requests", "p_percentile"))
    pydis = parse_text(TOOL, fixture_text(fixtures, "old_csv_pydis_1.csv"), "p.csv")
    # line 12 "LRANGE_100 (first 100 elements)","25575.45"
    assert at(pydis, 12).iloc[0][["p_test", "p_command", "value"]].tolist() == [
        "LRANGE_100 (first 100 elements)", "LRANGE", 25575.45]


# ---- failed runs, made here (see fixtures/redis-benchmark/README.md) ----------------------------

@pytest.mark.parametrize(("name", "line", "error"), [
    ("refused.txt", 1, "Could not connect to Redis at 127.0.0.1:49557: Connection refused"),
    ("refused_csv.txt", 1, "Could not connect to Redis at 127.0.0.1:49557: Connection refused"),
    ("killed_set.txt", 1, "Error: Connection reset by peer"),
    ("killed_set_csv.txt", 1, "Error: Server closed the connection"),
])
def test_failed_run_names_the_tools_error(fixtures, name, line, error):
    text = fixture_text(fixtures, name)
    assert detect(text) == TOOL  # still recognised as redis-benchmark's output
    with pytest.raises(RunFailed) as err:
        parse_text(TOOL, text, name)
    assert str(err.value) == (f"{name}:{line}: the run did not finish: redis-benchmark printed "
                              f"{error!r} before any test finished")
    assert (err.value.line, err.value.path) == (line, name)


def test_killed_server_keeps_the_finished_tests(fixtures):
    df = parse_text(TOOL, fixture_text(fixtures, "killed_after_ping.txt"), "k.txt")
    # PING_INLINE finished ("  throughput summary: 45934.77 requests per second", line 81);
    # SET was running when the server went away (line 85 "...\rError: Connection reset by peer")
    assert set(df.p_test) == {"PING_INLINE"}
    assert summary(df)[("PING_INLINE", "throughput", None)] == 45934.77
    assert summary(df)[("PING_INLINE", "latency_max", None)] == pytest.approx(319.743e-3)
    # ... its last row is line 84 "        0.772     0.096     0.527     1.695     3.503   319.743"
    assert df.source.str.rsplit(":", n=1).str[1].astype(int).max() == 84
    csv = parse_text(TOOL, fixture_text(fixtures, "killed_after_ping_csv.txt"), "k.csv")
    # line 1 "Error: Connection reset by peer" (standard error, unbuffered), line 3
    # "PING_INLINE","85130.54","0.318","0.072","0.303","0.495","0.687","4.703"
    assert set(csv.p_test) == {"PING_INLINE"} and set(csv.source) == {"k.csv:3"}
    assert summary(csv)[("PING_INLINE", "throughput", None)] == 85130.54


@pytest.mark.parametrize("name", sorted(
    p.name for p in (Path(__file__).resolve().parents[1] / "fixtures/redis-benchmark").glob("*.*")
    if p.name != "README.md" and not p.name.startswith(("refused", "killed_set"))))
def test_every_prefix_of_redis7_fixtures(fixtures, name):
    check_all_prefixes(TOOL, fixture_text(fixtures, name))


def test_random_bytes():
    hypothesis_random_bytes(TOOL)()


# ---- live: redis-server and redis-benchmark on loopback ---------------------------------------

@pytest.mark.tool
@pytest.mark.skipif(not (shutil.which("redis-server") and shutil.which("redis-benchmark")),
                    reason="redis-server/redis-benchmark not installed (Debian redis-server, redis-tools)")
def test_live_csv_and_default_agree(tmp_path):
    port = free_port()
    with redis_server(port, tmp_path):
        base = ["redis-benchmark", "-h", "127.0.0.1", "-p", str(port), "-n", "10000", "-c", "10",
                "-t", "set,get"]
        csv = subprocess.run([*base, "--csv"], capture_output=True, text=True, timeout=60, check=True).stdout
        text = subprocess.run(base, capture_output=True, text=True, timeout=60, check=True).stdout
    a = parse_text(TOOL, csv, "live.csv")
    b = parse_text(TOOL, text, "live.txt")
    validate(a)
    validate(b)
    sa, sb = summary(a), summary(b)
    # the same summary rows from both modes (two runs, so the values differ)
    assert set(sa) == set(sb)
    assert set(a.p_test) == {"SET", "GET"}
    assert set(b[b.metric == "requests"].value) == {10000.0} and set(b.p_clients) == {10}
    for test in ("SET", "GET"):
        for s in (sa, sb):
            # a loopback server does between 1e3 and 1e7 requests per second ...
            assert 1e3 < s[(test, "throughput", None)] < 1e7
            # ... with latencies ordered as they must be, in seconds (not milliseconds)
            lat = [s[(test, "latency_min", None)], s[(test, "latency_percentile", 50.0)],
                   s[(test, "latency_percentile", 99.0)], s[(test, "latency_max", None)]]
            assert lat == sorted(lat) and lat[-1] < 1.0
        # the two runs agree within an order of magnitude
        ratio = sa[(test, "throughput", None)] / sb[(test, "throughput", None)]
        assert 0.1 < ratio < 10


# ------------------------------------------------------------------ issue 45


def test_quiet_output_closes_with_an_empty_line(fixtures):
    from overhead.parsers import cut_short_of

    # quiet_c10_n5000.txt: four -q lines ("GET: 51546.39 requests per second, p50=0.127 msec"
    # is line 2), then the empty line redis-benchmark prints after its tests (line 5)
    raw = read_text(fixtures / "redis-benchmark" / "quiet_c10_n5000.txt")
    whole = parse_text("redis-benchmark", raw, "q")
    assert cut_short_of(whole) is None
    thr = whole[whole.metric == "throughput"].set_index("p_test").value
    assert thr.to_dict() == pytest.approx({"SET": 50000.00, "GET": 51546.39, "INCR": 50505.05,
                                           "LPUSH": 49504.95})
    lines = raw.split("\n")
    assert lines[4] == "" and len(lines) == 6  # the empty line, then nothing after its end
    for keep in (2, 3, 4):  # the capture stops after the GET, INCR or LPUSH line
        cut = parse_text("redis-benchmark", "\n".join(lines[:keep]) + "\n", "q")
        assert cut_short_of(cut).startswith(f"q:{keep}: the run was cut short: the -q line of ")
        assert len(cut[cut.metric == "throughput"]) == keep
    # a command given on the command line ends without the empty line: its title is the
    # command as typed ("GET key: 50000.00 requests per second, p50=0.127 msec")
    custom = parse_file("redis-benchmark", fixtures / "redis-benchmark" / "quiet_command_get_key.txt")
    assert cut_short_of(custom) is None and set(custom.p_test) == {"GET key"}
    assert custom[custom.metric == "throughput"].value.tolist() == pytest.approx([50000.00])


def test_csv_runs_appended_are_numbered(fixtures):
    # three `redis-benchmark --csv >> file` runs: a header row, then SET and GET, three times
    df = parse_file("redis-benchmark", fixtures / "redis-benchmark" / "csv_three_runs_appended.txt")
    thr = df[df.metric == "throughput"]
    got = {(r.p_run, r.p_test): r.value for r in thr.itertuples()}
    assert got == pytest.approx({(1, "SET"): 48076.92, (1, "GET"): 50505.05,
                                 (2, "SET"): 44642.86, (2, "GET"): 50505.05,
                                 (3, "SET"): 47619.05, (3, "GET"): 50505.05})
    assert (df.trial == df.p_run).all()
    # one table alone is one run, as before: no run number
    one = parse_file("redis-benchmark", fixtures / "redis-benchmark" / "csv_c50.txt")
    assert "p_run" not in one and one.trial.isna().all()
    # run 2's SET row (line 5): "44642.86","0.158","0.024","0.111","0.199","2.759","3.199"
    p99 = df[(df.metric == "latency_percentile") & (df.p_percentile == 99.0) & (df.p_run == 2)
             & (df.p_test == "SET")]
    assert p99.value.tolist() == pytest.approx([2.759e-3]) and p99.source.iloc[0].endswith(":5")
