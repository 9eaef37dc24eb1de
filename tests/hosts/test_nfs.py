"""The local hosts' NFS export (scripts/nfs-server.sh, run by hosts-up) and the VM options that use it.

The server: rpcbind and nfs-ganesha answer on 127.0.0.1 only, export data/hosts/nfs/export as
qemu.NFS_URL, and keep the NFS sync semantics: an UNSTABLE write is not synced by itself, the
COMMIT that follows it is an fsync(2) of the file on the host (traced with strace on ganesha).
The options: a VM environment's scratch_via, nfs and nfs_options as the inventory reads them.
Guests that use the export boot for real in tests/hosts/test_qemu.py.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from overhead.campaign import inventory
from overhead.environments import qemu
from overhead.errors import InputError
from overhead.paths import ROOT


def _missing(what: str) -> None:
    """Skip on a user's machine, fail in CI (where make debian installs everything)."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"missing: {what}")
    pytest.skip(f"missing: {what}")


def _pid(pidfile: Path, comm: str) -> int:
    """The live process a pidfile names, checked by name; fails otherwise."""
    pid = int(pidfile.read_text())
    assert Path(f"/proc/{pid}/comm").read_text().strip() == comm, f"{pidfile}: pid {pid}"
    return pid


def _listening(pid: int) -> list[str]:
    """Local addresses of the TCP and UDP sockets process ``pid`` listens on or has bound."""
    out = subprocess.run(["ss", "-Hltunp"], capture_output=True, text=True).stdout
    return [line.split()[4] for line in out.splitlines() if f"pid={pid}," in line]


# --- the server ------------------------------------------------------------------------------

@pytest.mark.xdist_group("hosts")
def test_the_export_answers_on_loopback_only(hosts):
    nfs = hosts / "nfs"
    ganesha = _pid(nfs / "ganesha.pid", "ganesha.nfsd")
    addresses = _listening(ganesha)
    assert "[::ffff:127.0.0.1]:2049" in addresses or "127.0.0.1:2049" in addresses, addresses
    assert all(re.fullmatch(r"(\[::ffff:)?127\.0\.0\.1\]?:\d+", a) for a in addresses), addresses
    if (nfs / "rpcbind.pid").exists():   # ours, not an rpcbind the machine already ran
        rpcbind = _pid(nfs / "rpcbind.pid", "rpcbind")
        assert _listening(rpcbind) == ["127.0.0.1:111"]
    # registered: NFSv3 and v4, MOUNT v3 (QEMU's libnfs asks the portmapper for both)
    programs = subprocess.run(["rpcinfo", "-p", "127.0.0.1"], capture_output=True,
                              text=True).stdout
    for prog, vers, name in (("100003", "3", "nfs"), ("100003", "4", "nfs"),
                             ("100005", "3", "mountd")):
        assert re.search(rf"^\s*{prog}\s+{vers}\s+tcp\s+\d+\s+{name}\s*$", programs, re.M), programs
    # what the environments' default names is what is exported, and local.env says where
    conf = (nfs / "ganesha.conf").read_text()
    assert f'Pseudo = "{qemu.NFS_URL.split("127.0.0.1", 1)[1]}";' in conf
    assert f'Path = "{nfs / "export"}";' in conf and "Bind_addr = 127.0.0.1;" in conf
    env = (hosts / "local.env").read_text()
    assert f"OVERHEAD_NFS_URL={qemu.NFS_URL}\n" in env
    assert f"OVERHEAD_NFS_EXPORT='{nfs / 'export'}'\n" in env


