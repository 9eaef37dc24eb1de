"""RC25482 live: the paper's tables and figures from a campaign measured on this machine.

A campaign run with this project's engine (``notebooks/campaign.ipynb``, ``overhead run``) is
ingested into ``data/tidy/<campaign>/``. Each section module turns its rows into that section's
tables (``compute.live_table1``, ``network.live_tables``, ``blockio.live_tables``,
``redis.live_tables``, ``mysql.live_tables``), one comparison frame per figure, each row one
point of one environment:

- the live statistics: n trials, mean, SD, 95% CI of the mean, and against Native the percent
  difference with the interval its verdict is decided on (:func:`overhead.stats.curve`);
- beside it the authors' value for the environment the live one stands for (their Native,
  Docker, Docker NAT, KVM...), computed from their tidy data by the same section module
  (``authors_tables``), and the authors' percent difference from their Native.

What the sections share (the campaign, the authors' side, one comparison) is in
:mod:`overhead.rc25482.livedata`; this module assembles the sections: their figures
(:func:`section`), the known truths of the paper checked on the live data with their intervals
(:func:`known_truths`), every verdict (:func:`verdicts_table`) and the report
(:func:`report`, ``figures/<campaign>/report.html``).

Absolute numbers of a 2-core machine and a 32-core server do not compare; the percent
differences from native do, as far as the workloads scale. A VM that QEMU ran under TCG
(software emulation) is labelled "QEMU TCG" and set beside the authors' KVM only with the
note that emulation is not hardware virtualization: its overhead is never called a KVM
overhead.
"""

from __future__ import annotations

import datetime as _dt
import html
import os
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd

from overhead import export, stats, studies
from overhead.campaign import results
from overhead.errors import InputError
from overhead.names import BASELINE
from overhead.pages import Page, shown_path
from overhead.rc25482 import blockio, compute, mysql, network, redis
from overhead.rc25482.livedata import OPEN_LOOP, TCG_NOTE, Live, is_tidy, open_campaign

# what the sections share (the campaign, the authors' side, one comparison) is in livedata, each
# section's live tables in its section module (``live_tables``); a notebook opens a campaign here
__all__ = ["FIGURES_LIVE", "Live", "caveats", "known_truths", "open_campaign", "plot_bars",
           "plot_curves", "report", "section", "tables", "verdicts_shown", "verdicts_table", "where"]

#: The figure stems each section writes (report order).
FIGURES_LIVE = {"compute": ("table1",), "network": ("fig02", "fig03"),
                "blockio": ("fig05", "fig06", "fig07"), "redis": ("fig08", "fig09"),
                "mysql": ("fig10", "fig11", "fig12", "fig13")}


#: Display label of a campaign environment (kept under its old name for this module).
_label = results.display_label
#: What was measured where: one row per campaign environment (see the toolkit's ``where``).
where = results.where


# --- the authors' side ---------------------------------------------------------------------

# --- the live side -------------------------------------------------------------------------

# --- the known truths ----------------------------------------------------------------------

def _fmt(v: float, d: int = 2) -> str:
    return "n/a" if v is None or pd.isna(v) else f"{v:+.{d}f}"


#: The columns of :func:`known_truths`.
TRUTH_COLUMNS = ("truth", "environment", "item", "n", "measured", "interval", "verdict", "holds",
                 "why", "stopped")


def known_truths(tables: dict[str, pd.DataFrame], live: Live) -> pd.DataFrame:
    """Check the paper's findings that should hold on any machine, each as the test it is.

    Rows: truth, environment, item, n ("n/n_baseline"), measured (the ratio as a percent),
    interval (the one decided on, with its level), verdict, holds (True, False, or None where
    the data shows neither), why, stopped (why the trials stopped where they did). Checked:

    - CPU-bound work (PXZ, Linpack, STREAM Triad): Docker equivalent to native, an equivalence
      test (TOST) at the margin ``data/reference/margins.yml`` gives it (cpu-memory, +-3%):
      holds when the interval of the ratio lies inside the margin, does not hold when it lies
      wholly beyond it, and is not shown otherwise (with the trials that would decide it);
    - Docker NAT adds round-trip latency over Docker net=host (netperf RR): a one-sided test,
      the ratio's one-sided 95% lower bound (the lower end of the two-sided 90% interval) above
      1 holds; the upper bound below 1 does not hold; otherwise not shown;
    - Little's law N = X R on the live Redis and MySQL runs (mean relative residual within 10%);
    - the VM under TCG is marked as emulated: every VM run's accelerator is recorded, and no
      TCG run is labelled KVM.
    """
    rows = []
    t1 = tables.get("table1", pd.DataFrame())
    truth = "CPU-bound: Docker equivalent to native"
    for item in ("PXZ", "Linpack", "STREAM Triad"):
        sel = t1[(t1["item"] == item) & t1["environment"].str.startswith("Docker")] if not t1.empty else t1
        if sel.empty:
            rows.append({"truth": truth, "environment": "Docker", "item": item,
                         "measured": "no data", "holds": None,
                         "why": "no Docker or native runs of this workload"})
        for _, r in sel.iterrows():
            margin = _margin_words(r)
            verdict = str(r["verdict"]) if pd.notna(r["verdict"]) else "not tested"
            if verdict == "equivalent":
                holds, why = True, f"the interval lies inside the {margin} margin (TOST)"
            elif verdict in ("faster", "slower") and bool(r["beyond_margin"]):
                holds, why = False, f"{verdict}: the whole interval lies beyond the {margin} margin"
            elif verdict in ("faster", "slower"):
                holds, why = None, (f"{verdict} than native, but the interval reaches into the "
                                    f"{margin} margin: a difference, not shown to exceed it")
            elif verdict == "inconclusive":
                need = r["trials_needed"]
                holds, why = None, ("not shown: the interval holds both no difference and "
                                    f"differences beyond {margin}" + (
                                        f"; about {int(need)} trials per side would decide it"
                                        if pd.notna(need) else ""))
            else:
                holds, why = None, f"not tested: {r.get('verdict_detail') or 'too few trials'}"
            rows.append({"truth": truth, "environment": r["environment"], "item": item,
                         "n": _n(r), "measured": f"{_fmt(r['pct'])}%",
                         "interval": _interval(r), "verdict": verdict, "holds": holds,
                         "why": why, "stopped": live.stop_reasons(r.get("cells", ""), item)})
    rows += _nat_latency(live)
    for name, table in (("Redis", tables.get("redis_littles")), ("MySQL", tables.get("mysql_littles"))):
        if table is None or table.empty:
            rows.append({"truth": f"Little's law on {name}", "environment": "", "item": "",
                         "measured": "no data", "holds": None, "why": "no runs"})
            continue
        for env, g in table.groupby("environment", sort=False):
            if "pipeline" in g and (g["pipeline"] > 1).any():
                rows.append(_littles_bound(name, env, g))
                continue
            worst = g.loc[g["rel_residual_mean"].abs().idxmax()]
            holds = bool((g["rel_residual_mean"].abs() <= 0.10).all())
            rows.append({"truth": f"Little's law on {name} (|N - XR|/N <= 10%)", "environment": env,
                         "item": f"{len(g)} levels of N", "n": f"{int(g['n'].sum())} runs",
                         "measured": f"worst mean residual {100 * worst['rel_residual_mean']:+.1f}% "
                                     f"at N={worst['N']:g} (runs {100 * worst['rel_residual_min']:+.1f}"
                                     f"..{100 * worst['rel_residual_max']:+.1f}%)",
                         "holds": holds, "why": "N = X R within 10% at every level" if holds
                         else _littles_why(name, g)})
    rows.append(_tcg_marked(live))
    out = pd.DataFrame(rows).reindex(columns=list(TRUTH_COLUMNS))
    # holds is True, False or None (not shown): never a NaN that reads as a number
    out["holds"] = pd.Series([h if isinstance(h, bool) else None for h in out["holds"]],
                             index=out.index, dtype=object)
    return out


