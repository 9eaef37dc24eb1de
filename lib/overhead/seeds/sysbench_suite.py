"""The sysbench suite (seeds/004): physical vs LXC vs VirtualBox, here native vs LXC, Docker and a VM.

The seed (Jan 2014, Debian jessie, kernel 3.12, sysbench 0.4) ran sysbench cpu, memory (seq
and rnd), threads, mutex and fileio rndrw, ``hdparm -tT`` and nginx serving a static file to
ab, on a physical desktop, an LXC container and a VirtualBox VM, and fileio on ext4, xfs and
btrfs. Here every seed metric has a measured counterpart per environment, with its 95% CI and
its verdict against native (decided on the 95% interval of the ratio of means against the
metric's margin in ``data/reference/margins.yml``: the seed's own claims of sameness for CPU and
memory, the default elsewhere), and the seed's value beside it as a reference row: **the seed's
LXC beside our LXC container** (LXC 5.0 here, a system container from the same image; a
campaign without one sets it beside Docker, as before LXC was measured) **and VirtualBox beside
our VM rows** (our VM runs under TCG here, VirtualBox used VT-x), so what compares is each one's
difference from its own physical host, not the absolute numbers of a 2014 desktop and this
machine.

sysbench 1.0 differs from 0.4 in ways the tables account for: 0.4's fileio "Requests/sec" is
reads plus writes per second (its fsyncs are "Other"), which 1.0 prints separately (reads/s
+ writes/s here); 0.4's "Mb/sec" is MiB/s; 0.4 ran cpu and threads to a fixed 10000 events,
which 1.0 spells ``--events=10000 --time=0`` (the profile's counts are said there).
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass

import pandas as pd

from overhead import export, stats
from overhead.seeds import _common
from overhead.seeds._common import Study

STUDY = "sysbench_suite"
#: Our environment (the campaign's name) -> the seed's setup it stands beside.
SEED_ENV = {"native": "physical", "lxc": "lxc", "vm": "vbox"}
#: Where the seed's LXC stands in a campaign without an LXC environment (Docker is not LXC).
LXC_STAND_IN = "docker-nat"


def seed_envs(env_names) -> dict[str, str]:
    """Return our environment -> the seed's setup beside it, for the environments measured.

    The seed's LXC stands beside our ``lxc`` environment; only a campaign without one sets it
    beside Docker (:data:`LXC_STAND_IN`), as before LXC was measured here.
    """
    names = set(env_names)
    if "lxc" in names:
        return dict(SEED_ENV)
    return {**{k: v for k, v in SEED_ENV.items() if k != "lxc"}, LXC_STAND_IN: "lxc"}
#: The seed's name for its physical host, the baseline of its percent differences.
SEED_BASELINE = "physical"


@dataclass(frozen=True)
class Metric:
    """One seed metric and its measured counterpart."""

    item: str            # the table's name for it
    benchmark: str       # the campaign's benchmark
    metric: str | tuple[str, ...]  # the parser's metric(s); a tuple is summed per run
    unit: str
    scale: float         # divide the tidy value (canonical units) by this
    seed_metric: str     # the seed's metric name in data/reference/sysbench_suite.csv
    where: tuple = ()    # extra column filters ((column, value), ...)


MIB = 2.0 ** 20
_LAT = (("latency_min", "min"), ("latency_mean", "avg"), ("latency_max", "max"),
        ("latency_percentile", "95th percentile"))


def _sysbench(test: str, benchmark: str, where: tuple = (), *, p95: bool = True) -> list[Metric]:
    """Return a sysbench test's total time and per-request latencies (min, avg, max, 95th)."""
    out = [Metric(f"{test}: total time", benchmark, "total_time", "s", 1.0,
                  f"{test}: total time", where)]
    for metric, word in _LAT:
        if word == "95th percentile" and not p95:
            continue
        out.append(Metric(f"{test}: per-request latency {word}", benchmark, metric, "ms", 1e-3,
                          f"{test}: per-request latency {word}", where))
    return out


