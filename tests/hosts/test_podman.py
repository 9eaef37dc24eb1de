"""Podman environments on this machine's local hosts (make hosts-up): rootful (host, bridge)
and rootless (slirp4netns, pasta) containers, runc and crun, over SSH as root and as the
unprivileged user hosts-up makes; their lifecycle, facts, and a container stopped mid-trial."""

from __future__ import annotations

import json
import subprocess
import threading
import time
from pathlib import Path

import pandas as pd
import pytest
from conftest import SHARED_MACHINE

from overhead.campaign import inventory, manifest, plan
from overhead.campaign.execute import REMOTE_BASE, run_campaign
from overhead.campaign.ingest import ingest_campaign
from overhead.environments.podman import ROOTLESS_USER
from overhead.paths import ROOT
from overhead.tidy import load as tidy_load

# its own group: the ports below are not those of the "hosts" group's campaigns, so the two can
# run on the two pytest workers side by side
pytestmark = pytest.mark.xdist_group("podman")
#: netperf's ports here (the hosts group's campaigns use 12865 and up on the same loopbacks)
NETPERF = 23865


def _podman(user: str, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    """Run podman as root or as the rootless user (from /, which that user may enter)."""
    prefix = [] if user == "root" else ["runuser", "-u", user, "--"]
    return subprocess.run([*prefix, "podman", *args], capture_output=True, text=True,
                          timeout=timeout, cwd="/")


def _names(user: str) -> list[str]:
    return _podman(user, "ps", "-a", "--format", "{{.Names}}").stdout.split()


def _campaign(tmp_path: Path, name: str, environments: str, benchmarks: str, trials: int) -> Path:
    h = ROOT / "data" / "hosts" / "ssh"
    path = tmp_path / f"{name}.yml"
    path.write_text(f"""\
name: {name}
{SHARED_MACHINE}seed: 11
trials: {trials}
timeout: 120
hosts:
  local: {{address: 127.0.0.1, port: 2222, key_file: {h / 'id_ed25519'},
          known_hosts: {h / 'known_hosts'}, connect_timeout: 5, keepalive: 2}}
environments:
{environments}
benchmarks:
{benchmarks}
""")
    return path


NETPERF_BENCH = f"""\
  netperf:
    runner: netperf
    client: local
    server: "netserver -D -L {{listen}} -p {{port:{NETPERF}}}"
    ready: "netperf -H {{host}} -p {{port:{NETPERF}}} -t TCP_RR -l -10 -P 0 -- -P ,{{port:{NETPERF + 1}}}"
    ports: [{NETPERF}, {NETPERF + 1}]
    offset_ports: true
    params: {{test: TCP_RR, length: 1, request: 100, response: 200,
             port: "{{port:{NETPERF}}}", data_port: "{{port:{NETPERF + 1}}}"}}
"""


def _last_states(mfile: Path) -> dict[str, dict]:
    last: dict[str, dict] = {}
    for r in manifest.read_records(mfile):
        if "trial" in r:
            last[r["trial"]] = r
    return last


def test_podman_rootful_and_rootless_campaign(hosts, tmp_path):
    """Native, rootful (bridge+crun, host+runc) and rootless (slirp4netns+runc, pasta+crun):
    every trial done, the load generator reaches each server, the facts say what ran where,
    and nothing is left (containers, pasta, the rootless user's trials folder)."""
    path = _campaign(tmp_path, "podlife", """\
  native: {kind: native, host: local}
  pod-bridge: {kind: podman, host: local, net: bridge, runtime: crun}
  pod-host: {kind: podman, host: local, net: host, runtime: runc, storage: overlay}
  rl-slirp: {kind: podman, host: local, rootless: true, net: slirp4netns, runtime: runc}
  rl-pasta: {kind: podman, host: local, rootless: true, net: pasta, runtime: crun}""",
                     "  cpu: {runner: sysbench, params: {test: cpu, threads: 1, time: 1}}\n"
                     + NETPERF_BENCH, trials=2)
    campaign = inventory.load(path)
    p = plan.make_plan(campaign)
    assert len(p.trials) == 20  # 5 environments x 2 benchmarks x 2 rounds
    raw = tmp_path / "raw"
    result = run_campaign(campaign, raw_root=raw, progress=False)
    assert result.failures == {} and result.done == 20, result.failures
    facts = {e: json.loads((raw / "podlife" / "facts" / f"{e}.json").read_text())
             for e in ("pod-bridge", "pod-host", "rl-slirp", "rl-pasta")}
    assert facts["pod-bridge"]["variant"] == "mode=rootful,net=bridge,storage=volume,runtime=crun"
    assert facts["rl-pasta"]["variant"] == "mode=rootless,net=pasta,storage=volume,runtime=crun"
    for env, f in facts.items():
        rootless = env.startswith("rl-")
        assert f["rootless"] is rootless and f["podman_rootless"] == str(rootless).lower()
        assert f["podman_user"] == (ROOTLESS_USER if rootless else "root")
        assert f["podman_version"].startswith("4.") and f["podman_storage_driver"] == "overlay"
        assert f["podman_cgroup_version"] in ("v1", "v2")
        assert f["podman_container_runtime"] == ("crun" if env in ("pod-bridge", "rl-pasta")
                                                 else "runc")
        # rootless: no cgroup to account the container's CPU time to, and said so
        assert f["cgroup"].startswith("unavailable") if rootless else "/" in f["cgroup"]
    assert facts["pod-bridge"]["podman_network_mode"] == "bridge"
    assert facts["rl-slirp"]["podman_network_mode"] == "slirp4netns"
    assert facts["rl-pasta"]["podman_network_mode"] == "none"  # pasta attached by the engine
    assert facts["rl-pasta"]["podman_passt_version"]
    assert "nproc=" in facts["pod-bridge"]["podman_ulimits"]
    assert facts["rl-slirp"]["podman_ulimits"] == "--ulimit host"
    # the other environments stood still during each trial: rootless ones too, without a freezer
    records = manifest.read_records(raw / "podlife" / "manifest.jsonl")
    assert not [r for r in records if r.get("event") == "pause-failed"], \
        [r for r in records if r.get("event") == "pause-failed"][:2]
    # the rows: a round-trip rate from each server, through its network
    tidy = tmp_path / "tidy"
    ingest_campaign(raw / "podlife", tidy)
    rows = tidy_load(tidy)
    rr = rows[(rows["benchmark"] == "netperf") & (rows["metric"] == "transaction_rate")]
    by_env = rr.assign(env=rr["run_id"].str.split("/").str[1]).groupby("env")
    assert by_env["run_id"].nunique().to_dict() == {e: 2 for e in (
        "native", "pod-bridge", "pod-host", "rl-pasta", "rl-slirp")}
    assert (by_env["value"].min() > 0).all()
    assert set(rows["environment"]) == {"native", "podman"}
    # nothing left behind
    assert not [n for n in _names("root") if n.startswith("overhead-podlife-")]
    assert not [n for n in _names(ROOTLESS_USER) if n.startswith("overhead-podlife-")]
    assert not Path(f"{REMOTE_BASE}-{ROOTLESS_USER}/podlife/trials").exists()
    assert not Path(f"{REMOTE_BASE}/podlife/trials").exists()
    pasta = subprocess.run(["pgrep", "-u", ROOTLESS_USER, "-f", "pasta"], capture_output=True)
    assert pasta.returncode == 1, pasta.stdout


def test_podman_container_stopped_mid_trial_fails_that_trial_only(hosts, tmp_path):
    """A rootful and a rootless container stopped during a trial: that trial fails naming the
    container, the environment is started again, and its later trials are done."""
    path = _campaign(tmp_path, "podfault", """\
  pod: {kind: podman, host: local, net: bridge, runtime: runc}
  rl: {kind: podman, host: local, rootless: true, net: pasta, runtime: crun}""",
                     "  cpu: {runner: sysbench, params: {test: cpu, threads: 1, time: 4}}\n",
                     trials=3)
    raw = tmp_path / "raw"
    mfile = raw / "podfault" / "manifest.jsonl"
    injected: dict[str, str] = {}
    stop = threading.Event()
    users = {"pod": "root", "rl": ROOTLESS_USER}

    def running() -> dict[str, str]:
        try:
            state = _last_states(mfile)
        except Exception:  # noqa: BLE001 - a record being written
            return {}
        return {r.get("environment"): tid for tid, r in state.items()
                if r.get("state") == "running"}

    def busy(env: str) -> bool:
        top = _podman(users[env], "top", f"overhead-podfault-{env}", "comm")
        return top.returncode == 0 and "sysbench" in top.stdout.split()

    def inject():
        while not stop.is_set() and len(injected) < 2:
            time.sleep(0.1)
            for env, tid in running().items():
                if env in injected or not busy(env):
                    continue
                time.sleep(1.0)
                if running().get(env) != tid or not busy(env):
                    continue
                injected[env] = tid
                _podman(users[env], "stop", "-t", "0", f"overhead-podfault-{env}")

    watcher = threading.Thread(target=inject, daemon=True)
    watcher.start()
    try:
        result = run_campaign(inventory.load(path), raw_root=raw, progress=False)
    finally:
        stop.set()
        watcher.join(5)
    assert set(injected) == {"pod", "rl"}
    last = _last_states(mfile)
    for env, tid in injected.items():
        assert last[tid]["state"] == "failed", last[tid]
        assert f"container overhead-podfault-{env}" in last[tid]["cause"], last[tid]["cause"]
        assert "stopped during the trial" in last[tid]["cause"]
    restarts = [r for r in manifest.read_records(mfile) if r.get("event") == "environment-restart"]
    assert {r["environment"] for r in restarts} == {"pod", "rl"}
    others = [t for t in plan.make_plan(inventory.load(path)).trials
              if t.id not in injected.values()]
    assert all(last[t.id]["state"] == "done" for t in others), \
        pd.DataFrame([last[t.id] for t in others])[["trial", "state"]]
    assert result.failed == 2 and result.done == 4
    assert not [n for n in _names(ROOTLESS_USER) if n.startswith("overhead-podfault-")]
