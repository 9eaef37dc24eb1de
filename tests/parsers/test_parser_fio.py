"""fio parser: the IBM authors' fio 2.0.8 logs and fio 3.33 runs made on this machine.

Values are read off the files by hand (the line is quoted in a comment); the JSON and text
reports of the same run are checked against each other within the text's printed precision.
"""

from __future__ import annotations

import csv
import math
import os
import re
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from overhead.parsers import ParseError, RunFailed, detect, parse_file, parse_text
from overhead.parsers.fio import latency_bins
from parser_contract import (
    check_all_prefixes,
    check_rows,
    hypothesis_random_bytes,
    parse_prefix,
    with_line,
)

LOGS = {"Native": "linux.log", "Docker": "docker.log", "KVM": "vm.log"}
JOBS = ["sequential-fill", "seq-read-1", "seq-read-2", "random-write-16", "random-write-16x8",
        "random-read-16", "random-read-16x8", "mixed-random-rw-32x8"]
MIXED = ["randrw-libaio.jsonplus-normal.txt", "group-reporting.json-normal.txt",
         "two-groups.json-normal.txt", "fsync-kb1000.json-normal.txt", "unified-rw.json-normal.txt"]


@pytest.fixture(scope="module")
def logs(ibm):
    """The three IBM logs, parsed once."""
    return {env: parse_file("fio", ibm / "fio/results" / name, name=name) for env, name in LOGS.items()}


def one(df, **where):
    """The value of the single row matching ``where`` (p_ prefixes added)."""
    mask = pd.Series(True, index=df.index)
    for key, value in where.items():
        col = key if key in df.columns else f"p_{key}"
        mask &= df[col] == value
    rows = df[mask]
    assert len(rows) == 1, f"{len(rows)} rows match {where}"
    return rows["value"].iloc[0]


# --- fio 2.0.8 (IBM logs) ---------------------------------------------------------------------

def test_sequential_fill_hand_read(logs):
    df = logs["Native"]
    job = df[df.p_job == "sequential-fill"]
    # linux.log:20 "write: io=16384MB, bw=750994KB/s, iops=733 , runt= 22340msec"
    assert one(job, metric="io_bytes") == 16384 * 2**20
    assert one(job, metric="bandwidth") == 750994 * 1024
    assert one(job, metric="iops") == 733
    assert one(job, metric="runtime") == pytest.approx(22.340)
    # :21 "slat (usec): min=96 , max=18313 , avg=150.29, stdev=280.32"
    assert one(job, metric="slat_min") == pytest.approx(96e-6)
    assert one(job, metric="slat_sd") == pytest.approx(280.32e-6)
    # :22 "clat (msec): min=1 , max=39 , avg=21.66, stdev= 3.13"
    assert one(job, metric="clat_mean") == pytest.approx(0.02166)
    assert one(job, metric="clat_max") == pytest.approx(0.039)
    # :29 "| 99.99th=[39168]" under "clat percentiles (usec):"
    assert one(job, metric="clat_percentile", percentile=99.99) == pytest.approx(0.039168)
    assert one(job, metric="clat_percentile", percentile=1.0) == pytest.approx(0.004128)
    # :30 "bw (KB/s)  : min=729676, max=784384, per=100.00%, avg=751028.45, stdev=14579.30"
    assert one(job, metric="bandwidth_interval_sd") == pytest.approx(14579.30 * 1024)
    assert one(job, metric="bandwidth_interval_mean") == pytest.approx(751028.45 * 1024)
    assert one(job, metric="bandwidth_share") == 100.0
    # :31 "lat (msec) : 2=0.40%, 4=0.42%, 10=1.94%, 20=2.96%, 50=94.29%"
    buckets = job[job.metric == "lat_bucket"].set_index("p_le")["value"]
    assert buckets.to_dict() == pytest.approx({0.002: 0.40, 0.004: 0.42, 0.010: 1.94, 0.020: 2.96, 0.050: 94.29})
    assert buckets.sum() == pytest.approx(100.01)
    # :32 "cpu          : usr=3.63%, sys=8.47%, ctx=17254, majf=0, minf=615"
    assert one(job, metric="cpu_usr") == 3.63 and one(job, metric="cpu_sys") == 8.47
    assert one(job, metric="context_switches") == 17254 and one(job, metric="major_faults") == 0
    assert one(job, metric="minor_faults") == 615
    # :33 "IO depths    : 1=0.1%, 2=0.1%, 4=0.1%, 8=0.1%, 16=99.9%, 32=0.0%, >=64=0.0%"
    assert one(job, metric="iodepth_share", depth=16) == 99.9
    assert one(job, metric="iodepth_share", depth=64) == 0.0
    # :36 "issued    : total=r=0/w=16384/d=0, short=r=0/w=0/d=0"
    assert one(job, metric="issued_ios") == 16384
    row = job[job.metric == "bandwidth"].iloc[0]
    assert row.source == "linux.log:20" and row.raw == "bw=750994KB/s" and row.unit == "B/s"
    # header lines 1 and 16-18: the job line, "2.0.8", "Description  : [Sequential fill phase]"
    assert (row.p_rw, row.p_bs, row.p_ioengine, row.p_iodepth) == ("write", 1048576, "libaio", 16)
    assert (row.p_group, row.p_numjobs, row.p_error, row.p_direction) == (0, 1, 0, "write")
    assert row.p_description == "Sequential fill phase" and row.tool_version == "2.0.8"
    assert set(df.p_format) == {"text"} and set(df.trial) == {1}
    assert df.started_at.isna().all()


