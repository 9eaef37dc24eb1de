"""Fleet hosts in network namespaces (scripts/fleet-up.sh, fleet-link.sh, fleet-down.sh).

Four hosts with the tests' own names (prefix ``ovt``, 10.231.1.0/24) and state folder, so a
user's fleet (``ovf``, 10.231.0.0/24) is left alone. The module's tests run in order on one
worker; the last one stops the fleet and checks that nothing it started is left.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import threading
import time
from datetime import datetime
from pathlib import Path

import pytest
from conftest import SHARED_MACHINE, require

from overhead.campaign import inventory
from overhead.campaign.execute import run_campaign
from overhead.environments.connect import connect
from overhead.environments.remote import Remote
from overhead.paths import ROOT
from overhead.runners import RUNNERS_DIR

pytestmark = pytest.mark.xdist_group("fleet")

N = 4
PREFIX = "ovt"
NET = "10.231.1"


def _env(state: Path) -> dict:
    return {**os.environ, "OVERHEAD_FLEET": str(state), "OVERHEAD_FLEET_PREFIX": PREFIX,
            "OVERHEAD_FLEET_NET": NET}


def _script(state: Path, name: str, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run(["sh", str(ROOT / "scripts" / name), *args], env=_env(state),
                          capture_output=True, text=True, timeout=120)
    if check and done.returncode:
        pytest.fail(f"{name} {' '.join(args)}: exit {done.returncode}\n{done.stdout}\n{done.stderr}")
    return done


def _left(state: Path) -> list[str]:
    """What a fleet of PREFIX left on this machine: namespaces, links, sshds, rules, loops."""
    out = []
    netns = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    out += [f"namespace {n}" for n in re.findall(rf"^({PREFIX}-\d\d)\b", netns, re.M)]
    links = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True).stdout
    out += [f"link {n}" for n in re.findall(rf"^\d+: ({PREFIX}-[\w-]+)[@:]", links, re.M)]
    for proc in Path("/proc").iterdir():
        try:
            cmd = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if str(state) in cmd and "sshd" in cmd:
            out.append(f"process {proc.name}: {cmd.strip()}")
    rules = subprocess.run(["iptables", "-S"], capture_output=True, text=True).stdout
    out += [f"iptables {r}" for r in rules.splitlines() if f"{PREFIX}-" in r]
    loops = subprocess.run(["losetup", "-a"], capture_output=True, text=True).stdout
    out += [f"loop {line}" for line in loops.splitlines() if str(state) in line]
    return out


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    """A fleet of N hosts, up; stopped at the end whatever happened."""
    require("ip", "unshare", "sshd", "ssh-keygen", "iptables", "tc", root=True)
    state = tmp_path_factory.mktemp("fleet")
    if _left(state):  # a previous run's leftovers under these names: clear them first
        _script(state, "fleet-down.sh")
    cold = _script(state, "fleet-up.sh", str(N))
    assert f"{N} hosts ready" in cold.stdout and f"({N} sshd started, 0 left running)" in cold.stdout
    yield state
    _script(state, "fleet-down.sh", check=False)


def _remote(state: Path, i: int, timeout: float = 10.0) -> Remote:
    return Remote(connect(f"{NET}.{10 + i}", 22, "root", known_hosts=state / "ssh" / "known_hosts",
                          key_file=state / "ssh" / "id_ed25519", timeout=timeout, keepalive=2),
                  keepalive=2, responsive=timeout)


def test_each_host_has_its_own_address_key_and_var_tmp_and_reaches_only_the_bridge(fleet):
    inv = (fleet / "inventory.yml").read_text()
    assert [f"fleet-{i:02d}" for i in range(1, N + 1)] == re.findall(r"^  (fleet-\d\d):", inv, re.M)
    keys = (fleet / "ssh" / "known_hosts").read_text().splitlines()
    assert len({line.split()[2] for line in keys}) == N  # one host key each
    for i in range(1, N + 1):
        r = _remote(fleet, i)
        try:
            status, out, _ = r.exec("ip -4 -o addr show; ip route; touch /var/tmp/host-mark; "
                                    "ls /var/tmp", 30)
            assert status == 0
            assert re.findall(r"inet (\S+)", out) == ["127.0.0.1/8", f"{NET}.{10 + i}/24"]
            assert f"{NET}.0/24 dev eth0" in out and "default" not in out  # the bridge, nothing else
            assert out.split().count("host-mark") == 1
            # a file another host writes in its /var/tmp is not in this one's
            r.exec(f"echo {i} > /var/tmp/host-mark", 30)
            assert r.exec("cat /var/tmp/host-mark", 30)[1].strip() == str(i)
        finally:
            r.close()
    assert not Path("/var/tmp/host-mark").exists()  # nor in this machine's


def test_fleet_up_again_leaves_running_hosts_alone(fleet):
    pids = [(fleet / "hosts" / f"{i:02d}" / "sshd.pid").read_text() for i in range(1, N + 1)]
    warm = _script(fleet, "fleet-up.sh", str(N))
    assert f"(0 sshd started, {N} left running)" in warm.stdout
    assert pids == [(fleet / "hosts" / f"{i:02d}" / "sshd.pid").read_text() for i in range(1, N + 1)]


def _sleep_runner() -> str:
    spec = importlib.util.spec_from_file_location("bench_campaign", ROOT / "scripts" / "bench_campaign.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.SLEEP_RUNNER


def test_a_campaign_over_the_fleet_runs_its_hosts_at_once(fleet, tmp_path):
    runners = tmp_path / "runners"
    runners.mkdir()
    shutil.copy(RUNNERS_DIR / "common.sh", runners / "common.sh")
    (runners / "sleep.sh").write_text(_sleep_runner())
    (tmp_path / "fleet.yml").write_text(
        f"name: fleet-parallel\nseed: 1\ntrials: 3\nwarmup: 0\ntimeout: 60\n{SHARED_MACHINE}"
        f"runners: {runners}\ninventory: {fleet / 'inventory.yml'}\n"
        "benchmarks:\n  sleep: {runner: sleep, params: {seconds: 1}}\n")
    campaign = inventory.load(tmp_path / "fleet.yml")
    assert sorted(campaign.environments) == [f"native-{i:02d}" for i in range(1, N + 1)]
    result = run_campaign(campaign, raw_root=tmp_path / "raw", progress=False)
    assert (result.done, result.failed) == (3 * N, 0), result.failures
    spans: dict[str, list[tuple[datetime, datetime]]] = {}
    for f in (tmp_path / "raw" / "fleet-parallel").rglob("trial.json"):
        t = json.loads(f.read_text())
        if t.get("status") == "done":
            spans.setdefault(t["host"], []).append(
                (datetime.fromisoformat(t["started_at"]), datetime.fromisoformat(t["finished_at"])))
    assert sorted(spans) == [f"fleet-{i:02d}" for i in range(1, N + 1)]
    assert all(len(s) == 3 for s in spans.values())
    # one worker per host: every host's first trial ran while each other host's did
    firsts = [min(s) for s in spans.values()]
    assert max(a for a, _ in firsts) < min(b for _, b in firsts), firsts
    # each host's trials ran in its own /var/tmp (its campaign folder, not this machine's)
    assert not Path("/var/tmp/overhead/fleet-parallel").exists()


def test_links_are_cut_shaped_and_restored(fleet):
    _script(fleet, "fleet-link.sh", "2", "cut")
    t = time.monotonic()
    with pytest.raises(Exception) as cut:
        _remote(fleet, 2, timeout=2).close()
    assert time.monotonic() - t < 10, "a cut link must fail the connect within its timeout"
    assert "timed out" in str(cut.value).lower() or "timeout" in type(cut.value).__name__.lower() \
        or "lost" in str(cut.value).lower(), repr(cut.value)
    _script(fleet, "fleet-link.sh", "2", "restore")
    _remote(fleet, 2).close()
    _script(fleet, "fleet-link.sh", "3", "rate", "2mbit")
    qdisc = subprocess.run(["tc", "qdisc", "show", "dev", f"{PREFIX}-03h"], capture_output=True, text=True).stdout
    assert "tbf" in qdisc and "rate 2Mbit" in qdisc
    _script(fleet, "fleet-link.sh", "3", "loss", "5")
    has_netem = "netem" in subprocess.run(["tc", "qdisc", "show", "dev", f"{PREFIX}-03h"],
                                          capture_output=True, text=True).stdout
    rules = subprocess.run(["iptables", "-S", f"{PREFIX}-loss"], capture_output=True, text=True).stdout
    assert has_netem or rules.count(f"{NET}.13/32") == 2
    delay = _script(fleet, "fleet-link.sh", "3", "delay", "20ms", check=False)
    assert delay.returncode == 0 or "no tc netem" in delay.stderr
    _script(fleet, "fleet-link.sh", "3", "clear")
    assert "tbf" not in subprocess.run(["tc", "qdisc", "show", "dev", f"{PREFIX}-03h"],
                                       capture_output=True, text=True).stdout
    assert f"{NET}.13/32" not in subprocess.run(["iptables", "-S"], capture_output=True, text=True).stdout
    _remote(fleet, 3).close()


def _dnat_packets(address: str) -> int:
    """Packets Docker's DNAT rules for ``address`` (published ports) have translated so far."""
    out = subprocess.run(["iptables", "-t", "nat", "-L", "DOCKER", "-n", "-v", "-x"],
                         capture_output=True, text=True).stdout
    return sum(int(line.split()[0]) for line in out.splitlines()
               if "DNAT" in line and f" {address} " in f" {line} ")


