"""RC25482 Section III-A..D: Table I and Table II, from the tidy rows of the authors' logs.

Table I covers PXZ, Linpack, STREAM and RandomAccess; Table II the STREAM kernels.

Which runs make Table I (all on two sockets, 10 trials per cell):

- Linpack: ``linpack/results/{linux,docker,vm}.two-socket.interleavedalloc.log`` for Native,
  Docker and KVM-untuned; KVM-tuned is the last complete block of ``linpack/results/vm.log``
  (``p_block_complete`` True). The aborted 6-trial block before it is kept as a separate view,
  never averaged in.
- STREAM: ``Stream/results/*.two-socket.interleavedalloc.log`` (``p_sockets == 2``), the best
  rate of each run per kernel.
- RandomAccess: ``p_sockets == 2`` rows, i.e. the files named ``*.single-socket.localalloc.log``
  whose headers say ``--physcpubind=0-31 --interleave=0,1``.
- PXZ: no data anywhere in the repository; the text says KVM is 22% slower. Its rows are
  present with NaN values and a note.

Units are those the paper prints: Linpack GFLOPS (1e9 FLOP/s), RandomAccess GUPS (1e9
updates/s), STREAM GB/s (1e9 B/s). SD is the sample SD (ddof=1) everywhere; ``sd_population``
(ddof=0) is beside it because the authors' STREAM summaries use it. Nothing is deleted: the
untuned-KVM Linpack trial at 108.8 GFLOPS stays in the cell and is flagged.

Main entry points: :func:`load_trials` (tidy dir -> trials), :func:`trials` (pure),
:func:`table1`, :func:`linpack_views`, :func:`table1_display`, :func:`table2`,
:func:`table2_derived`, :func:`stream_median_spread`.
"""

from __future__ import annotations

import math
import os

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from overhead import plots, stats
from overhead.names import BASELINE
from overhead.rc25482 import comparisons, livedata, wording
from overhead.rc25482.published import table1_published

#: Table I rows in the paper's order and the unit each is printed in.
WORKLOADS = ("PXZ", "Linpack", "RandomAccess", "STREAM Copy", "STREAM Scale", "STREAM Add", "STREAM Triad")
#: Table I columns.
#: The paper's STREAM statement: "the median data exhibiting a difference of only 1.4%".
PAPER_STREAM_SPREAD_PCT = 1.4

ENVIRONMENTS = ("Native", "Docker", "KVM-untuned", "KVM-tuned")
#: workload -> (printed unit, factor from the canonical tidy unit).
UNITS = {
    "PXZ": ("MB/s", 1e-6),
    "Linpack": ("GFLOPS", 1e-9),
    "RandomAccess": ("GUPS", 1e-9),
    "STREAM Copy": ("GB/s", 1e-9),
    "STREAM Scale": ("GB/s", 1e-9),
    "STREAM Add": ("GB/s", 1e-9),
    "STREAM Triad": ("GB/s", 1e-9),
}

#: The columns table1.csv starts with, in this order (extra columns follow).
TABLE1_COLUMNS = ["workload", "environment", "mean", "sd", "n", "ci95_low", "ci95_high",
                  "delta_vs_native_pct", "published_mean", "published_sd"]

PXZ_NOTE = ("no PXZ data or script in the authors' repository; the text says 'KVM is 22% slower' and "
            "that tuning KVM makes little difference")
NOT_MEASURED_NOTE = ("not measured: the STREAM and RandomAccess 'KVM' runs are from the untuned VM "
                     "(default CPU model, no pinning)")
UNTUNED_LINPACK_NOTE = ("includes {flagged}, flagged as an outlier (modified z < -3.5) and kept; "
                        "the spreadsheet value 130.28 (7.57) is not verified against the printed table")


def flagged_trials(trial_rows: pd.DataFrame, workload: str, environment: str, *, unit: bool = True) -> str:
    """Name the trials of a cell that :func:`stats.flag_outliers` flagged, with their values.

    Parameters
    ----------
    trial_rows : pandas.DataFrame
        :func:`trials` (needs workload, environment, view, trial, value, unit, outlier).
    workload, environment : str
        The Table I cell.
    unit : bool
        Add the unit after each value.

    Returns
    -------
    str
        E.g. "trial 8 (108.8 GFLOPS)"; "no trial" when none is flagged.
    """
    rows = trial_rows[(trial_rows["workload"] == workload) & (trial_rows["environment"] == environment)
                      & (trial_rows["view"] == "table") & trial_rows["outlier"].fillna(False).astype(bool)]
    if rows.empty:
        return "no trial"
    parts = [f"{int(r.trial)} ({r.value:.1f}{' ' + r.unit if unit else ''})" for r in rows.itertuples()]
    return ("trial " if len(parts) == 1 else "trials ") + ", ".join(parts)

#: Table II: the four STREAM kernels (definitions of the STREAM benchmark, not measurements).
#: Bytes count the 8-byte words each iteration reads and writes, as STREAM counts them
#: (no write-allocate traffic).
STREAM_KERNELS = (
    ("Copy", "a[i] = b[i]", 16, 0),
    ("Scale", "a[i] = q * b[i]", 16, 1),
    ("Add", "a[i] = b[i] + c[i]", 24, 1),
    ("Triad", "a[i] = b[i] + q * c[i]", 24, 2),
)


# --- data -------------------------------------------------------------------------------------

def load_trials(tidy_dir: str | os.PathLike[str]) -> pd.DataFrame:
    """Read the Table I rows from an ingested folder and return :func:`trials` of them.

    Parameters
    ----------
    tidy_dir : path
        Folder written by ``overhead.rc25482.prepare``.

    Returns
    -------
    pandas.DataFrame
        As :func:`trials`.
    """
    from overhead.rc25482 import load

    linpack = load(tidy_dir, "linpack", metrics=["flop_rate"], where={"p_sockets": 2})
    stream = load(tidy_dir, "stream", metrics=["bandwidth"], where={"p_sockets": 2})
    gups = load(tidy_dir, "randomaccess", metrics=["update_rate"], where={"p_sockets": 2})
    return trials(linpack, stream, gups)


