"""QEMU helpers for VM environments: the shell commands that boot, pin, probe and stop a guest.

The functions here build POSIX shell command lines that run on the VM's host (the campaign
executor runs them over SSH, tests run them locally) and parse what those commands print; they
run nothing themselves. The guest is the image ``scripts/hosts-up.sh`` builds
(``data/hosts/image/<hash>/``: ``disk.raw``, ``vmlinuz``, ``initrd.img``): it boots the host's
Debian kernel with ``root=/dev/vda``, writes to a qcow2 overlay so the image stays pristine, and
is reached by SSH through a port QEMU forwards on the host's loopback.

Which accelerator runs the guest matters for every number measured in it: KVM when the host
offers it and a guest actually boots under it (:func:`probe_command`), TCG (emulation)
otherwise. :func:`choose_accel` decides, and the choice is recorded in the variant
(``accel=tcg``), so TCG numbers are never labelled KVM.
"""

from __future__ import annotations

import hashlib
import ipaddress
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass

from overhead.errors import InputError

__all__ = ["ACCELS", "DISK_CACHES", "MARKER", "NFS_MOUNT_OPTIONS", "NFS_URL", "SCRATCH_VIA",
           "TUNINGS", "VmSpec", "boot_command", "check_guest_address", "check_nfs_url",
           "choose_accel", "facts_command", "guest_ip", "guest_nfs_source",
           "mount_scratch_command", "network_fact", "nfs_image_url", "parse_boot",
           "parse_facts", "parse_pinning", "pin_command", "probe_command", "probe_succeeded",
           "scratch_fact", "stop_command", "tap_name", "valid_nfs_options", "variant"]

#: The line ``/usr/local/sbin/overhead-probe`` (the probe's ``init=``) prints on the console.
MARKER = "OVERHEAD-GUEST-UP"
#: Accelerators a VM environment may ask for.
ACCELS = ("auto", "kvm", "tcg")
#: VM tunings: QEMU's defaults, or host CPU model, explicit topology, pinning, hugepages.
TUNINGS = ("untuned", "tuned")

QEMU = "qemu-system-x86_64"
#: Files in the state folder.
PIDFILE = "qemu.pid"
OVERLAY = "overlay.qcow2"
SERIAL = "serial.log"
#: The QMP socket in the state folder (pause and resume: ``stop`` and ``cont``).
QMP = "qmp.sock"
#: The scratch disk (ext4, made fresh at each boot) and its file system label: the guest
#: mounts it on /var/tmp, where runners write (fio's files, MariaDB's data, the trials).
SCRATCH = "scratch.raw"
SCRATCH_LABEL = "overhead-scratch"
#: Host cache modes of the scratch disk: ``none`` (O_DIRECT on the host: what the guest's
#: O_DIRECT asks for reaches the host's device, the paper's virtio block device) or
#: ``writeback`` (QEMU's default: the host's page cache serves and absorbs the guest's I/O).
DISK_CACHES = ("none", "writeback")
#: Where the guest's /var/tmp lives: ``disk`` (the scratch disk, an image file in the VM's state
#: folder on the host), ``nfs-disk`` (the same fresh ext4 scratch disk, its image file on an NFS
#: export, opened by QEMU's own NFS client, libnfs, NFSv3: ``-drive file=nfs://...``), or
#: ``nfs-mount`` (no scratch disk: the guest's kernel NFS client mounts the export there).
SCRATCH_VIA = ("disk", "nfs-disk", "nfs-mount")
#: The export ``scripts/hosts-up.sh`` serves (nfs-ganesha on 127.0.0.1, NFSv3 and v4, pseudo
#: path /overhead, the folder data/hosts/nfs/export).
NFS_URL = "nfs://127.0.0.1/overhead"
#: The guest's NFS mount options by default (``nfs-mount``): NFSv4.0 over TCP, hard, as the
#: seed's client (CentOS 6.5 defaults: vers=4, hard, timeo=600, retrans=2; no ``sync`` on the
#: client, so writes are cached until fsync/close as usual; the server side is ganesha's
#: honest COMMIT). timeo and retrans are left to the kernel (600 and 2 for TCP).
NFS_MOUNT_OPTIONS = "vers=4.0,proto=tcp,hard"
#: The address the guest reaches the host's loopback at (QEMU user-mode networking).
GUEST_HOST_ADDRESS = "10.0.2.2"
#: Where the guest mounts the export's root while it makes its own folder there.
NFS_STAGING = "/run/overhead-nfs"
_NFS_URL_RE = re.compile(r"nfs://([A-Za-z0-9][A-Za-z0-9.-]*)((?:/[A-Za-z0-9_.][A-Za-z0-9_.-]*)+)/?")
_NFS_OPTIONS_RE = re.compile(r"[A-Za-z0-9_.=-]+(?:,[A-Za-z0-9_.=-]+)*")
#: How the guest is networked, as the provenance records it: QEMU's user-mode network, a
#: TCP/IP stack inside the QEMU process that forwards host ports (listening with a backlog of
#: 1), not a bridge with virtio and vhost as in RC25482.
NETWORK = "user-mode (slirp) virtio-net with host port forwards"
#: A guest on a bridge (``bridge`` and ``guest_address``): a tap device on the host's bridge,
#: its static address given on the kernel command line (``ip=``: the image's
#: systemd-network-generator makes it a .network file; no DHCP, no route beyond the bridge).
NETWORK_BRIDGE = "tap {tap} on bridge {bridge}, virtio-net{vhost}, guest {address}"
#: The file in the state folder naming the tap device (removed when the guest stops).
TAP_FILE = "tap"
_BRIDGE_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,14}")
#: The kernel command line of a normal boot (net.ifnames=0: the NIC is eth0; panic=1 with
#: -no-reboot: a panicking guest ends QEMU instead of hanging).
APPEND = "root=/dev/vda rw console=ttyS0 net.ifnames=0 panic=1"


