"""overhead.environments.qemu: the commands that boot, pin, probe and stop a QEMU guest.

The command builders are tested by running what they build: under a stand-in QEMU that records
its arguments, against stand-in processes for stop, and for real on this machine's image (the
probe, then a boot under the accelerator it leads to, SSH into the guest, pinning, stop).
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import free_port

from overhead.campaign.inventory import VmEnv
from overhead.environments import qemu
from overhead.errors import InputError

#: How long a test waits for a guest's SSH: the engine's own default (``boot_timeout``). A TCG
#: guest answers in about 26 s on an idle host, but in one CI run it took over 150 s with the
#: other pytest worker busy (the guest's watchdog reported soft lockups: its vCPU threads were
#: starved), so the tests allow what a campaign allows.
BOOT_DEADLINE = VmEnv.model_fields["boot_timeout"].default

SPEC = qemu.VmSpec(name="t-vm", vcpus=2, memory_mb=512)
TUNED = qemu.VmSpec(name="t-vm", vcpus=3, memory_mb=512, tuning="tuned", pinning=[0, 1],
                    hugepages=True)


def sh(command: str, *, env=None, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(["sh", "-c", command], capture_output=True, text=True, env=env,
                          timeout=timeout)


# --- a stand-in QEMU: records its arguments, writes the pidfile like -daemonize does ----------

@pytest.fixture
def fake_qemu(tmp_path):
    """A PATH with qemu-system-x86_64 and qemu-img that log their argv (one word a line)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "argv"
    (bin_dir / "qemu-system-x86_64").write_text(
        "#!/bin/sh\n"
        f"for a in \"$@\"; do printf '%s\\n' \"$a\"; done > {log}.qemu\n"
        # -pidfile PATH: write our pid there, as the daemonized QEMU would
        "while [ $# -gt 0 ]; do [ \"$1\" = -pidfile ] && echo $$ > \"$2\"; shift; done\n")
    (bin_dir / "qemu-img").write_text(
        "#!/bin/sh\n"
        f"for a in \"$@\"; do printf '%s\\n' \"$a\"; done > {log}.img\n"
        "for last; do :; done; : > \"$last\"\n")
    # ip: logs each call (one line), and knows one bridge, br-test (`link show ... type bridge`)
    (bin_dir / "ip").write_text(
        "#!/bin/sh\n"
        f"echo \"$*\" >> {log}.ip\n"
        "case \"$*\" in *'show dev br-test type bridge') echo '9: br-test: <UP> mtu 1500' ;; esac\n")
    for f in bin_dir.iterdir():
        f.chmod(0o755)
    image = tmp_path / "image-hash"
    image.mkdir()
    for name in ("disk.raw", "vmlinuz", "initrd.img"):
        (image / name).write_bytes(b"x")
    (tmp_path / "current").symlink_to("image-hash")
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}")

    def run(spec, accel, *, ports=(), image_dir=None, also_forward=None):
        state = tmp_path / "state"
        proc = sh(qemu.boot_command(spec, str(image_dir or tmp_path / "current"), str(state),
                                    10022, accel, ports=ports, also_forward=also_forward),
                  env=env)
        argv = (log.with_suffix(".qemu").read_text().splitlines()
                if log.with_suffix(".qemu").exists() else None)
        img = log.with_suffix(".img").read_text().splitlines() if log.with_suffix(".img").exists() else None
        return proc, argv, img, state

    run.image = image
    run.env = env
    run.ip_log = log.with_suffix(".ip")
    return run


def _after(argv: list[str], flag: str) -> list[str]:
    """Every value that follows ``flag`` in argv."""
    return [argv[i + 1] for i, a in enumerate(argv[:-1]) if a == flag]


def test_untuned_boot_uses_qemu_defaults(fake_qemu):
    proc, argv, img, state = fake_qemu(SPEC, "tcg")
    assert proc.returncode == 0, proc.stderr
    assert qemu.parse_boot(proc.stdout) == {"accel": "tcg", "hugepages": "no",
                                            "disk_cache": "none-no-scratch", "scratch": "none",
                                            "pid": (state / "qemu.pid").read_text().strip()}
    assert _after(argv, "-accel") == ["tcg"]
    assert _after(argv, "-smp") == ["2"] and "-cpu" not in argv   # QEMU's default CPU model
    assert _after(argv, "-m") == ["512"]
    assert _after(argv, "-name") == ["t-vm,debug-threads=on"]
    # the image folder resolved once (the `current` symlink may move while the VM runs)
    image = str(fake_qemu.image)
    assert _after(argv, "-kernel") == [f"{image}/vmlinuz"]
    assert _after(argv, "-initrd") == [f"{image}/initrd.img"]
    assert _after(argv, "-append")[0].startswith("root=/dev/vda rw console=ttyS0")
    assert _after(argv, "-drive") == [f"file={state}/overlay.qcow2,format=qcow2,if=virtio"]
    assert img == ["create", "-q", "-f", "qcow2", "-F", "raw", "-b", f"{image}/disk.raw",
                   f"{state}/overlay.qcow2"]
    assert _after(argv, "-netdev") == ["user,id=n0,hostfwd=tcp:127.0.0.1:10022-:22"]
    assert _after(argv, "-device") == ["virtio-net-pci,netdev=n0"]
    assert _after(argv, "-serial") == [f"file:{state}/serial.log"]
    assert _after(argv, "-pidfile") == [f"{state}/qemu.pid"] and "-daemonize" in argv
    assert _after(argv, "-display") == ["none"] and "-mem-path" not in argv


