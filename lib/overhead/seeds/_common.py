"""What the three seed studies share.

A campaign opened as a study, the published values beside the measured ones, a figure per
table (static and plotly) and the study's report page.

A study's campaign is measured by the engine like any other (``overhead run``, the campaign
notebook) and read with :func:`overhead.campaign.results.open_results`; its output goes to
``figures/<study>/`` (tables as CSV, figures as PNG, SVG, PDF and plotly HTML, report.html).
The published values are ``data/reference/<study>.csv`` (:func:`overhead.reference.published`),
each with the seed line it was read from; a measured row carries the published row it stands
beside in ``published_*`` columns, and the source goes with it into every table.
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

from overhead import reference, stats
from overhead.campaign import results
from overhead.errors import InputError
from overhead.paths import FIGURES

BASELINE = "Native"
TCG_NOTE = ("The VM ran under QEMU TCG (software emulation): the host's KVM module here is "
            "kvm_pvm, under which a stock guest kernel hangs at boot. Its numbers are an "
            "emulator's, never a KVM (or VirtualBox) overhead")
#: The published-value columns a comparison table carries (filled where a published row
#: stands beside the measured one).
PUBLISHED = ("published_env", "published_value", "published_unit", "published_pct_vs_baseline",
             "published_source", "published_printed", "published_printed_unit")
#: A unit as the seeds print it -> (the unit the tables use, factor to it). sysbench 0.4's
#: "Mb/sec" and hdparm's "MB/sec" are MiB/s (both count 2^20 bytes), ab's "Kbytes/sec" KiB/s.
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
    return Study(study, res, reference.published(study))


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


def display(table: pd.DataFrame, *, extra: Iterable[str] = ()) -> pd.DataFrame:
    """Return a comparison table in words, for display and the report.

    One row per (item, environment[, x]): n, mean [95% CI], the difference from the baseline
    [bootstrap 95% CI] with Welch's Holm-corrected p and the verdict, and the published value
    with its own difference from its baseline and its source.
    """
    if table.empty:
        return table

    def fmt(v: float) -> str:
        return "-" if pd.isna(v) else f"{v:.4g}"

    out = pd.DataFrame({"item": table["item"], "environment": table["environment"]})
    # a table read back from CSV has NaN where x was "" (no swept parameter)
    if "x" in table and table["x"].fillna("").astype(str).ne("").any():
        name = table["x_name"].iloc[0]
        out[name if isinstance(name, str) and name else "x"] = table["x"]
    for c in extra:
        out[c] = table[c]
    out["n"] = table["n"]
    out["mean [95% CI]"] = [f"{fmt(m)} [{fmt(lo)}, {fmt(hi)}] {u}" if pd.notna(lo) else f"{fmt(m)} {u}"
                            for m, lo, hi, u in zip(table["mean"], table["ci_low"], table["ci_high"],
                                                    table["unit"], strict=True)]
    out["vs native [95% CI]"] = [
        "-" if pd.isna(p) else (f"{p:+.1f}% [{lo:+.1f}, {hi:+.1f}]" if pd.notna(lo) else f"{p:+.1f}%")
        for p, lo, hi in zip(table["pct"], table["pct_low"], table["pct_high"], strict=True)]
    out["Welch p (Holm)"] = [fmt(p) for p in table["welch_p_holm"]]
    out["verdict"] = table["verdict"].fillna("-")
    if "published_value" in table:
        out["published"] = [
            "-" if pd.isna(v) else f"{v:g} {u} ({e})"
            for v, u, e in zip(table["published_value"], table["published_unit"],
                               table["published_env"], strict=True)]
        out["published vs its baseline"] = [
            "-" if pd.isna(p) else f"{p:+.1f}%" for p in table["published_pct_vs_baseline"]]
        out["source"] = table["published_source"].fillna("-")
    return out


def write_table(study: Study, stem: str, table: pd.DataFrame) -> Path:
    """Write a table as ``<out>/<stem>.csv`` (all columns) and ``.md`` (in words)."""
    path = study.out / f"{stem}.csv"
    table.to_csv(path, index=False)
    words = display(table) if {"mean", "pct"} <= set(table.columns) else table
    (study.out / f"{stem}.md").write_text(stats.to_markdown(words.set_index(words.columns[0])) + "\n")
    return path


def save_bars(study: Study, stem: str, table: pd.DataFrame, title: str, *,
              baseline: str = BASELINE):
    """Draw a comparison table as bars (PNG, SVG, PDF) and as plotly HTML; return the figure."""
    from overhead import plots

    fig = plots.comparison_bars(table, title, baseline=baseline,
                                reference="published_pct_vs_baseline",
                                reference_label="seed (vs its physical host)")
    plots.save(fig, study.out, stem)
    plots.save_html(plots.plotly_bars(table, title, baseline=baseline), study.out, stem)
    return fig


def accelerators(study: Study) -> list[str]:
    """Return the accelerators the study's VMs ran under (kvm, tcg), from the provenance."""
    w = results.where(study.res)
    return sorted({a for v in w["accelerator"].dropna() for a in str(v).split(", ")})


def report(study: Study, title: str, intro: str,
           sections: list[tuple[str, str, str | None, pd.DataFrame | None]]) -> Path:
    """Write ``<out>/report.html``: what ran where, then each section's note, figure and table.

    Parameters
    ----------
    sections : list of (title, note, figure stem or None, table or None)
        In report order; a note is HTML-escaped text, a table a comparison frame (shown in
        words) or any frame.
    """
    from overhead import plots

    w = results.where(study.res)
    parts = [f"<h1>{html.escape(title)}</h1>",
             f"<p>Campaign {html.escape(study.res.name)}, read from "
             f"{html.escape(str(study.res.tidy))}; written "
             f"{_dt.datetime.now(_dt.UTC):%Y-%m-%d %H:%M} UTC. {html.escape(intro)}</p>",
             "<h2>What was measured where</h2>", w.to_html(index=False, na_rep="-")]
    if "tcg" in accelerators(study):
        parts.append(f"<p><b>{html.escape(TCG_NOTE)}.</b></p>")
    for note in study.notes:
        parts.append(f"<p>{html.escape(note)}</p>")
    for name, note, stem, table in sections:
        parts.append(f"<h2>{html.escape(name)}</h2>")
        if note:
            parts.append(f"<p>{html.escape(note)}</p>")
        if stem:
            png = study.out / f"{stem}.png"
            parts.append(plots.embed_png(png) if png.exists()
                         else f"<p><i>figure {html.escape(stem)}.png not drawn</i></p>")
        if table is not None and not table.empty:
            shown = display(table) if {"mean", "pct"} <= set(table.columns) else table
            parts.append(stats.to_html(shown.set_index(shown.columns[0])) if shown is not table
                         else shown.to_html(index=False, na_rep="-",
                                            float_format=lambda v: f"{v:.4g}"))
        elif table is not None:
            parts.append("<p><i>nothing measured for this table</i></p>")
    page = (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            "<style>body{font-family:sans-serif;max-width:1200px;margin:auto} "
            "table{border-collapse:collapse;font-size:12px} td,th{border:1px solid #ccc;"
            "padding:3px 6px}</style></head><body>\n" + "\n".join(parts) + "\n</body></html>\n")
    path = study.out / "report.html"
    path.write_text(page)
    return path
