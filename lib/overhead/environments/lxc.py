"""LXC environments: a system container booted from the local hosts' Debian tree, veth on a bridge.

The container boots the image's own systemd (a *system* container, where Docker runs one
process) with its root filesystem an overlay over the debootstrap tree that the VM's disk and
the Docker image are made from: the tree is the overlay's read-only lower layer and is never
written; what the container writes goes to an upper folder in the container's own folder
(``/var/lib/lxc/<name>/upper``), removed with it. Its network is a veth pair whose host side is
on a bridge the environment makes (with the host's address on it, the container's gateway), so
the container has its own network namespace and a static address on the bridge, where a client
on the host reaches its servers.

Every trial is an ``lxc-attach`` of the runner; the runners folder and the campaign's trials
folder on the host are bind-mounted at the same places as in a Docker container
(/overhead/runners read-only, /overhead/trials), so the engine fetches trial directories from
the host. The functions build command lines (pure, testable without LXC);
:class:`LxcEnvironment` runs them over SSH.

Services the image enables that no trial needs are masked in the upper layer before the boot:
the units the VM image masks (images/debian/build.sh: the benchmarks' own servers, timers,
nginx, PostgreSQL, rpcbind...) and those a container has no use for (its sshd, systemd-networkd,
which would manage the address LXC set, the console gettys). The boot goes on to
multi-user.target; what is left is systemd, journald and the trials.

Unprivileged LXC (``privileged: false``) is refused at start with the cause the host shows
(:func:`unprivileged_probe_command`): LXC 5.0 idmaps only a ``dir`` root filesystem, so over the
image tree's overlay the files would be owned by nobody in the container; and a cgroup v1 host
does not delegate its hierarchies to a user, so systemd cannot make its own cgroup there.
"""

from __future__ import annotations

import ipaddress
import re
import shlex
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator, model_validator

from overhead.environments import posix
from overhead.environments.base import (
    PID_LINE,
    Context,
    Environment,
    TrialFailed,
    tail,
    wait_gone,
)
from overhead.environments.posix import KILL_AFTER, runner_command, sweep_command
from overhead.environments.spec import MAX_SECONDS, EnvSpec, Number

__all__ = ["MASKED_UNITS", "LxcEnv", "LxcEnvironment", "boot_wait_command", "bridge_command",
           "bridge_remove_command", "cgroup_mode_command", "cgroup_remove_command", "config_text",
           "container_address", "container_dir", "container_name", "cpuset_prepare_command", "exec_command", "facts_command",
           "parse_facts", "pause_command", "prepare_command", "running_command", "start_command",
           "stop_command", "unprivileged_cause", "unprivileged_probe_command", "variant"]

#: Where the runners and trials are mounted inside the container (as in a Docker container).
RUNNERS_MOUNT = "/overhead/runners"
TRIALS_MOUNT = "/overhead/trials"
#: LXC's default container folder (``lxc-*`` find a container there by name alone).
LXC_PATH = "/var/lib/lxc"
#: The alias a bridge the environment made carries: only such a bridge is removed again.
BRIDGE_ALIAS = "overhead-lxc"
#: The PATH of commands run in the container (``lxc-attach --clear-env``: nothing of the SSH
#: session's environment goes in, as nothing of it goes into ``docker exec``).
CONTAINER_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

#: Units masked in the container (a link to /dev/null in the upper layer's /etc/systemd/system).
#: The first lines are the VM image's masks (images/debian/build.sh), for the same reasons: the
#: benchmarks start their own servers, timers would disturb measurements, and boot jobs that do
#: nothing here. nginx and PostgreSQL are masked too: an image built before build.sh masked them
#: starts both. The rest are the container's own: its sshd (trials come in by lxc-attach),
#: systemd-networkd (LXC sets the address; networkd would take over the link and look for
#: DHCP), the consoles' gettys, NFS client plumbing (rpc_pipefs cannot be mounted in a
#: container) and the remaining timers.
MASKED_UNITS = (
    "redis-server.service", "netperf.service", "mariadb.service", "sysstat.service",
    "systemd-networkd-wait-online.service", "nginx.service", "postgresql.service",
    "postgresql@.service", "e2scrub_reap.service", "getty@.service", "getty-static.service",
    "rpcbind.service", "rpcbind.socket", "apt-daily.timer", "apt-daily-upgrade.timer",
    "e2scrub_all.timer", "fstrim.timer",
    "ssh.service", "sshd.service", "systemd-networkd.service", "systemd-networkd.socket",
    "systemd-network-generator.service", "console-getty.service", "container-getty@.service",
    "nfs-client.target", "run-rpc_pipefs.mount", "rpc-gssd.service", "rpc-statd.service",
    "rpc-svcgssd.service", "dpkg-db-backup.timer", "sysstat-collect.timer",
    "sysstat-summary.timer", "systemd-pstore.service",
)

