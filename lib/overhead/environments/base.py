"""The lifecycle every environment shares, and what the engine gives it.

An :class:`Environment` is one measured place as the campaign engine runs it: :meth:`~Environment.ensure`
starts it on first use (:meth:`~Environment.start`: runners copied, container or VM up, facts
collected), :meth:`~Environment.command` is a trial's command line there,
:meth:`~Environment.diagnose` says what happened to it when a trial failed, servers of load
generators and monitors beside a trial start and stop in it, :meth:`~Environment.stop` tears it
down; :meth:`~Environment.pause` and :meth:`~Environment.resume` let it stand idle while another
one is measured. Each kind (``native.py``, ``docker.py``, ``podman.py``, ``lxc.py``, ``vm.py``, ``static.py``) overrides
what differs; :mod:`~overhead.environments.registry` names them.

An environment knows nothing of the engine's internals: it is given a :class:`Context` (its
name and spec, the campaign's folder on the endpoints, its files, ports and addresses, the
host's connection, where to record events). Commands run through a
:class:`~overhead.environments.remote.Remote`; a failure is a :class:`TrialFailed` naming its
cause.
"""

from __future__ import annotations

import re
import shlex
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from overhead.environments import posix
from overhead.environments.failures import (
    EnvironmentDown,
    HostNotResponding,
    Interrupted,
    TrialFailed,
    tail,
)
from overhead.errors import OverheadError

if TYPE_CHECKING:
    from overhead.environments.remote import Remote
    from overhead.environments.spec import EnvSpec

__all__ = ["PID_LINE", "WATCHDOG_SLACK", "Context", "Endpoint", "Environment",
           "EnvironmentDown", "Trial", "TrialFailed", "listening_conflicts", "tail", "wait_gone"]

#: Seconds the local watchdog allows beyond a command's own timeout (the remote ``timeout -k``
#: should always fire first; the watchdog catches a host that stopped answering).
WATCHDOG_SLACK = 30.0
#: ``{file:NAME}`` in a server, ready or monitor command or a parameter value.
_FILE_REF = re.compile(r"\{file:([^}]*)\}")
#: ``{port:N}``: port N moved by the environment's offset (Benchmark.offset_ports).
_PORT_REF = re.compile(r"\{port:(\d+)\}")
#: ``{path:RELATIVE}``: a path on the campaign's own machine, relative to the campaign file
#: (as a VM environment's ``image:``), for a host that is this machine (the local hosts).
_PATH_REF = re.compile(r"\{path:([^}]*)\}")


# --- shell snippets of servers ----------------------------------------------------------------

def wait_gone(pid: str, tenths: int = 50) -> str:
    """Return shell code waiting (bounded) until process ``pid`` has exited.

    ``kill -0`` also answers for a zombie (this machine's PID 1 reaps late), so the process
    state is read from /proc.
    """
    return (f"i=0; while [ $i -lt {tenths} ] && s=$(sed 's/.*) //' /proc/{pid}/stat 2>/dev/null "
            f"| cut -c1) && [ -n \"$s\" ] && [ \"$s\" != Z ]; do sleep 0.1; i=$((i+1)); done")


def wait_stopped(pid: str, tenths: int = 50) -> str:
    """Return shell code waiting (bounded) until process ``pid`` stands stopped (state T) or is gone.

    A SIGSTOP is delivered when its target is next scheduled: on a busy machine the process
    may still show R for a moment after ``kill`` returned, and a trial must not start then.
    """
    return (f"i=0; while [ $i -lt {tenths} ] && s=$(sed 's/.*) //' /proc/{pid}/stat 2>/dev/null "
            f"| cut -c1) && [ -n \"$s\" ] && [ \"$s\" != T ] && [ \"$s\" != Z ]; do sleep 0.1; "
            f"i=$((i+1)); done")


