"""sysbench parser: IBM's 0.4.12 OLTP runs, seed 004's flattened 0.4 outputs, our 1.0.20 runs.

Values are read off the files by hand (the line is quoted in a comment) and checked against the
tool's own summaries where it prints more than one view of the same thing.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from overhead.parsers import ParseError, RunFailed, parse_file, parse_text, read_text
from overhead.parsers import sysbench as sb
from parser_contract import check_all_prefixes, check_rows, hypothesis_random_bytes

FIRST = "mysql/results/performance-governor/bml/records-20140702111751-0"


def one(df: pd.DataFrame, metric: str, **params) -> float:
    """The value of the single row with ``metric`` and the given parameters."""
    sel = df[df.metric == metric]
    for k, v in params.items():
        if k not in sel.columns and v is None:
            continue
        sel = sel[sel[k].isna()] if v is None else sel[sel[k] == v]
    assert len(sel) == 1, f"{metric} {params}: {len(sel)} rows"
    return float(sel.value.iloc[0])


@pytest.fixture(scope="module")
def ibm_mysql(ibm):
    """Every sysbench file under mysql/results (chosen by content) and its parse, plus timings."""
    texts = {}
    for path in sorted((ibm / "mysql/results").rglob("*")):
        if not path.is_file():
            continue
        try:
            text = read_text(path)
        except ParseError:  # png, ods
            continue
        if sb.detect(text) > 0:
            texts[path.relative_to(ibm).as_posix()] = text
    frames = {name: sb.parse(text, name) for name, text in texts.items()}
    return texts, frames, None


# ---------------------------------------------------------------- sysbench 0.4.12 OLTP (IBM)

def test_ibm_first_report_hand_read(ibm):
    df = parse_file("sysbench", ibm / FIRST, name="rec")
    r = df[df.p_report == 1]
    assert set(r.p_threads) == {10}  # "Number of threads: 10"
    assert set(r.p_test) == {"oltp"} and set(r.p_mode) == {"read-only"}
    assert set(r.p_oltp_mode) == {"mixed"} and set(r.p_distribution) == {"special"}
    assert set(r.tool_version) == {"0.4.12"} and set(r.p_complete) == {True}
    expect = {
        "queries_read": 2860480,          # "read:                            2860480"
        "queries_write": 0,               # "write:                           0"
        "queries_other": 408640,          # "other:                           408640"
        "queries_total": 3269120,         # "total:                           3269120"
        "transactions": 204320,           # "transactions:  204320 (3405.19 per sec.)"
        "transaction_rate": 3405.19,
        "deadlocks": 0, "deadlock_rate": 0.0,  # "deadlocks:  0      (0.00 per sec.)"
        "rw_request_rate": 47672.61,      # "read/write requests:  2860480 (47672.61 per sec.)"
        "other_operation_rate": 6810.37,  # "other operations:     408640 (6810.37 per sec.)"
        "total_time": 60.0026,            # "total time:   60.0026s"
        "events": 204320,                 # "total number of events:  204320"
        "event_time_total": 598.1415,     # "total time taken by event execution: 598.1415"
        "latency_min": 2.20e-3, "latency_mean": 2.93e-3, "latency_max": 7.79e-3,
        "latency_percentile": 3.34e-3,    # "approx.  95 percentile:   3.34ms"
        "fairness_events_mean": 20432.0, "fairness_events_sd": 1027.44,
        "fairness_time_mean": 59.8141, "fairness_time_sd": 0.01,
    }
    got = r.set_index("metric").value.to_dict()
    assert got == pytest.approx(expect)
    assert len(r) == len(expect)
    pct = r[r.metric == "latency_percentile"]
    assert pct.p_percentile.tolist() == [95.0] and pct.unit.tolist() == ["s"]
    assert pct.raw.tolist() == ["3.34ms"] and pct.source.tolist() == ["rec:37"]
    assert r[r.metric == "transaction_rate"].unit.tolist() == ["tx/s"]
    assert r[r.metric == "transaction_rate"].source.tolist() == ["rec:24"]
    # 15 reports at 10..290 threads step 20
    tr = df[df.metric == "transaction_rate"]
    assert tr.p_threads.tolist() == list(range(10, 300, 20))
    assert tr.p_report.tolist() == list(range(1, 16))


def test_ibm_littles_law_first_report(ibm):
    df = parse_file("sysbench", ibm / FIRST)
    r = df[df.p_report == 1]
    # closed loop: N = X * R -> 3405.19 tx/s * 2.93 ms = 9.977 of 10 threads (residual -0.23 %)
    n = one(r, "transaction_rate") * one(r, "latency_mean")
    assert n == pytest.approx(10, rel=0.02)
    assert n / 10 - 1 == pytest.approx(-0.0023, abs=0.0002)


def test_ibm_all_1489_reports(ibm_mysql):
    texts, frames, _ = ibm_mysql
    assert len(texts) == 114
    df = pd.concat([f.assign(file=n) for n, f in frames.items()], ignore_index=True)
    for f in frames.values():
        check_rows(f, "ibm")
    tr = df[df.metric == "transaction_rate"]
    assert len(tr) == 1489
    # every report is complete, read-only (the paper says read/write), sysbench 0.4.12
    assert tr.p_complete.all() and set(tr.p_mode) == {"read-only"}
    assert set(tr.tool_version) == {"0.4.12"} and set(tr.p_test) == {"oltp"}
    assert sum(t.count("Doing read-only test") for t in texts.values()) == 1489
    assert sum(t.count("\nsysbench 0.4.12:") + t.startswith("sysbench 0.4.12:")
               for t in texts.values()) == 1489
    assert set(df.p_percentile.dropna()) == {95.0}
    per_folder = tr.groupby(tr.file.str.rsplit("/", n=1).str[0]).size().to_dict()
    assert per_folder == {
        "mysql/results/KVM": 150,
        "mysql/results/bml": 34,
        "mysql/results/bml-10run": 170,
        "mysql/results/docker-single-container": 17,
        "mysql/results/docker-single-container-10run": 170,
        "mysql/results/docker-single-container-nethost-10run": 25,   # 17 + 8 (run 1 has 8)
        "mysql/results/docker-single-container-nethost-hostfs-10run": 153,
        "mysql/results/performance-governor/KVM": 150,
        "mysql/results/performance-governor/bml": 150,
        "mysql/results/performance-governor/docker": 150,
        "mysql/results/performance-governor/docker-nofs": 150,
        "mysql/results/performance-governor/docker-nofs-nonet": 150,
        "mysql/results/rebooted-arldcn24": 20,
    }
    # the used figures' folders: 10 files x 15 reports at 10..290 threads
    pg = tr[tr.file.str.startswith("mysql/results/performance-governor/")]
    assert set(pg.groupby("file").size()) == {15}
    assert sorted(set(pg.p_threads)) == list(range(10, 300, 20))


def test_ibm_internal_consistency(ibm_mysql):
    """The tool's own redundant figures agree with each other in all 1,489 reports."""
    _, frames, _ = ibm_mysql
    df = pd.concat([f.assign(file=n) for n, f in frames.items()], ignore_index=True)
    w = df.pivot_table(index=["file", "p_report", "p_threads"], columns="metric",
                       values="value").reset_index()
    assert len(w) == 1489
    assert (w.queries_read + w.queries_write + w.queries_other == w.queries_total).all()
    assert (w.events == w.transactions).all()
    assert ((w.fairness_events_mean * w.p_threads - w.events).abs() < 0.05).all()
    assert (((w.transactions / w.total_time) / w.transaction_rate - 1).abs() < 1e-4).all()
    assert ((w.event_time_total / w.p_threads - w.fairness_time_mean).abs() < 1e-3).all()
    assert (w.latency_min <= w.latency_mean).all() and (w.latency_mean <= w.latency_max).all()
    # Little's law N = X * R in every report: residuals seen -0.48 % .. -0.03 % (median -0.09 %)
    res = w.transaction_rate * w.latency_mean / w.p_threads - 1
    assert res.abs().max() < 0.01