@dataclass(frozen=True)
class VmSpec:
    """What a VM environment asks of QEMU.

    Parameters
    ----------
    name : str
        The VM's name (QEMU ``-name``, also in ``ps``).
    vcpus : int
        Virtual CPUs (at least 1).
    memory_mb : int
        Guest memory in MiB (at least 128).
    tuning : {"untuned", "tuned"}
        ``untuned``: QEMU's default CPU model and topology. ``tuned``: the host's CPU model
        (``max`` under TCG), one socket of ``vcpus`` cores, and pinning / hugepages if asked.
    pinning : list of int, optional
        Host CPUs the vCPU threads are pinned to, vCPU n to ``pinning[n % len(pinning)]``.
    hugepages : bool
        Back guest memory with /dev/hugepages when the host has enough free huge pages.
    scratch_mb : int, optional
        Size of the scratch disk in MiB (none without it: the guest writes to its root disk).
    disk_cache : {"none", "writeback"}
        The scratch disk's host cache mode (see :data:`DISK_CACHES`). With ``nfs-disk`` it is
        QEMU's cache mode of the ``nfs://`` drive: QEMU's NFS driver has no host page cache
        either way (cache.direct only forbids libnfs's own readahead and page cache, which are
        not asked for); the guest's flushes become NFS COMMITs in both.
    scratch_via : {"disk", "nfs-disk", "nfs-mount"}
        Where the guest's /var/tmp lives (see :data:`SCRATCH_VIA`). ``nfs-disk`` needs
        ``scratch_mb``; ``nfs-mount`` has no scratch disk (``scratch_mb`` must be None).
    nfs : str, optional
        The export, ``nfs://HOST/PATH`` as seen from the VM's host (``nfs-*`` only, ignored
        with ``disk``; default :data:`NFS_URL`). The guest reaches a HOST of 127.0.0.1 or
        localhost at 10.0.2.2.
    nfs_options : str
        The guest's mount options for ``nfs-mount`` (default :data:`NFS_MOUNT_OPTIONS`).
    bridge : str, optional
        A bridge on the VM's host: the guest's NIC is a tap device on it (:func:`tap_name`)
        instead of QEMU's user-mode network, and nothing is forwarded. Needs ``guest_address``.
    guest_address : str, optional
        The guest's static address on the bridge with its prefix length, ``10.231.0.50/24``
        (:func:`check_guest_address`); SSH and the load generators reach the guest there.

    Raises
    ------
    InputError
        When a field is out of range; the message names the VM and the field.
    """

    name: str
    vcpus: int
    memory_mb: int
    tuning: str = "untuned"
    pinning: list[int] | None = None
    hugepages: bool = False
    scratch_mb: int | None = None
    disk_cache: str = "none"
    scratch_via: str = "disk"
    nfs: str | None = None
    nfs_options: str = NFS_MOUNT_OPTIONS
    bridge: str | None = None
    guest_address: str | None = None

    def __post_init__(self) -> None:
        """Check the fields (see the class's Raises section)."""
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", self.name or ""):
            raise InputError(f"vm {self.name!r}: name must be letters, digits, '_', '.', '-'")
        if not isinstance(self.vcpus, int) or self.vcpus < 1:
            raise InputError(f"vm {self.name}: vcpus must be a whole number >= 1, not {self.vcpus!r}")
        if not isinstance(self.memory_mb, int) or self.memory_mb < 128:
            raise InputError(f"vm {self.name}: memory must be >= 128 MiB, not {self.memory_mb!r}")
        if self.tuning not in TUNINGS:
            raise InputError(f"vm {self.name}: tuning must be one of {', '.join(TUNINGS)}, "
                             f"not {self.tuning!r}")
        if self.pinning is not None and (not self.pinning or any(
                not isinstance(c, int) or c < 0 for c in self.pinning)):
            raise InputError(f"vm {self.name}: pinning must be a non-empty list of host CPU "
                             f"numbers, not {self.pinning!r}")
        if self.scratch_mb is not None and (not isinstance(self.scratch_mb, int)
                                            or self.scratch_mb < 64):
            raise InputError(f"vm {self.name}: scratch disk must be >= 64 MiB, not "
                             f"{self.scratch_mb!r}")
        if self.disk_cache not in DISK_CACHES:
            raise InputError(f"vm {self.name}: disk cache must be one of "
                             f"{', '.join(DISK_CACHES)}, not {self.disk_cache!r}")
        if self.scratch_via not in SCRATCH_VIA:
            raise InputError(f"vm {self.name}: scratch_via must be one of "
                             f"{', '.join(SCRATCH_VIA)}, not {self.scratch_via!r}")
        if (self.bridge is None) != (self.guest_address is None):
            raise InputError(f"vm {self.name}: a guest on a bridge needs both bridge and "
                             f"guest_address (bridge {self.bridge!r}, guest_address "
                             f"{self.guest_address!r})")
        if self.bridge is not None:
            if not isinstance(self.bridge, str) or not _BRIDGE_RE.fullmatch(self.bridge):
                raise InputError(f"vm {self.name}: bridge must be an interface name (at most 15 "
                                 f"letters, digits, '_', '.', '-'), not {self.bridge!r}")
            object.__setattr__(self, "guest_address", check_guest_address(
                self.guest_address, f"vm {self.name}: guest_address"))
        if self.scratch_via == "disk":
            return   # nfs and nfs_options unused
        if self.nfs is None:
            object.__setattr__(self, "nfs", NFS_URL)
        object.__setattr__(self, "nfs", check_nfs_url(self.nfs, f"vm {self.name}: nfs"))
        if self.scratch_via == "nfs-disk" and not self.scratch_mb:
            raise InputError(f"vm {self.name}: scratch_via nfs-disk needs a scratch disk size "
                             "(scratch_mb): its image is made on the export")
        if self.scratch_via == "nfs-mount":
            if self.bridge is not None and _loopback(self.nfs):
                raise InputError(f"vm {self.name}: scratch_via nfs-mount of {self.nfs}: a guest "
                                 f"on the bridge {self.bridge} cannot reach its host's loopback "
                                 "(only QEMU's user-mode network maps it, at 10.0.2.2); give "
                                 "an export at an address the guest reaches")
            if self.scratch_mb is not None:
                raise InputError(f"vm {self.name}: scratch_via nfs-mount has no scratch disk "
                                 f"(the guest mounts the export); scratch_mb must be None, not "
                                 f"{self.scratch_mb!r}")
            if not valid_nfs_options(self.nfs_options):
                raise InputError(f"vm {self.name}: nfs_options must be mount options like "
                                 f"{NFS_MOUNT_OPTIONS!r} (letters, digits, '=', '.', '-', "
                                 f"separated by ','), not {self.nfs_options!r}")


