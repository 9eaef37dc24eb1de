"""One long-lived ``/bin/sh`` per SSH connection, so a trial costs no session set-up.

Every SSH ``exec`` request makes sshd start the user's login shell, which on a real host reads
its rc files (on this project's CI machine, root's ~/.bashrc runs ``pyenv init``: 150 ms per
command). The executor runs several commands per trial, so it starts ``/bin/sh`` once per
connection and writes each command to its stdin, followed by a line that prints a random marker
and the exit status; stdout and stderr are read until their markers. Each command runs in a
subshell with stdin from /dev/null, so ``cd`` or ``exit`` in one command cannot affect the next.
"""

from __future__ import annotations

import secrets
import select
import time

from overhead.errors import OverheadError

__all__ = ["RemoteShell", "ShellBroken", "ShellTimeout"]


class ShellBroken(OverheadError):
    """The shell's channel closed (the host or its sshd went away)."""


class ShellTimeout(OverheadError):
    """A command did not finish within the local watchdog's time."""


class RemoteShell:
    """A persistent ``/bin/sh`` on an SSH transport.

    Parameters
    ----------
    transport : paramiko.Transport
        An open, authenticated transport (``fabric.Connection.transport``).
    """

    def __init__(self, transport):
        """Open a session channel and start /bin/sh in it."""
        self.chan = transport.open_session()
        self.chan.exec_command("exec /bin/sh")
        self._out = b""
        self._err = b""

    @property
    def alive(self) -> bool:
        """Whether the shell's channel is open."""
        return not (self.chan.closed or self.chan.exit_status_ready())

    def run(self, command: str, timeout: float | None = None) -> tuple[int, str, str]:
        """Run ``command`` in a subshell; return (exit status, stdout, stderr).

        Parameters
        ----------
        command : str
            A POSIX sh command line.
        timeout : float, optional
            Seconds to wait for it (the local watchdog); None waits without limit.

        Returns
        -------
        (int, str, str)
            The exit status and the decoded output streams.

        Raises
        ------
        ShellTimeout
            When ``timeout`` passed (the shell is closed: its state is unknown).
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
        except OSError as exc:
            raise ShellBroken(str(exc)) from None
        deadline = None if timeout is None else time.monotonic() + timeout
        bmark = mark.encode()
        status = None
        out_done = err_done = False
        while not (out_done and err_done):
            if deadline is not None and time.monotonic() > deadline:
                self.close()
                raise ShellTimeout(f"no answer within {timeout:.0f} s")
            got = False
            while self.chan.recv_ready():
                self._out += self.chan.recv(65536)
                got = True
            while self.chan.recv_stderr_ready():
                self._err += self.chan.recv_stderr(65536)
                got = True
            if not out_done:
                at = self._out.find(b"\n" + bmark + b" ")
                if at >= 0:
                    end = self._out.find(b"\n", at + 1 + len(bmark) + 1)
                    if end >= 0:
                        status = int(self._out[at + len(bmark) + 2:end])
                        stdout, self._out = self._out[:at], self._out[end + 1:]
                        out_done = True
            if not err_done:
                at = self._err.find(b"\n" + bmark + b"\n")
                if at >= 0:
                    stderr, self._err = self._err[:at], self._err[at + len(bmark) + 2:]
                    err_done = True
            if out_done and err_done:
                break
            if not got:
                if self.chan.closed or self.chan.eof_received:
                    raise ShellBroken("the remote shell's channel closed")
                wait = 0.05 if deadline is None else max(0.0, min(0.05, deadline - time.monotonic()))
                select.select([self.chan], [], [], wait)
        return status, stdout.decode(errors="replace"), stderr.decode(errors="replace")

    def close(self) -> None:
        """Close the channel (the remote shell exits)."""
        try:
            self.chan.close()
        except Exception:  # noqa: BLE001 - closing a broken channel may raise anything
            pass