def test_ibm_truncated_report(ibm):
    text = (ibm / FIRST).read_text()
    lines = text.splitlines(keepends=True)
    # report 2 starts at line 43; cut it before its statistics (after "Done.", line 58)
    before_stats = parse_text("sysbench", "".join(lines[:58]), "cut")
    assert set(before_stats.p_report) == {1} and set(before_stats.p_complete) == {True}
    # cut in the middle of report 2's statistics: after its "transactions:" line (66)
    mid = parse_text("sysbench", "".join(lines[:66]), "cut")
    r2 = mid[mid.p_report == 2]
    assert r2.metric.tolist() == ["queries_read", "queries_write", "queries_other",
                                  "queries_total", "transactions", "transaction_rate"]
    assert set(r2.p_complete) == {False}
    assert one(r2, "transaction_rate") == 6766.56  # "transactions:  406018 (6766.56 per sec.)"
    # a last line without its newline is taken as cut mid-number and ignored
    partial = parse_text("sysbench", "".join(lines[:65]) + lines[65][:50], "cut")
    assert "transactions" not in set(partial[partial.p_report == 2].metric)


# ---------------------------------------------------------------- sysbench 0.4 from seed 004

def test_seed_fileio_ext4(fixtures):
    df = parse_file("sysbench", fixtures / "sysbench/seed004_fileio_ext4.txt", name="s")
    v = df.set_index("metric").value
    # "Operations performed: 21311 Read, 14207 Write, 45440 Other = 80958 Total"
    assert v[["read_operations", "write_operations", "other_operations", "operations"]].tolist() \
        == [21311, 14207, 45440, 80958]
    # "Read 332.98Mb Written 221.98Mb Total transferred 554.97Mb (1.8499Mb/sec)"
    assert v["data_read"] == pytest.approx(332.98 * 2**20)
    assert v["data_written"] == pytest.approx(221.98 * 2**20)
    assert v["data_transferred"] == pytest.approx(554.97 * 2**20)
    assert v["transfer_rate"] == pytest.approx(1.8499 * 2**20)
    # sysbench's Mb is MiB: 21311 reads of 16 KiB = 332.98 MiB
    assert 21311 * 16384 / 2**20 == pytest.approx(v["data_read"] / 2**20, abs=0.005)
    assert v["request_rate"] == 118.39      # "118.39 Requests/sec executed"
    assert v["total_time"] == 300.0044      # "total time: 300.0044s"
    assert v["latency_mean"] == pytest.approx(4.74e-3)
    assert v["latency_min"] == 0.0          # "min: 0.00ms" (printed zero)
    assert v["latency_percentile"] == pytest.approx(12.48e-3)
    assert v["fairness_events_mean"] == 35518.0
    # "execution time (avg/stddev): 168.47610.00": slash lost in flattening -> no rows
    assert not df.metric.str.startswith("fairness_time").any()
    assert set(df.p_test) == {"fileio"} and df.tool_version.isna().all()
    assert set(df.source) == {"s:1", "s:3", "s:5"}


