"""Browse any tidy data without writing code: a view, its statistics, its figure, its export.

A :class:`View` names what to look at: the data source (the authors' tidy tables,
``data/tidy/ibm``, or a measured campaign's ``data/tidy/<name>``), a benchmark, a metric, an
optional parameter swept on the x axis, the environments to show, and the value at which every
other parameter that varies is held (a comparison pools only like with like: fio's 4 KiB
random reads are never averaged with its 1 MiB sequential writes). :class:`Explorer` fills in
what a view leaves open, computes its summary with :func:`overhead.campaign.results.compare`
(which is :func:`overhead.stats.curve`: n, mean with its 95% CI, and against the baseline the
ratio of means with the 95% interval its verdict is decided on, the equivalence margin of
``data/reference/margins.yml`` and the verdict in words), draws it with :mod:`overhead.plots` (the verdict in every hover box) and exports it (PNG, SVG
and PDF through plotly's static export, which uses the system's Chromium offline, and the data
as CSV, verdicts included).

:meth:`Explorer.widget` wires ipywidgets to the same calls; ``notebooks/explore.ipynb`` only
displays it (interactive) or renders one view (papermill).
"""

from __future__ import annotations

import gc
import math
import os
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from overhead.errors import InputError
from overhead.names import AUTHORS_DATASET, AUTHORS_STUDY
from overhead.paths import FIGURES, TIDY

if TYPE_CHECKING:
    from overhead.margins import Margins
    from overhead.stats import Margin

__all__ = ["AUTHORS", "SUMMARY_COLUMNS", "Explorer", "View", "ViewError", "campaign_rows",
           "parse_environments", "parse_fixed"]

#: The source name of the authors' tidy tables (``data/tidy/ibm``, written by ingest-ibm).
AUTHORS = AUTHORS_DATASET
#: The study the authors' data belongs to, for the margins file's ``study`` field.
#: The summary's columns after the environment and the swept parameter: n and the mean with
#: its CI; against the baseline the ratio of means with the interval the verdict is decided on
#: (and the method that gave it), as a percent too, the margin, the verdict (whether its interval
#: lies wholly beyond the margin, and about how many trials per side would decide an
#: inconclusive one) and its words.
SUMMARY_COLUMNS = ("n", "mean", "sd", "ci_low", "ci_high", "ci_method", "n_baseline", "ratio",
                   "ratio_low", "ratio_high", "ratio_method", "pct", "pct_low", "pct_high",
                   "margin_low_pct", "margin_high_pct", "verdict", "beyond_margin", "trials_needed",
                   "verdict_detail", "unit")
#: Shown for a parameter value that is missing (NA) in some rows.
MISSING = "(missing)"


class ViewError(InputError):
    """A view that names data that is not there (a source, benchmark, metric or value)."""


@dataclass(frozen=True)
class View:
    """What to look at; empty fields are filled in by :meth:`Explorer.resolve`.

    Attributes
    ----------
    source : str
        ``ibm`` (the authors' data) or a campaign's name (a folder of the tidy root).
    benchmark, metric : str
        E.g. ``mysql`` and ``transaction_rate``.
    parameter : str
        A ``p_*`` column drawn on the x axis (one curve per environment); empty for one bar
        per environment.
    environments : tuple of str
        Display labels to show (empty: all).
    fixed : tuple of (str, object)
        The value every other varying parameter is held at (:data:`MISSING` for rows where
        it is NA).
    """

    source: str = ""
    benchmark: str = ""
    metric: str = ""
    parameter: str = ""
    environments: tuple[str, ...] = ()
    fixed: tuple[tuple[str, object], ...] = ()

    def held(self) -> dict[str, object]:
        """Return the fixed parameters as a dict."""
        return dict(self.fixed)

    def stem(self) -> str:
        """Return a file name for this view's export (source-benchmark-metric[-by-param])."""
        parts = [self.source, self.benchmark, self.metric]
        if self.parameter:
            parts.append(f"by-{self.parameter.removeprefix('p_')}")
        parts += [f"{k.removeprefix('p_')}-{v}" for k, v in self.fixed]
        return re.sub(r"[^A-Za-z0-9._-]+", "_", "-".join(str(p) for p in parts)).strip("_")


