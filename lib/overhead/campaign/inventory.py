"""Campaign and inventory files: YAML read into pydantic models, errors that name file and line.

A campaign file names its hosts (or includes an inventory file that does), its environments,
its benchmarks with parameter grids and how many trials to run::

    name: local-smoke
    seed: 20261123
    trials: 3
    warmup: 1
    timeout: 120
    inventory: ../hosts/local.yml       # optional: hosts (and environments) from another file
    hosts:
      local: {address: 127.0.0.1, port: 2222, user: root,
              key_file: ../hosts/ssh/id_ed25519, known_hosts: ../hosts/ssh/known_hosts}
    environments:
      native: {kind: native, host: local}
      docker-nat: {kind: docker, host: local, net: nat, storage: overlay}
      vm: {kind: vm, host: local, tuning: untuned, accel: auto, image: ../hosts/image/current}
    benchmarks:
      sysbench-cpu: {runner: sysbench, params: {test: cpu, threads: [1, 2], time: 2}}

Relative paths resolve against the folder of the file that names them. A value that is a list
in ``params`` is a grid axis; the planner expands the cross product. Every error is an
:class:`~overhead.errors.InputError` naming ``file:line``, the field and what is wrong.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from overhead.errors import InputError

__all__ = ["Benchmark", "Campaign", "DockerEnv", "Host", "NativeEnv", "StaticEnv", "Stopping",
           "VmEnv", "load"]

_NAME = r"^[a-z0-9][a-z0-9_.-]*$"
#: Parameter values a runner accepts (runners take name=value words).
Scalar = str | int | float | bool


class _Model(BaseModel):
    """Strict base: unknown fields are errors (a typo must not be silently ignored)."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Host(_Model):
    """An SSH endpoint: where runners run (native, Docker) or where VMs are started.

    ``known_hosts`` is required: the host key is checked against it and an unknown or changed
    key is refused. ``key_file`` None means the SSH agent. ``host_key_alias`` looks the key up
    under that name instead of ``[address]:port`` (OpenSSH's HostKeyAlias).
    """

    address: str
    port: int = Field(22, ge=1, le=65535)
    user: str = "root"
    key_file: Path | None = None
    known_hosts: Path
    host_key_alias: str | None = None
    connect_timeout: float = Field(10.0, gt=0)
    keepalive: float = Field(5.0, gt=0)


class NativeEnv(_Model):
    """The runner runs on the host itself."""

    kind: Literal["native"]
    host: str


class StaticEnv(_Model):
    """A VM or container the user already runs, reachable by SSH as ``host``: runs like native."""

    kind: Literal["static"]
    host: str
    #: What it is, for the tidy table (``kvm``, ``docker``, ``vm``...): static by default.
    environment: str = "static"
    variant: str | None = None


class DockerEnv(_Model):
    """A long-running container on ``host``; each trial is a ``docker exec`` in it.

    ``storage`` decides where the benchmark's own data lives (/var/tmp, the runners' scratch
    folder): a Docker volume or the container's overlay filesystem. ``ports`` are published
    with ``net: nat`` (load generators outside reach servers inside).
    """

    kind: Literal["docker"]
    host: str
    net: Literal["host", "nat"] = "host"
    storage: Literal["volume", "overlay"] = "volume"
    runtime: Literal["runc", "crun"] = "runc"
    image: str = "overhead/bench:latest"
    ports: tuple[int, ...] = ()
    cpus: float | None = Field(None, gt=0)


class VmEnv(_Model):
    """A QEMU guest the campaign boots on ``host`` and reaches by SSH on a forwarded port.

    ``tuning``: untuned = QEMU's default CPU model, no pinning; tuned = host CPU model and
    topology, vCPU threads pinned to ``pinning`` (default 0..vcpus-1), hugepage memory where
    the host has it. ``accel: auto`` proves KVM works with a trial boot before using it and
    otherwise runs under TCG (software emulation), recorded and labelled as such.
    """

    kind: Literal["vm"]
    host: str
    tuning: Literal["untuned", "tuned"] = "untuned"
    vcpus: int = Field(2, ge=1)
    memory: int = Field(1024, ge=128, description="MiB")
    pinning: tuple[int, ...] | None = None
    hugepages: bool = False
    accel: Literal["auto", "kvm", "tcg"] = "auto"
    image: Path
    ssh_port: int = Field(10022, ge=1024, le=65535)
    user: str = "root"
    key_file: Path | None = None
    known_hosts: Path | None = None
    host_key_alias: str | None = None
    ports: tuple[int, ...] = ()
    boot_timeout: float = Field(300.0, gt=0)
    probe_timeout: float = Field(25.0, gt=0)


