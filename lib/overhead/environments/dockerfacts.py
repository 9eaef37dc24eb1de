"""What a Docker host does with a container's traffic: userland proxy, iptables backend, NAT path.

A Docker NAT number means little without the path its packets took. A client on the same host
reaches a port published on a loopback address either through ``docker-proxy`` (a process
copying bytes in user space: Docker's default, ``userland-proxy: true``) or through iptables:
a DNAT rule in the nat table's DOCKER chain, jumped to from OUTPUT, plus a MASQUERADE in
POSTROUTING for traffic the host itself sends into the bridge. A client on another machine (the
paper's) comes in through PREROUTING's jump and is not masqueraded. Which one ran is a fact of
the daemon and the host's rules, read when the environment starts.

:func:`facts_command` prints the evidence as it is (``name=value`` lines, then ``@@ <section>``
blocks: ``docker port``, ``iptables -V``, ``iptables -t nat -S``, each dockerd's command line
and daemon.json, each docker-proxy's command line); :func:`parse_facts` turns it into the facts
of ``facts/<environment>.json``. The parsing is pure, so it is tested on captured outputs
(``tests/fixtures/provenance``).
"""

from __future__ import annotations

import ipaddress
import json
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from overhead.environments import posix

__all__ = ["NAT_FACTS", "Published", "facts_command", "iptables_backend", "parse_facts",
           "parse_sections", "published_ports", "userland_proxy"]

#: The Docker daemon's endpoint when neither a context nor DOCKER_HOST says otherwise.
DEFAULT_HOST = "unix:///var/run/docker.sock"
#: The facts :func:`parse_facts` adds (besides the plain ``name=value`` lines).
NAT_FACTS = ("docker_host", "docker_iptables_backend", "docker_userland_proxy",
             "docker_userland_proxy_how", "docker_published", "docker_nat_dnat",
             "docker_nat_jumps", "docker_nat_masquerade", "docker_proxy_processes",
             "docker_nat_local", "docker_nat_remote")
_SECTION = "@@ "
_JOIN = " | "


def facts_command(name: str) -> str:
    """Return a POSIX sh command printing the Docker facts of container ``name`` and its host.

    ``name=value`` lines: the daemon's version, storage driver, the container's network mode,
    runtime and addresses, the endpoint the CLI talks to; then sections, each a line
    ``@@ <what>`` followed by the output as it was printed: ``docker port``, ``iptables -V``,
    ``iptables -t nat -S``, for every dockerd process ``dockerd <pid>`` (its command line, one
    argument a line) and ``daemon.json <pid> <path>`` (the config file it reads, when there
    is one), and ``docker-proxy <pid>`` for every docker-proxy process. A command that fails
    leaves its error output in its section.
    """
    q = shlex.quote(name)
    return "\n".join([
        "printf 'docker_version=%s\\n' \"$(docker version --format '{{.Server.Version}}')\"",
        "printf 'docker_storage_driver=%s\\n' \"$(docker info --format '{{.Driver}}')\"",
        f"printf 'docker_network_mode=%s\\n' \"$(docker inspect -f '{{{{.HostConfig.NetworkMode}}}}' {q})\"",
        f"printf 'docker_runtime=%s\\n' \"$(docker inspect -f '{{{{.HostConfig.Runtime}}}}' {q})\"",
        f"printf 'docker_container_ip=%s\\n' \"$(docker inspect -f "
        f"'{{{{range .NetworkSettings.Networks}}}}{{{{.IPAddress}}}} {{{{end}}}}' {q})\"",
        "printf 'docker_host=%s\\n' \"$(docker context inspect --format "
        f"'{{{{.Endpoints.docker.Host}}}}' 2>/dev/null || echo \"${{DOCKER_HOST:-{DEFAULT_HOST}}}\")\"",
        f"echo '{_SECTION}docker port'; docker port {q} 2>&1",
        f"echo '{_SECTION}iptables -V'; iptables -V 2>&1",
        f"echo '{_SECTION}iptables -t nat -S'; iptables -t nat -S 2>&1",
        # every dockerd and docker-proxy, found by name in /proc (pgrep may not be installed)
        "for d in /proc/[0-9]*; do c=$(cat $d/comm 2>/dev/null) || continue; p=${d#/proc/}; "
        "case $c in "
        f"dockerd) echo '{_SECTION}'\"dockerd $p\"; tr '\\0' '\\n' < $d/cmdline; echo; "
        "f=$(tr '\\0' '\\n' < $d/cmdline | sed -n -e 's/^--config-file=//p' -e '/^--config-file$/{n;p;}' | head -n 1); "
        "f=${f:-/etc/docker/daemon.json}; "
        f"if [ -r \"$f\" ]; then echo '{_SECTION}'\"daemon.json $p $f\"; cat \"$f\"; echo; fi ;; "
        f"docker-proxy) echo '{_SECTION}'\"docker-proxy $p\"; tr '\\0' ' ' < $d/cmdline; echo ;; "
        "esac; done; true",  # the evidence is judged by parse_facts, not by an exit status
    ])