@pytest.mark.parametrize("env", list(LOGS))
def test_jobs_per_file(logs, env):
    df = logs[env]
    cpu = df[df.metric == "cpu_usr"]
    # eight reports, as "Starting 29 threads" = 1+1+1+1+8+1+8+8 group-reported jobs
    assert cpu.p_job.tolist() == JOBS
    assert cpu.p_numjobs.sum() == 29
    assert cpu.set_index("p_job").p_group.tolist() == list(range(8))
    dirs = df[df.metric == "iops"].groupby("p_job", sort=False).p_direction.apply(list).to_dict()
    assert dirs["mixed-random-rw-32x8"] == ["read", "write"]
    assert dirs["sequential-fill"] == ["write"] and dirs["random-read-16x8"] == ["read"]
    groups = df[df.metric == "group_bandwidth"]
    assert len(groups) == 9 and sorted(set(groups.p_group)) == list(range(8))
    assert df[df.metric == "clat_percentile"].groupby(["p_job", "p_direction"]).size().eq(17).all()


def test_group_status_and_disk_stats(logs):
    df = logs["Native"]
    g7 = df[df.p_group == 7]
    # linux.log:207 "READ: io=17152MB, aggrb=292709KB/s, minb=292709KB/s, maxb=292709KB/s, mint=60003msec, ..."
    assert one(g7, metric="group_bandwidth", direction="read") == 292709 * 1024
    assert one(g7, metric="group_runtime_max", direction="read") == pytest.approx(60.003)
    # :208 "WRITE: io=7354.4MB, aggrb=125507KB/s, ..." (fio 2.x's 1024-based MB)
    assert one(g7, metric="group_io_bytes", direction="write") == pytest.approx(7354.4 * 2**20)
    disk = df[df.p_disk.notna()]
    # :211 "dm-0: ios=13008851/12826110, merge=0/41, ticks=13072440/10314008, in_queue=23402708,
    #       util=99.27%, aggrios=6511545/6416146, ..., aggrutil=54.15%"
    assert one(disk, metric="disk_ios", disk="dm-0", direction="write") == 12826110
    assert one(disk, metric="disk_merges", disk="dm-0", direction="write") == 41
    assert one(disk, metric="disk_ticks", disk="dm-0", direction="read") == pytest.approx(13072.440)
    assert one(disk, metric="disk_in_queue", disk="dm-0") == pytest.approx(23402.708)
    assert one(disk, metric="disk_util", disk="dm-0") == 99.27
    assert one(disk, metric="disk_aggr_util", disk="dm-0") == 54.15
    assert one(disk, metric="disk_aggr_ios", disk="dm-0", direction="read") == 6511545
    # :213 "sdd: ios=6511793/6415899, ... util=53.84%"
    assert one(disk, metric="disk_util", disk="sdd") == 53.84
    assert sorted(set(disk.p_disk)) == ["dm-0", "sdc", "sdd"]


@pytest.mark.parametrize("env", list(LOGS))
def test_iops_and_bandwidth_follow_from_issued_ios(logs, env):
    """fio 2.0.8 prints iops = issued * 1000 / runt(ms) and bw = issued * bs / runt, truncated."""
    df = logs[env]
    jobs = df[df.p_job.notna() & df.p_direction.notna()]
    wide = jobs.pivot_table(index=["p_job", "p_direction"], columns="metric", values="value",
                            aggfunc="first")
    bs = jobs.groupby(["p_job", "p_direction"]).p_bs.first()
    for key, r in wide.iterrows():
        assert r.iops == math.floor(r.issued_ios / r.runtime + 1e-9), key
        kib_per_s = r.issued_ios * bs[key] / 1024 / r.runtime
        assert abs(r.bandwidth / 1024 - kib_per_s) <= 1.0, key
        # io= is printed to 5-6 digits by fio 2.x's num2str
        assert r.io_bytes == pytest.approx(r.issued_ios * bs[key], rel=2e-4), key


def test_kilo_suffixed_latency_and_printed_zeros(logs):
    df = logs["Docker"]
    job = df[df.p_job == "random-write-16x8"]
    # docker.log:99 "clat (usec): min=0 , max=1001.4K, avg=1115.52, stdev=4270.64"
    assert one(job, metric="clat_max") == pytest.approx(1.0014)
    assert one(job, metric="clat_min") == 0.0
    # :102 "|  1.00th=[    0],  5.00th=[  298], ..."
    assert one(job, metric="clat_percentile", percentile=1.0) == 0.0
    # :108 "lat (usec) : 2=1.67%, 20=0.01%, ..."; :110 "lat (msec) : ..., 2000=0.01%"
    assert one(job, metric="lat_bucket", le=2e-6) == 1.67
    assert one(job, metric="lat_bucket", le=2.0) == 0.01
    check_rows(df, "docker.log")


