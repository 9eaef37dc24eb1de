"""Compare campaigns: each one's overhead against its own baseline, and how it changed.

``overhead compare A B [C ...]`` (and ``notebooks/compare.ipynb``) puts campaigns measured on
other machines, kernels or versions side by side. For every quantity a campaign judges (its
benchmarks' ``judge`` entries in ``campaign.json``, or those named), every workload (a cell's
parameters as the campaign file set them) and every environment:

- **overhead**: each campaign's ratio to its own baseline (native) with the interval its
  verdict is decided on (:func:`overhead.stats.decide`);
- **change of overhead**: the ratio of ratios R = r_B / r_A of each later campaign to the
  first, with its log-t interval over the four samples and a verdict on the same margins
  (:mod:`overhead.stats.between`): equivalent (the overhead moved by less than the margin),
  faster/slower (B's environment, relative to B's native, is faster/slower than A's is),
  inconclusive;
- **absolute**: each environment's own mean in B against A (the native rows say whether the
  machine itself changed), decided like any comparison;
- **what differs**: the environments' facts (kernel, CPU, Docker, QEMU, accelerator, runtime)
  and the campaign settings (profile, an environment's ``cpus``, image) that are not the same;
- **refused**: a workload that only one campaign ran (another profile, another parameter)
  is not compared: the message names the parameter and both values. Likewise an environment
  that only one campaign has.

Every value comes from the DuckDB store over the tidy folders (:mod:`overhead.store`): the
done, non-warm-up trials, one value per trial as the campaign's stopping rule judged it.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from overhead.errors import InputError
from overhead.paths import FIGURES

__all__ = ["Comparison", "Quantity", "compare", "figure", "out_folder", "parse_quantity", "pct", "report",
           "run", "summary_words", "table", "workloads_shown"]

#: Facts that differ between any two campaigns without saying anything about the platform.
_IGNORED_FACTS = {"cgroup", "campaign_hash", "environment", "tidy_environment", "docker_host",
                  "virt_how", "host_virt_how", "docker_userland_proxy_how",
                  "docker_container_ip", "docker_published", "cpu_flags"}
#: Campaign settings that name the campaign rather than what it measures.
_IGNORED_SETTINGS = {"name", "path", "sha256", "seed", "hosts", "files", "inventory", "runners"}


@dataclass(frozen=True)
class Quantity:
    """One judged quantity: a metric of a benchmark, filtered and combined per trial.

    As :class:`overhead.campaign.inventory.Judge`: rows of ``metric`` whose parameter columns
    match ``where`` (None matches a missing value), combined per trial by ``combine``.
    """

    benchmark: str
    metric: str
    where: tuple[tuple[str, object], ...] = ()
    combine: str = "mean"
    name: str | None = None
    runner: str | None = None

    @property
    def label(self) -> str:
        """The quantity's name (the judge's name, else the metric)."""
        return self.name or self.metric


def parse_quantity(text: str) -> Quantity:
    """Read ``benchmark:metric`` (``netperf:latency_mean``) into a :class:`Quantity`."""
    bench, sep, metric = str(text).partition(":")
    if not sep or not bench or not metric:
        raise InputError(f"quantity {text!r}: expected benchmark:metric (netperf:latency_mean)")
    return Quantity(bench, metric)


@dataclass
class _Campaign:
    name: str
    folder: Path
    cells: dict
    settings: dict | None
    facts: dict
    started: str | None = None

    def quantities(self) -> list[Quantity]:
        out = []
        for bench, spec in ((self.settings or {}).get("benchmarks") or {}).items():
            for j in spec.get("judge") or ():
                out.append(Quantity(bench, j["metric"], tuple(sorted((j.get("where") or {}).items())),
                                    j.get("combine", "mean"), j.get("name"), spec.get("runner")))
        return out

    def workload(self, cell: str) -> tuple[str, str] | None:
        c = self.cells.get(cell)
        if c is None:
            return None
        return c["benchmark"], json.dumps(c.get("params") or {}, sort_keys=True, default=str)


def _read_json(path: Path) -> dict | None:
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text())
    except ValueError as exc:
        raise InputError(f"{path}: not JSON ({exc})") from None
    return data if isinstance(data, dict) else None


def _open(store, name: str) -> _Campaign:
    folder = store.campaigns[name].folder
    plan = _read_json(folder / "plan.json") or {}
    cells = plan.get("cells") or {}
    if not cells:
        raise InputError(f"{folder}: no plan.json with the campaign's cells (ingest it with this "
                         "version: `overhead ingest`)")
    started = store.con.execute("SELECT min(started_at) FROM trials WHERE campaign = ?",
                                [name]).fetchone()[0]
    return _Campaign(name, folder, cells, _read_json(folder / "campaign.json"),
                     _read_json(folder / "facts.json") or {}, str(started) if started else None)


def _trial_values(store, camp: _Campaign, q: Quantity) -> pd.DataFrame:
    """One value per done trial of ``q`` in ``camp``: env_name, cell, run_id, value, hib."""
    where_cols = [k if k.startswith("p_") else f"p_{k}" for k, _ in q.where]
    have = set(store.columns("usable"))
    select = ["run_id", "env_name", "cell", "value", "higher_is_better",
              *[c for c in where_cols if c in have]]
    rows = store.query(f"SELECT {', '.join(select)} FROM usable WHERE campaign = ? AND "
                       "benchmark = ? AND metric = ?", [camp.name, q.benchmark, q.metric])
    for (_key, want), col in zip(q.where, where_cols, strict=True):
        if col not in rows.columns:
            if want is None:
                continue
            return rows.iloc[0:0]
        rows = rows[rows[col].isna()] if want is None else rows[rows[col].astype(str) == str(want)]
    if rows.empty:
        return pd.DataFrame(columns=["run_id", "env_name", "cell", "value", "higher_is_better"])
    v = pd.to_numeric(rows["value"], errors="coerce").astype("float64")
    rows = rows.assign(value=v, bad=~np.isfinite(v.to_numpy(na_value=np.nan)))
    agg = rows.groupby("run_id", sort=False).agg(
        env_name=("env_name", "first"), cell=("cell", "first"), bad=("bad", "any"),
        value=("value", "sum" if q.combine == "sum" else "mean"),
        higher_is_better=("higher_is_better", lambda s: s.dropna().iloc[0] if s.dropna().nunique() == 1 else pd.NA))
    return agg[~agg["bad"]].drop(columns="bad").reset_index()


def _params_words(params_json: str, shown: Iterable[str] | None = None) -> str:
    params = json.loads(params_json)
    keys = [k for k in params if shown is None or k in shown]
    return " ".join(f"{k}={params[k]}" for k in keys)


def _differences(a: str, b: str) -> str:
    pa, pb = json.loads(a), json.loads(b)
    diff = [k for k in sorted(set(pa) | set(pb)) if pa.get(k, "(unset)") != pb.get(k, "(unset)")]
    return ", ".join(f"{k} {pa.get(k, '(unset)')} vs {pb.get(k, '(unset)')}" for k in diff)


@dataclass
class Comparison:
    """What :func:`compare` found (every table one row per comparison; see the module text).

    Attributes
    ----------
    campaigns : list of str
        In comparison order; the first is the reference of every ratio of ratios.
    baseline : str
        The environment each campaign's overhead is measured against.
    overheads : pandas.DataFrame
        campaign, quantity, benchmark, workload, environment: n, n_baseline, mean,
        mean_baseline, ratio, ratio_low, ratio_high, verdict, margin, detail.
    changes : pandas.DataFrame
        campaign (B) against reference (A), quantity, workload, environment: ratio_a,
        ratio_b, rr, rr_low, rr_high, pct, pct_low, pct_high, margin_low_pct,
        margin_high_pct, verdict, beyond_margin, trials_needed, p_difference,
        p_difference_holm, n (xB/yB/xA/yA), detail.
    absolute : pandas.DataFrame
        campaign (B) against reference (A), quantity, workload, environment: mean_a, mean_b,
        ratio, ratio_low, ratio_high, verdict, detail.
    differences : pandas.DataFrame
        environment ("campaign" for settings), field, then one column per campaign: the facts
        and settings that are not the same in all.
    refused : list of str
        Each comparison not made, with what differs.
    """

    campaigns: list[str]
    baseline: str
    overheads: pd.DataFrame
    changes: pd.DataFrame
    absolute: pd.DataFrame
    differences: pd.DataFrame
    refused: list[str] = field(default_factory=list)
    started: dict[str, str | None] = field(default_factory=dict)


def _margin(margins, q: Quantity):
    return margins.lookup(benchmark=q.benchmark, tool=q.runner, metric=q.metric, item=q.label)


def _flat(d: Mapping, prefix: str = "") -> dict[str, object]:
    out: dict[str, object] = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, Mapping):
            out.update(_flat(v, f"{key}."))
        else:
            out[key] = json.dumps(v, sort_keys=True) if isinstance(v, list | tuple) else v
    return out


def differences(camps: Sequence[_Campaign]) -> pd.DataFrame:
    """Return the facts and settings that are not the same in every campaign."""
    rows: dict[tuple[str, str], dict[str, object]] = {}

    def put(env: str, fld: str, camp: str, value: object) -> None:
        rows.setdefault((env, fld), {})[camp] = value

    for c in camps:
        for env, facts in c.facts.items():
            for k, v in facts.items():
                if k == "mem_total_bytes":
                    # MemTotal moves by a few kB between boots of one machine: a machine with
                    # other memory differs in GiB
                    try:
                        put(env, "memory", c.name, f"{float(v) / 2**30:.1f} GiB")
                    except (TypeError, ValueError):
                        put(env, "memory", c.name, v)
                elif k not in _IGNORED_FACTS:
                    put(env, k, c.name, v)
        s = c.settings or {}
        put("campaign", "profile", c.name, s.get("profile"))
        put("campaign", "settings recorded", c.name, "yes" if c.settings else "no (campaign.json absent)")
        for k, v in _flat({k: v for k, v in s.items() if k not in _IGNORED_SETTINGS
                           and k not in ("environments", "benchmarks")}).items():
            put("campaign", k, c.name, v)
        for env, spec in (s.get("environments") or {}).items():
            for k, v in _flat(spec).items():
                put(env, f"setting: {k}", c.name, v)
        for bench, spec in (s.get("benchmarks") or {}).items():
            # its parameters decide what is comparable (a differing one is refused and named)
            for k, v in _flat({k: v for k, v in spec.items() if k != "params"}).items():
                put(f"benchmark {bench}", k, c.name, v)
    names = [c.name for c in camps]
    # an environment only some campaigns have is said once among what is not compared
    shared = set.intersection(*(set(c.facts) | set((c.settings or {}).get("environments") or {})
                                for c in camps))
    out = []
    for (env, fld), vals in rows.items():
        if env != "campaign" and not env.startswith("benchmark ") and env not in shared:
            continue
        seen = [vals.get(n) for n in names]
        if len({json.dumps(v, sort_keys=True, default=str) for v in seen}) > 1:
            out.append({"environment": env, "field": fld, **{n: vals.get(n) for n in names}})
    frame = pd.DataFrame(out, columns=["environment", "field", *names])
    return frame.sort_values(["environment", "field"], kind="stable").reset_index(drop=True)


def compare(campaigns: Sequence[str], *, store=None, root: str | os.PathLike[str] | None = None,
            baseline: str = "native", benchmarks: Sequence[str] | None = None,
            quantities: Sequence[Quantity | str] | None = None, margins=None,
            level: float = 0.95) -> Comparison:
    """Compare campaigns' overheads (see the module text).

    Parameters
    ----------
    campaigns : sequence of str
        Two or more ingested campaigns (folders of the tidy root); the first is the reference.
    store : overhead.store.Store, optional
        An open store (default: one over ``root``, default ``data/tidy``).
    baseline : str
        The environment every overhead is measured against (as the campaign files name it).
    benchmarks : sequence of str, optional
        Only these benchmarks.
    quantities : sequence of Quantity or "benchmark:metric", optional
        What to compare (default: every quantity the campaigns judge).
    margins : overhead.margins.Margins, optional
        The equivalence margins (default ``data/reference/margins.yml``).
    level : float
        Level of every interval.

    Returns
    -------
    Comparison

    Raises
    ------
    InputError
        Fewer than two campaigns, a campaign without the baseline, or nothing to compare.
    """
    from overhead import margins as _margins
    from overhead.stats import decide
    from overhead.stats.between import between, words
    from overhead.stats.significance import holm
    from overhead.store import Store

    names = list(dict.fromkeys(campaigns))
    if len(names) < 2:
        raise InputError(f"compare needs two or more campaigns, got {', '.join(names) or 'none'}")
    store = store or Store(root, names)
    margins = margins or _margins.load()
    camps = [_open(store, n) for n in names]
    ref = camps[0]
    qs: list[Quantity] = []
    for q in quantities or ():
        qs.append(parse_quantity(q) if isinstance(q, str) else q)
    if not qs:
        for c in camps:
            qs += [q for q in c.quantities() if q not in qs]
        if not qs:
            raise InputError(f"{', '.join(names)}: no campaign.json with judged quantities "
                             "(campaigns run before it was written): name them, e.g. "
                             "--quantity netperf:latency_mean")
    if benchmarks:
        qs = [q for q in qs if q.benchmark in set(benchmarks)]
    refused: list[str] = []
    envs = {c.name: set(c.facts) or set(store.query(
        "SELECT DISTINCT env_name FROM trials WHERE campaign = ?", [c.name])["env_name"].dropna())
        for c in camps}
    for c in camps:
        if baseline not in envs[c.name]:
            raise InputError(f"campaign {c.name}: no environment {baseline!r} to measure overhead "
                             f"against (it has {', '.join(sorted(envs[c.name]))})")
    for c in camps[1:]:
        for env in sorted(envs[ref.name] ^ envs[c.name]):
            where = ref.name if env in envs[ref.name] else c.name
            refused.append(f"environment {env}: only in {where}, not compared between "
                           f"{ref.name} and {c.name}")

    over, changes, absolute = [], [], []
    for q in qs:
        margin = _margin(margins, q)
        samples: dict[str, dict[tuple[str, str], pd.DataFrame]] = {}
        for c in camps:
            vals = _trial_values(store, c, q)
            vals["workload"] = [c.workload(cell) for cell in vals["cell"]]
            samples[c.name] = {(wk, env): g for (wk, env), g in vals.groupby(["workload", "env_name"])}
        hib_seen = [bool(g["higher_is_better"].dropna().iloc[0]) for s in samples.values()
                    for g in s.values() if g["higher_is_better"].notna().any()]
        hib = hib_seen[0] if hib_seen and len(set(hib_seen)) == 1 else None
        for c in camps:
            for (wk, env), g in samples[c.name].items():
                base = samples[c.name].get((wk, baseline))
                if env == baseline or base is None:
                    continue
                v = decide(g["value"], base["value"], margin, level, higher_is_better=hib)
                iv = v.interval
                over.append({"campaign": c.name, "quantity": q.label, "benchmark": q.benchmark,
                             "workload": wk[1], "environment": env, "n": v.n,
                             "n_baseline": v.n_baseline, "mean": float(g["value"].mean()),
                             "mean_baseline": float(base["value"].mean()), "ratio": iv.ratio,
                             "ratio_low": iv.low, "ratio_high": iv.high,
                             "margin_low_pct": margin.low_pct, "margin_high_pct": margin.high_pct,
                             "verdict": v.verdict, "detail": v.words()})
        wl_ref = {wk for wk, _ in samples[ref.name]}
        for c in camps[1:]:
            wl_c = {wk for wk, _ in samples[c.name]}
            for wk in sorted(wl_ref ^ wl_c):
                mine, other = (ref.name, c.name) if wk in wl_ref else (c.name, ref.name)
                twins = sorted(w for w in (wl_c if wk in wl_ref else wl_ref) if w[0] == wk[0])
                why = (f"{wk[0]}: the other campaign ran it with "
                       + "; or ".join(_differences(wk[1], t[1]) for t in twins)
                       if twins else f"{wk[0]}: not run by {other}")
                refused.append(f"{q.label} of {wk[0]} {_params_words(wk[1])}: only in {mine} "
                               f"({why})")
            for wk in sorted(wl_ref & wl_c):
                ya, yb = samples[ref.name].get((wk, baseline)), samples[c.name].get((wk, baseline))
                for env in sorted(envs[ref.name] & envs[c.name]):
                    xa, xb = samples[ref.name].get((wk, env)), samples[c.name].get((wk, env))
                    if xa is None or xb is None:
                        continue
                    ab = decide(xb["value"], xa["value"], margin, level, higher_is_better=hib)
                    absolute.append({"campaign": c.name, "reference": ref.name, "quantity": q.label,
                                     "benchmark": q.benchmark, "workload": wk[1], "environment": env,
                                     "n": ab.n, "n_reference": ab.n_baseline,
                                     "mean_reference": float(xa["value"].mean()),
                                     "mean": float(xb["value"].mean()), "ratio": ab.interval.ratio,
                                     "ratio_low": ab.interval.low, "ratio_high": ab.interval.high,
                                     "margin_low_pct": margin.low_pct,
                                     "margin_high_pct": margin.high_pct, "verdict": ab.verdict,
                                     "detail": ab.words()})
                    if env == baseline or ya is None or yb is None:
                        continue
                    b = between(xb["value"], yb["value"], xa["value"], ya["value"], margin, level,
                                higher_is_better=hib)
                    iv = b.interval
                    changes.append({
                        "campaign": c.name, "reference": ref.name, "quantity": q.label,
                        "benchmark": q.benchmark, "workload": wk[1], "environment": env,
                        "ratio_reference": iv.ratio_a, "ratio": iv.ratio_b, "rr": iv.ratio,
                        "rr_low": iv.low, "rr_high": iv.high, "pct": 100 * (iv.ratio - 1),
                        "pct_low": 100 * (iv.low - 1), "pct_high": 100 * (iv.high - 1),
                        "margin_low_pct": margin.low_pct, "margin_high_pct": margin.high_pct,
                        "margin_reason": margin.reason, "verdict": b.verdict,
                        "beyond_margin": b.beyond_margin, "trials_needed": b.trials_needed,
                        "p_difference": b.p_difference, "n": "/".join(map(str, iv.n)),
                        "detail": words(b, ref.name, c.name)})
    if not (changes or absolute):
        why = "; ".join(refused[:6]) + (f"; and {len(refused) - 6} more" if len(refused) > 6 else "")
        raise InputError(f"{', '.join(names)}: nothing to compare ("
                         + (why or f"no quantity measured in {baseline} and another environment "
                            "of these campaigns") + ")")
    ch = pd.DataFrame(changes)
    if not ch.empty:
        ch["p_difference_holm"] = np.nan
        for _, part in ch.groupby("campaign", sort=False):
            ch.loc[part.index, "p_difference_holm"] = holm(part["p_difference"].to_numpy(dtype=float))
    return Comparison(names, baseline, pd.DataFrame(over), ch, pd.DataFrame(absolute),
                      differences(camps), refused, {c.name: c.started for c in camps})


# ---- output ----------------------------------------------------------------------------------

def pct(low: float, mid: float, high: float) -> str:
    """Say a ratio and its interval as percent differences (:func:`results.pct_words`)."""
    from overhead.campaign.results import pct_words

    finite = math.isfinite(low) and math.isfinite(high)
    return pct_words(100 * (mid - 1) if math.isfinite(mid) else math.nan,
                     100 * (low - 1) if finite else math.nan, 100 * (high - 1) if finite else math.nan)


def workloads_shown(frame: pd.DataFrame) -> pd.Series:
    """Say each row's workload by the parameters that vary within its benchmark."""
    out = pd.Series("", index=frame.index, dtype="object")
    for _, part in frame.groupby("benchmark", sort=False):
        params = [json.loads(w) for w in part["workload"].unique()]
        varying = [k for k in dict.fromkeys(k for p in params for k in p)
                   if len({json.dumps(p.get(k), default=str) for p in params}) > 1]
        out.loc[part.index] = [_params_words(w, varying) for w in part["workload"]]
    return out


