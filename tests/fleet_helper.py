"""Fleets of namespace hosts for tests (scripts/fleet-up.sh, fleet-link.sh, fleet-down.sh).

Each test module makes a fleet with names of its own (a prefix and a /24), so modules running
at once on two workers, and a user's fleet (``ovf``, 10.231.0.0/24), never meet.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from overhead.paths import ROOT


@dataclass(frozen=True)
class Fleet:
    """A fleet's state folder and names."""

    state: Path
    prefix: str
    net: str

    def env(self) -> dict:
        """The environment the fleet scripts read their names from."""
        return {**os.environ, "OVERHEAD_FLEET": str(self.state), "OVERHEAD_FLEET_PREFIX": self.prefix,
                "OVERHEAD_FLEET_NET": self.net}

    def script(self, name: str, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        """Run scripts/<name> for this fleet; fail the test (with its output) if it fails."""
        done = subprocess.run(["sh", str(ROOT / "scripts" / name), *args], env=self.env(),
                              capture_output=True, text=True, timeout=120)
        if check and done.returncode:
            pytest.fail(f"{name} {' '.join(args)}: exit {done.returncode}\n{done.stdout}\n{done.stderr}")
        return done

    def address(self, i: int) -> str:
        """Host i's address (the bridge's own is host 0: this machine)."""
        return f"{self.net}.{10 + i}" if i else f"{self.net}.1"

    def left(self) -> list[str]:
        """What this fleet left on the machine: namespaces, links, sshds, rules, loop devices."""
        out = []
        netns = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
        out += [f"namespace {n}" for n in re.findall(rf"^({self.prefix}-\d\d)\b", netns, re.M)]
        links = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True).stdout
        out += [f"link {n}" for n in re.findall(rf"^\d+: ({self.prefix}-[\w-]+)[@:]", links, re.M)]
        # a VM guest's tap on the bridge (vm environments with `bridge:`)
        out += [f"link {n} on {self.prefix}-br" for n in re.findall(
            rf"^\d+: (ovtap\w+)[@:].* master {self.prefix}-br ", links, re.M)]
        for proc in Path("/proc").iterdir():
            try:
                cmd = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if str(self.state) in cmd and "sshd" in cmd:
                out.append(f"process {proc.name}: {cmd.strip()}")
        rules = subprocess.run(["iptables", "-S"], capture_output=True, text=True).stdout
        out += [f"iptables {r}" for r in rules.splitlines() if f"{self.prefix}-" in r]
        loops = subprocess.run(["losetup", "-a"], capture_output=True, text=True).stdout
        out += [f"loop {line}" for line in loops.splitlines() if str(self.state) in line]
        return out


def module_fleet(tmp_path_factory, name: str, prefix: str, net: str, n: int,
                 *tools: str):
    """A module's fleet fixture body: ``yield from module_fleet(...)``.

    Needs ``ip``, ``unshare``, ``sshd``, ``ssh-keygen``, ``iptables`` and ``tools`` (as root);
    brings n hosts up, yields the fleet, and stops it at the end, whatever happened, checking
    that nothing of it is left.
    """
    from conftest import require

    require("ip", "unshare", "sshd", "ssh-keygen", "iptables", *tools, root=True)
    fleet = fleet_up(tmp_path_factory.mktemp(name), prefix, net, n)
    yield fleet
    fleet.script("fleet-down.sh", check=False)
    assert fleet.left() == []


def fleet_up(state: Path, prefix: str, net: str, n: int) -> Fleet:
    """Bring up n hosts (after clearing an earlier run's leftovers under these names)."""
    fleet = Fleet(state, prefix, net)
    if fleet.left():
        fleet.script("fleet-down.sh")
    cold = fleet.script("fleet-up.sh", str(n))
    assert f"{n} hosts ready" in cold.stdout, cold.stdout
    return fleet
