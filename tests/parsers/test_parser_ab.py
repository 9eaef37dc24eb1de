"""ab parser on runs against a loopback http.server here and flattened reports from seed 004."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest
from conftest import free_port, serving

from overhead.parsers import ParseError, RunFailed, detect, parse_file, parse_text
from parser_contract import check_all_prefixes, hypothesis_random_bytes, parse_prefix

TOOL = "ab"


@pytest.fixture(scope="module")
def d(fixtures):
    return fixtures / "ab"


def one(df, metric):
    sub = df[df.metric == metric]
    assert len(sub) == 1, metric
    return sub.value.iloc[0]


def test_report_values(d):
    df = parse_file(TOOL, d / "n200_c4.txt")
    row = df.iloc[0]
    assert row.tool_version == "2.3"  # "This is ApacheBench, Version 2.3 <$Revision$>"
    assert (row.p_concurrency, row.p_requests, row.p_document_length) == (4, 200, 5536)
    assert (row.p_server_software, row.p_server_port, row.p_document_path) == ("SimpleHTTP/0.6", 18931, "/index.html")
    assert one(df, "test_time") == pytest.approx(0.102)  # "Time taken for tests:   0.102 seconds"
    assert one(df, "complete_requests") == 200 and one(df, "failed_requests") == 0
    assert one(df, "total_transferred") == 1144600  # "Total transferred:      1144600 bytes"
    assert one(df, "request_rate") == pytest.approx(1958.96)  # "Requests per second:    1958.96 [#/sec] (mean)"
    assert one(df, "time_per_request_mean") == pytest.approx(2.042e-3)  # "2.042 [ms] (mean)"
    assert one(df, "time_per_request_concurrent_mean") == pytest.approx(0.510e-3)
    assert one(df, "transfer_rate") == pytest.approx(10948.37 * 1024)  # "[Kbytes/sec] received"
    # line 32: "Processing:     1    2   0.6      2       4"
    proc = df[df.source.str.endswith(":32")].set_index("metric").value.to_dict()
    assert proc == pytest.approx({"processing_time_min": 1e-3, "processing_time_mean": 2e-3,
                                  "processing_time_sd": 0.6e-3, "processing_time_median": 2e-3,
                                  "processing_time_max": 4e-3})
    pct = df[df.metric == "latency_percentile"].set_index("p_percentile").value
    assert list(pct.index) == [50, 66, 75, 80, 90, 95, 98, 99, 100]
    assert pct[90] == pytest.approx(3e-3)  # "  90%      3"
    assert pct[100] == one(df, "total_time_max")  # " 100%      4 (longest request)" = Total max 4
    assert set(df.unit[df.metric.str.endswith("_time_mean")]) == {"s"}


def test_report_agrees_with_itself(d):
    """ab derives its rates from the counts and the test time (printed to the ms)."""
    for name in ("n200_c4.txt", "k_404_n200_c4.txt", "seed004_physical_flat.txt",
                 "seed004_lxc_flat.txt", "seed004_vbox_flat.txt"):
        df = parse_file(TOOL, d / name)
        t, n, c = one(df, "test_time"), one(df, "complete_requests"), df.p_concurrency.iloc[0]
        lo, hi = t - 0.0005, t + 0.0005
        assert n / hi <= one(df, "request_rate") <= n / lo, name
        assert one(df, "time_per_request_concurrent_mean") == pytest.approx(t / n, abs=0.0005e-3 + 1e-12), name
        assert one(df, "time_per_request_mean") == pytest.approx(c * t / n, abs=0.0005e-3 + c * 0.0005 / n), name
        assert one(df, "total_transferred") / hi <= one(df, "transfer_rate") <= one(df, "total_transferred") / lo, name


def test_404_keepalive(d):
    df = parse_file(TOOL, d / "k_404_n200_c4.txt")
    assert one(df, "non_2xx_responses") == 200  # "Non-2xx responses:      200"
    assert one(df, "keepalive_requests") == 0  # "Keep-Alive requests:    0"
    assert df.p_document_length.iloc[0] == 335
    # HTML transferred = Document Length x Complete requests (both runs serve one fixed page)
    assert one(df, "html_transferred") == 335 * 200


def test_seed_flattened(d):
    # "Concurrency Level: 10000 Time taken for tests: 5.745 seconds Complete requests: 100000
    #  Failed requests: 0 Write errors: 0 Total transferred: 172100000 bytes ..." on one line
    df = parse_file(TOOL, d / "seed004_physical_flat.txt")
    assert df.p_concurrency.iloc[0] == 10000
    assert one(df, "test_time") == pytest.approx(5.745)
    assert one(df, "complete_requests") == 100000 and one(df, "write_errors") == 0
    assert one(df, "request_rate") == pytest.approx(17404.93)
    assert one(df, "time_per_request_mean") == pytest.approx(0.57455)  # "574.550 [ms] (mean)"
    assert one(df, "time_per_request_concurrent_mean") == pytest.approx(0.057e-3)
    assert one(df, "transfer_rate") == pytest.approx(29251.85 * 1024)
    assert set(df.source) == {str(d / "seed004_physical_flat.txt") + ":1"}
    vbox = parse_file(TOOL, d / "seed004_vbox_flat.txt")
    assert vbox.p_concurrency.iloc[0] == 5000 and one(vbox, "keepalive_requests") == 0
    assert one(vbox, "request_rate") == pytest.approx(1197.38)


def test_csv_percentiles(d):
    df = parse_file(TOOL, d / "n200_c4_percentiles.csv")
    assert len(df) == 101 and list(df.p_percentile) == list(range(101))
    p = df.set_index("p_percentile").value
    assert p[0] == pytest.approx(0.836e-3)  # "0,0.836"
    assert p[50] == pytest.approx(1.959e-3)  # "50,1.959"; the text report rounds it to 2 ms
    text = parse_file(TOOL, d / "n200_c4.txt")
    report = text[text.metric == "latency_percentile"].set_index("p_percentile").value
    for q in (50, 90, 99, 100):
        assert abs(p[q] - report[q]) <= 0.5e-3 + 1e-9  # same run, text rounded to whole ms
    assert p.is_monotonic_increasing


def test_gnuplot_per_request(d):
    df = parse_file(TOOL, d / "n200_c4_gnuplot.tsv")
    assert len(df) == 4 * 200
    total = df[df.metric == "total_time"]
    assert list(total.p_request) == list(range(200))
    assert set(total.p_time) == {0}  # all 200 requests started within 1795306456
    assert total.started_at.iloc[0].isoformat() == "2026-11-22T00:14:16+00:00"
    # the last line: "Sun Nov 22 00:14:16 2026\t1795306456\t0\t4\t4\t1"
    last = df[df.source.str.endswith(":201")].set_index("metric").value.to_dict()
    assert last == pytest.approx({"connect_time": 0, "processing_time": 4e-3, "total_time": 4e-3,
                                  "waiting_time": 1e-3})
    text = parse_file(TOOL, d / "n200_c4.txt")
    assert total.value.max() == one(text, "total_time_max")  # 4 ms in both
    assert abs(total.value.mean() - one(text, "total_time_mean")) <= 0.5e-3
    wide = df.pivot_table(index="p_request", columns="metric", values="value")
    assert ((wide.total_time - wide.connect_time - wide.processing_time).abs() <= 1e-3 + 1e-9).all()


FAILED = {
    # :5 "Benchmarking 127.0.0.1 (be patient)...apr_socket_recv: Connection refused (111)"
    "refused.txt": "refused.txt:5: the run did not finish: apr_socket_recv: Connection refused (111)",
    # nginx killed (SIGKILL) 1.5 s into the run: :6 "apr_socket_recv: Connection reset by peer
    # (104)", :7 "Total of 1504 requests completed"
    "killed_n20000_c4.txt": "killed_n20000_c4.txt:6: the run did not finish: apr_socket_recv: "
    "Connection reset by peer (104); Total of 1504 requests completed",
    # the same with -k -t 10: :7 "Total of 2591 requests completed"
    "killed_k_t10_c4.txt": "killed_k_t10_c4.txt:6: the run did not finish: apr_socket_recv: "
    "Connection reset by peer (104); Total of 2591 requests completed",
    # nginx stopped (SIGSTOP) 1 s in, ab -s 2: :6 "apr_pollset_poll: The timeout specified has
    # expired (70007)", :7 "Total of 1245 requests completed"
    "stopped_s2_n20000_c4.txt": "stopped_s2_n20000_c4.txt:6: the run did not finish: "
    "apr_pollset_poll: The timeout specified has expired (70007); Total of 1245 requests completed",
}


@pytest.mark.parametrize("name", FAILED)
def test_failed_run_quotes_abs_message(d, name):
    text = (d / name).read_text()
    assert detect(text) == TOOL  # still ab's output: `overhead parse auto` names the failure
    with pytest.raises(RunFailed) as exc:
        parse_file(TOOL, d / name, name=name)
    assert str(exc.value) == FAILED[name]
    assert "apr_" in text.splitlines()[exc.value.line - 1]


def test_banner_only_is_a_failed_run_without_a_line(d):
    # killed_n20000_c4.txt cut after :5 "Benchmarking 127.0.0.1 (be patient)": the run's start only
    text = "".join((d / "killed_n20000_c4.txt").read_text().splitlines(keepends=True)[:5])
    with pytest.raises(RunFailed) as exc:
        parse_text(TOOL, text, "b.txt")
    assert exc.value.line is None
    assert str(exc.value) == ("b.txt: the run did not finish: ab printed its banner but no report "
                              "(no 'Requests per second:' or 'Connection Times' line)")


def test_malformed_value_names_the_line(d):
    lines = (d / "n200_c4.txt").read_text().splitlines(keepends=True)
    lines[23] = "Requests per second:    19x8.96 [#/sec] (mean)\n"
    with pytest.raises(ParseError, match=r"^x\.txt:24: Requests per second: expected a number"):
        parse_text(TOOL, "".join(lines), "x.txt")
    bad_csv = "Percentage served,Time in ms\n0,0.836\n1;0.990\n"
    with pytest.raises(ParseError, match=r"^e\.csv:3: expected '<percent>,<ms>'"):
        parse_text(TOOL, bad_csv, "e.csv")


def test_not_ab(fixtures):
    # no line of the file is wrong (none is ab's): no line is named, and it is no failed run
    with pytest.raises(ParseError, match=r"^v\.txt: no ApacheBench output") as exc:
        parse_text(TOOL, (fixtures / "vmstat" / "vmstat_1_3.txt").read_text(), "v.txt")
    assert type(exc.value) is ParseError


def _corrupt(text: str, lineno: int, old: str, new: str) -> str:
    """Replace ``old`` by ``new`` on line ``lineno`` (1-based) of ``text``, checking it is there."""
    lines = text.splitlines(keepends=True)
    assert old in lines[lineno - 1], lines[lineno - 1]
    lines[lineno - 1] = lines[lineno - 1].replace(old, new)
    return "".join(lines)


@pytest.mark.parametrize(("lineno", "old", "new", "message"), [
    # :8 "Finished 200 requests" (was reported at the first row, :19)
    (8, "200", "99999999999999999999",
     "Finished requests: '99999999999999999999' is out of range"),
    # :13 "Server Port:            18931"
    (13, "18931", "99999999999999999999", "Server Port: '99999999999999999999' is out of range"),
    # :18 "Concurrency Level:      4"
    (18, "4", "99999999999999999999", "Concurrency Level: '99999999999999999999' is out of range"),
    # :33 "Waiting:        1    2   0.4      1       3", deep in the table
    (33, "0.4", "0.x", "Waiting sd: expected a number, found '0.x'"),
    # :46 "  99%      4"
    (46, "4", "4.4.4", "expected '<percent>%  <ms>' in the percentile table, found '99%      4.4.4'"),
])
def test_bad_value_names_its_own_line(d, lineno, old, new, message):
    bad = _corrupt((d / "n200_c4.txt").read_text(), lineno, old, new)
    with pytest.raises(ParseError) as exc:
        parse_text(TOOL, bad, "x.txt")
    assert str(exc.value) == f"x.txt:{lineno}: {message}"


def test_gnuplot_start_out_of_range_names_its_line(d):
    # n200_c4_gnuplot.tsv:101 "Sun Nov 22 00:14:16 2026\t1795306456\t..." given a start time
    # pandas cannot hold (it was an OutOfBoundsDatetime crash)
    bad = _corrupt((d / "n200_c4_gnuplot.tsv").read_text(), 101, "\t1795306456\t",
                   "\t-99999999999999\t")
    with pytest.raises(ParseError) as exc:
        parse_text(TOOL, bad, "g.tsv")
    assert str(exc.value) == "g.tsv:101: seconds: -99999999999999 is not a time (out of range)"


def test_detect(d):
    for f in sorted(p for p in d.iterdir() if p.suffix in (".txt", ".csv", ".tsv")):
        assert detect(f.read_text()) == TOOL, f.name


@pytest.mark.parametrize("name", ["n200_c4.txt", "k_404_n200_c4.txt", "seed004_vbox_flat.txt",
                                  "n200_c4_percentiles.csv"])
def test_every_prefix(d, name):
    check_all_prefixes(TOOL, (d / name).read_text())


@pytest.mark.parametrize("name", FAILED)
def test_failed_run_prefixes(d, name):
    text = (d / name).read_text()
    for cut in range(len(text.splitlines()) + 1):
        assert parse_prefix(TOOL, text, cut) is None  # banner, progress: RunFailed; the rest too


def test_gnuplot_prefixes(d):
    check_all_prefixes(TOOL, (d / "n200_c4_gnuplot.tsv").read_text(), limit=40)


def test_random_bytes():
    hypothesis_random_bytes(TOOL)()


@pytest.mark.tool
@pytest.mark.skipif(shutil.which("ab") is None, reason="ab (apache2-utils) is not installed")
def test_live_ab_against_loopback(tmp_path):
    (tmp_path / "index.html").write_text("x" * 1000)
    port = free_port()
    with serving([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"], port,
                 cwd=tmp_path):
        out = subprocess.run(["ab", "-n", "50", "-c", "2", "-e", str(tmp_path / "e.csv"),
                              "-g", str(tmp_path / "g.tsv"), f"http://127.0.0.1:{port}/index.html"],
                             capture_output=True, text=True, timeout=30, check=True)
    df = parse_text(TOOL, out.stdout, "live")
    assert one(df, "complete_requests") == 50 and df.p_document_length.iloc[0] == 1000
    assert len(parse_file(TOOL, tmp_path / "e.csv")) == 101
    assert len(parse_file(TOOL, tmp_path / "g.tsv")) == 4 * 50


@pytest.mark.tool
@pytest.mark.skipif(shutil.which("ab") is None, reason="ab (apache2-utils) is not installed")
def test_live_ab_refused_is_a_failed_run():
    port = free_port()  # nothing listens there
    out = subprocess.run(["ab", "-n", "10", "-c", "1", f"http://127.0.0.1:{port}/"],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode != 0
    with pytest.raises(RunFailed, match=r"^live:\d+: the run did not finish: apr_socket_\w+: "
                                        r"Connection refused \(111\)$"):
        parse_text(TOOL, out.stdout + out.stderr, "live")


@pytest.mark.parametrize("cut", [20, 25, 33, 40, 46])
def test_a_report_cut_before_its_longest_request_line_is_cut_short(fixtures, cut):
    # issue 26: n200_c4.txt ends with :47 " 100%      4 (longest request)"
    from overhead.parsers import cut_short_of
    lines = (fixtures / "ab" / "n200_c4.txt").read_text().splitlines(keepends=True)
    assert "(longest request)" in lines[46]
    df = parse_text("ab", "".join(lines[:cut]), "c")
    assert cut_short_of(df) == ("c: the run was cut short: the report ends before ab's closing "
                                "line, '100% ... (longest request)': the capture is cut short; "
                                "the lines read are kept")
    # what was read is kept: :20 "Complete requests:      200"
    assert df.loc[df.metric == "complete_requests", "value"].tolist() == [200.0]
    assert cut_short_of(parse_text("ab", "".join(lines), "c")) is None
