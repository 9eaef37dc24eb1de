"""History: many campaigns in order, each overhead's trend, and where it changed.

Campaigns of the same workload measured over time (or over kernels, Docker or QEMU versions)
are put in order: by the time of their first trial, or by a fact their baseline environment
recorded (``kernel``, ``docker_version``; versions in natural order, 6.1.10 after 6.1.9).
For every judged quantity, workload and environment, the series of overheads (each campaign's
ratio to its own native, with its 95% interval) is searched for steps with ruptures' PELT
(cost l2 on the log of the ratio, minimum segment one campaign, penalty 2 sigma^2 log n with
sigma the larger of the campaigns' own standard errors and the robust spread of successive
differences, so that neither the trials' noise nor day-to-day drift alone makes a step).
A step found is then *confirmed* by the verdicts: the ratio of ratios of the campaign after
it to the one before (:mod:`overhead.stats.between`) must be a difference (faster/slower)
on the quantity's margin; a step the verdict does not confirm is shown as unconfirmed, never
as a change.
"""

from __future__ import annotations

import datetime as _dt
import math
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from overhead.compare import Quantity, compare
from overhead.errors import InputError
from overhead.paths import FIGURES

__all__ = ["History", "change_points", "history", "order_campaigns", "report", "run"]

#: Verdicts that confirm a step.
_DIFFERS = ("faster", "slower", "higher", "lower")


def _natural(value: object) -> tuple:
    """Sort key that orders version strings naturally (digits as numbers)."""
    parts = re.split(r"(\d+)", str(value))
    return tuple((0, int(p)) if p.isdigit() else (1, p) for p in parts)


def order_campaigns(store, names: Sequence[str], by: str = "started", *,
                    environment: str = "native") -> list[tuple[str, object]]:
    """Return ``(campaign, key)`` in order of ``by``: "started" or a fact of ``environment``.

    Raises
    ------
    InputError
        When a campaign has no value for the fact (naming it), so that no campaign is placed
        by a guess.
    """
    import json

    keyed = []
    for name in names:
        if by == "started":
            key = store.con.execute("SELECT min(started_at) FROM trials WHERE campaign = ?",
                                    [name]).fetchone()[0]
        else:
            path = store.campaigns[name].folder / "facts.json"
            facts = json.loads(path.read_text()) if path.is_file() else {}
            key = (facts.get(environment) or {}).get(by)
        if by == "started" and key is not None:
            key = f"{key:%Y-%m-%d %H:%M:%S}" if hasattr(key, "strftime") else str(key)[:19]
        if key is None:
            raise InputError(f"campaign {name}: no {by!r} recorded"
                             + (f" for {environment}" if by != "started" else "")
                             + " to order it by")
        keyed.append((name, key))
    return sorted(keyed, key=lambda nk: (_natural(nk[1]), nk[0]))


def change_points(log_ratios: Sequence[float], se: Sequence[float]) -> tuple[list[int], float]:
    """Find steps in a series of log ratios with PELT; return (indices where a new level starts, pen).

    Parameters
    ----------
    log_ratios : sequence of float
        The series in order.
    se : sequence of float
        Each point's standard error (NaN where unknown).

    Returns
    -------
    (list of int, float)
        Index i means the level changes between point i-1 and point i; the penalty used.
    """
    import ruptures as rpt

    y = np.asarray(log_ratios, dtype=float)
    n = y.size
    if n < 3 or not np.isfinite(y).all():
        return [], math.nan
    s = np.asarray(se, dtype=float)
    within = float(np.nanmedian(s ** 2)) if np.isfinite(s).any() else 0.0
    d = np.diff(y)
    mad = 1.4826 * float(np.median(np.abs(d - np.median(d)))) / math.sqrt(2)
    sigma2 = max(within, mad ** 2, 1e-12)
    pen = 2.0 * sigma2 * math.log(n)
    ends = rpt.Pelt(model="l2", min_size=1, jump=1).fit(y.reshape(-1, 1)).predict(pen=pen)
    return [int(e) for e in ends[:-1]], pen


@dataclass
class History:
    """The trends of a series of campaigns (see the module text).

    Attributes
    ----------
    campaigns : list of (str, object)
        In order, with the key they were ordered by.
    by : str
        What they were ordered by.
    series : pandas.DataFrame
        One row per campaign, quantity, workload and environment: position, key, ratio,
        ratio_low, ratio_high, n, n_baseline, verdict (against its own native).
    steps : pandas.DataFrame
        One row per step found: quantity, workload, environment, before, after (campaigns),
        pct, pct_low, pct_high (the ratio of ratios after/before), verdict, confirmed.
    refused : list of str
        What was not compared (workloads one campaign lacks).
    """

    campaigns: list[tuple[str, object]]
    by: str
    baseline: str
    series: pd.DataFrame
    steps: pd.DataFrame
    refused: list[str] = field(default_factory=list)


