"""The container start-up study's runners, for real on this machine: oci-run (`crun run` /
`runc run` of one OCI bundle, with Docker's default seccomp profile or none) and vm-boot (QEMU
power-on to the guest's SSH banner). Each trial must read back through runners.read_trial
(the hyperfine parser, every run a row) and record what ran: runtime, seccomp, the cgroup
layout the runs saw, the accelerator that ran the guest.

They use the local hosts (dockerd with its image overhead/bench, the VM image), so they run in
the "hosts" xdist group. VMs here use ports 10200-10210 only (10022 is the campaign VM's).
Without crun, runc, docker, hyperfine or QEMU they skip on a user's machine and fail under
CI=true.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from overhead import runners
from overhead.schema import validate

pytestmark = [pytest.mark.tool, pytest.mark.xdist_group("hosts")]

IMAGE = "overhead/bench:latest"
RUNS = 5
VM_PORT, VM_PORT_BUSY, VM_PORT_KILLED = 10200, 10203, 10204


def _need(*tools: str) -> None:
    """Skip without the tools on a user's machine; fail in CI, where they must be installed."""
    missing = [t for t in tools if shutil.which(t) is None]
    if not missing:
        return
    msg = f"not installed: {', '.join(missing)} (make debian installs them)"
    if os.environ.get("CI") == "true":
        pytest.fail(msg)
    pytest.skip(msg)


def run(name: str, outdir: Path, limit: float = 300, **params) -> subprocess.CompletedProcess:
    """Run runner ``name`` into ``outdir`` with ``params``, at most ``limit`` seconds."""
    return subprocess.run(runners.command(name, outdir, **params), capture_output=True, text=True,
                          timeout=limit)


def finished(name: str, outdir: Path, limit: float = 300, **params) -> runners.Trial:
    """Run a runner that must succeed; read its trial the way ingest does."""
    proc = run(name, outdir, limit=limit, **params)
    stderr = (outdir / "stderr").read_text() if (outdir / "stderr").exists() else ""
    assert proc.returncode == 0, proc.stderr + stderr
    trial = runners.read_trial(outdir)
    assert trial.ok and trial.meta["runner"] == name
    validate(trial.measurements)
    return trial