_BRIDGE_NAME = re.compile(r"[A-Za-z0-9_.-]{1,15}")


def container_name(campaign: str, environment: str) -> str:
    """Return the container's name: ``overhead-<campaign>-<environment>``."""
    return f"overhead-{campaign}-{environment}"


def container_dir(name: str) -> str:
    """Return the container's folder (its config, LXC's log, the overlay's upper layer)."""
    return f"{LXC_PATH}/{name}"


def variant(privileged: bool) -> str:
    """Return the tidy variant string, e.g. ``net=veth-bridge,storage=overlay,privileged=true``."""
    return f"net=veth-bridge,storage=overlay,privileged={'true' if privileged else 'false'}"


def container_address(bridge_address: str, k: int) -> str:
    """Return the ``k``-th container address of the bridge's network (k = 1: the first after it).

    The environment's k is its loopback's last octet (``127.0.0.<k>``, one per environment of
    its host), so two LXC environments of a campaign on one host never share an address.

    Raises
    ------
    ValueError
        When the network has no k-th address after the bridge's own.
    """
    iface = ipaddress.IPv4Interface(bridge_address)
    hosts = [h for h in iface.network.hosts() if h != iface.ip]
    if not 1 <= k <= len(hosts):
        raise ValueError(f"the bridge network {iface.network} has no address number {k} for a "
                         f"container (it has {len(hosts)})")
    return str(hosts[k - 1])


def config_text(name: str, *, tree: str, bridge: str, address: str, bridge_address: str,
                runners_dir: str, trials_dir: str, cgroup_dir: str | None = None) -> str:
    """Return the container's LXC configuration (``/var/lib/lxc/<name>/config``).

    Parameters
    ----------
    name : str
        The container's name (and hostname).
    tree : str
        The image's root tree on the host: the overlay's lower layer, never written.
    bridge : str
        The host bridge the veth's host side is put on.
    address : str
        The container's IPv4 address on the bridge (the prefix is the bridge network's).
    bridge_address : str
        The host's address on the bridge with its prefix (``10.199.0.1/24``): the gateway.
    runners_dir, trials_dir : str
        Host folders mounted at /overhead/runners (read-only) and /overhead/trials.
    cgroup_dir : str, optional
        ``lxc.cgroup.dir``: the environment's cgroup, under which LXC makes the container's (its
        CPU time is then the environment's); None: LXC's default place.

    Returns
    -------
    str
        The configuration, one ``key = value`` a line.
    """
    iface = ipaddress.IPv4Interface(bridge_address)
    folder = container_dir(name)
    lines = [
        f"lxc.uts.name = {name}",
        f"lxc.rootfs.path = overlay:{tree}:{folder}/upper",
        "lxc.include = /usr/share/lxc/config/common.conf",
        "lxc.arch = x86_64",
        "lxc.net.0.type = veth",
        f"lxc.net.0.link = {bridge}",
        "lxc.net.0.flags = up",
        f"lxc.net.0.ipv4.address = {address}/{iface.network.prefixlen}",
        f"lxc.net.0.ipv4.gateway = {iface.ip}",
        # the image's own systemd is PID 1 (a system container); AppArmor is left off because
        # the hosts of this project have no AppArmor in their kernels
        "lxc.apparmor.profile = unconfined",
        f"lxc.mount.entry = {runners_dir} {RUNNERS_MOUNT.lstrip('/')} none bind,ro,create=dir 0 0",
        f"lxc.mount.entry = {trials_dir} {TRIALS_MOUNT.lstrip('/')} none bind,create=dir 0 0",
    ]
    if cgroup_dir:
        lines.append(f"lxc.cgroup.dir = {cgroup_dir.strip('/')}")
    return "\n".join(lines) + "\n"


