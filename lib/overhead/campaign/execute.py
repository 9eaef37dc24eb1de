"""Run a campaign's trials over SSH: one worker per host, crash-safe, fault-tolerant.

Each inventory host gets one worker thread that owns its SSH connection (and the connections to
the VMs it runs) and runs that host's trials in plan order, so environments that share a machine
never run at the same time, while several hosts run in parallel.

For every trial the worker records ``running`` in the manifest, runs the runner under a remote
``timeout -k`` with a local watchdog, fetches the runner's trial directory into a local
``<trial-id>.partial``, writes ``trial.json`` beside it, fsyncs, renames it into
``data/raw/<campaign>/<environment>/<benchmark>/<trial-id>/`` and only then records ``done``.
A trial is done when, and only when, its local ``meta`` exists. A failure (non-zero exit,
timeout, lost host, an environment that did not start) is recorded with its cause and stderr
and the campaign goes on; the raw files of a runner that failed are kept under
``failed/<environment>/<benchmark>/<trial-id>.<attempt>/`` for diagnosis.

Before and after each trial the worker samples the host's load, swap and throttle counters;
a trial during which they moved is flagged in its trial.json, never dropped.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import paramiko

from overhead.campaign import analysis
from overhead.campaign.connect import HostKeyError, SSHError, connect
from overhead.campaign.inventory import Campaign, DockerEnv, Host, NativeEnv, StaticEnv, VmEnv
from overhead.campaign.layout import (
    CAMPAIGN_COPY,
    MANIFEST,
    META,
    PLAN,
    TRIAL_JSON,
    facts_path,
    failed_dir,
    last_records,
    partial_dir,
    read_records,
    trial_dir,
)
from overhead.campaign.manifest import Manifest, resume
from overhead.campaign.plan import Plan, PlannedTrial, extend, make_plan
from overhead.campaign.shell import RemoteShell, ShellBroken, ShellTimeout
from overhead.environments import docker, native
from overhead.errors import OverheadError

__all__ = ["REMOTE_BASE", "RunResult", "run_campaign", "trial_dir"]

#: Folder on every endpoint for runners and trial directories.
REMOTE_BASE = "/var/tmp/overhead"
#: Seconds the local watchdog allows beyond a trial's own timeout (the remote ``timeout -k``
#: should always fire first; the watchdog catches a host that stopped answering).
WATCHDOG_SLACK = 30.0
_SEP = "@@overhead@@"
#: ``{file:NAME}`` in a server, ready or monitor command or a parameter value.
_FILE_REF = re.compile(r"\{file:([^}]*)\}")
#: ``{port:N}``: port N moved by the environment's offset (Benchmark.offset_ports).
_PORT_REF = re.compile(r"\{port:(\d+)\}")
#: ``{path:RELATIVE}``: a path on the campaign's own machine, relative to the campaign file
#: (as a VM environment's ``image:``), for a host that is this machine (the local hosts).
_PATH_REF = re.compile(r"\{path:([^}]*)\}")


def _wait_gone(pid: str, tenths: int = 50) -> str:
    """Return shell code waiting (bounded) until process ``pid`` has exited.

    ``kill -0`` also answers for a zombie (this machine's PID 1 reaps late), so the process
    state is read from /proc.
    """
    return (f"i=0; while [ $i -lt {tenths} ] && s=$(sed 's/.*) //' /proc/{pid}/stat 2>/dev/null "
            f"| cut -c1) && [ -n \"$s\" ] && [ \"$s\" != Z ]; do sleep 0.1; i=$((i+1)); done")


#: Shell code writing ``PID STARTTIME`` of the current shell into a server's pid file: the
#: start time (/proc/PID/stat field 22, clock ticks since boot) tells the server apart from a
#: process that got its pid later, and a pid written inside a container from the host's
#: process of that number (scripts/hosts-down.sh relies on both).
_PID_LINE = "echo $$ $(sed 's/.*) //' /proc/$$/stat | cut -d' ' -f20)"
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


def _put_files(conn, folder: str, files: dict[str, Path]) -> None:
    """Copy campaign files (secrets) into ``folder`` on an endpoint: folder 0700, files 0600."""
    status, out, err = _exec(conn, f"mkdir -p {folder} && chmod 700 {folder}", 60)
    if status != 0:
        raise TrialFailed(f"cannot create {folder} ({_tail(out + err, 200)})")
    sftp = conn.sftp()
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


def _now() -> str:
    """Return the current UTC time as ISO 8601 with microseconds and Z."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class TrialFailed(OverheadError):
    """A trial failed; ``cause`` says why in a few words, ``stderr`` holds the tool's words."""

    def __init__(self, cause: str, stderr: str = "", exit_status: int | None = None,
                 keep: Path | None = None):
        """Record the cause, stderr, exit status and where the failed trial's files went."""
        super().__init__(cause)
        self.cause = cause
        self.stderr = stderr
        self.exit_status = exit_status
        self.keep = keep


class EnvironmentDown(TrialFailed):
    """The environment could not be started (or restarted); its trials fail at once."""


def _tail(text: str, n: int = 2000) -> str:
    """Return the last ``n`` characters of ``text``."""
    return text[-n:]


def _git_sha() -> str | None:
    """Return the checkout's commit (provenance), or None outside a git checkout."""
    from overhead.paths import ROOT

    try:
        out = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True,
                             text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def _runner_files(runners_dir: Path) -> dict[str, str]:
    """Return name -> SHA-256 of the runner scripts (``*.sh``) of a folder."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(runners_dir.glob("*.sh"))}


def _fsync_dir(path: Path) -> None:
    """Fsync a directory, so that a rename inside it is durable."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


# ---------------------------------------------------------------------------------------------
# shared state of one `overhead run`


@dataclass
class _Run:
    """What every worker of one run shares: campaign, paths, manifest, progress, stop flag."""

    campaign: Campaign
    raw: Path
    manifest: Manifest
    retries: int
    stop: threading.Event
    progress: Callable[[str], None]
    git_sha: str | None
    lock: threading.Lock = field(default_factory=threading.Lock)
    attempts: dict[str, int] = field(default_factory=dict)
    done: int = 0
    failed: int = 0
    durations: list[float] = field(default_factory=list)
    overheads: list[float] = field(default_factory=list)
    setup: float = 0.0  # seconds spent starting environments (connections, runners, boots)

    @property
    def remote(self) -> str:
        """The campaign's folder on every endpoint."""
        return f"{REMOTE_BASE}/{self.campaign.name}"


def _exec(conn, command: str, timeout: float | None) -> tuple[int, str, str]:
    """Run a command in the connection's persistent shell; return (exit status, stdout, stderr).

    Raises
    ------
    TrialFailed
        ``watchdog`` when the command outlived ``timeout`` locally; ``lost host`` when the
        connection broke.
    """
    where = f"{conn.host}:{conn.port}"
    shell = getattr(conn, "_overhead_shell", None)
    try:
        if shell is None or not shell.alive:
            if not _alive(conn):
                raise ShellBroken("the SSH connection is closed")
            shell = conn._overhead_shell = RemoteShell(conn.transport)
        return shell.run(command, timeout)
    except ShellTimeout:
        raise TrialFailed(f"watchdog: no answer from {where} within {timeout:.0f} s") from None
    except ShellBroken as exc:
        raise TrialFailed(f"lost host {where} ({exc})") from None
    except (OSError, EOFError, paramiko.SSHException) as exc:
        raise TrialFailed(f"lost host {where} ({type(exc).__name__}: {exc})") from None


def _alive(conn) -> bool:
    """Whether a fabric connection's transport is still up."""
    t = getattr(conn, "transport", None)
    return bool(t is not None and t.is_active())


def _ensure_runners(conn, runners_dir: Path, base: str = REMOTE_BASE) -> str:
    """Copy the runner scripts to an endpoint once, checked by hash; return the remote folder.

    The folder is named by a hash of the scripts, and a ``SHA256SUMS`` file in it is checked
    with ``sha256sum -c``: an unchanged, intact copy is reused, anything else is replaced.
    """
    files = _runner_files(runners_dir)
    if not files:
        raise OverheadError(f"{runners_dir}: no runner scripts (*.sh)")
    sums = "".join(f"{h}  {n}\n" for n, h in files.items())
    digest = hashlib.sha256(sums.encode()).hexdigest()[:16]
    remote = f"{base}/runners-{digest}"
    status, _, _ = _exec(conn, f"cd {remote} 2>/dev/null && sha256sum -c --quiet SHA256SUMS "
                               ">/dev/null 2>&1", 60)
    if status == 0:
        return remote
    tmp = f"{remote}.tmp.{os.getpid()}"
    _exec(conn, f"rm -rf {tmp} && mkdir -p {tmp}", 60)
    sftp = conn.sftp()
    for name in files:
        sftp.put(str(runners_dir / name), f"{tmp}/{name}")
    with sftp.open(f"{tmp}/SHA256SUMS", "w") as fh:
        fh.write(sums)
    status, out, err = _exec(conn, f"cd {tmp} && sha256sum -c --quiet SHA256SUMS && cd / && "
                                   f"rm -rf {remote} && mv {tmp} {remote}", 60)
    if status != 0:
        raise OverheadError(f"{conn.host}:{conn.port}: runners copied to {tmp} do not match "
                            f"their hashes: {out}{err}")
    return remote


def _fetch(conn, remote_dir: str, local: Path) -> None:
    """Copy the regular files of a remote trial directory into ``local`` (created) by SFTP."""
    import stat

    local.mkdir(parents=True)
    sftp = conn.sftp()
    for attr in sftp.listdir_attr(remote_dir):
        if stat.S_ISREG(attr.st_mode or 0):
            sftp.get(f"{remote_dir}/{attr.filename}", str(local / attr.filename))


def _sync_tree(path: Path) -> None:
    """Fsync every file in a folder and the folder itself."""
    for f in path.iterdir():
        fd = os.open(f, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    _fsync_dir(path)


# ---------------------------------------------------------------------------------------------
# environments at run time


class _Endpoint:
    """Where commands run: an environment, or a load generator's client host.

    It expands the placeholders ``{runners}``, ``{file:NAME}``, ``{port:N}`` and ``{path:P}`` of the commands
    and parameters that run there. Needs ``run``, ``name``, ``runners`` and ``conn()`` from the class it is mixed into.
    """

    def files_dirs(self) -> tuple[str, str]:
        """Return where campaign files are copied (on conn()) and where commands see them."""
        folder = f"{self.run.remote}/trials/.files"
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
            copied = self.__dict__.setdefault("copied", set())
            todo = [n for n in names if n not in copied]
            if todo:
                _put_files(self.conn(), copy_to, {n: self.run.campaign.files[n] for n in todo})
                copied.update(todo)
        text = text.replace("{runners}", self.runners_seen())
        if benchmark is not None:
            off = self.run.campaign.port_offset(self.name, benchmark)
            text = _PORT_REF.sub(lambda m: str(int(m.group(1)) + off), text)
        text = _PATH_REF.sub(lambda m: str(self._local_path(m.group(1))), text)
        return _FILE_REF.sub(lambda m: f"{seen}/{m.group(1)}", text)

    def _local_path(self, relative: str) -> Path:
        """Resolve ``{path:RELATIVE}`` against the campaign file's folder."""
        where = self.run.campaign.path
        if where is None:
            raise TrialFailed(f"{{path:{relative}}}: the campaign was not read from a file, so "
                              "there is no folder to resolve it against")
        return (Path(where).parent / relative).resolve()

    def params_of(self, trial: PlannedTrial) -> dict:
        """Return the trial's parameters with placeholders expanded for this endpoint."""
        return {k: self.expand(v, trial.benchmark) if isinstance(v, str) else v
                for k, v in trial.params.items()}


class _Env(_Endpoint):
    """An environment as one worker runs it: start on first use, run trials, stop at the end."""

    #: the tidy ``environment`` column and the variant string
    tidy_environment = "native"
    variant: str | None = None
    #: whether its servers listen in the network namespace of the host the worker reaches
    #: (checked for a port already held before a server starts)
    shares_host_ports = True

    def __init__(self, worker: _Worker, name: str, spec):
        """Bind the environment's name and spec to its host's worker."""
        self.worker = worker
        self.name = name
        self.spec = spec
        self.started = False
        self.down: str | None = None  # why the environment cannot run trials
        self.facts: dict = {}
        self.runners: str | None = None

    @property
    def run(self) -> _Run:
        """The run this environment belongs to."""
        return self.worker.run

    def ensure(self) -> None:
        """Start the environment if needed; raise EnvironmentDown when it cannot run trials."""
        if self.down:
            raise EnvironmentDown(f"environment {self.name} is down: {self.down}")
        if not self.started:
            try:
                self.start()
            except TrialFailed as exc:
                self.down = exc.cause
                raise EnvironmentDown(f"environment {self.name} did not start: {exc.cause}",
                                      exc.stderr) from None
            except HostKeyError:
                raise  # a refused host key stops the campaign: it is not the trial's failure
            except OverheadError as exc:
                self.down = str(exc)
                raise EnvironmentDown(f"environment {self.name} did not start: {exc}") from None
            self.started = True
            self.write_facts()

    def start(self) -> None:
        """Bring the environment up (runners copied, container or VM started)."""
        self.runners = _ensure_runners(self.worker.conn(), self.run.campaign.runners_dir())
        _exec(self.worker.conn(), f"mkdir -p {self.run.remote}/trials", 60)
        self.facts = self.endpoint_facts(self.worker.conn())

    def endpoint_facts(self, conn) -> dict:
        """Collect the facts of the endpoint a runner runs on (kernel, CPU, governor...)."""
        status, out, _ = _exec(conn, native.facts_command(), 60)
        return native.parse_facts(out) if status == 0 else {}

    def write_facts(self) -> None:
        """Write ``facts/<environment>.json`` (provenance once per environment)."""
        facts = {"environment": self.name, "kind": self.spec.kind,
                 "tidy_environment": self.tidy_environment, "variant": self.variant,
                 "host": self.spec.host, **self.facts, "git_sha": self.run.git_sha,
                 "campaign_hash": self.run.campaign.sha256}
        path = facts_path(self.run.raw, self.name)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(facts, indent=1, default=str))
        os.replace(tmp, path)

    def stop(self) -> None:
        """Tear the environment down (nothing for native)."""

    # --- one trial ---
    def conn(self):
        """Return the connection the runner runs on and its trial directory is fetched from."""
        return self.worker.conn()

    def trial_dir(self, trial: PlannedTrial) -> str:
        """Return the trial directory on the endpoint."""
        return f"{self.run.remote}/trials/{trial.id}"

    def command(self, trial: PlannedTrial) -> str:
        """Return the command line that runs the trial's runner on the endpoint."""
        return native.runner_command(self.runners, trial.runner, self.trial_dir(trial),
                                     self.params_of(trial), trial.timeout,
                                     pgid_file=self.trial_dir(trial) + ".pgid")

    def prepare(self, trial: PlannedTrial) -> str:
        """Return the command that kills a stale attempt of the trial and removes its files."""
        return native.prepare_command(self.trial_dir(trial), self.trial_dir(trial) + ".pgid")

    def diagnose(self, failure: TrialFailed) -> TrialFailed:
        """Refine a failure's cause with what happened to the environment (container gone...)."""
        return failure

    def forget_started(self) -> None:
        """Forget the servers started and files copied (the environment was restarted)."""
        self.__dict__["servers"] = set()
        self.__dict__["copied"] = set()

    # --- servers that load generators on a client host target ---
    @property
    def loopback(self) -> str:
        """Return this environment's own loopback address on its host: 127.0.0.<k>.

        Servers of several environments on one host use the same port numbers, so each
        environment listens on (or publishes, or forwards from) an address of its own; k counts
        the host's environments in the campaign file's order.
        """
        return f"127.0.0.{self.run.campaign.host_index(self.name) + 1}"

    def address(self, client_is_here: bool) -> str:
        """Return the server's address as the client reaches it."""
        if client_is_here:
            return self.loopback
        return self.run.campaign.hosts[self.spec.host].address

    def listen(self, client_is_here: bool) -> str:
        """Return the address a server here listens on: its loopback when the client is local."""
        return self.loopback if client_is_here else "0.0.0.0"  # noqa: S104 - reached from outside

    def server_files(self, benchmark: str) -> tuple[str, str]:
        """Return the server's pid file and log on the endpoint."""
        # named by environment too: a container writes into the same (bind-mounted) folder
        base = f"{self.run.remote}/trials/server-{self.name}-{benchmark}"
        return f"{base}.pid", f"{base}.log"

    def server_command(self, benchmark: str, command: str) -> str:
        """Return the command that starts a server in the background, in a session of its own."""
        pidf, log = self.server_files(benchmark)
        script = f"{_PID_LINE} > {pidf}; exec {command}"
        return f"setsid sh -c {shlex.quote(script)} > {log} 2>&1 < /dev/null &"

    def server_stop_command(self, benchmark: str, sig: str = "TERM") -> str:
        """Return the command that stops a server started by :meth:`server_command` (waits)."""
        pidf, _ = self.server_files(benchmark)
        return (f"if [ -s {pidf} ]; then read -r p st < {pidf}; kill -{sig} -$p 2>/dev/null; "
                f"{_wait_gone('$p')}; fi; rm -f {pidf}")

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
                f"echo stale server session $p; kill -TERM -$p 2>/dev/null; {_wait_gone('$p')}; "
                f"kill -KILL -$p 2>/dev/null; fi; fi; rm -f {pidf}")

    def ensure_server(self, name: str, bench, client_is_here: bool) -> None:
        """Start the benchmark's server here once (its ``server`` command), or fail the trial.

        A server of the same environment and benchmark left by an interrupted run is stopped
        first (:meth:`stale_server_command`).
        """
        servers = self.__dict__.setdefault("servers", set())
        if name in servers or not bench.server:
            return
        command = self.expand(bench.server.replace("{listen}", self.listen(client_is_here)), name)
        status, out, _ = _exec(self.conn(), self.stale_server_command(name), 120)
        if "stale server session" in out:
            self.run.manifest.event("stale-server-stopped", environment=self.name,
                                    benchmark=name, said=out.strip())
        if self.shares_host_ports and bench.ports:
            # a server already on our address and port would answer the ready check in our
            # server's place (its data, its password) while ours fails to bind
            listen = self.listen(client_is_here)
            off = self.run.campaign.port_offset(self.name, name)
            status, out, _ = _exec(self.conn(), "ss -Hltn", 30)
            held = listening_conflicts(out, listen, [p + off for p in bench.ports]) \
                if status == 0 else []
            if held:
                raise TrialFailed(f"server of {name} cannot start in {self.name}: something "
                                  f"already listens where it would ({listen}): "
                                  + "; ".join(held) + " (a server an earlier run left?)")
        status, out, err = _exec(self.conn(), self.server_command(name, command), 60)
        if status != 0:
            raise TrialFailed(f"server of {name} did not start in {self.name} (exit {status})",
                              _tail(out + err))
        servers.add(name)
        self.run.manifest.event("server-started", environment=self.name, benchmark=name,
                                command=command)

    def stop_servers(self) -> None:
        """Stop the servers started here."""
        for name in sorted(self.__dict__.get("servers", ())):
            try:
                _exec(self.conn(), self.server_stop_command(name), 60)
            except (TrialFailed, OverheadError):
                pass
        self.__dict__["servers"] = set()

    def start_monitor(self, benchmark: str, command: str) -> None:
        """Start a benchmark's monitor (``mpstat 1``) here, beside one trial."""
        name = f"{benchmark}.monitor"
        _, log = _Env.server_files(self, name)
        _exec(self.conn(), f"rm -f {log}", 60)
        status, out, err = _exec(self.conn(),
                                 self.server_command(name, self.expand(command, benchmark)), 60)
        if status != 0:
            raise TrialFailed(f"monitor of {benchmark} did not start in {self.name} "
                              f"(exit {status})", _tail(out + err))

    def stop_monitor(self, benchmark: str) -> str:
        """Stop the monitor with SIGINT (mpstat then prints its averages); return its output."""
        name = f"{benchmark}.monitor"
        _, log = _Env.server_files(self, name)  # the host's path, also for a container's log
        _exec(self.conn(), self.server_stop_command(name, "INT"), 60)
        status, out, _ = _exec(self.conn(), f"cat {log} && rm -f {log}", 60)
        return out if status == 0 else ""


