"""memtier_benchmark 2.1.4, 1.3.0 and 2.3.0 (built from source) outputs made on this machine
against a loopback redis-server: the text report (stdout) and the --json-out-file JSON."""

from __future__ import annotations

import pandas as pd
import pytest
from conftest import value

from overhead.parsers import ParseError, RunFailed, cut_short_of, detect, parse_file, parse_text
from parser_contract import check_all_prefixes, hypothesis_random_bytes, parse_prefix, with_line

TOOL = "memtier_benchmark"
KB = 1024


@pytest.fixture(scope="module")
def fx(fixtures):
    return fixtures / "memtier_benchmark"


def table(df, stats="all"):
    """metric -> {command: value} of one block's table rows (no distribution)."""
    sel = df[(df.p_stats == stats) & (df.metric != "latency_distribution") & df.p_percentile.isna()]
    out: dict = {}
    for m, c, v in zip(sel.metric, sel.p_command, sel.value, strict=True):
        out.setdefault(m, {})[c] = v
    return out


def test_text_all_stats(fx):
    df = parse_file(TOOL, fx / "c5_t2_n2000.txt")
    # "2 Threads", "5 Connections per thread", "2000 Requests per client"
    assert set(df.p_threads) == {2} and set(df.p_clients) == {5} and set(df.p_requests) == {2000}
    assert set(df.p_stats) == {"all"} and df.tool_version.isna().all()
    t = table(df)
    # "Sets 6230.36 --- --- 0.14745 0.14300 0.27900 0.43900 479.46"
    # "Gets 62235.12 0.00 62235.12 0.14611 0.14300 0.27900 0.31100 2424.54"
    # "Waits 0.00 --- --- --- --- --- --- ---"
    # "Totals 68465.48 0.00 62235.12 0.14623 0.14300 0.27900 0.31900 2904.00"
    assert t["throughput"] == pytest.approx({"sets": 6230.36, "gets": 62235.12, "waits": 0.0,
                                             "totals": 68465.48})
    assert t["hit_rate"] == {"gets": 0.0, "totals": 0.0}
    assert t["miss_rate"] == pytest.approx({"gets": 62235.12, "totals": 62235.12})
    assert t["latency_mean"] == pytest.approx({"sets": 0.14745e-3, "gets": 0.14611e-3,
                                               "totals": 0.14623e-3})
    assert t["transfer_rate_total"] == pytest.approx({"sets": 479.46 * KB, "gets": 2424.54 * KB,
                                                      "totals": 2904.00 * KB})
    assert value(df, "latency_percentile", p_command="sets", p_percentile=99.9) == pytest.approx(0.439e-3)
    assert value(df, "latency_percentile", p_command="totals", p_percentile=50.0) == pytest.approx(0.143e-3)
    row = df[(df.metric == "throughput") & (df.p_command == "totals")].iloc[0]
    assert row.source.endswith("c5_t2_n2000.txt:13") and row.raw == "68465.48"


def test_text_distribution(fx):
    df = parse_file(TOOL, fx / "c5_t2_n2000.txt")
    dist = df[df.metric == "latency_distribution"]
    assert set(dist.p_command) == {"sets", "gets"}  # "WAIT 0.000 100.000": no WAIT was sent
    # line 29 "SET       0.143       50.000", line 141 "GET       0.143       50.000"
    at = dist[dist.p_percentile == 50.0].set_index("p_command")
    assert at.value.to_dict() == pytest.approx({"sets": 0.143e-3, "gets": 0.143e-3})
    assert at.source["sets"].endswith(":29") and at.source["gets"].endswith(":141")
    # the last line of each: "SET 0.703 100.000", "GET 0.407 100.000"
    top = dist[dist.p_percentile == 100.0].groupby("p_command").value.max()
    assert top.to_dict() == pytest.approx({"sets": 0.703e-3, "gets": 0.407e-3})


