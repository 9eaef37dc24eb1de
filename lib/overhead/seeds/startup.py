"""The container start-up study (seeds/001): what making a container costs, run by run.

The seed (Giuseppe Scrivano on crun, hyperfine on Fedora: kernel 4.5.5 in 2017, 5.19.15 in
2022) timed ``unshare -n true`` (47.7 ms -> 1.5 ms after the netfilter fix), an mqueue mount
(16.8 ms -> 0.7 ms), ``unshare -i true`` (10.9 ms -> 0.1 ms) and ``crun run`` with and without
seccomp (159.2 / 139.6 ms in 2017, 28.9 ms with the gperf libseccomp, 5.6 ms with a cached
filter), and reckoned seccomp's cost as the difference of user times (43.0 - 4.1 = 38.9 ms,
then 16.7 - 4.1 = 12.6 ms).

Here every individual time is kept (hyperfine's JSON, one row per run): the medians with
distribution-free 95% intervals (order statistics), the means with log-t intervals (a time is
positive: the interval is too), the ECDFs, the seed's 2017 and 2022 values beside, and seccomp's
cost recomputed the seed's way from our user times (a Welch interval of the difference of the
trials' mean user times), each with the verdict of "with seccomp" against "without", decided on
the 95% interval of the ratio of means against the margin of ``data/reference/margins.yml``.
hyperfine reports a mean user and system time per invocation, not per run, so the seccomp
arithmetic has one value per trial.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
import pandas as pd

from overhead import stats
from overhead.seeds import _common
from overhead.seeds._common import Study

STUDY = "startup"


@dataclass(frozen=True)
class Case:
    """One timed case: its name, the campaign benchmark and the rows that are it."""

    name: str
    benchmark: str
    where: tuple = ()          # ((column, value), ...)
    seed_metric: str | None = None   # the seed's metric for the same command
    seed_envs: tuple = ()      # the seed's settings (env) to show beside; () = all of them


_N = "unshare -n true: wall time mean"
_I = "unshare -i true: wall time mean"
_CRUN = "crun run foo: wall time mean"
_MQ = ("unshare --propagation=private -m mount -t mqueue mqueue /tmp/mqueue: wall time mean")
CASES = (
    Case("true (process start)", "spawn"),
    Case("unshare -n true", "unshare-net", (("p_shell", "none"),), _N),
    Case("unshare -n true (through sh, as the seed)", "unshare-net", (("p_shell", "sh"),), _N),
    Case("unshare -i true", "unshare-ipc", (("p_shell", "none"),), _I),
    Case("unshare -i true (through sh, as the seed)", "unshare-ipc", (("p_shell", "sh"),), _I),
    Case("mqueue mount", "mqueue", (("p_shell", "none"),), _MQ),
    Case("mqueue mount (through sh, as the seed)", "mqueue", (("p_shell", "sh"),), _MQ),
    Case("crun run, seccomp", "oci-run", (("p_runtime", "crun"), ("p_seccomp", "default")), _CRUN,
         ("Fedora 24, kernel 4.5.5, with seccomp profile", "new libseccomp")),
    Case("crun run, no seccomp", "oci-run", (("p_runtime", "crun"), ("p_seccomp", "none")), _CRUN,
         ("Fedora 24, kernel 4.5.5, without seccomp profile",)),
    Case("runc run, seccomp", "oci-run", (("p_runtime", "runc"), ("p_seccomp", "default"))),
    Case("runc run, no seccomp", "oci-run", (("p_runtime", "runc"), ("p_seccomp", "none"))),
    Case("docker run --rm (runc)", "docker-run", (("p_command", "docker run --rm --runtime=runc overhead/bench:latest true"),)),
    Case("docker run --rm (crun)", "docker-run", (("p_command", "docker run --rm --runtime=crun overhead/bench:latest true"),)),
    Case("VM power-on to SSH", "vm-boot"),
)


def open_study(campaign: str | os.PathLike[str], **kwargs) -> Study:
    """Open the start-up study's campaign (:func:`overhead.seeds._common.open_study`)."""
    return _common.open_study(STUDY, campaign, **kwargs)


def _rows(study: Study, case: Case, metric: str = "wall_time") -> pd.DataFrame:
    rows = study.benchmark(case.benchmark, metric)
    for column, value in case.where:
        if column not in rows:
            return rows.iloc[0:0]
        rows = rows[rows[column] == value]
    return rows


def seed_values(pub: pd.DataFrame, case: Case) -> pd.DataFrame:
    """Return the seed's rows for a case (its settings in the seed's order), empty when none."""
    if case.seed_metric is None:
        return pub.iloc[0:0]
    rows = pub[pub["metric"] == case.seed_metric]
    return rows[rows["env"].isin(case.seed_envs)] if case.seed_envs else rows