def _n(r: pd.Series) -> str:
    """Say the trials per side the verdict was read from (a sequential look's, where one was)."""
    nb = r.get("n_baseline")
    nv = r.get("n_look")
    n = int(nv) if nv is not None and pd.notna(nv) else int(r["n"])
    return f"{n}/{int(nb)}" if pd.notna(nb) else f"{n}"


def _interval(r: pd.Series, level: float = 0.95) -> str:
    if pd.isna(r["pct_low"]):
        return "none"
    lv = r.get("ratio_level")
    level = float(lv) if lv is not None and pd.notna(lv) else level
    seq = ", sequential" if abs(level - 0.95) > 1e-9 else ""
    return (f"[{_fmt(r['pct_low'])}%, {_fmt(r['pct_high'])}%] ({100 * level:.4g}%{seq}, "
            f"{r['ratio_method']})")


def _margin_words(r: pd.Series) -> str:
    lo, hi = r.get("margin_low_pct"), r.get("margin_high_pct")
    if pd.isna(lo):
        return "n/a"
    return f"\u00b1{hi:g}%" if lo == -hi else f"{lo:+g}%/{hi:+g}%"


def _littles_bound(name: str, env: str, g: pd.DataFrame) -> dict:
    """Little's law where requests are pipelined: N = connections x pipeline is an upper bound.

    A request whose reply has come back waits for the rest of its batch, and the client's own
    time between batches is in no request's latency: fewer than N requests are in flight on
    average, so the law says X R <= N (within 10%), not X R = N. A level where X R is under
    :data:`OPEN_LOOP` of N is named first: the closed loop never formed there.
    """
    share = g["xr_mean"] / g["N"]
    holds = bool((share <= 1.10).all())
    depth = "/".join(f"{d:g}" for d in sorted(g["pipeline"].dropna().unique()))
    said = (f"X R is {share.min():.0%}..{share.max():.0%} of N at the {len(g)} levels: "
            + ("at or below N at every level, as the law says with a pipeline (a request whose "
               "reply has come back waits for the rest of its pipelined batch, and the "
               "client's time between batches is in no request's latency)"
               if holds else "above N (beyond 10%) at some level: more requests in flight "
               "than the connections x pipeline the client allows, a measuring fault"))
    shut = g[share < OPEN_LOOP]
    if len(shut):
        said = _shut_words(g, shut) + "; " + said
    return {"truth": f"Little's law on {name}, pipelined (X R <= N = connections x pipeline {depth})",
            "environment": env, "item": f"{len(g)} levels of N", "n": f"{int(g['n'].sum())} runs",
            "measured": f"X R / N {share.min():.2f}..{share.max():.2f}", "holds": holds,
            "why": said}


def _shut_words(levels: pd.DataFrame, shut: pd.DataFrame) -> str:
    """Say where the closed loop never formed (X R far below N) and why, for the environment."""
    worst = shut.loc[(shut["xr_mean"] / shut["N"]).idxmin()]
    env = str(levels["environment"].iloc[0])
    why = ("QEMU's user-mode forward listens with a backlog of 1, so simultaneous "
           "connections wait seconds to be accepted, and the load generator's clock runs "
           "while they wait" if env.startswith(("QEMU", "KVM", "VM")) else
           "connections still being made, or the load generator itself the bottleneck")
    return (f"at N={worst['N']:g} X R is only {worst['xr_mean'] / worst['N']:.0%} of N: the "
            "closed loop never formed, most of the run passed with far fewer requests in "
            f"flight ({why})")


def _littles_why(name: str, levels: pd.DataFrame) -> str:
    """Say why Little's law is off by more than 10% at some level."""
    shut = levels[levels["xr_mean"] < OPEN_LOOP * levels["N"]]
    if len(shut):
        said = _shut_words(levels, shut)
        if name == "Redis" and (levels["rel_residual_mean"] > 0).all():
            said += "; at the other levels " + _littles_why(name, levels.drop(shut.index))
        return said
    if name == "Redis" and (levels["rel_residual_mean"] > 0).all():
        return ("X R stays below N = connections x pipeline depth: a request whose reply has "
                "come back waits for the rest of its pipelined batch before the client sends "
                "again, and the client's own time between batches is in no request's latency, "
                "so fewer than N requests are in flight on average (N is an upper bound here)")
    return "a level is off by more than 10% (see the residuals table)"