class _NativeEnv(_Env):
    """The runner on the host itself."""

    tidy_environment = "native"


class _StaticEnv(_Env):
    """A VM or container the user runs, reached by SSH as its own host: like native."""

    def __init__(self, worker, name, spec: StaticEnv):
        """Take the tidy environment and variant from the spec."""
        super().__init__(worker, name, spec)
        self.tidy_environment = spec.environment
        self.variant = spec.variant


class _DockerEnv(_Env):
    """A long-running container; each trial a ``docker exec``."""

    tidy_environment = "docker"

    def __init__(self, worker, name, spec: DockerEnv):
        """Name the container after the campaign and environment."""
        super().__init__(worker, name, spec)
        self.variant = docker.variant(spec.net, spec.storage, spec.runtime)
        self.container = docker.container_name(worker.run.campaign.name, name)
        # with NAT the servers listen in the container's own namespace
        self.shares_host_ports = spec.net == "host"

    def start(self) -> None:
        """Copy the runners to the host, then (re)create the container and record its facts."""
        conn = self.worker.conn()
        self.runners = _ensure_runners(conn, self.run.campaign.runners_dir())
        trials = f"{self.run.remote}/trials"
        _exec(conn, f"mkdir -p {trials}", 60)
        s = self.spec
        status, out, err = _exec(conn, docker.start_command(
            self.container, image=s.image, net=s.net, storage=s.storage, runtime=s.runtime,
            runners_dir=self.runners, trials_dir=trials,
            ports=self.run.campaign.server_ports(self.name), cpus=s.cpus,
            publish_address=self.loopback), 180)
        if status != 0:
            raise TrialFailed(f"docker run failed (exit {status})", _tail(out + err))
        self.facts = self.endpoint_facts_in_container(conn)
        status, out, _ = _exec(conn, docker.facts_command(self.container), 60)
        if status == 0:
            self.facts.update(docker.parse_facts(out))

    def endpoint_facts_in_container(self, conn) -> dict:
        """Return the facts as seen inside the container."""
        status, out, _ = _exec(conn, f"docker exec {shlex.quote(self.container)} sh -c "
                                     f"{shlex.quote(native.facts_command())}", 60)
        return native.parse_facts(out) if status == 0 else {}

    def ensure(self) -> None:
        """Start the container on first use, and restart it if it stopped since."""
        if self.started and not self.down and not self.is_running():
            self.started = False  # stopped under us (a host fault): start it again
            self.forget_started()
            self.run.manifest.event("environment-restart", environment=self.name,
                                    why="container was not running")
        super().ensure()

    def is_running(self) -> bool:
        """Whether the container runs."""
        try:
            status, out, _ = _exec(self.worker.conn(), docker.running_command(self.container), 60)
        except TrialFailed:
            return False
        return status == 0 and out.strip() == "true"

    def command(self, trial):
        """``docker exec`` of the runner, writing to the bind-mounted trials folder."""
        return docker.exec_command(self.container, trial.runner, trial.id, self.params_of(trial),
                                   trial.timeout)

    def files_dirs(self):
        """Copy files into the host's trials folder; the container sees it at its mount."""
        return f"{self.run.remote}/trials/.files", f"{docker.TRIALS_MOUNT}/.files"

    def runners_seen(self):
        """Return the runners folder as the container sees it (its read-only mount)."""
        return docker.RUNNERS_MOUNT

    def prepare(self, trial):
        """Kill a stale attempt inside the container; remove its files on the host."""
        return docker.prepare_command(self.container, trial.id, f"{self.run.remote}/trials")

    def listen(self, client_is_here):
        """Return the server's listen address: any in the container's namespace with NAT."""
        return "0.0.0.0" if self.spec.net == "nat" else super().listen(client_is_here)  # noqa: S104

    def server_command(self, benchmark, command):
        """Return ``docker exec -d`` of the server, its pid written into the trials mount."""
        pidf = f"{docker.TRIALS_MOUNT}/server-{self.name}-{benchmark}.pid"
        log = f"{docker.TRIALS_MOUNT}/server-{self.name}-{benchmark}.log"
        script = f"{_PID_LINE} > {pidf}; exec {command} > {log} 2>&1"
        return f"docker exec -d {shlex.quote(self.container)} sh -c {shlex.quote(script)}"

    def stale_server_command(self, benchmark):
        """Return the command forgetting a pid file an earlier container left.

        The container is made afresh when the environment starts, so no server of an earlier
        run can still be in it; the pid in the file would name another process of this one.
        """
        pidf, _ = _Env.server_files(self, benchmark)  # the host's path of the container's file
        return f"rm -f {pidf}"

    def server_stop_command(self, benchmark, sig="TERM"):
        """Return the command stopping the server inside the container (waits for it)."""
        pidf = f"{docker.TRIALS_MOUNT}/server-{self.name}-{benchmark}.pid"
        kill = (f"if [ -s {pidf} ]; then read -r p st < {pidf}; kill -{sig} $p; "
                f"{_wait_gone('$p')}; fi; rm -f {pidf}")
        return f"docker exec {shlex.quote(self.container)} sh -c {shlex.quote(kill)}; true"

    def diagnose(self, failure):
        """Say so when the container stopped during the trial.

        A runner killed by a signal (exit 137 or 143) may have died with its container while
        ``docker stop`` is still under way: the container shows as stopped a moment later, so
        it is asked again for up to 10 s before the failure is put down to something else.
        """
        if failure.exit_status in (137, 143):
            deadline = time.monotonic() + 10
            while self.is_running() and time.monotonic() < deadline:
                time.sleep(0.5)
        if not self.is_running():
            return TrialFailed(f"container {self.container} stopped during the trial "
                               f"({failure.cause})", failure.stderr, failure.exit_status)
        return failure

    def stop(self):
        """Remove the container and its scratch volume."""
        if self.started:
            _exec(self.worker.conn(), docker.stop_command(self.container, self.spec.storage), 120)


