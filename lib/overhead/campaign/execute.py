"""Run a campaign's trials over SSH: one worker per host, crash-safe, fault-tolerant.

Each inventory host gets one worker thread that owns its SSH connection (and the connections to
the VMs it runs) and runs that host's trials in plan order, so environments that share a machine
never run at the same time, while several hosts run in parallel. What an environment is and how
it starts, runs a trial and stops is :mod:`overhead.environments`' (one file per kind); the
worker gives each one a :class:`~overhead.environments.base.Context` and runs the trials.

For every trial the worker records ``running`` in the manifest, runs the runner under a remote
``timeout -k`` with a local watchdog, fetches the runner's trial directory into a local
``<trial-id>.partial``, writes ``trial.json`` beside it, fsyncs, renames it into
``data/raw/<campaign>/<environment>/<benchmark>/<trial-id>/`` (:mod:`~overhead.campaign.layout`)
and only then records ``done``. A trial is done when, and only when, its local ``meta`` exists.
A failure (non-zero exit, timeout, lost host, an environment that did not start) is recorded
with its cause and stderr and the campaign goes on; the raw files of a runner that failed are
kept under ``failed/<environment>/<benchmark>/<trial-id>.<attempt>/`` for diagnosis. The
workers report to one listener, which writes the manifest and moves the progress bar.

Nothing else runs beside a trial (the campaign's ``isolation``): before each trial the other
environments of its host are paused (containers frozen, a VM's vCPUs stopped, native servers
SIGSTOPped) and the trial's own resumed; a load generator that shares the host with its server
runs on CPUs of its own (taskset), the server side on the others. Before and after each trial
the worker samples the host's load, swap and throttle counters, its CPU time (/proc/stat) and
the CPU time of the environment's cgroup: what ran outside the trial's cgroup, and the steal of
the host's own hypervisor, flag the trial (:func:`overhead.campaign.analysis.interference`);
a trial so flagged is moved to ``interfered/`` (kept, never a result) and run again, up to
``isolation.reruns`` times, after which its last attempt stays in place marked ``excluded``.
Load, swap and throttle flags only inform.

Stopping: a first SIGINT or SIGTERM lets the trials in flight finish (a VM boot for one
included), records them, tears the environments down and exits; a second stops now: the
commands in progress are abandoned, the trials in flight are killed on their endpoints and
recorded ``interrupted`` (a resume runs them again, and their attempt is not spent). Teardown
runs only after every worker has returned. Every wait on a host is bounded
(:class:`~overhead.environments.remote.Liveness`): a host that stops answering fails its trial
in flight with ``host not responding`` within ``connect_timeout + 2 * keepalive`` seconds;
its worker then waits up to the host's ``hang_wait`` for it to answer a new connection (tried
at most every ``connect_timeout + keepalive`` seconds) and runs that trial again, or past the
wait fails it and the host's further trials at once; the other hosts' workers are not affected.
"""

from __future__ import annotations

import collections
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

from overhead import locks
from overhead.campaign import analysis
from overhead.campaign.durable import fsync_dir, full_disk_is_disk_full, sync_tree, write_atomic
from overhead.campaign.inventory import Campaign, Host
from overhead.campaign.layout import (
    CAMPAIGN_COPY,
    CAMPAIGN_RESOLVED,
    MANIFEST,
    META,
    PLAN,
    RUN_LOCK,
    TRIAL_JSON,
    facts_path,
    failed_dir,
    interfered_dir,
    last_records,
    partial_dir,
    read_records,
    trial_dir,
)
from overhead.campaign.manifest import Manifest, resume
from overhead.campaign.plan import Plan, PlannedTrial, extend, make_plan
from overhead.environments import posix, registry
from overhead.environments.base import (
    WATCHDOG_SLACK,
    Context,
    Environment,
    EnvironmentDown,
    TrialFailed,
    listening_conflicts,  # noqa: F401 - importable here, as before the environments moved
    tail,
)
from overhead.environments.client import ClientEndpoint
from overhead.environments.connect import HostKeyError, SSHError, connect
from overhead.environments.failures import HostNotResponding, Interrupted
from overhead.environments.posix import KILL_AFTER
from overhead.environments.remote import REMOTE_BASE, Remote
from overhead.errors import DiskFull, HostBusy, OverheadError

__all__ = ["REMOTE_BASE", "RunResult", "run_campaign", "trial_dir"]

_SEP = "@@overhead@@"
#: The environments' base under the name it had here (tests import it).
_Env = Environment


def _now() -> str:
    """Return the current UTC time as ISO 8601 with microseconds and Z."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _git_sha() -> str | None:
    """Return the checkout's commit (provenance), or None outside a git checkout."""
    from overhead.paths import ROOT

    try:
        out = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True,
                             text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


# ---------------------------------------------------------------------------------------------
# shared state of one `overhead run`


class _Listener:
    """Where the workers' news goes: the manifest (every state change, fsynced) and the bar."""

    def __init__(self, manifest: Manifest, bar):
        """Bind the manifest and the tqdm bar (counts of done and failed trials on it)."""
        self.manifest = manifest
        self.bar = bar
        self.counts = {"done": 0, "failed": 0, "interfered": 0}
        self._lock = threading.Lock()

    def trial(self, trial_id: str, state: str, **fields) -> None:
        """Record a trial's state change in the manifest."""
        self.manifest.trial(trial_id, state, **fields)

    def event(self, event: str, **fields) -> None:
        """Record a campaign event in the manifest (environments record theirs here)."""
        self.manifest.event(event, **fields)

    def tick(self, what: str) -> None:
        """Count a trial that ended (``done`` or ``failed``) on the bar."""
        with self._lock:
            self.counts[what] += 1
            self.bar.set_postfix(done=self.counts["done"], failed=self.counts["failed"],
                                 rerun=self.counts["interfered"], refresh=False)
            self.bar.update(1)

    def expect(self, trials: int) -> None:
        """Add trials about to run to the bar's total."""
        self.bar.total = (self.bar.total or 0) + trials
        self.bar.refresh()

    def close(self) -> None:
        """Close the manifest and the bar."""
        self.manifest.close()
        self.bar.close()


