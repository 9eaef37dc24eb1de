"""One table exporter: a frame, a stem and a caption written as CSV, Markdown, LaTeX and HTML.

Every table the project writes (the paper's notebooks, a campaign's live tables, the seed
studies) goes through :func:`write_table`, so each table has the same files with the same shape
wherever it comes from, and ``overhead publish`` copies them instead of making them again:

``<stem>.csv``
    every column of the frame, as measured or computed (no index); what analyses read back.
``<stem>.md``, ``<stem>.tex``, ``<stem>.html``
    the table as a reader sees it (HTML as a fragment in the report pages' layout,
    :func:`overhead.pages.table_html`) (``shown``: the frame in words, say, where a comparison's
    interval and verdict make one cell), with the caption; its first column as row labels when
    the frame has no index of its own. HTML is written when asked (a report embeds it).

A table with no rows is written as such: its CSV holds the columns it has, and the other
files say "No rows: nothing measured for <stem>." instead of an empty table.
"""

from __future__ import annotations

import html
import os
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from overhead.errors import InputError
from overhead.pages import table_html
from overhead.stats.tables import to_latex, to_markdown

#: Every format :func:`write_table` knows.
FORMATS = ("csv", "md", "tex", "html")
#: What a table is written as unless asked otherwise (HTML when a page embeds it).
DEFAULT_FORMATS = ("csv", "md", "tex")


def labelled(frame: pd.DataFrame) -> pd.DataFrame:
    """Return a frame to show: its first column as row labels when it has no index of its own.

    A frame with a default index (0, 1, 2...) and two or more columns gets its first column as
    the index, so that a shown table starts with what its rows are, not with row numbers.
    """
    if isinstance(frame.index, pd.RangeIndex) and frame.index.name is None and len(frame.columns) > 1:
        return frame.set_index(frame.columns[0])
    return frame


def empty_words(stem: str) -> str:
    """Return what a table with no rows says in place of its rows."""
    return f"No rows: nothing measured for {stem}."


def render(shown: pd.DataFrame, fmt: str, stem: str, *, caption: str | None = None,
           notes: Sequence[str] = (), latex: dict | None = None) -> str:
    """Return one shown form of a table (``md``, ``tex`` or ``html``) as text.

    Parameters
    ----------
    shown : pandas.DataFrame
        The table as a reader sees it (:func:`labelled` is applied).
    fmt : str
        ``md``, ``tex`` or ``html``.
    stem : str
        The table's name (said when it has no rows, and in the LaTeX comment line).
    caption : str, optional
        Put above the Markdown table, as the LaTeX and HTML caption.
    notes : sequence of str
        Paragraphs under the table (a list in Markdown and HTML, set under the LaTeX tabular).
    latex : dict, optional
        More options of :func:`overhead.stats.tables.to_latex` (``widths``, ``size``...).
    """
    if fmt not in FORMATS or fmt == "csv":
        raise InputError(f"table {stem}: unknown shown format {fmt!r} (md, tex or html)")
    if shown.empty:
        words = empty_words(stem)
        if fmt == "md":
            return (f"{caption}\n\n" if caption else "") + words + "\n"
        if fmt == "tex":
            return f"% {stem}: {words}\n"
        return f"<p class='empty'>{words}</p>\n"
    table = labelled(shown)
    notes = list(notes)
    if fmt == "md":
        return ((f"{caption}\n\n" if caption else "") + to_markdown(table)
                + ("\nNotes:\n\n" + "".join(f"- {n}\n" for n in notes) if notes else ""))
    if fmt == "tex":
        opts = {"comment": f"{stem}: written by overhead.export"} | dict(latex or {})
        return to_latex(table, caption=caption, notes=notes or None, **opts)
    return table_html(table, caption=caption) + (
        "<ul>" + "".join(f"<li>{html.escape(n)}</li>" for n in notes) + "</ul>\n" if notes else "")


