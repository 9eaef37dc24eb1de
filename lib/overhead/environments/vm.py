"""A VM environment: a QEMU guest the campaign boots on its host and reaches through it by SSH.

:mod:`~overhead.environments.qemu` builds the commands (probe, boot, pin, mount the scratch
space, stop) and says which accelerator ran the guest; this file is the lifecycle: the guest is
booted on first use, booted again once if it died, and its trials run over its own SSH
connection (through the host's, to the port QEMU forwards).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator, model_validator

from overhead.environments import qemu
from overhead.environments.base import WATCHDOG_SLACK, Context, Environment, TrialFailed, tail
from overhead.environments.failures import Interrupted
from overhead.environments.qemu import (
    NFS_MOUNT_OPTIONS,
    NFS_URL,
    check_guest_address,
    check_nfs_url,
    valid_nfs_options,
)
from overhead.environments.spec import MAX_SECONDS, Address, EnvSpec, Int, Number, UserName
from overhead.errors import InputError

__all__ = ["VmEnv", "VmEnvironment"]


class VmEnv(EnvSpec):
    """A QEMU guest the campaign boots on ``host`` and reaches by SSH on a forwarded port.

    Or, with ``bridge`` and ``guest_address``, a guest whose NIC is a tap device on a bridge of
    its host (the fleet's, ``make fleet-up``), at a static address there: no user-mode network,
    nothing forwarded; SSH and the load generators (on the host or on other hosts of the
    bridge) reach the guest at its address.

    ``tuning``: untuned = QEMU's default CPU model, no pinning; tuned = host CPU model and
    topology, vCPU threads pinned to ``pinning`` (default 0..vcpus-1), hugepage memory where
    the host has it. ``accel: auto`` proves KVM works with a trial boot before using it and
    otherwise runs under TCG (software emulation), recorded and labelled as such.
    """

    path_fields = ("image", "key_file", "known_hosts")

    kind: Literal["vm"]
    tuning: Literal["untuned", "tuned"] = "untuned"
    vcpus: Int = Field(2, ge=1, le=1024)
    memory: Int = Field(1024, ge=128, le=16 * 1024 * 1024, description="MiB")
    pinning: tuple[Annotated[Int, Field(ge=0, le=65535)], ...] | None = None
    hugepages: bool = False
    accel: Literal["auto", "kvm", "tcg"] = "auto"
    image: Path
    ssh_port: Int = Field(10022, ge=1024, le=65535)
    user: UserName = "root"
    key_file: Path | None = None
    known_hosts: Path | None = None
    host_key_alias: Address | None = None
    ports: tuple[Annotated[Int, Field(ge=1, le=65535)], ...] = ()
    boot_timeout: Number = Field(300.0, gt=0, le=MAX_SECONDS)
    probe_timeout: Number = Field(25.0, gt=0, le=MAX_SECONDS)
    scratch: Int | None = Field(3072, ge=64, le=64 * 1024 * 1024, description=(
        "MiB of a fresh ext4 disk mounted on the guest's /var/tmp, where runners write (fio's "
        "files, MariaDB's data): the VM's counterpart of a Docker volume; null: the root disk"))
    disk_cache: Literal["none", "writeback"] = Field("none", description=(
        "the scratch disk's host cache: none (O_DIRECT on the host, as the paper's virtio "
        "block device) or writeback (QEMU's default: the host's page cache in between)"))
    scratch_via: Literal["disk", "nfs-disk", "nfs-mount"] = Field("disk", description=(
        "where the guest's /var/tmp lives: disk (the scratch disk's image in the VM's folder "
        "on the host), nfs-disk (that image on the NFS export `nfs`, opened by QEMU's own NFS "
        "client, libnfs, NFSv3: a VM whose disk is on NFS), nfs-mount (no scratch disk: the "
        "guest's kernel NFS client mounts the export, a folder of its own there)"))
    nfs: str = Field(NFS_URL, description=(
        "the NFS export as the VM's host reaches it, nfs://HOST/PATH (default: the one "
        "scripts/hosts-up.sh serves on 127.0.0.1); only with scratch_via nfs-disk or nfs-mount"))
    nfs_options: str = Field(NFS_MOUNT_OPTIONS, description=(
        "the guest's NFS mount options (scratch_via nfs-mount only); default NFSv4.0 over TCP, "
        "hard, as the seed's client; the options the kernel uses are recorded"))
    bridge: str | None = Field(None, description=(
        "a bridge on the VM's host (the fleet's, ovf-br): the guest's NIC is a tap device on it "
        "instead of QEMU's user-mode network (no port forwards, no backlog of 1); needs "
        "guest_address"))
    guest_address: str | None = Field(None, description=(
        "the guest's static address on the bridge with its prefix, 10.231.0.50/24 (given on "
        "its kernel command line); SSH and load generators reach it there"))

    @field_validator("guest_address")
    @classmethod
    def _guest_address(cls, address: str | None) -> str | None:
        """Check a host address with its prefix length, A.B.C.D/P."""
        if address is None:
            return None
        try:
            return check_guest_address(address, "guest_address")
        except InputError as exc:
            raise ValueError(str(exc)) from None

    @model_validator(mode="after")
    def _bridge(self) -> VmEnv:
        """Check that a bridge comes with an address and the other way round, and no forwards."""
        if (self.bridge is None) != (self.guest_address is None):
            missing = "guest_address" if self.guest_address is None else "bridge"
            raise ValueError(f"{missing}: a guest on a bridge needs both bridge and "
                             "guest_address")
        if self.bridge is not None:
            for name in ("ssh_port", "ports"):
                if name in self.model_fields_set:
                    raise ValueError(f"{name}: only used with QEMU's user-mode network (port "
                                     "forwards); a guest on a bridge is reached at its "
                                     "guest_address")
        return self

    @field_validator("nfs")
    @classmethod
    def _nfs_url(cls, url: str) -> str:
        """Check that nfs is an export URL nfs://HOST/PATH (no port, query or spaces)."""
        try:
            return check_nfs_url(url, "nfs")
        except InputError as exc:
            raise ValueError(str(exc)) from None

    @model_validator(mode="before")
    @classmethod
    def _no_disk_with_nfs_mount(cls, data: Any) -> Any:
        """With nfs-mount there is no scratch disk: ``scratch`` is null, and may not be given."""
        if isinstance(data, dict) and data.get("scratch_via") == "nfs-mount":
            for name in ("scratch", "disk_cache"):
                if name in data:
                    raise ValueError(f"{name}: scratch_via nfs-mount has no scratch disk (the "
                                     "guest mounts the export on /var/tmp); remove it")
            data = {**data, "scratch": None}
        return data

    @model_validator(mode="after")
    def _scratch_via(self) -> VmEnv:
        """Refuse a field the asked scratch_via does not use (a mistake, not a no-op)."""
        given = self.model_fields_set
        via = self.scratch_via
        if via == "disk":
            for name in ("nfs", "nfs_options"):
                if name in given:
                    raise ValueError(f"{name}: only used with scratch_via nfs-disk or "
                                     f"nfs-mount (scratch_via is disk)")
        elif via == "nfs-disk":
            if not self.scratch:
                raise ValueError("scratch: scratch_via nfs-disk needs a scratch disk size "
                                 "(MiB): its image is made on the export")
            if "nfs_options" in given:
                raise ValueError("nfs_options: only used with scratch_via nfs-mount (QEMU's "
                                 "NFS driver takes no mount options)")
        elif not valid_nfs_options(self.nfs_options):
            raise ValueError(f"nfs_options: {self.nfs_options!r} is not a list of mount "
                             f"options like {NFS_MOUNT_OPTIONS!r}")
        return self


class VmEnvironment(Environment):
    """A QEMU guest booted on the host, reached through the host's SSH (port forward)."""

    Spec = VmEnv
    tidy_environment = "vm"

    def __init__(self, ctx: Context):
        """Prepare the guest's state folder name on the host."""
        super().__init__(ctx)
        self.state = f"{ctx.folder}/vm-{ctx.name}"
        self.guest = None  # the guest's Remote once it answers
        self.accel: str | None = None
        self.restarts = 0
        self.variant = ctx.spec.tuning

    def _spec(self) -> qemu.VmSpec:
        """Return the QEMU spec of this environment."""
        s = self.spec
        pinning = list(s.pinning) if s.pinning is not None else (
            list(range(s.vcpus)) if s.tuning == "tuned" else None)
        return qemu.VmSpec(name=f"overhead-{self.ctx.campaign}-{self.name}", vcpus=s.vcpus,
                           memory_mb=s.memory, tuning=s.tuning, pinning=pinning,
                           hugepages=s.hugepages, scratch_mb=s.scratch, disk_cache=s.disk_cache,
                           scratch_via=s.scratch_via, nfs=s.nfs, nfs_options=s.nfs_options,
                           bridge=s.bridge, guest_address=s.guest_address)

    def start(self) -> None:
        """Probe the accelerator, boot the guest, wait for its SSH, copy the runners."""
        conn = self.ctx.host()
        s = self.spec
        image = str(Path(s.image).resolve()) if self.ctx.local else str(s.image)
        conn.exec(qemu.stop_command(self.state) + f"; mkdir -p {self.state}", 60)
        probe_ok = False
        if s.accel in ("auto", "kvm"):
            status, out, err = conn.exec(qemu.probe_command(image, s.probe_timeout),
                                         s.probe_timeout + WATCHDOG_SLACK)
            probe_ok = qemu.probe_succeeded(out + err)
        self.accel, reason = qemu.choose_accel(s.accel, probe_ok, self.name)
        self.ctx.event("accelerator", environment=self.name, accel=self.accel, reason=reason)
        self.tidy_environment = "kvm" if self.accel == "kvm" else "vm"
        spec = self._spec()
        self.variant = qemu.variant(spec, self.accel)
        status, out, err = conn.exec(qemu.boot_command(
            spec, image, self.state, s.ssh_port, self.accel,
            ports=self.ctx.server_ports, forward_address=self.loopback,
            also_forward=self.ctx.address if self.ctx.remote_clients else None), 120)
        if status != 0:
            raise TrialFailed(f"QEMU did not start (exit {status})", tail(out + err))
        booted = qemu.parse_boot(out)
        self.guest = self._wait_for_guest()
        scratch = "root disk (no scratch disk)"
        if s.scratch or s.scratch_via == "nfs-mount":
            status, out, err = self.guest.exec(qemu.mount_scratch_command(spec=spec), 120)
            if status != 0:
                raise TrialFailed(f"the guest did not mount its scratch space ({s.scratch_via})",
                                  tail(out + err))
            scratch = qemu.scratch_fact(spec, out)
        pinned = "none"
        if spec.pinning:
            status, out, err = conn.exec(qemu.pin_command(self.state, spec.pinning), 60)
            pinned = qemu.parse_pinning(out) if status == 0 else f"failed: {tail(err, 200)}"
        self.runners = self.guest.ensure_runners(self.ctx.runners_dir)
        self.guest.exec(f"mkdir -p {self.ctx.folder}/trials", 60)
        self.facts = self.endpoint_facts(self.guest)
        # the guest's kernel and the host's, both named (a client on the host runs the latter)
        self.facts["guest_kernel"] = self.facts.get("kernel") or "unavailable"
        self.facts.update(self.host_facts(conn))
        self.paused = False
        self._account(conn)
        status, out, _ = conn.exec(qemu.facts_command(), 60)
        host_facts = qemu.parse_facts(out) if status == 0 else {}
        self.facts.update({"qemu_version": host_facts.get("qemu_version"),
                           "accelerator": self.accel, "accel_reason": reason,
                           "vcpu_pinning": pinned,
                           "hugepages": booted.get("hugepages", "unknown"),
                           "vm_scratch_disk": scratch,
                           "vm_network": qemu.network_fact(spec, booted),
                           "vcpus": s.vcpus, "memory_mb": s.memory})

    def _account(self, conn) -> None:
        """Put QEMU (every thread: vCPUs, I/O, the user-mode network) into the VM's cgroup.

        Its commands run in the guest, so nothing joins the cgroup there (``joins`` stays None);
        the VM is accounted when QEMU is in it.
        """
        path = self.make_cgroup()
        self.joins = None
        self.accounted = False
        if path is None:
            return
        status, out, err = conn.exec(qemu.join_cgroup_command(self.state, self.ctx.cgroup), 30)
        if status == 0:
            self.accounted = True
        else:
            self.facts["cgroup"] = f"unavailable: QEMU not moved into {path} ({tail(out + err, 200)})"

    def pause(self) -> None:
        """Stop the guest's vCPUs (QMP ``stop``): QEMU's main loop still forwards its network."""
        status, out, err = self.ctx.host().exec(qemu.qmp_command(self.state, "stop"), 30)
        if status != 0:
            raise TrialFailed(f"could not pause the VM {self.name} (QMP stop, exit {status})",
                              tail(out + err))
        self.paused = True

    def resume(self) -> None:
        """Continue the guest's vCPUs (QMP ``cont``)."""
        status, out, err = self.ctx.host().exec(qemu.qmp_command(self.state, "cont"), 30)
        if status != 0:
            raise TrialFailed(f"could not resume the VM {self.name} (QMP cont, exit {status})",
                              tail(out + err))
        self.paused = False

    def hold_cpus(self, cpus: str) -> None:
        """Put every QEMU thread on ``cpus`` for a trial whose load generator shares the host."""
        status, out, err = self.ctx.host().exec(qemu.affinity_command(self.state, cpus), 30)
        if status != 0:
            raise TrialFailed(f"could not place the VM {self.name} on CPUs {cpus} "
                              f"(exit {status})", tail(out + err))

    def release_cpus(self) -> None:
        """Give QEMU back the CPUs it had: its vCPU pinning, or every online CPU."""
        spec = self._spec()
        conn = self.ctx.host()
        status, out, err = conn.exec(qemu.affinity_command(self.state, None), 30)
        if status != 0:
            raise TrialFailed(f"could not give the VM {self.name} its CPUs back (exit {status})",
                              tail(out + err))
        if spec.pinning:
            conn.exec(qemu.pin_command(self.state, spec.pinning), 60)

    def _wait_for_guest(self):
        """Connect to the guest's SSH through the host until it answers (bounded)."""
        from overhead.environments.connect import HostKeyError, SSHError, connect
        from overhead.environments.remote import Remote

        s, ctx = self.spec, self.ctx
        deadline = time.monotonic() + s.boot_timeout
        last = ""
        address, port = self._guest_endpoint()
        while time.monotonic() < deadline and not ctx.stop.is_set():
            if not self.qemu_alive():
                raise TrialFailed("QEMU exited during boot", self._serial_tail())
            try:
                return Remote(connect(address, port, s.user,
                                      known_hosts=s.known_hosts or ctx.known_hosts,
                                      key_file=s.key_file or ctx.key_file,
                                      host_key_alias=s.host_key_alias, timeout=10,
                                      keepalive=ctx.keepalive, gateway=ctx.host().connection),
                              keepalive=ctx.keepalive, responsive=10 + ctx.keepalive,
                              interrupt=ctx.stop)
            except HostKeyError:
                raise
            except SSHError as exc:
                last = str(exc)
                time.sleep(2)
        if ctx.stop.is_set():
            raise Interrupted(f"stopped now while the VM {self.name} booted")
        raise TrialFailed(f"guest SSH did not answer within {s.boot_timeout:.0f} s ({last})",
                          self._serial_tail())

    def _guest_endpoint(self) -> tuple[str, int]:
        """Return where the guest's sshd answers from its host: the forward, or its bridge address."""
        if self.spec.bridge is not None:
            return qemu.guest_ip(self._spec()), 22
        return "127.0.0.1", self.spec.ssh_port

    def _serial_tail(self) -> str:
        """Return the end of the guest's serial console log (why a boot failed)."""
        try:
            _, out, _ = self.ctx.host().exec(f"tail -c 2000 {self.state}/serial.log", 30)
        except TrialFailed:
            return ""
        return out

    def qemu_alive(self) -> bool:
        """Whether the QEMU process named by the pidfile runs."""
        try:
            # kill -0 also answers for a zombie (this machine's PID 1 reaps late): read the state
            status, out, _ = self.ctx.host().exec(
                f"p=$(cat {self.state}/qemu.pid 2>/dev/null) && "
                f"sed 's/.*) //' /proc/$p/stat 2>/dev/null | cut -c1", 30)
        except TrialFailed:
            return False
        return status == 0 and out.strip() not in ("", "Z", "X")

    def ensure(self) -> bool:
        """Boot on first use; boot again once if the guest died (then the VM is down)."""
        if self.started and not self.down and not (self.guest and self.guest.alive()
                                                   and self.qemu_alive()):
            if self.restarts >= 1:
                self.down = "the VM died twice"
            else:
                self.restarts += 1
                self.started = False
                self.forget_started()
                self.ctx.event("environment-restart", environment=self.name,
                               why="the VM was gone")
                self._close_guest()
        return super().ensure()

    def conn(self):
        """Return the guest's connection."""
        if self.guest is None or not self.guest.alive():
            raise TrialFailed(f"lost the VM {self.name}: its SSH connection is closed")
        return self.guest

    def address(self, client_is_here: bool) -> str:
        """Return where load generators reach the guest's servers.

        User-mode network: the VM's loopback address on its host (QEMU forwards it), or the
        host's address for a client elsewhere. On a bridge: the guest's own address, from the
        host and from the bridge's other hosts alike.
        """
        if self.spec.bridge is not None:
            return qemu.guest_ip(self._spec())
        return super().address(client_is_here)

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

    def needs_stop(self) -> bool:
        """Return True: QEMU may run from a start that failed half-way."""
        return True

    def stop(self):
        """Close the guest connection and stop QEMU by its pid."""
        from overhead.environments.connect import SSHError

        self._close_guest()
        try:
            self.ctx.host().exec(qemu.stop_command(self.state), 60)
        except (TrialFailed, SSHError):
            pass
        self.paused = False
        self.remove_cgroup()