@pytest.mark.parametrize(("cache", "aio"), [("none", ",aio=native"), ("writeback", "")])
def test_scratch_disk_is_a_fresh_ext4_with_the_asked_host_cache(fake_qemu, cache, aio):
    spec = qemu.VmSpec("t-vm", 2, 512, scratch_mb=64, disk_cache=cache)
    proc, argv, _, state = fake_qemu(spec, "tcg")
    assert proc.returncode == 0, proc.stderr
    assert qemu.parse_boot(proc.stdout)["disk_cache"] == cache
    assert qemu.parse_boot(proc.stdout)["scratch"] == f"{state}/scratch.raw"
    assert _after(argv, "-drive") == [f"file={state}/overlay.qcow2,format=qcow2,if=virtio",
                                      f"file={state}/scratch.raw,format=raw,if=virtio,"
                                      f"cache={cache}{aio}"]
    disk = state / "scratch.raw"
    assert disk.stat().st_size == 64 * 2**20
    header = subprocess.run(["dumpe2fs", "-h", str(disk)], capture_output=True, text=True)
    assert "Filesystem volume name:   overhead-scratch" in header.stdout, header.stderr
    groups = [ln for ln in subprocess.run(["dumpe2fs", str(disk)], capture_output=True,
                                          text=True).stdout.splitlines() if ln.startswith("Group ")
              and "(Blocks" in ln]
    # every inode table written at mkfs time: nothing left for the guest's ext4lazyinit
    assert groups and all("ITABLE_ZEROED" in ln for ln in groups)
    with pytest.raises(InputError, match="disk cache"):
        qemu.VmSpec("t-vm", 2, 512, scratch_mb=64, disk_cache="unsafe")


@pytest.mark.parametrize(("accel", "cpu"), [("kvm", "host"), ("tcg", "max")])
def test_tuned_boot_sets_cpu_model_and_topology(fake_qemu, accel, cpu):
    proc, argv, _, _ = fake_qemu(TUNED, accel, ports=[6379, 12865])
    assert proc.returncode == 0, proc.stderr
    assert _after(argv, "-accel") == [accel] and _after(argv, "-cpu") == [cpu]
    assert _after(argv, "-smp") == ["3,sockets=1,cores=3,threads=1"]
    assert _after(argv, "-netdev") == [
        "user,id=n0,hostfwd=tcp:127.0.0.1:10022-:22,hostfwd=tcp:127.0.0.1:6379-:6379,"
        "hostfwd=udp:127.0.0.1:6379-:6379,hostfwd=tcp:127.0.0.1:12865-:12865,"
        "hostfwd=udp:127.0.0.1:12865-:12865"]


def test_a_client_elsewhere_gets_the_forwards_on_the_hosts_address_too(fake_qemu):
    proc, argv, _, _ = fake_qemu(SPEC, "tcg", ports=[6379], also_forward="10.231.0.1")
    assert proc.returncode == 0, proc.stderr
    assert _after(argv, "-netdev") == [
        "user,id=n0,hostfwd=tcp:127.0.0.1:10022-:22,hostfwd=tcp:127.0.0.1:6379-:6379,"
        "hostfwd=udp:127.0.0.1:6379-:6379,hostfwd=tcp:10.231.0.1:6379-:6379,"
        "hostfwd=udp:10.231.0.1:6379-:6379"]


BRIDGED = qemu.VmSpec(name="overhead-c-vm", vcpus=2, memory_mb=512, bridge="br-test",
                      guest_address="10.231.5.50/24")


def test_a_guest_on_a_bridge_has_a_tap_there_and_no_user_mode_network(fake_qemu):
    proc, argv, _, state = fake_qemu(BRIDGED, "tcg", ports=[6379])
    assert proc.returncode == 0, proc.stderr
    tap = qemu.tap_name(BRIDGED)
    assert len(tap) <= 15 and tap == qemu.tap_name(BRIDGED) != qemu.tap_name(SPEC)
    vhost = "on" if Path("/dev/vhost-net").exists() else "off"
    assert qemu.parse_boot(proc.stdout)["vhost"] == vhost
    # a tap on the bridge, nothing forwarded, the MAC from the address, no user-mode network
    assert _after(argv, "-netdev") == [f"tap,id=n0,ifname={tap},script=no,downscript=no,"
                                       f"vhost={vhost}"]
    assert _after(argv, "-device") == ["virtio-net-pci,netdev=n0,mac=52:54:00:e7:05:32"]
    assert "hostfwd" not in " ".join(argv) and "user," not in " ".join(argv)
    # the address on the kernel command line, for the image's systemd-network-generator
    assert _after(argv, "-append")[0].endswith(
        " net.ifnames=0 panic=1 ip=10.231.5.50:::255.255.255.0::eth0:off")
    assert fake_qemu.ip_log.read_text().splitlines() == [
        "-o link show dev br-test type bridge", f"link del {tap}",
        f"tuntap add dev {tap} mode tap", f"link set {tap} master br-test",
        f"link set {tap} up"]
    assert (state / "tap").read_text().strip() == tap
    assert qemu.guest_ip(BRIDGED) == "10.231.5.50" and qemu.guest_ip(SPEC) is None
    assert qemu.network_fact(BRIDGED, {"vhost": "off"}) == (
        f"tap {tap} on bridge br-test, virtio-net without vhost (no /dev/vhost-net on the "
        "host), guest 10.231.5.50/24")
    assert qemu.network_fact(SPEC) == qemu.NETWORK
    # stopping the guest removes its tap, whether QEMU still ran or not
    fake_qemu.ip_log.unlink()
    stop = sh(qemu.stop_command(str(state)), env=fake_qemu.env)
    assert stop.stdout.strip() == "not running"
    assert fake_qemu.ip_log.read_text().splitlines() == [f"link del {tap}"]
    assert not (state / "tap").exists()


def test_a_guest_on_a_missing_bridge_does_not_boot(fake_qemu):
    spec = qemu.VmSpec(name="t-vm", vcpus=1, memory_mb=256, bridge="br-none",
                       guest_address="10.231.5.50/24")
    proc, argv, _, _ = fake_qemu(spec, "tcg")
    assert proc.returncode != 0 and argv is None
    assert "no bridge br-none on this host" in proc.stderr
    assert "tuntap" not in fake_qemu.ip_log.read_text()


