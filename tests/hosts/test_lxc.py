"""The LXC environment on this machine's local hosts: a system container booted from the image
tree, reached over SSH to 127.0.0.1:2222; its lifecycle with a server inside, a container
stopped mid-trial, and the unprivileged variant refused with its cause.

A group of its own (``lxc``): it shares no container, port or bridge with the ``hosts`` group's
tests, so the two can run on the two pytest workers at once. Its bridge (ovhlxct0, 10.199.77.0/24)
is its own too: the tests see it made and removed again.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest
from conftest import SHARED_MACHINE, unavailable

from overhead.campaign import inventory, manifest, plan
from overhead.campaign.execute import REMOTE_BASE, run_campaign, trial_dir
from overhead.campaign.ingest import ingest_campaign
from overhead.paths import ROOT
from overhead.tidy import load as tidy_load

pytestmark = pytest.mark.xdist_group("lxc")
IMAGE = ROOT / "data" / "hosts" / "image" / "current"
BRIDGE, BRIDGE_ADDRESS = "ovhlxct0", "10.199.77.1/24"
CAMPAIGNS = ("lxc-life", "lxc-fault", "lxc-unpriv")
LXC_TOOLS = ("lxc-start", "lxc-attach", "lxc-info", "lxc-stop", "lxc-destroy", "lxc-freeze")


@pytest.fixture(scope="module")
def lxc_hosts(hosts):
    """The local hosts, LXC installed, and no bridge of these tests left by an earlier run.

    At the end, the campaigns' folders on the host (the engine leaves them empty) go too.
    """
    missing = [t for t in LXC_TOOLS if shutil.which(t) is None]
    if missing:
        unavailable(f"not installed: {', '.join(missing)} (apt-get install lxc)")
    if not (IMAGE / "rootfs" / "sbin" / "init").exists():
        pytest.fail(f"no image tree at {IMAGE / 'rootfs'} after hosts-up")
    assert not _link_exists(BRIDGE), f"bridge {BRIDGE} is left from an earlier run: ip link del {BRIDGE}"
    yield hosts
    for name in CAMPAIGNS:
        shutil.rmtree(f"{REMOTE_BASE}/{name}", ignore_errors=True)


def _link_exists(name: str) -> bool:
    return subprocess.run(["ip", "link", "show", name], capture_output=True).returncode == 0


def _lxc_state(name: str) -> str | None:
    """The container's state as lxc-info says it; None when LXC knows no such container."""
    r = subprocess.run(["lxc-info", "-s", "-n", name], capture_output=True, text=True)
    return r.stdout.split()[-1] if r.returncode == 0 and r.stdout.split() else None


def _cgroups_of(campaign: str) -> list[str]:
    """Cgroup folders of the campaign left in any hierarchy."""
    return [str(p) for p in Path("/sys/fs/cgroup").glob(f"*/overhead/{campaign}")] + \
        [str(p) for p in Path("/sys/fs/cgroup").glob(f"overhead/{campaign}")]


def _campaign(tmp_path: Path, name: str, *, trials: int, environments: str, benchmarks: str) -> Path:
    h = ROOT / "data" / "hosts" / "ssh"
    path = tmp_path / f"{name}.yml"
    path.write_text(f"""\
name: {name}
{SHARED_MACHINE}seed: 3
trials: {trials}
timeout: 120
hosts:
  local: {{address: 127.0.0.1, port: 2222, key_file: {h / 'id_ed25519'},
          known_hosts: {h / 'known_hosts'}}}
environments:
{environments}benchmarks:
{benchmarks}""")
    return path


def _last_states(mfile: Path) -> dict:
    last = {}
    for r in manifest.read_records(mfile):
        if "trial" in r:
            last[r["trial"]] = r
    return last


def _tree_units() -> dict[str, str]:
    """The image tree's /etc/systemd/system entries and where each link points (never changed)."""
    folder = IMAGE / "rootfs" / "etc" / "systemd" / "system"
    return {p.name: os.readlink(p) if p.is_symlink() else "" for p in folder.iterdir()}


