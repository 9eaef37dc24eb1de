"""Docker environments: one long-running container per campaign environment.

The container is started once (``docker run -d``) with the variant's flags, and every trial is
a ``docker exec`` of the runner in it. The runners folder and the trials folder on the host are
bind-mounted; the storage variant decides only where the benchmark's own scratch data lives
(/var/tmp, where the runners write): a Docker volume, or the container's own overlay
filesystem. The functions build command lines; :class:`DockerEnvironment` runs them over SSH.
"""

from __future__ import annotations

import shlex
import time
from collections.abc import Mapping, Sequence
from typing import Annotated, Literal

from pydantic import Field

from overhead.environments import dockerfacts, posix
from overhead.environments.base import (
    PID_LINE,
    Context,
    Environment,
    TrialFailed,
    tail,
    wait_gone,
)
from overhead.environments.posix import KILL_AFTER, runner_command, sweep_command
from overhead.environments.spec import EnvSpec, ImageRef, Int, Number

__all__ = ["DockerEnv", "DockerEnvironment", "container_name", "exec_command", "facts_command",
           "parse_facts", "pause_command", "prepare_command", "running_command", "start_command", "stop_command",
           "variant"]

#: Where the runners and trials are mounted inside the container.
RUNNERS_MOUNT = "/overhead/runners"
TRIALS_MOUNT = "/overhead/trials"


def container_name(campaign: str, environment: str) -> str:
    """Return the container's name: ``overhead-<campaign>-<environment>``."""
    return f"overhead-{campaign}-{environment}"


def variant(net: str, storage: str, runtime: str) -> str:
    """Return the tidy variant string, e.g. ``net=nat,storage=overlay,runtime=runc``."""
    return f"net={net},storage={storage},runtime={runtime}"


def start_command(name: str, *, image: str, net: str, storage: str, runtime: str,
                  runners_dir: str, trials_dir: str, ports: Sequence[int] = (),
                  cpus: float | None = None, publish_address: str = "127.0.0.1",
                  also_publish: str | None = None,
                  cgroup_parent: str | None = None) -> str:
    """Return the command that (re)creates and starts the environment's container.

    Parameters
    ----------
    name : str
        The container's name (an old container of that name is removed first).
    image : str
        The image.
    net : {"host", "nat"}
        Host networking, or Docker's bridge with NAT (``ports`` published on the host).
    storage : {"volume", "overlay"}
        /var/tmp (the benchmarks' scratch data) on a volume named like the container, or on
        the container's overlay filesystem.
    runtime : {"runc", "crun"}
        The OCI runtime.
    runners_dir, trials_dir : str
        Host folders mounted at /overhead/runners (read-only) and /overhead/trials.
    ports : sequence of int
        Ports published with NAT, TCP and UDP (load generators outside reach servers inside).
    cpus : float, optional
        ``--cpus`` limit.
    publish_address : str
        The host address the ports are published on (a loopback address of the container's
        own, so that servers of other environments on the host can use the same ports).
    also_publish : str, optional
        Another address they are published on too: the host's address for load generators on
        other hosts (reached through DNAT in PREROUTING, as from the paper's client machine).
    cgroup_parent : str, optional
        ``--cgroup-parent``: the environment's cgroup, under which the container's own is
        made (its CPU time is then the environment's).

    Returns
    -------
    str
        A shell command line.
    """
    words = ["docker", "run", "-d", "--name", name, "--hostname", name,
             "--network", "host" if net == "host" else "bridge", "--runtime", runtime,
             "-v", f"{runners_dir}:{RUNNERS_MOUNT}:ro", "-v", f"{trials_dir}:{TRIALS_MOUNT}"]
    if storage == "volume":
        words += ["-v", f"{name}:/var/tmp"]
    if net == "nat":
        for address in (publish_address, also_publish):
            if address is None:
                continue
            for port in ports:  # TCP and UDP: netperf's UDP_RR uses the data port over UDP
                words += ["-p", f"{address}:{port}:{port}", "-p", f"{address}:{port}:{port}/udp"]
    if cpus:
        words += ["--cpus", str(cpus)]
    if cgroup_parent:
        words += ["--cgroup-parent", "/" + cgroup_parent.strip("/")]
    # PID 1 is a shell that exits on TERM (a bare sleep would ignore it and make `docker stop`
    # wait its grace period out)
    words += ["--", image, "sh", "-c", "trap 'exit 0' TERM INT; while :; do sleep 3600 & wait $!; done"]
    return f"docker rm -f {shlex.quote(name)} >/dev/null 2>&1; " + shlex.join(words)