@dataclass
class _Run:
    """What every worker of one run shares: campaign, paths, listener, stop flag, counts."""

    campaign: Campaign
    raw: Path
    listener: _Listener
    retries: int
    stop: threading.Event
    git_sha: str | None
    #: set by a second signal: stop now (commands in progress end, trials are interrupted)
    abort: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    attempts: dict[str, int] = field(default_factory=dict)
    #: trial id -> attempts so far moved to interfered/ (from the manifest)
    interfered: dict[str, int] = field(default_factory=dict)
    #: trials the manifest says were started before (a runner of theirs may still run on the
    #: endpoint if its controller died): their preparation sweeps for what is left of them
    started: set[str] = field(default_factory=set)
    done: int = 0
    failed: int = 0
    durations: list[float] = field(default_factory=list)
    overheads: list[float] = field(default_factory=list)
    setup: float = 0.0  # seconds spent starting environments (connections, runners, boots)

    @property
    def remote(self) -> str:
        """The campaign's folder on every endpoint."""
        return f"{REMOTE_BASE}/{self.campaign.name}"


# ---------------------------------------------------------------------------------------------
# one worker per host


def responsive(h: Host) -> float:
    """Seconds an inventory host's SSH server may leave a request unanswered (then: hung)."""
    return h.connect_timeout + h.keepalive


def _connect_host(h: Host, what: str, interrupt: threading.Event | None = None, *,
                  known: bool = False) -> Remote:
    """Connect to an inventory host; an SSH failure is the trial's.

    The cause is ``lost <what>``, or ``host not responding`` when its SSH server accepted but
    did not answer in time. A host that refuses the connection (its sshd restarting: a
    reboot) is tried again every half second for up to its ``connect_timeout``, so that a host
    back within that bound costs no trial.

    A refused host key: on the run's first connection to the host (``known`` False: a key
    never accepted in this run, a mistake in known_hosts) HostKeyError is raised as is and
    stops the campaign before anything runs there; once the host was reached with its
    recorded key (``known``), a changed key fails the trial with ``host key refused`` (nothing
    runs there; the other hosts go on).
    """
    deadline = time.monotonic() + h.connect_timeout
    while True:
        try:
            return Remote(connect(h.address, h.port, h.user, known_hosts=h.known_hosts,
                                  key_file=h.key_file, host_key_alias=h.host_key_alias,
                                  timeout=h.connect_timeout, keepalive=h.keepalive),
                          keepalive=h.keepalive, responsive=responsive(h), interrupt=interrupt)
        except HostKeyError as exc:
            if not known:
                raise
            raise TrialFailed(f"host key refused: {what}: {exc}") from None
        except SSHError as exc:
            if exc.refused and time.monotonic() + 0.5 < deadline and not (
                    interrupt is not None and interrupt.is_set()):
                time.sleep(0.5)
                continue
            if exc.timed_out:
                raise HostNotResponding(f"host not responding: {what} ({exc})") from None
            raise TrialFailed(f"lost {what}: {exc}") from None


#: What a tool or shell writes when the file system it writes on is full (ENOSPC, EDQUOT).
_DISK_FULL = ("No space left on device", "Disk quota exceeded")


def _storage_fault(exc: TrialFailed, host: str) -> TrialFailed:
    """Name a full disk on the host in a failed trial's cause (its stderr says so)."""
    said = next((w for w in _DISK_FULL if w in (exc.stderr or "")), None)
    if said is None or said in exc.cause:
        return exc
    named = TrialFailed(f"disk full on host {host} ({said}): {exc.cause}", exc.stderr,
                        exc.exit_status, exc.keep)
    return named