def trials(linpack: pd.DataFrame, stream: pd.DataFrame, gups: pd.DataFrame) -> pd.DataFrame:
    """Collect every two-socket Table I trial in the printed units, marking Table I's selection.

    Parameters
    ----------
    linpack, stream, gups : pandas.DataFrame
        Tidy rows (with ``label``) of metrics flop_rate, bandwidth and update_rate; rows with
        p_sockets other than 2 are ignored.

    Returns
    -------
    pandas.DataFrame
        workload, environment (the paper's label), trial, value, unit, block (Linpack block in
        its file, else 1), block_complete, in_table (True for the trials Table I averages:
        everything except the aborted tuned-KVM Linpack block), view ("table" or
        "aborted block"), source, mod_z, outlier (flag_outliers per workload, environment and
        block; never removed).
    """
    parts = []
    two = lambda df: df[(df["p_sockets"] == 2).fillna(False)] if "p_sockets" in df else df  # noqa: E731
    lp = two(linpack)
    lp = lp[lp["metric"] == "flop_rate"]
    parts.append(pd.DataFrame({
        "workload": "Linpack", "environment": lp["label"], "trial": lp["trial"], "raw": lp["value"],
        "block": lp["p_block"].astype("Int64"), "block_complete": lp["p_block_complete"].astype("boolean"),
        "source": lp["source"]}))
    st = two(stream)
    st = st[st["metric"] == "bandwidth"]
    parts.append(pd.DataFrame({
        "workload": "STREAM " + st["p_kernel"].astype("string").str.capitalize(),
        "environment": st["label"], "trial": st["trial"], "raw": st["value"],
        "block": pd.array([1] * len(st), dtype="Int64"), "block_complete": pd.array([True] * len(st), dtype="boolean"),
        "source": st["source"]}))
    gu = two(gups)
    gu = gu[gu["metric"] == "update_rate"]
    parts.append(pd.DataFrame({
        "workload": "RandomAccess", "environment": gu["label"], "trial": gu["trial"], "raw": gu["value"],
        "block": pd.array([1] * len(gu), dtype="Int64"), "block_complete": pd.array([True] * len(gu), dtype="boolean"),
        "source": gu["source"]}))
    df = pd.concat(parts, ignore_index=True)
    df["workload"] = df["workload"].astype("string")
    df["environment"] = df["environment"].astype("string")
    df["unit"] = df["workload"].map(lambda w: UNITS[w][0]).astype("string")
    df["value"] = df["raw"].astype("float64") * df["workload"].map(lambda w: UNITS[w][1]).astype("float64")
    df = df.drop(columns="raw")
    # Table I: for each workload and environment, the last complete block (Linpack vm.log has an
    # aborted 6-trial block before the complete one; the other files have one block).
    df["in_table"] = False
    for _, rows in df.groupby(["workload", "environment"], sort=False):
        complete = rows[rows["block_complete"].fillna(False)]
        if len(complete):
            last = complete["block"].max()
            df.loc[complete.index[complete["block"] == last], "in_table"] = True
    df["view"] = np.where(df["in_table"], "table", "aborted block")
    df["view"] = df["view"].astype("string")
    flagged = stats.flag_outliers(df, by=["workload", "environment", "block"])
    df["mod_z"] = flagged["mod_z"]
    df["outlier"] = flagged["outlier"]
    order = {w: i for i, w in enumerate(WORKLOADS)}
    eorder = {e: i for i, e in enumerate(ENVIRONMENTS)}
    df = df.assign(_w=df["workload"].map(order), _e=df["environment"].map(eorder))
    df = df.sort_values(["_w", "_e", "block", "trial"]).drop(columns=["_w", "_e"]).reset_index(drop=True)
    cols = ["workload", "environment", "trial", "value", "unit", "block", "block_complete", "in_table",
            "view", "source", "mod_z", "outlier"]
    return df[cols]


# --- Table I ----------------------------------------------------------------------------------

def _published_sd_kind(kind: object) -> str | None:
    """Return 'population' or 'sample' from the published values' err_kind text."""
    if kind is None or (not isinstance(kind, str) and pd.isna(kind)):
        return None
    return "population" if "population" in str(kind).lower() else "sample"


