"""The local hosts of `make hosts-up` for tests: brought up once per test process, and stopped
at the end only if this process started them (a user's running hosts are left alone)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from overhead.paths import ROOT

HOSTS = ROOT / "data" / "hosts"
NEEDED = ("sshd:/usr/sbin/sshd", "dockerd:dockerd", "debootstrap:debootstrap",
          "qemu-system-x86_64:qemu-system-x86_64", "mke2fs:mke2fs")


def _running(pidfile: Path) -> bool:
    if not pidfile.exists():
        return False
    try:
        os.kill(int(pidfile.read_text()), 0)
    except (ValueError, ProcessLookupError):
        return False
    return True


def up() -> tuple[Path, bool]:
    """Run scripts/hosts-up.sh; return the hosts folder and whether sshd was already running.

    Skips where the tools or root are missing on a user's machine; fails under CI=true.
    """
    missing = [n.split(":")[0] for n in NEEDED if not shutil.which(n.split(":")[1])]
    why = None
    if os.geteuid() != 0:
        why = "the local hosts need root (sshd, dockerd, debootstrap)"
    elif missing:
        why = f"not installed: {', '.join(missing)} (make debian installs them)"
    if why:
        if os.environ.get("CI") == "true":
            pytest.fail(why)
        pytest.skip(why)
    was_up = _running(HOSTS / "sshd" / "sshd.pid")
    proc = subprocess.run(["sh", str(ROOT / "scripts" / "hosts-up.sh")], capture_output=True,
                          text=True, timeout=1800)
    if proc.returncode != 0:
        pytest.fail(f"hosts-up failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return HOSTS, was_up


def down() -> None:
    """Run scripts/hosts-down.sh (stops by PID what hosts-up started)."""
    subprocess.run(["sh", str(ROOT / "scripts" / "hosts-down.sh")], capture_output=True,
                   text=True, timeout=300)