def pause_command(name: str, pause: bool = True, cli: str = "docker") -> str:
    """Return ``docker pause`` (freeze every process of the container) or ``docker unpause``.

    ``cli`` is the engine's command (``docker``, or ``podman`` with its global options): the
    container commands of this module are the same for both engines.
    """
    return f"{cli} {'pause' if pause else 'unpause'} {shlex.quote(name)}"


def running_command(name: str, cli: str = "docker") -> str:
    """Return a command printing ``true`` when the container is running."""
    return f"{cli} inspect -f '{{{{.State.Running}}}}' {shlex.quote(name)} 2>/dev/null || echo false"


def exec_command(name: str, runner: str, trial_id: str, params: Mapping[str, object],
                 timeout: float, cli: str = "docker") -> str:
    """Return the command running a runner in the container into /overhead/trials/<trial_id>.

    The runner's timeout is applied inside the container (so the tool itself is killed), and a
    second, longer one around ``docker exec`` on the host.
    """
    inner = runner_command(RUNNERS_MOUNT, runner, f"{TRIALS_MOUNT}/{trial_id}", params, timeout,
                           pgid_file=f"{TRIALS_MOUNT}/{trial_id}.pgid")
    outer = max(1, round(timeout)) + 2 * KILL_AFTER
    return (f"timeout -k {KILL_AFTER} {outer} {cli} exec {shlex.quote(name)} "
            f"sh -c {shlex.quote(inner)}")


def prepare_command(name: str, trial_id: str, trials_dir: str, cli: str = "docker", *,
                    sweep: bool = True) -> str:
    """Return the command clearing the way for a (re-)run: kill a stale attempt, remove its files.

    The process group and what is left of the runner (:func:`~overhead.environments.posix.
    sweep_command`) are killed inside the container, where its id was written and means
    something (on the host that number names another process); the files are removed on the
    host, where the trials folder is mounted from. ``sweep=False`` (a trial never started):
    only the files, no ``docker exec``.
    """
    q = shlex.quote(f"{trials_dir}/{trial_id}")
    if not sweep:
        return f"rm -rf {q} {q}.partial.* {q}.pgid"
    kill = (f"p={TRIALS_MOUNT}/{trial_id}.pgid; "
            "if [ -s $p ]; then kill -KILL -$(cat $p) 2>/dev/null; fi; "
            f"{sweep_command(f'{TRIALS_MOUNT}/{trial_id}')}; true")
    return (f"{cli} exec {shlex.quote(name)} sh -c {shlex.quote(kill)} >/dev/null 2>&1; "
            f"rm -rf {q} {q}.partial.* {q}.pgid")


def stop_command(name: str, storage: str, cli: str = "docker") -> str:
    """Return the command removing the container (and its scratch volume)."""
    cmd = f"{cli} rm -f {shlex.quote(name)} >/dev/null 2>&1"
    if storage == "volume":
        cmd += f"; {cli} volume rm -f {shlex.quote(name)} >/dev/null 2>&1"
    return cmd + "; true"


def facts_command(name: str) -> str:
    """Return a command printing the Docker facts of container ``name`` and its host.

    Docker version, storage driver, the container's network mode and runtime, and the evidence
    of its NAT path (:func:`overhead.environments.dockerfacts.facts_command`).
    """
    return dockerfacts.facts_command(name)


def parse_facts(text: str) -> dict[str, str]:
    """Parse :func:`facts_command`'s output (:func:`overhead.environments.dockerfacts.parse_facts`)."""
    return dockerfacts.parse_facts(text)


class DockerEnv(EnvSpec):
    """A long-running container on ``host``; each trial is a ``docker exec`` in it.

    ``storage`` decides where the benchmark's own data lives (/var/tmp, the runners' scratch
    folder): a Docker volume or the container's overlay filesystem. ``ports`` are published
    with ``net: nat`` (load generators outside reach servers inside).
    """

    kind: Literal["docker"]
    net: Literal["host", "nat"] = "host"
    storage: Literal["volume", "overlay"] = "volume"
    runtime: Literal["runc", "crun"] = "runc"
    image: ImageRef = "overhead/bench:latest"
    ports: tuple[Annotated[Int, Field(ge=1, le=65535)], ...] = ()
    cpus: Number | None = Field(None, gt=0, le=4096)