def table1(trial_rows: pd.DataFrame, published: pd.DataFrame | None = None) -> pd.DataFrame:
    """Compute Table I: one row per workload and environment (PXZ and unmeasured cells as NaN rows).

    Every non-native cell with data is compared with native by its verdict
    (:func:`overhead.stats.verdicts`): the ratio of the means with its 95% interval (Fieller's;
    :func:`overhead.stats.ratio_interval`), shown as a percent difference, decided against the
    equivalence margin of ``data/reference/margins.yml`` (rule ``cpu-memory``: the paper's
    "almost identical" as +-3%). Holm's correction runs over all 13 comparisons of the table.

    Parameters
    ----------
    trial_rows : pandas.DataFrame
        Output of :func:`trials`; only ``in_table`` rows are summarized.
    published : pandas.DataFrame or None
        ``overhead.rc25482.published.table1_published(paper, include_open=True)``; None leaves the
        published columns NaN.

    Returns
    -------
    pandas.DataFrame
        :data:`TABLE1_COLUMNS` first (ci95_low, ci95_high: the 95% interval of the mean,
        :func:`overhead.stats.auto_interval`, log-t for these positive rates), then unit,
        sd_population, ci_method, delta_ci95_low, delta_ci95_high (the interval of the percent
        difference the verdict is decided on), delta_ci_method, n_baseline, margin_low_pct,
        margin_high_pct, margin_reason, p_difference, p_difference_holm (Holm over the 13
        comparisons), p_equivalence, verdict ("baseline" for native; NA where a cell has no
        data), beyond_margin, trials_needed, verdict_detail, n_flagged (trials flagged by
        stats.flag_outliers, all kept), published_sd_kind, sd_matching_published (our SD under
        the published SD's definition), sd_pct_diff_vs_published, pct_diff_vs_published,
        published_status, published_delta_pct (the text's relative claims, PXZ), note.
    """
    t = trial_rows[trial_rows["in_table"]].copy()
    cells = {}
    for (w, e), rows in t.groupby(["workload", "environment"], sort=False):
        x = rows["value"].to_numpy(dtype="float64")
        iv = stats.auto_interval(x, 0.95)
        cells[(w, e)] = {
            "mean": float(np.mean(x)), "sd": float(np.std(x, ddof=1)) if x.size > 1 else math.nan,
            "sd_population": float(np.std(x, ddof=0)), "n": int(x.size),
            "ci95_low": iv.low, "ci95_high": iv.high, "ci_method": iv.method,
            "n_flagged": int(rows["outlier"].fillna(False).sum()),
        }
    frame = t.rename(columns={"environment": "env"})
    ver = stats.verdicts(frame, BASELINE, comparisons.margin_source(), by=["workload", "env"],
                         environment="env", higher_is_better=True)
    for r in ver.to_dict("records"):
        cells[(r["workload"], r["env"])].update(
            delta_ci95_low=r["pct_low"], delta_ci95_high=r["pct_high"], delta_ci_method=r["ci_method"],
            n_baseline=r["n_baseline"], margin_low_pct=r["margin_low_pct"],
            margin_high_pct=r["margin_high_pct"], margin_reason=r["margin_reason"],
            p_difference=r["p_difference"], p_difference_holm=r["p_difference_holm"],
            p_equivalence=r["p_equivalence"], verdict=r["verdict"], beyond_margin=r["beyond_margin"],
            trials_needed=r["trials_needed"], verdict_detail=r["verdict_detail"])
    pub = {}
    if published is not None:
        for r in published.itertuples(index=False):
            pub[(str(r.workload), str(r.environment))] = r
    records = []
    for w in WORKLOADS:
        native = cells.get((w, BASELINE), {}).get("mean", math.nan)
        for e in ENVIRONMENTS:
            c = dict(cells.get((w, e), {"n": 0}))
            rec = {"workload": w, "environment": e, "unit": UNITS[w][0], **c}
            if e == BASELINE:
                rec["delta_vs_native_pct"] = 0.0 if c.get("n") else math.nan
                rec["verdict"] = "baseline" if c.get("n") else None
            elif c.get("n"):
                rec["delta_vs_native_pct"] = 100.0 * (c["mean"] / native - 1.0)
            p = pub.get((w, e))
            if p is not None:
                kind = _published_sd_kind(p.sd_kind)
                rec.update(published_mean=float(p.mean), published_sd=float(p.sd), published_sd_kind=kind,
                           published_status=str(p.status))
                if c.get("n"):
                    mine = c["sd_population"] if kind == "population" else c["sd"]
                    rec["sd_matching_published"] = mine
                    rec["pct_diff_vs_published"] = 100.0 * (c["mean"] / float(p.mean) - 1.0)
                    rec["sd_pct_diff_vs_published"] = 100.0 * (mine / float(p.sd) - 1.0)
            notes = []
            if w == "PXZ":
                notes.append(PXZ_NOTE)
                if e.startswith("KVM"):
                    rec["published_delta_pct"] = -22.0
            elif not c.get("n"):
                notes.append(NOT_MEASURED_NOTE)
            if (w, e) == ("Linpack", "KVM-untuned") and c.get("n"):
                notes.append(UNTUNED_LINPACK_NOTE.format(flagged=flagged_trials(trial_rows, w, e)))
            if (w, e) == ("Linpack", "KVM-tuned") and c.get("n"):
                notes.append("last complete block of vm.log; the aborted 6-trial block before it is not averaged in")
            if w.startswith("STREAM") and c.get("n"):
                notes.append("authors' SD is the population SD (compare sd_population)")
            if c.get("n_flagged") and (w, e) != ("Linpack", "KVM-untuned"):
                notes.append(f"{c['n_flagged']} trial(s) flagged by modified z > 3.5 (tiny MAD), kept")
            rec["note"] = "; ".join(notes) or None
            records.append(rec)
    extra = ["unit", "sd_population", "ci_method", "delta_ci95_low", "delta_ci95_high", "delta_ci_method",
             "n_baseline", "margin_low_pct", "margin_high_pct", "margin_reason", "p_difference",
             "p_difference_holm", "p_equivalence", "verdict", "beyond_margin", "trials_needed",
             "verdict_detail", "n_flagged", "published_sd_kind", "sd_matching_published",
             "sd_pct_diff_vs_published", "pct_diff_vs_published", "published_status",
             "published_delta_pct", "note"]
    out = pd.DataFrame.from_records(records).reindex(columns=TABLE1_COLUMNS + extra)
    out["n"] = out["n"].fillna(0).astype("int64")
    out["n_flagged"] = out["n_flagged"].fillna(0).astype("int64")
    out["n_baseline"] = pd.array(out["n_baseline"], dtype="Int64")
    out["trials_needed"] = pd.array(out["trials_needed"], dtype="Int64")
    out["beyond_margin"] = pd.array(out["beyond_margin"], dtype="boolean")
    for col in ("workload", "environment", "unit", "ci_method", "delta_ci_method", "margin_reason",
                "verdict", "verdict_detail", "published_sd_kind", "published_status", "note"):
        out[col] = out[col].astype("string")
    return out