Environment = Annotated[NativeEnv | StaticEnv | DockerEnv | VmEnv, Field(discriminator="kind")]


class Benchmark(_Model):
    """A runner and its parameters; a list value is a grid axis (the cross product is run).

    A load generator sets ``client``: the runner then runs natively on that host and targets a
    server inside the environment. ``server`` is the command that starts it there (once per
    environment, stopped when the campaign ends; ``{listen}`` becomes the address it should
    listen on), ``ready`` a command on the client that succeeds once the server answers
    (``{host}`` becomes the server's address), ``ports`` the server's TCP ports (published by
    Docker with NAT, forwarded by QEMU), and ``target_param`` the runner parameter that
    receives the server's address (``host`` for netperf, nuttcp, redis-benchmark).
    """

    runner: str
    params: dict[str, Scalar | list[Scalar]] = Field(default_factory=dict)
    timeout: float | None = Field(None, gt=0)
    #: Limit to these environments (default: every environment).
    environments: tuple[str, ...] | None = None
    client: str | None = None
    server: str | None = None
    ready: str | None = None
    ports: tuple[int, ...] = ()
    target_param: str = "host"

    @model_validator(mode="after")
    def _client_server(self) -> Benchmark:
        """Check that a server or ready command has a client host to run the load generator on."""
        if (self.server or self.ready) and not self.client:
            raise ValueError("server and ready need a client host (the load generator's)")
        return self

    @field_validator("params")
    @classmethod
    def _names(cls, params: dict) -> dict:
        """Parameter names are the runners' (lower case, digits, underscore); lists non-empty."""
        for name, value in params.items():
            if not re.match(r"^[a-z0-9_]+$", name):
                raise ValueError(f"parameter name {name!r} must be lower case, digits, _")
            if isinstance(value, list) and not value:
                raise ValueError(f"parameter {name!r} is an empty list")
        return params


class Stopping(_Model):
    """Add rounds until each cell's 95% CI half-width is below ``target`` x its mean.

    ``metric`` is the tidy metric judged (every cell's runner must report it). Cells stop
    separately; a cell that reaches ``max_rounds`` stops with that reason.
    """

    metric: str
    target: float = Field(gt=0, lt=1)
    min_rounds: int = Field(3, ge=2)
    max_rounds: int = Field(10, ge=2)
    level: float = Field(0.95, gt=0, lt=1)

    @model_validator(mode="after")
    def _bounds(self) -> Stopping:
        """max_rounds must be at least min_rounds."""
        if self.max_rounds < self.min_rounds:
            raise ValueError(f"max_rounds {self.max_rounds} < min_rounds {self.min_rounds}")
        return self


