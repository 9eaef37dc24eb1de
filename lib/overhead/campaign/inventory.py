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

A campaign file is contained: what it names cannot reach outside the places meant for it.

- **Names** become file and folder names (the raw tree's ``<environment>/<benchmark>/``, the
  remote campaign folder, a container, ``<runners>/<runner>.sh``, the remote copy of a campaign
  file ``.files/<NAME>``, ``profiles/<profile>.yml``): campaign, host, environment, benchmark,
  runner, profile and file names are plain names, :data:`NAME` (lower case, digits, ``_ . -``,
  at most 64 characters, no ``/``, no ``..``), matched whole (``re.fullmatch``: a trailing
  newline is refused too); parameter names are :data:`PARAM`. An environment may not be named
  like the raw tree's own folders (``facts``, ``failed``).
- **Paths** on this machine (``files:`` values, a host's or VM's ``key_file`` and
  ``known_hosts``, a VM's ``image``, ``inventory``, ``runners``, ``{path:...}`` in parameters
  and commands) are strings. A relative one must resolve (``..`` and symlinks followed,
  :meth:`pathlib.Path.resolve`) inside the parent of the folder of the file that names it (that
  folder and the folders beside it: the repository's campaigns say ``../hosts/ssh/id_ed25519``)
  or inside the checkout (:data:`overhead.paths.ROOT`); ``../../../../tmp/x`` is refused. An
  absolute or ``~`` path is the user's explicit choice (their own ``~/.ssh/known_hosts``, a
  password file under ``~/.config``) and is taken as written.
- **Numbers** are finite and bounded: integers are YAML integers (``true`` is not 1), counts
  of trials, warm-ups and rounds at most :data:`MAX_ROUNDS`, a seed in [0, 2**63), timeouts
  from a millisecond to 7 days; a benchmark's grid has at most :data:`MAX_CELLS` points and the whole plan (cells
  x rounds, with a stopping rule its ``max_rounds``) at most :data:`MAX_TRIALS` trials, counted
  before anything is expanded.
- **The YAML itself** is data, not a language: UTF-8, a regular file of at most
  :data:`MAX_BYTES` (refused before more is read; a FIFO or a device is refused unread), no NUL
  or other control character in any value (tab and newline aside), no tag at all (``!!binary``,
  ``!!python/...``, ``!custom``), plain scalars read by YAML 1.2's core schema (``true``/``false``,
  decimal integers, floats, ``null``; ``yes``, ``0x10``, ``1_0``, ``1:20`` and ``2026-11-29``
  are text, which a field wanting a number refuses), nesting at most :data:`MAX_DEPTH` deep, no
  mapping key given twice (the error names both lines), keys are strings; ``hosts``,
  ``environments``, ``benchmarks``, ``files`` and ``params`` are mappings. ``--set`` values are
  read by the same loader (:func:`read_scalar`).
- **Words that reach a command line** are checked for what they are: an image by Docker's
  reference grammar (and passed after ``--``), an address as an IP address or DNS name, a user
  as a login name; none can start with ``-`` and be read as an option.
