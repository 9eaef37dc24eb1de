"""Where each file of the IBM RC25482 authors' repository belongs: the study's ingest rules.

The authors' repository (``thewmf/kvm-docker-comparison``, commit 6820500) keeps raw logs next
to spreadsheets, screenshots and files derived by their scripts. :data:`RULES` maps each raw
file to a tool, a benchmark, an environment and a variant, and says which parts to keep and
why the rest is left out. The first rule whose pattern matches a file decides; a file that no
rule matches is reported as unmapped, so a different checkout cannot be ingested silently wrong.
:data:`RULESET` hands them to the generic :func:`overhead.ingest.ingest`, with the authors'
spreadsheets (:mod:`overhead.rc25482.spreadsheets`) as the reference table.

Environments are ``native``, ``docker`` and ``kvm``; the variant says how (``net=host``,
``net=nat,storage=aufs``, ``untuned``, ``tuned``...). :data:`ALIASES` names the variants the
generic labels cannot (the MySQL KVM runs are "KVM" in the paper, not "KVM qcow2,pinned").
"""

from __future__ import annotations

import re
from pathlib import Path

from overhead.ingest import Rule, RuleSet

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

#: The NUMA nodes of the authors' two-socket host (``linpack/results/native.topo``): one node per
#: socket, hyperthreads numbered 16 apart. With it, a ``--physcpubind`` list tells the sockets a
#: run used (:func:`overhead.parsers._datestamp.sockets`); tests check the rules' p_sockets with it.
HOST_NODES: tuple[frozenset[int], ...] = (
    frozenset([*range(0, 8), *range(16, 24)]),
    frozenset([*range(8, 16), *range(24, 32)]),
)

#: The paper's names for variants the generic labels do not know.
ALIASES: dict[tuple[str, str], str] = {("kvm", "qcow2,pinned"): "KVM"}


def _mysql_context(rel: str) -> dict:
    """Return the environment, variant and series for a file under mysql/results/."""
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
    """Read the repetition number in a sysbench file name as the trial.

    The names look like "records-<stamp>-3" or "...-hostfs3". The authors number repetitions
    from 0; trials are numbered from 1. dstat files and single runs ("results-2000000") carry no
    repetition number.
    """
    m = re.search(r"(?:records-\d+-|results-2000000-\D*?)(\d+)$", name)
    return {"trial": int(m.group(1)) + 1} if m else {}


def _redis_context(rel: str) -> dict:
    """Return the environment and variant from run_<env>_<date>.txt."""
    env = rel.rsplit("/", 1)[-1].split("_")[1]
    return {
        "native": {"environment": "native", "variant": "default"},
        "dockerhost": {"environment": "docker", "variant": "net=host"},
        "dockerbridge": {"environment": "docker", "variant": "net=nat"},
        "vm": {"environment": "kvm", "variant": "default"},
    }[env]


def _by_prefix(rel: str) -> dict:
    """Return the environment from the file name prefix linux/native, docker or vm."""
    name = rel.rsplit("/", 1)[-1]
    if name.startswith(("linux", "native")):
        return {"environment": "native", "variant": "default"}
    if name.startswith("docker"):
        return {"environment": "docker", "variant": "default"}
    if name.startswith("vm"):
        return {"environment": "kvm", "variant": "untuned"}
    raise ValueError(f"{rel}: cannot tell the environment from the file name")


def _tuned_blocks(df):
    """Select the LINPACK blocks of vm.log run in the tuned VM (2 sockets exposed, not 32 CPUs)."""
    return df["p_cpus"].eq(2).fillna(False)


def _second_half(df):
    """Select RandomAccess runs 11-20 of {linux,docker,vm}.log: the real single-socket runs.

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


def _facts(environment: str, variant: str | None) -> dict:
    """Return the provenance every run of an environment shares.

    The authors ran KVM with hardware acceleration (no TCG anywhere in their data).
    """
    return {"accelerator": "kvm"} if environment == "kvm" else {}


def _spreadsheets(root: Path):
    """Read the values that exist only in the authors' spreadsheets (the reference table)."""
    from overhead.rc25482.spreadsheets import ibm_spreadsheets

    return ibm_spreadsheets(root)


#: The authors' tree as the generic ingest reads it.
RULESET = RuleSet(campaign=CAMPAIGN, rules=RULES, facts=_facts, reference=_spreadsheets,
                  code=(Path(__file__), Path(__file__).with_name("spreadsheets.py")))


def rule_for(rel: str) -> Rule | None:
    """Return the first rule whose pattern matches ``rel`` (a '/'-separated path), or None."""
    return RULESET.rule_for(rel)
