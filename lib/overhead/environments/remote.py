"""An endpoint reached by SSH: one verified connection and the persistent shell on it.

A :class:`Remote` runs commands in one long-lived ``/bin/sh``
(:class:`~overhead.environments.shell.RemoteShell`, started on first use and again when it
closed), copies files to it and fetches trial directories from it by SFTP. It holds one
connection: when that breaks, its commands fail with ``lost host``, and whoever hands it out
(the campaign's worker for a host) makes a new one.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Mapping
from pathlib import Path

import paramiko

from overhead.environments.failures import TrialFailed, tail
from overhead.environments.shell import RemoteShell, ShellBroken, ShellTimeout
from overhead.errors import OverheadError

__all__ = ["REMOTE_BASE", "Remote", "runner_files"]

#: Folder on every endpoint for runners and trial directories.
REMOTE_BASE = "/var/tmp/overhead"


def runner_files(runners_dir: Path) -> dict[str, str]:
    """Return name -> SHA-256 of the runner scripts (``*.sh``) of a folder."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(runners_dir.glob("*.sh"))}


class Remote:
    """One SSH connection to an endpoint and the shell that runs its commands.

    Parameters
    ----------
    connection : fabric.Connection
        An open connection (:func:`overhead.environments.connect.connect`).
    """

    def __init__(self, connection):
        """Hold the connection; the shell starts with the first command."""
        self.connection = connection
        self._shell: RemoteShell | None = None

    @property
    def where(self) -> str:
        """The endpoint as ``address:port`` (for messages)."""
        return f"{self.connection.host}:{self.connection.port}"

    def alive(self) -> bool:
        """Whether the connection's transport is still up."""
        t = getattr(self.connection, "transport", None)
        return bool(t is not None and t.is_active())

    def exec(self, command: str, timeout: float | None) -> tuple[int, str, str]:
        """Run a command in the persistent shell; return (exit status, stdout, stderr).

        Raises
        ------
        TrialFailed
            ``watchdog`` when the command outlived ``timeout`` locally; ``lost host`` when the
            connection broke.
        """
        try:
            if self._shell is None or not self._shell.alive:
                if not self.alive():
                    raise ShellBroken("the SSH connection is closed")
                self._shell = RemoteShell(self.connection.transport)
            return self._shell.run(command, timeout)
        except ShellTimeout:
            raise TrialFailed(f"watchdog: no answer from {self.where} within {timeout:.0f} s") from None
        except ShellBroken as exc:
            raise TrialFailed(f"lost host {self.where} ({exc})") from None
        except (OSError, EOFError, paramiko.SSHException) as exc:
            raise TrialFailed(f"lost host {self.where} ({type(exc).__name__}: {exc})") from None

    def put_files(self, folder: str, files: Mapping[str, Path]) -> None:
        """Copy campaign files (secrets) into ``folder`` here: folder 0700, files 0600."""
        status, out, err = self.exec(f"mkdir -p {folder} && chmod 700 {folder}", 60)
        if status != 0:
            raise TrialFailed(f"cannot create {folder} ({tail(out + err, 200)})")
        sftp = self.connection.sftp()
        for name, local in files.items():
            try:
                data = Path(local).read_bytes()
            except OSError as exc:
                raise OverheadError(f"campaign file {name}: {local}: cannot read "
                                    f"({exc.strerror or exc})") from None
            remote = f"{folder}/{name}"
            with sftp.open(remote, "w") as fh:
                fh.chmod(0o600)
                fh.write(data)

    def ensure_runners(self, runners_dir: Path, base: str = REMOTE_BASE) -> str:
        """Copy the runner scripts here once, checked by hash; return the remote folder.

        The folder is named by a hash of the scripts, and a ``SHA256SUMS`` file in it is
        checked with ``sha256sum -c``: an unchanged, intact copy is reused, anything else is
        replaced.
        """
        files = runner_files(runners_dir)
        if not files:
            raise OverheadError(f"{runners_dir}: no runner scripts (*.sh)")
        sums = "".join(f"{h}  {n}\n" for n, h in files.items())
        digest = hashlib.sha256(sums.encode()).hexdigest()[:16]
        remote = f"{base}/runners-{digest}"
        status, _, _ = self.exec(f"cd {remote} 2>/dev/null && sha256sum -c --quiet SHA256SUMS "
                                 ">/dev/null 2>&1", 60)
        if status == 0:
            return remote
        tmp = f"{remote}.tmp.{os.getpid()}"
        self.exec(f"rm -rf {tmp} && mkdir -p {tmp}", 60)
        sftp = self.connection.sftp()
        for name in files:
            sftp.put(str(runners_dir / name), f"{tmp}/{name}")
        with sftp.open(f"{tmp}/SHA256SUMS", "w") as fh:
            fh.write(sums)
        status, out, err = self.exec(f"cd {tmp} && sha256sum -c --quiet SHA256SUMS && cd / && "
                                     f"rm -rf {remote} && mv {tmp} {remote}", 60)
        if status != 0:
            raise OverheadError(f"{self.where}: runners copied to {tmp} do not match "
                                f"their hashes: {out}{err}")
        return remote

    def fetch(self, remote_dir: str, local: Path) -> None:
        """Copy the regular files of a remote trial directory into ``local`` (created) by SFTP."""
        local.mkdir(parents=True)
        sftp = self.connection.sftp()
        for attr in sftp.listdir_attr(remote_dir):
            if stat.S_ISREG(attr.st_mode or 0):
                sftp.get(f"{remote_dir}/{attr.filename}", str(local / attr.filename))

    def close(self) -> None:
        """Close the connection (its shell with it)."""
        self.connection.close()
