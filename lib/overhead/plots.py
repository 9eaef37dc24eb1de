"""One look for every figure: theme, one colour-blind-safe colour per environment, saving.

Colours and markers come from :mod:`overhead.environments` (the Okabe-Ito palette, fixed per
environment label, so that "KVM" is the same green in every figure of every notebook).
Static figures are written as PNG, SVG and PDF with fixed metadata (reproducible files);
interactive ones as plotly HTML next to a single shared copy of plotly.js.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

import matplotlib

matplotlib.use(os.environ.get("MPLBACKEND", "Agg"))

import matplotlib.pyplot as plt  # noqa: E402
import seaborn as sns  # noqa: E402

from overhead.environments import (  # noqa: E402  (re-exported: figures use them through plots)
    OKABE_ITO,
    STYLE,
    colour,
    label,
    marker,
    order,
    ordered,
    palette,
)
from overhead.names import BASELINE  # noqa: E402

__all__ = ["OKABE_ITO", "STYLE", "ci_curves", "colour", "label", "marker", "n_range", "order", "ordered",
           "palette", "plotly_ci", "plotly_ci_curves", "plotly_colours", "plotly_style", "plotly_symbols",
           "save", "save_html", "theme", "verdict_markers", "VERDICT_FILLS", "margin_band", "comparison_bars", "REFERENCE_MARKER", "log_if_spread", "symlog_if_far",
           "plotly_bars", "plain_log", "plain_numbers", "interval_words", "margin_marks", "symlog_threshold",
           "verdict_face", "verdict_kind", "verdict_legend"]


def theme() -> None:
    """Apply the project's seaborn theme (call once per notebook)."""
    sns.set_theme(context="notebook", style="whitegrid", font_scale=1.0)
    plt.rcParams.update({
        "figure.dpi": 110, "savefig.dpi": 150, "savefig.bbox": "tight",
        "axes.titleweight": "bold", "legend.frameon": True, "legend.framealpha": 0.9,
        "svg.hashsalt": "overhead", "pdf.fonttype": 42,
    })


def save(fig, outdir: str | os.PathLike[str], name: str,
         formats: Sequence[str] = ("png", "svg", "pdf")) -> list[Path]:
    """Write ``fig`` as ``outdir/name.<fmt>`` for each format, with fixed metadata.

    Parameters
    ----------
    fig : matplotlib Figure
        The figure to write.
    outdir : path
        The output folder (created if missing).
    name : str
        The file name without its extension.
    formats : sequence of str
        Formats among "png", "svg" and "pdf".

    Returns
    -------
    list of pathlib.Path
        The files written, one per format.
    """
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    paths = []
    for fmt in formats:
        path = outdir / f"{name}.{fmt}"
        metadata = {"png": {"Software": "overhead"}, "svg": {"Date": None, "Creator": "overhead"},
                    "pdf": {"CreationDate": None, "ModDate": None, "Creator": "overhead"}}[fmt]
        fig.savefig(path, format=fmt, metadata=metadata)
        paths.append(path)
    return paths


def save_html(fig, outdir: str | os.PathLike[str], name: str) -> Path:
    """Write a plotly figure as ``outdir/name.html``; plotly.js is written once beside it."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    path = outdir / f"{name}.html"
    fig.write_html(path, include_plotlyjs="directory", full_html=True)
    return path


def plotly_colours(names: Iterable[str]) -> dict[str, str]:
    """Return the same colours for plotly's ``color_discrete_map``."""
    return palette(names)


def plotly_symbols(names: Iterable[str]) -> dict[str, str]:
    """Return plotly marker symbols matching the matplotlib markers."""
    mpl_to_plotly = {"o": "circle", "s": "square", "D": "diamond", "v": "triangle-down",
                     "^": "triangle-up", "<": "triangle-left", "x": "x", "_": "line-ew"}
    return {n: mpl_to_plotly[marker(n)] for n in names}


