"""Containers in 2026 beside 2014's: the paper's benchmarks in Docker, Podman rootful and rootless, LXC.

Not a seed of its own: the project's answer to what the paper and the seeds leave open, built on
the seed studies' machinery (:mod:`overhead.seeds._common`). The campaign
(``data/campaigns/containers-2026.yml``) runs RC25482's benchmarks (profile quick) and iperf3
natively, in Docker (host networking and NAT, as the paper), Podman rootful (host; netavark's
bridge with DNAT) and rootless (slirp4netns; pasta), and an LXC system container (veth on a
bridge), plus start-up cases natively.

Every judged quantity (the benchmarks' ``judge`` lists: Linpack, STREAM Triad, RandomAccess,
goodput, latency, IOPS, Redis and MySQL throughput...) is decided twice, as the verdicts stopping
rule decides (:func:`overhead.campaign.analysis.comparisons`): against native, and against the
Docker environment whose network path is of the same kind (:data:`DOCKER_TWIN`: host
networking beside Docker's host networking; every namespaced network beside Docker's NAT). The
rootless network section sets the user-mode stacks beside the kernel's paths on the
round-trip and bulk quantities, and says what forwards the published ports in each (read from
the environments' facts and the listening sockets of the host, not assumed).
"""

from __future__ import annotations

import os
import re

import numpy as np
import pandas as pd

from overhead import export
from overhead.campaign import analysis, inventory, results
from overhead.seeds import _common, startup
from overhead.seeds._common import Study

STUDY = "containers_2026"
BASELINE_ENV = "native"
#: Each container environment's Docker counterpart: the Docker environment whose network path
#: is of the same kind (host networking, or a namespace of its own behind NAT or a bridge).
DOCKER_TWIN = {"podman-host": "docker-host", "podman-bridge": "docker-nat",
               "rootless-slirp4netns": "docker-nat", "rootless-pasta": "docker-nat",
               "lxc": "docker-nat"}
#: The network quantities of the rootless section: (benchmark, judged quantity).
NETWORK = (("netperf", "latency"), ("iperf3", "goodput"), ("nuttcp", "goodput"))
#: The start-up cases (hyperfine's every run), as the start-up study names its own.
Case = startup.Case
CASES = (
    Case("docker run --rm (runc)", "docker-run",
         (("p_command", "docker run --rm --runtime=runc overhead/bench:latest true"),)),
    Case("docker run --rm (crun)", "docker-run",
         (("p_command", "docker run --rm --runtime=crun overhead/bench:latest true"),)),
    Case("podman run --rm, no network (runc)", "podman-run",
         (("p_command", "podman run --rm --runtime=runc --network=none overhead/bench:latest true"),)),
    Case("podman run --rm, no network (crun)", "podman-run",
         (("p_command", "podman run --rm --runtime=crun --network=none overhead/bench:latest true"),)),
    Case("podman run --rm, bridge (crun)", "podman-run",
         (("p_command", "podman run --rm --runtime=crun --network=bridge overhead/bench:latest true"),)),
    Case("runuser to the rootless user (its own cost)", "podman-run-rootless",
         (("p_command", "env -C / runuser -u overhead-rootless -- true"),)),
    Case("rootless podman run --rm, no network (crun)", "podman-run-rootless",
         (("p_command", "env -C / runuser -u overhead-rootless -- podman run --rm --runtime=crun "
                        "--network=none overhead/bench:latest true"),)),
    Case("rootless podman run --rm, slirp4netns (crun)", "podman-run-rootless",
         (("p_command", "env -C / runuser -u overhead-rootless -- podman run --rm --runtime=crun "
                        "--network=slirp4netns overhead/bench:latest true"),)),
    Case("crun run (OCI bundle, seccomp)", "oci-run", (("p_runtime", "crun"),)),
    Case("runc run (OCI bundle, seccomp)", "oci-run", (("p_runtime", "runc"),)),
    Case("lxc-execute (LXC application container)", "lxc-run"),
)


def open_study(campaign: str | os.PathLike[str], **kwargs) -> Study:
    """Open the study's campaign (no published values of its own: an empty reference)."""
    return _common.open_study(STUDY, campaign, **kwargs)


def _label_of(study: Study) -> dict[str, str]:
    """Return the campaign's environment name -> its display label."""
    pairs = study.rows[["env_name", "label"]].drop_duplicates()
    return dict(zip(pairs["env_name"].astype(str), pairs["label"].astype(str), strict=True))