class _Worker:
    """Runs one host's trials in plan order over one connection, in a thread of its own."""

    def __init__(self, run: _Run, host_name: str, trials: list[PlannedTrial]):
        """Bind the host and its trials; environments start on first use."""
        self.thread: threading.Thread | None = None
        self.run = run
        self.host_name = host_name
        self.host: Host = run.campaign.hosts[host_name]
        self.trials = trials
        self._conn: Remote | None = None
        self.envs: dict[str, Environment] = {}
        self.local = self.host.address in ("127.0.0.1", "localhost", "::1")
        self.previous: str | None = None
        self.clients: dict[str, Remote] = {}  # load generators' hosts -> connection
        self.proxies: dict[tuple[str, str], ClientEndpoint] = {}
        self._cores: int | None = None
        self._clk_tck: int | None = None
        self.position = 0
        self.error: BaseException | None = None
        self.silent: tuple[float, str] | None = None  # when the host last did not answer, why
        self.hung_since: float | None = None  # when its trials began waiting for it (hang_wait)
        self.reached: set[str] = set()  # hosts reached with their recorded key in this run
        # the host's last trials: whether each was disturbed (a busy host is said, not fought)
        self.recent: collections.deque = collections.deque(
            maxlen=run.campaign.isolation.busy_window)

    def conn(self) -> Remote:
        """Return the host connection, reconnected when it broke (SSH failures: TrialFailed).

        After the host stopped answering, a new connection is tried at most every
        ``connect_timeout + keepalive`` seconds; in between, ``host not responding`` at once.
        """
        if self._conn is not None and self._conn.alive():
            return self._conn
        if self._conn is not None:
            try:
                self._conn.close()
            except Exception:  # noqa: BLE001 - a dead connection may fail to close
                pass
        self._conn = None
        if self.silent is not None:
            since, why = self.silent
            wait = responsive(self.host) - (time.monotonic() - since)
            if wait > 0:
                raise HostNotResponding(f"{why} (a new connection is tried in {wait:.0f} s)")
        try:
            self._conn = _connect_host(self.host, f"host {self.host_name}", self.run.abort,
                                       known=self.host_name in self.reached)
        except HostNotResponding as exc:
            self.silent = (time.monotonic(), exc.cause)
            raise
        self.silent = None
        self.hung_since = None
        self.reached.add(self.host_name)
        return self._conn

    def cores(self) -> int | None:
        """Return the host's online CPUs (sampled once; the load flag is judged against them)."""
        if self._cores is None:
            status, out, _ = self.conn().exec(
                "getconf _NPROCESSORS_ONLN || nproc; getconf CLK_TCK", 60)
            words = out.split() if status == 0 else []
            self._cores = int(words[0]) if words and words[0].isdigit() else 0
            self._clk_tck = int(words[1]) if len(words) > 1 and words[1].isdigit() else 0
        return self._cores or None

    def clk_tck(self) -> int | None:
        """Return the clock ticks per second of the host's /proc/stat (sampled with cores)."""
        self.cores()
        return self._clk_tck or None

    def placement(self, env: Environment, benchmark: str) -> tuple[str | None, str | None]:
        """Return the CPUs of a load generator and of its server's side, (None, None): anywhere.

        With ``isolation.placement: auto`` and a client on the server's own host of two or more
        CPUs, the client gets the first half of them and the server the rest.
        """
        client = self.run.campaign.client_host(benchmark, env.name)
        if (self.run.campaign.isolation.placement != "auto" or not client
                or client != env.spec.host):
            return None, None
        n = self.cores() or 0
        if n < 2:
            return None, None
        half = n // 2

        def span(a: int, b: int) -> str:
            return str(a) if a == b else f"{a}-{b}"

        return span(0, half - 1), span(half, n - 1)

    def activate(self, env: Environment) -> dict[str, str]:
        """Pause this host's other environments, resume ``env``; return what stood idle how.

        A pause that fails is recorded (event ``pause-failed``) and the environment is said
        ``running`` in the trial's record: its trial is not hidden, it is flagged if it
        disturbed the measured one.
        """
        idle: dict[str, str] = {}
        pause = self.run.campaign.isolation.pause_idle
        for other in self.envs.values():
            if other is env or not other.started or other.down:
                continue
            if pause and not other.paused:
                try:
                    other.pause()
                except (TrialFailed, OverheadError) as exc:
                    self.run.listener.event("pause-failed", environment=other.name,
                                            cause=str(exc))
            idle[other.name] = "paused" if other.paused else "running"
        if env.paused:
            try:
                env.resume()
            except (TrialFailed, OverheadError) as exc:
                env.paused = False  # ensure() finds out what is left of it
                self.run.listener.event("resume-failed", environment=env.name, cause=str(exc))
        return idle

    def client_conn(self, host_name: str) -> Remote:
        """Return the connection to a load generator's host (this host's own when the same)."""
        if host_name == self.host_name:
            return self.conn()
        conn = self.clients.get(host_name)
        if conn is not None and conn.alive():
            return conn
        conn = _connect_host(self.run.campaign.hosts[host_name], f"the client host {host_name}",
                             self.run.abort, known=host_name in self.reached)
        self.reached.add(host_name)
        self.clients[host_name] = conn
        return conn

    def target(self, env: Environment, trial: PlannedTrial):
        """Return what a trial runs in: the environment, or a client aimed at a server in it."""
        bench = self.run.campaign.benchmarks[trial.benchmark]
        if not bench.client:
            return env
        key = (env.name, trial.benchmark)
        proxy = self.proxies.get(key)
        client_cpus, server_cpus = self.placement(env, trial.benchmark)
        client = self.run.campaign.client_host(trial.benchmark, env.name)
        if proxy is None:
            ctx = replace(env.ctx, host=lambda: self.client_conn(client))
            proxy = self.proxies[key] = ClientEndpoint(ctx, env, trial.benchmark, bench, client)
        proxy.cpus, proxy.server_cpus = client_cpus, server_cpus
        env.ensure_server(trial.benchmark, bench, client == env.spec.host, server_cpus)
        proxy.ready()
        return proxy

    def env(self, name: str) -> Environment:
        """Return the run-time environment ``name`` (created on first use)."""
        if name not in self.envs:
            spec = self.run.campaign.environments[name]
            self.envs[name] = registry.environment_class(spec.kind)(self.context(name, spec))
        return self.envs[name]

    def context(self, name: str, spec) -> Context:
        """Return what environment ``name`` (of this host) is given: the campaign's part in it."""
        c, r = self.run.campaign, self.run
        return Context(
            name=name, spec=spec, campaign=c.name, folder=r.remote, runners_dir=c.runners_dir(),
            files=c.files, campaign_dir=None if c.path is None else Path(c.path).parent,
            loopback=f"127.0.0.{c.host_index(name) + 1}",
            address=c.hosts[spec.host].bench_address or c.hosts[spec.host].address,
            remote_clients=c.remote_clients(name),
            cgroup=posix.cgroup_name(c.name, name),
            server_ports=c.server_ports(name),
            port_offsets={b: c.port_offset(name, b) for b in c.benchmarks}, host=self.conn,
            known_hosts=self.host.known_hosts, key_file=self.host.key_file,
            keepalive=self.host.keepalive, ssh_port=self.host.port,
            host_key_alias=self.host.host_key_alias, local=self.local, event=r.listener.event,
            stop=r.abort)

    def write_facts(self, env: Environment) -> None:
        """Write ``facts/<environment>.json`` (provenance once per environment start)."""
        facts = {**env.facts_record(), "git_sha": self.run.git_sha,
                 "campaign_hash": self.run.campaign.sha256}
        path = facts_path(self.run.raw, env.name)
        with full_disk_is_disk_full(path):
            path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, json.dumps(facts, indent=1, default=str))

    def run_trials(self) -> None:
        """Run every trial of this host, in order, until done or stopped."""
        for trial in self.trials:
            if self.run.stop.is_set() or self.run.abort.is_set():
                return
            self.check_busy()
            self.one(trial)

    def check_busy(self) -> None:
        """Wait for the host to be quiet when most of its last trials were disturbed.

        When ``isolation.busy_share`` of the host's last ``busy_window`` trials were flagged
        for interference, the trials are not re-run into the disturbance: every environment
        of the host is paused and the host's CPU time outside the campaign is sampled in
        5-second windows for up to ``busy_wait`` seconds. Two quiet windows in a row and the
        run goes on; otherwise :class:`~overhead.errors.HostBusy` stops it, saying how busy
        the host was and with what (the processes that took its CPU time while it waited).
        """
        iso = self.run.campaign.isolation
        if len(self.recent) < iso.busy_window or sum(self.recent) < iso.busy_share * len(self.recent):
            return
        flagged = sum(self.recent)
        for env in self.envs.values():
            if env.started and not env.down and not env.paused and iso.pause_idle:
                try:
                    env.pause()
                except (TrialFailed, OverheadError):
                    pass
        self.run.listener.event("host-busy-wait", host=self.host_name, flagged=flagged,
                                of=len(self.recent), wait_s=iso.busy_wait)
        deadline = time.monotonic() + iso.busy_wait
        quiet, worst, top = 0, 0.0, []
        while time.monotonic() < deadline and not self.run.stop.is_set():
            share, top_now = self.sample_outside(5.0)
            if share is not None and share <= iso.outside:
                quiet += 1
                if quiet >= 2:
                    self.recent.clear()
                    self.run.listener.event("host-quiet", host=self.host_name,
                                            waited_s=round(iso.busy_wait - (deadline - time.monotonic()), 1))
                    return
            else:
                quiet = 0
                if share is not None and share >= worst:
                    worst, top = share, top_now
        if self.run.stop.is_set():
            return
        who = ", ".join(f"{name} (pid {pid}) {pct:.0f}% of a CPU" for pid, name, pct in top[:3]) \
            or "processes too short-lived to be named"
        raise HostBusy(
            f"host {self.host_name} is busy: {flagged} of its last {len(self.recent)} trials were "
            f"disturbed by work outside the campaign, and in {iso.busy_wait:.0f} s of waiting it "
            f"did not quiet down (work outside the campaign took up to {100 * worst:.0f}% of its "
            f"CPU time; busiest: {who}). Stopped: the finished "
            "trials are kept; run again when the host is quiet")

    def sample_outside(self, seconds: float) -> tuple[float | None, list[tuple[int, str, float]]]:
        """Return the host's CPU share outside the campaign over ``seconds``, and who took it.

        The share is the CPU time outside the campaign's cgroups (the host's busy time where
        there is no cgroup accounting) over the host's CPU time; who took it is the busiest
        processes (pid, name, percent of a CPU) between two reads of /proc/*/stat.
        """
        parent = posix.cgroup_name(self.run.campaign.name, "x").rsplit("/", 1)[0]
        noise = analysis.noise_command(nproc=False, cgroup=parent)
        procs = "cat /proc/[0-9]*/stat 2>/dev/null"
        cmd = (f"{noise}; echo {_SEP}; {procs}; echo {_SEP}; sleep {seconds:g}; {noise}; "
               f"echo {_SEP}; {procs}")
        try:
            status, out, _ = self.conn().exec(cmd, seconds + 60)
        except (TrialFailed, SSHError):
            return None, []
        parts = out.split(_SEP)
        if len(parts) != 4:
            return None, []
        before, after = analysis.parse_noise(parts[0]), analysis.parse_noise(parts[2])
        seen = analysis.interference(before, after, seconds=seconds, cores=self.cores(),
                                     clk_tck=self.clk_tck())
        cores, tck = self.cores() or 1, self.clk_tck() or 100
        outside = seen.get("outside_s")
        if outside is None:  # no cgroup accounting: the host's busy time
            outside = seen.get("busy_s")
        # CPU-seconds in clock ticks: a full host can read a tick over its wall time
        share = None if outside is None else min(max(outside, 0.0) / (cores * seconds), 1.0)
        return share, _top_processes(parts[1], parts[3], seconds, tck)

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
        """Run one trial and record its outcome.

        A trial whose host stopped answering is run again once the host answers a new
        connection within ``hang_wait`` (:meth:`wait_for_host`); its attempt is given back.
        """
        while self._one(trial):
            pass

    def wait_for_host(self, cause: str) -> bool:
        """Wait (bounded) for a host that stopped answering; True when it answers again.

        The wait of one silence is ``hang_wait`` seconds from when the host first did not
        answer, whatever trials it spans: past it (or when the run stops) False, and the
        host's trials fail as before until it answers. A new connection is tried every
        ``connect_timeout + keepalive`` seconds (:meth:`conn`).
        """
        r = self.run
        if self.hung_since is None:
            self.hung_since = time.monotonic()
            r.listener.event("host-hung", host=self.host_name, cause=cause,
                             wait_s=self.host.hang_wait)
        since = self.hung_since
        deadline = since + self.host.hang_wait
        while time.monotonic() < deadline and not (r.stop.is_set() or r.abort.is_set()):
            try:
                self.conn()
            except HostNotResponding:
                r.abort.wait(min(1.0, max(deadline - time.monotonic(), 0.0)))
                continue
            except TrialFailed:  # refused, then back: try again within the bound
                r.abort.wait(min(1.0, max(deadline - time.monotonic(), 0.0)))
                continue
            r.listener.event("host-back", host=self.host_name,
                             silent_s=round(time.monotonic() - since, 1))
            self.hung_since = None
            return True
        return False

    def _one(self, trial: PlannedTrial) -> bool:
        """Run one trial once and record its outcome; True: run it again (its host is back)."""
        r = self.run
        with r.lock:
            attempt = r.attempts.get(trial.id, 0) + 1
            r.attempts[trial.id] = attempt
        r.listener.trial(trial.id, "running", attempt=attempt, environment=trial.environment,
                         benchmark=trial.benchmark, round=trial.round, host=self.host_name)
        started = time.monotonic()
        started_at = _now()
        setup = 0.0
        env = None
        outcome = "done"
        try:
            env = self.env(trial.environment)
            t_env = time.monotonic()
            idle = self.activate(env)
            switch = time.monotonic() - t_env
            if env.ensure():
                self.write_facts(env)
            where = self.target(env, trial)
            held = where.server_cpus if isinstance(where, ClientEndpoint) else None
            setup = time.monotonic() - t_env
            if held is not None:
                env.hold_cpus(held)
            nat = getattr(env, "nat_counts", None)
            nat_before = nat() if nat is not None and where is not env else None
            try:
                measured, info = self.execute(where, trial)
            finally:
                if held is not None:
                    env.release_cpus()
            nat_after = nat() if nat_before is not None else None
            if nat_after is not None:
                # connections DNATed to the container during the trial, per published address
                info["nat_connections"] = {a: n - nat_before.get(a, 0) for a, n in nat_after.items()}
            info["idle"] = idle
            info["switch_s"] = round(switch, 3)  # pausing the others, resuming this one
            if isinstance(where, ClientEndpoint):
                info["placement"] = {"client_host": where.client_host,
                                     "shares_host": where.client_host == env.spec.host,
                                     "client_cpus": where.cpus, "server_cpus": held}
            outcome = self.finish(where, trial, attempt, started_at, info)
            self.recent.append(outcome == "interfered" or "excluded" in info)
        except Interrupted as exc:
            self.interrupted(trial, env, attempt, str(exc))
        except TrialFailed as exc:
            if isinstance(exc, HostNotResponding) and self.silent is None:
                self.silent = (time.monotonic(), exc.cause)
                if self._conn is not None and not self._conn.alive():
                    self._conn = None
            if isinstance(exc, HostNotResponding) and self.host.hang_wait > 0:
                if self.wait_for_host(exc.cause):
                    with r.lock:  # not the trial's failure: its attempt is given back
                        r.attempts[trial.id] = attempt - 1
                        # the first attempt may still run there (a host paused, then resumed):
                        # the next one kills what is left of it before it starts
                        r.started.add(trial.id)
                    r.listener.event("trial-again-host-back", trial_id=trial.id, attempt=attempt,
                                     cause=exc.cause, host=self.host_name)
                    return True
                exc = HostNotResponding(f"{exc.cause}; waited {self.host.hang_wait:g} s "
                                        f"(hosts.{self.host_name}.hang_wait) for it to answer "
                                        "again")
            if env is not None and not isinstance(exc, (EnvironmentDown, HostNotResponding)):
                try:
                    exc = env.diagnose(exc)
                except TrialFailed:
                    pass
            exc = _storage_fault(exc, self.host_name)
            # the environment's labels go with the failure: an environment that never came
            # up has no facts file, and its failed trials must still say what they were
            labels = {} if env is None else {"tidy_environment": env.tidy_environment,
                                             "variant": env.variant}
            r.listener.trial(trial.id, "failed", attempt=attempt, cause=exc.cause,
                             exit_status=exc.exit_status, stderr=tail(exc.stderr),
                             environment=trial.environment, benchmark=trial.benchmark,
                             round=trial.round, host=self.host_name,
                             kept=str(exc.keep.relative_to(r.raw)) if exc.keep else None,
                             **labels)
            with r.lock:
                r.failed += 1
            r.listener.tick("failed")
        else:
            with r.lock:
                if outcome == "done":
                    r.done += 1
                else:
                    r.attempts[trial.id] = attempt - 1  # not a failure: its attempt is given back
                r.durations.append(measured)
                r.overheads.append(time.monotonic() - started - measured - setup)
                r.setup += setup
            r.listener.tick(outcome)
        finally:
            self.previous = trial.environment
            self.position += 1
        return False

    def interrupted(self, trial: PlannedTrial, env: Environment | None, attempt: int,
                    why: str) -> None:
        """Record a trial stopped now (not a failure: its attempt is given back).

        What is left of it on its endpoint is killed first (best effort, bounded).
        """
        r = self.run
        with r.lock:
            r.attempts[trial.id] = attempt - 1
        if env is not None and env.started:
            try:
                where = env
                bench = r.campaign.benchmarks[trial.benchmark]
                if bench.client:
                    where = self.proxies.get((env.name, trial.benchmark)) or env
                where.conn().exec(where.prepare(trial), 30, interruptible=False)
            except (TrialFailed, Interrupted, SSHError, OverheadError):
                pass
        r.listener.trial(trial.id, "interrupted", attempt=attempt, cause=why,
                         environment=trial.environment, benchmark=trial.benchmark,
                         round=trial.round, host=self.host_name)

    def execute(self, env: Environment | ClientEndpoint, trial: PlannedTrial) -> tuple[float, dict]:
        """Run the trial's runner with noise samples around it; fetch its directory.

        Returns the runner's wall time (seconds, measured on the host) and what trial.json
        records about the run.
        """
        monitor = isinstance(env, ClientEndpoint) and env.bench.monitor
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

    def _execute(self, env: Environment | ClientEndpoint, trial: PlannedTrial) -> tuple[float, dict]:
        """Run the runner with noise samples around it (see :meth:`execute`)."""
        remote = env.trial_dir(trial)
        # a trial never started before has no runner left anywhere: its files only
        prep = env.prepare(trial, sweep=trial.id in self.run.started)
        measured_env = env.env if isinstance(env, ClientEndpoint) else env
        noise = analysis.noise_command(
            nproc=False, cgroup=measured_env.ctx.cgroup if measured_env.accounted else None)
        host_conn = self.conn()
        same = env.conn() is host_conn
        if same:
            # one round trip: noise, runner, noise (the runner's own output goes to files)
            cmd = (f"{prep}; {noise}; echo {_SEP}; t0=$(date +%s.%N); ( {env.command(trial)} ); "
                   f"s=$?; t1=$(date +%s.%N); echo {_SEP} $s $t0 $t1; {noise}")
            status, out, err = host_conn.exec(cmd, trial.timeout + WATCHDOG_SLACK)
            before_text, _, rest = out.partition(_SEP)
            marker, _, after_text = rest.partition(_SEP)
            words = after_text.split("\n", 1)[0].split()
            after_text = after_text.split("\n", 1)[1] if "\n" in after_text else ""
            if len(words) != 3:
                raise TrialFailed(f"the trial's command did not finish normally (exit {status})",
                                  tail(err + out))
            status, t0, t1 = int(words[0]), float(words[1]), float(words[2])
        else:
            _, before_text, _ = host_conn.exec(noise, 60)
            env.conn().exec(prep, 60)
            t0 = time.monotonic()
            status, out, err = env.conn().exec(env.command(trial), trial.timeout + WATCHDOG_SLACK)
            t1 = time.monotonic()
            _, after_text, _ = host_conn.exec(noise, 60)
        before = analysis.parse_noise(before_text)
        after = analysis.parse_noise(after_text)
        iso = self.run.campaign.isolation
        seen = analysis.interference(before, after, seconds=t1 - t0, cores=self.cores(),
                                     clk_tck=self.clk_tck(), share=iso.outside,
                                     steal_share=iso.steal, floor_s=iso.floor_s)
        flags = seen.pop("flags")
        why = self.run.campaign.benchmarks[trial.benchmark].works_outside
        if why:  # its own work runs outside its cgroup: outside CPU time is recorded, not judged
            seen["outside_judged"] = False
            seen["works_outside"] = why
            flags = [f for f in flags if f != "outside"]
        info = {"noise": {"before": before, "after": after},
                "noise_flags": analysis.noise_flags(before, after, cores=self.cores()) + flags,
                "interference": seen,
                "duration_s": round(t1 - t0, 6)}
        if status != 0:
            keep = self.keep_failed(env, trial, remote)
            stderr = err
            if keep is not None and (keep / "stderr").exists():
                stderr = (keep / "stderr").read_text(errors="replace")
            elapsed = t1 - t0
            if status == 137 and keep is None and elapsed >= round(trial.timeout) + KILL_AFTER - 0.5:
                # `timeout -k`'s KILL: the runner did not end on the TERM at its timeout
                cause = (f"timeout: the runner ran past {trial.timeout:.0f} s, ignored SIGTERM "
                         f"and was killed with SIGKILL {KILL_AFTER} s later (after {elapsed:.1f} s)")
            elif status in (124, 137) and keep is None and elapsed >= round(trial.timeout) - 0.5:
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
            raise TrialFailed(cause, tail(stderr + out), status, keep)
        return t1 - t0, info

    def fetch(self, env: Environment | ClientEndpoint, remote: str, local: Path) -> None:
        """Copy the trial directory from the endpoint (SFTP on the environment's connection)."""
        env.conn().fetch(remote, local)

    def keep_failed(self, env: Environment | ClientEndpoint, trial: PlannedTrial, remote: str) -> Path | None:
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

    def finish(self, env: Environment | ClientEndpoint, trial: PlannedTrial, attempt: int, started_at: str,
               info: dict) -> str:
        """Fetch the trial directory, write trial.json, rename into place, record done.

        A trial flagged for interference (outside CPU time, steal) with re-runs left goes to
        ``interfered/`` instead and is recorded ``interfered`` (the run loop runs it again);
        without, it stays in place with ``excluded`` naming its flags. Returns ``done`` or
        ``interfered``.

        A full disk here is :class:`~overhead.errors.DiskFull` (the run stops; the trial,
        recorded ``running``, runs again next time without spending an attempt).
        """
        r = self.run
        flags = [f for f in info["noise_flags"] if f in analysis.INTERFERENCE]
        rerun = None
        if flags:
            with r.lock:
                n = r.interfered.get(trial.id, 0)
                if n < r.campaign.isolation.reruns:
                    rerun = r.interfered[trial.id] = n + 1
            if rerun is None:
                info["excluded"] = flags
        final = trial_dir(r.raw, trial) if rerun is None else interfered_dir(r.raw, trial, rerun)
        partial = partial_dir(final)
        if partial.exists():
            shutil.rmtree(partial)
        remote = env.trial_dir(trial)
        try:
            with full_disk_is_disk_full(partial):
                self.fetch(env, remote, partial)
        except OSError as exc:
            shutil.rmtree(partial, ignore_errors=True)
            if isinstance(exc, DiskFull):
                raise
            raise TrialFailed(f"fetching {remote} failed ({exc})") from None
        if not (partial / META).exists():
            shutil.rmtree(partial, ignore_errors=True)
            raise TrialFailed(f"the runner exited 0 but left no meta in {remote}")
        monitor = info.pop("_monitor", None)
        if monitor is not None:
            with full_disk_is_disk_full(partial / "monitor"):
                (partial / "monitor").write_text(monitor)
            info["sidecars"] = {"monitor": env.bench.monitor_parser}
        client = isinstance(env, ClientEndpoint)
        record = {
            "id": trial.id, "campaign": r.campaign.name, "environment": trial.environment,
            "kind": env.spec.kind, "tidy_environment": env.tidy_environment,
            "variant": env.variant, "host": self.host_name, "benchmark": trial.benchmark,
            "runner": trial.runner, "params": trial.params, "cell": trial.cell,
            "round": trial.round, "position": self.position, "plan_position": trial.position,
            "warmup": trial.warmup, "previous": self.previous, "attempt": attempt,
            "client": env.client_host if client else None,
            "target": env.target if client else None,
            "status": "done" if rerun is None else "interfered", "started_at": started_at,
            "finished_at": _now(), **info,
        }
        try:
            with full_disk_is_disk_full(partial / TRIAL_JSON):
                (partial / TRIAL_JSON).write_text(json.dumps(record, indent=1, default=str))
                sync_tree(partial)
        except DiskFull:
            shutil.rmtree(partial, ignore_errors=True)
            raise
        if rerun is not None:
            with full_disk_is_disk_full(final):
                final.parent.mkdir(parents=True, exist_ok=True)
            if final.exists():
                shutil.rmtree(final)
        os.rename(partial, final)
        fsync_dir(final.parent)
        state = "done" if rerun is None else "interfered"
        r.listener.trial(trial.id, state, attempt=attempt, environment=trial.environment,
                         benchmark=trial.benchmark, round=trial.round, host=self.host_name,
                         duration_s=info["duration_s"], noise_flags=info["noise_flags"],
                         interference=info["interference"],
                         **({"excluded": info["excluded"]} if "excluded" in info else {}),
                         **({"kept": str(final.relative_to(r.raw))} if rerun else {}))
        return state

    def teardown(self) -> None:
        """Stop every environment this worker started, then close the connection."""
        for env in self.envs.values():
            try:
                if env.paused:
                    env.resume()  # a stopped server would not see the TERM that stops it
            except (TrialFailed, SSHError, OverheadError):
                pass
            try:
                if env.started:
                    env.stop_servers()
                if env.needs_stop():
                    env.stop()
                    self.run.listener.event("environment-stopped", environment=env.name)
            except (TrialFailed, SSHError, OverheadError):
                pass
        for conn in self.clients.values():
            try:
                if conn.alive():
                    conn.exec(f"rm -rf {self.run.remote}/trials", 60)
                conn.close()
            except Exception:  # noqa: BLE001 - best effort at the end
                pass
        if self._conn is not None:
            try:
                if self._conn.alive():
                    self._conn.exec(f"rm -rf {self.run.remote}/trials", 60)
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