def plotly_style(name: str) -> dict:
    """Return plotly trace keywords (line and marker) in an environment's colour and symbol."""
    c = colour(name)
    return {"line": {"color": c}, "marker": {"symbol": plotly_symbols([name])[name], "color": c}}


def plotly_ci(center, low, high) -> dict:
    """Return a plotly ``error_x``/``error_y`` dict drawing [low, high] around ``center``.

    The error bars are asymmetric: bootstrap and Fieller intervals need not be symmetric.

    Parameters
    ----------
    center, low, high : array-like
        The points and their interval's ends.

    Returns
    -------
    dict
        The error dict, of type "data".
    """
    return {"type": "data", "symmetric": False, "array": high - center, "arrayminus": center - low}


# ---- curves with confidence intervals ------------------------------------------------------

def n_range(rows, n: str = "n") -> str:
    """Return the n of a curve's points as text: "10" when all equal, else "10-40"."""
    lo, hi = int(rows[n].min()), int(rows[n].max())
    return f"{lo}" if lo == hi else f"{lo}-{hi}"


def _err(rows, centre: str, low: str | None, high: str | None, scale: float):
    """Return matplotlib's [below, above] error extents for a centre column and its interval."""
    if low is None or high is None:
        return None
    c = rows[centre] / scale
    return [c - rows[low] / scale, rows[high] / scale - c]


def ci_curves(ax, frame, x: str, y: str, ylow: str | None = None, yhigh: str | None = None, *,
              xlow: str | None = None, xhigh: str | None = None, groups: Sequence[str] | None = None,
              column: str = "environment", scale: float = 1.0, spread: float = 0.0,
              label=None, n: str = "n", **style) -> dict:
    """Draw one curve per group (environment) with its confidence intervals as error bars.

    Parameters
    ----------
    ax : matplotlib Axes
        Where to draw.
    frame : pandas.DataFrame
        One row per point, e.g. from :func:`overhead.stats.curve`.
    x, y : str
        Columns of the point.
    ylow, yhigh, xlow, xhigh : str, optional
        Interval columns (error bars where given).
    groups : sequence of str, optional
        Group values in legend order (default: :func:`order` of those present).
    column : str
        The grouping column.
    scale : float
        ``y`` and its interval are divided by it (1000 for thousands).
    spread : float
        Relative x offset between groups, so error bars do not hide each other (x is
        multiplied by 1 + spread (i - (k - 1) / 2) for the i-th of k groups).
    label : str, callable, None or False
        Legend text: a format string with ``{group}`` and ``{n}`` (the n range of the group's
        points), a callable ``(group, rows) -> str``, None for "<group> (n = <n> per point)",
        or False for no legend entry.
    n : str
        Column with the number of trials per point.
    **style
        Passed to ``ax.errorbar``, overriding the defaults (the group's colour and marker,
        marker size 4.5, line width 1.4, caps 2).

    Returns
    -------
    dict
        Group -> the errorbar container (for legends).
    """
    names = list(groups) if groups is not None else order(frame[column].dropna().unique())
    kw = {"ms": 4.5, "lw": 1.4, "capsize": 2, "elinewidth": 0.9, **style}
    drawn = {}
    for i, name in enumerate(names):
        rows = frame[frame[column] == name]
        if rows.empty:
            continue
        xs = rows[x] * (1 + spread * (i - (len(names) - 1) / 2)) if spread else rows[x]
        if label is False:
            text = "_nolegend_"
        elif callable(label):
            text = label(name, rows)
        elif label is None:
            text = f"{name} (n = {n_range(rows, n)} per point)" if n in rows else name
        else:
            text = label.format(group=name, n=n_range(rows, n) if n in rows else "")
        drawn[name] = ax.errorbar(xs, rows[y] / scale, yerr=_err(rows, y, ylow, yhigh, scale),
                                  xerr=_err(rows, x, xlow, xhigh, 1.0), label=text,
                                  **{"color": colour(name), "marker": marker(name), **kw})
    return drawn


#: The marker fill of each kind of verdict (:func:`verdict_markers`).
VERDICT_FILLS = {"differs": "filled", "equivalent": "hollow", "inconclusive": "pale"}