def verdicts(study: Study, campaign) -> pd.DataFrame:
    """Every judged comparison, against native and against the Docker twin, side by side.

    Parameters
    ----------
    study : Study
    campaign : overhead.campaign.inventory.Campaign
        The campaign (its judges and cells).

    Returns
    -------
    pandas.DataFrame
        One row per (environment, benchmark, point, quantity): n, and for each baseline
        (``native`` and ``docker``) the ratio with its 95% interval, the verdict and its words;
        the Docker twin's name in ``docker_twin`` (empty for Docker's own rows).
    """
    m, t = study.rows, study.res.trials
    native = analysis.comparisons(m, t, campaign, BASELINE_ENV)
    if native.empty:
        return native
    keys = ["environment", "benchmark", "quantity", "point"]
    native = native.assign(point=native["params"].map(_point))
    out = native.rename(columns={c: f"native_{c}" for c in
                                 ("verdict", "ratio", "low", "high", "method", "margin",
                                  "trials_needed", "words", "n_baseline")})
    twins = []
    for base in sorted(set(DOCKER_TWIN.values()) & set(campaign.environments)):
        c = analysis.comparisons(m, t, campaign, base)
        if c.empty:
            continue
        c = c[c["environment"].map(DOCKER_TWIN.get) == base]
        twins.append(c.assign(point=c["params"].map(_point)))
    if twins:
        d = pd.concat(twins, ignore_index=True)[
            [*keys, "baseline", "verdict", "ratio", "low", "high", "words", "n_baseline"]]
        d = d.rename(columns={"baseline": "docker_twin", "verdict": "docker_verdict",
                              "ratio": "docker_ratio", "low": "docker_low", "high": "docker_high",
                              "words": "docker_words", "n_baseline": "docker_n"})
        out = out.merge(d, on=keys, how="left")
    labels = _label_of(study)
    out.insert(0, "label", out["environment"].map(labels))
    order = list(campaign.environments)
    return out.sort_values(["benchmark", "quantity", "point"],
                           key=lambda s: s if s.name != "environment" else s.map(order.index)
                           ).reset_index(drop=True)


def _point(params: dict) -> str:
    """Return a grid point in words (``direction=rx``), empty for a benchmark of one point."""
    return " ".join(f"{k}={v}" for k, v in sorted(params.items())
                    if k in ("direction", "test", "rw", "clients", "threads", "mode"))


def shown(table: pd.DataFrame) -> pd.DataFrame:
    """Return the verdicts table in words: one row per comparison, the two baselines side by side."""
    if table.empty:
        return table

    def pct(r, prefix):
        ratio, lo, hi = r.get(f"{prefix}ratio"), r.get(f"{prefix}low"), r.get(f"{prefix}high")
        if not isinstance(ratio, float) or not np.isfinite(ratio):
            return "not tested"
        return results.pct_words((ratio - 1) * 100, (lo - 1) * 100, (hi - 1) * 100)

    def said(r, prefix, verdict):
        words = pct(r, prefix)
        return verdict if words == "not tested" else f"{words}: {verdict}"

    rows = []
    for _, r in table.iterrows():
        rows.append({
            "benchmark": r["benchmark"] + (f" {r['point']}" if r["point"] else ""),
            "quantity": r["quantity"], "environment": r["label"],
            "n": f"{int(r['n'])} vs {int(r['native_n_baseline'])}",
            "vs native": said(r, "native_", r["native_verdict"]),
            "vs Docker": (f"{said(r, 'docker_', r['docker_verdict'])} (n {int(r['docker_n'])}, "
                          f"{r['docker_twin']})" if isinstance(r.get("docker_verdict"), str)
                          else "-"),
        })
    return pd.DataFrame(rows)


def network(study: Study, table: pd.DataFrame) -> pd.DataFrame:
    """Return the network section's rows: the round-trip and bulk quantities, every environment."""
    if table.empty:
        return table
    keep = pd.Series(False, index=table.index)
    for bench, quantity in NETWORK:
        keep |= (table["benchmark"] == bench) & (table["quantity"] == quantity)
    return table[keep].reset_index(drop=True)