def test_text_chosen_percentiles(fx):
    df = parse_file(TOOL, fx / "c5_t2_n2000_p50_90_99.txt")
    pct = df[(df.metric == "latency_percentile") & (df.p_command == "gets")]
    # "Gets 59267.47 0.00 59267.47 0.15208 0.15100 0.25500 0.29500 2308.93" (p50 p90 p99)
    assert pct.set_index("p_percentile").value.to_dict() == pytest.approx(
        {50.0: 0.151e-3, 90.0: 0.255e-3, 99.0: 0.295e-3})


def test_text_hits_and_test_time(fx):
    df = parse_file(TOOL, fx / "c5_t2_time2_keymax1000.txt")
    assert set(df.p_test_time) == {2} and "p_requests" not in df  # "2         Seconds"
    t = table(df)
    # "Gets 47044.08 29399.68 17644.41 0.17007 ..."
    assert t["hit_rate"]["gets"] == pytest.approx(29399.68)
    assert t["miss_rate"]["gets"] == pytest.approx(17644.41)
    assert t["hit_rate"]["gets"] + t["miss_rate"]["gets"] == pytest.approx(t["throughput"]["gets"], abs=0.02)


def test_text_several_runs(fx):
    df = parse_file(TOOL, fx / "c5_t2_n1000_runs2.txt")
    assert set(df.p_stats) == {"best", "worst", "average"}
    assert set(df[df.p_stats == "average"].p_runs) == {2}  # "AGGREGATED AVERAGE RESULTS (2 runs)"
    assert df[df.p_stats != "average"].p_runs.isna().all()
    # line 13 "Totals 66196.67 ...", line 23 "Totals 46501.68 ...", line 33 "Totals 56349.17 ..."
    tot = df[(df.metric == "throughput") & (df.p_command == "totals")].set_index("p_stats")
    assert tot.value.to_dict() == pytest.approx({"best": 66196.67, "worst": 46501.68, "average": 56349.17})
    assert [s.rsplit(":", 1)[1] for s in tot.source] == ["13", "23", "33"]
    assert "latency_distribution" not in set(df.metric)  # --hide-histogram


def test_json(fx):
    df = parse_file(TOOL, fx / "c5_t2_time2_keymax1000.json")
    one = df[df.p_time.isna() & (df.metric != "latency_distribution")]
    assert set(one.p_ratio) == {"1:4"} and set(one.p_key_maximum) == {1000}
    assert set(one.p_test_time) == {2} and set(one.p_clients) == {5}
    t = table(one)
    # "Gets": "Count": 94102, "Ops/sec": 47044.08, "Hits/sec": 29399.68, "Average Latency": 0.169,
    # "Min Latency": 0.016, "Max Latency": 13.375, "KB/sec": 2624.55, "KB/sec RX": 1205.87, "KB/sec TX": 1418.68
    assert t["operations"] == {"sets": 23532, "gets": 94102, "waits": 0, "totals": 117634}
    assert t["throughput"]["gets"] == pytest.approx(47044.08)
    assert t["hit_rate"] == pytest.approx({"gets": 29399.68, "totals": 29399.68})  # not the sets' 0.00
    assert t["latency_mean"] == pytest.approx({"sets": 0.170e-3, "gets": 0.169e-3})  # totals' 0.000: not measured
    assert t["latency_max"]["gets"] == pytest.approx(13.375e-3)
    assert t["transfer_rate_total"]["gets"] == pytest.approx(2624.55 * KB)
    assert t["transfer_rate"]["gets"] == pytest.approx(1205.87 * KB)
    assert t["transfer_rate_sent"]["gets"] == pytest.approx(1418.68 * KB)
    assert "waits" not in t["transfer_rate_total"] and "waits" not in t["latency_min"]
    # the same numbers as the text report of the same run
    text = table(parse_file(TOOL, fx / "c5_t2_time2_keymax1000.txt"))
    assert t["throughput"] == text["throughput"] and t["transfer_rate_total"] == text["transfer_rate_total"]
    # "Runtime": "Start time": 1795548336227, "Total duration": 2000
    assert value(df, "test_time") == 2.0
    assert set(df.started_at) == {pd.Timestamp(1795548336227, unit="ms", tz="UTC")}
    pct = df[(df.metric == "latency_percentile") & (df.p_command == "sets")]
    assert pct.set_index("p_percentile").value.to_dict() == pytest.approx(
        {50.0: 0.111e-3, 99.0: 2.575e-3, 99.9: 6.527e-3})  # "p50.00": 0.111 ...
    sec = df[(df.p_time == 2).fillna(False) & (df.p_command == "sets").fillna(False)].set_index("metric")
    # second 2 of the sets: "Count": 4, "Bytes RX": 20, "Min Latency": 0.051 (lines 104-109)
    assert sec.value["operations"] == 4 and sec.value["bytes_received"] == 20
    assert sec.value["latency_min"] == pytest.approx(0.051e-3)
    assert sec.source["operations"].endswith(":106") and "latency_percentile" not in sec.index
    dist = df[(df.metric == "latency_distribution")]
    assert set(dist.p_command) == {"sets", "gets"}  # "WAIT": [{"<=msec": 0.000, "percent": 100.000}]
    first = dist[dist.p_command == "sets"].iloc[0]  # line 289: "<=msec": 0.023, "percent": 0.000
    assert first.value == pytest.approx(0.023e-3) and first.p_percentile == 0 and first.source.endswith(":289")