def parse_sections(text: str) -> tuple[dict[str, str], dict[str, str]]:
    """Split :func:`facts_command`'s output: (``name=value`` facts, section name -> its text)."""
    head, sections, current = [], {}, None
    for line in text.splitlines():
        if line.startswith(_SECTION):
            current = line[len(_SECTION):].strip()
            sections[current] = ""
        elif current is None:
            head.append(line)
        else:
            sections[current] += line + "\n"
    return posix.parse_facts("\n".join(head)), sections


def iptables_backend(version: str) -> str:
    """Return the iptables backend ``iptables -V`` names: ``nf_tables``, ``legacy`` or ``unavailable``.

    ``iptables v1.8.9 (nf_tables)`` -> nf_tables; ``iptables v1.8.7 (legacy)`` -> legacy; an
    iptables older than 1.8 (``iptables v1.6.1``) has only the legacy backend; anything else
    (not installed, no version line) cannot be told.
    """
    m = re.search(r"iptables v(\d+)\.(\d+)[.\d]*(?:\s+\((\w+)\))?", version)
    if not m:
        return "unavailable"
    if m.group(3):
        return m.group(3)
    return "legacy" if (int(m.group(1)), int(m.group(2))) < (1, 8) else "unavailable"


def _dockerd_hosts(args: Sequence[str]) -> list[str]:
    """Return the ``-H``/``--host`` endpoints a dockerd command line names (in order)."""
    hosts, i = [], 0
    while i < len(args):
        a = args[i]
        if a in ("-H", "--host") and i + 1 < len(args):
            hosts.append(args[i + 1])
            i += 1
        elif a.startswith(("--host=", "-H=")):
            hosts.append(a.split("=", 1)[1])
        i += 1
    return hosts


def _same_endpoint(a: str, b: str) -> bool:
    """Whether two Docker endpoints are the same socket (/var/run is /run; fd:// is the default)."""
    def norm(e: str) -> str:
        e = DEFAULT_HOST if e.startswith("fd://") else e
        return e.replace("unix:///var/run/", "unix:///run/").rstrip("/")
    return norm(a) == norm(b)


def _flag(args: Sequence[str], name: str) -> str | None:
    """Return a boolean flag's value on a dockerd command line (``--name``, ``--name=false``)."""
    found = None
    for a in args:
        if a == f"--{name}":
            found = "true"
        elif a.startswith(f"--{name}="):
            found = a.split("=", 1)[1].strip().lower()
    return found


@dataclass(frozen=True)
class _Dockerd:
    """A dockerd process: its pid, command line and config file (path, text)."""

    pid: str
    args: tuple[str, ...]
    config_path: str | None
    config: str | None


def _dockerds(sections: Mapping[str, str]) -> list[_Dockerd]:
    """Return the dockerd processes of the sections, each with the daemon.json it reads."""
    out = []
    for key, text in sections.items():
        parts = key.split()
        if parts[0] != "dockerd" or len(parts) != 2:
            continue
        pid = parts[1]
        conf = [(k.split(maxsplit=2)[2], t) for k, t in sections.items()
                if k.startswith(f"daemon.json {pid} ")]
        out.append(_Dockerd(pid, tuple(a for a in text.splitlines() if a),
                            conf[0][0] if conf else None, conf[0][1] if conf else None))
    return out