def _close_run(run: _Run, plan: Plan, interrupted: bool) -> None:
    """Record the run's stop, write plan.json (whole or not at all), close the manifest.

    Each is tried even when the disk is full; a full disk is then one
    :class:`~overhead.errors.DiskFull` naming the first file it stopped.
    """
    full = None
    try:
        run.listener.event("stop", interrupted=interrupted, done=run.done, failed=run.failed)
    except DiskFull as exc:
        full = exc
    try:
        write_atomic(run.raw / PLAN, json.dumps(plan.to_json(), indent=1, default=str))
    except DiskFull as exc:
        full = full or exc
    finally:
        run.listener.close()
    if full is not None:
        raise full


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


def _stopped_busy(plan: Plan, why: str) -> Plan:
    """Return the plan with its open comparisons stopped because the host got busy."""
    decisions = {}
    for key, rec in plan.decisions.items():
        if not rec.get("stopped"):
            rec = {**rec, "stopped": True, "stopped_by": "busy",
                   "why": f"{why}: {rec.get('words', '')}"}
        decisions[key] = rec
    return replace(plan, decisions=decisions, notes=[*plan.notes, why])


def _top_processes(before: str, after: str, seconds: float, tck: int
                   ) -> list[tuple[int, str, float]]:
    """Return (pid, name, percent of a CPU) of the busiest processes between two /proc/*/stat dumps."""
    def ticks(text: str) -> dict[int, tuple[str, int]]:
        out = {}
        for line in text.splitlines():
            head, sep, rest = line.rpartition(") ")
            if not sep or " (" not in head:
                continue
            pid, _, name = head.partition(" (")
            fields = rest.split()
            if len(fields) > 12 and pid.strip().isdigit():
                out[int(pid)] = (name, int(fields[11]) + int(fields[12]))
        return out

    a, b = ticks(before), ticks(after)
    # a process started during the window used all of its CPU time in it; one that ended
    # during it is not seen (short-lived ones: the share above still counts them)
    used = [(pid, name, 100.0 * (t - (a[pid][1] if pid in a else 0)) / (tck * seconds))
            for pid, (name, t) in b.items() if t > (a[pid][1] if pid in a else 0)]
    return sorted((u for u in used if u[2] >= 1.0), key=lambda u: -u[2])[:5]


