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
import operator
import re
from functools import reduce
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import Field, ValidationError, field_validator, model_validator

from overhead.environments import registry
from overhead.environments.docker import DockerEnv
from overhead.environments.native import NativeEnv
from overhead.environments.spec import Strict
from overhead.environments.static import StaticEnv
from overhead.environments.vm import VmEnv
from overhead.errors import InputError

__all__ = ["Benchmark", "Campaign", "DockerEnv", "Host", "Judge", "NativeEnv", "StaticEnv",
           "Stopping", "VmEnv", "load"]

_NAME = r"^[a-z0-9][a-z0-9_.-]*$"
#: Parameter values a runner accepts (runners take name=value words).
Scalar = str | int | float | bool


#: Strict base: unknown fields are errors (a typo must not be silently ignored).
_Model = Strict


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


#: A campaign's environment: the spec of the kind it names (one per file of environments/).
Environment = Annotated[reduce(operator.or_, registry.specs()), Field(discriminator="kind")]


class Judge(_Model):
    """A quantity the verdicts stopping rule judges in a benchmark's cells.

    The trial's tidy rows of ``metric`` whose parameter columns match ``where`` (``{kernel:
    hpl}`` matches ``p_kernel == "hpl"``; ``null`` matches a missing value), combined into one
    value per trial by ``combine`` (the mean of the rows, or their sum: a mixed job's read and
    write IOPS). ``name`` labels it in the decisions (default: the metric).
    """

    metric: str
    where: dict[str, Scalar | None] = Field(default_factory=dict)
    combine: Literal["mean", "sum"] = "mean"
    name: str | None = None

    @property
    def label(self) -> str:
        """The quantity's name in the decisions."""
        return self.name or self.metric


