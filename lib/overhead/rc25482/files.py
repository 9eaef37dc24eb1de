"""Where each file of the IBM RC25482 authors' repository belongs.

The authors' repository (``thewmf/kvm-docker-comparison``, commit 6820500) keeps raw logs next
to spreadsheets, screenshots and files derived by their scripts. :data:`RULES` maps each raw
file to a tool, a benchmark, an environment and a variant, and says which parts to keep and
why the rest is left out. The first rule whose pattern matches a file decides; a file that no
rule matches is reported as unmapped, so a different checkout cannot be ingested silently wrong.

Environments are ``native``, ``docker`` and ``kvm``; the variant says how (``net=host``,
``net=nat,storage=aufs``, ``untuned``, ``tuned``...). :func:`label` turns the pair into the
names the paper's figures use.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable
from dataclasses import dataclass, field

CAMPAIGN = "ibm-rc25482"

# Table III of the paper: the MySQL configurations, keyed by the authors' folder names under
# mysql/results/performance-governor (see ../shared/reference/README.md).
MYSQL_FOLDERS: dict[str, tuple[str, str]] = {
    "bml": ("native", "default"),
    "docker": ("docker", "net=host,storage=volume"),
    "docker-nofs": ("docker", "net=nat,storage=volume"),
    "docker-nofs-nonet": ("docker", "net=nat,storage=aufs"),
    "KVM": ("kvm", "qcow2,pinned"),
}

# The earlier MySQL runs, named by what their folder and file names say.
MYSQL_EARLIER: dict[str, tuple[str, str]] = {
    "bml": ("native", "default"),
    "bml-10run": ("native", "default"),
    "KVM": ("kvm", "qcow2,pinned"),
    "docker-single-container": ("docker", "net=nat,storage=aufs"),
    "docker-single-container-10run": ("docker", "net=nat,storage=aufs"),
    "docker-single-container-nethost-10run": ("docker", "net=host,storage=aufs"),
    "docker-single-container-nethost-hostfs-10run": ("docker", "net=host,storage=volume"),
}

_LABELS: dict[tuple[str, str], str] = {
    ("native", "default"): "Native",
    ("docker", "default"): "Docker",
    ("docker", "net=host"): "Docker net=host",
    ("docker", "net=nat"): "Docker NAT",
    ("docker", "net=host,storage=volume"): "Docker net=host volume",
    ("docker", "net=nat,storage=volume"): "Docker NAT volume",
    ("docker", "net=nat,storage=aufs"): "Docker NAT AUFS",
    ("docker", "net=host,storage=aufs"): "Docker net=host AUFS",
    ("kvm", "default"): "KVM",
    ("kvm", "untuned"): "KVM-untuned",
    ("kvm", "tuned"): "KVM-tuned",
    ("kvm", "qcow2,pinned"): "KVM",
}


#: The labels in the order tables and legends list them: native first, containers, then VMs.
LABEL_ORDER: tuple[str, ...] = (
    "Native", "Docker", "Docker net=host", "Docker net=host volume", "Docker net=host AUFS",
    "Docker NAT", "Docker NAT volume", "Docker NAT AUFS", "KVM", "KVM-untuned", "KVM-tuned",
)


def label(environment: str, variant: str | None) -> str:
    """The paper's name for an (environment, variant) pair, e.g. ("docker", "net=nat") -> "Docker NAT"."""
    key = (environment, variant or "default")
    if key in _LABELS:
        return _LABELS[key]
    return f"{environment.capitalize() if environment != 'kvm' else 'KVM'} {variant}".strip()


@dataclass(frozen=True)
class Rule:
    """How to ingest files matching ``pattern`` (fnmatch on the path relative to the root).

    Parameters: tool, the parser to use (None: skip the file, ``why`` says why); benchmark;
    environment and variant, fixed or derived per file by ``context``; keep, a row filter
    applied to the parsed frame (returns a boolean mask), with ``keep_why`` describing what it
    drops; params, extra p_* values for every row; why, the reason for the rule.
    """

    pattern: str
    tool: str | None
    why: str
    benchmark: str | None = None
    environment: str | None = None
    variant: str | None = None
    context: Callable[[str], dict] | None = None
    keep: Callable | None = None
    keep_why: str = ""
    params: dict = field(default_factory=dict)