def verdict_markers(ax, frame, x: str, y: str, *, verdict: str = "verdict",
                    groups: Sequence[str] | None = None, column: str = "environment", size: float = 22,
                    labels: bool = False) -> None:
    """Mark each point by its verdict against the baseline.

    Filled: the interval excludes 1, no difference (faster, slower, higher, lower); hollow:
    equivalent within the margin; pale (filled with the colour at a third of its strength):
    inconclusive. Points whose verdict is "baseline", "not tested" or missing get no marker.

    Parameters
    ----------
    ax : matplotlib Axes
        Where to draw.
    frame : pandas.DataFrame
        Points with a verdict column (from :func:`overhead.stats.curve` or
        :func:`overhead.stats.verdicts`).
    x, y : str
        Columns of the point.
    verdict : str
        The verdict column.
    groups : sequence of str, optional
        Groups to mark (default: all present).
    column : str
        The grouping column.
    size : float
        Marker area.
    labels : bool
        Give each kind of marker a legend entry per group.
    """
    names = list(groups) if groups is not None else order(frame[column].dropna().unique())
    texts = {"differs": "differs from native", "equivalent": "equivalent within the margin",
             "inconclusive": "inconclusive"}
    for name in names:
        rows = frame[frame[column] == name]
        col, mk = colour(name), marker(name)
        kinds = rows[verdict].map(verdict_kind)
        for kind, text in texts.items():
            sel = rows[(kinds == kind).to_numpy(dtype=bool)]
            if sel.empty:
                continue
            ax.scatter(sel[x], sel[y], facecolor=verdict_face(sel[verdict].iloc[0], col),
                       edgecolor=col, marker=mk, s=size, zorder=3,
                       label=f"{name}: {text}" if labels else None)


def margin_band(ax, frame, *, low: str = "margin_low_pct", high: str = "margin_high_pct", scale: str = "ratio",
                label: str | None = "equivalence margin", **style):
    """Shade the equivalence margin of a frame's comparisons (one margin for all its rows).

    Parameters
    ----------
    ax : matplotlib Axes
        Where to draw (an axis of ratios, percent differences or losses).
    frame : pandas.DataFrame
        Rows with the margin columns (percent differences); rows without a margin are ignored.
    low, high : str
        The margin columns.
    scale : str
        What the y axis shows: "ratio" (1 + pct / 100), "pct" (the percent difference) or
        "loss" (minus the percent difference).
    label : str or None
        Legend text.
    **style
        Passed to ``ax.axhspan`` (default: light grey, behind the data).

    Returns
    -------
    matplotlib Polygon or None
        The band, or None when the frame has no margin.

    Raises
    ------
    ValueError
        When the rows have more than one margin (draw one band per group instead).
    """
    seen = frame[[low, high]].dropna().drop_duplicates()
    if seen.empty:
        return None
    if len(seen) > 1:
        raise ValueError(f"margin_band: {len(seen)} different margins in the frame")
    lo, hi = float(seen.iloc[0, 0]), float(seen.iloc[0, 1])
    ends = {"ratio": (1 + lo / 100, 1 + hi / 100), "pct": (lo, hi), "loss": (-hi, -lo)}[scale]
    return ax.axhspan(*ends, **{"color": "0.88", "zorder": 0, "lw": 0, "label": label, **style})


