"""An endpoint reached by SSH: one verified connection and the persistent shell on it.

A :class:`Remote` runs commands in one long-lived ``/bin/sh``
(:class:`~overhead.environments.shell.RemoteShell`, started on first use and again when it
closed), copies files to it and fetches trial directories from it by SFTP. It holds one
connection: when that breaks, its commands fail with ``lost host``, and whoever hands it out
(the campaign's worker for a host) makes a new one.

Every wait on the endpoint is bounded by its :class:`Liveness`: a host whose SSH server leaves
a request unanswered for ``responsive`` seconds (the host's ``connect_timeout`` plus its
``keepalive``) is declared not responding, its connection is closed, and the command fails
with ``host not responding``; commands that are merely long are told apart by asking the
server for a reply (an SSH global request, which sshd answers even while the command runs)
after every ``keepalive`` seconds of silence. A hung host is thus found within
``connect_timeout + 2 * keepalive`` seconds of going silent (20 s with the defaults).
"""

from __future__ import annotations

import hashlib
import os
import stat
import threading
import time
from collections.abc import Mapping
from pathlib import Path

import paramiko

from overhead.environments.failures import HostNotResponding, Interrupted, TrialFailed, tail
from overhead.environments.shell import (
    OutputTooLarge,
    RemoteShell,
    ShellBroken,
    ShellHung,
    ShellInterrupted,
    ShellTimeout,
)
from overhead.errors import OverheadError

__all__ = ["REMOTE_BASE", "HostNotResponding", "Interrupted", "Liveness", "Remote",
           "runner_files"]


#: Folder on every endpoint for runners and trial directories.
REMOTE_BASE = "/var/tmp/overhead"