def nat_counts_command(container: str) -> str:
    """Return a command printing the container's IP, a separator, then Docker's DNAT counters."""
    q = shlex.quote(container)
    return (f"docker inspect -f '{{{{.NetworkSettings.IPAddress}}}}' {q}; echo --; "
            "iptables -w 5 -t nat -L DOCKER -n -v -x")


def parse_nat_counts(out: str) -> dict[str, int] | None:
    """Read :func:`nat_counts_command`'s output: packets DNATed to the container, per address.

    Each DNAT rule of the DOCKER chain whose target is the container's IP counts the
    connections (the nat table sees a connection's first packet only) sent to one published
    address; the counts of one address's ports are summed. None when the output is not that.
    """
    ip, sep, table = out.partition("\n--\n")
    ip = ip.strip()
    if not sep or not ip or "Chain DOCKER" not in table:
        return None
    counts: dict[str, int] = {}
    for line in table.splitlines():
        words = line.split()
        if len(words) > 8 and words[2] == "DNAT" and f"to:{ip}:" in line and words[0].isdigit():
            counts[words[8]] = counts.get(words[8], 0) + int(words[0])
    return counts


class DockerEnvironment(Environment):
    """A long-running container; each trial a ``docker exec``."""

    Spec = DockerEnv
    tidy_environment = "docker"
    #: The engine's command line (podman's environments give theirs, with global options).
    cli = "docker"

    def __init__(self, ctx: Context):
        """Name the container after the campaign and environment."""
        super().__init__(ctx)
        spec = ctx.spec
        self.variant = variant(spec.net, spec.storage, spec.runtime)
        self.container = container_name(ctx.campaign, ctx.name)
        # with NAT the servers listen in the container's own namespace
        self.shares_host_ports = spec.net == "host"

    def start(self) -> None:
        """Copy the runners to the host, then (re)create the container and record its facts."""
        conn = self.ctx.host()
        self.runners = conn.ensure_runners(self.ctx.runners_dir)
        trials = f"{self.ctx.folder}/trials"
        conn.exec(f"mkdir -p {trials}", 60)
        s = self.spec
        self.facts = {}
        parent = None
        if self.make_cgroup() is not None:
            # --cgroup-parent is a path for the cgroupfs driver (systemd's wants a slice)
            status, out, _ = conn.exec("docker info --format '{{.CgroupDriver}}'", 60)
            if status == 0 and out.strip() == "cgroupfs":
                parent = self.ctx.cgroup
        cgroup = self.facts.get("cgroup")
        status, out, err = conn.exec(start_command(
            self.container, image=s.image, net=s.net, storage=s.storage, runtime=s.runtime,
            runners_dir=self.runners, trials_dir=trials, ports=self.ctx.server_ports,
            cpus=s.cpus, publish_address=self.loopback, cgroup_parent=parent,
            also_publish=self.ctx.address if self.ctx.remote_clients else None), 180)
        if status != 0:
            raise TrialFailed(f"docker run failed (exit {status})", tail(out + err))
        self.paused = False
        self.accounted = parent is not None
        self.facts = self.endpoint_facts_in_container(conn)
        self.facts["cgroup"] = (cgroup if parent else
                                "unavailable: the container is not under the environment's "
                                "cgroup (no cgroupfs driver, or no cgroup made)")
        self.facts.update(self.host_facts(conn))  # the container sees the host's kernel, not its virtualization
        status, out, _ = conn.exec(facts_command(self.container), 60)
        if status == 0:
            self.facts.update(parse_facts(out))

    def endpoint_facts_in_container(self, conn) -> dict:
        """Return the facts as seen inside the container."""
        status, out, _ = conn.exec(f"{self.cli} exec {shlex.quote(self.container)} sh -c "
                                   f"{shlex.quote(posix.facts_command())}", 60)
        return posix.parse_facts(out) if status == 0 else {}

    def is_running(self) -> bool:
        """Whether the container runs."""
        try:
            status, out, _ = self.ctx.host().exec(running_command(self.container, self.cli), 60)
        except TrialFailed:
            return False
        return status == 0 and out.strip() == "true"

    def command(self, trial):
        """``docker exec`` of the runner, writing to the bind-mounted trials folder.

        The ``docker`` client on the host joins the environment's cgroup too.
        """
        return posix.in_cgroup(exec_command(self.container, trial.runner, trial.id,
                                            self.params_of(trial), trial.timeout, self.cli),
                               self.joins)

    def pause(self):
        """Freeze the container (``docker pause``): its servers and anything else in it."""
        status, out, err = self.ctx.host().exec(pause_command(self.container, cli=self.cli), 60)
        if status != 0:
            raise TrialFailed(f"{self.cli.split()[0]} pause {self.container} failed (exit {status})",
                              tail(out + err))
        self.paused = True

    def resume(self):
        """Thaw the container (``docker unpause``)."""
        status, out, err = self.ctx.host().exec(pause_command(self.container, False, self.cli), 60)
        if status != 0:
            raise TrialFailed(f"{self.cli.split()[0]} unpause {self.container} failed (exit {status})",
                              tail(out + err))
        self.paused = False

    def files_dirs(self):
        """Copy files into the host's trials folder; the container sees it at its mount."""
        return f"{self.ctx.folder}/trials/.files", f"{TRIALS_MOUNT}/.files"

    def runners_seen(self):
        """Return the runners folder as the container sees it (its read-only mount)."""
        return RUNNERS_MOUNT

    def prepare(self, trial, *, sweep: bool = True):
        """Kill a stale attempt inside the container; remove its files on the host."""
        return prepare_command(self.container, trial.id, f"{self.ctx.folder}/trials", self.cli,
                               sweep=sweep)

    def nat_counts(self) -> dict[str, int] | None:
        """Return the connections DNATed to the container so far, per published address.

        None unless the container uses Docker's NAT and its rules can be read (root). Read
        before and after a trial, the difference says which way its clients came in: a
        loopback address (a client on this host, the OUTPUT chain) or the host's address (a
        client on another host, PREROUTING).
        """
        if self.spec.net != "nat" or not self.started:
            return None
        status, out, _ = self.ctx.host().exec(nat_counts_command(self.container), 30)
        return parse_nat_counts(out) if status == 0 else None

    def listen(self, client_is_here):
        """Return the server's listen address: any in the container's namespace with NAT."""
        return "0.0.0.0" if self.spec.net == "nat" else super().listen(client_is_here)  # noqa: S104

    def server_command(self, benchmark, command, cpus=None):
        """Return ``docker exec -d`` of the server, its pid written into the trials mount.

        ``cpus``: the server runs on those host CPUs (taskset in the container).
        """
        pidf = f"{TRIALS_MOUNT}/server-{self.name}-{benchmark}.pid"
        log = f"{TRIALS_MOUNT}/server-{self.name}-{benchmark}.log"
        pin = f"taskset -c {shlex.quote(cpus)} " if cpus else ""
        script = f"{PID_LINE} > {pidf}; exec {pin}{command} > {log} 2>&1"
        return f"{self.cli} exec -d {shlex.quote(self.container)} sh -c {shlex.quote(script)}"

    def stale_server_command(self, benchmark):
        """Return the command forgetting a pid file an earlier container left.

        The container is made afresh when the environment starts, so no server of an earlier
        run can still be in it; the pid in the file would name another process of this one.
        """
        pidf, _ = Environment.server_files(self, benchmark)  # the host's path of the container's file
        return f"rm -f {pidf}"

    def server_stop_command(self, benchmark, sig="TERM"):
        """Return the command stopping the server inside the container (waits for it)."""
        pidf = f"{TRIALS_MOUNT}/server-{self.name}-{benchmark}.pid"
        kill = (f"if [ -s {pidf} ]; then read -r p st < {pidf}; kill -{sig} $p; "
                f"{wait_gone('$p')}; fi; rm -f {pidf}")
        return f"{self.cli} exec {shlex.quote(self.container)} sh -c {shlex.quote(kill)}; true"

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
        """Remove the container and its scratch volume, then the environment's cgroup."""
        if self.started:
            # clean-up: a stop-now (a second signal) must not leave the container behind
            self.ctx.host().exec(stop_command(self.container, self.spec.storage, self.cli), 120,
                                 interruptible=False)
        self.paused = False
        self.remove_cgroup()
