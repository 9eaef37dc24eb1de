"""The LXC environment kind without LXC: its spec, command builders and lifecycle decisions.

The command lines are run where that needs nothing of LXC (the bridge commands in a network
namespace of their own, the state query against a stand-in ``lxc-info``); the live tests are
tests/hosts/test_lxc.py.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import textwrap
import threading
from pathlib import Path

import pytest
from conftest import unavailable

from overhead.campaign import inventory
from overhead.environments import lxc, registry
from overhead.environments.base import Context, EnvironmentDown, TrialFailed
from overhead.errors import InputError

CAMPAIGN = """\
name: lx
seed: 1
trials: 1
timeout: 60
hosts:
  local: {{address: 127.0.0.1, port: 2222, key_file: ssh/id, known_hosts: ssh/known_hosts}}
environments:
  native: {{kind: native, host: local}}
  box: {{kind: lxc, host: local, image: ../hosts/image/current{extra}}}
benchmarks:
  cpu: {{runner: sysbench, params: {{test: cpu, threads: 1, time: 1}}}}
"""


def _load(tmp_path: Path, extra: str = ""):
    folder = tmp_path / "campaigns"
    folder.mkdir(exist_ok=True)
    path = folder / "lx.yml"
    path.write_text(CAMPAIGN.format(extra=extra))
    return inventory.load(path)


def test_the_kind_is_registered_and_its_image_is_relative_to_the_campaign_file(tmp_path):
    assert registry.environment_class("lxc") is lxc.LxcEnvironment
    assert registry.path_fields("lxc") == ("image",)
    spec = _load(tmp_path).environments["box"]
    assert spec.kind == "lxc" and spec.privileged is True
    assert Path(spec.image) == (tmp_path / "hosts" / "image" / "current").resolve()
    assert (spec.bridge, spec.bridge_address, spec.address) == ("ovhlxc0", "10.199.0.1/24", None)


@pytest.mark.parametrize(("extra", "said"), [
    (", bridge: a-bridge-name-too-long", "not an interface name"),
    (", bridge: 'br 0'", "not an interface name"),
    (", bridge_address: 10.199.0.1", "with a prefix"),
    (", bridge_address: 10.199.0.0/24", "not the network's or broadcast"),
    (", bridge_address: 10.199.0.1/31", "/30 or wider"),
    (", address: 10.198.0.5", "not a container address on the bridge's network 10.199.0.0/24"),
    (", address: 10.199.0.1", "the bridge has 10.199.0.1"),
    (", address: 10.199.0.255", "not a container address"),
    (", address: nowhere", "not an IPv4 address"),
    (", privileged: maybe", "privileged"),
    (", storage: dir", "storage"),  # unknown fields are errors
])
def test_spec_refuses_what_cannot_be_a_container_on_a_bridge(tmp_path, extra, said):
    with pytest.raises(InputError, match="box") as err:
        _load(tmp_path, extra)
    assert said in str(err.value)


def test_the_containers_address_follows_the_environments_loopback():
    assert lxc.container_address("10.199.0.1/24", 1) == "10.199.0.2"
    assert lxc.container_address("10.199.0.1/24", 3) == "10.199.0.4"
    assert lxc.container_address("10.7.0.9/24", 9) == "10.7.0.10"  # the bridge's own is skipped
    assert lxc.container_address("10.7.0.1/30", 1) == "10.7.0.2"
    with pytest.raises(ValueError, match="no address number 2"):
        lxc.container_address("10.7.0.1/30", 2)


def test_config_puts_the_tree_under_an_overlay_and_mounts_runners_and_trials():
    text = lxc.config_text("overhead-c-e", tree="/img/rootfs", bridge="br9", address="10.9.0.5",
                           bridge_address="10.9.0.1/16", runners_dir="/r/runners-abc",
                           trials_dir="/c/trials", cgroup_dir="overhead/c/e")
    conf = {}
    for line in text.splitlines():
        key, _, value = line.partition(" = ")
        conf.setdefault(key, []).append(value)
    assert conf["lxc.rootfs.path"] == ["overlay:/img/rootfs:/var/lib/lxc/overhead-c-e/upper"]
    assert conf["lxc.net.0.type"] == ["veth"] and conf["lxc.net.0.link"] == ["br9"]
    assert conf["lxc.net.0.ipv4.address"] == ["10.9.0.5/16"]
    assert conf["lxc.net.0.ipv4.gateway"] == ["10.9.0.1"]
    assert conf["lxc.mount.entry"] == [
        "/r/runners-abc overhead/runners none bind,ro,create=dir 0 0",
        "/c/trials overhead/trials none bind,create=dir 0 0"]
    assert conf["lxc.cgroup.dir"] == ["overhead/c/e"]
    assert conf["lxc.uts.name"] == ["overhead-c-e"]
    # no idmap: a privileged container
    assert "lxc.idmap" not in conf
    assert "lxc.cgroup.dir" not in lxc.config_text(
        "n", tree="/t", bridge="b", address="10.0.0.2", bridge_address="10.0.0.1/24",
        runners_dir="/r", trials_dir="/t2")


def test_start_command_masks_units_in_the_upper_layer_and_never_writes_the_tree():
    config = lxc.config_text("n1", tree="/img/rootfs", bridge="b", address="10.0.0.2",
                             bridge_address="10.0.0.1/24", runners_dir="/r", trials_dir="/t")
    cmd = lxc.start_command("n1", config)
    assert cmd.startswith(lxc.stop_command("n1"))  # an old container of that name goes first
    assert "/var/lib/lxc/n1/upper/etc/systemd/system/$u" in cmd
    for unit in ("nginx.service", "postgresql.service", "ssh.service", "systemd-networkd.service",
                 "redis-server.service", "apt-daily.timer"):
        assert unit in cmd.split("for u in ")[1].split(";")[0]
    assert "/img/rootfs" not in cmd.replace(f"'{config}'", "")  # only the config names the tree
    assert "lxc-start -n n1 -l INFO -o /var/lib/lxc/n1/lxc.log" in cmd
    subprocess.run(["sh", "-n", "-c", cmd], check=True)  # parses as shell


def test_the_mask_list_covers_what_the_vm_image_masks():
    build = (Path(__file__).resolve().parents[2] / "images" / "debian" / "build.sh").read_text()
    loop = build.split("for unit in ", 1)[1].split("; do", 1)[0]
    vm = set(loop.replace("\\\n", " ").split())
    assert vm and vm <= set(lxc.MASKED_UNITS)


def _netns(script: str) -> subprocess.CompletedProcess:
    """Run ``script`` as root in a network (and mount) namespace of its own, /sys remounted."""
    if os.geteuid() != 0 or shutil.which("ip") is None or shutil.which("unshare") is None:
        unavailable("needs root, ip and unshare (a network namespace of the test's own)")
    return subprocess.run(["unshare", "-nm", "sh", "-c",
                           "mount -t sysfs sysfs /sys && " + script],
                          capture_output=True, text=True, timeout=60)


def test_bridge_is_made_once_with_its_address_and_removed_only_when_ours_and_unused():
    make = lxc.bridge_command("ovhtest0", "10.199.9.1/24")
    remove = lxc.bridge_remove_command("ovhtest0")
    r = _netns(f"""
{make}; echo rc=$?
{make}; echo rc=$?
ip -4 -o addr show dev ovhtest0 | grep -c 'inet 10.199.9.1/24'
cat /sys/class/net/ovhtest0/ifalias
ip link add d0 type veth peer name d1 && ip link set d0 master ovhtest0
{remove}
ip link del d0
{remove}
ip link show ovhtest0 >/dev/null 2>&1 || echo gone
ip link add ovhtest0 type bridge
{remove}
ip link show ovhtest0 >/dev/null 2>&1 && echo theirs-stays
""")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["bridge=made", "rc=0", "bridge=existing", "rc=0", "1",
                                "overhead-lxc", "bridge=kept", "bridge=removed", "gone",
                                "bridge=kept", "theirs-stays"], (r.stdout, r.stderr)


def _stand_in(tmp_path: Path, name: str, body: str) -> dict:
    """Put a stand-in command ``name`` first on PATH; return the environment to run with."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / name).write_text("#!/bin/sh\n" + textwrap.dedent(body))
    (bin_dir / name).chmod(0o755)
    return {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}


