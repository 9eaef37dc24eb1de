"""wrk 4.1.0 (Debian 4.1.0-3+b2) reports made on this machine against loopback servers."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import value

from overhead.parsers import ParseError, RunFailed, detect, parse_file, parse_text
from parser_contract import check_all_prefixes, hypothesis_random_bytes

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "wrk"

TOOL = "wrk"
KB, MB = 1024, 1024**2


@pytest.fixture(scope="module")
def fx(fixtures):
    return fixtures / "wrk"


def test_plain_report(fx):
    df = parse_file(TOOL, fx / "t2_c10_d2.txt")
    # "  2 threads and 10 connections"; "Running 2s test @ http://127.0.0.1:45921/file.bin"
    assert set(df.p_threads) == {2} and set(df.p_connections) == {10} and set(df.trial) == {1}
    assert set(df.p_url) == {"http://127.0.0.1:45921/file.bin"}
    # "    Latency   511.91us    1.11ms  12.37ms   90.08%"
    assert value(df, "latency_mean") == pytest.approx(511.91e-6)
    assert value(df, "latency_sd") == pytest.approx(1.11e-3)
    assert value(df, "latency_max") == pytest.approx(12.37e-3)
    assert value(df, "latency_within_sd") == pytest.approx(90.08)
    # "    Req/Sec    27.13k    13.63k   49.04k    57.50%"
    assert value(df, "thread_request_rate_mean") == pytest.approx(27.13e3)
    assert value(df, "thread_request_rate_sd") == pytest.approx(13.63e3)
    assert value(df, "thread_request_rate_max") == pytest.approx(49.04e3)
    assert value(df, "thread_request_rate_within_sd") == pytest.approx(57.50)
    # "  107945 requests in 2.10s, 190.14MB read"
    assert value(df, "complete_requests") == 107945
    assert value(df, "test_time") == pytest.approx(2.10)
    assert value(df, "total_transferred") == pytest.approx(190.14 * MB)
    # "Requests/sec:  51469.59" / "Transfer/sec:     90.66MB"
    assert value(df, "request_rate") == pytest.approx(51469.59)
    assert value(df, "transfer_rate") == pytest.approx(90.66 * MB)
    assert "latency_percentile" not in set(df.metric)  # no --latency
    assert not {m for m in df.metric if m.startswith("socket_errors")}  # no "Socket errors:" line
    assert df.set_index("metric").source["request_rate"].endswith("t2_c10_d2.txt:7")
    assert df.set_index("metric").raw["transfer_rate"] == "90.66MB"
    assert df.tool_version.isna().all()  # wrk prints no version


def test_megabytes_are_binary(fx):
    """wrk's MB is 1024**2 bytes (src/units.c binary_units): the bytes read per request are the
    size of nginx's keep-alive response to GET /file.bin (1600 bytes of body, 247 of headers)."""
    for name in ("t2_c10_d2.txt", "t2_c10_d2_latency.txt"):
        df = parse_file(TOOL, fx / name)
        per = value(df, "total_transferred") / value(df, "complete_requests")
        assert per == pytest.approx(1847, abs=0.1)  # with 10**6-byte MB: 1761.5
        # and the rates are the counts over the measured time (time printed to 10 ms)
        t = value(df, "test_time")
        assert value(df, "request_rate") == pytest.approx(value(df, "complete_requests") / t, rel=3e-3)
        assert value(df, "transfer_rate") == pytest.approx(value(df, "total_transferred") / t, rel=3e-3)
    # the 404 page: 146 bytes of body and 148 of headers ("34.99MB read" for 124809 answers)
    df = parse_file(TOOL, fx / "t2_c10_d2_404.txt")
    assert value(df, "total_transferred") / value(df, "complete_requests") == pytest.approx(294, abs=0.1)


