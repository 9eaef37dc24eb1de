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
    out = native.rename(columns=_prefixed("native_"))
    twins = []
    for base in sorted(set(DOCKER_TWIN.values()) & set(campaign.environments)):
        c = analysis.comparisons(m, t, campaign, base)
        if c.empty:
            continue
        c = c[c["environment"].map(DOCKER_TWIN.get) == base]
        twins.append(c.assign(point=c["params"].map(_point)))
    if twins:
        d = pd.concat(twins, ignore_index=True)[[*keys, "baseline", *_SIDE]]
        d = d.rename(columns={"baseline": "docker_twin", **_prefixed("docker_")})
        out = out.merge(d, on=keys, how="left")
    labels = _label_of(study)
    out.insert(0, "label", out["environment"].map(labels))
    order = {e: i for i, e in enumerate(campaign.environments)}
    out["_order"] = out["environment"].map(order)
    return out.sort_values(["benchmark", "quantity", "point", "_order"], kind="stable") \
        .drop(columns="_order").reset_index(drop=True)


#: A comparison's own columns (:func:`overhead.campaign.analysis.comparisons`), kept per baseline.
_SIDE = ("verdict", "ratio", "low", "high", "method", "margin", "margin_low_pct",
         "margin_high_pct", "trials_needed", "words", "n_baseline")


def _prefixed(prefix: str) -> dict[str, str]:
    """Name one baseline's comparison columns: ``native_verdict``, ``native_ratio_low``...

    As every table with verdicts names them (``<prefix>ratio_low/high`` beside
    ``<prefix>verdict``, the margin in ``<prefix>margin_low_pct/high_pct``), so that what checks
    a verdict against its interval finds both.
    """
    return {c: prefix + {"low": "ratio_low", "high": "ratio_high"}.get(c, c) for c in _SIDE}


def _point(params: dict) -> str:
    """Return a grid point in words (``direction=rx``), empty for a benchmark of one point."""
    return " ".join(f"{k}={v}" for k, v in sorted(params.items())
                    if k in ("direction", "test", "rw", "clients", "threads", "mode"))


