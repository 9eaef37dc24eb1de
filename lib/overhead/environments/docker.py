"""Docker environments: one long-running container per campaign environment.

The container is started once (``docker run -d``) with the variant's flags, and every trial is
a ``docker exec`` of the runner in it. The runners folder and the trials folder on the host are
bind-mounted; the storage variant decides only where the benchmark's own scratch data lives
(/var/tmp, where the runners write): a Docker volume, or the container's own overlay
filesystem. These functions build command lines; the executor runs them over SSH.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence

from overhead.environments.native import KILL_AFTER, runner_command

__all__ = ["container_name", "exec_command", "facts_command", "parse_facts", "prepare_command",
           "running_command",
           "start_command", "stop_command", "variant"]

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
                  cpus: float | None = None, publish_address: str = "127.0.0.1") -> str:
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
        for port in ports:  # TCP and UDP: netperf's UDP_RR uses the data port over UDP
            words += ["-p", f"{publish_address}:{port}:{port}",
                      "-p", f"{publish_address}:{port}:{port}/udp"]
    if cpus:
        words += ["--cpus", str(cpus)]
    # PID 1 is a shell that exits on TERM (a bare sleep would ignore it and make `docker stop`
    # wait its grace period out)
    words += [image, "sh", "-c", "trap 'exit 0' TERM INT; while :; do sleep 3600 & wait $!; done"]
    return f"docker rm -f {shlex.quote(name)} >/dev/null 2>&1; " + shlex.join(words)


def running_command(name: str) -> str:
    """Return a command printing ``true`` when the container is running."""
    return f"docker inspect -f '{{{{.State.Running}}}}' {shlex.quote(name)} 2>/dev/null || echo false"


def exec_command(name: str, runner: str, trial_id: str, params: Mapping[str, object],
                 timeout: float) -> str:
    """Return the command running a runner in the container into /overhead/trials/<trial_id>.

    The runner's timeout is applied inside the container (so the tool itself is killed), and a
    second, longer one around ``docker exec`` on the host.
    """
    inner = runner_command(RUNNERS_MOUNT, runner, f"{TRIALS_MOUNT}/{trial_id}", params, timeout,
                           pgid_file=f"{TRIALS_MOUNT}/{trial_id}.pgid")
    outer = max(1, round(timeout)) + 2 * KILL_AFTER
    return (f"timeout -k {KILL_AFTER} {outer} docker exec {shlex.quote(name)} "
            f"sh -c {shlex.quote(inner)}")


def prepare_command(name: str, trial_id: str, trials_dir: str) -> str:
    """Return the command clearing the way for a (re-)run: kill a stale attempt, remove its files.

    The process group is killed inside the container, where its id was written and means
    something (on the host that number names another process); the files are removed on the
    host, where the trials folder is mounted from.
    """
    kill = (f"p={TRIALS_MOUNT}/{trial_id}.pgid; "
            "if [ -s $p ]; then kill -KILL -$(cat $p) 2>/dev/null; fi; true")
    q = shlex.quote(f"{trials_dir}/{trial_id}")
    return (f"docker exec {shlex.quote(name)} sh -c {shlex.quote(kill)} >/dev/null 2>&1; "
            f"rm -rf {q} {q}.partial.* {q}.pgid")


def stop_command(name: str, storage: str) -> str:
    """Return the command removing the container (and its scratch volume)."""
    cmd = f"docker rm -f {shlex.quote(name)} >/dev/null 2>&1"
    if storage == "volume":
        cmd += f"; docker volume rm -f {shlex.quote(name)} >/dev/null 2>&1"
    return cmd + "; true"


def facts_command(name: str) -> str:
    """Return a command printing the Docker version, storage driver and network mode."""
    q = shlex.quote(name)
    return (f"printf 'docker_version=%s\\n' \"$(docker version --format '{{{{.Server.Version}}}}')\"; "
            f"printf 'docker_storage_driver=%s\\n' \"$(docker info --format '{{{{.Driver}}}}')\"; "
            f"printf 'docker_network_mode=%s\\n' \"$(docker inspect -f '{{{{.HostConfig.NetworkMode}}}}' {q})\"; "
            f"printf 'docker_runtime=%s\\n' \"$(docker inspect -f '{{{{.HostConfig.Runtime}}}}' {q})\"")


def parse_facts(text: str) -> dict[str, str]:
    """Parse the ``name=value`` lines of :func:`facts_command`."""
    from overhead.environments.native import parse_facts as parse

    return parse(text)
