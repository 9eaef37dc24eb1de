"""What the three seed studies share.

A campaign opened as a study, the published values beside the measured ones, every
comparison with its baseline decided as a verdict (:func:`compare`, :func:`decided`), a figure
per table (static and plotly) and the study's report page.

A study's campaign is measured by the engine like any other (``overhead run``, the campaign
notebook) and read with :func:`overhead.campaign.results.open_results`; its output goes to
``figures/<study>/`` (tables as CSV, figures as PNG, SVG, PDF and plotly HTML, report.html).
The published values are ``data/reference/<study>.csv`` (:func:`overhead.reference.published`),
each with the seed line it was read from; a measured row carries the published row it stands
beside in ``published_*`` columns, and the source goes with it into every table.

Every comparison with a baseline ends in a verdict (:mod:`overhead.stats.verdicts`): decided on
one printed 95% interval of the ratio of means (environment / baseline) against an equivalence
margin read from ``data/reference/margins.yml`` (:func:`margin_of`), and shown with n, that
interval and the margin wherever the study prints it (:func:`display`, the report).
"""

from __future__ import annotations

import datetime as _dt
import html
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from overhead import export, margins, reference, stats, studies
from overhead.campaign import results
from overhead.errors import InputError
from overhead.export import labelled
from overhead.names import BASELINE
from overhead.pages import Page, shown_path
from overhead.paths import FIGURES, REFERENCE_DATA

TCG_NOTE = ("The VM ran under QEMU TCG (software emulation): the host's KVM module here is "
            "kvm_pvm, under which a stock guest kernel hangs at boot. Its numbers are an "
            "emulator's, never a KVM (or VirtualBox) overhead")
#: The published-value columns a comparison table carries (filled where a published row
#: stands beside the measured one).
PUBLISHED = ("published_env", "published_value", "published_unit", "published_pct_vs_baseline",
             "published_source", "published_printed", "published_printed_unit")
#: A unit as the seeds print it -> (the unit the tables use, factor to it). sysbench 0.4's
#: "Mb/sec" and hdparm's "MB/sec" are MiB/s (both count 2^20 bytes), ab's "Kbytes/sec" KiB/s.
#: The level of every interval a study prints (and decides on).
LEVEL = 0.95
#: The verdict columns a comparison row carries (:func:`decided`; :func:`compare` has them
#: among :data:`overhead.stats.CURVE_COLUMNS`).
DECIDED = ("n", "n_baseline", "ratio", "ratio_low", "ratio_high", "ratio_method", "ci_level",
           "margin_low_pct", "margin_high_pct", "margin_reason", "p_difference", "p_equivalence",
           "verdict", "beyond_margin", "trials_needed", "verdict_detail")
UNITS = {"Mb/sec": ("MiB/s", 1.0), "Kb/sec": ("MiB/s", 1 / 1024), "Gb/sec": ("MiB/s", 1024.0),
         "MB/sec": ("MiB/s", 1.0), "Kbytes/sec": ("KiB/s", 1.0), "#/sec": ("req/s", 1.0),
         "requests/sec": ("req/s", 1.0), "ops/sec": ("ops/s", 1.0), "ms": ("ms", 1.0),
         "s": ("s", 1.0), "us": ("us", 1.0), "requests": ("requests", 1.0)}


@dataclass
class Study:
    """A seed study's campaign, its published values and where its output goes."""

    study: str
    res: results.Results
    published: pd.DataFrame
    notes: list[str] = field(default_factory=list)

    @property
    def out(self) -> Path:
        """The study's output folder (``figures/<study>``)."""
        return self.res.out

    @property
    def rows(self) -> pd.DataFrame:
        """The campaign's measured rows (done, non-warm-up trials), with unique labels."""
        return self.res.rows

    def benchmark(self, name: str, metric: str | tuple[str, ...], **where: object) -> pd.DataFrame:
        """Rows of one benchmark and metric(s), filtered on column values."""
        return self.res.benchmark(name, metric, **where)


def _unique_labels(res: results.Results) -> None:
    """Give each campaign environment a label of its own, in place.

    Two environments of one kind (the VM with cache=none and with writeback) get the same
    display label from their kind; each of them then gets its campaign name added
    ("QEMU TCG untuned (vm-writeback)"), so that no two are pooled and none is mistaken for
    the other.
    """
    rows = res.rows
    if rows.empty:
        return
    pairs = rows[["env_name", "label"]].drop_duplicates()
    shared = pairs["label"].duplicated(keep=False)
    new = {e: (f"{lab} ({e})" if dup else lab)
           for e, lab, dup in zip(pairs["env_name"], pairs["label"], shared, strict=True)}
    rows["label"] = rows["env_name"].map(new).astype(object)


