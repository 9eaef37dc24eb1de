"""One long-lived ``/bin/sh`` per SSH connection, so a trial costs no session set-up.

Every SSH ``exec`` request makes sshd start the user's login shell, which on a real host reads
its rc files (on this project's CI machine, root's ~/.bashrc runs ``pyenv init``: 150 ms per
command). The executor runs several commands per trial, so it starts ``/bin/sh`` once per
connection and writes each command to its stdin, followed by a line that prints a random marker
and the exit status; stdout and stderr are read until their markers. Each command runs in a
subshell with stdin from /dev/null, so ``cd`` or ``exit`` in one command cannot affect the next.

Every wait is bounded. Opening the channel and starting the shell are bounded by the
endpoint's ``responsive`` time (:class:`~overhead.environments.remote.Liveness`); while a
command runs silently, the server is asked for a reply every ``keepalive`` seconds and a
server that leaves one unanswered for ``responsive`` seconds is declared not responding
(:class:`ShellHung`), whatever the command's own timeout. Reading is linear in the output
(the markers are looked for only in what just arrived) and capped: a command that writes
more than :data:`MAX_OUTPUT` bytes to either stream fails (:class:`OutputTooLarge`).
"""

from __future__ import annotations

import secrets
import select
import threading
import time

from overhead.errors import OverheadError

__all__ = ["MAX_OUTPUT", "OutputTooLarge", "RemoteShell", "ShellBroken", "ShellHung",
           "ShellInterrupted", "ShellTimeout"]

#: Bytes a command may write to stdout or to stderr (runners write their results to files;
#: what comes back on the streams is noise samples, short outputs and monitor logs).
MAX_OUTPUT = 64 * 1024 * 1024


class ShellBroken(OverheadError):
    """The shell's channel closed (the host or its sshd went away)."""


class ShellTimeout(OverheadError):
    """A command did not finish within the local watchdog's time."""


class ShellHung(OverheadError):
    """The SSH server stopped answering (a hung host): no reply within the bound."""


class ShellInterrupted(OverheadError):
    """The run was told to stop now (a second SIGINT or SIGTERM) while a command ran."""


class OutputTooLarge(OverheadError):
    """A command wrote more than the cap to one of its streams."""


class _Stream:
    """One stream's bytes, searched for a marker only where new bytes arrived (linear time)."""

    def __init__(self, name: str, cap: int):
        self.name = name
        self.cap = cap
        self.buf = bytearray()
        self.scanned = 0  # bytes before this offset cannot start the marker

    def add(self, data: bytes) -> None:
        """Append received bytes; past the cap, fail."""
        self.buf += data
        if len(self.buf) > self.cap:
            raise OutputTooLarge(f"the command wrote more than {self.cap // (1024 * 1024)} MiB "
                                 f"to its {self.name}")

    def find(self, pattern: bytes) -> int:
        """Return where ``pattern`` starts in the buffer, looking only at unscanned bytes."""
        at = self.buf.find(pattern, self.scanned)
        if at < 0:
            self.scanned = max(0, len(self.buf) - len(pattern) + 1)
        return at

    def take(self, upto: int, skip: int) -> bytes:
        """Return the bytes before ``upto``; keep what follows ``skip`` for the next command."""
        head = bytes(self.buf[:upto])
        del self.buf[:skip]
        self.scanned = 0
        return head