def history(campaigns: Sequence[str] | None = None, *, store=None,
            root: str | os.PathLike[str] | None = None, by: str = "started",
            baseline: str = "native", benchmarks: Sequence[str] | None = None,
            quantities: Sequence[Quantity | str] | None = None, margins=None) -> History:
    """Order campaigns, follow every overhead through them and find the steps (module text).

    Parameters
    ----------
    campaigns : sequence of str, optional
        At least three ingested campaigns (default: every measured campaign of the store).
    by : str
        "started" or a fact of the baseline environment (``kernel``, ``docker_version``).
    baseline, benchmarks, quantities, margins
        As :func:`overhead.compare.compare`.

    Raises
    ------
    InputError
        Fewer than three campaigns, or a campaign that cannot be ordered.
    """
    from overhead.store import Store

    store = store or Store(root, campaigns)
    names = list(campaigns) if campaigns is not None else store.names(measured=True)
    if len(names) < 3:
        raise InputError(f"a history needs three or more campaigns, got {', '.join(names) or 'none'}")
    ordered = order_campaigns(store, names, by, environment=baseline)
    order = [n for n, _ in ordered]
    position = {n: i for i, n in enumerate(order)}
    keys = dict(ordered)
    # each campaign against its predecessor: every overhead, and the change between neighbours
    pairs = [compare([a, b], store=store, baseline=baseline, benchmarks=benchmarks,
                     quantities=quantities, margins=margins)
             for a, b in zip(order, order[1:], strict=False)]
    over = pd.concat([p.overheads for p in pairs], ignore_index=True).drop_duplicates(
        ["campaign", "quantity", "benchmark", "workload", "environment"])
    over = over.assign(position=over["campaign"].map(position),
                       key=over["campaign"].map(lambda c: str(keys[c])))
    over = over.sort_values(["benchmark", "quantity", "workload", "environment", "position"],
                            kind="stable").reset_index(drop=True)
    changes = pd.concat([p.changes for p in pairs if not p.changes.empty], ignore_index=True) \
        if any(not p.changes.empty for p in pairs) else pd.DataFrame()
    refused = list(dict.fromkeys(r for p in pairs for r in p.refused))
    steps = []
    for (bench, qname, wk, env), s in over.groupby(["benchmark", "quantity", "workload", "environment"],
                                                   sort=False):
        s = s.sort_values("position")
        if len(s) < 3:
            continue
        lr = np.log(s["ratio"].to_numpy(dtype=float))
        # a noise scale for the penalty: the SE of log r from its 95% interval's log width
        # over 2 x 1.96 (at small n the t quantile is larger, so this errs high: fewer steps)
        width = np.log(s["ratio_high"].to_numpy(dtype=float)) - np.log(
            np.clip(s["ratio_low"].to_numpy(dtype=float), 1e-300, None))
        se = width / (2 * 1.96)
        found, pen = change_points(lr, se)
        camps = s["campaign"].tolist()
        for i in found:
            before, after = camps[i - 1], camps[i]
            row = changes[(changes["reference"] == before) & (changes["campaign"] == after)
                          & (changes["benchmark"] == bench) & (changes["quantity"] == qname)
                          & (changes["workload"] == wk) & (changes["environment"] == env)] \
                if not changes.empty else changes
            if row.empty:
                continue
            r = row.iloc[0]
            steps.append({"benchmark": bench, "quantity": qname, "workload": wk, "environment": env,
                          "before": before, "after": after, "pct": r["pct"], "pct_low": r["pct_low"],
                          "pct_high": r["pct_high"], "verdict": r["verdict"], "n": r["n"],
                          "confirmed": r["verdict"] in _DIFFERS, "penalty": pen,
                          "detail": r["detail"]})
    return History(ordered, by, baseline, over, pd.DataFrame(steps), refused)


def figure(h: History, out: str | os.PathLike[str], name: str = "history") -> list[Path]:
    """Draw every series: overhead per campaign with its 95% CI, steps marked (PNG/SVG/PDF)."""
    import matplotlib.pyplot as plt

    from overhead import plots
    from overhead.compare import workloads_shown

    if h.series.empty:
        return []
    plots.theme()
    s = h.series.assign(shown=workloads_shown(h.series))
    groups = list(s.groupby(["benchmark", "quantity", "shown", "environment"], sort=False))
    cols = min(3, len(groups))
    rows = math.ceil(len(groups) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.0 * rows), squeeze=False,
                             sharex=True)
    labels = [f"{n}\n{k}" if h.by != "started" else n for n, k in h.campaigns]
    for ax, ((bench, qname, shown, env), g) in zip(axes.flat, groups, strict=False):
        g = g.sort_values("position")
        pct = 100 * (g["ratio"] - 1)
        lo = 100 * (g["ratio"] - g["ratio_low"])
        hi = 100 * (g["ratio_high"] - g["ratio"])
        ax.errorbar(g["position"], pct, yerr=[lo, hi], fmt="o-", ms=4, lw=1, capsize=3)
        ax.axhline(0, color="0.4", lw=0.7)
        mine = h.steps[(h.steps["benchmark"] == bench) & (h.steps["quantity"] == qname)
                       & (h.steps["environment"] == env)] if not h.steps.empty else h.steps
        for st in mine.itertuples():
            if st.workload not in set(g["workload"]):
                continue
            x = [p for n, p in zip(g["campaign"], g["position"], strict=True) if n == st.after]
            if x:
                ax.axvline(x[0] - 0.5, color="#D55E00" if st.confirmed else "0.5",
                           ls="--" if st.confirmed else ":", lw=1.4)
        ax.set_title(f"{env} · {bench} {qname} {shown}".strip(), fontsize=8)
        ax.set_ylabel("overhead vs native (%)", fontsize=8)
        ax.tick_params(labelsize=7)
    for ax in axes.flat[len(groups):]:
        ax.set_visible(False)
    for c in range(cols):  # the campaigns under the lowest drawn panel of each column
        lowest = max(r for r in range(rows) if r * cols + c < len(groups))
        ax = axes[lowest][c]
        ax.set_xticks(range(len(labels)))
        ax.set_xticklabels(labels, rotation=30, ha="right", fontsize=7)
        ax.tick_params(labelbottom=True)
    fig.suptitle(f"Overheads across {len(h.campaigns)} campaigns (ordered by {h.by}), 95% CI; dashed: a "
                 "step confirmed by its verdict, dotted: found but not confirmed", fontsize=9)
    # the panels right under the title (without this, a fixed-fraction gap grows with the rows)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.4 / fig.get_figheight()))
    paths = plots.save(fig, out, name)
    plt.close(fig)
    return paths