def open_study(study: str, campaign: str | os.PathLike[str], *,
               tidy_root: str | os.PathLike[str] | None = None,
               out: str | os.PathLike[str] | None = None) -> Study:
    """Open a seed study's ingested campaign.

    Parameters
    ----------
    study : str
        The study (``startup``, ``fsync``, ``sysbench_suite``): its published values are
        ``data/reference/<study>.csv``.
    campaign : str or path
        The campaign's name or YAML file.
    tidy_root : path, optional
        The folder of tidy trees (default ``data/tidy``).
    out : path, optional
        The output folder (default ``figures/<study>``).

    Returns
    -------
    Study
    """
    res = results.open_results(campaign, tidy_root=tidy_root,
                               out=out if out is not None else FIGURES / study)
    _unique_labels(res)
    # a study of the project's own (containers-2026) has no published values: none stand beside
    pub = (reference.published(study) if (REFERENCE_DATA / f"{study}.csv").is_file()
           else pd.DataFrame(columns=["item", "metric", "env", "value", "value_text",
                                      "value_parsed", "unit", "source"]))
    return Study(study, res, pub)


def has_published(pub: pd.DataFrame, metric: str, env: str | None) -> bool:
    """Whether the published values have a row of ``metric`` for ``env`` (None: no)."""
    return env is not None and bool(((pub["metric"] == metric) & (pub["env"] == env)).any())


def published_row(pub: pd.DataFrame, metric: str, env: str, item: str | None = None) -> pd.Series:
    """Return the one published row of (item, metric, env), naming what is missing if none.

    Raises
    ------
    InputError
        When no row, or more than one, matches: a study's lookup names a value the reference
        file must have.
    """
    sel = pub[(pub["metric"] == metric) & (pub["env"] == env)]
    if item is not None:
        sel = sel[sel["item"] == item]
    if len(sel) != 1:
        raise InputError(f"data/reference: {len(sel)} published rows for item={item!r}, "
                         f"metric={metric!r}, env={env!r} (want exactly one)")
    return sel.iloc[0]


def attach(table: pd.DataFrame, pub: pd.DataFrame,
           key: Callable[[pd.Series], tuple[str | None, str, str, str] | None],
           baseline_key: Callable[[pd.Series], tuple[str | None, str, str] | None] | None = None,
           ) -> pd.DataFrame:
    """Put the published value beside each measured row.

    Parameters
    ----------
    table : pandas.DataFrame
        A comparison frame (:func:`overhead.campaign.results.compare`).
    pub : pandas.DataFrame
        The study's published values.
    key : callable
        row -> (item, metric, env, display env) of the published row that stands beside it,
        or None where none does; item None matches any item.
    baseline_key : callable, optional
        row -> (item, metric, env) of the published baseline (physical host) value, for the
        published percent difference; None where there is none.

    Returns
    -------
    pandas.DataFrame
        ``table`` with the :data:`PUBLISHED` columns (NA where nothing stands beside a row).
    """
    cols: dict[str, list] = {c: [] for c in PUBLISHED}
    for _, row in table.iterrows():
        k = key(row)
        got = published_row(pub, k[1], k[2], k[0]) if k else None
        printed = float(got["value_parsed"]) if got is not None else np.nan
        unit, factor = UNITS.get(str(got["unit"]), (got["unit"], 1.0)) if got is not None \
            else (None, 1.0)
        value = printed * factor
        cols["published_env"].append(k[3] if k else None)
        cols["published_value"].append(value)
        cols["published_unit"].append(unit)
        cols["published_printed"].append(printed)
        cols["published_printed_unit"].append(got["unit"] if got is not None else None)
        cols["published_source"].append(got["source"] if got is not None else None)
        pct = np.nan
        b = baseline_key(row) if (baseline_key and got is not None) else None
        if b is not None and (b[1], b[2], b[0]) != (k[1], k[2], k[0]):
            brow = published_row(pub, b[1], b[2], b[0])
            base = float(brow["value_parsed"]) * UNITS.get(str(brow["unit"]), (None, 1.0))[1]
            # a baseline printed as 0 (a latency under the tool's resolution) gives no ratio
            pct = 100.0 * (value / base - 1.0) if base != 0 else np.nan
        cols["published_pct_vs_baseline"].append(pct)
    out = table.copy()
    for c, v in cols.items():
        out[c] = v
    return out