def _nat_latency(live: Live) -> list[dict]:
    lat = live.benchmark("netperf", "latency_mean")
    nat = [lab for lab in lat["label"].unique() if lab.startswith("Docker NAT")]
    host = [lab for lab in lat["label"].unique() if lab.startswith("Docker net=host")]
    truth = "Docker NAT adds RR latency over net=host"
    if not nat or not host:
        return [{"truth": truth, "environment": "", "item": "", "measured": "no data",
                 "holds": None, "why": "needs netperf runs in Docker NAT and net=host"}]
    rows = []
    for test in sorted(lat["p_test"].dropna().unique()):
        t = lat[lat["p_test"] == test]
        xr, yr = t[t["label"] == nat[0]], t[t["label"] == host[0]]
        x, y = xr["value"].to_numpy(float) * 1e6, yr["value"].to_numpy(float) * 1e6
        cells = ",".join(sorted(set(xr.get("cell", pd.Series(dtype=str)).dropna())
                                | set(yr.get("cell", pd.Series(dtype=str)).dropna())))
        base = {"truth": truth, "environment": f"{nat[0]} / {host[0]}", "item": test,
                "n": f"{len(x)}/{len(y)}", "stopped": live.stop_reasons(cells)}
        if not len(x) or not len(y):
            rows.append({**base, "holds": None, "why": "no runs of this test in one of the two"})
            continue
        design = _design_of(xr)
        if design is not None and "round" in xr and "round" in yr:
            # a sequential campaign: the looks of the NAT cell's design, each read off its
            # repeated interval (two-sided at its level, so each end is one-sided at half)
            from overhead.stats.sequential import replay

            sv = replay(zip(xr["round"].astype(int), x, strict=True),
                        zip(yr["round"].astype(int), y, strict=True),
                        stats.Margin.symmetric(1e-9), design, higher_is_better=False)
            iv = sv.verdict.interval
            base["n"] = f"{iv.n_x}/{iv.n_y}"
            one_sided = f"one-sided {100 * (1 - (1 - iv.level) / 2):.4g}% bounds each, sequential"
        else:
            # one-sided at 95%: the ends of the two-sided 90% interval of the ratio
            iv = stats.ratio_interval(x, y, level=0.90)
            one_sided = "one-sided 95% bounds each"
        measured = f"{_fmt(100 * (iv.ratio - 1), 1)}% (means {x.mean():.1f} vs {y.mean():.1f} us)"
        if np.isnan(iv.low):
            rows.append({**base, "measured": measured, "verdict": "not tested", "holds": None,
                         "why": f"no interval: {iv.reason}"})
            continue
        interval = f"NAT / net=host >= {iv.low:.3f} and <= {iv.high:.3f} ({one_sided}, {iv.method})"
        if iv.low > 1:
            holds, verdict, why = True, "slower", "the one-sided lower bound of the ratio lies above 1"
        elif iv.high < 1:
            holds, verdict, why = False, "faster", "the one-sided upper bound lies below 1: NAT was faster here"
        else:
            need = stats.trials_to_decide(x, y, stats.Margin.symmetric(1e-9), 0.90)
            holds, verdict = None, "inconclusive"
            why = (f"not shown: the bounds hold both no added latency and added latency (run-to-run "
                   f"spread of {np.std(x, ddof=1):.1f} and {np.std(y, ddof=1):.1f} us with "
                   f"n={len(x)}/{len(y)})"
                   + (f"; about {need} trials per side would show a difference of this size"
                      if need else ""))
        rows.append({**base, "measured": measured, "interval": interval, "verdict": verdict,
                     "holds": holds, "why": why})
    return rows


def _design_of(rows: pd.DataFrame):
    """Return the sequential design a campaign's rows were decided with (None: a fixed count)."""
    if "design" not in rows:
        return None
    texts = [t for t in rows["design"].dropna().unique() if t]
    if len(texts) != 1:
        return None
    import json

    from overhead.stats.sequential import Design

    return Design.from_json(json.loads(texts[0]))


def _tcg_marked(live: Live) -> dict:
    truth = "The VM under TCG is marked as emulated"
    prov = live.provenance
    vm = prov[prov["environment"].isin(["vm", "kvm"])] if not prov.empty else prov
    if vm.empty:
        return {"truth": truth, "environment": "", "item": "", "measured": "no VM runs",
                "holds": None, "why": "no VM in this campaign"}
    accels = vm["accelerator"].fillna("unrecorded").value_counts().to_dict()
    tcg_labels = set(live.rows.loc[live.rows["variant"].astype("string").str.contains("accel=tcg", na=False),
                                   "label"])
    mislabelled = sorted(lab for lab in tcg_labels if "KVM" in lab)
    holds = "unrecorded" not in accels and not mislabelled
    return {"truth": truth, "environment": ", ".join(sorted(tcg_labels)) or "(no TCG runs)",
            "item": "accelerator of every VM run",
            "measured": ", ".join(f"{k}: {v} runs" for k, v in accels.items()),
            "holds": holds,
            "why": ("every VM run records its accelerator; TCG runs are labelled QEMU TCG, never KVM"
                    if holds else f"unrecorded accelerator or mislabelled: {mislabelled}")}


# --- figures -------------------------------------------------------------------------------

def plot_bars(table: pd.DataFrame, title: str, *, items: list[str] | None = None):
    """Draw bars of the live means (95% CI) per item, the difference from native below.

    The lower panels give each environment's percent difference from Native: live (with its
    CI) beside the authors' (black star, with the authors' environment named where it is not
    the live one); see :func:`overhead.plots.comparison_bars`.
    """
    from overhead import plots

    return plots.comparison_bars(table, title, items=items, baseline=BASELINE,
                                 reference="authors_pct_vs_native", reference_label="authors",
                                 reference_env="authors_environment")