_SEQ, _RND = (("p_memory_access_mode", "seq"),), (("p_memory_access_mode", "rnd"),)
#: Every result the seed prints, in the seed's order, with its measured counterpart. The
#: seed's counts (events, operations, bytes, requests, concurrency) are settings of a run, not
#: results: they are in the reference file but compared only through the rates and times here.
METRICS = (
    *_sysbench("cpu", "cpu"),
    Metric("memory seq: operations/sec", "memory", "operation_rate", "op/s", 1.0,
           "memory seq: operations/sec", _SEQ),
    Metric("memory seq: transfer rate", "memory", "transfer_rate", "MiB/s", MIB,
           "memory seq: transfer rate", _SEQ),
    *_sysbench("memory seq", "memory", _SEQ),
    Metric("memory rnd: operations/sec", "memory", "operation_rate", "op/s", 1.0,
           "memory rnd: operations/sec", _RND),
    Metric("memory rnd: transfer rate", "memory", "transfer_rate", "MiB/s", MIB,
           "memory rnd: transfer rate", _RND),
    *_sysbench("memory rnd", "memory", _RND),
    *_sysbench("threads", "threads"),
    # the seed's mutex 95th percentile is sysbench's placeholder for 2 events (10000000 ms)
    *_sysbench("mutex", "mutex", p95=False),
    Metric("fileio: requests/sec (reads + writes)", "fileio", ("read_rate", "write_rate"),
           "req/s", 1.0, "fileio: requests/sec"),
    Metric("fileio: transfer rate (read + written)", "fileio",
           ("read_throughput", "write_throughput"), "MiB/s", MIB, "fileio: transfer rate"),
    *[m for m in _sysbench("fileio", "fileio") if m.metric != "total_time"],
    Metric("hdparm: cached reads", "hdparm", "cached_read_rate", "MiB/s", MIB,
           "cached reads: MB/sec"),
    Metric("hdparm: buffered disk reads", "hdparm", "buffered_read_rate", "MiB/s", MIB,
           "buffered disk reads: MB/sec"),
    Metric("nginx + ab: requests per second", "nginx", "request_rate", "req/s", 1.0,
           "requests per second"),
    Metric("nginx + ab: time per request (mean)", "nginx", "time_per_request_mean", "ms", 1e-3,
           "time per request (mean)"),
    Metric("nginx + ab: time per request (mean, across all concurrent requests)", "nginx",
           "time_per_request_concurrent_mean", "ms", 1e-3,
           "time per request (mean, across all concurrent requests)"),
    Metric("nginx + ab: transfer rate", "nginx", "transfer_rate", "KiB/s", 1024.0, "transfer rate"),
    Metric("nginx + ab: failed requests (connect, receive, exceptions)", "nginx",
           "failed_requests", "requests", 1.0, "failed requests"),
)
#: The file systems of the seed's fileio comparison (physical host only).
FILE_SYSTEMS = ("ext4", "xfs", "btrfs")


def open_study(campaign: str | os.PathLike[str], **kwargs) -> Study:
    """Open the sysbench suite's campaign (:func:`overhead.seeds._common.open_study`)."""
    return _common.open_study(STUDY, campaign, **kwargs)


def _per_run(study: Study, m: Metric, **where: object) -> pd.DataFrame:
    """One value per run: the metric's rows (summed over a tuple of metrics) with its label."""
    names = m.metric if isinstance(m.metric, tuple) else (m.metric,)
    filters = dict(m.where) | where
    if m.metric == "latency_percentile":
        filters["p_percentile"] = 95.0
    if m.metric == "failed_requests":
        return _failed_requests(study, m)
    rows = study.benchmark(m.benchmark, names, **filters)
    if rows.empty:
        return rows
    if m.metric == "total_time" and ("higher_is_better" not in rows
                                     or rows["higher_is_better"].isna().all()):
        # a fixed amount of work (events, locks, bytes): less time is faster
        rows = rows.assign(higher_is_better=False)
    if len(names) == 1:
        return rows
    # a sum is a value only when every part was measured (a missing part is not zero)
    got = rows.groupby(["run_id", "label"], observed=True)["value"].agg(["sum", "count"])
    got = got[got["count"] == len(names)].reset_index()
    out = got.rename(columns={"sum": "value"})[["run_id", "label", "value"]]
    if "cell" in rows:  # the campaign cell of each run, for why it stopped
        out["cell"] = out["run_id"].map(rows.drop_duplicates("run_id").set_index("run_id")["cell"])
    # the parts' better direction is the sum's when they agree (reads/s + writes/s: higher)
    hib = rows["higher_is_better"].dropna().unique() if "higher_is_better" in rows else []
    return out.assign(higher_is_better=bool(hib[0])) if len(hib) == 1 else out