class _VmEnv(_Env):
    """A QEMU guest booted on the host, reached through the host's SSH (port forward)."""

    def __init__(self, worker, name, spec: VmEnv):
        """Prepare the guest's state folder name on the host."""
        super().__init__(worker, name, spec)
        self.state = f"{worker.run.remote}/vm-{name}"
        self.guest = None
        self.accel: str | None = None
        self.restarts = 0
        self.variant = spec.tuning
        self.tidy_environment = "vm"

    def _spec(self):
        """Return the QEMU spec of this environment (a qemu.VmSpec)."""
        from overhead.environments import qemu

        s = self.spec
        pinning = list(s.pinning) if s.pinning is not None else (
            list(range(s.vcpus)) if s.tuning == "tuned" else None)
        return qemu.VmSpec(name=f"overhead-{self.run.campaign.name}-{self.name}", vcpus=s.vcpus,
                           memory_mb=s.memory, tuning=s.tuning, pinning=pinning,
                           hugepages=s.hugepages, scratch_mb=s.scratch, disk_cache=s.disk_cache,
                           scratch_via=s.scratch_via, nfs=s.nfs, nfs_options=s.nfs_options)

    def start(self) -> None:
        """Probe the accelerator, boot the guest, wait for its SSH, copy the runners."""
        from overhead.environments import qemu

        conn = self.worker.conn()
        s = self.spec
        image = str(Path(s.image).resolve()) if self.worker.local else str(s.image)
        _exec(conn, qemu.stop_command(self.state) + f"; mkdir -p {self.state}", 60)
        probe_ok = False
        if s.accel in ("auto", "kvm"):
            status, out, err = _exec(conn, qemu.probe_command(image, s.probe_timeout),
                                     s.probe_timeout + WATCHDOG_SLACK)
            probe_ok = qemu.probe_succeeded(out + err)
        self.accel, reason = qemu.choose_accel(s.accel, probe_ok, self.name)
        self.run.manifest.event("accelerator", environment=self.name, accel=self.accel,
                                reason=reason)
        self.tidy_environment = "kvm" if self.accel == "kvm" else "vm"
        self.variant = s.tuning if self.accel == "kvm" else f"{s.tuning},accel=tcg"
        spec = self._spec()
        status, out, err = _exec(conn, qemu.boot_command(
            spec, image, self.state, s.ssh_port, self.accel,
            ports=self.run.campaign.server_ports(self.name), forward_address=self.loopback), 120)
        if status != 0:
            raise TrialFailed(f"QEMU did not start (exit {status})", _tail(out + err))
        booted = qemu.parse_boot(out)
        self.guest = self._wait_for_guest()
        scratch = "root disk (no scratch disk)"
        if s.scratch or s.scratch_via == "nfs-mount":
            status, out, err = _exec(self.guest, qemu.mount_scratch_command(spec=spec), 120)
            if status != 0:
                raise TrialFailed(f"the guest did not mount its scratch space ({s.scratch_via})",
                                  _tail(out + err))
            scratch = qemu.scratch_fact(spec, out)
        pinned = "none"
        if spec.pinning:
            status, out, err = _exec(conn, qemu.pin_command(self.state, spec.pinning), 60)
            pinned = qemu.parse_pinning(out) if status == 0 else f"failed: {_tail(err, 200)}"
        self.runners = _ensure_runners(self.guest, self.run.campaign.runners_dir())
        _exec(self.guest, f"mkdir -p {self.run.remote}/trials", 60)
        self.facts = self.endpoint_facts(self.guest)
        status, out, _ = _exec(conn, qemu.facts_command(), 60)
        host_facts = qemu.parse_facts(out) if status == 0 else {}
        self.facts.update({"qemu_version": host_facts.get("qemu_version"),
                           "accelerator": self.accel, "accel_reason": reason,
                           "vcpu_pinning": pinned,
                           "hugepages": booted.get("hugepages", "unknown"),
                           "vm_scratch_disk": scratch,
                           "vm_network": qemu.NETWORK,
                           "vcpus": s.vcpus, "memory_mb": s.memory})

    def _wait_for_guest(self):
        """Connect to the guest's SSH through the host until it answers (bounded)."""
        s = self.spec
        host = self.worker.host
        deadline = time.monotonic() + s.boot_timeout
        last = ""
        while time.monotonic() < deadline and not self.run.stop.is_set():
            if not self.qemu_alive():
                raise TrialFailed("QEMU exited during boot",
                                  self._serial_tail())
            try:
                return connect("127.0.0.1", s.ssh_port, s.user,
                               known_hosts=s.known_hosts or host.known_hosts,
                               key_file=s.key_file or host.key_file,
                               host_key_alias=s.host_key_alias, timeout=10,
                               keepalive=host.keepalive, gateway=self.worker.conn())
            except HostKeyError:
                raise
            except SSHError as exc:
                last = str(exc)
                time.sleep(2)
        raise TrialFailed(f"guest SSH did not answer within {s.boot_timeout:.0f} s ({last})",
                          self._serial_tail())

    def _serial_tail(self) -> str:
        """Return the end of the guest's serial console log (why a boot failed)."""
        try:
            _, out, _ = _exec(self.worker.conn(), f"tail -c 2000 {self.state}/serial.log", 30)
        except TrialFailed:
            return ""
        return out

    def qemu_alive(self) -> bool:
        """Whether the QEMU process named by the pidfile runs."""
        try:
            # kill -0 also answers for a zombie (this machine's PID 1 reaps late): read the state
            status, out, _ = _exec(self.worker.conn(),
                                   f"p=$(cat {self.state}/qemu.pid 2>/dev/null) && "
                                   f"sed 's/.*) //' /proc/$p/stat 2>/dev/null | cut -c1", 30)
        except TrialFailed:
            return False
        return status == 0 and out.strip() not in ("", "Z", "X")

    def ensure(self) -> None:
        """Boot on first use; boot again once if the guest died (then the VM is down)."""
        if self.started and not self.down and not (self.guest and _alive(self.guest)
                                                   and self.qemu_alive()):
            if self.restarts >= 1:
                self.down = "the VM died twice"
            else:
                self.restarts += 1
                self.started = False
                self.forget_started()
                self.run.manifest.event("environment-restart", environment=self.name,
                                        why="the VM was gone")
                self._close_guest()
        super().ensure()

    def conn(self):
        """Return the guest's connection."""
        if self.guest is None or not _alive(self.guest):
            raise TrialFailed(f"lost the VM {self.name}: its SSH connection is closed")
        return self.guest

    def listen(self, client_is_here):
        """Return any address: QEMU's port forward reaches the guest's own interface."""
        return "0.0.0.0"  # noqa: S104 - inside the guest, behind QEMU's user-mode network

    def diagnose(self, failure):
        """Say so when QEMU died during the trial."""
        if not self.qemu_alive():
            return TrialFailed(f"VM {self.name} is gone: QEMU exited during the trial "
                               f"({failure.cause})", failure.stderr, failure.exit_status)
        return failure

    def _close_guest(self):
        """Close the guest connection, if any."""
        if self.guest is not None:
            try:
                self.guest.close()
            except Exception:  # noqa: BLE001 - closing a dead connection may raise anything
                pass
            self.guest = None

    def stop(self):
        """Close the guest connection and stop QEMU by its pid."""
        from overhead.environments import qemu

        self._close_guest()
        try:
            _exec(self.worker.conn(), qemu.stop_command(self.state), 60)
        except (TrialFailed, SSHError):
            pass