class Campaign(_Model):
    """A whole campaign: hosts, environments, benchmarks, repetitions and the seed."""

    name: str = Field(pattern=_NAME)
    seed: int
    trials: int = Field(3, ge=1)
    warmup: int = Field(0, ge=0)
    timeout: float = Field(600.0, gt=0)
    stopping: Stopping | None = None
    inventory: Path | None = None
    runners: Path | None = None
    hosts: dict[str, Host] = Field(default_factory=dict)
    environments: dict[str, Environment]
    benchmarks: dict[str, Benchmark]
    #: Set by :func:`load`: the campaign file, its hash and text (not YAML fields).
    path: Path | None = None
    sha256: str | None = None

    @model_validator(mode="after")
    def _references(self) -> Campaign:
        """Names are valid, and every environment's host and benchmark's environment exist."""
        for kind, names in (("environment", self.environments), ("benchmark", self.benchmarks),
                            ("host", self.hosts)):
            for name in names:
                if not re.match(_NAME, name):
                    raise ValueError(f"{kind} name {name!r} must match {_NAME}")
        for name, env in self.environments.items():
            if env.host not in self.hosts:
                raise ValueError(f"environment {name!r}: unknown host {env.host!r} "
                                 f"(hosts: {', '.join(self.hosts) or 'none'})")
        for name, bench in self.benchmarks.items():
            for env in bench.environments or ():
                if env not in self.environments:
                    raise ValueError(f"benchmark {name!r}: unknown environment {env!r}")
            if bench.client and bench.client not in self.hosts:
                raise ValueError(f"benchmark {name!r}: unknown client host {bench.client!r}")
        return self

    def server_ports(self, environment: str) -> tuple[int, ...]:
        """Return the ports to publish or forward for an environment (its own and its servers')."""
        env = self.environments[environment]
        ports = list(getattr(env, "ports", ()))
        for name, bench in self.benchmarks.items():
            if bench.client and environment in self.environments_of(name):
                ports += [p for p in bench.ports if p not in ports]
        return tuple(ports)

    def environments_of(self, benchmark: str) -> list[str]:
        """Return the environments a benchmark runs in, in file order."""
        only = self.benchmarks[benchmark].environments
        return [e for e in self.environments if only is None or e in only]

    def runners_dir(self) -> Path:
        """Return the folder of runner scripts (the campaign's ``runners`` or the checkout's)."""
        from overhead.runners import RUNNERS_DIR

        return self.runners or RUNNERS_DIR


# ---------------------------------------------------------------------------------------------
# YAML with line numbers


def _node_at(node: yaml.Node, loc: tuple) -> yaml.Node:
    """Return the deepest YAML node along a pydantic error location (for its line)."""
    for part in loc:
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if key.value == str(part):
                    node = value
                    break
            else:
                return node
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int):
            if part >= len(node.value):
                return node
            node = node.value[part]
        else:
            return node
    return node


def _read_yaml(path: Path) -> tuple[dict, yaml.Node]:
    """Read a YAML mapping and its node tree; syntax errors name the file and line."""
    try:
        text = path.read_text()
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        line = f":{mark.line + 1}" if mark else ""
        raise InputError(f"{path}{line}: not valid YAML ({exc.problem})") from None
    if not isinstance(data, dict) or node is None:
        raise InputError(f"{path}:1: a campaign file is a YAML mapping (name, hosts, ...)")
    return data, node


def _resolve(value: Any, base: Path) -> Any:
    """Resolve a relative path (str) against ``base``; None and absolute paths unchanged."""
    if value is None:
        return None
    p = Path(str(value)).expanduser()
    return p if p.is_absolute() else (base / p).resolve()


def _resolve_paths(data: dict, base: Path, *, hosts_only: bool = False) -> None:
    """Resolve the path fields of hosts (and environments) in place, against ``base``."""
    for host in (data.get("hosts") or {}).values():
        if isinstance(host, dict):
            for key in ("key_file", "known_hosts"):
                if key in host:
                    host[key] = _resolve(host[key], base)
    if hosts_only:
        return
    for env in (data.get("environments") or {}).values():
        if isinstance(env, dict) and env.get("kind") == "vm":
            for key in ("image", "key_file", "known_hosts"):
                if key in env:
                    env[key] = _resolve(env[key], base)
    for key in ("inventory", "runners"):
        if key in data:
            data[key] = _resolve(data[key], base)


def _raise(path: Path, node: yaml.Node, exc: ValidationError) -> None:
    """Turn a pydantic error into an InputError naming file:line and the field (first error)."""
    lines = []
    for err in exc.errors()[:5]:
        loc = tuple(err["loc"])
        # pydantic puts the union's tag after the environment's name: environments.vm.vm.vcpus
        if len(loc) >= 3 and loc[0] == "environments" and loc[2] in _KINDS:
            loc = loc[:2] + loc[3:]
        at = _node_at(node, loc)
        field = ".".join(str(p) for p in loc) or "(top level)"
        lines.append(f"{path}:{at.start_mark.line + 1}: {field}: {err['msg']}")
    more = len(exc.errors()) - 5
    raise InputError("\n".join(lines) + (f"\n(and {more} more)" if more > 0 else "")) from None