class Benchmark(_Model):
    """A runner and its parameters; a list value is a grid axis (the cross product is run).

    A load generator sets ``client``: the runner then runs natively on that host and targets a
    server inside the environment. ``server`` is the command that starts it there (once per
    environment, stopped when the campaign ends; ``{listen}`` becomes the address it should
    listen on), ``ready`` a command on the client that succeeds once the server answers
    (``{host}`` becomes the server's address), ``ports`` the server's TCP ports (published by
    Docker with NAT, forwarded by QEMU), and ``target_param`` the runner parameter that
    receives the server's address (``host`` for netperf, nuttcp, redis-benchmark).

    In ``server``, ``ready`` and parameter values, ``{runners}`` becomes the folder of the
    runner scripts where the command runs and ``{file:NAME}`` the path of the campaign's file
    NAME copied there (mode 0600; how a password reaches a server and its client without
    appearing in a command line, a parameter or the raw data). ``{port:N}`` is port N, moved
    by the environment's offset when ``offset_ports`` is set. ``monitor`` is a command run
    inside the environment beside each trial (``mpstat 1``: the server's CPU while the client
    loads it), stopped with SIGINT when the runner ends; its output becomes the trial's
    ``monitor`` file, parsed by ``monitor_parser`` into rows of the trial.
    """

    runner: str
    params: dict[str, Scalar | list[Scalar]] = Field(default_factory=dict)
    timeout: float | None = Field(None, gt=0)
    #: Measured trials of this benchmark's cells (default: the campaign's ``trials``): more
    #: where the effect sought is small beside the trial-to-trial spread (netperf's few
    #: microseconds of NAT). Not with a stopping rule, which decides the count itself.
    trials: int | None = Field(None, ge=1)
    #: Limit to these environments (default: every environment).
    environments: tuple[str, ...] | None = None
    client: str | None = None
    server: str | None = None
    ready: str | None = None
    ports: tuple[int, ...] = ()
    #: The server binds every address (nuttcp has no listen option), so each environment on
    #: a host gets its own ports: ``ports`` and ``{port:N}`` become N + 100 x (k - 1) for
    #: the host's k-th environment.
    offset_ports: bool = False
    target_param: str = "host"
    monitor: str | None = None
    monitor_parser: str | None = None
    #: The quantities a verdicts stopping rule judges in this benchmark's cells (none: its
    #: cells get the rule's ``min_rounds`` and are not judged).
    judge: tuple[Judge, ...] = ()

    @model_validator(mode="after")
    def _client_server(self) -> Benchmark:
        """Check that a server or ready command has a client host to run the load generator on."""
        if (self.server or self.ready or self.monitor) and not self.client:
            raise ValueError("server, ready and monitor need a client host (the load "
                             "generator's)")
        if bool(self.monitor) != bool(self.monitor_parser):
            raise ValueError("monitor and monitor_parser go together")
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
    """When a cell has had enough trials: rounds are added to the cells that need more.

    ``rule: precision`` (the default): until each cell's 95% CI half-width of ``metric`` (the
    tidy metric judged; every cell's runner must report it) is below ``target`` x its mean.

    ``rule: verdicts``: while a comparison a cell takes part in is undecided. Each cell of an
    environment other than ``baseline`` is compared with the baseline's cell of the same
    benchmark and parameters on every quantity its benchmark's ``judge`` lists, against the
    margin of ``data/reference/margins.yml`` (:func:`overhead.stats.decide`); a cell gets
    another round while one of its comparisons is ``inconclusive`` (or not yet testable), the
    baseline's cell while any comparison with it is.

    Cells stop separately; ``max_rounds`` measured rounds and, for the verdicts rule,
    ``max_minutes`` of this run's wall time (no round is added after it) cap them, and the
    plan records why each stopped.
    """

    rule: Literal["precision", "verdicts"] = "precision"
    metric: str | None = None
    target: float | None = Field(None, gt=0, lt=1)
    baseline: str | None = None
    min_rounds: int = Field(3, ge=2)
    max_rounds: int = Field(10, ge=2)
    max_minutes: float | None = Field(None, gt=0, allow_inf_nan=False)
    level: float = Field(0.95, gt=0, lt=1)

    @model_validator(mode="after")
    def _bounds(self) -> Stopping:
        """max_rounds at least min_rounds; each rule's own fields given, the other's not."""
        if self.max_rounds < self.min_rounds:
            raise ValueError(f"max_rounds {self.max_rounds} < min_rounds {self.min_rounds}")
        if self.rule == "precision":
            if self.metric is None or self.target is None:
                raise ValueError("the precision rule needs metric and target")
            if self.baseline is not None or self.max_minutes is not None:
                raise ValueError("baseline and max_minutes belong to the verdicts rule")
        else:
            if self.baseline is None:
                raise ValueError("the verdicts rule needs baseline: the environment every other "
                                 "is compared with")
            if self.metric is not None or self.target is not None:
                raise ValueError("metric and target belong to the precision rule; the verdicts "
                                 "rule judges each benchmark's judge: quantities")
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
    #: Benchmarks from ``profiles/<profile>.yml`` (beside the file, else the checkout's
    #: data/campaigns/profiles); the file's own benchmarks add to and override them.
    profile: str | None = None
    #: The host load generators run on, for profile benchmarks that have a server.
    client: str | None = None
    #: Files copied to the endpoints that use them (``{file:NAME}``), mode 0600: secrets.
    files: dict[str, Path] = Field(default_factory=dict)
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
            for entry in env.skip:
                from fnmatch import fnmatchcase

                hit = [b for b in self.benchmarks if fnmatchcase(b, str(entry["benchmark"]))]
                if not hit:
                    raise ValueError(f"environment {name!r}: skip names no benchmark "
                                     f"({entry['benchmark']!r}; benchmarks: {', '.join(self.benchmarks)})")
                for key in (k for k in entry if k != "benchmark"):
                    if not any(key in self.benchmarks[b].params for b in hit):
                        raise ValueError(f"environment {name!r}: skip parameter {key!r} is not a "
                                         f"parameter of {', '.join(hit)}")
            if env.host not in self.hosts:
                raise ValueError(f"environment {name!r}: unknown host {env.host!r} "
                                 f"(hosts: {', '.join(self.hosts) or 'none'})")
        if self.stopping is not None and self.stopping.rule == "verdicts":
            if self.stopping.baseline not in self.environments:
                raise ValueError(f"stopping.baseline {self.stopping.baseline!r} is not an "
                                 f"environment ({', '.join(self.environments)})")
            if not any(b.judge for b in self.benchmarks.values()):
                raise ValueError("the verdicts rule needs at least one benchmark with judge: "
                                 "(the quantities its comparisons decide on)")
        for name, bench in self.benchmarks.items():
            if bench.trials is not None and self.stopping is not None:
                raise ValueError(f"benchmark {name!r}: trials sets a fixed count; with a "
                                 "stopping rule the rule decides how many trials a cell gets")
            for env in bench.environments or ():
                if env not in self.environments:
                    raise ValueError(f"benchmark {name!r}: unknown environment {env!r}")
            if bench.client and bench.client not in self.hosts:
                raise ValueError(f"benchmark {name!r}: unknown client host {bench.client!r}")
            texts = [bench.server or "", bench.ready or "", bench.monitor or "",
                     *(str(v) for v in bench.params.values())]
            for used in sorted({m for text in texts for m in re.findall(r"\{file:([^}]*)\}", text)}):
                if used not in self.files:
                    raise ValueError(f"benchmark {name!r}: {{file:{used}}} is not among the "
                                     f"campaign's files ({', '.join(self.files) or 'none'})")
        return self

    def host_index(self, environment: str) -> int:
        """Return k - 1 for the host's k-th environment (in file order): its loopback and ports."""
        host = self.environments[environment].host
        return [n for n, e in self.environments.items() if e.host == host].index(environment)

    def port_offset(self, environment: str, benchmark: str) -> int:
        """Return how far a benchmark's server ports move in an environment (offset_ports)."""
        return 100 * self.host_index(environment) if self.benchmarks[benchmark].offset_ports else 0

    def server_ports(self, environment: str) -> tuple[int, ...]:
        """Return the ports to publish or forward for an environment (its own and its servers')."""
        env = self.environments[environment]
        ports = list(getattr(env, "ports", ()))
        for name, bench in self.benchmarks.items():
            if bench.client and environment in self.environments_of(name):
                off = self.port_offset(environment, name)
                ports += [p + off for p in bench.ports if p + off not in ports]
        return tuple(ports)

    def environments_of(self, benchmark: str) -> list[str]:
        """Return the environments a benchmark runs in, in file order."""
        from fnmatch import fnmatchcase

        only = self.benchmarks[benchmark].environments
        return [e for e, spec in self.environments.items() if (only is None or e in only)
                and (spec.benchmarks is None
                     or any(fnmatchcase(benchmark, pat) for pat in spec.benchmarks))]

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