def test_latency_distribution(fx):
    df = parse_file(TOOL, fx / "t2_c10_d2_latency.txt")
    pct = df[df.metric == "latency_percentile"].set_index("p_percentile").value
    # "     50%  112.00us" ... "     99%    1.09ms"
    assert pct.to_dict() == pytest.approx({50.0: 112e-6, 75.0: 177e-6, 90.0: 271e-6, 99.0: 1.09e-3})
    assert df[df.metric == "latency_percentile"].source.str.endswith(
        (":7", ":8", ":9", ":10")).all()
    assert df[df.metric != "latency_percentile"].p_percentile.isna().all()
    assert value(df, "latency_max") == pytest.approx(7.99e-3)  # "    Latency   167.51us  307.31us   7.99ms"


def test_non_2xx_responses(fx):
    df = parse_file(TOOL, fx / "t2_c10_d2_404.txt")
    # "  Non-2xx or 3xx responses: 124809": every answer was a 404
    assert value(df, "non_2xx_responses") == value(df, "complete_requests") == 124809
    assert value(df, "latency_percentile", p_percentile=99.0) == pytest.approx(125.91e-3)  # "99%  125.91ms"


def test_socket_errors(fx):
    df = parse_file(TOOL, fx / "t2_c50_d2_worker_connections8.txt")
    # "  Socket errors: connect 0, read 32274, write 0, timeout 0" (nginx had worker_connections 8)
    errs = {m: v for m, v in zip(df.metric, df.value, strict=True) if m.startswith("socket_errors")}
    assert errs == {"socket_errors_connect": 0, "socket_errors_read": 32274,
                    "socket_errors_write": 0, "socket_errors_timeout": 0}
    assert set(df.p_connections) == {50}
    slow = parse_file(TOOL, fx / "t2_c10_d3_timeout1s_slow.txt")
    # "  Socket errors: connect 0, read 0, write 0, timeout 16"; "  68 requests in 3.01s, 113.82KB read"
    assert value(slow, "socket_errors_timeout") == 16 and value(slow, "complete_requests") == 68
    assert value(slow, "total_transferred") == pytest.approx(113.82 * KB)
    assert value(slow, "transfer_rate") == pytest.approx(37.83 * KB)  # "Transfer/sec:     37.83KB"
    # "    Req/Sec    22.92     16.02    70.00     62.50%": no prefix, plain requests/s
    assert value(slow, "thread_request_rate_max") == 70.0


def test_server_killed_mid_run_keeps_the_results(fx):
    df = parse_file(TOOL, fx / "t2_c10_d3_server_killed.txt")
    # "  32544 requests in 3.09s, 57.32MB read"; "  Socket errors: connect 0, read 15, write 46581, timeout 0"
    assert value(df, "complete_requests") == 32544
    assert value(df, "socket_errors_write") == 46581 and value(df, "socket_errors_read") == 15
    assert value(df, "latency_percentile", p_percentile=90.0) == pytest.approx(2.22e-3)


def test_failed_runs(fx):
    with pytest.raises(RunFailed) as err:
        parse_file(TOOL, fx / "refused.txt")
    assert str(err.value).endswith("refused.txt:1: the run did not finish: "
                                   "unable to connect to 127.0.0.1:45929 Connection refused")
    with pytest.raises(RunFailed) as err:
        parse_file(TOOL, fx / "t1_c4_d3_timeout1s_mute.txt")
    # line 6: "  0 requests in 3.01s, 0.00B read" (a server that never answered)
    assert str(err.value).endswith("t1_c4_d3_timeout1s_mute.txt:6: the run did not finish: "
                                   "'0 requests in 3.01s, 0.00B read': no request completed")
    head = (fx / "t2_c10_d2.txt").read_text().splitlines(keepends=True)[:2]
    with pytest.raises(RunFailed, match=r"^h\.txt: the run did not finish: wrk printed its header "
                       r"\('Running 2s test @ http://127\.0\.0\.1:45921/file\.bin'\) but no results$"):
        parse_text(TOOL, "".join(head), "h.txt")


def test_a_zero_request_run_beside_a_complete_one_keeps_the_complete_one(fx):
    text = (fx / "t1_c4_d3_timeout1s_mute.txt").read_text() + (fx / "t2_c10_d2.txt").read_text()
    df = parse_text(TOOL, text, "two")
    assert set(df.trial) == {2}  # run 1 completed no request: none of its "0.00us" rows
    assert value(df, "complete_requests") == 107945
    assert df.source.str.startswith("two:").all() and min(int(s[4:]) for s in df.source) > 8