@pytest.mark.parametrize(("info", "expected"), [
    ("echo 'State:          RUNNING'", "RUNNING"),
    ("echo 'State:          FROZEN'", "FROZEN"),
    ("echo 'State:          STOPPED'", "STOPPED"),
    ("echo \"$3 doesn't exist\" >&2; exit 1", "gone"),
])
def test_running_command_prints_lxcs_state(tmp_path, info, expected):
    env = _stand_in(tmp_path, "lxc-info", info + "\n")
    out = subprocess.run(["sh", "-c", lxc.running_command("c1")], capture_output=True,
                         text=True, env=env)
    assert out.stdout.strip() == expected


def test_exec_command_attaches_with_a_clean_environment_under_two_timeouts(tmp_path):
    cmd = lxc.exec_command("c1", "sysbench", "t-1", {"test": "cpu", "time": 2}, 30)
    assert cmd.startswith("timeout -k 10 50 lxc-attach -n c1 --clear-env ")
    # a stand-in lxc-attach runs what follows ``--`` here: the runner line as the container gets it
    env = _stand_in(tmp_path, "lxc-attach", """\
        while [ "$1" != -- ]; do printf '%s\\n' "$1"; shift; done; shift
        printf 'argv:%s\\n' "$@"
        """)
    out = subprocess.run(["sh", "-c", cmd], capture_output=True, text=True, env=env).stdout
    lines = out.splitlines()
    assert lines[:7] == ["-n", "c1", "--clear-env", "--set-var", f"PATH={lxc.CONTAINER_PATH}",
                         "--set-var", "HOME=/root"]
    inner = [x for x in lines if x.startswith("argv:")]
    assert inner[:2] == ["argv:sh", "argv:-c"]
    script = "\n".join(inner[2:])[len("argv:"):]
    assert "sh /overhead/runners/sysbench.sh /overhead/trials/t-1 test=cpu time=2" in script
    assert "echo $$ > /overhead/trials/t-1.pgid" in script