def test_the_papers_two_machine_topology_runs_across_the_bridge(fleet, hosts, tmp_path):
    """data/campaigns/paper-two-hosts.yml (quick profile) with one trial a cell: load generators on
    fleet host 01, servers in native, Docker net=host and Docker NAT on this machine, reached
    at its bridge address; NAT through DNAT in PREROUTING (the rules for that address count
    the client's connections)."""
    require("docker")
    overrides = {"name": "paper-two-hosts-ci", "trials": 1,
                 "hosts": {"local": {"bench_address": f"{NET}.1"},
                           "fleet-01": {"address": f"{NET}.11",
                                        "key_file": str(fleet / "ssh" / "id_ed25519"),
                                        "known_hosts": str(fleet / "ssh" / "known_hosts")}}}
    campaign = inventory.load(ROOT / "data" / "campaigns" / "paper-two-hosts.yml", overrides)
    assert sorted(campaign.benchmarks) == ["netperf", "nuttcp", "redis"]
    # the NAT container's rules go with it at the campaign's end: their counters are read
    # while it runs, the highest count kept
    seen = [0]
    done = threading.Event()

    def watch():
        while not done.wait(0.3):
            seen[0] = max(seen[0], _dnat_packets(f"{NET}.1"))

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        result = run_campaign(campaign, raw_root=tmp_path / "raw", progress=False)
    finally:
        done.set()
        watcher.join(5)
    assert (result.done, result.failed) == (21, 0), result.failures
    trials = [json.loads(f.read_text()) for f in (tmp_path / "raw").rglob("trial.json")]
    assert len(trials) == 21
    assert {t["client"] for t in trials} == {"fleet-01"}
    assert {t["target"] for t in trials} == {f"{NET}.1"}
    assert all(t["placement"]["shares_host"] is False for t in trials)
    # the NAT environment's servers were reached through the DNAT rules of the bridge address
    # (7 trials, each at least one connection besides the readiness checks)
    print(f"DNAT packets for {NET}.1 while the campaign ran: {seen[0]}")
    assert seen[0] >= 7


def test_fleet_down_leaves_nothing_it_started(fleet):
    assert _left(fleet), "the fleet should be up before this test"
    down = _script(fleet, "fleet-down.sh")
    assert f"stopped {N} hosts" in down.stdout
    assert _left(fleet) == []
    # keys stay, so that the next fleet-up has the same host keys
    assert (fleet / "ssh" / "known_hosts").exists() and (fleet / "hosts" / "01" / "ssh_host_ed25519_key").exists()