def plot_curves(table: pd.DataFrame, title: str, *, xlabel: str, logx: bool = True):
    """Draw per item the live curves (mean, 95% CI) over the swept parameter.

    Below them the percent difference from Native with its interval (at the level the
    verdicts used: a sequential campaign's are wider than 95%), each point filled by its
    verdict, the equivalence margin shaded, and the authors' value where they measured that
    level. The upper panel's y axis is logarithmic when the means span more than 8x.
    """
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FixedLocator, NullLocator

    from overhead import plots

    items = list(dict.fromkeys(table["item"]))
    # each panel's legend stands beside it: 2.4 inches for it
    fig, axes = plt.subplots(2, len(items), figsize=(7.4 * len(items), 6.6),
                             squeeze=False, gridspec_kw={"height_ratios": [3, 2]})
    for k, item in enumerate(items):
        rows = table[table["item"] == item]
        ax, bx = axes[0, k], axes[1, k]
        starred = False
        for env in plots.order(rows["environment"].unique()):
            r = rows[rows["environment"] == env].sort_values("x")
            c, mk = plots.colour(env), plots.marker(env)
            ax.errorbar(r["x"].astype(float), r["mean"], yerr=[r["mean"] - r["ci_low"], r["ci_high"] - r["mean"]],
                        fmt=f"-{mk}", color=c, capsize=3, label=f"{env} (n={plots.n_range(r)})")
            # a point the table marks as not measuring the workload is marked here too
            flagged = r[r["authors_note"].fillna("").str.contains("loop not closed")] \
                if "authors_note" in r else r.iloc[0:0]
            for _, p in flagged.iterrows():
                ax.annotate("loop not closed", (float(p["x"]), p["mean"]), textcoords="offset points",
                            xytext=(-6, -14), ha="right", fontsize=7, color=c)
            if env != BASELINE:
                xs = r["x"].astype(float)
                bx.errorbar(xs, r["pct"], yerr=[r["pct"] - r["pct_low"], r["pct_high"] - r["pct"]],
                            fmt="-", color=c, capsize=3)
                # each point filled by its verdict (filled differs, hollow equivalent, pale inconclusive)
                for xv, (_, p) in zip(xs, r.iterrows(), strict=True):
                    bx.plot(xv, p["pct"], mk, color=c, markeredgecolor=c, markersize=7,
                            markerfacecolor=plots.verdict_face(p.get("verdict"), c), zorder=3)
                # the authors' value only where they measured this level (not their nearest one)
                same = r["authors_x"].astype(float) == xs if "authors_x" in r else xs.notna()
                if same.fillna(False).any():
                    a = r[same.fillna(False).to_numpy(dtype=bool)]
                    bx.plot(a["x"].astype(float), a["authors_pct_vs_native"], plots.REFERENCE_MARKER,
                            color=c, markeredgecolor="black", markersize=8, linestyle="none",
                            label=None if starred else "the authors' (their level)")
                    starred = True
        levels = sorted({float(v) for v in rows["x"].dropna()})
        for a in (ax, bx):
            if logx:
                a.set_xscale("log")
            # ticks at the measured levels, written as plain numbers (a log axis would write
            # 2x10^0 and let the minor labels of 3 and 4 overprint each other)
            a.xaxis.set_major_locator(FixedLocator(levels))
            a.xaxis.set_major_formatter(plots.plain_numbers())
            a.xaxis.set_minor_locator(NullLocator())
            a.set_xlabel(xlabel)
        bx.axhline(0, color="black", linewidth=0.8)
        others = rows[rows["environment"] != BASELINE]
        margins = others[["margin_low_pct", "margin_high_pct"]].dropna().drop_duplicates() \
            if "margin_low_pct" in others else pd.DataFrame()
        for j, (lo, hi) in enumerate(margins.itertuples(index=False)):
            one = others[(others["margin_low_pct"] == lo) & (others["margin_high_pct"] == hi)]
            plots.margin_band(bx, one, scale="pct", color="0.82", alpha=0.7,
                              label="equivalence margin" if j == 0 else None)
        stars = "stars: the authors', at their levels" if starred else \
            "the authors measured none of these levels"
        bx.set_ylabel(f"% vs native\n({stars})", fontsize=8)
        if plots.symlog_if_far(bx, others):
            bx.set_ylabel(f"% vs native, linear to ±{plots.symlog_threshold(others):g} then log\n"
                          f"({stars})", fontsize=8)
        bx.set_title(f"live: {plots.interval_words(others)}", fontsize=8)
        extra = [*bx.get_legend_handles_labels()[0]]
        if others["verdict"].map(plots.verdict_kind).notna().any() if "verdict" in others else False:
            extra += plots.verdict_legend()
        if extra:
            bx.legend(handles=extra, fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0),
                      borderaxespad=0.0)
        ax.set_ylabel(rows["unit"].iloc[0])
        if plots.log_if_spread(ax, rows["mean"]):
            ax.set_ylabel(f"{rows['unit'].iloc[0]} (log scale)")
        ax.set_title(textwrap.fill(item, 40), fontsize=10)
        # beside the panel, not over it: inside, "best" still covered the VM's first points
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
    fig.suptitle(textwrap.fill(title, int(12 * fig.get_figwidth())), fontsize=11)
    fig.tight_layout()
    for ax, bx in zip(axes[0], axes[1], strict=True):  # the lower panel as wide as the upper
        top, low = ax.get_position(), bx.get_position()
        bx.set_position([top.x0, low.y0, top.width, low.height])
    return fig