@pytest.mark.parametrize(("kwargs", "match"), [
    (dict(bridge="br0"), "needs both bridge and guest_address"),
    (dict(guest_address="10.0.0.5/24"), "needs both bridge and guest_address"),
    (dict(bridge="a-bridge-name-too-long", guest_address="10.0.0.5/24"), "interface name"),
    (dict(bridge="br0; reboot", guest_address="10.0.0.5/24"), "interface name"),
    (dict(bridge="br0", guest_address="10.0.0.5"), "not a host address with its prefix"),
    (dict(bridge="br0", guest_address="10.0.0.0/24"), "not a host address with its prefix"),
    (dict(bridge="br0", guest_address="10.0.0.255/24"), "not a host address with its prefix"),
    (dict(bridge="br0", guest_address="10.0.0.300/24"), "not a host address with its prefix"),
    (dict(bridge="br0", guest_address="10.0.0.5/31"), "not a host address with its prefix"),
    (dict(bridge="br0", guest_address="10.0.0.5/24", scratch_via="nfs-mount"),
     "cannot reach its host's loopback"),
])
def test_vmspec_rejects_bad_bridge_fields(kwargs, match):
    with pytest.raises(InputError, match=f"vm t-vm: .*{match}"):
        qemu.VmSpec(name="t-vm", vcpus=1, memory_mb=256, **kwargs)


@pytest.mark.parametrize(("fields", "match"), [
    (dict(bridge="ovf-br"), "guest_address: a guest on a bridge needs both"),
    (dict(guest_address="10.231.0.50/24"), "bridge: a guest on a bridge needs both"),
    (dict(bridge="ovf-br", guest_address="10.231.0.50"), "not a host address"),
    (dict(bridge="ovf-br", guest_address="10.231.0.50/24", ssh_port=10022),
     "ssh_port: only used with QEMU's user-mode network"),
    (dict(bridge="ovf-br", guest_address="10.231.0.50/24", ports=[80]),
     "ports: only used with QEMU's user-mode network"),
])
def test_a_vm_environment_on_a_bridge_is_checked_where_it_is_written(fields, match):
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match=match):
        VmEnv(kind="vm", host="local", image="/i", **fields)
    ok = VmEnv(kind="vm", host="local", image="/i", bridge="ovf-br",
               guest_address="10.231.0.50/24")
    assert ok.guest_address == "10.231.0.50/24"


def test_hugepages_only_when_asked_and_available(fake_qemu):
    proc, argv, _, _ = fake_qemu(TUNED, "kvm")
    free_mb = 0
    meminfo = Path("/proc/meminfo").read_text()
    mounted = " /dev/hugepages hugetlbfs " in Path("/proc/mounts").read_text()
    fields = dict(line.split(":", 1) for line in meminfo.splitlines())
    if mounted:
        free_mb = int(fields["HugePages_Free"]) * int(fields["Hugepagesize"].split()[0]) // 1024
    available = mounted and free_mb >= TUNED.memory_mb
    assert qemu.parse_boot(proc.stdout)["hugepages"] == ("yes" if available else "no")
    assert ("-mem-path" in argv) == available
    # never without being asked
    _, argv, _, _ = fake_qemu(qemu.VmSpec("t-vm", 1, 512, "tuned"), "kvm")
    assert "-mem-path" not in argv and "/dev/hugepages" not in qemu.boot_command(
        qemu.VmSpec("t-vm", 1, 512, "tuned"), "/i", "/s", 1, "kvm")


def test_boot_refuses_a_missing_image_and_an_undecided_accelerator(fake_qemu, tmp_path):
    proc, argv, _, _ = fake_qemu(SPEC, "tcg", image_dir=tmp_path / "nowhere")
    assert proc.returncode != 0 and argv is None and "make hosts-up" in proc.stderr
    with pytest.raises(InputError, match="kvm' or 'tcg"):
        qemu.boot_command(SPEC, "/i", "/s", 10022, "auto")


def test_boot_paths_are_quoted(fake_qemu, tmp_path):
    odd = tmp_path / "my image; rm -rf x"
    shutil.copytree(fake_qemu.image, odd)
    proc, argv, img, _ = fake_qemu(SPEC, "tcg", image_dir=odd)
    assert proc.returncode == 0, proc.stderr
    assert _after(argv, "-kernel") == [f"{odd}/vmlinuz"] and img[-2] == f"{odd}/disk.raw"


def test_commands_compose_with_what_follows():
    # the executor appends '; mkdir -p ...': an early exit must not skip it
    out = sh(qemu.stop_command("/nonexistent/state") + "; echo after").stdout.split()
    assert out == ["not", "running", "after"]


@pytest.mark.parametrize("kwargs", [dict(vcpus=0), dict(memory_mb=64), dict(tuning="fast"),
                                    dict(pinning=[]), dict(pinning=[-1]), dict(name="a b")])
def test_vmspec_rejects_bad_fields(kwargs):
    fields = dict(name="vm1", vcpus=1, memory_mb=256) | kwargs
    with pytest.raises(InputError, match="vm "):
        qemu.VmSpec(**fields)


# --- the accelerator -------------------------------------------------------------------------

def test_probe_boots_under_kvm_alone_with_the_probe_as_init():
    words = shlex.split(qemu.probe_command("/img dir", 25).split(" </dev/null")[0])
    assert words[:4] == ["timeout", "-k", "5", "25"]
    assert words[words.index("-accel") + 1] == "kvm" and words.count("-accel") == 1
    assert "init=/usr/local/sbin/overhead-probe" in words[words.index("-append") + 1]
    assert words[words.index("-drive") + 1] == "file=/img dir/disk.raw,format=raw,if=virtio,snapshot=on"
    assert words[words.index("-kernel") + 1] == "/img dir/vmlinuz"


