"""The Podman environment kind without Podman: its spec, command builders and facts parser.

The facts are parsed from genuine outputs (tests/fixtures/provenance/podman_facts_*.txt); the
live tests are tests/hosts/test_podman.py.
"""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path

import pytest

from overhead.campaign import inventory
from overhead.environments import podman, registry
from overhead.environments.base import TrialFailed
from overhead.errors import InputError

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "provenance"
CAMPAIGN = """\
name: pd
seed: 1
trials: 1
timeout: 60
hosts:
  local: {{address: 127.0.0.1, port: 2222, key_file: ssh/id, known_hosts: ssh/known_hosts}}
environments:
  box: {{kind: podman, host: local{extra}}}
benchmarks:
  cpu: {{runner: sysbench, params: {{test: cpu, threads: 1, time: 1}}}}
"""


def _load(tmp_path: Path, extra: str):
    path = tmp_path / "pd.yml"
    path.write_text(CAMPAIGN.format(extra=extra))
    return inventory.load(path)


def test_podman_is_a_registered_kind():
    assert registry.environment_class("podman") is podman.PodmanEnvironment
    assert podman.PodmanEnvironment.tidy_environment == "podman"


@pytest.mark.parametrize(("extra", "field"), [
    (", rootless: true, net: bridge", "rootless bridge"),
    (", net: pasta", "rootless network"),
    (", net: slirp4netns", "rootless network"),
    (", net: host, port_handler: slirp4netns", "port_handler"),
    (", user: someone", "user applies"),
    (", rootless: true, net: pasta, cpus: 1", "cpus"),
    (", net: macvlan", "net"),
    (", driver: btrfs", "driver"),
])
def test_combinations_podman_cannot_run_are_refused_naming_the_line(tmp_path, extra, field):
    with pytest.raises(InputError) as err:
        _load(tmp_path, extra)
    text = str(err.value)
    assert "pd.yml:8" in text and "environments.box" in text
    words = {"rootless bridge": "net: bridge is rootful", "rootless network": "is the rootless network",
             "port_handler": "port_handler applies", "user applies": "user applies",
             "cpus": "no cgroup", "net": "net", "driver": "driver"}[field]
    assert words in text


def test_a_valid_rootless_spec_and_its_variant(tmp_path):
    spec = _load(tmp_path, ", rootless: true, net: slirp4netns, port_handler: slirp4netns, "
                           "runtime: crun, driver: vfs").environments["box"]
    assert spec.rootless and spec.user is None
    assert podman.variant(spec.rootless, spec.net, spec.storage, spec.runtime, spec.driver,
                          spec.port_handler) == \
        "mode=rootless,net=slirp4netns,ports=slirp4netns,storage=volume,driver=vfs,runtime=crun"
    assert podman.variant(False, "bridge", "overlay", "runc") == \
        "mode=rootful,net=bridge,storage=overlay,runtime=runc"


def test_the_store_of_each_driver():
    assert podman.cli_command(False, "overlay") == "podman"
    vfs = podman.cli_command(True, "vfs")
    assert vfs.endswith("--storage-driver vfs") and "$HOME/.local/share/overhead-podman/vfs" in vfs
    fuse = podman.cli_command(False, "fuse-overlayfs")
    assert "--root /var/lib/overhead-podman/fuse-overlayfs" in fuse
    assert "mount_program=/usr/bin/fuse-overlayfs" in fuse
    # the default store is only checked; another is filled from it once
    assert podman.image_command("podman", "img:1") == "podman image exists img:1"
    assert "podman save img:1 | " + vfs + " load" in podman.image_command(vfs, "img:1")


def test_ulimits_rootful_take_the_host_hard_limits_and_the_process_ceiling():
    assert podman.ulimit_words(True, "") == ["--ulimit", "host"]
    assert podman.ulimit_words(False, "20000\n96365\n") == [
        "--ulimit", "nofile=20000:20000", "--ulimit", "nproc=32768:32768"]
    assert podman.ulimit_words(False, "4096\n1000\n") == [
        "--ulimit", "nofile=4096:4096", "--ulimit", "nproc=1000:1000"]
    assert podman.ulimit_words(False, "unlimited\nunlimited\n")[1] == "nofile=1048576:1048576"
    with pytest.raises(TrialFailed, match="hard limits"):
        podman.ulimit_words(False, "/bin/sh: 1: ulimit: Illegal option -u\n")


def test_start_command_per_network():
    common = dict(cli="podman", image="img", storage="volume", runtime="crun",
                  runners_dir="/r", trials_dir="/t", ulimits=["--ulimit", "host"],
                  ports=(5201,), publish_address="127.0.0.3")

    def words(**kw):
        cmd = podman.start_command("c", **{**common, **kw})
        head, _, run = cmd.partition("; ")
        assert head == "podman rm -f -t 0 c >/dev/null 2>&1"
        return shlex.split(run)

    bridge = words(net="bridge")
    assert bridge[bridge.index("--network") + 1] == "bridge"
    assert "127.0.0.3:5201:5201" in bridge and "127.0.0.3:5201:5201/udp" in bridge
    assert bridge[bridge.index("--pids-limit") + 1] == "-1"  # rootful: no 2048 cap
    assert "c:/var/tmp" in bridge and "/r:/overhead/runners:ro" in bridge
    slirp = words(net="slirp4netns", rootless=True, port_handler="slirp4netns")
    assert slirp[slirp.index("--network") + 1] == "slirp4netns:port_handler=slirp4netns"
    assert "--pids-limit" not in slirp
    pasta = words(net="pasta", rootless=True)
    assert pasta[pasta.index("--network") + 1] == "none" and "-p" not in pasta
    host = words(net="host", storage="overlay", cgroup_parent="overhead/x/y", cpus=1.5)
    assert "-p" not in host and not any(w.endswith(":/var/tmp") for w in host)
    assert host[host.index("--cgroup-parent") + 1] == "/overhead/x/y"
    assert host[host.index("--cpus") + 1] == "1.5"


