"""The campaign side of RC25482's live tables: the campaign, the authors' values beside it.

What every section's live tables share (the section modules' ``live_tables``): the ingested
campaign (:class:`Live`, :func:`open_campaign`), the authors' table each live one is set
beside, computed from their tidy data by the section module (:func:`authors_table`) and
matched to the live environments (:func:`attach_authors`), one comparison frame per item
(:func:`compare`) and Little's law per run (:func:`littles`). :mod:`overhead.rc25482.live`
assembles the sections' tables into the known truths, the figures and the report.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from overhead import stats
from overhead.campaign import results
from overhead.names import AUTHORS_DATASET, AUTHORS_STUDY, BASELINE
from overhead.pages import shown_path
from overhead.paths import TIDY

#: Where the authors' values come from by default: their ingested tidy data, from which the
#: section modules compute the tables (``authors_tables``), not the files a notebook wrote.
AUTHORS_DIR = TIDY / AUTHORS_DATASET


TCG_NOTE = ("QEMU TCG is software emulation, not KVM: the authors' KVM value is shown for "
            "orientation only, and this overhead is not a KVM overhead")


#: X R under this fraction of N: the closed loop never formed (Little's law cannot hold).
OPEN_LOOP = 0.5


@dataclass
class Live(results.Results):
    """One ingested campaign, ready for the paper's tables.

    The campaign's :class:`~overhead.campaign.results.Results` and where the authors' tables
    are.

    Attributes
    ----------
    authors : pathlib.Path
        The authors' tidy data (default ``data/tidy/ibm``): each section's tables are computed
        from it by the section module (``authors_tables``), once; or a folder of tables a
        notebook wrote (``<stem>.csv``), read as they are.
    """

    authors: Path = AUTHORS_DIR
    authors_computed: dict = field(default_factory=dict, repr=False)


def open_campaign(campaign: str | os.PathLike[str], *, tidy_root: str | os.PathLike[str] | None = None,
                  out_root: str | os.PathLike[str] | None = None,
                  authors: str | os.PathLike[str] | None = None) -> Live:
    """Load an ingested campaign (:func:`overhead.campaign.results.open_results`).

    Parameters
    ----------
    campaign : str or path
        The campaign's name (``local-quick``) or its YAML file (its name is read from it).
    tidy_root : path, optional
        The folder of tidy trees (default ``data/tidy``).
    out_root : path, optional
        The folder of figure trees (default ``figures``); output goes to ``<out_root>/<name>``.
    authors : path, optional
        The authors' tidy data (default ``data/tidy/ibm``), or a folder of their tables as CSV.

    Returns
    -------
    Live
        The campaign's rows and folders.

    Raises
    ------
    InputError
        When the campaign has not been ingested (naming the folder looked at).
    """
    r = results.open_results(campaign, tidy_root=tidy_root, out_root=out_root)
    return Live(r.name, r.tidy, r.out, r.rows, r.trials, r.provenance, r.plan,
                Path(authors or AUTHORS_DIR))


def authors_env(section: str, label: str) -> str | None:
    """Return the authors' environment a live label stands for in a section (None: none)."""
    if label == BASELINE:
        return BASELINE
    if label.startswith(("QEMU TCG", "VM")):
        return "KVM-untuned" if section == "compute" else "KVM"
    if label.startswith("KVM"):
        if section == "compute":
            return "KVM-tuned" if "tuned" in label and "untuned" not in label else "KVM-untuned"
        return "KVM"
    if not label.startswith("Docker"):
        return None
    nat = " NAT" in label
    if section in ("compute", "blockio"):
        return "Docker"
    if section == "network":
        return "Docker NAT" if nat else None
    if section == "redis":
        return "Docker NAT" if nat else "Docker net=host"
    if section == "mysql":
        if "overlay" in label or "AUFS" in label:
            return "Docker NAT AUFS" if nat else None
        return "Docker NAT volume" if nat else "Docker net=host volume"
    return None


#: The section module that computes each of the authors' tables set beside the live ones.
AUTHORS_SECTION = {"table1": "compute", "fig02": "network", "fig03": "network", "fig05": "blockio",
                   "fig06": "blockio", "fig07_ratios": "blockio", "fig08": "redis", "fig09": "redis",
                   "fig10": "mysql", "fig11": "mysql", "fig12": "mysql"}


def is_tidy(folder: Path) -> bool:
    """Whether a folder is ingested tidy data (it has ``measurements.parquet``)."""
    return (Path(folder) / "measurements.parquet").exists()


def authors_table(live: Live, stem: str) -> pd.DataFrame | None:
    """Return the authors' table ``stem``: computed from their tidy data, or read from a folder."""
    if is_tidy(live.authors):
        section = AUTHORS_SECTION.get(stem)
        if section is None:
            return None
        if section not in live.authors_computed:
            import importlib

            from overhead.rc25482.published import published

            module = importlib.import_module(f"overhead.rc25482.{section}")
            live.authors_computed[section] = module.authors_tables(live.authors,
                                                                   published(AUTHORS_STUDY))
        return live.authors_computed[section].get(stem)
    path = live.authors / f"{stem}.csv"
    return pd.read_csv(path) if path.exists() else None


