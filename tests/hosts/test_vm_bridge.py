"""A VM on a bridge: the local guest's NIC a tap device on a fleet's bridge, at a static address.

No user-mode network and nothing forwarded: the campaign reaches the guest's sshd at its address
(through the host's SSH), a load generator on this machine and one on a fleet host reach its
servers there. A fleet of this module's own (prefix ``ovv``, 10.231.5.0/24, one host), in the
``hosts`` group (the local hosts' sshd and image; no campaign on them runs beside it).
"""

from __future__ import annotations

import json
import re
import subprocess
import threading
import time

import pytest
from conftest import SHARED_MACHINE, require
from fleet_helper import module_fleet

from overhead.campaign import inventory
from overhead.campaign.execute import run_campaign
from overhead.environments import qemu

pytestmark = pytest.mark.xdist_group("hosts")

PREFIX, NET = "ovv", "10.231.5"
GUEST = f"{NET}.200"


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    """One namespace host (a client) and the bridge; nothing left at the end."""
    yield from module_fleet(tmp_path_factory, "fleet-vm", PREFIX, NET, 1)


def _campaign(tmp_path, fleet, hosts) -> inventory.Campaign:
    h = hosts / "ssh"
    path = tmp_path / "vm-bridge-ci.yml"
    path.write_text(f"""\
name: vm-bridge-ci
{SHARED_MACHINE}seed: 7
trials: 1
warmup: 0
timeout: 300
hosts:
  local: {{address: 127.0.0.1, port: 2222, key_file: {h / 'id_ed25519'},
          known_hosts: {h / 'known_hosts'}}}
  fleet-01: {{address: {fleet.address(1)}, key_file: {fleet.state / 'ssh' / 'id_ed25519'},
             known_hosts: {fleet.state / 'ssh' / 'known_hosts'}}}
environments:
  vm-bridge: {{kind: vm, host: local, image: {hosts / 'image' / 'current'}, memory: 1024,
              accel: tcg, host_key_alias: overhead-local-vm, scratch: null,
              bridge: {PREFIX}-br, guest_address: {GUEST}/24}}
benchmarks:
  netperf:
    runner: netperf
    client: local
    server: "netserver -D -L {{listen}} -p {{port:12865}}"
    ready: "netperf -H {{host}} -p {{port:12865}} -t TCP_RR -l -10 -P 0 -- -P ,{{port:12866}}"
    ports: [12865, 12866]
    params: {{test: TCP_RR, length: 2, request: 100, response: 200, port: "{{port:12865}}",
             data_port: "{{port:12866}}"}}
  redis:
    runner: redis-benchmark
    client: fleet-01
    server: "redis-server --bind {{listen}} --port 6379 --save '' --appendonly no --protected-mode no"
    ready: "redis-cli -h {{host}} -p 6379 ping"
    ports: [6379]
    params: {{clients: 100, requests: 20000, tests: "set,get", pipeline: 10, data_size: 50,
             keyspace: 100000, flushall: "yes", port: 6379}}
""")
    return inventory.load(path)


def _guest_network(hosts, seen: dict, done: threading.Event) -> None:
    """Once the guest answers SSH at its address, record its interfaces, addresses and routes."""
    import paramiko

    while not done.wait(1):
        client = paramiko.SSHClient()
        known = paramiko.HostKeys(str(hosts / "ssh" / "known_hosts"))
        client.get_host_keys().add(GUEST, "ssh-ed25519",
                                   known.lookup("overhead-local-vm")["ssh-ed25519"])
        client.set_missing_host_key_policy(paramiko.RejectPolicy())
        try:
            client.connect(GUEST, 22, "root", key_filename=str(hosts / "ssh" / "id_ed25519"),
                           look_for_keys=False, allow_agent=False, timeout=5, banner_timeout=5)
            for name, cmd in (("links", "ls /sys/class/net"), ("addr", "ip -4 -o addr show"),
                              ("routes", "ip -4 route show")):
                _, out, _ = client.exec_command(cmd, timeout=30)
                seen[name] = out.read().decode()
            return
        except (OSError, paramiko.SSHException):
            continue
        finally:
            client.close()


def test_a_vm_on_the_bridge_is_reached_at_its_address_from_here_and_from_another_host(
        fleet, hosts, tmp_path):
    require("qemu-system-x86_64", "qemu-img")
    campaign = _campaign(tmp_path, fleet, hosts)
    seen: dict = {}
    done = threading.Event()
    watcher = threading.Thread(target=_guest_network, args=(hosts, seen, done), daemon=True)
    watcher.start()
    t0 = time.monotonic()
    try:
        result = run_campaign(campaign, raw_root=tmp_path / "raw", progress=False)
    finally:
        done.set()
        watcher.join(40)
    print(f"campaign: {time.monotonic() - t0:.0f} s")
    assert (result.done, result.failed) == (2, 0), result.failures
    trials = {t["benchmark"]: t for t in (json.loads(f.read_text())
                                          for f in (tmp_path / "raw").rglob("trial.json"))}
    # both load generators reached the guest at its own address: this machine's, and the fleet
    # host's across the bridge (no port forward: nothing of QEMU's in between)
    assert trials["netperf"]["target"] == GUEST and trials["netperf"]["client"] == "local"
    assert trials["redis"]["target"] == GUEST and trials["redis"]["client"] == "fleet-01"
    # its own variant: never pooled with a guest on the user-mode network
    assert {t["variant"] for t in trials.values()} == {"untuned,accel=tcg,net=tap"}
    facts = json.loads(next((tmp_path / "raw").rglob("facts/vm-bridge.json")).read_text())
    spec = qemu.VmSpec(name="overhead-vm-bridge-ci-vm-bridge", vcpus=2, memory_mb=1024,
                       bridge=f"{PREFIX}-br", guest_address=f"{GUEST}/24")
    tap = qemu.tap_name(spec)
    assert facts["vm_network"].startswith(f"tap {tap} on bridge {PREFIX}-br, virtio-net"), facts
    assert facts["vm_network"].endswith(f"guest {GUEST}/24") and facts["accelerator"] == "tcg"
    # the guest as the watcher saw it: one NIC, its address from the kernel command line, no
    # route beyond the bridge (no DHCP lease, no default route)
    assert seen, "the guest never answered SSH at its address"
    assert seen["links"].split() == ["eth0", "lo"]
    assert re.search(rf"^\d+: eth0\s+inet {GUEST}/24 ", seen["addr"], re.M), seen["addr"]
    assert seen["routes"].split("\n")[0].startswith(f"{NET}.0/24 dev eth0")
    assert "default" not in seen["routes"], seen["routes"]
    # redis' 100 connections from the fleet host: all answered (its summary line is there)
    out = next((tmp_path / "raw").rglob("redis/*/output")).read_text()
    assert "throughput summary:" in out
    # the tap went with the guest
    links = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True).stdout
    assert tap not in links