def test_seed_fileio_units(fixtures):
    btrfs = parse_file("sysbench", fixtures / "sysbench/seed004_fileio_btrfs.txt").set_index("metric").value
    assert btrfs["transfer_rate"] == pytest.approx(549.23 * 1024)  # "(549.23Kb/sec)"
    assert btrfs["data_read"] == pytest.approx(96.562 * 2**20)     # "Read 96.562Mb"
    vbox = parse_file("sysbench", fixtures / "sysbench/seed004_fileio_vbox.txt").set_index("metric").value
    assert vbox["data_read"] == pytest.approx(1.0399 * 2**30)      # "Read 1.0399Gb"
    assert vbox["data_transferred"] == pytest.approx(1.7332 * 2**30)
    assert vbox["transfer_rate"] == pytest.approx(5.916 * 2**20)   # "(5.916Mb/sec)"
    assert vbox["request_rate"] == 378.62


def test_seed_memory(fixtures):
    df = parse_file("sysbench", fixtures / "sysbench/seed004_memory_first.txt")
    v = df.set_index("metric").value
    # "Operations performed: 104857600 (4545662.48 ops/sec)"
    assert v["operations"] == 104857600 and v["operation_rate"] == 4545662.48
    # "102400.00 MB transferred (4439.12 MB/sec)": 0.4 computes MB with 1024*1024
    assert v["data_transferred"] == 102400 * 2**20 == 100 * 2**30
    assert v["transfer_rate"] == pytest.approx(4439.12 * 2**20)
    # "execution time (avg/stddev): 17.0995/0.01" kept its slash
    assert v["fairness_time_mean"] == 17.0995 and v["fairness_time_sd"] == 0.01
    assert v["fairness_events_sd"] == 69790.0
    assert v["latency_percentile"] == 0.0  # "approx. 95 percentile: 0.00ms" (printed zero)
    second = parse_file("sysbench", fixtures / "sysbench/seed004_memory_second.txt")
    assert one(second, "transfer_rate") == pytest.approx(5281.00 * 2**20)
    assert not second.metric.str.startswith("fairness_time").any()  # "13.42890.14"
    assert set(df.p_test) == set(second.p_test) == {"memory"}