def runner_files(runners_dir: Path) -> dict[str, str]:
    """Return name -> SHA-256 of the runner scripts (``*.sh``) of a folder."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(runners_dir.glob("*.sh"))}


class Liveness:
    """Whether an endpoint's SSH server still answers: probes, and bounds on blocking calls.

    Parameters
    ----------
    transport : paramiko.Transport
        The connection's transport.
    keepalive : float
        Seconds of silence after which the server is asked for a reply.
    responsive : float
        Seconds a request may stay unanswered before the server is declared not responding.
    """

    def __init__(self, transport, keepalive: float, responsive: float):
        """Bind the transport; no probe is in flight."""
        self.transport = transport
        self.keepalive = keepalive
        self.responsive = responsive
        self._lock = threading.Lock()
        self._asked: float | None = None   # when the probe in flight was sent
        self._answered: float | None = None
        self._thread: threading.Thread | None = None
        # paramiko's own channel opens (SFTP, a gateway's direct-tcpip) wait this long
        transport.channel_timeout = responsive

    def _ask(self) -> None:
        """Send a global request that wants a reply and wait for it (in a thread of its own).

        OpenSSH answers an unknown request with a failure message, which is an answer; the
        wait ends early when the transport is closed.
        """
        self.transport.global_request("keepalive@openssh.com", wait=True)
        if self.transport.is_active():
            with self._lock:
                self._answered = time.monotonic()

    def check(self, heard: float) -> float:
        """Probe when the server has been silent since ``heard`` for ``keepalive`` seconds.

        Returns the latest moment the server was heard from (an answered probe counts).

        Raises
        ------
        ShellHung
            When a probe has gone unanswered for ``responsive`` seconds (the transport is
            closed: everything waiting on it ends).
        """
        now = time.monotonic()
        with self._lock:
            if self._answered is not None:
                heard = max(heard, self._answered)
            thread, asked = self._thread, self._asked
        if thread is not None and not thread.is_alive():
            with self._lock:
                self._thread = self._asked = None
            thread = None
        if thread is not None and asked is not None and now - asked > self.responsive:
            self.transport.close()
            raise ShellHung(f"no answer to an SSH request for {self.responsive:.0f} s")
        if thread is None and now - heard > self.keepalive:
            with self._lock:
                self._asked = now
                self._thread = threading.Thread(target=self._ask, daemon=True,
                                                name="overhead-liveness")
                self._thread.start()
        return heard

    def guarded(self, call, what: str):
        """Return ``call()``, closing the transport if it takes longer than ``responsive``.

        Raises
        ------
        ShellHung
            When the bound passed (the call's own error is replaced by this one).
        """
        fired = threading.Event()

        def expire():
            fired.set()
            self.transport.close()

        timer = threading.Timer(self.responsive, expire)
        timer.daemon = True
        timer.start()
        try:
            return call()
        except Exception:
            if fired.is_set():
                raise ShellHung(f"no answer to {what} within {self.responsive:.0f} s") from None
            raise
        finally:
            timer.cancel()


class Remote:
    """One SSH connection to an endpoint and the shell that runs its commands.

    Parameters
    ----------
    connection : fabric.Connection
        An open connection (:func:`overhead.environments.connect.connect`).
    keepalive, responsive : float, optional
        The liveness bounds (:class:`Liveness`); ``responsive`` None: no probing (waits end
        only with the commands' own timeouts).
    interrupt : threading.Event, optional
        Set when the run must stop now: a command in progress ends with :class:`Interrupted`.
    """

    def __init__(self, connection, *, keepalive: float = 5.0, responsive: float | None = None,
                 interrupt: threading.Event | None = None):
        """Hold the connection; the shell starts with the first command."""
        self.connection = connection
        self._shell: RemoteShell | None = None
        self.interrupt = interrupt
        self.liveness = (None if responsive is None
                         else Liveness(connection.transport, keepalive, responsive))

    @property
    def where(self) -> str:
        """The endpoint as ``address:port`` (for messages)."""
        return f"{self.connection.host}:{self.connection.port}"

    def alive(self) -> bool:
        """Whether the connection's transport is still up."""
        t = getattr(self.connection, "transport", None)
        return bool(t is not None and t.is_active())

    def exec(self, command: str, timeout: float | None, *,
             interruptible: bool = True) -> tuple[int, str, str]:
        """Run a command in the persistent shell; return (exit status, stdout, stderr).

        ``interruptible`` False: the run's stop-now does not end this command (clean-up).

        Raises
        ------
        TrialFailed
            ``watchdog`` when the command outlived ``timeout`` locally; ``host not
            responding`` (:class:`HostNotResponding`) when the server stopped answering;
            ``lost host`` when the connection broke; a cause naming the cap when the command
            wrote too much.
        Interrupted
            When the run was told to stop now while the command ran.
        """
        try:
            if self._shell is None or not self._shell.alive:
                if not self.alive():
                    raise ShellBroken("the SSH connection is closed")
                self._shell = RemoteShell(self.connection.transport, self.liveness,
                                          self.interrupt)
            return self._shell.run(command, timeout, interruptible=interruptible)
        except ShellTimeout:
            raise TrialFailed(f"watchdog: no answer from {self.where} within {timeout:.0f} s") from None
        except ShellHung as exc:
            self._hung()
            raise HostNotResponding(f"host not responding: {self.where} ({exc})") from None
        except ShellInterrupted:
            raise Interrupted(f"stopped now while a command ran on {self.where}") from None
        except OutputTooLarge as exc:
            raise TrialFailed(f"{exc} (the cap; runners write results to files)") from None
        except ShellBroken as exc:
            raise TrialFailed(f"lost host {self.where} ({exc})") from None
        except (OSError, EOFError, paramiko.SSHException) as exc:
            raise TrialFailed(f"lost host {self.where} ({type(exc).__name__}: {exc})") from None

    def _hung(self) -> None:
        """Close a connection whose server stopped answering (the next user reconnects)."""
        try:
            self.connection.close()
        except Exception:  # noqa: BLE001 - closing a hung connection may raise anything
            pass

    def sftp(self):
        """Return the connection's SFTP client, opened within the bound, reads bounded."""
        if self.liveness is None:
            return self.connection.sftp()
        client = self.liveness.guarded(self.connection.sftp, "opening SFTP")
        client.get_channel().settimeout(self.liveness.responsive)
        return client

    def _sftp_call(self, call, what: str):
        """Run an SFTP operation; a server that stopped answering is ``host not responding``."""
        try:
            return call()
        except (TimeoutError, ShellHung) as exc:
            self._hung()
            raise HostNotResponding(f"host not responding: {self.where} ({what}: "
                                    f"{exc or 'no answer'})") from None
        except (EOFError, paramiko.SSHException) as exc:
            raise TrialFailed(f"lost host {self.where} ({what}: {type(exc).__name__}: "
                              f"{exc})") from None

    def put_files(self, folder: str, files: Mapping[str, Path]) -> None:
        """Copy campaign files (secrets) into ``folder`` here: folder 0700, files 0600."""
        status, out, err = self.exec(f"mkdir -p {folder} && chmod 700 {folder}", 60)
        if status != 0:
            raise TrialFailed(f"cannot create {folder} ({tail(out + err, 200)})")
        sftp = self._sftp_call(self.sftp, "opening SFTP")
        for name, local in files.items():
            try:
                data = Path(local).read_bytes()
            except OSError as exc:
                raise OverheadError(f"campaign file {name}: {local}: cannot read "
                                    f"({exc.strerror or exc})") from None
            remote = f"{folder}/{name}"

            def put(remote=remote, data=data):
                with sftp.open(remote, "w") as fh:
                    fh.chmod(0o600)
                    fh.write(data)

            self._sftp_call(put, f"writing {remote}")

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
        sftp = self._sftp_call(self.sftp, "opening SFTP")

        def put():
            for name in files:
                sftp.put(str(runners_dir / name), f"{tmp}/{name}")
            with sftp.open(f"{tmp}/SHA256SUMS", "w") as fh:
                fh.write(sums)

        self._sftp_call(put, f"copying runners to {tmp}")
        status, out, err = self.exec(f"cd {tmp} && sha256sum -c --quiet SHA256SUMS && cd / && "
                                     f"rm -rf {remote} && mv {tmp} {remote}", 60)
        if status != 0:
            raise OverheadError(f"{self.where}: runners copied to {tmp} do not match "
                                f"their hashes: {out}{err}")
        return remote

    def fetch(self, remote_dir: str, local: Path) -> None:
        """Copy the regular files of a remote trial directory into ``local`` (created) by SFTP."""
        local.mkdir(parents=True)
        sftp = self._sftp_call(self.sftp, "opening SFTP")

        def get():
            for attr in sftp.listdir_attr(remote_dir):
                if stat.S_ISREG(attr.st_mode or 0):
                    sftp.get(f"{remote_dir}/{attr.filename}", str(local / attr.filename))

        self._sftp_call(get, f"fetching {remote_dir}")

    def close(self) -> None:
        """Close the connection (its shell with it)."""
        self.connection.close()
