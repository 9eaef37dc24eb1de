"""The fsync study (seeds/002): synchronous 8 KiB writes through a VM, NFS and containers.

The seed (CentOS 6.5, two hosts on gigabit Ethernet) ran PostgreSQL's ``pg_test_fsync`` on a
physical disk (fdatasync 11,869 ops/s), on an NFS mount of another host's disk (1,342), and in
a KVM guest whose disk image lived on that NFS export (759), and decomposed one 8 KiB
synchronous write of the guest (1.23 ms) into the NFS network (0.5 ms, from ``ping -s 8192``:
about 2000 round trips a second), the physical device (0.25 ms = 1/1336 s - 0.5 ms) and the
VM (0.48 ms = 1/813 s - 1/1336 s), using open_datasync's rates.

Here (one machine): natively on this machine's disk, in Docker (volume, overlay), in the VM
with its scratch disk on the host (cache=none and writeback), with that disk image on the NFS
export that ``make hosts-up`` serves on loopback (opened by QEMU's libnfs, as the seed's guest
disk on NFS), and with the export mounted by the guest's kernel. This kernel has no NFS
client, so the host cannot mount the export itself: the seed's "NFS on the physical host"
has no direct counterpart, and the decomposition is formed along the path that exists, each
step one measured difference of per-request times with its Welch interval:

- device: 1 / native ops/s;
- virtualization: 1 / VM (disk on the host, cache=none) - 1 / native;
- NFS under the VM's disk: 1 / VM (disk image on NFS) - 1 / VM (disk on the host), split into
  the network (an 8 KiB round trip on the NFS client's path: netperf TCP_RR 8192/8192 on
  loopback, the seed's ping) and the rest (the NFS server and protocol).

The seed's own decomposition is recomputed from its printed rates beside it. The two steps
that compare an environment with another (the VM with native, the VM with its image on NFS
with the VM) also carry their verdict, decided on the interval of the ratio of the mean
per-request times against the margin of ``data/reference/margins.yml``; the Welch difference in
microseconds is what the decomposition adds up.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from overhead import stats
from overhead.seeds import _common
from overhead.seeds._common import Study

STUDY = "fsync"
SECTION = "Compare file sync methods using one 8kB write"
METHODS = ("open_datasync", "fdatasync", "fsync", "open_sync")
#: The campaign's environment names the decomposition reads.
NATIVE, VM_DISK, VM_NFS_DISK, VM_NFS_MOUNT = "native", "vm", "vm-nfs-disk", "vm-nfs-mount"
#: Our environment (campaign name) -> the seed's setup it stands beside.
SEED_ENV = {NATIVE: "physical", VM_NFS_MOUNT: "NFS", VM_NFS_DISK: "KVM guest, image on NFS"}
SEED_BASELINE = "physical"


def open_study(campaign: str | os.PathLike[str], **kwargs) -> Study:
    """Open the fsync study's campaign (:func:`overhead.seeds._common.open_study`)."""
    return _common.open_study(STUDY, campaign, **kwargs)


def _rates(study: Study, method: str) -> pd.DataFrame:
    """ops/s of one method of the one-8kB-write section, one row per run."""
    return study.benchmark("fsync", "operation_rate", p_section=SECTION, p_method=method)


def _seed_metric(method: str) -> str:
    return f"one 8kB write, {method}: ops/sec"


def methods(study: Study) -> pd.DataFrame:
    """ops/s of every sync method (one 8 KiB write) per environment, vs native, seed beside.

    Each environment against native: n, mean with its 95% interval, the ratio of means with
    the interval its verdict is decided on, the margin and the verdict
    (:func:`overhead.seeds._common.compare`).
    """
    parts = []
    for m in METHODS:
        item = f"one 8kB write, {m}"
        margin = _common.margin_of(STUDY, benchmark="fsync", metric="operation_rate", item=item)
        t = _common.compare(_rates(study, m), item, "ops/s", baseline=_common.BASELINE,
                            margin=margin)
        parts.append(t.assign(method=m, metric_key=_seed_metric(m)) if not t.empty else t)
    out = _common.concat(parts)
    if out.empty:
        return out
    out = _common.with_stops(_common.with_env_names(out, study), study)
    pub = study.published

    def has(metric: str, env: str | None) -> bool:
        return _common.has_published(pub, metric, env)

    def key(row: pd.Series):
        env = SEED_ENV.get(row["env_name"])
        metric = _seed_metric(row["method"])
        return (None, metric, env, env) if env and has(metric, env) else None

    def base_key(row: pd.Series):
        metric = _seed_metric(row["method"])
        return (None, metric, SEED_BASELINE) if has(metric, SEED_BASELINE) else None

    return _common.attach(out, pub, key, base_key)