class _ClientEnv(_Endpoint):
    """A load generator's trial: the runner runs on the client host against a server in ``env``.

    It stands in for the environment in :meth:`_Worker.execute` and :meth:`_Worker.finish`:
    commands and the trial directory are on the client, the labels (environment, variant)
    and diagnosis are the environment's.
    """

    def __init__(self, worker: _Worker, env: _Env, benchmark: str, bench):
        """Bind the environment, the benchmark and its client host."""
        self.worker, self.env, self.benchmark, self.bench = worker, env, benchmark, bench
        self.runners: str | None = None
        #: the server's address as the client reaches it
        self.target = env.address(bench.client == env.spec.host)

    def __getattr__(self, name):
        """Take the labels (name, spec, tidy_environment, variant) from the environment."""
        return getattr(self.env, name)

    def conn(self):
        """Return the client host's connection."""
        return self.worker.client_conn(self.bench.client)

    def ready(self) -> None:
        """Copy the runners to the client once; wait (bounded) until the server answers."""
        if self.runners is None:
            self.runners = _ensure_runners(self.conn(), self.worker.run.campaign.runners_dir())
            _exec(self.conn(), f"mkdir -p {self.worker.run.remote}/trials", 60)
        if self.bench.ready and not self.__dict__.get("answered"):
            command = self.expand(self.bench.ready.replace("{host}", self.target), self.benchmark)
            deadline = time.monotonic() + 30
            status, out, err = 1, "", ""
            while time.monotonic() < deadline:
                status, out, err = _exec(self.conn(), command, 15)
                if status == 0:
                    self.__dict__["answered"] = True
                    return
                time.sleep(0.5)
            raise TrialFailed(f"the server of {self.benchmark} in {self.env.name} did not answer "
                              f"`{command}` within 30 s", _tail(out + err))

    def trial_dir(self, trial: PlannedTrial) -> str:
        """Return the trial directory on the client."""
        return f"{self.worker.run.remote}/trials/{trial.id}"

    def command(self, trial: PlannedTrial) -> str:
        """Return the runner's command on the client, aimed at the server."""
        params = self.params_of(trial)
        params.setdefault(self.bench.target_param, self.target)
        return native.runner_command(self.runners, trial.runner, self.trial_dir(trial), params,
                                     trial.timeout, pgid_file=self.trial_dir(trial) + ".pgid")

    def prepare(self, trial: PlannedTrial) -> str:
        """Return the command that clears a stale attempt on the client."""
        return native.prepare_command(self.trial_dir(trial), self.trial_dir(trial) + ".pgid")

    def diagnose(self, failure: TrialFailed) -> TrialFailed:
        """Let the environment say what happened to it."""
        return self.env.diagnose(failure)

    @property
    def run(self) -> _Run:
        """The run (placeholders expand for the client host: its runners, files copied to it)."""
        return self.worker.run