def _mysql_context(rel: str) -> dict:
    """Environment, variant and series for a file under mysql/results/."""
    parts = rel.split("/")
    if parts[2] == "performance-governor":
        env, variant = MYSQL_FOLDERS[parts[3]]
        return {"environment": env, "variant": variant, "p_series": "performance-governor",
                "governor": "performance", **_repetition(parts[-1])}
    folder = parts[2]
    if folder == "rebooted-arldcn24":
        name = parts[-1]
        env, variant = (("native", "default") if "bml" in name
                        else ("docker", "net=host,storage=volume"))
        return {"environment": env, "variant": variant, "p_series": folder, **_repetition(name)}
    env, variant = MYSQL_EARLIER[folder]
    return {"environment": env, "variant": variant, "p_series": folder, **_repetition(parts[-1])}


def _repetition(name: str) -> dict:
    """The repetition number in a sysbench file name ("records-<stamp>-3", "...-hostfs3") as trial.

    The authors number repetitions from 0; trials are numbered from 1. dstat files and single
    runs ("results-2000000") carry no repetition number.
    """
    m = re.search(r"(?:records-\d+-|results-2000000-\D*?)(\d+)$", name)
    return {"trial": int(m.group(1)) + 1} if m else {}


def _redis_context(rel: str) -> dict:
    """Environment and variant from run_<env>_<date>.txt."""
    env = rel.rsplit("/", 1)[-1].split("_")[1]
    return {
        "native": {"environment": "native", "variant": "default"},
        "dockerhost": {"environment": "docker", "variant": "net=host"},
        "dockerbridge": {"environment": "docker", "variant": "net=nat"},
        "vm": {"environment": "kvm", "variant": "default"},
    }[env]


def _by_prefix(rel: str) -> dict:
    """Environment from the file name prefix linux/native, docker or vm."""
    name = rel.rsplit("/", 1)[-1]
    if name.startswith(("linux", "native")):
        return {"environment": "native", "variant": "default"}
    if name.startswith("docker"):
        return {"environment": "docker", "variant": "default"}
    if name.startswith("vm"):
        return {"environment": "kvm", "variant": "untuned"}
    raise ValueError(f"{rel}: cannot tell the environment from the file name")


def _tuned_blocks(df):
    """LINPACK blocks of vm.log run in the tuned VM (it exposes 2 sockets, not 32 CPUs)."""
    return df["p_cpus"].eq(2).fillna(False)


def _second_half(df):
    """RandomAccess runs 11-20 of {linux,docker,vm}.log: the real single-socket runs.

    The first ten runs are byte-for-byte the *.single-socket.localalloc.log file (which holds,
    despite its name, the two-socket runs). Only linux.log states numactl options, so the run
    position is what tells the halves apart in all three files.
    """
    return df["trial"].gt(10).fillna(False)