#: Shell code writing ``PID STARTTIME`` of the current shell into a server's pid file: the
#: start time (/proc/PID/stat field 22, clock ticks since boot) tells the server apart from a
#: process that got its pid later, and a pid written inside a container from the host's
#: process of that number (scripts/hosts-down.sh relies on both).
PID_LINE = "echo $$ $(sed 's/.*) //' /proc/$$/stat | cut -d' ' -f20)"
#: Shell code: ``$p`` names the process of pid file line ``$p $st`` only if it still runs with
#: that start time and leads its own session (as server_command made it).
_SAME_SERVER = ("[ -n \"$st\" ] && [ \"$(sed 's/.*) //' /proc/$p/stat 2>/dev/null | cut -d' ' "
                "-f20)\" = \"$st\" ] && [ \"$(ps -o sid= -p \"$p\" 2>/dev/null | tr -d ' ')\" = \"$p\" ]")


def listening_conflicts(ss_output: str, address: str, ports: Sequence[int]) -> list[str]:
    """Return the lines of ``ss -Hltn`` that hold one of ``ports`` where a server would listen.

    A socket holds the port for ``address`` when it is bound to that address or to a wildcard
    (``0.0.0.0``, ``*``, ``[::]``); a server listening on the wildcard address conflicts with
    every listener of its port.
    """
    wanted = {int(p) for p in ports}
    wild = {"0.0.0.0", "*", "[::]", "::"}  # noqa: S104 - addresses read, not bound
    out = []
    for line in ss_output.splitlines():
        fields = line.split()
        if len(fields) < 4 or ":" not in fields[3]:
            continue
        host, _, port = fields[3].rpartition(":")
        host = host.split("%", 1)[0]
        if port.isdigit() and int(port) in wanted and (
                host in wild or address in wild or host == address):
            out.append(line.strip())
    return out


# --- what an environment is given -------------------------------------------------------------

class Trial(Protocol):
    """What an environment reads of a planned trial."""

    id: str
    benchmark: str
    runner: str
    params: dict
    timeout: float


@dataclass(frozen=True)
class Context:
    """What the engine gives an environment (or a load generator's endpoint).

    Attributes
    ----------
    name : str
        The environment's name in the campaign.
    spec : EnvSpec
        Its spec (the campaign file's fields of its kind).
    campaign : str
        The campaign's name (containers and VMs are named after it).
    folder : str
        The campaign's folder on every endpoint (``trials/`` with trials, servers' files).
    runners_dir : Path
        The runner scripts on this machine (copied to the endpoint by hash).
    files : mapping of str to Path
        The campaign's files, ``{file:NAME}``, copied where a command uses them.
    campaign_dir : Path or None
        The campaign file's folder, against which ``{path:...}`` resolves (None: no file).
    loopback : str
        The environment's own loopback address on its host, ``127.0.0.<k>``: servers of
        several environments on one host listen on (or publish, or forward from) their own.
    address : str
        Its host's address, where a client on another host reaches its servers (the host's
        ``bench_address``, else its SSH address).
    remote_clients : bool
        Whether some load generator reaches its servers from another host (then they must be
        reachable at ``address``, not only on its loopback).
    server_ports : tuple of int
        Ports to publish or forward (its own and its servers').
    port_offsets : mapping of str to int
        Benchmark -> how far its server ports (``{port:N}``) move here.
    host : callable returning Remote
        The connection to the host the environment runs on (or the client host), made again
        when it broke.
    known_hosts, key_file, keepalive : Path, Path or None, float
        The host's SSH settings, the defaults of a guest reached through it.
    ssh_port, host_key_alias : int, str or None
        The host's SSH port and the name its key is known by (an environment that logs in to
        the same host as another user, a rootless container's, uses them).
    local : bool
        Whether the host is this machine (a VM image's path is resolved here).
    event : callable
        ``event(name, **fields)`` records a campaign event (the manifest).
    cgroup : str or None
        The cgroup of the environment's processes on its host
        (:func:`~overhead.environments.posix.cgroup_name`; None: none is made).
    stop : threading.Event
        Set when the run must stop now (a second SIGINT or SIGTERM): a boot wait gives up and
        commands in progress end (:class:`~overhead.environments.remote.Interrupted`). A first
        signal only lets the trials in flight finish; it is not this event.
    """

    name: str
    spec: Any
    campaign: str
    folder: str
    runners_dir: Path
    files: Mapping[str, Path]
    campaign_dir: Path | None
    loopback: str
    address: str
    server_ports: tuple[int, ...]
    port_offsets: Mapping[str, int]
    host: Callable[[], Remote]
    known_hosts: Path | None = None
    key_file: Path | None = None
    keepalive: float = 5.0
    ssh_port: int = 22
    host_key_alias: str | None = None
    local: bool = False
    event: Callable[..., object] = lambda name, **fields: None
    stop: threading.Event = field(default_factory=threading.Event)
    cgroup: str | None = None
    remote_clients: bool = False


