"""A private OpenSSH server on 127.0.0.1 for tests: its own host key, client key, known_hosts.

Started by the tests that need an SSH host they may break (stop, re-key) without touching the
shared local host of `make hosts-up`; stopped by its PID.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

SSHD = "/usr/sbin/sshd"
SFTP = "/usr/lib/openssh/sftp-server"


def require_sshd() -> None:
    """Skip without OpenSSH's server on a user's machine; fail in CI (a broken install step)."""
    if Path(SSHD).exists() and Path(SFTP).exists() and shutil.which("ssh-keygen"):
        return
    msg = "OpenSSH server not installed (apt-get install openssh-server; make debian does)"
    if os.environ.get("CI") == "true":
        pytest.fail(msg)
    pytest.skip(msg)


def keygen(path: Path) -> str:
    """Make an ed25519 key pair at ``path``; return the public key line's type and key."""
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(path)], check=True)
    return " ".join(path.with_suffix(".pub").read_text().split()[:2])


@dataclass
class Sshd:
    """A running private sshd."""

    folder: Path
    port: int
    client_key: Path
    known_hosts: Path
    host_key: str

    @property
    def pidfile(self) -> Path:
        return self.folder / "sshd.pid"

    def host_yaml(self, **extra) -> str:
        """The campaign ``hosts`` entry for this server (flow style); ``extra`` fields added."""
        more = "".join(f", {k}: {v}" for k, v in extra.items())
        return (f"{{address: 127.0.0.1, port: {self.port}, user: root, key_file: {self.client_key}, "
                f"known_hosts: {self.known_hosts}, connect_timeout: 5, keepalive: 2{more}}}")

    def start(self) -> None:
        """Start (or restart) the server and wait until it accepts connections."""
        Path("/run/sshd").mkdir(exist_ok=True)
        subprocess.run([SSHD, "-f", str(self.folder / "sshd_config"), "-E",
                        str(self.folder / "sshd.log")], check=True)
        deadline = time.monotonic() + 10
        import socket

        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.05)
        raise RuntimeError(f"sshd on port {self.port} did not start")

    def stop(self, *, sessions: bool = True) -> None:
        """Stop the listener by its PID and, with ``sessions``, every session it forked."""
        if self.pidfile.exists():
            pid = int(self.pidfile.read_text())
            if sessions:  # the session processes are the listener's children
                subprocess.run(["pkill", "-KILL", "-P", str(pid)], check=False)
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            for _ in range(100):
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    break
                time.sleep(0.05)
            self.pidfile.unlink(missing_ok=True)


def make_sshd(folder: Path, port: int) -> Sshd:
    """Write keys and a config for a root-by-key-only sshd on 127.0.0.1:``port`` and start it."""
    folder.mkdir(parents=True, exist_ok=True)
    host_key = keygen(folder / "host_ed25519")
    keygen(folder / "client")
    (folder / "authorized_keys").write_text((folder / "client.pub").read_text())
    (folder / "sshd_config").write_text(f"""\
Port {port}
ListenAddress 127.0.0.1
HostKey {folder / 'host_ed25519'}
PidFile {folder / 'sshd.pid'}
AuthorizedKeysFile {folder / 'authorized_keys'}
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
AllowTcpForwarding yes
Subsystem sftp {SFTP}
""")
    known = folder / "known_hosts"
    known.write_text(f"[127.0.0.1]:{port} {host_key}\n")
    sshd = Sshd(folder, port, folder / "client", known, host_key)
    sshd.start()
    return sshd


def runners_dir(tmp_path: Path, **scripts: str) -> Path:
    """A campaign's own runners folder: ``name=body`` becomes ``name.sh`` (POSIX sh)."""
    folder = tmp_path / "runners"
    folder.mkdir(exist_ok=True)
    for name, body in scripts.items():
        (folder / f"{name}.sh").write_text(textwrap.dedent(body))
    return folder


#: A runner that sleeps ``secs`` seconds, then writes ``size`` KiB of output and its meta.
SLEEPY = """\
    out=$1; shift
    secs=0; size=1
    for w in "$@"; do case $w in secs=*) secs=${w#secs=};; size=*) size=${w#size=};; esac; done
    sleep "$secs"
    mkdir -p "$out"
    head -c "$((size * 1024))" /dev/zero > "$out/output"
    echo "tool=sleepy" > "$out/meta"
"""