def cgroup_layout(config: Path, scratch: Path) -> str:
    """What oci-run must record as p_cgroup on this host: the mounts, read independently, and
    for a hybrid layout with controllers whether crun itself refuses it (run on a copy of a
    trial's bundle config, outside any private namespace)."""
    types = {}
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        left, _, right = line.partition(" - ")
        types[left.split()[4]] = right.split()[0]
    if types.get("/sys/fs/cgroup") == "cgroup2":
        return "unified"
    if types.get("/sys/fs/cgroup/unified") != "cgroup2":
        return "legacy"
    if not Path("/sys/fs/cgroup/unified/cgroup.controllers").read_text().split():
        return "hybrid"
    scratch.mkdir()
    shutil.copy(config, scratch / "config.json")
    tried = subprocess.run(["crun", "run", "--bundle", str(scratch), f"overhead-test-{os.getpid()}"],
                           capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    if tried.returncode != 0:
        assert "hybrid mode not supported" in tried.stderr, tried.stderr
        return "hybrid-without-unified"
    return "hybrid"


# ---- oci-run -----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def oci(hosts, tmp_path_factory) -> dict[tuple[str, str], runners.Trial]:
    """One trial per runtime and seccomp setting, RUNS timed runs each."""
    _need("crun", "runc", "docker", "hyperfine", "unshare", "python3")
    inspect = subprocess.run(["docker", "image", "inspect", IMAGE], capture_output=True, text=True)
    if inspect.returncode != 0:
        pytest.fail(f"hosts-up made no {IMAGE}: {inspect.stderr}")
    base = tmp_path_factory.mktemp("oci")
    trials = {(rt, sc): finished("oci-run", base / f"{rt}-{sc}", runtime=rt, seccomp=sc, runs=RUNS,
                               warmup=1, image=IMAGE)
            for rt in ("crun", "runc") for sc in ("default", "none")}
    return trials


@pytest.fixture(scope="module")
def layout(oci, tmp_path_factory) -> str:
    """This host's cgroup layout as oci-run must name it."""
    return cgroup_layout(oci["crun", "none"].path / "config.json",
                         tmp_path_factory.mktemp("try") / "bundle")


def test_oci_run_trial_layout_and_every_run_parsed(oci, layout):
    for (rt, sc), trial in oci.items():
        files = {p.name for p in trial.path.iterdir()}
        assert {"output", "stderr", "meta", "config.json"} <= files
        assert ("docker-config.json" in files) == (sc == "default")
        df = trial.measurements
        times = df[df.metric == "wall_time"].sort_values("trial")
        assert list(times.trial) == list(range(1, RUNS + 1))  # every run kept
        assert (times.value > 0).all() and (times.p_exit_code == 0).all()
        assert (df.p_failed_runs == 0).all() and (df.p_runs == RUNS).all()
        median = df[df.metric == "wall_time_percentile"].value.iloc[0]
        assert times.value.min() <= median <= times.value.max()
        for metric in ("user_time_mean", "system_time_mean"):
            assert len(df[df.metric == metric]) == 1
        # what ran, on every row
        assert (df.p_command == f"{rt} run (seccomp={sc})").all()
        assert (df.p_runtime == rt).all() and (df.p_seccomp == sc).all()
        assert (df.p_cgroup == layout).all()
        assert (df.tool_version == runners.version_number(trial.meta["tool_version"])).all()
        # the meta: the runtime as the tool, its version; libseccomp; the image
        meta = trial.meta
        assert meta["tool"] == rt and meta["tool_version"].startswith(f"{rt} version ")
        assert re.fullmatch(r"\d+\.\d+\.\d+", meta["libseccomp_version"])
        if rt == "runc":  # runc says which libseccomp it runs with: the same one
            assert f"libseccomp: {meta['libseccomp_version']}" in meta["tool_version"]
        image_id = subprocess.run(["docker", "image", "inspect", "--format", "{{.Id}}", IMAGE],
                                  capture_output=True, text=True).stdout.strip()
        assert meta["image_id"] == image_id and image_id.removeprefix("sha256:") in meta["rootfs"]
        assert meta["hyperfine_version"].startswith("hyperfine ")
        assert "--export-json" in meta["command"] and " -N " in meta["command"]


def test_oci_run_cgroup_workaround_is_recorded_and_the_same_for_both_runtimes(oci, layout):
    for (rt, _), trial in oci.items():
        command = trial.meta["command"]
        workaround = layout == "hybrid-without-unified"
        assert command.startswith("unshare -m --propagation private sh -c") == workaround, rt
        assert ("umount /sys/fs/cgroup/unified" in command) == workaround
        assert trial.meta["p_cgroup"] == layout
        if workaround:
            assert "hybrid mode not supported" in trial.stderr  # crun's own refusal, quoted
            assert "crun and of runc alike" in trial.stderr


def test_oci_run_default_is_dockers_own_profile_and_none_has_none(oci):
    for rt in ("crun", "runc"):
        default = json.loads((oci[rt, "default"].path / "config.json").read_text())
        none = json.loads((oci[rt, "none"].path / "config.json").read_text())
        docker = json.loads((oci[rt, "default"].path / "docker-config.json").read_text())
        profile = default["linux"]["seccomp"]
        # what Docker wrote into a real container's OCI config, unchanged
        assert profile == docker["linux"]["seccomp"]
        assert profile["defaultAction"] == "SCMP_ACT_ERRNO"
        names = [n for rule in profile["syscalls"] for n in rule["names"]]
        assert len(names) > 300 and {"read", "write", "execve", "clone"} <= set(names)
        assert "SCMP_ARCH_X86_64" in profile["architectures"]
        meta = oci[rt, "default"].meta
        assert int(meta["seccomp_syscalls"]) == len(names)
        assert meta["seccomp_default_action"] == "SCMP_ACT_ERRNO"
        assert meta["seccomp_source"].startswith("Docker's default profile from the OCI config")
        # seccomp=none: the same config without linux.seccomp
        assert "seccomp" not in none["linux"]
        del default["linux"]["seccomp"]
        assert default == none
        assert oci[rt, "none"].meta["seccomp_source"] == "none"
        # the runtime's own spec, adjusted
        assert none["process"]["terminal"] is False and none["process"]["args"] == ["true"]
        assert none["root"] == {"path": oci[rt, "none"].meta["rootfs"], "readonly": True}
        assert {"type": "network"} in none["linux"]["namespaces"]


def test_oci_run_deletes_every_container_and_its_bundle(oci):
    for rt in ("crun", "runc"):
        listed = subprocess.run([rt, "list", "-q"], capture_output=True, text=True)
        # (in the private namespace the runs used, crun list would say the same: state is in /run)
        for (r, _), trial in oci.items():
            cid = re.search(r"(overhead-oci-\d+-\w+)'?$", trial.meta["command"]).group(1)
            assert cid not in listed.stdout
            bundle = re.search(r"--bundle (\S+)", trial.meta["command"]).group(1)
            assert not Path(bundle).exists(), bundle
            assert r != rt or "deleted the container" in trial.stderr


@pytest.mark.parametrize("runtime", ["crun", "runc"])
def test_oci_run_the_profile_is_in_force_in_the_container(hosts, tmp_path, runtime):
    """The container's process sees a seccomp filter (Seccomp: 2) with seccomp=default, and
    none with seccomp=none: then the untimed first run fails and the trial records it."""
    _need(runtime, "docker", "hyperfine")
    check = "sh -c 'grep -q \"^Seccomp:[[:space:]]*2\" /proc/self/status'"
    trial = finished("oci-run", tmp_path / "on", runtime=runtime, seccomp="default", runs=1,
                     warmup=0, process=check)
    df = trial.measurements  # one run: hyperfine writes no stddev, the parser no _sd row
    assert len(df[df.metric == "wall_time"]) == 1 and "wall_time_sd" not in set(df.metric)
    assert json.loads((trial.path / "config.json").read_text())["process"]["args"] == [
        "sh", "-c", 'grep -q "^Seccomp:[[:space:]]*2" /proc/self/status']
    proc = run("oci-run", tmp_path / "off", runtime=runtime, seccomp="none", runs=2, warmup=0,
               process=check)
    assert proc.returncode != 0
    failed = runners.read_trial(tmp_path / "off")
    assert not failed.ok and "the untimed first run failed" in failed.stderr


@pytest.mark.parametrize("params, message", [
    ({"runtime": "docker"}, "parameter runtime='docker' must be one of: crun runc"),
    ({"seccomp": "strict"}, "parameter seccomp='strict' must be one of: default none"),
    ({"runs": "0"}, "parameter runs=0: must be at least 1"),
    ({"warmup": "-1"}, "parameter warmup='-1' is not a non-negative integer"),
    ({"process": "sh -c 'oops"}, "parameter process='sh -c 'oops' is not a command line"),
    ({"image": "overhead/nosuch:none"}, "parameter image=overhead/nosuch:none: no such image"),
])
def test_oci_run_usage_errors_name_the_parameter_and_write_nothing(hosts, tmp_path, params,
                                                                   message):
    _need("crun", "docker", "hyperfine")
    proc = run("oci-run", tmp_path / "t", **params)
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr
    assert list(tmp_path.iterdir()) == []


def test_oci_run_interrupted_leaves_no_trial_container_or_bundle(hosts, tmp_path):
    _need("crun", "docker", "hyperfine")
    proc = subprocess.Popen(runners.command("oci-run", tmp_path / "t", runtime="crun",
                                            seccomp="none", runs=3, process="sleep 5"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    cid = f"overhead-oci-{proc.pid}-crun"
    deadline = time.monotonic() + 120
    while cid not in subprocess.run(["crun", "list", "-q"], capture_output=True,
                                    text=True).stdout:
        assert proc.poll() is None and time.monotonic() < deadline, "no container ever ran"
        time.sleep(0.1)
    os.killpg(proc.pid, signal.SIGTERM)
    proc.wait(timeout=60)
    assert proc.returncode != 0
    assert list(tmp_path.iterdir()) == []
    assert cid not in subprocess.run(["crun", "list", "-q"], capture_output=True, text=True).stdout
    assert not list(Path("/var/tmp/overhead-oci").glob(f"bundle-{cid}.*"))


# ---- vm-boot -----------------------------------------------------------------------------------

def _qemu_on_port(port: int) -> list[int]:
    """Pids of QEMU processes forwarding host port ``port``."""
    pids = []
    for proc in Path("/proc").iterdir():
        try:
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if "qemu-system" in cmdline and f"hostfwd=tcp:127.0.0.1:{port}-:22" in cmdline:
            pids.append(int(proc.name))
    return pids


def _free(port: int) -> bool:
    """Whether nothing listens on 127.0.0.1:port (a connection QEMU's forward closed may still be
    in TIME-WAIT there: that does not count)."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


@pytest.fixture(scope="module")
def vm_image(hosts) -> Path:
    _need("qemu-system-x86_64", "hyperfine", "python3", "timeout")
    image = hosts / "image" / "current"
    if not (image / "disk.raw").exists():
        pytest.fail(f"hosts-up made no VM image at {image}")
    return image


def test_vm_boot_to_ssh_banner(vm_image, tmp_path):
    assert _free(VM_PORT), f"port {VM_PORT} is taken"
    trial = finished("vm-boot", tmp_path / "t", limit=900, runs=2, image=vm_image, accel="auto",
                     port=VM_PORT, memory=1024, vcpus=2)
    meta, df = trial.meta, trial.measurements
    accel = meta["p_accel"]
    assert accel in ("kvm", "tcg") and meta["accel_requested"] == "auto"
    # the accelerator that ran, on every row and in the command name; KVM only when its
    # probe's guest came up (and then the guest itself says it runs on KVM)
    assert (df.p_accel == accel).all()
    assert (df.p_command == f"qemu boot to ssh banner (accel={accel})").all()
    probe = (trial.path / "probe.log").read_text(errors="replace")
    assert ("OVERHEAD-GUEST-UP" in probe) == (accel == "kvm")
    serial = (trial.path / "serial.log").read_text(errors="replace")
    assert ("Hypervisor detected: KVM" in serial) == (accel == "kvm"), accel
    if not Path("/dev/kvm").exists():
        assert accel == "tcg" and "no /dev/kvm" in meta["accel_reason"]
    assert f"accel: {accel} (" in trial.stderr
    # every boot timed and kept, and each reached the guest's sshd
    times = df[df.metric == "wall_time"].sort_values("trial")
    assert list(times.trial) == [1, 2] and (times.p_exit_code == 0).all()
    boots = (trial.path / "boots").read_text().splitlines()
    assert len(boots) == 2 and all("SSH-2.0-OpenSSH" in b for b in boots)
    banner = [float(re.search(r"banner after ([0-9.]+) s", b).group(1)) for b in boots]
    for seen, timed in zip(banner, times.value, strict=True):
        assert 1 < seen < timed < 120  # hyperfine's time holds the wait for the banner
    assert meta["tool"] == "qemu-system-x86_64" and "QEMU emulator version" in meta["tool_version"]
    assert meta["image_dir"] == str(vm_image.resolve())
    assert meta["guest_kernel"] == (vm_image / "kernel-version").read_text().strip()
    assert f"-accel {accel} -m 1024 -smp 2" in meta["qemu_command"]
    assert "snapshot=on" in meta["qemu_command"] and "root=/dev/vda" in meta["qemu_command"]
    # nothing left running, the port is free again
    assert _qemu_on_port(VM_PORT) == [] and _free(VM_PORT)


@pytest.mark.parametrize("params, message", [
    ({"port": "10200", "timeout": "0"}, "parameter timeout=0: must be at least 1 second"),
    ({"port": "10200", "accel": "xen"}, "parameter accel='xen' must be one of: auto kvm tcg"),
    ({"port": "10200", "memory": "64"}, "parameter memory=64: the guest needs at least 128 MiB"),
    ({"port": "10200", "runs": "0"}, "parameter runs=0: must be at least 1"),
    ({"port": "70000"}, "parameter port=70000: not a TCP port"),
    ({"port": "10200", "image": "/nonexistent"}, "parameter image=/nonexistent: no readable disk.raw"),
])
def test_vm_boot_usage_errors_name_the_parameter_and_write_nothing(vm_image, tmp_path, params,
                                                                   message):
    proc = run("vm-boot", tmp_path / "t", **params)
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr
    assert list(tmp_path.iterdir()) == []


def test_vm_boot_refuses_a_port_in_use(vm_image, tmp_path):
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", VM_PORT_BUSY))
        s.listen()
        proc = run("vm-boot", tmp_path / "t", port=VM_PORT_BUSY, accel="tcg")
    assert proc.returncode == 2 and f"parameter port={VM_PORT_BUSY}: already in use" in proc.stderr
    assert list(tmp_path.iterdir()) == []


def test_vm_boot_interrupted_stops_qemu(vm_image, tmp_path):
    proc = subprocess.Popen(runners.command("vm-boot", tmp_path / "t", runs=2, image=vm_image,
                                            accel="tcg", port=VM_PORT_KILLED),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 60
    while not _qemu_on_port(VM_PORT_KILLED):
        assert proc.poll() is None and time.monotonic() < deadline, "QEMU never started"
        time.sleep(0.1)
    time.sleep(2)  # booting
    os.killpg(proc.pid, signal.SIGTERM)
    proc.wait(timeout=60)
    assert proc.returncode != 0
    deadline = time.monotonic() + 15
    while _qemu_on_port(VM_PORT_KILLED) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _qemu_on_port(VM_PORT_KILLED) == []
    assert list(tmp_path.iterdir()) == []


# ---- lxc-run ---------------------------------------------------------------------------------

def test_lxc_run_times_lxc_execute_every_run_parsed_and_nothing_left(hosts, tmp_path):
    """lxc-execute of `true` in an overlay over the image tree, timed by hyperfine: every run a
    row under a name without the trial's paths; a failing process fails the trial; the tree is
    never written and no container or scratch folder stays."""
    _need("lxc-execute", "hyperfine")
    tree = hosts / "image" / "current" / "rootfs"
    before = {p.name for p in Path("/var/tmp").glob("overhead-lxc-run.*")}
    hostname = (tree / "etc" / "hostname").read_text()
    trial = finished("lxc-run", tmp_path / "ok", tree=str(tree), runs=RUNS, warmup=1)
    df = trial.measurements
    times = df[df.metric == "wall_time"].sort_values("trial")
    assert list(times.trial) == list(range(1, RUNS + 1)) and (times.p_exit_code == 0).all()
    assert (times.value > 0).all() and (df.p_command == "lxc-execute -- true").all()
    assert trial.meta["tool"] == "lxc-execute" and trial.meta["tool_version"].startswith("5.")
    assert trial.meta["tree"] == str(tree)
    config = (trial.path / "config").read_text()
    assert f"lxc.rootfs.path = overlay:{tree}:" in config and "lxc.net.0.type = empty" in config
    # `false` in the container: hyperfine fails on its non-zero exit, and so does the trial
    failed = run("lxc-run", tmp_path / "false", tree=str(tree), runs=2, warmup=0, process="false")
    assert failed.returncode != 0
    assert (tree / "etc" / "hostname").read_text() == hostname
    assert {p.name for p in Path("/var/tmp").glob("overhead-lxc-run.*")} == before
    listed = subprocess.run(["lxc-ls", "-1"], capture_output=True, text=True).stdout.split()
    assert not [n for n in listed if n.startswith("overhead-lxcrun-")]
    bad = run("lxc-run", tmp_path / "bad", tree=str(tmp_path), runs=2)
    assert bad.returncode == 2 and "not a root file system" in bad.stderr
