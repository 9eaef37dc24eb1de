"""Isolation of a trial, piece by piece: the cgroup a trial's processes go to, the CPU time
sampled around it, the interference flags, the gap test for two modes, and the report's lines.

The campaign-level test (a CPU hog during a campaign) is tests/hosts/test_isolation_hog.py."""

from __future__ import annotations

import math
import os
import shutil
import subprocess
import time

import numpy as np
import pandas as pd
import pytest

from overhead.campaign import analysis, inventory
from overhead.environments import docker, posix, qemu
from overhead.stats import StatsError
from overhead.stats.modes import gap_statistic, gap_test


def _sh(command: str) -> subprocess.CompletedProcess:
    return subprocess.run(["sh", "-c", command], capture_output=True, text=True, timeout=60)


# --- the samples and the flags ----------------------------------------------------------------

def test_noise_command_prints_the_hosts_cpu_counters_from_proc_stat():
    out = analysis.parse_noise(_sh(analysis.noise_command(nproc=False)).stdout)
    with open("/proc/stat") as f:
        fields = [int(v) for v in f.readline().split()[1:]]
    # the counters only grow: the sample taken first is at most what /proc/stat says now
    assert 0 < out["cpu_busy"] <= fields[0] + fields[1] + fields[2]
    assert 0 <= out["cpu_irq"] <= fields[5] + fields[6]
    assert 0 <= out["cpu_steal"] <= fields[7]
    assert out["cg_ns"] is None  # no cgroup asked: not measured, never 0


def test_interference_flags_what_ran_outside_the_cgroup_and_steal():
    before = {"cpu_busy": 1000, "cpu_irq": 10, "cpu_steal": 5, "cg_ns": 0}
    # 10 s on 2 CPUs: 20 CPU-s; the trial's cgroup used 10 s, the host 10 + 3 s (incl. irq)
    after = {"cpu_busy": 2280, "cpu_irq": 30, "cpu_steal": 15, "cg_ns": 10 * 10**9}
    seen = analysis.interference(before, after, seconds=10, cores=2, clk_tck=100)
    assert seen["busy_s"] == 13.0 and seen["irq_s"] == 0.2 and seen["measured_s"] == 10.0
    assert seen["outside_s"] == 3.0 and seen["steal_s"] == 0.1
    assert seen["flags"] == ["outside"]  # 3.0 > max(0.5, 5% of 20); steal 0.1 is not
    # the same outside time is not flagged at a 20% share (4 CPU-s)
    assert analysis.interference(before, after, seconds=10, cores=2, clk_tck=100,
                                 share=0.2)["flags"] == []
    # steal above its share is
    stolen = {**after, "cpu_steal": 5 + 300}
    assert "steal" in analysis.interference(before, stolen, seconds=10, cores=2,
                                            clk_tck=100)["flags"]
    # the floor keeps a short trial from being flagged by the harness's own few ticks
    short = {"cpu_busy": 1000 + 40, "cpu_irq": 10, "cpu_steal": 5, "cg_ns": int(0.1e9)}
    assert analysis.interference(before, short, seconds=1, cores=2, clk_tck=100)["flags"] == []


def test_outside_counts_the_hosts_other_tasks_not_the_kernels_threads_or_interrupts():
    """An fsync trial of the demo, as sampled (trial.json of data/raw/fsync, 16.25 s on 2 CPUs):
    the host busy 7.64 CPU-s, 2.39 of them irq, the cgroup 4.47. By /proc/stat alone 3.17 s ran
    "outside", flagged; the kernel's own work for the fsync loop is most of it."""
    before = {"cpu_busy": 1000, "cpu_irq": 100, "cpu_steal": 0, "cg_ns": 0,
              "root_ns": 50 * 10**9, "kthread_ticks": 500}
    after = {"cpu_busy": 1000 + 525, "cpu_irq": 100 + 239, "cpu_steal": 0, "cg_ns": 4_474 * 10**6,
             "root_ns": 50 * 10**9 + 5_300 * 10**6, "kthread_ticks": 500 + 70}
    seen = analysis.interference(before, after, seconds=16.25, cores=2, clk_tck=100)
    # the root's task time 5.30 s, of which the trial's cgroup 4.474 and kernel threads 0.70
    assert seen["kernel_s"] == 0.7 and seen["irq_s"] == 2.39 and seen["measured_s"] == 4.474
    assert seen["outside_s"] == round(5.3 - 4.474 - 0.7, 3) and seen["flags"] == []
    # a CPU hog beside it is a task outside the cgroup: it is flagged
    hog = {**after, "root_ns": after["root_ns"] + 8 * 10**9}
    flagged = analysis.interference(before, hog, seconds=16.25, cores=2, clk_tck=100)
    assert flagged["flags"] == ["outside"] and flagged["outside_s"] > 8
    # without the kernel threads' figure their time counts as outside (never hidden)
    blind = {k: v for k, v in after.items() if k != "kthread_ticks"}
    seen = analysis.interference(before, blind, seconds=16.25, cores=2, clk_tck=100)
    assert seen["kernel_s"] is None and seen["outside_s"] == round(5.3 - 4.474, 3)