def plotly_ci_curves(frame, x: str, y: str, ylow: str | None = None, yhigh: str | None = None, *,
                     xlow: str | None = None, xhigh: str | None = None,
                     groups: Sequence[str] | None = None, column: str = "environment",
                     scale: float = 1.0, name: str = "{group}", hover: dict | None = None,
                     fig=None, mode: str = "lines+markers", dash: str | None = None, **trace):
    """Draw the plotly version of :func:`ci_curves`: one trace per group, intervals as error bars.

    Parameters
    ----------
    frame, x, y, ylow, yhigh, xlow, xhigh, groups, column, scale
        As for :func:`ci_curves`.
    name : str
        Trace name, a format string with ``{group}``.
    hover : dict, optional
        Label -> column shown in the hover box besides x and y (e.g. ``{"n": "n",
        "vs native": "verdict"}``).
    fig : plotly Figure, optional
        Add to this figure (default: a new one with the project's template).
    mode : str
        plotly's scatter mode.
    dash : str, optional
        Line dash ("dash" for secondary curves).
    **trace
        Passed to ``fig.add_scatter`` (e.g. ``secondary_y=True``).

    Returns
    -------
    plotly Figure
        ``fig`` with the traces added.
    """
    import numpy as np
    import plotly.graph_objects as go

    if fig is None:
        fig = go.Figure()
        fig.update_layout(template="plotly_white")
    names = list(groups) if groups is not None else order(frame[column].dropna().unique())
    hover = dict(hover or {})
    for group in names:
        rows = frame[frame[column] == group]
        if rows.empty:
            continue
        ys = rows[y] / scale
        style = plotly_style(group)
        if dash:
            style = {"line": {"color": colour(group), "dash": dash}}
        extra = {}
        if ylow is not None and yhigh is not None:
            extra["error_y"] = plotly_ci(ys, rows[ylow] / scale, rows[yhigh] / scale)
        if xlow is not None and xhigh is not None:
            extra["error_x"] = plotly_ci(rows[x], rows[xlow], rows[xhigh])
        text = "<br>".join(f"{k}: %{{customdata[{i}]}}" for i, k in enumerate(hover))
        if hover:
            extra["customdata"] = np.stack([rows[c].astype(str) for c in hover.values()], axis=-1)
        fig.add_scatter(x=rows[x], y=ys, name=name.format(group=group), mode=mode, **style, **extra,
                        hovertemplate=f"{group}<br>{x}=%{{x}}: %{{y:.4g}}" + (f"<br>{text}" if text else "")
                                      + "<extra></extra>", **trace)
    return fig


# ---- comparisons with a baseline ------------------------------------------------------------

#: Means that span more than this factor get a log axis in a comparison figure.
LOG_SPAN = 8.0
#: Differences from the baseline beyond this many percent get a symmetric-log axis.
SYMLOG_PCT = 100.0
#: Panels side by side in a comparison figure before it wraps onto another row.
PANELS_PER_ROW = 3
#: The marker of a published (or the authors') value beside a measured one: a black star, a
#: shape no environment uses (Docker NAT's is the diamond).
REFERENCE_MARKER = "*"


def log_if_spread(ax, means) -> bool:
    """Put an axis on a log scale (plain numbers) when its positive means span more than :data:`LOG_SPAN`.

    An emulated VM an order of magnitude away would otherwise flatten every other bar or
    curve. Returns whether it did (the caller says so in its label).
    """
    import pandas as pd

    means = pd.Series(means, dtype=float)
    means = means[means > 0]
    if len(means) < 2 or means.max() / means.min() <= LOG_SPAN:
        return False
    ax.set_yscale("log", nonpositive="clip")
    plain_log(ax.yaxis)
    return True


def symlog_threshold(rows) -> float:
    """Return the linear half-width of a symmetric-log percent axis.

    The widest equivalence margin of the rows (so that the margin band takes as much room as
    a decade), between 1 and 10 percent; 10 without margins.
    """
    import pandas as pd

    cols = [c for c in ("margin_low_pct", "margin_high_pct") if c in rows]
    ends = pd.concat([rows[c] for c in cols]).abs().dropna() if cols else pd.Series(dtype=float)
    return float(min(10.0, max(1.0, ends.max()))) if len(ends) else 10.0