def table(c: Comparison) -> pd.DataFrame:
    """Return the change-of-overhead table as a reader sees it (one row per comparison)."""
    ch = c.changes
    if ch.empty:
        return pd.DataFrame()
    shown = pd.DataFrame({
        "campaign": ch["campaign"], "environment": ch["environment"],
        "quantity": ch["benchmark"] + " " + ch["quantity"],
        "workload": workloads_shown(ch),
        f"overhead in {c.campaigns[0]}": [f"{100 * (r - 1):+.1f}%" for r in ch["ratio_reference"]],
        "overhead in campaign": [f"{100 * (r - 1):+.1f}%" for r in ch["ratio"]],
        "change of overhead [95% CI]": [pct(lo, r, hi) for lo, r, hi in
                                        zip(ch["rr_low"], ch["rr"], ch["rr_high"], strict=True)],
        "margin": [f"±{h:g}%" if -lo == h else f"{lo:+g}%/{h:+g}%"
                   for lo, h in zip(ch["margin_low_pct"], ch["margin_high_pct"], strict=True)],
        "verdict": ch["verdict"], "n xB/yB/xA/yA": ch["n"]})
    return shown.reset_index(drop=True)


def figure(c: Comparison, out: str | os.PathLike[str], name: str = "changes") -> list[Path]:
    """Draw every change of overhead with its interval and margin (PNG, SVG, PDF).

    One row per comparison, the percent change of the overhead on the x axis, the margin
    shaded per row, colour by environment: a filled circle for a difference, a hollow one for
    equivalent, a pale hollow diamond on a dashed interval for inconclusive (or not tested).
    """
    import matplotlib.pyplot as plt

    from overhead import plots
    from overhead.environments.labels import OKABE_ITO

    ch = c.changes
    if ch.empty:
        return []
    plots.theme()
    rows = ch.assign(shown=workloads_shown(ch)).reset_index(drop=True)
    envs = list(dict.fromkeys(rows["environment"]))
    colours = list(OKABE_ITO.values())
    colour = {e: colours[(i + 1) % len(colours)] for i, e in enumerate(envs)}
    fig, ax = plt.subplots(figsize=(9, 0.42 * len(rows) + 1.6))
    for i, r in rows.iterrows():
        y = len(rows) - 1 - i
        ax.fill_betweenx([y - 0.35, y + 0.35], r["margin_low_pct"], r["margin_high_pct"],
                         color="0.88", lw=0, zorder=0)
        lo, hi = r["pct_low"], r["pct_high"]
        col = colour[r["environment"]]
        differs = r["verdict"] in ("faster", "slower", "higher", "lower")
        unsure = r["verdict"] not in ("equivalent",) and not differs  # inconclusive, not tested
        if math.isfinite(lo) and math.isfinite(hi):
            ax.plot([lo, hi], [y, y], color=col, lw=2, alpha=0.5 if unsure else 1,
                    ls=(0, (3, 2)) if unsure else "-")
        ax.plot([r["pct"]], [y], marker="D" if unsure else "o", ms=6 if unsure else 7, color=col,
                mfc=col if differs else "white", alpha=0.6 if unsure else 1)
    ax.axvline(0, color="0.3", lw=0.8)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([f"{r.environment} · {r.benchmark} {r.quantity} {r.shown}".strip()
                        + f" ({r.campaign})" * (len(c.campaigns) > 2)
                        for r in rows.itertuples()][::-1], fontsize=8)
    ax.set_xlabel(f"change of the overhead against {c.baseline}, vs {c.campaigns[0]} (%), 95% CI")
    ax.set_title(f"{' / '.join(c.campaigns[1:])} against {c.campaigns[0]}: how each overhead moved")
    handles = [plt.Line2D([], [], color=colour[e], marker="o", lw=2, label=e) for e in envs]
    handles += [plt.Line2D([], [], color="0.4", marker="o", mfc="0.4", lw=2, label="differs"),
                plt.Line2D([], [], color="0.4", marker="o", mfc="white", lw=2, label="equivalent"),
                plt.Line2D([], [], color="0.4", marker="D", mfc="white", lw=2, ls=(0, (3, 2)),
                           alpha=0.6, label="inconclusive"),
                plt.Rectangle((0, 0), 1, 1, color="0.88", label="equivalence margin")]
    # below the axes: over them it hid rows whatever corner it took
    ax.legend(handles=handles, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.12),
              ncol=min(len(handles), 4), frameon=False)
    paths = plots.save(fig, out, name)
    plt.close(fig)
    return paths