_ENVS = {NativeEnv: _NativeEnv, StaticEnv: _StaticEnv, DockerEnv: _DockerEnv, VmEnv: _VmEnv}


# ---------------------------------------------------------------------------------------------
# one worker per host


def _connect_host(h: Host, what: str):
    """Connect to an inventory host; an SSH failure is the trial's (``lost <what>``).

    A refused host key (HostKeyError) is raised as is: it stops the campaign.
    """
    try:
        return connect(h.address, h.port, h.user, known_hosts=h.known_hosts,
                       key_file=h.key_file, host_key_alias=h.host_key_alias,
                       timeout=h.connect_timeout, keepalive=h.keepalive)
    except HostKeyError:
        raise
    except SSHError as exc:
        raise TrialFailed(f"lost {what}: {exc}") from None


class _Worker:
    """Runs one host's trials in plan order over one connection, in a thread of its own."""

    def __init__(self, run: _Run, host_name: str, trials: list[PlannedTrial]):
        """Bind the host and its trials; environments start on first use."""
        self.thread: threading.Thread | None = None
        self.run = run
        self.host_name = host_name
        self.host: Host = run.campaign.hosts[host_name]
        self.trials = trials
        self._conn = None
        self.envs: dict[str, _Env] = {}
        self.local = self.host.address in ("127.0.0.1", "localhost", "::1")
        self.previous: str | None = None
        self.clients: dict[str, object] = {}  # load generators' hosts -> connection
        self.proxies: dict[tuple[str, str], _ClientEnv] = {}
        self._cores: int | None = None
        self.position = 0
        self.error: BaseException | None = None

    def conn(self):
        """Return the host connection, reconnected when it broke (SSH failures: TrialFailed)."""
        if self._conn is not None and _alive(self._conn):
            return self._conn
        if self._conn is not None:
            try:
                self._conn.close()
            except Exception:  # noqa: BLE001 - a dead connection may fail to close
                pass
        self._conn = None
        self._conn = _connect_host(self.host, f"host {self.host_name}")
        return self._conn

    def cores(self) -> int | None:
        """Return the host's online CPUs (sampled once; the load flag is judged against them)."""
        if self._cores is None:
            status, out, _ = _exec(self.conn(), "getconf _NPROCESSORS_ONLN || nproc", 60)
            self._cores = int(out.strip()) if status == 0 and out.strip().isdigit() else 0
        return self._cores or None

    def client_conn(self, host_name: str):
        """Return the connection to a load generator's host (this host's own when the same)."""
        if host_name == self.host_name:
            return self.conn()
        conn = self.clients.get(host_name)
        if conn is not None and _alive(conn):
            return conn
        conn = _connect_host(self.run.campaign.hosts[host_name], f"the client host {host_name}")
        self.clients[host_name] = conn
        return conn

    def target(self, env: _Env, trial: PlannedTrial):
        """Return what a trial runs in: the environment, or a client aimed at a server in it."""
        bench = self.run.campaign.benchmarks[trial.benchmark]
        if not bench.client:
            return env
        key = (env.name, trial.benchmark)
        proxy = self.proxies.get(key)
        if proxy is None:
            proxy = self.proxies[key] = _ClientEnv(self, env, trial.benchmark, bench)
        env.ensure_server(trial.benchmark, bench, bench.client == env.spec.host)
        proxy.ready()
        return proxy

    def env(self, name: str) -> _Env:
        """Return the run-time environment ``name`` (created on first use)."""
        if name not in self.envs:
            spec = self.run.campaign.environments[name]
            self.envs[name] = _ENVS[type(spec)](self, name, spec)
        return self.envs[name]

    def run_trials(self) -> None:
        """Run every trial of this host, in order, until done or stopped."""
        for trial in self.trials:
            if self.run.stop.is_set():
                return
            self.one(trial)

    def start(self, trials: list[PlannedTrial]) -> None:
        """Run ``trials`` (this host's, in plan order) in a new thread."""
        self.trials = trials
        self.error = None
        self.thread = threading.Thread(target=self._main, name=f"overhead-{self.host_name}",
                                       daemon=True)
        self.thread.start()

    def is_alive(self) -> bool:
        """Whether the worker's thread still runs."""
        return self.thread is not None and self.thread.is_alive()

    def join(self, timeout: float) -> None:
        """Wait up to ``timeout`` seconds for the thread."""
        if self.thread is not None:
            self.thread.join(timeout)

    def _main(self) -> None:
        """Run the trials (the thread's body); an unexpected error stops the whole run."""
        try:
            self.run_trials()
        except BaseException as exc:  # noqa: BLE001 - reported by the main thread
            self.error = exc
            self.run.stop.set()

    def one(self, trial: PlannedTrial) -> None:
        """Run one trial and record its outcome."""
        r = self.run
        with r.lock:
            attempt = r.attempts.get(trial.id, 0) + 1
            r.attempts[trial.id] = attempt
        r.manifest.trial(trial.id, "running", attempt=attempt, environment=trial.environment,
                         benchmark=trial.benchmark, round=trial.round, host=self.host_name)
        started = time.monotonic()
        started_at = _now()
        setup = 0.0
        env = None
        try:
            env = self.env(trial.environment)
            t_env = time.monotonic()
            env.ensure()
            where = self.target(env, trial)
            setup = time.monotonic() - t_env
            measured, info = self.execute(where, trial)
            self.finish(where, trial, attempt, started_at, info)
        except TrialFailed as exc:
            if env is not None and not isinstance(exc, EnvironmentDown):
                try:
                    exc = env.diagnose(exc)
                except TrialFailed:
                    pass
            # the environment's labels go with the failure: an environment that never came
            # up has no facts file, and its failed trials must still say what they were
            labels = {} if env is None else {"tidy_environment": env.tidy_environment,
                                             "variant": env.variant}
            r.manifest.trial(trial.id, "failed", attempt=attempt, cause=exc.cause,
                             exit_status=exc.exit_status, stderr=_tail(exc.stderr),
                             environment=trial.environment, benchmark=trial.benchmark,
                             round=trial.round, host=self.host_name,
                             kept=str(exc.keep.relative_to(r.raw)) if exc.keep else None,
                             **labels)
            with r.lock:
                r.failed += 1
            r.progress("failed")
        else:
            with r.lock:
                r.done += 1
                r.durations.append(measured)
                r.overheads.append(time.monotonic() - started - measured - setup)
                r.setup += setup
            r.progress("done")
        finally:
            self.previous = trial.environment
            self.position += 1

    def execute(self, env: _Env, trial: PlannedTrial) -> tuple[float, dict]:
        """Run the trial's runner with noise samples around it; fetch its directory.

        Returns the runner's wall time (seconds, measured on the host) and what trial.json
        records about the run.
        """
        monitor = isinstance(env, _ClientEnv) and env.bench.monitor
        if monitor:
            env.env.start_monitor(trial.benchmark, env.bench.monitor)
        try:
            measured, info = self._execute(env, trial)
        finally:
            if monitor:
                text = env.env.stop_monitor(trial.benchmark)
        if monitor:
            if not text.strip():
                raise TrialFailed(f"the monitor `{env.bench.monitor}` in {env.env.name} "
                                  f"wrote nothing")
            info["_monitor"] = text
        return measured, info

    def _execute(self, env: _Env, trial: PlannedTrial) -> tuple[float, dict]:
        """Run the runner with noise samples around it (see :meth:`execute`)."""
        remote = env.trial_dir(trial)
        prep = env.prepare(trial)
        noise = analysis.noise_command(nproc=False)
        host_conn = self.conn()
        same = env.conn() is host_conn
        if same:
            # one round trip: noise, runner, noise (the runner's own output goes to files)
            cmd = (f"{prep}; {noise}; echo {_SEP}; t0=$(date +%s.%N); ( {env.command(trial)} ); "
                   f"s=$?; t1=$(date +%s.%N); echo {_SEP} $s $t0 $t1; {noise}")
            status, out, err = _exec(host_conn, cmd, trial.timeout + WATCHDOG_SLACK)
            before_text, _, rest = out.partition(_SEP)
            marker, _, after_text = rest.partition(_SEP)
            words = after_text.split("\n", 1)[0].split()
            after_text = after_text.split("\n", 1)[1] if "\n" in after_text else ""
            if len(words) != 3:
                raise TrialFailed(f"the trial's command did not finish normally (exit {status})",
                                  _tail(err + out))
            status, t0, t1 = int(words[0]), float(words[1]), float(words[2])
        else:
            _, before_text, _ = _exec(host_conn, noise, 60)
            _exec(env.conn(), prep, 60)
            t0 = time.monotonic()
            status, out, err = _exec(env.conn(), env.command(trial), trial.timeout + WATCHDOG_SLACK)
            t1 = time.monotonic()
            _, after_text, _ = _exec(host_conn, noise, 60)
        before = analysis.parse_noise(before_text)
        after = analysis.parse_noise(after_text)
        info = {"noise": {"before": before, "after": after},
                "noise_flags": analysis.noise_flags(before, after, cores=self.cores()),
                "duration_s": round(t1 - t0, 6)}
        if status != 0:
            keep = self.keep_failed(env, trial, remote)
            stderr = err
            if keep is not None and (keep / "stderr").exists():
                stderr = (keep / "stderr").read_text(errors="replace")
            elapsed = t1 - t0
            if status in (124, 137) and keep is None and elapsed >= round(trial.timeout) - 0.5:
                cause = f"timeout: the runner ran past {trial.timeout:.0f} s and was killed"
            elif status in (137, 143) and keep is None:
                # killed from outside before its timeout: a stopped container, an OOM kill
                sig = "KILL" if status == 137 else "TERM"
                cause = (f"the runner was killed (SIG{sig}, exit {status}) after {elapsed:.1f} "
                         f"s, before its {trial.timeout:.0f} s timeout")
            elif keep is not None:
                cause = f"{trial.runner} runner's tool exited with status {status}"
            else:
                cause = f"runner exited with status {status}"
            raise TrialFailed(cause, _tail(stderr + out), status, keep)
        return t1 - t0, info

    def fetch(self, env: _Env, remote: str, local: Path) -> None:
        """Copy the trial directory from the endpoint (SFTP on the environment's connection)."""
        _fetch(env.conn(), remote, local)

    def keep_failed(self, env: _Env, trial: PlannedTrial, remote: str) -> Path | None:
        """Fetch a failed runner's trial directory into failed/ (None if it left none)."""
        r = self.run
        dest = failed_dir(r.raw, trial, r.attempts[trial.id])
        try:
            if dest.exists():
                shutil.rmtree(dest)
            self.fetch(env, remote, dest)
        except (OSError, TrialFailed):
            shutil.rmtree(dest, ignore_errors=True)
            return None
        if not (dest / META).exists():
            return None
        return dest

    def finish(self, env: _Env, trial: PlannedTrial, attempt: int, started_at: str,
               info: dict) -> None:
        """Fetch the trial directory, write trial.json, rename into place, record done."""
        r = self.run
        final = trial_dir(r.raw, trial)
        partial = partial_dir(final)
        if partial.exists():
            shutil.rmtree(partial)
        remote = env.trial_dir(trial)
        try:
            self.fetch(env, remote, partial)
        except OSError as exc:
            shutil.rmtree(partial, ignore_errors=True)
            raise TrialFailed(f"fetching {remote} failed ({exc})") from None
        if not (partial / META).exists():
            shutil.rmtree(partial, ignore_errors=True)
            raise TrialFailed(f"the runner exited 0 but left no meta in {remote}")
        monitor = info.pop("_monitor", None)
        if monitor is not None:
            (partial / "monitor").write_text(monitor)
            info["sidecars"] = {"monitor": env.bench.monitor_parser}
        record = {
            "id": trial.id, "campaign": r.campaign.name, "environment": trial.environment,
            "kind": env.spec.kind, "tidy_environment": env.tidy_environment,
            "variant": env.variant, "host": self.host_name, "benchmark": trial.benchmark,
            "runner": trial.runner, "params": trial.params, "cell": trial.cell,
            "round": trial.round, "position": self.position, "plan_position": trial.position,
            "warmup": trial.warmup, "previous": self.previous, "attempt": attempt,
            "client": getattr(env, "bench", None) and env.bench.client,
            "target": getattr(env, "target", None) if isinstance(env, _ClientEnv) else None,
            "status": "done", "started_at": started_at, "finished_at": _now(), **info,
        }
        (partial / TRIAL_JSON).write_text(json.dumps(record, indent=1, default=str))
        _sync_tree(partial)
        os.rename(partial, final)
        _fsync_dir(final.parent)
        r.manifest.trial(trial.id, "done", attempt=attempt, environment=trial.environment,
                         benchmark=trial.benchmark, round=trial.round, host=self.host_name,
                         duration_s=info["duration_s"], noise_flags=info["noise_flags"])

    def teardown(self) -> None:
        """Stop every environment this worker started, then close the connection."""
        for env in self.envs.values():
            try:
                if env.started:
                    env.stop_servers()
                if env.started or isinstance(env, _VmEnv):
                    env.stop()
                    self.run.manifest.event("environment-stopped", environment=env.name)
            except (TrialFailed, SSHError, OverheadError):
                pass
        for conn in self.clients.values():
            try:
                if _alive(conn):
                    _exec(conn, f"rm -rf {self.run.remote}/trials", 60)
                conn.close()
            except Exception:  # noqa: BLE001 - best effort at the end
                pass
        if self._conn is not None:
            try:
                if _alive(self._conn):
                    _exec(self._conn, f"rm -rf {self.run.remote}/trials", 60)
                self._conn.close()
            except (TrialFailed, Exception):  # noqa: BLE001 - best effort at the end
                pass