def valid_nfs_options(options: object) -> bool:
    """Whether ``options`` are NFS mount options the guest's mount command can take.

    Comma-separated words of letters, digits, ``=``, ``.``, ``-`` and ``_``.
    """
    return isinstance(options, str) and _NFS_OPTIONS_RE.fullmatch(options) is not None


def check_nfs_url(url: object, what: str = "nfs") -> str:
    """Return an export URL ``nfs://HOST/PATH`` without a trailing slash, or raise.

    HOST is a name or IPv4 address (no port: QEMU's NFS driver finds the server's ports
    through its portmapper), PATH one or more folders of letters, digits, ``_``, ``.``, ``-``
    (no spaces, commas or query: the URL goes into a QEMU ``-drive`` option and a mount
    command). ``what`` names the field in the error.
    """
    m = _NFS_URL_RE.fullmatch(url) if isinstance(url, str) else None
    if not m:
        raise InputError(f"{what}: {url!r} is not an export URL nfs://HOST/PATH (for example "
                         f"{NFS_URL}, what scripts/hosts-up.sh serves; no port, query or "
                         "spaces)")
    return f"nfs://{m[1]}{m[2]}"


def check_guest_address(address: object, what: str = "guest_address") -> str:
    """Return a guest's static address ``A.B.C.D/P`` on a bridge, or raise.

    An IPv4 host address with its prefix length (8 to 30), neither the network's nor its
    broadcast address; ``what`` names the field in the error.
    """
    try:
        iface = ipaddress.IPv4Interface(address) if isinstance(address, str) and "/" in address \
            else None
    except ValueError:
        iface = None
    if iface is None or not 8 <= iface.network.prefixlen <= 30 or iface.ip in (
            iface.network.network_address, iface.network.broadcast_address):
        raise InputError(f"{what}: {address!r} is not a host address with its prefix length "
                         "(for example 10.231.0.50/24, on the fleet's bridge ovf-br)")
    return str(iface)


def guest_ip(spec: VmSpec) -> str | None:
    """Return the guest's address on its bridge without the prefix (None: user-mode network)."""
    return spec.guest_address.split("/")[0] if spec.guest_address else None


def tap_name(spec: VmSpec) -> str:
    """Return the tap device of a guest on a bridge: ``ovtap`` and 9 hex digits of its name.

    Interface names have at most 15 characters; a VM's name (campaign and environment) is
    longer, so its hash names the tap.
    """
    return "ovtap" + hashlib.sha1(spec.name.encode()).hexdigest()[:9]  # noqa: S324 - a name


def _guest_mac(spec: VmSpec) -> str:
    """Return the NIC's MAC on a bridge: QEMU's prefix 52:54:00 and the address's last 3 bytes."""
    packed = ipaddress.IPv4Address(guest_ip(spec)).packed
    return "52:54:00:" + ":".join(f"{b:02x}" for b in packed[1:])


def _kernel_ip(spec: VmSpec) -> str:
    """Return the ``ip=`` kernel argument of a guest on a bridge: address, netmask, eth0, no DHCP.

    No gateway: the guest reaches its bridge's network and nothing beyond.
    """
    iface = ipaddress.IPv4Interface(spec.guest_address)
    return f"ip={iface.ip}:::{iface.netmask}::eth0:off"


def network_fact(spec: VmSpec, booted: dict[str, str] | None = None) -> str:
    """Return the ``vm_network`` provenance: user-mode, or the tap, bridge, vhost and address."""
    if spec.bridge is None:
        return NETWORK
    vhost = (booted or {}).get("vhost")
    said = {"on": " with vhost-net", "off": " without vhost (no /dev/vhost-net on the host)"}
    return NETWORK_BRIDGE.format(tap=tap_name(spec), bridge=spec.bridge,
                                 vhost=said.get(vhost, ""), address=spec.guest_address)


def _loopback(url: str) -> bool:
    """Whether an export URL's host is this host's loopback (127.x or localhost)."""
    m = _NFS_URL_RE.fullmatch(url or "")
    return bool(m) and (m[1] == "localhost" or m[1].startswith("127."))


def nfs_image_url(spec: VmSpec) -> str:
    """Return the ``nfs://`` URL of an ``nfs-disk`` VM's scratch image: ``<nfs>/<name>.scratch.raw``."""
    return f"{spec.nfs}/{spec.name}.{SCRATCH}"