def _fake_probe_qemu(tmp_path, body: str) -> dict:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    exe = bin_dir / "qemu-system-x86_64"
    exe.write_text("#!/bin/sh\n" + body + "\n")
    exe.chmod(0o755)
    return dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}")


def test_probe_succeeds_on_the_marker_and_times_out_on_a_hang(tmp_path):
    env = _fake_probe_qemu(tmp_path, "echo '[ 1.0] Run /init'; echo OVERHEAD-GUEST-UP\r; echo 'reboot: Power down'")
    out = sh(qemu.probe_command("/img", 10), env=env).stdout
    assert qemu.probe_succeeded(out) and "probe_exit=0" in out
    env = _fake_probe_qemu(tmp_path, "echo 'Kernel command line: init=/usr/local/sbin/overhead-probe'; sleep 60")
    t0 = time.monotonic()
    out = sh(qemu.probe_command("/img", 2), env=env).stdout
    assert time.monotonic() - t0 < 15
    assert not qemu.probe_succeeded(out) and "probe_exit=124" in out
    env = _fake_probe_qemu(tmp_path, "echo 'Could not access KVM kernel module' >&2; exit 1")
    out = sh(qemu.probe_command("/img", 10), env=env).stdout
    assert not qemu.probe_succeeded(out) and "probe_exit=1" in out


def test_choose_accel():
    assert qemu.choose_accel("auto", True)[0] == "kvm"
    accel, reason = qemu.choose_accel("auto", False)
    assert accel == "tcg" and "TCG" in reason
    assert qemu.choose_accel("tcg", True)[0] == "tcg"   # asked for: TCG even where KVM works
    assert qemu.choose_accel("kvm", True)[0] == "kvm"
    with pytest.raises(InputError, match="environment vm-tuned: .*kvm was requested"):
        qemu.choose_accel("kvm", False, "vm-tuned")
    with pytest.raises(InputError, match="environment vm: accel must be one of"):
        qemu.choose_accel("KVM", True)


def test_variant_says_tcg_and_never_hides_it():
    assert qemu.variant(SPEC, "kvm") == "untuned"
    assert qemu.variant(TUNED, "tcg") == "tuned,accel=tcg"
    # on a bridge: another network path, never pooled with the user-mode one
    assert qemu.variant(BRIDGED, "tcg") == "untuned,accel=tcg,net=tap"
    assert qemu.variant(BRIDGED, "kvm") == "untuned,net=tap"
    from overhead.environments.labels import label
    assert label("vm", "untuned,accel=tcg,net=tap") == "QEMU TCG untuned tap"
    assert label("kvm", "tuned,net=tap") == "KVM-tuned tap"


# --- stop ------------------------------------------------------------------------------------

def _named_process(tmp_path, script: str) -> subprocess.Popen:
    """A shell whose process name is qemu-system-x86_64 (a copy of sh under that name)."""
    exe = tmp_path / "qemu-system-x86_64"
    shutil.copy("/bin/sh", exe)
    proc = subprocess.Popen([str(exe), "-c", script])
    time.sleep(0.3)
    return proc


def test_stop_terms_then_kills_the_process_in_the_pidfile(tmp_path):
    state = tmp_path / "state"
    state.mkdir()
    proc = _named_process(tmp_path, "while :; do sleep 0.2; done")
    (state / "qemu.pid").write_text(f"{proc.pid}\n")
    out = sh(qemu.stop_command(str(state)))
    assert out.stdout.strip() == f"stopped pid {proc.pid}" and proc.wait(5) == -15
    # one that ignores TERM is killed after the wait
    stubborn = _named_process(tmp_path, "trap '' TERM; while :; do sleep 0.2; done")
    (state / "qemu.pid").write_text(f"{stubborn.pid}\n")
    t0 = time.monotonic()
    out = sh(qemu.stop_command(str(state), wait=1))
    assert out.returncode == 0 and stubborn.wait(5) == -9 and time.monotonic() - t0 < 8
    assert (state / "qemu.pid").exists()   # nothing removed


def test_stop_leaves_a_process_that_is_not_qemu_alone(tmp_path):
    state = tmp_path / "state"
    state.mkdir()
    other = subprocess.Popen(["sleep", "60"])
    try:
        (state / "qemu.pid").write_text(f"{other.pid}\n")   # a stale pidfile, pid reused
        assert sh(qemu.stop_command(str(state))).stdout.strip() == "not running"
        assert other.poll() is None
    finally:
        other.kill()
        other.wait()


# --- pinning and facts -----------------------------------------------------------------------

def test_parse_pinning():
    out = "vcpu=0 tid=101 cpus=2\nvcpu=1 tid=102 cpus=3\n"
    assert qemu.parse_pinning(out) == "0->2,1->3"
    assert qemu.parse_pinning("vcpu=all tid=7 cpus=0,1\n") == "all->0+1"
    with pytest.raises(InputError, match="no 'vcpu="):
        qemu.parse_pinning("qemu pid 5: no vCPU threads found")
    with pytest.raises(InputError):
        qemu.pin_command("/s", [])


def test_pin_command_fails_without_a_running_qemu(tmp_path):
    proc = sh(qemu.pin_command(str(tmp_path), [0]))
    assert proc.returncode != 0


def test_facts_on_this_machine():
    if not shutil.which("qemu-system-x86_64"):
        _missing("qemu-system-x86_64 (apt-get install qemu-system-x86)")
    facts = qemu.parse_facts(sh(qemu.facts_command()).stdout)
    version = subprocess.run(["qemu-system-x86_64", "--version"], capture_output=True,
                             text=True).stdout
    assert facts["qemu_version"] and f"version {facts['qemu_version']}" in version
    assert facts["hugepages"] in ("yes", "no") and facts["kvm_device"] in ("yes", "no")
    assert facts["hugepage_kb"].isdigit()
    assert qemu.parse_facts("qemu_version=\nnoise\n") == {"qemu_version": "unavailable"}