def times(study: Study, cases: tuple[Case, ...] = CASES) -> pd.DataFrame:
    """Per case: runs, median [order-statistics 95% CI], mean [log-t 95% CI], 5th/95th percentiles.

    Every run of every trial counts (n = runs). The seed's means for the same command stand
    beside, in ``seed`` (its settings and values, ms) with their source lines. ``cases``: this
    study's (default) or another's start-up cases (the containers-2026 study's).
    """
    out = []
    for case in cases:
        rows = _rows(study, case)
        v = rows["value"].to_numpy(dtype=float) * 1e3
        v = v[np.isfinite(v)]
        if v.size == 0:
            out.append({"case": case.name, "runs": 0, "trials": 0})
            continue
        med = stats.median_interval(v)
        mean = stats.auto_interval(v)
        seed = seed_values(study.published, case)
        out.append({
            "case": case.name, "trials": rows["run_id"].nunique(), "runs": int(v.size),
            "median_ms": float(np.median(v)), "median_low": med.low, "median_high": med.high,
            "mean_ms": float(np.mean(v)), "mean_low": mean.low, "mean_high": mean.high,
            "mean_ci_method": mean.method,
            "p5_ms": float(np.percentile(v, 5)), "p95_ms": float(np.percentile(v, 95)),
            "accelerator": _accel(rows),
            "seed": "; ".join(f"{e}: {x:g} {u}" for e, x, u in
                              zip(seed["env"], seed["value_parsed"], seed["unit"], strict=True)) or None,
            "seed_source": "; ".join(seed["source"].astype(str)) or None,
        })
    return pd.DataFrame(out)


def _accel(rows: pd.DataFrame) -> str | None:
    """Return the accelerator of a VM boot case (from the runner's parameter), else None."""
    if "p_accel" not in rows:
        return None
    got = sorted({str(a) for a in rows["p_accel"].dropna()})
    return ", ".join(got) or None


def seccomp_cost(study: Study) -> pd.DataFrame:
    """Seccomp's cost per runtime, the seed's way: user time with the filter - without it.

    One value per trial (hyperfine's mean user time of that trial's runs); the difference of
    means with a Welch 95% interval; the same for system time and wall time (median of each
    trial's runs). Each quantity also carries the verdict of "with seccomp" against "without"
    (:func:`overhead.seeds._common.decided`: n per side, the ratio of means with the 95%
    interval the verdict is decided on, the margin; ``slower`` means seccomp costs time). The
    seed's two results (2017: 43.0 - 4.1 = 38.9 ms; gperf libseccomp: 16.7 - 4.1 = 12.6 ms)
    stand beside.
    """
    pub = study.published
    seed = pub[pub["metric"] == "crun run foo: user time used by seccomp"]
    out = []
    for runtime in ("crun", "runc"):
        on = Case("", "oci-run", (("p_runtime", runtime), ("p_seccomp", "default")))
        off = Case("", "oci-run", (("p_runtime", runtime), ("p_seccomp", "none")))
        for what, metric in (("user time (hyperfine's mean per trial)", "user_time_mean"),
                             ("system time (hyperfine's mean per trial)", "system_time_mean"),
                             ("wall time (median per trial)", "wall_time")):
            a, b = _rows(study, on, metric), _rows(study, off, metric)
            if metric == "wall_time":
                a = a.groupby("run_id")["value"].median()
                b = b.groupby("run_id")["value"].median()
            else:
                a, b = a["value"], b["value"]
            xa, xb = a.to_numpy(dtype=float) * 1e3, b.to_numpy(dtype=float) * 1e3
            iv = stats.welch_difference(xa, xb) if len(a) and len(b) else None
            margin = _common.margin_of(STUDY, benchmark="oci-run", metric=metric,
                                       item=f"{runtime} run: seccomp's {what}")
            verdict = _common.decided(xa, xb, margin, higher_is_better=False,
                                      baseline="without seccomp")
            out.append({"runtime": runtime, "quantity": what,
                        "with_seccomp_ms": float(a.mean() * 1e3) if len(a) else np.nan,
                        "without_ms": float(b.mean() * 1e3) if len(b) else np.nan,
                        "cost_ms": iv.estimate if iv else np.nan,
                        "ci_low": iv.low if iv else np.nan, "ci_high": iv.high if iv else np.nan,
                        "reason": (iv.reason or None) if iv else "not measured",
                        "seed": "; ".join(f"{e}: {v:g} ms" for e, v in
                                          zip(seed["env"], seed["value_parsed"], strict=True))
                        if metric == "user_time_mean" and runtime == "crun" else None,
                        "seed_source": "; ".join(seed["source"].astype(str))
                        if metric == "user_time_mean" and runtime == "crun" else None,
                        **verdict})
    return pd.DataFrame(out).astype({"trials_needed": "Int64", "beyond_margin": "boolean"})