def shown(table: pd.DataFrame) -> pd.DataFrame:
    """Return the verdicts table in words: one row per comparison, the two baselines side by side."""
    if table.empty:
        return table

    def said(r, prefix, verdict):
        words = _pct(r, prefix)
        return verdict if words is None else f"{words}: {verdict}"

    rows = []
    for _, r in table.iterrows():
        rows.append({
            "benchmark": r["benchmark"] + (f" {r['point']}" if r["point"] else ""),
            "quantity": r["quantity"], "environment": r["label"],
            "n": f"{int(r['n'])} vs {int(r['native_n_baseline'])}",
            "vs native": said(r, "native_", r["native_verdict"]),
            "vs Docker": (f"{said(r, 'docker_', r['docker_verdict'])} (n {int(r['docker_n_baseline'])}, "
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


#: How each network quantity is drawn: (benchmark, quantity) -> (unit shown, divide by).
NETWORK_UNITS = {"latency": ("\u00b5s", 1e-6), "goodput": ("Gbit/s", 1.25e8)}


def network_bars(study: Study, campaign) -> pd.DataFrame:
    """Return the network quantities per environment as a comparison with native, for the figure.

    Every done trial's judged value (what the verdicts are decided on), per environment and
    grid point, compared with native's (:func:`overhead.seeds._common.compare`): n, mean with
    its 95% interval, the ratio's interval and verdict.
    """
    from overhead.campaign.plan import cells

    values = analysis.judged_values(study.rows, study.res.trials, campaign)
    cs = cells(campaign)
    labels = _label_of(study)
    rows = []
    for (cid, i), judged in values.items():
        c = cs.get(cid)
        if c is None:
            continue
        judge = campaign.benchmarks[c.benchmark].judge[i]
        if (c.benchmark, judge.label) not in NETWORK:
            continue
        point = _point(c.params)
        item = f"{c.benchmark}{' ' + point if point else ''}: {judge.label}"
        rows += [{"label": labels.get(c.environment, c.environment), "env_name": c.environment,
                  "item": item, "benchmark": c.benchmark, "quantity": judge.label,
                  "metric": judge.metric, "value": v, "higher_is_better": judged.higher_is_better}
                 for v in judged.values]
    if not rows:
        return pd.DataFrame()
    frame = pd.DataFrame(rows)
    base = labels.get(BASELINE_ENV, BASELINE_ENV)
    order = [labels.get(e, e) for e in campaign.environments]
    tables = []
    for (item, bench, quantity, metric), g in frame.groupby(
            ["item", "benchmark", "quantity", "metric"], sort=True):
        unit, scale = NETWORK_UNITS[quantity]
        margin = _common.margin_of(STUDY, benchmark=bench, metric=metric, item=quantity)
        t = _common.compare(g, item, unit, scale, baseline=base, margin=margin)
        tables.append(t.assign(_order=t["environment"].map(
            lambda e: order.index(e) if e in order else len(order))))
    out = pd.concat(tables, ignore_index=True)
    return out.sort_values(["item", "_order"], kind="stable").drop(columns="_order") \
        .reset_index(drop=True)


def network_words(net: pd.DataFrame, carriers: pd.DataFrame) -> list[str]:
    """Say what the data shows of each rootless network, and what carries it.

    One sentence per rootless environment (those whose facts name a user-mode stack): its
    round trip and bulk goodput against its Docker twin and native, each with n, the interval
    and the verdict as decided, then what holds its published ports on the host (read from the
    listening sockets, not assumed). A comparison that decided nothing says so.
    """
    if net.empty:
        return []
    said = []
    for _, c in _rootless(carriers).iterrows():
        mine = net[net["label"] == c["environment"]]
        if mine.empty:
            continue
        parts = []
        for _, r in mine.iterrows():
            what = f"{r['benchmark']}{' ' + r['point'] if r['point'] else ''} {r['quantity']}"
            vs = []
            if isinstance(r.get("docker_verdict"), str):
                vs.append(f"against {r['docker_twin']} {_said(r, 'docker_')} "
                          f"(n {int(r['n'])} vs {int(r['docker_n_baseline'])})")
            vs.append(f"against native {_said(r, 'native_')} "
                      f"(n {int(r['n'])} vs {int(r['native_n_baseline'])})")
            parts.append(f"{what} {'; '.join(vs)}")
        held = c.get("ports held on the host by")
        cause = (f"Its published ports are held on the host by {held}: a process in user space "
                 "takes each connection from the kernel and "
                 + ("hands its bytes to " + c["user-mode stack"] + ", a TCP/IP stack in user space "
                    "that builds the packets the container's kernel sees"
                    if not any(h.startswith(("pasta", "passt")) for h in str(held).split(", "))
                    else "is itself the TCP/IP stack in user space "
                    "that builds the packets the container's kernel sees")
                 + ", where Docker's NAT and netavark's bridge forward packets inside the kernel "
                   "(DNAT). The CPU time of these processes was not measured per trial.") \
            if isinstance(held, str) and held else \
            "What holds its published ports on the host was not recorded."
        said.append(f"{c['environment']} ({c['user-mode stack']}): " + "; ".join(parts) + ". "
                    + cause)
    return said


def storage_words(table: pd.DataFrame, carriers: pd.DataFrame) -> list[str]:
    """Say what the data shows of each rootless container's storage (fio's judged quantities).

    One sentence per rootless environment: how many of its fio comparisons with native and
    with its Docker twin were decided which way, the widest interval among the undecided ones
    (what the data cannot tell apart), and the path its fio file took (a named volume: a host
    folder bind-mounted into the user namespace, the path Docker's volume takes). The rootless
    image store (overlay in a user namespace, or fuse-overlayfs) is named as not measured when
    no environment of the campaign ran on it.
    """
    rootless = _rootless(carriers)
    if table.empty:
        return []
    fio = table[table["benchmark"].str.startswith("fio")]
    said = []
    for _, c in rootless.iterrows():
        mine = fio[fio["label"] == c["environment"]]
        if mine.empty:
            continue
        parts = []
        for prefix, against in (("native_", "native"), ("docker_", "its Docker twin")):
            verdicts = mine[f"{prefix}verdict"].dropna()
            if verdicts.empty:
                continue
            counts = verdicts.value_counts()
            words = ", ".join(f"{k} {v}" for v, k in counts.items())
            open_ = mine[mine[f"{prefix}verdict"] == "inconclusive"]
            widest = ""
            if not open_.empty:
                w = open_.assign(_span=open_[f"{prefix}ratio_high"] - open_[f"{prefix}ratio_low"])
                r = w.loc[w["_span"].idxmax()]
                widest = (f"; the widest undecided, {r['benchmark']} {r['point']} "
                          f"{r['quantity']}, {_said(r, prefix)} (n {int(r['n'])} vs "
                          f"{int(r[f'{prefix}n_baseline'])})")
            parts.append(f"against {against}, of {len(verdicts)} comparisons {words}{widest}")
        network = str(c.get("network") or "")
        path = ("its fio file was on a named volume, a host folder bind-mounted into the "
                "container's user namespace: the path Docker's volume takes, without the image "
                "store's overlay" if "storage=volume" in network else
                f"its storage: {network}")
        said.append(f"{c['environment']}, storage: " + "; ".join(parts) + f". As run here, "
                    f"{path}.")
    if said and not rootless["network"].astype(str).str.contains("storage=overlay").any():
        said.append("The rootless image store itself (overlay in a user namespace, or "
                    "fuse-overlayfs) was not measured by this campaign: no environment ran its "
                    "benchmarks on it (storage: overlay with driver: fuse-overlayfs does).")
    return said


def _pct(r: pd.Series, prefix: str) -> str | None:
    """Say one side's ratio as a percent difference with its interval; None without a ratio."""
    ratio, lo, hi = r.get(f"{prefix}ratio"), r.get(f"{prefix}ratio_low"), r.get(f"{prefix}ratio_high")
    if not isinstance(ratio, float) or not np.isfinite(ratio):
        return None
    return results.pct_words((ratio - 1) * 100, (lo - 1) * 100, (hi - 1) * 100)


def _said(r: pd.Series, prefix: str) -> str:
    """Say one side of a comparison: its percent difference with the interval, and the verdict."""
    words, verdict = _pct(r, prefix), r.get(f"{prefix}verdict")
    return f"{verdict or 'not tested'} (no interval)" if words is None else f"{words}, {verdict}"


def _rootless(carriers: pd.DataFrame) -> pd.DataFrame:
    """Return the rows of :func:`forwarders` whose network is a user-mode stack (rootless)."""
    if carriers.empty or "user-mode stack" not in carriers:
        return carriers.iloc[0:0]
    return carriers.dropna(subset=["user-mode stack"])


def startup_times(study: Study) -> pd.DataFrame:
    """Return the start-up cases: runs, median and mean with their 95% intervals (every run counted)."""
    return startup.times(study, CASES)


def campaign_spec(campaign: str | os.PathLike[str], profile: str | None = None):
    """Read the study's campaign: its YAML file, or a name of ``data/campaigns/<name>.yml``.

    ``profile`` replaces the file's (``containers-ci``), and renames the campaign as the
    campaign notebook does (``containers-2026-containers-ci``).
    """
    from pathlib import Path

    from overhead.errors import InputError
    from overhead.paths import ROOT

    text = str(campaign)
    if text.endswith((".yml", ".yaml")):
        path = Path(text) if Path(text).is_absolute() else ROOT / text
    else:
        path = ROOT / "data" / "campaigns" / f"{text}.yml"
        if not path.is_file():
            raise InputError(f"{path}: no campaign file named {text!r}: give the study the "
                             "campaign's YAML file (and its profile, if it was measured with "
                             "another)")
    return inventory.load(path, {"profile": profile} if profile else None)


def run(campaign: str | os.PathLike[str], *, profile: str | None = None,
        **kwargs) -> tuple[Study, dict[str, pd.DataFrame], dict]:
    """Build the study's tables, figures and report from the ingested campaign.

    Parameters
    ----------
    campaign : str or path
        The campaign's YAML file, or its name (``containers-2026``).
    profile : str, optional
        The profile it was measured with, when not the file's (``containers-ci``).
    **kwargs
        ``tidy_root``, ``out`` (:func:`overhead.campaign.results.open_results`).

    Returns
    -------
    (Study, tables, figures)
    """
    spec = campaign_spec(campaign, profile)
    study = open_study(spec.name, **kwargs)
    tab = verdicts(study, spec)
    net = network(study, tab)
    starts = startup_times(study)
    carriers = forwarders(study)
    bars = network_bars(study, spec)
    tables = {"verdicts": tab, "network": net, "startup": starts, "forwarders": carriers,
              "network_means": bars}
    for stem, t in tables.items():
        if stem in ("verdicts", "network"):  # CSV: every column; Markdown, LaTeX: in words
            export.write_table(t, study.out, stem, shown=shown(t))
        else:
            _common.write_table(study, stem, t)
    figs = {"startup": startup.draw_medians(study, starts, CASES, "Start-up costs: medians")}
    if not bars.empty:
        figs["network"] = _common.save_bars(
            study, "network", bars, f"Network: round trips and bulk TCP ({study.res.name})",
            baseline=_label_of(study).get(BASELINE_ENV, BASELINE_ENV))
    words = network_words(net, carriers)
    stored = storage_words(tab, carriers)
    _common.report(study, "Containers in 2026 beside 2014's", INTRO, [
        ("Start-up cost", NOTES["startup"], "medians", starts),
        ("The network of rootless containers", [NOTES["network"], *words],
         "network" if "network" in figs else None, shown(net)),
        ("What carries each network", NOTES["forwarders"], None, carriers),
        ("The storage of rootless containers", [NOTES["storage"], *stored], None, None),
        ("Every judged quantity, against native and against Docker", NOTES["verdicts"], None,
         shown(tab)),
    ], margins=margins_said(tab))
    return study, tables, figs


def margins_said(table: pd.DataFrame) -> list[str]:
    """List the margins the verdicts were decided against, each with its reason (margins.yml)."""
    if table.empty or "native_margin" not in table:
        return []
    pairs = table[["native_margin", "margin_reason"]].dropna().drop_duplicates()
    return [f"{m}: {why}" for m, why in pairs.itertuples(index=False)]


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
    "storage": "fio's judged quantities (IOPS, bandwidth) of the rootless environments, "
               "counted by verdict; every comparison is in the last table.",
    "forwarders": "From each environment's recorded facts: its network mode, the backend, and "
                  "the versions of the user-mode stacks.",
    "verdicts": "Every judged quantity of the campaign, decided as the stopping rule decided "
                "it: against native, and against the Docker twin (host networking beside "
                "Docker's host networking; every namespaced network beside Docker's NAT).",
}

__all__ = ["CASES", "DOCKER_TWIN", "NETWORK", "NETWORK_UNITS", "STUDY", "campaign_spec", "forwarders",
           "margins_said", "network", "network_bars", "network_words", "open_study", "run", "shown",
           "startup_times", "storage_words", "verdicts"]
