"""RC25482's published values (data/reference/rc25482.csv, checked against the curator's README
Table I) and the values read from the authors' spreadsheets."""

from __future__ import annotations

import csv
import re

import pandas as pd
import pytest
from conftest import ROOT

from overhead.rc25482.published import published, table1_published
from overhead.rc25482.spreadsheets import ibm_spreadsheets
from overhead.schema import validate

README_COLUMNS = {"Native": "Native", "Docker": "Docker", "KVM untuned": "KVM-untuned", "KVM tuned": "KVM-tuned"}


def test_published():
    pub = published()
    with open(ROOT / "data" / "reference" / "rc25482.csv", newline="") as f:
        lines = list(csv.DictReader(f))
    assert len(pub) == len(lines) == 148
    assert list(pub.columns[:3]) == ["item", "metric", "env"]
    # numeric values stay numbers, with err and n
    linpack = pub[(pub.item == "Table I") & (pub.metric == "Linpack") & (pub.env == "Native")].iloc[0]
    assert linpack.value == pytest.approx(290.82864, rel=1e-12) and linpack.err == pytest.approx(1.1333858783897577)
    assert linpack.n == 10 and linpack.unit == "GFLOPS" and linpack.status == "REPO-SPREADSHEET"
    assert linpack.value_parsed == linpack.value and pd.isna(linpack.value_text)
    # textual values are kept as text, with the one number they say where unambiguous
    text = pub[pub.value_text.notna()].set_index("value_text")
    assert text.value.isna().all()
    parsed = text.value_parsed.to_dict()
    assert parsed["-22%"] == -22 and parsed["~110000"] == 110000 and parsed["~83"] == 83
    assert parsed["51 (1.05x native)"] == 51 and parsed["-> ~2% asymptotically"] == 2
    assert text.value_qualifier["~110000"] == "approx"
    for bound in (">40% in all cases", "<1 s vs 11 s", ">1.5 GB/s seq, 350000 IOPS"):
        assert parsed[bound] != parsed[bound]  # NaN: a bound or several numbers
    # NOT FOUND rows have no value at all
    missing = pub[pub.status == "NOT FOUND"]
    assert len(missing) == 2 and missing.value.isna().all() and missing.value_text.isna().all()


def _readme_table(curator):
    """The README's Table I as {(workload, environment): (mean, sd, unit)}, from its text."""
    text = (curator / "README.md").read_text()
    section = text.split("## Values to reproduce", 1)[1]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    header = [c.strip() for c in rows[0].strip("|").split("|")]
    cells = {}
    for line in rows[2:]:
        parts = [c.strip() for c in line.strip("|").split("|")]
        name, unit = parts[0].rsplit(" ", 1)
        for col, cell in zip(header[1:], parts[1:], strict=True):
            m = re.fullmatch(r"([0-9.]+) \(([0-9.]+)\)", cell)
            if m:
                cells[(name, README_COLUMNS[col])] = (m.group(1), m.group(2), unit)
    return cells


def test_table1_reproduces_the_readme(curator):
    table = table1_published()
    printed = _readme_table(curator)
    assert len(printed) == 18 and len(table) == 18
    for r in table.itertuples():
        mean, sd, unit = printed[(r.workload, r.environment)]
        decimals = len(mean.split(".")[1])
        assert f"{r.mean:.{decimals}f}" == mean and f"{r.sd:.{decimals}f}" == sd, r
        assert r.unit == unit and r.n == 10
    native = table.set_index(["workload", "environment"])
    assert native.loc[("STREAM Copy", "Native"), "sd_kind"].startswith("population SD")
    assert native.loc[("RandomAccess", "Native"), "sd_kind"].startswith("sample SD")


def test_table1_open_cell():
    full = table1_published(include_open=True)
    extra = full[(full.workload == "Linpack") & (full.environment == "KVM-untuned")]
    assert extra["mean"].item() == pytest.approx(130.28326) and extra["sd"].item() == pytest.approx(7.5657727617650981)


@pytest.fixture(scope="module")
def sheets(ibm):
    return ibm_spreadsheets(ibm)


def test_spreadsheet_rows_follow_the_schema(sheets):
    validate(sheets)
    assert set(sheets.tool) == {"spreadsheet"} and set(sheets.p_origin) == {"spreadsheet"}
    assert set(sheets.environment) == {"native", "docker", "kvm"}
    assert sheets.p_job.isna().sum() == 6 + 4 + 39 and "<NA>" not in set(sheets.p_job.dropna())
    assert sheets.groupby("benchmark").size().to_dict() == {"fio": 60, "netperf": 4, "nuttcp": 6}
    # formula cells (nuttcp B6 "=B5/1000", netperf C4 "=1000000/B4") are derived: never read
    assert not sheets.source.isin(["nuttcp/results/nuttcp.xlsx!Sheet1!B6",
                                   "netperf/results/netperf.xlsx!Sheet1!C4"]).any()