def test_msec_percentiles(logs):
    job = logs["KVM"][lambda d: d.p_job == "sequential-fill"]
    # vm.log:24-29 "clat percentiles (msec):" ... "| 99.99th=[  322]"
    assert one(job, metric="clat_percentile", percentile=99.99) == pytest.approx(0.322)
    # :31 "lat (msec) : 4=0.74%, ..., 250=0.10%" and :32 "lat (msec) : 500=0.10%"
    assert one(job, metric="lat_bucket", le=0.5) == 0.10


# --- the paper's numbers ----------------------------------------------------------------------

@pytest.fixture(scope="module")
def paper():
    """The published values (data/reference/rc25482.csv), as text rows."""
    with open(Path(__file__).resolve().parents[2] / "data" / "reference" / "rc25482.csv", newline="") as fh:
        return list(csv.DictReader(fh))


def test_fig6_iops(logs, paper):
    """Fig 6 IOPS: the group-reported iops= of one run (read + write for the mixed job)."""
    jobs = {"Random Read": ["random-read-16x8"], "Random Write": ["random-write-16x8"],
            "Random Mixed": ["mixed-random-rw-32x8"]}

    def total(df, job):
        return df[(df.metric == "iops") & (df.p_job == job)].value.sum()

    checked = 0
    for row in paper:
        if row["item"] != "Fig 6" or row["env"] == "KVM":  # KVM: a run that is not committed
            continue
        (job,) = next(v for k, v in jobs.items() if k in row["metric"])
        assert total(logs[row["env"]], job) == float(row["value"]), row["metric"]
        checked += 1
    assert checked == 6
    # the committed vm.log gives "42543 / 56160 / 49218" (paper_numbers.csv note), e.g.
    # vm.log:138 "read : io=9971.7MB, bw=170173KB/s, iops=42543 , runt= 60003msec" and
    # 42543 = floor(2552729 issued / 60.003 s); mixed = 34470 read + 14748 write
    vm = logs["KVM"]
    assert [total(vm, j) for j in ("random-read-16x8", "random-write-16x8", "mixed-random-rw-32x8")] == \
        [42543, 56160, 49218]
    rr = vm[vm.p_job == "random-read-16x8"]
    assert one(rr, metric="issued_ios") == 2552729
    assert math.floor(2552729 / one(rr, metric="runtime")) == 42543


def test_fig7_recomputed_percentiles(logs, paper):
    rows = [r for r in paper if r["item"].startswith("Fig 7 (gnuplot")]
    assert len(rows) == 39
    for row in rows:
        pct = float(row["metric"].rsplit(" p", 1)[1])
        df = logs[row["env"]]
        got = one(df, metric="clat_percentile", job="random-read-16", percentile=pct)
        assert got * 1e6 == pytest.approx(float(row["value"])), (row["env"], pct)
    # the text's "median 620 vs 258": KVM and Native p50 in seconds
    assert one(logs["KVM"], metric="clat_percentile", job="random-read-16", percentile=50.0) == pytest.approx(620e-6)
    assert one(logs["Native"], metric="clat_percentile", job="random-read-16", percentile=50.0) == pytest.approx(258e-6)


def test_fig5_bandwidth_and_interval_sd(logs, paper):
    """Fig 5: the bw line's avg and stdev (KB/s / 1000), for the committed Native/Docker runs."""
    names = {"Sequential Read": "seq-read-2", "Sequential Write": "sequential-fill"}
    checked = 0
    for row in paper:
        if row["item"] != "Fig 5" or row["env"] == "KVM":
            continue
        job = next(v for k, v in names.items() if k in row["metric"])
        df = logs[row["env"]]
        mean = one(df, metric="bandwidth_interval_mean", job=job) / 1024 / 1000
        sd = one(df, metric="bandwidth_interval_sd", job=job) / 1024 / 1000
        assert mean == pytest.approx(float(row["value"]), abs=1e-3)
        assert sd == pytest.approx(float(row["err"]), abs=5e-3)
        checked += 1
    assert checked == 4


# --- fio 3.33 runs made here ------------------------------------------------------------------

_KEYS = ["trial", "metric", "p_job", "p_group", "p_job_index", "p_direction", "p_percentile",
         "p_le", "p_ge", "p_depth", "p_disk"]
_NUMBER = re.compile(r"^(?:[A-Za-z_]+=\s*)?([0-9]*\.?[0-9]+)")
_ZERO_SCALE = {"%": 1.0, "count": 1.0, "op/s": 1.0, "B/s": 1024.0, "s": 1e-6}