def test_seed_cpu_threads_mutex(fixtures):
    cpu = parse_file("sysbench", fixtures / "sysbench/seed004_cpu.txt").set_index("metric").value
    assert cpu["total_time"] == 51.4463 and cpu["events"] == 10000
    assert cpu["latency_mean"] == pytest.approx(10.29e-3)
    assert cpu["fairness_events_sd"] == 30.0
    threads = parse_file("sysbench", fixtures / "sysbench/seed004_threads.txt")
    assert one(threads, "latency_percentile", p_percentile=95.0) == pytest.approx(0.24e-3)
    assert one(threads, "fairness_time_mean") == 1.0105  # "1.0105/0.00" kept its slash
    mutex = parse_file("sysbench", fixtures / "sysbench/seed004_mutex.txt")
    # "approx. 95 percentile: 10000000.00ms" is 0.4's overflow value, not a measurement
    assert "latency_percentile" not in set(mutex.metric)
    assert one(mutex, "events") == 2 and one(mutex, "latency_max") == pytest.approx(0.16641)


# ---------------------------------------------------------------- sysbench 1.0.20 fixtures

def test_v1_cpu(fixtures):
    df = parse_file("sysbench", fixtures / "sysbench/v1_cpu.txt", name="c")
    assert set(df.tool_version) == {"1.0.20"} and set(df.p_test) == {"cpu"}
    assert set(df.p_threads) == {2} and set(df.p_max_prime) == {2000}
    v = df.set_index("metric").value
    assert v["event_rate"] == 65897.38        # "events per second: 65897.38"
    assert v["total_time"] == 2.0001 and v["events"] == 131873
    assert v["latency_max"] == pytest.approx(14.81e-3)  # "max:  14.81" under "Latency (ms):"
    assert v["event_time_total"] == pytest.approx(3.98264)  # "sum:  3982.64"
    assert one(df, "latency_percentile", p_percentile=95.0) == pytest.approx(0.03e-3)
    assert v["fairness_events_mean"] == 65936.5 and v["fairness_events_sd"] == 580.5
    assert df[df.metric == "event_rate"].source.tolist() == ["c:15"]
    assert "p_time" not in df.columns


def test_v1_cpu_interval_histogram_p99(fixtures):
    df = parse_file("sysbench", fixtures / "sysbench/v1_cpu_interval_histogram_p99.txt", name="h")
    iv = df[df.p_time.notna()]
    # "[ 1s ] thds: 2 eps: 61885.22 lat (ms,99%): 0.06"
    assert one(iv, "event_rate", p_time=1.0) == 61885.22
    assert one(iv, "threads_running", p_time=2.0) == 2
    assert one(iv, "latency_percentile", p_time=1.0) == pytest.approx(0.06e-3)
    assert set(df[df.metric == "latency_percentile"].p_percentile) == {99.0}
    # summary "99th percentile:  0.07"
    assert one(df, "latency_percentile", p_time=None) == pytest.approx(0.07e-3)
    hist = df[df.metric == "latency_bin_count"]
    assert len(hist) == 259 and hist.unit.eq("count").all()
    # the histogram holds every event: its counts add up to "total number of events: 101958"
    assert hist.value.sum() == one(df, "events") == 101958
    # last bin "12.752 |   1", just under "max: 12.83"
    assert hist.p_latency.max() == pytest.approx(12.752e-3)
    assert hist.p_latency.max() <= one(df, "latency_max")


