"""Podman environments, rootful and rootless: one long-running container per environment.

A Podman environment is run as a Docker one is (:mod:`overhead.environments.docker`): the
container starts once, each trial is a ``podman exec`` of the runner in it, the runners and
trials folders are bind-mounted, and ``storage`` decides where /var/tmp (the benchmarks' scratch
data) lives. What differs is what people ask of containers today:

- **rootless**: the campaign logs in to the host over SSH as an unprivileged user with
  subordinate ids (``overhead-rootless``, made by ``make hosts-up``) and runs ``podman`` as that
  user: the container's root is that user's id, its network is a user-mode TCP/IP stack
  (``slirp4netns``, or ``pasta``) or the host's, its storage native overlay in a user namespace,
  fuse-overlayfs or vfs. Its files live under ``/var/tmp/overhead-<user>/`` (the user cannot
  write root's folder). Rootless Podman on cgroup v1 makes no cgroups: the container's CPU time
  cannot be accounted to the environment, and ``cpus`` limits are refused.
- **networks**: ``host``; ``bridge`` (rootful: netavark's bridge with NAT, ports published by
  DNAT); ``slirp4netns`` (published ports through rootlesskit's port forwarder by default,
  ``port_handler: slirp4netns`` through slirp4netns's own TCP stack); ``pasta`` (Podman 4.3
  has no pasta network: the container starts without a network and pasta is attached to its
  namespace here, as Podman 4.4 and later do themselves).
- **limits**: Podman raises a container's open-file and process limits beyond the host's hard
  limits by default; a host that does not allow that (no CAP_SYS_RESOURCE, as in a container)
  refuses every container, so a rootful container gets the host's hard limits given explicitly
  (processes at most 32768: Podman 4.3 lowers its own limit to that before it starts the
  runtime) and a rootless one ``--ulimit host``.

The functions build command lines; :class:`PodmanEnvironment` runs them over SSH.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import replace
from typing import Annotated, Literal

from pydantic import Field, model_validator

from overhead.environments.base import Context, TrialFailed, tail, wait_stopped
from overhead.environments.docker import RUNNERS_MOUNT, TRIALS_MOUNT, DockerEnvironment
from overhead.environments.remote import REMOTE_BASE
from overhead.environments.spec import EnvSpec, ImageRef, Int, Number, UserName

__all__ = ["NPROC_CEILING", "ROOTLESS_USER", "PodmanEnv", "PodmanEnvironment", "cli_command",
           "facts_command", "limits_command", "listeners_command", "parse_facts", "parse_listeners", "pasta_command", "pasta_stop_command",
           "signal_all_command",
           "start_command", "variant"]

#: The unprivileged user a rootless environment logs in as unless its spec names another.
ROOTLESS_USER = "overhead-rootless"
#: The highest process limit a rootful container can be given: Podman 4.3 sets its own
#: RLIMIT_NPROC to 32768 before it runs conmon and the runtime, which cannot raise it again.
NPROC_CEILING = 32768
#: The store a non-default storage driver uses (its own: a store has one driver), per user.
_STORE = {True: "$HOME/.local/share/overhead-podman", False: "/var/lib/overhead-podman"}
_RUNSTORE = {True: "$HOME/.local/share/overhead-podman/run", False: "/run/overhead-podman"}


def variant(rootless: bool, net: str, storage: str, runtime: str, driver: str = "overlay",
            port_handler: str = "rootlesskit") -> str:
    """Return the tidy variant string, e.g. ``mode=rootless,net=pasta,storage=volume,runtime=crun``.

    The storage driver and slirp4netns's port handler are named only when they are not the
    default (``driver=vfs``, ``ports=slirp4netns``).
    """
    parts = [f"mode={'rootless' if rootless else 'rootful'}", f"net={net}"]
    if net == "slirp4netns" and port_handler != "rootlesskit":
        parts.append(f"ports={port_handler}")
    parts.append(f"storage={storage}")
    if driver != "overlay":
        parts.append(f"driver={driver}")
    parts.append(f"runtime={runtime}")
    return ",".join(parts)


def cli_command(rootless: bool, driver: str) -> str:
    """Return the ``podman`` command with the global options of ``driver``'s store.

    The default store (driver overlay: native overlayfs, in a user namespace when rootless) is
    the one ``make hosts-up`` imports the image into; fuse-overlayfs and vfs each have a store
    of their own, filled from the default one when an environment first uses it.
    """
    if driver == "overlay":
        return "podman"
    root, run = f"{_STORE[rootless]}/{driver}", f"{_RUNSTORE[rootless]}/{driver}"
    words = f"podman --root {root} --runroot {run}"
    if driver == "vfs":
        return words + " --storage-driver vfs"
    return (words + " --storage-driver overlay "
            "--storage-opt overlay.mount_program=/usr/bin/fuse-overlayfs")


def image_command(cli: str, image: str) -> str:
    """Return the command making ``image`` present in ``cli``'s store (copied from the default).

    Prints ``copied`` when it copied the image (a vfs store takes about a minute for 1 GiB).
    """
    q = shlex.quote(image)
    if cli == "podman":
        return f"podman image exists {q}"
    return (f"{cli} image exists {q} || {{ podman save {q} | {cli} load -q >/dev/null "
            f"&& {cli} image exists {q} && echo copied; }}")


def limits_command() -> str:
    """Return the command printing the login's hard limits: open files, then processes.

    Read from /proc (dash's ``ulimit`` has no ``-u``).
    """
    return ("awk '/^Max open files/ { f = $5 } /^Max processes/ { p = $4 } "
            "END { print f; print p }' /proc/self/limits")


def ulimit_words(rootless: bool, limits: str) -> list[str]:
    """Return the ``--ulimit`` options of a container from :func:`limits_command`'s output.

    Rootless: ``--ulimit host`` (the container keeps the user's limits). Rootful: the host's
    hard limits, given explicitly (Podman's defaults, 1048576 files, exceed what a host without
    CAP_SYS_RESOURCE may grant and make every container fail); processes at most
    :data:`NPROC_CEILING`.
    """
    if rootless:
        return ["--ulimit", "host"]
    values = limits.split()
    if len(values) != 2 or not all(v.isdigit() or v == "unlimited" for v in values):
        raise TrialFailed(f"cannot read the host's hard limits (open files, processes) from "
                          f"/proc/self/limits: {limits.strip()!r}")
    # unlimited: Podman's own default for files (1048576), the ceiling for processes
    files, procs = (1048576 if v == "unlimited" else int(v) for v in values)
    procs = min(procs, NPROC_CEILING)
    return ["--ulimit", f"nofile={files}:{files}", "--ulimit", f"nproc={procs}:{procs}"]


def start_command(name: str, *, cli: str, image: str, net: str, storage: str, runtime: str,
                  runners_dir: str, trials_dir: str, ulimits: list[str], ports=(),
                  rootless: bool = False, port_handler: str = "rootlesskit",
                  cpus: float | None = None, publish_address: str = "127.0.0.1",
                  cgroup_parent: str | None = None) -> str:
    """Return the command that (re)creates and starts the environment's container.

    Parameters
    ----------
    name : str
        The container's name (an old container of that name is removed first).
    cli : str
        :func:`cli_command`.
    net : {"host", "bridge", "slirp4netns", "pasta"}
        ``pasta`` starts the container without a network (:func:`pasta_command` attaches it).
    storage : {"volume", "overlay"}
        /var/tmp on a volume named like the container, or on the container's own file system.
    ulimits : list of str
        :func:`ulimit_words`.
    ports : sequence of int
        Ports published (bridge, slirp4netns) on ``publish_address``, TCP and UDP.
    rootless : bool
        A rootless container has no cgroup here: no pids limit is set.
    port_handler : {"rootlesskit", "slirp4netns"}
        Who forwards slirp4netns's published ports.
    cpus, cgroup_parent
        As :func:`overhead.environments.docker.start_command` (rootful only).

    Returns
    -------
    str
        A shell command line.
    """
    network = {"bridge": "bridge", "host": "host", "pasta": "none",
               "slirp4netns": "slirp4netns" if port_handler == "rootlesskit"
               else f"slirp4netns:port_handler={port_handler}"}[net]
    words = ["run", "-d", "--name", name, "--hostname", name, "--network", network,
             "--runtime", runtime, *ulimits,
             "-v", f"{runners_dir}:{RUNNERS_MOUNT}:ro", "-v", f"{trials_dir}:{TRIALS_MOUNT}"]
    if not rootless:
        words += ["--pids-limit", "-1"]  # Podman's default is 2048; Docker sets none
    if storage == "volume":
        words += ["-v", f"{name}:/var/tmp"]
    if net in ("bridge", "slirp4netns"):
        for port in ports:
            words += ["-p", f"{publish_address}:{port}:{port}",
                      "-p", f"{publish_address}:{port}:{port}/udp"]
    if cpus:
        words += ["--cpus", str(cpus)]
    if cgroup_parent:
        words += ["--cgroup-parent", "/" + cgroup_parent.strip("/")]
    words += ["--", image, "sh", "-c", "trap 'exit 0' TERM INT; while :; do sleep 3600 & wait $!; done"]
    return f"{cli} rm -f -t 0 {shlex.quote(name)} >/dev/null 2>&1; {cli} " + shlex.join(words)


def pasta_command(cli: str, name: str, pidfile: str, ports=(),
                  publish_address: str = "127.0.0.1") -> str:
    """Return the command attaching pasta to the container's network namespace.

    pasta runs as the container's user, configures the namespace's interface like the host's
    (``--config-net``) and forwards ``ports`` (TCP and UDP) from ``publish_address`` on the host
    into it; nothing is forwarded from the namespace to the host (``-T none -U none``), so it
    does not scan for listening sockets every second. Its pid goes to ``pidfile``: it outlives
    the container and must be stopped (:func:`pasta_stop_command`).
    """
    fwd = []
    for port in ports:
        fwd += ["-t", f"{publish_address}/{port}", "-u", f"{publish_address}/{port}"]
    if not ports:
        fwd = ["-t", "none", "-u", "none"]
    q = shlex.quote(name)
    return (f"{pasta_stop_command(pidfile)}; "
            f"pid=$({cli} inspect -f '{{{{.State.Pid}}}}' {q}) && [ \"$pid\" -gt 0 ] && "
            + shlex.join(["pasta", "-q", "--config-net", "-P", pidfile, "-T", "none", "-U", "none",
                          *fwd]) + " $pid")


def pasta_stop_command(pidfile: str) -> str:
    """Return the command stopping the pasta of ``pidfile`` (only a process called pasta)."""
    q = shlex.quote(pidfile)
    return (f"if [ -s {q} ]; then p=$(cat {q}); case $(cat /proc/$p/comm 2>/dev/null) in "
            f"pasta*|passt*) kill $p;; esac; rm -f {q}; fi")


#: The container's network mode and OCI runtime as one JSON object (``podman inspect -f``).
_INSPECT = '{"NetworkMode": {{json .HostConfig.NetworkMode}}, "Runtime": {{json .OCIRuntime}}}'


def signal_all_command(cli: str, name: str, sig: str) -> str:
    """Return the command sending ``sig`` to every process of a rootless container.

    ``podman pause`` needs the cgroup freezer, which a rootless container on cgroup v1 does not
    have ("pause is not supported"); its processes are listed by their host pids (``podman top
    ... hpid``) and signalled from the user's namespace (``podman unshare``), where the user may
    signal all of them, also those running as another user of the container (MariaDB's). After
    STOP it waits (bounded) until each stands stopped.
    """
    q = shlex.quote(name)
    wait = (" && { for p in $hp; do " + wait_stopped("$p") + "; done; }") if sig == "STOP" else ""
    return (f"hp=$({cli} top {q} hpid | tail -n +2) && [ -n \"$hp\" ] && "
            f"{cli} unshare kill -{sig} $hp{wait}")


def listeners_command(address: str) -> str:
    """Return ``ss`` listing the TCP sockets listening on ``address``, with their processes."""
    return f"ss -Hltnp src {shlex.quote(address)}"


def parse_listeners(text: str) -> str:
    """Return ``address:port process`` of each listener :func:`listeners_command` printed, by commas.

    ``users:(("rootlessport",pid=…,fd=…))`` names the process; a line without one (the kernel's
    own, or a process ss may not name) is given as ``?``.
    """
    import re

    out = []
    for line in text.splitlines():
        fields = line.split()
        if len(fields) < 4:
            continue
        proc = re.search(r'users:\(\("([^"]+)"', line)
        out.append(f"{fields[3]} {proc.group(1) if proc else '?'}")
    return ", ".join(sorted(out))  # not "; ": that separates the facts in the provenance notes


def facts_command(cli: str, name: str) -> str:
    """Return the command printing Podman's facts: ``podman info`` and the container's, as JSON.

    Two lines: ``podman info --format json`` on one, the container's network mode, runtime and
    address on the next (a failed command leaves an empty line); then the versions of
    slirp4netns and pasta (Debian's pasta says "unknown version": the package's is given).
    """
    q = shlex.quote(name)
    return "\n".join([
        f"{cli} info --format json | tr -d '\\n'; echo",
        f"{cli} inspect -f {shlex.quote(_INSPECT)} {q} | tr -d '\\n'; echo",
        "printf 'slirp4netns=%s\\n' \"$(slirp4netns --version 2>/dev/null | head -n 1)\"",
        "printf 'passt=%s\\n' \"$(dpkg-query -W -f '${Version}' passt 2>/dev/null)\"",
    ])


def parse_facts(text: str) -> dict[str, str]:
    """Parse :func:`facts_command`'s output into ``podman_*`` provenance fields.

    Version, OCI runtime and its version, network backend, storage driver (and its backing file
    system), cgroup version and manager, whether rootless, the container's network mode and
    runtime, and the user-mode network tools' versions. A part that cannot be read is left out
    (never a made-up value).
    """
    lines = text.splitlines()
    facts: dict[str, str] = {}

    def load(i: int) -> dict:
        try:
            value = json.loads(lines[i]) if len(lines) > i and lines[i].strip() else {}
        except json.JSONDecodeError:
            return {}
        return value if isinstance(value, dict) else {}

    info, hostconfig = load(0), load(1)
    host, store = info.get("host", {}), info.get("store", {})
    runtime = host.get("ociRuntime", {})
    pairs = {
        "podman_version": info.get("version", {}).get("Version"),
        "podman_oci_runtime": runtime.get("name"),
        "podman_oci_runtime_version": (runtime.get("version") or "").splitlines()[0]
        if runtime.get("version") else None,
        "podman_network_backend": host.get("networkBackend"),
        "podman_storage_driver": store.get("graphDriverName"),
        "podman_storage_backing_fs": store.get("graphStatus", {}).get("Backing Filesystem"),
        "podman_cgroup_version": host.get("cgroupVersion"),
        "podman_cgroup_manager": host.get("cgroupManager"),
        "podman_rootless": (str(host["security"]["rootless"]).lower()
                            if "rootless" in host.get("security", {}) else None),
        "podman_conmon": (host.get("conmon", {}).get("version") or "").splitlines()[0]
        if host.get("conmon", {}).get("version") else None,
        "podman_network_mode": hostconfig.get("NetworkMode"),
        "podman_container_runtime": hostconfig.get("Runtime"),
    }
    for line in lines[2:]:
        key, sep, value = line.partition("=")
        if sep and key in ("slirp4netns", "passt") and value.strip():
            pairs[f"podman_{key}_version"] = value.strip().removeprefix("slirp4netns version ")
    facts.update({k: str(v) for k, v in pairs.items() if v not in (None, "")})
    return facts


class PodmanEnv(EnvSpec):
    """A long-running Podman container on ``host``, rootful or rootless; each trial a ``podman exec``.

    ``rootless: true`` logs in to the host as ``user`` (default ``overhead-rootless``: an
    unprivileged user with subordinate ids) with the host's key and known_hosts. Networks:
    rootful ``host`` or ``bridge``; rootless ``host``, ``slirp4netns`` or ``pasta``.
    ``driver``: the store's storage driver (overlay, the default store; fuse-overlayfs or vfs,
    stores of their own).
    """

    kind: Literal["podman"]
    rootless: bool = False
    user: UserName | None = None
    net: Literal["host", "bridge", "slirp4netns", "pasta"] = "host"
    port_handler: Literal["rootlesskit", "slirp4netns"] = "rootlesskit"
    storage: Literal["volume", "overlay"] = "volume"
    driver: Literal["overlay", "fuse-overlayfs", "vfs"] = "overlay"
    runtime: Literal["runc", "crun"] = "runc"
    image: ImageRef = "overhead/bench:latest"
    ports: tuple[Annotated[Int, Field(ge=1, le=65535)], ...] = ()
    cpus: Number | None = Field(None, gt=0, le=4096)

    @model_validator(mode="after")
    def _what_runs(self) -> PodmanEnv:
        """Refuse combinations Podman cannot run, naming why."""
        if self.rootless and self.net == "bridge":
            raise ValueError("net: bridge is rootful Podman's (a rootless bridge needs a rootless "
                             "network namespace this project does not set up): use slirp4netns "
                             "or pasta, or rootless: false")
        if not self.rootless and self.net in ("slirp4netns", "pasta"):
            raise ValueError(f"net: {self.net} is the rootless network: set rootless: true, or "
                             "use host or bridge")
        if self.port_handler != "rootlesskit" and self.net != "slirp4netns":
            raise ValueError("port_handler applies to net: slirp4netns only")
        if self.user is not None and not self.rootless:
            raise ValueError("user applies to rootless: true only (rootful runs as the host's user)")
        if self.rootless and self.cpus:
            raise ValueError("cpus: a rootless container on cgroup v1 has no cgroup to limit "
                             "(and cannot be given one): leave cpus out, or rootless: false")
        return self


class PodmanEnvironment(DockerEnvironment):
    """A long-running Podman container; each trial a ``podman exec`` (as the user, rootless)."""

    Spec = PodmanEnv
    tidy_environment = "podman"

    def __init__(self, ctx: Context):
        """Name the container; a rootless one works through the user's login and folder."""
        spec = ctx.spec
        self.login = (spec.user or ROOTLESS_USER) if spec.rootless else None
        self._user_conn = None
        self.root_host = ctx.host  # the host as the campaign's own login
        if self.login:
            ctx = replace(ctx, host=self.user_conn,
                          folder=f"{REMOTE_BASE}-{self.login}/{ctx.campaign}")
        super().__init__(ctx)
        self.variant = variant(spec.rootless, spec.net, spec.storage, spec.runtime, spec.driver,
                               spec.port_handler)
        self.cli = cli_command(spec.rootless, spec.driver)
        # host networking shares the host's ports; the others listen in their own namespace
        self.shares_host_ports = spec.net == "host"
        self.pasta_pid = f"{self.ctx.folder}/{self.container}.pasta.pid"

    def user_conn(self):
        """Return the connection to the host as the rootless user (made again when it broke)."""
        from overhead.environments.connect import HostKeyError, SSHError, connect
        from overhead.environments.remote import Remote

        if self._user_conn is None or not self._user_conn.alive():
            c = self.ctx
            if c.known_hosts is None:
                raise TrialFailed("a rootless environment logs in to its host as "
                                  f"{self.login}: the host needs known_hosts")
            try:
                self._user_conn = Remote(
                    connect(c.address, c.ssh_port, self.login, known_hosts=c.known_hosts,
                            key_file=c.key_file, host_key_alias=c.host_key_alias, timeout=10,
                            keepalive=c.keepalive),
                    keepalive=c.keepalive, responsive=10 + c.keepalive, interrupt=c.stop)
            except HostKeyError:
                raise  # a refused host key stops the campaign
            except SSHError as exc:
                raise TrialFailed(f"cannot log in to {c.address}:{c.ssh_port} as {self.login} "
                                  f"(the rootless user; make hosts-up makes it): {exc}") from None
        return self._user_conn

    def start(self) -> None:
        """Copy the runners, (re)create the container, attach pasta, record the facts."""
        conn = self.ctx.host()
        s = self.spec
        base = self.ctx.folder.rsplit("/", 1)[0]
        self.runners = conn.ensure_runners(self.ctx.runners_dir, base)
        trials = f"{self.ctx.folder}/trials"
        conn.exec(f"mkdir -p {trials}", 60)
        self.facts = {}
        status, out, err = conn.exec(image_command(self.cli, s.image), 900)
        if status != 0:
            raise TrialFailed(f"image {s.image} is not in Podman's store "
                              f"{'of ' + self.login if self.login else '(rootful)'}"
                              f"{' for driver ' + s.driver if s.driver != 'overlay' else ''}: "
                              "make hosts-up imports it", tail(out + err))
        if "copied" in out:
            self.ctx.event("image-copied", environment=self.name, driver=s.driver)
        parent = None
        if not s.rootless and self.make_cgroup() is not None:
            parent = self.ctx.cgroup  # Podman's cgroupfs manager takes a path
        cgroup = self.facts.get("cgroup")
        _, limits, _ = conn.exec(limits_command(), 60)
        ulimits = ulimit_words(s.rootless, limits)
        status, out, err = conn.exec(start_command(
            self.container, cli=self.cli, image=s.image, net=s.net, storage=s.storage,
            runtime=s.runtime, runners_dir=self.runners, trials_dir=trials, ulimits=ulimits,
            ports=self.ctx.server_ports, rootless=s.rootless, port_handler=s.port_handler,
            cpus=s.cpus, publish_address=self.loopback, cgroup_parent=parent), 180)
        if status != 0:
            raise TrialFailed(f"podman run failed (exit {status})", tail(out + err))
        if s.net == "pasta":
            status, out, err = conn.exec(pasta_command(
                self.cli, self.container, self.pasta_pid, self.ctx.server_ports, self.loopback), 60)
            if status != 0:
                raise TrialFailed(f"pasta did not attach to container {self.container} "
                                  f"(exit {status})", tail(out + err))
        self.paused = False
        self.accounted = parent is not None
        self.facts = self.endpoint_facts_in_container(conn)
        self.facts["cgroup"] = (cgroup if parent else
                                "unavailable: a rootless container on cgroup v1 has no cgroup"
                                if s.rootless else "unavailable: no cgroup made")
        self.facts["podman_ulimits"] = " ".join(ulimits)
        self.facts["podman_user"] = self.login or "root"
        self.facts.update(self.host_facts(conn))
        status, out, _ = conn.exec(facts_command(self.cli, self.container), 60)
        if status == 0:
            self.facts.update(parse_facts(out))
        if s.net != "host" and self.ctx.server_ports:
            # what holds the published ports on the host: the forwarder a client talks to
            status, out, _ = self.root_host().exec(listeners_command(self.loopback), 60)
            if status == 0:
                self.facts["published_listeners"] = parse_listeners(out)

    def nat_counts(self):
        """Return None: Podman's ports are not Docker's DNAT rules.

        Rootful, they go through netavark's chains; rootless, through a user-space forwarder.
        """
        return None

    def listen(self, client_is_here):
        """Return the server's listen address: any in the container's own network namespace."""
        return "0.0.0.0" if self.spec.net != "host" else super(DockerEnvironment, self).listen(  # noqa: S104
            client_is_here)

    def pause(self):
        """Freeze the container: ``podman pause`` rootful; every process SIGSTOPped rootless.

        A rootless container on cgroup v1 has no freezer (:func:`signal_all_command`).
        """
        if not self.spec.rootless:
            return super().pause()
        status, out, err = self.ctx.host().exec(signal_all_command(self.cli, self.container,
                                                                   "STOP"), 60)
        if status != 0:
            raise TrialFailed(f"could not stop the processes of {self.container} (exit {status})",
                              tail(out + err))
        self.paused = True
        return None

    def resume(self):
        """Thaw the container (``podman unpause``, or SIGCONT to every process rootless)."""
        if not self.spec.rootless:
            return super().resume()
        status, out, err = self.ctx.host().exec(signal_all_command(self.cli, self.container,
                                                                   "CONT"), 60)
        if status != 0:
            raise TrialFailed(f"could not continue the processes of {self.container} "
                              f"(exit {status})", tail(out + err))
        self.paused = False
        return None

    def is_running(self) -> bool:
        """Whether the container runs (and, with pasta, its pasta: without it there is no network)."""
        if not super().is_running():
            return False
        if self.spec.net != "pasta":
            return True
        try:
            status, out, _ = self.ctx.host().exec(
                f"p=$(cat {shlex.quote(self.pasta_pid)} 2>/dev/null) && "
                "cat /proc/$p/comm 2>/dev/null", 60)
        except TrialFailed:
            return False
        return status == 0 and out.strip().startswith(("pasta", "passt"))

    def diagnose(self, failure):
        """Say so when the container (or its pasta) stopped during the trial."""
        refined = super().diagnose(failure)
        if refined is not failure and self.spec.net == "pasta":
            return TrialFailed(refined.cause.replace("stopped during the trial",
                                                     "or its pasta stopped during the trial"),
                               refined.stderr, refined.exit_status)
        return refined

    def stop(self):
        """Stop pasta, remove the container and its scratch volume, then the cgroup.

        A rootless environment's trials folder is then removed by the campaign's own login (a
        load generator's trial directories in it are root's), and the user's login closed.
        """
        if self.started and self.spec.net == "pasta":
            self.ctx.host().exec(pasta_stop_command(self.pasta_pid) + "; true", 60,
                                 interruptible=False)
        super().stop()
        if self.login:
            self.root_host().exec(f"rm -rf {shlex.quote(self.ctx.folder)}/trials", 60,
                                  interruptible=False)
            if self._user_conn is not None:
                self._user_conn.close()
                self._user_conn = None

    def facts_record(self) -> dict:
        """Return the provenance, with the rootless flag and the login it ran as."""
        return {**super().facts_record(), "rootless": self.spec.rootless}

    def __repr__(self) -> str:
        """Name the environment and its variant."""
        return f"PodmanEnvironment({self.name!r}, {self.variant!r})"