def _times_us(study: Study, env: str, method: str) -> np.ndarray:
    """Per-request time (us) of each run of ``env``: 1e6 / ops/s."""
    r = _rates(study, method)
    v = r.loc[r["env_name"] == env, "value"].to_numpy(dtype=float)
    return 1e6 / v[np.isfinite(v) & (v > 0)]


def _rtt_us(study: Study, env: str) -> np.ndarray:
    """Mean 8 KiB TCP round trip (us) of each netperf run in ``env``."""
    r = study.benchmark("rtt-8k", "latency_mean")
    return r.loc[r["env_name"] == env, "value"].to_numpy(dtype=float) * 1e6


def _row(part: str, how: str, iv: stats.Interval | None, n: int, seed_ms: float | None,
         seed_how: str | None, source: str | None, point: float = np.nan, *,
         n_baseline: int | None = None, verdict: dict | None = None) -> dict:
    """One part: the interval's estimate, or the plain point estimate where it gives none.

    ``verdict`` (:func:`overhead.seeds._common.decided`) where the part compares two
    environments; its columns stay empty for a part that compares nothing.
    """
    est = iv.estimate if iv is not None and np.isfinite(iv.estimate) else point
    row = {"part": part, "how": how, "n": n, "n_baseline": n_baseline, "us": est,
           "ci_low": iv.low if iv is not None else np.nan,
           "ci_high": iv.high if iv is not None else np.nan,
           "ci_method": iv.method if iv is not None else None,
           "reason": (iv.reason or None) if iv is not None else "not measured",
           "seed_us": seed_ms * 1e3 if seed_ms is not None else np.nan,
           "seed_how": seed_how, "seed_source": source}
    row.update({c: None for c in _common.DECIDED if c not in row})
    row["baseline"] = None
    if verdict is not None:
        row.update(verdict)
    return row


def _mean(x: np.ndarray) -> stats.Interval | None:
    """Return the mean per-request time with its interval (log-t: a time is positive)."""
    return stats.auto_interval(x) if x.size else None


def _versus(x: np.ndarray, y: np.ndarray, baseline: str) -> dict:
    """Decide one step: x's per-request times against y's (a time: lower is faster)."""
    margin = _common.margin_of(STUDY, benchmark="fsync", metric="per-request time")
    return _common.decided(x, y, margin, higher_is_better=False, baseline=baseline)


def _diff(a: np.ndarray, b: np.ndarray) -> stats.Interval | None:
    return stats.welch_difference(a, b) if a.size and b.size else None


def seed_decomposition(pub: pd.DataFrame) -> dict[str, float]:
    """Recompute the seed's decomposition from its printed rates (ms).

    network = 1/2000 s (ping -s 8192, "2000 packets a second"), device = 1/1336.481 - network
    (the oVirt-mounted NFS's open_datasync), VM = 1/813.548 - 1/1336.481 (the guest's
    open_datasync), total = 1/813.548.
    """
    def rate(metric: str, env_word: str) -> float:
        sel = pub[(pub["metric"] == metric) & pub["env"].str.contains(env_word, regex=False)]
        return float(sel["value_parsed"].iloc[0])

    nfs = rate("one 8kB write, open_datasync: ops/sec", "oVirt")
    vm = rate("one 8kB write, open_datasync: ops/sec", "KVM")
    network = 1e3 / 2000.0
    return {"network": network, "device": 1e3 / nfs - network, "vm": 1e3 / vm - 1e3 / nfs,
            "total": 1e3 / vm}