def bridge_command(bridge: str, bridge_address: str) -> str:
    """Return the command that makes the bridge if it is missing and gives it the host's address.

    Idempotent: an existing bridge is kept (its address added if it lacks it). A bridge made
    here carries the alias ``overhead-lxc`` (:func:`bridge_remove_command` removes only such a
    one) and the command prints ``bridge=made``; otherwise ``bridge=existing``.
    """
    b = shlex.quote(bridge)
    a = shlex.quote(bridge_address)
    return (f"if ip link show {b} >/dev/null 2>&1; then echo bridge=existing; else "
            f"ip link add {b} type bridge && ip link set {b} alias {BRIDGE_ALIAS} && "
            f"echo bridge=made || exit 1; fi; "
            f"ip -4 -o addr show dev {b} | grep -qw {shlex.quote('inet ' + bridge_address)} || "
            f"ip addr add {a} dev {b} || exit 1; ip link set {b} up")


def bridge_remove_command(bridge: str) -> str:
    """Return the command removing the bridge if the environment made it and nothing uses it.

    A bridge is removed only when it carries the alias ``overhead-lxc`` (one the user made
    stays) and no interface is on it any more (another container's veth keeps it). Prints
    ``bridge=removed`` or ``bridge=kept``.
    """
    b = shlex.quote(bridge)
    return (f"if [ \"$(cat /sys/class/net/{b}/ifalias 2>/dev/null)\" = {BRIDGE_ALIAS} ] && "
            f"[ -z \"$(ls /sys/class/net/{b}/brif 2>/dev/null)\" ] && ip link del {b}; "
            f"then echo bridge=removed; else echo bridge=kept; fi")


def start_command(name: str, config: str, masked: Sequence[str] = MASKED_UNITS) -> str:
    """Return the command that (re)creates the container's folder and starts it.

    A container of that name left by an earlier run is stopped and removed first. The upper
    layer gets the masks of ``masked``, an empty fstab (the image's names the VM's disk) and
    the container's hostname, so the tree below is read, never written. LXC's log goes to
    ``lxc.log`` in the container's folder; when the start fails its last lines are printed.
    """
    folder = shlex.quote(container_dir(name))
    n = shlex.quote(name)
    etc = f"{folder}/upper/etc"
    units = " ".join(shlex.quote(u) for u in masked)
    return (f"{stop_command(name)}; "
            f"mkdir -p {etc}/systemd/system && "
            f"for u in {units}; do ln -sf /dev/null {etc}/systemd/system/$u; done && "
            f": > {etc}/fstab && echo {n} > {etc}/hostname && "
            f"printf '%s' {shlex.quote(config)} > {folder}/config && "
            f"lxc-start -n {n} -l INFO -o {folder}/lxc.log || "
            f"{{ s=$?; tail -n 20 {folder}/lxc.log >&2; exit $s; }}")


def boot_wait_command(name: str, seconds: float) -> str:
    """Return the command waiting (bounded) until the container's systemd finished booting.

    ``systemctl is-system-running --wait`` answers once the boot is over (``running``, or
    ``degraded`` when a unit failed); before systemd's bus is up it fails at once, so it is
    asked again every half second. Prints ``boot=<state>`` and the failed units
    (``failed=a b``); exits 1 when the container does not answer within ``seconds``.
    """
    n = shlex.quote(name)
    tenths = max(1, round(seconds * 2))
    ask = f"timeout 30 lxc-attach -n {n} --clear-env -- systemctl is-system-running --wait 2>/dev/null"
    failed = (f"lxc-attach -n {n} --clear-env -- systemctl --failed --no-legend --plain "
              "2>/dev/null | cut -d' ' -f1 | tr '\\n' ' '")
    return (f"i=0; while [ $i -lt {tenths} ]; do s=$({ask}); case $s in running|degraded) "
            f"echo boot=$s; echo failed=$({failed}); exit 0;; esac; "
            f"lxc-info -s -n {n} 2>/dev/null | grep -q RUNNING || "
            f"{{ echo boot=stopped; exit 1; }}; sleep 0.5; i=$((i+1)); done; "
            f"echo boot=timeout; exit 1")


def attach(name: str, script: str, *, detach_stdin: bool = False) -> str:
    """Return ``lxc-attach`` running ``sh -c script`` in the container with a clean environment."""
    words = ["lxc-attach", "-n", name, "--clear-env", "--set-var", f"PATH={CONTAINER_PATH}",
             "--set-var", "HOME=/root", "--", "sh", "-c", script]
    return shlex.join(words) + (" < /dev/null" if detach_stdin else "")