def draw_ecdf(study: Study) -> dict:
    """ECDFs of every case's runs (ms, log x): PNG/SVG/PDF and plotly HTML."""
    import matplotlib.pyplot as plt
    import plotly.graph_objects as go

    from overhead import plots

    groups = {"namespaces": [c for c in CASES if c.benchmark in ("spawn", "unshare-net",
                                                                  "unshare-ipc", "mqueue")],
              "containers": [c for c in CASES if c.benchmark in ("oci-run", "docker-run", "vm-boot")]}
    figs = {}
    palette = plt.get_cmap("tab20").colors
    for stem, cases in groups.items():
        fig, ax = plt.subplots(figsize=(8.0, 4.8))
        pfig = go.Figure()
        for k, case in enumerate(cases):
            v = _rows(study, case)["value"].to_numpy(dtype=float) * 1e3
            v = np.sort(v[np.isfinite(v)])
            if v.size == 0:
                continue
            e = stats.ecdf(v)
            x, y = e["x"].to_numpy(), e["ecdf"].to_numpy()
            c = palette[k % len(palette)]
            ax.step(x, y, where="post", color=c, label=f"{case.name} (n={v.size})")
            pfig.add_trace(go.Scatter(x=x, y=y, mode="lines", line_shape="hv",
                                      name=f"{case.name} (n={v.size})"))
        ax.set_xscale("log")
        plots.plain_log(ax.xaxis)
        ax.set_xlabel("wall time per run (ms, log scale)")
        ax.set_ylabel("fraction of runs")
        ax.legend(fontsize=7, loc="lower right")
        ax.set_title(f"Start-up times, every run ({study.res.name})", fontsize=10)
        fig.tight_layout()
        plots.save(fig, study.out, f"ecdf_{stem}")
        pfig.update_layout(title=f"Start-up times, every run: {stem}", xaxis_type="log",
                           xaxis_title="ms", yaxis_title="fraction of runs")
        plots.save_html(pfig, study.out, f"ecdf_{stem}")
        figs[f"ecdf_{stem}"] = fig
    return figs


def draw_medians(study: Study, tab: pd.DataFrame, cases: tuple[Case, ...] = CASES,
                 title: str = "Start-up costs: medians here, the seed's means beside"):
    """Medians with their 95% intervals per case, the seed's 2017 and 2022 means beside.

    ``cases``: the cases of ``tab`` (this study's, or another's without seed values).
    """
    import matplotlib.pyplot as plt
    import plotly.graph_objects as go

    from overhead import plots

    t = tab[tab["runs"] > 0].reset_index(drop=True)
    fig, ax = plt.subplots(figsize=(8.0, 0.42 * max(4, len(t)) + 1.2))
    y = np.arange(len(t))
    ax.errorbar(t["median_ms"], y, xerr=[t["median_ms"] - t["median_low"], t["median_high"] - t["median_ms"]],
                fmt="o", color="#0072B2", capsize=3, label="median here (95% CI)")
    pub = study.published
    marks = {"4.5.5": ("s", "#D55E00", "seed 2017 (kernel 4.5.5), mean"),
             "5.19.15": ("D", "#009E73", "seed 2022 (kernel 5.19.15), mean"),
             "commit": ("^", "#CC79A7", "seed, before/after a named fix, mean"),
             "libseccomp": ("v", "#E69F00", "seed, new libseccomp, mean")}
    seen = set()
    for i, name in enumerate(t["case"]):
        case = next((c for c in cases if c.name == name), None)
        for _, r in (seed_values(pub, case) if case is not None else pub.iloc[0:0]).iterrows():
            for key, (mk, c, label) in marks.items():
                if key in str(r["env"]) and pd.notna(r["value_parsed"]):
                    ax.plot(r["value_parsed"], i, mk, color=c, label=None if key in seen else label)
                    seen.add(key)
    ax.set_yticks(y, t["case"], fontsize=8)
    ax.invert_yaxis()
    ax.set_xscale("log")
    plots.plain_log(ax.xaxis, subs=(1.0,))  # 0.1 ms to 10 s: decades only
    ax.set_xlabel("ms (log scale)")
    ax.legend(fontsize=8)
    ax.set_title(f"{title} ({study.res.name})", fontsize=10)
    fig.tight_layout()
    plots.save(fig, study.out, "medians")
    pfig = go.Figure(go.Scatter(
        x=t["median_ms"], y=t["case"], mode="markers", name="median here",
        error_x=plots.plotly_ci(t["median_ms"], t["median_low"], t["median_high"])))
    pfig.update_layout(title="Start-up costs: medians (95% CI)", xaxis_type="log", xaxis_title="ms")
    plots.save_html(pfig, study.out, "medians")
    return fig