def parse_environments(text: str) -> tuple[str, ...]:
    """Split ``"Native, Docker NAT"`` into labels (papermill passes environments as text)."""
    return tuple(p.strip() for p in str(text or "").split(",") if p.strip())


def parse_fixed(text: str) -> tuple[tuple[str, str], ...]:
    """Parse ``"p_rw=randread; p_bs=4k"`` into pairs (values stay text until matched to data).

    Raises
    ------
    ViewError
        For a part without ``=``, naming it.
    """
    out = []
    for part in str(text or "").split(";"):
        if not part.strip():
            continue
        name, sep, val = part.partition("=")
        if not sep or not name.strip():
            raise ViewError(f"fixed: {part.strip()!r} is not name=value")
        name = name.strip()
        out.append((name if name.startswith("p_") else f"p_{name}", val.strip()))
    return tuple(out)


def _same(value: object, wanted: object) -> bool:
    """Tell whether a data value is the one a view names (typed, or as text from papermill)."""
    if isinstance(wanted, str) and wanted == MISSING:
        return (isinstance(value, str) and value == MISSING) or bool(pd.isna(value))
    if pd.isna(value):
        return False
    if value == wanted or str(value) == str(wanted):
        return True
    try:
        return math.isclose(float(value), float(wanted))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False


def _match(column: pd.Series, wanted: object) -> pd.Series:
    """Mask of the rows whose value in ``column`` is ``wanted``."""
    if isinstance(wanted, str) and wanted == MISSING:
        return column.isna()
    present = column.notna()
    if isinstance(wanted, str):  # text from papermill, or a text column's value
        return present & (column.astype(str) == wanted) | \
            present & (column.astype(object) == _number(wanted))
    return present & (column.astype(object) == wanted).fillna(False).astype(bool)


def _number(text: str) -> object:
    """Return the number a text names (``"16"`` -> 16.0), else the text itself."""
    try:
        return float(text)
    except ValueError:
        return text


class _Coded:
    """A selection's columns as integer codes, for choosing held values quickly.

    Holding tries every value of every open column, with a lookahead: hundreds of selections.
    Done on the frames themselves that took seconds per widget change; on codes (one
    :func:`pandas.factorize` per column, NA as :data:`MISSING`) each selection is an index array.
    """

    def __init__(self, rows: pd.DataFrame, columns: list[str], keys: list[str]) -> None:
        self.uniques: dict[str, list] = {}
        self.codes: dict[str, np.ndarray] = {}
        for c in dict.fromkeys([*columns, *keys]):
            codes, uniques = pd.factorize(rows[c].astype(object).where(rows[c].notna(), MISSING))
            self.codes[c], self.uniques[c] = codes, list(uniques)
        self.label = self.codes["label"]
        key = np.zeros(len(rows), dtype=np.int64)
        for k in keys:
            key = key * (len(self.uniques[k]) + 1) + self.codes[k]
        self.key = pd.factorize(key)[0]
        # a replicate index: equal to the trial number (redis-benchmark's p_run)
        self.replicate: dict[str, np.ndarray] = {}
        if "trial" in rows:
            trial = rows["trial"].map(lambda t: str(int(t)) if pd.notna(t) and float(t).is_integer()
                                      else str(t))
            for c in columns:
                col = rows[c]
                self.replicate[c] = (col.notna() & (col.astype(str) == trial)).to_numpy(dtype=bool)

    def free(self, idx: np.ndarray, column: str) -> bool:
        """Tell whether a parameter needs no holding on the rows ``idx``.

        A column equal to the ``trial`` column (redis-benchmark's ``p_run``) numbers
        repetitions, which a summary pools. A column with one value per environment (and per x
        value) follows them (``p_connections`` with ``p_clients``, a CPU clock per
        environment): holding it would drop environments or points instead of separating
        unlike runs.
        """
        if column in self.replicate and self.replicate[column][idx].all():
            return True
        key = self.key[idx]
        pairs = key * (len(self.uniques[column]) + 1) + self.codes[column][idx]
        return np.unique(pairs).size == np.unique(key).size

    def score(self, idx: np.ndarray, parameter: str) -> tuple[int, int, int]:
        """Rank the rows ``idx``: environments kept, then (environment, x) points, then rows."""
        points = int(np.unique(self.key[idx]).size) if parameter else 0
        return int(np.unique(self.label[idx]).size), points, int(idx.size)