def plot_throughput_latency(fig10: pd.DataFrame, fig12: pd.DataFrame, title: str):
    """Draw Fig 13: per test, throughput against mean latency.

    One curve per environment (threads increase along each curve), both with their 95% CIs,
    on logarithmic axes.
    """
    import matplotlib.pyplot as plt

    from overhead import plots

    items = list(dict.fromkeys(fig10["item"]))
    fig, axes = plt.subplots(1, len(items), figsize=(max(5.0, 5.2 * len(items)), 4.4), squeeze=False)
    keys = ["item", "environment", "x"]
    both = fig10.merge(fig12, on=keys, suffixes=("_tps", "_lat"))
    for ax, item in zip(axes[0], items, strict=True):
        rows = both[both["item"] == item]
        for env in plots.order(rows["environment"].unique()):
            r = rows[rows["environment"] == env].sort_values("x")
            ax.errorbar(r["mean_lat"], r["mean_tps"],
                        xerr=[r["mean_lat"] - r["ci_low_lat"], r["ci_high_lat"] - r["mean_lat"]],
                        yerr=[r["mean_tps"] - r["ci_low_tps"], r["ci_high_tps"] - r["mean_tps"]],
                        fmt=f"-{plots.marker(env)}", color=plots.colour(env), capsize=2, label=env)
        # both axes logarithmic: an emulated VM is an order of magnitude or two away from
        # native, which on linear axes crushes the native and container curves into a corner
        # (an interval's lower end at or below zero is clipped)
        ax.set_xscale("log", nonpositive="clip")
        ax.set_yscale("log", nonpositive="clip")
        plots.plain_log(ax.xaxis)
        plots.plain_log(ax.yaxis)
        ax.set_xlabel(f"mean latency ({rows['unit_lat'].iloc[0]}, log scale)")
        ax.set_ylabel(f"throughput ({rows['unit_tps'].iloc[0]}, log scale)")
        ax.set_title(item, fontsize=10)
        ax.legend(fontsize=7)
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    return fig


#: Per notebook section: the tables it computes and how each is drawn.
SECTIONS = ("compute", "network", "blockio", "redis", "mysql")


def section(campaign: str | os.PathLike[str], name: str, *, authors: str | os.PathLike[str],
            tidy_root: str | os.PathLike[str] | None = None,
            out_root: str | os.PathLike[str] | None = None) -> tuple[Live, dict, dict]:
    """Compute and draw everything one paper notebook shows for a campaign.

    The live tables (written as CSV) and figures (written as PNG, SVG and PDF) go into
    ``<out_root>/<campaign>/``.

    Parameters
    ----------
    campaign : str or path
        The campaign's name or YAML file.
    name : str
        One of :data:`SECTIONS`.
    authors : path
        The authors' tidy data (their tables are computed from it), or a folder of their
        tables as CSV; with such a folder the live output goes beside it
        (``<its parent>/<campaign>``) unless ``out_root`` says otherwise (default ``figures``).
    tidy_root, out_root : path, optional
        See :func:`open_campaign`.

    Returns
    -------
    (Live, dict, dict)
        The campaign, its tables (stem -> frame) and figures (stem -> matplotlib Figure).
    """
    from overhead import plots

    if name not in SECTIONS:
        raise InputError(f"section {name!r}: not one of {', '.join(SECTIONS)}")
    authors = Path(authors)
    lv = open_campaign(campaign, tidy_root=tidy_root,
                       out_root=out_root or (None if is_tidy(authors) else authors.parent),
                       authors=authors)
    accel = where(lv)["accelerator"].dropna()
    vm = f"; VM accelerator: {', '.join(sorted(set(accel)))}" if len(accel) else ""
    tag = f"live, campaign {lv.name}{vm}"
    frames: dict[str, pd.DataFrame] = {}
    figs: dict = {}
    if name == "compute":
        frames["table1"] = compute.live_table1(lv)
        figs["table1"] = lambda t: plot_bars(t, f"Table I ({tag})")
    elif name == "network":
        frames.update(network.live_tables(lv))
        figs["fig02"] = lambda t: plot_bars(t, f"Fig 2: nuttcp goodput and host CPU ({tag})")
        figs["fig03"] = lambda t: plot_bars(t, f"Fig 3: netperf RR latency ({tag})")
    elif name == "blockio":
        frames.update(blockio.live_tables(lv))
        figs["fig05"] = lambda t: plot_bars(t, f"Fig 5: sequential I/O ({tag})")
        figs["fig06"] = lambda t: plot_bars(t, f"Fig 6: random IOPS ({tag})")
        figs["fig07"] = lambda t: plot_bars(t, f"Fig 7: random-read latency percentiles ({tag})")
    elif name == "redis":
        r = redis.live_tables(lv)
        frames.update({"fig08": r["fig08"], "fig09": r["fig09"], "redis_littles": r["littles"]})
        figs["fig08"] = lambda t: plot_curves(t, f"Fig 8: Redis throughput ({tag})", xlabel="connections")
        figs["fig09"] = lambda t: plot_curves(t, f"Fig 9: Redis latency ({tag})", xlabel="connections")
    else:
        m = mysql.live_tables(lv)
        frames.update({"fig10": m["fig10"], "fig11": m["fig11"], "fig12": m["fig12"],
                       "mysql_littles": m["littles"]})
        figs["fig10"] = lambda t: plot_curves(t, f"Fig 10: MySQL throughput ({tag})", xlabel="threads")
        figs["fig11"] = lambda t: plot_curves(t, f"Fig 11: MySQL server CPU ({tag})", xlabel="threads")
        figs["fig12"] = lambda t: plot_curves(t, f"Fig 12: MySQL latency ({tag})", xlabel="threads")
    write_tables(lv, frames)
    drawn = {}
    for stem, draw in figs.items():
        if frames[stem].empty:
            continue
        drawn[stem] = draw(frames[stem])
        plots.save(drawn[stem], lv.out, stem)
    if name == "mysql" and not frames["fig10"].empty and not frames["fig12"].empty:
        drawn["fig13"] = plot_throughput_latency(frames["fig10"], frames["fig12"],
                                                 f"Fig 13: MySQL throughput vs latency ({tag})")
        plots.save(drawn["fig13"], lv.out, "fig13")
    return lv, frames, drawn


# --- the report ----------------------------------------------------------------------------