def test_json_several_runs_skip_unmeasured_values(fx):
    df = parse_file(TOOL, fx / "c5_t2_n1000_runs2.json")
    avg = table(df[df.p_time.isna()], "average")
    # the aggregated totals: "Count": 20000, "Ops/sec": 56349.17, but "Min/Max Latency": 0.000 and
    # "p50.00": 0.007, from an empty histogram: no latency rows for them
    assert avg["operations"]["totals"] == 20000 and avg["throughput"]["totals"] == pytest.approx(56349.17)
    assert "totals" not in avg.get("latency_max", {})
    assert df[(df.p_stats == "average") & (df.p_command == "totals") &
              (df.metric == "latency_percentile")].empty
    assert not ((df.p_stats == "average") & (df.metric == "test_time")).any()  # Runtime all 0
    best = df[(df.p_stats == "best") & (df.metric == "test_time")]
    assert best.value.tolist() == [0.151]  # "Total duration": 151


def test_failed_runs(fx):
    with pytest.raises(RunFailed) as err:
        parse_file(TOOL, fx / "refused.txt")
    # line 13: "Totals 0.00 0.00 0.00 -nan 0.00700 0.00700 0.00700 0.00"
    assert "refused.txt:13: the run did not finish: 'Totals          0.00" in str(err.value)
    assert str(err.value).endswith("': no operation completed")
    with pytest.raises(RunFailed) as err:
        parse_file(TOOL, fx / "refused_2to1.txt")
    assert str(err.value).endswith("refused_2to1.txt:4: the run did not finish: "
                                   "Connection error: Connection refused")
    with pytest.raises(RunFailed) as err:
        parse_file(TOOL, fx / "refused.json")
    assert str(err.value).endswith('refused.json:140: the run did not finish: ALL STATS: '
                                   'Totals "Count": 0: no operation completed')


def test_errors_name_the_line(fx):
    lines = (fx / "c5_t2_n2000.txt").read_text().splitlines(keepends=True)
    with pytest.raises(ParseError, match=r"^b\.txt:11: expected a name and 8 values"):
        parse_text(TOOL, with_line(
            lines, 11, "Sets         6230.36          ---          ---         0.14x45\n"), "b.txt")
    # line 10: "Sets ..."
    with pytest.raises(ParseError, match=r"^b\.txt:10: Sets KB/sec: expected a number"):
        parse_text(TOOL, with_line(lines, 10, lines[9].replace("479.46", "479,46")), "b.txt")
    # line 8: "Type ..."
    with pytest.raises(ParseError, match=r"^b\.txt:8: unknown column"):
        parse_text(TOOL, with_line(lines, 8, lines[7].replace("KB/sec", "GB/min")), "b.txt")
    with pytest.raises(ParseError, match=r"^b\.txt:31: expected 'TYPE MSEC PERCENT'"):
        parse_text(TOOL, with_line(lines, 31, "SET 0.151\n"), "b.txt")
    js = (fx / "c5_t2_time2_keymax1000.json").read_text().splitlines(keepends=True)
    with pytest.raises(ParseError, match=r"^j\.json:66: 'Ops/sec': expected a number"):
        parse_text(TOOL, with_line(js, 66, '\t\t\t,"Ops/sec": "fast"\n'), "j.json")
    # a malformed line before the end is not a cut: line 100 of 542
    with pytest.raises(ParseError, match=r"^j\.json:100: not valid JSON"):
        parse_text(TOOL, with_line(js, 100, "\t\t\t,,\n"), "j.json")
    with pytest.raises(ParseError, match=r"^n\.txt:1: no memtier_benchmark output found"):
        parse_text(TOOL, "hello\n", "n.txt")