def test_noise_command_reads_the_accounting_root_and_the_kernel_threads_here():
    _cgroups_or_skip()
    out = analysis.parse_noise(_sh(analysis.noise_command(nproc=False, cgroup="none-such")).stdout)
    assert out["cg_ns"] is None and out["root_ns"] > 0  # no such cgroup: not measured
    # kthreadd's children, as ps sees them (ppid 2), are what the sample sums
    ps = _sh("ps -eo ppid=,pid=,times=").stdout.split("\n")
    kernel = [line.split() for line in ps if line.split()[:1] == ["2"] or
              line.split()[1:2] == ["2"]]
    assert kernel and out["kthread_ticks"] is not None
    seconds = sum(int(t) for _, _, t in kernel)  # ps times= is whole seconds
    assert seconds - len(kernel) - 1 <= out["kthread_ticks"] / os.sysconf("SC_CLK_TCK") \
        <= seconds + len(kernel) + 1


def test_interference_without_the_cgroup_is_not_measured_never_zero():
    before = {"cpu_busy": 1000, "cpu_irq": 10, "cpu_steal": 5}
    after = {"cpu_busy": 2000, "cpu_irq": 10, "cpu_steal": 5}
    seen = analysis.interference(before, after, seconds=10, cores=2, clk_tck=100)
    assert seen["outside_s"] is None and seen["measured_s"] is None and seen["flags"] == []
    seen = analysis.interference(None, after, seconds=10, cores=2, clk_tck=100)
    assert all(seen[k] is None for k in ("busy_s", "irq_s", "steal_s", "outside_s"))
    # a counter that went down (a reboot between the samples) is not a number of seconds
    assert analysis.interference(after, before, seconds=1, cores=2, clk_tck=100)["busy_s"] is None
    with pytest.raises(StatsError, match="share"):
        analysis.interference(before, after, seconds=1, cores=2, clk_tck=100, share=-1)


# --- cgroups, for real on this host (root) -----------------------------------------------------

def _cgroups_or_skip():
    root = _sh(posix.CGROUP_ROOT + '; echo "$cgr"').stdout.strip()
    if not root or os.geteuid() != 0:
        if os.environ.get("CI") == "true":
            pytest.fail("CI runs as root on a host with a CPU-accounting cgroup hierarchy")
        pytest.skip("no writable CPU-accounting cgroup hierarchy here")
    return root


def test_a_command_in_the_environments_cgroup_is_accounted_there(tmp_path):
    _cgroups_or_skip()
    name = f"overhead/test-units-{os.getpid()}/native"
    made = _sh(posix.cgroup_make_command(name)).stdout.strip()
    assert made.startswith("cgroup=/sys/fs/cgroup") and made.endswith(name)
    try:
        sample = analysis.noise_command(nproc=False, cgroup=name)
        first = analysis.parse_noise(_sh(sample).stdout)
        assert first["cg_ns"] == 0 or first["cg_ns"] is not None
        # a fixed amount of shell arithmetic inside the cgroup, timed by GNU time there too
        busy = "i=0; while [ $i -lt 400000 ]; do i=$((i+1)); done"
        timed = _sh(posix.in_cgroup(f"/usr/bin/time -f '%U %S' sh -c '{busy}'", name))
        user, system = (float(v) for v in timed.stderr.split()[-2:])
        second = analysis.parse_noise(_sh(sample).stdout)
        used = (second["cg_ns"] - first["cg_ns"]) / 1e9
        # the cgroup saw the loop's CPU time (GNU time's 10 ms ticks, plus the shells around)
        assert user + system > 0.1
        assert user + system - 0.05 < used < 1.3 * (user + system) + 0.1, (used, user, system)
        # taskset puts it on the CPUs asked
        out = _sh(posix.in_cgroup(posix.taskset("grep Cpus_allowed_list /proc/self/status", "0"),
                                  name)).stdout
        assert out.split()[-1] == "0"
    finally:
        _sh(posix.cgroup_remove_command(name))
    assert not os.path.exists(made.partition("=")[2])
    assert not os.path.exists(os.path.dirname(made.partition("=")[2]))


