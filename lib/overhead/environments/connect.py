"""SSH connections that verify host keys and fail in bounded time.

fabric accepts an unknown host key by default (paramiko's AutoAddPolicy, with no known_hosts
loaded). Here every connection loads the campaign's known_hosts file and refuses a key that is
not in it, or that differs from the one recorded, with a message that names the host and what
to do. Connect, banner and authentication timeouts and keep-alives are set, so that a host
that vanishes fails a trial in bounded time instead of hanging the campaign.
"""

from __future__ import annotations

import logging
from pathlib import Path

import paramiko
from fabric import Connection

from overhead.errors import OverheadError

__all__ = ["HostKeyError", "SSHError", "connect", "endpoint_name"]

# paramiko's transport thread logs a traceback for every refused attempt (a booting guest
# answers with no banner for a while); the failure reaches the caller as an exception anyway,
# so its records go nowhere unless the user configures the "paramiko" logger
logging.getLogger("paramiko").addHandler(logging.NullHandler())


class SSHError(OverheadError):
    """A host could not be reached, refused the login, or the connection broke.

    ``timed_out`` is True when the host accepted the TCP connection (or never answered it)
    but its SSH server did not answer in time: a hung host, not a refused or absent one.
    ``refused`` is True when the host answered that nothing listens on the port (an sshd
    that is not running, or restarting: a host rebooting).
    """

    def __init__(self, message: str, timed_out: bool = False, refused: bool = False):
        """Record the message and whether it was a timeout or a refusal."""
        super().__init__(message)
        self.timed_out = timed_out
        self.refused = refused


class HostKeyError(SSHError):
    """A host's key is not in the campaign's known_hosts, or differs from the recorded one."""


def endpoint_name(address: str, port: int) -> str:
    """Return the known_hosts name of an endpoint: ``address`` on port 22, else ``[address]:port``."""
    return address if port == 22 else f"[{address}]:{port}"


class _KnownHostsOnly(paramiko.MissingHostKeyPolicy):
    """Refuse every key the known_hosts file does not hold (or holds under the alias).

    paramiko consults this policy only when the endpoint's name (``[address]:port``) is not in
    the loaded keys; a recorded but different key raises BadHostKeyException before it.
    """

    def __init__(self, known_hosts: Path, alias: str | None):
        """Remember the file (for messages) and the HostKeyAlias to look the key up under."""
        self.known_hosts = known_hosts
        self.alias = alias

    def missing_host_key(self, client, hostname, key):
        """Accept the key only if it is recorded under the alias; otherwise refuse it."""
        if self.alias:
            recorded = client.get_host_keys().lookup(self.alias)
            if recorded is not None and recorded.get(key.get_name()) == key:
                return
            if recorded is not None:
                raise HostKeyError(
                    f"{hostname}: host key CHANGED: it is not the {key.get_name()} key recorded "
                    f"for {self.alias!r} in {self.known_hosts} (fingerprint now "
                    f"{key.fingerprint}). If the host was rebuilt, replace its line in that file; "
                    f"otherwise do not connect.")
        name = self.alias or hostname
        raise HostKeyError(
            f"{hostname}: unknown host key ({key.get_name()} {key.fingerprint}): {name!r} is not "
            f"in {self.known_hosts}. Check the fingerprint on the host (ssh-keygen -lf "
            f"/etc/ssh/ssh_host_*_key.pub) and add its line to that file, e.g. with "
            f"ssh-keyscan -p PORT ADDRESS >> {self.known_hosts}.")


def _timed_out(exc: BaseException) -> bool:
    """Whether a connection failure was a wait that ran out (TCP connect, banner, auth)."""
    seen = exc
    for _ in range(5):
        if seen is None:
            break
        if isinstance(seen, TimeoutError) or "banner" in str(seen) or "timed out" in str(seen):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def connect(address: str, port: int, user: str, *, known_hosts: Path, key_file: Path | None,
            host_key_alias: str | None = None, timeout: float = 10.0, keepalive: float = 5.0,
            gateway: Connection | None = None) -> Connection:
    """Open a fabric Connection whose host key is checked against ``known_hosts``.

    Parameters
    ----------
    address, port, user : str, int, str
        The endpoint and the login.
    known_hosts : path
        The campaign's known_hosts file (required: no key is accepted without it).
    key_file : path or None
        The private key; None uses the SSH agent.
    host_key_alias : str, optional
        Look the key up under this name instead of ``[address]:port``.
    timeout : float
        Seconds for the TCP connect, the SSH banner and authentication each.
    keepalive : float
        Seconds between keep-alive packets; a host that stops answering is found dead.
    gateway : Connection, optional
        Reach the endpoint through this connection (a VM's forwarded port on its host).

    Returns
    -------
    fabric.Connection
        An open connection.

    Raises
    ------
    HostKeyError
        For an unknown or changed host key (naming the host and what to do).
    SSHError
        For a host that cannot be reached or refuses the login.
    """
    known_hosts = Path(known_hosts)
    if not known_hosts.is_file():
        raise SSHError(f"{address}:{port}: known_hosts file {known_hosts} does not exist "
                       "(host keys are always verified; run `make hosts-up` for the local hosts)")
    kwargs = {"banner_timeout": timeout, "auth_timeout": timeout, "look_for_keys": False,
              "allow_agent": key_file is None}
    if key_file is not None:
        kwargs["key_filename"] = str(key_file)
    conn = Connection(address, user=user, port=port, connect_timeout=max(1, round(timeout)),
                      connect_kwargs=kwargs, gateway=gateway)
    conn.client.load_host_keys(str(known_hosts))
    conn.client.set_missing_host_key_policy(_KnownHostsOnly(known_hosts, host_key_alias))
    where = f"{user}@{address}:{port}"
    try:
        conn.open()
    except HostKeyError:
        raise
    except paramiko.BadHostKeyException as exc:
        raise HostKeyError(
            f"{endpoint_name(address, port)}: host key CHANGED: the server offers "
            f"{exc.key.get_name()} {exc.key.fingerprint}, {known_hosts} records "
            f"{exc.expected_key.fingerprint}. If the host was rebuilt, replace its line in that "
            f"file (ssh-keygen -R '{endpoint_name(address, port)}' -f {known_hosts}); "
            f"otherwise do not connect.") from None
    except paramiko.AuthenticationException as exc:
        raise SSHError(f"{where}: login refused ({exc}); check the key file "
                       f"{key_file or '(agent)'}") from None
    except (OSError, paramiko.SSHException, EOFError) as exc:
        refused = isinstance(exc, ConnectionRefusedError) or (
            isinstance(exc, paramiko.ssh_exception.NoValidConnectionsError)
            and all(isinstance(e, ConnectionRefusedError) or getattr(e, "errno", None) == 111
                    for e in exc.errors.values()))
        raise SSHError(f"{where}: cannot connect ({type(exc).__name__}: {exc})",
                       timed_out=_timed_out(exc), refused=refused) from None
    conn.transport.set_keepalive(max(1, round(keepalive)))
    return conn