def test_prepare_kills_inside_and_removes_on_the_host():
    cmd = lxc.prepare_command("c1", "t-1", "/camp/trials")
    assert cmd.startswith("lxc-attach -n c1 --clear-env")
    assert "/overhead/trials/t-1.pgid" in cmd
    assert cmd.endswith("rm -rf /camp/trials/t-1 /camp/trials/t-1.partial.* /camp/trials/t-1.pgid")


def test_stop_and_cgroup_removal_name_only_the_container_and_its_cgroups():
    stop = lxc.stop_command("c1")
    assert "lxc-stop -k -n c1" in stop and "lxc-destroy -n c1" in stop
    assert "rm -rf /var/lib/lxc/c1;" in stop
    rm = lxc.cgroup_remove_command("overhead/camp/env", "c1")
    for d in ("overhead/camp/env/lxc.payload.c1", "overhead/camp/env/lxc.monitor.c1",
              "overhead/camp/env/lxc.pivot", "overhead/camp/env", "overhead/camp", "overhead"):
        assert f" {d}" in rm
    assert "rmdir" in rm and "rm -r" not in rm  # a cgroup in use is never forced


def test_cgroup_mode_of_this_host():
    out = subprocess.run(["sh", "-c", lxc.cgroup_mode_command()], capture_output=True, text=True)
    mode = lxc.parse_facts(out.stdout)["cgroup_mode"]
    unified = Path("/sys/fs/cgroup/cgroup.controllers").exists()
    assert mode == ("v2" if unified else "hybrid" if Path("/sys/fs/cgroup/unified").is_dir()
                    else "v1")