# ---- memtier 1.3.0 and 2.3.0: several runs, interrupted runs (issue 26) -------------------------

def test_v130_json_several_runs_without_count(fx):
    df = parse_file(TOOL, fx / "v130_c2_t1_n2000_runs3.json")
    assert set(df.p_stats) == {"best", "worst", "average"} and set(df.p_clients) == {2}
    assert set(df.p_requests) == {2000} and "operations" not in set(df.metric)  # no "Count" in 1.3.0
    tot = df[(df.metric == "throughput") & (df.p_command == "totals")].set_index("p_stats")
    # line 77 "Ops/sec": 24469.92, line 107 "Ops/sec": 16282.27, line 137 (the average's Totals)
    assert tot.value.to_dict() == pytest.approx({"best": 24469.92, "worst": 16282.27, "average": 19155.54})
    assert [s.rsplit(":", 1)[1] for s in tot.source] == ["77", "107", "137"]
    best = table(df, "best")
    # lines 56-60: "Sets": "Ops/sec": 2226.76, "Latency": 0.08, "KB/sec": 171.36
    assert best["latency_mean"] == pytest.approx({"sets": 0.08e-3, "gets": 0.08e-3, "totals": 0.08e-3})
    assert best["transfer_rate_total"]["sets"] == pytest.approx(171.36 * KB)
    # lines 69-74: "Waits": "Ops/sec": 0.00, "Latency": 0.00, "KB/sec": 0.00: only the rate is kept
    assert best["throughput"]["waits"] == 0.0
    assert "waits" not in best["latency_mean"] and "waits" not in best["transfer_rate_total"]
    assert best["hit_rate"] == {"gets": 0.0, "totals": 0.0}  # not the sets' constant 0.00
    assert set(df[df.p_stats == "average"].p_runs) == {3}
    # the same rates as the text report of the same run
    text = parse_file(TOOL, fx / "v130_c2_t1_n2000_runs3.txt")
    for stats in ("best", "worst", "average"):
        assert table(df, stats)["throughput"] == table(text, stats)["throughput"]


def test_v130_text_several_runs(fx):
    df = parse_file(TOOL, fx / "v130_c2_t1_n2000_runs3.txt")
    t = table(df, "worst")
    # line 20 "Sets 1481.69 --- --- 0.11400 114.02"; line 22 "Waits 0.00 --- --- 0.00000 ---"
    assert t["latency_mean"] == pytest.approx({"sets": 0.114e-3, "gets": 0.121e-3, "totals": 0.120e-3})
    assert t["throughput"]["waits"] == 0.0 and "waits" not in t["latency_mean"]
    assert len(df) == 42  # 3 blocks x (4 rates + 3 latencies + 3 KB/sec + 4 hits/misses)


def test_v130_distribution(fx):
    df = parse_file(TOOL, fx / "v130_c2_t1_n200_runs3_hist.json")
    dist = df[(df.metric == "latency_distribution") & (df.p_stats == "best") & (df.p_command == "sets")]
    first = dist.iloc[0]  # lines 85-86: "<=msec": 0.043, "percent": 2.63
    assert first.value == pytest.approx(0.043e-3) and first.p_percentile == 2.63
    assert first.source.endswith(":85")
    assert "waits" not in set(df.p_command.dropna()[df.metric == "latency_distribution"])  # "WAIT":[ ]
    text = parse_file(TOOL, fx / "v130_c2_t1_n200_runs3_hist.txt")
    tdist = text[(text.metric == "latency_distribution") & (text.p_stats == "best")
                 & (text.p_command == "sets")].iloc[0]  # line 19 "SET 0.043 2.63"
    assert tdist.value == pytest.approx(0.043e-3) and tdist.source.endswith(":19")
    assert cut_short_of(text) is None and cut_short_of(df) is None