# --- the environments' commands -----------------------------------------------------------------

def test_docker_container_goes_under_the_environments_cgroup_and_pauses():
    cmd = docker.start_command("c", image="i", net="host", storage="overlay", runtime="runc",
                               runners_dir="/r", trials_dir="/t", cgroup_parent="overhead/k/e")
    assert "--cgroup-parent /overhead/k/e" in cmd
    assert docker.pause_command("c") == "docker pause c"
    assert docker.pause_command("c", False) == "docker unpause c"


def test_vm_is_booted_with_a_qmp_socket_and_paused_through_it():
    spec = qemu.VmSpec(name="v", vcpus=2, memory_mb=512)
    boot = qemu.boot_command(spec, "/img", "/state", 10022, "tcg")
    assert "-qmp unix:/state/qmp.sock,server=on,wait=off" in boot
    stop = qemu.qmp_command("/state", "stop")
    assert '"execute":"stop"' in stop and "socat" in stop
    with pytest.raises(Exception, match="not stop or cont"):
        qemu.qmp_command("/state", "quit")
    assert "taskset -a -p -c" in qemu.affinity_command("/state", "1")
    assert "/sys/devices/system/cpu/online" in qemu.affinity_command("/state", None)


def test_qmp_stop_and_cont_against_a_real_qemu(tmp_path):
    if shutil.which("qemu-system-x86_64") is None or shutil.which("socat") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("CI installs qemu-system-x86 and socat (scripts/debian-packages.sh)")
        pytest.skip("no QEMU or socat here")
    sock = tmp_path / qemu.QMP
    proc = subprocess.Popen(["qemu-system-x86_64", "-nodefaults", "-display", "none",
                             "-accel", "tcg", "-m", "64", "-qmp",
                             f"unix:{sock},server=on,wait=off"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while not sock.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        stopped = _sh(qemu.qmp_command(str(tmp_path), "stop"))
        assert stopped.returncode == 0, stopped.stderr
        assert '"event": "STOP"' in stopped.stdout
        cont = _sh(qemu.qmp_command(str(tmp_path), "cont"))
        assert cont.returncode == 0 and '"event": "RESUME"' in cont.stdout
    finally:
        proc.kill()
        proc.wait(10)
    gone = _sh(qemu.qmp_command(str(tmp_path), "stop"))
    assert gone.returncode != 0


def test_isolation_is_on_by_default_and_checked():
    iso = inventory.Isolation()
    assert iso.pause_idle and iso.placement == "auto" and iso.reruns == 2
    assert iso.outside == 0.05 and iso.steal == 0.05 and iso.floor_s == 0.5
    with pytest.raises(ValueError):
        inventory.Isolation(outside=1.5)
    with pytest.raises(ValueError):
        inventory.Isolation(reruns=-1)


# --- two modes ------------------------------------------------------------------------------------

def test_gap_test_finds_netperfs_two_groups_and_says_not_tested_below_four():
    # the per-trial TCP_RR means (us) of the audit: native, 4 of 8 trials slow
    fast_slow = [14.6, 16.2, 18.0, 21.5, 48.0, 55.0, 63.0, 71.0]
    t = gap_test(fast_slow)
    assert t.multimodal and t.low == (14.6, 16.2, 18.0, 21.5) and t.high == (48.0, 55.0, 63.0, 71.0)
    assert "two groups" in t.describe() and t.p < 0.05
    assert gap_test([15.0, 16.0, 17.0]).multimodal is None
    assert "needs 4" in gap_test([15.0, 16.0, 17.0]).describe()
    one = gap_test([15.0, 16.1, 16.9, 17.8, 18.4, 19.0])
    assert one.multimodal is False and "no second mode" in one.describe()
    stat, k = gap_statistic([1.0, 1.1, 5.0, 5.1])
    assert k == 2 and stat > 10


@pytest.mark.parametrize("n", [5, 8, 12])
def test_gap_test_false_alarm_rate_on_one_normal_mode_is_its_level(n):
    rng = np.random.default_rng(n)
    hits = np.mean([bool(gap_test(rng.normal(100, 5, size=n)).multimodal) for _ in range(1500)])
    # 1,500 draws at p = 0.05: SD 0.0056; 4 SDs either side
    assert 0.028 < hits < 0.073, hits


def test_gap_test_on_a_clear_mixture_has_power():
    rng = np.random.default_rng(3)
    found = np.mean([bool(gap_test(np.r_[rng.normal(15, 1.5, 4), rng.normal(55, 6, 4)]).multimodal)
                     for _ in range(300)])
    assert found > 0.9, found


# --- the report's isolation section ----------------------------------------------------------

def _frames():
    trials = pd.DataFrame({
        "run_id": [f"c/native/nb/t{i}" for i in range(9)] + ["c/interfered/native/nb/t0.1"],
        "env_name": ["native"] * 10, "benchmark": ["nb"] * 10, "cell": ["cell-1"] * 10,
        "position": list(range(10)), "previous": [None] * 10, "host": ["h"] * 10,
        "environment": ["native"] * 10, "variant": [None] * 10, "warmup": [False] * 10,
        "status": ["done"] * 8 + ["excluded", "interfered"],
        "noise_flags": [None] * 8 + ["outside", "outside,load"]})
    values = [14.6, 16.2, 18.0, 21.5, 48.0, 55.0, 63.0, 71.0]
    meas = pd.DataFrame({"run_id": [f"c/native/nb/t{i}" for i in range(8)], "metric": "latency",
                         "unit": "us", "value": values, "p_test": "TCP_RR", "p_length": 2})
    # a second cell of the benchmark: UDP_RR, three trials (too few for the gap test)
    udp = pd.DataFrame({"run_id": [f"c/native/nb/u{i}" for i in range(3)], "metric": "latency",
                        "unit": "us", "value": [20.0, 21.0, 22.0], "p_test": "UDP_RR",
                        "p_length": 2})
    more = pd.DataFrame({
        "run_id": [f"c/native/nb/u{i}" for i in range(3)], "env_name": "native",
        "benchmark": "nb", "cell": "cell-2", "position": [20, 21, 22], "previous": None,
        "host": "h", "environment": "native", "variant": None, "warmup": False,
        "status": "done", "noise_flags": None})
    return pd.concat([meas, udp], ignore_index=True), pd.concat([trials, more], ignore_index=True)


def test_cell_spread_and_isolation_summary():
    meas, trials = _frames()
    spread = analysis.cell_spread(meas, trials)
    row = spread.iloc[0]
    # named by what tells the benchmark's cells apart (the test), not what they share (length)
    assert row["n"] == 8 and row["multimodal"] and row["params"] == "test=TCP_RR"
    assert spread.iloc[1]["params"] == "test=UDP_RR" and pd.isna(spread.iloc[1]["multimodal"])
    assert math.isclose(spread.iloc[1]["cv"], 1.0 / 21.0)
    sd = float(np.std([14.6, 16.2, 18.0, 21.5, 48.0, 55.0, 63.0, 71.0], ddof=1))
    assert math.isclose(row["cv"], sd / np.mean([14.6, 16.2, 18.0, 21.5, 48.0, 55.0, 63.0, 71.0]))
    s = analysis.isolation_summary(trials).iloc[0]
    assert (s["results"], s["flagged"], s["rerun"], s["excluded"]) == (11, 2, 1, 1)
    text = analysis.report(meas, trials)
    assert "isolation: 2 attempts flagged for interference" in text
    assert "native: 11 results, 2 flagged, 1 re-run, 1 excluded" in text
    assert "1 of 1 tested cell-metrics (1 with fewer than 4 trials not tested)" in text
    assert "two groups: [14.6, 16.2, 18, 21.5] and [48, 55, 63, 71]" in text


def test_noise_section_lists_the_judged_bimodal_cells_first_and_counts_the_rest(tmp_path):
    """A campaign of many environments flags hundreds of cell-metrics: the page lists a few,
    the judged metrics first, and counts the rest per benchmark (all of them in the CSV)."""
    from overhead.campaign import results

    meas, trials = _frames()
    tcp = meas[meas["p_test"] == "TCP_RR"]
    # the same two groups of trial means in 12 metrics, only m7 judged by the campaign
    many = pd.concat([tcp.assign(metric=f"m{i:02d}") for i in range(12)], ignore_index=True)
    live = results.Results("c", tmp_path, tmp_path / "out", many, trials, pd.DataFrame(),
                           {"decisions": {"cell-1#x": {"benchmark": "nb", "metric": "m07",
                                                       "quantity": "x"}}})
    page = "".join(results.noise_html(live, shown=5))
    items = page.split("<li>")[1:]
    # the judged quantity is named as the verdicts name it
    assert len(items) == 5 and items[0].startswith("native nb x: two groups")
    assert "12 of 12 tested" in page
    # the largest spreads shown are the judged metric's (the 11 others are in the CSV)
    assert "the 1 largest of the 1 judged quantities" in page
    table = page.split("<table")[2].split("</table>")[0]  # after the isolation summary
    assert "<td>x</td>" in table and "m00" not in table
    assert "And 7 more (column <code>multimodal</code> of <code>cell_spread.csv</code>): nb 7." \
        in page
    spread = pd.read_csv(tmp_path / "out" / "cell_spread.csv")
    assert int(spread["multimodal"].sum()) == 12  # the CSV keeps every one


def _stat_line(pid: int, comm: str, utime: int, stime: int) -> str:
    """A /proc/PID/stat line: pid (comm) state ppid ... utime (14) stime (15) ..."""
    return f"{pid} ({comm}) S 2 0 0 0 -1 2129984 0 0 0 0 {utime} {stime} 0 0 20 0 1 0 3 0 0\n"


@pytest.mark.parametrize("awk", [True, False], ids=["awk", "shell-loop"])
def test_kernel_threads_are_summed_from_a_fake_tree_with_awk_and_without(tmp_path, awk):
    """kthreadd and its children's utime + stime, whatever their names hold (spaces, ') '); a
    child gone since the list was read is skipped; awk (one process) and the shell loop (hosts
    without awk) agree."""
    proc = tmp_path / "proc"
    threads = {2: ("kthreadd", 3, 4), 12: ("kworker/0:1-events", 100, 250),
               13: ("a) b c", 7, 11), 14: ("ksoftirqd/0", 0, 9)}
    for pid, (comm, u, s) in threads.items():
        (proc / str(pid)).mkdir(parents=True)
        (proc / str(pid) / "stat").write_text(_stat_line(pid, comm, u, s))
    (proc / "2" / "task" / "2").mkdir(parents=True)
    (proc / "2" / "task" / "2" / "children").write_text("12 13 14 99 ")   # 99: gone
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("sh", "cat", "grep") + (("awk",) if awk else ()):
        (bin_dir / tool).symlink_to(shutil.which(tool))
    cmd = analysis.noise_command(str(proc), str(tmp_path / "sys"), nproc=False, cgroup="x")
    done = subprocess.run([str(bin_dir / "sh"), "-c", cmd], capture_output=True, text=True,
                          env={"PATH": str(bin_dir)}, timeout=30)
    assert analysis.parse_noise(done.stdout)["kthread_ticks"] == sum(
        u + s for _, u, s in threads.values()) == 384, done.stdout + done.stderr


def _hpcc_like(tmp_path):
    """Eight trials of one cell whose trials report one metric per kernel (as HPCC does), a
    mixed job's read and write IOPS, and unjudged metrics that vary far more than either."""
    import json

    rng = np.random.default_rng(7)
    rows, trials = [], []
    for i in range(8):
        run = f"c/native/hp/t{i}"
        trials.append({"run_id": run, "env_name": "native", "benchmark": "hp", "cell": "cell-h",
                       "position": i, "previous": None, "host": "h", "environment": "native",
                       "variant": None, "warmup": False, "status": "done", "noise_flags": None})
        # MPI RandomAccess near 1.4e7, its single-process variant near 1.2e8: their mean is neither
        for kernel, scope, v in (("randomaccess", "mpi", 1.4e7), ("randomaccess", "single", 1.2e8),
                                 ("hpl", "mpi", 9e9), ("dgemm", "star", 5e9)):
            metric = "update_rate" if kernel == "randomaccess" else "flop_rate"
            rows.append({"run_id": run, "metric": metric, "unit": "1/s",
                         "value": v * (1 + 0.01 * rng.standard_normal()), "p_kernel": kernel,
                         "p_scope": scope, "p_n": 1600, "p_direction": None})
        for d, v in (("read", 6e4), ("write", 2e4)):
            rows.append({"run_id": run, "metric": "iops", "unit": "1/s", "value": v + 100 * i,
                         "p_kernel": None, "p_scope": None, "p_n": 1600, "p_direction": d})
        # unjudged: an error count and a tail latency that swing by factors
        rows.append({"run_id": run, "metric": "errors", "unit": "1", "value": [0, 0, 0, 0, 0, 0, 0, 9][i] + 0.5,
                     "p_kernel": None, "p_scope": None, "p_n": 1600, "p_direction": None})
        rows.append({"run_id": run, "metric": "lat_max", "unit": "s", "value": 10.0 ** rng.uniform(-4, -1),
                     "p_kernel": None, "p_scope": None, "p_n": 1600, "p_direction": None})
    (tmp_path / "campaign.json").write_text(json.dumps({"benchmarks": {"hp": {"judge": [
        {"metric": "update_rate", "where": {"kernel": "randomaccess", "scope": "mpi"},
         "name": "RandomAccess"},
        {"metric": "flop_rate", "where": {"kernel": "hpl"}, "name": "Linpack"},
        {"metric": "iops", "combine": "sum", "name": "IOPS"}]}}}))
    return pd.DataFrame(rows), pd.DataFrame(trials)


def test_noise_section_judges_exactly_the_judge_quantities_and_splits_kernels(tmp_path):
    """The judged rows are the benchmarks' judge: quantities as the verdicts compute them
    (filter, sum), not every row of a metric a judge names; a metric reported per kernel in one
    trial is one row per kernel, never their mean under the first kernel's name."""
    from overhead.campaign import judging, results
    from overhead.campaign.inventory import Judge

    meas, trials = _hpcc_like(tmp_path)
    live = results.Results("c", tmp_path, tmp_path / "out", meas, trials, pd.DataFrame(), {})
    page = "".join(results.noise_html(live, shown=15))
    spread = pd.read_csv(tmp_path / "out" / "cell_spread.csv")
    judged = spread.dropna(subset=["quantity"]).set_index("quantity")
    assert sorted(judged.index) == ["IOPS", "Linpack", "RandomAccess"]
    # each equals the verdicts' value of the quantity, trial by trial
    for q, judge in (("RandomAccess", Judge(metric="update_rate", where={"kernel": "randomaccess", "scope": "mpi"})),
                     ("IOPS", Judge(metric="iops", combine="sum"))):
        per = [judging.judged_value(g, judge)[0] for _, g in meas.groupby("run_id", sort=False)]
        assert math.isclose(judged.loc[q, "mean"], float(np.mean(per)))
    assert 1.3e7 < judged.loc["RandomAccess", "mean"] < 1.5e7  # the MPI value, not 6.7e7
    assert judged.loc["RandomAccess", "params"] == "kernel=randomaccess, scope=mpi"
    assert math.isclose(judged.loc["IOPS", "mean"], 8e4 + 2 * 350)
    # the other kernels are rows of their own, named by kernel and scope
    ra = spread[(spread["metric"] == "update_rate") & spread["quantity"].isna()]
    assert list(ra["params"]) == ["scope=single"]  # what tells it from the MPI row
    assert 1.1e8 < ra["mean"].iloc[0] < 1.3e8
    flops = spread[(spread["metric"] == "flop_rate") & spread["quantity"].isna()]
    assert list(flops["params"]) == ["kernel=dgemm, scope=star"]  # HPL's row is the judged one
    # the page's judged table holds the three quantities only, though errors and lat_max vary most
    assert spread.loc[spread["metric"].isin(["errors", "lat_max"]), "cv"].min() > \
        judged["cv"].max()
    table = page.split("<table")[2].split("</table>")[0]
    assert "the 3 largest of the 3 judged quantities" in page
    assert "RandomAccess" in table and "errors" not in table and "lat_max" not in table