def verdict_words(row: pd.Series) -> str:
    """Say one Table I comparison's verdict in a few words with its interval (:func:`comparisons.short`).

    Parameters
    ----------
    row : pandas.Series
        A row of :func:`table1`.

    Returns
    -------
    str
        E.g. "equivalent within ±3% (95% CI -0.31% to +0.35%)"; "" where the cell has no data.
    """
    return comparisons.short(row["verdict"], row["delta_ci95_low"], row["delta_ci95_high"],
                             row["margin_low_pct"], row["margin_high_pct"],
                             trials_needed=row["trials_needed"], beyond=row["beyond_margin"],
                             p_holm=row["p_difference_holm"])


def bar_tag(row: pd.Series) -> str:
    """Label a Table I bar: the difference from native and the verdict (:func:`comparisons.tag`)."""
    return comparisons.tag(row["verdict"], row["delta_vs_native_pct"], row["margin_high_pct"])


def linpack_views(trial_rows: pd.DataFrame) -> pd.DataFrame:
    """Summarize the Linpack KVM cells under each selection, labelled.

    The views are the Table I cell, the untuned cell without its flagged trial (a sensitivity
    view, not Table I), and the aborted tuned block.

    Parameters
    ----------
    trial_rows : pandas.DataFrame
        Output of :func:`trials`.

    Returns
    -------
    pandas.DataFrame
        environment, view, n, mean, sd, ci95_low, ci95_high (:func:`overhead.stats.auto_interval`,
        as Table I), ci_method, excluded, source.
    """
    lp = trial_rows[trial_rows["workload"] == "Linpack"]
    views = []
    for env in ("KVM-untuned", "KVM-tuned"):
        rows = lp[(lp["environment"] == env) & lp["in_table"]]
        views.append((env, "Table I cell (all trials of the block)", rows, None))
    un = lp[(lp["environment"] == "KVM-untuned") & lp["in_table"]]
    kept = un[~un["outlier"].fillna(False)]
    gone = un[un["outlier"].fillna(False)]
    views.append(("KVM-untuned", "sensitivity view: without the flagged trial (NOT Table I)", kept,
                  ", ".join(f"trial {int(r.trial)} ({r.value:.1f} GFLOPS, mod z {r.mod_z:.0f})"
                            for r in gone.itertuples())))
    ab = lp[(lp["environment"] == "KVM-tuned") & ~lp["in_table"]]
    views.append(("KVM-tuned", "aborted block (6 of 10 trials; not averaged in)", ab, None))
    records = []
    for env, view, rows, excluded in views:
        x = rows["value"].to_numpy(dtype="float64")
        iv = stats.auto_interval(x, 0.95) if x.size else None
        records.append({
            "environment": env, "view": view, "n": int(x.size),
            "mean": float(np.mean(x)) if x.size else math.nan,
            "sd": float(np.std(x, ddof=1)) if x.size > 1 else math.nan,
            "ci95_low": iv.low if iv else math.nan, "ci95_high": iv.high if iv else math.nan,
            "ci_method": iv.method if iv else None, "excluded": excluded,
            "source": ", ".join(sorted({s.rsplit(":", 1)[0] for s in rows["source"]}))
            + (f" lines {rows['source'].str.rsplit(':', n=1).str[1].astype(int).min()}-"
               f"{rows['source'].str.rsplit(':', n=1).str[1].astype(int).max()}" if len(rows) else ""),
        })
    return pd.DataFrame.from_records(records)


def _num(x: float, d: int) -> str:
    return f"{x:.{d}f}"


def table1_display(trial_rows: pd.DataFrame, table: pd.DataFrame) -> pd.DataFrame:
    """Format Table I as a frame of strings in the paper's style, for Markdown/LaTeX/HTML.

    Each cell: ``mean (delta% vs native) [SD]; n=N; 95% CI lo to hi`` (stats.tables, the same
    interval of the mean as :func:`table1`), then the verdict against native with the interval
    of the difference it was decided on (:func:`verdict_words`) and, where one exists, the
    published value with its percent difference.

    Parameters
    ----------
    trial_rows : pandas.DataFrame
        Output of :func:`trials`.
    table : pandas.DataFrame
        Output of :func:`table1`.

    Returns
    -------
    pandas.DataFrame
        Strings; rows are workloads with their unit, columns the four environments.
    """
    t = trial_rows[trial_rows["in_table"]].assign(
        row=lambda d: d["workload"] + " (" + d["unit"] + ")")
    grid = stats.overhead_table(t, baseline=BASELINE, rows="row", ci="mean", environment="environment")
    info = table.set_index(["workload", "environment"])
    rows = {}
    for w in WORKLOADS:
        label = f"{w} ({UNITS[w][0]})"
        measured = table[(table["workload"] == w) & (table["n"] > 0)]
        d = max((stats.tables.decimals_for(float(r.sd), float(r.mean)) for r in measured.itertuples()),
                default=2)
        cells = []
        for e in ENVIRONMENTS:
            r = info.loc[(w, e)]
            if label in grid.index and e in grid.columns and r["n"] > 0:
                text = grid.loc[label, e]
            else:
                text = stats.tables.MISSING
            extra = []
            if r["n"] > 0 and e != BASELINE and pd.notna(r["verdict"]):
                extra.append(verdict_words(r))
            if pd.notna(r["published_mean"]):
                kind = " pop." if r["published_sd_kind"] == "population" else ""
                pub = f"spreadsheet: {_num(r['published_mean'], d)} [{_num(r['published_sd'], d)}{kind}]"
                if pd.notna(r["pct_diff_vs_published"]):
                    pub += f" ({round(float(r['pct_diff_vs_published']), 2) + 0.0:+.2f}%)"
                extra.append(pub)
            if w == "PXZ":
                extra.append("no data; text: KVM 22% slower" if e.startswith("KVM") else "no data")
            elif r["n"] == 0:
                extra.append("not measured")
            if (w, e) == ("Linpack", "KVM-untuned") and r["n"] > 0:
                extra.append(f"incl. flagged {flagged_trials(trial_rows, w, e, unit=False)}")
            cells.append("\n".join([text, *extra]))
        rows[label] = cells
    out = pd.DataFrame.from_dict(rows, orient="index", columns=list(ENVIRONMENTS))
    out.index.name = "workload (unit)"
    out.columns.name = "environment"
    return out