def _read_part(path: Path, allowed: set[str], what: str) -> tuple[dict, yaml.Node]:
    """Read a file a campaign names (inventory, profile) that may hold only ``allowed`` keys."""
    data, node = _read_yaml(path)
    unknown = set(data) - allowed
    if unknown:
        line = _node_at(node, (sorted(unknown)[0],)).start_mark.line + 1
        raise InputError(f"{path}:{line}: {what} (found {', '.join(sorted(unknown))})")
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
        if isinstance(env, dict):
            for key in registry.path_fields(env.get("kind")):
                if key in env:
                    env[key] = _resolve(env[key], base)
    for key in ("inventory", "runners"):
        if key in data:
            data[key] = _resolve(data[key], base)
    files = data.get("files")
    if isinstance(files, dict):
        data["files"] = {k: _resolve(v, base) for k, v in files.items()}


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
_KINDS = tuple(registry.KINDS)


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


#: Campaign fields a caller may override (the campaign notebook's parameters, ``--set``).
OVERRIDABLE = ("name", "seed", "trials", "warmup", "timeout", "profile", "client", "hosts")


def _apply_overrides(path: Path, data: dict, overrides: dict) -> dict:
    """Return ``data`` with ``overrides`` applied; hosts are merged field by field.

    ``trials`` replaces a stopping rule: ``--set trials=1`` runs one trial per cell.
    """
    unknown = set(overrides) - set(OVERRIDABLE)
    if unknown:
        raise InputError(f"{path}: cannot override {', '.join(sorted(unknown))} (overridable: "
                         f"{', '.join(OVERRIDABLE)})")
    data = dict(data)
    if overrides.get("profile") not in (None, data.get("profile")) and "name" not in overrides:
        # another profile measures other things: its trials go to a raw tree of their own
        data["name"] = f"{data.get('name')}-{overrides['profile']}"
    for key, value in overrides.items():
        if key == "hosts":
            hosts = {k: dict(v) if isinstance(v, dict) else v
                     for k, v in (data.get("hosts") or {}).items()}
            for name, fields in (value or {}).items():
                if name not in hosts:
                    raise InputError(f"{path}: host override {name!r}: no such host (hosts: "
                                     f"{', '.join(hosts) or 'none'})")
                hosts[name] = {**hosts[name], **fields}
            data["hosts"] = hosts
        elif value is not None:
            data[key] = value
            if key == "trials":
                # a count asked for on the command line is a fixed count: it replaces the file's
                # stopping rule (which decides the count itself)
                data.pop("stopping", None)
    return data


def overrides_from_sets(sets: list[str]) -> dict:
    """Turn ``--set`` words (``trials=5``, ``hosts.local.address=10.0.0.2``) into overrides.

    Values are read as YAML scalars (``5`` is a number, ``paper`` a string).
    """
    out: dict = {}
    for word in sets:
        key, sep, value = word.partition("=")
        if not sep or not key:
            raise InputError(f"--set {word!r}: expected field=value")
        parts = key.split(".")
        if parts[0] not in OVERRIDABLE or (parts[0] == "hosts") != (len(parts) == 3):
            raise InputError(f"--set {word!r}: overridable are {', '.join(OVERRIDABLE)} "
                             f"(hosts as hosts.NAME.FIELD)")
        node = out
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = yaml.safe_load(value) if value else value
    return out