def guest_nfs_source(spec: VmSpec) -> str:
    """Return the export as the guest mounts it, ``HOST:/PATH`` (127.0.0.1 becomes 10.0.2.2)."""
    m = _NFS_URL_RE.fullmatch(spec.nfs or "")
    if not m:
        raise InputError(f"vm {spec.name}: no nfs export URL (scratch_via {spec.scratch_via})")
    host = GUEST_HOST_ADDRESS if _loopback(spec.nfs) else m[1]
    return f"{host}:{m[2]}"


def variant(spec: VmSpec, accel: str) -> str:
    """Return the tidy variant: the tuning, plus ``,accel=tcg`` when the guest ran under TCG.

    A guest on a bridge adds ``,net=tap``: its network is another path than the user-mode one
    (the label says "tap"), so the two are never pooled.
    """
    out = spec.tuning if accel == "kvm" else f"{spec.tuning},accel={accel}"
    return out + (",net=tap" if spec.bridge is not None else "")


def _script(lines: Sequence[str]) -> str:
    """Join shell lines into one subshell, so an ``exit`` inside ends only this command.

    The caller may append more with ``;`` (the executor does).
    """
    return "(\n" + "\n".join(lines) + "\n)"


def _q(path: object) -> str:
    """Shell-quote a path or word."""
    return shlex.quote(str(path))


def _accel_word(accel: str) -> str:
    """Check an accelerator that was decided (kvm or tcg) and return it."""
    if accel not in ("kvm", "tcg"):
        raise InputError(f"accelerator must be 'kvm' or 'tcg' once decided, not {accel!r}")
    return accel


