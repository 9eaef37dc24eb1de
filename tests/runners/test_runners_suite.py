"""The runners of the sysbench-suite study (seed 004: sysbench, ``hdparm -tT`` and nginx under
ApacheBench, physical vs LXC vs VirtualBox; fileio on ext4, xfs and btrfs), each run for real
here: server-nginx.sh (the server the campaign engine starts) with ab.sh against it on a
loopback port, hdparm.sh on this machine's root device, on a loop device and (device=loop) on
a loop device with direct I/O over a file it writes, sysbench.sh's
fileio in a new ext4, xfs and btrfs on a loop device. The parsers' values are checked against
the numbers in the outputs the runs wrote, and the failure paths: nothing answering, a
directory without a block device, a file system asked for a test without files, a file
system too small, a run interrupted. Under CI=true a missing tool (or root) fails the test.
"""

from __future__ import annotations

import contextlib
import os
import random
import re
import shutil
import signal
import socket
import struct
import subprocess
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from conftest import require, value

from overhead import runners
from overhead.schema import validate

pytestmark = pytest.mark.tool

SERVER = runners.RUNNERS_DIR / "server-nginx.sh"
#: What server-nginx.sh repeats (and cuts to size) as /file.bin.
LINE = b"overhead: a static file served by nginx to ApacheBench, the same bytes every time.\n"
#: fs_size=auto for a small file_total_size: 512 MiB (mkfs.xfs wants at least 300 MB).
AUTO_FS_SIZE = 512 * 1024 * 1024


def run(name: str, outdir: Path, limit: float = 120, env=None, **params) -> subprocess.CompletedProcess:
    """Run runner ``name`` into ``outdir`` with name=value parameters (``limit``: seconds)."""
    return subprocess.run(runners.command(name, outdir, **params), capture_output=True, text=True,
                          timeout=limit, env=env)


def finished(name: str, outdir: Path, **params) -> runners.Trial:
    """Run a runner that must succeed; return its trial, read and validated."""
    proc = run(name, outdir, **params)
    assert proc.returncode == 0, proc.stderr + (
        (outdir / "stderr").read_text() if (outdir / "stderr").exists() else "")
    trial = runners.read_trial(outdir)
    assert trial.ok and trial.meta["runner"] == name
    assert sorted(p.name for p in outdir.iterdir()) == ["meta", "output", "stderr"]
    validate(trial.measurements)
    return trial


def refused(name: str, outdir: Path, message: str, **params) -> str:
    """Run a runner that must refuse (usage error, exit 2) saying ``message``, writing nothing."""
    proc = run(name, outdir, **params)
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert message in proc.stderr, proc.stderr
    assert not outdir.exists() and not list(outdir.parent.glob(outdir.name + ".partial.*"))
    return proc.stderr


def field(text: str, pattern: str) -> float:
    """The number ``pattern``'s group 1 finds in an output (read independently of the parser)."""
    m = re.search(pattern, text, re.M)
    assert m, pattern
    return float(m.group(1))


def test_the_suites_runners_are_runners_and_the_server_is_not():
    assert {"ab", "hdparm", "sysbench"} <= set(runners.available())
    assert "server-nginx" not in runners.available()  # the engine starts it, as server-mariadb
    assert {"fs", "fs_size", "loop_dio"} <= set(runners.declared_params(runners.script("sysbench")))
    assert runners.declared_params(runners.script("ab")) == [
        "url", "host", "port", "path", "requests", "concurrency", "keepalive", "timelimit",
        "timeout", "recv_errors"]
    assert runners.declared_params(runners.script("hdparm")) == [
        "device", "directory", "direct", "loop_size"]


# ---- nginx and ab ------------------------------------------------------------------------------

def suite_port(exclude: tuple[int, ...] = ()) -> int:
    """A free loopback port in 18080-18099 (the range these tests may use)."""
    ports = [p for p in range(18080, 18100) if p not in exclude]
    random.shuffle(ports)
    for port in ports:
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    pytest.fail("no free loopback port in 18080-18099")


def processes_naming(text: str) -> list[int]:
    """Pids whose command line contains ``text``."""
    found = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if text.encode() in (d / "cmdline").read_bytes():
                    found.append(int(d.name))
            except OSError:
                pass
    return found


class Nginx:
    """A running server-nginx.sh: its process, port and private folder."""

    def __init__(self, proc: subprocess.Popen, port: int, folder: Path):
        self.proc, self.port, self.folder = proc, port, folder

    def url(self, path: str = "/file.bin") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def stop(self) -> int:
        """TERM, as the campaign engine stops a server; return the script's exit status."""
        if self.proc.poll() is None:
            self.proc.terminate()
        try:
            return self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
            pytest.fail("server-nginx.sh did not stop within 20 s of TERM")