def test_lxc_lifecycle_with_a_server_inside(lxc_hosts, tmp_path):
    """sysbench natively and in the container; redis-server inside, redis-benchmark on the host
    against the container's bridge address; the facts say what LXC ran; nothing is left."""
    units = _tree_units()
    hostname = (IMAGE / "rootfs" / "etc" / "hostname").read_text()
    path = _campaign(tmp_path, "lxc-life", trials=2, environments=f"""\
  native: {{kind: native, host: local}}
  box: {{kind: lxc, host: local, image: {IMAGE}, bridge: {BRIDGE}, bridge_address: {BRIDGE_ADDRESS}}}
""", benchmarks="""\
  cpu: {runner: sysbench, params: {test: cpu, threads: 1, time: 2}}
  redis:
    runner: redis-benchmark
    client: local
    environments: [box]
    server: "redis-server --port 16479 --bind {listen} --protected-mode no --save '' --appendonly no"
    ready: "redis-cli -h {host} -p 16479 ping"
    ports: [16479]
    params: {port: 16479, clients: 10, requests: 2000, tests: get}
""")
    raw = tmp_path / "raw"
    # the campaign's level in the cpuset hierarchy as runc leaves it when a Docker or Podman
    # environment of the campaign started first (containers-2026): its CPUs set, but not
    # cgroup.clone_children, so a cgroup made below it has none and lxc-start failed ("Failed to
    # enter monitor cgroup: No space left on device") until each level cloned its CPUs
    cpuset = Path("/sys/fs/cgroup/cpuset")
    if (cpuset / "cpuset.cpus").exists():
        level = cpuset / "overhead" / "lxc-life"
        if level.exists():  # one an earlier run left: made afresh
            subprocess.run(["find", str(level), "-depth", "-type", "d", "-exec", "rmdir", "{}", ";"],
                           capture_output=True)
        level.mkdir(parents=True, exist_ok=True)
        for f in ("cpuset.cpus", "cpuset.mems"):
            (level / f).write_text((level.parent / f).read_text())
        (level / "cgroup.clone_children").write_text("0\n")
        probe = level / "probe"  # what a cgroup made below it gets: nothing
        probe.mkdir()
        empty = not (probe / "cpuset.cpus").read_text().strip()
        probe.rmdir()
        assert empty
    began = time.monotonic()
    result = run_campaign(inventory.load(path), raw_root=raw, progress=False)
    took = time.monotonic() - began
    assert result.failures == {} and result.done == 6, result.failures
    # the facts of the container: LXC, privileges, network, storage, cgroups, what it sees
    facts = json.loads((raw / "lxc-life" / "facts" / "box.json").read_text())
    assert facts["kind"] == "lxc" and facts["tidy_environment"] == "lxc"
    assert facts["variant"] == "net=veth-bridge,storage=overlay,privileged=true"
    assert facts["lxc_version"][:1].isdigit()
    assert facts["privileged"] == "true" and facts["rootless"] == "false"
    # the second environment of its host: the second container address after the bridge's
    assert facts["network_backend"] == f"veth on bridge {BRIDGE} ({BRIDGE_ADDRESS}), container 10.199.77.3"
    assert facts["storage_driver"].startswith(f"overlay rootfs over the image tree {IMAGE.resolve() / 'rootfs'}")
    assert facts["cgroup_mode"] in ("v1", "hybrid", "v2")
    assert facts["cgroup"].endswith("/overhead/lxc-life/box")
    assert facts["virt_container"] == "lxc"  # systemd-detect-virt inside the container
    assert facts["host_virt_container"] != "lxc" and facts["host_kernel"] == facts["kernel"]
    assert facts["lxc_boot"] in ("running", "degraded")
    for unit in ("nginx.service", "postgresql.service", "ssh.service"):
        assert unit not in facts["lxc_failed_units"]  # masked, so never started
    # the server listened on the container's bridge address; the client aimed there
    records = manifest.read_records(raw / "lxc-life" / "manifest.jsonl")
    started = [r for r in records if r.get("event") == "server-started"]
    assert [r["environment"] for r in started] == ["box"]
    assert "--bind 10.199.77.3" in started[0]["command"]
    info = json.loads(next((raw / "lxc-life" / "box" / "redis").glob("*/trial.json")).read_text())
    assert info["client"] == "local" and info["target"] == "10.199.77.3"
    assert any(r.get("event") == "lxc-bridge-made" for r in records)
    assert any(r.get("event") == "lxc-bridge-removed" for r in records)
    ingest_campaign(raw / "lxc-life", tmp_path / "tidy")
    rows = tidy_load(tmp_path / "tidy")
    cpu = rows[(rows["benchmark"] == "cpu") & (rows["metric"] == "event_rate")]
    assert cpu.groupby("environment")["run_id"].nunique().to_dict() == {"native": 2, "lxc": 2}
    assert (cpu["value"] > 0).all()
    rps = rows[(rows["benchmark"] == "redis") & (rows["metric"] == "throughput")]
    assert set(rps["environment"]) == {"lxc"} and rps["run_id"].nunique() == 2
    assert set(rps["variant"]) == {"net=veth-bridge,storage=overlay,privileged=true"}
    # nothing left: the container, its folder and upper layer, its cgroups, the bridge made for
    # it; the image tree below the overlay unchanged
    assert _lxc_state("overhead-lxc-life-box") is None
    assert not Path("/var/lib/lxc/overhead-lxc-life-box").exists()
    assert not _link_exists(BRIDGE)
    assert _cgroups_of("lxc-life") == []
    assert not Path(f"{REMOTE_BASE}/lxc-life/trials").exists()
    assert _tree_units() == units
    assert (IMAGE / "rootfs" / "etc" / "hostname").read_text() == hostname
    print(f"lxc lifecycle: {result.done} trials done in {took:.1f} s")