def decomposition(study: Study, method: str = "open_datasync") -> pd.DataFrame:
    """One synchronous 8 KiB write taken apart along the measured path, with 95% intervals.

    Parameters
    ----------
    method : str
        The sync method whose rates are used (the seed used open_datasync's).

    Returns
    -------
    pandas.DataFrame
        part, how it is formed, n (runs; for a difference, of the first term) and n_baseline
        (of the second), us with ci_low/ci_high (log-t for a mean, Welch for a difference), and
        the seed's value (us) for the same part with how the seed formed it and the source
        line. The two parts that compare an environment with another (virtualization: the VM
        vs native; NFS under the VM's disk: the VM with its image on NFS vs the VM) carry the
        verdict columns (:data:`overhead.seeds._common.DECIDED`), decided on the ratio of mean
        per-request times; the other parts compare nothing and leave them empty.
    """
    t_nat = _times_us(study, NATIVE, method)
    t_vm = _times_us(study, VM_DISK, method)
    t_nfs = _times_us(study, VM_NFS_DISK, method)
    t_mnt = _times_us(study, VM_NFS_MOUNT, method)
    rtt = _rtt_us(study, NATIVE)
    rtt_vm = _rtt_us(study, VM_NFS_MOUNT)
    seed = seed_decomposition(study.published)
    src = "; ".join(study.published.loc[
        study.published["metric"].str.contains("open_datasync: ops/sec", regex=False)
        & study.published["env"].str.contains("oVirt|KVM", regex=True), "source"].astype(str))
    def m(x: np.ndarray) -> float:
        return float(x.mean()) if x.size else np.nan

    rest = t_nfs - m(t_vm)
    rows = [
        _row("device", "1 / native", _mean(t_nat), t_nat.size, seed["device"],
             "1/1336.481 s - network (NFS open_datasync minus the ping)", src, m(t_nat)),
        _row("virtualization", "1 / VM (disk on the host, cache=none) - 1 / native",
             _diff(t_vm, t_nat), t_vm.size, seed["vm"],
             "1/813.548 s - 1/1336.481 s (guest minus NFS)", src, m(t_vm) - m(t_nat),
             n_baseline=t_nat.size, verdict=_versus(t_vm, t_nat, "native")),
        _row("NFS under the VM's disk", "1 / VM (image on NFS, libnfs) - 1 / VM (disk on the host)",
             _diff(t_nfs, t_vm), t_nfs.size, None, None, None, m(t_nfs) - m(t_vm),
             n_baseline=t_vm.size, verdict=_versus(t_nfs, t_vm, "VM (disk on the host)")),
        _row("  of which network (8 KiB round trip, loopback)", "netperf TCP_RR 8192/8192, native",
             _mean(rtt), rtt.size, seed["network"], "ping -s 8192: about 2000 per second",
             None, m(rtt)),
        _row("  of which NFS server and protocol", "NFS under the VM's disk - the round trip",
             _diff(rest, rtt) if (t_nfs.size and t_vm.size and rtt.size) else None,
             t_nfs.size, None, None, None, m(rest) - m(rtt), n_baseline=rtt.size),
        _row("total: VM with its image on NFS", "1 / VM (image on NFS)", _mean(t_nfs), t_nfs.size,
             seed["total"], "1/813.548 s", src, m(t_nfs)),
        _row("for comparison: VM with the export mounted by its kernel",
             "1 / VM (guest NFS mount)", _mean(t_mnt), t_mnt.size, None, None, None, m(t_mnt)),
        _row("  its network (8 KiB round trip through QEMU's user-mode network)",
             "netperf TCP_RR 8192/8192, VM", _mean(rtt_vm), rtt_vm.size, None, None, None,
             m(rtt_vm)),
    ]
    out = pd.DataFrame(rows).assign(method=method)
    return out.astype({"n_baseline": "Int64", "trials_needed": "Int64", "beyond_margin": "boolean"})


def draw_decomposition(study: Study, dec: pd.DataFrame):
    """Stacked bars: the measured parts of one write beside the seed's (us); PNG/SVG/PDF/HTML."""
    import matplotlib.pyplot as plt
    import plotly.graph_objects as go

    from overhead import plots

    parts = [("device", "#0072B2"), ("virtualization", "#D55E00"),
             ("  of which network (8 KiB round trip, loopback)", "#009E73"),
             ("  of which NFS server and protocol", "#CC79A7")]
    d = dec.set_index("part")
    fig, ax = plt.subplots(figsize=(7.5, 4.6))
    fig2 = go.Figure()
    bottoms = [0.0, 0.0]
    for name, c in parts:
        values = [float(d.loc[name, col]) if name in d.index else np.nan for col in ("us", "seed_us")]
        label = name.strip().replace("of which ", "")
        for x, v in enumerate(values):
            if pd.notna(v):
                # a part that cost nothing measurable (a negative difference) draws no bar
                ax.bar(x, max(0.0, v), bottom=bottoms[x], color=c, edgecolor="black",
                       linewidth=0.5, label=label if x == 0 or pd.isna(values[0]) else None)
                bottoms[x] += max(0.0, v)
        fig2.add_trace(go.Bar(x=["measured here", "seed (2014)"], y=values, name=label,
                              marker_color=c))
    ax.set_xticks([0, 1], [f"measured here ({dec['method'].iloc[0]})", "seed (2014, open_datasync)"])
    ax.set_ylabel("us per synchronous 8 KiB write")
    ax.legend(fontsize=8)
    ax.set_title(f"One 8 KiB synchronous write through a VM on NFS ({study.res.name})", fontsize=10)
    fig.tight_layout()
    plots.save(fig, study.out, "decomposition")
    fig2.update_layout(barmode="stack", title="One 8 KiB synchronous write, part by part (us)",
                       yaxis_title="us")
    plots.save_html(fig2, study.out, "decomposition")
    return fig