def test_v1_percentile_disabled(fixtures):
    df = parse_file("sysbench", fixtures / "sysbench/v1_cpu_percentile0.txt")
    # "lat (ms,0%): 0.00" and "percentile stats: disabled" give no rows
    assert "latency_percentile" not in set(df.metric)
    assert one(df, "event_rate", p_time=1.0) == 32174.35


def test_v1_memory(fixtures):
    df = parse_file("sysbench", fixtures / "sysbench/v1_memory.txt")
    assert sorted(set(df.p_report)) == [1, 2, 3, 4, 5] and set(df.p_test) == {"memory"}
    summary = df[df.p_time.isna()]
    tr = summary[summary.metric == "transfer_rate"]
    assert tr.p_operation.tolist() == ["write", "read", "write", "read", "write"]
    # report 1: "1024.00 MiB transferred (4994.60 MiB/sec)", "Total operations: 1048576 (5114467.41 per second)"
    r1 = summary[summary.p_report == 1]
    assert one(r1, "transfer_rate") == pytest.approx(4994.60 * 2**20)
    assert one(r1, "data_transferred") == 2**30
    assert one(r1, "operations") == 1048576 and one(r1, "operation_rate") == 5114467.41
    assert set(r1.p_block_size) == {1024} and set(r1.p_total_size) == {2**30}
    # operations x block size = bytes transferred, in every report
    for _, r in summary.groupby("p_report"):
        assert one(r, "operations") * 1024 == pytest.approx(one(r, "data_transferred"), rel=1e-6)
    # report 5 interval "[ 1s ] 8666.76 MiB/sec"
    assert one(df, "transfer_rate", p_time=1.0) == pytest.approx(8666.76 * 2**20)


def test_v1_threads_and_mutex(fixtures):
    threads = parse_file("sysbench", fixtures / "sysbench/v1_threads.txt")
    assert threads.p_test.isna().all()  # the output does not name the test
    assert one(threads, "events") == 4608 and one(threads, "fairness_events_sd") == 97.0
    mutex = parse_file("sysbench", fixtures / "sysbench/v1_mutex.txt")
    # 1.0 computes the percentile even for 2 events: "95th percentile:  277.21"
    assert one(mutex, "latency_percentile") == pytest.approx(0.27721)
    assert one(mutex, "fairness_time_sd") == 0.04