def test_v130_failed_and_killed(fx):
    with pytest.raises(RunFailed) as err:
        parse_file(TOOL, fx / "v130_refused.json")
    # line 77: the Totals' "Ops/sec": 0.00 (no "Count" in 1.3.0)
    assert str(err.value).endswith('v130_refused.json:77: the run did not finish: ALL STATS: '
                                   'Totals "Ops/sec": 0.00: no operation completed')
    # 1.3.0 killed by SIGINT: its JSON stops at line 48 ("\t\t," without a line end), inside
    # "configuration"
    with pytest.raises(RunFailed) as err:
        parse_file(TOOL, fx / "v130_c2_t1_time30_sigint.json")
    assert "v130_c2_t1_time30_sigint.json:48: the run did not finish: the JSON stops inside " \
           "'configuration', before any result" in str(err.value)


def test_v230_print_all_runs(fx):
    for name in ("v230_c2_t1_n2000_runs3_all.json", "v230_c2_t1_n2000_runs3_all.txt"):
        df = parse_file(TOOL, fx / name)
        assert set(df.p_stats) == {"run", "best", "worst", "average"}, name
        assert set(df[df.p_stats == "run"].p_run) == {1, 2, 3}
        assert df[df.p_stats != "run"].p_run.isna().all()
        tot = df[(df.metric == "throughput") & (df.p_command == "totals") & (df.p_stats == "run")]
        # RUN #3: text line 33 "Totals 13305.08 ...", JSON line 499 "Ops/sec": 13305.08
        assert tot.set_index("p_run").value[3] == pytest.approx(13305.08)
        line = "499" if name.endswith(".json") else "33"
        assert tot.set_index("p_run").source[3].endswith(":" + line)
    js = parse_file(TOOL, fx / "v230_c2_t1_n2000_runs3_all.json")
    # line 383: RUN #3's "Total duration": 301 (ms)
    run3 = js[(js.metric == "test_time") & (js.p_run == 3).fillna(False)]
    assert run3.value.tolist() == [0.301] and run3.source.iloc[0].endswith(":383")


def test_v230_several_runs(fx):
    df = parse_file(TOOL, fx / "v230_c2_t1_n2000_runs3.json")
    t = table(df[df.p_time.isna()], "best")
    # lines 110-114: "Gets": "Count": 3636, "Ops/sec": 23267.42
    assert t["operations"]["gets"] == 3636 and t["throughput"]["gets"] == pytest.approx(23267.42)
    text = parse_file(TOOL, fx / "v230_c2_t1_n2000_runs3.txt")
    for stats in ("best", "worst", "average"):
        assert table(df[df.p_time.isna()], stats)["throughput"] == table(text, stats)["throughput"]


def test_v230_interrupted(fx):
    df = parse_file(TOOL, fx / "v230_c2_t1_time30_sigint.json")
    # line 69: "Interrupted": "true"; line 67: "Total duration": 2985 of --test-time 30
    assert cut_short_of(df).endswith(
        'v230_c2_t1_time30_sigint.json:69: the run was cut short: ALL STATS: "Runtime" '
        '"Interrupted": "true" after 2985 ms (memtier was stopped, SIGINT): the results are of '
        "the part of the run before the interrupt")
    assert value(df, "test_time") == pytest.approx(2.985) and set(df.p_test_time) == {30}
    t = table(df[df.p_time.isna()])
    # lines 240-241: the Totals' "Count": 50227, "Ops/sec": 16821.81
    assert t["operations"]["totals"] == 50227 and t["throughput"]["totals"] == pytest.approx(16821.81)
    # stdout alone does not say the run was interrupted: the same table, read as finished
    text = parse_file(TOOL, fx / "v230_c2_t1_time30_sigint.txt")
    assert cut_short_of(text) is None  # line 13 "Totals 16821.81 45.55 15246.37 ..."
    assert table(text)["throughput"] == t["throughput"]
    # with stderr in the file (another run): line 5 is memtier's notice
    both = parse_file(TOOL, fx / "v230_c2_t1_time30_sigint_2to1.txt")
    assert cut_short_of(both).endswith(
        "v230_c2_t1_time30_sigint_2to1.txt:5: the run was cut short: 'Interrupted by user "
        "(Ctrl+C) after 3.0 secs, stopping threads...': the report is of the part of the run "
        "before the interrupt")
    assert table(both)["throughput"]["totals"] == pytest.approx(15104.64)  # line 20