def step_words(h: History) -> list[str]:
    """Say every step found and whether its verdict confirms it, from the table."""
    if h.steps.empty:
        return [f"No step found in any of {h.series.groupby(['benchmark', 'quantity', 'workload', 'environment']).ngroups} "
                f"series over {len(h.campaigns)} campaigns."]
    from overhead.compare import workloads_shown

    out = []
    shown = workloads_shown(h.series.drop_duplicates(["benchmark", "workload"]))
    words_of = dict(zip(h.series.drop_duplicates(["benchmark", "workload"])["workload"], shown,
                        strict=True))
    for r in h.steps.itertuples():
        wl = words_of.get(r.workload, "")
        said = (f"{r.environment}, {r.benchmark} {r.quantity}{' ' + wl if wl else ''}: a step between {r.before} and "
                f"{r.after}, the overhead moved {r.pct:+.1f}% [{r.pct_low:+.1f}, {r.pct_high:+.1f}] "
                f"(n {r.n}): ")
        said += ("confirmed, " + r.verdict if r.confirmed else
                 f"not confirmed (verdict {r.verdict}): treat it as noise until more campaigns say otherwise")
        out.append(said + ".")
    return out


def report(h: History, out: str | os.PathLike[str]) -> Path:
    """Write ``<out>/report.html``: the figure, the steps and every series; return its path."""
    from overhead import pages, studies
    from overhead.compare import pct, workloads_shown

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    figure(h, out)
    names = [n for n, _ in h.campaigns]
    page = pages.Page(f"History of {len(names)} campaigns")
    page.text(f"Campaigns in order of {h.by}: "
              + ", ".join(f"{n} ({k})" for n, k in h.campaigns)
              + f"; baseline {h.baseline}; written {_dt.datetime.now(_dt.UTC):%Y-%m-%d %H:%M} UTC. "
              "Each point is one campaign's overhead (its ratio to its own native run) with its "
              "95% interval. Steps are found by PELT (ruptures) on the log of the overheads and "
              "confirmed only when the ratio of ratios across the step is a difference on the "
              "quantity's margin (data/reference/margins.yml).")
    page.heading("Steps")
    for p in step_words(h):
        page.text(p)
    page.figure(out / "history.png", links=("svg", "pdf"))
    if h.refused:
        page.heading("Not compared")
        page.items(h.refused)
    page.heading("Every overhead in order")
    s = h.series
    page.table(pd.DataFrame({
        "campaign": s["campaign"], "key": s["key"], "environment": s["environment"],
        "quantity": s["benchmark"] + " " + s["quantity"], "workload": workloads_shown(s),
        "overhead [95% CI]": [pct(lo, r, hi) for lo, r, hi in
                              zip(s["ratio_low"], s["ratio"], s["ratio_high"], strict=True)],
        "verdict": s["verdict"], "n": s["n"].astype(str) + " vs " + s["n_baseline"].astype(str)}),
        index=False)
    s.to_csv(out / "series.csv", index=False)
    h.steps.to_csv(out / "steps.csv", index=False)
    path = page.write(out / "report.html")
    studies.register(out, kind="comparison", title=f"History of {len(names)} campaigns",
                     campaign=",".join(names))
    return path


def run(campaigns: Sequence[str] | None = None, *, root: str | os.PathLike[str] | None = None,
        out: str | os.PathLike[str] | None = None, by: str = "started", baseline: str = "native",
        benchmarks: Sequence[str] | None = None,
        quantities: Sequence[Quantity | str] | None = None) -> tuple[History, Path]:
    """Build the history and write its report (default ``figures/history``)."""
    h = history(campaigns, root=root, by=by, baseline=baseline, benchmarks=benchmarks,
                quantities=quantities)
    return h, report(h, Path(out) if out is not None else FIGURES / "history")