def assert_json_matches_text(df: pd.DataFrame) -> int:
    """Every text value equals the JSON value of the same run within one unit of the last
    digit the text printed; returns how many pairs were compared."""
    keys = [k for k in _KEYS if k in df.columns]
    text = df[df.p_format == "text"]
    js = df[df.p_format == "json"]
    merged = text.merge(js, on=keys, how="outer", suffixes=("_t", "_j"), indicator=True)
    only_text = set(merged[merged._merge == "left_only"].metric)
    only_json = set(merged[merged._merge == "right_only"].metric)
    assert all(m.startswith("group_") for m in only_text), only_text  # JSON has no group lines
    assert all(m.endswith("_bin_count") for m in only_json), only_json  # json+ histograms
    both = merged[merged._merge == "both"]
    for r in both.itertuples():
        num = _NUMBER.match(r.raw_t.strip())
        assert num, r.raw_t
        printed = float(num.group(1))
        decimals = len(num.group(1).partition(".")[2])
        ulp = 10.0**-decimals
        scale = r.value_t / printed if printed else _ZERO_SCALE[r.unit_t]
        assert abs(r.value_t - r.value_j) <= ulp * scale * 1.0000001, (r.metric, r.source_t, r.raw_t, r.raw_j)
    return len(both)


@pytest.mark.parametrize("name", MIXED)
def test_json_and_text_of_the_same_run_agree(fixtures, name):
    df = parse_file("fio", fixtures / "fio" / name, name=name)
    assert set(df.p_format) == {"json", "text"}
    assert set(df.trial) == {1} and set(df.tool_version) == {"3.33"}
    assert assert_json_matches_text(df) > 50
    # the parameters agree too
    params = ["p_rw", "p_bs", "p_ioengine", "p_iodepth", "p_numjobs", "p_error"]
    jobs = df[df.metric == "cpu_usr"].set_index("p_format")[params]
    assert jobs.loc[["json"]].to_numpy().tolist() == jobs.loc[["text"]].to_numpy().tolist()


def test_randrw_hand_read(fixtures):
    name = "randrw-libaio.jsonplus-normal.txt"
    df = parse_file("fio", fixtures / "fio" / name, name=name)
    text, js = df[df.p_format == "text"], df[df.p_format == "json"]
    # :1005 "read: IOPS=47.8k, BW=187MiB/s (196MB/s)(187MiB/1001msec)"
    assert one(text, metric="iops", direction="read") == 47800
    assert one(text, metric="bandwidth", direction="read") == 187 * 2**20
    assert one(text, metric="runtime", direction="read") == pytest.approx(1.001)
    # :33 "iops" : 47772.227772, :35 "total_ios" : 47820 (read section of the JSON)
    row = js[(js.metric == "iops") & (js.p_direction == "read")].iloc[0]
    assert row.value == pytest.approx(47772.227772) and row.source == f"{name}:33"
    assert row.raw == "47772.227772"
    assert one(js, metric="issued_ios", direction="read") == 47820
    # 47820 I/Os in 1001 ms
    assert one(js, metric="iops", direction="read") == pytest.approx(47820 / 1.001)
    # :1006 "slat (nsec): min=1052, max=4143.2k, ..." ; JSON "max" : 4143197
    assert one(text, metric="slat_max", direction="read") == pytest.approx(4143.2e-6)
    assert one(js, metric="slat_max", direction="read") == pytest.approx(4143197e-9)
    # :1015 "bw (  KiB/s): min=204696, ..., samples=1" and "iops : min=51174": 51174 x 4 KiB
    assert one(text, metric="bandwidth_interval_min", direction="read") == 204696 * 1024 == 51174 * 4096
    # :1036 "issued rwts: total=47820,20454,0,0 short=0,0,0,0 dropped=0,0,0,0"
    assert one(text, metric="issued_ios", direction="write") == 20454
    assert one(text, metric="dropped_ios", direction="write") == 0
    # :1044 "vda: ios=41767/17856, merge=0/0, ticks=3256/1548, in_queue=4817, util=79.76%"
    assert one(text, metric="disk_ios", direction="read") == 41767
    assert one(text, metric="disk_ticks", direction="write") == pytest.approx(1.548)
    assert (df.p_job.dropna() == "mixed").all() and set(df.p_rw.dropna()) == {"randrw"}


def test_jsonplus_bins_and_ecdf(fixtures):
    name = "randrw-libaio.jsonplus-normal.txt"
    text = (fixtures / "fio" / name).read_text()
    df = parse_text("fio", text, name)
    bins = df[df.metric == "clat_bin_count"]
    # the histogram holds every I/O: its counts sum to the issued I/Os per direction
    sums = bins.groupby("p_direction").value.sum().to_dict()
    assert sums == {"read": 47820, "write": 20454}
    # each bin row points at its own line: the first read bin follows the first "bins" : {
    first = bins[bins.p_direction == "read"].iloc[0]
    opening = _line_of(text, '"bins" : {')
    assert first.source == f"{name}:{opening + 1}"
    assert first.p_latency * 1e9 == pytest.approx(int(text.splitlines()[opening].split('"')[1]))
    ecdf = latency_bins(text, name)
    assert list(ecdf.columns[:5]) == ["job", "direction", "latency_s", "count", "ecdf"]
    assert len(ecdf) == len(bins)
    for direction, part in ecdf.groupby("direction"):
        assert part.latency_s.is_monotonic_increasing and part.ecdf.is_monotonic_increasing
        assert part.ecdf.iloc[-1] == pytest.approx(1.0)
        n = part["count"].sum()
        # fio's own percentiles come from these bins: the first bin whose cumulative count
        # reaches p% of the I/Os
        pct = df[(df.metric == "clat_percentile") & (df.p_format == "json") & (df.p_direction == direction)]
        for p, value in zip(pct.p_percentile, pct.value, strict=True):
            cum = part["count"].cumsum()
            expected = part.latency_s[cum >= p / 100 * n].iloc[0]
            assert value == pytest.approx(expected), (direction, p)