def write_table(frame: pd.DataFrame, out: str | os.PathLike[str], stem: str, *,
                caption: str | None = None, shown: pd.DataFrame | None = None,
                notes: Sequence[str] = (), formats: Sequence[str] = DEFAULT_FORMATS,
                latex: dict | None = None) -> dict[str, Path]:
    """Write one table in every format asked; return format -> path.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table with all its columns: the CSV (written without the index).
    out : path
        The folder (made if missing).
    stem : str
        The files' name without suffix.
    caption : str, optional
        What the table is (Markdown, LaTeX and HTML carry it; the CSV does not).
    shown : pandas.DataFrame, optional
        The table as a reader sees it (default: ``frame``): the Markdown, LaTeX and HTML.
    notes : sequence of str
        Paragraphs under the shown table.
    formats : sequence of str
        Some of :data:`FORMATS` (default :data:`DEFAULT_FORMATS`).
    latex : dict, optional
        More options for the LaTeX table (:func:`overhead.stats.tables.to_latex`).

    Returns
    -------
    dict of str to pathlib.Path
        The files written, by format.

    Raises
    ------
    InputError
        When a format is not one of :data:`FORMATS` (the message names the table).
    """
    unknown = [f for f in formats if f not in FORMATS]
    if unknown:
        raise InputError(f"table {stem}: unknown format(s) {', '.join(unknown)} "
                         f"(known: {', '.join(FORMATS)})")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    shown = frame if shown is None else shown
    written: dict[str, Path] = {}
    for fmt in formats:
        path = out / f"{stem}.{fmt}"
        if fmt == "csv":
            frame.to_csv(path, index=False)
        else:
            path.write_text(render(shown, fmt, stem, caption=caption, notes=notes, latex=latex))
        written[fmt] = path
    return written


def read_table(csv: str | os.PathLike[str]) -> pd.DataFrame:
    """Read a CSV table as text cells with its first column as row labels (empty cells NA).

    For a table written before the exporter, or by hand, that has only its CSV: what
    :func:`formats_from_csv` shows.
    """
    df = pd.read_csv(csv, dtype=str, keep_default_na=False, na_values=[""])
    df.columns = ["" if str(c).startswith("Unnamed: ") else str(c) for c in df.columns]
    if len(df.columns) > 1:
        return df.set_index(df.columns[0])
    df.index = [""] * len(df)
    return df


def formats_from_csv(csv: str | os.PathLike[str], stem: str,
                     formats: Sequence[str] = ("md", "tex")) -> dict[str, str]:
    """Return the shown forms of a CSV-only table (text cells as written), by format.

    Parameters
    ----------
    csv : path
        The table.
    stem : str
        Its name (for the LaTeX comment line).
    formats : sequence of str
        Shown formats wanted.
    """
    df = read_table(csv)
    made = {}
    for fmt in formats:
        if fmt == "tex":
            made[fmt] = to_latex(df, comment=f"{stem}: from {Path(csv).name}, by overhead publish")
        else:
            made[fmt] = render(df, fmt, stem)
    return made


def shared_columns(frame: pd.DataFrame, *, keep: tuple[str, ...] = ()) -> tuple[pd.DataFrame, str]:
    """Take out the columns whose value is the same in every row, to say them once.

    A table whose columns repeat one value down every row is wider than it needs to be (Table
    III: five of its twelve columns are the same for every configuration); a page says them in
    one line instead.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table as it would be shown (its index is kept).
    keep : tuple of str
        Columns to keep even when constant.

    Returns
    -------
    (pandas.DataFrame, str)
        The table without those columns (unchanged with fewer than two rows), and them in
        words: "runs 10, mode read-only" ("" when there are none).
    """
    if len(frame) < 2:
        return frame, ""
    same = [c for c in frame.columns if c not in keep and frame[c].notna().all()
            and frame[c].astype(str).nunique() == 1]
    words = ", ".join(f"{c} {frame[c].iloc[0]}" for c in same)
    return frame.drop(columns=same), words


__all__ = ["DEFAULT_FORMATS", "FORMATS", "empty_words", "formats_from_csv", "labelled", "shared_columns",
           "read_table", "render", "write_table"]