def _cell_values(raw: Path, plan: Plan, campaign: Campaign, cache: dict | None = None
                 ) -> tuple[dict, dict[str, float]]:
    """Return each cell's measured values as the stopping rule takes them, and a trial's cost.

    Every finished trial of the plan that is not a warm-up and was not excluded for
    interference is read once (``cache``: trial id -> its tidy rows and seconds) and handed to
    the rule (:meth:`~overhead.campaign.stopping.base.StoppingRule.take`). A trial's cost is
    its runner's wall time plus the harness around it (the median of this campaign's, from the
    manifest's running/done times).
    """
    from statistics import median

    from overhead.campaign.stopping import rule_of
    from overhead.runners import read_trial

    rule = rule_of(campaign)
    cache = {} if cache is None else cache
    values: dict = {}
    seconds: dict[str, list[float]] = {}
    for t in plan.trials:
        path = trial_dir(raw, t)
        if t.warmup or not (path / META).exists():
            continue
        if t.id not in cache:
            if _excluded(path):
                cache[t.id] = (None, None)
                continue
            tr = read_trial(path)
            cache[t.id] = (tr.measurements, _duration(path))
        rows, took = cache[t.id]
        if took is not None:
            seconds.setdefault(t.cell, []).append(took)
        if rows is not None:
            rule.take(values, t, rows)
    harness = _harness_seconds(raw)
    costs = {cid: median(v) + harness for cid, v in seconds.items() if v}
    return values, costs