def _counts(frame: pd.DataFrame) -> str:
    if frame.empty:
        return "none"
    n = frame["verdict"].value_counts()
    return ", ".join(f"{int(v)} {k}" for k, v in n.items())


def summary_words(c: Comparison) -> list[str]:
    """Say what the comparison shows, one paragraph per later campaign, from the tables."""
    out = []
    for name in c.campaigns[1:]:
        part = c.changes[c.changes["campaign"] == name] if not c.changes.empty else c.changes
        if part.empty:
            out.append(f"{name}: no overhead compared with {c.campaigns[0]}.")
            continue
        said = [f"{name} against {c.campaigns[0]}: {len(part)} overheads compared "
                f"({_counts(part)})."]
        moved = part[part["verdict"].isin(["faster", "slower", "higher", "lower"])]
        for r in moved.itertuples():
            holm = ("" if not math.isfinite(r.p_difference_holm) or r.p_difference_holm < 0.05
                    else " (not significant after Holm's correction across this family)")
            said.append(f"{r.environment}, {r.benchmark} {r.quantity}: the overhead moved "
                        f"{r.pct:+.1f}% [{r.pct_low:+.1f}, {r.pct_high:+.1f}], {r.verdict} in {name}"
                        f"{', beyond the margin' if r.beyond_margin else ''}{holm}; overhead "
                        f"{100 * (r.ratio_reference - 1):+.1f}% in {c.campaigns[0]}, "
                        f"{100 * (r.ratio - 1):+.1f}% in {name} (n {r.n}).")
        same = part[part["verdict"] == "equivalent"]
        if len(same):
            shown = workloads_shown(part).loc[same.index]
            names_ = [f"{e} {b} {q} {w}".strip() for e, b, q, w in
                      zip(same["environment"], same["benchmark"], same["quantity"], shown, strict=True)]
            said.append(f"Unchanged within their margins: {len(same)} ({'; '.join(names_)}).")
        undecided = part[part["verdict"] == "inconclusive"]
        if len(undecided):
            widest = undecided.assign(w=undecided["pct_high"] - undecided["pct_low"]).nlargest(1, "w").iloc[0]
            said.append(f"Not decided either way: {len(undecided)}; the widest interval "
                        f"{widest['environment']} {widest['benchmark']} {widest['quantity']} "
                        f"[{widest['pct_low']:+.1f}, {widest['pct_high']:+.1f}]% (n {widest['n']}): "
                        "neither a change nor sameness is shown.")
        out.append(" ".join(said))
    return out