def test_pasta_command_forwards_only_the_ports_named():
    cmd = podman.pasta_command("podman", "c", "/f/c.pasta.pid", (12865, 12866), "127.0.0.4")
    assert "-T none -U none" in cmd and "-P /f/c.pasta.pid" in cmd
    assert "-t 127.0.0.4/12865 -u 127.0.0.4/12865 -t 127.0.0.4/12866" in cmd
    assert cmd.startswith(podman.pasta_stop_command("/f/c.pasta.pid"))
    assert "-t none -u none" in podman.pasta_command("podman", "c", "/p")


@pytest.mark.parametrize(("fixture", "expected"), [
    ("podman_facts_rootful.txt", {
        "podman_version": "4.3.1", "podman_oci_runtime": "crun", "podman_rootless": "false",
        "podman_network_backend": "netavark", "podman_storage_driver": "overlay",
        "podman_cgroup_version": "v1", "podman_cgroup_manager": "cgroupfs",
        "podman_network_mode": "bridge", "podman_container_runtime": "crun",
        "podman_slirp4netns_version": "1.2.0", "podman_passt_version": "0.0~git20230309.7c7625d-1"}),
    ("podman_facts_rootless.txt", {
        "podman_version": "4.3.1", "podman_rootless": "true", "podman_storage_driver": "overlay",
        "podman_storage_backing_fs": "extfs", "podman_network_mode": "slirp4netns",
        "podman_container_runtime": "crun", "podman_cgroup_version": "v1"}),
])
def test_facts_parsed_from_genuine_outputs(fixture, expected):
    facts = podman.parse_facts((FIXTURES / fixture).read_text())
    assert {k: facts.get(k) for k in expected} == expected
    assert facts["podman_oci_runtime_version"].startswith("crun version 1.8.1")
    assert facts["podman_conmon"].startswith("conmon version")


def test_facts_of_a_failed_command_are_left_out_not_made_up():
    assert podman.parse_facts("Error: cannot connect\n\nslirp4netns=\npasst=\n") == {}
    half = podman.parse_facts('{"version": {"Version": "4.3.1"}}\n{broken\n')
    assert half == {"podman_version": "4.3.1"}


def test_a_rootless_container_is_paused_by_signalling_every_process(tmp_path):
    """Rootless Podman on cgroup v1 has no freezer: every process the container's ``top`` lists
    is stopped from the user's namespace, and the command fails when none is listed."""
    fake = tmp_path / "podman"
    log = tmp_path / "log"
    sleeper = subprocess.Popen(["sleep", "60"])
    try:
        fake.write_text(f"""#!/bin/sh
case "$1" in
  top) echo HPID; [ -n "$NONE" ] || echo {sleeper.pid};;
  unshare) shift; echo "$@" >> {log}; "$@";;
esac
""")
        fake.chmod(0o755)
        run = subprocess.run
        stop = run(["sh", "-c", podman.signal_all_command(str(fake), "c", "STOP")],
                   capture_output=True, text=True, timeout=30)
        assert stop.returncode == 0, stop.stderr
        state = Path(f"/proc/{sleeper.pid}/stat").read_text().split(") ")[1][0]
        assert state == "T"
        assert run(["sh", "-c", podman.signal_all_command(str(fake), "c", "CONT")],
                   timeout=30).returncode == 0
        assert Path(f"/proc/{sleeper.pid}/stat").read_text().split(") ")[1][0] in "SR"
        assert log.read_text().split("\n")[:2] == [f"kill -STOP {sleeper.pid}",
                                                  f"kill -CONT {sleeper.pid}"]
        none = run(["sh", "-c", podman.signal_all_command(str(fake), "c", "STOP")],
                   env={"NONE": "1", "PATH": "/usr/bin:/bin"}, timeout=30)
        assert none.returncode != 0
    finally:
        sleeper.kill()
        sleeper.wait()


def test_listeners_name_the_forwarder_of_each_published_port():
    """From genuine ss output of a containers-2026 run: rootlessport (slirp4netns), pasta's
    passt binary, conmon (the rootful bridge, DNAT behind it)."""
    text = (FIXTURES / "ss_listeners_containers-2026.txt").read_text()
    mine = [line for line in text.splitlines() if " 127.0.0.6:" in line]
    assert mine and podman.listeners_command("127.0.0.6") == "ss -Hltnp src 127.0.0.6"
    got = podman.parse_listeners("\n".join(mine))
    assert got.split(", ") == sorted(f"{line.split()[3]} rootlessport" for line in mine)
    pasta = podman.parse_listeners("\n".join(x for x in text.splitlines() if " 127.0.0.7:" in x))
    assert {p.split()[1] for p in pasta.split(", ")} == {"passt.avx2"}
    bridge = podman.parse_listeners("\n".join(x for x in text.splitlines() if " 127.0.0.5:" in x))
    assert {p.split()[1] for p in bridge.split(", ")} == {"conmon"}
    assert podman.parse_listeners("LISTEN 0 5 127.0.0.9:1 0.0.0.0:*") == "127.0.0.9:1 ?"
    assert podman.parse_listeners("") == ""
