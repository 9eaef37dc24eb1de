"""HPCC 1.5 output files (hpccoutf.txt) made on this machine with Debian's hpcc."""

from __future__ import annotations

import re
import shutil
import subprocess

import pandas as pd
import pytest

from overhead.parsers import ParseError, RunFailed, detect, parse_file, parse_text
from parser_contract import check_all_prefixes, hypothesis_random_bytes

TOOL = "hpcc"


@pytest.fixture(scope="module")
def fx(fixtures):
    return fixtures / "hpcc"


@pytest.fixture(scope="module")
def np1(fx):
    return parse_file(TOOL, fx / "hpccoutf_np1.txt")


def one(df, benchmark, metric, **params):
    sel = df[(df.benchmark == benchmark) & (df.metric == metric)]
    for k, v in params.items():
        sel = sel[sel[k] == v]
    assert len(sel) == 1, f"{benchmark} {metric} {params}: {len(sel)} rows"
    return sel.iloc[0]


def summary_value(text: str, key: str) -> float:
    return float(re.search(rf"^{key}=(\S+)$", text, re.M).group(1))


def test_run_context(np1):
    assert set(np1.tool_version) == {"1.5.0"}  # "... Benchmark version 1.5.0 October 2012"
    assert set(np1.host) == {"vm"}  # "Hostname: 'vm'"
    # "Current time (1795306633) is Sun Nov 22 00:17:13 2026"
    assert set(np1.started_at) == {pd.Timestamp("2026-11-22 00:17:13", tz="UTC")}
    assert set(np1.trial) == {1}


def test_hpl_table_line_and_summary_agree(np1, fx):
    # line 365: "WR11C2R4        1000    80     1     1               0.12              5.714e+00"
    hpl = one(np1, "hpl", "flop_rate", p_section="hpl")
    assert hpl.value == pytest.approx(5.714e9) and hpl.unit == "FLOP/s"
    assert (hpl.p_n, hpl.p_nb, hpl.p_p, hpl.p_q) == (1000, 80, 1, 1)
    assert hpl.p_variant == "WR11C2R4" and hpl.p_check == "PASSED"
    assert hpl.source.endswith("hpccoutf_np1.txt:365")
    assert one(np1, "hpl", "solve_time", p_section="hpl").value == pytest.approx(0.12)
    assert one(np1, "hpl", "residual").value == pytest.approx(0.0071960)  # line 367
    # the summary repeats it at full precision: line 401 "HPL_Tflops=0.00571369",
    # line 402 "HPL_time=0.116941", with HPL_N=1000, HPL_NB=80, HPL_nprow=1, HPL_npcol=1
    best = one(np1, "hpl", "flop_rate", p_section="summary")
    assert best.value == 0.00571369e12 and best.raw == "HPL_Tflops=0.00571369"
    assert best.source.endswith(":401") and (best.p_n, best.p_nb, best.p_p, best.p_q) == (1000, 80, 1, 1)
    time = one(np1, "hpl", "solve_time", p_section="summary")
    assert time.value == 0.116941 and time.source.endswith(":402")
    assert best.value == pytest.approx(hpl.value, rel=1e-3)  # the table's 5.714 rounds it
    text = (fx / "hpccoutf_np1.txt").read_text()
    assert summary_value(text, "HPL_time") == time.value
    # one row per p_section: 3 from the HPL table, 2 from the summary
    assert np1[np1.benchmark == "hpl"].p_section.value_counts().to_dict() == {"hpl": 3, "summary": 2}
    assert set(np1[np1.benchmark != "hpl"].p_section) == {"summary"}


def test_stream(np1):
    # summary: StarSTREAM_Copy=30.7847 ... SingleSTREAM_Triad=30.0767 (GB/s = 1e9 B/s)
    assert one(np1, "stream", "bandwidth", p_kernel="copy", p_scope="star").value == pytest.approx(30.7847e9)
    single = one(np1, "stream", "bandwidth", p_kernel="triad", p_scope="single")
    assert single.value == pytest.approx(30.0767e9) and single.unit == "B/s"
    assert single.p_vector_size == 333333 and single.p_threads == 1
    assert len(np1[np1.benchmark == "stream"]) == 8


def test_stream_summary_agrees_with_section(np1, fx):
    # SingleSTREAM section: "Single STREAM Copy GB/s 30.784711" etc.
    text = (fx / "hpccoutf_np1.txt").read_text()
    for kernel in ("Copy", "Scale", "Add", "Triad"):
        section = float(re.search(rf"^Single STREAM {kernel} GB/s (\S+)$", text, re.M).group(1))
        row = one(np1, "stream", "bandwidth", p_kernel=kernel.lower(), p_scope="single")
        assert row.value == pytest.approx(section * 1e9, rel=1e-5)


def test_randomaccess(np1):
    mpi = one(np1, "randomaccess", "update_rate", p_scope="mpi", p_kernel="randomaccess")
    # summary MPIRandomAccess_GUPs=0.0557048; section line 64:
    # "0.055704818 Billion(10^9) Updates    per second [GUP/s]"
    assert mpi.value == pytest.approx(0.055704818e9, rel=1e-5) and mpi.unit == "update/s"
    assert mpi.p_table_size == 524288
    star = one(np1, "randomaccess", "update_rate", p_scope="star", p_kernel="randomaccess")
    assert star.value == pytest.approx(0.5915e9)  # StarRandomAccess_GUPs=0.5915
    assert len(np1[np1.benchmark == "randomaccess"]) == 6  # 3 scopes x (standard, LCG)