def _serving(dockerds: list[_Dockerd], endpoint: str) -> tuple[_Dockerd | None, str]:
    """Return the dockerd serving ``endpoint`` (or None) and, when none, why it is not known."""
    if not dockerds:
        return None, "no dockerd process seen on the host (rootless, remote or another pid namespace?)"
    if not endpoint.startswith(("unix://", "fd://")):
        return None, f"the docker CLI talks to {endpoint}, not a socket of this host"
    matching = []
    for d in dockerds:
        hosts = _dockerd_hosts(d.args)
        if not hosts and d.config:
            try:
                hosts = list(json.loads(d.config).get("hosts") or [])
            except (json.JSONDecodeError, AttributeError):
                hosts = []
        if any(_same_endpoint(h, endpoint) for h in hosts or [DEFAULT_HOST]):
            matching.append(d)
    if len(matching) == 1:
        return matching[0], ""
    pids = ", ".join(d.pid for d in (matching or dockerds))
    return None, (f"{len(matching)} of the dockerd processes (pids {pids}) serve {endpoint}"
                  if matching else f"none of the dockerd processes (pids {pids}) serves {endpoint}")


def userland_proxy(sections: Mapping[str, str], endpoint: str) -> tuple[str, str]:
    """Return the userland-proxy setting of the dockerd serving ``endpoint``: (on|off|unavailable, how).

    Its command line's ``--userland-proxy[=BOOL]`` wins, then the ``userland-proxy`` key of the
    daemon.json it reads; with neither, Docker's default is on.
    """
    d, why = _serving(_dockerds(sections), endpoint)
    if d is None:
        return "unavailable", why
    flag = _flag(d.args, "userland-proxy")
    if flag is not None:
        on = flag in ("true", "1", "t")
        return ("on" if on else "off"), f"dockerd pid {d.pid} flag --userland-proxy={flag}"
    if d.config is not None:
        try:
            conf = json.loads(d.config)
        except json.JSONDecodeError:
            return "unavailable", f"dockerd pid {d.pid}: {d.config_path} is not JSON"
        if isinstance(conf, dict) and "userland-proxy" in conf:
            on = conf["userland-proxy"] is True
            return ("on" if on else "off"), (f"dockerd pid {d.pid}, {d.config_path} "
                                             f"userland-proxy: {json.dumps(conf['userland-proxy'])}")
    where = f"none in {d.config_path}" if d.config_path else "no daemon.json"
    return "on", f"dockerd pid {d.pid}: Docker's default (no flag, {where})"


@dataclass(frozen=True)
class Published:
    """A published port: ``docker port``'s ``12865/tcp -> 127.0.0.2:12865``."""

    port: int
    proto: str
    host_ip: str
    host_port: int

    def __str__(self) -> str:
        """Return ``127.0.0.2:12865/tcp`` (``[::]:12866/tcp`` for IPv6)."""
        ip = f"[{self.host_ip}]" if ":" in self.host_ip else self.host_ip
        return f"{ip}:{self.host_port}/{self.proto}"


def published_ports(text: str) -> list[Published]:
    """Parse ``docker port NAME``: one :class:`Published` per line (IPv6 bindings too)."""
    out = []
    for line in text.splitlines():
        m = re.fullmatch(r"\s*(\d+)/(\w+)\s+->\s+\[?([^\]]*?)\]?:(\d+)\s*", line)
        if m:
            out.append(Published(int(m.group(1)), m.group(2), m.group(3), int(m.group(4))))
    return out


def _rules(nat: str) -> list[list[str]]:
    """Return the ``-A`` rules of ``iptables -S`` output, each split into words."""
    out = []
    for line in nat.splitlines():
        if line.startswith("-A "):
            try:
                out.append(shlex.split(line))
            except ValueError:
                out.append(line.split())
    return out


def _opt(rule: Sequence[str], name: str) -> tuple[str | None, bool]:
    """Return an option's value in a rule and whether it is negated (``! -d 127.0.0.0/8``)."""
    for i, w in enumerate(rule):
        if w == name and i + 1 < len(rule):
            return rule[i + 1], i > 0 and rule[i - 1] == "!"
    return None, False


def _matches_address(rule: Sequence[str], address: str) -> bool:
    """Whether a rule's ``-d`` (possibly negated) admits destination ``address``."""
    net, negated = _opt(rule, "-d")
    if net is None:
        return True
    try:
        inside = ipaddress.ip_address(address) in ipaddress.ip_network(net, strict=False)
    except ValueError:
        return False
    return inside != negated