@pytest.mark.xdist_group("hosts")
def test_a_second_up_leaves_the_server_alone(hosts):
    nfs = hosts / "nfs"
    before = (_pid(nfs / "ganesha.pid", "ganesha.nfsd"),
              (nfs / "rpcbind.pid").exists() and _pid(nfs / "rpcbind.pid", "rpcbind"))
    proc = subprocess.run(["sh", "scripts/nfs-server.sh", "up"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "nfs-ganesha: running on 127.0.0.1:2049" in proc.stdout and "started" not in proc.stdout
    after = (_pid(nfs / "ganesha.pid", "ganesha.nfsd"),
             (nfs / "rpcbind.pid").exists() and _pid(nfs / "rpcbind.pid", "rpcbind"))
    assert after == before


@pytest.mark.xdist_group("hosts")
def test_a_commit_is_an_fsync_on_the_host(hosts):
    """The export's sync semantics, seen from ganesha's system calls.

    qemu-io writes 8 KiB through QEMU's NFS driver (an UNSTABLE WRITE: libnfs asks FILE_SYNC
    only of a file opened O_SYNC), waits 1.5 s, flushes (a COMMIT), waits again and exits
    (``-t writeback``: qemu-io's default, writethrough, would flush after the write at once).
    The pwritev of those bytes into the export's file is not followed by an fsync until the
    flush: ganesha neither syncs an unstable write on its own (as NFS_Commit would) nor
    answers a COMMIT without syncing (as knfsd's async would).
    """
    for tool in ("strace", "qemu-io"):
        if not shutil.which(tool):
            _missing(f"{tool} (apt-get install {'strace' if tool == 'strace' else 'qemu-utils'})")
    export = hosts / "nfs" / "export"
    name = f"sync-test-{os.getpid()}.raw"
    target = export / name
    target.write_bytes(b"\0" * (1 << 20))
    ganesha = _pid(hosts / "nfs" / "ganesha.pid", "ganesha.nfsd")
    trace = Path(f"/tmp/overhead-nfs-strace-{os.getpid()}.txt")
    tracer = subprocess.Popen(["strace", "-f", "-qq", "-ttt", "-y", "-e",
                               "trace=pwrite64,pwritev,pwritev2,fsync,fdatasync,sync_file_range",
                               "-o", str(trace), "-p", str(ganesha)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(1.5)   # attached to every thread
        io = subprocess.run(["qemu-io", "-t", "writeback", "-f", "raw",
                             "-c", "write -P 0x5a 4096 8192",
                             "-c", "sleep 1500", "-c", "flush", "-c", "sleep 1500",
                             f"{qemu.NFS_URL}/{name}"], capture_output=True, text=True,
                            timeout=60)
        assert io.returncode == 0, io.stderr
        time.sleep(0.5)
    finally:
        tracer.terminate()
        tracer.wait(timeout=30)
    try:
        calls = [line for line in trace.read_text().splitlines() if f"{name}>" in line]
        writes = [float(c.split()[1]) for c in calls if " pwrite" in c and "= 8192" in c]
        syncs = [float(c.split()[1]) for c in calls if re.search(r" f(data)?sync\(", c)]
        assert len(writes) == 1 and syncs, "\n".join(calls) or trace.read_text()[-3000:]
        # nothing synced the write until the flush 1.5 s later; the flush did
        assert min(syncs) - writes[0] > 1.2, "\n".join(calls)
        assert any(1.2 < t - writes[0] < 2.7 for t in syncs), "\n".join(calls)
        data = target.read_bytes()
        assert data[4096:4096 + 8192] == b"\x5a" * 8192 and data[:4096] == b"\0" * 4096
    finally:
        target.unlink(missing_ok=True)
        trace.unlink(missing_ok=True)


@pytest.mark.xdist_group("hosts")
def test_changes_made_on_the_host_are_seen_through_the_export(hosts):
    # a file deleted and made again in the exported folder behind ganesha's back: with its
    # default caches ganesha kept the old file handle and answered NFS3ERR_STALE
    if not shutil.which("qemu-img"):
        _missing("qemu-img (apt-get install qemu-utils)")
    name = f"host-change-{os.getpid()}.raw"
    path = hosts / "nfs" / "export" / name
    url = f"{qemu.NFS_URL}/{name}"
    try:
        for size in ("4096", "8192", "0"):
            path.write_bytes(b"x" * 100)
            proc = subprocess.run(["qemu-img", "create", "-q", "-f", "raw", url, size],
                                  capture_output=True, text=True, timeout=60)
            assert proc.returncode == 0, proc.stderr
            assert path.stat().st_size == int(size)
            path.unlink()
    finally:
        path.unlink(missing_ok=True)


# --- the VM environment's options ------------------------------------------------------------

CAMPAIGN = """\
name: nfs-options
seed: 1
hosts:
  local: {address: 127.0.0.1, port: 2222, known_hosts: kh}
environments:
  vm: {kind: vm, host: local, image: img, ENV}
benchmarks:
  cpu: {runner: sysbench, params: {test: cpu}}
"""


def _load(tmp_path: Path, fields: str):
    path = tmp_path / "c.yml"
    path.write_text(CAMPAIGN.replace("ENV", fields).replace(", }", "}"))
    return inventory.load(path).environments["vm"]


def test_scratch_via_defaults_and_values(tmp_path):
    vm = _load(tmp_path, "")
    assert (vm.scratch_via, vm.scratch, vm.disk_cache) == ("disk", 3072, "none")
    vm = _load(tmp_path, "scratch: 1024, disk_cache: writeback, scratch_via: nfs-disk")
    assert (vm.scratch_via, vm.scratch, vm.disk_cache, vm.nfs) == (
        "nfs-disk", 1024, "writeback", qemu.NFS_URL)
    # nfs-mount: no scratch disk at all
    vm = _load(tmp_path, "scratch_via: nfs-mount, nfs_options: 'vers=4.2,soft,timeo=600'")
    assert (vm.scratch, vm.nfs, vm.nfs_options) == (None, qemu.NFS_URL, "vers=4.2,soft,timeo=600")
    vm = _load(tmp_path, "scratch_via: nfs-mount, nfs: 'nfs://nas.lan/srv/vm/'")
    assert (vm.nfs, vm.nfs_options) == ("nfs://nas.lan/srv/vm", qemu.NFS_MOUNT_OPTIONS)


@pytest.mark.parametrize(("fields", "error"), [
    ("scratch_via: nfs", "environments.vm.scratch_via: Input should be 'disk', 'nfs-disk' or "
                         "'nfs-mount'"),
    ("scratch_via: nfs-disk, scratch: null", "environments.vm: Value error, scratch: "
                                             "scratch_via nfs-disk needs a scratch disk size"),
    ("scratch_via: nfs-mount, scratch: 1024", "environments.vm: Value error, scratch: "
                                              "scratch_via nfs-mount has no scratch disk"),
    ("scratch_via: nfs-mount, disk_cache: none", "environments.vm: Value error, disk_cache: "
                                                 "scratch_via nfs-mount has no scratch disk"),
    ("nfs: 'nfs://127.0.0.1/overhead'", "environments.vm: Value error, nfs: only used with "
                                        "scratch_via nfs-disk or nfs-mount"),
    ("scratch_via: nfs-disk, nfs_options: hard", "environments.vm: Value error, nfs_options: "
                                                 "only used with scratch_via nfs-mount"),
    ("scratch_via: nfs-mount, nfs: '127.0.0.1:/overhead'",
     "environments.vm.nfs: Value error, nfs: '127.0.0.1:/overhead' is not an export URL "
     "nfs://HOST/PATH"),
    ("scratch_via: nfs-disk, nfs: 'nfs://127.0.0.1:2049/overhead'",
     "environments.vm.nfs: Value error, nfs: 'nfs://127.0.0.1:2049/overhead' is not an export"),
    ("scratch_via: nfs-mount, nfs_options: 'vers=4.0 hard'",
     "environments.vm: Value error, nfs_options: 'vers=4.0 hard' is not a list of mount options"),
])
def test_scratch_via_errors_name_the_line_and_the_field(tmp_path, fields, error):
    with pytest.raises(InputError) as exc:
        _load(tmp_path, fields)
    assert f"c.yml:6: {error}" in str(exc.value)


def test_the_environment_fields_reach_the_vm_spec():
    # the engine builds a qemu.VmSpec from the environment: the same checks hold there
    vm = inventory.VmEnv.model_validate({"kind": "vm", "host": "h", "image": "i",
                                         "scratch_via": "nfs-mount"})
    spec = qemu.VmSpec("vm", vm.vcpus, vm.memory, scratch_mb=vm.scratch,
                       disk_cache=vm.disk_cache, scratch_via=vm.scratch_via, nfs=vm.nfs,
                       nfs_options=vm.nfs_options)
    assert qemu.guest_nfs_source(spec) == "10.0.2.2:/overhead"
    with pytest.raises(InputError, match="vm vm: scratch_via nfs-mount has no scratch disk"):
        qemu.VmSpec("vm", 1, 256, scratch_mb=3072, scratch_via="nfs-mount")


def test_the_nfs_script_passes_shellcheck():
    if not shutil.which("shellcheck"):
        _missing("shellcheck (make debian installs it)")
    proc = subprocess.run(["shellcheck", "-x", "-s", "sh", "scripts/nfs-server.sh"],
                          cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout
    usage = subprocess.run(["sh", "scripts/nfs-server.sh"], capture_output=True, text=True,
                           cwd=ROOT)
    assert usage.returncode == 2 and "usage: sh scripts/nfs-server.sh up|down" in usage.stderr