def display_table(table: pd.DataFrame) -> pd.DataFrame:
    """Return a comparison frame in words, for display.

    Per row the live mean [95% CI] (n), % vs native [CI] with the verdict and its margin, and
    the authors' value and % vs native for their counterpart.
    """
    def num(v: float) -> str:
        if pd.isna(v):
            return "n/a"
        return f"{v:.4g}" if abs(v) < 1e5 else f"{v:,.0f}"

    out = pd.DataFrame({
        "item": table["item"],
        "x": [f"{x:g}" if isinstance(x, (int, float, np.integer, np.floating)) else str(x)
              for x in table["x"]],
        "environment": table["environment"],
        "live mean [95% CI] (n)": [
            f"{md} {u}" if isinstance(md, str) and md else
            f"{num(m)} [{num(lo)}, {num(hi)}] ({int(n)}) {u}"
            for m, lo, hi, n, u, md in zip(table["mean"], table["ci_low"], table["ci_high"],
                                           table["n"], table["unit"],
                                           table.get("modes", pd.Series([""] * len(table))),
                                           strict=True)],
        "% vs native [95% CI]: verdict (margin)": [
            "baseline" if e == BASELINE else
            f"{_fmt(p, 1)} [{_fmt(lo, 1)}, {_fmt(hi, 1)}]: {v} ({_margin_words(r)})"
            for (_, r), e, p, lo, hi, v in zip(table.iterrows(), table["environment"], table["pct"],
                                               table["pct_low"], table["pct_high"],
                                               table["verdict"].fillna("not tested"), strict=True)],
        "authors (environment: value, % vs native)": [
            "-" if not isinstance(ae, str) or pd.isna(av) else
            f"{ae}: {num(av)}" + ("" if pd.isna(ap) else f", {_fmt(ap, 1)}%")
            for ae, av, ap in zip(table["authors_environment"], table["authors_value"],
                                  table["authors_pct_vs_native"], strict=True)],
        "note": table["authors_note"].fillna(""),
    })
    if (out["x"] == "").all():
        out = out.drop(columns="x")
    return out.set_index("item")


SECTION_TITLES = {
    "table1": "Table I: compute and memory (PXZ, Linpack, RandomAccess, STREAM)",
    "fig02": "Fig 2: nuttcp bulk TCP goodput, and the host's CPU during it",
    "fig03": "Fig 3: netperf round-trip latency (100-byte request, 200-byte response)",
    "fig05": "Fig 5: fio sequential throughput (1 MiB, libaio, O_DIRECT)",
    "fig06": "Fig 6: fio random IOPS (4 KiB, QD16)",
    "fig07": "Fig 7: fio random-read completion latency percentiles",
    "fig08": "Fig 8: Redis GET+SET throughput vs connections",
    "fig09": "Fig 9: Redis mean latency vs connections",
    "fig10": "Fig 10: MySQL (MariaDB) throughput vs sysbench threads",
    "fig11": "Fig 11: MySQL server CPU busy vs threads (mpstat)",
    "fig12": "Fig 12: MySQL mean latency vs threads",
    "fig13": "Fig 13: MySQL throughput against latency",
    "redis_littles": "Little's law on Redis (N = connections x pipeline)",
    "mysql_littles": "Little's law on MySQL (N = threads)",
}


def tables(live: Live) -> dict[str, pd.DataFrame]:
    """Every live table of the paper (stem -> comparison frame), computed from the rows."""
    out = {"table1": compute.live_table1(live)}
    out.update(network.live_tables(live))
    out.update(blockio.live_tables(live))
    r = redis.live_tables(live)
    out.update({"fig08": r["fig08"], "fig09": r["fig09"], "redis_littles": r["littles"]})
    m = mysql.live_tables(live)
    out.update({"fig10": m["fig10"], "fig11": m["fig11"], "fig12": m["fig12"],
                "mysql_littles": m["littles"]})
    return out


def write_tables(live: Live, frames: dict[str, pd.DataFrame]) -> list[Path]:
    """Write each frame through the exporter; return the CSV paths.

    ``<out>/<stem>.csv`` holds every column, ``.md`` and ``.tex`` the table in words
    (:func:`display_table`; the Little's-law tables as they are).
    """
    paths = []
    for stem, frame in frames.items():
        shown = frame if frame.empty or stem.endswith("littles") else display_table(frame)
        paths.append(export.write_table(frame, live.out, stem, shown=shown,
                                        caption=SECTION_TITLES.get(stem))["csv"])
    return paths


def caveats(live: Live) -> dict[str, str]:
    """Say where a live table measures something else than the paper's (stem -> sentence).

    The network figures (2, 3, 8-10, 12): a VM reached through QEMU's user-mode network is
    not the paper's bridged virtio with vhost; a Docker NAT environment's path (DNAT in the
    nat OUTPUT chain plus a MASQUERADE, or docker-proxy, for a client on the same host) is not
    the paper's, whose client was another machine.

    The block I/O figures (5-7): a fio file under 1 GiB is served largely from the caches
    under the file system, so the figures compare I/O paths rather than a device.

    Table I: HPCC sizes STREAM's arrays from HPL's matrix (its STREAM_VectorSize, a third of
    8 N^2 / np bytes per process), so a small N puts them inside the caches and STREAM then
    measures cache bandwidth, not the memory bandwidth of the paper (STREAM's own rule: each
    array at least four times the last-level cache).
    """
    out = {}
    vm = where(live)
    nets = [str(v) for v in vm.get("vm_network", pd.Series(dtype=object)).dropna()]
    if any("slirp" in v for v in nets):
        said = ("The VM's server is reached through QEMU's user-mode network (slirp: a TCP/IP "
                "stack inside the QEMU process forwarding host ports, listening with a backlog "
                "of 1), not the bridged virtio with vhost of the paper: the VM's network "
                "numbers include that user-space path.")
        for stem in ("fig02", "fig03", "fig08", "fig09", "fig10", "fig12"):
            out[stem] = said
    nat = [f"{r['label']}: {r['nat_path']}" for _, r in vm.iterrows()
           if isinstance(r.get("nat_path"), str) and not r["nat_path"].startswith("none")]
    if nat:
        said = ("The Docker NAT numbers took this path: " + "; ".join(nat) + ". The paper's "
                "client was another machine, its packets DNATed in PREROUTING and not "
                "masqueraded.")
        for stem in ("fig02", "fig03", "fig08", "fig09", "fig10", "fig12"):
            out[stem] = f"{out[stem]} {said}" if stem in out else said
    fio = live.rows[live.rows["benchmark"].astype("string").str.startswith("fio", na=False)]
    if "p_size" in fio and fio["p_size"].notna().any():
        from overhead.errors import ParseError
        from overhead.parsers._common import size_bytes

        small = []
        for v in sorted({str(v) for v in fio["p_size"].dropna()}):
            try:  # fio's own notation: 16m, 4k, 16g (k = 1024)
                if size_bytes(v, "campaign", None, "fio size") < 2**30:
                    small.append(v)
            except ParseError:
                continue  # not a size fio states plainly: nothing to say about it
        if small:
            said = (f"fio's file here is {', '.join(small)} (the paper's was 16 GB): the runs read "
                    "and write it over and over, so whatever caches lie under the file system "
                    "(the host's disk cache; on a cloud machine the hypervisor's below it) serve "
                    "much of it even with O_DIRECT. These figures compare the I/O paths of the "
                    "environments, not a device.")
            for stem in ("fig05", "fig06", "fig07"):
                out[stem] = said
    stream = live.benchmark("hpcc", "bandwidth", p_kernel="triad", p_scope="star")
    if "p_vector_size" in stream and stream["p_vector_size"].notna().any():
        words = sorted({int(v) for v in stream["p_vector_size"].dropna()})
        said = ", ".join(f"{8 * v / 2**20:.2f} MiB" for v in words)
        out["table1"] = (f"STREAM's arrays here are {said} each per process (HPCC sizes them from "
                         "HPL's N). Unless each array is at least four times the last-level "
                         "cache, STREAM measures cache bandwidth, not the memory bandwidth the "
                         "paper measured; the paper profile sizes N to fill the memory.")
    return out