def _hold(rows: pd.DataFrame, columns: list[str], keys: list[str], parameter: str, *,
          lookahead: bool) -> list[tuple[str, object]]:
    """Choose held values for the columns that need one, one at a time.

    Each step holds the (column, value) whose selection ranks best (environments kept, then
    (environment, x) points, then rows; with ``lookahead``, ranked after completing the rest
    the same way: holding one column can free another, as mysql's report number follows its
    thread count once the series is held). A column that has become free (:meth:`_Coded.free`) is
    left to follow. Values are returned as the rows have them (NA as :data:`MISSING`).
    """
    coded = _Coded(rows, columns, keys)

    def hold(idx: np.ndarray, cols: list[str], ahead: bool) -> list[tuple[str, int]]:
        held: list[tuple[str, int]] = []
        while True:
            done = dict(held)
            open_ = [c for c in cols if c not in done and not coded.free(idx, c)]
            if not open_:
                return held
            best = None
            for column in open_:
                codes = coded.codes[column][idx]
                for value in pd.unique(codes):
                    sel = idx[codes == value]
                    if ahead:
                        for c, v in hold(sel, [c for c in open_ if c != column], False):
                            sel = sel[coded.codes[c][sel] == v]
                    key = coded.score(sel, parameter)
                    if best is None or key > best[0]:
                        best = (key, column, value)
            _, column, value = best
            held.append((column, value))
            idx = idx[coded.codes[column][idx] == value]

    chosen = hold(np.arange(len(rows)), list(columns), lookahead)
    return [(c, coded.uniques[c][v]) for c, v in chosen]


def _sort_values(values) -> list:
    """Sort distinct values: numbers numerically, then text; NA last as :data:`MISSING`."""
    present = [v.item() if hasattr(v, "item") else v for v in values if not pd.isna(v)]
    numbers = sorted((v for v in present if isinstance(v, (int, float))), key=float)
    words = sorted((v for v in present if not isinstance(v, (int, float))), key=str)
    return numbers + words + ([MISSING] if len(present) < len(values) else [])


def campaign_rows(tidy_root: str | os.PathLike[str], campaign: str) -> pd.DataFrame:
    """Return a campaign's usable rows through the DuckDB store, with their display ``label``.

    The rows of its done, non-warm-up trials with the trial's ``env_name`` and ``cell``
    (:class:`overhead.store.Store`'s ``usable`` view: the rows
    :func:`overhead.campaign.results.open_results` selects, read in one query).
    """
    from overhead.campaign.results import display_label
    from overhead.store import Store

    with Store(tidy_root, [campaign]) as store:
        df = store.query("SELECT * FROM usable")
    pairs = df[["environment", "variant"]].drop_duplicates()
    names = {(e, v if isinstance(v, str) else None): display_label(e, v)
             for e, v in pairs.itertuples(index=False)}
    df["label"] = pd.array([names[(e, v if isinstance(v, str) else None)]
                            for e, v in zip(df["environment"], df["variant"], strict=True)],
                           dtype="string")
    return df


