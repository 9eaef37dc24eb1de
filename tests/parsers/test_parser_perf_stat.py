"""perf stat parser on runs made here (software counters only: the VM has no hardware PMU)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from overhead.parsers import ParseError, detect, parse_file, parse_text
from overhead.parsers.perf_stat import metric_name
from parser_contract import check_all_prefixes, hypothesis_random_bytes

TOOL = "perf-stat"


@pytest.fixture(scope="module")
def d(fixtures):
    return fixtures / "perf-stat"


def by_metric(df):
    assert not df.metric.duplicated().any()
    return df.set_index("metric").value.to_dict()


def test_default_text(d):
    df = parse_file(TOOL, d / "gzip.txt")
    assert set(df.p_command) == {"gzip -c /usr/bin/perf"}  # "Performance counter stats for 'gzip -c /usr/bin/perf':"
    assert by_metric(df) == pytest.approx({
        "task_clock": 0.21563,        # "215.63 msec task-clock   #    0.990 CPUs utilized"
        "cpus_utilized": 0.990,
        "context_switches": 7,        # "7      context-switches"
        "cpu_migrations": 0,          # "0      cpu-migrations"
        "page_faults": 196,           # "196      page-faults"
        "elapsed_time": 0.217862322,  # "0.217862322 seconds time elapsed"
        "user_time": 0.216216,        # "0.216216000 seconds user"
        "sys_time": 0.0,              # "0.000000000 seconds sys"
    })
    # "<not supported>      cycles" (and instructions, branches, branch-misses): absent, not 0
    assert not set(df.metric) & {"cycles", "instructions", "branches", "branch_misses"}
    assert df.set_index("metric").unit.to_dict()["task_clock"] == "s"
    assert df.set_index("metric").source.to_dict()["elapsed_time"].endswith("gzip.txt:13")
    # the tool's own derived note: CPUs utilized = task-clock / elapsed
    m = by_metric(df)
    assert m["task_clock"] / m["elapsed_time"] == pytest.approx(m["cpus_utilized"], abs=0.0005)
    assert df.started_at.isna().all()  # stderr output has no "# started on"


def test_o_file_has_start_time(d):
    df = parse_file(TOOL, d / "xz_o_file.txt")
    assert df.started_at.iloc[0].isoformat() == "2026-11-22T00:14:25+00:00"  # "# started on Sun Nov 22 00:14:25 2026"
    assert by_metric(df)["page_faults"] == 52970


def test_repeated_runs(d):
    df = parse_file(TOOL, d / "gzip_r3.txt")
    assert set(df.p_runs) == {3}  # "(3 runs):"
    m = by_metric(df)
    # "219.70 msec task-clock  #  0.996 CPUs utilized  ( +-  0.35% )"
    assert m["task_clock"] == pytest.approx(0.2197) and m["task_clock_rsd"] == pytest.approx(0.35)
    assert m["context_switches_rsd"] == pytest.approx(25.54)  # "( +- 25.54% )"
    assert "cpu_migrations_rsd" not in m  # perf printed no "( +- )" for it
    # "0.220560 +- 0.000419 seconds time elapsed  ( +-  0.19% )": the percentage is the
    # absolute +- relative to the mean, as perf computes it
    assert m["elapsed_time"] == pytest.approx(0.220560)
    assert m["elapsed_time_rsd"] == pytest.approx(100 * 0.000419 / 0.220560, abs=0.005)
    assert df.set_index("metric").unit.to_dict()["elapsed_time_rsd"] == "%"


def test_csv(d):
    df = parse_file(TOOL, d / "gzip_csv.txt")
    # "215.76,msec,task-clock,215761549,100.00,0.996,CPUs utilized"
    assert by_metric(df) == pytest.approx({"task_clock": 0.21576, "cpus_utilized": 0.996,
                                           "context_switches": 4, "cpu_migrations": 0, "page_faults": 196})
    assert "p_counter_running" not in df.columns  # 100.00 % everywhere: not multiplexed
    r3 = by_metric(parse_file(TOOL, d / "gzip_csv_r3.txt"))
    # "218.03,msec,task-clock,0.72%,218032141,100.00,0.979,CPUs utilized"
    assert r3["task_clock"] == pytest.approx(0.21803) and r3["task_clock_rsd"] == pytest.approx(0.72)
    assert r3["cpu_migrations_rsd"] == 0.0  # "0,,cpu-migrations,0.00%,..." printed as a zero
    assert "cycles_rsd" not in r3  # "<not supported>,,cycles,0.00%,0,100.00,,"


def test_system_wide(d):
    df = parse_file(TOOL, d / "system_wide_sleep1.txt")
    assert df.p_system_wide.all() and "p_command" not in df.columns  # "for 'system wide':"
    m = by_metric(df)
    assert m["cpu_clock"] == pytest.approx(2.00762)  # "2007.62 msec cpu-clock  #  2.004 CPUs utilized"
    assert m["cpu_clock"] / m["elapsed_time"] == pytest.approx(m["cpus_utilized"], abs=0.0005)
    assert "user_time" not in m  # -a prints no user/sys times


def test_named_events_and_aliases(d):
    df = parse_file(TOOL, d / "python_events.txt")
    cs = df[df.metric == "context_switches"]
    assert cs.p_event.iloc[0] == "cs" and cs.value.iloc[0] == 104  # "104      cs"
    assert "cycles" not in set(df.metric)  # "<not supported>      cycles:u"
    m = df.set_index("p_event").value
    # page-faults = minor-faults + major-faults (9371 = 9371 + 0)
    assert m["page-faults"] == m["minor-faults"] + m["major-faults"] == 9371
    assert len(df[df.metric == "cpus_utilized"]) == 2  # task-clock and cpu-clock both carry the note


def test_metric_names():
    assert metric_name("task-clock") == "task_clock"
    assert metric_name("cycles:u") == "cycles"
    assert metric_name("L1-dcache-load-misses") == "l1_dcache_load_misses"
    assert metric_name("migrations") == "cpu_migrations"


def test_multiplexed_counter_percentage():
    # perf prints the share of time a scaled (multiplexed) counter ran at the end of its line
    text = (" Performance counter stats for 'sleep 1':\n\n"
            "     1,234,567      cycles                    #    1.234 GHz                      (50.01%)\n"
            "       987,654      instructions              #    0.80  insn per cycle           (49.99%)\n\n"
            "       1.001 seconds time elapsed\n")
    df = parse_text(TOOL, text)
    assert df.set_index("metric").value.to_dict() == pytest.approx(
        {"cycles": 1234567, "instructions": 987654, "instructions_per_cycle": 0.80, "elapsed_time": 1.001})
    assert df.set_index("metric").p_counter_running.to_dict()["cycles"] == pytest.approx(50.01)


def test_errors(d):
    lines = (d / "gzip.txt").read_text().splitlines(keepends=True)
    lines[4] = "                7x      context-switches                 #   32.464 /sec\n"
    with pytest.raises(ParseError, match=r"^x\.txt:5: expected '<count> \[unit\] <event>"):
        parse_text(TOOL, "".join(lines), "x.txt")
    interval = ("#           time             counts unit events\n"
                "     1.001079536              1,003.47 msec cpu-clock\n")
    with pytest.raises(ParseError, match=r"^i\.txt:1: perf stat interval mode"):
        parse_text(TOOL, interval, "i.txt")
    # not perf output at all: no line of it is "the" wrong one
    with pytest.raises(ParseError, match=r"^m\.txt: no perf stat output"):
        parse_file(TOOL, d.parent / "mpstat" / "mpstat_1_3.txt", name="m.txt")


def test_error_lines_point_at_the_wrong_line(d):
    # a decimal point on line 13 of a file whose line 4 showed a decimal comma
    text = (d / "gzip_de.txt").read_text().replace("0,211190696 seconds", "0.211190696 seconds")
    with pytest.raises(ParseError, match=r"^g\.txt:13: numbers printed with a decimal point "
                                         r"here, with a decimal comma on line 4"):
        parse_text(TOOL, text, "g.txt")
    # -j: a malformed object on line 3
    lines = (d / "gzip_json.txt").read_text().splitlines(keepends=True)
    lines[2] = lines[2].replace('"unit" : ""', '"unit" ""')
    with pytest.raises(ParseError, match=r"^j\.txt:3: malformed perf stat -j line"):
        parse_text(TOOL, "".join(lines), "j.txt")
    # -x, (decimal comma): a line in another layout, line 2
    de = (d / "gzip_de_csv.txt").read_text().splitlines(keepends=True)
    de[1] = "34;;context-switches;202834197;100,00;167;/sec\n"
    with pytest.raises(ParseError, match=r"^c\.txt:2: expected a perf stat -x line.*line 1 is in "
                                         r"another layout"):
        parse_text(TOOL, "".join(de), "c.txt")


def test_json_lines(d):
    df = parse_file(TOOL, d / "gzip_json.txt")
    m = by_metric(df)
    # line 1: {"counter-value" : "204.813062", "unit" : "msec", "event" : "task-clock", ...}
    assert m == pytest.approx({"task_clock": 0.204813062, "context_switches": 45,
                               "cpu_migrations": 1, "page_faults": 195})
    assert df.set_index("metric").raw["context_switches"] == "45.000000"  # -j prints counts %f
    assert df.set_index("metric").source["page_faults"].endswith(":4")
    assert "cycles" not in m  # "counter-value" : "<not supported>"
    # perf 6.1 -j's "metric-value" for task-clock (0.682151 "CPUs utilized") disagrees with the
    # text report's (0.97 for the same command): metric values of -j are not read
    assert "cpus_utilized" not in m
    r3 = by_metric(parse_file(TOOL, d / "gzip_json_r3.txt"))
    # {"counter-value" : "205.299766", "unit" : "msec", "event" : "task-clock", "variance" : 0.28,
    assert r3["task_clock"] == pytest.approx(0.205299766) and r3["task_clock_rsd"] == 0.28
    assert r3["context_switches_rsd"] == 16.50 and r3["cpu_migrations"] == 0


def test_decimal_comma_locale(d):
    # LC_NUMERIC=de_DE.UTF-8: "205,34 msec task-clock  #  0,972 CPUs utilized" and
    # "0,211190696 seconds time elapsed": a decimal comma
    m = by_metric(parse_file(TOOL, d / "gzip_de.txt"))
    assert m == pytest.approx({"task_clock": 0.20534, "cpus_utilized": 0.972, "context_switches": 36,
                               "cpu_migrations": 0, "page_faults": 193, "elapsed_time": 0.211190696,
                               "user_time": 0.205651, "sys_time": 0.0})
    r3 = by_metric(parse_file(TOOL, d / "gzip_de_r3.txt"))
    # "206,77 msec task-clock  #  0,991 CPUs utilized  ( +-  0,04% )"
    assert r3["task_clock_rsd"] == 0.04 and r3["context_switches_rsd"] == 5.63
    assert r3["elapsed_time"] == 0.208639 and r3["elapsed_time_rsd"] == 0.15  # "0,208639 +- 0,000307"
    # -j under de_DE is not even JSON ("pcnt-running" : 100,00): read pair by pair
    j = by_metric(parse_file(TOOL, d / "gzip_json_de.txt"))
    assert j["task_clock"] == pytest.approx(0.208073497) and j["page_faults"] == 196  # "196,000000"


def test_decimal_comma_csv(d):
    # -x, under de_DE: every decimal number spans two fields
    # line 1: "202,83,msec,task-clock,202834197,100,00,1,CPUs utilized"
    m = by_metric(parse_file(TOOL, d / "gzip_de_csv.txt"))
    assert m == pytest.approx({"task_clock": 0.20283, "context_switches": 34, "cpu_migrations": 0,
                               "page_faults": 193})
    # perf prints the metric rounded there ("1,CPUs utilized", "0;CPUs utilized"): not read
    assert "cpus_utilized" not in m
    r3 = by_metric(parse_file(TOOL, d / "gzip_de_csv_r3.txt"))
    # "204,85,msec,task-clock,0,35%,204850335,100,00,0,CPUs utilized": variance 0,35 %
    assert r3["task_clock"] == pytest.approx(0.20485) and r3["task_clock_rsd"] == 0.35
    assert r3["context_switches_rsd"] == 18.59  # "35,,context-switches,18,59%,..."
    semi = by_metric(parse_file(TOOL, d / "gzip_de_csv_semicolon.txt"))
    # -x';': "202,94;msec;task-clock;202940117;100,00;0;CPUs utilized"
    assert semi == pytest.approx({"task_clock": 0.20294, "context_switches": 35, "cpu_migrations": 0,
                                  "page_faults": 194})


def test_hybrid_cpu_from_a_public_repository(d):
    # KargJonas/tiled-matmul main.profile (see README): an Intel hybrid CPU, German locale
    df = parse_file(TOOL, d / "hybrid_de_main.txt")
    cyc = df[df.metric == "cycles"].set_index("p_pmu")
    # line 6: "3.642.649.330      cpu_atom/cycles/   #    3,308 GHz   (0,68%)"
    # line 7: "4.963.414.681      cpu_core/cycles/   #    4,508 GHz   (78,79%)"
    assert cyc.value.to_dict() == {"cpu_atom": 3642649330, "cpu_core": 4963414681}
    assert cyc.p_counter_running.to_dict() == {"cpu_atom": 0.68, "cpu_core": 78.79}
    assert cyc.p_event.to_dict() == {"cpu_atom": "cpu_atom/cycles/", "cpu_core": "cpu_core/cycles/"}
    ipc = df[df.metric == "instructions_per_cycle"].set_index("p_pmu").value
    assert ipc.to_dict() == {"cpu_atom": 1.31, "cpu_core": 2.22}  # "1,31  insn per cycle"
    ins = df[df.metric == "instructions"].set_index("p_pmu").value
    assert ins["cpu_core"] / cyc.value["cpu_core"] == pytest.approx(2.22, abs=0.005)
    tc = df[(df.metric == "task_clock")]
    assert tc.value.iloc[0] == pytest.approx(1.10101) and tc.p_pmu.isna().all()  # "1.101,01 msec"
    assert by_metric(df[df.p_pmu.isna() & (df.metric != "cpus_utilized")])["elapsed_time"] == pytest.approx(1.101976138)
    assert df.set_index("metric").loc["llc_load_misses"].value.tolist() == [0, 11006799]  # "0" printed
    par = parse_file(TOOL, d / "hybrid_de_parallel6.txt")
    # "2.132,56 msec task-clock  #  8,392 CPUs utilized"; "0,254132990 seconds time elapsed"
    pm = par[par.p_pmu.isna()].drop_duplicates("metric").set_index("metric").value
    assert pm["task_clock"] == pytest.approx(2.13256) and pm["cpus_utilized"] == pytest.approx(8.392)
    assert pm["task_clock"] / pm["elapsed_time"] == pytest.approx(8.392, abs=0.001)


def test_locale_is_decided_from_evidence_not_guessed():
    head = " Performance counter stats for 'x':\n\n"
    # a decimal point shown by the elapsed line: "1.234 msec" is 1.234 ms
    en = parse_text(TOOL, head + "    1.234 msec task-clock\n\n   0.5 seconds time elapsed\n")
    assert by_metric(en)["task_clock"] == pytest.approx(0.001234)
    # a decimal comma shown by the elapsed line: "1.234 msec" is 1234 ms
    de = parse_text(TOOL, head + "    1.234 msec task-clock\n\n   0,5 seconds time elapsed\n")
    assert by_metric(de)["task_clock"] == pytest.approx(1.234)
    # nothing tells: no number rather than a guess
    with pytest.raises(ParseError, match=r"^a\.txt:3: task-clock: '1\.234' reads differently"):
        parse_text(TOOL, head + "    1.234 msec task-clock\n", "a.txt")
    # whole counts are unambiguous: "1.234.567" groups thousands, as does "1,37,80,113" (en_IN)
    assert by_metric(parse_text(TOOL, head + " 1.234.567  cycles\n"))["cycles"] == 1234567
    assert by_metric(parse_text(TOOL, head + " 1,37,80,113  cycles\n"))["cycles"] == 13780113


def test_detect(d):
    for f in sorted(d.glob("*.txt")):
        assert detect(f.read_text()) == TOOL, f.name


@pytest.mark.parametrize("name", ["gzip.txt", "gzip_r3.txt", "gzip_csv_r3.txt", "xz_o_file.txt",
                                  "system_wide_sleep1.txt", "gzip_json.txt", "gzip_json_r3.txt",
                                  "gzip_json_de.txt", "gzip_de.txt", "gzip_de_r3.txt",
                                  "gzip_de_csv.txt", "gzip_de_csv_r3.txt",
                                  "gzip_de_csv_semicolon.txt", "hybrid_de_main.txt",
                                  "hybrid_de_parallel6.txt"])
def test_every_prefix(d, name):
    check_all_prefixes(TOOL, (d / name).read_text())


def test_random_bytes():
    hypothesis_random_bytes(TOOL)()


@pytest.mark.tool
@pytest.mark.skipif(shutil.which("perf") is None, reason="perf (linux-perf) is not installed")
@pytest.mark.parametrize("csv", [False, True])
def test_live_perf_stat(csv):
    cmd = ["perf", "stat", *(["-x,"] if csv else []), "--", "true"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    if out.returncode != 0:
        pytest.skip(f"perf stat not permitted here: {out.stderr.strip()[:200]}")
    df = parse_text(TOOL, out.stderr, "live")
    assert "task_clock" in set(df.metric) and (df.value >= 0).all()


# ---- issue 26: public perf stat files (tests/fixtures/perf-stat/README.md) ------------------

def test_stalled_cycles_continuation_line(d):
    # AMD: stalled-cycles-frontend is counted, so perf prints the metric on a line of its own
    df = parse_file(TOOL, d / "amd_frontend_stalled_per_insn_598ape_hw3.txt", name="hw3")
    from overhead.parsers import cut_short_of
    assert cut_short_of(df) is None
    m = by_metric(df)
    # :12 "    49,678,248,668      instructions    #    1.71  insn per cycle"
    assert m["instructions"] == 49_678_248_668 and m["instructions_per_cycle"] == 1.71
    # :13 "                        #    0.03  stalled cycles per insn" (no count, no event)
    row = df[df.metric == "stalled_cycles_per_instruction"].iloc[0]
    assert row.value == 0.03 and row.source == "hw3:13" and row.p_event == "instructions"
    assert row.unit == "ratio" and not row.higher_is_better
    # :11 "     1,622,458,662      stalled-cycles-frontend   #    5.58% frontend cycles idle"
    assert m["stalled_cycles_frontend"] == 1_622_458_662
    # :6 "5,576.08 msec task-clock", :17 "5.576858768 seconds time elapsed"
    assert m["task_clock"] == pytest.approx(5.57608) and m["elapsed_time"] == 5.576858768
    assert str(df.started_at.iloc[0]) == "2025-04-14 13:41:37+00:00"  # :1 "# started on ..."
    assert set(df.p_command) == {"./main.exe 1000 5000"}
    assert "p_report" not in df.columns


def test_continuation_line_without_thousands_separators(d):
    m = by_metric(parse_file(TOOL, d / "amd_frontend_stalled_per_insn_598ape_hw1.txt"))
    # :11 "         320344407      stalled-cycles-frontend ...", :13 "#    0.03  stalled cycles per insn"
    assert m["stalled_cycles_frontend"] == 320344407
    assert m["stalled_cycles_per_instruction"] == 0.03
    # :6 "           1068.06 msec task-clock", :17 "       1.068702673 seconds time elapsed"
    assert m["task_clock"] == pytest.approx(1.06806) and m["elapsed_time"] == 1.068702673


def test_reports_joined_by_dashes(d):
    df = parse_file(TOOL, d / "three_reports_dash_separated_topdown.txt", name="two_sum")
    assert sorted(set(df.p_report)) == [1, 2, 3]
    el = df[df.metric == "elapsed_time"]
    # :17, :40 "      61.511974955 seconds time elapsed", :63 "       8.557783540 seconds ..."
    assert el.value.tolist() == [60.248690210, 61.511974955, 8.557783540]
    assert el.p_report.tolist() == [1, 2, 3]
    assert list(dict.fromkeys(df.p_command)) == [
        "./target/release/two_sum 300 l", "./target/release/two_sum 300 m",
        "./target/release/two_sum 300 s"]
    # :12 "   267,075,091,601      topdown-retiring          #     73.8% retiring"
    r = df[(df.metric == "topdown_retiring") & (df.p_report == 1)].iloc[0]
    assert r.value == 267_075_091_601 and r.source == "two_sum:12"
    assert not any(s.endswith((":22", ":45")) for s in df.source)  # the "---" lines


def test_eleven_reports_appended_each_with_its_start(d):
    df = parse_file(TOOL, d / "eleven_reports_append_o.txt", name="e")
    assert sorted(set(df.p_report)) == list(range(1, 12))
    first, last = df[df.p_report == 1], df[df.p_report == 11]
    # :1 "# started on Wed Dec  7 13:26:32 2022", :6 "14,402,543  dTLB-load-misses"
    assert set(first.started_at.astype(str)) == {"2022-12-07 13:26:32+00:00"}
    assert by_metric(first)["dtlb_load_misses"] == 14_402_543
    assert by_metric(first)["elapsed_time"] == 8.830057942  # :12
    # :134 " Performance counter stats for './test 10 3 0':", :142 "15.769330332 seconds time elapsed"
    assert set(last.p_command) == {"./test 10 3 0"}
    assert by_metric(last)["elapsed_time"] == 15.769330332
    assert len(set(df.started_at)) == 11


@pytest.mark.parametrize("name", ["amd_frontend_stalled_per_insn_598ape_hw3.txt", "gzip.txt",
                                  "three_reports_dash_separated_topdown.txt"])
def test_a_report_cut_before_its_elapsed_line_is_cut_short(d, name):
    from overhead.parsers import cut_short_of
    lines = (d / name).read_text().splitlines(keepends=True)
    last = max(i for i, line in enumerate(lines) if "seconds time elapsed" in line)
    df = parse_text(TOOL, "".join(lines[:last]), "cut")
    assert cut_short_of(df).startswith("cut: the run was cut short: ")
    assert "no 'seconds time elapsed' line" in cut_short_of(df)
    # the counters read are kept (their values as in the whole file); the last elapsed is not
    full = parse_file(TOOL, d / name, name="cut")
    assert 0 < len(df) < len(full)
    assert df.value.tolist() == full.value.tolist()[:len(df)]
    assert (df.metric == "elapsed_time").sum() == (full.metric == "elapsed_time").sum() - 1


@pytest.mark.parametrize("name", ["json_sleep.txt", "json_sleep_r3.txt", "gzip_json.txt",
                                  "gzip_csv.txt"])
def test_default_events_cut_before_branch_misses(fixtures, name):
    from overhead.parsers import cut_short_of

    # perf's default events, one line each: task-clock, context-switches, cpu-migrations,
    # page-faults, cycles, instructions, branches, branch-misses (the last four <not supported>)
    text = (fixtures / "perf-stat" / name).read_text()
    whole = parse_text(TOOL, text, "j")
    assert cut_short_of(whole) is None
    lines = text.splitlines(keepends=True)
    for keep in range(3, len(lines)):
        cut = parse_text(TOOL, "".join(lines[:keep]), "j")
        assert cut_short_of(cut) is not None, keep
        assert cut_short_of(cut).startswith(f"j:{keep}: the run was cut short: perf's default "
                                            "events stop at")
        assert len(cut) == len(whole[whole.source.str.rsplit(":", n=1).str[1].astype(int) <= keep])
    # two lines (task-clock, context-switches) are also what "-e task-clock,context-switches"
    # prints: not told apart
    assert cut_short_of(parse_text(TOOL, "".join(lines[:2]), "j")) is None


def test_chosen_events_are_not_a_cut(fixtures):
    from overhead.parsers import cut_short_of

    # -e task-clock,page-faults,context-switches: '"counter-value" : "77.000000", ...
    # "event" : "page-faults"' (line 2)
    df = parse_file(TOOL, fixtures / "perf-stat" / "json_events_sleep.txt")
    assert cut_short_of(df) is None
    assert df[df.metric == "page_faults"].value.tolist() == [77.0]
    # json_sleep.txt line 1: '"counter-value" : "0.905854", "unit" : "msec", "event" : "task-clock"'
    j = parse_file(TOOL, fixtures / "perf-stat" / "json_sleep.txt")
    assert j[j.metric == "task_clock"].value.tolist() == pytest.approx([0.905854e-3])