def _missing(what: str) -> None:
    """Skip on a user's machine, fail in CI (where make debian installs everything)."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"missing: {what}")
    pytest.skip(f"missing: {what}")


# --- for real: probe, boot, SSH into the guest, pin, stop -------------------------------------

def _ssh_banner(port: int, timeout: float = 5) -> bool:
    """Whether an SSH server answers on 127.0.0.1:port (QEMU accepts before the guest does)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
            s.settimeout(timeout)
            return s.recv(64).startswith(b"SSH-")
    except OSError:
        return False


#: The services a booted guest runs: SSH, the journal, networking, device events and the serial
#: console's getty (systemd-logind and D-Bus where the image has them).
GUEST_SERVICES = {"ssh.service", "systemd-journald.service", "systemd-networkd.service",
                  "systemd-udevd.service", "serial-getty@ttyS0.service", "systemd-logind.service",
                  "dbus.service"}


@pytest.mark.xdist_group("hosts")
def test_boot_the_guest_for_real(hosts, tmp_path):
    import paramiko

    image = hosts / "image" / "current"
    t0 = time.monotonic()
    probe = sh(qemu.probe_command(str(image), 25), timeout=60).stdout
    probe_s = time.monotonic() - t0
    accel, reason = qemu.choose_accel("auto", qemu.probe_succeeded(probe))
    print(f"probe: {probe_s:.1f} s, {probe.strip().splitlines()[-1]} -> {accel} ({reason})",
          file=sys.stderr)
    assert (accel == "kvm") == ("OVERHEAD-GUEST-UP" in probe)

    spec = qemu.VmSpec(name="overhead-test-vm", vcpus=2, memory_mb=1024, scratch_mb=256)
    state = tmp_path / "vm"
    port = free_port()
    t0 = time.monotonic()
    boot = sh(qemu.boot_command(spec, str(image), str(state), port, accel), timeout=60)
    assert boot.returncode == 0, boot.stderr
    pid = int(qemu.parse_boot(boot.stdout)["pid"])
    try:
        assert qemu.parse_boot(boot.stdout)["accel"] == accel
        up_s = _wait_for_ssh(port, pid, state, t0)
        # the guest's fixed host key, known as overhead-local-vm: anything else is rejected
        known = paramiko.HostKeys(str(hosts / "ssh" / "known_hosts"))
        guest_key = known.lookup("overhead-local-vm")["ssh-ed25519"]
        client = paramiko.SSHClient()
        client.set_missing_host_key_policy(paramiko.RejectPolicy())
        client.get_host_keys().add(f"[127.0.0.1]:{port}", "ssh-ed25519", guest_key)
        client.connect("127.0.0.1", port, "root", key_filename=str(hosts / "ssh" / "id_ed25519"),
                       look_for_keys=False, allow_agent=False, timeout=30, banner_timeout=30)
        try:
            def run(cmd):
                _, out, err = client.exec_command(cmd, timeout=60)
                status = out.channel.recv_exit_status()
                assert status == 0, err.read().decode()
                return out.read().decode().strip()

            kernel = (image / "kernel-version").read_text().strip()
            assert run("uname -r") == kernel
            assert run("sysbench --version").startswith("sysbench 1.")
            assert run("nproc") == "2"
            # nothing else runs beside the trials: once the boot has finished, the only services
            # running are the ones the guest needs (the benchmarks start their own servers;
            # nginx and PostgreSQL once ran idle beside every trial, images/debian/build.sh)
            run("systemctl is-system-running --wait || true")
            running = set(run("systemctl list-units --type=service --state=running --no-legend "
                              "--plain | cut -d' ' -f1").split())
            assert running <= GUEST_SERVICES, running - GUEST_SERVICES
            assert run("systemctl get-default") == "multi-user.target"
            # the scratch disk: the second virtio disk, ext4, on /var/tmp; O_DIRECT writes work
            # (the host opened it with cache=none, so they reach the host's file, not its cache)
            assert run(qemu.mount_scratch_command()) == "/dev/vdb ext4"
            assert run("dd if=/dev/zero of=/var/tmp/direct bs=1M count=8 oflag=direct "
                       "2>/dev/null && stat -c %s /var/tmp/direct") == str(8 * 2**20)
        finally:
            client.close()
        print(f"guest SSH after {up_s:.1f} s under {accel}", file=sys.stderr)

        pinned = sh(qemu.pin_command(str(state), [0]))
        assert pinned.returncode == 0, pinned.stderr
        assert qemu.parse_pinning(pinned.stdout) in ("0->0,1->0", "all->0")
        tids = [line.split()[1].split("=")[1] for line in pinned.stdout.splitlines()]
        for tid in tids:
            assert sh(f"taskset -pc {tid}").stdout.strip().endswith(": 0")
    finally:
        stop = sh(qemu.stop_command(str(state)), timeout=60)
    assert stop.returncode == 0 and stop.stdout.strip() == f"stopped pid {pid}"
    assert not _qemu_alive(pid)


def _wait_for_ssh(port: int, pid: int, state: Path, t0: float) -> float:
    """Wait for the guest QEMU ``pid`` runs to answer SSH on ``port``; seconds since ``t0``.
    Fails, with the tail of its serial log, if QEMU ends or BOOT_DEADLINE passes first."""
    while not _ssh_banner(port):
        assert _qemu_alive(pid), (state / "serial.log").read_text()[-3000:]
        assert time.monotonic() - t0 < BOOT_DEADLINE, \
            f"guest SSH silent after {BOOT_DEADLINE:.0f} s:\n" \
            f"{(state / 'serial.log').read_text()[-3000:]}"
        time.sleep(1)
    return time.monotonic() - t0