def boot_command(spec: VmSpec, image_dir: str, state_dir: str, ssh_port: int, accel: str,
                 ports: Sequence[int] = (), forward_address: str = "127.0.0.1",
                 also_forward: str | None = None) -> str:
    """Return the command that boots the guest in the background.

    It resolves ``image_dir`` (``current`` may be a symlink that moves later), creates
    ``state_dir`` and a fresh qcow2 overlay on ``disk.raw`` there, and starts QEMU daemonized
    with its pid in ``state_dir/qemu.pid`` and the serial console in ``state_dir/serial.log``.
    It prints ``accel=``, ``disk_cache=``, ``hugepages=``, ``scratch=`` and ``pid=`` lines
    (:func:`parse_boot`) and exits non-zero when QEMU does not start. With
    ``spec.scratch_mb`` a fresh ext4 scratch disk (:data:`SCRATCH`, labelled
    :data:`SCRATCH_LABEL`) is made there and attached as a second virtio disk with the host
    cache mode ``spec.disk_cache``; :func:`mount_scratch_command` mounts it in the guest.

    ``scratch_via: nfs-disk`` first checks that the export answers (``qemu-img info`` of its
    root through QEMU's NFS driver), then copies that fresh ext4 to
    :func:`nfs_image_url` on the export (emptied first, so nothing of an earlier image stays
    in its holes) and attaches ``file=nfs://...``: QEMU's NFS client (libnfs, NFSv3) opens it,
    the guest's writes become NFS WRITEs and its flushes NFS COMMITs. ``nfs-mount`` checks the
    export the same way and attaches no scratch disk (the guest mounts the export). Without
    an export the command exits non-zero with a message naming the URL.

    Parameters
    ----------
    spec : VmSpec
        The VM.
    image_dir : str
        Folder with ``disk.raw``, ``vmlinuz`` and ``initrd.img`` on the VM's host.
    state_dir : str
        The VM's folder for the overlay, pidfile and serial log (created).
    ssh_port : int
        Host port on 127.0.0.1 forwarded to the guest's port 22 (user-mode network only).
    accel : {"kvm", "tcg"}
        The accelerator (see :func:`choose_accel`).
    ports : sequence of int
        More host ports forwarded to the same guest ports (servers that load generators on
        the host reach).
    forward_address : str
        The host address those ports are forwarded from (a loopback address of the VM's own,
        so that servers of other environments on the host can use the same port numbers).
    also_forward : str, optional
        One more host address the same ports are forwarded from (the host's address on a
        network, where load generators on other hosts reach the guest's servers).

    A guest on a bridge (``spec.bridge``) has no user-mode network and nothing forwarded: the
    command checks that the bridge exists, makes the tap :func:`tap_name` on it (its name in
    ``state_dir/tap``, so :func:`stop_command` removes it), gives the guest its address on the
    kernel command line (``ip=``, no gateway) and uses vhost-net when the host has
    /dev/vhost-net, printing ``vhost=on`` or ``vhost=off``.

    Returns
    -------
    str
        A shell command line.
    """
    accel = _accel_word(accel)
    state = _q(state_dir)
    fwd = "".join(f",hostfwd={proto}:{addr}:{int(p)}-:{int(p)}"
                  for addr in (forward_address, also_forward) if addr
                  for p in ports for proto in ("tcp", "udp"))
    words = [QEMU, "-name", f"{spec.name},debug-threads=on", "-nodefaults", "-no-reboot",
             "-accel", accel, "-m", str(spec.memory_mb)]
    if spec.tuning == "tuned":
        # `host` needs KVM; `max` is everything TCG can emulate
        words += ["-smp", f"{spec.vcpus},sockets=1,cores={spec.vcpus},threads=1",
                  "-cpu", "host" if accel == "kvm" else "max"]
    else:
        words += ["-smp", str(spec.vcpus)]
    append = APPEND
    if spec.bridge is None:
        words += ["-netdev", f"user,id=n0,hostfwd=tcp:127.0.0.1:{int(ssh_port)}-:22{fwd}",
                  "-device", "virtio-net-pci,netdev=n0", "-display", "none"]
        qemu = shlex.join(words)
    else:
        words += ["-device", f"virtio-net-pci,netdev=n0,mac={_guest_mac(spec)}",
                  "-display", "none"]
        tap = tap_name(spec)
        qemu = (shlex.join(words) + f' -netdev "tap,id=n0,ifname={tap},script=no,'
                'downscript=no,vhost=$vh"')
        append = f"{APPEND} {_kernel_ip(spec)}"
    files = (f'-kernel "$img/vmlinuz" -initrd "$img/initrd.img" -append {_q(append)} '
             f'-drive file={state}/{OVERLAY},format=qcow2,if=virtio ')
    nfs_disk = spec.scratch_via == "nfs-disk"
    if spec.scratch_mb and nfs_disk:
        # QEMU's NFS driver (block-nfs.so): no O_DIRECT and no aio=native on a network client
        files += (f"-drive file={_q(nfs_image_url(spec))},format=raw,if=virtio,"
                  f"cache={spec.disk_cache} ")
    elif spec.scratch_mb:
        # cache=none opens the file O_DIRECT on the host; aio=native needs that
        aio = ",aio=native" if spec.disk_cache == "none" else ""
        files += (f"-drive file={state}/{SCRATCH},format=raw,if=virtio,"
                  f"cache={spec.disk_cache}{aio} ")
    files += (f"-serial file:{state}/{SERIAL} -qmp unix:{state}/{QMP},server=on,wait=off "
              f"-daemonize -pidfile {state}/{PIDFILE}")
    lines = [
        f"img=$(readlink -f {_q(image_dir)}) || exit 1",
        'for f in disk.raw vmlinuz initrd.img; do [ -r "$img/$f" ] || '
        '{ echo "qemu: $img/$f missing (make hosts-up)" >&2; exit 1; }; done',
        f"mkdir -p {state} && rm -f {state}/{OVERLAY} {state}/{PIDFILE} {state}/{SERIAL} "
        f"{state}/{SCRATCH} || exit 1",
        f'qemu-img create -q -f qcow2 -F raw -b "$img/disk.raw" {state}/{OVERLAY} || exit 1',
        "hp=",
    ]
    if spec.bridge is not None:
        br, tap = _q(spec.bridge), tap_name(spec)
        lines += [
            f"ip -o link show dev {br} type bridge 2>/dev/null | grep -q . || "
            f"{{ echo \"qemu: no bridge {spec.bridge} on "
            "this host for the guest's tap (make fleet-up makes the fleet's)\" >&2; exit 1; }",
            f"ip link del {tap} 2>/dev/null",
            f"ip tuntap add dev {tap} mode tap && echo {tap} > {state}/{TAP_FILE} && "
            f"ip link set {tap} master {br} && ip link set {tap} up || {{ echo \"qemu: could "
            f"not put a tap {tap} on the bridge {spec.bridge}\" >&2; exit 1; }}",
            "if [ -c /dev/vhost-net ]; then vh=on; else vh=off; fi",
            "echo vhost=$vh",
        ]
    if spec.scratch_via != "disk":
        # the export answers from this host (QEMU's NFS driver mounts it and reads its root):
        # a missing server or export is said here, not as a guest that cannot mount
        export = _q(f"{spec.nfs}/")
        lines += [f"if ! err=$(qemu-img info -f raw {export} 2>&1 >/dev/null); then "
                  f"echo \"qemu: scratch_via {spec.scratch_via}: no NFS export answers at "
                  f"{spec.nfs} from this host ($err); scripts/hosts-up.sh serves "
                  f"{NFS_URL} (nfs-ganesha on 127.0.0.1)\" >&2; exit 1; fi"]
    if spec.scratch_mb:
        # a fresh ext4 each boot, its inode tables and journal written now: lazy
        # initialisation would zero them in the guest's background during the benchmarks
        lines += [f"truncate -s {int(spec.scratch_mb)}M {state}/{SCRATCH} && "
                  f"mke2fs -q -F -t ext4 -L {SCRATCH_LABEL} -E lazy_itable_init=0,"
                  f"lazy_journal_init=0 {state}/{SCRATCH} || exit 1"]
    if spec.scratch_mb and nfs_disk:
        # onto the export: emptied first (convert writes only the image's non-zero blocks and
        # an earlier image's data would stay in the holes), then the local copy goes
        url = _q(nfs_image_url(spec))
        lines += [f"qemu-img create -q -f raw {url} 0 && qemu-img convert -f raw -O raw "
                  f"{state}/{SCRATCH} {url} && rm -f {state}/{SCRATCH} || "
                  f"{{ echo \"qemu: could not write the scratch image to {nfs_image_url(spec)}\" "
                  ">&2; exit 1; }"]
    if spec.hugepages:
        # huge pages only when enough are free: pages = memory / page size
        lines += [
            "hpkb=$(awk '/^Hugepagesize:/ {print $2}' /proc/meminfo)",
            "hpfree=$(awk '/^HugePages_Free:/ {print $2}' /proc/meminfo)",
            'if grep -qs " /dev/hugepages hugetlbfs " /proc/mounts && [ -n "$hpkb" ] && [ "${hpfree:-0}" -gt 0 ] && '
            f'[ $((hpfree * hpkb / 1024)) -ge {spec.memory_mb} ]; then '
            'hp="-mem-path /dev/hugepages -mem-prealloc"; fi',
        ]
    lines += [
        f"echo accel={accel}",
        f"echo disk_cache={spec.disk_cache if spec.scratch_mb else 'none-no-scratch'}",
        f"echo scratch={_scratch_word(spec, state_dir)}",
        'if [ -n "$hp" ]; then echo hugepages=yes; else echo hugepages=no; fi',
        f"{qemu} {files} $hp || exit 1",
        f'echo "pid=$(cat {state}/{PIDFILE})"',
    ]
    return _script(lines)