def _line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_group_reporting(fixtures):
    df = parse_file("fio", fixtures / "fio" / "group-reporting.json-normal.txt")
    # "readers: (groupid=0, jobs=3): err= 0: ..." and JSON "numjobs" : "3" with one report
    assert set(df.p_numjobs.dropna()) == {3}
    assert set(df.p_description.dropna()) == {"three random readers"}
    assert len(df[df.metric == "iops"]) == 2  # one report per format
    # psync has no slat line in the text and N=0 slat in the JSON: no slat rows at all
    assert not df.metric.str.startswith("slat").any()
    text = df[df.p_format == "text"]
    # "READ: bw=97.3MiB/s (102MB/s), 97.3MiB/s-97.3MiB/s ..., io=97.4MiB (102MB), run=1001-1001msec"
    assert one(text, metric="group_bandwidth") == pytest.approx(97.3 * 2**20)
    assert one(text, metric="group_bandwidth") == one(text, metric="bandwidth")


def test_two_groups(fixtures):
    df = parse_file("fio", fixtures / "fio" / "two-groups.json-normal.txt")
    jobs = df[df.metric == "cpu_usr"]
    assert sorted(zip(jobs.p_format, jobs.p_group, jobs.p_job, jobs.p_rw, jobs.p_bs, jobs.p_ioengine,
                      strict=True)) == [
        ("json", 0, "writer", "randwrite", 4096, "libaio"), ("json", 1, "reader", "read", 65536, "psync"),
        ("text", 0, "writer", "randwrite", 4096, "libaio"), ("text", 1, "reader", "read", 65536, "psync")]
    groups = df[df.metric == "group_bandwidth"]
    assert groups.set_index("p_group").p_direction.to_dict() == {0: "write", 1: "read"}


def test_numjobs_without_group_reporting(fixtures):
    df = parse_file("fio", fixtures / "fio" / "numjobs2.normal.txt")
    iops = df[df.metric == "iops"]
    # two "randread: (groupid=0, jobs=1)" reports: IOPS=62.2k and IOPS=62.3k
    assert iops.set_index("p_job_index").value.to_dict() == {1: 62200, 2: 62300}
    assert set(iops.p_numjobs) == {1}
    # the group line sums them: "READ: bw=486MiB/s ..., 243MiB/s-243MiB/s, io=487MiB"
    assert one(df, metric="group_bandwidth") == pytest.approx(df[df.metric == "bandwidth"].value.sum(), rel=2e-3)
    issued = df[df.metric == "issued_ios"].value.sum()
    assert one(df, metric="group_io_bytes") == pytest.approx(issued * 4096, rel=2e-3)


def test_fsync_section_and_kb_base_1000(fixtures):
    df = parse_file("fio", fixtures / "fio" / "fsync-kb1000.json-normal.txt")
    text = df[df.p_format == "text"]
    # "write: IOPS=37.7k, BW=154MB/s (147MiB/s)(154MB/1001msec)": kb_base=1000 puts SI first
    assert one(text, metric="bandwidth") == 154e6
    assert one(text, metric="io_bytes") == 154e6
    # "bw (   kB/s): min=159488 ..." is KiB/s despite the label: 159488 KiB = 39872 x 4096 B
    # ("iops : min=39872"), and the JSON's bw_min is the same 159488 (KiB/s)
    assert one(text, metric="bandwidth_interval_min") == 159488 * 1024 == 39872 * 4096
    # "fsync/fdatasync/sync_file_range:" / "sync (usec): min=124, max=5373, ..." and
    # "issued rwts: total=0,37696,0,4712": the 4th count is the fsyncs
    sync = df[df.p_direction == "sync"]
    assert set(sync.metric) == {"issued_ios", "lat_min", "lat_max", "lat_mean", "lat_sd", "lat_percentile"}
    assert one(sync[sync.p_format == "text"], metric="issued_ios") == 4712
    assert one(sync[sync.p_format == "json"], metric="issued_ios") == 4712
    assert one(sync[sync.p_format == "text"], metric="lat_max") == pytest.approx(5373e-6)


def test_unified_rw_reporting(fixtures):
    df = parse_file("fio", fixtures / "fio" / "unified-rw.json-normal.txt")
    assert set(df[df.p_job.notna()].p_direction.dropna()) == {"mixed"}
    assert set(df[df.metric == "group_bandwidth"].p_direction) == {"mixed"}
    issued = df[df.metric == "issued_ios"].set_index("p_format").value
    assert issued["text"] == issued["json"] > 0