def _failed_requests(study: Study, m: Metric) -> pd.DataFrame:
    """Count ab's failed requests without its "Length" failures, one value per run.

    ab takes the document length from the first response it reads; when that one was cut short
    (a connection the VM's user-mode network reset), every complete response after it counts
    as a "Length" failure (2000 requests: 1950 failed, 1900 of them "Length" with the full
    1600-byte file, 50 "Exceptions"). The failures that are failures are the connect, receive
    and exception ones: failed_requests - failed_length (ab prints the breakdown only when
    something failed, so a run without it failed nothing).
    """
    total = study.benchmark(m.benchmark, "failed_requests")
    if total.empty:
        return total
    length = study.benchmark(m.benchmark, "failed_length").set_index("run_id")["value"]
    out = total[["run_id", "label", "value",
                 *[c for c in ("higher_is_better", "cell") if c in total]]].copy()
    out["value"] = out["value"] - out["run_id"].map(length).fillna(0.0)
    return out


def _margin(m: Metric, benchmark: str | None = None) -> stats.Margin:
    """Return the margin of one metric's comparisons (``margins.yml``).

    The seed's own claims of sameness for CPU and memory, the default elsewhere.
    """
    names = m.metric if isinstance(m.metric, tuple) else (m.metric,)
    return _common.margin_of(STUDY, benchmark=benchmark or m.benchmark, metric="+".join(names),
                             item=m.item)


def table(study: Study) -> pd.DataFrame:
    """Every seed metric per environment: n, mean, CI, the verdict vs native; the seed's beside.

    Returns
    -------
    pandas.DataFrame
        A comparison frame (:func:`overhead.seeds._common.compare`: the verdict against native
        with n, the ratio's 95% interval it is decided on and the margin) with ``metric_key``
        (the seed's metric name) and the published columns; the seed's value stands beside
        the row whose environment is its counterpart (:data:`SEED_ENV`), and
        ``published_pct_vs_baseline`` is the seed's difference from its physical host.
    """
    parts = []
    for m in METRICS:
        rows = _per_run(study, m)
        t = _common.compare(rows, m.item, m.unit, m.scale, baseline=_common.BASELINE,
                            margin=_margin(m))
        if not t.empty:
            parts.append(t.assign(metric_key=m.seed_metric))
    out = _common.with_env_names(_common.concat(parts), study)
    if out.empty:
        return out
    out = _common.with_stops(out, study)
    pub = study.published
    beside = seed_envs(out["env_name"])

    def has(metric: str, env: str | None) -> bool:
        return _common.has_published(pub, metric, env)

    def physical(metric: str) -> str:
        # the seed's fileio ran on each of the physical host's file systems; its root (and
        # this machine's /var/tmp) is ext4
        return SEED_BASELINE if has(metric, SEED_BASELINE) else f"{SEED_BASELINE} ext4"

    def key(row: pd.Series):
        env = beside.get(row["env_name"])
        if env == SEED_BASELINE:
            env = physical(row["metric_key"])
        if env and has(row["metric_key"], env):
            return (None, row["metric_key"], env, env)
        return None

    def base_key(row: pd.Series):
        env = physical(row["metric_key"])
        return (None, row["metric_key"], env) if has(row["metric_key"], env) else None

    return _common.attach(out, pub, key, base_key)