def with_env_names(table: pd.DataFrame, study: Study) -> pd.DataFrame:
    """Add ``env_name`` (the campaign's environment) to a comparison table by its label."""
    if table.empty:
        return table
    env_of = study.rows.drop_duplicates("label").set_index("label")["env_name"]
    return table.assign(env_name=table["environment"].map(env_of).astype(object))


def concat(parts: Iterable[pd.DataFrame]) -> pd.DataFrame:
    """Concatenate the non-empty frames (an empty frame when there are none)."""
    parts = [p for p in parts if p is not None and not p.empty]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def margin_of(study: str, **fields: object) -> stats.Margin:
    """Return the equivalence margin of one of a study's comparisons (``margins.yml``).

    Parameters
    ----------
    study : str
        The study (``fsync``, ``startup``, ``sysbench_suite``), matched by a rule's ``study``.
    **fields
        What else is known of the comparison: ``benchmark`` (the campaign's), ``metric`` (the
        parser's), ``item`` (the table's name for it), ``tool``.

    Returns
    -------
    overhead.stats.Margin
        The first rule that applies, else the file's default; ``source`` names which.
    """
    return margins.load().lookup(study=study, **fields)


def compare(rows: pd.DataFrame, item: str, unit: str, scale: float = 1.0, *, baseline: str,
            margin: stats.Margin, x: str | None = None) -> pd.DataFrame:
    """Compare environments on one measured quantity: per (item, environment, x) vs the baseline.

    :func:`overhead.campaign.results.compare` with the study's margin: n, mean with its 95%
    interval (log-t for a positive quantity), and against the baseline the ratio of means with
    the 95% interval the verdict is decided on, the margin, the verdict and its words. A run
    without a value (NaN: nothing measurable) is not a trial of the comparison: n counts the
    runs that have one.

    Parameters
    ----------
    rows : pandas.DataFrame
        Tidy rows of one quantity, with ``label`` (the environment's display label) and
        ``value``; one row per trial (or per run, for per-run values); ``higher_is_better``
        when known (faster/slower instead of higher/lower); ``cell`` when known.
    item : str
        The name of the quantity (a panel of a figure, a row group of a table).
    unit : str
        The unit after dividing by ``scale``.
    scale : float
        Divide values by this (e.g. 1e-3 for seconds shown in milliseconds).
    baseline : str
        The baseline environment's label; when absent, nothing is compared (the comparison
        columns stay empty and ``verdict`` says why).
    margin : overhead.stats.Margin
        The quantity's equivalence margin (:func:`margin_of`).
    x : str, optional
        A swept parameter column (a point per value); none for one point per environment.

    Returns
    -------
    pandas.DataFrame
        item, environment, x, the curve columns (:data:`overhead.stats.CURVE_COLUMNS`), unit,
        x_name (and cells, with a ``cell`` column), then baseline, ci_level, margin_reason and
        margin_source; empty without values.
    """
    table = results.compare(rows, item, unit, scale, x=x, baseline=baseline, margin=margin)
    if table.empty:
        return table
    if not table["environment"].eq(baseline).any():
        why = f"not tested: no {baseline!r} rows to compare with"
        table["verdict"] = pd.array(["not tested"] * len(table), dtype="string")
        table["verdict_detail"] = pd.array([why] * len(table), dtype="string")
    return table.assign(baseline=baseline, ci_level=LEVEL, margin_reason=margin.reason,
                        margin_source=margin.source)


def with_stops(table: pd.DataFrame, study: Study) -> pd.DataFrame:
    """Add ``stopped``: why the campaign's cells behind each row got the trials they have.

    Read from the campaign's plan (its stopping rule's reason per cell,
    :meth:`overhead.campaign.results.Results.stop_reasons`); empty where the plan says nothing
    (a fixed number of trials).
    """
    if table.empty or "cells" not in table:
        return table
    items = table["item"] if "item" in table else pd.Series(None, index=table.index, dtype=object)
    return table.assign(stopped=[study.res.stop_reasons(c, i if isinstance(i, str) else None)
                                 if isinstance(c, str) else "" for c, i in zip(table["cells"], items, strict=True)])