UNITS_NOTE = "Units: Linpack GFLOPS (10^9 FLOP/s), RandomAccess GUPS (10^9 updates/s), STREAM GB/s (10^9 B/s)."


def table1_notes(trial_rows: pd.DataFrame, table: pd.DataFrame, views: pd.DataFrame, *,
                 published: bool = True) -> list[str]:
    """Write the notes under Table I (table1.md, .tex, .html), from the frames they describe.

    Parameters
    ----------
    trial_rows : pandas.DataFrame
        Output of :func:`trials`.
    table : pandas.DataFrame
        Output of :func:`table1`.
    views : pandas.DataFrame
        Output of :func:`linpack_views`.
    published : bool
        Whether published values were compared.

    Returns
    -------
    list of str
        The units first, then the notes on SDs, intervals and verdicts, PXZ, the Linpack KVM
        cells, the STREAM and RandomAccess VM, and the published values.
    """
    compared = table[table["verdict"].notna() & (table["verdict"] != "baseline")]
    seen = compared[["margin_low_pct", "margin_high_pct"]].drop_duplicates()
    bands = ", ".join(f"\u00b1{hi:g}%" if lo == -hi else f"{lo:+g}%/{hi:+g}%" for lo, hi in seen.itertuples(index=False))
    reasons = "; ".join(dict.fromkeys(compared["margin_reason"].dropna().astype(str)))
    sens = views[views["view"].str.startswith("sensitivity")]
    sens_txt = (f"without it the mean is {float(sens['mean'].iloc[0]):.2f} (n={int(sens['n'].iloc[0])}), "
                "a sensitivity view only" if len(sens) else "no sensitivity view")
    methods = ", ".join(sorted(table["ci_method"].dropna().unique()))
    ratio_methods = ", ".join({"fieller": "Fieller's"}.get(m, m) for m in sorted(compared["delta_ci_method"].dropna().unique()))
    return [
        UNITS_NOTE,
        "Two sockets, 10 trials per cell. SD in brackets is the sample SD (ddof=1); the authors' STREAM "
        "SDs are population SDs (marked pop.), their Linpack and RandomAccess SDs sample SDs.",
        f"95% CI of the mean: {methods} (a rate's interval stays positive). Verdict vs native: decided on the "
        f"95% interval of the ratio of the means ({ratio_methods}), shown as a percent difference, against the "
        f"equivalence margin {bands} (data/reference/margins.yml: {reasons}). Equivalent: the interval lies "
        "inside the margin; slower/faster: it excludes 0 (beyond the margin or not); "
        "inconclusive: it holds both no difference and differences beyond the margin, with about how many "
        f"trials per side would decide it. The difference test's p is Holm-corrected over the {len(compared)} "
        "comparisons.",
        "PXZ: no data or script in the authors' repository; the text only says KVM is 22% slower.",
        f"KVM-untuned Linpack includes {flagged_trials(trial_rows, 'Linpack', 'KVM-untuned')}, flagged as an "
        f"outlier and kept; {sens_txt}. The spreadsheet's 130.28 (7.57) is not verified against the printed table.",
        "KVM-tuned Linpack: last complete block of linpack/results/vm.log; the aborted 6-trial block is not averaged in.",
        "STREAM and RandomAccess KVM runs are from the untuned VM (default CPU model, no pinning); "
        "the RandomAccess two-socket runs are in the files named *.single-socket.localalloc.log.",
        "Published values: the authors' spreadsheets (linpack.xlsx, gups.xlsx, stream-triad.xlsx)." if published
        else "No published values compared (compare_published=False).",
    ]


# --- Table II ---------------------------------------------------------------------------------

def table2() -> pd.DataFrame:
    """Build Table II: the STREAM kernels with bytes and FLOPs per iteration.

    These are definitions of the STREAM benchmark, not measurements.

    Returns
    -------
    pandas.DataFrame
        operation, kernel, bytes_per_iteration, flops_per_iteration, words_read,
        words_written, source.
    """
    rows = []
    for op, kernel, nbytes, flops in STREAM_KERNELS:
        written = 1
        read = nbytes // 8 - written
        rows.append({"operation": op, "kernel": kernel, "bytes_per_iteration": nbytes,
                     "flops_per_iteration": flops, "words_read": read, "words_written": written,
                     "source": "STREAM benchmark definition (McCalpin), 8-byte words; not a measurement"})
    out = pd.DataFrame(rows)
    for c in ("operation", "kernel", "source"):
        out[c] = out[c].astype("string")
    return out


def table2_derived(table: pd.DataFrame) -> pd.DataFrame:
    """Derive the iterations/s and FLOP/s implied by the measured STREAM bandwidth (Table I).

    FLOP/s = bandwidth / bytes_per_iteration * flops_per_iteration; a derived quantity (STREAM
    does not measure FLOPs), with the bandwidth CI carried through (linear).

    Parameters
    ----------
    table : pandas.DataFrame
        Output of :func:`table1`.

    Returns
    -------
    pandas.DataFrame
        operation, environment, n, bandwidth_gbs, bandwidth_ci95_low, bandwidth_ci95_high,
        giga_iterations_per_s, gflops, gflops_ci95_low, gflops_ci95_high.
    """
    k = table2().set_index("operation")
    rows = []
    for r in table[table["workload"].str.startswith("STREAM") & (table["n"] > 0)].itertuples(index=False):
        op = r.workload.split(" ", 1)[1]
        b, f = k.loc[op, "bytes_per_iteration"], k.loc[op, "flops_per_iteration"]
        rows.append({"operation": op, "environment": r.environment, "n": r.n, "bandwidth_gbs": r.mean,
                     "bandwidth_ci95_low": r.ci95_low, "bandwidth_ci95_high": r.ci95_high,
                     "giga_iterations_per_s": r.mean / b, "gflops": r.mean / b * f,
                     "gflops_ci95_low": r.ci95_low / b * f, "gflops_ci95_high": r.ci95_high / b * f})
    return pd.DataFrame(rows)