def file_systems(study: Study) -> pd.DataFrame:
    """Compare fileio rndrw on ext4, xfs and btrfs (loop devices, native), against ext4.

    Each file system's verdict against ext4 (n, the ratio's 95% interval, the margin), as in
    :func:`table`.

    The seed's physical ext4 / xfs / btrfs values stand beside, with their own difference
    from its ext4.
    """
    parts = []
    for m in METRICS:
        if m.benchmark != "fileio":
            continue
        rows = _per_run(study, dataclasses.replace(m, benchmark="fileio-fs"))
        if rows.empty:
            continue
        if "p_fs" not in rows:  # a sum keeps only run_id and label: look the file system up
            fs = study.rows.drop_duplicates("run_id").set_index("run_id")["p_fs"]
            rows = rows.assign(p_fs=rows["run_id"].map(fs))
        rows = rows.assign(label=rows["p_fs"].astype(str))
        t = _common.compare(rows, m.item, m.unit, m.scale, baseline="ext4",
                            margin=_margin(m, "fileio-fs"))
        if not t.empty:
            parts.append(t.assign(metric_key=m.seed_metric))
    out = _common.concat(parts)
    if out.empty:
        return out
    out = _common.with_stops(out, study)
    pub = study.published

    def has(metric: str, env: str | None) -> bool:
        return _common.has_published(pub, metric, env)

    def key(row: pd.Series):
        env = f"physical {row['environment']}"
        return (None, row["metric_key"], env, env) if has(row["metric_key"], env) else None

    def base_key(row: pd.Series):
        env = "physical ext4"
        return (None, row["metric_key"], env) if has(row["metric_key"], env) else None

    return _common.attach(out, pub, key, base_key)


def coverage(tab: pd.DataFrame, study: Study) -> pd.DataFrame:
    """Which seed metric has a measured counterpart in which environment.

    One row per (seed metric, our environment label): n trials measured, and whether the seed
    has a value for that environment's counterpart. A seed metric without any measured
    counterpart shows n = 0.
    """
    envs = list(dict.fromkeys(zip(tab["env_name"], tab["environment"], strict=True))) \
        if not tab.empty else []
    rows = []
    beside = seed_envs(name for name, _ in envs)
    for m in METRICS:
        for env_name, env in envs:
            got = tab[(tab["metric_key"] == m.seed_metric) & (tab["env_name"] == env_name)]
            seed = beside.get(env_name)
            seed_has = _common.has_published(study.published, m.seed_metric, seed)
            rows.append({"seed metric": m.seed_metric, "env_name": env_name, "environment": env,
                         "n": int(got["n"].iloc[0]) if len(got) else 0,
                         "seed counterpart": seed or "-", "seed has a value": seed_has})
    return pd.DataFrame(rows)


#: The figures, one per seed section: stem -> (title, the items' benchmarks, item prefix).
FIGURES = {
    "cpu": ("CPU (sysbench cpu)", ("cpu",), ""),
    "memory-seq": ("Memory, sequential (sysbench memory)", ("memory",), "memory seq"),
    "memory-rnd": ("Memory, random (sysbench memory)", ("memory",), "memory rnd"),
    "threads-mutex": ("Threads and mutex", ("threads", "mutex"), ""),
    "fileio": ("File I/O (fileio rndrw)", ("fileio",), ""),
    "hdparm": ("Raw device reads (hdparm -tT)", ("hdparm",), ""),
    "nginx": ("nginx serving a static file to ab", ("nginx",), ""),
}


def _section(tab: pd.DataFrame, benches: tuple, prefix: str) -> pd.DataFrame:
    """Return the rows of one figure's items."""
    if tab.empty:
        return tab
    bench_of = {m.item: m.benchmark for m in METRICS}
    sel = tab[tab["item"].map(bench_of).isin(benches)]
    return sel[sel["item"].str.startswith(prefix)] if prefix else sel


def _nonzero(sel: pd.DataFrame) -> pd.DataFrame:
    """Leave out the items whose every mean is 0 (nothing to draw)."""
    if sel.empty:
        return sel
    shown = sel.groupby("item")["mean"].transform(lambda m: (m.fillna(0) != 0).any())
    return sel[shown.astype(bool)]