def test_json_after_a_warning_line(fixtures):
    name = "psync-note.json"
    text = (fixtures / "fio" / name).read_text()
    assert text.startswith("note: both iodepth >= 1 and synchronous I/O engine")
    df = parse_text("fio", text, name)
    assert set(df.p_format) == {"json"}
    # :30 "iops" : 11757.242757, :32 "total_ios" : 11769
    row = df[df.metric == "iops"].iloc[0]
    assert (row.value, row.source, row.p_iodepth) == (pytest.approx(11757.242757), f"{name}:30", 8)
    assert one(df, metric="issued_ios") == 11769
    # the empty write/trim sections give no rows
    assert set(df[df.p_job.notna()].p_direction.dropna()) == {"read"}
    assert detect(text) == "fio"


# --- errors, truncation, several runs ---------------------------------------------------------

def test_truncated_json_names_the_line(fixtures):
    text = (fixtures / "fio" / "randrw-libaio.jsonplus-normal.txt").read_text()
    cut = "".join(text.splitlines(keepends=True)[:200])
    with pytest.raises(ParseError, match=r"^x\.txt:200: fio JSON output is broken or truncated"):
        parse_text("fio", cut, "x.txt")
    broken = text.replace('"iops" : 47772.227772', '"iops" : 47772.22x7772')
    with pytest.raises(ParseError, match=r"^x\.txt:33: fio JSON output is broken"):
        parse_text("fio", broken, "x.txt")


def test_malformed_line_names_the_line():
    text = ("sequential-fill: (groupid=0, jobs=1): err= 0: pid=9526\n"
            "  write: io=16384MB, bw=750994KB/s, iops=7x3 , runt= 22340msec\n")
    with pytest.raises(ParseError, match=r"^x\.log:2: iops: expected a number, found '7x3'"):
        parse_text("fio", text, "x.log")
    text = ("j: (groupid=0, jobs=1): err= 0: pid=1\n"
            "  read : io=1MB, bw=1KB/s, iops=1 , runt= 1msec\n"
            "    clat (usec): min=1 , max=2\n")
    with pytest.raises(ParseError, match=r"^x\.log:3: clat line: expected min=, max=, avg=, stdev="):
        parse_text("fio", text, "x.log")


def test_not_fio_is_a_parse_error(ibm):
    # nothing in the file is fio's: no line is wrong, so none is named, and it is no failed run
    with pytest.raises(ParseError, match=r"vm\.log: no fio output found") as exc:
        parse_file("fio", ibm / "linpack/results/vm.log")
    assert type(exc.value) is ParseError and exc.value.line is None
    with pytest.raises(ParseError, match=r"^e: no fio output found"):
        parse_text("fio", "", "e")


def _corrupt(text: str, lineno: int, old: str, new: str) -> str:
    """Replace ``old`` by ``new`` on line ``lineno`` (1-based) of ``text``, checking it is there."""
    lines = text.splitlines(keepends=True)
    assert old in lines[lineno - 1], lines[lineno - 1]
    return with_line(lines, lineno, lines[lineno - 1].replace(old, new))


def test_bad_json_value_names_its_own_line(fixtures):
    text = (fixtures / "fio" / "randrw-libaio.jsonplus-normal.txt").read_text()
    # :465 '        "iops" : 20433.566434,' (the write direction, deep in the document)
    bad = _corrupt(text, 465, "20433.566434", '"20433.566434"')
    with pytest.raises(ParseError) as exc:
        parse_text("fio", bad, "x.txt")
    assert str(exc.value) == "x.txt:465: JSON 'iops': expected a number, found '20433.566434'"
    # :498 '            "99.900000" : 2703360,' (a write clat percentile)
    bad = _corrupt(text, 498, "2703360", "true")
    with pytest.raises(ParseError) as exc:
        parse_text("fio", bad, "x.txt")
    assert str(exc.value) == "x.txt:498: JSON '99.900000': expected a number, found True"
    # :24 '        "iodepth" : "8",' in "job options" (was reported at the job's first line)
    bad = _corrupt(text, 24, '"8"', '"99999999999999999999"')
    with pytest.raises(ParseError) as exc:
        parse_text("fio", bad, "x.txt")
    assert str(exc.value) == "x.txt:24: iodepth: '99999999999999999999' is out of range"
    # group-reporting.json-normal.txt:26 '        "numjobs" : "3",'
    text = (fixtures / "fio" / "group-reporting.json-normal.txt").read_text()
    bad = _corrupt(text, 26, '"3"', '"99999999999999999999"')
    with pytest.raises(ParseError) as exc:
        parse_text("fio", bad, "g.txt")
    assert str(exc.value) == "g.txt:26: numjobs: '99999999999999999999' is out of range"


def test_bad_text_value_names_its_own_line(fixtures):
    text = (fixtures / "fio" / "numjobs2.normal.txt").read_text()
    # :39 "   bw (  KiB/s): min=225400, max=225400, per=45.26%, ..." (the second job's report)
    bad = _corrupt(text, 39, "max=225400", "max=22x400")
    with pytest.raises(ParseError) as exc:
        parse_text("fio", bad, "n.txt")
    assert str(exc.value) == "n.txt:39: bw max: expected a number, found '22x400'"