def _missing_points(frame: pd.DataFrame | None) -> str | None:
    """Say which environments lack a point of a curve that native has (a campaign's skip)."""
    if frame is None or frame.empty or "x_name" not in frame or not (frame["x_name"] != "").any():
        return None
    said = []
    for item, rows in frame.groupby("item", sort=False):
        base = set(rows.loc[rows["environment"] == BASELINE, "x"])
        for env, r in rows.groupby("environment", sort=False):
            lost = sorted(base - set(r["x"]), key=float)
            if env != BASELINE and lost:
                said.append(f"{env} at {', '.join(f'{float(v):g}' for v in lost)}"
                            + (f" ({item})" if frame["item"].nunique() > 1 else ""))
    if not said:
        return None
    return ("Not measured: " + "; ".join(said) + ". The campaign leaves these points out "
            "(an environment's skip: in the campaign file says why), so they have no verdict.")


#: The columns of :func:`verdicts_table`.
VERDICTS_COLUMNS = ("figure", "item", "x", "environment", "n", "n_baseline", "pct", "pct_low",
                    "pct_high", "ratio_level", "ratio_method", "margin", "margin_low_pct",
                    "margin_high_pct", "verdict", "trials_needed", "verdict_detail", "stopped")


def verdicts_shown(verdicts: pd.DataFrame) -> pd.DataFrame:
    """Return :func:`verdicts_table` as a page shows it: one cell per comparison's interval.

    The table's 17 columns (what the CSV keeps) are too wide for a page and say each verdict
    twice (its columns and ``verdict_detail``); shown: figure, item, x where any row has one,
    environment, n per side, the percent difference from native with the 95% interval the
    verdict is decided on and its method, the margin, the verdict (with about how many trials
    per side would decide an inconclusive one) and why the trials stopped.
    """
    if verdicts.empty:
        return verdicts

    def n(a: object, b: object) -> str:
        return "/".join("-" if pd.isna(v) else str(int(v)) for v in (a, b))

    def diff(p: float, lo: float, hi: float, how: object) -> str:
        said = results.pct_words(p, lo, hi)
        return said + (f" {how}" if pd.notna(p) and pd.notna(lo) and isinstance(how, str) and how else "")

    def verdict(v: object, need: float) -> str:
        return f"{v}; about {int(need)} trials per side would decide it" \
            if v == "inconclusive" and pd.notna(need) else str(v)

    out = pd.DataFrame({"figure": verdicts["figure"], "item": verdicts["item"].fillna("")})
    xs = verdicts["x"]
    if (xs.notna() & xs.astype(str).ne("")).any():  # "" or NaN: no swept parameter
        out["x"] = ["" if pd.isna(x) else f"{x:g}" if isinstance(x, float) else str(x) for x in xs]
    out["environment"] = verdicts["environment"]
    out["n"] = [n(a, b) for a, b in zip(verdicts["n"], verdicts["n_baseline"], strict=True)]
    levels = verdicts["ratio_level"] if "ratio_level" in verdicts else pd.Series(0.95, index=verdicts.index)
    how = [m if pd.isna(lv) or abs(float(lv) - 0.95) < 1e-9 else f"{m}, {100 * float(lv):.4g}% sequential"
           for m, lv in zip(verdicts["ratio_method"], levels, strict=True)]
    out[f"vs {BASELINE} [interval decided on]"] = [
        diff(*r) for r in zip(verdicts["pct"], verdicts["pct_low"], verdicts["pct_high"], how,
                              strict=True)]
    out["margin"] = verdicts["margin"].fillna("-")
    out["verdict"] = [verdict(v, k) for v, k in zip(verdicts["verdict"], verdicts["trials_needed"],
                                                     strict=True)]
    out["stopped"] = verdicts["stopped"].fillna("")
    return out