def _qemu_alive(pid: int) -> bool:
    """A live (not zombie) process with that pid."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "\nState:\tZ" not in status


# --- scratch_via: the guest's /var/tmp on an NFS export (tests/hosts/test_nfs.py: the server) ---------

@pytest.mark.parametrize(("kwargs", "match"), [
    (dict(scratch_via="nfs"), "scratch_via must be one of disk, nfs-disk, nfs-mount"),
    (dict(scratch_via="nfs-disk"), "nfs-disk needs a scratch disk size"),
    (dict(scratch_via="nfs-mount", scratch_mb=64), "nfs-mount has no scratch disk"),
    (dict(scratch_via="nfs-mount", nfs="nfs://127.0.0.1:2049/overhead"), "not an export URL"),
    (dict(scratch_via="nfs-mount", nfs="http://127.0.0.1/overhead"), "not an export URL"),
    (dict(scratch_via="nfs-disk", scratch_mb=64, nfs="nfs://127.0.0.1/"), "not an export URL"),
    (dict(scratch_via="nfs-mount", nfs="nfs://127.0.0.1/a b"), "not an export URL"),
    (dict(scratch_via="nfs-mount", nfs="nfs://127.0.0.1/x,cache=unsafe"), "not an export URL"),
    (dict(scratch_via="nfs-mount", nfs_options="vers=4.0; reboot"), "nfs_options must be"),
])
def test_vmspec_rejects_bad_scratch_via_fields(kwargs, match):
    with pytest.raises(InputError, match=f"vm t-vm: .*{match}"):
        qemu.VmSpec("t-vm", 2, 512, **kwargs)


def test_nfs_urls_as_the_host_and_the_guest_see_them():
    mount = qemu.VmSpec("t-vm", 2, 512, scratch_via="nfs-mount")
    assert mount.nfs == qemu.NFS_URL == "nfs://127.0.0.1/overhead"
    assert mount.nfs_options == qemu.NFS_MOUNT_OPTIONS == "vers=4.0,proto=tcp,hard"
    # QEMU's user-mode network: the host's loopback is 10.0.2.2 in the guest
    assert qemu.guest_nfs_source(mount) == "10.0.2.2:/overhead"
    other = qemu.VmSpec("t-vm", 2, 512, scratch_via="nfs-mount", nfs="nfs://nas.lan/srv/vm/")
    assert other.nfs == "nfs://nas.lan/srv/vm" and qemu.guest_nfs_source(other) == "nas.lan:/srv/vm"
    disk = qemu.VmSpec("t-vm", 2, 512, scratch_mb=64, scratch_via="nfs-disk")
    assert qemu.nfs_image_url(disk) == "nfs://127.0.0.1/overhead/t-vm.scratch.raw"
    # the default scratch disk never looks at nfs
    assert qemu.VmSpec("t-vm", 2, 512, scratch_mb=64, nfs="whatever").scratch_via == "disk"


def test_scratch_fact_says_where_var_tmp_lives():
    disk = qemu.VmSpec("t-vm", 2, 512, scratch_mb=64, disk_cache="writeback")
    assert qemu.scratch_fact(disk, "/dev/vdb ext4\n") == \
        "/dev/vdb ext4 on /var/tmp, 64 MiB virtio, host cache=writeback"
    nfs_disk = qemu.VmSpec("t-vm", 2, 512, scratch_mb=64, scratch_via="nfs-disk")
    assert qemu.scratch_fact(nfs_disk, "/dev/vdb ext4\n") == (
        "/dev/vdb ext4 on /var/tmp, 64 MiB virtio, image nfs://127.0.0.1/overhead/"
        "t-vm.scratch.raw through QEMU's NFS driver (libnfs, NFSv3), host cache=none")
    mount = qemu.VmSpec("t-vm", 2, 512, scratch_via="nfs-mount")
    out = "10.0.2.2:/overhead/t-vm nfs4   rw,relatime,vers=4.0,hard,proto=tcp,timeo=600\n"
    assert qemu.scratch_fact(mount, out) == (
        "10.0.2.2:/overhead/t-vm nfs4 on /var/tmp, the guest's kernel NFS client, export "
        "nfs://127.0.0.1/overhead, options rw,relatime,vers=4.0,hard,proto=tcp,timeo=600")
    with pytest.raises(InputError, match="no 'SOURCE FSTYPE OPTIONS' line"):
        qemu.scratch_fact(mount, "mount.nfs: Connection refused\n")
    assert qemu.scratch_fact(SPEC) == "root disk (no scratch disk)"
    # the guest command: the export's root first, a fresh folder of the VM's own, that mounted
    cmd = qemu.mount_scratch_command(spec=mount)
    assert "mount -t nfs -o vers=4.0,proto=tcp,hard 10.0.2.2:/overhead /run/overhead-nfs" in cmd
    assert "rm -rf /run/overhead-nfs/t-vm && mkdir /run/overhead-nfs/t-vm" in cmd
    assert "10.0.2.2:/overhead/t-vm /var/tmp" in cmd
    assert qemu.mount_scratch_command(spec=nfs_disk) == qemu.mount_scratch_command()


def _fake_qemu_system(tmp_path: Path) -> tuple[dict, Path]:
    """A PATH whose qemu-system-x86_64 logs its argv (qemu-img stays the real one)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "argv.qemu"
    exe = bin_dir / "qemu-system-x86_64"
    exe.write_text("#!/bin/sh\n"
                   f"for a in \"$@\"; do printf '%s\\n' \"$a\"; done > {log}\n"
                   "while [ $# -gt 0 ]; do [ \"$1\" = -pidfile ] && echo $$ > \"$2\"; shift; done\n")
    exe.chmod(0o755)
    return dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}"), log