def _scratch_word(spec: VmSpec, state_dir: str) -> str:
    """Return the ``scratch=`` value of a boot: the scratch image's path or URL, or what stands in."""
    if spec.scratch_via == "nfs-mount":
        return f"nfs-mount:{guest_nfs_source(spec)}/{spec.name}"
    if not spec.scratch_mb:
        return "none"
    return nfs_image_url(spec) if spec.scratch_via == "nfs-disk" else f"{state_dir}/{SCRATCH}"


def mount_scratch_command(where: str = "/var/tmp", *, spec: VmSpec | None = None) -> str:
    """Return the guest command mounting the scratch space on ``where``.

    Runs once the guest answers, before anything writes there. The scratch disk (``disk`` and
    ``nfs-disk``, or no ``spec``) is mounted by its label; the command prints the mount's
    source and file system (``findmnt``: ``/dev/vdb ext4``) and exits non-zero when the disk
    is missing.

    With ``spec.scratch_via == "nfs-mount"`` the guest's kernel NFS client mounts the export
    (:func:`guest_nfs_source`) with ``spec.nfs_options``: first its root on
    :data:`NFS_STAGING`, where the folder ``<spec.name>`` is made afresh (what an earlier boot
    left there is removed, as a new scratch disk is empty), then that folder on ``where``. It
    prints source, file system and the options the kernel actually uses
    (``10.0.2.2:/overhead/vm nfs4 rw,relatime,vers=4.0,...``) for :func:`scratch_fact`.
    """
    if spec is None or spec.scratch_via != "nfs-mount":
        return _script([f"mount -o noatime -L {SCRATCH_LABEL} {_q(where)} || exit 1",
                        f"findmnt -n -o SOURCE,FSTYPE {_q(where)}"])
    source = guest_nfs_source(spec)
    opts = _q(spec.nfs_options)
    stage = NFS_STAGING
    return _script([
        f"mkdir -p {stage} && mount -t nfs -o {opts} {_q(source)} {stage} || "
        f"{{ echo 'guest: mount -t nfs -o {spec.nfs_options} {source} failed' >&2; exit 1; }}",
        f"rm -rf {stage}/{_q(spec.name)} && mkdir {stage}/{_q(spec.name)}; s=$?",
        f"umount {stage}; [ $s = 0 ] || exit 1",
        f"mount -t nfs -o {opts} {_q(f'{source}/{spec.name}')} {_q(where)} || exit 1",
        f"findmnt -n -o SOURCE,FSTYPE,OPTIONS {_q(where)}",
    ])


def scratch_fact(spec: VmSpec, mounted: str = "") -> str:
    """Return the ``vm_scratch_disk`` provenance: where the guest's /var/tmp is, and how.

    ``mounted`` is :func:`mount_scratch_command`'s output. Examples::

        /dev/vdb ext4 on /var/tmp, 3072 MiB virtio, host cache=none
        /dev/vdb ext4 on /var/tmp, 1024 MiB virtio, image nfs://127.0.0.1/overhead/vm.scratch.raw
            through QEMU's NFS driver (libnfs, NFSv3), host cache=none
        10.0.2.2:/overhead/vm nfs4 on /var/tmp, the guest's kernel NFS client, export
            nfs://127.0.0.1/overhead, options rw,relatime,vers=4.0,...,hard,proto=tcp,...
    """
    words = mounted.split()
    if spec.scratch_via == "nfs-mount":
        if len(words) != 3 or ":/" not in words[0] or not words[1].startswith("nfs"):
            raise InputError(f"vm {spec.name}: no 'SOURCE FSTYPE OPTIONS' line in the NFS "
                             f"mount's output: {mounted.strip()!r}")
        return (f"{words[0]} {words[1]} on /var/tmp, the guest's kernel NFS client, export "
                f"{spec.nfs}, options {words[2]}")
    if not spec.scratch_mb:
        return "root disk (no scratch disk)"
    device = " ".join(words[:2]) or "scratch disk"
    if spec.scratch_via == "nfs-disk":
        return (f"{device} on /var/tmp, {spec.scratch_mb} MiB virtio, image "
                f"{nfs_image_url(spec)} through QEMU's NFS driver (libnfs, NFSv3), "
                f"host cache={spec.disk_cache}")
    return f"{device} on /var/tmp, {spec.scratch_mb} MiB virtio, host cache={spec.disk_cache}"


def parse_boot(text: str) -> dict[str, str]:
    """Parse the ``accel=``, ``disk_cache=``, ``hugepages=``, ``scratch=``, ``vhost=`` and ``pid=`` lines."""
    return _name_values(text)