# --- failed runs (made here: see tests/fixtures/fio/README.md) ---------------------------------

FAILED = {
    # a 64 MiB write job on an 8 MiB tmpfs: fio's summary says err=28 (its figures cover 8 MiB)
    "enospc.normal.txt": "enospc.normal.txt:8: the run did not finish: w: (groupid=0, jobs=1): "
    "err=28 (file:io_u.c:1876, func=io_u error, error=No space left on device): pid=9772: "
    "Tue Nov 24 19:21:59 2026",
    # --output=FILE: fio's stderr lines are not in the file, its summary line is
    "enospc.output.txt": "enospc.output.txt:6: the run did not finish: w: (groupid=0, jobs=1): "
    "err=28 (file:io_u.c:1876, func=io_u error, error=No space left on device): pid=10101: "
    "Tue Nov 24 19:22:04 2026",
    # :12 '      "error" : 28,'; :2 is fio's own line
    "enospc.json": "enospc.json:12: the run did not finish: job 'w' (group 0) reports "
    "\"error\" : 28; fio printed at line 2: fio: pid=9794, err=28/file:io_u.c:1876, "
    "func=io_u error, error=No space left on device",
    "enospc-jsonplus.json": "enospc-jsonplus.json:12: the run did not finish: job 'w' (group 0) "
    "reports \"error\" : 28; fio printed at line 2: fio: pid=9802, err=28/file:io_u.c:1876, "
    "func=io_u error, error=No space left on device",
    # job "good" finished (:18 '"error" : 0', :525 'err= 0'), job "full" did not (:265, :542)
    "partial-enospc.json-normal.txt": "partial-enospc.json-normal.txt:265: the run did not "
    "finish: job 'full' (group 0) reports \"error\" : 28; fio printed at line 8: fio: "
    "pid=14110, err=28/file:io_u.c:1876, func=io_u error, error=No space left on device",
    # SIGKILL after 2 s: only the job line, "fio-3.33" and "Starting 1 process"
    "sigkill.normal.txt": "sigkill.normal.txt: the run did not finish: fio printed its header "
    "(job lines, version, 'Starting ...') but no job summary: the jobs never finished",
}


@pytest.mark.parametrize("name", FAILED)
def test_failed_run_says_what_fio_printed(fixtures, name):
    path = fixtures / "fio" / name
    assert detect(path.read_text()) == "fio"  # still fio's output: `parse auto` names the failure
    with pytest.raises(RunFailed) as exc:
        parse_file("fio", path, name=name)
    assert str(exc.value) == FAILED[name]
    lines = path.read_text().splitlines()
    if exc.value.line is not None:
        # the named line is there, and says "error" or "signal" itself
        assert re.search(r"err=28|\"error\" : 28|terminating on signal 2", lines[exc.value.line - 1])


def test_a_partly_failed_run_keeps_no_rows(fixtures):
    text = (fixtures / "fio" / "partial-enospc.json-normal.txt").read_text()
    lines = text.splitlines()
    assert lines[17].strip() == '"error" : 0,' and lines[524].startswith("good: (groupid=0, jobs=1): err= 0:")
    assert lines[264].strip() == '"error" : 28,' and lines[541].startswith("full: (groupid=0, jobs=1): err=28 (")
    # the good job's report alone parses (the text report cut before the failed job's)
    good = parse_text("fio", "\n".join(lines[:2] + lines[523:541]) + "\n", "good")
    assert set(good.p_job) == {"good"} and set(good.p_error) == {0}
    # but the file as fio wrote it is a failed run: its good job does not stand for the run
    with pytest.raises(RunFailed, match=r"^p:265: "):
        parse_text("fio", text, "p")


@pytest.mark.parametrize("name", FAILED)
def test_failed_run_prefixes(fixtures, name):
    """No cut of a failed run's output yields a row of a job that failed."""
    text = (fixtures / "fio" / name).read_text()
    n = len(text.splitlines())
    for cut in (range(n + 1) if n <= 60 else sorted({round(i * n / 60) for i in range(61)})):
        df = parse_prefix("fio", text, cut)
        if df is not None:
            check_rows(df, "prefix")
            assert (df.p_error.dropna() == 0).all(), cut


@pytest.mark.tool
def test_live_full_disk_is_a_failed_run(tmp_path):
    """The full-disk failure again, on a small tmpfs mounted for the test (root only)."""
    if shutil.which("fio") is None or not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("needs fio and root (to mount a tmpfs)")
    mnt = tmp_path / "full"
    mnt.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mnt)], check=True, timeout=30)
    try:
        out = subprocess.run(["fio", "--name=w", "--rw=write", "--size=16m", f"--directory={mnt}",
                              "--bs=64k", "--output-format=json"],
                             capture_output=True, text=True, timeout=60)
    finally:
        subprocess.run(["umount", str(mnt)], check=True, timeout=30)
    assert out.returncode != 0
    with pytest.raises(RunFailed, match=r'^live:\d+: the run did not finish: job \'w\' \(group 0\) '
                                        r'reports "error" : 28'):
        parse_text("fio", out.stdout, "live")