def test_errors_name_the_line():
    text = "Running 2s test @ http://x/\n  2 threads and 10 connections\n" \
           "  Thread Stats   Avg      Stdev     Max   +/- Stdev\n"
    with pytest.raises(ParseError, match=r"^b\.txt:4: Latency mean: expected a time"):
        parse_text(TOOL, text + "    Latency   511.91xs    1.11ms  12.37ms   90.08%\n", "b.txt")
    with pytest.raises(ParseError, match=r"^b\.txt:4: expected 4 values"):
        parse_text(TOOL, text + "    Latency   511.91us    1.11ms  12.37ms\n", "b.txt")
    done = "    Latency   511.91us    1.11ms  12.37ms   90.08%\n  10 requests in 2.10s, 1.00MB read\n"
    with pytest.raises(ParseError, match=r"^b\.txt:6: Transfer/sec: expected a size"):
        parse_text(TOOL, text + done + "Transfer/sec:     90.66Mb\n", "b.txt")
    with pytest.raises(ParseError, match=r"^b\.txt:6: Requests/sec: expected a number"):
        parse_text(TOOL, text + done + "Requests/sec:  51x69.59\n", "b.txt")
    with pytest.raises(ParseError, match=r"^n\.txt:1: no wrk output found"):
        parse_text(TOOL, "hello\n", "n.txt")


def test_detect(fx):
    for path in sorted(fx.iterdir()):
        if path.name != "README.md":
            assert detect(path.read_text()) == TOOL, path.name


@pytest.mark.parametrize("name", [
    "t2_c10_d2.txt", "t2_c10_d2_latency.txt", "t2_c10_d2_404.txt",
    "t2_c50_d2_worker_connections8.txt", "t2_c10_d3_timeout1s_slow.txt",
    "t2_c10_d3_server_killed.txt",
])
def test_every_prefix(fx, name):
    check_all_prefixes(TOOL, (fx / name).read_text())


def test_random_bytes():
    hypothesis_random_bytes(TOOL)()


# ---- issue 26: wrk2 with its HdrHistogram (tests/fixtures/wrk/README.md) ---------------------

def test_wrk2_hdrhistogram_and_spectrum():
    from overhead.parsers import cut_short_of
    name = "play_graalvmce1_jsonget_t4_R105000_L.txt"
    df = parse_file(TOOL, FIXTURES / name, name="g")
    assert cut_short_of(df) is None
    pct = df[df.metric == "latency_percentile"]
    # :13 " 50.000%    1.05ms" ... :16 " 99.000%    4.49ms" ... :20 "100.000%   30.93ms"
    assert dict(zip(pct.p_percentile, pct.value, strict=True)) == pytest.approx({
        50.0: 1.05e-3, 75.0: 1.58e-3, 90.0: 2.19e-3, 99.0: 4.49e-3, 99.9: 13.78e-3,
        99.99: 20.67e-3, 99.999: 27.68e-3, 100.0: 30.93e-3})
    assert set(pct.p_histogram) == {"recorded"}
    m = df[df.p_percentile.isna()].set_index("metric").value
    # :10 "    Latency     1.24ms    1.08ms  30.91ms   90.40%"
    assert m["latency_mean"] == pytest.approx(1.24e-3) and m["latency_within_sd"] == 90.40
    # :144 "  6296859 requests in 1.00m, 2.30GB read", :145 "Requests/sec: 104948.68"
    assert m["complete_requests"] == 6296859 and m["test_time"] == 60.0
    assert m["total_transferred"] == pytest.approx(2.30 * 1024**3)
    assert m["request_rate"] == 104948.68
    assert set(df.p_threads) == {4} and set(df.p_connections) == {50}
    # the spectrum (lines 22-142): :26 "       1.049     0.500000      2623291         2.00"
    spec = df[df.metric == "latency_spectrum"]
    lines = spec.source.str.rsplit(":", n=1).str[1].astype(int)
    assert lines.min() == 25 and lines.max() == 139 and len(spec) == 139 - 25 + 1
    half = spec[spec.source == "g:30"]
    assert half.value.tolist() == pytest.approx([1.049e-3]) and half.p_percentile.tolist() == [50.0]
    count = df[(df.metric == "latency_spectrum_count") & (df.source == "g:30")]
    assert count.value.tolist() == [2623291] and set(spec.p_histogram) == {"recorded"}
    # :140 "#[Mean    =        1.237, StdDeviation   =        1.077]", :141 "#[Max     =
    # 30.912, Total count    =      5243600]"
    assert m["latency_spectrum_mean"] == pytest.approx(1.237e-3)
    assert m["latency_spectrum_sd"] == pytest.approx(1.077e-3)
    assert m["latency_spectrum_max"] == pytest.approx(30.912e-3)
    assert m["latency_spectrum_total_count"] == 5243600