#: Discriminator tags pydantic puts into error locations (not YAML keys).
_KINDS = ("native", "static", "docker", "vm")


def _check_references(path: Path, node: yaml.Node, data: dict) -> None:
    """Name the line of an environment's unknown host or a benchmark's unknown environment."""
    hosts = data.get("hosts") or {}
    envs = data.get("environments") or {}
    for name, env in envs.items() if isinstance(envs, dict) else ():
        if isinstance(env, dict) and "host" in env and env["host"] not in hosts:
            line = _node_at(node, ("environments", name, "host")).start_mark.line + 1
            raise InputError(f"{path}:{line}: environments.{name}.host: unknown host "
                             f"{env['host']!r} (hosts: {', '.join(hosts) or 'none'})")
    benches = data.get("benchmarks") or {}
    for name, bench in benches.items() if isinstance(benches, dict) else ():
        client = bench.get("client") if isinstance(bench, dict) else None
        if client is not None and client not in hosts:
            line = _node_at(node, ("benchmarks", name, "client")).start_mark.line + 1
            raise InputError(f"{path}:{line}: benchmarks.{name}.client: unknown host {client!r} "
                             f"(hosts: {', '.join(hosts) or 'none'})")
        for env in (bench or {}).get("environments") or () if isinstance(bench, dict) else ():
            if env not in envs:
                line = _node_at(node, ("benchmarks", name, "environments")).start_mark.line + 1
                raise InputError(f"{path}:{line}: benchmarks.{name}.environments: unknown "
                                 f"environment {env!r}")


def load(path: str | Path) -> Campaign:
    """Read a campaign file (and the inventory it includes) into a :class:`Campaign`.

    Parameters
    ----------
    path : str or path
        The campaign YAML.

    Returns
    -------
    Campaign
        The validated campaign; ``path`` is the file and ``sha256`` the hash of its bytes and of
        its inventory's (the campaign hash recorded in provenance).

    Raises
    ------
    InputError
        Naming ``file:line`` and the field, for bad YAML, an unknown or missing field, a wrong
        type, a reference to an unknown host or environment.
    """
    path = Path(path).resolve()
    data, node = _read_yaml(path)
    digest = hashlib.sha256(path.read_bytes())
    _resolve_paths(data, path.parent)
    inventory = data.get("inventory")
    if inventory is not None:
        inv_path = Path(inventory)
        inv, inv_node = _read_yaml(inv_path)
        unknown = set(inv) - {"hosts", "environments"}
        if unknown:
            line = _node_at(inv_node, (sorted(unknown)[0],)).start_mark.line + 1
            raise InputError(f"{inv_path}:{line}: an inventory holds only hosts and environments "
                             f"(found {', '.join(sorted(unknown))})")
        _resolve_paths(inv, inv_path.parent)
        for key in ("hosts", "environments"):
            both = set(inv.get(key) or {}) & set(data.get(key) or {})
            if both:
                line = _node_at(node, (key, sorted(both)[0])).start_mark.line + 1
                raise InputError(f"{path}:{line}: {key} {', '.join(sorted(both))} also defined "
                                 f"in the inventory {inv_path}")
            data[key] = {**(inv.get(key) or {}), **(data.get(key) or {})}
        digest.update(inv_path.read_bytes())
        for name, host in (inv.get("hosts") or {}).items():
            try:
                Host.model_validate(host)
            except ValidationError as exc:
                _raise(inv_path, _node_at(inv_node, ("hosts", name)), exc)
    for key in ("path", "sha256"):
        if key in data:
            line = _node_at(node, (key,)).start_mark.line + 1
            raise InputError(f"{path}:{line}: {key}: not a campaign field")
    _check_references(path, node, data)
    try:
        campaign = Campaign.model_validate(data)
    except ValidationError as exc:
        _raise(path, node, exc)
    return campaign.model_copy(update={"path": path, "sha256": digest.hexdigest()})