RULES: tuple[Rule, ...] = (
    # --- LINPACK (Table I) ---
    Rule("linpack/results/*.two-socket.interleavedalloc.log", "linpack", "Table I: 10 trials, N=45000, two sockets",
         benchmark="linpack", context=_by_prefix, params={"p_sockets": 2}),
    Rule("linpack/results/vm.log", "linpack",
         "Table I KVM-tuned: the blocks run in the tuned VM (2 sockets exposed), last one complete",
         benchmark="linpack", environment="kvm", variant="tuned", keep=_tuned_blocks,
         keep_why="untuned blocks: a 1-trial smoke run and the 10-trial block already ingested from vm.two-socket.interleavedalloc.log",
         params={"p_sockets": 2}),
    Rule("linpack/results/linux.log", None, "holds the two-socket block already ingested from linux.two-socket.interleavedalloc.log, a 1-trial smoke run and an aborted single-socket start"),
    Rule("linpack/results/docker.log", None, "holds the two-socket block already ingested from docker.two-socket.interleavedalloc.log and two 3-trial exploratory runs (June/July 2014)"),
    Rule("linpack/results/native.log", None, "a 3-trial exploratory run (June 2014), not in the paper"),
    Rule("linpack/results/gce/*", None, "Google Compute Engine exploration, not in the paper"),
    Rule("linpack/results/*.topo*", None, "hwloc topology pictures"),
    # --- STREAM (Table I) ---
    Rule("Stream/results/*.two-socket.interleavedalloc.log", "stream", "Table I: 10 runs, two sockets, 32 threads",
         benchmark="stream", context=_by_prefix, params={"p_sockets": 2}),
    Rule("Stream/results/*.single-socket.localalloc.log", "stream", "10 runs, one socket, 16 threads (not in the paper)",
         benchmark="stream", context=_by_prefix, params={"p_sockets": 1}),
    Rule("Stream/results/*.log", None, "the concatenation of the single- and two-socket files, already ingested"),
    # --- RandomAccess (Table I) ---
    Rule("RandomAccess/results/*.single-socket.localalloc.log", "gups",
         "Table I: mislabelled -- their headers say --physcpubind=0-31 --interleave=0,1 (two sockets)",
         benchmark="randomaccess", context=_by_prefix, params={"p_sockets": 2}),
    Rule("RandomAccess/results/*.log", "gups", "the real single-socket runs are the second half",
         benchmark="randomaccess", context=_by_prefix, keep=_second_half, params={"p_sockets": 1},
         keep_why="runs 1-10: byte-identical to *.single-socket.localalloc.log, already ingested"),
    # --- fio (Figs 5-7) ---
    Rule("fio/results/*.log", "fio", "Figs 5-7: one fio 2.0.8 run per environment", benchmark="fio",
         context=lambda rel: {**_by_prefix(rel), "variant": "default"}),
    # --- Redis (Figs 8-9) ---
    Rule("redis/results/run_*.txt", "redis-benchmark", "Figs 8-9: redis-benchmark per connection count",
         benchmark="redis", context=_redis_context),
    # --- MySQL (Figs 10-13, Table III) ---
    Rule("mysql/results/*/records-*", "sysbench", "sysbench 0.4.12 OLTP, 15 thread counts per file",
         benchmark="mysql", context=_mysql_context),
    Rule("mysql/results/*/*/records-*", "sysbench", "Figs 10-13: sysbench 0.4.12 OLTP, 15 thread counts per file",
         benchmark="mysql", context=_mysql_context),
    Rule("mysql/results/bml/dstat-run-2000000-cleaned.csv", None,
         "a header-less copy of dstat-run-2000000.csv edited by the authors"),
    Rule("mysql/results/docker-single-container-nethost-hostfs-10run/dstat-run-2000000-single-hostnet-hostfs.csv",
         None, "a dstat file cut by hand: starts at a session header, without dstat's first lines"),
    Rule("mysql/results/rebooted-arldcn24/dstat-run-2000000-test-bml.csv", None,
         "a dstat session cut and edited by hand"),
    Rule("mysql/results/*/dstat-*.csv", "dstat", "CPU utilisation during the sysbench runs",
         benchmark="mysql", context=_mysql_context),
    Rule("mysql/results/*/*/dstat-*.csv", "dstat", "Fig 11: CPU utilisation during the sysbench runs",
         benchmark="mysql", context=_mysql_context),
    Rule("mysql/results/*/results-2000000*.csv", None, "the authors' per-report CSV digest of the sysbench text (derived)"),
    Rule("mysql/results/*/results-2000000*", "sysbench", "earlier sysbench 0.4.12 runs", benchmark="mysql",
         context=_mysql_context),
    Rule("mysql/results/bml/sysbench-run.txt", "sysbench", "earliest native sysbench run", benchmark="mysql",
         context=_mysql_context),
    Rule("mysql/results/*/decode*.csv", None, "derived by the authors' scripts"),
    Rule("mysql/results/*/CPU.txt", None, "an R session transcript (derived)"),
    Rule("mysql/results/bml/dstat-*.txt", None, "dstat screen output, not CSV; no run-level timing"),
    Rule("mysql/results/performance-governor/results-*.csv", None, "the authors' per-thread summaries (derived)"),
    Rule("mysql/results/performance-governor/*.png", None, "the authors' plots"),
    Rule("mysql/results/performance-governor/*.ods", None, "the authors' spreadsheet"),
    Rule("mysql/KVM/vmtest/*.log", None, "guest console logs of VM boot tests, no measurements"),
    # --- spreadsheets: read by overhead.reference, not here ---
    Rule("*.xlsx", None, "spreadsheet: loaded as reference values by overhead.reference"),
)


def rule_for(rel: str) -> Rule | None:
    """The first rule whose pattern matches ``rel`` (a '/'-separated relative path), or None."""
    for rule in RULES:
        if fnmatch.fnmatchcase(rel, rule.pattern):
            return rule
    return None