def test_wrk2_four_runs_in_a_terminal_log():
    df = parse_file(TOOL, FIXTURES / "play_four_runs_prompt_log_L.txt", name="p")
    rates = df[df.metric == "request_rate"]
    # :131 "Requests/sec:   9994.68" (run 1) ... :528 "Requests/sec:  54568.92" (run 4)
    assert rates.value.iloc[0] == 9994.68 and rates.value.iloc[-1] == 54568.92
    assert rates.trial.tolist() == [1, 2, 3, 4]
    p99 = df[(df.metric == "latency_percentile") & (df.p_percentile == 99.0)]
    # :14 " 99.000%    9.28ms" (run 1), :278 " 99.000%    1.28s" (run 3, overloaded)
    assert p99.value.iloc[0] == pytest.approx(9.28e-3) and p99.value.iloc[2] == 1.28
    assert p99.source.iloc[0] == "p:14" and p99.source.iloc[2] == "p:278"


def test_a_broken_spectrum_line_names_its_line():
    lines = (FIXTURES / "play_graalvmce1_jsonget_t4_R105000_L.txt").read_text().splitlines(True)
    lines[30] = "       1.447     0.7000x0      3671087         3.33\n"
    with pytest.raises(ParseError, match=r"^x:31: expected a line of wrk2's Detailed Percentile "
                                         r"spectrum \(from line 22\)"):
        parse_text(TOOL, "".join(lines), "x")


@pytest.mark.parametrize("cut", [20, 100, 143, 145])
def test_a_wrk2_run_cut_before_transfer_sec_is_cut_short(cut):
    from overhead.parsers import cut_short_of
    lines = (FIXTURES / "play_graalvmce1_jsonget_t4_R105000_L.txt").read_text().splitlines(True)
    try:
        df = parse_text(TOOL, "".join(lines[:cut]), "c")
    except ParseError as exc:  # nothing complete yet: the run did not finish
        assert cut < 144 and "the run did not finish" in str(exc)
        return
    assert cut_short_of(df) == ("c: the run was cut short: the run that starts at line 3 has "
                                "no 'Transfer/sec:' line: the capture ends before wrk's closing "
                                "lines; what it printed is kept")


def _spectrum_agrees_with_its_percentiles(trial, run):
    spec = run[run.metric == "latency_spectrum"]
    counts = run[run.metric == "latency_spectrum_count"]
    total = run[run.metric == "latency_spectrum_total_count"].value.item()
    assert len(spec) >= 50 and spec.value.is_monotonic_increasing
    # the total count climbs to the histogram's total (the last line, "inf")
    assert counts.value.is_monotonic_increasing and counts.value.iloc[-1] == total
    summary = run[run.metric == "latency_percentile"]
    assert len(summary) == 8
    for p, v in zip(summary.p_percentile, summary.value, strict=True):
        # wrk2 prints the summary percentile with 2 decimals of its unit ("4.49ms", "1.28s"),
        # the spectrum in ms with 3: the summary value is the spectrum's at that percentile
        # where the spectrum printed it ("1.049 0.500000" for " 50.000% 1.05ms"; the last
        # "... 1.000000 ... inf" line for 100%), else between its neighbours
        tol = 0.005 * (1 if v >= 1 else 1e-3) * (1 + 1e-9)  # half the last printed digit
        at = spec[spec.p_percentile == p].value
        if p == 100.0:
            at = at.iloc[-1:]
        if len(at):
            assert (abs(at - v) <= tol).any(), (trial, p, v, at.tolist())
            continue
        below = spec[spec.p_percentile < p].value.max()
        above = spec[spec.p_percentile > p].value.min()
        assert below - tol <= v <= above + tol, (trial, p, below, v, above)
    max_ = run[run.metric == "latency_spectrum_max"].value.item()
    assert spec.value.max() >= max_  # HdrHistogram's buckets round the maximum up