def test_unprivileged_is_refused_with_the_causes_the_host_shows():
    here = lxc.unprivileged_cause({"subids": "no user=root", "lxc_version": "5.0.2",
                                   "cgroup_mode": "hybrid"})
    assert here.startswith("unprivileged LXC cannot run here: root has no subordinate uid/gid")
    assert "LXC 5.0.2 idmaps only a 'dir' root filesystem" in here
    assert "cgroup hybrid layout does not delegate" in here
    assert "\n" not in here
    v2 = lxc.unprivileged_cause({"subids": "yes", "lxc_version": "5.0.2", "cgroup_mode": "v2"})
    assert "subordinate" not in v2 and "delegate" not in v2 and "'dir' root filesystem" in v2
    later = lxc.unprivileged_cause({"subids": "yes", "lxc_version": "6.0.1", "cgroup_mode": "v2"})
    assert later.endswith("this environment runs only privileged containers")


class FakeHost:
    """A host connection answering each command by the first pattern it contains."""

    def __init__(self, answers: list[tuple[str, tuple[int, str, str]]]):
        self.answers = answers
        self.commands: list[str] = []

    def exec(self, command, timeout, *, interruptible=True):
        self.commands.append(command)
        for pattern, answer in self.answers:
            if pattern in command:
                return answer
        return 0, "", ""


def _env(host: FakeHost, **spec) -> lxc.LxcEnvironment:
    s = lxc.LxcEnv(kind="lxc", host="local", image=Path("/img"), **spec)
    events = []
    ctx = Context(name="box", spec=s, campaign="camp", folder="/tmp/overhead/camp",
                  runners_dir=Path("/r"), files={}, campaign_dir=None, loopback="127.0.0.3",
                  address="127.0.0.1", server_ports=(), port_offsets={}, host=lambda: host,
                  event=lambda name, **f: events.append((name, f)), stop=threading.Event(),
                  cgroup="overhead/camp/box")
    env = lxc.LxcEnvironment(ctx)
    env.events = events
    return env


def test_the_client_on_the_host_reaches_the_container_on_the_bridge():
    env = _env(FakeHost([]))
    assert env.ip == "10.199.0.4"  # loopback 127.0.0.3: the third address after the bridge's
    assert env.address(True) == env.listen(True) == "10.199.0.4"
    assert not env.shares_host_ports
    assert env.variant == "net=veth-bridge,storage=overlay,privileged=true"
    with pytest.raises(TrialFailed, match="on bridge ovhlxc0 of host local only"):
        env.address(False)
    assert _env(FakeHost([]), address="10.199.0.77").ip == "10.199.0.77"


def test_servers_start_detached_inside_and_stop_by_their_session():
    env = _env(FakeHost([]))
    start = env.server_command("redis", "redis-server --port 1", "1")
    assert start.startswith("lxc-attach -n overhead-camp-box --clear-env")
    assert "setsid sh -c" in start and "taskset -c 1 redis-server --port 1" in start
    assert "/overhead/trials/server-box-redis.pid" in start
    assert start.endswith("< /dev/null")
    stop = env.server_stop_command("redis")
    assert "kill -TERM -$p" in stop and stop.endswith("; true")
    assert env.stale_server_command("redis") == "rm -f /tmp/overhead/camp/trials/server-box-redis.pid"