def _duration(path: Path) -> float | None:
    """Return a finished trial's runner wall time (trial.json ``duration_s``), None if unknown."""
    try:
        value = json.loads((path / TRIAL_JSON).read_text()).get("duration_s")
    except (OSError, ValueError, AttributeError):
        return None
    return float(value) if isinstance(value, (int, float)) else None


def _harness_seconds(raw: Path) -> float:
    """Return the median time a trial took beyond its runner (manifest running -> done)."""
    from statistics import median

    started: dict[str, datetime] = {}
    extra = []
    for rec in read_records(raw / MANIFEST):
        tid, state = rec.get("trial"), rec.get("state")
        if tid is None or "ts" not in rec:
            continue
        try:
            when = datetime.fromisoformat(str(rec["ts"]).replace("Z", "+00:00"))
        except ValueError:
            continue
        if state == "running":
            started[tid] = when
        elif state == "done" and tid in started and isinstance(rec.get("duration_s"), (int, float)):
            extra.append((when - started.pop(tid)).total_seconds() - float(rec["duration_s"]))
    return max(median(extra), 0.0) if extra else 0.5


def _excluded(path: Path) -> bool:
    """Whether a finished trial was kept flagged for interference (its values are not used)."""
    try:
        return bool(json.loads((path / TRIAL_JSON).read_text()).get("excluded"))
    except (OSError, ValueError, AttributeError):
        return False