def run(campaign: str | os.PathLike[str], **kwargs) -> tuple[Study, dict[str, pd.DataFrame], dict]:
    """Compute, write and draw the whole study; write its report.

    Returns
    -------
    (Study, tables, figures)
        Tables ``methods`` (ops/s per sync method and environment), ``decomposition`` (with
        open_datasync, the seed's method) and ``decomposition_fdatasync``.
    """
    study = open_study(campaign, **kwargs)
    study.notes.extend(NOT_POSSIBLE)
    tab = methods(study)
    dec = decomposition(study, "open_datasync")
    dec_f = decomposition(study, "fdatasync")
    tables = {"methods": tab, "decomposition": dec, "decomposition_fdatasync": dec_f}
    for stem, frame in tables.items():
        _common.write_table(study, stem, frame)
    figs = {}
    if not tab.empty:
        figs["methods"] = _common.save_bars(study, "methods", tab,
                                            f"pg_test_fsync, one 8 KiB write ({study.res.name})")
    figs["decomposition"] = draw_decomposition(study, dec)
    sections = [
        ("Synchronous 8 KiB writes per second, every sync method", NOTES["methods"], "methods", tab),
        ("One write taken apart (open_datasync, as the seed)", NOTES["decomposition"],
         "decomposition", dec),
        ("The same with fdatasync (Linux's default)", "", None, dec_f),
    ]
    _common.report(study, "fsync IOPS through Docker, a VM and NFS (seed 002) measured here",
                   INTRO, sections)
    return study, tables, figs


INTRO = ("The seed measured pg_test_fsync on a physical disk, over NFS between two hosts on "
         "gigabit Ethernet, and in a KVM guest whose disk image was on that NFS export. Here "
         "everything is on one machine: the NFS export is served on loopback by a userspace "
         "server (nfs-ganesha; this kernel has no NFS), and the VM runs under TCG.")
NOTES = {
    "methods": "Each environment against native: the ratio of mean ops/s with its 95% interval, "
               "the margin and the verdict decided on that interval. The seed's rows stand "
               "beside ours: its physical disk beside native, its NFS "
               "mount beside the VM that mounts our export (the nearest counterpart: this "
               "host cannot mount NFS, so that path also includes the VM), its KVM guest with "
               "the image on NFS beside our VM whose image is on the export. What compares is "
               "each one's difference from its own physical disk.",
    "decomposition": "Each part is a difference of measured per-request times (1 / ops/s) "
                     "with its Welch 95% interval; a negative part means the step cost nothing "
                     "measurable. The two parts that compare one environment with another "
                     "(the VM with native; the VM with its image on NFS with the VM) carry "
                     "their verdict, decided on the 95% interval of the ratio of the mean "
                     "per-request times, with n on each side and the margin. The seed's parts "
                     "are recomputed from its printed rates (2000 round trips a second for the "
                     "network, open_datasync's 1336.481 and 813.548 ops/s), beside ours.",
}
#: What the seed did that this machine could not, and what stands for it (the report says it).
NOT_POSSIBLE = (
    "This machine's kernel has no NFS, neither client nor server, and loads no modules: the "
    "export is served in user space by nfs-ganesha (FSAL VFS over this machine's ext4, "
    "NFSv3 and v4 on 127.0.0.1 only; a COMMIT is an fsync of the file on the host), not by a "
    "kernel nfsd, and the host cannot mount it. The seed's 'NFS on the physical host' is stood "
    "for by the VM that mounts the export with its kernel (NFSv4.0, hard, TCP), whose numbers "
    "also carry the VM's cost; the VM whose image is on the export reaches it through QEMU's "
    "own NFSv3 client (libnfs), as the seed's guest did through the host's mount.",
    "The seed's NFS crossed gigabit Ethernet between two hosts; here it crosses loopback "
    "(QEMU's libnfs) or QEMU's user-mode network (the guest's mount), so the network part is "
    "far smaller than the seed's 0.5 ms.",
    "The VMs run under TCG (emulation), not KVM, so the virtualization part is an emulator's "
    "and is much larger than a KVM guest's would be.",
)