def pause_command(name: str, pause: bool = True) -> str:
    """Return ``lxc-freeze`` (freeze every process of the container) or ``lxc-unfreeze``."""
    return f"lxc-{'freeze' if pause else 'unfreeze'} -n {shlex.quote(name)}"


def running_command(name: str) -> str:
    """Return a command printing the container's state (``RUNNING``, ``FROZEN``, ``STOPPED``...).

    ``gone`` when LXC knows no container of that name.
    """
    return (f"lxc-info -s -n {shlex.quote(name)} 2>/dev/null | sed -n 's/^State:[[:space:]]*//p' "
            "| grep . || echo gone")


def exec_command(name: str, runner: str, trial_id: str, params: Mapping[str, object],
                 timeout: float) -> str:
    """Return the command running a runner in the container into /overhead/trials/<trial_id>.

    The runner's timeout is applied inside the container (so the tool itself is killed), and a
    second, longer one around ``lxc-attach`` on the host.
    """
    inner = runner_command(RUNNERS_MOUNT, runner, f"{TRIALS_MOUNT}/{trial_id}", params, timeout,
                           pgid_file=f"{TRIALS_MOUNT}/{trial_id}.pgid")
    outer = max(1, round(timeout)) + 2 * KILL_AFTER
    return f"timeout -k {KILL_AFTER} {outer} {attach(name, inner, detach_stdin=True)}"


def prepare_command(name: str, trial_id: str, trials_dir: str, *, sweep: bool = True) -> str:
    """Return the command clearing the way for a (re-)run: kill a stale attempt, remove its files.

    The process group and what is left of the runner are killed inside the container, where
    the ids were written; the files are removed on the host, where the trials folder is
    mounted from. ``sweep=False`` (a trial never started): only the files.
    """
    q = shlex.quote(f"{trials_dir}/{trial_id}")
    if not sweep:
        return f"rm -rf {q} {q}.partial.* {q}.pgid"
    kill = (f"p={TRIALS_MOUNT}/{trial_id}.pgid; "
            "if [ -s $p ]; then kill -KILL -$(cat $p) 2>/dev/null; fi; "
            f"{sweep_command(f'{TRIALS_MOUNT}/{trial_id}')}; true")
    return (f"{attach(name, kill, detach_stdin=True)} >/dev/null 2>&1; "
            f"rm -rf {q} {q}.partial.* {q}.pgid")


def stop_command(name: str) -> str:
    """Return the command stopping the container (kill) and removing its folder and upper layer.

    ``lxc-destroy`` removes the overlay's upper and work folders (never the lower tree); the
    folder is removed again in case LXC no longer knew the container.
    """
    n = shlex.quote(name)
    return (f"lxc-stop -k -n {n} >/dev/null 2>&1; lxc-destroy -n {n} >/dev/null 2>&1; "
            f"rm -rf {shlex.quote(container_dir(name))}; true")


def cgroup_remove_command(cgroup: str, name: str) -> str:
    """Return the command removing what LXC made below the environment's cgroup, in every hierarchy.

    With ``lxc.cgroup.dir`` LXC makes ``lxc.payload.<name>`` and ``lxc.monitor.<name>`` below
    the environment's cgroup in each hierarchy (a cgroup v1 host has one per controller) and
    leaves ``lxc.pivot`` there when the container ends; they are removed with the
    environment's cgroup and its empty parents (``rmdir``: a cgroup still in use stays).
    """
    parts = cgroup.strip("/").split("/")
    leaves = [f"{cgroup}/lxc.payload.{name}", f"{cgroup}/lxc.monitor.{name}", f"{cgroup}/lxc.pivot"]
    dirs = leaves + ["/".join(parts[:i]) for i in range(len(parts), 0, -1)]
    rm = " ".join(shlex.quote(d) for d in dirs)
    return (f"for h in /sys/fs/cgroup /sys/fs/cgroup/*; do for d in {rm}; do "
            f"[ -d \"$h/$d\" ] && rmdir \"$h/$d\" 2>/dev/null; done; done; true")


