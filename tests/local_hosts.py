"""The local hosts of `make hosts-up` for tests: brought up when a module first needs them (the
conftest `hosts` fixture) and stopped at the end of the run only if the tests started them (a
user's running hosts are left alone). With pytest-xdist the workers only mark that they started
them (:data:`STARTED_MARK`); the controller stops them once every worker is done, so a worker
that finishes early cannot stop the hosts under the other one's tests.

Tests of tests/hosts/ hold a shared lock on :data:`LOCK` while they run, and a test that stops
the hosts (test_hosts' hosts-down test) an exclusive one: the tests of the other worker wait for
it to bring them back up.

Every module that uses them asks `up()` again: hosts-up is idempotent and takes about a second
when everything runs, and a test that stops the hosts (test_hosts' hosts-down test) thus cannot
leave a later module without them. `up()` checks that sshd and the Docker engine answer before
it returns, and fails with their logs when they do not.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from overhead.paths import ROOT

HOSTS = ROOT / "data" / "hosts"
#: Written by the first up() that found the hosts down: the tests started them.
STARTED_MARK = HOSTS / ".started-by-tests"
#: Held shared by every test of tests/hosts/ while it runs, exclusive by one that stops the hosts.
LOCK = HOSTS / ".tests-lock"
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
        if _started:
            HOSTS.mkdir(parents=True, exist_ok=True)
            STARTED_MARK.touch()
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
    """At the end of the run (the controller's, or the only process's): run
    scripts/hosts-down.sh if a test process started the hosts."""
    if STARTED_MARK.exists():
        STARTED_MARK.unlink()
        subprocess.run(["sh", str(ROOT / "scripts" / "hosts-down.sh")], capture_output=True,
                       text=True, timeout=300)


@contextlib.contextmanager
def in_use(exclusive: bool = False):
    """Hold :data:`LOCK` while a test uses the hosts (shared), or stops them (exclusive)."""
    HOSTS.mkdir(parents=True, exist_ok=True)
    with open(LOCK, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)