def pin_command(state_dir: str, cpus: Sequence[int]) -> str:
    """Return the command pinning the running guest's vCPU threads to host CPUs.

    The vCPU threads are found by name (``CPU n/KVM`` or ``CPU n/TCG``, named thanks to
    ``debug-threads=on``); vCPU n goes to ``cpus[n % len(cpus)]``. Under single-threaded TCG
    the one ``ALL CPUs/TCG`` thread gets all of ``cpus``. Prints one ``vcpu=N tid=T cpus=C``
    line per thread (:func:`parse_pinning`); exits non-zero when QEMU is not running or has no
    vCPU thread.

    Parameters
    ----------
    state_dir : str
        The VM's state folder (holds ``qemu.pid``).
    cpus : sequence of int
        Host CPU numbers.

    Returns
    -------
    str
        A shell command line.
    """
    if not cpus or any(not isinstance(c, int) or c < 0 for c in cpus):
        raise InputError(f"pinning must be a non-empty list of host CPU numbers, not {cpus!r}")
    cpu_list = " ".join(str(c) for c in cpus)
    return _script([
        f"pid=$(cat {_q(state_dir)}/{PIDFILE}) || exit 1",
        f"set -- {cpu_list}",
        "n=0",
        'for comm in /proc/"$pid"/task/*/comm; do',
        '  name=$(cat "$comm" 2>/dev/null) || continue',
        '  tid=${comm%/comm}; tid=${tid##*/}',
        '  case $name in',
        '    "CPU "*/KVM|"CPU "*/TCG) v=${name#CPU }; v=${v%%/*}; i=$((v % $# + 1)); eval "c=\\${$i}" ;;',
        f'    "ALL CPUs/TCG") v=all; c=$(echo {cpu_list} | tr " " ,) ;;',
        '    *) continue ;;',
        '  esac',
        '  taskset -pc "$c" "$tid" >/dev/null || exit 1',
        '  echo "vcpu=$v tid=$tid cpus=$c"; n=$((n + 1))',
        'done',
        '[ "$n" -gt 0 ] || { echo "qemu pid $pid: no vCPU threads found" >&2; exit 1; }',
    ])


def parse_pinning(text: str) -> str:
    """Return the pinning as provenance, ``0->2,1->3`` (vCPU -> host CPUs), from pin_command."""
    pairs = []
    for line in text.splitlines():
        fields = _name_values(line.replace(" ", "\n"))
        if "vcpu" in fields and "cpus" in fields:
            pairs.append(f"{fields['vcpu']}->{fields['cpus'].replace(',', '+')}")
    if not pairs:
        raise InputError(f"no 'vcpu=... cpus=...' line in the pinning output: {text.strip()!r}")
    return ",".join(pairs)


def probe_command(image_dir: str, timeout: float = 25) -> str:
    """Return the accelerator probe, a check that a guest reaches userspace under KVM.

    A short boot of the image under ``-accel kvm`` alone (no fallback), with the probe as init
    (it prints :data:`MARKER` and powers off), the disk read-only to the guest
    (``snapshot=on``), the console on stdout, all under ``timeout``. A host without /dev/kvm
    fails at once; one where KVM is present but guests hang (nested or PVM hosts) times out.
    Check the output with :func:`probe_succeeded`.

    Parameters
    ----------
    image_dir : str
        Folder with ``disk.raw``, ``vmlinuz`` and ``initrd.img``.
    timeout : float
        Seconds before the probe counts as failed (QEMU is killed).

    Returns
    -------
    str
        A shell command line; it always exits 0 and prints the console and a ``probe_exit=``
        line.
    """
    img = _q(image_dir)
    append = "root=/dev/vda ro console=ttyS0 panic=1 init=/usr/local/sbin/overhead-probe"
    words = [QEMU, "-accel", "kvm", "-m", "256", "-nodefaults", "-no-reboot", "-display", "none",
             "-serial", "stdio", "-monitor", "none", "-append", append]
    return (f"timeout -k 5 {max(1, round(timeout))} {shlex.join(words)} "
            f"-kernel {img}/vmlinuz -initrd {img}/initrd.img "
            f"-drive file={img}/disk.raw,format=raw,if=virtio,snapshot=on "
            "</dev/null 2>&1; echo probe_exit=$?")


def probe_succeeded(output: str) -> bool:
    """Return True when the probe's output has the guest's :data:`MARKER` line."""
    return any(MARKER in line for line in output.splitlines())


def choose_accel(requested: str, probe_ok: bool, environment: str = "vm") -> tuple[str, str]:
    """Decide the accelerator from what the environment asks and what the probe saw.

    Parameters
    ----------
    requested : {"auto", "kvm", "tcg"}
        The environment's ``accel``.
    probe_ok : bool
        Whether :func:`probe_command` succeeded on the VM's host (ignored for ``tcg``).
    environment : str
        The environment's name, for the error message.

    Returns
    -------
    tuple of (str, str)
        ``("kvm" or "tcg", reason)``, the reason in words for the log and the provenance.

    Raises
    ------
    InputError
        ``requested`` is not one of the three, or is ``kvm`` and the probe failed.
    """
    if requested not in ACCELS:
        raise InputError(f"environment {environment}: accel must be one of {', '.join(ACCELS)}, "
                         f"not {requested!r}")
    if requested == "tcg":
        return "tcg", "tcg requested"
    if probe_ok:
        return "kvm", f"{requested} requested, a guest booted under KVM"
    if requested == "kvm":
        raise InputError(f"environment {environment}: accel: kvm was requested but no guest "
                         "booted under KVM on its host (no /dev/kvm, or guests hang there); "
                         "use accel: auto or tcg")
    return "tcg", "auto: no guest booted under KVM, running under TCG (emulation)"


def qmp_command(state_dir: str, command: str) -> str:
    """Return the command sending one QMP command (``stop``, ``cont``) to the running guest's QEMU.

    It talks to the QMP socket the guest was booted with (``socat``), prints QEMU's replies and
    exits non-zero unless QEMU acknowledged the command (``{"return": {}}`` for the
    capabilities handshake and for the command).
    """
    if command not in ("stop", "cont"):
        raise InputError(f"qmp_command: {command!r} is not stop or cont")
    sock = f"{_q(state_dir)}/{QMP}"
    msgs = shlex.quote('{"execute":"qmp_capabilities"}\n{"execute":"' + command + '"}\n')
    return _script([
        f"[ -S {sock} ] || {{ echo 'qemu: no QMP socket {QMP} (the guest was booted before "
        f"QMP was used)' >&2; exit 1; }}",
        f"out=$(printf {msgs} | socat -t 5 - UNIX-CONNECT:{sock}) || exit 1",
        'printf "%s\\n" "$out"',
        'n=$(printf "%s\\n" "$out" | grep -c \'"return": {}\')',
        '[ "$n" -ge 2 ] || { echo "qemu: QMP did not acknowledge" >&2; exit 1; }',
    ])