def test_json_cut_keeps_whole_sections(fx):
    lines = (fx / "v230_c2_t1_n2000_runs3.json").read_text().splitlines(keepends=True)
    whole = parse_file(TOOL, fx / "v230_c2_t1_n2000_runs3.json")
    # cut inside "WORST RUN RESULTS" (lines 221-378): the BEST block's rows, marked cut short
    df = parse_text(TOOL, "".join(lines[:300]), "c.json")
    assert cut_short_of(df) == ("c.json:300: the run was cut short: the JSON stops inside "
                                "'WORST RUN RESULTS' (memtier was stopped or the capture was "
                                "cut): the whole sections before it are kept")
    assert set(df.p_stats) == {"best"}
    best = whole[whole.p_stats == "best"]
    assert sorted(df.source.str.rsplit(":", n=1).str[1]) == sorted(
        best.source.str.rsplit(":", n=1).str[1]) and len(df) == len(best)
    # only the closing brace missing: every block, still not a finished file
    df = parse_text(TOOL, "".join(lines[:-1]), "c.json")
    assert len(df) == len(whole) and "before its closing brace" in cut_short_of(df)
    # cut inside the first block: no result
    with pytest.raises(RunFailed, match=r"^c\.json:100: the run did not finish: the JSON stops "
                       r"inside 'BEST RUN RESULTS', before any result"):
        parse_text(TOOL, "".join(lines[:100]), "c.json")


@pytest.mark.parametrize("name", [
    "v130_c2_t1_n2000_runs3.json", "v130_c2_t1_n2000_runs3.txt", "v230_c2_t1_n2000_runs3_all.txt",
    "v230_c2_t1_n2000_runs3_all.json", "v230_c2_t1_time30_sigint.json",
])
def test_no_cut_of_a_new_output_is_complete(fx, name):
    """The six cuts of tests/parsers/test_parser_cuts.py on each new genuine output: never complete."""
    from test_parser_cuts import cut_points, outcome

    text = (fx / name).read_text()
    got = [outcome(TOOL, kept, text) for _, kept in cut_points(text)]
    assert "complete" not in got, got


def test_detect(fx):
    for path in sorted(fx.iterdir()):
        if path.name != "README.md":
            assert detect(path.read_text()) == TOOL, path.name


@pytest.mark.parametrize("name", [
    "c5_t2_n2000.txt", "c5_t2_n2000_p50_90_99.txt", "c5_t2_time2_keymax1000.txt",
    "c5_t2_time2_keymax1000.json", "c5_t2_n1000_runs2.txt", "c5_t2_n1000_runs2.json",
    "v130_c2_t1_n2000_runs3.json", "v130_c2_t1_n2000_runs3.txt", "v130_c2_t1_n200_runs3_hist.json",
    "v230_c2_t1_n2000_runs3_all.json", "v230_c2_t1_n2000_runs3_all.txt",
    "v230_c2_t1_time30_sigint.json", "v230_c2_t1_time30_sigint_2to1.txt",
])
def test_every_prefix(fx, name):
    check_all_prefixes(TOOL, (fx / name).read_text())


@pytest.mark.parametrize("name", ["refused.txt", "refused_2to1.txt", "refused.json",
                                  "v130_refused.json", "v130_c2_t1_time30_sigint.json"])
def test_no_prefix_of_a_failed_run_gives_rows(fx, name):
    text = (fx / name).read_text()
    for cut in range(len(text.splitlines()) + 1):
        df = parse_prefix(TOOL, text, cut)
        assert df is None or df.empty, cut


def test_random_bytes():
    hypothesis_random_bytes(TOOL)()
