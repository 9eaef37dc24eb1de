"""The local hosts of `make hosts-up` for tests: brought up at most once per test process (the
conftest `hosts` fixture, session-scoped) and stopped at the session's end only if this process
started them (a user's running hosts are left alone).

Every module that uses them asks `up()` again: hosts-up is idempotent and takes about a second
when everything runs, and a test that stops the hosts (test_hosts' hosts-down test) thus cannot
leave a later module without them. `up()` checks that sshd and the Docker engine answer before
it returns, and fails with their logs when they do not.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from overhead.paths import ROOT

HOSTS = ROOT / "data" / "hosts"
NEEDED = ("sshd:/usr/sbin/sshd", "dockerd:dockerd", "debootstrap:debootstrap",
          "qemu-system-x86_64:qemu-system-x86_64", "mke2fs:mke2fs")
# whether this process started the hosts (decided at its first up(); None before)
_started: bool | None = None


def _running(pidfile: Path) -> bool:
    """Whether the process a pidfile names runs (a zombie does not count)."""
    try:
        status = Path(f"/proc/{int(pidfile.read_text())}/status").read_text()
    except (FileNotFoundError, ValueError):
        return False
    return "\nState:\tZ" not in status


def _docker_answers(timeout: float = 20) -> bool:
    try:
        return subprocess.run(["docker", "info", "--format", "{{.ServerVersion}}"],
                              capture_output=True, timeout=timeout).returncode == 0
    except subprocess.TimeoutExpired:
        return False


def _tail(path: Path, lines: int = 15) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except FileNotFoundError:
        return f"({path} does not exist)"


def up() -> Path:
    """Run scripts/hosts-up.sh and check that sshd and dockerd answer; return the hosts folder.

    Skips where the tools or root are missing on a user's machine; fails under CI=true.
    """
    global _started
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
    if _started is None:
        _started = not _running(HOSTS / "sshd" / "sshd.pid")
    proc = subprocess.run(["sh", str(ROOT / "scripts" / "hosts-up.sh")], capture_output=True,
                          text=True, timeout=1800)
    if proc.returncode != 0:
        pytest.fail(f"hosts-up failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    deadline = time.monotonic() + 60
    while not (_running(HOSTS / "sshd" / "sshd.pid") and _docker_answers()):
        if time.monotonic() > deadline:
            pytest.fail(f"hosts-up succeeded but sshd or dockerd does not answer:\n{proc.stdout}\n"
                        f"sshd.log:\n{_tail(HOSTS / 'sshd' / 'sshd.log')}\n"
                        f"dockerd.log:\n{_tail(HOSTS / 'dockerd' / 'dockerd.log')}")
        time.sleep(1)
    return HOSTS


def down_if_started() -> None:
    """At the session's end: run scripts/hosts-down.sh if this process started the hosts."""
    if _started:
        subprocess.run(["sh", str(ROOT / "scripts" / "hosts-down.sh")], capture_output=True,
                       text=True, timeout=300)