def _stuck(workers, campaign: Campaign) -> list[_Worker]:
    """Wait for the workers to return, each at most its bound; return the ones still running.

    The bound is the longest a worker can legitimately take to finish the trial in flight:
    the longest trial timeout plus the watchdog's slack, a VM's boot, and a few liveness
    bounds for the commands around the trial (all of them bounded themselves).
    """
    boots = [getattr(e, "boot_timeout", 0) or 0 for e in campaign.environments.values()]
    hosts = [responsive(h) for h in campaign.hosts.values()] or [15.0]
    timeouts = [b.timeout or campaign.timeout for b in campaign.benchmarks.values()]
    bound = (max(timeouts, default=campaign.timeout) + WATCHDOG_SLACK + max(boots, default=0)
             + 10 * max(hosts) + 120)
    deadline = time.monotonic() + bound
    for w in workers:
        while w.is_alive() and time.monotonic() < deadline:
            w.join(0.2)
    return [w for w in workers if w.is_alive()]


def run_campaign(campaign: Campaign, *, raw_root: Path | None = None, retries: int = 0,
                 progress: bool = True) -> RunResult:
    """Start or resume a campaign, holding its raw folder's lock (one run at a time).

    The lock (``data/raw/<campaign>/.run.lock``, :mod:`overhead.locks`) is taken before
    anything is written; a second run of the campaign refuses at once with
    :class:`~overhead.errors.LockHeld`, naming the running one's pid. See :func:`_run_campaign`
    for the parameters.
    """
    from overhead.paths import DATA

    raw = (raw_root or DATA / "raw") / campaign.name
    raw.mkdir(parents=True, exist_ok=True)
    with locks.hold(raw / RUN_LOCK, f"campaign {campaign.name}"):
        return _run_campaign(campaign, raw, retries=retries, progress=progress)