def _dnat_rules(rules: list[list[str]], p: Published) -> list[list[str]]:
    """Return the DNAT rules that catch published port ``p`` (its address, port and protocol)."""
    if ":" in p.host_ip:
        return []  # an IPv6 binding: iptables (IPv4) rules do not apply to it
    out = []
    for r in rules:
        target, _ = _opt(r, "-j")
        port, _ = _opt(r, "--dport")
        proto, _ = _opt(r, "-p")
        if target == "DNAT" and port == str(p.host_port) and proto == p.proto:
            bound = p.host_ip in ("0.0.0.0", "::", "")  # noqa: S104 - a binding read, not made
            if bound or _matches_address(r, p.host_ip):
                out.append(r)
    return out


def _proxies(sections: Mapping[str, str]) -> list[tuple[str, dict[str, str]]]:
    """Return the docker-proxy processes: (pid, their ``-flag value`` pairs)."""
    out = []
    for key, text in sections.items():
        parts = key.split()
        if parts[0] == "docker-proxy" and len(parts) == 2:
            words = text.split()
            flags = {w.lstrip("-"): words[i + 1] for i, w in enumerate(words[:-1])
                     if w.startswith("-") and not words[i + 1].startswith("-")}
            out.append((parts[1], flags))
    return out


def _serves(flags: Mapping[str, str], p: Published) -> bool:
    """Whether a docker-proxy with these flags listens on published port ``p``."""
    return (flags.get("proto") == p.proto and flags.get("host-port") == str(p.host_port)
            and flags.get("host-ip", p.host_ip) in (p.host_ip, "0.0.0.0", "::"))  # noqa: S104


def _words(rule: Sequence[str]) -> str:
    """Return a rule as ``iptables -S`` prints it (its words, ``!`` unquoted)."""
    return " ".join(rule)


def _nat_facts(sections: Mapping[str, str], published: list[Published]) -> dict[str, str]:
    """Return the NAT path facts of ``published`` ports from the iptables and proxy sections."""
    facts: dict[str, str] = {}
    proxies = [(pid, f) for pid, f in _proxies(sections) if any(_serves(f, p) for p in published)]
    facts["docker_proxy_processes"] = _JOIN.join(
        f"pid {pid}: " + " ".join(f"-{k} {v}" for k, v in f.items()) for pid, f in proxies) or "none"
    nat = sections.get("iptables -t nat -S")
    if nat is None or not any(line.startswith("-P ") for line in nat.splitlines()):
        said = (nat or "not run").strip().splitlines()
        why = f"iptables -t nat -S: {(said[0] if said else 'no output')[:160]}".replace(";", ",")
        for key in ("docker_nat_dnat", "docker_nat_jumps", "docker_nat_masquerade"):
            facts[key] = f"unavailable ({why})"
        facts["docker_nat_local"] = facts["docker_nat_remote"] = f"unavailable ({why})"
        return facts
    rules = _rules(nat)
    dnat = {p: _dnat_rules(rules, p) for p in published}
    chains = {_opt(r, "-A")[0] for rs in dnat.values() for r in rs}
    jumps = [r for r in rules if _opt(r, "-A")[0] in ("OUTPUT", "PREROUTING")
             and _opt(r, "-j")[0] in chains]
    targets = {str(_opt(r, "--to-destination")[0]).rsplit(":", 1)[0]
               for rs in dnat.values() for r in rs}
    # MASQUERADE of traffic going into a bridge (``-o docker0``: what the host itself sends
    # there) or to a container the DNAT rules lead to (a container reaching itself through
    # its published port); ``! -o docker0`` is the containers' own way out, not in
    masq = [r for r in rules if _opt(r, "-A")[0] == "POSTROUTING" and _opt(r, "-j")[0] == "MASQUERADE"
            and not _opt(r, "-o")[1]
            and (_opt(r, "-o")[0] is not None
                 or str(_opt(r, "-d")[0]).removesuffix("/32") in targets)]
    facts["docker_nat_dnat"] = _JOIN.join(_words(r) for rs in dnat.values() for r in rs) or "none"
    facts["docker_nat_jumps"] = _JOIN.join(_words(r) for r in jumps) or "none"
    facts["docker_nat_masquerade"] = _JOIN.join(_words(r) for r in masq) or "none"
    if "iptables-legacy tables present" in nat:
        facts["docker_nat_warning"] = "iptables-legacy tables present beside the nf_tables ones"
    facts["docker_nat_local"] = _path(published, dnat, jumps, masq, proxies, local=True)
    facts["docker_nat_remote"] = _path(published, dnat, jumps, masq, proxies, local=False)
    return facts


