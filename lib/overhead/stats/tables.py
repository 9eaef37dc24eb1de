"""Tables in the paper's style.

Each cell is "mean (delta% vs baseline) [SD]; n; CI", rendered to Markdown, LaTeX or HTML
without extra dependencies (pandas' to_markdown needs tabulate, which the project does not
install).

:func:`overhead_cells` computes the numbers (one row per group and environment);
:func:`overhead_table` formats them into a frame of strings (rows = groups, columns =
environments, baseline first); :func:`to_markdown`, :func:`to_latex`, :func:`to_html` render
any frame of strings. Missing cells show an em dash, never 0.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from overhead.stats._common import (
    StatsError,
    check_choice,
    check_level,
    group_keys,
    iter_groups,
    mixed_units,
    norm_key,
    require_columns,
    require_rows,
    values_of,
)
from overhead.stats.ci import auto_interval, t_interval
from overhead.stats.ratio import ratio_interval

MISSING = "\u2014"


def decimals_for(sd: float, mean: float, sd_digits: int = 2) -> int:
    """Choose the decimal places so that the SD shows ``sd_digits`` significant digits.

    The mean is shown to the same place; without a usable SD, four significant digits of the
    mean.

    Parameters
    ----------
    sd, mean : float
        The cell's SD and mean.
    sd_digits : int
        Significant digits of the SD.

    Returns
    -------
    int
        The number of decimal places.
    """
    if math.isfinite(sd) and sd > 0:
        return int(min(12, max(0, sd_digits - 1 - math.floor(math.log10(sd)))))
    if math.isfinite(mean) and mean != 0:
        return int(min(12, max(0, 3 - math.floor(math.log10(abs(mean))))))
    return 2


def format_cell(mean: float, sd: float, n: int, *, delta_pct: float | None = None,
                ci: tuple[float, float] | None = None, level: float = 0.95,
                baseline: bool = False, decimals: int | None = None, ci_is_delta: bool = False,
                note: str | None = None) -> str:
    """Format one cell: ``mean (delta%) [SD]; n=N; 95% CI lo to hi``.

    Parameters
    ----------
    mean, sd : float
        Mean and SD (NaN shows an em dash).
    n : int
        Number of trials.
    delta_pct : float or None
        Percent difference vs the baseline (omitted when None).
    ci : (float, float) or None
        Interval endpoints (omitted when None; an em dash when NaN).
    level : float
        Confidence level, for the label.
    baseline : bool
        The cell is the baseline: shows "(baseline)" instead of a delta.
    decimals : int or None
        Decimal places for mean, SD and a mean CI (None: :func:`decimals_for`).
    ci_is_delta : bool
        The CI is of the percent difference (shown with one decimal and "%").
    note : str or None
        Appended in parentheses (e.g. a reason the CI is missing).

    Returns
    -------
    str
        The cell's text.
    """
    if not math.isfinite(mean):
        text = MISSING
    else:
        d = decimals_for(sd, mean) if decimals is None else decimals
        text = f"{mean:.{d}f}"
        if baseline:
            text += " (baseline)"
        elif delta_pct is not None:
            text += f" ({delta_pct:+.1f}%)" if math.isfinite(delta_pct) else f" ({MISSING})"
        text += f" [{sd:.{d}f}]" if math.isfinite(sd) else f" [{MISSING}]"
    text += f"; n={n}"
    if ci is not None:
        label = f"{100 * level:g}% CI"
        lo, hi = ci
        if math.isfinite(lo) and math.isfinite(hi):
            if ci_is_delta:
                text += f"; {label} {lo:+.1f}% to {hi:+.1f}%"
            else:
                d = decimals_for(sd, mean) if decimals is None else decimals
                text += f"; {label} {lo:.{d}f} to {hi:.{d}f}"
        else:
            text += f"; {label} {MISSING}"
    if note:
        text += f" ({note})"
    return text


def overhead_cells(df: pd.DataFrame, baseline: str = "native",
                   rows: str | Sequence[str] | None = None, *, ci: str | None = "mean",
                   level: float = 0.95, scale: float = 1.0, n_resamples: int = 9999,
                   rng: int | None = 0, environment: str = "environment",
                   value: str = "value") -> pd.DataFrame:
    """Compute the numbers behind :func:`overhead_table`: one row per group and environment.

    Parameters
    ----------
    df : pandas.DataFrame
        Tidy measurements.
    baseline : str
        Baseline environment (its cells are marked; others get a percent difference). A
        baseline missing from the data is allowed: deltas are then NaN.
    rows : str, sequence of str or None
        Row keys (None: the default keys without the environment).
    ci : str or None
        "mean": interval of the mean chosen by the quantity's range (:func:`auto_interval`:
        log-t for positive values, else t); "t": Student-t always; "delta": the interval of the
        percent difference vs the baseline that verdicts are decided on
        (:func:`~overhead.stats.ratio_interval`); None: no interval.
    level : float
        Confidence level.
    scale : float
        Multiply values by this before summarizing (e.g. 1e-9 for GFLOP/s).
    n_resamples, rng
        Unused (kept for callers that pass them; no interval here is a bootstrap).
    environment, value : str
        Column names.

    Returns
    -------
    pandas.DataFrame
        Row keys, environment, n, mean, sd, delta_pct, ci_low, ci_high, ci_kind, reason.
    """
    if ci is not None:
        check_choice(ci, ("mean", "t", "delta"), "ci")
    level = check_level(level)
    require_columns(df, [value, environment], "overhead_cells")
    require_rows(df, "overhead_cells")
    keys = [k for k in group_keys(df, rows, what="overhead_cells") if k != environment]
    records = []
    for key, part in iter_groups(df, keys):
        mix = mixed_units(part)
        base_rows = part[(part[environment] == baseline).fillna(False)]
        y = values_of(base_rows, value) * scale
        y_ok = y.size > 0 and np.isfinite(y).all()
        for env, rows_env in part.groupby(environment, dropna=False, sort=True):
            x = values_of(rows_env, value) * scale
            rec = {**key, environment: env, "n": x.size}
            if mix or not np.isfinite(x).all():
                rec["reason"] = mix or "missing or non-finite values"
                records.append(rec)
                continue
            mean = float(np.mean(x))
            sd = float(np.std(x, ddof=1)) if x.size > 1 else math.nan
            rec.update(mean=mean, sd=sd, ci_kind=ci)
            is_base = norm_key(env) == baseline
            if y_ok and not is_base and float(np.mean(y)) != 0:
                rec["delta_pct"] = 100.0 * (mean / float(np.mean(y)) - 1.0)
            reasons = []
            if x.size < 2:
                reasons.append(f"n={x.size}: no SD")
            if ci in ("mean", "t"):
                iv = auto_interval(x, level) if ci == "mean" else t_interval(x, level)
                rec.update(ci_low=iv.low, ci_high=iv.high, ci_method=iv.method)
                if not math.isfinite(iv.low):
                    reasons.append(iv.reason)
            elif ci == "delta" and not is_base:
                if not y_ok:
                    reasons.append(f"no {baseline!r} values")
                else:
                    r = ratio_interval(x, y, level)
                    rec.update(ci_low=r.pct_low, ci_high=r.pct_high, ci_method=r.method)
                    if not math.isfinite(r.low):
                        reasons.append(r.reason)
            rec["reason"] = "; ".join(r for r in reasons if r) or None
            records.append(rec)
    columns = [*keys, environment, "n", "mean", "sd", "delta_pct", "ci_low", "ci_high", "ci_kind",
               "ci_method", "reason"]
    out = pd.DataFrame.from_records(records, columns=columns)
    for k in [*keys, environment]:
        try:
            out[k] = out[k].astype(df[k].dtype)
        except (TypeError, ValueError):
            pass
    for c in ("ci_kind", "ci_method", "reason"):
        out[c] = out[c].astype("string")
    return out


def overhead_table(df: pd.DataFrame, baseline: str = "native",
                   rows: str | Sequence[str] | None = None, *, ci: str | None = "mean",
                   level: float = 0.95, scale: float = 1.0, decimals: int | None = None,
                   n_resamples: int = 9999, rng: int | None = 0,
                   environment: str = "environment", value: str = "value",
                   drop_constant: bool = True) -> pd.DataFrame:
    """Build a frame of formatted cells "mean (delta% vs baseline) [SD]; n; CI".

    Rows are groups, columns environments (baseline first, then the others sorted).

    Parameters
    ----------
    df, baseline, rows, ci, level, scale, n_resamples, rng, environment, value
        As for :func:`overhead_cells`.
    decimals : int or None
        Fixed decimal places; None chooses per cell from the SD (:func:`decimals_for`).
    drop_constant : bool
        Leave out row-key columns that hold one value (or only NA) for the whole table.

    Returns
    -------
    pandas.DataFrame
        Strings; absent combinations show an em dash.
    """
    cells = overhead_cells(df, baseline, rows, ci=ci, level=level, scale=scale,
                           n_resamples=n_resamples, rng=rng, environment=environment, value=value)
    keys = [c for c in cells.columns[: list(cells.columns).index(environment)]]
    if drop_constant:
        keys = [k for k in keys if cells[k].nunique(dropna=True) > 1] or keys[:1]
    # one number of decimals per table row (the finest any of its cells needs), unless fixed
    row_id = (cells[keys].astype("string").fillna("<NA>").agg("\x1f".join, axis=1)
              if keys else pd.Series("", index=cells.index))
    per_row: dict[str, int] = {}
    for rid, c in zip(row_id, cells.itertuples(index=False), strict=True):
        mean = float(c.mean) if pd.notna(c.mean) else math.nan
        sd = float(c.sd) if pd.notna(c.sd) else math.nan
        if math.isfinite(mean):
            per_row[rid] = max(per_row.get(rid, 0), decimals_for(sd, mean))
    texts = []
    for rid, (_, c) in zip(row_id, cells.iterrows(), strict=True):
        is_base = norm_key(c[environment]) == baseline
        note = c["reason"] if pd.notna(c["reason"]) else None
        ci_pair = None
        if ci is not None and not (ci == "delta" and is_base):
            ci_pair = (float(c["ci_low"]) if pd.notna(c["ci_low"]) else math.nan,
                       float(c["ci_high"]) if pd.notna(c["ci_high"]) else math.nan)
        texts.append(format_cell(
            float(c["mean"]) if pd.notna(c["mean"]) else math.nan,
            float(c["sd"]) if pd.notna(c["sd"]) else math.nan, int(c["n"]),
            delta_pct=float(c["delta_pct"]) if pd.notna(c["delta_pct"]) else (None if is_base else math.nan),
            ci=ci_pair, level=level, baseline=is_base,
            decimals=decimals if decimals is not None else per_row.get(rid),
            ci_is_delta=(ci == "delta"), note=note))
    cells = cells.assign(_text=texts, _env=cells[environment].astype("string").fillna("<NA>"))
    if keys:
        idx = [cells[k].astype("string").fillna("<NA>") for k in keys]
        table = cells.assign(**{f"_k{i}": s for i, s in enumerate(idx)}).pivot_table(
            index=[f"_k{i}" for i in range(len(keys))], columns="_env", values="_text",
            aggfunc="first")
        table.index.names = keys
    else:
        table = cells.set_index("_env")["_text"].to_frame().T
    envs = list(table.columns)
    ordered = ([baseline] if baseline in envs else []) + sorted(e for e in envs if e != baseline)
    table = table[ordered].fillna(MISSING)
    table.columns.name = environment
    return table


def _flat(table: pd.DataFrame) -> tuple[list[str], list[list[str]]]:
    """Return the header and body rows (index columns first) of a frame, as strings."""
    names = [n if n is not None else "" for n in table.index.names]
    header = [str(n) for n in names] + [str(c) for c in table.columns]
    body = []
    for idx, row in table.iterrows():
        idx = idx if isinstance(idx, tuple) else (idx,)
        body.append([str(i) for i in idx] + [MISSING if (v is None or (isinstance(v, float) and math.isnan(v)))
                                             else str(v) for v in row])
    return header, body


def cells(table: pd.DataFrame) -> tuple[list[str], list[list[str]]]:
    """Return a frame's header and body rows as text, index columns first (missing: an em dash).

    What :func:`to_markdown`, :func:`to_latex` and :func:`to_html` lay out, for a renderer of
    its own (the report pages' tables, :mod:`overhead.pages`).
    """
    if not isinstance(table, pd.DataFrame):
        raise StatsError("cells needs a DataFrame")
    return _flat(table)


def to_markdown(table: pd.DataFrame) -> str:
    """Render a frame (index included) as a GitHub-flavoured Markdown pipe table.

    Parameters
    ----------
    table : pandas.DataFrame
        Usually the output of :func:`overhead_table`. Pipes are escaped, newlines become <br>.

    Returns
    -------
    str
        The Markdown table, ending in a newline.
    """
    if not isinstance(table, pd.DataFrame):
        raise StatsError("to_markdown needs a DataFrame")
    header, body = _flat(table)

    def esc(s: str) -> str:
        return s.replace("|", "\\|").replace("\n", "<br>")

    lines = ["| " + " | ".join(esc(h) for h in header) + " |",
             "|" + "|".join(" --- " for _ in header) + "|"]
    lines += ["| " + " | ".join(esc(v) for v in row) + " |" for row in body]
    return "\n".join(lines) + "\n"


_LATEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
          "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
          "^": r"\textasciicircum{}", MISSING: "---"}


def latex_escape(text: str) -> str:
    """Escape LaTeX special characters in ``text``."""
    return "".join(_LATEX.get(ch, ch) for ch in text)


def to_latex(table: pd.DataFrame, *, caption: str | None = None, label: str | None = None,
             widths: dict[str, str] | None = None, wide: bool = False, size: str | None = None,
             notes: list[str] | None = None, comment: str | None = None) -> str:
    r"""Render a frame (index included) as a LaTeX ``tabular`` with booktabs rules.

    Parameters
    ----------
    table : pandas.DataFrame
        Usually the output of :func:`overhead_table`. Special characters are escaped.
    caption, label : str or None
        When given (or when any option below needs one), the tabular is wrapped in a ``table``
        environment with them.
    widths : dict of str to str, optional
        Column (header name, index names included) -> width such as ``"3.7cm"``: that column
        becomes a ``p{...}`` paragraph column and line breaks in its cells become ``\newline``.
        Other columns: ``l`` for the index, ``r`` for the rest.
    wide : bool
        ``table*`` (spanning both columns of a two-column document) instead of ``table``.
    size : str, optional
        A font-size command name for the table, e.g. ``"footnotesize"``.
    notes : list of str, optional
        Paragraphs set under the tabular (escaped).
    comment : str, optional
        A ``%`` comment line put first (what the file is, where it came from).

    Returns
    -------
    str
        The LaTeX source, ending in a newline.
    """
    if not isinstance(table, pd.DataFrame):
        raise StatsError("to_latex needs a DataFrame")
    widths = dict(widths or {})
    header, body = _flat(table)
    unknown = sorted(set(widths) - set(header))
    if unknown:
        raise StatsError(f"to_latex widths name columns the table lacks: {', '.join(unknown)}")
    nidx = table.index.nlevels
    spec = "".join(f"p{{{widths[h]}}}" if h in widths else ("l" if i < nidx else "r")
                   for i, h in enumerate(header))

    def cell(text: str, column: str) -> str:
        if column in widths:
            return "\\newline ".join(latex_escape(part) for part in text.split("\n"))
        return latex_escape(text)

    lines = [f"\\begin{{tabular}}{{{spec}}}", "\\toprule",
             " & ".join(cell(h, h) for h in header) + " \\\\", "\\midrule"]
    lines += [" & ".join(cell(v, h) for v, h in zip(row, header, strict=True)) + " \\\\"
              for row in body]
    lines += ["\\bottomrule", "\\end{tabular}"]
    if notes:
        lines += ["\\par\\smallskip"] + [f"{latex_escape(n)}\\par" for n in notes]
    if caption is not None or label is not None or wide or size or notes:
        env = "table*" if wide else "table"
        inner = [f"\\begin{{{env}}}", "\\centering"]
        if size:
            inner.append(f"\\{size}")
        if caption is not None:
            inner.append(f"\\caption{{{latex_escape(caption)}}}")
        if label is not None:
            inner.append(f"\\label{{{label}}}")
        lines = inner + lines + [f"\\end{{{env}}}"]
    if comment:
        lines.insert(0, "% " + comment.replace("\n", " "))
    return "\n".join(lines) + "\n"


def to_html(table: pd.DataFrame, *, caption: str | None = None) -> str:
    """Render a frame (index included) as an HTML ``<table>``, text escaped.

    Parameters
    ----------
    table : pandas.DataFrame
        Usually the output of :func:`overhead_table`.
    caption : str or None
        Optional ``<caption>``.

    Returns
    -------
    str
        The HTML table, ending in a newline.
    """
    if not isinstance(table, pd.DataFrame):
        raise StatsError("to_html needs a DataFrame")
    header, body = _flat(table)
    nidx = table.index.nlevels

    def esc(s: str) -> str:
        return html.escape(s).replace("\n", "<br>")

    out = ["<table>"]
    if caption is not None:
        out.append(f"<caption>{esc(caption)}</caption>")
    out.append("<thead><tr>" + "".join(f"<th>{esc(h)}</th>" for h in header) + "</tr></thead>")
    out.append("<tbody>")
    for row in body:
        cells = [f"<th>{esc(v)}</th>" for v in row[:nidx]] + [f"<td>{esc(v)}</td>" for v in row[nidx:]]
        out.append("<tr>" + "".join(cells) + "</tr>")
    out += ["</tbody>", "</table>"]
    return "\n".join(out) + "\n"