def decided(x: object, y: object, margin: stats.Margin, *, higher_is_better: bool | None,
            baseline: str) -> dict[str, object]:
    """Decide one comparison outside a table (two samples) and return its verdict columns.

    Parameters
    ----------
    x, y : array-like
        The environment's (or setting's) trials and the baseline's.
    margin : overhead.stats.Margin
        The equivalence margin (:func:`margin_of`).
    higher_is_better : bool or None
        The quantity's better direction (False for a time).
    baseline : str
        What ``y`` is, in words (recorded in the ``baseline`` column).

    Returns
    -------
    dict
        baseline and :data:`DECIDED`: n, n_baseline, the ratio of means with the interval the
        verdict is decided on (ratio_low, ratio_high, ratio_method, ci_level), the margin
        (margin_low_pct, margin_high_pct, margin_reason), the tests on the interval's scale,
        the verdict, beyond_margin, trials_needed and verdict_detail (the verdict in words).
        With one trial on a side the ratio of the two means is still given, its interval NaN.
    """
    xa = np.asarray(x, dtype=float)
    ya = np.asarray(y, dtype=float)
    out: dict[str, object] = {"baseline": baseline, "n": int(xa.size), "n_baseline": int(ya.size),
                              "ci_level": LEVEL, "margin_low_pct": margin.low_pct,
                              "margin_high_pct": margin.high_pct, "margin_reason": margin.reason}
    if xa.size == 0 or ya.size == 0:
        why = "not measured" if xa.size == 0 and ya.size == 0 else \
            f"no trials {'of the baseline' if ya.size == 0 else 'to compare'}"
        return out | {c: np.nan for c in DECIDED if c not in out} | {
            "ratio_method": None, "verdict": "not tested", "beyond_margin": None,
            "trials_needed": None, "verdict_detail": f"not tested: {why}"}
    v = stats.decide(xa, ya, margin, LEVEL, higher_is_better=higher_is_better)
    iv = v.interval
    ratio = iv.ratio
    if not np.isfinite(ratio) and np.isfinite(xa).all() and np.isfinite(ya).all() and ya.mean():
        ratio = float(xa.mean() / ya.mean())  # the point ratio of what was measured
    return out | {"ratio": ratio, "ratio_low": iv.low, "ratio_high": iv.high,
                  "ratio_method": iv.method, "p_difference": v.p_difference,
                  "p_equivalence": v.p_equivalence, "verdict": v.verdict,
                  "beyond_margin": v.beyond_margin, "trials_needed": v.trials_needed,
                  "verdict_detail": v.words()}


#: A comparison table in words (:func:`overhead.campaign.results.in_words`), and its parts.
display = results.in_words
verdict_short = results.verdict_short
_margin_words = results.margin_words


#: Columns of a table with verdicts that its shown form leaves to the CSV (verdict_detail says
#: the verdict with its interval, n and margin in words).
_LEFT_TO_CSV = ("ratio", "ratio_low", "ratio_high", "ratio_method", "ci_level", "margin_low_pct",
                "margin_high_pct", "margin_reason", "p_difference", "p_equivalence", "verdict",
                "beyond_margin", "trials_needed", "baseline")


def shown(table: pd.DataFrame) -> pd.DataFrame:
    """Return a table as the report and the Markdown show it.

    A comparison frame (:func:`compare`) in words (:func:`display`); another table with
    verdicts (:func:`decided` columns) with its verdict in words (``verdict_detail``: the
    verdict, the interval it was decided on with its level, n and the margin) instead of the
    columns that make it up; any other table as it is.
    """
    if {"mean", "pct", "verdict"} <= set(table.columns):
        return display(table)
    if "verdict_detail" in table:  # which says n per side too ("(95% CI, n=3/3)")
        table = table.drop(columns=[c for c in (*_LEFT_TO_CSV, "n", "n_baseline") if c in table])
    return intervals_in_words(table)


#: The unit suffixes :func:`intervals_in_words` reads off a value column's name.
_UNITS = {"_ms": "ms", "_us": "us", "_s": "s"}