def draw(study: Study, tab: pd.DataFrame, fs: pd.DataFrame) -> dict:
    """Write the figures: one per seed section (bars, vs native), and the file systems.

    A panel whose every mean is 0 (a latency under sysbench's 0.01 ms resolution) is left out
    of the figure; the table keeps it.
    """
    figs = {}
    for stem, (title, benches, prefix) in FIGURES.items():
        sel = _section(tab, benches, prefix)
        if sel.empty:
            continue
        sel = _nonzero(sel)
        if not sel.empty:
            figs[stem] = _common.save_bars(study, stem, sel, f"{title} ({study.res.name})")
    if not _nonzero(fs).empty:
        figs["filesystems"] = _common.save_bars(
            study, "filesystems", _nonzero(fs),
            f"fileio rndrw on ext4, xfs, btrfs (loop devices, native; {study.res.name})",
            baseline="ext4")
    return figs


#: The percentiles of wrk2's latency compared per environment (the spectrum has them all).
LATENCY_PERCENTILES = (50.0, 90.0, 99.0, 99.9)
LATENCY_BENCHMARK = "nginx-latency"


def latency_spectrum(study: Study) -> pd.DataFrame:
    """Return every wrk2 trial's latency distribution: one row per line of its spectrum.

    Columns: ``environment`` (its label), ``env_name``, ``run_id``, ``latency_ms``,
    ``percentile`` (0 to 100, wrk2's HdrHistogram at that line) and ``count`` (requests at or
    below it). Not the seed's: it measured ab's mean only. Empty without wrk2 trials.
    """
    rows = study.benchmark(LATENCY_BENCHMARK, ("latency_spectrum", "latency_spectrum_count"))
    cols = ["environment", "env_name", "run_id", "latency_ms", "percentile", "count"]
    if rows.empty:
        return pd.DataFrame(columns=cols)
    # the two metrics of one spectrum line share its source line
    lat = rows[rows["metric"] == "latency_spectrum"]
    cnt = rows[rows["metric"] == "latency_spectrum_count"].set_index(["run_id", "source"])["value"]
    out = pd.DataFrame({
        "environment": lat["label"].astype(str).to_numpy(),
        "env_name": lat["env_name"].astype(str).to_numpy(), "run_id": lat["run_id"].to_numpy(),
        "latency_ms": lat["value"].to_numpy(dtype=float) * 1e3,
        "percentile": lat["p_percentile"].to_numpy(dtype=float),
        "count": [cnt.get((r, src)) for r, src in zip(lat["run_id"], lat["source"], strict=True)]})
    return out.sort_values(["environment", "run_id", "percentile"], kind="stable",
                           ignore_index=True)


def latency(study: Study) -> pd.DataFrame:
    """Compare wrk2's latency percentiles (:data:`LATENCY_PERCENTILES`) with native.

    One value per trial: the percentile wrk2 printed in its summary (the spectrum's value
    there), each a comparison frame item ``nginx + wrk2: {p}th percentile latency`` with its
    verdict against native on the ratio's 95% interval and its margin (``margins.yml``).
    """
    parts = []
    for pct in LATENCY_PERCENTILES:
        rows = study.benchmark(LATENCY_BENCHMARK, "latency_percentile", p_percentile=pct)
        if rows.empty:
            continue
        rows = rows.assign(higher_is_better=False)
        item = f"nginx + wrk2: {pct:g}th percentile latency"
        margin = _common.margin_of(STUDY, benchmark=LATENCY_BENCHMARK, metric="latency_percentile",
                                   item=item)
        t = _common.compare(rows, item, "ms", 1e-3, baseline=_common.BASELINE, margin=margin)
        if not t.empty:
            parts.append(t)
    out = _common.with_env_names(_common.concat(parts), study)
    return _common.with_stops(out, study) if not out.empty else out


