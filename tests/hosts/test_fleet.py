"""Fleet hosts in network namespaces (scripts/fleet-up.sh, fleet-link.sh, fleet-down.sh).

Four hosts with the tests' own names (prefix ``ovt``, 10.231.1.0/24) and state folder, so a
user's fleet (``ovf``, 10.231.0.0/24) is left alone. The module's tests run in order on one
worker; the last one stops the fleet and checks that nothing it started is left.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import time
from datetime import datetime
from pathlib import Path

import pytest
from conftest import SHARED_MACHINE, require
from fleet_helper import Fleet, fleet_up

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


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    """A fleet of N hosts, up; stopped at the end whatever happened."""
    require("ip", "unshare", "sshd", "ssh-keygen", "iptables", "tc", root=True)
    f = fleet_up(tmp_path_factory.mktemp("fleet"), PREFIX, NET, N)
    yield f
    f.script("fleet-down.sh", check=False)


def _remote(fleet: Fleet, i: int, timeout: float = 10.0) -> Remote:
    state = fleet.state
    return Remote(connect(fleet.address(i), 22, "root", known_hosts=state / "ssh" / "known_hosts",
                          key_file=state / "ssh" / "id_ed25519", timeout=timeout, keepalive=2),
                  keepalive=2, responsive=timeout)


def test_each_host_has_its_own_address_key_and_var_tmp_and_reaches_only_the_bridge(fleet):
    inv = (fleet.state / "inventory.yml").read_text()
    assert [f"fleet-{i:02d}" for i in range(1, N + 1)] == re.findall(r"^  (fleet-\d\d):", inv, re.M)
    keys = (fleet.state / "ssh" / "known_hosts").read_text().splitlines()
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
    pids = [(fleet.state / "hosts" / f"{i:02d}" / "sshd.pid").read_text() for i in range(1, N + 1)]
    warm = fleet.script("fleet-up.sh", str(N))
    assert f"(0 sshd started, {N} left running)" in warm.stdout
    assert pids == [(fleet.state / "hosts" / f"{i:02d}" / "sshd.pid").read_text() for i in range(1, N + 1)]


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
        f"runners: {runners}\ninventory: {fleet.state / 'inventory.yml'}\n"
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
    fleet.script("fleet-link.sh", "2", "cut")
    t = time.monotonic()
    with pytest.raises(Exception) as cut:
        _remote(fleet, 2, timeout=2).close()
    assert time.monotonic() - t < 10, "a cut link must fail the connect within its timeout"
    assert "timed out" in str(cut.value).lower() or "timeout" in type(cut.value).__name__.lower() \
        or "lost" in str(cut.value).lower(), repr(cut.value)
    fleet.script("fleet-link.sh", "2", "restore")
    _remote(fleet, 2).close()
    fleet.script("fleet-link.sh", "3", "rate", "2mbit")
    qdisc = subprocess.run(["tc", "qdisc", "show", "dev", f"{PREFIX}-03h"], capture_output=True, text=True).stdout
    assert "tbf" in qdisc and "rate 2Mbit" in qdisc
    fleet.script("fleet-link.sh", "3", "loss", "5")
    has_netem = "netem" in subprocess.run(["tc", "qdisc", "show", "dev", f"{PREFIX}-03h"],
                                          capture_output=True, text=True).stdout
    rules = subprocess.run(["iptables", "-S", f"{PREFIX}-loss"], capture_output=True, text=True).stdout
    assert has_netem or rules.count(f"{NET}.13/32") == 2
    delay = fleet.script("fleet-link.sh", "3", "delay", "20ms", check=False)
    assert delay.returncode == 0 or "no tc netem" in delay.stderr
    fleet.script("fleet-link.sh", "3", "clear")
    assert "tbf" not in subprocess.run(["tc", "qdisc", "show", "dev", f"{PREFIX}-03h"],
                                       capture_output=True, text=True).stdout
    assert f"{NET}.13/32" not in subprocess.run(["iptables", "-S"], capture_output=True, text=True).stdout
    _remote(fleet, 3).close()


def test_fleet_down_leaves_nothing_it_started(fleet):
    assert fleet.left(), "the fleet should be up before this test"
    down = fleet.script("fleet-down.sh")
    assert f"stopped {N} hosts" in down.stdout
    assert fleet.left() == []
    # keys stay, so that the next fleet-up has the same host keys
    assert (fleet.state / "ssh" / "known_hosts").exists()
    assert (fleet.state / "hosts" / "01" / "ssh_host_ed25519_key").exists()
