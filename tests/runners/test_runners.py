"""The runners (runners/*.sh): each runs its real tool here, natively, with small bounded
parameters, and its trial directory must parse into valid tidy rows whose values agree with
each other the way the tool's own report says they must. Plus the contract every runner shares
through common.sh: usage errors write nothing, a finished trial is never overwritten, a failed
tool is recorded with its status and stderr, an interrupted runner leaves nothing behind.
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
from conftest import (
    free_port,
    free_ports,
    netserver,
    nuttcp_server,
    redis_server,
    stop_process,
    value,
)
from typer.testing import CliRunner

from overhead import runners
from overhead.cli import app
from overhead.errors import ParseError
from overhead.schema import validate


def run(name: str, outdir: Path, timeout: float = 120, **params) -> subprocess.CompletedProcess:
    """Run runner ``name`` into ``outdir`` (Debian's /bin/sh is dash: no bashisms pass)."""
    return subprocess.run(runners.command(name, outdir, **params), capture_output=True, text=True,
                          timeout=timeout)


def finished(name: str, outdir: Path, **params) -> runners.Trial:
    """Run a runner that must succeed, and read its trial."""
    proc = run(name, outdir, **params)
    assert proc.returncode == 0, proc.stderr + (outdir / "stderr").read_text()
    trial = runners.read_trial(outdir)
    assert trial.ok and trial.meta["runner"] == name
    validate(trial.measurements)
    return trial


def needs(*tools: str):
    missing = [t for t in tools if shutil.which(t) is None]
    return pytest.mark.skipif(bool(missing), reason=f"not installed: {', '.join(missing)}")


# ---- the shared contract --------------------------------------------------------------------

def test_every_runner_is_listed_and_documented():
    names = runners.available()
    assert {"fio", "sysbench", "hpcc", "pxz", "pg_test_fsync", "hyperfine", "netperf", "nuttcp",
            "redis-benchmark", "sysbench-oltp", "ab", "hdparm"} <= set(names)
    for name in names:
        text = runners.script(name).read_text()
        assert text.startswith("#!/bin/sh\n# "), name  # POSIX sh, and says what it measures
        assert "rn_declare" in text and "rn_args" in text, name
    with pytest.raises(KeyError, match="known runners: .*fio"):
        runners.script("nosuch")
    with pytest.raises(KeyError):
        runners.script("common")


def test_unknown_parameter_is_a_usage_error_and_writes_nothing(tmp_path):
    proc = run("hyperfine", tmp_path / "t", runs=3, colour="blue")
    assert proc.returncode == 2
    assert "unknown parameter 'colour'" in proc.stderr and "runs" in proc.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("params, message", [
    ({"runs": "many"}, "runs='many' is not a non-negative integer"),
    ({"runs": "1"}, "runs must be at least 2"),
    ({"shell": "bash"}, "shell='bash' must be one of: none sh"),
])
def test_bad_values_are_usage_errors(tmp_path, params, message):
    proc = run("hyperfine", tmp_path / "t", **params)
    assert proc.returncode == 2 and message in proc.stderr
    assert list(tmp_path.iterdir()) == []


def test_missing_outdir_is_a_usage_error():
    proc = subprocess.run(["sh", str(runners.script("sysbench"))], capture_output=True, text=True)
    assert proc.returncode == 2 and "usage:" in proc.stderr and "cpu_max_prime" in proc.stderr
    proc = subprocess.run(["sh", str(runners.script("sysbench")), "test=cpu"], capture_output=True,
                          text=True)
    assert proc.returncode == 2 and "must be the trial directory" in proc.stderr


@needs("hyperfine")
def test_a_finished_trial_is_never_overwritten(tmp_path):
    out = tmp_path / "t"
    first = finished("hyperfine", out, runs=2)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    proc = run("hyperfine", out, runs=3)
    assert proc.returncode == 2 and "already exists" in proc.stderr
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert first.meta["p_runs"] == "2"


@needs("fio")
def test_a_failing_tool_is_recorded_not_lost(tmp_path):
    out = tmp_path / "t"
    proc = run("fio", out, ioengine="nosuchengine", size="1m", runtime=1,
               directory=tmp_path / "scratch")
    assert proc.returncode != 0
    trial = runners.read_trial(out)
    assert not trial.ok and trial.exit_status == proc.returncode
    assert trial.measurements is None
    assert "nosuchengine" in trial.stderr
    # the CLI reports it and fails, naming the trial
    result = CliRunner().invoke(app, ["read-trial", str(out)])
    assert result.exit_code == 1 and f"{out}: fio exited with status {proc.returncode}" in result.output


@needs("hyperfine")
def test_an_interrupted_runner_leaves_nothing(tmp_path):
    out = tmp_path / "t"
    proc = subprocess.Popen(runners.command("hyperfine", out, runs=3, command="sleep 5"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 10
    while not list(tmp_path.glob("t.partial.*")) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert list(tmp_path.glob("t.partial.*")), "the runner never started its trial"
    time.sleep(0.3)
    os.killpg(proc.pid, signal.SIGTERM)  # what a Ctrl-C or a killed SSH session does to it
    proc.wait(timeout=30)
    assert proc.returncode != 0
    assert list(tmp_path.iterdir()) == []  # neither the trial nor a partial one


@needs("hyperfine")
def test_values_with_spaces_survive_and_meta_is_complete(tmp_path):
    trial = finished("hyperfine", tmp_path / "t", runs=3, command="sleep 0.01")
    meta = trial.meta
    assert meta["p_command"] == "sleep 0.01"
    for key in runners.REQUIRED_META + ("kernel", "nproc", "mem_total_bytes", "mitigations"):
        assert meta[key], key
    assert meta["kernel"] == f"{os.uname().sysname} {os.uname().release}"
    assert int(meta["nproc"]) == os.cpu_count()
    df = trial.measurements
    times = df[df.metric == "wall_time"].value
    assert len(times) == 3 and (times >= 0.01).all()
    assert (df.p_command == "sleep 0.01").all()
    assert trial.provenance["command_line"].startswith("hyperfine --style basic --runs 3")
    assert trial.provenance["kernel"] == meta["kernel"]
    assert f"nproc={os.cpu_count()}" in trial.provenance["notes"]
    # the provenance record fits the provenance table's model
    import pandas as pd

    from overhead.schema import PROVENANCE_COLUMNS, conform
    row = conform(pd.DataFrame([{**trial.provenance, "run_id": "t"}]), PROVENANCE_COLUMNS)
    assert row.started_at.iloc[0] == pd.Timestamp(meta["started_at"])


@needs("hyperfine")
def test_recorded_command_line_can_be_pasted_back(tmp_path):
    command = """echo "a  b" 'it'"'"'s' $HOME"""
    trial = finished("hyperfine", tmp_path / "t", runs=2, shell="sh", command=command)
    argv = shlex.split(trial.meta["command"])
    assert argv[0] == "hyperfine" and argv[-2:] == ["--", command]
    # the JSON went to the trial's final place, not the .partial folder it was written in
    assert argv[argv.index("--export-json") + 1] == str(tmp_path / "t" / "output")
    assert trial.meta["p_command"] == command


def test_bad_meta_names_file_and_line(tmp_path):
    (tmp_path / "meta").write_text("runner=fio\ntool fio\n")
    with pytest.raises(ParseError, match=r"meta:2: expected name=value"):
        runners.read_trial(tmp_path)
    (tmp_path / "meta").write_text("runner=fio\nrunner=fio\n")
    with pytest.raises(ParseError, match=r"meta:2: 'runner' appears twice"):
        runners.read_meta(tmp_path / "meta")
    (tmp_path / "meta").write_text("runner=fio\ntool=fio\n")
    with pytest.raises(ParseError, match=r"meta:3: missing parser, .*not a finished runner trial"):
        runners.read_meta(tmp_path / "meta")


# ---- each runner against its real tool -------------------------------------------------------

@pytest.mark.tool
@needs("fio")
def test_fio_randread(tmp_path):
    scratch = tmp_path / "scratch"
    trial = finished("fio", tmp_path / "t", rw="randread", bs="4k", size="4m", runtime=1, direct=0,
                     directory=scratch)
    df = trial.measurements
    iops = value(df, "iops", p_direction="read")
    bw = value(df, "bandwidth", p_direction="read")
    assert iops > 0
    assert bw == pytest.approx(iops * 4096, rel=0.01)  # fio's bw and iops agree for bs=4k
    assert trial.meta["tool_version"] == "fio-3.33" or trial.meta["tool_version"].startswith("fio-")
    assert list(scratch.iterdir()) == []  # the scratch file is removed
    assert (df.p_rw == "randread").all()


@pytest.mark.tool
@needs("fio")
def test_fio_fsync_writes(tmp_path):
    trial = finished("fio", tmp_path / "t", rw="randwrite", bs="4k", size="2m", runtime=1,
                     direct=0, fsync=1, directory=tmp_path / "scratch")
    df = trial.measurements
    assert value(df, "iops", p_direction="write") > 0
    assert (df.p_fsync == 1).all()


@pytest.mark.tool
@needs("sysbench")
@pytest.mark.parametrize("test", ["cpu", "memory", "threads", "mutex"])
def test_sysbench_micro(tmp_path, test):
    params = {"test": test, "time": 1, "threads": 2}
    if test == "mutex":
        params = {"test": test, "threads": 2, "mutex_locks": 1000}
    trial = finished("sysbench", tmp_path / "t", **params)
    df = trial.measurements
    assert (df.p_test == test).all()
    events = value(df, "events")
    assert events > 0
    if test == "cpu":  # only the cpu test prints events/s
        # events/s is events over the wall-clock total time (event_time_total sums the threads)
        assert value(df, "event_rate") == pytest.approx(events / value(df, "total_time"), rel=0.02)
    # only the options of this test are recorded: no row claims a setting sysbench never saw
    other = {"cpu": "p_cpu_max_prime", "memory": "p_memory_oper", "mutex": "p_mutex_locks"}
    for name, column in other.items():
        assert (column in df.columns) == (name == test), column


@pytest.mark.tool
@needs("sysbench")
def test_sysbench_fileio_with_intervals_and_histogram(tmp_path):
    scratch = tmp_path / "scratch"
    trial = finished("sysbench", tmp_path / "t", test="fileio", time=2, file_total_size="8M",
                     report_interval=1, histogram="on", directory=scratch)
    df = trial.measurements
    assert (df.p_test == "fileio").all()
    # --report-interval lines carry their time stamp as p_time; the final report has none
    intervals = df[df.p_time.notna()]
    assert set(intervals.metric) >= {"read_throughput", "write_throughput", "fsync_rate"}
    assert set(intervals.p_time) >= {1.0}
    assert len(df[df.metric == "latency_bin_count"]) > 0  # --histogram=on
    assert value(df, "events") > 0
    assert list(scratch.iterdir()) == []  # cleanup removed the test files
    assert "Creating file test_file.15" in trial.stderr  # prepare's report is kept, as stderr


@pytest.mark.tool
@needs("hpcc", "mpirun")
def test_hpcc_linpack_stream_gups(tmp_path):
    trial = finished("hpcc", tmp_path / "t", n=400, nb=40)
    df = trial.measurements
    assert set(df.benchmark) >= {"hpl", "stream", "randomaccess"}
    hpl = df[(df.benchmark == "hpl") & (df.metric == "flop_rate")].set_index("p_section")
    # the rounded table row and the summary's HPL_Tflops= at full precision, one run
    assert sorted(hpl.index) == ["hpl", "summary"] and hpl.value["summary"] > 0
    assert hpl.value["hpl"] == pytest.approx(hpl.value["summary"], rel=5e-3)
    assert (hpl.p_n == 400).all() and (hpl.p_nb == 40).all()  # what the output states
    assert (df[df.benchmark == "stream"].value > 0).all()


@pytest.mark.tool
@needs("hpcc", "mpirun")
def test_hpcc_rejects_a_grid_that_does_not_fit(tmp_path):
    proc = run("hpcc", tmp_path / "t", np=2, p=3)
    assert proc.returncode == 2 and "does not equal np=2" in proc.stderr


@pytest.mark.tool
@pytest.mark.parametrize("compressor", ["pixz", "xz"])
def test_pxz_throughput_is_input_over_elapsed(tmp_path, compressor):
    if shutil.which(compressor) is None or not Path("/usr/bin/time").exists():
        pytest.skip(f"{compressor} or GNU time is not installed")
    trial = finished("pxz", tmp_path / "t", compressor=compressor, threads=2, size_mib=4)
    df = trial.measurements
    elapsed = value(df, "elapsed_time")
    assert (df.p_input_bytes == 4 * 1048576).all()
    assert value(df, "throughput") == pytest.approx(4 * 1048576 / elapsed)
    assert (df.tool == "xz").all() and (df.p_compressor == compressor).all()


@pytest.mark.tool
def test_pg_test_fsync(tmp_path):
    if not (shutil.which("pg_test_fsync") or list(Path("/usr/lib/postgresql").glob("*/bin/pg_test_fsync"))):
        pytest.skip("pg_test_fsync is not installed (Debian postgresql)")
    scratch = tmp_path / "scratch"
    trial = finished("pg_test_fsync", tmp_path / "t", secs=1, directory=scratch)
    df = trial.measurements
    rates = df[df.metric == "operation_rate"]
    assert len(rates) > 10 and (rates.value > 0).all()
    # every ops/s line also states usecs/op: the two are reciprocal up to pg_test_fsync's rounding
    times = df[df.metric == "operation_time"].set_index("source").value
    for _, row in rates.iterrows():
        assert times[row.source] == pytest.approx(1 / row.value, rel=0.02, abs=1.5e-6)
    assert list(scratch.iterdir()) == []


@pytest.mark.tool
@needs("netperf", "netserver")
def test_netperf_tcp_rr_obeys_littles_law(tmp_path):
    port = free_port()
    with netserver(port):
        trial = finished("netperf", tmp_path / "t", port=port, test="TCP_RR", length=1)
    df = trial.measurements
    rates = df[df.metric == "transaction_rate"].value
    assert len(rates) == 2 and rates.max() == pytest.approx(rates.min(), rel=1e-6)
    # (TRANSACTION_RATE, and THROUGHPUT in Trans/s: the same figure, printed twice by netperf)
    rate = rates.iloc[0]
    mean = value(df, "latency_mean")
    # one transaction in flight (N = 1): mean latency = 1 / transaction rate (Little's law).
    # The client's own time between a response and the next request is outside the measured
    # latency, so N = X*R falls a little short of 1 (0.994 on an idle machine here); the bound
    # leaves room for a machine busy with other tests.
    assert 0.8 < rate * mean < 1.02
    p = df[df.metric == "latency_percentile"].set_index("p_percentile").value
    assert p[50.0] <= p[90.0] <= p[99.0]


@pytest.mark.tool
@needs("nuttcp")
def test_nuttcp_goodput(tmp_path):
    ctl, data = free_ports(2)
    with nuttcp_server(ctl):
        trial = finished("nuttcp", tmp_path / "t", ctl_port=ctl, data_port=data, time=1)
    df = trial.measurements
    final = df[df.metric == "goodput"]
    assert len(final) >= 1 and (final.value > 0).all()
    assert (df.p_direction == "tx").all()


@pytest.mark.tool
@needs("nuttcp")
def test_nuttcp_receives_over_a_data_connection_it_opens(tmp_path):
    """rx: this host receives, and opens the data connection itself (-F), as in tx: the way
    in through a published or forwarded port (a VM's port forward holds the port number on the
    client, so the server's default connect-back to a listening client fails there)."""
    ctl, data = free_ports(2)
    with nuttcp_server(ctl):
        trial = finished("nuttcp", tmp_path / "t", ctl_port=ctl, data_port=data, time=1,
                         direction="rx")
    assert " -r " in trial.meta["command"] and trial.meta["command"].split().count("-F") == 1
    df = trial.measurements
    assert (df[df.metric == "goodput"].value > 0).all() and (df.p_direction == "rx").all()


def test_nuttcp_refuses_overlapping_ports(tmp_path):
    proc = run("nuttcp", tmp_path / "t", ctl_port=5001, data_port=5000, streams=2)
    assert proc.returncode == 2 and "overlaps the data ports 5000..5001" in proc.stderr


@pytest.mark.tool
@needs("redis-server", "redis-benchmark", "redis-cli")
@pytest.mark.parametrize("fmt", ["text", "csv"])
def test_redis_benchmark_records_the_pipeline_the_output_omits(tmp_path, fmt):
    port = free_port()
    with redis_server(port, tmp_path):
        trial = finished("redis-benchmark", tmp_path / "t", port=port, clients=5, requests=4000,
                         tests="set,get", pipeline=4, format=fmt)
    df = trial.measurements
    assert set(df.p_test) == {"SET", "GET"}
    assert (df.p_pipeline == 4).all()  # from the runner's meta: redis-benchmark never prints it
    for test in ("SET", "GET"):
        assert value(df, "throughput", p_test=test) > 1e3


@pytest.mark.tool
@needs("redis-server", "redis-benchmark", "redis-cli")
def test_a_redis_run_cut_short_by_an_error_reply_is_a_failed_trial_that_says_why(tmp_path):
    # maxmemory 1 with noeviction: PING_INLINE finishes, SET's first reply is "OOM command not
    # allowed", redis-benchmark exits 1. The runner keeps standard error apart, so the output
    # alone looks finished (PING_INLINE's report); the exit status and stderr say otherwise:
    # the trial is failed (a campaign retries it), and says why
    port = free_port()
    with redis_server(port, tmp_path, "--maxmemory", "1", "--maxmemory-policy", "noeviction"):
        proc = run("redis-benchmark", tmp_path / "t", port=port, clients=2, requests=2000,
                   tests="ping_inline,set")
    assert proc.returncode == 1
    trial = runners.read_trial(tmp_path / "t")
    assert not trial.ok and trial.exit_status == 1 and trial.measurements is None
    oom = "Error from server: OOM command not allowed when used memory > 'maxmemory'."
    assert trial.stderr.strip().splitlines()[-1] == oom
    result = CliRunner().invoke(app, ["read-trial", str(tmp_path / "t")])
    assert result.exit_code == 1
    assert f"redis-benchmark exited with status 1: {oom}" in result.stderr


def test_cli_read_trial_prints_rows(tmp_path):
    if shutil.which("hyperfine") is None:
        pytest.skip("hyperfine is not installed")
    out = tmp_path / "t"
    finished("hyperfine", out, runs=2)
    result = CliRunner().invoke(app, ["read-trial", str(out)])
    assert result.exit_code == 0
    lines = result.output.strip().splitlines()
    assert sum('"metric": "wall_time"' in line for line in lines) == 2
    result = CliRunner().invoke(app, ["read-trial", str(tmp_path)])
    assert result.exit_code == 2 and "not a trial directory" in result.output


# ---- sysbench OLTP against a throw-away MariaDB on a unix socket -----------------------------

@pytest.fixture(scope="module")
def mariadb(tmp_path_factory):
    """A private MariaDB server (own datadir, unix socket only, no TCP), stopped afterwards.

    Yields the socket path; root logs in through unix_socket authentication, so no password
    exists anywhere. A user with a password is created by the test that needs one."""
    if not (shutil.which("mariadbd") or Path("/usr/sbin/mariadbd").exists()):
        pytest.skip("MariaDB is not installed (Debian mariadb-server)")
    base = tmp_path_factory.mktemp("mariadb")
    data, sock = base / "data", base / "mysqld.sock"
    subprocess.run(["mysql_install_db", "--no-defaults", f"--datadir={data}", "--user=root",
                    "--auth-root-authentication-method=socket", "--skip-test-db"],
                   check=True, capture_output=True, timeout=120)
    server = subprocess.Popen(
        ["/usr/sbin/mariadbd", "--no-defaults", f"--datadir={data}", f"--socket={sock}",
         "--skip-networking", "--user=root", f"--pid-file={base / 'pid'}",
         f"--log-error={base / 'error.log'}", "--innodb-buffer-pool-size=64M"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while subprocess.run(["mariadb", "--no-defaults", "-S", str(sock), "-e", "SELECT 1"],
                         capture_output=True).returncode != 0:
        if server.poll() is not None or time.monotonic() > deadline:
            server.kill()
            pytest.fail("mariadbd did not start: " + (base / "error.log").read_text()[-2000:])
        time.sleep(0.1)
    subprocess.run(["mariadb", "--no-defaults", "-S", str(sock), "-e", "CREATE DATABASE sbtest"],
                   check=True, capture_output=True)
    yield sock
    stop_process(server, timeout=60)  # mariadbd flushes InnoDB on SIGTERM


@pytest.mark.tool
@pytest.mark.xdist_group("mariadb")
@needs("sysbench")
def test_sysbench_oltp_read_only_obeys_littles_law(tmp_path, mariadb):
    trial = finished("sysbench-oltp", tmp_path / "t", socket=mariadb, user="root", threads=2,
                     time=2, table_size=1000)
    df = trial.measurements
    tps = value(df, "transaction_rate")
    # R from the latency sum over all events (the printed avg has two decimals of a ms)
    mean = value(df, "event_time_total") / value(df, "events")
    assert mean == pytest.approx(value(df, "latency_mean"), abs=0.00001)
    assert tps > 0 and (df.p_threads == 2).all()
    # closed loop with 2 threads: N = X * R, up to thread start/stop (1.995 measured here)
    assert tps * mean == pytest.approx(2, rel=0.1)
    assert value(df, "queries_write") == 0  # read-only: sysbench counted no writes
    assert "p_host" not in df.columns  # a socket run records no TCP host


@pytest.mark.tool
@pytest.mark.xdist_group("mariadb")
@needs("sysbench")
def test_sysbench_oltp_password_stays_out_of_the_trial(tmp_path, mariadb):
    secret = "pw-" + os.urandom(6).hex()
    subprocess.run(["mariadb", "--no-defaults", "-S", str(mariadb), "-e",
                    f"CREATE USER sb@localhost IDENTIFIED BY '{secret}'; "
                    "GRANT ALL ON sbtest.* TO sb@localhost"], check=True, capture_output=True)
    config = tmp_path / "sysbench.cnf"
    config.write_text(f"mysql-password={secret}\n")
    config.chmod(0o600)
    out = tmp_path / "t"
    trial = finished("sysbench-oltp", out, socket=mariadb, user="sb", config_file=config,
                     test="oltp_read_write", time=1, table_size=500)
    assert value(trial.measurements, "queries_write") > 0
    for f in out.iterdir():
        assert secret not in f.read_text(), f.name
    assert trial.meta["p_config_file"] == str(config)
    # and without it, the server refuses and the trial records that
    out2 = tmp_path / "t2"
    proc = run("sysbench-oltp", out2, socket=mariadb, user="sb", time=1, table_size=500)
    assert proc.returncode != 0
    assert "Access denied" in (out2 / "stderr").read_text()