def cpuset_prepare_command(cgroup: str, root: str = "/sys/fs/cgroup/cpuset") -> str:
    """Return the command giving each level of ``cgroup`` in the cpuset v1 hierarchy its CPUs.

    A cpuset cgroup is made with no CPUs and no memory nodes, and no process can enter it then
    ("No space left on device"). LXC fills in the levels it makes itself, but not one made before
    it by another (runc makes ``overhead/<campaign>`` there for a Docker or Podman environment
    of the same campaign, without ``cgroup.clone_children``): below such a level the monitor's
    cgroup stays empty and lxc-start fails. Each level here gets its parent's CPUs and nodes
    when it has none, and ``cgroup.clone_children`` so that the cgroups LXC makes below it
    (``lxc.monitor.<name>``, ``lxc.payload.<name>``) get them too (nothing on a host without a
    cpuset v1 hierarchy).
    """
    parts = " ".join(shlex.quote(p) for p in cgroup.strip("/").split("/"))
    return (f"c={shlex.quote(root)}; if [ -r $c/cpuset.cpus ] && [ ! -r $c/cgroup.controllers ]; "
            f"then p=$c; for part in {parts}; do d=$p/$part; mkdir -p $d || break; "
            "for f in cpuset.cpus cpuset.mems; do [ -n \"$(cat $d/$f)\" ] || cat $p/$f > $d/$f; "
            "done; echo 1 > $d/cgroup.clone_children; p=$d; done; fi; true")


def cgroup_mode_command() -> str:
    """Return a command printing the host's cgroup layout as ``cgroup_mode=<v2|hybrid|v1>``.

    v2: /sys/fs/cgroup is the unified hierarchy; hybrid: cgroup v1 controllers with a cgroup2
    mount at /sys/fs/cgroup/unified (systemd's hybrid layout); v1: legacy hierarchies only.
    """
    return ("t=$(stat -fc %T /sys/fs/cgroup 2>/dev/null); "
            "if [ \"$t\" = cgroup2fs ]; then m=v2; "
            "elif [ \"$(stat -fc %T /sys/fs/cgroup/unified 2>/dev/null)\" = cgroup2fs ]; then m=hybrid; "
            "elif [ -n \"$t\" ]; then m=v1; else m=unavailable; fi; echo cgroup_mode=$m")


def facts_command() -> str:
    """Return a command printing the host's LXC facts: LXC's version and the cgroup layout."""
    return ("printf 'lxc_version=%s\\n' \"$(lxc-start --version 2>/dev/null)\"; "
            + cgroup_mode_command())


def parse_facts(text: str) -> dict[str, str]:
    """Parse :func:`facts_command`'s (or :func:`boot_wait_command`'s) ``name=value`` lines."""
    return posix.parse_facts(text)


def unprivileged_probe_command() -> str:
    """Return a command printing what an unprivileged container would need of the host.

    ``subids=yes|no``: whether the SSH user has subordinate uid and gid ranges (newuidmap
    refuses an idmap without them); ``lxc_version`` and ``cgroup_mode`` as in
    :func:`facts_command`.
    """
    return ("u=$(id -un); if grep -q \"^$u:\" /etc/subuid 2>/dev/null && "
            "grep -q \"^$u:\" /etc/subgid 2>/dev/null; then echo subids=yes; "
            "else echo subids=no user=$u; fi; " + facts_command())


def unprivileged_cause(probe: Mapping[str, str]) -> str:
    """Say in one line why an unprivileged container cannot run on the host the probe describes.

    Parameters
    ----------
    probe : mapping
        :func:`unprivileged_probe_command`'s output, parsed.

    Returns
    -------
    str
        The reasons found, most basic first: no subordinate ids for the user; LXC idmaps only a
        ``dir`` root filesystem (LXC 5), so the image tree under the overlay would be owned by
        nobody in the container (/etc read-only, services failing); a cgroup v1 host does not
        delegate its hierarchies (systemd cannot make /init.scope).
    """
    why = []
    if probe.get("subids") != "yes":
        user = (probe.get("subids") or "").partition("user=")[2] or "the SSH user"
        why.append(f"{user} has no subordinate uid/gid range in /etc/subuid and /etc/subgid "
                   "(newuidmap refuses the container's idmap)")
    version = probe.get("lxc_version", "unavailable")
    if not version[:1].isdigit() or int(version.split(".")[0]) <= 5:
        why.append(f"LXC {version} idmaps only a 'dir' root filesystem, not an overlay over the "
                   "image tree, which would be owned by nobody in the container (/etc read-only; "
                   "ssh, nginx and systemd-sysusers failed when tried)")
    if probe.get("cgroup_mode") in ("v1", "hybrid"):
        why.append(f"the host's cgroup {probe['cgroup_mode']} layout does not delegate its v1 "
                   "hierarchies to an unprivileged user (systemd in the container: \"Failed to "
                   "create /init.scope control group: Permission denied\")")
    if not why:
        why.append("this environment runs only privileged containers")
    return "unprivileged LXC cannot run here: " + "; ".join(why)