def draw_latency(study: Study, spectrum: pd.DataFrame):
    """Draw the latency CDF of every wrk2 trial (one line each, coloured by environment).

    The y axis is the percentile on a logit scale, so that the median and the tail up to
    99.99% each get room; x is the latency in ms on a log axis. Written as
    ``latency_cdf.{png,svg,pdf}``; returns the figure (None without trials).
    """
    if spectrum.empty:
        return None
    import matplotlib.pyplot as plt

    from overhead import plots

    plots.theme()
    fig, ax = plt.subplots(figsize=(7.4, 4.6))
    for env in plots.order(spectrum["environment"].unique()):
        runs = spectrum[spectrum["environment"] == env]
        for k, (_, r) in enumerate(runs.groupby("run_id", sort=True)):
            # the last line (100%, 1/(1-p) = inf) cannot sit on a logit axis
            r = r[(r["percentile"] > 0) & (r["percentile"] < 100)]
            ax.plot(r["latency_ms"], r["percentile"] / 100, drawstyle="steps-post",
                    color=plots.colour(env), alpha=0.8, linewidth=1.2,
                    label=(f"{env} ({runs['run_id'].nunique()} trial"
                           f"{'' if runs['run_id'].nunique() == 1 else 's'})") if k == 0 else None)
    ax.set_xscale("log")
    plots.plain_log(ax.xaxis)
    ax.set_yscale("logit")
    ticks = [0.1, 0.5, 0.9, 0.99, 0.999, 0.9999]
    ax.set_yticks(ticks, [f"{100 * t:g}%" for t in ticks])
    ax.set_ylim(0.05, 0.9999)
    ax.set_xlabel("latency (ms, log scale)")
    ax.set_ylabel("share of requests at or below (logit scale)")
    ax.set_title(f"nginx + wrk2 at a constant rate: latency CDF per trial ({study.res.name})",
                 fontsize=10)
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    plots.save(fig, study.out, "latency_cdf")
    return fig


def run(campaign: str | os.PathLike[str], **kwargs) -> tuple[Study, dict[str, pd.DataFrame], dict]:
    """Compute, write and draw the whole study; write its report.

    Returns
    -------
    (Study, tables, figures)
        Tables (stem -> frame: ``metrics``, ``filesystems``, ``coverage``), written as CSV
        and Markdown into ``figures/sysbench_suite/``, and the matplotlib figures drawn.
    """
    study = open_study(campaign, **kwargs)
    study.notes.extend(NOT_POSSIBLE)
    tab = table(study)
    fs = file_systems(study)
    cov = coverage(tab, study)
    lat = latency(study)
    spectrum = latency_spectrum(study)
    tables = {"metrics": tab, "filesystems": fs, "coverage": cov, "latency": lat}
    for stem, frame in tables.items():
        _common.write_table(study, stem, frame)
    # hundreds of lines a trial: the CSV only (no Markdown or LaTeX table of them)
    export.write_table(spectrum, study.out, "latency_spectrum", formats=("csv",))
    tables["latency_spectrum"] = spectrum
    figs = draw(study, tab, fs)
    cdf = draw_latency(study, spectrum)
    if cdf is not None:
        figs["latency_cdf"] = cdf
    sections = []
    for stem, (title, benches, prefix) in FIGURES.items():
        note = NOTES.get(stem.split("-")[0] if stem.startswith("memory") else stem, "")
        sections.append((title, note, stem if stem in figs else None,
                         _section(tab, benches, prefix)))
    sections.append(("fileio on ext4, xfs and btrfs (native, loop devices)", NOTES["filesystems"],
                     "filesystems" if "filesystems" in figs else None, fs))
    sections.append(("nginx latency at a constant rate (wrk2; not the seed's)", NOTES["latency"],
                     "latency_cdf" if "latency_cdf" in figs else None, lat))
    sections.append(("Coverage: every seed metric and its measured counterparts", NOTES["coverage"],
                     None, cov))
    _common.report(study, "The sysbench suite (seed 004) measured here", INTRO, sections)
    return study, tables, figs