class Explorer:
    """The data behind the exploration notebook: sources, choices, statistics and export.

    Parameters
    ----------
    tidy_root : path, optional
        The folder of tidy trees (default ``data/tidy``): ``ibm`` there is the authors' data,
        every folder with a ``trials.parquet`` is a campaign.
    authors : path, optional
        The authors' tidy folder, when not ``<tidy_root>/ibm``.
    out : path, optional
        Where exports go (default ``figures/explore``).
    baseline : str
        The display label every environment is compared with.
    margins : overhead.margins.Margins, optional
        The equivalence margins (default: ``data/reference/margins.yml``).
    """

    def __init__(self, tidy_root: str | os.PathLike[str] | None = None,
                 out: str | os.PathLike[str] | None = None, *,
                 authors: str | os.PathLike[str] | None = None, baseline: str = "Native",
                 margins: Margins | None = None):
        from overhead import margins as _margins

        self.tidy_root = Path(tidy_root or TIDY)
        self.authors = Path(authors) if authors else self.tidy_root / AUTHORS
        self.out = Path(out or FIGURES / "explore")
        self.baseline = baseline
        self.margins = margins if margins is not None else _margins.load()
        self._rows: dict[str, pd.DataFrame] = {}
        self._subsets: dict[tuple, pd.DataFrame] = {}

    # ---- data -------------------------------------------------------------------------------

    def sources(self) -> list[str]:
        """List the data sources present: the authors' data first, then campaigns by name."""
        found = []
        if (self.authors / "measurements.parquet").exists():
            found.append(AUTHORS)
        if self.tidy_root.is_dir():
            found += sorted(p.name for p in self.tidy_root.iterdir()
                            if p.name != AUTHORS and (p / "trials.parquet").exists())
        return found

    def rows(self, source: str) -> pd.DataFrame:
        """Return a source's measurement rows with their ``label`` (cached).

        The authors' rows are all their trials; a campaign's are those of its done, non-warm-up
        trials, read through the DuckDB store (:func:`campaign_rows`).

        Raises
        ------
        ViewError
            When the source is not in the tidy root (naming what is).
        """
        if source not in self._rows:
            if source not in self.sources():
                raise ViewError(f"{self.tidy_root}: no data source {source!r} (present: "
                                f"{', '.join(self.sources()) or 'none; run make ingest or a campaign'})")
            if source == AUTHORS:
                from overhead import tidy

                df = tidy.load(self.authors)
            else:
                df = campaign_rows(self.tidy_root, source)
            self._rows[source] = df[df["value"].notna()].reset_index(drop=True)
            # The rows stay for the explorer's life; kept out of the collector's full passes,
            # which statsmodels' Holm correction forces on every summary (gc.collect in
            # multipletests: 0.2 s a call with the authors' 2 M rows in memory).
            gc.freeze()
        return self._rows[source]

    def benchmarks(self, source: str) -> list[str]:
        """List a source's benchmarks."""
        return sorted(self.rows(source)["benchmark"].dropna().unique())

    def _of(self, source: str, benchmark: str, metric: str | None = None) -> pd.DataFrame:
        """Return the rows of a benchmark (and metric), cached: every control asks for them."""
        key = (source, benchmark, metric)
        if key not in self._subsets:
            if metric is None:
                rows = self.rows(source)
                rows = rows[rows["benchmark"] == benchmark]
            else:
                rows = self._of(source, benchmark)
                rows = rows[rows["metric"] == metric]
            self._subsets[key] = rows
        return self._subsets[key]

    def metrics(self, source: str, benchmark: str) -> list[str]:
        """List the metrics of one benchmark."""
        return sorted(self._of(source, benchmark)["metric"].dropna().unique())

    def parameters(self, source: str, benchmark: str, metric: str) -> list[str]:
        """List the ``p_*`` columns that take more than one value for a benchmark's metric."""
        rows = self._of(source, benchmark, metric)
        return [c for c in sorted(rows.columns) if c.startswith("p_")
                and rows[c].nunique(dropna=False) > 1]

    def values(self, source: str, benchmark: str, metric: str, column: str) -> list:
        """List the distinct values of a parameter (NA as :data:`MISSING`, last)."""
        rows = self._of(source, benchmark, metric)
        return _sort_values(list(rows[column].drop_duplicates()))

    def environments(self, source: str, benchmark: str, metric: str) -> list[str]:
        """List the environments' display labels measured for a metric, in legend order."""
        from overhead.plots import order

        return order(self._of(source, benchmark, metric)["label"].dropna().unique())

    # ---- views ------------------------------------------------------------------------------

    def resolve(self, view: View | None = None) -> View:
        """Fill in what a view leaves open and check what it names.

        Empty fields take the first choice (the authors' data, the first benchmark and metric
        alphabetically, no swept parameter, every environment). Every varying parameter other
        than the swept one is held at the value the view gives, else at a default value (the one that keeps the most environments, then x values, then rows), so that a summary never pools
        unlike runs; except a replicate index (equal to
        ``trial``) and a parameter that has one value per environment (and x value): those
        are pooled and follow (see :meth:`_Coded.free`).

        Raises
        ------
        ViewError
            When the view names a source, benchmark, metric, parameter, environment or held
            value that the data does not have; the message lists what it has.
        """
        v = view or View()
        sources = self.sources()
        source = v.source or (sources[0] if sources else "")
        self.rows(source)  # raises with the list of sources

        def pick(what: str, wanted: str, choices: list[str]) -> str:
            if not choices:
                raise ViewError(f"{source}: no {what} to choose from")
            if not wanted:
                return choices[0]
            if wanted not in choices:
                raise ViewError(f"{source}: no {what} {wanted!r} (choose from "
                                f"{', '.join(map(str, choices[:40]))})")
            return wanted

        benchmark = pick("benchmark", v.benchmark, self.benchmarks(source))
        metric = pick(f"metric of {benchmark}", v.metric, self.metrics(source, benchmark))
        varying = self.parameters(source, benchmark, metric)
        parameter = pick(f"varying parameter of {benchmark} {metric}", v.parameter, varying) \
            if v.parameter else ""
        envs = self.environments(source, benchmark, metric)
        for e in v.environments:
            if e not in envs:
                raise ViewError(f"{source}: {benchmark} {metric} has no environment {e!r} "
                                f"(measured: {', '.join(envs)})")
        given = v.held()
        unknown = sorted(set(given) - set(varying) - {parameter})
        if unknown:
            raise ViewError(f"{source}: {benchmark} {metric} does not vary {', '.join(unknown)} "
                            f"(it varies: {', '.join(varying) or 'nothing'})")
        rows = self._of(source, benchmark, metric)
        # only what holding looks at: filtering the full tidy width is what made a change slow
        rows = rows[["label", *(["trial"] if "trial" in rows else []), *varying]]
        chosen: dict[str, object] = {}
        for column in varying:  # the view's own values first: they must exist together
            if column == parameter or column not in given:
                continue
            choices = self.values(source, benchmark, metric, column)
            match = [c for c in choices if _same(c, given[column])]
            if not match:
                raise ViewError(f"{source}: {benchmark} {metric} has no {column}="
                                f"{given[column]} (values: {', '.join(map(str, choices[:40]))})")
            chosen[column] = match[0]
            rows = rows[_match(rows[column], match[0])]
        if rows.empty:
            raise ViewError(f"{source}: {benchmark} {metric} has no rows with "
                            + ", ".join(f"{k}={v}" for k, v in chosen.items()))
        keys = ["label", parameter] if parameter else ["label"]
        others = [c for c in varying if c != parameter and c not in chosen]
        for column, value in _hold(rows, others, keys, parameter, lookahead=True):
            # the value as the dropdowns list it (plain Python, MISSING for NA)
            chosen[column] = next(c for c in self.values(source, benchmark, metric, column)
                                  if _same(c, value))
        fixed = [(c, chosen[c]) for c in varying if c in chosen]
        return View(source, benchmark, metric, parameter, tuple(v.environments), tuple(fixed))

    def select(self, view: View) -> pd.DataFrame:
        """Return the rows of a resolved view (held parameters applied, environments chosen)."""
        rows = self._of(view.source, view.benchmark, view.metric)
        for column, wanted in view.fixed:
            rows = rows[_match(rows[column], wanted)]
        if view.environments:
            rows = rows[rows["label"].isin(view.environments)]
        if view.parameter:
            rows = rows[rows[view.parameter].notna()]
        return rows

    def margin(self, view: View) -> Margin:
        """Return the equivalence margin of a view's comparisons (``margins.yml``).

        Looked up by the view's benchmark, metric and tool, and its study: ``rc25482`` for
        the authors' data, the campaign's name otherwise.
        """
        rows = self._of(view.source, view.benchmark, view.metric)
        tools = rows["tool"].dropna().unique() if "tool" in rows else []
        return self.margins.lookup(
            study=AUTHORS_STUDY if view.source == AUTHORS else view.source,
            benchmark=view.benchmark, metric=view.metric,
            tool=str(tools[0]) if len(tools) == 1 else None)

    def summary(self, view: View) -> pd.DataFrame:
        """Compute a resolved view's summary: one row per environment (and parameter value).

        Columns: environment, the parameter (when swept), then :data:`SUMMARY_COLUMNS`: n,
        mean, sd, ci_low, ci_high (95%) and ci_method; against the baseline n_baseline, the
        ratio of means with the 95% interval its verdict is decided on (ratio_low, ratio_high,
        ratio_method), the same as a percent difference, the equivalence margin
        (margin_low_pct, margin_high_pct; :meth:`margin`), the verdict ("baseline" for the
        baseline's own rows) and verdict_detail (the verdict in words with n, the interval
        and the margin); unit. From :func:`overhead.campaign.results.compare`; n counts the
        rows (one per trial, or per run where a tool reports one value per run).

        Raises
        ------
        ViewError
            When the selected rows mix units (a parameter must be held to separate them).
        """
        from overhead.campaign.results import compare

        rows = self.select(view)
        units = sorted(rows["unit"].dropna().unique())
        if len(units) > 1:
            raise ViewError(f"{view.source}: {view.benchmark} {view.metric} mixes units "
                            f"{', '.join(units)}; hold a parameter to separate them")
        if rows.empty:
            raise ViewError(f"{view.source}: {view.benchmark} {view.metric}: no rows for "
                            f"{view.stem()}")
        table = compare(rows, f"{view.benchmark} {view.metric}", units[0] if units else "",
                        x=view.parameter or None, baseline=self.baseline,
                        margin=self.margin(view))
        if table.empty:
            return table
        if not table["environment"].eq(self.baseline).any():
            table["verdict"] = pd.array(["not tested"] * len(table), dtype="string")
            table["verdict_detail"] = pd.array(
                [f"not tested: no {self.baseline!r} rows in this view"] * len(table),
                dtype="string")
        table = table[["environment", "x", *SUMMARY_COLUMNS]]
        if view.parameter:
            return table.rename(columns={"x": view.parameter})
        return table.drop(columns="x")

    def shown(self, view: View, table: pd.DataFrame | None = None) -> pd.DataFrame:
        """Return a view's summary as a reader sees it: one row per environment (and value).

        n, the mean with its 95% CI and unit, the percent difference from the baseline with the
        95% interval its verdict is decided on, the margin and the verdict in a few words
        (:func:`overhead.campaign.results.in_words`); the numbers stay in :meth:`summary`.
        """
        from overhead.campaign.results import in_words

        table = self.summary(view) if table is None else table
        if table.empty:
            return table
        if view.parameter:
            table = table.assign(x=table[view.parameter], x_name=view.parameter.removeprefix("p_"))
        words = in_words(table.assign(baseline=self.baseline))
        return words.set_index(list(words.columns[:2 if view.parameter else 1]))

    def figure(self, view: View, table: pd.DataFrame | None = None):
        """Draw a resolved view with plotly: curves over the parameter, or bars.

        Means with their 95% intervals as error bars; hovering a point or a bar shows n and
        the verdict against the baseline in words (with the ratio's interval it was decided
        on and the margin).
        """
        from overhead import plots

        table = self.summary(view) if table is None else table
        unit = str(table["unit"].iloc[0]) if len(table) else ""
        title = f"{view.source}: {view.benchmark} {view.metric}"
        held = ", ".join(f"{k.removeprefix('p_')}={v}" for k, v in view.fixed)
        said = table["verdict_detail"].astype(object).where(table["verdict_detail"].notna(),
                                                            table["verdict"].astype(object))
        if view.parameter:
            fig = plots.plotly_ci_curves(table.assign(_said=said.fillna("-")), view.parameter,
                                         "mean", "ci_low", "ci_high",
                                         hover={"n": "n", f"vs {self.baseline}": "_said"})
            fig.update_xaxes(title_text=view.parameter.removeprefix("p_"))
            fig.update_yaxes(title_text=unit)
            fig.update_layout(title=title, height=480, width=760)
        else:  # the one panel's title says what is held (the figure's title says the rest)
            panel = f"held: {held}" if held else f"{view.benchmark} {view.metric}"
            fig = plots.plotly_bars(table.assign(item=panel), title, baseline=self.baseline)
            fig.update_layout(width=max(560, 110 * len(table)))
            words = dict(zip(table["environment"], said, strict=True))
            for trace in fig.data:  # one bar per environment: its verdict in its hover box
                text = words.get(trace.name)
                if isinstance(text, str) and trace.hovertemplate:
                    trace.hovertemplate = trace.hovertemplate.replace(
                        "<extra></extra>", f"<br>vs {self.baseline}: {text}<extra></extra>")
        fig.update_yaxes(exponentformat="SI")  # 300G FLOP/s, not plotly's 300B (B/s reads as bytes)
        if held and view.parameter:
            fig.add_annotation(text=f"held: {held}", xref="paper", yref="paper", x=0, y=1.06,
                               showarrow=False, font={"size": 10}, xanchor="left")
        return fig

    def render(self, view: View | None = None):
        """Resolve a view and return it with its figure and summary table."""
        view = self.resolve(view)
        table = self.summary(view)
        return view, self.figure(view, table), table

    def export(self, view: View, formats: tuple[str, ...] = ("png", "svg", "pdf")) -> list[Path]:
        """Write a view's figure (static export) and its data as CSV into the export folder.

        Files: ``<stem>.<fmt>`` per format, ``<stem>.csv`` (the summary) and
        ``<stem>_rows.csv`` (the tidy rows behind it), where the stem names the view.

        Returns
        -------
        list of pathlib.Path
            The files written.
        """
        view = self.resolve(view)
        table = self.summary(view)
        fig = self.figure(view, table)
        self.out.mkdir(parents=True, exist_ok=True)
        stem = view.stem()
        paths = []
        for fmt in formats:
            path = self.out / f"{stem}.{fmt}"
            fig.write_image(path, format=fmt)
            paths.append(path)
        table.to_csv(self.out / f"{stem}.csv", index=False)
        rows = self.select(view)
        rows[[c for c in rows.columns if not rows[c].isna().all()]].to_csv(
            self.out / f"{stem}_rows.csv", index=False)
        return [*paths, self.out / f"{stem}.csv", self.out / f"{stem}_rows.csv"]

    def widget(self, view: View | None = None):
        """Return the interactive explorer (ipywidgets) starting at a view.

        Dropdowns for source, benchmark, metric and swept parameter, one per held parameter,
        a multiple selection of environments, the figure and the summary table, and an export
        button. Every change re-resolves the view and redraws.
        """
        return _Widget(self, self.resolve(view)).box

    def with_choice(self, view: View, **changes: object) -> View:
        """Return the resolved view after one choice changes (what a widget does).

        Changing the source, benchmark or metric resets what depends on it (the swept
        parameter, held values and environments the new selection does not have); changing
        the swept parameter chooses the held values afresh.
        """
        new = replace(view, **changes)
        if any(k in changes for k in ("source", "benchmark", "metric")):
            source_changed = "source" in changes and changes["source"] != view.source
            bench_changed = source_changed or ("benchmark" in changes
                                               and changes["benchmark"] != view.benchmark)
            new = View(new.source, "" if source_changed else new.benchmark,
                       "" if bench_changed else new.metric, "", (), ())
            resolved = self.resolve(new)
            params = self.parameters(resolved.source, resolved.benchmark, resolved.metric)
            keep_param = view.parameter if view.parameter in params else ""
            envs = self.environments(resolved.source, resolved.benchmark, resolved.metric)
            keep_envs = tuple(e for e in view.environments if e in envs)
            return self.resolve(replace(resolved, parameter=keep_param, environments=keep_envs,
                                        fixed=()))
        if "parameter" in changes:  # another x axis: what is held is chosen afresh for it
            new = replace(new, fixed=())
        try:
            return self.resolve(new)
        except ViewError:
            if "fixed" not in changes:
                raise
            # the held values chosen before may not exist together with the new one: keep the
            # value just chosen and hold the others at their most frequent values with it
            before = dict(view.fixed)
            mine = tuple((k, v) for k, v in new.fixed if not _same(before.get(k), v))
            return self.resolve(replace(new, fixed=mine))