@contextlib.contextmanager
def nginx(port: int, size: int = 1600, **extra):
    """Start server-nginx.sh on 127.0.0.1:port and wait for its ready line; stop it after."""
    argv = ["sh", str(SERVER), "listen=127.0.0.1", f"port={port}", f"size={size}",
            *(f"{k}={v}" for k, v in extra.items())]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    server = None
    try:
        line = proc.stdout.readline()  # the ready line, or EOF when the script gave up
        if "ready on" not in line:
            proc.wait(timeout=20)
            pytest.fail(f"server-nginx.sh did not start ({proc.returncode}): {line}{proc.stderr.read()}")
        server = Nginx(proc, port, Path(line.rsplit("(", 1)[1].rstrip(")\n")))
        yield server
    finally:
        if server is not None:
            server.stop()
        elif proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=20)
        proc.stdout.close()
        proc.stderr.close()


@pytest.fixture(scope="module")
def web():
    """One nginx serving 1600 bytes (the seed's response size) for the ab tests of this module."""
    require("nginx", "ab")
    with nginx(suite_port()) as server:
        yield server


def test_nginx_serves_one_file_of_the_size_asked_and_stops_cleanly_on_term():
    require("nginx")
    port = suite_port()
    with nginx(port, size=100000, workers=2) as server:
        folder = server.folder
        assert folder.parent == Path("/var/tmp") and folder.name.startswith("overhead-nginx.")
        assert {p.name for p in folder.iterdir()} >= {"nginx.conf", "nginx.pid", "www", "error.log"}
        conf = (folder / "nginx.conf").read_text()
        assert "daemon off;" in conf and "access_log off;" in conf and "worker_processes 2;" in conf
        with urllib.request.urlopen(server.url(), timeout=10) as r:
            body = r.read()
            assert r.status == 200 and int(r.headers["Content-Length"]) == 100000
        assert body == (LINE * (100000 // len(LINE) + 1))[:100000]  # the same bytes every start
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(server.url("/other"), timeout=10)
        assert err.value.code == 404
        master = int((folder / "nginx.pid").read_text())
        assert master in processes_naming(str(folder))
        assert server.stop() == 0  # TERM: nginx stopped, the script exits cleanly
    assert not folder.exists()  # its configuration, pid, logs and document root are gone
    assert processes_naming(str(folder)) == []  # master and workers
    with socket.socket() as s:
        assert s.connect_ex(("127.0.0.1", port)) != 0  # nothing listens there any more


def test_nginx_says_why_it_did_not_start_on_a_taken_port():
    require("nginx")
    port = suite_port()
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", port))
        holder.listen()
        proc = subprocess.run(["sh", str(SERVER), "listen=127.0.0.1", f"port={port}"],
                              capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "Address already in use" in proc.stderr
    assert f"nginx did not start listening on 127.0.0.1:{port}" in proc.stderr
    # its folder was removed (other tests' servers may have theirs)
    listen = f"listen 127.0.0.1:{port};"
    for conf in Path("/var/tmp").glob("overhead-nginx.*/nginx.conf"):
        with contextlib.suppress(FileNotFoundError):  # another server stopping meanwhile
            assert listen not in conf.read_text(), conf


@pytest.mark.parametrize("arg, message", [
    ("size=1.5k", "size='1.5k' is not a number of bytes"),
    ("workers=0", "workers='0' must be auto or a positive number"),
    ("port=70000", "port=70000 is not between 1 and 65535"),
    ("colour=blue", "unknown argument 'colour=blue'"),
])
def test_nginx_bad_arguments(arg, message):
    proc = subprocess.run(["sh", str(SERVER), arg], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2 and message in proc.stderr


@pytest.mark.parametrize("concurrency", [10, 100])
def test_ab_against_nginx_parses_what_ab_printed(tmp_path, web, concurrency):
    out = tmp_path / "t"
    trial = finished("ab", out, port=web.port, requests=2000, concurrency=concurrency)
    text = (out / "output").read_text()
    df = trial.measurements
    meta = trial.meta
    assert meta["p_url"] == web.url() and meta["p_concurrency"] == str(concurrency)
    assert meta["command"] == (f"ab -t 60 -n 2000 -c {concurrency} -s 30 {web.url()}")
    assert meta["tool_version"].startswith("This is ApacheBench, Version 2.3")
    # the parser's values are the report's numbers (ab prints ms, Kbytes of 1024 bytes)
    rate = field(text, r"^Requests per second:\s+([\d.]+)")
    assert value(df, "request_rate") == rate
    assert value(df, "time_per_request_mean") == pytest.approx(
        field(text, r"^Time per request:\s+([\d.]+) \[ms\] \(mean\)$") / 1e3)
    assert value(df, "time_per_request_concurrent_mean") == pytest.approx(
        field(text, r"^Time per request:\s+([\d.]+) \[ms\] \(mean, across") / 1e3)
    assert value(df, "transfer_rate") == pytest.approx(
        field(text, r"^Transfer rate:\s+([\d.]+) \[Kbytes/sec\]") * 1024)
    assert value(df, "failed_requests") == field(text, r"^Failed requests:\s+(\d+)") == 0
    assert value(df, "complete_requests") == 2000
    assert value(df, "html_transferred") == 2000 * 1600
    pct = df[df.metric == "latency_percentile"].set_index("p_percentile").value
    printed = {float(p): float(ms) / 1e3 for p, ms in re.findall(r"^\s+(\d+)%\s+(\d+)", text, re.M)}
    assert set(printed) == {50, 66, 75, 80, 90, 95, 98, 99, 100}
    assert pct.to_dict() == pytest.approx(printed)
    assert (df.p_document_length == 1600).all() and (df.p_concurrency == concurrency).all()
    assert (df.p_keepalive == "off").all() and (df.p_requests == 2000).all()
    # ab's own identities: time per request = concurrency / rate; rate = requests / time taken
    assert value(df, "time_per_request_mean") == pytest.approx(concurrency / rate, rel=0.01, abs=1e-6)
    assert value(df, "test_time") == pytest.approx(2000 / rate, abs=0.0006)  # printed to 1 ms
    assert "Finished 2000 requests" in trial.stderr  # ab's progress goes to stderr


def test_ab_keepalive_reuses_connections(tmp_path, web):
    trial = finished("ab", tmp_path / "t", port=web.port, requests=2000, concurrency=10,
                     keepalive="on")
    df = trial.measurements
    assert " -k " in trial.meta["command"]
    # 200 requests per connection, under nginx's 1000 per keep-alive connection: all reused
    assert value(df, "keepalive_requests") == value(df, "complete_requests") == 2000


def test_ab_url_and_the_time_limit_bound_the_run(tmp_path, web):
    out = tmp_path / "t"
    start = time.monotonic()
    trial = finished("ab", out, url=web.url(), requests=10_000_000, concurrency=4, timelimit=1)
    assert time.monotonic() - start < 20
    df = trial.measurements
    done = value(df, "complete_requests")
    assert 0 < done < 10_000_000 and value(df, "test_time") == pytest.approx(1.0, abs=0.2)
    assert f"ended the run after {int(done)} of 10000000 requests" in trial.stderr
    assert "p_host" not in trial.meta and trial.meta["p_url"] == web.url()  # url= wins


def test_ab_url_with_the_engines_host(tmp_path, web):
    """The campaign engine passes the server's address as host= and leaves "{host}" in a
    parameter as it is: ab.sh puts host into url."""
    trial = finished("ab", tmp_path / "t", url=f"http://{{host}}:{web.port}/file.bin",
                     host="127.0.0.1", requests=100, concurrency=5)
    assert trial.meta["p_url"] == web.url() and trial.meta["p_host"] == "127.0.0.1"
    assert "p_port" not in trial.meta and trial.meta["command"].endswith(f" {web.url()}")
    assert value(trial.measurements, "complete_requests") == 100


def test_ab_failed_trial_is_kept_when_nginx_does_not_answer(tmp_path):
    require("nginx", "ab")
    with nginx(suite_port()) as server:
        port = server.port
        assert server.stop() == 0  # nginx is gone: nothing answers on its port
    out = tmp_path / "t"
    proc = run("ab", out, port=port, requests=100, concurrency=10)
    assert proc.returncode != 0
    trial = runners.read_trial(out)
    assert not trial.ok and trial.exit_status == proc.returncode and trial.measurements is None
    assert "Connection refused" in trial.stderr
    assert trial.meta["p_port"] == str(port)


def test_ab_socket_timeout_bounds_a_server_that_never_answers(tmp_path):
    require("ab")
    port = suite_port()
    with socket.socket() as mute:  # accepts connections (the kernel's backlog), never replies
        mute.bind(("127.0.0.1", port))
        mute.listen(64)
        start = time.monotonic()
        proc = run("ab", tmp_path / "t", port=port, requests=10, concurrency=2, timeout=1)
        elapsed = time.monotonic() - start
    assert proc.returncode != 0 and elapsed < 15
    trial = runners.read_trial(tmp_path / "t")
    assert not trial.ok and "timeout specified has expired" in trial.stderr


@pytest.mark.parametrize("params, message", [
    ({"requests": 5, "concurrency": 6}, "concurrency=6 is more than requests=5"),
    ({"timelimit": 0}, "timelimit must be at least 1"),
    ({"url": "http://127.0.0.1:18080"}, "must be http://HOST[:PORT]/PATH"),
    ({"url": "http://{server}:18080/"}, "holds a placeholder other than {host}"),
    ({"path": "file.bin"}, "path='file.bin' must start with /"),
    ({"keepalive": "yes"}, "keepalive='yes' must be one of: off on"),
])
def test_ab_refuses_bad_parameters(tmp_path, params, message):
    refused("ab", tmp_path / "t", message, **params)


# ---- hdparm ------------------------------------------------------------------------------------

def disk_of(path: str | Path) -> str:
    """The whole block device holding ``path``, from its st_dev (a partition's parent)."""
    st = os.stat(path)
    name = Path(os.path.realpath(f"/sys/dev/block/{os.major(st.st_dev)}:{os.minor(st.st_dev)}")).name
    if Path(f"/sys/class/block/{name}/partition").exists():
        name = Path(os.path.realpath(f"/sys/class/block/{name}")).parent.name
    return f"/dev/{name}"


def readable(device: str) -> bool:
    try:
        os.close(os.open(device, os.O_RDONLY))
        return True
    except OSError:
        return False


def check_hdparm(trial: runners.Trial, device: str) -> None:
    """The parsed rates, sizes and times are the ones hdparm printed for ``device``."""
    text = (trial.path / "output").read_text()
    df = trial.measurements
    assert trial.meta["p_device"] == device and (df.p_device == device).all()
    assert trial.meta["command"] == f"hdparm -tT {device}"
    for kind, label in (("cached", "cached reads"), ("buffered", "buffered disk reads")):
        m = re.search(rf"Timing {label}:\s+(\d+) MB in\s+([\d.]+) seconds =\s+([\d.]+) MB/sec", text)
        assert m, label
        mib, secs, rate = (float(g) for g in m.groups())
        assert value(df, f"{kind}_read_rate") == pytest.approx(rate * 2**20)
        assert value(df, f"{kind}_read_bytes") == mib * 2**20
        assert value(df, f"{kind}_read_time") == secs
        # hdparm's rate is its MB over its time (printed to 10 ms)
        assert rate == pytest.approx(mib / secs, rel=0.006 / secs + 0.001)


def test_hdparm_on_the_root_device(tmp_path):
    """device=auto for /var/tmp finds this machine's disk; where the disk cannot be opened
    (a container whose devices cgroup denies it, as on the machine these tests were written
    on) the runner says so, naming the device it found, instead of a trial without rows."""
    require("hdparm", "findmnt", root=True)
    disk = disk_of("/var/tmp")
    out = tmp_path / "t"
    if readable(disk):
        trial = finished("hdparm", out, directory="/var/tmp")
        check_hdparm(trial, disk)
        assert trial.meta["p_directory"] == "/var/tmp"
    else:
        stderr = refused("hdparm", out, f"device={disk} (device=auto: the disk of directory=/var/tmp",
                         directory="/var/tmp")
        assert "cannot be read here" in stderr


@contextlib.contextmanager
def loop_disk(image: Path, size_mib: int, partition: bool):
    """A loop device on a sparse image (with one partition when asked); detached afterwards."""
    with open(image, "wb") as f:
        f.truncate(size_mib * 2**20)
        if partition:  # an MBR with one Linux partition from sector 2048 to the end
            f.seek(446)
            f.write(struct.pack("<B3sB3sII", 0, b"\0\0\0", 0x83, b"\0\0\0", 2048,
                                size_mib * 2048 - 2048))
            f.seek(510)
            f.write(b"\x55\xaa")
    loop = subprocess.run(["losetup", "-f", "--show", "-P", str(image)], capture_output=True,
                          text=True, check=True).stdout.strip()
    try:
        part = f"{loop}p1"
        if partition:
            deadline = time.monotonic() + 5
            while not Path(part).exists() and time.monotonic() < deadline:
                subprocess.run(["partx", "-a", loop], capture_output=True)
                time.sleep(0.2)
            assert Path(part).exists(), f"{part} did not appear"
        yield loop, (part if partition else loop)
    finally:
        subprocess.run(["losetup", "-d", loop], capture_output=True)


@contextlib.contextmanager
def mounted(argv: list[str], where: Path):
    where.mkdir(parents=True, exist_ok=True)
    subprocess.run(argv + [str(where)], check=True, capture_output=True)
    try:
        yield where
    finally:
        subprocess.run(["umount", str(where)], capture_output=True)


def test_hdparm_auto_resolves_a_partition_to_its_disk(tmp_path):
    """A file system on partition 1 of a loop device: device=auto measures the whole device."""
    require("hdparm", "findmnt", "losetup", "partx", "mkfs.ext4", root=True)
    with loop_disk(tmp_path / "disk.img", 300, partition=True) as (loop, part):
        subprocess.run(["mkfs.ext4", "-q", part], check=True, capture_output=True)
        with mounted(["mount", part], tmp_path / "mnt") as mnt:
            (mnt / "data").mkdir()
            trial = finished("hdparm", tmp_path / "t", directory=mnt / "data")
    check_hdparm(trial, loop)
    meta = trial.meta
    assert meta["mount_source"] == part and meta["mount_fstype"] == "ext4"
    assert meta["mount_target"] == str(tmp_path / "mnt")
    assert meta["p_directory"] == str(tmp_path / "mnt" / "data")


def test_hdparm_named_device(tmp_path):
    require("hdparm", "losetup", root=True)
    with loop_disk(tmp_path / "disk.img", 64, partition=False) as (loop, _):
        trial = finished("hdparm", tmp_path / "t", device=loop)
    check_hdparm(trial, loop)
    assert "p_directory" not in trial.meta  # not used with a named device
    assert "mount_source" not in trial.meta


@pytest.mark.parametrize("kind", ["tmpfs", "overlay"])
def test_hdparm_auto_refuses_a_folder_without_a_block_device(tmp_path, kind):
    require("hdparm", "findmnt", root=True)
    where = tmp_path / kind
    if kind == "tmpfs":
        argv = ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs"]
    else:
        for d in ("lower", "upper", "work"):
            (tmp_path / d).mkdir()
        argv = ["mount", "-t", "overlay", "overlay", "-o",
                f"lowerdir={tmp_path / 'lower'},upperdir={tmp_path / 'upper'},workdir={tmp_path / 'work'}"]
    with mounted(argv, where):
        (where / "sub").mkdir()
        refused("hdparm", tmp_path / "t",
                f"directory={where / 'sub'} is on {kind} ({kind}, mounted at {where}), which is "
                "not a block device; name one with device=/dev/...", directory=where / "sub")


def test_hdparm_refuses_what_is_not_a_block_device(tmp_path):
    require("hdparm")
    refused("hdparm", tmp_path / "t", "device=/dev/null is not a block device", device="/dev/null")
    refused("hdparm", tmp_path / "t", "directory='/nonexistent' (for device=auto) is not a directory",
            directory="/nonexistent")


def hdparm_leftovers(where: Path) -> list:
    """What a device=loop run may leave in ``where``: loop devices over it, image files."""
    return our_loops(where) + list(where.glob(".overhead-hdparm.*.img"))


def findmnt(path: Path, column: str) -> str:
    return subprocess.run(["findmnt", "-n", "-o", column, "-T", str(path)], capture_output=True,
                          text=True, check=True).stdout.splitlines()[0].strip()


def test_hdparm_on_a_loop_device_over_a_file_it_writes(tmp_path):
    """device=loop: a 256 MiB file of real data written in directory, a loop device with direct
    I/O over it read by hdparm -tT, the device detached and the file deleted afterwards."""
    require("hdparm", "losetup", "findmnt", root=True)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    size = 256 * 2**20
    trial = finished("hdparm", tmp_path / "t", device="loop", loop_size="256M", directory=scratch)
    meta = trial.meta
    loop = meta["p_device"]
    assert re.fullmatch(r"/dev/loop\d+", loop), loop
    check_hdparm(trial, loop)  # the rates, sizes and times read off the output
    df = trial.measurements
    assert 0 < value(df, "buffered_read_bytes") <= size  # hdparm -t stops at the device's end
    assert value(df, "cached_read_rate") > 0 and value(df, "buffered_read_rate") > 0
    image = meta["loop_image"]
    assert re.fullmatch(rf"{re.escape(str(scratch.resolve()))}/\.overhead-hdparm\.\d+\.img", image)
    assert meta["p_loop_size"] == meta["loop_image_bytes"] == str(size)  # bytes, from "256M"
    assert int(meta["loop_image_allocated_bytes"]) >= size  # written, not a sparse file
    assert meta["loop_dio"] == "1" and meta["p_directory"] == str(scratch)
    src, fstype, target = (findmnt(scratch, c) for c in ("SOURCE", "FSTYPE", "TARGET"))
    assert (meta["mount_source"], meta["mount_fstype"], meta["mount_target"]) == (src, fstype, target)
    assert meta["loop_backing"] == (
        f"file {image}, {size} bytes ({meta['loop_image_allocated_bytes']} allocated: random data "
        f"written with O_DIRECT and fsync), on {fstype} {src} mounted at {target}, direct-io=on")
    assert meta["command"] == f"hdparm -tT {loop}"
    assert hdparm_leftovers(scratch) == [] and not Path(image).exists()
    assert processes_naming(str(scratch)) == []


def test_hdparm_loop_failed_run_is_recorded_and_cleaned_up(tmp_path):
    """hdparm failing on the loop device (a stand-in hdparm first on PATH): the failed trial is
    kept, the device detached and the image deleted all the same."""
    require("hdparm", "losetup", "findmnt", root=True)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "hdparm"
    fake.write_text('#!/bin/sh\n[ "$1" = -V ] && { echo "hdparm v0-fake"; exit 0; }\n'
                    'echo "$*: Operation failed on purpose" >&2; exit 5\n')
    fake.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    out = tmp_path / "t"
    proc = run("hdparm", out, env=env, device="loop", loop_size="32M", directory=scratch)
    assert proc.returncode == 5, proc.stderr
    trial = runners.read_trial(out)
    assert not trial.ok and trial.exit_status == 5
    loop = trial.meta["p_device"]
    assert f"-tT {loop}: Operation failed on purpose" in trial.stderr
    assert trial.meta["loop_image_bytes"] == str(32 * 2**20)
    assert hdparm_leftovers(scratch) == []


@pytest.mark.parametrize("phase", ["writing", "reading"])
def test_hdparm_loop_interrupted_leaves_nothing(tmp_path, phase):
    """TERM while the image is written (dd) or read (hdparm): no trial, no loop device, no image."""
    require("hdparm", "losetup", "findmnt", root=True)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    proc = subprocess.Popen(runners.command("hdparm", tmp_path / "t", device="loop",
                                            loop_size="512M", directory=scratch),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    killer = threading.Timer(120, lambda: os.killpg(proc.pid, signal.SIGKILL))
    killer.start()
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, f"the {phase} never started"
            loops = our_loops(scratch)
            # dd is running once it has opened its output: its command line alone can be seen
            # a moment earlier, between exec and open (CI lost that race once)
            if phase == "writing" and processes_naming(f"of={scratch.resolve()}/.overhead-hdparm.") \
                    and list(scratch.glob(".overhead-hdparm.*.img")):
                assert not loops
                break
            if phase == "reading" and loops and processes_naming(f"hdparm\0-tT\0/dev/{loops[0]}\0"):
                break
            time.sleep(0.02)
        os.killpg(proc.pid, signal.SIGTERM)  # what a Ctrl-C or a killed SSH session does
        proc.wait(timeout=60)
    finally:
        killer.cancel()
        proc.stdout.close()
        proc.stderr.close()
    assert proc.returncode != 0
    assert not (tmp_path / "t").exists() and not list(tmp_path.glob("t.partial.*"))
    assert hdparm_leftovers(scratch) == []
    assert processes_naming(str(scratch)) == []


def test_hdparm_loop_refusals_leave_nothing(tmp_path):
    require("hdparm")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    only = "applies only to device=loop (the size of the image file it reads), not device="
    refused("hdparm", tmp_path / "t", f"loop_size=256M {only}auto", loop_size="256M")
    refused("hdparm", tmp_path / "t", f"loop_size=1G {only}/dev/null", device="/dev/null",
            loop_size="1G")
    refused("hdparm", tmp_path / "t", "parameter loop_size='1.5G' is not a size (digits, then K, "
            "M, G or T)", device="loop", loop_size="1.5G", directory=scratch)
    refused("hdparm", tmp_path / "t", "loop_size=1000K (1024000 bytes) must be a whole number of "
            "MiB, at least 16M", device="loop", loop_size="1000K", directory=scratch)
    refused("hdparm", tmp_path / "t", "loop_size=8M (8388608 bytes) must be a whole number of MiB, "
            "at least 16M", device="loop", loop_size="8M", directory=scratch)
    if os.geteuid() != 0:
        refused("hdparm", tmp_path / "t", "device=loop needs root", device="loop", directory=scratch)
        return
    require("losetup", "findmnt")
    refused("hdparm", tmp_path / "t", "directory='/nonexistent' (for device=loop: where its image "
            "is written) is not a directory", device="loop", directory="/nonexistent")
    refused("hdparm", tmp_path / "t", f"loop_size=1024T (1125899906842624 bytes) does not fit in "
            f"directory={scratch}: ", device="loop", loop_size="1024T", directory=scratch)
    assert hdparm_leftovers(scratch) == [] and list(scratch.iterdir()) == []
    # 64 MiB would fit in a 100 MiB tmpfs, but not with the 64 MiB the runner leaves free
    with mounted(["mount", "-t", "tmpfs", "-o", "size=100m", "tmpfs"], tmp_path / "small") as small:
        refused("hdparm", tmp_path / "t", f"loop_size=64M (67108864 bytes) does not fit in "
                f"directory={small}: 104857600 bytes free there, and the image must leave 64 MiB "
                "of them free", device="loop", loop_size="64M", directory=small)
        assert list(small.iterdir()) == []


def docker_image() -> str:
    """The bench image of `make hosts-up`'s dockerd; skip where that daemon is not up."""
    if shutil.which("docker") is None:
        require("docker")
    proc = subprocess.run(["docker", "image", "inspect", "overhead/bench:latest"],
                          capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        pytest.skip("the local hosts' dockerd or its overhead/bench image is not up (make hosts-up)")
    return "overhead/bench:latest"


def test_in_a_container_hdparm_and_fs_say_what_they_found(tmp_path):
    """Inside a Docker container: /var/tmp on overlay, a volume whose disk the container does
    not see, and no loop devices for sysbench's fs= or hdparm's device=loop."""
    image = docker_image()
    script = (
        "sh /runners/hdparm.sh /tmp/a; echo rc=$?; "
        "sh /runners/hdparm.sh /tmp/b directory=/vol; echo rc=$?; "
        "sh /runners/sysbench.sh /tmp/c test=fileio fs=ext4 time=1 file_total_size=8M; echo rc=$?; "
        "sh /runners/hdparm.sh /tmp/d device=loop loop_size=16M; echo rc=$?")
    proc = subprocess.run(
        ["docker", "run", "--rm", "--network", "none", "-v", f"{runners.RUNNERS_DIR}:/runners:ro",
         "-v", f"{tmp_path}:/vol", image, "sh", "-c", script],
        capture_output=True, text=True, timeout=300)
    assert proc.stdout.split() == ["rc=2"] * 4, proc.stdout + proc.stderr
    err = proc.stderr
    assert "directory=/var/tmp is on overlay (overlay, mounted at /), which is not a block device" in err
    disk = disk_of(tmp_path).removeprefix("/dev/")
    assert re.search(rf"directory=/vol is on /dev/\S+ \(\w+, mounted at /vol\), block device {disk}, "
                     rf"but /dev/{disk} is not here", err), err
    assert "fs=ext4 needs a loop device and this host has none" in err
    assert "device=loop needs a loop device and this host has none" in err


# ---- sysbench fileio in ext4, xfs and btrfs on a loop device ------------------------------------

def our_loops(prefix: Path) -> list[str]:
    """Loop devices whose backing file is under ``prefix``."""
    found = []
    for f in Path("/sys/block").glob("loop*/loop/backing_file"):
        with contextlib.suppress(OSError):
            if f.read_text().startswith(str(prefix)):
                found.append(f.parent.parent.name)
    return found


def mounts_under(prefix: Path) -> list[str]:
    return [line.split()[1] for line in Path("/proc/self/mounts").read_text().splitlines()
            if line.split()[1].startswith(str(prefix))]


def left_behind(tmp_path: Path) -> list:
    """What a fs= run may leave: mounts, loop devices, image files, its directory."""
    return (mounts_under(tmp_path) + our_loops(tmp_path) + list(tmp_path.glob(".*.img"))
            + list(tmp_path.glob("scratch")))


FS_TOOLS = {"ext4": "mkfs.ext4", "xfs": "mkfs.xfs", "btrfs": "mkfs.btrfs"}


@pytest.mark.parametrize("fs", ["ext4", "xfs", "btrfs"])
def test_sysbench_fileio_in_a_new_file_system(tmp_path, fs):
    require("sysbench", "losetup", "findmnt", FS_TOOLS[fs], root=True)
    out = tmp_path / "t"
    trial = finished("sysbench", out, test="fileio", fs=fs, time=1, file_total_size="64M",
                     directory=tmp_path / "scratch")
    meta = trial.meta
    assert meta["p_fs"] == fs and meta["p_fs_size"] == str(AUTO_FS_SIZE)
    assert meta["p_loop_dio"] == "on" and meta["fs_loop_dio"] == "1"
    assert meta["fs_mkfs"].startswith(f"{FS_TOOLS[fs]} ") and meta["fs_mkfs"].endswith(meta["fs_loop_device"])
    assert meta["fs_image"].startswith(f"{tmp_path}/.scratch.{fs}.")
    assert int(meta["fs_free_bytes"]) > 64 * 2**20
    options = {"xfs": "inode64", "btrfs": "space_cache", "ext4": "rw"}[fs]
    assert options in meta["fs_mount_options"]
    df = trial.measurements
    assert (df.p_fs == fs).all() and (df.p_fs_size == AUTO_FS_SIZE).all()
    assert (df.p_test == "fileio").all() and (df.p_mode == "random r/w").all()
    text = (out / "output").read_text()
    for metric, label in (("read_rate", "reads/s"), ("write_rate", "writes/s"),
                          ("fsync_rate", "fsyncs/s")):
        assert value(df, metric) == field(text, rf"^\s+{label}:\s+([\d.]+)$")
    assert value(df, "read_rate") > 0 and value(df, "write_rate") > 0
    assert value(df, "events") == field(text, r"total number of events:\s+(\d+)")
    assert "Creating file test_file.15" in trial.stderr  # prepare ran in the new file system
    assert left_behind(tmp_path) == []  # unmounted, detached, deleted, directory removed


def test_sysbench_fs_none_and_other_tests_record_what_applies(tmp_path):
    require("sysbench")
    trial = finished("sysbench", tmp_path / "t", test="fileio", time=1, file_total_size="4M",
                     directory=tmp_path / "scratch")
    assert trial.meta["p_fs"] == "none" and "p_fs_size" not in trial.meta
    assert (trial.measurements.p_fs == "none").all()
    trial = finished("sysbench", tmp_path / "c", test="cpu", time=1)
    assert not {"p_fs", "p_fs_size", "p_loop_dio"} & set(trial.meta)


def test_sysbench_fs_refusals_leave_nothing(tmp_path):
    require("sysbench")
    scratch = tmp_path / "scratch"
    refused("sysbench", tmp_path / "t", "fs=ext4 applies only to test=fileio (a file system for "
            "its files), not test=cpu", test="cpu", fs="ext4")
    refused("sysbench", tmp_path / "t", "parameter fs='zfs' must be one of: none ext4 xfs btrfs",
            test="fileio", fs="zfs")
    if os.geteuid() != 0:
        return
    require("losetup", "findmnt", "mkfs.ext4", "mkfs.xfs")
    refused("sysbench", tmp_path / "t", "fs_size=32M (33554432 bytes) does not hold "
            "file_total_size=64M (67108864 bytes)", test="fileio", fs="ext4", fs_size="32M",
            file_total_size="64M", directory=scratch)
    refused("sysbench", tmp_path / "t", "parameter fs_size='1.5G' is not a size", test="fileio",
            fs="ext4", fs_size="1.5G", directory=scratch)
    # mkfs.xfs wants 300 MB: its own words reach the error, and the loop device is let go
    stderr = refused("sysbench", tmp_path / "t", "mkfs.xfs failed on the image of fs_size=128M "
                     "(134217728 bytes): ", test="fileio", fs="xfs", fs_size="128M",
                     file_total_size="64M", directory=scratch)
    assert "300" in stderr and "Usage" not in stderr  # mkfs.xfs's reason, not its usage text
    # ext4 on 66 MiB: larger than the files, but not once its own metadata is in
    refused("sysbench", tmp_path / "t", "fs_size=66M (69206016 bytes): the new ext4 has", test="fileio",
            fs="ext4", fs_size="66M", file_total_size="64M", directory=scratch)
    assert left_behind(tmp_path) == []
    scratch.mkdir()
    (scratch / "keep").write_text("mine")
    refused("sysbench", tmp_path / "t", f"directory={scratch} is not empty", test="fileio",
            fs="ext4", directory=scratch)
    assert (scratch / "keep").read_text() == "mine"


def test_sysbench_fs_says_which_mkfs_is_missing(tmp_path):
    require("sysbench", "losetup", root=True)
    bin_dir = tmp_path / "bin"  # a PATH with losetup but without any mkfs.*
    bin_dir.mkdir()
    (bin_dir / "losetup").symlink_to(shutil.which("losetup"))
    env = {**os.environ, "PATH": f"{bin_dir}:/usr/bin:/bin"}
    if shutil.which("mkfs.btrfs", path=env["PATH"]):
        pytest.skip("mkfs.btrfs is on /usr/bin here")
    proc = run("sysbench", tmp_path / "t", env=env, test="fileio", fs="btrfs",
               directory=tmp_path / "scratch")
    assert proc.returncode == 2
    assert "fs=btrfs: mkfs.btrfs is not installed on this host (Debian: btrfs-progs)" in proc.stderr
    assert left_behind(tmp_path) == []


def test_sysbench_fs_failed_run_is_recorded_and_cleaned_up(tmp_path):
    require("sysbench", "losetup", "findmnt", "mkfs.ext4", root=True)
    out = tmp_path / "t"
    proc = run("sysbench", out, test="fileio", fs="ext4", time=1, file_total_size="8M",
               file_test_mode="sideways", directory=tmp_path / "scratch")
    assert proc.returncode != 0
    trial = runners.read_trial(out)
    assert not trial.ok and trial.meta["p_fs"] == "ext4"
    assert "FATAL: Invalid IO operations mode: sideways" in (out / "output").read_text()
    assert left_behind(tmp_path) == []


def test_sysbench_fs_interrupted_run_leaves_nothing(tmp_path):
    require("sysbench", "losetup", "findmnt", "mkfs.ext4", root=True)
    scratch = tmp_path / "scratch"
    proc = subprocess.Popen(runners.command("sysbench", tmp_path / "t", test="fileio", fs="ext4",
                                            time=60, file_total_size="8M", directory=scratch),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    killer = threading.Timer(120, lambda: os.killpg(proc.pid, signal.SIGKILL))
    killer.start()
    try:
        deadline = time.monotonic() + 60
        while not (scratch / "test_file.15").exists():  # mounted and prepared: the run is on
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the run never started"
            time.sleep(0.1)
        assert mounts_under(tmp_path) == [str(scratch)]
        time.sleep(0.5)
        os.killpg(proc.pid, signal.SIGTERM)  # what a Ctrl-C or a killed SSH session does
        proc.wait(timeout=60)
    finally:
        killer.cancel()
    assert proc.returncode != 0
    assert not (tmp_path / "t").exists() and not list(tmp_path.glob("t.partial.*"))
    assert left_behind(tmp_path) == []