def stream_median_spread(trial_rows: pd.DataFrame) -> pd.DataFrame:
    """Check the text's "median data exhibiting a difference of only 1.4%" across environments.

    The text says "the median data exhibiting a difference of only 1.4% across the three
    execution environments".

    Parameters
    ----------
    trial_rows : pandas.DataFrame
        Output of :func:`trials`.

    Returns
    -------
    pandas.DataFrame
        Per kernel: the median of each environment and the spread (max - min) / max of those
        medians, in percent (``spread_pct``).
    """
    st = trial_rows[trial_rows["workload"].str.startswith("STREAM") & trial_rows["in_table"]]
    med = st.groupby(["workload", "environment"])["value"].median().unstack("environment")
    med = med[[e for e in ENVIRONMENTS if e in med.columns]]
    med["spread_pct"] = 100.0 * (med.max(axis=1) - med.min(axis=1)) / med.max(axis=1)
    return med.reindex([w for w in WORKLOADS if w in med.index]).reset_index()


def across(table: pd.DataFrame, workloads: list[str] | tuple[str, ...], environment: str) -> str:
    """Say one environment's verdicts over several Table I rows (the STREAM kernels) in one phrase.

    Parameters
    ----------
    table : pandas.DataFrame
        Output of :func:`table1`.
    workloads : sequence of str
        The rows (e.g. the four STREAM kernels).
    environment : str
        The environment compared with native.

    Returns
    -------
    str
        "equivalent within ±3% on all four (95% CIs from -0.9% to +0.6%)" when every row has the
        same verdict and margin, else each row's verdict ("Copy: ..., Add: ...").
    """
    t = table.set_index(["workload", "environment"])
    rows = [t.loc[(w, environment)] for w in workloads]
    words = {str(r["verdict"]) for r in rows}
    margins_seen = {(float(r["margin_low_pct"]), float(r["margin_high_pct"])) for r in rows}
    count = {2: "both", 3: "all three", 4: "all four"}.get(len(rows), f"all {len(rows)}")
    if len(words) == 1 and len(margins_seen) == 1 and "not tested" not in words:
        (word,), ((lo_m, hi_m),) = words, margins_seen
        lo = min(float(r["delta_ci95_low"]) for r in rows)
        hi = max(float(r["delta_ci95_high"]) for r in rows)
        d = 2 if max(abs(lo), abs(hi)) < 1 else 1
        band = f"\u00b1{hi_m:g}%" if lo_m == -hi_m else f"{lo_m:+g}%/{hi_m:+g}%"
        beyond = sum(bool(r["beyond_margin"]) for r in rows if pd.notna(r["beyond_margin"]))
        if word == "equivalent":
            head = f"equivalent within {band} on {count}"
        elif word == "inconclusive":
            head = f"inconclusive at {band} on {count}"
        elif beyond in (0, len(rows)):
            head = f"{word} on {count}, {'beyond' if beyond else 'not shown beyond'} {band}"
        else:
            head = f"{word} on {count}, beyond {band} on {beyond}"
        return f"{head} (95% CIs from {lo:+.{d}f}% to {hi:+.{d}f}%)"
    return "; ".join(f"{w.split(' ', 1)[-1]}: {verdict_words(r)}" for w, r in zip(workloads, rows, strict=True))


def claims(table: pd.DataFrame, views: pd.DataFrame, spread: pd.DataFrame) -> pd.DataFrame:
    """Set the paper's Table I statements next to what the data gives.

    Parameters
    ----------
    table : pandas.DataFrame
        Output of :func:`table1`.
    views : pandas.DataFrame
        Output of :func:`linpack_views`.
    spread : pandas.DataFrame
        Output of :func:`stream_median_spread`.

    Returns
    -------
    pandas.DataFrame
        claim, data (text built from the numbers).
    """
    t = table.set_index(["workload", "environment"])

    def cell(w: str, e: str) -> str:
        r = t.loc[(w, e)]
        d = 1 if abs(r["delta_vs_native_pct"]) >= 0.1 else 2
        return f"{r['delta_vs_native_pct']:+.{d}f}%: {verdict_words(r)}"

    native = t.loc[("Linpack", BASELINE), "mean"]
    sens = views[views["view"].str.startswith("sensitivity")]
    sens_txt = (f"; {100 * (float(sens['mean'].iloc[0]) / native - 1):+.1f}% without the flagged trial"
                if len(sens) else "")
    st = [w for w in WORKLOADS if w.startswith("STREAM")]
    kvm = [t.loc[(w, "KVM-untuned"), "delta_vs_native_pct"] for w in st]
    sp = spread.set_index("workload")["spread_pct"]
    rows = [
        ("Linpack: native and Docker almost identical", "Docker " + cell("Linpack", "Docker")),
        ("Linpack: untuned KVM markedly worse", "untuned KVM " + cell("Linpack", "KVM-untuned") + sens_txt),
        ("Linpack: tuned KVM nearly at par with native", "tuned KVM " + cell("Linpack", "KVM-tuned")),
        ("STREAM: almost identical; median difference only 1.4%",
         f"Docker: {across(table, st, 'Docker')}; untuned KVM {min(kvm):+.1f}% to {max(kvm):+.1f}%: "
         f"{across(table, st, 'KVM-untuned')}; median spread "
         + ", ".join(f"{w.split()[1]} {sp[w]:.2f}%" for w in st)),
        ("RandomAccess: same overheads for all environments",
         "Docker " + cell("RandomAccess", "Docker") + "; KVM " + cell("RandomAccess", "KVM-untuned")),
        ("PXZ: KVM 22% slower; tuning makes little difference", "no PXZ data in the repository: cannot be checked"),
    ]
    return pd.DataFrame(rows, columns=["claim", "data"]).astype("string")