def _path(published, dnat, jumps, masq, proxies, *, local: bool) -> str:
    """Say the path of a client's packets to the published ports (on this host, or another).

    One description when every port takes the same path (the usual case), else
    ``port, port: description`` groups joined by `` | ``.
    """
    chain = "OUTPUT" if local else "PREROUTING"
    groups: dict[str, list[str]] = {}
    for p in published:
        wildcard = p.host_ip in ("", "0.0.0.0", "::")  # noqa: S104 - a binding read, not made
        # the address a client uses: the published one, or for a wildcard binding 127.0.0.1 on
        # this host (the rules may treat loopback apart) and the host's own address elsewhere
        address = p.host_ip if not wildcard else ("127.0.0.1" if local else "0.0.0.0")  # noqa: S104
        reach = [j for j in jumps if _opt(j, "-A")[0] == chain and _matches_address(j, address)
                 and any(_opt(j, "-j")[0] == _opt(r, "-A")[0] for r in dnat[p])]
        served = [pid for pid, f in proxies if _serves(f, p)]
        if ":" in p.host_ip and not served:
            text = "IPv6: not read (ip6tables is not asked), no docker-proxy"
        elif not local and not wildcard and ipaddress.ip_address(p.host_ip).is_loopback:
            text = "not reachable (published on a loopback address)"
        elif reach:
            target = str(_opt(dnat[p][0], "--to-destination")[0]).rsplit(":", 1)[0]
            text = f"DNAT to {target} in the nat {chain} chain (via {_opt(reach[0], '-j')[0]})"
            if local:
                local_masq = [m for m in masq if "--src-type" in m and "LOCAL" in m]
                text += (" plus MASQUERADE in POSTROUTING (" + _words(local_masq[0]) + ")"
                         if local_masq else ", no MASQUERADE")
            else:
                text += ", no MASQUERADE (the client's address kept)"
            if served:
                text += ", and a docker-proxy listening too"
        elif served:
            text = f"docker-proxy in user space, no DNAT rule reached from the nat {chain} chain"
        else:
            text = f"neither a DNAT rule reached from the nat {chain} chain nor a docker-proxy"
        if wildcard and local:
            text += " (a client on 127.0.0.1)"
        groups.setdefault(text, []).append(str(p))
    if len(groups) == 1:
        return next(iter(groups))
    return _JOIN.join(f"{', '.join(ports)}: {text}" for text, ports in groups.items()) or "none"


def parse_facts(text: str) -> dict[str, str]:
    """Turn :func:`facts_command`'s output into the Docker facts of an environment.

    The ``name=value`` lines as they are, and: ``docker_iptables_backend`` (nf_tables, legacy),
    ``docker_userland_proxy`` (on, off) with ``docker_userland_proxy_how`` (flag, daemon.json
    or Docker's default, of which dockerd), and for a container with published ports
    ``docker_published``, the DNAT rules that catch them (``docker_nat_dnat``), the rules
    jumping to those from OUTPUT and PREROUTING (``docker_nat_jumps``), the POSTROUTING
    MASQUERADE rules into the bridge (``docker_nat_masquerade``), the docker-proxy processes
    serving them (``docker_proxy_processes``) and, in words, the path of a client on this
    host (``docker_nat_local``) and on another (``docker_nat_remote``). What cannot be told is
    ``unavailable`` with the reason; a container on the host network has no NAT path.
    """
    facts, sections = parse_sections(text)
    facts["docker_host"] = facts.get("docker_host", DEFAULT_HOST)
    facts["docker_iptables_backend"] = iptables_backend(sections.get("iptables -V", ""))
    facts["docker_userland_proxy"], facts["docker_userland_proxy_how"] = userland_proxy(
        sections, facts["docker_host"])
    published = published_ports(sections.get("docker port", ""))
    if facts.get("docker_network_mode") == "host" or not published:
        none = ("none: host network" if facts.get("docker_network_mode") == "host"
                else "none: no published ports")
        facts.update({"docker_published": "none", "docker_nat_local": none,
                      "docker_nat_remote": none})
        return facts
    facts["docker_published"] = _JOIN.join(f"{p} -> container port {p.port}" for p in published)
    facts.update(_nat_facts(sections, published))
    # the provenance notes are ``name=value; ...``: a rule or message keeps no ``;`` of its own
    return {k: v.replace(";", ",") if k in NAT_FACTS else v for k, v in facts.items()}