def join_cgroup_command(state_dir: str, cgroup: str) -> str:
    """Return the command moving the running guest's QEMU process (all its threads) into ``cgroup``.

    Prints ``moved pid N`` or exits non-zero (no pidfile, no cgroup).
    """
    from overhead.environments.posix import CGROUP_ROOT

    return _script([
        f"pid=$(cat {_q(state_dir)}/{PIDFILE}) || exit 1",
        CGROUP_ROOT,
        f'g="$cgr"/{shlex.quote(cgroup)}',
        '[ -n "$cgr" ] && [ -d "$g" ] || { echo "no cgroup $g" >&2; exit 1; }',
        'echo "$pid" > "$g/cgroup.procs" || exit 1',
        'echo "moved pid $pid"',
    ])


def affinity_command(state_dir: str, cpus: str | None) -> str:
    """Return the command setting every thread of the guest's QEMU process onto ``cpus``.

    ``cpus`` None: every online CPU of the host.
    """
    where = shlex.quote(cpus) if cpus is not None else '"$(cat /sys/devices/system/cpu/online)"'
    return _script([
        f"pid=$(cat {_q(state_dir)}/{PIDFILE}) || exit 1",
        f"c={where}",
        'taskset -a -p -c "$c" "$pid" >/dev/null || exit 1',
        'echo "pid $pid on cpus $c"',
    ])


def stop_command(state_dir: str, wait: float = 30) -> str:
    """Return the command stopping the guest QEMU process named by its pidfile.

    TERM, up to ``wait`` seconds for it to go, then KILL. Only a process whose name starts
    with ``qemu-system`` is signalled (a stale pidfile may name another process by now).
    Once QEMU is gone, the tap device of a guest on a bridge (named in ``state_dir/tap``) is
    removed; nothing else is. Prints ``stopped pid N`` or ``not running``.
    """
    tenths = max(1, round(wait * 10))
    pid = f"{_q(state_dir)}/{PIDFILE}"
    tap = f"{_q(state_dir)}/{TAP_FILE}"
    return _script([
        f"pid=$(cat {pid} 2>/dev/null)",
        'alive() { case $(cat /proc/"$pid"/comm 2>/dev/null) in qemu-system*) '
        '! grep -q "^State:.*Z" /proc/"$pid"/status 2>/dev/null ;; *) return 1 ;; esac; }',
        f'untap() {{ if [ -s {tap} ]; then ip link del "$(cat {tap})" 2>/dev/null; '
        f'rm -f {tap}; fi; }}',
        'if [ -z "$pid" ] || ! alive; then untap; echo "not running"; exit 0; fi',
        'kill "$pid"',
        f'n=0; while alive && [ $n -lt {tenths} ]; do sleep 0.1; n=$((n + 1)); done',
        'if alive; then kill -9 "$pid"; n=0; while alive && [ $n -lt 50 ]; do sleep 0.1; '
        'n=$((n + 1)); done; fi',
        'if alive; then echo "qemu pid $pid did not stop" >&2; exit 1; fi',
        'untap; echo "stopped pid $pid"',
    ])


def facts_command() -> str:
    """Return a command printing the QEMU version and the host's huge pages as name=value.

    Names: ``qemu_version`` (``7.2.22``), ``hugepages_total``, ``hugepages_free``,
    ``hugepage_kb``, ``hugetlbfs`` (mounted at /dev/hugepages: yes/no), ``kvm_device``
    (/dev/kvm exists: yes/no; whether guests boot under it is :func:`probe_command`'s job) and
    ``hugepages`` (usable: yes/no).
    """
    return "\n".join([
        f"printf 'qemu_version=%s\\n' \"$({QEMU} --version 2>/dev/null | "
        "sed -n '1s/.*version \\([0-9][0-9.]*\\).*/\\1/p')\"",
        "printf 'hugepages_total=%s\\n' \"$(awk '/^HugePages_Total:/ {print $2}' /proc/meminfo)\"",
        "printf 'hugepages_free=%s\\n' \"$(awk '/^HugePages_Free:/ {print $2}' /proc/meminfo)\"",
        "printf 'hugepage_kb=%s\\n' \"$(awk '/^Hugepagesize:/ {print $2}' /proc/meminfo)\"",
        "printf 'hugetlbfs=%s\\n' \"$(grep -qs ' /dev/hugepages hugetlbfs ' /proc/mounts "
        "&& echo yes || echo no)\"",
        "printf 'kvm_device=%s\\n' \"$([ -c /dev/kvm ] && echo yes || echo no)\"",
        # usable at all: hugetlbfs mounted and some pages free (boot_command checks the amount)
        "printf 'hugepages=%s\\n' \"$(grep -qs ' /dev/hugepages hugetlbfs ' /proc/mounts && "
        "[ \"$(awk '/^HugePages_Free:/ {print $2}' /proc/meminfo)\" -gt 0 ] 2>/dev/null "
        "&& echo yes || echo no)\"",
    ])


def parse_facts(text: str) -> dict[str, str]:
    """Parse :func:`facts_command`'s output; a value the host could not tell is ``unavailable``."""
    return {name: value or "unavailable" for name, value in _name_values(text).items()}


def _name_values(text: str) -> dict[str, str]:
    """``name=value`` lines as a dict (other lines ignored, later names win)."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        name, sep, value = line.partition("=")
        if sep and re.fullmatch(r"[a-z_]+", name.strip()):
            out[name.strip()] = value.strip()
    return out