def test_a_trial_failed_with_its_container_stopped_says_so():
    failure = TrialFailed("exit status 1", "boom", 1)
    stopped = _env(FakeHost([("lxc-info", (0, "STOPPED\n", ""))]))
    said = stopped.diagnose(failure)
    assert said.cause == ("container overhead-camp-box stopped during the trial "
                          "(LXC says STOPPED; exit status 1)")
    assert said.stderr == "boom" and said.exit_status == 1
    running = _env(FakeHost([("lxc-info", (0, "RUNNING\n", ""))]))
    assert running.diagnose(failure) is failure
    gone = _env(FakeHost([("lxc-info", (0, "gone\n", ""))]))
    assert "LXC says gone" in gone.diagnose(failure).cause


def test_ensure_restarts_a_container_stopped_under_it():
    host = FakeHost([("lxc-info", (0, "STOPPED\n", ""))])
    env = _env(host)
    env.started = True
    env.servers = {"redis"}
    starts = []
    env.start = lambda: starts.append(1)
    assert env.ensure() is True and starts == [1]
    assert env.servers == set()
    assert env.events == [("environment-restart", {"environment": "box",
                                                   "why": "container was not running"})]


def test_unprivileged_start_marks_the_environment_down_with_the_hosts_cause():
    host = FakeHost([("subids", (0, "subids=no user=root\nlxc_version=5.0.2\n"
                                    "cgroup_mode=hybrid\n", ""))])
    env = _env(host, privileged=False)
    assert env.variant == "net=veth-bridge,storage=overlay,privileged=false"
    with pytest.raises(EnvironmentDown, match="did not start: unprivileged LXC cannot run here"):
        env.ensure()
    assert env.down.startswith("unprivileged LXC cannot run here: root has no subordinate")
    assert not env.needs_stop()  # nothing was made on the host
    assert not any("lxc-start -n" in c or "ip link" in c for c in host.commands)


def test_cpuset_levels_without_cpus_get_their_parent_s(tmp_path):
    """A level of the environment's cgroup that runc made in the cpuset hierarchy has no CPUs;
    LXC's monitor cgroup below it could not be entered. Each level gets its parent's; one that
    has its own keeps them, and a level missing is made."""
    root = tmp_path / "cpuset"
    for d, cpus, mems in ((root, "0-1", "0"), (root / "overhead", "0-1", "0"),
                          (root / "overhead" / "camp", "", ""), (root / "other", "1", "0")):
        d.mkdir(parents=True, exist_ok=True)
        (d / "cpuset.cpus").write_text(cpus + "\n" if cpus else "")
        (d / "cpuset.mems").write_text(mems + "\n" if mems else "")
        (d / "cgroup.clone_children").write_text("0\n")
    # the leaf is made by the command (a real cpuset file system makes its files; here empty ones)
    leaf = root / "overhead" / "camp" / "box"
    leaf.mkdir()
    (leaf / "cpuset.cpus").write_text("1\n")
    (leaf / "cpuset.mems").write_text("")
    (leaf / "cgroup.clone_children").write_text("0\n")
    subprocess.run(["sh", "-c", lxc.cpuset_prepare_command("overhead/camp/box", str(root))],
                   check=True)
    assert (root / "overhead" / "camp" / "cpuset.cpus").read_text() == "0-1\n"
    assert (root / "overhead" / "camp" / "cpuset.mems").read_text() == "0\n"
    assert (leaf / "cpuset.cpus").read_text() == "1\n"  # its own kept
    assert (leaf / "cpuset.mems").read_text() == "0\n"
    # LXC's own cgroups below each level clone its CPUs
    assert (leaf / "cgroup.clone_children").read_text() == "1\n"
    assert (root / "overhead" / "camp" / "cgroup.clone_children").read_text() == "1\n"
    # a cgroup v2 root (cgroup.controllers) is left alone: it has no such files to fill
    (root / "cgroup.controllers").write_text("cpuset\n")
    (root / "overhead" / "camp" / "cpuset.cpus").write_text("")
    subprocess.run(["sh", "-c", lxc.cpuset_prepare_command("overhead/camp/box", str(root))],
                   check=True)
    assert (root / "overhead" / "camp" / "cpuset.cpus").read_text() == ""