def attach_authors(table: pd.DataFrame, live: Live, section: str, stem: str,
                    match: Callable[[pd.DataFrame, pd.Series, str], pd.DataFrame],
                    value: str, pct: str | None, missing: str | None = None) -> pd.DataFrame:
    """Add the authors' columns to a comparison frame.

    authors_environment, authors_value, authors_pct_vs_native, authors_x (the level of theirs
    used, for swept parameters) and authors_note (``missing`` where none matches).
    """
    if table.empty:
        return table
    authors = authors_table(live, stem)
    envs, vals, pcts, notes, xs = [], [], [], [], []
    for _, row in table.iterrows():
        env = authors_env(section, row["environment"])
        envs.append(env)
        note = ""
        if row["environment"].startswith("QEMU TCG"):
            note = TCG_NOTE
        if authors is None:
            vals.append(np.nan)
            pcts.append(np.nan)
            xs.append(None)
            notes.append("; ".join(n for n in (note, f"authors' {stem} not found in {shown_path(live.authors)} "
                                                     "(make ingest)") if n))
            continue
        hit = match(authors, row, env) if env else authors.iloc[0:0]
        if hit.empty:
            vals.append(np.nan)
            pcts.append(np.nan)
            xs.append(None)
            notes.append(note or missing or ("no counterpart in the authors' data" if env is None
                                             else f"no authors' value for {env}"))
            continue
        vals.append(float(hit[value].iloc[0]))
        pcts.append(float(hit[pct].iloc[0]) if pct and pd.notna(hit[pct].iloc[0]) else
                    (0.0 if env == BASELINE else np.nan))
        xs.append(hit[AUTHORS_X].iloc[0] if AUTHORS_X in hit else None)
        notes.append(note)
    out = table.assign(authors_environment=envs, authors_value=vals,
                       authors_pct_vs_native=pcts, authors_x=xs, authors_note=notes)
    if pct is None and not out.empty:  # their percent difference from their own Native
        native = out[out["authors_environment"] == BASELINE]
        base = {(i, a): v for i, a, v in zip(native["item"], native["authors_x"].astype(str),
                                              native["authors_value"], strict=True)}
        out["authors_pct_vs_native"] = [
            100 * (v / base[(i, str(a))] - 1) if (i, str(a)) in base and pd.notna(v) else np.nan
            for i, a, v in zip(out["item"], out["authors_x"], out["authors_value"], strict=True)]
    return out


def compare(rows: pd.DataFrame, figure: str, item: str, unit: str, scale: float = 1.0,
             x: str | None = None, higher_is_better: bool | None | str = "auto",
             benchmark: str | None = None, metric: str | None = None) -> pd.DataFrame:
    """One comparison frame: per (item, environment, x) the live statistics and verdict vs Native.

    The margin is the one ``data/reference/margins.yml`` gives the item in this study (with
    the benchmark and metric: the rows', or the ones given for per-run frames built from them).
    """
    from overhead import margins

    fields = {"study": "rc25482", "item": item}
    for name, given in (("benchmark", benchmark), ("metric", metric)):
        if given is not None:
            fields[name] = given
        elif name in rows and rows[name].nunique() == 1:
            fields[name] = str(rows[name].iloc[0])
    table = results.compare(rows, item, unit, scale, x=x, baseline=BASELINE,
                            margin=margins.load().with_fields(**fields),
                            higher_is_better=higher_is_better)
    return table.assign(figure=figure) if not table.empty else table


def keys(rows: pd.DataFrame, *keys: str) -> list[str]:
    """Group keys of per-run frames, with what the rows know of the run's campaign.

    Its cell, and in a sequential campaign its round and its cell's design (each the same for
    every row of a run), so that a per-run frame's comparisons replay the stopping rule's
    looks as the rows' own do.
    """
    return [*keys, *[c for c in ("cell", "round", "design") if c in rows.columns]]


def finish(parts: list[pd.DataFrame]) -> pd.DataFrame:
    """Concatenate the comparison frames that have rows (an empty frame when none has)."""
    parts = [p for p in parts if not p.empty]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


#: The column where a matched authors' row says its level (connections, threads) when it
#: differs from the live one.
AUTHORS_X = "_authors_x"


def nearest(a: pd.DataFrame, column: str, x: float) -> pd.DataFrame:
    """Return the authors' rows at the level of ``column`` nearest to x on a log scale.

    Their sweeps differ from the live ones; the level chosen is kept in :data:`AUTHORS_X`.
    """
    if a.empty:
        return a
    levels = a[column].dropna().unique()
    best = levels[np.argmin(np.abs(np.log(levels.astype(float)) - np.log(float(x))))]
    return a[a[column] == best].assign(**{AUTHORS_X: best})


def littles(runs: pd.DataFrame, n: pd.Series, figure: str) -> pd.DataFrame:
    """Little's law per run (N = X R), then per (environment, level): N, mean X R, residual."""
    law = stats.littles_law(n.to_numpy(float), runs["throughput"].to_numpy(float),
                            runs["latency"].to_numpy(float))
    per_run = runs[["label"]].assign(N=law["N"].to_numpy(), xr=law["xr"].to_numpy(),
                                     rel_residual=law["rel_residual"].to_numpy())
    out = per_run.groupby(["label", "N"], as_index=False, observed=True).agg(
        n=("xr", "size"), xr_mean=("xr", "mean"), rel_residual_mean=("rel_residual", "mean"),
        rel_residual_min=("rel_residual", "min"), rel_residual_max=("rel_residual", "max"))
    return out.rename(columns={"label": "environment"}).assign(figure=figure)