def _nfs_export(hosts: Path) -> Path:
    """The folder hosts-up exports as qemu.NFS_URL; fails when the export does not answer."""
    if not shutil.which("qemu-img"):
        _missing("qemu-img (apt-get install qemu-utils)")
    check = sh(f"qemu-img info -f raw {qemu.NFS_URL}/", timeout=60)
    assert check.returncode == 0, f"hosts-up's export {qemu.NFS_URL} does not answer: {check.stderr}"
    return hosts / "nfs" / "export"


JUNK = b"OVERHEAD-LEFTOVER-" * 1000


@pytest.mark.xdist_group("hosts")
@pytest.mark.parametrize("cache", ["none", "writeback"])
def test_nfs_disk_boot_puts_a_fresh_ext4_on_the_export(hosts, tmp_path, cache):
    export = _nfs_export(hosts)
    env, log = _fake_qemu_system(tmp_path)
    spec = qemu.VmSpec(f"t-nfs-disk-{os.getpid()}", 2, 512, scratch_mb=64,
                       scratch_via="nfs-disk", disk_cache=cache)
    image = export / f"{spec.name}.scratch.raw"
    # what an earlier boot left in the image: none of it may stay in the new one's holes
    with open(image, "wb") as f:
        for offset in (0, 2 << 20, 33 << 20, 63 << 20, 80 << 20):
            f.seek(offset)
            f.write(JUNK)
    try:
        state = tmp_path / "state"
        proc = sh(qemu.boot_command(spec, str(hosts / "image" / "current"), str(state), 10022,
                                    "tcg"), env=env)
        assert proc.returncode == 0, proc.stderr
        argv = log.read_text().splitlines()
        url = f"{qemu.NFS_URL}/{spec.name}.scratch.raw"
        assert _after(argv, "-drive") == [f"file={state}/overlay.qcow2,format=qcow2,if=virtio",
                                          f"file={url},format=raw,if=virtio,cache={cache}"]
        assert qemu.parse_boot(proc.stdout)["scratch"] == url
        assert qemu.parse_boot(proc.stdout)["disk_cache"] == cache
        assert not (state / "scratch.raw").exists()   # only the copy on the export
        assert image.stat().st_size == 64 << 20
        assert JUNK[:36] not in image.read_bytes()
        header = subprocess.run(["dumpe2fs", "-h", str(image)], capture_output=True, text=True)
        assert "Filesystem volume name:   overhead-scratch" in header.stdout, header.stderr
        fsck = subprocess.run(["e2fsck", "-fn", str(image)], capture_output=True, text=True)
        assert fsck.returncode == 0, fsck.stdout + fsck.stderr
    finally:
        image.unlink(missing_ok=True)


@pytest.mark.xdist_group("hosts")
@pytest.mark.parametrize("via", ["nfs-disk", "nfs-mount"])
def test_nfs_boot_refuses_an_export_that_does_not_answer(hosts, tmp_path, via):
    _nfs_export(hosts)
    env, log = _fake_qemu_system(tmp_path)
    size = 64 if via == "nfs-disk" else None
    # no such export on the server; no server at all on 127.0.0.2 (rpcbind and ganesha listen
    # on 127.0.0.1 only)
    for url, why in (("nfs://127.0.0.1/no-such-export", "MNT3ERR"),
                     ("nfs://127.0.0.2/overhead", "")):
        spec = qemu.VmSpec("t-vm", 2, 512, scratch_mb=size, scratch_via=via, nfs=url)
        t0 = time.monotonic()
        proc = sh(qemu.boot_command(spec, str(hosts / "image" / "current"), str(tmp_path / "s"),
                                    10022, "tcg"), env=env)
        assert proc.returncode != 0 and not log.exists(), proc.stdout   # QEMU never started
        assert f"qemu: scratch_via {via}: no NFS export answers at {url} from this host" \
            in proc.stderr and why in proc.stderr
        assert "scripts/hosts-up.sh serves nfs://127.0.0.1/overhead" in proc.stderr
        assert time.monotonic() - t0 < 30


# --- for real: a guest whose /var/tmp is on the export ---------------------------------------

#: The test VMs' own forwarded SSH ports (the campaign VM's is 10022).
NFS_DISK_PORT, NFS_MOUNT_PORT = 10122, 10123
PG_TEST_FSYNC = "/usr/lib/postgresql/15/bin/pg_test_fsync"


@pytest.fixture(scope="module")
def accel(hosts):
    """The accelerator guests get on this machine (the probe, once for the module)."""
    probe = sh(qemu.probe_command(str(hosts / "image" / "current"), 25), timeout=60).stdout
    return qemu.choose_accel("auto", qemu.probe_succeeded(probe))[0]


@contextlib.contextmanager
def _guest(hosts: Path, spec: qemu.VmSpec, port: int, state: Path, accel: str):
    """Boot ``spec`` on ``port``, yield (run(cmd) -> stdout, QEMU's argv, seconds to SSH); stop it."""
    import paramiko

    with socket.socket() as s:   # our own port, not taken by a VM some earlier run left
        try:
            s.bind(("127.0.0.1", port))
        except OSError as exc:
            holder = sh(f"ss -Hltnp 'sport = :{port}'").stdout
            pytest.fail(f"127.0.0.1:{port}, this test's VM port, is taken ({exc}): {holder}")
    t0 = time.monotonic()
    boot = sh(qemu.boot_command(spec, str(hosts / "image" / "current"), str(state), port,
                                accel), timeout=120)
    assert boot.returncode == 0, boot.stderr
    pid = int(qemu.parse_boot(boot.stdout)["pid"])
    client = paramiko.SSHClient()
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")
        up_s = _wait_for_ssh(port, pid, state, t0)
        known = paramiko.HostKeys(str(hosts / "ssh" / "known_hosts"))
        client.set_missing_host_key_policy(paramiko.RejectPolicy())
        client.get_host_keys().add(f"[127.0.0.1]:{port}", "ssh-ed25519",
                                   known.lookup("overhead-local-vm")["ssh-ed25519"])
        client.connect("127.0.0.1", port, "root", key_filename=str(hosts / "ssh" / "id_ed25519"),
                       look_for_keys=False, allow_agent=False, timeout=30, banner_timeout=30)

        def run(cmd: str, timeout: float = 120) -> str:
            _, out, err = client.exec_command(cmd, timeout=timeout)
            status = out.channel.recv_exit_status()
            text = out.read().decode()
            assert status == 0, f"{cmd}: exit {status}\n{text}\n{err.read().decode()}"
            return text.strip()

        yield run, argv, up_s
    finally:
        client.close()
        stop = sh(qemu.stop_command(str(state)), timeout=60)
        assert stop.returncode == 0 and not _qemu_alive(pid), stop.stdout + stop.stderr