"""

from __future__ import annotations

import hashlib
import operator
import os
import re
import stat
from functools import reduce
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import (
    AfterValidator,
    Discriminator,
    Field,
    StringConstraints,
    Tag,
    ValidationError,
    field_validator,
    model_validator,
)

from overhead.campaign.stopping import registry as stopping_registry
from overhead.environments import registry
from overhead.environments.docker import DockerEnv
from overhead.environments.native import NativeEnv
from overhead.environments.spec import MAX_SECONDS, Address, Int, Number, Strict, UserName
from overhead.environments.static import StaticEnv
from overhead.environments.vm import VmEnv
from overhead.errors import InputError

__all__ = ["OTHER_HOST", "MAX_BYTES", "MAX_CELLS", "MAX_DEPTH", "MAX_ROUNDS", "MAX_TRIALS", "NAME", "PARAM",
           "Benchmark", "Campaign", "DockerEnv", "Host", "Isolation", "Judge", "NativeEnv", "StaticEnv",
           "Stopping", "VmEnv", "is_file", "load", "plan_size", "read_scalar"]

#: ``client: other``: the load generator runs on a host other than its server's environment's.
OTHER_HOST = "other"

#: A name that becomes a file or folder name: lower case, digits, ``_ . -``, at most 64
#: characters, never ``..`` (matched whole with re.fullmatch).
NAME = r"(?!.*\.\.)[a-z0-9][a-z0-9_.-]{0,63}"
#: A runner parameter's name (runners take name=value words).
PARAM = r"[a-z0-9_]{1,64}"
#: The most trials, warm-up rounds or rounds a count may ask for.
MAX_ROUNDS = 10_000
#: The most points one benchmark's parameter grid may have.
MAX_CELLS = 100_000
#: The most trials a whole plan may have (cells x rounds).
MAX_TRIALS = 100_000
#: The largest campaign, inventory or profile file read (bytes), and its deepest nesting.
MAX_BYTES = 1 << 20
MAX_DEPTH = 32
#: Folder names of the raw tree that are not environments (:mod:`overhead.campaign.layout`).
_RESERVED = ("facts", "failed", "interfered")


def _name_of(kind: str, pattern: str = NAME):
    """Return a validator checking that a whole string is a ``kind`` name (re.fullmatch)."""
    def check(value: str) -> str:
        if not re.fullmatch(pattern, value):
            raise ValueError(f"{kind} name {value!r} must be a plain name: lower case, digits, "
                             f"_ . - (at most 64 characters, no '..')" if pattern == NAME else
                             f"{kind} name {value!r} must be lower case, digits, _ (at most 64)")
        if kind == "environment" and value in _RESERVED:
            raise ValueError(f"environment name {value!r} is a folder of the raw tree "
                             f"({', '.join(_RESERVED)})")
        return value
    return check


HostName = Annotated[str, AfterValidator(_name_of("host"))]
EnvName = Annotated[str, AfterValidator(_name_of("environment"))]
BenchName = Annotated[str, AfterValidator(_name_of("benchmark"))]
FileName = Annotated[str, AfterValidator(_name_of("file"))]
ParamName = Annotated[str, AfterValidator(_name_of("parameter", PARAM))]
#: A timeout in seconds: at least a millisecond (``1e-320`` is positive and means nothing),
#: finite, at most 7 days.
Seconds = Annotated[Number, Field(ge=0.001, le=MAX_SECONDS)]
#: A count of trials or rounds.
Rounds = Annotated[Int, Field(ge=1, le=MAX_ROUNDS)]
#: Parameter values a runner accepts (runners take name=value words); numbers finite.
Scalar = str | Int | Number | bool


class At(InputError):
    """A validator's error about a field below the one validated (``loc``: its YAML path).

    Raised inside a pydantic validator (an InputError is a ValueError); the message it ends up
    in names the line of ``loc`` instead of the validated field's.
    """

    def __init__(self, loc: tuple, message: str):
        super().__init__(message)
        self.loc = loc


#: Strict base: unknown fields are errors (a typo must not be silently ignored).
_Model = Strict


class Host(_Model):
    """An SSH endpoint: where runners run (native, Docker) or where VMs are started.

    ``known_hosts`` is required: the host key is checked against it and an unknown or changed
    key is refused. ``key_file`` None means the SSH agent. ``host_key_alias`` looks the key up
    under that name instead of ``[address]:port`` (OpenSSH's HostKeyAlias).
    ``bench_address``: where load generators on other hosts reach the servers of this host's
    environments, when that is not the SSH ``address`` (this machine's sshd listens on
    127.0.0.1, its bridge to the fleet's hosts is 10.231.0.1); Docker NAT environments then also
    publish their ports there.
    ``hang_wait``: how long (seconds) the host's trials wait for it when it stops answering
    (its SSH server hung, the machine paused): the trial in flight is run again when the host
    answers a new connection within that time (its attempt given back, nothing left of the
    first one); past it, that trial and the host's further ones fail with the cause. 0 fails
    at once.
    """

    address: Address
    bench_address: Address | None = None
    port: Int = Field(22, ge=1, le=65535)
    user: UserName = "root"
    key_file: Path | None = None
    known_hosts: Path
    host_key_alias: Address | None = None
    connect_timeout: Number = Field(10.0, gt=0, le=3600)
    keepalive: Number = Field(5.0, gt=0, le=3600)
    hang_wait: Number = Field(300.0, ge=0, le=86400)


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


class SizeSpec(_Model):
    """The parameter that sizes a benchmark's trials, and the sizes a pilot measures.

    ``param`` is one of the benchmark's parameters (``size_mib``, ``n``, ``length``,
    ``requests``, ``time``): how much work one trial does. ``candidates`` are the sizes the
    pilot runs (two or more: how the spread falls with the size is fitted from them);
    ``range`` the sane bounds the design may choose in (default: the smallest candidate to four
    times the largest).
    """

    param: str
    candidates: tuple[Annotated[Number, Field(gt=0)], ...] = Field(min_length=2)
    range: tuple[Annotated[Number, Field(gt=0)], Annotated[Number, Field(gt=0)]] | None = None


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

    runner: Annotated[str, AfterValidator(_name_of("runner"))]
    params: dict[ParamName, Scalar | list[Scalar]] = Field(default_factory=dict)
    timeout: Seconds | None = None
    #: Measured trials of this benchmark's cells (default: the campaign's ``trials``): more
    #: where the effect sought is small beside the trial-to-trial spread (netperf's few
    #: microseconds of NAT). Not with a stopping rule, which decides the count itself.
    trials: Rounds | None = None
    #: Limit to these environments (default: every environment).
    environments: tuple[str, ...] | None = None
    client: str | None = None
    server: str | None = None
    ready: str | None = None
    ports: tuple[Annotated[Int, Field(ge=1, le=65535)], ...] = ()
    #: The server binds every address (nuttcp has no listen option), so each environment on
    #: a host gets its own ports: ``ports`` and ``{port:N}`` become N + 100 x (k - 1) for
    #: the host's k-th environment.
    offset_ports: bool = False
    target_param: str = "host"
    monitor: str | None = None
    monitor_parser: str | None = None
    #: The quantities a verdicts stopping rule judges in this benchmark's cells (none: its
    #: cells get the rule's first look's trials and are not judged).
    judge: tuple[Judge, ...] = ()
    #: How the verdicts rule puts this benchmark's comparisons together: ``rounds`` (each
    #: round a block, the paired interval of the log ratios: where the environments' trials of
    #: a round share the machine's state, as a pilot shows) or ``none`` (independent samples);
    #: unset: the rule's ``pairing``.
    pairing: Literal["none", "rounds"] | None = None
    #: The parameter that sizes a trial and the sizes a pilot measures (``overhead pilot``).
    size: SizeSpec | None = None
    #: Why this benchmark's own work runs outside its trial's cgroup (``docker run`` hands
    #: the container to dockerd, containerd and runc): its trials' CPU time outside the
    #: cgroup is recorded but not judged as interference (``outside_judged: false`` in
    #: trial.json, and said in the report); steal still is.
    works_outside: Annotated[str, StringConstraints(min_length=3, max_length=300)] | None = None

    @model_validator(mode="after")
    def _client_server(self) -> Benchmark:
        """Check that a server or ready command has a client host to run the load generator on."""
        if (self.server or self.ready or self.monitor) and not self.client:
            raise ValueError("server, ready and monitor need a client host (the load "
                             "generator's)")
        if bool(self.monitor) != bool(self.monitor_parser):
            raise ValueError("monitor and monitor_parser go together")
        return self

    @model_validator(mode="after")
    def _size_param(self) -> Benchmark:
        """Check that the size names one of the benchmark's parameters."""
        if self.size is not None and self.size.param not in self.params:
            raise ValueError(f"size.param {self.size.param!r} is not a parameter of the benchmark "
                             f"({', '.join(self.params) or 'none'})")
        return self

    @field_validator("params")
    @classmethod
    def _axes(cls, params: dict) -> dict:
        """Check that lists are non-empty and the grid has at most MAX_CELLS points (unexpanded)."""
        points = 1
        for name, value in params.items():
            if isinstance(value, list):
                if not value:
                    raise ValueError(f"parameter {name!r} is an empty list")
                points *= len(value)
        if points > MAX_CELLS:
            raise ValueError(f"the grid has {points:,} points (the product of its axes' "
                             f"lengths); at most {MAX_CELLS:,}")
        return params


def _rule_tag(value: object) -> str:
    """Return the stopping rule a ``stopping:`` mapping names (the default when it names none)."""
    if isinstance(value, dict):
        return str(value.get("rule", stopping_registry.DEFAULT))
    return str(getattr(value, "rule", stopping_registry.DEFAULT))


#: A campaign's stopping rule: the spec of the rule it names (one per file of
#: campaign/stopping/; ``rule: precision`` when none is named).
Stopping = Annotated[
    reduce(operator.or_, [Annotated[spec, Tag(name)] for name, spec in
                          zip(stopping_registry.KINDS, stopping_registry.specs(), strict=True)]),
    Discriminator(_rule_tag)]


class Isolation(_Model):
    """What may run beside a trial, and what is done when something did.

    ``pause_idle``: the environments of the trial's host that are not being measured stand
    still (containers ``docker pause``d, a VM's vCPUs stopped through QEMU's QMP ``stop``,
    the servers of a native environment SIGSTOPped) and resume when their turn comes.

    ``placement: auto``: a load generator that runs on the same host as its server gets the
    first half of the host's CPUs, the server side (native or container server, a VM's QEMU
    threads) the other half (``taskset``), when the host has two or more; ``none`` leaves
    both to the scheduler. Either way the trial records where they ran.

    ``outside`` and ``steal``: a trial during which processes outside its cgroup, or the
    host's hypervisor, took more than that fraction of the host's CPU time (and more than
    ``floor_s`` CPU-seconds) is flagged, kept in the raw tree under ``interfered/``,
    excluded from statistics and run again, up to ``reruns`` times; after that its last
    attempt is kept in place, flagged and excluded.
    """

    pause_idle: bool = True
    placement: Literal["auto", "none"] = "auto"
    outside: Number = Field(0.05, ge=0, le=1)
    steal: Number = Field(0.05, ge=0, le=1)
    floor_s: Number = Field(0.5, ge=0, le=3600)
    reruns: Int = Field(2, ge=0, le=10)
    #: A busy host is said, not fought: when ``busy_share`` of a host's last ``busy_window``
    #: trials were flagged, the run waits up to ``busy_wait`` seconds for the host to be quiet
    #: (two 5-second samples without outside work), and if it stays busy, stops in one line
    #: that says how busy and with what (the finished trials kept).
    busy_window: Int = Field(8, ge=2, le=1000)
    busy_share: Number = Field(0.5, gt=0, le=1)
    busy_wait: Number = Field(120.0, ge=0, le=3600)


class Campaign(_Model):
    """A whole campaign: hosts, environments, benchmarks, repetitions and the seed."""

    name: Annotated[str, AfterValidator(_name_of("campaign"))]
    seed: Int = Field(ge=0, lt=2**63)
    trials: Rounds = 3
    warmup: Int = Field(0, ge=0, le=MAX_ROUNDS)
    timeout: Seconds = 600.0
    stopping: Stopping | None = None
    isolation: Isolation = Field(default_factory=Isolation)
    inventory: Path | None = None
    runners: Path | None = None
    #: Benchmarks from ``profiles/<profile>.yml`` (beside the file, else the checkout's
    #: data/campaigns/profiles); the file's own benchmarks add to and override them.
    profile: Annotated[str, AfterValidator(_name_of("profile"))] | None = None
    #: The host load generators run on, for profile benchmarks that have a server.
    #: ``other``: for each environment, another host of the inventory than the environment's
    #: (the first other one, as in the paper, where the client had a machine of its own); the
    #: environment's own host when the inventory has no other.
    client: str | None = None
    #: Files copied to the endpoints that use them (``{file:NAME}``), mode 0600: secrets.
    files: dict[FileName, Path] = Field(default_factory=dict)
    hosts: dict[HostName, Host] = Field(default_factory=dict)
    environments: dict[EnvName, Environment]
    benchmarks: dict[BenchName, Benchmark]
    #: Set by :func:`load`: the campaign file, its hash and text (not YAML fields).
    path: Path | None = None
    sha256: str | None = None

    @field_validator("stopping", mode="before")
    @classmethod
    def _known_rule(cls, value: object) -> object:
        """Name the rules a ``stopping:`` may give (not pydantic's words about tags)."""
        if isinstance(value, dict) and "rule" in value and \
                value["rule"] not in stopping_registry.KINDS:
            raise ValueError(f"rule {value['rule']!r} is not a stopping rule (rules: "
                             f"{', '.join(stopping_registry.KINDS)})")
        return value

    @model_validator(mode="after")
    def _references(self) -> Campaign:
        """Every environment's host and benchmark's environment exist; the plan is bounded."""
        if not self.benchmarks:
            raise At(("benchmarks",), "no benchmark: a campaign runs at least one")
        from fnmatch import fnmatchcase

        for name, env in self.environments.items():
            for entry in env.skip:
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
        base = getattr(self.stopping, "baseline", None)
        if base is not None:
            if base not in self.environments:
                raise ValueError(f"stopping.baseline {base!r} is not an "
                                 f"environment ({', '.join(self.environments)})")
            if not any(b.judge for b in self.benchmarks.values()):
                raise ValueError(f"the {self.stopping.rule} rule needs at least one benchmark "
                                 "with judge: (the quantities its comparisons decide on)")
            for name in getattr(self.stopping, "environments", {}) or {}:
                if name not in self.environments:
                    raise ValueError(f"stopping.environments: {name!r} is not an environment "
                                     f"({', '.join(self.environments)})")
            from overhead.campaign.stopping import rule_of

            rule_of(self).check()
        for name, bench in self.benchmarks.items():
            if bench.trials is not None and self.stopping is not None:
                raise ValueError(f"benchmark {name!r}: trials sets a fixed count; with a "
                                 "stopping rule the rule decides how many trials a cell gets")
            for env in bench.environments or ():
                if env not in self.environments:
                    raise ValueError(f"benchmark {name!r}: unknown environment {env!r}")
            if bench.client and bench.client != OTHER_HOST and bench.client not in self.hosts:
                raise ValueError(f"benchmark {name!r}: unknown client host {bench.client!r}")
            texts = [bench.server or "", bench.ready or "", bench.monitor or "",
                     *(str(v) for v in bench.params.values())]
            for used in sorted({m for text in texts for m in re.findall(r"\{file:([^}]*)\}", text)}):
                if used not in self.files:
                    raise ValueError(f"benchmark {name!r}: {{file:{used}}} is not among the "
                                     f"campaign's files ({', '.join(self.files) or 'none'})")
        total, biggest = plan_size(self)
        if total > MAX_TRIALS:
            raise At(("benchmarks", biggest),
                     f"the plan would have {total:,} trials (cells x rounds; with a stopping rule "
                     f"its max_rounds); at most {MAX_TRIALS:,}: fewer grid points, environments "
                     f"or trials")
        return self

    def host_index(self, environment: str) -> int:
        """Return k - 1 for the host's k-th environment (in file order): its loopback and ports."""
        host = self.environments[environment].host
        return [n for n, e in self.environments.items() if e.host == host].index(environment)

    def client_host(self, benchmark: str, environment: str) -> str | None:
        """Return the host a benchmark's load generator runs on for an environment (None: no client).

        ``client: other`` is the first inventory host that is not the environment's (in file
        order), or the environment's own when there is none.
        """
        client = self.benchmarks[benchmark].client
        if client != OTHER_HOST:
            return client
        own = self.environments[environment].host
        return next((h for h in self.hosts if h != own), own)

    def remote_clients(self, environment: str) -> bool:
        """Tell whether a load generator reaches an environment's servers from another host."""
        own = self.environments[environment].host
        return any(bench.client and self.client_host(name, environment) != own
                   for name, bench in self.benchmarks.items()
                   if environment in self.environments_of(name))

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


def _rule_rounds(campaign: Campaign) -> int:
    """Return the most measured rounds the campaign's stopping rule can give a cell."""
    from overhead.campaign.stopping import rule_of

    return rule_of(campaign).max_rounds


def plan_size(campaign: Campaign) -> tuple[int, str | None]:
    """Return the most trials a campaign's plan can have, and its largest benchmark's name.

    Counted from the grid's axis lengths, before anything is expanded: for each benchmark, its
    grid points x the environments it runs in x its rounds (warm-ups plus its trials, with a
    stopping rule ``max_rounds``). An environment's ``skip`` can only make the plan smaller.

    Parameters
    ----------
    campaign : Campaign
        The campaign.

    Returns
    -------
    (int, str or None)
        The bound on the plan's trials, and the benchmark contributing most (None: none).
    """
    total, biggest, most = 0, None, -1
    for name, bench in campaign.benchmarks.items():
        points = reduce(operator.mul, (len(v) for v in bench.params.values()
                                       if isinstance(v, list)), 1)
        rounds = campaign.warmup + (_rule_rounds(campaign) if campaign.stopping
                                    else bench.trials or campaign.trials)
        n = points * len(campaign.environments_of(name)) * rounds
        total += n
        if n > most:
            biggest, most = name, n
    return total, biggest


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


def _line(node: yaml.Node, loc: tuple) -> int:
    """Return the 1-based line of the node at ``loc`` (or of the nearest one above it)."""
    return _node_at(node, loc).start_mark.line + 1


class _Refused(yaml.MarkedYAMLError, InputError):
    """A YAML document that parses but that a campaign file may not be (said as is)."""


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing what would let a file mean something else than it says.

    A mapping key given twice (PyYAML keeps the last silently), a key that is not a string, a
    NUL character in a value, an integer too long to convert, nesting deeper than MAX_DEPTH
    (PyYAML's composer recurses: 5,000 ``[`` are a RecursionError).
    """

    def __init__(self, stream):
        super().__init__(stream)
        self._depth = 0

    def increase_flow_level(self):
        """Refuse flow collections (``[[[...``) nested deeper than MAX_DEPTH."""
        if self.flow_level >= MAX_DEPTH:
            raise _Refused(None, None, f"nested deeper than {MAX_DEPTH} levels",
                           self.get_mark())
        super().increase_flow_level()

    def compose_node(self, parent, index):
        """Refuse nodes nested deeper than MAX_DEPTH (block or flow), and any explicit tag."""
        self._depth += 1
        try:
            event = self.peek_event()
            if self._depth > MAX_DEPTH:
                raise _Refused(None, None, f"nested deeper than {MAX_DEPTH} levels",
                               event.start_mark)
            tag = getattr(event, "tag", None)
            if tag is not None:
                raise _Refused(None, None, f"a YAML tag ({tag}): a campaign file is data, its "
                               "values plain text, numbers, true/false and null",
                               event.start_mark)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_mapping(self, node, deep=False):
        """Construct a mapping; a key given twice or a key that is not a string is an error."""
        if isinstance(node, yaml.MappingNode):
            seen: dict = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue  # ``<<: *base``: its keys may be overridden here
                key = self.construct_object(key_node, deep=True)
                if not isinstance(key, str):
                    raise _Refused(None, None, f"key {key!r} is not a name (YAML reads yes, "
                                   "no, on, off, null and numbers as such: quote it)",
                                   key_node.start_mark)
                if key in seen:
                    raise _Refused(None, None, f"key {key!r} given twice (lines "
                                   f"{seen[key] + 1} and {key_node.start_mark.line + 1}); "
                                   "remove one", key_node.start_mark)
                seen[key] = key_node.start_mark.line
        return super().construct_mapping(node, deep=deep)

    def construct_scalar(self, node):
        """Construct a scalar's text; a NUL or other control character is refused.

        Tab and newline are text; the rest of C0, DEL and C1 (written as escapes in a
        double-quoted string, which the reader lets through) are not.
        """
        value = super().construct_scalar(node)
        if isinstance(value, str):
            bad = _CONTROL.search(value)
            if bad:
                what = "a NUL character" if bad.group() == "\0" else \
                    f"a control character ({bad.group()!r})"
                raise _Refused(None, None, f"{what} in a value", node.start_mark)
        return value

    def construct_yaml_int(self, node):
        """Construct a decimal integer (the core schema's; one too long to convert is an error)."""
        text = self.construct_scalar(node)
        try:
            return int(text, 10)
        except ValueError as exc:
            raise _Refused(None, None, f"not a usable integer ({exc})",
                           node.start_mark) from None


#: Control characters refused in a value (all but tab and newline).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
#: What a plain scalar means: YAML 1.2's core schema, not PyYAML's YAML 1.1 (where yes, no, on
#: and off are booleans, 0x10, 0o20, 010, 1_0 and 1:20 integers, 2026-11-29 a date). Anything
#: else is text, which a field that wants a number or true/false then refuses, naming itself.
_Loader.yaml_implicit_resolvers = {}
for _tag, _regexp, _first in (
        ("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
        ("tag:yaml.org,2002:int", r"^[-+]?[0-9]+$", "-+0123456789"),
        ("tag:yaml.org,2002:float",
         r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
         r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$", "-+.0123456789"),
        ("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
        ("tag:yaml.org,2002:merge", r"^(?:<<)$", "<")):
    _Loader.add_implicit_resolver(_tag, re.compile(_regexp), list(_first))
_Loader.add_constructor("tag:yaml.org,2002:int", _Loader.construct_yaml_int)


def read_scalar(text: str, where: str):
    """Read one value as a campaign file would (:class:`_Loader`); errors name ``where``."""
    loader = _Loader(text)
    try:
        return loader.get_single_data()
    except _Refused as exc:
        raise InputError(f"{where}: {exc.problem}") from None
    except yaml.YAMLError as exc:
        problem = getattr(exc, "problem", None) or exc
        raise InputError(f"{where}: not a YAML value ({problem})") from None
    finally:
        loader.dispose()


def _read_yaml(path: Path) -> tuple[dict, yaml.Node]:
    """Read a YAML mapping and its node tree; every error names the file and line."""
    try:
        # O_NONBLOCK: opening a FIFO does not wait for a writer; the cap before reading
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise InputError(f"{path}: not a regular file (a campaign, inventory or profile "
                                 "file is read from a file, not a FIFO or a device)")
            raw = fh.read(MAX_BYTES + 1)
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None
    if len(raw) > MAX_BYTES:
        raise InputError(f"{path}:1: more than {MAX_BYTES:,} bytes: a campaign, inventory or "
                         f"profile file has at most {MAX_BYTES:,}")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise InputError(f"{path}:{line}: not UTF-8 text (byte {raw[exc.start]:#04x})") from None
    loader = None
    try:
        loader = _Loader(text)  # reading the stream checks its characters (NUL, ...)
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except _Refused as exc:
        raise InputError(f"{path}:{exc.problem_mark.line + 1}: {exc.problem}") from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 1
        raise InputError(f"{path}:{line}: not valid YAML ({exc.problem or exc.context})") from None
    except yaml.reader.ReaderError as exc:
        line = text.count("\n", 0, exc.position) + 1
        raise InputError(f"{path}:{line}: not valid YAML (character {exc.character!r}: "
                         f"{exc.reason})") from None
    except yaml.YAMLError as exc:
        raise InputError(f"{path}:1: not valid YAML ({exc})") from None
    finally:
        if loader is not None:
            loader.dispose()
    if not isinstance(data, dict) or node is None:
        raise InputError(f"{path}:1: a campaign file is a YAML mapping (name, hosts, ...)")
    return data, node


def is_file(path: Path) -> bool:
    """Return whether ``path`` is a file; a path that cannot even be looked at is not one.

    :meth:`pathlib.Path.is_file` raises for a name longer than the system allows.
    """
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


def _read_part(path: Path, allowed: set[str], what: str) -> tuple[dict, yaml.Node]:
    """Read a file a campaign names (inventory, profile) that may hold only ``allowed`` keys."""
    data, node = _read_yaml(path)
    unknown = set(data) - allowed
    if unknown:
        raise InputError(f"{path}:{_line(node, (sorted(unknown)[0],))}: {what} (found "
                         f"{', '.join(sorted(unknown))})")
    return data, node


#: Sections that map names to entries, and whether each entry is a mapping itself.
_SECTIONS = {"hosts": True, "environments": True, "benchmarks": True, "files": False}


def _check_shape(path: Path, node: yaml.Node, data: dict, *, null_benchmarks: bool = False) -> None:
    """Check the mappings the loader walks before pydantic sees them (a list is no mapping).

    ``hosts``, ``environments``, ``benchmarks`` and ``files`` map names to entries; a host,
    an environment and a benchmark are mappings, a benchmark's ``params`` too. A profile's
    benchmark may also be null (``null_benchmarks``: left out of the profile it extends).
    """
    def refuse(loc: tuple, what: str, value: Any) -> None:
        raise InputError(f"{path}:{_line(node, loc)}: {'.'.join(map(str, loc))}: {what} "
                         f"(found {type(value).__name__})")

    for section, nested in _SECTIONS.items():
        entries = data.get(section)
        if entries is None:
            continue
        if not isinstance(entries, dict):
            refuse((section,), "a mapping of names to entries", entries)
        for name, entry in entries.items() if nested else ():
            if entry is None and null_benchmarks and section == "benchmarks":
                continue
            if not isinstance(entry, dict):
                refuse((section, name), "a mapping of fields", entry)
            params = entry.get("params") if section == "benchmarks" else None
            if params is not None and not isinstance(params, dict):
                refuse((section, name, "params"), "a mapping of parameter names to values",
                       params)


def _local_path(value: Any, base: Path, where: str) -> Path:
    """Return a path a campaign names, resolved; a relative one must stay in its place.

    Parameters
    ----------
    value : str
        The path as written (a string; ``~`` is the user's home).
    base : Path
        The folder of the file that names it.
    where : str
        ``file:line: field`` for the error.

    Returns
    -------
    Path
        An absolute path as written; a relative one resolved against ``base``.

    Raises
    ------
    InputError
        For a value that is not a non-empty string, and for a relative path that resolves
        (``..`` and symlinks followed) outside ``base``'s parent and outside the checkout.
    """
    from overhead.paths import ROOT

    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{where}: a path (a non-empty string), not {value!r}")
    try:
        p = Path(value).expanduser()
        if p.is_absolute():
            return p
        resolved = (base / p).resolve()
        roots = (base.resolve().parent, ROOT.resolve())
    except (OSError, RuntimeError, ValueError) as exc:
        raise InputError(f"{where}: {value!r} is not a usable path ({exc})") from None
    if not any(resolved.is_relative_to(r) for r in roots):
        raise InputError(f"{where}: {value!r} leads to {resolved}, outside {roots[0]} (the "
                         f"folder of the file naming it, or its parent) and the checkout "
                         f"{roots[1]}; a relative path stays inside them: give an absolute "
                         f"path for a file elsewhere")
    return resolved


def _resolve_paths(path: Path, node: yaml.Node, data: dict, base: Path, *,
                   hosts_only: bool = False) -> None:
    """Resolve the path fields of hosts (and environments, files...) in place, against ``base``.

    ``path`` and ``node`` are the file that names them (for the errors' ``file:line``); every
    path must follow :func:`_local_path`'s rule.
    """
    def resolve(loc: tuple, value: Any) -> Path | None:
        if value is None:
            return None
        return _local_path(value, base, f"{path}:{_line(node, loc)}: {'.'.join(loc)}")

    for name, host in (data.get("hosts") or {}).items():
        for key in ("key_file", "known_hosts"):
            if key in host:
                host[key] = resolve(("hosts", name, key), host[key])
    if hosts_only:
        return
    for name, env in (data.get("environments") or {}).items():
        for key in registry.path_fields(env.get("kind")):
            if key in env:
                env[key] = resolve(("environments", name, key), env[key])
    for key in ("inventory", "runners"):
        if key in data:
            data[key] = resolve((key,), data[key])
    files = data.get("files") or {}
    data["files"] = {k: resolve(("files", k), v) if isinstance(k, str) else v
                     for k, v in files.items()}


#: ``{path:RELATIVE}`` in a parameter or command (:mod:`overhead.environments.base`).
_PATH_REF = re.compile(r"\{path:([^}]*)\}")


def _check_path_refs(path: Path, node: yaml.Node, campaign: Campaign) -> None:
    """Hold every ``{path:...}`` of the benchmarks to the rule of the campaign's paths."""
    for name, bench in campaign.benchmarks.items():
        texts = [bench.server or "", bench.ready or "", bench.monitor or ""]
        for value in bench.params.values():
            texts += [str(v) for v in (value if isinstance(value, list) else [value])]
        for ref in sorted({r for text in texts for r in _PATH_REF.findall(text)}):
            _local_path(ref, path.parent, f"{path}:{_line(node, ('benchmarks', name))}: "
                                          f"benchmarks.{name}: {{path:{ref}}}")


def _field(loc: tuple) -> str:
    """Return a pydantic location as a field name (``hosts.local.port``), odd names quoted."""
    parts = [p if isinstance(p, int) or re.fullmatch(r"[\w.-]+", p) else repr(p)
             for p in loc if p != "[key]"]
    return ".".join(str(p) for p in parts) or "(top level)"


def _raise(path: Path, node: yaml.Node, exc: ValidationError) -> None:
    """Turn a pydantic error into an InputError naming file:line and the field (first error)."""
    lines = []
    for err in exc.errors()[:5]:
        loc = tuple(err["loc"])
        msg = err["msg"]
        cause = (err.get("ctx") or {}).get("error")
        if isinstance(cause, At):
            loc, msg = loc + cause.loc, str(cause)
        # pydantic puts the union's tag after the environment's name: environments.vm.vm.vcpus
        if len(loc) >= 3 and loc[0] == "environments" and loc[2] in _KINDS:
            loc = loc[:2] + loc[3:]
        msg = msg.replace("\n", "\\n")  # a value quoted in it may hold a newline: one line
        lines.append(f"{path}:{_line(node, loc)}: {_field(loc)}: {msg}")
    more = len(exc.errors()) - 5
    raise InputError("\n".join(lines) + (f"\n(and {more} more)" if more > 0 else "")) from None


#: Discriminator tags pydantic puts into error locations (not YAML keys).
_KINDS = tuple(registry.KINDS)


def _check_references(path: Path, node: yaml.Node, data: dict) -> None:
    """Name the line of an environment's unknown host or a benchmark's unknown environment."""
    hosts = data.get("hosts") or {}
    envs = data.get("environments") or {}
    for name, env in envs.items():
        host = env.get("host")
        if isinstance(host, str) and host not in hosts:
            raise InputError(f"{path}:{_line(node, ('environments', name, 'host'))}: "
                             f"environments.{name}.host: unknown host {host!r} "
                             f"(hosts: {', '.join(hosts) or 'none'})")
    for name, bench in (data.get("benchmarks") or {}).items():
        client = bench.get("client")
        if isinstance(client, str) and client != OTHER_HOST and client not in hosts:
            raise InputError(f"{path}:{_line(node, ('benchmarks', name, 'client'))}: "
                             f"benchmarks.{name}.client: unknown host {client!r} "
                             f"(hosts: {', '.join(hosts) or 'none'})")
        only = bench.get("environments")
        for env in only if isinstance(only, list) else ():
            if isinstance(env, str) and env not in envs:
                raise InputError(f"{path}:{_line(node, ('benchmarks', name, 'environments'))}: "
                                 f"benchmarks.{name}.environments: unknown environment {env!r}")


#: Campaign fields a caller may override (the campaign notebook's parameters, ``--set``).
OVERRIDABLE = ("name", "seed", "trials", "warmup", "timeout", "profile", "client", "hosts",
               "isolation", "environments")


def _apply_overrides(path: Path, data: dict, overrides: dict) -> dict:
    """Return ``data`` with ``overrides`` applied; hosts and environments are merged field by field.

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
        if key in ("hosts", "environments"):
            # --set environments.docker-host.cpus=1: one field of one entry, the rest kept
            what = key[:-1]
            entries = {k: dict(v) if isinstance(v, dict) else v
                       for k, v in (data.get(key) or {}).items()}
            for name, fields in (value or {}).items():
                if name not in entries:
                    raise InputError(f"{path}: {what} override {name!r}: no such {what} ({key}: "
                                     f"{', '.join(entries) or 'none'})")
                entries[name] = {**entries[name], **fields}
            data[key] = entries
        elif key == "isolation" and isinstance(value, dict):
            # field by field: --set isolation.reruns=0 keeps the file's thresholds
            old = data.get("isolation")
            data["isolation"] = {**(old if isinstance(old, dict) else {}), **value}
        elif value is not None:
            data[key] = value
            if key == "trials":
                # a count asked for on the command line is a fixed count: it replaces the file's
                # stopping rule (which decides the count itself)
                data.pop("stopping", None)
    return data


def overrides_from_sets(sets: list[str]) -> dict:
    """Turn ``--set`` words (``trials=5``, ``hosts.local.address=10.0.0.2``) into overrides.

    An environment's field is ``environments.NAME.FIELD`` (``environments.docker-host.cpus=1``).
    Values are read as YAML scalars (``5`` is a number, ``paper`` a string).
    """
    out: dict = {}
    for word in sets:
        key, sep, value = word.partition("=")
        if not sep or not key:
            raise InputError(f"--set {word!r}: expected field=value")
        parts = key.split(".")
        depth = {"hosts": 3, "environments": 3, "isolation": 2}.get(parts[0], 1)
        if parts[0] not in OVERRIDABLE or len(parts) != depth:
            raise InputError(f"--set {word!r}: overridable are {', '.join(OVERRIDABLE)} "
                             f"(hosts as hosts.NAME.FIELD, environments as environments.NAME.FIELD, "
                             f"isolation as isolation.FIELD)")
        node = out
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = read_scalar(value, f"--set {key}") if value else value
    return out


def profile_path(name: str, base: Path) -> Path:
    """Return the file of profile ``name``: ``base/profiles/<name>.yml``, else the checkout's.

    ``name`` is a plain name (:data:`NAME`): a profile is a file of one of those folders.
    """
    from overhead.paths import ROOT

    if not isinstance(name, str) or not re.fullmatch(NAME, name):
        raise InputError(f"profile {name!r}: a profile is a plain name (lower case, digits, "
                         f"_ . -, at most 64 characters): profiles/<name>.yml")
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
    ``params`` into the base's (``ci`` = ``quick`` with one value per axis, say); a benchmark
    given as ``null`` is left out (``containers-ci`` = ``ci`` without the disk benchmarks).
    """
    ppath = profile_path(name, base)
    if len(seen) >= 16:
        raise InputError(f"{ppath}:1: profile {name}: more than 16 profiles extend one another "
                         f"({' -> '.join(seen)})")
    if name in seen:
        raise InputError(f"{ppath}:1: profile {name} extends itself (through "
                         f"{' -> '.join(seen)})")
    prof, pnode = _read_part(ppath, {"benchmarks", "extends"},
                             "a profile holds only benchmarks and extends")
    _check_shape(ppath, pnode, prof, null_benchmarks=True)
    digest.update(ppath.read_bytes())
    own = prof.get("benchmarks") or {}
    if not prof.get("extends"):
        return {k: v for k, v in own.items() if v is not None}, ppath, pnode
    try:
        benches, _, _ = _read_profile(prof["extends"], base, digest, (*seen, name))
    except InputError as exc:
        raise InputError(f"{ppath}:{_line(pnode, ('extends',))}: {exc}") from None
    for bname, fields in own.items():
        if fields is None:  # `name: null`: the profile extended measures it, this one does not
            benches.pop(bname, None)
        elif bname in benches and isinstance(fields, dict):
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
    line = _line(node, ("profile",))
    try:
        benches, ppath, pnode = _read_profile(name, path.parent, digest)
    except InputError as exc:
        raise InputError(f"{path}:{line}: {exc}") from None
    client = data.get("client")
    if client is not None and not isinstance(client, str):
        raise InputError(f"{path}:{_line(node, ('client',))}: client: the name of a host, not "
                         f"{client!r}")
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
    # the campaign's own win; `name: null` leaves a profile's benchmark out
    merged = {**benches, **(data.get("benchmarks") or {})}
    data["benchmarks"] = {k: v for k, v in merged.items() if v is not None}


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
        type, a reference to an unknown host or environment, a name or path that is not
        contained, a number out of bounds (see the module's doc).
    """
    import json

    path = Path(path).resolve()
    data, node = _read_yaml(path)
    # a campaign on a profile leaves one of its benchmarks out with `name: null`
    _check_shape(path, node, data, null_benchmarks=bool(data.get("profile")))
    digest = hashlib.sha256(path.read_bytes())
    if overrides:
        data = _apply_overrides(path, data, overrides)
        _check_shape(path, node, data, null_benchmarks=bool(data.get("profile")))
        digest.update(json.dumps(overrides, sort_keys=True, default=str).encode())
    _resolve_paths(path, node, data, path.parent)
    inventory = data.get("inventory")
    if inventory is not None:
        inv_path = Path(inventory)
        if not is_file(inv_path):
            raise InputError(f"{path}:{_line(node, ('inventory',))}: inventory: no such file "
                             f"{inv_path}")
        inv, inv_node = _read_part(inv_path, {"hosts", "environments"},
                                   "an inventory holds only hosts and environments")
        _check_shape(inv_path, inv_node, inv)
        _resolve_paths(inv_path, inv_node, inv, inv_path.parent)
        for key in ("hosts", "environments"):
            both = set(inv.get(key) or {}) & set(data.get(key) or {})
            if both:
                line = _line(node, (key, sorted(both)[0]))
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
            raise InputError(f"{path}:{_line(node, (key,))}: {key}: not a campaign field")
    if data.get("profile"):
        _merge_profile(path, node, data, digest)
    if isinstance(data.get("client"), str) and isinstance(data.get("benchmarks"), dict):
        # the campaign's `client:` is also where its own benchmarks' load generators run
        for bench in data["benchmarks"].values():
            if (isinstance(bench, dict) and "client" not in bench
                    and any(bench.get(k) for k in ("server", "ready", "monitor"))):
                bench["client"] = data["client"]
    _check_references(path, node, data)
    try:
        campaign = Campaign.model_validate(data)
    except ValidationError as exc:
        _raise(path, node, exc)
    _check_path_refs(path, node, campaign)
    return campaign.model_copy(update={"path": path, "sha256": digest.hexdigest()})
