"""scripts/hosts-up.sh and hosts-down.sh: the local hosts (sshd, Docker, the Debian image).

hosts-up runs once for the module (local_hosts.up: cold it builds the image, minutes); the
tests then check what it left: a second run that changes nothing, an sshd that answers with the
host key in known_hosts, a Docker image with the tools, the VM's disk, kernel and initrd.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import local_hosts
import paramiko
import pytest
from conftest import free_port

from overhead.paths import ROOT

UP = ROOT / "scripts" / "hosts-up.sh"
DOWN = ROOT / "scripts" / "hosts-down.sh"


def _env(hosts: Path) -> dict[str, str]:
    """data/hosts/local.env as a dict (NAME=value or NAME='value' lines)."""
    out = {}
    for line in (hosts / "local.env").read_text().splitlines():
        m = re.fullmatch(r"([A-Z_]+)='?(.*?)'?", line)
        if m:
            out[m[1]] = m[2]
    return out


def _alive(pid: int) -> bool:
    """Whether a process with that pid runs (a zombie does not count)."""
    try:
        return "\nState:\tZ" not in Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False


def _pid(pidfile: Path) -> int | None:
    """The pid a pidfile names if that process is alive, else None."""
    try:
        pid = int(pidfile.read_text())
    except (FileNotFoundError, ValueError):
        return None
    return pid if _alive(pid) else None


@pytest.mark.xdist_group("hosts")
def test_a_second_hosts_up_changes_nothing_and_is_fast(hosts):
    current = os.readlink(hosts / "image" / "current")
    sshd = _pid(hosts / "sshd" / "sshd.pid")
    ganesha = _pid(hosts / "nfs" / "ganesha.pid")
    t0 = time.monotonic()
    proc = subprocess.run(["sh", str(UP)], capture_output=True, text=True, timeout=600)
    took = time.monotonic() - t0
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert took < 30, f"warm hosts-up took {took:.1f} s:\n{out}"
    assert f"image: {current} cached" in out and "left alone" in out and "present" in out
    for word in ("generated", "building", "imported", "sshd: started", "dockerd: starting",
                 "restarting"):
        assert word not in out, out
    assert os.readlink(hosts / "image" / "current") == current
    assert _pid(hosts / "sshd" / "sshd.pid") == sshd
    # the NFS export (scripts/nfs-server.sh) too
    assert ganesha and _pid(hosts / "nfs" / "ganesha.pid") == ganesha
    assert "nfs-ganesha: running on 127.0.0.1:2049" in out
    assert not list((hosts / "image").glob(".build-*"))   # no half build left


@pytest.mark.xdist_group("hosts")
def test_sshd_answers_with_the_key_in_known_hosts(hosts):
    port = int(_env(hosts)["OVERHEAD_SSH_PORT"])
    client = paramiko.SSHClient()
    client.load_host_keys(str(hosts / "ssh" / "known_hosts"))
    client.set_missing_host_key_policy(paramiko.RejectPolicy())
    client.connect("127.0.0.1", port, "root", key_filename=str(hosts / "ssh" / "id_ed25519"),
                   look_for_keys=False, allow_agent=False, timeout=10)
    try:
        _, out, _ = client.exec_command("id -u; ip -4 addr show lo | grep -c 127.0.0.1")
        assert out.read().decode().split() == ["0", "1"]
        # forwarding works (the VM's SSH is reached through this sshd as a gateway)
        chan = client.get_transport().open_channel("direct-tcpip", ("127.0.0.1", port),
                                                   ("127.0.0.1", 0))
        assert chan.recv(4).startswith(b"SSH-")
        chan.close()
    finally:
        client.close()
    # a client that does not know the host key is turned away (RejectPolicy)
    stranger = paramiko.SSHClient()
    stranger.set_missing_host_key_policy(paramiko.RejectPolicy())
    with pytest.raises(paramiko.SSHException, match="not found in known_hosts"):
        stranger.connect("127.0.0.1", port, "root", key_filename=str(hosts / "ssh" / "id_ed25519"),
                         look_for_keys=False, allow_agent=False, timeout=10)
    stranger.close()
    # password logins are off; the key is the only way in
    config = (hosts / "sshd" / "sshd_config").read_text()
    assert "PasswordAuthentication no" in config and "AllowTcpForwarding yes" in config


@pytest.mark.xdist_group("hosts")
@pytest.mark.parametrize("runtime", ["runc", "crun"])
def test_the_docker_image_runs_the_tools(hosts, runtime):
    env = _env(hosts)
    if runtime not in env["OVERHEAD_DOCKER_RUNTIMES"].split(","):
        # a Docker engine hosts-up did not start and that lacks crun (hosts-up warns)
        assert not (hosts / "dockerd" / "dockerd.pid").exists()
        pytest.skip(f"this dockerd has no runtime {runtime}: {env['OVERHEAD_DOCKER_RUNTIMES']}")
    proc = subprocess.run(["docker", "run", "--rm", "--runtime", runtime, "overhead/bench:latest",
                           "sh", "-c", "sysbench --version && fio --version && netperf -V && "
                           "redis-server --version && nuttcp -V"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("sysbench 1.") and lines[1].startswith("fio-3.")
    assert "Netperf version" in lines[2] and "Redis server" in lines[3]
    # the latest tag is the image of the current recipe
    ids = [subprocess.run(["docker", "image", "inspect", "-f", "{{.Id}}", tag], capture_output=True,
                          text=True).stdout.strip()
           for tag in ("overhead/bench:latest", env["OVERHEAD_DOCKER_IMAGE"])]
    assert ids[0] and ids[0] == ids[1]
    assert env["OVERHEAD_DOCKER_IMAGE"] == f"overhead/bench:{os.readlink(hosts / 'image' / 'current')}"


@pytest.mark.xdist_group("hosts")
def test_the_vm_image_is_complete(hosts):
    env = _env(hosts)
    image = hosts / "image" / "current"
    assert image.resolve() == Path(env["OVERHEAD_IMAGE_DIR"])
    kernel = (image / "kernel-version").read_text().strip()
    assert kernel == env["OVERHEAD_GUEST_KERNEL"]
    assert (image / "vmlinuz").read_bytes() == Path(f"/boot/vmlinuz-{kernel}").read_bytes()
    assert (image / "initrd.img").stat().st_size > 1 << 20
    with open(image / "disk.raw", "rb") as disk:
        disk.seek(1024 + 0x38)
        assert disk.read(2) == b"\x53\xef"   # the ext2/3/4 superblock magic
    tree = image / "rootfs"
    assert (tree / "usr" / "lib" / "modules" / kernel / "kernel" / "drivers" / "net").is_dir()
    assert (tree / "usr" / "local" / "sbin" / "overhead-probe").stat().st_mode & 0o111
    guest_pub = (hosts / "ssh" / "guest_host_ed25519_key.pub").read_text().split()[:2]
    assert (tree / "etc" / "ssh" / "ssh_host_ed25519_key.pub").read_text().split()[:2] == guest_pub
    client_pub = (hosts / "ssh" / "id_ed25519.pub").read_text()
    assert (tree / "root" / ".ssh" / "authorized_keys").read_text() == client_pub
    assert os.readlink(tree / "etc" / "systemd" / "system" / "redis-server.service") == "/dev/null"
    known = (hosts / "ssh" / "known_hosts").read_text().splitlines()
    assert known[0].startswith(f"[127.0.0.1]:{env['OVERHEAD_SSH_PORT']} ssh-ed25519 ")
    assert known[1] == "overhead-local-vm " + " ".join(guest_pub)
    assert oct((hosts / "ssh" / "id_ed25519").stat().st_mode & 0o777) == "0o600"


def test_the_image_scripts_pass_shellcheck():
    # scripts/*.sh are checked by make lint; the image's build script lives under images/
    if not shutil.which("shellcheck"):
        if os.environ.get("CI") == "true":
            pytest.fail("shellcheck missing (make debian installs it)")
        pytest.skip("shellcheck missing (make debian installs it)")
    proc = subprocess.run(["shellcheck", "-x", "-s", "sh", "images/debian/build.sh",
                           str(UP.relative_to(ROOT)), str(DOWN.relative_to(ROOT)),
                           "scripts/nfs-server.sh"],
                          cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout


@pytest.mark.xdist_group("hosts")
@pytest.mark.hosts_exclusive  # the other worker's host tests wait while the hosts are down
def test_hosts_down_stops_by_pid_and_keeps_the_images(hosts):
    sshd = _pid(hosts / "sshd" / "sshd.pid")
    dockerd = _pid(hosts / "dockerd" / "dockerd.pid")   # None: a dockerd hosts-up did not start
    ganesha = _pid(hosts / "nfs" / "ganesha.pid")
    rpcbind = _pid(hosts / "nfs" / "rpcbind.pid")       # None: an rpcbind that already ran
    current = os.readlink(hosts / "image" / "current")
    # a server a killed campaign left (its pid file: "PID STARTTIME", session leader), and a
    # pid file whose start time is not its process's (a pid reused since): only the first goes
    left = Path("/var/tmp/overhead/test-leftover/trials")
    left.mkdir(parents=True, exist_ok=True)
    server = subprocess.Popen(["sleep", "600"], start_new_session=True)
    other = subprocess.Popen(["sleep", "600"], start_new_session=True)
    start = Path(f"/proc/{server.pid}/stat").read_text().split(") ")[1].split()[19]
    (left / "server-native-redis.pid").write_text(f"{server.pid} {start}\n")
    (left / "server-native-mysql.pid").write_text(f"{other.pid} 1\n")
    # and a campaign's VM left running (its state folder beside the trials), on a bridge: its
    # tap goes with it
    from overhead.environments import qemu

    bridge = "ovhdtb0"
    subprocess.run(["ip", "link", "del", bridge], capture_output=True)
    subprocess.run(["ip", "link", "add", bridge, "type", "bridge"], check=True)
    spec = qemu.VmSpec("test-leftover-vm", 1, 256, bridge=bridge, guest_address="10.231.9.200/24")
    boot = subprocess.run(["sh", "-c", qemu.boot_command(
        spec, str(hosts / "image" / "current"), str(left.parent / "vm-vm"), free_port(),
        "tcg")], capture_output=True, text=True, timeout=60)
    assert boot.returncode == 0, boot.stderr
    guest = int(qemu.parse_boot(boot.stdout)["pid"])
    tap = qemu.tap_name(spec)
    proc = subprocess.run(["sh", str(DOWN)], capture_output=True, text=True, timeout=300)
    try:
        assert proc.returncode == 0, proc.stderr
        assert f"vm-vm: stopped pid {guest}" in proc.stdout and not _alive(guest)
        assert f"tap {tap}: removed" in proc.stdout
        assert subprocess.run(["ip", "link", "show", tap], capture_output=True).returncode != 0
        assert server.wait(timeout=15) is not None and other.poll() is None
        assert f"server server-native-redis: stopped the session of pid {server.pid}" in proc.stdout
        assert "server-native-mysql" not in proc.stdout
        assert f"sshd: stopped pid {sshd}" in proc.stdout
        assert sshd and not _alive(sshd)
        if dockerd:
            assert f"dockerd: stopped pid {dockerd}" in proc.stdout and not _alive(dockerd)
        else:
            assert "dockerd: not started by hosts-up" in proc.stdout
        assert (hosts / "image" / current / "disk.raw").exists()
        assert ganesha and f"nfs-ganesha: stopped pid {ganesha}" in proc.stdout
        assert not _alive(ganesha) and not (hosts / "nfs" / "ganesha.pid").exists()
        if rpcbind:
            assert f"rpcbind: stopped pid {rpcbind}" in proc.stdout and not _alive(rpcbind)
        else:
            assert "rpcbind: not started by hosts-up" in proc.stdout
        assert (hosts / "nfs" / "export").is_dir()   # the exported files stay
        again = subprocess.run(["sh", str(DOWN)], capture_output=True, text=True, timeout=60)
        assert "sshd: not started by hosts-up" in again.stdout
        assert "nfs-ganesha: not started by hosts-up" in again.stdout
    finally:
        for p in (server, other):
            p.kill()
            p.wait()
        shutil.rmtree(left.parent, ignore_errors=True)
        subprocess.run(["ip", "link", "del", bridge], capture_output=True)
        # back up for whatever runs next (the session's end stops them if this process started
        # them); local_hosts.up also checks that sshd and dockerd answer again
        back = subprocess.run(["sh", str(UP)], capture_output=True, text=True, timeout=600)
        local_hosts.up()
    assert back.returncode == 0, back.stderr
    assert f"image: {current} cached" in back.stdout and "sshd: started" in back.stdout
    assert "nfs-ganesha: started on 127.0.0.1:2049" in back.stdout, back.stdout
    if dockerd:
        assert "dockerd: started" in back.stdout, back.stdout