class Endpoint:
    """Where a trial's commands run: an environment, or a load generator's client host.

    It expands the placeholders ``{runners}``, ``{file:NAME}``, ``{port:N}`` and ``{path:P}``
    of the commands and parameters that run there.
    """

    def __init__(self, ctx: Context):
        """Bind the context; nothing is copied there yet."""
        self.ctx = ctx
        self.runners: str | None = None  # the runners folder there, once copied
        self.copied: set[str] = set()  # campaign files copied there

    def conn(self) -> Remote:
        """Return the connection the runner runs on and its trial directory is fetched from."""
        return self.ctx.host()

    def files_dirs(self) -> tuple[str, str]:
        """Return where campaign files are copied (on conn()) and where commands see them."""
        folder = f"{self.ctx.folder}/trials/.files"
        return folder, folder

    def runners_seen(self) -> str:
        """Return the runners folder as commands here see it."""
        return self.runners or ""

    def expand(self, text: str, benchmark: str | None = None) -> str:
        """Replace ``{runners}``, ``{file:NAME}`` (copied here first, once) and ``{port:N}``.

        ``{port:N}`` moves by ``benchmark``'s port offset in this environment.
        """
        names = sorted(set(_FILE_REF.findall(text)))
        copy_to, seen = self.files_dirs()
        if names:
            todo = [n for n in names if n not in self.copied]
            if todo:
                self.conn().put_files(copy_to, {n: self.ctx.files[n] for n in todo})
                self.copied.update(todo)
        text = text.replace("{runners}", self.runners_seen())
        if benchmark is not None:
            off = self.ctx.port_offsets[benchmark]
            text = _PORT_REF.sub(lambda m: str(int(m.group(1)) + off), text)
        text = _PATH_REF.sub(lambda m: str(self._local_path(m.group(1))), text)
        return _FILE_REF.sub(lambda m: f"{seen}/{m.group(1)}", text)

    def _local_path(self, relative: str) -> Path:
        """Resolve ``{path:RELATIVE}`` against the campaign file's folder."""
        if self.ctx.campaign_dir is None:
            raise TrialFailed(f"{{path:{relative}}}: the campaign was not read from a file, so "
                              "there is no folder to resolve it against")
        return (self.ctx.campaign_dir / relative).resolve()

    def params_of(self, trial: Trial) -> dict:
        """Return the trial's parameters with placeholders expanded for this endpoint."""
        return {k: self.expand(v, trial.benchmark) if isinstance(v, str) else v
                for k, v in trial.params.items()}

    def trial_dir(self, trial: Trial) -> str:
        """Return the trial directory on the endpoint."""
        return f"{self.ctx.folder}/trials/{trial.id}"

    def prepare(self, trial: Trial, *, sweep: bool = True) -> str:
        """Return the command that kills a stale attempt of the trial and removes its files.

        ``sweep=False``: the trial was never started, only its files are removed
        (:func:`~overhead.environments.posix.prepare_command`).
        """
        return posix.prepare_command(self.trial_dir(trial), self.trial_dir(trial) + ".pgid",
                                     sweep=sweep)


def _refused_host_key(exc: BaseException) -> bool:
    """Whether ``exc`` is a refused host key (it stops the campaign: not a trial's failure)."""
    from overhead.environments.connect import HostKeyError  # paramiko: only when needed

    return isinstance(exc, HostKeyError)


