"""RC25482 block I/O (Figs 5-7) from the authors' fio 2.0.8 logs and spreadsheet.

Expected values are read off the raw logs here with their own small reader (not the project's
parser), quoted where a single line is meant, and compared with what lib/overhead/rc25482/blockio
computes from the tidy table.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from overhead.rc25482 import blockio

LOGS = {"Native": "linux.log", "Docker": "docker.log", "KVM": "vm.log"}


@pytest.fixture(scope="module")
def tidy(ibm_tidy):
    return ibm_tidy


def job_block(ibm, env: str, job: str) -> str:
    """The text of one job's report in the raw log (from its 'job: (groupid=' line to the next)."""
    text = (ibm / "fio" / "results" / LOGS[env]).read_text()
    m = re.search(rf"^{re.escape(job)}: \(groupid=.*?(?=^\S+: \(groupid=|^Run status)", text, re.S | re.M)
    assert m, (env, job)
    return m.group(0)


def raw_percentiles(block: str, direction: str = "read") -> dict[float, float]:
    part = block.split(f"{direction}:" if direction == "write" else "read :", 1)[1]
    part = part.split("bw (KB/s)", 1)[0]
    return {float(p): float(v) for p, v in re.findall(r"([\d.]+)th=\[\s*(\d+)\]", part)}


# --- Fig 5 --------------------------------------------------------------------------------------

def test_fig5_values_are_the_logs_bw_interval_lines(ibm, fio, sheet):
    f5 = blockio.sequential_throughput(fio, sheet)
    assert len(f5) == 6
    for _, row in f5.iterrows():
        block = job_block(ibm, row["environment"], row["job"])
        avg, sd = map(float, re.search(r"bw \(KB/s\)\s*:.*avg=([\d.]+), stdev=([\d.]+)", block).groups())
        run_bw = float(re.search(r"bw=(\d+)KB/s", block).group(1))
        # fio 2.0.8's KB is 1024 bytes; the figure is in MB/s = 1e6 B/s
        assert row["bandwidth_mb_s"] == pytest.approx(avg * 1024 / 1e6, rel=1e-12)
        assert row["interval_sd_mb_s"] == pytest.approx(sd * 1024 / 1e6, rel=1e-12)
        assert row["run_bandwidth_mb_s"] == pytest.approx(run_bw * 1024 / 1e6, rel=1e-12)
        assert row["n_runs"] == 1


def test_fig5_jobs_and_spreadsheet_side_by_side(fio, sheet):
    f5 = blockio.sequential_throughput(fio, sheet).set_index(["test", "environment"])
    assert f5.loc[("Sequential Read", "Native"), "job"] == "seq-read-2"
    assert f5.loc[("Sequential Read", "Native"), "iodepth"] == 2
    assert f5.loc[("Sequential Write", "Native"), "job"] == "sequential-fill"
    assert f5.loc[("Sequential Write", "Native"), "iodepth"] == 16
    # the authors' numbers as typed (fio KB/s / 1000), kept verbatim
    assert f5.loc[("Sequential Read", "Native"), "spreadsheet_raw"] == "806.935 (sd 0.37)"
    assert f5.loc[("Sequential Write", "KVM"), "spreadsheet_raw"] == "740.243 (sd 60.383)"
    # Native and Docker: the spreadsheet is the log (rounding of the typed value only)
    for env in ("Native", "Docker"):
        for test in ("Sequential Read", "Sequential Write"):
            assert abs(f5.loc[(test, env), "pct_vs_spreadsheet"]) < 1e-3
    # KVM: the committed vm.log (avg=785765.71 / 728881.96) is below the uncommitted run's 801.946 / 740.243
    assert f5.loc[("Sequential Read", "KVM"), "pct_vs_spreadsheet"] == pytest.approx(
        100 * (785765.71 / 801946 - 1), abs=1e-3)
    assert f5.loc[("Sequential Write", "KVM"), "pct_vs_spreadsheet"] == pytest.approx(
        100 * (728881.96 / 740243 - 1), abs=1e-3)
    # "KVM has roughly four times the performance variance": within-run SD ratios
    assert f5.loc[("Sequential Write", "KVM"), "sd_ratio_vs_native"] == pytest.approx(64919.14 / 14579.30)
    assert f5.loc[("Sequential Write", "KVM"), "spreadsheet_sd_ratio_vs_native"] == pytest.approx(60.383 / 14.579,
                                                                                                rel=1e-6)


def test_fig5_no_ci_and_no_test_with_one_run(fio, sheet):
    f5 = blockio.sequential_throughput(fio, sheet)
    assert f5["ci95_low"].isna().all() and f5["ci95_high"].isna().all()
    assert f5["ci_reason"].str.contains("n=1 run").all()
    # one run a side: no interval, so no verdict either way (neither sameness nor a difference)
    assert set(f5.loc[f5.environment != "Native", "verdict"]) == {"not tested"}
    assert set(f5.loc[f5.environment != "Native", "verdict_detail"]) == {f"not tested: {blockio.NOT_TESTABLE}"}
    assert set(f5.loc[f5.environment == "Native", "verdict"]) == {"baseline"}
    # the margin a test would use: margins.yml's block-io rule (the paper's "no overhead")
    assert (f5["margin_low_pct"] == -3).all() and (f5["margin_high_pct"] == 3).all()
    f7 = blockio.latency_comparison(fio)
    assert set(f7.loc[f7.environment != "Native", "verdict"]) == {"not tested"}
    assert f5["error_bar"].str.contains("within one run").all()


def test_fig5_without_spreadsheet(fio):
    f5 = blockio.sequential_throughput(fio, None)
    assert f5["spreadsheet_mb_s"].isna().all() and f5["bandwidth_mb_s"].notna().all()


def test_fig5_columns(fio, sheet):
    assert list(blockio.sequential_throughput(fio, sheet).columns) == [
        "test", "job", "block_size_bytes", "iodepth", "numjobs", "environment", "n_runs", "bandwidth_mb_s",
        "interval_sd_mb_s", "interval_min_mb_s", "interval_max_mb_s", "error_bar", "run_bandwidth_mb_s",
        "ci95_low", "ci95_high", "ci_reason", "spreadsheet_mb_s", "spreadsheet_sd_mb_s", "spreadsheet_raw",
        "pct_vs_spreadsheet", "source", "spreadsheet_source", "ratio_vs_native", "pct_vs_native",
        "spreadsheet_pct_vs_native", "sd_ratio_vs_native", "spreadsheet_sd_ratio_vs_native", "margin_low_pct",
        "margin_high_pct", "verdict", "verdict_detail"]


# --- Fig 6 --------------------------------------------------------------------------------------

# committed logs (group report of the 8 jobs; mixed = read + write) and the spreadsheet, as in
# paper_numbers.csv: e.g. linux.log:136 "read : io=19699MB, bw=336178KB/s, iops=84044 , runt= 60002msec"
COMMITTED = {"Native": (84044, 112034, 73177 + 31376), "Docker": (84092, 112048, 73173 + 31345),
             "KVM": (42543, 56160, 34470 + 14748)}
SPREADSHEET = {"Native": (84044, 112034, 104553), "Docker": (84092, 112048, 104518),
               "KVM": (46173, 59321, 50737)}


def test_fig6_iops_committed_and_spreadsheet(ibm, fio, sheet):
    f6 = blockio.random_iops(fio, sheet)
    tests = [t for t, _ in blockio.RANDOM]
    for env in blockio.ENVIRONMENTS:
        rows = f6[f6.environment == env].set_index("test").loc[tests]
        assert rows["iops"].tolist() == list(COMMITTED[env])
        assert rows["spreadsheet_iops"].tolist() == list(SPREADSHEET[env])
        for test, job in blockio.RANDOM:
            raw = sum(int(x) for x in re.findall(r"iops=(\d+)", job_block(ibm, env, job)))
            assert rows.loc[test, "iops"] == raw
    assert COMMITTED["KVM"][2] == 49218
    mixed = f6[(f6.test == "Random Mixed 70/30") & (f6.environment == "Native")].iloc[0]
    assert (mixed["read_iops"], mixed["write_iops"], mixed["outstanding_ios"]) == (73177, 31376, 256)
    assert set(f6.loc[f6.test != "Random Mixed 70/30", "outstanding_ios"]) == {128}
    kvm = f6[f6.environment == "KVM"]
    # "KVM delivers only half as many IOPS": 47-53% fewer in both versions
    assert kvm["pct_vs_native"].between(-53.5, -49).all()
    assert kvm["spreadsheet_pct_vs_native"].between(-52, -45).all()
    docker = f6[f6.environment == "Docker"]
    assert docker["pct_vs_native"].abs().max() < 0.1


def test_fig6_columns(fio, sheet):
    assert list(blockio.random_iops(fio, sheet).columns) == [
        "test", "job", "block_size_bytes", "iodepth", "numjobs", "outstanding_ios", "environment", "n_runs",
        "iops", "read_iops", "write_iops", "ci95_low", "ci95_high", "ci_reason", "spreadsheet_iops",
        "pct_vs_spreadsheet", "source", "spreadsheet_source", "ratio_vs_native", "pct_vs_native",
        "spreadsheet_pct_vs_native", "margin_low_pct", "margin_high_pct", "verdict", "verdict_detail"]


# --- Fig 7 --------------------------------------------------------------------------------------

def test_fig7_percentiles_are_the_logs(ibm, fio):
    lat = blockio.latency_percentiles(fio)
    assert set(lat.environment) == set(blockio.ENVIRONMENTS) and (lat.job == "random-read-16").all()
    for env in blockio.ENVIRONMENTS:
        raw = raw_percentiles(job_block(ibm, env, "random-read-16"))
        rows = lat[lat.environment == env]
        assert dict(zip(rows.percentile, rows.latency_us, strict=True)) == raw
    medians = lat[lat.percentile == 50].set_index("environment")["latency_us"]
    assert medians.to_dict() == {"Native": 258.0, "Docker": 262.0, "KVM": 620.0}
    # ECDF points: where fio printed one value for several percentiles, only the largest p is a point
    assert lat["ecdf"].dropna().between(0, 1).all()
    assert (lat.dropna(subset=["ecdf"]).groupby("environment")["latency_us"].is_monotonic_increasing).all()


def test_fig7_ratios_and_littles_law_inside_fio(fio):
    r = blockio.latency_comparison(fio).set_index(["environment", "statistic"])
    assert r.loc[("KVM", "p50"), "ratio_vs_native"] == pytest.approx(620 / 258)
    assert r.loc[("KVM", "p90"), "ratio_vs_native"] == pytest.approx(804 / 306)
    assert r.loc[("KVM", "p99"), "ratio_vs_native"] == pytest.approx(1064 / 358)
    # the paper's "2-3x" holds from the median to the 99th percentile
    assert all(2 <= r.loc[("KVM", s), "ratio_vs_native"] <= 3 for s in ("p50", "p90", "p99"))
    # Little's law inside one fio job: 16 outstanding I/Os / IOPS is the mean time an I/O is
    # outstanding, which must agree with fio's own mean total latency (slat + clat) to within a few
    # percent (ramp-up and the last I/Os are the only difference)
    for env in blockio.ENVIRONMENTS:
        little = r.loc[(env, "Little's law iodepth / IOPS"), "value_us"]
        mean = r.loc[(env, "total latency mean"), "value_us"]
        assert little == pytest.approx(mean, rel=0.02), env
    assert r.loc[("Native", "Little's law iodepth / IOPS"), "value_us"] == pytest.approx(16 / 58729 * 1e6)
    assert r["n_runs"].eq(1).all() and r["note"].str.contains("no confidence").all()


def test_fig7_spreadsheet_version_mixes_jobs(fio, sheet):
    found = blockio.identify_spreadsheet_latency(fio, sheet)
    ident = found.set_index("environment")
    assert ident.loc["Native", "matching_job"] == "random-read-16x8"
    assert ident.loc["Native", "outstanding_ios"] == 128
    assert ident.loc["Native", "n_equal"] == 12  # p80 typed as 1728; linux.log:144 says 80.00th=[ 1720]
    assert ident.loc["Native", "mismatches"] == "p80: sheet 1728 us, log 1720 us"
    assert ident.loc["Docker", "matching_job"] == "random-read-16"
    assert ident.loc["Docker", "n_equal"] == 13
    assert ident.loc["KVM", "matching_job"] == "none committed"
    ss = blockio.spreadsheet_latency_percentiles(sheet, found)
    assert ss.groupby("environment").size().to_dict() == {"Native": 13, "Docker": 13, "KVM": 13}
    assert ss.loc[(ss.environment == "KVM") & (ss.percentile == 50), "latency_us"].item() == 2448
    assert set(ss.job) == {"random-read-16x8", "random-read-16", "uncommitted run"}


def test_fig7_distributions_barely_overlap(fio):
    gap = blockio.overlap(fio)
    assert gap["env_p1_us"] == 358 and gap["native_p99_us"] == 358
    assert gap["native_share_below_env_p1"] == 95.0


def test_missing_job_raises(fio):
    with pytest.raises(blockio.FioDataError, match="no-such-job"):
        blockio.job_value(fio, "Native", "no-such-job", "iops")
    with pytest.raises(blockio.FioDataError, match="clat percentile"):
        blockio.latency_percentiles(fio, job="no-such-job")


def test_units_kib(fio):
    # seq-read-2 Native: linux.log "bw (KB/s)  : min=804864, max=807345, per=100.00%, avg=806935.98, stdev=370.24"
    v, src = blockio.job_value(fio, "Native", "seq-read-2", "bandwidth_interval_mean")
    assert math.isclose(v, 806935.98 * 1024) and src.startswith("fio/results/linux.log:")
    assert np.isclose(blockio.MB, 1e6)