def forwarders(study: Study) -> pd.DataFrame:
    """Return what carries each environment's network, from its facts: mode, backend, listeners.

    Read from the provenance (the facts each environment recorded when it started): Docker's
    network mode and the NAT rules that serve it, Podman's network mode and backend, and what
    listens on the published ports on the host (rootlessport for slirp4netns with Podman's
    default port handler, pasta itself, conmon holding them while netavark's DNAT forwards).
    """
    w = results.where(study.res)
    if w.empty:
        return w
    prov = study.res.provenance
    names = ("podman_network_mode", "podman_network_backend", "podman_rootless",
             "podman_slirp4netns_version", "podman_passt_version", "published_listeners",
             "docker_nat_local", "lxc_version")
    rows = []
    for env in w["env_name"]:
        p = prov[prov["run_id"].str.split("/").str[1] == env] if not prov.empty else prov
        notes = " ; ".join(str(n) for n in p.get("notes", pd.Series(dtype=object)).dropna().unique())
        got = {}
        for name in names:
            m = re.search(rf"(?:^|; ){re.escape(name)}=([^;]*)", notes)
            if m:
                got[name] = m.group(1).strip()
        listeners = got.get("published_listeners", "")
        by = sorted({x.split()[-1] for x in listeners.split(", ") if x.strip()})
        row = w[w["env_name"] == env].iloc[0]
        rows.append({"environment": row["label"], "network": row["variant"] or "host's own",
                     "Docker network mode": row.get("docker_network_mode"),
                     "Podman network mode": got.get("podman_network_mode"),
                     "ports held on the host by": ", ".join(by) or None,
                     "Docker NAT path": got.get("docker_nat_local"),
                     "user-mode stack": (f"slirp4netns {got['podman_slirp4netns_version']}"
                                         if got.get("podman_network_mode") == "slirp4netns"
                                         else f"pasta (passt {got['podman_passt_version']})"
                                         if got.get("podman_network_mode") == "none"
                                         and got.get("podman_passt_version") else None)})
    return pd.DataFrame(rows)


def startup_times(study: Study) -> pd.DataFrame:
    """Return the start-up cases: runs, median and mean with their 95% intervals (every run counted)."""
    return startup.times(study, CASES)


def run(campaign: str | os.PathLike[str], **kwargs) -> tuple[Study, dict[str, pd.DataFrame], dict]:
    """Build the study's tables, figures and report from the ingested campaign.

    Returns
    -------
    (Study, tables, figures)
    """
    spec = inventory.load(campaign) if str(campaign).endswith((".yml", ".yaml")) else None
    study = open_study(campaign, **kwargs)
    if spec is None:
        from overhead.paths import ROOT

        spec = inventory.load(ROOT / "data" / "campaigns" / f"{study.res.name}.yml")
    tab = verdicts(study, spec)
    net = network(study, tab)
    starts = startup_times(study)
    tables = {"verdicts": tab, "network": net, "startup": starts, "forwarders": forwarders(study)}
    for stem, t in tables.items():
        if stem in ("verdicts", "network"):  # CSV: every column; Markdown, LaTeX: in words
            export.write_table(t, study.out, stem, shown=shown(t))
        else:
            _common.write_table(study, stem, t)
    figs = {"startup": startup.draw_medians(study, starts, CASES, "Start-up costs: medians")}
    _common.report(study, "Containers in 2026 beside 2014's", INTRO, [
        ("Start-up cost", NOTES["startup"], "medians", starts),
        ("The network of rootless containers", NOTES["network"], None, shown(net)),
        ("What carries each network", NOTES["forwarders"], None, tables["forwarders"]),
        ("Every judged quantity, against native and against Docker", NOTES["verdicts"], None,
         shown(tab)),
    ])
    return study, tables, figs


INTRO = ("The paper compared Docker 1.0 with KVM and native in 2014. Here the same benchmarks "
         "(profile quick) run natively, in Docker (host networking and NAT), in Podman rootful "
         "(host networking; netavark's bridge) and rootless (slirp4netns; pasta), and in an LXC "
         "system container, all from one Debian image on this machine. Each judged quantity is "
         "decided against native and against the Docker environment whose network is of the "
         "same kind; every comparison states its n, the 95% interval of the ratio it is decided "
         "on and its margin.")
NOTES = {
    "startup": "Each case is a container's whole life, natively: create, start, run true, stop, "
               "remove. Every run of every trial counts. Rootless runs go through runuser, "
               "whose own cost is its own row.",
    "network": "Round trips (netperf TCP_RR, one transaction in flight) and bulk TCP (iperf3 "
               "and nuttcp) from a client on this machine to a server in each environment.",
    "forwarders": "From each environment's recorded facts: its network mode, the backend, and "
                  "the versions of the user-mode stacks.",
    "verdicts": "Every judged quantity of the campaign, decided as the stopping rule decided "
                "it: against native, and against the Docker twin (host networking beside "
                "Docker's host networking; every namespaced network beside Docker's NAT).",
}

__all__ = ["CASES", "DOCKER_TWIN", "NETWORK", "STUDY", "forwarders", "network", "open_study",
           "run", "shown", "startup_times", "verdicts"]