def authors_tables(tidy_dir: str | os.PathLike[str], paper: pd.DataFrame | None = None) -> dict[str, pd.DataFrame]:
    """Compute the section's tables from the authors' tidy data (what the notebook writes).

    ``table1_trials`` (:func:`load_trials`) and ``table1`` (:func:`table1`, with the published
    values beside when ``paper`` is given). The notebook and the live side both get them here.
    """
    from overhead.rc25482.published import table1_published

    trials = load_trials(tidy_dir)
    published = table1_published(paper, include_open=True) if paper is not None else None
    return {"table1_trials": trials, "table1": table1(trials, published)}


# --- the prose numbers of the notebook (its "Reading ..." paragraphs) ------------------

def linpack_outlier(trials: pd.DataFrame, table1: pd.DataFrame, views: pd.DataFrame,
                    paper: pd.DataFrame | None = None) -> dict:
    """Compute the numbers of the untuned-KVM Linpack caveat (the flagged trial).

    Parameters
    ----------
    trials : pandas.DataFrame
        :func:`overhead.rc25482.compute.load_trials`.
    table1 : pandas.DataFrame
        :func:`overhead.rc25482.compute.table1`.
    views : pandas.DataFrame
        :func:`overhead.rc25482.compute.linpack_views`.
    paper : pandas.DataFrame or None
        The published values (the authors' spreadsheet cell); None reads the study's file.

    Returns
    -------
    dict
        trial, file, line, value (GFLOPS) and mod_z of the flagged trial; others_mean and
        others (the other trials' mean, and their count in words); sd, ci_low, ci_high (the
        Table I cell's SD and 95% CI of the mean) and ci_method; sheet_mean, sheet_sd (the
        spreadsheet cell) and sheet_what (whether it is the mean of all trials); n_aborted
        (trials of the aborted tuned block).
    """
    cell = trials[(trials["workload"] == "Linpack") & (trials["environment"] == "KVM-untuned")
                  & trials["in_table"]]
    flagged_mask = cell["outlier"].fillna(False).astype(bool)
    flagged = wording.one(cell[flagged_mask], "the flagged untuned-KVM Linpack trial")
    others = cell.loc[~flagged_mask, "value"]
    file, line = str(flagged["source"]).rsplit(":", 1)
    row = wording.row(table1, workload="Linpack", environment="KVM-untuned")
    sheet = wording.row(table1_published(wording.paper(paper), include_open=True), workload="Linpack", environment="KVM-untuned")
    all_mean = float(cell["value"].mean())
    averaged_all = abs(float(sheet["mean"]) / all_mean - 1.0) < 1e-4
    aborted = wording.one(views[views["view"].str.startswith("aborted")], "the aborted tuned-KVM block")
    return {
        "trial": int(flagged["trial"]), "file": file, "line": int(line), "value": float(flagged["value"]),
        "mod_z": float(flagged["mod_z"]), "others_mean": float(others.mean()), "others": wording.count(len(others)),
        "sd": float(row["sd"]), "ci_low": float(row["ci95_low"]), "ci_high": float(row["ci95_high"]),
        "ci_method": str(row["ci_method"]),
        "sheet_mean": float(sheet["mean"]), "sheet_sd": float(sheet["sd"]),
        "sheet_what": (f"i.e. it averaged all {wording.count(len(cell))}" if averaged_all
                       else f"which is not the mean of all {wording.count(len(cell))} trials"),
        "n_aborted": int(aborted["n"]),
    }


def stream_medians(spread: pd.DataFrame, table1: pd.DataFrame) -> dict:
    """Compute the numbers of the paragraph on the paper's STREAM "difference of only 1.4%".

    Parameters
    ----------
    spread : pandas.DataFrame
        :func:`overhead.rc25482.compute.stream_median_spread`.
    table1 : pandas.DataFrame
        :func:`overhead.rc25482.compute.table1`.

    Returns
    -------
    dict
        triad (spread of the Triad medians, %), reproduced ("is reproduced" when it rounds to
        the paper's 1.4, else "is not reproduced"), copy_scale_low/high (the Copy and Scale
        spreads), kvm_slower_low/high (untuned KVM's loss on Copy and Scale, %), and
        kvm_verdict (its verdicts against native on both kernels, with their intervals:
        :func:`overhead.rc25482.compute.across`).
    """
    sp = spread.set_index("workload")["spread_pct"]
    triad = float(sp["STREAM Triad"])
    two = ["STREAM Copy", "STREAM Scale"]
    kvm = table1[table1["workload"].isin(two) & (table1["environment"] == "KVM-untuned")]
    slower = -kvm["delta_vs_native_pct"].astype(float)
    return {
        "triad": triad,
        "reproduced": ("is reproduced" if round(triad, 1) == PAPER_STREAM_SPREAD_PCT
                       else "is not reproduced"),
        "copy_scale_low": float(sp[two].min()), "copy_scale_high": float(sp[two].max()),
        "kvm_slower_low": float(slower.min()), "kvm_slower_high": float(slower.max()),
        "kvm_verdict": across(table1, two, "KVM-untuned"),
    }


