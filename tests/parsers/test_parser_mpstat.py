"""mpstat parser on text and JSON runs made here (sysstat 12.6.1)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from overhead.parsers import ParseError, RunFailed, detect, parse_file, parse_text
from parser_contract import check_all_prefixes, hypothesis_random_bytes, with_line

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
    bad = with_line(lines, 5, "00:15:02     all   37.31    0.00\n")
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
    with pytest.raises(ParseError, match=r"^v\.txt: no mpstat CPU report"):
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


# ---- interrupts (-I SUM / CPU / SCPU / ALL), text and JSON ---------------------------------

def at(df, n):
    """The rows read from line ``n``."""
    return df[df.source.str.endswith(f":{n}")]


def test_interrupts_sum(d):
    df = parse_file(TOOL, d / "mpstat_I_SUM_P_ALL_1_2.txt")
    assert set(df.metric) == {"interrupts", "interrupts_mean"} and set(df.unit) == {"Hz"}
    # line 5: "19:26:00       0   2181.00"
    row = at(df, 5).iloc[0]
    assert (row.metric, row.value, row.p_cpu, row.p_sample, row.p_time, row.raw) == (
        "interrupts", 2181.0, "0", 0, 0, "2181.00")
    # line 11: "19:26:01       1   9793.00" (the second sample)
    assert at(df, 11).iloc[0][["value", "p_sample", "p_time"]].tolist() == [9793.0, 1, 1]
    # line 16: "Average:       1   9693.50": mpstat's average over equal intervals is their mean
    mean = df[df.metric == "interrupts_mean"].set_index("p_cpu").value
    per = df[df.metric == "interrupts"].groupby("p_cpu").value.mean()
    assert mean["1"] == 9693.5 and ((mean - per).abs() <= 0.005).all()
    assert df[df.metric == "interrupts_mean"].p_sample.isna().all()
    assert df.started_at.iloc[0].isoformat() == "2026-11-24T19:26:00+00:00"
    one = parse_file(TOOL, d / "mpstat_I_SUM_1_2.txt")
    assert one[one.metric == "interrupts"].p_cpu.tolist() == ["all", "all"]


def test_interrupts_per_irq_and_softirq(d):
    soft = parse_file(TOOL, d / "mpstat_I_SCPU_1_2.txt")
    assert set(soft.metric) == {"softirqs", "softirqs_mean"} and "p_irq" not in soft.columns
    # line 5: "19:26:04       1       0.00      31.00       0.00       0.00   13289.00 ..."
    row = at(soft, 5).set_index("p_softirq")
    assert row.value[["HI", "TIMER", "BLOCK", "SCHED"]].tolist() == [0, 31, 13289, 161]
    assert set(row.p_cpu) == {"1"} and set(row.p_sample) == {0}
    assert set(soft.p_softirq) == {"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL",
                                   "TASKLET", "SCHED", "HRTIMER", "RCU"}
    # line 9: "Average:       1 ... 12262.00 ..." = (13289 + 11235) / 2
    avg = at(soft, 9).set_index("p_softirq").value
    assert avg["BLOCK"] == 12262.0 and at(soft, 9).metric.eq("softirqs_mean").all()
    irq = parse_file(TOOL, d / "mpstat_I_CPU_1_2.txt")
    assert set(irq.metric) == {"interrupts_by_irq", "interrupts_by_irq_mean"}
    assert len(irq) == 6 * 35  # 35 columns "24/s" ... "PIW/s", 4 sample lines and 2 averages
    # line 7: "19:26:03       1       0.00 ... 1.00 (31/s) ..."
    row = at(irq, 7).set_index("p_irq")
    assert row.value["31"] == 1.0 and set(row.p_sample) == {1} and set(row.p_cpu) == {"1"}
    assert {"24", "LOC", "RES", "CAL", "NMI"} <= set(irq.p_irq)
    assert at(irq, 9).set_index("p_irq").value["31"] == 0.5  # "Average:       1 ... 0.50"


def test_interrupts_all_text_and_json(d):
    text = parse_file(TOOL, d / "mpstat_I_ALL_1_2.txt")
    # -I ALL: the sum, per-IRQ and softirq tables of one interval are one sample
    assert sorted(set(text.p_sample.dropna())) == [0, 1]
    per_sample = text[text.p_sample == 0].groupby("metric").size().to_dict()
    assert per_sample == {"interrupts": 1, "interrupts_by_irq": 2 * 35, "softirqs": 2 * 10}
    js = parse_file(TOOL, d / "mpstat_json_I_ALL_1_2.json")
    assert set(js.metric) == {"interrupts", "interrupts_by_irq", "softirqs"}
    assert len(js) == 2 * (1 + 2 * 35 + 2 * 10)
    # line 14: {"cpu": "all", "intr": 13052.00}
    assert at(js, 14).iloc[0][["metric", "value", "p_cpu", "p_sample"]].tolist() == [
        "interrupts", 13052.0, "all", 0]
    # line 38: {"name": "LOC", "value": 351.00} (CPU 0); line 75: {"name": "LOC", "value": 295.00} (CPU 1)
    assert at(js, 38).iloc[0][["metric", "p_irq", "p_cpu", "value"]].tolist() == [
        "interrupts_by_irq", "LOC", "0", 351.0]
    assert at(js, 75).iloc[0][["p_irq", "p_cpu", "value"]].tolist() == ["LOC", "1", 295.0]
    # line 109: {"name": "NET_RX", "value": 0.00} of CPU 1's soft-interrupts
    row = at(js, 109).iloc[0]
    assert (row.metric, row.p_softirq, row.p_cpu, row.value, row.raw) == ("softirqs", "NET_RX", "1", 0, "0.00")
    assert js.started_at.iloc[0].isoformat() == "2026-11-24T19:26:08+00:00"  # "timestamp": "19:26:08"
    summed = parse_file(TOOL, d / "mpstat_json_I_SUM_P_ALL_1_2.json")
    # line 23: {"cpu": "0", "intr": 3701.00}
    assert at(summed, 23).iloc[0][["value", "p_cpu", "p_sample", "p_time"]].tolist() == [3701.0, "0", 1, 1]


def test_utilisation_and_interrupts_together(d):
    df = parse_file(TOOL, d / "mpstat_u_I_SUM_1_1.txt")
    assert set(df[df.p_sample == 0].metric) == {*METRICS, "interrupts"}
    # line 7: "19:26:12     all   8655.00"; line 4: "... all   29.59 ..."
    assert at(df, 7).value.tolist() == [8655.0] and at(df, 4).set_index("metric").value["cpu_usr"] == 29.59


def test_killed_before_the_first_report(d):
    """mpstat writes its first report after one interval: killed at 0.3 s, the banner alone."""
    banner = "'Linux 6.18.44-fc-v669 (vm) 11/24/26 _x86_64_ (2 CPU)'"
    for name in ("mpstat_1_5_killed.txt", "mpstat_I_ALL_1_5_interrupted.txt"):
        with pytest.raises(RunFailed) as err:
            parse_file(TOOL, d / name, name="k.txt")
        assert str(err.value) == f"k.txt: the run did not finish: only the banner {banner}, no report"
    with pytest.raises(RunFailed) as err:
        parse_file(TOOL, d / "mpstat_json_1_5_interrupted.json", name="k.json")
    assert str(err.value) == ("k.json: the run did not finish: the JSON document ends after its "
                              "header ('\"statistics\": ['), before any report")
    # the banner is iostat's too, but iostat writes a blank line after it at once: a banner and
    # one newline is mpstat's; the JSON header (iostat's is the same) goes to mpstat
    for name in ("mpstat_1_5_killed.txt", "mpstat_I_ALL_1_5_interrupted.txt",
                 "mpstat_json_1_5_interrupted.json"):
        assert detect((d / name).read_text()) == TOOL, name
    assert (d / "mpstat_1_5_killed.txt").read_text().endswith("(2 CPU)\n")


def test_errors_name_the_wrong_line(d):
    lines = (d / "mpstat_P_ALL_1_2.txt").read_text().splitlines(keepends=True)
    assert lines[9].startswith("00:15:05       0   64.00")
    bad = with_line(lines, 10, lines[9].replace("35.00", "35.O0"))
    with pytest.raises(ParseError, match=r"^p\.txt:10: %sys: expected a number, found '35\.O0'$"):
        parse_text(TOOL, bad, "p.txt")
    irq = (d / "mpstat_I_CPU_1_2.txt").read_text().splitlines(keepends=True)
    bad = with_line(irq, 7, irq[6].replace("1.00", "1.0x", 1))
    with pytest.raises(ParseError, match=r"^i\.txt:7: 31/s: expected a number, found '1\.0x'$"):
        parse_text(TOOL, bad, "i.txt")
    js = (d / "mpstat_json_I_ALL_1_2.json").read_text()
    lines = js.splitlines(keepends=True)
    assert '"LOC", "value": 295.00' in lines[74]
    bad = with_line(lines, 75, lines[74].replace("295.00", '"295.00"'))
    with pytest.raises(ParseError, match=r"^j\.json:75: mpstat JSON: value of LOC \(CPU 1\) is not a number$"):
        parse_text(TOOL, bad, "j.json")
    bad = js.replace('"intr": 11688.00', '"intr": "11688.00"')
    with pytest.raises(ParseError, match=r"^j\.json:122: mpstat JSON: intr of CPU all is not a number$"):
        parse_text(TOOL, bad, "j.json")


@pytest.mark.parametrize("name", ["mpstat_I_ALL_1_2.txt", "mpstat_I_SCPU_1_2.txt",
                                  "mpstat_u_I_SUM_1_1.txt", "mpstat_json_I_SUM_P_ALL_1_2.json"])
def test_every_prefix_of_interrupts(d, name):
    check_all_prefixes(TOOL, (d / name).read_text())


def test_every_prefix_of_interrupts_json(d):
    check_all_prefixes(TOOL, (d / "mpstat_json_I_ALL_1_2.json").read_text(), limit=60)
