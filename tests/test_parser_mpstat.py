"""mpstat parser on text and JSON runs made here (sysstat 12.6.1)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from overhead.parsers import ParseError, detect, parse_file, parse_text
from parser_contract import check_all_prefixes, hypothesis_random_bytes

TOOL = "mpstat"
METRICS = ["cpu_usr", "cpu_nice", "cpu_sys", "cpu_iowait", "cpu_irq", "cpu_soft", "cpu_steal",
           "cpu_guest", "cpu_gnice", "cpu_idle"]


@pytest.fixture(scope="module")
def d(fixtures):
    return fixtures / "mpstat"


def samples(df):
    """Sample rows as a table: (p_sample, p_cpu) x metric."""
    s = df[df.p_sample.notna()]
    return s.pivot_table(index=["p_sample", "p_cpu"], columns="metric", values="value")


def test_text_all_cpus(d):
    df = parse_file(TOOL, d / "mpstat_1_3.txt")
    assert len(df) == 4 * 10  # 3 samples + the Average line, 10 columns each
    assert set(df.host) == {"vm"}  # "Linux 6.18.44-fc-v769 (vm) 	11/22/26 ..."
    assert df.started_at.iloc[0].isoformat() == "2026-11-22T00:15:01+00:00"
    # line 4: "00:15:01     all    2.70    0.00   40.54    0.00    0.00   21.62    0.00    0.00    0.00   35.14"
    first = df[df.source.str.endswith(":4")].set_index("metric").value
    assert first[METRICS].tolist() == pytest.approx([2.70, 0, 40.54, 0, 0, 21.62, 0, 0, 0, 35.14])
    assert df[df.metric == "cpu_usr"].p_time.tolist()[:3] == [0, 1, 2]
    # line 7: "Average:     all   14.61    0.00   40.14    0.00    0.00   21.83 ... 23.42"
    avg = df[df.metric.str.endswith("_mean")].set_index("metric").value
    assert avg[["cpu_usr_mean", "cpu_sys_mean", "cpu_soft_mean", "cpu_idle_mean"]].tolist() == pytest.approx(
        [14.61, 40.14, 21.83, 23.42])
    assert df[df.metric.str.endswith("_mean")].p_time.isna().all()
    assert set(df.unit) == {"%"}


@pytest.mark.parametrize("name", ["mpstat_1_3.txt", "mpstat_P_ALL_1_2.txt", "mpstat_iso_P_ALL_1_1.txt"])
def test_average_agrees_with_samples(d, name):
    """mpstat's Average is a tick-weighted mean of the samples: it lies between their extremes,
    and every line's columns add up to 100 %."""
    df = parse_file(TOOL, d / name)
    s = samples(df)
    avg = df[df.p_sample.isna()].pivot_table(index="p_cpu", columns="metric", values="value")
    for cpu, row in avg.iterrows():
        per_cpu = s.xs(cpu, level="p_cpu")
        for metric in METRICS:
            lo, hi = per_cpu[metric].min(), per_cpu[metric].max()
            assert lo - 0.005 <= row[metric + "_mean"] <= hi + 0.005, (cpu, metric)
        assert row.sum() == pytest.approx(100, abs=0.06)
    assert (s[METRICS].sum(axis=1) - 100).abs().max() <= 0.06


def test_per_cpu_samples(d):
    df = parse_file(TOOL, d / "mpstat_P_ALL_1_2.txt")
    s = samples(df)
    assert list(s.index) == [(0, "0"), (0, "1"), (0, "all"), (1, "0"), (1, "1"), (1, "all")]
    # line 10: "00:15:05       0   64.00    0.00   35.00    0.00    0.00    0.00    1.00 ..."
    assert s.loc[(1, "0"), "cpu_usr"] == 64.0 and s.loc[(1, "0"), "cpu_steal"] == 1.0
    # with two CPUs, "all" is their mean (equal tick counts): 7.53 = (12.90 + 2.15) / 2
    for sample in (0, 1):
        both = (s.loc[(sample, "0"), METRICS] + s.loc[(sample, "1"), METRICS]) / 2
        assert (abs(both - s.loc[(sample, "all"), METRICS]) <= 0.06).all()
    assert set(df[df.p_sample == 1].p_time) == {1}


def test_iso_date(d):
    df = parse_file(TOOL, d / "mpstat_iso_P_ALL_1_1.txt")  # banner date "2026-11-22"
    assert df.started_at.iloc[0].isoformat() == "2026-11-22T00:15:44+00:00"
    # "00:15:44       1  100.00 ..." and "Average:       1  100.00 ..."
    assert df[(df.p_cpu == "1") & df.metric.isin(["cpu_usr", "cpu_usr_mean"])].value.tolist() == [100.0, 100.0]