INTRO = ("Each campaign measures every environment's overhead against its own native run; this "
         "page compares those overheads. The change of an overhead is the ratio of ratios "
         "R = (env_B / native_B) / (env_A / native_A): +10% means the environment, relative to "
         "its campaign's native, did 10% more of a rate (or took 10% longer) in B than in A. "
         "Its 95% interval is the log-t interval over the four samples; the verdict reads it "
         "against the quantity's equivalence margin (data/reference/margins.yml): equivalent "
         "means the overhead moved by less than the margin, faster/slower that it moved, "
         "inconclusive that the data shows neither. A non-significant change is never called "
         "sameness.")


def report(c: Comparison, out: str | os.PathLike[str]) -> Path:
    """Write ``<out>/report.html`` with the figure, tables and what differs; return its path."""
    from overhead import pages, studies

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    figure(c, out)
    page = pages.Page(f"Overhead compared: {' vs '.join(c.campaigns)}")
    page.text(f"Campaigns {', '.join(c.campaigns)} (reference {c.campaigns[0]}), baseline "
              f"{c.baseline}; written {_dt.datetime.now(_dt.UTC):%Y-%m-%d %H:%M} UTC. {INTRO}")
    started = [f"{n}: first trial {s}" for n, s in c.started.items() if s]
    if started:
        page.items(started)
    page.heading("What the comparison shows")
    for p in summary_words(c):
        page.text(p)
    page.heading("What differs between the campaigns")
    page.text("The facts each environment recorded and the campaign settings that are not the "
              "same in every campaign (identical ones are left out).")
    page.table(c.differences, index=False, empty="nothing recorded differs")
    if c.refused:
        page.heading("Not compared")
        page.text("Workloads or environments that only one campaign has: comparing them would "
                  "compare different work.")
        page.items(c.refused)
    page.heading("Change of each overhead")
    page.figure(out / "changes.png", links=("svg", "pdf"))
    page.table(table(c), index=False)
    if not c.absolute.empty:
        page.heading("Absolute performance")
        page.text("Each environment's own mean in the later campaign against the reference: "
                  "the native rows say whether the machine itself changed, which the overheads "
                  "above divide out.")
        a = c.absolute
        page.table(pd.DataFrame({
            "campaign": a["campaign"], "environment": a["environment"],
            "quantity": a["benchmark"] + " " + a["quantity"], "workload": workloads_shown(a),
            f"mean in {c.campaigns[0]}": a["mean_reference"].map(lambda v: f"{v:.4g}"),
            "mean": a["mean"].map(lambda v: f"{v:.4g}"),
            "ratio [95% CI]": [pct(lo, r, hi) for lo, r, hi in
                               zip(a["ratio_low"], a["ratio"], a["ratio_high"], strict=True)],
            "verdict": a["verdict"], "n": a["n"].astype(str) + " vs " + a["n_reference"].astype(str)}),
            index=False)
    page.heading("Each campaign's overheads")
    o = c.overheads
    page.table(pd.DataFrame({
        "campaign": o["campaign"], "environment": o["environment"],
        "quantity": o["benchmark"] + " " + o["quantity"], "workload": workloads_shown(o),
        "overhead [95% CI]": [pct(lo, r, hi) for lo, r, hi in
                              zip(o["ratio_low"], o["ratio"], o["ratio_high"], strict=True)],
        "verdict": o["verdict"], "n": o["n"].astype(str) + " vs " + o["n_baseline"].astype(str)}),
        index=False)
    for stem, frame in (("changes", c.changes), ("absolute", c.absolute), ("overheads", c.overheads),
                        ("differences", c.differences)):
        frame.to_csv(out / f"{stem}.csv", index=False)
    path = page.write(out / "report.html")
    studies.register(out, kind="comparison", title=f"Overhead compared: {' vs '.join(c.campaigns)}",
                     campaign=",".join(c.campaigns))
    return path


def out_folder(campaigns: Sequence[str]) -> Path:
    """Return the default report folder of a comparison: ``figures/compare-<A>-vs-<B>``."""
    return FIGURES / ("compare-" + "-vs-".join(campaigns))


def run(campaigns: Sequence[str], *, root: str | os.PathLike[str] | None = None,
        out: str | os.PathLike[str] | None = None, baseline: str = "native",
        benchmarks: Sequence[str] | None = None,
        quantities: Sequence[Quantity | str] | None = None) -> tuple[Comparison, Path]:
    """Compare campaigns and write the report (default ``figures/compare-<A>-vs-<B>``)."""
    c = compare(campaigns, root=root, baseline=baseline, benchmarks=benchmarks,
                quantities=quantities)
    folder = Path(out) if out is not None else out_folder(c.campaigns)
    return c, report(c, folder)