INTRO = ("The seed compared a physical desktop, an LXC container and a VirtualBox VM (2014, "
         "sysbench 0.4). Here: native, an LXC system container (LXC 5.0, privileged, veth on a "
         "bridge, overlay over the image), Docker with NAT on a volume, and the local QEMU VM, "
         "each metric with its verdict against native (its n, the 95% interval of the ratio it "
         "is decided on and its margin). The "
         "seed's values stand beside our rows as references: its LXC beside our LXC (beside "
         "Docker in a campaign without LXC), VirtualBox "
         "beside the VM, and the seed's difference from its own physical host beside ours from "
         "native. Absolute values of a 2014 desktop and this machine do not compare; sizes that "
         "differ from the seed's are said in data/campaigns/profiles/sysbench-suite.yml.")
NOTES = {
    "cpu": "Primes up to 50000 as in the seed, but a fixed 2000 events here (the seed: 10000), "
           "so total times compare only as differences from native.",
    "memory": "1 KiB blocks, writes, 2 threads, as in the seed, 1 GiB in total here (the seed: "
              "100 GiB). sysbench 0.4's 'MB/sec' is MiB/s. The seed's VirtualBox memory test "
              "failed ('always reports errors'), so it has no VirtualBox value.",
    "threads-mutex": "The same settings as the seed (10000 events of the threads test; 1000000 "
                     "mutex locks per thread), so total times compare directly in kind.",
    "fileio": "sysbench 0.4's Requests/sec counts reads and writes (fsyncs are 'Other'): the "
              "measured counterpart is reads/s + writes/s. 256 MiB for 10 s here (the seed: "
              "10 GiB for 300 s): the file set fits the page cache, so this compares file-system "
              "and block paths, not a disk.",
    "hdparm": "hdparm needs a block device, and this machine's own disk cannot be opened here "
              "(a devices cgroup): natively and in the VM it reads a loop device with direct "
              "I/O over a file written on the (virtual) disk, so both measure the same path, "
              "the VM's through its virtio disk (cache=none). Neither a Docker nor an LXC "
              "container has a block device, as the seed's LXC row has none.",
    "nginx": "ab on this machine, nginx in the environment, 1600-byte responses (the seed's "
             "physical file size); 50 concurrent connections here, not the seed's 10000 (QEMU's "
             "user-mode network accepts with a backlog of 1, and resets connections beyond it: "
             "ab runs with -r so that they are counted, not fatal). Failed requests leave out "
             "ab's 'Length' failures, which only mean its first response was cut short. The "
             "seed's LXC and VirtualBox servers had larger files (15394 and 17685 bytes a "
             "response), so their transfer rates do not compare with their request rates.",
    "latency": "Not in the seed, which reported ab's mean time per request only: wrk2 on this "
               "machine asks each environment's nginx for the same 1600-byte file at a constant "
               "rate (data/campaigns/profiles/sysbench-suite.yml), timing each request from when "
               "it was due, so a stall is charged for the requests queued behind it. The CDF "
               "draws every trial's whole HdrHistogram (latency_spectrum.csv); the table compares "
               "the percentiles wrk2 printed, one value per trial. The rate is far below what "
               "each environment serves (ab's requests/s above): this is a lightly loaded "
               "server's latency, not a queue's.",
    "filesystems": "Each file system made fresh on a loop device backed by a file on this "
                   "machine's disk, natively; the seed's physical ext4, xfs and btrfs beside, "
                   "with its differences from its ext4.",
    "coverage": "n = 0 means no measured counterpart (the environment cannot run the tool, e.g. "
                "hdparm in a container).",
}
#: What the seed measured that has no counterpart here, and why (the report says it).
NOT_POSSIBLE = (
    "The seed's aufs rows (fileio on aufs with and without copy-up) have no counterpart: aufs "
    "is not in this kernel (Docker uses overlay2 here).",
    "The seed's 'vbox on lvm' and 'vbox on vdi' rows (VirtualBox disks on an LVM volume and on "
    "a VDI file) have no counterpart: the VM here has one kind of disk, a raw file on the host.",
    "This machine's own disk cannot be opened for hdparm (a devices cgroup): native and VM "
    "hdparm read a loop device over a file instead (see that section).",
)