def verdicts_table(frames: dict[str, pd.DataFrame], live: Live) -> pd.DataFrame:
    """Every comparison of the live tables with native, in one table.

    Parameters
    ----------
    frames : dict
        The live tables (stem -> comparison frame, :func:`tables`).
    live : Live
        The campaign (its plan says why each cell's trials stopped).

    Returns
    -------
    pandas.DataFrame
        :data:`VERDICTS_COLUMNS`: figure, item, x, environment, n, n_baseline, the percent
        difference with the 95% interval the verdict is decided on (ratio_method), the margin,
        the verdict, the trials per side that would decide an inconclusive one, the verdict in
        words, and why the trials stopped where they did (the stopping rule's record of the
        cells the comparison's trials come from).
    """
    parts = []
    for stem, frame in frames.items():
        if frame is None or frame.empty or "verdict" not in frame:
            continue
        f = frame[frame["environment"] != BASELINE]
        if f.empty:
            continue
        parts.append(pd.DataFrame({
            "figure": stem, "item": f["item"], "x": f["x"], "environment": f["environment"],
            "n": f["n_look"].fillna(f["n"]) if "n_look" in f else f["n"],
            "n_baseline": f["n_baseline"], "pct": f["pct"], "pct_low": f["pct_low"],
            "pct_high": f["pct_high"],
            "ratio_level": f["ratio_level"] if "ratio_level" in f else 0.95,
            "ratio_method": f["ratio_method"],
            "margin": [_margin_words(r) for _, r in f.iterrows()],
            "margin_low_pct": f["margin_low_pct"], "margin_high_pct": f["margin_high_pct"],
            "verdict": f["verdict"].fillna("not tested"), "trials_needed": f["trials_needed"],
            "verdict_detail": f["verdict_detail"],
            "stopped": [live.stop_reasons(c, i) for c, i in
                        zip(f.get("cells", pd.Series("", index=f.index)), f["item"], strict=True)]}))
    if not parts:
        return pd.DataFrame(columns=list(VERDICTS_COLUMNS))
    return pd.concat(parts, ignore_index=True)[list(VERDICTS_COLUMNS)]


def report(live: Live, frames: dict[str, pd.DataFrame] | None = None) -> Path:
    """Write ``figures/<campaign>/report.html``.

    Where it was measured, the known truths, then table by table the live numbers with their
    CIs beside the authors', with the live figures the notebooks drew (a figure not drawn yet
    is named as missing).
    """
    frames = frames if frames is not None else tables(live)
    truths = known_truths(frames, live)
    export.write_table(truths, live.out, "known_truths", formats=("csv",))
    w = where(live)
    page = Page(f"RC25482 live: {live.name}", heading=f"RC25482 live: campaign {live.name}")
    page.text(f"Written {_dt.datetime.now(_dt.UTC):%Y-%m-%d %H:%M} UTC from campaign {live.name} "
              f"({shown_path(live.tidy)}); the authors' values from {shown_path(live.authors)}. Absolute values of this machine and the "
              "authors' 32-core server do not compare; the percent differences from native do, "
              "as far as the workloads scale.")
    results.where_section(page, w)
    if w["accelerator"].fillna("").str.contains("tcg").any():
        page.raw(f"<p><b>The VM ran under TCG (software emulation).</b> {html.escape(TCG_NOTE)}.</p>")
    page.raw("\n".join(results.noise_html(live)))
    page.raw("\n".join(results.spending_html(live)))
    words = truths.assign(holds=[{True: "holds", False: "DOES NOT HOLD"}.get(h, "not shown")
                                 for h in truths["holds"]])
    page.heading("Known truths")
    page.raw("<p>The paper's findings that should hold on any machine, each checked as the test "
             "it is: a sameness claim as an equivalence test at the margin "
             "<code>data/reference/margins.yml</code> gives it (it holds only when the whole "
             "interval lies inside the margin), a claim of added latency as a one-sided test. "
             "Each row gives n, the interval decided on, the verdict and why the trials stopped "
             "where they did; a claim the data neither shows nor refutes says \"not shown\" and "
             "how many trials would decide it.</p>")
    page.table(words, index=False)
    verdicts = verdicts_table(frames, live)
    export.write_table(verdicts, live.out, "verdicts", formats=("csv",))
    counts = verdicts["verdict"].value_counts()
    rule = live.plan.get("decisions")
    page.heading("Verdicts: every comparison with native")
    page.raw("<p>Each environment against native on every quantity of the tables below: n per "
             "side, the percent difference with the 95% interval the verdict is decided on "
             "(Fieller's, or log-t where Fieller's has no finite bounds; chosen by simulation, "
             "docs/coverage.md), the equivalence margin, the verdict, and why the trials "
             "stopped. <i>equivalent</i>: the interval lies inside the margin; <i>faster</i> / "
             "<i>slower</i> (<i>higher</i> / <i>lower</i> where neither is better): it excludes "
             "no difference; <i>inconclusive</i>: it holds both no difference and differences "
             "beyond the margin. A non-significant difference is never read as sameness. "
             + ("The campaign's stopping rule looked at its comparisons at planned trial "
                "counts and stopped each at its first deciding look: each such verdict is read "
                "off that look's sequential interval (its level is the look's share of the 5% "
                "error rate, said in the verdict's words), so that over every look a false "
                "difference or a false equivalence stays at or below 5%; every other quantity "
                "of the same trials is read at the same looks." if rule else
                "The campaign ran a fixed number of trials.")
             + "</p>")
    page.text(", ".join(f"{int(v)} {k}" for k, v in counts.items()))
    page.table(verdicts_shown(verdicts), index=False)
    notes = caveats(live)
    for stem, frame in frames.items():
        gap = _missing_points(frame)
        if gap:
            notes[stem] = f"{notes[stem]} {gap}" if stem in notes else gap
    for stem, title in SECTION_TITLES.items():
        frame = frames.get(stem)
        page.heading(title)
        if stem in notes:
            page.raw(f"<p class='caveat'><b>Caveat.</b> {html.escape(notes[stem])}</p>")
        png = live.out / f"{stem}.png"
        if png.exists():
            page.figure(png)
        elif stem not in ("redis_littles", "mysql_littles"):
            page.text(f"figure {stem}.png not drawn yet (run the section's notebook with this "
                      "campaign)", cls="missing")
        if stem == "fig13":
            page.text("Fig 13 is drawn from the rows of Figs 10 and 12.")
            continue
        if frame is None or frame.empty:
            page.table(None, empty="no live data for this table")
        elif stem.endswith("littles"):
            page.table(frame, index=False)
        else:
            page.table(display_table(frame))
    path = page.write(live.out / "report.html")
    studies.register(live.out, kind="campaign", title=page.title, tidy=live.tidy,
                     campaign=live.name, inputs=[live.authors])
    return path