def intervals_in_words(table: pd.DataFrame) -> pd.DataFrame:
    """Put each estimate and its interval in one cell, as a page shows them.

    ``median_ms``, ``median_low`` and ``median_high`` become "median [95% CI] (ms)" = "1.54
    [1.52, 1.58]"; bare ``ci_low`` and ``ci_high`` bound the column just before them
    (``cost_ms``: "cost [95% CI] (ms)"). The interval's method (``<name>_ci_method``) follows the bounds; a ``p5_<unit>`` /
    ``p95_<unit>`` pair becomes one "p5-p95" cell; a column with no value in any row is left
    out. The CSV keeps every column; this is how a page shows them.
    """
    out = table.copy()

    def fmt(v: object) -> str:
        return "-" if pd.isna(v) else f"{v:.4g}"

    for low in [c for c in table.columns if c.endswith("_low")]:
        base = low[:-len("_low")]
        high = f"{base}_high"
        if base == "ci":  # bounds of the column before them
            before = table.columns.get_loc(low) - 1
            if before < 0:
                continue
            value = str(table.columns[before])
            found = [(value[:-len(s)], u) for s, u in _UNITS.items() if value.endswith(s)]
            base, unit = found[0] if found else (value, "")
        else:
            found = [(f"{base}{s}", u) for s, u in _UNITS.items() if f"{base}{s}" in table]
            value, unit = found[0] if found else (base, "")
        if high not in table or value not in table:
            continue
        how = table.get(f"{base}_ci_method", pd.Series("", index=table.index)).fillna("")
        words = [fmt(v) if pd.isna(lo) else f"{fmt(v)} [{fmt(lo)}, {fmt(hi)}]" + (f" {m}" if m else "")
                 for v, lo, hi, m in zip(table[value], table[low], table[high], how, strict=True)]
        name = f"{base} [95% CI]" + (f" ({unit})" if unit else "")
        at = out.columns.get_loc(value)
        out = out.drop(columns=[c for c in (value, low, high, f"{base}_ci_method") if c in out])
        out.insert(at, name, words)
    for s, u in _UNITS.items():
        p5, p95 = f"p5{s}", f"p95{s}"
        if p5 in out and p95 in out:
            at = out.columns.get_loc(p5)
            words = ["-" if pd.isna(a) else f"{fmt(a)}-{fmt(b)}" for a, b in zip(out[p5], out[p95], strict=True)]
            out = out.drop(columns=[p5, p95])
            out.insert(at, f"p5-p95 ({u})", words)
    return out[[c for c in out.columns if out[c].notna().any() and not out[c].astype(str).eq("").all()]]


def margins_used(tables: Iterable[pd.DataFrame]) -> list[str]:
    """List the margins a study's verdicts were decided against, each with its reason."""
    seen: dict[tuple, str] = {}
    for t in tables:
        if t is None or t.empty or "margin_reason" not in t:
            continue
        for lo, hi, why in t[["margin_low_pct", "margin_high_pct", "margin_reason"]].dropna() \
                .drop_duplicates().itertuples(index=False):
            seen.setdefault((lo, hi, why), f"{_margin_words(lo, hi)}: {why}")
    return list(seen.values())


def write_table(study: Study, stem: str, table: pd.DataFrame, *,
                caption: str | None = None) -> Path:
    """Write a table as ``<out>/<stem>.csv`` (all columns), ``.md`` and ``.tex`` (:func:`shown`).

    Through the one exporter (:func:`overhead.export.write_table`). A table with nothing in it
    (every trial of its cells excluded, say) is written as such: its CSV holds whatever columns
    it has, its Markdown and LaTeX say it has no rows.
    """
    return export.write_table(table, study.out, stem, caption=caption, shown=shown(table))["csv"]


def save_bars(study: Study, stem: str, table: pd.DataFrame, title: str, *,
              baseline: str = BASELINE):
    """Draw a comparison table as bars (PNG, SVG, PDF) and as plotly HTML; return the figure.

    The lower panels draw each difference from the baseline with the interval its verdict was
    decided on; hovering a bar of the HTML figure also gives the verdict (:func:`hover_verdicts`).
    """
    from overhead import plots

    fig = plots.comparison_bars(table, title, baseline=baseline,
                                reference="published_pct_vs_baseline",
                                reference_label="seed (vs its physical host)")
    plots.save(fig, study.out, stem)
    pfig = plots.plotly_bars(table, title, baseline=baseline)
    plots.save_html(hover_verdicts(pfig, table), study.out, stem)
    return fig