class LxcEnv(EnvSpec):
    """A system container on ``host`` booted from the image tree; each trial an ``lxc-attach``.

    ``image`` is the local hosts' image folder (its ``rootfs/`` is the tree; relative to the
    campaign file). The container's network is a veth on ``bridge`` (made when missing, with
    ``bridge_address``, the host's side and the container's gateway); ``address`` is the
    container's IPv4 there (default: the environment's k-th address after the bridge's own, k
    its loopback's last octet). ``privileged: false`` asks for an unprivileged container
    (user namespace), refused where the host cannot run one (the refusal says why).
    """

    path_fields = ("image",)

    kind: Literal["lxc"]
    image: Path
    privileged: bool = True
    bridge: str = "ovhlxc0"
    bridge_address: str = "10.199.0.1/24"
    address: str | None = None
    boot_timeout: Number = Field(120.0, gt=0, le=MAX_SECONDS)

    @field_validator("bridge")
    @classmethod
    def _bridge_name(cls, bridge: str) -> str:
        """Check that the bridge is a Linux interface name: 1-15 of letters, digits, ``_.-``."""
        if not _BRIDGE_NAME.fullmatch(bridge):
            raise ValueError(f"{bridge!r} is not an interface name (1-15 letters, digits, _ . -)")
        return bridge

    @field_validator("bridge_address")
    @classmethod
    def _bridge_address(cls, value: str) -> str:
        """Check the host's address: IPv4 with its prefix, not the network's own or broadcast."""
        try:
            iface = ipaddress.IPv4Interface(value)
        except ValueError:
            raise ValueError(f"{value!r} is not an IPv4 address with a prefix "
                             "(10.199.0.1/24)") from None
        if "/" not in value or iface.network.num_addresses < 4 or \
                iface.ip in (iface.network.network_address, iface.network.broadcast_address):
            raise ValueError(f"{value!r}: the host's address on the bridge, with a prefix of /30 "
                             "or wider, not the network's or broadcast address")
        return value

    @model_validator(mode="after")
    def _address_on_the_bridge(self) -> LxcEnv:
        """Check that the container's address is on the bridge's network and not the bridge's own."""
        if self.address is None:
            return self
        iface = ipaddress.IPv4Interface(self.bridge_address)
        try:
            ip = ipaddress.IPv4Address(self.address)
        except ValueError:
            raise ValueError(f"address: {self.address!r} is not an IPv4 address") from None
        if ip not in iface.network or ip == iface.ip or \
                ip in (iface.network.network_address, iface.network.broadcast_address):
            raise ValueError(f"address: {self.address} is not a container address on the "
                             f"bridge's network {iface.network} (the bridge has {iface.ip})")
        return self