def test_v1_fileio_prepare_run_cleanup(fixtures):
    df = parse_file("sysbench", fixtures / "sysbench/v1_fileio.txt", name="f")
    assert set(df.p_test) == {"fileio"}
    # prepare: "33554432 bytes written in 0.07 seconds (438.93 MiB/sec)."
    prep = df[df.p_report == 1]
    assert prep.metric.tolist() == ["prepare_data_written", "prepare_time", "prepare_throughput"]
    assert one(prep, "prepare_data_written") == 33554432 and one(prep, "prepare_time") == 0.07
    assert one(prep, "prepare_throughput") == pytest.approx(438.93 * 2**20)
    assert set(prep.p_total_size) == {33554432} and set(prep.p_files) == {4}
    run = df[(df.p_report == 2) & df.p_time.isna()]
    assert set(run.p_mode) == {"random r/w"} and set(run.p_block_size) == {16384}
    assert set(run.p_rw_ratio) == {1.5} and set(run.p_fsync_interval) == {100}
    assert set(run.p_file_size) == {8 * 2**20} and set(run.p_io_mode) == {"synchronous"}
    v = run.set_index("metric").value
    assert v["read_rate"] == 34733.00 and v["write_rate"] == 23155.33   # "reads/s:  34733.00"
    assert v["fsync_rate"] == 2317.53
    assert v["read_throughput"] == pytest.approx(542.70 * 2**20)        # "read, MiB/s:  542.70"
    assert v["write_throughput"] == pytest.approx(361.80 * 2**20)
    # reads/s x 16 KiB = read MiB/s (the tool's two views of one figure)
    assert v["read_rate"] * 16384 == pytest.approx(v["read_throughput"], rel=1e-3)
    # "[ 1s ] reads: 571.10 MiB/s writes: 380.72 MiB/s fsyncs: 2434.65/s latency (ms,95%): 0.051"
    iv = df[df.p_time == 1.0]
    assert iv.set_index("metric").value.to_dict() == pytest.approx({
        "read_throughput": 571.10 * 2**20, "write_throughput": 380.72 * 2**20,
        "fsync_rate": 2434.65, "latency_percentile": 0.051e-3})
    seqwr = df[df.p_report == 3]
    assert set(seqwr.p_mode) == {"sequential write (creation)"}
    assert one(seqwr, "read_rate") == 0.0  # "reads/s:  0.00" (printed zero)
    assert 4 not in set(df.p_report)  # cleanup: no statistics


def test_v1_oltp_read_write(fixtures):
    df = parse_file("sysbench", fixtures / "sysbench/v1_oltp_read_write.txt", name="rw")
    assert set(df.p_test) == {"oltp"} and set(df.p_threads) == {2}
    # "[ 1s ] thds: 2 tps: 1356.57 qps: 27156.21 (r/w/o: 19010.84/5430.25/2715.12) lat (ms,95%): 3.02 err/s: 0.00 reconn/s: 0.00"
    iv = df[df.p_time == 1.0].set_index("metric")
    assert iv.value.to_dict() == pytest.approx({
        "threads_running": 2, "transaction_rate": 1356.57, "query_rate": 27156.21,
        "read_query_rate": 19010.84, "write_query_rate": 5430.25, "other_query_rate": 2715.12,
        "latency_percentile": 3.02e-3, "error_rate": 0.0, "reconnect_rate": 0.0})
    assert iv.loc["latency_percentile", "p_percentile"] == 95.0
    assert sorted(set(df.p_time.dropna())) == [1.0, 2.0]
    s = df[df.p_time.isna()].set_index("metric").value
    assert s[["queries_read", "queries_write", "queries_other", "queries_total"]].tolist() == \
        [50008, 14288, 7144, 71440]
    assert s["transactions"] == 3572 and s["transaction_rate"] == 1189.49
    assert s["query_rate"] == 23789.81 and s["ignored_errors"] == 0 and s["reconnects"] == 0
    assert s["latency_mean"] == pytest.approx(1.68e-3) and s["latency_percentile"] == pytest.approx(3.43e-3)
    assert s["event_time_total"] == pytest.approx(5.99425)
    assert s["transactions"] / s["total_time"] == pytest.approx(s["transaction_rate"], rel=1e-3)
    # Little's law on our own run: 1189.49 tx/s x 1.68 ms = 2.0 of 2 threads
    assert s["transaction_rate"] * s["latency_mean"] == pytest.approx(2, rel=0.02)


def test_v1_oltp_read_only_histogram_p99(fixtures):
    df = parse_file("sysbench", fixtures / "sysbench/v1_oltp_read_only.txt")
    assert set(df.p_threads) == {4}
    assert set(df[df.metric == "latency_percentile"].p_percentile) == {99.0}
    assert one(df, "latency_percentile", p_time=None) == pytest.approx(4.65e-3)  # "99th percentile: 4.65"
    assert one(df, "write_query_rate", p_time=3.0) == 0.0  # "(r/w/o: 31895.99/0.00/4558.28)"
    assert one(df, "queries_write") == 0
    hist = df[df.metric == "latency_bin_count"]
    assert hist.value.sum() == one(df, "events") == 7758
    assert hist.p_latency.min() == pytest.approx(0.285e-3)  # "0.285 |***   16"
    assert one(hist, "latency_bin_count", p_latency=hist.p_latency.min()) == 16