def hover_verdicts(fig, table: pd.DataFrame):
    """Add each bar's verdict in words to the hover box of a :func:`overhead.plots.plotly_bars` figure.

    A bar is found by its panel (the item: the subplot's x axis) and its environment (its x).

    Returns
    -------
    plotly Figure
        ``fig``, changed in place.
    """
    items = list(dict.fromkeys(table["item"]))
    said = {(i, e): (d if isinstance(d, str) else v)
            for i, e, v, d in zip(table["item"], table["environment"], table["verdict"],
                                  table["verdict_detail"], strict=True)}
    for trace in fig.data:
        axis = getattr(trace, "xaxis", None) or "x"
        k = int(axis[1:] or 1) - 1
        if k >= len(items) or not trace.x:
            continue
        words = said.get((items[k], trace.x[0]))
        if isinstance(words, str) and trace.hovertemplate:
            trace.hovertemplate = trace.hovertemplate.replace(
                "<extra></extra>", f"<br>{html.escape(words)}<extra></extra>")
    return fig


def accelerators(study: Study) -> list[str]:
    """Return the accelerators the study's VMs ran under (kvm, tcg), from the provenance."""
    w = results.where(study.res)
    return sorted({a for v in w["accelerator"].dropna() for a in str(v).split(", ")})


#: How the report says its verdicts are decided.
VERDICTS_NOTE = (
    "Every comparison with a baseline is decided on one interval: the 95% confidence interval of "
    "the ratio of means (environment / baseline: Fieller's, or log-t where Fieller's has no "
    "finite bounds; shown as a percent difference). 'equivalent' means that interval lies inside "
    "the equivalence margin (two one-sided tests at 2.5% each); 'faster'/'slower' (or "
    "'higher'/'lower' for a quantity with no better direction) that it excludes a ratio of 1 "
    "(no difference), and 'beyond the margin' that it lies wholly outside the margin; 'inconclusive' that it holds both no difference and differences beyond "
    "the margin, with about how many trials per side would decide it at the variance seen; "
    "'not tested' that no interval could be had (one trial on a side, no variance). A difference "
    "that is not shown is never read as sameness. The margins, from data/reference/margins.yml:")


def report(study: Study, title: str, intro: str,
           sections: list[tuple[str, str | list[str], str | None, pd.DataFrame | None]], *,
           margins: Iterable[str] = ()) -> Path:
    """Write ``<out>/report.html``: what ran where, then each section's note, figure and table.

    Parameters
    ----------
    sections : list of (title, note, figure stem or None, table or None)
        In report order; a note is HTML-escaped text (a list of them: one paragraph each), a
        table a comparison frame or a table
        with verdicts (both shown in words, :func:`shown`) or any frame.

    Where a table carries verdicts, the page says how they are decided and lists the margins
    used, each with its reason (:data:`VERDICTS_NOTE`, :func:`margins_used`); ``margins`` adds
    those of tables already in words (the campaign's own comparisons), said the same way.
    """
    w = results.where(study.res)
    page = Page(title)
    page.text(f"Campaign {study.res.name}, read from {shown_path(study.res.tidy)}; written "
              f"{_dt.datetime.now(_dt.UTC):%Y-%m-%d %H:%M} UTC. {intro}")
    results.where_section(page, w)
    if "tcg" in accelerators(study):
        page.raw(f"<p><b>{html.escape(TCG_NOTE)}.</b></p>")
    page.raw("\n".join(results.noise_html(study.res)))
    page.raw("\n".join(results.spending_html(study.res)))
    for note in study.notes:
        page.text(note)
    used = list(dict.fromkeys([*margins_used(t for _, _, _, t in sections), *margins]))
    if used:
        page.heading("How each comparison is decided").text(VERDICTS_NOTE).items(used)
    for name, note, stem, table in sections:
        page.heading(name)
        for paragraph in [note] if isinstance(note, str) else note or ():
            if paragraph:
                page.text(paragraph)
        if stem:
            page.figure(study.out / f"{stem}.png", missing=f"figure {stem}.png not drawn")
        if table is not None:
            page.table(labelled(shown(table)) if not table.empty else table,
                       empty=export.empty_words(stem or name))
    path = page.write(study.out / "report.html")
    ref = REFERENCE_DATA / f"{study.study}.csv"
    studies.register(study.out, kind="seed", title=title, tidy=study.res.tidy,
                     campaign=study.res.name, reference=ref if ref.is_file() else None)
    return path