@pytest.mark.parametrize("name", ["play_graalvmce1_jsonget_t4_R105000_L.txt",
                                  "play_four_runs_prompt_log_L.txt"])
def test_wrk2_spectrum_agrees_with_the_percentiles_wrk2_prints(name):
    from overhead.parsers import notes_of

    df = parse_file(TOOL, FIXTURES / name, name="s")
    assert notes_of(df) == []  # the prompts and banners between runs are not a script's lines
    for trial, run in df.groupby("trial"):
        _spectrum_agrees_with_its_percentiles(trial, run)


def test_wrk2_run_here_spectrum_and_a_rate_printed_as_nan():
    """wrk2 (giltene/wrk2 at 44a94c1, built here) -R400 -L for 5 s against a Python
    http.server on loopback: its spectrum (57 lines, 19-75) agrees with its percentiles, and its
    "Req/Sec -nan -nan 0.00 0.00%" line (no per-thread rate sampled in 5 s) gives no rows and a
    note, never a 0 or a refusal of the whole report."""
    from overhead.parsers import cut_short_of, notes_of

    df = parse_file(TOOL, FIXTURES / "here_wrk2_t1_c4_d5_R400_L.txt", name="h")
    _spectrum_agrees_with_its_percentiles(1, df)
    m = df.drop_duplicates("metric", keep="last").set_index("metric")["value"]
    assert m["latency_spectrum_mean"] == pytest.approx(1.374e-3)     # :76 "Mean = 1.374"
    assert m["latency_spectrum_total_count"] == 1998                 # :77 "Total count = 1998"
    assert m["request_rate"] == pytest.approx(399.70)                # :81 "Requests/sec: 399.70"
    assert m["complete_requests"] == 1999                            # :80 "1999 requests in 5.00s"
    spec = df[df.metric == "latency_spectrum"]
    first = spec.iloc[0]                                             # :19 "0.256 0.000000 1 1.00"
    assert first.value == pytest.approx(0.256e-3) and first.p_percentile == 0.0
    assert not df.metric.str.startswith("thread_request_rate").any()
    assert notes_of(df) == ["h:5: Req/Sec ('-nan      -nan   0.00      0.00%'): a mean printed as "
                            "nan (wrk2 sampled no per-thread rate in a run this short): no rows "
                            "for that statistic"]
    assert cut_short_of(df) is None


def test_lines_after_the_report_are_named_in_a_note():
    from overhead.parsers import cut_short_of, notes_of

    # t1_c2_d1_latency_done_csv.txt: wrk's report (lines 1-13), then what the -s script's
    # done() printed: "==CSV==" (line 14) ... "==END==" (line 21)
    name = "t1_c2_d1_latency_done_csv.txt"
    df = parse_file(TOOL, FIXTURES / name, name="d")
    assert cut_short_of(df) is None
    assert notes_of(df) == ["d:14: '==CSV==' and 7 more after wrk's report not read (not wrk's "
                            "report: the output of a -s script's done() function or a "
                            "wrapper's); the report's rows are kept"]
    m = df[df.p_percentile.isna()].set_index("metric").value
    assert m["request_rate"] == 1980.48 and m["complete_requests"] == 2178
    # the script printed latency:percentile(50) in us ("50,880"); wrk's report says 0.88ms
    p50 = df[(df.metric == "latency_percentile") & (df.p_percentile == 50.0)].value.item()
    assert p50 == pytest.approx(880e-6)