def test_v1_fileio_prepare_alone(fixtures):
    df = parse_file("sysbench", fixtures / "sysbench/v1_fileio_prepare_64M.txt", name="p")
    # line 10 "67108864 bytes written in 0.06 seconds (1066.00 MiB/sec)."
    assert df.set_index("metric").value.to_dict() == pytest.approx({
        "prepare_data_written": 67108864, "prepare_time": 0.06, "prepare_throughput": 1066.00 * 2**20})
    assert set(df.source) == {"p:10"} and set(df.unit) == {"B", "s", "B/s"}
    assert df.set_index("metric").raw.to_dict() == {
        "prepare_data_written": "67108864 bytes", "prepare_time": "0.06 seconds",
        "prepare_throughput": "1066.00 MiB/sec"}
    # line 3 "4 files, 16384Kb each, 64Mb total"; the bytes written are the total size
    assert set(df.p_files) == {4} and set(df.p_file_size) == {16384 * 1024}
    assert set(df.p_total_size) == {64 * 2**20} and set(df.p_test) == {"fileio"}
    assert set(df.tool_version) == {"1.0.20"} and df.p_complete.all()


def test_v1_oltp_point_select_and_empty_outputs(fixtures):
    ps = parse_file("sysbench", fixtures / "sysbench/v1_oltp_point_select.txt")
    assert one(ps, "transaction_rate") == one(ps, "query_rate") == 65997.96
    # prepare and --version print no statistic: steps that finished, not failed runs (issue 26):
    # a ParseError saying which step, never RunFailed ("the run did not finish")
    cases = {"v1_oltp_prepare.txt": ("3", "an OLTP 'prepare' step (line 3: \"Creating table "
                                     "'sbtest1'...\"), which finished but measures nothing"),
             "v1_version.txt": ("1", "only the sysbench version (sysbench --version)")}
    for name, (line, what) in cases.items():
        text = read_text(fixtures / "sysbench" / name)
        with pytest.raises(ParseError) as info:
            parse_text("sysbench", text, name)
        assert not isinstance(info.value, RunFailed)
        assert str(info.value).startswith(f"{name}:{line}: {what}")


def test_a_fatal_error_before_any_statistic_is_a_failed_run():
    # the header, then sysbench's own error (what 1.0.20 prints without a MySQL server)
    text = ("sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)\n\n"
            "FATAL: unable to connect to MySQL server on host 'localhost', port 3306, aborting...\n")
    with pytest.raises(RunFailed, match=r"^f:3: the run did not finish: FATAL: unable to connect"):
        parse_text("sysbench", text, "f")


@pytest.mark.parametrize("name", ["v1_cpu.txt", "v1_oltp_read_write.txt", "v1_memory.txt"])
def test_a_report_cut_before_threads_fairness_is_cut_short(fixtures, name):
    from overhead.parsers import cut_short_of
    lines = read_text(fixtures / "sysbench" / name).splitlines(keepends=True)
    end = max(i for i, line in enumerate(lines) if "execution time (avg/stddev)" in line)
    full = parse_text("sysbench", "".join(lines), name)
    assert cut_short_of(full) is None
    for cut in (end, end - 3, end - 6):  # before the last line, inside the statistics
        df = parse_text("sysbench", "".join(lines[:cut]), name)
        last = df.p_report.max()  # v1_memory.txt holds five reports: the last one is cut
        assert re.match(rf"^{name}: the run was cut short: report {last} \(statistics from line "
                        r"\d+\) ends before its 'execution time \(avg/stddev\)' line",
                        cut_short_of(df)), cut_short_of(df)
        assert not df[df.p_report == last].p_complete.any() and 0 < len(df) < len(full)
        assert df[df.p_report < last].p_complete.all()