def test_json(d):
    df = parse_file(TOOL, d / "mpstat_json_1_2.json")
    assert len(df) == 2 * 10 and set(df.host) == {"vm"}
    # line 14: {"cpu": "all", "usr": 30.85, "nice": 0.00, "sys": 61.19, ..., "soft": 7.96, ..., "idle": 0.00}
    first = df[df.source.str.endswith(":14")].set_index("metric")
    assert first.value[["cpu_usr", "cpu_sys", "cpu_soft", "cpu_idle"]].tolist() == pytest.approx([30.85, 61.19, 7.96, 0])
    assert first.raw["cpu_idle"] == "0.00"  # kept as printed
    assert df.started_at.iloc[0].isoformat() == "2026-11-22T00:15:06+00:00"  # "timestamp": "00:15:06"
    assert sorted(set(df.p_time)) == [0, 1]
    allcpu = parse_file(TOOL, d / "mpstat_json_P_ALL_1_2.json")
    s = samples(allcpu)
    assert s.loc[(1, "1"), "cpu_idle"] == pytest.approx(26.47)  # line 24
    assert (s[METRICS].sum(axis=1) - 100).abs().max() <= 0.06


def test_midnight_and_12_hour_clock(d):
    lines = (d / "mpstat_1_3.txt").read_text().splitlines(keepends=True)
    text = "".join(lines[:3]) + lines[3].replace("00:15:01", "23:59:59") + lines[4].replace("00:15:02", "00:00:00")
    df = parse_text(TOOL, text)
    assert sorted(set(df.p_time)) == [0, 1]
    ampm = "".join(lines[:2]) + lines[2].replace("00:15:00", "12:15:00 AM") + lines[3].replace("00:15:01", "12:15:01 AM")
    df = parse_text(TOOL, ampm)
    assert df.started_at.iloc[0].isoformat() == "2026-11-22T00:15:01+00:00"


def test_errors(d):
    lines = (d / "mpstat_1_3.txt").read_text().splitlines(keepends=True)
    bad = "".join(lines[:4]) + "00:15:02     all   37.31    0.00\n" + "".join(lines[5:])
    with pytest.raises(ParseError, match=r"^x\.txt:5: expected CPU and 10 values"):
        parse_text(TOOL, bad, "x.txt")
    typo = "".join(lines[:4]) + lines[4].replace("37.31", "37,31")
    with pytest.raises(ParseError, match=r"^y\.txt:5: %usr: expected a number"):
        parse_text(TOOL, typo, "y.txt")
    json_text = (d / "mpstat_json_1_2.json").read_text()
    with pytest.raises(ParseError, match=r"^j\.json:\d+: invalid or truncated mpstat JSON"):
        parse_text(TOOL, json_text[: len(json_text) // 2], "j.json")
    with pytest.raises(ParseError, match=r"^k\.json:14: mpstat JSON: usr of CPU all is not a number"):
        parse_text(TOOL, json_text.replace('"usr": 30.85', '"usr": "30.85"'), "k.json")
    with pytest.raises(ParseError, match=r"^v\.txt:1: no mpstat CPU report"):
        parse_file(TOOL, d.parent / "vmstat" / "vmstat_1_3.txt", name="v.txt")


def test_detect(d):
    for f in sorted(p for p in d.iterdir() if p.suffix in (".txt", ".json")):
        assert detect(f.read_text()) == TOOL, f.name


@pytest.mark.parametrize("name", ["mpstat_1_3.txt", "mpstat_P_ALL_1_2.txt", "mpstat_json_P_ALL_1_2.json"])
def test_every_prefix(d, name):
    check_all_prefixes(TOOL, (d / name).read_text())


def test_random_bytes():
    hypothesis_random_bytes(TOOL)()


@pytest.mark.tool
@pytest.mark.skipif(shutil.which("mpstat") is None, reason="mpstat (sysstat) is not installed")
@pytest.mark.parametrize("args", [["-P", "ALL", "1", "1"], ["-o", "JSON", "1", "1"]])
def test_live_mpstat(args):
    out = subprocess.run(["mpstat", *args], capture_output=True, text=True, timeout=30, check=True)
    df = parse_text(TOOL, out.stdout, "live")
    assert set(METRICS) <= set(df.metric) and "all" in set(df.p_cpu)