class _Widget:
    """The ipywidgets wiring of an :class:`Explorer` (what the notebook displays)."""

    def __init__(self, explorer: Explorer, view: View):
        import ipywidgets as w

        self.ex, self.view, self._busy = explorer, view, False
        layout = w.Layout(width="320px")
        self.source = w.Dropdown(description="data", layout=layout)
        self.benchmark = w.Dropdown(description="benchmark", layout=layout)
        self.metric = w.Dropdown(description="metric", layout=layout)
        self.parameter = w.Dropdown(description="x axis", layout=layout)
        self.envs = w.SelectMultiple(description="environments", rows=6,
                                     layout=w.Layout(width="320px"))
        self.held = w.VBox()
        self.export = w.Button(description="Export PNG/SVG/PDF + CSV", icon="download",
                               layout=w.Layout(width="320px"))
        self.status = w.HTML()
        self.plot = w.Output()
        self.table = w.Output()
        for name, control in (("source", self.source), ("benchmark", self.benchmark),
                              ("metric", self.metric), ("parameter", self.parameter)):
            control.observe(lambda change, name=name: self._changed(name, change["new"]), "value")
        self.envs.observe(lambda change: self._changed("environments", tuple(change["new"])),
                          "value")
        self.export.on_click(lambda _button: self._export())
        controls = w.VBox([self.source, self.benchmark, self.metric, self.parameter, self.held,
                           self.envs, self.export, self.status])
        self.box = w.VBox([w.HBox([controls, self.plot]), self.table])
        self.box.add_class("overhead-explore")
        self._sync()
        self._draw()

    def _sync(self) -> None:
        """Set every control's options and value from the view, without triggering redraws."""
        import ipywidgets as w

        ex, v = self.ex, self.view
        self._busy = True
        try:
            self.source.options = ex.sources()
            self.source.value = v.source
            self.benchmark.options = ex.benchmarks(v.source)
            self.benchmark.value = v.benchmark
            self.metric.options = ex.metrics(v.source, v.benchmark)
            self.metric.value = v.metric
            self.parameter.options = [("(none: one bar each)", "")] + [
                (p.removeprefix("p_"), p) for p in ex.parameters(v.source, v.benchmark, v.metric)]
            self.parameter.value = v.parameter
            envs = ex.environments(v.source, v.benchmark, v.metric)
            self.envs.options = envs
            self.envs.value = tuple(v.environments) or tuple(envs)
            dropdowns = []
            for column, value in v.fixed:
                choices = ex.values(v.source, v.benchmark, v.metric, column)
                d = w.Dropdown(description=column.removeprefix("p_"),
                               options=[(str(c), c) for c in choices], value=value,
                               layout=w.Layout(width="320px"))
                d.observe(lambda change, column=column: self._held(column, change["new"]), "value")
                dropdowns.append(d)
            self.held.children = dropdowns
        finally:
            self._busy = False

    def _changed(self, name: str, value: object) -> None:
        if self._busy:
            return
        if name == "environments":
            all_envs = self.ex.environments(self.view.source, self.view.benchmark,
                                            self.view.metric)
            value = () if set(value) == set(all_envs) else value
        self._apply(**{name: value})

    def _held(self, column: str, value: object) -> None:
        if self._busy:
            return
        fixed = tuple((k, value if k == column else v) for k, v in self.view.fixed)
        self._apply(fixed=fixed)

    def _apply(self, **changes: object) -> None:
        try:
            self.view = self.ex.with_choice(self.view, **changes)
        except InputError as exc:
            self.status.value = f"<span style='color:#D55E00'>{exc}</span>"
            return
        self._sync()
        self._draw()

    def _draw(self) -> None:
        from IPython.display import display

        try:
            table = self.ex.summary(self.view)
            fig = self.ex.figure(self.view, table)
        except InputError as exc:
            self.status.value = f"<span style='color:#D55E00'>{exc}</span>"
            return
        self.status.value = (f"{len(self.ex.select(self.view))} rows; "
                             f"{self.view.source}/{self.view.stem()}")
        self.plot.clear_output(wait=True)
        with self.plot:
            display(fig)
        self.table.clear_output(wait=True)
        with self.table:
            display(self.ex.shown(self.view, table))

    def _export(self) -> None:
        try:
            paths = self.ex.export(self.view)
        except Exception as exc:  # shown to the user in the widget, not lost in a log
            self.status.value = f"<span style='color:#D55E00'>export failed: {exc}</span>"
            return
        self.status.value = "exported: " + ", ".join(p.name for p in paths)