# ---------------------------------------------------------------------------------------------
# the run


@dataclass
class RunResult:
    """What ``overhead run`` did."""

    planned: int
    done: int
    failed: int
    skipped_done: int
    failures: dict[str, str]
    seconds: float
    durations: list[float]
    overheads: list[float]
    stops: dict[str, str]
    interrupted: bool = False
    setup_seconds: float | None = None


def _finished(raw: Path, plan: Plan) -> set[str]:
    """Return the plan's trials whose local meta exists, after removing stale .partial dirs."""
    done = set()
    for t in plan.trials:
        final = trial_dir(raw, t)
        partial = partial_dir(final)
        if partial.exists():
            shutil.rmtree(partial)
        if (final / META).exists():
            done.add(t.id)
    return done


def _cell_values(raw: Path, plan: Plan, metric: str) -> dict[str, list[float]]:
    """Each cell's measured (non-warm-up) values of ``metric`` from the finished trials."""
    from overhead.runners import read_trial

    values: dict[str, list[float]] = {}
    for t in plan.trials:
        path = trial_dir(raw, t)
        if t.warmup or not (path / META).exists():
            continue
        tr = read_trial(path)
        if tr.measurements is None:
            continue
        rows = tr.measurements[tr.measurements["metric"] == metric]
        values.setdefault(t.cell, []).extend(float(v) for v in rows["value"].dropna())
    return values