class Environment(Endpoint):
    """An environment as the engine runs it: start on first use, run trials, stop at the end.

    Parameters
    ----------
    ctx : Context
        Its name, spec and what of the campaign and host it needs.
    """

    #: The spec model of this kind (its ``kind`` literal is the registry's name).
    Spec: ClassVar[type[EnvSpec]]
    #: The tidy ``environment`` column and the variant string.
    tidy_environment = "native"
    variant: str | None = None
    #: Whether its servers listen in the network namespace of the host the worker reaches
    #: (checked for a port already held before a server starts).
    shares_host_ports = True

    def __init__(self, ctx: Context):
        """Bind the context; the environment starts on first use."""
        super().__init__(ctx)
        self.name = ctx.name
        self.spec = ctx.spec
        self.started = False
        self.down: str | None = None  # why the environment cannot run trials
        self.facts: dict = {}
        self.servers: set[str] = set()  # benchmarks whose server runs here
        self.paused = False
        #: the cgroup its commands on the host join (None: none could be made there)
        self.joins: str | None = None
        #: whether all of the environment's CPU time is in its cgroup (the trial's outside
        #: CPU time can be told apart only then)
        self.accounted = False

    # --- lifecycle ---
    def ensure(self) -> bool:
        """Start the environment if needed; raise EnvironmentDown when it cannot run trials.

        Returns
        -------
        bool
            True when it started now (its facts are new).
        """
        if self.down:
            raise EnvironmentDown(f"environment {self.name} is down: {self.down}")
        if self.started and not self.is_running():
            self.started = False  # stopped under us (a host fault): start it again
            self.forget_started()
            self.ctx.event("environment-restart", environment=self.name,
                           why="container was not running")
        if self.started:
            return False
        try:
            self.start()
        except (Interrupted, HostNotResponding):
            raise  # a stop-now, or a host that may answer again: not a start that failed
        except TrialFailed as exc:
            self.down = exc.cause
            raise EnvironmentDown(f"environment {self.name} did not start: {exc.cause}",
                                  exc.stderr) from None
        except OverheadError as exc:
            if _refused_host_key(exc):
                raise  # a refused host key stops the campaign: it is not the trial's failure
            self.down = str(exc)
            raise EnvironmentDown(f"environment {self.name} did not start: {exc}") from None
        self.started = True
        return True

    def start(self) -> None:
        """Bring the environment up (runners copied, container or VM started, facts read)."""
        self.runners = self.ctx.host().ensure_runners(self.ctx.runners_dir)
        self.ctx.host().exec(f"mkdir -p {self.ctx.folder}/trials", 60)
        self.facts = self.endpoint_facts(self.ctx.host())
        self.make_cgroup()
        self.accounted = self.joins is not None

    def is_running(self) -> bool:
        """Whether what runs the trials is still up (a container: False once it stopped under us).

        :meth:`ensure` starts an environment again before its next trial when this says no.
        A host itself always runs (a lost host is the connection's failure, not a restart).
        """
        return True

    def make_cgroup(self) -> str | None:
        """Create the environment's cgroup on its host; record it in the facts; return its path."""
        if self.ctx.cgroup is None:
            return None
        status, out, _ = self.ctx.host().exec(posix.cgroup_make_command(self.ctx.cgroup), 60)
        path = out.strip().rpartition("cgroup=")[2] if status == 0 else ""
        made = path not in ("", "unavailable")
        self.facts["cgroup"] = path if made else "unavailable"
        self.joins = self.ctx.cgroup if made else None
        return path if made else None

    def remove_cgroup(self) -> None:
        """Remove the environment's cgroup from its host (best effort; it must be empty)."""
        if self.ctx.cgroup is not None and self.joins is not None:
            try:
                self.ctx.host().exec(posix.cgroup_remove_command(self.ctx.cgroup), 30,
                                     interruptible=False)
            except (TrialFailed, OverheadError):
                pass

    def endpoint_facts(self, remote: Remote) -> dict:
        """Collect the facts of the endpoint a runner runs on (kernel, CPU, governor...)."""
        status, out, _ = remote.exec(posix.facts_command(), 60)
        return posix.parse_facts(out) if status == 0 else {}

    def host_facts(self, remote: Remote) -> dict:
        """Collect the facts of the host under a VM or container, named ``host_kernel``...

        A guest's or container's own facts say its kernel and what it sees; the host's kernel
        and virtualization are recorded beside them (:func:`~overhead.environments.posix.host_facts`).
        """
        return posix.host_facts(self.endpoint_facts(remote))

    def facts_record(self) -> dict:
        """Return the environment's provenance: labels, host and the facts its start read."""
        return {"environment": self.name, "kind": self.spec.kind,
                "tidy_environment": self.tidy_environment, "variant": self.variant,
                "host": self.spec.host, **self.facts}

    def pause(self) -> None:
        """Let the environment stand still while another one is measured.

        Natively what runs of it between trials are its servers: their sessions are stopped
        (SIGSTOP); :meth:`resume` continues them. Kinds with more override it.
        """
        self._signal_servers("STOP")
        self.paused = True

    def resume(self) -> None:
        """Make a paused environment ready for its next trial."""
        self._signal_servers("CONT")
        self.paused = False

    def _signal_servers(self, sig: str) -> None:
        """Send ``sig`` to the session of each server started here (by its pid file)."""
        if not self.servers:
            return
        cmds = []
        for name in sorted(self.servers):
            pidf, _ = self.server_files(name)
            wait = f"; {wait_stopped('$p')}" if sig == "STOP" else ""
            cmds.append(f"if [ -s {pidf} ]; then read -r p st < {pidf}; kill -{sig} -$p{wait}; fi")
        status, out, err = self.conn().exec("; ".join(cmds), 30)
        if status != 0:
            raise TrialFailed(f"could not {sig} the servers of {self.name} (exit {status})",
                              tail(out + err))

    def hold_cpus(self, cpus: str) -> None:
        """Keep the server side on ``cpus`` for one trial (servers are pinned when they start)."""

    def release_cpus(self) -> None:
        """Undo :meth:`hold_cpus` after the trial."""

    def needs_stop(self) -> bool:
        """Whether :meth:`stop` has anything to tear down (what a start left, if only half)."""
        return self.started

    def stop(self) -> None:
        """Tear the environment down (natively: only its cgroup is removed)."""
        self.remove_cgroup()

    def forget_started(self) -> None:
        """Forget the servers started and files copied (the environment was restarted)."""
        self.servers = set()
        self.copied = set()

    # --- one trial ---
    def command(self, trial: Trial) -> str:
        """Return the command line that runs the trial's runner on the endpoint (in its cgroup)."""
        return posix.in_cgroup(
            posix.runner_command(self.runners, trial.runner, self.trial_dir(trial),
                                 self.params_of(trial), trial.timeout,
                                 pgid_file=self.trial_dir(trial) + ".pgid"), self.joins)

    def diagnose(self, failure: TrialFailed) -> TrialFailed:
        """Refine a failure's cause with what happened to the environment (container gone...)."""
        return failure

    # --- servers that load generators on a client host target ---
    @property
    def loopback(self) -> str:
        """Return this environment's own loopback address on its host: 127.0.0.<k>."""
        return self.ctx.loopback

    def address(self, client_is_here: bool) -> str:
        """Return the server's address as the client reaches it."""
        return self.loopback if client_is_here else self.ctx.address

    def listen(self, client_is_here: bool) -> str:
        """Return the address a server here listens on: its loopback when the client is local."""
        return self.loopback if client_is_here else "0.0.0.0"  # noqa: S104 - reached from outside

    def server_files(self, benchmark: str) -> tuple[str, str]:
        """Return the server's pid file and log on the endpoint."""
        # named by environment too: a container writes into the same (bind-mounted) folder
        base = f"{self.ctx.folder}/trials/server-{self.name}-{benchmark}"
        return f"{base}.pid", f"{base}.log"

    def server_command(self, benchmark: str, command: str, cpus: str | None = None) -> str:
        """Return the command that starts a server in the background, in a session of its own.

        It joins the environment's cgroup first and runs on ``cpus`` when given (taskset).
        """
        pidf, log = self.server_files(benchmark)
        join = posix.cgroup_join(self.joins) + "; " if self.joins else ""
        pin = f"taskset -c {shlex.quote(cpus)} " if cpus else ""
        script = f"{join}{PID_LINE} > {pidf}; exec {pin}{command}"
        return f"setsid sh -c {shlex.quote(script)} > {log} 2>&1 < /dev/null &"

    def server_stop_command(self, benchmark: str, sig: str = "TERM") -> str:
        """Return the command that stops a server started by :meth:`server_command` (waits)."""
        pidf, _ = self.server_files(benchmark)
        return (f"if [ -s {pidf} ]; then read -r p st < {pidf}; kill -{sig} -$p 2>/dev/null; "
                f"kill -CONT -$p 2>/dev/null; {wait_gone('$p')}; fi; rm -f {pidf}")

    def stale_server_command(self, benchmark: str) -> str:
        """Return the command stopping a server an interrupted run left here.

        A campaign killed before its teardown leaves the servers it started natively running
        (a native MariaDB kept port 3306 and answered the next run's ready check with no
        database in it). Its pid file says which session; that session is stopped only if the
        process still leads a session of its own, as :meth:`server_command` made it (a pid
        reused since, with another start time, is left alone).
        """
        pidf, _ = self.server_files(benchmark)
        return (f"if [ -s {pidf} ]; then read -r p st < {pidf}; if {_SAME_SERVER}; then "
                f"echo stale server session $p; kill -TERM -$p 2>/dev/null; "
                # a run killed while this environment stood paused left it stopped (SIGSTOP)
                f"kill -CONT -$p 2>/dev/null; {wait_gone('$p')}; "
                f"kill -KILL -$p 2>/dev/null; fi; fi; rm -f {pidf}")

    def ensure_server(self, name: str, bench, client_is_here: bool,
                      cpus: str | None = None) -> None:
        """Start the benchmark's server here once (its ``server`` command), or fail the trial.

        A server of the same environment and benchmark left by an interrupted run is stopped
        first (:meth:`stale_server_command`). ``cpus``: the host CPUs it runs on (taskset).
        """
        if name in self.servers or not bench.server:
            return
        command = self.expand(bench.server.replace("{listen}", self.listen(client_is_here)), name)
        status, out, _ = self.conn().exec(self.stale_server_command(name), 120)
        if "stale server session" in out:
            self.ctx.event("stale-server-stopped", environment=self.name, benchmark=name,
                           said=out.strip())
        if self.shares_host_ports and bench.ports:
            # a server already on our address and port would answer the ready check in our
            # server's place (its data, its password) while ours fails to bind
            listen = self.listen(client_is_here)
            off = self.ctx.port_offsets[name]
            status, out, _ = self.conn().exec("ss -Hltn", 30)
            held = listening_conflicts(out, listen, [p + off for p in bench.ports]) \
                if status == 0 else []
            if held:
                raise TrialFailed(f"server of {name} cannot start in {self.name}: something "
                                  f"already listens where it would ({listen}): "
                                  + "; ".join(held) + " (a server an earlier run left?)")
        status, out, err = self.conn().exec(self.server_command(name, command, cpus), 60)
        if status != 0:
            raise TrialFailed(f"server of {name} did not start in {self.name} (exit {status})",
                              tail(out + err))
        self.servers.add(name)
        self.ctx.event("server-started", environment=self.name, benchmark=name, command=command,
                       cpus=cpus)

    def stop_servers(self) -> None:
        """Stop the servers started here."""
        for name in sorted(self.servers):
            try:
                self.conn().exec(self.server_stop_command(name), 60)
            except (TrialFailed, OverheadError):
                pass
        self.servers = set()

    def start_monitor(self, benchmark: str, command: str) -> None:
        """Start a benchmark's monitor (``mpstat 1``) here, beside one trial."""
        name = f"{benchmark}.monitor"
        _, log = Environment.server_files(self, name)
        self.conn().exec(f"rm -f {log}", 60)
        status, out, err = self.conn().exec(
            self.server_command(name, self.expand(command, benchmark)), 60)
        if status != 0:
            raise TrialFailed(f"monitor of {benchmark} did not start in {self.name} "
                              f"(exit {status})", tail(out + err))

    def stop_monitor(self, benchmark: str) -> str:
        """Stop the monitor with SIGINT (mpstat then prints its averages); return its output."""
        name = f"{benchmark}.monitor"
        _, log = Environment.server_files(self, name)  # the host's path, also for a container's log
        self.conn().exec(self.server_stop_command(name, "INT"), 60)
        status, out, _ = self.conn().exec(f"cat {log} && rm -f {log}", 60)
        return out if status == 0 else ""