class LxcEnvironment(Environment):
    """A system container from the image tree (overlay), veth on a bridge; each trial an ``lxc-attach``."""

    Spec = LxcEnv
    tidy_environment = "lxc"
    #: the container has a network namespace of its own: its servers hold no host port
    shares_host_ports = False

    def __init__(self, ctx: Context):
        """Name the container after the campaign and environment; settle its address."""
        super().__init__(ctx)
        spec = ctx.spec
        self.variant = variant(spec.privileged)
        self.container = container_name(ctx.campaign, ctx.name)
        k = int(ctx.loopback.rsplit(".", 1)[1])
        self.ip = spec.address or container_address(spec.bridge_address, k)
        self.touched = False  # a start got as far as the host: stop() has things to remove

    def _tree(self) -> str:
        """Return the image tree on the host (the campaign's folder resolves it on this machine)."""
        image = Path(self.spec.image).resolve() if self.ctx.local else Path(self.spec.image)
        return str(image / "rootfs")

    def start(self) -> None:
        """Copy the runners, make the bridge, boot the container and record its facts.

        Raises
        ------
        TrialFailed
            When the container cannot run here (unprivileged, the tree missing, ``lxc-start``
            failed, no boot within ``boot_timeout``): the engine marks the environment down with
            that cause.
        """
        conn = self.ctx.host()
        s = self.spec
        if not s.privileged:
            status, out, err = conn.exec(unprivileged_probe_command(), 60)
            raise TrialFailed(unprivileged_cause(parse_facts(out)), tail(out + err))
        tree = self._tree()
        status, out, err = conn.exec(f"test -x {shlex.quote(tree)}/sbin/init && "
                                     "command -v lxc-start >/dev/null", 60)
        if status != 0:
            raise TrialFailed(f"no LXC, or no image tree with /sbin/init at {tree} on host "
                              f"{s.host} (scripts/hosts-up.sh builds it; apt-get install lxc)",
                              tail(out + err))
        self.runners = conn.ensure_runners(self.ctx.runners_dir)
        trials = f"{self.ctx.folder}/trials"
        conn.exec(f"mkdir -p {trials}", 60)
        self.facts = {}
        self.touched = True
        status, out, err = conn.exec(bridge_command(s.bridge, s.bridge_address), 60)
        if status != 0:
            raise TrialFailed(f"could not make bridge {s.bridge} with {s.bridge_address} "
                              f"(exit {status})", tail(out + err))
        if "bridge=made" in out:
            self.ctx.event("lxc-bridge-made", environment=self.name, bridge=s.bridge,
                           address=s.bridge_address)
        cgroup = self.make_cgroup()  # the container's cgroup goes below it (lxc.cgroup.dir)
        if cgroup:
            conn.exec(cpuset_prepare_command(self.ctx.cgroup), 60)
        config = config_text(self.container, tree=tree, bridge=s.bridge, address=self.ip,
                             bridge_address=s.bridge_address, runners_dir=self.runners,
                             trials_dir=trials, cgroup_dir=self.ctx.cgroup if cgroup else None)
        status, out, err = conn.exec(start_command(self.container, config), 120)
        if status != 0:
            raise TrialFailed(f"lxc-start {self.container} failed (exit {status})",
                              tail(out + err))
        status, boot, err = conn.exec(boot_wait_command(self.container, s.boot_timeout),
                                      s.boot_timeout + 60)
        if status != 0:
            raise TrialFailed(f"container {self.container} did not finish booting within "
                              f"{s.boot_timeout:g} s ({boot.strip() or 'no answer'})",
                              tail(boot + err))
        self.paused = False
        self.accounted = cgroup is not None
        facts = self.endpoint_facts_in_container(conn)
        facts["cgroup"] = (cgroup if cgroup else
                           "unavailable: no cgroup made for the environment, so the container "
                           "is in LXC's default place")
        facts.update(self.host_facts(conn))  # the container sees the host's kernel
        status, out, _ = conn.exec(facts_command(), 60)
        if status == 0:
            facts.update(parse_facts(out))
        booted = parse_facts(boot)
        facts.update({
            "lxc_container": self.container,
            "privileged": "true" if s.privileged else "false",
            # started by root over SSH: the container's root is the host's root
            "rootless": "false",
            "network_backend": f"veth on bridge {s.bridge} ({s.bridge_address}), "
                               f"container {self.ip}",
            "storage_driver": f"overlay rootfs over the image tree {tree} (upper layer in "
                              f"{container_dir(self.container)})",
            "lxc_init": "systemd, multi-user.target, masked: " + " ".join(MASKED_UNITS),
            "lxc_boot": booted.get("boot", "unavailable"),
            "lxc_failed_units": booted.get("failed", "unavailable").strip() or "none",
        })
        self.facts = facts

    def endpoint_facts_in_container(self, conn) -> dict:
        """Return the facts as seen inside the container."""
        status, out, _ = conn.exec(attach(self.container, posix.facts_command(),
                                          detach_stdin=True), 60)
        return posix.parse_facts(out) if status == 0 else {}

    def state(self) -> str:
        """Return the container's state as LXC says it (``gone`` when unknown or unreachable)."""
        try:
            status, out, _ = self.ctx.host().exec(running_command(self.container), 60)
        except TrialFailed:
            return "gone"
        return out.strip() if status == 0 and out.strip() else "gone"

    def is_running(self) -> bool:
        """Whether the container runs (a frozen one too: it is paused, not stopped)."""
        return self.state() in ("RUNNING", "FROZEN", "FREEZING", "THAWED")

    def command(self, trial):
        """``lxc-attach`` of the runner, writing to the bind-mounted trials folder.

        The attached process joins the container's cgroup (below the environment's) by itself.
        """
        return exec_command(self.container, trial.runner, trial.id, self.params_of(trial),
                            trial.timeout)

    def pause(self):
        """Freeze the container (``lxc-freeze``): its servers and anything else in it."""
        status, out, err = self.ctx.host().exec(pause_command(self.container), 60)
        if status != 0:
            raise TrialFailed(f"lxc-freeze {self.container} failed (exit {status})",
                              tail(out + err))
        self.paused = True

    def resume(self):
        """Thaw the container (``lxc-unfreeze``)."""
        status, out, err = self.ctx.host().exec(pause_command(self.container, False), 60)
        if status != 0:
            raise TrialFailed(f"lxc-unfreeze {self.container} failed (exit {status})",
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
        return prepare_command(self.container, trial.id, f"{self.ctx.folder}/trials",
                               sweep=sweep)

    def address(self, client_is_here):
        """Return the container's address on the bridge, where a client on its host reaches it.

        Raises
        ------
        TrialFailed
            For a client on another host: the bridge is private to the container's host (no
            route or NAT leads to it from elsewhere).
        """
        if not client_is_here:
            raise TrialFailed(f"a client on another host cannot reach LXC environment "
                              f"{self.name}: its address {self.ip} is on bridge "
                              f"{self.spec.bridge} of host {self.spec.host} only")
        return self.ip

    def listen(self, client_is_here):
        """Return the server's listen address: the container's own on the bridge."""
        return self.ip

    def server_command(self, benchmark, command, cpus=None):
        """Return ``lxc-attach`` starting the server detached, its pid written into the trials mount.

        The server leads a session of its own (``setsid``); ``cpus``: it runs on those host
        CPUs (taskset in the container).
        """
        pidf = f"{TRIALS_MOUNT}/server-{self.name}-{benchmark}.pid"
        log = f"{TRIALS_MOUNT}/server-{self.name}-{benchmark}.log"
        pin = f"taskset -c {shlex.quote(cpus)} " if cpus else ""
        script = f"{PID_LINE} > {pidf}; exec {pin}{command}"
        detached = f"setsid sh -c {shlex.quote(script)} > {log} 2>&1 < /dev/null &"
        return attach(self.container, detached, detach_stdin=True)

    def stale_server_command(self, benchmark):
        """Return the command forgetting a pid file an earlier container left.

        The container is made afresh when the environment starts, so no server of an earlier
        run can still be in it; the pid in the file would name another process of this one.
        """
        pidf, _ = Environment.server_files(self, benchmark)  # the host's path of the file
        return f"rm -f {pidf}"

    def server_stop_command(self, benchmark, sig="TERM"):
        """Return the command stopping the server's session inside the container (waits for it)."""
        pidf = f"{TRIALS_MOUNT}/server-{self.name}-{benchmark}.pid"
        kill = (f"if [ -s {pidf} ]; then read -r p st < {pidf}; kill -{sig} -$p; "
                f"{wait_gone('$p')}; fi; rm -f {pidf}")
        return f"{attach(self.container, kill, detach_stdin=True)}; true"

    def diagnose(self, failure):
        """Say so when the container stopped during the trial.

        A runner killed by a signal (exit 137 or 143) may have died with its container while
        ``lxc-stop`` is still under way: the container is asked again for up to 10 s before
        the failure is put down to something else.
        """
        if failure.exit_status in (137, 143):
            deadline = time.monotonic() + 10
            while self.is_running() and time.monotonic() < deadline:
                time.sleep(0.5)
        state = self.state()
        if state not in ("RUNNING", "FROZEN", "FREEZING", "THAWED"):
            return TrialFailed(f"container {self.container} stopped during the trial "
                               f"(LXC says {state}; {failure.cause})", failure.stderr,
                               failure.exit_status)
        return failure

    def needs_stop(self) -> bool:
        """Whether a container, its folder or the bridge may be left: also after a failed start."""
        return self.started or self.touched

    def stop(self):
        """Stop and remove the container and its upper layer; its cgroups; the bridge if unused."""
        conn = self.ctx.host()
        conn.exec(stop_command(self.container), 120, interruptible=False)
        if self.ctx.cgroup is not None:
            conn.exec(cgroup_remove_command(self.ctx.cgroup, self.container), 60,
                      interruptible=False)
        status, out, _ = conn.exec(bridge_remove_command(self.spec.bridge), 60,
                                   interruptible=False)
        if status == 0 and "bridge=removed" in out:
            self.ctx.event("lxc-bridge-removed", environment=self.name, bridge=self.spec.bridge)
        self.paused = False
        self.remove_cgroup()