def profile_path(name: str, base: Path) -> Path:
    """Return the file of profile ``name``: ``base/profiles/<name>.yml``, else the checkout's."""
    from overhead.paths import ROOT

    tried = []
    for folder in (base / "profiles", ROOT / "data" / "campaigns" / "profiles"):
        candidate = folder / f"{name}.yml"
        if candidate.is_file():
            return candidate
        tried.append(str(candidate))
    raise InputError(f"profile {name!r}: no such file ({' or '.join(tried)})")


def _read_profile(name: str, base: Path, digest, seen: tuple = ()) -> tuple[dict, Path, Any]:
    """Read a profile's benchmarks, those of the profile it ``extends`` under them.

    A benchmark of an extending profile replaces the fields it names and merges its
    ``params`` into the base's (``ci`` = ``quick`` with one value per axis, say).
    """
    ppath = profile_path(name, base)
    if name in seen:
        raise InputError(f"{ppath}:1: profile {name} extends itself (through "
                         f"{' -> '.join(seen)})")
    prof, pnode = _read_part(ppath, {"benchmarks", "extends"},
                             "a profile holds only benchmarks and extends")
    digest.update(ppath.read_bytes())
    own = prof.get("benchmarks") or {}
    if not prof.get("extends"):
        return own, ppath, pnode
    benches, _, _ = _read_profile(str(prof["extends"]), base, digest, (*seen, name))
    for bname, fields in own.items():
        if bname in benches and isinstance(fields, dict):
            merged = {**benches[bname], **fields}
            merged["params"] = {**(benches[bname].get("params") or {}),
                                **(fields.get("params") or {})}
            benches[bname] = merged
        else:
            benches[bname] = fields
    return benches, ppath, pnode


def _merge_profile(path: Path, node: yaml.Node, data: dict, digest) -> None:
    """Put the benchmarks of the campaign's profile under its own (which win), in place."""
    name = data["profile"]
    line = _node_at(node, ("profile",)).start_mark.line + 1
    try:
        benches, ppath, pnode = _read_profile(str(name), path.parent, digest)
    except InputError as exc:
        raise InputError(f"{path}:{line}: {exc}") from None
    client = data.get("client")
    for bname, bench in benches.items():
        if not isinstance(bench, dict):
            continue
        if any(bench.get(k) for k in ("server", "ready", "monitor")) and "client" not in bench:
            if not client:
                raise InputError(f"{path}:{line}: profile {name}: benchmark {bname} has a "
                                 f"server: set `client:` to the host its load generator runs on")
            bench["client"] = client
        try:
            Benchmark.model_validate(bench)
        except ValidationError as exc:
            _raise(ppath, _node_at(pnode, ("benchmarks", bname)), exc)
    data["benchmarks"] = {**benches, **(data.get("benchmarks") or {})}


def load(path: str | Path, overrides: dict | None = None) -> Campaign:
    """Read a campaign file (and the inventory and profile it names) into a :class:`Campaign`.

    Parameters
    ----------
    path : str or path
        The campaign YAML.
    overrides : dict, optional
        Fields replaced after reading (OVERRIDABLE: ``trials``, ``profile``, ``hosts``
        merged per host...). Another ``profile`` than the file's also renames the campaign
        (``<name>-<profile>``) unless ``name`` is given, so its trials get a raw tree of their
        own. Overrides are part of the campaign hash.

    Returns
    -------
    Campaign
        The validated campaign; ``path`` is the file and ``sha256`` the hash of its bytes, its
        inventory's, its profile's and the overrides (the campaign hash in provenance).

    Raises
    ------
    InputError
        Naming ``file:line`` and the field, for bad YAML, an unknown or missing field, a wrong
        type, a reference to an unknown host or environment.
    """
    import json

    path = Path(path).resolve()
    data, node = _read_yaml(path)
    digest = hashlib.sha256(path.read_bytes())
    if overrides:
        data = _apply_overrides(path, data, overrides)
        digest.update(json.dumps(overrides, sort_keys=True, default=str).encode())
    _resolve_paths(data, path.parent)
    inventory = data.get("inventory")
    if inventory is not None:
        inv_path = Path(inventory)
        inv, inv_node = _read_part(inv_path, {"hosts", "environments"},
                                   "an inventory holds only hosts and environments")
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
    if data.get("profile"):
        _merge_profile(path, node, data, digest)
    _check_references(path, node, data)
    try:
        campaign = Campaign.model_validate(data)
    except ValidationError as exc:
        _raise(path, node, exc)
    return campaign.model_copy(update={"path": path, "sha256": digest.hexdigest()})