def symlog_if_far(ax, rows) -> bool:
    """Put a percent-difference axis on a symmetric-log scale past :data:`SYMLOG_PCT`.

    ``rows`` has ``pct``, ``pct_low`` and ``pct_high``; linear within the widest margin
    (:func:`symlog_threshold`, ±10% without one), so that an emulated VM's +1000% neither
    flattens a container's few percent nor hides a ±3% margin band. Limits keep a little room
    beyond the extreme points (an emulated VM's -97% is not drawn on the frame). Returns
    whether it did.
    """
    import numpy as np
    import pandas as pd

    ends = pd.concat([rows["pct"], rows["pct_low"], rows["pct_high"]]).dropna()
    t = symlog_threshold(rows)
    # past 100%, or past ten margins (where a linear axis would draw the margin as a line)
    if not len(ends) or ends.abs().max() <= min(SYMLOG_PCT, 10 * t):
        return False
    ax.set_yscale("symlog", linthresh=t)

    def room(v: float) -> float:  # a fifth of a decade beyond v on the symlog scale
        return float(np.sign(v) * max(abs(v) * 10 ** 0.2, t)) if v else 0.0

    lo, hi = float(min(ends.min(), -t)), float(max(ends.max(), t))
    lo, hi = room(lo), room(hi)
    ax.set_ylim(lo, hi)
    # ticks at 0, the margin and the decades past it, as plain numbers (symlog's own put
    # 10^0 and -10^0 on top of each other inside the linear part)
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

    decades = [10.0 ** k for k in range(1, 6) if 10.0 ** k > 1.5 * t]
    # the margin's own tick only where no decade sits close above it (their labels would touch)
    ticks = [0.0, *(s * d for d in decades for s in (1, -1))]
    if not decades or decades[0] > 4 * t:
        ticks += [t, -t]
    ax.yaxis.set_major_locator(FixedLocator(sorted(v for v in ticks if lo <= v <= hi)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:+,.0f}" if v else "0"))
    ax.yaxis.set_minor_locator(NullLocator())
    return True


def interval_words(rows, level: str = "ratio_level") -> str:
    """Say at what level a frame's intervals of the difference are drawn.

    "95% CI" for a fixed count of trials; a sequential campaign's intervals are wider (their
    level is the look's, chosen so that all looks together keep 95%): "sequential intervals,
    95.70-99.30%".
    """
    import pandas as pd

    if level not in rows:
        return "95% CI"
    lv = pd.to_numeric(rows[level], errors="coerce").dropna()
    if lv.empty or ((lv - 0.95).abs() < 1e-9).all():
        return "95% CI"
    lo, hi = 100 * lv.min(), 100 * lv.max()
    return (f"sequential intervals, {lo:.2f}%" if abs(hi - lo) < 0.005
            else f"sequential intervals, {lo:.2f}-{hi:.2f}%")


def verdict_kind(verdict) -> str | None:
    """Return the kind of a verdict word: "differs", "equivalent", "inconclusive" or None."""
    word = str(verdict) if verdict is not None else ""
    if word in ("faster", "slower", "higher", "lower"):
        return "differs"
    return word if word in ("equivalent", "inconclusive") else None


def verdict_face(verdict, col) -> object:
    """Return a marker's face colour for a verdict (:data:`VERDICT_FILLS`).

    The colour when the interval excludes no difference, white when equivalent, the colour at
    a third when inconclusive (and the colour when there is no verdict).
    """
    kind = verdict_kind(verdict)
    if kind == "equivalent":
        return "white"
    if kind == "inconclusive":
        return matplotlib.colors.to_rgba(col, 0.33)
    return col


def verdict_legend() -> list:
    """Return legend handles that explain the verdict fills (grey, no environment's colour)."""
    from matplotlib.lines import Line2D

    grey = "0.35"
    return [Line2D([], [], marker="o", linestyle="none", color=grey, markeredgecolor=grey,
                   markerfacecolor=verdict_face(word, grey), label=text)
            for word, text in (("slower", "filled: differs from native"),
                               ("equivalent", "hollow: equivalent within the margin"),
                               ("inconclusive", "pale: inconclusive"))]


def margin_marks(ax, rows, xs, *, width: float = 0.34, label: str = "equivalence margin"):
    """Shade each row's equivalence margin (percent) as a grey box around its x.

    Rows of one panel may have different margins (a benchmark's own); rows without one get
    none. Returns the first box drawn (for a legend), or None.
    """
    import pandas as pd

    first = None
    if "margin_low_pct" not in rows or "margin_high_pct" not in rows:
        return None
    for x, (_, r) in zip(xs, rows.iterrows(), strict=True):
        lo, hi = r["margin_low_pct"], r["margin_high_pct"]
        if pd.isna(lo) or pd.isna(hi):
            continue
        box = ax.fill_between([x - width, x + width], float(lo), float(hi), color="0.82", lw=0,
                              zorder=0, label=label if first is None else None)
        first = first or box
    return first


def comparison_bars(table, title: str, *, items: list[str] | None = None, baseline: str = BASELINE,
                    reference: str | None = None, reference_label: str = "published",
                    reference_env: str | None = None):
    """Draw the measured means (95% CI) per item, the difference from the baseline below.

    The lower panels draw each difference with its interval at the level its verdict used
    (``ratio_level``: a sequential campaign's are wider than 95%; the legend says which), its
    marker filled by the verdict (filled: differs, hollow: equivalent, pale: inconclusive)
    and the comparison's equivalence margin shaded behind it (``margin_low_pct`` /
    ``margin_high_pct``, where the rows have them).

    Parameters
    ----------
    table : pandas.DataFrame
        A comparison frame (:func:`overhead.campaign.results.compare`): item, environment,
        n, mean, ci_low, ci_high, pct, pct_low, pct_high, unit.
    title : str
        The figure's title.
    items : list of str, optional
        The items (panels) to draw, in order (default: all, in table order).
    baseline : str
        The baseline environment's label (no difference is drawn for it).
    reference, reference_label : str, optional
        A column with a published percent difference from the baseline per row, drawn as a
        black star (:data:`REFERENCE_MARKER`) beside the measured one and named
        ``reference_label`` in the legend.
    reference_env : str, optional
        A column naming the environment each published value was measured in; where it is not
        the bar's own (the authors' KVM beside an emulated VM), it is written beside the star.

    A panel whose means span more than :data:`LOG_SPAN` gets a logarithmic axis with points,
    not bars (a bar's length on a log axis means nothing); an interval reaching more than 4x
    past its mean (a handful of trials) is not allowed to set the axis: it is written beside
    its point with its n. Its differences get a symmetric-log axis past :data:`SYMLOG_PCT`
    percent or ten margins, linear within the margin (an emulated VM would otherwise flatten
    every other difference). Each tick says its environment and n on one line.

    Returns
    -------
    matplotlib Figure
    """
    import textwrap

    import numpy as np
    import pandas as pd

    items = items or list(dict.fromkeys(table["item"]))
    bars = max(len(table[table["item"] == i]) for i in items)
    # at most PANELS_PER_ROW panels side by side, further items on more rows (a page-wide figure)
    ncols = min(len(items), PANELS_PER_ROW)
    blocks = -(-len(items) // ncols)
    # long labels side by side: upright (slanted, they reach into the panel below and beside)
    upright = bars > 4 or table["environment"].astype(str).str.len().max() > 16
    fig, grid = plt.subplots(2 * blocks, ncols,
                             figsize=(max(4.2, max(3.1, 0.45 * bars) * ncols),
                                      (6.4 + (1.8 if upright else 0.0)) * blocks),
                             squeeze=False, gridspec_kw={"height_ratios": [3, 2] * blocks})
    for k in range(len(items), blocks * ncols):  # the empty places of the last row
        grid[2 * (k // ncols), k % ncols].set_visible(False)
        grid[2 * (k // ncols) + 1, k % ncols].set_visible(False)
    axes = np.array([[grid[2 * (k // ncols), k % ncols] for k in range(len(items))],
                     [grid[2 * (k // ncols) + 1, k % ncols] for k in range(len(items))]])
    for k, item in enumerate(items):
        rows = table[table["item"] == item].reset_index(drop=True)
        ax, bx = axes[0, k], axes[1, k]
        # on a log axis a bar's length means nothing: points with their intervals there
        log = log_if_spread(ax, rows["mean"])
        for i, r in rows.iterrows():
            c = colour(r["environment"])
            err = ([[r["mean"] - r["ci_low"]], [r["ci_high"] - r["mean"]]]
                   if pd.notna(r["ci_low"]) else None)
            if log:
                ax.errorbar(i, r["mean"], yerr=err, fmt=marker(r["environment"]), color=c,
                            ecolor="black", capsize=3, markersize=7, markeredgecolor="black",
                            markeredgewidth=0.5)
            else:
                ax.bar(i, r["mean"], color=c, edgecolor="black", linewidth=0.5, alpha=0.85)
                if err is not None:
                    ax.errorbar(i, r["mean"], yerr=err, fmt="none", ecolor="black", capsize=3)
            if r["environment"] != baseline and pd.notna(r["pct"]):
                bx.errorbar(i, r["pct"], yerr=[[r["pct"] - r["pct_low"]], [r["pct_high"] - r["pct"]]]
                            if pd.notna(r["pct_low"]) else None, fmt=marker(r["environment"]),
                            color=c, markerfacecolor=verdict_face(r.get("verdict"), c),
                            markeredgecolor=c, capsize=3, label=r["environment"])
            if reference and r["environment"] != baseline and pd.notna(r.get(reference)):
                bx.plot(i + 0.22, r[reference], REFERENCE_MARKER, color="black", markersize=8,
                        label=reference_label)
                other = r.get(reference_env) if reference_env else None
                # named where it is another kind (the authors' KVM beside an emulated VM), not
                # where the live label only adds its variant ("Docker NAT" beside "Docker NAT volume")
                if isinstance(other, str) and other and not str(r["environment"]).startswith(other):
                    bx.annotate(other, (i + 0.22, r[reference]), textcoords="offset points",
                                xytext=(5, 2), fontsize=6)
        if log:
            # the panel spans the means and the intervals that stay within 4x of theirs; an
            # interval from a handful of trials spanning orders of magnitude is said, not drawn
            ends = [*rows["mean"]]
            for _, r in rows.iterrows():
                if pd.notna(r["ci_low"]) and r["ci_low"] > 0 and r["mean"] / r["ci_low"] <= 4:
                    ends.append(r["ci_low"])
                if pd.notna(r["ci_high"]) and r["ci_high"] / r["mean"] <= 4:
                    ends.append(r["ci_high"])
            ends = [e for e in ends if e > 0]
            lo, hi = min(ends) / 1.5, max(ends) * 1.5
            ax.set_ylim(lo, hi)
            for i, r in rows.iterrows():
                if pd.notna(r["ci_low"]) and (r["ci_low"] < lo or r["ci_high"] > hi):
                    ax.annotate(f"n={r['n']}: interval\n{r['ci_low']:.3g}-{r['ci_high']:.3g}",
                                (i, r["mean"]), textcoords="offset points", xytext=(6, 4),
                                fontsize=6)
        margin_marks(bx, rows, range(len(rows)))
        ax.set_title(textwrap.fill(item, 26), fontsize=9)
        ax.set_ylabel(f"{rows['unit'].iloc[0]} (log scale)" if log else rows["unit"].iloc[0])
        many = upright
        ticks = [f"{e} (n={n})" for e, n in zip(rows["environment"], rows["n"], strict=True)]
        ax.set_xticks(range(len(rows)), ticks, fontsize=7, rotation=90 if many else 30,
                      ha="center" if many else "right")
        ax.set_xlim(-0.6, len(rows) - 0.4)
        bx.axhline(0, color="black", linewidth=0.8)
        bx.set_xticks(range(len(rows)), [""] * len(rows))
        bx.set_xlim(ax.get_xlim())
        bx.set_ylabel(f"% vs {baseline}")
        if symlog_if_far(bx, rows):
            bx.set_ylabel(f"% vs {baseline}\n(linear to ±{symlog_threshold(rows):g}, then log)")
    handles, names = [], []
    for bx in axes[1]:
        for h, n in zip(*bx.get_legend_handles_labels(), strict=True):
            if n not in names:
                handles.append(h)
                names.append(n)
    if handles:
        from matplotlib.lines import Line2D

        # an environment's entry in its full colour (its points are filled by their verdict)
        for j, n in enumerate(names):
            if n in set(table["environment"]):
                handles[j] = Line2D([], [], marker=marker(n), color=colour(n), linestyle="none",
                                    label=n)
        kinds = {verdict_kind(v) for v in table.get("verdict", pd.Series(dtype=object))}
        if kinds & {"differs", "equivalent", "inconclusive"}:
            for h in verdict_legend():
                handles.append(h)
                names.append(h.get_label())
        fig.legend(handles, names, loc="lower center", ncol=3, frameon=False, fontsize=8,
                   title=f"lower panels: % vs {baseline}, live ({interval_words(table)})",
                   title_fontsize=8)
    fig.suptitle(title, fontsize=11)
    rows_of_legend = -(-len(handles) // 3) + 1 if handles else 0
    fig.tight_layout(rect=(0, min(0.3, (0.25 + 0.19 * rows_of_legend) / fig.get_figheight()), 1, 0.97))
    return fig


def plotly_bars(table, title: str, *, baseline: str = BASELINE):
    """Draw the same comparison as :func:`comparison_bars` with plotly: one panel per item.

    Hovering a bar shows n, the mean's 95% CI and the percent difference from the baseline
    with its interval.
    """
    import pandas as pd
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    items = list(dict.fromkeys(table["item"]))
    fig = make_subplots(rows=1, cols=len(items), subplot_titles=items)
    shown: set[str] = set()
    for k, item in enumerate(items, start=1):
        rows = table[table["item"] == item]
        for _, r in rows.iterrows():
            env = r["environment"]
            pct = ""
            if env != baseline and pd.notna(r.get("pct")):
                pct = f"{r['pct']:+.1f}%"
                pct += (f" [{r['pct_low']:+.1f}, {r['pct_high']:+.1f}]" if pd.notna(r.get("pct_low"))
                        else " (no interval)")
                pct += f" vs {baseline}"
                if isinstance(r.get("verdict"), str):
                    pct += f": {r['verdict']}"
            fig.add_trace(go.Bar(
                x=[env], y=[r["mean"]], name=env, legendgroup=env, showlegend=env not in shown,
                marker_color=colour(env),
                error_y=plotly_ci(pd.Series([r["mean"]]), pd.Series([r["ci_low"]]),
                                  pd.Series([r["ci_high"]])) if pd.notna(r["ci_low"]) else None,
                hovertemplate=(f"{env}<br>n={r['n']}<br>mean %{{y:.4g}} {r['unit']}<br>"
                               f"{pct}<extra></extra>")), row=1, col=k)
            shown.add(env)
        fig.update_yaxes(title_text=str(rows["unit"].iloc[0]), row=1, col=k)
    fig.update_layout(title=title, barmode="group", height=480,
                      width=max(520, 300 * len(items)))
    return fig


def plain_log(axis, subs: tuple[float, ...] = (1.0, 2.0, 5.0)) -> None:
    """Put a matplotlib axis on a log scale labelled in plain numbers (1, 10, 100).

    Matplotlib's log axes write 2x10^0 and label minor ticks too, which overprint each other
    over narrow ranges; here 1, 2 and 5 of each decade are labelled (``subs``; (1.0,) labels
    the decades only, for axes spanning many of them).
    """
    from matplotlib.ticker import LogLocator, NullFormatter

    axis.set_major_locator(LogLocator(base=10, subs=subs))
    axis.set_major_formatter(plain_numbers())
    axis.set_minor_formatter(NullFormatter())


def plain_numbers():
    """Return a tick formatter writing plain numbers (0.5, 2, 1,000,000), never 2x10^0 or 1e+06."""
    from matplotlib.ticker import FuncFormatter

    return FuncFormatter(lambda v, _pos: f"{v:,.0f}" if v >= 1 and float(v).is_integer()
                         else f"{v:g}")