def test_concatenated_versions(fixtures):
    """Reports of different versions in one text keep their own version and numbering."""
    text = (fixtures / "sysbench/v1_cpu.txt").read_text() + \
        (fixtures / "sysbench/seed004_threads.txt").read_text()
    df = parse_text("sysbench", text, "cat")
    assert df.groupby("p_report").tool_version.first().fillna("-").to_dict() == {1: "1.0.20", 2: "-"}


# ---------------------------------------------------------------- errors, detection, contract

def test_not_sysbench_is_a_parse_error(ibm):
    with pytest.raises(ParseError, match=r"^x\.log:1: no sysbench output"):
        parse_file("sysbench", ibm / "linpack/results/vm.log", name="x.log")
    with pytest.raises(ParseError, match=r"^e:1: "):
        parse_text("sysbench", "", "e")


def test_malformed_values_name_the_line(ibm):
    lines = (ibm / FIRST).read_text().splitlines(keepends=True)[:30]
    bad = lines[:23] + ["    transactions:                        204320 (lots per sec.)\n"]
    with pytest.raises(ParseError, match=r"^b:24: transactions: expected"):
        parse_text("sysbench", "".join(bad), "b")
    bad = lines[:29] + ["    total time:                          sixty\n"]
    with pytest.raises(ParseError, match=r"^b:30: total time: expected a number"):
        parse_text("sysbench", "".join(bad), "b")
    with pytest.raises(ParseError, match=r"^b:2: events \(avg/stddev\): expected"):
        parse_text("sysbench", "Threads fairness:\n    events (avg/stddev):  12/x\n", "b")


def test_an_infinite_size_names_its_line(fixtures):
    # line 3 "4 files, 16384Kb each, 64Mb total" with a size that overflows to infinity
    # (an OverflowError before, from int(inf))
    lines = read_text(fixtures / "sysbench/v1_fileio_prepare_64M.txt").splitlines(keepends=True)
    lines[2] = "4 files, 1e999Kb each, 64Mb total\n"
    with pytest.raises(ParseError, match=r"^p:3: file size: '1e999Kb' is not a finite size"):
        parse_text("sysbench", "".join(lines), "p")


def test_detect(ibm, fixtures):
    assert sb.detect((ibm / FIRST).read_text()) == 1.0
    assert sb.detect((fixtures / "sysbench/v1_oltp_read_only.txt").read_text()) == 1.0
    assert sb.detect((fixtures / "sysbench/seed004_cpu.txt").read_text()) == 0.9
    assert sb.detect((ibm / "linpack/results/vm.log").read_text()) == 0.0
    assert sb.detect((ibm / "mysql/results/bml/dstat-run-2000000.csv").read_text()) == 0.0


FIXTURES = sorted(p.name for p in (Path(__file__).resolve().parents[1] / "fixtures/sysbench").glob("*.txt")
                  if p.name not in ("v1_oltp_prepare.txt", "v1_version.txt",  # no rows at all
                                    "v1_unknown_test.txt", "v1_fileio_no_prepare.txt"))


@pytest.mark.parametrize("name", FIXTURES)
def test_every_prefix(fixtures, name):
    check_all_prefixes("sysbench", read_text(fixtures / "sysbench" / name), limit=40)


def test_every_prefix_ibm(ibm):
    check_all_prefixes("sysbench", (ibm / FIRST).read_text(), limit=40)


def test_random_bytes():
    hypothesis_random_bytes("sysbench")()


@pytest.mark.tool
@pytest.mark.skipif(shutil.which("sysbench") is None, reason="sysbench is not installed")
def test_live_cpu_run():
    out = subprocess.run(["sysbench", "cpu", "--threads=1", "--time=1", "--cpu-max-prime=2000",
                          "--report-interval=1", "run"], capture_output=True, text=True,
                         timeout=30, check=True).stdout
    df = parse_text("sysbench", out, "live")
    check_rows(df, "live")
    assert one(df, "event_rate", p_time=None) > 0
    assert one(df, "events") == pytest.approx(one(df, "event_rate", p_time=None)
                                              * one(df, "total_time"), rel=0.05)
