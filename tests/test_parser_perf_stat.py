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
    with pytest.raises(ParseError, match=r"^m\.txt:1: no perf stat output"):
        parse_file(TOOL, d.parent / "mpstat" / "mpstat_1_3.txt", name="m.txt")


def test_detect(d):
    for f in sorted(d.glob("*.txt")):
        assert detect(f.read_text()) == TOOL, f.name


@pytest.mark.parametrize("name", ["gzip.txt", "gzip_r3.txt", "gzip_csv_r3.txt", "xz_o_file.txt",
                                  "system_wide_sleep1.txt"])
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