def test_nuttcp(sheets):
    nut = sheets[sheets.benchmark == "nuttcp"].set_index("source")
    native = nut.loc["nuttcp/results/nuttcp.xlsx!Sheet1!B5"]  # C->S, Native: 9348.1319 (Mbps)
    assert native.raw == "9348.1319" and native.value == pytest.approx(9348.1319e6 / 8)
    assert native.unit == "B/s" and native.p_direction == "client_to_server"
    nat = nut.loc["nuttcp/results/nuttcp.xlsx!Sheet1!C7"]  # S->C, Docker NAT: 9319.9298
    assert (nat.environment, nat.variant, nat.p_direction) == ("docker", "net=nat", "server_to_client")
    assert not nut.index.str.contains("!D").any()  # the Docker Host column is empty
    # the published values quote them in Gbps (Mbps / 1000)
    pub = published()
    quoted = pub[pub.metric.str.startswith("nuttcp goodput", na=False)]
    envs = {"Native": ("native", "default"), "Docker NAT": ("docker", "net=nat"), "KVM": ("kvm", "default")}
    for q in quoted.itertuples():
        direction = "client_to_server" if "client->server" in q.metric else "server_to_client"
        ours = nut[(nut.p_direction == direction) & (nut.environment == envs[q.env][0])
                   & (nut.variant == envs[q.env][1])].value.item()
        assert ours * 8 / 1e9 == pytest.approx(q.value, rel=1e-12)


def test_netperf(sheets):
    net = sheets[sheets.benchmark == "netperf"].set_index("source")
    tcp = net.loc["netperf/results/netperf.xlsx!Sheet1!B4"]
    assert tcp.value == 26608.44 and tcp.unit == "tx/s" and tcp.p_test == "TCP_RR" and tcp.raw == "26608.44"
    assert "docker" not in set(net.environment)  # no Docker NAT value: no row
    pub = published()
    for q in pub[pub.metric.str.startswith("netperf", na=False) & pub.value.notna()].itertuples():
        test = "TCP_RR" if "TCP_RR" in q.metric else "UDP_RR"
        env = "native" if q.env == "Native" else "kvm"
        rate = net[(net.p_test == test) & (net.environment == env)].value.item()
        assert 1e6 / rate == pytest.approx(q.value, rel=1e-12)  # latency = 1e6 / rate


def test_fio_values_match_the_published_values(sheets):
    fio = sheets[sheets.benchmark == "fio"]
    pub = published()
    env = {"Native": "native", "Docker": "docker", "KVM": "kvm"}
    fig5 = pub[pub.item.eq("Fig 5").fillna(False)]
    jobs = {"Sequential Read": "seq-read-2", "Sequential Write": "sequential-fill"}
    for q in fig5.itertuples():
        job = next(j for label, j in jobs.items() if label in q.metric)
        rows = fio[(fio.p_job == job) & (fio.environment == env[q.env])].set_index("metric").value
        assert rows["bandwidth_mean"] / 1024 / 1000 == pytest.approx(q.value, rel=1e-12)
        assert rows["bandwidth_sd"] / 1024 / 1000 == pytest.approx(q.err, rel=1e-12)
    fig6 = pub[pub.item.eq("Fig 6").fillna(False)]
    assert len(fig6) == 9
    for q in fig6.itertuples():
        job = re.search(r"\((\S+?),", q.metric)
        job = job.group(1) if job else "random-write-16x8"
        got = fio[(fio.metric == "iops") & (fio.p_job == job) & (fio.environment == env[q.env])].value.item()
        assert got == q.value
    fig7 = pub[pub.item.eq("Fig 7 (spreadsheet version)").fillna(False)]
    assert len(fig7) == 39
    for q in fig7.itertuples():
        pct = float(re.search(r"p(\d+)$", q.metric).group(1))
        got = fio[(fio.metric == "completion_latency_percentile") & (fio.p_percentile == pct)
                  & (fio.environment == env[q.env])].value.item()
        assert got == pytest.approx(q.value * 1e-6, rel=1e-12)


def test_fio_jobs_are_the_ones_in_the_logs(sheets, ibm):
    """The job named for each fio results.xlsx row is the job whose numbers the cells hold."""
    fio = sheets[(sheets.benchmark == "fio") & sheets.environment.isin(["native", "docker"])
                 & sheets.p_job.notna()]
    logs = {"native": "linux.log", "docker": "docker.log"}
    for env, name in logs.items():
        text = (ibm / "fio/results" / name).read_text()
        jobs = {m.group(1): m.group(2) for m in re.finditer(r"(?m)^(\S+): \(groupid=.*?\n(.*?)(?=^\S+: \(groupid=|\Z)", text, re.S)}
        for r in fio[fio.environment == env].itertuples():
            block = jobs[r.p_job]
            if r.metric == "iops":
                assert sum(int(x) for x in re.findall(r"iops=(\d+)", block)) == r.value
            elif r.metric == "bandwidth_mean":
                avg = float(re.search(r"bw \(KB/s\)\s*:.*avg=([0-9.]+)", block).group(1))
                assert abs(r.value / 1024 - avg) < 1  # the sheet keeps 3 decimals of avg/1000
            elif r.metric == "bandwidth_sd":
                sd = float(re.search(r"bw \(KB/s\)\s*:.*stdev=([0-9.]+)", block).group(1))
                assert abs(r.value / 1024 - sd) < 1