def _run_campaign(campaign: Campaign, raw: Path, *, retries: int = 0,
                  progress: bool = True) -> RunResult:
    """Start or resume a campaign (its lock held).

    Parameters
    ----------
    campaign : Campaign
        The campaign (:func:`overhead.campaign.inventory.load`).
    raw : Path
        The campaign's raw folder (made, locked by :func:`run_campaign`).
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

    if campaign.path is not None:
        write_atomic(raw / CAMPAIGN_COPY, Path(campaign.path).read_bytes())
    write_atomic(raw / CAMPAIGN_RESOLVED, json.dumps(
        campaign.model_dump(mode="json", exclude_none=True), indent=1).encode())
    t_start = time.monotonic()
    stop = threading.Event()
    bar = tqdm(total=0, unit="trial", disable=not progress, dynamic_ncols=True)
    listener = _Listener(Manifest(raw / MANIFEST), bar)
    run = _Run(campaign, raw, listener, retries, stop, _git_sha())
    listener.event("start", campaign=campaign.name, campaign_hash=campaign.sha256,
                   pid=os.getpid(), git_sha=run.git_sha)
    previous_handlers = {}
    signals: list[int] = []

    def on_signal(signum, frame):
        # only flags and a raw write here: the main thread may be inside the manifest's lock
        # or stderr's buffer when the signal arrives (events are recorded after the loop)
        signals.append(signum)
        name = signal.Signals(signum).name
        if len(signals) == 1:
            stop.set()
            say = (f"{name}: stopping after the trials in flight (send it again to stop now)")
        elif len(signals) == 2:
            run.abort.set()
            say = (f"{name} again: stopping now; the trials in flight are recorded interrupted "
                   f"and run again on resume")
        else:
            say = f"{name}: already stopping (tearing down)"
        os.write(2, f"\noverhead run: {say}\n".encode())

    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            previous_handlers[sig] = signal.signal(sig, on_signal)
    plan = make_plan(campaign)
    workers: dict[str, _Worker] = {}
    interrupted = False
    planned_total = skipped = 0
    first = True
    failures: dict[str, str] = {}
    parsed: dict = {}  # trial id -> its rows and seconds, read once for the stopping rule
    try:
        while True:
            records = read_records(raw / MANIFEST)
            finished = _finished(raw, plan)
            state = resume([t.id for t in plan.trials], records, finished, retries)
            for tid in sorted(state.recovered):
                listener.trial(tid, "done", recovered=True)
            by_id = plan.by_id()
            for tid, att in state.attempts.items():
                run.attempts[tid] = att
            run.interfered = {}
            run.started = {rec["trial"] for rec in records
                           if rec.get("state") == "running" and rec.get("trial") is not None}
            for rec in records:
                if rec.get("state") == "interfered" and rec.get("trial") is not None:
                    tid = rec["trial"]
                    run.interfered[tid] = run.interfered.get(tid, 0) + 1
            failures.update(state.failed)
            todo = [by_id[t] for t in state.todo]
            planned_total = len(plan.trials)
            if first:
                skipped, first = len(state.done), False
            listener.expect(len(todo))
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
                    while w.is_alive() and not stop.is_set():
                        w.join(0.2)
                # stopping (a signal, a worker's error): the others finish their trial in
                # flight in the finally below, each within its bound (_stuck)
                errors = [w.error for w in threads if w.error is not None]
                busy = next((e for e in errors if isinstance(e, HostBusy)), None)
                if busy is not None:
                    # said, not fought: the comparisons still open stop here, saying why
                    listener.event("host-busy", cause=str(busy))
                    plan = _stopped_busy(plan, str(busy))
                if errors:
                    raise busy or errors[0]
                if stop.is_set():
                    interrupted = True
                    break
                continue  # re-read: retries of failures, then the stopping rule
            if campaign.stopping is None:
                break
            values, costs = _cell_values(raw, plan, campaign, parsed)
            longer = extend(plan, campaign, values, costs=costs,
                            elapsed_minutes=(time.monotonic() - t_start) / 60.0)
            for note in longer.notes:
                listener.event("stopping-rule", round=longer.rounds, note=note)
            if len(longer.trials) == len(plan.trials):
                plan = longer
                break
            plan = longer
    finally:
        # a worker still running (an error in this thread) is asked to stop and waited for:
        # teardown never runs beside a live worker; one that overstays its bound is left
        stop.set()
        if signals:
            listener.event("stop-requested", signals=[signal.Signals(n).name for n in signals],
                           now=len(signals) > 1)
        stuck = _stuck(workers.values(), campaign)
        interrupted = interrupted or bool(signals)
        run.abort.clear()  # teardown's commands must run
        for w in workers.values():
            if w not in stuck:
                w.teardown()
        if stuck:
            names = ", ".join(w.host_name for w in stuck)
            listener.event("workers-stuck", hosts=[w.host_name for w in stuck])
            print(f"overhead run: the worker of {names} did not stop within its bound; its "
                  f"environments were not torn down", file=sys.stderr, flush=True)
        for sig, handler in previous_handlers.items():
            signal.signal(sig, handler)
        _close_run(run, plan, interrupted)
    last = last_records(read_records(raw / MANIFEST))
    failures = {tid: str(rec.get("cause")) for tid, rec in last.items()
                if rec.get("state") == "failed" and tid in plan.by_id()}
    return RunResult(planned_total, run.done, run.failed, skipped, failures,
                     time.monotonic() - t_start, run.durations, run.overheads, plan.stops,
                     interrupted, run.setup)