def _fdatasync_rate(run) -> float:
    """pg_test_fsync -s 1 on the guest's /var/tmp: fdatasync of one 8 kB write, op/s."""
    from overhead.parsers import pg_test_fsync

    if run(f"test -x {PG_TEST_FSYNC} && echo yes || echo no") != "yes":
        _missing(f"{PG_TEST_FSYNC} in the guest image (postgresql-15, images/debian/packages)")
    out = run(f"{PG_TEST_FSYNC} -s 1 -f /var/tmp/pg_test_fsync.out", timeout=300)
    rows = pg_test_fsync.parse(out)
    rate = rows[(rows.metric == "operation_rate") & (rows.p_method == "fdatasync")
                & (rows.p_writes == 1)].value
    assert len(rate) == 1 and rate.iloc[0] > 0, out
    return float(rate.iloc[0])


#: 4 MiB of random bytes written with O_DIRECT and fsync; prints their md5.
PROBE = ("head -c 4194304 /dev/urandom > /run/probe && dd if=/run/probe of=/var/tmp/probe "
         "bs=1M oflag=direct conv=fsync status=none && md5sum < /run/probe | cut -d' ' -f1")


@pytest.mark.xdist_group("hosts")
def test_a_guest_with_its_scratch_disk_on_nfs_for_real(hosts, tmp_path, accel):
    import hashlib

    export = _nfs_export(hosts)
    spec = qemu.VmSpec(name="overhead-test-nfs-disk", vcpus=2, memory_mb=1024, scratch_mb=256,
                       scratch_via="nfs-disk", disk_cache="none")
    image = export / f"{spec.name}.scratch.raw"
    try:
        with _guest(hosts, spec, NFS_DISK_PORT, tmp_path / "vm", accel) as (run, argv, up_s):
            # QEMU's own NFS client opens the image on the export
            assert f"file={qemu.NFS_URL}/{spec.name}.scratch.raw,format=raw,if=virtio," \
                   "cache=none" in argv
            mounted = run(qemu.mount_scratch_command(spec=spec))
            assert mounted == "/dev/vdb ext4"
            assert qemu.scratch_fact(spec, mounted) == (
                "/dev/vdb ext4 on /var/tmp, 256 MiB virtio, image nfs://127.0.0.1/overhead/"
                "overhead-test-nfs-disk.scratch.raw through QEMU's NFS driver (libnfs, NFSv3), "
                "host cache=none")
            rate = _fdatasync_rate(run)
            md5 = run(PROBE)
            # the bytes are in the image file in the exported folder: read it on the host with
            # the guest's file system frozen (ext4 checkpoints its journal when it freezes)
            run("fsfreeze -f /var/tmp")
            try:
                dump = subprocess.run(["debugfs", "-R", "cat /probe", str(image)],
                                      capture_output=True, timeout=60)
            finally:
                run("fsfreeze -u /var/tmp")
            assert hashlib.md5(dump.stdout).hexdigest() == md5, dump.stderr.decode()
        print(f"nfs-disk guest ({accel}): SSH after {up_s:.1f} s, pg_test_fsync -s 1 "
              f"fdatasync {rate:.0f} op/s", file=sys.stderr)
    finally:
        image.unlink(missing_ok=True)


@pytest.mark.xdist_group("hosts")
def test_a_guest_with_the_export_mounted_on_var_tmp_for_real(hosts, tmp_path, accel):
    import hashlib

    export = _nfs_export(hosts)
    spec = qemu.VmSpec(name="overhead-test-nfs-mount", vcpus=2, memory_mb=1024,
                       scratch_via="nfs-mount")
    folder = export / spec.name
    folder.mkdir(exist_ok=True)
    (folder / "left-by-an-earlier-boot").write_text("x")
    try:
        with _guest(hosts, spec, NFS_MOUNT_PORT, tmp_path / "vm", accel) as (run, argv, up_s):
            assert sum(a.startswith("file=") for a in argv) == 1   # the root disk only
            mounted = run(qemu.mount_scratch_command(spec=spec))
            source, fstype, options = mounted.split()
            assert (source, fstype) == (f"10.0.2.2:/overhead/{spec.name}", "nfs4")
            opts = options.split(",")
            assert {"vers=4.0", "hard", "proto=tcp", "rw"} <= set(opts), options
            assert "sync" not in opts   # the client caches writes until fsync, as the seed's
            assert qemu.scratch_fact(spec, mounted) == (
                f"10.0.2.2:/overhead/{spec.name} nfs4 on /var/tmp, the guest's kernel NFS "
                f"client, export nfs://127.0.0.1/overhead, options {options}")
            # a fresh folder, as a new scratch disk is empty
            assert run("ls -A /var/tmp") == ""
            rate = _fdatasync_rate(run)
            md5 = run(PROBE)
            # written with O_DIRECT and fsync: on the server, in the exported folder
            assert hashlib.md5((folder / "probe").read_bytes()).hexdigest() == md5
        print(f"nfs-mount guest ({accel}): SSH after {up_s:.1f} s, pg_test_fsync -s 1 "
              f"fdatasync {rate:.0f} op/s", file=sys.stderr)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