def not_possible(study: Study) -> list[str]:
    """Say what the seed did that this machine could not, and why (for the report)."""
    notes = [
        "The seed's 2017 and 2022 numbers come from two kernels (4.5.5 and 5.19.15) on Fedora; "
        "here there is one kernel (the provenance names it), so the kernel fixes the seed "
        "describes cannot be measured before and after: its values stand beside ours.",
        "'crun-from-the-future' (a BPF filter cache that was not merged when the seed was "
        "written) is not available in Debian's crun 1.8.1, so the seed's 5.6 ms has no "
        "counterpart.",
        "The seed's Fedora had SELinux enabled (its network-namespace cost came partly from "
        "SELinux's netfilter hooks); this Debian host has no SELinux.",
    ]
    layouts = set(study.rows["p_cgroup"].dropna().astype(str)) if "p_cgroup" in study.rows \
        else set()
    if "hybrid-without-unified" in layouts:
        notes.append("crun 1.8.1 refuses this machine's hybrid cgroup layout (a cgroup2 mount "
                     "at /sys/fs/cgroup/unified with a controller), so both runtimes ran in a "
                     "private mount namespace without that mount (recorded per trial as "
                     "p_cgroup).")
    if "hybrid" in layouts:
        notes.append("The cgroup layout is hybrid (v1 hierarchies and a cgroup2 mount at "
                     "/sys/fs/cgroup/unified) with no controller on the cgroup2 mount (make "
                     "hosts-up moves the one there, hugetlb, to a v1 hierarchy, as crun 1.8.1 "
                     "refuses a cgroup2 mount holding one): both runtimes ran in the host's own "
                     "mount namespace (recorded per trial as p_cgroup).")
    # the boot runner's own VM (the report's general TCG note covers VM environments only)
    if "p_accel" in study.rows and study.rows["p_accel"].astype(str).eq("tcg").any():
        notes.append("The VM booted under TCG (software emulation; this host's KVM module is "
                     "kvm_pvm, under which a stock guest kernel hangs): its boot time is an "
                     "emulator's, not a KVM guest's.")
    return notes


def run(campaign: str | os.PathLike[str], **kwargs) -> tuple[Study, dict[str, pd.DataFrame], dict]:
    """Compute, write and draw the whole study; write its report.

    Returns
    -------
    (Study, tables, figures)
        Tables ``times`` (per case) and ``seccomp`` (the seed's arithmetic on our data).
    """
    study = open_study(campaign, **kwargs)
    tab = times(study)
    sec = seccomp_cost(study)
    tables = {"times": tab, "seccomp": sec}
    for stem, frame in tables.items():
        _common.write_table(study, stem, frame)
    figs = draw_ecdf(study)
    figs["medians"] = draw_medians(study, tab)
    study.notes.extend(not_possible(study))
    sections = [
        ("Medians and means per case, the seed's values beside", NOTES["times"], "medians", tab),
        ("Every run: namespaces and the mqueue mount", "", "ecdf_namespaces", None),
        ("Every run: containers and the VM", "", "ecdf_containers", None),
        ("Seccomp's cost, the seed's arithmetic on our runs", NOTES["seccomp"], None, sec),
    ]
    _common.report(study, "Container start-up cost (seed 001) measured here", INTRO, sections)
    return study, tables, figs


INTRO = ("Every run's time is kept. The seed printed hyperfine's mean ± SD; here the median "
         "(with a distribution-free interval: start-up times are skewed) and the mean (with a "
         "log-t interval, which stays positive) are both given. What could not be done here, and "
         "why, is said below.")
NOTES = {
    "times": "'through sh' runs the command as the seed's hyperfine did (through a shell whose "
             "own start-up hyperfine measures and subtracts); the plain rows run it directly "
             "(hyperfine -N). The seed's 2017 and 2022 means for the same command are in the "
             "seed column with their lines.",
    "seccomp": "As the seed: seccomp's cost = user time with Docker's default profile - user "
               "time without any, per runtime, from hyperfine's mean user time of each trial "
               "(Welch 95% interval over trials). Each quantity's verdict compares the runs "
               "with seccomp with those without on the 95% interval of the ratio of means "
               "(n trials on each side, the margin beside): 'slower' means seccomp costs time, "
               "'not tested' that one trial a side gives no interval.",
}