def stream_rates(derived: pd.DataFrame, table1: pd.DataFrame) -> dict:
    """Compute the FLOP rates STREAM achieves beside the Linpack rate (the Table II paragraph).

    Parameters
    ----------
    derived : pandas.DataFrame
        :func:`overhead.rc25482.compute.table2_derived`.
    table1 : pandas.DataFrame
        :func:`overhead.rc25482.compute.table1`.

    Returns
    -------
    dict
        gflops_low, gflops_high (the smallest and largest derived GFLOP/s of the kernels that
        do floating-point work), linpack (native Linpack GFLOPS).
    """
    g = derived.loc[derived["gflops"] > 0, "gflops"]
    return {"gflops_low": float(g.min()), "gflops_high": float(g.max()),
            "linpack": wording.at(table1, "mean", workload="Linpack", environment="Native")}


# --- figures (drawn for the notebook; the notebook saves and shows them) ---

def plot_table1_bars(table: pd.DataFrame, trial_rows: pd.DataFrame) -> Figure:
    """Draw Table I as bars: one panel per measured workload, every trial as a dot.

    Bars from zero with the 95% CI of the mean as error bars, each trial of the cell as a dot
    (flagged trials circled in red, kept), the authors' spreadsheet value as a black bar, and
    above each bar the difference from native with its verdict (:func:`bar_tag`).

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`table1` (the workloads with n > 0 get a panel; there must be six).
    trial_rows : pandas.DataFrame
        :func:`trials` (the ``in_table`` rows are drawn as dots).

    Returns
    -------
    matplotlib.figure.Figure
        The 2 x 3 panel figure (not saved, shown or closed).
    """
    measured_w = [w for w in WORKLOADS if (table.loc[table["workload"] == w, "n"] > 0).any()]
    fig, axes = plt.subplots(2, 3, figsize=(13, 7.6))
    for ax, w in zip(axes.flat, measured_w, strict=True):
        rows = table[(table["workload"] == w) & (table["n"] > 0)]
        envs = list(rows["environment"])
        xs = np.arange(len(envs))
        for x, r in zip(xs, rows.itertuples(), strict=True):
            c = plots.colour(r.environment)
            ax.bar(x, r.mean, width=0.7, color=c, alpha=0.85, edgecolor="black", linewidth=0.6)
            ax.errorbar(x, r.mean, yerr=[[r.mean - r.ci95_low], [r.ci95_high - r.mean]], fmt="none",
                        ecolor="black", capsize=4, linewidth=1.2, label="95% CI of the mean")
            pts = trial_rows[(trial_rows["workload"] == w) & (trial_rows["environment"] == r.environment)
                             & trial_rows["in_table"]]
            jitter = np.linspace(-0.2, 0.2, len(pts))
            ax.scatter(x + jitter, pts["value"], s=10, color="white", edgecolor="black", linewidth=0.6,
                       zorder=3, label="one trial")
            out_pts = pts[pts["outlier"].fillna(False)]
            if len(out_pts):
                ax.scatter(x + jitter[pts["outlier"].fillna(False).to_numpy()], out_pts["value"], s=70,
                           facecolor="none", edgecolor="#D55E00", linewidth=1.5, zorder=4,
                           label="flagged trial (kept)")
            if pd.notna(r.published_mean):
                ax.plot([x - 0.38, x + 0.38], [r.published_mean] * 2, color="black", linewidth=2.2,
                        label="authors' spreadsheet", zorder=5)
            tag = bar_tag(pd.Series(r._asdict()))
            top = np.nanmax([r.ci95_high, pts["value"].max(), r.published_mean])
            ax.text(x, top + 0.025 * rows["mean"].max(), tag, ha="center", va="bottom", fontsize=8.5)
        ax.set_xticks(xs, [f"{e}\nn={n}" for e, n in zip(envs, rows["n"], strict=True)], fontsize=9)
        ax.set_ylim(0, rows["mean"].max() * 1.2)
        ax.set_title(w)
        ax.set_ylabel(rows["unit"].iloc[0])
    handles, labels = [], []
    for ax in axes.flat:
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    fig.legend(handles, labels, loc="lower center", ncol=4, frameon=False, bbox_to_anchor=(0.5, -0.01))
    fig.suptitle("Table I as bars: mean with 95% CI and every trial (two sockets; PXZ: no data)", y=1.0)
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    return fig


# --- the same tables from a campaign measured here (the live side) -------------------

def live_table1(live: livedata.Live) -> pd.DataFrame:
    """Table I live: PXZ (MB/s), Linpack (HPL, GFLOPS), RandomAccess (MPI, GUPS), STREAM (GB/s).

    STREAM is HPCC's StarSTREAM (every core runs the kernel at once; the value is per process)
    and RandomAccess HPCC's MPIRandomAccess over all processes.
    """
    parts = [
        livedata.compare(live.benchmark("pxz", "throughput"), "table1", "PXZ", "MB/s", 1e6),
        # HPL's figure at the precision of HPCC's summary (HPL_Tflops=), one row per run: the
        # rounded table row (p_section "hpl") says the same and would double n
        livedata.compare(live.benchmark("hpcc", "flop_rate", p_kernel="hpl", p_section="summary"),
                 "table1", "Linpack",
                 "GFLOPS", 1e9),
        livedata.compare(live.benchmark("hpcc", "update_rate", p_kernel="randomaccess", p_scope="mpi"),
                 "table1", "RandomAccess", "GUPS", 1e9),
    ]
    for kernel in ("copy", "scale", "add", "triad"):
        parts.append(livedata.compare(live.benchmark("hpcc", "bandwidth", p_kernel=kernel, p_scope="star"),
                              "table1", f"STREAM {kernel.capitalize()}", "GB/s", 1e9))
    table = livedata.finish(parts)

    def match(a: pd.DataFrame, row: pd.Series, env: str) -> pd.DataFrame:
        return a[(a["workload"] == row["item"]) & (a["environment"] == env) & a["mean"].notna()]

    return livedata.attach_authors(table, live, "compute", "table1", match, "mean", "delta_vs_native_pct")
