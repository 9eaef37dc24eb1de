"""The paper's two-machine topology (data/campaigns/paper-two-hosts.yml) on a namespace host.

The load generators run on fleet host 01 (a fleet of this module's own: prefix ``ovw``,
10.231.4.0/24); the servers in native, Docker net=host and Docker NAT on this machine, whose
`make hosts-up` hosts it uses: in the ``hosts`` group, so that no other campaign on those
hosts (their environments' loopback addresses and ports) runs beside it.
"""

from __future__ import annotations

import json
import subprocess
import threading

import pytest
from conftest import SHARED_ISOLATION, require
from fleet_helper import module_fleet

from overhead.campaign import inventory
from overhead.campaign.execute import run_campaign
from overhead.paths import ROOT

pytestmark = pytest.mark.xdist_group("hosts")

PREFIX, NET = "ovw", "10.231.4"


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    """One namespace host, the client; stopped at the end, nothing left."""
    yield from module_fleet(tmp_path_factory, "fleet-topology", PREFIX, NET, 1)


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
    overrides = {"name": "paper-two-hosts-ci", "trials": 1, "isolation": SHARED_ISOLATION,
                 "hosts": {"local": {"bench_address": fleet.address(0)},
                           "fleet-01": {"address": fleet.address(1),
                                        "key_file": str(fleet.state / "ssh" / "id_ed25519"),
                                        "known_hosts": str(fleet.state / "ssh" / "known_hosts")}}}
    campaign = inventory.load(ROOT / "data" / "campaigns" / "paper-two-hosts.yml", overrides)
    assert sorted(campaign.benchmarks) == ["mysql", "netperf", "nuttcp", "redis"]
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
    assert (result.done, result.failed) == (30, 0), result.failures
    trials = [json.loads(f.read_text()) for f in (tmp_path / "raw").rglob("trial.json")]
    assert len(trials) == 30
    assert {t["client"] for t in trials} == {"fleet-01"}
    assert {t["target"] for t in trials} == {f"{NET}.1"}
    assert all(t["placement"]["shares_host"] is False for t in trials)
    # each NAT trial's own count: its connections came in at the bridge address, none at the
    # container's loopback address (a client on this machine would have used that one)
    nat = [t["nat_connections"] for t in trials if t["environment"] == "docker-nat"]
    assert len(nat) == 10 and all(n[f"{NET}.1"] >= 1 for n in nat), nat
    assert all(v == 0 for n in nat for a, v in n.items() if a.startswith("127.")), nat
    assert not any("nat_connections" in t for t in trials if t["environment"] != "docker-nat")
    # the NAT environment's servers were reached through the DNAT rules of the bridge address
    # (10 trials, each at least one connection besides the readiness checks)
    print(f"DNAT packets for {NET}.1 while the campaign ran: {seen[0]}")
    assert seen[0] >= 10