def _busy(container: str, command: str) -> bool:
    """Whether ``command`` runs inside ``container`` now (False if it is not up)."""
    r = subprocess.run(["lxc-attach", "-n", container, "--", "pgrep", "-x", command],
                       capture_output=True, timeout=30)
    return r.returncode == 0


def test_lxc_container_stopped_mid_trial_fails_that_trial_and_restarts(lxc_hosts, tmp_path):
    """``lxc-stop -k`` during a trial: that trial failed, its cause naming the stopped container;
    the container started afresh for the next trials, which are done."""
    name = "overhead-lxc-fault-box"
    path = _campaign(tmp_path, "lxc-fault", trials=3, environments=f"""\
  box: {{kind: lxc, host: local, image: {IMAGE}, bridge: {BRIDGE}, bridge_address: {BRIDGE_ADDRESS},
        address: 10.199.77.20}}
""", benchmarks="""\
  cpu: {runner: sysbench, params: {test: cpu, threads: 1, time: 4}}
""")
    raw = tmp_path / "raw"
    mfile = raw / "lxc-fault" / "manifest.jsonl"
    injected: list[str] = []
    stop = threading.Event()

    def running() -> str | None:
        try:
            last = _last_states(mfile)
        except Exception:  # noqa: BLE001 - a record being written
            return None
        return next((t for t, r in last.items() if r.get("state") == "running"), None)

    def inject():
        """Stop the container 1 s into the first trial whose sysbench runs in it."""
        while not stop.is_set() and not injected:
            time.sleep(0.2)
            if running() is None or not _busy(name, "sysbench"):
                continue
            time.sleep(1)
            tid = running()
            if tid is None or not _busy(name, "sysbench"):
                continue
            injected.append(tid)
            subprocess.run(["lxc-stop", "-k", "-n", name], capture_output=True, timeout=60)

    watcher = threading.Thread(target=inject, daemon=True)
    watcher.start()
    began = time.monotonic()
    try:
        result = run_campaign(inventory.load(path), raw_root=raw, progress=False)
    finally:
        stop.set()
        watcher.join(10)
    took = time.monotonic() - began
    assert len(injected) == 1, "the container was never seen running sysbench"
    last = _last_states(mfile)
    broken = last[injected[0]]
    assert broken["state"] == "failed", broken
    assert broken["cause"].startswith(f"container {name} stopped during the trial (LXC says "), broken
    assert result.failed == 1 and result.done == 2
    for t in plan.make_plan(inventory.load(path)).trials:
        if t.id != injected[0]:
            assert last[t.id]["state"] == "done", last[t.id]
            assert (trial_dir(raw / "lxc-fault", t) / "meta").exists()
    records = manifest.read_records(mfile)
    restarts = [r for r in records if r.get("event") == "environment-restart"]
    assert [(r["environment"], r["why"]) for r in restarts] == [("box", "container was not running")]
    assert _lxc_state(name) is None and not Path(f"/var/lib/lxc/{name}").exists()
    assert not _link_exists(BRIDGE) and _cgroups_of("lxc-fault") == []
    print(f"lxc fault: {result.done} done, {result.failed} failed in {took:.1f} s; "
          f"cause: {broken['cause'][:120]}")


def test_unprivileged_lxc_is_refused_with_its_cause(lxc_hosts, tmp_path):
    """``privileged: false`` on this host: the environment is down with the cause the host shows,
    its trials failed saying so, and nothing was made (no container, no bridge)."""
    path = _campaign(tmp_path, "lxc-unpriv", trials=2, environments=f"""\
  box: {{kind: lxc, host: local, image: {IMAGE}, privileged: false, bridge: {BRIDGE},
        bridge_address: {BRIDGE_ADDRESS}}}
""", benchmarks="""\
  cpu: {runner: sysbench, params: {test: cpu, threads: 1, time: 1}}
""")
    raw = tmp_path / "raw"
    result = run_campaign(inventory.load(path), raw_root=raw, progress=False)
    assert result.done == 0 and result.failed == 2
    causes = sorted(r["cause"] for r in _last_states(raw / "lxc-unpriv" / "manifest.jsonl").values())
    # the first trial says the environment did not start, the second that it is down: both why
    assert causes[0].startswith("environment box did not start: unprivileged LXC cannot run here: ")
    assert causes[1].startswith("environment box is down: unprivileged LXC cannot run here: ")
    cause = causes[0].partition("did not start: ")[2]
    assert causes[1].endswith(cause) and "\n" not in cause
    assert _lxc_state("overhead-lxc-unpriv-box") is None and not _link_exists(BRIDGE)
    print(f"lxc unprivileged: {cause}")