def test_other_components(np1):
    assert one(np1, "ptrans", "bandwidth").value == pytest.approx(9.37994e9)  # PTRANS_GBs=9.37994
    assert one(np1, "dgemm", "flop_rate", p_scope="star").value == pytest.approx(5.49342e9)
    fft = one(np1, "fft", "flop_rate", p_scope="mpi")
    assert fft.value == pytest.approx(4.93911e9) and fft.p_n == 65536
    # one process: HPCC wrote -1 for every latency/bandwidth figure -> no rows
    assert "latency_bandwidth" not in set(np1.benchmark)
    assert set(np1[np1.benchmark != "hpl"].p_success) == {True}
    assert set(np1.p_kernel.dropna()) >= {"hpl", "copy", "ptrans", "dgemm", "fft"}


def test_two_processes_latency_bandwidth(fx):
    df = parse_file(TOOL, fx / "hpccoutf_np2.txt")
    assert one(df, "hpl", "flop_rate", p_section="hpl").p_q == 2
    assert one(df, "hpl", "flop_rate", p_section="summary").p_q == 2  # HPL_npcol=2
    lat = one(df, "latency_bandwidth", "latency_min", p_kernel="ping_pong")
    assert lat.value == pytest.approx(0.234907e-6)  # MinPingPongLatency_usec=0.234907
    # the section says "Max Ping Pong Latency: 0.000239 msecs" (line 335)
    assert one(df, "latency_bandwidth", "latency_max", p_kernel="ping_pong").value == pytest.approx(
        0.000239e-3, rel=2e-3)
    # ... and "Naturally Ordered Ring Bandwidth: 11007.381825 MB/s" with "1 MB/s = 10**6 byte/sec"
    ring = one(df, "latency_bandwidth", "bandwidth", p_kernel="natural_ring")
    assert ring.value == pytest.approx(11007.381825e6, rel=1e-5)
    assert set(df[df.benchmark == "stream"].p_procs) == {2}


def test_appended_runs(fx):
    df = parse_file(TOOL, fx / "hpccoutf_np1_two_runs.txt")
    hpl = df[(df.benchmark == "hpl") & (df.metric == "flop_rate") & (df.p_section == "hpl")]
    assert hpl.set_index("trial").value.to_dict() == pytest.approx({1: 5.865e9, 2: 5.719e9})
    starts = df.groupby("trial").started_at.first()
    assert starts.loc[2] > starts.loc[1]
    assert len(df[df.benchmark == "stream"]) == 16


def test_summary_without_hpl_table(fx):
    text = (fx / "hpccoutf_np1.txt").read_text()
    summary = text[text.index("Begin of Summary section."):text.index("End of Summary section.") + 23]
    df = parse_text(TOOL, summary, "summary.txt")
    hpl = one(df, "hpl", "flop_rate")
    assert hpl.value == pytest.approx(0.00571369e12) and hpl.p_n == 1000 and hpl.p_nb == 80


def test_errors(fx):
    text = (fx / "hpccoutf_np1.txt").read_text()
    lines = text.splitlines(keepends=True)
    bad = "".join(lines[:440] + ["garbage\n"] + lines[440:])  # inside the summary (line 441)
    with pytest.raises(ParseError, match=r"^b\.txt:441: summary line is not key=value"):
        parse_text(TOOL, bad, "b.txt")
    with pytest.raises(ParseError, match=r"^b\.txt:\d+: StarSTREAM_Copy: expected a number"):
        parse_text(TOOL, text.replace("StarSTREAM_Copy=30.7847", "StarSTREAM_Copy=fast"), "b.txt")
    # the banner alone (the first 12 lines): HPCC's output, no result -> a failed run, no line
    with pytest.raises(RunFailed, match=r"^h\.txt: the run did not finish: HPCC output holds no result"):
        parse_text(TOOL, "".join(lines[:12]), "h.txt")
    with pytest.raises(ParseError, match=r"^n\.txt:1: not HPCC output"):
        parse_text(TOOL, "Copy: 1 2 3 4\n", "n.txt")


def test_detect(fx):
    assert detect((fx / "hpccoutf_np2.txt").read_text()) == TOOL


@pytest.mark.parametrize("name", ["hpccoutf_np1.txt", "hpccoutf_np2.txt", "hpccoutf_np1_two_runs.txt"])
def test_every_prefix(fx, name):
    check_all_prefixes(TOOL, (fx / name).read_text(), limit=150)


def test_random_bytes():
    hypothesis_random_bytes(TOOL)()


@pytest.mark.tool
def test_live_hpcc(fx, tmp_path):
    if shutil.which("hpcc") is None or shutil.which("mpirun") is None:
        pytest.skip("hpcc or mpirun is not installed")
    (tmp_path / "hpccinf.txt").write_text((fx / "input" / "hpccinf_np1.txt").read_text())
    proc = subprocess.run(["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "1", "hpcc"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    df = parse_file(TOOL, tmp_path / "hpccoutf.txt")
    assert one(df, "hpl", "flop_rate", p_section="hpl").p_n == 1000
    assert one(df, "hpl", "flop_rate", p_section="summary").p_n == 1000
    assert len(df[df.benchmark == "stream"]) == 8