class RemoteShell:
    """A persistent ``/bin/sh`` on an SSH transport.

    Parameters
    ----------
    transport : paramiko.Transport
        An open, authenticated transport (``fabric.Connection.transport``).
    liveness : Liveness, optional
        Asks the server for replies while a command is silent and bounds the channel's set-up
        (:class:`~overhead.environments.remote.Liveness`); None: no probing, set-up waits up
        to paramiko's channel timeout.
    interrupt : threading.Event, optional
        When set while a command runs, the wait ends with :class:`ShellInterrupted`.
    cap : int
        Bytes allowed per stream and command (:data:`MAX_OUTPUT`).
    """

    def __init__(self, transport, liveness=None, interrupt: threading.Event | None = None,
                 cap: int = MAX_OUTPUT):
        """Open a session channel and start /bin/sh in it (bounded by ``liveness``)."""
        self.liveness = liveness
        self.interrupt = interrupt
        self.cap = cap
        if liveness is None:
            self.chan = transport.open_session()
            self.chan.exec_command("exec /bin/sh")
        else:
            self.chan = liveness.guarded(lambda: transport.open_session(
                timeout=liveness.responsive), "opening a session")
            liveness.guarded(lambda: self.chan.exec_command("exec /bin/sh"), "starting a shell")
            self.chan.settimeout(liveness.responsive)  # a send into a full window is bounded
        self._out = _Stream("stdout", cap)
        self._err = _Stream("stderr", cap)

    @property
    def alive(self) -> bool:
        """Whether the shell's channel is open."""
        return not (self.chan.closed or self.chan.exit_status_ready())

    def run(self, command: str, timeout: float | None = None, *,
            interruptible: bool = True) -> tuple[int, str, str]:
        """Run ``command`` in a subshell; return (exit status, stdout, stderr).

        Parameters
        ----------
        command : str
            A POSIX sh command line.
        timeout : float, optional
            Seconds to wait for it (the local watchdog); None waits without limit (a hung
            server is still found by the liveness probes).
        interruptible : bool
            Whether the shell's ``interrupt`` event ends the wait (False for clean-up commands
            that must run after a stop-now).

        Returns
        -------
        (int, str, str)
            The exit status and the decoded output streams.

        Raises
        ------
        ShellTimeout
            When ``timeout`` passed (the shell is closed: its state is unknown).
        ShellHung
            When the server left a request unanswered for the liveness bound (shell closed).
        ShellInterrupted
            When the interrupt event was set (shell closed; the command may still run).
        OutputTooLarge
            When a stream exceeded the cap (shell closed).
        ShellBroken
            When the channel closed before the command finished.
        """
        mark = "@@" + secrets.token_hex(8) + "@@"
        script = (f"( {command}\n) </dev/null; printf '\\n{mark} %s\\n' \"$?\"; "
                  f"printf '\\n{mark}\\n' >&2\n")
        if not self.alive:
            raise ShellBroken("the remote shell is closed")
        try:
            self.chan.sendall(script.encode())
        except OSError as exc:  # socket.timeout included: a full window for the bound
            self.close()
            raise ShellBroken(str(exc)) from None
        try:
            return self._wait(mark.encode(), timeout, interruptible)
        except (ShellTimeout, ShellHung, ShellInterrupted, OutputTooLarge):
            self.close()
            raise

    def _wait(self, bmark: bytes, timeout: float | None,
              interruptible: bool) -> tuple[int, str, str]:
        """Read both streams until their markers (see :meth:`run`)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        out_pat, err_pat = b"\n" + bmark + b" ", b"\n" + bmark + b"\n"
        status = stdout = stderr = None
        heard = time.monotonic()
        while stdout is None or stderr is None:
            now = time.monotonic()
            if deadline is not None and now > deadline:
                raise ShellTimeout(f"no answer within {timeout:.0f} s")
            if interruptible and self.interrupt is not None and self.interrupt.is_set():
                raise ShellInterrupted("stopped now")
            got = False
            while self.chan.recv_ready():
                self._out.add(self.chan.recv(1 << 20))
                got = True
            while self.chan.recv_stderr_ready():
                self._err.add(self.chan.recv_stderr(1 << 20))
                got = True
            if got:
                heard = time.monotonic()
            if stdout is None:
                at = self._out.find(out_pat)
                if at >= 0:
                    end = self._out.buf.find(b"\n", at + len(out_pat))
                    if end >= 0:
                        status = int(self._out.buf[at + len(out_pat):end])
                        stdout = self._out.take(at, end + 1)
            if stderr is None:
                at = self._err.find(err_pat)
                if at >= 0:
                    stderr = self._err.take(at, at + len(err_pat))
            if stdout is not None and stderr is not None:
                break
            if not got:
                if self.chan.closed or self.chan.eof_received:
                    raise ShellBroken("the remote shell's channel closed")
                if self.liveness is not None:
                    heard = self.liveness.check(heard)
                wait = 0.05 if deadline is None else max(0.0, min(0.05, deadline - time.monotonic()))
                select.select([self.chan], [], [], wait)
        return status, stdout.decode(errors="replace"), stderr.decode(errors="replace")

    def close(self) -> None:
        """Close the channel (the remote shell exits)."""
        try:
            self.chan.close()
        except Exception:  # noqa: BLE001 - closing a broken channel may raise anything
            pass