def test_unterminated_last_line_is_ignored(ibm):
    text = (ibm / "fio/results/linux.log").read_text()
    assert text.endswith("util=53.84%\n")
    full = parse_text("fio", text, "l")
    cut = parse_text("fio", text[: -len("4%\n")], "l")  # "... util=53.8" with no newline
    assert "sdd" in set(full.p_disk) and "sdd" not in set(cut.p_disk)
    assert len(cut) == len(full) - 8  # the sdd line's ios, merge, ticks (r/w), in_queue, util
    assert len(cut) == len(full[full.source != "l:213"])


def test_runs_appended_to_one_file_are_trials(ibm):
    linux = (ibm / "fio/results/linux.log").read_text()
    vm = (ibm / "fio/results/vm.log").read_text()
    both = parse_text("fio", linux + vm, "both")
    assert set(both.trial) == {1, 2}
    second = both[both.trial == 2].value.to_numpy()
    assert second.tolist() == parse_text("fio", vm, "vm").value.tolist()


@pytest.mark.parametrize("name", LOGS.values())
def test_every_prefix_ibm(ibm, name):
    check_all_prefixes("fio", (ibm / "fio/results" / name).read_text(), limit=40)


@pytest.mark.parametrize("name", [*MIXED, "numjobs2.normal.txt", "psync-note.json"])
def test_every_prefix_fixtures(fixtures, name):
    check_all_prefixes("fio", (fixtures / "fio" / name).read_text(), limit=20)


def test_random_bytes():
    hypothesis_random_bytes("fio")()


def test_detect(ibm, fixtures):
    assert detect((ibm / "fio/results/docker.log").read_text()) == "fio"
    for path in (fixtures / "fio").iterdir():
        if path.suffix in (".txt", ".json"):
            assert detect(path.read_text()) == "fio", path.name
    from overhead.parsers import fio
    assert fio.detect((ibm / "linpack/results/vm.log").read_text()) == 0.0


# --- live -------------------------------------------------------------------------------------

@pytest.mark.tool
def test_live_fio_json_and_text_agree(tmp_path):
    if shutil.which("fio") is None:
        pytest.skip("fio is not installed (Debian package fio)")
    data = tmp_path / "data"
    data.write_bytes(b"\0" * (8 << 20))
    out = tmp_path / "out.txt"
    cmd = ["fio", "--name=live", f"--filename={data}", "--size=8M", "--rw=randrw", "--bs=4k",
           "--ioengine=psync", "--runtime=1", "--time_based", "--output-format=json+,normal",
           f"--output={out}"]
    subprocess.run(cmd, check=True, timeout=60, capture_output=True)
    df = parse_file("fio", out)
    assert set(df.p_format) == {"json", "text"}
    assert assert_json_matches_text(df) > 40
    assert set(df[df.metric == "iops"].p_direction) == {"read", "write"}
    assert latency_bins(out.read_text()).groupby("direction").ecdf.max().tolist() == pytest.approx([1.0, 1.0])


@pytest.mark.parametrize(("name", "line", "runtime"), [
    # SIGINT after 2 s of a 10 s job: fio prints "fio: terminating on signal 2", then its whole
    # report of the cut run (err= 0): kept, marked interrupted (issue 26)
    ("sigint.normal.txt", 5, None),
    ("sigint.json", 2, 2.462),  # :2 "fio: terminating on signal 2", '"runtime" : 2462'
])
def test_a_report_written_after_ctrl_c_is_kept_and_marked_interrupted(fixtures, name, line,
                                                                     runtime):
    from overhead.parsers import cut_short_of
    path = fixtures / "fio" / name
    df = parse_file("fio", path, name=name)
    assert len(df) > 0
    assert cut_short_of(df) == (f"{name}:{line}: the run was cut short: fio: terminating on "
                                "signal 2: the jobs were interrupted; their report after this "
                                "line is kept, but it measures a run stopped early")
    assert path.read_text().splitlines()[line - 1] == "fio: terminating on signal 2"
    if runtime is not None:
        assert df.loc[df.metric == "runtime", "value"].tolist() == [runtime]


def test_a_text_report_cut_before_its_run_status_group_is_cut_short(fixtures):
    from overhead.parsers import cut_short_of
    lines = (fixtures / "fio" / "numjobs2.normal.txt").read_text().splitlines(keepends=True)
    status = next(i for i, s in enumerate(lines) if s.startswith("Run status group 0"))
    full = parse_text("fio", "".join(lines), "n")
    assert cut_short_of(full) is None
    for cut in (status // 2, status, status + 1):
        df = parse_text("fio", "".join(lines[:cut]), "n")
        assert re.match(r"^n: the run was cut short: the job summary at line \d+ \(group 0\) is "
                        r"not followed by 'Run status group 0'", cut_short_of(df)), cut_short_of(df)
        assert 0 < len(df) < len(full)