def run_campaign(campaign: Campaign, *, raw_root: Path | None = None, retries: int = 0,
                 progress: bool = True) -> RunResult:
    """Start or resume a campaign.

    Parameters
    ----------
    campaign : Campaign
        The campaign (:func:`overhead.campaign.inventory.load`).
    raw_root : path, optional
        Where raw trees go (default data/raw); the campaign's is ``raw_root/<name>``.
    retries : int
        Re-runs allowed for a failed trial (over every ``run`` of the campaign).
    progress : bool
        Show a tqdm bar (done, failed, time left).

    Returns
    -------
    RunResult
        Counts, failures with causes, and the per-trial durations and harness overheads.
    """
    from tqdm import tqdm

    from overhead.paths import DATA

    raw = (raw_root or DATA / "raw") / campaign.name
    raw.mkdir(parents=True, exist_ok=True)
    if campaign.path is not None:
        shutil.copyfile(campaign.path, raw / CAMPAIGN_COPY)
    t_start = time.monotonic()
    stop = threading.Event()
    bar = tqdm(total=0, unit="trial", disable=not progress, dynamic_ncols=True)
    counts = {"done": 0, "failed": 0}
    bar_lock = threading.Lock()

    def tick(what: str) -> None:
        with bar_lock:
            counts[what] += 1
            bar.set_postfix(done=counts["done"], failed=counts["failed"], refresh=False)
            bar.update(1)

    manifest = Manifest(raw / MANIFEST)
    run = _Run(campaign, raw, manifest, retries, stop, tick, _git_sha())
    manifest.event("start", campaign=campaign.name, campaign_hash=campaign.sha256,
                   pid=os.getpid(), git_sha=run.git_sha)
    previous_handlers = {}

    def on_signal(signum, frame):
        stop.set()
        raise KeyboardInterrupt

    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            previous_handlers[sig] = signal.signal(sig, on_signal)
    plan = make_plan(campaign)
    workers: dict[str, _Worker] = {}
    interrupted = False
    planned_total = skipped = 0
    first = True
    failures: dict[str, str] = {}
    try:
        while True:
            records = read_records(raw / MANIFEST)
            finished = _finished(raw, plan)
            state = resume([t.id for t in plan.trials], records, finished, retries)
            for tid in sorted(state.recovered):
                manifest.trial(tid, "done", recovered=True)
            by_id = plan.by_id()
            for tid, att in state.attempts.items():
                run.attempts[tid] = att
            failures.update(state.failed)
            todo = [by_id[t] for t in state.todo]
            planned_total = len(plan.trials)
            if first:
                skipped, first = len(state.done), False
            bar.total = (bar.total or 0) + len(todo)
            bar.refresh()
            if todo:
                per_host: dict[str, list[PlannedTrial]] = {}
                for t in todo:
                    per_host.setdefault(t.host, []).append(t)
                threads = []
                for host, trials in per_host.items():
                    w = workers.get(host) or workers.setdefault(host, _Worker(run, host, trials))
                    threads.append(w)
                    w.start(trials)
                for w in threads:
                    while w.is_alive():
                        w.join(0.2)
                errors = [w.error for w in threads if w.error is not None]
                if errors:
                    raise errors[0]
                if stop.is_set():
                    interrupted = True
                    break
                continue  # re-read: retries of failures, then the stopping rule
            if campaign.stopping is None:
                break
            values = _cell_values(raw, plan, campaign.stopping.metric)
            longer = extend(plan, campaign, values)
            if len(longer.trials) == len(plan.trials):
                plan = longer
                break
            plan = longer
    except KeyboardInterrupt:
        interrupted = True
        stop.set()
        for w in workers.values():
            while w.is_alive():
                w.join(0.2)
    finally:
        for w in workers.values():
            w.teardown()
        for sig, handler in previous_handlers.items():
            signal.signal(sig, handler)
        manifest.event("stop", interrupted=interrupted, done=run.done, failed=run.failed)
        (raw / PLAN).write_text(json.dumps(plan.to_json(), indent=1, default=str))
        manifest.close()
        bar.close()
    last = last_records(read_records(raw / MANIFEST))
    failures = {tid: str(rec.get("cause")) for tid, rec in last.items()
                if rec.get("state") == "failed" and tid in plan.by_id()}
    return RunResult(planned_total, run.done, run.failed, skipped, failures,
                     time.monotonic() - t_start, run.durations, run.overheads, plan.stops,
                     interrupted, run.setup)
